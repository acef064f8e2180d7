/* test-ftrace-text.c
 *
 * Tests of the reader of ftrace text output (the kernel's trace and
 * trace_pipe files). Small texts written inline cover one feature each: the
 * irq-info and tgid columns, comms with spaces, dashes and '=', the payloads,
 * lost-event markers, header-less trace_pipe output, and damaged input, which
 * must give the events before the damage and then an error naming the file,
 * the offset and the line. The real fixtures are checked against an
 * independent count of their lines. Inputs the fuzzer found are kept at the
 * end as regressions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "strata-error.h"
#include "strata-source.h"

static char *tmp_dir;

static char *
write_text (const char *name,
            const char *text,
            gssize      len)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (tmp_dir, name, NULL);

  g_file_set_contents (path, text, len, &error);
  g_assert_no_error (error);

  return path;
}

static char *
fixture_path (const char *name)
{
  const char *dir = g_getenv ("STRATA_FIXTURES_DIR");

  if (dir != NULL)
    return g_build_filename (dir, name, NULL);

  return g_test_build_filename (G_TEST_DIST, "fixtures", name, NULL);
}

/* Reads a whole file. Returns the source (NULL if it did not open, with
 * @error set); the events read before any error are in @events. */
static StrataSource *
read_all (const char  *path,
          GArray     **events,
          GError     **error)
{
  g_autoptr(StrataSource) source = NULL;
  StrataEvent batch[100];
  gssize n;

  *events = g_array_new (FALSE, FALSE, sizeof (StrataEvent));

  source = strata_source_open (path, error);
  if (source == NULL)
    return NULL;

  /* A small batch, so that deliveries cross batch boundaries. */
  while ((n = strata_source_read_batch (source, batch, G_N_ELEMENTS (batch), error)) > 0)
    g_array_append_vals (*events, batch, n);

  if (n < 0)
    {
      /* Sticky: asking again gives the same error, never more events. */
      g_autoptr(GError) again = NULL;

      g_assert_cmpint (strata_source_read_batch (source, batch, 1, &again), ==, -1);
      g_assert_nonnull (again);
      g_assert_cmpint (again->code, ==, (*error)->code);
    }
  else
    {
      g_assert_cmpint (strata_source_read_batch (source, batch, 1, NULL), ==, 0);
    }

  for (guint i = 1; i < (*events)->len; i++)
    g_assert_cmpint (g_array_index (*events, StrataEvent, i - 1).ts, <=,
                     g_array_index (*events, StrataEvent, i).ts);

  return g_steal_pointer (&source);
}

static const char *
str (StrataSource *source,
     guint32       id)
{
  return strata_string_pool_get (strata_source_get_strings (source), id);
}

static guint64
offset_of (const char *text,
           const char *line)
{
  const char *p = strstr (text, line);

  g_assert_nonnull (p);
  return p - text;
}

static const StrataEvent *
event_at (GArray *events,
          guint   i)
{
  g_assert_cmpuint (i, <, events->len);
  return &g_array_index (events, StrataEvent, i);
}

/* The error every damaged file must give: the right code, and a message that
 * names the file, the byte offset and the line number. */
static void
assert_located_error (const GError *error,
                      gint          code,
                      const char   *path,
                      guint64       offset,
                      guint         line_no)
{
  g_autofree char *where = g_strdup_printf ("offset %" G_GUINT64_FORMAT " (line %u)",
                                            offset, line_no);

  g_assert_error (error, STRATA_ERROR, code);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, where));
}

static const char header_irq_info[] =
  "# tracer: nop\n"
  "#\n"
  "# entries-in-buffer/entries-written: 5/5   #P:4\n"
  "#\n"
  "#                                _-----=> irqs-off/BH-disabled\n"
  "#                               / _----=> need-resched\n"
  "#                              | / _---=> hardirq/softirq\n"
  "#                              || / _--=> preempt-depth\n"
  "#                              ||| / _-=> migrate-disable\n"
  "#                              |||| /     delay\n"
  "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
  "#              | |         |   |||||     |         |\n";

