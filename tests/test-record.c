/* test-record.c
 *
 * strata-cli record, really recording (as root, under the machine-wide
 * recording lock) the workload of strata-record-workload.c, read back
 * through the ebpf plugin and the kernel model. What the recording says
 * is checked against what the kernel told each thread about itself, a
 * measure independent of any trace:
 *
 * - the threads are named, the one that existed before the recording
 *   started too;
 * - each thread's switches out in the recording equal its context
 *   switches by getrusage() (voluntary + involuntary: the scheduler
 *   counts one of them for every switch away from a task, exactly when
 *   sched_switch fires with it as prev); the counters are read between
 *   two clock reads, so the recording's count between the inner ends of
 *   those brackets is a lower bound, between the outer ends an upper one;
 * - each thread's running time in the kernel model is its CPU time by
 *   CLOCK_THREAD_CPUTIME_ID, within 1% plus 4 µs per switch plus 6 ms
 *   (less by at
 *   most the time the model marks unknown on the CPUs: on the kernel of
 *   these machines, 6.18-fc, switches away from two threads of PID 1 never
 *   fire sched_switch, for perf as for us, and a thread switched in after
 *   one of them is credited from its first event instead): the
 *   scheduler charges time from its own clock read in __schedule()
 *   before the tracepoint, not the tracepoint's time, so each switch in
 *   or out may shift the boundary by the time between the two (a few µs
 *   at most, measured well under that here), and interrupt time is
 *   not charged to the task (IRQ_TIME_ACCOUNTING) while the model
 *   shows the task on its CPU under the interrupt; the 6 ms are for the
 *   two clocks: the hooks stamp with the monotonic clock (kvm-clock on
 *   these virtual machines), the scheduler charges by sched_clock, and
 *   under load about one run in ten had them disagree by one tick (4.2
 *   and 4.8 ms over 200 ms at HZ=250) while the model still equalled the
 *   recorded switches to the nanosecond (the time between them is logged);
 * - nothing was lost.
 *
 * The same for the raw_tp hooks (the fallback where tp_btf is missing),
 * for a recording that runs a command and stops when it exits, and for
 * --duration.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "strata-test-record.h"
#include "strata-test-support.h"

typedef struct
{
  char   *dir;
  char   *path;
  GArray *threads;
  gint32  workload_pid;
  char   *summary;
  gint64  steal_ns;   /* the machine's steal time while the workload ran, all CPUs */
} Recorded;

/* The time the hypervisor gave this machine's CPUs to others ("steal" in
 * /proc/stat), in ns, all CPUs together; 0 where it is not counted. A
 * thread's CPU time leaves it out, its switches' timestamps do not: on a
 * busy host a thread that was on its CPU for 230 ms was charged 204 ms. */
