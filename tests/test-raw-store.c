/* test-raw-store.c
 *
 * The raw store against brute force on real recordings: every range query
 * returns exactly the activities that overlap the range, found by scanning
 * them all. Also checks the property the store stands on: on a channel at
 * one nesting depth, the kernel model's intervals never overlap. And a
 * store that spills its lanes to disk while it is built keeps its own
 * accounted resident bytes under a bound on a stream far larger, while
 * answering every query as the store held in memory does; and one that
 * takes tens of thousands of short-lived channels keeps their tails to
 * its budget of bytes, as exactly. Spilled blocks go to a block packer;
 * with its thread held, every one is still in its queue when a short
 * last block is brought back or a lane is read, and the store answers as
 * exactly then, and after the packer has written them all. A channel's
 * bookkeeping costs the few lanes it uses, not a slot for every lane; and
 * a channel whose thread exited costs its own entry once its records are
 * sealed in the spill file (opened again when a late interval comes), the
 * store answering exactly the same. A store whose long lanes keep their
 * older tickets and fences in pages in the spill file answers as one
 * that keeps them in memory (late intervals, seals and reopenings
 * included, from several threads), writes the same index, and holds
 * about the same bytes as a lane grows tenfold. A thread that reads a
 * spilling store keeps decoded copies of its blocks, and reads exactly
 * what a store without copies gives while the store grows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-block-packer.h"
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
  "sched-small.dat", "sched-tgid.txt", "lossy.dat", "instances.dat",
};

static int
compare_activities (gconstpointer pa,
                    gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;

  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  if (a->end != b->end) return a->end < b->end ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->flags != b->flags) return a->flags < b->flags ? -1 : 1;
  if (a->label != b->label) return a->label < b->label ? -1 : 1;
  return a->arg < b->arg ? -1 : a->arg > b->arg;
}

static gboolean
overlaps (const StrataActivity *a,
          gint64                t0,
          gint64                t1)
{
  /* Instants and intervals of no length are where they start. */
  if (strata_activity_is_instant (a) || a->start == a->end)
    return a->start >= t0 && a->start < t1;
  return a->start < t1 && a->end > t0;
}

static void
test_lanes_do_not_overlap (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = strata_test_load (path, &error);
      g_autoptr(GHashTable) last_end = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      const StrataActivity *activities;
      gsize n;

      g_assert_no_error (error);
      activities = strata_trace_get_activities (trace, &n);

      /* In the order the model completes them, lane by lane. */
      for (gsize i = 0; i < n; i++)
        {
          const StrataActivity *a = &activities[i];
          gint64 key;
          gint64 *end;

          if (strata_activity_is_instant (a))
            continue;
          key = ((gint64) a->channel << 8) | strata_activity_get_depth (a);
          end = g_hash_table_lookup (last_end, &key);
          if (end != NULL && a->start < *end)
            g_error ("%s: channel %u depth %u: %s %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT
                     " overlaps the previous, which ends at %" G_GINT64_FORMAT,
                     fixtures[f], a->channel, strata_activity_get_depth (a),
                     strata_activity_kind_to_string (a->kind), a->start, a->end, *end);
          if (end == NULL)
            {
              end = g_new (gint64, 1);
              g_hash_table_insert (last_end, g_memdup2 (&key, sizeof key), end);
            }
          *end = a->end;
        }
    }
}

static void
test_query_equals_brute_force (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataRawStore) store = strata_raw_store_new ();
      g_autoptr(StrataTrace) trace = strata_test_load_full (path, TRUE, strata_raw_store_add, NULL, store, NULL, NULL, NULL, &error);
      const StrataActivity *activities;
      gsize n;
      guint n_channels;
      gint64 start, end;

      g_assert_no_error (error);
      activities = strata_trace_get_activities (trace, &n);
      strata_trace_get_channels (trace, &n_channels);
      start = strata_trace_get_start (trace);
      end = strata_trace_get_end (trace);
      g_assert_cmpuint (strata_raw_store_get_size (store), ==, n);

      for (guint q = 0; q < 400; q++)
        {
          g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
          g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
          guint32 channel = g_rand_int_range (rand, 0, n_channels);
          gint64 span = MAX (end - start, 1);
          gint64 t0 = start - span / 10 + (gint64) (g_rand_double (rand) * span * 1.2);
          gint64 len = (gint64) (g_rand_double (rand) * g_rand_double (rand) * span);
          gint64 t1 = t0 + MAX (len, 1);

          strata_raw_store_query (store, channel, t0, t1, got);
          for (gsize i = 0; i < n; i++)
            if (activities[i].channel == channel && overlaps (&activities[i], t0, t1))
              g_array_append_val (want, activities[i]);

          g_array_sort (got, compare_activities);
          g_array_sort (want, compare_activities);
          g_assert_cmpuint (got->len, ==, want->len);
          g_assert_cmpmem (got->data, got->len * sizeof (StrataActivity),
                           want->data, want->len * sizeof (StrataActivity));
        }
    }
}

/* A made-up stream far larger than the bound: CHANNELS channels, each with
 * three nesting depths of intervals that never overlap and a lane of
 * instants; now and then an interval is left out and comes much later
 * (past the blocks its lane keeps in memory), as a late activity does. */
#define SPILL_CHANNELS  6
#define SPILL_N         500000
#define SPILL_LATE      20000
#define SPILL_BOUND     (G_GUINT64_CONSTANT (3) << 19)   /* 1.5 MiB */

typedef struct
{
  StrataActivity a;
  guint          due;
} Late;

/* The made-up stream: one in @late_one_in intervals is held back for
 * @late_min to @late_max activities. */
typedef struct
{
  GRand  *rand;
  GArray *late;         /* Late, by due */
  gint64  cursor[SPILL_CHANNELS][4];
  gint64  last;         /* the latest end so far */
  guint   n_late;
  guint   late_one_in;
  guint   late_min;
  guint   late_max;
} Stream;

static void
stream_init (Stream *st,
             guint32 seed,
             guint   late_one_in,
             guint   late_min,
             guint   late_max)
{
  memset (st, 0, sizeof *st);
  st->rand = g_rand_new_with_seed (seed);
  st->late = g_array_new (FALSE, FALSE, sizeof (Late));
  st->late_one_in = late_one_in;
  st->late_min = late_min;
  st->late_max = late_max;
}

static void
stream_clear (Stream *st)
{
  g_rand_free (st->rand);
  g_array_unref (st->late);
}

/* The @i-th activity of the stream into @a; FALSE when it is held back
 * (nothing to add this time). */
