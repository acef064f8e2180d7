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
 * Each level's aggregator walks its chunks through every buffer. Over a
 * dense chunk it joins the pieces of an activity that a buffer cut split,
 * applies the triviality rule lane by lane (strata-aggregator.c) and, at
 * the chunk's end, stores the items of every channel that has an activity
 * starting in the chunk. A channel whose only business in a chunk is an
 * activity carried through it (a long sleep) is not stored: the query
 * takes that one piece from the raw store, so a thousand sleeping threads
 * do not cost a thousand items in every chunk.
 *
 * A level's first chunk, the one holding the stream's first activity,
 * began before the stream did; it is computed from the raw store when the
 * pass ends, with the on-demand code. (For the coarsest levels that chunk
 * is the whole trace, and which of them is level 0 is known only then.)
 * A source that says its span when it opens lets level 0 and the finer
 * levels aggregate their first chunk in the pass instead
 * (strata_zoom_tree_set_span_hint()).
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
 * Where the chunks live. Once the stored chunks hold CHUNK_SPILL_FROM
 * bytes of items, each chunk finished after is handed to a block packer
 * (strata-block-packer.c): its items are packed in index blocks on a
 * thread of their own and appended to a spill file, its spans, keys and
 * lane changes after them as one checksummed piece, and the chunk keeps
 * its record: the ticket of its first block and where the piece is, so
 * what stays in memory of a spilled chunk does not grow with the trace's
 * threads. A query reads such a chunk's items as it reads a mapped
 * index's, decoded into its result, and its spans from the piece read
 * back into a small cache the queries share (chunk_resolve()); the index
 * writer copies the packed blocks. The chunk a level is still
 * aggregating is bounded too: its lanes' items live in the level's pool,
 * and a coarse level's chunk can stay open for the whole trace, so past
 * a budget of pool bytes the items made so far move to a spill file of
 * the level's own (level_spill()) and are read back, lane by lane, into
 * the stored chunk when it ends; queries never see a chunk before. Such a
 * chunk also sees every thread that exits in it, each leaving a closed
 * lane and its runs: past CLOSED_PAGE_LANES of them they go to the same
 * file as a sorted page (closed_page_out()), and the chunk is assembled
 * from its pages merged (ClosedIter).
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
#include "strata-zoom-tree-private.h"

#define N_LANES      17
#define LANE_BLOCK   64
#define POOL_BLOCK   (1u << 20)
#define SEGMENT_MAX  4096        /* items; a segment fits in a pool block */
#define MAX_RANKS    64
#define TIME_LIMIT   (G_GINT64_CONSTANT (1) << 62)

/* A tree spills its chunks once it holds this many bytes of their items in
 * memory (one that never gets there keeps them in place, as the small
 * trees the tests build do); STRATA_ZOOM_CHUNK_SPILL_FROM in the
 * environment says otherwise (0: from the first chunk). What waits for
 * the packer is bounded by CHUNK_SPILL_QUEUE bytes. */
#define CHUNK_SPILL_FROM  (G_GUINT64_CONSTANT (8) << 20)
#define CHUNK_SPILL_QUEUE (G_GUINT64_CONSTANT (8) << 20)

/* A level's pool holds the items of the chunk it is aggregating; a coarse
 * level's chunk can span the whole trace, so past POOL_BUDGET bytes in use
 * the items its lanes have made so far go to a spill file of the level's
 * own (level_spill()) and are read back, lane by lane, when the chunk is
 * assembled. STRATA_ZOOM_POOL_BUDGET in the environment says otherwise.
 * Spills are written and read back through a buffer of SPILL_IO bytes. */
#define POOL_BUDGET  (G_GUINT64_CONSTANT (2) << 20)

/* A span longer than this many items is answered in part: what of each
 * of its lanes can be in view (span_in_view()). Shorter ones (a block or
 * two of a spilled or mapped chunk) cost less whole than found in.
 * STRATA_ZOOM_SPAN_CUT in the environment says otherwise. */
#define SPAN_CUT_FROM (2 * STRATA_INDEX_ITEM_BLOCK)
#define SPILL_IO     (256u << 10)
#define SPILL_WINDOWS ((gsize) 4 << 20)

typedef enum
{
  DECISION_UNKNOWN,
  DECISION_DENSE,
  DECISION_SPARSE,
} Decision;

typedef struct
{
  guint32 channel;
  guint32 first;     /* index of its first item */
  guint32 n_items;
} ChannelSpan;

/* An index stores a chunk's spans as they are in memory. */
G_STATIC_ASSERT (sizeof (ChannelSpan) == sizeof (StrataIndexSpan));

typedef struct
{
  gint64          index;
  ChannelSpan    *channels;
  guint           n_channels;
  StrataZoomItem *items;
  guint           n_items;
  gboolean        at_end;
  StrataPackedArray *packed;   /* mapped from an index: its items, packed */
  StrataBlockPacker *spilled;  /* spilled during the pass: its items, packed there ... */
  guint64         first_block; /* ... in blocks from this ticket on */
  const StrataIndexItemKey *keys; /* packed or spilled: each block's first item, */
  const guint32  *changes;     /* and its items' lane changes */
  guint           n_changes;
  /* A spilled chunk's spans, keys and lane changes are not kept either:
   * they went to the packer's file after its items, as one piece laid out
   * as the index lays them out (chunk_take_spans()), and the record keeps
   * where, its checksum and the counts above (channels, keys and changes
   * NULL). A copy of the record made to read the chunk (chunk_resolve())
   * points them into the piece read back, which it holds a reference to. */
  guint64         piece_offset;   /* G_MAXUINT64: none, they are in memory */
  guint64         piece_checksum;
  struct _ChunkPiece *piece;      /* in a resolved copy only */
} Chunk;

/* A spilled chunk's piece read back: shared by the queries that read the
 * chunk at the same time, and kept in the tree's small cache of the last
 * ones read (a timeline's next frame reads the chunks the last one did). */
typedef struct _ChunkPiece
{
  gint    ref_count;
  guint64 offset;     /* in the packer's file: which chunk's */
  gsize   size;
  guint8  bytes[];
} ChunkPiece;

G_STATIC_ASSERT (G_STRUCT_OFFSET (ChunkPiece, bytes) % 8 == 0);

/* The pieces the cache keeps, and bytes it keeps at most beyond the last
 * one read (a frame reads a couple of chunks per level it shows). */
#define PIECE_CACHE       16
#define PIECE_CACHE_BYTES (G_GUINT64_CONSTANT (4) << 20)

static void
chunk_piece_unref (ChunkPiece *piece)
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

/* A piece of a lane's output in its level's pool. */
typedef struct _Segment Segment;
struct _Segment
{
  Segment       *next;
  guint          n;
  guint          cap;
  StrataZoomItem items[];
};

/* Items a lane made in its open chunk, moved to its level's spill file
 * (level_spill()): n items at offset, what they count for the chunk's
 * decision, and the lane's next run (index + 1, 0: none). */
typedef struct
{
  guint64  offset;
  guint64  members;
  guint32  n;
  guint32  next;
  guint32  spill;    /* which of the chunk's spills it was written by */
  gboolean starts;
} PoolRun;

typedef struct
{
  /* What every offer reads comes first: for a counting level, the held
   * piece, the counts and the run's own start (strata-aggregator.h lays
   * out the run's hot part first too), in the first two cache lines. */
  StrataActivity     held;      /* last piece, may continue in the next buffer */
  guint8             has_held;
  guint8             touched;
  guint8             starts;    /* counting */
  guint8             lane;
  guint32            n_items;   /* counting: what its items would be */
  guint64            n_members;
  StrataAggregateRun run;
  StrataZoomItemVec  items;
  /* This chunk's output: runs spilled from the pool so far (indices + 1
   * in the level's runs, 0: none), then segments in the level's pool, the
   * last one's room seen as the vector above the aggregator writes into. */
  guint32            first_run;
  guint32            last_run;
  Segment           *first_seg;
  Segment           *last_seg;
  guint32            channel;
  guint32            id;        /* its lane id, while it holds one */
  guint32            slot;      /* its id's slot (slot_for()) */
  guint32            place;     /* where it is in the level's blocks */
  guint32            pos;       /* its place in the level's touched array */
} Lane;

/* A lane whose output for the level's current chunk is final: the chunk
 * ended, or its channel was closed (strata_zoom_tree_close_channel(): a
 * thread that exited) before. Its held piece and open aggregate were
 * flushed into its output exactly as the chunk's end does it, and its
 * state went back to the level for another lane: what stays is what it
 * made (runs in the level's spill file, segments in its pool) or, in a
 * counted chunk, its counts, until the chunk is assembled. */
typedef struct
{
  Segment *first_seg;
  guint64  n_members;   /* counted */
  guint32  channel;
  guint32  first_run;
  guint32  last_run;
  guint32  n_items;     /* counted */
  guint8   lane;
  guint8   starts;      /* counted */
} ClosedLane;

/* Closed lanes out of memory. A coarse level's chunk can last the whole
 * trace, and every thread that exited in it leaves a closed lane (two,
 * with its instants) and its runs: 88 bytes a lane, 13 MB of 20M generated
 * events and growing with them. So once CLOSED_PAGE_LANES of them have
 * their output in the spill file, they go there too, as a page: their
 * records in (channel, lane) order, then their runs, lane by lane. The
 * chunk is assembled from the pages and the lanes still in memory merged
 * in that order (ClosedIter); past CLOSED_PAGES_MAX pages, the pages are
 * merged into one, so the merge reads a bounded number at once. */
#define CLOSED_PAGE_LANES 4096
#define CLOSED_PAGES_MAX  16

typedef struct
{
  guint32 channel;
  guint8  lane;
  guint8  starts;
  guint16 reserved;
  guint32 n_items;      /* counted, or its runs' */
  guint32 n_runs;
  guint64 members;
} PagedLane;

typedef struct
{
  guint64 offset;
  guint32 n;
  guint32 spill;
} PagedRun;

G_STATIC_ASSERT (sizeof (PagedLane) == 24);
G_STATIC_ASSERT (sizeof (PagedRun) == 16);

typedef struct
{
  guint64 offset;       /* its lanes, then at runs_offset its runs */
  guint64 runs_offset;
  guint32 n_lanes;
  guint32 n_runs;
} ClosedPage;

