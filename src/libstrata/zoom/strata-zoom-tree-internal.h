/* strata-zoom-tree-internal.h
 *
 * What the files of the zoom tree share and nothing else includes: the
 * tree's structure (its levels, their lanes, pools and chunks, the
 * buffers on their way to the levels) and the functions one file of it
 * calls in another. strata-zoom-tree.c says how the pass works.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-block-packer.h"
#include "strata-checked-array.h"
#include "strata-index-layout.h"
#include "strata-index-map.h"
#include "strata-packed-array.h"
#include "strata-raw-publisher.h"
#include "strata-raw-store.h"
#include "strata-spilled-array.h"
#include "strata-zoom-tree.h"
#include "strata-zoom-tree-private.h"

G_BEGIN_DECLS

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
 * own (strata_zoom_tree_level_spill()) and are read back, lane by lane, when the chunk is
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
   * as the index lays them out (strata_zoom_tree_chunk_take_spans()), and the record keeps
   * where, its checksum and the counts above (channels, keys and changes
   * NULL). A copy of the record made to read the chunk (strata_zoom_tree_chunk_resolve())
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
 * (strata_zoom_tree_level_spill()): n items at offset, encoded as
 * strata-spill-record.h says (their bytes are not kept: a run's record
 * goes to pages that are written and merged by the million, and 24 bytes
 * a record instead of 16 cost more than the encoding saved), what they count for the chunk's
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

/* A lane's state at one level, on cache lines of its own (its level's
 * blocks of them are aligned on LANE_LINE): every piece that is not
 * covered whole by its buffer is offered to the state of its lane at
 * every active level (about nine on the dense shape), each a cache miss,
 * so what an offer reads is on two lines and the rest apart. The first
 * line is the lane's, the second the run's part that decides (its open
 * item and threshold); a merge reads the run's candidates on the third
 * too. 208 bytes laid out as they came took three lines an offer, and
 * their misses were two thirds of the levels' walk (consume()). */
#define LANE_LINE 64

typedef struct
{
  /* Line 0: the held piece, the counts a counting level keeps, and the
   * vector the aggregator writes into. */
  StrataActivity     held;      /* last piece, may continue in the next buffer */
  guint8             has_held;
  guint8             counting;  /* counted, not aggregated (level_count_poor_lanes()) */
  guint8             starts;    /* counting */
  guint8             lane;
  guint32            n_items;   /* counting: what its items would be */
  StrataZoomItemVec  items;
  guint64            n_members;
  /* Line 1: the run's hot part (strata-aggregator.h); then its cold
   * part and the lane's bookkeeping. */
  StrataAggregateRun run;
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
  gboolean           touched;
} __attribute__ ((aligned (LANE_LINE))) Lane;

