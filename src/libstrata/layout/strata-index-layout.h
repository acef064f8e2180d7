/* strata-index-layout.h
 *
 * The index file's layout (docs/index-format.md says it in prose): its
 * header and sections, the records of its chunk index and raw store
 * lanes, the packed blocks' records, and the number of elements per
 * checksummed block of each kind of array. A tree opened from an index is
 * the same StrataZoomTree as one built in memory: its chunk index and its
 * raw store lanes are views over the mapped bytes laid out as here, so
 * the query code is the same code, and the pass's own spill files use
 * the same blocks, so the writer copies them as they are.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-block-cache.h"

G_BEGIN_DECLS

#define STRATA_INDEX_MAGIC       "STRATAIX"
#define STRATA_INDEX_VERSION     8
#define STRATA_INDEX_BYTE_ORDER  0x01020304u
#define STRATA_INDEX_ALIGN       64
#define STRATA_INDEX_LANE_ALIGN  8     /* a raw store lane's arrays */

/* Elements per checksummed block of each kind of array. */
#define STRATA_INDEX_ACTIVITY_BLOCK  256   /* activities per packed block (8 KiB decoded) */
#define STRATA_INDEX_FENCE_BLOCK     256   /* 4 KiB of fences */
#define STRATA_INDEX_CHUNK_BLOCK     64    /* chunk records */
#define STRATA_INDEX_LANE_BLOCK      64    /* lane records */
#define STRATA_INDEX_CHANNEL_BLOCK   512   /* channels' lane entries (4 KiB) */
#define STRATA_INDEX_ITEM_BLOCK      256   /* items per packed block (12 KiB decoded) */
#define STRATA_INDEX_TABLE_BLOCK     128   /* packed blocks' records */

/* A packed block decodes to at most this many elements and bytes. */
#define STRATA_INDEX_MAX_BLOCK_ELEMS 256
#define STRATA_INDEX_MAX_BLOCK_BYTES 12288

/* How a packed block is stored. */
typedef enum
{
  STRATA_INDEX_CODEC_VARINT = 1,   /* varint columns */
  STRATA_INDEX_CODEC_ZSTD   = 2,   /* the same, squeezed with zstd */
} StrataIndexCodec;

/* The zstd level the writer uses (0: varints only; below 0, zstd's fast
 * levels). -1 against 3, 20M-event trace: 5% more bytes (0.48 of the
 * trace), a tenth less CPU to build, a third less to decode a block, a
 * sixth off a dense frame (bench/RESULTS-index.md, stop 20). */
#define STRATA_INDEX_ZSTD_LEVEL      (-1)

#define STRATA_RAW_STORE_FENCE_STEP  64

typedef enum
{
  STRATA_INDEX_SECTION_META,      /* a GVariant: the trace's description, counts, stats */
  STRATA_INDEX_SECTION_STRINGS,   /* guint32 count, guint32 offsets[count + 1], bytes */
  STRATA_INDEX_SECTION_CHANNELS,  /* StrataChannel[] */
  STRATA_INDEX_SECTION_LEVELS,    /* StrataIndexLevel[n_ranks] */
  STRATA_INDEX_SECTION_THREAD_STATS, /* StrataThreadStats[], the statistics' thread rows */
  STRATA_INDEX_N_SECTIONS
} StrataIndexSectionId;

typedef struct
{
  guint64 offset;
  guint64 size;
  guint64 checksum;     /* XXH3-64 of the section's bytes */
} StrataIndexSection;

typedef struct
{
  char    magic[8];
  guint32 version;
  guint32 header_size;
  guint32 byte_order;
  guint32 activity_size;       /* sizeof (StrataActivity) */
  guint32 item_size;           /* sizeof (StrataZoomItem) */
  guint32 channel_size;        /* sizeof (StrataChannel) */
  guint64 file_size;

  /* The source trace, so a stale index is noticed. */
  guint64 source_size;
  gint64  source_mtime_ns;
  guint64 source_sample_hash;

  /* The tree's parameters (the threads are not one: they do not change
   * the tree). */
  guint32 zoom_factor;
  guint32 pixels_per_chunk;
  guint32 density_threshold;
  guint32 buffer_criterion;
  gint64  buffer_interval;
  guint32 buffer_count;
  guint32 min_reduction;

  /* The tree's state at the end of the pass. */
  gint64  first;
  gint64  last;
  guint64 n_buffers;
  guint64 n_left_out;
  guint64 tree_size;
  guint64 n_activities;
  guint32 n_ranks;
  guint32 n_raw_channels;

  /* The raw store's lane directory: a StrataIndexChannelLanes per
   * channel, then the n_raw_lanes lanes that have activities, a
   * StrataIndexLane each, channel by channel, each channel's in lane
   * order. */
  guint64 raw_channels_offset;
  guint64 raw_channels_sums_offset;
  guint64 n_raw_lanes;
  guint64 lanes_offset;
  guint64 lanes_sums_offset;

  StrataIndexSection sections[STRATA_INDEX_N_SECTIONS];

  guint64 checksum;            /* XXH3-64 of every byte above */
} StrataIndexHeader;

