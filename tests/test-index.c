/* test-index.c
 *
 * The persistent index. Round trips: a trace (real recordings, generated
 * streams) built in memory, written, and opened from the file answers
 * every query as the in-memory tree does: each chunk of each level, its
 * items channel by channel, random viewports, spans, members, the raw
 * store, the description and the statistics. Faults: the index cut at
 * many offsets, bits flipped in its header, sections, chunks and raw
 * blocks, another version, the trace changed after indexing, a disk that
 * fills up while writing; each is detected (and reported once), the index
 * rebuilt, and the answers right afterwards.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <utime.h>

#include <glib/gstdio.h>
#include <zstd.h>

#include "strata-block-codec.h"
#include "strata-block-packer.h"
#include "strata-chunk-keys.h"
#include "strata-index-private.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-trace-private.h"
#include "strata-zoom-tree-private.h"
#include "strata-test-streams.h"
#include "strata-test-support.h"

static const char *fixtures[] = {
  "sched-small.dat", "sched-tgid.dat", "instances.dat", "lossy.dat", "lossy.txt",
};

static void
assert_items_equal (const StrataZoomItem *a,
                    guint                 n_a,
                    const StrataZoomItem *b,
                    guint                 n_b)
{
  g_assert_cmpuint (n_a, ==, n_b);
  for (guint i = 0; i < n_a; i++)
    {
      g_assert_cmpint (a[i].start, ==, b[i].start);
      g_assert_cmpint (a[i].end, ==, b[i].end);
      g_assert_cmpuint (a[i].channel, ==, b[i].channel);
      g_assert_cmpuint (a[i].label, ==, b[i].label);
      g_assert_cmpint (a[i].arg, ==, b[i].arg);
      g_assert_cmpuint (a[i].kind, ==, b[i].kind);
      g_assert_cmpuint (a[i].state, ==, b[i].state);
      g_assert_cmpuint (a[i].flags, ==, b[i].flags);
      g_assert_cmpuint (a[i].count, ==, b[i].count);
      g_assert_cmpint (a[i].busy, ==, b[i].busy);
    }
}

static void
assert_arrays_equal (GArray *a,
                     GArray *b)
{
  assert_items_equal ((const StrataZoomItem *)(gpointer) a->data, a->len,
                      (const StrataZoomItem *)(gpointer) b->data, b->len);
}

static void
assert_activities_equal (GArray *a,
                         GArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  if (a->len > 0)
    g_assert_cmpmem (a->data, a->len * sizeof (StrataActivity), b->data, b->len * sizeof (StrataActivity));
}

/* The random viewports, members and spans of one level. */
static void
assert_queries_equal (StrataZoomTree *want,
                      StrataZoomTree *got,
                      guint           level,
                      gint64          first,
                      gint64          last,
                      GRand          *rand)
{
  StrataZoomGeometry g;
  g_autoptr(StrataZoomResult) rw = strata_zoom_result_new ();
  g_autoptr(StrataZoomResult) rg = strata_zoom_result_new ();

  g_assert_true (strata_zoom_tree_get_geometry (want, &g));

  for (guint q = 0; q < 6; q++)
    {
      gint64 len = strata_zoom_geometry_chunk_duration (&g, level);
      gint64 from = first + (gint64) (g_rand_double (rand) * (double) MAX (last - first, 1));
      gint64 to = from + MAX (1, (gint64) (g_rand_double_range (rand, 0.05, 1.5) * (double) len));
      g_autoptr(GArray) a = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      g_autoptr(GArray) b = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      StrataZoomQueryStats sa, sb;
      const StrataZoomSpan *spans_w, *spans_g;
      guint n_w, n_g;

      strata_zoom_tree_query (want, level, from, to, NULL, 0, a, &sa);
      strata_zoom_tree_query (got, level, from, to, NULL, 0, b, &sb);
      assert_arrays_equal (a, b);
      g_assert_cmpuint (sa.n_chunks, ==, sb.n_chunks);
      g_assert_cmpuint (sa.n_precomputed, ==, sb.n_precomputed);
      g_assert_cmpuint (sa.n_on_demand, ==, sb.n_on_demand);

      strata_zoom_tree_query_spans (want, level, from, to, NULL, 0, rw, NULL);
      strata_zoom_tree_query_spans (got, level, from, to, NULL, 0, rg, NULL);
      spans_w = strata_zoom_result_get_spans (rw, &n_w);
      spans_g = strata_zoom_result_get_spans (rg, &n_g);
      g_assert_cmpuint (n_w, ==, n_g);
      for (guint i = 0; i < n_w; i++)
        {
          g_assert_cmpuint (spans_w[i].channel, ==, spans_g[i].channel);
          g_assert_cmpint (spans_w[i].chunk, ==, spans_g[i].chunk);
          assert_items_equal (spans_w[i].items, spans_w[i].n_items, spans_g[i].items, spans_g[i].n_items);
        }

      /* The drill-down of a few of the items. */
      for (guint i = 0; i < a->len; i += MAX (1, a->len / 5))
        {
          g_autoptr(GArray) ma = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
          g_autoptr(GArray) mb = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

          strata_zoom_tree_get_members (want, &g_array_index (a, StrataZoomItem, i), ma);
          strata_zoom_tree_get_members (got, &g_array_index (a, StrataZoomItem, i), mb);
          assert_activities_equal (ma, mb);
        }
    }
}

/* Every chunk of every level, every channel's items in it, the plain
 * chunks, the raw store, and random queries. */
static void
assert_trees_equal_full (StrataZoomTree *want,
                         StrataZoomTree *got,
                         guint32         seed,
                         gboolean        every_chunk)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  StrataRawStore *rw = strata_zoom_tree_get_raw_store (want);
  StrataRawStore *rg = strata_zoom_tree_get_raw_store (got);
  StrataZoomGeometry gw, gg;
  gboolean has_w, has_g;
  guint n_channels = strata_raw_store_get_n_channels (rw);
  gint64 first = G_MAXINT64, last = G_MININT64;

  has_w = strata_zoom_tree_get_geometry (want, &gw);
  has_g = strata_zoom_tree_get_geometry (got, &gg);
  g_assert_cmpint (has_w, ==, has_g);
  g_assert_cmpmem (&gw, sizeof gw, &gg, sizeof gg);
  g_assert_cmpuint (strata_zoom_tree_get_size (want), ==, strata_zoom_tree_get_size (got));
  g_assert_cmpuint (strata_zoom_tree_get_n_buffers (want), ==, strata_zoom_tree_get_n_buffers (got));
  g_assert_cmpuint (strata_raw_store_get_size (rw), ==, strata_raw_store_get_size (rg));
  g_assert_cmpuint (n_channels, ==, strata_raw_store_get_n_channels (rg));
  if (!has_w)
    return;

  for (guint level = 0; level < gw.n_levels; level++)
    {
      g_autoptr(GArray) cw = strata_zoom_tree_list_chunks (want, level);
      g_autoptr(GArray) cg = strata_zoom_tree_list_chunks (got, level);

      g_assert_cmpuint (strata_zoom_tree_get_n_plain_chunks (want, level), ==,
                        strata_zoom_tree_get_n_plain_chunks (got, level));
      g_assert_cmpuint (cw->len, ==, cg->len);
      for (guint k = 0; k < cw->len; k++)
        {
          const StrataZoomChunkInfo *a = &g_array_index (cw, StrataZoomChunkInfo, k);
          const StrataZoomChunkInfo *b = &g_array_index (cg, StrataZoomChunkInfo, k);

          g_assert_cmpint (a->index, ==, b->index);
          g_assert_cmpint (a->start, ==, b->start);
          g_assert_cmpint (a->end, ==, b->end);
          g_assert_cmpuint (a->n_items, ==, b->n_items);
          g_assert_cmpuint (a->n_channels, ==, b->n_channels);
          g_assert_cmpuint (a->size, ==, b->size);
          g_assert_cmpint (a->at_end, ==, b->at_end);

          for (guint32 c = 0; every_chunk && c < n_channels; c++)
            {
              g_autoptr(GArray) ia = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
              g_autoptr(GArray) ib = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
              gboolean fa = strata_zoom_tree_get_chunk_items (want, level, a->index, c, ia);
              gboolean fb = strata_zoom_tree_get_chunk_items (got, level, a->index, c, ib);

              g_assert_cmpint (fa, ==, fb);
              assert_arrays_equal (ia, ib);
            }
        }
    }

  /* The raw store, channel by channel over its whole span and a slice. */
  for (guint32 c = 0; c < n_channels; c++)
    {
      g_autoptr(GArray) a = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      g_autoptr(GArray) b = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

      strata_raw_store_query (rw, c, 0, G_MAXINT64, a);
      strata_raw_store_query (rg, c, 0, G_MAXINT64, b);
      assert_activities_equal (a, b);
      for (guint i = 0; i < a->len; i++)
        {
          first = MIN (first, g_array_index (a, StrataActivity, i).start);
          last = MAX (last, g_array_index (a, StrataActivity, i).end);
        }
      if (a->len > 2)
        {
          gint64 t0 = g_array_index (a, StrataActivity, a->len / 3).start;
          gint64 t1 = g_array_index (a, StrataActivity, a->len / 2).end;

          g_array_set_size (a, 0);
          g_array_set_size (b, 0);
          strata_raw_store_query (rw, c, t0, t1 + 1, a);
          strata_raw_store_query (rg, c, t0, t1 + 1, b);
          assert_activities_equal (a, b);
        }
    }

  for (guint level = 0; level < gw.n_levels; level += MAX (1, gw.n_levels / (every_chunk ? 8 : 3)))
    assert_queries_equal (want, got, level, first, last, rand);
  assert_queries_equal (want, got, gw.n_levels - 1, first, last, rand);
}

/* Every chunk's items, channel by channel, and the queries. */
static void
assert_trees_equal (StrataZoomTree *want,
                    StrataZoomTree *got,
                    guint32         seed)
{
  assert_trees_equal_full (want, got, seed, TRUE);
}

/* After a rebuild: the chunk lists, the raw store and the queries. */
static void
assert_trees_agree (StrataZoomTree *want,
                    StrataZoomTree *got,
                    guint32         seed)
{
  assert_trees_equal_full (want, got, seed, FALSE);
}

