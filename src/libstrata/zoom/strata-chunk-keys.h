/* strata-chunk-keys.h
 *
 * The first item of each packed block of a chunk (its keys) and the
 * items whose lane is not the one before's (its lane changes), laid out
 * as strata-index-layout.h says.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-aggregator.h"
#include "strata-index-layout.h"
#include "strata-spilled-array.h"

G_BEGIN_DECLS

void strata_index_item_key_init (StrataIndexItemKey   *key,
                                 const StrataZoomItem *item);

/* A chunk's keys and lane changes, collected as its items go by in
 * order (the writer's in-memory chunks, a spilling chunk's stream). */
typedef struct
{
  GArray             *keys;     /* StrataIndexItemKey */
  StrataSpilledArray *changes;  /* guint32 */
  guint64             n;        /* items seen */
  guint               lane;     /* the last one's */
} StrataIndexChunkKeys;

void strata_index_chunk_keys_init  (StrataIndexChunkKeys *self);
void strata_index_chunk_keys_add   (StrataIndexChunkKeys *self,
                                    const StrataZoomItem *items,
                                    guint                 n);
void strata_index_chunk_keys_clear (StrataIndexChunkKeys *self);

G_END_DECLS