static gboolean
stream_next (Stream         *st,
             guint           i,
             StrataActivity *a)
{
  guint32 c = g_rand_int_range (st->rand, 0, SPILL_CHANNELS);
  guint l = g_rand_int_range (st->rand, 0, 4);

  memset (a, 0, sizeof *a);
  if (st->late->len > 0 && g_array_index (st->late, Late, 0).due <= i)
    {
      *a = g_array_index (st->late, Late, 0).a;
      g_array_remove_index (st->late, 0);
      st->n_late++;
      return TRUE;
    }

  a->start = st->cursor[c][l] + g_rand_int_range (st->rand, 0, 1000);
  a->end = a->start + (l < 3 ? g_rand_int_range (st->rand, 1, 5000) : 0);
  a->channel = c;
  a->label = g_rand_int_range (st->rand, 0, 50);
  a->arg = g_rand_int_range (st->rand, -1, 40000);
  a->kind = l < 3 ? STRATA_ACTIVITY_IRQ : STRATA_ACTIVITY_EVENT;
  a->flags = l < 3 ? l << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT : 0;
  st->cursor[c][l] = a->end + (l == 3);
  st->last = MAX (st->last, a->end);
  if (l < 3 && g_rand_int_range (st->rand, 0, st->late_one_in) == 0)
    {
      Late hole = { *a, i + (st->late_min == st->late_max ? st->late_min
                             : (guint) g_rand_int_range (st->rand, st->late_min, st->late_max)) };

      g_array_append_val (st->late, hole);
      return FALSE;
    }
  return TRUE;
}

static void
assert_stores_equal_on (StrataRawStore *want,
                        StrataRawStore *got,
                        guint32         n_channels,
                        gint64          last,
                        GRand          *rand,
                        guint           n_queries)
{
  g_assert_cmpuint (strata_raw_store_get_size (got), ==, strata_raw_store_get_size (want));
  g_assert_cmpuint (strata_raw_store_get_n_channels (got), ==, strata_raw_store_get_n_channels (want));

  for (guint q = 0; q < n_queries; q++)
    {
      g_autoptr(GArray) w = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      g_autoptr(GArray) g = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      guint32 c = g_rand_int_range (rand, 0, n_channels);
      guint l = g_rand_int_range (rand, 0, STRATA_RAW_STORE_N_LANES);
      gint64 t0 = (gint64) (g_rand_double (rand) * last);
      gint64 t1 = t0 + (gint64) (g_rand_double (rand) * g_rand_double (rand) * (last - t0)) + 1;
      const StrataActivity *wl, *gl;
      guint wf, we, gf, ge;

      strata_raw_store_query (want, c, t0, t1, w);
      strata_raw_store_query (got, c, t0, t1, g);
      g_assert_cmpuint (g->len, ==, w->len);
      g_assert_cmpmem (g->data, g->len * sizeof (StrataActivity), w->data, w->len * sizeof (StrataActivity));

      /* The range in place, as the chunk builder reads it. */
      wl = strata_raw_store_get_lane (want, c, l, t0, t1, &wf, &we);
      gl = strata_raw_store_get_lane (got, c, l, t0, t1, &gf, &ge);
      g_assert_cmpint (gl != NULL, ==, wl != NULL);
      g_assert_cmpuint (gf, ==, wf);
      g_assert_cmpuint (ge, ==, we);
      if (we > wf)
        g_assert_cmpmem (&gl[gf], (ge - gf) * sizeof (StrataActivity), &wl[wf], (we - wf) * sizeof (StrataActivity));
    }
}

static void
assert_stores_equal (StrataRawStore *want,
                     StrataRawStore *got,
                     gint64          last,
                     GRand          *rand,
                     guint           n_queries)
{
  assert_stores_equal_on (want, got, SPILL_CHANNELS, last, rand, n_queries);
}

/* Every lane of every channel read whole, forwards and backwards across
 * its blocks; returns how many lanes have more than @blocks blocks. */
static guint
assert_lanes_equal (StrataRawStore *want,
                    StrataRawStore *got,
                    guint32         n_channels,
                    guint           blocks)
{
  guint n_long = 0;

  for (guint32 c = 0; c < n_channels; c++)
    for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
      {
        StrataRawLane wl, gl;
        guint wf, we, gf, ge;
        gboolean has = strata_raw_store_open_lane (want, c, l, G_MININT64 / 2, G_MAXINT64 / 2, &wl, &wf, &we);

        g_assert_cmpint (strata_raw_store_open_lane (got, c, l, G_MININT64 / 2, G_MAXINT64 / 2, &gl, &gf, &ge), ==, has);
        if (!has)
          continue;
        g_assert_cmpuint (gf, ==, wf);
        g_assert_cmpuint (ge, ==, we);
        n_long += we > blocks * STRATA_RAW_STORE_BLOCK;
        for (guint i = we; i > 0; i--)
          g_assert_cmpmem (strata_raw_lane_get (&gl, i - 1), sizeof (StrataActivity),
                           strata_raw_lane_get (&wl, i - 1), sizeof (StrataActivity));
        for (guint i = 0; i < we; i++)
          g_assert_cmpmem (strata_raw_lane_get (&gl, i), sizeof (StrataActivity),
                           strata_raw_lane_get (&wl, i), sizeof (StrataActivity));
        g_assert_null (strata_raw_lane_get (&gl, we));
      }
  return n_long;
}

static void
test_spill_bounded (void)
{
  g_autoptr(StrataRawStore) want = strata_raw_store_new ();
  g_autoptr(StrataRawStore) got = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  StrataParameters parameters;
  Stream st;
  guint64 peak = 0;
  guint n_late, n_long = 0;
  gint64 last;

  /* What waits for the packer counts too: a queue held well under the
   * bound (the store's own is 8 MiB). */
  strata_parameters_init (&parameters);
  parameters.raw_spill_queue = 262144;
  got = strata_raw_store_new_with_parameters (&parameters);
  strata_raw_store_set_spill (want, G_MAXUINT64, 0);
  strata_raw_store_set_spill (got, 0, 0);
  stream_init (&st, 12, 5000, SPILL_LATE, SPILL_LATE);

  for (guint i = 0; i < SPILL_N; i++)
    {
      StrataActivity a;

      if (!stream_next (&st, i, &a))
        continue;
      strata_raw_store_add (&a, want);
      strata_raw_store_add (&a, got);

      if (i % 1009 == 0)
        {
          peak = MAX (peak, strata_raw_store_get_resident_bytes (got));
          g_assert_cmpuint (strata_raw_store_get_resident_bytes (got), <=, SPILL_BOUND);
        }
      /* Read while it is being built, as the viewer does while loading. */
      if (i % 50021 == 0)
        assert_stores_equal (want, got, st.last, rand, 40);
    }
  for (guint k = 0; k < st.late->len; k++)
    {
      strata_raw_store_add (&g_array_index (st.late, Late, k).a, want);
      strata_raw_store_add (&g_array_index (st.late, Late, k).a, got);
      st.n_late++;
    }
  n_late = st.n_late;
  last = st.last;
  stream_clear (&st);

  g_test_message ("resident: %" G_GUINT64_FORMAT " bytes spilling (peak %" G_GUINT64_FORMAT "), %"
                  G_GUINT64_FORMAT " in memory; %" G_GUINT64_FORMAT " activities spilled, %u late",
                  strata_raw_store_get_resident_bytes (got), peak,
                  strata_raw_store_get_resident_bytes (want), strata_raw_store_get_spilled (got), n_late);
  g_assert_cmpuint (strata_raw_store_get_resident_bytes (got), <=, SPILL_BOUND);
  g_assert_cmpuint (strata_raw_store_get_resident_bytes (want), >, 8 * SPILL_BOUND);
  g_assert_cmpuint (strata_raw_store_get_spilled (got), >, SPILL_N / 2);
  g_assert_cmpuint (n_late, >, 20);
  assert_stores_equal (want, got, last, rand, 400);

  /* Every lane read whole, forwards and backwards across its blocks. */
  n_long = assert_lanes_equal (want, got, SPILL_CHANNELS, 4);
  g_assert_cmpuint (n_long, ==, SPILL_CHANNELS * 4);
}

