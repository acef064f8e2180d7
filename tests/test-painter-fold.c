/* test-painter-fold.c
 *
 * The painter's fold (every item of a frame into its row's pixel columns)
 * against the per-item fold it replaced, kept as the oracle: for real
 * recordings and generated streams, at every zoom level, several widths,
 * row heights, both colour schemes, scrolled rows and merged rows (a
 * collapsed process), the two display lists are the same, rectangle for
 * rectangle and bit for bit, and so are their texts and the count of
 * items folded. The frame must not change when the fold gets cheaper.
 *
 * The reference folds every item of every span the query returns; the
 * fast painter cuts each of a span's lanes to the view by bisection, which
 * needs each span to hold its lanes in order, each lane sorted by start
 * and by end. That is checked on its own, on spans of every origin: in
 * place in the tree, decoded from a spilled chunk or from a mapped index,
 * computed on demand. The painters are compared on those trees too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-index.h"
#include "strata-block-codec.h"
#include "strata-block-packer.h"
#include "strata-chunk-keys.h"
#include "strata-index-private.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-trace-private.h"
#include "strata-zoom-tree-private.h"
#include "strata-painter-private.h"
#include "strata-test-support.h"
#include "strata-test-streams.h"

static void
assert_same_lists (const StrataDisplayList *fast,
                   const StrataDisplayList *ref)
{
  strata_test_assert_same_display_lists (fast, ref);
}

/* One viewport painted both ways. Returns the items folded. */
static guint
paint_both (StrataPainter             *painter,
            const StrataPaintViewport *vp)
{
  g_autoptr(StrataDisplayList) fast = strata_display_list_new ();
  g_autoptr(StrataDisplayList) ref = strata_display_list_new ();

  g_assert_false (strata_painter_get_reference_fold (painter));
  strata_painter_paint (painter, vp, fast);
  strata_painter_set_reference_fold (painter, TRUE);
  strata_painter_paint (painter, vp, ref);
  strata_painter_set_reference_fold (painter, FALSE);
  assert_same_lists (fast, ref);
  return fast->n_folded;
}

/* Views of [start, end) from the whole of it down to a few pixels of
 * the finest level, at a few places, widths, row heights and schemes.
 * Returns the items folded in all. */
static guint64
paint_views (StrataPainter *painter,
             gint64         start,
             gint64         end,
             guint          n_rows,
             guint32        seed)
{
  static const guint widths[] = { 257, 1000, 1723 };
  static const guint row_heights[] = { 7, 17, 24 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  guint64 folded = 0;
  StrataPaintStyle style;

  strata_paint_style_init (&style);
  for (guint level = 0; level < 12; level++)
    {
      gint64 span = MAX ((end - start) >> (2 * level), 64);

      for (guint k = 0; k < 3; k++)
        {
          StrataPaintViewport vp = { 0 };

          style.row_height = row_heights[(level + k) % G_N_ELEMENTS (row_heights)];
          style.scheme = (level + k) % 2 ? STRATA_PAINT_SCHEME_DARK : STRATA_PAINT_SCHEME_LIGHT;
          strata_painter_set_style (painter, &style);

          vp.from = start + (gint64) (g_rand_double (rand) * MAX (end - start - span, 0));
          /* Sometimes starting before the trace, or reaching past it. */
          if (k == 1)
            vp.from -= span / 3;
          vp.to = vp.from + span;
          vp.width = widths[(level + 2 * k) % G_N_ELEMENTS (widths)];
          vp.height = MIN (n_rows, 40u) * style.row_height;
          vp.scroll_y = k == 2 && n_rows > 4 ? 2.5f * style.row_height : 0;
          folded += paint_both (painter, &vp);
        }
    }
  return folded;
}

static void
test_fixtures (void)
{
  static const char *fixtures[] = { "sched-small.dat", "sched-tgid.dat", "lossy.dat", "instances.dat" };

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autoptr(StrataTrace) trace = strata_test_load_with_tree (fixtures[f]);
      g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
      g_autoptr(GArray) rows = strata_painter_default_rows (painter);
      gint64 start = strata_trace_get_start (trace), end = strata_trace_get_end (trace);

      g_assert_cmpint (end, >, start);
      strata_painter_set_rows (painter, (const guint32 *)(gpointer) rows->data, rows->len);
      g_assert_cmpuint (paint_views (painter, start, end, rows->len, f + 1), >, 0);
    }
}

