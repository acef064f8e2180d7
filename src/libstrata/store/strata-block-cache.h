/* strata-block-cache.h
 *
 * Decoded blocks kept for the next reader: a fixed number of slots, each
 * holding one block at most STRATA_BLOCK_CACHE_SLOT_BYTES long, found by
 * the (array, block) pair hashed, so a block decoded by one query is a
 * copy for the next and the memory is bounded whatever is read. The
 * cache also lends zstd decompression contexts, so the readers sharing it
 * make one per thread reading at once rather than one per block.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Slots of one cache, and the most bytes a slot holds. */
#define STRATA_BLOCK_CACHE_SLOTS      1024
#define STRATA_BLOCK_CACHE_SLOT_BYTES 12288

typedef struct _StrataBlockCache StrataBlockCache;

StrataBlockCache *strata_block_cache_new        (void);
void              strata_block_cache_free       (StrataBlockCache *self);
gboolean          strata_block_cache_get        (StrataBlockCache *self,
                                                 guint64           key,
                                                 guint64           block,
                                                 void             *out,
                                                 gsize             size);
gboolean          strata_block_cache_get_range  (StrataBlockCache *self,
                                                 guint64           key,
                                                 guint64           block,
                                                 gsize             size,
                                                 gsize             from,
                                                 gsize             len,
                                                 void             *out);
void              strata_block_cache_put        (StrataBlockCache *self,
                                                 guint64           key,
                                                 guint64           block,
                                                 const void       *data,
                                                 gsize             size);
gsize             strata_block_cache_get_size   (StrataBlockCache *self);
gpointer          strata_block_cache_take_dctx  (StrataBlockCache *self);
void              strata_block_cache_give_dctx  (StrataBlockCache *self,
                                                 gpointer          dctx);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataBlockCache, strata_block_cache_free)

G_END_DECLS
