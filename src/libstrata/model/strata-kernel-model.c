/* strata-kernel-model.c
 *
 * A state machine per CPU and per thread, fed decoded events in time order.
 *
 * CPU rows: a segment runs from one sched_switch to the next and names the
 * task switched in (or idle). Before a CPU's first switch we know only that
 * its prev task was running; when no events were lost on that CPU, the
 * ring buffer was recording from the start of the trace, so the segment is
 * taken back to the trace's first event (and flagged START_UNSEEN). Where
 * events were lost, that inference is not sound and the time is UNKNOWN.
 * IRQ and softirq handlers are a stack of intervals nested in the segment.
 *
 * Thread rows: a thread's state is known from its first scheduling event on
 * (switched in or out, woken, forked); nothing is emitted for the time
 * before that. Switching out sets the state from prev_state; a wakeup turns
 * a sleeping state into WOKEN, whose end at the next switch-in is the
 * wakeup latency. A fork of a tid that already exists is a new thread with
 * a new channel (pid reuse).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-kernel-model.h"

#define MAX_NEST        16
#define MAX_CPUS        8192
#define TASK_COMM_LEN   16

typedef enum
{
  CPU_PHASE_INITIAL,     /* no sched_switch seen yet */
  CPU_PHASE_KNOWN,       /* cur_tid ran since seg_start */
  CPU_PHASE_AFTER_LOSS,  /* events were lost at seg_start; who ran is unknown */
} CpuPhase;

typedef struct
{
  guint8  kind;
  gint32  arg;
  guint32 label;
  gint64  start;
} Nest;

typedef struct
{
  guint32  channel;
  gboolean present;       /* an event was seen on this CPU */
  CpuPhase phase;
  gboolean loss;          /* events were lost before the first switch */
  gint64   first_ts;      /* the first event on this CPU */
  gint64   seg_start;
  guint16  seg_flags;
  gint32   cur_tid;
  guint32  cur_comm;
  gint64   cur_last;      /* the last event in cur_tid's context */
  gint32   run_pid;       /* common_pid of the latest event here */
  gint64   run_start;     /* the first of the run of events in run_pid's context */
  guint    depth;
  Nest     nest[MAX_NEST];
  guint64  switches;
} Cpu;

typedef struct
{
  guint32 channel;
  gint32  tid;
  guint16 instance;
  guint8  state;          /* StrataTaskState; UNKNOWN until the trace says */
  guint8  dead;
  gint32  cpu;            /* when RUNNING */
  guint16 since_flags;
  gint64  since;
  gint32  waker;          /* when WOKEN: the tid the wakeup ran in; when
                           * RUNNING with woke_at set: the early waking's */
  guint32 waker_cpu;      /* and the name of the waking CPU's row */
  guint16 woke_flags;     /* the early waking's context (STRATA_ACTIVITY_FLAG_WAKER_*) */
  gint64  woke_at;        /* a sched_waking while RUNNING, or G_MININT64 */
} Thread;

/* STRATA_KERNEL_MODEL_EARLY_WAKING_NS: the kernel traces sched_waking
 * once the sleeper has set its sleeping state, and may do so while the
 * sleeper is still in __schedule() on its CPU; the switch-out that
 * follows then says "S" or "D", but the wakeup has already happened (the
 * waker waits for the CPU to let go of the task, then queues it). On the
 * 2-CPU machine this was written on, those switch-outs came 0-10 µs after
 * the waking (37 of 44 wakings of running threads in a recording of
 * `perf bench sched messaging`; the others found the thread not yet
 * sleeping). The bound of 1 ms leaves room for a virtual CPU's pauses and
 * keeps a waking that a thread outran (it went on and slept again later)
 * from ending a sleep it did not end. */
#define EARLY_WAKING_NS STRATA_KERNEL_MODEL_EARLY_WAKING_NS

typedef struct
{
  GArray     *cpus;       /* Cpu */
  GArray     *threads;    /* guint32 by tid: index in self->threads + 1, or
                           * DEAD_TID | the channel of the tid's exited
                           * thread, or 0 */
  GHashTable *big_tids;   /* the same for tids a real kernel never gives */
  GHashTable *processes;  /* tgid -> channel + 1 */
} Instance;

struct _StrataKernelModel
{
  StrataStringPool   *strings;
  GArray             *lost_per_cpu;  /* guint64, as the source knew it at open */
  /* StrataChannel: in a spill file, its pages let go as it grows (a
   * million threads are a million channels, most closed long ago: 40 MB
   * a million; strata-spilled-array.h) */
  StrataSpilledArray *channels;
  /* guint32: the channels below changes_below changed since the changes
   * were last forgotten (ids may repeat), or NULL: not tracked
   * (strata_kernel_model_track_changes()) */
  GArray             *changes;
  guint               changes_below;
  GArray             *switches;      /* guint64 per channel, up to the last CPU's:
                                      * only CPU channels have any */
  GArray             *threads;       /* Thread; an exited one's slot is reused */
  GArray             *free_threads;  /* guint32: the slots of exited threads */
  Thread              exited;        /* what lookup_thread() says of an exited thread */
  GPtrArray          *instances;     /* Instance */
  StrataActivityFunc  sink;
  gpointer            sink_data;
  StrataChannelCloseFunc close_func;
  gpointer            close_data;
  gint64              first_ts;
  gint64              last_ts;
  guint               n_instances;   /* what the source declares, or 0 */
  guint               n_cpus;
  gboolean            started;
  gboolean            finished;
};

static void
instance_free (gpointer data)
{
  Instance *inst = data;

  g_array_unref (inst->cpus);
  g_array_unref (inst->threads);
  g_hash_table_unref (inst->big_tids);
  g_hash_table_unref (inst->processes);
  g_free (inst);
}

/**
 * strata_kernel_model_new:
 * @strings: the pool the events' strings are in; activities use it too
 * @lost_per_cpu: (nullable): events the source knows were lost per CPU
 *   (guint64), which disables inferring what ran before a CPU's first switch
 */
StrataKernelModel *
strata_kernel_model_new (StrataStringPool *strings,
                         const GArray     *lost_per_cpu)
{
  StrataKernelModel *self;

  g_return_val_if_fail (strings != NULL, NULL);

  self = g_new0 (StrataKernelModel, 1);
  self->strings = strata_string_pool_ref (strings);
  self->lost_per_cpu = g_array_new (FALSE, TRUE, sizeof (guint64));
  if (lost_per_cpu != NULL)
    g_array_append_vals (self->lost_per_cpu, lost_per_cpu->data, lost_per_cpu->len);
  self->channels = strata_spilled_array_new (sizeof (StrataChannel));
  self->switches = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->threads = g_array_new (FALSE, TRUE, sizeof (Thread));
  self->free_threads = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->instances = g_ptr_array_new_with_free_func (instance_free);

  return self;
}

