/* strata-perf-tracing-data.c
 *
 * The tracing data of a perf.data (a HEADER_TRACING_DATA section, or in
 * pipe mode the bytes after that record): the same layout as the start
 * of a trace.dat, the header page, the ftrace and event formats of each
 * system, kallsyms, printk formats and saved cmdlines. libtraceevent
 * parses the formats; since it trusts them and a damaged one can crash
 * it, they are parsed in a child process first. Then each tracepoint attr
 * is resolved to its format's fields (strata-tracepoint-fields.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strata-perf-source-private.h"
#include "../strata-child-probe.h"

typedef struct
{
  StrataPerfSource *self;
  const guint8     *data;
  gsize             len;
  gsize             pos;
  guint64           base;       /* its offset in the file, for messages */
  gboolean          big_endian;
} Blob;

static gboolean
blob_need (Blob    *b,
           gsize    n,
           GError **error,
           const char *what)
{
  if (b->len - b->pos < n)
    return strata_perf_fail (b->self, error, STRATA_ERROR_TRUNCATED, b->base + b->pos,
                             "tracing data: %s needs %" G_GSIZE_FORMAT " bytes, %" G_GSIZE_FORMAT " left",
                             what, n, b->len - b->pos);
  return TRUE;
}

static guint64
blob_num (Blob  *b,
          guint  size)
{
  guint64 v = 0;

  for (guint i = 0; i < size; i++)
    {
      guint8 byte = b->data[b->pos + i];

      if (b->big_endian)
        v = (v << 8) | byte;
      else
        v |= (guint64) byte << (8 * i);
    }
  b->pos += size;
  return v;
}

static const char *
blob_string (Blob    *b,
             GError **error,
             const char *what)
{
  const guint8 *nul = memchr (b->data + b->pos, '\0', b->len - b->pos);
  const char *s;

  if (nul == NULL)
    {
      strata_perf_fail (b->self, error, STRATA_ERROR_TRUNCATED, b->base + b->pos,
                        "tracing data: %s is not terminated", what);
      return NULL;
    }
  s = (const char *) b->data + b->pos;
  b->pos = nul - b->data + 1;
  return s;
}

/* A block of @size_bytes length then the bytes; a copy with a nul after. */
static char *
blob_block (Blob    *b,
            guint    size_bytes,
            gsize   *len,
            GError **error,
            const char *what)
{
  guint64 n;
  char *copy;

  if (!blob_need (b, size_bytes, error, what))
    return NULL;
  n = blob_num (b, size_bytes);
  if (n > b->len - b->pos)
    {
      strata_perf_fail (b->self, error, STRATA_ERROR_CORRUPT, b->base + b->pos - size_bytes,
                        "tracing data: %s says %" G_GUINT64_FORMAT " bytes, only %" G_GSIZE_FORMAT " follow",
                        what, n, b->len - b->pos);
      return NULL;
    }
  copy = g_malloc (n + 1);
  memcpy (copy, b->data + b->pos, n);
  copy[n] = '\0';
  b->pos += n;
  *len = n;
  return copy;
}

/* The printk format lines ("ADDR : \"FORMAT\"") libtraceevent can take.
 * It splits a line at its first ':', skips one byte and a quote, and
 * reads before the start of what is left when that is under three bytes
 * long. */
static char *
printk_formats_sane (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GString *kept = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *colon = strchr (lines[i], ':');
      const char *fmt;

      if (!g_ascii_isxdigit (lines[i][0]) || colon == NULL || colon[1] == '\0')
        continue;
      fmt = colon + 2;
      if (*fmt == '"')
        fmt++;
      if (strlen (fmt) < 3)
        continue;
      g_string_append (kept, lines[i]);
      g_string_append_c (kept, '\n');
    }

  return g_string_free (kept, FALSE);
}

