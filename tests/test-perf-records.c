/* test-perf-records.c
 *
 * The perf.data reader against perf itself, on recordings made with
 * `perf record` (tests/fixtures/perf-record.sh): file and pipe mode,
 * zstd-compressed records, CLOCK_MONOTONIC, call chains, switch events.
 * For each file perf's own view was saved beside it: `perf report
 * --stats` (records per type and samples per event), `perf script -F
 * event` (samples per event name), `perf report -D` (every call chain)
 * and `perf sched timehist -s` (each thread's run time). The reader must
 * agree with all of them, yield its events in time order, and feed the
 * kernel model the same kind of rows ftrace does.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "strata-perf-writer.h"
#include "strata-test-support.h"
#include "../plugins/perf/strata-perf-format.h"
#include "../plugins/perf/strata-perf-source.h"

/* perf's names of the record types, as `perf report --stats` prints them. */
static const struct { const char *name; guint type; } record_names[] = {
  { "MMAP", PERF_RECORD_MMAP }, { "LOST", PERF_RECORD_LOST },
  { "COMM", PERF_RECORD_COMM }, { "EXIT", PERF_RECORD_EXIT },
  { "THROTTLE", PERF_RECORD_THROTTLE }, { "UNTHROTTLE", PERF_RECORD_UNTHROTTLE },
  { "FORK", PERF_RECORD_FORK }, { "READ", PERF_RECORD_READ },
  { "SAMPLE", PERF_RECORD_SAMPLE }, { "MMAP2", PERF_RECORD_MMAP2 },
  { "AUX", PERF_RECORD_AUX }, { "ITRACE_START", PERF_RECORD_ITRACE_START },
  { "LOST_SAMPLES", PERF_RECORD_LOST_SAMPLES }, { "SWITCH", PERF_RECORD_SWITCH },
  { "SWITCH_CPU_WIDE", PERF_RECORD_SWITCH_CPU_WIDE },
  { "NAMESPACES", PERF_RECORD_NAMESPACES }, { "KSYMBOL", PERF_RECORD_KSYMBOL },
  { "BPF_EVENT", PERF_RECORD_BPF_EVENT }, { "CGROUP", PERF_RECORD_CGROUP },
  { "TEXT_POKE", PERF_RECORD_TEXT_POKE }, { "AUX_OUTPUT_HW_ID", PERF_RECORD_AUX_OUTPUT_HW_ID },
  { "ATTR", PERF_RECORD_HEADER_ATTR }, { "EVENT_TYPE", PERF_RECORD_HEADER_EVENT_TYPE },
  { "TRACING_DATA", PERF_RECORD_HEADER_TRACING_DATA },
  { "BUILD_ID", PERF_RECORD_HEADER_BUILD_ID },
  { "FINISHED_ROUND", PERF_RECORD_FINISHED_ROUND }, { "ID_INDEX", PERF_RECORD_ID_INDEX },
  { "AUXTRACE_INFO", PERF_RECORD_AUXTRACE_INFO }, { "AUXTRACE", PERF_RECORD_AUXTRACE },
  { "AUXTRACE_ERROR", PERF_RECORD_AUXTRACE_ERROR },
  { "THREAD_MAP", PERF_RECORD_THREAD_MAP }, { "CPU_MAP", PERF_RECORD_CPU_MAP },
  { "STAT_CONFIG", PERF_RECORD_STAT_CONFIG }, { "STAT", PERF_RECORD_STAT },
  { "STAT_ROUND", PERF_RECORD_STAT_ROUND }, { "EVENT_UPDATE", PERF_RECORD_EVENT_UPDATE },
  { "TIME_CONV", PERF_RECORD_TIME_CONV }, { "FEATURE", PERF_RECORD_HEADER_FEATURE },
  { "COMPRESSED", PERF_RECORD_COMPRESSED }, { "FINISHED_INIT", PERF_RECORD_FINISHED_INIT },
};

static guint
record_type_of (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (record_names); i++)
    if (strcmp (record_names[i].name, name) == 0)
      return record_names[i].type;
  return 0;
}

static char *
read_oracle (const char *name)
{
  g_autofree char *path = strata_test_fixture (name);
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

/* "   SAMPLE events:   1373  (..%)" lines of the Aggregated stats. */
static GHashTable *
parse_stats (const char *text)
{
  GHashTable *counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean in_aggregated = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char name[64];
      guint64 n;

      if (strstr (lines[i], "Aggregated stats:") != NULL)
        {
          in_aggregated = TRUE;
          continue;
        }
      if (g_str_has_suffix (lines[i], " stats:"))
        in_aggregated = FALSE;
      if (in_aggregated && sscanf (lines[i], " %63s events: %" G_GUINT64_FORMAT, name, &n) == 2 &&
          strcmp (name, "TOTAL") != 0)
        g_hash_table_insert (counts, g_strdup (name), GSIZE_TO_POINTER (n));
    }

  return counts;
}

/* "    240 sched:sched_switch" lines: samples per event, the system dropped
 * as the kernel model names tracepoints. */
static GHashTable *
parse_events (const char *text)
{
  GHashTable *counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char name[256];
      guint64 n;
      const char *colon;

      if (sscanf (lines[i], " %" G_GUINT64_FORMAT " %255s", &n, name) != 2)
        continue;
      colon = strchr (name, ':');
      g_hash_table_insert (counts, g_strdup (colon != NULL && strchr (colon + 1, ':') == NULL &&
                                             strchr (name, '/') == NULL ? colon + 1 : name),
                           GSIZE_TO_POINTER (n));
    }

  return counts;
}

