/* strata-fold-reference.c
 *
 * The painter's first fold, kept as the oracle of the fast one: each item
 * classified and folded on its own into the columns it covers
 * (strata_painter_paint_item()), and each column's colours stacked by the share they
 * cover (strata_painter_emit_lane()). test-painter-fold checks that the fast fold gives
 * the same display list, bit for bit (strata-painter-private.h).
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

static void
slot_add (Slot    *slots,
          guint    n_slots,
          guint32  rgba,
          float    cover)
{
  guint smallest = 0;

  for (guint i = 0; i < n_slots; i++)
    if (slots[i].cover > 0 && slots[i].rgba == rgba)
      {
        slots[i].cover += cover;
        return;
      }

  /* A free slot, or the smallest one if this beats it: the column keeps
   * the colours that cover most of it. */
  for (guint i = 0; i < n_slots; i++)
    {
      if (slots[i].cover <= 0)
        {
          slots[i].rgba = rgba;
          slots[i].cover = cover;
          return;
        }
      if (slots[i].cover < slots[smallest].cover)
        smallest = i;
    }

  if (cover > slots[smallest].cover)
    {
      slots[smallest].rgba = rgba;
      slots[smallest].cover = cover;
    }
}

static void
lane_touch (LaneColumns *lane,
            gint         c0,
            gint         c1)
{
  lane->lo = MIN (lane->lo, c0);
  lane->hi = MAX (lane->hi, c1);
}

/* Spreads an interval over the columns it covers, at @density of each. */
static void
lane_add_interval (LaneColumns *lane,
                   guint        width,
                   double       x0,
                   double       x1,
                   double       density,
                   gboolean     background,
                   guint32      rgba)
{
  gint c0, c1;

  if (x1 <= 0 || x0 >= width || x1 <= x0)
    return;

  x0 = MAX (x0, 0);
  x1 = MIN (x1, (double) width);
  c0 = (gint) x0;
  c1 = MIN ((gint) ceil (x1), (gint) width);
  if (c1 <= c0)
    c1 = c0 + 1;

  for (gint c = c0; c < c1; c++)
    {
      Column *col = &lane->columns[c];
      float cover = (float) ((MIN (x1, c + 1.0) - MAX (x0, (double) c)) * density);

      if (cover <= 0)
        cover = 1e-6f;
      if (background)
        {
          slot_add (col->bg, N_BG_SLOTS, rgba, cover);
          col->bg_total += cover;
        }
      else
        {
          slot_add (col->fg, N_FG_SLOTS, rgba, cover);
          col->fg_total += cover;
        }
    }

  lane_touch (lane, c0, c1);
}

static void
lane_add_instant (LaneColumns *lane,
                  guint        width,
                  double       x,
                  float        weight,
                  guint32      rgba)
{
  gint c;

  if (x < 0 || x >= width)
    return;

  c = (gint) x;
  slot_add (lane->columns[c].fg, N_FG_SLOTS, rgba, weight);
  lane->columns[c].fg_total += weight;
  lane_touch (lane, c, c + 1);
}

/* Layers: runs of identical columns become one rectangle ---------------- */

static int
by_cover_descending (gconstpointer pa,
                     gconstpointer pb)
{
  const Slot *a = pa, *b = pb;

  if (a->cover != b->cover)
    return a->cover > b->cover ? -1 : 1;
  return a->rgba < b->rgba ? -1 : a->rgba > b->rgba;
}

static inline float
column_foreground_height (const Column *col,
                          float         lane_h)
{
  float height;

  if (col->fg_total <= 0)
    return 0;
  height = round_half_away (MIN (col->fg_total, 1.f) * lane_h);
  return CLAMP (height, MIN (2.f, lane_h), lane_h);
}

/* The foreground of a column: its colours stacked from the bottom of the
 * lane, the one covering most at the bottom, as high in all as the share
 * of the pixel they cover (at least 2 pixels, so nothing vanishes). */
