/* test-ui-analysis.c
 *
 * The answers in the application, on real recordings, under Xvfb:
 *  - the wakeup arrow: selecting B's run (the critical-path workload's)
 *    draws one arrow, from C (its waker) to B's switch-in, in the arrow's
 *    colour where the two rows are, and the tooltip of B's woken state
 *    names C; on demand, the view's wakeups are drawn, as many as the raw
 *    store has for the rows on screen;
 *  - the critical path panel: for A's row over A's life, the same
 *    segments as the library's, A -> C -> B -> A, listed, and drawn over
 *    A's row;
 *  - the flame graph: on perf.data samples, its root counts the samples
 *    the library finds in the view; a zoom, a search and a tooltip say
 *    what the graph says; its frames are drawn;
 *  - the histograms: for a selected range, the library's buckets and
 *    percentiles, bars drawn;
 *  - export from the window: the range's chrome-json parses, the view
 *    saved as PNG has the timeline's size, as SVG is an SVG.
 * Each part saves a screenshot (data/screenshots when STRATA_UI_SCREENSHOTS
 * names that folder).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "strata-analysis-pane.h"
#include "strata-item-info.h"
#include "strata-test-support.h"
#include "strata-test-ui.h"
#include "strata-window-export.h"

static StrataWindow *window;
static StrataTimelineView *view;
static StrataAnalysisPane *pane;

typedef struct
{
  gint64 a_tid, b_tid, c_tid, start, a_end, b_woke, c_write;
} Notes;

static void
read_notes (Notes *n)
{
  g_autofree char *path = strata_test_fixture ("critical-path-ftrace.log");
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (lines[i], " ", 2);
      gint64 v;

      if (kv[0] == NULL || kv[1] == NULL)
        continue;
      v = g_ascii_strtoll (kv[1], NULL, 10);
      if (strcmp (kv[0], "a_tid") == 0) n->a_tid = v;
      if (strcmp (kv[0], "b_tid") == 0) n->b_tid = v;
      if (strcmp (kv[0], "c_tid") == 0) n->c_tid = v;
      if (strcmp (kv[0], "start") == 0) n->start = v;
      if (strcmp (kv[0], "a_end") == 0) n->a_end = v;
      if (strcmp (kv[0], "b_woke") == 0) n->b_woke = v;
      if (strcmp (kv[0], "c_write") == 0) n->c_write = v;
    }
  g_assert_cmpint (n->a_end, >, n->start);
}

static guint32
thread_of (gint32 tid)
{
  g_autoptr(StrataThreadMap) threads = strata_thread_map_new (strata_timeline_view_get_trace (view));
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  guint32 ch = strata_thread_map_find (threads, tid, strata_trace_get_start (trace), strata_trace_get_end (trace));

  g_assert_cmpuint (ch, !=, STRATA_CHANNEL_NONE);
  return ch;
}

static StrataZoomItem
item_of (const StrataActivity *a)
{
  StrataZoomItem item = {
    .start = a->start, .end = a->end, .channel = a->channel, .label = a->label, .arg = a->arg,
    .kind = a->kind, .state = a->state, .flags = a->flags, .count = 1, .busy = a->end - a->start,
  };
  return item;
}

/* @widget rendered once its window has drawn it: a widget's paintable
 * shows what the last frame drew, and after a resize (rows pinned, the
 * pane shown) there is none until the next frame, which a loaded
 * machine can take a while to give. */
static GdkTexture *
render (GtkWidget *widget)
{
  /* No time limit here: meson's timeout ends a test that never draws. */
  for (;;)
    {
      g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
      GtkSnapshot *snapshot = gtk_snapshot_new ();
      GskRenderNode *node;

      gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (widget), gtk_widget_get_height (widget));
      node = gtk_snapshot_free_to_node (snapshot);
      if (node != NULL)
        {
          gsk_render_node_unref (node);
          break;
        }
      gtk_widget_queue_draw (widget);
      g_main_context_iteration (NULL, TRUE);
    }
  return strata_test_ui_render (widget);
}

static void
save_screenshot (const char *name)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *png = NULL;

  strata_test_ui_settle ();
  texture = render (GTK_WIDGET (window));
  png = strata_test_ui_save_png (texture, name);
  g_test_message ("screenshot %s", png);
}

static void
show_pane (const char *page)
{
  if (!gtk_widget_get_visible (GTK_WIDGET (pane)))
    gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-analysis", NULL);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (pane)));
  strata_analysis_pane_show_page (pane, page);
  strata_test_ui_settle ();
  strata_analysis_pane_update_now (pane);
  strata_test_ui_settle ();
}

