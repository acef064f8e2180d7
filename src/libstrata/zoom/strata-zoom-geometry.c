/* strata-zoom-geometry.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-error.h"
#include "strata-zoom-geometry.h"

static gboolean
is_power_of_two (guint x)
{
  return x != 0 && (x & (x - 1)) == 0;
}

static guint
log2_of (guint x)
{
  return g_bit_nth_msf (x, -1);
}

/**
 * strata_zoom_geometry_init:
 * @start: the trace's first time, in ns (not negative)
 * @end: its last time
 * @zoom_factor: F, a power of two (the seed's examples use 4)
 * @pixels_per_chunk: W, a power of two
 * @density_threshold: T, at least 1
 *
 * Level 0 is the first level whose one aligned chunk holds [@start, @end];
 * each next level divides a chunk into F; the last has W-ns chunks, 1 ns
 * per pixel.
 */
gboolean
strata_zoom_geometry_init (StrataZoomGeometry  *self,
                           gint64               start,
                           gint64               end,
                           guint                zoom_factor,
                           guint                pixels_per_chunk,
                           guint                density_threshold,
                           GError             **error)
{
  guint root;

  g_return_val_if_fail (self != NULL, FALSE);

  if (!is_power_of_two (zoom_factor) || zoom_factor < 2)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_FAILED,
                   "zoom factor %u: must be a power of two, at least 2 "
                   "(chunks are powers of two of nanoseconds)", zoom_factor);
      return FALSE;
    }
  if (!is_power_of_two (pixels_per_chunk) || pixels_per_chunk > (1u << 24))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_FAILED,
                   "pixels per chunk %u: must be a power of two, at most 2^24",
                   pixels_per_chunk);
      return FALSE;
    }
  if (density_threshold == 0)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_FAILED,
                   "density threshold must be at least 1");
      return FALSE;
    }
  if (start < 0 || end < start)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_FAILED,
                   "time span %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT " is not valid",
                   start, end);
      return FALSE;
    }

  self->factor_log2 = log2_of (zoom_factor);
  self->pixels_log2 = log2_of (pixels_per_chunk);
  self->density_threshold = density_threshold;

  /* The finest level has W-ns chunks; go up by F until one chunk holds
   * the whole span. */
  root = self->pixels_log2;
  while (root < 62 && (start >> root) != (end >> root))
    root += self->factor_log2;

  self->root_log2 = root;
  self->n_levels = (root - self->pixels_log2) / self->factor_log2 + 1;

  return TRUE;
}

gint64
strata_zoom_geometry_chunk_duration (const StrataZoomGeometry *self,
                                     guint                     level)
{
  g_return_val_if_fail (level < self->n_levels, 0);

  return G_GINT64_CONSTANT (1) << (self->root_log2 - level * self->factor_log2);
}

/* The level's triviality threshold: one pixel of its chunk, at least 1 ns. */
gint64
strata_zoom_geometry_pixel (const StrataZoomGeometry *self,
                            guint                     level)
{
  return MAX (strata_zoom_geometry_chunk_duration (self, level) >> self->pixels_log2, 1);
}

gint64
strata_zoom_geometry_chunk_index (const StrataZoomGeometry *self,
                                  guint                     level,
                                  gint64                    t)
{
  g_return_val_if_fail (level < self->n_levels, 0);

  return t >> (self->root_log2 - level * self->factor_log2);
}

gint64
strata_zoom_geometry_chunk_start (const StrataZoomGeometry *self,
                                  guint                     level,
                                  gint64                    index)
{
  g_return_val_if_fail (level < self->n_levels, 0);

  return index << (self->root_log2 - level * self->factor_log2);
}

/* The coarsest level whose pixel is no longer than @ns_per_pixel: the
 * level that draws a viewport at that scale with enough detail. */
guint
strata_zoom_geometry_level_for_pixel (const StrataZoomGeometry *self,
                                      gint64                    ns_per_pixel)
{
  for (guint level = 0; level < self->n_levels; level++)
    if (strata_zoom_geometry_pixel (self, level) <= ns_per_pixel)
      return level;

  return self->n_levels - 1;
}

/* The finest level whose chunk is at least @duration long: a viewport that
 * long overlaps at most two of its chunks (the seed's display request). */
guint
strata_zoom_geometry_level_for_viewport (const StrataZoomGeometry *self,
                                         gint64                    duration)
{
  guint level = 0;

  while (level + 1 < self->n_levels &&
         strata_zoom_geometry_chunk_duration (self, level + 1) >= duration)
    level++;

  return level;
}

/* The level a frame of @duration ns over @width pixels is painted from:
 * the finest one whose pixel is at least the screen's, so a row gets at
 * most about two items per screen pixel (an activity at least a level
 * pixel long, or an aggregate of the shorter ones between two of those)
 * whatever the trace's size; the level below, whose pixel is no longer
 * than the screen's, would give up to 2F. An activity at least one level
 * pixel long (at most F screen pixels) is still drawn exactly; shorter
 * ones are aggregates whose busy time is spread over the aggregate's span,
 * up to F screen columns. The viewport, no longer than the level's chunk,
 * overlaps at most two of its chunks. Where no level is that coarse (a
 * whole-trace view, level 0), the coarsest. */
guint
strata_zoom_geometry_level_for_frame (const StrataZoomGeometry *self,
                                      gint64                    duration,
                                      guint                     width)
{
  gint64 ns_per_pixel;
  guint by_pixel, by_viewport;

  if (width == 0 || duration <= 0)
    return strata_zoom_geometry_level_for_viewport (self, MAX (duration, 1));

  ns_per_pixel = MAX (duration / (gint64) width, 1);
  by_pixel = strata_zoom_geometry_level_for_pixel (self, ns_per_pixel);
  if (by_pixel > 0 && strata_zoom_geometry_pixel (self, by_pixel) < ns_per_pixel)
    by_pixel--;
  by_viewport = strata_zoom_geometry_level_for_viewport (self, duration);

  return MIN (by_pixel, by_viewport);
}
