/* test-block-packer.c
 *
 * The block packer (strata-block-packer.c) against the index codec
 * itself: every block it writes is, byte for byte, what
 * strata_block_pack() makes of the same elements (so the index
 * writer can copy it), and reads back as those elements whether it is
 * still queued or written; an array streamed in pieces of any size gets
 * the same blocks as the array submitted whole; arrays submitted from two
 * threads at once keep their tickets consecutive; the queue never holds
 * more than its bound (or one bigger array alone); the records of tens
 * of thousands of tickets leave memory and still read back; and when the
 * file cannot be written (a file size limit), every element stays
 * readable and the packer says it failed. Bytes put in parts are the
 * bytes of the one piece they make, and so is their checksum.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#include "strata-block-codec.h"
#include "strata-block-packer.h"
#include "strata-index-map.h"
#include "strata-spill-file.h"
#include "strata-test-streams.h"

/* @n items that look like a chunk's: a few channels, aggregates, gaps. */
static GArray *
make_items (guint   n,
            guint32 seed)
{
  GArray *items = g_array_sized_new (FALSE, TRUE, sizeof (StrataZoomItem), n);
  GRand *rand = g_rand_new_with_seed (seed);
  gint64 t = 1000000;

  for (guint i = 0; i < n; i++)
    {
      StrataZoomItem it = { 0 };

      it.start = t;
      it.end = t + g_rand_int_range (rand, 0, 5000);
      it.channel = i / 97;
      it.label = g_rand_int_range (rand, 0, 40);
      it.arg = g_rand_int_range (rand, -3, 3);
      it.kind = STRATA_ACTIVITY_TASK;
      it.count = g_rand_int_range (rand, 1, 9);
      it.busy = (it.end - it.start) / 2;
      it.flags = it.count > 1 ? STRATA_ZOOM_ITEM_AGGREGATE : 0;
      g_array_append_val (items, it);
      t = it.end + g_rand_int_range (rand, 0, 300);
    }
  g_rand_free (rand);
  return items;
}

static GBytes *
bytes_of (GArray *array)
{
  return g_bytes_new (array->data, (gsize) array->len * g_array_get_element_size (array));
}

/* Block b of @array (of @per_block) as the packer has it: its record is
 * the codec's packing of it, the bytes in the file are those bytes, and
 * it reads back as the elements. */
static void
assert_block (StrataBlockPacker *packer,
              guint64            ticket,
              GArray            *array,
              guint              b,
              guint              per_block,
              int                zstd_level)
{
  guint32 elem_size = g_array_get_element_size (array);
  guint len = MIN (per_block, array->len - b * per_block);
  const guint8 *elems = (const guint8 *) array->data + (gsize) b * per_block * elem_size;
  g_autoptr(GByteArray) want = g_byte_array_new ();
  g_autofree guint8 *got = g_malloc (STRATA_BLOCK_PACKER_MAX_PACKED);
  guint64 out[STRATA_INDEX_MAX_BLOCK_BYTES / 8];
  StrataIndexBlock rec;
  guint8 codec;

  strata_block_pack (elems, len, elem_size, zstd_level, want, &codec);
  g_assert_true (strata_block_packer_get_record (packer, ticket, &rec));
  g_assert_cmpuint (rec.n, ==, len);
  g_assert_cmpuint (rec.codec, ==, codec);
  g_assert_cmpuint (rec.size, ==, want->len);
  g_assert_cmpuint (rec.checksum, ==, strata_index_checksum (want->data, want->len));
  g_assert_true (strata_block_packer_read_bytes (packer, &rec, got));
  g_assert_cmpmem (got, rec.size, want->data, want->len);

  /* Read back twice: decoded, then from the cache. */
  for (guint k = 0; k < 2; k++)
    {
      memset (out, 0xa5, sizeof out);
      g_assert_cmpuint (strata_block_packer_read (packer, ticket, out), ==, len);
      g_assert_cmpmem (out, (gsize) len * elem_size, elems, (gsize) len * elem_size);
    }
}

