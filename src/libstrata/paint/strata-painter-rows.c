/* strata-painter-rows.c
 *
 * Which rows the painter draws and in what order: the trace's channels,
 * CPUs first then processes and their threads by instance and id, the
 * default leaving out threads with nothing in them, or the rows a caller
 * chose (the timeline's pinned, hidden and folded rows).
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

gpointer
strata_painter_cpu_key (guint16 instance,
                        gint32  cpu)
{
  return GUINT_TO_POINTER (((guint) instance << 16) | ((guint) cpu & 0xffff));
}

/**
 * strata_painter_set_channels:
 * @channels: (array length=n_channels): the trace's channels; not copied,
 *   so call this again when they grow
 *
 * A process row is named after its main thread (the kernel model knows a
 * process by its pid only), and a thread's running spans are labelled
 * with the CPU's row name.
 */
void
strata_painter_set_channels (StrataPainter       *self,
                             const StrataChannel *channels,
                             guint                n_channels)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (channels != NULL || n_channels == 0);

  self->channels = channels;
  self->n_channels = n_channels;

  g_array_set_size (self->names, n_channels);
  g_hash_table_remove_all (self->cpu_names);

  for (guint i = 0; i < n_channels; i++)
    {
      g_array_index (self->names, guint32, i) = channels[i].name;
      if (channels[i].kind == STRATA_CHANNEL_CPU)
        g_hash_table_insert (self->cpu_names, strata_painter_cpu_key (channels[i].instance, channels[i].id),
                             GUINT_TO_POINTER (channels[i].name));
    }

  for (guint i = 0; i < n_channels; i++)
    {
      const StrataChannel *t = &channels[i];
      guint32 *name;

      if (t->kind != STRATA_CHANNEL_THREAD || t->parent >= n_channels)
        continue;

      name = &g_array_index (self->names, guint32, t->parent);
      if (channels[t->parent].name == STRATA_STRING_NONE &&
          (*name == STRATA_STRING_NONE || t->id == channels[t->parent].id))
        *name = t->name;
    }

  g_array_set_size (self->row_of, n_channels);
  for (guint i = 0; i < n_channels; i++)
    g_array_index (self->row_of, gint32, i) = -1;
}

/* The trace's span: time zero of the ruler, and what the default rows
 * look at to leave out threads with nothing to show. */
void
strata_painter_set_extent (StrataPainter *self,
                           gint64         start,
                           gint64         end)
{
  g_return_if_fail (self != NULL);

  self->start = start;
  self->end = MAX (start, end);
}

void
strata_painter_set_style (StrataPainter          *self,
                          const StrataPaintStyle *style)
{
  g_return_if_fail (self != NULL && style != NULL);

  self->style = *style;
  self->style.row_height = MAX (self->style.row_height, 4);
  if (self->style.scheme != STRATA_PAINT_SCHEME_DARK)
    self->style.scheme = STRATA_PAINT_SCHEME_LIGHT;
}

const StrataPaintStyle *
strata_painter_get_style (StrataPainter *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return &self->style;
}

/**
 * strata_painter_set_rows:
 * @channels: (array length=n_rows): the channels to show, top to bottom
 *
 * Call it after strata_painter_set_channels(): a thread is indented
 * when its process's row heads it.
 */
void
strata_painter_set_rows (StrataPainter *self,
                         const guint32 *channels,
                         guint          n_rows)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (channels != NULL || n_rows == 0);

  g_array_set_size (self->rows, 0);
  g_array_append_vals (self->rows, channels, n_rows);

  /* A thread is indented under its process only where the process's row
   * is there to head it. */
  g_array_set_size (self->indents, n_rows);
  for (guint i = 0; i < n_rows; i++)
    {
      const StrataChannel *ch = channels[i] < self->n_channels ? &self->channels[channels[i]] : NULL;
      guint8 indent = 0;

      if (ch != NULL && ch->kind == STRATA_CHANNEL_THREAD && ch->parent < self->n_channels)
        for (guint j = i; j-- > 0; )
          {
            const StrataChannel *above = channels[j] < self->n_channels ? &self->channels[channels[j]] : NULL;

            if (channels[j] == ch->parent)
              indent = 1;
            if (above == NULL || above->kind != STRATA_CHANNEL_THREAD || above->parent != ch->parent)
              break;
          }
      g_array_index (self->indents, guint8, i) = indent;
    }
}

const guint32 *
strata_painter_get_rows (StrataPainter *self,
                         guint         *n_rows)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (n_rows != NULL)
    *n_rows = self->rows->len;
  return (const guint32 *)(gpointer) self->rows->data;
}

