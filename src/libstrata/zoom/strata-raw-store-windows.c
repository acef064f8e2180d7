/* strata-raw-store-windows.c
 *
 * The raw store's reads of its packer's file: a seal, a page, a spilled
 * block, and for the index writer a spilled block's bytes, through
 * windows of the file while the tree's finish computes chunks from the
 * lanes or the writer copies them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-block-packer.h"
#include "strata-file-windows.h"
#include "strata-packed-array.h"
#include "strata-raw-store-internal.h"
#include "strata-raw-store-private.h"

/* The windows, to the thread that opened them (the finish's, the index
 * writer's): it closes them too, so they never go while it reads. Another
 * thread (a view reading lanes while a trace loads) reads past them. */
static StrataFileWindows *
windows_of (StrataRawStore *self)
{
  if (g_atomic_pointer_get (&self->windows_thread) != g_thread_self ())
    return NULL;
  return self->windows;
}

/* @size bytes the store put in its packer's file at @offset (a seal, a
 * page), through the windows while the index writer copies the file. */
gboolean
strata_raw_store_spill_read_at (StrataRawStore *self,
               guint64         offset,
               gpointer        out,
               gsize           size)
{
  StrataFileWindows *windows = windows_of (self);

  if (windows != NULL)
    return strata_file_windows_read (windows, offset, out, size);
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

static gboolean
packer_read_at_direct (gpointer data,
                       guint64  offset,
                       gpointer out,
                       gsize    size)
{
  return strata_block_packer_read_at_direct (data, offset, out, size);
}

/* For the tree's finish, before it computes the chunks it deferred from
 * the lanes, and for the index writer, before it copies the spilled
 * lanes: every block written, the file read through windows until
 * strata_raw_store_close_windows(); a window that starts a stream reads
 * @first_fill bytes (0: the windows' default). The finish walks a few busy lanes
 * (a CPU's) over the whole trace, each a block here and there in the
 * file, once for each level it computes; through the packer's read-ahead,
 * which reads on up to 128 KiB where a read follows the last one, dense
 * 2M's finish read 180 MB of a 20 MB file. A window reads 16 KiB where a
 * stream skips, and a stream read right on, the channels' seals on churn,
 * grows its window. */
void
strata_raw_store_open_windows (StrataRawStore *self,
                               gsize           first_fill)
{
  StrataBlockPackerStats stats;

  g_return_if_fail (self != NULL && self->windows == NULL);

  if (self->packer == NULL)
    return;
  strata_raw_store_flush_seals (self);
  strata_block_packer_flush (self->packer);
  strata_block_packer_get_stats (self->packer, &stats);
  /* Windows that start small read past the packer's read-ahead, which
   * would read 128 KiB for each page. */
  self->windows = strata_file_windows_new (WINDOWS, WINDOW_BYTES, stats.file_size,
                                           first_fill > 0 ? packer_read_at_direct : packer_read_at,
                                           self->packer);
  if (first_fill > 0)
    strata_file_windows_set_first_fill (self->windows, first_fill);
  g_atomic_pointer_set (&self->windows_thread, g_thread_self ());
}

void
strata_raw_store_close_windows (StrataRawStore *self)
{
  g_return_if_fail (self != NULL);

  if (self->windows != NULL)
    g_debug ("raw store: its file read through windows in %" G_GUINT64_FORMAT " reads",
             strata_file_windows_get_n_reads (self->windows));
  g_atomic_pointer_set (&self->windows_thread, NULL);
  g_clear_pointer (&self->windows, strata_file_windows_free);
}

/* For the index writer: strata_block_packer_read_bytes() of a spilled
 * block, through the windows when they are open. */
gboolean
strata_raw_store_read_block_bytes (StrataRawStore         *self,
                                   const StrataIndexBlock *rec,
                                   guint8                 *out)
{
  StrataFileWindows *windows = windows_of (self);

  if (windows == NULL)
    return strata_block_packer_read_bytes (self->packer, rec, out);
  if (rec->size > STRATA_BLOCK_PACKER_MAX_PACKED ||
      !strata_file_windows_read (windows, rec->offset, out, rec->size))
    return FALSE;
  return strata_index_checksum (out, rec->size) == rec->checksum;
}

static gboolean
window_bytes (const StrataIndexBlock *rec,
              guint8                 *out,
              gpointer                data)
{
  return strata_raw_store_read_block_bytes (data, rec, out);
}

/* Spilled block @ticket's activities into @out, through the windows when
 * they are open. */
guint
strata_raw_store_read_spilled_block (StrataRawStore *self,
                                     guint64         ticket,
                                     StrataActivity *out)
{
  if (windows_of (self) == NULL)
    return strata_block_packer_read (self->packer, ticket, out);
  return strata_block_packer_read_with (self->packer, ticket, out, window_bytes, self);
}