/* The decoded blocks a reading thread keeps: a thread other than the
 * builder (as the window's frames are) reads a store that spills while
 * late activities bring short blocks back into their lanes and send them
 * out again, and between reads the store grows; every read, forwards and
 * backwards, and every query, equals the same store's without copies
 * (and the store in memory), and the copies are there (the reader's
 * share of the resident bytes is bigger). A few copies, so blocks
 * evict each other. */
#define COPIES_N      160000
#define COPIES_EVERY  20011

typedef struct
{
  GAsyncQueue    *ask;
  GAsyncQueue    *done;
  StrataRawStore *want;
  StrataRawStore *cached;
  StrataRawStore *uncached;
  gint64          last;
  guint           n_reads;
} CopiesReader;

static gpointer
copies_reader (gpointer data)
{
  CopiesReader *r = data;
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);

  while (g_async_queue_pop (r->ask) != r)
    {
      /* Twice: the second read finds what the first one copied. */
      for (guint k = 0; k < 2; k++)
        {
          assert_lanes_equal (r->uncached, r->cached, SPILL_CHANNELS, 1);
          assert_lanes_equal (r->want, r->cached, SPILL_CHANNELS, 1);
          assert_stores_equal (r->uncached, r->cached, r->last, rand, 20);
        }
      r->n_reads++;
      g_async_queue_push (r->done, r);
    }
  return NULL;
}

static void
test_block_copies_equal_uncached (void)
{
  g_autoptr(StrataRawStore) want = strata_raw_store_new ();
  g_autoptr(StrataRawStore) cached = NULL;
  g_autoptr(StrataRawStore) uncached = NULL;
  g_autoptr(GAsyncQueue) ask = g_async_queue_new ();
  g_autoptr(GAsyncQueue) done = g_async_queue_new ();
  StrataParameters parameters;
  CopiesReader reader = { ask, done, want, NULL, NULL, 0, 0 };
  Stream st;
  guint n_late;
  GThread *thread;

  strata_parameters_init (&parameters);
  parameters.raw_block_copies = 16;
  cached = strata_raw_store_new_with_parameters (&parameters);
  parameters.raw_block_copies = 0;
  uncached = strata_raw_store_new_with_parameters (&parameters);
  strata_raw_store_set_spill (want, G_MAXUINT64, 0);
  strata_raw_store_set_spill (cached, 0, 0);
  strata_raw_store_set_spill (uncached, 0, 0);
  reader.cached = cached;
  reader.uncached = uncached;
  stream_init (&st, 23, 1000, 100, 3 * COPIES_EVERY);
  thread = g_thread_new ("copies-reader", copies_reader, &reader);

  for (guint i = 0; i < COPIES_N; i++)
    {
      StrataActivity a;

      if (!stream_next (&st, i, &a))
        continue;
      reader.last = st.last;
      strata_raw_store_add (&a, want);
      strata_raw_store_add (&a, cached);
      strata_raw_store_add (&a, uncached);

      if (i % COPIES_EVERY == COPIES_EVERY - 1)
        {
          g_async_queue_push (ask, &reader.n_reads);
          g_assert_true (g_async_queue_pop (done) == &reader);
        }
    }
  n_late = st.n_late;
  stream_clear (&st);

  g_async_queue_push (ask, &reader.n_reads);
  g_assert_true (g_async_queue_pop (done) == &reader);
  g_async_queue_push (ask, &reader);
  g_thread_join (thread);

  g_test_message ("%u late activities; resident %" G_GUINT64_FORMAT " bytes with copies, %" G_GUINT64_FORMAT
                  " without", n_late, strata_raw_store_get_resident_bytes (cached),
                  strata_raw_store_get_resident_bytes (uncached));
  g_assert_cmpuint (reader.n_reads, ==, COPIES_N / COPIES_EVERY + 1);
  g_assert_cmpuint (n_late, >, 20);
  g_assert_cmpuint (strata_raw_store_get_unspilled (cached), >, 0);
  g_assert_cmpuint (strata_raw_store_get_resident_bytes (cached), >,
                    strata_raw_store_get_resident_bytes (uncached));
}

/* Thread generations: a reused tid is a new channel, so a long trace has
 * tens of thousands of channels, most of them with lanes shorter than a
 * block, and a channel whose thread exited never gets another activity.
 * SHORT_LIVE channels are alive at a time, each for a few activities (one
 * in 200 for hundreds or more); now and then an interval comes late, after its
 * channel's tail may have been spilled. */
#define SHORT_N       240000
#define SHORT_LIVE    24
#define SHORT_LATE    3000
#define SHORT_BUDGET  (G_GUINT64_CONSTANT (1) << 20)

