/* strata-zoom-chunk.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-raw-store-private.h"
#include "strata-zoom-chunk.h"

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

/* strata_zoom_compute_chunk_full() over the raw store alone: each lane is
 * walked once, block by block through strata_raw_lane_get() (a spilled or
 * mapped lane is decoded one block at a time, never copied whole), and
 * the items go to a vector that grows with them, then into @out. The
 * chunks the build computes at the end (a level's first one, the whole
 * trace at level 0) used to have every lane in range decoded twice, once
 * to size the output by its activities and once to walk it, and a copy
 * of each lane as big as its part of the trace. */
static guint
compute_chunk_in_place (StrataRawStore *store,
                        gint64          s,
                        gint64          e,
                        gint64          pixel,
                        guint32         channel,
                        GArray         *out)
{
  StrataRawLane lane;
  StrataAggregateRun run;
  StrataZoomItemVec vec = { NULL, 0, 0 };
  guint n_starts = 0;

  strata_aggregate_run_init (&run, pixel);
  for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
    {
      const StrataActivity *p;
      guint first, end;

      /* A lane that begins after the chunk costs no block read; asked for
       * [s, s), the look-up finds the first activity that can overlap the
       * chunk without walking on to the chunk's end. */
      if (!strata_raw_store_lane_begins_before (store, channel, l, e) ||
          !strata_raw_store_open_lane (store, channel, l, s, s, &lane, &first, &end))
        continue;
      for (guint k = first; (p = strata_raw_lane_get (&lane, k)) != NULL && p->start < e; k++)
        {
          StrataActivity a = *p;

          if (!strata_activity_overlaps (&a, s, e))
            continue;
          n_starts += a.start >= s;
          strata_activity_clip (&a, s, e);
          strata_aggregate_run_offer_vec (&run, &a, &vec);
        }
      /* A run never crosses lanes. */
      strata_aggregate_run_flush_vec (&run, &vec);
    }
  strata_aggregate_run_clear (&run);

  if (vec.len > 0)
    g_array_append_vals (out, vec.items, vec.len);
  strata_zoom_item_vec_clear (&vec);

  return n_starts;
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

  if (n_open == 0)
    return compute_chunk_in_place (store, s, e, strata_zoom_geometry_pixel (geometry, level),
                                   channel, out);

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

/* Where the aggregation of a lane can start afresh at or before activity
 * @k (clipped to [s, e)): at the chunk's first activity (the one before
 * does not reach into the chunk; a lane's activities are in order), after a
 * non-trivial one, at a non-trivial one, or where a trivial one could not
 * join the run of the one before it (from that one's start to its end is
 * more than a pixel). */
static guint
reset_point (StrataRawLane *lane,
             guint          k,
             gint64         s,
             gint64         e,
             gint64         pixel)
{
  const StrataActivity *p;

  /* Walking back leaves the part of the lane that the look-up read: a
   * block found damaged stops it. */
  while (k > 0 && (p = strata_raw_lane_get (lane, k - 1)) != NULL && strata_activity_overlaps (p, s, e))
    {
      StrataActivity before = *p, a;

      if ((p = strata_raw_lane_get (lane, k)) == NULL)
        break;
      a = *p;
      strata_activity_clip (&a, s, e);
      strata_activity_clip (&before, s, e);
      if (a.end - a.start >= pixel || before.end - before.start >= pixel ||
          a.end - before.start > pixel)
        break;
      k--;
    }

  return k;
}

/* The open activities of @channel in lane @l that belong in a window's
 * walk of it, from @from on: they overlap the chunk, and start at @w1 or
 * before (one starting later cannot join a run overlapping the window: it
 * starts more than a pixel after the window). */
static const StrataActivity *
next_open (const StrataActivity *open,
           guint                 n_open,
           guint                *from,
           guint32               channel,
           guint                 l,
           gint64                s,
           gint64                e,
           gint64                w1)
{
  for (; *from < n_open; (*from)++)
    {
      const StrataActivity *o = &open[*from];

      if (o->channel == channel && strata_zoom_lane_of (o) == l && o->start <= w1 &&
          strata_activity_overlaps (o, s, e))
        return &open[(*from)++];
    }
  return NULL;
}

/* strata_zoom_compute_window() for a channel of a growing tree that has
 * activities still going on: each lane is walked over the window as for
 * a finished one, and its open activities are offered where the whole
 * chunk's computation (strata_zoom_compute_chunk_full(), which sorts them
 * in by start after the completed ones) puts them. An open activity
 * starts after every completed one of its lane, so one that starts at
 * @w1 or before comes after the window's part of the lane, all of it.
 * The whole open chunk was computed (its lanes decoded, gathered and
 * sorted) for each channel with an open activity, which is nearly every
 * channel: the frames of a growing trace cost several times a finished
 * one's. */
static void
compute_open_window (StrataRawStore       *store,
                     const StrataActivity *open,
                     guint                 n_open,
                     gint64                s,
                     gint64                e,
                     gint64                pixel,
                     gint64                w0,
                     gint64                w1,
                     guint32               channel,
                     GArray               *out)
{
  StrataAggregateRun run;

  strata_aggregate_run_init (&run, pixel);

  for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
    {
      guint from = 0, first = 0, end = 0;
      const StrataActivity *o = next_open (open, n_open, &from, channel, l, s, e, w1);
      StrataRawLane lane;
      gboolean has_lane;

      has_lane = strata_raw_store_open_lane (store, channel, l, w0, w1, &lane, &first, &end) &&
                 first < end;
      if (!has_lane && o == NULL)
        continue;

      if (has_lane)
        for (guint k = reset_point (&lane, first, s, e, pixel); k < end; k++)
          {
            const StrataActivity *p = strata_raw_lane_get (&lane, k);
            StrataActivity a;

            if (p == NULL)
              break;
            a = *p;
            if (!strata_activity_overlaps (&a, s, e))
              continue;
            /* In start order, a completed one first at a tie (a stable
             * sort of the completed ones, then the open ones). */
            for (; o != NULL && o->start < a.start;
                 o = next_open (open, n_open, &from, channel, l, s, e, w1))
              {
                StrataActivity b = *o;

                strata_activity_clip (&b, s, e);
                strata_aggregate_run_offer (&run, &b, out);
              }
            strata_activity_clip (&a, s, e);
            strata_aggregate_run_offer (&run, &a, out);
          }
      for (; o != NULL; o = next_open (open, n_open, &from, channel, l, s, e, w1))
        {
          StrataActivity b = *o;

          strata_activity_clip (&b, s, e);
          strata_aggregate_run_offer (&run, &b, out);
        }
      strata_aggregate_run_flush (&run, out);
    }

  strata_aggregate_run_clear (&run);
}

/**
 * strata_zoom_compute_window:
 * @from: the start of the part of the chunk wanted
 * @to: its end
 *
 * Like strata_zoom_compute_chunk_full(), but only as much of the chunk as
 * the items overlapping [@from, @to) need: each lane is aggregated from
 * the last point before the window where a run starts afresh, so the
 * items are the chunk's own, and a query one screen wide does not pay for
 * the rest of a chunk up to F times wider. Items before or after the
 * window may come too.
 */
void
strata_zoom_compute_window (StrataRawStore           *store,
                            const StrataActivity     *open,
                            guint                     n_open,
                            const StrataZoomGeometry *geometry,
                            guint                     level,
                            gint64                    index,
                            guint32                   channel,
                            gint64                    from,
                            gint64                    to,
                            GArray                   *out)
{
  gint64 s = strata_zoom_geometry_chunk_start (geometry, level, index);
  gint64 e = s + strata_zoom_geometry_chunk_duration (geometry, level);
  gint64 pixel = strata_zoom_geometry_pixel (geometry, level);
  /* Every member of an aggregate overlapping the window lies within a
   * pixel of it. */
  gint64 w0 = MAX (s, from - pixel), w1 = MIN (e, to + pixel);
  StrataAggregateRun run;

  g_return_if_fail (store != NULL && geometry != NULL && out != NULL);

  if (w1 <= w0)
    return;

  for (guint i = 0; i < n_open; i++)
    if (open[i].channel == channel)
      {
        compute_open_window (store, open, n_open, s, e, pixel, w0, w1, channel, out);
        return;
      }

  strata_aggregate_run_init (&run, pixel);

  for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
    {
      const StrataActivity *p;
      guint first, end;
      StrataRawLane lane;

      /* Only the window's first activity is looked up: the walk below
       * stops at the first one starting at w1 or later, so the lane's
       * blocks in the window are read once, not once to find where the
       * window ends and again to aggregate. */
      if (!strata_raw_store_open_lane (store, channel, l, w0, w0, &lane, &first, &end) ||
          (p = strata_raw_lane_get (&lane, first)) == NULL || p->start >= w1)
        continue;

      for (guint k = reset_point (&lane, first, s, e, pixel); (p = strata_raw_lane_get (&lane, k)) != NULL; k++)
        {
          StrataActivity a;

          if (p->start >= w1)
            break;
          a = *p;
          if (!strata_activity_overlaps (&a, s, e))
            continue;
          strata_activity_clip (&a, s, e);
          strata_aggregate_run_offer (&run, &a, out);
        }
      strata_aggregate_run_flush (&run, out);
    }

  strata_aggregate_run_clear (&run);
}

/* Lane @l of strata_zoom_compute_window_settled(): the items @settled
 * kept of the lane in this chunk, from the first that reaches the window,
 * if the aggregation the window needs starts afresh among their
 * activities; then the lane aggregated on from where they end (else
 * from where the window's aggregation starts afresh, as without them),
 * its open activities last. What the walk finds settled (items made of
 * completed activities only, up to a point where the aggregation starts
 * afresh) is kept for the next query. */
static void
settled_window_lane (StrataRawStore       *store,
                     StrataZoomSettled    *settled,
                     const StrataActivity *open,
                     guint                 n_open,
                     gint64                s,
                     gint64                e,
                     gint64                pixel,
                     gint64                w0,
                     gint64                w1,
                     guint32               channel,
                     guint                 l,
                     StrataAggregateRun   *run,
                     GArray               *out)
{
  guint from = 0, first = 0, end = 0, k = 0, settled_to;
  const StrataActivity *o = next_open (open, n_open, &from, channel, l, s, e, w1);
  const StrataActivity *p = NULL;
  StrataZoomSettledLane *kept = NULL;
  gboolean has_lane, opened = FALSE;
  StrataRawLane lane;

  has_lane = strata_raw_store_open_lane (store, channel, l, w0, w0, &lane, &first, &end) &&
             (p = strata_raw_lane_get (&lane, first)) != NULL && p->start < w1;
  if (!has_lane && o == NULL)
    return;

  if (has_lane)
    {
      const StrataActivity *at;

      k = reset_point (&lane, first, s, e, pixel);
      kept = strata_zoom_settled_lookup (settled, channel, l, s, e - s);
      /* The kept items cover the activities before k_next; the lane is
       * read on from there if that activity is the one they ended at. */
      if (kept != NULL && kept->k_first <= k && k <= kept->k_next &&
          (at = strata_raw_lane_get (&lane, kept->k_next)) != NULL &&
          memcmp (at, &kept->next, sizeof *at) == 0)
        {
          guint lo = 0, hi = kept->n_items;

          /* Those ending before the window are not in view (a lane's
           * items follow each other). */
          while (lo < hi)
            {
              guint mid = lo + (hi - lo) / 2;

              if (kept->items[mid].end >= w0)
                hi = mid;
              else
                lo = mid + 1;
            }
          if (lo < kept->n_items)
            g_array_append_vals (out, &kept->items[lo], kept->n_items - lo);
          strata_zoom_settled_found (settled);
          k = kept->k_next;
        }
      else if ((at = strata_raw_lane_get (&lane, k)) != NULL)
        kept = strata_zoom_settled_restart (settled, channel, l, s, e - s, k, at);
      else
        kept = NULL;
    }

  settled_to = out->len;
  for (; has_lane && (p = strata_raw_lane_get (&lane, k)) != NULL && p->start < w1; k++)
    {
      StrataActivity raw = *p, a = *p;
      gboolean was_open;
      guint len;

      if (!strata_activity_overlaps (&a, s, e))
        continue;
      /* In start order, a completed one first at a tie. */
      for (; o != NULL && o->start < a.start; o = next_open (open, n_open, &from, channel, l, s, e, w1))
        {
          StrataActivity b = *o;

          strata_activity_clip (&b, s, e);
          strata_aggregate_run_offer (run, &b, out);
          opened = TRUE;
        }
      strata_activity_clip (&a, s, e);
      len = out->len;
      was_open = run->open;
      strata_aggregate_run_offer (run, &a, out);
      /* @a begins a run of its own (none was open, or it closed the one
       * that was: its item came first), as it would in a run started
       * afresh at @a: the items before are settled, none of them made of
       * an open activity, and those from @a on depend on nothing before
       * it. */
      if ((!was_open || out->len > len) && kept != NULL && !opened && k > kept->k_next)
        {
          guint to = len + (was_open ? 1 : 0);

          strata_zoom_settled_extend (settled, kept, &g_array_index (out, StrataZoomItem, settled_to),
                                      to - settled_to, k, &raw);
          settled_to = to;
        }
    }
  for (; o != NULL; o = next_open (open, n_open, &from, channel, l, s, e, w1))
    {
      StrataActivity b = *o;

      strata_activity_clip (&b, s, e);
      strata_aggregate_run_offer (run, &b, out);
    }
  strata_aggregate_run_flush (run, out);
}

/**
 * strata_zoom_compute_window_settled:
 * @settled: (nullable): the settled items one reader keeps between its
 *   queries of a growing tree
 *
 * strata_zoom_compute_window(), taking what @settled holds of the
 * channel's lanes in this chunk instead of aggregating it again, and
 * keeping there what it finds settled. The items that overlap [@from,
 * @to) are the same.
 */
void
strata_zoom_compute_window_settled (StrataRawStore           *store,
                                    const StrataActivity     *open,
                                    guint                     n_open,
                                    const StrataZoomGeometry *geometry,
                                    guint                     level,
                                    gint64                    index,
                                    guint32                   channel,
                                    gint64                    from,
                                    gint64                    to,
                                    StrataZoomSettled        *settled,
                                    GArray                   *out)
{
  gint64 s = strata_zoom_geometry_chunk_start (geometry, level, index);
  gint64 e = s + strata_zoom_geometry_chunk_duration (geometry, level);
  gint64 pixel = strata_zoom_geometry_pixel (geometry, level);
  gint64 w0 = MAX (s, from - pixel), w1 = MIN (e, to + pixel);
  StrataAggregateRun run;

  g_return_if_fail (store != NULL && geometry != NULL && out != NULL);

  if (settled == NULL)
    {
      strata_zoom_compute_window (store, open, n_open, geometry, level, index, channel, from, to, out);
      return;
    }
  if (w1 <= w0)
    return;

  strata_aggregate_run_init (&run, pixel);
  for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
    settled_window_lane (store, settled, open, n_open, s, e, pixel, w0, w1, channel, l, &run, out);
  strata_aggregate_run_clear (&run);
}
