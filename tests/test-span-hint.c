/* test-span-hint.c
 *
 * The span hint every reader gives at open (the info's span_first and
 * span_last, from the file's headers or its two ends) against reading the
 * whole file: for a file with a hint, the smallest and the largest time of
 * the events strata_source_read_batch() yields must be the hint exactly, and
 * so must the info's first_ts and last_ts once read. For perf.data the hint
 * is the samples' span (the file's HEADER_SAMPLE_TIME), so the oracle is the
 * events that came from PERF_RECORD_SAMPLE records, told apart by the record
 * at their source offset; other records may lie outside it. Damage near the
 * end of a file never fails the open: its hint is unset, or taken from what
 * precedes the damage, and the file still reads the whole file's first
 * events, then the damage.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <zstd.h>

#include "strata-test-support.h"

#define FIXTURE_PAGE_SIZE 4096  /* the fixtures' ring-buffer pages */
#define PERF_RECORD_SAMPLE 9
#define PERF_FEAT_SAMPLE_TIME 21

typedef struct
{
  gint64  ts;
  guint32 type;
  guint64 offset;
} Seen;

/* A file opened and read to its end. */
typedef struct
{
  gint64   span_first;   /* the hint, as it was right after the open */
  gint64   span_last;
  gint64   min_ts;       /* of the events read */
  gint64   max_ts;
  gint64   first_ts;     /* the info's, after reading */
  gint64   last_ts;
  GArray  *events;       /* Seen */
  GError  *error;        /* what ended the reading, if not the end */
  char    *compression;
} Reading;

static void
reading_clear (Reading *r)
{
  g_clear_pointer (&r->events, g_array_unref);
  g_clear_error (&r->error);
  g_clear_pointer (&r->compression, g_free);
}

static gboolean
has_hint (const Reading *r)
{
  return r->span_first != G_MAXINT64 || r->span_last != G_MININT64;
}

static void
read_file (const char *path,
           Reading    *r)
{
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;
  const StrataSourceInfo *info;
  StrataEvent batch[512];
  gssize n;

  source = strata_source_open (path, &error);
  g_assert_no_error (error);
  info = strata_source_get_info (source);

  /* A hint is both ends or neither. */
  g_assert_cmpint (info->span_first == G_MAXINT64, ==, info->span_last == G_MININT64);

  r->span_first = info->span_first;
  r->span_last = info->span_last;
  r->min_ts = G_MAXINT64;
  r->max_ts = G_MININT64;
  r->events = g_array_new (FALSE, FALSE, sizeof (Seen));
  r->error = NULL;
  r->compression = g_strdup (info->compression);

  while ((n = strata_source_read_batch (source, batch, G_N_ELEMENTS (batch), &r->error)) > 0)
    for (gssize i = 0; i < n; i++)
      {
        Seen seen = { batch[i].ts, batch[i].type, batch[i].source_offset };

        g_array_append_val (r->events, seen);
        r->min_ts = MIN (r->min_ts, batch[i].ts);
        r->max_ts = MAX (r->max_ts, batch[i].ts);
      }
  if (n == 0)
    g_assert_no_error (r->error);

  /* Reading must not move the hint. */
  g_assert_cmpint (info->span_first, ==, r->span_first);
  g_assert_cmpint (info->span_last, ==, r->span_last);
  r->first_ts = info->first_ts;
  r->last_ts = info->last_ts;
}

/* The oracle: the hint is the span of the events read. */
static void
assert_hint_is_span (const char    *label,
                     const Reading *r)
{
  g_test_message ("%s: %u events, hint [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                  "], read [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                  label, r->events->len, r->span_first, r->span_last, r->min_ts, r->max_ts);

  if (!has_hint (r))
    g_error ("%s: no span hint", label);
  g_assert_cmpuint (r->events->len, >, 0);
  g_assert_cmpint (r->span_first, ==, r->min_ts);
  g_assert_cmpint (r->span_last, ==, r->max_ts);
  g_assert_cmpint (r->span_first, ==, r->first_ts);
  g_assert_cmpint (r->span_last, ==, r->last_ts);
}

