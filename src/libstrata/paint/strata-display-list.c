/* strata-display-list.c
 *
 * What a frame draws, as plain data: rectangles and texts in the order
 * they are painted, the rows where they are, and the time of each pixel
 * column, so the timeline widget, strata-cli render and the tests read
 * the same list (and a click finds its row without a second query).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata-painter.h"
#include "strata-painter-internal.h"
#include "strata-painter-private.h"
#include "strata-zoom-chunk.h"

StrataDisplayList *
strata_display_list_new (void)
{
  StrataDisplayList *self = g_new0 (StrataDisplayList, 1);

  self->rects = g_array_new (FALSE, FALSE, sizeof (StrataPaintRect));
  self->texts = g_array_new (FALSE, FALSE, sizeof (StrataPaintText));
  self->rows = g_array_new (FALSE, FALSE, sizeof (StrataPaintRow));
  self->ticks = g_array_new (FALSE, FALSE, sizeof (StrataPaintTick));
  self->strings = g_string_chunk_new (4096);

  return self;
}

/* Empties the list and keeps its memory for the next frame. */
void
strata_display_list_clear (StrataDisplayList *self)
{
  g_return_if_fail (self != NULL);

  g_array_set_size (self->rects, 0);
  g_array_set_size (self->texts, 0);
  g_array_set_size (self->rows, 0);
  g_array_set_size (self->ticks, 0);
  g_string_chunk_clear (self->strings);
  self->n_items = 0;
  self->n_folded = 0;
  self->level = 0;
  memset (&self->stats, 0, sizeof self->stats);
}

void
strata_display_list_free (StrataDisplayList *self)
{
  if (self == NULL)
    return;

  g_array_unref (self->rects);
  g_array_unref (self->texts);
  g_array_unref (self->rows);
  g_array_unref (self->ticks);
  g_string_chunk_free (self->strings);
  g_free (self);
}

/* Where @t is drawn, in frame coordinates. */
float
strata_display_list_x_for_time (const StrataDisplayList *self,
                                 gint64                   t)
{
  g_return_val_if_fail (self != NULL, 0);

  if (self->ns_per_pixel <= 0)
    return self->area_x;
  return self->area_x + (float) ((t - self->from) / self->ns_per_pixel);
}

/**
 * strata_display_list_find_row:
 *
 * Returns: (nullable): where @channel's row is, if it is visible
 */
const StrataPaintRow *
strata_display_list_find_row (const StrataDisplayList *self,
                              guint32                  channel)
{
  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; i < self->rows->len; i++)
    {
      const StrataPaintRow *row = &g_array_index (self->rows, StrataPaintRow, i);

      if (row->channel == channel)
        return row;
    }
  return NULL;
}

void
strata_painter_add_rect (StrataDisplayList *list,
                         float              x,
                         float              y,
                         float              w,
                         float              h,
                         guint32            rgba)
{
  StrataPaintRect r = { x, y, w, h, rgba };

  if (w > 0 && h > 0 && rgba_alpha (rgba) > 0)
    g_array_append_val (list->rects, r);
}

void
strata_painter_add_text (StrataDisplayList *list,
                         float              x,
                         float              y,
                         float              max_width,
                         guint32            rgba,
                         guint32            string,
                         const char        *text,
                         StrataPaintTextRole role,
                         StrataPaintAlign   align)
{
  StrataPaintText t = { 0 };

  if (text == NULL || text[0] == '\0' || max_width < 8)
    return;

  t.x = x;
  t.y = y;
  t.max_width = max_width;
  t.rgba = rgba;
  t.string = string;
  t.text = text;
  t.role = role;
  t.align = align;
  g_array_append_val (list->texts, t);
}

void
strata_painter_add_own_text (StrataDisplayList  *list,
                             float               x,
                             float               y,
                             float               max_width,
                             guint32             rgba,
                             const char         *text,
                             StrataPaintTextRole role,
                             StrataPaintAlign    align)
{
  strata_painter_add_text (list, x, y, max_width, rgba, STRATA_STRING_NONE,
                           g_string_chunk_insert (list->strings, text), role, align);
}

/* The painter -------------------------------------------------------------- */
