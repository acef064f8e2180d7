/* strata-raw-store-internal.h
 *
 * The raw store's data as its own files see it: a channel's lanes, a
 * lane's arrays and pages of records, a sealed channel's seal, what a
 * reading thread keeps, and the store itself (strata-raw-store.c says how
 * they are used). Not for the rest of the library: its view is
 * strata-raw-store.h and, for the index writer and the tree,
 * strata-raw-store-private.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-block-packer.h"
#include "strata-file-windows.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-raw-store.h"
#include "strata-spilled-array.h"

G_BEGIN_DECLS

/* Channels a scan of them reads between two let-goes of their pages. */
#define LET_GO_EVERY (1u << 16)

/* Lanes of a channel: nesting depths 0..15, then the instants. */
#define N_DEPTHS      16
#define INSTANT_LANE  N_DEPTHS
#define N_LANES       (N_DEPTHS + 1)

/* Every FENCE_STEP-th activity of a lane, its start and end in a small
 * array of their own: a look-up searches the fences (a few cache lines)
 * and then one block of the lane, instead of jumping across a lane of
 * millions of activities. */
#define FENCE_STEP STRATA_RAW_STORE_FENCE_STEP

typedef StrataRawStoreFence Fence;

/* PAGE_BLOCKS tickets of full blocks and the fences of their
 * activities, in the spill file: a PageHeader, the tickets, the fences.
 * A lane keeps at most a page's worth of tickets in memory (and the
 * fences that go with them): 2.5 KiB, for 8192 activities, and a Page
 * of 24 bytes per page before them (a lane of 100M activities, 293 KB).
 * A look-up reads one page back and checks it whole, so the page is
 * small: at 256 blocks (20 KiB) a cold frame of 60 rows at 100M
 * activities read and checked some 2 MB of pages to find 130 blocks.
 * STRATA_RAW_STORE_PAGE_BLOCKS in the environment says otherwise (0: no
 * pages), for the tests. */
#define PAGE_BLOCKS 32
#define PAGE_MAGIC  0x45474150u  /* "PAGE" */

typedef struct
{
  guint64 offset;           /* its PageHeader in the spill file */
  gint64  start;            /* its first fence */
  gint64  end;
} Page;

typedef struct
{
  guint32 magic;
  guint32 n_spilled;        /* the store's page_blocks */
  guint32 n_fences;         /* page_blocks * STRATA_RAW_STORE_BLOCK / FENCE_STEP */
  guint32 reserved;
  guint64 checksum;         /* XXH3-64 of the tickets and fences */
} PageHeader;

G_STATIC_ASSERT (STRATA_RAW_STORE_BLOCK % FENCE_STEP == 0);

/* A lane's three arrays are plain, each grown to the next power of two
 * of its length (as GArray would): three GArrays were 144 bytes of
 * headers per lane, and a short-lived thread's lanes stay for the whole
 * build (their fences and the records of their spilled blocks). */
typedef struct
{
  StrataActivity        *acts;     /* after the spilled ones */
  Fence                 *fences;   /* per FENCE_STEP activities, spilled ones too */
  StrataRawStoreSpilled *spilled;  /* per block handed to the packer: full
                                    * ones, the last one maybe short (then
                                    * the lane has none in memory) */
  Page                  *pages;    /* before those: n_pages * page_blocks
                                    * tickets (all of full blocks) and their
                                    * fences, in the spill file */
  guint32                n_acts;
  guint32                n_fences;  /* in memory: after the pages' */
  guint32                n_spilled; /* in memory: after the pages' */
  guint32                n_pages;
  guint32                acts_alloc;
  guint32                fences_alloc;
  guint32                spilled_alloc;
  guint32                pages_alloc;
} Lane;

/* @p grown to hold at least @need elements of @size. */
static inline gpointer
grow_array (gpointer  p,
            guint32  *alloc,
            guint32   need,
            gsize     size)
{
  guint32 n = MAX (*alloc, 1);

  if (need <= *alloc)
    return p;
  while (n < need)
    n *= 2;
  *alloc = n;
  return g_realloc_n (p, n, size);
}

/* A channel has only the lanes it used (a thread has two or three of the
 * seventeen), one Lane per bit of @present, in lane order: a table of a
 * slot per possible lane was 424 bytes per channel, 33 MB for the 48 742
 * short-lived threads of 20M generated events. */
typedef struct
{
  union {
    Lane  *lanes;           /* popcount (present & LANES) of them */
    gint64 first;           /* SEALED: its earliest activity's start */
  };
  guint64 appended;         /* the store's size when it last took one of these;
                             * sealed: where its seal is in the spill file */
  guint32 present;          /* bit l: lane l has a Lane; SEALED */
  guint32 resident;         /* bit l: lane l has activities in memory */
} Channel;

