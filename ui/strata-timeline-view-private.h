/* strata-timeline-view-private.h
 *
 * The timeline's input handlers and its last frame, for the UI tests:
 * they drive the same functions the event controllers call, and compare
 * what was drawn against the painter's display list.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-timeline-view.h"
#include "strata-item-info.h"

G_BEGIN_DECLS

/* Pixel layout of the widget, top to bottom. */
#define STRATA_TIMELINE_OVERVIEW_HEIGHT 44

gboolean  strata_timeline_view_handle_scroll     (StrataTimelineView *self,
                                                  double              x,
                                                  double              y,
                                                  double              dx,
                                                  double              dy,
                                                  GdkModifierType     state,
                                                  gboolean            wheel);
void      strata_timeline_view_handle_drag_begin (StrataTimelineView *self,
                                                  double              x,
                                                  double              y);
void      strata_timeline_view_handle_drag_update (StrataTimelineView *self,
                                                   double              dx,
                                                   double              dy);
void      strata_timeline_view_handle_drag_end   (StrataTimelineView *self,
                                                  double              dx,
                                                  double              dy);
void      strata_timeline_view_handle_press      (StrataTimelineView *self,
                                                  int                 n_press,
                                                  double              x,
                                                  double              y);
gboolean  strata_timeline_view_handle_key        (StrataTimelineView *self,
                                                  guint               keyval,
                                                  GdkModifierType     state);
void      strata_timeline_view_handle_motion     (StrataTimelineView *self,
                                                  double              x,
                                                  double              y);
gboolean  strata_timeline_view_hit               (StrataTimelineView *self,
                                                  double              x,
                                                  double              y,
                                                  StrataZoomItem     *item);
StrataItemInfo *strata_timeline_view_describe_at (StrataTimelineView *self,
                                                  double              x,
                                                  double              y);
const StrataDisplayList *strata_timeline_view_get_display_list (StrataTimelineView *self);
StrataPainter *strata_timeline_view_get_painter  (StrataTimelineView *self);
void      strata_timeline_view_paint_now         (StrataTimelineView *self,
                                                  int                 width,
                                                  int                 height);
guint     strata_timeline_view_get_n_paints      (StrataTimelineView *self);
void      strata_timeline_view_forget_frame      (StrataTimelineView *self);
const StrataChannel *strata_timeline_view_get_channels (StrataTimelineView *self,
                                                       guint              *n_channels);
void      strata_timeline_view_get_extent        (StrataTimelineView *self,
                                                  gint64             *start,
                                                  gint64             *end);
double    strata_timeline_view_x_for_time        (StrataTimelineView *self,
                                                  gint64              t);
double    strata_timeline_view_y_for_row         (StrataTimelineView *self,
                                                  guint32             channel);
gsize     strata_timeline_view_get_spilled_heap  (StrataTimelineView *self);

G_END_DECLS
