/* strata-timeline-view.h
 *
 * The timeline: a row per CPU, then processes with their threads, a name
 * column, a ruler, an overview strip of the whole trace and a legend. Each
 * frame is one StrataPainter paint, that is one zoom-tree query for the
 * rows on screen, drawn as render nodes in snapshot(). The range, history,
 * selection, markers and search it shows are its session's (one of its
 * own until strata_timeline_view_set_session() hands it the one the
 * window shares); the range, selection and search calls here are that
 * session's, with what only the widget adds (scrolling the row into view,
 * search's rows shown).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata.h"
#include "strata-live-channels.h"
#include "strata-session.h"

G_BEGIN_DECLS

#define STRATA_TYPE_TIMELINE_VIEW (strata_timeline_view_get_type ())

G_DECLARE_FINAL_TYPE (StrataTimelineView, strata_timeline_view, STRATA, TIMELINE_VIEW, GtkWidget)

typedef void (*StrataTimelineOverlayFunc) (StrataTimelineView    *view,
                                           GtkSnapshot           *snapshot,
                                           const graphene_rect_t *area,
                                           gpointer               user_data);

GtkWidget     *strata_timeline_view_new            (void);
void           strata_timeline_view_set_trace      (StrataTimelineView *self,
                                                    StrataTrace        *trace);
StrataTrace   *strata_timeline_view_get_trace      (StrataTimelineView *self);
StrataSession *strata_timeline_view_get_session    (StrataTimelineView *self);
void           strata_timeline_view_set_session    (StrataTimelineView *self,
                                                    StrataSession      *session);
void           strata_timeline_view_set_live       (StrataTimelineView *self,
                                                    StrataTrace        *trace,
                                                    const StrataChannel *fresh,
                                                    guint               n_fresh,
                                                    const StrataChannelChange *changes,
                                                    guint               n_changes,
                                                    gint64              start,
                                                    gint64              horizon);
void           strata_timeline_view_finish_live    (StrataTimelineView *self,
                                                    StrataTrace        *trace);
gboolean       strata_timeline_view_is_live        (StrataTimelineView *self);
void           strata_timeline_view_follow         (StrataTimelineView *self);
gboolean       strata_timeline_view_get_following  (StrataTimelineView *self);
void           strata_timeline_view_set_following  (StrataTimelineView *self,
                                                    gboolean            following);
void           strata_timeline_view_get_range      (StrataTimelineView *self,
                                                    gint64             *from,
                                                    gint64             *to);
void           strata_timeline_view_set_range      (StrataTimelineView *self,
                                                    gint64              from,
                                                    gint64              to);
void           strata_timeline_view_navigate_to    (StrataTimelineView *self,
                                                    gint64              from,
                                                    gint64              to);
void           strata_timeline_view_zoom           (StrataTimelineView *self,
                                                    double              factor,
                                                    double              anchor_x);
void           strata_timeline_view_pan            (StrataTimelineView *self,
                                                    double              dx);
void           strata_timeline_view_fit            (StrataTimelineView *self);
gboolean       strata_timeline_view_go_back        (StrataTimelineView *self);
gboolean       strata_timeline_view_go_forward     (StrataTimelineView *self);
void           strata_timeline_view_set_dark       (StrataTimelineView *self,
                                                    gboolean            dark);
void           strata_timeline_view_set_row_height (StrataTimelineView *self,
                                                    guint               row_height);
guint          strata_timeline_view_set_search     (StrataTimelineView *self,
                                                    const char         *text);
gboolean       strata_timeline_view_search_step    (StrataTimelineView *self,
                                                    int                 direction);
guint32        strata_timeline_view_get_search_match (StrataTimelineView *self);
const StrataSelection *
               strata_timeline_view_get_selection  (StrataTimelineView *self);
void           strata_timeline_view_select_row     (StrataTimelineView *self,
                                                    guint32             channel);
void           strata_timeline_view_select_item    (StrataTimelineView *self,
                                                    const StrataZoomItem *item);
void           strata_timeline_view_clear_selection (StrataTimelineView *self);
void           strata_timeline_view_set_row_pinned (StrataTimelineView *self,
                                                    guint32             channel,
                                                    gboolean            pinned);
void           strata_timeline_view_set_row_hidden (StrataTimelineView *self,
                                                    guint32             channel,
                                                    gboolean            hidden);
void           strata_timeline_view_show_all_rows  (StrataTimelineView *self);
void           strata_timeline_view_set_expanded   (StrataTimelineView *self,
                                                    guint32             process,
                                                    gboolean            expanded);
const guint32 *strata_timeline_view_get_rows       (StrataTimelineView *self,
                                                    guint              *n_rows);
void           strata_timeline_view_add_marker     (StrataTimelineView *self,
                                                    gint64              t);
guint          strata_timeline_view_get_markers    (StrataTimelineView *self,
                                                    gint64             *markers);
void           strata_timeline_view_set_overlay    (StrataTimelineView *self,
                                                    StrataTimelineOverlayFunc func,
                                                    gpointer            user_data);
guint          strata_timeline_view_get_row_height (StrataTimelineView *self);

G_END_DECLS
