/* test-tracedat-damage.c
 *
 * The trace.dat reader on broken files: fixtures cut at many offsets,
 * garbage, and single-bit flips, written to a temporary directory and read
 * to the end. Whatever the damage, the reader must not crash, must fail
 * with a STRATA_ERROR whose message names the file, and when a cut falls
 * inside the trace data, the events it returned before failing must be a
 * prefix of the whole file's events (the same timestamps and types, in the
 * same order): damage may hide the end of a trace, never alter its start.
 * Inputs that once crashed the reader (found by tests/fuzz/fuzz-tracedat)
 * are rebuilt here from the fixtures as regression cases.
 *
 * The fixtures come from $STRATA_FIXTURES_DIR, or tests/fixtures beside
 * this file; the version 6 fixture is decompressed with xz(1).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <zstd.h>

#include "strata-test-damage.h"
#include "strata-test-support.h"

/* The rules every damaged file must follow. */
static void
check_damaged (const char        *path,
               StrataTestOutcome *outcome,
               GArray            *full)
{
  g_autofree char *base = g_path_get_basename (path);

  if (outcome->error != NULL)
    {
      g_assert_true (outcome->error->domain == STRATA_ERROR);
      g_assert_true (outcome->error->code == STRATA_ERROR_TRUNCATED ||
                     outcome->error->code == STRATA_ERROR_CORRUPT ||
                     outcome->error->code == STRATA_ERROR_UNSUPPORTED ||
                     outcome->error->code == STRATA_ERROR_UNKNOWN_FORMAT ||
                     outcome->error->code == STRATA_ERROR_IO);
      if (strstr (outcome->error->message, base) == NULL)
        g_error ("the error for %s does not name the file: %s",
                 base, outcome->error->message);
    }

  if (full != NULL)
    {
      g_assert_cmpuint (outcome->events->len, <=, full->len);
      for (guint i = 0; i < outcome->events->len; i++)
        {
          const StrataTestSeen *a = &g_array_index (outcome->events, StrataTestSeen, i);
          const StrataTestSeen *b = &g_array_index (full, StrataTestSeen, i);

          if (a->ts != b->ts || a->type != b->type)
            g_error ("%s: event %u is (%" G_GINT64_FORMAT ", %u), the whole "
                     "file has (%" G_GINT64_FORMAT ", %u) there",
                     base, i, a->ts, a->type, b->ts, b->type);
        }
    }
}

static void
cut_fixture (GBytes     *bytes,
             const char *label)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  g_autofree char *full_path = strata_test_write_tmp (label, data, len);
  g_autoptr(GArray) offsets = g_array_new (FALSE, FALSE, sizeof (gsize));
  StrataTestOutcome full = { 0 };
  guint with_events = 0;

  strata_test_outcome_read (full_path, &full);
  g_assert_no_error (full.error);
  g_assert_cmpuint (full.events->len, >, 0);

  /* Every 97 bytes through the headers, then ~200 cuts through the rest
   * (40 unless the tests run with -m slow: each open of a file whose
   * headers are whole parses all its event formats twice), and the last
   * bytes one by one. */
  guint n_spread = g_test_slow () ? 200 : 40;

  for (gsize o = 0; o < MIN (len, 8192); o += 97)
    g_array_append_val (offsets, o);
  for (guint i = 0; i < n_spread; i++)
    {
      gsize o = 8192 + (len - 8192) / n_spread * i + i % 7;
      if (o < len)
        g_array_append_val (offsets, o);
    }
  for (gsize o = len > 8 ? len - 8 : 0; o < len; o++)
    g_array_append_val (offsets, o);

  for (guint i = 0; i < offsets->len; i++)
    {
      gsize cut = g_array_index (offsets, gsize, i);
      g_autofree char *name = g_strdup_printf ("%s-cut-%" G_GSIZE_FORMAT ".dat", label, cut);
      g_autofree char *path = strata_test_write_tmp (name, data, cut);
      StrataTestOutcome outcome = { 0 };

      strata_test_outcome_read (path, &outcome);
      /* Only a cut that removed nothing the format needs may go unnoticed,
       * and then every event must be there. */
      if (outcome.error == NULL)
        g_assert_cmpuint (outcome.events->len, ==, full.events->len);
      check_damaged (path, &outcome, full.events);
      if (outcome.events->len > 0)
        with_events++;
      strata_test_outcome_clear (&outcome);
      g_unlink (path);
    }

  g_test_message ("%s: %u cuts, %u of them returned events before the error",
                  label, offsets->len, with_events);

  strata_test_outcome_clear (&full);
  g_unlink (full_path);
}