/* A chunk a counting level found worth storing after all: computed from
 * the raw store when the pass ends. */
typedef struct
{
  gint64  index;
  GArray *channels;   /* guint32, the channels it stores; NULL when its
                       * closed lanes could not be read back: decided then */
} Deferred;

typedef struct
{
  gint64     threshold;
  /* The state of the lanes open in the current chunk (the touched array;
   * a lane closed before the chunk's end leaves it for the closed array,
   * its state for the free list): nothing of a lane carries
   * from one chunk to the next (its held piece and open aggregate are
   * flushed when the chunk ends), so when a chunk ends every one is free
   * for the next chunk's lanes, and a level holds as many as one chunk
   * touches, not one per lane ever seen (a lane per thread generation per
   * level was a hundred MB on 5M events). In blocks of LANE_BLOCK, so
   * they do not move; a lane finds its state through the slot the tree
   * gave its id (slot_for()): the state's place + 1 by slot, 0: none. */
  Lane     **lane_blocks;    /* by place / LANE_BLOCK */
  guint      n_lane_blocks;
  guint      n_lane_states;  /* made so far: the most open at once */
  guint      n_taken;        /* places handed out in the current chunk */
  GPtrArray *free_lanes;     /* Lane *, closed in the current chunk, free */
  GArray    *place_of;       /* guint32 by slot */
  GArray    *closed;         /* ClosedLane, of the current chunk */
  /* The lanes' output for the current chunk, emptied when it ends: the
   * same memory serves every chunk (vectors of their own per lane grew
   * into fresh pages chunk after chunk: a sixth of the levels' time on
   * 20M events, in page faults). */
  GPtrArray *pool;           /* POOL_BLOCK-byte blocks */
  guint      pool_block;     /* the block in use */
  gsize      pool_used;      /* bytes of it */
  /* The chunk's items past the budget, in a file of the level's own. */
  gsize      pool_budget;    /* bytes of the pool in use before a spill */
  gsize      pool_peak;      /* the most in use, ever */
  int        spill_fd;       /* -1 until the first spill */
  gboolean   spill_failed;   /* no spill file: the pool grows */
  guint64    spill_end;      /* bytes of it in use by the open chunk */
  guint64    n_pool_spills;
  guint64    pool_spilled;   /* items spilled, in all */
  GArray    *runs;           /* PoolRun, of the open chunk */
  GArray    *pages;          /* ClosedPage, of the open chunk (closed_page_out()) */
  guint      page_lanes;     /* CLOSED_PAGE_LANES, or what the environment says */
  guint64    n_pages;        /* written, in all, merges too */
  guint64    paged;          /* lanes written in them */
  guint      closed_peak;    /* the most closed lanes held in memory */
  GArray    *spill_io;       /* guint8, the buffer the spills go through */
  GArray    *spill_starts;   /* guint64: where each spill of the open chunk begins */
  GArray    *spill_order;    /* guint64: the lanes a spill writes, in its order (spill_key()) */
  GPtrArray *touched;        /* Lane *, open in the current chunk */
  gint64     chunk;          /* index being aggregated, or -1 */
  gboolean   chunk_active;
  gboolean   counting;       /* the chunk is only counted (see level_count) */
  gboolean   last_plain;     /* the previous chunk was not worth storing */
  GArray    *deferred;       /* Deferred */
  gint64     first_chunk;    /* computed from the raw store at the end */
  gint64     memo_index;     /* the latest decision */
  Decision   memo;
  GPtrArray *chunks;         /* Chunk *, by index */
  guint      n_plain;        /* dense chunks where aggregation did not pay */
  GArray    *spans;          /* ChannelSpan, scratch */

  /* Mapped from an index instead of chunks: the chunk index, for each
   * chunk whether its spans were checked (1) or found damaged (2), and the
   * packed arrays of their items, made when first found. */
  StrataCheckedArray records;  /* StrataIndexChunk, by index */
  gint      *record_state;
  StrataPackedArray **record_items;
  gint64     max_index;        /* the last chunk index inside 0..2^62 ns */
} Level;

/* A buffer on its way to the aggregators: every piece overlapping [b, e),
 * clipped, and each one's lane id. */
typedef struct
{
  GArray *pieces;     /* StrataActivity */
  GArray *lanes;      /* guint32 */
  GArray *closes;     /* guint32: ids of lanes whose channel is closed by e */
  gint64  b;
  gint64  e;
  gint    stack_top;
} Buffer;

/* strata_zoom_tree_close_channel(): nothing of @channel after @t. */
typedef struct
{
  gint64  t;
  guint32 channel;
} ChannelClose;

/* Buffers the buffer former may be ahead of the aggregator thread: with
 * four, on two cores, the two stages waited for each other at every other
 * buffer; past sixteen nothing changed but the memory. */
#define N_BUFFERS 16

struct _StrataZoomTree
{
  StrataZoomParams     params;
  gsize                spill_windows; /* SpillReader's bytes */
  StrataZoomGeometry   ranks;     /* rank r is "level" r of this geometry */
  guint                n_ranks;
  Level                levels[MAX_RANKS];
  StrataRawStore      *raw;
  StrataIndexMap      *map;       /* when opened from an index */
  GRWLock              lock;
  GPtrArray           *arena;     /* blocks the chunks live in */
  GPtrArray           *big;       /* chunks too big for a block */
  guint8              *arena_next;
  gsize                arena_left;

  /* Builder state, touched only by the thread that builds. */
  GArray              *incoming;  /* StrataActivity, not taken in yet */
  guint                n_published; /* of which are in the raw store */
  guint                retry_size;  /* try to cut again with this much pending */
  gint64               wait_horizon; /* ... or once the horizon reaches this */
  GArray              *pending;   /* StrataActivity, by start, not delivered */
  GArray              *open;      /* StrataActivity, by channel */
  GArray              *open_by_start;
  GArray              *merge;     /* scratch for merging into pending */
  GArray              *sort_scratch; /* StrataActivity, for sort_by_start() */
  GArray              *sort_keys;    /* SortKey, the same */
  GArray              *sort_keys2;
  GArray              *starts;    /* gint64, known starts from the cut on */
  guint                starts_head;
  Buffer              *buffer;    /* the buffer being delivered */
  Buffer               buffers[N_BUFFERS];
  GArray              *closing;   /* ChannelClose, not delivered yet */
  GArray              *sealing;   /* guint32: channels closed, for the raw store */
  guint                closing_head;
  GPtrArray           *lane_ids;  /* pages of LANE_ID_PAGE channels (or NULL): guint32 by
                                   * channel's place * N_LANES + lane: id + 1, or 0 */
  GArray              *ids_closed; /* guint16 per page: its channels closed */
  guint32              n_lane_ids;

  /* The levels' side of the lane ids (the thread that runs the levels
   * alone touches them): the slot where each id's states are, while a
   * level has the lane open (slot + 1 by id, 0: none), how many levels
   * have each slot's lane open, and the slots free again. */
  GArray              *slot_of;     /* guint32 by lane id */
  GArray              *slot_refs;   /* guint32 by slot */
  GArray              *free_slots;  /* guint32 */
  gint64               horizon;
  gint64               cut;
  gint64               first_cut;
  gboolean             started;
  gboolean             finished;
  gint64               first;     /* earliest start */
  gint64               last;      /* latest point covered */
  guint64              n_buffers;
  gint                 first_top;  /* the stack's top at the first cut, or -1 */
  gint64               hint_last;  /* strata_zoom_tree_set_span_hint(), or G_MININT64 */
  guint                hint_root;  /* the ranks from it on aggregate their first chunk in
                                    * the pass; n_ranks when there was no hint */
  guint                span_cut_from;  /* spans longer are answered in part (span_in_view()) */
  guint64              serial;     /* unique in the process: a result's blocks are this tree's */
  guint64              n_left_out;  /* activities outside 0..2^62 ns */
  gsize                size;
  StrataZoomBufferFunc buffer_func;
  gpointer             buffer_data;

  GMutex               arena_lock;

  /* Chunks spilled during the pass (chunk_alloc(), chunk_count()): once
   * the items kept in memory reach spill_from bytes, a finished chunk's
   * items go to the packer, which packs them on a thread of its own and
   * appends them to its file; the chunk keeps its record, its spans
   * going to the file after its items (chunk_take_spans()). */
  gsize                spill_from;
  gsize                spill_queue;  /* the packer's bound on what waits */
  gint                 spilling;     /* atomic: spill_from was reached */
  gboolean             spill_failed; /* no spill file: everything in memory */
  StrataBlockPacker   *packer;       /* made at the first spill, under arena_lock */
  gsize                in_memory;    /* bytes of items kept in chunks (under lock) */
  gsize                chunk_index;  /* bytes of chunk records and spans in memory (under lock) */
  guint                n_spilled;    /* chunks (under lock) */
  guint                n_chunks;     /* stored, in all (under lock) */
  gsize                spans;        /* bytes of spans, keys and changes in memory (under lock) */

  /* The spilled chunks' pieces read back last (chunk_resolve()), most
   * recent first, and their bytes: under piece_lock. */
  GMutex               piece_lock;
  ChunkPiece          *pieces[PIECE_CACHE];
  guint                n_pieces;
  gsize                piece_bytes;
  gint                 piece_warned;  /* atomic: a piece could not be read back */

  /* Pipelined (adaptive buffers, one aggregator): the levels consume each
   * buffer in a thread of their own while the buffer former goes on. */
  gboolean             pipelined;
  GThread             *aggregator;
  GAsyncQueue         *full;      /* Buffer *, to aggregate, or &quit */
  GAsyncQueue         *free;      /* Buffer *, to fill */
  Buffer               quit;
};

static void release_build_state (StrataZoomTree *self);
static void stop_aggregator (StrataZoomTree *self);

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
   * STRATA_ZOOM_PIPELINED=0 or 1 says. */
  {
    const char *env = g_getenv ("STRATA_ZOOM_PIPELINED");

    params->pipelined = env != NULL ? g_strcmp0 (env, "0") != 0 : g_get_num_processors () > 1;
  }
}

