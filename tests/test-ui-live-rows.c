/* test-ui-live-rows.c
 *
 * The timeline following a recording whose threads all have something to
 * show, each a row: what the view and its painters hold in the heap,
 * outside their spilled arrays (each in the heap up to a few MiB, then in
 * its file), must not grow with the rows shown. The view shows its
 * painter's default rows where the painter keeps them, so a showing
 * copies no row; before, the view's base rows and rows and the painter's
 * rows and indents were copies of every row, about 13 bytes a row, made
 * again at each showing. The rows shown are a fresh painter's default
 * rows at every report (the oracle), and a frame is painted at each, the
 * view scrolled to its last rows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-test-support.h"
#include "strata-test-streams.h"
#include "strata-test-ui.h"
#include "strata-trace-private.h"
#include "strata-timeline-view-private.h"

#include "strata-test-heap.h"

#define STEP_NS 1000

/* A recording of @n_processes processes, one after the other, of one to
 * three threads each (pids wrapping, so new rows land in the middle of
 * the order), every thread running at its start: its channels in the
 * order they are made, with when; the trace of them. */
static StrataTrace *
recording_new (guint    n_processes,
               GArray **made_at)
{
  g_autoptr(GArray) acts = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  StrataTraceParts parts = { 0 };
  StrataZoomParams params;
  guint32 name;

  *made_at = g_array_new (FALSE, FALSE, sizeof (gint64));
  parts.info = g_new0 (StrataSourceInfo, 1);
  parts.info->format = g_strdup ("generated");
  parts.info->version = g_strdup ("live-rows");
  parts.info->compression = g_strdup ("none");
  parts.info->clock = g_strdup ("local");
  parts.info->instances = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (parts.info->instances, g_strdup (""));
  parts.info->lost_per_cpu = g_array_new (FALSE, TRUE, sizeof (guint64));
  parts.strings = strata_string_pool_new ();
  name = strata_string_pool_intern (parts.strings, "worker");
  parts.channels = g_array_new (FALSE, TRUE, sizeof (StrataChannel));

  for (guint k = 0; k < n_processes; k++)
    {
      gint64 t = 1000 + (gint64) k * STEP_NS;
      gint32 pid = 300 + (gint32) ((k * 7919u) % 30011u) * 4;
      guint n_threads = 1 + k % 3;
      StrataChannel ch = { 0 };
      guint32 process;

      ch.kind = STRATA_CHANNEL_PROCESS;
      ch.id = pid;
      ch.parent = STRATA_CHANNEL_NONE;
      ch.tgid = -1;
      ch.name = STRATA_STRING_NONE;
      ch.begin = t;
      ch.end = G_MAXINT64;
      g_array_append_val (parts.channels, ch);
      g_array_append_val (*made_at, t);
      process = parts.channels->len - 1;
      for (guint j = 0; j < n_threads; j++)
        {
          StrataActivity a = { 0 };

          ch.kind = STRATA_CHANNEL_THREAD;
          ch.id = pid + (gint32) j;
          ch.parent = process;
          ch.name = name;
          g_array_append_val (parts.channels, ch);
          g_array_append_val (*made_at, t);

          a.start = t + j;
          a.end = t + STEP_NS / 2;
          a.channel = parts.channels->len - 1;
          a.kind = STRATA_ACTIVITY_STATE;
          a.state = STRATA_TASK_STATE_RUNNING;
          g_array_append_val (acts, a);
        }
    }

  strata_zoom_params_init (&params);
  parts.tree = strata_zoom_tree_new (&params, NULL);
  strata_test_stream_build (parts.tree, (const StrataActivity *)(gpointer) acts->data, acts->len);
  parts.switches = g_array_new (FALSE, TRUE, sizeof (guint64));
  g_array_set_size (parts.switches, parts.channels->len);
  parts.event_counts = g_array_new (FALSE, FALSE, sizeof (StrataEventCount));
  parts.n_events = acts->len;
  parts.start = 1000;
  parts.end = 1000 + (gint64) n_processes * STEP_NS;
  return strata_trace_new_from_parts (&parts);
}