/* How many pixels of the timeline near the segment (x0,y0)-(x1,y1) have
 * the colour. */
static guint
pixels_near_line (const StrataTestPixels *px,
                  double x0, double y0, double x1, double y1,
                  guint32 rgb)
{
  guint hits = 0;

  for (int k = 4; k <= 16; k++)
    {
      double x = x0 + (x1 - x0) * k / 20.0, y = y0 + (y1 - y0) * k / 20.0;

      for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
          if (strata_test_ui_color_near (strata_test_ui_pixel (px, (int) x + dx, (int) y + dy) & 0xffffff00u,
                                         rgb, 60))
            {
              hits++;
              dx = dy = 2;
            }
    }
  return hits;
}

static void
test_wakeup_arrow (void)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(StrataTestPixels) px = NULL;
  g_autoptr(StrataItemInfo) info = NULL;
  StrataActivity woken = { 0 }, run = { 0 };
  const StrataWakeup *w;
  guint32 b, c;
  StrataZoomItem item;
  Notes n = { 0 };
  double rh, x0, x1, y0, y1;

  read_notes (&n);
  b = thread_of (n.b_tid);
  c = thread_of (n.c_tid);

  /* B's woken state when C wrote, and the run after it. */
  strata_trace_query_channel (trace, b, n.c_write, n.b_woke, found);
  for (guint i = 0; i < found->len; i++)
    {
      const StrataActivity *a = &g_array_index (found, StrataActivity, i);

      if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_WOKEN)
        woken = *a;
      if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_RUNNING && woken.end != 0 &&
          a->start == woken.end)
        run = *a;
    }
  g_assert_cmpint (woken.end, >, 0);
  g_assert_cmpint (run.end, >, 0);

  strata_timeline_view_set_row_pinned (view, c, TRUE);
  strata_timeline_view_set_row_pinned (view, b, TRUE);
  strata_timeline_view_set_range (view, woken.start - 20000, run.start + 40000);
  item = item_of (&run);
  strata_timeline_view_select_item (view, &item);
  show_pane ("latency");
  save_screenshot ("wakeup-arrow");

  w = strata_wakeup_arrows_get_selected (strata_analysis_pane_get_arrows (pane));
  g_assert_nonnull (w);
  g_assert_cmpint (w->waker_tid, ==, n.c_tid);
  g_assert_cmpuint (w->waker, ==, c);
  g_assert_cmpint (w->woken_at, ==, woken.start);
  g_assert_cmpint (w->running_at, ==, run.start);

  texture = render (GTK_WIDGET (view));
  px = strata_test_ui_pixels (texture);
  g_assert_cmpuint (strata_analysis_pane_get_n_arrows (pane), ==, 1);
  rh = strata_timeline_view_get_row_height (view);
  x0 = strata_timeline_view_x_for_time (view, w->woken_at);
  x1 = strata_timeline_view_x_for_time (view, w->running_at);
  y0 = strata_timeline_view_y_for_row (view, c) + rh / 2;
  y1 = strata_timeline_view_y_for_row (view, b) + rh / 2;
  g_assert_cmpfloat (y0, >=, 0);
  g_assert_cmpfloat (y1, >=, 0);
  /* The selected arrow's orange (0.9, 0.38, 0) along the line. */
  g_assert_cmpuint (pixels_near_line (px, x0, y0, x1, y1, 0xe66100u << 8), >=, 8);

  /* The tooltip of B's woken state names C. */
  item = item_of (&woken);
  info = strata_item_info_new_for_item (trace, &item);
  {
    g_autofree char *want = g_strdup_printf ("%s %" G_GINT64_FORMAT,
                                             strata_channel_display_name (trace, c), n.c_tid);

    g_assert_cmpstr (strata_item_info_get (info, "Woken by"), ==, want);
  }

  /* On demand: every wakeup of the threads on screen in the view. */
  strata_timeline_view_clear_selection (view);
  strata_analysis_pane_set_show_wakeups (pane, TRUE);
  strata_test_ui_settle ();
  {
    g_autoptr(GdkTexture) t2 = render (GTK_WIDGET (view));
    g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (StrataWakeup));
    g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autoptr(StrataThreadMap) threads = strata_thread_map_new (trace);
    const StrataChannel *channels;
    const guint32 *shown;
    guint n_shown, n_ch, expected = 0;
    gint64 from, to;

    g_assert_nonnull (t2);   /* drawn, so the arrows' rows are the view's */
    channels = strata_trace_get_channels (trace, &n_ch);
    shown = strata_timeline_view_get_rows (view, &n_shown);
    for (guint i = 0; i < n_shown; i++)
      if (channels[shown[i]].kind == STRATA_CHANNEL_THREAD && strata_timeline_view_y_for_row (view, shown[i]) >= 0)
        g_array_append_val (rows, shown[i]);
    strata_timeline_view_get_range (view, &from, &to);
    strata_wakeups_in_range (trace, threads, (guint32 *) (gpointer) rows->data, rows->len, from, to, want);
    for (guint i = 0; i < want->len; i++)
      {
        const StrataWakeup *x = &g_array_index (want, StrataWakeup, i);
        gboolean from_thread = x->waker != STRATA_CHANNEL_NONE && !strata_wakeup_is_interrupt (x) &&
                               strata_timeline_view_y_for_row (view, x->waker) >= 0;
        gboolean from_cpu = x->cpu_channel != STRATA_CHANNEL_NONE &&
                            strata_timeline_view_y_for_row (view, x->cpu_channel) >= 0;

        if (x->running_at != G_MAXINT64 && (from_thread || from_cpu))
          expected++;
      }
    g_assert_cmpuint (expected, >, 0);
    g_assert_cmpuint (strata_analysis_pane_get_n_arrows (pane), ==, MIN (expected, STRATA_WAKEUP_ARROWS_MAX));
  }
  strata_analysis_pane_set_show_wakeups (pane, FALSE);
}

