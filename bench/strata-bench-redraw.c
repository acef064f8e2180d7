/* strata-bench-redraw.c
 *
 * What a redraw of the timeline costs when the view has not moved: the
 * hover outline following the pointer, a selection, a marker. The widget
 * keeps its last frame's display list and render nodes and draws them
 * again under what changed; before, every redraw asked the zoom tree and
 * built the nodes anew. On a trace opened through its index, in a window
 * of 1920x1080 (under Xvfb), at six zoom levels (the whole trace, then
 * each a quarter of the last), the CPU time of the widget's snapshot:
 * the first frame of a new view, a redraw after the pointer moved, and
 * that redraw with the kept frame forgotten first (the cost of each
 * redraw before, and of a new view's paint), and the rows scrolled down
 * by three (the view kept in time: the painter draws the rows the last
 * frame drew again, and paints the three new ones). Medians of --frames
 * redraws per level. Then, for a
 * frame painted anew once more, where its time went: the zoom tree's query, the
 * rows' folds of its items into pixel columns, the columns' emission as
 * rectangles, and the rest (rows' backgrounds, text, the ruler, and the
 * render nodes made of the display list); and how many items the query
 * returned, how many blocks it decoded and how many spans it computed
 * from the raw store.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <time.h>

#include <gtk/gtk.h>

#include "strata-bench-snapshot.h"
#include "strata-index.h"
#include "strata-painter-private.h"
#include "strata-timeline-view-private.h"

#define N_LEVELS 6

/* A pointer position over the rows. */
static void
move_pointer (GtkWidget *view,
              GRand     *rand)
{
  int w = gtk_widget_get_width (view), h = gtk_widget_get_height (view);

  strata_timeline_view_handle_motion (STRATA_TIMELINE_VIEW (view), g_rand_double_range (rand, 220, w - 10),
                                      g_rand_double_range (rand, 100, h - 40));
}