static void
test_irq_info (void)
{
  static const char body[] =
    "              sh-3490    [002] d..2.   229.760495: sched_switch: prev_comm=sh prev_pid=3490 prev_prio=120 prev_state=D ==> next_comm=sh next_pid=3491 next_prio=120\n"
    "              sh-3491    [002] d..3.   229.760576: sched_waking: comm=migration/2 pid=26 prio=0 target_cpu=002\n"
    "              sh-3491    [002] dN.4.   229.760578: sched_wakeup: comm=migration/2 pid=26 prio=0 target_cpu=002\n"
    "              sh-3491    [002] d..2.   229.760579: sched_switch: prev_comm=sh prev_pid=3491 prev_prio=120 prev_state=R+ ==> next_comm=migration/2 next_pid=26 next_prio=0\n"
    "          <idle>-0       [001] d.h1.   229.762300: irq_handler_entry: irq=36 name=virtio1-req.0\n";
  g_autofree char *text = g_strconcat (header_irq_info, body, NULL);
  g_autofree char *path = write_text ("irq-info.txt", text, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);
  const StrataSourceInfo *info;
  const StrataEvent *ev;

  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 5);

  info = strata_source_get_info (source);
  g_assert_cmpstr (info->format, ==, "ftrace text");
  g_assert_cmpstr (info->compression, ==, "none");
  g_assert_nonnull (info->version);
  g_assert_cmpuint (info->n_cpus, ==, 4);
  g_assert_cmpuint (info->instances->len, ==, 1);
  g_assert_cmpuint (info->lost_events, ==, 0);
  g_assert_false (info->lost_unknown);
  g_assert_cmpint (info->first_ts, ==, G_GINT64_CONSTANT (229760495000));
  g_assert_cmpint (info->last_ts, ==, G_GINT64_CONSTANT (229762300000));

  ev = event_at (events, 0);
  g_assert_cmpint (ev->type, ==, STRATA_EVENT_SCHED_SWITCH);
  g_assert_cmpstr (str (source, ev->name), ==, "sched_switch");
  g_assert_cmpint (ev->ts, ==, G_GINT64_CONSTANT (229760495000));
  g_assert_cmpint (ev->source_offset, ==, offset_of (text, "              sh-3490"));
  g_assert_cmpint (ev->cpu, ==, 2);
  g_assert_cmpint (ev->pid, ==, 3490);
  g_assert_cmpint (ev->tgid, ==, -1);
  g_assert_cmpint (ev->instance, ==, 0);
  g_assert_cmpstr (str (source, ev->u.sched_switch.prev_comm), ==, "sh");
  g_assert_cmpint (ev->u.sched_switch.prev_pid, ==, 3490);
  g_assert_cmpint (ev->u.sched_switch.prev_prio, ==, 120);
  g_assert_cmpint (ev->u.sched_switch.prev_state, ==, STRATA_TASK_STATE_UNINTERRUPTIBLE);
  g_assert_cmpstr (str (source, ev->u.sched_switch.next_comm), ==, "sh");
  g_assert_cmpint (ev->u.sched_switch.next_pid, ==, 3491);
  g_assert_cmpint (ev->u.sched_switch.next_prio, ==, 120);

  ev = event_at (events, 1);
  g_assert_cmpint (ev->type, ==, STRATA_EVENT_SCHED_WAKING);
  g_assert_cmpstr (str (source, ev->u.wakeup.comm), ==, "migration/2");
  g_assert_cmpint (ev->u.wakeup.pid, ==, 26);
  g_assert_cmpint (ev->u.wakeup.prio, ==, 0);
  g_assert_cmpint (ev->u.wakeup.target_cpu, ==, 2);

  ev = event_at (events, 2);
  g_assert_cmpint (ev->type, ==, STRATA_EVENT_SCHED_WAKEUP);

  ev = event_at (events, 3);
  g_assert_cmpint (ev->u.sched_switch.prev_state, ==, STRATA_TASK_STATE_PREEMPTED);
  g_assert_cmpint (ev->u.sched_switch.next_prio, ==, 0);

  ev = event_at (events, 4);
  g_assert_cmpint (ev->type, ==, STRATA_EVENT_IRQ_HANDLER_ENTRY);
  g_assert_cmpint (ev->cpu, ==, 1);
  g_assert_cmpint (ev->pid, ==, 0);
  g_assert_cmpint (ev->u.irq.irq, ==, 36);
  g_assert_cmpstr (str (source, ev->u.irq.name), ==, "virtio1-req.0");
}

/* Kernels before 5.x printed four flag characters and a "||||" header. */
static void
test_irq_info_four_flags (void)
{
  static const char text[] =
    "# tracer: nop\n"
    "#\n"
    "# entries-in-buffer/entries-written: 2/2   #P:2\n"
    "#\n"
    "#                              _-----=> irqs-off\n"
    "#                             / _----=> need-resched\n"
    "#                            | / _---=> hardirq/softirq\n"
    "#                            || / _--=> preempt-depth\n"
    "#                            ||| /     delay\n"
    "#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
    "#              | |       |   ||||       |         |\n"
    "            bash-1234  [001] d..2   123.456789: sched_switch: prev_comm=bash prev_pid=1234 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
    "          <idle>-0     [001] d.s2   123.456790: softirq_entry: vec=9 [action=RCU]\n";
  g_autofree char *path = write_text ("four-flags.txt", text, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);

  g_assert_no_error (error);
  g_assert_nonnull (source);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpint (event_at (events, 0)->pid, ==, 1234);
  g_assert_cmpint (event_at (events, 0)->cpu, ==, 1);
  g_assert_cmpint (event_at (events, 0)->ts, ==, G_GINT64_CONSTANT (123456789000));
  g_assert_cmpint (event_at (events, 0)->u.sched_switch.prev_state, ==, STRATA_TASK_STATE_SLEEPING);
  g_assert_cmpint (event_at (events, 1)->type, ==, STRATA_EVENT_SOFTIRQ_ENTRY);
  g_assert_cmpint (event_at (events, 1)->u.softirq.vec, ==, 9);
}

static void
test_tgid (void)
{
  static const char text[] =
    "# tracer: nop\n"
    "#\n"
    "# entries-in-buffer/entries-written: 3/3   #P:2\n"
    "#\n"
    "#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n"
    "#              | |           |       |         |         |\n"
    "              sh-4345    (   4345) [000]    232.759478: sched_process_fork: comm=sh pid=4345 child_comm=sh child_pid=4346\n"
    "          <idle>-0       (-------) [001]    232.759586: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=4346 next_prio=120\n"
    " sched-messaging-4401    (   4399) [001]    232.759740: sched_process_exec: filename=/usr/bin/sh pid=4401 old_pid=4401\n";
  g_autofree char *path = write_text ("tgid.txt", text, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);
  const StrataEvent *ev;

  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 3);

  ev = event_at (events, 0);
  g_assert_cmpint (ev->type, ==, STRATA_EVENT_SCHED_PROCESS_FORK);
  g_assert_cmpint (ev->pid, ==, 4345);
  g_assert_cmpint (ev->tgid, ==, 4345);
  g_assert_cmpint (ev->cpu, ==, 0);
  g_assert_cmpstr (str (source, ev->u.fork.parent_comm), ==, "sh");
  g_assert_cmpint (ev->u.fork.parent_pid, ==, 4345);
  g_assert_cmpstr (str (source, ev->u.fork.child_comm), ==, "sh");
  g_assert_cmpint (ev->u.fork.child_pid, ==, 4346);

  ev = event_at (events, 1);
  g_assert_cmpint (ev->pid, ==, 0);
  g_assert_cmpint (ev->tgid, ==, -1);
  g_assert_cmpint (ev->u.sched_switch.prev_state, ==, STRATA_TASK_STATE_RUNNABLE);

  ev = event_at (events, 2);
  g_assert_cmpint (ev->type, ==, STRATA_EVENT_SCHED_PROCESS_EXEC);
  g_assert_cmpint (ev->pid, ==, 4401);
  g_assert_cmpint (ev->tgid, ==, 4399);
  g_assert_cmpstr (str (source, ev->u.exec.filename), ==, "/usr/bin/sh");
  g_assert_cmpint (ev->u.exec.pid, ==, 4401);
  g_assert_cmpint (ev->u.exec.old_pid, ==, 4401);
}