static void
test_critical_path_panel (void)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  StrataCriticalPathPanel *panel = strata_analysis_pane_get_path_panel (pane);
  g_autoptr(GArray) want = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(StrataTestPixels) px = NULL;
  const GArray *got;
  Notes n = { 0 };
  guint32 a;
  double x, y;

  read_notes (&n);
  a = thread_of (n.a_tid);
  strata_timeline_view_set_range (view, n.start, n.a_end);
  strata_timeline_view_select_row (view, a);
  show_pane ("path");

  want = strata_critical_path_compute (trace, a, n.start, n.a_end, NULL);
  got = strata_critical_path_panel_get_segments (panel);
  g_assert_nonnull (got);
  g_assert_cmpuint (got->len, ==, want->len);
  /* Field by field: the struct's tail padding is not part of its value. */
  for (guint i = 0; i < got->len; i++)
    {
      const StrataPathSegment *g = &g_array_index (got, StrataPathSegment, i);
      const StrataPathSegment *w = &g_array_index (want, StrataPathSegment, i);

      g_assert_cmpint (g->start, ==, w->start);
      g_assert_cmpint (g->end, ==, w->end);
      g_assert_cmpuint (g->channel, ==, w->channel);
      g_assert_cmpint (g->tid, ==, w->tid);
      g_assert_cmpuint (g->state, ==, w->state);
      g_assert_cmpuint (g->wait, ==, w->wait);
      g_assert_cmpuint (g->depth, ==, w->depth);
      g_assert_cmpint (g->cpu, ==, w->cpu);
      g_assert_cmpint (g->woken_by, ==, w->woken_by);
    }
  g_assert_cmpuint (strata_critical_path_panel_get_n_rows (panel), ==, MIN (want->len, 1000));
  g_assert_cmpint (g_array_index (got, StrataPathSegment, 0).tid, ==, n.a_tid);
  g_assert_cmpint (g_array_index (got, StrataPathSegment, got->len - 1).tid, ==, n.a_tid);

  /* Drawn: the path's green edge under A's row near the range's start. */
  texture = render (GTK_WIDGET (view));
  px = strata_test_ui_pixels (texture);
  x = strata_timeline_view_x_for_time (view, n.start + (g_array_index (got, StrataPathSegment, 0).end - n.start) / 2);
  y = strata_timeline_view_y_for_row (view, a) + strata_timeline_view_get_row_height (view) - 2;
  g_assert_true (strata_test_ui_color_near (strata_test_ui_pixel (px, (int) x, (int) y) & 0xffffff00u,
                                            0x26a269u << 8, 40));
  save_screenshot ("critical-path");
}

