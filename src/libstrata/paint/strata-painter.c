/* strata-painter.c
 *
 * How a frame is painted. The rows that fit in the viewport are queried
 * from the zoom tree in one call, at the finest level whose pixel is at
 * least the screen's (strata_zoom_geometry_level_for_frame()). Every item
 * of a row is then folded into the pixel columns it covers
 * (strata-column-fold.c), in one of three lanes: the row's main lane (a
 * CPU's tasks, a thread's states), the nested lane (interrupts inside a
 * task, drawn as a band at the bottom of a CPU row) and the instants
 * (wakeups, events, deaths, drawn as ticks at the top). Then the row's
 * background, its name, the grid, the ruler and the legend. A row the
 * last frame drew for the same view in time is drawn again from it,
 * moved, without a query (strata-painter-kept-rows.c). The rows
 * come from strata-painter-rows.c, the colours from strata-palette.c,
 * the ruler's steps from strata-ruler.c, and what is drawn goes into a
 * display list (strata-display-list.c).
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

/**
 * strata_paint_style_init:
 *
 * The default frame: 20-pixel rows, a 190-pixel name column, a ruler and
 * a legend, light colours.
 */
void
strata_paint_style_init (StrataPaintStyle *style)
{
  g_return_if_fail (style != NULL);

  style->row_height = 20;
  style->name_width = 190;
  style->ruler_height = 24;
  style->legend_height = 22;
  style->scheme = STRATA_PAINT_SCHEME_LIGHT;
}

/**
 * strata_painter_new:
 * @strings: the pool the channels' and activities' labels are in
 * @tree: the zoom tree to draw; it must outlive the painter
 *
 * Give it the channels with strata_painter_set_channels(), the trace's
 * span with strata_painter_set_extent() and rows with
 * strata_painter_set_rows().
 */
StrataPainter *
strata_painter_new (StrataStringPool *strings,
                    StrataZoomTree   *tree)
{
  StrataPainter *self;

  g_return_val_if_fail (strings != NULL && tree != NULL, NULL);

  self = g_new0 (StrataPainter, 1);
  self->strings = strata_string_pool_ref (strings);
  self->tree = tree;
  strata_paint_style_init (&self->style);
  self->rows = strata_spilled_array_new (sizeof (guint32));
  self->instances = g_ptr_array_new_with_free_func (g_free);
  self->names = strata_spilled_array_new (sizeof (guint32));
  self->cpu_names = g_hash_table_new (NULL, NULL);
  self->shown = strata_spilled_array_new (sizeof (guint8));
  self->unanswered = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->newly_shown = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->placed = strata_spilled_array_new (sizeof (guint32));
  self->classes_scheme = -1;
  self->query = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->result = strata_zoom_result_new ();
  self->partial = strata_zoom_result_new ();
  self->row_of = strata_spilled_array_new (sizeof (gint32));
  for (guint i = 0; i < N_LAYERS; i++)
    {
      self->layers[i].done = g_array_new (FALSE, FALSE, sizeof (StrataPaintRect));
    }
  self->members = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
  strata_painter_kept_init (self);

  return self;
}

/**
 * strata_painter_new_for_trace:
 * @trace: a trace loaded with its zoom tree
 *
 * A painter for @trace's channels, span and tree, showing the default
 * rows. It holds a reference on @trace.
 */
StrataPainter *
strata_painter_new_for_trace (StrataTrace *trace)
{
  StrataZoomTree *tree;
  StrataPainter *self;
  const StrataSourceInfo *info;
  const StrataChannel *channels;
  guint n_channels;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);
  tree = strata_trace_get_zoom_tree (trace);
  g_return_val_if_fail (tree != NULL, NULL);

  self = strata_painter_new (strata_trace_get_strings (trace), tree);
  self->trace = g_object_ref (trace);
  info = strata_trace_get_info (trace);
  if (info != NULL && info->instances != NULL)
    for (guint i = 0; i < info->instances->len; i++)
      g_ptr_array_add (self->instances, g_strdup (g_ptr_array_index (info->instances, i)));
  channels = strata_trace_get_channels (trace, &n_channels);
  strata_painter_set_channels (self, channels, n_channels);
  strata_painter_set_extent (self, strata_trace_get_start (trace), strata_trace_get_end (trace));

  strata_painter_update_default_rows (self, NULL);
  strata_painter_show_default_rows (self);

  return self;
}

