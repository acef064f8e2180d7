/* test-zoom-chunk.c
 *
 * On-demand chunks against brute force, on real recordings: for random
 * (level, chunk, channel) triples, the items computed from the raw store
 * equal those of a deliberately simple reference written here, which scans
 * every activity of the trace and applies the seed's rules directly. Also
 * checks conservation: a level's items, summed over a chunk, hold as many
 * members and as much busy time as the activities clipped to it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-test-support.h"

static const char *fixtures[] = {
  "sched-small.dat", "sched-tgid.dat", "lossy.txt", "instances.dat",
};

static void
test_on_demand_equals_brute_force (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataRawStore) store = strata_raw_store_new ();
      g_autoptr(StrataTrace) trace = strata_trace_load_full (path, STRATA_TRACE_LOAD_DEFAULT,
                                                             strata_raw_store_add, store, &error);
      const StrataActivity *all;
      StrataZoomGeometry g;
      gsize n;
      guint n_channels, checked = 0, aggregates = 0;

      g_assert_no_error (error);
      all = strata_trace_get_activities (trace, &n);
      strata_trace_get_channels (trace, &n_channels);
      /* 256 pixels per chunk, so aggregation happens at every level of
       * these short recordings. */
      g_assert_true (strata_zoom_geometry_init (&g, strata_trace_get_start (trace),
                                                strata_trace_get_end (trace), 4, 256, 1000, &error));

      for (guint q = 0; q < 300; q++)
        {
          guint level = g_rand_int_range (rand, 0, g.n_levels);
          gint64 first = strata_zoom_geometry_chunk_index (&g, level, strata_trace_get_start (trace));
          gint64 last = strata_zoom_geometry_chunk_index (&g, level, strata_trace_get_end (trace));
          gint64 index = first + (gint64) (g_rand_double (rand) * (last - first + 1));
          guint32 channel = g_rand_int_range (rand, 0, n_channels);
          gint64 s = strata_zoom_geometry_chunk_start (&g, level, index);
          gint64 e = s + strata_zoom_geometry_chunk_duration (&g, level);
          g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
          g_autoptr(GArray) want = strata_test_brute_force_chunk (all, n, channel, s, e,
                                                      strata_zoom_geometry_pixel (&g, level));

          strata_zoom_compute_chunk (store, &g, level, index, channel, got);
          g_assert_cmpuint (got->len, ==, want->len);
          g_assert_cmpmem (got->data, got->len * sizeof (StrataZoomItem),
                           want->data, want->len * sizeof (StrataZoomItem));
          checked += got->len;
          for (guint i = 0; i < got->len; i++)
            aggregates += g_array_index (got, StrataZoomItem, i).count > 1;
        }

      g_assert_cmpuint (checked, >, 0);
      g_assert_cmpuint (aggregates, >, 0);
    }
}

/* A chunk's items hold every activity that overlaps it, and all their
 * (clipped) time, at every level. */
static void
test_conservation (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataRawStore) store = strata_raw_store_new ();
  g_autoptr(StrataTrace) trace = strata_trace_load_full (path, STRATA_TRACE_LOAD_DEFAULT,
                                                         strata_raw_store_add, store, &error);
  StrataZoomGeometry g;
  guint n_channels;

  g_assert_no_error (error);
  strata_trace_get_channels (trace, &n_channels);
  g_assert_true (strata_zoom_geometry_init (&g, strata_trace_get_start (trace),
                                            strata_trace_get_end (trace), 4, 256, 1000, NULL));

  for (guint level = 0; level < MIN (g.n_levels, 4); level++)
    {
      gint64 first = strata_zoom_geometry_chunk_index (&g, level, strata_trace_get_start (trace));
      gint64 last = strata_zoom_geometry_chunk_index (&g, level, strata_trace_get_end (trace));

      for (guint32 channel = 0; channel < n_channels; channel++)
        for (gint64 index = first; index <= last; index++)
          {
            g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
            g_autoptr(GArray) acts = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
            gint64 s = strata_zoom_geometry_chunk_start (&g, level, index);
            gint64 e = s + strata_zoom_geometry_chunk_duration (&g, level);
            guint64 count = 0;
            gint64 busy = 0, want_busy = 0;

            strata_zoom_compute_chunk (store, &g, level, index, channel, items);
            strata_raw_store_query (store, channel, s, e, acts);
            for (guint i = 0; i < items->len; i++)
              {
                count += g_array_index (items, StrataZoomItem, i).count;
                busy += g_array_index (items, StrataZoomItem, i).busy;
              }
            for (guint i = 0; i < acts->len; i++)
              {
                const StrataActivity *a = &g_array_index (acts, StrataActivity, i);
                want_busy += MIN (a->end, e) - MAX (a->start, s);
              }
            g_assert_cmpuint (count, ==, acts->len);
            g_assert_cmpint (busy, ==, want_busy);
          }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/zoom-tree/on-demand-equals-brute-force", test_on_demand_equals_brute_force);
  g_test_add_func ("/strata/zoom-tree/conservation", test_conservation);
  return g_test_run ();
}
