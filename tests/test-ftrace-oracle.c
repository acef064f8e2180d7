/* test-ftrace-oracle.c
 *
 * Oracle tests on real recordings: our readers against trace-cmd, the three
 * trace.dat layouts against each other, the text rendering against the
 * binary form of the same ring buffer, and the kernel model's per-thread
 * on-CPU time against a brute-force computation written here from the raw
 * sched_switch events.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-test-support.h"

static const char *dat_fixtures[] = {
  "sched-small.dat",
  "sched-small-v6.dat.xz",
  "sched-small-v7none.dat.xz",
  "sched-tgid.dat",
  "lossy.dat",
  "instances.dat",
};

static void
assert_counts_equal (GHashTable *ours,
                     GHashTable *theirs,
                     const char *what)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, theirs);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint ours_n = GPOINTER_TO_UINT (g_hash_table_lookup (ours, key));

      if (ours_n != GPOINTER_TO_UINT (value))
        g_error ("%s: %s: trace-cmd reports %u, Strata %u", what, (char *) key,
                 GPOINTER_TO_UINT (value), ours_n);
    }

  g_assert_cmpuint (g_hash_table_size (ours), ==, g_hash_table_size (theirs));
}

static void
test_counts_match_trace_cmd (void)
{
  if (!strata_test_have_program ("trace-cmd"))
    {
      g_test_skip ("trace-cmd is not installed (apt-get install trace-cmd)");
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (dat_fixtures); i++)
    {
      g_autofree char *path = strata_test_fixture (dat_fixtures[i]);
      g_autoptr(StrataSource) source = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) events = strata_test_read_events (path, &source, &error);
      const StrataSourceInfo *info;

      g_assert_no_error (error);
      info = strata_source_get_info (source);
      g_assert_cmpuint (info->instances->len, >=, 1);

      for (guint inst = 0; inst < info->instances->len; inst++)
        {
          const char *name = g_ptr_array_index (info->instances, inst);
          g_autoptr(GHashTable) ours = strata_test_event_counts (source, events, inst);
          g_autoptr(GHashTable) theirs = strata_test_trace_cmd_counts (path, inst ? name : NULL);
          g_autofree char *what = g_strdup_printf ("%s [%s]", dat_fixtures[i], name);

          g_assert_cmpuint (g_hash_table_size (theirs), >, 0);
          assert_counts_equal (ours, theirs, what);
        }

      if (g_str_equal (dat_fixtures[i], "instances.dat"))
        {
          g_assert_cmpuint (info->instances->len, ==, 2);
          g_assert_cmpstr (g_ptr_array_index (info->instances, 1), ==, "lossy");
        }
    }
}

static void
test_versions_agree (void)
{
  const char *names[] = { "sched-small.dat", "sched-small-v6.dat.xz", "sched-small-v7none.dat.xz" };
  const char *versions[] = { "7", "6", "7" };
  const char *compressions[] = { "zstd", "none", "none" };
  g_autoptr(GArray) reference = NULL;
  g_autoptr(StrataSource) reference_source = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = strata_test_fixture (names[i]);
      g_autoptr(StrataSource) source = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) events = strata_test_read_events (path, &source, &error);
      const StrataSourceInfo *info;

      g_assert_no_error (error);
      info = strata_source_get_info (source);
      g_assert_cmpstr (info->format, ==, "trace.dat");
      g_assert_cmpstr (info->version, ==, versions[i]);
      g_assert_cmpstr (info->compression, ==, compressions[i]);
      g_assert_cmpstr (info->clock, ==, "local");
      g_assert_cmpuint (info->n_cpus, ==, 2);

      if (reference == NULL)
        {
          reference = g_steal_pointer (&events);
          reference_source = g_steal_pointer (&source);
          continue;
        }

      g_assert_cmpuint (events->len, ==, reference->len);
      for (guint e = 0; e < events->len; e++)
        {
          const StrataEvent *a = &g_array_index (reference, StrataEvent, e);
          const StrataEvent *b = &g_array_index (events, StrataEvent, e);
          StrataStringPool *pa = strata_source_get_strings (reference_source);
          StrataStringPool *pb = strata_source_get_strings (source);

          g_assert_cmpint (a->ts, ==, b->ts);
          g_assert_cmpuint (a->type, ==, b->type);
          g_assert_cmpint (a->cpu, ==, b->cpu);
          g_assert_cmpint (a->pid, ==, b->pid);
          g_assert_cmpstr (strata_string_pool_get (pa, a->name), ==,
                           strata_string_pool_get (pb, b->name));
          if (a->type == STRATA_EVENT_SCHED_SWITCH)
            {
              g_assert_cmpint (a->u.sched_switch.prev_pid, ==, b->u.sched_switch.prev_pid);
              g_assert_cmpint (a->u.sched_switch.next_pid, ==, b->u.sched_switch.next_pid);
              g_assert_cmpuint (a->u.sched_switch.prev_state, ==, b->u.sched_switch.prev_state);
              g_assert_cmpstr (strata_string_pool_get (pa, a->u.sched_switch.next_comm), ==,
                               strata_string_pool_get (pb, b->u.sched_switch.next_comm));
            }
        }
    }
}

/* An activity with its channel spelled out, so two traces with different
 * channel numbering can be compared. */
