/* test-stats-closed.c
 *
 * The statistics builder told of exited threads: in the pass that builds
 * an index the kernel model closes a thread's channel when it is switched
 * out dead, and the builder writes that channel's sums out and forgets
 * them. Its results are those of a builder never told (the same
 * activities through another sink) and of strata_stats_compute() on the
 * kept activities, row for row and byte for byte, with the latencies in
 * memory, spilled at every few samples, or all kept; on the real
 * recordings and on a generated trace of thousands of short-lived
 * threads, where a brute-force count from the activities agrees too. On
 * that trace what the builder holds stays under a bound that the builder
 * never told exceeds.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "strata-test-support.h"
#include "strata-test-streams.h"

static const char *fixtures[] = {
  "sched-small.dat", "lossy.dat", "instances.dat", "sched-tgid.txt",
};

/* All in memory, written out at every few samples (their percentiles
 * selected from the log), and in between. */
static const guint64 budgets[] = { G_MAXUINT64, 48, 1000 };

typedef struct
{
  StrataStats *stats;
  guint64      heap;      /* before finish() */
  guint64      peak_heap;
  guint64      n_closed;
} Built;

static void
built_clear (Built *b)
{
  g_clear_pointer (&b->stats, strata_stats_free);
}

static void
built_finish (Built              *out,
              StrataStatsBuilder *builder,
              StrataTrace        *trace)
{
  out->heap = strata_stats_builder_get_heap_bytes (builder, &out->peak_heap, &out->n_closed);
  out->stats = strata_stats_builder_finish (builder, trace);
}

/* The pass's own way: @path loaded (its activities kept) with a builder
 * as the sink, which the load tells of every thread's close. */
static StrataTrace *
load_told (const char *path,
           guint64     budget,
           Built      *out)
{
  g_autoptr(StrataStatsBuilder) builder = strata_stats_builder_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;

  strata_stats_builder_set_latency_budget (builder, budget);
  trace = strata_test_load_full (path, TRUE, strata_stats_builder_add, strata_stats_builder_close,
                                 builder, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  built_finish (out, builder, trace);
  return g_steal_pointer (&trace);
}

/* A builder fed @trace's activities; when @told, told of a thread's
 * close right after its DEAD state, its last activity, as the model
 * does (strata_kernel_model_set_close_func()). */
static void
replay (StrataTrace *trace,
        guint64      budget,
        gboolean     told,
        Built       *out)
{
  g_autoptr(StrataStatsBuilder) builder = strata_stats_builder_new ();
  const StrataActivity *acts = NULL;
  gsize n = 0;

  strata_stats_builder_set_latency_budget (builder, budget);
  acts = strata_trace_get_activities (trace, &n);
  for (gsize i = 0; i < n; i++)
    {
      strata_stats_builder_add (&acts[i], builder);
      if (told && acts[i].kind == STRATA_ACTIVITY_STATE && acts[i].state == STRATA_TASK_STATE_DEAD)
        strata_stats_builder_close_channel (builder, acts[i].channel);
    }
  built_finish (out, builder, trace);
}

/* Told and never told, at every budget, against strata_stats_compute()
 * on the trace loaded with its activities and against the builder the
 * load itself told. The closes the told builders saw, added to
 * @n_closed. With a @bound, what the told builders held stays under it,
 * and what the others held at the end does not. */
static StrataTrace *
check_told_equals_untold (const char *path,
                          const char *name,
                          guint64     bound,
                          guint64    *n_closed)
{
  Built loaded = { 0 };
  StrataTrace *trace = load_told (path, 48, &loaded);
  g_autoptr(StrataStats) computed = strata_stats_compute (trace);

  g_test_message ("%s, told by the load: %" G_GUINT64_FORMAT " channels closed; builder's peak %"
                  G_GUINT64_FORMAT " bytes", name, loaded.n_closed, loaded.peak_heap);
  strata_test_assert_stats_equal (loaded.stats, computed);
  if (bound > 0)
    g_assert_cmpuint (loaded.peak_heap, <=, bound);

  for (guint b = 0; b < G_N_ELEMENTS (budgets); b++)
    {
      Built told = { 0 }, untold = { 0 };

      replay (trace, budgets[b], TRUE, &told);
      replay (trace, budgets[b], FALSE, &untold);
      g_test_message ("%s, budget %" G_GUINT64_FORMAT ": builder's peak %" G_GUINT64_FORMAT
                      " bytes told (%" G_GUINT64_FORMAT " at the end), %" G_GUINT64_FORMAT " not (%"
                      G_GUINT64_FORMAT " at the end)", name, budgets[b], told.peak_heap, told.heap,
                      untold.peak_heap, untold.heap);
      g_assert_cmpuint (told.n_closed, ==, loaded.n_closed);
      g_assert_cmpuint (untold.n_closed, ==, 0);
      if (bound > 0)
        {
          g_assert_cmpuint (told.peak_heap, <=, bound);
          g_assert_cmpuint (untold.heap, >, bound);
        }

      strata_test_assert_stats_equal (told.stats, computed);
      strata_test_assert_stats_equal (untold.stats, computed);
      built_clear (&told);
      built_clear (&untold);
    }
  built_clear (&loaded);
  *n_closed += loaded.n_closed;
  return trace;
}

static void
test_fixtures (void)
{
  guint64 n_closed = 0;

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);

      g_object_unref (check_told_equals_untold (path, fixtures[f], 0, &n_closed));
    }
  /* The recordings have threads that exit (sh, its children). */
  g_assert_cmpuint (n_closed, >, 0);
}