static void
test_truncated (void)
{
  g_autoptr(GBytes) v7 = strata_test_fixture_bytes ("sched-small.dat");
  g_autoptr(GBytes) instances = strata_test_fixture_bytes ("instances.dat");
  g_autoptr(GBytes) v6 = strata_test_fixture_bytes ("sched-small-v6.dat.xz");

  cut_fixture (v7, "v7-zstd");
  cut_fixture (instances, "instances");

  cut_fixture (v6, "v6");
}

/* A cut inside the CPU data of a version 6 file keeps what precedes it:
 * the last CPU's pages are cut near the end, so almost every event must
 * come back, then a TRUNCATED error. */
static void
test_truncated_keeps_prefix (void)
{
  g_autoptr(GBytes) v6 = strata_test_fixture_bytes ("sched-small-v6.dat.xz");
  g_autofree char *full_path = NULL;
  g_autofree char *cut_path = NULL;
  StrataTestOutcome full = { 0 }, cut = { 0 };
  const guint8 *data;
  gsize len;

  data = g_bytes_get_data (v6, &len);
  full_path = strata_test_write_tmp ("v6-whole.dat", data, len);
  cut_path = strata_test_write_tmp ("v6-cut-near-end.dat", data, len - 1000);

  strata_test_outcome_read (full_path, &full);
  g_assert_no_error (full.error);
  strata_test_outcome_read (cut_path, &cut);
  g_assert_error (cut.error, STRATA_ERROR, STRATA_ERROR_TRUNCATED);
  check_damaged (cut_path, &cut, full.events);
  g_assert_cmpuint (cut.events->len, >, full.events->len / 2);

  strata_test_outcome_clear (&full);
  strata_test_outcome_clear (&cut);
}

/* A version 6 file whose fourth page of CPU 0 says it holds more than a
 * page: the reader must stop before it, with the events before it. */
static void
test_bad_page (void)
{
  g_autoptr(GBytes) v6 = strata_test_fixture_bytes ("sched-small-v6.dat.xz");
  g_autofree char *full_path = NULL;
  g_autofree char *bad_path = NULL;
  g_autofree guint8 *copy = NULL;
  StrataTestOutcome full = { 0 }, bad = { 0 };
  const guint8 *data;
  guint64 cpu0, size0;
  gsize len;

  data = g_bytes_get_data (v6, &len);
  g_assert_cmpuint (strata_test_v6_cpus (data, len, &cpu0, &size0, 1), ==, 1);
  g_assert_cmpuint (cpu0 + 4 * 4096, <, len);

  copy = g_memdup2 (data, len);
  memset (copy + cpu0 + 3 * 4096 + 8, 0x7f, 4);

  full_path = strata_test_write_tmp ("v6-whole-for-page.dat", data, len);
  bad_path = strata_test_write_tmp ("v6-bad-page.dat", copy, len);

  strata_test_outcome_read (full_path, &full);
  g_assert_no_error (full.error);
  strata_test_outcome_read (bad_path, &bad);
  g_assert_error (bad.error, STRATA_ERROR, STRATA_ERROR_CORRUPT);
  check_damaged (bad_path, &bad, full.events);

  strata_test_outcome_clear (&full);
  strata_test_outcome_clear (&bad);
}

/* The first zstd chunk of a version 7 file holding more than one page: a
 * chunk header (compressed and uncompressed sizes) right before a zstd
 * frame's magic number. */
static gboolean
find_chunk (const guint8 *data,
            gsize         len,
            gsize        *header,
            guint32      *csize,
            guint32      *usize)
{
  static const guint8 zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

  for (gsize o = 8; o + 4 <= len; o++)
    {
      guint32 c, u;

      if (memcmp (data + o, zstd_magic, 4) != 0)
        continue;
      memcpy (&c, data + o - 8, 4);
      memcpy (&u, data + o - 4, 4);
      c = GUINT32_FROM_LE (c);
      u = GUINT32_FROM_LE (u);
      if (c > 0 && c <= len - o && u >= 2 * 4096 && u % 4096 == 0 &&
          ZSTD_getFrameContentSize (data + o, c) != ZSTD_CONTENTSIZE_ERROR)
        {
          *header = o - 8;
          *csize = c;
          *usize = u;
          return TRUE;
        }
    }

  return FALSE;
}

/* A version 7 zstd file whose second page of a chunk (the first page of a
 * CPU is loaded when libtracecmd opens the file, so the damage is put just
 * after it) says it holds more than a page, with the chunk compressed again
 * so that zstd does not notice: the events before that page are returned,
 * then a CORRUPT error that says which chunk. */