typedef struct
{
  const char *fixture;     /* perf-sched: the .data.xz and its oracles */
  gboolean    has_stats;
  gboolean    timehist;
  const char *clock;
  const char *compression;
  const char *version;
  guint       min_events;
  gboolean    switches;    /* scheduler switches, from tracepoints or SWITCH records */
} Recording;

static const Recording recordings[] = {
  { "perf-sched", TRUE, TRUE, "perf", "none", "2", 100, TRUE },
  { "perf-zstd", TRUE, TRUE, "perf", "zstd", "2", 100, TRUE },
  { "perf-mono", TRUE, TRUE, "mono", "none", "2", 100, TRUE },
  { "perf-callchain", TRUE, FALSE, "perf", "none", "2", 100, FALSE },
  { "perf-switch", TRUE, FALSE, "perf", "none", "2", 100, TRUE },
  { "perf-pipe-cpu", TRUE, FALSE, "perf", "none", "2 (pipe)", 100, FALSE },
  { "perf-pipe", FALSE, FALSE, "perf", "none", "2 (pipe)", 100, TRUE },
  /* KSYMBOL, BPF_EVENT, CGROUP, NAMESPACES, FINISHED_INIT. */
  { "perf-sideband", TRUE, FALSE, "perf", "none", "2", 100, FALSE },
  /* The same in a pipe through `perf inject -b`: HEADER_BUILD_ID. */
  { "perf-buildid", TRUE, FALSE, "perf", "none", "2 (pipe)", 100, FALSE },
  /* Intel PT (perf 4.14, public test data): AUXTRACE with its data after
   * it, AUXTRACE_INFO, AUX, ITRACE_START, TIME_CONV. */
  { "perf-intel-pt", TRUE, FALSE, "perf", "none", "2", 50, TRUE },
};

static GArray *
load (const Recording   *rec,
      StrataSource     **source)
{
  g_autofree char *name = g_strdup_printf ("%s.data.xz", rec->fixture);
  g_autofree char *path = strata_test_fixture (name);
  g_autoptr(GError) error = NULL;
  GArray *events = strata_test_read_events (path, source, &error);

  g_assert_no_error (error);
  g_assert_nonnull (events);
  g_assert_true (STRATA_IS_PERF_SOURCE (*source));
  return events;
}

/* Records per type equal perf's count, and nothing perf did not count. */
static void
test_record_counts (gconstpointer data)
{
  const Recording *rec = data;
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = load (rec, &source);
  g_autofree char *name = g_strdup_printf ("%s.stats", rec->fixture);
  g_autofree char *text = read_oracle (name);
  g_autoptr(GHashTable) perf = parse_stats (text);
  StrataPerfSource *perf_source = STRATA_PERF_SOURCE (source);
  GHashTableIter iter;
  gpointer key, value;
  guint64 total = 0;

  g_assert_cmpuint (g_hash_table_size (perf), >, 3);
  g_assert_cmpuint (events->len, >, 0);

  g_hash_table_iter_init (&iter, perf);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint type = record_type_of (key);

      g_test_message ("%s: %s %" G_GSIZE_FORMAT, rec->fixture, (char *) key, GPOINTER_TO_SIZE (value));
      g_assert_cmpuint (type, !=, 0);
      g_assert_cmpuint (strata_perf_source_get_record_count (perf_source, type), ==,
                        GPOINTER_TO_SIZE (value));
      total += GPOINTER_TO_SIZE (value);
    }

  for (guint t = 0; t < PERF_RECORD_MAX_TYPE; t++)
    total -= strata_perf_source_get_record_count (perf_source, t);
  g_assert_cmpuint (total, ==, 0);
}

/* Samples per event name equal `perf script`'s. */
static void
test_sample_counts (gconstpointer data)
{
  const Recording *rec = data;
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = load (rec, &source);
  g_autofree char *name = g_strdup_printf ("%s.events", rec->fixture);
  g_autofree char *text = read_oracle (name);
  g_autoptr(GHashTable) perf = parse_events (text);
  g_autoptr(GHashTable) ours = strata_test_event_counts (source, events, 0);
  GHashTableIter iter;
  gpointer key, value;
  guint64 samples = 0;

  g_assert_cmpuint (g_hash_table_size (perf), >, 0);

  g_hash_table_iter_init (&iter, perf);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_test_message ("%s: %s %" G_GSIZE_FORMAT, rec->fixture, (char *) key, GPOINTER_TO_SIZE (value));
      g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (ours, key)), ==,
                        GPOINTER_TO_SIZE (value));
      samples += GPOINTER_TO_SIZE (value);
    }

  g_assert_cmpuint (samples, ==,
                    strata_perf_source_get_record_count (STRATA_PERF_SOURCE (source),
                                                         PERF_RECORD_SAMPLE));
}

/* Time order, the info, and the tracepoints decoded into typed events. */
static void
test_order_and_info (gconstpointer data)
{
  const Recording *rec = data;
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = load (rec, &source);
  const StrataSourceInfo *info = strata_source_get_info (source);
  guint typed = 0;

  g_assert_cmpuint (events->len, >, rec->min_events);
  for (guint i = 1; i < events->len; i++)
    g_assert_cmpint (g_array_index (events, StrataEvent, i - 1).ts, <=,
                     g_array_index (events, StrataEvent, i).ts);
  g_assert_false (strata_perf_source_get_order_overflow (STRATA_PERF_SOURCE (source)));

  g_assert_cmpstr (info->format, ==, "perf.data");
  g_assert_cmpstr (info->version, ==, rec->version);
  g_assert_cmpstr (info->clock, ==, rec->clock);
  g_assert_cmpstr (info->compression, ==, rec->compression);
  g_assert_cmpuint (info->n_cpus, >, 0);
  g_assert_nonnull (info->kernel_release);
  g_assert_nonnull (info->hostname);

  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);

      if (ev->type == STRATA_EVENT_SCHED_SWITCH)
        {
          typed++;
          g_assert_cmpint (ev->cpu, >=, 0);
          g_assert_cmpint (ev->u.sched_switch.prev_pid, >=, 0);
          g_assert_cmpint (ev->u.sched_switch.next_pid, >=, 0);
        }
      if (ev->type == STRATA_EVENT_SAMPLE)
        g_assert_cmpint (ev->pid, >=, 0);
    }

  if (rec->switches)
    g_assert_cmpuint (typed, >, 10);
}

