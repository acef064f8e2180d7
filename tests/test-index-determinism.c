/* test-index-determinism.c
 *
 * The same trace gives the same index, byte for byte, whatever the
 * conditions that must not matter: the levels pipelined in their own
 * thread or not, the raw store spilling from the first activity, from a
 * few thousand or never, and the finished chunks spilled from the first,
 * from a few kilobytes or never (the writer then copies their packed
 * blocks, or packs them again when they were packed at another zstd
 * level), the raw store's tails spilled for a tiny budget and brought
 * back, and its blocks packed at another level than the writer's. Each fixture and a generated text trace (eight
 * CPUs, softirqs, and an exec of a new program every few dozen events, so
 * the reader and the model both have strings to intern all along the
 * pass, the raw store spills and the levels have many chunks) are indexed
 * under several conditions, and every file must equal the first; one is
 * opened and must answer as a build in memory does. Both causes this caught (stack padding in the stats rows,
 * string ids that followed which thread interned first) show as soon as
 * two files are compared. The statistics' thread rows merged from runs
 * in a spill file give the bytes of one sort of them in memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "strata-block-codec.h"
#include "strata-block-packer.h"
#include "strata-chunk-keys.h"
#include "strata-index-private.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-trace-private.h"
#include "strata-zoom-tree-private.h"
#include "strata-test-support.h"

/* A trace.dat, one with buffer instances, and a text trace: each load of
 * a trace.dat pays for libtraceevent's plugins, and the sanitizer build
 * must stay fast. */
static const char *fixtures[] = {
  "sched-small.dat", "instances.dat", "lossy.txt",
};

typedef struct
{
  const char *pipelined;   /* STRATA_ZOOM_PIPELINED, NULL: unset */
  const char *spill_from;  /* STRATA_RAW_STORE_SPILL_FROM, NULL: unset */
  const char *chunks_from; /* STRATA_ZOOM_CHUNK_SPILL_FROM, NULL: unset */
  const char *budget;      /* STRATA_RAW_STORE_BUDGET, NULL: unset */
  const char *pool;        /* STRATA_ZOOM_POOL_BUDGET, NULL: unset */
  const char *count;       /* STRATA_ZOOM_COUNT_SWITCH, NULL: unset */
} Condition;

static const Condition conditions[] = {
  { NULL, NULL, NULL },
  { "1", "0", "0" },
  { "0", "0", NULL },
  { "1", "3000", "20000" },
  { "0", "1000000000", "0" },
  { "1", NULL, "1000000000000" },
  /* The raw store's tails spilled for a tiny budget, as short blocks
   * brought back (from the packer's queue or its file) when they grow. */
  { "1", "0", "0", "4096" },
  /* The levels' pools spilled at every segment, their lanes that do not
   * pay counted from a spill on, or not. */
  { "0", NULL, NULL, NULL, "1" },
  { "1", NULL, NULL, NULL, "8192", "0" },
};

static void
set_or_unset (const char *name,
              const char *value)
{
  if (value != NULL)
    g_setenv (name, value, TRUE);
  else
    g_unsetenv (name);
}

static void
on_note (const char *message,
         gpointer    user_data)
{
  g_test_message ("note: %s", message);
}

/* Indexes @trace_path into @index_path under @c; returns the file. */
static GBytes *
index_under (const char             *trace_path,
             const StrataZoomParams *params,
             const char             *index_path,
             const Condition        *c)
{
  StrataIndexOptions options = {
    .index_path = index_path,
    .flags = STRATA_INDEX_OPEN_REBUILD,
    .note = on_note,
  };
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  char *contents = NULL;
  gsize len = 0;

  set_or_unset ("STRATA_ZOOM_PIPELINED", c->pipelined);
  set_or_unset ("STRATA_RAW_STORE_SPILL_FROM", c->spill_from);
  set_or_unset ("STRATA_ZOOM_CHUNK_SPILL_FROM", c->chunks_from);
  set_or_unset ("STRATA_RAW_STORE_BUDGET", c->budget);
  set_or_unset ("STRATA_ZOOM_POOL_BUDGET", c->pool);
  set_or_unset ("STRATA_ZOOM_COUNT_SWITCH", c->count);
  trace = strata_test_load_index (trace_path, params, &options, &error);
  g_unsetenv ("STRATA_RAW_STORE_BUDGET");
  g_unsetenv ("STRATA_ZOOM_POOL_BUDGET");
  g_unsetenv ("STRATA_ZOOM_COUNT_SWITCH");
  g_unsetenv ("STRATA_ZOOM_PIPELINED");
  g_unsetenv ("STRATA_RAW_STORE_SPILL_FROM");
  g_unsetenv ("STRATA_ZOOM_CHUNK_SPILL_FROM");
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_cmpstr (strata_trace_get_index_path (trace), ==, index_path);

  g_assert_true (g_file_get_contents (index_path, &contents, &len, NULL));
  return g_bytes_new_take (contents, len);
}

