/* strata-level-spill.c
 *
 * The chunk a level is still aggregating is bounded: its lanes' items
 * live in the level's pool, and a coarse level's chunk can stay open for
 * the whole trace, so past a budget of pool bytes the items made so far
 * move to a spill file of the level's own (strata_zoom_tree_level_spill()), each
 * lane's delta-encoded (strata-spill-record.h), and are read
 * back, lane by lane, into the stored chunk when it ends; queries never
 * see a chunk before. Such a chunk also sees every thread that exits in
 * it, each leaving a closed lane and its runs: past CLOSED_PAGE_LANES of
 * them they go to the same file as a sorted page (strata_zoom_tree_closed_page_out()),
 * and the chunk is assembled from its pages merged (ClosedIter). The
 * records of the spilled runs themselves follow once they weigh as much
 * as the pool (runs_page_out()): a chunk open for the whole trace over
 * thousands of busy lanes leaves a run per lane at every spill.
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
#include "strata-spill-record.h"
#include "strata-zoom-chunk.h"
#include "strata-zoom-tree.h"
#include "strata-zoom-tree-internal.h"
#include "strata-zoom-tree-private.h"

/* The level's spill file, made when first needed. FALSE (and the level's
 * open chunk stays in memory from then on) if it cannot be made. */
static gboolean
spill_file_open (Level *level)
{
  g_autoptr(GError) error = NULL;

  if (level->spill_fd >= 0)
    return TRUE;
  if (level->spill_failed)
    return FALSE;
  level->spill_fd = strata_spill_file_open (&error);
  if (level->spill_fd < 0)
    {
      g_debug ("zoom tree: a level's open chunk stays in memory: %s", error->message);
      level->spill_failed = TRUE;
      return FALSE;
    }
  return TRUE;
}

/* Writes @size bytes at @offset of the level's spill file. */
static gboolean
spill_pwrite (Level         *level,
              gconstpointer  data,
              gsize          size,
              guint64        offset)
{
  return strata_file_write_all (level->spill_fd, data, size, offset);
}

/* Writes the spill buffer at @offset, and empties it. */
static gboolean
spill_write (Level *level,
             guint64 offset)
{
  if (!spill_pwrite (level, level->spill_io->data, level->spill_io->len, offset))
    return FALSE;
  g_array_set_size (level->spill_io, 0);
  return TRUE;
}

static gboolean
spill_read (Level   *level,
            guint8  *p,
            gsize    size,
            guint64  offset)
{
  return strata_file_read_all (level->spill_fd, p, size, offset);
}

/* A lane of a spill, by its channel, then its lane, then its place among
 * the touched and then the closed lanes (the order the chunk is
 * assembled in; a lane is there once, but the place keeps it whole). */
#define SPILL_KEY_PLACE_BITS 27

static inline guint64
spill_key (guint32 channel,
           guint8  lane,
           guint   place)
{
  G_STATIC_ASSERT (N_LANES <= (1u << (32 - SPILL_KEY_PLACE_BITS)));
  return (guint64) channel << 32 | (guint64) lane << SPILL_KEY_PLACE_BITS | place;
}

static inline guint64
spill_order_key (const guint64 *key)
{
  return *key;
}

/* Sorts a spill's keys (distinct: each has its lane's place) in increasing
 * order. A spill of the dense shape's level 0 sorts thousands of them, and
 * the generic sort (a call per comparison) was 2% of the build: the radix
 * sort of strata-radix-sort.h. */
STRATA_DEFINE_RADIX_SORT (sort_spill_keys, guint64, spill_order_key)

static void runs_page_out (Level *level);

/* What a lane has in the pool: its items, their members, and whether one
 * of them starts in the chunk. */
typedef struct
{
  guint32 n;
  guint8  starts;
  guint64 members;
} PoolCount;

static void
segments_count (const Segment *first_seg,
                PoolCount     *count)
{
  memset (count, 0, sizeof *count);
  for (const Segment *seg = first_seg; seg != NULL; seg = seg->next)
    {
      for (guint i = 0; i < seg->n; i++)
        {
          count->starts |= !(seg->items[i].flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE);
          count->members += seg->items[i].count;
        }
      count->n += seg->n;
    }
}

