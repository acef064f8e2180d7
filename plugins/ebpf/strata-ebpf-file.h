/* strata-ebpf-file.h
 *
 * An eBPF recording read block by block, from the front, as the recorder
 * wrote it: the header once, then each block checked (its checksum, and
 * that its records walk exactly to its end in time order) before it is
 * handed out. The reader never needs the footer. At the file's end it
 * says whether the recording is complete (the footer was read), or ends
 * after a whole block, or inside one; a reader following a file that is
 * still being written asks again later and resumes at the same offset.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-ebpf-header.h"

G_BEGIN_DECLS

typedef struct _StrataEbpfFile StrataEbpfFile;

typedef enum
{
  STRATA_EBPF_FILE_BLOCK,     /* a block was read */
  STRATA_EBPF_FILE_COMPLETE,  /* the footer: the recording was stopped cleanly */
  STRATA_EBPF_FILE_AT_END,    /* no whole block after this offset (yet) */
  STRATA_EBPF_FILE_DAMAGED,   /* the block here is not one: error set */
} StrataEbpfFileStatus;

typedef struct
{
  guint64  offset;      /* of the block's header; its records follow it */
  guint16  ring;
  guint32  n_records;
  guint64  first_ts;
  guint64  last_ts;
  guint64  horizon;
  GBytes  *records;     /* owned by the caller */
} StrataEbpfBlockData;

/* What the footer says, when there is one. */
typedef struct
{
  struct strata_ebpf_clocks stop;
  GArray                   *lost;      /* guint64 per CPU */
  GArray                   *counts;    /* guint64 per record type */
  guint64                   first_ts;  /* from the block index; G_MAXUINT64 if empty */
  guint64                   last_ts;
  guint                     n_blocks;
} StrataEbpfFooter;

/* Opens @path and reads its header; @name is how errors call the file. */
StrataEbpfFile         *strata_ebpf_file_open          (const char           *path,
                                                        const char           *name,
                                                        GError              **error);
void                    strata_ebpf_file_free          (StrataEbpfFile       *self);
const StrataEbpfHeader *strata_ebpf_file_get_header    (StrataEbpfFile       *self);
/* The footer, found through the trailer at open (NULL when the file has
 * none: a recording that was killed, or one still being written). */
const StrataEbpfFooter *strata_ebpf_file_get_footer    (StrataEbpfFile       *self);
StrataEbpfFileStatus    strata_ebpf_file_next          (StrataEbpfFile       *self,
                                                        StrataEbpfBlockData  *block,
                                                        GError              **error);
/* Where the next block is expected: how far the file has been read. */
guint64                 strata_ebpf_file_get_offset    (StrataEbpfFile       *self);
/* After STRATA_EBPF_FILE_AT_END: bytes past the offset that are not a
 * whole block (0 when the file ends right after one). */
guint64                 strata_ebpf_file_get_tail      (StrataEbpfFile       *self);
void                    strata_ebpf_block_data_clear   (StrataEbpfBlockData  *block);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataEbpfFile, strata_ebpf_file_free)

G_END_DECLS
