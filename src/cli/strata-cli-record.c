/* strata-cli-record.c
 *
 * `strata-cli record [-o FILE] [--duration TIME] [--events SET,...]
 * [--freq HZ] [--buffer-size SIZE] [-- COMMAND ...]`: a thin client of
 * the eBPF recorder (plugins/ebpf/strata-ebpf-recorder.h). It parses the
 * options, starts the recorder, runs COMMAND once the hooks are in, and
 * stops on SIGINT, SIGTERM, the duration or COMMAND's exit; on a terminal
 * it shows a status line while recording and, always, a summary after.
 * The application records by running this command (recording needs
 * privileges it does not have), and reads the file as it grows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>

#include "strata-cli.h"
#include "strata-cli-format.h"
#include "strata-ebpf-recorder.h"

#define DEFAULT_OUTPUT "trace.strata"

typedef struct
{
  StrataEbpfRecorder *recorder;
  GMainLoop          *loop;
  gboolean            tty;
  guint64             last_records;
  gint64              last_elapsed;
  double              rate;
  GPid                child;
  gboolean            child_running;
  gboolean            child_group;     /* it leads a process group of its own */
  int                 child_status;
  const char         *stopped_by;
} Record;

static gboolean
parse_size (const char  *text,
            guint64     *out,
            GError     **error)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 10);
  guint shift = 0;

  if (end == text)
    goto bad;
  switch (g_ascii_toupper (*end))
    {
    case '\0': break;
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: goto bad;
    }
  if (g_ascii_toupper (*end) == 'I')
    end++;
  if (g_ascii_toupper (*end) == 'B')
    end++;
  if (*end != '\0' || v == 0 || v > (G_GUINT64_CONSTANT (1) << 40) >> shift)
    goto bad;
  *out = v << shift;
  return TRUE;

bad:
  g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_INVALID,
               "--buffer-size %s: expected a size such as 16M, 512K or 1G", text);
  return FALSE;
}

/* A bare number is seconds; otherwise a time with its unit (500ms). */
static gboolean
parse_duration (const char  *text,
                gint64      *ns,
                GError     **error)
{
  g_autoptr(GError) local = NULL;
  char *end = NULL;
  guint64 seconds = g_ascii_strtoull (text, &end, 10);

  if (end != text && *end == '\0')
    {
      *ns = (gint64) MIN (seconds, (guint64) G_MAXINT32) * G_GINT64_CONSTANT (1000000000);
      return *ns > 0 || (g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_INVALID,
                                      "--duration must be more than 0"), FALSE);
    }
  if (end != text && *end == 'm' && end[1] == '\0')
    {
      *ns = (gint64) MIN (seconds, (guint64) G_MAXINT32) * 60 * G_GINT64_CONSTANT (1000000000);
      return TRUE;
    }
  if (!strata_parse_time (text, 0, ns, &local) || *ns <= 0)
    {
      g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_INVALID,
                   "--duration %s: expected a time such as 10 (seconds), 2.5s, 500ms or 5m", text);
      return FALSE;
    }
  return TRUE;
}

/* "1.6 MB", with a plain space whatever the locale. */
static char *
format_bytes (guint64 bytes)
{
  g_autofree char *value = g_format_size_full (bytes, G_FORMAT_SIZE_ONLY_VALUE);
  g_autofree char *unit = g_format_size_full (bytes, G_FORMAT_SIZE_ONLY_UNIT);

  return g_strdup_printf ("%s %s", value, unit);
}

/* An argument as a shell reads it back, quoted only when it must be. */
static char *
quote_if_needed (const char *arg)
{
  if (*arg == '\0')
    return g_strdup ("''");
  for (const char *p = arg; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("_./=:,+-@%", *p) == NULL)
      return g_shell_quote (arg);
  return g_strdup (arg);
}

static void
print_status (Record   *r,
              gboolean  final)
{
  StrataRecordStatus s;
  g_autofree char *size = NULL;

  strata_ebpf_recorder_get_status (r->recorder, &s);
  if (s.elapsed_ns > r->last_elapsed)
    r->rate = (double) (s.records - r->last_records) * 1e9 / (s.elapsed_ns - r->last_elapsed);
  r->last_records = s.records;
  r->last_elapsed = s.elapsed_ns;

  if (!r->tty)
    return;
  size = format_bytes (s.bytes);
  fprintf (stderr, "\rrecording %7.1f s  %10.0f events/s  %8" G_GUINT64_FORMAT " lost  %10s%s",
           s.elapsed_ns / 1e9, r->rate, s.lost, size, final ? "\n" : "  ");
  fflush (stderr);
}