/* Both optional columns at once, as with record-tgid=1 and irq-info=1. */
static void
test_tgid_irq_info (void)
{
  static const char text[] =
    "# tracer: nop\n"
    "#\n"
    "# entries-in-buffer/entries-written: 2/2   #P:2\n"
    "#\n"
    "#                                      _-----=> irqs-off/BH-disabled\n"
    "#                                     / _----=> need-resched\n"
    "#                                    | / _---=> hardirq/softirq\n"
    "#                                    || / _--=> preempt-depth\n"
    "#                                    ||| / _-=> migrate-disable\n"
    "#                                    |||| /     delay\n"
    "#           TASK-PID       TGID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
    "#              | |           |        |   |||||     |         |\n"
    "              sh-4345    (   4345) [001] d..2.   232.759478: sched_wakeup: comm=sh pid=4346 prio=120 target_cpu=001\n"
    "          <idle>-0       (-------) [000] d.h1.   232.759479: irq_handler_exit: irq=1 ret=unhandled\n";
  g_autofree char *path = write_text ("tgid-irq-info.txt", text, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);

  g_assert_no_error (error);
  g_assert_nonnull (source);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpint (event_at (events, 0)->tgid, ==, 4345);
  g_assert_cmpint (event_at (events, 0)->cpu, ==, 1);
  g_assert_cmpint (event_at (events, 0)->u.wakeup.pid, ==, 4346);
  g_assert_cmpint (event_at (events, 1)->tgid, ==, -1);
  g_assert_cmpint (event_at (events, 1)->u.irq.ret, ==, 0);
}

/* A header that announces a column the lines lack is damage, not a guess. */
static void
test_layout_mismatch (void)
{
  g_autofree char *text = g_strconcat (header_irq_info,
    "              sh-3490    [002]   229.760495: sched_waking: comm=sh pid=1 prio=120 target_cpu=000\n",
    NULL);
  g_autofree char *path = write_text ("mismatch.txt", text, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);

  g_assert_nonnull (source);
  g_assert_cmpuint (events->len, ==, 0);
  assert_located_error (error, STRATA_ERROR_CORRUPT, path, strlen (header_irq_info), 13);
  g_assert_nonnull (strstr (error->message, "irq-info flags"));
}

/* Comms are chosen by programs (prctl, /proc/self/comm): spaces, dashes,
 * '=', brackets, and text that looks like the keys around them. */
static void
test_comm_with_spaces (void)
{
  static const char text[] =
    "     Web Content-1234    [000] d..2.   10.000001: sched_switch: prev_comm=Web Content prev_pid=1234 prev_prio=120 prev_state=S ==> next_comm=a prev_pid=9 next_pid=77 next_prio=120\n"
    " kworker/u4:1-events_unbound-56 [001] d..3.   10.000002: sched_waking: comm=x pid=1 prio=2 pid=3 prio=4 target_cpu=001\n"
    "     x [001] y-z-88      [001] .....   10.000003: sched_process_exit: comm=x [001] y-z pid=88 prio=120 group_dead=true\n"
    "       a=b ==> c-99      [000] d..2.   10.000004: sched_switch: prev_comm=a=b ==> c prev_pid=99 prev_prio=-1 prev_state=D|K ==> next_comm= ==> next_comm= next_pid=5 next_prio=98\n"
    "            bash-7       [000] .....   10.000005: sched_process_exec: filename=/tmp/my prog pid=1 old_pid=2 pid=7 old_pid=7\n"
    "            bash-7       [000] .....   10.000006: sched_process_fork: comm=ba sh pid=7 child_comm=child child_pid=1 child_pid=8\n";
  g_autofree char *path = write_text ("comms.txt", text, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);
  const StrataEvent *ev;

  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 6);

  ev = event_at (events, 0);
  g_assert_cmpint (ev->pid, ==, 1234);
  g_assert_cmpstr (str (source, ev->u.sched_switch.prev_comm), ==, "Web Content");
  g_assert_cmpint (ev->u.sched_switch.prev_pid, ==, 1234);
  g_assert_cmpstr (str (source, ev->u.sched_switch.next_comm), ==, "a prev_pid=9");
  g_assert_cmpint (ev->u.sched_switch.next_pid, ==, 77);

  /* Longer than the kernel's 16 columns: found by shape. */
  ev = event_at (events, 1);
  g_assert_cmpint (ev->pid, ==, 56);
  g_assert_cmpint (ev->cpu, ==, 1);
  g_assert_cmpstr (str (source, ev->u.wakeup.comm), ==, "x");
  g_assert_cmpint (ev->u.wakeup.pid, ==, 1);
  g_assert_cmpint (ev->u.wakeup.prio, ==, 2);
  g_assert_cmpint (ev->u.wakeup.target_cpu, ==, 1);

  /* A comm that contains a CPU field: the column layout wins. */
  ev = event_at (events, 2);
  g_assert_cmpint (ev->pid, ==, 88);
  g_assert_cmpint (ev->cpu, ==, 1);
  g_assert_cmpint (ev->type, ==, STRATA_EVENT_SCHED_PROCESS_EXIT);
  g_assert_cmpstr (str (source, ev->u.exit.comm), ==, "x [001] y-z");
  g_assert_cmpint (ev->u.exit.pid, ==, 88);
  g_assert_cmpint (ev->u.exit.prio, ==, 120);

  ev = event_at (events, 3);
  g_assert_cmpint (ev->pid, ==, 99);
  g_assert_cmpstr (str (source, ev->u.sched_switch.prev_comm), ==, "a=b ==> c");
  g_assert_cmpint (ev->u.sched_switch.prev_prio, ==, -1);
  g_assert_cmpint (ev->u.sched_switch.prev_state, ==, STRATA_TASK_STATE_UNINTERRUPTIBLE);
  g_assert_cmpstr (str (source, ev->u.sched_switch.next_comm), ==, " ==> next_comm=");
  g_assert_cmpint (ev->u.sched_switch.next_pid, ==, 5);
  g_assert_cmpint (ev->u.sched_switch.next_prio, ==, 98);

  /* A file name has no length limit: its numbers are read from the right. */
  ev = event_at (events, 4);
  g_assert_cmpstr (str (source, ev->u.exec.filename), ==, "/tmp/my prog pid=1 old_pid=2");
  g_assert_cmpint (ev->u.exec.pid, ==, 7);
  g_assert_cmpint (ev->u.exec.old_pid, ==, 7);

  ev = event_at (events, 5);
  g_assert_cmpstr (str (source, ev->u.fork.parent_comm), ==, "ba sh");
  g_assert_cmpstr (str (source, ev->u.fork.child_comm), ==, "child child_pid=1");
  g_assert_cmpint (ev->u.fork.child_pid, ==, 8);
}

