/* test-zoom-build.c
 *
 * The zoom tree built in one pass, against two independent computations:
 * for every pre-calculated chunk of every level, on real recordings and on
 * generated streams (dense, sparse, bursty, thousands of threads, long
 * sleeps), the streamed aggregators' items equal the on-demand chunk from
 * the raw store, which equals a brute-force reference that aggregates the
 * raw activity list directly. The chunks stored are exactly the dense ones
 * (where aggregation pays, when asked to be sparing).
 * Queries equal the reference, across seams too. And the seed's rules each
 * get a test: adaptive depth (FIG. 7), the stack of active aggregators
 * growing and shrinking, buffers aligned with chunk boundaries, and growth
 * while the tree is queried. A stream of thousands of short-lived threads
 * checks that the levels' lane state follows one chunk's lanes, not all
 * lanes ever seen, with the raw store spilling to a small budget.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata-block-codec.h"
#include "strata-block-packer.h"
#include "strata-chunk-keys.h"
#include "strata-index-private.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-trace-private.h"
#include "strata-zoom-tree-private.h"
#include "strata-test-support.h"
#include "strata-test-streams.h"

static int
by_start (gconstpointer pa,
          gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;

  return a->start < b->start ? -1 : a->start > b->start;
}

typedef struct
{
  GPtrArray *by_channel;   /* GArray of StrataActivity, by start */
  GArray    *max_len;      /* gint64 per channel */
} Index;

static void
index_init (Index                *index,
            const StrataActivity *all,
            gsize                 n)
{
  index->by_channel = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  index->max_len = g_array_new (FALSE, TRUE, sizeof (gint64));

  for (gsize i = 0; i < n; i++)
    {
      guint32 c = all[i].channel;

      while (index->by_channel->len <= c)
        g_ptr_array_add (index->by_channel, g_array_new (FALSE, FALSE, sizeof (StrataActivity)));
      if (index->max_len->len <= c)
        g_array_set_size (index->max_len, c + 1);
      g_array_append_vals (g_ptr_array_index (index->by_channel, c), &all[i], 1);
      g_array_index (index->max_len, gint64, c) =
        MAX (g_array_index (index->max_len, gint64, c), all[i].end - all[i].start);
    }

  /* The model completes activities in the order they end. Stable, so
   * instants at one time keep their order. */
  for (guint c = 0; c < index->by_channel->len; c++)
    g_array_sort (g_ptr_array_index (index->by_channel, c), by_start);
}

static void
index_clear (Index *index)
{
  g_ptr_array_unref (index->by_channel);
  g_array_unref (index->max_len);
}

/* The reference for one chunk of one channel, over the activities of the
 * channel that can reach it. */
static GArray *
reference (Index  *index,
           guint32 channel,
           gint64  s,
           gint64  e,
           gint64  pixel)
{
  GArray *acts;
  gint64 reach;
  guint lo = 0, hi;

  if (channel >= index->by_channel->len)
    return g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));

  acts = g_ptr_array_index (index->by_channel, channel);
  if (acts->len == 0)
    return g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  reach = s - g_array_index (index->max_len, gint64, channel) - 1;
  hi = acts->len;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (g_array_index (acts, StrataActivity, mid).start < reach)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (hi = lo; hi < acts->len && g_array_index (acts, StrataActivity, hi).start < e; hi++)
    ;

  return strata_test_brute_force_chunk (&g_array_index (acts, StrataActivity, lo), hi - lo,
                                        channel, s, e, pixel);
}

static void
dump_items (const char *what,
            GArray     *items)
{
  for (guint i = 0; i < items->len; i++)
    {
      const StrataZoomItem *it = &g_array_index (items, StrataZoomItem, i);

      g_printerr ("%s[%u]: ch %u %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT " kind %u state %u label %u arg %d flags 0x%x count %u busy %" G_GINT64_FORMAT "\n",
                  what, i, it->channel, it->start, it->end, it->kind, it->state, it->label, it->arg,
                  it->flags, it->count, it->busy);
    }
}

static void
assert_items_equal (GArray *got,
                    GArray *want)
{
  if (got->len != want->len ||
      (got->len > 0 && memcmp (got->data, want->data, got->len * sizeof (StrataZoomItem)) != 0))
    {
      dump_items ("got", got);
      dump_items ("want", want);
    }
  g_assert_cmpuint (got->len, ==, want->len);
  g_assert_cmpmem (got->data, got->len * sizeof (StrataZoomItem),
                   want->data, want->len * sizeof (StrataZoomItem));
}

typedef struct
{
  guint chunks;
  guint channel_parts;
  guint aggregates;
  guint deepest;
  guint streamed;
  guint dense;
  guint partial;   /* stored, not whole: the channels aggregation reduces */
} Checked;

/* Every dense chunk of every level, dense by brute force (at least T
 * activities start in it): for each channel with an activity starting
 * there, on-demand == reference. The chunk stores every such channel
 * when aggregation pays for the chunk whole (at most one item per
 * min_reduction members, by the reference's items); otherwise exactly
 * the channels it pays for one by one, by the same test; it is
 * pre-calculated when it stores a channel, and stored == on-demand for
 * each channel it stores. Nothing else is stored. Counts and busy time
 * are conserved. */
static void
check_tree (StrataZoomTree       *tree,
            const StrataActivity *all,
            gsize                 n,
            Checked              *checked)
{
  StrataRawStore *raw = strata_zoom_tree_get_raw_store (tree);
  const StrataZoomParams *params = strata_zoom_tree_get_params (tree);
  g_autoptr(GArray) in_order = g_array_sized_new (FALSE, FALSE, sizeof (StrataActivity), n);
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  StrataZoomGeometry g;
  Index index;

  memset (checked, 0, sizeof *checked);
  g_assert_true (strata_zoom_tree_get_geometry (tree, &g));
  index_init (&index, all, n);
  g_array_append_vals (in_order, all, n);
  g_array_sort (in_order, by_start);

  for (guint level = 0; level < g.n_levels; level++)
    {
      g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (tree, level);
      gint64 pixel = strata_zoom_geometry_pixel (&g, level);
      guint n_stored = 0;
      gsize i = 0;

      while (i < in_order->len)
        {
          const StrataActivity *first = &g_array_index (in_order, StrataActivity, i);
          gint64 idx = strata_zoom_geometry_chunk_index (&g, level, first->start);
          gint64 s = strata_zoom_geometry_chunk_start (&g, level, idx);
          gint64 e = strata_zoom_geometry_chunk_start (&g, level, idx + 1);
          g_autoptr(GArray) channels = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_autoptr(GPtrArray) refs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
          g_autoptr(GArray) pays = g_array_new (FALSE, TRUE, sizeof (gboolean));
          guint64 n_items = 0, members = 0;
          guint stored_channels = 0, with_start = 0, n_paying = 0, want_channels;
          gsize j;
          gboolean stored, worth;

          /* The activities starting in this chunk, and their channels. */
          g_hash_table_remove_all (seen);
          for (j = i; j < in_order->len && g_array_index (in_order, StrataActivity, j).start < e; j++)
            {
              guint32 c = g_array_index (in_order, StrataActivity, j).channel;

              if (g_hash_table_add (seen, GUINT_TO_POINTER (c + 1)))
                g_array_append_val (channels, c);
            }
          if (j - i < params->density_threshold)
            {
              i = j;
              continue;
            }
          i = j;

          checked->dense++;
          for (guint k = 0; k < channels->len; k++)
            {
              guint32 c = g_array_index (channels, guint32, k);
              GArray *want = reference (&index, c, s, e, pixel);
              g_autoptr(GArray) on_demand = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
              gboolean start_here = FALSE, pay;
              guint64 channel_members = 0;

              strata_zoom_compute_chunk (raw, &g, level, idx, c, on_demand);
              assert_items_equal (on_demand, want);
              g_ptr_array_add (refs, want);
              g_array_set_size (pays, k + 1);

              for (guint m = 0; m < want->len; m++)
                start_here |= !(g_array_index (want, StrataZoomItem, m).flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE);
              if (!start_here)
                continue;
              with_start++;
              n_items += want->len;
              for (guint m = 0; m < want->len; m++)
                {
                  channel_members += g_array_index (want, StrataZoomItem, m).count;
                  checked->aggregates += g_array_index (want, StrataZoomItem, m).count > 1;
                }
              members += channel_members;
              pay = want->len > 0 && want->len * MAX (params->min_reduction, 1) <= channel_members;
              g_array_index (pays, gboolean, k) = pay;
              n_paying += pay;
            }

          /* Whole, or the channels aggregation reduces one by one. */
          worth = with_start > 0 && n_items * MAX (params->min_reduction, 1) <= members;
          want_channels = worth ? with_start : n_paying;
          stored = FALSE;
          for (guint k = 0; k < chunks->len; k++)
            if (g_array_index (chunks, StrataZoomChunkInfo, k).index == idx)
              {
                const StrataZoomChunkInfo *info = &g_array_index (chunks, StrataZoomChunkInfo, k);

                stored = TRUE;
                g_assert_cmpuint (info->n_channels, ==, want_channels);
                checked->streamed += !info->at_end;
              }
          g_assert_cmpint (stored, ==, want_channels > 0);
          checked->partial += stored && !worth;
          if (!stored)
            continue;

          n_stored++;
          checked->chunks++;
          checked->deepest = MAX (checked->deepest, level);

          for (guint k = 0; k < channels->len; k++)
            {
              guint32 c = g_array_index (channels, guint32, k);
              GArray *want = g_ptr_array_index (refs, k);
              g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
              GArray *acts = g_ptr_array_index (index.by_channel, c);
              guint64 count = 0, want_count = 0;
              gint64 busy = 0, want_busy = 0;

              if (strata_zoom_tree_get_chunk_items (tree, level, idx, c, got))
                {
                  stored_channels++, assert_items_equal (got, want);
                  g_assert_true (worth || g_array_index (pays, gboolean, k));
                }

              /* Conservation: the items hold every activity overlapping
               * the chunk and all their clipped time. */
              for (guint m = 0; m < want->len; m++)
                {
                  count += g_array_index (want, StrataZoomItem, m).count;
                  busy += g_array_index (want, StrataZoomItem, m).busy;
                }
              for (guint m = 0; m < acts->len; m++)
                {
                  const StrataActivity *a = &g_array_index (acts, StrataActivity, m);

                  if (strata_activity_overlaps (a, s, e))
                    {
                      want_count++;
                      want_busy += MIN (a->end, e) - MAX (a->start, s);
                    }
                }
              g_assert_cmpuint (count, ==, want_count);
              g_assert_cmpint (busy, ==, want_busy);
              checked->channel_parts += want->len > 0;
            }
          g_assert_cmpuint (stored_channels, ==, want_channels);
        }

      /* Nothing but these is stored. */
      g_assert_cmpuint (chunks->len, ==, n_stored);
    }

  index_clear (&index);
}

/* The reference for a query: each chunk's reference items in the
 * viewport, an activity cut by the seam joined back. */
static GArray *
reference_query (Index                    *index,
                 const StrataZoomGeometry *g,
                 guint                     level,
                 gint64                    from,
                 gint64                    to,
                 guint                     n_channels)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  gint64 first = strata_zoom_geometry_chunk_index (g, level, from);
  gint64 last = strata_zoom_geometry_chunk_index (g, level, to - 1);

  for (guint32 c = 0; c < n_channels; c++)
    {
      guint channel_start = out->len;

      for (gint64 idx = first; idx <= last; idx++)
        {
          gint64 s = strata_zoom_geometry_chunk_start (g, level, idx);
          g_autoptr(GArray) items = reference (index, c, s, s + strata_zoom_geometry_chunk_duration (g, level),
                                               strata_zoom_geometry_pixel (g, level));
          guint before = out->len;

          for (guint i = 0; i < items->len; i++)
            {
              StrataZoomItem *it = &g_array_index (items, StrataZoomItem, i);
              gboolean inside = it->start == it->end ? it->start >= from && it->start < to
                                                     : it->start < to && it->end > from;
              gboolean joined = FALSE;

              if (!inside)
                continue;

              /* A piece starting at the seam continues one that ended
               * there in the same lane: the same activity. */
              if (idx > first && it->start == s && it->count == 1 &&
                  (it->flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE))
                for (guint j = channel_start; j < before; j++)
                  {
                    StrataZoomItem *left = &g_array_index (out, StrataZoomItem, j);

                    if (left->end == s && !(left->flags & STRATA_ZOOM_ITEM_AGGREGATE) &&
                        (left->flags & STRATA_ACTIVITY_FLAG_CONTINUES_AFTER) &&
                        (left->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK) == (it->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK) &&
                        left->kind == it->kind && left->state == it->state &&
                        left->label == it->label && left->arg == it->arg)
                      {
                        left->end = it->end;
                        left->busy += it->busy;
                        left->flags = (left->flags & ~STRATA_ACTIVITY_FLAGS_END_SIDE) |
                                      (it->flags & STRATA_ACTIVITY_FLAGS_END_SIDE);
                        joined = TRUE;
                        break;
                      }
                  }
              if (!joined)
                g_array_append_val (out, *it);
            }
        }
    }

  return out;
}

/* Random viewports one screen wide at every level equal the reference.
 * Returns how many pre-calculated spans the queries answered in part. */
static guint
check_queries (StrataZoomTree       *tree,
               const StrataActivity *all,
               gsize                 n,
               guint                 n_queries)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  StrataZoomGeometry g;
  Index index;
  gint64 first = G_MAXINT64, last = 0;
  guint n_channels = strata_raw_store_get_n_channels (strata_zoom_tree_get_raw_store (tree));
  guint two_chunks = 0, drilled = 0, cut = 0;

  g_assert_true (strata_zoom_tree_get_geometry (tree, &g));
  index_init (&index, all, n);
  for (gsize i = 0; i < n; i++)
    {
      first = MIN (first, all[i].start);
      last = MAX (last, all[i].end);
    }

  for (guint q = 0; q < n_queries; q++)
    {
      guint level = g_rand_int_range (rand, 0, g.n_levels);
      gint64 width = strata_zoom_geometry_chunk_duration (&g, level) * 15 / 16;
      gint64 from = first + (gint64) (g_rand_double (rand) * (double) (last - first));
      g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      g_autoptr(GArray) want = reference_query (&index, &g, level, from, from + width, n_channels);
      StrataZoomQueryStats stats;

      strata_zoom_tree_query (tree, level, from, from + width, NULL, 0, got, &stats);
      g_assert_cmpuint (stats.n_chunks, <=, 2);
      two_chunks += stats.n_chunks == 2;
      cut += stats.n_cut;
      assert_items_equal (got, want);

      /* Drill-down: an aggregate's members are where it says they are. */
      for (guint i = 0; i < got->len; i++)
        {
          const StrataZoomItem *it = &g_array_index (got, StrataZoomItem, i);
          g_autoptr(GArray) members = NULL;
          gint64 busy = 0;

          if (!(it->flags & STRATA_ZOOM_ITEM_AGGREGATE) || g_rand_int_range (rand, 0, 8) != 0)
            continue;
          members = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
          strata_zoom_tree_get_members (tree, it, members);
          for (guint m = 0; m < members->len; m++)
            busy += g_array_index (members, StrataActivity, m).end - g_array_index (members, StrataActivity, m).start;
          if (members->len != it->count)
            {
              g_autoptr(GArray) one = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));

              g_array_append_val (one, *it);
              dump_items ("aggregate", one);
              for (guint m = 0; m < members->len; m++)
                {
                  const StrataActivity *a = &g_array_index (members, StrataActivity, m);
                  g_printerr ("member %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT " kind %u flags 0x%x\n", a->start, a->end, a->kind, a->flags);
                }
            }
          g_assert_cmpuint (members->len, ==, it->count);
          g_assert_cmpint (busy, ==, it->busy);
          drilled++;
        }
    }

  g_assert_cmpuint (two_chunks, >, 0);
  g_assert_cmpuint (drilled, >, 0);
  index_clear (&index);
  return cut;
}

