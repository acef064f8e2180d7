/* strata-event-list.h
 *
 * The event list under the timeline: a GtkColumnView over the trace's
 * activities in time order (StrataEventModel, virtual), filterable by
 * kind, CPU and thread, kept in step with the timeline both ways.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata.h"
#include "strata-session.h"

G_BEGIN_DECLS

#define STRATA_TYPE_EVENT_LIST (strata_event_list_get_type ())

G_DECLARE_FINAL_TYPE (StrataEventList, strata_event_list, STRATA, EVENT_LIST, GtkBox)

GtkWidget *strata_event_list_new              (void);
void       strata_event_list_set_trace        (StrataEventList *self,
                                               StrataTrace     *trace);
void       strata_event_list_set_live         (StrataEventList *self,
                                               StrataTrace     *trace,
                                               gint64           until);
void       strata_event_list_set_session      (StrataEventList *self,
                                               StrataSession   *session);
void       strata_event_list_follow           (StrataEventList *self,
                                               gint64           t);
guint      strata_event_list_get_followed     (StrataEventList *self);
guint      strata_event_list_get_selected     (StrataEventList *self);
void       strata_event_list_select           (StrataEventList *self,
                                               guint            position);
void       strata_event_list_set_filter       (StrataEventList *self,
                                               int              kind,
                                               gint32           cpu,
                                               gint32           tid);
GListModel *strata_event_list_get_model       (StrataEventList *self);
void       strata_event_list_set_fields_file  (StrataEventList *self,
                                               const char      *path);
char      *strata_event_list_get_fields_text  (StrataEventList *self,
                                               guint            position);
guint      strata_event_list_get_n_fields_read (StrataEventList *self);

G_END_DECLS
