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

#include "strata-stats.h"

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *)a;
  gint64 y = *(const gint64 *)b;

  return x < y ? -1 : x > y;
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
  *latency = (StrataLatency) { 0 };

  if (n_samples == 0)
    return;

  qsort (samples, n_samples, sizeof (gint64), compare_gint64);
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
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int
compare_cpus (const void *a,
              const void *b)
{
  const StrataCpuStats *x = a;
  const StrataCpuStats *y = b;

  if (x->instance != y->instance)
    return x->instance < y->instance ? -1 : 1;
  return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

StrataStats *
strata_stats_compute (StrataTrace *trace)
{
  g_autoptr(GArray) all_latencies = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree guint *cpu_index = NULL;
  g_autofree guint *thread_index = NULL;
  g_autofree GArray **latencies = NULL;
  const StrataChannel *channels;
  const StrataActivity *activities;
  StrataStats *stats;
  guint n_channels;
  gsize n_activities;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  channels = strata_trace_get_channels (trace, &n_channels);
  activities = strata_trace_get_activities (trace, &n_activities);

  stats = g_new0 (StrataStats, 1);
  stats->start = strata_trace_get_start (trace);
  stats->end = strata_trace_get_end (trace);
  stats->cpus = g_array_new (FALSE, TRUE, sizeof (StrataCpuStats));
  stats->threads = g_array_new (FALSE, TRUE, sizeof (StrataThreadStats));

  cpu_index = g_new (guint, n_channels);
  thread_index = g_new (guint, n_channels);
  latencies = g_new0 (GArray *, n_channels);

  for (guint i = 0; i < n_channels; i++)
    {
      const StrataChannel *ch = &channels[i];

      cpu_index[i] = thread_index[i] = G_MAXUINT;

      if (ch->kind == STRATA_CHANNEL_CPU)
        {
          StrataCpuStats cs = {
            .channel = i,
            .cpu = ch->id,
            .instance = ch->instance,
            .switches = strata_trace_get_context_switches (trace, i),
          };

          cpu_index[i] = stats->cpus->len;
          g_array_append_val (stats->cpus, cs);
          stats->switches += cs.switches;
        }
      else if (ch->kind == STRATA_CHANNEL_THREAD)
        {
          StrataThreadStats ts = {
            .channel = i,
            .tid = ch->id,
            .tgid = ch->tgid,
            .instance = ch->instance,
          };

          thread_index[i] = stats->threads->len;
          g_array_append_val (stats->threads, ts);
        }
    }

  for (gsize i = 0; i < n_activities; i++)
    {
      const StrataActivity *a = &activities[i];
      gint64 d = a->end - a->start;

      if (cpu_index[a->channel] != G_MAXUINT)
        {
          StrataCpuStats *cs = &g_array_index (stats->cpus, StrataCpuStats,
                                               cpu_index[a->channel]);

          switch ((StrataActivityKind) a->kind)
            {
            case STRATA_ACTIVITY_TASK: cs->busy += d; break;
            case STRATA_ACTIVITY_IDLE: cs->idle += d; break;
            case STRATA_ACTIVITY_UNKNOWN: cs->unknown += d; break;
            case STRATA_ACTIVITY_IRQ: cs->irq += d; break;
            case STRATA_ACTIVITY_SOFTIRQ: cs->softirq += d; break;
            case STRATA_ACTIVITY_STATE:
            case STRATA_ACTIVITY_WAKEUP:
            case STRATA_ACTIVITY_EVENT:
            case STRATA_N_ACTIVITY_KINDS:
            default:
              break;
            }
        }
      else if (thread_index[a->channel] != G_MAXUINT && a->kind == STRATA_ACTIVITY_STATE)
        {
          StrataThreadStats *ts = &g_array_index (stats->threads, StrataThreadStats,
                                                  thread_index[a->channel]);

          switch ((StrataTaskState) a->state)
            {
            case STRATA_TASK_STATE_RUNNING:
              ts->running += d;
              if (!(a->flags & STRATA_ACTIVITY_FLAG_START_UNSEEN))
                ts->switches_in++;
              break;
            case STRATA_TASK_STATE_RUNNABLE:
            case STRATA_TASK_STATE_PREEMPTED:
              ts->runnable += d;
              break;
            case STRATA_TASK_STATE_WOKEN:
              ts->woken += d;
              /* A wakeup latency is a WOKEN interval that ended with the
               * thread switched in, not one cut by the trace's end or by
               * lost events. */
              if (!(a->flags & (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST)))
                {
                  if (latencies[a->channel] == NULL)
                    latencies[a->channel] = g_array_new (FALSE, FALSE, sizeof (gint64));
                  g_array_append_val (latencies[a->channel], d);
                  g_array_append_val (all_latencies, d);
                }
              break;
            case STRATA_TASK_STATE_SLEEPING:
              ts->sleeping += d;
              break;
            case STRATA_TASK_STATE_UNINTERRUPTIBLE:
              ts->blocked += d;
              break;
            case STRATA_TASK_STATE_STOPPED:
            case STRATA_TASK_STATE_PARKED:
              ts->other += d;
              break;
            case STRATA_TASK_STATE_UNKNOWN:
            case STRATA_TASK_STATE_DEAD:
            case STRATA_N_TASK_STATES:
            default:
              break;
            }
        }
    }

  for (guint i = 0; i < stats->threads->len; i++)
    {
      StrataThreadStats *ts = &g_array_index (stats->threads, StrataThreadStats, i);
      GArray *samples = latencies[ts->channel];

      if (samples != NULL)
        {
          strata_latency_from_samples (&ts->wakeup, (gint64 *) (gpointer) samples->data,
                                       samples->len);
          g_array_unref (samples);
        }
    }

  strata_latency_from_samples (&stats->wakeup, (gint64 *) (gpointer) all_latencies->data,
                               all_latencies->len);

  g_array_sort (stats->threads, compare_threads);
  g_array_sort (stats->cpus, compare_cpus);

  return stats;
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
