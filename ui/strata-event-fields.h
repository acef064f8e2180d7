/* strata-event-fields.h
 *
 * An event's own fields, as `trace-cmd report -R` prints them
 * ("prev_comm=sh prev_pid=4301 ..."), read back from a trace.dat on
 * demand for the rows of the event list that are on screen; from a
 * perf.data as `perf script` prints them (a tracepoint's print format,
 * a sample's ip, period and call-chain depth, a SWITCH record's
 * direction and other task). The zoom
 * tree keeps activities, not events: an activity is found again in the
 * file by its CPU, its time and the name of the event that made it.
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
