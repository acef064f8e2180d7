/* strata-buffer-former.c
 *
 * The seed's buffer former: it keeps the activities not yet delivered in
 * start order and, at each advance, cuts the stream at times before the
 * horizon into adjacent buffers, each holding every activity overlapping
 * it, clipped, with continuation flags where it was cut; the chunking
 * criterion (strata_zoom_tree_decide()) counts the starts it knows, and every buffer goes
 * to the active levels, on this thread or, pipelined, on the levels' own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

/* The last instant an activity covers: its end is excluded. */
static gint64
last_point (const StrataActivity *a)
{
  return a->end > a->start ? a->end - 1 : a->start;
}

static int
by_start (gconstpointer pa,
          gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;

  return a->start < b->start ? -1 : a->start > b->start;
}

int
strata_zoom_tree_by_channel (gconstpointer pa,
                             gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;

  return a->channel < b->channel ? -1 : a->channel > b->channel;
}

static void
collect_open (const StrataActivity *activity,
              gpointer              user_data)
{
  StrataZoomTree *self = user_data;
  StrataActivity a = *activity;

  a.flags |= STRATA_ACTIVITY_FLAG_CONTINUES_AFTER;
  g_array_append_val (self->open_next, a);
}

/* The index of the first element of the sorted @array >= @t, from @head. */
guint
strata_zoom_tree_lower_bound_gint64 (GArray *array,
                                     guint   head,
                                     gint64  t)
{
  guint lo = head, hi = array->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (array, gint64, mid) < t)
        lo = mid + 1;
      else
        hi = mid;
    }

  return lo;
}

gint64
strata_zoom_tree_chunk_end (StrataZoomTree *self,
                            guint           rank,
                            gint64          t)
{
  gint64 index = strata_zoom_geometry_chunk_index (&self->ranks, rank, t);

  return strata_zoom_geometry_chunk_start (&self->ranks, rank, index + 1);
}

/* The chunking criterion for chunk @index of @rank, as far as the known
 * starts tell. */
Decision
strata_zoom_tree_decide (StrataZoomTree *self,
                         guint           rank,
                         gint64          index)
{
  Level *level = &self->levels[rank];
  gint64 s, e;
  guint n;

  if (level->memo_index == index)
    return level->memo;

  if (rank > 0)
    {
      Level *parent = &self->levels[rank - 1];

      if (parent->memo == DECISION_SPARSE &&
          parent->memo_index == index >> self->ranks.factor_log2)
        return DECISION_SPARSE;
    }

  s = strata_zoom_geometry_chunk_start (&self->ranks, rank, index);
  e = strata_zoom_geometry_chunk_start (&self->ranks, rank, index + 1);

  /* The starts before the cut are gone; only the first cut has none. */
  if (s < self->cut && self->cut != self->first_cut)
    return DECISION_UNKNOWN;

  n = strata_zoom_tree_lower_bound_gint64 (self->starts, self->starts_head, e) -
      strata_zoom_tree_lower_bound_gint64 (self->starts, self->starts_head, s);

  if (n >= self->params.density_threshold)
    return DECISION_DENSE;
  if (e <= self->horizon)
    return DECISION_SPARSE;
  return DECISION_UNKNOWN;
}

void
strata_zoom_tree_remember (StrataZoomTree *self,
                           guint           rank,
                           gint64          index,
                           Decision        decision)
{
  self->levels[rank].memo_index = index;
  self->levels[rank].memo = decision;
}

/* The levels' share of an adaptive buffer, a rank at a time: where a
 * rank's chunk changes, where it ends, and the lanes that close. TRUE if
 * the rank's chunk begins with this buffer. */
static gboolean
adaptive_begin (StrataZoomTree *self,
                guint           rank,
                const Buffer   *buffer)
{
  Level *level = &self->levels[rank];
  gint64 index = strata_zoom_geometry_chunk_index (&self->ranks, rank, buffer->b);

  /* An adaptive buffer lies inside one sparse chunk of the stack's top
   * rank, so every finer chunk in it is sparse too; inside one dense
   * chunk of each rank above it, which find_stack_top() found dense. */
  if ((gint) rank >= buffer->stack_top)
    {
      strata_zoom_tree_level_finish_chunk (self, level);
      return FALSE;
    }
  if (level->chunk == index)
    return FALSE;

  strata_zoom_tree_level_finish_chunk (self, level);
  g_assert (self->pipelined || strata_zoom_tree_decide (self, rank, index) == DECISION_DENSE);
  if (!self->pipelined)
    strata_zoom_tree_remember (self, rank, index, DECISION_DENSE);
  level->chunk = index;
  level->chunk_active = index != level->first_chunk;
  /* Where the level's last chunk did not pay, it is likely this one will
   * not either: count it only (level_finish_count()). */
  level->counting = level->chunk_active && level->last_plain;
  /* Or, cheaper, prove it plain (strata-zoom-plain.c). */
  if (level->counting)
    strata_zoom_tree_level_begin_proof (self, rank);
  return TRUE;
}