static int
by_instance_and_id (gconstpointer pa,
                    gconstpointer pb,
                    gpointer      user_data)
{
  const StrataChannel *channels = user_data;
  const StrataChannel *a = &channels[*(const guint32 *) pa];
  const StrataChannel *b = &channels[*(const guint32 *) pb];

  if (a->instance != b->instance)
    return a->instance < b->instance ? -1 : 1;
  if (a->id != b->id)
    return a->id < b->id ? -1 : 1;
  if (a->generation != b->generation)
    return a->generation < b->generation ? -1 : 1;
  return 0;
}

/* Threads asked about at once by threads_with_something(): a query of
 * the coarsest level holds every item of its rows across the trace, a few
 * thousand a row, so asking for every thread at once, in a trace with
 * thousands of busy ones, held hundreds of megabytes for a yes or no each
 * (and copied them twice). */
#define SHOWN_BATCH 64

/* Whether @item lies in [@from, @to), as strata_zoom_tree_query() keeps
 * items (an instant at its start). */
static inline gboolean
item_in (const StrataZoomItem *item,
         gint64                from,
         gint64                to)
{
  if (item->start == item->end)
    return item->start >= from && item->start < to;
  return item->start < to && item->end > from;
}

/* The first stretch of the trace threads_with_something() looks at, as a
 * part of the whole; each next stretch is twice the one before. */
#define SHOWN_FIRST_PART 1024

/* The threads whose rows would show something other than "unknown": the
 * coarsest level over the whole trace, a batch of threads at a time, its
 * items looked at where the query left them. A thread is asked about
 * only until something is found for it, and the trace is looked at in
 * stretches from its start, each twice the one before: on a trace whose
 * threads are all busy, the first stretch or two answer for all of them.
 * One query over the whole trace read every item the index holds (where
 * the coarsest level is computed from the raw store, every block of it):
 * on the dense 20M trace, with the event list's count of every activity,
 * it made the whole index resident (308 MB of file pages) in the 24 s the
 * main thread took to show the trace the app had just loaded. The
 * stretches together cover [start, end] once, and an item a stretch's
 * query brings is one the single query finds (the level's items are cut
 * at its own columns, not at the query's edges; one past the stretch
 * counts as long as it lies in the trace), so the answer is the same. */
static const guint8 *
threads_with_something (StrataPainter *self)
{
  g_autoptr(GArray) query = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) left = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(StrataZoomResult) result = NULL;
  StrataZoomGeometry g;
  guint8 *shown;
  guint known = self->shown->len > 0 ? self->shown->len - 1 : 0;
  gint64 from = self->start, to = self->end + 1;
  gint64 part, at;

  /* What was found for the same trace from the same start holds for a
   * later end: only the threads new since, or found with nothing yet,
   * are asked about (a followed recording's showing asked about each of
   * its 67 000 threads). */
  if (self->shown_start != self->start || self->end < self->shown_end || known > self->n_channels)
    known = 0;
  g_byte_array_set_size (self->shown, self->n_channels + 1);
  shown = self->shown->data;
  memset (shown + known, 0, self->n_channels + 1 - known);
  self->shown_start = self->start;
  self->shown_end = self->end;

  for (guint32 i = 0; i < self->n_channels; i++)
    if (self->channels[i].kind == STRATA_CHANNEL_THREAD && !shown[i])
      g_array_append_val (query, i);

  if (!strata_zoom_tree_get_geometry (self->tree, &g) || self->end <= self->start)
    {
      /* Not answers to keep. */
      memset (shown, 1, self->n_channels);
      g_byte_array_set_size (self->shown, 0);
      return shown;
    }

  result = strata_zoom_result_new ();
  part = MAX ((to - from) / SHOWN_FIRST_PART, 1);
  for (at = from; at < to && query->len > 0; at += part, part = part > (to - from) / 2 ? to - from : 2 * part)
    {
      gint64 until = to - at > part ? at + part : to;

      for (guint first = 0; first < query->len; first += SHOWN_BATCH)
        {
          const StrataZoomSpan *spans;
          guint n_spans;

          strata_zoom_tree_query_spans (self->tree, 0, at, until, &g_array_index (query, guint32, first),
                                        MIN (SHOWN_BATCH, query->len - first), result, NULL);
          spans = strata_zoom_result_get_spans (result, &n_spans);
          for (guint i = 0; i < n_spans; i++)
            for (guint k = 0; k < spans[i].n_items; k++)
              {
                const StrataZoomItem *item = &spans[i].items[k];

                if (item->channel < self->n_channels && !shown[item->channel] &&
                    item_in (item, from, to) &&
                    !(item->kind == STRATA_ACTIVITY_STATE && item->state == STRATA_TASK_STATE_UNKNOWN))
                  shown[item->channel] = 1;
              }
        }

      /* The next stretch asks only about the threads still unanswered. */
      g_array_set_size (left, 0);
      for (guint i = 0; i < query->len; i++)
        if (!shown[g_array_index (query, guint32, i)])
          g_array_append_val (left, g_array_index (query, guint32, i));
      g_array_set_size (query, 0);
      g_array_append_vals (query, left->data, left->len);
    }

  return shown;
}