static void
stack_column (Layer        *layer,
              gint32        x,
              const Column *col,
              float         lane_y,
              float         lane_h,
              float         height)
{
  Slot slots[N_FG_SLOTS];
  guint n = 0;
  float sum = 0, acc = 0, prev = 0;

  for (guint i = 0; i < N_FG_SLOTS; i++)
    if (col->fg[i].cover > 0)
      {
        slots[n++] = col->fg[i];
        sum += col->fg[i].cover;
      }
  if (n == 0)
    return;

  /* One colour, the usual case: the loop below for one slot (the same
   * float operations, so the same pixels), without the sort. */
  if (n == 1)
    {
      float top = round_half_away (height * sum / sum);

      if (top > 0)
        strata_painter_layer_put (layer, x, lane_y + lane_h - top, top, slots[0].rgba);
      return;
    }

  /* At most N_FG_SLOTS: an insertion sort, not qsort's call per
   * comparison (this runs for every column of every row). */
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && by_cover_descending (&slots[j], &slots[j - 1]) < 0; j--)
      {
        Slot t = slots[j];

        slots[j] = slots[j - 1];
        slots[j - 1] = t;
      }

  for (guint i = 0; i < n; i++)
    {
      float top;

      acc += slots[i].cover;
      top = round_half_away (height * acc / sum);
      if (top > prev)
        strata_painter_layer_put (layer, x, lane_y + lane_h - top, top - prev, slots[i].rgba);
      prev = top;
    }
}

static inline const Slot *
biggest_slot (const Slot *slots,
              guint       n_slots)
{
  const Slot *best = NULL;

  for (guint i = 0; i < n_slots; i++)
    if (slots[i].cover > 0 && (best == NULL || slots[i].cover > best->cover))
      best = &slots[i];
  return best;
}

void
strata_painter_emit_lane (StrataPainter     *self,
                          Lane               which,
                          const RowGeometry *geo,
                          float              area_x)
{
  LaneColumns *lane = &self->lanes[which];
  Layer *bg = &self->layers[LAYER_BACKGROUND];
  Layer *fg = &self->layers[which == LANE_MAIN ? LAYER_FOREGROUND : LAYER_NESTED];
  Layer *ticks = &self->layers[LAYER_TICKS];
  Column prev;
  gboolean have_prev = FALSE;

  for (gint x = lane->lo; x < lane->hi; x++)
    {
      Column *col = &lane->columns[x];

      /* A column like the one before it puts the same rectangles, so it
       * only extends the runs the one before left open (closing already
       * removed every other): an activity many pixels wide costs one
       * comparison per pixel, not a fold. */
      if (have_prev && memcmp (col, &prev, sizeof prev) == 0)
        {
          Layer *used[] = { bg, fg, ticks };
          gint x_end = x + 1;

          /* The whole stretch of such columns at once. */
          while (x_end < lane->hi && memcmp (&lane->columns[x_end], &prev, sizeof prev) == 0)
            x_end++;

          for (guint i = 0; i < G_N_ELEMENTS (used); i++)
            for (guint r = 0; r < used[i]->n_open; r++)
              {
                Run *run = &used[i]->open[r];

                if (run->x1 == x)
                  run->x1 = x_end;
              }
          x = x_end - 1;
          continue;
        }
      prev = *col;
      have_prev = TRUE;

      switch (which)
        {
        case LANE_MAIN:
          {
            float fg_h = column_foreground_height (col, geo->main_h);
            const Slot *b = biggest_slot (col->bg, N_BG_SLOTS);

            if (b != NULL && fg_h < geo->main_h)
              strata_painter_layer_put (bg, x, geo->main_y, geo->main_h, b->rgba);
            stack_column (fg, x, col, geo->main_y, geo->main_h, fg_h);
            strata_painter_layer_close (self, bg, x, area_x, geo->clip_y0, geo->clip_y1);
            strata_painter_layer_close (self, fg, x, area_x, geo->clip_y0, geo->clip_y1);
          }
          break;

        case LANE_NESTED:
          stack_column (fg, x, col, geo->nested_y, geo->nested_h,
                        column_foreground_height (col, geo->nested_h));
          strata_painter_layer_close (self, fg, x, area_x, geo->clip_y0, geo->clip_y1);
          break;

        case LANE_INSTANTS:
        case N_LANES:
        default:
          {
            const Slot *t = biggest_slot (col->fg, N_FG_SLOTS);

            if (t != NULL)
              strata_painter_layer_put (ticks, x, geo->ticks_y, geo->ticks_h, t->rgba);
            strata_painter_layer_close (self, ticks, x, area_x, geo->clip_y0, geo->clip_y1);
          }
          break;
        }
    }

  /* The next row starts from empty columns: one clearing of the columns
   * touched, not a call for each. */
  if (lane->lo < lane->hi)
    memset (&lane->columns[lane->lo], 0, (gsize) (lane->hi - lane->lo) * sizeof (Column));

  for (guint i = 0; i < N_LAYERS; i++)
    strata_painter_layer_close (self, &self->layers[i], -1, area_x, geo->clip_y0, geo->clip_y1);

  lane->lo = G_MAXINT;
  lane->hi = G_MININT;
}

