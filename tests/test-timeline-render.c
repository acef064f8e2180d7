/* test-timeline-render.c
 *
 * The timeline's GTK renderer against the plainest drawing of the same
 * display list. strata_timeline_render_rects() turns a dense row's run of
 * rectangles into one texture it rasterizes itself; here a zoomed-out frame
 * of a dense generated stream is drawn that way and, independently, as a
 * colour node per rectangle, both through the cairo renderer (no display
 * is needed for render nodes), at scale 1 and 2, and the pixels must agree to
 * the rounding of one premultiplication. The frame must really have used
 * textures, and a sparse frame none. The textures' pixel buffers, kept
 * from one frame to the next, are never shared by two live textures, and
 * a frame drawn into kept buffers is the frame drawn into fresh ones.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <gtk/gtk.h>
#include <pango/pangocairo.h>

#include "strata-test-streams.h"
#include "strata-test-support.h"
#include "strata-test-ui.h"
#include "strata-timeline-render.h"

typedef struct
{
  StrataZoomTree   *tree;
  StrataStringPool *pool;
  StrataPainter    *painter;
  GArray           *channels;
  gint64            start;
  gint64            end;
} Fixture;

static void
fixture_init (Fixture *f)
{
  g_autoptr(GArray) activities = strata_test_stream_collect (STRATA_TEST_STREAM_DENSE, 100000, 3);
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;
  guint n_channels = 0;

  strata_zoom_params_init (&params);
  f->tree = strata_zoom_tree_new (&params, &error);
  g_assert_no_error (error);
  strata_test_stream_build (f->tree, (const StrataActivity *)(gpointer) activities->data, activities->len);

  f->start = G_MAXINT64;
  f->end = G_MININT64;
  for (guint i = 0; i < activities->len; i++)
    {
      const StrataActivity *a = &g_array_index (activities, StrataActivity, i);

      f->start = MIN (f->start, a->start);
      f->end = MAX (f->end, a->end);
      n_channels = MAX (n_channels, a->channel + 1);
    }

  f->pool = strata_string_pool_new ();
  f->channels = g_array_new (FALSE, TRUE, sizeof (StrataChannel));
  g_array_set_size (f->channels, n_channels);
  for (guint i = 0; i < n_channels; i++)
    {
      StrataChannel *ch = &g_array_index (f->channels, StrataChannel, i);
      g_autofree char *name = g_strdup_printf (i < 4 ? "CPU %u" : "thread %u", i);

      ch->kind = i < 4 ? STRATA_CHANNEL_CPU : STRATA_CHANNEL_THREAD;
      ch->id = i < 4 ? (gint32) i : (gint32) (1000 + i);
      ch->name = strata_string_pool_intern (f->pool, name);
      ch->parent = STRATA_CHANNEL_NONE;
      ch->tgid = -1;
      ch->end = G_MAXINT64;
    }

  f->painter = strata_painter_new (f->pool, f->tree);
  strata_painter_set_channels (f->painter, (const StrataChannel *)(gpointer) f->channels->data, n_channels);
  strata_painter_set_extent (f->painter, f->start, f->end);
  rows = strata_painter_default_rows (f->painter);
  strata_painter_set_rows (f->painter, (const guint32 *)(gpointer) rows->data, rows->len);
}

static void
fixture_clear (Fixture *f)
{
  strata_painter_free (f->painter);
  strata_zoom_tree_free (f->tree);
  strata_string_pool_unref (f->pool);
  g_array_unref (f->channels);
}

static guint
count_textures (GskRenderNode *node)
{
  guint n = 0;

  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_TEXTURE_NODE:
      return 1;
    case GSK_CONTAINER_NODE:
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        n += count_textures (gsk_container_node_get_child (node, i));
      return n;
    case GSK_TRANSFORM_NODE:
      return count_textures (gsk_transform_node_get_child (node));
    default:
      return 0;
    }
}

/* The frame's rectangles drawn at @scale, over an opaque white, into
 * bytes (B8G8R8A8 premultiplied); the renderer's own way if @render is
 * set, else a colour node for every rectangle. */