/* The generated trace: four CPUs, each with a thread that lives to the
 * end and at most a few short-lived ones at a time; those are woken new,
 * run, sleep and are woken a few times, and are switched out dead. */
#define GEN_CPUS      4
#define GEN_PER_CPU   3

typedef struct
{
  gint    tid;
  guint   runs_left;     /* 0: dies when it is switched out next */
  guint8  state;         /* 'W' woken, 'S' sleeping, 'R' running */
} GenThread;

static char *
generated_trace (guint n_threads)
{
  g_autofree char *dir = strata_test_tmpdir ();
  char *path = g_build_filename (dir, "short-threads.txt", NULL);
  GString *out = g_string_new ("# tracer: nop\n#\n");
  GenThread active[GEN_CPUS][GEN_PER_CPU + 1];
  guint n_active[GEN_CPUS] = { 0 };
  gint running[GEN_CPUS];      /* index in active, -1: idle */
  guint64 ts = 5000000;        /* µs */
  guint32 seed = 11;
  guint started = 0;
  gint next_tid = 1000;

  for (guint c = 0; c < GEN_CPUS; c++)
    {
      /* The long-lived one, sleeping at first. */
      active[c][0] = (GenThread) { 100 + (gint) c, G_MAXUINT, 'S' };
      n_active[c] = 1;
      running[c] = -1;
    }

#define LINE(comm, pid, cpu, fmt, ...) \
  g_string_append_printf (out, "%16s-%-7d [%03u] d..2. %6" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT ": " fmt "\n", \
                          comm, pid, cpu, ts / 1000000, ts % 1000000, __VA_ARGS__)

  while (started < n_threads || n_active[0] + n_active[1] + n_active[2] + n_active[3] > GEN_CPUS)
    {
      guint c, pick;
      char comm[32];

      seed = seed * 1103515245u + 12345u;
      c = (seed >> 8) % GEN_CPUS;
      pick = (seed >> 16) % 16;
      ts += 1 + (seed >> 20) % 40;

      if (running[c] >= 0)
        {
          guint i = (guint) running[c];
          GenThread *t = &active[c][i];
          gboolean dies = t->runs_left == 0;

          /* Runs a while, then is switched out: asleep, or dead. */
          if (pick < 4)
            continue;
          g_snprintf (comm, sizeof comm, "t%d", t->tid);
          LINE (comm, t->tid, c, "sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s ==> "
                "next_comm=swapper/%u next_pid=0 next_prio=120", comm, t->tid, dies ? "X" : "S", c);
          running[c] = -1;
          if (dies)
            active[c][i] = active[c][--n_active[c]];
          else
            {
              t->state = 'S';
              if (t->runs_left != G_MAXUINT)
                t->runs_left--;
            }
          continue;
        }

      g_snprintf (comm, sizeof comm, "swapper/%u", c);
      {
        guint i = pick % n_active[c];
        GenThread *t = &active[c][i];

        if (pick < 6 && n_active[c] <= GEN_PER_CPU && started < n_threads)
          {
            /* A new thread, woken on this CPU. */
            GenThread *n = &active[c][n_active[c]++];

            n->tid = next_tid++;
            n->runs_left = 1 + (seed >> 28) % 3;
            n->state = 'W';
            started++;
            LINE ("<idle>", 0, c, "sched_wakeup_new: comm=t%d pid=%d prio=120 target_cpu=%03u", n->tid, n->tid, c);
          }
        else if (t->state == 'W')
          {
            char next_comm[32];

            g_snprintf (next_comm, sizeof next_comm, "t%d", t->tid);
            LINE ("<idle>", 0, c, "sched_switch: prev_comm=%s prev_pid=0 prev_prio=120 prev_state=R ==> "
                  "next_comm=%s next_pid=%d next_prio=120", comm, next_comm, t->tid);
            t->state = 'R';
            running[c] = (gint) i;
          }
        else if (t->state == 'S')
          {
            LINE ("<idle>", 0, c, "sched_wakeup: comm=t%d pid=%d prio=120 target_cpu=%03u", t->tid, t->tid, c);
            t->state = 'W';
          }
      }
    }
#undef LINE

  g_assert_true (g_file_set_contents (path, out->str, out->len, NULL));
  g_string_free (out, TRUE);
  return path;
}

