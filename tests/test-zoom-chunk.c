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

#include "strata-block-codec.h"
#include "strata-block-packer.h"
#include "strata-chunk-keys.h"
#include "strata-index-private.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-trace-private.h"
#include "strata-zoom-tree-private.h"
#include "strata-test-support.h"

static const char *fixtures[] = {
  "sched-small.dat", "sched-tgid.dat", "lossy.txt", "instances.dat",
};

/* Each lane's activities are read one block at a time, and a lane that
 * begins after the chunk is skipped on its first fence: in memory and
 * with every block of every lane spilled to disk, even the short last
 * ones, the items are the reference's. */
static void
check_on_demand (gboolean spilled)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataRawStore) store = NULL;
      g_autoptr(StrataTrace) trace = NULL;
      const StrataActivity *all;
      StrataZoomGeometry g;
      gsize n;
      guint n_channels, checked = 0, aggregates = 0, lanes = 0, n_spilled = 0;

      if (spilled)
        g_setenv ("STRATA_RAW_STORE_BUDGET", "0", TRUE);
      store = strata_raw_store_new ();
      g_unsetenv ("STRATA_RAW_STORE_BUDGET");
      if (spilled)
        strata_raw_store_set_spill (store, 0, 0);
      trace = strata_test_load_full (path, TRUE, strata_raw_store_add, NULL, store, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      all = strata_trace_get_activities (trace, &n);
      strata_trace_get_channels (trace, &n_channels);

      /* The first-fence test against every activity of the trace. */
      for (guint32 c = 0; c < n_channels; c++)
        for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
          {
            gint64 first = G_MAXINT64;
            gint64 ts[3];

            for (gsize i = 0; i < n; i++)
              if (all[i].channel == c && strata_zoom_lane_of (&all[i]) == l)
                first = MIN (first, all[i].start);
            ts[0] = first;
            ts[1] = first == G_MAXINT64 ? G_MAXINT64 : first + 1;
            ts[2] = strata_trace_get_end (trace) + 1;
            for (guint k = 0; k < G_N_ELEMENTS (ts); k++)
              {
                gboolean want = first < ts[k];

                g_assert_cmpint (strata_raw_store_lane_begins_before (store, c, l, ts[k]), ==, want);
              }
            lanes += first != G_MAXINT64;
            if (spilled && first != G_MAXINT64)
              {
                const StrataRawStoreFence *fences;
                const StrataRawStoreSpilled *blocks;
                guint n_in_memory, n_fences, n_blocks;

                strata_raw_store_peek_lane (store, c, l, &n_in_memory, &fences, &n_fences, &blocks, &n_blocks);
                n_spilled += n_blocks;
              }
          }
      g_assert_cmpuint (lanes, >, 0);
      /* Blocks went to disk, short last ones too (the channels appended
       * to last keep their tails). */
      g_test_message ("%s: %u lanes, %u blocks spilled", fixtures[f], lanes, n_spilled);
      g_assert_true (!spilled || n_spilled > lanes / 2);
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

static void
test_on_demand_equals_brute_force (void)
{
  check_on_demand (FALSE);
}

static void
test_on_demand_spilled_equals_brute_force (void)
{
  check_on_demand (TRUE);
}

/* A chunk's items hold every activity that overlaps it, and all their
 * (clipped) time, at every level. */
static void
test_conservation (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataRawStore) store = strata_raw_store_new ();
  g_autoptr(StrataTrace) trace = strata_test_load_full (path, TRUE, strata_raw_store_add, NULL, store, NULL, NULL, NULL, &error);
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
  g_test_add_func ("/strata/zoom-tree/on-demand-spilled-equals-brute-force",
                   test_on_demand_spilled_equals_brute_force);
  g_test_add_func ("/strata/zoom-tree/conservation", test_conservation);
  return g_test_run ();
}
