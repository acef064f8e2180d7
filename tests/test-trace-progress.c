/* test-trace-progress.c
 *
 * strata_trace_load_with_progress: the report after each batch grows
 * (events, horizon, channels), the zoom tree in it answers queries while
 * it grows and only with activities before the horizon, the finished
 * trace is the same as one loaded without reports, and a report that
 * says stop ends the load early with G_IO_ERROR_CANCELLED.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

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
  watched = strata_trace_load_with_progress (path, STRATA_TRACE_LOAD_DEFAULT, NULL, NULL, &params,
                                             watch, &w, &error);
  g_assert_no_error (error);
  plain = strata_trace_load_with_tree (path, STRATA_TRACE_LOAD_DEFAULT, NULL, NULL, &params, &error);
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
  trace = strata_trace_load_with_progress (path, STRATA_TRACE_LOAD_DEFAULT, NULL, NULL, &params,
                                           watch, &w, &error);
  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (w.calls, ==, 2);
  g_assert_cmpuint (w.last_events, <, n_lines);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  strata_source_ensure_builtin ();
  g_test_add_func ("/strata/trace/progress/reports-grow-and-finish-equal", test_reports_grow_and_finish_equal);
  g_test_add_func ("/strata/trace/progress/stop-cancels", test_stop_cancels);
  return g_test_run ();
}
