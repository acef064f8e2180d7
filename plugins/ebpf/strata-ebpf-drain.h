/* strata-ebpf-drain.h
 *
 * What one ring's consumer does with the records it takes out of the
 * ring: keeps them until their time is safely past (a record reserved a
 * little after another can carry an earlier time, and an interrupt's
 * program can run inside another's on the same CPU), puts them in time
 * order, and cuts them into blocks for the file. No BPF here: the
 * records come in as bytes, so the tests feed it their own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-ebpf-format.h"

G_BEGIN_DECLS

typedef struct _StrataEbpfDrain StrataEbpfDrain;

/* Receives each block: @n_records records in time order, @size bytes;
 * every later block of the ring holds records at or after @horizon
 * (unless one comes later than a drain period: see "late" below).
 * Returns FALSE on a write error, which stops the cut. */
typedef gboolean (*StrataEbpfBlockFunc) (const guint8  *records,
                                         gsize          size,
                                         guint32        n_records,
                                         guint64        horizon,
                                         gpointer       user_data,
                                         GError       **error);

StrataEbpfDrain *strata_ebpf_drain_new         (gsize                 block_size);
void             strata_ebpf_drain_free        (StrataEbpfDrain     *self);
/* Takes a record as the ring hands it over; FALSE when it is not a
 * record (too short, a size that disagrees with its length). */
gboolean         strata_ebpf_drain_add         (StrataEbpfDrain     *self,
                                                const void          *data,
                                                gsize                size);
/* Hands out, in blocks, every record held whose time is before
 * @watermark (G_MAXUINT64: all of them), in time order. Records of the
 * same time keep the order they came in. With nothing to hand out,
 * @empty_block still hands out a block of no records, which carries the
 * watermark to a reader following the file. */
gboolean         strata_ebpf_drain_cut         (StrataEbpfDrain     *self,
                                                guint64              watermark,
                                                gboolean             empty_block,
                                                StrataEbpfBlockFunc  func,
                                                gpointer             user_data,
                                                GError             **error);
gsize            strata_ebpf_drain_get_pending (StrataEbpfDrain     *self);
/* Records handed out by type (index: enum strata_ebpf_record_type), read
 * from any thread. */
guint64          strata_ebpf_drain_get_count   (StrataEbpfDrain     *self,
                                                guint                type);
/* Records that came after a block later than their time was cut. */
guint64          strata_ebpf_drain_get_late    (StrataEbpfDrain     *self);

G_END_DECLS