/* One item into its row's lanes, and its label where it fits. */
void
strata_painter_paint_item (StrataPainter        *self,
                           StrataDisplayList    *list,
                           const StrataChannel  *channel,
                           const RowGeometry    *row_geo,
                           const StrataZoomItem *item)
{
  guint width = (guint) list->area_width;
  double npp = list->ns_per_pixel;
  const RowGeometry geo = *row_geo;
  double x0 = (item->start - list->from) / npp;
  double x1 = (item->end - list->from) / npp;
  gboolean aggregate = (item->flags & STRATA_ZOOM_ITEM_AGGREGATE) != 0;
  guint32 rgba;
  float weight;
  Lane lane;
  ItemClass klass;

  /* A chunk's span holds items beyond the viewport too. */
  if (x1 < 0 || x0 > width || (x1 == 0 && item->end > item->start))
    return;
  list->n_folded++;

  klass = strata_painter_classify (self, item, &lane, &rgba, &weight);
  if (klass == CLASS_NONE)
    return;

  if (klass == CLASS_INSTANT)
    {
      lane_add_instant (&self->lanes[LANE_INSTANTS], width, x0,
                        weight * MAX (item->count, 1u), rgba);
      return;
    }

  if (item->end <= item->start)
    return;

  {
    /* An aggregate covers its span only as much as its members are
     * busy in it: density shows when zoomed out. */
    double density = aggregate ? CLAMP ((double) item->busy / (item->end - item->start), 0, 1) : 1;

    lane_add_interval (&self->lanes[lane], width, x0, x1, density,
                       klass == CLASS_BACKGROUND, rgba);

    /* An aggregate that idle or sleep dominates, but of several
     * members, hides activities too short to tell apart: its busy
     * time counts the idle too, so their share is not known. A sliver
     * of the lowest height says they are there. */
    if (aggregate && klass == CLASS_BACKGROUND && item->count > 1)
      lane_add_interval (&self->lanes[lane], width, x0, x1, BRIEF_COVER, FALSE,
                         strata_painter_schemes[self->style.scheme].brief);
  }

  if (!aggregate && lane == LANE_MAIN && klass == CLASS_FOREGROUND)
    {
      double vx0 = MAX (x0, 0), vx1 = MIN (x1, (double) width);
      guint32 label;

      if (vx1 - vx0 < MIN_LABEL_WIDTH || self->merging)
        return;
      label = strata_painter_label_for (self, channel, item);
      if (label != STRATA_STRING_NONE)
        strata_painter_add_text (list, list->area_x + (float) vx0 + 4, geo.main_y + geo.main_h / 2,
                                 (float) (vx1 - vx0) - 8, strata_painter_text_color_on (rgba), label,
                                 strata_string_pool_get (self->strings, label),
                                 STRATA_PAINT_TEXT_ACTIVITY, STRATA_PAINT_ALIGN_LEFT);
    }
}

/* Where the lane of items[@first] ends in a span of @n items: every span,
 * pre-calculated, decoded or computed on demand, holds its channel's
 * lanes one after the other in the order of their numbers (the tree
 * sorts a chunk's lanes so, and the on-demand code and the raw store
 * walk them so), so the first item of a later lane is found by
 * bisection, not by a walk over the span. */
guint
strata_painter_lane_end (const StrataZoomItem *items,
                         guint                 first,
                         guint                 n)
{
  guint lane = strata_zoom_item_lane (&items[first]);
  guint lo = first + 1, hi = n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (strata_zoom_item_lane (&items[mid]) != lane)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

void
strata_painter_paint_items (StrataPainter        *self,
                            StrataDisplayList    *list,
                            const StrataChannel  *channel,
                            const RowGeometry    *geo,
                            const StrataZoomItem *items,
                            guint                 first,
                            guint                 end)
{
  if (!self->reference_fold)
    {
      strata_painter_fold_items (self, list, channel, geo, items, first, end);
      return;
    }

  for (guint i = first; i < end; i++)
    {
      const StrataZoomItem *item = &items[i];

      if (item->end < list->from || item->start > list->to)
        continue;
      strata_painter_paint_item (self, list, channel, geo, item);
    }
}
