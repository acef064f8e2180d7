/* strata-zoom-lanes.c
 *
 * What the build costs. Every active level sees every piece, so the work
 * per piece and level is kept small: a buffer's pieces go to all the
 * active levels in one walk (consume()), a piece's lane found once, as
 * the slot its id has while some level has it open; each level finds its
 * state at that slot of a small array of places, the states recycled from
 * chunk to chunk, so they follow one chunk's lanes and not every lane
 * ever seen; and when the model says a thread is gone, its lanes are
 * flushed into the chunk's output at once and their states recycled, so a
 * coarse level's long chunk holds states for the threads alive, not for
 * every thread it saw: strata_zoom_tree_close_channel()), items
 * go into plain arrays and are copied once, into the stored chunk. Below
 * the levels where activities stop being trivial no dense chunk is worth
 * storing, so a level whose last chunk was not only counts the next one:
 * the same rule, without its items; a counted chunk that is worth storing
 * after all is computed from the raw store at the end, like a first
 * chunk. With adaptive buffers the levels can consume buffers in a thread
 * of their own (StrataZoomParams.pipelined), a few buffers behind the
 * buffer former, since they need none of its decisions.
 *
 * Here: the lane ids and their slots, a lane's state in its level, and
 * the level's pool of segments its lanes' items go to.
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
#include "strata-radix-sort.h"
#include "strata-raw-store-private.h"
#include "strata-spill-file.h"
#include "strata-zoom-chunk.h"
#include "strata-zoom-tree.h"
#include "strata-zoom-tree-internal.h"
#include "strata-zoom-tree-private.h"

/* The slot that lane @id has, or G_MAXUINT32 when no level has it open. */
static inline guint32
slot_known (StrataZoomTree *self,
            guint32         id)
{
  if (id >= self->slot_of->len || strata_spilled_array_index (self->slot_of, guint32, id) == 0)
    return G_MAXUINT32;
  return strata_spilled_array_index (self->slot_of, guint32, id) - 1;
}

/* The state for lane @id, at @slot, which the current chunk has not
 * touched yet: the next free one (one a closed lane gave back, a lane of
 * an earlier chunk, its run flushed, or a fresh one). */
Lane *
strata_zoom_tree_take_lane (StrataZoomTree       *self,
                            Level                *level,
                            guint32               slot,
                            guint32               id,
                            const StrataActivity *piece)
{
  Lane *lane;

  level->n_takes++;
  if (level->free_lanes->len > 0)
    lane = g_ptr_array_steal_index_fast (level->free_lanes, level->free_lanes->len - 1);
  else
    {
      guint place = level->n_taken++;
      guint b = place / LANE_BLOCK;

      if (b >= level->n_lane_blocks)
        {
          guint n = MAX (MAX (level->n_lane_blocks * 2, 16), b + 1);

          level->lane_blocks = g_renew (Lane *, level->lane_blocks, n);
          memset (level->lane_blocks + level->n_lane_blocks, 0, (n - level->n_lane_blocks) * sizeof (Lane *));
          level->n_lane_blocks = n;
        }
      if (level->lane_blocks[b] == NULL)
        level->lane_blocks[b] = g_aligned_alloc0 (LANE_BLOCK, sizeof (Lane), LANE_LINE);

      lane = &level->lane_blocks[b][place % LANE_BLOCK];
      lane->place = place;
      if (lane->run.threshold == 0)
        {
          strata_aggregate_run_init (&lane->run, level->threshold);
          level->n_lane_states++;
        }
    }
  g_assert (!lane->touched && !lane->has_held && !lane->run.open && lane->first_seg == NULL && lane->n_items == 0);
  lane->counting = level->counting;
  lane->channel = piece->channel;
  lane->lane = strata_zoom_lane_of (piece);
  lane->id = id;
  lane->slot = slot;
  lane->pos = level->touched->len;
  lane->touched = TRUE;
  g_ptr_array_add (level->touched, lane);
  if (slot >= level->place_of->len)
    g_array_set_size (level->place_of, MAX (slot + 1, 2 * level->place_of->len));
  g_array_index (level->place_of, guint32, slot) = lane->place + 1;
  g_array_index (self->slot_refs, guint32, slot)++;

  return lane;
}

/* The open lane with id @id in the current chunk, or NULL. */
Lane *
strata_zoom_tree_find_lane (StrataZoomTree *self,
                            Level          *level,
                            guint32         id)
{
  guint32 slot = slot_known (self, id), place;

  if (slot == G_MAXUINT32 || slot >= level->place_of->len ||
      (place = g_array_index (level->place_of, guint32, slot)) == 0)
    return NULL;
  return &level->lane_blocks[(place - 1) / LANE_BLOCK][(place - 1) % LANE_BLOCK];
}

/* A level let go of the lane at @slot: when none holds it, the slot is
 * free for another lane id. */