static void
adaptive_end (StrataZoomTree *self,
              guint           rank,
              const Buffer   *buffer)
{
  Level *level = &self->levels[rank];

  if (level->chunk >= 0 &&
      buffer->e == strata_zoom_geometry_chunk_start (&self->ranks, rank, level->chunk + 1))
    strata_zoom_tree_level_finish_chunk (self, level);

  /* The lanes of channels that get nothing after this buffer: their
   * output in the chunk is final, their states free. */
  if (level->chunk >= 0 && level->touched->len > 0)
    for (guint i = 0; i < buffer->closes->len; i++)
      {
        Lane *lane = strata_zoom_tree_find_lane (self, level, g_array_index (buffer->closes, guint32, i));

        if (lane != NULL)
          strata_zoom_tree_lane_close (self, level, lane);
      }
}

/* Pieces ahead of the one offered whose lane states are fetched into
 * the cache meanwhile (prefetch_lanes()). */
#define PREFETCH_AHEAD 8

/* The state that @level will hand out (strata_zoom_tree_take_lane())
 * for a lane it has not open yet, once the takes asked for before it
 * are made: every line of it is written or read then, each a miss (the
 * take was a sixth of the levels' walk on dense 2M). A guess where
 * pieces ahead are of the same new lane; nothing is taken. */
static G_ALWAYS_INLINE inline void
prefetch_take (Level *level)
{
  guint64 ahead = level->n_takes_asked > level->n_takes ? level->n_takes_asked - level->n_takes : 0;
  guint n_free = level->free_lanes->len;
  const guint8 *lane = NULL;

  level->n_takes_asked = level->n_takes + ahead + 1;
  if (ahead < n_free)
    lane = g_ptr_array_index (level->free_lanes, n_free - 1 - ahead);
  else
    {
      guint64 place = level->n_taken + (ahead - n_free);

      if (place / LANE_BLOCK < level->n_lane_blocks && level->lane_blocks[place / LANE_BLOCK] != NULL)
        lane = (const guint8 *) &level->lane_blocks[place / LANE_BLOCK][place % LANE_BLOCK];
    }
  if (lane != NULL)
    for (gsize b = 0; b < sizeof (Lane); b += LANE_LINE)
      __builtin_prefetch (lane + b, 1);
}

/* Asks the cache for the states that consume() will offer @piece (of
 * lane @id) to: each is a miss, about nine a piece on the dense shape,
 * and the walk waited for them one by one (the first line of a state
 * held most of its samples, whatever its layout). Nothing is taken: a
 * lane that no level has open yet, or that a level has not, is left to
 * the offer, and the state it will take is asked for (prefetch_take()).
 * A piece that joins its lane's held piece (CONTINUES_BEFORE) reads the
 * first line only (lane_offer()). Inlined always: a function that only prefetches is one
 * without effects to GCC, and its calls were dropped. */
static G_ALWAYS_INLINE inline void
prefetch_lanes (StrataZoomTree       *self,
                const StrataActivity *piece,
                guint32               id,
                Level * const        *active,
                guint                 n_active,
                Level * const        *fresh,
                guint                 n_fresh)
{
  const guint16 through = STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE | STRATA_ACTIVITY_FLAG_CONTINUES_AFTER;
  Level * const *levels = active;
  guint n_levels = n_active;
  guint32 slot;
  gboolean joins = FALSE;

  if ((piece->flags & through) == through)
    {
      levels = fresh;
      n_levels = n_fresh;
    }
  else
    joins = (piece->flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE) != 0;
  if (id >= self->slot_of->len || (slot = strata_spilled_array_index (self->slot_of, guint32, id)) == 0)
    {
      for (guint k = 0; k < n_levels; k++)
        prefetch_take (levels[k]);
      return;
    }
  slot--;
  for (guint k = 0; k < n_levels; k++)
    {
      Level *level = levels[k];
      guint32 place;

      if (slot < level->place_of->len && (place = g_array_index (level->place_of, guint32, slot)) != 0)
        {
          const guint8 *lane = (const guint8 *) &level->lane_blocks[(place - 1) / LANE_BLOCK][(place - 1) % LANE_BLOCK];

          __builtin_prefetch (lane, 1);
          if (joins)
            continue;
          __builtin_prefetch (lane + LANE_LINE, 1);
          if (!level->counting)
            __builtin_prefetch (lane + 2 * LANE_LINE, 1);
        }
      else
        prefetch_take (level);
    }
}

/* Every level consumes the buffer. An adaptive buffer lies inside one
 * chunk of every active rank, so its pieces go to every such rank in one
 * walk: each piece's lane is found once, and its states at the ranks are
 * at one slot of each (the ranks are independent, so this is what each
 * consuming the buffer in turn would make). The fixed criteria, whose
 * buffers can cross chunks, run the ranks in turn.
 *
 * A piece that covers the whole buffer (an activity that began before it
 * and goes on after it: a thread sleeping or waiting through it) goes
 * only to the ranks whose chunk begins with this buffer. Every other
 * active rank has been active in every buffer of its chunk so far (a
 * chunk is dense or sparse as a whole, and the ranks above a dense one
 * are dense), so it holds the activity's piece from an earlier buffer,
 * still open after; the piece of the buffer where the activity ends
 * joins it (lane_offer()), and a lane closed while it is open takes it
 * to the end of the last buffer its rank consumed (consumed_e): the same
 * piece that joining every buffer's would make. On the dense shape (2000
 * threads all busy, a buffer of 1000 starts) two pieces of three covered
 * their buffer, each offered to nine ranks. */