/**
 * strata_painter_default_rows:
 *
 * The rows a timeline starts with: the CPUs, then each process followed
 * by its threads, then the threads whose process is not known, each group
 * by id. Threads with nothing known of them but that they exist are left
 * out, and so are processes left with no thread.
 *
 * Returns: (transfer full) (element-type guint32): channel ids
 */
GArray *
strata_painter_default_rows (StrataPainter *self)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  const guint8 *shown;
  guint32 *head, *next, *lists;
  guint n_cpus = 0, n_processes = 0, n_threads = 0;
  guint at_cpu, at_process, at_thread;
  struct { guint32 *data; guint len; } cpus, processes, threads;

  g_return_val_if_fail (self != NULL, rows);

  if (self->n_channels == 0)
    return rows;

  /* Each process's shown threads as a list (head, next), then the
   * channels of each kind: in the painter's scratch, kept from one call
   * to the next (O(channels), made again at each showing of a growing
   * trace otherwise). */
  g_array_set_size (self->rows_scratch, 3 * (gsize) self->n_channels);
  head = (guint32 *)(gpointer) self->rows_scratch->data;
  next = head + self->n_channels;
  lists = next + self->n_channels;

  for (guint32 i = 0; i < self->n_channels; i++)
    {
      switch (self->channels[i].kind)
        {
        case STRATA_CHANNEL_CPU:
          n_cpus++;
          break;
        case STRATA_CHANNEL_PROCESS:
          n_processes++;
          break;
        case STRATA_CHANNEL_THREAD:
        default:
          n_threads++;
          break;
        }
    }
  cpus.data = lists, cpus.len = n_cpus;
  processes.data = lists + n_cpus, processes.len = n_processes;
  threads.data = lists + n_cpus + n_processes, threads.len = n_threads;
  at_cpu = at_process = at_thread = 0;
  for (guint32 i = 0; i < self->n_channels; i++)
    {
      switch (self->channels[i].kind)
        {
        case STRATA_CHANNEL_CPU:
          cpus.data[at_cpu++] = i;
          break;
        case STRATA_CHANNEL_PROCESS:
          processes.data[at_process++] = i;
          break;
        case STRATA_CHANNEL_THREAD:
        default:
          threads.data[at_thread++] = i;
          break;
        }
    }

  g_qsort_with_data (cpus.data, (gint) cpus.len, sizeof (guint32), by_instance_and_id, (gpointer) self->channels);
  g_qsort_with_data (processes.data, (gint) processes.len, sizeof (guint32), by_instance_and_id,
                     (gpointer) self->channels);
  g_qsort_with_data (threads.data, (gint) threads.len, sizeof (guint32), by_instance_and_id,
                     (gpointer) self->channels);

  shown = threads_with_something (self);

  for (guint i = 0; i < self->n_channels; i++)
    head[i] = STRATA_CHANNEL_NONE;
  for (guint t = threads.len; t-- > 0; )
    {
      guint32 tc = threads.data[t];
      guint32 parent = self->channels[tc].parent;

      if (shown[tc] && parent < self->n_channels &&
          self->channels[parent].kind == STRATA_CHANNEL_PROCESS)
        {
          next[tc] = head[parent];
          head[parent] = tc;
        }
    }

  g_array_append_vals (rows, cpus.data, cpus.len);

  for (guint p = 0; p < processes.len; p++)
    {
      guint32 pc = processes.data[p];

      if (head[pc] == STRATA_CHANNEL_NONE)
        continue;
      /* A process of one thread is that thread's row alone: a heading
       * over a single row says nothing the row does not. */
      if (next[head[pc]] != STRATA_CHANNEL_NONE)
        g_array_append_val (rows, pc);
      for (guint32 tc = head[pc]; tc != STRATA_CHANNEL_NONE; tc = next[tc])
        g_array_append_val (rows, tc);
    }

  for (guint t = 0; t < threads.len; t++)
    {
      guint32 tc = threads.data[t];
      guint32 parent = self->channels[tc].parent;

      if (shown[tc] &&
          (parent >= self->n_channels || self->channels[parent].kind != STRATA_CHANNEL_PROCESS))
        g_array_append_val (rows, tc);
    }

  return rows;
}

/* Columns --------------------------------------------------------------- */