void
strata_painter_free (StrataPainter *self)
{
  if (self == NULL)
    return;

  for (guint i = 0; i < N_LAYERS; i++)
    {
      g_array_unref (self->layers[i].done);
    }
  for (guint i = 0; i < N_LANES; i++)
    g_free (self->lanes[i].columns);
  strata_spilled_array_free (self->rows);
  g_ptr_array_unref (self->instances);
  strata_spilled_array_free (self->names);
  g_hash_table_unref (self->cpu_names);
  strata_spilled_array_free (self->shown);
  g_array_unref (self->unanswered);
  g_array_unref (self->newly_shown);
  strata_spilled_array_free (self->placed);
  g_array_unref (self->query);
  strata_zoom_result_free (self->result);
  strata_zoom_result_free (self->partial);
  strata_spilled_array_free (self->row_of);
  g_hash_table_unref (self->members);
  strata_painter_kept_clear (self);
  strata_string_pool_unref (self->strings);
  g_clear_object (&self->trace);
  g_free (self);
}

/* A CPU row keeps a strip at its bottom for interrupts, under the tasks
 * rather than over them: the least a column shows of either (a sliver)
 * stays visible. */
static void
row_geometry (const StrataPaintRow    *row,
              const StrataDisplayList *list,
              RowGeometry             *geo)
{
  float pad = MAX (1.f, floorf (row->h / 10.f));
  float inner = row->h - 2 * pad;

  geo->nested_h = row->kind == STRATA_CHANNEL_CPU ? MAX (2.f, roundf (inner * 0.3f)) : 0;
  geo->nested_y = row->y + pad + inner - geo->nested_h;
  geo->main_y = row->y + pad;
  geo->main_h = inner - geo->nested_h;
  geo->ticks_y = geo->main_y;
  geo->ticks_h = MAX (3.f, roundf (inner / 3.f));
  geo->clip_y0 = list->area_y;
  geo->clip_y1 = list->area_y + list->area_height;
}

/**
 * strata_painter_set_reference_fold:
 * @reference: fold every item with strata_painter_paint_item(), the painter's first way
 *
 * For the tests and the benchmark: the display list must come out the
 * same either way.
 */
void
strata_painter_set_reference_fold (StrataPainter *self,
                                   gboolean       reference)
{
  g_return_if_fail (self != NULL);

  self->reference_fold = !!reference;
}

gboolean
strata_painter_get_reference_fold (StrataPainter *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->reference_fold;
}

/**
 * strata_painter_set_timed:
 * @timed: measure the CPU time of the rows' folds and of their lanes'
 *   emission in each frame (a clock reading or two per row)
 */
void
strata_painter_set_timed (StrataPainter *self,
                          gboolean       timed)
{
  g_return_if_fail (self != NULL);

  self->timed = !!timed;
}

/**
 * strata_painter_get_times:
 * @fold_ns: (out): the last frame's folds of its rows' items, in ns
 * @emit_ns: (out): the last frame's emission of its rows' lanes, in ns
 *
 * Both 0 unless strata_painter_set_timed() asked for them. Merged rows
 * are not in them.
 */
void
strata_painter_get_times (StrataPainter *self,
                          gint64        *fold_ns,
                          gint64        *emit_ns)
{
  g_return_if_fail (self != NULL);

  *fold_ns = self->fold_ns;
  *emit_ns = self->emit_ns;
}

/**
 * strata_painter_get_query_ns:
 *
 * Returns: the last frame's query of the zoom tree, in ns; 0 unless
 *   strata_painter_set_timed() asked for it
 */
gint64
strata_painter_get_query_ns (StrataPainter *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->query_ns;
}

/* For the benchmark's split of a frame (strata_painter_set_timed()): the
 * calling thread's CPU time, as the benchmark measures frames. */
static gint64
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* The items of a span of @n that can be in view, folded (strata_painter_fold_items()
 * culls the rest): each of its lanes is cut to them by bisection. A
 * lane's items do not overlap, so both their starts and their ends are in
 * order: the items before the cut have ended before the view, the ones
 * after start after it, and an item that starts before the view and
 * reaches into it is kept. The same items in the same order as folding
 * the whole span. */
