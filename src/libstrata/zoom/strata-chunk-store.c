/* strata-chunk-store.c
 *
 * The chunks a level stored, and where they live: in the tree's arena,
 * handed to the block packer once the tree holds enough (below), or
 * mapped from an index. Where the chunks live. Once the stored chunks
 * hold CHUNK_SPILL_FROM bytes of items, each chunk finished after is
 * handed to a block packer (strata-block-packer.c), and so is a chunk
 * that big by itself, whatever the tree holds: its items are packed
 * in index blocks on a thread of their own and appended to a spill file,
 * its spans, keys and lane changes after them as one checksummed piece,
 * and the chunk keeps its record: the ticket of its first block and where
 * the piece is, so what stays in memory of a spilled chunk does not grow
 * with the trace's threads. A query reads such a chunk's items as it
 * reads a mapped index's, decoded into its result, and its spans from the
 * piece read back into a small cache the queries share (strata_zoom_tree_chunk_resolve());
 * the index writer copies the packed blocks.
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

void
strata_zoom_tree_chunk_piece_unref (ChunkPiece *piece)
{
  if (piece != NULL && g_atomic_int_dec_and_test (&piece->ref_count))
    g_free (piece);
}

/* Appends the items of @span to @out: copied from a chunk in memory,
 * decoded from one mapped from an index or spilled during the pass. FALSE
 * (@out as it was) if a block of them is damaged. (A query reads them
 * through its result instead: result_append_items(), span_in_view().) */
static gboolean
chunk_append_span (const Chunk       *chunk,
                   const ChannelSpan *span,
                   GArray            *out)
{
  if (chunk->packed == NULL && chunk->spilled == NULL)
    {
      g_array_append_vals (out, &chunk->items[span->first], span->n_items);
      return TRUE;
    }
  if (chunk->spilled != NULL)
    return strata_block_packer_append (chunk->spilled, chunk->first_block, STRATA_INDEX_ITEM_BLOCK,
                                       chunk->n_items, span->first, span->n_items, out);
  return strata_packed_array_append (chunk->packed, span->first, span->n_items, out);
}

int
strata_zoom_tree_by_span_channel (gconstpointer pa,
                                  gconstpointer pb)
{
  const StrataZoomSpan *a = pa, *b = pb;

  /* Stable: each channel's chunks stay in time order. */
  return a->channel < b->channel ? -1 : a->channel > b->channel;
}

/* A channel is stored in a chunk when one of its activities starts there:
 * then one of its items does not continue from before the chunk. */
static gboolean
has_start (const StrataZoomItem *items,
           guint                 n)
{
  for (guint i = 0; i < n; i++)
    if (!(items[i].flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE))
      return TRUE;
  return FALSE;
}

/* The packer a chunk of @n_items finished now hands its items to, or
 * NULL when it keeps them: the tree is below its threshold and the chunk
 * alone is too, or there is no spill file (then it stays in memory, as
 * before). A chunk as big as the threshold by itself spills whatever the
 * tree holds: on a trace whose only stored chunk is level 0's (thousands
 * of threads busy all the time, every finer level left to the raw store)
 * that one chunk was 9.7M items, 466 MB, copied into the arena at the
 * chunk's end. Called with arena_lock held. */
static StrataBlockPacker *
spill_packer (StrataZoomTree *self,
              guint64         n_items)
{
  gboolean big = n_items * sizeof (StrataZoomItem) >= self->spill_from;

  if ((!big && !g_atomic_int_get (&self->spilling)) || self->spill_failed)
    return NULL;
  if (self->packer == NULL)
    {
      g_autoptr(GError) error = NULL;
      int level = self->parameters.zstd_level != STRATA_PARAMETER_ZSTD_DEFAULT
                    ? self->parameters.zstd_level : STRATA_INDEX_ZSTD_LEVEL;

      /* The level the index writer packs with, so it copies the blocks. */
      self->packer = strata_block_packer_new (self->spill_queue, level, &error);
      if (self->packer == NULL)
        {
          g_debug ("zoom tree: chunks stay in memory: %s", error->message);
          self->spill_failed = TRUE;
          return NULL;
        }
    }
  if (strata_block_packer_has_failed (self->packer))
    return NULL;
  return self->packer;
}