/* A channel whose items in a full pool are fewer than this is not judged
 * by them (level_count_poor_channels()). */
#define SWITCH_EVIDENCE 4

/* The pool is full, and what it holds is not worth storing as a chunk
 * (aggregation did not halve it): the chunk will most likely store only
 * the channels it reduces, if any, and the items of the others were
 * about to be written to the spill file for nothing (on the dense shape,
 * 280 MB of them for 2M events, at the levels whose chunk spans the
 * trace; a fifth was read back). So the lanes of the channels whose
 * items in the pool aggregation did not halve go on counted, as a
 * counted chunk's lanes are (lane_offer()): what they made so far
 * becomes their counts, the pool's copy is let go, their runs spilled
 * before stay theirs. The chunk's end decides from the same numbers as
 * before; where it stores a channel one of whose lanes was counted, the
 * chunk is computed from the raw store at the pass's end, as a counted
 * chunk worth storing is, and the level switches no more lanes.
 * @order is the spill's lanes in (channel, lane) order, @counts what
 * each has in the pool; @growing the lane the pool grows for, in the
 * middle of an offer, which stays as it is. */
static void
level_count_poor_channels (Level         *level,
                           const guint64 *order,
                           PoolCount     *counts,
                           guint          n_order,
                           const Lane    *growing)
{
  Lane **touched = (Lane **) level->touched->pdata;
  guint n_touched = level->touched->len;
  guint64 n_all = 0, m_all = 0;

  for (guint o = 0; o < n_order; o++)
    {
      n_all += counts[o].n;
      m_all += counts[o].members;
    }
  if (n_all * level->min_reduction <= m_all)
    return;

  for (guint o = 0; o < n_order; )
    {
      guint32 channel = (guint32) (order[o] >> 32);
      guint64 n = 0, m = 0;
      guint end = o;

      while (end < n_order && (guint32) (order[end] >> 32) == channel)
        {
          n += counts[end].n;
          m += counts[end].members;
          end++;
        }
      if (n >= SWITCH_EVIDENCE && n * level->min_reduction > m)
        for (; o < end; o++)
          {
            guint k = order[o] & ((1u << SPILL_KEY_PLACE_BITS) - 1);
            PoolCount *c = &counts[o];

            if (k < n_touched)
              {
                Lane *lane = touched[k];

                if (lane == growing)
                  continue;
                if (lane->run.open)
                  c->starts |= !(lane->run.item.flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE);
                lane->n_members = c->members + strata_aggregate_run_to_count (&lane->run);
                lane->n_items = c->n;
                lane->starts = c->starts;
                lane->counting = TRUE;
                lane_empty_pool (lane);
              }
            else
              {
                ClosedLane *closed = &g_array_index (level->closed, ClosedLane, k - n_touched);

                closed->first_seg = NULL;
                closed->n_items = c->n;
                closed->n_members = c->members;
                closed->starts = c->starts;
                closed->counted = TRUE;
              }
            /* Nothing of it is written. */
            memset (c, 0, sizeof *c);
            level->chunk_switched++;
          }
      o = end;
    }
}

/* The open chunk's pool is over its budget: every lane's items so far go
 * to the level's spill file, after the lane's earlier runs, and the pool
 * serves again from its start. The items are final (the aggregator only
 * appends), so the chunk assembled at the end is the same. If the file
 * cannot be made or written, nothing moves and the pool grows as before.
 *
 * The lanes are written in the order the chunk is assembled in, so that
 * reading the chunk back moves forward through each spill and reads it
 * in long pieces (SpillReader); in the order the lanes were touched, a
 * spill of thousands of lanes was read back with a pread() for each
 * lane's few kilobytes. */