static void
test_spill_short_lanes_budget (void)
{
  g_autoptr(StrataRawStore) want = strata_raw_store_new ();
  g_autoptr(StrataRawStore) got = strata_raw_store_new ();
  g_autoptr(StrataRawStore) sealed = strata_raw_store_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (23);
  g_autoptr(GArray) late = g_array_new (FALSE, FALSE, sizeof (Late));
  guint32 live[SHORT_LIVE];
  guint left[SHORT_LIVE];
  gint64 cursor[SHORT_LIVE][3] = { { 0 } };
  guint32 n_channels = 0;
  guint64 peak = 0, tails;
  guint n_late = 0;
  gint64 now = 0, last = 0;

  strata_raw_store_set_spill (want, G_MAXUINT64, 0);
  strata_raw_store_set_spill (got, 0, 0);
  strata_raw_store_set_budget (got, SHORT_BUDGET);
  strata_raw_store_set_spill (sealed, 0, 0);
  strata_raw_store_set_budget (sealed, SHORT_BUDGET);

  for (guint s = 0; s < SHORT_LIVE; s++)
    {
      live[s] = n_channels++;
      left[s] = g_rand_int_range (rand, 1, 12);
    }

  for (guint i = 0; i < SHORT_N; i++)
    {
      StrataActivity a = { 0 };

      if (late->len > 0 && g_array_index (late, Late, 0).due <= i)
        {
          a = g_array_index (late, Late, 0).a;
          g_array_remove_index (late, 0);
          n_late++;
        }
      else
        {
          guint s = g_rand_int_range (rand, 0, SHORT_LIVE);
          guint l = g_rand_int_range (rand, 0, 3);
          gint64 len = l < 2 ? g_rand_int_range (rand, 1, 3000) : 0;
          guint32 exited = G_MAXUINT32;

          now += g_rand_int_range (rand, 0, 200);
          a.start = MAX (cursor[s][l], now) + g_rand_int_range (rand, 0, 100);
          a.end = a.start + len;
          a.channel = live[s];
          a.label = g_rand_int_range (rand, 0, 50);
          a.arg = g_rand_int_range (rand, -1, 40000);
          a.kind = l < 2 ? STRATA_ACTIVITY_IRQ : STRATA_ACTIVITY_EVENT;
          a.flags = l < 2 ? l << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT : 0;
          cursor[s][l] = a.end + (l == 2);
          last = MAX (last, a.end);

          if (--left[s] == 0)
            {
              /* The thread exits; its tid comes back as a new channel. */
              exited = live[s];
              live[s] = n_channels++;
              left[s] = g_rand_int_range (rand, 0, 200) == 0 ? g_rand_int_range (rand, 300, 1500)
                                                              : g_rand_int_range (rand, 1, 9);
              memset (cursor[s], 0, sizeof cursor[s]);
            }
          if (l < 2 && g_rand_int_range (rand, 0, 400) == 0)
            {
              Late hole = { a, i + SHORT_LATE };

              g_array_append_val (late, hole);
              a.channel = G_MAXUINT32;
            }
          if (a.channel != G_MAXUINT32)
            {
              strata_raw_store_add (&a, want);
              strata_raw_store_add (&a, got);
              strata_raw_store_add (&a, sealed);
            }
          /* The third store is told of the exit; an interval that comes
           * late opens its channel again. */
          if (exited != G_MAXUINT32)
            strata_raw_store_close_channel (sealed, exited);
          if (a.channel == G_MAXUINT32)
            continue;
          goto added;
        }

      strata_raw_store_add (&a, want);
      strata_raw_store_add (&a, got);
      strata_raw_store_add (&a, sealed);
    added:

      if (i % 997 == 0)
        g_assert_cmpuint (strata_raw_store_get_tail_bytes (got, NULL), <=, SHORT_BUDGET);
      /* Read while it is being built, as the viewer does while loading. */
      if (i % 40009 == 0)
        {
          assert_stores_equal_on (want, got, n_channels, last, rand, 200);
          assert_stores_equal_on (want, sealed, n_channels, last, rand, 200);
        }
    }
  for (guint k = 0; k < late->len; k++)
    {
      strata_raw_store_add (&g_array_index (late, Late, k).a, want);
      strata_raw_store_add (&g_array_index (late, Late, k).a, got);
      strata_raw_store_add (&g_array_index (late, Late, k).a, sealed);
      n_late++;
    }

  tails = strata_raw_store_get_tail_bytes (got, &peak);
  g_test_message ("%u channels; tails %" G_GUINT64_FORMAT " bytes (peak %" G_GUINT64_FORMAT ") against %"
                  G_GUINT64_FORMAT " in memory; resident %" G_GUINT64_FORMAT " against %" G_GUINT64_FORMAT
                  "; %" G_GUINT64_FORMAT " activities spilled, %u late",
                  n_channels, tails, peak, strata_raw_store_get_tail_bytes (want, NULL),
                  strata_raw_store_get_resident_bytes (got), strata_raw_store_get_resident_bytes (want),
                  strata_raw_store_get_spilled (got), n_late);
  g_assert_cmpuint (n_channels, >, 20000);
  g_assert_cmpuint (peak, <=, SHORT_BUDGET);
  g_assert_cmpuint (strata_raw_store_get_tail_bytes (want, NULL), >, 4 * SHORT_BUDGET);
  g_assert_cmpuint (strata_raw_store_get_spilled (got), >, SHORT_N * 3 / 4);
  g_assert_cmpuint (n_late, >, 100);
  assert_stores_equal_on (want, got, n_channels, last, rand, 2000);
  g_assert_cmpuint (assert_lanes_equal (want, got, n_channels, 1), >, 10);

  /* Told of the exits, a store keeps only a channel's own entry for
   * nearly all of them; it answers all the same, lane by lane. */
  g_test_message ("told of the exits: %" G_GUINT64_FORMAT " channels sealed, resident %" G_GUINT64_FORMAT
                  " bytes, %" G_GUINT64_FORMAT " of them tails, %.1f bytes a channel besides (%.1f untold)",
                  strata_raw_store_get_n_sealed (sealed), strata_raw_store_get_resident_bytes (sealed),
                  strata_raw_store_get_tail_bytes (sealed, NULL),
                  (double) (strata_raw_store_get_resident_bytes (sealed) - strata_raw_store_get_tail_bytes (sealed, NULL)) / n_channels,
                  (double) (strata_raw_store_get_resident_bytes (got) - tails) / n_channels);
  g_assert_cmpuint (strata_raw_store_get_n_sealed (sealed), >, n_channels * 8 / 10);
  g_assert_cmpuint (strata_raw_store_get_resident_bytes (sealed) - strata_raw_store_get_tail_bytes (sealed, NULL), <,
                    (strata_raw_store_get_resident_bytes (got) - tails) / 4);
  g_assert_cmpuint (strata_raw_store_get_size (sealed), ==, strata_raw_store_get_size (want));
  assert_stores_equal_on (want, sealed, n_channels, last, rand, 2000);
  g_assert_cmpuint (assert_lanes_equal (want, sealed, n_channels, 1), >, 10);

  /* The last seals were still staged, read from the stage; as the index
   * writer reads them (the stage written, the file read through
   * windows), and after, they answer the same. */
  {
    guint64 n_sealed = strata_raw_store_get_n_sealed (sealed);

    strata_raw_store_open_windows (sealed, 0);
    g_assert_cmpuint (strata_raw_store_get_n_sealed (sealed), ==, n_sealed);
    assert_stores_equal_on (want, sealed, n_channels, last, rand, 2000);
    g_assert_cmpuint (assert_lanes_equal (want, sealed, n_channels, 1), >, 10);
    strata_raw_store_close_windows (sealed);
    assert_stores_equal_on (want, sealed, n_channels, last, rand, 500);
  }
}

