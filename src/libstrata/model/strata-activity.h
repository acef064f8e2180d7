/* strata-activity.h
 *
 * The kernel model's output: channels (a row per CPU, per process, per
 * thread) and activities on them (intervals and instants). Both are plain
 * structs kept in arrays — millions of them — with strings as pool ids.
 * These are the "activities" of the zoom-tree seed: the raw computing
 * activity that the buffer former and the aggregators consume.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-event.h"

G_BEGIN_DECLS

#define STRATA_CHANNEL_NONE G_MAXUINT32

typedef enum
{
  STRATA_CHANNEL_CPU,
  STRATA_CHANNEL_PROCESS,
  STRATA_CHANNEL_THREAD,
} StrataChannelKind;

typedef struct
{
  guint8  kind;        /* StrataChannelKind */
  guint8  reserved;
  guint16 instance;    /* the ftrace buffer instance this row belongs to */
  gint32  id;          /* CPU number, pid or tid */
  guint32 name;        /* pool id: "CPU 0", a process or thread comm */
  guint32 parent;      /* a thread's process channel, or STRATA_CHANNEL_NONE */
  guint32 generation;  /* 0, then 1, 2 ... when a tid is reused */
  gint32  tgid;        /* a thread's process id, or -1 if unknown */
  gint64  begin;       /* first time the channel is known to exist */
  gint64  end;         /* when it died, or G_MAXINT64 */
} StrataChannel;

typedef enum
{
  STRATA_ACTIVITY_TASK,      /* CPU row: a task ran; arg = tid, label = comm */
  STRATA_ACTIVITY_IDLE,      /* CPU row: the idle task ran */
  STRATA_ACTIVITY_IRQ,       /* CPU row: a hard IRQ handler; arg = irq, label = name */
  STRATA_ACTIVITY_SOFTIRQ,   /* CPU row: a softirq; arg = vector, label = its name */
  STRATA_ACTIVITY_UNKNOWN,   /* CPU row: what ran is not in the trace */
  STRATA_ACTIVITY_STATE,     /* thread row: a scheduling state; arg = CPU when running;
                              * when WOKEN, arg = the waker's tid and label = the name
                              * of the waking CPU's row (see strata-wakeup.h) */
  STRATA_ACTIVITY_WAKEUP,    /* instant on the woken thread; arg = the waker's tid */
  STRATA_ACTIVITY_EVENT,     /* instant: any other event; label = its name, arg = pid */
  STRATA_ACTIVITY_SAMPLE,    /* instant on a thread row: a profiler's sample; label = the
                              * event's name, arg = the source's call chain id or -1;
                              * state = StrataSampleFlags (a tracepoint's call chain) */
  STRATA_N_ACTIVITY_KINDS
} StrataActivityKind;

typedef enum
{
  /* The start is not seen in the trace: the activity was already going on
   * when the trace (or this CPU's part of it) began. */
  STRATA_ACTIVITY_FLAG_START_UNSEEN = 1 << 0,
  /* Still going on when the trace ended. */
  STRATA_ACTIVITY_FLAG_END_UNSEEN   = 1 << 1,
  /* Cut short by lost events: what followed is not known. */
  STRATA_ACTIVITY_FLAG_LOST         = 1 << 2,
  /* Clipped to a chunk or buffer: the activity goes on before its start or
   * after its end. */
  STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE = 1 << 3,
  STRATA_ACTIVITY_FLAG_CONTINUES_AFTER  = 1 << 4,
  /* A WOKEN state's wakeup ran in an interrupt (its waker is then the
   * thread the interrupt came upon, not the cause). */
  STRATA_ACTIVITY_FLAG_WAKER_HARDIRQ    = 1 << 5,
  STRATA_ACTIVITY_FLAG_WAKER_SOFTIRQ    = 1 << 6,
  STRATA_ACTIVITY_FLAG_WAKER_NMI        = 1 << 7,
  /* Nesting depth on a CPU row (IRQ inside a softirq inside a task ...). */
  STRATA_ACTIVITY_FLAG_DEPTH_SHIFT  = 8,
  STRATA_ACTIVITY_FLAG_DEPTH_MASK   = 0xf << 8,
} StrataActivityFlags;

typedef struct
{
  gint64  start;
  gint64  end;      /* == start for an instant */
  guint32 channel;
  guint32 label;    /* pool id */
  gint32  arg;      /* see StrataActivityKind */
  guint8  kind;     /* StrataActivityKind */
  guint8  state;    /* StrataTaskState, for STRATA_ACTIVITY_STATE */
  guint16 flags;    /* StrataActivityFlags */
} StrataActivity;

G_STATIC_ASSERT (sizeof (StrataActivity) == 32);

static inline gboolean
strata_activity_is_instant (const StrataActivity *a)
{
  return a->kind == STRATA_ACTIVITY_WAKEUP ||
         a->kind == STRATA_ACTIVITY_EVENT ||
         a->kind == STRATA_ACTIVITY_SAMPLE ||
         (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_DEAD);
}

static inline guint
strata_activity_get_depth (const StrataActivity *a)
{
  return (a->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK) >> STRATA_ACTIVITY_FLAG_DEPTH_SHIFT;
}

#define STRATA_ACTIVITY_FLAGS_WAKER_CONTEXT \
  (STRATA_ACTIVITY_FLAG_WAKER_HARDIRQ | STRATA_ACTIVITY_FLAG_WAKER_SOFTIRQ | \
   STRATA_ACTIVITY_FLAG_WAKER_NMI)

/* The flags that describe an activity's start, and those that describe its
 * end: clipping drops the side it cuts off. */
#define STRATA_ACTIVITY_FLAGS_START_SIDE \
  (STRATA_ACTIVITY_FLAG_START_UNSEEN | STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE)
#define STRATA_ACTIVITY_FLAGS_END_SIDE \
  (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST | STRATA_ACTIVITY_FLAG_CONTINUES_AFTER)

/* Whether @a overlaps [@t0, @t1): an interval that starts before @t1 and
 * ends after @t0, or an instant (or an interval of no length) inside it. */
static inline gboolean
strata_activity_overlaps (const StrataActivity *a,
                          gint64                t0,
                          gint64                t1)
{
  if (a->start == a->end || strata_activity_is_instant (a))
    return a->start >= t0 && a->start < t1;
  return a->start < t1 && a->end > t0;
}

/* Cuts @a to [@t0, @t1). A clipped piece says nothing of the start or the
 * end it cut off, so a piece taken while the activity was still open is
 * the same as one cut from the completed activity. */
static inline void
strata_activity_clip (StrataActivity *a,
                      gint64          t0,
                      gint64          t1)
{
  if (a->start < t0)
    {
      a->start = t0;
      a->flags = (a->flags & ~STRATA_ACTIVITY_FLAG_START_UNSEEN) | STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE;
    }
  if (a->end > t1)
    {
      a->end = t1;
      a->flags = (a->flags & ~(STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST)) |
                 STRATA_ACTIVITY_FLAG_CONTINUES_AFTER;
    }
}

/* Called for every activity as soon as it is complete (so in the order of
 * their ends, not their starts). */
typedef void (*StrataActivityFunc) (const StrataActivity *activity,
                                    gpointer              user_data);

const char *strata_activity_kind_to_string (StrataActivityKind kind);
const char *strata_channel_kind_to_string  (StrataChannelKind  kind);

G_END_DECLS