G_STATIC_ASSERT (sizeof (StrataActivity) == 32);
G_STATIC_ASSERT (G_STRUCT_OFFSET (Lane, n_members) + 8 == LANE_LINE);
G_STATIC_ASSERT (G_STRUCT_OFFSET (Lane, run) == LANE_LINE);
G_STATIC_ASSERT (G_STRUCT_OFFSET (StrataAggregateRun, n_keys) + 4 == LANE_LINE);
G_STATIC_ASSERT (sizeof (Lane) % LANE_LINE == 0);

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
  guint8   counted;     /* in a chunk that was aggregated: from its switch on (runs before) */
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
  guint8  counted;      /* ClosedLane.counted */
  guint8  reserved;
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
  /* A chunk whose proof of plainness failed (strata-zoom-plain.c):
   * @channels are those that may pay (NULL: any), decided at the end;
   * whole_excluded, the proof showed it is not worth storing whole. */
  guint8  doubtful;
  guint8  whole_excluded;
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
  guint64    n_takes;        /* strata_zoom_tree_take_lane() calls, in all */
  guint64    n_takes_asked;  /* of which the walk has prefetched the state (prefetch_lanes()) */
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
  GArray    *pages;          /* ClosedPage, of the open chunk (strata_zoom_tree_closed_page_out()) */
  guint      page_lanes;     /* CLOSED_PAGE_LANES, or what the environment says */
  guint64    n_pages;        /* written, in all, merges too */
  guint64    paged;          /* lanes written in them */
  guint64    n_runs_pages;   /* of which pages of every lane's runs (runs_page_out()) */
  guint64    runs_made;      /* PoolRun records made, in all */
  gsize      runs_peak;      /* the most bytes of them held */
  guint      spill_lanes_peak; /* the most runs one spill made */
  guint      closed_peak;    /* the most closed lanes held in memory */
  GArray    *spill_io;       /* guint8, the buffer the spills go through */
  GArray    *spill_starts;   /* guint64: where each spill of the open chunk begins */
  GArray    *spill_order;    /* guint64: the lanes a spill writes, in its order (spill_key()) */
  GPtrArray *touched;        /* Lane *, open in the current chunk */
  gint64     chunk;          /* index being aggregated, or -1 */
  gint64     consumed_e;     /* the end of the last adaptive buffer it consumed (consume()) */
  gboolean   chunk_active;
  gboolean   counting;       /* the chunk is only counted (see level_count) */
  /* Lanes of an aggregated chunk that go on counted from a spill on
   * (strata_zoom_tree_level_count_poor_lanes()): */
  guint      min_reduction;  /* the tree's parameter */
  gboolean   no_switch;      /* not in this level any more: one did not pay off */
  guint      chunk_switched; /* lanes switched in the open chunk */
  guint64    n_switched;     /* in all */
  guint64    n_switch_deferred; /* chunks computed at the end for it */
  gboolean   last_plain;     /* the previous chunk was not worth storing */
  /* The chunk proven plain instead of counted (strata-zoom-plain.c): */
  gboolean   proving;
  gint64     proof_start;    /* the chunk's start */
  guint64    proof_starts;   /* activities starting in it */
  guint64    proof_doubts;   /* of which may join the one before in their lane */
  GArray    *proof_channels; /* guint32, the channels of the doubtful ones */
  GArray    *proof_starting; /* guint32, the channels with a start in it */
  gboolean   proof_any;      /* too many of either to list: any channel */
  guint      proof_fails;    /* proofs failed in a row */
  guint      proof_wait;     /* chunks counted before the next proof */
  guint      last_starting;  /* channels with a start in its last counted or proven chunk */
  guint64    last_members;   /* their members there (a proven chunk's: its starts) */
  gint64     proof_credit;   /* channels its failed proofs may still read from the raw store */
  guint64    n_proven;       /* chunks proven plain, in all */
  guint64    n_proofs_failed;
  GArray    *deferred;       /* Deferred */
  gint64     first_chunk;    /* computed from the raw store at the end */
  gint64     memo_index;     /* the latest decision */
  Decision   memo;
  GPtrArray *chunks;         /* Chunk *, by index */
  guint      n_plain;        /* dense chunks where aggregation did not pay */
  StrataSpilledArray *spans; /* ChannelSpan, scratch: one a channel at a coarse level's end */
  GArray    *span_pays;      /* guint8 by span of spans, scratch: strata_zoom_tree_channel_pays() */

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
  guint   room;       /* the most pieces it was sized for since it was made */
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
  StrataParameters     parameters;  /* params.parameters points here */
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
  GArray              *open;      /* StrataActivity, by channel: what the queries see */
  GArray              *open_next; /* the same, collected at an advance, to publish */
  GArray              *open_by_start;
  StrataRawPublisher  *publisher; /* the publishing steps' thread, when pipelined */
  GArray              *merge;     /* scratch for merging into pending */
  GArray              *sort_scratch; /* StrataActivity, for sort_by_start() */
  GArray              *sort_keys;    /* SortKey, the same */
  GArray              *starts;    /* gint64, known starts from the cut on */
  guint                starts_head;
  guint                stream_room; /* the most activities the arrays above were sized
                                     * for since they were made (trim_stream()) */
  Buffer              *buffer;    /* the buffer being delivered */
  Buffer               buffers[N_BUFFERS];
  GArray              *closing;   /* ChannelClose, not delivered yet */
  GArray              *sealing;   /* guint32: channels closed, for the raw store */
  guint                closing_head;
  GPtrArray           *lane_ids;  /* pages of LANE_ID_PAGE channels (or NULL): guint32 by
                                   * channel's place * N_LANES + lane: id + 1, or 0 */
  GArray              *ids_open;  /* guint16 per page: its channels with a lane id
                                   * and not closed */
  guint32              n_lane_ids;

  /* The levels' side of the lane ids (the thread that runs the levels
   * alone touches them): the slot where each id's states are, while a
   * level has the lane open (slot + 1 by id, 0: none), how many levels
   * have each slot's lane open, and the slots free again. */
  StrataSpilledArray  *slot_of;     /* guint32 by lane id: in a spill file, the
                                     * ids of lanes closed long ago let go of
                                     * (a million threads, 2-3 ids each) */
  GArray              *slot_refs;   /* guint32 by slot */
  gint64               proof_origin; /* + 1: the first buffer's start the levels saw, 0: none */
  StrataSpilledArray  *last_start;  /* gint64 by lane id: the last activity start a
                                     * proof saw (strata-zoom-plain.c), 0: none */
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

  /* Chunks spilled during the pass (strata_zoom_tree_chunk_alloc(), strata_zoom_tree_chunk_count()): once
   * the items kept in memory reach spill_from bytes, a finished chunk's
   * items go to the packer, which packs them on a thread of its own and
   * appends them to its file; the chunk keeps its record, its spans
   * going to the file after its items (strata_zoom_tree_chunk_take_spans()). */
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

  /* The spilled chunks' pieces read back last (strata_zoom_tree_chunk_resolve()), most
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

/* The id of @channel's lane @l: ids are dense, in the order lanes are
 * first seen, found once per piece for every level (following two
 * pointers per piece and level to lanes scattered over the heap was half
 * of the aggregators' time, in cache misses); a level's states are in a
 * few blocks, in the order its chunk first touched them. */