/* What `info` and `stats` print. */
static void
assert_descriptions_equal (StrataTrace *want,
                           StrataTrace *got)
{
  const StrataSourceInfo *a = strata_trace_get_info (want), *b = strata_trace_get_info (got);
  const StrataStats *sa = strata_trace_get_stats (want), *sb = strata_trace_get_stats (got);
  const StrataEventCount *ca, *cb;
  const StrataChannel *cha, *chb;
  guint na, nb;

  g_assert_cmpstr (a->format, ==, b->format);
  g_assert_cmpstr (a->version, ==, b->version);
  g_assert_cmpstr (a->compression, ==, b->compression);
  g_assert_cmpstr (a->clock, ==, b->clock);
  g_assert_cmpstr (a->hostname, ==, b->hostname);
  g_assert_cmpstr (a->kernel_release, ==, b->kernel_release);
  g_assert_cmpuint (a->n_cpus, ==, b->n_cpus);
  g_assert_cmpuint (a->lost_events, ==, b->lost_events);
  g_assert_cmpint (a->lost_unknown, ==, b->lost_unknown);
  g_assert_cmpint (a->first_ts, ==, b->first_ts);
  g_assert_cmpint (a->last_ts, ==, b->last_ts);
  g_assert_cmpuint (a->instances->len, ==, b->instances->len);
  for (guint i = 0; i < a->instances->len; i++)
    g_assert_cmpstr (g_ptr_array_index (a->instances, i), ==, g_ptr_array_index (b->instances, i));
  g_assert_cmpuint (a->lost_per_cpu->len, ==, b->lost_per_cpu->len);
  if (a->lost_per_cpu->len > 0)
    g_assert_cmpmem (a->lost_per_cpu->data, a->lost_per_cpu->len * 8, b->lost_per_cpu->data, b->lost_per_cpu->len * 8);

  g_assert_cmpuint (strata_trace_get_n_events (want), ==, strata_trace_get_n_events (got));
  g_assert_cmpint (strata_trace_get_start (want), ==, strata_trace_get_start (got));
  g_assert_cmpint (strata_trace_get_end (want), ==, strata_trace_get_end (got));
  g_assert_cmpint (strata_trace_get_damage (want) != NULL, ==, strata_trace_get_damage (got) != NULL);
  if (strata_trace_get_damage (want) != NULL)
    g_assert_cmpstr (strata_trace_get_damage (want)->message, ==, strata_trace_get_damage (got)->message);

  ca = strata_trace_get_event_counts (want, &na);
  cb = strata_trace_get_event_counts (got, &nb);
  g_assert_cmpuint (na, ==, nb);
  for (guint i = 0; i < na; i++)
    {
      g_assert_cmpstr (strata_trace_get_string (want, ca[i].name), ==, strata_trace_get_string (got, cb[i].name));
      g_assert_cmpuint (ca[i].count, ==, cb[i].count);
    }

  cha = strata_trace_get_channels (want, &na);
  chb = strata_trace_get_channels (got, &nb);
  g_assert_cmpuint (na, ==, nb);
  if (na > 0)
    g_assert_cmpmem (cha, na * sizeof *cha, chb, nb * sizeof *chb);
  for (guint i = 0; i < na; i++)
    {
      g_assert_cmpstr (strata_trace_get_string (want, cha[i].name), ==, strata_trace_get_string (got, chb[i].name));
      g_assert_cmpuint (strata_trace_get_context_switches (want, i), ==, strata_trace_get_context_switches (got, i));
    }
  g_assert_cmpuint (strata_string_pool_get_size (strata_trace_get_strings (want)), ==,
                    strata_string_pool_get_size (strata_trace_get_strings (got)));
  for (guint i = 0; i < strata_string_pool_get_size (strata_trace_get_strings (want)); i++)
    g_assert_cmpstr (strata_trace_get_string (want, i), ==, strata_trace_get_string (got, i));

  strata_test_assert_stats_equal (sa, sb);
}

/* The trace in memory, as --no-index reads it. */
static StrataTrace *
load_in_memory (const char *path)
{
  g_autoptr(GError) error = NULL;
  StrataTrace *trace = strata_test_load_in_memory (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_null (strata_trace_get_index_path (trace));
  return trace;
}

/* The fixture's trace in memory: one pass per fixture and process, as the
 * reference every test compares with. */
static StrataTrace *
reference (const char *name)
{
  static GHashTable *references;
  StrataTrace *trace;

  if (references == NULL)
    references = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  trace = g_hash_table_lookup (references, name);
  if (trace == NULL)
    {
      g_autofree char *path = strata_test_fixture (name);

      trace = load_in_memory (path);
      g_hash_table_insert (references, g_strdup (name), trace);
    }
  return g_object_ref (trace);
}

/* A copy of a fixture in the temporary folder, so it can be changed. */
static char *
fixture_copy (const char *name,
              const char *as)
{
  g_autofree char *src = strata_test_fixture (name);
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *contents = NULL;
  char *path = g_build_filename (dir, as, NULL);
  gsize len;

  g_assert_true (g_file_get_contents (src, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  return path;
}

static void
test_round_trip_fixtures (void)
{
  /* Then again with every pre-calculated span cut to what can be in view:
   * the mapped tree decodes only there, and answers as the one in memory. */
  for (guint pass = 0; pass < 2; pass++)
  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autofree char *dir = strata_test_tmpdir ();
      g_autofree char *index = g_strdup_printf ("%s/rt-%u" STRATA_INDEX_SUFFIX, dir, f);
      g_autoptr(StrataTrace) want = NULL;
      g_autoptr(StrataTrace) got = NULL;
      g_autoptr(GError) error = NULL;
      StrataSourceIdentity id;

      g_test_message ("%s%s", fixtures[f], pass == 1 ? ", every span cut" : "");
      if (pass == 1)
        g_setenv ("STRATA_ZOOM_SPAN_CUT", "0", TRUE);
      /* (The references are kept across tests: a cut one is built anew.) */
      want = pass == 0 ? reference (fixtures[f]) : load_in_memory (path);
      g_assert_true (strata_source_identity_compute (path, &id, &error));
      g_assert_true (strata_index_write (want, &id, index, &error));
      g_assert_no_error (error);

      got = strata_index_open (index, &id, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (strata_trace_get_index_path (got), ==, index);

      assert_descriptions_equal (want, got);
      assert_trees_equal (strata_trace_get_zoom_tree (want), strata_trace_get_zoom_tree (got), f + 1);
      g_assert_null (strata_trace_get_index_damage (got));
      g_unsetenv ("STRATA_ZOOM_SPAN_CUT");
    }
}

/* A trace around a generated stream: channels and a description made up,
 * the tree built from the stream. */
static StrataTrace *
generated_trace (StrataTestStreamKind    kind,
                 guint                   n,
                 const StrataZoomParams *params)
{
  g_autoptr(GArray) acts = strata_test_stream_collect (kind, n, 40 + kind);
  g_autoptr(StrataStatsBuilder) builder = strata_stats_builder_new ();
  StrataTraceParts parts = { 0 };
  StrataTrace *trace;
  guint n_channels = 0;

  parts.tree = strata_zoom_tree_new (params, NULL);
  strata_test_stream_build (parts.tree, (const StrataActivity *)(gpointer) acts->data, acts->len);
  for (guint i = 0; i < acts->len; i++)
    n_channels = MAX (n_channels, g_array_index (acts, StrataActivity, i).channel + 1);

  parts.info = g_new0 (StrataSourceInfo, 1);
  parts.info->format = g_strdup ("generated");
  parts.info->version = g_strdup (strata_test_stream_kind_name (kind));
  parts.info->compression = g_strdup ("none");
  parts.info->clock = g_strdup ("local");
  parts.info->instances = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (parts.info->instances, g_strdup (""));
  parts.info->lost_per_cpu = g_array_new (FALSE, TRUE, sizeof (guint64));
  parts.strings = strata_string_pool_new ();
  strata_string_pool_intern (parts.strings, "thread");
  parts.channels = g_array_new (FALSE, TRUE, sizeof (StrataChannel));
  g_array_set_size (parts.channels, n_channels);
  for (guint c = 0; c < n_channels; c++)
    {
      StrataChannel *ch = &g_array_index (parts.channels, StrataChannel, c);

      ch->kind = STRATA_CHANNEL_THREAD;
      ch->id = c + 1;
      ch->name = 1;
      ch->parent = STRATA_CHANNEL_NONE;
      ch->end = G_MAXINT64;
    }
  parts.switches = g_array_new (FALSE, TRUE, sizeof (guint64));
  g_array_set_size (parts.switches, n_channels);
  parts.event_counts = g_array_new (FALSE, FALSE, sizeof (StrataEventCount));
  parts.n_events = acts->len;
  parts.start = g_array_index (acts, StrataActivity, 0).start;
  parts.end = g_array_index (acts, StrataActivity, acts->len - 1).end;

  trace = strata_trace_new_from_parts (&parts);
  for (guint i = 0; i < acts->len; i++)
    strata_stats_builder_add (&g_array_index (acts, StrataActivity, i), builder);
  strata_trace_set_stats (trace, strata_stats_builder_finish (builder, trace));
  return trace;
}

static void
test_round_trip_streams (void)
{
  for (guint k = 0; k < STRATA_TEST_N_STREAMS; k++)
    for (guint reduction = 1 + k % 2; reduction <= 2; reduction += 2)
      {
        g_autofree char *dir = strata_test_tmpdir ();
        g_autofree char *index = g_strdup_printf ("%s/stream-%u-%u" STRATA_INDEX_SUFFIX, dir, k, reduction);
        StrataSourceIdentity id = { 1000 + k, 42, 7 };
        g_autoptr(StrataTrace) want = NULL;
        g_autoptr(StrataTrace) got = NULL;
        g_autoptr(GError) error = NULL;
        StrataZoomParams params;

        strata_zoom_params_init (&params);
        params.pixels_per_chunk = 256;
        params.density_threshold = 100;
        params.min_reduction = reduction;

        g_test_message ("%s, R = %u", strata_test_stream_kind_name (k), reduction);
        want = generated_trace (k, 6000, &params);
        g_assert_true (strata_index_write (want, &id, index, &error));
        g_assert_no_error (error);
        got = strata_index_open (index, &id, &params, &error);
        g_assert_no_error (error);

        assert_descriptions_equal (want, got);
        assert_trees_equal (strata_trace_get_zoom_tree (want), strata_trace_get_zoom_tree (got), 100 + k);
        g_assert_null (strata_trace_get_index_damage (got));
      }
}

/* A query whose copies out of a mapped chunk pass 2 MiB (60 000 items
 * and more: the query reserves its scratch for them, under huge pages)
 * answers as the same query on the tree in memory, on every level and
 * again through the same result. */
static void
test_round_trip_large_answer (void)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *index = g_strdup_printf ("%s/large" STRATA_INDEX_SUFFIX, dir);
  StrataSourceIdentity id = { 77, 42, 7 };
  g_autoptr(StrataTrace) want = NULL;
  g_autoptr(StrataTrace) got = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataZoomResult) result = strata_zoom_result_new ();
  StrataZoomParams params;
  StrataZoomGeometry g;
  guint64 largest = 0;

  strata_zoom_params_init (&params);
  params.min_reduction = 1;   /* every dense chunk stored: big mapped spans */
  want = generated_trace (STRATA_TEST_STREAM_DENSE, 400000, &params);
  g_assert_true (strata_index_write (want, &id, index, &error));
  g_assert_no_error (error);
  got = strata_index_open (index, &id, &params, &error);
  g_assert_no_error (error);
  g_assert_true (strata_zoom_tree_get_geometry (strata_trace_get_zoom_tree (want), &g));

  for (guint level = 0; level < g.n_levels; level++)
    {
      g_autoptr(GArray) w = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      g_autoptr(GArray) o = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      gint64 from = strata_trace_get_start (want), to = strata_trace_get_end (want) + 1;
      const StrataZoomSpan *spans;
      guint64 total[2] = { 0, 0 };
      guint n_spans;

      strata_zoom_tree_query (strata_trace_get_zoom_tree (want), level, from, to, NULL, 0, w, NULL);
      strata_zoom_tree_query (strata_trace_get_zoom_tree (got), level, from, to, NULL, 0, o, NULL);
      assert_items_equal ((const StrataZoomItem *)(gpointer) o->data, o->len, (const StrataZoomItem *)(gpointer) w->data, w->len);
      largest = MAX (largest, w->len);

      /* The same result twice: the second answer is the first's. */
      for (guint k = 0; k < 2; k++)
        {
          strata_zoom_tree_query_spans (strata_trace_get_zoom_tree (got), level, from, to, NULL, 0, result, NULL);
          spans = strata_zoom_result_get_spans (result, &n_spans);
          for (guint i = 0; i < n_spans; i++)
            for (guint j = 0; j < spans[i].n_items; j++)
              total[k] += (guint64) spans[i].items[j].start ^ ((guint64) spans[i].items[j].count << 40) ^ spans[i].channel;
        }
      g_assert_cmpuint (total[0], ==, total[1]);
    }
  /* Past the 2 MiB the reserve starts from. */
  g_assert_cmpuint (largest * sizeof (StrataZoomItem), >, (guint64) 2 << 20);
}

/* A tree whose raw store spilled its lanes to disk while it was built
 * (from its first block on) answers as the same tree built in memory, and
 * so does the index written from it, whose spilled blocks are copied into
 * the file as they are. */
static void
test_round_trip_spilled (void)
{
  /* Two kinds whose lanes are long enough to spill, kept small. */
  static const StrataTestStreamKind kinds[] = { STRATA_TEST_STREAM_DENSE, STRATA_TEST_STREAM_BURSTY };
  guint n_spilled_kinds = 0;

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      StrataTestStreamKind k = kinds[i];
      g_autofree char *dir = strata_test_tmpdir ();
      g_autofree char *index = g_strdup_printf ("%s/spilled-%u" STRATA_INDEX_SUFFIX, dir, k);
      StrataSourceIdentity id = { 2000 + k, 43, 8 };
      g_autoptr(StrataTrace) want = NULL;
      g_autoptr(StrataTrace) spilled = NULL;
      g_autoptr(StrataTrace) got = NULL;
      g_autoptr(GError) error = NULL;
      StrataRawStore *raw;
      StrataZoomParams params;

      strata_zoom_params_init (&params);
      params.pixels_per_chunk = 256;
      params.density_threshold = 100;

      g_test_message ("%s", strata_test_stream_kind_name (k));
      want = generated_trace (k, 12000, &params);
      g_setenv ("STRATA_RAW_STORE_SPILL_FROM", "0", TRUE);
      spilled = generated_trace (k, 12000, &params);
      g_unsetenv ("STRATA_RAW_STORE_SPILL_FROM");
      raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (spilled));
      g_assert_cmpuint (strata_raw_store_get_spilled (strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (want))), ==, 0);
      n_spilled_kinds += strata_raw_store_get_spilled (raw) > 0;
      g_test_message ("%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " activities spilled",
                      strata_raw_store_get_spilled (raw), strata_raw_store_get_size (raw));

      assert_trees_equal (strata_trace_get_zoom_tree (want), strata_trace_get_zoom_tree (spilled), 300 + k);

      g_assert_true (strata_index_write (spilled, &id, index, &error));
      g_assert_no_error (error);
      got = strata_index_open (index, &id, &params, &error);
      g_assert_no_error (error);
      assert_descriptions_equal (want, got);
      assert_trees_equal (strata_trace_get_zoom_tree (want), strata_trace_get_zoom_tree (got), 400 + k);
      g_assert_null (strata_trace_get_index_damage (got));
    }
  g_assert_cmpuint (n_spilled_kinds, ==, G_N_ELEMENTS (kinds));
}