/* A test's data: the buffer criterion, and min_reduction above 8 bits. */
#define CASE(criterion, reduction) GUINT_TO_POINTER ((criterion) | ((reduction) << 8))

static void
params_for_tests (StrataZoomParams *p,
                  guint             test_case)
{
  strata_zoom_params_init (p);
  p->min_reduction = test_case >> 8;
  /* Small chunks and a low threshold, so these small inputs have dense
   * chunks at several levels and aggregates everywhere. */
  p->pixels_per_chunk = 256;
  p->density_threshold = 64;
  p->buffer_criterion = test_case & 0xff;
  p->buffer_interval = 3 * 1000 * 1000;
  p->buffer_count = 500;
}

static const char *fixtures[] = {
  "sched-small.dat", "sched-tgid.dat", "lossy.txt", "instances.dat",
};

static void
test_fixtures_oracle (gconstpointer data)
{
  guint test_case = GPOINTER_TO_UINT (data);
  guint total = 0, n_cut = 0, partial = 0;

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = NULL;
      const StrataActivity *all;
      StrataZoomParams params;
      Checked checked;
      gsize n;

      params_for_tests (&params, test_case);
      trace = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, NULL, NULL, &error);
      g_assert_no_error (error);
      all = strata_trace_get_activities (trace, &n);

      check_tree (strata_trace_get_zoom_tree (trace), all, n, &checked);
      g_test_message ("%s: %u chunks (%u by the streaming aggregators, %u not whole), %u channel parts, %u aggregates, deepest level %u, %" G_GUINT64_FORMAT " buffers",
                      fixtures[f], checked.chunks, checked.streamed, checked.partial, checked.channel_parts, checked.aggregates,
                      checked.deepest, strata_zoom_tree_get_n_buffers (strata_trace_get_zoom_tree (trace)));
      g_assert_cmpuint (checked.dense, >, 3);
      if (params.min_reduction == 1)
        {
          g_assert_cmpuint (checked.chunks, ==, checked.dense);
          g_assert_cmpuint (checked.streamed, >=, checked.chunks / 2);
        }
      total += checked.chunks;
      partial += checked.partial;
      g_assert_cmpuint (checked.aggregates, >, 0);
      if (params.min_reduction == 1)
        g_assert_cmpuint (checked.deepest, >=, 2);

      check_queries (strata_trace_get_zoom_tree (trace), all, n, 60);

      /* Every pre-calculated span cut to what can be in view, in place. */
      {
        g_autoptr(StrataTrace) cut_trace = NULL;

        g_setenv ("STRATA_ZOOM_SPAN_CUT", "0", TRUE);
        cut_trace = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, NULL, NULL, &error);
        g_unsetenv ("STRATA_ZOOM_SPAN_CUT");
        g_assert_no_error (error);
        n_cut += check_queries (strata_trace_get_zoom_tree (cut_trace), all, n, 60);
      }
    }

  g_assert_cmpuint (total, >, 0);
  g_assert_cmpuint (n_cut, >, 0);
  /* Sparing, some chunks store only the channels aggregation reduces. */
  if ((test_case >> 8) > 1)
    g_assert_cmpuint (partial, >, 0);
}

static void
test_generated_oracle (gconstpointer data)
{
  guint test_case = GPOINTER_TO_UINT (data);
  guint partial = 0;

  for (guint k = 0; k < STRATA_TEST_N_STREAMS; k++)
    {
      g_autoptr(GArray) acts = strata_test_stream_collect (k, 40000, 100 + k);
      g_autoptr(StrataZoomTree) tree = NULL;
      StrataZoomParams params;
      Checked checked;

      params_for_tests (&params, test_case);
      tree = strata_zoom_tree_new (&params, NULL);
      strata_test_stream_build (tree, (const StrataActivity *)(gpointer)acts->data, acts->len);

      check_tree (tree, (const StrataActivity *)(gpointer)acts->data, acts->len, &checked);
      g_test_message ("%s: %u chunks (%u by the streaming aggregators, %u not whole), %u channel parts, %u aggregates, deepest level %u",
                      strata_test_stream_kind_name (k), checked.chunks, checked.streamed, checked.partial, checked.channel_parts,
                      checked.aggregates, checked.deepest);
      if (params.min_reduction == 1)
        g_assert_cmpuint (checked.streamed, >=, checked.chunks / 2);
      partial += checked.partial;
      check_queries (tree, (const StrataActivity *)(gpointer)acts->data, acts->len, 30);
    }
  /* Sparing, some chunks store only the channels aggregation reduces. */
  if ((test_case >> 8) > 1)
    g_assert_cmpuint (partial, >, 0);
}

/* FIG. 5 through the tree: 256 units, F = 4, level 1 has 64-unit chunks;
 * a display request for 21..85 at level 1 is served by two pre-calculated
 * chunks, and an activity across the seam at 64 comes back whole. */
static void
test_fig5_query_two_chunks (void)
{
  g_autoptr(StrataZoomTree) tree = NULL;
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  StrataZoomParams params;
  StrataZoomQueryStats stats;
  StrataZoomGeometry g;
  StrataActivity acts[] = {
    { .start = 0, .end = 30, .kind = STRATA_ACTIVITY_TASK, .label = 1 },
    { .start = 30, .end = 50, .kind = STRATA_ACTIVITY_TASK, .label = 2 },
    { .start = 50, .end = 80, .kind = STRATA_ACTIVITY_TASK, .label = 3 },
    { .start = 80, .end = 200, .kind = STRATA_ACTIVITY_TASK, .label = 4 },
    { .start = 200, .end = 255, .kind = STRATA_ACTIVITY_TASK, .label = 5 },
  };

  strata_zoom_params_init (&params);
  params.pixels_per_chunk = 16;   /* 16-unit chunks at 1 unit per pixel */
  params.density_threshold = 1;
  params.min_reduction = 1;       /* the seed: every dense chunk */
  tree = strata_zoom_tree_new (&params, NULL);
  strata_test_stream_build (tree, acts, G_N_ELEMENTS (acts));

  g_assert_true (strata_zoom_tree_get_geometry (tree, &g));
  g_assert_cmpint (strata_zoom_geometry_chunk_duration (&g, 0), ==, 256);
  g_assert_cmpint (strata_zoom_geometry_chunk_duration (&g, 1), ==, 64);

  strata_zoom_tree_query (tree, 1, 21, 85, NULL, 0, items, &stats);
  g_assert_cmpuint (stats.n_chunks, ==, 2);
  g_assert_cmpuint (stats.n_precomputed, ==, 2);
  g_assert_cmpuint (stats.n_on_demand, ==, 0);

  /* 0..30 (cut by nothing), 30..50, 50..80 across the seam, 80..200. */
  g_assert_cmpuint (items->len, ==, 4);
  g_assert_cmpint (g_array_index (items, StrataZoomItem, 2).start, ==, 50);
  g_assert_cmpint (g_array_index (items, StrataZoomItem, 2).end, ==, 80);
  g_assert_cmpint (g_array_index (items, StrataZoomItem, 2).busy, ==, 30);
  g_assert_false (g_array_index (items, StrataZoomItem, 2).flags &
                  (STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE | STRATA_ACTIVITY_FLAG_CONTINUES_AFTER));
  g_assert_true (g_array_index (items, StrataZoomItem, 3).flags & STRATA_ACTIVITY_FLAG_CONTINUES_AFTER);
}

typedef struct
{
  gint64 start, end;
  guint  rank;
  guint  n_pieces;
} Buffer;

static void
record_buffer (gint64   start,
               gint64   end,
               guint    n_pieces,
               guint    rank,
               gpointer user_data)
{
  Buffer b = { start, end, rank, n_pieces };

  g_array_append_val ((GArray *)user_data, b);
}

/* A sparse background with dense bursts. */
static GArray *
bursty_stream (void)
{
  return strata_test_stream_collect (STRATA_TEST_STREAM_BURSTY, 60000, 7);
}

static gboolean
in_burst (gint64 t)
{
  gint64 period = 400 * G_GINT64_CONSTANT (1000000), length = 5 * G_GINT64_CONSTANT (1000000);

  return t % period < length;
}

/* [start, end) lies in the quiet part of one burst period, 10 ms or more
 * after a burst and 100 ms or more before the next. */
static gboolean
far_from_bursts (gint64 start,
                 gint64 end)
{
  gint64 period = 400 * G_GINT64_CONSTANT (1000000), ms = 1000000;

  return start / period == (end - 1) / period &&
         start % period >= 10 * ms && (end - 1) % period < period - 100 * ms;
}

/* FIG. 7: the tree is deeper where the data is dense. Every chunk below
 * the levels that cover a burst lies inside a burst, and the deepest
 * chunks there are several levels below the deepest elsewhere. */
static void
test_fig7_adaptive_depth (void)
{
  g_autoptr(GArray) acts = bursty_stream ();
  g_autoptr(StrataZoomTree) tree = NULL;
  StrataZoomParams params;
  StrataZoomGeometry g;
  guint deepest_in = 0, deepest_out = 0;

  strata_zoom_params_init (&params);
  params.pixels_per_chunk = 256;
  params.density_threshold = 200;
  params.min_reduction = 1;       /* the seed: every dense chunk */
  tree = strata_zoom_tree_new (&params, NULL);
  strata_test_stream_build (tree, (const StrataActivity *)(gpointer)acts->data, acts->len);
  g_assert_true (strata_zoom_tree_get_geometry (tree, &g));

  for (guint level = 0; level < g.n_levels; level++)
    {
      g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (tree, level);

      for (guint k = 0; k < chunks->len; k++)
        {
          const StrataZoomChunkInfo *c = &g_array_index (chunks, StrataZoomChunkInfo, k);
          /* Inside: the chunk lies in a burst. Outside: it is far from
           * every burst (activities begun in a burst spill a little past
           * its end). */
          gint64 period = 400 * G_GINT64_CONSTANT (1000000);
          gboolean inside = c->end - c->start < period &&
                            in_burst (c->start) && in_burst (c->end - 1);
          gboolean far = far_from_bursts (c->start, c->end);

          if (!inside && !far)
            continue;
          if (inside)
            deepest_in = MAX (deepest_in, level);
          else
            deepest_out = MAX (deepest_out, level);
        }
    }

  g_test_message ("deepest chunk inside a burst: level %u; elsewhere: level %u of %u",
                  deepest_in, deepest_out, g.n_levels);
  g_assert_cmpuint (deepest_in, >=, deepest_out + 2);
}

/* The stack of active aggregators grows when the stream enters a burst
 * and shrinks when it leaves. */
static void
test_stack_grows_and_shrinks (void)
{
  g_autoptr(GArray) acts = bursty_stream ();
  g_autoptr(GArray) buffers = g_array_new (FALSE, FALSE, sizeof (Buffer));
  g_autoptr(StrataZoomTree) tree = NULL;
  StrataZoomParams params;
  guint grows = 0, shrinks = 0, max_in = 0, max_out = 0;

  strata_zoom_params_init (&params);
  params.pixels_per_chunk = 256;
  params.density_threshold = 200;
  tree = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_buffer_func (tree, record_buffer, buffers);
  strata_test_stream_build (tree, (const StrataActivity *)(gpointer)acts->data, acts->len);

  for (guint i = 0; i < buffers->len; i++)
    {
      const Buffer *b = &g_array_index (buffers, Buffer, i);

      if (in_burst (b->start) && in_burst (b->end - 1))
        max_in = MAX (max_in, b->rank);
      else if (far_from_bursts (b->start, b->end))
        max_out = MAX (max_out, b->rank);
      if (i > 0)
        {
          const Buffer *prev = &g_array_index (buffers, Buffer, i - 1);

          grows += b->rank > prev->rank;
          shrinks += b->rank < prev->rank;
        }
    }

  g_test_message ("%u buffers; stack up to %u in bursts, %u outside; %u growths, %u shrinks",
                  buffers->len, max_in, max_out, grows, shrinks);
  g_assert_cmpuint (max_in, >=, max_out + 2);
  /* Several bursts: the stack grows into each and shrinks after it. */
  g_assert_cmpuint (grows, >=, 5);
  g_assert_cmpuint (shrinks, >=, 5);
}

/* Adaptive buffers are adjacent, each inside one chunk of every active
 * aggregator's level, and end at the end of the sparse chunk that starts
 * them (or, where every level is dense, hold the next T activities). */
static void
test_buffers_aligned (void)
{
  g_autoptr(GArray) acts = strata_test_stream_collect (STRATA_TEST_STREAM_MIXED, 50000, 3);
  g_autoptr(GArray) buffers = g_array_new (FALSE, FALSE, sizeof (Buffer));
  g_autoptr(StrataZoomTree) tree = NULL;
  StrataZoomParams params;
  StrataZoomGeometry ranks;
  guint aligned = 0;
  gsize next = 0;

  strata_zoom_params_init (&params);
  params.pixels_per_chunk = 256;
  params.density_threshold = 100;
  tree = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_buffer_func (tree, record_buffer, buffers);
  strata_test_stream_build (tree, (const StrataActivity *)(gpointer)acts->data, acts->len);

  /* The geometry of ranks, which the buffer func's stack depth counts. */
  strata_zoom_tree_get_rank_geometry (tree, &ranks);

  g_assert_cmpuint (buffers->len, >, 10);
  for (guint i = 0; i < buffers->len; i++)
    {
      const Buffer *b = &g_array_index (buffers, Buffer, i);
      guint starts = 0;

      g_assert_cmpint (b->start, <, b->end);
      if (i > 0)
        g_assert_cmpint (b->start, ==, g_array_index (buffers, Buffer, i - 1).end);

      for (guint r = 0; r < b->rank; r++)
        g_assert_cmpint (strata_zoom_geometry_chunk_index (&ranks, r, b->start), ==,
                         strata_zoom_geometry_chunk_index (&ranks, r, b->end - 1));

      if (b->rank < ranks.n_levels)
        {
          gint64 idx = strata_zoom_geometry_chunk_index (&ranks, b->rank, b->start);

          g_assert_cmpint (b->end, ==, strata_zoom_geometry_chunk_start (&ranks, b->rank, idx + 1));
          if (i > 0)
            {
              g_assert_cmpint (b->start, ==, strata_zoom_geometry_chunk_start (&ranks, b->rank, idx));
              aligned++;
            }
        }

      /* The seed: a buffer holds at most T activities. */
      while (next < acts->len && g_array_index (acts, StrataActivity, next).start < b->end)
        {
          starts++;
          next++;
        }
      g_assert_cmpuint (starts, <=, params.density_threshold);
    }

  g_assert_cmpuint (aligned, >, 0);
}

typedef struct
{
  StrataZoomTree *tree;
  gint            stop;
  guint           queries;
} Reader;

static gpointer
reader_thread (gpointer data)
{
  Reader *reader = data;

  while (!g_atomic_int_get (&reader->stop))
    {
      g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      StrataZoomGeometry g;

      if (strata_zoom_tree_get_geometry (reader->tree, &g))
        for (guint level = 0; level < g.n_levels; level += 2)
          {
            gint64 d = strata_zoom_geometry_chunk_duration (&g, level);

            strata_zoom_tree_query (reader->tree, level, 1000000000, 1000000000 + d, NULL, 0, items, NULL);
            g_array_set_size (items, 0);
          }
      reader->queries++;
      /* A viewer asks once a frame; a reader that never lets go of the
       * lock only measures the scheduler. */
      g_usleep (1000);
    }

  return NULL;
}