/* The packer a chunk about to be made, of @n_items items (as many as
 * known so far), hands its items to, or NULL if it keeps them. */
StrataBlockPacker *
strata_zoom_tree_chunk_spill_target (StrataZoomTree *self,
                                     guint64         n_items)
{
  StrataBlockPacker *packer;

  g_mutex_lock (&self->arena_lock);
  packer = spill_packer (self, n_items);
  g_mutex_unlock (&self->arena_lock);
  return packer;
}

/* A chunk with room for its spans and items unless they go to @packer:
 * then the caller streams the items there (strata_block_packer_begin())
 * and sets first_block before publishing it, so a chunk's items are never
 * held twice however big it is, and its spans go there after them
 * (strata_zoom_tree_chunk_take_spans()). */
Chunk *
strata_zoom_tree_chunk_alloc (StrataZoomTree    *self,
                              gint64             index,
                              guint              n_channels,
                              guint              n_items,
                              StrataBlockPacker *packer)
{
  Chunk *chunk;

  /* Aggregator threads finish chunks at the same time. */
  g_mutex_lock (&self->arena_lock);
  chunk = strata_zoom_tree_arena_alloc (self, sizeof (Chunk));
  chunk->channels = packer == NULL ? strata_zoom_tree_arena_alloc (self, n_channels * sizeof (ChannelSpan)) : NULL;
  chunk->items = packer == NULL ? strata_zoom_tree_arena_alloc (self, n_items * sizeof (StrataZoomItem)) : NULL;
  g_mutex_unlock (&self->arena_lock);

  chunk->index = index;
  chunk->at_end = FALSE;
  chunk->packed = NULL;
  chunk->spilled = packer;
  chunk->first_block = 0;
  chunk->keys = NULL;
  chunk->changes = NULL;
  chunk->n_changes = 0;
  chunk->n_channels = n_channels;
  chunk->n_items = n_items;
  chunk->piece_offset = G_MAXUINT64;
  chunk->piece_checksum = 0;
  chunk->piece = NULL;

  return chunk;
}

void
strata_zoom_tree_item_stream_begin (ItemStream        *s,
                                    StrataBlockPacker *packer)
{
  memset (s, 0, sizeof *s);
  if (packer == NULL)
    return;
  s->stream = strata_block_packer_begin (packer, sizeof (StrataZoomItem), STRATA_INDEX_ITEM_BLOCK);
  strata_index_chunk_keys_init (&s->keys);
}

void
strata_zoom_tree_item_stream_add (ItemStream           *s,
                                  const StrataZoomItem *items,
                                  guint                 n)
{
  strata_index_chunk_keys_add (&s->keys, items, n);
  strata_block_stream_add (s->stream, items, n);
}

/* The bytes of a chunk's spans, keys and lane changes laid out as the
 * index lays them out: the spans, the keys from the next 8-byte boundary,
 * the changes. */
gsize
strata_zoom_tree_chunk_piece_size (const Chunk *chunk)
{
  return strata_index_keys_offset (chunk->n_channels) +
         strata_index_n_keys (chunk->n_items) * sizeof (StrataIndexItemKey) +
         (gsize) chunk->n_changes * sizeof (guint32);
}

/* What a spilled chunk's piece is hashed with as it is written, and the
 * spilled arrays among its parts, let go of behind the write. */
typedef struct
{
  StrataIndexHasher  *hasher;
  StrataSpilledArray *spans;    /* part 0 */
  StrataSpilledArray *changes;  /* part 3 */
} PieceWrite;

static void
piece_written (guint         i,
               gconstpointer bytes,
               gsize         size,
               gsize         from,
               gpointer      user_data)
{
  PieceWrite *w = user_data;

  strata_index_hasher_add (w->hasher, bytes, size);
  if (i == 0)
    strata_spilled_array_let_go (w->spans, (guint) ((from + size) / sizeof (ChannelSpan)));
  else if (i == 3)
    strata_spilled_array_let_go (w->changes, (guint) ((from + size) / sizeof (guint32)));
}

