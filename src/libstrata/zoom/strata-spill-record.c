/* strata-spill-record.c
 *
 * A level's open chunk spills its lanes' items (strata-level-spill.c) and
 * reads them all back when the chunk ends. The dense shape's level 0
 * spills every busy thread's row that way: 11.7M items of 48 bytes, 560
 * MB written and read back through the page cache, for 20M events, in
 * runs of a few items a lane, so reading them back was a pread() for
 * every few kilobytes. Within a run the items are one lane's, in time
 * order, so each is written against the one before: its start from the
 * previous end, its length, its busy time from its length, its channel,
 * label and argument as differences, every number a LEB128 varint (a
 * zigzag one where the difference can be negative). An item takes 12 to
 * 16 bytes so, and the file and its reads a quarter of what they were.
 * Only this process reads the file back; a run that does not decode to
 * its items makes the reading fail, as a short read does.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-spill-record.h"
#include "strata-varint.h"

/* Encodes @n items after the ones @state saw into @out, which has room
 * for STRATA_SPILL_RECORD_MAX_ITEM bytes an item. Returns the bytes it
 * took. */
gsize
strata_spill_record_encode (StrataSpillRecordState *state,
                            const StrataZoomItem   *items,
                            guint                   n,
                            guint8                 *out)
{
  guint8 *p = out;

  for (guint i = 0; i < n; i++)
    {
      const StrataZoomItem *it = &items[i];
      guint64 length = (guint64) it->end - (guint64) it->start;

      p = strata_varint_put (p, strata_zigzag64 ((guint64) it->start - state->end));
      p = strata_varint_put (p, strata_zigzag64 (length));
      p = strata_varint_put (p, strata_zigzag32 (it->channel - state->channel));
      p = strata_varint_put (p, strata_zigzag32 (it->label - state->label));
      p = strata_varint_put (p, strata_zigzag32 ((guint32) it->arg - state->arg));
      *p++ = it->kind;
      *p++ = it->state;
      p = strata_varint_put (p, it->flags);
      p = strata_varint_put (p, it->count);
      p = strata_varint_put (p, it->reserved);
      p = strata_varint_put (p, strata_zigzag64 (length - (guint64) it->busy));
      state->end = (guint64) it->end;
      state->channel = it->channel;
      state->label = it->label;
      state->arg = (guint32) it->arg;
    }
  return (gsize) (p - out);
}

/* A varint of at most @max_bits bits at *@p, before @end; FALSE if it is
 * cut short or too long. */
static inline gboolean
get_varint (const guint8 **p,
            const guint8  *end,
            guint          max_bits,
            guint64       *v)
{
  const guint8 *q = *p;
  guint64 x = 0;

  for (guint shift = 0; q < end; shift += 7)
    {
      guint8 b = *q++;

      if (shift >= max_bits)
        return FALSE;
      x |= (guint64) (b & 0x7f) << shift;
      if (b < 0x80)
        {
          *p = q;
          *v = x;
          return TRUE;
        }
    }
  return FALSE;
}

/* Decodes the next @n items of the run from *@p (advanced), before @end,
 * into @out. FALSE if the bytes are not @n items. */
gboolean
strata_spill_record_decode (StrataSpillRecordState *state,
                            const guint8          **p,
                            const guint8           *end,
                            StrataZoomItem         *out,
                            guint                   n)
{
  for (guint i = 0; i < n; i++)
    {
      StrataZoomItem *it = &out[i];
      guint64 start, length, channel, label, arg, flags, count, reserved, idle;

      if (!get_varint (p, end, 64, &start) ||
          !get_varint (p, end, 64, &length) ||
          !get_varint (p, end, 32, &channel) ||
          !get_varint (p, end, 32, &label) ||
          !get_varint (p, end, 32, &arg) ||
          end - *p < 2)
        return FALSE;
      it->kind = (*p)[0];
      it->state = (*p)[1];
      *p += 2;
      if (!get_varint (p, end, 16, &flags) ||
          !get_varint (p, end, 32, &count) ||
          !get_varint (p, end, 32, &reserved) ||
          !get_varint (p, end, 64, &idle))
        return FALSE;
      start = strata_unzigzag64 (start) + state->end;
      length = strata_unzigzag64 (length);
      it->start = (gint64) start;
      it->end = (gint64) (start + length);
      it->channel = strata_unzigzag32 ((guint32) channel) + state->channel;
      it->label = strata_unzigzag32 ((guint32) label) + state->label;
      it->arg = (gint32) (strata_unzigzag32 ((guint32) arg) + state->arg);
      it->flags = (guint16) flags;
      it->count = (guint32) count;
      it->reserved = (guint32) reserved;
      it->busy = (gint64) (length - strata_unzigzag64 (idle));
      state->end = (guint64) it->end;
      state->channel = it->channel;
      state->label = it->label;
      state->arg = (guint32) it->arg;
    }
  return TRUE;
}
