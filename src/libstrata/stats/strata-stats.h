/* strata-stats.h
 *
 * What `strata-cli stats` reports, computed from a trace's activities (not
 * from its events, so it answers the same from an index) as they stream
 * past, so little has to be kept: per-CPU busy,
 * idle, IRQ and softirq time; per-thread time running, runnable and
 * sleeping; wakeup latencies (waking to running) with exact percentiles
 * (the latencies themselves are kept, past a budget in a spill file).
 * Told that a thread exited (strata_stats_builder_close_channel()), the
 * builder writes its sums out, so it holds what the threads alive need.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-parameters.h"
#include "strata-trace.h"
#include "strata-trace-stats.h"
#include "strata-thread-rows.h"

G_BEGIN_DECLS

typedef struct _StrataStatsBuilder StrataStatsBuilder;

StrataStatsBuilder *strata_stats_builder_new    (void);
StrataStatsBuilder *strata_stats_builder_new_with_parameters (const StrataParameters *parameters);
void                strata_stats_builder_add    (const StrataActivity *activity,
                                                 gpointer              builder);
StrataStats        *strata_stats_builder_finish (StrataStatsBuilder   *self,
                                                 StrataTrace          *trace);
StrataStats        *strata_stats_builder_finish_to_rows (StrataStatsBuilder  *self,
                                                         StrataTrace         *trace,
                                                         StrataThreadRows   **thread_rows);
void                strata_stats_builder_free   (StrataStatsBuilder   *self);
void                strata_stats_builder_close_channel (StrataStatsBuilder *self,
                                                        guint32             channel);
void                strata_stats_builder_close  (guint32               channel,
                                                 gint64                t,
                                                 gpointer              builder);
guint64             strata_stats_builder_get_heap_bytes (StrataStatsBuilder *self,
                                                         guint64            *peak,
                                                         guint64            *n_closed);
void                strata_stats_builder_set_latency_budget (StrataStatsBuilder *self,
                                                             guint64             bytes);
guint64             strata_stats_builder_get_latency_bytes  (StrataStatsBuilder *self,
                                                             guint64            *peak,
                                                             guint64            *n_spills);

StrataStats *strata_stats_compute         (StrataTrace  *trace);
void         strata_stats_builder_add_clipped (StrataStatsBuilder   *self,
                                               const StrataActivity *clipped);
StrataStats *strata_stats_compute_range   (StrataTrace   *trace,
                                           const guint32 *channels,
                                           guint          n_channels,
                                           gint64         from,
                                           gint64         to);
void         strata_latency_from_samples  (StrataLatency *latency,
                                           gint64        *samples,
                                           guint          n_samples);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataStatsBuilder, strata_stats_builder_free)

G_END_DECLS