/* A page of ids is small (64 channels, 4.4 kB) because one channel
 * with lanes still open keeps its whole page: following a recording of
 * `perf bench sched messaging` in a loop, pages of 1 024 channels
 * (70 kB) were kept for about half of them even once the processes'
 * channels no longer kept them all (bench/RESULTS-live.md, livemem). */
#define LANE_ID_PAGE_BITS 6
#define LANE_ID_PAGE      (1u << LANE_ID_PAGE_BITS)

/* Where a chunk that spills streams its items, in the index's blocks,
 * and the keys and lane changes of those items (a query bisects over
 * them). */
typedef struct
{
  StrataBlockStream    *stream;   /* NULL: the chunk keeps its items */
  StrataIndexChunkKeys  keys;
} ItemStream;

/* Reads a chunk's runs back from its level's spill file, in the order
 * the chunk is assembled: each spill wrote its lanes in that order, so
 * within one spill the runs come in file order, and a window per spill,
 * read at the first run that falls outside it, serves the runs after it.
 * The windows share the tree's spill_windows bytes (SPILL_WINDOWS, or
 * STRATA_ZOOM_SPILL_WINDOWS in the environment), each between the bytes
 * of 64 items unencoded and SPILL_IO. A run is read again at its start
 * unless the window holds its most bytes (STRATA_SPILL_RECORD_MAX_ITEM an
 * item) or the rest of its spill, and by itself if it can be bigger than
 * a window. */
typedef struct
{
  Level   *level;
  guint8  *bytes;      /* n windows of window bytes */
  guint64 *at;         /* where window s is in the file (G_MAXUINT64: empty) */
  gsize   *len;        /* and how much of it was read */
  gsize    window;
  guint    n;
} SpillReader;

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

/* strata-zoom-tree.c */
gpointer
strata_zoom_tree_arena_alloc (StrataZoomTree *self,
                              gsize           size);
void
strata_zoom_tree_release_build_state (StrataZoomTree *self);
void
strata_zoom_tree_current_geometry (StrataZoomTree     *self,
                                   StrataZoomGeometry *g,
                                   guint              *root);
gboolean
strata_zoom_tree_mapped_chunk (StrataZoomTree *self,
                               Level          *level,
                               guint           i,
                               Chunk          *out);

/* strata-buffer-former.c */
int
strata_zoom_tree_by_channel (gconstpointer pa,
                             gconstpointer pb);
guint
strata_zoom_tree_lower_bound_gint64 (GArray *array,
                                     guint   head,
                                     gint64  t);
gint64
strata_zoom_tree_chunk_end (StrataZoomTree *self,
                            guint           rank,
                            gint64          t);
Decision
strata_zoom_tree_decide (StrataZoomTree *self,
                         guint           rank,
                         gint64          index);
void
strata_zoom_tree_remember (StrataZoomTree *self,
                           guint           rank,
                           gint64          index,
                           Decision        decision);