static guint8 *
draw (GskRenderer             *renderer,
      StrataTimelineRender    *render,
      const StrataDisplayList *list,
      int                      scale,
      const char              *png_name,
      guint                   *n_textures)
{
  int w = (int) list->frame_width * scale, h = (int) list->frame_height * scale;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  GdkTexture *texture;
  guint8 *data = g_malloc ((gsize) w * h * 4);

  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 1, 1, 1, 1 }, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gtk_snapshot_scale (snapshot, scale, scale);
  if (render != NULL)
    {
      strata_timeline_render_set_scale (render, scale);
      strata_timeline_render_rects (render, snapshot, list);
    }
  else
    for (guint i = 0; i < list->rects->len; i++)
      {
        const StrataPaintRect *r = &g_array_index (list->rects, StrataPaintRect, i);
        GdkRGBA rgba;

        strata_rgba_from_u32 (&rgba, r->rgba);
        gtk_snapshot_append_color (snapshot, &rgba, &GRAPHENE_RECT_INIT (r->x, r->y, r->w, r->h));
      }
  node = gtk_snapshot_free_to_node (snapshot);
  *n_textures = count_textures (node);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gdk_texture_download (texture, data, (gsize) w * 4);
  /* To look at: the build's tests folder. */
  if (png_name != NULL)
    g_free (strata_test_ui_save_png (texture, png_name));
  g_object_unref (texture);
  gsk_render_node_unref (node);
  return data;
}

/* Returns the textures the renderer's way used. */
static guint
assert_same_pixels (GskRenderer             *renderer,
                    StrataTimelineRender    *render,
                    const StrataDisplayList *list,
                    int                      scale,
                    const char              *png_name)
{
  int w = (int) list->frame_width * scale, h = (int) list->frame_height * scale;
  guint n_textures = 0, n_none = 0, differ = 0;
  g_autofree guint8 *mine = draw (renderer, render, list, scale, png_name, &n_textures);
  g_autofree guint8 *plain = draw (renderer, NULL, list, scale, NULL, &n_none);

  g_assert_cmpuint (n_none, ==, 0);
  for (gsize i = 0; i < (gsize) w * h * 4; i++)
    if (ABS ((int) mine[i] - (int) plain[i]) > 1)
      {
        if (differ++ < 5)
          g_test_message ("scale %d: byte %" G_GSIZE_FORMAT " (x %d, y %d): %u against %u",
                          scale, i, (int) (i / 4 % w), (int) (i / 4 / w), mine[i], plain[i]);
      }
  g_assert_cmpuint (differ, ==, 0);
  return n_textures;
}

static void
test_dense_rows_as_textures (void)
{
  Fixture f;
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  g_autoptr(GskRenderer) renderer = gsk_cairo_renderer_new ();
  g_autoptr(GError) error = NULL;
  PangoContext *pango = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  StrataTimelineRender *render = strata_timeline_render_new (pango);
  const StrataPaintStyle *style;
  guint n_rows;

  g_assert_true (gsk_renderer_realize (renderer, NULL, &error));
  g_assert_no_error (error);
  fixture_init (&f);
  style = strata_painter_get_style (f.painter);
  strata_painter_get_rows (f.painter, &n_rows);

  /* Zoomed out, scrolled by whole rows and cut at the bottom, and
   * zoomed in far enough that no row is dense. */
  for (guint v = 0; v < 3; v++)
    {
      gint64 span = v < 2 ? f.end - f.start : (f.end - f.start) / 20000;
      StrataPaintViewport vp = { f.start, f.start + span, 600, n_rows * style->row_height, 0 };

      if (v == 1)
        {
          vp.scroll_y = 2 * style->row_height;
          vp.height = 7 * style->row_height + style->row_height / 2;
        }
      strata_painter_paint (f.painter, &vp, list);

      for (int scale = 1; scale <= 2; scale++)
        {
          g_autofree char *png = g_strdup_printf ("test-timeline-render-%u-x%d", v, scale);
          guint n = assert_same_pixels (renderer, render, list, scale, png);

          g_test_message ("view %u, scale %d: %u rects, %u rows as textures", v, scale,
                          list->rects->len, n);
          if (v < 2)
            g_assert_cmpuint (n, >, 0);
          else
            g_assert_cmpuint (n, ==, 0);
        }
    }

  gsk_renderer_unrealize (renderer);
  strata_timeline_render_free (render);
  g_object_unref (pango);
  fixture_clear (&f);
}

