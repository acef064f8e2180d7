/* strata-ebpf-writer.c
 *
 * The recording's bytes on disk. The header goes first; each block is
 * written with one writev() at the end of the file under a lock, so the
 * rings' threads never interleave their bytes; a short or failed write
 * (ENOSPC) is cut off again with ftruncate(), so whatever happens the
 * file is a header and whole blocks. The writer remembers where each
 * block went, for the footer's index.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <gio/gio.h>
#include <xxhash.h>

#include "strata-ebpf-writer.h"

struct _StrataEbpfWriter
{
  GMutex   lock;
  char    *path;
  int      fd;
  guint64  size;      /* bytes written, all whole */
  GArray  *blocks;    /* struct strata_ebpf_block_entry */
  gboolean failed;    /* a write failed: nothing more goes in */
};

StrataEbpfWriter *
strata_ebpf_writer_new (const char  *path,
                        GError     **error)
{
  StrataEbpfWriter *self;
  int fd;

  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "cannot write %s: %s", path, g_strerror (errsv));
      return NULL;
    }

  self = g_new0 (StrataEbpfWriter, 1);
  g_mutex_init (&self->lock);
  self->path = g_strdup (path);
  self->fd = fd;
  self->blocks = g_array_new (FALSE, FALSE, sizeof (struct strata_ebpf_block_entry));

  return self;
}

void
strata_ebpf_writer_free (StrataEbpfWriter *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  g_array_unref (self->blocks);
  g_free (self->path);
  g_mutex_clear (&self->lock);
  g_free (self);
}

const char *
strata_ebpf_writer_get_path (StrataEbpfWriter *self)
{
  return self->path;
}

guint64
strata_ebpf_writer_get_size (StrataEbpfWriter *self)
{
  guint64 size;

  g_mutex_lock (&self->lock);
  size = self->size;
  g_mutex_unlock (&self->lock);

  return size;
}

/* Writes @iov whole at the end, or puts the file back as it was. Called
 * with the lock held. */
static gboolean
append (StrataEbpfWriter  *self,
        struct iovec      *iov,
        int                n_iov,
        GError           **error)
{
  gsize total = 0, done = 0;

  if (self->failed)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "%s: an earlier write failed", self->path);
      return FALSE;
    }

  for (int i = 0; i < n_iov; i++)
    total += iov[i].iov_len;

  while (done < total)
    {
      ssize_t n = pwritev (self->fd, iov, n_iov, self->size + done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int errsv = n < 0 ? errno : ENOSPC;

          /* Whole blocks only: what part of this one went in comes out. */
          if (ftruncate (self->fd, self->size) != 0)
            { /* the reader still finds the last whole block by its checksum */ }
          self->failed = TRUE;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       "%s: offset %" G_GUINT64_FORMAT ": %s", self->path,
                       self->size, g_strerror (errsv));
          return FALSE;
        }

      done += n;
      /* Step over what went in. */
      while (n > 0 && n_iov > 0)
        {
          if ((gsize) n >= iov->iov_len)
            {
              n -= iov->iov_len;
              iov++;
              n_iov--;
            }
          else
            {
              iov->iov_base = (guint8 *) iov->iov_base + n;
              iov->iov_len -= n;
              n = 0;
            }
        }
    }

  self->size += total;
  return TRUE;
}

gboolean
strata_ebpf_writer_write_header (StrataEbpfWriter        *self,
                                 const StrataEbpfHeader  *header,
                                 GError                 **error)
{
  g_autoptr(GBytes) bytes = strata_ebpf_header_serialize (header);
  struct iovec iov = { (void *) g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes) };
  gboolean ok;

  g_mutex_lock (&self->lock);
  g_assert (self->size == 0);
  ok = append (self, &iov, 1, error);
  g_mutex_unlock (&self->lock);

  return ok;
}

static void
fill_block (struct strata_ebpf_block *b,
            guint16                   ring,
            const guint8             *records,
            gsize                     size,
            guint32                   n_records,
            guint64                   horizon)
{
  struct strata_ebpf_record first, last;

  memset (b, 0, sizeof *b);
  b->magic = GUINT32_TO_LE (STRATA_EBPF_BLOCK_MAGIC);
  b->size = GUINT32_TO_LE ((guint32) size);
  b->ring = GUINT16_TO_LE (ring);
  b->n_records = GUINT32_TO_LE (n_records);
  b->horizon = GUINT64_TO_LE (horizon);

  if (n_records > 0)
    {
      gsize at = 0, last_at = 0;

      memcpy (&first, records, sizeof first);
      /* The last record is found by walking: sizes vary. */
      while (at < size)
        {
          struct strata_ebpf_record r;

          memcpy (&r, records + at, sizeof r);
          last_at = at;
          at += (gsize) r.size8 * 8;
        }
      memcpy (&last, records + last_at, sizeof last);
      b->first_ts = first.ts;
      b->last_ts = last.ts;
    }
  else
    {
      b->first_ts = GUINT64_TO_LE (horizon);
      b->last_ts = GUINT64_TO_LE (horizon);
    }
}

