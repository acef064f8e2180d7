/* strata-column-fold.c
 *
 * A column keeps the few colours that cover most of it and how much of
 * it they cover. Background colours (idle, sleeping, unknown) fill the
 * lane; foreground colours (a task, running, runnable, blocked, an IRQ)
 * are stacked from the bottom to a height that is the share of the pixel
 * they cover. An aggregate of trivial activities counts for its busy time,
 * not its span, so a zoomed-out CPU that runs 10% of the time shows short
 * bars and a saturated one full ones. The fold and the emission run for
 * every item and every column of a dense frame, so this is their fast
 * form (strata_painter_fold_items(), emit_lane_fast()): items classified once per class,
 * runs of a lane folded at once, columns emitted in flat slots.
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

/* strata_painter_emit_lane() with what it calls made in place: the background and the
 * ticks put at most one rectangle a column, so each keeps at most one
 * open run, extended or ended at the next column without a search; a
 * column is compared with the one before it in place, not with a copy.
 * The same rectangles in the same order, from the same values (where an
 * operation is left out, it is one whose result is known, as said there);
 * strata_painter_emit_lane() stays as the reference (strata_painter_set_reference_fold()). */

/* biggest_slot() for slots in use first (as the fold leaves them), by
 * index, the first of equals, without a branch per slot: NULL when the
 * first is free. */
static inline const Slot *
biggest_flat (const Slot *slots,
              guint       n_slots)
{
  guint best = 0;

  for (guint i = 1; i < n_slots; i++)
    best = slots[i].cover > slots[best].cover ? i : best;
  return slots[0].cover > 0 ? &slots[best] : NULL;
}

/* column_foreground_height() with round_half_away_flat(). */
static inline float
fg_height (const Column *col,
           float         lane_h)
{
  float height;

  if (col->fg_total <= 0)
    return 0;
  height = round_half_away_flat (MIN (col->fg_total, 1.f) * lane_h);
  return CLAMP (height, MIN (2.f, lane_h), lane_h);
}

/* strata_painter_layer_put() and then strata_painter_layer_close() at column @x, for a layer that gets
 * at most this one put a column; @put FALSE for none. The background's
 * runs are emitted with strata_painter_layer_emit() (which hatches), the ticks' with
 * run_emit(). */
static G_ALWAYS_INLINE inline void
single_put (StrataPainter *self,
            Layer         *layer,
            gboolean       background,
            gboolean       put,
            gint32         x,
            float          y,
            float          h,
            guint32        rgba,
            float          area_x,
            float          clip_y0,
            float          clip_y1)
{
  Run *open = &layer->open[0];

  put = put && h > 0 && rgba_alpha (rgba) != 0;
  if (layer->n_open == 1)
    {
      if (put && open->x1 == x && open->y == y && open->h == h && open->rgba == rgba)
        {
          open->x1 = x + 1;
          return;
        }
      if (background)
        strata_painter_layer_emit (self, layer, open, area_x, clip_y0, clip_y1);
      else
        run_emit (layer, open, area_x, clip_y0, clip_y1);
      layer->n_open = 0;
    }
  if (put)
    {
      open->x0 = x;
      open->x1 = x + 1;
      open->y = y;
      open->h = h;
      open->rgba = rgba;
      layer->n_open = 1;
    }
}

static G_ALWAYS_INLINE inline void
fg_put (Layer   *layer,
        gint32   x,
        float    y,
        float    h,
        guint32  rgba)
{
  if (h <= 0 || rgba_alpha (rgba) == 0)
    return;

  for (guint i = 0; i < layer->n_open; i++)
    {
      Run *open = &layer->open[i];

      if (open->x1 == x && open->y == y && open->h == h && open->rgba == rgba)
        {
          open->x1 = x + 1;
          return;
        }
    }
  g_assert (layer->n_open < MAX_OPEN_RUNS);
  layer->open[layer->n_open].x0 = x;
  layer->open[layer->n_open].x1 = x + 1;
  layer->open[layer->n_open].y = y;
  layer->open[layer->n_open].h = h;
  layer->open[layer->n_open].rgba = rgba;
  layer->n_open++;
}

/* strata_painter_layer_close() at column @x >= 0 for a layer that is not the
 * background, in one pass: the runs column @x did not extend are emitted
 * in the order they are open, the others stay open in theirs. */