/* Gives @chunk its @spans and the keys and lane changes @s collected, and
 * frees them (@chunk NULL: it is not stored after all). A chunk kept in
 * memory has room for its spans and no keys. A spilled one writes them
 * after its items to the packer's file, as one checksummed piece, so what
 * stays in memory of it is its record whatever the trace's threads; only
 * if that write fails are they kept in memory, as an unspilled chunk's.
 * The spans and the changes are spilled arrays, written and hashed a
 * window at a time and let go of behind: the last chunk of a coarse
 * level over a million threads has a span and a change or two for each,
 * and its piece is never in memory whole. */
void
strata_zoom_tree_chunk_take_spans (StrataZoomTree     *self,
                                   ItemStream         *s,
                                   Chunk              *chunk,
                                   StrataSpilledArray *spans)
{
  GArray *keys = s->keys.keys;
  StrataSpilledArray *changes = s->keys.changes;
  static const guint8 zeros[8];
  StrataBytesPart parts[4];
  PieceWrite w;
  gsize spans_size, keys_at, keys_size, size, at;
  guint64 offset;
  guint8 *p;

  if (chunk != NULL && keys == NULL)
    {
      g_assert (spans->len == chunk->n_channels);
      if (spans->len > 0)
        memcpy (chunk->channels, spans->data, chunk->n_channels * sizeof (ChannelSpan));
      return;
    }
  if (keys == NULL)
    return;
  if (chunk == NULL)
    {
      strata_index_chunk_keys_clear (&s->keys);
      return;
    }

  g_assert (chunk->spilled != NULL && keys->len == strata_index_n_keys (chunk->n_items));
  g_assert (spans->len == chunk->n_channels);
  chunk->n_changes = changes->len;
  spans_size = chunk->n_channels * sizeof (ChannelSpan);
  keys_at = strata_index_keys_offset (chunk->n_channels);
  keys_size = keys->len * sizeof (StrataIndexItemKey);
  size = strata_zoom_tree_chunk_piece_size (chunk);
  g_assert (keys_at - spans_size <= sizeof zeros);

  /* Written from where its parts are, not copied into one piece first. */
  parts[0] = (StrataBytesPart) { spans->data, spans_size };
  parts[1] = (StrataBytesPart) { zeros, keys_at - spans_size };
  parts[2] = (StrataBytesPart) { keys->data, keys_size };
  parts[3] = (StrataBytesPart) { changes->data, (gsize) changes->len * sizeof (guint32) };
  w = (PieceWrite) { strata_index_hasher_new (), spans, changes };
  offset = strata_block_packer_put_parts_full (chunk->spilled, parts, G_N_ELEMENTS (parts),
                                               piece_written, &w);
  chunk->piece_checksum = strata_index_hasher_free (w.hasher);
  if (offset != G_MAXUINT64)
    {
      chunk->piece_offset = offset;
      strata_index_chunk_keys_clear (&s->keys);
      return;
    }

  g_debug ("zoom tree: the spans of chunk %" G_GINT64_FORMAT " stay in memory: %s",
           chunk->index, g_strerror (errno));
  chunk->piece_checksum = 0;
  g_mutex_lock (&self->arena_lock);
  p = strata_zoom_tree_arena_alloc (self, size);
  g_mutex_unlock (&self->arena_lock);
  at = 0;
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      if (parts[i].size > 0)
        memcpy (p + at, parts[i].bytes, parts[i].size);
      at += parts[i].size;
    }
  strata_index_chunk_keys_clear (&s->keys);
  chunk->channels = (ChannelSpan *)(gpointer) p;
  chunk->keys = keys_size > 0 ? (const StrataIndexItemKey *)(gconstpointer)(p + keys_at) : NULL;
  chunk->changes = (const guint32 *)(gconstpointer)(p + keys_at + keys_size);
}

/* What a chunk counts for in the tree's size (and the index header's
 * tree_size) besides its spans and items: the size of its record when
 * that count went into the index. Kept at that, so the index is the same
 * bytes whatever the record holds now (a spilled chunk's ticket too). */
#define CHUNK_COUNTED_SIZE 48

