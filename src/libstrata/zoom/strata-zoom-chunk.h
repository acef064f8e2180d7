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
guint strata_zoom_lane_of            (const StrataActivity     *activity);
guint strata_zoom_item_lane          (const StrataZoomItem     *item);

G_END_DECLS