static void
test_payloads (void)
{
  static const char text[] =
    "          <idle>-0       [001] d.h1.   229.762300: irq_handler_entry: irq=36 name=virtio1-req.0\n"
    "          <idle>-0       [001] d.h1.   229.762303: irq_handler_exit: irq=36 ret=handled\n"
    "          <idle>-0       [001] d.h1.   229.762304: irq_handler_exit: irq=37 ret=unhandled\n"
    "          <idle>-0       [001] ..s1.   229.762305: softirq_exit: vec=7 [action=SCHED]\n"
    "              sh-4301    [000] d..2.   229.762306: sched_wakeup_new: comm=sh pid=4302 prio=120 target_cpu=000\n"
    "              sh-4301    [000] d..2.   229.762307: sched_stat_runtime: comm=sh pid=4301 runtime=47936 [ns]\n"
    "              sh-4301    [000] .....   229.762308: tracing_mark_write: hello: world\n"
    "              sh-4301    [000] .....   229.762309: <stack trace>\n"
    " => __schedule\n"
    " => schedule\n";
  g_autofree char *path = write_text ("payloads.txt", text, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 8);

  g_assert_cmpint (event_at (events, 1)->type, ==, STRATA_EVENT_IRQ_HANDLER_EXIT);
  g_assert_cmpint (event_at (events, 1)->u.irq.irq, ==, 36);
  g_assert_cmpint (event_at (events, 1)->u.irq.ret, ==, 1);
  g_assert_cmpint (event_at (events, 2)->u.irq.irq, ==, 37);
  g_assert_cmpint (event_at (events, 2)->u.irq.ret, ==, 0);
  g_assert_cmpint (event_at (events, 3)->type, ==, STRATA_EVENT_SOFTIRQ_EXIT);
  g_assert_cmpint (event_at (events, 3)->u.softirq.vec, ==, 7);
  g_assert_cmpint (event_at (events, 4)->type, ==, STRATA_EVENT_SCHED_WAKEUP_NEW);
  g_assert_cmpint (event_at (events, 4)->u.wakeup.pid, ==, 4302);
  g_assert_cmpint (event_at (events, 4)->u.wakeup.target_cpu, ==, 0);
  g_assert_cmpint (event_at (events, 5)->type, ==, STRATA_EVENT_OTHER);
  g_assert_cmpstr (str (source, event_at (events, 5)->name), ==, "sched_stat_runtime");
  g_assert_cmpstr (str (source, event_at (events, 6)->name), ==, "tracing_mark_write");
  g_assert_cmpstr (str (source, event_at (events, 7)->name), ==, "kernel_stack");
}

static void
test_lost_events (void)
{
  static const char body[] =
    " sched-messaging-4541    [000] d..3.   243.126555: sched_waking: comm=sched-messaging pid=4514 prio=120 target_cpu=001\n"
    "##### CPU 1 buffer started ####\n"
    " sched-messaging-4540    [001] d..3.   243.126720: sched_waking: comm=sched-messaging pid=4514 prio=120 target_cpu=001\n";
  g_autofree char *text = g_strconcat ("# tracer: nop\n#\n"
                                       "# entries-in-buffer/entries-written: 2/1303   #P:2\n"
                                       "#\n"
                                       "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
                                       "#              | |         |   |||||     |         |\n",
                                       body, NULL);
  g_autofree char *path = write_text ("overwrite.txt", text, -1);
  static const char pipe[] =
    "              sh-1       [000] d..2.   5.000001: sched_waking: comm=sh pid=2 prio=120 target_cpu=000\n"
    "CPU:1 [LOST 42 EVENTS]\n"
    "CPU:0 [LOST EVENTS]\n"
    "              sh-1       [000] d..2.   5.000002: sched_waking: comm=sh pid=2 prio=120 target_cpu=000\n"
    "              sh-2       [001] d..2.   5.000003: sched_waking: comm=sh pid=1 prio=120 target_cpu=001\n";
  g_autofree char *pipe_path = write_text ("pipe-lost.txt", pipe, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);
  const StrataSourceInfo *info;
  const StrataEvent *ev;

  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 3);

  /* The marker becomes a loss on its CPU, at the time of that CPU's first
   * surviving event, with the count unknown. */
  ev = event_at (events, 1);
  g_assert_cmpint (ev->type, ==, STRATA_EVENT_LOST);
  g_assert_cmpint (ev->cpu, ==, 1);
  g_assert_cmpint (ev->ts, ==, G_GINT64_CONSTANT (243126720000));
  g_assert_cmpuint (ev->u.lost.count, ==, 0);
  g_assert_cmpint (ev->source_offset, ==, offset_of (text, "#####"));
  g_assert_cmpint (event_at (events, 2)->cpu, ==, 1);

  info = strata_source_get_info (source);
  g_assert_true (info->lost_unknown);
  /* The header's entries-in-buffer/entries-written difference. */
  g_assert_cmpuint (info->lost_events, ==, 1301);

  g_clear_object (&source);
  g_clear_pointer (&events, g_array_unref);

  source = read_all (pipe_path, &events, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 5);

  ev = event_at (events, 1);
  g_assert_cmpint (ev->type, ==, STRATA_EVENT_LOST);
  g_assert_cmpint (ev->cpu, ==, 0);
  g_assert_cmpuint (ev->u.lost.count, ==, 0);
  g_assert_cmpint (ev->ts, ==, G_GINT64_CONSTANT (5000002000));

  ev = event_at (events, 3);
  g_assert_cmpint (ev->type, ==, STRATA_EVENT_LOST);
  g_assert_cmpint (ev->cpu, ==, 1);
  g_assert_cmpuint (ev->u.lost.count, ==, 42);
  g_assert_cmpint (ev->ts, ==, G_GINT64_CONSTANT (5000003000));
  g_assert_cmpint (ev->source_offset, ==, offset_of (pipe, "CPU:1"));

  info = strata_source_get_info (source);
  g_assert_cmpuint (info->lost_events, ==, 42);
  g_assert_true (info->lost_unknown);
  g_assert_cmpuint (info->lost_per_cpu->len, ==, 2);
  g_assert_cmpuint (g_array_index (info->lost_per_cpu, guint64, 1), ==, 42);
  g_assert_cmpuint (info->n_cpus, ==, 2);
}

