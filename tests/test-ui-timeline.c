/* test-ui-timeline.c
 *
 * The timeline widget in a real window on a real recording: input handlers
 * (the functions the widget's scroll, drag, click and key controllers call,
 * given synthesized deltas, modifiers and keys) move the visible range as
 * the navigation rules say, and the widget's rendering, read back from a
 * texture, has at its pixels the colours that an independent painter paints
 * for the same viewport, and the raw activities where they are.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "strata-painter-private.h"
#include "strata-test-repeat.h"
#include "strata-test-support.h"
#include "strata-test-ui.h"

static StrataWindow *window;
static StrataTimelineView *view;

static double
npp (void)
{
  gint64 from, to;
  const StrataPaintStyle *style = strata_painter_get_style (strata_timeline_view_get_painter (view));

  strata_timeline_view_get_range (view, &from, &to);
  return (double) (to - from) / (gtk_widget_get_width (GTK_WIDGET (view)) - style->name_width);
}

static gint64
time_at (double x)
{
  gint64 from;
  const StrataPaintStyle *style = strata_painter_get_style (strata_timeline_view_get_painter (view));

  strata_timeline_view_get_range (view, &from, NULL);
  return from + (gint64) llround ((x - style->name_width) * npp ());
}

static double
rows_y (void)
{
  const StrataPaintStyle *style = strata_painter_get_style (strata_timeline_view_get_painter (view));

  return STRATA_TIMELINE_OVERVIEW_HEIGHT + style->ruler_height + 2.5 * style->row_height;
}

static void
zoom_in_middle (void)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  gint64 s = strata_trace_get_start (trace), e = strata_trace_get_end (trace);

  strata_timeline_view_set_range (view, s + (e - s) / 4, s + (e - s) / 2);
}

static void
test_opens_fixture (void)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  g_autoptr(StrataPainter) painter = NULL;
  g_autoptr(GArray) rows = NULL;
  gint64 from, to;
  guint n_rows;

  g_assert_nonnull (trace);
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (from, ==, strata_trace_get_start (trace));
  g_assert_cmpint (to, ==, strata_trace_get_end (trace));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "sched-small.dat");

  /* CPUs, then processes and threads: the painter's default rows. */
  painter = strata_painter_new_for_trace (trace);
  rows = strata_painter_default_rows (painter);
  strata_timeline_view_get_rows (view, &n_rows);
  g_assert_cmpuint (n_rows, ==, rows->len);
  g_assert_cmpuint (n_rows, >, 20);
}

static void
test_ctrl_scroll_zooms_around_pointer (void)
{
  double x = 500, y = rows_y ();
  gint64 before_from, before_to, from, to, t_before;
  double span_ratio;

  strata_timeline_view_fit (view);
  strata_timeline_view_get_range (view, &before_from, &before_to);
  t_before = time_at (x);

  /* One wheel click up with Ctrl: the span shrinks by the wheel step and
   * the time under the pointer stays there. */
  g_assert_true (strata_timeline_view_handle_scroll (view, x, y, 0, -1, GDK_CONTROL_MASK, TRUE));
  strata_timeline_view_get_range (view, &from, &to);
  span_ratio = (double) (to - from) / (before_to - before_from);
  g_assert_cmpfloat_with_epsilon (span_ratio, 1 / 1.25, 1e-3);
  g_assert_cmpint (ABS (time_at (x) - t_before), <=, (gint64) ceil (2 * npp ()));

  /* A touchpad's pixels: 40 px up zooms in by e^-0.4. */
  strata_timeline_view_get_range (view, &before_from, &before_to);
  g_assert_true (strata_timeline_view_handle_scroll (view, x, y, 0, -40, GDK_CONTROL_MASK, FALSE));
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpfloat_with_epsilon ((double) (to - from) / (before_to - before_from), exp (-0.4), 1e-3);
  g_assert_cmpint (ABS (time_at (x) - t_before), <=, (gint64) ceil (2 * npp ()));

  /* And back out: the wheel down twice. */
  g_assert_true (strata_timeline_view_handle_scroll (view, x, y, 0, 1, GDK_CONTROL_MASK, TRUE));
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (ABS (time_at (x) - t_before), <=, (gint64) ceil (2 * npp ()));
}

static void
test_scroll_pans_and_moves_rows (void)
{
  GtkAdjustment *vadj = NULL;
  gint64 from0, to0, from, to;
  double per_px, v0;

  zoom_in_middle ();
  strata_timeline_view_get_range (view, &from0, &to0);
  per_px = npp ();

  /* A horizontal wheel click pans 60 pixels right; Shift+wheel up 60 left. */
  strata_timeline_view_handle_scroll (view, 500, rows_y (), 1, 0, 0, TRUE);
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (ABS ((from - from0) - (gint64) llround (60 * per_px)), <=, 1);
  g_assert_cmpint (to - from, ==, to0 - from0);

  strata_timeline_view_handle_scroll (view, 500, rows_y (), 0, -1, GDK_SHIFT_MASK, TRUE);
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (ABS (from - from0), <=, 2);

  /* A vertical wheel click moves the rows three rows down. */
  g_object_get (view, "vadjustment", &vadj, NULL);
  gtk_adjustment_set_value (vadj, 0);
  v0 = gtk_adjustment_get_value (vadj);
  strata_timeline_view_handle_scroll (view, 500, rows_y (), 0, 1, 0, TRUE);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj) - v0, ==,
                     3 * strata_painter_get_style (strata_timeline_view_get_painter (view))->row_height);
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (ABS (from - from0), <=, 2);
  gtk_adjustment_set_value (vadj, 0);
  g_object_unref (vadj);
}

