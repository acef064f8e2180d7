/* strata-zoom-query.c
 *
 * A query: (level, time range, channels) -> each channel's items, from at
 * most two chunks of the level, a pre-calculated chunk's spans read in
 * place (in memory, or decoded from a spilled or mapped chunk into the
 * result's blocks), and on demand from the raw store where the level has
 * no chunk; a long span is answered in part, what of each of its lanes can
 * be in view. Also the members of an aggregate, and the joins at chunk
 * seams.
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
#include "strata-fresh-memory.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-spill-file.h"
#include "strata-zoom-chunk.h"
#include "strata-zoom-tree.h"
#include "strata-zoom-tree-internal.h"
#include "strata-zoom-tree-private.h"

/* Two pieces of one activity on either side of a seam become one again. */
static gboolean
join_at_seam (StrataZoomItem       *left,
              const StrataZoomItem *right)
{
  if ((left->flags | right->flags) & STRATA_ZOOM_ITEM_AGGREGATE)
    return FALSE;
  if (!(left->flags & STRATA_ACTIVITY_FLAG_CONTINUES_AFTER) ||
      !(right->flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE) ||
      left->end != right->start || left->kind != right->kind || left->state != right->state ||
      left->label != right->label || left->arg != right->arg || strata_zoom_item_lane (left) != strata_zoom_item_lane (right))
    return FALSE;

  left->end = right->end;
  left->busy += right->busy;
  left->flags = (left->flags & ~STRATA_ACTIVITY_FLAGS_END_SIDE) |
                (right->flags & STRATA_ACTIVITY_FLAGS_END_SIDE);
  return TRUE;
}

struct _StrataZoomResult
{
  GArray *spans;     /* StrataZoomSpan */
  GArray *offsets;   /* guint per span: where its items are in scratch, or G_MAXUINT */
  GArray *scratch;   /* StrataZoomItem computed on demand */
  /* The blocks of spilled or mapped chunks the last query decoded
   * (ResultBlock), of the tree it asked: the next one decodes only the
   * blocks the last one did not read, as a timeline's next frame shows
   * most of what the last one did. */
  GHashTable *blocks;
  guint64     tree;
  guint64     n_queries;
  guint       n_decoded;   /* by the query under way */
  gsize       reserved;    /* scratch items grown to and advised */
  /* The settled items of the chunks it computed on demand while the
   * tree grew: the next frame aggregates only what came after them. */
  StrataZoomSettled *settled;
};

/* Room for @n items in @result's scratch (the copies of a chunk's spans
 * about to be made), reserved before they are written: the array grows
 * once instead of doubling, and its pages past the first 2 MiB (on the
 * first queries into the result, all fresh) come as huge pages where the
 * kernel allows, a fault every 2 MiB instead of every 4 KiB. The first
 * answer of a dense trace's index, 60 rows of the whole trace (290 000
 * items, 14 MB), faulted 3 500 pages here. A small answer stays in 4 KiB
 * pages (a huge one would be zeroed whole). */
static void
result_reserve (StrataZoomResult *result,
                gsize             n)
{
  gsize small = ((gsize) 2 << 20) / sizeof (StrataZoomItem);
  guint len = result->scratch->len;

  if (n <= result->reserved || n <= small || n > G_MAXUINT / 2)
    return;
  g_array_set_size (result->scratch, (guint) n);
  strata_fresh_memory_advise (&g_array_index (result->scratch, StrataZoomItem, small),
                              (n - small) * sizeof (StrataZoomItem));
  g_array_set_size (result->scratch, len);
  result->reserved = n;
}

/* A block of a spilled or mapped chunk's items, decoded by a query. */
typedef struct
{
  gconstpointer  source;   /* the chunk's packer, or its packed array */
  guint64        block;    /* the block's ticket, or its place in the array */
  guint64        used;     /* the query that last read it */
  guint          n;
  StrataZoomItem items[STRATA_INDEX_ITEM_BLOCK];
} ResultBlock;