/* trace_pipe: no header, lines slightly out of order across CPUs, and a
 * clock that is not in nanoseconds (printed as a bare counter). */
static void
test_trace_pipe (void)
{
  static const char text[] =
    "            bash-10      [003] d..2.   1.000300: sched_waking: comm=a pid=1 prio=120 target_cpu=003\n"
    "            bash-11      [000] d..2.   1.000100: sched_waking: comm=b pid=2 prio=120 target_cpu=000\n"
    "            bash-12      [001] d..2.   1.000200: sched_waking: comm=c pid=3 prio=120 target_cpu=001\n"
    "            bash-13      [001] d..2.   1.000200: sched_waking: comm=d pid=4 prio=120 target_cpu=001\n";
  static const char counter[] =
    "            bash-10      [000] d..2. 123456789012: sched_waking: comm=a pid=1 prio=120 target_cpu=000\n"
    "            bash-10      [000] d..2. 123456789013: sched_waking: comm=a pid=1 prio=120 target_cpu=000\n";
  g_autofree char *path = write_text ("pipe.txt", text, -1);
  g_autofree char *counter_path = write_text ("counter.txt", counter, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);
  const StrataSourceInfo *info;

  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 4);
  g_assert_cmpint (event_at (events, 0)->pid, ==, 11);
  /* Equal times keep the file's order. */
  g_assert_cmpint (event_at (events, 1)->pid, ==, 12);
  g_assert_cmpint (event_at (events, 2)->pid, ==, 13);
  g_assert_cmpint (event_at (events, 3)->pid, ==, 10);
  g_assert_cmpint (event_at (events, 3)->source_offset, ==, 0);

  info = strata_source_get_info (source);
  g_assert_cmpstr (info->format, ==, "ftrace text");
  /* No "#P:": the highest CPU seen. */
  g_assert_cmpuint (info->n_cpus, ==, 4);
  g_assert_true (info->clock == NULL || g_str_equal (info->clock, "unknown"));

  g_clear_object (&source);
  g_clear_pointer (&events, g_array_unref);

  source = read_all (counter_path, &events, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpint (event_at (events, 0)->ts, ==, G_GINT64_CONSTANT (123456789012));
  g_assert_cmpint (event_at (events, 1)->ts, ==, G_GINT64_CONSTANT (123456789013));
}

/* Sorting is bounded: a line that goes back in time further than the window
 * can repair is damage, reported after everything before it. */
static void
test_out_of_order (void)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = NULL;
  guint64 bad_offset;

  for (guint i = 0; i < 10000; i++)
    g_string_append_printf (text, "            bash-10      [000] d..2.   1.%06u: x: y\n", 1000 + i);
  bad_offset = text->len;
  g_string_append (text, "            bash-10      [000] d..2.   1.000001: x: y\n");
  g_string_append (text, "            bash-10      [000] d..2.   2.000000: x: y\n");

  path = write_text ("backwards.txt", text->str, text->len);
  source = read_all (path, &events, &error);
  g_assert_cmpuint (events->len, ==, 10000);
  assert_located_error (error, STRATA_ERROR_CORRUPT, path, bad_offset, 10001);
}

static int
compare_ts_then_line (gconstpointer a,
                      gconstpointer b)
{
  const gint64 *x = a;
  const gint64 *y = b;

  /* x[0], y[0]: time; x[1], y[1]: line. */
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : (x[1] > y[1]);
}

/* Lines out of order by less than the window, with many equal times: the
 * output must be exactly a stable sort of the input, whatever mix of
 * in-order and late lines the window sees. The pid carries the line index. */
static void
test_reorder_is_stable_sort (void)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autofree gint64 *expected = g_new (gint64, 2 * 20000);
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = NULL;

  for (guint i = 0; i < 20000; i++)
    {
      /* A rising clock with jitter of up to 1000 lines' worth, and a
       * stretch that arrives entirely late. */
      gint64 us = 1000000 + i * 10 - g_rand_int_range (rand, 0, 10000);

      if (i >= 12000 && i < 12500)
        us -= 30000;
      us -= us % 50;
      g_string_append_printf (text, "            bash-%-7u [000] d..2.   %" G_GINT64_FORMAT ".%06d: x: y\n",
                              i, us / 1000000, (int) (us % 1000000));
      expected[2 * i] = us * 1000;
      expected[2 * i + 1] = i;
    }
  qsort (expected, 20000, 2 * sizeof (gint64), compare_ts_then_line);

  path = write_text ("jitter.txt", text->str, text->len);
  source = read_all (path, &events, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 20000);

  for (guint i = 0; i < 20000; i++)
    {
      g_assert_cmpint (event_at (events, i)->ts, ==, expected[2 * i]);
      g_assert_cmpint (event_at (events, i)->pid, ==, expected[2 * i + 1]);
    }
}