static void
test_drag_pans (void)
{
  gint64 from0, to0, from, to;
  double per_px;

  zoom_in_middle ();
  strata_timeline_view_get_range (view, &from0, &to0);
  per_px = npp ();

  /* Dragging the rows 100 pixels left shows what was to the right. */
  strata_timeline_view_handle_drag_begin (view, 700, rows_y ());
  strata_timeline_view_handle_drag_update (view, -100, 0);
  strata_timeline_view_handle_drag_end (view, -100, 0);
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (ABS ((from - from0) - (gint64) llround (100 * per_px)), <=, 1);
  g_assert_cmpint (to - from, ==, to0 - from0);

  /* Back is where the drag began. */
  g_assert_true (strata_timeline_view_go_back (view));
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (from, ==, from0);
  g_assert_cmpint (to, ==, to0);
  g_assert_true (strata_timeline_view_go_forward (view));
  strata_timeline_view_get_range (view, &from, NULL);
  g_assert_cmpint (ABS ((from - from0) - (gint64) llround (100 * per_px)), <=, 1);
}

static void
test_drag_on_ruler_selects_range (void)
{
  const StrataPaintStyle *style = strata_painter_get_style (strata_timeline_view_get_painter (view));
  double ruler_y = STRATA_TIMELINE_OVERVIEW_HEIGHT + style->ruler_height / 2.0;
  const StrataSelection *sel;
  gint64 from0, to0, from, to, t0, t1;

  strata_timeline_view_fit (view);
  strata_timeline_view_get_range (view, &from0, &to0);
  t0 = time_at (400);
  t1 = time_at (650);

  strata_timeline_view_handle_drag_begin (view, 400, ruler_y);
  strata_timeline_view_handle_drag_update (view, 120, 0);
  strata_timeline_view_handle_drag_end (view, 250, 0);

  sel = strata_timeline_view_get_selection (view);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_RANGE);
  g_assert_cmpint (sel->from, ==, t0);
  g_assert_cmpint (sel->to, ==, t1);
  /* Selecting a range does not move the view. */
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (from, ==, from0);
  g_assert_cmpint (to, ==, to0);
  strata_timeline_view_clear_selection (view);
}

static void
test_keys (void)
{
  gint64 from0, to0, from, to, mid0;
  double per_px;
  int area;

  zoom_in_middle ();
  strata_timeline_view_get_range (view, &from0, &to0);
  mid0 = from0 + (to0 - from0) / 2;
  per_px = npp ();
  area = (int) llround ((to0 - from0) / per_px);

  /* W zooms in by 1.5 around the middle (no pointer in the window). */
  g_assert_true (strata_timeline_view_handle_key (view, GDK_KEY_w, 0));
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpfloat_with_epsilon ((double) (to - from) / (to0 - from0), 1 / 1.5, 1e-3);
  g_assert_cmpint (ABS ((from + (to - from) / 2) - mid0), <=, (gint64) ceil (per_px));

  /* S zooms back out. */
  g_assert_true (strata_timeline_view_handle_key (view, GDK_KEY_s, 0));
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (ABS ((to - from) - (to0 - from0)), <=, 2);

  /* D pans an eighth of the width right, A as much left. */
  strata_timeline_view_set_range (view, from0, to0);
  g_assert_true (strata_timeline_view_handle_key (view, GDK_KEY_d, 0));
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (ABS ((from - from0) - (gint64) llround (area / 8.0 * per_px)), <=, 2);
  g_assert_true (strata_timeline_view_handle_key (view, GDK_KEY_a, 0));
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (ABS (from - from0), <=, 2);

  /* Home fits the whole trace; Alt+Left comes back. */
  g_assert_true (strata_timeline_view_handle_key (view, GDK_KEY_Home, 0));
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (from, ==, strata_trace_get_start (strata_timeline_view_get_trace (view)));
  g_assert_cmpint (to, ==, strata_trace_get_end (strata_timeline_view_get_trace (view)));
  g_assert_true (strata_timeline_view_handle_key (view, GDK_KEY_Left, GDK_ALT_MASK));
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (ABS (from - from0), <=, 2);
  g_assert_cmpint (ABS ((to - from) - (to0 - from0)), <=, 2);

  /* Keys with Ctrl are the window's, not the timeline's. */
  g_assert_false (strata_timeline_view_handle_key (view, GDK_KEY_w, GDK_CONTROL_MASK));
}

static void
test_double_click_zooms_to_activity (void)
{
  StrataZoomItem item;
  gint64 from, to;
  double x, y = rows_y ();
  gboolean found = FALSE;

  zoom_in_middle ();
  /* The first activity (not an instant) under the third row. */
  for (x = 300; x < 1100 && !found; x += 7)
    found = strata_timeline_view_hit (view, x, y, &item) && item.end > item.start;
  g_assert_true (found);

  strata_timeline_view_handle_press (view, 2, x - 7, y);
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (from, <=, item.start);
  g_assert_cmpint (to, >=, item.end);
  /* The activity fills most of the view (a tenth of margin each side,
   * or the narrowest view the widget allows). */
  g_assert_cmpint (to - from, <=, MAX ((item.end - item.start) * 13 / 10 + 4, 1200));
}

