/* test-record-damage.c
 *
 * The eBPF recording reader on whole, broken and growing files, and the
 * recorder's refusals. The fixture ebpf-sched.strata (two rings, so the
 * reader merges; from before the wakeups' context byte, so its 24-byte
 * wakeups read as of no known context) is read whole, then cut at every block boundary and
 * inside blocks, bit-flipped and filled with garbage: whatever the
 * damage, reading must not crash (the suite runs under ASan too), must
 * fail with a STRATA_ERROR naming the file and an offset, and must keep
 * every event of the blocks before the damage, in time order, each one
 * the whole file has. A copy of the fixture that grows a few bytes at a
 * time, read in follow mode between the writes, yields exactly the
 * events of the whole. And, as root: a recorder killed with SIGKILL
 * leaves a file that opens up to its last whole block with a warning,
 * a full disk stops the recording with an error that says so and a file
 * that opens, and a recorder without its privileges, with an output it
 * cannot write or options that make no sense refuses clearly.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "strata-test-record.h"
#include "strata-test-damage.h"
#include "strata-test-support.h"
#include "../plugins/ebpf/strata-ebpf-file.h"
#include "../plugins/ebpf/strata-ebpf-preflight.h"
#include "../plugins/ebpf/strata-ebpf-source.h"

#define FIXTURE "ebpf-sched.strata.xz"

/* Where each block of the whole file starts and ends. */
static GArray *
block_bounds (const char *path)
{
  g_autoptr(StrataEbpfFile) file = NULL;
  g_autoptr(GError) error = NULL;
  GArray *bounds = g_array_new (FALSE, FALSE, sizeof (guint64));
  StrataEbpfBlockData block;
  guint64 at;

  file = strata_ebpf_file_open (path, NULL, &error);
  g_assert_no_error (error);
  at = strata_ebpf_file_get_offset (file);
  g_array_append_val (bounds, at);
  while (strata_ebpf_file_next (file, &block, &error) == STRATA_EBPF_FILE_BLOCK)
    {
      at = strata_ebpf_file_get_offset (file);
      g_array_append_val (bounds, at);
      strata_ebpf_block_data_clear (&block);
    }
  g_assert_no_error (error);
  return bounds;
}

static int
seen_cmp (gconstpointer a,
          gconstpointer b)
{
  const StrataTestSeen *x = a, *y = b;

  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  return 0;
}

static guint64
error_offset (const GError *error)
{
  const char *p = strstr (error->message, "offset ");

  g_assert_nonnull (p);
  return g_ascii_strtoull (p + 7, NULL, 10);
}

/* @part's events are some of @whole's, in time order, and it has every
 * event whose record lies before @before. */
static void
assert_kept (const GArray *whole,
             const GArray *part,
             guint64       before)
{
  g_autoptr(GArray) w = g_array_copy ((GArray *) whole);
  g_autoptr(GArray) p = g_array_copy ((GArray *) part);
  guint j = 0, expected = 0, found = 0;

  for (guint i = 1; i < part->len; i++)
    g_assert_cmpint (g_array_index (part, StrataTestSeen, i - 1).ts, <=, g_array_index (part, StrataTestSeen, i).ts);

  g_array_sort (w, seen_cmp);
  g_array_sort (p, seen_cmp);
  for (guint i = 0; i < p->len; i++)
    {
      const StrataTestSeen *s = &g_array_index (p, StrataTestSeen, i);

      while (j < w->len && g_array_index (w, StrataTestSeen, j).offset < s->offset)
        j++;
      g_assert_cmpuint (j, <, w->len);
      g_assert_cmpuint (g_array_index (w, StrataTestSeen, j).offset, ==, s->offset);
      g_assert_cmpint (g_array_index (w, StrataTestSeen, j).ts, ==, s->ts);
      g_assert_cmpuint (g_array_index (w, StrataTestSeen, j).type, ==, s->type);
    }
  for (guint i = 0; i < w->len; i++)
    if (g_array_index (w, StrataTestSeen, i).offset < before)
      expected++;
  for (guint i = 0; i < p->len; i++)
    if (g_array_index (p, StrataTestSeen, i).offset < before)
      found++;
  g_assert_cmpuint (found, ==, expected);
}