/* A channel whose thread has exited (strata_raw_store_close_channel())
 * has all its activities spilled, and its lanes' records (the tickets of
 * their blocks, their fences) written to the spill file in one piece, a
 * seal: what stays in memory is its Channel. A look-up reads the seal
 * back into the calling thread's Unsealed, kept until that thread reads
 * another. */
#define LANES   ((1u << N_LANES) - 1)
#define SEALED  (1u << 31)
#define SEAL_MAGIC 0x4c414553u  /* "SEAL" */

/* The seals go to the spill file a stage at a time, not each in a write
 * of its own (a hundred bytes, a million threads): a sealed channel whose
 * seal is still staged has SEAL_STAGED and its place in the stage as its
 * appended. A seal of more than a quarter of the stage is written alone. */
#define SEAL_STAGED ((guint64) 1 << 63)
#define SEAL_STAGE  ((gsize) 64 << 10)

typedef struct
{
  guint32 magic;
  guint32 n_lanes;
  guint64 size;             /* bytes after the header */
  guint64 checksum;         /* XXH3-64 of those bytes */
} SealHeader;

typedef struct
{
  guint32 n_pages;          /* Page, then */
  guint32 n_spilled;        /* StrataRawStoreSpilled, then */
  guint32 n_fences;         /* Fence */
  guint32 reserved;
} SealLane;

/* Pages a reading thread keeps copies of (up to 2.5 MiB, made as they
 * are needed), a page's copy in the place its offset hashes to: a
 * frame's on-demand parts read the same lanes again and again. With one
 * copy of 20 KiB pages, the frame benchmark's 10M activities read a page
 * back 883 times; with 2.5 KiB pages and 128 copies kept in turn, 14 652
 * times of its 1182 pages. 1024 copies hold most of them. */
#define PAGE_COPIES_LOG 10
#define PAGE_COPIES     (1u << PAGE_COPIES_LOG)

/* Spilled blocks a reading thread keeps decoded (made as they are
 * needed, 8 KiB each: 32 MiB at most; STRATA_RAW_STORE_BLOCK_COPIES in
 * the environment says how many, 0: none), a block's copy in the place
 * its ticket hashes to. The frames
 * of a growing trace compute the open chunks of the levels from the raw
 * store, and each read back and decoded the same spilled blocks as the
 * last one (through the packer's lock, and a page of its records read
 * back from the file when it was not at hand): some 5 000 blocks a frame
 * on the dense shape at 2M events, with 512 copies a quarter of them
 * found, 4 096 three quarters, 8 192 nine tenths. A ticket's block never
 * changes: a short last block brought back into its lane goes out again
 * under a new ticket, so a copy is never stale however the lane grew
 * since; the lanes' growing tails are read in place, never copied. The
 * thread that builds the store keeps none: what it reads back (the
 * chunks it computes at the end, a late activity's block) it reads
 * once, and copies would only add to the pass's peak. */
#define BLOCK_COPIES 4096

typedef struct
{
  guint64         ticket;   /* G_MAXUINT64: none */
  guint32         n;
  StrataActivity *acts;     /* STRATA_RAW_STORE_BLOCK, made at the first copy */
} BlockCopy;

/* A sealed channel's lanes' records, read back. */
typedef struct
{
  guint32  channel;         /* G_MAXUINT32: none */
  guint8  *bytes;           /* the seal after its header */
  gsize    size;
  Lane     lanes[N_LANES];  /* the present ones, in lane order */
} Seal;

/* A thread's copies of what it read back: the last sealed channel's
 * records, and pages of lanes' records (all found by where they are in
 * the spill file, which is only ever appended to). */
typedef struct
{
  GThread *thread;
  Seal     seal;
  guint64  page_at[PAGE_COPIES]; /* G_MAXUINT64: none */
  guint8  *page[PAGE_COPIES];    /* that page after its header */
  gsize    page_size;            /* of all of them */
  BlockCopy *blocks;             /* block_copies of them, made at the first read */
  gsize    block_size;           /* of the copies made */
} Unsealed;

static inline Lane *
channel_lane (Channel *ch,
              guint    l)
{
  if (!(ch->present & (1u << l)) || (ch->present & SEALED))
    return NULL;
  return &ch->lanes[__builtin_popcount (ch->present & ((1u << l) - 1))];
}

/* By default a store spills once it holds this many activities (8 MiB),
 * keeping SPILL_KEEP full blocks per lane in memory besides the last 1 to
 * 256 activities (a trace of thousands of threads has thousands of short
 * lanes); STRATA_RAW_STORE_SPILL_FROM
 * in the environment says otherwise (0: from the first block). */
#define SPILL_FROM  (G_GUINT64_CONSTANT (1) << 18)
#define SPILL_KEEP  0

/* The bytes the lanes' activities in memory may take once a store spills
 * (STRATA_RAW_STORE_BUDGET in the environment says otherwise): past it,
 * the least recently appended channels' tails go to the spill file until
 * half of it is left. A channel appended to among the last cold_window()
 * activities is left alone (its tail would come back at once: with
 * thousands of live threads, spilling them was four times the cost of the
 * build), so the budget holds as long as the live lanes' tails fit in
 * half of it; and the scan that picks them is paid at most once per
 * cold_window() activities. */
