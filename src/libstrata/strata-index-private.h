/* strata-index-private.h
 *
 * The index file's layout (docs/index-format.md says it in prose) and what
 * the writer, the reader, the raw store and the zoom tree share to turn the
 * tree into a file and the file back into a tree. A tree opened from an
 * index is the same StrataZoomTree as one built in memory: its chunk index
 * and its raw store lanes are views over the mapped bytes, so the query
 * code is the same code. Every big array of the file is a "checked array":
 * cut into blocks, each with its own XXH3 checksum, verified the first time
 * a block is touched, so a query touches (and checks) only the pages it
 * reads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-index.h"
#include "strata-raw-store.h"
#include "strata-stats.h"
#include "strata-trace.h"
#include "strata-zoom-tree.h"

G_BEGIN_DECLS

#define STRATA_INDEX_MAGIC       "STRATAIX"
#define STRATA_INDEX_VERSION     6
#define STRATA_INDEX_BYTE_ORDER  0x01020304u
#define STRATA_INDEX_ALIGN       64

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

/* Decoded blocks the cache of one mapped file holds at most. */
#define STRATA_INDEX_CACHE_SLOTS     1024

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

/* A block of a raw store's lane spilled during the pass: its ticket at
 * the store's block packer, and how many activities it holds. */
typedef struct
{
  guint64 ticket;
  guint32 n;
  guint32 reserved;
} StrataRawStoreSpilled;

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

/* The mapped file, shared by the tree, its raw store and the trace. */
typedef struct _StrataIndexMap StrataIndexMap;

StrataIndexMap *strata_index_map_new      (const char      *path,
                                           GError         **error);
StrataIndexMap *strata_index_map_new_from_bytes (GBytes    *bytes);
StrataIndexMap *strata_index_map_ref      (StrataIndexMap  *self);
void            strata_index_map_unref    (StrataIndexMap  *self);
const guint8   *strata_index_map_get_data (StrataIndexMap  *self,
                                           gsize           *size);
gboolean        strata_index_map_contains (StrataIndexMap  *self,
                                           guint64          offset,
                                           guint64          count,
                                           guint64          elem_size);
gboolean        strata_index_map_verify   (StrataIndexMap  *self,
                                           const void      *data,
                                           gsize            size,
                                           guint64          checksum);
void            strata_index_map_note_damage (StrataIndexMap *self,
                                              const char     *format,
                                              ...) G_GNUC_PRINTF (2, 3);
const char     *strata_index_map_get_damage  (StrataIndexMap *self);

guint64         strata_index_checksum     (const void      *data,
                                           gsize            size);

StrataTrace    *strata_index_open_map     (StrataIndexMap             *map,
                                           const char                 *index_path,
                                           const StrataSourceIdentity *identity,
                                           const StrataZoomParams     *params,
                                           GError                    **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataIndexMap, strata_index_map_unref)

/* An array in the file whose blocks are checked when first touched. */
typedef struct
{
  StrataIndexMap *map;
  const guint8   *data;
  const guint64  *sums;
  guint64         n;
  guint32         elem_size;
  guint32         per_block;
  guint32        *checked;     /* bitmap: verified blocks, allocated on first use */
  guint32        *bad;         /* bitmap: blocks that failed */
  const char     *what;
} StrataCheckedArray;

gboolean strata_checked_array_init  (StrataCheckedArray *self,
                                     StrataIndexMap     *map,
                                     guint64             offset,
                                     guint64             sums_offset,
                                     guint64             n,
                                     guint32             elem_size,
                                     guint32             per_block,
                                     const char         *what);
void     strata_checked_array_clear (StrataCheckedArray *self);
gboolean strata_checked_array_check_slow (StrataCheckedArray *self,
                                          guint64             from,
                                          guint64             to);

/* Whether elements [from, to) are sound; a block found damaged is
 * reported to the map once and stays damaged. */