void
strata_zoom_tree_level_spill (Level      *level,
                              const Lane *growing)
{
  Lane **touched = (Lane **) level->touched->pdata;
  guint n_touched = level->touched->len;
  guint first = level->runs->len;
  guint64 offset = level->spill_end;
  guint64 written = offset;
  const guint64 *order;
  g_autofree PoolCount *counts = NULL;
  guint n_order = 0;

  if (!spill_file_open (level))
    return;

  /* The open lanes with output in the pool, and the closed ones (a run's
   * next is the lane's place among them until it is written). The
   * lanes closed before the last spill have nothing here: only the
   * others are sorted, by a key made once. */
  g_assert (n_touched + (guint64) level->closed->len < (1u << SPILL_KEY_PLACE_BITS));
  g_array_set_size (level->spill_order, n_touched + level->closed->len);
  for (guint k = 0; k < n_touched + level->closed->len; k++)
    {
      const ClosedLane *closed = k >= n_touched ? &g_array_index (level->closed, ClosedLane, k - n_touched) : NULL;

      if ((closed != NULL ? closed->first_seg : touched[k]->first_seg) != NULL)
        g_array_index (level->spill_order, guint64, n_order++) =
          closed != NULL ? spill_key (closed->channel, closed->lane, k) : spill_key (touched[k]->channel, touched[k]->lane, k);
    }
  g_array_set_size (level->spill_order, n_order);
  sort_spill_keys ((guint64 *)(gpointer) level->spill_order->data, level->spill_order->len);
  order = (const guint64 *)(gpointer) level->spill_order->data;

  counts = g_new (PoolCount, MAX (n_order, 1));
  for (guint o = 0; o < n_order; o++)
    {
      guint k = order[o] & ((1u << SPILL_KEY_PLACE_BITS) - 1);

      if (k < n_touched)
        {
          touched[k]->last_seg->n = touched[k]->items.len;
          segments_count (touched[k]->first_seg, &counts[o]);
        }
      else
        segments_count (g_array_index (level->closed, ClosedLane, k - n_touched).first_seg, &counts[o]);
    }
  if (growing != NULL && !level->no_switch && !level->counting && level->chunk_active)
    level_count_poor_channels (level, order, counts, n_order, growing);

  g_array_set_size (level->spill_io, 0);
  for (guint o = 0; o < n_order; o++)
    {
      guint k = order[o] & ((1u << SPILL_KEY_PLACE_BITS) - 1);
      ClosedLane *closed = k >= n_touched ? &g_array_index (level->closed, ClosedLane, k - n_touched) : NULL;
      const Segment *first_seg = closed != NULL ? closed->first_seg : touched[k]->first_seg;
      PoolRun run = { offset, counts[o].members, counts[o].n, k, level->spill_starts->len, counts[o].starts };
      StrataSpillRecordState state;
      guint64 size = 0;

      strata_spill_record_begin (&state);
      for (const Segment *seg = first_seg; seg != NULL; seg = seg->next)
        {
          const StrataZoomItem *items = seg->items;
          guint left = seg->n;

          while (left > 0)
            {
              guint len = level->spill_io->len;
              guint part = MIN (left, (SPILL_IO - len) / STRATA_SPILL_RECORD_MAX_ITEM);
              gsize took;

              if (part == 0)
                {
                  if (!spill_write (level, written))
                    goto failed;
                  written += len;
                  continue;
                }
              g_array_set_size (level->spill_io, len + part * STRATA_SPILL_RECORD_MAX_ITEM);
              took = strata_spill_record_encode (&state, items, part, (guint8 *) level->spill_io->data + len);
              g_array_set_size (level->spill_io, len + took);
              size += took;
              items += part;
              left -= part;
            }
        }
      offset += size;
      if (run.n > 0)
        g_array_append_val (level->runs, run);
    }
  if (!spill_write (level, written))
    goto failed;

  /* All written: the runs join their lanes, the pool is free. */
  for (guint i = first; i < level->runs->len; i++)
    {
      PoolRun *run = &g_array_index (level->runs, PoolRun, i);
      guint32 *first_run, *last_run;

      if (run->next < n_touched)
        {
          first_run = &touched[run->next]->first_run;
          last_run = &touched[run->next]->last_run;
        }
      else
        {
          ClosedLane *closed = &g_array_index (level->closed, ClosedLane, run->next - n_touched);

          first_run = &closed->first_run;
          last_run = &closed->last_run;
        }
      run->next = 0;
      if (*last_run != 0)
        g_array_index (level->runs, PoolRun, *last_run - 1).next = i + 1;
      else
        *first_run = i + 1;
      *last_run = i + 1;
      level->pool_spilled += run->n;
    }
  for (guint k = 0; k < n_touched; k++)
    lane_empty_pool (touched[k]);
  for (guint k = 0; k < level->closed->len; k++)
    g_array_index (level->closed, ClosedLane, k).first_seg = NULL;
  strata_zoom_tree_pool_reset (level);
  g_array_append_val (level->spill_starts, level->spill_end);
  level->spill_end = offset;
  level->n_pool_spills++;
  /* Every closed lane's output is in the file now: past page_lanes of
   * them, they follow it there. */
  level->runs_made += level->runs->len - first;
  level->spill_lanes_peak = MAX (level->spill_lanes_peak, level->runs->len - first);
  level->runs_peak = MAX (level->runs_peak, level->runs->len * sizeof (PoolRun));
  strata_zoom_tree_closed_page_out (level);
  if ((guint64) level->runs->len * sizeof (PoolRun) >= level->pool_budget)
    runs_page_out (level);
  return;

failed:
  g_debug ("zoom tree: a level's open chunk stays in memory: cannot write its spill file: %s",
           g_strerror (errno));
  g_array_set_size (level->runs, first);
  g_array_set_size (level->spill_io, 0);
  level->spill_failed = TRUE;
}

