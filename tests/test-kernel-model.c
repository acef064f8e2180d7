/* test-kernel-model.c
 *
 * The kernel model on small synthetic event sequences whose right answer
 * can be worked out by hand: CPU segments, thread states, wakeup latency,
 * IRQ nesting, pid reuse, lost events and what is not known.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata.h"

typedef struct
{
  StrataStringPool  *pool;
  StrataKernelModel *model;
  GArray            *events;
  GArray            *activities;
} Fixture;

static void
collect (const StrataActivity *a,
         gpointer              user_data)
{
  g_array_append_vals (user_data, a, 1);
}

static void
fixture_init (Fixture *f,
              GArray  *lost_per_cpu)
{
  f->pool = strata_string_pool_new ();
  f->model = strata_kernel_model_new (f->pool, lost_per_cpu);
  f->events = g_array_new (FALSE, TRUE, sizeof (StrataEvent));
  f->activities = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  strata_kernel_model_set_sink (f->model, collect, f->activities);
}

static void
fixture_clear (Fixture *f)
{
  strata_kernel_model_free (f->model);
  strata_string_pool_unref (f->pool);
  g_array_unref (f->events);
  g_array_unref (f->activities);
}

static StrataEvent *
add (Fixture         *f,
     gint64           ts,
     gint32           cpu,
     gint32           pid,
     StrataEventType  type)
{
  StrataEvent ev = { 0 };

  ev.ts = ts;
  ev.cpu = cpu;
  ev.pid = pid;
  ev.tgid = -1;
  ev.type = type;
  ev.name = strata_string_pool_intern (f->pool, strata_event_type_to_string (type));
  g_array_append_val (f->events, ev);

  return &g_array_index (f->events, StrataEvent, f->events->len - 1);
}

static void
add_switch (Fixture        *f,
            gint64          ts,
            gint32          cpu,
            gint32          prev,
            StrataTaskState prev_state,
            gint32          next)
{
  StrataEvent *ev = add (f, ts, cpu, prev, STRATA_EVENT_SCHED_SWITCH);
  g_autofree char *prev_comm = g_strdup_printf ("t%d", prev);
  g_autofree char *next_comm = g_strdup_printf ("t%d", next);

  ev->u.sched_switch.prev_pid = prev;
  ev->u.sched_switch.next_pid = next;
  ev->u.sched_switch.prev_state = prev_state;
  ev->u.sched_switch.prev_comm = strata_string_pool_intern (f->pool, prev ? prev_comm : "swapper");
  ev->u.sched_switch.next_comm = strata_string_pool_intern (f->pool, next ? next_comm : "swapper");
}

static void
add_waking (Fixture *f,
            gint64   ts,
            gint32   cpu,
            gint32   waker,
            gint32   target)
{
  StrataEvent *ev = add (f, ts, cpu, waker, STRATA_EVENT_SCHED_WAKING);

  ev->u.wakeup.pid = target;
  ev->u.wakeup.target_cpu = cpu;
}

static void
run (Fixture *f,
     gint64   end)
{
  strata_kernel_model_feed (f->model, (StrataEvent *) (gpointer) f->events->data,
                            f->events->len);
  strata_kernel_model_finish (f->model, end);
}

static const StrataChannel *
find_channel (Fixture           *f,
              StrataChannelKind  kind,
              gint32             id,
              guint              generation,
              guint             *index)
{
  guint n;
  const StrataChannel *channels = strata_kernel_model_get_channels (f->model, &n);

  for (guint i = 0; i < n; i++)
    if (channels[i].kind == kind && channels[i].id == id &&
        channels[i].generation == generation)
      {
        if (index)
          *index = i;
        return &channels[i];
      }

  return NULL;
}

/* Sum of durations of activities on a channel of one kind (and state). */
static gint64
total (Fixture *f,
       guint    channel,
       guint8   kind,
       gint     state)
{
  gint64 sum = 0;

  for (guint i = 0; i < f->activities->len; i++)
    {
      const StrataActivity *a = &g_array_index (f->activities, StrataActivity, i);

      if (a->channel == channel && a->kind == kind && (state < 0 || a->state == state))
        sum += a->end - a->start;
    }

  return sum;
}