/* Several threads querying one mapped tree at once, as a viewer's workers
 * would: each chunk and lane is checked and set up on first use by
 * whichever thread gets there first. */
typedef struct
{
  StrataZoomTree *want;
  StrataZoomTree *got;
  gint64          first;
  gint64          last;
  guint32         seed;
} QueryThread;

static gpointer
query_thread (gpointer data)
{
  QueryThread *qt = data;
  g_autoptr(GRand) rand = g_rand_new_with_seed (qt->seed);
  StrataZoomGeometry g;

  g_assert_true (strata_zoom_tree_get_geometry (qt->want, &g));
  for (guint level = 0; level < g.n_levels; level++)
    assert_queries_equal (qt->want, qt->got, level, qt->first, qt->last, rand);
  return NULL;
}

typedef struct
{
  StrataTrace       *want;
  StrataTrace       *got;
  const StrataStats *seen;
} StatsThread;

/* The statistics of an index as a thread first asks for them: the thread
 * rows are copied out of the map then, once, whichever thread asks. */
static gpointer
stats_thread (gpointer data)
{
  StatsThread *st = data;

  st->seen = strata_trace_get_stats (st->got);
  g_assert_nonnull (st->seen);
  strata_test_assert_stats_equal (strata_trace_get_stats (st->want), st->seen);
  return NULL;
}

static void
test_threads (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *index = g_build_filename (dir, "threads" STRATA_INDEX_SUFFIX, NULL);
  g_autoptr(StrataTrace) want = reference ("sched-small.dat");
  g_autoptr(StrataTrace) got = NULL;
  g_autoptr(GError) error = NULL;
  StrataSourceIdentity id;
  QueryThread qts[4];
  StatsThread sts[4];
  GThread *threads[4];

  g_assert_true (strata_source_identity_compute (path, &id, &error));
  g_assert_true (strata_index_write (want, &id, index, &error));
  got = strata_index_open (index, &id, NULL, &error);
  g_assert_no_error (error);

  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    {
      sts[t] = (StatsThread) { want, got, NULL };
      threads[t] = g_thread_new ("stats", stats_thread, &sts[t]);
    }
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    g_thread_join (threads[t]);
  for (guint t = 1; t < G_N_ELEMENTS (threads); t++)
    g_assert_true (sts[t].seen == sts[0].seen);
  g_assert_cmpuint (strata_trace_get_stats (got)->threads->len, >, 0);

  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    {
      qts[t] = (QueryThread) { strata_trace_get_zoom_tree (want), strata_trace_get_zoom_tree (got),
                               strata_trace_get_start (want), strata_trace_get_end (want), 1000 + t };
      threads[t] = g_thread_new ("query", query_thread, &qts[t]);
    }
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    g_thread_join (threads[t]);
  g_assert_null (strata_trace_get_index_damage (got));
}

/* Faults. */

typedef struct
{
  guint  n;
  GString *messages;
} Notes;

static void
on_note (const char *message,
         gpointer    user_data)
{
  Notes *notes = user_data;

  notes->n++;
  g_string_append_printf (notes->messages, "%s\n", message);
}

/* The loader on @trace_path with the index at @index_path:
 * returns the trace, and how many times it said something. */
static StrataTrace *
load_through (const char *trace_path,
              const char *index_path,
              guint      *n_notes,
              char      **messages)
{
  Notes notes = { 0, g_string_new (NULL) };
  StrataIndexOptions options = { .index_path = index_path, .note = on_note, .note_data = &notes };
  g_autoptr(GError) error = NULL;
  StrataTrace *trace = strata_test_load_index (trace_path, NULL, &options, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (strata_trace_get_index_path (trace), ==, index_path);
  *n_notes = notes.n;
  if (messages != NULL)
    *messages = g_string_free (notes.messages, FALSE);
  else
    g_string_free (notes.messages, TRUE);
  return trace;
}

static GBytes *
read_file (const char *path)
{
  g_autofree char *contents = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  return g_bytes_new_take (g_steal_pointer (&contents), len);
}

static void
write_file (const char   *path,
            const guint8 *data,
            gsize         len)
{
  g_assert_true (g_file_set_contents (path, (const char *) data, len, NULL));
}

/* The trace at @trace_path, built once in memory, and its index. */
typedef struct
{
  char        *trace_path;
  char        *index_path;
  StrataTrace *want;
  GBytes      *good;      /* the index's bytes */
} Fixture;

static void
fixture_init (Fixture    *fx,
              const char *name)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *as = g_strdup_printf ("fault-%s", name);
  g_autoptr(GError) error = NULL;
  StrataSourceIdentity id;

  fx->trace_path = fixture_copy (name, as);
  fx->index_path = g_strdup_printf ("%s/%s" STRATA_INDEX_SUFFIX, dir, as);
  fx->want = reference (name);
  g_assert_true (strata_source_identity_compute (fx->trace_path, &id, &error));
  g_assert_true (strata_index_write (fx->want, &id, fx->index_path, &error));
  fx->good = read_file (fx->index_path);
}

static void
fixture_clear (Fixture *fx)
{
  g_free (fx->trace_path);
  g_free (fx->index_path);
  g_object_unref (fx->want);
  g_bytes_unref (fx->good);
}

/* Loads through a bad index: said once, rebuilt, right afterwards. */
static void
assert_rebuilt (Fixture    *fx,
                const char *expect)
{
  g_autoptr(StrataTrace) got = NULL;
  g_autoptr(StrataTrace) again = NULL;
  g_autofree char *messages = NULL;
  guint n_notes;

  got = load_through (fx->trace_path, fx->index_path, &n_notes, &messages);
  g_assert_cmpuint (n_notes, ==, 1);
  g_assert_nonnull (strstr (messages, "rebuilding"));
  if (expect != NULL)
    g_assert_nonnull (strstr (messages, expect));
  assert_descriptions_equal (fx->want, got);
  assert_trees_agree (strata_trace_get_zoom_tree (fx->want), strata_trace_get_zoom_tree (got), 5);
  g_assert_null (strata_trace_get_index_damage (got));

  /* The next open is quiet: the index is sound again. */
  again = load_through (fx->trace_path, fx->index_path, &n_notes, NULL);
  g_assert_cmpuint (n_notes, ==, 0);
}

static void
test_truncated (void)
{
  Fixture fx;
  gsize len;
  const guint8 *data;
  guint n_checked = 0;

  fixture_init (&fx, "sched-small.dat");
  data = g_bytes_get_data (fx.good, &len);

  /* Every cut is refused at open: the header knows the file's length. */
  for (gsize cut = 0; cut < len; cut += cut < 1024 ? 61 : len / 53)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = NULL;

      write_file (fx.index_path, data, cut);
      trace = strata_index_open (fx.index_path, NULL, NULL, &error);
      g_assert_null (trace);
      g_assert_true (g_error_matches (error, STRATA_ERROR, STRATA_ERROR_TRUNCATED) ||
                     g_error_matches (error, STRATA_ERROR, STRATA_ERROR_UNKNOWN_FORMAT));
      n_checked++;
    }
  g_assert_cmpuint (n_checked, >, 40);

  /* And each is rebuilt with the right answers: a few of them. */
  write_file (fx.index_path, data, len - 1);
  assert_rebuilt (&fx, "bytes long");

  fixture_clear (&fx);
}

/* What a test does to an index once it is written, before it is opened. */
typedef struct
{
  guint  n_written;
  gsize  cut;          /* the length it is cut to */
  Notes *notes;
} AfterWrite;

static void
cut_written (StrataLoader *loader,
             const char   *index_path,
             gpointer      user_data)
{
  AfterWrite *after = user_data;

  after->n_written++;
  g_assert_cmpint (truncate (index_path, (off_t) after->cut), ==, 0);
}

static void
note_loader (StrataLoader *loader,
             const char   *message,
             gpointer      user_data)
{
  on_note (message, ((AfterWrite *) user_data)->notes);
}

/* Issue 27, item 4: an index that does not read back right after it was
 * written (a disk that lost it) is said once, and the trace is read again
 * without it: the same trace as in memory, nothing mapped. The next load
 * finds the damaged file, says so and rebuilds it. */
