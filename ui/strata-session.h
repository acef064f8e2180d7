/* strata-session.h
 *
 * What the views of one open trace share: the visible range and the
 * extent it moves in, the back and forward history of ranges, the
 * selection, the markers and the search. The timeline, the event list,
 * the details panel and the analysis pane each observe one session; a
 * change made in one of them is seen by the others through its
 * properties and signals.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "strata.h"

G_BEGIN_DECLS

typedef enum
{
  STRATA_SELECTION_NONE,
  STRATA_SELECTION_ITEM,
  STRATA_SELECTION_ROW,
  STRATA_SELECTION_RANGE,
} StrataSelectionKind;

typedef struct
{
  StrataSelectionKind kind;
  guint32             channel;
  StrataZoomItem      item;
  gint64              from;
  gint64              to;
} StrataSelection;

#define STRATA_TYPE_SESSION (strata_session_get_type ())

G_DECLARE_FINAL_TYPE (StrataSession, strata_session, STRATA, SESSION, GObject)

StrataSession *strata_session_new              (void);
StrataTrace   *strata_session_get_trace        (StrataSession *self);
void           strata_session_set_trace        (StrataSession *self,
                                                StrataTrace   *trace);
void           strata_session_continue_trace   (StrataSession *self,
                                                StrataTrace   *trace);
void           strata_session_set_extent       (StrataSession *self,
                                                gint64         start,
                                                gint64         end);
gint64         strata_session_get_start        (StrataSession *self);
gint64         strata_session_get_end          (StrataSession *self);
void           strata_session_set_min_span     (StrataSession *self,
                                                gint64         min_span);

gint64         strata_session_get_from         (StrataSession *self);
gint64         strata_session_get_to           (StrataSession *self);
void           strata_session_get_range        (StrataSession *self,
                                                gint64        *from,
                                                gint64        *to);
void           strata_session_set_range        (StrataSession *self,
                                                gint64         from,
                                                gint64         to);
void           strata_session_navigate_to      (StrataSession *self,
                                                gint64         from,
                                                gint64         to);
void           strata_session_fit              (StrataSession *self);
void           strata_session_push_history     (StrataSession *self);
void           strata_session_push_history_for_burst (StrataSession *self);
gboolean       strata_session_go_back          (StrataSession *self);
gboolean       strata_session_go_forward       (StrataSession *self);
gboolean       strata_session_get_can_go_back  (StrataSession *self);
gboolean       strata_session_get_can_go_forward (StrataSession *self);
gboolean       strata_session_get_following    (StrataSession *self);
void           strata_session_set_following    (StrataSession *self,
                                                gboolean       following);
void           strata_session_follow           (StrataSession *self);

const StrataSelection *
               strata_session_get_selection    (StrataSession *self);
void           strata_session_select_item      (StrataSession *self,
                                                const StrataZoomItem *item);
void           strata_session_select_row       (StrataSession *self,
                                                guint32        channel);
void           strata_session_select_range     (StrataSession *self,
                                                gint64         from,
                                                gint64         to);
void           strata_session_clear_selection  (StrataSession *self);

void           strata_session_add_marker       (StrataSession *self,
                                                gint64         t);
guint          strata_session_get_markers      (StrataSession *self,
                                                gint64        *markers);
void           strata_session_clear_markers    (StrataSession *self);

guint          strata_session_set_search       (StrataSession *self,
                                                const char    *text,
                                                const guint32 *order,
                                                guint          n_order);
guint          strata_session_update_search    (StrataSession *self,
                                                const guint32 *order,
                                                guint          n_order);
const char    *strata_session_get_search       (StrataSession *self);
const guint32 *strata_session_get_matches      (StrataSession *self,
                                                guint         *n_matches);
int            strata_session_get_match_index  (StrataSession *self);
guint32        strata_session_search_step      (StrataSession *self,
                                                int            direction);
guint32        strata_session_get_search_match (StrataSession *self);

G_END_DECLS
