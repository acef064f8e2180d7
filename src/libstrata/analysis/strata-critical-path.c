/* strata-critical-path.c
 *
 * See strata-critical-path.h. The walk goes back in time with a stack of
 * frames instead of recursion (a chain of wakeups can be as long as the
 * trace): a frame walks one thread from its time t back to its low
 * bound; a wait it meets that another thread ended pushes a frame for
 * that thread over the wait, and the frame below resumes where the wait
 * began. Every step moves t back by the length of what it emitted, so
 * the segments come out in reverse time order, adjacent, and the walk
 * ends. A thread's states are read once, for the whole range, from the
 * raw store.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-critical-path.h"
#include "strata-error.h"
#include "strata-wakeup.h"

typedef struct
{
  guint32 channel;
  gint64  lo;
  gint64  t;
  guint16 depth;
  /* A frame walking a waker: the wait it stands for, where the waker's
   * states run out. */
  guint32 waiter;
  gint32  waiter_tid;
  guint8  waiter_state;
  gint32  woken_by;
} Frame;

typedef struct
{
  StrataTrace         *trace;
  StrataThreadMap     *threads;
  const StrataChannel *channels;
  guint                n_channels;
  GHashTable          *states;   /* channel -> GArray of its states, by start */
  gint64               from;
  gint64               to;
  GArray              *out;      /* StrataPathSegment, latest first */
} Walk;

static GArray *
states_of (Walk    *w,
           guint32  channel)
{
  GArray *states = g_hash_table_lookup (w->states, GUINT_TO_POINTER (channel));
  g_autoptr(GArray) all = NULL;

  if (states != NULL)
    return states;

  all = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  /* One past the range: a wait that ends at its end is followed by the
   * WOKEN state that names its waker. */
  strata_trace_query_channel (w->trace, channel, w->from, w->to + 1, all);
  states = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  for (guint i = 0; i < all->len; i++)
    {
      const StrataActivity *a = &g_array_index (all, StrataActivity, i);

      if (a->kind == STRATA_ACTIVITY_STATE && !strata_activity_is_instant (a))
        g_array_append_vals (states, a, 1);
    }
  g_hash_table_insert (w->states, GUINT_TO_POINTER (channel), states);
  return states;
}

/* The index of the last state that starts before @t, or -1. */
static gint
last_before (GArray *states,
             gint64  t)
{
  guint lo = 0, hi = states->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (states, StrataActivity, mid).start < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (gint) lo - 1;
}

static gboolean
is_wait (guint8 state)
{
  switch (state)
    {
    case STRATA_TASK_STATE_SLEEPING:
    case STRATA_TASK_STATE_UNINTERRUPTIBLE:
    case STRATA_TASK_STATE_STOPPED:
    case STRATA_TASK_STATE_PARKED:
      return TRUE;
    default:
      return FALSE;
    }
}

static void
emit (Walk         *w,
      const Frame  *f,
      guint32       channel,
      guint8        state,
      gint64        start,
      gint64        end,
      StrataPathWait wait,
      gint32        cpu,
      gint32        woken_by)
{
  StrataPathSegment s = {
    .start = start,
    .end = end,
    .channel = channel,
    .tid = channel < w->n_channels ? w->channels[channel].id : -1,
    .state = state,
    .wait = wait,
    .depth = f->depth,
    .cpu = cpu,
    .woken_by = woken_by,
  };

  g_assert (start < end);
  if (w->out->len > 0)
    g_assert (g_array_index (w->out, StrataPathSegment, w->out->len - 1).start == end);
  g_array_append_val (w->out, s);
}

/* One step of the top frame; FALSE when it is done. */
static gboolean
step (Walk   *w,
      GArray *stack)
{
  Frame *f = &g_array_index (stack, Frame, stack->len - 1);
  GArray *states;
  const StrataActivity *st;
  gint i;
  gint64 a;

  if (f->t <= f->lo)
    return FALSE;

  states = states_of (w, f->channel);
  i = last_before (states, f->t);
  st = i >= 0 ? &g_array_index (states, StrataActivity, i) : NULL;

  if (st == NULL || st->end < f->t)
    {
      gint64 known = st != NULL ? MAX (st->end, f->lo) : f->lo;

      if (f->waiter != STRATA_CHANNEL_NONE)
        {
          /* What the waker did before this is not in the trace: the
           * rest of the wait is the waiter's own. */
          Frame g = *f;

          g.channel = f->waiter;
          g.depth = f->depth - 1;
          emit (w, &g, f->waiter, f->waiter_state, f->lo, f->t, STRATA_PATH_WAIT_UNKNOWN, -1,
                f->woken_by);
          f->t = f->lo;
          return FALSE;
        }
      emit (w, f, f->channel, STRATA_TASK_STATE_UNKNOWN, known, f->t, STRATA_PATH_WAIT_NONE, -1, -1);
      f->t = known;
      return TRUE;
    }

  a = MAX (st->start, f->lo);

  if (!is_wait (st->state))
    {
      emit (w, f, f->channel, st->state, a, f->t, STRATA_PATH_WAIT_NONE,
            st->state == STRATA_TASK_STATE_RUNNING ? st->arg : -1, -1);
      f->t = a;
      return TRUE;
    }

  if (st->end > f->t)
    {
      emit (w, f, f->channel, st->state, a, f->t, STRATA_PATH_WAIT_UNENDED, -1, -1);
      f->t = a;
      return TRUE;
    }

  /* A wait that ends at t: the state after it says who ended it. */
  {
    const StrataActivity *next = (guint) i + 1 < states->len
                                 ? &g_array_index (states, StrataActivity, i + 1) : NULL;
    StrataWakeup wk;

    if (next != NULL && next->start == st->end &&
        strata_wakeup_from_state (w->trace, w->threads, next, &wk))
      {
        if (!strata_wakeup_is_interrupt (&wk) && wk.waker != STRATA_CHANNEL_NONE &&
            wk.waker != f->channel)
          {
            Frame g = {
              .channel = wk.waker,
              .lo = a,
              .t = f->t,
              .depth = f->depth + 1,
              .waiter = f->channel,
              .waiter_tid = w->channels[f->channel].id,
              .waiter_state = st->state,
              .woken_by = wk.waker_tid,
            };

            f->t = a;
            g_array_append_val (stack, g);
            return TRUE;
          }
        emit (w, f, f->channel, st->state, a, f->t,
              strata_wakeup_is_interrupt (&wk) ? STRATA_PATH_WAIT_INTERRUPT : STRATA_PATH_WAIT_UNKNOWN,
              wk.cpu, wk.waker_tid);
      }
    else
      emit (w, f, f->channel, st->state, a, f->t, STRATA_PATH_WAIT_UNKNOWN, -1, -1);
    f->t = a;
    return TRUE;
  }
}