/* Every sample's call chain, in order, equals the raw chain `perf report
 * -D` dumps for it. */
static void
test_callchains (void)
{
  const Recording *rec = &recordings[3];
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = load (rec, &source);
  g_autofree char *text = read_oracle ("perf-callchain.ips.xz");
  g_auto(GStrv) chains = NULL;
  guint chain = 0, checked = 0;

  g_assert_cmpstr (rec->fixture, ==, "perf-callchain");

  /* Blank lines separate the samples: a chain is a run of lines that are
   * not blank. */
  {
    g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
    g_auto(GStrv) all = g_strsplit (text, "\n", -1);
    GString *cur = NULL;

    for (guint l = 0; all[l] != NULL; l++)
      {
        g_strstrip (all[l]);
        if (*all[l] == '\0')
          {
            if (cur != NULL)
              g_ptr_array_add (parts, g_string_free (g_steal_pointer (&cur), FALSE));
            continue;
          }
        if (cur == NULL)
          cur = g_string_new (NULL);
        g_string_append_printf (cur, "%s\n", all[l]);
      }
    if (cur != NULL)
      g_ptr_array_add (parts, g_string_free (g_steal_pointer (&cur), FALSE));
    g_ptr_array_add (parts, NULL);
    chains = g_strdupv ((char **) parts->pdata);
  }

  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);
      g_auto(GStrv) lines = NULL;
      const guint64 *frames;
      guint n, k = 0;

      if (ev->type != STRATA_EVENT_SAMPLE)
        continue;

      g_assert_nonnull (chains[chain]);
      lines = g_strsplit (chains[chain++], "\n", -1);
      frames = strata_perf_source_get_callchain (STRATA_PERF_SOURCE (source),
                                                 ev->u.sample.callchain, &n);
      for (guint l = 0; lines[l] != NULL; l++)
        {
          g_autofree char *word = g_strstrip (g_strdup (lines[l]));

          if (*word == '\0' || g_ascii_strtoull (word, NULL, 16) >= G_GUINT64_CONSTANT (0xfffffffffffff001))
            continue;  /* perf's context markers, which the source drops */
          g_assert_cmpuint (k, <, n);
          g_assert_cmphex (frames[k], ==, g_ascii_strtoull (word, NULL, 16));
          k++;
        }
      g_assert_cmpuint (k, ==, n);
      checked++;
    }

  g_assert_null (chains[chain]);
  g_assert_cmpuint (checked, >, 100);
}

/* Each thread's run time as `perf sched timehist -s` counts it: at each
 * sched_switch, the time since the CPU's previous sched_switch goes to
 * the task switched out; nothing before a CPU's first switch, nothing
 * after its last. The model's running segments from a switch in to the
 * switch out on the same CPU are summed as they are. Where the kernel
 * dropped a switch (it does, on the way out of idle, and perf writes no
 * LOST for it) the two tools guess differently what ran: for a segment
 * whose start the model did not see (START_UNSEEN) but whose switch out
 * it did, perf's guess is the time since the CPU's previous switch, taken
 * from the file's sched_switch events; a segment cut short (LOST: the
 * thread switched in elsewhere before its switch out) or still running
 * at the end (END_UNSEEN) has no switch out, and perf counts nothing for
 * it. So no thread is left out, and each must agree within 0.1% (perf
 * prints microseconds, truncated). */
static void
collect_running (const StrataActivity *a,
                 gpointer              user_data)
{
  GArray *running = user_data;

  if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_RUNNING)
    g_array_append_vals (running, a, 1);
}

