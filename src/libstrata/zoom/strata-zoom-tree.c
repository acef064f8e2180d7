/* strata-zoom-tree.c
 *
 * How the pass works. Activities reach the tree complete (from the kernel
 * model's sink, in the order they end) and, at each advance, the model says
 * up to where its output is final (the horizon) and which activities are
 * still open. The buffer former keeps the activities not yet delivered in
 * start order and cuts the stream at times e < horizon into adjacent
 * buffers; a buffer holds every activity overlapping it, clipped, with
 * continuation flags where it was cut.
 *
 * Levels are kept by rank while building: rank 0 has the longest chunk
 * that fits in 2^62 ns and the last rank 1 ns per pixel, so a level's
 * chunks never depend on where the trace ends. When the pass ends, the
 * finest rank whose one chunk holds the whole trace becomes level 0.
 *
 * The chunking criterion: a chunk is dense when at least T activities
 * start inside it. (The seed counts the activities that overlap a chunk;
 * with a thousand sleeping threads every chunk down to 1 ns per pixel
 * would then be dense, so the stack of aggregators could never shrink.
 * What the seed's own look-ahead counts is the activities that start.) A
 * child chunk is never denser than its parent, so the dense chunks form a
 * tree whose depth follows the data, as in FIG. 7.
 *
 * A level's first chunk, the one holding the stream's first activity,
 * began before the stream did; it is computed from the raw store when the
 * pass ends, with the on-demand code. (For the coarsest levels that chunk
 * is the whole trace, and which of them is level 0 is known only then.)
 * A source that says its span when it opens lets level 0 and the finer
 * levels aggregate their first chunk in the pass instead
 * (strata_zoom_tree_set_span_hint()).
 *
 * This file is the tree's life: made with its parameters (or over a
 * mapped index), fed and finished by the pass, and asked about; the
 * buffer former (strata-buffer-former.c), the levels' lanes and pools
 * (strata-zoom-lanes.c), their aggregation (strata-zoom-level.c), the
 * level spill (strata-level-spill.c), the chunk store
 * (strata-chunk-store.c) and the query (strata-zoom-query.c) are in
 * files of their own, sharing strata-zoom-tree-internal.h; the thread
 * that publishes into the raw store is strata-raw-publisher.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "strata-block-packer.h"
#include "strata-chunk-keys.h"
#include "strata-error.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-spill-file.h"
#include "strata-zoom-chunk.h"
#include "strata-zoom-tree.h"
#include "strata-zoom-tree-internal.h"
#include "strata-zoom-tree-private.h"

/**
 * strata_zoom_params_init:
 *
 * The defaults: F = 4, W = 8192 pixels (a viewport is drawn from the
 * finest level whose chunk holds it, two chunks at most, at a resolution of
 * at least one item per 2 pixels of a 3840-pixel 4K screen), T = 1000 and
 * adaptive buffers.
 */
void
strata_zoom_params_init (StrataZoomParams *params)
{
  g_return_if_fail (params != NULL);

  params->zoom_factor = STRATA_ZOOM_DEFAULT_FACTOR;
  params->pixels_per_chunk = STRATA_ZOOM_DEFAULT_PIXELS_PER_CHUNK;
  params->density_threshold = STRATA_ZOOM_DEFAULT_DENSITY;
  params->buffer_criterion = STRATA_BUFFER_ADAPTIVE;
  params->buffer_interval = 25 * G_GINT64_CONSTANT (1000000);
  params->buffer_count = STRATA_ZOOM_DEFAULT_DENSITY;
  /* Two threads did not pay on a 2-core machine: see bench/RESULTS-zoom-tree.md. */
  params->min_reduction = 2;
  /* The levels take a buffer while the model makes the next, so the pass
   * costs the larger of the two stages, not their sum, where a core is
   * free for it: on two cores, with the reader and the packer's threads
   * beside them, 12-14% less time (bench/RESULTS-index.md), once the
   * levels could be N_BUFFERS behind (four were too few: the two stages
   * waited for each other at every other buffer). Not on one core.
   * StrataParameters.pipelined (STRATA_ZOOM_PIPELINED=0 or 1) says. */
  {
    g_auto(StrataParameters) parameters;

    strata_parameters_init_from_environment (&parameters);
    params->pipelined = parameters.pipelined >= 0 ? parameters.pipelined : g_get_num_processors () > 1;
  }
  params->parameters = NULL;
}