StrataZoomTree *
strata_zoom_tree_new (const StrataZoomParams  *params,
                      GError                 **error)
{
  g_autoptr(StrataZoomTree) self = NULL;
  StrataZoomGeometry g;
  guint root;
  gsize pool_budget = POOL_BUDGET;
  const char *budget_env = g_getenv ("STRATA_ZOOM_POOL_BUDGET");
  const char *page_env = g_getenv ("STRATA_ZOOM_CLOSED_PAGE");
  guint page_lanes = CLOSED_PAGE_LANES;

  g_return_val_if_fail (params != NULL, NULL);

  if (budget_env != NULL && *budget_env != '\0')
    pool_budget = g_ascii_strtoull (budget_env, NULL, 10);
  /* The tests page every few closed lanes (0: never). */
  if (page_env != NULL && *page_env != '\0')
    page_lanes = (guint) MIN (g_ascii_strtoull (page_env, NULL, 10), G_MAXUINT);

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
  self->spill_windows = SPILL_WINDOWS;
  {
    const char *windows_env = g_getenv ("STRATA_ZOOM_SPILL_WINDOWS");

    if (windows_env != NULL && *windows_env != '\0')
      self->spill_windows = g_ascii_strtoull (windows_env, NULL, 10);
  }

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
      level->spans = g_array_new (FALSE, FALSE, sizeof (ChannelSpan));
      level->deferred = g_array_new (FALSE, FALSE, sizeof (Deferred));
      level->pool = g_ptr_array_new_with_free_func (g_free);
      level->pool_budget = pool_budget;
      level->spill_fd = -1;
      level->runs = g_array_new (FALSE, FALSE, sizeof (PoolRun));
      level->pages = g_array_new (FALSE, FALSE, sizeof (ClosedPage));
      level->page_lanes = page_lanes;
      level->spill_io = g_array_new (FALSE, FALSE, 1);
      level->spill_starts = g_array_new (FALSE, FALSE, sizeof (guint64));
      level->spill_order = g_array_new (FALSE, FALSE, sizeof (guint64));
    }

  g_mutex_init (&self->arena_lock);
  g_mutex_init (&self->piece_lock);
  self->arena = g_ptr_array_new_with_free_func (free);
  self->big = g_ptr_array_new_with_free_func (g_free);
  self->raw = strata_raw_store_new ();
  self->spill_from = CHUNK_SPILL_FROM;
  self->spill_queue = CHUNK_SPILL_QUEUE;
  {
    const char *env = g_getenv ("STRATA_ZOOM_CHUNK_SPILL_FROM");

    if (env != NULL && *env != '\0')
      self->spill_from = g_ascii_strtoull (env, NULL, 10);
  }
  self->spilling = self->spill_from == 0;
  g_rw_lock_init (&self->lock);
  self->incoming = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->pending = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->open = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->open_by_start = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->merge = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->sort_scratch = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->sort_keys = g_array_new (FALSE, FALSE, 16);
  self->sort_keys2 = g_array_new (FALSE, FALSE, 16);
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
  self->ids_closed = g_array_new (FALSE, TRUE, sizeof (guint16));
  self->slot_of = g_array_new (FALSE, TRUE, sizeof (guint32));
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
  /* STRATA_ZOOM_SPAN_CUT says otherwise (the tests cut every span). */
  {
    const char *env = g_getenv ("STRATA_ZOOM_SPAN_CUT");

    self->span_cut_from = env != NULL ? (guint) MIN (g_ascii_strtoull (env, NULL, 10), G_MAXUINT) : SPAN_CUT_FROM;
  }

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

static gpointer
arena_alloc (StrataZoomTree *self,
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
      g_free (block);
    }
  g_clear_pointer (&level->lane_blocks, g_free);
  level->n_lane_blocks = 0;
}