void
strata_kernel_model_free (StrataKernelModel *self)
{
  if (self == NULL)
    return;

  g_clear_pointer (&self->strings, strata_string_pool_unref);
  g_clear_pointer (&self->lost_per_cpu, g_array_unref);
  g_clear_pointer (&self->channels, strata_spilled_array_free);
  g_clear_pointer (&self->changes, g_array_unref);
  g_clear_pointer (&self->switches, g_array_unref);
  g_clear_pointer (&self->threads, g_array_unref);
  g_clear_pointer (&self->free_threads, g_array_unref);
  g_clear_pointer (&self->instances, g_ptr_array_unref);
  g_free (self);
}

void
strata_kernel_model_set_sink (StrataKernelModel  *self,
                              StrataActivityFunc  func,
                              gpointer            user_data)
{
  g_return_if_fail (self != NULL);

  self->sink = func;
  self->sink_data = user_data;
}

/**
 * strata_kernel_model_set_close_func:
 * @func: (nullable): called once a thread's channel can get no more
 *   activities, after its last one went to the sink
 *
 * A thread is done when it is switched out dead (prev_state X or Z, after
 * sched_process_exit): the model emits nothing on its channel after that
 * (its tid seen again is a new thread, on a new channel: a wakeup, an
 * exec, a sample of it), so the tree and the stores can let go of what
 * they keep for its coming activities.
 */
void
strata_kernel_model_set_close_func (StrataKernelModel      *self,
                                    StrataChannelCloseFunc  func,
                                    gpointer                user_data)
{
  g_return_if_fail (self != NULL);

  self->close_func = func;
  self->close_data = user_data;
}

static inline void
emit (StrataKernelModel *self,
      gint64             start,
      gint64             end,
      guint32            channel,
      guint8             kind,
      guint8             state,
      guint32            label,
      gint32             arg,
      guint16            flags)
{
  StrataActivity a;

  g_assert (end >= start);

  a.start = start;
  a.end = end;
  a.channel = channel;
  a.label = label;
  a.arg = arg;
  a.kind = kind;
  a.state = state;
  a.flags = flags;

  if (self->sink != NULL)
    self->sink (&a, self->sink_data);
}

static guint32
add_channel (StrataKernelModel *self,
             StrataChannelKind  kind,
             guint16            instance,
             gint32             id,
             guint32            name,
             gint64             begin)
{
  StrataChannel ch = {
    .kind = kind,
    .instance = instance,
    .id = id,
    .name = name,
    .parent = STRATA_CHANNEL_NONE,
    .tgid = -1,
    .begin = begin,
    .end = G_MAXINT64,
  };
  guint32 channel = self->channels->len;

  strata_spilled_array_append (self->channels, &ch);
  /* The context switches are counted on CPU rows only: the threads'
   * channels past the last CPU's hold none (8 bytes each, a million). */
  if (kind == STRATA_CHANNEL_CPU)
    g_array_set_size (self->switches, channel + 1);

  return channel;
}

static inline StrataChannel *
get_channel (StrataKernelModel *self,
             guint32            channel)
{
  return &strata_spilled_array_index (self->channels, StrataChannel, channel);
}

/* After a channel's field changed: one that was there when the changes
 * were last forgotten is noted (a newer one is new to whoever asks). */
static inline void
note_change (StrataKernelModel *self,
             guint32            channel)
{
  GArray *changes = self->changes;

  if (changes == NULL || channel >= self->changes_below)
    return;
  if (changes->len > 0 && g_array_index (changes, guint32, changes->len - 1) == channel)
    return;
  g_array_append_val (changes, channel);
}

static Instance *
get_instance (StrataKernelModel *self,
              guint16            instance)
{
  while (self->instances->len <= instance)
    {
      Instance *inst = g_new0 (Instance, 1);

      inst->cpus = g_array_new (FALSE, TRUE, sizeof (Cpu));
      inst->threads = g_array_new (FALSE, TRUE, sizeof (guint32));
      inst->big_tids = g_hash_table_new (NULL, NULL);
      inst->processes = g_hash_table_new (NULL, NULL);
      g_ptr_array_add (self->instances, inst);
    }

  return g_ptr_array_index (self->instances, instance);
}

static Cpu *
get_cpu (StrataKernelModel *self,
         Instance          *inst,
         guint16            instance,
         gint32             cpu_id,
         gint64             ts)
{
  Cpu *cpu;

  if (cpu_id < 0 || cpu_id >= MAX_CPUS)
    return NULL;

  if ((guint) cpu_id >= inst->cpus->len)
    g_array_set_size (inst->cpus, cpu_id + 1);

  cpu = &g_array_index (inst->cpus, Cpu, cpu_id);

  if (!cpu->present)
    {
      g_autofree char *name = g_strdup_printf ("CPU %d", cpu_id);

      cpu->channel = add_channel (self, STRATA_CHANNEL_CPU, instance, cpu_id,
                                  strata_string_pool_intern (self->strings, name),
                                  self->first_ts);
      cpu->present = TRUE;
      cpu->first_ts = G_MAXINT64;
      cpu->cur_tid = -1;
      cpu->run_pid = -1;
      cpu->run_start = G_MININT64;
      cpu->loss = (guint) cpu_id < self->lost_per_cpu->len &&
                  g_array_index (self->lost_per_cpu, guint64, cpu_id) > 0;
    }

  return cpu;
}

/* A tid is at most PID_MAX_LIMIT (4M) on Linux, so a table indexed by tid
 * (grown to the largest seen) beats a hash table on the hot path. A
 * damaged or hostile file's larger ids go to a hash table instead of
 * growing the table without bound. */
#define MAX_TID (1 << 22)

/* A tid's slot once its thread exited: all that is kept of the thread is
 * its channel (for the next thread of that tid's generation, and the
 * channel's process), so the model holds the threads alive, not the
 * million that lived and exited (40 bytes each, 43 MB for the 1.08M
 * threads of 20M generated events of thread churn). */
#define DEAD_TID 0x80000000u

static inline gpointer
thread_slot_lookup (Instance *inst,
                    gint32    tid)
{
  if (tid < 0 || tid >= MAX_TID)
    return g_hash_table_lookup (inst->big_tids, GINT_TO_POINTER (tid));
  if ((guint) tid >= inst->threads->len)
    return NULL;
  return GUINT_TO_POINTER (g_array_index (inst->threads, guint32, tid));
}

static void
thread_slot_set (Instance *inst,
                 gint32    tid,
                 guint32   value)
{
  if (tid < 0 || tid >= MAX_TID)
    {
      g_hash_table_insert (inst->big_tids, GINT_TO_POINTER (tid), GUINT_TO_POINTER (value));
      return;
    }
  if ((guint) tid >= inst->threads->len)
    g_array_set_size (inst->threads, MIN (MAX ((guint) tid + 1, inst->threads->len * 2),
                                          MAX_TID));
  g_array_index (inst->threads, guint32, tid) = value;
}

static Thread *
thread_at (StrataKernelModel *self,
           guint              index)
{
  return &g_array_index (self->threads, Thread, index);
}

/* The thread @tid, or an exited thread as the model knew it when it
 * exited (read-only: its slot went to another), or NULL. */
