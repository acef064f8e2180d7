/* test-cli.c
 *
 * strata-cli as a user runs it: exit statuses and messages for missing,
 * unknown and damaged files, and --json output that parses and agrees with
 * the library's own numbers for the same trace.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "strata-test-support.h"

static void
test_missing_file (void)
{
  const char *args[] = { "info", "/nonexistent/trace.dat", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "/nonexistent/trace.dat"));
  g_assert_nonnull (strstr (err, "No such file"));
}

static void
test_unknown_format (void)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "not-a-trace.bin", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "stats", path, NULL };
  guint8 garbage[3000];

  for (guint i = 0; i < sizeof garbage; i++)
    garbage[i] = (i * 7919) ^ (i >> 3);
  g_assert_true (g_file_set_contents (path, (char *) garbage, sizeof garbage, NULL));

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, path));
  g_assert_nonnull (strstr (err, "not a trace"));
}

/* A text trace cut in the middle of a line: the output covers the lines
 * before the cut, the damage is reported with its offset, and the exit
 * status says the result is partial. */
static void
test_truncated_text (void)
{
  g_autofree char *src = strata_test_fixture ("sched-small.txt");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "cut.txt", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "info", "--json", path, NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  gsize len;
  JsonObject *root;

  g_assert_true (g_file_get_contents (src, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (path, contents, len / 2, NULL));

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "cut.txt"));
  g_assert_nonnull (strstr (err, "offset"));
  g_assert_nonnull (strstr (err, "warning"));

  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "events"), >, 100);
  g_assert_false (json_object_get_null_member (root, "damage"));
}

static void
test_info_json (void)
{
  g_autofree char *path = strata_test_fixture ("instances.dat");
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "info", "--json", path, NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  JsonObject *root, *by_type;
  const StrataEventCount *counts;
  guint n;

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));

  g_assert_cmpstr (json_object_get_string_member (root, "format"), ==, "trace.dat");
  g_assert_cmpstr (json_object_get_string_member (root, "version"), ==, "7");
  g_assert_cmpstr (json_object_get_string_member (root, "compression"), ==, "zstd");
  g_assert_cmpstr (json_object_get_string_member (root, "clock"), ==, "local");
  g_assert_cmpint (json_object_get_int_member (root, "cpus"), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "instances")), ==, 2);

  trace = strata_test_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_object_get_int_member (root, "events"), ==, strata_trace_get_n_events (trace));
  g_assert_cmpint (json_object_get_int_member (root, "duration_ns"), ==,
                   strata_trace_get_end (trace) - strata_trace_get_start (trace));

  by_type = json_object_get_object_member (root, "events_by_type");
  counts = strata_trace_get_event_counts (trace, &n);
  g_assert_cmpuint (json_object_get_size (by_type), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (json_object_get_int_member (by_type, strata_trace_get_string (trace, counts[i].name)),
                     ==, counts[i].count);
}

static void
test_stats_json (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "stats", "--json", "--top", "5", path, NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataStats) stats = NULL;
  JsonObject *root;
  JsonArray *threads, *cpus;

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));

  trace = strata_test_load (path, &error);
  g_assert_no_error (error);
  stats = strata_stats_compute (trace);

  threads = json_object_get_array_member (root, "threads");
  g_assert_cmpuint (json_array_get_length (threads), ==, MIN (5, stats->threads->len));
  for (guint i = 0; i < json_array_get_length (threads); i++)
    {
      JsonObject *t = json_array_get_object_element (threads, i);
      const StrataThreadStats *ts = &g_array_index (stats->threads, StrataThreadStats, i);

      g_assert_cmpint (json_object_get_int_member (t, "tid"), ==, ts->tid);
      g_assert_cmpint (json_object_get_int_member (t, "running_ns"), ==, ts->running);
      if (i > 0)
        g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (threads, i - 1),
                                                     "running_ns"), >=, ts->running);
    }

  cpus = json_object_get_array_member (root, "cpus");
  g_assert_cmpuint (json_array_get_length (cpus), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *c = json_array_get_object_element (cpus, i);
      g_assert_cmpint (json_object_get_int_member (c, "busy_ns") +
                       json_object_get_int_member (c, "idle_ns") +
                       json_object_get_int_member (c, "unknown_ns"), ==,
                       json_object_get_int_member (root, "span_ns"));
    }

  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (root, "wakeup_latency"),
                                               "count"), ==, stats->wakeup.count);
  g_assert_cmpint (json_object_get_int_member (root, "context_switches"), ==, stats->switches);
}

/* stats --no-index takes its own single pass (statistics and samples
 * from the activity stream, no tree); through a fresh index it reads the
 * numbers the index's build kept and the samples in a second pass. The
 * two must print the same, in JSON and as text. */