static void
test_truncated (void)
{
  g_autofree char *text = g_strconcat (header_irq_info,
    "              sh-3490    [002] d..2.   229.760495: sched_waking: comm=sh pid=1 prio=120 target_cpu=000\n"
    "              sh-3490    [002] d..2.   229.760496: sched_waking: comm=sh pid=1 prio=120 target_cpu=000\n"
    "              sh-3490    [002] d..2.   229.760497: sched_switch: prev_comm=sh prev_pid=3490 prev_prio=120 prev_st",
    NULL);
  g_autofree char *path = write_text ("truncated.txt", text, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);
  g_autofree char *fixture = fixture_path ("sched-small.txt");
  g_autofree char *contents = NULL;
  gsize len;

  g_assert_nonnull (source);
  g_assert_cmpuint (events->len, ==, 2);
  assert_located_error (error, STRATA_ERROR_TRUNCATED, path,
                        offset_of (text, "              sh-3490    [002] d..2.   229.760497"), 15);

  /* Cut inside the header: it opens, and the first read reports it. */
  {
    g_autofree char *header_path = write_text ("cut-header.txt", header_irq_info, 60);
    g_autoptr(GError) header_error = NULL;
    g_autoptr(GArray) header_events = NULL;
    g_autoptr(StrataSource) header_source = read_all (header_path, &header_events, &header_error);

    g_assert_nonnull (header_source);
    g_assert_cmpuint (header_events->len, ==, 0);
    assert_located_error (header_error, STRATA_ERROR_TRUNCATED, header_path, 16, 3);
  }

  /* A header and no events: an empty trace, not a damaged one. */
  {
    g_autofree char *empty_path = write_text ("empty-trace.txt", header_irq_info, -1);
    g_autoptr(GError) empty_error = NULL;
    g_autoptr(GArray) empty_events = NULL;
    g_autoptr(StrataSource) empty_source = read_all (empty_path, &empty_events, &empty_error);

    g_assert_no_error (empty_error);
    g_assert_nonnull (empty_source);
    g_assert_cmpuint (empty_events->len, ==, 0);
  }

  /* A real file cut every few kilobytes: the complete lines before the cut
   * are all returned, then TRUNCATED. */
  g_clear_error (&error);
  g_file_get_contents (fixture, &contents, &len, &error);
  g_assert_no_error (error);

  for (gsize cut = 2000; cut < len; cut += 7919)
    {
      g_autofree char *cut_path = NULL;
      g_autoptr(GError) cut_error = NULL;
      g_autoptr(GArray) cut_events = NULL;
      g_autoptr(StrataSource) cut_source = NULL;
      guint lines = 0;

      for (gsize i = 0; i < cut; i++)
        if (contents[i] == '\n')
          lines++;

      cut_path = write_text ("cut.txt", contents, cut);
      cut_source = read_all (cut_path, &cut_events, &cut_error);
      g_assert_nonnull (cut_source);
      if (contents[cut - 1] == '\n')
        {
          g_assert_no_error (cut_error);
        }
      else
        {
          g_assert_error (cut_error, STRATA_ERROR, STRATA_ERROR_TRUNCATED);
          g_assert_nonnull (strstr (cut_error->message, "line"));
        }
      /* Every event line of the fixture starts after a newline, and the
       * header is the first 12 lines. */
      g_assert_cmpuint (cut_events->len, ==, lines - 12);
    }
}

static void
test_garbage (void)
{
  g_autofree char *text = g_strconcat (header_irq_info,
    "              sh-3490    [002] d..2.   229.760495: sched_waking: comm=sh pid=1 prio=120 target_cpu=000\n"
    "              sh-3490    [002] d..2.   229.760496: sched_waking: comm=sh pid=1 prio=120 target_cpu=000\n"
    "this is not an event line\n"
    "              sh-3490    [002] d..2.   229.760497: sched_waking: comm=sh pid=1 prio=120 target_cpu=000\n",
    NULL);
  g_autofree char *path = write_text ("garbage.txt", text, -1);
  static const char bad_switch[] =
    "              sh-3490    [002] d..2.   229.760495: sched_waking: comm=sh pid=1 prio=120 target_cpu=000\n"
    "              sh-3490    [002] d..2.   229.760497: sched_switch: prev_comm=sh prev_pid=x\n";
  g_autofree char *bad_switch_path = write_text ("bad-switch.txt", bad_switch, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);
  guint8 binary[8192];
  g_autofree char *binary_path = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);

  g_assert_nonnull (source);
  g_assert_cmpuint (events->len, ==, 2);
  assert_located_error (error, STRATA_ERROR_CORRUPT, path,
                        offset_of (text, "this is not"), 15);
  g_assert_nonnull (strstr (error->message, "expected ' [CPU]' after the task field"));

  g_clear_error (&error);
  g_clear_object (&source);
  g_clear_pointer (&events, g_array_unref);
  source = read_all (bad_switch_path, &events, &error);
  g_assert_cmpuint (events->len, ==, 1);
  assert_located_error (error, STRATA_ERROR_CORRUPT, bad_switch_path,
                        offset_of (bad_switch, "              sh-3490    [002] d..2.   229.760497"), 2);
  g_assert_nonnull (strstr (error->message, "prev_pid"));

  /* Binary content is not text output, whatever its bytes. */
  for (guint round = 0; round < 20; round++)
    {
      g_autoptr(GError) bin_error = NULL;
      g_autoptr(GArray) bin_events = NULL;
      g_autoptr(StrataSource) bin_source = NULL;

      for (gsize i = 0; i < sizeof binary; i++)
        binary[i] = g_rand_int_range (rand, 0, 256);
      if (round % 2)
        for (gsize i = 0; i < sizeof binary; i++)
          binary[i] = binary[i] ? binary[i] : '\n';

      g_clear_pointer (&binary_path, g_free);
      binary_path = write_text ("binary.bin", (const char *) binary, sizeof binary);
      bin_source = read_all (binary_path, &bin_events, &bin_error);
      g_assert_null (bin_source);
      g_assert_error (bin_error, STRATA_ERROR, STRATA_ERROR_UNKNOWN_FORMAT);
    }
}