/* Items decoded at a time when a run goes to a stream. */
#define DECODE_BATCH 128

/* Hands the @n items that the run at @bytes encodes, within @size bytes,
 * to @stream or @out (advanced). FALSE if they are not there. */
static gboolean
run_decode (const guint8    *bytes,
            gsize            size,
            guint            n,
            ItemStream      *stream,
            StrataZoomItem **out)
{
  StrataSpillRecordState state;
  const guint8 *p = bytes, *end = bytes + size;

  strata_spill_record_begin (&state);
  if (stream->stream == NULL)
    {
      if (!strata_spill_record_decode (&state, &p, end, *out, n))
        return FALSE;
      *out += n;
    }
  else
    while (n > 0)
      {
        StrataZoomItem items[DECODE_BATCH];
        guint part = MIN (n, DECODE_BATCH);

        if (!strata_spill_record_decode (&state, &p, end, items, part))
          return FALSE;
        strata_zoom_tree_item_stream_add (stream, items, part);
        n -= part;
      }
  return TRUE;
}

/* Where spill @s of the open chunk ends (pages may follow it there). */
static guint64
spill_end_of (Level *level,
              guint  s)
{
  return s + 1 < level->spill_starts->len ? g_array_index (level->spill_starts, guint64, s + 1) : level->spill_end;
}

/* The most bytes @run can take: its items' most, or the rest of its
 * spill. */
static gsize
run_most (Level          *level,
          const PagedRun *run)
{
  guint64 most = (guint64) run->n * STRATA_SPILL_RECORD_MAX_ITEM;
  guint64 end = spill_end_of (level, run->spill);

  return (gsize) MIN (most, end > run->offset ? end - run->offset : 0);
}

/* Hands @run's items from the level's spill file to @stream or @out
 * (advanced), read by themselves. FALSE if they cannot be read. */
static gboolean
spill_copy (Level           *level,
            const PagedRun  *run,
            ItemStream      *stream,
            StrataZoomItem **out)
{
  gsize size = run_most (level, run);
  g_autofree guint8 *bytes = g_malloc (MAX (size, 1));

  return spill_read (level, bytes, size, run->offset) &&
         run_decode (bytes, size, run->n, stream, out);
}

void
strata_zoom_tree_spill_reader_init (SpillReader *r,
                                    Level       *level,
                                    gsize        windows)
{
  memset (r, 0, sizeof *r);
  r->level = level;
  r->n = level->spill_starts->len;
  if (r->n == 0)
    return;
  r->window = windows / r->n / sizeof (StrataZoomItem) * sizeof (StrataZoomItem);
  r->window = CLAMP (r->window, 64 * sizeof (StrataZoomItem), SPILL_IO / sizeof (StrataZoomItem) * sizeof (StrataZoomItem));
  r->bytes = g_malloc ((gsize) r->n * r->window);
  r->at = g_new (guint64, r->n);
  r->len = g_new0 (gsize, r->n);
  for (guint s = 0; s < r->n; s++)
    r->at[s] = G_MAXUINT64;
}

void
strata_zoom_tree_spill_reader_clear (SpillReader *r)
{
  g_free (r->bytes);
  g_free (r->at);
  g_free (r->len);
}