/**
 * strata_critical_path_compute:
 * @channel: a thread's row
 * @from: the range's start
 * @to: its end (after @from)
 *
 * Returns: (transfer full) (element-type StrataPathSegment): the path,
 *   in time order: the first segment starts at @from, each one where the
 *   one before ends, the last ends at @to; or NULL with @error set when
 *   @channel is not a thread or the range is empty
 */
GArray *
strata_critical_path_compute (StrataTrace *trace,
                              guint32      channel,
                              gint64       from,
                              gint64       to,
                              GError     **error)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_autoptr(StrataThreadMap) threads = NULL;
  g_autoptr(GHashTable) states = NULL;
  Frame root = { 0 };
  Walk w = { 0 };
  GArray *out;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  w.channels = strata_trace_get_channels (trace, &w.n_channels);
  if (channel >= w.n_channels || w.channels[channel].kind != STRATA_CHANNEL_THREAD)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_INVALID_ARGUMENT,
                   "row %u is not a thread's", channel);
      return NULL;
    }
  if (to <= from)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_INVALID_ARGUMENT,
                   "the range ends (%" G_GINT64_FORMAT ") before it starts (%" G_GINT64_FORMAT ")",
                   to, from);
      return NULL;
    }

  threads = strata_thread_map_new (trace);
  states = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
  out = g_array_new (FALSE, FALSE, sizeof (StrataPathSegment));
  w.trace = trace;
  w.threads = threads;
  w.states = states;
  w.from = from;
  w.to = to;
  w.out = out;

  root.channel = channel;
  root.lo = from;
  root.t = to;
  root.waiter = STRATA_CHANNEL_NONE;
  root.woken_by = -1;
  g_array_append_val (stack, root);

  while (stack->len > 0)
    if (!step (&w, stack))
      g_array_set_size (stack, stack->len - 1);

  /* Latest first, as walked: turn it round. */
  for (guint i = 0, j = out->len; i + 1 < j; i++, j--)
    {
      StrataPathSegment tmp = g_array_index (out, StrataPathSegment, i);

      g_array_index (out, StrataPathSegment, i) = g_array_index (out, StrataPathSegment, j - 1);
      g_array_index (out, StrataPathSegment, j - 1) = tmp;
    }

  return out;
}

static int
by_total_descending (gconstpointer pa,
                     gconstpointer pb)
{
  const StrataPathThread *a = pa, *b = pb;

  if (a->total != b->total)
    return a->total > b->total ? -1 : 1;
  return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/**
 * strata_critical_path_by_thread:
 * @segments: (element-type StrataPathSegment): a path
 *
 * Returns: (transfer full) (element-type StrataPathThread): each thread
 *   on the path with its share of it, the largest first
 */
GArray *
strata_critical_path_by_thread (const GArray *segments)
{
  g_autoptr(GHashTable) index = g_hash_table_new (NULL, NULL);
  GArray *threads = g_array_new (FALSE, TRUE, sizeof (StrataPathThread));

  g_return_val_if_fail (segments != NULL, threads);

  for (guint i = 0; i < segments->len; i++)
    {
      const StrataPathSegment *s = &g_array_index (segments, StrataPathSegment, i);
      gpointer slot;
      StrataPathThread *t;

      if (!g_hash_table_lookup_extended (index, GUINT_TO_POINTER (s->channel), NULL, &slot))
        {
          StrataPathThread fresh = { .channel = s->channel, .tid = s->tid };

          g_array_append_val (threads, fresh);
          slot = GUINT_TO_POINTER (threads->len - 1);
          g_hash_table_insert (index, GUINT_TO_POINTER (s->channel), slot);
        }
      t = &g_array_index (threads, StrataPathThread, GPOINTER_TO_UINT (slot));
      t->total += s->end - s->start;
      if (s->state == STRATA_TASK_STATE_RUNNING)
        t->running += s->end - s->start;
      t->n_segments++;
    }

  g_array_sort (threads, by_total_descending);
  return threads;
}