/* @node drawn over an opaque white into bytes, as draw() does. */
static guint8 *
node_pixels (GskRenderer   *renderer,
             GskRenderNode *node,
             int            w,
             int            h)
{
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) all = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  guint8 *data = g_malloc ((gsize) w * h * 4);

  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 1, 1, 1, 1 }, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gtk_snapshot_append_node (snapshot, node);
  all = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  texture = gsk_renderer_render_texture (renderer, all, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gdk_texture_download (texture, data, (gsize) w * 4);
  return data;
}

static GskRenderNode *
rects_node (StrataTimelineRender    *render,
            const StrataDisplayList *list)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();

  strata_timeline_render_rects (render, snapshot, list);
  return gtk_snapshot_free_to_node (snapshot);
}

/* The band textures' pixel buffers are kept for later frames: a frame
 * drawn while an earlier one is still held must not take the earlier
 * one's buffers (its pixels stay as they were), a frame drawn into kept
 * buffers that held another frame's pixels comes out as if drawn into
 * fresh ones, and a texture may outlive the render that drew it. */
static void
test_band_buffers_reused (void)
{
  Fixture f;
  g_autoptr(StrataDisplayList) a = strata_display_list_new ();
  g_autoptr(StrataDisplayList) b = strata_display_list_new ();
  g_autoptr(GskRenderer) renderer = gsk_cairo_renderer_new ();
  g_autoptr(GError) error = NULL;
  PangoContext *pango = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  StrataTimelineRender *render = strata_timeline_render_new (pango);
  const StrataPaintStyle *style;
  GskRenderNode *node_a, *node_b;
  g_autofree guint8 *first = NULL, *held = NULL, *again = NULL, *b_pixels = NULL, *b_fresh = NULL;
  g_autofree guint8 *orphan = NULL;
  guint n_rows, n_textures;
  int w, h;

  g_assert_true (gsk_renderer_realize (renderer, NULL, &error));
  g_assert_no_error (error);
  fixture_init (&f);
  style = strata_painter_get_style (f.painter);
  strata_painter_get_rows (f.painter, &n_rows);

  {
    gint64 span = f.end - f.start;
    StrataPaintViewport va = { f.start, f.end, 600, n_rows * style->row_height, 0 };
    StrataPaintViewport vb = { f.start + span / 3, f.start + span / 3 + span / 2, 600,
                               n_rows * style->row_height, 0 };

    strata_painter_paint (f.painter, &va, a);
    strata_painter_paint (f.painter, &vb, b);
  }
  w = (int) a->frame_width;
  h = (int) a->frame_height;
  g_assert_cmpint (w, ==, (int) b->frame_width);
  g_assert_cmpint (h, ==, (int) b->frame_height);

  /* Frame a, held while frame b is drawn. */
  node_a = rects_node (render, a);
  n_textures = count_textures (node_a);
  g_assert_cmpuint (n_textures, >, 0);
  first = node_pixels (renderer, node_a, w, h);
  node_b = rects_node (render, b);
  g_assert_cmpuint (count_textures (node_b), >, 0);
  held = node_pixels (renderer, node_a, w, h);
  g_assert_cmpmem (held, (gsize) w * h * 4, first, (gsize) w * h * 4);
  b_pixels = node_pixels (renderer, node_b, w, h);

  /* Both dropped: a again, then b again, each into the other's kept
   * buffers. */
  gsk_render_node_unref (node_a);
  gsk_render_node_unref (node_b);
  node_a = rects_node (render, a);
  again = node_pixels (renderer, node_a, w, h);
  g_assert_cmpmem (again, (gsize) w * h * 4, first, (gsize) w * h * 4);
  gsk_render_node_unref (node_a);
  node_b = rects_node (render, b);
  b_fresh = node_pixels (renderer, node_b, w, h);
  g_assert_cmpmem (b_fresh, (gsize) w * h * 4, b_pixels, (gsize) w * h * 4);

  /* The render goes first; its textures stay whole. */
  strata_timeline_render_free (render);
  orphan = node_pixels (renderer, node_b, w, h);
  g_assert_cmpmem (orphan, (gsize) w * h * 4, b_pixels, (gsize) w * h * 4);
  gsk_render_node_unref (node_b);

  gsk_renderer_unrealize (renderer);
  g_object_unref (pango);
  fixture_clear (&f);
}

/* One text of @role at max_width @width, drawn alone: by the render
 * (from its cache, whatever it laid out before), or (@render NULL) as
 * Pango lays it out for that width, a fresh layout ellipsized at its end
 * in the role's font (10 px for activities, 11 px bold for groups). */