static G_ALWAYS_INLINE inline void
fg_close (Layer  *layer,
          gint32  x,
          float   area_x,
          float   clip_y0,
          float   clip_y1)
{
  guint kept = 0, n = layer->n_open;

  for (guint i = 0; i < n; i++)
    {
      if (layer->open[i].x1 == x + 1)
        layer->open[kept++] = layer->open[i];
      else
        run_emit (layer, &layer->open[i], area_x, clip_y0, clip_y1);
    }
  layer->n_open = kept;
}

/* Orders two slots as by_cover_descending() does, without its branches
 * (which way it goes is a coin toss in a dense row). */
static G_ALWAYS_INLINE inline void
slot_order (Slot *a,
            Slot *b)
{
  gboolean swap = b->cover > a->cover || (b->cover == a->cover && b->rgba < a->rgba);
  Slot lo = swap ? *a : *b, hi = swap ? *b : *a;

  *a = hi;
  *b = lo;
}

/* stack_column() with fg_put(). The slots in use are the first ones (a
 * cover, once added, stays above zero), and their order is total (no two
 * share a colour), so a sorting network orders them as the insertion
 * sort does. The last colour's top is the height itself: stack_column()
 * rounds height * acc / sum, acc being the same covers as sum added in
 * another order, so within a few ulps of it (at most 3 additions of
 * positive floats, each off by half an ulp), which keeps the quotient
 * within 2^-20 height of height, a whole number far below 2^19: it rounds
 * back to it, as the one-colour case below says too. */
static G_ALWAYS_INLINE inline void
fg_stack (Layer        *layer,
          gint32        x,
          const Column *col,
          float         lane_y,
          float         lane_h,
          float         height)
{
  Slot slots[N_FG_SLOTS];
  guint n;
  float sum, acc, prev, top;

  G_STATIC_ASSERT (N_FG_SLOTS == 3);

  if (col->fg[0].cover <= 0)
    return;

  /* One colour: stack_column() rounds height * sum / sum, which is
   * height itself here, height being a whole number of pixels (lane
   * heights are) far below 2^22: the product and the quotient are each
   * within half an ulp, so the quotient is within 2^-23 height of it,
   * and rounds back to it. No division, then. */
  if (col->fg[1].cover <= 0)
    {
      if (height > 0)
        fg_put (layer, x, lane_y + lane_h - height, height, col->fg[0].rgba);
      return;
    }

  slots[0] = col->fg[0];
  slots[1] = col->fg[1];
  n = col->fg[2].cover > 0 ? 3 : 2;
  sum = slots[0].cover + slots[1].cover;
  if (n == 3)
    {
      slots[2] = col->fg[2];
      sum += slots[2].cover;
      slot_order (&slots[1], &slots[2]);
      slot_order (&slots[0], &slots[1]);
      slot_order (&slots[1], &slots[2]);
    }
  else
    slot_order (&slots[0], &slots[1]);

  acc = slots[0].cover;
  top = round_half_away_flat (height * acc / sum);
  if (top > 0)
    fg_put (layer, x, lane_y + lane_h - top, top, slots[0].rgba);
  prev = top;
  if (n == 3)
    {
      acc += slots[1].cover;
      top = round_half_away_flat (height * acc / sum);
      if (top > prev)
        fg_put (layer, x, lane_y + lane_h - top, top - prev, slots[1].rgba);
      prev = top;
    }
  top = height;
  if (top > prev)
    fg_put (layer, x, lane_y + lane_h - top, top - prev, slots[n - 1].rgba);
}