static int
by_value (gconstpointer pa,
          gconstpointer pb)
{
  gint64 a = *(const gint64 *) pa, b = *(const gint64 *) pb;

  return a < b ? -1 : a > b;
}

/* The rows a brute-force count from the activities gives: running time
 * and the wakeup latencies of every thread, sorted (nearest rank). */
static void
assert_brute_force (StrataTrace       *trace,
                    const StrataStats *stats)
{
  const StrataChannel *channels;
  const StrataActivity *acts;
  guint n_channels;
  gsize n;
  g_autofree gint64 *running = NULL;
  g_autoptr(GPtrArray) samples = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);

  acts = strata_trace_get_activities (trace, &n);
  channels = strata_trace_get_channels (trace, &n_channels);
  running = g_new0 (gint64, n_channels);
  for (guint i = 0; i < n_channels; i++)
    g_ptr_array_add (samples, g_array_new (FALSE, FALSE, sizeof (gint64)));

  for (gsize i = 0; i < n; i++)
    {
      const StrataActivity *a = &acts[i];
      gint64 d = a->end - a->start;

      if (a->kind != STRATA_ACTIVITY_STATE || a->channel >= n_channels)
        continue;
      if (a->state == STRATA_TASK_STATE_RUNNING)
        running[a->channel] += d;
      if (a->state == STRATA_TASK_STATE_WOKEN &&
          !(a->flags & (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST)))
        g_array_append_val (g_ptr_array_index (samples, a->channel), d);
    }

  for (guint t = 0; t < stats->threads->len; t++)
    {
      const StrataThreadStats *ts = &g_array_index (stats->threads, StrataThreadStats, t);
      GArray *s = g_ptr_array_index (samples, ts->channel);
      gint64 *v = (gint64 *)(gpointer) s->data;

      g_assert_cmpint (channels[ts->channel].kind, ==, STRATA_CHANNEL_THREAD);
      g_assert_cmpint (ts->running, ==, running[ts->channel]);
      g_assert_cmpuint (ts->wakeup.count, ==, s->len);
      if (s->len == 0)
        continue;
      g_array_sort (s, by_value);
      g_assert_cmpint (ts->wakeup.p50, ==, v[MAX ((guint) ceil (0.50 * s->len), 1) - 1]);
      g_assert_cmpint (ts->wakeup.p90, ==, v[MAX ((guint) ceil (0.90 * s->len), 1) - 1]);
      g_assert_cmpint (ts->wakeup.p99, ==, v[MAX ((guint) ceil (0.99 * s->len), 1) - 1]);
      g_assert_cmpint (ts->wakeup.max, ==, v[s->len - 1]);
    }
}

#define GEN_THREADS 10000

/* What the builder holds: its sums live in pages of 1024 channels, so
 * one never told holds a page for every 1024 channels the trace had (10
 * here); one told of the closes holds the pages of the threads alive
 * (here the first page, with the CPUs and the long-lived threads, and
 * the one or two where new threads are being met), its buffers, the
 * long-lived threads' latencies, and a bit for each closed
 * channel. */
#define GEN_BOUND ((1u << 20) + 2 * GEN_THREADS)

static void
test_generated (void)
{
  g_autofree char *path = generated_trace (GEN_THREADS);
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataStats) computed = NULL;
  guint n_channels, n_threads = 0;
  guint64 n_closed = 0;

  trace = check_told_equals_untold (path, "generated", GEN_BOUND, &n_closed);
  /* Every short-lived thread was closed, every long-lived one not. */
  g_assert_cmpuint (n_closed, ==, GEN_THREADS);

  strata_trace_get_channels (trace, &n_channels);
  computed = strata_stats_compute (trace);
  for (guint t = 0; t < computed->threads->len; t++)
    n_threads += g_array_index (computed->threads, StrataThreadStats, t).wakeup.count > 0;
  g_test_message ("%u channels, %u threads with wakeup latencies, %u latencies",
                  n_channels, n_threads, computed->wakeup.count);
  g_assert_cmpuint (n_threads, >=, GEN_THREADS);
  assert_brute_force (trace, computed);
  g_unlink (path);
}

