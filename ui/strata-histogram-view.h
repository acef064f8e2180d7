/* strata-histogram-view.h
 *
 * A latency histogram drawn: a bar per log-scaled bucket (1, 2, 5 × 10^k
 * ns, strata-histogram.h) from the first with a count to the last, their
 * bounds under them, and the p50, p90 and p99 marked where they fall
 * (placed in their bucket on the same log scale). Hovering a bar tells
 * its bounds and count.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata.h"

G_BEGIN_DECLS

#define STRATA_TYPE_HISTOGRAM_VIEW (strata_histogram_view_get_type ())

G_DECLARE_FINAL_TYPE (StrataHistogramView, strata_histogram_view, STRATA, HISTOGRAM_VIEW, GtkWidget)

GtkWidget *strata_histogram_view_new            (void);
void       strata_histogram_view_set_histogram  (StrataHistogramView   *self,
                                                 const StrataHistogram *histogram);
const StrataHistogram *strata_histogram_view_get_histogram (StrataHistogramView *self);
guint      strata_histogram_view_bucket_at      (StrataHistogramView   *self,
                                                 double                 x);
double     strata_histogram_view_x_for_value    (StrataHistogramView   *self,
                                                 gint64                 ns);

G_END_DECLS