static void
assert_rows_as_fresh (StrataTimelineView *view,
                      StrataTrace        *trace)
{
  StrataPainter *fresh = strata_painter_new (strata_trace_get_strings (trace), strata_trace_get_zoom_tree (trace));
  g_autoptr(GArray) want = NULL;
  const StrataChannel *shown;
  const guint32 *rows;
  guint n_shown, n_rows;
  gint64 start, end;

  shown = strata_timeline_view_get_channels (view, &n_shown);
  strata_timeline_view_get_extent (view, &start, &end);
  strata_painter_set_channels (fresh, shown, n_shown);
  strata_painter_set_extent (fresh, start, end);
  want = strata_painter_default_rows (fresh);
  rows = strata_timeline_view_get_rows (view, &n_rows);
  g_assert_cmpmem (rows, n_rows * sizeof (guint32), want->data, want->len * sizeof (guint32));
  strata_painter_free (fresh);
}

static void
test_rows_bounded (void)
{
  g_autoptr(GArray) made_at = NULL;
  g_autoptr(StrataTrace) trace = recording_new (16000, &made_at);
  const StrataChannel *channels;
  GtkWidget *view = g_object_ref_sink (strata_timeline_view_new ());
  GtkAdjustment *vadj = gtk_adjustment_new (0, 0, 1, 1, 1, 1);
  gsize heap_at[2] = { 0, 0 };
  guint n_at[2] = { 0, 0 }, n_made = 0, n_channels, n_reports = 0;
  double per_row;

  gtk_scrollable_set_vadjustment (GTK_SCROLLABLE (view), vadj);
  channels = strata_trace_get_channels (trace, &n_channels);
  for (gint64 t = 1000; ; t += 400 * STEP_NS)
    {
      guint n_fresh = 0, n_rows, at;
      const StrataDisplayList *list;

      while (n_made + n_fresh < n_channels && g_array_index (made_at, gint64, n_made + n_fresh) <= t)
        n_fresh++;
      strata_timeline_view_set_live (STRATA_TIMELINE_VIEW (view), trace, channels + n_made, n_fresh, NULL, 0,
                                     1000, t);
      n_made += n_fresh;
      n_reports++;
      strata_timeline_view_get_rows (STRATA_TIMELINE_VIEW (view), &n_rows);
      if (n_reports % 10 == 1)
        assert_rows_as_fresh (STRATA_TIMELINE_VIEW (view), trace);

      /* A frame at the last rows. */
      gtk_adjustment_set_value (vadj, MAX (0, gtk_adjustment_get_upper (vadj) - 500));
      strata_timeline_view_paint_now (STRATA_TIMELINE_VIEW (view), 1200, 800);
      list = strata_timeline_view_get_display_list (STRATA_TIMELINE_VIEW (view));
      g_assert_cmpuint (list->rows->len, >, 0);

      at = n_at[0] == 0 ? 0 : 1;
      if ((at == 0 && n_rows >= 8000) || (at == 1 && n_rows >= 32000))
        {
          n_at[at] = n_rows;
          heap_at[at] = strata_test_heap_in_use () - strata_timeline_view_get_spilled_heap (STRATA_TIMELINE_VIEW (view));
          if (at == 1)
            break;
        }
      g_assert_cmpuint (n_made, <, n_channels);
    }
  assert_rows_as_fresh (STRATA_TIMELINE_VIEW (view), trace);

  per_row = ((double) heap_at[1] - (double) heap_at[0]) / (n_at[1] - n_at[0]);
  g_test_message ("view's heap outside the spilled arrays: %.2f bytes a row (%u -> %u rows, %u reports)", per_row,
                  n_at[0], n_at[1], n_reports);
  g_assert_cmpfloat (per_row, <, 1.0);

  strata_timeline_view_set_trace (STRATA_TIMELINE_VIEW (view), NULL);
  g_object_unref (view);
}

int
main (int   argc,
      char *argv[])
{
  strata_test_ui_init (&argc, &argv);

  g_test_add_func ("/strata/ui/live-rows/bounded", test_rows_bounded);

  return g_test_run ();
}