static void
fold_span (StrataPainter        *self,
           StrataDisplayList    *list,
           const StrataChannel  *channel,
           const RowGeometry    *geo,
           const StrataZoomItem *items,
           guint                 n)
{
  if (n < MIN_SPAN_CUT)
    {
      strata_painter_fold_items (self, list, channel, geo, items, 0, n);
      return;
    }

  for (guint first = 0, next; first < n; first = next)
    {
      guint lo = first, hi, end;

      next = strata_painter_lane_end (items, first, n);
      hi = next;
      /* The first item that starts after the view... */
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (items[mid].start > list->to)
            hi = mid;
          else
            lo = mid + 1;
        }
      end = lo;
      /* ...and the first that ends in it or after. */
      lo = first, hi = end;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (items[mid].end < list->from)
            lo = mid + 1;
          else
            hi = mid;
        }
      strata_painter_fold_items (self, list, channel, geo, items, lo, end);
    }
}

static void
paint_row (StrataPainter        *self,
           StrataDisplayList    *list,
           const StrataPaintRow *row,
           const StrataZoomSpan *spans,
           guint                 n_spans)
{
  const StrataChannel *channel = &self->channels[row->channel];
  RowGeometry geo;
  gint64 t0 = 0, t1 = 0;

  row_geometry (row, list, &geo);
  if (self->timed)
    t0 = thread_cpu_ns ();

  /* A span is a whole chunk's, up to 2F times the viewport at the level
   * a frame is drawn from: its lanes are cut to the view first
   * (fold_span()). The reference fold takes every item, leaving what lies
   * outside with two comparisons before paint_item's divisions. */
  for (guint s = 0; s < n_spans; s++)
    {
      const StrataZoomItem *items = spans[s].items;
      guint n = spans[s].n_items;

      if (self->reference_fold)
        {
          strata_painter_paint_items (self, list, channel, &geo, items, 0, n);
          continue;
        }

      fold_span (self, list, channel, &geo, items, n);
    }

  if (self->timed)
    {
      t1 = thread_cpu_ns ();
      self->fold_ns += t1 - t0;
    }
  strata_painter_emit_lanes (self, &geo, list->area_x);
  if (self->timed)
    self->emit_ns += thread_cpu_ns () - t1;

  strata_painter_layers_flush (self, list);
}

static void
ensure_columns (StrataPainter *self,
                guint          width)
{
  if (width > self->n_columns)
    {
      for (guint i = 0; i < N_LANES; i++)
        {
          g_free (self->lanes[i].columns);
          self->lanes[i].columns = g_new0 (Column, width);
        }
      self->n_columns = width;
    }

  for (guint i = 0; i < N_LANES; i++)
    {
      self->lanes[i].lo = G_MAXINT;
      self->lanes[i].hi = G_MININT;
    }
}

/* Frame furniture --------------------------------------------------------- */

static void
paint_row_backgrounds (StrataPainter     *self,
                       StrataDisplayList *list,
                       guint              first_index)
{
  const Scheme *s = &strata_painter_schemes[self->style.scheme];
  float y0 = list->area_y, y1 = list->area_y + list->area_height;

  for (guint i = 0; i < list->rows->len; i++)
    {
      const StrataPaintRow *row = &g_array_index (list->rows, StrataPaintRow, i);
      float top = MAX (row->y, y0), bottom = MIN (row->y + row->h, y1);
      guint32 rgba = 0;

      if (row->kind == STRATA_CHANNEL_PROCESS)
        rgba = s->group;
      else if ((first_index + i) % 2 == 1)
        rgba = s->stripe;
      if (bottom > top)
        strata_painter_add_rect (list, 0, top, list->frame_width, bottom - top, rgba);

      /* A line where the CPUs end and above each process. */
      if (i + first_index > 0 && row->y >= y0 &&
          (row->kind == STRATA_CHANNEL_PROCESS ||
           (i > 0 && g_array_index (list->rows, StrataPaintRow, i - 1).kind == STRATA_CHANNEL_CPU &&
            row->kind != STRATA_CHANNEL_CPU)))
        strata_painter_add_rect (list, 0, row->y, list->frame_width, 1, s->separator);
    }
}

