/* strata-perf-tokenizer.c
 *
 * The record stream of a perf.data: records read in place from the
 * mapped file, the pages behind given back as reading goes on, and
 * COMPRESSED records inflated as one zstd stream whose output is a run of
 * records that may straddle two compressed records. Every size is
 * checked against what is left before a record is handed out.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <sys/mman.h>

#include "strata-perf-private.h"

static gboolean
inflate_record (StrataPerfSource  *self,
                const guint8      *data,
                gsize              len,
                guint64            offset,
                GError           **error)
{
  ZSTD_inBuffer in = { data, len, 0 };
  gsize keep = self->decomp_len - self->decomp_pos;

  if (self->zstd == NULL)
    {
      self->zstd = ZSTD_createDStream ();
      ZSTD_initDStream (self->zstd);
    }

  /* What is left of the last output is the start of a record that goes
   * on in this one. */
  if (keep > 0 && self->decomp_pos > 0)
    memmove (self->decomp, self->decomp + self->decomp_pos, keep);
  self->decomp_len = keep;
  self->decomp_pos = 0;
  self->decomp_from = offset;

  while (in.pos < in.size)
    {
      ZSTD_outBuffer out;
      size_t ret;

      if (self->decomp_alloc - self->decomp_len < 65536)
        {
          if (self->decomp_alloc >= MAX_DECOMP)
            return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                                     "a COMPRESSED record inflates to more than %u bytes", MAX_DECOMP);
          self->decomp_alloc = MAX (self->decomp_alloc * 2, 1u << 20);
          self->decomp = g_realloc (self->decomp, self->decomp_alloc);
        }

      out.dst = self->decomp;
      out.size = self->decomp_alloc;
      out.pos = self->decomp_len;
      ret = ZSTD_decompressStream (self->zstd, &out, &in);
      if (ZSTD_isError (ret))
        return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                                 "a COMPRESSED record does not inflate: %s", ZSTD_getErrorName (ret));
      if (out.pos == self->decomp_len && in.pos < in.size && out.pos < out.size)
        return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                                 "a COMPRESSED record does not inflate");
      self->decomp_len = out.pos;
    }

  return TRUE;
}

/* The next record: from the inflated bytes first, then the file. Returns
 * FALSE at the end (error unset) or on damage. */
gboolean
strata_perf_next_record (StrataPerfSource  *self,
                         Record            *rec,
                         GError           **error)
{
  for (;;)
    {
      gsize avail = self->decomp_len - self->decomp_pos;

      if (avail >= 8)
        {
          const guint8 *h = self->decomp + self->decomp_pos;
          guint16 size = rd16 (self, h + 6);

          if (size < 8)
            return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, self->decomp_from,
                                     "a record of size %u at byte %" G_GSIZE_FORMAT " of the data "
                                     "inflated from the COMPRESSED record here", size, self->decomp_pos);
          if (size <= avail)
            {
              rec->type = rd32 (self, h);
              rec->misc = rd16 (self, h + 4);
              rec->size = size;
              rec->body = h + 8;
              rec->body_len = size - 8;
              rec->offset = self->decomp_from;
              rec->inflated = TRUE;
              self->decomp_pos += size;
              return TRUE;
            }
        }

      if (self->pos >= self->data_end)
        {
          if (avail > 0)
            return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, self->decomp_from,
                                     "the compressed data ends inside a record");
          if (self->data_cut)
            return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, self->pos,
                                     "the file ends here, inside its data section of %" G_GUINT64_FORMAT
                                     " bytes at %" G_GUINT64_FORMAT, self->data_size, self->data_offset);
          return FALSE;
        }

      if (self->data_end - self->pos < 8)
        return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, self->pos,
                                 "the file ends inside a record's header");

      /* The records behind are decoded and copied: their pages go back to
       * the page cache, so resident memory does not grow with the file. */
      if (self->pos - self->dropped_until > DROP_STEP)
        {
          guint64 until = (self->pos - 65536) & ~(guint64) (DROP_STEP - 1);

          if (until > self->dropped_until)
            {
              madvise ((void *) (self->map + self->dropped_until), until - self->dropped_until,
                       MADV_DONTNEED);
              self->dropped_until = until;
            }
        }

      {
        const guint8 *h = self->map + self->pos;
        guint32 type = rd32 (self, h);
        guint16 size = rd16 (self, h + 6);

        if (size < 8)
          return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, self->pos,
                                   "a record (type %u) of size %u, less than its own header", type, size);
        if (size > self->data_end - self->pos)
          return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, self->pos,
                                   "a record (type %u) of %u bytes runs past the end of the %s "
                                   "(%" G_GUINT64_FORMAT " bytes left)", type, size,
                                   self->data_end < self->map_len ? "data section" : "file",
                                   self->data_end - self->pos);

        rec->type = type;
        rec->misc = rd16 (self, h + 4);
        rec->size = size;
        rec->body = h + 8;
        rec->body_len = size - 8;
        rec->offset = self->pos;
        rec->inflated = FALSE;
        self->pos += size;

        if (type == PERF_RECORD_COMPRESSED || type == PERF_RECORD_COMPRESSED2)
          {
            const guint8 *data = rec->body;
            gsize data_len = rec->body_len;

            self->record_counts[type]++;
            if (type == PERF_RECORD_COMPRESSED2)
              {
                guint64 n;

                if (data_len < 8)
                  return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                                           "a COMPRESSED2 record without its data size");
                n = rd64 (self, data);
                if (n > data_len - 8)
                  return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                                           "a COMPRESSED2 record says %" G_GUINT64_FORMAT " bytes, "
                                           "holds %" G_GSIZE_FORMAT, n, data_len - 8);
                data += 8;
                data_len = n;
              }
            if (!inflate_record (self, data, data_len, rec->offset, error))
              return FALSE;
            continue;
          }

        return TRUE;
      }
    }
}