static void
check_fixture (const char *name)
{
  g_autofree char *path = strata_test_fixture (name);
  Reading r = { 0 };

  read_file (path, &r);
  g_assert_no_error (r.error);
  assert_hint_is_span (name, &r);
  reading_clear (&r);
}

/* The events of @damaged must be the first ones of @whole, in order. */
static void
assert_prefix (const char    *label,
               const Reading *damaged,
               const Reading *whole)
{
  g_assert_cmpuint (damaged->events->len, <=, whole->events->len);
  for (guint i = 0; i < damaged->events->len; i++)
    {
      const Seen *a = &g_array_index (damaged->events, Seen, i);
      const Seen *b = &g_array_index (whole->events, Seen, i);

      if (a->ts != b->ts || a->type != b->type)
        g_error ("%s: event %u is (%" G_GINT64_FORMAT ", %u), the whole file has (%"
                 G_GINT64_FORMAT ", %u) there", label, i, a->ts, a->type, b->ts, b->type);
    }
}

/* trace.dat --------------------------------------------------------------- */

static void
test_trace_dat (void)
{
  static const char * const fixtures[] = {
    "sched-small.dat",            /* v7, zstd */
    "instances.dat",              /* two buffer instances */
    "lossy.dat",                  /* lost events */
    "sched-tgid.dat",
    "sched-small-v6.dat.xz",
    "sched-small-v7none.dat.xz",
  };

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    check_fixture (fixtures[i]);
}

/* Bigger files with more CPUs and, compressed, several chunks per CPU, made
 * by the benchmarks' generator when the build has it. */
static void
test_trace_dat_generated (void)
{
  const char *gen = g_getenv ("STRATA_GEN_TRACE");
  static const char * const compressions[] = { "zstd", "none" };

  g_assert_nonnull (gen);
  g_assert_true (g_file_test (gen, G_FILE_TEST_IS_EXECUTABLE));
  /* It takes the event formats from this machine's tracefs. */
  if (!g_file_test ("/sys/kernel/tracing/events/header_page", G_FILE_TEST_EXISTS) &&
      !g_file_test ("/sys/kernel/debug/tracing/events/header_page", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no tracefs here: strata-gen-trace takes its event formats from it");
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (compressions); i++)
    {
      g_autofree char *dir = strata_test_tmpdir ();
      g_autofree char *name = g_strdup_printf ("gen-%s.dat", compressions[i]);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *err = NULL;
      g_autoptr(GError) error = NULL;
      const char *argv[] = { gen, "--events", "20000", "--cpus", "4",
                             "--compression", compressions[i], "-o", path, NULL };
      int status = 0;
      Reading r = { 0 };

      /* In the sanitizer build the generator is sanitized too, and
       * libtraceevent keeps a few bytes until exit. */
      g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "ASAN_OPTIONS", "detect_leaks=0", TRUE);

      g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                    NULL, &err, &status, &error);
      g_assert_no_error (error);
      if (!g_spawn_check_wait_status (status, NULL))
        g_error ("strata-gen-trace failed: %s", err);

      read_file (path, &r);
      g_assert_no_error (r.error);
      g_assert_cmpstr (r.compression, ==, compressions[i]);
      assert_hint_is_span (name, &r);
      reading_clear (&r);
    }
}

/* A file whose options make libtracecmd shift every time is read through
 * it: the times are known only as it reads them, so there is no hint. The
 * version 6 fixture's uname option is turned into an offset of 1000 ns. */
