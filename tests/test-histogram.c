/* test-histogram.c
 *
 * The latency histograms against two other computations: over the whole
 * trace, their wakeup latencies are the statistics' (count, p50, p90,
 * p99 and max, overall and thread by thread, from the index's thread
 * rows); over any range, every bucket and percentile equals a brute
 * force over the activities kept in memory (each value tested against
 * the bucket bounds written out here, sorted for the nearest ranks).
 * `strata-cli stats --histogram --json` prints the same buckets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <json-glib/json-glib.h>

#include "strata-test-support.h"

static const char *files[] = {
  "sched-small.dat", "lossy.dat", "perf-sched.data.xz", "critical-path.dat.xz",
};

static GArray *
thread_rows (StrataTrace *trace)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  const StrataChannel *channels;
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  for (guint32 i = 0; i < n; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD)
      g_array_append_val (rows, i);
  return rows;
}

static void
test_whole_trace_is_stats (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autoptr(StrataTrace) trace = strata_test_load_with_tree (files[f]);
      g_autoptr(StrataStats) stats = strata_stats_compute (trace);
      g_autoptr(GArray) rows = thread_rows (trace);
      gint64 from = strata_trace_get_start (trace), to = strata_trace_get_end (trace) + 1;
      StrataHistogram h[STRATA_N_HISTOGRAMS];

      strata_histograms_compute (trace, (guint32 *) (gpointer) rows->data, rows->len, from, to, h);
      g_assert_cmpuint (h[STRATA_HISTOGRAM_WAKEUP].count, ==, stats->wakeup.count);
      g_assert_cmpuint (h[STRATA_HISTOGRAM_WAKEUP].count, >, 0);
      g_assert_cmpint (h[STRATA_HISTOGRAM_WAKEUP].p50, ==, stats->wakeup.p50);
      g_assert_cmpint (h[STRATA_HISTOGRAM_WAKEUP].p90, ==, stats->wakeup.p90);
      g_assert_cmpint (h[STRATA_HISTOGRAM_WAKEUP].p99, ==, stats->wakeup.p99);
      g_assert_cmpint (h[STRATA_HISTOGRAM_WAKEUP].max, ==, stats->wakeup.max);

      for (guint i = 0; i < stats->threads->len; i++)
        {
          const StrataThreadStats *ts = &g_array_index (stats->threads, StrataThreadStats, i);
          guint32 ch = ts->channel;

          strata_histograms_compute (trace, &ch, 1, from, to, h);
          g_assert_cmpuint (h[STRATA_HISTOGRAM_WAKEUP].count, ==, ts->wakeup.count);
          if (ts->wakeup.count == 0)
            continue;
          g_assert_cmpint (h[STRATA_HISTOGRAM_WAKEUP].p50, ==, ts->wakeup.p50);
          g_assert_cmpint (h[STRATA_HISTOGRAM_WAKEUP].p99, ==, ts->wakeup.p99);
          g_assert_cmpint (h[STRATA_HISTOGRAM_WAKEUP].max, ==, ts->wakeup.max);
        }
    }
}

/* The buckets written out: 0, then 1 2 5 10 20 50 ... ns. */
static guint
bucket_by_hand (gint64 v)
{
  gint64 bound = 1;
  guint b = 0;

  if (v <= 0)
    return 0;
  for (guint k = 0; ; k++)
    {
      static const int m[3] = { 2, 5, 10 };

      b++;
      if (b == STRATA_HISTOGRAM_N_BUCKETS - 1 || v < bound * m[k % 3])
        return b;
      if (k % 3 == 2)
        bound *= 10;
    }
}

static int
compare_gint64 (const void *pa,
                const void *pb)
{
  gint64 a = *(const gint64 *) pa, b = *(const gint64 *) pb;
  return a < b ? -1 : a > b;
}

static gint64
rank (GArray *v,
      double  p)
{
  guint r = (guint) ceil (p / 100.0 * v->len);

  return g_array_index (v, gint64, MAX (r, 1) - 1);
}