static void
test_whole (void)
{
  g_autofree char *path = strata_test_fixture (FIXTURE);
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(StrataEbpfFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = strata_test_read_events (path, &source, &error);
  const StrataEbpfFooter *footer;
  const StrataSourceInfo *info;
  guint64 by_type[STRATA_N_EVENT_TYPES] = { 0 };
  guint rings_seen = 0;
  guint64 n_old_wakeups = 0;
  StrataEbpfBlockData block;

  g_assert_no_error (error);
  info = strata_source_get_info (source);
  g_assert_cmpstr (info->format, ==, "strata eBPF");
  g_assert_cmpuint (info->lost_events, ==, 0);
  g_assert_true (strata_ebpf_source_is_complete (STRATA_EBPF_SOURCE (source)));
  g_assert_cmpuint (strata_ebpf_source_get_out_of_order (STRATA_EBPF_SOURCE (source)), ==, 0);
  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);

      if (i > 0)
        g_assert_cmpint (g_array_index (events, StrataEvent, i - 1).ts, <=, ev->ts);
      by_type[ev->type]++;
      /* The fixture predates the wakeups' context byte: its 24-byte
       * wakeups read as ones whose context is not known. */
      if (ev->type == STRATA_EVENT_SCHED_WAKING || ev->type == STRATA_EVENT_SCHED_WAKEUP_NEW)
        g_assert_cmpuint (ev->u.wakeup.context, ==, 0);
    }

  /* The footer's count of each record type is what came out. */
  file = strata_ebpf_file_open (path, NULL, &error);
  g_assert_no_error (error);
  footer = strata_ebpf_file_get_footer (file);
  g_assert_nonnull (footer);
  g_assert_cmpuint (by_type[STRATA_EVENT_SCHED_SWITCH], ==,
                    g_array_index (footer->counts, guint64, STRATA_EBPF_REC_SWITCH));
  g_assert_cmpuint (by_type[STRATA_EVENT_SCHED_WAKING], ==,
                    g_array_index (footer->counts, guint64, STRATA_EBPF_REC_WAKING));
  g_assert_cmpuint (by_type[STRATA_EVENT_SCHED_PROCESS_FORK], ==,
                    g_array_index (footer->counts, guint64, STRATA_EBPF_REC_FORK));
  g_assert_cmpuint (by_type[STRATA_EVENT_SOFTIRQ_ENTRY], ==,
                    g_array_index (footer->counts, guint64, STRATA_EBPF_REC_SOFTIRQ_ENTRY));
  g_assert_cmpuint (by_type[STRATA_EVENT_SCHED_SWITCH], >, 1000);
  g_assert_cmpint (info->span_first, ==, events->len > 0 ? g_array_index (events, StrataEvent, 0).ts : 0);
  g_assert_cmpint (info->span_last, ==, g_array_index (events, StrataEvent, events->len - 1).ts);

  /* Both rings have blocks: the merge was needed. */
  while (strata_ebpf_file_next (file, &block, &error) == STRATA_EBPF_FILE_BLOCK)
    {
      gsize size;
      const guint8 *records = g_bytes_get_data (block.records, &size);

      if (block.ring < 2 && block.n_records > 0)
        rings_seen |= 1u << block.ring;
      for (gsize pos = 0; pos + sizeof (struct strata_ebpf_record) <= size;)
        {
          struct strata_ebpf_record r;

          memcpy (&r, records + pos, sizeof r);
          if (r.type == STRATA_EBPF_REC_WAKING || r.type == STRATA_EBPF_REC_WAKEUP_NEW)
            {
              g_assert_cmpuint (r.size8 * 8, ==, STRATA_EBPF_WAKEUP_MIN_SIZE);
              n_old_wakeups++;
            }
          pos += r.size8 * 8;
        }
      strata_ebpf_block_data_clear (&block);
    }
  g_assert_cmpuint (rings_seen, ==, 3);
  g_assert_cmpuint (n_old_wakeups, ==, by_type[STRATA_EVENT_SCHED_WAKING] +
                                       by_type[STRATA_EVENT_SCHED_WAKEUP_NEW]);
  g_assert_cmpuint (n_old_wakeups, >, 0);
}