static Thread *
lookup_thread (StrataKernelModel *self,
               Instance          *inst,
               gint32             tid)
{
  guint found = GPOINTER_TO_UINT (thread_slot_lookup (inst, tid));

  if (found == 0)
    return NULL;
  if (found & DEAD_TID)
    {
      const StrataChannel *ch = get_channel (self, found & ~DEAD_TID);

      memset (&self->exited, 0, sizeof self->exited);
      self->exited.channel = found & ~DEAD_TID;
      self->exited.tid = tid;
      self->exited.instance = ch->instance;
      self->exited.state = STRATA_TASK_STATE_DEAD;
      self->exited.woke_at = G_MININT64;
      self->exited.dead = TRUE;
      self->exited.cpu = -1;
      self->exited.since = ch->end;
      return &self->exited;
    }
  return thread_at (self, found - 1);
}

static guint32
get_process_channel (StrataKernelModel *self,
                     Instance          *inst,
                     guint16            instance,
                     gint32             tgid,
                     gint64             ts)
{
  gpointer found = g_hash_table_lookup (inst->processes, GINT_TO_POINTER (tgid));

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  else
    {
      guint32 ch = add_channel (self, STRATA_CHANNEL_PROCESS, instance, tgid,
                                STRATA_STRING_NONE, ts);

      get_channel (self, ch)->tgid = tgid;
      g_hash_table_insert (inst->processes, GINT_TO_POINTER (tgid),
                           GUINT_TO_POINTER (ch + 1));
      return ch;
    }
}

static guint
new_thread (StrataKernelModel *self,
            Instance          *inst,
            guint16            instance,
            gint32             tid,
            guint32            comm,
            gint64             ts)
{
  guint old = GPOINTER_TO_UINT (thread_slot_lookup (inst, tid));
  Thread t = { 0 };
  guint index;

  t.tid = tid;
  t.instance = instance;
  t.state = STRATA_TASK_STATE_UNKNOWN;
  t.cpu = -1;
  t.woke_at = G_MININT64;
  t.channel = add_channel (self, STRATA_CHANNEL_THREAD, instance, tid, comm, ts);

  if (old != 0)
    {
      guint32 prev = (old & DEAD_TID) ? old & ~DEAD_TID : thread_at (self, old - 1)->channel;

      get_channel (self, t.channel)->generation = get_channel (self, prev)->generation + 1;
    }

  if (self->free_threads->len > 0)
    {
      index = g_array_index (self->free_threads, guint32, self->free_threads->len - 1);
      g_array_set_size (self->free_threads, self->free_threads->len - 1);
      *thread_at (self, index) = t;
    }
  else
    {
      g_array_append_val (self->threads, t);
      index = self->threads->len - 1;
    }
  thread_slot_set (inst, tid, index + 1);

  return index;
}

/* The thread @tid as it is now; created on first sight. A dead thread seen
 * again without a fork is a reused tid whose fork was not recorded. */
static guint
get_thread (StrataKernelModel *self,
            Instance          *inst,
            guint16            instance,
            gint32             tid,
            guint32            comm,
            gint64             ts)
{
  guint found = GPOINTER_TO_UINT (thread_slot_lookup (inst, tid));
  guint index;

  if (found == 0 || (found & DEAD_TID) || thread_at (self, found - 1)->dead)
    return new_thread (self, inst, instance, tid, comm, ts);

  index = found - 1;

  if (comm != STRATA_STRING_NONE)
    {
      guint32 channel = thread_at (self, index)->channel;
      StrataChannel *ch = get_channel (self, channel);

      if (ch->name != comm)
        {
          ch->name = comm;
          note_change (self, channel);
        }
    }

  return index;
}

/* What a state carries besides itself: the CPU it runs on, or for a
 * woken thread who woke it and where. */
static inline gint32
thread_state_arg (const Thread *t)
{
  if (t->state == STRATA_TASK_STATE_RUNNING)
    return t->cpu;
  if (t->state == STRATA_TASK_STATE_WOKEN)
    return t->waker;
  return -1;
}

static inline guint32
thread_state_label (const Thread *t)
{
  return t->state == STRATA_TASK_STATE_WOKEN ? t->waker_cpu : STRATA_STRING_NONE;
}

/* Ends the current state of a thread at @ts, if it is known. */
static void
thread_close (StrataKernelModel *self,
              Thread            *t,
              gint64             ts,
              guint16            extra_flags)
{
  if (t->state == STRATA_TASK_STATE_UNKNOWN || t->dead)
    return;

  emit (self, t->since, MAX (ts, t->since), t->channel, STRATA_ACTIVITY_STATE, t->state,
        thread_state_label (t), thread_state_arg (t), t->since_flags | extra_flags);
}

static void
thread_set (Thread  *t,
            guint8   state,
            gint32   cpu,
            gint64   ts,
            guint16  flags)
{
  t->state = state;
  t->cpu = cpu;
  t->since = ts;
  t->since_flags = flags;
}

static void
thread_die (StrataKernelModel *self,
            Thread            *t,
            gint64             ts)
{
  emit (self, ts, ts, t->channel, STRATA_ACTIVITY_STATE, STRATA_TASK_STATE_DEAD,
        STRATA_STRING_NONE, -1, 0);
  t->state = STRATA_TASK_STATE_DEAD;
  t->dead = TRUE;
  get_channel (self, t->channel)->end = ts;
  note_change (self, t->channel);
  if (self->close_func != NULL)
    self->close_func (t->channel, ts, self->close_data);

  /* Its tid keeps only its channel; its slot goes to the next thread
   * (@t stays as it is until then). */
  if (t != &self->exited)
    {
      Instance *inst = get_instance (self, t->instance);
      guint32 index = (guint32) (t - thread_at (self, 0));

      if (GPOINTER_TO_UINT (thread_slot_lookup (inst, t->tid)) == index + 1)
        {
          thread_slot_set (inst, t->tid, DEAD_TID | t->channel);
          g_array_append_val (self->free_threads, index);
        }
    }
}

static gint
compare_thread_channels (gconstpointer a,
                         gconstpointer b,
                         gpointer      threads)
{
  const Thread *t = threads;
  guint32 x = t[*(const guint32 *) a].channel;
  guint32 y = t[*(const guint32 *) b].channel;

  return x < y ? -1 : x > y;
}

/* The threads not exited, in the order they were made (that of their
 * channels), as they were when no slot was reused: what is emitted for
 * them at the end comes in the same order. */
static GArray *
live_threads (StrataKernelModel *self)
{
  GArray *live = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint32 i = 0; i < self->threads->len; i++)
    if (!thread_at (self, i)->dead)
      g_array_append_val (live, i);
  g_qsort_with_data (live->data, (gint) live->len, sizeof (guint32), compare_thread_channels,
                     self->threads->data);
  return live;
}

static void
cpu_emit_segment (StrataKernelModel *self,
                  Cpu               *cpu,
                  gint64             start,
                  gint64             end,
                  gint32             tid,
                  guint32            comm,
                  guint16            flags)
{
  if (end < start)
    end = start;

  if (tid == 0)
    emit (self, start, end, cpu->channel, STRATA_ACTIVITY_IDLE, 0, comm, 0, flags);
  else
    emit (self, start, end, cpu->channel, STRATA_ACTIVITY_TASK, 0, comm, tid, flags);
}

