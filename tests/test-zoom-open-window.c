/* test-zoom-open-window.c
 *
 * The open chunk of a growing tree, answered for a window: at checkpoints
 * in real recordings, the raw store holds the activities completed by the
 * checkpoint and the open ones are those going on across it, as the
 * kernel model hands them to the tree. For random (level, chunk, channel,
 * window), the items strata_zoom_compute_window() gives that overlap the
 * window are those of the whole chunk computed by a deliberately simple
 * reference (strata_test_brute_force_chunk()) over the same activities,
 * and strata_zoom_compute_chunk_full() gives the whole chunk exactly. The
 * window's walk of the raw store must put each open activity where the
 * whole chunk's sort puts it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-raw-store-private.h"
#include "strata-trace-private.h"
#include "strata-zoom-tree-private.h"
#include "strata-test-support.h"

static const char *fixtures[] = {
  "sched-small.dat", "sched-tgid.dat", "lossy.txt", "instances.dat",
};

static void
check_checkpoint (const StrataActivity *all,
                  gsize                 n,
                  guint                 n_channels,
                  gint64                start,
                  gint64                h,
                  GRand                *rand,
                  guint                *n_checked,
                  guint                *n_with_open)
{
  g_autoptr(StrataRawStore) store = strata_raw_store_new ();
  g_autoptr(GArray) completed = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GArray) open = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GArray) known = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GError) error = NULL;
  StrataZoomGeometry g;

  /* Completed by @h: in the store, in the order they complete. Going on
   * across it: open. */
  for (gsize i = 0; i < n; i++)
    if (all[i].end <= h)
      g_array_append_val (completed, all[i]);
  strata_test_sort_by_end (completed);
  for (guint i = 0; i < completed->len; i++)
    strata_raw_store_add (&g_array_index (completed, StrataActivity, i), store);
  strata_test_open_at (all, n, h, open);
  g_array_append_vals (known, completed->data, completed->len);
  g_array_append_vals (known, open->data, open->len);

  g_assert_true (strata_zoom_geometry_init (&g, start, h, 4, 256, 1000, &error));
  g_assert_no_error (error);

  for (guint q = 0; q < 200; q++)
    {
      guint level = g_rand_int_range (rand, 0, g.n_levels);
      /* The open chunk, the growing edge, most of the time. */
      gint64 last = strata_zoom_geometry_chunk_index (&g, level, h - 1);
      gint64 first = strata_zoom_geometry_chunk_index (&g, level, start);
      gint64 index = g_rand_int_range (rand, 0, 4) > 0 ? last
                     : first + (gint64) (g_rand_double (rand) * (last - first + 1));
      guint32 channel = g_rand_int_range (rand, 0, n_channels);
      gint64 s = strata_zoom_geometry_chunk_start (&g, level, index);
      gint64 d = strata_zoom_geometry_chunk_duration (&g, level);
      gint64 from = s + (gint64) (g_rand_double (rand) * d);
      gint64 to = from + 1 + (gint64) (g_rand_double (rand) * (s + d - from));
      guint n_open;
      const StrataActivity *channel_open = strata_test_channel_open (open, channel, &n_open);
      g_autoptr(GArray) full = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      g_autoptr(GArray) window = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      g_autoptr(GArray) want = strata_test_brute_force_chunk ((const StrataActivity *) known->data, known->len,
                                                               channel, s, s + d,
                                                               strata_zoom_geometry_pixel (&g, level));
      g_autoptr(GArray) want_window = strata_test_items_in_window (want, from, to);
      g_autoptr(GArray) got_window = NULL;

      strata_zoom_compute_chunk_full (store, channel_open, n_open, &g, level, index, channel, full);
      g_assert_cmpuint (full->len, ==, want->len);
      g_assert_cmpmem (full->data, full->len * sizeof (StrataZoomItem),
                       want->data, want->len * sizeof (StrataZoomItem));

      strata_zoom_compute_window (store, channel_open, n_open, &g, level, index, channel, from, to, window);
      got_window = strata_test_items_in_window (window, from, to);
      g_assert_cmpuint (got_window->len, ==, want_window->len);
      g_assert_cmpmem (got_window->data, got_window->len * sizeof (StrataZoomItem),
                       want_window->data, want_window->len * sizeof (StrataZoomItem));
      /* Only a part of the chunk is computed: the point of the window. */
      g_assert_cmpuint (window->len, <=, want->len);

      *n_checked += got_window->len;
      *n_with_open += n_open > 0 && got_window->len > 0;
    }
}

static void
test_open_window_equals_brute_force (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (23);

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = NULL;
      const StrataActivity *all;
      gsize n;
      guint n_channels, n_checked = 0, n_with_open = 0;
      gint64 start, end;

      trace = strata_test_load_full (path, TRUE, NULL, NULL, NULL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      all = strata_trace_get_activities (trace, &n);
      strata_trace_get_channels (trace, &n_channels);
      start = strata_trace_get_start (trace);
      end = strata_trace_get_end (trace);
      g_assert_cmpint (end, >, start);

      for (guint k = 1; k <= 4; k++)
        check_checkpoint (all, n, n_channels, start, start + (end - start) * k / 5, rand,
                          &n_checked, &n_with_open);

      g_test_message ("%s: %u items checked, %u windows with open activities", fixtures[f],
                      n_checked, n_with_open);
      g_assert_cmpuint (n_checked, >, 0);
      g_assert_cmpuint (n_with_open, >, 0);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/zoom-open-window/equals-brute-force", test_open_window_equals_brute_force);
  return g_test_run ();
}