static gint64
steal_ns (void)
{
  g_autofree char *stat = NULL;
  guint64 v[8] = { 0 };

  if (!g_file_get_contents ("/proc/stat", &stat, NULL, NULL) ||
      sscanf (stat, "cpu %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
              G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
              " %" G_GUINT64_FORMAT, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
    return 0;
  return (gint64) (v[7] * (G_GUINT64_CONSTANT (1000000000) / (guint64) sysconf (_SC_CLK_TCK)));
}

static void
recorded_clear (Recorded *r)
{
  if (r->path != NULL)
    g_unlink (r->path);
  g_clear_pointer (&r->dir, g_free);
  g_clear_pointer (&r->path, g_free);
  g_clear_pointer (&r->threads, g_array_unref);
  g_clear_pointer (&r->summary, g_free);
}

/* Records the workload (started first, so its "strata-pre" exists before
 * the recording) with @args; FALSE when recording is not permitted. */
static gboolean
record_workload (Recorded           *r,
                 const char * const *args,
                 int                 round_trips,
                 int                 spin_us)
{
  g_autoptr(GSubprocess) workload = NULL;
  g_autoptr(GSubprocess) recorder = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *why = NULL;
  int lock;

  if (!strata_test_record_permitted (&why))
    {
      g_test_skip (why);
      return FALSE;
    }

  memset (r, 0, sizeof *r);
  r->dir = strata_test_tmpdir ();
  r->path = g_build_filename (r->dir, "workload.strata", NULL);

  lock = strata_test_record_lock ();
  r->steal_ns = -steal_ns ();
  workload = strata_test_workload_start (round_trips, spin_us, &r->workload_pid, &error);
  g_assert_no_error (error);
  recorder = strata_test_recorder_start (r->path, args, &error);
  g_assert_no_error (error);
  r->threads = strata_test_workload_finish (workload, &error);
  g_assert_no_error (error);
  r->steal_ns += steal_ns ();
  strata_test_recorder_stop (recorder, &r->summary, &error);
  g_assert_no_error (error);
  strata_test_record_unlock (lock);

  g_assert_cmpuint (r->threads->len, ==, 3);
  return TRUE;
}

static const StrataChannel *
thread_channel (StrataTrace *trace,
                gint32       tid,
                gint64       at)
{
  const StrataChannel *channels;
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  for (guint i = 0; i < n; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD && channels[i].id == tid &&
        channels[i].begin <= at && at < channels[i].end)
      return &channels[i];
  return NULL;
}

static gint64
running_time (StrataTrace *trace,
              guint32      channel,
              gint64       t0,
              gint64       t1)
{
  const StrataActivity *activities;
  gsize n;
  gint64 sum = 0;

  activities = strata_trace_get_activities (trace, &n);
  for (gsize i = 0; i < n; i++)
    {
      StrataActivity a = activities[i];

      if (a.channel != channel || a.kind != STRATA_ACTIVITY_STATE ||
          a.state != STRATA_TASK_STATE_RUNNING || !strata_activity_overlaps (&a, t0, t1))
        continue;
      strata_activity_clip (&a, t0, t1);
      sum += a.end - a.start;
    }
  return sum;
}

/* Time the CPUs' rows say they do not know who ran (switches missing
 * from the trace), within [t0, t1). */
static gint64
unknown_time (StrataTrace *trace,
              gint64       t0,
              gint64       t1)
{
  const StrataActivity *activities;
  gsize n;
  gint64 sum = 0;

  activities = strata_trace_get_activities (trace, &n);
  for (gsize i = 0; i < n; i++)
    {
      StrataActivity a = activities[i];

      if (a.kind != STRATA_ACTIVITY_UNKNOWN || !strata_activity_overlaps (&a, t0, t1))
        continue;
      strata_activity_clip (&a, t0, t1);
      sum += a.end - a.start;
    }
  return sum;
}

static guint
switches_out (GArray *events,
              gint32  tid,
              gint64  t0,
              gint64  t1)
{
  guint n = 0;

  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);

      if (ev->type == STRATA_EVENT_SCHED_SWITCH && ev->u.sched_switch.prev_pid == tid &&
          ev->ts > t0 && ev->ts < t1)
        n++;
    }
  return n;
}

/* Running time from the switches alone: from the switch to @tid on a
 * CPU to the next switch on that CPU. */
static gint64
switched_in_time (GArray *events,
                  gint32  tid,
                  gint64  t0,
                  gint64  t1)
{
  g_autoptr(GHashTable) since = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  gint64 sum = 0;

  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);
      gint64 *start;

      if (ev->type != STRATA_EVENT_SCHED_SWITCH)
        continue;
      start = g_hash_table_lookup (since, GINT_TO_POINTER (ev->cpu));
      if (start != NULL && ev->u.sched_switch.prev_pid == tid)
        sum += MAX (0, MIN (ev->ts, t1) - MAX (*start, t0));
      if (ev->u.sched_switch.next_pid == tid)
        {
          start = g_new (gint64, 1);
          *start = ev->ts;
          g_hash_table_insert (since, GINT_TO_POINTER (ev->cpu), start);
        }
      else
        g_hash_table_remove (since, GINT_TO_POINTER (ev->cpu));
    }
  return sum;
}

