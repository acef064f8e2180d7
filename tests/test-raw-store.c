/* test-raw-store.c
 *
 * The raw store against brute force on real recordings: every range query
 * returns exactly the activities that overlap the range, found by scanning
 * them all. Also checks the property the store stands on: on a channel at
 * one nesting depth, the kernel model's intervals never overlap.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-test-support.h"

static const char *fixtures[] = {
  "sched-small.dat", "sched-tgid.txt", "lossy.dat", "instances.dat",
};

static int
compare_activities (gconstpointer pa,
                    gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;

  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  if (a->end != b->end) return a->end < b->end ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->flags != b->flags) return a->flags < b->flags ? -1 : 1;
  if (a->label != b->label) return a->label < b->label ? -1 : 1;
  return a->arg < b->arg ? -1 : a->arg > b->arg;
}

static gboolean
overlaps (const StrataActivity *a,
          gint64                t0,
          gint64                t1)
{
  /* Instants and intervals of no length are where they start. */
  if (strata_activity_is_instant (a) || a->start == a->end)
    return a->start >= t0 && a->start < t1;
  return a->start < t1 && a->end > t0;
}

static void
test_lanes_do_not_overlap (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = strata_trace_load (path, &error);
      g_autoptr(GHashTable) last_end = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      const StrataActivity *activities;
      gsize n;

      g_assert_no_error (error);
      activities = strata_trace_get_activities (trace, &n);

      /* In the order the model completes them, lane by lane. */
      for (gsize i = 0; i < n; i++)
        {
          const StrataActivity *a = &activities[i];
          gint64 key;
          gint64 *end;

          if (strata_activity_is_instant (a))
            continue;
          key = ((gint64) a->channel << 8) | strata_activity_get_depth (a);
          end = g_hash_table_lookup (last_end, &key);
          if (end != NULL && a->start < *end)
            g_error ("%s: channel %u depth %u: %s %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT
                     " overlaps the previous, which ends at %" G_GINT64_FORMAT,
                     fixtures[f], a->channel, strata_activity_get_depth (a),
                     strata_activity_kind_to_string (a->kind), a->start, a->end, *end);
          if (end == NULL)
            {
              end = g_new (gint64, 1);
              g_hash_table_insert (last_end, g_memdup2 (&key, sizeof key), end);
            }
          *end = a->end;
        }
    }
}

static void
test_query_equals_brute_force (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataRawStore) store = strata_raw_store_new ();
      g_autoptr(StrataTrace) trace = strata_trace_load_full (path, STRATA_TRACE_LOAD_DEFAULT,
                                                             strata_raw_store_add, store, &error);
      const StrataActivity *activities;
      gsize n;
      guint n_channels;
      gint64 start, end;

      g_assert_no_error (error);
      activities = strata_trace_get_activities (trace, &n);
      strata_trace_get_channels (trace, &n_channels);
      start = strata_trace_get_start (trace);
      end = strata_trace_get_end (trace);
      g_assert_cmpuint (strata_raw_store_get_size (store), ==, n);

      for (guint q = 0; q < 400; q++)
        {
          g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
          g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
          guint32 channel = g_rand_int_range (rand, 0, n_channels);
          gint64 span = MAX (end - start, 1);
          gint64 t0 = start - span / 10 + (gint64) (g_rand_double (rand) * span * 1.2);
          gint64 len = (gint64) (g_rand_double (rand) * g_rand_double (rand) * span);
          gint64 t1 = t0 + MAX (len, 1);

          strata_raw_store_query (store, channel, t0, t1, got);
          for (gsize i = 0; i < n; i++)
            if (activities[i].channel == channel && overlaps (&activities[i], t0, t1))
              g_array_append_val (want, activities[i]);

          g_array_sort (got, compare_activities);
          g_array_sort (want, compare_activities);
          g_assert_cmpuint (got->len, ==, want->len);
          g_assert_cmpmem (got->data, got->len * sizeof (StrataActivity),
                           want->data, want->len * sizeof (StrataActivity));
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/raw-store/lanes-do-not-overlap", test_lanes_do_not_overlap);
  g_test_add_func ("/strata/raw-store/query-equals-brute-force", test_query_equals_brute_force);
  return g_test_run ();
}
