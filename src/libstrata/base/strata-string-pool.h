/* strata-string-pool.h
 *
 * Interned strings. Activities and channels carry 32-bit ids instead of
 * pointers, so the hot arrays stay small and a string such as a comm that
 * appears millions of times is stored once. Id 0 is the empty string.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _StrataStringPool StrataStringPool;

#define STRATA_STRING_NONE 0u

StrataStringPool *strata_string_pool_new       (void);
StrataStringPool *strata_string_pool_ref       (StrataStringPool *self);
void              strata_string_pool_unref     (StrataStringPool *self);
guint32           strata_string_pool_intern    (StrataStringPool *self,
                                                const char       *str);
guint32           strata_string_pool_intern_len (StrataStringPool *self,
                                                 const char       *str,
                                                 gssize            len);
const char       *strata_string_pool_get       (StrataStringPool *self,
                                                guint32           id);
guint             strata_string_pool_get_size  (StrataStringPool *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataStringPool, strata_string_pool_unref)

G_END_DECLS