static void
test_written_does_not_read_back (void)
{
  Fixture fx;
  gsize len;

  fixture_init (&fx, "sched-small.dat");
  g_bytes_get_data (fx.good, &len);
  g_assert_cmpint (g_unlink (fx.index_path), ==, 0);

  for (guint k = 0; k < 3; k++)
    {
      Notes notes = { 0, g_string_new (NULL) };
      AfterWrite after = { 0, k == 0 ? 0 : k == 1 ? 64 : len / 2, &notes };
      g_autoptr(StrataLoader) loader = strata_loader_new (fx.trace_path);
      g_autoptr(StrataTrace) got = NULL;
      g_autoptr(StrataTrace) again = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *messages = NULL;
      guint n_notes;

      strata_loader_set_index_path (loader, fx.index_path);
      g_signal_connect (loader, "index-written", G_CALLBACK (cut_written), &after);
      g_signal_connect (loader, "note", G_CALLBACK (note_loader), &after);
      got = strata_loader_load (loader, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (got);
      g_assert_cmpuint (after.n_written, ==, 1);
      g_assert_cmpuint (notes.n, ==, 1);
      g_assert_nonnull (strstr (notes.messages->str, "reading the trace without it"));
      g_assert_nonnull (strstr (notes.messages->str, fx.index_path));
      g_string_free (notes.messages, TRUE);

      /* Read again, in memory: what the pass found, and its statistics. */
      g_assert_null (strata_trace_get_index_path (got));
      g_assert_nonnull (strata_trace_get_stats (got));
      assert_descriptions_equal (fx.want, got);
      assert_trees_agree (strata_trace_get_zoom_tree (fx.want), strata_trace_get_zoom_tree (got), 7 + k);

      /* The cut file is found, said, rebuilt and mapped. */
      again = load_through (fx.trace_path, fx.index_path, &n_notes, &messages);
      g_assert_cmpuint (n_notes, ==, 1);
      g_assert_nonnull (strstr (messages, "rebuilding"));
      assert_descriptions_equal (fx.want, again);
      g_clear_object (&again);
      g_assert_cmpint (g_unlink (fx.index_path), ==, 0);
    }

  fixture_clear (&fx);
}

static void
test_flipped_header (void)
{
  Fixture fx;
  gsize len;
  g_autofree guint8 *bad = NULL;

  fixture_init (&fx, "sched-tgid.dat");
  g_bytes_get_data (fx.good, &len);
  bad = g_memdup2 (g_bytes_get_data (fx.good, NULL), len);

  /* Any bit of the header, after the magic and the version. */
  for (gsize off = 12; off < sizeof (StrataIndexHeader); off += 13)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = NULL;

      bad[off] ^= 1u << (off % 8);
      write_file (fx.index_path, bad, len);
      trace = strata_index_open (fx.index_path, NULL, NULL, &error);
      g_assert_null (trace);
      g_assert_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT);
      g_assert_nonnull (strstr (error->message, "header"));
      bad[off] ^= 1u << (off % 8);
    }

  /* The magic: not an index at all. */
  bad[0] ^= 0x01;
  write_file (fx.index_path, bad, len);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(StrataTrace) trace = strata_index_open (fx.index_path, NULL, NULL, &error);

    g_assert_null (trace);

    g_assert_error (error, STRATA_ERROR, STRATA_ERROR_UNKNOWN_FORMAT);
  }
  bad[0] ^= 0x01;

  bad[100] ^= 0x10;
  write_file (fx.index_path, bad, len);
  assert_rebuilt (&fx, "header fails its checksum");

  fixture_clear (&fx);
}

/* @bad, a copy of the good index changed, with its header's checksum
 * made right again, as the index file. */
static void
write_resealed (Fixture *fx,
                guint8  *bad,
                gsize    len)
{
  StrataIndexHeader *h = (StrataIndexHeader *)(gpointer) bad;

  h->checksum = strata_index_checksum (h, G_STRUCT_OFFSET (StrataIndexHeader, checksum));
  write_file (fx->index_path, bad, len);
}

/* A string table whose checksums are right but whose offsets run past
 * its end before they come back (what the fuzzer found: the offsets were
 * checked in order, so a too-large one was read before the smaller one
 * after it said so) is refused, not read. */
static void
assert_string_offsets_refused (Fixture *fx)
{
  gsize len;
  g_autofree guint8 *bad = NULL;
  StrataIndexHeader *h;
  StrataIndexSection *strings;
  guint32 n, *offsets;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;

  g_bytes_get_data (fx->good, &len);
  bad = g_memdup2 (g_bytes_get_data (fx->good, NULL), len);
  h = (StrataIndexHeader *)(gpointer) bad;
  strings = &h->sections[STRATA_INDEX_SECTION_STRINGS];
  memcpy (&n, bad + strings->offset, sizeof n);
  g_assert_cmpuint (n, >, 3);
  offsets = (guint32 *)(gpointer)(bad + strings->offset) + 1;
  offsets[2] = 0x7fffff00;
  strings->checksum = strata_index_checksum (bad + strings->offset, strings->size);
  write_resealed (fx, bad, len);

  trace = strata_index_open (fx->index_path, NULL, NULL, &error);
  g_assert_null (trace);
  g_assert_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "string table"));
}

/* A header whose checksum is right but whose tree's span could not be a
 * trace's (a first time before 0, a last one past 2^62, where the level
 * arithmetic overflows) is refused, whether or not the caller asks for
 * given tree parameters. */
static void
assert_span_refused (Fixture *fx)
{
  const gint64 firsts[] = { -5, 0 };
  const gint64 lasts[] = { 1000, G_GINT64_CONSTANT (1) << 62 };

  for (guint i = 0; i < G_N_ELEMENTS (firsts); i++)
    {
      gsize len;
      g_autofree guint8 *bad = NULL;
      StrataIndexHeader *h;
      StrataZoomParams params;
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) error2 = NULL;
      g_autoptr(StrataTrace) trace = NULL;
      g_autoptr(StrataTrace) trace2 = NULL;

      g_bytes_get_data (fx->good, &len);
      bad = g_memdup2 (g_bytes_get_data (fx->good, NULL), len);
      h = (StrataIndexHeader *)(gpointer) bad;
      h->first = firsts[i];
      h->last = lasts[i];
      write_resealed (fx, bad, len);

      trace = strata_index_open (fx->index_path, NULL, NULL, &error);
      g_assert_null (trace);
      g_assert_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT);
      g_assert_nonnull (strstr (error->message, "span is out of range"));

      strata_zoom_params_init (&params);
      trace2 = strata_index_open (fx->index_path, NULL, &params, &error2);
      g_assert_null (trace2);
      g_assert_error (error2, STRATA_ERROR, STRATA_ERROR_CORRUPT);
    }
}

/* The thread rows (a row a thread that ever lived) are checked when the
 * statistics are first asked for, not at open: damaged, or naming a
 * channel the trace has not, they are not shown, and the index says it
 * is damaged, as a query's damaged block does. */
static void
assert_thread_rows_checked (Fixture *fx)
{
  gsize len;
  const guint8 *good = g_bytes_get_data (fx->good, &len);
  const StrataIndexHeader *gh = (const StrataIndexHeader *)(gconstpointer) good;
  const StrataIndexSection *rows = &gh->sections[STRATA_INDEX_SECTION_THREAD_STATS];
  const StrataIndexSection *channels = &gh->sections[STRATA_INDEX_SECTION_CHANNELS];

  g_assert_cmpuint (rows->size, >=, 2 * sizeof (StrataThreadStats));
  for (guint how = 0; how < 2; how++)
    {
      g_autofree guint8 *bad = g_memdup2 (good, len);
      StrataIndexHeader *h = (StrataIndexHeader *)(gpointer) bad;
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = NULL;
      const StrataStats *stats;

      if (how == 0)
        bad[rows->offset + rows->size / 2] ^= 0x04;
      else
        {
          /* Checksums right, a row's channel past the table's end. */
          StrataThreadStats *row = (StrataThreadStats *)(gpointer)(bad + rows->offset) + 1;

          row->channel = (guint32) (channels->size / sizeof (StrataChannel));
          h->sections[STRATA_INDEX_SECTION_THREAD_STATS].checksum = strata_index_checksum (row - 1, rows->size);
        }
      write_resealed (fx, bad, len);
      trace = strata_index_open (fx->index_path, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_null (strata_trace_get_index_damage (trace));
      stats = strata_trace_get_stats (trace);
      g_assert_nonnull (stats);
      g_assert_cmpuint (stats->threads->len, ==, 0);
      g_assert_nonnull (strata_trace_get_index_damage (trace));
      g_assert_nonnull (strstr (strata_trace_get_index_damage (trace),
                                how == 0 ? "thread statistics fail their checksum" : "names no channel"));
      /* Asked again, the same (empty) rows, the damage said once. */
      g_assert_true (strata_trace_get_stats (trace) == stats);
      g_assert_cmpuint (stats->threads->len, ==, 0);
    }

  /* The good index's rows are all there. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(StrataTrace) trace = NULL;

    write_file (fx->index_path, good, len);
    trace = strata_index_open (fx->index_path, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (strata_trace_get_stats (trace)->threads->len, ==, rows->size / sizeof (StrataThreadStats));
    g_assert_null (strata_trace_get_index_damage (trace));
  }
}

static void
test_flipped_sections (void)
{
  Fixture fx;
  gsize len;
  const StrataIndexHeader *h;
  const guint8 *good;

  fixture_init (&fx, "instances.dat");
  good = g_bytes_get_data (fx.good, &len);
  h = (const StrataIndexHeader *)(gconstpointer) good;
  assert_string_offsets_refused (&fx);
  assert_span_refused (&fx);

  assert_thread_rows_checked (&fx);

  /* Every section but the thread rows is checked at open; the channel
   * table's flip is the one left in place for the rebuild. */
  for (guint s = STRATA_INDEX_N_SECTIONS; s-- > 0;)
    {
      g_autofree guint8 *bad = g_memdup2 (good, len);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = NULL;

      if (s == STRATA_INDEX_SECTION_THREAD_STATS)
        continue;
      g_assert_cmpuint (h->sections[s].size, >, 0);
      bad[h->sections[s].offset + h->sections[s].size / 2] ^= 0x04;
      write_file (fx.index_path, bad, len);
      trace = strata_index_open (fx.index_path, NULL, NULL, &error);
      g_assert_null (trace);
      g_assert_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT);
      g_assert_nonnull (strstr (error->message, "checksum"));
    }
  assert_rebuilt (&fx, "checksum");

  fixture_clear (&fx);
}

/* The first stored chunk of the index: its rank and record. */
static const StrataIndexChunk *
first_chunk (const guint8 *data,
             guint        *rank)
{
  const StrataIndexHeader *h = (const StrataIndexHeader *)(gconstpointer) data;
  const StrataIndexLevel *levels = (const StrataIndexLevel *)(gconstpointer)
                                   (data + h->sections[STRATA_INDEX_SECTION_LEVELS].offset);

  for (guint r = 0; r < h->n_ranks; r++)
    if (levels[r].n_chunks > 0)
      {
        *rank = r;
        return (const StrataIndexChunk *)(gconstpointer)(data + levels[r].chunks_offset);
      }
  g_assert_not_reached ();
}

/* Where the bytes of packed block @b are, from its table at @table. */
static guint64
block_bytes (const guint8 *data,
             guint64       table,
             guint         b,
             guint32      *size)
{
  const StrataIndexBlock *rec = (const StrataIndexBlock *)(gconstpointer)(data + table) + b;

  *size = rec->size;
  return rec->offset;
}

/* A flipped bit in a chunk's items: the index opens (nothing is read
 * yet), the query that reads those items notices, answers that channel's
 * part of the chunk from the raw store (so the answer is still right) and
 * says the index is damaged; rebuilt, it is sound again. */