static void
paint_row_names (StrataPainter     *self,
                 StrataDisplayList *list)
{
  const Scheme *s = &strata_painter_schemes[self->style.scheme];
  float width = self->style.name_width;

  if (width <= 0)
    return;

  for (guint i = 0; i < list->rows->len; i++)
    {
      const StrataPaintRow *row = &g_array_index (list->rows, StrataPaintRow, i);
      const StrataChannel *channel = &self->channels[row->channel];
      guint32 name = strata_painter_get_row_name (self, row->channel);
      float mid = row->y + row->h / 2;
      float x = 8 + 14 * row->indent;
      float id_room = 56;
      char id[32];

      if (mid < list->area_y || mid > list->area_y + list->area_height)
        continue;

      if (channel->kind == STRATA_CHANNEL_CPU)
        {
          /* CPUs of a buffer instance other than the top one say which. */
          const char *instance = channel->instance > 0 && channel->instance < self->instances->len
                                   ? g_ptr_array_index (self->instances, channel->instance) : NULL;

          strata_painter_add_text (list, x, mid, width - x - 8 - (instance ? 80 : 0), s->text, name,
                                   strata_string_pool_get (self->strings, name),
                                   STRATA_PAINT_TEXT_ROW_NAME, STRATA_PAINT_ALIGN_LEFT);
          if (instance != NULL)
            strata_painter_add_text (list, width - 8, mid, 80, s->text_dim, STRATA_STRING_NONE, instance,
                                     STRATA_PAINT_TEXT_ROW_ID, STRATA_PAINT_ALIGN_RIGHT);
        }
      else
        {
          const char *text = strata_string_pool_get (self->strings, name);

          if (text[0] == '\0')
            text = channel->kind == STRATA_CHANNEL_PROCESS ? "process" : "thread";
          strata_painter_add_text (list, x, mid, width - x - id_room - 4, s->text,
                                   text == strata_string_pool_get (self->strings, name) ? name : STRATA_STRING_NONE,
                                   text,
                                   channel->kind == STRATA_CHANNEL_PROCESS ? STRATA_PAINT_TEXT_GROUP_NAME
                                                            : STRATA_PAINT_TEXT_ROW_NAME,
                    STRATA_PAINT_ALIGN_LEFT);
          g_snprintf (id, sizeof id, "%d", channel->id);
          strata_painter_add_own_text (list, width - 8, mid, id_room, s->text_dim, id,
                                       STRATA_PAINT_TEXT_ROW_ID, STRATA_PAINT_ALIGN_RIGHT);
        }
    }

  strata_painter_add_rect (list, width - 1, list->area_y, 1, list->area_height, s->separator);
}

static void
paint_grid (StrataPainter     *self,
            StrataDisplayList *list)
{
  const Scheme *s = &strata_painter_schemes[self->style.scheme];

  for (guint i = 0; i < list->ticks->len; i++)
    {
      const StrataPaintTick *tick = &g_array_index (list->ticks, StrataPaintTick, i);

      if (tick->labelled)
        strata_painter_add_rect (list, floorf (tick->x), list->area_y, 1, list->area_height, s->grid);
    }
}

