/* strata-analysis-pane.h
 *
 * The answers under the timeline: a flame graph of the samples, the
 * critical path of a thread and the latency histograms, each of what the
 * timeline selects (a range, or else the view; a thread or process, or
 * else every thread), and the wakeups drawn on the timeline (the
 * selection's, and on demand the view's). It observes the timeline's
 * session and draws through the timeline's overlay hook: the window only
 * places it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata.h"
#include "strata-critical-path-panel.h"
#include "strata-flame-graph-view.h"
#include "strata-histogram-view.h"
#include "strata-timeline-view.h"
#include "strata-wakeup-arrows.h"

G_BEGIN_DECLS

#define STRATA_TYPE_ANALYSIS_PANE (strata_analysis_pane_get_type ())

G_DECLARE_FINAL_TYPE (StrataAnalysisPane, strata_analysis_pane, STRATA, ANALYSIS_PANE, GtkWidget)

void                     strata_analysis_pane_set_timeline   (StrataAnalysisPane *self,
                                                              StrataTimelineView *timeline);
void                     strata_analysis_pane_set_file       (StrataAnalysisPane *self,
                                                              GFile              *file);
void                     strata_analysis_pane_show_page      (StrataAnalysisPane *self,
                                                              const char         *name);
void                     strata_analysis_pane_update_now     (StrataAnalysisPane *self);
gboolean                 strata_analysis_pane_is_loading     (StrataAnalysisPane *self);
void                     strata_analysis_pane_set_show_wakeups (StrataAnalysisPane *self,
                                                                gboolean            show);
StrataFlameGraphView    *strata_analysis_pane_get_flame_view  (StrataAnalysisPane *self);
StrataCriticalPathPanel *strata_analysis_pane_get_path_panel  (StrataAnalysisPane *self);
StrataHistogramView     *strata_analysis_pane_get_histogram   (StrataAnalysisPane *self,
                                                               StrataHistogramKind kind);
StrataWakeupArrows      *strata_analysis_pane_get_arrows      (StrataAnalysisPane *self);
guint                    strata_analysis_pane_get_n_arrows    (StrataAnalysisPane *self);

G_END_DECLS
