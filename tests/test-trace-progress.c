/* test-trace-progress.c
 *
 * The loader's progress reports: the report after each batch grows
 * (events, horizon, channels), the zoom tree in it answers queries while
 * it grows and only with activities before the horizon, the finished
 * trace is the same as one loaded without reports, and a report that
 * says stop ends the load early with G_IO_ERROR_CANCELLED. The readers'
 * own "file-position" (how far into the file's bytes they are, what the
 * load reports for compressed data) grows in steps as they read, never
 * passes the file, is past every event they returned where events have
 * file offsets, and is the whole file at the end.
 *
 * Each report says which channels are new and which of the earlier ones
 * changed: every channel that differs from the last report's copy is
 * among those said changed (a copy kept of each report is the oracle),
 * and a table kept from those pieces alone equals the report's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "strata-test-repeat.h"
#include "strata-test-support.h"

typedef struct
{
  guint   calls;
  guint64 last_events;
  gint64  last_horizon;
  guint   last_channels;
  guint   queried;
  guint   stop_after;
  GArray *last;        /* StrataChannel: the last report's, copied whole */
  GArray *kept;        /* StrataChannel: kept from the new and changed ones */
  guint   n_changed;   /* channels that differed from the last report's */
  guint   n_reparented;
  guint   n_renamed;
  guint   n_ended;
} Watch;

/* Each report's changes against a whole copy of the last one. */
static void
check_changes (Watch                     *w,
               const StrataTraceProgress *p)
{
  g_autofree guint8 *said = g_new0 (guint8, p->n_before + 1);

  if (w->last == NULL)
    {
      w->last = g_array_new (FALSE, FALSE, sizeof (StrataChannel));
      w->kept = g_array_new (FALSE, FALSE, sizeof (StrataChannel));
    }
  g_assert_cmpuint (p->n_before, ==, w->last->len);
  g_assert_cmpuint (p->n_before, <=, p->n_channels);
  g_assert_true (p->changed != NULL || p->n_changed == 0);
  for (guint i = 0; i < p->n_changed; i++)
    {
      g_assert_cmpuint (p->changed[i], <, p->n_before);
      said[p->changed[i]] = 1;
    }
  for (guint i = 0; i < p->n_before; i++)
    {
      const StrataChannel *was = &g_array_index (w->last, StrataChannel, i);
      const StrataChannel *now = &p->channels[i];

      if (memcmp (was, now, sizeof *now) == 0)
        continue;
      g_assert_true (said[i]);
      w->n_changed++;
      w->n_reparented += was->parent != now->parent;
      w->n_renamed += was->name != now->name;
      w->n_ended += was->end != now->end;
    }

  /* The table a viewer keeps from the pieces. */
  g_array_append_vals (w->kept, p->channels + p->n_before, p->n_channels - p->n_before);
  for (guint i = 0; i < p->n_changed; i++)
    g_array_index (w->kept, StrataChannel, p->changed[i]) = p->channels[p->changed[i]];
  g_assert_cmpuint (w->kept->len, ==, p->n_channels);
  g_assert_cmpmem (w->kept->data, w->kept->len * sizeof (StrataChannel), p->channels,
                   p->n_channels * sizeof (StrataChannel));

  g_array_set_size (w->last, 0);
  g_array_append_vals (w->last, p->channels, p->n_channels);
}

static void
watch_clear (Watch *w)
{
  g_clear_pointer (&w->last, g_array_unref);
  g_clear_pointer (&w->kept, g_array_unref);
}

static gboolean
watch (const StrataTraceProgress *p,
       gpointer                   data)
{
  Watch *w = data;
  StrataZoomGeometry g;

  w->calls++;
  g_assert_true (STRATA_IS_TRACE (p->trace));
  g_assert_nonnull (p->tree);
  g_assert_cmpuint (p->n_events, >=, w->last_events);
  g_assert_cmpint (p->horizon, >=, w->last_horizon);
  g_assert_cmpuint (p->n_channels, >=, w->last_channels);
  w->last_events = p->n_events;
  w->last_horizon = p->horizon;
  w->last_channels = p->n_channels;
  check_changes (w, p);

  /* The growing tree answers for what is complete. */
  if (p->start != G_MAXINT64 && p->horizon > p->start && strata_zoom_tree_get_geometry (p->tree, &g))
    {
      g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      guint level = strata_zoom_geometry_level_for_viewport (&g, p->horizon - p->start);

      for (guint32 c = 0; c < p->n_channels; c++)
        g_array_append_val (rows, c);
      strata_zoom_tree_query (p->tree, level, p->start, p->horizon,
                              (const guint32 *)(gpointer) rows->data, rows->len, items, NULL);
      if (items->len > 0)
        w->queried++;
    }

  return w->stop_after == 0 || w->calls < w->stop_after;
}

