/* strata-timeline-render.c
 *
 * Draws a StrataDisplayList into a GtkSnapshot. Rectangles become colour
 * nodes in the list's order, except where a row of the timeline has so
 * many that a node each costs more than filling its pixels: there the
 * row's run of rectangles is rasterized, in the same order and with the
 * same source-over blending, into one memory texture at the device scale,
 * drawn as one node (a zoomed-out dense row is thousands of one-pixel
 * rectangles, and GTK spends far more on a node than on a few pixels);
 * the textures' pixel buffers come back to a pool when GTK drops them, so
 * the next frame fills warm memory instead of fresh pages. Texts are
 * laid out with a font per text role in pixel sizes (as strata-cli render
 * uses), ellipsized to the width the painter gives them, and their shaped
 * layouts kept from frame to frame.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "strata-timeline-render.h"

static const struct {
  int         px;
  PangoWeight weight;
} role_fonts[] = {
  [STRATA_PAINT_TEXT_ROW_NAME]   = { 11, PANGO_WEIGHT_NORMAL },
  [STRATA_PAINT_TEXT_GROUP_NAME] = { 11, PANGO_WEIGHT_BOLD },
  [STRATA_PAINT_TEXT_ROW_ID]     = { 10, PANGO_WEIGHT_NORMAL },
  [STRATA_PAINT_TEXT_ACTIVITY]   = { 10, PANGO_WEIGHT_NORMAL },
  [STRATA_PAINT_TEXT_RULER]      = { 10, PANGO_WEIGHT_NORMAL },
  [STRATA_PAINT_TEXT_LEGEND]     = { 10, PANGO_WEIGHT_NORMAL },
};

/* Row names, pids, ruler labels and the legend come back every frame:
 * their shaped layouts are kept, keyed by role, width and text. */
#define MAX_CACHED_LAYOUTS 4096

/* A row's run of rectangles becomes a texture when it has at least this
 * many and filling the row's pixels (and clearing them first) costs less
 * than a colour node for each, a node costing about as much as filling
 * NODE_COST_PIXELS pixels (measured with the frame benchmark). */
#define TEXTURE_MIN_RECTS 64
#define NODE_COST_PIXELS  96

/* The band textures' pixels are kept for the next frame's, at most this
 * much of them. */
#define BAND_POOL_MAX_BYTES (48 << 20)

typedef struct
{
  PangoLayout *layout;
  int          width;
  int          height;
} CachedLayout;

/* Pixel buffers of the band textures, kept from one frame to the next: a
 * frame of dense rows is dozens of textures of about a hundred kilobytes
 * each, and fresh zeroed memory for every one cost an allocation, its
 * clearing and its page faults in every frame. A buffer comes back to the
 * pool when GTK drops the texture that holds it (from whichever thread
 * does), so the pool is counted: it outlives the render while a texture
 * is out, and once the render is gone what comes back is freed. */
typedef struct
{
  gatomicrefcount ref;
  GMutex          lock;
  GPtrArray      *free;    /* BandBuffer *, in no order */
  gsize           kept;    /* their bytes */
  gboolean        closed;
} BandPool;

typedef struct
{
  BandPool *pool;
  gsize     size;          /* bytes of pixels */
  guint32   pixels[];
} BandBuffer;

struct _StrataTimelineRender
{
  PangoContext         *context;
  PangoFontDescription *fonts[G_N_ELEMENTS (role_fonts)];
  GHashTable           *cache;   /* char * key -> CachedLayout */
  GString              *key;
  int                   scale;   /* device pixels per pixel of the list */
  BandPool             *pool;
};

static void
band_pool_unref (BandPool *pool)
{
  if (!g_atomic_ref_count_dec (&pool->ref))
    return;
  g_ptr_array_unref (pool->free);
  g_mutex_clear (&pool->lock);
  g_free (pool);
}