/* Hands @run's items to @stream or @out (advanced), as spill_copy() does.
 * FALSE if they cannot be read. */
gboolean
strata_zoom_tree_spill_reader_copy (SpillReader        *r,
                                    const PagedRun     *run,
                                    ItemStream         *stream,
                                    StrataZoomItem    **out)
{
  Level *level = r->level;
  guint s = run->spill;
  gsize size;

  if (s >= r->n)
    return spill_copy (level, run, stream, out);
  size = run_most (level, run);
  if (size > r->window)
    return spill_copy (level, run, stream, out);

  if (r->at[s] == G_MAXUINT64 || run->offset < r->at[s] || run->offset + size > r->at[s] + r->len[s])
    {
      gsize len = (gsize) MIN ((guint64) r->window, spill_end_of (level, s) - run->offset);

      if (len < size || !spill_read (level, r->bytes + (gsize) s * r->window, len, run->offset))
        {
          r->at[s] = G_MAXUINT64;
          return FALSE;
        }
      r->at[s] = run->offset;
      r->len[s] = len;
    }

  return run_decode (r->bytes + (gsize) s * r->window + (run->offset - r->at[s]), size, run->n, stream, out);
}

/* Closed lanes out of memory (CLOSED_PAGE_LANES) ----------------------- */

/* @c as a page keeps it, its runs appended to @runs: its totals are its
 * counts (a counted chunk's) or its runs' (it has no segment left). */
static PagedLane
paged_lane (Level            *level,
            const ClosedLane *c,
            GArray           *runs)
{
  PagedLane pl = {
    .channel = c->channel, .lane = c->lane, .starts = c->starts, .counted = c->counted,
    .n_items = c->n_items, .members = c->n_members,
  };

  for (guint32 r = c->first_run; r != 0; )
    {
      const PoolRun *run = &g_array_index (level->runs, PoolRun, r - 1);
      PagedRun pr = { run->offset, run->n, run->spill };

      g_array_append_val (runs, pr);
      pl.n_items += run->n;
      pl.members += run->members;
      pl.starts |= run->starts;
      pl.n_runs++;
      r = run->next;
    }
  return pl;
}

/* The closed lanes went out: the runs left are the open lanes', which
 * keep them, renumbered, in a fresh array. */
static void
runs_compact (Level *level)
{
  Lane **touched = (Lane **) level->touched->pdata;
  GArray *old = level->runs;
  GArray *kept = g_array_new (FALSE, FALSE, sizeof (PoolRun));

  for (guint k = 0; k < level->touched->len; k++)
    {
      Lane *lane = touched[k];
      guint32 r = lane->first_run;

      lane->first_run = lane->last_run = 0;
      while (r != 0)
        {
          PoolRun run = g_array_index (old, PoolRun, r - 1);

          r = run.next;
          run.next = 0;
          g_array_append_val (kept, run);
          if (lane->last_run != 0)
            g_array_index (kept, PoolRun, lane->last_run - 1).next = kept->len;
          else
            lane->first_run = kept->len;
          lane->last_run = kept->len;
        }
    }
  level->runs = kept;
  g_array_unref (old);
}

/* Reading a page back: its lanes and their runs through windows of these
 * many, so merging a level's pages holds a bounded number of records. */
#define PAGE_WINDOW_LANES 256
#define PAGE_WINDOW_RUNS  512

void
strata_zoom_tree_closed_iter_init (ClosedIter *it,
                                   Level      *level)
{
  memset (it, 0, sizeof *it);
  it->level = level;
  it->n_cursors = level->pages->len;
  it->cursors = g_new0 (PageCursor, it->n_cursors);
  for (guint p = 0; p < it->n_cursors; p++)
    {
      it->cursors[p].page = g_array_index (level->pages, ClosedPage, p);
      it->cursors[p].lanes = g_array_new (FALSE, FALSE, sizeof (PagedLane));
      it->cursors[p].runs = g_array_new (FALSE, FALSE, sizeof (PagedRun));
    }
  it->mem_runs = g_array_new (FALSE, FALSE, sizeof (PagedRun));
}

