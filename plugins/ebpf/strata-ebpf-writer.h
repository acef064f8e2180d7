/* strata-ebpf-writer.h
 *
 * Writes an eBPF recording: the header, then blocks appended one after
 * the other as the rings are drained (from several threads), then on a
 * clean stop the footer and the trailer. Every block is whole and
 * checksummed when it is in the file, so a reader may follow the file
 * while it grows and a recording killed at any moment reads up to its
 * last complete block.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-ebpf-header.h"

G_BEGIN_DECLS

typedef struct _StrataEbpfWriter StrataEbpfWriter;

StrataEbpfWriter *strata_ebpf_writer_new          (const char             *path,
                                                   GError                **error);
void              strata_ebpf_writer_free         (StrataEbpfWriter       *self);
gboolean          strata_ebpf_writer_write_header (StrataEbpfWriter       *self,
                                                   const StrataEbpfHeader *header,
                                                   GError                **error);
/* Appends a block of @n_records records (@size bytes, in time order) of
 * @ring. Safe to call from several threads. On a failed write (a full
 * disk) the file is cut back to its last whole block and the error names
 * the offset. */
gboolean          strata_ebpf_writer_write_block  (StrataEbpfWriter       *self,
                                                   guint16                 ring,
                                                   const guint8           *records,
                                                   gsize                   size,
                                                   guint32                 n_records,
                                                   guint64                 horizon,
                                                   GError                **error);
/* Writes the footer (@lost: records dropped per CPU; @counts: records
 * written by type, STRATA_EBPF_N_RECORD_TYPES of them) and the trailer. */
gboolean          strata_ebpf_writer_finish       (StrataEbpfWriter       *self,
                                                   const struct strata_ebpf_clocks *stop,
                                                   const guint64          *lost,
                                                   guint                   n_cpus,
                                                   const guint64          *counts,
                                                   GError                **error);
/* Bytes in the file so far; thread-safe. */
guint64           strata_ebpf_writer_get_size     (StrataEbpfWriter       *self);
const char       *strata_ebpf_writer_get_path     (StrataEbpfWriter       *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataEbpfWriter, strata_ebpf_writer_free)

G_END_DECLS
