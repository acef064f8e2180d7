/* strata-trace-stats.h
 *
 * A trace's statistics, as `strata-cli stats` reports them and the index
 * keeps them: a row per CPU (busy, idle, IRQ, softirq time, switches), a
 * row per thread (time in each state, wakeup latencies) and the latencies
 * over all threads. Plain data: strata-stats.h computes them from the
 * activities, the trace holds them (strata_trace_get_stats()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

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

void strata_stats_free (StrataStats *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataStats, strata_stats_free)

G_END_DECLS
