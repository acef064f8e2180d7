/* strata-painter-default-rows.c
 *
 * The rows a timeline starts with and their order: the CPUs, then each
 * process followed by its threads, then the threads whose process is not
 * known, each group by instance and id, leaving out the threads with
 * nothing in them. For a growing trace (a recording followed) the order
 * is kept from one showing to the next and a new row put in its place:
 * sorting every channel at each showing made a showing cost every thread
 * the recording ever made, and its scratch held 12 bytes of each.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "strata-painter.h"
#include "strata-painter-internal.h"
#include "strata-zoom-chunk.h"

/* By instance, id and generation, then by channel id: the order is one
 * whatever the order the channels are compared in. */
static int
compare_channels (const StrataChannel *channels,
                  guint32              x,
                  guint32              y)
{
  const StrataChannel *a = &channels[x];
  const StrataChannel *b = &channels[y];

  if (a->instance != b->instance)
    return a->instance < b->instance ? -1 : 1;
  if (a->id != b->id)
    return a->id < b->id ? -1 : 1;
  if (a->generation != b->generation)
    return a->generation < b->generation ? -1 : 1;
  return x < y ? -1 : x > y;
}

static int
by_instance_and_id (gconstpointer pa,
                    gconstpointer pb,
                    gpointer      user_data)
{
  return compare_channels (user_data, *(const guint32 *) pa, *(const guint32 *) pb);
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

/* Answers forgotten: every thread is asked about again, and the rows are
 * ordered again from all the channels. */
static void
forget_answers (StrataPainter *self)
{
  strata_spilled_array_set_size (self->shown, 0);
  g_array_set_size (self->unanswered, 0);
  self->n_asked = 0;
  self->placed_valid = FALSE;
}

/* Which threads' rows would show something other than "unknown", in
 * self->shown: the coarsest level over the whole trace, a batch of
 * threads at a time, its items looked at where the query left them. A
 * thread is asked about only until something is found for it (those
 * found by this call are self->newly_shown), and the trace is looked at
 * in stretches from its start, each twice the one before: on a trace
 * whose threads are all busy, the first stretch or two answer for all of
 * them. One query over the whole trace read every item the index holds
 * (where the coarsest level is computed from the raw store, every block
 * of it): on the dense 20M trace, with the event list's count of every
 * activity, it made the whole index resident (308 MB of file pages) in
 * the 24 s the main thread took to show the trace the app had just
 * loaded. The stretches together cover [start, end] once, and an item a
 * stretch's query brings is one the single query finds (the level's items
 * are cut at its own columns, not at the query's edges; one past the
 * stretch counts as long as it lies in the trace), so the answer is the
 * same.
 *
 * What was found for the same trace from the same start holds for a
 * later end: only the threads new since, or found with nothing yet, are
 * asked about (self->unanswered; a followed recording's showing asked
 * about each of its 67 000 threads).
 *
 * Returns: FALSE when there is nothing to ask (no tree yet, an empty
 *   span): every thread is then to be shown, and nothing is kept */
static gboolean
threads_with_something (StrataPainter *self)
{
  g_autoptr(GArray) left = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(StrataZoomResult) result = NULL;
  GArray *query = self->unanswered;
  StrataZoomGeometry g;
  guint8 *shown;
  gint64 from = self->start, to = self->end + 1;
  gint64 part, at;

  g_array_set_size (self->newly_shown, 0);
  if (self->shown_start != self->start || self->end < self->shown_end || self->n_asked > self->n_channels)
    forget_answers (self);
  self->shown_start = self->start;
  self->shown_end = self->end;

  if (!strata_zoom_tree_get_geometry (self->tree, &g) || self->end <= self->start)
    {
      /* Not answers to keep. */
      forget_answers (self);
      return FALSE;
    }

  strata_spilled_array_set_size (self->shown, self->n_channels);
  shown = self->shown->data;
  for (guint32 i = self->n_asked; i < self->n_channels; i++)
    if (self->channels[i].kind == STRATA_CHANNEL_THREAD)
      g_array_append_val (query, i);
  self->n_asked = self->n_channels;

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
                  {
                    shown[item->channel] = 1;
                    g_array_append_val (self->newly_shown, item->channel);
                  }
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

  return TRUE;
}

/* The default rows from all the channels, sorted: the threads of
 * @shown (all of them if NULL). */
static GArray *
sorted_rows (StrataPainter *self,
             const guint8  *shown)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree guint32 *scratch = NULL;
  guint32 *head, *next, *lists;
  guint n_cpus = 0, n_processes = 0, n_threads = 0;
  guint at_cpu, at_process, at_thread;
  struct { guint32 *data; guint len; } cpus, processes, threads;

  if (self->n_channels == 0)
    return rows;

  /* Each process's shown threads as a list (head, next), then the
   * channels of each kind. */
  scratch = g_new (guint32, 3 * (gsize) self->n_channels);
  head = scratch;
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

  for (guint i = 0; i < self->n_channels; i++)
    head[i] = STRATA_CHANNEL_NONE;
  for (guint t = threads.len; t-- > 0; )
    {
      guint32 tc = threads.data[t];
      guint32 parent = self->channels[tc].parent;

      if ((shown == NULL || shown[tc]) && parent < self->n_channels &&
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

      if ((shown == NULL || shown[tc]) &&
          (parent >= self->n_channels || self->channels[parent].kind != STRATA_CHANNEL_PROCESS))
        g_array_append_val (rows, tc);
    }

  return rows;
}

/* Kept order ------------------------------------------------------------ */

/* A row's place in the default rows' order: its group (CPUs, processes
 * with their threads, threads without a process), the channel that heads
 * it there (itself, or a thread's process), then, for a thread under its
 * process, the thread. */
typedef struct
{
  guint   group;
  guint32 head;
  guint32 thread;   /* STRATA_CHANNEL_NONE for the process's own row */
} RowPlace;

static RowPlace
place_of (StrataPainter *self,
          guint32        channel)
{
  const StrataChannel *ch = &self->channels[channel];
  RowPlace place = { 0, channel, STRATA_CHANNEL_NONE };

  switch (ch->kind)
    {
    case STRATA_CHANNEL_CPU:
      place.group = 0;
      break;
    case STRATA_CHANNEL_PROCESS:
      place.group = 1;
      break;
    case STRATA_CHANNEL_THREAD:
    default:
      if (ch->parent < self->n_channels && self->channels[ch->parent].kind == STRATA_CHANNEL_PROCESS)
        {
          place.group = 1;
          place.head = ch->parent;
          place.thread = channel;
        }
      else
        place.group = 2;
      break;
    }
  return place;
}

static int
compare_places (StrataPainter  *self,
                const RowPlace *a,
                const RowPlace *b)
{
  int c;

  if (a->group != b->group)
    return a->group < b->group ? -1 : 1;
  if ((c = compare_channels (self->channels, a->head, b->head)) != 0)
    return c;
  if (a->thread == b->thread)
    return 0;
  if (a->thread == STRATA_CHANNEL_NONE || b->thread == STRATA_CHANNEL_NONE)
    return a->thread == STRATA_CHANNEL_NONE ? -1 : 1;
  return compare_channels (self->channels, a->thread, b->thread);
}

/* The first of the placed rows not before @channel's place. */
static guint
lower_bound (StrataPainter *self,
             guint32        channel)
{
  const guint32 *rows = (const guint32 *)(gpointer) self->placed->data;
  RowPlace place = place_of (self, channel);
  guint lo = 0, hi = self->placed->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      RowPlace at = place_of (self, rows[mid]);

      if (compare_places (self, &at, &place) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static inline gboolean
is_thread_of (StrataPainter *self,
              guint32        channel,
              guint32        process)
{
  return channel < self->n_channels && self->channels[channel].kind != STRATA_CHANNEL_CPU &&
         self->channels[channel].kind != STRATA_CHANNEL_PROCESS && self->channels[channel].parent == process;
}

static int
by_place (gconstpointer pa,
          gconstpointer pb,
          gpointer      user_data)
{
  StrataPainter *self = user_data;
  RowPlace a = place_of (self, *(const guint32 *) pa);
  RowPlace b = place_of (self, *(const guint32 *) pb);

  return compare_places (self, &a, &b);
}

/* Whether @process has its heading among the placed rows, and how many of
 * its threads are there (counted up to 2). */
static gboolean
process_placed (StrataPainter *self,
                guint32        process,
                guint         *n_threads)
{
  const guint32 *rows = (const guint32 *)(gpointer) self->placed->data;
  guint at = lower_bound (self, process);
  gboolean heading = at < self->placed->len && rows[at] == process;

  if (heading)
    at++;
  for (*n_threads = 0; *n_threads < 2 && at < self->placed->len && is_thread_of (self, rows[at], process); at++)
    (*n_threads)++;
  return heading;
}

/* The CPUs and threads of @batch (none of them placed yet) put in their
 * places, with the heading of each process that now heads two threads or
 * more: sorted among themselves, then merged into the placed rows from
 * the end, in one pass over the rows after the first new one. Putting
 * each in its place on its own moved the rows after it each time: k new
 * rows cost k times the rows. */
static void
place_batch (StrataPainter *self,
             GArray        *batch)
{
  guint n_new, len = self->placed->len;
  const guint32 *add;
  guint32 *rows;
  gint64 i, j, w;

  if (batch->len == 0)
    return;
  g_array_sort_with_data (batch, by_place, self);

  /* A process's threads are together in the order: each run of new
   * threads of one process gives it its heading if it has none and now
   * has two threads or more. */
  n_new = batch->len;
  for (guint k = 0; k < n_new; )
    {
      RowPlace where = place_of (self, g_array_index (batch, guint32, k));
      guint m = 1, n_threads;

      if (where.thread == STRATA_CHANNEL_NONE)
        {
          k++;
          continue;
        }
      while (k + m < n_new && is_thread_of (self, g_array_index (batch, guint32, k + m), where.head))
        m++;
      if (!process_placed (self, where.head, &n_threads) && n_threads + m >= 2)
        g_array_append_val (batch, where.head);
      k += m;
    }
  if (batch->len > n_new)
    g_array_sort_with_data (batch, by_place, self);

  strata_spilled_array_set_size (self->placed, len + batch->len);
  rows = (guint32 *)(gpointer) self->placed->data;
  add = (const guint32 *)(gpointer) batch->data;
  i = (gint64) len - 1;
  j = (gint64) batch->len - 1;
  w = (gint64) (len + batch->len) - 1;
  while (j >= 0)
    {
      if (i >= 0)
        {
          RowPlace a = place_of (self, rows[i]);
          RowPlace b = place_of (self, add[j]);

          if (compare_places (self, &a, &b) > 0)
            {
              rows[w--] = rows[i--];
              continue;
            }
        }
      rows[w--] = add[j--];
    }
}

/* The rows from all the channels, sorted, into self->placed. */
static void
place_sorted (StrataPainter *self,
              const guint8  *shown)
{
  g_autoptr(GArray) sorted = sorted_rows (self, shown);

  strata_spilled_array_set_size (self->placed, 0);
  strata_spilled_array_set_size (self->placed, sorted->len);
  if (sorted->len > 0)
    memcpy (self->placed->data, sorted->data, (gsize) sorted->len * sizeof (guint32));
}

/**
 * strata_painter_update_default_rows:
 * @n_rows: (out) (optional): how many
 *
 * The rows a timeline starts with: the CPUs, then each process followed
 * by its threads, then the threads whose process is not known, each group
 * by id. Threads with nothing known of them but that they exist are left
 * out, and so are processes left with no thread; a process with one
 * thread is that thread's row alone.
 *
 * Called again for the same channels grown (strata_painter_grow_channels())
 * and a later end, it asks only about the threads new or found with
 * nothing so far, and puts the rows new since in their places in the
 * order it kept: what a call reads of the channels is then what is new,
 * and a few rows' worth for each new row's place.
 *
 * Returns: (array length=n_rows): channel ids, where the painter keeps
 *   them (a spilled array): valid until the next call
 */
const guint32 *
strata_painter_update_default_rows (StrataPainter *self,
                                    guint         *n_rows)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (!threads_with_something (self))
    /* Kept to be read, not to be grown: ordered again next time. */
    place_sorted (self, NULL);
  else if (!self->placed_valid || self->n_placed > self->n_channels)
    {
      place_sorted (self, self->shown->data);
      self->placed_valid = TRUE;
    }
  else
    {
      const guint8 *shown = self->shown->data;
      g_autoptr(GArray) batch = g_array_new (FALSE, FALSE, sizeof (guint32));

      for (guint32 i = self->n_placed; i < self->n_channels; i++)
        if (self->channels[i].kind == STRATA_CHANNEL_CPU)
          g_array_append_val (batch, i);
      for (guint i = 0; i < self->newly_shown->len; i++)
        {
          guint32 tc = g_array_index (self->newly_shown, guint32, i);

          g_assert (shown[tc]);
          g_array_append_val (batch, tc);
        }
      place_batch (self, batch);
    }
  if (self->placed_valid)
    self->n_placed = self->n_channels;

  return strata_painter_get_default_rows (self, n_rows);
}

/**
 * strata_painter_get_default_rows:
 * @n_rows: (out) (optional): how many
 *
 * Returns: (array length=n_rows): the default rows as
 *   strata_painter_update_default_rows() last made them (none before),
 *   valid until it is called again
 */
const guint32 *
strata_painter_get_default_rows (StrataPainter *self,
                                 guint         *n_rows)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (n_rows != NULL)
    *n_rows = self->placed->len;
  return (const guint32 *)(gpointer) self->placed->data;
}

/**
 * strata_painter_default_rows:
 *
 * strata_painter_update_default_rows(), copied.
 *
 * Returns: (transfer full) (element-type guint32): channel ids
 */
GArray *
strata_painter_default_rows (StrataPainter *self)
{
  const guint32 *placed;
  GArray *rows;
  guint n;

  g_return_val_if_fail (self != NULL, g_array_new (FALSE, FALSE, sizeof (guint32)));

  placed = strata_painter_update_default_rows (self, &n);
  rows = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n);
  g_array_append_vals (rows, placed, n);
  return rows;
}
