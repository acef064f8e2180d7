/* strata-checked-array.c
 *
 * The bitmaps of checked and damaged blocks are made on the first check
 * (most arrays of a big index are never read in one session) and
 * published with a compare-and-exchange, so two threads checking at once
 * share one. A block found damaged stays so: the reader that finds it
 * and every later one get FALSE, and the map says it once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-checked-array.h"

gboolean
strata_checked_array_init (StrataCheckedArray *self,
                           StrataIndexMap     *map,
                           guint64             offset,
                           guint64             sums_offset,
                           guint64             n,
                           guint32             elem_size,
                           guint32             per_block,
                           const char         *what)
{
  guint64 n_blocks = (n + per_block - 1) / per_block;

  memset (self, 0, sizeof *self);
  if (n > G_MAXUINT32 ||
      !strata_index_map_contains (map, offset, n, elem_size) ||
      !strata_index_map_contains (map, sums_offset, n_blocks, sizeof (guint64)))
    return FALSE;

  self->map = map;
  self->data = strata_index_map_get_data (map, &(gsize){ 0 }) + offset;
  self->sums = (const guint64 *)(gconstpointer)(strata_index_map_get_data (map, &(gsize){ 0 }) + sums_offset);
  self->n = n;
  self->elem_size = elem_size;
  self->per_block = per_block;
  self->what = what;
  return TRUE;
}

void
strata_checked_array_clear (StrataCheckedArray *self)
{
  g_clear_pointer (&self->checked, g_free);
  g_clear_pointer (&self->bad, g_free);
}

static guint32 *
bitmap (guint32 **slot,
        guint64   n_blocks)
{
  guint32 *bits = g_atomic_pointer_get (slot);

  if (bits == NULL)
    {
      guint32 *fresh = g_new0 (guint32, n_blocks / 32 + 1);

      if (!g_atomic_pointer_compare_and_exchange (slot, NULL, fresh))
        g_free (fresh);
      bits = g_atomic_pointer_get (slot);
    }
  return bits;
}

gboolean
strata_checked_array_check_slow (StrataCheckedArray *self,
                                 guint64             from,
                                 guint64             to)
{
  guint64 n_blocks = (self->n + self->per_block - 1) / self->per_block;
  guint32 *checked, *bad;
  gboolean ok = TRUE;

  to = MIN (to, self->n);
  if (from >= to)
    return TRUE;

  checked = bitmap (&self->checked, n_blocks);
  bad = bitmap (&self->bad, n_blocks);

  for (guint64 b = from / self->per_block; b <= (to - 1) / self->per_block; b++)
    {
      guint32 bit = 1u << (b % 32);
      guint64 first = b * self->per_block;
      guint64 len = MIN (self->per_block, self->n - first);

      if (g_atomic_int_get ((gint *) &checked[b / 32]) & bit)
        continue;
      if (g_atomic_int_get ((gint *) &bad[b / 32]) & bit)
        {
          ok = FALSE;
          continue;
        }
      if (strata_index_map_verify (self->map, self->data + first * self->elem_size,
                                   len * self->elem_size, self->sums[b]))
        g_atomic_int_or ((guint *) &checked[b / 32], bit);
      else
        {
          g_atomic_int_or ((guint *) &bad[b / 32], bit);
          strata_index_map_note_damage (self->map, "%s: block %" G_GUINT64_FORMAT
                                        " fails its checksum", self->what, b);
          ok = FALSE;
        }
    }

  return ok;
}
