/* strata-block-codec.h
 *
 * One block of activities or items in the form the index file and the
 * pass's spill files store it: varint columns, squeezed with zstd where
 * that pays (strata-block-codec.c says how).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-index-layout.h"

G_BEGIN_DECLS

void     strata_block_encode  (const void   *elems,
                               guint         n,
                               guint32       elem_size,
                               GByteArray   *out);
gboolean strata_block_decode  (const guint8 *bytes,
                               gsize         size,
                               guint         n,
                               guint32       elem_size,
                               void         *out);
void     strata_block_pack    (const void   *elems,
                               guint         n,
                               guint32       elem_size,
                               int           zstd_level,
                               GByteArray   *out,
                               guint8       *codec);
gboolean strata_block_unpack  (const guint8 *bytes,
                               gsize         size,
                               guint8        codec,
                               guint         n,
                               guint32       elem_size,
                               gpointer      dctx,
                               void         *out);

G_END_DECLS
