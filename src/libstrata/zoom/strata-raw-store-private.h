/* strata-raw-store-private.h
 *
 * The raw store's side of the index: its lanes as the writer copies them
 * (in memory, or spilled to the block packer during the pass), and a
 * store made over a mapped index's lanes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-block-packer.h"
#include "strata-index-layout.h"
#include "strata-index-map.h"
#include "strata-raw-store.h"

G_BEGIN_DECLS

/* A block of a raw store's lane spilled during the pass: its ticket at
 * the store's block packer, and how many activities it holds. */
typedef struct
{
  guint64 ticket;
  guint32 n;
  guint32 reserved;
} StrataRawStoreSpilled;

/* What the index writer needs of the raw store, and what the index
 * reader gives it back. */
const StrataActivity *strata_raw_store_peek_lane (StrataRawStore             *self,
                                                  guint32                     channel,
                                                  guint                       lane,
                                                  guint                      *n,
                                                  const StrataRawStoreFence **fences,
                                                  guint                      *n_fences,
                                                  const StrataRawStoreSpilled **spilled,
                                                  guint                      *n_spilled);
gboolean        strata_raw_store_read_lane_part (StrataRawStore             *self,
                                                 guint32                     channel,
                                                 guint                       lane,
                                                 guint                       part,
                                                 const StrataRawStoreSpilled **spilled,
                                                 guint                      *n_spilled,
                                                 const StrataRawStoreFence **fences,
                                                 guint                      *n_fences);
StrataBlockPacker *strata_raw_store_get_packer (StrataRawStore       *self);
void            strata_raw_store_set_packer     (StrataRawStore             *self,
                                                 StrataBlockPacker          *packer);
guint64         strata_raw_store_get_unspilled  (StrataRawStore             *self);
void            strata_raw_store_open_windows   (StrataRawStore             *self,
                                                 gsize                       first_fill);
void            strata_raw_store_close_windows  (StrataRawStore             *self);
gboolean        strata_raw_store_read_block_bytes (StrataRawStore           *self,
                                                   const StrataIndexBlock   *rec,
                                                   guint8                   *out);
/* The most bytes a spilled block (a packed block of activities) takes. */
#define STRATA_RAW_STORE_MAX_PACKED (STRATA_RAW_STORE_BLOCK * (11 * 10 + 2))
StrataRawStore *strata_raw_store_new_mapped     (StrataIndexMap             *map,
                                                 const StrataIndexHeader    *h,
                                                 GError                    **error);
guint32         strata_raw_store_get_lanes      (StrataRawStore             *self,
                                                 guint32                     channel);
void            strata_raw_store_let_go_channels (StrataRawStore            *self);
void            strata_raw_store_adopt           (StrataRawStore            *self);
gboolean        strata_raw_store_check          (StrataRawStore             *self,
                                                 guint32                     channel,
                                                 guint                       lane,
                                                 guint                       from,
                                                 guint                       to);

G_END_DECLS
