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

struct _StrataTimelineRender
{
  PangoLayout          *layout;
  PangoFontDescription *fonts[G_N_ELEMENTS (role_fonts)];
};

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

void
strata_timeline_render_texts (StrataTimelineRender    *self,
                              GtkSnapshot             *snapshot,
                              const StrataDisplayList *list)
{
  const StrataPaintText *texts = (const StrataPaintText *)(gpointer) list->texts->data;
  int last_role = -1;

  for (guint i = 0; i < list->texts->len; i++)
    {
      const StrataPaintText *t = &texts[i];
      guint role = MIN (t->role, G_N_ELEMENTS (role_fonts) - 1);
      PangoRectangle logical;
      GdkRGBA rgba;
      float x;

      if (t->max_width < 4)
        continue;
      if ((int) role != last_role)
        {
          pango_layout_set_font_description (self->layout, self->fonts[role]);
          last_role = role;
        }
      pango_layout_set_width (self->layout, (int) (t->max_width * PANGO_SCALE));
      /* A comm is whatever bytes the task set; Pango takes UTF-8 only. */
      if (g_utf8_validate (t->text, -1, NULL))
        pango_layout_set_text (self->layout, t->text, -1);
      else
        {
          g_autofree char *valid = g_utf8_make_valid (t->text, -1);
          pango_layout_set_text (self->layout, valid, -1);
        }
      pango_layout_get_pixel_extents (self->layout, NULL, &logical);

      x = t->align == STRATA_PAINT_ALIGN_RIGHT ? t->x - logical.width : t->x;
      strata_rgba_from_u32 (&rgba, t->rgba);

      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x, roundf (t->y - logical.height / 2.f)));
      gtk_snapshot_append_layout (snapshot, self->layout, &rgba);
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