static void
cpu_close_nested (StrataKernelModel *self,
                  Cpu               *cpu,
                  gint64             ts,
                  guint16            flags)
{
  while (cpu->depth > 0)
    {
      Nest *n = &cpu->nest[--cpu->depth];

      emit (self, n->start, MAX (ts, n->start), cpu->channel, n->kind, 0, n->label, n->arg,
            flags | ((cpu->depth + 1) << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT));
    }
}


/*
 * A switch whose prev is the task we believe runs on this CPU is the
 * ordinary case. Otherwise the switch that put prev here is not in the
 * trace: before the CPU's first switch, after lost events, or because the
 * kernel did not record it (tracepoints hit while RCU is not watching, as
 * on the way out of idle on some machines, are dropped). Then prev is
 * taken to have run here since the first of the uninterrupted run of
 * events in its context just before the switch — the CPU's own events
 * vouch for that much — and the time between the last event of the
 * previous task and that point is UNKNOWN. Only before the CPU's first
 * switch, with nothing lost and prev not seen anywhere else, does the
 * trace's start stand in for the missing switch.
 */
static void
handle_switch (StrataKernelModel *self,
               Instance          *inst,
               guint16            instance,
               Cpu               *cpu,
               const StrataEvent *ev)
{
  gint64 ts = ev->ts;
  gint32 prev = ev->u.sched_switch.prev_pid;
  gint32 next = ev->u.sched_switch.next_pid;
  guint32 prev_comm = ev->u.sched_switch.prev_comm;
  gboolean consistent = cpu->phase == CPU_PHASE_KNOWN && cpu->cur_tid == prev;
  gint64 evidence = cpu->run_pid == prev ? cpu->run_start : ts;
  gint64 start = ts;
  guint16 close_flags = STRATA_ACTIVITY_FLAG_LOST;

  cpu->switches++;
  g_array_index (self->switches, guint64, cpu->channel)++;

  if (consistent)
    {
      /* Named as the task was when switched in, even if it exec()ed since:
       * what is known at the start of a segment never changes later. */
      cpu_emit_segment (self, cpu, cpu->seg_start, ts, prev, cpu->cur_comm, cpu->seg_flags);
    }
  else
    {
      Thread *known = prev > 0 ? lookup_thread (self, inst, prev) : NULL;
      gboolean seen_elsewhere = known != NULL && !known->dead &&
                                known->state != STRATA_TASK_STATE_UNKNOWN;
      gint64 unknown_from;
      guint16 unknown_flags = STRATA_ACTIVITY_FLAG_LOST;

      switch (cpu->phase)
        {
        case CPU_PHASE_INITIAL:
          unknown_from = self->first_ts;
          if (!cpu->loss && !seen_elsewhere)
            {
              start = self->first_ts;
              close_flags = 0;
            }
          else
            start = evidence;
          if (!cpu->loss)
            unknown_flags = 0;
          break;

        case CPU_PHASE_KNOWN:
          {
            Thread *cur = cpu->cur_tid > 0 ? lookup_thread (self, inst, cpu->cur_tid) : NULL;

            unknown_from = cpu->cur_last;
            cpu_emit_segment (self, cpu, cpu->seg_start, unknown_from, cpu->cur_tid,
                              cpu->cur_comm, cpu->seg_flags | STRATA_ACTIVITY_FLAG_LOST);
            if (cur != NULL && cur->state == STRATA_TASK_STATE_RUNNING && cur->cpu == ev->cpu)
              {
                thread_close (self, cur, unknown_from, STRATA_ACTIVITY_FLAG_LOST);
                cur->state = STRATA_TASK_STATE_UNKNOWN;
              }
            start = MAX (evidence, unknown_from);
          }
          break;

        case CPU_PHASE_AFTER_LOSS:
          unknown_from = cpu->seg_start;
          start = MAX (evidence, unknown_from);
          break;

        default:
          g_assert_not_reached ();
        }

      if (start > unknown_from)
        emit (self, unknown_from, start, cpu->channel, STRATA_ACTIVITY_UNKNOWN, 0,
              STRATA_STRING_NONE, -1, unknown_flags);
      cpu_emit_segment (self, cpu, start, ts, prev, prev_comm,
                        STRATA_ACTIVITY_FLAG_START_UNSEEN);
    }

  cpu->phase = CPU_PHASE_KNOWN;
  cpu->seg_start = ts;
  cpu->seg_flags = 0;
  cpu->cur_tid = next;
  cpu->cur_last = ts;
  cpu->cur_comm = ev->u.sched_switch.next_comm;

  if (prev > 0)
    {
      Thread *t = thread_at (self, get_thread (self, inst, instance, prev, prev_comm, ts));
      StrataTaskState state = ev->u.sched_switch.prev_state;

      if (!consistent)
        {
          thread_close (self, t, start, close_flags);
          thread_set (t, STRATA_TASK_STATE_RUNNING, ev->cpu, start,
                      STRATA_ACTIVITY_FLAG_START_UNSEEN);
        }
      else if (t->state != STRATA_TASK_STATE_RUNNING || t->cpu != ev->cpu)
        {
          /* The CPU says it ran here, its own row disagrees: events were
           * lost. Its running time before this switch is not known. */
          thread_close (self, t, ts, STRATA_ACTIVITY_FLAG_LOST);
          t->state = STRATA_TASK_STATE_UNKNOWN;
        }

      thread_close (self, t, ts, 0);

      if (state == STRATA_TASK_STATE_DEAD)
        thread_die (self, t, ts);
      else if (state == STRATA_TASK_STATE_RUNNING)
        thread_set (t, STRATA_TASK_STATE_RUNNABLE, -1, ts, 0);
      else if ((state == STRATA_TASK_STATE_SLEEPING ||
                state == STRATA_TASK_STATE_UNINTERRUPTIBLE) &&
               t->woke_at != G_MININT64 && ts - t->woke_at <= EARLY_WAKING_NS)
        {
          /* Woken before it left the CPU (see EARLY_WAKING_NS): it goes
           * from running to woken, the waker the waking's. */
          thread_set (t, STRATA_TASK_STATE_WOKEN, -1, ts, t->woke_flags);
        }
      else
        thread_set (t, state, -1, ts, 0);
      t->woke_at = G_MININT64;
    }

  if (next > 0)
    {
      Thread *t = thread_at (self, get_thread (self, inst, instance, next,
                                               ev->u.sched_switch.next_comm, ts));

      if (t->state == STRATA_TASK_STATE_RUNNING)
        thread_close (self, t, ts, STRATA_ACTIVITY_FLAG_LOST);
      else
        thread_close (self, t, ts, 0);

      thread_set (t, STRATA_TASK_STATE_RUNNING, ev->cpu, ts, 0);
      t->woke_at = G_MININT64;
    }
}

/* The interrupt a wakeup ran in: what the event's flags say, else what
 * the handlers open on its CPU say. */