/* Where two files first differ, so a failure says which part it is in. */
static void
assert_same_bytes (GBytes     *want,
                   GBytes     *got,
                   const char *what)
{
  gsize n_want, n_got;
  const guint8 *a = g_bytes_get_data (want, &n_want);
  const guint8 *b = g_bytes_get_data (got, &n_got);

  for (gsize i = 0; i < MIN (n_want, n_got); i++)
    if (a[i] != b[i])
      g_error ("%s: the index differs first at byte %" G_GSIZE_FORMAT " (of %" G_GSIZE_FORMAT ")",
               what, i, n_want);
  g_assert_cmpuint (n_want, ==, n_got);
}

/* Each level over the whole trace, every channel: the same items, their
 * labels the same strings. */
static void
assert_queries_equal (StrataTrace *want,
                      StrataTrace *got)
{
  StrataZoomTree *tw = strata_trace_get_zoom_tree (want);
  StrataZoomTree *tg = strata_trace_get_zoom_tree (got);
  StrataZoomGeometry gw, gg;
  gboolean has;

  g_assert_nonnull (tw);
  g_assert_nonnull (tg);
  has = strata_zoom_tree_get_geometry (tw, &gw);
  g_assert_cmpint (has, ==, strata_zoom_tree_get_geometry (tg, &gg));
  if (!has)
    return;
  g_assert_cmpuint (gw.n_levels, ==, gg.n_levels);
  for (guint level = 0; level < gw.n_levels; level++)
    {
      guint shift = level * gw.factor_log2;
      gint64 chunk = shift < gw.root_log2 ? (gint64) 1 << (gw.root_log2 - shift) : 1;
      gint64 start = strata_trace_get_start (want);
      gint64 span = strata_trace_get_end (want) - start + 1;

      /* Two chunks' worth at the start, the middle and the end: every
       * level, without aggregating the whole trace at 1 ns a pixel. */
      for (guint at = 0; at < 3; at++)
        {
          g_autoptr(GArray) iw = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
          g_autoptr(GArray) ig = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
          gint64 from = start + (span / 2) * at - (at == 2 ? 2 * chunk : 0);
          gint64 to = from + 2 * chunk;

          strata_zoom_tree_query (tw, level, from, to, NULL, 0, iw, NULL);
          strata_zoom_tree_query (tg, level, from, to, NULL, 0, ig, NULL);
          g_assert_cmpuint (iw->len, ==, ig->len);
          for (guint i = 0; i < iw->len; i++)
            {
              const StrataZoomItem *a = &g_array_index (iw, StrataZoomItem, i);
              const StrataZoomItem *b = &g_array_index (ig, StrataZoomItem, i);

              g_assert_cmpint (a->start, ==, b->start);
              g_assert_cmpint (a->end, ==, b->end);
              g_assert_cmpuint (a->channel, ==, b->channel);
              g_assert_cmpstr (strata_trace_get_string (want, a->label), ==,
                               strata_trace_get_string (got, b->label));
              g_assert_cmpint (a->arg, ==, b->arg);
              g_assert_cmpuint (a->kind, ==, b->kind);
              g_assert_cmpuint (a->state, ==, b->state);
              g_assert_cmpuint (a->count, ==, b->count);
              g_assert_cmpint (a->busy, ==, b->busy);
            }
        }
    }
}