/* A process row drawn for its threads together (what the timeline does
 * for a collapsed process), both ways. */
static void
test_merged_rows (void)
{
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-tgid.txt");
  g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  const StrataChannel *channels;
  guint n_channels, n_merged = 0;

  channels = strata_trace_get_channels (trace, &n_channels);
  for (guint32 c = 0; c < n_channels; c++)
    {
      g_autoptr(GArray) members = g_array_new (FALSE, FALSE, sizeof (guint32));

      if (channels[c].kind == STRATA_CHANNEL_CPU)
        {
          g_array_append_val (rows, c);
          continue;
        }
      if (channels[c].kind != STRATA_CHANNEL_PROCESS)
        continue;
      for (guint32 t = 0; t < n_channels; t++)
        if (channels[t].kind == STRATA_CHANNEL_THREAD && channels[t].parent == c)
          g_array_append_val (members, t);
      if (members->len == 0)
        continue;
      g_array_append_val (rows, c);
      strata_painter_set_row_members (painter, c, (const guint32 *)(gpointer) members->data, members->len);
      n_merged++;
    }
  g_assert_cmpuint (n_merged, >, 0);
  strata_painter_set_rows (painter, (const guint32 *)(gpointer) rows->data, rows->len);
  paint_views (painter, strata_trace_get_start (trace), strata_trace_get_end (trace), rows->len, 7);
}

/* The lane of the tree's an item belongs to, derived here on its own:
 * its nesting depth, or 16 for the instants. */
static guint
lane_of_item (const StrataZoomItem *item)
{
  StrataActivity a = { .kind = item->kind, .state = item->state, .flags = item->flags };

  if (strata_activity_is_instant (&a))
    return 16;
  return strata_activity_get_depth (&a);
}

/* Where the spans the lanes-in-order check saw came from. */
typedef struct
{
  guint in_place;
  guint decoded;     /* held by the result, the query computed nothing */
  guint on_demand;   /* held by the result, the query found no chunk */
} SpanOrigins;

/* Every span of queries of @tree at every level, at a few places of
 * [@start, @end): its
 * lanes come in the order of their numbers, each lane's items sorted by
 * start and by end (they do not overlap). */
static void
assert_lanes_in_order (StrataZoomTree *tree,
                       gint64          start,
                       gint64          end,
                       guint32         seed,
                       SpanOrigins    *origins)
{
  g_autoptr(StrataZoomResult) result = strata_zoom_result_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  StrataZoomGeometry g;

  g_assert_true (strata_zoom_tree_get_geometry (tree, &g));
  for (guint level = 0; level < g.n_levels; level++)
    {
      gint64 d = strata_zoom_geometry_chunk_duration (&g, level);

      for (guint k = 0; k < 2; k++)
        {
          gint64 len = MAX (d / (2 * k + 1), 2);
          gint64 from = start + (gint64) (g_rand_double (rand) * MAX (end - start - len / 2, 1));
          StrataZoomQueryStats stats;
          const StrataZoomSpan *spans;
          guint n_spans;

          strata_zoom_tree_query_spans (tree, level, from, from + len, NULL, 0, result, &stats);
          spans = strata_zoom_result_get_spans (result, &n_spans);
          for (guint s = 0; s < n_spans; s++)
            {
              const StrataZoomItem *items = spans[s].items;

              if (!strata_zoom_result_holds (result, items))
                origins->in_place++;
              else if (stats.n_on_demand == 0)
                origins->decoded++;
              else if (stats.n_precomputed == 0)
                origins->on_demand++;

              for (guint i = 1; i < spans[s].n_items; i++)
                {
                  guint la = lane_of_item (&items[i - 1]), lb = lane_of_item (&items[i]);

                  if (lb < la)
                    g_error ("level %u, channel %u: item %u of lane %u after lane %u",
                             level, spans[s].channel, i, lb, la);
                  if (lb == la && (items[i].start < items[i - 1].start || items[i].end < items[i - 1].end))
                    g_error ("level %u, channel %u, lane %u: item %u [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                             ") before [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ")",
                             level, spans[s].channel, la, i, items[i].start, items[i].end,
                             items[i - 1].start, items[i - 1].end);
                }
            }
        }
    }
}