static void
test_bad_compressed_page (void)
{
  g_autoptr(GBytes) v7 = strata_test_fixture_bytes ("sched-small.dat");
  g_autofree guint8 *copy = NULL;
  g_autofree guint8 *pages = NULL;
  g_autofree guint8 *packed = NULL;
  g_autofree char *full_path = NULL;
  g_autofree char *bad_path = NULL;
  g_autofree char *where = NULL;
  StrataTestOutcome full = { 0 }, bad = { 0 };
  const guint8 *data;
  guint32 csize, usize;
  gsize header, len, bound, packed_len;

  data = g_bytes_get_data (v7, &len);
  if (!find_chunk (data, len, &header, &csize, &usize))
    {
      g_test_skip ("the fixture has no chunk of more than one page");
      return;
    }

  pages = g_malloc (usize);
  g_assert_cmpuint (ZSTD_decompress (pages, usize, data + header + 8, csize), ==, usize);
  /* The commit word of the second page (after its 8-byte timestamp). */
  memset (pages + 4096 + 8, 0x7f, 4);

  /* The chunk keeps its size: the new frame, then a skippable frame (which
   * zstd passes over) filling what is left. */
  bound = ZSTD_compressBound (usize);
  packed = g_malloc (bound);
  packed_len = ZSTD_compress (packed, bound, pages, usize, 19);
  g_assert_false (ZSTD_isError (packed_len));
  if (packed_len + 8 > csize)
    {
      g_test_skip ("the damaged chunk does not compress into its old size");
      return;
    }

  copy = g_memdup2 (data, len);
  memcpy (copy + header + 8, packed, packed_len);
  {
    guint8 *skip = copy + header + 8 + packed_len;
    guint32 magic = GUINT32_TO_LE (0x184D2A50);
    guint32 skip_len = GUINT32_TO_LE (csize - packed_len - 8);

    memcpy (skip, &magic, 4);
    memcpy (skip + 4, &skip_len, 4);
    memset (skip + 8, 0, csize - packed_len - 8);
  }

  full_path = strata_test_write_tmp ("v7-whole-for-page.dat", data, len);
  bad_path = strata_test_write_tmp ("v7-bad-compressed-page.dat", copy, len);

  strata_test_outcome_read (full_path, &full);
  g_assert_no_error (full.error);
  strata_test_outcome_read (bad_path, &bad);
  g_assert_true (bad.opened);
  g_assert_error (bad.error, STRATA_ERROR, STRATA_ERROR_CORRUPT);
  check_damaged (bad_path, &bad, full.events);
  g_assert_cmpuint (bad.events->len, >, 0);
  g_assert_cmpuint (bad.events->len, <, full.events->len);
  g_test_message ("%u of %u events before the damaged page: %s",
                  bad.events->len, full.events->len, bad.error->message);

  /* The message names the chunk by its header's offset, and the page by
   * its place in the decompressed chunk. */
  where = g_strdup_printf ("offset %" G_GSIZE_FORMAT " (byte 4096 of decompressed chunk", header);
  if (strstr (bad.error->message, where) == NULL)
    g_error ("the error does not say where the page is: %s", bad.error->message);

  strata_test_outcome_clear (&full);
  strata_test_outcome_clear (&bad);
}