static char *
write_tmp (const char   *name,
           const guint8 *data,
           gsize         len)
{
  return strata_test_write_tmp (name, data, len);
}

static void
test_truncated (void)
{
  g_autofree char *path = strata_test_fixture (FIXTURE);
  g_autoptr(GBytes) bytes = strata_test_fixture_bytes (FIXTURE);
  g_autoptr(GArray) bounds = block_bounds (path);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  StrataTestOutcome whole;
  g_autoptr(GArray) cuts = g_array_new (FALSE, FALSE, sizeof (guint64));

  strata_test_outcome_read (path, &whole);
  g_assert_no_error (whole.error);

  /* Inside the header, at and around each block's start, inside blocks. */
  for (guint64 c = 0; c < g_array_index (bounds, guint64, 0); c += 37)
    g_array_append_val (cuts, c);
  for (guint i = 0; i < bounds->len; i++)
    {
      guint64 b = g_array_index (bounds, guint64, i);
      guint64 around[] = { b, b + 1, b + 47, b + 48, b + 49, b + 2000 };

      for (guint k = 0; k < G_N_ELEMENTS (around); k++)
        if (around[k] < len)
          g_array_append_val (cuts, around[k]);
    }
  {
    guint64 c = len - 1;
    g_array_append_val (cuts, c);
  }

  for (guint i = 0; i < cuts->len; i++)
    {
      guint64 cut = g_array_index (cuts, guint64, i);
      g_autofree char *tmp = write_tmp ("cut.strata", data, cut);
      guint64 before = 0;
      StrataTestOutcome o;

      strata_test_outcome_read (tmp, &o);
      if (o.error == NULL)
        {
          /* Only the trailer is cut: the footer is whole. */
          g_assert_cmpuint (cut, >=, len - 16);
          g_assert_cmpuint (o.events->len, ==, whole.events->len);
          strata_test_outcome_clear (&o);
          continue;
        }
      strata_test_assert_damage_error (o.error, tmp);
      if (!o.opened)
        {
          g_assert_cmpuint (cut, <, g_array_index (bounds, guint64, 0));
          strata_test_outcome_clear (&o);
          continue;
        }
      g_assert_true (g_error_matches (o.error, STRATA_ERROR, STRATA_ERROR_TRUNCATED));
      /* Everything in the blocks wholly before the cut. */
      for (guint k = 0; k < bounds->len && g_array_index (bounds, guint64, k) <= cut; k++)
        before = g_array_index (bounds, guint64, k);
      g_assert_cmpuint (error_offset (o.error), ==, before);
      assert_kept (whole.events, o.events, before);
      strata_test_outcome_clear (&o);
    }

  strata_test_outcome_clear (&whole);
}

static void
test_bit_flips (void)
{
  g_autofree char *path = strata_test_fixture (FIXTURE);
  g_autoptr(GBytes) bytes = strata_test_fixture_bytes (FIXTURE);
  g_autoptr(GArray) bounds = block_bounds (path);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  g_autofree guint8 *copy = g_memdup2 (data, len);
  StrataTestOutcome whole;

  strata_test_outcome_read (path, &whole);
  g_assert_no_error (whole.error);

  for (guint i = 0; i < 300; i++)
    {
      guint64 at = g_test_rand_int_range (0, (gint32) len);
      guint8 bit = 1u << g_test_rand_int_range (0, 8);
      g_autofree char *tmp = NULL;
      guint64 damage;
      StrataTestOutcome o;

      copy[at] ^= bit;
      tmp = write_tmp ("flipped.strata", copy, len);
      copy[at] ^= bit;

      strata_test_outcome_read (tmp, &o);
      if (o.error == NULL)
        {
          /* Only the trailer is not checksummed: its footer offset then
           * finds no footer, which the reader does not need. */
          g_assert_cmpuint (at, >=, len - 16);
          g_assert_cmpuint (o.events->len, ==, whole.events->len);
          strata_test_outcome_clear (&o);
          continue;
        }
      strata_test_assert_damage_error (o.error, tmp);
      if (!o.opened)
        {
          g_assert_cmpuint (at, <, g_array_index (bounds, guint64, 0));
          strata_test_outcome_clear (&o);
          continue;
        }
      /* The damage is said where the block it hit starts. */
      damage = error_offset (o.error);
      g_assert_cmpuint (damage, <=, at);
      assert_kept (whole.events, o.events, damage);
      strata_test_outcome_clear (&o);
    }

  strata_test_outcome_clear (&whole);
}