static guint16
waker_context (const Cpu         *cpu,
               const StrataEvent *ev)
{
  guint context = ev->u.wakeup.context;
  guint16 flags = 0;

  if (context == 0 && cpu->depth > 0)
    context = cpu->nest[cpu->depth - 1].kind == STRATA_ACTIVITY_IRQ
              ? STRATA_EVENT_CONTEXT_HARDIRQ : STRATA_EVENT_CONTEXT_SOFTIRQ;
  if (context & STRATA_EVENT_CONTEXT_HARDIRQ)
    flags |= STRATA_ACTIVITY_FLAG_WAKER_HARDIRQ;
  if (context & STRATA_EVENT_CONTEXT_SOFTIRQ)
    flags |= STRATA_ACTIVITY_FLAG_WAKER_SOFTIRQ;
  if (context & STRATA_EVENT_CONTEXT_NMI)
    flags |= STRATA_ACTIVITY_FLAG_WAKER_NMI;
  return flags;
}

static void
handle_wakeup (StrataKernelModel *self,
               Instance          *inst,
               guint16            instance,
               Cpu               *cpu,
               const StrataEvent *ev)
{
  Thread *t;

  if (ev->u.wakeup.pid <= 0)
    return;

  t = thread_at (self, get_thread (self, inst, instance, ev->u.wakeup.pid,
                                   ev->u.wakeup.comm, ev->ts));

  emit (self, ev->ts, ev->ts, t->channel, STRATA_ACTIVITY_WAKEUP, 0, ev->name, ev->pid, 0);

  switch (t->state)
    {
    case STRATA_TASK_STATE_RUNNING:
      /* A sched_waking is traced only for a thread that has set itself
       * sleeping: if it is still on its CPU, its switch-out may yet say
       * so (see EARLY_WAKING_NS). The last such waking counts: each one
       * ended a sleep the thread set out on, and only the last sleep can
       * be the switch-out's. */
      if (ev->type == STRATA_EVENT_SCHED_WAKING)
        {
          t->woke_at = ev->ts;
          t->woke_flags = waker_context (cpu, ev);
          t->waker = ev->pid;
          t->waker_cpu = get_channel (self, cpu->channel)->name;
        }
      break;

    case STRATA_TASK_STATE_RUNNABLE:
    case STRATA_TASK_STATE_PREEMPTED:
    case STRATA_TASK_STATE_WOKEN:
      /* Already runnable: sched_wakeup after sched_waking, or a spurious
       * wakeup. Nothing changes. */
      break;

    case STRATA_TASK_STATE_UNKNOWN:
    case STRATA_TASK_STATE_SLEEPING:
    case STRATA_TASK_STATE_UNINTERRUPTIBLE:
    case STRATA_TASK_STATE_STOPPED:
    case STRATA_TASK_STATE_PARKED:
      /* The first wakeup is the one that counts (sched_waking, where
       * the trace has it, in the waker's context). */
      thread_close (self, t, ev->ts, 0);
      thread_set (t, STRATA_TASK_STATE_WOKEN, -1, ev->ts, waker_context (cpu, ev));
      t->waker = ev->pid;
      t->waker_cpu = get_channel (self, cpu->channel)->name;
      break;

    case STRATA_TASK_STATE_DEAD:
    default:
      break;
    }
}

static guint32
comm_from_filename (StrataKernelModel *self,
                    guint32            filename)
{
  const char *path = strata_string_pool_get (self->strings, filename);
  const char *base = strrchr (path, '/');

  base = base ? base + 1 : path;

  /* The kernel keeps the first TASK_COMM_LEN - 1 bytes of the basename. */
  return strata_string_pool_intern_len (self->strings, base,
                                        MIN (strlen (base), TASK_COMM_LEN - 1));
}

/**
 * strata_kernel_model_intern_ahead:
 * @strings: the pool the model interns into
 * @cpus_named: a byte per CPU already done, kept by the caller across calls
 * @events: a batch, before the model is fed it
 *
 * Interns every string the model will intern when it is fed @events (the
 * CPUs' row names, the softirqs' names, the comm an exec gives), in the
 * order of the events. A string's id is the order it was first interned,
 * and the source interns its own strings in the thread that reads it: the
 * model, fed in another thread, interned its strings whenever it got there,
 * so the ids (and the index's bytes) followed the threads' timing. Called
 * by the reading thread after each batch, it leaves the model only
 * look-ups, and the ids depend only on the events and the batches.
 */
void
strata_kernel_model_intern_ahead (StrataStringPool  *strings,
                                  GByteArray        *cpus_named,
                                  const StrataEvent *events,
                                  gsize              n_events)
{
  for (gsize i = 0; i < n_events; i++)
    {
      const StrataEvent *ev = &events[i];

      if (ev->cpu >= 0 && ev->cpu < MAX_CPUS)
        {
          if ((guint) ev->cpu >= cpus_named->len)
            {
              guint old = cpus_named->len;

              g_byte_array_set_size (cpus_named, ev->cpu + 1);
              memset (cpus_named->data + old, 0, cpus_named->len - old);
            }
          if (!cpus_named->data[ev->cpu])
            {
              g_autofree char *name = g_strdup_printf ("CPU %d", ev->cpu);

              strata_string_pool_intern (strings, name);
              cpus_named->data[ev->cpu] = 1;
            }
        }

      if (ev->type == STRATA_EVENT_SOFTIRQ_ENTRY)
        strata_string_pool_intern (strings, strata_softirq_name (ev->u.softirq.vec));
      else if (ev->type == STRATA_EVENT_SCHED_PROCESS_EXEC && ev->u.exec.pid > 0)
        {
          const char *path = strata_string_pool_get (strings, ev->u.exec.filename);
          const char *base = strrchr (path, '/');

          base = base ? base + 1 : path;
          strata_string_pool_intern_len (strings, base, MIN (strlen (base), TASK_COMM_LEN - 1));
        }
    }
}

static void
note_tgid (StrataKernelModel *self,
           Instance          *inst,
           guint16            instance,
           gint32             tid,
           gint32             tgid,
           gint64             ts)
{
  Thread *t;
  StrataChannel *ch;
  guint32 process;

  if (tid <= 0 || tgid <= 0)
    return;

  t = lookup_thread (self, inst, tid);
  if (t == NULL)
    return;

  if (get_channel (self, t->channel)->tgid == tgid)
    return;

  /* Adding the process channel may move the channel array. */
  process = get_process_channel (self, inst, instance, tgid, ts);
  ch = get_channel (self, t->channel);
  ch->tgid = tgid;
  ch->parent = process;
  note_change (self, t->channel);
}

/* An IRQ's or a softirq's exit: the entry it closes emitted, with the
 * entries left open above it, which lost their exit. */
