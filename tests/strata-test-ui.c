/* strata-test-ui.c
 *
 * Helpers shared by the UI suites (see strata-test-ui.h). They run under
 * Xvfb with GDK_BACKEND=x11 and the cairo renderer, which tests/meson.build
 * sets, so a pixel is the same on every machine.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <adwaita.h>

#include "strata-test-support.h"
#include "strata-test-ui.h"

void
strata_test_ui_init (int    *argc,
                     char ***argv)
{
  g_test_init (argc, argv, NULL);
  gtk_init ();
  adw_init ();
  /* The painter's light colours are the oracle unless a test asks. */
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_LIGHT);
}

/* Runs the main loop until nothing is pending, and a little more so
 * the frame clock has drawn. */
void
strata_test_ui_settle (void)
{
  gint64 until = g_get_monotonic_time () + 50 * G_TIME_SPAN_MILLISECOND;

  while (g_main_context_pending (NULL) || g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);
}

/* Runs the main loop until @window shows its trace whole: loaded, the
 * stack's cross-fade from the progress done, the loading bar gone. */
void
strata_test_ui_wait_until_shown (StrataWindow *window)
{
  StrataTimelineView *timeline = strata_window_get_timeline (window);

  /* The timeline shows the trace while it loads; wait for the end. A
   * load that failed leaves the window empty (and says why in a toast):
   * fail here rather than wait for ever. */
  while (strata_timeline_view_get_trace (timeline) == NULL || strata_timeline_view_is_live (timeline))
    {
      g_assert_false (strata_window_is_empty (window));
      g_main_context_iteration (NULL, TRUE);
    }
  strata_test_ui_settle ();
  while (gtk_widget_get_width (GTK_WIDGET (timeline)) == 0)
    g_main_context_iteration (NULL, TRUE);
  /* The stack cross-fades from the progress to the timeline. */
  for (GtkWidget *w = GTK_WIDGET (timeline); w != NULL; w = gtk_widget_get_parent (w))
    if (GTK_IS_STACK (w))
      while (gtk_stack_get_transition_running (GTK_STACK (w)))
        g_main_context_iteration (NULL, TRUE);
  /* The loading bar above the timeline slides away once the trace is
   * whole: until it has, the timeline is shorter. */
  {
    GtkRevealer *live_bar = GTK_REVEALER (gtk_widget_get_template_child (GTK_WIDGET (window), STRATA_TYPE_WINDOW,
                                                                         "live_bar"));

    while (gtk_revealer_get_child_revealed (live_bar) != gtk_revealer_get_reveal_child (live_bar))
      g_main_context_iteration (NULL, TRUE);
  }
  strata_test_ui_settle ();
}

/* A window of @width x @height showing @fixture, opened as a user opens
 * one: through strata_window_open() and its worker thread. */
StrataWindow *
strata_test_ui_open_window (const char *fixture,
                            int         width,
                            int         height)
{
  g_autofree char *path = strata_test_fixture (fixture);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  StrataWindow *window = strata_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  strata_window_open (window, file);

  strata_test_ui_wait_until_shown (window);

  return window;
}

/* @widget as its window's renderer draws it now. A widget between a
 * change and its next layout (a live view's rows just grew) draws
 * nothing: the main loop runs until it has drawn again. */
GdkTexture *
strata_test_ui_render (GtkWidget *widget)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GskRenderNode *node = NULL;
  GskRenderer *renderer;
  GdkTexture *texture;
  int w = 0, h = 0;

  for (guint tries = 0; node == NULL && tries < 200; tries++)
    {
      GtkSnapshot *snapshot = gtk_snapshot_new ();

      if (tries > 0)
        {
          gtk_widget_queue_draw (widget);
          strata_test_ui_settle ();
        }
      w = gtk_widget_get_width (widget);
      h = gtk_widget_get_height (widget);
      gdk_paintable_snapshot (paintable, snapshot, w, h);
      node = gtk_snapshot_free_to_node (snapshot);
    }
  g_assert_nonnull (node);
  renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  g_assert_nonnull (renderer);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  return texture;
}

StrataTestPixels *
strata_test_ui_pixels (GdkTexture *texture)
{
  StrataTestPixels *p = g_new0 (StrataTestPixels, 1);

  p->width = gdk_texture_get_width (texture);
  p->height = gdk_texture_get_height (texture);
  p->stride = (gsize) p->width * 4;
  p->data = g_malloc (p->stride * p->height);
  gdk_texture_download (texture, p->data, p->stride);
  return p;
}