static void
check_recording (Recorded *r)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = NULL;
  const StrataSourceInfo *info;
  const char *names[] = { "strata-pre", "strata-spin", "strata-ping" };
  guint n_channels;

  events = strata_test_read_events (r->path, &source, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, >, 0);
  for (guint i = 1; i < events->len; i++)
    g_assert_cmpint (g_array_index (events, StrataEvent, i - 1).ts, <=,
                     g_array_index (events, StrataEvent, i).ts);

  trace = strata_test_load (r->path, &error);
  g_assert_no_error (error);
  g_assert_null (strata_trace_get_damage (trace));
  info = strata_trace_get_info (trace);
  g_assert_cmpstr (info->format, ==, "strata eBPF");
  g_assert_cmpstr (info->clock, ==, "mono");
  g_assert_cmpuint (info->lost_events, ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const StrataTestThread *t = strata_test_thread_find (r->threads, names[i]);
      const StrataChannel *ch;
      guint lower, upper;
      gint64 run, switched_in, tolerance, unknown;

      g_assert_nonnull (t);
      ch = thread_channel (trace, t->tid, t->b0);
      g_assert_nonnull (ch);
      g_assert_cmpstr (strata_trace_get_string (trace, ch->name), ==, names[i]);
      g_assert_cmpint (ch->tgid, ==, r->workload_pid);

      lower = switches_out (events, t->tid, t->b0, t->a1);
      upper = switches_out (events, t->tid, t->a0, t->b1);
      g_test_message ("%s: %u..%u switches in the recording, %" G_GINT64_FORMAT " by getrusage",
                      names[i], lower, upper, t->switches);
      g_assert_cmpint (t->switches, >=, lower);
      g_assert_cmpint (t->switches, <=, upper);

      run = running_time (trace, ch - strata_trace_get_channels (trace, &n_channels),
                          (t->a0 + t->b0) / 2, (t->a1 + t->b1) / 2);
      switched_in = switched_in_time (events, t->tid, (t->a0 + t->b0) / 2, (t->a1 + t->b1) / 2);
      g_test_message ("%s: %" G_GINT64_FORMAT " ns between its switches in and out",
                      names[i], switched_in);
      tolerance = t->cpu_ns / 100 + 4000 * (t->switches + 1) + 6 * G_GINT64_CONSTANT (1000000);
      unknown = unknown_time (trace, (t->a0 + t->b0) / 2, (t->a1 + t->b1) / 2);
      g_test_message ("%s: running %" G_GINT64_FORMAT " ns in the model, CPU time %" G_GINT64_FORMAT
                      " ns (%+.3f%%), %" G_GINT64_FORMAT " ns of the CPUs unknown, %" G_GINT64_FORMAT
                      " ns stolen by the host", names[i], run, t->cpu_ns,
                      100.0 * (run - t->cpu_ns) / MAX (t->cpu_ns, 1), unknown, r->steal_ns);
      g_assert_cmpint (run, <=, t->cpu_ns + tolerance + r->steal_ns);
      g_assert_cmpint (run, >=, t->cpu_ns - tolerance - unknown);
    }
}

static void
test_workload (void)
{
  Recorded r;

  if (!record_workload (&r, NULL, 1000, 20))
    return;
  check_recording (&r);
  g_assert_nonnull (strstr (r.summary, "lost: none"));
  recorded_clear (&r);
}

static void
test_workload_raw_tp (void)
{
  const char *args[] = { "--hooks", "raw_tp", NULL };
  Recorded r;

  if (!record_workload (&r, args, 500, 20))
    return;
  check_recording (&r);
  g_assert_nonnull (strstr (r.summary, "hooks raw_tp"));
  recorded_clear (&r);
}

/* With a command, the recording ends when it does; --duration ends it
 * too, and SIGTERM, even the moment the recorder says it runs. Every
 * file is whole (its footer read). */