void
strata_zoom_tree_free (StrataZoomTree *self)
{
  if (self == NULL)
    return;

  stop_aggregator (self);
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
      g_array_unref (level->spans);
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
    chunk_piece_unref (self->pieces[i]);
  g_mutex_clear (&self->piece_lock);
  g_clear_pointer (&self->packer, strata_block_packer_free);
  g_rw_lock_clear (&self->lock);
  g_clear_pointer (&self->incoming, g_array_unref);
  g_clear_pointer (&self->pending, g_array_unref);
  g_clear_pointer (&self->open, g_array_unref);
  g_clear_pointer (&self->open_by_start, g_array_unref);
  g_clear_pointer (&self->merge, g_array_unref);
  g_clear_pointer (&self->sort_scratch, g_array_unref);
  g_clear_pointer (&self->sort_keys, g_array_unref);
  g_clear_pointer (&self->sort_keys2, g_array_unref);
  g_clear_pointer (&self->starts, g_array_unref);
  for (guint i = 0; i < N_BUFFERS; i++)
    {
      g_clear_pointer (&self->buffers[i].pieces, g_array_unref);
      g_clear_pointer (&self->buffers[i].lanes, g_array_unref);
      g_clear_pointer (&self->buffers[i].closes, g_array_unref);
    }
  g_clear_pointer (&self->lane_ids, g_ptr_array_unref);
  g_clear_pointer (&self->ids_closed, g_array_unref);
  g_clear_pointer (&self->slot_of, g_array_unref);
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

static int
by_channel (gconstpointer pa,
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
  g_array_append_val (self->open, a);
}

/* The index of the first element of the sorted @array >= @t, from @head. */
static guint
lower_bound_gint64 (GArray *array,
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

static gint64
chunk_end (StrataZoomTree *self,
           guint           rank,
           gint64          t)
{
  gint64 index = strata_zoom_geometry_chunk_index (&self->ranks, rank, t);

  return strata_zoom_geometry_chunk_start (&self->ranks, rank, index + 1);
}

/* The chunking criterion for chunk @index of @rank, as far as the known
 * starts tell. */
static Decision
decide (StrataZoomTree *self,
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

  n = lower_bound_gint64 (self->starts, self->starts_head, e) -
      lower_bound_gint64 (self->starts, self->starts_head, s);

  if (n >= self->params.density_threshold)
    return DECISION_DENSE;
  if (e <= self->horizon)
    return DECISION_SPARSE;
  return DECISION_UNKNOWN;
}

static void
remember (StrataZoomTree *self,
          guint           rank,
          gint64          index,
          Decision        decision)
{
  self->levels[rank].memo_index = index;
  self->levels[rank].memo = decision;
}

/* The slot of lane @id's states, handed out the first time a level
 * takes the lane (slots are dense, so the levels' states are in a few
 * blocks, and every level finds a lane's state at the same place: a
 * piece's lane is found once for all the levels, not in a table of each
 * level's, whose probes missed the cache once per piece and level). */
static inline guint32
slot_for (StrataZoomTree *self,
          guint32         id)
{
  guint32 *slot_of;

  if G_UNLIKELY (id >= self->slot_of->len)
    g_array_set_size (self->slot_of, MAX (id + 1, 2 * self->slot_of->len));
  slot_of = (guint32 *)(gpointer) self->slot_of->data;
  if G_UNLIKELY (slot_of[id] == 0)
    {
      guint32 slot;

      if (self->free_slots->len > 0)
        {
          slot = g_array_index (self->free_slots, guint32, self->free_slots->len - 1);
          g_array_set_size (self->free_slots, self->free_slots->len - 1);
        }
      else
        {
          slot = self->slot_refs->len;
          g_array_set_size (self->slot_refs, slot + 1);
        }
      slot_of[id] = slot + 1;
    }
  return slot_of[id] - 1;
}

/* The slot that lane @id has, or G_MAXUINT32 when no level has it open. */
static inline guint32
slot_known (StrataZoomTree *self,
            guint32         id)
{
  if (id >= self->slot_of->len || g_array_index (self->slot_of, guint32, id) == 0)
    return G_MAXUINT32;
  return g_array_index (self->slot_of, guint32, id) - 1;
}

/* The state for lane @id, at @slot, which the current chunk has not
 * touched yet: the next free one (one a closed lane gave back, a lane of
 * an earlier chunk, its run flushed, or a fresh one). */
static Lane *
take_lane (StrataZoomTree       *self,
           Level                *level,
           guint32               slot,
           guint32               id,
           const StrataActivity *piece)
{
  Lane *lane;

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
        level->lane_blocks[b] = g_new0 (Lane, LANE_BLOCK);

      lane = &level->lane_blocks[b][place % LANE_BLOCK];
      lane->place = place;
      if (lane->run.threshold == 0)
        {
          strata_aggregate_run_init (&lane->run, level->threshold);
          level->n_lane_states++;
        }
    }
  g_assert (!lane->touched && !lane->has_held && !lane->run.open && lane->first_seg == NULL && lane->n_items == 0);
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

/* The lane with id @id at @level, at @slot, taken the first time the
 * current chunk touches it. */
static inline Lane *
get_lane (StrataZoomTree       *self,
          Level                *level,
          guint32               slot,
          guint32               id,
          const StrataActivity *piece)
{
  guint32 place;

  if G_LIKELY (slot < level->place_of->len &&
               (place = g_array_index (level->place_of, guint32, slot)) != 0)
    return &level->lane_blocks[(place - 1) / LANE_BLOCK][(place - 1) % LANE_BLOCK];
  return take_lane (self, level, slot, id, piece);
}

/* The open lane with id @id in the current chunk, or NULL. */
static Lane *
find_lane (StrataZoomTree *self,
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
  g_array_index (self->slot_of, guint32, id) = 0;
  g_array_append_val (self->free_slots, slot);
}

/* The id of @channel's lane @l: ids are dense, in the order lanes are
 * first seen, found once per piece for every level (following two
 * pointers per piece and level to lanes scattered over the heap was half
 * of the aggregators' time, in cache misses); a level's states are in a
 * few blocks, in the order its chunk first touched them. */
#define LANE_ID_PAGE_BITS 10
#define LANE_ID_PAGE      (1u << LANE_ID_PAGE_BITS)

/* The ids are in pages of LANE_ID_PAGE channels: one table of them all
 * was doubled as it grew (8.4 MB for the 48 742 threads of 20M generated
 * events). */
static inline guint32
lane_id (StrataZoomTree *self,
         guint32         channel,
         guint           l)
{
  guint page = channel >> LANE_ID_PAGE_BITS;
  guint key = (channel & (LANE_ID_PAGE - 1)) * N_LANES + l;
  guint32 *ids;

  if G_UNLIKELY (page >= self->lane_ids->len)
    g_ptr_array_set_size (self->lane_ids, page + 1);
  ids = g_ptr_array_index (self->lane_ids, page);
  if G_UNLIKELY (ids == NULL)
    ids = g_ptr_array_index (self->lane_ids, page) = g_new0 (guint32, LANE_ID_PAGE * N_LANES);
  if G_UNLIKELY (ids[key] == 0)
    ids[key] = ++self->n_lane_ids;

  return ids[key] - 1;
}

static int
by_span_channel (gconstpointer pa,
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

/* The packer a chunk finished now hands its items to, or NULL when it
 * keeps them: the tree is below its threshold, or has no spill file (then
 * it stays in memory, as before). Called with arena_lock held. */
static StrataBlockPacker *
spill_packer (StrataZoomTree *self)
{
  if (!g_atomic_int_get (&self->spilling) || self->spill_failed)
    return NULL;
  if (self->packer == NULL)
    {
      g_autoptr(GError) error = NULL;
      const char *env = g_getenv ("STRATA_INDEX_ZSTD_LEVEL");
      int level = env != NULL ? CLAMP (atoi (env), -7, 19) : STRATA_INDEX_ZSTD_LEVEL;

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

/* The packer a chunk about to be made hands its items to, or NULL if it
 * keeps them. */
static StrataBlockPacker *
chunk_spill_target (StrataZoomTree *self)
{
  StrataBlockPacker *packer;

  g_mutex_lock (&self->arena_lock);
  packer = spill_packer (self);
  g_mutex_unlock (&self->arena_lock);
  return packer;
}

/* A chunk with room for its spans and items unless they go to @packer:
 * then the caller streams the items there (strata_block_packer_begin())
 * and sets first_block before publishing it, so a chunk's items are never
 * held twice however big it is, and its spans go there after them
 * (chunk_take_spans()). */
static Chunk *
chunk_alloc (StrataZoomTree    *self,
             gint64             index,
             guint              n_channels,
             guint              n_items,
             StrataBlockPacker *packer)
{
  Chunk *chunk;

  /* Aggregator threads finish chunks at the same time. */
  g_mutex_lock (&self->arena_lock);
  chunk = arena_alloc (self, sizeof (Chunk));
  chunk->channels = packer == NULL ? arena_alloc (self, n_channels * sizeof (ChannelSpan)) : NULL;
  chunk->items = packer == NULL ? arena_alloc (self, n_items * sizeof (StrataZoomItem)) : NULL;
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

/* Where a chunk that spills streams its items, in the index's blocks,
 * and the keys and lane changes of those items (a query bisects over
 * them). */
typedef struct
{
  StrataBlockStream    *stream;   /* NULL: the chunk keeps its items */
  StrataIndexChunkKeys  keys;
} ItemStream;

static void
item_stream_begin (ItemStream        *s,
                   StrataBlockPacker *packer)
{
  memset (s, 0, sizeof *s);
  if (packer == NULL)
    return;
  s->stream = strata_block_packer_begin (packer, sizeof (StrataZoomItem), STRATA_INDEX_ITEM_BLOCK);
  strata_index_chunk_keys_init (&s->keys);
}

static void
item_stream_add (ItemStream           *s,
                 const StrataZoomItem *items,
                 guint                 n)
{
  strata_index_chunk_keys_add (&s->keys, items, n);
  strata_block_stream_add (s->stream, items, n);
}

/* The bytes of a chunk's spans, keys and lane changes laid out as the
 * index lays them out: the spans, the keys from the next 8-byte boundary,
 * the changes. */
static gsize
chunk_piece_size (const Chunk *chunk)
{
  return strata_index_keys_offset (chunk->n_channels) +
         strata_index_n_keys (chunk->n_items) * sizeof (StrataIndexItemKey) +
         (gsize) chunk->n_changes * sizeof (guint32);
}

/* Gives @chunk its @spans and the keys and lane changes @s collected, and
 * frees them (@chunk NULL: it is not stored after all). A chunk kept in
 * memory has room for its spans and no keys. A spilled one writes them
 * after its items to the packer's file, as one checksummed piece, so what
 * stays in memory of it is its record whatever the trace's threads; only
 * if that write fails are they kept in memory, as an unspilled chunk's. */
static void
chunk_take_spans (StrataZoomTree    *self,
                  ItemStream        *s,
                  Chunk             *chunk,
                  const ChannelSpan *spans)
{
  GArray *keys = s->keys.keys, *changes = s->keys.changes;
  gsize spans_size, keys_at, keys_size, size;
  g_autofree guint8 *piece = NULL;
  guint64 offset;
  guint8 *p;

  if (chunk != NULL && keys == NULL)
    {
      memcpy (chunk->channels, spans, chunk->n_channels * sizeof (ChannelSpan));
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
  chunk->n_changes = changes->len;
  spans_size = chunk->n_channels * sizeof (ChannelSpan);
  keys_at = strata_index_keys_offset (chunk->n_channels);
  keys_size = keys->len * sizeof (StrataIndexItemKey);
  size = chunk_piece_size (chunk);

  piece = g_malloc0 (MAX (size, 1));
  memcpy (piece, spans, spans_size);
  memcpy (piece + keys_at, keys->data, keys_size);
  if (changes->len > 0)
    memcpy (piece + keys_at + keys_size, changes->data, changes->len * sizeof (guint32));
  strata_index_chunk_keys_clear (&s->keys);

  offset = strata_block_packer_put_bytes (chunk->spilled, piece, size);
  if (offset != G_MAXUINT64)
    {
      chunk->piece_offset = offset;
      chunk->piece_checksum = strata_index_checksum (piece, size);
      return;
    }

  g_debug ("zoom tree: the spans of chunk %" G_GINT64_FORMAT " stay in memory: %s",
           chunk->index, g_strerror (errno));
  g_mutex_lock (&self->arena_lock);
  p = arena_alloc (self, size);
  g_mutex_unlock (&self->arena_lock);
  memcpy (p, piece, size);
  chunk->channels = (ChannelSpan *)(gpointer) p;
  chunk->keys = keys_size > 0 ? (const StrataIndexItemKey *)(gconstpointer)(p + keys_at) : NULL;
  chunk->changes = (const guint32 *)(gconstpointer)(p + keys_at + keys_size);
}

/* What a chunk counts for in the tree's size (and the index header's
 * tree_size) besides its spans and items: the size of its record when
 * that count went into the index. Kept at that, so the index is the same
 * bytes whatever the record holds now (a spilled chunk's ticket too). */
#define CHUNK_COUNTED_SIZE 48

static gsize
chunk_size (const Chunk *chunk)
{
  return CHUNK_COUNTED_SIZE + chunk->n_channels * sizeof (ChannelSpan) +
         chunk->n_items * sizeof (StrataZoomItem);
}

/* Counts a chunk being published, with the tree's writer lock held: its
 * size as the tree's, and where it lives. Past the threshold, the next
 * chunks spill. */
static void
chunk_count (StrataZoomTree *self,
             const Chunk    *chunk)
{
  self->size += chunk_size (chunk);
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
static void
assemble_channel (GArray               *spans,
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
  g_array_append_val (spans, span);
  if (stream->stream != NULL)
    item_stream_add (stream, channel_items, n);
  else
    g_array_append_vals (items, channel_items, n);
  for (guint i = 0; i < n; i++)
    *members += channel_items[i].count;
  *n_items += n;
}

/* A dense chunk is stored when aggregation pays: at most one item per
 * min_reduction members. Otherwise its items are nearly the activities
 * themselves, and the query computes them from the raw store at the cost
 * of copying them: per lane, a chunk has at most W items an activity or
 * an aggregate long, so at most W * min_reduction activities. Without
 * this, every dense level below the one where activities stop being
 * trivial stores the whole trace again. */
static gboolean
worth_storing (StrataZoomTree *self,
               guint           n_spans,
               guint64         n_items,
               guint64         members)
{
  return n_spans > 0 && n_items * MAX (self->params.min_reduction, 1) <= members;
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
static void
pool_reset (Level *level)
{
  if (level->pool->len > level->pool_block + 2)
    g_ptr_array_set_size (level->pool, level->pool_block + 2);
  level->pool_block = 0;
  level->pool_used = 0;
}

static void level_spill (Level *level);
static void closed_page_out (Level *level);

static inline guint
lane_next_cap (const Lane *lane)
{
  return lane->last_seg != NULL ? MIN (2 * lane->last_seg->cap, SEGMENT_MAX) : 16;
}

static void
lane_grow (Level *level,
           Lane  *lane)
{
  guint cap = lane_next_cap (lane);
  Segment *seg;

  /* Past the budget, what the lanes made so far leaves the pool (this
   * lane's too: it starts a new segment after). */
  if G_UNLIKELY (pool_in_use_after (level, sizeof (Segment) + cap * sizeof (StrataZoomItem)) > level->pool_budget &&
                 pool_in_use (level) > 0 && !level->spill_failed)
    {
      level_spill (level);
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

/* Room for what one offer to the aggregator can write (two items), so
 * that it never grows the vector itself: its memory is the pool's. */
static inline void
lane_room (Level *level,
           Lane  *lane)
{
  if G_UNLIKELY (lane->items.alloc - lane->items.len < 2)
    lane_grow (level, lane);
}

/* The lane's output in the pool is done with (copied, or spilled). */
static inline void
lane_empty_pool (Lane *lane)
{
  lane->first_seg = lane->last_seg = NULL;
  lane->items.items = NULL;
  lane->items.len = lane->items.alloc = 0;
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
static void
lane_close (StrataZoomTree *self,
            Level          *level,
            Lane           *lane)
{
  ClosedLane c = { NULL, 0, lane->channel, 0, 0, 0, lane->lane, FALSE };
  Lane *last;

  if (level->counting)
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
    closed_page_out (level);

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
}

/* Every lane of the current chunk closed, in (channel, lane) order. */
static int
by_closed_channel_then_lane (gconstpointer pa,
                             gconstpointer pb)
{
  const ClosedLane *a = pa, *b = pb;

  if (a->channel != b->channel)
    return a->channel < b->channel ? -1 : 1;
  return a->lane < b->lane ? -1 : a->lane > b->lane;
}

static void
lanes_close_all (StrataZoomTree *self,
                 Level          *level)
{
  while (level->touched->len > 0)
    lane_close (self, level, g_ptr_array_index (level->touched, level->touched->len - 1));
  if (level->closed->len > 1)
    g_array_sort (level->closed, by_closed_channel_then_lane);
}

/* The chunk is assembled: every state is free for the next chunk's
 * lanes, taken again from the first. */
static void
lanes_release (Level *level)
{
  g_assert (level->touched->len == 0);
  g_array_set_size (level->closed, 0);
  g_ptr_array_set_size (level->free_lanes, 0);
  level->n_taken = 0;
}

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

static int
by_spill_key (gconstpointer pa,
              gconstpointer pb)
{
  guint64 a = *(const guint64 *) pa, b = *(const guint64 *) pb;

  return a < b ? -1 : a > b;
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
static void
level_spill (Level *level)
{
  Lane **touched = (Lane **) level->touched->pdata;
  guint n_touched = level->touched->len;
  guint first = level->runs->len;
  guint64 offset = level->spill_end;
  guint64 written = offset;
  const guint64 *order;
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
  g_array_sort (level->spill_order, by_spill_key);
  order = (const guint64 *)(gpointer) level->spill_order->data;

  g_array_set_size (level->spill_io, 0);
  for (guint o = 0; o < n_order; o++)
    {
      guint k = order[o] & ((1u << SPILL_KEY_PLACE_BITS) - 1);
      ClosedLane *closed = k >= n_touched ? &g_array_index (level->closed, ClosedLane, k - n_touched) : NULL;
      const Segment *first_seg = closed != NULL ? closed->first_seg : touched[k]->first_seg;
      PoolRun run = { offset, 0, 0, k, level->spill_starts->len, FALSE };

      if (closed == NULL)
        touched[k]->last_seg->n = touched[k]->items.len;
      for (const Segment *seg = first_seg; seg != NULL; seg = seg->next)
        {
          const guint8 *bytes = (const guint8 *) seg->items;
          gsize size = seg->n * sizeof (StrataZoomItem);

          for (guint i = 0; i < seg->n; i++)
            {
              run.starts |= !(seg->items[i].flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE);
              run.members += seg->items[i].count;
            }
          run.n += seg->n;
          while (size > 0)
            {
              gsize part = MIN (size, SPILL_IO - level->spill_io->len);

              g_array_append_vals (level->spill_io, bytes, part);
              bytes += part;
              size -= part;
              if (level->spill_io->len == SPILL_IO)
                {
                  if (!spill_write (level, written))
                    goto failed;
                  written += SPILL_IO;
                }
            }
        }
      offset += (guint64) run.n * sizeof (StrataZoomItem);
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
  pool_reset (level);
  g_array_append_val (level->spill_starts, level->spill_end);
  level->spill_end = offset;
  level->n_pool_spills++;
  /* Every closed lane's output is in the file now: past page_lanes of
   * them, they follow it there. */
  closed_page_out (level);
  return;

failed:
  g_debug ("zoom tree: a level's open chunk stays in memory: cannot write its spill file: %s",
           g_strerror (errno));
  g_array_set_size (level->runs, first);
  g_array_set_size (level->spill_io, 0);
  level->spill_failed = TRUE;
}

/* Hands @n items from the level's spill file, at @offset, to @stream or
 * @out (advanced). FALSE if they cannot be read. */
static gboolean
spill_copy (Level              *level,
            guint64             offset,
            guint               n,
            ItemStream         *stream,
            StrataZoomItem    **out)
{
  const guint per = SPILL_IO / sizeof (StrataZoomItem);

  g_array_set_size (level->spill_io, MIN (n, per) * sizeof (StrataZoomItem));
  while (n > 0)
    {
      guint part = MIN (n, per);
      gsize size = part * sizeof (StrataZoomItem);

      if (stream->stream == NULL)
        {
          if (!spill_read (level, (guint8 *) *out, size, offset))
            return FALSE;
          *out += part;
        }
      else
        {
          if (!spill_read (level, (guint8 *) level->spill_io->data, size, offset))
            return FALSE;
          item_stream_add (stream, (const StrataZoomItem *)(gpointer) level->spill_io->data, part);
        }
      offset += size;
      n -= part;
    }
  g_array_set_size (level->spill_io, 0);
  return TRUE;
}

/* Reads a chunk's runs back from its level's spill file, in the order
 * the chunk is assembled: each spill wrote its lanes in that order, so
 * within one spill the runs come in file order, and a window per spill,
 * read at the first run that falls outside it, serves the runs after it.
 * The windows share the tree's spill_windows bytes (SPILL_WINDOWS, or
 * STRATA_ZOOM_SPILL_WINDOWS in the environment), each between 64 items
 * and SPILL_IO; a run bigger than its window is read by itself. */
typedef struct
{
  Level   *level;
  guint8  *bytes;      /* n windows of window bytes */
  guint64 *at;         /* where window s is in the file (G_MAXUINT64: empty) */
  gsize   *len;        /* and how much of it was read */
  gsize    window;
  guint    n;
} SpillReader;

static void
spill_reader_init (SpillReader *r,
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

static void
spill_reader_clear (SpillReader *r)
{
  g_free (r->bytes);
  g_free (r->at);
  g_free (r->len);
}

/* Hands @run's items to @stream or @out (advanced), as spill_copy() does.
 * FALSE if they cannot be read. */
static gboolean
spill_reader_copy (SpillReader        *r,
                   const PagedRun     *run,
                   ItemStream         *stream,
                   StrataZoomItem    **out)
{
  Level *level = r->level;
  gsize size = (gsize) run->n * sizeof (StrataZoomItem);
  guint s = run->spill;
  const StrataZoomItem *items;

  if (size > r->window || s >= r->n)
    return spill_copy (level, run->offset, run->n, stream, out);

  if (r->at[s] == G_MAXUINT64 || run->offset < r->at[s] || run->offset + size > r->at[s] + r->len[s])
    {
      guint64 end = s + 1 < r->n ? g_array_index (level->spill_starts, guint64, s + 1) : level->spill_end;
      gsize len = (gsize) MIN ((guint64) r->window, end - run->offset);

      if (len < size || !spill_read (level, r->bytes + (gsize) s * r->window, len, run->offset))
        {
          r->at[s] = G_MAXUINT64;
          return FALSE;
        }
      r->at[s] = run->offset;
      r->len[s] = len;
    }

  items = (const StrataZoomItem *)(gconstpointer) (r->bytes + (gsize) s * r->window + (run->offset - r->at[s]));
  if (stream->stream != NULL)
    item_stream_add (stream, items, run->n);
  else
    {
      memcpy (*out, items, size);
      *out += run->n;
    }
  return TRUE;
}

/* Closed lanes out of memory (CLOSED_PAGE_LANES) ----------------------- */

/* @c as a page keeps it, its runs appended to @runs: its totals are its
 * counts (a counted chunk's) or its runs' (it has no segment left). */
static PagedLane
paged_lane (Level            *level,
            const ClosedLane *c,
            GArray           *runs)
{
  PagedLane pl = { c->channel, c->lane, c->starts, 0, c->n_items, 0, c->n_members };

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

typedef struct
{
  ClosedPage page;
  guint      next;       /* the lane handed out next */
  guint64    next_run;   /* its first run */
  GArray    *lanes;      /* PagedLane: the window, from lanes_at */
  guint      lanes_at;
  GArray    *runs;       /* PagedRun: the window, from runs_at */
  guint64    runs_at;
} PageCursor;

/* The lanes of a chunk closed so far in (channel, lane) order: its pages'
 * and those still in memory (sorted: a lane closed twice, by a misuse,
 * comes in the order it closed, earlier pages first). */
typedef struct
{
  Level      *level;
  PageCursor *cursors;
  guint       n_cursors;
  guint       mem;        /* next of level->closed */
  GArray     *mem_runs;   /* PagedRun: an in-memory lane's */
  gboolean    failed;     /* a page could not be read back */
} ClosedIter;

typedef struct
{
  PagedLane       lane;   /* for a lane in memory of a stored chunk, its runs' totals only */
  const PagedRun *runs;
  ClosedLane     *mem;    /* a lane in memory (its segments), or NULL */
} ClosedView;

static void
closed_iter_init (ClosedIter *it,
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

static void
closed_iter_clear (ClosedIter *it)
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
static gboolean
closed_iter_next (ClosedIter *it,
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
  closed_iter_init (&it, level);
  while (ok && closed_iter_next (&it, &view))
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
  closed_iter_clear (&it);
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

/* Past the level's page_lanes closed lanes, every one of them with its
 * output out of the pool (after a spill, or counted), they go to the
 * spill file as a page. If it cannot be written they stay. */
static void
closed_page_out (Level *level)
{
  g_autoptr(GArray) lanes = NULL;
  g_autoptr(GArray) runs = NULL;
  ClosedPage page;

  if (level->page_lanes == 0 || level->closed->len < level->page_lanes || !spill_file_open (level))
    return;

  g_array_sort (level->closed, by_closed_channel_then_lane);
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

  page.offset = level->spill_end;
  page.runs_offset = page.offset + (guint64) lanes->len * sizeof (PagedLane);
  page.n_lanes = lanes->len;
  page.n_runs = runs->len;
  if (!spill_pwrite (level, lanes->data, lanes->len * sizeof (PagedLane), page.offset) ||
      !spill_pwrite (level, runs->data, runs->len * sizeof (PagedRun), page.runs_offset))
    {
      g_debug ("zoom tree: a level's closed lanes stay in memory: %s", g_strerror (errno));
      return;
    }
  level->spill_end = page.runs_offset + (guint64) runs->len * sizeof (PagedRun);
  g_array_append_val (level->pages, page);
  level->n_pages++;
  level->paged += page.n_lanes;
  g_array_set_size (level->closed, 0);
  runs_compact (level);

  if (level->pages->len > CLOSED_PAGES_MAX)
    closed_pages_merge (level);
}

/* The end of a counted chunk: the same decisions as level_finish_chunk()
 * from the lanes' counts. A chunk worth storing after all is remembered
 * and computed at the end. */
static void
level_finish_count (StrataZoomTree *self,
                    Level          *level)
{
  g_autoptr(GArray) channels = NULL;
  guint64 members = 0, n_items = 0;
  ClosedIter it;
  ClosedView v;
  gboolean more, failed;

  lanes_close_all (self, level);
  closed_iter_init (&it, level);
  more = closed_iter_next (&it, &v);
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
          more = closed_iter_next (&it, &v);
        }
      while (more && v.lane.channel == channel);

      if (n > 0 && starts)
        {
          if (channels == NULL)
            channels = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_array_append_val (channels, channel);
          n_items += n;
          members += m;
        }
    }
  failed = it.failed;
  closed_iter_clear (&it);
  lanes_release (level);
  g_array_set_size (level->pages, 0);
  g_array_set_size (level->runs, 0);
  level->spill_end = 0;

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
  else if (channels == NULL || n_items * MAX (self->params.min_reduction, 1) > members)
    {
      level->n_plain++;
      level->last_plain = TRUE;
    }
  else
    {
      Deferred d = { level->chunk, g_steal_pointer (&channels) };

      g_array_append_val (level->deferred, d);
      level->last_plain = FALSE;
    }

  level->chunk = -1;
  level->chunk_active = FALSE;
  level->counting = FALSE;
}

/* The end of the chunk a level is aggregating: flush every lane and store
 * the chunk if it was dense. Each lane's items are copied once, straight
 * into the stored chunk: the channels to store and the chunk's size are
 * known from the lanes before it is made. The spans scratch array is the
 * level's own and keeps its size from chunk to chunk. */
static void
level_finish_chunk (StrataZoomTree *self,
                    Level          *level)
{
  GArray *spans = level->spans;
  guint64 members = 0;
  guint n_items = 0;
  ClosedIter it;
  ClosedView v;
  gboolean more, read_ok;

  if (level->chunk < 0)
    return;

  if (level->counting)
    {
      level_finish_count (self, level);
      return;
    }

  g_array_set_size (spans, 0);
  lanes_close_all (self, level);

  /* The channels it stores and their items' count, from every lane it
   * closed, in (channel, lane) order. */
  closed_iter_init (&it, level);
  more = closed_iter_next (&it, &v);
  while (more)
    {
      ChannelSpan span = { v.lane.channel, n_items, 0 };
      gboolean starts = FALSE;
      guint64 m = 0;

      do
        {
          starts |= v.lane.starts;
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
          more = closed_iter_next (&it, &v);
        }
      while (more && v.lane.channel == span.channel);

      /* A channel is stored when one of its activities starts here
       * (has_start()). */
      if (span.n_items > 0 && starts && level->chunk_active)
        {
          g_array_append_val (spans, span);
          n_items += span.n_items;
          members += m;
        }
    }
  read_ok = !it.failed;
  closed_iter_clear (&it);

  /* worth_storing(), counted on the way. */
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
  else if (level->chunk_active &&
           (spans->len == 0 || (guint64) n_items * MAX (self->params.min_reduction, 1) > members))
    {
      level->n_plain++;
      level->last_plain = TRUE;
    }
  else if (level->chunk_active)
    {
      StrataBlockPacker *packer = chunk_spill_target (self);
      Chunk *chunk = chunk_alloc (self, level->chunk, spans->len, n_items, packer);
      const ChannelSpan *stored = (const ChannelSpan *)(gpointer) spans->data;
      ItemStream stream;
      StrataZoomItem *out = chunk->items;
      SpillReader reader;
      guint s = 0;

      item_stream_begin (&stream, packer);
      spill_reader_init (&reader, level, self->spill_windows);

      closed_iter_init (&it, level);
      while (read_ok && closed_iter_next (&it, &v))
        {
          /* Only the channels stored. A lane's items spilled from the
           * pool come first, in the order they were made. */
          while (s < spans->len && stored[s].channel < v.lane.channel)
            s++;
          if (s == spans->len || stored[s].channel != v.lane.channel)
            continue;
          for (guint r = 0; r < v.lane.n_runs && read_ok; r++)
            read_ok = spill_reader_copy (&reader, &v.runs[r], &stream, &out);
          for (const Segment *seg = v.mem != NULL ? v.mem->first_seg : NULL; seg != NULL; seg = seg->next)
            if (seg->n > 0 && stream.stream != NULL)
              item_stream_add (&stream, seg->items, seg->n);
            else if (seg->n > 0)
              {
                memcpy (out, seg->items, seg->n * sizeof (StrataZoomItem));
                out += seg->n;
              }
        }
      read_ok = read_ok && !it.failed;
      closed_iter_clear (&it);
      spill_reader_clear (&reader);
      if (stream.stream != NULL)
        chunk->first_block = strata_block_stream_end (stream.stream, NULL);
      else if (read_ok)
        g_assert (out == chunk->items + n_items);
      chunk_take_spans (self, &stream, read_ok ? chunk : NULL, stored);

      if (read_ok)
        {
          g_rw_lock_writer_lock (&self->lock);
          g_ptr_array_add (level->chunks, chunk);
          chunk_count (self, chunk);
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
            g_array_append_val (d.channels, g_array_index (spans, ChannelSpan, k).channel);
          g_array_append_val (level->deferred, d);
        }
    }

  lanes_release (level);
  pool_reset (level);
  g_array_set_size (level->runs, 0);
  g_array_set_size (level->pages, 0);
  g_array_set_size (level->spill_starts, 0);
  level->spill_end = 0;

  level->chunk = -1;
  level->chunk_active = FALSE;
}

/* Offers one piece, already clipped to the level's chunk, to its lane. A
 * piece that a buffer cut split from its beginning is joined to it first,
 * so the triviality rule sees the activity's whole length in the chunk. */
static inline void
lane_offer (Level                *level,
            Lane                 *lane,
            const StrataActivity *piece)
{
  if (lane->has_held)
    {
      if ((lane->held.flags & STRATA_ACTIVITY_FLAG_CONTINUES_AFTER) &&
          (piece->flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE) &&
          lane->held.end == piece->start)
        {
          lane->held.end = piece->end;
          lane->held.flags = (lane->held.flags & ~STRATA_ACTIVITY_FLAGS_END_SIDE) |
                             (piece->flags & STRATA_ACTIVITY_FLAGS_END_SIDE);
          return;
        }
      if (level->counting)
        {
          lane->n_items += strata_aggregate_run_count (&lane->run, &lane->held);
          lane->n_members++;
          lane->starts |= !(lane->held.flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE);
        }
      else
        {
          lane_room (level, lane);
          strata_aggregate_run_offer_vec (&lane->run, &lane->held, &lane->items);
        }
    }

  lane->held = *piece;
  lane->has_held = TRUE;
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
static void
level_consume (StrataZoomTree *self,
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
      level_finish_chunk (self, level);
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
      Decision d = level->chunk == index || self->pipelined ? DECISION_DENSE : decide (self, rank, index);

      g_assert (d != DECISION_UNKNOWN);

      if (level->chunk != index)
        {
          level_finish_chunk (self, level);

          if (d == DECISION_SPARSE)
            {
              guint p = rank;

              while (p > 0 && decide (self, p - 1, strata_zoom_geometry_chunk_index (&self->ranks, p - 1, t)) == DECISION_SPARSE)
                p--;
              remember (self, rank, index, d);
              t = MIN (e, chunk_end (self, p, t));
              continue;
            }

          if (!self->pipelined)
            remember (self, rank, index, d);
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
        level_finish_chunk (self, level);
      t = seg_end;
    }

  /* The lanes of channels that get nothing after this buffer: their
   * output in the chunk is final, their states free. */
  if (level->chunk >= 0 && level->touched->len > 0)
    for (guint i = 0; i < buffer->closes->len; i++)
      {
        Lane *lane = find_lane (self, level, g_array_index (buffer->closes, guint32, i));

        if (lane != NULL)
          lane_close (self, level, lane);
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
      Decision d = top < (gint)self->n_ranks ? DECISION_SPARSE : decide (self, r, index);

      if (d == DECISION_UNKNOWN)
        {
          /* Known for sure once the horizon passes the chunk's end. */
          self->wait_horizon = MIN (self->wait_horizon, chunk_end (self, r, b));
          return -1;
        }
      remember (self, r, index, d);
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
  guint i = lower_bound_gint64 (self->starts, self->starts_head, b) + n;

  if (i >= self->starts->len)
    return -1;
  if (g_array_index (self->starts, gint64, i) > b)
    return g_array_index (self->starts, gint64, i);

  i = lower_bound_gint64 (self->starts, i, b + 1);
  return i < self->starts->len ? g_array_index (self->starts, gint64, i) : -1;
}

/* Where the buffer that starts at the cut ends, or -1 if that is not
 * known yet. */
static gint64
next_cut (StrataZoomTree *self,
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
        e = chunk_end (self, top, b);
      else
        {
          gint64 c = count_cut (self, b, self->params.density_threshold);

          e = chunk_end (self, self->n_ranks - 1, b);
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
      if (decide (self, r, strata_zoom_geometry_chunk_index (&self->ranks, r, e - 1)) == DECISION_UNKNOWN)
        return -1;

  return e;
}

/* The levels' share of an adaptive buffer, a rank at a time: where a
 * rank's chunk changes, where it ends, and the lanes that close. */
static void
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
      level_finish_chunk (self, level);
      return;
    }
  if (level->chunk == index)
    return;

  level_finish_chunk (self, level);
  g_assert (self->pipelined || decide (self, rank, index) == DECISION_DENSE);
  if (!self->pipelined)
    remember (self, rank, index, DECISION_DENSE);
  level->chunk = index;
  level->chunk_active = index != level->first_chunk;
  /* Where the level's last chunk did not pay, it is likely this one will
   * not either: count it only (level_finish_count()). */
  level->counting = level->chunk_active && level->last_plain;
}

static void
adaptive_end (StrataZoomTree *self,
              guint           rank,
              const Buffer   *buffer)
{
  Level *level = &self->levels[rank];

  if (level->chunk >= 0 &&
      buffer->e == strata_zoom_geometry_chunk_start (&self->ranks, rank, level->chunk + 1))
    level_finish_chunk (self, level);

  /* The lanes of channels that get nothing after this buffer: their
   * output in the chunk is final, their states free. */
  if (level->chunk >= 0 && level->touched->len > 0)
    for (guint i = 0; i < buffer->closes->len; i++)
      {
        Lane *lane = find_lane (self, level, g_array_index (buffer->closes, guint32, i));

        if (lane != NULL)
          lane_close (self, level, lane);
      }
}

/* Every level consumes the buffer. An adaptive buffer lies inside one
 * chunk of every active rank, so its pieces go to every such rank in one
 * walk: each piece's lane is found once, and its states at the ranks are
 * at one slot of each (the ranks are independent, so this is what each
 * consuming the buffer in turn would make). The fixed criteria, whose
 * buffers can cross chunks, run the ranks in turn. */
static void
consume (StrataZoomTree *self,
         const Buffer   *buffer)
{
  const StrataActivity *pieces = (const StrataActivity *)(gpointer) buffer->pieces->data;
  const guint32 *ids = (const guint32 *)(gpointer) buffer->lanes->data;
  Level *active[MAX_RANKS];
  guint n_active = 0, n = buffer->pieces->len;

  if (self->params.buffer_criterion != STRATA_BUFFER_ADAPTIVE)
    {
      for (guint r = 0; r < self->n_ranks; r++)
        level_consume (self, r, buffer);
      return;
    }

  for (guint r = 0; r < self->n_ranks; r++)
    {
      adaptive_begin (self, r, buffer);
      if ((gint) r < buffer->stack_top && self->levels[r].chunk_active)
        active[n_active++] = &self->levels[r];
    }

  if (n_active > 0)
    for (guint i = 0; i < n; i++)
      {
        guint32 slot = slot_for (self, ids[i]);

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

  return NULL;
}

/* The pipeline: the buffer former and the kernel model in the caller's
 * thread, the levels in this one, up to N_BUFFERS buffers behind. Only
 * with adaptive buffers (the levels then need none of the former's
 * decisions, see level_consume()), one aggregator, and no buffer function
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
static void
stop_aggregator (StrataZoomTree *self)
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

      for (guint l = 0; l < N_LANES; l++)
        {
          guint32 id = lane_id_known (self, channel, l);

          if (id != 0)
            {
              id--;
              g_array_append_val (buffer->closes, id);
            }
        }
      /* A page of ids whose channels have all closed is not asked again
       * (a closed channel gets no more activities). */
      if (page >= self->ids_closed->len)
        g_array_set_size (self->ids_closed, page + 1);
      if (++g_array_index (self->ids_closed, guint16, page) == LANE_ID_PAGE && page < self->lane_ids->len)
        g_clear_pointer (&g_ptr_array_index (self->lane_ids, page), g_free);
    }
  if (self->closing_head == self->closing->len)
    {
      g_array_set_size (self->closing, 0);
      self->closing_head = 0;
    }
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

    g_array_set_size (self->buffer->pieces, np + no);
    g_array_set_size (self->buffer->lanes, np + no);
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
            lanes[n] = lane_id (self, out[n].channel, strata_zoom_lane_of (&out[n]));
            n++;
          }
      }
    g_array_set_size (self->buffer->pieces, n);
    g_array_set_size (self->buffer->lanes, n);
    n_pieces = n;
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
  self->starts_head = lower_bound_gint64 (self->starts, self->starts_head, e);
}

/* Makes the activities that arrived since the last advance visible to
 * queries. */
static void
publish_incoming (StrataZoomTree *self)
{
  if (self->n_published == self->incoming->len && self->sealing->len == 0)
    return;

  g_rw_lock_writer_lock (&self->lock);
  for (guint i = self->n_published; i < self->incoming->len; i++)
    {
      const StrataActivity *a = &g_array_index (self->incoming, StrataActivity, i);

      strata_raw_store_add (a, self->raw);
      self->first = MIN (self->first, a->start);
      self->last = MAX (self->last, last_point (a));
    }
  /* Every activity of a closed channel came before its close, so it is
   * in the store now: its records can leave memory. */
  for (guint i = 0; i < self->sealing->len; i++)
    strata_raw_store_close_channel (self->raw, g_array_index (self->sealing, guint32, i));
  g_array_set_size (self->sealing, 0);
  g_rw_lock_writer_unlock (&self->lock);

  self->n_published = self->incoming->len;
}

typedef struct
{
  guint64 key;    /* start - the earliest start */
  guint32 index;
  guint32 unused;
} SortKey;

G_STATIC_ASSERT (sizeof (SortKey) == 16);

#define RADIX_BITS 11
#define RADIX      (1u << RADIX_BITS)

/* A stable sort of @array by start. The model hands activities over in
 * the order they end, which is far from start order (a batch of 5000 had
 * some 1800 runs in order), and the generic sort, a call per comparison,
 * was a tenth of the index pass. So: a least-significant-digit radix sort
 * of (start, index) pairs, 11 bits a pass and only as many passes as the
 * batch's span of starts needs, then one gather. Radix passes are stable,
 * so activities that start together keep the order they came in. */
static void
sort_by_start (GArray *array,
               GArray *scratch,
               GArray *keys_a,
               GArray *keys_b)
{
  const StrataActivity *src = (const StrataActivity *)(gconstpointer)array->data;
  guint n = array->len;
  gint64 lo = G_MAXINT64, hi = G_MININT64;
  gboolean sorted = TRUE;
  SortKey *a, *b;
  guint32 counts[RADIX];

  if (n < 2)
    return;

  for (guint i = 0; i < n; i++)
    {
      lo = MIN (lo, src[i].start);
      hi = MAX (hi, src[i].start);
      sorted &= i == 0 || src[i].start >= src[i - 1].start;
    }
  if (sorted)
    return;

  g_array_set_size (keys_a, n);
  g_array_set_size (keys_b, n);
  a = (SortKey *)(gpointer)keys_a->data;
  b = (SortKey *)(gpointer)keys_b->data;
  for (guint i = 0; i < n; i++)
    {
      a[i].key = (guint64) (src[i].start - lo);
      a[i].index = i;
    }

  for (guint shift = 0; shift < 64 && ((guint64) (hi - lo) >> shift) != 0; shift += RADIX_BITS)
    {
      guint32 sum = 0;
      SortKey *t;

      memset (counts, 0, sizeof counts);
      for (guint i = 0; i < n; i++)
        counts[(a[i].key >> shift) & (RADIX - 1)]++;
      if (counts[(a[0].key >> shift) & (RADIX - 1)] == n)
        continue;  /* one digit for all: the order stays */
      for (guint d = 0; d < RADIX; d++)
        {
          guint32 c = counts[d];

          counts[d] = sum;
          sum += c;
        }
      for (guint i = 0; i < n; i++)
        b[counts[(a[i].key >> shift) & (RADIX - 1)]++] = a[i];
      t = a;
      a = b;
      b = t;
    }

  g_array_set_size (scratch, n);
  {
    StrataActivity *dst = (StrataActivity *)(gpointer)scratch->data;

    for (guint i = 0; i < n; i++)
      dst[i] = src[a[i].index];
    memcpy (array->data, dst, n * sizeof (StrataActivity));
  }
}

/* Hands them to the buffer former: into pending, in start order. */
static void
take_incoming (StrataZoomTree *self)
{
  publish_incoming (self);
  if (self->incoming->len == 0)
    return;

  /* Stable sort and merge: instants at one time keep the order they were
   * recorded in, as in the raw store. */
  sort_by_start (self->incoming, self->sort_scratch, self->sort_keys, self->sort_keys2);
  {
    const StrataActivity *p = (const StrataActivity *)(gpointer)self->pending->data;
    const StrataActivity *n = (const StrataActivity *)(gpointer)self->incoming->data;
    guint np = self->pending->len, nn = self->incoming->len, i = 0, j = 0;
    StrataActivity *out;
    GArray *tmp;
    guint k = 0;

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

static void
form_buffers (StrataZoomTree *self)
{
  gboolean delivered = FALSE;

  if (!self->started)
    {
      gint64 first = G_MAXINT64;

      if (self->pending->len > 0)
        first = g_array_index (self->pending, StrataActivity, 0).start;
      for (guint i = 0; i < self->open->len; i++)
        first = MIN (first, g_array_index (self->open, StrataActivity, i).start);

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
      e = next_cut (self, &stack_top);
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

  publish_incoming (self);

  g_rw_lock_writer_lock (&self->lock);
  g_array_set_size (self->open, 0);
  if (foreach_open != NULL)
    foreach_open (source, collect_open, self);
  g_array_set_size (self->open_by_start, 0);
  g_array_append_vals (self->open_by_start, self->open->data, self->open->len);
  g_array_sort (self->open_by_start, by_start);
  g_array_sort (self->open, by_channel);
  self->horizon = MAX (self->horizon, horizon);
  g_rw_lock_writer_unlock (&self->lock);

  if (self->pending->len + self->incoming->len < self->retry_size &&
      self->horizon < self->wait_horizon)
    return;

  take_incoming (self);
  self->wait_horizon = G_MAXINT64;
  form_buffers (self);
}

/* Chunk @index of @rank computed from the raw store, with the on-demand
 * code, over @channels (all when %NULL); %NULL when it is not dense (if
 * @count_starts) or aggregation does not pay. */
static Chunk *
compute_stored_chunk (StrataZoomTree *self,
                      guint           rank,
                      gint64          index,
                      GArray         *channels,
                      gboolean        count_starts)
{
  Level *level = &self->levels[rank];
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (ChannelSpan));
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GArray) channel_items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  guint n_channels = channels != NULL ? channels->len : strata_raw_store_get_n_channels (self->raw);
  StrataBlockPacker *packer = chunk_spill_target (self);
  ItemStream stream;
  guint64 n_starts = 0, members = 0, first_block = 0;
  guint n_items = 0;
  Chunk *chunk;

  item_stream_begin (&stream, packer);

  /* A chunk that spills streams its items to the packer as they are
   * computed (the first chunks are the biggest: every channel over the
   * whole trace at the coarse levels); one found not dense or not worth
   * storing after all leaves its blocks unused in the spill file. */
  for (guint i = 0; i < n_channels; i++)
    {
      guint32 c = channels != NULL ? g_array_index (channels, guint32, i) : i;

      g_array_set_size (channel_items, 0);
      n_starts += strata_zoom_compute_chunk_full (self->raw, NULL, 0, &self->ranks, rank,
                                                  index, c, channel_items);
      assemble_channel (spans, items, &stream, &n_items, &members, c,
                        (const StrataZoomItem *)(gpointer)channel_items->data, channel_items->len);
    }
  if (stream.stream != NULL)
    first_block = strata_block_stream_end (stream.stream, NULL);

  if (count_starts && n_starts < self->params.density_threshold)
    {
      chunk_take_spans (self, &stream, NULL, NULL);
      return NULL;
    }
  if (!worth_storing (self, spans->len, n_items, members))
    {
      level->n_plain++;
      chunk_take_spans (self, &stream, NULL, NULL);
      return NULL;
    }

  chunk = chunk_alloc (self, index, spans->len, n_items, packer);
  if (packer != NULL)
    chunk->first_block = first_block;
  else
    memcpy (chunk->items, items->data, (gsize) n_items * sizeof (StrataZoomItem));
  chunk_take_spans (self, &stream, chunk, (const ChannelSpan *)(gpointer) spans->data);
  chunk->at_end = TRUE;
  chunk_count (self, chunk);
  return chunk;
}

/* The inverse of chunk_count(), for a chunk that is let go. */
static void
chunk_uncount (StrataZoomTree *self,
               const Chunk    *chunk)
{
  self->size -= chunk_size (chunk);
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

  chunk = compute_stored_chunk (self, rank, level->first_chunk, NULL, TRUE);
  if (chunk != NULL)
    g_ptr_array_insert (level->chunks, 0, chunk);
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
      /* Without its channels (its count was lost), it is decided here. */
      Chunk *chunk = compute_stored_chunk (self, rank, d->index, d->channels, d->channels == NULL);

      /* Counted as worth storing, so it is. */
      g_assert (chunk != NULL || d->channels == NULL);
      if (chunk != NULL)
        g_ptr_array_add (level->chunks, chunk);
      g_clear_pointer (&d->channels, g_array_unref);
    }
  g_array_set_size (level->deferred, 0);
  g_ptr_array_sort (level->chunks, by_chunk_index);
}

static guint
root_rank (StrataZoomTree *self)
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

  take_incoming (self);
  g_rw_lock_writer_lock (&self->lock);
  g_array_set_size (self->open, 0);
  g_array_set_size (self->open_by_start, 0);
  self->horizon = G_MAXINT64;
  self->finished = TRUE;
  g_rw_lock_writer_unlock (&self->lock);

  form_buffers (self);
  stop_aggregator (self);

  for (guint r = 0; r < self->n_ranks; r++)
    {
      level_finish_chunk (self, &self->levels[r]);
      if (self->levels[r].pool_peak > 0)
        g_debug ("zoom tree: rank %u: pool peak %" G_GSIZE_FORMAT " bytes, %" G_GUINT64_FORMAT
                 " spills of %" G_GUINT64_FORMAT " items in all",
                 r, self->levels[r].pool_peak, self->levels[r].n_pool_spills,
                 self->levels[r].pool_spilled);
    }

  root = root_rank (self);
  g_rw_lock_writer_lock (&self->lock);
  for (guint r = self->hint_root; r < root; r++)
    level_drop (self, &self->levels[r]);
  for (guint r = 0; r < self->n_ranks; r++)
    compute_deferred_chunks (self, r);
  for (guint r = root; r < self->n_ranks; r++)
    compute_first_chunk (self, r);
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
  release_build_state (self);
}

/* The builder's state, once the tree is finished: nothing of it is read
 * again (the queries read the chunks, the raw store and the open
 * activities, emptied), and the index is written after, the pass's peak:
 * the levels' pools (a few MB each), lane states and scratch arrays, the
 * buffers and the lane ids (a page per 1 024 channels). */
static void
release_build_state (StrataZoomTree *self)
{
  GArray **arrays[] = { &self->pending, &self->merge, &self->sort_scratch, &self->sort_keys,
                        &self->sort_keys2, &self->starts, &self->closing, &self->sealing };

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
      g_array_set_size (level->spans, 0);
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
  g_array_set_size (self->ids_closed, 0);
  self->closing_head = 0;
  g_array_unref (self->slot_of);
  self->slot_of = g_array_new (FALSE, TRUE, sizeof (guint32));
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

static void
current_geometry (StrataZoomTree     *self,
                  StrataZoomGeometry *g,
                  guint              *root)
{
  *root = root_rank (self);
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

/* The pages of lane ids held (a page whose channels have all closed is
 * let go), for the tests. */
guint
strata_zoom_tree_get_n_lane_id_pages (StrataZoomTree *self)
{
  guint n = 0;

  g_return_val_if_fail (self != NULL, 0);

  for (guint p = 0; p < self->lane_ids->len; p++)
    n += g_ptr_array_index (self->lane_ids, p) != NULL;
  return n;
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

  /* Pipelined, the levels are the aggregator thread's until the finish. */
  if (self->aggregator != NULL)
    {
      g_message ("zoom tree at %s: the levels are busy in their own thread", where);
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

  g_rw_lock_reader_lock (&self->lock);
  current_geometry (self, geometry, &root);
  g_rw_lock_reader_unlock (&self->lock);

  return self->first <= self->last;
}

/* The level, in the geometry as it stands, of a rank given to a
 * #StrataZoomBufferFunc; G_MAXUINT for a rank coarser than level 0. */
guint
strata_zoom_tree_level_of_rank (StrataZoomTree *self,
                                guint           rank)
{
  guint root = root_rank (self);

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
static gboolean
mapped_chunk (StrataZoomTree *self,
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

static guint
level_n_chunks (Level *level)
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
 * (chunk_piece_unref()). NULL if it cannot be read back or fails its
 * checksum: then the chunk is answered as a damaged one of an index is,
 * computed from the raw store, never from spans that may be wrong. */
static ChunkPiece *
chunk_piece_get (StrataZoomTree *self,
                 const Chunk    *chunk,
                 gboolean        cache)
{
  gsize size = chunk_piece_size (chunk);
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
    chunk_piece_unref (evicted[i]);

  return piece;
}

/* Copies @stored into @out with its spans, keys and lane changes where
 * they can be read: in place, or a spilled chunk's in its piece read
 * back (through the cache if @cache), held by @out until
 * chunk_release(). The one way to a stored chunk's spans. FALSE (nothing
 * held) if the piece cannot be read. */
static gboolean
chunk_resolve (StrataZoomTree *self,
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

/* Drops what a copy made by chunk_resolve() (or find_chunk()) holds. */
static void
chunk_release (Chunk *chunk)
{
  g_clear_pointer (&chunk->piece, chunk_piece_unref);
}

/* The pre-calculated chunk @index of @level, in place (chunk_resolve():
 * the caller drops it with chunk_release()): FALSE if there is none (or,
 * mapped from an index or spilled, it is damaged: the query then computes
 * it from the raw store, as it would a chunk never stored). */
static gboolean
find_chunk (StrataZoomTree *self,
            Level          *level,
            gint64          index,
            Chunk          *out)
{
  guint lo = 0, hi = level_n_chunks (level);

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
            return mapped_chunk (self, level, mid, out);
        }
      else
        {
          Chunk *chunk = g_ptr_array_index (level->chunks, mid);

          at = chunk->index;
          if (at == index)
            return chunk_resolve (self, chunk, TRUE, out);
        }
      if (at < index)
        lo = mid + 1;
      else
        hi = mid;
    }

  return FALSE;
}

static const ChannelSpan *
find_span (const Chunk *chunk,
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

  g_rw_lock_reader_lock (&self->lock);
  current_geometry (self, &g, &root);
  if (level < g.n_levels)
    {
      Level *l = &self->levels[root + level];

      for (guint i = 0; i < level_n_chunks (l); i++)
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
            .size = chunk_size (chunk),
            .at_end = chunk->at_end,
          };

          g_array_append_val (out, info);
        }
    }
  g_rw_lock_reader_unlock (&self->lock);

  return out;
}

/* Dense chunks of @level that are not stored because aggregation would not
 * have halved their items: the query computes them from the raw store. */
guint
strata_zoom_tree_get_n_plain_chunks (StrataZoomTree *self,
                                     guint           level)
{
  StrataZoomGeometry g;
  guint root, n = 0;

  g_return_val_if_fail (self != NULL, 0);

  g_rw_lock_reader_lock (&self->lock);
  current_geometry (self, &g, &root);
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

  g_rw_lock_reader_lock (&self->lock);
  current_geometry (self, &g, &root);
  if (level < g.n_levels && find_chunk (self, &self->levels[root + level], index, &chunk))
    {
      span = find_span (&chunk, channel);
      if (span != NULL && !chunk_append_span (&chunk, span, out))
        span = NULL;
      chunk_release (&chunk);
    }
  g_rw_lock_reader_unlock (&self->lock);

  return span != NULL;
}


static gboolean
item_overlaps (const StrataZoomItem *item,
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

  g_rw_lock_reader_lock (&self->lock);
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
};

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

      if (by_channel (&g_array_index (self->open, StrataActivity, mid), &key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  open = &g_array_index (self->open, StrataActivity, lo);
  while (lo + *n_open < self->open->len && open[*n_open].channel == channel)
    (*n_open)++;

  return open;
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

  g_rw_lock_reader_lock (&self->lock);

  current_geometry (self, &g, &root);
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
      Chunk *chunk = find_chunk (self, l, index, &found) ? &found : NULL;

      if (stats != NULL)
        {
          stats->n_chunks++;
          stats->n_precomputed += chunk != NULL;
        }

      for (guint c = 0; c < n_channels; c++)
        {
          guint32 channel = channels != NULL ? channels[c] : c;
          const ChannelSpan *cs = chunk != NULL ? find_span (chunk, channel) : NULL;
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
              strata_zoom_compute_window (self->raw, open, n_open, &g, level, index, channel,
                                          from, to, result->scratch);
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
        chunk_release (chunk);
    }

out:
  g_rw_lock_reader_unlock (&self->lock);

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
    g_array_sort (result->spans, by_span_channel);
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
        if (item_overlaps (&span->items[k], from, to))
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
  return level_n_chunks (&self->levels[rank]);
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
  Chunk chunk;

  g_return_val_if_fail (rank < self->n_ranks && i < level_n_chunks (level), FALSE);

  view->hold = NULL;
  /* The writer writes built trees: a mapped one has its items packed. */
  if (level->record_state != NULL)
    return FALSE;
  if (!chunk_resolve (self, g_ptr_array_index (level->chunks, i), FALSE, &chunk))
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
  g_clear_pointer (&view->hold, chunk_piece_unref);
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
  g_rw_lock_reader_lock (&self->lock);
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