/* Arrays of items and of activities, of lengths around the block's,
 * read while queued (right after submission) and once written. */
static void
test_same_bytes_as_the_codec (void)
{
  const guint lengths[] = { 1, 255, 256, 257, 1000, 3 * 256 };
  g_autoptr(GError) error = NULL;
  StrataBlockPacker *packer = strata_block_packer_new (1 << 20, STRATA_INDEX_ZSTD_LEVEL, &error);
  g_autoptr(GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GArray) firsts = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 next = 0;

  g_assert_no_error (error);
  g_assert_nonnull (packer);

  for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
    for (guint kind = 0; kind < 2; kind++)
      {
        GArray *array = kind == 0 ? make_items (lengths[i], i)
                                  : strata_test_stream_collect (STRATA_TEST_STREAM_MIXED, lengths[i], i);
        guint per_block = kind == 0 ? STRATA_INDEX_ITEM_BLOCK : STRATA_INDEX_ACTIVITY_BLOCK;
        g_autoptr(GBytes) bytes = bytes_of (array);
        guint64 first = strata_block_packer_submit (packer, bytes, g_array_get_element_size (array), per_block);
        g_autoptr(GArray) back = g_array_sized_new (FALSE, FALSE, g_array_get_element_size (array), array->len);

        g_assert_cmpuint (array->len, ==, lengths[i]);
        g_assert_cmpuint (first, ==, next);
        next += (array->len + per_block - 1) / per_block;

        /* At once, probably still queued: the same elements. */
        g_assert_true (strata_block_packer_append (packer, first, per_block, array->len, 0, array->len, back));
        g_assert_cmpmem (back->data, back->len * g_array_get_element_size (array),
                         array->data, array->len * g_array_get_element_size (array));
        g_ptr_array_add (arrays, array);
        g_array_append_val (firsts, first);
      }

  strata_block_packer_flush (packer);
  for (guint a = 0; a < arrays->len; a++)
    {
      GArray *array = g_ptr_array_index (arrays, a);
      guint per_block = a % 2 == 0 ? STRATA_INDEX_ITEM_BLOCK : STRATA_INDEX_ACTIVITY_BLOCK;
      guint64 first = g_array_index (firsts, guint64, a);
      g_autoptr(GArray) part = g_array_new (FALSE, FALSE, g_array_get_element_size (array));
      guint from = array->len / 3, count = array->len - array->len / 3 - array->len / 5;

      for (guint b = 0; b * per_block < array->len; b++)
        assert_block (packer, first + b, array, b, per_block, STRATA_INDEX_ZSTD_LEVEL);

      /* A range across blocks, from the file. */
      g_assert_true (strata_block_packer_append (packer, first, per_block, array->len, from, count, part));
      g_assert_cmpuint (part->len, ==, count);
      g_assert_cmpmem (part->data, (gsize) count * g_array_get_element_size (array),
                       array->data + (gsize) from * g_array_get_element_size (array),
                       (gsize) count * g_array_get_element_size (array));
      /* Out of the array: refused, and nothing appended. */
      g_assert_false (strata_block_packer_append (packer, first, per_block, array->len,
                                                  array->len - count / 2, count / 2 + 1, part));
      g_assert_cmpuint (part->len, ==, count);
    }
  g_assert_false (strata_block_packer_has_failed (packer));
  strata_block_packer_free (packer);
}

/* The same array streamed in pieces of every size: the same blocks as
 * submitted whole, at varints only too. */