#define SPILL_BUDGET (G_GUINT64_CONSTANT (8) << 20)

/* The bytes of blocks the packer may hold before the store packs the
 * oldest itself (STRATA_RAW_STORE_SPILL_QUEUE in the environment says
 * otherwise): the blocks come in bursts, and with 1 MiB the builder
 * packed a fifth of them itself at 5M events; with 8 MiB (the chunks'
 * queue too) none, the queue peaking at 6 MB. */
#define SPILL_QUEUE (G_GUINT64_CONSTANT (8) << 20)

/* A lane of a store mapped from an index: its activities packed, its
 * fences checked block by block as they are read. */
typedef struct
{
  StrataPackedArray  acts;
  StrataCheckedArray fences;
  gboolean           bad;
} MappedLane;

G_STATIC_ASSERT (STRATA_RAW_STORE_BLOCK == STRATA_INDEX_ACTIVITY_BLOCK);
G_STATIC_ASSERT (STRATA_RAW_STORE_BLOCK * sizeof (StrataActivity) <= STRATA_INDEX_MAX_BLOCK_BYTES);

/* A lane as the look-ups see it, in memory or mapped. */
typedef StrataRawLane LaneView;

struct _StrataRawStore
{
  /* Channel, indexed by channel: in a spill file, its pages let go as
   * it grows and as it is scanned (a million threads are a million
   * channels, 24 bytes each, most of them sealed long ago) */
  StrataSpilledArray *channels;
  guint64  size;

  /* Mapped from an index instead. */
  StrataIndexMap      *map;
  guint32              n_mapped;   /* channels */
  guint64              n_mapped_lanes;
  StrataCheckedArray   channel_dir; /* StrataIndexChannelLanes, by channel */
  StrataCheckedArray   dir;        /* StrataIndexLane, those with activities */
  MappedLane         **mapped;     /* by lane of dir, created on first use */
  GPtrArray           *made;       /* those created (under lent_lock), so the
                                    * store is freed without reading all of
                                    * mapped (17 MB never touched for 1M threads) */

  /* strata_raw_store_get_lane() on a mapped store: per thread, the last
   * range it decoded (LentRange). */
  GMutex               lent_lock;
  GArray              *lent;
  GPtrArray           *unsealed;    /* Unsealed, a thread's each */
  guint64              n_sealed;

  /* The packer of the spilled blocks: NULL until the first one. */
  guint64              spill_from;
  guint                spill_keep;
  StrataBlockPacker   *packer;
  gboolean             own_packer;
  /* The packer's file read through windows, while the index writer
   * copies it (strata_raw_store_open_windows()); NULL otherwise. */
  StrataFileWindows   *windows;
  GThread             *windows_thread;  /* the one that opened them */
  guint8              *seal_stage;      /* SEAL_STAGE bytes, made at the first seal */
  gsize                seal_staged;     /* bytes of it used */
  GArray              *staged_channels; /* guint32: those sealed into it */
  GByteArray          *seal_scratch;    /* one seal, built */
  gboolean             spill_failed;
  guint64              n_spilled;
  guint64              n_unspilled;
  guint64              budget;          /* bytes of activities in memory */
  guint64              lane_bytes;      /* what the lanes in memory have allocated */
  guint64              peak_lane_bytes;
  guint64              n_evicted;       /* tails spilled for the budget */
  guint64              next_round;      /* no spill_tails() before this size */
  guint                page_blocks;     /* 0: lanes keep their records in memory */
  gsize                spill_queue;     /* bytes waiting for the packer, at most */
  int                  zstd_level;      /* of the spilled blocks: the index writer's */
  guint                page_fences;
  gboolean             paging_failed;
  guint64              n_pages;         /* written */
  gint                 n_page_reads;    /* read back (atomic) */
  guint                block_copies;    /* per reading thread */
  GThread             *builder;         /* the thread that added the first activity */
  gint                 n_block_reads;   /* spilled blocks read (atomic) */
  gint                 n_block_copied;  /* of those, from a copy (atomic) */
};

typedef struct
{
  GThread        *thread;
  StrataActivity *acts;
  gsize           n;
} LentRange;

/* strata-raw-store-windows.c */
gboolean strata_raw_store_spill_read_at (StrataRawStore *self,
                                         guint64         offset,
                                         gpointer        out,
                                         gsize           size);
guint    strata_raw_store_read_spilled_block (StrataRawStore *self,
                                              guint64         ticket,
                                              StrataActivity *out);
/* strata-raw-store.c: the staged seals written (FALSE: their channels
 * opened again). */
gboolean strata_raw_store_flush_seals   (StrataRawStore *self);

G_END_DECLS
