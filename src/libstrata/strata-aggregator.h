/* strata-aggregator.h
 *
 * The seed's event aggregation at one zoom level, for one lane (a channel
 * at one nesting depth, whose activities never overlap). Activities at
 * least one pixel long (the level's triviality threshold) are kept as they
 * are; adjacent trivial ones are merged into an aggregate while the merged
 * span stays within one pixel. The aggregate keeps its member count, busy
 * time and dominant kind, state and label, so nothing vanishes when zoomed
 * out.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-activity.h"

G_BEGIN_DECLS

/* In StrataZoomItem.flags, beside the StrataActivityFlags. */
#define STRATA_ZOOM_ITEM_AGGREGATE (1u << 15)

typedef struct
{
  gint64  start;
  gint64  end;
  guint32 channel;
  guint32 label;   /* an aggregate's dominant label */
  gint32  arg;
  guint8  kind;    /* an aggregate's dominant kind and state */
  guint8  state;
  guint16 flags;
  guint32 count;   /* members: 1 for an activity kept as it is */
  guint32 reserved;
  gint64  busy;    /* the members' summed duration */
} StrataZoomItem;

typedef struct
{
  gint64          threshold;
  gboolean        open;
  StrataZoomItem  item;
  GArray         *keys;      /* candidates for the dominant member */
} StrataAggregateRun;

void strata_aggregate_run_init  (StrataAggregateRun   *run,
                                 gint64                threshold);
void strata_aggregate_run_clear (StrataAggregateRun   *run);
void strata_aggregate_run_offer (StrataAggregateRun   *run,
                                 const StrataActivity *activity,
                                 GArray               *out);
void strata_aggregate_run_flush (StrataAggregateRun   *run,
                                 GArray               *out);

G_END_DECLS
