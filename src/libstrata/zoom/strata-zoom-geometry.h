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

/* One chunk is one screen. A viewport is drawn from the finest level whose
 * chunk is at least as long as the viewport, so it overlaps at most two
 * chunks; between two levels that level's pixel is up to F times finer
 * than the chunk's screen. With 8192 pixels per chunk, a 3840-pixel 4K
 * viewport gets at least one item per 2 of its pixels, and a 1920-pixel
 * one at least one per pixel. */
#define STRATA_ZOOM_DEFAULT_FACTOR            4
#define STRATA_ZOOM_DEFAULT_PIXELS_PER_CHUNK  8192
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
guint    strata_zoom_geometry_level_for_viewport (const StrataZoomGeometry *self,
                                                  gint64                    duration);
guint    strata_zoom_geometry_level_for_frame (const StrataZoomGeometry *self,
                                               gint64                    duration,
                                               guint                     width);

G_END_DECLS
