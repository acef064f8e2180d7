/* strata-perf-writer.c
 *
 * Little-endian integers read and written, byte-swapped in place, and a
 * perf record's header written, for the perf tests that make files of
 * their own from real recordings. Byte by byte: the offsets in a
 * perf.data are not aligned to the integers' sizes, and the result does
 * not depend on the host's byte order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-perf-writer.h"

/* The @width-byte little-endian integer at @p. */
guint64
strata_test_le (const guint8 *p,
                guint         width)
{
  guint64 v = 0;

  g_assert_cmpuint (width, <=, 8);
  for (guint i = width; i-- > 0;)
    v = (v << 8) | p[i];
  return v;
}

/* @v written at @p as a @width-byte little-endian integer. */
void
strata_test_put_le (guint8  *p,
                    guint    width,
                    guint64  v)
{
  g_assert_cmpuint (width, <=, 8);
  for (guint i = 0; i < width; i++, v >>= 8)
    p[i] = v & 0xff;
}

/* The @width bytes at @p turned round: a value written little-endian
 * becomes the same value written big-endian. */
void
strata_test_swap (guint8 *p,
                  guint   width)
{
  for (guint i = 0, j = width - 1; i < j; i++, j--)
    {
      guint8 b = p[i];

      p[i] = p[j];
      p[j] = b;
    }
}

/* perf_event_header: type (u32), misc (u16), size (u16, the whole record
 * with this header). */
void
strata_test_perf_record_header (guint8  *p,
                                guint32  type,
                                guint16  misc,
                                gsize    size)
{
  g_assert_cmpuint (size, <=, G_MAXUINT16);
  strata_test_put32 (p, type);
  strata_test_put16 (p + 4, misc);
  strata_test_put16 (p + 6, size);
}