/* Growth: a chunk stored while the tree grows never changes, the growing
 * edge is computed on demand from what is known, and another thread can
 * query all along. */
static void
test_live_growth (void)
{
  g_autoptr(GArray) acts = strata_test_stream_collect (STRATA_TEST_STREAM_MIXED, 60000, 9);
  const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
  g_autoptr(StrataZoomTree) tree = NULL;
  g_autoptr(GPtrArray) snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  StrataZoomParams params;
  Reader reader = { 0 };
  GThread *thread;
  guint snapshot_chunks = 0, compared = 0;
  gsize half = acts->len / 2;

  params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
  tree = strata_zoom_tree_new (&params, NULL);
  reader.tree = tree;
  thread = g_thread_new ("reader", reader_thread, &reader);

  for (gsize i = 0; i < half; i++)
    {
      strata_zoom_tree_add (&all[i], tree);
      if ((i + 1) % 1000 == 0)
        strata_zoom_tree_advance (tree, all[i + 1].start, NULL, NULL);
    }
  strata_zoom_tree_advance (tree, all[half].start, NULL, NULL);

  /* Half way: the growing edge is the on-demand result over what is known. */
  {
    StrataZoomGeometry g;
    g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
    guint level;
    gint64 t = all[half - 1].start, d;
    Index index;

    g_assert_true (strata_zoom_tree_get_geometry (tree, &g));
    index_init (&index, all, half);
    level = g.n_levels - 3;
    d = strata_zoom_geometry_chunk_duration (&g, level);
    strata_zoom_tree_query (tree, level, t - d / 2, t + d / 2, NULL, 0, got, NULL);
    {
      g_autoptr(GArray) want = reference_query (&index, &g, level, t - d / 2, t + d / 2,
                                                strata_raw_store_get_n_channels (strata_zoom_tree_get_raw_store (tree)));
      assert_items_equal (got, want);
    }
    index_clear (&index);

    /* What is stored now. */
    for (level = 0; level < g.n_levels; level++)
      {
        g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (tree, level);

        for (guint k = 0; k < chunks->len; k++)
          {
            const StrataZoomChunkInfo *c = &g_array_index (chunks, StrataZoomChunkInfo, k);
            GArray *items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));

            for (guint32 ch = 0; ch < 100; ch++)
              strata_zoom_tree_get_chunk_items (tree, level, c->index, ch, items);
            /* Remember by absolute key: the chunk's start and length. */
            g_array_prepend_vals (items, &(StrataZoomItem) { .start = c->start, .end = c->end }, 1);
            g_ptr_array_add (snapshots, items);
            snapshot_chunks++;
          }
      }
  }

  for (gsize i = half; i < acts->len; i++)
    {
      strata_zoom_tree_add (&all[i], tree);
      if ((i + 1) % 1000 == 0 && i + 1 < acts->len)
        strata_zoom_tree_advance (tree, all[i + 1].start, NULL, NULL);
    }
  strata_zoom_tree_finish (tree);
  g_atomic_int_set (&reader.stop, 1);
  g_thread_join (thread);

  /* The chunks stored half way are the same in the finished tree. */
  {
    StrataZoomGeometry g;

    g_assert_true (strata_zoom_tree_get_geometry (tree, &g));
    for (guint s = 0; s < snapshots->len; s++)
      {
        GArray *before = g_ptr_array_index (snapshots, s);
        const StrataZoomItem *key = &g_array_index (before, StrataZoomItem, 0);
        g_autoptr(GArray) after = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
        guint level = 0;

        while (strata_zoom_geometry_chunk_duration (&g, level) > key->end - key->start)
          level++;
        g_array_append_val (after, *key);
        for (guint32 ch = 0; ch < 100; ch++)
          strata_zoom_tree_get_chunk_items (tree, level, strata_zoom_geometry_chunk_index (&g, level, key->start),
                                            ch, after);
        assert_items_equal (after, before);
        compared++;
      }
  }

  g_test_message ("%u chunks stored half way, all unchanged at the end; %u queries from another thread",
                  snapshot_chunks, reader.queries);
  g_assert_cmpuint (compared, >, 10);
  g_assert_cmpuint (reader.queries, >, 0);

  {
    Checked checked;

    check_tree (tree, all, acts->len, &checked);
  }
}

/* Thread generations: a reused tid is a new channel, so a trace has
 * thousands of channels that each live for a few activities (one in 200
 * for many more), a few alive at a time; their activities in start order,
 * as the model's output is fed to the tree. */
static GArray *
short_threads_stream (guint    n,
                      guint32  seed,
                      guint   *n_channels)
{
  enum { LIVE = 16 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (StrataActivity), n);
  guint32 live[LIVE];
  guint left[LIVE];
  gint64 cursor[LIVE][2] = { { 0 } };
  gint64 now = 1000;

  *n_channels = 0;
  for (guint s = 0; s < LIVE; s++)
    {
      live[s] = (*n_channels)++;
      left[s] = g_rand_int_range (rand, 1, 9);
    }
  for (guint i = 0; i < n; i++)
    {
      StrataActivity a = { 0 };
      guint s = g_rand_int_range (rand, 0, LIVE);
      gboolean instant = g_rand_int_range (rand, 0, 4) == 0;

      now += g_rand_int_range (rand, 0, 3000);
      a.start = MAX (cursor[s][instant], now);
      a.end = instant ? a.start : a.start + g_rand_int_range (rand, 1, 20000);
      a.channel = live[s];
      a.label = g_rand_int_range (rand, 1, 30);
      a.arg = g_rand_int_range (rand, 0, 8);
      a.kind = instant ? STRATA_ACTIVITY_WAKEUP : STRATA_ACTIVITY_STATE;
      a.state = g_rand_int_range (rand, 0, 3);
      cursor[s][instant] = a.end + instant;
      g_array_append_val (out, a);

      if (--left[s] == 0)
        {
          live[s] = (*n_channels)++;
          left[s] = g_rand_int_range (rand, 0, 200) == 0 ? g_rand_int_range (rand, 200, 2000)
                                                          : g_rand_int_range (rand, 1, 9);
          memset (cursor[s], 0, sizeof cursor[s]);
        }
    }
  g_array_sort (out, by_start);
  return out;
}

typedef struct
{
  gint64 first;
  gint64 last;
} Lifetime;

static int
by_gint64 (gconstpointer pa,
           gconstpointer pb)
{
  const gint64 *a = pa, *b = pb;

  return *a < *b ? -1 : *a > *b;
}

/* For the tree's rank with chunks of @duration (aligned to multiples of
 * it): the most lanes whose lifetimes (first start to last end) meet one
 * of its dense chunks (at least T activities start there) after the
 * first (which the pass leaves to the raw store), into *@most: at least
 * as many as the level can have touched in one chunk. And into *@ever the
 * lanes that meet any of them: what a state per lane ever seen holds. */
static void
lanes_in_dense_chunks (GArray               *lifetimes,
                       const StrataActivity *all,
                       gsize                 n,
                       guint                 threshold,
                       gint64                duration,
                       guint64              *most,
                       guint64              *ever)
{
  g_autoptr(GArray) firsts = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) lasts = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) dense = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 first_chunk = all[0].start / duration;

  *most = *ever = 0;
  for (gsize i = 0; i < n;)
    {
      gint64 c = all[i].start / duration;
      gsize j = i;

      while (j < n && all[j].start / duration == c)
        j++;
      if (j - i >= threshold && c != first_chunk)
        g_array_append_val (dense, c);
      i = j;
    }
  for (guint i = 0; i < lifetimes->len; i++)
    {
      const Lifetime *lt = &g_array_index (lifetimes, Lifetime, i);
      gint64 a = lt->first / duration, b = lt->last / duration;

      g_array_append_val (firsts, a);
      g_array_append_val (lasts, b);
      /* Any dense chunk in [a, b]? */
      for (guint k = 0; k < dense->len; k++)
        if (g_array_index (dense, gint64, k) >= a && g_array_index (dense, gint64, k) <= b)
          {
            (*ever)++;
            break;
          }
    }
  g_array_sort (firsts, by_gint64);
  g_array_sort (lasts, by_gint64);
  for (guint k = 0; k < dense->len; k++)
    {
      gint64 c = g_array_index (dense, gint64, k);
      guint started = 0, ended = 0;

      /* Lifetimes with first <= c, minus those with last < c. */
      while (started < firsts->len && g_array_index (firsts, gint64, started) <= c)
        started++;
      while (ended < lasts->len && g_array_index (lasts, gint64, ended) < c)
        ended++;
      *most = MAX (*most, (guint64) (started - ended));
    }
}

static void
test_short_threads (void)
{
  guint n_channels = 0;
  g_autoptr(GArray) acts = short_threads_stream (40000, 5, &n_channels);
  g_autoptr(GHashTable) lanes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GArray) lifetimes = g_array_new (FALSE, FALSE, sizeof (Lifetime));
  g_autoptr(StrataZoomTree) tree = NULL;
  StrataRawStore *raw;
  StrataZoomParams params;
  Checked checked;
  guint64 states, bound = 0, ever = 0, tails, peak;
  GHashTableIter iter;
  gpointer value;

  params_for_tests (&params, GPOINTER_TO_UINT (CASE (STRATA_BUFFER_ADAPTIVE, 1)));
  tree = strata_zoom_tree_new (&params, NULL);
  raw = strata_zoom_tree_get_raw_store (tree);
  strata_raw_store_set_spill (raw, 0, 0);
  strata_raw_store_set_budget (raw, G_GUINT64_CONSTANT (512) << 10);
  strata_test_stream_build (tree, (const StrataActivity *)(gpointer) acts->data, acts->len);

  /* The raw store kept to its budget, and exactly right: every chunk. */
  tails = strata_raw_store_get_tail_bytes (raw, &peak);
  g_assert_cmpuint (peak, <=, G_GUINT64_CONSTANT (512) << 10);
  g_assert_cmpuint (strata_raw_store_get_spilled (raw), >, acts->len / 2);
  check_tree (tree, (const StrataActivity *)(gpointer) acts->data, acts->len, &checked);
  check_queries (tree, (const StrataActivity *)(gpointer) acts->data, acts->len, 30);

  /* Each lane's lifetime, then the bound rank by rank: chunks of
   * pixels_per_chunk * F^k ns, 1 ns per pixel at the finest. */
  for (guint i = 0; i < acts->len; i++)
    {
      const StrataActivity *a = &g_array_index (acts, StrataActivity, i);
      gint64 key = (gint64) a->channel * 64 + strata_zoom_lane_of (a);
      Lifetime *lt = g_hash_table_lookup (lanes, &key);

      if (lt == NULL)
        {
          lt = g_new (Lifetime, 1);
          lt->first = a->start;
          lt->last = a->end;
          g_hash_table_insert (lanes, g_memdup2 (&key, sizeof key), lt);
        }
      lt->last = MAX (lt->last, a->end);
    }
  g_hash_table_iter_init (&iter, lanes);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_array_append_vals (lifetimes, value, 1);
  for (gint64 d = params.pixels_per_chunk; ; d *= params.zoom_factor)
    {
      guint64 most, lanes_ever;

      lanes_in_dense_chunks (lifetimes, (const StrataActivity *)(gpointer) acts->data, acts->len,
                             params.density_threshold, d, &most, &lanes_ever);
      bound += most;
      ever += lanes_ever;
      if (d > (G_GINT64_CONSTANT (1) << 62) / params.zoom_factor)
        break;
    }

  states = strata_zoom_tree_get_n_lane_states (tree);
  g_test_message ("%u channels, %u lanes; lane states %" G_GUINT64_FORMAT " (bound %" G_GUINT64_FORMAT
                  ", one per lane ever seen per level %" G_GUINT64_FORMAT "); raw store tails %" G_GUINT64_FORMAT
                  " bytes (peak %" G_GUINT64_FORMAT "), %" G_GUINT64_FORMAT " of %u spilled; %u chunks",
                  n_channels, lifetimes->len, states, bound, ever, tails, peak,
                  strata_raw_store_get_spilled (raw), acts->len, checked.chunks);
  g_assert_cmpuint (n_channels, >, 3000);
  g_assert_cmpuint (checked.chunks, >, 10);
  g_assert_cmpuint (states, >, 0);
  g_assert_cmpuint (states, <=, bound);
  g_assert_cmpuint (states * 4, <, ever);
}

/* Loads @path with the raw store spilling from its first activity, its
 * tails held to @budget bytes (0: the defaults, which a small trace never
 * reaches): into @index, or (@index NULL) in memory; *@spilled: how many
 * activities went to the spill file. */
static StrataTrace *
load_spilled (const char             *path,
              const StrataZoomParams *params,
              const char             *index,
              guint64                 budget,
              guint64                *spilled)
{
  StrataIndexOptions options = { .index_path = index, .flags = STRATA_INDEX_OPEN_REBUILD };
  StrataTrace *trace = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = g_strdup_printf ("%" G_GUINT64_FORMAT, budget);

  if (budget > 0)
    {
      g_setenv ("STRATA_RAW_STORE_SPILL_FROM", "0", TRUE);
      g_setenv ("STRATA_RAW_STORE_BUDGET", value, TRUE);
    }
  trace = index != NULL ? strata_test_load_index (path, params, &options, &error)
                        : strata_test_load_in_memory (path, params, &error);
  g_unsetenv ("STRATA_RAW_STORE_SPILL_FROM");
  g_unsetenv ("STRATA_RAW_STORE_BUDGET");
  g_assert_no_error (error);
  g_assert_cmpstr (strata_trace_get_index_path (trace), ==, index);
  *spilled = strata_raw_store_get_spilled (strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (trace)));
  return trace;
}

/* The index's bytes. */
static GBytes *
index_spilled (const char             *path,
               const StrataZoomParams *params,
               const char             *index,
               guint64                 budget,
               guint64                *spilled)
{
  g_autoptr(StrataTrace) trace = load_spilled (path, params, index, budget, spilled);
  char *contents = NULL;
  gsize len = 0;

  g_assert_nonnull (trace);
  g_assert_true (g_file_get_contents (index, &contents, &len, NULL));
  return g_bytes_new_take (contents, len);
}

static StrataTrace *
index_spilled_in_memory (const char             *path,
                         const StrataZoomParams *params,
                         guint64                 budget,
                         guint64                *spilled)
{
  return load_spilled (path, params, NULL, budget, spilled);
}

/* A build whose raw store spilled short blocks to a tiny budget writes
 * the very bytes of one that held everything in memory, and every lane
 * of the index read back equals that lane read back from the spill file
 * of a build in memory. */
