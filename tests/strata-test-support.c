/* strata-test-support.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-test-support.h"

static char *tmpdir;

static void
remove_tmpdir (void)
{
  if (tmpdir != NULL)
    {
      g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
      G_GNUC_UNUSED int ret = system (cmd);
      g_clear_pointer (&tmpdir, g_free);
    }
}

/* A directory for this test process, removed at exit. */
char *
strata_test_tmpdir (void)
{
  if (tmpdir == NULL)
    {
      g_autoptr(GError) error = NULL;

      tmpdir = g_dir_make_tmp ("strata-test-XXXXXX", &error);
      g_assert_no_error (error);
      atexit (remove_tmpdir);
    }

  return g_strdup (tmpdir);
}

/* The path of a fixture; a ".xz" one is unpacked once into the tmpdir and
 * the unpacked path is returned. */
char *
strata_test_fixture (const char *name)
{
  const char *dir = g_getenv ("STRATA_FIXTURES_DIR");
  g_autofree char *path = NULL;
  g_autofree char *dir_tmp = NULL;
  g_autofree char *out = NULL;
  g_autofree char *cmd = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (dir != NULL)
    path = g_build_filename (dir, name, NULL);
  else
    path = g_test_build_filename (G_TEST_DIST, "fixtures", name, NULL);

  if (!g_str_has_suffix (name, ".xz"))
    return g_steal_pointer (&path);

  dir_tmp = strata_test_tmpdir ();
  out = g_build_filename (dir_tmp, name, NULL);
  out[strlen (out) - 3] = '\0';

  if (g_file_test (out, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&out);

  cmd = g_strdup_printf ("sh -c \"xz -dc '%s' > '%s'\"", path, out);
  g_spawn_command_line_sync (cmd, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  return g_steal_pointer (&out);
}

gboolean
strata_test_have_program (const char *program)
{
  g_autofree char *path = g_find_program_in_path (program);
  return path != NULL;
}

/* Every event of @path, in the order the source yields them. */
GArray *
strata_test_read_events (const char    *path,
                         StrataSource **source_out,
                         GError       **error)
{
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = g_array_new (FALSE, FALSE, sizeof (StrataEvent));
  StrataEvent batch[1024];

  source = strata_source_open (path, error);
  if (source == NULL)
    return NULL;

  for (;;)
    {
      gssize n = strata_source_read_batch (source, batch, G_N_ELEMENTS (batch), error);

      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      g_array_append_vals (events, batch, n);
    }

  if (source_out != NULL)
    *source_out = g_steal_pointer (&source);

  return g_steal_pointer (&events);
}

static void
count (GHashTable *counts,
       const char *name)
{
  gpointer old = g_hash_table_lookup (counts, name);

  g_hash_table_replace (counts, g_strdup (name),
                        GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + 1));
}

/*
 * strata_test_trace_cmd_counts:
 * @path: a trace.dat
 * @instance: (nullable): a buffer instance name, or %NULL for the top one
 *
 * Events per name as `trace-cmd report` prints them. trace-cmd prefixes
 * the lines of an instance with "NAME:" and sorts all instances together.
 *
 * Returns: (transfer full): event name -> count (as a pointer)
 */
GHashTable *
strata_test_trace_cmd_counts (const char *path,
                              const char *instance)
{
  g_autoptr(GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GRegex) regex = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  const char *argv[] = { "trace-cmd", "report", path, NULL };
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                &out, &err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  /* "  comm-pid  [001]  81.730690: sched_switch:  ..." */
  regex = g_regex_new ("^(?:([A-Za-z0-9_.-]+): )?.*\\[[0-9]+\\]\\s+[0-9]+\\.[0-9]+: ([A-Za-z0-9_]+):",
                       G_REGEX_OPTIMIZE, 0, &error);
  g_assert_no_error (error);

  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      g_autoptr(GMatchInfo) match = NULL;

      if (g_regex_match (regex, lines[i], 0, &match))
        {
          g_autofree char *inst = g_match_info_fetch (match, 1);
          g_autofree char *name = g_match_info_fetch (match, 2);
          gboolean is_top = inst == NULL || inst[0] == '\0';

          if ((instance == NULL && is_top) ||
              (instance != NULL && !is_top && strcmp (inst, instance) == 0))
            count (counts, name);
        }
    }

  return g_steal_pointer (&counts);
}

/* Events per name for one instance, from our reader. */
GHashTable *
strata_test_event_counts (StrataSource *source,
                          GArray       *events,
                          guint16       instance)
{
  GHashTable *counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  StrataStringPool *strings = strata_source_get_strings (source);

  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);

      if (ev->instance == instance && ev->type != STRATA_EVENT_LOST)
        count (counts, strata_string_pool_get (strings, ev->name));
    }

  return counts;
}