static void
handle_nest_exit (StrataKernelModel *self,
                  Cpu               *cpu,
                  const StrataEvent *ev)
{
  gint64 ts = ev->ts;
  guint8 kind = ev->type == STRATA_EVENT_IRQ_HANDLER_EXIT ? STRATA_ACTIVITY_IRQ
                                                          : STRATA_ACTIVITY_SOFTIRQ;
  gint32 arg = ev->type == STRATA_EVENT_IRQ_HANDLER_EXIT ? ev->u.irq.irq
                                                         : ev->u.softirq.vec;

  /* An exit without its entry began before the trace: its start is
   * not known, so it is not drawn. Entries left open above a matching
   * one lost their exit. */
  for (guint i = cpu->depth; i > 0; i--)
    {
      Nest *n = &cpu->nest[i - 1];

      if (n->kind == kind && n->arg == arg)
        {
          while (cpu->depth > i)
            {
              Nest *lost = &cpu->nest[--cpu->depth];

              emit (self, lost->start, ts, cpu->channel, lost->kind, 0, lost->label,
                    lost->arg, STRATA_ACTIVITY_FLAG_LOST |
                    ((cpu->depth + 1) << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT));
            }
          cpu->depth--;
          emit (self, n->start, ts, cpu->channel, kind, 0, n->label, arg,
                (cpu->depth + 1) << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT);
          break;
        }
    }
}

/* Events lost on @cpu: what was running is closed where it is still
 * vouched for, and the CPU's state is unknown until its next switch. */
static void
handle_lost (StrataKernelModel *self,
             Instance          *inst,
             Cpu               *cpu,
             const StrataEvent *ev)
{
  gint64 ts = ev->ts;
  Thread *t = NULL;

  if (cpu->phase == CPU_PHASE_KNOWN)
    {
      /* The current task is vouched for up to its last event. */
      ts = cpu->cur_last;
      cpu_emit_segment (self, cpu, cpu->seg_start, ts, cpu->cur_tid, cpu->cur_comm,
                        cpu->seg_flags | STRATA_ACTIVITY_FLAG_LOST);
      if (cpu->cur_tid > 0)
        t = lookup_thread (self, inst, cpu->cur_tid);
    }
  else if (cpu->phase == CPU_PHASE_INITIAL)
    {
      /* Lost before anything was switched here (an overwritten
       * buffer): what ran before the first switch is then only known
       * from this CPU's first event on. */
      cpu->loss = TRUE;
      cpu_close_nested (self, cpu, ts, STRATA_ACTIVITY_FLAG_LOST);
      cpu->run_pid = -1;
      cpu->run_start = G_MININT64;
      return;
    }
  else if (cpu->seg_start < ts)
    emit (self, cpu->seg_start, ts, cpu->channel, STRATA_ACTIVITY_UNKNOWN, 0,
          STRATA_STRING_NONE, -1, STRATA_ACTIVITY_FLAG_LOST);

  if (t != NULL && t->state == STRATA_TASK_STATE_RUNNING && t->cpu == ev->cpu)
    {
      thread_close (self, t, ts, STRATA_ACTIVITY_FLAG_LOST);
      t->state = STRATA_TASK_STATE_UNKNOWN;
    }

  cpu_close_nested (self, cpu, ts, STRATA_ACTIVITY_FLAG_LOST);
  cpu->run_pid = -1;
  cpu->run_start = G_MININT64;
  cpu->phase = CPU_PHASE_AFTER_LOSS;
  cpu->seg_start = ts;
  cpu->cur_tid = -1;
  cpu->loss = TRUE;
}

static void
handle_event (StrataKernelModel *self,
              const StrataEvent *ev)
{
  Instance *inst = get_instance (self, ev->instance);
  Cpu *cpu;
  gint64 ts = ev->ts;

  /* A sample belongs to its thread's row and says nothing of what the
   * CPU's state machine tracks. */
  if (ev->type == STRATA_EVENT_SAMPLE)
    {
      if (ev->pid > 0)
        {
          Thread *t = thread_at (self, get_thread (self, inst, ev->instance, ev->pid,
                                                   ev->u.sample.comm, ts));

          emit (self, ts, ts, t->channel, STRATA_ACTIVITY_SAMPLE, (guint8) ev->u.sample.flags, ev->name,
                ev->u.sample.callchain == G_MAXUINT32 ? -1 : (gint32) ev->u.sample.callchain, 0);
        }
      return;
    }

  cpu = get_cpu (self, inst, ev->instance, ev->cpu, ev->ts);
  if (cpu == NULL)
    return;

  if (ev->type != STRATA_EVENT_LOST)
    {
      if (ts < cpu->first_ts)
        cpu->first_ts = ts;
      if (ev->pid != cpu->run_pid || cpu->run_start == G_MININT64)
        {
          cpu->run_pid = ev->pid;
          cpu->run_start = ts;
        }
      if (ev->pid == cpu->cur_tid)
        cpu->cur_last = ts;
    }

  switch ((StrataEventType) ev->type)
    {
    case STRATA_EVENT_SCHED_SWITCH:
      handle_switch (self, inst, ev->instance, cpu, ev);
      break;

    case STRATA_EVENT_SCHED_WAKING:
    case STRATA_EVENT_SCHED_WAKEUP:
    case STRATA_EVENT_SCHED_WAKEUP_NEW:
      handle_wakeup (self, inst, ev->instance, cpu, ev);
      break;

    case STRATA_EVENT_SCHED_PROCESS_FORK:
      if (ev->u.fork.child_pid > 0)
        {
          Thread *t = thread_at (self, new_thread (self, inst, ev->instance,
                                                   ev->u.fork.child_pid,
                                                   ev->u.fork.child_comm, ts));

          emit (self, ts, ts, t->channel, STRATA_ACTIVITY_EVENT, 0, ev->name,
                ev->u.fork.parent_pid, 0);
        }
      break;

    case STRATA_EVENT_SCHED_PROCESS_EXEC:
      if (ev->u.exec.pid > 0)
        {
          guint32 comm = comm_from_filename (self, ev->u.exec.filename);
          Thread *t = thread_at (self, get_thread (self, inst, ev->instance,
                                                   ev->u.exec.pid, comm, ts));

          emit (self, ts, ts, t->channel, STRATA_ACTIVITY_EVENT, 0, ev->name,
                ev->u.exec.old_pid, 0);
        }
      break;

    case STRATA_EVENT_SCHED_PROCESS_EXIT:
      if (ev->u.exit.pid > 0)
        {
          Thread *t = thread_at (self, get_thread (self, inst, ev->instance,
                                                   ev->u.exit.pid, ev->u.exit.comm, ts));

          emit (self, ts, ts, t->channel, STRATA_ACTIVITY_EVENT, 0, ev->name,
                ev->u.exit.pid, 0);
        }
      break;

    case STRATA_EVENT_IRQ_HANDLER_ENTRY:
    case STRATA_EVENT_SOFTIRQ_ENTRY:
      if (cpu->depth < MAX_NEST)
        {
          Nest *n = &cpu->nest[cpu->depth++];

          n->start = ts;
          if (ev->type == STRATA_EVENT_IRQ_HANDLER_ENTRY)
            {
              n->kind = STRATA_ACTIVITY_IRQ;
              n->arg = ev->u.irq.irq;
              n->label = ev->u.irq.name;
            }
          else
            {
              n->kind = STRATA_ACTIVITY_SOFTIRQ;
              n->arg = ev->u.softirq.vec;
              n->label = strata_string_pool_intern (self->strings,
                                                    strata_softirq_name (ev->u.softirq.vec));
            }
        }
      break;

    case STRATA_EVENT_IRQ_HANDLER_EXIT:
    case STRATA_EVENT_SOFTIRQ_EXIT:
      handle_nest_exit (self, cpu, ev);
      break;

    case STRATA_EVENT_LOST:
      handle_lost (self, inst, cpu, ev);
      break;

    case STRATA_EVENT_OTHER:
    default:
      emit (self, ts, ts, cpu->channel, STRATA_ACTIVITY_EVENT, 0, ev->name, ev->pid, 0);
      break;
    }
}