typedef struct
{
  gint64 start, end;
  guint8 channel_kind;
  gint32 channel_id;
  guint32 generation;
  guint8 kind, state;
  guint16 flags;
  gint32 arg;
  const char *label;
} Flat;

static int
compare_flat (gconstpointer pa,
              gconstpointer pb)
{
  const Flat *a = pa, *b = pb;

  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  if (a->channel_kind != b->channel_kind) return a->channel_kind < b->channel_kind ? -1 : 1;
  if (a->channel_id != b->channel_id) return a->channel_id < b->channel_id ? -1 : 1;
  if (a->generation != b->generation) return a->generation < b->generation ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->end != b->end) return a->end < b->end ? -1 : 1;
  if (a->state != b->state) return a->state < b->state ? -1 : 1;
  if (a->arg != b->arg) return a->arg < b->arg ? -1 : 1;
  return strcmp (a->label, b->label);
}

/* The activities of one instance, with times rounded to @unit ns. */
static GArray *
flatten (StrataTrace *trace,
         guint16      instance,
         gint64       unit,
         guint16      ignore_flags)
{
  GArray *flat = g_array_new (FALSE, TRUE, sizeof (Flat));
  const StrataChannel *channels;
  const StrataActivity *activities;
  gsize n;
  guint n_channels;

  channels = strata_trace_get_channels (trace, &n_channels);
  activities = strata_trace_get_activities (trace, &n);

  for (gsize i = 0; i < n; i++)
    {
      const StrataActivity *a = &activities[i];
      const StrataChannel *ch = &channels[a->channel];
      Flat f;

      if (ch->instance != instance)
        continue;

      /* The kernel's text output rounds to the nearest µs (ns2usecs). */
      f.start = (a->start + unit / 2) / unit;
      f.end = (a->end + unit / 2) / unit;
      f.channel_kind = ch->kind;
      f.channel_id = ch->id;
      f.generation = ch->generation;
      f.kind = a->kind;
      f.state = a->state;
      f.flags = a->flags & ~ignore_flags;
      f.arg = a->arg;
      f.label = strata_trace_get_string (trace, a->label);
      g_array_append_val (flat, f);
    }

  g_array_sort (flat, compare_flat);
  return flat;
}

/* A text without the irq-info column (options/irq-info off) cannot say
 * that a wakeup came from an interrupt: @irq_info says whether it has it. */