static void
test_stats_no_index_agrees (void)
{
  const char *fixtures[] = { "sched-small.dat", "perf-callchain.data.xz", "perf-sched.data.xz" };

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    for (guint json = 0; json < 2; json++)
      {
        g_autofree char *path = strata_test_fixture (fixtures[i]);
        g_autofree char *dir = strata_test_tmpdir ();
        g_autofree char *base = g_strdup_printf ("agree-%u-%u.idx", i, json);
        g_autofree char *index = g_build_filename (dir, base, NULL);
        g_autofree char *out_direct = NULL, *err_direct = NULL;
        g_autofree char *out_index = NULL, *err_index = NULL;
        const char *direct[] = { "stats", json ? "--json" : "--top=5", "--no-index", path, NULL };
        const char *indexed[] = { "stats", json ? "--json" : "--top=5", "--index", index, path, NULL };

        g_assert_cmpint (strata_test_run_cli (direct, &out_direct, &err_direct), ==, 0);
        g_assert_cmpint (strata_test_run_cli (indexed, &out_index, &err_index), ==, 0);
        g_assert_true (g_file_test (index, G_FILE_TEST_EXISTS));
        g_assert_cmpstr (out_direct, ==, out_index);
        g_assert_cmpuint (strlen (out_direct), >, 100);
      }
}

static void
test_stats_human (void)
{
  g_autofree char *path = strata_test_fixture ("sched-tgid.dat");
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "stats", path, NULL };

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "Top threads by time on CPU"));
  g_assert_nonnull (strstr (out, "Wakeup latency"));
  g_assert_nonnull (strstr (out, "sched-pipe"));
  g_assert_cmpstr (err, ==, "");
}

/* `tree --json`: the chunks per level it prints are those of the library's
 * tree for the same file and parameters. */
static void
test_tree_json (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "tree", "--json", "--chunk-pixels", "256", "--density", "64", path, NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  StrataZoomParams params;
  JsonObject *root;
  JsonArray *levels;

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "pixels_per_chunk"), ==, 256);
  g_assert_cmpint (json_object_get_int_member (root, "density_threshold"), ==, 64);

  strata_zoom_params_init (&params);
  params.pixels_per_chunk = 256;
  params.density_threshold = 64;
  trace = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_object_get_int_member (root, "activities"), ==,
                   strata_raw_store_get_size (strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (trace))));

  levels = json_object_get_array_member (root, "levels");
  for (guint level = 0; level < json_array_get_length (levels); level++)
    {
      JsonObject *l = json_array_get_object_element (levels, level);
      g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (strata_trace_get_zoom_tree (trace), level);

      g_assert_cmpint (json_object_get_int_member (l, "chunks"), ==, chunks->len);
    }
  g_assert_cmpuint (json_array_get_length (levels), >, 4);
}

/* `query --level 0` over the whole trace, channel by channel: the items'
 * busy time is each channel's activity time, computed here from the
 * activities, and their member counts are the number of activities. */
static void
test_query_json_conserves (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "query", "--json", "--level", "0", path, NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = strata_test_load (path, &error);
  g_autoptr(GHashTable) busy = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) count = g_hash_table_new (NULL, NULL);
  const StrataActivity *all;
  JsonArray *items;
  gsize n;
  guint n_channels;

  g_assert_no_error (error);
  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  items = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "items");
  g_assert_cmpuint (json_array_get_length (items), >, 100);

  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonObject *it = json_array_get_object_element (items, i);
      gpointer c = GUINT_TO_POINTER ((guint) json_object_get_int_member (it, "channel"));

      g_hash_table_insert (busy, c, GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (busy, c)) +
                                                      json_object_get_int_member (it, "busy")));
      g_hash_table_insert (count, c, GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (count, c)) +
                                                       json_object_get_int_member (it, "count")));
    }

  all = strata_trace_get_activities (trace, &n);
  strata_trace_get_channels (trace, &n_channels);
  for (guint c = 0; c < n_channels; c++)
    {
      gsize want_busy = 0, want_count = 0;

      for (gsize i = 0; i < n; i++)
        if (all[i].channel == c)
          {
            want_busy += all[i].end - all[i].start;
            want_count++;
          }
      g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (busy, GUINT_TO_POINTER (c))), ==, want_busy);
      g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (count, GUINT_TO_POINTER (c))), ==, want_count);
    }
}

static void
test_query_bad_arguments (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  const char *bad_time[] = { "query", "--from", "+3 parsecs", path, NULL };
  const char *bad_channel[] = { "query", "-C", "tid:999999", path, NULL };
  const char *bad_level[] = { "query", "--level", "99", path, NULL };
  const char *two_scales[] = { "query", "--level", "1", "--px", "800", path, NULL };
  const char * const *cases[] = { bad_time, bad_channel, bad_level, two_scales };
  const char *expect[] = { "+3 parsecs", "tid:999999", "levels 0 to", "one of" };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (strata_test_run_cli (cases[i], &out, &err), ==, 1);
      g_assert_nonnull (strstr (err, expect[i]));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/cli/missing-file", test_missing_file);
  g_test_add_func ("/strata/cli/unknown-format", test_unknown_format);
  g_test_add_func ("/strata/cli/truncated-text", test_truncated_text);
  g_test_add_func ("/strata/cli/info-json", test_info_json);
  g_test_add_func ("/strata/cli/stats-json", test_stats_json);
  g_test_add_func ("/strata/cli/stats-human", test_stats_human);
  g_test_add_func ("/strata/cli/stats-no-index-agrees", test_stats_no_index_agrees);
  g_test_add_func ("/strata/cli/tree-json", test_tree_json);
  g_test_add_func ("/strata/cli/query-json-conserves", test_query_json_conserves);
  g_test_add_func ("/strata/cli/query-bad-arguments", test_query_bad_arguments);
  return g_test_run ();
}
