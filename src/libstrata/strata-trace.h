/* strata-trace.h
 *
 * A trace as Strata knows it after one pass: the source's description of
 * itself, the channels and activities of the kernel model, and the number of
 * events of each type. Loading keeps whatever was readable before damage in
 * the file and says where the damage is.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "strata-activity.h"
#include "strata-source.h"
#include "strata-string-pool.h"

G_BEGIN_DECLS

#define STRATA_TYPE_TRACE (strata_trace_get_type ())

G_DECLARE_FINAL_TYPE (StrataTrace, strata_trace, STRATA, TRACE, GObject)

typedef struct
{
  guint32 name;    /* pool id of the event name */
  guint64 count;
} StrataEventCount;

StrataTrace            *strata_trace_load                (const char     *path,
                                                          GError        **error);
StrataSource           *strata_trace_get_source          (StrataTrace    *self);
const StrataSourceInfo *strata_trace_get_info            (StrataTrace    *self);
StrataStringPool       *strata_trace_get_strings         (StrataTrace    *self);
const char             *strata_trace_get_string          (StrataTrace    *self,
                                                          guint32         id);
const StrataChannel    *strata_trace_get_channels        (StrataTrace    *self,
                                                          guint          *n_channels);
const StrataActivity   *strata_trace_get_activities      (StrataTrace    *self,
                                                          gsize          *n_activities);
const StrataEventCount *strata_trace_get_event_counts    (StrataTrace    *self,
                                                          guint          *n_counts);
guint64                 strata_trace_get_n_events        (StrataTrace    *self);
guint64                 strata_trace_get_context_switches (StrataTrace   *self,
                                                           guint          channel);
gint64                  strata_trace_get_start           (StrataTrace    *self);
gint64                  strata_trace_get_end             (StrataTrace    *self);
const GError           *strata_trace_get_damage          (StrataTrace    *self);

G_END_DECLS