gsize
strata_zoom_tree_chunk_size (const Chunk *chunk)
{
  return CHUNK_COUNTED_SIZE + chunk->n_channels * sizeof (ChannelSpan) +
         chunk->n_items * sizeof (StrataZoomItem);
}

/* Counts a chunk being published, with the tree's writer lock held: its
 * size as the tree's, and where it lives. Past the threshold, the next
 * chunks spill. */
void
strata_zoom_tree_chunk_count (StrataZoomTree *self,
                              const Chunk    *chunk)
{
  self->size += strata_zoom_tree_chunk_size (chunk);
  self->n_chunks++;
  self->chunk_index += sizeof (Chunk);
  /* A spilled chunk's spans, keys and changes are in the file; read back,
   * they count in the piece cache's bytes (strata_zoom_tree_get_chunk_memory()). */
  if (chunk->piece_offset == G_MAXUINT64)
    {
      gsize spans = chunk->n_channels * sizeof (ChannelSpan);

      if (chunk->keys != NULL)
        spans += strata_index_n_keys (chunk->n_items) * sizeof (StrataIndexItemKey) +
                 chunk->n_changes * sizeof (guint32);
      self->spans += spans;
      self->chunk_index += spans;
    }
  if (chunk->spilled != NULL)
    self->n_spilled++;
  else
    self->in_memory += chunk->n_items * sizeof (StrataZoomItem);
  if (self->in_memory >= self->spill_from)
    g_atomic_int_set (&self->spilling, 1);
}

/* Adds one channel's items of a chunk being assembled, if it is stored:
 * to @items, or to @stream when the chunk spills. */
void
strata_zoom_tree_assemble_channel (StrataSpilledArray   *spans,
                                   GArray               *items,
                                   ItemStream           *stream,
                                   guint                *n_items,
                                   guint64              *members,
                                   guint32               channel,
                                   const StrataZoomItem *channel_items,
                                   guint                 n)
{
  ChannelSpan span = { channel, *n_items, n };

  if (n == 0 || !has_start (channel_items, n))
    return;
  strata_spilled_array_append (spans, &span);
  if (stream->stream != NULL)
    strata_zoom_tree_item_stream_add (stream, channel_items, n);
  else
    g_array_append_vals (items, channel_items, n);
  for (guint i = 0; i < n; i++)
    *members += channel_items[i].count;
  *n_items += n;
}

/* A dense chunk is stored whole when aggregation pays: at most one item
 * per min_reduction members. Otherwise its items are nearly the
 * activities themselves, and the query computes them from the raw store
 * at the cost of copying them: per lane, a chunk has at most W items an
 * activity or an aggregate long, so at most W * min_reduction activities.
 * Without this, every dense level below the one where activities stop
 * being trivial stores the whole trace again. */
gboolean
strata_zoom_tree_worth_storing (StrataZoomTree *self,
                                guint           n_spans,
                                guint64         n_items,
                                guint64         members)
{
  return n_spans > 0 && n_items * MAX (self->params.min_reduction, 1) <= members;
}

/* The same test for one channel of a chunk not worth storing whole. */
gboolean
strata_zoom_tree_channel_pays (StrataZoomTree *self,
                               guint64         n_items,
                               guint64         members)
{
  return n_items > 0 && n_items * MAX (self->params.min_reduction, 1) <= members;
}

/* How many spans a loop over a level's spans reads between let-goes. */
#define LET_GO_SPANS 65536

/* The channels a dense chunk stores, of @spans (the channels with an
 * activity starting in it, their items one after the other, their
 * members @all_members in all) and whether each one's own items
 * aggregation reduces (@pays, the channel_pays() test, a byte a span:
 * a chunk over a million threads has a span for each): all of them when
 * the chunk is worth storing whole, else those that pay, the others left
 * to the raw store. A dense chunk of two
 * thousand busy threads, whose 1-3 pixel activities aggregation does not
 * halve, and eight CPUs it reduces a hundredfold is not worth storing
 * whole, yet a CPU's row there is 150 000 activities computed on demand
 * for each frame; stored, it is a couple of thousand items. @spans is
 * left with the channels kept, their items renumbered as the chunk will
 * hold them; returns how many items they have. */