static void
test_reports_grow_and_finish_equal (void)
{
  guint64 n_lines = 0;
  g_autofree char *path = strata_test_repeat_text_trace ("sched-small.txt", 6, &n_lines);
  g_autoptr(StrataTrace) watched = NULL;
  g_autoptr(StrataTrace) plain = NULL;
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;
  Watch w = { 0 };
  guint n1, n2;

  strata_zoom_params_init (&params);
  watched = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, watch, &w, &error);
  g_assert_no_error (error);
  plain = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, NULL, NULL, &error);
  g_assert_no_error (error);

  /* One report per batch of 4096 events. */
  g_assert_cmpuint (strata_trace_get_n_events (plain), ==, n_lines);
  g_assert_cmpuint (w.calls, ==, (n_lines + 4095) / 4096);
  g_assert_cmpuint (w.calls, >=, 3);
  g_assert_cmpuint (w.queried, >=, 2);
  g_assert_cmpuint (w.last_events, ==, n_lines);

  g_assert_cmpuint (strata_trace_get_n_events (watched), ==, strata_trace_get_n_events (plain));
  strata_trace_get_channels (watched, &n1);
  strata_trace_get_channels (plain, &n2);
  g_assert_cmpuint (n1, ==, n2);
  g_assert_cmpuint (n1, >=, w.last_channels);
  {
    gsize a1, a2;

    strata_trace_get_activities (watched, &a1);
    strata_trace_get_activities (plain, &a2);
    g_assert_cmpuint (a1, ==, a2);
  }
  watch_clear (&w);
}

/* Loads @path with progress reports watched by @w: at least @min_calls. */
static void
load_watched (const char *path,
              guint       min_calls,
              Watch      *w)
{
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;

  strata_zoom_params_init (&params);
  trace = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, watch, w, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_cmpuint (w->calls, >=, min_calls);
  g_test_message ("%u changes after a report: %u renamed, %u given a process, %u ended",
                  w->n_changed, w->n_renamed, w->n_reparented, w->n_ended);
}

/* The reports tell threads named at exec, given their process (the
 * tgid column) and ended after an earlier report had them. */
static void
test_reports_tell_changes (void)
{
  guint64 n_lines = 0;
  g_autofree char *path = strata_test_repeat_text_trace ("sched-tgid.txt", 12, &n_lines);
  Watch w = { 0 };

  load_watched (path, 3, &w);
  g_assert_cmpuint (w.n_changed, >, 0);
  watch_clear (&w);
}

/* The same on the benchmarks' churn shape (threads born, exec'd, given
 * their process and ended all along), when the build has the generator
 * and the machine a tracefs for its formats. */
static void
test_reports_tell_changes_churn (void)
{
  const char *gen = g_getenv ("STRATA_GEN_TRACE");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "churn.dat", NULL);
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "ASAN_OPTIONS", "detect_leaks=0", TRUE);
  const char *argv[] = { gen, "--shape", "churn", "--events", "60000", "-o", path, NULL };
  Watch w = { 0 };
  int status = 0;

  if (gen == NULL || !g_file_test (gen, G_FILE_TEST_IS_EXECUTABLE) ||
      (!g_file_test ("/sys/kernel/tracing/events/header_page", G_FILE_TEST_EXISTS) &&
       !g_file_test ("/sys/kernel/debug/tracing/events/header_page", G_FILE_TEST_EXISTS)))
    {
      g_test_skip ("no strata-gen-trace, or no tracefs for its formats");
      return;
    }
  g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("strata-gen-trace failed: %s", err);

  load_watched (path, 10, &w);
  g_assert_cmpuint (w.n_ended, >, 0);
  g_assert_cmpuint (w.n_renamed + w.n_reparented, >, 0);
  watch_clear (&w);
}

static void
test_stop_cancels (void)
{
  guint64 n_lines = 0;
  g_autofree char *path = strata_test_repeat_text_trace ("sched-small.txt", 6, &n_lines);
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;
  Watch w = { .stop_after = 2 };

  strata_zoom_params_init (&params);
  trace = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, watch, &w, &error);
  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (w.calls, ==, 2);
  g_assert_cmpuint (w.last_events, <, n_lines);
  watch_clear (&w);
}

/* Reads @path 16 events at a time, noting the reader's position after
 * each batch; returns how many distinct positions it went through, and
 * the largest step after the first (what the first batch says includes
 * all that was read at open). */
