/* strata-spilled-array.h
 *
 * A growing array of fixed-size elements kept in a spill file
 * (strata-spill-file.h) and mapped shared, so its pages can be let go of
 * the process's memory once what it holds is seldom read: the data stays
 * in the file (and the page cache), and a read or a write of a let-go
 * element brings its page back. What must stay in memory is then what
 * is being worked on, not everything the array ever held: a trace of a
 * million threads has a million channels, and most are closed.
 *
 * Elements are addressed as in a GArray (data, len), and, as in a
 * GArray, growing may move the data. While it is small (up to the 4 MiB
 * it would keep in memory anyway), and without a spill file (no folder
 * for one), the array is in the heap and letting go does nothing.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint8 *data;
  guint   len;          /* elements */

  /*< private >*/
  guint   elem_size;
  gsize   capacity;     /* elements the mapping (or the heap block) holds */
  gsize   bytes;        /* its size */
  int     fd;           /* -1: none yet, or in_heap */
  gboolean in_heap;     /* no spill file: in the heap */
  gsize   grown;        /* len * elem_size at the last automatic let-go */
} StrataSpilledArray;

#define strata_spilled_array_index(a, t, i) (((t *) (gpointer) (a)->data)[(i)])

StrataSpilledArray *strata_spilled_array_new      (guint               elem_size);
void                strata_spilled_array_free     (StrataSpilledArray *self);
void                strata_spilled_array_set_size (StrataSpilledArray *self,
                                                   guint               len);
gpointer            strata_spilled_array_append   (StrataSpilledArray *self,
                                                   gconstpointer       elem);
void                strata_spilled_array_let_go   (StrataSpilledArray *self,
                                                   guint               before);
gsize               strata_spilled_array_get_heap_bytes (const StrataSpilledArray *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataSpilledArray, strata_spilled_array_free)

G_END_DECLS
