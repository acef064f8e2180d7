/* strata-timeline-render.c
 *
 * Draws a StrataDisplayList into a GtkSnapshot. Rectangles become colour
 * nodes in the list's order; texts are laid out with one PangoLayout that
 * is reused for every text of the frame, with a font per text role in pixel
 * sizes (as strata-cli render uses), ellipsized to the width the painter
 * gives them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

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

typedef struct
{
  PangoLayout *layout;
  int          width;
  int          height;
} CachedLayout;

struct _StrataTimelineRender
{
  PangoContext         *context;
  PangoLayout          *layout;
  PangoFontDescription *fonts[G_N_ELEMENTS (role_fonts)];
  GHashTable           *cache;   /* char * key -> CachedLayout */
  GString              *key;
};

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
  self->layout = pango_layout_new (context);
  pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (self->layout, TRUE);

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
  g_object_unref (self->layout);
  g_hash_table_unref (self->cache);
  g_string_free (self->key, TRUE);
  g_object_unref (self->context);
  g_free (self);
}

void
strata_timeline_render_rects (StrataTimelineRender    *self,
                              GtkSnapshot             *snapshot,
                              const StrataDisplayList *list)
{
  const StrataPaintRect *rects = (const StrataPaintRect *)(gpointer) list->rects->data;

  for (guint i = 0; i < list->rects->len; i++)
    {
      const StrataPaintRect *r = &rects[i];
      GdkRGBA rgba;

      if ((r->rgba & 0xff) == 0 || r->w <= 0 || r->h <= 0)
        continue;
      strata_rgba_from_u32 (&rgba, r->rgba);
      gtk_snapshot_append_color (snapshot, &rgba, &GRAPHENE_RECT_INIT (r->x, r->y, r->w, r->h));
    }
}

static const CachedLayout *
layout_for (StrataTimelineRender  *self,
            const StrataPaintText *t,
            guint                  role)
{
  CachedLayout *c;
  PangoRectangle logical;

  g_string_printf (self->key, "%u|%d|%s", role, (int) t->max_width, t->text);
  c = g_hash_table_lookup (self->cache, self->key->str);
  if (c != NULL)
    return c;

  if (g_hash_table_size (self->cache) >= MAX_CACHED_LAYOUTS)
    g_hash_table_remove_all (self->cache);

  c = g_new0 (CachedLayout, 1);
  c->layout = pango_layout_new (self->context);
  pango_layout_set_ellipsize (c->layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (c->layout, TRUE);
  pango_layout_set_font_description (c->layout, self->fonts[role]);
  pango_layout_set_width (c->layout, (int) (t->max_width * PANGO_SCALE));
  /* A comm is whatever bytes the task set; Pango takes UTF-8 only. */
  if (g_utf8_validate (t->text, -1, NULL))
    pango_layout_set_text (c->layout, t->text, -1);
  else
    {
      g_autofree char *valid = g_utf8_make_valid (t->text, -1);
      pango_layout_set_text (c->layout, valid, -1);
    }
  pango_layout_get_pixel_extents (c->layout, NULL, &logical);
  c->width = logical.width;
  c->height = logical.height;
  g_hash_table_insert (self->cache, g_strdup (self->key->str), c);
  return c;
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
