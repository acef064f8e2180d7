/* strata-aggregator.c
 *
 * The triviality rule of the seed (FIG. 6): an activity shorter than the
 * threshold is trivial. Trivial activities that follow each other on a
 * lane are merged; the aggregate stops growing when the next activity is
 * not trivial, or when taking it would stretch the aggregate's span beyond
 * the threshold. A trivial activity that merges with nothing is kept as it
 * is. The dominant member of an aggregate is the (kind, state, label, arg)
 * with the most time in it, then the most members, then the earliest.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-aggregator.h"
#include "strata-index-layout.h"

/* The block codec writes items as the index lays them out: an
 * activity's fields, then the count and the busy time. */
G_STATIC_ASSERT (sizeof (StrataActivity) == STRATA_INDEX_ACTIVITY_SIZE);
G_STATIC_ASSERT (sizeof (StrataZoomItem) == STRATA_INDEX_ITEM_SIZE);
G_STATIC_ASSERT (G_STRUCT_OFFSET (StrataZoomItem, count) == STRATA_INDEX_ACTIVITY_SIZE);
G_STATIC_ASSERT (G_STRUCT_OFFSET (StrataZoomItem, busy) == STRATA_INDEX_ACTIVITY_SIZE + 8);

/* 24 bytes: every lane of every level keeps its run's candidates from
 * chunk to chunk, and a level's lanes are as many as one chunk touches
 * (tens of thousands on traces of short-lived threads). */
struct _StrataAggregateKey
{
  gint64  time;
  guint32 label;
  gint32  arg;
  guint32 count;
  guint8  kind;
  guint8  state;
};

G_STATIC_ASSERT (sizeof (struct _StrataAggregateKey) == 24);

typedef StrataAggregateKey Key;

/* Up to this many candidates a scan is cheaper than hashing. */
#define LINEAR_KEYS 8

/* The candidates a run first makes room for: most aggregates have a few
 * (a thread's states, on a few CPUs), and the room stays with the lane's
 * state (16 was 42 MB of 84 000 lane states at the end of the pass on
 * 20M generated events). */
#define FIRST_KEYS 4

void
strata_zoom_item_vec_grow (StrataZoomItemVec *vec,
                           guint              n)
{
  guint alloc = MAX (vec->alloc, 64);

  while (alloc - vec->len < n)
    alloc *= 2;
  if (alloc != vec->alloc)
    {
      vec->items = g_renew (StrataZoomItem, vec->items, alloc);
      vec->alloc = alloc;
    }
}

void
strata_zoom_item_vec_clear (StrataZoomItemVec *vec)
{
  g_clear_pointer (&vec->items, g_free);
  vec->len = vec->alloc = 0;
}

void
strata_aggregate_run_init (StrataAggregateRun *run,
                           gint64              threshold)
{
  g_return_if_fail (run != NULL);
  g_return_if_fail (threshold > 0);

  memset (run, 0, sizeof *run);
  run->threshold = threshold;
  run->generation = 1;
}

void
strata_aggregate_run_clear (StrataAggregateRun *run)
{
  g_clear_pointer (&run->keys, g_free);
  g_clear_pointer (&run->slots, g_free);
  run->n_keys = run->keys_alloc = run->n_slots = 0;
}

guint32
strata_aggregate_run_to_count (StrataAggregateRun *run)
{
  if (run->n_keys > LINEAR_KEYS && ++run->generation == 0)
    {
      memset (run->slots, 0, run->n_slots * sizeof *run->slots);
      run->generation = 1;
    }
  run->n_keys = 0;
  return run->open ? run->item.count : 0;
}

static inline gboolean
key_is (const Key            *k,
        const StrataActivity *a)
{
  return k->kind == a->kind && k->state == a->state && k->label == a->label && k->arg == a->arg;
}

static inline guint
key_hash (guint8  kind,
          guint8  state,
          guint32 label,
          gint32  arg)
{
  guint64 h = ((guint64) label << 32 | (guint32) arg) ^ ((guint64) kind << 8 | state) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);

  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  return (guint) (h >> 32);
}