static void
test_spilled_index (void)
{
  static const char *traces[] = { "sched-small.dat", "instances.dat" };
  guint64 total_spilled = 0;

  for (guint f = 0; f < G_N_ELEMENTS (traces); f++)
    {
      g_autofree char *path = strata_test_fixture (traces[f]);
      g_autofree char *dir = strata_test_tmpdir ();
      g_autofree char *plain_path = g_build_filename (dir, "plain" STRATA_INDEX_SUFFIX, NULL);
      g_autofree char *spilled_path = g_build_filename (dir, "spilled" STRATA_INDEX_SUFFIX, NULL);
      StrataIndexOptions mapped = { .index_path = spilled_path };
      g_autoptr(GBytes) plain = NULL;
      g_autoptr(GBytes) spilled = NULL;
      g_autoptr(StrataTrace) want = NULL;
      g_autoptr(StrataTrace) got = NULL;
      g_autoptr(GError) error = NULL;
      StrataRawStore *wr, *gr;
      guint64 n_plain, n_spilled, n_spilled_in_memory;
      guint n_lanes = 0;
      StrataZoomParams params;

      strata_zoom_params_init (&params);
      plain = index_spilled (path, &params, plain_path, 0, &n_plain);
      spilled = index_spilled (path, &params, spilled_path, 2048, &n_spilled);
      g_assert_true (g_bytes_equal (plain, spilled));

      /* The same settings in memory: how much they spill, and the lanes
       * read back from the spill file against those read from the index. */
      want = index_spilled_in_memory (path, &params, 2048, &n_spilled_in_memory);
      g_test_message ("%s: %" G_GUINT64_FORMAT " activities spilled", traces[f], n_spilled_in_memory);
      g_assert_cmpuint (n_spilled_in_memory, >, 0);
      total_spilled += n_spilled_in_memory;
      got = strata_test_load_index (path, &params, &mapped, &error);
      g_assert_no_error (error);
      wr = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (want));
      gr = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (got));
      g_assert_cmpuint (strata_raw_store_get_size (gr), ==, strata_raw_store_get_size (wr));
      g_assert_cmpuint (strata_raw_store_get_n_channels (gr), ==, strata_raw_store_get_n_channels (wr));
      for (guint32 c = 0; c < strata_raw_store_get_n_channels (wr); c++)
        for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
          {
            StrataRawLane wl, gl;
            guint wf, we, gf, ge;
            gboolean has = strata_raw_store_open_lane (wr, c, l, G_MININT64 / 2, G_MAXINT64 / 2, &wl, &wf, &we);

            g_assert_cmpint (strata_raw_store_open_lane (gr, c, l, G_MININT64 / 2, G_MAXINT64 / 2, &gl, &gf, &ge), ==, has);
            if (!has)
              continue;
            g_assert_cmpuint (ge, ==, we);
            for (guint i = 0; i < we; i++)
              g_assert_cmpmem (strata_raw_lane_get (&gl, i), sizeof (StrataActivity),
                               strata_raw_lane_get (&wl, i), sizeof (StrataActivity));
            n_lanes++;
          }
      g_assert_cmpuint (n_lanes, >, 10);
      g_assert_null (strata_trace_get_index_damage (got));
    }
  g_assert_cmpuint (total_spilled, >, 0);
}

/* Spilled chunks (strata-block-packer.c): a tree whose finished chunks
 * leave memory answers as one that keeps them. */

/* Every stored chunk of @a and @b: the same chunks, with the same items
 * for every channel, and (@at_end) made the same way: in the pass, or
 * from the raw store when it ended. */
static void
assert_trees_equal_full (StrataZoomTree *a,
                         StrataZoomTree *b,
                         gboolean        at_end)
{
  guint n_channels = strata_raw_store_get_n_channels (strata_zoom_tree_get_raw_store (a));
  StrataZoomGeometry ga, gb;

  g_assert_true (strata_zoom_tree_get_geometry (a, &ga));
  g_assert_true (strata_zoom_tree_get_geometry (b, &gb));
  g_assert_cmpuint (ga.n_levels, ==, gb.n_levels);
  g_assert_cmpuint (strata_zoom_tree_get_size (a), ==, strata_zoom_tree_get_size (b));
  for (guint level = 0; level < ga.n_levels; level++)
    {
      g_autoptr(GArray) ca = strata_zoom_tree_list_chunks (a, level);
      g_autoptr(GArray) cb = strata_zoom_tree_list_chunks (b, level);

      g_assert_cmpuint (ca->len, ==, cb->len);
      g_assert_cmpuint (strata_zoom_tree_get_n_plain_chunks (a, level), ==,
                        strata_zoom_tree_get_n_plain_chunks (b, level));
      for (guint k = 0; k < ca->len; k++)
        {
          const StrataZoomChunkInfo *x = &g_array_index (ca, StrataZoomChunkInfo, k);
          const StrataZoomChunkInfo *y = &g_array_index (cb, StrataZoomChunkInfo, k);

          g_assert_cmpint (x->index, ==, y->index);
          g_assert_cmpuint (x->n_items, ==, y->n_items);
          g_assert_cmpuint (x->n_channels, ==, y->n_channels);
          if (at_end)
            g_assert_cmpint (x->at_end, ==, y->at_end);
          for (guint32 c = 0; c < n_channels; c++)
            {
              g_autoptr(GArray) ia = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
              g_autoptr(GArray) ib = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
              gboolean sa = strata_zoom_tree_get_chunk_items (a, level, x->index, c, ia);
              gboolean sb = strata_zoom_tree_get_chunk_items (b, level, x->index, c, ib);

              g_assert_cmpint (sa, ==, sb);
              assert_items_equal (ib, ia);
            }
        }
    }
}

static void
assert_trees_equal (StrataZoomTree *a,
                    StrataZoomTree *b)
{
  assert_trees_equal_full (a, b, TRUE);
}

/* The same viewports of @a and @b, at every level, at @t: the same items. */
static void
assert_queries_equal_at (StrataZoomTree *a,
                         StrataZoomTree *b,
                         gint64          t)
{
  StrataZoomGeometry ga, gb;

  if (!strata_zoom_tree_get_geometry (a, &ga))
    return;
  g_assert_true (strata_zoom_tree_get_geometry (b, &gb));
  g_assert_cmpuint (ga.n_levels, ==, gb.n_levels);
  for (guint level = 0; level < ga.n_levels; level++)
    {
      gint64 d = strata_zoom_geometry_chunk_duration (&ga, level);
      g_autoptr(GArray) ia = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      g_autoptr(GArray) ib = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));

      strata_zoom_tree_query (a, level, t - d / 2, t + d / 2, NULL, 0, ia, NULL);
      strata_zoom_tree_query (b, level, t - d / 2, t + d / 2, NULL, 0, ib, NULL);
      assert_items_equal (ib, ia);
    }
}

/* Every chunk spilled from the first, through a queue small enough that
 * the builder waits for the packer: the oracle of the in-memory trees
 * (stored == on-demand == brute force, queries == reference), and the
 * same chunks and items as the tree that keeps them. */
static void
test_spilled_oracle (void)
{
  const StrataTestStreamKind kinds[] = {
    STRATA_TEST_STREAM_MIXED, STRATA_TEST_STREAM_MANY_THREADS,
  };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr(GArray) acts = strata_test_stream_collect (kinds[k], 25000, 300 + k);
      const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
      g_autoptr(StrataZoomTree) kept = NULL;
      g_autoptr(StrataZoomTree) spilled = NULL;
      StrataZoomChunkMemory memory;
      StrataZoomParams params;
      Checked checked;
      guint n_chunks = 0;

      params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
      kept = strata_zoom_tree_new (&params, NULL);
      strata_zoom_tree_set_chunk_spill (kept, G_MAXSIZE, 0);
      spilled = strata_zoom_tree_new (&params, NULL);
      strata_zoom_tree_set_chunk_spill (spilled, 0, 16 * 1024);
      strata_test_stream_build (kept, all, acts->len);
      strata_test_stream_build (spilled, all, acts->len);

      for (guint level = 0; level < 64; level++)
        {
          g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (spilled, level);

          n_chunks += chunks->len;
        }
      strata_zoom_tree_get_chunk_memory (spilled, &memory);
      g_test_message ("%s: %u chunks, %u spilled, %" G_GUINT64_FORMAT " bytes of items written, "
                      "at most %" G_GSIZE_FORMAT " queued",
                      strata_test_stream_kind_name (kinds[k]), n_chunks, memory.n_spilled,
                      memory.spilled, memory.peak_queued);
      g_assert_cmpuint (n_chunks, >, 0);
      g_assert_cmpuint (memory.n_spilled, ==, n_chunks);
      g_assert_cmpuint (memory.in_memory, ==, 0);
      /* Their spans, keys and lane changes went to the file too: what is
       * resident of them is their records and, once read, the cache. */
      g_assert_cmpuint (memory.n_chunks, ==, n_chunks);
      g_assert_cmpuint (memory.spans, ==, 0);
      g_assert_cmpuint (memory.piece_cache, ==, 0);
      g_assert_cmpuint (memory.chunk_index % n_chunks, ==, 0);  /* records only, all one size */
      strata_zoom_tree_get_chunk_memory (kept, &memory);
      g_assert_cmpuint (memory.n_spilled, ==, 0);
      g_assert_cmpuint (memory.spans, >, 0);
      g_assert_cmpuint (memory.piece_cache, ==, 0);

      assert_trees_equal (kept, spilled);
      check_tree (spilled, all, acts->len, &checked);
      g_assert_cmpuint (checked.chunks, ==, n_chunks);
      check_queries (spilled, all, acts->len, 20);

      /* Every span of the spilled chunks cut to what can be in view:
       * decoded only there, and the answers still the reference's. */
      {
        g_autoptr(StrataZoomTree) cut = NULL;

        g_setenv ("STRATA_ZOOM_SPAN_CUT", "0", TRUE);
        cut = strata_zoom_tree_new (&params, NULL);
        g_unsetenv ("STRATA_ZOOM_SPAN_CUT");
        strata_zoom_tree_set_chunk_spill (cut, 0, 16 * 1024);
        strata_test_stream_build (cut, all, acts->len);
        g_assert_cmpuint (check_queries (cut, all, acts->len, 20), >, 0);
      }
    }
}

/* One result asked again and again, as a timeline's frames do: it keeps
 * the blocks of spilled chunks the last query decoded, and its answers
 * are those of a fresh result; asked the same twice, it decodes nothing. */
static void
test_spilled_result_reuse (void)
{
  g_autoptr(GArray) acts = strata_test_stream_collect (STRATA_TEST_STREAM_MIXED, 25000, 310);
  const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
  g_autoptr(StrataZoomTree) tree = NULL;
  g_autoptr(StrataZoomResult) kept = strata_zoom_result_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  StrataZoomParams params;
  StrataZoomGeometry g;
  gint64 first = all[0].start, last = 0;
  guint decoded = 0, again = 0, cut = 0;

  for (guint i = 0; i < acts->len; i++)
    last = MAX (last, all[i].end);
  params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
  g_setenv ("STRATA_ZOOM_SPAN_CUT", "64", TRUE);
  tree = strata_zoom_tree_new (&params, NULL);
  g_unsetenv ("STRATA_ZOOM_SPAN_CUT");
  strata_zoom_tree_set_chunk_spill (tree, 0, 16 * 1024);
  strata_test_stream_build (tree, all, acts->len);
  g_assert_true (strata_zoom_tree_get_geometry (tree, &g));

  for (guint q = 0; q < 120; q++)
    {
      guint level = g_rand_int_range (rand, 0, g.n_levels);
      gint64 width = strata_zoom_geometry_chunk_duration (&g, level) * 15 / 16;
      gint64 from = first + (gint64) (g_rand_double (rand) * (double) (last - first));
      /* A view, the same again, then panned a quarter of it. */
      gint64 views[3] = { from, from, from + width / 4 };

      for (guint v = 0; v < G_N_ELEMENTS (views); v++)
        {
          g_autoptr(StrataZoomResult) fresh = strata_zoom_result_new ();
          const StrataZoomSpan *a, *b;
          StrataZoomQueryStats sa, sb;
          guint na, nb;

          /* The fresh one first: the tree keeps the spans' lane bounds
           * the first query of a span finds, for every result. */
          strata_zoom_tree_query_spans (tree, level, views[v], views[v] + width, NULL, 0, fresh, &sb);
          strata_zoom_tree_query_spans (tree, level, views[v], views[v] + width, NULL, 0, kept, &sa);
          a = strata_zoom_result_get_spans (kept, &na);
          b = strata_zoom_result_get_spans (fresh, &nb);
          g_assert_cmpuint (na, ==, nb);
          for (guint i = 0; i < na; i++)
            {
              g_assert_cmpuint (a[i].channel, ==, b[i].channel);
              g_assert_cmpint (a[i].chunk, ==, b[i].chunk);
              g_assert_cmpuint (a[i].n_items, ==, b[i].n_items);
              g_assert_cmpmem (a[i].items, a[i].n_items * sizeof (StrataZoomItem),
                               b[i].items, b[i].n_items * sizeof (StrataZoomItem));
            }
          g_assert_cmpuint (sa.n_decoded, <=, sb.n_decoded);
          if (v == 1)
            {
              g_assert_cmpuint (sa.n_decoded, ==, 0);
              again += sb.n_decoded;
            }
          decoded += sb.n_decoded;
          cut += sb.n_cut;
        }
    }

  g_test_message ("%u blocks decoded by fresh results, %u of them for a view asked again; %u spans cut",
                  decoded, again, cut);
  g_assert_cmpuint (again, >, 0);
  g_assert_cmpuint (cut, >, 0);
}

/* A narrow view of a long span decodes the blocks its answer lies in and,
 * per lane of the span, at most two more: the block at each end of what
 * is in view. The chunks' keys (each block's first item) take the
 * bisections to a block without decoding any, and their lane changes
 * say where each lane begins; bisecting over the items themselves decoded a
 * block a probe. At full-size chunks (8192 pixels) a lane is up to 32
 * blocks long. */
static void
test_spilled_narrow_views (void)
{
  g_autoptr(GArray) acts = strata_test_stream_collect (STRATA_TEST_STREAM_MIXED, 600000, 44);
  const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
  g_autoptr(StrataZoomTree) tree = NULL;
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  StrataZoomParams params;
  StrataZoomGeometry g;
  guint32 n_channels = 0;
  guint n_views = 0, long_lanes = 0;
  guint64 decoded = 0, in_view = 0;

  for (guint i = 0; i < acts->len; i++)
    n_channels = MAX (n_channels, all[i].channel + 1);
  strata_zoom_params_init (&params);
  tree = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_chunk_spill (tree, 0, 16 * 1024);
  strata_test_stream_build (tree, all, acts->len);
  g_assert_true (strata_zoom_tree_get_geometry (tree, &g));

  for (guint level = 0; level < g.n_levels; level++)
    {
      g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (tree, level);
      gint64 duration = strata_zoom_geometry_chunk_duration (&g, level);

      for (guint i = 0; i < chunks->len; i++)
        {
          gint64 index = g_array_index (chunks, StrataZoomChunkInfo, i).index;
          gint64 start = strata_zoom_geometry_chunk_start (&g, level, index);

          for (guint32 ch = 0; ch < n_channels; ch++)
            {
              const StrataZoomItem *it;
              guint lanes = 1, longest = 0, run = 1;

              g_array_set_size (items, 0);
              if (!strata_zoom_tree_get_chunk_items (tree, level, index, ch, items) || items->len < 1024)
                continue;
              it = (const StrataZoomItem *)(gpointer) items->data;
              for (guint k = 1; k < items->len; k++, run++)
                if (strata_zoom_item_lane (&it[k]) != strata_zoom_item_lane (&it[k - 1]))
                  {
                    lanes++;
                    longest = MAX (longest, run);
                    run = 0;
                  }
              longest = MAX (longest, run);
              long_lanes += longest >= 8 * 256;

              for (guint v = 0; v < 4; v++)
                {
                  g_autoptr(StrataZoomResult) result = strata_zoom_result_new ();
                  gint64 width = duration / 64;
                  gint64 from = start + (gint64) (g_rand_double (rand) * (double) (duration - width));
                  const StrataZoomSpan *spans;
                  StrataZoomQueryStats stats;
                  guint n, bound = 2 * lanes;

                  strata_zoom_tree_query_spans (tree, level, from, from + width, &ch, 1, result, &stats);
                  spans = strata_zoom_result_get_spans (result, &n);
                  for (guint s = 0; s < n; s++)
                    {
                      g_assert_cmpint (spans[s].chunk, ==, index);
                      bound += (spans[s].n_items + 255) / 256;
                      in_view += spans[s].n_items;
                    }
                  g_assert_cmpuint (stats.n_decoded, <=, bound);
                  decoded += stats.n_decoded;
                  n_views++;
                }
            }
        }
    }

  g_test_message ("%u narrow views of long spans (%u with a lane of 8 blocks or more): %" G_GUINT64_FORMAT
                  " items in view, %" G_GUINT64_FORMAT " blocks decoded", n_views, long_lanes, in_view, decoded);
  g_assert_cmpuint (long_lanes, >, 0);
}