void
strata_test_ui_pixels_free (StrataTestPixels *pixels)
{
  if (pixels == NULL)
    return;
  g_free (pixels->data);
  g_free (pixels);
}

/* 0xRRGGBBAA of an opaque pixel. */
guint32
strata_test_ui_pixel (const StrataTestPixels *p,
                      int                     x,
                      int                     y)
{
  const guint8 *px;

  g_assert_cmpint (x, >=, 0);
  g_assert_cmpint (y, >=, 0);
  g_assert_cmpint (x, <, p->width);
  g_assert_cmpint (y, <, p->height);
  px = p->data + (gsize) y * p->stride + (gsize) x * 4;
  return ((guint32) px[2] << 24) | ((guint32) px[1] << 16) | ((guint32) px[0] << 8) | px[3];
}

gboolean
strata_test_ui_color_near (guint32 a,
                           guint32 b,
                           int     tolerance)
{
  for (int shift = 8; shift < 32; shift += 8)
    if (ABS ((int) ((a >> shift) & 0xff) - (int) ((b >> shift) & 0xff)) > tolerance)
      return FALSE;
  return TRUE;
}

/* The channel of thread @tid. */
guint32
strata_test_ui_thread_channel (StrataTrace *trace,
                               gint32       tid)
{
  const StrataChannel *channels;
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  for (guint32 i = 0; i < n; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD && channels[i].id == tid)
      return i;
  g_assert_not_reached ();
}

/* The longest running interval of @channel, from the raw store. */
StrataActivity
strata_test_ui_longest_running (StrataTrace *trace,
                                guint32      channel)
{
  StrataRawStore *raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (trace));
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  StrataActivity best = { 0 };

  strata_raw_store_query (raw, channel, strata_trace_get_start (trace), strata_trace_get_end (trace) + 1, found);
  for (guint i = 0; i < found->len; i++)
    {
      const StrataActivity *a = &g_array_index (found, StrataActivity, i);

      if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_RUNNING &&
          a->end - a->start > best.end - best.start)
        best = *a;
    }
  g_assert_cmpint (best.end, >, best.start);
  return best;
}

/* Saves into the build directory (or $STRATA_UI_SCREENSHOTS) so a person
 * can look at what the test saw. Returns the path. */
