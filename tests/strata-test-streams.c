/* strata-test-streams.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "strata-test-streams.h"

typedef struct
{
  guint32 channel;
  guint8  kind;
  guint8  state;
  guint16 flags;       /* depth */
  gboolean instants;
  /* Lengths and gaps are exponential with these means (ns), switching to
   * the burst means inside bursts. */
  double  mean_len, mean_gap;
  double  burst_len, burst_gap;
  gint64  next_start;
  gint64  next_end;
  guint32 label;
  guint   id;
} Lane;

struct _StrataTestStream
{
  StrataTestStreamKind kind;
  GRand               *rand;
  Lane                *lanes;
  guint                n_lanes;
  guint                n_channels;
  guint               *heap;       /* lane ids, min-heap by next_start */
  guint64              remaining;
  gint64               burst_period, burst_length;
  gint64               span;       /* for long sleeps */
};

static const char *names[STRATA_TEST_N_STREAMS] = {
  "dense", "sparse", "bursty", "many-threads", "long-sleeps", "mixed",
};

const char *
strata_test_stream_kind_name (StrataTestStreamKind kind)
{
  return kind < STRATA_TEST_N_STREAMS ? names[kind] : "?";
}

static gboolean
in_burst (StrataTestStream *self,
          gint64            t)
{
  return self->burst_period > 0 && t % self->burst_period < self->burst_length;
}

static gint64
draw (StrataTestStream *self,
      double            mean)
{
  double u = g_rand_double (self->rand);

  return (gint64) (-log1p (-u) * mean) + 1;
}

/* The lane's next activity after the current one. */
static void
lane_step (StrataTestStream *self,
           Lane             *lane)
{
  gboolean burst = in_burst (self, lane->next_end);
  gint64 gap = lane->mean_gap <= 0 ? 0 : draw (self, burst ? lane->burst_gap : lane->mean_gap);
  gint64 start = lane->next_end + gap;

  if (lane->instants)
    {
      lane->next_start = start;
      lane->next_end = start;
      return;
    }

  burst = in_burst (self, start);
  lane->next_start = start;
  if (self->kind == STRATA_TEST_STREAM_LONG_SLEEPS && lane->state == STRATA_TASK_STATE_SLEEPING)
    lane->next_end = start + self->span;            /* one sleep over everything */
  else
    lane->next_end = start + draw (self, burst ? lane->burst_len : lane->mean_len);
}

static gboolean
heap_less (StrataTestStream *self,
           guint             a,
           guint             b)
{
  const Lane *la = &self->lanes[a], *lb = &self->lanes[b];

  if (la->next_start != lb->next_start)
    return la->next_start < lb->next_start;
  return la->id < lb->id;
}

static void
heap_down (StrataTestStream *self,
           guint             i)
{
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i, tmp;

      if (l < self->n_lanes && heap_less (self, self->heap[l], self->heap[m]))
        m = l;
      if (r < self->n_lanes && heap_less (self, self->heap[r], self->heap[m]))
        m = r;
      if (m == i)
        return;
      tmp = self->heap[i];
      self->heap[i] = self->heap[m];
      self->heap[m] = tmp;
      i = m;
    }
}

static void
add_lane (GArray *lanes,
          guint32 channel,
          guint8  kind,
          guint8  state,
          guint   depth,
          double  mean_len,
          double  mean_gap,
          double  burst_len,
          double  burst_gap)
{
  Lane lane = { 0 };

  lane.channel = channel;
  lane.kind = kind;
  lane.state = state;
  lane.flags = depth << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT;
  lane.instants = kind == STRATA_ACTIVITY_WAKEUP || kind == STRATA_ACTIVITY_EVENT;
  lane.mean_len = mean_len;
  lane.mean_gap = mean_gap;
  lane.burst_len = burst_len > 0 ? burst_len : mean_len;
  lane.burst_gap = burst_gap > 0 ? burst_gap : mean_gap;
  lane.label = 1 + channel % 7;
  lane.id = lanes->len;
  g_array_append_val (lanes, lane);
}

/**
 * strata_test_stream_new:
 * @n_activities: how many activities the stream yields
 *
 * Channels 0..3 are CPUs: tasks back to back at depth 0, IRQs at depth 1
 * and event instants. The other channels are threads: states back to back
 * and wakeup instants. The kinds differ in lengths, gaps and counts.
 */