static void
test_stream_equals_whole (void)
{
  g_autoptr(GArray) items = make_items (20000, 3);
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  static const int levels[] = { 0, STRATA_INDEX_ZSTD_LEVEL };

  for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
    {
      int level = levels[l];
      g_autoptr(GError) error = NULL;
      StrataBlockPacker *packer = strata_block_packer_new (64 * 1024, level, &error);
      g_autoptr(GBytes) bytes = bytes_of (items);
      guint64 whole = strata_block_packer_submit (packer, bytes, sizeof (StrataZoomItem), STRATA_INDEX_ITEM_BLOCK);
      StrataBlockStream *stream = strata_block_packer_begin (packer, sizeof (StrataZoomItem), STRATA_INDEX_ITEM_BLOCK);
      guint64 streamed, n = 0, n_blocks = (items->len + STRATA_INDEX_ITEM_BLOCK - 1) / STRATA_INDEX_ITEM_BLOCK;
      guint at = 0;

      g_assert_no_error (error);
      while (at < items->len)
        {
          /* Pieces of 0 to 3000 items: inside a block, across several. */
          guint take = MIN ((guint) g_rand_int_range (rand, 0, 3000), items->len - at);

          strata_block_stream_add (stream, &g_array_index (items, StrataZoomItem, at), take);
          at += take;
        }
      streamed = strata_block_stream_end (stream, &n);
      g_assert_cmpuint (n, ==, items->len);
      g_assert_cmpuint (streamed, ==, whole + n_blocks);

      for (guint64 b = 0; b < n_blocks; b++)
        {
          StrataIndexBlock x, y;

          g_assert_true (strata_block_packer_get_record (packer, whole + b, &x));
          g_assert_true (strata_block_packer_get_record (packer, streamed + b, &y));
          g_assert_cmpuint (x.n, ==, y.n);
          g_assert_cmpuint (x.size, ==, y.size);
          g_assert_cmpuint (x.codec, ==, y.codec);
          g_assert_cmpuint (x.checksum, ==, y.checksum);
          g_assert_cmpuint (y.offset, >, x.offset);
          assert_block (packer, streamed + b, items, b, STRATA_INDEX_ITEM_BLOCK, level);
        }
      strata_block_packer_free (packer);
    }
}

typedef struct
{
  StrataBlockPacker *packer;
  guint              id;
  GPtrArray         *arrays;    /* GArray of items */
  GArray            *firsts;    /* guint64 */
} Submitter;

static gpointer
submitter_main (gpointer data)
{
  Submitter *s = data;

  for (guint i = 0; i < 40; i++)
    {
      GArray *items = make_items (1 + (i * 389 + s->id * 131) % 2000, s->id * 1000 + i);
      guint64 first;

      /* Half whole, half streamed in two pieces. */
      if (i % 2 == 0)
        {
          g_autoptr(GBytes) bytes = bytes_of (items);

          first = strata_block_packer_submit (s->packer, bytes, sizeof (StrataZoomItem), STRATA_INDEX_ITEM_BLOCK);
        }
      else
        {
          StrataBlockStream *stream = strata_block_packer_begin (s->packer, sizeof (StrataZoomItem),
                                                                 STRATA_INDEX_ITEM_BLOCK);

          strata_block_stream_add (stream, items->data, items->len / 2);
          strata_block_stream_add (stream, &g_array_index (items, StrataZoomItem, items->len / 2),
                                   items->len - items->len / 2);
          first = strata_block_stream_end (stream, NULL);
        }
      g_ptr_array_add (s->arrays, items);
      g_array_append_val (s->firsts, first);
    }
  return NULL;
}

/* Two threads submitting at once through a small queue: each array reads
 * back as it was (its tickets are consecutive, nobody else's between),
 * and the queue held at most its bound or one bigger array. */