StrataZoomTree *
strata_zoom_tree_new (const StrataZoomParams  *params,
                      GError                 **error)
{
  g_autoptr(StrataZoomTree) self = NULL;
  StrataZoomGeometry g;
  guint root;
  StrataParameters parameters;
  gsize pool_budget;
  guint page_lanes;
  gboolean count_switch;

  g_return_val_if_fail (params != NULL, NULL);

  if (params->parameters != NULL)
    parameters = *params->parameters;
  else
    {
      strata_parameters_init_from_environment (&parameters);
      strata_parameters_clear (&parameters);
    }
  parameters.index_dir = NULL;   /* not the tree's business, and not kept */
  pool_budget = strata_parameter_or (parameters.pool_budget, POOL_BUDGET);
  /* The tests page every few closed lanes (0: never). */
  page_lanes = (guint) strata_parameter_or (parameters.closed_page_lanes, CLOSED_PAGE_LANES);
  count_switch = parameters.count_switch != 0;

  if (!strata_zoom_geometry_init (&g, 0, 0, params->zoom_factor, params->pixels_per_chunk,
                                  params->density_threshold, error))
    return NULL;
  if ((params->buffer_criterion == STRATA_BUFFER_FIXED_INTERVAL && params->buffer_interval <= 0) ||
      (params->buffer_criterion == STRATA_BUFFER_FIXED_COUNT && params->buffer_count == 0) ||
      params->buffer_criterion > STRATA_BUFFER_FIXED_COUNT)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_FAILED,
                   "buffer criterion: an interval or a count must be positive");
      return NULL;
    }

  self = g_new0 (StrataZoomTree, 1);
  self->params = *params;
  self->params.parameters = &self->parameters;
  self->parameters = parameters;
  self->spill_windows = strata_parameter_or (parameters.spill_windows, SPILL_WINDOWS);

  /* Rank 0: the longest chunk of the form W * F^k ns below 2^62. */
  root = g.pixels_log2;
  while (root + g.factor_log2 <= 61)
    root += g.factor_log2;
  self->ranks = g;
  self->ranks.root_log2 = root;
  self->ranks.n_levels = self->n_ranks = (root - g.pixels_log2) / g.factor_log2 + 1;
  self->hint_root = self->n_ranks;
  g_assert (self->n_ranks <= MAX_RANKS);

  for (guint r = 0; r < self->n_ranks; r++)
    {
      Level *level = &self->levels[r];

      level->threshold = strata_zoom_geometry_pixel (&self->ranks, r);
      level->touched = g_ptr_array_new ();
      level->free_lanes = g_ptr_array_new ();
      level->place_of = g_array_new (FALSE, TRUE, sizeof (guint32));
      level->closed = g_array_new (FALSE, FALSE, sizeof (ClosedLane));
      level->chunk = -1;
      level->first_chunk = -1;
      level->memo_index = -1;
      level->chunks = g_ptr_array_new ();
      level->spans = strata_spilled_array_new (sizeof (ChannelSpan));
      level->span_pays = g_array_new (FALSE, FALSE, sizeof (guint8));
      level->deferred = g_array_new (FALSE, FALSE, sizeof (Deferred));
      level->pool = g_ptr_array_new_with_free_func (g_free);
      level->pool_budget = pool_budget;
      level->spill_fd = -1;
      level->runs = g_array_new (FALSE, FALSE, sizeof (PoolRun));
      level->pages = g_array_new (FALSE, FALSE, sizeof (ClosedPage));
      level->page_lanes = page_lanes;
      level->min_reduction = MAX (params->min_reduction, 1);
      level->no_switch = !count_switch;
      level->spill_io = g_array_new (FALSE, FALSE, 1);
      level->spill_starts = g_array_new (FALSE, FALSE, sizeof (guint64));
      level->spill_order = g_array_new (FALSE, FALSE, sizeof (guint64));
    }

  g_mutex_init (&self->arena_lock);
  g_mutex_init (&self->piece_lock);
  self->arena = g_ptr_array_new_with_free_func (free);
  self->big = g_ptr_array_new_with_free_func (g_free);
  self->raw = strata_raw_store_new_with_parameters (&parameters);
  self->spill_from = strata_parameter_or (parameters.chunk_spill_from, CHUNK_SPILL_FROM);
  self->spill_queue = CHUNK_SPILL_QUEUE;
  self->spilling = self->spill_from == 0;
  g_rw_lock_init (&self->lock);
  self->incoming = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->pending = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->open = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->open_next = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->open_by_start = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->merge = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->sort_scratch = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->sort_keys = g_array_new (FALSE, FALSE, 16);
  self->starts = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < N_BUFFERS; i++)
    {
      self->buffers[i].pieces = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      self->buffers[i].lanes = g_array_new (FALSE, FALSE, sizeof (guint32));
      self->buffers[i].closes = g_array_new (FALSE, FALSE, sizeof (guint32));
    }
  self->closing = g_array_new (FALSE, FALSE, sizeof (ChannelClose));
  self->sealing = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->buffer = &self->buffers[0];
  self->lane_ids = g_ptr_array_new_with_free_func (g_free);
  self->ids_open = g_array_new (FALSE, TRUE, sizeof (guint16));
  self->slot_of = strata_spilled_array_new (sizeof (guint32));
  self->slot_refs = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->free_slots = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->horizon = G_MININT64;
  self->wait_horizon = G_MAXINT64;
  self->first = G_MAXINT64;
  self->last = G_MININT64;
  self->first_top = -1;
  self->hint_last = G_MININT64;
  {
    static guint64 serials;

    self->serial = __atomic_add_fetch (&serials, 1, __ATOMIC_RELAXED);
  }
  /* StrataParameters.span_cut says otherwise (the tests cut every span). */
  self->span_cut_from = (guint) strata_parameter_or (parameters.span_cut, SPAN_CUT_FROM);

  return g_steal_pointer (&self);
}

/* Chunks are never freed one by one, so they are carved from big blocks:
 * one allocation per 16 MiB, not per chunk, in huge pages where the kernel
 * offers them (writing the chunks into fresh 4 KiB pages cost a third of
 * the pass in page faults on a virtual machine). */
#define ARENA_BLOCK (16u << 20)
#define HUGE_PAGE   (2u << 20)