void
strata_zoom_tree_stop_aggregator (StrataZoomTree *self);
void
strata_zoom_tree_take_incoming (StrataZoomTree *self);
void
strata_zoom_tree_stop_publisher (StrataZoomTree *self);
void
strata_zoom_tree_read_lock (StrataZoomTree *self);
void
strata_zoom_tree_form_buffers (StrataZoomTree *self);
Chunk *
strata_zoom_tree_compute_stored_chunk (StrataZoomTree *self,
                                       guint           rank,
                                       gint64          index,
                                       GArray         *channels,
                                       gboolean        count_starts);

/* strata-zoom-plain.c */
gboolean
strata_zoom_tree_level_begin_proof (StrataZoomTree *self,
                                    guint           rank);
void
strata_zoom_tree_prove_buffer (StrataZoomTree *self,
                               const Buffer   *buffer,
                               Level * const  *proving,
                               guint           n_proving);
void
strata_zoom_tree_level_finish_proof (StrataZoomTree *self,
                                     Level          *level);
Chunk *
strata_zoom_tree_compute_doubtful_chunk (StrataZoomTree *self,
                                         guint           rank,
                                         const Deferred *d);
void
strata_zoom_tree_plain_clear (StrataZoomTree *self);

/* strata-zoom-lanes.c */
Lane *
strata_zoom_tree_take_lane (StrataZoomTree       *self,
                            Level                *level,
                            guint32               slot,
                            guint32               id,
                            const StrataActivity *piece);
Lane *
strata_zoom_tree_find_lane (StrataZoomTree *self,
                            Level          *level,
                            guint32         id);
void
strata_zoom_tree_pool_reset (Level *level);
void
strata_zoom_tree_lane_grow (Level *level,
                            Lane  *lane);
void
strata_zoom_tree_lane_close (StrataZoomTree *self,
                             Level          *level,
                             Lane           *lane);
void
strata_zoom_tree_sort_closed (GArray *closed);
void
strata_zoom_tree_lanes_close_all (StrataZoomTree *self,
                                  Level          *level);
void
strata_zoom_tree_lanes_release (Level *level);

/* strata-chunk-store.c */
void
strata_zoom_tree_chunk_piece_unref (ChunkPiece *piece);
int
strata_zoom_tree_by_span_channel (gconstpointer pa,
                                  gconstpointer pb);
StrataBlockPacker *
strata_zoom_tree_chunk_spill_target (StrataZoomTree *self,
                                     guint64         n_items);
Chunk *
strata_zoom_tree_chunk_alloc (StrataZoomTree    *self,
                              gint64             index,
                              guint              n_channels,
                              guint              n_items,
                              StrataBlockPacker *packer);
void
strata_zoom_tree_item_stream_begin (ItemStream        *s,
                                    StrataBlockPacker *packer);
void
strata_zoom_tree_item_stream_add (ItemStream           *s,
                                  const StrataZoomItem *items,
                                  guint                 n);
gsize
strata_zoom_tree_chunk_piece_size (const Chunk *chunk);
void
strata_zoom_tree_chunk_take_spans (StrataZoomTree     *self,
                                   ItemStream         *s,
                                   Chunk              *chunk,
                                   StrataSpilledArray *spans);
gsize
strata_zoom_tree_chunk_size (const Chunk *chunk);
void
strata_zoom_tree_chunk_count (StrataZoomTree *self,
                              const Chunk    *chunk);
void
strata_zoom_tree_assemble_channel (StrataSpilledArray   *spans,
                                   GArray               *items,
                                   ItemStream           *stream,
                                   guint                *n_items,
                                   guint64              *members,
                                   guint32               channel,
                                   const StrataZoomItem *channel_items,
                                   guint                 n);
gboolean
strata_zoom_tree_worth_storing (StrataZoomTree *self,
                                guint           n_spans,
                                guint64         n_items,
                                guint64         members);
gboolean
strata_zoom_tree_channel_pays (StrataZoomTree *self,
                               guint64         n_items,
                               guint64         members);
guint64
strata_zoom_tree_keep_paying_spans (StrataZoomTree     *self,
                                    StrataSpilledArray *spans,
                                    const GArray       *pays,
                                    guint64             all_members);
guint
strata_zoom_tree_level_n_chunks (Level *level);
void
strata_zoom_tree_level_renew_scratch (Level *level);
gboolean
strata_zoom_tree_chunk_resolve (StrataZoomTree *self,
                                const Chunk    *stored,
                                gboolean        cache,
                                Chunk          *out);
void
strata_zoom_tree_chunk_release (Chunk *chunk);
gboolean
strata_zoom_tree_find_chunk (StrataZoomTree *self,
                             Level          *level,
                             gint64          index,
                             Chunk          *out);