static void
test_trace_dat_time_adjusted (void)
{
  g_autoptr(GBytes) v6 = strata_test_fixture_bytes ("sched-small-v6.dat.xz");
  g_autofree char *whole_path = NULL;
  g_autofree char *path = NULL;
  g_autofree guint8 *copy = NULL;
  Reading whole = { 0 }, shifted = { 0 };
  const guint8 *data;
  guint8 *uname;
  guint16 id = GUINT16_TO_LE (7);   /* TRACECMD_OPTION_OFFSET */
  gsize len;

  data = g_bytes_get_data (v6, &len);
  copy = g_memdup2 (data, len);
  uname = memmem (copy, len, "Linux ", 6);
  if (uname == NULL || uname - copy < 6 || uname[-6] != 5 || uname[-5] != 0)
    {
      g_test_skip ("the fixture has no uname option");
      return;
    }
  memcpy (uname - 6, &id, 2);
  memcpy (uname, "1000", 5);

  whole_path = strata_test_write_tmp ("v6-for-offset.dat", data, len);
  path = strata_test_write_tmp ("v6-offset.dat", copy, len);
  read_file (whole_path, &whole);
  read_file (path, &shifted);
  g_assert_no_error (shifted.error);

  g_assert_true (has_hint (&whole));
  g_assert_false (has_hint (&shifted));
  g_assert_cmpuint (shifted.events->len, ==, whole.events->len);
  g_assert_cmpint (shifted.min_ts, ==, whole.min_ts + 1000);
  g_assert_cmpint (shifted.max_ts, ==, whole.max_ts + 1000);

  reading_clear (&whole);
  reading_clear (&shifted);
}

/* A version 6 file cut inside its CPU data is read up to the end of the
 * first cut CPU's whole pages: the hint says where that is. */
static void
test_trace_dat_cut (void)
{
  g_autoptr(GBytes) v6 = strata_test_fixture_bytes ("sched-small-v6.dat.xz");
  guint64 offsets[8], sizes[8];
  const guint8 *data;
  guint n_cpus, with_hint = 0;
  gsize len, from;

  data = g_bytes_get_data (v6, &len);
  n_cpus = strata_test_v6_cpus (data, len, offsets, sizes, G_N_ELEMENTS (offsets));
  g_assert_cmpuint (n_cpus, ==, 2);

  from = offsets[0];
  for (guint i = 0; i < 16; i++)
    {
      gsize cut = from + (len - from) / 16 * i + 1 + i % 5;
      g_autofree char *name = g_strdup_printf ("v6-cut-%" G_GSIZE_FORMAT ".dat", cut);
      g_autofree char *path = strata_test_write_tmp (name, data, cut);
      Reading r = { 0 };

      read_file (path, &r);
      g_assert_error (r.error, STRATA_ERROR, STRATA_ERROR_TRUNCATED);
      if (r.events->len == 0)
        g_assert_false (has_hint (&r));
      else
        {
          assert_hint_is_span (name, &r);
          with_hint++;
        }
      reading_clear (&r);
    }

  g_assert_cmpuint (with_hint, >, 0);
}

/* The offset of the last page of @size bytes at @offset whose commit word
 * (after its 8-byte time stamp) is not 0, or 0. */
static gsize
last_busy_page (const guint8 *data,
                gsize         offset,
                gsize         size)
{
  for (gsize k = size / FIXTURE_PAGE_SIZE; k > 0; k--)
    {
      guint64 commit;

      memcpy (&commit, data + offset + (k - 1) * FIXTURE_PAGE_SIZE + 8, 8);
      if (GUINT64_FROM_LE (commit) != 0)
        return offset + (k - 1) * FIXTURE_PAGE_SIZE;
    }

  return 0;
}

/* What every file damaged near its end must do: open, have no hint or one
 * that starts where the whole file does and ends inside it, and read the
 * whole file's first events before a CORRUPT error. */
static void
check_damaged_end (const char    *name,
                   const guint8  *copy,
                   gsize          len,
                   const Reading *whole)
{
  g_autofree char *path = strata_test_write_tmp (name, copy, len);
  Reading r = { 0 };

  read_file (path, &r);
  g_assert_error (r.error, STRATA_ERROR, STRATA_ERROR_CORRUPT);
  g_assert_cmpuint (r.events->len, >, 0);
  g_assert_cmpuint (r.events->len, <, whole->events->len);
  assert_prefix (name, &r, whole);

  if (has_hint (&r))
    {
      g_assert_cmpint (r.span_first, ==, whole->min_ts);
      g_assert_cmpint (r.span_last, >=, r.span_first);
      g_assert_cmpint (r.span_last, <=, whole->max_ts);
    }
  g_test_message ("%s: %u of %u events, then: %s; hint %s", name, r.events->len,
                  whole->events->len, r.error->message,
                  has_hint (&r) ? "from the pages before the damage" : "unset");

  reading_clear (&r);
}

