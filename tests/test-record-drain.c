/* test-record-drain.c
 *
 * The recording's pieces that need no BPF, on records made here: a
 * ring's drain puts what it is given in time order (ties in the order
 * they came), hands out only what is older than the watermark, cuts
 * blocks no larger than asked and counts what came too late; and a file
 * written by the writer from several rings' blocks, interleaved as the
 * rings' threads would write them, reads back through the plugin as one
 * stream in time order with every record, whatever the batch size, with
 * a ring that falls silent (its empty blocks carry its horizon) and one
 * late record counted as out of order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "strata-test-support.h"
#include "../plugins/ebpf/strata-ebpf-drain.h"
#include "../plugins/ebpf/strata-ebpf-source.h"
#include "../plugins/ebpf/strata-ebpf-writer.h"

static struct strata_ebpf_switch
make_switch (guint64 ts,
             guint16 cpu,
             gint32  prev,
             gint32  next)
{
  struct strata_ebpf_switch s;

  memset (&s, 0, sizeof s);
  s.h.ts = ts;
  s.h.pid = prev;
  s.h.cpu = cpu;
  s.h.type = STRATA_EBPF_REC_SWITCH;
  s.h.size8 = sizeof s / 8;
  s.next_pid = next;
  s.prev_state = 1;  /* S */
  return s;
}

typedef struct
{
  GArray *blocks;   /* GByteArray * */
  GArray *horizons; /* guint64 */
} Cut;

static gboolean
collect (const guint8  *records,
         gsize          size,
         guint32        n_records,
         guint64        horizon,
         gpointer       user_data,
         GError       **error)
{
  Cut *c = user_data;
  GByteArray *b = g_byte_array_new ();

  g_byte_array_append (b, records, size);
  g_assert_cmpuint (size, ==, n_records * sizeof (struct strata_ebpf_switch));
  g_array_append_val (c->blocks, b);
  g_array_append_val (c->horizons, horizon);
  return TRUE;
}

static void
cut_clear (Cut *c)
{
  for (guint i = 0; i < c->blocks->len; i++)
    g_byte_array_unref (g_array_index (c->blocks, GByteArray *, i));
  g_array_set_size (c->blocks, 0);
  g_array_set_size (c->horizons, 0);
}

static void
test_drain_orders_and_holds (void)
{
  StrataEbpfDrain *drain = strata_ebpf_drain_new (2048);
  Cut c = { g_array_new (FALSE, FALSE, sizeof (GByteArray *)), g_array_new (FALSE, FALSE, sizeof (guint64)) };
  /* Arrival order: nearly sorted, with ties (told apart by next_pid). */
  guint64 times[] = { 10, 30, 20, 20, 50, 40, 20, 60, 55, 100, 90 };
  guint64 last_ts = 0;
  gint32 last_next = -1;
  guint total = 0;

  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    {
      struct strata_ebpf_switch s = make_switch (times[i], 0, 1, (gint32) i);

      g_assert_true (strata_ebpf_drain_add (drain, &s, sizeof s));
    }
  /* Not a record: too short, or a size its header does not say. */
  g_assert_false (strata_ebpf_drain_add (drain, "short", 5));
  {
    struct strata_ebpf_switch s = make_switch (1, 0, 1, 1);

    s.h.size8 = 3;
    g_assert_false (strata_ebpf_drain_add (drain, &s, sizeof s));
  }

  /* Only what is older than 55 goes; 55 and later wait. */
  g_assert_true (strata_ebpf_drain_cut (drain, 55, FALSE, collect, &c, NULL));
  g_assert_cmpuint (strata_ebpf_drain_get_pending (drain), ==, 4);
  for (guint b = 0; b < c.blocks->len; b++)
    {
      GByteArray *block = g_array_index (c.blocks, GByteArray *, b);

      g_assert_cmpuint (block->len, <=, 2048);
      for (gsize at = 0; at < block->len; at += sizeof (struct strata_ebpf_switch))
        {
          struct strata_ebpf_switch s;

          memcpy (&s, block->data + at, sizeof s);
          g_assert_cmpuint (s.h.ts, <, 55);
          g_assert_cmpuint (s.h.ts, >=, last_ts);
          if (s.h.ts == last_ts)
            g_assert_cmpint (s.next_pid, >, last_next);  /* ties keep their order */
          last_ts = s.h.ts;
          last_next = s.next_pid;
          total++;
        }
    }
  g_assert_cmpuint (total, ==, 7);
  g_assert_cmpuint (g_array_index (c.horizons, guint64, c.horizons->len - 1), ==, 55);
  cut_clear (&c);

  /* A record older than what was handed out is late, and still goes. */
  {
    struct strata_ebpf_switch s = make_switch (45, 0, 1, 99);

    g_assert_true (strata_ebpf_drain_add (drain, &s, sizeof s));
  }
  g_assert_true (strata_ebpf_drain_cut (drain, G_MAXUINT64, FALSE, collect, &c, NULL));
  g_assert_cmpuint (strata_ebpf_drain_get_late (drain), ==, 1);
  g_assert_cmpuint (strata_ebpf_drain_get_pending (drain), ==, 0);
  g_assert_cmpuint (strata_ebpf_drain_get_count (drain, STRATA_EBPF_REC_SWITCH), ==, G_N_ELEMENTS (times) + 1);
  cut_clear (&c);

  /* Nothing to hand out: an empty block only when asked for. */
  g_assert_true (strata_ebpf_drain_cut (drain, 200, FALSE, collect, &c, NULL));
  g_assert_cmpuint (c.blocks->len, ==, 0);
  g_assert_true (strata_ebpf_drain_cut (drain, 300, TRUE, collect, &c, NULL));
  g_assert_cmpuint (c.blocks->len, ==, 1);
  g_assert_cmpuint (g_array_index (c.blocks, GByteArray *, 0)->len, ==, 0);
  g_assert_cmpuint (g_array_index (c.horizons, guint64, 0), ==, 300);
  cut_clear (&c);

  g_array_unref (c.blocks);
  g_array_unref (c.horizons);
  strata_ebpf_drain_free (drain);
}