/* Many short channels, each using a few of its 17 lanes, taken in any
 * order: the store's own count of what it holds besides the activities
 * stays under FEW_LANES_BOUND bytes per channel (a slot per possible lane
 * was 424 bytes per channel alone, three GArrays per lane 193 in all on
 * this stream), and every lane answers as the brute
 * force over what was added. */
#define FEW_LANES_CHANNELS 6000
#define FEW_LANES_BOUND    192

static void
test_few_lanes_per_channel (void)
{
  g_autoptr(StrataRawStore) store = strata_raw_store_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autoptr(GArray) added = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  guint64 resident, tails;

  strata_raw_store_set_spill (store, G_MAXUINT64, 0);
  for (guint32 c = 0; c < FEW_LANES_CHANNELS; c++)
    {
      /* One to three lanes, the instants' lane or depths, in any order. */
      guint n_lanes = g_rand_int_range (rand, 1, 4);

      for (guint k = 0; k < n_lanes; k++)
        {
          guint l = g_rand_int_range (rand, 0, STRATA_RAW_STORE_N_LANES);
          StrataActivity a = { 0 };

          a.start = (gint64) c * 1000 + k * 10;
          a.end = l == STRATA_RAW_STORE_N_LANES - 1 ? a.start : a.start + 5;
          a.channel = c;
          a.label = k;
          a.kind = l == STRATA_RAW_STORE_N_LANES - 1 ? STRATA_ACTIVITY_EVENT : STRATA_ACTIVITY_IRQ;
          a.flags = l < STRATA_RAW_STORE_N_LANES - 1 ? l << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT : 0;
          strata_raw_store_add (&a, store);
          g_array_append_val (added, a);
        }
    }

  resident = strata_raw_store_get_resident_bytes (store);
  tails = strata_raw_store_get_tail_bytes (store, NULL);
  g_test_message ("%u channels, %u activities: %" G_GUINT64_FORMAT " bytes resident, %" G_GUINT64_FORMAT
                  " of activities", FEW_LANES_CHANNELS, added->len, resident, tails);
  g_assert_cmpuint (resident - tails, <=, (guint64) FEW_LANES_CHANNELS * FEW_LANES_BOUND);

  for (guint32 c = 0, from = 0; c < FEW_LANES_CHANNELS; c++)
    {
      guint to = from;

      /* They were added channel by channel. */
      while (to < added->len && g_array_index (added, StrataActivity, to).channel == c)
        to++;
      for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
        {
          guint first, end, n_want = 0;
          const StrataActivity *lane = strata_raw_store_get_lane (store, c, l, 0, G_MAXINT64, &first, &end);

          for (guint i = from; i < to; i++)
            {
              const StrataActivity *a = &g_array_index (added, StrataActivity, i);
              guint al = strata_activity_is_instant (a) ? STRATA_RAW_STORE_N_LANES - 1
                                                        : strata_activity_get_depth (a);

              if (a->channel != c || al != l)
                continue;
              g_assert_nonnull (lane);
              g_assert_cmpuint (first + n_want, <, end);
              g_assert_cmpmem (&lane[first + n_want], sizeof *a, a, sizeof *a);
              n_want++;
            }
          if (n_want == 0)
            g_assert_true (lane == NULL || end == first);
          else
            g_assert_cmpuint (end - first, ==, n_want);
        }
      from = to;
    }
}

/* Channels taken up in turns: HELD_ACTIVE of HELD_CHANNELS are appended
 * to for HELD_TURN activities, then others, so the budget spills the
 * tails of those left (as short blocks) and their next turn brings them
 * back, all while the packer's thread is held. */
#define HELD_CHANNELS 40
#define HELD_ACTIVE   4
#define HELD_TURN     1500
#define HELD_N        60000
#define HELD_BUDGET   (G_GUINT64_CONSTANT (64) << 10)

static void
test_spill_held_in_queue (void)
{
  g_autoptr(StrataRawStore) want = strata_raw_store_new ();
  g_autoptr(StrataRawStore) got = strata_raw_store_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (31);
  g_autoptr(GError) error = NULL;
  StrataBlockPacker *packer = strata_block_packer_new ((gsize) 64 << 20, STRATA_INDEX_ZSTD_LEVEL, &error);
  StrataBlockPackerStats stats;
  gint64 cursor[HELD_CHANNELS][3] = { { 0 } };
  guint32 active[HELD_ACTIVE] = { 0 };
  gint64 now = 0, last = 0;

  g_assert_no_error (error);
  strata_block_packer_set_held (packer, TRUE);
  strata_raw_store_set_spill (want, G_MAXUINT64, 0);
  strata_raw_store_set_spill (got, 0, 0);
  strata_raw_store_set_budget (got, HELD_BUDGET);
  strata_raw_store_set_packer (got, packer);

  for (guint i = 0; i < HELD_N; i++)
    {
      StrataActivity a = { 0 };
      guint s, l;
      gint64 len;

      if (i % HELD_TURN == 0)
        for (guint k = 0; k < HELD_ACTIVE; k++)
          active[k] = g_rand_int_range (rand, 0, HELD_CHANNELS);
      s = active[g_rand_int_range (rand, 0, HELD_ACTIVE)];
      l = g_rand_int_range (rand, 0, 3);
      len = l < 2 ? g_rand_int_range (rand, 1, 3000) : 0;
      now += g_rand_int_range (rand, 0, 200);
      a.start = MAX (cursor[s][l], now) + g_rand_int_range (rand, 0, 100);
      a.end = a.start + len;
      a.channel = s;
      a.label = g_rand_int_range (rand, 0, 50);
      a.arg = g_rand_int_range (rand, -1, 40000);
      a.kind = l < 2 ? STRATA_ACTIVITY_IRQ : STRATA_ACTIVITY_EVENT;
      a.flags = l < 2 ? l << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT : 0;
      cursor[s][l] = a.end + (l == 2);
      last = MAX (last, a.end);

      strata_raw_store_add (&a, want);
      strata_raw_store_add (&a, got);
      if (i % 7919 == 0)
        assert_stores_equal_on (want, got, HELD_CHANNELS, last, rand, 200);
    }

  /* Nothing written yet: every block read back came from the queue. */
  strata_block_packer_get_stats (packer, &stats);
  g_test_message ("%" G_GUINT64_FORMAT " blocks queued, %" G_GUINT64_FORMAT " activities spilled, %"
                  G_GUINT64_FORMAT " brought back", stats.n_blocks, strata_raw_store_get_spilled (got),
                  strata_raw_store_get_unspilled (got));
  g_assert_cmpuint (stats.file_size, ==, 0);
  g_assert_cmpuint (stats.n_helped, ==, 0);
  g_assert_cmpuint (strata_raw_store_get_spilled (got), >, HELD_N / 2);
  g_assert_cmpuint (strata_raw_store_get_unspilled (got), >, 1000);
  assert_stores_equal_on (want, got, HELD_CHANNELS, last, rand, 500);
  g_assert_cmpuint (assert_lanes_equal (want, got, HELD_CHANNELS, 1), >, 10);

  /* Then from the file. */
  strata_block_packer_set_held (packer, FALSE);
  strata_block_packer_flush (packer);
  strata_block_packer_get_stats (packer, &stats);
  g_assert_cmpuint (stats.file_size, >, 0);
  g_assert_cmpuint (stats.queued, ==, 0);
  assert_stores_equal_on (want, got, HELD_CHANNELS, last, rand, 500);
  g_assert_cmpuint (assert_lanes_equal (want, got, HELD_CHANNELS, 1), >, 10);

  g_clear_pointer (&got, strata_raw_store_free);
  strata_block_packer_free (packer);
}