G_STATIC_ASSERT (sizeof (((ResultBlock *) NULL)->items) <= STRATA_INDEX_MAX_BLOCK_BYTES);

/* A block of a spilled or mapped chunk: its packer or packed array, and
 * its ticket or place there. */
static guint
result_block_hash (gconstpointer p)
{
  const ResultBlock *b = p;
  guint64 k = ((guint64) (guintptr) b->source * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) ^ b->block;

  return (guint) (k ^ (k >> 29));
}

static gboolean
result_block_equal (gconstpointer pa,
                    gconstpointer pb)
{
  const ResultBlock *a = pa, *b = pb;

  return a->source == b->source && a->block == b->block;
}

/* Block @b of @chunk's items (spilled or mapped), decoded into @result
 * unless the last query did; NULL if it cannot be read or is damaged. */
static const ResultBlock *
result_block (StrataZoomResult *result,
              const Chunk      *chunk,
              guint64           b)
{
  ResultBlock key, *rb;
  guint want, n;

  key.source = chunk->spilled != NULL ? (gconstpointer) chunk->spilled : (gconstpointer) chunk->packed;
  key.block = chunk->spilled != NULL ? chunk->first_block + b : b;
  rb = g_hash_table_lookup (result->blocks, &key);
  if (rb == NULL)
    {
      want = (guint) MIN ((guint64) STRATA_INDEX_ITEM_BLOCK, chunk->n_items - b * STRATA_INDEX_ITEM_BLOCK);
      rb = g_new (ResultBlock, 1);
      n = chunk->spilled != NULL ? strata_block_packer_read_direct (chunk->spilled, key.block, rb->items)
                                 : strata_packed_array_read_block_direct (chunk->packed, b, rb->items);
      /* A block must begin where its key says, or the bisections that
       * led here were misled: damaged. */
      if (n == want && n > 0 && chunk->keys != NULL)
        {
          StrataIndexItemKey k;

          strata_index_item_key_init (&k, &rb->items[0]);
          if (memcmp (&k, &chunk->keys[b], sizeof k) != 0)
            n = 0;
        }
      if (n != want || n == 0)
        {
          g_free (rb);
          return NULL;
        }
      rb->source = key.source;
      rb->block = key.block;
      rb->n = n;
      g_hash_table_add (result->blocks, rb);
      result->n_decoded++;
    }
  rb->used = result->n_queries;
  return rb;
}

/* Appends items [@from, @from + @count) of @chunk (spilled or mapped) to
 * @out; FALSE (@out as it was) if a block of them cannot be read. */
static gboolean
result_append_items (StrataZoomResult *result,
                     const Chunk      *chunk,
                     guint64           from,
                     guint64           count,
                     GArray           *out)
{
  guint len = out->len;

  if (count == 0)
    return TRUE;
  for (guint64 b = from / STRATA_INDEX_ITEM_BLOCK; b <= (from + count - 1) / STRATA_INDEX_ITEM_BLOCK; b++)
    {
      const ResultBlock *rb = result_block (result, chunk, b);
      guint64 first = b * STRATA_INDEX_ITEM_BLOCK;
      guint64 lo = MAX (first, from), hi;

      if (rb == NULL)
        {
          g_array_set_size (out, len);
          return FALSE;
        }
      hi = MIN (first + rb->n, from + count);
      if (hi > lo)
        g_array_append_vals (out, &rb->items[lo - first], (guint) (hi - lo));
    }
  return TRUE;
}

static gboolean
result_block_unused (gpointer key,
                     gpointer value,
                     gpointer user_data)
{
  const ResultBlock *rb = key;

  return rb->used != *(const guint64 *) user_data;
}

StrataZoomResult *
strata_zoom_result_new (void)
{
  StrataZoomResult *self = g_new0 (StrataZoomResult, 1);

  self->spans = g_array_new (FALSE, FALSE, sizeof (StrataZoomSpan));
  self->offsets = g_array_new (FALSE, FALSE, sizeof (guint));
  self->scratch = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  self->blocks = g_hash_table_new_full (result_block_hash, result_block_equal, g_free, NULL);
  self->settled = strata_zoom_settled_new ();

  return self;
}