static void
test_histograms (void)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GdkTexture) texture = NULL;
  StrataHistogram want[STRATA_N_HISTOGRAMS];
  const StrataChannel *channels;
  StrataSelection range = { 0 };
  gint64 start = strata_trace_get_start (trace), end = strata_trace_get_end (trace);
  guint n;

  strata_timeline_view_fit (view);
  strata_timeline_view_clear_selection (view);
  /* A range on the ruler, as a drag there makes it. */
  strata_timeline_view_set_range (view, start, end);
  strata_test_ui_settle ();
  range.from = start + (end - start) / 4;
  range.to = end - (end - start) / 4;
  {
    double top = STRATA_TIMELINE_OVERVIEW_HEIGHT + 8;

    strata_timeline_view_handle_drag_begin (view, strata_timeline_view_x_for_time (view, range.from), top);
    strata_timeline_view_handle_drag_update (view, strata_timeline_view_x_for_time (view, range.to) -
                                                   strata_timeline_view_x_for_time (view, range.from), 0);
    strata_timeline_view_handle_drag_end (view, strata_timeline_view_x_for_time (view, range.to) -
                                                strata_timeline_view_x_for_time (view, range.from), 0);
  }
  g_assert_cmpint (strata_timeline_view_get_selection (view)->kind, ==, STRATA_SELECTION_RANGE);
  range = *strata_timeline_view_get_selection (view);
  show_pane ("latency");

  channels = strata_trace_get_channels (trace, &n);
  for (guint32 i = 0; i < n; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD)
      g_array_append_val (rows, i);
  strata_histograms_compute (trace, (guint32 *) (gpointer) rows->data, rows->len, range.from, range.to, want);
  for (guint k = 0; k < STRATA_N_HISTOGRAMS; k++)
    {
      StrataHistogramView *hv = strata_analysis_pane_get_histogram (pane, k);
      const StrataHistogram *got = strata_histogram_view_get_histogram (hv);
      g_autoptr(StrataTestPixels) px = NULL;
      g_autoptr(GdkTexture) t = NULL;
      guint b = strata_histogram_bucket_of (want[k].p50);
      double x;
      int h;
      gboolean blue = FALSE;

      g_assert_cmpuint (want[k].count, >, 0);
      g_assert_cmpmem (got, sizeof *got, &want[k], sizeof want[k]);

      /* The p50's bucket has a bar: blue in its column above the axis. */
      t = render (GTK_WIDGET (hv));
      px = strata_test_ui_pixels (t);
      h = gtk_widget_get_height (GTK_WIDGET (hv));
      x = strata_histogram_view_x_for_value (hv, strata_histogram_bucket_start (b)) + 3;
      if (b == 0)
        x += 1;
      for (int y = 20; y < h - 20 && !blue; y++)
        blue = strata_test_ui_color_near (strata_test_ui_pixel (px, (int) x, y) & 0xffffff00u, 0x3584e4u << 8, 40);
      g_assert_true (blue);
    }
  save_screenshot ("latency-histograms");
  texture = NULL;
}