/* Paged lanes: a store whose long lanes put their older tickets and
 * fences in pages of PAGED_BLOCKS tickets answers every look-up as one
 * that keeps them in memory (spilling the same blocks) and as one that
 * spills nothing: each lane by index and by time, where it begins, from
 * several threads at once; with intervals that come late by more than a
 * page (their lane's pages come back), a channel sealed with pages, and
 * one sealed and then opened again by another activity. */
#define PAGED_N         120000
#define PAGED_CHANNELS  6
#define PAGED_BLOCKS    2
#define PAGED_LATE      30000
#define PAGED_SEALED    5    /* sealed at PAGED_N / 2, gets nothing after */
#define PAGED_REOPENED  4    /* sealed at PAGED_N / 3, then gets more */

static void
assert_begins_equal (StrataRawStore *want,
                     StrataRawStore *got,
                     guint32         n_channels,
                     gint64          last,
                     GRand          *rand)
{
  for (guint32 c = 0; c < n_channels; c++)
    for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
      {
        StrataRawLane wl;
        guint wf, we;
        gint64 ts[4] = { 0, 0, (gint64) (g_rand_double (rand) * last), last + 1 };

        if (strata_raw_store_open_lane (want, c, l, G_MININT64 / 2, G_MAXINT64 / 2, &wl, &wf, &we) && we > 0)
          {
            ts[0] = strata_raw_lane_get (&wl, 0)->start;
            ts[1] = ts[0] + 1;
          }
        for (guint k = 0; k < G_N_ELEMENTS (ts); k++)
          g_assert_cmpint (strata_raw_store_lane_begins_before (got, c, l, ts[k]), ==,
                           strata_raw_store_lane_begins_before (want, c, l, ts[k]));
      }
}

typedef struct
{
  StrataRawStore *want;
  StrataRawStore *got;
  gint64          last;
  guint32         seed;
} PagedReader;

static gpointer
paged_reader (gpointer data)
{
  PagedReader *r = data;
  g_autoptr(GRand) rand = g_rand_new_with_seed (r->seed);

  assert_lanes_equal (r->want, r->got, PAGED_CHANNELS, 1);
  assert_stores_equal_on (r->want, r->got, PAGED_CHANNELS, r->last, rand, 300);
  assert_begins_equal (r->want, r->got, PAGED_CHANNELS, r->last, rand);
  return NULL;
}

/* The paged tests' stream: the @i-th activity, on lane @l of channel @c,
 * into @a, unless an earlier one held back is due, which comes in its
 * place. One in 3000 of the first two lanes' activities (of a channel
 * that @may_be_late) is held back PAGED_LATE activities, late by some
 * 1700 activities of its lane: more blocks than it holds tickets of in
 * memory (at most a page's). Returns FALSE when it is held back. */
static gboolean
paged_next (GRand          *rand,
            GArray         *late,
            gint64          cursor[PAGED_CHANNELS][3],
            gint64         *last,
            guint          *n_late,
            guint           i,
            guint32         c,
            guint           l,
            gboolean        may_be_late,
            StrataActivity *a)
{
  gint64 len;

  if (late->len > 0 && g_array_index (late, Late, 0).due <= i)
    {
      *a = g_array_index (late, Late, 0).a;
      g_array_remove_index (late, 0);
      (*n_late)++;
      return TRUE;
    }
  len = l < 2 ? g_rand_int_range (rand, 1, 5000) : 0;
  a->start = cursor[c][l] + g_rand_int_range (rand, 0, 1000);
  a->end = a->start + len;
  a->channel = c;
  a->label = g_rand_int_range (rand, 0, 50);
  a->arg = g_rand_int_range (rand, -1, 40000);
  a->kind = l < 2 ? STRATA_ACTIVITY_IRQ : STRATA_ACTIVITY_EVENT;
  a->flags = l < 2 ? l << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT : 0;
  cursor[c][l] = a->end + (l == 2);
  *last = MAX (*last, a->end);
  if (l < 2 && may_be_late && g_rand_int_range (rand, 0, 3000) == 0)
    {
      Late hole = { *a, i + PAGED_LATE };

      g_array_append_val (late, hole);
      return FALSE;
    }
  return TRUE;
}