/**
 * strata_kernel_model_feed:
 * @self: a model
 * @events: events in time order
 * @n_events: how many
 *
 * Advances the state machines. Activities that complete are handed to the
 * sink at once.
 */
void
strata_kernel_model_feed (StrataKernelModel *self,
                          const StrataEvent *events,
                          gsize              n_events)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (!self->finished);

  for (gsize i = 0; i < n_events; i++)
    {
      const StrataEvent *ev = &events[i];

      if (!self->started)
        {
          self->first_ts = ev->ts;
          self->started = TRUE;
        }

      /* Sources yield time order; a step back is clamped so intervals never
       * run backwards. */
      if (ev->ts < self->last_ts)
        {
          StrataEvent copy = *ev;

          copy.ts = self->last_ts;
          handle_event (self, &copy);
        }
      else
        {
          self->last_ts = ev->ts;
          handle_event (self, ev);
        }

      if (ev->tgid > 0 && ev->pid > 0)
        note_tgid (self, get_instance (self, ev->instance), ev->instance,
                   ev->pid, ev->tgid, ev->ts);
    }
}

/**
 * strata_kernel_model_finish:
 * @self: a model
 * @end_ts: the end of the trace (its last event)
 *
 * Closes every open interval at @end_ts, flagged END_UNSEEN, and names the
 * process channels after their main threads.
 */
void
strata_kernel_model_finish (StrataKernelModel *self,
                            gint64             end_ts)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (!self->finished);

  self->finished = TRUE;

  if (!self->started)
    return;

  end_ts = MAX (end_ts, self->last_ts);

  for (guint i = 0; i < self->instances->len; i++)
    {
      Instance *inst = g_ptr_array_index (self->instances, i);

      for (guint c = 0; c < inst->cpus->len; c++)
        {
          Cpu *cpu = &g_array_index (inst->cpus, Cpu, c);

          if (!cpu->present)
            continue;  /* a CPU number that never had an event */

          cpu_close_nested (self, cpu, end_ts, STRATA_ACTIVITY_FLAG_END_UNSEEN);

          switch (cpu->phase)
            {
            case CPU_PHASE_KNOWN:
              cpu_emit_segment (self, cpu, cpu->seg_start, end_ts, cpu->cur_tid,
                                cpu->cur_comm,
                                cpu->seg_flags | STRATA_ACTIVITY_FLAG_END_UNSEEN);
              break;

            case CPU_PHASE_INITIAL:
              emit (self, self->first_ts, end_ts, cpu->channel, STRATA_ACTIVITY_UNKNOWN, 0,
                    STRATA_STRING_NONE, -1, STRATA_ACTIVITY_FLAG_END_UNSEEN);
              break;

            case CPU_PHASE_AFTER_LOSS:
              emit (self, cpu->seg_start, end_ts, cpu->channel, STRATA_ACTIVITY_UNKNOWN, 0,
                    STRATA_STRING_NONE, -1,
                    STRATA_ACTIVITY_FLAG_LOST | STRATA_ACTIVITY_FLAG_END_UNSEEN);
              break;

            default:
              g_assert_not_reached ();
            }
        }
    }

  {
    g_autoptr(GArray) live = live_threads (self);

    for (guint i = 0; i < live->len; i++)
      thread_close (self, thread_at (self, g_array_index (live, guint32, i)), end_ts,
                    STRATA_ACTIVITY_FLAG_END_UNSEEN);
  }

  /* A process is named after its main thread (tid == tgid) when known. */
  for (guint i = 0; i < self->channels->len; i++)
    {
      StrataChannel *ch = get_channel (self, i);

      if (ch->kind == STRATA_CHANNEL_THREAD && ch->parent != STRATA_CHANNEL_NONE)
        {
          StrataChannel *proc = get_channel (self, ch->parent);

          if (ch->id == proc->id || proc->name == STRATA_STRING_NONE)
            proc->name = ch->name;
          proc->begin = MIN (proc->begin, ch->begin);
        }
      /* Read once: what was read goes (a million threads' channels). */
      if ((i + 1) % (1u << 16) == 0)
        strata_spilled_array_let_go (self->channels, i);
    }
}

/**
 * strata_kernel_model_get_channels:
 * @n_channels: (out): the number of channels
 *
 * Returns: (transfer none): the channels; an activity's channel indexes it
 */
const StrataChannel *
strata_kernel_model_get_channels (StrataKernelModel *self,
                                  guint             *n_channels)
{
  g_return_val_if_fail (self != NULL, NULL);

  *n_channels = self->channels->len;
  return (const StrataChannel *) (gpointer) self->channels->data;
}

/**
 * strata_kernel_model_track_changes:
 *
 * From now on the model notes which of its channels changed after they
 * were made (a thread named at exec, given its process, ended), for
 * strata_kernel_model_get_changes(): what follows a growing model then
 * reads the new channels and the changed ones, not all of them. What
 * strata_kernel_model_finish() changes (the processes' names) is not
 * noted: a finished model's channels are read afresh.
 */
void
strata_kernel_model_track_changes (StrataKernelModel *self)
{
  g_return_if_fail (self != NULL);

  if (self->changes == NULL)
    self->changes = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->changes_below = self->channels->len;
}

/**
 * strata_kernel_model_get_changes:
 * @n_changes: (out): how many ids
 * @n_before: (out) (optional): the channels there were when the changes
 *   were last forgotten (or tracking began): the ones since are new
 *
 * Returns: (transfer none) (array length=n_changes): the ids of the
 *   channels below @n_before that changed since, in the order they
 *   changed (an id may repeat); valid until the model is fed or told to
 *   forget them. NULL and none when changes are not tracked.
 */
const guint32 *
strata_kernel_model_get_changes (StrataKernelModel *self,
                                 guint             *n_changes,
                                 guint             *n_before)
{
  g_return_val_if_fail (self != NULL && n_changes != NULL, NULL);

  if (n_before != NULL)
    *n_before = self->changes != NULL ? self->changes_below : 0;
  if (self->changes == NULL)
    {
      *n_changes = 0;
      return NULL;
    }
  *n_changes = self->changes->len;
  return (const guint32 *)(gpointer) self->changes->data;
}

/* What strata_kernel_model_get_changes() said has been taken: the
 * channels there are now are the ones the next changes are noted for. */
