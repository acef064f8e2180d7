/* strata-task-state-format.h
 *
 * What sched_switch's prev_state means, read from the event's own print
 * format: the kernel prints it as the letters of the set bits of
 * TASK_REPORT ("R" when none is set) and a "+" for the bit just above them
 * (TASK_REPORT_MAX: preempted while runnable), and both the letters and the
 * bits changed between kernel versions. Shared by the readers that decode
 * tracepoints with libtraceevent (trace.dat and perf.data).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <traceevent/event-parse.h>

G_BEGIN_DECLS

#define STRATA_TASK_STATE_MAX_FLAGS  32
#define STRATA_TASK_STATE_CACHE_SIZE 16

typedef struct
{
  guint64 bits[STRATA_TASK_STATE_MAX_FLAGS];
  char    letters[STRATA_TASK_STATE_MAX_FLAGS][4];
  guint   n_flags;
  guint64 mask;         /* every state bit; 0 when the format had none */
  guint64 preempt_bit;

  /* prev_state values seen so far and what they mean: a handful per file. */
  guint64 cache_value[STRATA_TASK_STATE_CACHE_SIZE];
  guint8  cache_state[STRATA_TASK_STATE_CACHE_SIZE];
  guint8  cache_used[STRATA_TASK_STATE_CACHE_SIZE];
} StrataTaskStateFormat;

void    strata_task_state_format_init   (StrataTaskStateFormat *self,
                                         struct tep_event      *sched_switch);
guint32 strata_task_state_format_decode (StrataTaskStateFormat *self,
                                         gint64                 prev_state);

G_END_DECLS