guint64
strata_zoom_tree_keep_paying_spans (StrataZoomTree     *self,
                                    StrataSpilledArray *spans,
                                    const GArray       *pays,
                                    guint64             all_members)
{
  ChannelSpan *s = (ChannelSpan *)(gpointer) spans->data;
  const guint8 *p = (const guint8 *)(gconstpointer) pays->data;
  guint64 n_items = 0;
  guint kept = 0;

  g_assert (pays->len == spans->len);

  /* The spans read (and rewritten) leave memory behind the loops, as
   * they left it when they were made. */
  for (guint i = 0; i < spans->len; i++)
    {
      if (i % LET_GO_SPANS == LET_GO_SPANS - 1)
        strata_spilled_array_let_go (spans, i);
      n_items += s[i].n_items;
    }
  strata_spilled_array_let_go (spans, spans->len);
  if (spans->len == 0 || strata_zoom_tree_worth_storing (self, spans->len, n_items, all_members))
    return n_items;

  n_items = 0;
  for (guint i = 0; i < spans->len; i++)
    {
      /* Those between kept and i come back when written, if ever. */
      if (i % LET_GO_SPANS == LET_GO_SPANS - 1)
        strata_spilled_array_let_go (spans, i);
      if (p[i])
        {
          s[kept] = s[i];
          s[kept].first = (guint32) n_items;
          n_items += s[i].n_items;
          kept++;
        }
    }
  strata_spilled_array_set_size (spans, kept);
  strata_spilled_array_let_go (spans, kept);
  return n_items;
}

guint
strata_zoom_tree_level_n_chunks (Level *level)
{
  return level->record_state != NULL ? (guint) level->records.n : level->chunks->len;
}

/* The record of chunk @i of a mapped level, checked; NULL if damaged
 * (or its index is not one of the level's). */
static const StrataIndexChunk *
level_record (Level *level,
              guint  i)
{
  const StrataIndexChunk *rec;

  if (!strata_checked_array_check (&level->records, i, i + 1))
    return NULL;
  rec = (const StrataIndexChunk *)(gconstpointer) level->records.data + i;
  if (rec->index < 0 || rec->index >= level->max_index)
    {
      strata_index_map_note_damage (level->records.map, "chunk %" G_GINT64_FORMAT " is out of bounds", rec->index);
      return NULL;
    }
  return rec;
}

/* Spilled @chunk's piece, from the cache or read back into it (unless
 * @cache is FALSE: the index writer reads each chunk once, and would
 * only push out what the queries read): a reference the caller drops
 * (strata_zoom_tree_chunk_piece_unref()). NULL if it cannot be read back or fails its
 * checksum: then the chunk is answered as a damaged one of an index is,
 * computed from the raw store, never from spans that may be wrong. */
