/* strata-chunk-keys.c
 *
 * A chunk's keys and lane changes, made as its items go by in order:
 * what lets a query bisect a packed chunk's span and find where its
 * lanes begin while decoding only the blocks it lands in
 * (docs/index-format.md). The zoom tree makes them for a chunk it
 * spills, the index writer for a chunk it writes from memory. The
 * changes are a spilled array: the last chunk of a coarse level over a
 * million threads has a change or two for each, tens of MB that need
 * not stay in memory until they are written.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-chunk-keys.h"
#include "strata-zoom-chunk.h"

/* A block's key: what a bisection over a chunk's span reads of its first
 * item. */
void
strata_index_item_key_init (StrataIndexItemKey   *key,
                            const StrataZoomItem *item)
{
  key->start = item->start;
  key->end = item->end;
  key->lane = strata_zoom_item_lane (item);
  key->reserved = 0;
}

void
strata_index_chunk_keys_init (StrataIndexChunkKeys *self)
{
  self->keys = g_array_new (FALSE, FALSE, sizeof (StrataIndexItemKey));
  self->changes = strata_spilled_array_new (sizeof (guint32));
  self->n = 0;
  self->lane = 0;
}

/* The next @n items of the chunk: a key for each that begins a block, a
 * change for each whose lane is not the one before's. */
void
strata_index_chunk_keys_add (StrataIndexChunkKeys *self,
                             const StrataZoomItem *items,
                             guint                 n)
{
  for (guint i = 0; i < n; i++)
    {
      guint64 at = self->n + i;
      guint lane = strata_zoom_item_lane (&items[i]);

      if (at % STRATA_INDEX_ITEM_BLOCK == 0)
        {
          StrataIndexItemKey key;

          strata_index_item_key_init (&key, &items[i]);
          g_array_append_val (self->keys, key);
        }
      if (at > 0 && lane != self->lane)
        {
          guint32 at32 = (guint32) at;

          strata_spilled_array_append (self->changes, &at32);
        }
      self->lane = lane;
    }
  self->n += n;
}

void
strata_index_chunk_keys_clear (StrataIndexChunkKeys *self)
{
  g_clear_pointer (&self->keys, g_array_unref);
  g_clear_pointer (&self->changes, strata_spilled_array_free);
}
