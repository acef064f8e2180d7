/* strata-trace-lookup.c
 *
 * See strata-trace-lookup.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>

#include "strata-trace-lookup.h"

struct _StrataThreadMap
{
  StrataTrace *trace;
  GHashTable  *by_tid;   /* instance << 32 | tid -> GArray of guint32 channels, oldest first */
};

static guint64
thread_key (guint16 instance,
            gint32  tid)
{
  return ((guint64) instance << 32) | (guint32) tid;
}

/**
 * strata_thread_map_new:
 *
 * Returns: (transfer full): a map from tids to @trace's thread channels
 */
StrataThreadMap *
strata_thread_map_new (StrataTrace *trace)
{
  StrataThreadMap *self;
  const StrataChannel *channels;
  guint n;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  self = g_new0 (StrataThreadMap, 1);
  self->trace = g_object_ref (trace);
  self->by_tid = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                        (GDestroyNotify) g_array_unref);

  channels = strata_trace_get_channels (trace, &n);
  for (guint i = 0; i < n; i++)
    {
      guint64 key;
      GArray *list;

      if (channels[i].kind != STRATA_CHANNEL_THREAD)
        continue;
      key = thread_key (channels[i].instance, channels[i].id);
      list = g_hash_table_lookup (self->by_tid, &key);
      if (list == NULL)
        {
          list = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_hash_table_insert (self->by_tid, g_memdup2 (&key, sizeof key), list);
        }
      g_array_append_val (list, i);
    }

  return self;
}

void
strata_thread_map_free (StrataThreadMap *self)
{
  if (self == NULL)
    return;
  g_clear_object (&self->trace);
  g_clear_pointer (&self->by_tid, g_hash_table_unref);
  g_free (self);
}

/* Of a tid's uses (oldest first), the one at @t: see below. */
static guint32
pick_use (const StrataChannel *channels,
          const guint32       *uses,
          guint                n_uses,
          gint64               t)
{
  for (guint i = n_uses; i > 0; i--)
    {
      guint32 ch = uses[i - 1];

      if (channels[ch].begin <= t)
        return channels[ch].end >= t ? ch : STRATA_CHANNEL_NONE;
    }
  return uses[0];
}

/**
 * strata_thread_map_lookup:
 * @tid: a thread id, as an event's context names it
 * @t: when
 *
 * A thread's channel begins where the model first saw it switched or
 * woken, which can be after an event that ran in it (the context of a
 * wakeup is not a sighting): so the channel is the last use of the tid
 * that began by @t and had not ended before it, or failing that the
 * first use, when it began after @t and nothing earlier had the tid.
 *
 * Returns: the channel, or %STRATA_CHANNEL_NONE (the idle task, tid 0,
 *   has none; nor has a thread the trace never switched or woke)
 */
guint32
strata_thread_map_lookup (StrataThreadMap *self,
                          guint16          instance,
                          gint32           tid,
                          gint64           t)
{
  const StrataChannel *channels;
  guint64 key = thread_key (instance, tid);
  GArray *list;
  guint n;

  g_return_val_if_fail (self != NULL, STRATA_CHANNEL_NONE);

  if (tid <= 0)
    return STRATA_CHANNEL_NONE;
  list = g_hash_table_lookup (self->by_tid, &key);
  if (list == NULL)
    return STRATA_CHANNEL_NONE;

  channels = strata_trace_get_channels (self->trace, &n);
  return pick_use (channels, (const guint32 *) (gpointer) list->data, list->len, t);
}

/**
 * strata_trace_find_thread:
 *
 * strata_thread_map_lookup() without a map: a scan of the channels, for
 * one look-up (a tooltip) where building the map would cost more.
 */