void
strata_zoom_tree_closed_iter_clear (ClosedIter *it)
{
  for (guint p = 0; p < it->n_cursors; p++)
    {
      g_array_unref (it->cursors[p].lanes);
      g_array_unref (it->cursors[p].runs);
    }
  g_free (it->cursors);
  g_array_unref (it->mem_runs);
}

/* The cursor's next lane, its window read where needed; NULL at the
 * page's end or if it cannot be read (it->failed). */
static const PagedLane *
page_cursor_peek (ClosedIter *it,
                  PageCursor *c)
{
  guint n;

  if (c->next >= c->page.n_lanes)
    return NULL;
  if (c->next < c->lanes_at || c->next >= c->lanes_at + c->lanes->len)
    {
      n = MIN (PAGE_WINDOW_LANES, c->page.n_lanes - c->next);
      g_array_set_size (c->lanes, n);
      if (!spill_read (it->level, (guint8 *) c->lanes->data, (gsize) n * sizeof (PagedLane),
                        c->page.offset + (guint64) c->next * sizeof (PagedLane)))
        {
          it->failed = TRUE;
          g_array_set_size (c->lanes, 0);
          return NULL;
        }
      c->lanes_at = c->next;
    }
  return &g_array_index (c->lanes, PagedLane, c->next - c->lanes_at);
}

/* The runs of the cursor's next lane (@n of them), read where needed. */
static const PagedRun *
page_cursor_runs (ClosedIter *it,
                  PageCursor *c,
                  guint       n)
{
  if (n == 0)
    return NULL;
  if (c->next_run < c->runs_at || c->next_run + n > c->runs_at + c->runs->len)
    {
      guint64 want = MAX ((guint64) n, MIN ((guint64) PAGE_WINDOW_RUNS, c->page.n_runs - c->next_run));

      if (c->next_run + n > c->page.n_runs)
        {
          it->failed = TRUE;
          return NULL;
        }
      g_array_set_size (c->runs, (guint) want);
      if (!spill_read (it->level, (guint8 *) c->runs->data, (gsize) want * sizeof (PagedRun),
                        c->page.runs_offset + c->next_run * sizeof (PagedRun)))
        {
          it->failed = TRUE;
          g_array_set_size (c->runs, 0);
          return NULL;
        }
      c->runs_at = c->next_run;
    }
  return &g_array_index (c->runs, PagedRun, (guint) (c->next_run - c->runs_at));
}

static inline gboolean
paged_before (const PagedLane *a,
              const PagedLane *b)
{
  return a->channel != b->channel ? a->channel < b->channel : a->lane < b->lane;
}

/* The next closed lane into @view; FALSE at the end, or if a page could
 * not be read back (it->failed). */
gboolean
strata_zoom_tree_closed_iter_next (ClosedIter *it,
                                   ClosedView *view)
{
  Level *level = it->level;
  const PagedLane *best = NULL;
  PagedLane mem_lane;
  gint from = -1;

  for (guint p = 0; p < it->n_cursors; p++)
    {
      const PagedLane *l = page_cursor_peek (it, &it->cursors[p]);

      if (it->failed)
        return FALSE;
      if (l != NULL && (best == NULL || paged_before (l, best)))
        {
          best = l;
          from = p;
        }
    }
  if (it->mem < level->closed->len)
    {
      ClosedLane *c = &g_array_index (level->closed, ClosedLane, it->mem);

      g_array_set_size (it->mem_runs, 0);
      mem_lane = paged_lane (level, c, it->mem_runs);
      if (best == NULL || paged_before (&mem_lane, best))
        {
          view->lane = mem_lane;
          view->runs = (const PagedRun *)(gpointer) it->mem_runs->data;
          view->mem = c;
          it->mem++;
          return TRUE;
        }
    }
  if (best == NULL)
    return FALSE;

  {
    PageCursor *c = &it->cursors[from];

    view->lane = *best;
    view->runs = page_cursor_runs (it, c, best->n_runs);
    view->mem = NULL;
    if (it->failed)
      return FALSE;
    c->next++;
    c->next_run += view->lane.n_runs;
  }
  return TRUE;
}

/* A page's worth of lanes merged into one page (the pages past
 * CLOSED_PAGES_MAX): their lanes in order, then their runs. FALSE if the
 * spill file failed us; the pages are then as they were. */
