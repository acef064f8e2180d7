/* strata-raw-store-windows.c
 *
 * The raw store's reads of its packer's file: a seal, a page, and for the
 * index writer a spilled block's bytes, through windows of the file while
 * the writer copies it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-block-packer.h"
#include "strata-file-windows.h"
#include "strata-packed-array.h"
#include "strata-raw-store-internal.h"
#include "strata-raw-store-private.h"

/* @size bytes the store put in its packer's file at @offset (a seal, a
 * page), through the windows while the index writer copies the file. */
gboolean
strata_raw_store_spill_read_at (StrataRawStore *self,
               guint64         offset,
               gpointer        out,
               gsize           size)
{
  if (self->windows != NULL)
    return strata_file_windows_read (self->windows, offset, out, size);
  return strata_block_packer_read_at (self->packer, offset, out, size);
}

/* The index writer goes through the lanes in the order of the channels,
 * the packer's file holds the seals and the blocks in the order the
 * channels closed, two streams interleaved, and a long-lived thread's
 * blocks over all of it: while it copies them, the file is read through a
 * few windows of it (strata-file-windows.c), one per stream, each read
 * once, instead of through the packer's one read-ahead buffer, which was
 * read again at each jump. */
#define WINDOWS      16
#define WINDOW_BYTES ((gsize) 256 << 10)

static gboolean
packer_read_at (gpointer data,
                guint64  offset,
                gpointer out,
                gsize    size)
{
  return strata_block_packer_read_at (data, offset, out, size);
}

/* For the index writer, before it copies the spilled lanes: every block
 * written, the file read through windows until
 * strata_raw_store_close_windows(). */
void
strata_raw_store_open_windows (StrataRawStore *self)
{
  StrataBlockPackerStats stats;

  g_return_if_fail (self != NULL && self->windows == NULL);

  if (self->packer == NULL)
    return;
  strata_raw_store_flush_seals (self);
  strata_block_packer_flush (self->packer);
  strata_block_packer_get_stats (self->packer, &stats);
  self->windows = strata_file_windows_new (WINDOWS, WINDOW_BYTES, stats.file_size, packer_read_at, self->packer);
}

void
strata_raw_store_close_windows (StrataRawStore *self)
{
  g_return_if_fail (self != NULL);

  if (self->windows != NULL)
    g_debug ("raw store: its file copied in %" G_GUINT64_FORMAT " reads",
             strata_file_windows_get_n_reads (self->windows));
  g_clear_pointer (&self->windows, strata_file_windows_free);
}

/* For the index writer: strata_block_packer_read_bytes() of a spilled
 * block, through the windows when they are open. */
gboolean
strata_raw_store_read_block_bytes (StrataRawStore         *self,
                                   const StrataIndexBlock *rec,
                                   guint8                 *out)
{
  if (self->windows == NULL)
    return strata_block_packer_read_bytes (self->packer, rec, out);
  if (rec->size > STRATA_BLOCK_PACKER_MAX_PACKED ||
      !strata_file_windows_read (self->windows, rec->offset, out, rec->size))
    return FALSE;
  return strata_index_checksum (out, rec->size) == rec->checksum;
}