static void
assert_brute_force (StrataTrace *trace,
                    gint64       from,
                    gint64       to)
{
  g_autoptr(GArray) rows = thread_rows (trace);
  const StrataActivity *all;
  StrataHistogram h[STRATA_N_HISTOGRAMS];
  gsize n;

  strata_histograms_compute (trace, (guint32 *) (gpointer) rows->data, rows->len, from, to, h);
  all = strata_trace_get_activities (trace, &n);
  for (guint k = 0; k < STRATA_N_HISTOGRAMS; k++)
    {
      g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (gint64));
      guint64 counts[STRATA_HISTOGRAM_N_BUCKETS] = { 0 };

      for (gsize i = 0; i < n; i++)
        {
          const StrataActivity *a = &all[i];
          gboolean wanted_state = k == STRATA_HISTOGRAM_WAKEUP
                                  ? a->state == STRATA_TASK_STATE_WOKEN
                                  : a->state == STRATA_TASK_STATE_RUNNING &&
                                    !(a->flags & STRATA_ACTIVITY_FLAG_START_UNSEEN);

          if (a->kind == STRATA_ACTIVITY_STATE && wanted_state && a->start >= from && a->end <= to &&
              !(a->flags & (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST)))
            {
              gint64 d = a->end - a->start;

              g_array_append_val (values, d);
              counts[bucket_by_hand (d)]++;
            }
        }
      g_assert_cmpuint (h[k].count, ==, values->len);
      for (guint b = 0; b < STRATA_HISTOGRAM_N_BUCKETS; b++)
        g_assert_cmpuint (h[k].counts[b], ==, counts[b]);
      if (values->len == 0)
        continue;
      qsort (values->data, values->len, sizeof (gint64), compare_gint64);
      g_assert_cmpint (h[k].p50, ==, rank (values, 50));
      g_assert_cmpint (h[k].p90, ==, rank (values, 90));
      g_assert_cmpint (h[k].p99, ==, rank (values, 99));
      g_assert_cmpint (h[k].max, ==, g_array_index (values, gint64, values->len - 1));
      g_assert_cmpint (h[k].min, ==, g_array_index (values, gint64, 0));
    }
}

static void
test_ranges_brute_force (void)
{
  GRand *rand = g_rand_new_with_seed (26);

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = strata_test_fixture (files[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = strata_test_load (path, &error);
      gint64 start, end;

      g_assert_no_error (error);
      start = strata_trace_get_start (trace);
      end = strata_trace_get_end (trace) + 1;
      assert_brute_force (trace, start, end);
      for (guint k = 0; k < 10; k++)
        {
          gint64 a = start + (gint64) (g_rand_double (rand) * (end - start));
          gint64 b = a + (gint64) (g_rand_double (rand) * (end - a)) + 1;

          assert_brute_force (trace, a, b);
        }
    }
  g_rand_free (rand);
}

static void
test_bucket_bounds (void)
{
  g_assert_cmpint (strata_histogram_bucket_start (0), ==, 0);
  g_assert_cmpint (strata_histogram_bucket_start (1), ==, 1);
  g_assert_cmpint (strata_histogram_bucket_start (2), ==, 2);
  g_assert_cmpint (strata_histogram_bucket_start (3), ==, 5);
  g_assert_cmpint (strata_histogram_bucket_start (4), ==, 10);
  for (gint64 v = 0; v < 100000; v = v * 3 / 2 + 1)
    {
      guint b = strata_histogram_bucket_of (v);

      g_assert_cmpuint (b, ==, bucket_by_hand (v));
      g_assert_cmpint (strata_histogram_bucket_start (b), <=, v);
      g_assert_cmpint (v, <, strata_histogram_bucket_end (b));
    }
  g_assert_cmpuint (strata_histogram_bucket_of (G_MAXINT64), ==, STRATA_HISTOGRAM_N_BUCKETS - 1);
}

static void
test_cli (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  const char *args[] = { "stats", "--histogram", "--json", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-small.dat");
  g_autoptr(GArray) rows = thread_rows (trace);
  StrataHistogram h[STRATA_N_HISTOGRAMS];
  JsonObject *wake;
  JsonArray *buckets;
  guint first, last;

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  wake = json_object_get_object_member (
           json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "histograms"),
           "wakeup_latency");
  strata_histograms_compute (trace, (guint32 *) (gpointer) rows->data, rows->len,
                             strata_trace_get_start (trace), strata_trace_get_end (trace) + 1, h);
  g_assert_cmpint (json_object_get_int_member (wake, "count"), ==, h[0].count);
  g_assert_cmpint (json_object_get_int_member (wake, "p99_ns"), ==, h[0].p99);
  buckets = json_object_get_array_member (wake, "buckets");
  strata_histogram_range (&h[0], &first, &last);
  g_assert_cmpuint (json_array_get_length (buckets), ==, last - first + 1);
  for (guint b = first; b <= last; b++)
    {
      JsonObject *o = json_array_get_object_element (buckets, b - first);

      g_assert_cmpint (json_object_get_int_member (o, "from_ns"), ==, strata_histogram_bucket_start (b));
      g_assert_cmpint (json_object_get_int_member (o, "count"), ==, h[0].counts[b]);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/histogram/bucket-bounds", test_bucket_bounds);
  g_test_add_func ("/strata/histogram/whole-trace-is-stats", test_whole_trace_is_stats);
  g_test_add_func ("/strata/histogram/ranges-brute-force", test_ranges_brute_force);
  g_test_add_func ("/strata/histogram/cli", test_cli);
  return g_test_run ();
}