static gpointer
arena_block_new (void)
{
  gpointer block = NULL;

  if (posix_memalign (&block, HUGE_PAGE, ARENA_BLOCK) != 0)
    g_error ("zoom tree: out of memory for %u bytes of chunks", ARENA_BLOCK);
#ifdef MADV_HUGEPAGE
  madvise (block, ARENA_BLOCK, MADV_HUGEPAGE);
#endif
  return block;
}

gpointer
strata_zoom_tree_arena_alloc (StrataZoomTree *self,
                              gsize           size)
{
  gpointer p;

  size = (size + 15) & ~(gsize) 15;
  if (size > ARENA_BLOCK / 4)
    {
      p = g_malloc (size);
      g_ptr_array_add (self->big, p);
      return p;
    }

  if (self->arena_left < size)
    {
      self->arena_next = arena_block_new ();
      self->arena_left = ARENA_BLOCK;
      g_ptr_array_add (self->arena, self->arena_next);
    }
  p = self->arena_next;
  self->arena_next += size;
  self->arena_left -= size;

  return p;
}

static void
lane_blocks_free (Level *level)
{
  for (guint b = 0; b < level->n_lane_blocks; b++)
    {
      Lane *block = level->lane_blocks[b];

      if (block == NULL)
        continue;
      for (guint i = 0; i < LANE_BLOCK; i++)
        if (block[i].run.threshold != 0)
          strata_aggregate_run_clear (&block[i].run);
      g_aligned_free (block);
    }
  g_clear_pointer (&level->lane_blocks, g_free);
  level->n_lane_blocks = 0;
}

void
strata_zoom_tree_free (StrataZoomTree *self)
{
  if (self == NULL)
    return;

  g_clear_pointer (&self->publisher, strata_raw_publisher_free);
  strata_zoom_tree_stop_aggregator (self);
  g_mutex_clear (&self->arena_lock);

  for (guint r = 0; r < self->n_ranks; r++)
    {
      Level *level = &self->levels[r];

      lane_blocks_free (level);
      g_ptr_array_unref (level->pool);
      g_array_unref (level->runs);
      g_array_unref (level->pages);
      g_array_unref (level->spill_io);
      g_array_unref (level->spill_starts);
      g_array_unref (level->spill_order);
      if (level->spill_fd >= 0)
        close (level->spill_fd);
      g_ptr_array_unref (level->touched);
      g_ptr_array_unref (level->free_lanes);
      g_array_unref (level->place_of);
      g_array_unref (level->closed);
      g_ptr_array_unref (level->chunks);
      strata_spilled_array_free (level->spans);
      g_array_unref (level->span_pays);
      for (guint i = 0; i < level->deferred->len; i++)
        g_clear_pointer (&g_array_index (level->deferred, Deferred, i).channels, g_array_unref);
      g_array_unref (level->deferred);
      strata_checked_array_clear (&level->records);
      for (guint i = 0; level->record_items != NULL && i < level->records.n; i++)
        if (level->record_items[i] != NULL)
          {
            strata_packed_array_clear (level->record_items[i]);
            g_free (level->record_items[i]);
          }
      g_free (level->record_items);
      g_free (level->record_state);
    }
  g_clear_pointer (&self->map, strata_index_map_unref);
  g_clear_pointer (&self->arena, g_ptr_array_unref);
  g_clear_pointer (&self->big, g_ptr_array_unref);
  g_clear_pointer (&self->raw, strata_raw_store_free);
  for (guint i = 0; i < self->n_pieces; i++)
    strata_zoom_tree_chunk_piece_unref (self->pieces[i]);
  g_mutex_clear (&self->piece_lock);
  g_clear_pointer (&self->packer, strata_block_packer_free);
  g_rw_lock_clear (&self->lock);
  g_clear_pointer (&self->incoming, g_array_unref);
  g_clear_pointer (&self->pending, g_array_unref);
  g_clear_pointer (&self->open, g_array_unref);
  g_clear_pointer (&self->open_next, g_array_unref);
  g_clear_pointer (&self->open_by_start, g_array_unref);
  g_clear_pointer (&self->merge, g_array_unref);
  g_clear_pointer (&self->sort_scratch, g_array_unref);
  g_clear_pointer (&self->sort_keys, g_array_unref);
  g_clear_pointer (&self->starts, g_array_unref);
  for (guint i = 0; i < N_BUFFERS; i++)
    {
      g_clear_pointer (&self->buffers[i].pieces, g_array_unref);
      g_clear_pointer (&self->buffers[i].lanes, g_array_unref);
      g_clear_pointer (&self->buffers[i].closes, g_array_unref);
    }
  g_clear_pointer (&self->lane_ids, g_ptr_array_unref);
  g_clear_pointer (&self->ids_open, g_array_unref);
  g_clear_pointer (&self->slot_of, strata_spilled_array_free);
  strata_zoom_tree_plain_clear (self);
  g_clear_pointer (&self->slot_refs, g_array_unref);
  g_clear_pointer (&self->free_slots, g_array_unref);
  g_clear_pointer (&self->closing, g_array_unref);
  g_clear_pointer (&self->sealing, g_array_unref);
  g_free (self);
}

void
strata_zoom_tree_set_buffer_func (StrataZoomTree       *self,
                                  StrataZoomBufferFunc  func,
                                  gpointer              user_data)
{
  g_return_if_fail (self != NULL);

  /* It may ask about the tree as it stands (level_of_rank()): the
   * publishing steps from now on are the advance's own. */
  if (func != NULL)
    strata_zoom_tree_stop_publisher (self);
  self->buffer_func = func;
  self->buffer_data = user_data;
}