static void
paint_ruler (StrataPainter     *self,
             StrataDisplayList *list)
{
  const Scheme *s = &strata_painter_schemes[self->style.scheme];
  float h = self->style.ruler_height;
  float right = list->area_x + list->area_width;
  g_autofree char *span = NULL;

  if (h <= 0)
    return;

  strata_painter_add_rect (list, 0, 0, list->frame_width, h, s->ruler);
  strata_painter_add_rect (list, 0, h - 1, list->frame_width, 1, s->separator);

  for (guint i = 0; i < list->ticks->len; i++)
    {
      const StrataPaintTick *tick = &g_array_index (list->ticks, StrataPaintTick, i);
      float tick_h = tick->labelled ? MIN (8.f, h / 3) : MIN (4.f, h / 5);
      float next = right;

      strata_painter_add_rect (list, floorf (tick->x), h - 1 - tick_h, 1, tick_h,
                               tick->labelled ? s->text_dim : s->separator);
      if (!tick->labelled)
        continue;

      for (guint j = i + 1; j < list->ticks->len; j++)
        if (g_array_index (list->ticks, StrataPaintTick, j).labelled)
          {
            next = g_array_index (list->ticks, StrataPaintTick, j).x;
            break;
          }
      /* A number cut short reads as another number: a label that would
       * not fit (the last one, at the right edge) is left out. */
      if (next - tick->x - 8 < TEXT_WIDTH (tick->label))
        continue;
      strata_painter_add_text (list, floorf (tick->x) + 4, (h - tick_h) / 2, next - tick->x - 8, s->text,
                               STRATA_STRING_NONE, tick->label, STRATA_PAINT_TEXT_RULER, STRATA_PAINT_ALIGN_LEFT);
    }

  /* Over the names: how much time the view spans. */
  if (self->style.name_width > 0)
    {
      gint64 d = list->to - list->from;

      span = strata_paint_format_time (d, d, MAX (strata_painter_unit_for (d) / 100, 1));
      strata_painter_add_own_text (list, 8, h / 2, self->style.name_width - 16, s->text_dim, span,
                                   STRATA_PAINT_TEXT_RULER, STRATA_PAINT_ALIGN_LEFT);
      strata_painter_add_rect (list, self->style.name_width - 1, 0, 1, h, s->separator);
    }
}

typedef struct
{
  guint32     rgba;
  const char *text;
} LegendEntry;

/* Reserves room for a legend entry: its swatch at @x, its text after it.
 * max_width keeps a wider font than guessed from running into the next
 * entry.
 * Returns where the next entry goes, or a negative number if this one
 * does not fit. */
static float
legend_entry (StrataDisplayList *list,
              float              x,
              float              mid,
              float              right,
              float              swatch_width,
              guint32            text_rgba,
              const char        *text)
{
  float room = TEXT_WIDTH (text);

  if (x + swatch_width + 4 + room > right)
    return -1;

  strata_painter_add_own_text (list, x + swatch_width + 4, mid, room, text_rgba, text,
                               STRATA_PAINT_TEXT_LEGEND, STRATA_PAINT_ALIGN_LEFT);
  return x + swatch_width + 4 + room + 12;
}

static void
paint_legend (StrataPainter     *self,
              StrataDisplayList *list)
{
  const Scheme *s = &strata_painter_schemes[self->style.scheme];
  StrataPaintScheme scheme = self->style.scheme;
  float h = self->style.legend_height;
  float top = list->frame_height - h;
  float mid = top + h / 2;
  float right = list->frame_width - 8;
  float x = 8, next;
  const LegendEntry entries[] = {
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_RUNNING), "running" },
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_RUNNABLE), "runnable" },
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_PREEMPTED), "preempted" },
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_WOKEN), "woken" },
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_UNINTERRUPTIBLE), "blocked (D)" },
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_SLEEPING), "sleeping" },
    { s->irq, "IRQ" },
    { s->softirq, "softirq" },
    { s->wakeup, "wakeup" },
    { s->brief, "brief activity, zoom in" },
  };

  if (h <= 0)
    return;

  strata_painter_add_rect (list, 0, top, list->frame_width, h, s->ruler);
  strata_painter_add_rect (list, 0, top, list->frame_width, 1, s->separator);

  /* Tasks on CPU rows: a hue per thread, shown by three of them. */
  next = legend_entry (list, x, mid, right, 12, s->text, "task (a hue per thread)");
  if (next < 0)
    return;
  for (guint i = 0; i < 3; i++)
    strata_painter_add_rect (list, x + i * 4, mid - 5, 4, 10, strata_paint_task_color (scheme, 4000 + i));
  x = next;

  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      next = legend_entry (list, x, mid, right, 10, s->text, entries[i].text);
      if (next < 0)
        return;
      strata_painter_add_rect (list, x, mid - 5, 10, 10, entries[i].rgba);
      x = next;
    }

  /* Unknown, hatched as in the rows. */
  next = legend_entry (list, x, mid, right, 10, s->text, "unknown");
  if (next >= 0)
    {
      Run run = { 0, 10, mid - 5, 10, s->states[STRATA_TASK_STATE_UNKNOWN] };

      strata_painter_layer_emit (self, &self->layers[LAYER_BACKGROUND], &run, x, top, top + h);
      strata_painter_layers_flush (self, list);
    }
}