/* The opened index describes the trace as a load without one does. */
static void
assert_answers_equal (const char             *trace_path,
                      const StrataZoomParams *params,
                      const char             *index_path)
{
  StrataIndexOptions options = { .index_path = index_path, .note = on_note };
  g_autoptr(StrataTrace) want = NULL;
  g_autoptr(StrataTrace) got = NULL;
  g_autoptr(GError) error = NULL;
  const StrataChannel *cw, *cg;
  guint ncw, ncg;
  const StrataEventCount *ew, *eg;
  guint new_, neg;

  want = strata_test_load_in_memory (trace_path, params, &error);
  g_assert_no_error (error);
  g_assert_null (strata_trace_get_index_path (want));
  got = strata_test_load_index (trace_path, params, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (strata_trace_get_index_path (got), ==, index_path);

  g_assert_cmpuint (strata_trace_get_n_events (want), ==, strata_trace_get_n_events (got));
  g_assert_cmpint (strata_trace_get_start (want), ==, strata_trace_get_start (got));
  g_assert_cmpint (strata_trace_get_end (want), ==, strata_trace_get_end (got));

  cw = strata_trace_get_channels (want, &ncw);
  cg = strata_trace_get_channels (got, &ncg);
  g_assert_cmpuint (ncw, ==, ncg);
  for (guint i = 0; i < ncw; i++)
    {
      g_assert_cmpuint (cw[i].kind, ==, cg[i].kind);
      g_assert_cmpint (cw[i].id, ==, cg[i].id);
      g_assert_cmpstr (strata_trace_get_string (want, cw[i].name), ==,
                       strata_trace_get_string (got, cg[i].name));
      g_assert_cmpuint (strata_trace_get_context_switches (want, i), ==,
                        strata_trace_get_context_switches (got, i));
    }

  ew = strata_trace_get_event_counts (want, &new_);
  eg = strata_trace_get_event_counts (got, &neg);
  g_assert_cmpuint (new_, ==, neg);
  for (guint i = 0; i < new_; i++)
    {
      g_assert_cmpstr (strata_trace_get_string (want, ew[i].name), ==,
                       strata_trace_get_string (got, eg[i].name));
      g_assert_cmpuint (ew[i].count, ==, eg[i].count);
    }

  assert_queries_equal (want, got);
}

/* The first @n_conditions conditions, @repeats times each; the answers
 * compared once, on a spilled, pipelined build (the others have the
 * same bytes). */
static void
check_trace (const char             *trace_path,
             const StrataZoomParams *params,
             const char             *what,
             guint                   n_conditions,
             guint                   repeats)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *first_path = g_build_filename (dir, "first" STRATA_INDEX_SUFFIX, NULL);
  g_autoptr(GBytes) first = index_under (trace_path, params, first_path, &conditions[0]);

  for (guint r = 0; r < repeats; r++)
    for (guint c = 0; c < MIN (n_conditions, G_N_ELEMENTS (conditions)); c++)
      {
        g_autofree char *path = g_strdup_printf ("%s/again-%u-%u" STRATA_INDEX_SUFFIX, dir, r, c);
        g_autofree char *label = g_strdup_printf ("%s, pipelined %s, spill from %s, chunks from %s, run %u", what,
                                                  conditions[c].pipelined ? conditions[c].pipelined : "default",
                                                  conditions[c].spill_from ? conditions[c].spill_from : "default",
                                                  conditions[c].chunks_from ? conditions[c].chunks_from : "default",
                                                  r);
        g_autoptr(GBytes) again = index_under (trace_path, params, path, &conditions[c]);

        assert_same_bytes (first, again, label);
        if (r == 0 && c == 1)
          assert_answers_equal (trace_path, params, path);
        g_unlink (path);
      }
  g_unlink (first_path);
}

static void
test_fixtures (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);

      check_trace (path, NULL, fixtures[f], 3, 1);
    }
}

/* A text trace: @n_cpus CPUs each switching among its threads, with
 * wakeups, softirqs and, every few dozen events, a thread that execs a
 * program no one ran before. */