/* The commit word of a version 6 CPU's last page with events damaged. */
static void
test_trace_dat_damaged_last_page (void)
{
  g_autoptr(GBytes) v6 = strata_test_fixture_bytes ("sched-small-v6.dat.xz");
  g_autofree char *whole_path = NULL;
  guint64 offsets[8], sizes[8];
  Reading whole = { 0 };
  const guint8 *data;
  gsize len;

  data = g_bytes_get_data (v6, &len);
  whole_path = strata_test_write_tmp ("v6-whole-for-last-page.dat", data, len);
  read_file (whole_path, &whole);
  g_assert_no_error (whole.error);

  g_assert_cmpuint (strata_test_v6_cpus (data, len, offsets, sizes, G_N_ELEMENTS (offsets)), ==, 2);
  for (guint c = 0; c < 2; c++)
    {
      g_autofree guint8 *copy = g_memdup2 (data, len);
      g_autofree char *name = g_strdup_printf ("v6-bad-last-page-cpu%u.dat", c);
      gsize page = last_busy_page (data, offsets[c], sizes[c]);

      /* Not the first page: libtracecmd checks that one at open. */
      g_assert_cmpuint (page, >, offsets[c]);
      memset (copy + page + 8, 0x7f, 4);
      check_damaged_end (name, copy, len, &whole);
    }

  reading_clear (&whole);
}

typedef struct
{
  gsize   header;   /* the chunk's header: compressed, uncompressed sizes */
  guint32 csize;
  guint32 usize;
} Chunk;

/* The last zstd chunk of a version 7 file (the last one of its last CPU,
 * which in sched-small.dat is not that CPU's first, which the open checks):
 * a chunk header right before a zstd frame's magic number. */
static gboolean
find_last_chunk (const guint8 *data,
                 gsize         len,
                 Chunk        *chunk)
{
  static const guint8 zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
  gboolean found = FALSE;

  for (gsize o = 8; o + 4 <= len; o++)
    {
      guint32 c, u;

      if (memcmp (data + o, zstd_magic, 4) != 0)
        continue;
      memcpy (&c, data + o - 8, 4);
      memcpy (&u, data + o - 4, 4);
      c = GUINT32_FROM_LE (c);
      u = GUINT32_FROM_LE (u);
      if (c > 0 && c <= len - o && u > 0 && u % FIXTURE_PAGE_SIZE == 0 &&
          ZSTD_getFrameContentSize (data + o, c) != ZSTD_CONTENTSIZE_ERROR)
        {
          chunk->header = o - 8;
          chunk->csize = c;
          chunk->usize = u;
          found = TRUE;
        }
    }

  return found;
}

/* The compressed fixture: the last page with events of its last chunk
 * damaged (the chunk compressed again, a skippable frame filling the rest,
 * so zstd does not notice), then the last chunk not a zstd frame at all. */
static void
test_trace_dat_damaged_last_chunk (void)
{
  g_autoptr(GBytes) v7 = strata_test_fixture_bytes ("sched-small.dat");
  g_autofree char *whole_path = NULL;
  g_autofree guint8 *pages = NULL;
  g_autofree guint8 *packed = NULL;
  g_autofree guint8 *copy = NULL;
  Reading whole = { 0 };
  const guint8 *data;
  gsize len, bound, packed_len, page;
  Chunk chunk = { 0 };

  data = g_bytes_get_data (v7, &len);
  whole_path = strata_test_write_tmp ("v7-whole-for-last-chunk.dat", data, len);
  read_file (whole_path, &whole);
  g_assert_no_error (whole.error);
  g_assert_true (find_last_chunk (data, len, &chunk));

  pages = g_malloc (chunk.usize);
  g_assert_cmpuint (ZSTD_decompress (pages, chunk.usize, data + chunk.header + 8, chunk.csize),
                    ==, chunk.usize);
  page = last_busy_page (pages, 0, chunk.usize);
  memset (pages + page + 8, 0x7f, 4);

  bound = ZSTD_compressBound (chunk.usize);
  packed = g_malloc (bound);
  packed_len = ZSTD_compress (packed, bound, pages, chunk.usize, 19);
  g_assert_false (ZSTD_isError (packed_len));
  if (packed_len + 8 <= chunk.csize)
    {
      guint8 *skip;
      guint32 magic = GUINT32_TO_LE (0x184D2A50);
      guint32 skip_len = GUINT32_TO_LE (chunk.csize - packed_len - 8);

      copy = g_memdup2 (data, len);
      memcpy (copy + chunk.header + 8, packed, packed_len);
      skip = copy + chunk.header + 8 + packed_len;
      memcpy (skip, &magic, 4);
      memcpy (skip + 4, &skip_len, 4);
      memset (skip + 8, 0, chunk.csize - packed_len - 8);
      check_damaged_end ("v7-bad-last-page.dat", copy, len, &whole);
      g_clear_pointer (&copy, g_free);
    }
  else
    g_test_message ("the damaged chunk does not compress into its old size");

  /* The frame's magic number changed: zstd refuses the whole chunk. */
  copy = g_memdup2 (data, len);
  copy[chunk.header + 8] ^= 0xff;
  check_damaged_end ("v7-bad-last-chunk.dat", copy, len, &whole);

  reading_clear (&whole);
}

