/* strata-stats.c
 *
 * One walk over the activities. Percentiles use the nearest-rank method
 * (the smallest sample with at least p% of the samples at or below it), as
 * `perf sched latency`-style reports do, so p100 is the maximum.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata-stats.h"

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *)a;
  gint64 y = *(const gint64 *)b;

  return x < y ? -1 : x > y;
}

/* Durations are never negative and rarely need more than 33 bits, so an
 * LSD radix sort on 11-bit digits sorts millions of latencies in three
 * passes (with a counter table small enough to clear for every thread);
 * qsort() was a tenth of `stats` on a 5M-event trace. */
#define DIGIT_BITS 11
#define DIGITS     (1u << DIGIT_BITS)
static void
sort_durations (gint64 *v,
                guint   n)
{
  g_autofree gint64 *tmp = NULL;
  g_autofree guint *count = NULL;
  guint64 max = 0;
  gint64 *src = v, *dst;

  if (n < 256)
    {
      qsort (v, n, sizeof *v, compare_gint64);
      return;
    }

  for (guint i = 0; i < n; i++)
    {
      if (v[i] < 0)
        {
          qsort (v, n, sizeof *v, compare_gint64);
          return;
        }
      max = MAX (max, (guint64) v[i]);
    }

  tmp = g_new (gint64, n);
  count = g_new (guint, DIGITS);
  dst = tmp;

  for (guint shift = 0; shift < 64 && (max >> shift) != 0; shift += DIGIT_BITS)
    {
      guint sum = 0;

      memset (count, 0, sizeof (guint) * DIGITS);
      for (guint i = 0; i < n; i++)
        count[((guint64) src[i] >> shift) & (DIGITS - 1)]++;
      for (guint d = 0; d < DIGITS; d++)
        {
          guint c = count[d];
          count[d] = sum;
          sum += c;
        }
      for (guint i = 0; i < n; i++)
        dst[count[((guint64) src[i] >> shift) & (DIGITS - 1)]++] = src[i];

      { gint64 *t = src; src = dst; dst = t; }
    }

  if (src != v)
    memcpy (v, src, n * sizeof *v);
}

static gint64
nearest_rank (const gint64 *sorted,
              guint         n,
              double        p)
{
  guint rank = (guint) ceil (p / 100.0 * n);

  if (rank == 0)
    rank = 1;
  return sorted[MIN (rank, n) - 1];
}

/* Sorts @samples in place. */
void
strata_latency_from_samples (StrataLatency *latency,
                             gint64        *samples,
                             guint          n_samples)
{
  /* memset, not a compound literal: the padding after count goes to disk
   * with the thread rows (the index), and must be zero to be the same. */
  memset (latency, 0, sizeof *latency);

  if (n_samples == 0)
    return;

  sort_durations (samples, n_samples);
  latency->count = n_samples;
  latency->p50 = nearest_rank (samples, n_samples, 50);
  latency->p90 = nearest_rank (samples, n_samples, 90);
  latency->p99 = nearest_rank (samples, n_samples, 99);
  latency->max = samples[n_samples - 1];
}

static int
compare_threads (const void *a,
                 const void *b)
{
  const StrataThreadStats *x = a;
  const StrataThreadStats *y = b;

  if (x->running != y->running)
    return x->running > y->running ? -1 : 1;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  return x->channel < y->channel ? -1 : x->channel > y->channel;
}

static int
compare_cpus (const void *a,
              const void *b)
{
  const StrataCpuStats *x = a;
  const StrataCpuStats *y = b;

  if (x->instance != y->instance)
    return x->instance < y->instance ? -1 : 1;
  if (x->cpu != y->cpu)
    return x->cpu < y->cpu ? -1 : 1;
  return x->channel < y->channel ? -1 : x->channel > y->channel;
}

/* What one channel accumulated; its kind is only looked at in finish(),
 * since channels are still being created while activities stream in. */
typedef struct
{
  gint64   by_kind[STRATA_N_ACTIVITY_KINDS];
  gint64   by_state[STRATA_N_TASK_STATES];
  guint64  switches_in;
  GArray  *latencies;   /* gint64, or NULL */
} ChannelSums;

struct _StrataStatsBuilder
{
  GArray *sums;         /* ChannelSums, indexed by channel */
};

StrataStatsBuilder *
strata_stats_builder_new (void)
{
  StrataStatsBuilder *self = g_new0 (StrataStatsBuilder, 1);

  self->sums = g_array_new (FALSE, TRUE, sizeof (ChannelSums));

  return self;
}

void
strata_stats_builder_free (StrataStatsBuilder *self)
{
  if (self == NULL)
    return;

  for (guint i = 0; i < self->sums->len; i++)
    g_clear_pointer (&g_array_index (self->sums, ChannelSums, i).latencies, g_array_unref);
  g_array_unref (self->sums);
  g_free (self);
}

/**
 * strata_stats_builder_add:
 * @activity: an activity
 * @builder: a #StrataStatsBuilder
 *
 * Accounts one activity. The signature is a #StrataActivityFunc, so a
 * builder can be the sink of strata_trace_load_full().
 */
