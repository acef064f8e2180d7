/* strata-window.h
 *
 * A Strata window: a header bar (open, recent traces, back and forward,
 * zoom, search, the main menu), the timeline and the details panel. One
 * trace per window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "strata-event-list.h"
#include "strata-timeline-view.h"

G_BEGIN_DECLS

#define STRATA_TYPE_WINDOW (strata_window_get_type ())

G_DECLARE_FINAL_TYPE (StrataWindow, strata_window, STRATA, WINDOW, AdwApplicationWindow)

StrataWindow       *strata_window_new            (GtkApplication *application);
void                strata_window_open           (StrataWindow   *self,
                                                  GFile          *file);
gboolean            strata_window_is_empty       (StrataWindow   *self);
StrataTimelineView *strata_window_get_timeline   (StrataWindow   *self);
GtkWidget          *strata_window_get_panel      (StrataWindow   *self);
char               *strata_window_get_panel_text (StrataWindow   *self);
void                strata_window_search         (StrataWindow   *self,
                                                  const char     *text);
GMenuModel         *strata_window_get_recent_menu (StrataWindow  *self);
StrataEventList    *strata_window_get_event_list (StrataWindow   *self);
GtkWidget          *strata_window_get_analysis_pane (StrataWindow *self);
void                strata_window_show_events    (StrataWindow   *self,
                                                  gboolean        show);

G_END_DECLS
