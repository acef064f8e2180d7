/* strata-zoom-level.c
 *
 * Each level's aggregator walks its chunks through every buffer. Over a
 * dense chunk it joins the pieces of an activity that a buffer cut split,
 * applies the triviality rule lane by lane (strata-aggregator.c) and, at
 * the chunk's end, stores the items of every channel that has an activity
 * starting in the chunk (where aggregation does not reduce the chunk
 * whole, of those it reduces: strata_zoom_tree_keep_paying_spans()). A
 * channel whose only business in a chunk is an activity carried through
 * it (a long sleep) is not stored: the query takes that one piece from
 * the raw store, so a thousand sleeping threads do not cost a thousand
 * items in every chunk.
 *
 * Here: a level's walk through each buffer, the end of its chunk (stored,
 * or only counted), and at the pass's end the chunks computed from the
 * raw store: first chunks and counted ones found worth storing.
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

/* The end of a counted chunk: the same decisions as strata_zoom_tree_level_finish_chunk()
 * from the lanes' counts. A chunk worth storing after all, whole or some
 * of its channels, is remembered and computed at the end. */
static void
level_finish_count (StrataZoomTree *self,
                    Level          *level)
{
  StrataSpilledArray *spans = level->spans;
  GArray *span_pays = level->span_pays;
  g_autoptr(GArray) channels = NULL;
  guint64 all_members = 0;
  ClosedIter it;
  ClosedView v;
  gboolean more, failed;
  guint n_starting;

  strata_spilled_array_set_size (spans, 0);
  g_array_set_size (span_pays, 0);
  strata_zoom_tree_lanes_close_all (self, level);
  strata_zoom_tree_closed_iter_init (&it, level);
  more = strata_zoom_tree_closed_iter_next (&it, &v);
  while (more)
    {
      guint32 channel = v.lane.channel;
      gboolean starts = FALSE;
      guint64 n = 0, m = 0;

      do
        {
          n += v.lane.n_items;
          m += v.lane.members;
          starts |= v.lane.starts;
          more = strata_zoom_tree_closed_iter_next (&it, &v);
        }
      while (more && v.lane.channel == channel);

      if (n > 0 && starts)
        {
          ChannelSpan span = { channel, 0, (guint32) MIN (n, G_MAXUINT32) };
          guint8 pays = strata_zoom_tree_channel_pays (self, span.n_items, m);

          strata_spilled_array_append (spans, &span);
          g_array_append_val (span_pays, pays);
          all_members += m;
        }
    }
  failed = it.failed;
  strata_zoom_tree_closed_iter_clear (&it);
  strata_zoom_tree_lanes_release (level);
  g_array_set_size (level->pages, 0);
  g_array_set_size (level->runs, 0);
  level->spill_end = 0;

  n_starting = spans->len;
  level->last_starting = n_starting;
  level->last_members = all_members;
  if (!failed)
    strata_zoom_tree_keep_paying_spans (self, spans, span_pays, all_members);

  if (failed)
    {
      /* Its counts are lost with the page: the chunk is decided and, if
       * worth it, computed from the raw store at the end. */
      Deferred d = { level->chunk, NULL };

      g_warning ("zoom tree: cannot read a chunk's closed lanes back from the spill file: %s",
                 g_strerror (errno));
      g_array_append_val (level->deferred, d);
      level->last_plain = FALSE;
    }
  else if (spans->len == 0)
    {
      level->n_plain++;
      level->last_plain = TRUE;
    }
  else
    {
      Deferred d = { level->chunk, NULL };

      channels = g_array_sized_new (FALSE, FALSE, sizeof (guint32), spans->len);
      for (guint k = 0; k < spans->len; k++)
        g_array_append_val (channels, strata_spilled_array_index (spans, ChannelSpan, k).channel);
      d.channels = g_steal_pointer (&channels);
      g_array_append_val (level->deferred, d);
      /* Stored in part: the next chunk is likely alike, and counting it
       * costs less than aggregating the channels it will not store. */
      level->last_plain = spans->len < n_starting;
    }

  level->chunk = -1;
  level->chunk_active = FALSE;
  level->counting = FALSE;
}