static void
slots_insert (StrataAggregateRun *run,
              guint               index)
{
  const Key *k = &run->keys[index];
  guint mask = run->n_slots - 1;
  guint i = key_hash (k->kind, k->state, k->label, k->arg) & mask;

  while ((guint32) (run->slots[i] >> 32) == run->generation)
    i = (i + 1) & mask;
  run->slots[i] = (guint64) run->generation << 32 | index;
}

/* Makes room for the hash of n_keys + 1 candidates, at most half full. */
static void
slots_reserve (StrataAggregateRun *run)
{
  guint n = MAX (run->n_slots, 32);

  while (n < 2 * (run->n_keys + 1))
    n *= 2;
  if (n == run->n_slots)
    return;

  g_free (run->slots);
  run->slots = g_new0 (guint64, n);
  run->n_slots = n;
  run->generation = 1;
  for (guint i = 0; i < run->n_keys; i++)
    slots_insert (run, i);
}

static void
add_key (StrataAggregateRun   *run,
         const StrataActivity *a)
{
  gint64 d = a->end - a->start;
  Key *k;

  /* Members come in runs of the same kind: try the last one first. */
  if (run->n_keys > 0 && key_is (&run->keys[run->last_key], a))
    {
      k = &run->keys[run->last_key];
      k->time += d;
      k->count++;
      return;
    }

  if (run->n_keys <= LINEAR_KEYS)
    {
      for (guint i = 0; i < run->n_keys; i++)
        if (key_is (&run->keys[i], a))
          {
            run->keys[i].time += d;
            run->keys[i].count++;
            run->last_key = i;
            return;
          }
    }
  else
    {
      guint mask = run->n_slots - 1;
      guint i = key_hash (a->kind, a->state, a->label, a->arg) & mask;

      while ((guint32) (run->slots[i] >> 32) == run->generation)
        {
          guint index = (guint32) run->slots[i];

          if (key_is (&run->keys[index], a))
            {
              run->keys[index].time += d;
              run->keys[index].count++;
              run->last_key = index;
              return;
            }
          i = (i + 1) & mask;
        }
    }

  if (run->n_keys == run->keys_alloc)
    {
      run->keys_alloc = MAX (FIRST_KEYS, 2 * run->keys_alloc);
      run->keys = g_renew (Key, run->keys, run->keys_alloc);
    }
  k = &run->keys[run->n_keys];
  k->kind = a->kind;
  k->state = a->state;
  k->label = a->label;
  k->arg = a->arg;
  k->time = d;
  k->count = 1;
  run->last_key = run->n_keys;

  if (run->n_keys + 1 > LINEAR_KEYS)
    {
      if (run->n_keys == LINEAR_KEYS || 2 * (run->n_keys + 1) > run->n_slots)
        {
          /* The hash starts now (or grows): put in the ones so far. */
          if (run->n_keys == LINEAR_KEYS && 2 * (run->n_keys + 1) <= run->n_slots)
            {
              for (guint i = 0; i < run->n_keys; i++)
                slots_insert (run, i);
            }
          else
            slots_reserve (run);
        }
      slots_insert (run, run->n_keys);
    }
  run->n_keys++;
}

/* Whether @a is the same candidate as the open run's first member. */
static inline gboolean
same_as_first (const StrataAggregateRun *run,
               const StrataActivity     *a)
{
  return run->item.kind == a->kind && run->item.state == a->state &&
         run->item.label == a->label && run->item.arg == a->arg;
}

/* An open run with no candidates listed has had one so far: its first
 * member's (kind, state, label, arg), still in its item, with all its
 * time and members. The list is made when a second one joins: a run
 * that ends with one (a trivial activity that merged with nothing, or
 * members all alike) never touches its candidates' memory, a cache miss
 * per lane and level in the build (the candidates are apart from the
 * lane's state). */
static void
list_first (StrataAggregateRun *run)
{
  Key *k;

  if (run->keys_alloc == 0)
    {
      run->keys_alloc = FIRST_KEYS;
      run->keys = g_renew (Key, run->keys, run->keys_alloc);
    }
  k = &run->keys[0];
  k->kind = run->item.kind;
  k->state = run->item.state;
  k->label = run->item.label;
  k->arg = run->item.arg;
  k->time = run->item.busy;
  k->count = run->item.count;
  run->last_key = 0;
  run->n_keys = 1;
}

