/* strata-zoom-tree-private.h
 *
 * The zoom tree's side of the index: its chunks as the writer copies
 * them, its state at the end of the pass, a tree made over a mapped
 * index's chunk index and raw store, and what the memory accounting of
 * the pass (the benchmarks, STRATA_DEBUG_MEMORY) reads of it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-block-packer.h"
#include "strata-index-layout.h"
#include "strata-index-map.h"
#include "strata-zoom-tree.h"

G_BEGIN_DECLS

typedef struct
{
  gint64                index;
  gboolean              at_end;
  guint                 n_channels;
  const StrataIndexSpan *channels;
  guint                 n_items;
  const StrataZoomItem *items;         /* NULL when spilled: */
  StrataBlockPacker    *packer;        /* its items packed there (strata-block-packer.h), */
  guint64               first_block;   /* in blocks of STRATA_INDEX_ITEM_BLOCK from this ticket on */
  const StrataIndexItemKey *keys;      /* when spilled: its blocks' first items, */
  const guint32        *changes;       /* its lane changes */
  guint                 n_changes;
  gpointer              hold;          /* what the tree lent for them (strata_zoom_chunk_view_clear()) */
  /* A spilled chunk's spans, keys and changes, as the index lays them
   * out, in the packer's file (channels, keys and changes NULL then):
   * G_MAXUINT64 when they are in memory. */
  guint64               piece_offset;
  gsize                 piece_size;
  guint64               piece_checksum;
} StrataZoomChunkView;

/* Where a tree's pre-calculated chunks are while it is built. */
typedef struct
{
  gsize   in_memory;     /* bytes of items held by chunks kept in memory */
  gsize   spill_from;    /* ... up to which they are kept there */
  gsize   queued;        /* bytes of items waiting for the packer */
  gsize   peak_queued;   /* the most that ever did */
  gsize   max_queued;    /* the packer's bound on it (one chunk bigger passes alone) */
  gsize   chunk_index;   /* the chunks' records, spans in memory and pieces read back */
  guint   n_chunks;      /* chunks stored, each with its record in memory */
  gsize   spans;         /* bytes of spans, keys and lane changes in memory (not spilled) */
  gsize   piece_cache;   /* bytes of spilled chunks' spans read back, in the cache */
  guint   n_pieces;      /* pieces in it */
  gsize   records;       /* the packer's record of each spilled block */
  guint   n_spilled;     /* chunks whose items were handed to the packer */
  guint64 spilled;       /* bytes of items written to the spill file (decoded) */
  guint64 file_size;     /* bytes of the spill file */
  guint64 n_waits;       /* chunks that waited for room in the packer's queue */
  gint64  wait_us;       /* how long they waited in all */
  guint64 n_helped;      /* blocks the builder packed itself, the queue full */
} StrataZoomChunkMemory;

void     strata_zoom_tree_get_chunk_memory (StrataZoomTree        *self,
                                            StrataZoomChunkMemory *memory);
void     strata_zoom_tree_set_chunk_spill  (StrataZoomTree        *self,
                                            gsize                  spill_from,
                                            gsize                  max_queued);

/* What the levels' pools (the items of the chunk each level is
 * aggregating) held: read it between additions (the levels not
 * pipelined), or after the pass. */
typedef struct
{
  gsize   budget;         /* bytes of a level's pool in use before it spills */
  gsize   bound;          /* what a level's pool may use: budget, or one segment more */
  gsize   peak;           /* the most one level's pool used */
  gsize   peak_sum;       /* the levels' peaks, summed */
  guint64 n_spills;       /* times a level moved its open chunk's items to its file */
  guint64 spilled;        /* items moved so */
  guint64 n_pages;        /* pages of closed lanes written to the levels' files */
  guint64 paged;          /* closed lanes in them (a merge of pages counts its lanes again) */
  guint64 closed_peak;    /* the most closed lanes a level held in memory */
  gsize   runs_peak;      /* the most bytes of spilled runs' records one level held */
  gsize   runs_bound;     /* what they may be: the budget and one spill's more */
  guint64 runs_made;      /* spilled runs' records made in all */
  guint64 n_runs_pages;   /* pages of every lane's runs written (a level's budget in them) */
  guint64 n_switched;     /* lanes counted from a spill on, their items not kept */
  guint64 n_switch_deferred; /* chunks that stored one of them: computed at the end */
  guint64 n_proven;       /* chunks proven plain, not counted (strata-zoom-plain.c) */
  guint64 n_proofs_failed; /* chunks whose proof failed: decided at the end */
} StrataZoomPoolMemory;

void     strata_zoom_tree_get_pool_memory  (StrataZoomTree        *self,
                                            StrataZoomPoolMemory  *memory);
void     strata_zoom_tree_set_pool_budget  (StrataZoomTree        *self,
                                            gsize                  budget);

typedef struct
{
  guint   n_ranks;
  gint64  first;
  gint64  last;
  guint64 n_buffers;
  guint64 n_left_out;
  guint64 size;
} StrataZoomTreeState;

void     strata_zoom_tree_get_state       (StrataZoomTree       *self,
                                           StrataZoomTreeState  *state);
guint    strata_zoom_tree_get_n_rank_chunks (StrataZoomTree     *self,
                                             guint               rank,
                                             guint              *n_plain);
gboolean strata_zoom_tree_peek_rank_chunk (StrataZoomTree       *self,
                                           guint                 rank,
                                           guint                 i,
                                           StrataZoomChunkView  *view,
                                           GError              **error);
void     strata_zoom_chunk_view_clear     (StrataZoomChunkView  *view);
StrataZoomTree *strata_zoom_tree_new_mapped (const StrataZoomParams    *params,
                                             const StrataZoomTreeState *state,
                                             StrataIndexMap            *map,
                                             const StrataIndexLevel    *levels,
                                             StrataRawStore            *raw,
                                             GError                   **error);
const char *strata_zoom_tree_get_damage   (StrataZoomTree       *self);
guint64     strata_zoom_tree_get_n_lane_states (StrataZoomTree   *self);
guint       strata_zoom_tree_get_n_lane_id_pages (StrataZoomTree *self,
                                                  guint64        *bytes);
guint       strata_zoom_tree_get_stream_room (StrataZoomTree *self,
                                              guint          *buffer_room);
void        strata_zoom_tree_note_build_memory (StrataZoomTree *self,
                                                const char     *where);

G_END_DECLS
