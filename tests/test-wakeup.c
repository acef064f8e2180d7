/* test-wakeup.c
 *
 * Who woke whom, against the tools that wrote the recordings: for every
 * wakeup event of the repository's real traces, as `trace-cmd report`
 * (trace.dat) and `perf script` (perf.data) print it, the waker Strata
 * names is the event's context thread. Each wakeup instant on the woken
 * thread's row names the context of its own event; each WOKEN state
 * (runnable after a wakeup) names the context, the CPU and, where the
 * tool prints it, the interrupt of the first wakeup event at its start.
 * Checked on a fresh read and on the trace mapped from its index. The
 * text format's wakers are the trace.dat's (test-ftrace-oracle compares
 * the two renderings activity by activity).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-test-support.h"

typedef struct
{
  gint64  ts;
  gint32  target;
  gint32  context;     /* the tid the event ran in */
  gint32  cpu;
  guint   irq;         /* StrataEventContext, or G_MAXUINT when the tool does not print it */
  char   *name;        /* sched_waking, sched_wakeup, sched_wakeup_new */
  gboolean matched;
} ToolWakeup;

static void
tool_wakeup_clear (gpointer data)
{
  g_free (((ToolWakeup *) data)->name);
}

static gint64
parse_seconds (const char *text)
{
  const char *dot = strchr (text, '.');
  gint64 ns = g_ascii_strtoll (text, NULL, 10) * G_GINT64_CONSTANT (1000000000);
  gint64 frac = 0;
  guint digits = 0;

  g_assert_nonnull (dot);
  for (const char *p = dot + 1; g_ascii_isdigit (*p) && digits < 9; p++, digits++)
    frac = frac * 10 + (*p - '0');
  for (; digits < 9; digits++)
    frac *= 10;
  return ns + frac;
}