static void
consume (StrataZoomTree *self,
         const Buffer   *buffer)
{
  const StrataActivity *pieces = (const StrataActivity *)(gpointer) buffer->pieces->data;
  const guint32 *ids = (const guint32 *)(gpointer) buffer->lanes->data;
  const guint16 through = STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE | STRATA_ACTIVITY_FLAG_CONTINUES_AFTER;
  Level *active[MAX_RANKS], *fresh[MAX_RANKS], *proving[MAX_RANKS];
  guint n_active = 0, n_fresh = 0, n_proving = 0, n = buffer->pieces->len;

  if (self->params.buffer_criterion != STRATA_BUFFER_ADAPTIVE)
    {
      for (guint r = 0; r < self->n_ranks; r++)
        strata_zoom_tree_level_consume (self, r, buffer);
      return;
    }
  if (self->proof_origin == 0)
    self->proof_origin = buffer->b + 1;

  for (guint r = 0; r < self->n_ranks; r++)
    {
      gboolean begins = adaptive_begin (self, r, buffer);

      if ((gint) r < buffer->stack_top && self->levels[r].chunk_active && self->levels[r].proving)
        proving[n_proving++] = &self->levels[r];
      else if ((gint) r < buffer->stack_top && self->levels[r].chunk_active)
        {
          active[n_active++] = &self->levels[r];
          if (begins)
            fresh[n_fresh++] = &self->levels[r];
          self->levels[r].consumed_e = buffer->e;
        }
    }

  /* The levels proving their chunk plain see the starts only, and none
   * of their lanes. */
  if (n_proving > 0)
    strata_zoom_tree_prove_buffer (self, buffer, proving, n_proving);

  /* The takes prefetched in an earlier walk were made, or not needed. */
  for (guint k = 0; k < n_active; k++)
    active[k]->n_takes_asked = active[k]->n_takes;

  if (n_active > 0)
    for (guint i = 0; i < n; i++)
      {
        guint32 slot;

        if (i + PREFETCH_AHEAD < n)
          prefetch_lanes (self, &pieces[i + PREFETCH_AHEAD], ids[i + PREFETCH_AHEAD],
                          active, n_active, fresh, n_fresh);
        if ((pieces[i].flags & through) == through)
          {
            if (n_fresh == 0)
              continue;
            slot = slot_for (self, ids[i]);
            for (guint k = 0; k < n_fresh; k++)
              lane_offer (fresh[k], get_lane (self, fresh[k], slot, ids[i], &pieces[i]), &pieces[i]);
            continue;
          }
        slot = slot_for (self, ids[i]);
        for (guint k = 0; k < n_active; k++)
          lane_offer (active[k], get_lane (self, active[k], slot, ids[i], &pieces[i]), &pieces[i]);
      }

  for (guint r = 0; r < self->n_ranks; r++)
    adaptive_end (self, r, buffer);
}

static gpointer
aggregator_main (gpointer data)
{
  StrataZoomTree *self = data;

  for (;;)
    {
      Buffer *buffer = g_async_queue_pop (self->full);

      if (buffer == &self->quit)
        break;
      consume (self, buffer);
      g_async_queue_push (self->free, buffer);
    }

  {
    struct rusage usage;

    /* What the levels cost, apart from the rest of the pass. */
    if (getrusage (RUSAGE_THREAD, &usage) == 0)
      g_debug ("zoom tree: the levels' thread: %.3f s user, %.3f s sys",
               usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6,
               usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6);
  }

  return NULL;
}

/* The pipeline: the buffer former and the kernel model in the caller's
 * thread, the levels in this one, up to N_BUFFERS buffers behind. Only
 * with adaptive buffers (the levels then need none of the former's
 * decisions, see strata_zoom_tree_level_consume()), one aggregator, and no buffer function
 * (which is told of a buffer once the levels have taken it). */
static void
start_aggregator (StrataZoomTree *self)
{
  if (!self->params.pipelined || self->params.buffer_criterion != STRATA_BUFFER_ADAPTIVE ||
      self->buffer_func != NULL)
    return;

  self->pipelined = TRUE;
  self->full = g_async_queue_new ();
  self->free = g_async_queue_new ();
  for (guint i = 0; i < N_BUFFERS; i++)
    g_async_queue_push (self->free, &self->buffers[i]);
  self->buffer = NULL;
  self->aggregator = g_thread_new ("strata-levels", aggregator_main, self);
}

/* Waits until the levels have taken every buffer delivered. */
void
strata_zoom_tree_stop_aggregator (StrataZoomTree *self)
{
  if (self->aggregator == NULL)
    return;

  g_async_queue_push (self->full, &self->quit);
  g_thread_join (self->aggregator);
  self->aggregator = NULL;
  g_clear_pointer (&self->full, g_async_queue_unref);
  g_clear_pointer (&self->free, g_async_queue_unref);
  self->buffer = &self->buffers[0];
  self->pipelined = FALSE;
}