static guint
count (Fixture *f,
       guint    channel,
       guint8   kind)
{
  guint n = 0;

  for (guint i = 0; i < f->activities->len; i++)
    {
      const StrataActivity *a = &g_array_index (f->activities, StrataActivity, i);
      n += a->channel == channel && a->kind == kind;
    }

  return n;
}

static void
test_cpu_segments (void)
{
  Fixture f;
  guint cpu0 = 0, t1 = 0, t2 = 0;

  fixture_init (&f, NULL);
  /* The trace starts at 100 with an event on CPU 1; CPU 0's first switch
   * at 150 tells that t1 ran there since the start. */
  add (&f, 100, 1, 0, STRATA_EVENT_OTHER);
  add_switch (&f, 150, 0, 1, STRATA_TASK_STATE_PREEMPTED, 2);
  add_switch (&f, 400, 0, 2, STRATA_TASK_STATE_SLEEPING, 0);
  add_switch (&f, 700, 0, 0, STRATA_TASK_STATE_RUNNING, 1);
  run (&f, 1000);

  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_CPU, 0, 0, &cpu0));
  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 1, 0, &t1));
  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 2, 0, &t2));

  /* busy: t1 100..150, t2 150..400, t1 700..1000; idle 400..700 */
  g_assert_cmpint (total (&f, cpu0, STRATA_ACTIVITY_TASK, -1), ==, 50 + 250 + 300);
  g_assert_cmpint (total (&f, cpu0, STRATA_ACTIVITY_IDLE, -1), ==, 300);
  g_assert_cmpint (total (&f, cpu0, STRATA_ACTIVITY_UNKNOWN, -1), ==, 0);

  /* t1: running 100..150 (start unseen) and 700..1000; preempted 150..700 */
  g_assert_cmpint (total (&f, t1, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_RUNNING), ==, 350);
  g_assert_cmpint (total (&f, t1, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_PREEMPTED), ==, 550);
  /* t2: first seen switched in at 150: nothing before; sleeping from 400 */
  g_assert_cmpint (total (&f, t2, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_RUNNING), ==, 250);
  g_assert_cmpint (total (&f, t2, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_SLEEPING), ==, 600);

  for (guint i = 0; i < f.activities->len; i++)
    {
      const StrataActivity *a = &g_array_index (f.activities, StrataActivity, i);

      if (a->channel == cpu0 && a->start == 100)
        g_assert_true (a->flags & STRATA_ACTIVITY_FLAG_START_UNSEEN);
      if (a->channel == cpu0 && a->end == 1000)
        g_assert_true (a->flags & STRATA_ACTIVITY_FLAG_END_UNSEEN);
      g_assert_cmpint (a->start, >=, 100);
      g_assert_cmpint (a->end, <=, 1000);
    }

  fixture_clear (&f);
}

static void
test_wakeup_latency (void)
{
  Fixture f;
  guint t2 = 0;
  gboolean found = FALSE;

  fixture_init (&f, NULL);
  add_switch (&f, 100, 0, 2, STRATA_TASK_STATE_SLEEPING, 1);
  add_waking (&f, 300, 0, 1, 2);
  add_switch (&f, 350, 0, 1, STRATA_TASK_STATE_PREEMPTED, 2);
  run (&f, 500);

  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 2, 0, &t2));
  g_assert_cmpint (total (&f, t2, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_SLEEPING), ==, 200);
  g_assert_cmpint (total (&f, t2, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_WOKEN), ==, 50);
  g_assert_cmpuint (count (&f, t2, STRATA_ACTIVITY_WAKEUP), ==, 1);

  for (guint i = 0; i < f.activities->len; i++)
    {
      const StrataActivity *a = &g_array_index (f.activities, StrataActivity, i);

      if (a->kind == STRATA_ACTIVITY_WAKEUP)
        {
          g_assert_cmpint (a->channel, ==, t2);
          g_assert_cmpint (a->arg, ==, 1);   /* the waker */
          g_assert_cmpint (a->start, ==, 300);
          found = TRUE;
        }
    }
  g_assert_true (found);

  fixture_clear (&f);
}

