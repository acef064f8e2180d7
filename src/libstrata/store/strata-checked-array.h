/* strata-checked-array.h
 *
 * An array of fixed-size elements in a mapped index file, cut into
 * blocks of a fixed number of elements, each block with its own XXH3-64
 * checksum in a table beside it. A block is verified the first time a
 * reader touches it and remembered as sound or damaged (a bit each, set
 * atomically: any thread may be the first), so a query checks only the
 * pages it reads, and a damaged block is reported to the map once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-index-map.h"

G_BEGIN_DECLS

/* An array in the file whose blocks are checked when first touched. */
typedef struct
{
  StrataIndexMap *map;
  const guint8   *data;
  const guint64  *sums;
  guint64         n;
  guint32         elem_size;
  guint32         per_block;
  guint32        *checked;     /* bitmap: verified blocks, allocated on first use */
  guint32        *bad;         /* bitmap: blocks that failed */
  const char     *what;
} StrataCheckedArray;

gboolean strata_checked_array_init  (StrataCheckedArray *self,
                                     StrataIndexMap     *map,
                                     guint64             offset,
                                     guint64             sums_offset,
                                     guint64             n,
                                     guint32             elem_size,
                                     guint32             per_block,
                                     const char         *what);
void     strata_checked_array_clear (StrataCheckedArray *self);
gboolean strata_checked_array_check_slow (StrataCheckedArray *self,
                                          guint64             from,
                                          guint64             to);

/* Whether elements [from, to) are sound; a block found damaged is
 * reported to the map once and stays damaged. */
static inline gboolean
strata_checked_array_check (StrataCheckedArray *self,
                            guint64             from,
                            guint64             to)
{
  if (self == NULL || self->map == NULL)
    return TRUE;
  if (from < to && to - from == 1 && self->checked != NULL)
    {
      guint64 b = from / self->per_block;

      if (g_atomic_int_get ((gint *) &self->checked[b / 32]) & (1u << (b % 32)))
        return TRUE;
    }
  return strata_checked_array_check_slow (self, from, to);
}

G_END_DECLS