static BandPool *
band_pool_new (void)
{
  BandPool *pool = g_new0 (BandPool, 1);

  g_atomic_ref_count_init (&pool->ref);
  g_mutex_init (&pool->lock);
  pool->free = g_ptr_array_new_with_free_func (g_free);
  return pool;
}

/* The render is going: the kept buffers are freed now, the ones still
 * out when they come back. */
static void
band_pool_close (BandPool *pool)
{
  g_mutex_lock (&pool->lock);
  pool->closed = TRUE;
  g_ptr_array_set_size (pool->free, 0);
  pool->kept = 0;
  g_mutex_unlock (&pool->lock);
  band_pool_unref (pool);
}

/* A buffer of at least @size bytes, all of them zero (transparent): a
 * kept one if one fits without wasting more than a quarter of it. */
static BandBuffer *
band_pool_take (BandPool *pool,
                gsize     size)
{
  BandBuffer *buffer = NULL;
  guint best = G_MAXUINT;

  g_mutex_lock (&pool->lock);
  for (guint i = 0; i < pool->free->len; i++)
    {
      BandBuffer *b = g_ptr_array_index (pool->free, i);

      if (b->size >= size && b->size - size <= size / 4 &&
          (best == G_MAXUINT || b->size < ((BandBuffer *) g_ptr_array_index (pool->free, best))->size))
        best = i;
    }
  if (best != G_MAXUINT)
    {
      buffer = g_ptr_array_steal_index_fast (pool->free, best);
      pool->kept -= buffer->size;
    }
  g_mutex_unlock (&pool->lock);

  if (buffer == NULL)
    {
      buffer = g_malloc (sizeof (BandBuffer) + size);
      buffer->size = size;
    }
  buffer->pool = pool;
  g_atomic_ref_count_inc (&pool->ref);
  memset (buffer->pixels, 0, size);
  return buffer;
}

/* The GBytes' free function: GTK is done with the texture. */
static void
band_buffer_release (gpointer data)
{
  BandBuffer *buffer = data;
  BandPool *pool = buffer->pool;

  g_mutex_lock (&pool->lock);
  if (!pool->closed && pool->kept + buffer->size <= BAND_POOL_MAX_BYTES)
    {
      g_ptr_array_add (pool->free, buffer);
      pool->kept += buffer->size;
      buffer = NULL;
    }
  g_mutex_unlock (&pool->lock);
  g_free (buffer);
  band_pool_unref (pool);
}

static void
cached_layout_free (gpointer data)
{
  CachedLayout *c = data;

  g_object_unref (c->layout);
  g_free (c);
}

/**
 * strata_timeline_render_new:
 * @context: the Pango context to lay text out in (a widget's, or one of
 *   the default font map for drawing without a screen)
 */
StrataTimelineRender *
strata_timeline_render_new (PangoContext *context)
{
  StrataTimelineRender *self;

  g_return_val_if_fail (PANGO_IS_CONTEXT (context), NULL);

  self = g_new0 (StrataTimelineRender, 1);
  self->context = g_object_ref (context);
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cached_layout_free);
  self->key = g_string_new (NULL);
  self->scale = 1;
  self->pool = band_pool_new ();

  for (guint i = 0; i < G_N_ELEMENTS (role_fonts); i++)
    {
      PangoFontDescription *desc = pango_font_description_copy (pango_context_get_font_description (context));

      pango_font_description_set_absolute_size (desc, role_fonts[i].px * PANGO_SCALE);
      pango_font_description_set_weight (desc, role_fonts[i].weight);
      self->fonts[i] = desc;
    }

  return self;
}

void
strata_timeline_render_free (StrataTimelineRender *self)
{
  if (self == NULL)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (self->fonts); i++)
    pango_font_description_free (self->fonts[i]);
  g_hash_table_unref (self->cache);
  g_string_free (self->key, TRUE);
  g_object_unref (self->context);
  band_pool_close (self->pool);
  g_free (self);
}

/**
 * strata_timeline_render_set_scale:
 * @scale: device pixels per pixel of the display list (the widget's scale
 *   factor), at least 1
 *
 * Rows drawn as textures are rasterized at this scale, so they are as
 * sharp as colour nodes on a HiDPI screen.
 */
