/* test-stats.c
 *
 * The statistics' wakeup latencies held to a budget: a builder that may
 * keep only a few dozen bytes of them in memory writes them to its spill
 * file over and over (its own count of the bytes in memory stays under
 * the bound), and then selects the percentiles from there; its results
 * are the same as those of a builder that keeps them all, and both are
 * those of an independent oracle that collects the latencies from the
 * activities and sorts them (nearest rank), on real recordings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata-test-support.h"

static const char *fixtures[] = {
  "sched-small.dat", "lossy.dat", "instances.dat", "sched-tgid.txt",
};

static int
by_value (gconstpointer pa,
          gconstpointer pb)
{
  gint64 a = *(const gint64 *) pa, b = *(const gint64 *) pb;

  return a < b ? -1 : a > b;
}

/* The oracle's percentile: the smallest sample with at least p% of them
 * at or below it. */
static gint64
oracle_rank (GArray *sorted,
             double  p)
{
  guint n = sorted->len;
  guint rank = (guint) ceil (p / 100.0 * n);

  return g_array_index (sorted, gint64, MIN (MAX (rank, 1), n) - 1);
}

static void
assert_latency (const StrataLatency *got,
                GArray              *samples)
{
  g_array_sort (samples, by_value);
  g_assert_cmpuint (got->count, ==, samples->len);
  if (samples->len == 0)
    return;
  g_assert_cmpint (got->p50, ==, oracle_rank (samples, 50));
  g_assert_cmpint (got->p90, ==, oracle_rank (samples, 90));
  g_assert_cmpint (got->p99, ==, oracle_rank (samples, 99));
  g_assert_cmpint (got->max, ==, g_array_index (samples, gint64, samples->len - 1));
}

static StrataStats *
build (StrataTrace *trace,
       guint64      budget,
       guint64     *peak,
       guint64     *n_spills)
{
  g_autoptr(StrataStatsBuilder) builder = strata_stats_builder_new ();
  const StrataActivity *acts;
  gsize n;

  strata_stats_builder_set_latency_budget (builder, budget);
  acts = strata_trace_get_activities (trace, &n);
  for (gsize i = 0; i < n; i++)
    {
      strata_stats_builder_add (&acts[i], builder);
      /* Past the budget only by the growth of one channel's samples,
       * which were in memory under it. */
      if (i % 97 == 0)
        g_assert_cmpuint (strata_stats_builder_get_latency_bytes (builder, NULL, NULL), <=,
                          MAX (2 * budget, budget + 32));
    }
  strata_stats_builder_get_latency_bytes (builder, peak, n_spills);
  return strata_stats_builder_finish (builder, trace);
}

static void
test_latency_budget (void)
{
  guint64 total_spills = 0, total_samples = 0;

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = strata_test_load (path, &error);
      g_autoptr(GHashTable) by_channel = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
      g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(StrataStats) whole = NULL;
      const StrataActivity *acts;
      const StrataChannel *channels;
      guint n_channels;
      gsize n;

      g_assert_no_error (error);
      acts = strata_trace_get_activities (trace, &n);
      channels = strata_trace_get_channels (trace, &n_channels);

      /* The oracle: the WOKEN intervals that ended with the thread
       * switched in, per thread channel. */
      for (gsize i = 0; i < n; i++)
        {
          const StrataActivity *a = &acts[i];
          gint64 d = a->end - a->start;
          GArray *samples;

          if (a->kind != STRATA_ACTIVITY_STATE || a->state != STRATA_TASK_STATE_WOKEN ||
              (a->flags & (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST)) ||
              a->channel >= n_channels || channels[a->channel].kind != STRATA_CHANNEL_THREAD)
            continue;
          samples = g_hash_table_lookup (by_channel, GUINT_TO_POINTER (a->channel));
          if (samples == NULL)
            {
              samples = g_array_new (FALSE, FALSE, sizeof (gint64));
              g_hash_table_insert (by_channel, GUINT_TO_POINTER (a->channel), samples);
            }
          g_array_append_val (samples, d);
          g_array_append_val (all, d);
        }

      whole = build (trace, G_MAXUINT64, NULL, NULL);

      for (guint b = 0; b < 3; b++)
        {
          static const guint64 budgets[] = { 48, 1000, 8192 };
          guint64 peak = 0, n_spills = 0;
          g_autoptr(StrataStats) bounded = build (trace, budgets[b], &peak, &n_spills);

          g_test_message ("%s: %u latencies, budget %" G_GUINT64_FORMAT ": peak %" G_GUINT64_FORMAT
                          " bytes, %" G_GUINT64_FORMAT " spills",
                          fixtures[f], all->len, budgets[b], peak, n_spills);
          g_assert_cmpuint (peak, <=, MAX (2 * budgets[b], budgets[b] + 32));
          if ((guint64) all->len * sizeof (gint64) > 2 * budgets[b])
            g_assert_cmpuint (n_spills, >, 0);
          total_spills += n_spills;

          /* The same rows, byte for byte (their padding is zeroed). */
          g_assert_cmpuint (bounded->threads->len, ==, whole->threads->len);
          g_assert_cmpmem (bounded->threads->data, bounded->threads->len * sizeof (StrataThreadStats),
                           whole->threads->data, whole->threads->len * sizeof (StrataThreadStats));
          g_assert_cmpmem (&bounded->wakeup, sizeof bounded->wakeup, &whole->wakeup, sizeof whole->wakeup);
          g_assert_cmpmem (bounded->cpus->data, bounded->cpus->len * sizeof (StrataCpuStats),
                           whole->cpus->data, whole->cpus->len * sizeof (StrataCpuStats));
        }

      /* And both are the oracle's. */
      for (guint t = 0; t < whole->threads->len; t++)
        {
          const StrataThreadStats *ts = &g_array_index (whole->threads, StrataThreadStats, t);
          GArray *samples = g_hash_table_lookup (by_channel, GUINT_TO_POINTER (ts->channel));
          g_autoptr(GArray) none = g_array_new (FALSE, FALSE, sizeof (gint64));

          assert_latency (&ts->wakeup, samples != NULL ? samples : none);
        }
      assert_latency (&whole->wakeup, all);
      total_samples += all->len;
    }

  g_assert_cmpuint (total_samples, >, 1000);
  g_assert_cmpuint (total_spills, >, 10);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/stats/latency-budget-equals-unbounded", test_latency_budget);

  return g_test_run ();
}
