/* strata-zoom-settled.h
 *
 * The settled items of chunks computed on demand while a tree grows, kept
 * by one reader between its queries: for a channel's lane in a chunk, the
 * items its aggregation gave from one point where it starts afresh to a
 * later one, all of them made of completed activities, which the raw
 * store never changes. Such items can no longer change however the tree
 * grows, so the next query of the same lane in the same chunk takes them
 * as they are and aggregates only from where they end: a live frame of
 * the growing edge no longer reads and aggregates every activity so far
 * of each visible lane at every frame. Bounded: at most a fixed number of
 * items (STRATA_ZOOM_SETTLED_ITEMS in the environment sets it), the lanes
 * used longest ago dropped first, and whatever the last few queries did
 * not use dropped too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-activity.h"
#include "strata-aggregator.h"

G_BEGIN_DECLS

typedef struct _StrataZoomSettled StrataZoomSettled;

/* One lane's settled items in one chunk: those of its activities
 * [k_first, k_next), the aggregation starting afresh at both ends. */
typedef struct
{
  guint           k_first;
  guint           k_next;
  /* Activity k_next as the raw store held it when it was found: the
   * lane is read on from it only if it is still there. */
  StrataActivity  next;
  StrataZoomItem *items;
  guint           n_items;
  guint           alloc;
  guint64         used;
} StrataZoomSettledLane;

StrataZoomSettled     *strata_zoom_settled_new     (void);
void                   strata_zoom_settled_free    (StrataZoomSettled *self);
void                   strata_zoom_settled_begin   (StrataZoomSettled *self,
                                                    guint64            tree);
void                   strata_zoom_settled_end     (StrataZoomSettled *self);
StrataZoomSettledLane *strata_zoom_settled_lookup  (StrataZoomSettled *self,
                                                    guint32            channel,
                                                    guint              lane,
                                                    gint64             chunk_start,
                                                    gint64             chunk_duration);
StrataZoomSettledLane *strata_zoom_settled_restart (StrataZoomSettled *self,
                                                    guint32            channel,
                                                    guint              lane,
                                                    gint64             chunk_start,
                                                    gint64             chunk_duration,
                                                    guint              k_first,
                                                    const StrataActivity *first);
void                   strata_zoom_settled_extend  (StrataZoomSettled     *self,
                                                    StrataZoomSettledLane *lane,
                                                    const StrataZoomItem  *items,
                                                    guint                  n_items,
                                                    guint                  k_next,
                                                    const StrataActivity  *next);
void                   strata_zoom_settled_found   (StrataZoomSettled *self);
void                   strata_zoom_settled_set_max_items (StrataZoomSettled *self,
                                                          gsize              max_items);
gsize                  strata_zoom_settled_get_n_items (StrataZoomSettled *self);
guint64                strata_zoom_settled_get_n_found (StrataZoomSettled *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataZoomSettled, strata_zoom_settled_free)

G_END_DECLS