/* ftrace text ---------------------------------------------------------------- */

static void
test_text (void)
{
  static const char * const fixtures[] = {
    "sched-small.txt",
    "sched-tgid.txt",
    "lossy.txt",
    "instances-top.txt",
    "instances-lossy.txt",
  };

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    check_fixture (fixtures[i]);
}

/* A text file whose last line is cut still reads every whole line: the
 * hint's end is the last whole event line. A line the reader stops at
 * after the last event leaves the hint unset. */
static void
test_text_damaged (void)
{
  g_autoptr(GBytes) text = strata_test_fixture_bytes ("sched-small.txt");
  g_autofree char *cut_path = NULL;
  g_autofree char *junk_path = NULL;
  g_autofree char *whole_path = NULL;
  g_autoptr(GString) junk = NULL;
  Reading whole = { 0 }, cut = { 0 }, bad = { 0 };
  const char *data;
  gsize len;

  data = g_bytes_get_data (text, &len);
  g_assert_cmpuint (len, >, 2);
  g_assert_cmpint (data[len - 1], ==, '\n');

  whole_path = strata_test_write_tmp ("whole.txt", (const guint8 *) data, len);
  read_file (whole_path, &whole);
  g_assert_no_error (whole.error);

  cut_path = strata_test_write_tmp ("cut.txt", (const guint8 *) data, len - 1);
  read_file (cut_path, &cut);
  g_assert_error (cut.error, STRATA_ERROR, STRATA_ERROR_TRUNCATED);
  assert_hint_is_span ("cut.txt", &cut);
  g_assert_cmpuint (cut.events->len, ==, whole.events->len - 1);
  g_assert_cmpint (cut.span_last, <=, whole.span_last);

  junk = g_string_new_len (data, len);
  g_string_append (junk, "this is not a line of ftrace output\n");
  junk_path = strata_test_write_tmp ("junk.txt", (const guint8 *) junk->str, junk->len);
  read_file (junk_path, &bad);
  g_assert_error (bad.error, STRATA_ERROR, STRATA_ERROR_CORRUPT);
  g_assert_false (has_hint (&bad));
  g_assert_cmpuint (bad.events->len, ==, whole.events->len);

  reading_clear (&whole);
  reading_clear (&cut);
  reading_clear (&bad);
}

/* perf.data ------------------------------------------------------------------ */

/* The type of the record at @offset of a file-mode perf.data. */
static guint32
record_type_at (const guint8 *data,
                gsize         len,
                guint64       offset)
{
  guint32 type;

  g_assert_cmpuint (offset, <=, len - 8);
  memcpy (&type, data + offset, 4);
  return GUINT32_FROM_LE (type);
}

/* A file-mode perf.data with a hint: the hint is the span of the events
 * whose records are samples (an uncompressed file's events say where
 * their records are). */
