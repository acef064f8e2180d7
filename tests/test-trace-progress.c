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
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

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
} Watch;

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
  g_test_add_func ("/strata/trace/progress/file-position", test_file_position);
  g_test_add_func ("/strata/trace/progress/file-position-corpus", test_file_position_corpus);
  g_test_add_func ("/strata/trace/progress/file-position-uncompressed-dat", test_file_position_uncompressed_dat);
  return g_test_run ();
}