int
main (int    argc,
      char **argv)
{
  gint frames = 20, seed = 1;
  GOptionEntry entries[] = {
    { "frames", 'f', 0, G_OPTION_ARG_INT, &frames, "Redraws per zoom level (default 20)", "F" },
    { "seed", 's', 0, G_OPTION_ARG_INT, &seed, "Seed of the views and pointer positions", "SEED" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE - what a redraw of an unmoved timeline costs");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GArray) all_hover = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) all_before = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) all_scrolled = g_array_new (FALSE, FALSE, sizeof (gint64));
  GtkAdjustment *vadjustment;
  g_autoptr(GString) split = g_string_new (NULL);
  GtkWidget *window, *view;
  StrataPainter *painter;
  gint64 start, end;
  GRand *rand;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || frames <= 0)
    {
      g_printerr ("strata-bench-redraw: %s\n", error != NULL ? error->message : "give one trace");
      return 2;
    }
  if (!gtk_init_check ())
    {
      g_printerr ("strata-bench-redraw: no display (run it under xvfb-run)\n");
      return 2;
    }

  {
    g_autoptr(StrataLoader) loader = strata_loader_new (argv[1]);

    trace = strata_loader_load (loader, NULL, &error);
  }
  if (trace == NULL)
    {
      g_printerr ("strata-bench-redraw: %s\n", error->message);
      return 1;
    }
  start = strata_trace_get_start (trace);
  end = strata_trace_get_end (trace);

  window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1920, 1080);
  view = strata_timeline_view_new ();
  gtk_window_set_child (GTK_WINDOW (window), view);
  vadjustment = gtk_adjustment_new (0, 0, 0, 0, 0, 0);
  gtk_scrollable_set_vadjustment (GTK_SCROLLABLE (view), vadjustment);
  strata_timeline_view_set_trace (STRATA_TIMELINE_VIEW (view), trace);
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (view) < 1000 || !gtk_widget_get_mapped (view))
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  painter = strata_timeline_view_get_painter (STRATA_TIMELINE_VIEW (view));

  rand = g_rand_new_with_seed (seed);
  printf ("# strata-bench-redraw %s: %dx%d, %d redraws per level, CPU ms of the widget's snapshot (medians)\n\n",
          argv[1], gtk_widget_get_width (view), gtk_widget_get_height (view), frames);
  printf ("| level | span | new view | redraw, frame kept | redraw, painted anew (before) | before / now | scrolled 3 rows |\n");
  printf ("|---|---|---|---|---|---|---|\n");

  for (guint level = 0; level < N_LEVELS; level++)
    {
      g_autoptr(GArray) t_new = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) t_hover = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) t_before = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) t_scrolled = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) t_query = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) t_fold = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) t_emit = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) t_rest = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) n_items = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) n_decoded = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) n_on_demand = g_array_new (FALSE, FALSE, sizeof (gint64));
      gint64 span = MAX ((end - start) >> (2 * level), 2000);
      double now_ms, before_ms;

      for (int f = -1; f < frames; f++)
        {
          gint64 from = start + (gint64) (g_rand_double (rand) * MAX (end - start - span, 0));
          const StrataDisplayList *list;
          gint64 dn, dh, db, dq, df, de, dr, ds, ni, nd, no;

          strata_timeline_view_set_range (STRATA_TIMELINE_VIEW (view), from, from + span);
          dn = strata_bench_snapshot_ns (view);
          move_pointer (view, rand);
          dh = strata_bench_snapshot_ns (view);
          strata_timeline_view_forget_frame (STRATA_TIMELINE_VIEW (view));
          move_pointer (view, rand);
          db = strata_bench_snapshot_ns (view);
          /* The split from a frame of its own, painted anew once more with
           * the painter's clocks on: their readings are system calls, a
           * few per row, which the frames above must not pay. The pointer
           * stays, so the views are those of the benchmark without it. */
          strata_painter_set_timed (painter, TRUE);
          strata_timeline_view_forget_frame (STRATA_TIMELINE_VIEW (view));
          dr = strata_bench_snapshot_ns (view);
          strata_painter_set_timed (painter, FALSE);
          dq = strata_painter_get_query_ns (painter);
          strata_painter_get_times (painter, &df, &de);
          dr -= dq + df + de;
          list = strata_timeline_view_get_display_list (STRATA_TIMELINE_VIEW (view));
          ni = list->n_items;
          nd = list->stats.n_decoded;
          no = list->stats.n_on_demand;
          /* Three rows further down, then back up (not timed), so the
           * next view starts at the top as before. */
          gtk_adjustment_set_value (vadjustment, 3 * strata_painter_get_style (painter)->row_height);
          ds = strata_bench_snapshot_ns (view);
          gtk_adjustment_set_value (vadjustment, 0);
          strata_bench_snapshot_ns (view);
          if (f < 0)
            continue;   /* the first one warms the caches */
          g_array_append_val (t_new, dn);
          g_array_append_val (t_hover, dh);
          g_array_append_val (t_before, db);
          g_array_append_val (all_hover, dh);
          g_array_append_val (all_before, db);
          g_array_append_val (t_scrolled, ds);
          g_array_append_val (all_scrolled, ds);
          g_array_append_val (t_query, dq);
          g_array_append_val (t_fold, df);
          g_array_append_val (t_emit, de);
          g_array_append_val (t_rest, dr);
          g_array_append_val (n_items, ni);
          g_array_append_val (n_decoded, nd);
          g_array_append_val (n_on_demand, no);
        }
      now_ms = median_ms (t_hover);
      before_ms = median_ms (t_before);
      printf ("| %u | %.3f ms | %.3f | %.3f | %.3f | %.0fx | %.3f |\n", level, span / 1e6, median_ms (t_new), now_ms,
              before_ms, now_ms > 0 ? before_ms / now_ms : 0, median_ms (t_scrolled));
      g_string_append_printf (split, "| %u | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f | %.0f | %.0f |\n", level,
                              before_ms, median_ms (t_query), median_ms (t_fold), median_ms (t_emit),
                              median_ms (t_rest), median_ms (n_items) * 1e6, median_ms (n_decoded) * 1e6,
                              median_ms (n_on_demand) * 1e6);
    }
  printf ("\nall levels: redraw with the frame kept %.3f ms, painted anew %.3f ms, scrolled 3 rows %.3f ms\n",
          median_ms (all_hover), median_ms (all_before), median_ms (all_scrolled));
  printf ("\nPainted anew, where the time went (CPU ms, medians of each part on its own, from a frame\n"
          "timed apart: frame is the untimed one's):\n\n");
  printf ("| level | frame | query | fold | emit | rest | items | blocks decoded | spans on demand |\n");
  printf ("|---|---|---|---|---|---|---|---|---|\n%s", split->str);

  g_rand_free (rand);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