static guint8 *
draw_text (GskRenderer          *renderer,
           StrataTimelineRender *render,
           PangoContext         *pango,
           const char           *text,
           guint                 role,
           float                 width)
{
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  g_autoptr(GskRenderNode) node = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  StrataPaintText t = { 4, 10, width, 0x000000ffu, STRATA_STRING_NONE, text, role, STRATA_PAINT_ALIGN_LEFT, 0 };

  if (render != NULL)
    {
      g_array_append_val (list->texts, t);
      strata_timeline_render_texts (render, snapshot, list);
    }
  else
    {
      g_autoptr(PangoLayout) layout = pango_layout_new (pango);
      PangoFontDescription *desc = pango_font_description_copy (pango_context_get_font_description (pango));
      PangoRectangle logical;

      pango_font_description_set_absolute_size (desc, (role == STRATA_PAINT_TEXT_GROUP_NAME ? 11 : 10) * PANGO_SCALE);
      pango_font_description_set_weight (desc, role == STRATA_PAINT_TEXT_GROUP_NAME ? PANGO_WEIGHT_BOLD
                                                                                     : PANGO_WEIGHT_NORMAL);
      pango_layout_set_font_description (layout, desc);
      pango_font_description_free (desc);
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
      pango_layout_set_single_paragraph_mode (layout, TRUE);
      pango_layout_set_width (layout, (int) (width * PANGO_SCALE));
      pango_layout_set_text (layout, text, -1);
      pango_layout_get_pixel_extents (layout, NULL, &logical);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (4, roundf (10 - logical.height / 2.f)));
      gtk_snapshot_append_layout (snapshot, layout, &(GdkRGBA) { 0, 0, 0, 1 });
    }
  node = gtk_snapshot_free_to_node (snapshot);
  return node_pixels (renderer, node, 420, 20);
}

/* Kept layouts draw every text as Pango lays it out for the width it is
 * given: the ones that fit from one layout at any width, the ones cut
 * at their own, in whichever order the widths come. */
static void
test_texts_as_pango_lays_them_out (void)
{
  static const char *texts[] = { "sched-messaging", "thread 42", "kworker/u16:3-events_unbound and more" };
  static const float widths[] = { 400, 120, 61.5f, 25, 90, 400 };
  static const guint roles[] = { STRATA_PAINT_TEXT_ACTIVITY, STRATA_PAINT_TEXT_GROUP_NAME };
  g_autoptr(GskRenderer) renderer = gsk_cairo_renderer_new ();
  g_autoptr(GError) error = NULL;
  PangoContext *pango = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  StrataTimelineRender *render = strata_timeline_render_new (pango);
  guint cut = 0;

  g_assert_true (gsk_renderer_realize (renderer, NULL, &error));
  g_assert_no_error (error);
  for (guint r = 0; r < G_N_ELEMENTS (roles); r++)
    for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
      {
        g_autofree guint8 *whole = draw_text (renderer, NULL, pango, texts[i], roles[r], 400);

        for (guint k = 0; k < G_N_ELEMENTS (widths); k++)
          {
            g_autofree guint8 *want = draw_text (renderer, NULL, pango, texts[i], roles[r], widths[k]);
            g_autofree guint8 *got = draw_text (renderer, render, pango, texts[i], roles[r], widths[k]);

            g_assert_cmpmem (got, 420 * 20 * 4, want, 420 * 20 * 4);
            cut += memcmp (want, whole, 420 * 20 * 4) != 0;
          }
      }
  /* Not only texts that fit. */
  g_assert_cmpuint (cut, >=, 6);

  strata_timeline_render_free (render);
  gsk_renderer_unrealize (renderer);
  g_object_unref (pango);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* Render nodes and the cairo renderer need no display: without one
   * this only sets GTK up, and loads no GL driver. */
  g_unsetenv ("DISPLAY");
  g_unsetenv ("WAYLAND_DISPLAY");
  gtk_init_check ();

  g_test_add_func ("/strata/timeline-render/dense-rows-as-textures", test_dense_rows_as_textures);
  g_test_add_func ("/strata/timeline-render/band-buffers-reused", test_band_buffers_reused);
  g_test_add_func ("/strata/timeline-render/texts-as-pango-lays-them-out", test_texts_as_pango_lays_them_out);

  return g_test_run ();
}