/* A sched_waking that finds its thread still on its CPU, and the switch-
 * out that follows saying it slept (the kernel's order when the waker
 * comes while the sleeper is in __schedule()): the thread goes from
 * running to woken, the waker the waking's, with no sleep between. A
 * waking the thread outran by more than a moment does not end a later
 * sleep, and a switch-out as preempted forgets the waking. */
static void
test_waking_before_switch_out (void)
{
  Fixture f;
  guint t2 = 0, t3 = 0, t4 = 0;

  fixture_init (&f, NULL);
  add_switch (&f, 100, 0, 0, STRATA_TASK_STATE_RUNNING, 2);
  add_switch (&f, 100, 1, 0, STRATA_TASK_STATE_RUNNING, 5);
  add_waking (&f, 1000, 1, 5, 2);
  add_switch (&f, 1003, 0, 2, STRATA_TASK_STATE_SLEEPING, 0);
  add_switch (&f, 1500, 0, 0, STRATA_TASK_STATE_RUNNING, 2);

  /* Thread 3 on CPU 0 after 2: woken by 5 while running, then asleep
   * 5 ms later: that sleep is its own, not ended. */
  add_switch (&f, 2000, 0, 2, STRATA_TASK_STATE_SLEEPING, 3);
  add_waking (&f, 3000, 1, 5, 3);
  add_switch (&f, 3000 + 5000000, 0, 3, STRATA_TASK_STATE_SLEEPING, 4);

  /* Thread 4: woken while running, then preempted (it never slept):
   * its next sleep is not ended by that waking. */
  add_waking (&f, 5010000, 1, 5, 4);
  add_switch (&f, 5010002, 0, 4, STRATA_TASK_STATE_PREEMPTED, 0);
  add_switch (&f, 5020000, 0, 0, STRATA_TASK_STATE_RUNNING, 4);
  add_switch (&f, 5020001, 0, 4, STRATA_TASK_STATE_UNINTERRUPTIBLE, 0);
  run (&f, 6000000);

  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 2, 0, &t2));
  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 3, 0, &t3));
  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 4, 0, &t4));

  g_assert_cmpint (total (&f, t2, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_WOKEN), ==, 497);
  for (guint i = 0; i < f.activities->len; i++)
    {
      const StrataActivity *a = &g_array_index (f.activities, StrataActivity, i);

      if (a->channel == t2 && a->kind == STRATA_ACTIVITY_STATE && a->start < 2000)
        g_assert_cmpint (a->state, !=, STRATA_TASK_STATE_SLEEPING);
      if (a->channel == t2 && a->kind == STRATA_ACTIVITY_STATE &&
          a->state == STRATA_TASK_STATE_WOKEN)
        {
          g_assert_cmpint (a->start, ==, 1003);
          g_assert_cmpint (a->arg, ==, 5);   /* the waker */
        }
    }

  g_assert_cmpint (total (&f, t3, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_WOKEN), ==, 0);
  g_assert_cmpint (total (&f, t3, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_SLEEPING), ==,
                   6000000 - 5003000);
  g_assert_cmpint (total (&f, t4, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_WOKEN), ==, 0);
  g_assert_cmpint (total (&f, t4, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_UNINTERRUPTIBLE), ==,
                   6000000 - 5020001);

  fixture_clear (&f);
}

static void
test_unknown_before_first_event (void)
{
  Fixture f;
  guint t5 = 0;

  fixture_init (&f, NULL);
  add (&f, 0, 0, 0, STRATA_EVENT_OTHER);
  /* Thread 5 is first seen being woken at 400: what it did before is not
   * in the trace, so nothing is drawn for it before 400. */
  add_waking (&f, 400, 0, 0, 5);
  run (&f, 1000);

  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 5, 0, &t5));
  for (guint i = 0; i < f.activities->len; i++)
    {
      const StrataActivity *a = &g_array_index (f.activities, StrataActivity, i);

      if (a->channel == t5)
        g_assert_cmpint (a->start, >=, 400);
    }
  g_assert_cmpint (total (&f, t5, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_WOKEN), ==, 600);

  fixture_clear (&f);
}