/* Rows made of several channels ---------------------------------------- */

/**
 * strata_painter_set_row_members:
 * @row: the channel whose row this is (a process, say)
 * @members: (array length=n_members) (nullable): the channels drawn in it
 *
 * Makes @row's row draw the activities of @members merged into it, as
 * one row, over whatever @row has of its own (a process has nothing): a
 * collapsed process shows its threads together. A pixel column of the row shows how busy the members are in
 * it (their busy time over the column's, up to the whole row's height)
 * in their dominant states, as an aggregate is drawn, and no labels.
 * No members (or %NULL) makes it an ordinary row again.
 */
void
strata_painter_set_row_members (StrataPainter *self,
                                guint32        row,
                                const guint32 *members,
                                guint          n_members)
{
  GArray *array;

  g_return_if_fail (self != NULL);
  g_return_if_fail (members != NULL || n_members == 0);

  if (n_members == 0)
    {
      g_hash_table_remove (self->members, GUINT_TO_POINTER (row));
      return;
    }
  array = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n_members);
  g_array_append_vals (array, members, n_members);
  g_hash_table_insert (self->members, GUINT_TO_POINTER (row), array);
}

/* Drops every row's members. */
void
strata_painter_clear_row_members (StrataPainter *self)
{
  g_return_if_fail (self != NULL);
  g_hash_table_remove_all (self->members);
}

/**
 * strata_painter_get_row_members:
 * @n_members: (out): how many
 *
 * Returns: (array length=n_members) (nullable): what @row's row is made
 *   of, or %NULL for an ordinary row
 */
const guint32 *
strata_painter_get_row_members (StrataPainter *self,
                                guint32        row,
                                guint         *n_members)
{
  GArray *array;

  g_return_val_if_fail (self != NULL, NULL);

  array = g_hash_table_lookup (self->members, GUINT_TO_POINTER (row));
  if (n_members != NULL)
    *n_members = array != NULL ? array->len : 0;
  return array != NULL ? (const guint32 *)(gpointer) array->data : NULL;
}

/* The members of the visible merged rows join the frame's one query;
 * those that are not rows themselves are marked -2, so only their merged
 * row paints them. */
static void
query_members (StrataPainter     *self,
               StrataDisplayList *list,
               gint32            *row_of)
{
  if (g_hash_table_size (self->members) == 0)
    return;

  for (guint i = 0; i < list->rows->len; i++)
    {
      guint32 ch = g_array_index (list->rows, StrataPaintRow, i).channel;
      GArray *members = g_hash_table_lookup (self->members, GUINT_TO_POINTER (ch));

      for (guint m = 0; members != NULL && m < members->len; m++)
        {
          guint32 member = g_array_index (members, guint32, m);

          if (member < self->n_channels && row_of[member] == -1)
            {
              g_array_append_val (self->query, member);
              row_of[member] = -2;
            }
        }
    }
}

static gboolean
is_member (const GArray *members,
           guint32       channel)
{
  for (guint m = 0; m < members->len; m++)
    if (g_array_index (members, guint32, m) == channel)
      return TRUE;
  return FALSE;
}

/* Each visible merged row: every member's items folded into the row's
 * lanes together, then the lanes emitted once, as paint_row() does for
 * one channel. */
static void
paint_merged_rows (StrataPainter        *self,
                   StrataDisplayList    *list,
                   const StrataZoomSpan *spans,
                   guint                 n_spans)
{
  if (g_hash_table_size (self->members) == 0)
    return;

  for (guint r = 0; r < list->rows->len; r++)
    {
      const StrataPaintRow *row = &g_array_index (list->rows, StrataPaintRow, r);
      GArray *members = g_hash_table_lookup (self->members, GUINT_TO_POINTER (row->channel));
      RowGeometry geo;

      if (members == NULL)
        continue;

      row_geometry (row, list, &geo);
      self->merging = TRUE;
      for (guint s = 0; s < n_spans; s++)
        if (spans[s].channel < self->n_channels && is_member (members, spans[s].channel))
          {
            const StrataChannel *channel = &self->channels[spans[s].channel];

            /* fold_span() first leaves out what ends before the view or
             * starts after it, which strata_painter_paint_item() leaves out too (it
             * lands outside the area) unless the view is longer than
             * 2^53 ns. */
            if (!self->reference_fold)
              fold_span (self, list, channel, &geo, spans[s].items, spans[s].n_items);
            else
              for (guint i = 0; i < spans[s].n_items; i++)
                strata_painter_paint_item (self, list, channel, &geo, &spans[s].items[i]);
          }
      self->merging = FALSE;

      strata_painter_emit_lanes (self, &geo, list->area_x);

      strata_painter_layers_flush (self, list);
    }
}

