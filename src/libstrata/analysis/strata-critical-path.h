/* strata-critical-path.h
 *
 * The critical path of a thread over a time range, as Trace Compass
 * defines it: walking back from the range's end, while the thread runs
 * (or waits for a CPU) it is on the path; where it was blocked, the path
 * follows the thread that woke it, back to where the block began, and so
 * on recursively. A wait that a thread did not end (a timer, a device:
 * an interrupt woke it; or the trace shows no wakeup) stays on the
 * waiting thread. What is left is a sequence of (thread, state,
 * interval) that covers the range exactly, with no gap and no overlap.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-trace.h"

G_BEGIN_DECLS

/* Why a blocked segment is on the path (the waiting thread's own). */
typedef enum
{
  STRATA_PATH_WAIT_NONE,        /* not a wait: running or runnable */
  STRATA_PATH_WAIT_UNENDED,     /* still blocked where the range (or the waker's part) ends */
  STRATA_PATH_WAIT_INTERRUPT,   /* an interrupt woke it (timer, device) */
  STRATA_PATH_WAIT_UNKNOWN,     /* the trace shows no wakeup, or not what the waker did */
} StrataPathWait;

typedef struct
{
  gint64  start;
  gint64  end;
  guint32 channel;    /* a thread's row; STRATA_CHANNEL_NONE for none (the thread
                       * asked for is not in the trace there) */
  gint32  tid;
  guint8  state;      /* StrataTaskState; UNKNOWN where the trace does not say */
  guint8  wait;       /* StrataPathWait */
  guint16 depth;      /* how many wakeups back from the thread asked for */
  gint32  cpu;        /* RUNNING: the CPU; a wait ended by an interrupt: its CPU */
  gint32  woken_by;   /* a wait: the tid the wakeup that ended it ran in, or -1 */
} StrataPathSegment;

/* A thread's part of a path. */
typedef struct
{
  guint32 channel;
  gint32  tid;
  gint64  total;      /* its segments' summed length */
  gint64  running;    /* of which on a CPU */
  guint   n_segments;
} StrataPathThread;

GArray *strata_critical_path_by_thread (const GArray *segments);
GArray *strata_critical_path_compute (StrataTrace *trace,
                                      guint32      channel,
                                      gint64       from,
                                      gint64       to,
                                      GError     **error);

G_END_DECLS
