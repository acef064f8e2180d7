/* strata-ebpf-proc.c
 *
 * Reading /proc into records. A thread or process may exit while it is
 * read: whatever cannot be read is left out, never an error. Records are
 * built field by field in little-endian, as the BPF side writes them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata-ebpf-proc.h"

static gboolean
parse_pid (const char *name,
           gint32     *pid)
{
  char *end = NULL;
  long v;

  if (!g_ascii_isdigit (name[0]))
    return FALSE;
  v = strtol (name, &end, 10);
  if (*end != '\0' || v <= 0 || v > G_MAXINT32)
    return FALSE;
  *pid = v;
  return TRUE;
}

static void
add_task (GByteArray *out,
          gint32      tid,
          gint32      tgid,
          const char *comm,
          guint64     ts)
{
  struct strata_ebpf_task t;

  memset (&t, 0, sizeof t);
  t.h.ts = GUINT64_TO_LE (ts);
  t.h.pid = GINT32_TO_LE (tid);
  t.h.type = STRATA_EBPF_REC_TASK;
  t.h.size8 = sizeof t / 8;
  t.tgid = GINT32_TO_LE (tgid);
  t.reason = STRATA_EBPF_TASK_EXISTING;
  memcpy (t.comm, comm, strnlen (comm, sizeof t.comm));
  g_byte_array_append (out, (const guint8 *) &t, sizeof t);
}

guint
strata_ebpf_proc_walk_threads (GByteArray *out,
                               guint64     ts,
                               GArray     *tgids)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;
  guint n = 0;

  if (proc == NULL)
    return 0;

  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *task_path = NULL;
      g_autoptr(GDir) tasks = NULL;
      const char *tname;
      gint32 tgid;

      if (!parse_pid (name, &tgid))
        continue;
      task_path = g_strdup_printf ("/proc/%d/task", tgid);
      tasks = g_dir_open (task_path, 0, NULL);
      if (tasks == NULL)
        continue;
      if (tgids != NULL)
        g_array_append_val (tgids, tgid);

      while ((tname = g_dir_read_name (tasks)) != NULL)
        {
          g_autofree char *comm_path = NULL;
          g_autofree char *comm = NULL;
          gint32 tid;

          if (!parse_pid (tname, &tid))
            continue;
          comm_path = g_strdup_printf ("/proc/%d/task/%d/comm", tgid, tid);
          if (!g_file_get_contents (comm_path, &comm, NULL, NULL))
            continue;
          g_strchomp (comm);
          add_task (out, tid, tgid, comm, ts);
          n++;
        }
    }

  return n;
}

void
strata_ebpf_proc_add_marker (GByteArray *out,
                             guint8      type,
                             gint32      pid,
                             guint64     ts)
{
  struct strata_ebpf_record h;

  memset (&h, 0, sizeof h);
  h.ts = GUINT64_TO_LE (ts);
  h.pid = GINT32_TO_LE (pid);
  h.type = type;
  h.size8 = sizeof h / 8;
  g_byte_array_append (out, (const guint8 *) &h, sizeof h);
}

guint
strata_ebpf_proc_read_maps (GByteArray *out,
                            gint32      tgid,
                            guint64     ts)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/maps", tgid);
  g_autofree char *line = NULL;
  size_t line_size = 0;
  FILE *f;
  guint n = 0;

  f = fopen (path, "re");
  if (f == NULL)
    return 0;

  /* "START-END PERMS OFFSET DEV INODE   PATH" */
  while (getline (&line, &line_size, f) > 0)
    {
      unsigned long long start, end, pgoff;
      char perms[8];
      int path_at = 0;
      struct strata_ebpf_map m;
      const char *file;
      gsize len, size;
      static const guint8 zeros[8];

      if (sscanf (line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &path_at) < 4 ||
          path_at == 0 || strchr (perms, 'x') == NULL)
        continue;
      file = g_strchomp (line + path_at);
      len = MIN (strlen (file), STRATA_EBPF_RECORD_MAX_SIZE - sizeof m - 8);
      if (len == 0)
        continue;

      size = (sizeof m + len + 7) & ~(gsize) 7;
      memset (&m, 0, sizeof m);
      m.h.ts = GUINT64_TO_LE (ts);
      m.h.pid = GINT32_TO_LE (tgid);
      m.h.type = STRATA_EBPF_REC_MAP;
      m.h.size8 = size / 8;
      m.start = GUINT64_TO_LE (start);
      m.end = GUINT64_TO_LE (end);
      m.pgoff = GUINT64_TO_LE (pgoff);
      m.path_len = GUINT16_TO_LE (len);
      g_byte_array_append (out, (const guint8 *) &m, sizeof m);
      g_byte_array_append (out, (const guint8 *) file, len);
      g_byte_array_append (out, zeros, size - sizeof m - len);
      n++;
    }

  fclose (f);
  return n;
}