/* The rows' items: one query of the zoom tree for the rows not drawn
 * again from the last frame, folded and emitted row by row, in the
 * rows' order. */
static void
paint_rows (StrataPainter             *self,
            const StrataPaintViewport *viewport,
            StrataDisplayList         *list,
            const StrataZoomGeometry  *geometry)
{
  gint32 *row_of = (gint32 *)(gpointer) self->row_of->data;
  guint n_rows = list->rows->len;
  g_autofree const KeptRow **kept = g_new0 (const KeptRow *, n_rows);
  g_autofree guint *row_spans = g_new0 (guint, 2 * n_rows);
  const StrataZoomSpan *spans;
  StrataZoomResult *result = self->result;
  guint n_spans;

  /* A channel shown twice is drawn in its last row. */
  for (guint i = 0; i < n_rows; i++)
    row_of[g_array_index (list->rows, StrataPaintRow, i).channel] = i;

  /* The rows the last frame drew as they are now are drawn again
   * (strata-painter-kept-rows.c); the others are asked for, into a
   * result of their own if some are drawn again (see partial). */
  g_array_set_size (self->query, 0);
  for (guint i = 0; i < n_rows; i++)
    {
      const StrataPaintRow *row = &g_array_index (list->rows, StrataPaintRow, i);

      if (row_of[row->channel] != (gint32) i)
        continue;
      kept[i] = strata_painter_kept_find (self, list, row);
      if (kept[i] == NULL)
        g_array_append_val (self->query, row->channel);
      else
        result = self->partial;
    }
  query_members (self, list, row_of);

  /* The finest level whose pixel is at least the screen's: at most
   * about two items per screen pixel and row, whatever the trace's
   * size, and still one query of at most two chunks. */
  list->level = strata_zoom_geometry_level_for_frame (geometry, list->to - list->from, viewport->width);
  if (self->timed)
    self->query_ns = thread_cpu_ns ();
  if (self->query->len > 0)
    strata_zoom_tree_query_spans (self->tree, list->level, list->from, list->to,
                                  (const guint32 *)(gpointer) self->query->data, self->query->len,
                                  result, &list->stats);
  if (self->timed)
    self->query_ns = thread_cpu_ns () - self->query_ns;

  ensure_columns (self, viewport->width);

  /* The spans come channel by channel, each channel's in time order
   * (in the order asked, or the channels' when two chunks answer):
   * each row's are found first, so the rows are drawn in their own
   * order whichever it is and whichever are drawn again. */
  spans = NULL;
  n_spans = 0;
  if (self->query->len > 0)
    spans = strata_zoom_result_get_spans (result, &n_spans);
  list->n_items = 0;
  for (guint i = 0; i < n_spans; )
    {
      guint32 ch = spans[i].channel;
      guint j = i;

      for (; j < n_spans && spans[j].channel == ch; j++)
        list->n_items += spans[j].n_items;
      if (ch < self->n_channels && row_of[ch] >= 0)
        {
          row_spans[2 * row_of[ch]] = i;
          row_spans[2 * row_of[ch] + 1] = j;
        }
      i = j;
    }
  for (guint i = 0; i < n_rows; i++)
    {
      const StrataPaintRow *row = &g_array_index (list->rows, StrataPaintRow, i);
      guint first = row_spans[2 * i], end = row_spans[2 * i + 1];
      guint rect0 = list->rects->len, text0 = list->texts->len, folded0 = list->n_folded;
      guint n_items = 0;

      if (row_of[row->channel] != (gint32) i)
        continue;
      if (kept[i] != NULL)
        {
          strata_painter_kept_draw (self, list, row, kept[i]);
          continue;
        }
      for (guint k = first; k < end; k++)
        n_items += spans[k].n_items;
      if (end > first)
        paint_row (self, list, row, &spans[first], end - first);
      strata_painter_kept_note (self, list, row, rect0, text0, n_items, list->n_folded - folded0);
    }
  paint_merged_rows (self, list, spans, n_spans);

  for (guint i = 0; i < n_rows; i++)
    row_of[g_array_index (list->rows, StrataPaintRow, i).channel] = -1;
  for (guint i = 0; i < self->query->len; i++)
    row_of[g_array_index (self->query, guint32, i)] = -1;
}