void
strata_zoom_result_free (StrataZoomResult *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->spans);
  g_array_unref (self->offsets);
  g_array_unref (self->scratch);
  g_hash_table_unref (self->blocks);
  strata_zoom_settled_free (self->settled);
  g_free (self);
}

/**
 * strata_zoom_result_get_spans:
 * @n_spans: (out): how many
 *
 * Returns: (array length=n_spans): the spans of the last query into this
 *   result, channel by channel, each channel's in time order
 */
const StrataZoomSpan *
strata_zoom_result_get_spans (StrataZoomResult *self,
                              guint            *n_spans)
{
  g_return_val_if_fail (self != NULL && n_spans != NULL, NULL);

  *n_spans = self->spans->len;
  return (const StrataZoomSpan *)(gpointer) self->spans->data;
}

/**
 * strata_zoom_result_holds:
 * @items: a span's items
 *
 * Whether @items live in this result (computed on demand, or decoded from
 * a spilled or mapped chunk), so the next query into it may overwrite
 * them; %FALSE for items in place in a chunk in memory, which stay as
 * long as the tree.
 */
gboolean
strata_zoom_result_holds (StrataZoomResult     *self,
                          const StrataZoomItem *items)
{
  const StrataZoomItem *base;

  g_return_val_if_fail (self != NULL, FALSE);

  base = (const StrataZoomItem *)(gpointer) self->scratch->data;
  return base != NULL && items >= base && items < base + self->scratch->len;
}

/* A span's items one at a time, for the bisections of span_in_view(): in
 * place, or a block at a time through the query's result. */
typedef struct
{
  StrataZoomResult  *result;
  const Chunk       *chunk;
  const ChannelSpan *span;
  guint64            block;
  const ResultBlock *current;
} SpanReader;

static const StrataZoomItem *
span_item (SpanReader *r,
           guint       i)
{
  const Chunk *chunk = r->chunk;
  guint64 k = (guint64) r->span->first + i;
  guint64 b = k / STRATA_INDEX_ITEM_BLOCK;

  if (chunk->packed == NULL && chunk->spilled == NULL)
    return &chunk->items[k];
  if (b != r->block)
    {
      if ((r->current = result_block (r->result, chunk, b)) == NULL)
        return NULL;
      r->block = b;
    }
  return k - b * STRATA_INDEX_ITEM_BLOCK < r->current->n ? &r->current->items[k - b * STRATA_INDEX_ITEM_BLOCK] : NULL;
}

/* What a bisection of a span looks for: the first item (of a range in
 * which it holds from some item on) of another lane than @value, starting
 * after @value, or ending at @value or later. */
typedef enum
{
  PAST_LANE,
  PAST_START,
  PAST_END,
} Past;

static inline gboolean
past (Past    what,
      gint64  value,
      gint64  start,
      gint64  end,
      guint   lane)
{
  switch (what)
    {
    case PAST_LANE:
      return lane != value;
    case PAST_START:
      return start > value;
    case PAST_END:
    default:
      return end >= value;
    }
}

/* Leaves in *@lo the first item in [*@lo, *@hi) of the span for which
 * @what holds, every later one holding it too (*@hi if none). A spilled
 * or mapped chunk's keys (each block's first item) narrow it to one block
 * first, so it decodes that block alone. FALSE on a damaged block. */