/**
 * strata_zoom_tree_set_span_hint:
 * @first: when the stream's first activity is expected to start
 * @last: the last instant it is expected to cover
 *
 * Says, before the first activity is added, what the source says of the
 * stream's span (#StrataSourceInfo's span_first and span_last). Level 0,
 * the finest rank whose one chunk holds the whole stream, is then known
 * from the start, so it and the finer levels aggregate their first chunk
 * in the pass, as every later chunk, instead of computing it from the raw
 * store when the pass ends (on a big trace, level 0's one chunk is a
 * second pass over every activity). The tree is the same, byte for byte,
 * whatever the hint: where the stream turns out longer, the levels the
 * hint missed compute their first chunk at the end as without one; where
 * shorter, the ranks that turn out coarser than level 0 drop what they
 * made (strata_zoom_tree_finish()).
 */
void
strata_zoom_tree_set_span_hint (StrataZoomTree *self,
                                gint64          first,
                                gint64          last)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (!self->started);

  if (first > last || first < 0 || last >= TIME_LIMIT)
    return;
  self->hint_last = last;
}

/**
 * strata_zoom_tree_add:
 * @activity: a complete activity
 * @tree: a #StrataZoomTree
 *
 * A #StrataActivityFunc, so the tree can be the kernel model's sink. The
 * activity is taken in at the next strata_zoom_tree_advance().
 */
void
strata_zoom_tree_add (const StrataActivity *activity,
                      gpointer              tree)
{
  StrataZoomTree *self = tree;

  g_return_if_fail (!self->finished);

  if G_UNLIKELY (activity->start < 0 || activity->end >= TIME_LIMIT || activity->end < activity->start)
    {
      /* Said once: a clock with an offset could make every activity so. */
      if (self->n_left_out++ == 0)
        g_warning ("zoom tree: activity %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT
                   " is outside 0..2^62 ns; it and any other such are left out",
                   activity->start, activity->end);
      return;
    }

  g_array_append_vals (self->incoming, activity, 1);
}

/* A level's spans scratch, empty and without the room a chunk over
 * every thread of the trace gave it (a level's last chunk at the pass's
 * end, 12 + 1 bytes a channel: tens of MB over a million threads, held
 * through the index write when only emptied). */
void
strata_zoom_tree_level_renew_scratch (Level *level)
{
  strata_spilled_array_free (level->spans);
  g_array_unref (level->span_pays);
  level->spans = strata_spilled_array_new (sizeof (ChannelSpan));
  level->span_pays = g_array_new (FALSE, FALSE, sizeof (guint8));
}

/* The builder's state, once the tree is finished: nothing of it is read
 * again (the queries read the chunks, the raw store and the open
 * activities, emptied), and the index is written after, the pass's peak:
 * the levels' pools (a few MB each), lane states and scratch arrays, the
 * buffers and the lane ids (a page per 1 024 channels). */
void
strata_zoom_tree_release_build_state (StrataZoomTree *self)
{
  GArray **arrays[] = { &self->pending, &self->merge, &self->sort_scratch, &self->sort_keys,
                        &self->starts, &self->closing, &self->sealing };

  for (guint r = 0; r < self->n_ranks; r++)
    {
      Level *level = &self->levels[r];

      g_assert (level->touched->len == 0 && level->closed->len == 0);
      lane_blocks_free (level);
      g_ptr_array_set_size (level->free_lanes, 0);
      level->n_taken = 0;
      g_array_unref (level->place_of);
      level->place_of = g_array_new (FALSE, TRUE, sizeof (guint32));
      g_ptr_array_set_size (level->pool, 0);
      level->pool_block = 0;
      level->pool_used = 0;
      g_array_set_size (level->runs, 0);
      g_array_set_size (level->spill_io, 0);
      g_array_set_size (level->spill_starts, 0);
      g_array_set_size (level->spill_order, 0);
      strata_zoom_tree_level_renew_scratch (level);
      if (level->spill_fd >= 0)
        {
          close (level->spill_fd);
          level->spill_fd = -1;
        }
    }
  /* GArrays keep their room when emptied: fresh ones instead. */
  for (guint i = 0; i < G_N_ELEMENTS (arrays); i++)
    {
      guint size = g_array_get_element_size (*arrays[i]);

      g_array_unref (*arrays[i]);
      *arrays[i] = g_array_new (FALSE, FALSE, size);
    }
  for (guint i = 0; i < N_BUFFERS; i++)
    {
      g_array_unref (self->buffers[i].pieces);
      g_array_unref (self->buffers[i].lanes);
      g_array_unref (self->buffers[i].closes);
      self->buffers[i].pieces = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      self->buffers[i].lanes = g_array_new (FALSE, FALSE, sizeof (guint32));
      self->buffers[i].closes = g_array_new (FALSE, FALSE, sizeof (guint32));
    }
  for (guint r = 0; r < self->n_ranks; r++)
    {
      Level *level = &self->levels[r];

      g_array_unref (level->runs);
      level->runs = g_array_new (FALSE, FALSE, sizeof (PoolRun));
      g_array_unref (level->spill_io);
      level->spill_io = g_array_new (FALSE, FALSE, 1);
      g_array_unref (level->spill_order);
      level->spill_order = g_array_new (FALSE, FALSE, sizeof (guint64));
      g_array_unref (level->closed);
      level->closed = g_array_new (FALSE, FALSE, sizeof (ClosedLane));
    }
  g_ptr_array_set_size (self->lane_ids, 0);
  g_array_set_size (self->ids_open, 0);
  self->closing_head = 0;
  strata_spilled_array_free (self->slot_of);
  self->slot_of = strata_spilled_array_new (sizeof (guint32));
  strata_zoom_tree_plain_clear (self);
  g_array_unref (self->slot_refs);
  self->slot_refs = g_array_new (FALSE, TRUE, sizeof (guint32));
  g_array_set_size (self->free_slots, 0);
}