static inline gboolean
strata_checked_array_check (StrataCheckedArray *self,
                            guint64             from,
                            guint64             to)
{
  if (self == NULL || self->map == NULL)
    return TRUE;
  if (from < to && to - from == 1 && self->checked != NULL)
    {
      guint64 b = from / self->per_block;

      if (g_atomic_int_get ((gint *) &self->checked[b / 32]) & (1u << (b % 32)))
        return TRUE;
    }
  return strata_checked_array_check_slow (self, from, to);
}

/* A packed array in the file: its blocks decoded one at a time, each
 * checked first (strata-index-codec.c). */
typedef struct
{
  StrataIndexMap     *map;
  StrataCheckedArray  table;   /* StrataIndexBlock */
  guint64             n;
  guint32             elem_size;
  guint32             per_block;
  guint64             key;     /* for the map's cache of decoded blocks */
  guint32            *bad;     /* bitmap: blocks that failed */
  const char         *what;
} StrataPackedArray;

void     strata_index_encode_block  (const void        *elems,
                                     guint              n,
                                     guint32            elem_size,
                                     GByteArray        *out);
gboolean strata_index_decode_block  (const guint8      *bytes,
                                     gsize              size,
                                     guint              n,
                                     guint32            elem_size,
                                     void              *out);
void     strata_index_pack_block    (const void        *elems,
                                     guint              n,
                                     guint32            elem_size,
                                     int                zstd_level,
                                     GByteArray        *out,
                                     guint8            *codec);
gboolean strata_index_unpack_block  (const guint8      *bytes,
                                     gsize              size,
                                     guint8             codec,
                                     guint              n,
                                     guint32            elem_size,
                                     gpointer           dctx,
                                     void              *out);
gboolean strata_packed_array_init   (StrataPackedArray *self,
                                     StrataIndexMap    *map,
                                     guint64            table_offset,
                                     guint64            table_sums_offset,
                                     guint64            n,
                                     guint32            elem_size,
                                     guint32            per_block,
                                     const char        *what);
void     strata_packed_array_clear  (StrataPackedArray *self);
guint    strata_packed_array_read_block (StrataPackedArray *self,
                                         guint64            b,
                                         void              *out);
guint    strata_packed_array_read_block_direct (StrataPackedArray *self,
                                                guint64            b,
                                                void              *out);
gboolean strata_packed_array_append (StrataPackedArray *self,
                                     guint64            from,
                                     guint64            count,
                                     GArray            *out);

/* The map's cache of decoded blocks (a fixed number of slots) and its
 * zstd contexts. */
gboolean strata_index_map_cache_get (StrataIndexMap *self,
                                     guint64         key,
                                     guint64         block,
                                     void           *out,
                                     gsize           size);
gboolean strata_index_map_cache_get_range (StrataIndexMap *self,
                                           guint64         key,
                                           guint64         block,
                                           gsize           size,
                                           gsize           from,
                                           gsize           len,
                                           void           *out);
void     strata_index_map_cache_put (StrataIndexMap *self,
                                     guint64         key,
                                     guint64         block,
                                     const void     *data,
                                     gsize           size);
gsize    strata_index_map_cache_get_size (StrataIndexMap *self);
gpointer strata_index_map_take_dctx (StrataIndexMap *self);
void     strata_index_map_give_dctx (StrataIndexMap *self,
                                     gpointer        dctx);

/* What the writer needs of the raw store and the tree, and what the reader
 * gives them back. */
const StrataActivity *strata_raw_store_peek_lane (StrataRawStore             *self,
                                                  guint32                     channel,
                                                  guint                       lane,
                                                  guint                      *n,
                                                  const StrataRawStoreFence **fences,
                                                  guint                      *n_fences,
                                                  const StrataRawStoreSpilled **spilled,
                                                  guint                      *n_spilled);
gboolean        strata_raw_store_read_lane_part (StrataRawStore             *self,
                                                 guint32                     channel,
                                                 guint                       lane,
                                                 guint                       part,
                                                 const StrataRawStoreSpilled **spilled,
                                                 guint                      *n_spilled,
                                                 const StrataRawStoreFence **fences,
                                                 guint                      *n_fences);