/* The chunk the level ends, worth storing: its stored channels' items
 * gathered from its closed lanes (spilled runs first, then the pool's
 * segments), in memory or streamed to the packer, and the chunk added
 * to the level; computed from the raw store at the pass's end instead
 * when the spill file fails. */
static void
store_chunk (StrataZoomTree     *self,
             Level              *level,
             StrataSpilledArray *spans,
             guint               n_items)
{
  StrataBlockPacker *packer = strata_zoom_tree_chunk_spill_target (self, n_items);
  Chunk *chunk = strata_zoom_tree_chunk_alloc (self, level->chunk, spans->len, n_items, packer);
  const ChannelSpan *stored = (const ChannelSpan *)(gpointer) spans->data;
  ItemStream stream;
  StrataZoomItem *out = chunk->items;
  SpillReader reader;
  gboolean read_ok = TRUE;
  ClosedIter it;
  ClosedView v;
  guint s = 0, let_go = 0;

  strata_zoom_tree_item_stream_begin (&stream, packer);
  strata_zoom_tree_spill_reader_init (&reader, level, self->spill_windows);

  strata_zoom_tree_closed_iter_init (&it, level);
  while (read_ok && strata_zoom_tree_closed_iter_next (&it, &v))
    {
      /* Only the channels stored. A lane's items spilled from the
       * pool come first, in the order they were made. */
      while (s < spans->len && stored[s].channel < v.lane.channel)
        s++;
      /* The spans read leave memory behind the walk. */
      if (s - let_go >= 65536)
        {
          let_go = s;
          strata_spilled_array_let_go (spans, s);
        }
      if (s == spans->len || stored[s].channel != v.lane.channel)
        continue;
      for (guint r = 0; r < v.lane.n_runs && read_ok; r++)
        read_ok = strata_zoom_tree_spill_reader_copy (&reader, &v.runs[r], &stream, &out);
      for (const Segment *seg = v.mem != NULL ? v.mem->first_seg : NULL; seg != NULL; seg = seg->next)
        if (seg->n > 0 && stream.stream != NULL)
          strata_zoom_tree_item_stream_add (&stream, seg->items, seg->n);
        else if (seg->n > 0)
          {
            memcpy (out, seg->items, seg->n * sizeof (StrataZoomItem));
            out += seg->n;
          }
    }
  read_ok = read_ok && !it.failed;
  strata_zoom_tree_closed_iter_clear (&it);
  strata_zoom_tree_spill_reader_clear (&reader);
  if (stream.stream != NULL)
    chunk->first_block = strata_block_stream_end (stream.stream, NULL);
  else if (read_ok)
    g_assert (out == chunk->items + n_items);
  strata_zoom_tree_chunk_take_spans (self, &stream, read_ok ? chunk : NULL, spans);

  if (read_ok)
    {
      g_rw_lock_writer_lock (&self->lock);
      g_ptr_array_add (level->chunks, chunk);
      strata_zoom_tree_chunk_count (self, chunk);
      g_rw_lock_writer_unlock (&self->lock);
    }
  else
    {
      /* The spill file failed us: the chunk is computed from the raw
       * store when the pass ends, as a counted one is (its blocks
       * already streamed, if any, are left unused). */
      Deferred d = { level->chunk, g_array_sized_new (FALSE, FALSE, sizeof (guint32), spans->len) };

      g_warning ("zoom tree: cannot read a chunk's items back from the spill file: %s",
                 g_strerror (errno));
      for (guint k = 0; k < spans->len; k++)
        g_array_append_val (d.channels, strata_spilled_array_index (spans, ChannelSpan, k).channel);
      g_array_append_val (level->deferred, d);
    }
}

/* The end of the chunk a level is aggregating: flush every lane and store
 * the chunk if it was dense. Each lane's items are copied once, straight
 * into the stored chunk: the channels to store and the chunk's size are
 * known from the lanes before it is made. The spans scratch is the
 * level's own, a spilled array: a coarse level's last chunk has a span
 * for every thread of the trace, which need not all be in memory. */