static void
test_garbage (void)
{
  g_autofree char *path = strata_test_fixture (FIXTURE);
  g_autoptr(GBytes) bytes = strata_test_fixture_bytes (FIXTURE);
  g_autoptr(GArray) bounds = block_bounds (path);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  StrataTestOutcome whole;

  strata_test_outcome_read (path, &whole);

  for (guint round = 0; round < 20; round++)
    {
      guint b = g_test_rand_int_range (0, bounds->len - 1);
      guint64 at = g_array_index (bounds, guint64, b);
      gsize want = g_test_rand_int_range (1, 5000);
      gsize n = MIN (want, len - at);
      g_autofree guint8 *copy = g_memdup2 (data, len);
      g_autofree char *tmp = NULL;
      StrataTestOutcome o;

      for (gsize k = 0; k < n; k++)
        copy[at + k] = g_test_rand_int_range (0, 256);
      tmp = write_tmp ("garbage.strata", copy, len);
      strata_test_outcome_read (tmp, &o);
      strata_test_assert_damage_error (o.error, tmp);
      g_assert_cmpuint (error_offset (o.error), ==, at);
      assert_kept (whole.events, o.events, at);
      strata_test_outcome_clear (&o);
    }

  strata_test_outcome_clear (&whole);
}

/* A file read while it is written, a few bytes at a time, in follow
 * mode: the same events as the whole, in the same order. */
static void
test_follow (void)
{
  g_autofree char *path = strata_test_fixture (FIXTURE);
  g_autoptr(GBytes) bytes = strata_test_fixture_bytes (FIXTURE);
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *grow = g_build_filename (dir, "growing.strata", NULL);
  g_autoptr(GArray) whole = NULL;
  g_autoptr(GArray) followed = g_array_new (FALSE, FALSE, sizeof (StrataEvent));
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;
  gsize len, written;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  FILE *f;

  whole = strata_test_read_events (path, NULL, &error);
  g_assert_no_error (error);

  /* The header first: a reader opens a recording once it has one. */
  f = fopen (grow, "wb");
  g_assert_nonnull (f);
  written = MIN (len, 4096);
  g_assert_cmpuint (fwrite (data, 1, written, f), ==, written);
  fflush (f);

  source = strata_source_open (grow, &error);
  g_assert_no_error (error);
  strata_ebpf_source_set_follow (STRATA_EBPF_SOURCE (source), TRUE);

  for (;;)
    {
      StrataEvent batch[100];
      gssize n;

      while ((n = strata_source_read_batch (source, batch, G_N_ELEMENTS (batch), &error)) > 0)
        g_array_append_vals (followed, batch, n);
      g_assert_no_error (error);
      g_assert_cmpint (n, ==, 0);
      if (written == len)
        break;
      {
        gsize want = g_test_rand_int_range (1, 60000);
        gsize step = MIN (want, len - written);

        if (fwrite (data + written, 1, step, f) != step || fflush (f) != 0)
          g_error ("writing %s: %s", grow, g_strerror (errno));
        written += step;
      }
    }
  fclose (f);

  g_assert_true (strata_ebpf_source_is_complete (STRATA_EBPF_SOURCE (source)));
  g_assert_cmpuint (followed->len, ==, whole->len);
  for (guint i = 0; i < whole->len; i++)
    {
      const StrataEvent *a = &g_array_index (whole, StrataEvent, i);
      const StrataEvent *b = &g_array_index (followed, StrataEvent, i);

      g_assert_cmpint (a->ts, ==, b->ts);
      g_assert_cmpuint (a->source_offset, ==, b->source_offset);
      g_assert_cmpuint (a->type, ==, b->type);
    }
  g_unlink (grow);
}

