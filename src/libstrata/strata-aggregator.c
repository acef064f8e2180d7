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

#include "strata-aggregator.h"

typedef struct
{
  guint8  kind;
  guint8  state;
  guint32 label;
  gint32  arg;
  gint64  time;
  guint32 count;
} Key;

void
strata_aggregate_run_init (StrataAggregateRun *run,
                           gint64              threshold)
{
  g_return_if_fail (run != NULL);
  g_return_if_fail (threshold > 0);

  run->threshold = threshold;
  run->open = FALSE;
  run->keys = g_array_new (FALSE, FALSE, sizeof (Key));
}

void
strata_aggregate_run_clear (StrataAggregateRun *run)
{
  g_clear_pointer (&run->keys, g_array_unref);
}

static void
item_from_activity (StrataZoomItem       *item,
                    const StrataActivity *a)
{
  item->start = a->start;
  item->end = a->end;
  item->channel = a->channel;
  item->label = a->label;
  item->arg = a->arg;
  item->kind = a->kind;
  item->state = a->state;
  item->flags = a->flags;
  item->count = 1;
  item->reserved = 0;
  item->busy = a->end - a->start;
}

static void
add_key (StrataAggregateRun   *run,
         const StrataActivity *a)
{
  for (guint i = 0; i < run->keys->len; i++)
    {
      Key *k = &g_array_index (run->keys, Key, i);

      if (k->kind == a->kind && k->state == a->state && k->label == a->label && k->arg == a->arg)
        {
          k->time += a->end - a->start;
          k->count++;
          return;
        }
    }

  {
    Key k = { a->kind, a->state, a->label, a->arg, a->end - a->start, 1 };
    g_array_append_val (run->keys, k);
  }
}

void
strata_aggregate_run_flush (StrataAggregateRun *run,
                            GArray             *out)
{
  if (!run->open)
    return;

  if (run->item.count > 1)
    {
      const Key *best = &g_array_index (run->keys, Key, 0);

      for (guint i = 1; i < run->keys->len; i++)
        {
          const Key *k = &g_array_index (run->keys, Key, i);

          if (k->time > best->time || (k->time == best->time && k->count > best->count))
            best = k;
        }

      run->item.kind = best->kind;
      run->item.state = best->state;
      run->item.label = best->label;
      run->item.arg = best->arg;
      run->item.flags |= STRATA_ZOOM_ITEM_AGGREGATE;
    }

  g_array_append_val (out, run->item);
  g_array_set_size (run->keys, 0);
  run->open = FALSE;
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
  gint64 d = activity->end - activity->start;

  if (d >= run->threshold)
    {
      StrataZoomItem item;

      strata_aggregate_run_flush (run, out);
      item_from_activity (&item, activity);
      g_array_append_val (out, item);
      return;
    }

  if (run->open && MAX (activity->end, run->item.end) - run->item.start <= run->threshold)
    {
      run->item.end = MAX (run->item.end, activity->end);
      run->item.count++;
      run->item.busy += d;
      /* Only flags every member shares survive, the depth among them. */
      run->item.flags &= activity->flags;
      add_key (run, activity);
      return;
    }

  strata_aggregate_run_flush (run, out);
  item_from_activity (&run->item, activity);
  add_key (run, activity);
  run->open = TRUE;
}