/* Many records in reverse order: the sort behind the insertion sort. */
static void
test_drain_reversed (void)
{
  StrataEbpfDrain *drain = strata_ebpf_drain_new (1u << 20);
  Cut c = { g_array_new (FALSE, FALSE, sizeof (GByteArray *)), g_array_new (FALSE, FALSE, sizeof (guint64)) };
  guint64 last = 0;
  guint n = 0;

  for (guint i = 0; i < 20000; i++)
    {
      struct strata_ebpf_switch s = make_switch (1000000 - i * 7 % 100000, 0, 1, (gint32) i);

      g_assert_true (strata_ebpf_drain_add (drain, &s, sizeof s));
    }
  g_assert_true (strata_ebpf_drain_cut (drain, G_MAXUINT64, FALSE, collect, &c, NULL));
  for (guint b = 0; b < c.blocks->len; b++)
    {
      GByteArray *block = g_array_index (c.blocks, GByteArray *, b);

      for (gsize at = 0; at < block->len; at += sizeof (struct strata_ebpf_switch))
        {
          struct strata_ebpf_switch s;

          memcpy (&s, block->data + at, sizeof s);
          g_assert_cmpuint (s.h.ts, >=, last);
          last = s.h.ts;
          n++;
        }
    }
  g_assert_cmpuint (n, ==, 20000);
  cut_clear (&c);
  g_array_unref (c.blocks);
  g_array_unref (c.horizons);
  strata_ebpf_drain_free (drain);
}

static void
add_task (GByteArray *out,
          gint32      pid,
          const char *comm)
{
  struct strata_ebpf_task t;

  memset (&t, 0, sizeof t);
  t.h.ts = 1;
  t.h.pid = pid;
  t.h.type = STRATA_EBPF_REC_TASK;
  t.h.size8 = sizeof t / 8;
  t.tgid = pid;
  t.reason = STRATA_EBPF_TASK_EXISTING;
  memcpy (t.comm, comm, strlen (comm));
  g_byte_array_append (out, (const guint8 *) &t, sizeof t);
}

/* Three rings (one CPU each): ring 0 busy all along, ring 1 silent after
 * a while (empty blocks carry its horizon on), ring 2 with one record
 * that came after a block later than it was written. */
