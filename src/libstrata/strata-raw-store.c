/* strata-raw-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-error.h"
#include "strata-index-private.h"
#include "strata-raw-store.h"

/* Lanes of a channel: nesting depths 0..15, then the instants. */
#define N_DEPTHS      16
#define INSTANT_LANE  N_DEPTHS
#define N_LANES       (N_DEPTHS + 1)

/* Every FENCE_STEP-th activity of a lane, its start and end in a small
 * array of their own: a look-up searches the fences (a few cache lines)
 * and then one block of the lane, instead of jumping across a lane of
 * millions of activities. */
#define FENCE_STEP STRATA_RAW_STORE_FENCE_STEP

typedef StrataRawStoreFence Fence;

typedef struct
{
  GArray *lanes[N_LANES];   /* StrataActivity, or NULL */
  GArray *fences[N_LANES];  /* Fence per FENCE_STEP activities */
} Channel;

/* A lane of a store mapped from an index: its activities packed, its
 * fences checked block by block as they are read. */
typedef struct
{
  StrataPackedArray  acts;
  StrataCheckedArray fences;
  gboolean           bad;
} MappedLane;

G_STATIC_ASSERT (STRATA_RAW_STORE_BLOCK == STRATA_INDEX_ACTIVITY_BLOCK);
G_STATIC_ASSERT (STRATA_RAW_STORE_BLOCK * sizeof (StrataActivity) <= STRATA_INDEX_MAX_BLOCK_BYTES);

/* A lane as the look-ups see it, in memory or mapped. */
typedef StrataRawLane LaneView;

struct _StrataRawStore
{
  GArray  *channels;       /* Channel, indexed by channel */
  guint64  size;

  /* Mapped from an index instead. */
  StrataIndexMap      *map;
  guint32              n_mapped;   /* channels */
  StrataCheckedArray   dir;        /* StrataIndexLane, channel * N_LANES + lane */
  MappedLane         **mapped;     /* created on first use */

  /* strata_raw_store_get_lane() on a mapped store: per thread, the last
   * range it decoded (LentRange). */
  GMutex               lent_lock;
  GArray              *lent;
};

typedef struct
{
  GThread        *thread;
  StrataActivity *acts;
  gsize           n;
} LentRange;

StrataRawStore *
strata_raw_store_new (void)
{
  StrataRawStore *self = g_new0 (StrataRawStore, 1);

  self->channels = g_array_new (FALSE, TRUE, sizeof (Channel));
  g_mutex_init (&self->lent_lock);
  self->lent = g_array_new (FALSE, TRUE, sizeof (LentRange));

  return self;
}

