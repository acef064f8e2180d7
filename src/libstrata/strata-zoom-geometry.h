/* strata-zoom-geometry.h
 *
 * The shape of a zoom tree (the seed's "event aggregation criteria"): the
 * zoom factor F between levels, the pixels W of one chunk (one screen), and
 * the levels from one chunk holding the whole trace down to 1 ns per pixel.
 * Chunk durations are powers of two of nanoseconds aligned to absolute
 * time, so a chunk's key, (level's duration, start / duration), is the same
 * in every run. The triviality threshold of a level is one of its pixels.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define STRATA_ZOOM_DEFAULT_FACTOR            4
/* One chunk is one screen: 4096 pixels covers a 3840-pixel 4K viewport, so
 * a viewport at a level's own scale overlaps at most two chunks. */
#define STRATA_ZOOM_DEFAULT_PIXELS_PER_CHUNK  4096
#define STRATA_ZOOM_DEFAULT_DENSITY           1000

typedef struct
{
  guint factor_log2;        /* F = 2^factor_log2 */
  guint pixels_log2;        /* W = 2^pixels_log2 pixels per chunk */
  guint root_log2;          /* level 0's chunk lasts 2^root_log2 ns */
  guint n_levels;           /* level n_levels - 1 has 1 ns per pixel */
  guint density_threshold;  /* T: a chunk is dense with at least T activities */
} StrataZoomGeometry;

gboolean strata_zoom_geometry_init           (StrataZoomGeometry       *self,
                                              gint64                    start,
                                              gint64                    end,
                                              guint                     zoom_factor,
                                              guint                     pixels_per_chunk,
                                              guint                     density_threshold,
                                              GError                  **error);
gint64   strata_zoom_geometry_chunk_duration (const StrataZoomGeometry *self,
                                              guint                     level);
gint64   strata_zoom_geometry_pixel          (const StrataZoomGeometry *self,
                                              guint                     level);
gint64   strata_zoom_geometry_chunk_index    (const StrataZoomGeometry *self,
                                              guint                     level,
                                              gint64                    t);
gint64   strata_zoom_geometry_chunk_start    (const StrataZoomGeometry *self,
                                              guint                     level,
                                              gint64                    index);
guint    strata_zoom_geometry_level_for_pixel (const StrataZoomGeometry *self,
                                               gint64                    ns_per_pixel);

G_END_DECLS