/* Generated streams: dense CPUs, many threads, bursts; every channel a
 * row, with the kinds the stream gives them. */
static void
test_generated (void)
{
  static const StrataTestStreamKind kinds[] = {
    STRATA_TEST_STREAM_MIXED, STRATA_TEST_STREAM_DENSE, STRATA_TEST_STREAM_BURSTY,
    STRATA_TEST_STREAM_MANY_THREADS, STRATA_TEST_STREAM_LONG_SLEEPS,
  };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr(GArray) acts = strata_test_stream_collect (kinds[k], 40000, 11 + k);
      g_autoptr(GArray) channels = g_array_new (FALSE, TRUE, sizeof (StrataChannel));
      g_autoptr(StrataZoomTree) tree = NULL;
      g_autoptr(StrataStringPool) pool = strata_string_pool_new ();
      g_autoptr(StrataPainter) painter = NULL;
      g_autoptr(GError) error = NULL;
      StrataZoomParams params;
      gint64 start, end;

      strata_zoom_params_init (&params);
      tree = strata_zoom_tree_new (&params, &error);
      g_assert_no_error (error);
      strata_test_stream_build (tree, (const StrataActivity *)(gpointer) acts->data, acts->len);

      painter = strata_test_painter_for_stream (tree, pool, acts, channels, &start, &end);
      g_assert_cmpuint (paint_views (painter, start, end, channels->len, 100 + k), >, 1000);
    }
}

/* Generated streams in a tree that spills every chunk it stores: its
 * spans are decoded into the query's result, at a new address each
 * frame. Their lanes are in order, and both painters agree on them. */
static void
test_spilled (void)
{
  static const StrataTestStreamKind kinds[] = { STRATA_TEST_STREAM_MIXED, STRATA_TEST_STREAM_DENSE };
  SpanOrigins origins = { 0 };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr(GArray) acts = strata_test_stream_collect (kinds[k], 30000, 31 + k);
      g_autoptr(GArray) channels = g_array_new (FALSE, TRUE, sizeof (StrataChannel));
      g_autoptr(StrataZoomTree) tree = NULL;
      g_autoptr(StrataStringPool) pool = strata_string_pool_new ();
      g_autoptr(StrataPainter) painter = NULL;
      g_autoptr(GError) error = NULL;
      StrataZoomParams params;
      gint64 start, end;

      /* A low threshold, so these small streams have chunks to store. */
      strata_zoom_params_init (&params);
      params.density_threshold = 64;
      params.min_reduction = 1;
      tree = strata_zoom_tree_new (&params, &error);
      g_assert_no_error (error);
      strata_zoom_tree_set_chunk_spill (tree, 0, 16 * 1024);
      strata_test_stream_build (tree, (const StrataActivity *)(gpointer) acts->data, acts->len);

      painter = strata_test_painter_for_stream (tree, pool, acts, channels, &start, &end);
      assert_lanes_in_order (tree, start, end, 41 + k, &origins);
      g_assert_cmpuint (paint_views (painter, start, end, channels->len, 51 + k), >, 1000);
    }
  g_test_message ("spans: %u in place, %u decoded, %u on demand",
                  origins.in_place, origins.decoded, origins.on_demand);
  g_assert_cmpuint (origins.decoded, >, 0);
}

/* Trees in memory (recordings and generated streams): spans in place and
 * computed on demand have their lanes in order. */