/* The id of @channel's lane @l if it has one, else 0 (id + 1). */
static guint32
lane_id_known (StrataZoomTree *self,
               guint32         channel,
               guint           l)
{
  guint page = channel >> LANE_ID_PAGE_BITS;
  const guint32 *ids;

  if (page >= self->lane_ids->len || (ids = g_ptr_array_index (self->lane_ids, page)) == NULL)
    return 0;
  return ids[(channel & (LANE_ID_PAGE - 1)) * N_LANES + l];
}

void
strata_zoom_tree_lane_id_first (StrataZoomTree *self,
                                guint           page)
{
  if (page >= self->ids_open->len)
    g_array_set_size (self->ids_open, page + 1);
  g_array_index (self->ids_open, guint16, page)++;
}

/* The lanes of the channels closed before @e go with the buffer that ends
 * there: every piece of theirs is in it or in an earlier one. */
static void
buffer_closes (StrataZoomTree *self,
               Buffer         *buffer,
               gint64          e)
{
  const ChannelClose *c = (const ChannelClose *)(gpointer) self->closing->data;

  g_array_set_size (buffer->closes, 0);
  while (self->closing_head < self->closing->len && c[self->closing_head].t < e)
    {
      guint32 channel = c[self->closing_head++].channel;
      guint page = channel >> LANE_ID_PAGE_BITS;
      gboolean had = FALSE;

      for (guint l = 0; l < N_LANES; l++)
        {
          guint32 id = lane_id_known (self, channel, l);

          if (id != 0)
            {
              id--;
              g_array_append_val (buffer->closes, id);
              had = TRUE;
            }
        }
      /* A page of ids none of whose channels with ids is open is not
       * asked again (a closed channel gets no more activities): it goes,
       * and one of its channels given its first id later makes it again,
       * empty. Counting the channels closed instead kept every page that
       * has a process's channel (which never closes and has no lanes) or
       * a thread still alive: about every page of a recording of
       * processes made all the time, 68 bytes each channel. */
      if (had && --g_array_index (self->ids_open, guint16, page) == 0)
        g_clear_pointer (&g_ptr_array_index (self->lane_ids, page), g_free);
    }
  if (self->closing_head == self->closing->len)
    {
      g_array_set_size (self->closing, 0);
      self->closing_head = 0;
    }
}

/* The arrays that carry the stream from one advance to the next (what
 * came in, what is pending, their merge and sort scratch, the starts)
 * and the buffers are sized by the most they held, and a GArray never
 * gives room back: a burst (the horizon held back by a CPU that has not
 * switched, or a followed pass catching up with its file) left each of
 * them, and each of the N_BUFFERS buffers sized for the whole pending
 * stream, at their largest for the rest of the pass. Following a
 * recording of `perf bench sched messaging`, 100 MB of the app's heap
 * after two minutes, growing in steps as the largest burst grew
 * (bench/RESULTS-live.md). So a buffer is sized for its pieces, and an
 * array that was sized for more than TRIM_FROM elements is made again at
 * the size it needs once that is under a quarter of it. */
#define TRIM_FROM (1u << 16)

/* @array made again with room for its elements only. */
static GArray *
array_refit (GArray *array)
{
  GArray *fitted = g_array_sized_new (FALSE, FALSE, g_array_get_element_size (array), array->len);

  g_array_append_vals (fitted, array->data, array->len);
  g_array_unref (array);
  return fitted;
}

/* Whether arrays sized for @room elements are worth making again for @n. */
static gboolean
worth_refit (guint room,
             guint n)
{
  return room >= TRIM_FROM && n < room / 4;
}

/* The stream's arrays after a burst, made again for what they hold now
 * (the scratch ones empty, as they are between two advances). */
static void
trim_stream (StrataZoomTree *self)
{
  guint n = self->pending->len + self->incoming->len;

  if (!worth_refit (self->stream_room, MAX (n, self->starts->len)))
    return;

  g_array_set_size (self->merge, 0);
  g_array_set_size (self->sort_scratch, 0);
  g_array_set_size (self->sort_keys, 0);
  self->incoming = array_refit (self->incoming);
  self->pending = array_refit (self->pending);
  self->merge = array_refit (self->merge);
  self->sort_scratch = array_refit (self->sort_scratch);
  self->sort_keys = array_refit (self->sort_keys);
  self->starts = array_refit (self->starts);
  self->stream_room = MAX (n, self->starts->len);
}

/* @buffer's arrays sized for @n pieces, made again first if they were
 * sized for far more (a buffer cut after a burst). */
static void
buffer_fit (Buffer *buffer,
            guint   n)
{
  if (worth_refit (buffer->room, n))
    {
      g_array_set_size (buffer->pieces, 0);
      g_array_set_size (buffer->lanes, 0);
      buffer->pieces = array_refit (buffer->pieces);
      buffer->lanes = array_refit (buffer->lanes);
      buffer->room = 0;
    }
  buffer->room = MAX (buffer->room, n);
  g_array_set_size (buffer->pieces, n);
  g_array_set_size (buffer->lanes, n);
}

/* How many of the @n activities @a (in start order) overlap [@b, @e). */
static guint
count_overlapping (const StrataActivity *a,
                   guint                 n,
                   gint64                b,
                   gint64                e)
{
  guint count = 0;

  for (guint i = 0; i < n && a[i].start < e; i++)
    count += strata_activity_overlaps (&a[i], b, e);
  return count;
}