static gboolean
closed_pages_merge (Level *level)
{
  ClosedIter it;
  ClosedView view;
  g_autoptr(GArray) lanes = g_array_new (FALSE, FALSE, sizeof (PagedLane));
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (PagedRun));
  ClosedPage merged = { level->spill_end, 0, 0, 0 };
  guint64 lanes_at, runs_at;
  GArray *in_memory = level->closed;
  gboolean ok = TRUE;

  for (guint p = 0; p < level->pages->len; p++)
    {
      const ClosedPage *page = &g_array_index (level->pages, ClosedPage, p);

      merged.n_lanes += page->n_lanes;
      merged.n_runs += page->n_runs;
    }
  merged.runs_offset = merged.offset + (guint64) merged.n_lanes * sizeof (PagedLane);
  lanes_at = merged.offset;
  runs_at = merged.runs_offset;

  /* Only the pages: the lanes in memory are not part of this. */
  level->closed = g_array_new (FALSE, FALSE, sizeof (ClosedLane));
  strata_zoom_tree_closed_iter_init (&it, level);
  while (ok && strata_zoom_tree_closed_iter_next (&it, &view))
    {
      g_array_append_val (lanes, view.lane);
      g_array_append_vals (runs, view.runs, view.lane.n_runs);
      if (lanes->len >= PAGE_WINDOW_LANES * 4)
        {
          ok = spill_pwrite (level, lanes->data, lanes->len * sizeof (PagedLane), lanes_at);
          lanes_at += lanes->len * sizeof (PagedLane);
          g_array_set_size (lanes, 0);
        }
      if (ok && runs->len >= PAGE_WINDOW_RUNS * 4)
        {
          ok = spill_pwrite (level, runs->data, runs->len * sizeof (PagedRun), runs_at);
          runs_at += runs->len * sizeof (PagedRun);
          g_array_set_size (runs, 0);
        }
    }
  ok = ok && !it.failed &&
       spill_pwrite (level, lanes->data, lanes->len * sizeof (PagedLane), lanes_at) &&
       spill_pwrite (level, runs->data, runs->len * sizeof (PagedRun), runs_at);
  strata_zoom_tree_closed_iter_clear (&it);
  g_array_unref (level->closed);
  level->closed = in_memory;

  if (!ok)
    {
      g_debug ("zoom tree: a level's closed lanes' pages could not be merged: %s", g_strerror (errno));
      return FALSE;
    }
  level->spill_end = merged.runs_offset + merged.n_runs * sizeof (PagedRun);
  g_array_set_size (level->pages, 0);
  g_array_append_val (level->pages, merged);
  level->n_pages++;
  level->paged += merged.n_lanes;
  return TRUE;
}

/* @lanes and their @runs written as a page of the open chunk. FALSE
 * (nothing changed) if the spill file failed us. */
static gboolean
page_write (Level  *level,
            GArray *lanes,
            GArray *runs)
{
  ClosedPage page;

  page.offset = level->spill_end;
  page.runs_offset = page.offset + (guint64) lanes->len * sizeof (PagedLane);
  page.n_lanes = lanes->len;
  page.n_runs = runs->len;
  if (!spill_pwrite (level, lanes->data, lanes->len * sizeof (PagedLane), page.offset) ||
      !spill_pwrite (level, runs->data, runs->len * sizeof (PagedRun), page.runs_offset))
    return FALSE;
  level->spill_end = page.runs_offset + (guint64) runs->len * sizeof (PagedRun);
  g_array_append_val (level->pages, page);
  level->n_pages++;
  level->paged += page.n_lanes;
  return TRUE;
}

/* Past the level's page_lanes closed lanes, every one of them with its
 * output out of the pool (after a spill, or counted), they go to the
 * spill file as a page. If it cannot be written they stay. */