static void
test_irq_nesting (void)
{
  Fixture f;
  StrataEvent *ev;
  guint cpu0 = 0;
  guint seen = 0;

  fixture_init (&f, NULL);
  add_switch (&f, 10, 0, 0, STRATA_TASK_STATE_RUNNING, 1);
  ev = add (&f, 100, 0, 1, STRATA_EVENT_SOFTIRQ_ENTRY);
  ev->u.softirq.vec = 1;
  ev = add (&f, 120, 0, 1, STRATA_EVENT_IRQ_HANDLER_ENTRY);
  ev->u.irq.irq = 36;
  ev->u.irq.name = strata_string_pool_intern (f.pool, "virtio1-req.0");
  ev = add (&f, 130, 0, 1, STRATA_EVENT_IRQ_HANDLER_EXIT);
  ev->u.irq.irq = 36;
  ev = add (&f, 200, 0, 1, STRATA_EVENT_SOFTIRQ_EXIT);
  ev->u.softirq.vec = 1;
  /* An exit whose entry came before the trace is not drawn. */
  ev = add (&f, 300, 0, 1, STRATA_EVENT_IRQ_HANDLER_EXIT);
  ev->u.irq.irq = 7;
  run (&f, 400);

  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_CPU, 0, 0, &cpu0));
  for (guint i = 0; i < f.activities->len; i++)
    {
      const StrataActivity *a = &g_array_index (f.activities, StrataActivity, i);

      if (a->kind == STRATA_ACTIVITY_SOFTIRQ)
        {
          g_assert_cmpint (a->start, ==, 100);
          g_assert_cmpint (a->end, ==, 200);
          g_assert_cmpuint (strata_activity_get_depth (a), ==, 1);
          g_assert_cmpstr (strata_string_pool_get (f.pool, a->label), ==, "TIMER");
          seen++;
        }
      else if (a->kind == STRATA_ACTIVITY_IRQ)
        {
          g_assert_cmpint (a->start, ==, 120);
          g_assert_cmpint (a->end, ==, 130);
          g_assert_cmpint (a->arg, ==, 36);
          g_assert_cmpuint (strata_activity_get_depth (a), ==, 2);
          g_assert_cmpstr (strata_string_pool_get (f.pool, a->label), ==, "virtio1-req.0");
          seen++;
        }
    }
  g_assert_cmpuint (seen, ==, 2);

  fixture_clear (&f);
}

static void
test_pid_reuse (void)
{
  Fixture f;
  StrataEvent *ev;
  const StrataChannel *first, *second;
  guint c1 = 0, c2 = 0;

  fixture_init (&f, NULL);
  ev = add (&f, 100, 0, 1, STRATA_EVENT_SCHED_PROCESS_FORK);
  ev->u.fork.parent_pid = 1;
  ev->u.fork.child_pid = 42;
  ev->u.fork.child_comm = strata_string_pool_intern (f.pool, "first");
  add_switch (&f, 150, 0, 1, STRATA_TASK_STATE_SLEEPING, 42);
  ev = add (&f, 200, 0, 42, STRATA_EVENT_SCHED_PROCESS_EXIT);
  ev->u.exit.pid = 42;
  add_switch (&f, 210, 0, 42, STRATA_TASK_STATE_DEAD, 0);
  ev = add (&f, 500, 0, 1, STRATA_EVENT_SCHED_PROCESS_FORK);
  ev->u.fork.parent_pid = 1;
  ev->u.fork.child_pid = 42;
  ev->u.fork.child_comm = strata_string_pool_intern (f.pool, "second");
  add_switch (&f, 600, 0, 0, STRATA_TASK_STATE_RUNNING, 42);
  run (&f, 700);

  first = find_channel (&f, STRATA_CHANNEL_THREAD, 42, 0, &c1);
  second = find_channel (&f, STRATA_CHANNEL_THREAD, 42, 1, &c2);
  g_assert_nonnull (first);
  g_assert_nonnull (second);
  g_assert_cmpstr (strata_string_pool_get (f.pool, first->name), ==, "t42");
  g_assert_cmpstr (strata_string_pool_get (f.pool, second->name), ==, "t42");
  g_assert_cmpint (first->end, ==, 210);
  g_assert_cmpint (second->begin, ==, 500);
  g_assert_cmpint (total (&f, c1, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_RUNNING), ==, 60);
  g_assert_cmpint (total (&f, c2, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_RUNNING), ==, 100);

  fixture_clear (&f);
}