/* While a stream much bigger than the bound is built, the items the tree
 * holds in memory (kept below its threshold, or waiting for the packer)
 * stay under threshold + queue + twice the biggest chunk finished while
 * building (the one that crosses the threshold, and one bigger than the
 * queue, which passes alone), by the tree's own count; what went to the
 * spill file is many times that. */
static void
test_spilled_bounded (void)
{
  const gsize spill_from = 64 * 1024, max_queued = 64 * 1024;
  g_autoptr(StrataTestStream) stream = strata_test_stream_new (STRATA_TEST_STREAM_MIXED, 200000, 21);
  g_autoptr(StrataZoomTree) tree = NULL;
  StrataZoomChunkMemory memory;
  StrataZoomParams params;
  StrataActivity a, next;
  gsize peak = 0, biggest = 0, biggest_at_all = 0, bound;
  guint64 n = 0, n_chunks = 0, all_items = 0;
  gboolean more;

  params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
  tree = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_chunk_spill (tree, spill_from, max_queued);

  more = strata_test_stream_next (stream, &next);
  while (more)
    {
      a = next;
      more = strata_test_stream_next (stream, &next);
      strata_zoom_tree_add (&a, tree);
      if (++n % 4096 == 0 && more)
        {
          strata_zoom_tree_advance (tree, next.start, NULL, NULL);
          strata_zoom_tree_get_chunk_memory (tree, &memory);
          peak = MAX (peak, memory.in_memory + memory.queued);
        }
    }
  strata_zoom_tree_finish (tree);

  for (guint level = 0; level < 64; level++)
    {
      g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (tree, level);

      /* Those finished while building (the first chunks are computed at
       * the end). */
      for (guint k = 0; k < chunks->len; k++)
        {
          const StrataZoomChunkInfo *c = &g_array_index (chunks, StrataZoomChunkInfo, k);

          if (!c->at_end)
            biggest = MAX (biggest, c->n_items * sizeof (StrataZoomItem));
          biggest_at_all = MAX (biggest_at_all, c->n_items * sizeof (StrataZoomItem));
          all_items += c->n_items * sizeof (StrataZoomItem);
        }
      n_chunks += chunks->len;
    }
  strata_zoom_tree_get_chunk_memory (tree, &memory);
  bound = spill_from + max_queued + 2 * biggest;
  g_test_message ("%" G_GUINT64_FORMAT " chunks, %u spilled: %" G_GUINT64_FORMAT " bytes of items written "
                  "(%" G_GUINT64_FORMAT " in the file), %" G_GSIZE_FORMAT " kept; at most %" G_GSIZE_FORMAT
                  " held while building (bound %" G_GSIZE_FORMAT ", biggest chunk %" G_GSIZE_FORMAT
                  "); %" G_GSIZE_FORMAT " bytes of chunk records and spans, %" G_GSIZE_FORMAT " of block records",
                  n_chunks, memory.n_spilled, memory.spilled, memory.file_size, memory.in_memory, peak, bound,
                  biggest, memory.chunk_index, memory.records);
  g_assert_cmpuint (peak, <=, bound);
  g_assert_cmpuint (memory.in_memory, <=, spill_from + biggest);
  /* The packer's own count, at every submission, the end's too. */
  g_assert_cmpuint (memory.peak_queued, <=, MAX (max_queued, biggest_at_all));
  g_assert_cmpuint (memory.queued, ==, 0);
  g_assert_cmpuint (memory.spilled, >=, 10 * bound);
  /* Every item is kept or in the file (with those of first chunks
   * streamed there and then found not worth storing). */
  g_assert_cmpuint (memory.in_memory + memory.spilled, >=, all_items);
}

/* A stored chunk's items for a channel, as another thread read them
 * while the tree was built. */
typedef struct
{
  guint    level;
  gint64   index;
  guint32  channel;
  gboolean stored;
  GArray  *items;
} SeenItems;

typedef struct
{
  StrataZoomTree *a;
  StrataZoomTree *b;
  gint            stop;
  guint           queries;
  GArray         *seen;      /* SeenItems, the reader's (NULL: no look-ups) */
  guint32         n_channels;
} Pair;

/* Queries the spilled tree from another thread while it is built (what
 * the viewer does): its answers are checked against the kept tree by the
 * builder, at points where both have taken the same activities. It also
 * reads chunks published so far, channel by channel, through their
 * spilled spans (a published chunk does not change), and keeps what it
 * read: checked against the kept tree once it is built. */
static gpointer
spilled_reader_thread (gpointer data)
{
  Pair *pair = data;
  guint round = 0;

  while (!g_atomic_int_get (&pair->stop))
    {
      g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      StrataZoomGeometry g;

      if (strata_zoom_tree_get_geometry (pair->b, &g))
        for (guint level = 0; level < g.n_levels; level += 2)
          {
            gint64 d = strata_zoom_geometry_chunk_duration (&g, level);
            g_autoptr(GArray) chunks = NULL;

            strata_zoom_tree_query (pair->b, level, 1000000000, 1000000000 + d, NULL, 0, items, NULL);
            g_array_set_size (items, 0);

            /* Levels move while the geometry grows (level 0 is the
             * finest rank whose chunk holds the whole stream so far): a
             * chunk is known by its rank, its level's distance from the
             * finest level, which does not move. */
            chunks = strata_zoom_tree_list_chunks (pair->b, level);
            if (pair->seen != NULL && chunks->len > 0 && pair->seen->len < 4000)
              {
                const StrataZoomChunkInfo *c =
                  &g_array_index (chunks, StrataZoomChunkInfo, (round * 7 + level) % chunks->len);
                SeenItems s = { g.n_levels - 1 - level, c->index, (round * 13 + level) % pair->n_channels,
                                FALSE, g_array_new (FALSE, FALSE, sizeof (StrataZoomItem)) };

                StrataZoomGeometry after;

                s.stored = strata_zoom_tree_get_chunk_items (pair->b, level, s.index, s.channel, s.items);
                /* Kept only if the levels did not move meanwhile (the
                 * root only gets coarser: the same count before and
                 * after, the same levels all along). */
                if (!c->at_end && strata_zoom_tree_get_geometry (pair->b, &after) && after.n_levels == g.n_levels)
                  g_array_append_val (pair->seen, s);
                else
                  g_array_unref (s.items);
              }
          }
      pair->queries++;
      round++;
      g_usleep (1000);
    }
  return NULL;
}

/* Live: two trees take the same activities, one keeping its chunks and
 * one spilling them from the first through a small queue, queried by
 * another thread all along; at every advance their answers around the
 * growing edge and the stream's start are the same, and at the end every
 * chunk is. */
static void
test_spilled_live (void)
{
  g_autoptr(GArray) acts = strata_test_stream_collect (STRATA_TEST_STREAM_MIXED, 40000, 9);
  const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
  g_autoptr(StrataZoomTree) kept = NULL;
  g_autoptr(StrataZoomTree) spilled = NULL;
  StrataZoomChunkMemory memory;
  StrataZoomParams params;
  Pair pair = { 0 };
  GThread *thread;
  guint compared = 0;

  params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
  kept = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_chunk_spill (kept, G_MAXSIZE, 0);
  spilled = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_chunk_spill (spilled, 0, 8 * 1024);
  pair.a = kept;
  pair.b = spilled;
  pair.seen = g_array_new (FALSE, FALSE, sizeof (SeenItems));
  for (gsize i = 0; i < acts->len; i++)
    pair.n_channels = MAX (pair.n_channels, all[i].channel + 1);
  thread = g_thread_new ("reader", spilled_reader_thread, &pair);

  for (gsize i = 0; i < acts->len; i++)
    {
      strata_zoom_tree_add (&all[i], kept);
      strata_zoom_tree_add (&all[i], spilled);
      if ((i + 1) % 1000 == 0 && i + 1 < acts->len)
        {
          strata_zoom_tree_advance (kept, all[i + 1].start, NULL, NULL);
          strata_zoom_tree_advance (spilled, all[i + 1].start, NULL, NULL);
          if ((i + 1) % 5000 == 0)
            {
              assert_queries_equal_at (kept, spilled, all[i].start);
              assert_queries_equal_at (kept, spilled, all[0].start);
              compared++;
            }
        }
    }
  strata_zoom_tree_finish (kept);
  strata_zoom_tree_finish (spilled);
  g_atomic_int_set (&pair.stop, 1);
  g_thread_join (thread);

  strata_zoom_tree_get_chunk_memory (spilled, &memory);
  g_test_message ("%u comparisons while building, %u queries from another thread, %u chunks spilled",
                  compared, pair.queries, memory.n_spilled);
  g_assert_cmpuint (memory.n_spilled, >, 10);
  g_assert_cmpuint (compared, >, 5);
  assert_trees_equal (kept, spilled);
  assert_queries_equal_at (kept, spilled, all[acts->len / 2].start);

  /* What the reader read of the spilled tree's chunks while it was
   * built is what the kept tree has in them. */
  {
    StrataZoomGeometry g;
    guint n_stored = 0;

    g_assert_true (strata_zoom_tree_get_geometry (kept, &g));
    for (guint i = 0; i < pair.seen->len; i++)
      {
        SeenItems *s = &g_array_index (pair.seen, SeenItems, i);
        g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
        guint level = g.n_levels - 1 - s->level;

        g_assert_cmpuint (s->level, <, g.n_levels);
        g_assert_cmpint (strata_zoom_tree_get_chunk_items (kept, level, s->index, s->channel, want), ==, s->stored);
        assert_items_equal (s->items, want);
        n_stored += s->stored;
        g_array_unref (s->items);
      }
    g_test_message ("%u chunk look-ups from the reader, %u of a stored channel", pair.seen->len, n_stored);
    g_assert_cmpuint (n_stored, >, 0);
    g_array_unref (pair.seen);
  }
}

/* What a spilled tree keeps in memory of its chunks is their records:
 * not their spans (one per channel present, every thread at a coarse
 * level), keys or lane changes, which go to the spill file with their
 * items. A stream of many threads four times as long: the records'
 * bytes grow with the chunks' number only, as many bytes a chunk at
 * both lengths, while the tree that keeps its chunks holds spans that
 * grow with the stream; queries read the spans back into a cache that
 * stays small, and answer as the kept tree. */
static void
test_spilled_spans_flat (void)
{
  gsize per_record[2] = { 0 }, kept_spans[2] = { 0 };

  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(GArray) acts = strata_test_stream_collect (STRATA_TEST_STREAM_MANY_THREADS, 20000 << (2 * k), 77);
      const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
      g_autoptr(StrataZoomTree) kept = NULL;
      g_autoptr(StrataZoomTree) spilled = NULL;
      StrataZoomChunkMemory memory;
      StrataZoomParams params;
      guint n_checks = 0;

      params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
      kept = strata_zoom_tree_new (&params, NULL);
      strata_zoom_tree_set_chunk_spill (kept, G_MAXSIZE, 0);
      spilled = strata_zoom_tree_new (&params, NULL);
      strata_zoom_tree_set_chunk_spill (spilled, 0, 16 * 1024);

      /* All along the build, nothing queried: records only. */
      for (gsize i = 0; i < acts->len; i++)
        {
          strata_zoom_tree_add (&all[i], kept);
          strata_zoom_tree_add (&all[i], spilled);
          if ((i + 1) % 2000 == 0 && i + 1 < acts->len)
            {
              strata_zoom_tree_advance (kept, all[i + 1].start, NULL, NULL);
              strata_zoom_tree_advance (spilled, all[i + 1].start, NULL, NULL);
              strata_zoom_tree_get_chunk_memory (spilled, &memory);
              g_assert_cmpuint (memory.spans, ==, 0);
              g_assert_cmpuint (memory.piece_cache, ==, 0);
              if (memory.n_chunks > 0)
                {
                  g_assert_cmpuint (memory.chunk_index % memory.n_chunks, ==, 0);
                  n_checks++;
                }
            }
        }
      strata_zoom_tree_finish (kept);
      strata_zoom_tree_finish (spilled);
      g_assert_cmpuint (n_checks, >, 0);

      strata_zoom_tree_get_chunk_memory (spilled, &memory);
      g_assert_cmpuint (memory.n_spilled, ==, memory.n_chunks);
      g_assert_cmpuint (memory.spans, ==, 0);
      g_assert_cmpuint (memory.piece_cache, ==, 0);
      per_record[k] = memory.chunk_index / memory.n_chunks;
      g_assert_cmpuint (memory.chunk_index, ==, memory.n_chunks * per_record[k]);
      strata_zoom_tree_get_chunk_memory (kept, &memory);
      kept_spans[k] = memory.spans;
      g_test_message ("%u activities: %u chunks, %" G_GSIZE_FORMAT " bytes a record spilled; "
                      "%" G_GSIZE_FORMAT " bytes of spans kept in memory by the other tree",
                      acts->len, memory.n_chunks, per_record[k], kept_spans[k]);

      assert_trees_equal (kept, spilled);
      assert_queries_equal_at (kept, spilled, all[acts->len / 3].start);
      strata_zoom_tree_get_chunk_memory (spilled, &memory);
      /* The cache's bound: 16 pieces. */
      g_assert_cmpuint (memory.n_pieces, >, 0);
      g_assert_cmpuint (memory.n_pieces, <=, 16);
      g_assert_cmpuint (memory.chunk_index, ==, memory.n_chunks * per_record[k] + memory.piece_cache);
    }

  g_assert_cmpuint (per_record[1], ==, per_record[0]);
  g_assert_cmpuint (per_record[0], <=, 256);
  g_assert_cmpuint (kept_spans[1], >=, 2 * kept_spans[0]);
}

/* The descriptors of unlinked files this process has open. */
static GHashTable *
deleted_fds (void)
{
  GHashTable *fds = g_hash_table_new (NULL, NULL);
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/fd", name, NULL);
      g_autofree char *target = g_file_read_link (path, NULL);

      if (target != NULL && g_str_has_suffix (target, "(deleted)"))
        g_hash_table_add (fds, GINT_TO_POINTER (atoi (name)));
    }
  return fds;
}

/* A spill file gone bad under a finished tree (every byte of it
 * overwritten): its spilled chunks' spans and items fail their checksums,
 * so each chunk is answered from the raw store, as a damaged chunk of an
 * index is, and every query still answers as the tree that kept its
 * chunks; a look-up of a chunk's items finds none rather than wrong
 * ones. */
/* Overwrites every byte of the unlinked files opened since @before;
 * how many. */
static guint
damage_new_files (GHashTable *before)
{
  g_autoptr(GHashTable) after = deleted_fds ();
  GHashTableIter iter;
  gpointer fd;
  guint n_files = 0;

  g_hash_table_iter_init (&iter, after);
  while (g_hash_table_iter_next (&iter, &fd, NULL))
    if (!g_hash_table_contains (before, fd))
      {
        struct stat st;
        g_autofree guint8 *junk = NULL;

        g_assert_cmpint (fstat (GPOINTER_TO_INT (fd), &st), ==, 0);
        junk = g_malloc (MAX (st.st_size, 1));
        memset (junk, 0xa5, st.st_size);
        g_assert_cmpint (pwrite (GPOINTER_TO_INT (fd), junk, st.st_size, 0), ==, st.st_size);
        n_files++;
      }
  return n_files;
}