/* How far ahead deliver() asks for the lane ids of a piece. */
#define PREFETCH_IDS 24

/* Asks the cache for @channel's row of lane ids, if it has one: with
 * thousands of busy threads the row was a miss per piece, waited for, a
 * third of the buffer former's time. */
static inline void
prefetch_lane_ids (StrataZoomTree *self,
                   guint32         channel)
{
  guint page = channel >> LANE_ID_PAGE_BITS;
  const guint32 *ids;

  if (page >= self->lane_ids->len || (ids = g_ptr_array_index (self->lane_ids, page)) == NULL)
    return;
  ids += (channel & (LANE_ID_PAGE - 1)) * N_LANES;
  __builtin_prefetch (ids, 0);
  __builtin_prefetch (ids + N_LANES - 1, 0);
}

static void
deliver (StrataZoomTree *self,
         gint64          e,
         gint            stack_top)
{
  gint64 b = self->cut;
  guint kept = 0, n_pieces;

  /* The buffer: every pending or open activity overlapping [b, e),
   * clipped. Pending activities come before the open ones, which are the
   * latest of their lanes, so each lane stays in start order. */
  if (self->pipelined)
    self->buffer = g_async_queue_pop (self->free);
  {
    const StrataActivity *p = (const StrataActivity *)(gpointer)self->pending->data;
    const StrataActivity *o = (const StrataActivity *)(gpointer)self->open_by_start->data;
    guint np = self->pending->len, no = self->open_by_start->len, i = 0, j = 0, n = 0;
    StrataActivity *out;
    guint32 *lanes;

    n_pieces = count_overlapping (p, np, b, e) + count_overlapping (o, no, b, e);
    buffer_fit (self->buffer, n_pieces);
    out = (StrataActivity *)(gpointer)self->buffer->pieces->data;
    lanes = (guint32 *)(gpointer)self->buffer->lanes->data;

    /* Both are in start order; on a tie the completed one goes first. */
    while ((i < np && p[i].start < e) || (j < no && o[j].start < e))
      {
        gboolean from_pending = i < np && p[i].start < e && (j >= no || p[i].start <= o[j].start);
        const StrataActivity *a = from_pending ? &p[i++] : &o[j++];

        if (strata_activity_overlaps (a, b, e))
          {
            out[n] = *a;
            strata_activity_clip (&out[n], b, e);
            n++;
          }
      }
    g_assert (n == n_pieces);
    for (guint k = 0; k < n; k++)
      {
        if (k + PREFETCH_IDS < n)
          prefetch_lane_ids (self, out[k + PREFETCH_IDS].channel);
        lanes[k] = lane_id (self, out[k].channel, strata_zoom_lane_of (&out[k]));
      }
  }
  self->buffer->b = b;
  self->buffer->e = e;
  self->buffer->stack_top = stack_top;
  buffer_closes (self, self->buffer, e);

  if (self->pipelined)
    {
      g_async_queue_push (self->full, self->buffer);
      self->buffer = NULL;
    }
  else
    consume (self, self->buffer);

  /* At the first cut every rank's first chunk was decided: those from the
   * stack's top on hold fewer than T starts. */
  if (self->n_buffers == 0)
    self->first_top = stack_top;
  self->n_buffers++;
  if (self->buffer_func != NULL)
    self->buffer_func (b, e, n_pieces, MAX (stack_top, 0), self->buffer_data);

  /* Keep what goes on after e. */
  for (guint i = 0; i < self->pending->len; i++)
    {
      StrataActivity *a = &g_array_index (self->pending, StrataActivity, i);

      if (a->start >= e || (a->end > e && !strata_activity_is_instant (a)))
        g_array_index (self->pending, StrataActivity, kept++) = *a;
    }
  g_array_set_size (self->pending, kept);

  self->cut = e;
  self->starts_head = strata_zoom_tree_lower_bound_gint64 (self->starts, self->starts_head, e);
}

/* A StrataRawPublishFunc: @activities into the raw store, the @sealing
 * channels closed there and, with @open, those the queries see as open,
 * in one step under the lock, so a query sees a completed activity either
 * open or in the store. */
static void
publish_step (gpointer              data,
              const StrataActivity *activities,
              guint                 n,
              GArray               *sealing,
              GArray              **open)
{
  StrataZoomTree *self = data;

  g_rw_lock_writer_lock (&self->lock);
  strata_raw_store_add_many (self->raw, activities, n);
  for (guint i = 0; i < n; i++)
    {
      self->first = MIN (self->first, activities[i].start);
      self->last = MAX (self->last, last_point (&activities[i]));
    }
  /* Every activity of a closed channel came before its close, so it is
   * in the store now: its records can leave memory. */
  for (guint i = 0; i < sealing->len; i++)
    strata_raw_store_close_channel (self->raw, g_array_index (sealing, guint32, i));
  g_array_set_size (sealing, 0);
  if (open != NULL)
    {
      GArray *shown = self->open;

      self->open = *open;
      *open = shown;
    }
  g_rw_lock_writer_unlock (&self->lock);
}

