/* strata-event-fields.h
 *
 * An event's own fields, read back on demand for the rows of the event
 * list that are on screen, through the record streams of the file's
 * source (strata_source_next_record()): any format whose plugin has them.
 * As the format's own tool prints them: a trace.dat's as `trace-cmd
 * report -R` ("prev_comm=sh prev_pid=4301 ..."), the kernel's text as
 * its line says, a perf.data's as `perf script` (a tracepoint's print
 * format, a sample's ip, period and call-chain depth, a SWITCH record's
 * direction and other task). The zoom tree keeps activities, not
 * events: an activity is found again in the file by its CPU, its time
 * and the name of the event that made it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-activity.h"
#include "strata-trace.h"

G_BEGIN_DECLS

typedef struct _StrataEventFields StrataEventFields;

StrataEventFields *strata_event_fields_open         (const char             *path,
                                                     GError                **error);
void               strata_event_fields_free         (StrataEventFields      *self);
char              *strata_event_fields_lookup       (StrataEventFields      *self,
                                                     gint32                  cpu,
                                                     gint64                  ts,
                                                     const char * const     *names);
char              *strata_event_fields_for_activity (StrataEventFields      *self,
                                                     StrataTrace            *trace,
                                                     const StrataActivity   *activity,
                                                     gint32                  cpu);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataEventFields, strata_event_fields_free)

G_END_DECLS