static void
test_timehist (gconstpointer data)
{
  const Recording *rec = data;
  g_autofree char *name = g_strdup_printf ("%s.data.xz", rec->fixture);
  g_autofree char *path = strata_test_fixture (name);
  g_autofree char *th_name = g_strdup_printf ("%s.timehist", rec->fixture);
  g_autofree char *text = read_oracle (th_name);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GArray) running = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GHashTable) by_tid = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) switches = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GArray) events = NULL;
  const StrataChannel *channels;
  guint n_channels, compared = 0, mismatches = 0, unseen_starts = 0, no_switch_out = 0;

  /* Each CPU's sched_switch times, in order. */
  events = strata_test_read_events (path, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);

      if (ev->type != STRATA_EVENT_SCHED_SWITCH)
        continue;
      g_assert_cmpint (ev->cpu, >=, 0);
      while (switches->len <= (guint) ev->cpu)
        g_ptr_array_add (switches, g_array_new (FALSE, FALSE, sizeof (gint64)));
      g_array_append_val (g_ptr_array_index (switches, ev->cpu), ev->ts);
    }

  trace = strata_test_load_full (path, FALSE, collect_running, NULL, running, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  channels = strata_trace_get_channels (trace, &n_channels);

  /* A tid can have several channels (reuse): add them up, as perf does. */
  for (guint i = 0; i < running->len; i++)
    {
      const StrataActivity *a = &g_array_index (running, StrataActivity, i);
      gint32 tid = channels[a->channel].id;
      gsize old = GPOINTER_TO_SIZE (g_hash_table_lookup (by_tid, GINT_TO_POINTER (tid)));

      gint64 run = a->end - a->start;

      if (a->flags & (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST))
        {
          no_switch_out++;
          continue;
        }
      if (a->flags & STRATA_ACTIVITY_FLAG_START_UNSEEN)
        {
          /* perf's guess: since the CPU's previous switch, if it had one. */
          GArray *times = (guint) a->arg < switches->len ? g_ptr_array_index (switches, a->arg) : NULL;
          gint64 previous = G_MININT64;

          g_assert_nonnull (times);
          for (guint k = 0; k < times->len && g_array_index (times, gint64, k) < a->end; k++)
            previous = g_array_index (times, gint64, k);
          run = previous != G_MININT64 ? a->end - previous : 0;
          unseen_starts++;
        }
      g_hash_table_insert (by_tid, GINT_TO_POINTER (tid),
                           GSIZE_TO_POINTER (old + (gsize) run));
    }

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *open = strrchr (lines[i], '[');
      gint tid, parent;
      guint count;
      double ms;
      gint64 theirs, ours, slack;

      if (open == NULL || sscanf (open, "[%d] %d %u %lf", &tid, &parent, &count, &ms) != 4)
        continue;
      if (tid <= 0)
        continue;

      theirs = (gint64) (ms * 1e6 + 0.5);
      ours = GPOINTER_TO_SIZE (g_hash_table_lookup (by_tid, GINT_TO_POINTER (tid)));
      slack = theirs / 1000;
      if (ours < theirs - slack || ours >= theirs + 1000 + slack)
        {
          g_printerr ("%s: tid %d runs %" G_GINT64_FORMAT " ns here, %" G_GINT64_FORMAT
                      " ns by perf sched timehist\n", rec->fixture, tid, ours, theirs);
          mismatches++;
        }
      compared++;
    }

  g_test_message ("%s: %u threads compared, none left out; %u segments whose switch in is "
                  "not seen, %u whose switch out is not", rec->fixture, compared, unseen_starts,
                  no_switch_out);
  g_assert_cmpuint (mismatches, ==, 0);
  g_assert_cmpuint (compared, >, 5);
}

/* Without sched_switch, the SWITCH_CPU_WIDE records drive the model: the
 * workload's threads get running and sleeping rows, and each CPU's
 * segments name the tasks. */
static void
test_switch_events (void)
{
  g_autofree char *path = strata_test_fixture ("perf-switch.data.xz");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = strata_test_load (path, &error);
  g_autoptr(StrataSource) source = NULL;
  const StrataActivity *activities;
  gsize n;
  guint running = 0, sleeping = 0, tasks = 0, samples = 0;

  g_assert_no_error (error);
  source = g_object_ref (strata_trace_get_source (trace));
  g_assert_false (strata_perf_source_has_sched_switch (STRATA_PERF_SOURCE (source)));
  g_assert_cmpuint (strata_perf_source_get_record_count (STRATA_PERF_SOURCE (source),
                                                         PERF_RECORD_SWITCH_CPU_WIDE), >, 100);

  activities = strata_trace_get_activities (trace, &n);
  for (gsize i = 0; i < n; i++)
    {
      const StrataActivity *a = &activities[i];

      if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_RUNNING)
        running++;
      if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_SLEEPING)
        sleeping++;
      /* The workload's shell, and the ls it forks (named "sh" on the CPU
       * row when switched in before its exec, as with sched_switch). */
      if (a->kind == STRATA_ACTIVITY_TASK &&
          strcmp (strata_trace_get_string (trace, a->label), "sh") == 0)
        tasks++;
      if (a->kind == STRATA_ACTIVITY_SAMPLE)
        samples++;
    }

  g_assert_cmpuint (running, >, 100);
  g_assert_cmpuint (sleeping, >, 10);
  g_assert_cmpuint (tasks, >, 0);
  g_assert_cmpuint (samples, >, 0);
}

/* Samples are instants on their thread's row, with their call chain. */
static void
test_samples_on_threads (void)
{
  g_autofree char *path = strata_test_fixture ("perf-callchain.data.xz");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = strata_test_load (path, &error);
  const StrataActivity *activities;
  const StrataChannel *channels;
  guint n_channels, samples = 0;
  gsize n;
  StrataPerfSource *source;

  g_assert_no_error (error);
  source = STRATA_PERF_SOURCE (strata_trace_get_source (trace));
  activities = strata_trace_get_activities (trace, &n);
  channels = strata_trace_get_channels (trace, &n_channels);

  for (gsize i = 0; i < n; i++)
    {
      const StrataActivity *a = &activities[i];
      guint frames;

      if (a->kind != STRATA_ACTIVITY_SAMPLE)
        continue;
      samples++;
      g_assert_cmpint (a->start, ==, a->end);
      g_assert_cmpuint (channels[a->channel].kind, ==, STRATA_CHANNEL_THREAD);
      g_assert_cmpint (a->arg, >=, 0);
      g_assert_nonnull (strata_perf_source_get_callchain (source, a->arg, &frames));
      g_assert_cmpuint (frames, >, 0);
      g_assert_cmpstr (strata_trace_get_string (trace, a->label), ==, "cpu-clock");
    }

  g_assert_cmpuint (samples, >, 100);
}

/* The functions the samples' frames are named by equal those `perf script
 * -F ip,sym` prints, run on the same file on the same machine, wherever
 * perf names one (kernel frames from kallsyms, user frames from the mapped
 * files; what perf leaves [unknown] is not compared). */