void
strata_stats_builder_add (const StrataActivity *activity,
                          gpointer              builder)
{
  StrataStatsBuilder *self = builder;
  gint64 d = activity->end - activity->start;
  ChannelSums *sums;

  if (activity->channel >= self->sums->len)
    g_array_set_size (self->sums, activity->channel + 1);
  sums = &g_array_index (self->sums, ChannelSums, activity->channel);

  if (activity->kind >= STRATA_N_ACTIVITY_KINDS)
    return;
  sums->by_kind[activity->kind] += d;

  if (activity->kind != STRATA_ACTIVITY_STATE || activity->state >= STRATA_N_TASK_STATES)
    return;
  sums->by_state[activity->state] += d;

  if (activity->state == STRATA_TASK_STATE_RUNNING &&
      !(activity->flags & STRATA_ACTIVITY_FLAG_START_UNSEEN))
    sums->switches_in++;

  /* A wakeup latency is a WOKEN interval that ended with the thread
   * switched in, not one cut by the trace's end or by missing events. */
  if (activity->state == STRATA_TASK_STATE_WOKEN &&
      !(activity->flags & (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST)))
    {
      if (sums->latencies == NULL)
        sums->latencies = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_array_append_val (sums->latencies, d);
    }
}

/**
 * strata_stats_builder_finish:
 * @self: a builder that has seen every activity of @trace
 * @trace: the trace, for its channels, span and context switches
 *
 * Returns: (transfer full): the statistics
 */
StrataStats *
strata_stats_builder_finish (StrataStatsBuilder *self,
                             StrataTrace        *trace)
{
  g_autoptr(GArray) all_latencies = g_array_new (FALSE, FALSE, sizeof (gint64));
  const StrataChannel *channels;
  StrataStats *stats;
  guint n_channels;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  channels = strata_trace_get_channels (trace, &n_channels);
  if (self->sums->len < n_channels)
    g_array_set_size (self->sums, n_channels);

  stats = g_new0 (StrataStats, 1);
  stats->start = strata_trace_get_start (trace);
  stats->end = strata_trace_get_end (trace);
  stats->cpus = g_array_new (FALSE, TRUE, sizeof (StrataCpuStats));
  stats->threads = g_array_new (FALSE, TRUE, sizeof (StrataThreadStats));

  for (guint i = 0; i < n_channels; i++)
    {
      const StrataChannel *ch = &channels[i];
      ChannelSums *sums = &g_array_index (self->sums, ChannelSums, i);

      if (ch->kind == STRATA_CHANNEL_CPU)
        {
          StrataCpuStats cs;

          /* The rows are written to the index as they are in memory, so
           * their padding must be zero too (an initialiser leaves it as
           * the stack had it, and two builds wrote different bytes). */
          memset (&cs, 0, sizeof cs);
          cs.channel = i;
          cs.cpu = ch->id;
          cs.instance = ch->instance;
          cs.busy = sums->by_kind[STRATA_ACTIVITY_TASK];
          cs.idle = sums->by_kind[STRATA_ACTIVITY_IDLE];
          cs.unknown = sums->by_kind[STRATA_ACTIVITY_UNKNOWN];
          cs.irq = sums->by_kind[STRATA_ACTIVITY_IRQ];
          cs.softirq = sums->by_kind[STRATA_ACTIVITY_SOFTIRQ];
          cs.switches = strata_trace_get_context_switches (trace, i);

          g_array_append_val (stats->cpus, cs);
          stats->switches += cs.switches;
        }
      else if (ch->kind == STRATA_CHANNEL_THREAD)
        {
          const gint64 *st = sums->by_state;
          StrataThreadStats ts;

          memset (&ts, 0, sizeof ts);   /* its padding goes to disk too */
          ts.channel = i;
          ts.tid = ch->id;
          ts.tgid = ch->tgid;
          ts.instance = ch->instance;
          ts.running = st[STRATA_TASK_STATE_RUNNING];
          ts.runnable = st[STRATA_TASK_STATE_RUNNABLE] + st[STRATA_TASK_STATE_PREEMPTED];
          ts.woken = st[STRATA_TASK_STATE_WOKEN];
          ts.sleeping = st[STRATA_TASK_STATE_SLEEPING];
          ts.blocked = st[STRATA_TASK_STATE_UNINTERRUPTIBLE];
          ts.other = st[STRATA_TASK_STATE_STOPPED] + st[STRATA_TASK_STATE_PARKED];
          ts.switches_in = sums->switches_in;

          if (sums->latencies != NULL)
            {
              g_array_append_vals (all_latencies, sums->latencies->data, sums->latencies->len);
              strata_latency_from_samples (&ts.wakeup, (gint64 *) (gpointer) sums->latencies->data,
                                           sums->latencies->len);
            }

          g_array_append_val (stats->threads, ts);
        }
    }

  strata_latency_from_samples (&stats->wakeup, (gint64 *) (gpointer) all_latencies->data,
                               all_latencies->len);

  g_array_sort (stats->threads, compare_threads);
  g_array_sort (stats->cpus, compare_cpus);

  return stats;
}

/**
 * strata_stats_compute:
 * @trace: a trace loaded with its activities
 *
 * Returns: (transfer full): the statistics of @trace
 */
StrataStats *
strata_stats_compute (StrataTrace *trace)
{
  g_autoptr(StrataStatsBuilder) builder = strata_stats_builder_new ();
  const StrataActivity *activities;
  gsize n;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  activities = strata_trace_get_activities (trace, &n);
  for (gsize i = 0; i < n; i++)
    strata_stats_builder_add (&activities[i], builder);

  return strata_stats_builder_finish (builder, trace);
}

void
strata_stats_free (StrataStats *stats)
{
  if (stats == NULL)
    return;

  g_clear_pointer (&stats->cpus, g_array_unref);
  g_clear_pointer (&stats->threads, g_array_unref);
  g_free (stats);
}