static void
test_snapshot_matches_painter (void)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(StrataTestPixels) pixels = NULL;
  g_autofree char *png = NULL;
  guint checked;

  strata_timeline_view_clear_selection (view);
  strata_timeline_view_set_search (view, NULL);

  /* Whole trace, then a zoom of a few milliseconds. */
  strata_timeline_view_fit (view);
  strata_test_ui_settle ();
  texture = strata_test_ui_render (GTK_WIDGET (view));
  png = strata_test_ui_save_png (texture, "test-ui-timeline-whole");
  pixels = strata_test_ui_pixels (texture);
  checked = strata_test_ui_check_against_painter (view, pixels, png);
  g_test_message ("%s: %u pixels match the painter", png, checked);
  g_assert_cmpuint (checked, >, 100);

  g_clear_object (&texture);
  g_clear_pointer (&pixels, strata_test_ui_pixels_free);
  g_clear_pointer (&png, g_free);
  zoom_in_middle ();
  strata_test_ui_settle ();
  texture = strata_test_ui_render (GTK_WIDGET (view));
  png = strata_test_ui_save_png (texture, "test-ui-timeline-zoomed");
  pixels = strata_test_ui_pixels (texture);
  checked = strata_test_ui_check_against_painter (view, pixels, png);
  g_test_message ("%s: %u pixels match the painter", png, checked);
  g_assert_cmpuint (checked, >, 100);
}

/* How many pixels of @a and @b differ, and the rows of the first and
 * last that do. */
static guint
count_differences (const StrataTestPixels *a,
                   const StrataTestPixels *b,
                   int                    *y_first,
                   int                    *y_last)
{
  guint n = 0;

  g_assert_cmpint (a->width, ==, b->width);
  g_assert_cmpint (a->height, ==, b->height);
  *y_first = G_MAXINT;
  *y_last = -1;
  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width; x++)
      if (strata_test_ui_pixel (a, x, y) != strata_test_ui_pixel (b, x, y))
        {
          n++;
          *y_first = MIN (*y_first, y);
          *y_last = MAX (*y_last, y);
        }
  return n;
}

static StrataTestPixels *
render_pixels (void)
{
  g_autoptr(GdkTexture) texture = NULL;

  strata_test_ui_settle ();
  texture = strata_test_ui_render (GTK_WIDGET (view));
  return strata_test_ui_pixels (texture);
}

/* A redraw for the hover asks the zoom tree nothing: the frame before
 * is drawn again with the outline over it, the same pixels everywhere
 * else, and the same as an independent painter's once the hover goes.
 * What changes the rows' content (the range, a hidden row, the colour
 * scheme) paints anew. */
static void
test_hover_redraw_reuses_frame (void)
{
  const StrataPaintStyle *style = strata_painter_get_style (strata_timeline_view_get_painter (view));
  g_autoptr(StrataTestPixels) before = NULL;
  g_autoptr(StrataTestPixels) hovered = NULL;
  g_autoptr(StrataTestPixels) after = NULL;
  const guint32 *rows;
  guint n_rows, paints;
  double x, y = rows_y ();
  int y_first, y_last;
  gboolean found = FALSE;
  StrataZoomItem item;

  strata_timeline_view_clear_selection (view);
  strata_timeline_view_set_search (view, NULL);
  strata_timeline_view_fit (view);
  strata_timeline_view_handle_motion (view, 2, 2);
  before = render_pixels ();
  paints = strata_timeline_view_get_n_paints (view);
  g_assert_cmpuint (paints, >, 0);

  for (x = style->name_width + 10; x < gtk_widget_get_width (GTK_WIDGET (view)) - 10 && !found; x += 7)
    found = strata_timeline_view_hit (view, x, y, &item);
  g_assert_true (found);
  strata_timeline_view_handle_motion (view, x - 7, y);
  hovered = render_pixels ();
  g_assert_cmpuint (strata_timeline_view_get_n_paints (view), ==, paints);
  g_assert_cmpuint (count_differences (before, hovered, &y_first, &y_last), >, 0);
  /* Only the hovered row's band has changed: the outline. */
  g_assert_cmpint (y_first, >=, (int) (y - style->row_height - 2));
  g_assert_cmpint (y_last, <=, (int) (y + style->row_height + 2));

  strata_timeline_view_handle_motion (view, 2, 2);
  after = render_pixels ();
  g_assert_cmpuint (strata_timeline_view_get_n_paints (view), ==, paints);
  g_assert_cmpuint (count_differences (before, after, &y_first, &y_last), ==, 0);
  g_assert_cmpuint (strata_test_ui_check_against_painter (view, after, "hover-after"), >, 100);

  /* What the rows show changes: painted again, each time. */
  zoom_in_middle ();
  g_clear_pointer (&after, strata_test_ui_pixels_free);
  after = render_pixels ();
  g_assert_cmpuint (strata_timeline_view_get_n_paints (view), ==, paints + 1);
  g_assert_cmpuint (strata_test_ui_check_against_painter (view, after, "hover-zoomed"), >, 100);

  rows = strata_timeline_view_get_rows (view, &n_rows);
  g_assert_cmpuint (n_rows, >, 3);
  strata_timeline_view_set_row_hidden (view, rows[2], TRUE);
  g_clear_pointer (&after, strata_test_ui_pixels_free);
  after = render_pixels ();
  g_assert_cmpuint (strata_timeline_view_get_n_paints (view), ==, paints + 2);
  g_assert_cmpuint (strata_test_ui_check_against_painter (view, after, "hover-hidden"), >, 100);
  strata_timeline_view_show_all_rows (view);

  strata_timeline_view_set_dark (view, TRUE);
  g_clear_pointer (&after, strata_test_ui_pixels_free);
  after = render_pixels ();
  g_assert_cmpuint (strata_timeline_view_get_n_paints (view), ==, paints + 3);
  g_assert_cmpuint (strata_test_ui_check_against_painter (view, after, "hover-dark"), >, 100);
  strata_timeline_view_set_dark (view, FALSE);
  strata_timeline_view_fit (view);
}

/* A touchpad scrolls the rows by fractions of a pixel; they are drawn at
 * whole pixels, the same as the nearest whole scroll draws them, and
 * such a frame draws the rows it drew before again. */