static char *
run (const char *cmd)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = 0;

  /* perf says on stderr which fields its other events lack. */
  g_spawn_command_line_sync (cmd, &out, &err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

/* `trace-cmd report -t -l`: "comm-pid  CPUflags  secs.ns: name: PAYLOAD"
 * (the latency format glues the CPU to its irq-info flags); the payload
 * is "comm=X pid=N prio=P ..." for sched_waking and, through trace-cmd's
 * sched plugin, "X:N [P] CPU:C" for the other two. */
static GArray *
trace_cmd_wakeups (const char *path)
{
  g_autofree char *quoted = g_shell_quote (path);
  g_autofree char *cmd = g_strdup_printf ("trace-cmd report -t -l %s", quoted);
  g_autofree char *out = run (cmd);
  g_autoptr(GRegex) re = g_regex_new ("^\\s*(.+)-(\\d+)\\s+(\\d+)(\\S+)\\s+(\\d+\\.\\d+):\\s+"
                                      "(sched_waking|sched_wakeup|sched_wakeup_new):"
                                      "\\s+(?:comm=.* pid=(-?\\d+) prio=|.*:(-?\\d+) \\[-?\\d+\\] CPU:)",
                                      G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  GArray *found = g_array_new (FALSE, TRUE, sizeof (ToolWakeup));

  g_array_set_clear_func (found, tool_wakeup_clear);
  g_regex_match (re, out, 0, &m);
  for (; g_match_info_matches (m); g_match_info_next (m, NULL))
    {
      g_autofree char *pid = g_match_info_fetch (m, 2);
      g_autofree char *cpu = g_match_info_fetch (m, 3);
      g_autofree char *flags = g_match_info_fetch (m, 4);
      g_autofree char *ts = g_match_info_fetch (m, 5);
      g_autofree char *target = g_match_info_fetch (m, 7);

      if (target[0] == '\0')
        {
          g_free (target);
          target = g_match_info_fetch (m, 8);
        }
      ToolWakeup w = { 0 };

      w.context = atoi (pid);
      w.cpu = atoi (cpu);
      w.ts = parse_seconds (ts);
      w.target = atoi (target);
      w.irq = strlen (flags) >= 3 ? strata_event_context_from_irq_info (flags[2]) : G_MAXUINT;
      w.name = g_match_info_fetch (m, 6);
      g_array_append_val (found, w);
    }
  return found;
}

/* `perf script --ns -F tid,cpu,time,event,trace`:
 * "tid [cpu] secs.ns: sched:name: comm=X pid=N ...". */
static GArray *
perf_script_wakeups (const char *path)
{
  g_autofree char *quoted = g_shell_quote (path);
  g_autofree char *cmd = g_strdup_printf ("perf script --ns -F tid,cpu,time,event,trace -i %s", quoted);
  g_autofree char *out = run (cmd);
  g_autoptr(GRegex) re = g_regex_new ("^\\s*(-?\\d+)\\s+\\[(\\d+)\\]\\s+(\\d+\\.\\d+):\\s+"
                                      "sched:(sched_waking|sched_wakeup|sched_wakeup_new):"
                                      "\\s+comm=.* pid=(-?\\d+) prio=",
                                      G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  GArray *found = g_array_new (FALSE, TRUE, sizeof (ToolWakeup));

  g_array_set_clear_func (found, tool_wakeup_clear);
  g_regex_match (re, out, 0, &m);
  for (; g_match_info_matches (m); g_match_info_next (m, NULL))
    {
      g_autofree char *tid = g_match_info_fetch (m, 1);
      g_autofree char *cpu = g_match_info_fetch (m, 2);
      g_autofree char *ts = g_match_info_fetch (m, 3);
      g_autofree char *target = g_match_info_fetch (m, 5);
      ToolWakeup w = { 0 };

      w.context = atoi (tid);
      w.cpu = atoi (cpu);
      w.ts = parse_seconds (ts);
      w.target = atoi (target);
      w.irq = G_MAXUINT;
      w.name = g_match_info_fetch (m, 4);
      g_array_append_val (found, w);
    }
  return found;
}

/* Every activity of the top instance's rows, from wherever the trace
 * keeps them (memory, or the raw store of a mapped index). */
static GArray *
all_activities (StrataTrace *trace)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  const StrataChannel *channels;
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  for (guint i = 0; i < n; i++)
    if (channels[i].instance == 0 && channels[i].kind == STRATA_CHANNEL_THREAD)
      strata_trace_query_channel (trace, i, G_MININT64 / 2, G_MAXINT64 / 2, all);
  return all;
}

static guint64
key_of (gint64 ts,
        gint32 target)
{
  return (guint64) ts * 0x9e3779b97f4a7c15ull ^ (guint32) target;
}

/* The tool's last sched_waking of @target in the moment before @ts (a
 * thread that set out to sleep several times while on its CPU was woken
 * each time; only the last can have ended the sleep its switch-out
 * reports). */
static ToolWakeup *
early_waking (GArray *tool,
              gint32  target,
              gint64  ts)
{
  ToolWakeup *last = NULL;

  for (guint i = 0; i < tool->len; i++)
    {
      ToolWakeup *w = &g_array_index (tool, ToolWakeup, i);

      if (w->target == target && w->ts < ts && ts - w->ts <= STRATA_KERNEL_MODEL_EARLY_WAKING_NS &&
          g_strcmp0 (w->name, "sched_waking") == 0)
        last = w;
    }
  return last;
}

static void
assert_wakers (StrataTrace  *trace,
               GArray       *tool,
               const char   *what,
               guint        *n_states_out)
{
  g_autoptr(GArray) all = all_activities (trace);
  g_autoptr(GHashTable) first = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GArray) keys = g_array_sized_new (FALSE, FALSE, sizeof (guint64), tool->len);
  const StrataChannel *channels;
  guint n_channels, n_instants = 0, n_states = 0, n_tool = 0, n_early = 0;

  channels = strata_trace_get_channels (trace, &n_channels);

  /* The first of the tool's wakeups of a thread at a time (its order is
   * the time order); keys stay put in their own array. */
  g_array_set_size (keys, tool->len);
  for (guint i = 0; i < tool->len; i++)
    {
      ToolWakeup *w = &g_array_index (tool, ToolWakeup, i);
      guint64 *k = &g_array_index (keys, guint64, i);

      w->matched = FALSE;
      if (w->target <= 0)
        continue;
      n_tool++;
      *k = key_of (w->ts, w->target);
      if (!g_hash_table_contains (first, k))
        g_hash_table_insert (first, k, w);
    }

  for (guint i = 0; i < all->len; i++)
    {
      const StrataActivity *a = &g_array_index (all, StrataActivity, i);
      const StrataChannel *ch = &channels[a->channel];
      guint64 k = key_of (a->start, ch->id);
      ToolWakeup *w = g_hash_table_lookup (first, &k);

      if (a->kind == STRATA_ACTIVITY_WAKEUP)
        {
          const char *name = strata_trace_get_string (trace, a->label);
          gboolean found = FALSE;

          /* The instant of this very event: same time, thread and name. */
          for (guint j = 0; j < tool->len && !found; j++)
            {
              ToolWakeup *t = &g_array_index (tool, ToolWakeup, j);

              if (t->ts == a->start && t->target == ch->id && !t->matched &&
                  g_strcmp0 (t->name, name) == 0)
                {
                  if (t->context != a->arg)
                    g_error ("%s: %s of %d at %" G_GINT64_FORMAT ": waker %d, the tool says %d",
                             what, name, ch->id, a->start, a->arg, t->context);
                  t->matched = TRUE;
                  found = TRUE;
                }
            }
          if (!found)
            g_error ("%s: %s of %d at %" G_GINT64_FORMAT " is not in the tool's output",
                     what, name, ch->id, a->start);
          n_instants++;
        }
      else if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_WOKEN)
        {
          StrataWakeup wk;

          g_assert_true (strata_wakeup_from_state (trace, NULL, a, &wk));
          if (w == NULL)
            {
              /* None at its start: a sched_waking that found the thread
               * still on its CPU, its switch-out then the state's start
               * (STRATA_KERNEL_MODEL_EARLY_WAKING_NS): the last such in
               * the moment before. */
              w = early_waking (tool, ch->id, a->start);
              n_early += w != NULL;
            }
          if (w == NULL)
            g_error ("%s: %d woken at %" G_GINT64_FORMAT " by no wakeup of the tool's",
                     what, ch->id, a->start);
          if (wk.waker_tid != w->context || wk.cpu != w->cpu ||
              (w->irq != G_MAXUINT && wk.context != w->irq))
            g_error ("%s: %d woken at %" G_GINT64_FORMAT ": waker %d on CPU %d (context %x), "
                     "the tool says %d on CPU %d (context %x)", what, ch->id, a->start,
                     wk.waker_tid, wk.cpu, wk.context, w->context, w->cpu, w->irq);
          n_states++;
        }
    }

  /* Every wakeup the tool printed is one of ours, and named the same. */
  for (guint i = 0; i < tool->len; i++)
    {
      const ToolWakeup *t = &g_array_index (tool, ToolWakeup, i);

      if (t->target > 0 && !t->matched)
        g_error ("%s: the tool's %s of %d at %" G_GINT64_FORMAT " has no instant",
                 what, t->name, t->target, t->ts);
    }
  g_assert_cmpuint (n_instants, ==, n_tool);
  g_assert_cmpuint (n_states, >, 0);
  g_test_message ("%s: %u wakeup events, %u woken states (%u by a waking before the "
                  "switch-out)", what, n_instants, n_states, n_early);
  *n_states_out = n_states;
}

