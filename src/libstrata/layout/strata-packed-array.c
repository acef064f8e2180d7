/* strata-packed-array.c
 *
 * Packed arrays, the reader's side: a block's record is checked (it is
 * an element of a checked array), then its bytes against the record's
 * checksum, then decoded; the decoded block goes to the map's block
 * cache, shared by every reader of the file, so a query decodes the
 * blocks it reads and a query after it pays a copy. A block that fails
 * any of it is remembered as damaged and said to the map once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-block-codec.h"
#include "strata-packed-array.h"

gboolean
strata_packed_array_init (StrataPackedArray *self,
                          StrataIndexMap    *map,
                          guint64            table_offset,
                          guint64            table_sums_offset,
                          guint64            n,
                          guint32            elem_size,
                          guint32            per_block,
                          const char        *what)
{
  guint64 n_blocks = (n + per_block - 1) / per_block;

  memset (self, 0, sizeof *self);
  if (n > G_MAXUINT32 || per_block == 0 || per_block > STRATA_INDEX_MAX_BLOCK_ELEMS ||
      (gsize) per_block * elem_size > STRATA_INDEX_MAX_BLOCK_BYTES ||
      !strata_checked_array_init (&self->table, map, table_offset, table_sums_offset, n_blocks,
                                  sizeof (StrataIndexBlock), STRATA_INDEX_TABLE_BLOCK, what))
    return FALSE;
  self->map = map;
  self->n = n;
  self->elem_size = elem_size;
  self->per_block = per_block;
  self->key = table_offset;
  self->what = what;
  return TRUE;
}

void
strata_packed_array_clear (StrataPackedArray *self)
{
  strata_checked_array_clear (&self->table);
  g_clear_pointer (&self->bad, g_free);
}

static gboolean
decode_record (StrataPackedArray      *self,
               const StrataIndexBlock *rec,
               guint                   n,
               void                   *out)
{
  gsize map_size;
  const guint8 *base = strata_index_map_get_data (self->map, &map_size);
  const guint8 *bytes;

  if (rec->n != n || rec->offset > map_size || rec->size > map_size - rec->offset)
    return FALSE;
  bytes = base + rec->offset;
  if (!strata_index_map_verify (self->map, bytes, rec->size, rec->checksum))
    return FALSE;

  /* A zstd context only for a block that needs one: the map's pool
   * lends it, so the readers make one per thread reading at once. */
  if (rec->codec == STRATA_INDEX_CODEC_ZSTD)
    {
      StrataBlockCache *cache = strata_index_map_get_cache (self->map);
      gpointer dctx = strata_block_cache_take_dctx (cache);
      gboolean ok = strata_block_unpack (bytes, rec->size, rec->codec, n, self->elem_size, dctx, out);

      strata_block_cache_give_dctx (cache, dctx);
      return ok;
    }
  return strata_block_unpack (bytes, rec->size, rec->codec, n, self->elem_size, NULL, out);
}

static guint
read_block (StrataPackedArray *self,
            guint64            b,
            void              *out,
            gboolean           cached)
{
  guint64 n_blocks = (self->n + self->per_block - 1) / self->per_block;
  guint n;
  const StrataIndexBlock *rec;
  guint32 *bad;

  if (b >= n_blocks)
    return 0;
  n = (guint) MIN ((guint64) self->per_block, self->n - b * self->per_block);

  bad = g_atomic_pointer_get (&self->bad);
  if (bad != NULL && (g_atomic_int_get ((gint *) &bad[b / 32]) & (1u << (b % 32))))
    return 0;

  if (cached && strata_block_cache_get (strata_index_map_get_cache (self->map), self->key, b, out, (gsize) n * self->elem_size))
    return n;

  if (!strata_checked_array_check (&self->table, b, b + 1))
    return 0;
  rec = (const StrataIndexBlock *) (gconstpointer) self->table.data + b;

  if (!decode_record (self, rec, n, out))
    {
      if (bad == NULL)
        {
          guint32 *fresh = g_new0 (guint32, n_blocks / 32 + 1);

          if (!g_atomic_pointer_compare_and_exchange (&self->bad, NULL, fresh))
            g_free (fresh);
          bad = g_atomic_pointer_get (&self->bad);
        }
      g_atomic_int_or ((guint *) &bad[b / 32], 1u << (b % 32));
      strata_index_map_note_damage (self->map, "%s: block %" G_GUINT64_FORMAT " fails its checksum",
                                    self->what, b);
      return 0;
    }

  if (cached)
    strata_block_cache_put (strata_index_map_get_cache (self->map), self->key, b, out, (gsize) n * self->elem_size);
  return n;
}

/**
 * strata_packed_array_read_block:
 * @out: room for the array's per_block elements
 *
 * Decodes block @b (through the map's cache of decoded blocks).
 *
 * Returns: its number of elements, or 0 if it is damaged (said once)
 */
guint
strata_packed_array_read_block (StrataPackedArray *self,
                                guint64            b,
                                void              *out)
{
  return read_block (self, b, out, TRUE);
}

/**
 * strata_packed_array_read_block_direct:
 *
 * Like strata_packed_array_read_block(), for a reader that keeps the
 * blocks it decodes (a query's result): the map's cache is neither
 * looked in nor filled, so a screen's worth of them does not push out
 * the blocks the other readers share.
 */
guint
strata_packed_array_read_block_direct (StrataPackedArray *self,
                                       guint64            b,
                                       void              *out)
{
  return read_block (self, b, out, FALSE);
}

/**
 * strata_packed_array_append:
 * @out: an array of the packed elements
 *
 * Appends elements [@from, @from + @count) to @out.
 *
 * Returns: %FALSE (and @out as it was) if a block they are in is damaged
 */
gboolean
strata_packed_array_append (StrataPackedArray *self,
                            guint64            from,
                            guint64            count,
                            GArray            *out)
{
  guint len = out->len;
  guint64 block64[STRATA_INDEX_MAX_BLOCK_BYTES / 8];
  guint8 *block = (guint8 *) block64;

  if (count == 0)
    return TRUE;
  if (from > self->n || count > self->n - from)
    return FALSE;

  for (guint64 b = from / self->per_block; b <= (from + count - 1) / self->per_block; b++)
    {
      guint64 first = b * self->per_block;
      guint n = (guint) MIN ((guint64) self->per_block, self->n - first);
      guint64 lo = MAX (first, from), hi = MIN (first + n, from + count);
      guint at = out->len;
      guint8 *dst;

      g_array_set_size (out, at + (guint) (hi - lo));
      dst = (guint8 *) out->data + (gsize) at * self->elem_size;

      /* A block in the cache: only the part wanted is copied. */
      if (strata_block_cache_get_range (strata_index_map_get_cache (self->map), self->key, b, (gsize) n * self->elem_size,
                                            (lo - first) * self->elem_size, (hi - lo) * self->elem_size, dst))
        continue;
      if (strata_packed_array_read_block (self, b, block) != n)
        {
          g_array_set_size (out, len);
          return FALSE;
        }
      memcpy (dst, block + (lo - first) * self->elem_size, (hi - lo) * self->elem_size);
    }
  return TRUE;
}