static void
test_fractional_scroll_draws_whole_pixels (void)
{
  StrataPainter *painter = strata_timeline_view_get_painter (view);
  const StrataPaintStyle *style = strata_painter_get_style (painter);
  g_autoptr(StrataTestPixels) whole = NULL;
  g_autoptr(StrataTestPixels) fractional = NULL;
  GtkAdjustment *vadj = NULL;
  double v;
  int y_first, y_last;

  strata_timeline_view_clear_selection (view);
  strata_timeline_view_set_search (view, NULL);
  strata_timeline_view_fit (view);
  strata_timeline_view_handle_motion (view, 2, 2);
  g_object_get (view, "vadjustment", &vadj, NULL);

  /* Two rows down, whole, then the same less 0.4 of a pixel. */
  v = 2 * style->row_height;
  g_assert_cmpfloat (gtk_adjustment_get_upper (vadj) - gtk_adjustment_get_page_size (vadj), >=, v);
  gtk_adjustment_set_value (vadj, v);
  whole = render_pixels ();
  gtk_adjustment_set_value (vadj, v - 0.4);
  fractional = render_pixels ();
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), ==, v - 0.4);
  g_assert_cmpuint (count_differences (whole, fractional, &y_first, &y_last), ==, 0);
  g_assert_cmpuint (strata_test_ui_check_against_painter (view, fractional, "fractional-scroll"), >, 100);

  /* From 0 to 1.6 pixels: moved by two whole pixels, its rows drawn again. */
  gtk_adjustment_set_value (vadj, 0);
  g_clear_pointer (&whole, strata_test_ui_pixels_free);
  whole = render_pixels ();
  gtk_adjustment_set_value (vadj, 1.6);
  g_clear_pointer (&fractional, strata_test_ui_pixels_free);
  fractional = render_pixels ();
  g_assert_cmpuint (strata_painter_get_n_drawn_again (painter), >, 0);
  g_assert_cmpuint (strata_test_ui_check_against_painter (view, fractional, "fractional-scroll-kept"), >, 100);

  gtk_adjustment_set_value (vadj, 0);
  g_object_unref (vadj);
}

/* Independent of the zoom tree and the painter: a long running interval
 * of a thread, from the raw store, is drawn in the running colour where
 * it is, on its row. */
static void
test_running_interval_at_its_pixels (void)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  StrataRawStore *raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (trace));
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(StrataTestPixels) pixels = NULL;
  const StrataChannel *channels;
  const StrataActivity *best = NULL;
  const StrataPaintStyle *style;
  guint n_channels;
  guint32 channel = STRATA_CHANNEL_NONE;
  double x0, x1, y;
  guint32 want, got;

  channels = strata_trace_get_channels (trace, &n_channels);
  for (guint32 i = 0; i < n_channels; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD && channels[i].id == 4302)
      channel = i;
  g_assert_cmpuint (channel, !=, STRATA_CHANNEL_NONE);

  strata_raw_store_query (raw, channel, strata_trace_get_start (trace), strata_trace_get_end (trace) + 1, found);
  for (guint i = 0; i < found->len; i++)
    {
      const StrataActivity *a = &g_array_index (found, StrataActivity, i);

      if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_RUNNING &&
          (best == NULL || a->end - a->start > best->end - best->start))
        best = a;
    }
  g_assert_nonnull (best);

  strata_timeline_view_fit (view);
  strata_timeline_view_select_row (view, channel);
  strata_timeline_view_clear_selection (view);
  strata_test_ui_settle ();
  texture = strata_test_ui_render (GTK_WIDGET (view));
  pixels = strata_test_ui_pixels (texture);

  style = strata_painter_get_style (strata_timeline_view_get_painter (view));
  x0 = strata_timeline_view_x_for_time (view, best->start);
  x1 = strata_timeline_view_x_for_time (view, best->end);
  y = strata_timeline_view_y_for_row (view, channel);
  g_assert_cmpfloat (x1 - x0, >, 20);
  g_assert_cmpfloat (y, >, 0);

  /* The middle of the interval's row, below any label, in the middle. */
  want = strata_paint_state_color (style->scheme, STRATA_TASK_STATE_RUNNING);
  got = strata_test_ui_pixel (pixels, (int) ((x0 + x1) / 2), (int) (y + style->row_height * 0.25));
  g_assert_true (strata_test_ui_color_near (want | 0xff, got, 3));
}


static gboolean
is_foreground_state (const StrataActivity *a)
{
  return a->kind == STRATA_ACTIVITY_STATE &&
         a->state != STRATA_TASK_STATE_SLEEPING && a->state != STRATA_TASK_STATE_PARKED &&
         a->state != STRATA_TASK_STATE_UNKNOWN && a->state != STRATA_TASK_STATE_DEAD;
}

/* A collapsed process row draws its threads merged into it. The oracle is
 * the raw store, not the painter: a pixel column where one of the
 * process's threads runs throughout while none of the others does anything
 * but sleep is the running colour in the process's row (and the plain
 * group background while the process is expanded); the hit test there
 * finds that thread running, and the thread's row is the process's. */
