/* strata-painter-kept-rows.c
 *
 * The rows of the last frame, drawn again as they were when the view has
 * not moved in time. A frame that keeps the time range, the width and
 * the style but scrolls the rows, shows or hides some, or changes the
 * window's height shows most rows exactly as the frame before did, only
 * higher or lower: their rectangles and labels are copied from the last
 * frame's display list, moved by the difference in height, instead of
 * querying the zoom tree for them, folding their items and emitting their
 * columns again (at the whole trace of a dense trace, 3 of the frame's
 * 7 ms). The last frame's list is not copied to be kept: its arrays are
 * taken from the list when the next frame clears it, and given back as
 * the arrays of the frame after.
 *
 * Drawn again only where that gives the same rectangles and labels, to
 * the bit, as painting the row anew: the tree is finished (a growing one
 * changes under the same view), the row was and is whole in the area (a
 * cut row's rectangles are clipped), and its top was and is a whole
 * pixel, so every coordinate of the row is a whole or half pixel far
 * below 2^22 and moving it is exact. Rows drawn of several channels (a
 * collapsed process, strata_painter_set_row_members()) are painted anew,
 * and a frame with any of them keeps nothing. test-painter-kept-rows
 * compares every such frame with one painted anew.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "strata-painter.h"
#include "strata-painter-internal.h"
#include "strata-painter-private.h"

static gboolean
kept_view_equal (const KeptView *a,
                 const KeptView *b)
{
  return memcmp (a, b, sizeof *a) == 0;
}

/* What a row's rectangles depend on besides its height. */
static void
kept_view_init (StrataPainter             *self,
                const StrataPaintViewport *viewport,
                KeptView                  *view)
{
  memset (view, 0, sizeof *view);
  view->from = viewport->from;
  view->to = viewport->to;
  view->width = viewport->width;
  view->start = self->start;
  view->end = self->end;
  view->channels = self->channels;
  view->n_channels = self->n_channels;
  view->row_height = self->style.row_height;
  view->name_width = self->style.name_width;
  view->ruler_height = self->style.ruler_height;
  view->scheme = self->style.scheme;
  view->reference_fold = self->reference_fold;
}

void
strata_painter_kept_init (StrataPainter *self)
{
  self->kept_rects = g_array_new (FALSE, FALSE, sizeof (StrataPaintRect));
  self->kept_texts = g_array_new (FALSE, FALSE, sizeof (StrataPaintText));
  self->kept = g_array_new (FALSE, FALSE, sizeof (KeptRow));
  self->keeping = g_array_new (FALSE, FALSE, sizeof (KeptRow));
  self->kept_of = g_hash_table_new (NULL, NULL);
}

void
strata_painter_kept_clear (StrataPainter *self)
{
  g_array_unref (self->kept_rects);
  g_array_unref (self->kept_texts);
  g_array_unref (self->kept);
  g_array_unref (self->keeping);
  g_hash_table_unref (self->kept_of);
}

/**
 * strata_painter_forget_rows:
 *
 * The next frame paints every row anew, as a frame of a new view does
 * (for the frame benchmark's "painted anew").
 */
void
strata_painter_forget_rows (StrataPainter *self)
{
  g_return_if_fail (self != NULL);

  g_array_set_size (self->keeping, 0);
  g_array_set_size (self->kept, 0);
  g_hash_table_remove_all (self->kept_of);
  self->kept_valid = FALSE;
}

/**
 * strata_painter_get_n_drawn_again:
 *
 * Returns: how many rows the last frame drew as the frame before it had,
 *   moved, rather than painting them anew
 */
guint
strata_painter_get_n_drawn_again (StrataPainter *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_drawn_again;
}

/* A frame of @viewport into @list starts (before the list is cleared):
 * the last frame's rows are kept if it was of the same view, and this
 * one's will be if it may. */
void
strata_painter_kept_begin (StrataPainter             *self,
                           const StrataPaintViewport *viewport,
                           StrataDisplayList         *list)
{
  KeptView view;
  GArray *swap;

  kept_view_init (self, viewport, &view);
  self->kept_valid = FALSE;
  self->n_drawn_again = 0;
  g_hash_table_remove_all (self->kept_of);
  g_array_set_size (self->kept, 0);

  self->keeping_on = strata_zoom_tree_is_finished (self->tree) && g_hash_table_size (self->members) == 0;
  /* The rows kept are in the arrays of the list the last frame went
   * into, as it left them: only that list's are taken. */
  if (self->keeping_on && self->keeping->len > 0 && kept_view_equal (&view, &self->keeping_view) &&
      list == self->keeping_list && list->rects == self->keeping_rects && list->texts == self->keeping_texts &&
      list->rects->len == self->keeping_n_rects && list->texts->len == self->keeping_n_texts)
    {
      /* The last frame's arrays become the kept ones; the list gets the
       * ones kept before, to be cleared. */
      swap = list->rects;
      list->rects = self->kept_rects;
      self->kept_rects = swap;
      swap = list->texts;
      list->texts = self->kept_texts;
      self->kept_texts = swap;
      swap = self->kept;
      self->kept = self->keeping;
      self->keeping = swap;
      for (guint i = 0; i < self->kept->len; i++)
        g_hash_table_insert (self->kept_of, GUINT_TO_POINTER (g_array_index (self->kept, KeptRow, i).channel),
                             GUINT_TO_POINTER (i + 1));
      self->kept_valid = TRUE;
    }
  g_array_set_size (self->keeping, 0);
  self->keeping_view = view;
}