static void
assert_same_activities (const char *text_name,
                        const char *dat_name,
                        gboolean    irq_info)
{
  guint16 ignore = irq_info ? 0 : STRATA_ACTIVITY_FLAGS_WAKER_CONTEXT;
  g_autofree char *text_path = strata_test_fixture (text_name);
  g_autofree char *dat_path = strata_test_fixture (dat_name);
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) text = strata_test_load (text_path, &error);
  g_autoptr(StrataTrace) dat = NULL;
  g_autoptr(GArray) ft = NULL;
  g_autoptr(GArray) fd = NULL;

  g_assert_no_error (error);
  dat = strata_test_load (dat_path, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (strata_trace_get_info (text)->format, ==, "ftrace text");
  g_assert_null (strata_trace_get_damage (text));
  g_assert_null (strata_trace_get_damage (dat));

  ft = flatten (text, 0, 1000, ignore);
  fd = flatten (dat, 0, 1000, ignore);

  for (guint i = 0; i < MIN (ft->len, fd->len); i++)
    {
      const Flat *a = &g_array_index (ft, Flat, i);
      const Flat *b = &g_array_index (fd, Flat, i);

      if (compare_flat (a, b) != 0 || a->flags != b->flags)
        g_error ("%s vs %s: activity %u differs: text %s %d/%d %s %" G_GINT64_FORMAT
                 "..%" G_GINT64_FORMAT " state %u arg %d flags %x '%s'; "
                 "dat %s %d/%d %s %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT
                 " state %u arg %d flags %x '%s'",
                 text_name, dat_name, i,
                 strata_channel_kind_to_string (a->channel_kind), a->channel_id, a->generation,
                 strata_activity_kind_to_string (a->kind), a->start, a->end, a->state, a->arg,
                 a->flags, a->label,
                 strata_channel_kind_to_string (b->channel_kind), b->channel_id, b->generation,
                 strata_activity_kind_to_string (b->kind), b->start, b->end, b->state, b->arg,
                 b->flags, b->label);
    }

  g_assert_cmpuint (ft->len, ==, fd->len);
  g_assert_cmpuint (ft->len, >, 100);
}

static void
test_text_equals_dat (void)
{
  assert_same_activities ("sched-small.txt", "sched-small.dat", TRUE);
  assert_same_activities ("sched-tgid.txt", "sched-tgid.dat", FALSE);
  assert_same_activities ("instances-top.txt", "instances.dat", TRUE);
}

static void
test_text_equals_dat_lossy (void)
{
  assert_same_activities ("lossy.txt", "lossy.dat", TRUE);
}

/* Per-thread on-CPU time straight from the events, written from the
 * rule rather than from the model's code:
 *  - on a CPU, the time from a switch to the next belongs to the task the
 *    first switched in, if the next one switches that task out;
 *  - when a switch's prev is not that task (its switch-in is missing), prev
 *    is credited from the first of the uninterrupted run of events in its
 *    context just before the switch, and the earlier task up to its last
 *    event;
 *  - before a CPU's first switch, prev is credited from the trace's start
 *    when the CPU lost nothing and prev was not seen switched or woken
 *    before; else as a missing switch-in;
 *  - after the last switch, the task switched in runs until the end. */
typedef struct
{
  gboolean seen;        /* an event on this CPU */
  gboolean lost;
  gboolean switched;
  gint32   cur;
  gint64   seg_start;
  gint64   cur_last;
  gint32   run_pid;
  gint64   run_start;
} BruteCpu;

static void
credit (GHashTable *on_cpu,
        gint32      tid,
        gint64      d)
{
  gint64 *sum;

  if (tid <= 0)
    return;
  sum = g_hash_table_lookup (on_cpu, GINT_TO_POINTER (tid));
  if (sum == NULL)
    {
      sum = g_new0 (gint64, 1);
      g_hash_table_insert (on_cpu, GINT_TO_POINTER (tid), sum);
    }
  *sum += d;
}

