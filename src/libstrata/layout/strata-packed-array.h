/* strata-packed-array.h
 *
 * An array of activities or items in an index file, in packed blocks
 * (strata-block-codec.h) whose records form a checked array: read one
 * block, or a range of elements, at a time, each block checked and
 * decoded on the way.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-checked-array.h"
#include "strata-index-layout.h"

G_BEGIN_DECLS

/* A packed array in the file: its blocks decoded one at a time, each
 * checked first (strata-packed-array.c). */
typedef struct
{
  StrataIndexMap     *map;
  StrataCheckedArray  table;   /* StrataIndexBlock */
  guint64             n;
  guint32             elem_size;
  guint32             per_block;
  guint64             key;     /* for the map's cache of decoded blocks */
  guint32            *bad;     /* bitmap: blocks that failed */
  const char         *what;
} StrataPackedArray;

gboolean strata_packed_array_init   (StrataPackedArray *self,
                                     StrataIndexMap    *map,
                                     guint64            table_offset,
                                     guint64            table_sums_offset,
                                     guint64            n,
                                     guint32            elem_size,
                                     guint32            per_block,
                                     const char        *what);
void     strata_packed_array_clear  (StrataPackedArray *self);
guint    strata_packed_array_read_block (StrataPackedArray *self,
                                         guint64            b,
                                         void              *out);
guint    strata_packed_array_read_block_direct (StrataPackedArray *self,
                                                guint64            b,
                                                void              *out);
gboolean strata_packed_array_append (StrataPackedArray *self,
                                     guint64            from,
                                     guint64            count,
                                     GArray            *out);

G_END_DECLS
