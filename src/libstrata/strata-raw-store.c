/* strata-raw-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-raw-store.h"

/* Lanes of a channel: nesting depths 0..15, then the instants. */
#define N_DEPTHS      16
#define INSTANT_LANE  N_DEPTHS
#define N_LANES       (N_DEPTHS + 1)

/* Every FENCE_STEP-th activity of a lane, its start and end in a small
 * array of their own: a look-up searches the fences (a few cache lines)
 * and then one block of the lane, instead of jumping across a lane of
 * millions of activities. */
#define FENCE_STEP 64

typedef struct
{
  gint64 start;
  gint64 end;
} Fence;

typedef struct
{
  GArray *lanes[N_LANES];   /* StrataActivity, or NULL */
  GArray *fences[N_LANES];  /* Fence per FENCE_STEP activities */
} Channel;

struct _StrataRawStore
{
  GArray  *channels;       /* Channel, indexed by channel */
  guint64  size;
};

StrataRawStore *
strata_raw_store_new (void)
{
  StrataRawStore *self = g_new0 (StrataRawStore, 1);

  self->channels = g_array_new (FALSE, TRUE, sizeof (Channel));

  return self;
}

void
strata_raw_store_free (StrataRawStore *self)
{
  if (self == NULL)
    return;

  for (guint i = 0; i < self->channels->len; i++)
    {
      Channel *ch = &g_array_index (self->channels, Channel, i);

      for (guint l = 0; l < N_LANES; l++)
        {
          g_clear_pointer (&ch->lanes[l], g_array_unref);
          g_clear_pointer (&ch->fences[l], g_array_unref);
        }
    }
  g_array_unref (self->channels);
  g_free (self);
}

static guint
lane_of (const StrataActivity *a)
{
  if (strata_activity_is_instant (a))
    return INSTANT_LANE;
  return MIN (strata_activity_get_depth (a), N_DEPTHS - 1);
}

/* The first activity of @lane that ends after @t, or has no length and is
 * at @t (for an instant lane: the first at or after @t). Ends are in order
 * because a lane's activities do not overlap, so the test is monotonic. */
static inline gboolean
before_time (gint64   start,
             gint64   end,
             gint64   t,
             gboolean instants)
{
  return instants ? start < t : (end < t || (end == t && start < t));
}

static guint
lower_bound (GArray   *lane,
             GArray   *fences,
             gint64    t,
             gboolean  instants)
{
  guint lo = 0, hi = lane->len;

  /* The block: the last fence before t starts it, the next one ends it. */
  if (fences != NULL && fences->len > 1)
    {
      guint flo = 0, fhi = fences->len;

      while (flo < fhi)
        {
          guint mid = flo + (fhi - flo) / 2;
          const Fence *f = &g_array_index (fences, Fence, mid);

          if (before_time (f->start, f->end, t, instants))
            flo = mid + 1;
          else
            fhi = mid;
        }
      lo = flo > 0 ? (flo - 1) * FENCE_STEP : 0;
      hi = MIN (lane->len, (gsize) flo * FENCE_STEP + 1);
    }

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const StrataActivity *a = &g_array_index (lane, StrataActivity, mid);

      if (before_time (a->start, a->end, t, instants))
        lo = mid + 1;
      else
        hi = mid;
    }

  return lo;
}

static void
rebuild_fences (GArray *lane,
                GArray *fences)
{
  g_array_set_size (fences, 0);
  for (guint i = 0; i < lane->len; i += FENCE_STEP)
    {
      const StrataActivity *a = &g_array_index (lane, StrataActivity, i);
      Fence f = { a->start, a->end };

      g_array_append_val (fences, f);
    }
}

/**
 * strata_raw_store_add:
 * @activity: a complete activity
 * @store: a #StrataRawStore
 *
 * A #StrataActivityFunc, so the store can be the kernel model's sink. The
 * model completes a lane's activities in start order; one that comes late
 * is put in its place.
 */