void
strata_zoom_tree_level_finish_chunk (StrataZoomTree *self,
                                     Level          *level)
{
  StrataSpilledArray *spans = level->spans;
  guint64 all_members = 0;
  guint n_items = 0;
  ClosedIter it;
  ClosedView v;
  gboolean more, read_ok;
  /* Whether a channel with a counted lane starts here, and one that
   * pays (level_count_poor_lanes()). */
  gboolean counted_starts = FALSE, counted_pays = FALSE;

  if (level->chunk < 0)
    return;

  if (level->proving)
    {
      strata_zoom_tree_level_finish_proof (self, level);
      return;
    }
  if (level->counting)
    {
      level_finish_count (self, level);
      return;
    }

  strata_spilled_array_set_size (spans, 0);
  g_array_set_size (level->span_pays, 0);
  strata_zoom_tree_lanes_close_all (self, level);

  /* The channels it stores and their items' count, from every lane it
   * closed, in (channel, lane) order. */
  strata_zoom_tree_closed_iter_init (&it, level);
  more = strata_zoom_tree_closed_iter_next (&it, &v);
  while (more)
    {
      ChannelSpan span = { v.lane.channel, n_items, 0 };
      gboolean starts = FALSE, counted = FALSE;
      guint64 m = 0;

      do
        {
          starts |= v.lane.starts;
          counted |= v.lane.counted;
          m += v.lane.members;
          span.n_items += v.lane.n_items;
          for (const Segment *seg = v.mem != NULL ? v.mem->first_seg : NULL; seg != NULL; seg = seg->next)
            {
              for (guint k = 0; k < seg->n; k++)
                {
                  starts |= !(seg->items[k].flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE);
                  m += seg->items[k].count;
                }
              span.n_items += seg->n;
            }
          more = strata_zoom_tree_closed_iter_next (&it, &v);
        }
      while (more && v.lane.channel == span.channel);

      /* A channel is stored when one of its activities starts here
       * (has_start()). */
      if (span.n_items > 0 && starts && level->chunk_active)
        {
          guint8 pays = strata_zoom_tree_channel_pays (self, span.n_items, m);

          strata_spilled_array_append (spans, &span);
          g_array_append_val (level->span_pays, pays);
          all_members += m;
          n_items += span.n_items;
          counted_starts |= counted;
          counted_pays |= counted && pays;
        }
    }
  read_ok = !it.failed;
  strata_zoom_tree_closed_iter_clear (&it);

  level->last_plain = FALSE;
  if (!read_ok && level->chunk_active)
    {
      /* A page of its closed lanes is lost: the chunk is decided and, if
       * worth it, computed from the raw store when the pass ends. */
      Deferred d = { level->chunk, NULL };

      g_warning ("zoom tree: cannot read a chunk's closed lanes back from the spill file: %s",
                 g_strerror (errno));
      g_array_append_val (level->deferred, d);
    }
  else if (level->chunk_active)
    {
      guint n_starting = spans->len;

      /* Whole, or the channels aggregation reduces: strata_zoom_tree_keep_paying_spans(). */
      n_items = (guint) strata_zoom_tree_keep_paying_spans (self, spans, level->span_pays, all_members);
      /* Not stored whole: the next chunk is likely alike, and is only
       * counted (level_finish_count()). */
      level->last_plain = spans->len < n_starting;
      if (spans->len == 0)
        level->n_plain++;
      else if (level->last_plain ? counted_pays : counted_starts)
        {
          /* It stores a channel whose items were counted, not kept:
           * computed from the raw store at the end, and this level
           * aggregates its lanes to their chunk's end from now on. */
          Deferred d = { level->chunk, g_array_sized_new (FALSE, FALSE, sizeof (guint32), spans->len) };

          for (guint k = 0; k < spans->len; k++)
            g_array_append_val (d.channels, strata_spilled_array_index (spans, ChannelSpan, k).channel);
          g_array_append_val (level->deferred, d);
          level->no_switch = TRUE;
          level->n_switch_deferred++;
        }
      else
        store_chunk (self, level, spans, n_items);
    }

  strata_zoom_tree_lanes_release (level);
  strata_zoom_tree_pool_reset (level);
  g_array_set_size (level->runs, 0);
  g_array_set_size (level->pages, 0);
  g_array_set_size (level->spill_starts, 0);
  level->spill_end = 0;
  level->n_switched += level->chunk_switched;
  level->chunk_switched = 0;

  level->chunk = -1;
  level->chunk_active = FALSE;
}

