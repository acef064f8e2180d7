/* strata-tracepoint-fields.h
 *
 * The fields of the tracepoints the kernel model reads (sched_switch, the
 * wakeups, fork, exec, exit, irq and softirq), looked up once per event
 * format with libtraceevent, and what sched_switch's prev_state means.
 * Shared by the readers that decode tracepoints through the formats a file
 * carries (trace.dat and perf.data).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-event.h"
#include "strata-task-state-format.h"

G_BEGIN_DECLS

/* Where each type's fields are in StrataTracepointFields.fields. */
enum { SW_PREV_COMM, SW_PREV_PID, SW_PREV_PRIO, SW_PREV_STATE, SW_NEXT_COMM, SW_NEXT_PID, SW_NEXT_PRIO };
enum { WK_COMM, WK_PID, WK_PRIO, WK_TARGET_CPU, WK_COMMON_FLAGS };
enum { FK_PARENT_COMM, FK_PARENT_PID, FK_CHILD_COMM, FK_CHILD_PID };
enum { EX_FILENAME, EX_PID, EX_OLD_PID };
enum { XT_COMM, XT_PID, XT_PRIO };
enum { IRQ_IRQ, IRQ_NAME, IRQ_RET };
enum { SI_VEC };

typedef struct
{
  struct tep_format_field *common_pid;
  struct tep_format_field *fields[7];
  StrataTaskStateFormat    states;     /* sched_switch only */
} StrataTracepointFields;

StrataEventType strata_tracepoint_fields_resolve (StrataTracepointFields *self,
                                                  struct tep_event       *event);

gboolean        strata_tracepoint_field_fits      (const struct tep_format_field *f,
                                                  const struct tep_record       *record);
gboolean        strata_tracepoint_read_number     (struct tep_format_field *f,
                                                  struct tep_record       *record,
                                                  gboolean                 native_order,
                                                  gint64                  *value);

G_END_DECLS