static void
test_command_and_duration (void)
{
  g_autofree char *why = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int lock, status;

  if (!strata_test_record_permitted (&why))
    {
      g_test_skip (why);
      return;
    }

  dir = strata_test_tmpdir ();
  a = g_build_filename (dir, "command.strata", NULL);
  b = g_build_filename (dir, "duration.strata", NULL);
  c = g_build_filename (dir, "term.strata", NULL);

  lock = strata_test_record_lock ();
  {
    const char *args[] = { "record", "-q", "-o", a, "--", "sh", "-c", "sleep 0.2; echo hello", NULL };

    status = strata_test_run_cli (args, &out, &err);
    g_assert_cmpint (status, ==, 0);
    g_assert_cmpstr (out, ==, "hello\n");
    g_assert_nonnull (strstr (err, "lost: none"));
  }
  {
    const char *args[] = { "record", "-q", "-o", b, "--duration", "300ms", NULL };

    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    status = strata_test_run_cli (args, &out, &err);
    g_assert_cmpint (status, ==, 0);
  }
  {
    /* SIGTERM, the moment the recorder says it runs. */
    g_autoptr(GSubprocess) recorder = strata_test_recorder_start (c, NULL, &error);

    g_assert_no_error (error);
    strata_test_recorder_stop_with (recorder, SIGTERM, NULL, &error);
    g_assert_no_error (error);
  }
  strata_test_record_unlock (lock);

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(StrataSource) source = NULL;
      g_autoptr(GArray) events = strata_test_read_events (i == 0 ? a : i == 1 ? b : c, &source, &error);
      const StrataSourceInfo *info;
      gboolean saw_sh = FALSE;

      g_assert_no_error (error);
      info = strata_source_get_info (source);
      if (i < 2)
        g_assert_cmpint (info->last_ts - info->first_ts, >, 200 * G_GINT64_CONSTANT (1000000));
      g_assert_cmpint (info->last_ts - info->first_ts, <, 30 * G_GINT64_CONSTANT (1000000000));
      for (guint k = 0; k < info->details->len; k++)
        {
          const StrataSourceDetail *d = &g_array_index (info->details, StrataSourceDetail, k);

          if (g_str_equal (d->name, "Stopped cleanly"))
            g_assert_cmpstr (d->value, ==, "yes");
        }
      /* The command's exec is in its recording. */
      for (guint k = 0; k < events->len; k++)
        {
          const StrataEvent *ev = &g_array_index (events, StrataEvent, k);

          if (ev->type == STRATA_EVENT_SCHED_PROCESS_EXEC &&
              g_str_has_suffix (strata_string_pool_get (strata_source_get_strings (source),
                                                        ev->u.exec.filename), "/sh"))
            saw_sh = TRUE;
        }
      g_assert_true (i != 0 || saw_sh);
    }

  g_unlink (a);
  g_unlink (b);
  g_unlink (c);
}

/* CPU samples (-F 999) with their stacks, named by the same symbolizer
 * as perf.data's: the spinner, 200 ms of CPU, has about 200 samples
 * (cpu-clock's period adapts, so within half of that either way), each
 * with a call chain, and most of them walk the user stack by its frame
 * pointers (the workload is built with them) to the thread's start,
 * start_thread, or name the spinner itself (the libc clock_gettime it
 * spins in keeps no frame pointer, so the walk from there skips its
 * caller, as it does for perf); every kernel frame has a name. */
static void
test_samples (void)
{
  const char *args[] = { "-F", "999", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = NULL;
  const StrataTestThread *spin;
  guint samples = 0, named = 0, chains = 0, kernel_frames = 0, kernel_named = 0;
  Recorded r;

  if (!record_workload (&r, args, 200, 20))
    return;
  spin = strata_test_thread_find (r.threads, "strata-spin");
  events = strata_test_read_events (r.path, &source, &error);
  g_assert_no_error (error);
  g_assert_true (strata_source_has_callchains (source));

  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);
      const guint64 *frames;
      guint n;
      gboolean hit = FALSE;

      if (ev->type != STRATA_EVENT_SAMPLE || ev->pid != spin->tid ||
          ev->ts < spin->b0 || ev->ts > spin->a1)
        continue;
      samples++;
      frames = strata_source_get_callchain (source, ev->u.sample.callchain, &n);
      if (frames == NULL || n == 0)
        continue;
      chains++;
      g_assert_cmpuint (frames[0], ==, ev->u.sample.ip);
      for (guint f = 0; f < n; f++)
        {
          g_autofree char *name = strata_source_symbolize (source, ev->tgid, frames[f]);

          g_assert_nonnull (name);
          if (g_str_equal (name, "spinner") || g_str_equal (name, "start_thread"))
            hit = TRUE;
          if (frames[f] >= G_GUINT64_CONSTANT (0xffff800000000000))
            {
              kernel_frames++;
              if (!g_str_has_prefix (name, "[kernel]"))
                kernel_named++;
            }
        }
      named += hit;
      if (g_test_verbose () && samples < 6)
        for (guint f = 0; f < n; f++)
          {
            g_autofree char *name = strata_source_symbolize (source, ev->tgid, frames[f]);

            g_test_message ("  sample %u frame %u: 0x%" G_GINT64_MODIFIER "x %s", samples, f, frames[f], name);
          }
    }

  g_test_message ("spinner: %u samples for %" G_GINT64_FORMAT " ns of CPU, %u with a chain, "
                  "%u reaching spinner or start_thread; %u kernel frames, %u named", samples, spin->cpu_ns,
                  chains, named, kernel_frames, kernel_named);
  g_assert_cmpuint (samples, >=, spin->cpu_ns * 999 / 1000000000 / 2);
  g_assert_cmpuint (samples, <=, spin->cpu_ns * 999 / 1000000000 * 3 / 2);
  g_assert_cmpuint (chains, ==, samples);
  g_assert_cmpuint (named * 2, >=, samples);
  g_assert_cmpuint (kernel_named, ==, kernel_frames);
  recorded_clear (&r);
}