static inline void
level_offer (StrataZoomTree       *self,
             Level                *level,
             const StrataActivity *piece,
             guint32               id)
{
  lane_offer (level, get_lane (self, level, slot_for (self, id), id, piece), piece);
}

/* One level's aggregator consumes the buffer [b, e): chunk by chunk, the
 * pieces inside each dense chunk go to their lanes. Where a chunk is sparse
 * the level skips to the end of its coarsest sparse ancestor. */
void
strata_zoom_tree_level_consume (StrataZoomTree *self,
                                guint           rank,
                                const Buffer   *buffer)
{
  Level *level = &self->levels[rank];
  const StrataActivity *pieces = (const StrataActivity *)(gpointer)buffer->pieces->data;
  const guint32 *lanes = (const guint32 *)(gpointer)buffer->lanes->data;
  guint n = buffer->pieces->len;
  gint64 b = buffer->b, e = buffer->e, t = b;
  gint stack_top = buffer->stack_top;

  /* An adaptive buffer lies inside one sparse chunk of the stack's top
   * rank, so every finer chunk in it is sparse too. */
  if (self->params.buffer_criterion == STRATA_BUFFER_ADAPTIVE && (gint)rank >= stack_top)
    {
      strata_zoom_tree_level_finish_chunk (self, level);
      return;
    }

  while (t < e)
    {
      gint64 index = strata_zoom_geometry_chunk_index (&self->ranks, rank, t);
      gint64 cs = strata_zoom_geometry_chunk_start (&self->ranks, rank, index);
      gint64 ce = strata_zoom_geometry_chunk_start (&self->ranks, rank, index + 1);
      gint64 seg_end = MIN (e, ce);
      /* The aggregator thread does not look at the buffer former's state:
       * an adaptive buffer lies in one chunk of each rank above the
       * stack's top, which find_stack_top() found dense. */
      Decision d = level->chunk == index || self->pipelined ? DECISION_DENSE : strata_zoom_tree_decide (self, rank, index);

      g_assert (d != DECISION_UNKNOWN);

      if (level->chunk != index)
        {
          strata_zoom_tree_level_finish_chunk (self, level);

          if (d == DECISION_SPARSE)
            {
              guint p = rank;

              while (p > 0 && strata_zoom_tree_decide (self, p - 1, strata_zoom_geometry_chunk_index (&self->ranks, p - 1, t)) == DECISION_SPARSE)
                p--;
              strata_zoom_tree_remember (self, rank, index, d);
              t = MIN (e, strata_zoom_tree_chunk_end (self, p, t));
              continue;
            }

          if (!self->pipelined)
            strata_zoom_tree_remember (self, rank, index, d);
          level->chunk = index;
          level->chunk_active = index != level->first_chunk;
          /* Where the level's last chunk did not pay, it is likely this one
           * will not either: count it only (level_finish_count()). */
          level->counting = level->chunk_active && level->last_plain;
        }

      if (level->chunk_active && cs <= t && t == b && seg_end == e)
        {
          /* The whole buffer lies in the chunk (always so for adaptive
           * buffers): its pieces, clipped to the buffer, need no more. */
          for (guint i = 0; i < n; i++)
            level_offer (self, level, &pieces[i], lanes[i]);
        }
      else if (level->chunk_active)
        {
          for (guint i = 0; i < n && pieces[i].start < seg_end; i++)
            {
              StrataActivity piece = pieces[i];

              if (!strata_activity_overlaps (&piece, MAX (t, cs), seg_end))
                continue;
              strata_activity_clip (&piece, cs, ce);
              level_offer (self, level, &piece, lanes[i]);
            }
        }

      if (seg_end == ce)
        strata_zoom_tree_level_finish_chunk (self, level);
      t = seg_end;
    }

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

/* The rank whose chunk at @b is sparse, the shallowest (so the stack of
 * active aggregators is 0 .. rank - 1), n_ranks when all are dense, or -1
 * when the known starts cannot tell yet. Every rank's decision at @b is
 * remembered: later in the buffer, a chunk that began before the cut can
 * no longer be counted. */
static gint
find_stack_top (StrataZoomTree *self,
                gint64          b)
{
  gint top = self->n_ranks;

  for (guint r = 0; r < self->n_ranks; r++)
    {
      gint64 index = strata_zoom_geometry_chunk_index (&self->ranks, r, b);
      Decision d = top < (gint)self->n_ranks ? DECISION_SPARSE : strata_zoom_tree_decide (self, r, index);

      if (d == DECISION_UNKNOWN)
        {
          /* Known for sure once the horizon passes the chunk's end. */
          self->wait_horizon = MIN (self->wait_horizon, strata_zoom_tree_chunk_end (self, r, b));
          return -1;
        }
      strata_zoom_tree_remember (self, r, index, d);
      if (d == DECISION_SPARSE && top == (gint)self->n_ranks)
        top = r;
    }

  return top;
}

/* The start of the (n+1)th activity that starts after @b, later than @b:
 * a buffer ending there holds the next n starts. -1 if not known yet. */
static gint64
count_cut (StrataZoomTree *self,
           gint64          b,
           guint           n)
{
  guint i = strata_zoom_tree_lower_bound_gint64 (self->starts, self->starts_head, b) + n;

  if (i >= self->starts->len)
    return -1;
  if (g_array_index (self->starts, gint64, i) > b)
    return g_array_index (self->starts, gint64, i);

  i = strata_zoom_tree_lower_bound_gint64 (self->starts, i, b + 1);
  return i < self->starts->len ? g_array_index (self->starts, gint64, i) : -1;
}

/* Where the buffer that starts at the cut ends, or -1 if that is not
 * known yet. */
gint64
strata_zoom_tree_next_cut (StrataZoomTree *self,
                           gint           *stack_top)
{
  gint64 b = self->cut;
  gint64 limit = self->finished ? TIME_LIMIT : self->horizon;
  gint64 e = -1;
  gint top = find_stack_top (self, b);

  *stack_top = top;
  if (top < 0)
    return -1;

  switch (self->params.buffer_criterion)
    {
    case STRATA_BUFFER_ADAPTIVE:
      /* The seed: the buffer is the sparse chunk that starts here, or, over
       * data dense at every level, the next T activities, cut at the end
       * of a chunk of the finest level when one ends among them. */
      if (top < (gint)self->n_ranks)
        e = strata_zoom_tree_chunk_end (self, top, b);
      else
        {
          gint64 c = count_cut (self, b, self->params.density_threshold);

          e = strata_zoom_tree_chunk_end (self, self->n_ranks - 1, b);
          if (c >= 0)
            e = MIN (e, c);
        }
      break;

    case STRATA_BUFFER_FIXED_INTERVAL:
      e = (b / self->params.buffer_interval + 1) * self->params.buffer_interval;
      break;

    case STRATA_BUFFER_FIXED_COUNT:
      e = count_cut (self, b, self->params.buffer_count);
      if (e < 0)
        e = self->finished ? MAX (self->last + 1, b + 1) : -1;
      break;

    default:
      g_assert_not_reached ();
    }

  if (e < 0 || e >= limit)
    {
      if (e >= limit)
        self->wait_horizon = MIN (self->wait_horizon, e + 1);
      return -1;
    }

  /* Every chunk that starts inside the buffer must be decided before the
   * aggregators enter it. */
  if (self->params.buffer_criterion != STRATA_BUFFER_ADAPTIVE)
    for (guint r = 0; r < self->n_ranks; r++)
      if (strata_zoom_tree_decide (self, r, strata_zoom_geometry_chunk_index (&self->ranks, r, e - 1)) == DECISION_UNKNOWN)
        return -1;

  return e;
}

/* The inverse of strata_zoom_tree_chunk_count(), for a chunk that is let go. */
static void
chunk_uncount (StrataZoomTree *self,
               const Chunk    *chunk)
{
  self->size -= strata_zoom_tree_chunk_size (chunk);
  self->n_chunks--;
  self->chunk_index -= sizeof (Chunk);
  if (chunk->piece_offset == G_MAXUINT64)
    {
      gsize spans = chunk->n_channels * sizeof (ChannelSpan);

      if (chunk->keys != NULL)
        spans += strata_index_n_keys (chunk->n_items) * sizeof (StrataIndexItemKey) +
                 chunk->n_changes * sizeof (guint32);
      self->spans -= spans;
      self->chunk_index -= spans;
    }
  if (chunk->spilled != NULL)
    self->n_spilled--;
  else
    self->in_memory -= chunk->n_items * sizeof (StrataZoomItem);
}

/* A rank the span hint took for level 0 or finer, which the stream, being
 * shorter, left coarser than level 0: without the hint its one chunk
 * would have waited for the end, and a rank coarser than level 0 computes
 * none then. What it made in the pass is let go, so the tree is the one
 * made without the hint. (Its chunks' items stay where they are, in the
 * arena or unused in the spill file, until the tree goes.) */
static void
level_drop (StrataZoomTree *self,
            Level          *level)
{
  for (guint i = 0; i < level->chunks->len; i++)
    chunk_uncount (self, g_ptr_array_index (level->chunks, i));
  g_ptr_array_set_size (level->chunks, 0);
  for (guint i = 0; i < level->deferred->len; i++)
    g_clear_pointer (&g_array_index (level->deferred, Deferred, i).channels, g_array_unref);
  g_array_set_size (level->deferred, 0);
  level->n_plain = 0;
}

/* A level's first chunk began before the stream did: compute it from the
 * raw store, with the on-demand code, and keep it if it is dense. */
static void
compute_first_chunk (StrataZoomTree *self,
                     guint           rank)
{
  Level *level = &self->levels[rank];
  Chunk *chunk;

  if (level->first_chunk < 0)
    return;
  /* Found sparse at the first cut, where all its starts were counted
   * (find_stack_top()): computing it would find as much. */
  if (self->first_top >= 0 && (gint) rank >= self->first_top)
    return;

  chunk = strata_zoom_tree_compute_stored_chunk (self, rank, level->first_chunk, NULL, TRUE);
  if (chunk != NULL)
    {
      /* Only a first chunk says so: a chunk the pass counted and the
       * end computed is the one the pass would have made, and which of
       * them the pass counts depends on its budgets, not on the trace
       * (level_count_poor_channels()). */
      chunk->at_end = TRUE;
      g_ptr_array_insert (level->chunks, 0, chunk);
    }
}

static int
by_chunk_index (gconstpointer pa,
                gconstpointer pb)
{
  const Chunk *a = *(Chunk * const *)pa, *b = *(Chunk * const *)pb;

  return a->index < b->index ? -1 : a->index > b->index;
}

/* The chunks a counting level found worth storing, in their places. They
 * were found dense in the pass, and the on-demand code gives the items the
 * aggregator would have (the tests' oracle). */
static void
compute_deferred_chunks (StrataZoomTree *self,
                         guint           rank)
{
  Level *level = &self->levels[rank];

  if (level->deferred->len == 0)
    return;

  for (guint i = 0; i < level->deferred->len; i++)
    {
      Deferred *d = &g_array_index (level->deferred, Deferred, i);
      /* Without its channels (its count was lost), it is decided here;
       * so is one whose proof of plainness failed. */
      Chunk *chunk = d->doubtful ? strata_zoom_tree_compute_doubtful_chunk (self, rank, d)
                                 : strata_zoom_tree_compute_stored_chunk (self, rank, d->index, d->channels, d->channels == NULL);

      /* Counted as worth storing, so it is. */
      g_assert (chunk != NULL || d->channels == NULL || d->doubtful);
      if (chunk != NULL)
        g_ptr_array_add (level->chunks, chunk);
      g_clear_pointer (&d->channels, g_array_unref);
    }
  g_array_set_size (level->deferred, 0);
  g_ptr_array_sort (level->chunks, by_chunk_index);
}

guint
strata_zoom_tree_root_rank (StrataZoomTree *self)
{
  guint r = self->n_ranks - 1;

  if (self->first > self->last)
    return 0;
  while (r > 0 &&
         strata_zoom_geometry_chunk_index (&self->ranks, r, self->first) !=
         strata_zoom_geometry_chunk_index (&self->ranks, r, self->last))
    r--;
  return r;
}

/**
 * strata_zoom_tree_finish:
 *
 * The stream has ended: every activity has been added. Delivers the last
 * buffers and computes each level's first chunk.
 */
void
strata_zoom_tree_finish (StrataZoomTree *self)
{
  guint root;

  g_return_if_fail (self != NULL);
  g_return_if_fail (!self->finished);

  strata_zoom_tree_take_incoming (self);
  strata_zoom_tree_stop_publisher (self);
  g_rw_lock_writer_lock (&self->lock);
  g_array_set_size (self->open, 0);
  g_array_set_size (self->open_by_start, 0);
  self->horizon = G_MAXINT64;
  self->finished = TRUE;
  g_rw_lock_writer_unlock (&self->lock);

  strata_zoom_tree_form_buffers (self);
  strata_zoom_tree_stop_aggregator (self);

  for (guint r = 0; r < self->n_ranks; r++)
    {
      strata_zoom_tree_level_finish_chunk (self, &self->levels[r]);
      /* Its last chunk: nothing more to hold spans for. */
      strata_zoom_tree_level_renew_scratch (&self->levels[r]);
      if (self->levels[r].pool_peak > 0)
        g_debug ("zoom tree: rank %u: pool peak %" G_GSIZE_FORMAT " bytes, %" G_GUINT64_FORMAT
                 " spills of %" G_GUINT64_FORMAT " items in all, %" G_GUINT64_FORMAT " pages of their runs, "
                 "%" G_GUINT64_FORMAT " lanes counted from a spill on (%" G_GUINT64_FORMAT " chunks computed for it)",
                 r, self->levels[r].pool_peak, self->levels[r].n_pool_spills,
                 self->levels[r].pool_spilled, self->levels[r].n_runs_pages,
                 self->levels[r].n_switched, self->levels[r].n_switch_deferred);
      if (self->levels[r].n_proven + self->levels[r].n_proofs_failed > 0)
        g_debug ("zoom tree: rank %u: %" G_GUINT64_FORMAT " chunks proven plain, %" G_GUINT64_FORMAT
                 " proofs failed (decided at the end)",
                 r, self->levels[r].n_proven, self->levels[r].n_proofs_failed);
    }

  root = strata_zoom_tree_root_rank (self);
  g_rw_lock_writer_lock (&self->lock);
  for (guint r = self->hint_root; r < root; r++)
    level_drop (self, &self->levels[r]);
  /* The chunks computed here walk a few lanes of the raw store's file
   * over the whole trace, a block of 1 KiB here and there (a CPU's on the
   * dense shape, 8 lanes for each level computed), through its windows,
   * read a page at a time where a lane skips (opened and closed under
   * the lock: no query reads the store meanwhile). */
  strata_raw_store_open_windows (self->raw, 4096);
  for (guint r = 0; r < self->n_ranks; r++)
    compute_deferred_chunks (self, r);
  for (guint r = root; r < self->n_ranks; r++)
    compute_first_chunk (self, r);
  strata_raw_store_close_windows (self->raw);
  g_rw_lock_writer_unlock (&self->lock);

  /* Every spilled chunk in the file: what the tree holds from now on is
   * the chunks kept, their spans and the blocks' records. */
  if (self->packer != NULL)
    {
      StrataZoomChunkMemory memory;

      strata_block_packer_flush (self->packer);
      strata_zoom_tree_get_chunk_memory (self, &memory);
      g_debug ("zoom tree: %u chunks spilled, %" G_GUINT64_FORMAT " bytes of items in %" G_GUINT64_FORMAT
               " bytes of file; %" G_GSIZE_FORMAT " bytes of items kept, %" G_GSIZE_FORMAT " of chunk records "
               "and spans (%u records, %" G_GSIZE_FORMAT " of spans in memory, %" G_GSIZE_FORMAT " of %u "
               "spilled ones read back), %" G_GSIZE_FORMAT " of block records; at most %" G_GSIZE_FORMAT
               " bytes queued; "
               "%" G_GUINT64_FORMAT " blocks packed by the builder, the queue full; "
               "%" G_GUINT64_FORMAT " waits for the packer, %.3f s",
               memory.n_spilled, memory.spilled, memory.file_size, memory.in_memory, memory.chunk_index,
               memory.n_chunks, memory.spans, memory.piece_cache, memory.n_pieces, memory.records, memory.peak_queued, memory.n_helped, memory.n_waits, memory.wait_us / 1e6);
    }
  strata_zoom_tree_release_build_state (self);
}