void
strata_zoom_tree_closed_page_out (Level *level)
{
  g_autoptr(GArray) lanes = NULL;
  g_autoptr(GArray) runs = NULL;

  if (level->page_lanes == 0 || level->closed->len < level->page_lanes || !spill_file_open (level))
    return;

  strata_zoom_tree_sort_closed (level->closed);
  lanes = g_array_sized_new (FALSE, FALSE, sizeof (PagedLane), level->closed->len);
  runs = g_array_new (FALSE, FALSE, sizeof (PagedRun));
  for (guint i = 0; i < level->closed->len; i++)
    {
      const ClosedLane *c = &g_array_index (level->closed, ClosedLane, i);
      PagedLane pl;

      g_assert (c->first_seg == NULL);
      pl = paged_lane (level, c, runs);
      g_array_append_val (lanes, pl);
    }

  if (!page_write (level, lanes, runs))
    {
      g_debug ("zoom tree: a level's closed lanes stay in memory: %s", g_strerror (errno));
      return;
    }
  g_array_set_size (level->closed, 0);
  runs_compact (level);

  if (level->pages->len > CLOSED_PAGES_MAX)
    closed_pages_merge (level);
}

/* The records of what the open chunk spilled out of memory too. Each
 * spill leaves a run per lane with output, so a chunk that stays open
 * for the whole trace over thousands of busy lanes gathered them by the
 * million (the dense shape's level 0: 961 spills of 4016 lanes, 3.9M
 * runs, 154 MB). Once the runs take as many bytes as the pool's budget,
 * every lane that has runs, open or closed, goes to the spill file as a
 * page, as closed lanes do: an open lane's runs so far are its first
 * part, and it keeps making more. A lane is then in several pages, and
 * the chunk is assembled from them in the order they were written
 * (ClosedIter: on equal keys, the earlier page first, memory last), so
 * the items come in the order they were made. Called right after a
 * spill, when no lane has output left in the pool. */
static void
runs_page_out (Level *level)
{
  Lane **touched = (Lane **) level->touched->pdata;
  guint n_touched = level->touched->len;
  guint n_closed = level->closed->len;
  g_autoptr(GArray) lanes = NULL;
  g_autoptr(GArray) runs = NULL;
  const guint64 *order;
  guint n_order = 0;

  if (!spill_file_open (level))
    return;

  /* The closed lanes first among equal keys: they closed before. */
  g_assert (n_touched + (guint64) n_closed < (1u << SPILL_KEY_PLACE_BITS));
  g_array_set_size (level->spill_order, n_closed + n_touched);
  for (guint k = 0; k < n_closed; k++)
    {
      const ClosedLane *c = &g_array_index (level->closed, ClosedLane, k);

      g_assert (c->first_seg == NULL);
      g_array_index (level->spill_order, guint64, n_order++) = spill_key (c->channel, c->lane, k);
    }
  for (guint k = 0; k < n_touched; k++)
    if (touched[k]->first_run != 0)
      g_array_index (level->spill_order, guint64, n_order++) =
        spill_key (touched[k]->channel, touched[k]->lane, n_closed + k);
  g_array_set_size (level->spill_order, n_order);
  sort_spill_keys ((guint64 *)(gpointer) level->spill_order->data, level->spill_order->len);
  order = (const guint64 *)(gpointer) level->spill_order->data;

  lanes = g_array_sized_new (FALSE, FALSE, sizeof (PagedLane), n_order);
  runs = g_array_sized_new (FALSE, FALSE, sizeof (PagedRun), level->runs->len);
  for (guint o = 0; o < n_order; o++)
    {
      guint k = order[o] & ((1u << SPILL_KEY_PLACE_BITS) - 1);
      PagedLane pl;

      if (k < n_closed)
        pl = paged_lane (level, &g_array_index (level->closed, ClosedLane, k), runs);
      else
        {
          const Lane *lane = touched[k - n_closed];
          ClosedLane part = { .channel = lane->channel, .first_run = lane->first_run, .last_run = lane->last_run,
                              .lane = lane->lane };

          pl = paged_lane (level, &part, runs);
        }
      g_array_append_val (lanes, pl);
    }
  g_assert (runs->len == level->runs->len);

  if (!page_write (level, lanes, runs))
    {
      g_debug ("zoom tree: a level's spilled runs stay in memory: %s", g_strerror (errno));
      return;
    }
  g_array_set_size (level->closed, 0);
  for (guint k = 0; k < n_touched; k++)
    touched[k]->first_run = touched[k]->last_run = 0;
  g_array_set_size (level->runs, 0);
  level->n_runs_pages++;

  if (level->pages->len > CLOSED_PAGES_MAX)
    closed_pages_merge (level);
}