static void
test_rings_merge (void)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "merge.strata", NULL);
  g_autoptr(StrataEbpfWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GByteArray) existing = g_byte_array_new ();
  StrataEbpfHeader header = { 0 };
  struct strata_ebpf_clocks stop = { 0 };
  guint64 lost[3] = { 0 }, counts[STRATA_EBPF_N_RECORD_TYPES] = { 0 };
  guint n_written = 0;

  header.n_cpus = 3;
  header.rings.n_rings = 3;
  header.rings.cpus_per_ring = 1;
  header.rings.ring_size = 4096;
  header.kernel_release = g_strdup ("test");

  writer = strata_ebpf_writer_new (path, &error);
  g_assert_no_error (error);
  g_assert_true (strata_ebpf_writer_write_header (writer, &header, &error));
  strata_ebpf_header_clear (&header);
  add_task (existing, 100, "zero");
  add_task (existing, 200, "one");
  add_task (existing, 300, "two");
  g_assert_true (strata_ebpf_writer_write_block (writer, STRATA_EBPF_RING_RECORDER, existing->data,
                                                 existing->len, 3, 0, &error));

  /* Ten periods of 100 ns; each ring's block of a period is written in
   * an order that changes from period to period. */
  for (guint period = 0; period < 10; period++)
    for (guint k = 0; k < 3; k++)
      {
        guint ring = (k + period) % 3;
        g_autoptr(GByteArray) recs = g_byte_array_new ();
        guint n = 0;

        for (guint64 t = period * 100 + 10 + ring; t < (period + 1) * 100; t += 30)
          {
            struct strata_ebpf_switch s;

            if (ring == 1 && period >= 4)
              break;
            s = make_switch (t + 1000, ring, (ring + 1) * 100, 0);
            g_byte_array_append (recs, (const guint8 *) &s, sizeof s);
            n++;
          }
        if (ring == 2 && period == 6)
          {
            /* Late: before the horizon of ring 2's last block. */
            struct strata_ebpf_switch s = make_switch (1000 + 550, 2, 300, 0);

            g_byte_array_prepend (recs, (const guint8 *) &s, sizeof s);
            n++;
          }
        g_assert_true (strata_ebpf_writer_write_block (writer, ring, recs->data, recs->len, n,
                                                       (period + 1) * 100 + 1000, &error));
        n_written += n;
      }
  g_assert_true (strata_ebpf_writer_finish (writer, &stop, lost, 3, counts, &error));
  g_assert_no_error (error);

  for (guint round = 0; round < 3; round++)
    {
      g_autoptr(StrataSource) source = strata_source_open (path, &error);
      g_autoptr(GArray) events = g_array_new (FALSE, FALSE, sizeof (StrataEvent));
      gsize batch = round == 0 ? 1 : round == 1 ? 7 : 4096;
      StrataEvent buf[4096];
      guint out_of_order = 0;
      gssize n;

      g_assert_no_error (error);
      while ((n = strata_source_read_batch (source, buf, batch, &error)) > 0)
        g_array_append_vals (events, buf, n);
      g_assert_no_error (error);
      g_assert_cmpuint (events->len, ==, n_written);
      for (guint i = 1; i < events->len; i++)
        if (g_array_index (events, StrataEvent, i).ts < g_array_index (events, StrataEvent, i - 1).ts)
          out_of_order++;
      /* The late record, and only it, comes after later ones. */
      g_assert_cmpuint (out_of_order, ==, 1);
      g_assert_cmpuint (strata_ebpf_source_get_out_of_order (STRATA_EBPF_SOURCE (source)), ==, 1);
      for (guint i = 0; i < events->len; i++)
        {
          const StrataEvent *ev = &g_array_index (events, StrataEvent, i);
          const char *comm = strata_string_pool_get (strata_source_get_strings (source),
                                                     ev->u.sched_switch.prev_comm);

          g_assert_cmpint (ev->u.sched_switch.prev_pid, ==, (ev->cpu + 1) * 100);
          g_assert_cmpstr (comm, ==, ev->cpu == 0 ? "zero" : ev->cpu == 1 ? "one" : "two");
          g_assert_cmpint (ev->tgid, ==, ev->u.sched_switch.prev_pid);
          g_assert_cmpuint (ev->u.sched_switch.prev_state, ==, STRATA_TASK_STATE_SLEEPING);
        }
    }
  g_unlink (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/ebpf/drain/orders-and-holds", test_drain_orders_and_holds);
  g_test_add_func ("/strata/ebpf/drain/reversed", test_drain_reversed);
  g_test_add_func ("/strata/ebpf/rings-merge", test_rings_merge);

  return g_test_run ();
}
