/* test-flame-graph.c
 *
 * The flame graph against perf's own reading of the call chains: on every
 * perf.data with call chains (the repository's fixtures and, when it is
 * there, ../shared/corpus/perf), `strata-cli flamegraph --folded
 * --addresses` equals the folding, written here, of the chains `perf
 * report -D` prints for each sample: the same stacks, the same counts.
 * Every sample counts (`--event '*'`: the CPU's and the call chains
 * tracepoints were recorded with, as perf prints them all); the idle
 * task's samples are left out on both sides (as `stats` does),
 * and a chain of context markers only (user frames left to perf's DWARF
 * unwinding) stands for the sample's ip, as `perf script` shows it.
 *
 * The comparison is by address: `perf script` names frames through the
 * files on this machine as they are now, so its names change when a
 * recorded binary is rebuilt, and for DWARF-unwound recordings its user
 * frames are its own unwinding of the copied stack, which Strata does
 * not do. The names are checked apart: the named folding is the address
 * folding with each address replaced by its symbol (the same stacks and
 * counts, merged where two addresses share a name).
 *
 * The tree itself (totals, selves, selection by time, thread and event)
 * is checked against the folded lines.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strata-test-support.h"

#define PERF_CONTEXT_MAX G_GUINT64_CONSTANT (0xfffffffffffff001)

static char *
run (const char *cmd)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = 0;

  g_spawn_command_line_sync (cmd, &out, &err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

static void
count_stack (GHashTable *folded,
             GArray     *frames)
{
  GString *key = g_string_new (NULL);
  gpointer old;

  for (guint i = frames->len; i > 0; i--)
    g_string_append_printf (key, "%s0x%" G_GINT64_MODIFIER "x", i < frames->len ? ";" : "",
                            g_array_index (frames, guint64, i - 1));
  old = g_hash_table_lookup (folded, key->str);
  g_hash_table_insert (folded, g_string_free (key, FALSE),
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + 1));
}

/* perf's samples, folded: "SAMPLE(...): pid/tid: 0xIP period..." then
 * "... FP chain: nr:N" and N lines ".....  i: ADDRESS". */
static GHashTable *
perf_folded (const char *path)
{
  g_autofree char *quoted = g_shell_quote (path);
  g_autofree char *cmd = g_strdup_printf ("perf report -D -i %s", quoted);
  g_autofree char *out = run (cmd);
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  g_autoptr(GArray) frames = g_array_new (FALSE, FALSE, sizeof (guint64));
  GHashTable *folded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean in_sample = FALSE, in_chain = FALSE;
  guint64 ip = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = lines[i];
      const char *s = strstr (l, "PERF_RECORD_SAMPLE(");

      if (s != NULL)
        {
          const char *colon = strstr (s, "): ");
          char *end;
          gint64 tid;

          if (in_sample)
            {
              if (frames->len == 0 && ip != 0)
                g_array_append_val (frames, ip);
              count_stack (folded, frames);
            }
          g_assert_nonnull (colon);
          g_ascii_strtoll (colon + 3, &end, 10);          /* pid */
          g_assert_true (*end == '/');
          tid = g_ascii_strtoll (end + 1, &end, 10);
          g_assert_true (g_str_has_prefix (end, ": 0x"));
          ip = g_ascii_strtoull (end + 4, NULL, 16);
          g_array_set_size (frames, 0);
          in_sample = tid > 0;
          in_chain = FALSE;
          continue;
        }
      /* Only the entries under "... FP chain:" (the sample's own chain;
       * an LBR recording also prints its branch stacks so). */
      if (in_sample && g_str_has_prefix (l, "... ") && !g_str_has_prefix (l, "....."))
        {
          in_chain = g_str_has_prefix (l, "... FP chain:");
          continue;
        }
      if (in_sample && in_chain && g_str_has_prefix (l, "..... "))
        {
          const char *c = strchr (l, ':');
          guint64 a;

          g_assert_nonnull (c);
          a = g_ascii_strtoull (c + 1, NULL, 16);
          if (a < PERF_CONTEXT_MAX)
            g_array_append_val (frames, a);
          continue;
        }
      /* Anything else but the sample's own detail lines ends it. */
      if (in_sample && !g_str_has_prefix (l, "..."))
        {
          if (frames->len == 0 && ip != 0)
            g_array_append_val (frames, ip);
          count_stack (folded, frames);
          in_sample = FALSE;
        }
    }
  if (in_sample)
    {
      if (frames->len == 0 && ip != 0)
        g_array_append_val (frames, ip);
      count_stack (folded, frames);
    }
  return folded;
}