static guint
walk_positions (const char *path,
                gboolean    offsets_are_file,
                guint64    *largest_step)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataSource) source = strata_source_open (path, &error);
  StrataEvent events[16];
  GStatBuf st;
  guint64 last = 0, past = 0;
  guint distinct = 0;
  gssize n;

  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_nonnull (g_object_class_find_property (G_OBJECT_GET_CLASS (source), "file-position"));
  *largest_step = 0;

  while ((n = strata_source_read_batch (source, events, G_N_ELEMENTS (events), &error)) > 0)
    {
      guint64 position = 0;

      g_object_get (source, "file-position", &position, NULL);
      g_assert_cmpuint (position, >, 0);
      g_assert_cmpuint (position, >=, last);
      g_assert_cmpuint (position, <=, (guint64) st.st_size);
      for (gssize i = 0; i < n; i++)
        past = MAX (past, events[i].source_offset);
      if (offsets_are_file)
        g_assert_cmpuint (position, >, past);
      if (position > last)
        distinct++;
      if (last > 0)
        *largest_step = MAX (*largest_step, position - last);
      last = position;
    }
  g_assert_no_error (error);
  g_assert_cmpuint (last, ==, (guint64) st.st_size);
  g_test_message ("%s: %u positions, largest step %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes",
                  path, distinct, *largest_step, (guint64) st.st_size);
  return distinct;
}

static void
test_file_position (void)
{
  /* How many steps each must take at least: a trace.dat goes page by
   * page; perf-zstd.data.xz is two rounds, and perf reads a whole round
   * before it gives its first event, so it is read through at once. */
  const struct { const char *name; gboolean offsets_are_file; guint steps; } fixtures[] = {
    { "sched-small.dat", FALSE, 10 },   /* v7, zstd chunks */
    { "sched-tgid.dat", FALSE, 10 },
    { "perf-zstd.data.xz", FALSE, 1 },  /* COMPRESSED records */
    { "perf-switch.data.xz", TRUE, 1 }, /* plain records */
  };

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f].name);
      guint64 step;
      guint distinct = walk_positions (path, fixtures[f].offsets_are_file, &step);
      GStatBuf st;

      g_assert_cmpint (g_stat (path, &st), ==, 0);
      g_assert_cmpuint (distinct, >=, fixtures[f].steps);
      /* Steady: after what the headers took, no step is a big share. */
      if (fixtures[f].steps > 1)
        g_assert_cmpuint (step, <=, (guint64) st.st_size / 20);
    }
}

/* Compressed perf.data files by others, with more rounds: the position
 * moves record by record. */
static void
test_file_position_corpus (void)
{
  const char *dir = g_getenv ("STRATA_CORPUS_DIR");
  const char *names[] = { "parallel_static_gcc_perf.data.zstd", "fork_static_gcc_perf.data.zstd",
                          "vector_static_gcc_perf.data.zstd" };
  guint distinct = 0;

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no corpus (STRATA_CORPUS_DIR)");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, "perf", names[i], NULL);
      guint64 step;

      distinct += walk_positions (path, FALSE, &step);
    }
  /* fork_static moves in 3 steps, vector_static in 2 (their rounds). */
  g_assert_cmpuint (distinct, >, G_N_ELEMENTS (names));
}

/* An uncompressed trace.dat has file offsets in its events: its reader
 * leaves the measure to them (position 0). */
static void
test_file_position_uncompressed_dat (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small-v7none.dat.xz");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataSource) source = strata_source_open (path, &error);
  StrataEvent events[64];
  guint64 position = 1;

  g_assert_no_error (error);
  g_assert_cmpint (strata_source_read_batch (source, events, G_N_ELEMENTS (events), &error), >, 0);
  g_object_get (source, "file-position", &position, NULL);
  g_assert_cmpuint (position, ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  strata_source_ensure_builtin ();
  g_test_add_func ("/strata/trace/progress/reports-grow-and-finish-equal", test_reports_grow_and_finish_equal);
  g_test_add_func ("/strata/trace/progress/stop-cancels", test_stop_cancels);
  g_test_add_func ("/strata/trace/progress/reports-tell-changes", test_reports_tell_changes);
  g_test_add_func ("/strata/trace/progress/reports-tell-changes-churn", test_reports_tell_changes_churn);
  g_test_add_func ("/strata/trace/progress/file-position", test_file_position);
  g_test_add_func ("/strata/trace/progress/file-position-corpus", test_file_position_corpus);
  g_test_add_func ("/strata/trace/progress/file-position-uncompressed-dat", test_file_position_uncompressed_dat);
  return g_test_run ();
}