static void
test_collapsed_process_shows_its_threads (void)
{
  /* The trace.dat fixtures come out with no processes (their events say
   * no tgid); perf.data's samples and switches do. The helpers above look
   * at the global view. */
  StrataWindow *tgid_window = strata_test_ui_open_window ("perf-switch.data.xz", 1400, 860);
  StrataTimelineView *main_view = view;
  StrataTrace *trace = strata_timeline_view_get_trace (view = strata_window_get_timeline (tgid_window));
  StrataRawStore *raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (trace));
  StrataPainter *painter = strata_timeline_view_get_painter (view);
  const StrataPaintStyle *style = strata_painter_get_style (painter);
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(StrataTestPixels) pixels = NULL;
  g_autofree char *png = NULL;
  const StrataChannel *channels;
  const guint32 *rows, *members;
  guint n_channels, n_rows, n_members, checked = 0, processes = 0;
  StrataZoomItem item;

  strata_timeline_view_clear_selection (view);
  strata_timeline_view_set_search (view, NULL);
  strata_timeline_view_show_all_rows (view);
  strata_timeline_view_fit (view);
  channels = strata_trace_get_channels (trace, &n_channels);

  /* Every process row with threads under it, collapsed. */
  rows = strata_timeline_view_get_rows (view, &n_rows);
  for (guint i = 0; i < n_rows; i++)
    if (channels[rows[i]].kind == STRATA_CHANNEL_PROCESS)
      {
        strata_timeline_view_set_expanded (view, rows[i], FALSE);
        processes++;
        rows = strata_timeline_view_get_rows (view, &n_rows);
      }
  g_assert_cmpuint (processes, >, 1);

  rows = strata_timeline_view_get_rows (view, &n_rows);
  for (guint i = 0; i < n_rows; i++)
    {
      guint32 process = rows[i];
      double y, best_x = -1;
      guint32 best_thread = STRATA_CHANNEL_NONE;
      int width = gtk_widget_get_width (GTK_WIDGET (view));

      g_assert_false (channels[process].kind == STRATA_CHANNEL_THREAD &&
                      channels[process].parent < n_channels &&
                      channels[channels[process].parent].kind == STRATA_CHANNEL_PROCESS &&
                      strata_painter_get_row_members (painter, channels[process].parent, NULL) != NULL);
      if (channels[process].kind != STRATA_CHANNEL_PROCESS)
        continue;

      /* Its members are its threads, and none of them has a row. */
      members = strata_painter_get_row_members (painter, process, &n_members);
      g_assert_nonnull (members);
      g_assert_cmpuint (n_members, >=, 2);
      for (guint m = 0; m < n_members; m++)
        {
          g_assert_cmpuint (channels[members[m]].parent, ==, process);
          g_assert_cmpint (strata_timeline_view_y_for_row (view, members[m]), ==,
                           strata_timeline_view_y_for_row (view, process));
        }

      y = strata_timeline_view_y_for_row (view, process);
      if (y < STRATA_TIMELINE_OVERVIEW_HEIGHT + style->ruler_height ||
          y + style->row_height > gtk_widget_get_height (GTK_WIDGET (view)) - style->legend_height)
        continue;

      /* A column where one thread runs throughout and the others, two
       * columns either side, do nothing but sleep or are unknown. */
      for (guint m = 0; m < n_members && best_x < 0; m++)
        {
          g_array_set_size (found, 0);
          strata_raw_store_query (raw, members[m], strata_trace_get_start (trace),
                                  strata_trace_get_end (trace) + 1, found);
          for (guint k = 0; k < found->len && best_x < 0; k++)
            {
              const StrataActivity *a = &g_array_index (found, StrataActivity, k);
              double x0 = strata_timeline_view_x_for_time (view, a->start);
              double x1 = strata_timeline_view_x_for_time (view, a->end);
              double x = floor ((x0 + x1) / 2) + 0.5;
              gboolean quiet = TRUE;
              g_autoptr(GArray) others = NULL;

              if (a->kind != STRATA_ACTIVITY_STATE || a->state != STRATA_TASK_STATE_RUNNING ||
                  x1 - x0 < 6 || x < style->name_width + 3 || x > width - 3)
                continue;
              others = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
              for (guint o = 0; o < n_members && quiet; o++)
                {
                  if (o == m)
                    continue;
                  g_array_set_size (others, 0);
                  strata_raw_store_query (raw, members[o], time_at (x - 3), time_at (x + 3), others);
                  for (guint q = 0; q < others->len && quiet; q++)
                    {
                      const StrataActivity *b = &g_array_index (others, StrataActivity, q);

                      if (is_foreground_state (b) || b->kind == STRATA_ACTIVITY_WAKEUP ||
                          b->kind == STRATA_ACTIVITY_EVENT || b->kind == STRATA_ACTIVITY_SAMPLE ||
                          b->end <= b->start)
                        quiet = FALSE;
                    }
                }
              if (quiet)
                {
                  best_x = x;
                  best_thread = members[m];
                }
            }
        }
      if (best_x < 0)
        continue;

      /* Expanded, the process row at that column is the group's colour. */
      strata_timeline_view_set_expanded (view, process, TRUE);
      strata_test_ui_settle ();
      texture = strata_test_ui_render (GTK_WIDGET (view));
      pixels = strata_test_ui_pixels (texture);
      g_assert_null (strata_painter_get_row_members (painter, process, NULL));
      g_assert_false (strata_test_ui_color_near (strata_paint_state_color (style->scheme, STRATA_TASK_STATE_RUNNING) | 0xff,
                                                 strata_test_ui_pixel (pixels, (int) best_x,
                                                                       (int) (strata_timeline_view_y_for_row (view, process) + style->row_height * 0.5)),
                                                 3));
      g_clear_object (&texture);
      g_clear_pointer (&pixels, strata_test_ui_pixels_free);

      strata_timeline_view_set_expanded (view, process, FALSE);
      strata_test_ui_settle ();
      texture = strata_test_ui_render (GTK_WIDGET (view));
      pixels = strata_test_ui_pixels (texture);
      y = strata_timeline_view_y_for_row (view, process);
      g_test_message ("process %d: thread %d runs at x=%.1f", channels[process].id, channels[best_thread].id, best_x);
      g_assert_true (strata_test_ui_color_near (strata_paint_state_color (style->scheme, STRATA_TASK_STATE_RUNNING) | 0xff,
                                                strata_test_ui_pixel (pixels, (int) best_x, (int) (y + style->row_height * 0.5)),
                                                3));

      /* The tooltip and a click there tell that thread, running. */
      g_assert_true (strata_timeline_view_hit (view, best_x, y + style->row_height * 0.5, &item));
      g_assert_cmpuint (item.channel, ==, best_thread);
      g_assert_cmpint (item.kind, ==, STRATA_ACTIVITY_STATE);
      g_assert_cmpint (item.state, ==, STRATA_TASK_STATE_RUNNING);
      {
        g_autoptr(StrataItemInfo) info = strata_timeline_view_describe_at (view, best_x, y + style->row_height * 0.5);

        g_assert_nonnull (info);
      }
      g_clear_object (&texture);
      g_clear_pointer (&pixels, strata_test_ui_pixels_free);
      checked++;
    }
  g_assert_cmpuint (checked, >, 0);

  /* The whole frame with its merged rows is what a painter with the same
   * rows and members paints. */
  strata_test_ui_settle ();
  texture = strata_test_ui_render (GTK_WIDGET (view));
  png = strata_test_ui_save_png (texture, "test-ui-timeline-collapsed");
  pixels = strata_test_ui_pixels (texture);
  g_assert_cmpuint (strata_test_ui_check_against_painter (view, pixels, png), >, 100);

  /* Showing all rows expands every process again. */
  strata_timeline_view_show_all_rows (view);
  rows = strata_timeline_view_get_rows (view, &n_rows);
  for (guint i = 0; i < n_rows; i++)
    g_assert_null (strata_painter_get_row_members (painter, rows[i], NULL));
  view = main_view;
  gtk_window_destroy (GTK_WINDOW (tgid_window));
}