gboolean
strata_zoom_tree_is_finished (StrataZoomTree *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->finished;
}

const StrataZoomParams *
strata_zoom_tree_get_params (StrataZoomTree *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return &self->params;
}

void
strata_zoom_tree_current_geometry (StrataZoomTree     *self,
                                   StrataZoomGeometry *g,
                                   guint              *root)
{
  *root = strata_zoom_tree_root_rank (self);
  *g = self->ranks;
  g->root_log2 = self->ranks.root_log2 - *root * self->ranks.factor_log2;
  g->n_levels = self->n_ranks - *root;
}

/* The lane states the levels hold (for the tests: it follows the lanes
 * one chunk touches, not the lanes ever seen). */
guint64
strata_zoom_tree_get_n_lane_states (StrataZoomTree *self)
{
  guint64 n = 0;

  g_return_val_if_fail (self != NULL, 0);

  for (guint r = 0; r < self->n_ranks; r++)
    n += self->levels[r].n_lane_states;
  return n;
}

/* The pages of lane ids held (a page none of whose channels with lanes
 * is open is let go), for the tests; @bytes (or NULL): what they and
 * their tables take. */
guint
strata_zoom_tree_get_n_lane_id_pages (StrataZoomTree *self,
                                      guint64        *bytes)
{
  guint n = 0;

  g_return_val_if_fail (self != NULL, 0);

  for (guint p = 0; p < self->lane_ids->len; p++)
    n += g_ptr_array_index (self->lane_ids, p) != NULL;
  if (bytes != NULL)
    *bytes = (guint64) n * LANE_ID_PAGE * N_LANES * sizeof (guint32) +
             (guint64) self->lane_ids->len * sizeof (gpointer) +
             (guint64) self->ids_open->len * sizeof (guint16);
  return n;
}

/* The most activities the buffer former's stream arrays were sized for
 * since they were last made, and the most pieces one of its buffers was
 * (a burst's must go back: strata-buffer-former.c), for the tests. */
guint
strata_zoom_tree_get_stream_room (StrataZoomTree *self,
                                  guint          *buffer_room)
{
  g_return_val_if_fail (self != NULL, 0);

  if (buffer_room != NULL)
    {
      *buffer_room = 0;
      for (guint i = 0; i < N_BUFFERS; i++)
        *buffer_room = MAX (*buffer_room, self->buffers[i].room);
    }
  return self->stream_room;
}

/* What the levels' build state takes, for STRATA_DEBUG_MEMORY (the lane
 * states, their candidates, the lane tables, the pools and the spilled
 * runs): logged with g_message, with the raw store's resident bytes. */
void
strata_zoom_tree_note_build_memory (StrataZoomTree *self,
                                    const char     *where)
{
  guint64 states = 0, touched = 0, lane_bytes = 0, keys = 0, tables = 0, runs = 0, pools = 0, closed = 0;

  g_return_if_fail (self != NULL);

  /* The raw store is the publisher's while it has steps to do. */
  if (self->publisher != NULL)
    strata_raw_publisher_wait (self->publisher);

  /* Pipelined, the levels are the aggregator thread's until the finish. */
  if (self->aggregator != NULL)
    {
      /* The buffer former's arrays are the calling pass's own. */
      g_message ("zoom tree at %s: the levels are busy in their own thread; "
                 "%u activities incoming, %u pending, %u merging, %u starts, %u open",
                 where, self->incoming->len, self->pending->len, self->merge->len,
                 self->starts->len, self->open->len);
      return;
    }

  for (guint r = 0; r < self->n_ranks; r++)
    {
      const Level *level = &self->levels[r];
      guint64 k = 0;

      for (guint b = 0; b < level->n_lane_blocks; b++)
        if (level->lane_blocks[b] != NULL)
          {
            lane_bytes += LANE_BLOCK * sizeof (Lane);
            for (guint i = 0; i < LANE_BLOCK; i++)
              k += level->lane_blocks[b][i].run.keys_alloc * (guint64) 24 +
                   level->lane_blocks[b][i].run.n_slots * (guint64) sizeof (guint64);
          }
      keys += k;
      states += level->n_lane_states;
      touched += level->touched->len;
      tables += (guint64) level->place_of->len * sizeof (guint32);
      runs += level->runs != NULL ? (guint64) level->runs->len * sizeof (PoolRun) : 0;
      closed += level->closed != NULL ? (guint64) level->closed->len * sizeof (ClosedLane) : 0;
      pools += level->pool != NULL ? (guint64) level->pool->len * POOL_BLOCK : 0;
      if (level->n_lane_states > 0)
        g_message ("  rank %u: %u lane states, %u open now, %u closed, candidates %" G_GUINT64_FORMAT
                   " kB, %u runs", r, level->n_lane_states, level->touched->len,
                   level->closed != NULL ? level->closed->len : 0, k >> 10,
                   level->runs != NULL ? level->runs->len : 0);
    }
  g_message ("zoom tree at %s: %" G_GUINT64_FORMAT " lane states (%" G_GUINT64_FORMAT " open now), "
             "%" G_GUINT64_FORMAT " kB of them, %" G_GUINT64_FORMAT " kB candidates, %" G_GUINT64_FORMAT
             " kB lane places by slot, %" G_GUINT64_FORMAT " kB runs, %" G_GUINT64_FORMAT " kB closed lanes, %"
             G_GUINT64_FORMAT " kB pools, %u lane ids; "
             "raw store %" G_GUINT64_FORMAT " kB resident, %u channels",
             where, states, touched, lane_bytes >> 10, keys >> 10, tables >> 10, runs >> 10, closed >> 10, pools >> 10,
             self->n_lane_ids, self->raw != NULL ? strata_raw_store_get_resident_bytes (self->raw) >> 10 : 0,
             self->raw != NULL ? strata_raw_store_get_n_channels (self->raw) : 0);
}