/* Ends the run: @item receives the aggregate. FALSE if none was open. */
static inline gboolean
run_close (StrataAggregateRun *run,
           StrataZoomItem     *item)
{
  if (!run->open)
    return FALSE;

  /* With one candidate (none listed), it is the item's own. */
  if (run->item.count > 1 && run->n_keys == 0)
    run->item.flags |= STRATA_ZOOM_ITEM_AGGREGATE;
  else if (run->item.count > 1)
    {
      const Key *best = &run->keys[0];

      for (guint i = 1; i < run->n_keys; i++)
        {
          const Key *k = &run->keys[i];

          if (k->time > best->time || (k->time == best->time && k->count > best->count))
            best = k;
        }

      run->item.kind = best->kind;
      run->item.state = best->state;
      run->item.label = best->label;
      run->item.arg = best->arg;
      run->item.flags |= STRATA_ZOOM_ITEM_AGGREGATE;
    }

  *item = run->item;
  if (run->n_keys > LINEAR_KEYS)
    {
      /* Empties the hash without touching it. */
      if (++run->generation == 0)
        {
          memset (run->slots, 0, run->n_slots * sizeof *run->slots);
          run->generation = 1;
        }
    }
  run->n_keys = 0;
  run->open = FALSE;
  return TRUE;
}

/* The rule itself: up to two finished items go to @done; returns how
 * many. */
static inline guint
run_offer (StrataAggregateRun   *run,
           const StrataActivity *activity,
           StrataZoomItem        done[2])
{
  gint64 d = activity->end - activity->start;
  guint n;

  if (d >= run->threshold)
    {
      n = run_close (run, &done[0]);
      strata_zoom_item_from_activity (&done[n], activity);
      return n + 1;
    }

  if (run->open && MAX (activity->end, run->item.end) - run->item.start <= run->threshold)
    {
      gboolean listed = run->n_keys > 0 || !same_as_first (run, activity);

      if (listed && run->n_keys == 0)
        list_first (run);
      run->item.end = MAX (run->item.end, activity->end);
      run->item.count++;
      run->item.busy += d;
      /* Only flags every member shares survive, the depth among them. */
      run->item.flags &= activity->flags;
      if (listed)
        add_key (run, activity);
      return 0;
    }

  n = run_close (run, &done[0]);
  strata_zoom_item_from_activity (&run->item, activity);
  /* Its one candidate is the item's own (list_first()). */
  run->open = TRUE;
  return n;
}

void
strata_aggregate_run_flush (StrataAggregateRun *run,
                            GArray             *out)
{
  StrataZoomItem item;

  if (run_close (run, &item))
    g_array_append_val (out, item);
}

/**
 * strata_aggregate_run_offer:
 * @run: the lane's run
 * @activity: the lane's next activity, in start order
 * @out: (element-type StrataZoomItem): where finished items go
 */
void
strata_aggregate_run_offer (StrataAggregateRun   *run,
                            const StrataActivity *activity,
                            GArray               *out)
{
  StrataZoomItem done[2];
  guint n = run_offer (run, activity, done);

  if (n > 0)
    g_array_append_vals (out, done, n);
}

void
strata_aggregate_run_flush_vec (StrataAggregateRun *run,
                                StrataZoomItemVec  *out)
{
  if (run->open)
    {
      if G_UNLIKELY (out->len == out->alloc)
        strata_zoom_item_vec_grow (out, 1);
      if (run_close (run, &out->items[out->len]))
        out->len++;
    }
}

void
strata_aggregate_run_offer_vec (StrataAggregateRun   *run,
                                const StrataActivity *activity,
                                StrataZoomItemVec    *out)
{
  if G_UNLIKELY (out->alloc - out->len < 2)
    strata_zoom_item_vec_grow (out, 2);
  out->len += run_offer (run, activity, &out->items[out->len]);
}
