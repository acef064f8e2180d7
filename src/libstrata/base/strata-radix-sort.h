/* strata-radix-sort.h
 *
 * A stable sort of an array of records by a 64-bit key, for the hot paths
 * where the generic sort's call per comparison shows: a least-significant-
 * digit radix sort, 11 bits a pass and only as many passes as the span of
 * the keys (largest minus smallest) needs; a pass whose digit is the same
 * for every record is skipped, an array already in order is left as it is,
 * and a short one (32 records or fewer, where a pass's 2048 counters cost
 * more) is sorted by insertion.
 *
 * STRATA_DEFINE_RADIX_SORT (name, Type, key_of) defines
 *
 *   static void name (Type *records, guint n_records);
 *
 * which sorts by key_of (const Type *), a guint64; key_of is a function or
 * macro the compiler sees, so the sort is typed and the key is inlined, as
 * the two hand-written copies it replaces were. The scratch array (as big
 * as the records) is allocated for the sort and freed after.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

#define STRATA_RADIX_SORT_BITS          11
#define STRATA_RADIX_SORT_DIGITS        (1u << STRATA_RADIX_SORT_BITS)
#define STRATA_RADIX_SORT_INSERTION_MAX 32

#define STRATA_DEFINE_RADIX_SORT(name, Type, key_of)                                \
static void                                                                         \
name (Type  *records,                                                               \
      guint  n_records)                                                             \
{                                                                                   \
  Type *a = records, *b, *scratch;                                                  \
  guint n = n_records;                                                              \
  guint64 lo = G_MAXUINT64, hi = 0;                                                 \
  gboolean sorted = TRUE;                                                           \
  guint32 counts[STRATA_RADIX_SORT_DIGITS];                                         \
                                                                                    \
  if (n < 2)                                                                        \
    return;                                                                         \
  if (n <= STRATA_RADIX_SORT_INSERTION_MAX)                                         \
    {                                                                               \
      for (guint i = 1; i < n; i++)                                                 \
        {                                                                           \
          Type r = a[i];                                                            \
          guint64 k = key_of (&r);                                                  \
          guint j = i;                                                              \
                                                                                    \
          for (; j > 0 && key_of (&a[j - 1]) > k; j--)                              \
            a[j] = a[j - 1];                                                        \
          a[j] = r;                                                                 \
        }                                                                           \
      return;                                                                       \
    }                                                                               \
  for (guint i = 0; i < n; i++)                                                     \
    {                                                                               \
      guint64 k = key_of (&a[i]);                                                   \
                                                                                    \
      lo = MIN (lo, k);                                                             \
      hi = MAX (hi, k);                                                             \
      sorted &= i == 0 || k >= key_of (&a[i - 1]);                                  \
    }                                                                               \
  if (sorted)                                                                       \
    return;                                                                         \
                                                                                    \
  scratch = b = g_new (Type, n);                                                    \
  for (guint shift = 0;                                                             \
       shift < 64 && ((hi - lo) >> shift) != 0;                                     \
       shift += STRATA_RADIX_SORT_BITS)                                             \
    {                                                                               \
      const guint mask = STRATA_RADIX_SORT_DIGITS - 1;                              \
      guint32 sum = 0;                                                              \
      Type *t;                                                                      \
                                                                                    \
      memset (counts, 0, sizeof counts);                                            \
      for (guint i = 0; i < n; i++)                                                 \
        counts[((key_of (&a[i]) - lo) >> shift) & mask]++;                          \
      if (counts[((key_of (&a[0]) - lo) >> shift) & mask] == n)                     \
        continue;  /* one digit for all: the order stays */                         \
      for (guint d = 0; d < STRATA_RADIX_SORT_DIGITS; d++)                          \
        {                                                                           \
          guint32 c = counts[d];                                                    \
                                                                                    \
          counts[d] = sum;                                                          \
          sum += c;                                                                 \
        }                                                                           \
      for (guint i = 0; i < n; i++)                                                 \
        b[counts[((key_of (&a[i]) - lo) >> shift) & mask]++] = a[i];                \
      t = a;                                                                        \
      a = b;                                                                        \
      b = t;                                                                        \
    }                                                                               \
  if (a != records)                                                                 \
    memcpy (records, a, (gsize) n * sizeof (Type));                                 \
  g_free (scratch);                                                                 \
}

G_END_DECLS
