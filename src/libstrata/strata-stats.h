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

#include "strata-trace.h"

G_BEGIN_DECLS

typedef struct
{
  guint    channel;
  gint32   cpu;
  guint16  instance;
  gint64   busy;        /* a task other than idle ran */
  gint64   idle;
  gint64   unknown;     /* not in the trace (before the first event, lost events) */
  gint64   irq;         /* hard IRQ handlers, nested time included */
  gint64   softirq;
  guint64  switches;
} StrataCpuStats;

typedef struct
{
  gint64 p50, p90, p99, max;
  guint  count;
} StrataLatency;

typedef struct
{
  guint          channel;
  gint32         tid;
  gint32         tgid;
  guint16        instance;
  gint64         running;
  gint64         runnable;      /* preempted or yielded, waiting for a CPU */
  gint64         woken;         /* woken, waiting for a CPU */
  gint64         sleeping;      /* S */
  gint64         blocked;       /* D */
  gint64         other;         /* stopped, parked */
  guint64        switches_in;
  StrataLatency  wakeup;
} StrataThreadStats;

typedef struct
{
  gint64         start;
  gint64         end;
  GArray        *cpus;          /* StrataCpuStats */
  GArray        *threads;       /* StrataThreadStats, by running time, longest first */
  StrataLatency  wakeup;        /* over all threads */
  guint64        switches;
} StrataStats;

typedef struct _StrataStatsBuilder StrataStatsBuilder;

StrataStatsBuilder *strata_stats_builder_new    (void);
void                strata_stats_builder_add    (const StrataActivity *activity,
                                                 gpointer              builder);
StrataStats        *strata_stats_builder_finish (StrataStatsBuilder   *self,
                                                 StrataTrace          *trace);
void                strata_stats_builder_free   (StrataStatsBuilder   *self);
void                strata_stats_builder_close_channel (StrataStatsBuilder *self,
                                                        guint32             channel);
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
void         strata_stats_free            (StrataStats  *stats);
void         strata_latency_from_samples  (StrataLatency *latency,
                                           gint64        *samples,
                                           guint          n_samples);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataStats, strata_stats_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataStatsBuilder, strata_stats_builder_free)

G_END_DECLS