/* Tracers whose output has another layout are refused when opened. */
static void
test_unsupported (void)
{
  static const char text[] =
    "# tracer: function_graph\n"
    "#\n"
    "# CPU  DURATION                  FUNCTION CALLS\n"
    "# |     |   |                     |   |   |   |\n"
    " 0)   0.123 us    |  foo();\n";
  g_autofree char *path = write_text ("graph.txt", text, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = read_all (path, &events, &error);

  g_assert_null (source);
  g_assert_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED);
}

static void
test_long_line (void)
{
  static const char first[] = "            bash-10      [000] d..2.   1.000001: x: y\n";
  g_autoptr(GString) text = g_string_new (first);
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = NULL;

  g_string_append (text, "            bash-10      [000] d..2.   1.000002: x: ");
  for (guint i = 0; i < 300000; i++)
    g_string_append_c (text, 'a');
  g_string_append_c (text, '\n');

  path = write_text ("long.txt", text->str, text->len);
  source = read_all (path, &events, &error);
  g_assert_cmpuint (events->len, ==, 1);
  assert_located_error (error, STRATA_ERROR_CORRUPT, path, strlen (first), 2);
}

static void
test_probe (void)
{
  GType type;
  StrataSourceClass *klass;
  static const char header[] = "# tracer: nop\n#\n";
  static const char pipe[] =
    "            bash-10      [000] d..2.   1.000001: x: y\n";
  static const char prose[] = "Dear diary,\ntoday I traced.\n";
  static const guint8 binary[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', 0 };

  strata_source_ensure_builtin ();
  type = g_type_from_name ("StrataFtraceTextSource");
  g_assert_true (type != G_TYPE_INVALID);
  klass = g_type_class_ref (type);

  g_assert_cmpuint (klass->probe ((const guint8 *) header, strlen (header)), ==, 90);
  g_assert_cmpuint (klass->probe ((const guint8 *) pipe, strlen (pipe)), ==, 60);
  g_assert_cmpuint (klass->probe ((const guint8 *) prose, strlen (prose)), ==, 0);
  g_assert_cmpuint (klass->probe (binary, sizeof binary), ==, 0);
  g_assert_cmpuint (klass->probe ((const guint8 *) "", 0), ==, 0);

  g_type_class_unref (klass);
}

/* The fixtures against an independent count: the event name is the word
 * between the timestamp and the next ':'. */
static void
check_fixture (const char *name,
               guint       expected_total,
               guint64     expected_lost)
{
  g_autofree char *path = fixture_path (name);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GRegex) regex = g_regex_new ("^[^#].*\\] .* [0-9]+\\.[0-9]{6}: ([a-z_0-9]+): ",
                                         G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  g_autoptr(GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) decoded = g_hash_table_new (g_str_hash, g_str_equal);
  const StrataSourceInfo *info;
  GHashTableIter iter;
  gpointer key, value;
  guint total = 0;

  /* The fixtures are part of the tree: a missing one is a failure. */
  if (!g_file_get_contents (path, &contents, NULL, NULL))
    g_error ("%s: fixture not found (STRATA_FIXTURES_DIR=%s)", path,
             g_getenv ("STRATA_FIXTURES_DIR"));

  g_regex_match (regex, contents, 0, &match);
  for (; g_match_info_matches (match); g_match_info_next (match, NULL))
    {
      char *event = g_match_info_fetch (match, 1);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, event));

      g_hash_table_replace (counts, event, GUINT_TO_POINTER (n + 1));
      total++;
    }
  g_assert_cmpuint (total, ==, expected_total);

  source = read_all (path, &events, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = event_at (events, i);
      const char *event = str (source, ev->name);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (decoded, event));

      if (ev->type == STRATA_EVENT_LOST)
        continue;
      g_assert_cmpint (ev->type, ==, strata_event_type_from_name (event));
      g_assert_cmpint (ev->cpu, >=, 0);
      g_assert_cmpint (ev->cpu, <, 2);
      /* Every source offset is the start of the line it came from. */
      g_assert_true (ev->source_offset == 0 || contents[ev->source_offset - 1] == '\n');
      g_hash_table_replace (decoded, (gpointer) event, GUINT_TO_POINTER (n + 1));
    }

  g_assert_cmpuint (g_hash_table_size (decoded), ==, g_hash_table_size (counts));
  g_hash_table_iter_init (&iter, counts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (decoded, key)), ==,
                      GPOINTER_TO_UINT (value));

  info = strata_source_get_info (source);
  g_assert_cmpuint (info->n_cpus, ==, 2);
  g_assert_cmpuint (info->lost_events, ==, expected_lost);
}

static void
test_fixtures (void)
{
  check_fixture ("sched-small.txt", 2593, 0);
  check_fixture ("sched-tgid.txt", 1657, 0);
  check_fixture ("lossy.txt", 1460, 1301);
  check_fixture ("instances-top.txt", 405, 0);
  check_fixture ("instances-lossy.txt", 383, 0);
}

/* Hostile inputs at the limits the reader guards (CPU numbers that would
 * size arrays, counts and timestamps at the edge of 64 bits, more pending
 * losses than the window holds). Inputs that make the fuzzer
 * (tests/fuzz/fuzz-ftrace-text.c) fail go here too, so that what was fixed
 * stays fixed; its runs so far found none. Each must give events or an
 * error, never a crash. */
#define NUL_LINE \
  "            bash-10      [000] d..2.   1.000001: sched_waking: comm=a\0b pid=1 prio=2 target_cpu=000\n"
#define NUL_IN_COMM "# tracer: nop\n" NUL_LINE