static gboolean
span_bisect (SpanReader *r,
             guint      *lo,
             guint      *hi,
             Past        what,
             gint64      value)
{
  const StrataIndexItemKey *keys = r->chunk->keys;

  if (keys != NULL && *hi > *lo)
    {
      guint64 first = r->span->first;
      guint64 low = (first + *lo + STRATA_INDEX_ITEM_BLOCK - 1) / STRATA_INDEX_ITEM_BLOCK;
      guint64 high = (first + *hi + STRATA_INDEX_ITEM_BLOCK - 1) / STRATA_INDEX_ITEM_BLOCK;
      guint64 a = low, z = high;

      /* Blocks [low, high) begin inside the range. */
      while (a < z)
        {
          guint64 mid = a + (z - a) / 2;
          const StrataIndexItemKey *k = &keys[mid];

          if (past (what, value, k->start, k->end, k->lane))
            z = mid;
          else
            a = mid + 1;
        }
      if (a > low)
        *lo = MAX (*lo, (guint) ((a - 1) * STRATA_INDEX_ITEM_BLOCK - first + 1));
      if (a < high)
        *hi = MIN (*hi, (guint) (a * STRATA_INDEX_ITEM_BLOCK - first));
    }

  while (*lo < *hi)
    {
      guint mid = *lo + (*hi - *lo) / 2;
      const StrataZoomItem *it = span_item (r, mid);

      if (it == NULL)
        return FALSE;
      if (past (what, value, it->start, it->end, strata_zoom_item_lane (it)))
        *hi = mid;
      else
        *lo = mid + 1;
    }
  return TRUE;
}

/* Appends to @out the items of @span that can be in [@from, @to], lane by
 * lane: in each lane (in start order, its items one after the other) from
 * the first that ends at @from or later to the last that starts at @to or
 * earlier, found by bisection, so a spilled or mapped span is decoded
 * only where it is in view and a few blocks more. FALSE (@out as it was)
 * if a block of it is damaged. */
/* Where each lane of a span begins: lane k holds [starts[k],
 * starts[k + 1]) of the span's items. */
typedef struct
{
  guint   n_lanes;
  guint32 starts[N_LANES + 1];
} LaneBounds;

/* The span's lane bounds: from a spilled or mapped chunk's lane changes,
 * without decoding (its first item, and each change inside it); in
 * memory, by bisection over its items. FALSE if they are damaged. */
static gboolean
span_lane_bounds (SpanReader *r,
                  LaneBounds *out)
{
  const Chunk *chunk = r->chunk;
  guint n = r->span->n_items, k = 0;

  if (chunk->keys != NULL)
    {
      guint32 first = r->span->first;
      guint lo = 0, hi = chunk->n_changes;

      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (chunk->changes[mid] <= first)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (n > 0)
        out->starts[k++] = 0;
      for (guint i = lo; n > 0 && i < chunk->n_changes && chunk->changes[i] < first + n; i++)
        {
          if (k >= N_LANES)
            return FALSE;
          out->starts[k++] = chunk->changes[i] - first;
        }
      out->starts[k] = n;
      out->n_lanes = k;
      return TRUE;
    }

  for (guint first = 0; first < n; k++)
    {
      const StrataZoomItem *it = span_item (r, first);
      guint lane, lo, hi;

      if (it == NULL || k >= N_LANES)
        return FALSE;
      lane = strata_zoom_item_lane (it);
      out->starts[k] = first;
      lo = first + 1, hi = n;
      if (!span_bisect (r, &lo, &hi, PAST_LANE, lane))
        return FALSE;
      first = lo;
    }
  out->starts[k] = n;
  out->n_lanes = k;
  return TRUE;
}

static gboolean
span_in_view (StrataZoomTree    *self,
              StrataZoomResult  *result,
              const Chunk       *chunk,
              const ChannelSpan *span,
              gint64             from,
              gint64             to,
              GArray            *out)
{
  SpanReader reader = { result, chunk, span, G_MAXUINT64, NULL };
  SpanReader *r = &reader;
  guint len = out->len;
  LaneBounds bounds;

  if (!span_lane_bounds (r, &bounds))
    goto bad;

  for (guint k = 0; k < bounds.n_lanes; k++)
    {
      guint first = bounds.starts[k], next = bounds.starts[k + 1];
      guint lo, hi, end;

      /* Where the lane's items start after the view, and the first of
       * them that reaches into it. */
      lo = first, hi = next;
      if (!span_bisect (r, &lo, &hi, PAST_START, to))
        goto bad;
      end = lo;
      lo = first, hi = end;
      if (!span_bisect (r, &lo, &hi, PAST_END, from))
        goto bad;
      if (lo == end)
        continue;

      if (chunk->packed == NULL && chunk->spilled == NULL)
        {
          g_array_append_vals (out, &chunk->items[span->first + lo], end - lo);
          continue;
        }
      if (!result_append_items (result, chunk, (guint64) span->first + lo, end - lo, out))
        goto bad;
    }
  return TRUE;

bad:
  g_array_set_size (out, len);
  return FALSE;
}