static char *
generated_text_trace (guint n_events)
{
  g_autofree char *dir = strata_test_tmpdir ();
  char *path = g_build_filename (dir, "generated.txt", NULL);
  GString *out = g_string_new ("# tracer: nop\n#\n");
  const guint n_cpus = 8;
  gint cur[8];
  guint64 ts = 1000000000;   /* ns: 1 s */
  guint32 seed = 7;
  guint n_programs = 0;

  for (guint c = 0; c < n_cpus; c++)
    cur[c] = 0;

  for (guint i = 0; i < n_events; i++)
    {
      guint c;
      guint kind;
      gint next;
      char comm[32], next_comm[32];

      seed = seed * 1103515245u + 12345u;
      c = (seed >> 8) % n_cpus;
      kind = (seed >> 16) % 64;
      ts += 1 + ((seed >> 4) % 3000);
      if (cur[c] == 0)
        g_snprintf (comm, sizeof comm, "swapper/%u", c);
      else
        g_snprintf (comm, sizeof comm, "t%d", cur[c]);

#define PREFIX "%16s-%-7d [%03u] d..2. %6" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT ": "
#define PREFIX_ARGS comm, cur[c], c, ts / 1000000000, (ts / 1000) % 1000000
      if (kind < 4 && cur[c] != 0)
        {
          /* A program no one ran before, so a new comm to intern. */
          g_string_append_printf (out, PREFIX "sched_process_exec: filename=/opt/p%u/prog-%u pid=%d old_pid=%d\n",
                                  PREFIX_ARGS, n_programs, n_programs, cur[c], cur[c]);
          n_programs++;
        }
      else if (kind < 10)
        {
          guint vec = (seed >> 20) % 10;

          g_string_append_printf (out, PREFIX "softirq_entry: vec=%u [action=X]\n", PREFIX_ARGS, vec);
          ts += 1 + (seed >> 24) % 200;
          g_string_append_printf (out, PREFIX "softirq_exit: vec=%u [action=X]\n", PREFIX_ARGS, vec);
          i++;
        }
      else if (kind < 20)
        {
          gint target = 100 + (gint) ((seed >> 12) % 300);

          g_string_append_printf (out, PREFIX "sched_wakeup: comm=t%d pid=%d prio=120 target_cpu=%03u\n",
                                  PREFIX_ARGS, target, target, c);
        }
      else
        {
          next = (kind % 5 == 0) ? 0 : 100 + (gint) ((seed >> 12) % 300);
          if (next == 0)
            g_snprintf (next_comm, sizeof next_comm, "swapper/%u", c);
          else
            g_snprintf (next_comm, sizeof next_comm, "t%d", next);
          g_string_append_printf (out, PREFIX "sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s ==> "
                                  "next_comm=%s next_pid=%d next_prio=120\n",
                                  PREFIX_ARGS, comm, cur[c], (seed >> 28) % 2 ? "S" : "R", next_comm, next);
          cur[c] = next;
        }
#undef PREFIX
#undef PREFIX_ARGS
    }

  g_assert_true (g_file_set_contents (path, out->str, out->len, NULL));
  g_string_free (out, TRUE);
  return path;
}

static void
test_generated (void)
{
  g_autofree char *path = generated_text_trace (25000);
  StrataZoomParams params;

  /* Small chunks, so there are many and some of them are stored. */
  strata_zoom_params_init (&params);
  params.pixels_per_chunk = 256;
  params.density_threshold = 100;
  check_trace (path, &params, "generated", G_N_ELEMENTS (conditions), 1);
  g_unlink (path);
}

/* The thread rows of the statistics merged from sorted runs in a spill
 * file (STRATA_STATS_ROWS_BUDGET of one row a run, and of a few) give
 * the index the bytes that one sort of them in memory gives, and the
 * opened index's rows are those of a load without an index. */