/* Live growth: a load in a worker thread reports after each batch; every
 * other report is shown by a timeline of its own while the worker waits
 * (the others only noted, as the window skips reports between showings),
 * and the frame must be the painter's for the tree as it is then, the
 * view following the trace as it grows. The channels go over in pieces
 * (strata-live-channels.h): the view's table after each showing must be
 * a copy of the model's at that report, the oracle, and renames of
 * threads shown before (the fixture repeated: each copy's exec names a
 * thread again) must show. */
typedef struct
{
  GMutex        lock;
  GCond         cond;
  gboolean      shown;
  GtkWidget    *live_window;
  StrataTimelineView *live_view;
  guint         reports;
  guint         frames;
  gint64        last_to;
  StrataLiveChannels *handing;
  GArray       *whole;        /* StrataChannel: the report's, copied whole (the oracle) */
  guint         renamed;      /* channels a showing renamed */
  StrataTrace  *trace;
  gint64        start;
  gint64        horizon;
} Live;

static gboolean
show_report (gpointer data)
{
  Live *l = data;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(StrataTestPixels) pixels = NULL;
  g_autoptr(GArray) fresh = NULL;
  g_autoptr(GArray) changes = NULL;
  const StrataChannel *shown;
  guint n_shown = 0, n_before = 0;
  gint64 from, to;

  g_assert_true (strata_live_channels_take (l->handing, &fresh, &changes));
  /* Taken once. */
  {
    GArray *none_fresh = fresh, *none_changes = changes;

    g_assert_false (strata_live_channels_take (l->handing, &none_fresh, &none_changes));
    g_assert_null (none_fresh);
    g_assert_null (none_changes);
  }
  shown = strata_timeline_view_get_channels (l->live_view, &n_before);
  for (guint i = 0; i < changes->len; i++)
    {
      const StrataChannelChange *c = &g_array_index (changes, StrataChannelChange, i);

      g_assert_cmpuint (c->id, <, n_before + fresh->len);
      if (c->id < n_before && shown[c->id].name != c->channel.name)
        l->renamed++;
    }
  strata_timeline_view_set_live (l->live_view, l->trace, (const StrataChannel *)(gpointer) fresh->data, fresh->len,
                                 (const StrataChannelChange *)(gpointer) changes->data, changes->len,
                                 l->start, l->horizon);
  g_assert_true (strata_timeline_view_is_live (l->live_view));

  /* The table kept from the pieces is the model's at that report, for
   * the view and for the trace that answers the tooltips. */
  shown = strata_timeline_view_get_channels (l->live_view, &n_shown);
  g_assert_cmpuint (n_shown, ==, l->whole->len);
  g_assert_cmpmem (shown, n_shown * sizeof (StrataChannel), l->whole->data, l->whole->len * sizeof (StrataChannel));
  shown = strata_trace_get_channels (l->trace, &n_shown);
  g_assert_cmpmem (shown, n_shown * sizeof (StrataChannel), l->whole->data, l->whole->len * sizeof (StrataChannel));
  g_clear_pointer (&l->whole, g_array_unref);

  /* The view's painter, kept from one showing to the next, gives the
   * rows a painter made afresh for this showing gives. */
  {
    StrataPainter *fresh_painter = strata_painter_new (strata_trace_get_strings (l->trace),
                                                       strata_trace_get_zoom_tree (l->trace));
    g_autoptr(GArray) want = NULL;
    const guint32 *rows;
    guint n_rows;
    gint64 extent_start, extent_end;

    strata_timeline_view_get_extent (l->live_view, &extent_start, &extent_end);
    strata_painter_set_channels (fresh_painter, shown, n_shown);
    strata_painter_set_extent (fresh_painter, extent_start, extent_end);
    want = strata_painter_default_rows (fresh_painter);
    rows = strata_timeline_view_get_rows (l->live_view, &n_rows);
    g_assert_cmpmem (rows, n_rows * sizeof (guint32), want->data, want->len * sizeof (guint32));
    strata_painter_free (fresh_painter);
  }

  strata_timeline_view_get_range (l->live_view, &from, &to);
  g_assert_cmpint (from, ==, l->start);
  g_assert_cmpint (to, ==, l->horizon);
  g_assert_cmpint (to, >=, l->last_to);
  l->last_to = to;

  /* Tooltips answer from the part loaded: a row's name describes it. */
  if (gtk_widget_get_height (GTK_WIDGET (l->live_view)) > 0)
    {
      guint n_rows;
      const guint32 *rows = strata_timeline_view_get_rows (l->live_view, &n_rows);

      if (n_rows > 0)
        {
          g_autoptr(StrataItemInfo) info =
            strata_timeline_view_describe_at (l->live_view, 4, strata_timeline_view_y_for_row (l->live_view, rows[0]) + 4);

          g_assert_nonnull (info);
        }
    }

  /* Let the frame clock draw the new state (the paintable shows the
   * last frame drawn). */
  strata_test_ui_settle ();

  if (gtk_widget_get_width (GTK_WIDGET (l->live_view)) > 0)
    {
      texture = strata_test_ui_render (GTK_WIDGET (l->live_view));
      pixels = strata_test_ui_pixels (texture);
      if (strata_test_ui_check_against_painter (l->live_view, pixels, "live") > 50)
        l->frames++;
    }
  g_clear_object (&l->trace);

  g_mutex_lock (&l->lock);
  l->shown = TRUE;
  g_cond_signal (&l->cond);
  g_mutex_unlock (&l->lock);
  return G_SOURCE_REMOVE;
}