struct _StrataBlockPacker *strata_raw_store_get_packer (StrataRawStore       *self);
void            strata_raw_store_set_packer     (StrataRawStore             *self,
                                                 struct _StrataBlockPacker  *packer);
guint64         strata_raw_store_get_unspilled  (StrataRawStore             *self);
/* The most bytes a spilled block (a packed block of activities) takes. */
#define STRATA_RAW_STORE_MAX_PACKED (STRATA_RAW_STORE_BLOCK * (11 * 10 + 2))
StrataRawStore *strata_raw_store_new_mapped     (StrataIndexMap             *map,
                                                 const StrataIndexHeader    *h,
                                                 GError                    **error);
guint32         strata_raw_store_get_lanes      (StrataRawStore             *self,
                                                 guint32                     channel);
gboolean        strata_raw_store_check          (StrataRawStore             *self,
                                                 guint32                     channel,
                                                 guint                       lane,
                                                 guint                       from,
                                                 guint                       to);

typedef struct
{
  gint64                index;
  gboolean              at_end;
  guint                 n_channels;
  const StrataIndexSpan *channels;
  guint                 n_items;
  const StrataZoomItem *items;         /* NULL when spilled: */
  struct _StrataBlockPacker *packer;   /* its items packed there (strata-block-packer.h), */
  guint64               first_block;   /* in blocks of STRATA_INDEX_ITEM_BLOCK from this ticket on */
  const StrataIndexItemKey *keys;      /* when spilled: its blocks' first items, */
  const guint32        *changes;       /* its lane changes */
  guint                 n_changes;
  gpointer              hold;          /* what the tree lent for them (strata_zoom_chunk_view_clear()) */
} StrataZoomChunkView;

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

void strata_index_item_key_init (StrataIndexItemKey   *key,
                                 const StrataZoomItem *item);

/* A chunk's keys and lane changes, collected as its items go by in
 * order (the writer's in-memory chunks, a spilling chunk's stream). */
typedef struct
{
  GArray  *keys;       /* StrataIndexItemKey */
  GArray  *changes;    /* guint32 */
  guint64  n;          /* items seen */
  guint    lane;       /* the last one's */
} StrataIndexChunkKeys;

void strata_index_chunk_keys_init  (StrataIndexChunkKeys *self);
void strata_index_chunk_keys_add   (StrataIndexChunkKeys *self,
                                    const StrataZoomItem *items,
                                    guint                 n);
void strata_index_chunk_keys_clear (StrataIndexChunkKeys *self);

/* Where a tree's pre-calculated chunks are while it is built. */
typedef struct
{
  gsize   in_memory;     /* bytes of items held by chunks kept in memory */
  gsize   spill_from;    /* ... up to which they are kept there */
  gsize   queued;        /* bytes of items waiting for the packer */
  gsize   peak_queued;   /* the most that ever did */
  gsize   max_queued;    /* the packer's bound on it (one chunk bigger passes alone) */
  gsize   chunk_index;   /* the chunks' records, spans in memory and pieces read back */
  guint   n_chunks;      /* chunks stored, each with its record in memory */
  gsize   spans;         /* bytes of spans, keys and lane changes in memory (not spilled) */
  gsize   piece_cache;   /* bytes of spilled chunks' spans read back, in the cache */
  guint   n_pieces;      /* pieces in it */
  gsize   records;       /* the packer's record of each spilled block */
  guint   n_spilled;     /* chunks whose items were handed to the packer */
  guint64 spilled;       /* bytes of items written to the spill file (decoded) */
  guint64 file_size;     /* bytes of the spill file */
  guint64 n_waits;       /* chunks that waited for room in the packer's queue */
  gint64  wait_us;       /* how long they waited in all */
  guint64 n_helped;      /* blocks the builder packed itself, the queue full */
} StrataZoomChunkMemory;

void     strata_zoom_tree_get_chunk_memory (StrataZoomTree        *self,
                                            StrataZoomChunkMemory *memory);
