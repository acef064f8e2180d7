/* strata-zoom-chunk.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-zoom-chunk.h"

/* Lanes in the order the raw store answers: depths 0..15, then instants. */
guint
strata_zoom_lane_of (const StrataActivity *activity)
{
  return strata_activity_is_instant (activity) ? 16 : MIN (strata_activity_get_depth (activity), 15);
}

static int
by_lane_then_start (gconstpointer pa,
                    gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;
  guint la = strata_zoom_lane_of (a), lb = strata_zoom_lane_of (b);

  if (la != lb)
    return la < lb ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

/**
 * strata_zoom_compute_chunk:
 * @store: the raw store
 * @geometry: the tree's geometry
 * @level: a zoom level
 * @index: the chunk's index at that level
 * @channel: the channel
 * @out: (element-type StrataZoomItem): where the items are appended, lane
 *   by lane, each in time order
 */
void
strata_zoom_compute_chunk (StrataRawStore           *store,
                           const StrataZoomGeometry *geometry,
                           guint                     level,
                           gint64                    index,
                           guint32                   channel,
                           GArray                   *out)
{
  strata_zoom_compute_chunk_full (store, NULL, 0, geometry, level, index, channel, out);
}

/**
 * strata_zoom_compute_chunk_full:
 * @open: (array length=n_open) (nullable): activities of @channel that are
 *   still going on (a tree being built), each after every completed one of
 *   its lane, flagged CONTINUES_AFTER
 *
 * Like strata_zoom_compute_chunk(), over the raw store and @open.
 *
 * Returns: how many of the activities start inside the chunk
 */
guint
strata_zoom_compute_chunk_full (StrataRawStore           *store,
                                const StrataActivity     *open,
                                guint                     n_open,
                                const StrataZoomGeometry *geometry,
                                guint                     level,
                                gint64                    index,
                                guint32                   channel,
                                GArray                   *out)
{
  g_autoptr(GArray) activities = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  gint64 s = strata_zoom_geometry_chunk_start (geometry, level, index);
  gint64 e = s + strata_zoom_geometry_chunk_duration (geometry, level);
  StrataAggregateRun run;
  guint lane = G_MAXUINT;
  guint n_starts = 0;

  g_return_val_if_fail (store != NULL && geometry != NULL && out != NULL, 0);

  strata_raw_store_query (store, channel, s, e, activities);
  if (n_open > 0)
    {
      for (guint i = 0; i < n_open; i++)
        if (open[i].channel == channel && strata_activity_overlaps (&open[i], s, e))
          g_array_append_vals (activities, &open[i], 1);
      /* Stable: instants at one time keep the order they were recorded in. */
      g_array_sort (activities, by_lane_then_start);
    }

  strata_aggregate_run_init (&run, strata_zoom_geometry_pixel (geometry, level));

  for (guint i = 0; i < activities->len; i++)
    {
      StrataActivity a = g_array_index (activities, StrataActivity, i);

      /* The store answers lane by lane; a run never crosses lanes. */
      if (strata_zoom_lane_of (&a) != lane)
        {
          strata_aggregate_run_flush (&run, out);
          lane = strata_zoom_lane_of (&a);
        }

      n_starts += a.start >= s;
      strata_activity_clip (&a, s, e);
      strata_aggregate_run_offer (&run, &a, out);
    }

  strata_aggregate_run_flush (&run, out);
  strata_aggregate_run_clear (&run);

  return n_starts;
}