/* The frame into @list is done: which arrays its rows are in. */
void
strata_painter_kept_end (StrataPainter           *self,
                         const StrataDisplayList *list)
{
  self->keeping_list = list;
  self->keeping_rects = list->rects;
  self->keeping_texts = list->texts;
  self->keeping_n_rects = list->rects->len;
  self->keeping_n_texts = list->texts->len;
}

/* Whether @row is whole in the area at a whole pixel: moved by whole
 * pixels, its coordinates stay exact, and nothing of it is clipped. */
static gboolean
row_movable (const StrataDisplayList *list,
             const StrataPaintRow    *row)
{
  return row->y == floorf (row->y) && fabsf (row->y) < 4194304.f &&
         row->y >= list->area_y && row->y + row->h <= list->area_y + list->area_height;
}

/* The last frame's drawing of @row, or NULL if it must be painted anew. */
const KeptRow *
strata_painter_kept_find (StrataPainter           *self,
                          const StrataDisplayList *list,
                          const StrataPaintRow    *row)
{
  guint i;

  if (!self->kept_valid || !row_movable (list, row))
    return NULL;
  i = GPOINTER_TO_UINT (g_hash_table_lookup (self->kept_of, GUINT_TO_POINTER (row->channel)));
  return i > 0 ? &g_array_index (self->kept, KeptRow, i - 1) : NULL;
}

/* @kept's rectangles and labels onto @list at @row's height, as painting
 * the row anew would put them there. */
void
strata_painter_kept_draw (StrataPainter        *self,
                          StrataDisplayList    *list,
                          const StrataPaintRow *row,
                          const KeptRow        *kept)
{
  float dy = row->y - kept->y;
  guint r0 = list->rects->len, t0 = list->texts->len;

  /* (An array with nothing in it may have no data at all.) */
  if (kept->n_rects > 0)
    {
      StrataPaintRect *rects;

      g_array_append_vals (list->rects, &g_array_index (self->kept_rects, StrataPaintRect, kept->rect0),
                           kept->n_rects);
      rects = &g_array_index (list->rects, StrataPaintRect, r0);
      for (guint i = 0; dy != 0 && i < kept->n_rects; i++)
        rects[i].y += dy;
    }
  if (kept->n_texts > 0)
    {
      StrataPaintText *texts;

      g_array_append_vals (list->texts, &g_array_index (self->kept_texts, StrataPaintText, kept->text0),
                           kept->n_texts);
      texts = &g_array_index (list->texts, StrataPaintText, t0);
      for (guint i = 0; i < kept->n_texts; i++)
        {
          texts[i].y += dy;
          /* Labels are the pool's strings: found again, in case it
           * moved them. */
          texts[i].text = strata_string_pool_get (self->strings, texts[i].string);
        }
    }
  list->n_items += kept->n_items;
  list->n_folded += kept->n_folded;
  self->n_drawn_again++;
  strata_painter_kept_note (self, list, row, r0, t0, kept->n_items, kept->n_folded);
}

/* @row has just been drawn, its rectangles from @rect0 and its labels
 * from @text0 of @list to their ends: kept for the next frame if it can
 * be drawn again. */
void
strata_painter_kept_note (StrataPainter           *self,
                          const StrataDisplayList *list,
                          const StrataPaintRow    *row,
                          guint                    rect0,
                          guint                    text0,
                          guint                    n_items,
                          guint                    n_folded)
{
  KeptRow kept;

  if (!self->keeping_on || !row_movable (list, row))
    return;

  /* Every label of a row is one of the pool's strings: a text of the
   * list's own would not outlive the list's next clearing. */
  for (guint i = text0; i < list->texts->len; i++)
    if (g_array_index (list->texts, StrataPaintText, i).string == STRATA_STRING_NONE)
      return;

  kept.channel = row->channel;
  kept.y = row->y;
  kept.rect0 = rect0;
  kept.n_rects = list->rects->len - rect0;
  kept.text0 = text0;
  kept.n_texts = list->texts->len - text0;
  kept.n_items = n_items;
  kept.n_folded = n_folded;
  g_array_append_val (self->keeping, kept);
}
