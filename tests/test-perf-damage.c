/* test-perf-damage.c
 *
 * The perf.data reader on broken files, made from the recordings in
 * tests/fixtures: cut at many offsets, a record's size set to zero or past
 * the end, section sizes that lie, bit flips and garbage. Whatever the
 * damage, the reader must not crash (the suite runs under ASan too), must
 * fail with a STRATA_ERROR whose message names the file and an offset,
 * and must keep what came before the damage: every event it returned is
 * one the whole file has, in time order, and every record that lies
 * wholly before the damage (less the reorder window, a round) was read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "strata-test-damage.h"
#include "strata-test-support.h"

static int
seen_cmp (gconstpointer a,
          gconstpointer b)
{
  const StrataTestSeen *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  return 0;
}

/* @part's events are some of @whole's (the same time and record), in time
 * order, and it has every event of @whole whose record starts before
 * @before. A file cut short has lost its feature sections, the tracing
 * data with them: its tracepoints are then samples of unknown format, and
 * FORK, COMM and EXIT records stand in for sched_process_*, events the
 * whole file does not have. */
static void
assert_kept (const GArray *whole,
             const GArray *part,
             guint64       before)
{
  g_autoptr(GArray) sorted_whole = g_array_copy ((GArray *) whole);
  g_autoptr(GArray) sorted_part = g_array_copy ((GArray *) part);
  guint j = 0, expected = 0, found = 0;

  for (guint i = 1; i < part->len; i++)
    g_assert_cmpint (g_array_index (part, StrataTestSeen, i - 1).ts, <=, g_array_index (part, StrataTestSeen, i).ts);

  g_array_sort (sorted_whole, seen_cmp);
  g_array_sort (sorted_part, seen_cmp);

  for (guint i = 0; i < sorted_part->len; i++)
    {
      const StrataTestSeen *s = &g_array_index (sorted_part, StrataTestSeen, i);

      while (j < sorted_whole->len && seen_cmp (&g_array_index (sorted_whole, StrataTestSeen, j), s) < 0)
        j++;
      if (j < sorted_whole->len && seen_cmp (&g_array_index (sorted_whole, StrataTestSeen, j), s) == 0)
        {
          found++;
          j++;
          continue;
        }
      if (s->type != STRATA_EVENT_SCHED_PROCESS_FORK && s->type != STRATA_EVENT_SCHED_PROCESS_EXEC &&
          s->type != STRATA_EVENT_SCHED_PROCESS_EXIT)
        g_error ("an event (ts %" G_GINT64_FORMAT ", type %u, record at %" G_GUINT64_FORMAT
                 ") that the whole file does not have", s->ts, s->type, s->offset);
    }

  for (guint i = 0; i < whole->len; i++)
    if (g_array_index (whole, StrataTestSeen, i).offset < before)
      expected++;
  g_assert_cmpuint (found, >=, expected);
}

/* The offset of the data section and of each record in it (file mode,
 * uncompressed). */
static GArray *
record_offsets (const guint8 *d,
                gsize         len,
                guint64      *data_end)
{
  GArray *offsets = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 pos, end;

  memcpy (&pos, d + 40, 8);
  memcpy (&end, d + 48, 8);
  end += pos;
  g_assert_cmpuint (end, <=, len);
  while (pos + 8 <= end)
    {
      guint16 size;

      memcpy (&size, d + pos + 6, 2);
      g_assert_cmpuint (size, >=, 8);
      g_array_append_val (offsets, pos);
      pos += size;
    }
  *data_end = end;
  return offsets;
}

static void
check_cuts (const char *fixture,
            guint       step,
            gboolean    compressed)
{
  g_autoptr(GBytes) bytes = strata_test_fixture_bytes (fixture);
  gsize len;
  const guint8 *d = g_bytes_get_data (bytes, &len);
  g_autofree char *whole_path = strata_test_write_tmp ("whole.data", d, len);
  StrataTestOutcome whole = { 0 };
  guint damaged = 0, with_events = 0;

  strata_test_outcome_read (whole_path, &whole);
  g_assert_no_error (whole.error);
  g_assert_cmpuint (whole.events->len, >, 100);

  for (gsize cut = 0; cut < len; cut += step)
    {
      g_autofree char *path = strata_test_write_tmp ("cut.data", d, cut);
      StrataTestOutcome o = { 0 };

      strata_test_outcome_read (path, &o);
      if (o.error != NULL)
        {
          strata_test_assert_damage_error (o.error, "cut.data");
          damaged++;
        }
      /* What lies before the cut (a round of 64 KB records at most, the
       * reorder window; a whole compressed record when compressed). */
      assert_kept (whole.events, o.events,
                   compressed ? 0 : (cut > 65536 * 2 ? cut - 65536 * 2 : 0));
      if (o.events->len > 0)
        with_events++;
      strata_test_outcome_clear (&o);
    }

  /* Every cut is damage (the feature sections come last, and a cut in
   * them is reported after the records), and the cuts inside the data keep
   * their events. */
  g_assert_cmpuint (damaged, ==, (len + step - 1) / step);
  g_assert_cmpuint (with_events, >, 0);
  strata_test_outcome_clear (&whole);
}

