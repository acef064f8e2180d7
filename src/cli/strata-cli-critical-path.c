/* strata-cli-critical-path.c
 *
 * `strata-cli critical-path FILE --tid N [--from T] [--to T] [--json]`:
 * what a thread's time over a range was spent waiting for, as a sequence
 * of (thread, state, interval) that covers the range (see
 * strata-critical-path.h), with each thread's share of it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include "strata-cli.h"
#include "strata-cli-format.h"
#include "strata-json-writer.h"

static const char *
wait_name (StrataPathWait wait)
{
  switch (wait)
    {
    case STRATA_PATH_WAIT_UNENDED:   return "not woken in the range";
    case STRATA_PATH_WAIT_INTERRUPT: return "woken by an interrupt";
    case STRATA_PATH_WAIT_UNKNOWN:   return "waker not in the trace";
    case STRATA_PATH_WAIT_NONE:
    default:                         return NULL;
    }
}

static const char *
wait_key (StrataPathWait wait)
{
  switch (wait)
    {
    case STRATA_PATH_WAIT_UNENDED:   return "unended";
    case STRATA_PATH_WAIT_INTERRUPT: return "interrupt";
    case STRATA_PATH_WAIT_UNKNOWN:   return "unknown";
    case STRATA_PATH_WAIT_NONE:
    default:                         return "none";
    }
}

static const char *
comm_of (StrataTrace *trace,
         guint32      channel)
{
  const StrataChannel *channels;
  guint n;
  const char *name;

  channels = strata_trace_get_channels (trace, &n);
  if (channel >= n)
    return "?";
  name = strata_trace_get_string (trace, channels[channel].name);
  return name != NULL && name[0] != '\0' ? name : "<unknown>";
}

static void
print_json (StrataTrace  *trace,
            const char   *file,
            gint32        tid,
            gint64        from,
            gint64        to,
            const GArray *path,
            const GArray *threads)
{
  g_autoptr(StrataJsonWriter) w = strata_json_writer_new ();
  g_autofree char *out = NULL;

  strata_json_writer_begin_object (w);
  strata_json_writer_key (w, "file");
  strata_json_writer_string (w, file);
  strata_json_writer_key (w, "tid");
  strata_json_writer_int (w, tid);
  strata_json_writer_key (w, "from_ns");
  strata_json_writer_int (w, from);
  strata_json_writer_key (w, "to_ns");
  strata_json_writer_int (w, to);
  strata_json_writer_key (w, "segments");
  strata_json_writer_begin_array (w);
  for (guint i = 0; i < path->len; i++)
    {
      const StrataPathSegment *s = &g_array_index (path, StrataPathSegment, i);

      strata_json_writer_begin_object (w);
      strata_json_writer_key (w, "start_ns");
      strata_json_writer_int (w, s->start);
      strata_json_writer_key (w, "end_ns");
      strata_json_writer_int (w, s->end);
      strata_json_writer_key (w, "duration_ns");
      strata_json_writer_int (w, s->end - s->start);
      strata_json_writer_key (w, "tid");
      strata_json_writer_int (w, s->tid);
      strata_json_writer_key (w, "comm");
      strata_json_writer_string (w, comm_of (trace, s->channel));
      strata_json_writer_key (w, "state");
      strata_json_writer_string (w, strata_task_state_to_string (s->state));
      strata_json_writer_key (w, "wait");
      strata_json_writer_string (w, wait_key (s->wait));
      strata_json_writer_key (w, "cpu");
      if (s->cpu >= 0)
        strata_json_writer_int (w, s->cpu);
      else
        strata_json_writer_null (w);
      strata_json_writer_key (w, "woken_by");
      if (s->woken_by >= 0)
        strata_json_writer_int (w, s->woken_by);
      else
        strata_json_writer_null (w);
      strata_json_writer_key (w, "depth");
      strata_json_writer_uint (w, s->depth);
      strata_json_writer_end_object (w);
    }
  strata_json_writer_end_array (w);
  strata_json_writer_key (w, "threads");
  strata_json_writer_begin_array (w);
  for (guint i = 0; i < threads->len; i++)
    {
      const StrataPathThread *t = &g_array_index (threads, StrataPathThread, i);

      strata_json_writer_begin_object (w);
      strata_json_writer_key (w, "tid");
      strata_json_writer_int (w, t->tid);
      strata_json_writer_key (w, "comm");
      strata_json_writer_string (w, comm_of (trace, t->channel));
      strata_json_writer_key (w, "total_ns");
      strata_json_writer_int (w, t->total);
      strata_json_writer_key (w, "running_ns");
      strata_json_writer_int (w, t->running);
      strata_json_writer_key (w, "segments");
      strata_json_writer_uint (w, t->n_segments);
      strata_json_writer_end_object (w);
    }
  strata_json_writer_end_array (w);
  strata_json_writer_end_object (w);

  out = strata_json_writer_finish (w);
  fputs (out, stdout);
}

static void
print_human (StrataTrace  *trace,
             const char   *file,
             guint32       channel,
             gint64        from,
             gint64        to,
             const GArray *path,
             const GArray *threads)
{
  const StrataChannel *channels;
  gint64 start = strata_trace_get_start (trace);
  g_autofree char *f = strata_format_duration (from - start);
  g_autofree char *t = strata_format_duration (to - start);
  g_autofree char *len = strata_format_duration (to - from);
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  printf ("%s: critical path of %s %d from +%s to +%s (%s), %u segments\n\n",
          file, comm_of (trace, channel), channels[channel].id, f, t, len, path->len);
  printf ("%12s %10s %7s  %-24s %s\n", "start", "duration", "share", "thread", "state");
  for (guint i = 0; i < path->len; i++)
    {
      const StrataPathSegment *s = &g_array_index (path, StrataPathSegment, i);
      g_autofree char *at = strata_format_duration (s->start - start);
      g_autofree char *d = strata_format_duration (s->end - s->start);
      g_autofree char *share = strata_format_percent (s->end - s->start, to - from);
      g_autofree char *who = g_strdup_printf ("%s %d", comm_of (trace, s->channel), s->tid);
      const char *why = wait_name (s->wait);

      printf ("%12s %10s %7s  %-24s %s", at, d, share, who, strata_task_state_to_string (s->state));
      if (s->state == STRATA_TASK_STATE_RUNNING && s->cpu >= 0)
        printf (" on CPU %d", s->cpu);
      if (why != NULL)
        printf (" (%s", why);
      if (why != NULL && s->woken_by >= 0 && s->wait == STRATA_PATH_WAIT_INTERRUPT)
        printf (" in tid %d", s->woken_by);
      if (why != NULL && s->cpu >= 0)
        printf (" on CPU %d", s->cpu);
      if (why != NULL)
        printf (")");
      printf ("\n");
    }

  printf ("\n%-24s %10s %7s %10s\n", "thread", "on path", "share", "running");
  for (guint i = 0; i < threads->len; i++)
    {
      const StrataPathThread *p = &g_array_index (threads, StrataPathThread, i);
      g_autofree char *who = g_strdup_printf ("%s %d", comm_of (trace, p->channel), p->tid);
      g_autofree char *total = strata_format_duration (p->total);
      g_autofree char *share = strata_format_percent (p->total, to - from);
      g_autofree char *running = strata_format_duration (p->running);

      printf ("%-24s %10s %7s %10s\n", who, total, share, running);
    }
}

int
strata_cli_critical_path (int    argc,
                          char **argv)
{
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataThreadMap) threads = NULL;
  g_autoptr(GArray) path = NULL;
  g_autoptr(GArray) by_thread = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *from_text = NULL;
  g_autofree char *to_text = NULL;
  StrataCliIndexOptions index = { 0 };
  gboolean json = FALSE;
  int tid = -1;
  const GOptionEntry entries[] = {
    { "tid", 0, 0, G_OPTION_ARG_INT, &tid, "The thread whose path to follow", "N" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from_text, "Start of the range (default: the thread's first sight)", "T" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to_text, "End of the range (default: the thread's end, or the trace's)", "T" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { NULL }
  };
  const StrataChannel *channels;
  const char *file;
  guint32 channel;
  gint64 start, end, from, to;
  guint n;

  file = strata_cli_parse_file_args ("critical-path",
                                     "what a thread waited for over a range: running, it is on "
                                     "the path; blocked, the path follows the thread that woke it",
                                     entries, strata_cli_index_option_group (&index), &argc, &argv);
  if (file == NULL)
    return STRATA_CLI_EXIT_FAILED;
  if (tid <= 0)
    {
      g_printerr ("strata-cli critical-path: --tid N is needed (a thread id above 0)\n");
      g_free (index.index_path);
      return STRATA_CLI_EXIT_FAILED;
    }

  trace = strata_cli_open_trace (file, NULL, &index);
  g_free (index.index_path);
  if (trace == NULL)
    return STRATA_CLI_EXIT_FAILED;

  start = strata_trace_get_start (trace);
  end = strata_trace_get_end (trace);
  from = G_MININT64;
  to = G_MAXINT64;
  if ((from_text != NULL && !strata_parse_time (from_text, start, &from, &error)) ||
      (to_text != NULL && !strata_parse_time (to_text, start, &to, &error)))
    {
      g_printerr ("strata-cli critical-path: %s\n", error->message);
      return STRATA_CLI_EXIT_FAILED;
    }

  threads = strata_thread_map_new (trace);
  channel = strata_thread_map_find (threads, tid, MAX (from, start), MIN (to, end));
  if (channel == STRATA_CHANNEL_NONE)
    {
      g_printerr ("strata-cli critical-path: %s: no thread %d in the trace\n", file, tid);
      return STRATA_CLI_EXIT_FAILED;
    }
  channels = strata_trace_get_channels (trace, &n);
  if (from == G_MININT64)
    from = MAX (start, channels[channel].begin);
  if (to == G_MAXINT64)
    to = MIN (end, channels[channel].end);

  path = strata_critical_path_compute (trace, channel, from, to, &error);
  if (path == NULL)
    {
      g_printerr ("strata-cli critical-path: %s: %s\n", file, error->message);
      return STRATA_CLI_EXIT_FAILED;
    }
  by_thread = strata_critical_path_by_thread (path);

  if (json)
    print_json (trace, file, tid, from, to, path, by_thread);
  else
    print_human (trace, file, channel, from, to, path, by_thread);

  return strata_cli_finish (trace);
}
