/* strata-zoom-chunk.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-zoom-chunk.h"

static guint
lane_key (const StrataActivity *a)
{
  return strata_activity_is_instant (a) ? G_MAXUINT : strata_activity_get_depth (a);
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
  g_autoptr(GArray) activities = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  gint64 s = strata_zoom_geometry_chunk_start (geometry, level, index);
  gint64 e = s + strata_zoom_geometry_chunk_duration (geometry, level);
  StrataAggregateRun run;
  guint lane = G_MAXUINT - 1;

  g_return_if_fail (store != NULL && geometry != NULL && out != NULL);

  strata_raw_store_query (store, channel, s, e, activities);
  strata_aggregate_run_init (&run, strata_zoom_geometry_pixel (geometry, level));

  for (guint i = 0; i < activities->len; i++)
    {
      StrataActivity a = g_array_index (activities, StrataActivity, i);

      /* The store answers lane by lane; a run never crosses lanes. */
      if (lane_key (&a) != lane)
        {
          strata_aggregate_run_flush (&run, out);
          lane = lane_key (&a);
        }

      /* A clipped piece says nothing of the start or end it cut off, so a
       * piece taken while the activity was still open is the same as one
       * cut from the completed activity. */
      if (a.start < s)
        {
          a.start = s;
          a.flags &= ~STRATA_ACTIVITY_FLAG_START_UNSEEN;
          a.flags |= STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE;
        }
      if (a.end > e)
        {
          a.end = e;
          a.flags &= ~(STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST);
          a.flags |= STRATA_ACTIVITY_FLAG_CONTINUES_AFTER;
        }

      strata_aggregate_run_offer (&run, &a, out);
    }

  strata_aggregate_run_flush (&run, out);
  strata_aggregate_run_clear (&run);
}
