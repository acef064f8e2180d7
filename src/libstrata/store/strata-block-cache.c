/* strata-block-cache.c
 *
 * Direct-mapped: a block goes to the one slot its key and number hash to,
 * and evicts what was there. A timeline's next frame reads mostly the
 * blocks the last one did, so even this simplest of caches serves most
 * reads with a copy; what it costs is bounded by the slots. One lock
 * guards the slots and the pool of zstd contexts: a hit is a memcpy of a
 * few KiB under it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <xxhash.h>
#include <zstd.h>

#include "strata-block-cache.h"

typedef struct
{
  guint64  key;
  guint64  block;
  gsize    size;     /* 0: empty */
  guint8  *data;     /* STRATA_BLOCK_CACHE_SLOT_BYTES */
} CacheSlot;

struct _StrataBlockCache
{
  GMutex     lock;
  CacheSlot *slots;      /* allocated on the first put */
  GPtrArray *dctxs;      /* ZSTD_DCtx not in use */
};

StrataBlockCache *
strata_block_cache_new (void)
{
  StrataBlockCache *self = g_new0 (StrataBlockCache, 1);

  g_mutex_init (&self->lock);
  self->dctxs = g_ptr_array_new_with_free_func ((GDestroyNotify) ZSTD_freeDCtx);
  return self;
}

void
strata_block_cache_free (StrataBlockCache *self)
{
  if (self == NULL)
    return;
  if (self->slots != NULL)
    for (guint i = 0; i < STRATA_BLOCK_CACHE_SLOTS; i++)
      g_free (self->slots[i].data);
  g_free (self->slots);
  g_mutex_clear (&self->lock);
  g_ptr_array_unref (self->dctxs);
  g_free (self);
}

static inline guint
cache_slot (guint64 key,
            guint64 block)
{
  return (guint) (XXH3_64bits_withSeed (&block, sizeof block, key) % STRATA_BLOCK_CACHE_SLOTS);
}

/* Whether block @block of the packed array @key (@size bytes decoded) is
 * cached; if so, its bytes [@from, @from + @len) are copied to @out. */
gboolean
strata_block_cache_get_range (StrataBlockCache *self,
                              guint64           key,
                              guint64           block,
                              gsize             size,
                              gsize             from,
                              gsize             len,
                              void             *out)
{
  gboolean hit = FALSE;
  CacheSlot *slot;

  if (from > size || len > size - from)
    return FALSE;
  g_mutex_lock (&self->lock);
  if (self->slots != NULL)
    {
      slot = &self->slots[cache_slot (key, block)];
      if (slot->size == size && slot->key == key && slot->block == block)
        {
          memcpy (out, slot->data + from, len);
          hit = TRUE;
        }
    }
  g_mutex_unlock (&self->lock);
  return hit;
}

/* Whether block @block of the packed array @key is cached; if so, copied
 * to @out. */
gboolean
strata_block_cache_get (StrataBlockCache *self,
                        guint64           key,
                        guint64           block,
                        void             *out,
                        gsize             size)
{
  return strata_block_cache_get_range (self, key, block, size, 0, size, out);
}

void
strata_block_cache_put (StrataBlockCache *self,
                        guint64           key,
                        guint64           block,
                        const void       *data,
                        gsize             size)
{
  CacheSlot *slot;

  if (size == 0 || size > STRATA_BLOCK_CACHE_SLOT_BYTES)
    return;
  g_mutex_lock (&self->lock);
  if (self->slots == NULL)
    self->slots = g_new0 (CacheSlot, STRATA_BLOCK_CACHE_SLOTS);
  slot = &self->slots[cache_slot (key, block)];
  if (slot->data == NULL)
    slot->data = g_malloc (STRATA_BLOCK_CACHE_SLOT_BYTES);
  memcpy (slot->data, data, size);
  slot->key = key;
  slot->block = block;
  slot->size = size;
  g_mutex_unlock (&self->lock);
}

/* The bytes the cache holds: at most STRATA_BLOCK_CACHE_SLOTS blocks. */
gsize
strata_block_cache_get_size (StrataBlockCache *self)
{
  gsize n = 0;

  g_mutex_lock (&self->lock);
  if (self->slots != NULL)
    for (guint i = 0; i < STRATA_BLOCK_CACHE_SLOTS; i++)
      n += self->slots[i].data != NULL ? STRATA_BLOCK_CACHE_SLOT_BYTES : 0;
  g_mutex_unlock (&self->lock);
  return n;
}

/* A zstd context for one decompression, from the cache's pool. */
gpointer
strata_block_cache_take_dctx (StrataBlockCache *self)
{
  gpointer dctx = NULL;

  g_mutex_lock (&self->lock);
  if (self->dctxs->len > 0)
    dctx = g_ptr_array_steal_index_fast (self->dctxs, self->dctxs->len - 1);
  g_mutex_unlock (&self->lock);
  return dctx != NULL ? dctx : ZSTD_createDCtx ();
}

void
strata_block_cache_give_dctx (StrataBlockCache *self,
                              gpointer          dctx)
{
  if (dctx == NULL)
    return;
  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->dctxs, dctx);
  g_mutex_unlock (&self->lock);
}