static void
check_rows_spilled (const char             *trace_path,
                    const StrataZoomParams *params,
                    const char             *what)
{
  static const char *budgets[] = { "112", "1000" };
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *first_path = g_build_filename (dir, "first" STRATA_INDEX_SUFFIX, NULL);
  g_autoptr(GBytes) first = index_under (trace_path, params, first_path, &conditions[0]);

  for (guint b = 0; b < G_N_ELEMENTS (budgets); b++)
    {
      g_autofree char *path = g_strdup_printf ("%s/rows-%s" STRATA_INDEX_SUFFIX, dir, budgets[b]);
      g_autofree char *label = g_strdup_printf ("%s, thread rows in runs of %s bytes", what, budgets[b]);
      StrataIndexOptions options = { .index_path = path, .note = on_note };
      g_autoptr(StrataTrace) want = NULL;
      g_autoptr(StrataTrace) got = NULL;
      g_autoptr(GBytes) again = NULL;
      g_autoptr(GError) error = NULL;
      const StrataStats *sw, *sg;

      g_setenv ("STRATA_STATS_ROWS_BUDGET", budgets[b], TRUE);
      again = index_under (trace_path, params, path, &conditions[0]);
      g_unsetenv ("STRATA_STATS_ROWS_BUDGET");
      assert_same_bytes (first, again, label);

      want = strata_test_load_in_memory (trace_path, params, &error);
      g_assert_no_error (error);
      got = strata_test_load_index (trace_path, params, &options, &error);
      g_assert_no_error (error);
      sw = strata_trace_get_stats (want);
      sg = strata_trace_get_stats (got);
      g_assert_nonnull (sw);
      g_assert_nonnull (sg);
      /* More rows than a run holds: the merge had runs to merge. */
      g_assert_cmpuint (sw->threads->len, >, 1000 / sizeof (StrataThreadStats));
      g_assert_cmpuint (sw->threads->len, ==, sg->threads->len);
      g_assert_cmpmem (sw->threads->data, sw->threads->len * sizeof (StrataThreadStats),
                       sg->threads->data, sg->threads->len * sizeof (StrataThreadStats));
      g_unlink (path);
    }
  g_unlink (first_path);
}

static void
test_rows_spilled (void)
{
  g_autofree char *generated = generated_text_trace (25000);

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);

      check_rows_spilled (path, NULL, fixtures[f]);
    }
  check_rows_spilled (generated, NULL, "generated");
  g_unlink (generated);
}

/* Chunks spilled during a pass whose packer used another zstd level
 * than the writer: the writer packs their items again, and the index is
 * the one a pass that kept them writes; as it is when they were packed
 * at the writer's level, and copied. */
static void
test_chunks_packed_again (void)
{
  g_autofree char *path = generated_text_trace (8000);
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *want_path = g_build_filename (dir, "kept" STRATA_INDEX_SUFFIX, NULL);
  g_autofree char *got_path = g_build_filename (dir, "again" STRATA_INDEX_SUFFIX, NULL);
  const Condition kept = { NULL, NULL, "1000000000000" };
  g_autoptr(GBytes) want = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataStatsBuilder) stats = strata_stats_builder_new ();
  g_autoptr(GError) error = NULL;
  StrataSourceIdentity identity;
  StrataZoomParams params;
  StrataZoomChunkMemory memory;
  char *contents = NULL;
  gsize len = 0;

  /* Every dense chunk stored, so there are many. */
  strata_zoom_params_init (&params);
  params.pixels_per_chunk = 256;
  params.density_threshold = 100;
  params.min_reduction = 1;
  want = index_under (path, &params, want_path, &kept);

  /* The pass with chunks spilled at level 1 ... */
  g_setenv ("STRATA_ZOOM_CHUNK_SPILL_FROM", "0", TRUE);
  g_setenv ("STRATA_INDEX_ZSTD_LEVEL", "1", TRUE);
  trace = strata_test_load_full (path, FALSE, strata_stats_builder_add, strata_stats_builder_close, stats, &params, NULL, NULL, &error);
  g_unsetenv ("STRATA_ZOOM_CHUNK_SPILL_FROM");
  g_unsetenv ("STRATA_INDEX_ZSTD_LEVEL");
  g_assert_no_error (error);
  strata_trace_set_stats (trace, strata_stats_builder_finish (stats, trace));
  strata_zoom_tree_get_chunk_memory (strata_trace_get_zoom_tree (trace), &memory);
  g_test_message ("%u chunks spilled, %" G_GUINT64_FORMAT " bytes of items", memory.n_spilled, memory.spilled);
  g_assert_cmpuint (memory.n_spilled, >, 0);

  /* ... written at the default one. */
  g_assert_true (strata_source_identity_compute (path, &identity, &error));
  g_assert_no_error (error);
  g_assert_true (strata_index_write (trace, &identity, got_path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (got_path, &contents, &len, NULL));
  {
    g_autoptr(GBytes) got = g_bytes_new_take (contents, len);

    assert_same_bytes (want, got, "chunks packed at zstd level 1, written at the default");
  }

  /* And spilled past 20 kB at the default level: copied as they are. */
  {
    const Condition partly = { NULL, NULL, "20000" };
    g_autoptr(GBytes) copied = index_under (path, &params, got_path, &partly);

    assert_same_bytes (want, copied, "chunks spilled past 20 kB, copied");
  }

  g_unlink (want_path);
  g_unlink (got_path);
  g_unlink (path);
}