/* Makes the activities that arrived since the last advance visible to
 * queries and, @with_open, the open ones collected in open_next (which
 * is left with an empty array): on the publisher's thread when there is
 * one (strata-raw-publisher.c), else here. */
static void
publish_incoming (StrataZoomTree *self,
                  gboolean        with_open)
{
  const StrataActivity *from = &g_array_index (self->incoming, StrataActivity, self->n_published);
  guint n = self->incoming->len - self->n_published;

  if (n == 0 && self->sealing->len == 0 && !with_open)
    return;

  if (self->publisher != NULL)
    strata_raw_publisher_send (self->publisher, from, n, self->sealing,
                               with_open ? &self->open_next : NULL);
  else
    {
      publish_step (self, from, n, self->sealing, with_open ? &self->open_next : NULL);
      if (with_open)
        g_array_set_size (self->open_next, 0);
    }
  self->n_published = self->incoming->len;
}

/**
 * strata_zoom_tree_read_lock:
 *
 * The tree's lock, for reading, once every publishing step sent before
 * the call is done: a query sees what was added before the advance it
 * follows, as if the steps were done by the advance itself.
 */
void
strata_zoom_tree_read_lock (StrataZoomTree *self)
{
  StrataRawPublisher *publisher = g_atomic_pointer_get (&self->publisher);

  if (publisher != NULL)
    strata_raw_publisher_wait (publisher);
  g_rw_lock_reader_lock (&self->lock);
}

/* Every publishing step done, and the ones after on this thread, which
 * reads the raw store from now on (the pass's end). */
void
strata_zoom_tree_stop_publisher (StrataZoomTree *self)
{
  if (self->publisher == NULL)
    return;
  strata_raw_publisher_finish (self->publisher);
  strata_raw_store_adopt (self->raw);
}

typedef struct
{
  guint64 key;    /* start - the earliest start */
  guint32 index;
  guint32 unused;
} SortKey;

G_STATIC_ASSERT (sizeof (SortKey) == 16);

#define sort_key_of(k) ((k)->key)
STRATA_DEFINE_RADIX_SORT (sort_keys_by_start, SortKey, sort_key_of)

/* A stable sort of @array by start. The model hands activities over in
 * the order they end, which is far from start order (a batch of 5000 had
 * some 1800 runs in order), and the generic sort, a call per comparison,
 * was a tenth of the index pass. So: (start, index) pairs sorted by
 * base/'s radix sort (stable: activities that start together keep the
 * order they came in), then one gather. */
static void
sort_by_start (GArray *array,
               GArray *scratch,
               GArray *keys)
{
  const StrataActivity *src = (const StrataActivity *)(gconstpointer)array->data;
  guint n = array->len;
  gint64 lo = G_MAXINT64;
  gboolean sorted = TRUE;
  SortKey *a;

  if (n < 2)
    return;

  for (guint i = 0; i < n; i++)
    {
      lo = MIN (lo, src[i].start);
      sorted &= i == 0 || src[i].start >= src[i - 1].start;
    }
  if (sorted)
    return;

  g_array_set_size (keys, n);
  a = (SortKey *)(gpointer)keys->data;
  for (guint i = 0; i < n; i++)
    {
      a[i].key = (guint64) (src[i].start - lo);
      a[i].index = i;
    }
  sort_keys_by_start (a, n);

  g_array_set_size (scratch, n);
  {
    StrataActivity *dst = (StrataActivity *)(gpointer)scratch->data;

    for (guint i = 0; i < n; i++)
      dst[i] = src[a[i].index];
    memcpy (array->data, dst, n * sizeof (StrataActivity));
  }
}

/* Hands them to the buffer former: into pending, in start order. */
void
strata_zoom_tree_take_incoming (StrataZoomTree *self)
{
  publish_incoming (self, FALSE);
  if (self->incoming->len == 0)
    return;

  /* Stable sort and merge: instants at one time keep the order they were
   * recorded in, as in the raw store. */
  sort_by_start (self->incoming, self->sort_scratch, self->sort_keys);
  {
    const StrataActivity *p = (const StrataActivity *)(gpointer)self->pending->data;
    const StrataActivity *n = (const StrataActivity *)(gpointer)self->incoming->data;
    guint np = self->pending->len, nn = self->incoming->len, i = 0, j = 0;
    StrataActivity *out;
    GArray *tmp;
    guint k = 0;

    self->stream_room = MAX (self->stream_room, np + nn);
    g_array_set_size (self->merge, np + nn);
    out = (StrataActivity *)(gpointer)self->merge->data;
    while (i < np && j < nn)
      out[k++] = p[i].start <= n[j].start ? p[i++] : n[j++];
    while (i < np)
      out[k++] = p[i++];
    while (j < nn)
      out[k++] = n[j++];

    tmp = self->pending;
    self->pending = self->merge;
    self->merge = tmp;
  }
  g_array_set_size (self->incoming, 0);
  self->n_published = 0;
}

/* The starts the chunking criterion can count: from the cut to the
 * horizon, of completed and open activities. */