static void
test_symbols (void)
{
  const Recording *rec = &recordings[3];
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = load (rec, &source);
  g_autofree char *path = strata_test_fixture ("perf-callchain.data.xz");
  g_autofree char *quoted = g_shell_quote (path);
  g_autofree char *cmd = g_strdup_printf ("perf script -F ip,sym -i %s", quoted);
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  guint line = 0, compared = 0, kernel = 0, aliases = 0, samples = 0;
  int status = 0;

  g_assert_true (strata_test_have_program ("perf"));
  g_spawn_command_line_sync (cmd, &out, NULL, &status, &error);
  g_assert_no_error (error);
  lines = g_strsplit (out, "\n", -1);

  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);
      const guint64 *frames;
      guint n;

      if (ev->type != STRATA_EVENT_SAMPLE)
        continue;
      /* The first samples are enough (libdw is slow under ASan). */
      if (++samples > 100)
        break;
      frames = strata_perf_source_get_callchain (STRATA_PERF_SOURCE (source),
                                                 ev->u.sample.callchain, &n);
      for (guint f = 0; f < n; f++)
        {
          g_autofree char *ours = NULL;
          guint64 addr;
          char name[512];

          /* The next frame line: "\tADDR NAME". */
          while (lines[line] != NULL &&
                 sscanf (lines[line], " %" G_GINT64_MODIFIER "x %511s", &addr, name) != 2)
            line++;
          g_assert_nonnull (lines[line]);
          line++;
          /* perf prints user addresses relative to their file. */
          if (frames[f] >= G_GUINT64_CONSTANT (0xffff800000000000))
            g_assert_cmphex (addr, ==, frames[f]);
          if (strcmp (name, "[unknown]") == 0)
            continue;

          ours = strata_perf_source_symbolize (STRATA_PERF_SOURCE (source), ev->tgid, frames[f]);
          if (g_str_has_prefix (ours, "[kernel] ") || strchr (ours, '+') != NULL)
            continue;  /* not named here: perf found a file we do not have */
          if (frames[f] >= G_GUINT64_CONSTANT (0xffff800000000000))
            {
              g_assert_cmpstr (ours, ==, name);
              kernel++;
            }
          else if (strcmp (ours, name) != 0)
            {
              /* Another name of the same code (execve, __GI___execve), or
               * a C++ name perf demangles and we do not. */
              if (!g_str_has_prefix (ours, "_Z"))
                aliases++;
            }
          compared++;
        }
    }

  g_test_message ("%u frames named as perf names them (%u kernel, %u user under another "
                  "name of the same address)", compared, kernel, aliases);
  /* A symbol with several names (glibc's aliases) is named by one of them,
   * perhaps not perf's: most user frames have one name only. */
  g_assert_cmpuint (aliases * 5, <=, compared - kernel);
  /* On the machine that recorded the file (or one running its kernel),
   * every kernel frame perf names is named here too. */
  if (strata_perf_source_kernel_symbols_known (STRATA_PERF_SOURCE (source)))
    g_assert_cmpuint (kernel, >, 50);
}

/* The CLI through the source registry: info, stats (with the top
 * functions of the samples, whose self counts add up to the samples with
 * a call chain, in a time range that halves them), query and render. */