static void
test_spilled_damaged (void)
{
  g_autoptr(GArray) acts = strata_test_stream_collect (STRATA_TEST_STREAM_MIXED, 25000, 301);
  const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
  g_autoptr(StrataZoomTree) kept = NULL;
  g_autoptr(StrataZoomTree) spilled = NULL;
  g_autoptr(GHashTable) before = NULL;
  StrataZoomChunkMemory memory;
  StrataZoomParams params;
  StrataZoomGeometry g;
  GLogLevelFlags fatal;
  guint n_damaged = 0, n_lookups = 0;
  guint32 n_channels = 0;

  for (guint i = 0; i < acts->len; i++)
    n_channels = MAX (n_channels, all[i].channel + 1);
  params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
  kept = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_chunk_spill (kept, G_MAXSIZE, 0);
  strata_test_stream_build (kept, all, acts->len);

  /* The spilled tree's file is the one unlinked file it opens (its raw
   * store and its levels' pools do not spill at this size). */
  before = deleted_fds ();
  spilled = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_chunk_spill (spilled, 0, 16 * 1024);
  strata_test_stream_build (spilled, all, acts->len);
  strata_zoom_tree_get_chunk_memory (spilled, &memory);
  g_assert_cmpuint (memory.n_spilled, >, 0);
  g_assert_cmpuint (memory.file_size, >, 0);
  g_assert_cmpuint (damage_new_files (before), ==, 1);

  /* The tree warns of the damage it found: not fatal here. */
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
  g_assert_true (strata_zoom_tree_get_geometry (spilled, &g));
  for (guint level = 0; level < g.n_levels; level++)
    {
      g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (kept, level);

      for (guint k = 0; k < chunks->len; k++)
        for (guint32 c = 0; c < n_channels; c++)
          {
            gint64 index = g_array_index (chunks, StrataZoomChunkInfo, k).index;
            g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
            g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));

            if (!strata_zoom_tree_get_chunk_items (kept, level, index, c, want))
              continue;
            n_lookups++;
            if (strata_zoom_tree_get_chunk_items (spilled, level, index, c, got))
              assert_items_equal (got, want);
            else
              n_damaged++;
          }
    }
  for (guint t = 0; t < 8; t++)
    assert_queries_equal_at (kept, spilled, all[acts->len * t / 8].start);
  g_log_set_always_fatal (fatal);

  g_test_message ("%u look-ups of stored channels, %u found damaged", n_lookups, n_damaged);
  g_assert_cmpuint (n_damaged, >, 0);

  /* A trace whose chunks all spilled, its spill file gone bad before
   * its index is written: the write fails and leaves nothing, rather
   * than an index without those chunks. (The spans are read before the
   * items, so it is their checksum that fails first.) */
  {
    g_autofree char *path = strata_test_fixture ("sched-small.dat");
    g_autofree char *dir = strata_test_tmpdir ();
    g_autofree char *index = g_build_filename (dir, "damaged" STRATA_INDEX_SUFFIX, NULL);
    g_autoptr(StrataStatsBuilder) stats = strata_stats_builder_new ();
    g_autoptr(StrataTrace) trace = NULL;
    g_autoptr(GHashTable) opened = deleted_fds ();
    g_autoptr(GError) error = NULL;
    StrataSourceIdentity identity;
    StrataZoomParams fixture_params;

    strata_zoom_params_init (&fixture_params);
    g_assert_true (strata_source_identity_compute (path, &identity, &error));
    g_setenv ("STRATA_ZOOM_CHUNK_SPILL_FROM", "0", TRUE);
    trace = strata_test_load_full (path, FALSE, strata_stats_builder_add, strata_stats_builder_close, stats, &fixture_params, NULL, NULL, &error);
    g_unsetenv ("STRATA_ZOOM_CHUNK_SPILL_FROM");
    g_assert_no_error (error);
    strata_trace_set_stats (trace, strata_stats_builder_finish (stats, trace));
    strata_zoom_tree_get_chunk_memory (strata_trace_get_zoom_tree (trace), &memory);
    g_assert_cmpuint (memory.n_spilled, >, 0);
    g_assert_cmpuint (damage_new_files (opened), >=, 1);

    fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
    g_assert_false (strata_index_write (trace, &identity, index, &error));
    g_log_set_always_fatal (fatal);
    g_assert_nonnull (error);
    g_test_message ("the write: %s", error->message);
    g_assert_false (g_file_test (index, G_FILE_TEST_EXISTS));
  }
}

/* Pools: a level's open chunk moves the items its lanes made to a spill
 * file of its own past a budget (level_spill()) and reads them back when
 * the chunk ends: a tree with a tiny budget is the tree without one. */

static void
get_pools (StrataZoomTree       *tree,
           StrataZoomPoolMemory *memory)
{
  strata_zoom_tree_get_pool_memory (tree, memory);
}

/* Budgets from one byte (a spill at every new segment) to a few KiB, with
 * the finished chunks kept in memory or streamed to the packer, the
 * levels in the builder's thread or their own: the oracles (stored ==
 * on-demand == brute force, queries == reference), and the same chunks
 * and items as the tree whose pools hold everything. */

/* The buffer former's lane ids follow the channels with lanes still
 * open, not the channels ever made: after a stream of processes made all
 * the time (each with a channel that never closes and has no lanes) and
 * one thread in 1000 that lives on, the ids held grow by a few bytes a
 * channel from 8 000 to 32 000 channels. Counting a page's channels
 * closed kept every page (68 bytes a channel); pages of 1 024 channels
 * kept half of them, each for its thread alive (35 bytes). */
static void
test_process_churn_lane_ids (void)
{
  const guint n_threads[] = { 4000, 16000 };
  guint64 bytes[G_N_ELEMENTS (n_threads)];
  guint n_channels[G_N_ELEMENTS (n_threads)];
  double per_channel;

  for (guint r = 0; r < G_N_ELEMENTS (n_threads); r++)
    {
      g_autoptr(GArray) closes = NULL;
      g_autoptr(GArray) acts = strata_test_process_churn (n_threads[r], 1000, &n_channels[r], &closes);
      const StrataActivity *all = (const StrataActivity *)(gpointer) acts->data;
      const StrataTestClose *c = (const StrataTestClose *)(gpointer) closes->data;
      g_autoptr(StrataZoomTree) tree = NULL;
      StrataZoomParams params;
      guint next = 0;

      params_for_tests (&params, GPOINTER_TO_UINT (CASE (STRATA_BUFFER_ADAPTIVE, 1)));
      tree = strata_zoom_tree_new (&params, NULL);
      for (gsize i = 0; i < acts->len; i++)
        {
          strata_zoom_tree_add (&all[i], tree);
          for (; next < closes->len && c[next].after == i; next++)
            strata_zoom_tree_close_channel (tree, c[next].channel, c[next].t);
          if ((i + 1) % 4096 == 0 && i + 1 < acts->len)
            strata_zoom_tree_advance (tree, all[i + 1].start, NULL, NULL);
        }
      g_assert_cmpuint (next, ==, closes->len);
      strata_zoom_tree_advance (tree, all[acts->len - 1].end + 1, NULL, NULL);
      g_test_message ("%u channels: %u pages of lane ids held", n_channels[r],
                      strata_zoom_tree_get_n_lane_id_pages (tree, &bytes[r]));
      strata_zoom_tree_finish (tree);
    }
  per_channel = (double) (gint64) (bytes[1] - bytes[0]) / (n_channels[1] - n_channels[0]);
  g_test_message ("lane ids: %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT " bytes, %.1f a channel",
                  bytes[0], bytes[1], per_channel);
  g_assert_cmpfloat (per_channel, <, 8.0);
}

/* The short threads' stream built as the trace builds it: each channel
 * closed once its last activity is in (strata_zoom_tree_close_channel(),
 * what the kernel model says of a thread switched out dead). Each level
 * flushes a closed channel's lanes into its chunk as the chunk's end
 * would and takes their states back, so the states follow the lanes alive
 * at once (16 threads, two lanes each), not every lane a chunk saw: the
 * same tree without the closes needs many times more. The chunks are the
 * same, item for item (also with the pools spilling at every segment and
 * the levels in a thread of their own), and equal the brute-force oracle. */
static void
test_short_threads_closed (void)
{
  const struct
  {
    gsize       budget;
    gboolean    pipelined;
    const char *page;       /* STRATA_ZOOM_CLOSED_PAGE */
    guint       reduction;
  } cases[] = {
    { G_MAXSIZE, FALSE, NULL, 1 },
    { 1, TRUE, NULL, 1 },
    /* The closed lanes paged out three at a time, their pages merged
     * past sixteen: after each spill of a stored level's pool, and as
     * they close at a counted level's (the levels below the stored ones
     * with min_reduction 2). */
    { 1, TRUE, "3", 1 },
    { 1, FALSE, "3", 2 },
    { G_MAXSIZE, TRUE, "1", 2 },
  };
  guint n_channels = 0;
  g_autoptr(GArray) acts = short_threads_stream (40000, 5, &n_channels);
  const StrataActivity *all = (const StrataActivity *)(gpointer) acts->data;
  g_autofree gint64 *last_point = g_new (gint64, n_channels);
  g_autofree gsize *last_added = g_new (gsize, n_channels);
  g_autoptr(StrataZoomTree) plain = NULL;
  StrataZoomParams params;
  guint64 unclosed;

  /* Without the closes: what the levels held before them. */
  params_for_tests (&params, GPOINTER_TO_UINT (CASE (STRATA_BUFFER_ADAPTIVE, 1)));
  plain = strata_zoom_tree_new (&params, NULL);
  strata_test_stream_build (plain, all, acts->len);
  unclosed = strata_zoom_tree_get_n_lane_states (plain);

  for (guint c = 0; c < n_channels; c++)
    {
      last_point[c] = G_MININT64;
      last_added[c] = G_MAXSIZE;
    }
  for (gsize i = 0; i < acts->len; i++)
    {
      last_point[all[i].channel] = MAX (last_point[all[i].channel], all[i].end);
      last_added[all[i].channel] = i;
    }

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr(StrataZoomTree) tree = NULL;
      g_autoptr(StrataZoomTree) reduced = NULL;
      StrataZoomGeometry ranks;
      StrataZoomPoolMemory pools;
      Checked checked;
      guint64 states, closes = 0;

      params.pipelined = cases[k].pipelined;
      params.min_reduction = cases[k].reduction;
      if (cases[k].page != NULL)
        g_setenv ("STRATA_ZOOM_CLOSED_PAGE", cases[k].page, TRUE);
      tree = strata_zoom_tree_new (&params, NULL);
      g_unsetenv ("STRATA_ZOOM_CLOSED_PAGE");
      strata_zoom_tree_set_pool_budget (tree, cases[k].budget);
      for (gsize i = 0; i < acts->len; i++)
        {
          strata_zoom_tree_add (&all[i], tree);
          if (last_added[all[i].channel] == i)
            {
              strata_zoom_tree_close_channel (tree, all[i].channel, last_point[all[i].channel]);
              closes++;
            }
          if ((i + 1) % 4096 == 0 && i + 1 < acts->len)
            strata_zoom_tree_advance (tree, all[i + 1].start, NULL, NULL);
        }
      /* A page of lane ids goes once none of its channels with lanes is
       * open: the last two, with the threads alive at the end, may be
       * left. */
      strata_zoom_tree_advance (tree, G_MAXINT64 / 4, NULL, NULL);
      g_test_message ("%u pages of lane ids held, %u channels", strata_zoom_tree_get_n_lane_id_pages (tree, NULL),
                      n_channels);
      g_assert_cmpuint ((n_channels + 1023) / 1024, >=, 4);
      g_assert_cmpuint (strata_zoom_tree_get_n_lane_id_pages (tree, NULL), <=, 2);
      strata_zoom_tree_finish (tree);
      states = strata_zoom_tree_get_n_lane_states (tree);
      strata_zoom_tree_get_rank_geometry (tree, &ranks);

      g_test_message ("budget %" G_GSIZE_FORMAT "%s: %" G_GUINT64_FORMAT " channels closed; lane states %"
                      G_GUINT64_FORMAT " over %u ranks, %" G_GUINT64_FORMAT " without the closes",
                      cases[k].budget, cases[k].pipelined ? ", pipelined" : "", closes, states,
                      ranks.n_levels, unclosed);
      g_assert_cmpuint (closes, ==, n_channels);
      /* At most 16 threads alive, two lanes each, and those whose close
       * waits for the buffer after it, at each rank. */
      g_assert_cmpuint (states, <=, (guint64) ranks.n_levels * 2 * 2 * 16);
      g_assert_cmpuint (unclosed, >, (guint64) ranks.n_levels * 2 * 2 * 16);
      g_assert_cmpuint (states * 4, <, unclosed);
      strata_zoom_tree_get_pool_memory (tree, &pools);
      g_test_message ("%" G_GUINT64_FORMAT " spills, %" G_GUINT64_FORMAT " pages of %" G_GUINT64_FORMAT
                      " closed lanes, at most %" G_GUINT64_FORMAT " closed lanes in memory at a level",
                      pools.n_spills, pools.n_pages, pools.paged, pools.closed_peak);
      /* The closed lanes' output went through the levels' files too. */
      if (cases[k].budget < G_MAXSIZE)
        g_assert_cmpuint (pools.n_spills, >, 10);
      if (cases[k].page != NULL)
        {
          /* And the closed lanes themselves: those of the counted levels
           * as they close, a stored level's after its spills, so then
           * never more than a page and the lanes a chunk's end closes at
           * once are in memory. */
          g_assert_cmpuint (pools.n_pages, >, 16);
          g_assert_cmpuint (pools.paged, >=, n_channels);
          if (cases[k].budget < G_MAXSIZE)
            g_assert_cmpuint (pools.closed_peak, <, n_channels / 4);
        }

      /* The same chunks as without the closes (or, at another
       * min_reduction, as with the closes unpaged); the oracles for the
       * first of each. */
      if (cases[k].reduction == 1)
        assert_trees_equal (plain, tree);
      else
        {
          reduced = strata_zoom_tree_new (&params, NULL);
          strata_test_stream_build (reduced, all, acts->len);
          assert_trees_equal (reduced, tree);
        }
      if (k == 0 || k == 3)
        {
          check_tree (tree, all, acts->len, &checked);
          g_assert_cmpuint (checked.chunks, >, cases[k].reduction == 1 ? 10 : 2);
          check_queries (tree, all, acts->len, 30);
        }
    }
}

/* The fixtures as the trace builds them, the model closing each thread
 * it sees switched out dead: the same chunks as a tree built from the
 * same activities with no closes, never more lane states. */
static void
test_fixtures_closed (void)
{
  guint64 fewer = 0;

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = NULL;
      g_autoptr(StrataZoomTree) plain = NULL;
      g_autoptr(GArray) sorted = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      const StrataActivity *all;
      StrataZoomTree *tree;
      StrataZoomParams params;
      guint64 states, plain_states;
      gsize n;

      params_for_tests (&params, GPOINTER_TO_UINT (CASE (STRATA_BUFFER_ADAPTIVE, 1)));
      trace = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, NULL, NULL, &error);
      g_assert_no_error (error);
      tree = strata_trace_get_zoom_tree (trace);
      all = strata_trace_get_activities (trace, &n);
      g_array_append_vals (sorted, all, n);
      g_array_sort (sorted, by_start);

      /* With the span hint the trace's tree had from its file, so both
       * make their first chunks the same way. */
      plain = strata_zoom_tree_new (&params, NULL);
      {
        const StrataSourceInfo *info = strata_trace_get_info (trace);

        if (info->span_first <= info->span_last)
          strata_zoom_tree_set_span_hint (plain, info->span_first, info->span_last);
      }
      strata_test_stream_build (plain, (const StrataActivity *)(gpointer) sorted->data, sorted->len);
      assert_trees_equal (plain, tree);

      states = strata_zoom_tree_get_n_lane_states (tree);
      plain_states = strata_zoom_tree_get_n_lane_states (plain);
      g_test_message ("%s: lane states %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " without the closes",
                      fixtures[f], states, plain_states);
      g_assert_cmpuint (states, <=, plain_states);
      fewer += plain_states - states;
    }
  /* The fixtures' threads do exit. */
  g_assert_cmpuint (fewer, >, 0);
}