static void
collect_starts (StrataZoomTree *self)
{
  const StrataActivity *p = (const StrataActivity *)(gpointer)self->pending->data;
  const StrataActivity *o = (const StrataActivity *)(gpointer)self->open_by_start->data;
  guint np = self->pending->len, no = self->open_by_start->len, i = 0, j = 0;
  gint64 limit = self->finished ? G_MAXINT64 : self->horizon;
  gint64 *out;
  guint n = 0;

  self->stream_room = MAX (self->stream_room, np + no);
  g_array_set_size (self->starts, np + no);
  out = (gint64 *)(gpointer)self->starts->data;
  self->starts_head = 0;

  while ((i < np && p[i].start < limit) || (j < no && o[j].start < limit))
    {
      gint64 t;

      if (j >= no || o[j].start >= limit || (i < np && p[i].start < limit && p[i].start <= o[j].start))
        t = p[i++].start;
      else
        t = o[j++].start;
      if (t >= self->cut)
        out[n++] = t;
    }
  g_array_set_size (self->starts, n);
}

/* The rank that will be level 0 if the stream, which starts at @first,
 * ends where the span hint says; n_ranks without a hint. */
static guint
hinted_root (StrataZoomTree *self,
             gint64          first)
{
  guint r = self->n_ranks - 1;

  if (self->hint_last == G_MININT64)
    return self->n_ranks;
  while (r > 0 &&
         strata_zoom_geometry_chunk_index (&self->ranks, r, first) !=
         strata_zoom_geometry_chunk_index (&self->ranks, r, MAX (first, self->hint_last)))
    r--;
  return r;
}

void
strata_zoom_tree_form_buffers (StrataZoomTree *self)
{
  gboolean delivered = FALSE;

  if (!self->started)
    {
      gint64 first = G_MAXINT64;

      if (self->pending->len > 0)
        first = g_array_index (self->pending, StrataActivity, 0).start;
      if (self->open_by_start->len > 0)
        first = MIN (first, g_array_index (self->open_by_start, StrataActivity, 0).start);

      /* Nothing may still come that starts before the first cut. */
      if (first == G_MAXINT64 || (!self->finished && first >= self->horizon))
        return;
      self->cut = self->first_cut = first;
      self->started = TRUE;
      start_aggregator (self);
      self->hint_root = hinted_root (self, first);
      for (guint r = 0; r < self->n_ranks; r++)
        if (r < self->hint_root)
          self->levels[r].first_chunk = strata_zoom_geometry_chunk_index (&self->ranks, r, first);
    }

  collect_starts (self);

  for (;;)
    {
      gint stack_top;
      gint64 e;

      if (self->finished && self->pending->len == 0)
        break;
      e = strata_zoom_tree_next_cut (self, &stack_top);
      if (e < 0)
        break;
      deliver (self, e, stack_top);
      delivered = TRUE;
    }

  /* Nothing could be cut: the horizon is held back (a CPU that has not
   * switched yet) or no chunk can be decided yet. Trying again at every
   * advance would cost the whole pending stream each time; wait until it
   * has doubled, or the horizon passed what the last attempt waited for. */
  self->retry_size = delivered ? 0 : MAX (2 * self->pending->len, 4096);
}

/**
 * strata_zoom_tree_close_channel:
 * @channel: a channel that gets no activity after @t (a thread that
 *   exited and was switched out for the last time)
 * @t: the latest point of its activities added so far
 *
 * Lets each level, once it has consumed the buffer that holds @t, flush
 * the channel's lanes into its current chunk's output as the chunk's end
 * would and give their states back, so the levels' states follow the
 * lanes alive in a chunk, not every thread its chunk saw (a coarse
 * level's chunk is long). Call it after the channel's last activity was
 * added; closes are applied in the order they came, each once the buffers
 * have passed its @t (one that comes out of order only waits longer). An
 * activity of @channel after it is a misuse: its lanes would start again
 * from nothing.
 */
void
strata_zoom_tree_close_channel (StrataZoomTree *self,
                                guint32         channel,
                                gint64          t)
{
  ChannelClose c = { t, channel };

  g_return_if_fail (self != NULL);
  g_return_if_fail (!self->finished);

  g_array_append_val (self->closing, c);
  g_array_append_val (self->sealing, channel);
}

/**
 * strata_zoom_tree_advance:
 * @horizon: nothing still to come changes what lies before it
 * @foreach_open: (nullable): lists the activities still going on
 * @source: for @foreach_open
 *
 * Takes in the activities added since the last call and delivers every
 * buffer the horizon allows. Call it often (after each batch of events).
 */
void
strata_zoom_tree_advance (StrataZoomTree        *self,
                          gint64                 horizon,
                          StrataForeachOpenFunc  foreach_open,
                          gpointer               source)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (!self->finished);

  /* Pipelined, the publishing steps run on a thread of their own too,
   * unless a buffer function (which may ask about the tree as it stands)
   * is told of every buffer. */
  if (self->publisher == NULL && !self->started && self->params.pipelined && self->buffer_func == NULL)
    g_atomic_pointer_set (&self->publisher, strata_raw_publisher_new (publish_step, self));

  /* The buffer former's copy of the open activities by start, and the
   * queries' by channel, published with the activities completed since
   * the last advance. */
  g_array_set_size (self->open_next, 0);
  if (foreach_open != NULL)
    foreach_open (source, collect_open, self);
  g_array_set_size (self->open_by_start, 0);
  g_array_append_vals (self->open_by_start, self->open_next->data, self->open_next->len);
  g_array_sort (self->open_by_start, by_start);
  g_array_sort (self->open_next, strata_zoom_tree_by_channel);
  publish_incoming (self, TRUE);
  /* (Not under the lock: no query reads it, and the publisher may be
   * holding the lock for a step.) */
  self->horizon = MAX (self->horizon, horizon);

  if (self->pending->len + self->incoming->len < self->retry_size &&
      self->horizon < self->wait_horizon)
    return;

  strata_zoom_tree_take_incoming (self);
  self->wait_horizon = G_MAXINT64;
  strata_zoom_tree_form_buffers (self);
  trim_stream (self);
}