static void
slot_release (StrataZoomTree *self,
              guint32         slot,
              guint32         id)
{
  guint32 *refs = &g_array_index (self->slot_refs, guint32, slot);

  g_assert (*refs > 0);
  if (--*refs > 0)
    return;
  strata_spilled_array_index (self->slot_of, guint32, id) = 0;
  g_array_append_val (self->free_slots, slot);
}

/* Bytes of the pool the open chunk uses, the blocks it filled counted
 * whole. */
static inline gsize
pool_in_use (const Level *level)
{
  return level->pool->len == 0 ? 0 : (gsize) level->pool_block * POOL_BLOCK + level->pool_used;
}

/* What pool_in_use() would be after pool_alloc (@size). */
static inline gsize
pool_in_use_after (const Level *level,
                   gsize        size)
{
  gsize aligned = (size + 15) & ~(gsize) 15;

  if (level->pool->len == 0)
    return aligned;
  if (level->pool_used + size > POOL_BLOCK)
    return (gsize) (level->pool_block + 1) * POOL_BLOCK + aligned;
  return pool_in_use (level) + aligned;
}

static gpointer
pool_alloc (Level *level,
            gsize  size)
{
  guint8 *p;

  g_assert (size <= POOL_BLOCK);

  if (level->pool->len == 0 || level->pool_used + size > POOL_BLOCK)
    {
      if (level->pool->len > 0)
        level->pool_block++;
      if (level->pool_block == level->pool->len)
        g_ptr_array_add (level->pool, g_malloc (POOL_BLOCK));
      level->pool_used = 0;
    }

  p = (guint8 *) g_ptr_array_index (level->pool, level->pool_block) + level->pool_used;
  level->pool_used += (size + 15) & ~(gsize) 15;
  level->pool_peak = MAX (level->pool_peak, pool_in_use (level));
  return p;
}

/* Every lane's output has been copied: the pool serves the next chunk.
 * It keeps the blocks this chunk used and one more (reused, they cost no
 * page faults), not all that its biggest chunk ever needed: on 5M events
 * those were a hundred MB across the levels. */
void
strata_zoom_tree_pool_reset (Level *level)
{
  if (level->pool->len > level->pool_block + 2)
    g_ptr_array_set_size (level->pool, level->pool_block + 2);
  level->pool_block = 0;
  level->pool_used = 0;
}

static inline guint
lane_next_cap (const Lane *lane)
{
  return lane->last_seg != NULL ? MIN (2 * lane->last_seg->cap, SEGMENT_MAX) : 16;
}

void
strata_zoom_tree_lane_grow (Level *level,
                            Lane  *lane)
{
  guint cap = lane_next_cap (lane);
  Segment *seg;

  /* Past the budget, what the lanes made so far leaves the pool (this
   * lane's too: it starts a new segment after), but for the lanes that
   * are counted from now on. */
  if G_UNLIKELY (pool_in_use_after (level, sizeof (Segment) + cap * sizeof (StrataZoomItem)) > level->pool_budget &&
                 pool_in_use (level) > 0 && !level->spill_failed)
    {
      strata_zoom_tree_level_spill (level, lane);
      cap = lane_next_cap (lane);
    }
  seg = pool_alloc (level, sizeof (Segment) + cap * sizeof (StrataZoomItem));

  seg->next = NULL;
  seg->n = 0;
  seg->cap = cap;
  if (lane->last_seg != NULL)
    {
      lane->last_seg->n = lane->items.len;
      lane->last_seg->next = seg;
    }
  else
    lane->first_seg = seg;
  lane->last_seg = seg;
  lane->items.items = seg->items;
  lane->items.len = 0;
  lane->items.alloc = cap;
}

/* The lane's output is done with. */
static inline void
lane_empty (Lane *lane)
{
  lane_empty_pool (lane);
  lane->first_run = lane->last_run = 0;
}

/* A lane state keeps the room its candidates took (most need a few) for
 * the next lane, but not past this many: a CPU's aggregate at a coarse
 * level has thousands, and a state that served one once kept its keys and
 * their hash for good, for the threads after it (58 MB of candidates at
 * the end of the pass on 40M generated events). */
#define LANE_KEEP_KEYS 8

/* @lane's output in the current chunk is final: its held piece and open
 * aggregate are flushed as the chunk's end flushes them (or counted, in a
 * counted chunk), what it made is kept as a ClosedLane, and its state is
 * free for another lane. */