/* What the builder holds follows the threads alive, not the channels
 * ever made, also when a thread that lives on comes now and then: after
 * a stream of processes made all the time (their channels have no
 * activities) with one thread in 1000 that lives on, it grows by a few
 * bytes a channel from 8 000 to 32 000 channels (the bit of each closed
 * one, the pages' table and the pages of the threads alive). With pages
 * of sums of 1 024 channels, each kept by its thread alive, it grew by
 * 86 bytes a channel. (That the results are those of a builder never
 * told, pages let go and made again, the tests above say.) */
static void
test_process_churn_bounded (void)
{
  const guint n_threads[] = { 4000, 16000 };
  guint64 heap[G_N_ELEMENTS (n_threads)];
  guint n_channels[G_N_ELEMENTS (n_threads)];
  double per_channel;

  for (guint r = 0; r < G_N_ELEMENTS (n_threads); r++)
    {
      g_autoptr(GArray) closes = NULL;
      g_autoptr(GArray) acts = strata_test_process_churn (n_threads[r], 1000, &n_channels[r], &closes);
      const StrataActivity *all = (const StrataActivity *)(gpointer) acts->data;
      const StrataTestClose *c = (const StrataTestClose *)(gpointer) closes->data;
      g_autoptr(StrataStatsBuilder) told = strata_stats_builder_new ();
      guint next = 0;

      for (gsize i = 0; i < acts->len; i++)
        {
          strata_stats_builder_add (&all[i], told);
          for (; next < closes->len && c[next].after == i; next++)
            strata_stats_builder_close_channel (told, c[next].channel);
        }
      g_assert_cmpuint (next, ==, closes->len);
      heap[r] = strata_stats_builder_get_heap_bytes (told, NULL, NULL);
      g_test_message ("%u channels: the builder holds %" G_GUINT64_FORMAT " bytes", n_channels[r], heap[r]);
    }
  per_channel = (double) (gint64) (heap[1] - heap[0]) / (n_channels[1] - n_channels[0]);
  g_test_message ("%.1f bytes a channel", per_channel);
  g_assert_cmpfloat (per_channel, <, 16.0);
}

/* Without a spill file (no folder for one) the builder keeps what it
 * would have written in memory: the same results, and what it holds
 * shows where they went. In a subprocess, since GLib keeps the first
 * answer of where temporary files go. */
static void
test_no_spill_file (void)
{
  if (g_test_subprocess ())
    {
      const char *path = g_getenv ("STRATA_TEST_SHORT_THREADS");
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataTrace) trace = NULL;
      g_autoptr(StrataStats) computed = NULL;
      Built told = { 0 };

      g_assert_nonnull (path);
      g_setenv ("XDG_CACHE_HOME", "/dev/null/no-cache", TRUE);
      g_setenv ("TMPDIR", "/dev/null/no-tmp", TRUE);
      trace = strata_test_load (path, &error);
      g_assert_no_error (error);
      computed = strata_stats_compute (trace);
      replay (trace, 48, TRUE, &told);
      g_test_message ("no spill file: %" G_GUINT64_FORMAT " bytes held at the end", told.heap);
      g_assert_cmpuint (told.n_closed, ==, GEN_THREADS);
      /* The rows of the closed threads alone are more than that bound. */
      g_assert_cmpuint (told.heap, >, GEN_BOUND);
      strata_test_assert_stats_equal (told.stats, computed);
      built_clear (&told);
      return;
    }

  {
    g_autofree char *path = generated_trace (GEN_THREADS);

    g_setenv ("STRATA_TEST_SHORT_THREADS", path, TRUE);
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
    g_test_trap_assert_passed ();
    g_unsetenv ("STRATA_TEST_SHORT_THREADS");
    g_unlink (path);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/stats/closed/fixtures-equal-unclosed", test_fixtures);
  g_test_add_func ("/strata/stats/closed/short-threads-equal-unclosed-bounded", test_generated);
  g_test_add_func ("/strata/stats/closed/no-spill-file", test_no_spill_file);
  g_test_add_func ("/strata/stats/closed/process-churn-bounded", test_process_churn_bounded);

  return g_test_run ();
}