guint32
strata_trace_find_thread (StrataTrace *trace,
                          guint16      instance,
                          gint32       tid,
                          gint64       t)
{
  g_autoptr(GArray) uses = g_array_new (FALSE, FALSE, sizeof (guint32));
  const StrataChannel *channels;
  guint n;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), STRATA_CHANNEL_NONE);

  if (tid <= 0)
    return STRATA_CHANNEL_NONE;
  channels = strata_trace_get_channels (trace, &n);
  for (guint32 i = 0; i < n; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD && channels[i].instance == instance &&
        channels[i].id == tid)
      g_array_append_val (uses, i);
  if (uses->len == 0)
    return STRATA_CHANNEL_NONE;
  return pick_use (channels, (const guint32 *) (gpointer) uses->data, uses->len, t);
}

/**
 * strata_thread_map_find:
 * @tid: a thread id, as a user names it
 *
 * Returns: the use of @tid (in any buffer instance, the top one first)
 *   that overlaps [@from, @to) the longest, or %STRATA_CHANNEL_NONE
 */
guint32
strata_thread_map_find (StrataThreadMap *self,
                        gint32           tid,
                        gint64           from,
                        gint64           to)
{
  const StrataChannel *channels;
  GHashTableIter iter;
  gpointer key, value;
  guint32 best = STRATA_CHANNEL_NONE;
  gint64 best_overlap = -1;
  guint n;

  g_return_val_if_fail (self != NULL, STRATA_CHANNEL_NONE);

  channels = strata_trace_get_channels (self->trace, &n);
  g_hash_table_iter_init (&iter, self->by_tid);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GArray *list = value;

      if ((gint32) (guint32) *(guint64 *) key != tid)
        continue;
      for (guint i = 0; i < list->len; i++)
        {
          guint32 ch = g_array_index (list, guint32, i);
          gint64 overlap = MIN (to, channels[ch].end) - MAX (from, channels[ch].begin);

          if (overlap > best_overlap ||
              (overlap == best_overlap && best != STRATA_CHANNEL_NONE &&
               channels[ch].instance < channels[best].instance))
            {
              best = ch;
              best_overlap = overlap;
            }
        }
    }

  return best;
}

static int
by_lane_and_start (gconstpointer pa,
                   gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;
  guint la = strata_activity_is_instant (a) ? G_MAXUINT : strata_activity_get_depth (a);
  guint lb = strata_activity_is_instant (b) ? G_MAXUINT : strata_activity_get_depth (b);

  if (la != lb)
    return la < lb ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return 0;
}

/**
 * strata_trace_query_channel:
 * @out: (element-type StrataActivity): where the activities are appended
 *
 * Appends @channel's activities that overlap [@from, @to) (intervals
 * that cross it, instants inside it), unclipped, each lane in start
 * order: from the raw store when the trace has a zoom tree (so a
 * range costs what it holds, whatever the trace's size), else from the
 * activities kept in memory. A trace still loading gives what its tree
 * holds so far, its open activities as pieces up to the latest event.
 */
void
strata_trace_query_channel (StrataTrace *trace,
                            guint32      channel,
                            gint64       from,
                            gint64       to,
                            GArray      *out)
{
  StrataZoomTree *tree;
  const StrataActivity *all;
  guint first;
  gsize n;

  g_return_if_fail (STRATA_IS_TRACE (trace));
  g_return_if_fail (out != NULL);

  tree = strata_trace_get_zoom_tree (trace);
  if (tree != NULL)
    {
      /* Under the tree's lock: a trace still loading is read while its
       * pass adds to the raw store. */
      strata_zoom_tree_query_activities (tree, channel, from, to, TRUE, out);
      return;
    }

  /* In memory they are in the order they ended: put them in the raw
   * store's order (intervals before instants, each by start). */
  first = out->len;
  all = strata_trace_get_activities (trace, &n);
  for (gsize i = 0; i < n; i++)
    if (all[i].channel == channel && strata_activity_overlaps (&all[i], from, to))
      g_array_append_vals (out, &all[i], 1);
  /* (An array nothing was added to may have no storage at all.) */
  if (out->len > first)
    qsort (&g_array_index (out, StrataActivity, first), out->len - first,
           sizeof (StrataActivity), by_lane_and_start);
}