static gboolean
on_tick (gpointer data)
{
  Record *r = data;
  StrataRecordStatus s;

  print_status (r, FALSE);
  strata_ebpf_recorder_get_status (r->recorder, &s);
  if (s.failed)
    {
      r->stopped_by = "an error";
      g_main_loop_quit (r->loop);
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_signal (gpointer data)
{
  Record *r = data;

  r->stopped_by = "a signal";
  g_main_loop_quit (r->loop);
  return G_SOURCE_CONTINUE;
}

/* --stop-on-eof: the application that started this one closed its end
 * of our stdin (Stop, or it went away). Through pkexec this is the only
 * way it can stop us: it cannot signal a process that runs as root. */
static gboolean
on_stdin (int          fd,
          GIOCondition condition,
          gpointer     data)
{
  Record *r = data;
  char buf[256];
  gssize n;

  if (condition & G_IO_IN)
    {
      do
        n = read (fd, buf, sizeof buf);
      while (n < 0 && errno == EINTR);
      if (n > 0 || (n < 0 && errno == EAGAIN))
        return G_SOURCE_CONTINUE;
    }
  r->stopped_by = "the end of stdin";
  g_main_loop_quit (r->loop);
  return G_SOURCE_REMOVE;
}

/* In the child, before exec: a process group of its own. */
static void
own_process_group (gpointer data)
{
  setpgid (0, 0);
}

static gboolean
on_duration (gpointer data)
{
  Record *r = data;

  r->stopped_by = "--duration";
  g_main_loop_quit (r->loop);
  return G_SOURCE_REMOVE;
}

static void
on_child_exit (GPid     pid,
               int      status,
               gpointer data)
{
  Record *r = data;

  r->child_running = FALSE;
  r->child_status = status;
  r->stopped_by = "the command's exit";
  g_spawn_close_pid (pid);
  g_main_loop_quit (r->loop);
}

static void
print_summary (Record     *r,
               const char *output,
               gboolean    whole)
{
  StrataRecordStatus s;
  g_autofree char *size = NULL;
  guint n_cpus = strata_ebpf_recorder_get_n_cpus (r->recorder);
  guint64 lost = 0;

  strata_ebpf_recorder_get_status (r->recorder, &s);
  size = format_bytes (s.bytes);
  if (whole)
    fprintf (stderr, "strata-cli record: wrote %s: %" G_GUINT64_FORMAT " records in %.2f s "
             "(%.0f/s), %s, hooks %s\n", output, s.records, s.elapsed_ns / 1e9,
             s.elapsed_ns > 0 ? s.records * 1e9 / s.elapsed_ns : 0.0, size,
             strata_ebpf_recorder_get_hooks (r->recorder));
  else
    fprintf (stderr, "strata-cli record: %s holds %s, what was written before the error; "
             "it opens without its footer. Records taken in %.2f s:\n",
             output, size, s.elapsed_ns / 1e9);

  for (guint t = 1; t < strata_ebpf_record_n_types (); t++)
    {
      guint64 n = strata_ebpf_recorder_get_count (r->recorder, t);

      if (n > 0)
        fprintf (stderr, "  %-22s %12" G_GUINT64_FORMAT "\n", strata_ebpf_record_type_name (t), n);
    }

  for (guint cpu = 0; cpu < n_cpus; cpu++)
    lost += strata_ebpf_recorder_get_lost (r->recorder, cpu);
  if (lost == 0)
    fprintf (stderr, "  lost: none\n");
  else
    {
      fprintf (stderr, "  lost: %" G_GUINT64_FORMAT " records (a ring was full; try a larger "
               "--buffer-size)\n", lost);
      for (guint cpu = 0; cpu < n_cpus; cpu++)
        {
          guint64 n = strata_ebpf_recorder_get_lost (r->recorder, cpu);

          if (n > 0)
            fprintf (stderr, "    CPU %-4u %12" G_GUINT64_FORMAT "\n", cpu, n);
        }
    }
  {
    guint64 malformed = 0;
    guint64 missed = strata_ebpf_recorder_get_missed (r->recorder, &malformed);

    if (missed > 0)
      fprintf (stderr, "  the kernel skipped a hook %" G_GUINT64_FORMAT " times (one of the same "
               "kind was already running on that CPU)\n", missed);
    if (malformed > 0)
      fprintf (stderr, "  %" G_GUINT64_FORMAT " records from the rings were not records and "
               "were left out\n", malformed);
  }
  if (s.late > 0)
    fprintf (stderr, "  %" G_GUINT64_FORMAT " records came later than their block (a reader "
             "puts them in order)\n", s.late);
}

/* Starts @recorder, runs @command (when given) and waits for the end
 * that comes first: a signal, @duration_ns, the command's exit or an
 * error; then finishes the file and says what it holds. */
static int
record (StrataEbpfRecorder  *recorder,
        const char          *output,
        char               **command,
        gint64               duration_ns,
        gboolean             quiet,
        gboolean             stop_on_eof)
{
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GError) error = NULL;
  Record r = { 0 };
  guint sig_int, sig_term, tick, timer = 0, eof = 0;
  gboolean ok;

  /* Signals are caught before anything starts: one that comes while the
   * programs load (or right after the line below) stops the recording
   * cleanly once it runs, instead of killing the recorder half-way. */
  loop = g_main_loop_new (NULL, FALSE);
  r.recorder = recorder;
  r.loop = loop;
  r.stopped_by = "?";
  sig_int = g_unix_signal_add (SIGINT, on_signal, &r);
  sig_term = g_unix_signal_add (SIGTERM, on_signal, &r);

  if (!strata_ebpf_recorder_start (recorder, &error))
    {
      g_printerr ("strata-cli record: %s\n", error->message);
      g_source_remove (sig_int);
      g_source_remove (sig_term);
      return STRATA_CLI_EXIT_FAILED;
    }

  /* Said when the hooks are in: a program that runs this one waits for it. */
  g_printerr ("strata-cli record: recording to %s (hooks %s); Ctrl+C stops\n",
              output, strata_ebpf_recorder_get_hooks (recorder));

  r.tty = !quiet && isatty (STDERR_FILENO);
  if (stop_on_eof)
    eof = g_unix_fd_add (STDIN_FILENO, G_IO_IN | G_IO_HUP | G_IO_ERR, on_stdin, &r);

  /* The command leads a process group of its own, so that what it starts
   * (perf bench forks its workers) is stopped with it when the recording
   * ends first. Not when it reads our terminal: there it stays in the
   * terminal's foreground group, which Ctrl+C reaches as a whole. */
  r.child_group = stop_on_eof || !isatty (STDIN_FILENO);

  if (command != NULL)
    {
      if (!g_spawn_async (NULL, command, NULL,
                          G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
                          (stop_on_eof ? 0 : G_SPAWN_CHILD_INHERITS_STDIN),
                          r.child_group ? own_process_group : NULL, NULL,
                          &r.child, &error))
        {
          g_printerr ("strata-cli record: cannot run %s: %s\n", command[0], error->message);
          strata_ebpf_recorder_stop (recorder, NULL);
          g_source_remove (sig_int);
          g_source_remove (sig_term);
          return STRATA_CLI_EXIT_FAILED;
        }
      r.child_running = TRUE;
      if (r.child_group)
        setpgid (r.child, r.child);   /* before the exec too: no window for a signal */
      g_child_watch_add (r.child, on_child_exit, &r);
    }

  tick = g_timeout_add (500, on_tick, &r);
  if (duration_ns > 0)
    timer = g_timeout_add (MAX (duration_ns / 1000000, 1), on_duration, &r);

  g_main_loop_run (loop);

  g_source_remove (sig_int);
  g_source_remove (sig_term);
  g_source_remove (tick);
  if (eof != 0 && r.stopped_by != NULL && strcmp (r.stopped_by, "the end of stdin") != 0)
    g_source_remove (eof);
  if (timer != 0 && !g_str_equal (r.stopped_by, "--duration"))
    g_source_remove (timer);

  if (r.tty)
    print_status (&r, TRUE);
  ok = strata_ebpf_recorder_stop (recorder, &error);
  if (!ok)
    g_printerr ("strata-cli record: %s\n", error->message);
  print_summary (&r, output, ok);

  /* The recording ended before the command did: it goes too, as perf
   * record's workload does, with what it started, so nothing traced
   * outlives its trace (and whoever reads our stderr, which they share,
   * sees it close). */
  if (command != NULL && r.child_running)
    {
      g_printerr ("strata-cli record: stopping %s (SIGTERM), the recording ended first\n", command[0]);
      kill (r.child_group ? -r.child : r.child, SIGTERM);
    }
  else if (command != NULL && !g_spawn_check_wait_status (r.child_status, NULL))
    g_printerr ("strata-cli record: %s exited with status %d\n", command[0],
                WIFEXITED (r.child_status) ? WEXITSTATUS (r.child_status) : 128 + WTERMSIG (r.child_status));

  return ok ? STRATA_CLI_EXIT_OK : STRATA_CLI_EXIT_FAILED;
}

int
strata_cli_record (int    argc,
                   char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(StrataEbpfRecorder) recorder = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL;
  g_autofree char *duration = NULL;
  g_autofree char *events = NULL;
  g_autofree char *buffer_size = NULL;
  g_autofree char *hooks = NULL;
  g_autofree char *command_line = NULL;
  int freq = 0, cpus_per_ring = 0, drain_period = 0;
  gboolean quiet = FALSE;
  gboolean stop_on_eof = FALSE;
  StrataRecordSets sets = STRATA_RECORD_ALWAYS;
  gint64 duration_ns = 0;
  guint64 buffer_bytes = 0;
  char **command = NULL;
  int n_options = argc;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the recording to FILE (default " DEFAULT_OUTPUT ")", "FILE" },
    { "duration", 'd', 0, G_OPTION_ARG_STRING, &duration, "Stop after TIME (10 = seconds, 2.5s, 500ms, 5m)", "TIME" },
    { "events", 'e', 0, G_OPTION_ARG_STRING, &events, "Also record these sets: syscalls, samples (sched and irq always are)", "SET,..." },
    { "freq", 'F', 0, G_OPTION_ARG_INT, &freq, "Sample each CPU HZ times a second, with kernel and user stacks", "HZ" },
    { "buffer-size", 'b', 0, G_OPTION_ARG_STRING, &buffer_size, "Bytes of each ring buffer (default 16M)", "SIZE" },
    { "cpus-per-ring", 0, 0, G_OPTION_ARG_INT, &cpus_per_ring, "CPUs that share a ring buffer (default 8)", "N" },
    { "drain-period", 0, 0, G_OPTION_ARG_INT, &drain_period,
      "Write what the rings hold every MS milliseconds (default 100; shorter shows "
      "events sooner to a viewer following the file, in more, smaller blocks)", "MS" },
    { "hooks", 0, 0, G_OPTION_ARG_STRING, &hooks, "tp_btf or raw_tp (default: tp_btf where the kernel has it)", "KIND" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No status line", NULL },
    { "stop-on-eof", 0, 0, G_OPTION_ARG_NONE, &stop_on_eof,
      "Stop when stdin ends (how the application stops a recorder it started)", NULL },
    { NULL }
  };

  /* As the file's header will say it. */
  {
    GString *cl = g_string_new ("strata-cli record");

    for (int i = 1; i < argc; i++)
      {
        g_autofree char *quoted = quote_if_needed (argv[i]);

        g_string_append_printf (cl, " %s", quoted);
      }
    command_line = g_string_free (cl, FALSE);
  }

  /* Everything after "--" is the command, left alone by the parser. */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        command = argv + i + 1;
        n_options = i;
        break;
      }

  context = g_option_context_new ("[-- COMMAND ...] - record the kernel's scheduling with eBPF");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Records context switches, wakeups, forks, execs, exits and interrupts (and, on\n"
    "request, system calls and CPU samples with stacks) until Ctrl+C, SIGTERM, the\n"
    "--duration, or COMMAND's exit. Needs root, or CAP_BPF and CAP_PERFMON, and a\n"
    "kernel with BTF (/sys/kernel/btf/vmlinux). Every strata-cli command and the\n"
    "application read the file, even while it is being written.");
  if (!g_option_context_parse (context, &n_options, &argv, &error))
    {
      g_printerr ("strata-cli record: %s\n", error->message);
      return STRATA_CLI_EXIT_FAILED;
    }
  if (n_options != 1)
    {
      g_printerr ("strata-cli record: unexpected “%s” (put a command after --)\n", argv[1]);
      return STRATA_CLI_EXIT_FAILED;
    }
  if (command != NULL && command[0] == NULL)
    command = NULL;

  if ((events != NULL && !strata_record_sets_parse (events, &sets, &error)) ||
      (duration != NULL && !parse_duration (duration, &duration_ns, &error)) ||
      (buffer_size != NULL && !parse_size (buffer_size, &buffer_bytes, &error)))
    {
      g_printerr ("strata-cli record: %s\n", error->message);
      return STRATA_CLI_EXIT_FAILED;
    }
  if (freq < 0 || cpus_per_ring < 0 || drain_period < 0 ||
      (hooks != NULL && !g_str_equal (hooks, "tp_btf") && !g_str_equal (hooks, "raw_tp")))
    {
      g_printerr ("strata-cli record: --freq, --cpus-per-ring and --drain-period take positive numbers, "
                  "--hooks tp_btf or raw_tp\n");
      return STRATA_CLI_EXIT_FAILED;
    }
  if ((sets & STRATA_RECORD_SAMPLES) && freq == 0)
    freq = 99;

  if (output == NULL)
    output = g_strdup (DEFAULT_OUTPUT);


  recorder = strata_ebpf_recorder_new (output);
  strata_ebpf_recorder_set_sets (recorder, sets);
  strata_ebpf_recorder_set_sample_freq (recorder, freq);
  if (buffer_bytes > 0)
    strata_ebpf_recorder_set_buffer_size (recorder, buffer_bytes);
  if (cpus_per_ring > 0)
    strata_ebpf_recorder_set_cpus_per_ring (recorder, cpus_per_ring);
  if (drain_period > 0)
    strata_ebpf_recorder_set_drain_period (recorder, drain_period);
  strata_ebpf_recorder_set_hooks (recorder, hooks);
  strata_ebpf_recorder_set_command_line (recorder, command_line);

  return record (recorder, output, command, duration_ns, quiet, stop_on_eof);
}