static void
test_truncated_file (void)
{
  check_cuts ("perf-sched.data.xz", 1013, FALSE);
}

static void
test_truncated_compressed (void)
{
  check_cuts ("perf-zstd.data.xz", 997, TRUE);
}

static void
test_truncated_pipe (void)
{
  g_autoptr(GBytes) bytes = strata_test_fixture_bytes ("perf-pipe.data.xz");
  gsize len;
  const guint8 *d = g_bytes_get_data (bytes, &len);
  g_autofree char *whole_path = strata_test_write_tmp ("whole-pipe.data", d, len);
  StrataTestOutcome whole = { 0 };

  strata_test_outcome_read (whole_path, &whole);
  g_assert_no_error (whole.error);

  /* A pipe file has no end marker: a cut between two records is a
   * shorter, whole file; a cut inside one is damage. */
  for (gsize cut = 0; cut < len; cut += 3001)
    {
      g_autofree char *path = strata_test_write_tmp ("cut-pipe.data", d, cut);
      StrataTestOutcome o = { 0 };

      strata_test_outcome_read (path, &o);
      if (o.error != NULL)
        strata_test_assert_damage_error (o.error, "cut-pipe.data");
      assert_kept (whole.events, o.events, cut > 65536 * 2 ? cut - 65536 * 2 : 0);
      strata_test_outcome_clear (&o);
    }

  strata_test_outcome_clear (&whole);
}

/* A record whose size is 0, or runs past the data: an error at that
 * record's offset, every record before it read. */
static void
test_bad_record_sizes (void)
{
  g_autoptr(GBytes) bytes = strata_test_fixture_bytes ("perf-sched.data.xz");
  gsize len;
  const guint8 *d = g_bytes_get_data (bytes, &len);
  g_autofree char *whole_path = strata_test_write_tmp ("whole.data", d, len);
  g_autofree guint8 *copy = g_memdup2 (d, len);
  g_autoptr(GArray) offsets = NULL;
  guint64 data_end;
  StrataTestOutcome whole = { 0 };

  strata_test_outcome_read (whole_path, &whole);
  g_assert_no_error (whole.error);
  offsets = record_offsets (d, len, &data_end);
  g_assert_cmpuint (offsets->len, >, 100);

  for (guint i = 0; i < offsets->len; i += offsets->len / 11)
    {
      guint64 at = g_array_index (offsets, guint64, i);
      const guint16 sizes[] = { 0, 4, 0xffff };

      for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
        {
          g_autofree char *path = NULL;
          g_autofree char *where = g_strdup_printf ("offset %" G_GUINT64_FORMAT ":", at);
          StrataTestOutcome o = { 0 };
          guint16 old;

          memcpy (&old, copy + at + 6, 2);
          if (sizes[k] == 0xffff && at + 0xffff <= data_end)
            continue;  /* it would fit: not damage */
          memcpy (copy + at + 6, &sizes[k], 2);
          path = strata_test_write_tmp ("bad-size.data", copy, len);
          memcpy (copy + at + 6, &old, 2);

          strata_test_outcome_read (path, &o);
          strata_test_assert_damage_error (o.error, "bad-size.data");
          g_assert_nonnull (strstr (o.error->message, where));
          assert_kept (whole.events, o.events, at > 65536 * 2 ? at - 65536 * 2 : 0);
          strata_test_outcome_clear (&o);
        }
    }

  strata_test_outcome_clear (&whole);
}

/* Header fields that lie: the attrs or the data past the end, a feature
 * section larger than the file, an impossible attr size. */