/**
 * strata_zoom_tree_get_geometry:
 * @geometry: (out): the levels as they stand: level 0's one chunk holds
 *   everything added so far
 *
 * Returns: %FALSE while the tree holds nothing
 */
gboolean
strata_zoom_tree_get_geometry (StrataZoomTree     *self,
                               StrataZoomGeometry *geometry)
{
  guint root;

  g_return_val_if_fail (self != NULL && geometry != NULL, FALSE);

  strata_zoom_tree_read_lock (self);
  strata_zoom_tree_current_geometry (self, geometry, &root);
  g_rw_lock_reader_unlock (&self->lock);

  return self->first <= self->last;
}

/* The level, in the geometry as it stands, of a rank given to a
 * #StrataZoomBufferFunc; G_MAXUINT for a rank coarser than level 0. */
guint
strata_zoom_tree_level_of_rank (StrataZoomTree *self,
                                guint           rank)
{
  guint root = strata_zoom_tree_root_rank (self);

  return rank < root ? G_MAXUINT : rank - root;
}

/* The levels the tree is built with: rank 0's chunk is the longest below
 * 2^62 ns, the last rank has 1 ns per pixel. */
void
strata_zoom_tree_get_rank_geometry (StrataZoomTree     *self,
                                    StrataZoomGeometry *geometry)
{
  g_return_if_fail (self != NULL && geometry != NULL);
  *geometry = self->ranks;
}

StrataRawStore *
strata_zoom_tree_get_raw_store (StrataZoomTree *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->raw;
}

guint64
strata_zoom_tree_get_n_buffers (StrataZoomTree *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_buffers;
}

/* Pre-calculated chunks and the tree's own size, without the raw store. */
gsize
strata_zoom_tree_get_size (StrataZoomTree *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->size;
}

/* Chunk @i of a mapped level: its spans with its blocks' keys, and the
 * checksums of its items' table, are checked the first time it is found; the items, block by
 * block, when a query decodes them (chunk_span_items()). */
gboolean
strata_zoom_tree_mapped_chunk (StrataZoomTree *self,
                               Level          *level,
                               guint           i,
                               Chunk          *out)
{
  const StrataIndexChunk *rec = (const StrataIndexChunk *)(gconstpointer) level->records.data + i;
  gsize keys_at = strata_index_keys_offset (rec->n_channels);
  gsize changes_at = keys_at + strata_index_n_keys (rec->n_items) * sizeof (StrataIndexItemKey);
  gsize blob_size = changes_at + (gsize) rec->n_changes * sizeof (guint32);
  guint64 n_sums = ((guint64) rec->n_items + STRATA_INDEX_ITEM_BLOCK - 1) / STRATA_INDEX_ITEM_BLOCK;
  gint state = g_atomic_int_get (&level->record_state[i]);
  gsize map_size;
  const guint8 *base = strata_index_map_get_data (self->map, &map_size);

  n_sums = (n_sums + STRATA_INDEX_TABLE_BLOCK - 1) / STRATA_INDEX_TABLE_BLOCK;
  if (state == 2)
    return FALSE;
  if (state == 0)
    {
      StrataPackedArray *items = g_new0 (StrataPackedArray, 1);
      gboolean ok = rec->offset % 8 == 0 &&
                    strata_index_map_contains (self->map, rec->offset, blob_size, 1) &&
                    strata_packed_array_init (items, self->map, rec->items_offset, rec->items_sums_offset,
                                              rec->n_items, sizeof (StrataZoomItem), STRATA_INDEX_ITEM_BLOCK,
                                              "chunk items") &&
                    strata_index_map_verify (self->map, base + rec->offset, blob_size, rec->checksum) &&
                    strata_index_map_verify (self->map, base + rec->items_sums_offset, n_sums * sizeof (guint64),
                                             rec->sums_checksum);

      for (guint c = 0; ok && c < rec->n_channels; c++)
        {
          const ChannelSpan *span = (const ChannelSpan *)(gconstpointer)(base + rec->offset) + c;

          ok = span->first <= rec->n_items && span->n_items <= rec->n_items - span->first;
        }
      /* The lane changes are items of the chunk after its first, each
       * after the one before. */
      for (guint k = 0; ok && k < rec->n_changes; k++)
        {
          const guint32 *at = (const guint32 *)(gconstpointer)(base + rec->offset + changes_at) + k;

          ok = *at > 0 && *at < rec->n_items && (k == 0 || *at > at[-1]);
        }
      if (!ok)
        {
          strata_packed_array_clear (items);
          g_free (items);
          strata_index_map_note_damage (self->map, "chunk %" G_GINT64_FORMAT " fails its checksum",
                                        rec->index);
          g_atomic_int_set (&level->record_state[i], 2);
          return FALSE;
        }
      if (!g_atomic_pointer_compare_and_exchange (&level->record_items[i], NULL, items))
        {
          strata_packed_array_clear (items);
          g_free (items);
        }
      g_atomic_int_set (&level->record_state[i], 1);
    }

  out->index = rec->index;
  out->at_end = rec->at_end != 0;
  out->n_channels = rec->n_channels;
  out->channels = (ChannelSpan *)(gpointer)(base + rec->offset);
  out->n_items = rec->n_items;
  out->items = NULL;
  out->packed = g_atomic_pointer_get (&level->record_items[i]);
  out->spilled = NULL;
  out->first_block = 0;
  out->keys = (const StrataIndexItemKey *)(gconstpointer)(base + rec->offset + keys_at);
  out->changes = (const guint32 *)(gconstpointer)(base + rec->offset + changes_at);
  out->n_changes = rec->n_changes;
  out->piece_offset = G_MAXUINT64;
  out->piece_checksum = 0;
  out->piece = NULL;
  return TRUE;
}