static void
test_flipped_chunk (void)
{
  Fixture fx;
  gsize len;
  g_autofree guint8 *bad = NULL;
  const StrataIndexChunk *rec;
  g_autoptr(StrataTrace) got = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) a = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GArray) b = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  StrataZoomTree *want_tree, *got_tree;
  StrataZoomGeometry g;
  guint rank, level;
  gint64 from, to;

  fixture_init (&fx, "sched-small.dat");
  g_bytes_get_data (fx.good, &len);
  bad = g_memdup2 (g_bytes_get_data (fx.good, NULL), len);
  rec = first_chunk (bad, &rank);
  g_assert_cmpuint (rec->n_items, >, 0);
  {
    guint32 size;
    guint64 at = block_bytes (bad, rec->items_offset, 0, &size);

    bad[at + size / 2] ^= 0x20;   /* a byte of the first block of items */
  }
  write_file (fx.index_path, bad, len);

  got = strata_index_open (fx.index_path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (strata_trace_get_index_damage (got));

  want_tree = strata_trace_get_zoom_tree (fx.want);
  got_tree = strata_trace_get_zoom_tree (got);
  g_assert_true (strata_zoom_tree_get_geometry (want_tree, &g));
  level = strata_zoom_tree_level_of_rank (want_tree, rank);
  from = strata_zoom_geometry_chunk_start (&g, level, rec->index);
  to = strata_zoom_geometry_chunk_start (&g, level, rec->index + 1);

  strata_zoom_tree_query (want_tree, level, from, to, NULL, 0, a, NULL);
  strata_zoom_tree_query (got_tree, level, from, to, NULL, 0, b, NULL);
  assert_arrays_equal (a, b);
  g_assert_nonnull (strata_trace_get_index_damage (got));
  g_assert_nonnull (strstr (strata_trace_get_index_damage (got), "chunk"));

  /* What the CLI does with a damaged index: rebuild it. */
  g_clear_object (&got);
  {
    StrataIndexOptions options = { .index_path = fx.index_path, .flags = STRATA_INDEX_OPEN_REBUILD };

    got = strata_test_load_index (fx.trace_path, NULL, &options, &error);
    g_assert_no_error (error);
    assert_trees_agree (want_tree, strata_trace_get_zoom_tree (got), 9);
    g_assert_null (strata_trace_get_index_damage (got));
  }

  fixture_clear (&fx);
}

/* A flipped bit in the raw store: the look-up that reads the block notices
 * and leaves the lane out rather than serve what is in it. */
static void
test_flipped_raw_block (void)
{
  Fixture fx;
  gsize len;
  g_autofree guint8 *bad = NULL;
  const StrataIndexHeader *h;
  const StrataIndexLane *lanes;
  g_autoptr(StrataTrace) got = NULL;
  g_autoptr(GError) error = NULL;
  guint found = G_MAXUINT;
  guint32 channel;

  fixture_init (&fx, "lossy.dat");
  g_bytes_get_data (fx.good, &len);
  bad = g_memdup2 (g_bytes_get_data (fx.good, NULL), len);
  h = (const StrataIndexHeader *)(gconstpointer) bad;
  lanes = (const StrataIndexLane *)(gconstpointer)(bad + h->lanes_offset);
  for (guint i = 0; i < h->n_raw_lanes && found == G_MAXUINT; i++)
    if (lanes[i].n > STRATA_INDEX_ACTIVITY_BLOCK + 8)
      found = i;
  g_assert_cmpuint (found, !=, G_MAXUINT);
  /* Its channel, from the directory's entry per channel. */
  {
    const StrataIndexChannelLanes *entries = (const StrataIndexChannelLanes *)(gconstpointer)(bad + h->raw_channels_offset);

    for (channel = 0; channel < h->n_raw_channels; channel++)
      if (found >= entries[channel].first && found < entries[channel].first + __builtin_popcount (entries[channel].present))
        break;
    g_assert_cmpuint (channel, <, h->n_raw_channels);
  }

  /* A byte of the lane's second block. */
  {
    guint32 size;
    guint64 at = block_bytes (bad, lanes[found].offset, 1, &size);

    bad[at + size / 3] ^= 0x01;
  }
  write_file (fx.index_path, bad, len);

  got = strata_index_open (fx.index_path, NULL, NULL, &error);
  g_assert_no_error (error);
  {
    StrataRawStore *want_raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (fx.want));
    StrataRawStore *got_raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (got));
    g_autoptr(GArray) a = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
    g_autoptr(GArray) b = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

    strata_raw_store_query (want_raw, channel, 0, G_MAXINT64, a);
    strata_raw_store_query (got_raw, channel, 0, G_MAXINT64, b);
    g_assert_nonnull (strata_trace_get_index_damage (got));
    g_assert_nonnull (strstr (strata_trace_get_index_damage (got), "raw store"));

    /* Whatever came back is what is there: never a damaged activity. */
    g_assert_cmpuint (b->len, <, a->len);
    for (guint i = 0, j = 0; i < b->len; i++)
      {
        while (j < a->len && memcmp (&g_array_index (a, StrataActivity, j),
                                     &g_array_index (b, StrataActivity, i), sizeof (StrataActivity)) != 0)
          j++;
        g_assert_cmpuint (j, <, a->len);
      }
  }

  g_clear_object (&got);
  {
    StrataIndexOptions options = { .index_path = fx.index_path, .flags = STRATA_INDEX_OPEN_REBUILD };

    got = strata_test_load_index (fx.trace_path, NULL, &options, &error);
    g_assert_no_error (error);
    assert_trees_agree (strata_trace_get_zoom_tree (fx.want), strata_trace_get_zoom_tree (got), 11);
  }

  fixture_clear (&fx);
}

/* A flipped bit in the lane directory, in a channel's entry or in a lane
 * record: the channels whose entries or lanes share its checksummed block
 * answer nothing rather than guess (the tree reports damage in the raw
 * store), and every other channel answers exactly as before. */
static void
test_flipped_lane_directory (void)
{
  for (guint target = 0; target < 2; target++)
    {
      Fixture fx;
      gsize len;
      g_autofree guint8 *bad = NULL;
      const StrataIndexHeader *h;
      const StrataIndexChannelLanes *entries;
      g_autoptr(StrataTrace) got = NULL;
      g_autoptr(GError) error = NULL;
      StrataRawStore *want_raw, *got_raw;
      guint32 channel = G_MAXUINT32, n_left_out = 0;

      fixture_init (&fx, "sched-small.dat");
      g_bytes_get_data (fx.good, &len);
      bad = g_memdup2 (g_bytes_get_data (fx.good, NULL), len);
      h = (const StrataIndexHeader *)(gconstpointer) bad;
      entries = (const StrataIndexChannelLanes *)(gconstpointer)(bad + h->raw_channels_offset);
      for (guint32 c = 0; c < h->n_raw_channels && channel == G_MAXUINT32; c++)
        if (entries[c].present & 1u)
          channel = c;
      g_assert_cmpuint (channel, !=, G_MAXUINT32);
      if (target == 0)
        bad[h->raw_channels_offset + (gsize) channel * sizeof (StrataIndexChannelLanes) + 4] ^= 0x02;
      else
        bad[h->lanes_offset + (gsize) entries[channel].first * sizeof (StrataIndexLane) +
            G_STRUCT_OFFSET (StrataIndexLane, n)] ^= 0x04;
      write_file (fx.index_path, bad, len);

      got = strata_index_open (fx.index_path, NULL, NULL, &error);
      g_assert_no_error (error);
      want_raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (fx.want));
      got_raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (got));
      for (guint32 c = 0; c < h->n_raw_channels; c++)
        {
          g_autoptr(GArray) a = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
          g_autoptr(GArray) b = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

          strata_raw_store_query (want_raw, c, 0, G_MAXINT64, a);
          strata_raw_store_query (got_raw, c, 0, G_MAXINT64, b);
          if (b->len == a->len)
            g_assert_cmpmem (b->data, b->len * sizeof (StrataActivity), a->data, a->len * sizeof (StrataActivity));
          else
            {
              g_assert_cmpuint (b->len, ==, 0);
              n_left_out++;
            }
        }
      g_test_message ("%s flipped: %u of %u channels answer nothing", target == 0 ? "a channel's entry" : "a lane record",
                      n_left_out, h->n_raw_channels);
      g_assert_cmpuint (n_left_out, >, 0);
      g_assert_nonnull (strata_trace_get_index_damage (got));
      g_assert_nonnull (strstr (strata_trace_get_index_damage (got), "raw store"));
      g_clear_object (&got);
      fixture_clear (&fx);
    }
}

static void
test_wrong_version (void)
{
  Fixture fx;
  gsize len;
  g_autofree guint8 *bad = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  StrataIndexHeader *h;

  fixture_init (&fx, "sched-small.dat");
  g_bytes_get_data (fx.good, &len);
  bad = g_memdup2 (g_bytes_get_data (fx.good, NULL), len);
  h = (StrataIndexHeader *)(gpointer) bad;
  h->version = STRATA_INDEX_VERSION + 1;
  write_resealed (&fx, bad, len);

  trace = strata_index_open (fx.index_path, NULL, NULL, &error);
  g_assert_null (trace);
  g_assert_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED);
  assert_rebuilt (&fx, "version");

  fixture_clear (&fx);
}

/* The trace changed after it was indexed: its time, then its content. */
static void
test_source_changed (void)
{
  Fixture fx;
  struct utimbuf times = { 1000000000, 1000000000 };
  g_autofree char *other = strata_test_fixture ("sched-tgid.dat");
  g_autofree char *contents = NULL;
  gsize len;

  fixture_init (&fx, "sched-small.dat");

  g_assert_cmpint (utime (fx.trace_path, &times), ==, 0);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(StrataTrace) trace = NULL;
    StrataSourceIdentity id;

    g_assert_true (strata_source_identity_compute (fx.trace_path, &id, &error));
    trace = strata_index_open (fx.index_path, &id, NULL, &error);
    g_assert_null (trace);
    g_assert_error (error, STRATA_ERROR, STRATA_ERROR_STALE);
    g_assert_nonnull (strstr (error->message, "its time"));
  }

  /* Another recording under the same name. */
  g_assert_true (g_file_get_contents (other, &contents, &len, NULL));
  write_file (fx.trace_path, (const guint8 *) contents, len);
  g_clear_object (&fx.want);
  fx.want = reference ("sched-tgid.dat");
  assert_rebuilt (&fx, "changed");

  /* Other parameters make another tree. */
  {
    StrataZoomParams params;
    g_autoptr(GError) error = NULL;
    g_autoptr(StrataTrace) trace = NULL;
    StrataSourceIdentity id;

    strata_zoom_params_init (&params);
    params.density_threshold = 500;
    g_assert_true (strata_source_identity_compute (fx.trace_path, &id, &error));
    trace = strata_index_open (fx.index_path, &id, &params, &error);
    g_assert_null (trace);
    g_assert_error (error, STRATA_ERROR, STRATA_ERROR_STALE);
  }

  fixture_clear (&fx);
}

/* The disk fills up while the index is written (a file size limit makes
 * the writes fail as ENOSPC would): nothing is left under the final name,
 * nor a temporary file, and the trace is still answered, from memory. */
static void
test_disk_full (void)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *sub = g_build_filename (dir, "full", NULL);
  g_autofree char *trace_path = fixture_copy ("sched-small.dat", "full.dat");
  g_autofree char *index_path = g_build_filename (sub, "full" STRATA_INDEX_SUFFIX, NULL);
  g_autoptr(StrataTrace) want = reference ("sched-small.dat");
  g_autoptr(StrataTrace) got = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) listing = NULL;
  struct rlimit old, small;
  StrataSourceIdentity id;
  Notes notes = { 0, g_string_new (NULL) };
  StrataIndexOptions options = { .index_path = index_path, .note = on_note, .note_data = &notes };

  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  g_assert_true (strata_source_identity_compute (trace_path, &id, &error));

  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old), ==, 0);
  small = old;
  small.rlim_cur = 64 * 1024;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);

  g_assert_false (strata_index_write (want, &id, index_path, &error));
  g_assert_error (error, STRATA_ERROR, STRATA_ERROR_IO);
  g_clear_error (&error);

  got = strata_test_load_index (trace_path, NULL, &options, &error);

  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old), ==, 0);
  signal (SIGXFSZ, SIG_DFL);

  g_assert_no_error (error);
  g_assert_null (strata_trace_get_index_path (got));
  g_assert_cmpuint (notes.n, ==, 1);
  g_assert_nonnull (strstr (notes.messages->str, "not written"));
  g_string_free (notes.messages, TRUE);
  assert_trees_agree (strata_trace_get_zoom_tree (want), strata_trace_get_zoom_tree (got), 3);

  listing = g_dir_open (sub, 0, NULL);
  g_assert_null (g_dir_read_name (listing));
}