static void
test_garbage (void)
{
  static const guint8 magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
  static const char *prefixes[] = { "", "6", "7", "9", "66666666666666666666" };
  g_autoptr(GRand) rand = g_rand_new_with_seed (20240607);
  static const gsize sizes[] = { 1, 9, 10, 11, 16, 64, 4096, 70000 };

  for (guint p = 0; p < G_N_ELEMENTS (prefixes); p++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (guint fill = 0; fill < 3; fill++)
        {
          g_autofree guint8 *data = g_malloc0 (sizes[s] + 64);
          g_autofree char *name = g_strdup_printf ("garbage-%u-%" G_GSIZE_FORMAT "-%u.dat",
                                                   p, sizes[s], fill);
          g_autofree char *path = NULL;
          StrataTestOutcome outcome = { 0 };
          gsize len = 0;

          if (sizes[s] >= sizeof magic)
            {
              memcpy (data, magic, sizeof magic);
              len = sizeof magic;
              memcpy (data + len, prefixes[p], strlen (prefixes[p]) + 1);
              len += strlen (prefixes[p]) + 1;
              if (fill == 2 && len + 6 <= sizes[s] + 64)
                {
                  /* A plausible rest of the initial header. */
                  data[len++] = 0;
                  data[len++] = 8;
                  data[len++] = 0;
                  data[len++] = 0x10;
                  data[len++] = 0;
                  data[len++] = 0;
                }
            }
          for (; len < sizes[s]; len++)
            data[len] = fill == 1 ? 0xff : g_rand_int_range (rand, 0, 256);

          path = strata_test_write_tmp (name, data, len);
          strata_test_outcome_read (path, &outcome);
          g_assert_nonnull (outcome.error);
          check_damaged (path, &outcome, NULL);
          strata_test_outcome_clear (&outcome);
          g_unlink (path);
        }
}

static void
flip_fixture (const char *fixture,
              guint       n_flips,
              guint32     seed)
{
  g_autoptr(GBytes) bytes = strata_test_fixture_bytes (fixture);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  g_autofree guint8 *copy = g_memdup2 (data, len);
  guint failed = 0;

  for (guint i = 0; i < n_flips; i++)
    {
      gsize at = g_rand_int_range (rand, 0, (gint32) len);
      guint bit = g_rand_int_range (rand, 0, 8);
      g_autofree char *name = g_strdup_printf ("%s-flip-%" G_GSIZE_FORMAT "-%u.dat",
                                               fixture, at, bit);
      g_autofree char *path = NULL;
      StrataTestOutcome outcome = { 0 };

      copy[at] ^= 1u << bit;
      path = strata_test_write_tmp (name, copy, len);
      copy[at] = data[at];

      strata_test_outcome_read (path, &outcome);
      check_damaged (path, &outcome, NULL);
      if (outcome.error != NULL)
        failed++;
      strata_test_outcome_clear (&outcome);
      g_unlink (path);
    }

  g_test_message ("%s: %u bit flips, %u of them reported as damage",
                  fixture, n_flips, failed);
}

static void
test_bit_flips (void)
{
  guint scale = g_test_slow () ? 5 : 1;

  flip_fixture ("sched-small.dat", 30 * scale, 1);
  flip_fixture ("instances.dat", 20 * scale, 2);
  flip_fixture ("lossy.dat", 20 * scale, 3);
}

/* Inputs the fuzzer found, rebuilt from the fixture they came from. */
typedef struct
{
  const char *fixture;
  gsize       offset;
  guint8      value;
  const char *what;
} Regression;

static const Regression regressions[] = {
  /* A byte of the zstd-compressed event formats changed so that they still
   * decompress, to a field declaration libtraceevent's parser dies on. */
  { "instances.dat", 118407, 0x70, "event format that crashes libtraceevent" },
  /* A changed byte in a compressed chunk: zstd notices. */
  { "instances.dat", 136104, 0x8b, "corrupt compressed chunk" },
  /* A changed byte in a chunk that zstd does not notice: its pages come
   * out with a commit field that would send kbuffer far past the page, and
   * an event longer than its page. The events before it are returned. */
  { "lossy.dat", 131713, 0xae, "page commit larger than the page" },
};

static void
test_fuzz_regressions (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (regressions); i++)
    {
      const Regression *r = &regressions[i];
      g_autoptr(GBytes) bytes = strata_test_fixture_bytes (r->fixture);
      g_autofree char *name = g_strdup_printf ("regression-%u.dat", i);
      g_autofree char *path = NULL;
      g_autofree guint8 *copy = NULL;
      StrataTestOutcome outcome = { 0 };
      gsize len;

      const guint8 *data = g_bytes_get_data (bytes, &len);

      copy = g_memdup2 (data, len);
      g_assert_cmpuint (r->offset, <, len);
      copy[r->offset] = r->value;
      path = strata_test_write_tmp (name, copy, len);

      g_test_message ("regression %u: %s", i, r->what);
      strata_test_outcome_read (path, &outcome);
      g_assert_nonnull (outcome.error);
      check_damaged (path, &outcome, NULL);
      strata_test_outcome_clear (&outcome);
      g_unlink (path);
    }

  /* Files the fuzzer left in tests/fixtures/damaged/, if any. */
  {
    g_autofree char *dir_path = strata_test_fixture ("damaged");
    g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *path = g_build_filename (dir_path, name, NULL);
        StrataTestOutcome outcome = { 0 };

        if (!g_str_has_suffix (name, ".dat"))
          continue;
        strata_test_outcome_read (path, &outcome);
        check_damaged (path, &outcome, NULL);
        strata_test_outcome_clear (&outcome);
      }
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/ftrace-dat/truncated", test_truncated);
  g_test_add_func ("/strata/ftrace-dat/truncated-keeps-prefix", test_truncated_keeps_prefix);
  g_test_add_func ("/strata/ftrace-dat/bad-page", test_bad_page);
  g_test_add_func ("/strata/ftrace-dat/bad-compressed-page-keeps-prefix", test_bad_compressed_page);
  g_test_add_func ("/strata/ftrace-dat/garbage", test_garbage);
  g_test_add_func ("/strata/ftrace-dat/bit-flips", test_bit_flips);
  g_test_add_func ("/strata/ftrace-dat/fuzz-regressions", test_fuzz_regressions);

  return g_test_run ();
}