typedef struct
{
  GArray *activities;   /* as the sink got them */
  GArray *closes;       /* Close, as they came */
} CloseLog;

typedef struct
{
  guint32 channel;
  gint64  t;
  guint   n_before;     /* activities the sink had got by then */
} Close;

static void
log_close (guint32  channel,
           gint64   t,
           gpointer user_data)
{
  CloseLog *log = user_data;
  Close c = { channel, t, log->activities->len };

  g_array_append_val (log->closes, c);
}

/* A thread switched out dead is closed, once, at its switch-out, after
 * every activity of its channel: what comes of its tid after (a wakeup
 * without a fork, a sched_process_exit seen late, a fork) goes to a new
 * channel. One that is only asleep, or still alive at the end, is not. */
static void
test_thread_closed (void)
{
  Fixture f;
  StrataEvent *ev;
  CloseLog log;
  guint c1 = 0, c2 = 0, c3 = 0, sleeper = 0;

  fixture_init (&f, NULL);
  log.activities = f.activities;
  log.closes = g_array_new (FALSE, FALSE, sizeof (Close));
  strata_kernel_model_set_close_func (f.model, log_close, &log);

  ev = add (&f, 100, 0, 1, STRATA_EVENT_SCHED_PROCESS_FORK);
  ev->u.fork.parent_pid = 1;
  ev->u.fork.child_pid = 42;
  ev->u.fork.child_comm = strata_string_pool_intern (f.pool, "first");
  add_switch (&f, 150, 0, 1, STRATA_TASK_STATE_SLEEPING, 42);
  add_waking (&f, 160, 0, 42, 7);
  ev = add (&f, 200, 0, 42, STRATA_EVENT_SCHED_PROCESS_EXIT);
  ev->u.exit.pid = 42;
  add_switch (&f, 210, 0, 42, STRATA_TASK_STATE_DEAD, 0);
  /* The tid again, without a fork: a new thread, which dies too. */
  add_waking (&f, 300, 1, 0, 42);
  add_switch (&f, 320, 1, 0, STRATA_TASK_STATE_RUNNING, 42);
  add_switch (&f, 400, 1, 42, STRATA_TASK_STATE_DEAD, 0);
  /* And again, alive at the end. */
  ev = add (&f, 500, 0, 1, STRATA_EVENT_SCHED_PROCESS_FORK);
  ev->u.fork.parent_pid = 1;
  ev->u.fork.child_pid = 42;
  ev->u.fork.child_comm = strata_string_pool_intern (f.pool, "third");
  add_switch (&f, 600, 0, 0, STRATA_TASK_STATE_RUNNING, 42);
  run (&f, 700);

  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 42, 0, &c1));
  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 42, 1, &c2));
  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 42, 2, &c3));
  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_THREAD, 7, 0, &sleeper));

  g_assert_cmpuint (log.closes->len, ==, 2);
  g_assert_cmpuint (g_array_index (log.closes, Close, 0).channel, ==, c1);
  g_assert_cmpint (g_array_index (log.closes, Close, 0).t, ==, 210);
  g_assert_cmpuint (g_array_index (log.closes, Close, 1).channel, ==, c2);
  g_assert_cmpint (g_array_index (log.closes, Close, 1).t, ==, 400);

  /* Nothing of a closed channel reaches the sink after its close, and
   * nothing of it lies past the close's time. */
  for (guint k = 0; k < log.closes->len; k++)
    {
      const Close *c = &g_array_index (log.closes, Close, k);
      guint n_channel = 0;

      for (guint i = 0; i < f.activities->len; i++)
        {
          const StrataActivity *a = &g_array_index (f.activities, StrataActivity, i);

          if (a->channel != c->channel)
            continue;
          n_channel++;
          g_assert_cmpuint (i, <, c->n_before);
          g_assert_cmpint (a->end, <=, c->t);
        }
      g_assert_cmpuint (n_channel, >, 0);
    }
  g_assert_cmpuint (count (&f, c3, STRATA_ACTIVITY_STATE), >, 0);
  g_assert_cmpuint (count (&f, sleeper, STRATA_ACTIVITY_STATE), >, 0);

  g_array_unref (log.closes);
  fixture_clear (&f);
}