static ChunkPiece *
chunk_piece_get (StrataZoomTree *self,
                 const Chunk    *chunk,
                 gboolean        cache)
{
  gsize size = strata_zoom_tree_chunk_piece_size (chunk);
  ChunkPiece *piece = NULL, *evicted[PIECE_CACHE];
  guint n_evicted = 0, i;

  g_mutex_lock (&self->piece_lock);
  for (i = 0; i < self->n_pieces && piece == NULL; i++)
    if (self->pieces[i]->offset == chunk->piece_offset)
      piece = self->pieces[i];
  if (piece != NULL)
    {
      /* The most recent first: what the cache drops is what no frame
       * read for longest. */
      memmove (&self->pieces[1], &self->pieces[0], (i - 1) * sizeof (ChunkPiece *));
      self->pieces[0] = piece;
      g_atomic_int_inc (&piece->ref_count);
    }
  g_mutex_unlock (&self->piece_lock);
  if (piece != NULL)
    return piece;

  /* Read outside the lock: the readers of other chunks do not wait. */
  piece = g_malloc (sizeof (ChunkPiece) + MAX (size, 1));
  piece->ref_count = 1;
  piece->offset = chunk->piece_offset;
  piece->size = size;
  if (!strata_block_packer_read_at (chunk->spilled, chunk->piece_offset, piece->bytes, size) ||
      strata_index_checksum (piece->bytes, size) != chunk->piece_checksum)
    {
      if (g_atomic_int_compare_and_exchange (&self->piece_warned, 0, 1))
        g_warning ("zoom tree: the spans of spilled chunk %" G_GINT64_FORMAT " cannot be read back "
                   "from the spill file; such chunks are computed from the raw store", chunk->index);
      g_free (piece);
      return NULL;
    }
  if (!cache)
    return piece;

  g_mutex_lock (&self->piece_lock);
  for (i = 0; i < self->n_pieces; i++)
    if (self->pieces[i]->offset == chunk->piece_offset)
      break;
  if (i < self->n_pieces)
    {
      /* Another reader read it meanwhile: one copy is kept. */
      g_free (piece);
      piece = self->pieces[i];
      g_atomic_int_inc (&piece->ref_count);
    }
  else
    {
      if (self->n_pieces == PIECE_CACHE)
        {
          evicted[n_evicted++] = self->pieces[--self->n_pieces];
          self->piece_bytes -= evicted[n_evicted - 1]->size;
        }
      memmove (&self->pieces[1], &self->pieces[0], self->n_pieces * sizeof (ChunkPiece *));
      self->pieces[0] = piece;
      self->n_pieces++;
      self->piece_bytes += size;
      g_atomic_int_inc (&piece->ref_count);
      while (self->n_pieces > 1 && self->piece_bytes > PIECE_CACHE_BYTES)
        {
          evicted[n_evicted++] = self->pieces[--self->n_pieces];
          self->piece_bytes -= evicted[n_evicted - 1]->size;
        }
    }
  g_mutex_unlock (&self->piece_lock);
  for (i = 0; i < n_evicted; i++)
    strata_zoom_tree_chunk_piece_unref (evicted[i]);

  return piece;
}

/* Copies @stored into @out with its spans, keys and lane changes where
 * they can be read: in place, or a spilled chunk's in its piece read
 * back (through the cache if @cache), held by @out until
 * strata_zoom_tree_chunk_release(). The one way to a stored chunk's spans. FALSE (nothing
 * held) if the piece cannot be read. */
gboolean
strata_zoom_tree_chunk_resolve (StrataZoomTree *self,
                                const Chunk    *stored,
                                gboolean        cache,
                                Chunk          *out)
{
  ChunkPiece *piece;
  gsize keys_at;
  guint64 n_keys;

  *out = *stored;
  out->piece = NULL;
  if (stored->piece_offset == G_MAXUINT64)
    return TRUE;

  if ((piece = chunk_piece_get (self, stored, cache)) == NULL)
    return FALSE;
  keys_at = strata_index_keys_offset (stored->n_channels);
  n_keys = strata_index_n_keys (stored->n_items);
  out->channels = (ChannelSpan *)(gpointer) piece->bytes;
  out->keys = n_keys > 0 ? (const StrataIndexItemKey *)(gconstpointer)(piece->bytes + keys_at) : NULL;
  out->changes = (const guint32 *)(gconstpointer)(piece->bytes + keys_at + n_keys * sizeof (StrataIndexItemKey));
  out->piece = piece;
  return TRUE;
}

/* Drops what a copy made by strata_zoom_tree_chunk_resolve() (or strata_zoom_tree_find_chunk()) holds. */
void
strata_zoom_tree_chunk_release (Chunk *chunk)
{
  g_clear_pointer (&chunk->piece, strata_zoom_tree_chunk_piece_unref);
}

/* The pre-calculated chunk @index of @level, in place (strata_zoom_tree_chunk_resolve():
 * the caller drops it with strata_zoom_tree_chunk_release()): FALSE if there is none (or,
 * mapped from an index or spilled, it is damaged: the query then computes
 * it from the raw store, as it would a chunk never stored). */