#define LET_GO_CHANNELS 65536

/* Chunk @index of @rank computed from the raw store, with the on-demand
 * code, over @channels (all when %NULL); %NULL when it is not dense (if
 * @count_starts) or aggregation pays for none of its channels. Where it
 * does not pay for the chunk whole, the chunk is computed again over the
 * channels it pays for (strata_zoom_tree_keep_paying_spans()). */
Chunk *
strata_zoom_tree_compute_stored_chunk (StrataZoomTree *self,
                                       guint           rank,
                                       gint64          index,
                                       GArray         *channels,
                                       gboolean        count_starts)
{
  Level *level = &self->levels[rank];
  /* A span a channel: the first chunks of a coarse level have every
   * thread of the trace. */
  g_autoptr(StrataSpilledArray) spans = strata_spilled_array_new (sizeof (ChannelSpan));
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GArray) channel_items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GArray) paying = NULL;
  guint n_channels = channels != NULL ? channels->len : strata_raw_store_get_n_channels (self->raw);
  StrataBlockPacker *packer = strata_zoom_tree_chunk_spill_target (self, 0);
  ItemStream stream;
  guint64 n_starts = 0, members = 0, first_block = 0;
  guint n_items = 0;
  Chunk *chunk;

  strata_zoom_tree_item_stream_begin (&stream, packer);

  /* A chunk that spills streams its items to the packer as they are
   * computed (the first chunks are the biggest: every channel over the
   * whole trace at the coarse levels); one found not dense or not worth
   * storing after all leaves its blocks unused in the spill file. One
   * kept in memory that grows as big as the tree's spill threshold
   * streams from then on, what it made so far first. */
  for (guint i = 0; i < n_channels; i++)
    {
      guint32 c = channels != NULL ? g_array_index (channels, guint32, i) : i;
      guint64 members_before = members;
      guint n_spans = spans->len;

      /* The raw store's entries of the channels read leave memory behind
       * the loop: a first or counted chunk of a coarse level reads those
       * of threads all over the trace, a page of entries for a few. */
      if (i % LET_GO_CHANNELS == LET_GO_CHANNELS - 1)
        strata_raw_store_let_go_channels (self->raw);

      g_array_set_size (channel_items, 0);
      n_starts += strata_zoom_compute_chunk_full (self->raw, NULL, 0, &self->ranks, rank,
                                                  index, c, channel_items);
      strata_zoom_tree_assemble_channel (spans, items, &stream, &n_items, &members, c,
                                         (const StrataZoomItem *)(gpointer)channel_items->data, channel_items->len);
      if (spans->len > n_spans &&
          strata_zoom_tree_channel_pays (self, channel_items->len, members - members_before))
        {
          if (paying == NULL)
            paying = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_array_append_val (paying, c);
        }
      if (packer == NULL &&
          (packer = strata_zoom_tree_chunk_spill_target (self, items->len)) != NULL)
        {
          strata_zoom_tree_item_stream_begin (&stream, packer);
          if (items->len > 0)
            strata_zoom_tree_item_stream_add (&stream, (const StrataZoomItem *)(gpointer) items->data, items->len);
          g_array_set_size (items, 0);
        }
    }
  strata_raw_store_let_go_channels (self->raw);
  if (stream.stream != NULL)
    first_block = strata_block_stream_end (stream.stream, NULL);

  if (count_starts && n_starts < self->params.density_threshold)
    {
      strata_zoom_tree_chunk_take_spans (self, &stream, NULL, NULL);
      return NULL;
    }
  if (!strata_zoom_tree_worth_storing (self, spans->len, n_items, members))
    {
      strata_zoom_tree_chunk_take_spans (self, &stream, NULL, NULL);
      /* The channels that pay are worth storing together: a second
       * computation over them alone does not come back here. */
      if (paying != NULL && (channels == NULL || paying->len < channels->len))
        return strata_zoom_tree_compute_stored_chunk (self, rank, index, paying, FALSE);
      level->n_plain++;
      return NULL;
    }

  chunk = strata_zoom_tree_chunk_alloc (self, index, spans->len, n_items, packer);
  if (packer != NULL)
    chunk->first_block = first_block;
  else
    memcpy (chunk->items, items->data, (gsize) n_items * sizeof (StrataZoomItem));
  strata_zoom_tree_chunk_take_spans (self, &stream, chunk, spans);
  strata_zoom_tree_chunk_count (self, chunk);
  return chunk;
}