/* ---- as root: the recorder itself ---- */

static gboolean
permitted (void)
{
  g_autofree char *why = NULL;

  if (strata_test_record_permitted (&why))
    return TRUE;
  g_test_skip (why);
  return FALSE;
}

static void
test_killed (void)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "killed.strata", NULL);
  g_autoptr(GSubprocess) recorder = NULL;
  g_autoptr(GSubprocess) busy = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autofree char *out = NULL, *err = NULL;
  const GError *damage;
  int lock, status;

  if (!permitted ())
    return;

  lock = strata_test_record_lock ();
  recorder = strata_test_recorder_start (path, NULL, &error);
  g_assert_no_error (error);
  /* Busy enough that blocks are written (one a drain period); then
   * killed while the rings hold more. */
  while (TRUE)
    {
      GStatBuf st;

      busy = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE, &error,
                               "perf", "bench", "sched", "messaging", "-g", "1", "-l", "20", NULL);
      g_assert_no_error (error);
      g_subprocess_wait (busy, NULL, NULL);
      g_clear_object (&busy);
      if (g_stat (path, &st) == 0 && st.st_size > 64 * 1024)
        break;
    }
  g_subprocess_force_exit (recorder);
  g_subprocess_wait (recorder, NULL, NULL);
  strata_test_record_unlock (lock);

  trace = strata_test_load (path, &error);
  g_assert_no_error (error);
  damage = strata_trace_get_damage (trace);
  g_assert_nonnull (damage);
  g_assert_true (g_error_matches (damage, STRATA_ERROR, STRATA_ERROR_TRUNCATED));
  g_assert_nonnull (strstr (damage->message, "offset "));
  g_assert_cmpuint (strata_trace_get_n_events (trace), >, 1000);

  {
    const char *args[] = { "info", "--no-index", path, NULL };

    status = strata_test_run_cli (args, &out, &err);
    g_assert_cmpint (status, ==, 2);
    g_assert_nonnull (strstr (err, "warning"));
    g_assert_nonnull (strstr (err, "offset "));
    g_assert_nonnull (strstr (out, "Stopped cleanly no"));
  }
  g_unlink (path);
}

static void
test_disk_full (void)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *mnt = g_build_filename (dir, "small-disk", NULL);
  g_autofree char *path = g_build_filename (mnt, "full.strata", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  int lock, status;

  if (!permitted ())
    return;

  g_assert_cmpint (g_mkdir_with_parents (mnt, 0755), ==, 0);
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=4m") != 0)
    {
      g_test_fail_printf ("mounting a small tmpfs at %s: %s", mnt, g_strerror (errno));
      return;
    }

  lock = strata_test_record_lock ();
  {
    /* Syscalls fill 4 MiB within a few seconds of this. The disk holds
     * several of the recorder's blocks (1 MiB at most): one drain's block
     * on a loaded machine (a late drain) once took the whole of a 256 KiB
     * disk, and the file held no events at all. */
    const char *args[] = { "record", "-q", "-e", "syscalls", "-o", path, "--duration", "20",
                           "--", "perf", "bench", "sched", "messaging", "-g", "2", "-l", "5000", NULL };

    status = strata_test_run_cli (args, &out, &err);
  }
  strata_test_record_unlock (lock);

  g_test_message ("%s", err);
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (err, "the disk is full"));
  g_assert_nonnull (strstr (err, "offset "));

  trace = strata_test_load (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strata_trace_get_damage (trace));
  g_assert_cmpuint (strata_trace_get_n_events (trace), >, 100);
  g_clear_object (&trace);

  umount2 (mnt, MNT_DETACH);
  g_rmdir (mnt);
}

