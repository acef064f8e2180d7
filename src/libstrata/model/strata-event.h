/* strata-event.h
 *
 * A decoded kernel event, as input plugins yield it: the handful of
 * scheduler and interrupt tracepoints the kernel model understands, decoded
 * into plain fields, and every other event kept by name. Plugins fill an
 * array of these in time order; strings are ids in the source's pool.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  STRATA_EVENT_OTHER,
  STRATA_EVENT_SCHED_SWITCH,
  STRATA_EVENT_SCHED_WAKING,
  STRATA_EVENT_SCHED_WAKEUP,
  STRATA_EVENT_SCHED_WAKEUP_NEW,
  STRATA_EVENT_SCHED_PROCESS_FORK,
  STRATA_EVENT_SCHED_PROCESS_EXEC,
  STRATA_EVENT_SCHED_PROCESS_EXIT,
  STRATA_EVENT_IRQ_HANDLER_ENTRY,
  STRATA_EVENT_IRQ_HANDLER_EXIT,
  STRATA_EVENT_SOFTIRQ_ENTRY,
  STRATA_EVENT_SOFTIRQ_EXIT,
  STRATA_EVENT_LOST,             /* the source says events were dropped here */
  STRATA_EVENT_SAMPLE,           /* a profiler's sample (perf cpu-clock, cycles ...) */
  STRATA_N_EVENT_TYPES
} StrataEventType;

/* The state a task was left in when it was switched out, normalised from
 * the kernel's prev_state bits (or the letters of the text rendering). */
typedef enum
{
  STRATA_TASK_STATE_UNKNOWN,
  STRATA_TASK_STATE_RUNNING,          /* on a CPU */
  STRATA_TASK_STATE_RUNNABLE,         /* "R": switched out but still runnable */
  STRATA_TASK_STATE_PREEMPTED,        /* "R+": preempted */
  STRATA_TASK_STATE_WOKEN,            /* runnable after a wakeup, waiting for a CPU */
  STRATA_TASK_STATE_SLEEPING,         /* "S" (and "I", an idle kernel thread) */
  STRATA_TASK_STATE_UNINTERRUPTIBLE,  /* "D" */
  STRATA_TASK_STATE_STOPPED,          /* "T", "t" */
  STRATA_TASK_STATE_DEAD,             /* "X", "Z" */
  STRATA_TASK_STATE_PARKED,           /* "P" */
  STRATA_N_TASK_STATES
} StrataTaskState;

/* What an event ran in besides its thread, from the trace's own record
 * of it (the irq-info flags of ftrace and of perf's tracepoints): a
 * wakeup in an interrupt is the interrupt's doing, not the thread's that
 * it interrupted. 0 is a task's context, or not known. */
typedef enum
{
  STRATA_EVENT_CONTEXT_HARDIRQ = 1 << 0,
  STRATA_EVENT_CONTEXT_SOFTIRQ = 1 << 1,
  STRATA_EVENT_CONTEXT_NMI     = 1 << 2,
} StrataEventContext;

typedef enum
{
  /* The call chain a tracepoint was recorded with (perf record -g -e
   * sched:sched_switch), not a profiler's sample of the CPU. */
  STRATA_SAMPLE_TRACEPOINT = 1 << 0,
} StrataSampleFlags;

typedef struct
{
  gint64   ts;             /* nanoseconds, in the trace's clock */
  guint64  source_offset;  /* where the event is in the source file */
  guint32  type;           /* StrataEventType */
  guint32  name;           /* event name ("sched_switch"), pool id */
  gint32   cpu;
  gint32   pid;            /* common_pid: the thread the event ran in */
  gint32   tgid;           /* its process, or -1 when the source does not say */
  guint16  instance;       /* ftrace buffer instance (0 = top level) */
  guint16  reserved;
  union {
    struct {
      gint32  prev_pid;
      gint32  next_pid;
      gint32  prev_prio;
      gint32  next_prio;
      guint32 prev_comm;
      guint32 next_comm;
      guint32 prev_state;  /* StrataTaskState */
    } sched_switch;
    struct {
      gint32  pid;
      gint32  prio;
      gint32  target_cpu;
      guint32 comm;
      guint32 context;     /* StrataEventContext: the interrupt it ran in */
    } wakeup;              /* sched_waking, sched_wakeup, sched_wakeup_new */
    struct {
      gint32  parent_pid;
      gint32  child_pid;
      guint32 parent_comm;
      guint32 child_comm;
    } fork;
    struct {
      gint32  pid;
      gint32  old_pid;
      guint32 filename;
    } exec;
    struct {
      gint32  pid;
      gint32  prio;
      guint32 comm;
    } exit;
    struct {
      gint32  irq;
      gint32  ret;
      guint32 name;
    } irq;                 /* irq_handler_entry / irq_handler_exit */
    struct {
      gint32  vec;
    } softirq;
    struct {
      guint64 count;       /* events dropped before this point on this CPU */
    } lost;
    struct {
      guint64 ip;
      guint64 period;
      guint32 callchain;   /* the source's call chain id, or G_MAXUINT32 */
      guint32 comm;        /* the thread's name when known, or STRATA_STRING_NONE */
      guint32 flags;       /* StrataSampleFlags */
    } sample;              /* on the thread @pid, whatever ran on the CPU */
  } u;
} StrataEvent;

const char      *strata_event_type_to_string     (StrataEventType  type);
StrataEventType  strata_event_type_from_name     (const char      *name);
const char      *strata_task_state_to_string     (StrataTaskState  state);
char             strata_task_state_to_letter     (StrataTaskState  state);
StrataTaskState  strata_task_state_from_letters  (const char      *letters,
                                                  gssize           len);
const char      *strata_softirq_name             (gint             vec);
guint            strata_event_context_from_trace_flags (guint      flags);
guint            strata_event_context_from_irq_info    (char       letter);

G_END_DECLS
