/* test-perf-corpus.c
 *
 * The perf.data reader on files other people's perf wrote
 * (../shared/corpus/perf, see its README; skipped when absent). Every file
 * must be read without damage, its events in time order, and every sample
 * parsed so that its fields fill the record exactly (which checks the
 * sample_type and read_format layouts on files of other perf versions).
 * Where the machine's perf reads the file too, the records per type must
 * equal `perf report --stats`. The files perf 6.1 refuses (an attr of 136
 * bytes, the PERFFILE v1 magic, read_format GROUP|LOST) are checked
 * against what their headers say.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "strata-test-support.h"
#include "../plugins/perf/strata-perf-format.h"
#include "../plugins/perf/strata-perf-source.h"

static const struct { const char *name; guint type; } record_names[] = {
  { "MMAP", PERF_RECORD_MMAP }, { "LOST", PERF_RECORD_LOST },
  { "COMM", PERF_RECORD_COMM }, { "EXIT", PERF_RECORD_EXIT },
  { "THROTTLE", PERF_RECORD_THROTTLE }, { "UNTHROTTLE", PERF_RECORD_UNTHROTTLE },
  { "FORK", PERF_RECORD_FORK }, { "READ", PERF_RECORD_READ },
  { "SAMPLE", PERF_RECORD_SAMPLE }, { "MMAP2", PERF_RECORD_MMAP2 },
  { "LOST_SAMPLES", PERF_RECORD_LOST_SAMPLES }, { "SWITCH", PERF_RECORD_SWITCH },
  { "SWITCH_CPU_WIDE", PERF_RECORD_SWITCH_CPU_WIDE }, { "KSYMBOL", PERF_RECORD_KSYMBOL },
  { "BPF_EVENT", PERF_RECORD_BPF_EVENT }, { "CGROUP", PERF_RECORD_CGROUP },
  { "ATTR", PERF_RECORD_HEADER_ATTR }, { "TRACING_DATA", PERF_RECORD_HEADER_TRACING_DATA },
  { "BUILD_ID", PERF_RECORD_HEADER_BUILD_ID }, { "FINISHED_ROUND", PERF_RECORD_FINISHED_ROUND },
  { "ID_INDEX", PERF_RECORD_ID_INDEX }, { "THREAD_MAP", PERF_RECORD_THREAD_MAP },
  { "CPU_MAP", PERF_RECORD_CPU_MAP }, { "EVENT_UPDATE", PERF_RECORD_EVENT_UPDATE },
  { "TIME_CONV", PERF_RECORD_TIME_CONV }, { "FEATURE", PERF_RECORD_HEADER_FEATURE },
  { "COMPRESSED", PERF_RECORD_COMPRESSED }, { "FINISHED_INIT", PERF_RECORD_FINISHED_INIT },
};

static char *
corpus_dir (void)
{
  const char *dir = g_getenv ("STRATA_CORPUS_DIR");
  char *perf;

  if (dir == NULL)
    return NULL;
  perf = g_build_filename (dir, "perf", NULL);
  if (!g_file_test (perf, G_FILE_TEST_IS_DIR))
    g_clear_pointer (&perf, g_free);
  return perf;
}

/* perf's own counts, or NULL when it cannot read the file. */
static GHashTable *
perf_stats (const char *path)
{
  g_autofree char *out = NULL;
  g_autofree char *quoted = g_shell_quote (path);
  g_autofree char *cmd = g_strdup_printf ("perf report --stats -i %s", quoted);
  g_auto(GStrv) lines = NULL;
  GHashTable *counts;
  gboolean in = FALSE;
  int status = 0;

  if (!strata_test_have_program ("perf") ||
      !g_spawn_command_line_sync (cmd, &out, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL) || strstr (out, "Aggregated stats:") == NULL)
    return NULL;

  counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char name[64];
      guint64 n;

      if (strstr (lines[i], "Aggregated stats:") != NULL)
        in = TRUE;
      else if (g_str_has_suffix (lines[i], " stats:"))
        in = FALSE;
      else if (in && sscanf (lines[i], " %63s events: %" G_GUINT64_FORMAT, name, &n) == 2 &&
               strcmp (name, "TOTAL") != 0)
        g_hash_table_insert (counts, g_strdup (name), GSIZE_TO_POINTER (n));
    }
  return counts;
}