gboolean
strata_zoom_tree_find_chunk (StrataZoomTree *self,
                             Level          *level,
                             gint64          index,
                             Chunk          *out)
{
  guint lo = 0, hi = strata_zoom_tree_level_n_chunks (level);

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      gint64 at;

      if (level->record_state != NULL)
        {
          const StrataIndexChunk *rec = level_record (level, mid);

          if (rec == NULL)
            return FALSE;
          at = rec->index;
          if (at == index)
            return strata_zoom_tree_mapped_chunk (self, level, mid, out);
        }
      else
        {
          Chunk *chunk = g_ptr_array_index (level->chunks, mid);

          at = chunk->index;
          if (at == index)
            return strata_zoom_tree_chunk_resolve (self, chunk, TRUE, out);
        }
      if (at < index)
        lo = mid + 1;
      else
        hi = mid;
    }

  return FALSE;
}

const ChannelSpan *
strata_zoom_tree_find_span (const Chunk *chunk,
                            guint32      channel)
{
  guint lo = 0, hi = chunk->n_channels;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (chunk->channels[mid].channel == channel)
        return &chunk->channels[mid];
      if (chunk->channels[mid].channel < channel)
        lo = mid + 1;
      else
        hi = mid;
    }

  return NULL;
}

/**
 * strata_zoom_tree_list_chunks:
 * @level: a level of the current geometry
 *
 * Returns: (transfer full) (element-type StrataZoomChunkInfo): the
 *   pre-calculated chunks of @level, by time
 */
GArray *
strata_zoom_tree_list_chunks (StrataZoomTree *self,
                              guint           level)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (StrataZoomChunkInfo));
  StrataZoomGeometry g;
  guint root;

  g_return_val_if_fail (self != NULL, out);

  strata_zoom_tree_read_lock (self);
  strata_zoom_tree_current_geometry (self, &g, &root);
  if (level < g.n_levels)
    {
      Level *l = &self->levels[root + level];

      for (guint i = 0; i < strata_zoom_tree_level_n_chunks (l); i++)
        {
          Chunk record_chunk = { 0 };
          const Chunk *chunk = &record_chunk;
          StrataZoomChunkInfo info;

          if (l->record_state != NULL)
            {
              const StrataIndexChunk *rec = level_record (l, i);

              if (rec == NULL)
                break;
              record_chunk.index = rec->index;
              record_chunk.n_channels = rec->n_channels;
              record_chunk.n_items = rec->n_items;
              record_chunk.at_end = rec->at_end != 0;
            }
          else
            chunk = g_ptr_array_index (l->chunks, i);

          info = (StrataZoomChunkInfo) {
            .level = level,
            .index = chunk->index,
            .start = strata_zoom_geometry_chunk_start (&g, level, chunk->index),
            .end = strata_zoom_geometry_chunk_start (&g, level, chunk->index + 1),
            .n_items = chunk->n_items,
            .n_channels = chunk->n_channels,
            .size = strata_zoom_tree_chunk_size (chunk),
            .at_end = chunk->at_end,
          };

          g_array_append_val (out, info);
        }
    }
  g_rw_lock_reader_unlock (&self->lock);

  return out;
}

/* Dense chunks of @level that store no channel, aggregation having
 * halved the items of none: the query computes them from the raw store. */
guint
strata_zoom_tree_get_n_plain_chunks (StrataZoomTree *self,
                                     guint           level)
{
  StrataZoomGeometry g;
  guint root, n = 0;

  g_return_val_if_fail (self != NULL, 0);

  strata_zoom_tree_read_lock (self);
  strata_zoom_tree_current_geometry (self, &g, &root);
  if (level < g.n_levels)
    n = self->levels[root + level].n_plain;
  g_rw_lock_reader_unlock (&self->lock);

  return n;
}

/**
 * strata_zoom_tree_get_chunk_items:
 * @out: (element-type StrataZoomItem): where the items are appended
 *
 * The pre-calculated items of @channel in chunk @index of @level.
 *
 * Returns: %FALSE if that chunk was not pre-calculated, or does not hold
 *   the channel (nothing of it starts there)
 */
gboolean
strata_zoom_tree_get_chunk_items (StrataZoomTree *self,
                                  guint           level,
                                  gint64          index,
                                  guint32         channel,
                                  GArray         *out)
{
  StrataZoomGeometry g;
  const ChannelSpan *span = NULL;
  Chunk chunk;
  guint root;

  g_return_val_if_fail (self != NULL && out != NULL, FALSE);

  strata_zoom_tree_read_lock (self);
  strata_zoom_tree_current_geometry (self, &g, &root);
  if (level < g.n_levels && strata_zoom_tree_find_chunk (self, &self->levels[root + level], index, &chunk))
    {
      span = strata_zoom_tree_find_span (&chunk, channel);
      if (span != NULL && !chunk_append_span (&chunk, span, out))
        span = NULL;
      strata_zoom_tree_chunk_release (&chunk);
    }
  g_rw_lock_reader_unlock (&self->lock);

  return span != NULL;
}