static gboolean
parse_tracing_data (StrataPerfSource  *self,
                    const guint8      *data,
                    gsize              len,
                    guint64            base,
                    GError           **error)
{
  static const guint8 magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
  Blob b = { self, data, len, 0, base, FALSE };
  const char *version;
  guint long_size, page_size;
  guint64 n;
  gsize block_len;
  char *block;
  guint major = 0, minor = 0;

  if (self->tep != NULL)
    return TRUE;  /* a second copy (pipe mode repeats nothing, but be safe) */

  if (!blob_need (&b, sizeof magic, error, "the magic"))
    return FALSE;
  if (memcmp (data, magic, sizeof magic) != 0)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, base, "tracing data: bad magic");
  b.pos = sizeof magic;

  if ((version = blob_string (&b, error, "the version")) == NULL)
    return FALSE;
  if (sscanf (version, "%u.%u", &major, &minor) < 1)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, base + sizeof magic,
                             "tracing data: version \"%.16s\" is not a number", version);

  if (!blob_need (&b, 2 + 4, error, "the byte order and sizes"))
    return FALSE;
  b.big_endian = data[b.pos++] != 0;
  long_size = data[b.pos++];
  page_size = blob_num (&b, 4);
  if (long_size != 4 && long_size != 8)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, base + b.pos - 5,
                             "tracing data: long size %u", long_size);

  self->tep = tep_alloc ();
  tep_set_flag (self->tep, TEP_NSEC_OUTPUT);
  tep_set_file_bigendian (self->tep, b.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian (self->tep, G_BYTE_ORDER == G_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_long_size (self->tep, long_size);
  tep_set_page_size (self->tep, page_size);
  self->native_order = b.big_endian == (G_BYTE_ORDER == G_BIG_ENDIAN);

  /* header_page and header_event: a name, an 8-byte size, the text. */
  for (guint i = 0; i < 2; i++)
    {
      const char *expect = i == 0 ? "header_page" : "header_event";
      const char *name = blob_string (&b, error, "a header section's name");

      if (name == NULL)
        return FALSE;
      if (strcmp (name, expect) != 0)
        return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, base + b.pos,
                                 "tracing data: expected %s, found \"%.32s\"", expect, name);
      if ((block = blob_block (&b, 8, &block_len, error, expect)) == NULL)
        return FALSE;
      if (i == 0)
        tep_parse_header_page (self->tep, block, block_len, long_size);
      g_free (block);
    }

  /* ftrace's own event formats. */
  if (!blob_need (&b, 4, error, "the ftrace format count"))
    return FALSE;
  n = blob_num (&b, 4);
  for (guint64 i = 0; i < n; i++)
    {
      if ((block = blob_block (&b, 8, &block_len, error, "an ftrace format")) == NULL)
        return FALSE;
      tep_parse_event (self->tep, block, block_len, "ftrace");
      g_free (block);
    }

  /* The event systems and their formats. */
  if (!blob_need (&b, 4, error, "the system count"))
    return FALSE;
  n = blob_num (&b, 4);
  for (guint64 i = 0; i < n; i++)
    {
      const char *system = blob_string (&b, error, "a system name");
      guint64 count;

      if (system == NULL)
        return FALSE;
      if (!blob_need (&b, 4, error, "a system's event count"))
        return FALSE;
      count = blob_num (&b, 4);
      for (guint64 j = 0; j < count; j++)
        {
          if ((block = blob_block (&b, 8, &block_len, error, "an event format")) == NULL)
            return FALSE;
          tep_parse_event (self->tep, block, block_len, system);
          g_free (block);
        }
    }

  /* kallsyms and printk formats; saved cmdlines from version 0.6 on. */
  if ((block = blob_block (&b, 4, &block_len, error, "kallsyms")) == NULL)
    return FALSE;
  if (block_len > 0)
    {
      tep_parse_kallsyms (self->tep, block);
      strata_symbolizer_set_kallsyms (self->symbolizer, block);
    }
  else
    g_free (block);

  if ((block = blob_block (&b, 4, &block_len, error, "printk formats")) == NULL)
    return FALSE;
  if (block_len > 0)
    {
      g_autofree char *kept = printk_formats_sane (block);

      tep_parse_printk_formats (self->tep, kept);
    }
  g_free (block);

  if ((major > 0 || minor >= 6) && b.pos < b.len)
    {
      if ((block = blob_block (&b, 8, &block_len, error, "saved cmdlines")) == NULL)
        return FALSE;
      if (block_len > 0)
        tep_parse_saved_cmdlines (self->tep, block);
      g_free (block);
    }

  return TRUE;
}

static TpInfo *
resolve_tracepoint (StrataPerfSource *self,
                    guint64           config)
{
  struct tep_event *event;
  TpInfo *info;

  if (self->tep == NULL || config > G_MAXINT32)
    return NULL;

  info = g_hash_table_lookup (self->tp_infos, GINT_TO_POINTER ((gint) config));
  if (info != NULL)
    return info;

  event = tep_find_event (self->tep, (int) config);
  if (event == NULL || event->name == NULL)
    return NULL;

  info = g_new0 (TpInfo, 1);
  g_hash_table_insert (self->tp_infos, GINT_TO_POINTER ((gint) config), info);
  info->name = strata_string_pool_intern (self->strings, event->name);
  {
    g_autofree char *full = g_strdup_printf ("%s:%s", event->system ? event->system : "", event->name);

    info->chain_name = strata_string_pool_intern (self->strings, full);
  }
  strata_tracepoint_fields_resolve (&info->tp, event);

  return info;
}

#define PROBE_TIMEOUT_MS 5000

/* What became of the child that parsed the tracing data first. */
typedef enum
{
  PROBE_SURVIVED,
  PROBE_CRASHED,
  PROBE_HUNG,
} ProbeVerdict;

typedef struct
{
  StrataPerfSource *self;
  const guint8     *data;
  gsize             len;
  guint64           base;
} ProbeArgs;

static void
probe_tracing_data (gpointer data)
{
  const ProbeArgs *args = data;
  StrataPerfSource *self = args->self;

  parse_tracing_data (self, args->data, args->len, args->base, NULL);
  for (guint i = 0; i < self->attrs->len; i++)
    {
      const Attr *a = &g_array_index (self->attrs, Attr, i);

      if (a->type == PERF_TYPE_TRACEPOINT)
        resolve_tracepoint (self, a->config);
    }
}