void
strata_timeline_render_set_scale (StrataTimelineRender *self,
                                  int                   scale)
{
  g_return_if_fail (self != NULL);

  self->scale = MAX (scale, 1);
}

static void
append_rect (GtkSnapshot           *snapshot,
             const StrataPaintRect *r)
{
  GdkRGBA rgba;

  if ((r->rgba & 0xff) == 0 || r->w <= 0 || r->h <= 0)
    return;
  strata_rgba_from_u32 (&rgba, r->rgba);
  gtk_snapshot_append_color (snapshot, &rgba, &GRAPHENE_RECT_INIT (r->x, r->y, r->w, r->h));
}

/* The timeline row whose band (cut to the timeline area) holds @r, if
 * any; *cursor remembers the last one found, as rows' rectangles come
 * top to bottom. */
static const StrataPaintRow *
band_of (const StrataDisplayList *list,
         const StrataPaintRect   *r,
         guint                   *cursor)
{
  const StrataPaintRow *rows = (const StrataPaintRow *)(gpointer) list->rows->data;
  float area_y1 = list->area_y + list->area_height;

  if (r->x < list->area_x || r->x + r->w > list->area_x + list->area_width)
    return NULL;

  for (guint k = 0; k < list->rows->len; k++)
    {
      guint i = (*cursor + k) % list->rows->len;
      float y0 = MAX (rows[i].y, list->area_y);
      float y1 = MIN (rows[i].y + rows[i].h, area_y1);

      if (r->y >= y0 && r->y + r->h <= y1)
        {
          *cursor = i;
          return &rows[i];
        }
    }
  return NULL;
}

/* A row's band cut to the timeline area, found once for its run of
 * rectangles. */
typedef struct
{
  float x0, x1, y0, y1;
} Band;

static inline void
band_init (Band                    *band,
           const StrataDisplayList *list,
           const StrataPaintRow    *row)
{
  band->x0 = list->area_x;
  band->x1 = list->area_x + list->area_width;
  band->y0 = MAX (row->y, list->area_y);
  band->y1 = MIN (row->y + row->h, list->area_y + list->area_height);
}

static inline gboolean
in_band (const Band            *band,
         const StrataPaintRect *r)
{
  return r->x >= band->x0 && r->x + r->w <= band->x1 &&
         r->y >= band->y0 && r->y + r->h <= band->y1;
}

/* @v rounded to a device pixel, in [0, limit]. Clamped first, so
 * without a branch (four of these a rectangle, and a dense row is
 * thousands of rectangles): at or below 0 it is 0, at or above limit
 * it is limit, in between (int) (d + 0.5f) as ever. */
static inline int
device_pixel (float v,
              int   scale,
              int   limit)
{
  float d = v * scale;

  d = d > 0 ? d : 0;
  d = d < (float) limit ? d : (float) limit;
  return MIN ((int) (d + 0.5f), limit);
}

/* Two 8-bit channels at a time (in bits 0-7 and 16-23) times @k / 255,
 * rounded. */
static inline guint32
scale_pair (guint32 pair,
            guint32 k)
{
  guint32 t = pair * k + 0x00800080;

  return ((t + ((t >> 8) & 0x00ff00ff)) >> 8) & 0x00ff00ff;
}

/* Premultiplied @src of alpha @a over @dst: src + dst * (1 - a), where
 * no channel can carry into the next. */
static inline guint32
over (guint32 src,
      guint32 dst,
      guint32 a)
{
  return src + (scale_pair (dst & 0x00ff00ff, 255 - a) |
                (scale_pair ((dst >> 8) & 0x00ff00ff, 255 - a) << 8));
}

/* Rectangles [first, end) of a row, in order, into one texture over the
 * row's band: each one blended over what is already there (source over,
 * premultiplied), as the renderer would blend their colour nodes. */