static GHashTable *
brute_force_on_cpu (const char *path,
                    guint16     instance,
                    gint64     *span_out)
{
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = strata_test_read_events (path, &source, &error);
  g_autoptr(GHashTable) known = g_hash_table_new (NULL, NULL);
  BruteCpu cpus[256] = { 0 };
  GHashTable *on_cpu = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  const StrataSourceInfo *info;
  gint64 start, end;

  g_assert_no_error (error);
  g_assert_cmpuint (events->len, >, 0);
  info = strata_source_get_info (source);
  start = g_array_index (events, StrataEvent, 0).ts;
  end = g_array_index (events, StrataEvent, events->len - 1).ts;
  *span_out = end - start;

  for (guint i = 0; i < info->lost_per_cpu->len && i < G_N_ELEMENTS (cpus); i++)
    cpus[i].lost = g_array_index (info->lost_per_cpu, guint64, i) > 0;

  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);
      BruteCpu *c;

      if (ev->instance != instance)
        continue;
      g_assert_cmpint (ev->cpu, <, G_N_ELEMENTS (cpus));
      c = &cpus[ev->cpu];

      if (ev->type == STRATA_EVENT_LOST)
        {
          /* The fixtures lose events only before a CPU's first one. */
          g_assert_false (c->seen);
          c->lost = TRUE;
          continue;
        }

      if (!c->seen || ev->pid != c->run_pid)
        {
          c->run_pid = ev->pid;
          c->run_start = ev->ts;
        }
      c->seen = TRUE;
      if (c->switched && ev->pid == c->cur)
        c->cur_last = ev->ts;

      if (ev->type == STRATA_EVENT_SCHED_WAKING || ev->type == STRATA_EVENT_SCHED_WAKEUP ||
          ev->type == STRATA_EVENT_SCHED_WAKEUP_NEW)
        g_hash_table_add (known, GINT_TO_POINTER (ev->u.wakeup.pid));

      if (ev->type == STRATA_EVENT_SCHED_PROCESS_FORK)
        g_hash_table_remove (known, GINT_TO_POINTER (ev->u.fork.child_pid));

      if (ev->type != STRATA_EVENT_SCHED_SWITCH)
        continue;

      {
        gint32 prev = ev->u.sched_switch.prev_pid;
        gint32 next = ev->u.sched_switch.next_pid;
        gint64 evidence = c->run_pid == prev ? c->run_start : ev->ts;

        if (c->switched && c->cur == prev)
          credit (on_cpu, prev, ev->ts - c->seg_start);
        else if (c->switched)
          {
            credit (on_cpu, c->cur, c->cur_last - c->seg_start);
            credit (on_cpu, prev, ev->ts - MAX (evidence, c->cur_last));
          }
        else if (!c->lost && !g_hash_table_contains (known, GINT_TO_POINTER (prev)))
          credit (on_cpu, prev, ev->ts - start);
        else
          credit (on_cpu, prev, ev->ts - evidence);

        g_hash_table_add (known, GINT_TO_POINTER (prev));
        g_hash_table_add (known, GINT_TO_POINTER (next));
        if (ev->u.sched_switch.prev_state == STRATA_TASK_STATE_DEAD)
          g_hash_table_remove (known, GINT_TO_POINTER (prev));

        c->switched = TRUE;
        c->cur = next;
        c->seg_start = ev->ts;
        c->cur_last = ev->ts;
      }
    }

  for (guint i = 0; i < G_N_ELEMENTS (cpus); i++)
    if (cpus[i].switched)
      credit (on_cpu, cpus[i].cur, end - cpus[i].seg_start);

  return on_cpu;
}