static void
check_file (const char *name,
            gboolean    perf)
{
  g_autofree char *path = strata_test_fixture (name);
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *index_path = g_strdup_printf ("%s/%s.wakeup-index", dir, name);
  g_autoptr(GArray) tool = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) fresh = NULL;
  g_autoptr(StrataTrace) built = NULL;
  g_autoptr(StrataTrace) mapped = NULL;
  StrataIndexOptions options = { 0 };
  StrataZoomParams params;
  guint n_fresh = 0, n_mapped = 0;
  g_autofree char *fresh_what = g_strdup_printf ("%s (read)", name);
  g_autofree char *mapped_what = g_strdup_printf ("%s (index)", name);

  tool = perf ? perf_script_wakeups (path) : trace_cmd_wakeups (path);
  g_assert_cmpuint (tool->len, >, 0);

  fresh = strata_test_load (path, &error);
  g_assert_no_error (error);
  assert_wakers (fresh, tool, fresh_what, &n_fresh);

  strata_zoom_params_init (&params);
  options.index_path = index_path;
  options.flags = STRATA_INDEX_OPEN_REBUILD;
  built = strata_test_load_index (path, &params, &options, &error);
  g_assert_no_error (error);
  options.flags = STRATA_INDEX_OPEN_DEFAULT;
  mapped = strata_test_load_index (path, &params, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (strata_trace_get_index_path (mapped), ==, index_path);
  assert_wakers (mapped, tool, mapped_what, &n_mapped);
  g_assert_cmpuint (n_fresh, ==, n_mapped);
}

static void
test_trace_cmd (void)
{
  const char *files[] = {
    "sched-small.dat", "sched-tgid.dat", "instances.dat", "lossy.dat", "critical-path.dat.xz",
  };

  if (!strata_test_have_program ("trace-cmd"))
    {
      g_test_skip ("no trace-cmd (scripts/install-deps.sh installs it)");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    check_file (files[i], FALSE);
}

static void
test_perf_script (void)
{
  /* perf-pipe.data: perf 6.1 cannot read it back (fixtures/README.md). */
  const char *files[] = {
    "perf-sched.data.xz", "perf-zstd.data.xz", "perf-mono.data.xz", "critical-path.data.xz",
  };

  if (!strata_test_have_program ("perf"))
    {
      g_test_skip ("no perf (scripts/install-deps.sh installs linux-perf)");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    check_file (files[i], TRUE);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/wakeup/trace-cmd-report", test_trace_cmd);
  g_test_add_func ("/strata/wakeup/perf-script", test_perf_script);
  return g_test_run ();
}
