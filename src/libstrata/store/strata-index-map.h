/* strata-index-map.h
 *
 * An index file in memory: mapped (or, for the fuzzer and the tests,
 * bytes already in memory), shared by everything read from it (the zoom
 * tree, its raw store, the trace's statistics) through a reference each.
 * It answers whether a range lies inside the file, checks bytes against
 * their checksum (XXH3-64), remembers the first damage any reader found
 * (said once, so a damaged index is rebuilt) and keeps the cache of
 * decoded blocks its readers share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-block-cache.h"

G_BEGIN_DECLS

typedef struct _StrataIndexMap StrataIndexMap;

StrataIndexMap   *strata_index_map_new             (const char      *path,
                                                    GError         **error);
StrataIndexMap   *strata_index_map_new_from_bytes  (GBytes          *bytes);
StrataIndexMap   *strata_index_map_ref             (StrataIndexMap  *self);
void              strata_index_map_unref           (StrataIndexMap  *self);
const guint8     *strata_index_map_get_data        (StrataIndexMap  *self,
                                                    gsize           *size);
gboolean          strata_index_map_contains        (StrataIndexMap  *self,
                                                    guint64          offset,
                                                    guint64          count,
                                                    guint64          elem_size);
gboolean          strata_index_map_verify          (StrataIndexMap  *self,
                                                    const void      *data,
                                                    gsize            size,
                                                    guint64          checksum);

/* Checks @n elements from the @first: whether they are sound. */
typedef gboolean (*StrataIndexVisitFunc) (const void *elements,
                                          gsize       first,
                                          gsize       n,
                                          gpointer    user_data);

gboolean          strata_index_map_verify_visit    (StrataIndexMap       *self,
                                                    const void           *data,
                                                    gsize                 size,
                                                    guint64               checksum,
                                                    gsize                 elem_size,
                                                    StrataIndexVisitFunc  visit,
                                                    gpointer              user_data,
                                                    gboolean             *visited);
void              strata_index_map_let_go          (StrataIndexMap  *self,
                                                    const void      *data,
                                                    gsize            size);
void              strata_index_map_note_damage     (StrataIndexMap  *self,
                                                    const char      *format,
                                                    ...) G_GNUC_PRINTF (2, 3);
const char       *strata_index_map_get_damage      (StrataIndexMap  *self);
StrataBlockCache *strata_index_map_get_cache       (StrataIndexMap  *self);

guint64           strata_index_checksum            (const void      *data,
                                                    gsize            size);

/* strata_index_checksum() of bytes given a part at a time: the same
 * checksum as of them all in one piece, which then need not be made. */
typedef struct _StrataIndexHasher StrataIndexHasher;

StrataIndexHasher *strata_index_hasher_new         (void);
void               strata_index_hasher_add         (StrataIndexHasher *self,
                                                    const void        *data,
                                                    gsize              size);
guint64            strata_index_hasher_free        (StrataIndexHasher *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataIndexMap, strata_index_map_unref)

G_END_DECLS
