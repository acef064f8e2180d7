/* strata-varint.h
 *
 * The two small encodings the index's blocks and the level spill's
 * records share: signed differences folded to unsigned ones (zigzag,
 * so a small negative is a small number) and LEB128 varints, seven bits
 * a byte, low bits first. Inline: both are inner loops of their packers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

static inline guint64
strata_zigzag64 (guint64 d)
{
  return (d << 1) ^ (0 - (d >> 63));
}

static inline guint64
strata_unzigzag64 (guint64 z)
{
  return (z >> 1) ^ (0 - (z & 1));
}

static inline guint32
strata_zigzag32 (guint32 d)
{
  return (d << 1) ^ (0u - (d >> 31));
}

static inline guint32
strata_unzigzag32 (guint32 z)
{
  return (z >> 1) ^ (0u - (z & 1));
}

/* Writes @v at @p, which has room for 10 bytes; returns the byte after. */
static inline guint8 *
strata_varint_put (guint8  *p,
                   guint64  v)
{
  while (v >= 0x80)
    {
      *p++ = (guint8) (v | 0x80);
      v >>= 7;
    }
  *p++ = (guint8) v;
  return p;
}

G_END_DECLS