static void
emit_lane_fast (StrataPainter     *self,
                Lane               which,
                const RowGeometry *geo,
                float              area_x)
{
  LaneColumns *lane = &self->lanes[which];
  Column *cols = lane->columns;
  Layer *bg = &self->layers[LAYER_BACKGROUND];
  Layer *fg = &self->layers[which == LANE_MAIN ? LAYER_FOREGROUND : LAYER_NESTED];
  Layer *ticks = &self->layers[LAYER_TICKS];
  const float clip_y0 = geo->clip_y0, clip_y1 = geo->clip_y1;

  g_assert (bg->n_open == 0 && fg->n_open == 0 && ticks->n_open == 0);

  /* A column puts at most N_FG_SLOTS foreground rectangles and one tick,
   * and every rectangle emitted was a put. */
  if (lane->lo < lane->hi)
    {
      layer_reserve (fg, N_FG_SLOTS * (guint) (lane->hi - lane->lo));
      layer_reserve (ticks, (guint) (lane->hi - lane->lo));
    }

  for (gint x = lane->lo; x < lane->hi; x++)
    {
      const Column *col = &cols[x];

      /* Like the column before: the same puts, so only extend the runs
       * it left open, for the whole stretch of such columns. */
      if (x > lane->lo && memcmp (col, col - 1, sizeof *col) == 0)
        {
          Layer *used[] = { bg, fg, ticks };
          gint x_end = x + 1;

          while (x_end < lane->hi && memcmp (&cols[x_end], col, sizeof *col) == 0)
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

      switch (which)
        {
        case LANE_MAIN:
          {
            float fg_h = fg_height (col, geo->main_h);
            const Slot *b = biggest_flat (col->bg, N_BG_SLOTS);

            single_put (self, bg, TRUE, b != NULL && fg_h < geo->main_h, x, geo->main_y, geo->main_h,
                        b != NULL ? b->rgba : 0, area_x, clip_y0, clip_y1);
            fg_stack (fg, x, col, geo->main_y, geo->main_h, fg_h);
            fg_close (fg, x, area_x, clip_y0, clip_y1);
          }
          break;

        case LANE_NESTED:
          fg_stack (fg, x, col, geo->nested_y, geo->nested_h,
                    fg_height (col, geo->nested_h));
          fg_close (fg, x, area_x, clip_y0, clip_y1);
          break;

        case LANE_INSTANTS:
        case N_LANES:
        default:
          {
            const Slot *t = biggest_flat (col->fg, N_FG_SLOTS);

            single_put (self, ticks, FALSE, t != NULL, x, geo->ticks_y, geo->ticks_h,
                        t != NULL ? t->rgba : 0, area_x, clip_y0, clip_y1);
          }
          break;
        }
    }

  if (lane->lo < lane->hi)
    memset (&cols[lane->lo], 0, (gsize) (lane->hi - lane->lo) * sizeof (Column));

  for (guint i = 0; i < N_LAYERS; i++)
    strata_painter_layer_close (self, &self->layers[i], -1, area_x, clip_y0, clip_y1);

  lane->lo = G_MAXINT;
  lane->hi = G_MININT;
}

/* The three lanes of a row, the way the fold asks. */
void
strata_painter_emit_lanes (StrataPainter     *self,
                           const RowGeometry *geo,
                           float              area_x)
{
  for (guint l = 0; l < N_LANES; l++)
    if (self->reference_fold)
      strata_painter_emit_lane (self, l, geo, area_x);
    else
      emit_lane_fast (self, l, geo, area_x);
}

/* Rows ------------------------------------------------------------------- */

/* The fold ------------------------------------------------------------------
 *
 * What strata_painter_paint_item() does, item after item, with the same floating-point
 * operations in the same order (so the same columns, to the bit), but
 * without the work that does not depend on the item: the class, lane and
 * colour come from a table made once per scheme by asking strata_painter_classify()
 * itself; a slot is found with the columns' slots unrolled in place; a
 * division is skipped where its operand is one already divided (an item
 * that starts where the one before ended, an instant's end). strata_painter_paint_item()
 * stays the oracle: strata_painter_set_reference_fold() paints with it. */

static void
build_classes (StrataPainter *self)
{
  if (self->classes_scheme == (gint) self->style.scheme &&
      self->task_colors_scheme == self->style.scheme)
    return;

  for (guint k = 0; k < CLASS_KINDS; k++)
    for (guint st = 0; st < CLASS_STATES; st++)
      {
        KindClass *kc = &self->classes[k * CLASS_STATES + st];
        StrataZoomItem item = { 0 };
        Lane lane, nested_lane;
        guint32 rgba, nested_rgba;
        float weight, nested_weight;

        item.kind = k;
        item.state = st;
        kc->klass = strata_painter_classify (self, &item, &lane, &rgba, &weight);
        kc->lane = lane;
        kc->rgba = rgba;
        kc->weight = weight;
        kc->task = k == STRATA_ACTIVITY_TASK;

        item.flags = 1 << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT;
        strata_painter_classify (self, &item, &nested_lane, &nested_rgba, &nested_weight);
        kc->by_depth = nested_lane != lane;
        g_assert (!kc->by_depth || nested_lane == LANE_NESTED);
        g_assert (kc->task || (nested_rgba == rgba && nested_weight == weight));
      }
  self->classes_scheme = self->style.scheme;
}

/* slot_add() for N_FG_SLOTS, unrolled: the slots in use are always the
 * first ones (a cover, once added, stays above zero). */
static inline void
fg_slots_add (Slot    *s,
              guint32  rgba,
              float    cover)
{
  guint m;

  G_STATIC_ASSERT (N_FG_SLOTS == 3);

  if (s[0].cover > 0 && s[0].rgba == rgba)
    {
      s[0].cover += cover;
      return;
    }
  if (s[1].cover > 0 && s[1].rgba == rgba)
    {
      s[1].cover += cover;
      return;
    }
  if (s[2].cover > 0 && s[2].rgba == rgba)
    {
      s[2].cover += cover;
      return;
    }

  m = s[0].cover <= 0 ? 0 : s[1].cover <= 0 ? 1 : s[2].cover <= 0 ? 2 : 3;
  if (m < 3)
    {
      s[m].rgba = rgba;
      s[m].cover = cover;
      return;
    }

  m = s[1].cover < s[0].cover ? 1 : 0;
  if (s[2].cover < s[m].cover)
    m = 2;
  if (cover > s[m].cover)
    {
      s[m].rgba = rgba;
      s[m].cover = cover;
    }
}

/* slot_add() for N_BG_SLOTS, unrolled. */
static inline void
bg_slots_add (Slot    *s,
              guint32  rgba,
              float    cover)
{
  guint m;

  G_STATIC_ASSERT (N_BG_SLOTS == 2);

  if (s[0].cover > 0 && s[0].rgba == rgba)
    {
      s[0].cover += cover;
      return;
    }
  if (s[1].cover > 0 && s[1].rgba == rgba)
    {
      s[1].cover += cover;
      return;
    }

  if (s[0].cover <= 0 || s[1].cover <= 0)
    {
      m = s[0].cover <= 0 ? 0 : 1;
      s[m].rgba = rgba;
      s[m].cover = cover;
      return;
    }

  m = s[1].cover < s[0].cover ? 1 : 0;
  if (cover > s[m].cover)
    {
      s[m].rgba = rgba;
      s[m].cover = cover;
    }
}

static inline guint32
task_color (StrataPainter *self,
            gint32         tid)
{
  guint slot = (guint32) tid % TASK_COLOR_CACHE;

  if (G_UNLIKELY (self->task_colors[slot].rgba == 0 || self->task_colors[slot].tid != tid))
    {
      self->task_colors[slot].tid = tid;
      self->task_colors[slot].rgba = strata_paint_task_color (self->style.scheme, tid);
    }
  return self->task_colors[slot].rgba;
}

/* An interval's share of each column [@c0, @c1) it covers, at @density
 * of it, as a background or a foreground colour. A @sliver aggregate
 * (one that idle or sleep dominates, but of several members) adds the
 * sliver that says brief activities are there (see
 * strata_painter_paint_item()): the foreground slots are apart from the
 * background ones, so both go in one pass. */
static inline void
fold_columns (Column  *cols,
              gint     c0,
              gint     c1,
              double   cx0,
              double   cx1,
              double   density,
              guint32  rgba,
              gboolean background,
              gboolean sliver,
              guint32  brief)
{
  if (background)
    {
      for (gint c = c0; c < c1; c++)
        {
          double overlap = MIN (cx1, c + 1.0) - MAX (cx0, (double) c);
          float cover = (float) (overlap * density);

          if (cover <= 0)
            cover = 1e-6f;
          bg_slots_add (cols[c].bg, rgba, cover);
          cols[c].bg_total += cover;
          if (sliver)
            {
              float b = (float) (overlap * BRIEF_COVER);

              if (b <= 0)
                b = 1e-6f;
              fg_slots_add (cols[c].fg, brief, b);
              cols[c].fg_total += b;
            }
        }
    }
  else
    {
      for (gint c = c0; c < c1; c++)
        {
          float cover = (float) ((MIN (cx1, c + 1.0) - MAX (cx0, (double) c)) * density);

          if (cover <= 0)
            cover = 1e-6f;
          fg_slots_add (cols[c].fg, rgba, cover);
          cols[c].fg_total += cover;
        }
    }
}

/* Items [first, end) of a row into its lanes, as strata_painter_paint_items() would. */
void
strata_painter_fold_items (StrataPainter        *self,
                           StrataDisplayList    *list,
                           const StrataChannel  *channel,
                           const RowGeometry    *geo,
                           const StrataZoomItem *items,
                           guint                 first,
                           guint                 end)
{
  const gint64 from = list->from, to = list->to;
  const double npp = list->ns_per_pixel;
  const guint width = (guint) list->area_width;
  const double dwidth = width;
  const guint32 brief = strata_painter_schemes[self->style.scheme].brief;
  gint lo[N_LANES], hi[N_LANES];
  /* The last division: an item that starts where the one before it ended
   * has its x0 already. */
  gint64 last_t = G_MININT64;
  double last_x = 0;
  guint n_folded = 0;

  /* The task colours are this scheme's: strata_painter_classify() reset them if not. */
  build_classes (self);
  g_assert (self->task_colors_scheme == self->style.scheme);

  for (guint l = 0; l < N_LANES; l++)
    {
      lo[l] = self->lanes[l].lo;
      hi[l] = self->lanes[l].hi;
    }

  for (guint i = first; i < end; i++)
    {
      const StrataZoomItem *item = &items[i];
      const KindClass *kc;
      double x0, x1, density, cx0, cx1;
      gboolean aggregate;
      guint32 rgba;
      Column *cols;
      gint c0, c1;
      guint lane;

      if (item->end < from || item->start > to)
        continue;

      if (G_UNLIKELY (item->kind >= CLASS_KINDS || item->state >= CLASS_STATES))
        {
          strata_painter_paint_item (self, list, channel, geo, item);
          continue;
        }

      x0 = item->start == last_t ? last_x : (item->start - from) / npp;
      x1 = item->end == item->start ? x0 : (item->end - from) / npp;
      last_t = item->end;
      last_x = x1;

      /* A chunk's span holds items beyond the viewport too. */
      if (x1 < 0 || x0 > width || (x1 == 0 && item->end > item->start))
        continue;
      n_folded++;

      kc = &self->classes[item->kind * CLASS_STATES + item->state];
      if (kc->klass == CLASS_NONE)
        continue;
      rgba = kc->task ? task_color (self, item->arg) : kc->rgba;

      if (kc->klass == CLASS_INSTANT)
        {
          float w;

          if (x0 < 0 || x0 >= width)
            continue;
          c0 = (gint) x0;
          w = kc->weight * MAX (item->count, 1u);
          cols = self->lanes[LANE_INSTANTS].columns;
          fg_slots_add (cols[c0].fg, rgba, w);
          cols[c0].fg_total += w;
          lo[LANE_INSTANTS] = MIN (lo[LANE_INSTANTS], c0);
          hi[LANE_INSTANTS] = MAX (hi[LANE_INSTANTS], c0 + 1);
          continue;
        }

      if (item->end <= item->start)
        continue;

      /* lane_add_interval()'s bounds. An interval that does not reach
       * into the area has no label either (it would be under 0 px). */
      if (x1 <= 0 || x0 >= width || x1 <= x0)
        continue;
      cx0 = MAX (x0, 0);
      cx1 = MIN (x1, dwidth);
      c0 = (gint) cx0;
      /* (gint) ceil (cx1), cx1 being positive */
      c1 = (gint) cx1;
      c1 += (double) c1 < cx1;
      c1 = MIN (c1, (gint) width);
      if (c1 <= c0)
        c1 = c0 + 1;

      aggregate = (item->flags & STRATA_ZOOM_ITEM_AGGREGATE) != 0;
      density = aggregate ? CLAMP ((double) item->busy / (item->end - item->start), 0, 1) : 1;
      lane = kc->by_depth && (item->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK) != 0 ? LANE_NESTED : kc->lane;
      cols = self->lanes[lane].columns;

      fold_columns (cols, c0, c1, cx0, cx1, density, rgba, kc->klass == CLASS_BACKGROUND,
                    aggregate && item->count > 1, brief);
      lo[lane] = MIN (lo[lane], c0);
      hi[lane] = MAX (hi[lane], c1);

      if (!aggregate && lane == LANE_MAIN && kc->klass == CLASS_FOREGROUND)
        {
          double vx0 = MAX (x0, 0), vx1 = MIN (x1, dwidth);
          guint32 label;

          if (vx1 - vx0 < MIN_LABEL_WIDTH || self->merging)
            continue;
          label = strata_painter_label_for (self, channel, item);
          if (label != STRATA_STRING_NONE)
            strata_painter_add_text (list, list->area_x + (float) vx0 + 4, geo->main_y + geo->main_h / 2,
                                     (float) (vx1 - vx0) - 8, strata_painter_text_color_on (rgba), label,
                                     strata_string_pool_get (self->strings, label),
                                     STRATA_PAINT_TEXT_ACTIVITY, STRATA_PAINT_ALIGN_LEFT);
        }
    }

  for (guint l = 0; l < N_LANES; l++)
    {
      self->lanes[l].lo = MIN (self->lanes[l].lo, lo[l]);
      self->lanes[l].hi = MAX (self->lanes[l].hi, hi[l]);
    }
  list->n_folded += n_folded;
}