static void
test_lost_events (void)
{
  Fixture f;
  StrataEvent *ev;
  guint cpu0 = 0;

  fixture_init (&f, NULL);
  add_switch (&f, 100, 0, 0, STRATA_TASK_STATE_RUNNING, 1);
  add (&f, 250, 0, 1, STRATA_EVENT_OTHER);
  ev = add (&f, 300, 0, 0, STRATA_EVENT_LOST);
  ev->u.lost.count = 10;
  add (&f, 420, 0, 2, STRATA_EVENT_OTHER);
  add_switch (&f, 500, 0, 2, STRATA_TASK_STATE_SLEEPING, 0);
  run (&f, 600);

  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_CPU, 0, 0, &cpu0));
  /* t1 100..250 (its last event before the loss), unknown 250..420, t2
   * 420..500 (the run of its events before its switch-out), idle 500..600. */
  g_assert_cmpint (total (&f, cpu0, STRATA_ACTIVITY_TASK, -1), ==, 150 + 80);
  g_assert_cmpint (total (&f, cpu0, STRATA_ACTIVITY_UNKNOWN, -1), ==, 170);
  g_assert_cmpint (total (&f, cpu0, STRATA_ACTIVITY_IDLE, -1), ==, 100);

  fixture_clear (&f);
}

static void
test_overwritten_cpu (void)
{
  g_autoptr(GArray) lost = g_array_new (FALSE, TRUE, sizeof (guint64));
  guint64 l[] = { 0, 5 };
  Fixture f;
  guint cpu1 = 0;

  g_array_append_vals (lost, l, 2);
  fixture_init (&f, lost);
  add (&f, 100, 0, 0, STRATA_EVENT_OTHER);
  add (&f, 250, 1, 3, STRATA_EVENT_OTHER);
  add_switch (&f, 300, 1, 3, STRATA_TASK_STATE_SLEEPING, 0);
  run (&f, 400);

  /* CPU 1 lost events, so only its own first event tells since when t3 ran. */
  g_assert_nonnull (find_channel (&f, STRATA_CHANNEL_CPU, 1, 0, &cpu1));
  g_assert_cmpint (total (&f, cpu1, STRATA_ACTIVITY_UNKNOWN, -1), ==, 150);
  g_assert_cmpint (total (&f, cpu1, STRATA_ACTIVITY_TASK, -1), ==, 50);
  g_assert_cmpint (total (&f, cpu1, STRATA_ACTIVITY_IDLE, -1), ==, 100);

  fixture_clear (&f);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/kernel-model/cpu-segments", test_cpu_segments);
  g_test_add_func ("/strata/kernel-model/wakeup-latency", test_wakeup_latency);
  g_test_add_func ("/strata/kernel-model/waking-before-switch-out", test_waking_before_switch_out);
  g_test_add_func ("/strata/kernel-model/unknown-before-first-event", test_unknown_before_first_event);
  g_test_add_func ("/strata/kernel-model/irq-nesting", test_irq_nesting);
  g_test_add_func ("/strata/kernel-model/pid-reuse", test_pid_reuse);
  g_test_add_func ("/strata/kernel-model/thread-closed", test_thread_closed);
  g_test_add_func ("/strata/kernel-model/lost-events", test_lost_events);
  g_test_add_func ("/strata/kernel-model/overwritten-cpu", test_overwritten_cpu);
  return g_test_run ();
}
