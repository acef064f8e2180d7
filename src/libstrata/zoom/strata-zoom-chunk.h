/* strata-zoom-chunk.h
 *
 * One chunk of one zoom level for one channel: the channel's activities
 * that overlap the chunk, clipped to it, aggregated lane by lane with the
 * level's triviality threshold. This is the seed's on-demand calculation
 * for sparse regions, from the raw store; the pre-computed chunks of dense
 * regions must equal it item for item.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-aggregator.h"
#include "strata-raw-store.h"
#include "strata-zoom-geometry.h"
#include "strata-zoom-settled.h"

G_BEGIN_DECLS

void  strata_zoom_compute_chunk      (StrataRawStore           *store,
                                      const StrataZoomGeometry *geometry,
                                      guint                     level,
                                      gint64                    index,
                                      guint32                   channel,
                                      GArray                   *out);
guint strata_zoom_compute_chunk_full (StrataRawStore           *store,
                                      const StrataActivity     *open,
                                      guint                     n_open,
                                      const StrataZoomGeometry *geometry,
                                      guint                     level,
                                      gint64                    index,
                                      guint32                   channel,
                                      GArray                   *out);
void  strata_zoom_compute_window    (StrataRawStore           *store,
                                      const StrataActivity     *open,
                                      guint                     n_open,
                                      const StrataZoomGeometry *geometry,
                                      guint                     level,
                                      gint64                    index,
                                      guint32                   channel,
                                      gint64                    from,
                                      gint64                    to,
                                      GArray                   *out);

void  strata_zoom_compute_window_settled (StrataRawStore           *store,
                                         const StrataActivity     *open,
                                         guint                     n_open,
                                         const StrataZoomGeometry *geometry,
                                         guint                     level,
                                         gint64                    index,
                                         guint32                   channel,
                                         gint64                    from,
                                         gint64                    to,
                                         StrataZoomSettled        *settled,
                                         GArray                   *out);

/* Lanes in the order the raw store answers: depths 0..15, then instants.
 * Inline: a chunk's keys take each of its items' lane, 15M of them for
 * the dense shape's level 0 at 20M events, and the call was 3% of
 * closing it. */
static inline guint
strata_zoom_lane_of (const StrataActivity *activity)
{
  return strata_activity_is_instant (activity) ? 16 : MIN (strata_activity_get_depth (activity), 15);
}

/* The lane an item was aggregated in: a chunk holds a channel's lanes one
 * after the other, in this order, each in start order. */
static inline guint
strata_zoom_item_lane (const StrataZoomItem *item)
{
  StrataActivity a = { .kind = item->kind, .state = item->state, .flags = item->flags };

  return strata_zoom_lane_of (&a);
}

G_END_DECLS