void
strata_kernel_model_forget_changes (StrataKernelModel *self)
{
  g_return_if_fail (self != NULL);

  if (self->changes == NULL)
    return;
  /* A burst of exits (thousands of threads at once) leaves no block
   * behind that size. */
  if (self->changes->len > 4096)
    {
      g_array_unref (self->changes);
      self->changes = g_array_new (FALSE, FALSE, sizeof (guint32));
    }
  else
    g_array_set_size (self->changes, 0);
  self->changes_below = self->channels->len;
}

/**
 * strata_kernel_model_steal_channels:
 * @switches: (out) (transfer full): the context switches per channel
 *   (guint64), up to the last CPU channel: a channel past the array has
 *   none
 *
 * Once the model is finished, its channels (StrataChannel) and their
 * context switches, given rather than copied: a copy of them was the
 * pass's peak on a trace of a million threads (52 MB twice). The model
 * has none after.
 *
 * Returns: (transfer full): the channels, in their spill file
 */
StrataSpilledArray *
strata_kernel_model_steal_channels (StrataKernelModel  *self,
                                    GArray            **switches)
{
  StrataSpilledArray *channels;

  g_return_val_if_fail (self != NULL && self->finished, NULL);

  channels = g_steal_pointer (&self->channels);
  *switches = g_steal_pointer (&self->switches);
  self->channels = strata_spilled_array_new (sizeof (StrataChannel));
  self->switches = g_array_new (FALSE, TRUE, sizeof (guint64));
  return channels;
}

guint64
strata_kernel_model_get_context_switches (StrataKernelModel *self,
                                          guint              channel)
{
  g_return_val_if_fail (self != NULL, 0);

  if (channel >= self->switches->len)
    return 0;

  return g_array_index (self->switches, guint64, channel);
}

/**
 * strata_kernel_model_set_layout:
 * @n_instances: the buffer instances the source declares
 * @n_cpus: the CPUs it declares
 *
 * Tells the model which CPUs to expect: until every one of them has had a
 * switch, what ran on the others can still be inferred back to the
 * trace's start, so the horizon cannot move.
 */
void
strata_kernel_model_set_layout (StrataKernelModel *self,
                                guint              n_instances,
                                guint              n_cpus)
{
  g_return_if_fail (self != NULL);

  self->n_instances = n_instances;
  self->n_cpus = MIN (n_cpus, MAX_CPUS);
}

static gint64
cpu_horizon (StrataKernelModel *self,
             const Cpu         *cpu)
{
  if (!cpu->present)
    return self->first_ts;

  switch (cpu->phase)
    {
    case CPU_PHASE_INITIAL:
      /* The first switch may credit its prev task from the trace's start. */
      return self->first_ts;
    case CPU_PHASE_KNOWN:
      /* A missing switch would cut the current task back to its last event. */
      return cpu->cur_last;
    case CPU_PHASE_AFTER_LOSS:
      return cpu->seg_start;
    default:
      g_assert_not_reached ();
    }
}

/**
 * strata_kernel_model_get_horizon:
 *
 * The model's output is final before the horizon: no event still to come
 * changes an activity, or the part of an open one, that lies before it.
 * (Later events can cut a CPU's current task back to its last event, or
 * credit a CPU's first task from the trace's start.) A zoom tree stores a
 * chunk as finished only once the horizon has passed its end.
 *
 * Returns: the horizon, in ns; before any event, %G_MININT64
 */
gint64
strata_kernel_model_get_horizon (StrataKernelModel *self)
{
  gint64 horizon;

  g_return_val_if_fail (self != NULL, G_MININT64);

  if (!self->started)
    return G_MININT64;
  if (self->finished)
    return G_MAXINT64;
  if (self->n_cpus == 0 || self->n_instances == 0 || self->instances->len < self->n_instances)
    return self->first_ts;

  horizon = self->last_ts;

  for (guint i = 0; i < self->instances->len; i++)
    {
      Instance *inst = g_ptr_array_index (self->instances, i);

      if (inst->cpus->len < self->n_cpus)
        return self->first_ts;

      for (guint c = 0; c < inst->cpus->len; c++)
        horizon = MIN (horizon, cpu_horizon (self, &g_array_index (inst->cpus, Cpu, c)));
    }

  return horizon;
}

/**
 * strata_kernel_model_foreach_open:
 * @func: called with each open activity, as a piece from its start to the
 *   latest event, flagged CONTINUES_AFTER
 *
 * The activities still going on: what runs on each CPU and is nested in
 * it, and each thread's current state. With the completed activities,
 * they give everything known before the horizon.
 */
void
strata_kernel_model_foreach_open (StrataKernelModel  *self,
                                  StrataActivityFunc  func,
                                  gpointer            user_data)
{
  g_autoptr(GArray) live = NULL;
  StrataActivityFunc saved_sink;
  gpointer saved_data;
  gint64 now;

  g_return_if_fail (self != NULL);
  g_return_if_fail (func != NULL);

  if (!self->started || self->finished)
    return;

  now = self->last_ts;
  saved_sink = self->sink;
  saved_data = self->sink_data;
  self->sink = func;
  self->sink_data = user_data;

  for (guint i = 0; i < self->instances->len; i++)
    {
      Instance *inst = g_ptr_array_index (self->instances, i);

      for (guint c = 0; c < inst->cpus->len; c++)
        {
          Cpu *cpu = &g_array_index (inst->cpus, Cpu, c);

          if (!cpu->present)
            continue;

          if (cpu->phase == CPU_PHASE_KNOWN)
            cpu_emit_segment (self, cpu, cpu->seg_start, now, cpu->cur_tid, cpu->cur_comm,
                              cpu->seg_flags | STRATA_ACTIVITY_FLAG_CONTINUES_AFTER);
          else if (cpu->phase == CPU_PHASE_AFTER_LOSS)
            emit (self, cpu->seg_start, MAX (now, cpu->seg_start), cpu->channel,
                  STRATA_ACTIVITY_UNKNOWN, 0, STRATA_STRING_NONE, -1,
                  STRATA_ACTIVITY_FLAG_LOST | STRATA_ACTIVITY_FLAG_CONTINUES_AFTER);

          for (guint d = 0; d < cpu->depth; d++)
            {
              const Nest *n = &cpu->nest[d];

              emit (self, n->start, MAX (now, n->start), cpu->channel, n->kind, 0, n->label,
                    n->arg, STRATA_ACTIVITY_FLAG_CONTINUES_AFTER |
                    ((d + 1) << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT));
            }
        }
    }

  live = live_threads (self);
  for (guint i = 0; i < live->len; i++)
    {
      const Thread *t = thread_at (self, g_array_index (live, guint32, i));

      if (t->state != STRATA_TASK_STATE_UNKNOWN && !t->dead)
        emit (self, t->since, MAX (now, t->since), t->channel, STRATA_ACTIVITY_STATE, t->state,
              thread_state_label (t), thread_state_arg (t),
              t->since_flags | STRATA_ACTIVITY_FLAG_CONTINUES_AFTER);
    }

  self->sink = saved_sink;
  self->sink_data = saved_data;
}
