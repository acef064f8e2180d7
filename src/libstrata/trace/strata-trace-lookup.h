/* strata-trace-lookup.h
 *
 * Finding things in a loaded trace by thread and by time, for the answers
 * built on top of the timeline (who woke whom, the critical path, the
 * flame graph's and the histograms' selections, export): which channel a
 * tid was at a moment (a tid is reused, each use a channel of its own),
 * and a channel's activities in a time range, from the raw store of the
 * trace's zoom tree (built now or mapped from its index) or, for a trace
 * loaded without one, from its activities in memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-trace.h"

G_BEGIN_DECLS

typedef struct _StrataThreadMap StrataThreadMap;

StrataThreadMap *strata_thread_map_new     (StrataTrace     *trace);
void             strata_thread_map_free    (StrataThreadMap *self);
guint32          strata_thread_map_lookup  (StrataThreadMap *self,
                                            guint16          instance,
                                            gint32           tid,
                                            gint64           t);
guint32          strata_thread_map_find    (StrataThreadMap *self,
                                            gint32           tid,
                                            gint64           from,
                                            gint64           to);

guint32          strata_trace_find_thread  (StrataTrace     *trace,
                                            guint16          instance,
                                            gint32           tid,
                                            gint64           t);
void             strata_trace_query_channel (StrataTrace    *trace,
                                             guint32         channel,
                                             gint64          from,
                                             gint64          to,
                                             GArray         *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataThreadMap, strata_thread_map_free)

G_END_DECLS