static void
test_export (void)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *json = g_build_filename (dir, "ui-export.json", NULL);
  g_autofree char *png = g_build_filename (dir, "ui-view.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "ui-view.svg", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GdkTexture) image = NULL;
  g_autofree char *svg_text = NULL;

  g_assert_true (strata_timeline_export (view, STRATA_EXPORT_CHROME_JSON, json, &error));
  g_assert_no_error (error);
  json_parser_load_from_file (parser, json, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      json_node_get_object (json_parser_get_root (parser)), "traceEvents")), >, 10);

  g_assert_true (strata_timeline_save_image (view, png, FALSE, &error));
  g_assert_no_error (error);
  image = gdk_texture_new_from_filename (png, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (image), ==, gtk_widget_get_width (GTK_WIDGET (view)));
  g_assert_cmpint (gdk_texture_get_height (image), ==, gtk_widget_get_height (GTK_WIDGET (view)));

  g_assert_true (strata_timeline_save_image (view, svg, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  g_assert_nonnull (strstr (svg_text, "<svg"));
}

static void
test_flame_graph (void)
{
  StrataWindow *perf_window = strata_test_ui_open_window ("perf-callchain.data.xz", 1400, 860);
  StrataTimelineView *perf_view = strata_window_get_timeline (perf_window);
  StrataAnalysisPane *perf_pane = STRATA_ANALYSIS_PANE (strata_window_get_analysis_pane (perf_window));
  StrataFlameGraphView *fv = strata_analysis_pane_get_flame_view (perf_pane);
  g_autofree char *path = strata_test_fixture ("perf-callchain.data.xz");
  g_autoptr(StrataSampleSet) samples = strata_sample_set_load (path, NULL, NULL);
  g_autoptr(StrataFlameGraph) want = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(StrataTestPixels) px = NULL;
  g_autofree char *text = NULL;
  const StrataFlameNode *nodes, *want_nodes;
  StrataFlameFilter filter;
  StrataFlameGraph *graph;
  guint n, n_want;
  guint32 top;
  graphene_rect_t r;

  gtk_widget_activate_action (GTK_WIDGET (perf_window), "win.toggle-analysis", NULL);
  strata_analysis_pane_show_page (perf_pane, "flame");
  strata_analysis_pane_update_now (perf_pane);
  while (strata_analysis_pane_is_loading (perf_pane))
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (strata_analysis_pane_is_loading (perf_pane));
  strata_test_ui_settle ();

  graph = strata_flame_graph_view_get_graph (fv);
  g_assert_nonnull (graph);
  nodes = strata_flame_graph_get_nodes (graph, &n);
  strata_flame_filter_init (&filter);
  strata_timeline_view_get_range (perf_view, &filter.from, &filter.to);
  want = strata_flame_graph_new (samples, &filter);
  want_nodes = strata_flame_graph_get_nodes (want, &n_want);
  g_assert_cmpuint (nodes[0].total, ==, want_nodes[0].total);
  g_assert_cmpuint (nodes[0].total, >, 100);
  g_assert_cmpuint (n, ==, n_want);

  /* A click zooms into the busiest thread's frame; Escape (zoom_to 0)
   * comes back. */
  top = nodes[0].first_child;
  g_assert_true (strata_flame_graph_view_get_node_area (fv, top, &r));
  g_assert_cmpuint (strata_flame_graph_view_node_at (fv, r.origin.x + r.size.width / 2, r.origin.y + 4), ==, top);
  strata_flame_graph_view_zoom_to (fv, top);
  g_assert_cmpuint (strata_flame_graph_view_get_zoom (fv), ==, top);
  g_assert_true (strata_flame_graph_view_get_node_area (fv, top, &r));
  g_assert_cmpfloat (r.size.width, >=, gtk_widget_get_width (GTK_WIDGET (fv)) - 1);
  strata_flame_graph_view_zoom_to (fv, 0);

  text = strata_flame_graph_view_describe (fv, top);
  {
    g_autofree char *total = g_strdup_printf ("Total: %" G_GUINT64_FORMAT " samples", nodes[top].total);

    g_assert_nonnull (strstr (text, total));
  }

  /* Search: the frames of the busiest thread match their own name. */
  strata_flame_graph_view_set_search (fv, nodes[top].name);
  g_assert_cmpuint (strata_flame_graph_view_get_matched (fv), >=, nodes[top].total);
  strata_flame_graph_view_set_search (fv, NULL);

  /* Drawn (the window's pixels: the graph is taller than its pane). */
  strata_test_ui_settle ();
  texture = render (GTK_WIDGET (perf_window));
  px = strata_test_ui_pixels (texture);
  {
    double wx, wy;
    guint32 p;

    g_assert_true (gtk_widget_translate_coordinates (GTK_WIDGET (fv), GTK_WIDGET (perf_window),
                                                     r.origin.x + r.size.width / 2, r.origin.y + 2, &wx, &wy));
    p = strata_test_ui_pixel (px, (int) wx, (int) wy);
    /* A warm frame colour: red high, blue low. */
    g_assert_cmpuint ((p >> 24) & 0xff, >=, 200);
    g_assert_cmpuint ((p >> 8) & 0xff, <=, 100);
  }

  strata_test_ui_settle ();
  {
    g_autoptr(GdkTexture) shot = render (GTK_WIDGET (perf_window));
    g_autofree char *png = strata_test_ui_save_png (shot, "flame-graph");

    g_test_message ("screenshot %s", png);
  }
  gtk_window_destroy (GTK_WINDOW (perf_window));
  strata_test_ui_settle ();
}

int
main (int    argc,
      char **argv)
{
  int status;

  strata_test_ui_init (&argc, &argv);
  window = strata_test_ui_open_window ("critical-path.dat.xz", 1400, 860);
  view = strata_window_get_timeline (window);
  pane = STRATA_ANALYSIS_PANE (strata_window_get_analysis_pane (window));

  g_test_add_func ("/strata/ui/analysis/wakeup-arrow", test_wakeup_arrow);
  g_test_add_func ("/strata/ui/analysis/critical-path-panel", test_critical_path_panel);
  g_test_add_func ("/strata/ui/analysis/histograms", test_histograms);
  g_test_add_func ("/strata/ui/analysis/export", test_export);
  g_test_add_func ("/strata/ui/analysis/flame-graph", test_flame_graph);

  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