static void
test_two_submitters (void)
{
  const gsize max_queued = 32 * 1024;
  g_autoptr(GError) error = NULL;
  StrataBlockPacker *packer = strata_block_packer_new (max_queued, 1, &error);
  Submitter s[2];
  GThread *threads[2];
  StrataBlockPackerStats stats;
  gsize biggest = 0;
  guint64 n_blocks = 0, n_bytes = 0;

  g_assert_no_error (error);
  for (guint t = 0; t < 2; t++)
    {
      s[t].packer = packer;
      s[t].id = t + 1;
      s[t].arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
      s[t].firsts = g_array_new (FALSE, FALSE, sizeof (guint64));
      threads[t] = g_thread_new ("submitter", submitter_main, &s[t]);
    }
  for (guint t = 0; t < 2; t++)
    g_thread_join (threads[t]);

  for (guint t = 0; t < 2; t++)
    {
      for (guint i = 0; i < s[t].arrays->len; i++)
        {
          GArray *items = g_ptr_array_index (s[t].arrays, i);
          g_autoptr(GArray) back = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));

          g_assert_true (strata_block_packer_append (packer, g_array_index (s[t].firsts, guint64, i),
                                                     STRATA_INDEX_ITEM_BLOCK, items->len, 0, items->len, back));
          g_assert_cmpmem (back->data, back->len * sizeof (StrataZoomItem),
                           items->data, items->len * sizeof (StrataZoomItem));
          biggest = MAX (biggest, items->len * sizeof (StrataZoomItem));
          n_bytes += items->len * sizeof (StrataZoomItem);
          n_blocks += (items->len + STRATA_INDEX_ITEM_BLOCK - 1) / STRATA_INDEX_ITEM_BLOCK;
        }
      g_ptr_array_unref (s[t].arrays);
      g_array_unref (s[t].firsts);
    }

  strata_block_packer_flush (packer);
  strata_block_packer_get_stats (packer, &stats);
  g_test_message ("%" G_GUINT64_FORMAT " blocks; at most %" G_GSIZE_FORMAT " bytes queued (bound %" G_GSIZE_FORMAT
                  "), %" G_GUINT64_FORMAT " waits", stats.n_blocks, stats.peak_queued, max_queued, stats.n_waits);
  g_assert_cmpuint (stats.n_blocks, ==, n_blocks);
  g_assert_cmpuint (stats.queued, ==, 0);
  g_assert_cmpuint (stats.peak_queued, <=, MAX (max_queued, biggest));
  g_assert_cmpuint (stats.written, ==, n_bytes);
  strata_block_packer_free (packer);
}

/* Tens of thousands of tickets (a block of one or a few items each):
 * the written blocks' records leave the queue's slots for pages, which
 * go to the file, so what the packer holds for its records stays a few
 * pages however many tickets there are; every record and every block
 * still reads back, in an order that goes back to pages no longer at
 * hand. */
static void
test_records_leave_memory (void)
{
  g_autoptr(GArray) items = make_items (40000, 11);
  g_autoptr(GBytes) bytes = bytes_of (items);
  g_autoptr(GError) error = NULL;
  StrataBlockPacker *packer = strata_block_packer_new (1 << 20, STRATA_INDEX_ZSTD_LEVEL, &error);
  StrataBlockPackerStats stats;
  const guint per_block = 2;
  guint64 first, n_blocks = (items->len + per_block - 1) / per_block;
  GRand *rand = g_rand_new_with_seed (3);

  g_assert_no_error (error);
  first = strata_block_packer_submit (packer, bytes, sizeof (StrataZoomItem), per_block);
  strata_block_packer_flush (packer);
  strata_block_packer_get_stats (packer, &stats);
  g_test_message ("%" G_GUINT64_FORMAT " tickets, %" G_GSIZE_FORMAT " bytes of records in memory",
                  stats.n_blocks, stats.records);
  g_assert_cmpuint (stats.n_blocks, ==, n_blocks);
  /* A record is 24 bytes: all of them in memory would be 480 000. */
  g_assert_cmpuint (stats.records, <, 200 * 1024);

  /* Backwards from the end (each page read once more), then at random. */
  for (guint64 b = n_blocks; b-- > 0;)
    if (b % 7 == 0 || b < 3 || b == n_blocks - 1)
      assert_block (packer, first + b, items, (guint) b, per_block, STRATA_INDEX_ZSTD_LEVEL);
  for (guint k = 0; k < 2000; k++)
    {
      guint b = g_rand_int_range (rand, 0, (gint32) n_blocks);

      assert_block (packer, first + b, items, b, per_block, STRATA_INDEX_ZSTD_LEVEL);
    }
  g_rand_free (rand);
  strata_block_packer_free (packer);
}

/* A file that cannot grow past 16 KiB: the blocks after that cannot be
 * written; they keep their elements, read back as they were, and the
 * packer says it failed. */