static void
test_pages_equal_unpaged (void)
{
  g_autoptr(StrataRawStore) want = strata_raw_store_new ();
  g_autoptr(StrataRawStore) flat = strata_raw_store_new ();
  g_autoptr(StrataRawStore) got = strata_raw_store_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (41);
  g_autoptr(GArray) late = g_array_new (FALSE, FALSE, sizeof (Late));
  gint64 cursor[PAGED_CHANNELS][3] = { { 0 } };
  guint n_late = 0;
  guint64 pages_at_seal = 0;
  gint64 last = 0;
  GThread *threads[3];
  PagedReader readers[G_N_ELEMENTS (threads)];

  strata_raw_store_set_page_blocks (flat, 0);
  strata_raw_store_set_page_blocks (got, PAGED_BLOCKS);
  strata_raw_store_set_spill (want, G_MAXUINT64, 0);
  strata_raw_store_set_spill (flat, 0, 0);
  strata_raw_store_set_spill (got, 0, 0);

  for (guint i = 0; i < PAGED_N; i++)
    {
      StrataActivity a = { 0 };
      guint32 c = g_rand_int_range (rand, 0, PAGED_CHANNELS);
      guint l = g_rand_int_range (rand, 0, 3);

      if (i == PAGED_N / 3 || i == PAGED_N / 2)
        {
          guint32 closed = i == PAGED_N / 3 ? PAGED_REOPENED : PAGED_SEALED;

          pages_at_seal = strata_raw_store_get_n_pages (got);
          strata_raw_store_close_channel (flat, closed);
          strata_raw_store_close_channel (got, closed);
          g_assert_cmpuint (strata_raw_store_get_n_sealed (got), ==, 1);
          assert_stores_equal_on (want, got, PAGED_CHANNELS, last, rand, 100);
          assert_lanes_equal (want, got, PAGED_CHANNELS, 1);
        }
      if (i >= PAGED_N / 2 && c == PAGED_SEALED)
        continue;

      if (!paged_next (rand, late, cursor, &last, &n_late, i, c, l, c != PAGED_SEALED, &a))
        continue;

      strata_raw_store_add (&a, want);
      strata_raw_store_add (&a, flat);
      strata_raw_store_add (&a, got);
      if (i % 20011 == 0)
        {
          assert_stores_equal_on (want, got, PAGED_CHANNELS, last, rand, 100);
          assert_begins_equal (want, got, PAGED_CHANNELS, last, rand);
        }
    }
  for (guint k = 0; k < late->len; k++)
    {
      strata_raw_store_add (&g_array_index (late, Late, k).a, want);
      strata_raw_store_add (&g_array_index (late, Late, k).a, flat);
      strata_raw_store_add (&g_array_index (late, Late, k).a, got);
      n_late++;
    }

  g_test_message ("%" G_GUINT64_FORMAT " pages written, %" G_GUINT64_FORMAT " activities brought back, %u late; "
                  "resident %" G_GUINT64_FORMAT " bytes paged, %" G_GUINT64_FORMAT " not",
                  strata_raw_store_get_n_pages (got), strata_raw_store_get_unspilled (got), n_late,
                  strata_raw_store_get_resident_bytes (got), strata_raw_store_get_resident_bytes (flat));
  /* Pages were written before the channels were sealed, and late
   * intervals brought pages back: more than PAGED_BLOCKS blocks each. */
  g_assert_cmpuint (pages_at_seal, >, 0);
  g_assert_cmpuint (strata_raw_store_get_n_pages (got), >, 100);
  g_assert_cmpuint (strata_raw_store_get_n_pages (flat), ==, 0);
  g_assert_cmpuint (n_late, >, 10);
  g_assert_cmpuint (strata_raw_store_get_unspilled (got), >, (guint64) n_late * (PAGED_BLOCKS + 1) * STRATA_RAW_STORE_BLOCK);
  g_assert_cmpuint (strata_raw_store_get_n_sealed (got), ==, 1);
  g_assert_cmpuint (strata_raw_store_get_spilled (got), ==, strata_raw_store_get_spilled (flat));

  assert_stores_equal_on (want, got, PAGED_CHANNELS, last, rand, 400);
  assert_stores_equal_on (flat, got, PAGED_CHANNELS, last, rand, 400);
  assert_begins_equal (want, got, PAGED_CHANNELS, last, rand);
  g_assert_cmpuint (assert_lanes_equal (want, got, PAGED_CHANNELS, 8), ==, PAGED_CHANNELS * 3);

  /* Readers on threads of their own, each with its copies of pages. */
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    {
      readers[t] = (PagedReader) { want, got, last, 50 + t };
      threads[t] = g_thread_new ("paged-reader", paged_reader, &readers[t]);
    }
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    g_thread_join (threads[t]);
}

/* strata_raw_store_add_many() makes the store that adding the same
 * activities one by one makes: it only fetches ahead what those adds
 * touch. In batches of every size from 1, over lanes that spill, page,
 * are sealed and reopened, with late activities that bring spilled
 * blocks back, and channels first seen within a batch. */
static void
test_add_many_equals_add (void)
{
  g_autoptr(StrataRawStore) want = strata_raw_store_new ();
  g_autoptr(StrataRawStore) got = strata_raw_store_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (43);
  g_autoptr(GArray) stream = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GArray) late = g_array_new (FALSE, FALSE, sizeof (Late));
  gint64 cursor[PAGED_CHANNELS][3] = { { 0 } };
  gint64 last = 0;
  guint sealed_at = PAGED_N / 3, n_late = 0, at = 0;

  for (guint i = 0; i < PAGED_N; i++)
    {
      StrataActivity a = { 0 };
      /* Channels come into use one by one over the first tenth. */
      guint32 c = g_rand_int_range (rand, 0, MIN (PAGED_CHANNELS, 1 + i / (PAGED_N / 10 / PAGED_CHANNELS)));
      guint l = g_rand_int_range (rand, 0, 3);

      if (!paged_next (rand, late, cursor, &last, &n_late, i, c, l, TRUE, &a))
        continue;
      g_array_append_val (stream, a);
    }
  for (guint k = 0; k < late->len; k++)
    g_array_append_val (stream, g_array_index (late, Late, k).a);
  g_assert_cmpuint (n_late, >, 10);

  for (guint k = 0; k < 2; k++)
    {
      StrataRawStore *store = k == 0 ? want : got;

      strata_raw_store_set_page_blocks (store, PAGED_BLOCKS);
      strata_raw_store_set_spill (store, 0, 0);
    }

  while (at < stream->len)
    {
      const StrataActivity *acts = &g_array_index (stream, StrataActivity, at);
      guint n = g_rand_int_range (rand, 1, 300);

      n = MIN (n, stream->len - at);

      /* A channel sealed between two batches, then reopened. */
      if (at <= sealed_at && sealed_at < at + n)
        {
          n = sealed_at - at;
          strata_raw_store_close_channel (want, PAGED_REOPENED);
          strata_raw_store_close_channel (got, PAGED_REOPENED);
          sealed_at = G_MAXUINT;
        }
      for (guint i = 0; i < n; i++)
        strata_raw_store_add (&acts[i], want);
      strata_raw_store_add_many (got, acts, n);
      at += n;
    }

  g_assert_cmpuint (strata_raw_store_get_size (got), ==, stream->len);
  g_assert_cmpuint (strata_raw_store_get_size (want), ==, stream->len);
  g_assert_cmpuint (strata_raw_store_get_n_pages (got), >, 0);
  g_assert_cmpuint (strata_raw_store_get_n_pages (got), ==, strata_raw_store_get_n_pages (want));
  g_assert_cmpuint (strata_raw_store_get_unspilled (got), >, 0);
  g_assert_cmpuint (strata_raw_store_get_unspilled (got), ==, strata_raw_store_get_unspilled (want));
  g_assert_cmpuint (strata_raw_store_get_spilled (got), ==, strata_raw_store_get_spilled (want));
  assert_stores_equal_on (want, got, PAGED_CHANNELS, last, rand, 400);
  assert_begins_equal (want, got, PAGED_CHANNELS, last, rand);
  g_assert_cmpuint (assert_lanes_equal (want, got, PAGED_CHANNELS, 8), ==, PAGED_CHANNELS * 3);
}

/* The index written from a store with paged lanes is the same bytes as
 * from one without (the writer reads the pages back in order), and it
 * answers as the store it was written from. */