/* Chunk @i of @rank, for the index writer: its spans, keys and changes
 * valid until strata_zoom_chunk_view_clear(). FALSE for a mapped tree's
 * (nothing set), and with @error set for a spilled one whose spans cannot
 * be read back. */
gboolean
strata_zoom_tree_peek_rank_chunk (StrataZoomTree      *self,
                                  guint                rank,
                                  guint                i,
                                  StrataZoomChunkView *view,
                                  GError             **error)
{
  Level *level = &self->levels[rank];
  const Chunk *stored;
  Chunk chunk;

  g_return_val_if_fail (rank < self->n_ranks && i < strata_zoom_tree_level_n_chunks (level), FALSE);

  view->hold = NULL;
  view->piece_offset = G_MAXUINT64;
  view->piece_size = 0;
  view->piece_checksum = 0;
  /* The writer writes built trees: a mapped one has its items packed. */
  if (level->record_state != NULL)
    return FALSE;
  stored = g_ptr_array_index (level->chunks, i);
  if (stored->piece_offset != G_MAXUINT64)
    {
      /* Not read back: the writer copies the piece from the file a
       * window at a time (the first chunk of a coarse level over a
       * million threads has tens of MB of spans). */
      view->index = stored->index;
      view->at_end = stored->at_end;
      view->n_channels = stored->n_channels;
      view->channels = NULL;
      view->n_items = stored->n_items;
      view->items = NULL;
      view->packer = stored->spilled;
      view->first_block = stored->first_block;
      view->keys = NULL;
      view->changes = NULL;
      view->n_changes = stored->n_changes;
      view->piece_offset = stored->piece_offset;
      view->piece_size = strata_zoom_tree_chunk_piece_size (stored);
      view->piece_checksum = stored->piece_checksum;
      return TRUE;
    }
  if (!strata_zoom_tree_chunk_resolve (self, stored, FALSE, &chunk))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_FAILED,
                   "the spans of chunk %u of rank %u cannot be read back from the spill file", i, rank);
      return FALSE;
    }

  view->index = chunk.index;
  view->at_end = chunk.at_end;
  view->n_channels = chunk.n_channels;
  view->channels = (const StrataIndexSpan *)(gconstpointer) chunk.channels;
  view->n_items = chunk.n_items;
  view->items = chunk.items;
  view->packer = chunk.spilled;
  view->first_block = chunk.first_block;
  view->keys = chunk.keys;
  view->changes = chunk.changes;
  view->n_changes = chunk.n_changes;
  view->hold = chunk.piece;
  return TRUE;
}

/* Drops what strata_zoom_tree_peek_rank_chunk() lent @view. */
void
strata_zoom_chunk_view_clear (StrataZoomChunkView *view)
{
  g_clear_pointer (&view->hold, strata_zoom_tree_chunk_piece_unref);
}

/* Where the pre-calculated chunks' bytes are (the tests' bound on what a
 * build holds). */
void
strata_zoom_tree_get_chunk_memory (StrataZoomTree        *self,
                                   StrataZoomChunkMemory *memory)
{
  StrataBlockPacker *packer;

  g_return_if_fail (self != NULL && memory != NULL);

  memset (memory, 0, sizeof *memory);
  strata_zoom_tree_read_lock (self);
  memory->in_memory = self->in_memory;
  memory->chunk_index = self->chunk_index;
  memory->n_spilled = self->n_spilled;
  memory->n_chunks = self->n_chunks;
  memory->spans = self->spans;
  memory->spill_from = self->spill_from;
  g_rw_lock_reader_unlock (&self->lock);

  /* The spilled chunks' pieces read back are resident too. */
  g_mutex_lock (&self->piece_lock);
  memory->n_pieces = self->n_pieces;
  memory->piece_cache = self->piece_bytes;
  g_mutex_unlock (&self->piece_lock);
  memory->chunk_index += memory->piece_cache;

  g_mutex_lock (&self->arena_lock);
  packer = self->packer;
  g_mutex_unlock (&self->arena_lock);
  if (packer != NULL)
    {
      StrataBlockPackerStats stats;

      strata_block_packer_get_stats (packer, &stats);
      memory->queued = stats.queued;
      memory->peak_queued = stats.peak_queued;
      memory->max_queued = stats.max_queued;
      memory->records = stats.records;
      memory->spilled = stats.written;
      memory->file_size = stats.file_size;
      memory->n_waits = stats.n_waits;
      memory->wait_us = stats.wait_us;
      memory->n_helped = stats.n_helped;
    }
}