/* Parses the tracing data, and resolves the tracepoint attrs, in a child
 * process (strata-child-probe.c); @how is its wait status when it
 * crashed. */
static ProbeVerdict
probe_in_child (StrataPerfSource *self,
                const guint8     *data,
                gsize             len,
                guint64           base,
                int              *how)
{
  ProbeArgs args = { self, data, len, base };
  int status = 0;

  switch (strata_child_probe_run (probe_tracing_data, &args, PROBE_TIMEOUT_MS, &status))
    {
    case STRATA_CHILD_PROBE_HUNG:
      return PROBE_HUNG;
    case STRATA_CHILD_PROBE_NO_CHILD:
      return PROBE_SURVIVED;  /* no child to spare: parsed here, as before the probe */
    case STRATA_CHILD_PROBE_EXITED:
    default:
      break;
    }
  *how = status;
  return WIFSIGNALED (status) || WEXITSTATUS (status) != 0 ? PROBE_CRASHED : PROBE_SURVIVED;
}

/* probe_in_child(), whose verdict is remembered for the process: the
 * verdict on the same bytes and attrs is the same, and a process opens
 * the same file more than once (the application's pass, then its event
 * list; a fuzzer the same tracing data under countless mutations of
 * everything else). Each fork of a large process that has other threads
 * is a cost, and under a sanitizer's allocator a risk: the child can
 * wait for a lock another thread held when it forked. */
static ProbeVerdict
probe (StrataPerfSource *self,
       const guint8     *data,
       gsize             len,
       guint64           base,
       int              *how)
{
  static GMutex lock;
  static GHashTable *verdicts;   /* hash → verdict + 1, wait status << 2 */
  guint64 hash = 1469598103934665603ull;
  gpointer found;
  ProbeVerdict verdict;

  for (gsize i = 0; i < len; i++)
    hash = (hash ^ data[i]) * 1099511628211ull;
  for (guint i = 0; i < self->attrs->len; i++)
    hash = (hash ^ g_array_index (self->attrs, Attr, i).config) * 1099511628211ull;

  g_mutex_lock (&lock);
  if (verdicts == NULL)
    verdicts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  found = g_hash_table_lookup (verdicts, &hash);
  g_mutex_unlock (&lock);
  if (found != NULL)
    {
      *how = GPOINTER_TO_INT (found) >> 2;
      return (GPOINTER_TO_INT (found) & 3) - 1;
    }
  verdict = probe_in_child (self, data, len, base, how);
  /* A hang may be the machine's, not the data's: asked again next time. */
  if (verdict != PROBE_HUNG)
    {
      g_mutex_lock (&lock);
      g_hash_table_insert (verdicts, g_memdup2 (&hash, sizeof hash),
                           GINT_TO_POINTER ((verdict + 1) | (*how << 2)));
      g_mutex_unlock (&lock);
    }
  return verdict;
}

/* libtraceevent trusts the event formats it parses: a damaged one can
 * crash it. So the tracing data is parsed first in a child process, and
 * only if that child survives, here. */
gboolean
strata_perf_parse_tracing_data (StrataPerfSource  *self,
                                const guint8      *data,
                                gsize              len,
                                guint64            base,
                                GError           **error)
{
  int status = 0;

  if (self->tep != NULL)
    return TRUE;

  switch (probe (self, data, len, base, &status))
    {
    case PROBE_HUNG:
      return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, base,
                               "libtraceevent did not finish parsing the tracing data's event formats");
    case PROBE_CRASHED:
      return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, base,
                               "libtraceevent crashed (%s) parsing the tracing data: its event "
                               "formats are damaged",
                               WIFSIGNALED (status) ? g_strsignal (WTERMSIG (status)) : "exit status");
    default:
      return parse_tracing_data (self, data, len, base, error);
    }
}

/* Once the attrs and the tracing data are both known. */
void
strata_perf_resolve_attr_names (StrataPerfSource *self)
{
  for (guint i = 0; i < self->attrs->len; i++)
    {
      Attr *a = &g_array_index (self->attrs, Attr, i);

      if (a->type != PERF_TYPE_TRACEPOINT || a->tp != NULL)
        continue;
      a->tp = resolve_tracepoint (self, a->config);
      if (a->tp != NULL)
        {
          a->name = a->tp->name;
          a->named = TRUE;
          switch (a->tp->tp.type)
            {
            case STRATA_EVENT_SCHED_SWITCH: self->has_sched_switch = TRUE; break;
            case STRATA_EVENT_SCHED_PROCESS_FORK: self->has_fork_tp = TRUE; break;
            case STRATA_EVENT_SCHED_PROCESS_EXEC: self->has_exec_tp = TRUE; break;
            case STRATA_EVENT_SCHED_PROCESS_EXIT: self->has_exit_tp = TRUE; break;
            default: break;
            }
        }
    }
}