StrataTestStream *
strata_test_stream_new (StrataTestStreamKind kind,
                        guint64              n_activities,
                        guint32              seed)
{
  StrataTestStream *self = g_new0 (StrataTestStream, 1);
  g_autoptr(GArray) lanes = g_array_new (FALSE, FALSE, sizeof (Lane));
  guint n_threads = 16;
  double task = 50e3, irq = 2e3, irq_gap = 200e3, ev_gap = 100e3, run = 100e3, sleep = 400e3;
  double b_task = 0, b_irq = 0, b_irq_gap = 0, b_ev_gap = 0, b_run = 0, b_sleep = 0;

  self->kind = kind;
  self->rand = g_rand_new_with_seed (seed);
  self->remaining = n_activities;

  switch (kind)
    {
    case STRATA_TEST_STREAM_DENSE:
      task = 800; irq = 150; irq_gap = 3e3; ev_gap = 1e3; run = 900; sleep = 2e3;
      break;
    case STRATA_TEST_STREAM_SPARSE:
      task = 20e6; irq = 5e3; irq_gap = 30e6; ev_gap = 50e6; run = 5e6; sleep = 80e6;
      break;
    case STRATA_TEST_STREAM_BURSTY:
      task = 5e6; irq = 5e3; irq_gap = 20e6; ev_gap = 30e6; run = 2e6; sleep = 30e6;
      b_task = 1e3; b_irq = 200; b_irq_gap = 4e3; b_ev_gap = 2e3; b_run = 1e3; b_sleep = 3e3;
      self->burst_period = 400 * G_GINT64_CONSTANT (1000000);
      self->burst_length = 5 * G_GINT64_CONSTANT (1000000);
      break;
    case STRATA_TEST_STREAM_MANY_THREADS:
      n_threads = 3000;
      task = 20e3; run = 30e3; sleep = 60e6;
      break;
    case STRATA_TEST_STREAM_LONG_SLEEPS:
      n_threads = 200;
      task = 3e3; irq = 500; irq_gap = 30e3; ev_gap = 10e3; run = 20e3; sleep = 1;
      break;
    case STRATA_TEST_STREAM_MIXED:
    default:
      n_threads = 64;
      b_task = 2e3; b_irq = 300; b_irq_gap = 6e3; b_ev_gap = 4e3; b_run = 2e3; b_sleep = 8e3;
      self->burst_period = 50 * G_GINT64_CONSTANT (1000000);
      self->burst_length = 10 * G_GINT64_CONSTANT (1000000);
      break;
    }

  for (guint32 c = 0; c < 4; c++)
    {
      add_lane (lanes, c, STRATA_ACTIVITY_TASK, 0, 0, task, 0, b_task, 0);
      add_lane (lanes, c, STRATA_ACTIVITY_IRQ, 0, 1, irq, irq_gap, b_irq, b_irq_gap);
      add_lane (lanes, c, STRATA_ACTIVITY_EVENT, 0, 0, 0, ev_gap, 0, b_ev_gap);
    }
  for (guint t = 0; t < n_threads; t++)
    {
      guint32 c = 4 + t;

      /* A thread is one lane of running spans whose gaps are its
       * sleeps, plus wakeup instants. */
      if (kind == STRATA_TEST_STREAM_LONG_SLEEPS)
        add_lane (lanes, c, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_SLEEPING, 0, 1, run, 0, 0);
      else
        add_lane (lanes, c, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_RUNNING, 0, run, sleep, b_run, b_sleep);
      add_lane (lanes, c, STRATA_ACTIVITY_WAKEUP, 0, 0, 0, sleep + run, 0, b_sleep + b_run);
    }

  self->n_channels = 4 + n_threads;
  self->n_lanes = lanes->len;
  self->lanes = (Lane *) g_array_free (g_steal_pointer (&lanes), FALSE);
  self->heap = g_new (guint, self->n_lanes);
  /* Long sleeps last about as long as the stream: its length is guessed
   * from the CPUs' rate. */
  self->span = (gint64) (task * (double) n_activities / 8) + 1;

  for (guint i = 0; i < self->n_lanes; i++)
    {
      Lane *lane = &self->lanes[i];

      lane->next_end = 1000000000 + g_rand_int_range (self->rand, 0, 1000);
      lane_step (self, lane);
      self->heap[i] = i;
    }
  for (guint i = self->n_lanes / 2 + 1; i-- > 0;)
    heap_down (self, i);

  return self;
}