static gboolean
on_report (const StrataTraceProgress *p,
           gpointer                   data)
{
  Live *l = data;

  l->reports++;
  g_assert_cmpuint (p->n_before, <=, p->n_channels);
  for (guint i = 0; i < p->n_changed; i++)
    g_assert_cmpuint (p->changed[i], <, p->n_before);
  if (p->start == G_MAXINT64 || p->horizon <= p->start || p->n_channels == 0 || l->reports % 2 == 0)
    {
      strata_live_channels_note (l->handing, p);
      return TRUE;
    }

  g_mutex_lock (&l->lock);
  strata_live_channels_hand_over (l->handing, p);
  l->whole = g_array_new (FALSE, FALSE, sizeof (StrataChannel));
  g_array_append_vals (l->whole, p->channels, p->n_channels);
  l->trace = g_object_ref (p->trace);
  l->start = p->start;
  l->horizon = p->horizon;
  l->shown = FALSE;
  g_idle_add (show_report, l);
  while (!l->shown)
    g_cond_wait (&l->cond, &l->lock);
  g_mutex_unlock (&l->lock);
  return TRUE;
}

static void
load_in_thread (GTask        *task,
                gpointer      source,
                gpointer      data,
                GCancellable *cancellable)
{
  Live *l = data;
  g_autofree char *path = g_object_get_data (G_OBJECT (task), "path");
  StrataZoomParams params;
  GError *error = NULL;
  StrataTrace *trace;

  strata_zoom_params_init (&params);
  trace = strata_test_load_full (path, FALSE, NULL, NULL, NULL, &params, on_report, l, &error);
  g_assert_no_error (error);
  g_task_return_pointer (task, trace, g_object_unref);
}

/* Shows @path's load as it grows in a timeline of its own (see Live);
 * returns the finished trace, the view still showing the live one. */
static StrataTrace *
show_load (const char *path,
           Live       *l)
{
  g_autoptr(GTask) task = NULL;
  StrataTrace *trace;

  g_mutex_init (&l->lock);
  g_cond_init (&l->cond);
  l->handing = strata_live_channels_new ();
  l->live_window = gtk_window_new ();
  l->live_view = STRATA_TIMELINE_VIEW (strata_timeline_view_new ());
  gtk_window_set_child (GTK_WINDOW (l->live_window), GTK_WIDGET (l->live_view));
  gtk_window_set_default_size (GTK_WINDOW (l->live_window), 1200, 700);
  gtk_window_present (GTK_WINDOW (l->live_window));
  strata_test_ui_settle ();

  task = g_task_new (NULL, NULL, NULL, NULL);
  g_object_set_data (G_OBJECT (task), "path", g_strdup (path));
  g_task_set_task_data (task, l, NULL);
  g_task_run_in_thread (task, load_in_thread);
  while (!g_task_get_completed (task))
    g_main_context_iteration (NULL, TRUE);
  trace = g_task_propagate_pointer (task, NULL);
  g_assert_nonnull (trace);
  return trace;
}

static void
live_clear (Live *l)
{
  gtk_window_destroy (GTK_WINDOW (l->live_window));
  strata_live_channels_free (l->handing);
  g_mutex_clear (&l->lock);
  g_cond_clear (&l->cond);
}

static void
test_live_growth (void)
{
  guint64 n_lines = 0;
  g_autofree char *path = strata_test_repeat_text_trace ("sched-small.txt", 6, &n_lines);
  g_autoptr(StrataTrace) trace = NULL;
  Live l = { 0 };
  gint64 from, to;

  trace = show_load (path, &l);
  g_assert_cmpuint (l.reports, >=, 3);
  g_assert_cmpuint (l.frames, >=, 2);

  /* The finished trace replaces the live one; a view of everything
   * stays a view of everything. */
  strata_timeline_view_set_trace (l.live_view, trace);
  g_assert_false (strata_timeline_view_is_live (l.live_view));
  strata_timeline_view_get_range (l.live_view, &from, &to);
  g_assert_cmpint (from, ==, strata_trace_get_start (trace));
  g_assert_cmpint (to, ==, strata_trace_get_end (trace));

  live_clear (&l);
}