gboolean
strata_ebpf_writer_write_block (StrataEbpfWriter  *self,
                                guint16            ring,
                                const guint8      *records,
                                gsize              size,
                                guint32            n_records,
                                guint64            horizon,
                                GError           **error)
{
  struct strata_ebpf_block b;
  struct strata_ebpf_block_entry entry;
  struct iovec iov[2];
  XXH3_state_t *state;
  gboolean ok;

  g_return_val_if_fail (size <= STRATA_EBPF_BLOCK_MAX_SIZE, FALSE);
  g_return_val_if_fail (size % 8 == 0, FALSE);

  fill_block (&b, ring, records, size, n_records, horizon);

  state = XXH3_createState ();
  XXH3_64bits_reset (state);
  XXH3_64bits_update (state, &b, sizeof b);
  XXH3_64bits_update (state, records, size);
  b.checksum = GUINT64_TO_LE (XXH3_64bits_digest (state));
  XXH3_freeState (state);

  iov[0].iov_base = &b;
  iov[0].iov_len = sizeof b;
  iov[1].iov_base = (void *) records;
  iov[1].iov_len = size;

  g_mutex_lock (&self->lock);
  entry.offset = self->size;
  entry.first_ts = b.first_ts;
  entry.last_ts = b.last_ts;
  entry.n_records = b.n_records;
  entry.ring = b.ring;
  entry.pad = 0;
  ok = append (self, iov, size > 0 ? 2 : 1, error);
  if (ok)
    g_array_append_val (self->blocks, entry);
  g_mutex_unlock (&self->lock);

  return ok;
}

gboolean
strata_ebpf_writer_finish (StrataEbpfWriter                 *self,
                           const struct strata_ebpf_clocks  *stop,
                           const guint64                    *lost,
                           guint                             n_cpus,
                           const guint64                    *counts,
                           GError                          **error)
{
  g_autoptr(GByteArray) body = g_byte_array_new ();
  struct strata_ebpf_footer footer = { 0 };
  struct strata_ebpf_trailer trailer;
  struct strata_ebpf_block b;
  struct iovec iov[3];
  XXH3_state_t *state;
  guint64 footer_offset;
  gboolean ok;

  g_mutex_lock (&self->lock);

  footer.stop.monotonic = GUINT64_TO_LE (stop->monotonic);
  footer.stop.realtime = GUINT64_TO_LE (stop->realtime);
  footer.stop.boottime = GUINT64_TO_LE (stop->boottime);
  footer.n_cpus = GUINT32_TO_LE (n_cpus);
  footer.n_blocks = GUINT32_TO_LE (self->blocks->len);
  footer.n_types = GUINT32_TO_LE (STRATA_EBPF_N_RECORD_TYPES);
  g_byte_array_append (body, (const guint8 *) &footer, sizeof footer);
  for (guint i = 0; i < n_cpus; i++)
    {
      guint64 v = GUINT64_TO_LE (lost[i]);
      g_byte_array_append (body, (const guint8 *) &v, sizeof v);
    }
  for (guint i = 0; i < STRATA_EBPF_N_RECORD_TYPES; i++)
    {
      guint64 v = GUINT64_TO_LE (counts[i]);
      g_byte_array_append (body, (const guint8 *) &v, sizeof v);
    }
  g_byte_array_append (body, (const guint8 *) self->blocks->data,
                       self->blocks->len * sizeof (struct strata_ebpf_block_entry));

  if (body->len > STRATA_EBPF_BLOCK_MAX_SIZE)
    {
      /* Past 2M blocks the index would not fit in a block: the reader
       * does without it (it never needs it), so none is written. */
      footer.n_blocks = 0;
      memcpy (body->data, &footer, sizeof footer);
      g_byte_array_set_size (body, sizeof footer + (n_cpus + STRATA_EBPF_N_RECORD_TYPES) * 8);
    }

  memset (&b, 0, sizeof b);
  b.magic = GUINT32_TO_LE (STRATA_EBPF_BLOCK_MAGIC);
  b.size = GUINT32_TO_LE (body->len);
  b.ring = GUINT16_TO_LE (STRATA_EBPF_RING_FOOTER);
  b.n_records = 0;
  state = XXH3_createState ();
  XXH3_64bits_reset (state);
  XXH3_64bits_update (state, &b, sizeof b);
  XXH3_64bits_update (state, body->data, body->len);
  b.checksum = GUINT64_TO_LE (XXH3_64bits_digest (state));
  XXH3_freeState (state);

  footer_offset = self->size;
  trailer.footer_offset = GUINT64_TO_LE (footer_offset);
  memcpy (trailer.magic, STRATA_EBPF_TRAILER_MAGIC, STRATA_EBPF_MAGIC_LEN);

  iov[0].iov_base = &b;
  iov[0].iov_len = sizeof b;
  iov[1].iov_base = body->data;
  iov[1].iov_len = body->len;
  iov[2].iov_base = &trailer;
  iov[2].iov_len = sizeof trailer;
  ok = append (self, iov, 3, error);

  if (ok && close (self->fd) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "%s: %s", self->path, g_strerror (errsv));
      ok = FALSE;
    }
  self->fd = -1;

  g_mutex_unlock (&self->lock);

  return ok;
}