gboolean
strata_test_stream_next (StrataTestStream *self,
                         StrataActivity   *out)
{
  Lane *lane;

  if (self->remaining == 0)
    return FALSE;
  self->remaining--;

  lane = &self->lanes[self->heap[0]];
  *out = (StrataActivity) {
    .start = lane->next_start,
    .end = lane->next_end,
    .channel = lane->channel,
    .label = lane->label,
    .arg = (gint32) (lane->next_start & 3),
    .kind = lane->kind,
    .state = lane->state,
    .flags = lane->flags,
  };
  if (lane->kind == STRATA_ACTIVITY_STATE && lane->state == STRATA_TASK_STATE_RUNNING &&
      (lane->next_start & 1))
    out->state = STRATA_TASK_STATE_RUNNABLE;

  lane_step (self, lane);
  heap_down (self, 0);

  return TRUE;
}

guint
strata_test_stream_get_n_channels (StrataTestStream *self)
{
  return self->n_channels;
}

void
strata_test_stream_free (StrataTestStream *self)
{
  if (self == NULL)
    return;
  g_rand_free (self->rand);
  g_free (self->lanes);
  g_free (self->heap);
  g_free (self);
}

/* The whole stream in an array, in start order. */
GArray *
strata_test_stream_collect (StrataTestStreamKind kind,
                            guint64              n_activities,
                            guint32              seed)
{
  g_autoptr(StrataTestStream) stream = strata_test_stream_new (kind, n_activities, seed);
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (StrataActivity), n_activities);
  StrataActivity a;

  while (strata_test_stream_next (stream, &a))
    g_array_append_val (out, a);

  return out;
}

/* Feeds activities in start order to @tree the way the kernel model would:
 * complete, with the horizon at the next one's start, advancing every 4096,
 * then finishes it. */
void
strata_test_stream_build (StrataZoomTree       *tree,
                          const StrataActivity *activities,
                          gsize                 n)
{
  for (gsize i = 0; i < n; i++)
    {
      strata_zoom_tree_add (&activities[i], tree);
      if ((i + 1) % 4096 == 0 && i + 1 < n)
        strata_zoom_tree_advance (tree, activities[i + 1].start, NULL, NULL);
    }
  strata_zoom_tree_finish (tree);
}

/* A recording of processes made all the time, as `perf bench sched
 * messaging` makes them in a loop: each thread comes after its process's
 * channel (which has no activities and never closes), runs for three
 * activities and exits, but one thread in @every lives on to the end,
 * with an activity every 64 threads made. Activities in start order;
 * @closes (StrataTestClose) says after which activity each thread that
 * exits closes, and when. What a consumer keeps per channel after such
 * a stream is what an hour of following one adds up. */
GArray *
strata_test_process_churn (guint    n_threads,
                           guint    every,
                           guint   *n_channels,
                           GArray **closes)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GArray) alive = g_array_new (FALSE, FALSE, sizeof (guint32));
  gint64 now = 1000;

  g_return_val_if_fail (every > 0, NULL);

  *closes = g_array_new (FALSE, FALSE, sizeof (StrataTestClose));
  *n_channels = 0;
  for (guint i = 0; i < n_threads; i++)
    {
      guint32 thread;

      (*n_channels)++;   /* its process */
      thread = (*n_channels)++;
      for (guint k = 0; k < 3; k++)
        {
          StrataActivity a = { 0 };

          a.start = now;
          a.end = now + 700;
          a.channel = thread;
          a.kind = STRATA_ACTIVITY_STATE;
          a.state = k == 1 ? STRATA_TASK_STATE_SLEEPING : STRATA_TASK_STATE_RUNNING;
          g_array_append_val (out, a);
          now += 1000;
        }
      if (i % every == 0)
        g_array_append_val (alive, thread);
      else
        {
          StrataTestClose c = { out->len - 1, thread, now - 300 };

          g_array_append_val (*closes, c);
        }
      if (i % 64 == 63)
        for (guint k = 0; k < alive->len; k++)
          {
            StrataActivity a = { 0 };

            a.start = now;
            a.end = now + 5;
            a.channel = g_array_index (alive, guint32, k);
            a.kind = STRATA_ACTIVITY_STATE;
            a.state = STRATA_TASK_STATE_RUNNING;
            g_array_append_val (out, a);
            now += 10;
          }
    }
  return out;
}
