/* strata-zoom-settled.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strata-zoom-settled.h"

/* About 8 MiB of items by default: a live frame of a 1080-pixel window
 * shows some forty rows, each a lane or two of at most a few thousand
 * items in the growing chunk. */
#define DEFAULT_MAX_ITEMS ((8u << 20) / sizeof (StrataZoomItem))
/* A lane that the last queries did not use goes even under the cap: a
 * window's views (the timeline's and the zoomed-in ones a user goes
 * through) alternate among a few, and the chunk a followed view reads
 * changes as it moves. */
#define KEEP_QUERIES 8

typedef struct
{
  guint32               channel;
  guint                 lane;
  gint64                chunk_start;
  gint64                chunk_duration;
  StrataZoomSettledLane settled;
} Entry;

struct _StrataZoomSettled
{
  GHashTable *entries;   /* Entry, a set by its key */
  guint64     tree;
  guint64     n_queries;
  gsize       n_items;
  gsize       max_items;
  guint64     n_found;   /* lanes found kept, for the tests */
};

static guint
entry_hash (gconstpointer p)
{
  const Entry *e = p;
  guint64 k = (guint64) e->chunk_start * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);

  k ^= (guint64) e->chunk_duration * G_GUINT64_CONSTANT (0xC2B2AE3D27D4EB4F);
  k ^= ((guint64) e->channel << 5 | e->lane) * G_GUINT64_CONSTANT (0x165667B19E3779F9);
  return (guint) (k ^ (k >> 32));
}

static gboolean
entry_equal (gconstpointer pa,
             gconstpointer pb)
{
  const Entry *a = pa, *b = pb;

  return a->channel == b->channel && a->lane == b->lane && a->chunk_start == b->chunk_start &&
         a->chunk_duration == b->chunk_duration;
}

static void
entry_free (gpointer p)
{
  Entry *e = p;

  g_free (e->settled.items);
  g_free (e);
}

StrataZoomSettled *
strata_zoom_settled_new (void)
{
  StrataZoomSettled *self = g_new0 (StrataZoomSettled, 1);
  const char *env = g_getenv ("STRATA_ZOOM_SETTLED_ITEMS");

  self->entries = g_hash_table_new_full (entry_hash, entry_equal, entry_free, NULL);
  self->max_items = env != NULL ? (gsize) g_ascii_strtoull (env, NULL, 10) : DEFAULT_MAX_ITEMS;
  return self;
}

void
strata_zoom_settled_free (StrataZoomSettled *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->entries);
  g_free (self);
}

/* A query of @tree begins: what was kept of another tree goes. */
void
strata_zoom_settled_begin (StrataZoomSettled *self,
                           guint64            tree)
{
  if (self->tree != tree)
    {
      g_hash_table_remove_all (self->entries);
      self->n_items = 0;
      self->tree = tree;
    }
  self->n_queries++;
}

static int
by_used (gconstpointer pa,
         gconstpointer pb)
{
  const Entry *a = *(Entry * const *) pa, *b = *(Entry * const *) pb;

  return a->settled.used < b->settled.used ? -1 : a->settled.used > b->settled.used;
}

static gboolean
unused_lately (gpointer key,
               gpointer value,
               gpointer user_data)
{
  const Entry *e = key;
  StrataZoomSettled *self = user_data;

  if (e->settled.used + KEEP_QUERIES > self->n_queries)
    return FALSE;
  self->n_items -= e->settled.n_items;
  return TRUE;
}

/* The query ended: the lanes it and the last few did not use go, then
 * the ones used longest ago while there are more items than the cap. */
void
strata_zoom_settled_end (StrataZoomSettled *self)
{
  g_autofree Entry **all = NULL;
  GHashTableIter iter;
  gpointer key;
  guint n = 0;

  g_hash_table_foreach_remove (self->entries, unused_lately, self);
  if (self->n_items <= self->max_items)
    return;

  all = g_new (Entry *, g_hash_table_size (self->entries));
  g_hash_table_iter_init (&iter, self->entries);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    all[n++] = key;
  qsort (all, n, sizeof *all, by_used);
  for (guint i = 0; i < n && self->n_items > self->max_items; i++)
    {
      self->n_items -= all[i]->settled.n_items;
      g_hash_table_remove (self->entries, all[i]);
    }
}

/* The settled items of @channel's @lane in the chunk, if kept. */
StrataZoomSettledLane *
strata_zoom_settled_lookup (StrataZoomSettled *self,
                            guint32            channel,
                            guint              lane,
                            gint64             chunk_start,
                            gint64             chunk_duration)
{
  Entry key = { .channel = channel, .lane = lane, .chunk_start = chunk_start, .chunk_duration = chunk_duration };
  Entry *e = g_hash_table_lookup (self->entries, &key);

  if (e == NULL)
    return NULL;
  e->settled.used = self->n_queries;
  return &e->settled;
}

/* The lane's settled items start again, none yet, at activity @k_first
 * (@first), where its aggregation starts afresh. */
StrataZoomSettledLane *
strata_zoom_settled_restart (StrataZoomSettled    *self,
                             guint32               channel,
                             guint                 lane,
                             gint64                chunk_start,
                             gint64                chunk_duration,
                             guint                 k_first,
                             const StrataActivity *first)
{
  Entry key = { .channel = channel, .lane = lane, .chunk_start = chunk_start, .chunk_duration = chunk_duration };
  Entry *e = g_hash_table_lookup (self->entries, &key);

  if (e == NULL)
    {
      e = g_new0 (Entry, 1);
      *e = key;
      g_hash_table_add (self->entries, e);
    }
  self->n_items -= e->settled.n_items;
  e->settled.n_items = 0;
  e->settled.k_first = e->settled.k_next = k_first;
  e->settled.next = *first;
  e->settled.used = self->n_queries;
  return &e->settled;
}

/* @items settled after the lane's: those of its activities up to
 * @k_next (@next), where the aggregation starts afresh again. */
void
strata_zoom_settled_extend (StrataZoomSettled     *self,
                            StrataZoomSettledLane *lane,
                            const StrataZoomItem  *items,
                            guint                  n_items,
                            guint                  k_next,
                            const StrataActivity  *next)
{
  g_assert (k_next > lane->k_next);

  if (n_items > lane->alloc - lane->n_items)
    {
      lane->alloc = MAX (lane->n_items + n_items, MAX (64u, lane->alloc * 2));
      lane->items = g_renew (StrataZoomItem, lane->items, lane->alloc);
    }
  if (n_items > 0)
    memcpy (&lane->items[lane->n_items], items, n_items * sizeof *items);
  lane->n_items += n_items;
  self->n_items += n_items;
  lane->k_next = k_next;
  lane->next = *next;
}

/* A lane's kept items were taken as they are. */
void
strata_zoom_settled_found (StrataZoomSettled *self)
{
  self->n_found++;
}

/* For the tests: the cap, how many items are kept, how many times a
 * lane's were taken. */
void
strata_zoom_settled_set_max_items (StrataZoomSettled *self,
                                   gsize              max_items)
{
  self->max_items = max_items;
}

gsize
strata_zoom_settled_get_n_items (StrataZoomSettled *self)
{
  return self->n_items;
}

guint64
strata_zoom_settled_get_n_found (StrataZoomSettled *self)
{
  return self->n_found;
}