static void
append_band_texture (StrataTimelineRender    *self,
                     GtkSnapshot             *snapshot,
                     const StrataDisplayList *list,
                     const StrataPaintRow    *row,
                     const StrataPaintRect   *rects,
                     guint                    first,
                     guint                    end)
{
  int scale = self->scale;
  float ox = list->area_x;
  float oy = floorf (MAX (row->y, list->area_y));
  int w = (int) ceilf (list->area_width);
  int h = (int) ceilf (MIN (row->y + row->h, list->area_y + list->area_height)) - (int) oy;
  int dw = w * scale, dh = h * scale;
  gsize size = (gsize) dw * dh * sizeof (guint32);
  BandBuffer *buffer;
  guint32 *pixels;
  guint32 last_rgba = 0, packed = 0;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  if (w <= 0 || h <= 0)
    return;

  buffer = band_pool_take (self->pool, size);
  pixels = buffer->pixels;
  for (guint i = first; i < end; i++)
    {
      const StrataPaintRect *r = &rects[i];
      guint32 a = r->rgba & 0xff;
      int x0 = device_pixel (r->x - ox, scale, dw), x1 = device_pixel (r->x + r->w - ox, scale, dw);
      int y0 = device_pixel (r->y - oy, scale, dh), y1 = device_pixel (r->y + r->h - oy, scale, dh);
      if (a == 0 || x1 <= x0 || y1 <= y0)
        continue;

      /* R, G, B, A in memory order, premultiplied; once for a run of
       * rectangles of one colour. */
      if (r->rgba != last_rgba)
        {
          guint8 src[4];

          src[0] = (guint8) ((((r->rgba >> 24) & 0xff) * a + 127) / 255);
          src[1] = (guint8) ((((r->rgba >> 16) & 0xff) * a + 127) / 255);
          src[2] = (guint8) ((((r->rgba >> 8) & 0xff) * a + 127) / 255);
          src[3] = (guint8) a;
          memcpy (&packed, src, sizeof packed);
          last_rgba = r->rgba;
        }

      /* A dense row is mostly rectangles one pixel wide: down the
       * column, without a loop across it for each line. */
      if (x1 - x0 == 1)
        {
          guint32 *p = pixels + (gsize) y0 * dw + x0;

          if (a == 0xff)
            for (int y = y0; y < y1; y++, p += dw)
              *p = packed;
          else
            for (int y = y0; y < y1; y++, p += dw)
              *p = over (packed, *p, a);
          continue;
        }

      for (int y = y0; y < y1; y++)
        {
          guint32 *line = pixels + (gsize) y * dw;

          if (a == 0xff)
            for (int x = x0; x < x1; x++)
              line[x] = packed;
          else
            for (int x = x0; x < x1; x++)
              line[x] = over (packed, line[x], a);
        }
    }

  bytes = g_bytes_new_with_free_func (pixels, size, band_buffer_release, buffer);
  texture = gdk_memory_texture_new (dw, dh, GDK_MEMORY_R8G8B8A8_PREMULTIPLIED, bytes,
                                    (gsize) dw * sizeof (guint32));
  gtk_snapshot_append_texture (snapshot, texture, &GRAPHENE_RECT_INIT (ox, oy, w, h));
}

void
strata_timeline_render_rects (StrataTimelineRender    *self,
                              GtkSnapshot             *snapshot,
                              const StrataDisplayList *list)
{
  const StrataPaintRect *rects = (const StrataPaintRect *)(gpointer) list->rects->data;
  guint i = 0, cursor = 0, n = list->rects->len;

  while (i < n)
    {
      const StrataPaintRow *row = band_of (list, &rects[i], &cursor);
      guint end = i + 1;
      double area = 0;
      Band band;

      if (row == NULL)
        {
          append_rect (snapshot, &rects[i++]);
          continue;
        }

      /* The run of rectangles inside this row's band, and what filling
       * them would cost. */
      band_init (&band, list, row);
      for (end = i; end < n && in_band (&band, &rects[end]); end++)
        area += (double) rects[end].w * rects[end].h;

      if (end - i >= TEXTURE_MIN_RECTS &&
          (area + (double) list->area_width * row->h) * self->scale * self->scale <
          (double) (end - i) * NODE_COST_PIXELS)
        append_band_texture (self, snapshot, list, row, rects, i, end);
      else
        for (guint k = i; k < end; k++)
          append_rect (snapshot, &rects[k]);
      i = end;
    }
}