static void
assert_on_cpu_matches (const char *name)
{
  g_autofree char *path = strata_test_fixture (name);
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = strata_test_load (path, &error);
  g_autoptr(StrataStats) stats = NULL;
  g_autoptr(GHashTable) ours = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  const StrataSourceInfo *info;

  g_assert_no_error (error);
  stats = strata_stats_compute (trace);
  info = strata_trace_get_info (trace);

  for (guint16 inst = 0; inst < info->instances->len; inst++)
    {
      gint64 span = 0;
      g_autoptr(GHashTable) theirs = brute_force_on_cpu (path, inst, &span);
      GHashTableIter iter;
      gpointer key, value;
      guint checked = 0;

      g_hash_table_remove_all (ours);
      for (guint i = 0; i < stats->threads->len; i++)
        {
          const StrataThreadStats *ts = &g_array_index (stats->threads, StrataThreadStats, i);
          gint64 *sum;

          if (ts->instance != inst)
            continue;
          sum = g_hash_table_lookup (ours, GINT_TO_POINTER (ts->tid));
          if (sum == NULL)
            {
              sum = g_new0 (gint64, 1);
              g_hash_table_insert (ours, GINT_TO_POINTER (ts->tid), sum);
            }
          *sum += ts->running;   /* all generations of a reused tid */
        }

      g_hash_table_iter_init (&iter, theirs);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          gint64 *sum = g_hash_table_lookup (ours, key);

          if (sum == NULL || *sum != *(gint64 *) value)
            g_error ("%s [%u]: tid %d: brute force %" G_GINT64_FORMAT " ns on CPU, "
                     "Strata %" G_GINT64_FORMAT, name, inst, GPOINTER_TO_INT (key),
                     *(gint64 *) value, sum ? *sum : -1);
          checked++;
        }
      g_assert_cmpuint (checked, >, 0);

      /* Every CPU's time is busy, idle or unknown, and adds up to the span. */
      for (guint i = 0; i < stats->cpus->len; i++)
        {
          const StrataCpuStats *cs = &g_array_index (stats->cpus, StrataCpuStats, i);

          if (cs->instance != inst)
            continue;
          g_assert_cmpint (cs->busy + cs->idle + cs->unknown, ==, span);
          g_assert_cmpint (cs->irq, <=, span);
          g_assert_cmpint (cs->softirq, <=, span);
        }
    }
}

static void
test_on_cpu_brute_force (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dat_fixtures); i++)
    assert_on_cpu_matches (dat_fixtures[i]);
  assert_on_cpu_matches ("sched-small.txt");
  assert_on_cpu_matches ("sched-tgid.txt");
  assert_on_cpu_matches ("lossy.txt");
}

static void
test_lost_events (void)
{
  g_autofree char *path = strata_test_fixture ("lossy.dat");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = strata_test_load (path, &error);
  const StrataSourceInfo *info;

  g_assert_no_error (error);
  info = strata_trace_get_info (trace);
  /* trace-cmd report --stat: overrun 152 on CPU 0 and 1149 on CPU 1, which
   * the text twin's header confirms: 2761 written, 1460 left. */
  g_assert_cmpuint (info->lost_events, ==, 152 + 1149);
  g_assert_cmpuint (info->lost_per_cpu->len, >=, 2);
  g_assert_cmpuint (g_array_index (info->lost_per_cpu, guint64, 0), ==, 152);
  g_assert_cmpuint (g_array_index (info->lost_per_cpu, guint64, 1), ==, 1149);
}

static void
test_tgid_groups_threads (void)
{
  g_autofree char *path = strata_test_fixture ("sched-tgid.txt");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = strata_test_load (path, &error);
  const StrataChannel *channels;
  guint n, grouped = 0, processes = 0;

  g_assert_no_error (error);
  channels = strata_trace_get_channels (trace, &n);
  for (guint i = 0; i < n; i++)
    {
      if (channels[i].kind == STRATA_CHANNEL_PROCESS)
        processes++;
      if (channels[i].kind == STRATA_CHANNEL_THREAD && channels[i].parent != STRATA_CHANNEL_NONE)
        {
          const StrataChannel *proc = &channels[channels[i].parent];

          g_assert_cmpint (proc->kind, ==, STRATA_CHANNEL_PROCESS);
          g_assert_cmpint (proc->id, ==, channels[i].tgid);
          grouped++;
        }
    }

  g_assert_cmpuint (processes, >, 0);
  g_assert_cmpuint (grouped, >=, processes);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/ftrace/counts-match-trace-cmd", test_counts_match_trace_cmd);
  g_test_add_func ("/strata/ftrace/versions-agree", test_versions_agree);
  g_test_add_func ("/strata/ftrace/text-equals-dat", test_text_equals_dat);
  g_test_add_func ("/strata/ftrace/text-equals-dat-lossy", test_text_equals_dat_lossy);
  g_test_add_func ("/strata/ftrace/on-cpu-brute-force", test_on_cpu_brute_force);
  g_test_add_func ("/strata/ftrace/lost-events", test_lost_events);
  g_test_add_func ("/strata/ftrace/tgid-groups-threads", test_tgid_groups_threads);
  return g_test_run ();
}