void
strata_raw_store_add (const StrataActivity *activity,
                      gpointer              store)
{
  StrataRawStore *self = store;
  guint l = lane_of (activity);
  Channel *ch;
  GArray *lane;

  if (activity->channel >= self->channels->len)
    g_array_set_size (self->channels, activity->channel + 1);
  ch = &g_array_index (self->channels, Channel, activity->channel);

  if (ch->lanes[l] == NULL)
    {
      ch->lanes[l] = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      ch->fences[l] = g_array_new (FALSE, FALSE, sizeof (Fence));
    }
  lane = ch->lanes[l];

  if (lane->len == 0 ||
      g_array_index (lane, StrataActivity, lane->len - 1).start <= activity->start)
    {
      if (lane->len % FENCE_STEP == 0)
        {
          Fence f = { activity->start, activity->end };

          g_array_append_val (ch->fences[l], f);
        }
      g_array_append_vals (lane, activity, 1);
    }
  else
    {
      guint lo = 0, hi = lane->len;

      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (g_array_index (lane, StrataActivity, mid).start <= activity->start)
            lo = mid + 1;
          else
            hi = mid;
        }
      g_array_insert_vals (lane, lo, activity, 1);
      rebuild_fences (lane, ch->fences[l]);
    }

  self->size++;
}

guint64
strata_raw_store_get_size (StrataRawStore *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->size;
}

/**
 * strata_raw_store_get_lane:
 * @lane: 0..15 for a nesting depth, 16 for the instants
 * @first: (out): the index of the lane's first activity that can overlap
 *   [@t0, @t1)
 * @end: (out): one past the last one that starts before @t1
 *
 * A lane in place, with no copy, for walking it: the activities from
 * @first to @end are those overlapping [@t0, @t1) (with
 * strata_activity_overlaps() to settle the ends), and the ones before
 * @first are the lane's earlier ones. The array stays valid until the next
 * activity is added.
 *
 * Returns: (nullable): the lane's activities, or %NULL if it has none
 */
const StrataActivity *
strata_raw_store_get_lane (StrataRawStore *self,
                           guint32         channel,
                           guint           lane,
                           gint64          t0,
                           gint64          t1,
                           guint          *first,
                           guint          *end)
{
  GArray *array;
  guint i;

  g_return_val_if_fail (self != NULL && first != NULL && end != NULL && lane < N_LANES, NULL);

  *first = *end = 0;
  if (channel >= self->channels->len)
    return NULL;
  array = g_array_index (self->channels, Channel, channel).lanes[lane];
  if (array == NULL || array->len == 0)
    return NULL;

  *first = lower_bound (array, g_array_index (self->channels, Channel, channel).fences[lane],
                        t0, lane == INSTANT_LANE);
  for (i = *first; i < array->len && g_array_index (array, StrataActivity, i).start < t1; i++)
    ;
  *end = i;

  return (const StrataActivity *)(gpointer) array->data;
}

/* One more than the highest channel that has an activity. */
guint
strata_raw_store_get_n_channels (StrataRawStore *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->channels->len;
}

/**
 * strata_raw_store_query:
 * @channel: a channel
 * @t0: the start of the range
 * @t1: its end (excluded)
 * @out: (element-type StrataActivity): where the activities are appended
 *
 * Appends the channel's activities that overlap [@t0, @t1): intervals with
 * start < @t1 and end > @t0, instants with @t0 <= start < @t1; lane by
 * lane, each in start order. The cost is a binary search per lane plus the
 * activities returned.
 */
void
strata_raw_store_query (StrataRawStore *self,
                        guint32         channel,
                        gint64          t0,
                        gint64          t1,
                        GArray         *out)
{
  Channel *ch;

  g_return_if_fail (self != NULL);

  if (channel >= self->channels->len || t1 <= t0)
    return;
  ch = &g_array_index (self->channels, Channel, channel);

  for (guint l = 0; l < N_LANES; l++)
    {
      GArray *lane = ch->lanes[l];
      gboolean instants = l == INSTANT_LANE;

      if (lane == NULL)
        continue;

      for (guint i = lower_bound (lane, ch->fences[l], t0, instants); i < lane->len; i++)
        {
          const StrataActivity *a = &g_array_index (lane, StrataActivity, i);

          if (a->start >= t1)
            break;
          if (instants || strata_activity_overlaps (a, t0, t1))
            g_array_append_vals (out, a, 1);
        }
    }
}