const ChannelSpan *
strata_zoom_tree_find_span (const Chunk *chunk,
                            guint32      channel);
gboolean
strata_zoom_tree_item_overlaps (const StrataZoomItem *item,
                                gint64                from,
                                gint64                to);

/* strata-level-spill.c */
void
strata_zoom_tree_level_spill (Level      *level,
                              const Lane *growing);
void
strata_zoom_tree_spill_reader_init (SpillReader *r,
                                    Level       *level,
                                    gsize        windows);
void
strata_zoom_tree_spill_reader_clear (SpillReader *r);
gboolean
strata_zoom_tree_spill_reader_copy (SpillReader        *r,
                                    const PagedRun     *run,
                                    ItemStream         *stream,
                                    StrataZoomItem    **out);
void
strata_zoom_tree_closed_iter_init (ClosedIter *it,
                                   Level      *level);
void
strata_zoom_tree_closed_iter_clear (ClosedIter *it);
gboolean
strata_zoom_tree_closed_iter_next (ClosedIter *it,
                                   ClosedView *view);
void
strata_zoom_tree_closed_page_out (Level *level);

/* strata-zoom-level.c */
void
strata_zoom_tree_level_finish_chunk (StrataZoomTree *self,
                                     Level          *level);
void
strata_zoom_tree_level_consume (StrataZoomTree *self,
                                guint           rank,
                                const Buffer   *buffer);
gint64
strata_zoom_tree_next_cut (StrataZoomTree *self,
                           gint           *stack_top);
guint
strata_zoom_tree_root_rank (StrataZoomTree *self);

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
    strata_spilled_array_set_size (self->slot_of, id + 1);
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
  return strata_zoom_tree_take_lane (self, level, slot, id, piece);
}

/* A channel's first lane id: it counts in its page's open channels
 * until it closes (buffer_closes() lets the page go at none). */
void strata_zoom_tree_lane_id_first (StrataZoomTree *self,
                                     guint           page);

/* The ids are in pages of LANE_ID_PAGE channels: one table of them all
 * was doubled as it grew (8.4 MB for the 48 742 threads of 20M generated
 * events). */
static inline guint32
lane_id (StrataZoomTree *self,
         guint32         channel,
         guint           l)
{
  guint page = channel >> LANE_ID_PAGE_BITS;
  guint place = (channel & (LANE_ID_PAGE - 1)) * N_LANES;
  guint32 *ids;

  if G_UNLIKELY (page >= self->lane_ids->len)
    g_ptr_array_set_size (self->lane_ids, page + 1);
  ids = g_ptr_array_index (self->lane_ids, page);
  if G_UNLIKELY (ids == NULL)
    ids = g_ptr_array_index (self->lane_ids, page) = g_new0 (guint32, LANE_ID_PAGE * N_LANES);
  if G_UNLIKELY (ids[place + l] == 0)
    {
      guint k = 0;

      while (k < N_LANES && ids[place + k] == 0)
        k++;
      if (k == N_LANES)
        strata_zoom_tree_lane_id_first (self, page);
      ids[place + l] = ++self->n_lane_ids;
    }

  return ids[place + l] - 1;
}

/* Room for what one offer to the aggregator can write (two items), so
 * that it never grows the vector itself: its memory is the pool's. */
static inline void
lane_room (Level *level,
           Lane  *lane)
{
  if G_UNLIKELY (lane->items.alloc - lane->items.len < 2)
    strata_zoom_tree_lane_grow (level, lane);
}

/* The lane's output in the pool is done with (copied, or spilled). */
static inline void
lane_empty_pool (Lane *lane)
{
  lane->first_seg = lane->last_seg = NULL;
  lane->items.items = NULL;
  lane->items.len = lane->items.alloc = 0;
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
      /* The pieces between them may have been left out (consume()):
       * in a lane, the piece after one that goes on is its own next. */
      if ((lane->held.flags & STRATA_ACTIVITY_FLAG_CONTINUES_AFTER) &&
          (piece->flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE) &&
          lane->held.end <= piece->start)
        {
          lane->held.end = piece->end;
          lane->held.flags = (lane->held.flags & ~STRATA_ACTIVITY_FLAGS_END_SIDE) |
                             (piece->flags & STRATA_ACTIVITY_FLAGS_END_SIDE);
          return;
        }
      if (lane->counting)
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

G_END_DECLS