gboolean
strata_zoom_tree_item_overlaps (const StrataZoomItem *item,
                                gint64                from,
                                gint64                to)
{
  if (item->start == item->end)
    return item->start >= from && item->start < to;
  return item->start < to && item->end > from;
}

/**
 * strata_zoom_tree_get_members:
 * @item: an item a query returned
 * @out: (element-type StrataActivity): where the members are appended, in
 *   time order, clipped to the item as the aggregator saw them
 *
 * The drill-down of an aggregate: its members are the activities of its
 * channel and lane (nesting depth, or instants) inside its span, so the
 * item itself says where they are. For an activity kept as it is, that
 * activity.
 */
void
strata_zoom_tree_get_members (StrataZoomTree       *self,
                              const StrataZoomItem *item,
                              GArray               *out)
{
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  guint lane;
  gint64 end;

  g_return_if_fail (self != NULL && item != NULL && out != NULL);

  /* An instant, or an interval of no length, at the item's end is one of
   * its members; an interval starting there is the next item's. */
  lane = strata_zoom_item_lane (item);
  end = item->end + 1;

  strata_zoom_tree_read_lock (self);
  strata_raw_store_query (self->raw, item->channel, item->start, end, found);
  for (guint i = 0; i < self->open->len; i++)
    {
      const StrataActivity *a = &g_array_index (self->open, StrataActivity, i);

      if (a->channel == item->channel && strata_activity_overlaps (a, item->start, end))
        g_array_append_vals (found, a, 1);
    }
  g_rw_lock_reader_unlock (&self->lock);

  for (guint i = 0; i < found->len; i++)
    {
      StrataActivity a = g_array_index (found, StrataActivity, i);

      if (strata_zoom_lane_of (&a) != lane || (a.start == item->end && a.end > a.start))
        continue;
      strata_activity_clip (&a, item->start, item->end);
      g_array_append_val (out, a);
    }
}

static int
by_lane_then_start (const void *pa,
                    const void *pb)
{
  const StrataActivity *a = pa, *b = pb;
  guint la = strata_zoom_lane_of (a), lb = strata_zoom_lane_of (b);

  if (la != lb)
    return la < lb ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

/**
 * strata_zoom_tree_query_activities:
 * @out: (element-type StrataActivity): where they are appended, unclipped
 *
 * @channel's activities that overlap [@from, @to) (instants inside it):
 * the raw store's, and with @with_open, while the tree grows, the
 * channel's open pieces (from their start to the latest event, flagged
 * CONTINUES_AFTER), read
 * under the tree's lock so the pass may go on adding. What the growing
 * tree holds is in the raw store's order only without open pieces, so
 * with them, each lane's part is put back in start order.
 */
void
strata_zoom_tree_query_activities (StrataZoomTree *self,
                                   guint32         channel,
                                   gint64          from,
                                   gint64          to,
                                   gboolean        with_open,
                                   GArray         *out)
{
  guint first = out->len;
  gboolean opened = FALSE;

  g_return_if_fail (self != NULL && out != NULL);

  strata_zoom_tree_read_lock (self);
  strata_raw_store_query (self->raw, channel, from, to, out);
  for (guint i = 0; with_open && i < self->open->len; i++)
    {
      const StrataActivity *a = &g_array_index (self->open, StrataActivity, i);

      if (a->channel == channel && from < to && strata_activity_overlaps (a, from, to))
        {
          g_array_append_vals (out, a, 1);
          opened = TRUE;
        }
    }
  g_rw_lock_reader_unlock (&self->lock);

  if (opened)
    qsort (&g_array_index (out, StrataActivity, first), out->len - first,
           sizeof (StrataActivity), by_lane_then_start);
}