char *
strata_test_ui_save_png (GdkTexture *texture,
                         const char *name)
{
  const char *dir = g_getenv ("STRATA_UI_SCREENSHOTS");
  g_autofree char *file = g_strconcat (name, ".png", NULL);
  char *path;

  if (dir == NULL)
    dir = g_getenv ("G_TEST_BUILDDIR");
  if (dir == NULL)
    dir = ".";
  path = g_build_filename (dir, file, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  return path;
}

static gboolean
near_text (const StrataDisplayList *list,
           float                    x,
           float                    y)
{
  for (guint i = 0; i < list->texts->len; i++)
    {
      const StrataPaintText *t = &g_array_index (list->texts, StrataPaintText, i);
      float x0 = t->align == STRATA_PAINT_ALIGN_RIGHT ? t->x - t->max_width : t->x;

      if (x >= x0 - 2 && x <= x0 + t->max_width + 2 && fabsf (y - t->y) <= 9)
        return TRUE;
    }
  return FALSE;
}

/* The colour the list leaves at (@x, @y): its rectangles composited in
 * order over black, as the renderer does. */
static guint32
composite_at (const StrataDisplayList *list,
              float                    x,
              float                    y)
{
  double r = 0, g = 0, b = 0;

  for (guint i = 0; i < list->rects->len; i++)
    {
      const StrataPaintRect *rc = &g_array_index (list->rects, StrataPaintRect, i);
      double a = (rc->rgba & 0xff) / 255.0;

      if (x < rc->x || x >= rc->x + rc->w || y < rc->y || y >= rc->y + rc->h)
        continue;
      r = r * (1 - a) + ((rc->rgba >> 24) & 0xff) * a;
      g = g * (1 - a) + ((rc->rgba >> 16) & 0xff) * a;
      b = b * (1 - a) + ((rc->rgba >> 8) & 0xff) * a;
    }
  return ((guint32) lround (r) << 24) | ((guint32) lround (g) << 16) | ((guint32) lround (b) << 8) | 0xff;
}

/* Whether some rectangle edge is within a pixel of (@x, @y): there the
 * renderer's rounding of fractional edges may differ from ours. */
static gboolean
near_edge (const StrataDisplayList *list,
           float                    x,
           float                    y)
{
  for (guint i = 0; i < list->rects->len; i++)
    {
      const StrataPaintRect *rc = &g_array_index (list->rects, StrataPaintRect, i);

      if (x < rc->x - 1.5f || x > rc->x + rc->w + 1.5f || y < rc->y - 1.5f || y > rc->y + rc->h + 1.5f)
        continue;
      if (fabsf (x - rc->x) < 1.5f || fabsf (x - (rc->x + rc->w)) < 1.5f ||
          fabsf (y - rc->y) < 1.5f || fabsf (y - (rc->y + rc->h)) < 1.5f)
        return TRUE;
    }
  return FALSE;
}

/**
 * strata_test_ui_check_against_painter:
 *
 * The oracle for what the timeline drew: a painter of its own for the
 * same trace, rows, style and viewport paints a display list, and every
 * pixel at the middle of one of its rectangles (away from text and
 * edges) must have the colour that list composites there. The widget's
 * frame is offset by the overview strip.
 *
 * Returns: how many pixels were compared
 */
guint
strata_test_ui_check_against_painter (StrataTimelineView     *view,
                                      const StrataTestPixels *pixels,
                                      const char             *png_name)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  g_autoptr(StrataPainter) painter = NULL;
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  const StrataPaintStyle *style = strata_painter_get_style (strata_timeline_view_get_painter (view));
  StrataPaintViewport vp = { 0 };
  const guint32 *rows;
  guint n_rows, checked = 0, wrong = 0;
  int width = gtk_widget_get_width (GTK_WIDGET (view));
  int height = gtk_widget_get_height (GTK_WIDGET (view));
  GtkAdjustment *vadj = NULL;
  g_autoptr(GHashTable) colours = g_hash_table_new (NULL, NULL);

  /* While a trace loads, its channels so far are the view's own. */
  if (strata_timeline_view_is_live (view))
    {
      const StrataChannel *channels;
      guint n_channels;
      gint64 start, end;

      painter = strata_painter_new (strata_trace_get_strings (trace), strata_trace_get_zoom_tree (trace));
      channels = strata_timeline_view_get_channels (view, &n_channels);
      strata_painter_set_channels (painter, channels, n_channels);
      strata_timeline_view_get_extent (view, &start, &end);
      strata_painter_set_extent (painter, start, end);
    }
  else
    painter = strata_painter_new_for_trace (trace);

  g_object_get (view, "vadjustment", &vadj, NULL);
  rows = strata_timeline_view_get_rows (view, &n_rows);
  strata_painter_set_style (painter, style);
  strata_painter_set_rows (painter, rows, n_rows);
  /* Collapsed processes: their rows are their threads'. */
  for (guint i = 0; i < n_rows; i++)
    {
      guint n_members;
      const guint32 *members = strata_painter_get_row_members (strata_timeline_view_get_painter (view),
                                                               rows[i], &n_members);

      if (members != NULL)
        strata_painter_set_row_members (painter, rows[i], members, n_members);
    }
  strata_timeline_view_get_range (view, &vp.from, &vp.to);
  vp.width = width - style->name_width;
  vp.height = height - STRATA_TIMELINE_OVERVIEW_HEIGHT - style->ruler_height - style->legend_height;
  /* The view draws its rows at whole pixels. */
  vp.scroll_y = round (gtk_adjustment_get_value (vadj));
  g_object_unref (vadj);
  strata_painter_paint (painter, &vp, list);

  g_assert_cmpuint (list->rows->len, >, 0);

  for (guint i = 0; i < list->rects->len; i++)
    {
      const StrataPaintRect *rc = &g_array_index (list->rects, StrataPaintRect, i);
      float cx = floorf (rc->x + rc->w / 2) + 0.5f, cy = floorf (rc->y + rc->h / 2) + 0.5f;
      guint32 want, got;

      if (rc->w < 3 || rc->h < 3 || near_text (list, cx, cy) || near_edge (list, cx, cy))
        continue;
      if (cy + STRATA_TIMELINE_OVERVIEW_HEIGHT >= height || cx >= width)
        continue;
      want = composite_at (list, cx, cy);
      got = strata_test_ui_pixel (pixels, (int) cx, (int) (cy + STRATA_TIMELINE_OVERVIEW_HEIGHT));
      checked++;
      g_hash_table_add (colours, GUINT_TO_POINTER (want));
      if (!strata_test_ui_color_near (want, got, 3))
        {
          if (wrong++ < 10)
            g_test_message ("%s: at %.1f,%.1f painted %08x, drawn %08x", png_name, cx, cy, want, got);
        }
    }

  g_assert_cmpuint (wrong, ==, 0);
  /* Not only backgrounds: states, tasks and furniture. */
  g_assert_cmpuint (g_hash_table_size (colours), >=, 6);
  return checked;
}