static void
test_write_failure_keeps_elements (void)
{
  g_autoptr(GArray) items = make_items (30000, 5);
  g_autoptr(GBytes) bytes = bytes_of (items);
  g_autoptr(GArray) back = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GError) error = NULL;
  StrataBlockPacker *packer;
  struct rlimit saved, small = { 16 * 1024, 16 * 1024 };
  void (*old_handler) (int);
  const guint per_block = 8;
  guint64 first, n_blocks = (items->len + per_block - 1) / per_block;
  guint written = 0, failed = 0;

  packer = strata_block_packer_new (1 << 20, STRATA_INDEX_ZSTD_LEVEL, &error);
  g_assert_no_error (error);

  old_handler = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  small.rlim_max = saved.rlim_max;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
  first = strata_block_packer_submit (packer, bytes, sizeof (StrataZoomItem), per_block);
  strata_block_packer_flush (packer);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  signal (SIGXFSZ, old_handler);

  for (guint64 b = 0; b < n_blocks; b++)
    {
      StrataIndexBlock rec;

      if (strata_block_packer_get_record (packer, first + b, &rec))
        written++;
      else
        failed++;
    }
  g_test_message ("%u blocks written, %u not", written, failed);
  g_assert_cmpuint (written, >, 0);
  g_assert_cmpuint (failed, >, 0);
  g_assert_true (strata_block_packer_has_failed (packer));

  g_assert_true (strata_block_packer_append (packer, first, per_block, items->len, 0, items->len, back));
  g_assert_cmpmem (back->data, back->len * sizeof (StrataZoomItem), items->data, items->len * sizeof (StrataZoomItem));
  strata_block_packer_free (packer);
}

/* Read back in the order written, as the index writer and the first
 * chunks do: the reads go through the thread's read-ahead, which must
 * hand every block its own bytes; here two packers take turns on one
 * thread, with pieces of bytes put between their blocks, read back whole
 * and in parts, and a second pass goes backwards (no read-ahead). */
static void
test_read_ahead_in_order (void)
{
  g_autoptr(GArray) a = make_items (40000, 11);
  g_autoptr(GArray) b = make_items (25000, 12);
  g_autoptr(GBytes) a_bytes = bytes_of (a);
  g_autoptr(GBytes) b_bytes = bytes_of (b);
  g_autoptr(GError) error = NULL;
  StrataBlockPacker *pa, *pb;
  const guint per_block = 64;
  guint64 n_a = (a->len + per_block - 1) / per_block, n_b = (b->len + per_block - 1) / per_block;
  guint64 first_a, first_b, offsets[16];
  guint8 piece[3000];

  pa = strata_block_packer_new (1 << 20, STRATA_INDEX_ZSTD_LEVEL, &error);
  g_assert_no_error (error);
  pb = strata_block_packer_new (1 << 20, STRATA_INDEX_ZSTD_LEVEL, &error);
  g_assert_no_error (error);

  first_a = strata_block_packer_submit (pa, a_bytes, sizeof (StrataZoomItem), per_block);
  for (guint k = 0; k < G_N_ELEMENTS (offsets); k++)
    {
      memset (piece, 0x40 + k, sizeof piece);
      offsets[k] = strata_block_packer_put_bytes (pa, piece, 100 + k * 180);
      g_assert_cmpuint (offsets[k], !=, G_MAXUINT64);
    }
  first_b = strata_block_packer_submit (pb, b_bytes, sizeof (StrataZoomItem), per_block);
  strata_block_packer_flush (pa);
  strata_block_packer_flush (pb);

  for (guint64 k = 0; k < MAX (n_a, n_b); k++)
    {
      if (k < n_a)
        assert_block (pa, first_a + k, a, (guint) k, per_block, STRATA_INDEX_ZSTD_LEVEL);
      if (k < n_b)
        assert_block (pb, first_b + k, b, (guint) k, per_block, STRATA_INDEX_ZSTD_LEVEL);
      if (k < G_N_ELEMENTS (offsets))
        {
          gsize size = 100 + k * 180;
          guint8 got[3000];

          /* A header first, then the rest, as a seal is read. */
          g_assert_true (strata_block_packer_read_at (pa, offsets[k], got, 8));
          g_assert_true (strata_block_packer_read_at (pa, offsets[k] + 8, got + 8, size - 8));
          for (gsize i = 0; i < size; i++)
            g_assert_cmpuint (got[i], ==, 0x40 + k);
        }
    }
  for (guint64 k = n_a; k-- > 0; )
    assert_block (pa, first_a + k, a, (guint) k, per_block, STRATA_INDEX_ZSTD_LEVEL);

  strata_block_packer_free (pa);
  strata_block_packer_free (pb);
}

