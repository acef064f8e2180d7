/* strata-critical-path-panel.h
 *
 * The critical path of a thread over a range in the application: the
 * segments (thread, state, when, how long, share of the range) listed,
 * each thread's share summed above them, and the segments drawn over the
 * timeline's rows (strata_critical_path_panel_draw(), given to the
 * timeline as part of its overlay). Activating a segment says so
 * ("segment-activated"), for the window to move the timeline there.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata.h"
#include "strata-timeline-view.h"

G_BEGIN_DECLS

#define STRATA_TYPE_CRITICAL_PATH_PANEL (strata_critical_path_panel_get_type ())

G_DECLARE_FINAL_TYPE (StrataCriticalPathPanel, strata_critical_path_panel, STRATA, CRITICAL_PATH_PANEL, GtkWidget)

GtkWidget    *strata_critical_path_panel_new          (void);
gboolean      strata_critical_path_panel_compute      (StrataCriticalPathPanel *self,
                                                       StrataTrace             *trace,
                                                       guint32                  channel,
                                                       gint64                   from,
                                                       gint64                   to);
void          strata_critical_path_panel_clear        (StrataCriticalPathPanel *self);
const GArray *strata_critical_path_panel_get_segments (StrataCriticalPathPanel *self);
guint         strata_critical_path_panel_get_n_rows   (StrataCriticalPathPanel *self);
void          strata_critical_path_panel_draw         (StrataCriticalPathPanel *self,
                                                       StrataTimelineView      *view,
                                                       GtkSnapshot             *snapshot,
                                                       const graphene_rect_t   *area);

G_END_DECLS