static void
test_lying_sections (void)
{
  g_autoptr(GBytes) bytes = strata_test_fixture_bytes ("perf-sched.data.xz");
  gsize len;
  const guint8 *d = g_bytes_get_data (bytes, &len);
  g_autofree guint8 *copy = g_memdup2 (d, len);
  guint64 data_off, data_size, feat_table;
  const struct { guint offset; guint64 value; gboolean opens; } lies[] = {
    { 16, 3, FALSE },                          /* attr_size */
    { 16, G_GUINT64_CONSTANT (1) << 40, FALSE },
    { 24, G_GUINT64_CONSTANT (1) << 40, FALSE }, /* attrs.offset */
    { 32, G_GUINT64_CONSTANT (1) << 40, FALSE }, /* attrs.size */
    { 40, G_GUINT64_CONSTANT (1) << 40, FALSE }, /* data.offset */
    { 8, 12345, FALSE },                       /* header size */
  };

  memcpy (&data_off, d + 40, 8);
  memcpy (&data_size, d + 48, 8);
  feat_table = data_off + data_size;

  for (guint i = 0; i < G_N_ELEMENTS (lies); i++)
    {
      g_autofree char *path = NULL;
      StrataTestOutcome o = { 0 };
      guint64 old;

      memcpy (&old, copy + lies[i].offset, 8);
      memcpy (copy + lies[i].offset, &lies[i].value, 8);
      path = strata_test_write_tmp ("lying.data", copy, len);
      memcpy (copy + lies[i].offset, &old, 8);

      strata_test_outcome_read (path, &o);
      g_assert_false (o.opened);
      strata_test_assert_damage_error (o.error, "lying.data");
      strata_test_outcome_clear (&o);
    }

  /* data.size past the end of the file: the records are read up to the
   * end, where the cut record or the missing features are the damage. */
  {
    g_autofree char *path = NULL;
    guint64 huge = len * 4;
    StrataTestOutcome o = { 0 };

    memcpy (copy + 48, &huge, 8);
    path = strata_test_write_tmp ("lying-data.data", copy, len);
    memcpy (copy + 48, &data_size, 8);
    strata_test_outcome_read (path, &o);
    g_assert_true (o.opened);
    strata_test_assert_damage_error (o.error, "lying-data.data");
    g_assert_cmpuint (o.events->len, >, 100);
    strata_test_outcome_clear (&o);
  }

  /* Every feature section's size, one at a time, past the file's end. */
  for (guint n = 0; feat_table + 16 * (n + 1) <= len; n++)
    {
      g_autofree char *path = NULL;
      guint64 huge = G_GUINT64_CONSTANT (1) << 33, old, off;
      StrataTestOutcome o = { 0 };

      memcpy (&off, copy + feat_table + 16 * n, 8);
      if (off < feat_table || off > len)
        break;  /* past the table */
      memcpy (&old, copy + feat_table + 16 * n + 8, 8);
      memcpy (copy + feat_table + 16 * n + 8, &huge, 8);
      path = strata_test_write_tmp ("lying-feature.data", copy, len);
      memcpy (copy + feat_table + 16 * n + 8, &old, 8);

      /* The records are still read; the damage comes after them. */
      strata_test_outcome_read (path, &o);
      g_assert_true (o.opened);
      strata_test_assert_damage_error (o.error, "lying-feature.data");
      g_assert_cmpuint (o.events->len, >, 100);
      strata_test_outcome_clear (&o);
    }
}

/* Flipped bits and garbage anywhere: an error or events, never a crash. */
static void
test_bit_flips (void)
{
  const char *fixtures[] = { "perf-sched.data.xz", "perf-zstd.data.xz", "perf-pipe.data.xz",
                             "perf-callchain.data.xz" };

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autoptr(GBytes) bytes = strata_test_fixture_bytes (fixtures[f]);
      gsize len;
      const guint8 *d = g_bytes_get_data (bytes, &len);
      g_autofree guint8 *copy = g_memdup2 (d, len);
      GRand *rand = g_rand_new_with_seed (42 + f);

      for (guint i = 0; i < 25; i++)
        {
          g_autofree char *path = NULL;
          gsize at = g_rand_int_range (rand, 8, len);
          StrataTestOutcome o = { 0 };
          guint n = g_rand_int_range (rand, 1, 16);

          for (guint k = 0; k < n && at + k < len; k++)
            copy[at + k] ^= (guint8) g_rand_int_range (rand, 1, 256);
          path = strata_test_write_tmp ("flipped.data", copy, len);
          memcpy (copy + at, d + at, MIN (n, len - at));

          strata_test_outcome_read (path, &o);
          if (o.error != NULL)
            g_assert_true (o.error->domain == STRATA_ERROR);
          strata_test_outcome_clear (&o);
        }
      g_rand_free (rand);
    }
}

/* Inputs that crashed libtraceevent inside the reader (found by
 * tests/fuzz/fuzz-perf): damaged printk formats and event formats in the
 * tracing data. Now a clear error, or events. */
static void
test_fuzz_regressions (void)
{
  for (guint i = 1; i <= 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("perf-fuzz-%u.data", i);
      g_autofree char *path = strata_test_fixture (name);
      StrataTestOutcome o = { 0 };

      strata_test_outcome_read (path, &o);
      if (o.error != NULL)
        strata_test_assert_damage_error (o.error, name);
      strata_test_outcome_clear (&o);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/perf/damage/truncated-file-keeps-what-came-before", test_truncated_file);
  g_test_add_func ("/strata/perf/damage/truncated-compressed", test_truncated_compressed);
  g_test_add_func ("/strata/perf/damage/truncated-pipe", test_truncated_pipe);
  g_test_add_func ("/strata/perf/damage/zero-and-oversized-records", test_bad_record_sizes);
  g_test_add_func ("/strata/perf/damage/lying-section-sizes", test_lying_sections);
  g_test_add_func ("/strata/perf/damage/bit-flips", test_bit_flips);
  g_test_add_func ("/strata/perf/damage/fuzz-regressions", test_fuzz_regressions);

  return g_test_run ();
}