/* The build interrupted in the middle of writing (the file size limit's
 * signal kills the process there): nothing is left in the folder, not
 * even a temporary file. */
static void
test_interrupted (void)
{
  if (g_test_subprocess ())
    {
      const char *sub = g_getenv ("STRATA_TEST_INTERRUPTED_DIR");
      g_autofree char *trace_path = strata_test_fixture ("sched-small.dat");
      g_autofree char *index_path = g_build_filename (sub, "interrupted" STRATA_INDEX_SUFFIX, NULL);
      g_autoptr(StrataTrace) want = reference ("sched-small.dat");
      g_autoptr(GError) error = NULL;
      struct rlimit small = { 64 * 1024, 64 * 1024 }, no_core = { 0, 0 };
      StrataSourceIdentity id;

      g_assert_true (strata_source_identity_compute (trace_path, &id, &error));
      g_assert_cmpint (setrlimit (RLIMIT_CORE, &no_core), ==, 0);
      g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
      signal (SIGXFSZ, SIG_DFL);
      g_printerr ("writing\n");
      strata_index_write (want, &id, index_path, &error);
      g_printerr ("not interrupted\n");
      return;
    }

  {
    g_autofree char *dir = strata_test_tmpdir ();
    g_autofree char *sub = g_build_filename (dir, "interrupted", NULL);
    g_autoptr(GDir) listing = NULL;

    g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
    g_setenv ("STRATA_TEST_INTERRUPTED_DIR", sub, TRUE);
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_failed ();
    g_test_trap_assert_stderr ("*writing*");
    g_test_trap_assert_stderr_unmatched ("*not interrupted*");

    listing = g_dir_open (sub, 0, NULL);
    g_assert_null (g_dir_read_name (listing));
  }
}

static void
test_default_place (void)
{
  g_autofree char *trace_path = fixture_copy ("sched-small.dat", "place.dat");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *beside = g_strconcat (trace_path, STRATA_INDEX_SUFFIX, NULL);
  g_autofree char *saved = g_strdup (g_getenv ("STRATA_INDEX_DIR"));
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  StrataSourceIdentity id, other;

  g_assert_true (strata_source_identity_compute (trace_path, &id, &error));

  g_unsetenv ("STRATA_INDEX_DIR");
  path = strata_index_default_path (trace_path, &id);
  g_assert_cmpstr (path, ==, beside);
  g_clear_pointer (&path, g_free);

  /* The cache is keyed by the identity: another file, another name. */
  other = id;
  other.sample_hash ^= 1;
  path = strata_index_cache_path (&id);
  g_assert_true (g_str_has_prefix (path, g_get_user_cache_dir ()));
  g_assert_true (g_str_has_suffix (path, STRATA_INDEX_SUFFIX));
  {
    g_autofree char *path2 = strata_index_cache_path (&other);

    g_assert_cmpstr (path, !=, path2);
  }
  g_clear_pointer (&path, g_free);

  g_setenv ("STRATA_INDEX_DIR", dir, TRUE);
  path = strata_index_default_path (trace_path, &id);
  g_assert_true (g_str_has_prefix (path, dir));

  if (saved != NULL)
    g_setenv ("STRATA_INDEX_DIR", saved, TRUE);
  else
    g_unsetenv ("STRATA_INDEX_DIR");
}

/* The CLI: a damaged chunk found by `query` is said once, the index
 * rebuilt and the answer the same as without an index. */
static void
test_cli_damaged_chunk (void)
{
  Fixture fx;
  gsize len;
  g_autofree guint8 *bad = NULL;
  const StrataIndexChunk *rec;
  guint rank;
  g_autofree char *out = NULL, *err = NULL, *plain = NULL, *plain_err = NULL;

  fixture_init (&fx, "sched-small.dat");
  g_bytes_get_data (fx.good, &len);
  bad = g_memdup2 (g_bytes_get_data (fx.good, NULL), len);
  rec = first_chunk (bad, &rank);
  bad[rec->offset + len % 7] ^= 0x80;
  write_file (fx.index_path, bad, len);

  {
    StrataZoomGeometry g;
    StrataZoomTree *tree = strata_trace_get_zoom_tree (fx.want);
    g_autofree char *level = NULL, *from = NULL, *to = NULL;

    g_assert_true (strata_zoom_tree_get_geometry (tree, &g));
    level = g_strdup_printf ("%u", strata_zoom_tree_level_of_rank (tree, rank));
    from = g_strdup_printf ("%" G_GINT64_FORMAT, strata_zoom_geometry_chunk_start (&g, atoi (level), rec->index));
    to = g_strdup_printf ("%" G_GINT64_FORMAT, strata_zoom_geometry_chunk_start (&g, atoi (level), rec->index + 1));
    {
      const char *args[] = { "query", "--json", "--level", level, "--from", from, "--to", to,
                             "--index", fx.index_path, fx.trace_path, NULL };
      const char *plain_args[] = { "query", "--json", "--level", level, "--from", from, "--to", to,
                                   "--no-index", fx.trace_path, NULL };

      g_assert_cmpint (strata_test_run_cli (plain_args, &plain, &plain_err), ==, 0);
      g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
      g_assert_cmpstr (out, ==, plain);
      g_assert_nonnull (strstr (err, "rebuilding"));
      g_assert_null (strstr (strstr (err, "rebuilding") + 1, "rebuilding"));
    }
  }

  fixture_clear (&fx);
}

/* The CLI: thread rows found damaged by `stats` (checked as they are
 * first asked for) are said once, the index rebuilt and the statistics
 * the same as without an index. */
static void
test_cli_damaged_thread_rows (void)
{
  Fixture fx;
  gsize len;
  g_autofree guint8 *bad = NULL;
  const StrataIndexSection *rows;
  g_autofree char *out = NULL, *err = NULL, *plain = NULL, *plain_err = NULL;
  const char *args[] = { "stats", "--json", "--index", NULL, NULL, NULL };
  const char *plain_args[] = { "stats", "--json", "--no-index", NULL, NULL };

  fixture_init (&fx, "sched-small.dat");
  g_bytes_get_data (fx.good, &len);
  bad = g_memdup2 (g_bytes_get_data (fx.good, NULL), len);
  rows = &((const StrataIndexHeader *)(gconstpointer) bad)->sections[STRATA_INDEX_SECTION_THREAD_STATS];
  g_assert_cmpuint (rows->size, >, 0);
  bad[rows->offset + rows->size / 2] ^= 0x10;
  write_file (fx.index_path, bad, len);

  args[3] = fx.index_path;
  args[4] = fx.trace_path;
  plain_args[3] = fx.trace_path;
  g_assert_cmpint (strata_test_run_cli (plain_args, &plain, &plain_err), ==, 0);
  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
  g_assert_cmpstr (out, ==, plain);
  g_assert_nonnull (strstr (err, "thread statistics fail their checksum; rebuilding"));
  g_assert_null (strstr (strstr (err, "rebuilding") + 1, "rebuilding"));

  fixture_clear (&fx);
}

/* `stats` (from the index's metadata) answers the same through the index,
 * on the first run (which builds it) and the second (which maps it), as
 * without it; `query` is compared in test_cli_damaged_chunk(). */
static void
test_cli_same_answers (void)
{
  g_autofree char *trace_path = fixture_copy ("instances.dat", "cli.dat");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *index_path = g_build_filename (dir, "cli" STRATA_INDEX_SUFFIX, NULL);
  const char *commands[][3] = {
    { "stats", "--json", NULL },
  };

  g_unlink (index_path);
  for (guint c = 0; c < G_N_ELEMENTS (commands); c++)
    {
      g_autofree char *plain = NULL, *first = NULL, *second = NULL, *e1 = NULL, *e2 = NULL, *e3 = NULL;
      const char *plain_args[] = { commands[c][0], commands[c][1], commands[c][2], "--no-index", trace_path, NULL };
      const char *args[] = { commands[c][0], commands[c][1], commands[c][2], "--index", index_path, trace_path, NULL };

      if (commands[c][2] == NULL)
        {
          plain_args[2] = "--no-index";
          plain_args[3] = trace_path;
          plain_args[4] = NULL;
          args[2] = "--index";
          args[3] = index_path;
          args[4] = trace_path;
          args[5] = NULL;
        }

      g_assert_cmpint (strata_test_run_cli (plain_args, &plain, &e1), ==, 0);
      g_assert_cmpint (strata_test_run_cli (args, &first, &e2), ==, 0);
      g_assert_cmpint (strata_test_run_cli (args, &second, &e3), ==, 0);
      g_assert_true (g_file_test (index_path, G_FILE_TEST_EXISTS));
      if (g_str_equal (commands[c][0], "tree"))
        {
          /* The tree's "Opened in:" line says how long the open took. */
          g_assert_cmpstr (strstr (first, "Size:"), ==, strstr (plain, "Size:"));
          g_assert_cmpstr (strstr (second, "Size:"), ==, strstr (plain, "Size:"));
        }
      else
        {
          g_assert_cmpstr (first, ==, plain);
          g_assert_cmpstr (second, ==, plain);
        }
      g_assert_cmpstr (e3, ==, "");
    }

  {
    const char *args[] = { "index", "--index", index_path, trace_path, NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, index_path));
  }
}

/* The codec. */

/* Elements at the edges of what each field holds: zero and negative
 * durations, starts from the smallest time to the largest (gaps that
 * wrap), the largest ids, every flag, counts and busy times that have
 * nothing to do with the duration. */
static void
edge_items (StrataZoomItem *items,
            guint           n,
            GRand          *rand)
{
  static const gint64 times[] = {
    0, 1, -1, G_MININT64, G_MAXINT64, G_MAXINT64 - 1, G_MININT64 + 1,
    G_GINT64_CONSTANT (1) << 62, 1000000000, -(G_GINT64_CONSTANT (1) << 40),
  };
  static const guint32 ids[] = { 0, 1, G_MAXUINT32, G_MAXUINT32 - 1, 0x80000000u, 0x7fffffffu, 48742 };

  for (guint i = 0; i < n; i++)
    {
      StrataZoomItem *it = &items[i];
      guint pick = g_rand_int_range (rand, 0, 4);

      it->start = pick == 0 ? times[g_rand_int_range (rand, 0, G_N_ELEMENTS (times))]
                : pick == 1 && i > 0 ? items[i - 1].end   /* no gap */
                : (gint64) (((guint64) g_rand_int (rand) << 32) | g_rand_int (rand));
      pick = g_rand_int_range (rand, 0, 4);
      it->end = pick == 0 ? it->start                       /* zero duration */
              : pick == 1 ? times[g_rand_int_range (rand, 0, G_N_ELEMENTS (times))]
              : (gint64) ((guint64) it->start + g_rand_int_range (rand, 0, 1 << 20));
      it->channel = ids[g_rand_int_range (rand, 0, G_N_ELEMENTS (ids))];
      it->label = g_rand_boolean (rand) ? ids[g_rand_int_range (rand, 0, G_N_ELEMENTS (ids))] : g_rand_int (rand);
      it->arg = (gint32) (g_rand_boolean (rand) ? ids[g_rand_int_range (rand, 0, G_N_ELEMENTS (ids))]
                                                : g_rand_int (rand));
      it->kind = (guint8) g_rand_int_range (rand, 0, 256);
      it->state = (guint8) g_rand_int_range (rand, 0, 256);
      it->flags = (guint16) (g_rand_boolean (rand) ? 0xffff : g_rand_int_range (rand, 0, 0x10000));
      it->count = g_rand_boolean (rand) ? 1 : ids[g_rand_int_range (rand, 0, G_N_ELEMENTS (ids))];
      it->reserved = g_rand_int_range (rand, 0, 8) == 0 ? g_rand_int (rand) : 0;
      it->busy = g_rand_boolean (rand) ? (gint64) ((guint64) it->end - (guint64) it->start)
               : times[g_rand_int_range (rand, 0, G_N_ELEMENTS (times))];
    }
}