/**
 * strata_painter_paint:
 * @viewport: what to draw: the time range, the size of the timeline area
 *   and how far the rows are scrolled
 * @list: cleared, then filled with the frame
 *
 * Paints one frame: one query of the zoom tree for the visible rows, at
 * the level whose pixel matches (to - from) / width ns, folded into at most a
 * few rectangles per pixel column of each row; text where it fits; the
 * ruler, the row names and the legend around it as the style asks.
 */
void
strata_painter_paint (StrataPainter             *self,
                      const StrataPaintViewport *viewport,
                      StrataDisplayList         *list)
{
  const Scheme *s;
  StrataZoomGeometry g;
  guint first_index = 0;
  const guint32 *rows;
  guint n_rows, from_row;
  gint above = -1;

  g_return_if_fail (self != NULL && viewport != NULL && list != NULL);

  s = &strata_painter_schemes[self->style.scheme];
  strata_painter_kept_begin (self, viewport, list);
  strata_display_list_clear (list);
  self->fold_ns = self->emit_ns = self->query_ns = 0;

  list->from = viewport->from;
  list->to = MAX (viewport->to, viewport->from);
  list->area_x = self->style.name_width;
  list->area_y = self->style.ruler_height;
  list->area_width = viewport->width;
  list->area_height = viewport->height;
  list->frame_width = list->area_x + viewport->width;
  list->frame_height = list->area_y + viewport->height + self->style.legend_height;
  list->ns_per_pixel = viewport->width > 0 ? (double) (list->to - list->from) / viewport->width : 0;

  strata_painter_add_rect (list, 0, 0, list->frame_width, list->frame_height, s->background);

  /* The rows that fit: [first, last) of the row list, looked for from
   * a row above the first (the scroll's row, less one for the rounding of
   * the floats), not from the top: a followed recording has tens of
   * thousands of rows. */
  rows = strata_painter_peek_rows (self, &n_rows);
  from_row = viewport->scroll_y > self->style.row_height
             ? MIN ((guint) (viewport->scroll_y / self->style.row_height) - 1, n_rows) : 0;
  for (guint i = from_row; i < n_rows; i++)
    {
      guint32 ch = rows[i];
      float y = (float) i * self->style.row_height - viewport->scroll_y;
      StrataPaintRow row = { 0 };

      if (y + self->style.row_height <= 0)
        continue;
      if (y >= viewport->height)
        break;
      if (ch >= self->n_channels)
        {
          above = -1;
          continue;
        }

      if (list->rows->len == 0)
        first_index = i;
      row.channel = ch;
      row.kind = self->channels[ch].kind;
      row.indent = strata_painter_row_indent (self, rows, i, above);
      row.y = list->area_y + y;
      row.h = self->style.row_height;
      g_array_append_val (list->rows, row);
      above = row.indent;
    }

  paint_row_backgrounds (self, list, first_index);

  if (list->ns_per_pixel > 0)
    {
      strata_paint_ruler_ticks (list->from, list->to, list->area_x, list->area_width,
                                self->start, TICK_MIN_SPACING, list->ticks, list->strings);
      paint_grid (self, list);
    }

  if (list->ns_per_pixel > 0 && list->rows->len > 0 &&
      strata_zoom_tree_get_geometry (self->tree, &g))
    paint_rows (self, viewport, list, &g);

  paint_row_names (self, list);
  paint_ruler (self, list);
  paint_legend (self, list);
  strata_painter_kept_end (self, list);
}
