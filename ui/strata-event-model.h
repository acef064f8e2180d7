/* strata-event-model.h
 *
 * The trace's activities in time order as a GListModel that is virtual:
 * it never holds them all. Cumulative counts per time bucket say where each
 * bucket's activities start in the list; an item is found by its bucket,
 * whose activities are read from the raw store and sorted when the list
 * scrolls there. Filters (kind, CPU, task) recount the buckets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "strata.h"

G_BEGIN_DECLS

#define STRATA_TYPE_EVENT_ITEM (strata_event_item_get_type ())
G_DECLARE_FINAL_TYPE (StrataEventItem, strata_event_item, STRATA, EVENT_ITEM, GObject)

const StrataActivity *strata_event_item_get_activity (StrataEventItem *self);
guint                 strata_event_item_get_position (StrataEventItem *self);

#define STRATA_TYPE_EVENT_MODEL (strata_event_model_get_type ())
G_DECLARE_FINAL_TYPE (StrataEventModel, strata_event_model, STRATA, EVENT_MODEL, GObject)

#define STRATA_EVENT_ANY_KIND (-1)

StrataEventModel *strata_event_model_new            (StrataTrace      *trace);
StrataEventModel *strata_event_model_new_live       (StrataTrace      *trace,
                                                     gint64            until);
StrataTrace      *strata_event_model_get_trace      (StrataEventModel *self);
void              strata_event_model_set_filter     (StrataEventModel *self,
                                                     int               kind,
                                                     gint32            cpu,
                                                     gint32            tid);
guint             strata_event_model_position_at    (StrataEventModel *self,
                                                     gint64            t);
gboolean          strata_event_model_get_activity   (StrataEventModel *self,
                                                     guint             position,
                                                     StrataActivity   *out);
gint32            strata_event_activity_cpu         (StrataEventModel     *self,
                                                     const StrataActivity *a);

G_END_DECLS