/* The open activities of @channel, while the tree grows. */
static const StrataActivity *
open_of_channel (StrataZoomTree *self,
                 guint32         channel,
                 guint          *n_open)
{
  StrataActivity key = { .channel = channel };
  guint lo = 0, hi = self->open->len;
  const StrataActivity *open;

  *n_open = 0;
  if (self->open->len == 0)
    return NULL;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (strata_zoom_tree_by_channel (&g_array_index (self->open, StrataActivity, mid), &key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  open = &g_array_index (self->open, StrataActivity, lo);
  while (lo + *n_open < self->open->len && open[*n_open].channel == channel)
    (*n_open)++;

  return open;
}

/* Room for the items a query copies out of @chunk (spilled or mapped),
 * or cuts from a long span of it: at most its spans' items. */
static void
reserve_for_chunk (StrataZoomTree   *self,
                   StrataZoomResult *result,
                   Chunk            *chunk,
                   const guint32    *channels,
                   guint             n_channels)
{
  gsize want = result->scratch->len;

  for (guint c = 0; c < n_channels; c++)
    {
      const ChannelSpan *cs = strata_zoom_tree_find_span (chunk, channels != NULL ? channels[c] : c);

      if (cs != NULL && (cs->n_items > self->span_cut_from || chunk->packed != NULL || chunk->spilled != NULL))
        want += cs->n_items;
    }
  result_reserve (result, want);
}

/**
 * strata_zoom_tree_query_spans:
 * @level: a level of the current geometry
 * @from: the viewport's start, in ns
 * @to: its end (excluded)
 * @channels: (array length=n_channels) (nullable): the visible channels,
 *   or %NULL for all
 * @result: where the answer goes (what it held is dropped)
 * @stats: (out) (optional): how the query was served
 *
 * The seed's display request, without copying: for each channel, the
 * items of each chunk of @level that [@from, @to) overlaps (two for a
 * viewport no longer than a chunk), in place in the pre-calculated chunk
 * where there is one in memory, decoded into @result from one spilled
 * during the pass or mapped from an index, else computed from the raw
 * store into @result. A span holds the chunk's items for the channel,
 * lane by lane, each lane in start order; one longer than a couple of
 * blocks only those of each lane that can be in [@from, @to] (from the
 * first ending at @from or later to the last starting at @to or earlier),
 * copied into @result. So some may lie outside the viewport; a painter
 * culls them anyway. Items in place never move or change, so their spans
 * stay valid as long as the tree; the others as long as @result holds
 * this answer.
 */
void
strata_zoom_tree_query_spans (StrataZoomTree       *self,
                              guint                 level,
                              gint64                from,
                              gint64                to,
                              const guint32        *channels,
                              guint                 n_channels,
                              StrataZoomResult     *result,
                              StrataZoomQueryStats *stats)
{
  StrataZoomSettled *settled = NULL;
  StrataZoomGeometry g;
  gint64 first = 0, last = 0;
  guint root;
  Level *l;

  g_return_if_fail (self != NULL && result != NULL);

  g_array_set_size (result->spans, 0);
  g_array_set_size (result->offsets, 0);
  g_array_set_size (result->scratch, 0);
  if (result->tree != self->serial)
    {
      g_hash_table_remove_all (result->blocks);
      result->tree = self->serial;
    }
  result->n_queries++;
  result->n_decoded = 0;
  if (stats != NULL)
    memset (stats, 0, sizeof *stats);

  strata_zoom_tree_read_lock (self);

  /* A finished tree's on-demand chunks are the sparse ones, a few
   * activities each: only a growing one's are worth keeping. */
  strata_zoom_settled_begin (result->settled, self->serial);
  if (!self->finished)
    settled = result->settled;
  strata_zoom_tree_current_geometry (self, &g, &root);
  from = MAX (from, 0);
  to = MIN (to, TIME_LIMIT);
  if (level >= g.n_levels || to <= from || self->first > self->last)
    goto out;

  if (channels == NULL)
    n_channels = strata_raw_store_get_n_channels (self->raw);
  l = &self->levels[root + level];
  first = strata_zoom_geometry_chunk_index (&g, level, from);
  last = strata_zoom_geometry_chunk_index (&g, level, to - 1);

  for (gint64 index = first; index <= last; index++)
    {
      Chunk found;
      Chunk *chunk = strata_zoom_tree_find_chunk (self, l, index, &found) ? &found : NULL;

      if (stats != NULL)
        {
          stats->n_chunks++;
          stats->n_precomputed += chunk != NULL;
        }

      if (chunk != NULL)
        reserve_for_chunk (self, result, chunk, channels, n_channels);

      for (guint c = 0; c < n_channels; c++)
        {
          guint32 channel = channels != NULL ? channels[c] : c;
          const ChannelSpan *cs = chunk != NULL ? strata_zoom_tree_find_span (chunk, channel) : NULL;
          StrataZoomSpan span = { channel, 0, index, NULL };
          guint offset = G_MAXUINT;

          /* A damaged block of items: computed from the raw store instead.
           * A long span, in memory or not, is cut to what can be in view
           * (span_in_view()), so a spilled or mapped one is not decoded
           * whole for a viewport that shows a part of it. */
          if (cs != NULL && cs->n_items > self->span_cut_from)
            {
              offset = result->scratch->len;
              if (span_in_view (self, result, chunk, cs, from, to, result->scratch))
                span.n_items = result->scratch->len - offset;
              else
                cs = NULL;
              if (stats != NULL && cs != NULL)
                stats->n_cut++;
            }
          else if (cs != NULL && chunk->packed == NULL && chunk->spilled == NULL)
            {
              span.items = &chunk->items[cs->first];
              span.n_items = cs->n_items;
            }
          else if (cs != NULL)
            {
              offset = result->scratch->len;
              if (result_append_items (result, chunk, cs->first, cs->n_items, result->scratch))
                span.n_items = cs->n_items;
              else
                cs = NULL;
            }
          if (cs == NULL)
            {
              const StrataActivity *open;
              guint n_open;

              open = open_of_channel (self, channel, &n_open);
              offset = result->scratch->len;
              strata_zoom_compute_window_settled (self->raw, open, n_open, &g, level, index, channel,
                                                  from, to, settled, result->scratch);
              span.n_items = result->scratch->len - offset;
              if (stats != NULL)
                stats->n_on_demand++;
            }

          if (span.n_items > 0)
            {
              g_array_append_val (result->spans, span);
              g_array_append_val (result->offsets, offset);
            }
        }
      if (chunk != NULL)
        strata_zoom_tree_chunk_release (chunk);
    }

out:
  g_rw_lock_reader_unlock (&self->lock);
  strata_zoom_settled_end (result->settled);

  /* What this query did not read goes: the blocks kept are at most one
   * answer's. */
  g_hash_table_foreach_remove (result->blocks, result_block_unused, &result->n_queries);
  if (stats != NULL)
    stats->n_decoded = result->n_decoded;

  /* Channel by channel, each channel's chunks in time order; the scratch
   * stopped moving, so its spans can point into it. */
  for (guint i = 0; i < result->spans->len; i++)
    {
      StrataZoomSpan *span = &g_array_index (result->spans, StrataZoomSpan, i);
      guint offset = g_array_index (result->offsets, guint, i);

      if (offset != G_MAXUINT)
        span->items = &g_array_index (result->scratch, StrataZoomItem, offset);
    }
  if (last > first)
    g_array_sort (result->spans, strata_zoom_tree_by_span_channel);
}

/**
 * strata_zoom_tree_query:
 * @level: a level of the current geometry
 * @from: the viewport's start, in ns
 * @to: its end (excluded)
 * @channels: (array length=n_channels) (nullable): the visible channels,
 *   or %NULL for all
 * @out: (element-type StrataZoomItem): where the items to draw are
 *   appended, channel by channel
 * @stats: (out) (optional): how the query was served
 *
 * Like strata_zoom_tree_query_spans(), copied: only the items that overlap
 * [@from, @to), and an activity cut by the seam between two chunks joined
 * back into one item.
 */
void
strata_zoom_tree_query (StrataZoomTree       *self,
                        guint                 level,
                        gint64                from,
                        gint64                to,
                        const guint32        *channels,
                        guint                 n_channels,
                        GArray               *out,
                        StrataZoomQueryStats *stats)
{
  g_autoptr(StrataZoomResult) result = strata_zoom_result_new ();
  const StrataZoomSpan *spans;
  StrataZoomGeometry g;
  guint n_spans, channel_start = 0;

  g_return_if_fail (self != NULL && out != NULL);

  strata_zoom_tree_query_spans (self, level, from, to, channels, n_channels, result, stats);
  spans = strata_zoom_result_get_spans (result, &n_spans);
  strata_zoom_tree_get_geometry (self, &g);

  for (guint i = 0; i < n_spans; i++)
    {
      const StrataZoomSpan *span = &spans[i];
      guint before = out->len;

      if (i == 0 || spans[i - 1].channel != span->channel)
        channel_start = out->len;

      for (guint k = 0; k < span->n_items; k++)
        if (strata_zoom_tree_item_overlaps (&span->items[k], from, to))
          g_array_append_vals (out, &span->items[k], 1);

      /* Join across the seam: the previous chunk's items of this channel
       * are the ones from channel_start to before. */
      if (before > channel_start && out->len > before)
        {
          gint64 seam = strata_zoom_geometry_chunk_start (&g, level, span->chunk);
          gint left_of_lane[N_LANES];
          guint kept = before;

          for (guint l = 0; l < N_LANES; l++)
            left_of_lane[l] = -1;
          for (guint k = channel_start; k < before; k++)
            {
              const StrataZoomItem *left = &g_array_index (out, StrataZoomItem, k);

              if (left->end == seam)
                left_of_lane[strata_zoom_item_lane (left)] = k;
            }

          for (guint k = before; k < out->len; k++)
            {
              StrataZoomItem *right = &g_array_index (out, StrataZoomItem, k);
              gint j = right->start == seam ? left_of_lane[strata_zoom_item_lane (right)] : -1;

              if (j < 0 || !join_at_seam (&g_array_index (out, StrataZoomItem, j), right))
                g_array_index (out, StrataZoomItem, kept++) = *right;
            }
          g_array_set_size (out, kept);
        }
    }
}

/* For the index writer and reader. */

void
strata_zoom_tree_get_state (StrataZoomTree      *self,
                            StrataZoomTreeState *state)
{
  state->n_ranks = self->n_ranks;
  state->first = self->first;
  state->last = self->last;
  state->n_buffers = self->n_buffers;
  state->n_left_out = self->n_left_out;
  state->size = self->size;
}

/* The chunks of rank @rank (not level: the file keeps ranks, which do not
 * depend on where the trace ends). */
guint
strata_zoom_tree_get_n_rank_chunks (StrataZoomTree *self,
                                    guint           rank,
                                    guint          *n_plain)
{
  g_return_val_if_fail (rank < self->n_ranks, 0);

  *n_plain = self->levels[rank].n_plain;
  return strata_zoom_tree_level_n_chunks (&self->levels[rank]);
}