/* Folded text -> stack (without its first frame, the thread) -> count. */
static GHashTable *
parse_folded (const char *text,
              guint64    *total)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GHashTable *folded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  *total = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *space = strrchr (lines[i], ' ');
      const char *semi;
      guint64 n;
      gpointer old;

      if (lines[i][0] == '\0')
        continue;
      g_assert_nonnull (space);
      *space = '\0';
      n = g_ascii_strtoull (space + 1, NULL, 10);
      g_assert_cmpuint (n, >, 0);
      semi = strchr (lines[i], ';');
      old = g_hash_table_lookup (folded, semi != NULL ? semi + 1 : "");
      g_hash_table_insert (folded, g_strdup (semi != NULL ? semi + 1 : ""),
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + n));
      *total += n;
    }
  return folded;
}

static void
assert_same_folding (const char *name,
                     GHashTable *ours,
                     GHashTable *theirs)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, theirs);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (GPOINTER_TO_UINT (g_hash_table_lookup (ours, key)) != GPOINTER_TO_UINT (value))
      g_error ("%s: perf has %u samples of %s, Strata %u", name, GPOINTER_TO_UINT (value),
               (const char *) key, GPOINTER_TO_UINT (g_hash_table_lookup (ours, key)));
  g_hash_table_iter_init (&iter, ours);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (theirs, key))
      g_error ("%s: Strata has %u samples of %s, perf none", name, GPOINTER_TO_UINT (value),
               (const char *) key);
}

static void
check_file (const char *name,
            const char *path)
{
  const char *by_address[] = { "flamegraph", "--folded", "--addresses", "--event", "*", path, NULL };
  const char *by_name[] = { "flamegraph", "--folded", "--event", "*", path, NULL };
  g_autofree char *out = NULL, *err = NULL, *named = NULL;
  g_autoptr(GHashTable) theirs = perf_folded (path);
  g_autoptr(GHashTable) ours = NULL;
  g_autoptr(GHashTable) ours_named = NULL;
  guint64 total, total_named;

  g_assert_cmpint (strata_test_run_cli (by_address, &out, &err), ==, 0);
  ours = parse_folded (out, &total);
  assert_same_folding (name, ours, theirs);
  g_assert_cmpuint (g_hash_table_size (ours), >, 0);

  /* Named, the same samples: no stack has more than its addresses'. */
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (strata_test_run_cli (by_name, &named, &err), ==, 0);
  ours_named = parse_folded (named, &total_named);
  g_assert_cmpuint (total_named, ==, total);
  g_assert_cmpuint (g_hash_table_size (ours_named), <=, g_hash_table_size (ours));
  g_test_message ("%s: %" G_GUINT64_FORMAT " samples, %u stacks, %u named",
                  name, total, g_hash_table_size (ours), g_hash_table_size (ours_named));
}

static void
test_fixtures (void)
{
  const char *files[] = { "perf-callchain.data.xz", "perf-pipe-cpu.data.xz" };

  if (!strata_test_have_program ("perf"))
    {
      g_test_skip ("no perf (scripts/install-deps.sh installs linux-perf)");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = strata_test_fixture (files[i]);

      check_file (files[i], path);
    }
}

static void
test_corpus (void)
{
  /* The corpus files with sampled call chains that perf 6.1 reads
   * (../shared/corpus/README.md): frame pointers or DWARF mode. */
  const char *files[] = {
    "contentsize.data", "fork_static_gcc_perf.data.zstd", "parallel_static_gcc_perf.data.zstd",
    "vector_static_gcc_perf.data", "vector_static_gcc_perf.data.zstd",
    "vector_static_gcc_perf.lbr.data",
  };
  const char *dir = g_getenv ("STRATA_CORPUS_DIR");

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no ../shared/corpus");
      return;
    }
  if (!strata_test_have_program ("perf"))
    {
      g_test_skip ("no perf (scripts/install-deps.sh installs linux-perf)");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, "perf", files[i], NULL);

      check_file (files[i], path);
    }
}

/* The tree agrees with its folded lines, and picks by time, thread and
 * event what the samples say. */
