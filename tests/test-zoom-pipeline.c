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
#include "strata-zoom-tree-private.h"

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

/* @a and @b hold the same chunks at every level, with the same items for
 * every channel; with @raw, each stored chunk's items are also the ones
 * computed on demand from it. Counts the chunks and those of them
 * computed at the pass's end. */
static void
assert_same_chunks (StrataZoomTree *a,
                    StrataZoomTree *b,
                    StrataRawStore *raw,
                    guint64        *n_chunks,
                    guint64        *n_at_end)
{
  guint n_channels = strata_raw_store_get_n_channels (strata_zoom_tree_get_raw_store (a));
  StrataZoomGeometry g, g2;

  g_assert_true (strata_zoom_tree_get_geometry (a, &g));
  g_assert_true (strata_zoom_tree_get_geometry (b, &g2));
  g_assert_cmpuint (g.n_levels, ==, g2.n_levels);
  for (guint level = 0; level < g.n_levels; level++)
    {
      g_autoptr(GArray) la = strata_zoom_tree_list_chunks (a, level);
      g_autoptr(GArray) lb = strata_zoom_tree_list_chunks (b, level);

      g_assert_cmpuint (strata_zoom_tree_get_n_plain_chunks (a, level), ==,
                        strata_zoom_tree_get_n_plain_chunks (b, level));
      g_assert_cmpuint (la->len, ==, lb->len);
      for (guint i = 0; i < la->len; i++)
        {
          const StrataZoomChunkInfo *ca = &g_array_index (la, StrataZoomChunkInfo, i);
          const StrataZoomChunkInfo *cb = &g_array_index (lb, StrataZoomChunkInfo, i);

          g_assert_cmpint (ca->index, ==, cb->index);
          g_assert_cmpuint (ca->n_items, ==, cb->n_items);
          g_assert_cmpuint (ca->n_channels, ==, cb->n_channels);
          g_assert_cmpint (ca->at_end, ==, cb->at_end);
          (*n_chunks)++;
          *n_at_end += ca->at_end;

          for (guint32 c = 0; c < n_channels; c++)
            {
              g_autoptr(GArray) ia = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
              g_autoptr(GArray) ib = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
              g_autoptr(GArray) od = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
              gboolean sa = strata_zoom_tree_get_chunk_items (a, level, ca->index, c, ia);
              gboolean sb = strata_zoom_tree_get_chunk_items (b, level, ca->index, c, ib);

              g_assert_cmpint (sa, ==, sb);
              if (!sa)
                continue;
              assert_items_equal (ia, ib);
              if (raw == NULL)
                continue;
              strata_zoom_compute_chunk (raw, &g, level, ca->index, c, od);
              assert_items_equal (ia, od);
            }
        }
    }
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
      StrataZoomGeometry g;

      g_assert_cmpuint (strata_zoom_tree_get_n_buffers (in_place), ==, strata_zoom_tree_get_n_buffers (pipelined));
      g_assert_cmpuint (strata_zoom_tree_get_size (in_place), ==, strata_zoom_tree_get_size (pipelined));
      assert_same_chunks (in_place, pipelined, strata_zoom_tree_get_raw_store (in_place), &n_chunks, &n_at_end);
      g_assert_true (strata_zoom_tree_get_geometry (in_place, &g));

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

/* A burst: the horizon held back while BURST activities come in (a CPU
 * that has not switched; a followed pass catching up with its file), then
 * released. The tree is the one built at a steady pace, and the buffer
 * former's arrays give back what the burst took: its buffers are sized
 * for their pieces, not for the whole pending stream, and the arrays that
 * carried the stream are made again once it is drained. */
#define BURST 200000

static void
test_burst_gives_room_back (void)
{
  g_autoptr(GArray) activities = strata_test_stream_collect (STRATA_TEST_STREAM_DENSE, 2 * BURST, 11);
  const StrataActivity *a = (const StrataActivity *)(gpointer) activities->data;
  gsize n = activities->len;
  StrataZoomTree *steady = build (a, n, TRUE);
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;
  StrataZoomTree *burst;
  guint buffer_room = 0, stream_room = 0, steady_room = 0;
  guint64 n_chunks = 0, n_at_end = 0;
  gboolean drained = FALSE;

  g_assert_cmpuint (n, >, BURST + 8192);
  strata_zoom_params_init (&params);
  params.pixels_per_chunk = 256;
  params.density_threshold = 50;
  params.pipelined = TRUE;
  burst = strata_zoom_tree_new (&params, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < n; i++)
    {
      strata_zoom_tree_add (&a[i], burst);
      if (i + 1 == BURST)
        {
          /* Held back, then released: the whole burst is pending. */
          strata_zoom_tree_advance (burst, a[0].start, NULL, NULL);
          strata_zoom_tree_advance (burst, a[i + 1].start, NULL, NULL);
          stream_room = strata_zoom_tree_get_stream_room (burst, &buffer_room);
        }
      else if (i + 1 > BURST && (i + 1) % 4096 == 0 && i + 1 < n)
        {
          strata_zoom_tree_advance (burst, a[i + 1].start, NULL, NULL);
          if (!drained)
            {
              guint room = strata_zoom_tree_get_stream_room (burst, NULL);

              /* Drained: the arrays hold what a steady pace needs. */
              g_assert_cmpuint (room, <, BURST / 4);
              drained = TRUE;
            }
        }
    }
  g_assert_true (drained);
  /* The burst was in the arrays, and its buffers were no bigger than a
   * steady pace's are. */
  g_assert_cmpuint (stream_room, >=, BURST);
  strata_zoom_tree_get_stream_room (steady, &steady_room);
  g_assert_cmpuint (buffer_room, <, BURST / 4);
  g_test_message ("burst of %u: its buffers held %u pieces at most (a steady pace's %u)",
                  BURST, buffer_room, steady_room);
  strata_zoom_tree_finish (burst);

  assert_same_chunks (steady, burst, NULL, &n_chunks, &n_at_end);
  g_assert_cmpuint (n_chunks, >, 0);
  strata_zoom_tree_free (steady);
  strata_zoom_tree_free (burst);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/zoom-tree/pipelined-equals-in-place", test_pipelined_equals_in_place);
  g_test_add_func ("/strata/zoom-tree/burst-gives-room-back", test_burst_gives_room_back);
  return g_test_run ();
}
