/* strata-cli-stats.c
 *
 * `strata-cli stats FILE`: how the CPUs were used (busy, idle, IRQ, softirq
 * shares of the trace's span), which threads ran most and how long they
 * waited, wakeup latencies (waking to running) per thread and overall, and
 * context switches; for traces with samples (perf.data, eBPF recordings with
 * --freq), the top functions
 * of the samples in a time range (--from, --to).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "strata-cli.h"
#include "strata-cli-format.h"
#include "strata-cli-histogram.h"
#include "strata-cli-samples.h"
#include "strata-json-writer.h"

static const char *
thread_name (StrataTrace             *trace,
             const StrataThreadStats *ts)
{
  guint n;
  const StrataChannel *channels = strata_trace_get_channels (trace, &n);
  const char *name = strata_trace_get_string (trace, channels[ts->channel].name);

  return name[0] ? name : "<unknown>";
}

static void
json_latency (StrataJsonWriter    *w,
              const StrataLatency *l)
{
  strata_json_writer_begin_object (w);
  strata_json_writer_key (w, "count");
  strata_json_writer_uint (w, l->count);
  strata_json_writer_key (w, "p50_ns");
  strata_json_writer_int (w, l->p50);
  strata_json_writer_key (w, "p90_ns");
  strata_json_writer_int (w, l->p90);
  strata_json_writer_key (w, "p99_ns");
  strata_json_writer_int (w, l->p99);
  strata_json_writer_key (w, "max_ns");
  strata_json_writer_int (w, l->max);
  strata_json_writer_end_object (w);
}

static void
print_json (StrataTrace       *trace,
            const StrataStats *stats,
            const char        *path,
            guint              top,
            StrataCliSamples  *samples,
            const StrataHistogram *histograms)
{
  g_autoptr(StrataJsonWriter) w = strata_json_writer_new ();
  g_autofree char *out = NULL;
  gint64 span = stats->end - stats->start;

  strata_json_writer_begin_object (w);
  strata_json_writer_key (w, "file");
  strata_json_writer_string (w, path);
  strata_json_writer_key (w, "start_ns");
  strata_json_writer_int (w, stats->start);
  strata_json_writer_key (w, "end_ns");
  strata_json_writer_int (w, stats->end);
  strata_json_writer_key (w, "span_ns");
  strata_json_writer_int (w, span);
  strata_json_writer_key (w, "context_switches");
  strata_json_writer_uint (w, stats->switches);

  strata_json_writer_key (w, "cpus");
  strata_json_writer_begin_array (w);
  for (guint i = 0; i < stats->cpus->len; i++)
    {
      const StrataCpuStats *cs = &g_array_index (stats->cpus, StrataCpuStats, i);

      strata_json_writer_begin_object (w);
      strata_json_writer_key (w, "cpu");
      strata_json_writer_int (w, cs->cpu);
      strata_json_writer_key (w, "instance");
      strata_json_writer_uint (w, cs->instance);
      strata_json_writer_key (w, "busy_ns");
      strata_json_writer_int (w, cs->busy);
      strata_json_writer_key (w, "idle_ns");
      strata_json_writer_int (w, cs->idle);
      strata_json_writer_key (w, "irq_ns");
      strata_json_writer_int (w, cs->irq);
      strata_json_writer_key (w, "softirq_ns");
      strata_json_writer_int (w, cs->softirq);
      strata_json_writer_key (w, "unknown_ns");
      strata_json_writer_int (w, cs->unknown);
      strata_json_writer_key (w, "context_switches");
      strata_json_writer_uint (w, cs->switches);
      strata_json_writer_end_object (w);
    }
  strata_json_writer_end_array (w);

  strata_json_writer_key (w, "threads");
  strata_json_writer_begin_array (w);
  for (guint i = 0; i < stats->threads->len && i < top; i++)
    {
      const StrataThreadStats *ts = &g_array_index (stats->threads, StrataThreadStats, i);

      strata_json_writer_begin_object (w);
      strata_json_writer_key (w, "tid");
      strata_json_writer_int (w, ts->tid);
      strata_json_writer_key (w, "pid");
      if (ts->tgid > 0)
        strata_json_writer_int (w, ts->tgid);
      else
        strata_json_writer_null (w);
      strata_json_writer_key (w, "comm");
      strata_json_writer_string (w, thread_name (trace, ts));
      strata_json_writer_key (w, "instance");
      strata_json_writer_uint (w, ts->instance);
      strata_json_writer_key (w, "running_ns");
      strata_json_writer_int (w, ts->running);
      strata_json_writer_key (w, "runnable_ns");
      strata_json_writer_int (w, ts->runnable + ts->woken);
      strata_json_writer_key (w, "preempted_ns");
      strata_json_writer_int (w, ts->runnable);
      strata_json_writer_key (w, "woken_ns");
      strata_json_writer_int (w, ts->woken);
      strata_json_writer_key (w, "sleeping_ns");
      strata_json_writer_int (w, ts->sleeping);
      strata_json_writer_key (w, "uninterruptible_ns");
      strata_json_writer_int (w, ts->blocked);
      strata_json_writer_key (w, "switches_in");
      strata_json_writer_uint (w, ts->switches_in);
      strata_json_writer_key (w, "wakeup_latency");
      json_latency (w, &ts->wakeup);
      strata_json_writer_end_object (w);
    }
  strata_json_writer_end_array (w);

  strata_json_writer_key (w, "wakeup_latency");
  json_latency (w, &stats->wakeup);
  strata_cli_samples_json (samples, w);
  if (histograms != NULL)
    strata_cli_histograms_json (histograms, w);
  strata_json_writer_end_object (w);

  out = strata_json_writer_finish (w);
  fputs (out, stdout);
}

static void
print_latency_cells (const StrataLatency *l)
{
  g_autofree char *p50 = NULL, *p90 = NULL, *p99 = NULL, *max = NULL;

  if (l->count == 0)
    {
      printf ("  %7s %10s %10s %10s %10s", "0", "-", "-", "-", "-");
      return;
    }

  p50 = strata_format_duration (l->p50);
  p90 = strata_format_duration (l->p90);
  p99 = strata_format_duration (l->p99);
  max = strata_format_duration (l->max);
  printf ("  %7u %10s %10s %10s %10s", l->count, p50, p90, p99, max);
}

static void
print_human (StrataTrace       *trace,
             const StrataStats *stats,
             const char        *path,
             guint              top)
{
  gint64 span = stats->end - stats->start;
  g_autofree char *span_s = strata_format_duration (span);
  guint comm_width = 16;

  printf ("%s: %s span, %" G_GUINT64_FORMAT " context switches\n\n",
          path, span_s, stats->switches);

  printf ("%-8s %8s %8s %8s %8s %8s %10s\n",
          "CPU", "busy", "idle", "irq", "softirq", "unknown", "switches");
  for (guint i = 0; i < stats->cpus->len; i++)
    {
      const StrataCpuStats *cs = &g_array_index (stats->cpus, StrataCpuStats, i);
      g_autofree char *busy = strata_format_percent (cs->busy, span);
      g_autofree char *idle = strata_format_percent (cs->idle, span);
      g_autofree char *irq = strata_format_percent (cs->irq, span);
      g_autofree char *softirq = strata_format_percent (cs->softirq, span);
      g_autofree char *unknown = strata_format_percent (cs->unknown, span);
      g_autofree char *label = NULL;

      if (cs->instance > 0)
        {
          const StrataSourceInfo *info = strata_trace_get_info (trace);
          const char *inst = cs->instance < info->instances->len
                               ? g_ptr_array_index (info->instances, cs->instance) : "?";
          label = g_strdup_printf ("%s/%d", inst, cs->cpu);
        }
      else
        label = g_strdup_printf ("%d", cs->cpu);

      printf ("%-8s %8s %8s %8s %8s %8s %10" G_GUINT64_FORMAT "\n",
              label, busy, idle, irq, softirq, unknown, cs->switches);
    }

  for (guint i = 0; i < stats->threads->len && i < top; i++)
    {
      const StrataThreadStats *ts = &g_array_index (stats->threads, StrataThreadStats, i);
      comm_width = MAX (comm_width, g_utf8_strlen (thread_name (trace, ts), -1));
    }

  printf ("\nTop threads by time on CPU\n");
  printf ("%8s  %-*s %10s %10s %10s %10s  %7s %10s %10s %10s %10s\n",
          "TID", comm_width, "COMM", "running", "runnable", "sleeping", "blocked",
          "wakeups", "lat p50", "lat p90", "lat p99", "lat max");
  for (guint i = 0; i < stats->threads->len && i < top; i++)
    {
      const StrataThreadStats *ts = &g_array_index (stats->threads, StrataThreadStats, i);
      g_autofree char *running = strata_format_duration (ts->running);
      g_autofree char *runnable = strata_format_duration (ts->runnable + ts->woken);
      g_autofree char *sleeping = strata_format_duration (ts->sleeping);
      g_autofree char *blocked = strata_format_duration (ts->blocked);
      const char *name = thread_name (trace, ts);
      int pad = comm_width - g_utf8_strlen (name, -1) + strlen (name);

      printf ("%8d  %-*s %10s %10s %10s %10s", ts->tid, pad, name,
              running, runnable, sleeping, blocked);
      print_latency_cells (&ts->wakeup);
      printf ("\n");
    }

  printf ("\nWakeup latency (waking to running), all threads\n");
  printf ("  %7s %10s %10s %10s %10s\n", "count", "p50", "p90", "p99", "max");
  print_latency_cells (&stats->wakeup);
  printf ("\n");
}

static void
samples_sink (const StrataActivity *activity,
              gpointer              user_data)
{
  strata_cli_samples_add (user_data, activity);
}

typedef struct
{
  StrataStatsBuilder *builder;
  StrataCliSamples   *samples;
} StatsSink;

static void
stats_sink (const StrataActivity *activity,
            gpointer              user_data)
{
  StatsSink *sink = user_data;

  strata_stats_builder_add (activity, sink->builder);
  strata_cli_samples_add (sink->samples, activity);
}

static gboolean
format_has_callchains (const char *file)
{
  g_autoptr(StrataSource) source = strata_source_open (file, NULL);

  return source != NULL && strata_source_has_callchains (source);
}

int
strata_cli_stats (int    argc,
                  char **argv)
{
  g_autoptr(StrataCliSamples) samples = strata_cli_samples_new ();
  g_autofree char *from_text = NULL;
  g_autofree char *to_text = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataTrace) sampled = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataStatsBuilder) builder = NULL;
  g_autoptr(StrataStats) own_stats = NULL;
  StrataCliIndexOptions index;
  const StrataStats *stats;
  gint64 from, to;
  StrataHistogram histograms[STRATA_N_HISTOGRAMS];
  gboolean json = FALSE;
  gboolean histogram = FALSE;
  int top = 20;
  int tid = -1;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "top", 'n', 0, G_OPTION_ARG_INT, &top, "Show the N threads that ran longest (default 20)", "N" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from_text, "Samples from T on (default: the trace's start)", "T" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to_text, "Samples before T (default: the trace's end)", "T" },
    { "histogram", 0, 0, G_OPTION_ARG_NONE, &histogram,
      "Wakeup latency and run slice histograms between --from and --to (log buckets, percentiles)", NULL },
    { "tid", 0, 0, G_OPTION_ARG_INT, &tid, "The histograms of one thread (default: all)", "N" },
    { NULL }
  };
  const char *file;

  file = strata_cli_parse_file_args ("stats", "CPU usage, thread times and wakeup latencies",
                                     entries, strata_cli_index_option_group (&index), &argc, &argv);
  if (file == NULL)
    return STRATA_CLI_EXIT_FAILED;

  if (top < 0)
    top = G_MAXINT;

  if (index.no_index)
    {
      StatsSink sink;

      /* Without the index, one pass: the statistics and the samples taken
       * from the activities as they stream past, with no zoom tree built
       * only to be thrown away and no second read for the samples. */
      g_free (index.index_path);
      builder = strata_stats_builder_new ();
      sink.builder = builder;
      sink.samples = samples;
      {
        g_autoptr(StrataLoader) loader = strata_loader_new (file);

        strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
        strata_loader_set_sink (loader, stats_sink, NULL, &sink);
        trace = strata_loader_load (loader, NULL, &error);
      }
      if (trace == NULL)
        {
          g_printerr ("strata-cli: %s\n", error->message);
          return STRATA_CLI_EXIT_FAILED;
        }
      own_stats = strata_stats_builder_finish (builder, trace);
      stats = own_stats;
    }
  else
    {
      /* The index keeps the statistics; the pass that builds it accounts
       * the activities as they stream past, without keeping them. */
      trace = strata_cli_open_trace (file, NULL, &index);
      if (trace == NULL)
        {
          g_free (index.index_path);
          return STRATA_CLI_EXIT_FAILED;
        }
      stats = strata_trace_get_stats (trace);
      /* The thread rows are checked as they are first asked for: an
       * index whose rows are damaged is rebuilt and asked again. */
      if (strata_cli_rebuild_if_damaged (&trace, file, NULL, &index))
        stats = trace != NULL ? strata_trace_get_stats (trace) : NULL;
      g_free (index.index_path);
      if (trace == NULL)
        return STRATA_CLI_EXIT_FAILED;
    }
  g_assert (stats != NULL);

  from = strata_trace_get_start (trace);
  to = strata_trace_get_end (trace) + 1;
  if ((from_text != NULL && !strata_parse_time (from_text, strata_trace_get_start (trace), &from, &error)) ||
      (to_text != NULL && !strata_parse_time (to_text, strata_trace_get_start (trace), &to, &error)))
    {
      g_printerr ("strata-cli: %s\n", error->message);
      return STRATA_CLI_EXIT_FAILED;
    }

  /* Call chains live in the source, not (yet) in the index: a trace of
   * a format with samples is read once more for them, their chains and
   * their symbols. */
  if (!format_has_callchains (file))
    ;
  else if (own_stats != NULL)
    strata_cli_samples_resolve (samples, trace, from, to, top);
  else
    {
      {
        g_autoptr(StrataLoader) loader = strata_loader_new (file);

        strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
        strata_loader_set_sink (loader, samples_sink, NULL, samples);
        sampled = strata_loader_load (loader, NULL, &error);
      }
      if (sampled == NULL)
        {
          g_printerr ("strata-cli: %s\n", error->message);
          return STRATA_CLI_EXIT_FAILED;
        }
      strata_cli_samples_resolve (samples, sampled, from, to, top);
    }

  /* From the raw store of the index (or of the pass just made without
   * one): the values are read there, not kept by the statistics. */
  if (histogram)
    {
      if (index.no_index && strata_trace_get_zoom_tree (trace) == NULL)
        {
          g_printerr ("strata-cli stats: --histogram reads the trace's index: drop --no-index\n");
          return STRATA_CLI_EXIT_FAILED;
        }
      strata_cli_histograms_compute (trace, tid, from, to, histograms);
    }

  if (json)
    print_json (trace, stats, file, top, samples, histogram ? histograms : NULL);
  else
    {
      print_human (trace, stats, file, top);
      strata_cli_samples_print (samples);
      if (histogram)
        strata_cli_histograms_print (histograms);
    }

  return strata_cli_finish (trace);
}