void
strata_zoom_tree_lane_close (StrataZoomTree *self,
                             Level          *level,
                             Lane           *lane)
{
  ClosedLane c = { .channel = lane->channel, .lane = lane->lane };
  Lane *last;

  /* Held open while the buffers it covered whole were left out
   * (consume()): it went on to the end of the last one. */
  if (lane->has_held && (lane->held.flags & STRATA_ACTIVITY_FLAG_CONTINUES_AFTER) &&
      lane->held.end < level->consumed_e)
    lane->held.end = level->consumed_e;

  if (lane->counting)
    {
      if (lane->has_held)
        {
          lane->n_items += strata_aggregate_run_count (&lane->run, &lane->held);
          lane->n_members++;
          lane->starts |= !(lane->held.flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE);
        }
      lane->n_items += strata_aggregate_run_count_flush (&lane->run);
      c.n_items = lane->n_items;
      c.n_members = lane->n_members;
      c.starts = lane->starts;
      /* Counted from a spill on (level_count_poor_lanes()): what it
       * made before is in its runs. */
      c.counted = !level->counting;
      c.first_run = lane->first_run;
      c.last_run = lane->last_run;
    }
  else
    {
      lane_room (level, lane);
      if (lane->has_held)
        strata_aggregate_run_offer_vec (&lane->run, &lane->held, &lane->items);
      lane_room (level, lane);
      strata_aggregate_run_flush_vec (&lane->run, &lane->items);
      lane->last_seg->n = lane->items.len;
      c.first_seg = lane->first_seg;
      c.first_run = lane->first_run;
      c.last_run = lane->last_run;
    }
  g_array_append_val (level->closed, c);
  level->closed_peak = MAX (level->closed_peak, level->closed->len);
  /* A counted lane has no output, only its counts: past page_lanes of
   * them, they go to the spill file. */
  if (level->counting)
    strata_zoom_tree_closed_page_out (level);

  last = g_ptr_array_index (level->touched, level->touched->len - 1);
  g_ptr_array_index (level->touched, lane->pos) = last;
  last->pos = lane->pos;
  g_ptr_array_set_size (level->touched, level->touched->len - 1);

  lane->has_held = FALSE;
  lane->touched = FALSE;
  lane->n_items = 0;
  lane->n_members = 0;
  lane->starts = FALSE;
  lane_empty (lane);
  if (lane->run.keys_alloc > LANE_KEEP_KEYS || lane->run.n_slots > 0)
    strata_aggregate_run_clear (&lane->run);
  g_array_index (level->place_of, guint32, lane->slot) = 0;
  slot_release (self, lane->slot, lane->id);
  g_ptr_array_add (level->free_lanes, lane);

  /* A chunk whose lanes are mostly counted fills its pool slowly: its
   * closed lanes go out with the next spill, made here once they are as
   * many as a page (a coarse level's chunk sees every thread exit). */
  if G_UNLIKELY (level->chunk_switched > 0 && !level->counting && level->page_lanes > 0 &&
                 level->closed->len >= level->page_lanes && !level->spill_failed)
    strata_zoom_tree_level_spill (level, NULL);
}

static inline guint64
closed_key (const ClosedLane *c)
{
  return ((guint64) c->channel << 5) | c->lane;
}

G_STATIC_ASSERT (N_LANES <= 32);

STRATA_DEFINE_RADIX_SORT (sort_closed_lanes, ClosedLane, closed_key)

/* Sorts @closed (every lane of the current chunk closed) in (channel,
 * lane) order, stably. Every chunk's end sorts its closed lanes
 * (thousands on the dense shape, at every level), and the generic sort, a
 * call per comparison, was a tenth of the levels' thread there: so the
 * radix sort of strata-radix-sort.h, two passes for a few thousand
 * threads. */
void
strata_zoom_tree_sort_closed (GArray *closed)
{
  sort_closed_lanes ((ClosedLane *)(gpointer) closed->data, closed->len);
}

/* Lanes ahead of the one closed whose states are fetched into the cache
 * meanwhile (strata_zoom_tree_lanes_close_all()). */
#define CLOSE_AHEAD 6

/* Every lane open in the chunk closes, the last touched first. Each
 * state is a cache miss or more (every line of it is read or written:
 * the held piece, the run, the output and the bookkeeping), so the
 * states a few closes ahead are asked for meanwhile: the chunk's end
 * waited for each in turn, as the walk did before prefetch_lanes(). */
void
strata_zoom_tree_lanes_close_all (StrataZoomTree *self,
                                  Level          *level)
{
  while (level->touched->len > 0)
    {
      guint n = level->touched->len;

      if (n > CLOSE_AHEAD)
        {
          const guint8 *ahead = g_ptr_array_index (level->touched, n - 1 - CLOSE_AHEAD);

          for (gsize b = 0; b < sizeof (Lane); b += LANE_LINE)
            __builtin_prefetch (ahead + b, 1);
        }
      strata_zoom_tree_lane_close (self, level, g_ptr_array_index (level->touched, n - 1));
    }
  strata_zoom_tree_sort_closed (level->closed);
}

/* The chunk is assembled: every state is free for the next chunk's
 * lanes, taken again from the first. */
void
strata_zoom_tree_lanes_release (Level *level)
{
  g_assert (level->touched->len == 0);
  g_array_set_size (level->closed, 0);
  g_ptr_array_set_size (level->free_lanes, 0);
  level->n_taken = 0;
}