static void
check_perf_samples (const char    *label,
                    const char    *path,
                    const Reading *r)
{
  g_autoptr(GMappedFile) file = NULL;
  g_autoptr(GError) error = NULL;
  gint64 min_sample = G_MAXINT64, max_sample = G_MININT64;
  guint n_samples = 0;
  const guint8 *data;
  gsize len;

  file = g_mapped_file_new (path, FALSE, &error);
  g_assert_no_error (error);
  data = (const guint8 *) g_mapped_file_get_contents (file);
  len = g_mapped_file_get_length (file);
  g_assert_cmpstr (r->compression, ==, "none");
  g_assert_cmpmem (data, 8, "PERFILE2", 8);

  for (guint j = 0; j < r->events->len; j++)
    {
      const Seen *seen = &g_array_index (r->events, Seen, j);

      if (seen->type != STRATA_EVENT_LOST &&
          record_type_at (data, len, seen->offset) == PERF_RECORD_SAMPLE)
        {
          min_sample = MIN (min_sample, seen->ts);
          max_sample = MAX (max_sample, seen->ts);
          n_samples++;
        }
    }

  g_test_message ("%s: %u events, %u samples, hint [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                  "], samples [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "], all events [%"
                  G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]", label, r->events->len, n_samples,
                  r->span_first, r->span_last, min_sample, max_sample, r->min_ts, r->max_ts);
  g_assert_cmpuint (n_samples, >, 0);
  g_assert_cmpint (r->span_first, ==, min_sample);
  g_assert_cmpint (r->span_last, ==, max_sample);
  /* The other records (COMM, FORK, EXIT, SWITCH ...) may lie outside. */
  g_assert_cmpint (r->min_ts, <=, r->span_first);
  g_assert_cmpint (r->max_ts, >=, r->span_last);
  g_assert_cmpint (r->first_ts, ==, r->min_ts);
  g_assert_cmpint (r->last_ts, ==, r->max_ts);
}

/* Which perf fixtures carry a sample time (perf 6.1 writes it in file mode,
 * as 0 and 0 when it did not go through the samples, as with -z). */
static void
test_perf (void)
{
  static const struct
  {
    const char *fixture;
    gboolean    hint;
  } fixtures[] = {
    { "perf-sched.data.xz", TRUE },
    { "perf-mono.data.xz", TRUE },
    { "perf-callchain.data.xz", TRUE },
    { "perf-switch.data.xz", TRUE },
    { "perf-zstd.data.xz", FALSE },       /* sample time 0, 0 */
    { "perf-pipe.data.xz", FALSE },       /* pipe mode */
    { "perf-pipe-cpu.data.xz", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[i].fixture);
      Reading r = { 0 };

      read_file (path, &r);
      g_assert_no_error (r.error);
      g_assert_cmpint (has_hint (&r), ==, fixtures[i].hint);
      if (fixtures[i].hint)
        check_perf_samples (fixtures[i].fixture, path, &r);
      reading_clear (&r);
    }
}

/* The perf.data files of ../shared/corpus (other perf versions and
 * machines) that give a hint agree with their samples too. */
static void
test_perf_corpus (void)
{
  const char *dir = g_getenv ("STRATA_CORPUS_DIR");
  g_autofree char *perf_dir = NULL;
  g_autoptr(GDir) listing = NULL;
  const char *name;
  guint with_hint = 0;

  if (dir != NULL)
    perf_dir = g_build_filename (dir, "perf", NULL);
  if (perf_dir == NULL || (listing = g_dir_open (perf_dir, 0, NULL)) == NULL)
    {
      g_test_skip ("no corpus");
      return;
    }

  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (perf_dir, name, NULL);
      g_autoptr(StrataSource) probe = strata_source_open (path, NULL);
      Reading r = { 0 };

      /* Files the reader refuses are the corpus tests' business. */
      if (probe == NULL)
        continue;
      g_clear_object (&probe);

      read_file (path, &r);
      if (has_hint (&r))
        {
          check_perf_samples (name, path, &r);
          with_hint++;
        }
      else
        g_test_message ("%s: no hint (%s)", name, r.compression);
      reading_clear (&r);
    }

  g_test_message ("%u files with a hint", with_hint);
}

/* A HEADER_SAMPLE_TIME section that says nothing sensible gives no hint,
 * and the file reads as before. */