void     strata_zoom_tree_set_chunk_spill  (StrataZoomTree        *self,
                                            gsize                  spill_from,
                                            gsize                  max_queued);

/* What the levels' pools (the items of the chunk each level is
 * aggregating) held: read it between additions (the levels not
 * pipelined), or after the pass. */
typedef struct
{
  gsize   budget;         /* bytes of a level's pool in use before it spills */
  gsize   bound;          /* what a level's pool may use: budget, or one segment more */
  gsize   peak;           /* the most one level's pool used */
  gsize   peak_sum;       /* the levels' peaks, summed */
  guint64 n_spills;       /* times a level moved its open chunk's items to its file */
  guint64 spilled;        /* items moved so */
  guint64 n_pages;        /* pages of closed lanes written to the levels' files */
  guint64 paged;          /* closed lanes in them (a merge of pages counts its lanes again) */
  guint64 closed_peak;    /* the most closed lanes a level held in memory */
} StrataZoomPoolMemory;

void     strata_zoom_tree_get_pool_memory  (StrataZoomTree        *self,
                                            StrataZoomPoolMemory  *memory);
void     strata_zoom_tree_set_pool_budget  (StrataZoomTree        *self,
                                            gsize                  budget);

typedef struct
{
  guint   n_ranks;
  gint64  first;
  gint64  last;
  guint64 n_buffers;
  guint64 n_left_out;
  guint64 size;
} StrataZoomTreeState;

void     strata_zoom_tree_get_state       (StrataZoomTree       *self,
                                           StrataZoomTreeState  *state);
guint    strata_zoom_tree_get_n_rank_chunks (StrataZoomTree     *self,
                                             guint               rank,
                                             guint              *n_plain);
gboolean strata_zoom_tree_peek_rank_chunk (StrataZoomTree       *self,
                                           guint                 rank,
                                           guint                 i,
                                           StrataZoomChunkView  *view,
                                           GError              **error);
void     strata_zoom_chunk_view_clear     (StrataZoomChunkView  *view);
StrataZoomTree *strata_zoom_tree_new_mapped (const StrataZoomParams    *params,
                                             const StrataZoomTreeState *state,
                                             StrataIndexMap            *map,
                                             const StrataIndexLevel    *levels,
                                             StrataRawStore            *raw,
                                             GError                   **error);
const char *strata_zoom_tree_get_damage   (StrataZoomTree       *self);
guint64     strata_zoom_tree_get_n_lane_states (StrataZoomTree   *self);
guint       strata_zoom_tree_get_n_lane_id_pages (StrataZoomTree *self);
void        strata_zoom_tree_note_build_memory (StrataZoomTree *self,
                                                const char     *where);

/* The trace's side. */
typedef struct
{
  StrataSourceInfo *info;          /* taken */
  StrataStringPool *strings;       /* taken */
  GArray           *channels;      /* StrataChannel, taken */
  GArray           *switches;      /* guint64, taken */
  GArray           *event_counts;  /* StrataEventCount, taken */
  guint64           n_events;
  gint64            start;
  gint64            end;
  GError           *damage;        /* taken */
  StrataZoomTree   *tree;          /* taken */
  StrataStats      *stats;         /* taken; its threads NULL until asked for: */
  const StrataThreadStats *thread_rows;  /* ... these, in stats_map */
  gsize             n_thread_rows;
  StrataIndexMap   *stats_map;     /* taken */
  char             *index_path;    /* taken */
} StrataTraceParts;

StrataTrace *strata_trace_new_from_parts (StrataTraceParts *parts);
StrataTrace *strata_trace_load_for_index (const char              *path,
                                          StrataActivityFunc       sink,
                                          gpointer                 sink_data,
                                          const StrataZoomParams  *params,
                                          StrataTraceProgressFunc  progress,
                                          gpointer                 progress_data,
                                          GError                 **error);
void         strata_trace_set_stats      (StrataTrace      *self,
                                          StrataStats      *stats);
void         strata_source_info_free     (StrataSourceInfo *info);

G_END_DECLS
