/* test-zoom-settled.c
 *
 * The settled items a reader keeps between its queries of a growing tree
 * (strata-zoom-settled.c). Real recordings are fed to a raw store in
 * steps, as a growing tree publishes them: at each step the activities
 * completed by then are in the store and the ones going on across it are
 * open. At every step the same views (the whole of the chunks at the
 * growing edge, narrower ones ending there, and some elsewhere), asked
 * through one StrataZoomSettled kept across the steps, give the items
 * that a deliberately simple reference (strata_test_brute_force_chunk())
 * gives over the same activities, and the ones
 * strata_zoom_compute_window() computes afresh; the kept items are taken
 * again at later steps (else the test would test nothing), and never
 * outnumber the cap, a small one too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-raw-store-private.h"
#include "strata-trace-private.h"
#include "strata-zoom-chunk.h"
#include "strata-zoom-tree-private.h"
#include "strata-test-support.h"

static const char *fixtures[] = {
  "sched-small.dat", "sched-tgid.dat", "lossy.txt", "instances.dat",
};

#define N_STEPS 24
#define N_VIEWS 24

typedef struct
{
  guint   level;
  guint32 channel;
  /* 0: the whole chunk at the edge so far; 1: a quarter of it ending at
   * the edge; 2: a fixed window anywhere. */
  guint   shape;
  gint64  from, to;
} View;

static void
assert_same_items (GArray *got,
                   GArray *want)
{
  g_assert_cmpuint (got->len, ==, want->len);
  g_assert_cmpmem (got->data, got->len * sizeof (StrataZoomItem),
                   want->data, want->len * sizeof (StrataZoomItem));
}

static void
check_fixture (const char *name,
               gsize       max_items,
               guint64    *n_found,
               guint      *n_checked)
{
  g_autofree char *path = strata_test_fixture (name);
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataRawStore) store = strata_raw_store_new ();
  g_autoptr(StrataZoomSettled) settled = strata_zoom_settled_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (23);
  g_autoptr(GArray) sorted = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  const StrataActivity *all;
  View views[N_VIEWS];
  StrataZoomGeometry g;
  guint n_channels;
  gsize n, added = 0;
  gint64 start, end;

  trace = strata_test_load_full (path, TRUE, NULL, NULL, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  all = strata_trace_get_activities (trace, &n);
  strata_trace_get_channels (trace, &n_channels);
  start = strata_trace_get_start (trace);
  end = strata_trace_get_end (trace);
  g_assert_cmpint (end, >, start);
  /* In the order they complete, as the tree publishes them. */
  g_array_append_vals (sorted, all, n);
  strata_test_sort_by_end (sorted);

  /* The finished trace's geometry all along, so the views keep their
   * chunks from step to step; each view the same at every step. */
  g_assert_true (strata_zoom_geometry_init (&g, start, end, 4, 256, 1000, &error));
  g_assert_no_error (error);
  strata_zoom_settled_set_max_items (settled, max_items);
  for (guint v = 0; v < N_VIEWS; v++)
    {
      View *view = &views[v];

      view->level = g_rand_int_range (rand, 0, g.n_levels);
      view->channel = g_rand_int_range (rand, 0, n_channels);
      view->shape = v % 3;
      view->from = start + (gint64) (g_rand_double (rand) * (end - start));
      view->to = view->from + 1 + (gint64) (g_rand_double (rand) * (end - view->from));
    }

  for (guint step = 1; step <= N_STEPS; step++)
    {
      gint64 h = start + (end - start) * step / N_STEPS;
      g_autoptr(GArray) open = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      g_autoptr(GArray) known = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

      if (step == N_STEPS)
        h = end + 1;
      for (; added < n && g_array_index (sorted, StrataActivity, added).end <= h; added++)
        strata_raw_store_add (&g_array_index (sorted, StrataActivity, added), store);
      g_array_append_vals (known, sorted->data, added);
      strata_test_open_at ((const StrataActivity *) sorted->data + added, n - added, h, open);
      g_array_append_vals (known, open->data, open->len);

      strata_zoom_settled_begin (settled, 1);
      for (guint v = 0; v < N_VIEWS; v++)
        {
          const View *view = &views[v];
          gint64 d = strata_zoom_geometry_chunk_duration (&g, view->level);
          gint64 index = strata_zoom_geometry_chunk_index (&g, view->level, MIN (h, end) - 1);
          gint64 s = strata_zoom_geometry_chunk_start (&g, view->level, index);
          gint64 from = view->from, to = view->to;
          guint n_open;
          const StrataActivity *channel_open = strata_test_channel_open (open, view->channel, &n_open);
          g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
          g_autoptr(GArray) afresh = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
          g_autoptr(GArray) want = NULL, got_window = NULL, afresh_window = NULL, want_window = NULL;

          if (view->shape == 0)
            from = s, to = MAX (h, s + 1);
          else if (view->shape == 1)
            from = MAX (s, h - d / 4), to = MAX (h, from + 1);
          else
            {
              index = strata_zoom_geometry_chunk_index (&g, view->level, from);
              s = strata_zoom_geometry_chunk_start (&g, view->level, index);
              to = MIN (to, s + d);
            }

          strata_zoom_compute_window_settled (store, channel_open, n_open, &g, view->level, index,
                                              view->channel, from, to, settled, got);
          strata_zoom_compute_window (store, channel_open, n_open, &g, view->level, index,
                                      view->channel, from, to, afresh);
          want = strata_test_brute_force_chunk ((const StrataActivity *) known->data, known->len,
                                                view->channel, s, s + d,
                                                strata_zoom_geometry_pixel (&g, view->level));
          got_window = strata_test_items_in_window (got, from, to);
          afresh_window = strata_test_items_in_window (afresh, from, to);
          want_window = strata_test_items_in_window (want, from, to);
          assert_same_items (got_window, want_window);
          assert_same_items (afresh_window, want_window);
          *n_checked += got_window->len;
        }
      strata_zoom_settled_end (settled);
      g_assert_cmpuint (strata_zoom_settled_get_n_items (settled), <=, max_items);
    }
  *n_found += strata_zoom_settled_get_n_found (settled);
}

static void
test_settled_equals_brute_force (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      guint64 n_found = 0;
      guint n_checked = 0;

      check_fixture (fixtures[f], G_MAXSIZE, &n_found, &n_checked);
      g_test_message ("%s: %u items checked, kept lanes taken %" G_GUINT64_FORMAT " times",
                      fixtures[f], n_checked, n_found);
      g_assert_cmpuint (n_checked, >, 0);
      g_assert_cmpuint (n_found, >, 0);
    }
}

/* A cap of a few items: lanes are let go every query, the answers the
 * same. */
static void
test_settled_capped (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      guint64 n_found = 0;
      guint n_checked = 0;

      check_fixture (fixtures[f], 16, &n_found, &n_checked);
      g_assert_cmpuint (n_checked, >, 0);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/zoom-settled/growing-equals-brute-force", test_settled_equals_brute_force);
  g_test_add_func ("/strata/zoom-settled/capped", test_settled_capped);
  return g_test_run ();
}