static void
test_cli (void)
{
  g_autofree char *path = strata_test_fixture ("perf-callchain.data.xz");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *png = g_build_filename (dir, "perf.png", NULL);
  const char *info[] = { "info", path, NULL };
  /* Symbolizing is slow under ASan (libdw's allocations): a short range. */
  const char *stats[] = { "stats", "--json", "-n", "100000", "--from", "+50ms", "--to", "+100ms", path, NULL };
  const char *half[] = { "stats", "--json", "--from", "+50ms", "--to", "+75ms", path, NULL };
  const char *query[] = { "query", "--json", "--px", "100000", path, NULL };
  const char *render[] = { "render", path, "--width", "400", "--height", "200", "-o", png, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *samples;
  JsonArray *functions;
  guint64 self = 0, count;

  g_assert_cmpint (strata_test_run_cli (info, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "perf.data"));
  g_assert_nonnull (strstr (out, "cpu-clock"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (strata_test_run_cli (stats, &out, &err), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  samples = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "samples");
  count = json_object_get_int_member (samples, "count");
  g_assert_cmpuint (count, >, 20);
  functions = json_object_get_array_member (samples, "functions");
  g_assert_cmpuint (json_array_get_length (functions), >, 5);
  for (guint i = 0; i < json_array_get_length (functions); i++)
    {
      JsonObject *fn = json_array_get_object_element (functions, i);

      self += json_object_get_int_member (fn, "self");
      g_assert_cmpint (json_object_get_int_member (fn, "total"), >=,
                       json_object_get_int_member (fn, "self"));
    }
  g_assert_cmpuint (self, ==, count - json_object_get_int_member (samples, "without_callchain"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (strata_test_run_cli (half, &out, &err), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  samples = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "samples");
  g_assert_cmpuint (json_object_get_int_member (samples, "count"), <, count);
  g_assert_cmpuint (json_object_get_int_member (samples, "count"), >, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (strata_test_run_cli (query, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "sample"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (strata_test_run_cli (render, &out, &err), ==, 0);
  g_assert_true (g_file_test (png, G_FILE_TEST_EXISTS));
}

static int
event_cmp (gconstpointer a,
           gconstpointer b)
{
  const StrataEvent *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  if (x->source_offset != y->source_offset)
    return x->source_offset < y->source_offset ? -1 : 1;
  return 0;
}

/* A reorder window smaller than a round: the source says the order could
 * not be kept, yields every event all the same, and what it yields out of
 * order is what it counted as such. */
static void
test_small_window (void)
{
  g_autofree char *path = strata_test_fixture ("perf-sched.data.xz");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataSource) whole_source = NULL;
  g_autoptr(GArray) whole = strata_test_read_events (path, &whole_source, &error);
  g_autoptr(StrataSource) source = strata_source_open (path, &error);
  g_autoptr(GArray) events = g_array_new (FALSE, FALSE, sizeof (StrataEvent));
  StrataEvent batch[256];
  guint64 backwards = 0;
  gint64 latest = G_MININT64;
  gssize n;

  g_assert_no_error (error);
  strata_perf_source_set_reorder_window (STRATA_PERF_SOURCE (source), 64);
  while ((n = strata_source_read_batch (source, batch, G_N_ELEMENTS (batch), &error)) > 0)
    g_array_append_vals (events, batch, n);
  g_assert_no_error (error);

  g_assert_true (strata_perf_source_get_order_overflow (STRATA_PERF_SOURCE (source)));
  g_assert_false (strata_perf_source_get_order_overflow (STRATA_PERF_SOURCE (whole_source)));
  for (guint i = 0; i < events->len; i++)
    {
      gint64 ts = g_array_index (events, StrataEvent, i).ts;

      if (ts < latest)
        backwards++;
      latest = MAX (latest, ts);
    }
  g_assert_cmpuint (backwards, <=, strata_perf_source_get_out_of_order (STRATA_PERF_SOURCE (source)));

  g_assert_cmpuint (events->len, ==, whole->len);
  g_array_sort (events, event_cmp);
  g_array_sort (whole, event_cmp);
  for (guint i = 0; i < events->len; i++)
    g_assert_cmpint (event_cmp (&g_array_index (events, StrataEvent, i),
                                &g_array_index (whole, StrataEvent, i)), ==, 0);
}

/* Reads @path with the records read ahead in a thread or in the
 * caller's, the reorder bound at @window (0: the default), in batches of
 * @batch events. */
static GArray *
read_in_mode (const char    *path,
              gboolean       threaded,
              guint          window,
              gsize          batch,
              StrataSource **source_out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataSource) source = strata_source_open (path, &error);
  g_autoptr(GArray) events = g_array_new (FALSE, FALSE, sizeof (StrataEvent));
  g_autofree StrataEvent *buf = g_new (StrataEvent, batch);
  gssize n;

  g_assert_no_error (error);
  strata_perf_source_set_threaded (STRATA_PERF_SOURCE (source), threaded);
  if (window > 0)
    strata_perf_source_set_reorder_window (STRATA_PERF_SOURCE (source), window);
  while ((n = strata_source_read_batch (source, buf, batch, &error)) > 0)
    g_array_append_vals (events, buf, n);
  g_assert_no_error (error);
  g_assert_cmpint (n, ==, 0);

  *source_out = g_steal_pointer (&source);
  return g_steal_pointer (&events);
}

/* The string fields of @ev, as pointers into it. */
static guint
string_fields (StrataEvent  *ev,
               guint32     **fields)
{
  guint n = 0;

  fields[n++] = &ev->name;
  switch (ev->type)
    {
    case STRATA_EVENT_SCHED_SWITCH:
      fields[n++] = &ev->u.sched_switch.prev_comm;
      fields[n++] = &ev->u.sched_switch.next_comm;
      break;
    case STRATA_EVENT_SCHED_WAKING:
    case STRATA_EVENT_SCHED_WAKEUP:
    case STRATA_EVENT_SCHED_WAKEUP_NEW:
      fields[n++] = &ev->u.wakeup.comm;
      break;
    case STRATA_EVENT_SCHED_PROCESS_FORK:
      fields[n++] = &ev->u.fork.parent_comm;
      fields[n++] = &ev->u.fork.child_comm;
      break;
    case STRATA_EVENT_SCHED_PROCESS_EXEC:
      fields[n++] = &ev->u.exec.filename;
      break;
    case STRATA_EVENT_SCHED_PROCESS_EXIT:
      fields[n++] = &ev->u.exit.comm;
      break;
    case STRATA_EVENT_IRQ_HANDLER_ENTRY:
    case STRATA_EVENT_IRQ_HANDLER_EXIT:
      fields[n++] = &ev->u.irq.name;
      break;
    case STRATA_EVENT_SAMPLE:
      fields[n++] = &ev->u.sample.comm;
      break;
    default:
      break;
    }
  return n;
}

/* Every field of every event equal, strings compared as strings (each
 * source has its pool). */
static void
assert_same_events (StrataSource *source_a,
                    GArray       *a,
                    StrataSource *source_b,
                    GArray       *b,
                    gboolean      same_offsets)
{
  StrataStringPool *pool_a = strata_source_get_strings (source_a);
  StrataStringPool *pool_b = strata_source_get_strings (source_b);

  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      StrataEvent x = g_array_index (a, StrataEvent, i);
      StrataEvent y = g_array_index (b, StrataEvent, i);
      guint32 *fx[4], *fy[4];
      guint nx = string_fields (&x, fx);
      guint ny = string_fields (&y, fy);

      g_assert_cmpint (x.ts, ==, y.ts);
      if (same_offsets)
        g_assert_cmpuint (x.source_offset, ==, y.source_offset);
      g_assert_cmpuint (x.type, ==, y.type);
      g_assert_cmpint (x.cpu, ==, y.cpu);
      g_assert_cmpint (x.pid, ==, y.pid);
      g_assert_cmpint (x.tgid, ==, y.tgid);
      g_assert_cmpuint (nx, ==, ny);
      for (guint k = 0; k < nx; k++)
        {
          g_assert_cmpstr (strata_string_pool_get (pool_a, *fx[k]), ==,
                           strata_string_pool_get (pool_b, *fy[k]));
          *fx[k] = *fy[k] = 0;
        }
      if (x.type == STRATA_EVENT_SAMPLE)
        {
          g_assert_cmpuint (x.u.sample.ip, ==, y.u.sample.ip);
          g_assert_cmpuint (x.u.sample.period, ==, y.u.sample.period);
          g_assert_cmpuint (x.u.sample.callchain, ==, y.u.sample.callchain);
        }
      else
        g_assert_cmpmem (&x.u, sizeof x.u.sched_switch, &y.u, sizeof y.u.sched_switch);
    }
}

/* The records read ahead in a thread of the source's own yield what the
 * caller's thread reading them alone yields: the same events in the same
 * order, the same counts of records and of events out of order, with the
 * default bound and with bounds far smaller than a round (the flushes
 * past the bound), in big batches and in tiny ones. On a tracepoint file
 * with two processors the thread must really have run. */
static void
test_read_ahead (void)
{
  static const char *const fixtures[] = {
    "perf-sched.data.xz", "perf-mono.data.xz", "perf-zstd.data.xz",
    "perf-switch.data.xz", "perf-callchain.data.xz", "perf-pipe.data.xz",
  };
  static const guint windows[] = { 0, 64, 7 };
  static const gsize batches[] = { 1024, 3 };

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);

      for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
        for (guint b = 0; b < G_N_ELEMENTS (batches); b++)
          {
            g_autoptr(StrataSource) serial_source = NULL;
            g_autoptr(StrataSource) ahead_source = NULL;
            g_autoptr(GArray) serial = read_in_mode (path, FALSE, windows[w], batches[b], &serial_source);
            g_autoptr(GArray) ahead = read_in_mode (path, TRUE, windows[w], batches[b], &ahead_source);
            StrataPerfSource *s = STRATA_PERF_SOURCE (serial_source);
            StrataPerfSource *a = STRATA_PERF_SOURCE (ahead_source);

            g_test_message ("%s, window %u, batch %" G_GSIZE_FORMAT ": %u events, %s",
                            fixtures[f], windows[w], batches[b], serial->len,
                            strata_perf_source_get_threaded (a) ? "read ahead" : "not read ahead");
            g_assert_false (strata_perf_source_get_threaded (s));
            if (g_str_equal (fixtures[f], "perf-sched.data.xz") && g_get_num_processors () > 1)
              g_assert_true (strata_perf_source_get_threaded (a));
            assert_same_events (serial_source, serial, ahead_source, ahead, TRUE);
            g_assert_cmpuint (strata_perf_source_get_out_of_order (s), ==,
                              strata_perf_source_get_out_of_order (a));
            g_assert_cmpint (strata_perf_source_get_order_overflow (s), ==,
                             strata_perf_source_get_order_overflow (a));
            for (guint type = 0; type < PERF_RECORD_MAX_TYPE; type++)
              g_assert_cmpuint (strata_perf_source_get_record_count (s, type), ==,
                                strata_perf_source_get_record_count (a, type));
            g_assert_cmpuint (strata_source_get_info (serial_source)->lost_events, ==,
                              strata_source_get_info (ahead_source)->lost_events);
          }
    }
}

/* perf 6.1 (here) writes COMPRESSED records, whose size is the zstd
 * bytes' own; newer perf writes COMPRESSED2: after the header, the size
 * of the zstd bytes as a u64, then the bytes, the record padded to a
 * multiple of 8. This re-frames a real -z recording (little-endian,
 * file mode) so: each COMPRESSED record's bytes go into COMPRESSED2
 * records, split where one would pass the 16-bit record size (the zstd
 * stream goes on across records, as it does across COMPRESSED ones),
 * every other record as it was; the header's data size and the feature
 * sections' offsets are moved by what the data grew. */
static GBytes *
reframe_as_compressed2 (const guint8 *file,
                        gsize         len,
                        guint        *n_records)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  guint64 data_offset = strata_test_le64 (file + 40);
  guint64 data_size = strata_test_le64 (file + 48);
  guint64 end = data_offset + data_size;
  guint64 pos = data_offset;
  guint n_features = 0;
  gint64 delta;

  g_assert_cmpmem (file, 8, "PERFILE2", 8);
  g_assert_cmpuint (end, <=, len);
  *n_records = 0;
  g_byte_array_append (out, file, data_offset);

  while (pos < end)
    {
      guint32 type = strata_test_le32 (file + pos);
      guint16 size = strata_test_le16 (file + pos + 6);

      g_assert_cmpuint (size, >=, 8);

      if (type == PERF_RECORD_COMPRESSED)
        {
          const guint8 *zstd = file + pos + 8;
          gsize left = size - 8;

          while (left > 0)
            {
              gsize take = MIN (left, 65512);
              gsize rec_size = (16 + take + 7) & ~(gsize) 7;
              guint8 head[16];
              static const guint8 zeros[8] = { 0 };

              strata_test_perf_record_header (head, PERF_RECORD_COMPRESSED2, 0, rec_size);
              strata_test_put64 (head + 8, take);
              g_byte_array_append (out, head, 16);
              g_byte_array_append (out, zstd, take);
              g_byte_array_append (out, zeros, rec_size - 16 - take);
              zstd += take;
              left -= take;
              (*n_records)++;
            }
        }
      else
        g_byte_array_append (out, file + pos, size);
      pos += size;
    }

  delta = (gint64) (out->len - data_offset) - (gint64) data_size;
  strata_test_put64 (out->data + 48, out->len - data_offset);

  /* The feature sections' table follows the data: one entry (offset,
   * size) per bit of the header's feature bitmap. */
  for (guint i = 0; i < 4; i++)
    n_features += __builtin_popcountll (strata_test_le64 (file + 72 + 8 * i));
  g_assert_cmpuint (end + 16 * n_features, <=, len);
  for (guint i = 0; i < n_features; i++)
    {
      guint8 entry[16];

      memcpy (entry, file + end + 16 * i, 16);
      g_assert_cmpuint (strata_test_le64 (entry), >=, end + 16 * n_features);
      strata_test_put64 (entry, strata_test_le64 (entry) + delta);
      g_byte_array_append (out, entry, 16);
    }
  g_byte_array_append (out, file + end + 16 * n_features, len - end - 16 * n_features);

  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

/* A COMPRESSED2 file (made from the real -z recording) reads as the
 * COMPRESSED one does: the same events (but for their offsets, which are
 * the compressed records'), the same records inside; a COMPRESSED2 whose
 * data size says more than the record holds is damage, said so. */
static void
test_compressed2 (void)
{
  g_autofree char *path = strata_test_fixture ("perf-zstd.data.xz");
  g_autofree char *contents = NULL;
  g_autofree char *dir = g_dir_make_tmp ("strata-perf-c2-XXXXXX", NULL);
  g_autofree char *c2_path = g_build_filename (dir, "perf-zstd2.data", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(StrataSource) c2_source = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(GArray) c2_events = NULL;
  g_autoptr(GBytes) c2 = NULL;
  g_autofree guint8 *bad = NULL;
  gsize len, c2_len;
  guint n_records;
  const guint8 *data;

  g_assert_true (g_file_get_contents (path, &contents, &len, &error));
  c2 = reframe_as_compressed2 ((const guint8 *) contents, len, &n_records);
  data = g_bytes_get_data (c2, &c2_len);
  g_assert_true (g_file_set_contents (c2_path, (const char *) data, c2_len, &error));

  events = read_in_mode (path, FALSE, 0, 1024, &source);
  c2_events = read_in_mode (c2_path, FALSE, 0, 1024, &c2_source);
  g_test_message ("%u COMPRESSED records, %u COMPRESSED2; %u events",
                  (guint) strata_perf_source_get_record_count (STRATA_PERF_SOURCE (source), PERF_RECORD_COMPRESSED),
                  n_records, events->len);
  g_assert_cmpuint (events->len, >, 0);
  assert_same_events (source, events, c2_source, c2_events, FALSE);
  g_assert_cmpuint (strata_perf_source_get_record_count (STRATA_PERF_SOURCE (c2_source), PERF_RECORD_COMPRESSED2),
                    ==, n_records);
  g_assert_cmpuint (strata_perf_source_get_record_count (STRATA_PERF_SOURCE (c2_source), PERF_RECORD_COMPRESSED),
                    ==, 0);
  g_assert_cmpuint (n_records, >=,
                    strata_perf_source_get_record_count (STRATA_PERF_SOURCE (source), PERF_RECORD_COMPRESSED));
  for (guint type = 0; type < PERF_RECORD_MAX_TYPE; type++)
    if (type != PERF_RECORD_COMPRESSED && type != PERF_RECORD_COMPRESSED2)
      g_assert_cmpuint (strata_perf_source_get_record_count (STRATA_PERF_SOURCE (source), type), ==,
                        strata_perf_source_get_record_count (STRATA_PERF_SOURCE (c2_source), type));
  g_assert_cmpstr (strata_source_get_info (c2_source)->compression, ==,
                   strata_source_get_info (source)->compression);

  /* The first COMPRESSED2's data size made larger than its record. */
  bad = g_memdup2 (data, c2_len);
  for (guint64 pos = strata_test_le64 (bad + 40); pos < strata_test_le64 (bad + 40) + strata_test_le64 (bad + 48);)
    {
      guint16 size = strata_test_le16 (bad + pos + 6);

      if (strata_test_le32 (bad + pos) == PERF_RECORD_COMPRESSED2)
        {
          strata_test_put64 (bad + pos + 8, size);
          break;
        }
      pos += size;
    }
  g_assert_true (g_file_set_contents (c2_path, (const char *) bad, c2_len, &error));
  {
    g_autoptr(StrataSource) bad_source = strata_source_open (c2_path, &error);
    StrataEvent batch[256];
    gssize n;

    g_assert_no_error (error);
    while ((n = strata_source_read_batch (bad_source, batch, G_N_ELEMENTS (batch), &error)) > 0)
      ;
    g_assert_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT);
    g_assert_nonnull (strstr (error->message, "COMPRESSED2"));
  }

  g_unlink (c2_path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (recordings); i++)
    {
      const Recording *rec = &recordings[i];
      g_autofree char *p1 = g_strdup_printf ("/strata/perf/%s/records-equal-perf-report-stats", rec->fixture);
      g_autofree char *p2 = g_strdup_printf ("/strata/perf/%s/samples-equal-perf-script", rec->fixture);
      g_autofree char *p3 = g_strdup_printf ("/strata/perf/%s/time-order-and-info", rec->fixture);
      g_autofree char *p4 = g_strdup_printf ("/strata/perf/%s/run-time-equals-timehist", rec->fixture);

      if (rec->has_stats)
        {
          g_test_add_data_func (p1, rec, test_record_counts);
          g_test_add_data_func (p2, rec, test_sample_counts);
        }
      g_test_add_data_func (p3, rec, test_order_and_info);
      if (rec->timehist)
        g_test_add_data_func (p4, rec, test_timehist);
    }
  g_test_add_func ("/strata/perf/callchains-equal-perf-report-dump", test_callchains);
  g_test_add_func ("/strata/perf/switch-events-drive-the-model", test_switch_events);
  g_test_add_func ("/strata/perf/samples-on-thread-rows", test_samples_on_threads);
  g_test_add_func ("/strata/perf/symbols-equal-perf-script", test_symbols);
  g_test_add_func ("/strata/perf/cli-info-stats-query-render", test_cli);
  g_test_add_func ("/strata/perf/reorder-window-overflow", test_small_window);
  g_test_add_func ("/strata/perf/read-ahead-equals-reading-alone", test_read_ahead);
  g_test_add_func ("/strata/perf/compressed2-equals-compressed", test_compressed2);

  return g_test_run ();
}