/* A text trace of two threads switching on CPU 0, @n_before switches,
 * then the first one execs (renamed "after"), then @n_after more. */
static char *
exec_midway_trace (guint n_before,
                   guint n_after)
{
  g_autofree char *dir = strata_test_tmpdir ();
  char *path = g_build_filename (dir, "exec-midway.txt", NULL);
  GString *out = g_string_new ("# tracer: nop\n#\n# entries-in-buffer/entries-written: 1/1   #P:1\n#\n"
                               "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
                               "#              | |         |   |||||     |         |\n");
  double t = 100.0;

  for (guint i = 0; i < n_before + n_after; i++)
    {
      const char *name = i < n_before ? "before" : "after";

      if (i == n_before)
        {
          g_string_append_printf (out, "          before-100     [000] .....   %.6f: sched_process_exec: "
                                  "filename=/usr/bin/after pid=100 old_pid=100\n", t);
          t += 0.000010;
        }
      if (i % 2 == 0)
        g_string_append_printf (out, "%16s-100     [000] d..2.   %.6f: sched_switch: prev_comm=%s prev_pid=100 "
                                "prev_prio=120 prev_state=S ==> next_comm=other next_pid=200 next_prio=120\n",
                                name, t, name);
      else
        g_string_append_printf (out, "           other-200     [000] d..2.   %.6f: sched_switch: prev_comm=other "
                                "prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=%s next_pid=100 "
                                "next_prio=120\n", t, name);
      t += 0.000010;
    }
  g_assert_true (g_file_set_contents (path, out->str, out->len, NULL));
  g_string_free (out, TRUE);
  return path;
}

/* A thread renamed by exec after a showing had it: the showing after
 * gives its new name, and the table the view kept from the pieces is the
 * finished trace's (the oracle after each showing is in show_report()). */
static void
test_live_rename (void)
{
  /* Batches of 4096 events: the exec comes three batches in. */
  g_autofree char *path = exec_midway_trace (3 * 4096 + 100, 3 * 4096);
  g_autoptr(StrataTrace) trace = NULL;
  const StrataChannel *shown, *whole;
  guint n_shown = 0, n_whole = 0;
  gboolean renamed = FALSE;
  Live l = { 0 };

  trace = show_load (path, &l);
  g_assert_cmpuint (l.reports, >=, 5);
  g_assert_cmpuint (l.renamed, >, 0);

  shown = strata_timeline_view_get_channels (l.live_view, &n_shown);
  whole = strata_trace_get_channels (trace, &n_whole);
  g_assert_cmpuint (n_shown, >, 0);
  g_assert_cmpuint (n_shown, <=, n_whole);
  for (guint i = 0; i < n_shown; i++)
    {
      g_assert_cmpint (shown[i].kind, ==, whole[i].kind);
      g_assert_cmpint (shown[i].id, ==, whole[i].id);
      g_assert_cmpuint (shown[i].parent, ==, whole[i].parent);
      g_assert_cmpuint (shown[i].generation, ==, whole[i].generation);
      /* strata_kernel_model_finish() names the processes at the end. */
      if (whole[i].kind != STRATA_CHANNEL_PROCESS)
        g_assert_cmpstr (strata_trace_get_string (trace, shown[i].name), ==,
                         strata_trace_get_string (trace, whole[i].name));
      if (whole[i].kind == STRATA_CHANNEL_THREAD && whole[i].id == 100)
        {
          g_assert_cmpstr (strata_trace_get_string (trace, whole[i].name), ==, "after");
          renamed = TRUE;
        }
    }
  g_assert_true (renamed);

  live_clear (&l);
}

int
main (int    argc,
      char **argv)
{
  int status;

  strata_test_ui_init (&argc, &argv);
  window = strata_test_ui_open_window ("sched-small.dat", 1400, 860);
  view = strata_window_get_timeline (window);

  g_test_add_func ("/strata/ui/timeline/opens-fixture", test_opens_fixture);
  g_test_add_func ("/strata/ui/timeline/ctrl-scroll-zooms-around-pointer", test_ctrl_scroll_zooms_around_pointer);
  g_test_add_func ("/strata/ui/timeline/scroll-pans-and-moves-rows", test_scroll_pans_and_moves_rows);
  g_test_add_func ("/strata/ui/timeline/drag-pans", test_drag_pans);
  g_test_add_func ("/strata/ui/timeline/drag-on-ruler-selects-range", test_drag_on_ruler_selects_range);
  g_test_add_func ("/strata/ui/timeline/keys-wasd-home-back", test_keys);
  g_test_add_func ("/strata/ui/timeline/double-click-zooms-to-activity", test_double_click_zooms_to_activity);
  g_test_add_func ("/strata/ui/timeline/snapshot-matches-painter", test_snapshot_matches_painter);
  g_test_add_func ("/strata/ui/timeline/hover-redraw-reuses-frame", test_hover_redraw_reuses_frame);
  g_test_add_func ("/strata/ui/timeline/fractional-scroll-draws-whole-pixels", test_fractional_scroll_draws_whole_pixels);
  g_test_add_func ("/strata/ui/timeline/running-interval-at-its-pixels", test_running_interval_at_its_pixels);
  g_test_add_func ("/strata/ui/timeline/collapsed-process-shows-its-threads", test_collapsed_process_shows_its_threads);
  g_test_add_func ("/strata/ui/timeline/live-growth", test_live_growth);
  g_test_add_func ("/strata/ui/timeline/live-rename", test_live_rename);

  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