static void
test_pages_index_round_trip (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (43);
  g_autoptr(StrataTrace) flat = NULL;
  g_autoptr(StrataTrace) paged = NULL;
  g_autoptr(StrataTrace) got = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *flat_index = g_strdup_printf ("%s/flat" STRATA_INDEX_SUFFIX, dir);
  g_autofree char *paged_index = g_strdup_printf ("%s/paged" STRATA_INDEX_SUFFIX, dir);
  g_autofree char *flat_bytes = NULL;
  g_autofree char *paged_bytes = NULL;
  gsize flat_size, paged_size;
  StrataSourceIdentity id;
  StrataRawStore *raw, *mapped, *flat_raw;
  guint32 n_channels;

  g_setenv ("STRATA_RAW_STORE_SPILL_FROM", "0", TRUE);
  g_setenv ("STRATA_RAW_STORE_PAGE_BLOCKS", "0", TRUE);
  flat = strata_test_load_in_memory (path, NULL, &error);
  g_assert_no_error (error);
  g_setenv ("STRATA_RAW_STORE_PAGE_BLOCKS", "1", TRUE);
  paged = strata_test_load_in_memory (path, NULL, &error);
  g_assert_no_error (error);
  g_unsetenv ("STRATA_RAW_STORE_PAGE_BLOCKS");
  g_unsetenv ("STRATA_RAW_STORE_SPILL_FROM");

  raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (paged));
  flat_raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (flat));
  g_test_message ("%" G_GUINT64_FORMAT " pages, %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " activities spilled",
                  strata_raw_store_get_n_pages (raw), strata_raw_store_get_spilled (raw),
                  strata_raw_store_get_size (raw));
  g_assert_cmpuint (strata_raw_store_get_n_pages (raw), >=, 4);
  g_assert_cmpuint (strata_raw_store_get_n_pages (flat_raw), ==, 0);

  g_assert_true (strata_source_identity_compute (path, &id, &error));
  g_assert_true (strata_index_write (flat, &id, flat_index, &error));
  g_assert_no_error (error);
  g_assert_true (strata_index_write (paged, &id, paged_index, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (flat_index, &flat_bytes, &flat_size, &error));
  g_assert_true (g_file_get_contents (paged_index, &paged_bytes, &paged_size, &error));
  g_assert_cmpmem (paged_bytes, paged_size, flat_bytes, flat_size);

  got = strata_index_open (paged_index, &id, NULL, &error);
  g_assert_no_error (error);
  mapped = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (got));
  n_channels = strata_raw_store_get_n_channels (raw);
  g_assert_cmpuint (assert_lanes_equal (flat_raw, raw, n_channels, 2), >, 0);
  assert_lanes_equal (raw, mapped, n_channels, 2);
  assert_stores_equal_on (raw, mapped, n_channels, strata_trace_get_end (paged), rand, 400);
  assert_begins_equal (raw, mapped, n_channels, strata_trace_get_end (paged), rand);
  g_assert_null (strata_trace_get_index_damage (got));
}

/* One lane growing tenfold: with pages, what the store holds for it
 * (besides the packer's own records) grows by a page's entry per page;
 * without, by its fences and tickets. */
#define GROW_FIRST  100000
#define GROW_BLOCKS 4

static guint64
lanes_resident (StrataRawStore *store)
{
  StrataBlockPacker *packer = strata_raw_store_get_packer (store);
  StrataBlockPackerStats stats = { 0 };

  if (packer != NULL)
    strata_block_packer_get_stats (packer, &stats);
  return strata_raw_store_get_resident_bytes (store) - stats.queued - stats.records;
}

static void
test_pages_resident_flat (void)
{
  g_autoptr(StrataRawStore) flat = strata_raw_store_new ();
  g_autoptr(StrataRawStore) got = strata_raw_store_new ();
  guint64 got_at[2] = { 0 }, flat_at[2] = { 0 };
  StrataActivity a = { 0 };

  strata_raw_store_set_page_blocks (flat, 0);
  strata_raw_store_set_page_blocks (got, GROW_BLOCKS);
  strata_raw_store_set_spill (flat, 0, 0);
  strata_raw_store_set_spill (got, 0, 0);

  a.kind = STRATA_ACTIVITY_IRQ;
  for (guint i = 0; i < 10 * GROW_FIRST; i++)
    {
      a.start = (gint64) i * 10;
      a.end = a.start + 5;
      a.label = i % 7;
      strata_raw_store_add (&a, flat);
      strata_raw_store_add (&a, got);
      if (i + 1 == GROW_FIRST)
        {
          got_at[0] = lanes_resident (got);
          flat_at[0] = lanes_resident (flat);
        }
    }
  got_at[1] = lanes_resident (got);
  flat_at[1] = lanes_resident (flat);

  g_test_message ("%u activities: %" G_GUINT64_FORMAT " bytes paged, %" G_GUINT64_FORMAT " not; "
                  "%u: %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "; %" G_GUINT64_FORMAT " pages",
                  GROW_FIRST, got_at[0], flat_at[0], 10 * GROW_FIRST, got_at[1], flat_at[1],
                  strata_raw_store_get_n_pages (got));
  /* Without pages: 16 bytes a fence per 64 activities, 16 a ticket per
   * block, for the 900 000 more. */
  g_assert_cmpuint (flat_at[1] - flat_at[0], >=, 9 * GROW_FIRST / 64 * 16);
  /* With: 24 bytes a page of 1024 activities (doubled as it grows). */
  g_assert_cmpuint (got_at[1], <=, got_at[0] + 2 * 24 * (10 * GROW_FIRST / 1024) + 1024);
  g_assert_cmpuint (got_at[1] * 8, <, flat_at[1]);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/raw-store/lanes-do-not-overlap", test_lanes_do_not_overlap);
  g_test_add_func ("/strata/raw-store/query-equals-brute-force", test_query_equals_brute_force);
  g_test_add_func ("/strata/raw-store/spill-bounded", test_spill_bounded);
  g_test_add_func ("/strata/raw-store/spill-short-lanes-budget", test_spill_short_lanes_budget);
  g_test_add_func ("/strata/raw-store/spill-held-in-queue", test_spill_held_in_queue);
  g_test_add_func ("/strata/raw-store/few-lanes-per-channel", test_few_lanes_per_channel);
  g_test_add_func ("/strata/raw-store/pages-equal-unpaged", test_pages_equal_unpaged);
  g_test_add_func ("/strata/raw-store/pages-index-round-trip", test_pages_index_round_trip);
  g_test_add_func ("/strata/raw-store/add-many-equals-add", test_add_many_equals_add);
  g_test_add_func ("/strata/raw-store/pages-resident-flat", test_pages_resident_flat);
  g_test_add_func ("/strata/raw-store/block-copies-equal-uncached", test_block_copies_equal_uncached);
  return g_test_run ();
}