static const struct {
  const char *name;
  const char *text;
  gsize       len;       /* 0: up to the nul */
  guint       n_events;
  gint        code;      /* -1: no error */
} hostile_cases[] = {
  /* Markers for more CPUs than events, flushed at the end, with counts
   * that would overflow a sum. */
  { "many-markers",
    "            bash-10      [000] d..2.   1.000001: x: y\n"
    "CPU:4000 [LOST 1 EVENTS]\nCPU:4001 [LOST 1 EVENTS]\n"
    "CPU:4002 [LOST 18446744073709551615 EVENTS]\n"
    "CPU:4002 [LOST 18446744073709551615 EVENTS]\n", 0, 4, -1 },
  /* Timestamps at the edge of gint64, then past it. */
  { "huge-ts",
    "# tracer: nop\n"
    "            bash-10      [000] d..2.   9223372035.854775: x: y\n"
    "            bash-10      [000] d..2.   9223372036854775807: x: y\n"
    "            bash-10      [000] d..2.   9223372036854775808: x: y\n", 0, 2, STRATA_ERROR_CORRUPT },
  /* CPU numbers that would size the per-CPU array. */
  { "huge-cpu",
    "# tracer: nop\n"
    "CPU:4294967295 [LOST 5 EVENTS]\n", 0, 0, STRATA_ERROR_CORRUPT },
  { "huge-cpu-field",
    "# tracer: nop\n"
    "            bash-10      [8192] d..2.   1.000001: x: y\n", 0, 0, STRATA_ERROR_CORRUPT },
  /* A nul byte in the first 4 KiB: not text. */
  { "nul-in-comm", NUL_IN_COMM, sizeof (NUL_IN_COMM) - 1, 0, STRATA_ERROR_UNKNOWN_FORMAT },
  /* Unbalanced and empty columns. */
  { "unbalanced",
    "# tracer: nop\n"
    "            bash-10   (  [000] d..2.   1.000001: x: y\n", 0, 0, STRATA_ERROR_CORRUPT },
  { "empty-fields",
    "# tracer: nop\n"
    "            bash-10      [000] d..2.   1.000001: sched_switch: prev_comm= prev_pid=1 prev_prio=1 prev_state= ==> next_comm= next_pid=2 next_prio=3\n",
    0, 1, -1 },
};

static void
test_hostile (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (hostile_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("hostile-%s.txt", hostile_cases[i].name);
      g_autofree char *path = write_text (name, hostile_cases[i].text,
                                          hostile_cases[i].len ? (gssize) hostile_cases[i].len : -1);
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) events = NULL;
      g_autoptr(StrataSource) source = read_all (path, &events, &error);

      g_test_message ("%s: %u events, %s", hostile_cases[i].name, events->len,
                      error ? error->message : "no error");
      g_assert_true ((source != NULL) == (hostile_cases[i].code != STRATA_ERROR_UNKNOWN_FORMAT));
      g_assert_cmpuint (events->len, ==, hostile_cases[i].n_events);
      if (hostile_cases[i].code < 0)
        g_assert_no_error (error);
      else
        g_assert_error (error, STRATA_ERROR, hostile_cases[i].code);
    }

  /* A nul byte inside a comm after the probed head: decoded as far as the
   * nul, never read past the line. */
  {
    g_autoptr(GString) text = g_string_new ("# tracer: nop\n");
    g_autofree char *path = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) events = NULL;
    g_autoptr(StrataSource) source = NULL;
    const StrataEvent *ev;

    for (guint i = 0; i < 100; i++)
      g_string_append (text, "            bash-10      [000] d..2.   1.000001: x: y\n");
    g_string_append_len (text, NUL_LINE, sizeof (NUL_LINE) - 1);

    path = write_text ("hostile-late-nul.txt", text->str, text->len);
    source = read_all (path, &events, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (events->len, ==, 101);
    ev = event_at (events, 100);
    g_assert_cmpint (ev->type, ==, STRATA_EVENT_SCHED_WAKING);
    g_assert_cmpstr (str (source, ev->u.wakeup.comm), ==, "a");
    g_assert_cmpint (ev->u.wakeup.pid, ==, 1);
  }
}

static void
remove_tmp_dir (void)
{
  g_autoptr(GDir) dir = g_dir_open (tmp_dir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmp_dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (tmp_dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);

  tmp_dir = g_dir_make_tmp ("strata-test-ftrace-text-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/strata/ftrace-text/probe", test_probe);
  g_test_add_func ("/strata/ftrace-text/irq-info", test_irq_info);
  g_test_add_func ("/strata/ftrace-text/irq-info-four-flags", test_irq_info_four_flags);
  g_test_add_func ("/strata/ftrace-text/tgid", test_tgid);
  g_test_add_func ("/strata/ftrace-text/tgid-irq-info", test_tgid_irq_info);
  g_test_add_func ("/strata/ftrace-text/layout-mismatch", test_layout_mismatch);
  g_test_add_func ("/strata/ftrace-text/comm-with-spaces", test_comm_with_spaces);
  g_test_add_func ("/strata/ftrace-text/payloads", test_payloads);
  g_test_add_func ("/strata/ftrace-text/lost-events", test_lost_events);
  g_test_add_func ("/strata/ftrace-text/trace-pipe", test_trace_pipe);
  g_test_add_func ("/strata/ftrace-text/out-of-order", test_out_of_order);
  g_test_add_func ("/strata/ftrace-text/reorder-is-stable-sort", test_reorder_is_stable_sort);
  g_test_add_func ("/strata/ftrace-text/truncated", test_truncated);
  g_test_add_func ("/strata/ftrace-text/garbage", test_garbage);
  g_test_add_func ("/strata/ftrace-text/unsupported", test_unsupported);
  g_test_add_func ("/strata/ftrace-text/long-line", test_long_line);
  g_test_add_func ("/strata/ftrace-text/fixtures", test_fixtures);
  g_test_add_func ("/strata/ftrace-text/hostile", test_hostile);

  ret = g_test_run ();

  remove_tmp_dir ();
  g_free (tmp_dir);

  return ret;
}
