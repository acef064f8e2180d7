/* test-zoom-pipeline.c
 *
 * The levels' aggregators can consume buffers in a thread of their own,
 * behind the buffer former (StrataZoomParams.pipelined). The oracle: the
 * tree built that way holds the same pre-calculated chunks, with the same
 * items for every channel, and the same count of chunks not worth storing,
 * as the tree built with the levels in the caller's thread, for every kind
 * of generated stream; and both equal the on-demand computation of each
 * stored chunk from the raw store.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata.h"
#include "strata-test-streams.h"

static StrataZoomTree *
build (const StrataActivity *activities,
       gsize                 n,
       gboolean              pipelined)
{
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;
  StrataZoomTree *tree;

  strata_zoom_params_init (&params);
  /* Small chunks and T, so a small stream has deep dense levels, chunks
   * counted only and chunks found worth storing after all. */
  params.pixels_per_chunk = 256;
  params.density_threshold = 50;
  params.pipelined = pipelined;
  tree = strata_zoom_tree_new (&params, &error);
  g_assert_no_error (error);
  strata_test_stream_build (tree, activities, n);
  return tree;
}

static void
assert_items_equal (GArray *a,
                    GArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  g_assert_cmpmem (a->data, a->len * sizeof (StrataZoomItem), b->data, b->len * sizeof (StrataZoomItem));
}

static void
test_pipelined_equals_in_place (void)
{
  guint64 n_chunks = 0, n_at_end = 0;

  for (guint k = 0; k < STRATA_TEST_N_STREAMS; k++)
    {
      g_autoptr(GArray) activities = strata_test_stream_collect (k, 40000, 7 + k);
      StrataZoomTree *in_place = build ((const StrataActivity *)(gpointer)activities->data, activities->len, FALSE);
      StrataZoomTree *pipelined = build ((const StrataActivity *)(gpointer)activities->data, activities->len, TRUE);
      StrataRawStore *raw = strata_zoom_tree_get_raw_store (in_place);
      guint n_channels = strata_raw_store_get_n_channels (raw);
      StrataZoomGeometry g, g2;

      g_assert_true (strata_zoom_tree_get_geometry (in_place, &g));
      g_assert_true (strata_zoom_tree_get_geometry (pipelined, &g2));
      g_assert_cmpuint (g.n_levels, ==, g2.n_levels);
      g_assert_cmpuint (strata_zoom_tree_get_n_buffers (in_place), ==, strata_zoom_tree_get_n_buffers (pipelined));
      g_assert_cmpuint (strata_zoom_tree_get_size (in_place), ==, strata_zoom_tree_get_size (pipelined));

      for (guint level = 0; level < g.n_levels; level++)
        {
          g_autoptr(GArray) a = strata_zoom_tree_list_chunks (in_place, level);
          g_autoptr(GArray) b = strata_zoom_tree_list_chunks (pipelined, level);

          g_assert_cmpuint (strata_zoom_tree_get_n_plain_chunks (in_place, level), ==,
                            strata_zoom_tree_get_n_plain_chunks (pipelined, level));
          g_assert_cmpuint (a->len, ==, b->len);
          for (guint i = 0; i < a->len; i++)
            {
              const StrataZoomChunkInfo *ca = &g_array_index (a, StrataZoomChunkInfo, i);
              const StrataZoomChunkInfo *cb = &g_array_index (b, StrataZoomChunkInfo, i);

              g_assert_cmpint (ca->index, ==, cb->index);
              g_assert_cmpuint (ca->n_items, ==, cb->n_items);
              g_assert_cmpuint (ca->n_channels, ==, cb->n_channels);
              g_assert_cmpint (ca->at_end, ==, cb->at_end);
              n_chunks++;
              n_at_end += ca->at_end;

              for (guint32 c = 0; c < n_channels; c++)
                {
                  g_autoptr(GArray) ia = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
                  g_autoptr(GArray) ib = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
                  g_autoptr(GArray) od = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
                  gboolean sa = strata_zoom_tree_get_chunk_items (in_place, level, ca->index, c, ia);
                  gboolean sb = strata_zoom_tree_get_chunk_items (pipelined, level, ca->index, c, ib);

                  g_assert_cmpint (sa, ==, sb);
                  if (!sa)
                    continue;
                  assert_items_equal (ia, ib);
                  strata_zoom_compute_chunk (raw, &g, level, ca->index, c, od);
                  assert_items_equal (ia, od);
                }
            }
        }

      g_test_message ("%s: %u activities, %u levels", strata_test_stream_kind_name (k),
                      activities->len, g.n_levels);
      strata_zoom_tree_free (in_place);
      strata_zoom_tree_free (pipelined);
    }

  /* The comparison had something to compare. */
  g_assert_cmpuint (n_chunks, >, 0);
  g_test_message ("%" G_GUINT64_FORMAT " stored chunks compared, %" G_GUINT64_FORMAT
                  " of them computed from the raw store at the end", n_chunks, n_at_end);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/zoom-tree/pipelined-equals-in-place", test_pipelined_equals_in_place);
  return g_test_run ();
}
