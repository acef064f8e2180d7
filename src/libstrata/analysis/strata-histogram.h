/* strata-histogram.h
 *
 * Latency histograms beside the statistics: the wakeup latency (waking
 * to running: a WOKEN state that ended with the thread switched in) and
 * the run-slice length (a RUNNING state seen from its switch-in to its
 * switch-out) of some threads over a time range, in log-scaled buckets
 * of 1, 2 and 5 times a power of ten nanoseconds, with exact percentiles
 * (nearest rank, as the statistics compute them). Only what lies whole
 * in the range counts, as in a range's statistics.
 *
 * The values are read twice from the raw store, not kept: once to count
 * the buckets, once for the values of the buckets the percentiles fall
 * in, so memory does not grow with the number of wakeups.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-trace.h"

G_BEGIN_DECLS

/* Bucket 0 holds 0 ns; bucket 1 + 3k + j holds [m_j 10^k, m_{j+1} 10^k)
 * with m = 1, 2, 5, 10; the last one everything from 1000 s on. */
#define STRATA_HISTOGRAM_N_BUCKETS 40

typedef struct
{
  guint64 counts[STRATA_HISTOGRAM_N_BUCKETS];
  guint64 count;
  gint64  min;
  gint64  max;
  gint64  sum;
  gint64  p50;
  gint64  p90;
  gint64  p99;
} StrataHistogram;

typedef enum
{
  STRATA_HISTOGRAM_WAKEUP,     /* waking to running */
  STRATA_HISTOGRAM_SLICE,      /* a run on a CPU, switch-in to switch-out */
  STRATA_N_HISTOGRAMS
} StrataHistogramKind;

gint64 strata_histogram_bucket_start (guint  bucket);
gint64 strata_histogram_bucket_end   (guint  bucket);
guint  strata_histogram_bucket_of    (gint64 ns);
void   strata_histogram_range        (const StrataHistogram *histogram,
                                      guint                 *first,
                                      guint                 *last);

void   strata_histograms_compute     (StrataTrace           *trace,
                                      const guint32         *channels,
                                      guint                  n_channels,
                                      gint64                 from,
                                      gint64                 to,
                                      StrataHistogram        out[STRATA_N_HISTOGRAMS]);
gboolean strata_histogram_takes      (StrataHistogramKind    kind,
                                      const StrataActivity  *activity,
                                      gint64                 from,
                                      gint64                 to);

G_END_DECLS