static void
test_file (gconstpointer data)
{
  const char *name = data;
  g_autofree char *dir = corpus_dir ();
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(GHashTable) perf = NULL;
  StrataPerfSource *ps;
  const StrataSourceInfo *info;

  if (dir == NULL)
    {
      g_test_skip ("no ../shared/corpus/perf");
      return;
    }

  path = g_build_filename (dir, name, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("not in this corpus");
      return;
    }
  events = strata_test_read_events (path, &source, &error);
  g_assert_no_error (error);
  ps = STRATA_PERF_SOURCE (source);
  info = strata_source_get_info (source);

  for (guint i = 1; i < events->len; i++)
    g_assert_cmpint (g_array_index (events, StrataEvent, i - 1).ts, <=,
                     g_array_index (events, StrataEvent, i).ts);
  g_assert_cmpuint (strata_perf_source_get_inexact_samples (ps), ==, 0);
  g_assert_cmpuint (strata_perf_source_get_record_count (ps, PERF_RECORD_COMM), >, 0);

  perf = perf_stats (path);
  if (perf != NULL)
    {
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, perf);
      while (g_hash_table_iter_next (&iter, &key, &value))
        for (guint i = 0; i < G_N_ELEMENTS (record_names); i++)
          if (strcmp (record_names[i].name, key) == 0)
            {
              g_test_message ("%s: %s %" G_GSIZE_FORMAT, name, (char *) key, GPOINTER_TO_SIZE (value));
              g_assert_cmpuint (strata_perf_source_get_record_count (ps, record_names[i].type), ==,
                                GPOINTER_TO_SIZE (value));
            }
    }
  else
    g_test_message ("%s: perf cannot read it", name);

  /* What the files perf 6.1 refuses say of themselves. */
  if (strcmp (name, "perf.data.true.v1") == 0)
    {
      g_assert_cmpstr (info->version, ==, "1");
      g_assert_cmpuint (strata_perf_source_get_record_count (ps, PERF_RECORD_MMAP), >, 10);
    }
  else if (strcmp (name, "cpp-inlining_cpp-inlining.perf.data") == 0)
    {
      /* attr_size 152: an attr of 136 bytes and its ids section. */
      g_assert_cmpstr (info->compression, ==, "zstd");
      g_assert_cmpuint (strata_perf_source_get_record_count (ps, PERF_RECORD_SAMPLE), >, 500);
      g_assert_cmpuint (strata_perf_source_get_record_count (ps, PERF_RECORD_COMPRESSED), >, 0);
    }
  else if (strcmp (name, "perf.data.PerfFormatLost") == 0)
    {
      /* read_format ID|GROUP|LOST samples, each filled exactly (above). */
      g_assert_cmpuint (strata_perf_source_get_record_count (ps, PERF_RECORD_SAMPLE), >, 10);
    }
  else if (strcmp (name, "probe.data.stream") == 0 || strcmp (name, "probe.data.file") == 0)
    {
      /* The uprobe, decoded from the tracing data (v0.5) by its format. */
      guint probes = 0;

      for (guint i = 0; i < events->len; i++)
        if (strcmp (strata_string_pool_get (strata_source_get_strings (source),
                                            g_array_index (events, StrataEvent, i).name), "main") == 0)
          probes++;
      g_assert_cmpuint (probes, ==, 1);
    }
}

/* The same recording in file and in pipe mode gives the same events. */
static void
test_probe_file_equals_stream (void)
{
  g_autofree char *dir = corpus_dir ();
  g_autofree char *file = NULL;
  g_autofree char *stream = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataSource) s1 = NULL;
  g_autoptr(StrataSource) s2 = NULL;
  g_autoptr(GArray) e1 = NULL;
  g_autoptr(GArray) e2 = NULL;

  if (dir == NULL)
    {
      g_test_skip ("no ../shared/corpus/perf");
      return;
    }

  file = g_build_filename (dir, "probe.data.file", NULL);
  stream = g_build_filename (dir, "probe.data.stream", NULL);
  e1 = strata_test_read_events (file, &s1, &error);
  g_assert_no_error (error);
  e2 = strata_test_read_events (stream, &s2, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (strata_source_get_info (s2)->version, ==, "2 (pipe)");
  g_assert_cmpuint (e1->len, ==, e2->len);
  for (guint t = 1; t < PERF_RECORD_HEADER_ATTR; t++)
    g_assert_cmpuint (strata_perf_source_get_record_count (STRATA_PERF_SOURCE (s1), t), ==,
                      strata_perf_source_get_record_count (STRATA_PERF_SOURCE (s2), t));
}

int
main (int   argc,
      char *argv[])
{
  static const char *files[] = {
    "contentsize.data", "cpp-inlining_cpp-inlining.perf.data",
    "fork_static_gcc_perf.data.zstd", "parallel_static_gcc_perf.data.zstd",
    "perf.data.PerfFormatLost", "perf.data.true.v1", "perf.data.true.v2",
    "probe.data.file", "probe.data.stream", "vector_static_gcc_perf.data",
    "vector_static_gcc_perf.data.zstd", "vector_static_gcc_perf.lbr.data",
  };

  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *test = g_strdup_printf ("/strata/perf/corpus/%s", files[i]);
      g_test_add_data_func (test, files[i], test_file);
    }
  g_test_add_func ("/strata/perf/corpus/probe-file-equals-stream", test_probe_file_equals_stream);

  return g_test_run ();
}
