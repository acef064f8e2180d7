/* strata-block-packer.h
 *
 * Packs blocks of an index's arrays (activities or items) off the thread
 * that made them and appends them to an unlinked spill file, so the zstd
 * of the pass runs on a core of its own and what was packed leaves memory.
 * A block is known by its ticket, given at submission in submission order;
 * its elements stay readable by ticket all along: from the copy handed
 * over while the block waits in the (bounded) queue, then from the file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-index-layout.h"

G_BEGIN_DECLS

typedef struct _StrataBlockPacker StrataBlockPacker;

/* Bytes strata_block_packer_put_parts() writes one after the other. */
typedef struct
{
  gconstpointer bytes;
  gsize         size;
} StrataBytesPart;

/* Part @i's stretch @bytes, @from bytes into it, @size long, is written. */
typedef void (*StrataPartWritten) (guint         i,
                                   gconstpointer bytes,
                                   gsize         size,
                                   gsize         from,
                                   gpointer      user_data);

StrataBlockPacker *strata_block_packer_new          (gsize               max_queued,
                                                     int                 zstd_level,
                                                     GError            **error);
void               strata_block_packer_free         (StrataBlockPacker  *self);
guint64            strata_block_packer_submit       (StrataBlockPacker  *self,
                                                     GBytes             *elems,
                                                     guint32             elem_size,
                                                     guint               per_block);
guint              strata_block_packer_read         (StrataBlockPacker  *self,
                                                     guint64             ticket,
                                                     void               *out);
/* Block @rec's packed bytes into @out (at least
 * STRATA_BLOCK_PACKER_MAX_PACKED bytes), checked against its checksum. */
typedef gboolean (*StrataBlockBytesReader) (const StrataIndexBlock *rec,
                                            guint8                 *out,
                                            gpointer                data);

guint              strata_block_packer_read_with    (StrataBlockPacker  *self,
                                                     guint64             ticket,
                                                     void               *out,
                                                     StrataBlockBytesReader read_bytes,
                                                     gpointer            data);
guint              strata_block_packer_read_direct  (StrataBlockPacker  *self,
                                                     guint64             ticket,
                                                     void               *out);
gboolean           strata_block_packer_append       (StrataBlockPacker  *self,
                                                     guint64             first_ticket,
                                                     guint               per_block,
                                                     guint64             n,
                                                     guint64             from,
                                                     guint64             count,
                                                     GArray             *out);
gboolean           strata_block_packer_get_record   (StrataBlockPacker  *self,
                                                     guint64             ticket,
                                                     StrataIndexBlock   *rec);
gboolean           strata_block_packer_read_bytes   (StrataBlockPacker  *self,
                                                     const StrataIndexBlock *rec,
                                                     guint8             *out);
guint64            strata_block_packer_put_bytes    (StrataBlockPacker  *self,
                                                     gconstpointer       bytes,
                                                     gsize               size);
guint64            strata_block_packer_put_parts    (StrataBlockPacker  *self,
                                                     const StrataBytesPart *parts,
                                                     guint               n_parts);
guint64            strata_block_packer_put_parts_full (StrataBlockPacker     *self,
                                                       const StrataBytesPart *parts,
                                                       guint                  n_parts,
                                                       StrataPartWritten      written,
                                                       gpointer               user_data);
gboolean           strata_block_packer_read_at      (StrataBlockPacker  *self,
                                                     guint64             offset,
                                                     gpointer            out,
                                                     gsize               size);
gboolean           strata_block_packer_read_at_direct (StrataBlockPacker *self,
                                                       guint64            offset,
                                                       gpointer           out,
                                                       gsize              size);
void               strata_block_packer_flush        (StrataBlockPacker  *self);
int                strata_block_packer_get_zstd_level (StrataBlockPacker *self);
gboolean           strata_block_packer_has_failed   (StrataBlockPacker  *self);
void               strata_block_packer_set_held     (StrataBlockPacker  *self,
                                                     gboolean            held);

/* An array given in pieces, cut into the same blocks. */
typedef struct _StrataBlockStream StrataBlockStream;

StrataBlockStream *strata_block_packer_begin        (StrataBlockPacker  *self,
                                                     guint32             elem_size,
                                                     guint               per_block);
void               strata_block_stream_add          (StrataBlockStream  *stream,
                                                     const void         *elems,
                                                     gsize               n);
guint64            strata_block_stream_end          (StrataBlockStream  *stream,
                                                     guint64            *n);

/* What a packer holds, for the memory accounting of its users. */
typedef struct
{
  gsize   queued;        /* bytes of elements submitted and not written yet */
  gsize   peak_queued;   /* the most that ever were */
  gsize   max_queued;    /* the bound submissions wait for */
  guint64 n_blocks;      /* tickets given */
  gsize   records;       /* bytes of the tickets' records in memory */
  guint64 file_size;     /* bytes written to the spill file */
  guint64 written;       /* bytes of elements written (decoded size) */
  guint64 n_waits;       /* submissions that waited for room in the queue */
  gint64  wait_us;       /* how long they waited in all */
  guint64 n_helped;      /* blocks submitters packed themselves, the queue full */
} StrataBlockPackerStats;

void               strata_block_packer_get_stats    (StrataBlockPacker       *self,
                                                     StrataBlockPackerStats  *stats);

/* The most bytes a packed block takes: 11 varints of 10 bytes and 2
 * bytes per element, zstd only when smaller. */
#define STRATA_BLOCK_PACKER_MAX_PACKED (STRATA_INDEX_MAX_BLOCK_ELEMS * (11 * 10 + 2))

G_END_DECLS