/* The shaped layout of @text in @role's font, ellipsized to @width
 * pixels (or not, for -1), from the cache or made and kept. */
static const CachedLayout *
cached_layout (StrataTimelineRender *self,
               guint                 role,
               int                   width,
               const char           *text)
{
  CachedLayout *c;
  PangoRectangle logical;

  g_string_printf (self->key, "%u|%d|%s", role, width, text);
  c = g_hash_table_lookup (self->cache, self->key->str);
  if (c != NULL)
    return c;

  if (g_hash_table_size (self->cache) >= MAX_CACHED_LAYOUTS)
    g_hash_table_remove_all (self->cache);

  c = g_new0 (CachedLayout, 1);
  c->layout = pango_layout_new (self->context);
  pango_layout_set_single_paragraph_mode (c->layout, TRUE);
  pango_layout_set_font_description (c->layout, self->fonts[role]);
  if (width >= 0)
    {
      pango_layout_set_ellipsize (c->layout, PANGO_ELLIPSIZE_END);
      pango_layout_set_width (c->layout, width * PANGO_SCALE);
    }
  /* A comm is whatever bytes the task set; Pango takes UTF-8 only. */
  if (g_utf8_validate (text, -1, NULL))
    pango_layout_set_text (c->layout, text, -1);
  else
    {
      g_autofree char *valid = g_utf8_make_valid (text, -1);
      pango_layout_set_text (c->layout, valid, -1);
    }
  pango_layout_get_pixel_extents (c->layout, NULL, &logical);
  c->width = logical.width;
  c->height = logical.height;
  g_hash_table_insert (self->cache, g_strdup (self->key->str), c);
  return c;
}

/* A text that fits its width is the same layout at any width (left
 * aligned, nothing to cut): one kept for it whole serves every frame,
 * however wide the painter says its room is; only what must be cut is
 * laid out for its width. */
static const CachedLayout *
layout_for (StrataTimelineRender  *self,
            const StrataPaintText *t,
            guint                  role)
{
  const CachedLayout *whole = cached_layout (self, role, -1, t->text);

  if (whole->width <= t->max_width)
    return whole;
  return cached_layout (self, role, (int) t->max_width, t->text);
}

void
strata_timeline_render_texts (StrataTimelineRender    *self,
                              GtkSnapshot             *snapshot,
                              const StrataDisplayList *list)
{
  const StrataPaintText *texts = (const StrataPaintText *)(gpointer) list->texts->data;

  for (guint i = 0; i < list->texts->len; i++)
    {
      const StrataPaintText *t = &texts[i];
      guint role = MIN (t->role, G_N_ELEMENTS (role_fonts) - 1);
      const CachedLayout *c;
      GdkRGBA rgba;
      float x;

      if (t->max_width < 4)
        continue;
      c = layout_for (self, t, role);
      x = t->align == STRATA_PAINT_ALIGN_RIGHT ? t->x - c->width : t->x;
      strata_rgba_from_u32 (&rgba, t->rgba);

      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x, roundf (t->y - c->height / 2.f)));
      gtk_snapshot_append_layout (snapshot, c->layout, &rgba);
      gtk_snapshot_restore (snapshot);
    }
}

/* The whole list: rectangles, then the texts over them. */
void
strata_timeline_render_list (StrataTimelineRender    *self,
                             GtkSnapshot             *snapshot,
                             const StrataDisplayList *list)
{
  strata_timeline_render_rects (self, snapshot, list);
  strata_timeline_render_texts (self, snapshot, list);
}