/* Losses are counted, written where they happened and shown: with the
 * recorder stopped (SIGSTOP) while a workload switches thousands of
 * times, a 4 KiB ring fills; the file's LOST records add up to the
 * recorder's count, info says it per CPU, and the kernel model marks
 * the time it cannot know as unknown on that CPU's row. */
static void
test_losses (void)
{
  const char *args[] = { "--buffer-size", "4K", "--cpus-per-ring", "1", NULL };
  g_autofree char *why = NULL;
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "lossy.strata", NULL);
  g_autofree char *summary = NULL;
  g_autoptr(GSubprocess) recorder = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = NULL;
  const StrataSourceInfo *info;
  const StrataActivity *activities;
  const StrataChannel *channels;
  guint64 lost_records = 0, said = 0;
  guint n_channels, unknown_lost = 0;
  gsize n_activities;
  const char *p;
  int lock;

  if (!strata_test_record_permitted (&why))
    {
      g_test_skip (why);
      return;
    }

  lock = strata_test_record_lock ();
  recorder = strata_test_recorder_start (path, args, &error);
  g_assert_no_error (error);
  g_subprocess_send_signal (recorder, SIGSTOP);
  {
    g_autofree char *out = NULL;
    int status;

    g_assert_true (g_spawn_command_line_sync ("perf bench sched pipe -l 5000", &out, NULL, &status, &error));
    g_assert_no_error (error);
  }
  g_subprocess_send_signal (recorder, SIGCONT);
  strata_test_recorder_stop (recorder, &summary, &error);
  g_assert_no_error (error);
  strata_test_record_unlock (lock);

  /* "lost: N records (...)" */
  p = strstr (summary, "lost: ");
  g_assert_nonnull (p);
  said = g_ascii_strtoull (p + 6, NULL, 10);
  g_assert_cmpuint (said, >, 0);

  events = strata_test_read_events (path, &source, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < events->len; i++)
    if (g_array_index (events, StrataEvent, i).type == STRATA_EVENT_LOST)
      lost_records += g_array_index (events, StrataEvent, i).u.lost.count;
  g_assert_cmpuint (lost_records, ==, said);
  info = strata_source_get_info (source);
  g_assert_cmpuint (info->lost_events, ==, said);

  trace = strata_test_load (path, &error);
  g_assert_no_error (error);
  channels = strata_trace_get_channels (trace, &n_channels);
  activities = strata_trace_get_activities (trace, &n_activities);
  for (gsize i = 0; i < n_activities; i++)
    if (channels[activities[i].channel].kind == STRATA_CHANNEL_CPU &&
        activities[i].kind == STRATA_ACTIVITY_UNKNOWN &&
        (activities[i].flags & STRATA_ACTIVITY_FLAG_LOST))
      unknown_lost++;
  g_test_message ("%" G_GUINT64_FORMAT " records lost, %u unknown spans marked lost", said, unknown_lost);
  g_assert_cmpuint (unknown_lost, >, 0);
  g_unlink (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/record/workload", test_workload);
  g_test_add_func ("/strata/record/workload-raw-tp", test_workload_raw_tp);
  g_test_add_func ("/strata/record/command-and-duration", test_command_and_duration);
  g_test_add_func ("/strata/record/samples", test_samples);
  g_test_add_func ("/strata/record/losses", test_losses);

  return g_test_run ();
}