/* Spill from @spill_from bytes of items kept (0: from the first chunk),
 * with at most @max_queued bytes waiting for the packer; before the
 * first chunk. */
void
strata_zoom_tree_set_chunk_spill (StrataZoomTree *self,
                                  gsize           spill_from,
                                  gsize           max_queued)
{
  g_return_if_fail (self != NULL && self->packer == NULL);

  self->spill_from = spill_from;
  self->spill_queue = max_queued;
  g_atomic_int_set (&self->spilling, spill_from == 0 || self->in_memory >= spill_from);
}

void
strata_zoom_tree_get_pool_memory (StrataZoomTree       *self,
                                  StrataZoomPoolMemory *memory)
{
  g_return_if_fail (self != NULL && memory != NULL);

  memset (memory, 0, sizeof *memory);
  memory->budget = self->n_ranks > 0 ? self->levels[0].pool_budget : POOL_BUDGET;
  memory->bound = MAX (memory->budget,
                       ((sizeof (Segment) + SEGMENT_MAX * sizeof (StrataZoomItem)) + 15) & ~(gsize) 15);
  for (guint r = 0; r < self->n_ranks; r++)
    {
      const Level *level = &self->levels[r];

      memory->peak = MAX (memory->peak, level->pool_peak);
      memory->peak_sum += level->pool_peak;
      memory->n_spills += level->n_pool_spills;
      memory->spilled += level->pool_spilled;
      memory->n_pages += level->n_pages;
      memory->paged += level->paged;
      memory->closed_peak = MAX (memory->closed_peak, level->closed_peak);
      memory->runs_peak = MAX (memory->runs_peak, level->runs_peak);
      memory->runs_bound = MAX (memory->runs_bound,
                                level->pool_budget + level->spill_lanes_peak * sizeof (PoolRun));
      memory->runs_made += level->runs_made;
      memory->n_runs_pages += level->n_runs_pages;
      memory->n_switched += level->n_switched;
      memory->n_switch_deferred += level->n_switch_deferred;
      memory->n_proven += level->n_proven;
      memory->n_proofs_failed += level->n_proofs_failed;
    }
}

/* A level's open chunk moves its items out of its pool before it would
 * use more than @budget bytes (its blocks' unused ends counted), so it
 * never uses more than the larger of @budget and one segment (a few
 * hundred KiB; a budget below that spills at every new segment); before
 * the first addition. */
void
strata_zoom_tree_set_pool_budget (StrataZoomTree *self,
                                  gsize           budget)
{
  g_return_if_fail (self != NULL && !self->started);

  for (guint r = 0; r < self->n_ranks; r++)
    self->levels[r].pool_budget = budget;
}

/**
 * strata_zoom_tree_new_mapped:
 * @levels: (array): one per rank, as the index has them
 * @raw: (transfer full): the raw store, mapped from the same index
 *
 * A finished tree whose chunk index is a view over @map: nothing of the
 * chunks is read until a query needs it, and each chunk's checksum is
 * verified then.
 */
StrataZoomTree *
strata_zoom_tree_new_mapped (const StrataZoomParams    *params,
                             const StrataZoomTreeState *state,
                             StrataIndexMap            *map,
                             const StrataIndexLevel    *levels,
                             StrataRawStore            *raw,
                             GError                   **error)
{
  g_autoptr(StrataZoomTree) self = strata_zoom_tree_new (params, error);

  if (self == NULL)
    {
      strata_raw_store_free (raw);
      return NULL;
    }
  strata_raw_store_free (self->raw);
  self->raw = raw;

  if (state->n_ranks != self->n_ranks)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%u levels, where the parameters make %u", state->n_ranks, self->n_ranks);
      return NULL;
    }

  self->map = strata_index_map_ref (map);
  for (guint r = 0; r < self->n_ranks; r++)
    {
      Level *level = &self->levels[r];

      if (!strata_checked_array_init (&level->records, map, levels[r].chunks_offset, levels[r].sums_offset,
                                      levels[r].n_chunks, sizeof (StrataIndexChunk),
                                      STRATA_INDEX_CHUNK_BLOCK, "chunk index"))
        {
          g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                       "the chunk index of level %u is out of bounds", r);
          return NULL;
        }
      level->record_state = g_new0 (gint, levels[r].n_chunks + 1);
      level->record_items = g_new0 (StrataPackedArray *, levels[r].n_chunks + 1);
      level->max_index = TIME_LIMIT >> (self->ranks.root_log2 - r * self->ranks.factor_log2);
      level->n_plain = levels[r].n_plain;
    }

  self->first = state->first;
  self->last = state->last;
  self->n_buffers = state->n_buffers;
  self->n_left_out = state->n_left_out;
  self->size = state->size;
  self->started = TRUE;
  self->finished = TRUE;
  self->horizon = G_MAXINT64;

  return g_steal_pointer (&self);
}

/* Returns: (nullable): what a query found damaged in the index the tree
 * was opened from, if anything: its answers may then miss what was there */
const char *
strata_zoom_tree_get_damage (StrataZoomTree *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return strata_index_map_get_damage (self->map);
}