static void
test_lanes_in_memory (void)
{
  static const char *fixtures[] = { "sched-small.dat", "sched-tgid.dat", "lossy.dat", "instances.dat" };
  static const StrataTestStreamKind kinds[] = {
    STRATA_TEST_STREAM_MIXED, STRATA_TEST_STREAM_DENSE, STRATA_TEST_STREAM_BURSTY,
    STRATA_TEST_STREAM_MANY_THREADS, STRATA_TEST_STREAM_LONG_SLEEPS,
  };
  SpanOrigins origins = { 0 };

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autoptr(StrataTrace) trace = strata_test_load_with_tree (fixtures[f]);

      assert_lanes_in_order (strata_trace_get_zoom_tree (trace), strata_trace_get_start (trace),
                             strata_trace_get_end (trace), 61 + f, &origins);
    }
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr(GArray) acts = strata_test_stream_collect (kinds[k], 40000, 11 + k);
      g_autoptr(StrataZoomTree) tree = NULL;
      g_autoptr(GError) error = NULL;
      StrataZoomParams params;
      gint64 start = G_MAXINT64, end = G_MININT64;

      strata_zoom_params_init (&params);
      tree = strata_zoom_tree_new (&params, &error);
      g_assert_no_error (error);
      strata_test_stream_build (tree, (const StrataActivity *)(gpointer) acts->data, acts->len);
      for (guint i = 0; i < acts->len; i++)
        {
          start = MIN (start, g_array_index (acts, StrataActivity, i).start);
          end = MAX (end, g_array_index (acts, StrataActivity, i).end);
        }
      assert_lanes_in_order (tree, start, end, 71 + k, &origins);
    }
  g_test_message ("spans: %u in place, %u decoded, %u on demand",
                  origins.in_place, origins.decoded, origins.on_demand);
  g_assert_cmpuint (origins.in_place, >, 0);
  g_assert_cmpuint (origins.on_demand, >, 0);
}

/* @path read as --no-index does, with the statistics an index keeps and
 * a low threshold (so these small recordings have chunks to store), its
 * index written to @index, and the trace opened through it. */
static StrataTrace *
open_through_index (const char *path,
                    const char *index)
{
  g_autoptr(StrataTrace) built = NULL;
  g_autoptr(GError) error = NULL;
  StrataSourceIdentity id;
  StrataZoomParams params;
  StrataTrace *trace;

  strata_zoom_params_init (&params);
  params.density_threshold = 64;
  params.min_reduction = 1;
  built = strata_test_load_in_memory (path, &params, &error);
  g_assert_no_error (error);
  g_assert_true (strata_source_identity_compute (path, &id, &error));
  g_assert_true (strata_index_write (built, &id, index, &error));
  g_assert_no_error (error);
  trace = strata_index_open (index, &id, &params, &error);
  g_assert_no_error (error);
  return trace;
}

/* Recordings written to an index and opened from it: the tree's chunks
 * are mapped, each span decoded when a query reaches it. Their lanes are
 * in order, and both painters agree on them. */
static void
test_mapped (void)
{
  static const char *fixtures[] = { "sched-small.dat", "lossy.dat" };
  SpanOrigins origins = { 0 };

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autofree char *dir = strata_test_tmpdir ();
      g_autofree char *index = g_strdup_printf ("%s/fold-%u" STRATA_INDEX_SUFFIX, dir, f);
      g_autoptr(StrataTrace) trace = open_through_index (path, index);
      g_autoptr(StrataPainter) painter = NULL;
      g_autoptr(GArray) rows = NULL;

      g_assert_cmpstr (strata_trace_get_index_path (trace), ==, index);

      assert_lanes_in_order (strata_trace_get_zoom_tree (trace), strata_trace_get_start (trace),
                             strata_trace_get_end (trace), 81 + f, &origins);

      painter = strata_painter_new_for_trace (trace);
      rows = strata_painter_default_rows (painter);
      strata_painter_set_rows (painter, (const guint32 *)(gpointer) rows->data, rows->len);
      g_assert_cmpuint (paint_views (painter, strata_trace_get_start (trace), strata_trace_get_end (trace),
                                     rows->len, 91 + f), >, 0);
    }
  g_test_message ("spans: %u in place, %u decoded, %u on demand",
                  origins.in_place, origins.decoded, origins.on_demand);
  g_assert_cmpuint (origins.decoded, >, 0);
}

/* The threads one query of the coarsest level for all of them at once
 * finds something other than "unknown" for (what default_rows() did
 * before it asked a batch at a time, then a stretch of the trace at a
 * time) must be the default rows' threads. Returns the number of threads;
 * *late is set when a thread's first such item comes after the first
 * stretch, so the later stretches were needed. */