/* The span hint (strata_zoom_tree_set_span_hint()): level 0 and the finer
 * levels then aggregate their first chunk in the pass, as every later
 * chunk. The tree is the one built without a hint whatever the hint says
 * (only how its first chunks were made differs): right, too short (the
 * levels it missed compute their first chunk when the pass ends), too
 * long (the ranks that turn out coarser than level 0 let go of what they
 * made, and the tree's size says so), or starting late; and the one with
 * the right hint holds up against the oracles. */
static void
test_span_hint (void)
{
  guint in_pass = 0;

  for (guint k = 0; k < STRATA_TEST_N_STREAMS; k++)
    for (guint reduction = 1; reduction <= 2; reduction++)
      {
        g_autoptr(GArray) acts = strata_test_stream_collect (k, 20000, 300 + k);
        const StrataActivity *a = (const StrataActivity *)(gpointer) acts->data;
        g_autoptr(StrataZoomTree) plain = NULL;
        gint64 first = G_MAXINT64, last = G_MININT64, span;
        StrataZoomParams params;

        params_for_tests (&params, GPOINTER_TO_UINT (CASE (STRATA_BUFFER_ADAPTIVE, reduction)));
        plain = strata_zoom_tree_new (&params, NULL);
        strata_test_stream_build (plain, a, acts->len);

        for (guint i = 0; i < acts->len; i++)
          {
            first = MIN (first, a[i].start);
            last = MAX (last, a[i].end > a[i].start ? a[i].end - 1 : a[i].start);
          }
        span = last - first + 1;

        {
          const struct { gint64 first, last; } hints[] = {
            { first, last },
            { first, first + span / 5 },
            { first, last + 200 * span },
            { first + span / 2, last },
          };

          for (guint h = 0; h < G_N_ELEMENTS (hints); h++)
            {
              g_autoptr(StrataZoomTree) tree = strata_zoom_tree_new (&params, NULL);
              StrataZoomGeometry g;

              strata_zoom_tree_set_span_hint (tree, hints[h].first, hints[h].last);
              strata_test_stream_build (tree, a, acts->len);
              assert_trees_equal_full (plain, tree, FALSE);

              /* No rank coarser than level 0 keeps a chunk: the index
               * writes every rank's. */
              strata_zoom_tree_get_rank_geometry (tree, &g);
              for (guint r = 0; r < g.n_levels && strata_zoom_tree_level_of_rank (tree, r) == G_MAXUINT; r++)
                {
                  guint n_plain = 0;

                  g_assert_cmpuint (strata_zoom_tree_get_n_rank_chunks (tree, r, &n_plain), ==, 0);
                  g_assert_cmpuint (n_plain, ==, 0);
                }

              if (h == 0)
                {
                  g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (tree, 0);
                  Checked checked;

                  check_tree (tree, a, acts->len, &checked);
                  for (guint i = 0; i < chunks->len; i++)
                    in_pass += !g_array_index (chunks, StrataZoomChunkInfo, i).at_end;
                }
            }
        }
      }

  /* Level 0's one chunk was made in the pass somewhere. */
  g_assert_cmpuint (in_pass, >, 0);
}

static void
test_pools_oracle (void)
{
  const struct
  {
    StrataTestStreamKind kind;
    gsize                budget;
    gboolean             chunks_spill;
    gboolean             pipelined;
    const char          *windows;  /* STRATA_ZOOM_SPILL_WINDOWS */
  } cases[] = {
    { STRATA_TEST_STREAM_MIXED, 1, FALSE, FALSE, NULL },
    { STRATA_TEST_STREAM_MIXED, 8 * 1024, TRUE, FALSE, NULL },
    { STRATA_TEST_STREAM_MANY_THREADS, 1, TRUE, FALSE, NULL },
    { STRATA_TEST_STREAM_MANY_THREADS, 4 * 1024, FALSE, TRUE, NULL },
    /* Windows of the least size, 64 items, where a spill's runs are up to
     * 680: runs read through a window, refills, and runs read alone. */
    { STRATA_TEST_STREAM_MIXED, 32 * 1024, FALSE, FALSE, "1" },
    { STRATA_TEST_STREAM_MANY_THREADS, 32 * 1024, TRUE, TRUE, "1" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr(GArray) acts = strata_test_stream_collect (cases[k].kind, 12000, 400 + k);
      const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
      g_autoptr(StrataZoomTree) whole = NULL;
      g_autoptr(StrataZoomTree) bounded = NULL;
      StrataZoomPoolMemory pools;
      StrataZoomParams params;
      Checked checked;

      params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
      params.pipelined = cases[k].pipelined;
      whole = strata_zoom_tree_new (&params, NULL);
      strata_zoom_tree_set_pool_budget (whole, G_MAXSIZE);
      if (cases[k].windows != NULL)
        g_setenv ("STRATA_ZOOM_SPILL_WINDOWS", cases[k].windows, TRUE);
      bounded = strata_zoom_tree_new (&params, NULL);
      g_unsetenv ("STRATA_ZOOM_SPILL_WINDOWS");
      strata_zoom_tree_set_pool_budget (bounded, cases[k].budget);
      if (cases[k].chunks_spill)
        strata_zoom_tree_set_chunk_spill (bounded, 0, 16 * 1024);
      strata_test_stream_build (whole, all, acts->len);
      strata_test_stream_build (bounded, all, acts->len);

      get_pools (whole, &pools);
      g_assert_cmpuint (pools.n_spills, ==, 0);
      get_pools (bounded, &pools);
      g_test_message ("%s, budget %" G_GSIZE_FORMAT ": %" G_GUINT64_FORMAT " spills of %"
                      G_GUINT64_FORMAT " items, at most %" G_GSIZE_FORMAT " bytes in one pool, %"
                      G_GUINT64_FORMAT " lanes counted from a spill on, %" G_GUINT64_FORMAT
                      " chunks computed at the end for them",
                      strata_test_stream_kind_name (cases[k].kind), cases[k].budget,
                      pools.n_spills, pools.spilled, pools.peak, pools.n_switched,
                      pools.n_switch_deferred);
      g_assert_cmpuint (pools.n_spills, >, 10);
      g_assert_cmpuint (pools.spilled, >, 1000);
      g_assert_cmpuint (pools.peak, <=, pools.bound);

      assert_trees_equal (whole, bounded);
      check_tree (bounded, all, acts->len, &checked);
      g_assert_cmpuint (checked.chunks, >, 0);
      check_queries (bounded, all, acts->len, 20);
    }
}

/* A stream the dense shape is like at its coarse levels: many threads
 * whose activities stand alone in their pixels (aggregation does not
 * reduce them) beside a few CPUs it reduces many times, and one thread
 * that is like the others for most of the trace, then runs a burst of
 * tiny activities that makes its channel pay after all. */
static GArray *
count_switch_stream (void)
{
  g_autoptr(GArray) acts = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  const gint64 span = 100 * G_GINT64_CONSTANT (1000000);
  const guint32 n_cpus = 2, n_threads = 160, late = n_cpus + n_threads;
  GRand *rand = g_rand_new_with_seed (71);

  for (guint32 c = 0; c < n_cpus; c++)
    for (gint64 t = c * 7000; t < span; t += 50000)
      {
        StrataActivity a = { t, t + 48000, c, 1 + c, (gint32) c, STRATA_ACTIVITY_TASK, 0, 0 };

        g_array_append_val (acts, a);
      }
  for (guint32 c = n_cpus; c <= late; c++)
    for (gint64 t = g_rand_int_range (rand, 0, 1500000); t < span; t += g_rand_int_range (rand, 1500000, 3000000))
      {
        StrataActivity a = { t, t + 50000, c, 100, (gint32) c, STRATA_ACTIVITY_STATE, 1, 0 };

        if (c == late && t > span * 3 / 4)
          break;
        g_array_append_val (acts, a);
      }
  /* Threads that exit along the way, in the first quarter. */
  for (guint32 c = late + 1; c <= late + 40; c++)
    for (gint64 t = g_rand_int_range (rand, 0, 1500000); t < span / 4 * (c % 4 + 1) / 4; t += g_rand_int_range (rand, 1500000, 3000000))
      {
        StrataActivity a = { t, t + 50000, c, 102, (gint32) c, STRATA_ACTIVITY_STATE, 1, 0 };

        g_array_append_val (acts, a);
      }
  /* The late thread's burst: back to back, 200 ns each. */
  for (gint64 t = span * 3 / 4; t < span * 3 / 4 + 4000 * 200; t += 200)
    {
      StrataActivity a = { t, t + 200, late, 101, (gint32) late, STRATA_ACTIVITY_STATE, 2, 0 };

      g_array_append_val (acts, a);
    }
  g_rand_free (rand);
  g_array_sort (acts, by_start);
  return g_steal_pointer (&acts);
}

/* Builds @tree of @all as the trace builds it: each channel closed once
 * its last activity is in. */
static void
build_closing (StrataZoomTree       *tree,
               const StrataActivity *all,
               gsize                 n)
{
  guint32 n_channels = 0;
  g_autofree gint64 *last_point = NULL;
  g_autofree gsize *last_added = NULL;

  for (gsize i = 0; i < n; i++)
    n_channels = MAX (n_channels, all[i].channel + 1);
  last_point = g_new0 (gint64, n_channels);
  last_added = g_new0 (gsize, n_channels);
  for (gsize i = 0; i < n; i++)
    {
      last_point[all[i].channel] = MAX (last_point[all[i].channel], all[i].end);
      last_added[all[i].channel] = i;
    }
  for (gsize i = 0; i < n; i++)
    {
      strata_zoom_tree_add (&all[i], tree);
      if (last_added[all[i].channel] == i)
        strata_zoom_tree_close_channel (tree, all[i].channel, last_point[all[i].channel]);
      if ((i + 1) % 4096 == 0 && i + 1 < n)
        strata_zoom_tree_advance (tree, all[i + 1].start, NULL, NULL);
    }
  strata_zoom_tree_finish (tree);
}

/* Lanes counted from a spill on (level_count_poor_channels()): a tree
 * whose full pools find most channels not reduced counts their lanes
 * instead of spilling their items, and computes at the end a chunk
 * that stores one of them after all (the late thread's), and it is the
 * tree that keeps every item in its pools, the same tree as one that
 * spills them all and counts none, with the oracles' answers; and it
 * spills fewer items than that one. Also with the threads closed as they
 * exit and their lanes paged out a few at a time, counted ones among
 * them. */
static void
test_pools_count_switch (void)
{
  g_autoptr(GArray) acts = count_switch_stream ();
  const StrataActivity *all = (const StrataActivity *)(gpointer) acts->data;
  g_autoptr(StrataZoomTree) whole = NULL;
  g_autoptr(StrataZoomTree) counted = NULL;
  g_autoptr(StrataZoomTree) spilled = NULL;
  g_autoptr(StrataZoomTree) paged = NULL;
  StrataZoomPoolMemory with, without;
  StrataParameters parameters;
  StrataZoomParams params, params_counted;
  Checked checked;

  params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (2 << 8));
  params.pipelined = FALSE;
  params_counted = params;
  whole = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_pool_budget (whole, G_MAXSIZE);
  counted = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_pool_budget (counted, 128 * 1024);
  strata_parameters_init (&parameters);
  parameters.count_switch = 0;
  params.parameters = &parameters;
  spilled = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_pool_budget (spilled, 128 * 1024);
  /* Closed lanes paged out a few at a time: counted ones too. */
  g_setenv ("STRATA_ZOOM_CLOSED_PAGE", "5", TRUE);
  paged = strata_zoom_tree_new (&params_counted, NULL);
  g_unsetenv ("STRATA_ZOOM_CLOSED_PAGE");
  strata_zoom_tree_set_pool_budget (paged, 128 * 1024);
  strata_test_stream_build (whole, all, acts->len);
  strata_test_stream_build (counted, all, acts->len);
  strata_test_stream_build (spilled, all, acts->len);
  build_closing (paged, all, acts->len);

  get_pools (paged, &with);
  g_test_message ("paged: %" G_GUINT64_FORMAT " lanes counted, %" G_GUINT64_FORMAT " pages",
                  with.n_switched, with.n_pages);
  g_assert_cmpuint (with.n_switched, >, 20);
  g_assert_cmpuint (with.n_pages, >, 0);
  get_pools (counted, &with);
  get_pools (spilled, &without);
  g_test_message ("%u activities: %" G_GUINT64_FORMAT " items spilled with lanes counted (%" G_GUINT64_FORMAT
                  " lanes, %" G_GUINT64_FORMAT " chunks computed at the end), %" G_GUINT64_FORMAT " without",
                  acts->len, with.spilled, with.n_switched, with.n_switch_deferred, without.spilled);
  g_assert_cmpuint (without.n_switched, ==, 0);
  g_assert_cmpuint (with.n_switched, >, 100);
  g_assert_cmpuint (with.n_switch_deferred, >, 0);
  g_assert_cmpuint (with.spilled * 2, <, without.spilled);

  assert_trees_equal (whole, counted);
  assert_trees_equal (whole, spilled);
  assert_trees_equal (whole, paged);
  check_tree (counted, all, acts->len, &checked);
  g_assert_cmpuint (checked.chunks, >, 0);
  check_queries (counted, all, acts->len, 20);
}

/* Plain chunks proven so (strata-zoom-plain.c): on every generated
 * stream, with the levels in the builder's thread or their own, the tree
 * whose levels prove the chunks that follow a plain one is the tree whose
 * levels count them, with the oracles' answers; on the dense stream some
 * chunks are proven (and at finer levels than the ones that store), and
 * some proofs fail and are decided at the end. */
static void
test_prove_plain (void)
{
  guint64 proven = 0, failed = 0;

  for (guint kind = STRATA_TEST_STREAM_DENSE; kind <= STRATA_TEST_STREAM_MIXED; kind++)
    for (guint pipelined = 0; pipelined < 2; pipelined++)
      {
        g_autoptr(GArray) acts = strata_test_stream_collect (kind, 60000, 31 + kind);
        const StrataActivity *all = (const StrataActivity *)(gpointer) acts->data;
        g_autoptr(StrataZoomTree) proving = NULL;
        g_autoptr(StrataZoomTree) counting = NULL;
        StrataParameters parameters;
        StrataZoomParams params;
        StrataZoomPoolMemory with, without;
        Checked checked;

        params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (2 << 8));
        params.pipelined = pipelined;
        strata_parameters_init (&parameters);
        params.parameters = &parameters;
        proving = strata_zoom_tree_new (&params, NULL);
        parameters.prove_plain = 0;
        counting = strata_zoom_tree_new (&params, NULL);
        strata_test_stream_build (proving, all, acts->len);
        strata_test_stream_build (counting, all, acts->len);

        get_pools (proving, &with);
        get_pools (counting, &without);
        g_test_message ("stream %u%s: %" G_GUINT64_FORMAT " chunks proven plain, %" G_GUINT64_FORMAT " proofs failed",
                        kind, pipelined ? " (levels in their thread)" : "", with.n_proven, with.n_proofs_failed);
        g_assert_cmpuint (without.n_proven + without.n_proofs_failed, ==, 0);
        if (kind == STRATA_TEST_STREAM_DENSE)
          g_assert_cmpuint (with.n_proven, >, 0);
        proven += with.n_proven;
        failed += with.n_proofs_failed;

        assert_trees_equal (counting, proving);
        check_tree (proving, all, acts->len, &checked);
        g_assert_cmpuint (checked.chunks, >, 0);
        check_queries (proving, all, acts->len, 10);
      }
  g_assert_cmpuint (proven, >, 0);
  g_assert_cmpuint (failed, >, 0);
}

