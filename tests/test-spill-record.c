/* test-spill-record.c
 *
 * A level's spill record (strata-spill-record.h) against the items it
 * was given: runs of random items, with the extremes of every field (the
 * ends of gint64 time, lengths that wrap, negative arguments and busy
 * times longer than the item), encoded in pieces of random sizes as a
 * spill writes a lane's segments, decode to the very bytes, in pieces of
 * other sizes; a run cut short or given one varint too long does not.
 * And the dense shape's items (one lane, in time order, a few hundred ns
 * apart) take at most a third of their 48 bytes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-spill-record.h"

static gint64
pick64 (GRand *rand)
{
  static const gint64 extremes[] = { 0, 1, -1, G_MININT64, G_MAXINT64, G_MININT64 + 1, G_MAXINT64 - 1 };

  if (g_rand_int_range (rand, 0, 4) == 0)
    return extremes[g_rand_int_range (rand, 0, G_N_ELEMENTS (extremes))];
  return (gint64) ((guint64) g_rand_int (rand) << 32 | g_rand_int (rand));
}

static guint32
pick32 (GRand *rand)
{
  static const guint32 extremes[] = { 0, 1, G_MAXUINT32, 0x80000000u, 0x7fffffffu };

  if (g_rand_int_range (rand, 0, 4) == 0)
    return extremes[g_rand_int_range (rand, 0, G_N_ELEMENTS (extremes))];
  return g_rand_int (rand);
}

/* An item with every byte set: the struct's padding, if it had any,
 * would differ and fail the comparison. */
static void
random_item (GRand          *rand,
             StrataZoomItem *it)
{
  memset (it, 0, sizeof *it);
  it->start = pick64 (rand);
  it->end = g_rand_boolean (rand) ? pick64 (rand) : (gint64) ((guint64) it->start + (guint64) g_rand_int_range (rand, 0, 5000));
  it->channel = pick32 (rand);
  it->label = pick32 (rand);
  it->arg = (gint32) pick32 (rand);
  it->kind = (guint8) g_rand_int (rand);
  it->state = (guint8) g_rand_int (rand);
  it->flags = (guint16) g_rand_int (rand);
  it->count = pick32 (rand);
  it->reserved = g_rand_boolean (rand) ? 0 : pick32 (rand);
  it->busy = g_rand_boolean (rand) ? (gint64) ((guint64) it->end - (guint64) it->start) : pick64 (rand);
}

/* @items encoded in pieces of random sizes; returns the bytes. */
static GByteArray *
encode_in_pieces (GRand                *rand,
                  const StrataZoomItem *items,
                  guint                 n)
{
  GByteArray *bytes = g_byte_array_new ();
  StrataSpillRecordState state;

  strata_spill_record_begin (&state);
  for (guint i = 0; i < n; )
    {
      guint want = (guint) g_rand_int_range (rand, 1, 40);
      guint part = MIN (n - i, want);
      guint len = bytes->len;

      g_byte_array_set_size (bytes, len + part * STRATA_SPILL_RECORD_MAX_ITEM);
      len += strata_spill_record_encode (&state, items + i, part, bytes->data + len);
      g_byte_array_set_size (bytes, len);
      i += part;
    }
  return bytes;
}

static void
test_round_trip (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (25);

  for (guint round = 0; round < 200; round++)
    {
      guint n = g_rand_int_range (rand, 0, 600);
      g_autofree StrataZoomItem *items = g_new (StrataZoomItem, MAX (n, 1));
      g_autofree StrataZoomItem *back = g_new0 (StrataZoomItem, MAX (n, 1));
      g_autoptr(GByteArray) bytes = NULL;
      StrataSpillRecordState state;
      const guint8 *p, *end;

      for (guint i = 0; i < n; i++)
        random_item (rand, &items[i]);
      bytes = encode_in_pieces (rand, items, n);
      g_assert_cmpuint (bytes->len, <=, (gsize) n * STRATA_SPILL_RECORD_MAX_ITEM);

      strata_spill_record_begin (&state);
      p = bytes->data;
      end = bytes->data + bytes->len;
      for (guint i = 0; i < n; )
        {
          guint want = (guint) g_rand_int_range (rand, 1, 70);
          guint part = MIN (n - i, want);

          g_assert_true (strata_spill_record_decode (&state, &p, end, back + i, part));
          i += part;
        }
      g_assert_true (p == end);
      g_assert_cmpmem (back, n * sizeof (StrataZoomItem), items, n * sizeof (StrataZoomItem));

      /* Cut short anywhere: not the items. */
      if (n > 0)
        {
          gsize cut = (gsize) g_rand_int_range (rand, 0, (gint32) bytes->len);

          strata_spill_record_begin (&state);
          p = bytes->data;
          g_assert_false (strata_spill_record_decode (&state, &p, bytes->data + cut, back, n));
        }
    }
}

static void
test_too_long (void)
{
  /* A start whose varint goes on past 64 bits. */
  guint8 bytes[32];
  StrataSpillRecordState state;
  StrataZoomItem item;
  const guint8 *p = bytes;

  memset (bytes, 0xff, sizeof bytes);
  strata_spill_record_begin (&state);
  g_assert_false (strata_spill_record_decode (&state, &p, bytes + sizeof bytes, &item, 1));
}

static void
test_dense_size (void)
{
  StrataZoomItem items[1000];
  g_autoptr(GRand) rand = g_rand_new_with_seed (2);
  g_autoptr(GByteArray) bytes = NULL;
  gint64 t = 1700000000000000000;

  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    {
      StrataZoomItem *it = &items[i];

      memset (it, 0, sizeof *it);
      t += g_rand_int_range (rand, 0, 2000);
      it->start = t;
      t += g_rand_int_range (rand, 100, 3000);
      it->end = t;
      it->channel = 4242;
      it->label = 17 + g_rand_int_range (rand, 0, 3);
      it->arg = g_rand_int_range (rand, -2, 300);
      it->kind = 1;
      it->state = (guint8) g_rand_int_range (rand, 0, 3);
      it->flags = 0;
      it->count = g_rand_int_range (rand, 1, 5);
      it->busy = (it->end - it->start) - g_rand_int_range (rand, 0, 100);
    }
  bytes = encode_in_pieces (rand, items, G_N_ELEMENTS (items));
  g_assert_cmpuint (bytes->len, <=, sizeof items / 3);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/spill-record/round-trip", test_round_trip);
  g_test_add_func ("/strata/spill-record/too-long", test_too_long);
  g_test_add_func ("/strata/spill-record/dense-size", test_dense_size);
  return g_test_run ();
}
