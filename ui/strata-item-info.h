/* strata-item-info.h
 *
 * What the timeline says about one thing on it: an activity or an
 * aggregate of a zoom-tree query, a row, a time range. The same fields
 * feed the hover tooltip, the details panel and the text "Copy details"
 * puts on the clipboard, so the three never disagree.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata.h"

G_BEGIN_DECLS

typedef struct
{
  char *key;
  char *value;
} StrataInfoField;

typedef struct
{
  char      *title;
  GPtrArray *fields;   /* StrataInfoField */
  GArray    *members;  /* StrataActivity: an aggregate's members, or the activity itself */
} StrataItemInfo;

/* A member group of an aggregate: the activities sharing a label (or a
 * state), their count and summed duration. */
typedef struct
{
  char   *name;
  guint   count;
  gint64  duration;
  gint64  first_start;
  gint64  last_end;
} StrataMemberGroup;

StrataItemInfo *strata_item_info_new_for_item  (StrataTrace          *trace,
                                                const StrataZoomItem *item);
StrataItemInfo *strata_item_info_new_for_row   (StrataTrace          *trace,
                                                guint32               channel);
StrataItemInfo *strata_item_info_new_for_range (StrataTrace          *trace,
                                                const guint32        *channels,
                                                guint                 n_channels,
                                                gint64                from,
                                                gint64                to);
void            strata_item_info_free          (StrataItemInfo       *self);
const char     *strata_item_info_get           (const StrataItemInfo *self,
                                                const char           *key);
char           *strata_item_info_to_text       (const StrataItemInfo *self);
char           *strata_item_info_to_markup     (const StrataItemInfo *self,
                                                guint                 max_fields);
GArray         *strata_item_info_group_members (StrataTrace          *trace,
                                                const GArray         *members);

char           *strata_format_duration         (gint64                ns);
char           *strata_format_offset           (gint64                ns);
const char     *strata_task_state_display_name (StrataTaskState       state);
const char     *strata_channel_display_name    (StrataTrace          *trace,
                                                guint32               channel);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataItemInfo, strata_item_info_free)

G_END_DECLS