static guint
assert_default_rows_equal_query (StrataTrace *trace,
                                 gboolean    *late)
{
  g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
  g_autoptr(GArray) rows = strata_painter_default_rows (painter);
  g_autoptr(GArray) threads = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autofree guint8 *expected = NULL;
  g_autofree guint8 *got = NULL;
  g_autofree gint64 *first = NULL;
  gint64 start = strata_trace_get_start (trace), end = strata_trace_get_end (trace);
  const StrataChannel *channels;
  guint n_channels;

  channels = strata_trace_get_channels (trace, &n_channels);
  expected = g_new0 (guint8, n_channels);
  got = g_new0 (guint8, n_channels);
  first = g_new (gint64, n_channels);
  for (guint32 i = 0; i < n_channels; i++)
    {
      first[i] = G_MAXINT64;
      if (channels[i].kind == STRATA_CHANNEL_THREAD)
        g_array_append_val (threads, i);
    }

  strata_zoom_tree_query (strata_trace_get_zoom_tree (trace), 0, start, end + 1,
                          (const guint32 *)(gpointer) threads->data, threads->len, items, NULL);
  for (guint i = 0; i < items->len; i++)
    {
      const StrataZoomItem *item = &g_array_index (items, StrataZoomItem, i);

      if (item->channel < n_channels &&
          !(item->kind == STRATA_ACTIVITY_STATE && item->state == STRATA_TASK_STATE_UNKNOWN))
        {
          expected[item->channel] = 1;
          first[item->channel] = MIN (first[item->channel], item->start);
        }
    }

  for (guint i = 0; i < rows->len; i++)
    {
      guint32 ch = g_array_index (rows, guint32, i);

      if (ch < n_channels && channels[ch].kind == STRATA_CHANNEL_THREAD)
        got[ch] = 1;
    }

  for (guint i = 0; i < n_channels; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD)
      {
        g_assert_cmpuint (got[i], ==, expected[i]);
        /* The first stretch is a 1024th of the trace. */
        if (expected[i] && first[i] > start + (end + 1 - start) / 1024)
          *late = TRUE;
      }
  return threads->len;
}

/* The default rows' threads, asked a batch at a time and a stretch of
 * the trace at a time, are the threads one query of the coarsest level
 * for all of them over the whole trace finds something other than
 * "unknown" for: on every fixture, one with more threads than a batch
 * among them, in memory and through an index whose coarsest level is
 * partly computed from the raw store. */
static void
test_default_rows_batched (void)
{
  static const char *fixtures[] = { "sched-small.dat", "sched-tgid.dat", "lossy.dat", "instances.dat" };
  gboolean late = FALSE;
  guint most = 0;

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autoptr(StrataTrace) trace = strata_test_load_with_tree (fixtures[f]);
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autofree char *dir = strata_test_tmpdir ();
      g_autofree char *index = g_strdup_printf ("%s/rows-%u" STRATA_INDEX_SUFFIX, dir, f);
      g_autoptr(StrataTrace) mapped = NULL;
      guint n;

      n = assert_default_rows_equal_query (trace, &late);
      g_test_message ("%s: %u threads", fixtures[f], n);
      most = MAX (most, n);

      mapped = open_through_index (path, index);
      assert_default_rows_equal_query (mapped, &late);
    }
  g_assert_cmpuint (most, >, 64);
  g_assert_true (late);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  strata_source_ensure_builtin ();

  g_test_add_func ("/strata/painter-fold/fixtures-equal-reference", test_fixtures);
  g_test_add_func ("/strata/painter-fold/merged-rows-equal-reference", test_merged_rows);
  g_test_add_func ("/strata/painter-fold/generated-equal-reference", test_generated);
  g_test_add_func ("/strata/painter-fold/lanes-in-order-in-memory", test_lanes_in_memory);
  g_test_add_func ("/strata/painter-fold/spilled-equal-reference", test_spilled);
  g_test_add_func ("/strata/painter-fold/mapped-equal-reference", test_mapped);
  g_test_add_func ("/strata/painter-fold/default-rows-batched", test_default_rows_batched);

  return g_test_run ();
}