/* Each refusal names its cause and what to do. */
static void
test_refusals (void)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *log = NULL;
  g_autofree char *said = NULL;
  g_autofree char *why = NULL;
  g_autoptr(GError) error = NULL;
  gboolean can_record = strata_test_record_permitted (&why);
  static const struct {
    const char *args[8];
    const char *says;
  } cases[] = {
    { { "record", "-q", "-o", "/nonexistent-dir/x.strata", "-d", "1", NULL }, "choose another place with -o" },
    { { "record", "-q", "-o", "/", "-d", "1", NULL }, "it is a directory" },
    { { "record", "-q", "-e", "sched,disk", "-d", "1", NULL }, "unknown event set “disk”" },
    { { "record", "-q", "-b", "lots", "-d", "1", NULL }, "--buffer-size lots" },
    { { "record", "-q", "-d", "soon", NULL }, "--duration soon" },
    { { "record", "-q", "--hooks", "kprobe", NULL }, "--hooks tp_btf or raw_tp" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      /* Where recording is not permitted, that is said before the output. */
      if (!can_record && i < 2)
        continue;

      g_assert_cmpint (strata_test_run_cli (cases[i].args, &out, &err), ==, 1);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, cases[i].says));
    }

  /* No BTF: the check says which file is missing and what kernel to use. */
  g_assert_false (strata_ebpf_preflight_btf ("/nonexistent/btf/vmlinux", &error));
  g_assert_nonnull (strstr (error->message, "CONFIG_DEBUG_INFO_BTF"));
  g_clear_error (&error);

  /* The verifier's refusal, from a real libbpf log: the program and its
   * last lines. */
  {
    g_autofree char *fixture = strata_test_fixture ("libbpf-verifier-log.txt");

    g_assert_true (g_file_get_contents (fixture, &log, NULL, NULL));
    said = strata_ebpf_describe_verifier_log (log);
    g_assert_nonnull (said);
    g_assert_nonnull (strstr (said, "btf_sched_switch"));
    g_assert_nonnull (strstr (said, "R0 invalid mem access 'map_value_or_null'"));
    g_assert_null (strstr (said, "END PROG LOAD LOG"));
    g_assert_null (strata_ebpf_describe_verifier_log ("libbpf: nothing of a verifier here\n"));
  }

  /* Without privileges: which capability is missing. */
  if (getuid () == 0 && strata_test_have_program ("setpriv"))
    {
      const char *cli = g_getenv ("STRATA_CLI");
      g_autofree char *out = g_build_filename (dir, "unprivileged.strata", NULL);
      const char *none[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                             cli, "record", "-q", "-o", out, "-d", "1", NULL };
      const char *bpf_only[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                 "--inh-caps=+bpf", "--ambient-caps=+bpf",
                                 cli, "record", "-q", "-o", out, "-d", "1", NULL };
      const char * const *runs[] = { none, bpf_only };
      const char *says[] = { "this process has neither", "CAP_PERFMON is missing (CAP_BPF is there)" };

      for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
        {
          g_autofree char *o = NULL, *e = NULL;
          int status;

          g_assert_true (g_spawn_sync (NULL, (char **) runs[i], NULL, G_SPAWN_SEARCH_PATH,
                                       NULL, NULL, &o, &e, &status, &error));
          g_assert_no_error (error);
          g_test_message ("%s", e);
          g_assert_false (g_spawn_check_wait_status (status, NULL));
          g_assert_nonnull (strstr (e, says[i]));
          g_assert_nonnull (strstr (e, "sudo"));
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/ebpf/whole", test_whole);
  g_test_add_func ("/strata/ebpf/truncated", test_truncated);
  g_test_add_func ("/strata/ebpf/bit-flips", test_bit_flips);
  g_test_add_func ("/strata/ebpf/garbage", test_garbage);
  g_test_add_func ("/strata/ebpf/follow", test_follow);
  g_test_add_func ("/strata/ebpf/killed", test_killed);
  g_test_add_func ("/strata/ebpf/disk-full", test_disk_full);
  g_test_add_func ("/strata/ebpf/refusals", test_refusals);

  return g_test_run ();
}