void
strata_raw_store_free (StrataRawStore *self)
{
  if (self == NULL)
    return;

  if (self->map != NULL)
    {
      for (guint64 i = 0; i < (guint64) self->n_mapped * N_LANES; i++)
        if (self->mapped[i] != NULL)
          {
            strata_packed_array_clear (&self->mapped[i]->acts);
            strata_checked_array_clear (&self->mapped[i]->fences);
            g_free (self->mapped[i]);
          }
      g_free (self->mapped);
      strata_checked_array_clear (&self->dir);
      strata_index_map_unref (self->map);
    }

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
  for (guint i = 0; i < self->lent->len; i++)
    g_free (g_array_index (self->lent, LentRange, i).acts);
  g_array_unref (self->lent);
  g_mutex_clear (&self->lent_lock);
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

static MappedLane *
mapped_lane (StrataRawStore *self,
             guint32         channel,
             guint           l)
{
  guint64 i = (guint64) channel * N_LANES + l;
  MappedLane *lane = g_atomic_pointer_get (&self->mapped[i]);
  const StrataIndexLane *rec;
  MappedLane *fresh;

  if (lane != NULL)
    return lane;

  if (!strata_checked_array_check (&self->dir, i, i + 1))
    return NULL;
  rec = (const StrataIndexLane *)(gconstpointer)(self->dir.data + i * sizeof (StrataIndexLane));

  fresh = g_new0 (MappedLane, 1);
  if (rec->n > 0 &&
      (rec->n_fences != (rec->n + FENCE_STEP - 1) / FENCE_STEP ||
       !strata_packed_array_init (&fresh->acts, self->map, rec->offset, rec->sums_offset, rec->n,
                                  sizeof (StrataActivity), STRATA_INDEX_ACTIVITY_BLOCK, "raw store") ||
       !strata_checked_array_init (&fresh->fences, self->map, rec->fences_offset, rec->fence_sums_offset,
                                   rec->n_fences, sizeof (Fence), STRATA_INDEX_FENCE_BLOCK, "raw store fences")))
    {
      fresh->bad = TRUE;
      strata_index_map_note_damage (self->map, "raw store: lane %u of channel %u is out of bounds", l, channel);
    }

  if (!g_atomic_pointer_compare_and_exchange (&self->mapped[i], NULL, fresh))
    {
      strata_packed_array_clear (&fresh->acts);
      strata_checked_array_clear (&fresh->fences);
      g_free (fresh);
    }
  return g_atomic_pointer_get (&self->mapped[i]);
}

/* The lane @l of @channel, or FALSE when it has none (or is damaged).
 * Only the fields are set, not the block buffer. */
static gboolean
lane_view (StrataRawStore *self,
           guint32         channel,
           guint           l,
           LaneView       *v)
{
  v->acts = NULL;
  v->n = 0;
  v->fences = NULL;
  v->n_fences = 0;
  v->packed = NULL;
  v->fences_check = NULL;
  v->block = G_MAXUINT64;
  v->block_n = 0;

  if (self->map != NULL)
    {
      MappedLane *lane;

      if (channel >= self->n_mapped || (lane = mapped_lane (self, channel, l)) == NULL ||
          lane->bad || lane->acts.n == 0)
        return FALSE;
      v->n = (guint) lane->acts.n;
      v->fences = lane->fences.data;
      v->n_fences = (guint) lane->fences.n;
      v->packed = &lane->acts;
      v->fences_check = &lane->fences;
      return TRUE;
    }

  if (channel >= self->channels->len)
    return FALSE;
  {
    Channel *ch = &g_array_index (self->channels, Channel, channel);

    if (ch->lanes[l] == NULL || ch->lanes[l]->len == 0)
      return FALSE;
    v->acts = (const StrataActivity *)(gconstpointer) ch->lanes[l]->data;
    v->n = ch->lanes[l]->len;
    v->fences = ch->fences[l]->data;
    v->n_fences = ch->fences[l]->len;
  }
  return TRUE;
}

/* Activity @i of the lane, or NULL when it is past the end or in a block
 * found damaged. A packed lane's block is decoded into the view's buffer. */
static inline const StrataActivity *
lane_get (LaneView *v,
          guint     i)
{
  guint64 b;
  guint off;

  if (i >= v->n)
    return NULL;
  if (v->packed == NULL)
    return &v->acts[i];

  b = i / STRATA_RAW_STORE_BLOCK;
  if (b != v->block)
    {
      v->block_n = strata_packed_array_read_block (v->packed, b, v->buf);
      v->block = b;
    }
  off = (guint) (i - b * STRATA_RAW_STORE_BLOCK);
  return off < v->block_n ? &v->buf[off] : NULL;
}

/* G_MAXUINT when the lane was found damaged. */
static guint
lower_bound (LaneView *v,
             gint64    t,
             gboolean  instants)
{
  const Fence *fences = v->fences;
  guint lo = 0, hi = v->n;

  /* The block: the last fence before t starts it, the next one ends it. */
  if (v->n_fences > 1)
    {
      guint flo = 0, fhi = v->n_fences;

      while (flo < fhi)
        {
          guint mid = flo + (fhi - flo) / 2;
          const Fence *f = &fences[mid];

          if (v->fences_check != NULL && !strata_checked_array_check (v->fences_check, mid, mid + 1))
            return G_MAXUINT;
          if (before_time (f->start, f->end, t, instants))
            flo = mid + 1;
          else
            fhi = mid;
        }
      lo = flo > 0 ? (flo - 1) * FENCE_STEP : 0;
      hi = MIN (v->n, (gsize) flo * FENCE_STEP + 1);
    }

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const StrataActivity *a = lane_get (v, mid);

      if (a == NULL)
        return G_MAXUINT;
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

  g_return_if_fail (self->map == NULL);

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

/* The mapped side of strata_raw_store_get_lane(): [first, end) decoded
 * into an array of @end activities of the calling thread's (only those
 * are written, so only their pages are touched), the one before freed. */
static const StrataActivity *
lend_range (StrataRawStore *self,
            guint32         channel,
            guint           l,
            gint64          t0,
            gint64          t1,
            guint          *first,
            guint          *end)
{
  g_autofree LaneView *v = g_new (LaneView, 1);
  GThread *thread = g_thread_self ();
  const StrataActivity *a;
  StrataActivity *acts;
  LentRange *range = NULL;
  guint i;

  if (!lane_view (self, channel, l, v))
    return NULL;
  *first = lower_bound (v, t0, l == INSTANT_LANE);
  if (*first == G_MAXUINT)
    {
      *first = 0;
      return NULL;
    }
  for (i = *first; (a = lane_get (v, i)) != NULL && a->start < t1; i++)
    ;
  *end = i;

  acts = g_new (StrataActivity, MAX (*end, 1));
  for (i = *first; i < *end; i++)
    {
      if ((a = lane_get (v, i)) == NULL)
        {
          *end = i;
          break;
        }
      acts[i] = *a;
    }

  g_mutex_lock (&self->lent_lock);
  for (guint k = 0; k < self->lent->len && range == NULL; k++)
    if (g_array_index (self->lent, LentRange, k).thread == thread)
      range = &g_array_index (self->lent, LentRange, k);
  if (range == NULL)
    {
      g_array_set_size (self->lent, self->lent->len + 1);
      range = &g_array_index (self->lent, LentRange, self->lent->len - 1);
      range->thread = thread;
    }
  g_free (range->acts);
  range->acts = acts;
  range->n = *end;
  g_mutex_unlock (&self->lent_lock);

  return acts;
}

/**
 * strata_raw_store_get_lane:
 * @lane: 0..15 for a nesting depth, 16 for the instants
 * @first: (out): the index of the lane's first activity that can overlap
 *   [@t0, @t1)
 * @end: (out): one past the last one that starts before @t1
 *
 * A lane in place, for walking it: the activities from @first to @end are
 * those overlapping [@t0, @t1) (with strata_activity_overlaps() to settle
 * the ends). In memory, the ones before @first are the lane's earlier
 * ones, with no copy, and the array stays valid until the next activity
 * is added. A store mapped from an index has its lanes packed: only
 * [@first, @end) are there, decoded for the calling thread, and valid
 * until its next call on this store (strata_raw_store_open_lane() reads
 * any part of any store without a copy).
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
  LaneView v;
  guint i;

  g_return_val_if_fail (self != NULL && first != NULL && end != NULL && lane < N_LANES, NULL);

  *first = *end = 0;
  if (self->map != NULL)
    return lend_range (self, channel, lane, t0, t1, first, end);
  if (!lane_view (self, channel, lane, &v))
    return NULL;

  *first = lower_bound (&v, t0, lane == INSTANT_LANE);
  for (i = *first; i < v.n && v.acts[i].start < t1; i++)
    ;
  *end = i;

  return v.acts;
}

/**
 * strata_raw_store_open_lane:
 * @lane: 0..15 for a nesting depth, 16 for the instants
 * @out: (out caller-allocates): the lane, for strata_raw_lane_get()
 * @first: (out): the index of the lane's first activity that can overlap
 *   [@t0, @t1)
 * @end: (out): one past the last one that starts before @t1
 *
 * strata_raw_store_get_lane() for any store: in memory or packed in an
 * index, the activities are read with strata_raw_lane_get(), before
 * @first as well.
 *
 * Returns: %FALSE if the lane has none (or is damaged where the look-up
 *   read it)
 */
gboolean
strata_raw_store_open_lane (StrataRawStore *self,
                            guint32         channel,
                            guint           lane,
                            gint64          t0,
                            gint64          t1,
                            StrataRawLane  *out,
                            guint          *first,
                            guint          *end)
{
  const StrataActivity *a;
  guint i;

  g_return_val_if_fail (self != NULL && out != NULL && first != NULL && end != NULL && lane < N_LANES, FALSE);

  *first = *end = 0;
  if (!lane_view (self, channel, lane, out))
    return FALSE;

  *first = lower_bound (out, t0, lane == INSTANT_LANE);
  if (*first == G_MAXUINT)
    {
      *first = 0;
      return FALSE;
    }
  for (i = *first; (a = lane_get (out, i)) != NULL && a->start < t1; i++)
    ;
  *end = i;

  return TRUE;
}

/**
 * strata_raw_lane_get:
 * @i: an activity of the lane
 *
 * Returns: (nullable): the activity, valid until the next call on @lane;
 *   %NULL past the lane's end or in a block found damaged
 */
const StrataActivity *
strata_raw_lane_get (StrataRawLane *lane,
                     guint          i)
{
  return lane_get (lane, i);
}

/**
 * strata_raw_store_check:
 * @from: the first activity of the lane to be read
 * @to: one past the last
 *
 * Whether those activities are sound to read. In memory they always are;
 * mapped from an index, their blocks are decoded (and checked).
 */
gboolean
strata_raw_store_check (StrataRawStore *self,
                        guint32         channel,
                        guint           lane,
                        guint           from,
                        guint           to)
{
  LaneView v;

  if (self->map == NULL)
    return TRUE;
  if (!lane_view (self, channel, lane, &v))
    return FALSE;
  for (guint i = from; i < to && i < v.n; i += STRATA_RAW_STORE_BLOCK - i % STRATA_RAW_STORE_BLOCK)
    if (lane_get (&v, i) == NULL)
      return FALSE;
  return TRUE;
}

/* For the index writer: a lane of a store in memory and its fences, in
 * place (NULL for a mapped store: the writer writes built trees). */
const StrataActivity *
strata_raw_store_peek_lane (StrataRawStore             *self,
                            guint32                     channel,
                            guint                       lane,
                            guint                      *n,
                            const StrataRawStoreFence **fences,
                            guint                      *n_fences)
{
  LaneView v;

  *n = *n_fences = 0;
  *fences = NULL;
  if (self->map != NULL || !lane_view (self, channel, lane, &v))
    return NULL;
  *n = v.n;
  *fences = v.fences;
  *n_fences = v.n_fences;
  return v.acts;
}

/* A store whose lanes are views over an index's bytes; nothing is read
 * until a look-up needs it. */
StrataRawStore *
strata_raw_store_new_mapped (StrataIndexMap  *map,
                             guint32          n_channels,
                             guint64          size,
                             guint64          lanes_offset,
                             guint64          lanes_sums_offset,
                             GError         **error)
{
  StrataRawStore *self = strata_raw_store_new ();

  self->map = strata_index_map_ref (map);
  self->size = size;
  self->mapped = g_new0 (MappedLane *, (gsize) n_channels * N_LANES);
  if (!strata_checked_array_init (&self->dir, map, lanes_offset, lanes_sums_offset,
                                  (guint64) n_channels * N_LANES, sizeof (StrataIndexLane),
                                  STRATA_INDEX_LANE_BLOCK, "raw store lanes"))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT, "the raw store's lanes are out of bounds");
      self->n_mapped = 0;
      strata_raw_store_free (self);
      return NULL;
    }
  self->n_mapped = n_channels;

  return self;
}

/* One more than the highest channel that has an activity. */
guint
strata_raw_store_get_n_channels (StrataRawStore *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->map != NULL ? self->n_mapped : self->channels->len;
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
  g_return_if_fail (self != NULL);

  if (t1 <= t0)
    return;

  for (guint l = 0; l < N_LANES; l++)
    {
      gboolean instants = l == INSTANT_LANE;
      LaneView v;
      guint i;

      if (!lane_view (self, channel, l, &v))
        continue;

      i = lower_bound (&v, t0, instants);
      for (const StrataActivity *a; i < v.n && (a = lane_get (&v, i)) != NULL; i++)
        {
          if (a->start >= t1)
            break;
          if (instants || strata_activity_overlaps (a, t0, t1))
            g_array_append_vals (out, a, 1);
        }
    }
}