/* The bytes of parts of @sizes end to end (*@size in all), each byte
 * a pattern of its place, @mul and @div, that no two parts share. */
static guint8 *
patterned_parts (const gsize *sizes,
                 guint        n,
                 guint        mul,
                 guint        div,
                 gsize       *size)
{
  guint8 *whole;

  *size = 0;
  for (guint i = 0; i < n; i++)
    *size += sizes[i];
  whole = g_malloc (*size);
  for (gsize i = 0; i < *size; i++)
    whole[i] = (guint8) (i * mul + i / div);
  return whole;
}

/* A piece written in parts (a chunk's spans, padding, keys and lane
 * changes) is the bytes of the one piece they make: read back whole and
 * in two reads, and its checksum taken a part at a time is that of the
 * whole piece, between blocks of a submitted array. */
static void
test_parts_equal_one_piece (void)
{
  g_autoptr(GArray) a = make_items (5000, 13);
  g_autoptr(GBytes) a_bytes = bytes_of (a);
  g_autoptr(GError) error = NULL;
  static const gsize sizes[] = { 12 * 1001, 4, 0, 24 * 37, 4 * 2999 };
  guint8 *whole, *got;
  StrataBytesPart parts[G_N_ELEMENTS (sizes)];
  StrataIndexHasher *hasher;
  StrataBlockPacker *packer;
  guint64 first, at_parts, at_whole;
  gsize size = 0;

  packer = strata_block_packer_new (1 << 20, STRATA_INDEX_ZSTD_LEVEL, &error);
  g_assert_no_error (error);
  whole = patterned_parts (sizes, G_N_ELEMENTS (sizes), 7, 251, &size);
  got = g_malloc (size);
  hasher = strata_index_hasher_new ();
  for (gsize i = 0, at = 0; i < G_N_ELEMENTS (sizes); at += sizes[i], i++)
    {
      parts[i] = (StrataBytesPart) { whole + at, sizes[i] };
      strata_index_hasher_add (hasher, whole + at, sizes[i]);
    }
  g_assert_cmpuint (strata_index_hasher_free (hasher), ==, strata_index_checksum (whole, size));

  first = strata_block_packer_submit (packer, a_bytes, sizeof (StrataZoomItem), 64);
  at_parts = strata_block_packer_put_parts (packer, parts, G_N_ELEMENTS (parts));
  at_whole = strata_block_packer_put_bytes (packer, whole, size);
  g_assert_cmpuint (at_parts, !=, G_MAXUINT64);
  g_assert_cmpuint (at_whole, !=, G_MAXUINT64);
  g_assert_cmpuint (at_whole, >=, at_parts + size);
  strata_block_packer_flush (packer);

  g_assert_true (strata_block_packer_read_at (packer, at_parts, got, size));
  g_assert_cmpmem (got, size, whole, size);
  memset (got, 0, size);
  g_assert_true (strata_block_packer_read_at (packer, at_whole, got, size / 3));
  g_assert_true (strata_block_packer_read_at (packer, at_whole + size / 3, got + size / 3, size - size / 3));
  g_assert_cmpmem (got, size, whole, size);
  for (guint64 k = 0; k * 64 < a->len; k++)
    assert_block (packer, first + k, a, (guint) k, 64, STRATA_INDEX_ZSTD_LEVEL);

  g_free (whole);
  g_free (got);
  strata_block_packer_free (packer);
}