/* One rank of the tree: its chunk index. */
typedef struct
{
  guint64 chunks_offset;       /* StrataIndexChunk[n_chunks], by index */
  guint64 sums_offset;         /* guint64 per STRATA_INDEX_CHUNK_BLOCK records */
  guint32 n_chunks;
  guint32 n_plain;
} StrataIndexLevel;

/* One packed block: STRATA_INDEX_ACTIVITY_BLOCK activities or
 * STRATA_INDEX_ITEM_BLOCK items (fewer in an array's last block). */
typedef struct
{
  guint64 offset;              /* its bytes, anywhere in the file */
  guint32 size;
  guint8  codec;               /* StrataIndexCodec */
  guint8  reserved;
  guint16 n;                   /* elements */
  guint64 checksum;            /* XXH3-64 of its bytes as stored */
} StrataIndexBlock;

/* A chunk: at offset, n_channels ChannelSpan (12 bytes each); its items
 * packed, their blocks' records (StrataIndexBlock) at items_offset with
 * a checksum per STRATA_INDEX_TABLE_BLOCK records at items_sums_offset: a
 * query checks the spans when it finds the chunk, and decodes only the
 * blocks of the items of the channels it reads. */
typedef struct
{
  gint64  index;
  guint64 offset;
  guint64 items_offset;
  guint64 items_sums_offset;
  guint32 n_channels;
  guint32 n_items;
  guint32 at_end;
  guint32 n_changes;           /* lane changes after the keys */
  guint64 checksum;            /* XXH3-64 of the spans, keys and lane changes */
  guint64 sums_checksum;       /* XXH3-64 of the items' table's block checksums */
} StrataIndexChunk;

/* Which of its 17 lanes a channel of the raw store has (bit l: lane l),
 * and where the first of them is among the directory's lanes. */
typedef struct
{
  guint32 first;
  guint32 present;
} StrataIndexChannelLanes;

/* One lane of one channel in the raw store. */
typedef struct
{
  guint64 offset;              /* StrataIndexBlock per STRATA_INDEX_ACTIVITY_BLOCK activities */
  guint64 sums_offset;         /* guint64 per STRATA_INDEX_TABLE_BLOCK of those records */
  guint64 fences_offset;       /* StrataRawStoreFence[n_fences] */
  guint64 fence_sums_offset;   /* guint64 per STRATA_INDEX_FENCE_BLOCK fences */
  guint32 n;
  guint32 n_fences;
} StrataIndexLane;

typedef struct
{
  gint64 start;
  gint64 end;
} StrataRawStoreFence;


typedef struct
{
  guint32 channel;
  guint32 first;
  guint32 n_items;
} StrataIndexSpan;

/* A chunk's items block by block: the first item of each, so a query
 * bisects a span for the view over these and decodes only the blocks it
 * lands in (a bisection over the items themselves decoded a block per
 * probe: three times the blocks a view shows). In the file after the
 * chunk's spans (from the next 8-byte boundary), under their checksum. */
typedef struct
{
  gint64  start;
  gint64  end;
  guint32 lane;                /* strata_zoom_item_lane() */
  guint32 reserved;
} StrataIndexItemKey;

/* After a chunk's keys, under the same checksum: its *lane changes*,
 * the items (guint32, increasing, none the first) whose lane is not the
 * one before's, so a query finds where a span's lanes begin without
 * decoding: at the span's first item and at each change inside it. */

G_STATIC_ASSERT (sizeof (StrataIndexHeader) % 8 == 0);
G_STATIC_ASSERT (sizeof (StrataIndexChunk) == 64);
G_STATIC_ASSERT (sizeof (StrataIndexBlock) == 24);
G_STATIC_ASSERT (sizeof (StrataIndexLane) == 40);
G_STATIC_ASSERT (sizeof (StrataIndexSpan) == 12);
G_STATIC_ASSERT (sizeof (StrataIndexItemKey) == 24);

/* Where a chunk's keys begin after its @n_channels spans, and how many
 * it has for @n_items. */
static inline gsize
strata_index_keys_offset (guint n_channels)
{
  return ((gsize) n_channels * sizeof (StrataIndexSpan) + 7) & ~(gsize) 7;
}

static inline guint64
strata_index_n_keys (guint64 n_items)
{
  return (n_items + STRATA_INDEX_ITEM_BLOCK - 1) / STRATA_INDEX_ITEM_BLOCK;
}

/* A decoded block fits a slot of the block cache. */
G_STATIC_ASSERT (STRATA_INDEX_MAX_BLOCK_BYTES <= STRATA_BLOCK_CACHE_SLOT_BYTES);

/* The elements the packed blocks hold: activities (strata-activity.h)
 * and the zoom tree's items (strata-aggregator.h), whose common fields
 * are laid out alike; their own headers check these sizes. */
#define STRATA_INDEX_ACTIVITY_SIZE   32
#define STRATA_INDEX_ITEM_SIZE       48

G_END_DECLS
