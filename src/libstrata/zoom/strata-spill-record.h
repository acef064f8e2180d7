/* strata-spill-record.h
 *
 * How a level writes a lane's items to its spill file: each run (the
 * lane's items of one spill) delta-encoded on its own, item after item.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include "strata-aggregator.h"

G_BEGIN_DECLS

/* The most bytes one item takes encoded: two 64-bit varints of 10 bytes,
 * five 32-bit ones of 5, a 16-bit one of 3, two bytes and the busy time's
 * 64-bit varint. */
#define STRATA_SPILL_RECORD_MAX_ITEM (10 + 10 + 5 + 5 + 5 + 1 + 1 + 3 + 5 + 5 + 10)

/* What the next item is encoded against: the item before it in its run
 * (zeros at the run's start). */
typedef struct
{
  guint64 end;
  guint32 channel;
  guint32 label;
  guint32 arg;
} StrataSpillRecordState;

static inline void
strata_spill_record_begin (StrataSpillRecordState *state)
{
  memset (state, 0, sizeof *state);
}

gsize    strata_spill_record_encode (StrataSpillRecordState *state,
                                     const StrataZoomItem   *items,
                                     guint                   n,
                                     guint8                 *out);
gboolean strata_spill_record_decode (StrataSpillRecordState *state,
                                     const guint8          **p,
                                     const guint8           *end,
                                     StrataZoomItem         *out,
                                     guint                   n);

G_END_DECLS
