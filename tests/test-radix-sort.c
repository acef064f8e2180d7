/* test-radix-sort.c
 *
 * The radix sort of strata-radix-sort.h against the generic sort: for
 * random keys of narrow and wide spans, short and long arrays, in order,
 * reversed and all equal, the records come out in the order g_array_sort
 * gives when equal keys are ordered by their position before the sort,
 * that is the sort is right and stable.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-radix-sort.h"

typedef struct
{
  guint64 key;
  guint32 seq;    /* the record's position before the sort */
  guint8  tag;    /* makes the record's size odd-looking to the sort */
} Record;

static inline guint64
record_key (const Record *r)
{
  return r->key;
}

static inline guint64
plain_key (const guint64 *k)
{
  return *k;
}

STRATA_DEFINE_RADIX_SORT (sort_records, Record, record_key)
STRATA_DEFINE_RADIX_SORT (sort_keys, guint64, plain_key)

static gint
compare_records (gconstpointer pa,
                 gconstpointer pb)
{
  const Record *a = pa, *b = pb;

  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static gint
compare_keys (gconstpointer pa,
              gconstpointer pb)
{
  guint64 a = *(const guint64 *) pa, b = *(const guint64 *) pb;

  return a < b ? -1 : a > b;
}

typedef enum
{
  SHAPE_RANDOM,
  SHAPE_SORTED,
  SHAPE_REVERSED,
  SHAPE_EQUAL,
} Shape;

/* Sorts @n records whose keys are @base plus a random number below @span
 * (any 64-bit value when @span is 0) both ways and compares them; the
 * plain keys likewise. */
static void
check_one (GRand   *rand,
           guint    n,
           guint64  base,
           guint64  span,
           Shape    shape)
{
  g_autoptr(GArray) expected = g_array_sized_new (FALSE, FALSE, sizeof (Record), n);
  g_autoptr(GArray) keys_expected = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n);
  g_autofree Record *records = g_new (Record, MAX (n, 1));
  g_autofree guint64 *keys = g_new (guint64, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      guint64 r = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand);
      Record rec = { 0, };

      switch (shape)
        {
        case SHAPE_RANDOM:
          rec.key = base + (span != 0 ? r % span : r);
          break;
        case SHAPE_SORTED:
          rec.key = base + (guint64) i * (span / MAX (n, 1));
          break;
        case SHAPE_REVERSED:
          rec.key = base + (guint64) (n - i) * (span / MAX (n, 1));
          break;
        case SHAPE_EQUAL:
        default:
          rec.key = base;
          break;
        }
      rec.seq = i;
      rec.tag = (guint8) r;
      records[i] = rec;
      keys[i] = rec.key;
    }
  g_array_append_vals (expected, records, n);
  g_array_append_vals (keys_expected, keys, n);

  g_array_sort (expected, compare_records);
  g_array_sort (keys_expected, compare_keys);
  sort_records (records, n);
  sort_keys (keys, n);

  for (guint i = 0; i < n; i++)
    {
      const Record *want = &g_array_index (expected, Record, i);

      g_assert_cmpuint (records[i].key, ==, want->key);
      g_assert_cmpuint (records[i].seq, ==, want->seq);
      g_assert_cmpuint (records[i].tag, ==, want->tag);
      g_assert_cmpuint (keys[i], ==, g_array_index (keys_expected, guint64, i));
    }
}

static void
test_random (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261207);
  /* Spans: many equal keys, one digit, two, three, and any 64-bit value. */
  static const guint64 spans[] = { 3, 2000, 1u << 20, G_GUINT64_CONSTANT (1) << 33, 0 };
  static const guint64 bases[] = { 0, 12345, G_MAXUINT64 - (G_GUINT64_CONSTANT (1) << 34) };
  static const guint sizes[] = { 0, 1, 2, 3, 31, 32, 33, 100, 2047, 5000, 100000 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint p = 0; p < G_N_ELEMENTS (spans); p++)
      for (guint b = 0; b < G_N_ELEMENTS (bases); b++)
        {
          if (spans[p] == 0 && bases[b] != 0)
            continue;  /* a full span from a base would wrap */
          check_one (rand, sizes[s], bases[b], spans[p], SHAPE_RANDOM);
        }
}

static void
test_ordered (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  static const guint sizes[] = { 2, 20, 32, 33, 5000 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      check_one (rand, sizes[s], 99, G_GUINT64_CONSTANT (1) << 40, SHAPE_SORTED);
      check_one (rand, sizes[s], 99, G_GUINT64_CONSTANT (1) << 40, SHAPE_REVERSED);
      check_one (rand, sizes[s], 99, 0, SHAPE_EQUAL);
      check_one (rand, sizes[s], G_MAXUINT64, 0, SHAPE_EQUAL);
    }
}

/* Equal keys keep their order, checked directly rather than through the
 * tie-break of the comparison: keys of one digit's low bits equal and
 * high bits random, so the passes that move records see many ties. */
static void
test_stable (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  guint n = 50000;
  g_autofree Record *records = g_new (Record, n);

  for (guint i = 0; i < n; i++)
    {
      records[i].key = (guint64) g_rand_int_range (rand, 0, 64) << 22;
      records[i].seq = i;
      records[i].tag = 0;
    }
  sort_records (records, n);
  for (guint i = 1; i < n; i++)
    {
      g_assert_cmpuint (records[i - 1].key, <=, records[i].key);
      if (records[i - 1].key == records[i].key)
        g_assert_cmpuint (records[i - 1].seq, <, records[i].seq);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/radix-sort/random", test_random);
  g_test_add_func ("/strata/radix-sort/ordered", test_ordered);
  g_test_add_func ("/strata/radix-sort/stable", test_stable);
  return g_test_run ();
}