/* While a stream many times the budget is built, no level's pool uses
 * more than the budget (one segment is smaller), by the tree's own count
 * sampled along the way, where the same tree without a budget has a pool
 * many times bigger; what went to the levels' files is many times it. */
static void
test_pools_bounded (void)
{
  const gsize budget = 256 * 1024;
  g_autoptr(GArray) acts = strata_test_stream_collect (STRATA_TEST_STREAM_MIXED, 150000, 23);
  const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
  g_autoptr(StrataZoomTree) whole = NULL;
  g_autoptr(StrataZoomTree) tree = NULL;
  StrataZoomPoolMemory pools, whole_pools;
  StrataZoomParams params;
  gsize peak = 0;

  params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
  params.pipelined = FALSE;
  /* Coarse chunks that stay open long: a high threshold. */
  params.density_threshold = 4096;
  whole = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_pool_budget (whole, G_MAXSIZE);
  strata_test_stream_build (whole, all, acts->len);
  get_pools (whole, &whole_pools);

  tree = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_pool_budget (tree, budget);
  for (gsize i = 0; i < acts->len; i++)
    {
      strata_zoom_tree_add (&all[i], tree);
      if ((i + 1) % 2048 == 0 && i + 1 < acts->len)
        {
          strata_zoom_tree_advance (tree, all[i + 1].start, NULL, NULL);
          get_pools (tree, &pools);
          g_assert_cmpuint (pools.peak, <=, pools.bound);
          peak = MAX (peak, pools.peak);
        }
    }
  strata_zoom_tree_finish (tree);
  get_pools (tree, &pools);
  g_test_message ("budget %" G_GSIZE_FORMAT " (bound %" G_GSIZE_FORMAT "): at most %" G_GSIZE_FORMAT
                  " bytes in one pool while building, %" G_GSIZE_FORMAT " at all, %" G_GUINT64_FORMAT
                  " spills of %" G_GUINT64_FORMAT " items; without a budget %" G_GSIZE_FORMAT
                  " bytes in one pool, %" G_GSIZE_FORMAT " in all",
                  budget, pools.bound, peak, pools.peak, pools.n_spills, pools.spilled,
                  whole_pools.peak, whole_pools.peak_sum);
  g_assert_cmpuint (pools.bound, ==, budget);
  g_assert_cmpuint (pools.peak, <=, budget);
  g_assert_cmpuint (whole_pools.peak, >=, 4 * budget);
  g_assert_cmpuint (pools.spilled * sizeof (StrataZoomItem), >=, 10 * budget);
  assert_trees_equal (whole, tree);
}

/* The records of what a level's pool spilled stay within the budget too
 * (and one spill's more): a chunk open for long over many threads leaves
 * a run per lane at every spill, many times the budget in all, and they
 * go to the level's file as pages. The tree is the one built without a
 * budget. */
static void
test_pools_runs_bounded (void)
{
  const gsize budget = 16 * 1024;
  g_autoptr(GArray) acts = strata_test_stream_collect (STRATA_TEST_STREAM_MANY_THREADS, 60000, 29);
  const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
  g_autoptr(StrataZoomTree) whole = NULL;
  g_autoptr(StrataZoomTree) tree = NULL;
  StrataZoomPoolMemory pools;
  StrataZoomParams params;
  Checked checked;

  params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
  /* Coarse chunks that stay open long: a high threshold. */
  params.density_threshold = 4096;
  whole = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_pool_budget (whole, G_MAXSIZE);
  strata_test_stream_build (whole, all, acts->len);
  tree = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_pool_budget (tree, budget);
  strata_test_stream_build (tree, all, acts->len);

  get_pools (tree, &pools);
  g_test_message ("budget %" G_GSIZE_FORMAT ": %" G_GUINT64_FORMAT " spills, %" G_GUINT64_FORMAT
                  " runs made, at most %" G_GSIZE_FORMAT " bytes of them held (bound %" G_GSIZE_FORMAT
                  "), %" G_GUINT64_FORMAT " pages of them",
                  budget, pools.n_spills, pools.runs_made, pools.runs_peak, pools.runs_bound,
                  pools.n_runs_pages);
  g_assert_cmpuint (pools.n_runs_pages, >, 0);
  g_assert_cmpuint (pools.runs_peak, <=, pools.runs_bound);
  g_assert_cmpuint (pools.runs_bound, <, 4 * budget);
  g_assert_cmpuint (pools.runs_made * 16, >=, 10 * pools.runs_bound);

  assert_trees_equal (whole, tree);
  check_tree (tree, all, acts->len, &checked);
  g_assert_cmpuint (checked.chunks, >, 0);
  check_queries (tree, all, acts->len, 20);
}

/* Indexes of the fixtures built with a one-byte budget (set in the
 * environment, as the CLI takes it), with the finished chunks kept or
 * spilled from the first, are the bytes of the one built without a
 * budget, and the bounded builds did spill. */
static void
test_pools_index_bytes (void)
{
  static const char *traces[] = { "sched-small.dat", "instances.dat" };
  static const struct
  {
    const char *budget;
    const char *chunks_from;
  } conditions[] = {
    { "18446744073709551615", NULL },
    { "1", NULL },
    { "1", "0" },
  };
  guint64 n_spills = 0;

  for (guint f = 0; f < G_N_ELEMENTS (traces); f++)
    {
      g_autofree char *path = strata_test_fixture (traces[f]);
      g_autofree char *dir = strata_test_tmpdir ();
      g_autoptr(GBytes) want = NULL;
      StrataSourceIdentity identity;
      StrataZoomParams params;
      g_autoptr(GError) error = NULL;

      /* Small chunks, every dense one stored: many chunks at many levels. */
      strata_zoom_params_init (&params);
      params.pixels_per_chunk = 256;
      params.density_threshold = 64;
      params.min_reduction = 1;
      g_assert_true (strata_source_identity_compute (path, &identity, &error));
      g_assert_no_error (error);

      for (guint c = 0; c < G_N_ELEMENTS (conditions); c++)
        {
          g_autofree char *name = g_strdup_printf ("c%u" STRATA_INDEX_SUFFIX, c);
          g_autofree char *index = g_build_filename (dir, name, NULL);
          g_autoptr(StrataStatsBuilder) stats = strata_stats_builder_new ();
          g_autoptr(StrataTrace) trace = NULL;
          g_autoptr(GBytes) got = NULL;
          StrataZoomPoolMemory pools;
          char *contents = NULL;
          gsize len = 0;

          g_setenv ("STRATA_ZOOM_POOL_BUDGET", conditions[c].budget, TRUE);
          if (conditions[c].chunks_from != NULL)
            g_setenv ("STRATA_ZOOM_CHUNK_SPILL_FROM", conditions[c].chunks_from, TRUE);
          trace = strata_test_load_full (path, FALSE, strata_stats_builder_add, strata_stats_builder_close, stats, &params, NULL, NULL, &error);
          g_unsetenv ("STRATA_ZOOM_POOL_BUDGET");
          g_unsetenv ("STRATA_ZOOM_CHUNK_SPILL_FROM");
          g_assert_no_error (error);
          strata_trace_set_stats (trace, strata_stats_builder_finish (stats, trace));
          get_pools (strata_trace_get_zoom_tree (trace), &pools);
          g_test_message ("%s, budget %s%s: %" G_GUINT64_FORMAT " spills of %" G_GUINT64_FORMAT " items",
                          traces[f], conditions[c].budget,
                          conditions[c].chunks_from != NULL ? ", chunks spilled" : "",
                          pools.n_spills, pools.spilled);
          if (c == 0)
            g_assert_cmpuint (pools.n_spills, ==, 0);
          else
            {
              g_assert_cmpuint (pools.n_spills, >, 0);
              g_assert_cmpuint (pools.peak, <=, pools.bound);
              n_spills += pools.n_spills;
            }

          g_assert_true (strata_index_write (trace, &identity, index, &error));
          g_assert_no_error (error);
          g_assert_true (g_file_get_contents (index, &contents, &len, NULL));
          got = g_bytes_new_take (contents, len);
          if (want == NULL)
            want = g_bytes_ref (got);
          g_assert_cmpuint (g_bytes_get_size (got), >, 0);
          g_assert_true (g_bytes_equal (want, got));
        }
    }
  g_assert_cmpuint (n_spills, >, 0);
}

/* Live: two trees take the same activities, one with a tiny budget,
 * queried by another thread all along; at every advance they answer the
 * same around the growing edge and the start, list the same chunks, and
 * none of those ends past the horizon (a chunk being aggregated, its
 * items partly in a file, is not visible until it is finished). */
static void
test_pools_live (void)
{
  g_autoptr(GArray) acts = strata_test_stream_collect (STRATA_TEST_STREAM_MIXED, 40000, 11);
  const StrataActivity *all = (const StrataActivity *)(gpointer)acts->data;
  g_autoptr(StrataZoomTree) whole = NULL;
  g_autoptr(StrataZoomTree) bounded = NULL;
  StrataZoomPoolMemory pools;
  StrataZoomParams params;
  Pair pair = { 0 };
  GThread *thread;
  guint compared = 0, listed = 0;

  params_for_tests (&params, STRATA_BUFFER_ADAPTIVE | (1 << 8));
  params.pipelined = FALSE;
  whole = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_pool_budget (whole, G_MAXSIZE);
  bounded = strata_zoom_tree_new (&params, NULL);
  strata_zoom_tree_set_pool_budget (bounded, 2048);
  pair.a = whole;
  pair.b = bounded;
  thread = g_thread_new ("reader", spilled_reader_thread, &pair);

  for (gsize i = 0; i < acts->len; i++)
    {
      strata_zoom_tree_add (&all[i], whole);
      strata_zoom_tree_add (&all[i], bounded);
      if ((i + 1) % 1000 == 0 && i + 1 < acts->len)
        {
          gint64 horizon = all[i + 1].start;

          strata_zoom_tree_advance (whole, horizon, NULL, NULL);
          strata_zoom_tree_advance (bounded, horizon, NULL, NULL);
          if ((i + 1) % 5000 == 0)
            {
              assert_queries_equal_at (whole, bounded, all[i].start);
              assert_queries_equal_at (whole, bounded, all[0].start);
              for (guint level = 0; level < 64; level++)
                {
                  g_autoptr(GArray) ca = strata_zoom_tree_list_chunks (whole, level);
                  g_autoptr(GArray) cb = strata_zoom_tree_list_chunks (bounded, level);

                  g_assert_cmpuint (cb->len, ==, ca->len);
                  for (guint k = 0; k < cb->len; k++)
                    {
                      const StrataZoomChunkInfo *x = &g_array_index (ca, StrataZoomChunkInfo, k);
                      const StrataZoomChunkInfo *y = &g_array_index (cb, StrataZoomChunkInfo, k);

                      g_assert_cmpint (y->index, ==, x->index);
                      g_assert_cmpuint (y->n_items, ==, x->n_items);
                      g_assert_cmpint (y->end, <=, horizon);
                      listed++;
                    }
                }
              compared++;
            }
        }
    }
  strata_zoom_tree_finish (whole);
  strata_zoom_tree_finish (bounded);
  g_atomic_int_set (&pair.stop, 1);
  g_thread_join (thread);

  get_pools (bounded, &pools);
  g_test_message ("%u comparisons while building (%u chunks listed), %u queries from another thread, "
                  "%" G_GUINT64_FORMAT " spills", compared, listed, pair.queries, pools.n_spills);
  g_assert_cmpuint (pools.n_spills, >, 10);
  g_assert_cmpuint (compared, >, 5);
  g_assert_cmpuint (listed, >, 0);
  assert_trees_equal (whole, bounded);
  assert_queries_equal_at (whole, bounded, all[acts->len / 2].start);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/strata/zoom-build/fixtures/adaptive",
                        CASE (STRATA_BUFFER_ADAPTIVE, 1), test_fixtures_oracle);
  g_test_add_data_func ("/strata/zoom-build/fixtures/adaptive-reduced",
                        CASE (STRATA_BUFFER_ADAPTIVE, 2), test_fixtures_oracle);
  g_test_add_data_func ("/strata/zoom-build/fixtures/fixed-interval",
                        CASE (STRATA_BUFFER_FIXED_INTERVAL, 1), test_fixtures_oracle);
  g_test_add_data_func ("/strata/zoom-build/fixtures/fixed-count",
                        CASE (STRATA_BUFFER_FIXED_COUNT, 1), test_fixtures_oracle);
  g_test_add_func ("/strata/zoom-build/fixtures/spilled-index", test_spilled_index);
  g_test_add_data_func ("/strata/zoom-build/generated/adaptive",
                        CASE (STRATA_BUFFER_ADAPTIVE, 1), test_generated_oracle);
  g_test_add_data_func ("/strata/zoom-build/generated/adaptive-reduced",
                        CASE (STRATA_BUFFER_ADAPTIVE, 2), test_generated_oracle);
  g_test_add_data_func ("/strata/zoom-build/generated/fixed-interval",
                        CASE (STRATA_BUFFER_FIXED_INTERVAL, 1), test_generated_oracle);
  g_test_add_data_func ("/strata/zoom-build/generated/fixed-count",
                        CASE (STRATA_BUFFER_FIXED_COUNT, 1), test_generated_oracle);
  g_test_add_func ("/strata/zoom-build/generated/short-threads", test_short_threads);
  g_test_add_func ("/strata/zoom-build/closed/short-threads", test_short_threads_closed);
  g_test_add_func ("/strata/zoom-build/closed/process-churn-lane-ids", test_process_churn_lane_ids);
  g_test_add_func ("/strata/zoom-build/closed/fixtures", test_fixtures_closed);
  g_test_add_func ("/strata/zoom-build/seed/fig5-query-two-chunks", test_fig5_query_two_chunks);
  g_test_add_func ("/strata/zoom-build/seed/fig7-adaptive-depth", test_fig7_adaptive_depth);
  g_test_add_func ("/strata/zoom-build/seed/stack-grows-and-shrinks", test_stack_grows_and_shrinks);
  g_test_add_func ("/strata/zoom-build/seed/buffers-aligned", test_buffers_aligned);
  g_test_add_func ("/strata/zoom-build/live-growth", test_live_growth);
  g_test_add_func ("/strata/zoom-build/spilled/oracle", test_spilled_oracle);
  g_test_add_func ("/strata/zoom-build/spilled/result-reuse", test_spilled_result_reuse);
  g_test_add_func ("/strata/zoom-build/spilled/narrow-views", test_spilled_narrow_views);
  g_test_add_func ("/strata/zoom-build/spilled/bounded", test_spilled_bounded);
  g_test_add_func ("/strata/zoom-build/spilled/live", test_spilled_live);
  g_test_add_func ("/strata/zoom-build/spilled/spans-flat", test_spilled_spans_flat);
  g_test_add_func ("/strata/zoom-build/spilled/damaged", test_spilled_damaged);
  g_test_add_func ("/strata/zoom-build/span-hint", test_span_hint);
  g_test_add_func ("/strata/zoom-build/pools/oracle", test_pools_oracle);
  g_test_add_func ("/strata/zoom-build/pools/bounded", test_pools_bounded);
  g_test_add_func ("/strata/zoom-build/pools/count-switch", test_pools_count_switch);
  g_test_add_func ("/strata/zoom-build/pools/prove-plain", test_prove_plain);
  g_test_add_func ("/strata/zoom-build/pools/runs-bounded", test_pools_runs_bounded);
  g_test_add_func ("/strata/zoom-build/pools/index-bytes", test_pools_index_bytes);
  g_test_add_func ("/strata/zoom-build/pools/live", test_pools_live);
  return g_test_run ();
}