/* The raw store's blocks spilled during a pass whose packer used another
 * zstd level than the writer: the writer packs them again from the
 * packer, and the index is the one a pass that kept them in memory
 * writes. */
static void
test_raw_store_packed_again (void)
{
  g_autofree char *path = generated_text_trace (8000);
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *want_path = g_build_filename (dir, "kept" STRATA_INDEX_SUFFIX, NULL);
  g_autofree char *got_path = g_build_filename (dir, "again" STRATA_INDEX_SUFFIX, NULL);
  const Condition kept = { NULL, "1000000000000", NULL, NULL };
  g_autoptr(GBytes) want = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataStatsBuilder) stats = strata_stats_builder_new ();
  g_autoptr(GError) error = NULL;
  StrataSourceIdentity identity;
  StrataZoomParams params;
  StrataRawStore *raw;
  char *contents = NULL;
  gsize len = 0;

  strata_zoom_params_init (&params);
  params.pixels_per_chunk = 256;
  params.density_threshold = 100;
  want = index_under (path, &params, want_path, &kept);

  /* Every block spilled, tails too, packed at level 1 ... */
  g_setenv ("STRATA_RAW_STORE_SPILL_FROM", "0", TRUE);
  g_setenv ("STRATA_RAW_STORE_BUDGET", "16384", TRUE);
  g_setenv ("STRATA_INDEX_ZSTD_LEVEL", "1", TRUE);
  trace = strata_test_load_full (path, FALSE, strata_stats_builder_add, strata_stats_builder_close, stats, &params, NULL, NULL, &error);
  g_unsetenv ("STRATA_RAW_STORE_SPILL_FROM");
  g_unsetenv ("STRATA_RAW_STORE_BUDGET");
  g_unsetenv ("STRATA_INDEX_ZSTD_LEVEL");
  g_assert_no_error (error);
  strata_trace_set_stats (trace, strata_stats_builder_finish (stats, trace));
  raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (trace));
  g_test_message ("%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " activities spilled, %" G_GUINT64_FORMAT
                  " brought back", strata_raw_store_get_spilled (raw), strata_raw_store_get_size (raw),
                  strata_raw_store_get_unspilled (raw));
  g_assert_cmpuint (strata_raw_store_get_spilled (raw), >, strata_raw_store_get_size (raw) / 2);
  g_assert_cmpuint (strata_raw_store_get_unspilled (raw), >, 0);

  /* ... written at the default one. */
  g_assert_true (strata_source_identity_compute (path, &identity, &error));
  g_assert_no_error (error);
  g_assert_true (strata_index_write (trace, &identity, got_path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (got_path, &contents, &len, NULL));
  {
    g_autoptr(GBytes) got = g_bytes_new_take (contents, len);

    assert_same_bytes (want, got, "raw store packed at zstd level 1, written at the default");
  }

  g_unlink (want_path);
  g_unlink (got_path);
  g_unlink (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/index-determinism/fixtures", test_fixtures);
  g_test_add_func ("/strata/index-determinism/generated", test_generated);
  g_test_add_func ("/strata/index-determinism/chunks-packed-again", test_chunks_packed_again);
  g_test_add_func ("/strata/index-determinism/raw-store-packed-again", test_raw_store_packed_again);
  g_test_add_func ("/strata/index-determinism/thread-rows-spilled", test_rows_spilled);

  return g_test_run ();
}
