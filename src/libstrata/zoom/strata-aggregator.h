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

/* An activity kept as it is, as an item: one member, busy all along. */
static inline void
strata_zoom_item_from_activity (StrataZoomItem       *item,
                                const StrataActivity *a)
{
  item->start = a->start;
  item->end = a->end;
  item->channel = a->channel;
  item->label = a->label;
  item->arg = a->arg;
  item->kind = a->kind;
  item->state = a->state;
  item->flags = a->flags;
  item->count = 1;
  item->reserved = 0;
  item->busy = a->end - a->start;
}

typedef struct _StrataAggregateKey StrataAggregateKey;

typedef struct
{
  /* The part an offer reads first, in 64 bytes: the build keeps a run
   * per lane and level, and touches thousands of them per buffer (a lane
   * state puts it on a cache line of its own, strata-zoom-tree-internal.h). */
  StrataZoomItem      item;
  gint64              threshold;
  guint32             open;
  guint32             n_keys;
  /* What a merge reads too. */
  guint32             last_key;  /* the candidate found last: members repeat */
  guint32             keys_alloc;
  /* Candidates for the dominant member, in the order they joined, once
   * a second one joins (none listed: the first member's, in item). An
   * aggregate at a coarse level can have thousands of distinct members
   * (the tasks of a CPU, the targets of wakeups), so past a few they are
   * found through a hash of slot numbers instead of a scan. */
  StrataAggregateKey *keys;
  guint64            *slots;     /* generation << 32 | key index; n_slots a power of 2 */
  guint               n_slots;
  guint32             generation; /* slots of another generation are empty */
} StrataAggregateRun;

/* A growable array of items written without a call per item: the build
 * appends every item of every level, so GArray's out-of-line append was a
 * fifth of the pass. */
typedef struct
{
  StrataZoomItem *items;
  guint           len;
  guint           alloc;
} StrataZoomItemVec;

void strata_zoom_item_vec_grow  (StrataZoomItemVec    *vec,
                                 guint                 n);
void strata_zoom_item_vec_clear (StrataZoomItemVec    *vec);

static inline StrataZoomItem *
strata_zoom_item_vec_push (StrataZoomItemVec *vec)
{
  if G_UNLIKELY (vec->len == vec->alloc)
    strata_zoom_item_vec_grow (vec, 1);
  return &vec->items[vec->len++];
}

void strata_aggregate_run_init  (StrataAggregateRun   *run,
                                 gint64                threshold);
void strata_aggregate_run_clear (StrataAggregateRun   *run);
void strata_aggregate_run_offer (StrataAggregateRun   *run,
                                 const StrataActivity *activity,
                                 GArray               *out);
void strata_aggregate_run_flush (StrataAggregateRun   *run,
                                 GArray               *out);

/* The same, appending to a #StrataZoomItemVec (the build's hot path). */
void strata_aggregate_run_offer_vec (StrataAggregateRun   *run,
                                     const StrataActivity *activity,
                                     StrataZoomItemVec    *out);
void strata_aggregate_run_flush_vec (StrataAggregateRun   *run,
                                     StrataZoomItemVec    *out);

/* The rule without its items: how many strata_aggregate_run_offer()
 * would finish, for a level that only has to know whether its chunk is
 * worth storing. A run counted this way keeps no candidates, so it can be
 * used for whole items again after strata_aggregate_run_count_flush(). */
static inline guint
strata_aggregate_run_count (StrataAggregateRun   *run,
                            const StrataActivity *activity)
{
  gint64 d = activity->end - activity->start;
  guint n = run->open;

  if (d >= run->threshold)
    {
      run->open = FALSE;
      return n + 1;
    }
  if (run->open && MAX (activity->end, run->item.end) - run->item.start <= run->threshold)
    {
      run->item.end = MAX (run->item.end, activity->end);
      return 0;
    }
  run->item.start = activity->start;
  run->item.end = activity->end;
  run->open = TRUE;
  return n;
}

/* A run that was making whole items goes on counted: its open aggregate's
 * span stays (the count goes on from it), its candidates are let go.
 * Returns the members of the open aggregate, 0 if none is open. */
guint32 strata_aggregate_run_to_count (StrataAggregateRun *run);

static inline guint
strata_aggregate_run_count_flush (StrataAggregateRun *run)
{
  guint n = run->open;

  run->open = FALSE;
  return n;
}

G_END_DECLS