typedef struct
{
  const StrataBytesPart *parts;
  StrataIndexHasher     *hasher;
  guint                  part;
  gsize                  from;
  guint                  n_calls;
} Stretches;

static void
stretch_written (guint         i,
                 gconstpointer bytes,
                 gsize         size,
                 gsize         from,
                 gpointer      user_data)
{
  Stretches *st = user_data;

  /* In order, each part whole, none longer than a MiB, where it is. */
  while (st->part < i)
    {
      g_assert_cmpuint (st->from, ==, st->parts[st->part].size);
      st->part++;
      st->from = 0;
    }
  g_assert_cmpuint (i, ==, st->part);
  g_assert_cmpuint (from, ==, st->from);
  g_assert_cmpuint (size, >, 0);
  g_assert_cmpuint (size, <=, 1 << 20);
  g_assert_true (bytes == (const guint8 *) st->parts[i].bytes + from);
  strata_index_hasher_add (st->hasher, bytes, size);
  st->from += size;
  st->n_calls++;
}

/* Parts written with a stretch told at a time (a level's spans and lane
 * changes, tens of MB, hashed and let go of behind the write): every
 * byte told once in order, the same bytes and checksum as one piece. */
static void
test_parts_told_in_stretches (void)
{
  g_autoptr(GError) error = NULL;
  static const gsize sizes[] = { 12 * 300001, 4, 0, 24 * 37, 4 * 700001 };
  StrataBytesPart parts[G_N_ELEMENTS (sizes)];
  Stretches st = { parts, NULL, 0, 0, 0 };
  StrataBlockPacker *packer;
  guint8 *whole, *got;
  guint64 at;
  gsize size = 0;

  packer = strata_block_packer_new (1 << 20, STRATA_INDEX_ZSTD_LEVEL, &error);
  g_assert_no_error (error);
  whole = patterned_parts (sizes, G_N_ELEMENTS (sizes), 13, 509, &size);
  got = g_malloc (size);
  for (gsize i = 0, off = 0; i < G_N_ELEMENTS (sizes); off += sizes[i], i++)
    parts[i] = (StrataBytesPart) { whole + off, sizes[i] };

  st.hasher = strata_index_hasher_new ();
  at = strata_block_packer_put_parts_full (packer, parts, G_N_ELEMENTS (parts), stretch_written, &st);
  g_assert_cmpuint (at, !=, G_MAXUINT64);
  g_assert_cmpuint (st.part, ==, G_N_ELEMENTS (parts) - 1);
  g_assert_cmpuint (st.from, ==, sizes[G_N_ELEMENTS (sizes) - 1]);
  g_assert_cmpuint (st.n_calls, >=, 7);
  g_assert_cmpuint (strata_index_hasher_free (st.hasher), ==, strata_index_checksum (whole, size));
  strata_block_packer_flush (packer);
  g_assert_true (strata_block_packer_read_at (packer, at, got, size));
  g_assert_cmpmem (got, size, whole, size);

  g_free (whole);
  g_free (got);
  strata_block_packer_free (packer);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/block-packer/same-bytes-as-the-codec", test_same_bytes_as_the_codec);
  g_test_add_func ("/strata/block-packer/stream-equals-whole", test_stream_equals_whole);
  g_test_add_func ("/strata/block-packer/two-submitters", test_two_submitters);
  g_test_add_func ("/strata/block-packer/records-leave-memory", test_records_leave_memory);
  g_test_add_func ("/strata/block-packer/write-failure-keeps-elements", test_write_failure_keeps_elements);
  g_test_add_func ("/strata/block-packer/read-ahead-in-order", test_read_ahead_in_order);
  g_test_add_func ("/strata/block-packer/parts-equal-one-piece", test_parts_equal_one_piece);
  g_test_add_func ("/strata/block-packer/parts-told-in-stretches", test_parts_told_in_stretches);
  return g_test_run ();
}