/* Every block decodes to exactly what was encoded, for activities and
 * items, varints alone and squeezed; a block one byte short or one byte
 * long, or asked for one element more, is refused. */
static void
test_codec_edge_values (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261201);
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  g_autoptr(GByteArray) packed = g_byte_array_new ();
  StrataZoomItem items[STRATA_INDEX_ITEM_BLOCK], back[STRATA_INDEX_ACTIVITY_BLOCK * 2];
  StrataActivity acts[STRATA_INDEX_ACTIVITY_BLOCK];

  for (guint round = 0; round < 300; round++)
    {
      guint n = round % 3 == 0 ? 1 + g_rand_int_range (rand, 0, 4) : STRATA_INDEX_ITEM_BLOCK;

      edge_items (items, n, rand);
      for (guint i = 0; i < n; i++)
        memcpy (&acts[i], &items[i], sizeof acts[i]);
      for (guint i = n; i < MIN (2 * n, STRATA_INDEX_ACTIVITY_BLOCK); i++)
        acts[i] = acts[i - n];

      /* Items. */
      g_byte_array_set_size (bytes, 0);
      strata_block_encode (items, n, sizeof (StrataZoomItem), bytes);
      g_assert_true (strata_block_decode (bytes->data, bytes->len, n, sizeof (StrataZoomItem), back));
      g_assert_cmpmem (items, n * sizeof (StrataZoomItem), back, n * sizeof (StrataZoomItem));
      g_assert_false (strata_block_decode (bytes->data, bytes->len - 1, n, sizeof (StrataZoomItem), back));
      g_byte_array_append (bytes, (const guint8 *) "", 1);
      g_assert_false (strata_block_decode (bytes->data, bytes->len, n, sizeof (StrataZoomItem), back));
      g_byte_array_set_size (bytes, bytes->len - 1);

      /* Activities, a block of them. */
      {
        guint na = MIN (2 * n, STRATA_INDEX_ACTIVITY_BLOCK);

        g_byte_array_set_size (bytes, 0);
        strata_block_encode (acts, na, sizeof (StrataActivity), bytes);
        g_assert_true (strata_block_decode (bytes->data, bytes->len, na, sizeof (StrataActivity), back));
        g_assert_cmpmem (acts, na * sizeof (StrataActivity), back, na * sizeof (StrataActivity));
        g_assert_false (strata_block_decode (bytes->data, bytes->len, na + 1, sizeof (StrataActivity), back));
      }

      /* What the writer stores, either way. */
      for (int level = -1; level <= 1; level++)
        {
          guint8 codec;

          strata_block_pack (items, n, sizeof (StrataZoomItem), level, packed, &codec);
          g_assert_true (codec == STRATA_INDEX_CODEC_VARINT || (level != 0 && codec == STRATA_INDEX_CODEC_ZSTD));
        }
    }
}

/* A lane's worth of activities as the model writes them: one channel,
 * each starting where the one before ended or a little after, a few
 * labels and states taking turns, the flags changing now and then, so
 * that zstd has something to squeeze (the edge values above mostly do
 * not compress). */
static void
lane_block (StrataActivity *acts,
            guint           n,
            GRand          *rand)
{
  gint64 t = (gint64) g_rand_int (rand) * 1000;

  for (guint i = 0; i < n; i++)
    {
      StrataActivity *a = &acts[i];

      a->start = t + (g_rand_int_range (rand, 0, 4) == 0 ? g_rand_int_range (rand, 0, 5000) : 0);
      a->end = a->start + g_rand_int_range (rand, 0, 1 << 16);
      a->channel = 48742;
      a->label = 17 + i % 3;
      a->arg = (gint32) (i % 2 ? 5 : -6);
      a->kind = STRATA_ACTIVITY_STATE;
      a->state = (guint8) (i % 4);
      a->flags = (guint16) (i == 0 || i % 50 == 0 ? 1u << (i / 50 % 16) : 0);
      t = a->end;
    }
}

/* A packed block, either codec, unpacks to exactly its elements, and is
 * refused one byte short, one byte long, or asked for one element more
 * or fewer; blocks of every edge value and blocks that zstd squeezes,
 * activities and items, short and full. */
static void
test_codec_packed_edges (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261202);
  g_autoptr(GByteArray) packed = g_byte_array_new ();
  ZSTD_DCtx *dctx = ZSTD_createDCtx ();
  StrataZoomItem items[STRATA_INDEX_ITEM_BLOCK], back[STRATA_INDEX_ITEM_BLOCK];
  StrataActivity acts[STRATA_INDEX_ACTIVITY_BLOCK];
  guint n_zstd = 0;

  for (guint round = 0; round < 120; round++)
    {
      guint n = round % 4 == 0 ? 1 + g_rand_int_range (rand, 0, 70) : STRATA_INDEX_ITEM_BLOCK;
      gboolean edges = round % 2 == 0;

      if (edges)
        edge_items (items, n, rand);
      else
        {
          lane_block (acts, n, rand);
          for (guint i = 0; i < n; i++)
            {
              memcpy (&items[i], &acts[i], sizeof acts[i]);
              items[i].count = 1 + (guint32) g_rand_int_range (rand, 0, 3);
              items[i].reserved = 0;
              items[i].busy = items[i].end - items[i].start - (i % 3 == 0 ? 7 : 0);
            }
        }
      if (edges)
        for (guint i = 0; i < n; i++)
          memcpy (&acts[i], &items[i], sizeof acts[i]);

      for (guint kind = 0; kind < 2; kind++)
        {
          const void *elems = kind == 0 ? (const void *) acts : (const void *) items;
          guint32 size = kind == 0 ? sizeof (StrataActivity) : sizeof (StrataZoomItem);

          static const int levels[] = { 0, STRATA_INDEX_ZSTD_LEVEL, 3 };

          for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
            {
              int level = levels[l];
              guint8 codec;

              strata_block_pack (elems, n, size, level, packed, &codec);
              g_assert_true (codec == STRATA_INDEX_CODEC_VARINT || (level != 0 && codec == STRATA_INDEX_CODEC_ZSTD));
              n_zstd += codec == STRATA_INDEX_CODEC_ZSTD;
              if (!edges && n == STRATA_INDEX_ITEM_BLOCK && level > 0)
                g_assert_cmpint (codec, ==, STRATA_INDEX_CODEC_ZSTD);

              memset (back, 0xa5, sizeof back);
              g_assert_true (strata_block_unpack (packed->data, packed->len, codec, n, size, dctx, back));
              g_assert_cmpmem (elems, (gsize) n * size, back, (gsize) n * size);
              g_assert_true (strata_block_unpack (packed->data, packed->len, codec, n, size, NULL, back));
              g_assert_cmpmem (elems, (gsize) n * size, back, (gsize) n * size);

              g_assert_false (strata_block_unpack (packed->data, packed->len - 1, codec, n, size, dctx, back));
              g_assert_false (strata_block_unpack (packed->data, packed->len, codec, n + 1, size, dctx, back));
              g_assert_false (strata_block_unpack (packed->data, packed->len, codec, n - 1, size, dctx, back));
              g_assert_false (strata_block_unpack (packed->data, packed->len, codec, n,
                                                         kind == 0 ? sizeof (StrataZoomItem) : sizeof (StrataActivity),
                                                         dctx, back));
              g_byte_array_append (packed, (const guint8 *) "", 1);
              g_assert_false (strata_block_unpack (packed->data, packed->len, codec, n, size, dctx, back));
            }
        }
    }
  /* Both codecs were reached. */
  g_assert_cmpuint (n_zstd, >, 50);
  ZSTD_freeDCtx (dctx);
}

typedef struct
{
  const StrataActivity *acts;
  guint                 n;
  int                   level;
  GByteArray           *out;
} PackJob;

static gpointer
pack_in_thread (gpointer data)
{
  PackJob *job = data;
  guint8 codec;

  strata_block_pack (job->acts, job->n, sizeof (StrataActivity), job->level, job->out, &codec);
  g_assert_cmpint (codec, ==, STRATA_INDEX_CODEC_ZSTD);
  return NULL;
}

/* The packer keeps a zstd context per thread: whatever it packed before
 * and at whatever level, and in whichever thread, a block packs to the
 * bytes a fresh context gives it (ZSTD_compress over its varint
 * columns), so the same trace still gives the same index. */
static void
test_codec_reused_context (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (77);
  g_autoptr(GByteArray) plain = g_byte_array_new ();
  g_autoptr(GByteArray) packed = g_byte_array_new ();
  g_autoptr(GByteArray) fresh = g_byte_array_new ();
  StrataActivity acts[STRATA_INDEX_ACTIVITY_BLOCK];
  static const int levels[] = { 3, 1, -1, 3, 5, -1, 2, -3 };

  for (guint round = 0; round < 40; round++)
    {
      int level = levels[round % G_N_ELEMENTS (levels)];
      guint n = round % 5 == 0 ? 100 + round : STRATA_INDEX_ACTIVITY_BLOCK;
      guint8 codec;
      gsize got;

      lane_block (acts, n, rand);
      g_byte_array_set_size (plain, 0);
      strata_block_encode (acts, n, sizeof (StrataActivity), plain);
      g_byte_array_set_size (fresh, (guint) ZSTD_compressBound (plain->len));
      got = ZSTD_compress (fresh->data, fresh->len, plain->data, plain->len, level);
      g_assert_false (ZSTD_isError (got));
      g_byte_array_set_size (fresh, (guint) got);

      strata_block_pack (acts, n, sizeof (StrataActivity), level, packed, &codec);
      g_assert_cmpint (codec, ==, STRATA_INDEX_CODEC_ZSTD);
      g_assert_cmpmem (packed->data, packed->len, fresh->data, fresh->len);

      if (round % 8 == 0)
        {
          g_autoptr(GByteArray) other = g_byte_array_new ();
          PackJob job = { acts, n, level, other };
          GThread *thread = g_thread_new ("pack", pack_in_thread, &job);

          g_thread_join (thread);
          g_assert_cmpmem (other->data, other->len, fresh->data, fresh->len);
        }
    }
}

/* Blocks longer than the file's (the writer never makes them, the
 * varints take any length) still round-trip through the varint codec. */
static void
test_codec_long_block (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  g_autoptr(GByteArray) packed = g_byte_array_new ();
  guint n = 3 * STRATA_INDEX_ACTIVITY_BLOCK + 11;
  g_autofree StrataActivity *acts = g_new (StrataActivity, n);
  g_autofree StrataActivity *back = g_new (StrataActivity, n);
  guint8 codec;

  lane_block (acts, n, rand);
  strata_block_pack (acts, n, sizeof (StrataActivity), 0, packed, &codec);
  g_assert_cmpint (codec, ==, STRATA_INDEX_CODEC_VARINT);
  g_assert_true (strata_block_decode (packed->data, packed->len, n, sizeof (StrataActivity), back));
  g_assert_cmpmem (acts, n * sizeof *acts, back, n * sizeof *back);
  /* The reader's side refuses a block of more than a block's elements. */
  g_assert_false (strata_block_unpack (packed->data, packed->len, codec, n, sizeof (StrataActivity), NULL, back));
}

/* A packed array as the writer lays it out in a file: the blocks, their
 * records, the records' checksums. */