static void
test_perf_bad_section (void)
{
  g_autoptr(GBytes) bytes = strata_test_fixture_bytes ("perf-sched.data.xz");
  g_autofree char *whole_path = NULL;
  guint64 data_offset, data_size, features[4], entry, section, length;
  Reading whole = { 0 };
  const guint8 *data;
  guint n = 0;
  gsize len;

  data = g_bytes_get_data (bytes, &len);
  g_assert_cmpmem (data, 8, "PERFILE2", 8);
  memcpy (&data_offset, data + 40, 8);
  memcpy (&data_size, data + 48, 8);
  memcpy (features, data + 72, sizeof features);
  data_offset = GUINT64_FROM_LE (data_offset);
  data_size = GUINT64_FROM_LE (data_size);
  g_assert_true (GUINT64_FROM_LE (features[0]) & (G_GUINT64_CONSTANT (1) << PERF_FEAT_SAMPLE_TIME));
  for (guint f = 0; f < PERF_FEAT_SAMPLE_TIME; f++)
    if (GUINT64_FROM_LE (features[f / 64]) & (G_GUINT64_CONSTANT (1) << (f % 64)))
      n++;
  entry = data_offset + data_size + 16 * n;
  g_assert_cmpuint (entry + 16, <=, len);
  memcpy (&section, data + entry, 8);
  memcpy (&length, data + entry + 8, 8);
  section = GUINT64_FROM_LE (section);
  g_assert_cmpuint (GUINT64_FROM_LE (length), ==, 16);
  g_assert_cmpuint (section + 16, <=, len);

  whole_path = strata_test_write_tmp ("perf-whole.data", data, len);
  read_file (whole_path, &whole);
  g_assert_true (has_hint (&whole));

  for (guint kind = 0; kind < 3; kind++)
    {
      g_autofree guint8 *copy = g_memdup2 (data, len);
      g_autofree char *name = g_strdup_printf ("perf-bad-sample-time-%u.data", kind);
      g_autofree char *path = NULL;
      guint64 v;
      Reading r = { 0 };

      switch (kind)
        {
        case 0:   /* the first sample after the last */
          memcpy (copy + section, data + section + 8, 8);
          memcpy (copy + section + 8, data + section, 8);
          break;
        case 1:   /* not gone through: 0 and 0 */
          memset (copy + section, 0, 16);
          break;
        case 2:   /* a section too short for two times */
          v = GUINT64_TO_LE (8);
          memcpy (copy + entry + 8, &v, 8);
          break;
        default:
          g_assert_not_reached ();
        }

      path = strata_test_write_tmp (name, copy, len);
      read_file (path, &r);
      g_assert_no_error (r.error);
      g_assert_false (has_hint (&r));
      g_assert_cmpuint (r.events->len, ==, whole.events->len);
      assert_prefix (name, &r, &whole);
      reading_clear (&r);
    }

  reading_clear (&whole);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/span-hint/trace-dat/fixtures-equal-events-read", test_trace_dat);
  g_test_add_func ("/strata/span-hint/trace-dat/generated-equal-events-read",
                   test_trace_dat_generated);
  g_test_add_func ("/strata/span-hint/trace-dat/time-adjusted-has-none",
                   test_trace_dat_time_adjusted);
  g_test_add_func ("/strata/span-hint/trace-dat/cut-equals-events-read", test_trace_dat_cut);
  g_test_add_func ("/strata/span-hint/trace-dat/damaged-last-page-still-opens",
                   test_trace_dat_damaged_last_page);
  g_test_add_func ("/strata/span-hint/trace-dat/damaged-last-chunk-still-opens",
                   test_trace_dat_damaged_last_chunk);
  g_test_add_func ("/strata/span-hint/text/fixtures-equal-events-read", test_text);
  g_test_add_func ("/strata/span-hint/text/damaged-end", test_text_damaged);
  g_test_add_func ("/strata/span-hint/perf/equals-samples-read", test_perf);
  g_test_add_func ("/strata/span-hint/perf/corpus-equals-samples-read", test_perf_corpus);
  g_test_add_func ("/strata/span-hint/perf/bad-sample-time-has-none", test_perf_bad_section);

  return g_test_run ();
}
