/* strata-wakeup.c
 *
 * See strata-wakeup.h. The waking CPU is kept as the name of its row
 * (a string the pool has anyway, so a reader that shows any activity's
 * label shows a true one); it is found again among the CPU rows of the
 * woken thread's buffer instance.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-wakeup.h"

static guint32
cpu_row_named (StrataTrace *trace,
               guint16      instance,
               guint32      name)
{
  const StrataChannel *channels;
  guint n;

  if (name == STRATA_STRING_NONE)
    return STRATA_CHANNEL_NONE;

  /* The CPU rows come first, in the order the model met the CPUs. */
  channels = strata_trace_get_channels (trace, &n);
  for (guint i = 0; i < n; i++)
    if (channels[i].kind == STRATA_CHANNEL_CPU && channels[i].instance == instance &&
        channels[i].name == name)
      return i;

  return STRATA_CHANNEL_NONE;
}

/**
 * strata_wakeup_from_state:
 * @threads: (nullable): @trace's thread map, to name the waker's channel
 * @state: a thread's WOKEN state, as the model emitted it (not clipped:
 *   a piece cut from it begins after the wakeup)
 * @out: (out): the wakeup
 *
 * Returns: FALSE when @state is not a WOKEN state
 */
gboolean
strata_wakeup_from_state (StrataTrace          *trace,
                          StrataThreadMap      *threads,
                          const StrataActivity *state,
                          StrataWakeup         *out)
{
  const StrataChannel *channels;
  const StrataChannel *woken;
  guint n;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (state != NULL && out != NULL, FALSE);

  if (state->kind != STRATA_ACTIVITY_STATE || state->state != STRATA_TASK_STATE_WOKEN)
    return FALSE;

  channels = strata_trace_get_channels (trace, &n);
  if (state->channel >= n)
    return FALSE;
  woken = &channels[state->channel];

  out->woken_at = state->start;
  out->running_at = (state->flags & (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST |
                                     STRATA_ACTIVITY_FLAG_CONTINUES_AFTER))
                    ? G_MAXINT64 : state->end;
  out->woken = state->channel;
  out->woken_tid = woken->id;
  out->waker_tid = state->arg;
  out->waker = threads != NULL && state->arg > 0
               ? strata_thread_map_lookup (threads, woken->instance, state->arg, state->start)
               : STRATA_CHANNEL_NONE;
  out->cpu_channel = cpu_row_named (trace, woken->instance, state->label);
  out->cpu = out->cpu_channel != STRATA_CHANNEL_NONE ? channels[out->cpu_channel].id : -1;
  out->context = 0;
  if (state->flags & STRATA_ACTIVITY_FLAG_WAKER_HARDIRQ)
    out->context |= STRATA_EVENT_CONTEXT_HARDIRQ;
  if (state->flags & STRATA_ACTIVITY_FLAG_WAKER_SOFTIRQ)
    out->context |= STRATA_EVENT_CONTEXT_SOFTIRQ;
  if (state->flags & STRATA_ACTIVITY_FLAG_WAKER_NMI)
    out->context |= STRATA_EVENT_CONTEXT_NMI;

  return TRUE;
}

/**
 * strata_wakeup_is_interrupt:
 *
 * Whether the wakeup is an interrupt's doing rather than a thread's: it
 * ran in an interrupt, or in the idle task (which wakes nobody of its
 * own accord), so the thread it names as its context did not cause it.
 */
gboolean
strata_wakeup_is_interrupt (const StrataWakeup *wakeup)
{
  g_return_val_if_fail (wakeup != NULL, FALSE);

  return wakeup->context != 0 || wakeup->waker_tid == 0;
}

/**
 * strata_wakeups_in_range:
 * @channels: (array length=n_channels): thread rows
 * @out: (element-type StrataWakeup): where the wakeups are appended
 *
 * The wakeups of the threads of @channels that happened in [@from, @to),
 * in each thread's time order.
 */
void
strata_wakeups_in_range (StrataTrace     *trace,
                         StrataThreadMap *threads,
                         const guint32   *channels,
                         guint            n_channels,
                         gint64           from,
                         gint64           to,
                         GArray          *out)
{
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

  g_return_if_fail (STRATA_IS_TRACE (trace));
  g_return_if_fail (out != NULL);

  for (guint i = 0; i < n_channels; i++)
    {
      g_array_set_size (found, 0);
      strata_trace_query_channel (trace, channels[i], from, to, found);
      for (guint j = 0; j < found->len; j++)
        {
          const StrataActivity *a = &g_array_index (found, StrataActivity, j);
          StrataWakeup w;

          if (a->start >= from && a->start < to &&
              strata_wakeup_from_state (trace, threads, a, &w))
            g_array_append_val (out, w);
        }
    }
}