static GBytes *
packed_file (const StrataZoomItem *items,
             guint                 n,
             int                   zstd_level,
             guint64              *table,
             guint64              *sums)
{
  g_autoptr(GByteArray) file = g_byte_array_new ();
  g_autoptr(GByteArray) block = g_byte_array_new ();
  g_autoptr(GArray) records = g_array_new (FALSE, FALSE, sizeof (StrataIndexBlock));
  static const guint8 zeros[8];

  g_byte_array_append (file, zeros, 8);
  for (guint first = 0; first < n; first += STRATA_INDEX_ITEM_BLOCK)
    {
      StrataIndexBlock rec = { 0 };

      rec.n = MIN (STRATA_INDEX_ITEM_BLOCK, n - first);
      strata_block_pack (items + first, rec.n, sizeof (StrataZoomItem), zstd_level, block, &rec.codec);
      rec.offset = file->len;
      rec.size = block->len;
      rec.checksum = strata_index_checksum (block->data, block->len);
      g_byte_array_append (file, block->data, block->len);
      g_array_append_val (records, rec);
    }
  g_byte_array_append (file, zeros, (8 - file->len % 8) % 8);
  *table = file->len;
  g_byte_array_append (file, (const guint8 *) records->data, records->len * sizeof (StrataIndexBlock));
  *sums = file->len;
  for (guint b = 0; b < records->len; b += STRATA_INDEX_TABLE_BLOCK)
    {
      guint64 sum = strata_index_checksum (&g_array_index (records, StrataIndexBlock, b),
                                           MIN (STRATA_INDEX_TABLE_BLOCK, records->len - b) *
                                           sizeof (StrataIndexBlock));

      g_byte_array_append (file, (const guint8 *) &sum, sizeof sum);
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&file));
}

/* Items read back from a packed array equal what went in, whatever range
 * is asked (across blocks, a last short block), also past the cache (which
 * such reads leave empty); the cache of decoded
 * blocks answers repeated reads the same and never holds more than its
 * slots whatever is read; a block whose bytes change is refused, said,
 * and stays refused. */
static void
test_codec_packed_array (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (4);
  guint n = 40 * STRATA_INDEX_ITEM_BLOCK + 37;
  g_autofree StrataZoomItem *items = g_new (StrataZoomItem, n);

  edge_items (items, n, rand);
  for (int level = 0; level <= 1; level++)
    {
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(StrataIndexMap) map = NULL;
      g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
      StrataPackedArray pa;
      guint64 table, sums;

      bytes = packed_file (items, n, level, &table, &sums);
      map = strata_index_map_new_from_bytes (bytes);
      g_assert_true (strata_packed_array_init (&pa, map, table, sums, n, sizeof (StrataZoomItem),
                                               STRATA_INDEX_ITEM_BLOCK, "test items"));
      /* A reader that keeps its blocks reads them past the cache. */
      for (guint64 b = 0; b * STRATA_INDEX_ITEM_BLOCK < n; b++)
        {
          StrataZoomItem block[STRATA_INDEX_ITEM_BLOCK];
          guint got = strata_packed_array_read_block_direct (&pa, b, block);

          g_assert_cmpuint (got, ==, MIN (STRATA_INDEX_ITEM_BLOCK, n - b * STRATA_INDEX_ITEM_BLOCK));
          g_assert_cmpmem (block, got * sizeof (StrataZoomItem), items + b * STRATA_INDEX_ITEM_BLOCK,
                           got * sizeof (StrataZoomItem));
        }
      g_assert_cmpuint (strata_block_cache_get_size (strata_index_map_get_cache (map)), ==, 0);
      g_assert_false (strata_packed_array_append (&pa, n - 1, 2, out));
      for (guint k = 0; k < 400; k++)
        {
          guint from = g_rand_int_range (rand, 0, n);
          guint count = g_rand_int_range (rand, 0, MIN (n - from, 3 * STRATA_INDEX_ITEM_BLOCK) + 1);

          g_array_set_size (out, 0);
          g_assert_true (strata_packed_array_append (&pa, from, count, out));
          g_assert_cmpuint (out->len, ==, count);
          g_assert_cmpmem (out->data, count * sizeof (StrataZoomItem), items + from,
                           count * sizeof (StrataZoomItem));
        }
      g_assert_cmpuint (strata_block_cache_get_size (strata_index_map_get_cache (map)), <=,
                        STRATA_BLOCK_CACHE_SLOTS * STRATA_BLOCK_CACHE_SLOT_BYTES);
      g_assert_null (strata_index_map_get_damage (map));
      strata_packed_array_clear (&pa);
    }

  /* A damaged block, with no cache in front of it yet. */
  {
    guint64 table, sums;
    g_autoptr(GBytes) good = packed_file (items, n, 1, &table, &sums);
    gsize len;
    guint8 *bad = g_bytes_unref_to_data (g_bytes_ref (good), &len);
    const StrataIndexBlock *rec = (const StrataIndexBlock *)(gconstpointer)(bad + table) + 3;
    g_autoptr(GBytes) bytes = NULL;
    g_autoptr(StrataIndexMap) map = NULL;
    g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
    StrataPackedArray pa;

    bad[rec->offset + rec->size / 2] ^= 0x10;
    bytes = g_bytes_new_take (bad, len);
    map = strata_index_map_new_from_bytes (bytes);
    g_assert_true (strata_packed_array_init (&pa, map, table, sums, n, sizeof (StrataZoomItem),
                                             STRATA_INDEX_ITEM_BLOCK, "test items"));
    g_assert_true (strata_packed_array_append (&pa, 0, 3 * STRATA_INDEX_ITEM_BLOCK, out));
    g_assert_null (strata_index_map_get_damage (map));
    for (int twice = 0; twice < 2; twice++)
      {
        g_array_set_size (out, 5);
        g_assert_false (strata_packed_array_append (&pa, 3 * STRATA_INDEX_ITEM_BLOCK + 1, 2, out));
        g_assert_cmpuint (out->len, ==, 5);
      }
    g_assert_nonnull (strstr (strata_index_map_get_damage (map), "test items: block 3"));
    g_array_set_size (out, 0);
    g_assert_true (strata_packed_array_append (&pa, 4 * STRATA_INDEX_ITEM_BLOCK, 10, out));
    g_assert_cmpmem (out->data, 10 * sizeof (StrataZoomItem), items + 4 * STRATA_INDEX_ITEM_BLOCK,
                     10 * sizeof (StrataZoomItem));
    strata_packed_array_clear (&pa);
  }
}

/* The lanes read in place: strata_raw_store_get_lane() on the mapped
 * store (what the viewer's event list reads) gives the in-memory store's
 * [first, end) for any range, and a lane opened with
 * strata_raw_store_open_lane() reads every activity, walked forwards
 * and backwards across its packed blocks, as the in-memory lane has it. */
static void
test_lanes_in_place (void)
{
  Fixture fx;
  g_autoptr(StrataTrace) got = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  StrataRawStore *want_raw, *got_raw;
  gint64 t0, t1;
  guint n_long = 0;

  fixture_init (&fx, "lossy.dat");
  got = strata_index_open (fx.index_path, NULL, NULL, &error);
  g_assert_no_error (error);
  want_raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (fx.want));
  got_raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (got));
  t0 = strata_trace_get_start (fx.want);
  t1 = strata_trace_get_end (fx.want) + 1;
  g_assert_cmpuint (strata_raw_store_get_n_channels (got_raw), ==, strata_raw_store_get_n_channels (want_raw));

  for (guint32 c = 0; c < strata_raw_store_get_n_channels (want_raw); c++)
    for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
      {
        guint wf, we, gf, ge;
        const StrataActivity *w = strata_raw_store_get_lane (want_raw, c, l, G_MININT64 / 2, G_MAXINT64 / 2, &wf, &we);
        StrataRawLane lane;

        g_assert_cmpint (strata_raw_store_open_lane (got_raw, c, l, G_MININT64 / 2, G_MAXINT64 / 2,
                                                     &lane, &gf, &ge), ==, w != NULL);
        if (w == NULL)
          continue;
        g_assert_cmpuint (gf, ==, wf);
        g_assert_cmpuint (ge, ==, we);
        n_long += we > STRATA_RAW_STORE_BLOCK;
        for (guint i = we; i > 0; i--)
          g_assert_cmpmem (strata_raw_lane_get (&lane, i - 1), sizeof (StrataActivity), &w[i - 1], sizeof (StrataActivity));
        for (guint i = 0; i < we; i++)
          g_assert_cmpmem (strata_raw_lane_get (&lane, i), sizeof (StrataActivity), &w[i], sizeof (StrataActivity));
        g_assert_null (strata_raw_lane_get (&lane, we));

        for (guint k = 0; k < 8; k++)
          {
            gint64 a = t0 + (gint64) (g_rand_double (rand) * (t1 - t0));
            gint64 b = a + (gint64) (g_rand_double (rand) * (t1 - a)) / (k % 4 + 1);
            const StrataActivity *g;

            w = strata_raw_store_get_lane (want_raw, c, l, a, b, &wf, &we);
            g = strata_raw_store_get_lane (got_raw, c, l, a, b, &gf, &ge);
            g_assert_cmpuint (gf, ==, wf);
            g_assert_cmpuint (ge, ==, we);
            g_assert_nonnull (g);
            if (we > wf)
              g_assert_cmpmem (&g[gf], (ge - gf) * sizeof (StrataActivity), &w[wf], (we - wf) * sizeof (StrataActivity));
          }
      }
  g_assert_cmpuint (n_long, >, 0);
  g_assert_null (strata_trace_get_index_damage (got));

  g_clear_object (&got);
  fixture_clear (&fx);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/index/codec/edge-values", test_codec_edge_values);
  g_test_add_func ("/strata/index/codec/packed-array", test_codec_packed_array);
  g_test_add_func ("/strata/index/codec/packed-edges", test_codec_packed_edges);
  g_test_add_func ("/strata/index/codec/reused-context", test_codec_reused_context);
  g_test_add_func ("/strata/index/codec/long-block", test_codec_long_block);
  g_test_add_func ("/strata/index/round-trip/fixtures", test_round_trip_fixtures);
  g_test_add_func ("/strata/index/round-trip/generated-streams", test_round_trip_streams);
  g_test_add_func ("/strata/index/round-trip/spilled", test_round_trip_spilled);
  g_test_add_func ("/strata/index/round-trip/large-answer", test_round_trip_large_answer);
  g_test_add_func ("/strata/index/round-trip/threads", test_threads);
  g_test_add_func ("/strata/index/round-trip/lanes-in-place", test_lanes_in_place);
  g_test_add_func ("/strata/index/fault/truncated", test_truncated);
  g_test_add_func ("/strata/index/fault/flipped-header", test_flipped_header);
  g_test_add_func ("/strata/index/fault/flipped-sections", test_flipped_sections);
  g_test_add_func ("/strata/index/fault/flipped-chunk", test_flipped_chunk);
  g_test_add_func ("/strata/index/fault/flipped-raw-block", test_flipped_raw_block);
  g_test_add_func ("/strata/index/fault/flipped-lane-directory", test_flipped_lane_directory);
  g_test_add_func ("/strata/index/fault/wrong-version", test_wrong_version);
  g_test_add_func ("/strata/index/fault/source-changed", test_source_changed);
  g_test_add_func ("/strata/index/fault/disk-full", test_disk_full);
  g_test_add_func ("/strata/index/fault/interrupted", test_interrupted);
  g_test_add_func ("/strata/index/fault/written-does-not-read-back", test_written_does_not_read_back);
  g_test_add_func ("/strata/index/place", test_default_place);
  g_test_add_func ("/strata/index/cli/damaged-chunk", test_cli_damaged_chunk);
  g_test_add_func ("/strata/index/cli/damaged-thread-rows", test_cli_damaged_thread_rows);
  g_test_add_func ("/strata/index/cli/same-answers", test_cli_same_answers);

  return g_test_run ();
}
