/* test-perf-byteorder.c
 *
 * perf.data written by a big-endian machine. None can be recorded here, so
 * the test makes one: it rewrites a little-endian recording field by field
 * as a big-endian perf would have written it (every integer byte-swapped,
 * the attr's bit field word with the bits of each byte reversed, as GCC
 * lays bit fields out on big-endian machines) with its own, independent
 * knowledge of the layouts, and the reader must yield the same events
 * from both. The feature sections are dropped from the swapped file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-perf-writer.h"
#include "strata-test-support.h"
#include "../plugins/perf/strata-perf-source.h"

/* perf_event_attr: which bytes are which integer (up to config3). */
static void
swap_attr (guint8 *a,
           gsize   size)
{
  static const struct { guint off, width; } fields[] = {
    { 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 },
    { 48, 4 }, { 52, 4 }, { 56, 8 }, { 64, 8 }, { 72, 8 }, { 80, 8 }, { 88, 4 },
    { 92, 4 }, { 96, 8 }, { 104, 4 }, { 108, 2 }, { 112, 4 }, { 120, 8 }, { 128, 8 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      if (fields[i].off + fields[i].width > size)
        continue;
      switch (fields[i].width)
        {
        case 2: strata_test_swap16 (a + fields[i].off); break;
        case 4: strata_test_swap32 (a + fields[i].off); break;
        default: strata_test_swap64 (a + fields[i].off); break;
        }
    }

  /* The bit fields: the bytes stay, each byte's bits turn round. */
  for (guint i = 40; i < 48; i++)
    {
      guint8 b = a[i], r = 0;

      for (guint bit = 0; bit < 8; bit++)
        if (b & (1u << bit))
          r |= 0x80 >> bit;
      a[i] = r;
    }
}

enum { S_IP = 1 << 0, S_TID = 1 << 1, S_TIME = 1 << 2, S_ADDR = 1 << 3, S_READ = 1 << 4,
       S_CALLCHAIN = 1 << 5, S_ID = 1 << 6, S_CPU = 1 << 7, S_PERIOD = 1 << 8,
       S_STREAM_ID = 1 << 9, S_IDENTIFIER = 1 << 16 };

/* The sample_id_all trailer at the end of @body: TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER. */
static void
swap_trailer (guint8  *body,
              gsize    len,
              guint64  st)
{
  guint n = !!(st & S_TID) + !!(st & S_TIME) + !!(st & S_ID) + !!(st & S_STREAM_ID) +
            !!(st & S_CPU) + !!(st & S_IDENTIFIER);
  guint8 *p;

  g_assert_cmpuint (len, >=, 8 * n);
  p = body + len - 8 * n;
  if (st & S_TID) { strata_test_swap32 (p); strata_test_swap32 (p + 4); p += 8; }
  if (st & S_TIME) { strata_test_swap64 (p); p += 8; }
  if (st & S_ID) { strata_test_swap64 (p); p += 8; }
  if (st & S_STREAM_ID) { strata_test_swap64 (p); p += 8; }
  if (st & S_CPU) { strata_test_swap32 (p); strata_test_swap32 (p + 4); p += 8; }
  if (st & S_IDENTIFIER) strata_test_swap64 (p);
}

static void
swap_sample (guint8  *p,
             gsize    len,
             guint64  st,
             guint64  rf)
{
  guint8 *end = p + len;

  g_assert_cmpuint (st & ~(guint64) (S_IP | S_TID | S_TIME | S_ADDR | S_READ | S_CALLCHAIN |
                                     S_ID | S_CPU | S_PERIOD | S_STREAM_ID | S_IDENTIFIER), ==, 0);
  if (st & S_IDENTIFIER) { strata_test_swap64 (p); p += 8; }
  if (st & S_IP) { strata_test_swap64 (p); p += 8; }
  if (st & S_TID) { strata_test_swap32 (p); strata_test_swap32 (p + 4); p += 8; }
  if (st & S_TIME) { strata_test_swap64 (p); p += 8; }
  if (st & S_ADDR) { strata_test_swap64 (p); p += 8; }
  if (st & S_ID) { strata_test_swap64 (p); p += 8; }
  if (st & S_STREAM_ID) { strata_test_swap64 (p); p += 8; }
  if (st & S_CPU) { strata_test_swap32 (p); strata_test_swap32 (p + 4); p += 8; }
  if (st & S_PERIOD) { strata_test_swap64 (p); p += 8; }
  if (st & S_READ)
    {
      /* Not a group: the value and whatever read_format adds, all u64. */
      guint n = 1 + __builtin_popcountll (rf & 0x17);

      g_assert_false (rf & 8);
      for (guint i = 0; i < n; i++, p += 8)
        strata_test_swap64 (p);
    }
  if (st & S_CALLCHAIN)
    {
      guint64 nr = strata_test_le64 (p);

      strata_test_swap64 (p);
      p += 8;
      for (guint64 i = 0; i < nr; i++, p += 8)
        strata_test_swap64 (p);
    }
  g_assert_true (p == end);
}

/* The file as a big-endian perf would have written it, features left out. */
static GBytes *
to_big_endian (const guint8 *d,
               gsize         len)
{
  g_autofree guint8 *out = g_memdup2 (d, len);
  guint64 attr_size = strata_test_le64 (d + 16), attrs_off = strata_test_le64 (d + 24), attrs_size = strata_test_le64 (d + 32);
  guint64 data_off = strata_test_le64 (d + 40), data_size = strata_test_le64 (d + 48);
  guint64 st = strata_test_le64 (d + attrs_off + 24), rf = strata_test_le64 (d + attrs_off + 32);

  /* The header: the magic's bytes turn round with the rest. */
  for (guint off = 0; off < 72; off += 8)
    strata_test_swap64 (out + off);
  memset (out + 72, 0, 32);

  for (guint64 a = attrs_off; a < attrs_off + attrs_size; a += attr_size)
    {
      guint64 ids_off = strata_test_le64 (d + a + attr_size - 16), ids_size = strata_test_le64 (d + a + attr_size - 8);

      g_assert_cmpuint (strata_test_le64 (d + a + 24), ==, st);
      swap_attr (out + a, attr_size - 16);
      strata_test_swap64 (out + a + attr_size - 16);
      strata_test_swap64 (out + a + attr_size - 8);
      for (guint64 i = 0; i < ids_size; i += 8)
        strata_test_swap64 (out + ids_off + i);
    }

  for (guint64 pos = data_off; pos < data_off + data_size;)
    {
      guint32 type = strata_test_le32 (d + pos);
      guint16 misc = strata_test_le16 (d + pos + 4), size = strata_test_le16 (d + pos + 6);
      guint8 *b = out + pos + 8;
      gsize blen = size - 8;

      g_assert_cmpuint (size, >=, 8);
      strata_test_swap32 (out + pos);
      strata_test_swap16 (out + pos + 4);
      strata_test_swap16 (out + pos + 6);

      switch (type)
        {
        case 9:   /* SAMPLE */
          swap_sample (b, blen, st, rf);
          break;
        case 3:   /* COMM: pid, tid, comm */
          strata_test_swap32 (b); strata_test_swap32 (b + 4);
          swap_trailer (b, blen, st);
          break;
        case 4: case 7:   /* EXIT, FORK: pid, ppid, tid, ptid, time */
          for (guint i = 0; i < 4; i++)
            strata_test_swap32 (b + 4 * i);
          strata_test_swap64 (b + 16);
          swap_trailer (b, blen, st);
          break;
        case 1:   /* MMAP: pid, tid, start, len, pgoff, filename */
        case 10:  /* MMAP2: the same, then the device or build id, prot, flags */
          strata_test_swap32 (b); strata_test_swap32 (b + 4);
          strata_test_swap64 (b + 8); strata_test_swap64 (b + 16); strata_test_swap64 (b + 24);
          if (type == 10)
            {
              if (!(misc & (1 << 14)))
                {
                  strata_test_swap32 (b + 32); strata_test_swap32 (b + 36); strata_test_swap64 (b + 40); strata_test_swap64 (b + 48);
                }
              strata_test_swap32 (b + 56); strata_test_swap32 (b + 60);
            }
          swap_trailer (b, blen, st);
          break;
        case 15:  /* SWITCH_CPU_WIDE: next_prev_pid, next_prev_tid */
          strata_test_swap32 (b); strata_test_swap32 (b + 4);
          swap_trailer (b, blen, st);
          break;
        case 14:  /* SWITCH */
          swap_trailer (b, blen, st);
          break;
        case 69:  /* ID_INDEX: u64s */
          for (gsize i = 0; i + 8 <= blen; i += 8)
            strata_test_swap64 (b + i);
          break;
        case 73:  /* THREAD_MAP: nr, then pid and comm[16] */
          {
            guint64 nr = strata_test_le64 (d + pos + 8);

            strata_test_swap64 (b);
            for (guint64 i = 0; i < nr; i++)
              strata_test_swap64 (b + 8 + 24 * i);
          }
          break;
        case 78:  /* EVENT_UPDATE: type, id, then the name */
          strata_test_swap64 (b); strata_test_swap64 (b + 8);
          break;
        default:  /* FINISHED_ROUND, FINISHED_INIT; CPU_MAP is not read */
          break;
        }
      pos += size;
    }

  return g_bytes_new (out, data_off + data_size);
}

static void
check (gconstpointer data)
{
  const char *fixture = data;
  g_autofree char *path = strata_test_fixture (fixture);
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *be_path = g_build_filename (dir, "big-endian.data", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) be = NULL;
  g_autoptr(StrataSource) le_source = NULL;
  g_autoptr(StrataSource) be_source = NULL;
  g_autoptr(GArray) le_events = NULL;
  g_autoptr(GArray) be_events = NULL;
  char *d;
  gsize len;
  guint samples = 0;

  g_file_get_contents (path, &d, &len, &error);
  g_assert_no_error (error);
  be = to_big_endian ((const guint8 *) d, len);
  g_free (d);
  g_file_set_contents (be_path, g_bytes_get_data (be, NULL), g_bytes_get_size (be), &error);
  g_assert_no_error (error);

  le_events = strata_test_read_events (path, &le_source, &error);
  g_assert_no_error (error);
  be_events = strata_test_read_events (be_path, &be_source, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (be_events->len, ==, le_events->len);
  g_assert_cmpuint (le_events->len, >, 100);
  for (guint i = 0; i < le_events->len; i++)
    {
      const StrataEvent *a = &g_array_index (le_events, StrataEvent, i);
      const StrataEvent *b = &g_array_index (be_events, StrataEvent, i);

      g_assert_cmpint (a->ts, ==, b->ts);
      g_assert_cmpuint (a->type, ==, b->type);
      g_assert_cmpint (a->pid, ==, b->pid);
      g_assert_cmpint (a->tgid, ==, b->tgid);
      g_assert_cmpint (a->cpu, ==, b->cpu);
      g_assert_cmpstr (strata_string_pool_get (strata_source_get_strings (le_source), a->name), ==,
                       strata_string_pool_get (strata_source_get_strings (be_source), b->name));
      if (a->type == STRATA_EVENT_SAMPLE)
        {
          guint na, nb;
          const guint64 *fa = strata_source_get_callchain (le_source, a->u.sample.callchain, &na);
          const guint64 *fb = strata_source_get_callchain (be_source, b->u.sample.callchain, &nb);

          g_assert_cmpuint (na, ==, nb);
          g_assert_cmpmem (fa, na * 8, fb, nb * 8);
          g_assert_cmphex (a->u.sample.ip, ==, b->u.sample.ip);
          samples++;
        }
      if (a->type == STRATA_EVENT_SCHED_SWITCH)
        {
          g_assert_cmpint (a->u.sched_switch.prev_pid, ==, b->u.sched_switch.prev_pid);
          g_assert_cmpint (a->u.sched_switch.next_pid, ==, b->u.sched_switch.next_pid);
          g_assert_cmpuint (a->u.sched_switch.prev_state, ==, b->u.sched_switch.prev_state);
        }
    }
  g_assert_cmpuint (samples, >, 0);
  g_assert_cmpuint (strata_perf_source_get_inexact_samples (STRATA_PERF_SOURCE (be_source)), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/strata/perf/big-endian/callchains", "perf-callchain.data.xz", check);
  g_test_add_data_func ("/strata/perf/big-endian/switch-events", "perf-switch.data.xz", check);

  return g_test_run ();
}