static void
test_tree (void)
{
  g_autofree char *path = strata_test_fixture ("perf-callchain.data.xz");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataSampleSet) samples = strata_sample_set_load (path, NULL, &error);
  g_autoptr(StrataFlameGraph) all = NULL;
  g_autoptr(GPtrArray) events = NULL;
  const StrataFlameNode *nodes;
  StrataFlameFilter filter;
  StrataTrace *trace;
  gint64 start, end, mid;
  guint64 sum_self = 0, n_first = 0, n_second = 0;
  guint n;

  g_assert_no_error (error);
  trace = strata_sample_set_get_trace (samples);
  all = strata_flame_graph_new (samples, NULL);
  nodes = strata_flame_graph_get_nodes (all, &n);
  g_assert_cmpuint (nodes[0].total, ==, strata_sample_set_get_size (samples));
  g_assert_cmpuint (nodes[0].total, >, 100);

  for (guint i = 0; i < n; i++)
    {
      guint64 children = 0;

      sum_self += nodes[i].self;
      for (guint32 c = nodes[i].first_child; c != STRATA_FLAME_NONE; c = nodes[c].next_sibling)
        {
          g_assert_cmpuint (nodes[c].parent, ==, i);
          g_assert_cmpuint (nodes[c].depth, ==, nodes[i].depth + 1);
          if (nodes[c].next_sibling != STRATA_FLAME_NONE)
            g_assert_cmpuint (nodes[c].total, >=, nodes[nodes[c].next_sibling].total);
          children += nodes[c].total;
        }
      g_assert_cmpuint (nodes[i].total, ==, nodes[i].self + children);
    }
  g_assert_cmpuint (sum_self, ==, nodes[0].total);

  /* Two halves of the time make the whole. */
  start = strata_trace_get_start (trace);
  end = strata_trace_get_end (trace) + 1;
  mid = start + (end - start) / 2;
  strata_flame_filter_init (&filter);
  filter.to = mid;
  {
    g_autoptr(StrataFlameGraph) g = strata_flame_graph_new (samples, &filter);
    n_first = strata_flame_graph_get_nodes (g, &n)[0].total;
  }
  filter.from = mid;
  filter.to = end;
  {
    g_autoptr(StrataFlameGraph) g = strata_flame_graph_new (samples, &filter);
    n_second = strata_flame_graph_get_nodes (g, &n)[0].total;
  }
  g_assert_cmpuint (n_first, >, 0);
  g_assert_cmpuint (n_second, >, 0);
  g_assert_cmpuint (n_first + n_second, ==, nodes[0].total);

  /* One thread: its frame's total under the root. */
  strata_flame_filter_init (&filter);
  {
    const StrataFlameNode *top = &nodes[nodes[0].first_child];
    const StrataChannel *channels = strata_trace_get_channels (trace, &n);
    guint64 by_name = 0;

    /* The thread rows named as the busiest frame. */
    for (guint i = 0; i < n; i++)
      if (channels[i].kind == STRATA_CHANNEL_THREAD &&
          g_strcmp0 (strata_trace_get_string (trace, channels[i].name), top->name) == 0)
        {
          g_autoptr(StrataFlameGraph) g = NULL;

          filter.tid = channels[i].id;
          g = strata_flame_graph_new (samples, &filter);
          by_name += strata_flame_graph_get_nodes (g, &n)[0].total;
          channels = strata_trace_get_channels (trace, &n);
        }
    g_assert_cmpuint (by_name, >=, top->total);
  }

  /* The one event there is, and one there is not. */
  events = strata_sample_set_list_events (samples);
  g_assert_cmpuint (events->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (events, 0), ==, "cpu-clock");
  strata_flame_filter_init (&filter);
  filter.event = "cpu-clock";
  {
    g_autoptr(StrataFlameGraph) g = strata_flame_graph_new (samples, &filter);
    g_assert_cmpuint (strata_flame_graph_get_nodes (g, &n)[0].total, ==, nodes[0].total);
  }
  filter.event = "sched_switch";
  {
    g_autoptr(StrataFlameGraph) g = strata_flame_graph_new (samples, &filter);
    g_assert_cmpuint (strata_flame_graph_get_nodes (g, &n)[0].total, ==, 0);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/flame-graph/perf-fixtures", test_fixtures);
  g_test_add_func ("/strata/flame-graph/perf-corpus", test_corpus);
  g_test_add_func ("/strata/flame-graph/tree", test_tree);
  return g_test_run ();
}
