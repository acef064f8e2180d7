/* strata-cli-flamegraph.c
 *
 * `strata-cli flamegraph FILE [--from T] [--to T] [--tid N | --pid N]
 * [--event NAME] [--folded]`: the call chains of the samples in a range
 * merged into a tree of frames (strata-flame-graph.h). --folded prints
 * the folded stacks flamegraph.pl, inferno and speedscope read; without
 * it, the tree as indented text, the frames with at least --min-percent
 * of the samples.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include "strata-cli.h"
#include "strata-cli-format.h"

static void
print_tree (const StrataFlameNode *nodes,
            guint32                node,
            guint64                whole,
            double                 min_percent)
{
  for (guint32 c = nodes[node].first_child; c != STRATA_FLAME_NONE; c = nodes[c].next_sibling)
    {
      double share = 100.0 * nodes[c].total / MAX (whole, 1);

      if (share < min_percent)
        continue;  /* children are sorted, but a later one can tie */
      printf ("%6.2f%% %6.2f%% %*s%s\n", share, 100.0 * nodes[c].self / MAX (whole, 1),
              2 * (int) (nodes[c].depth - 1), "", nodes[c].name);
      print_tree (nodes, c, whole, min_percent);
    }
}

int
strata_cli_flamegraph (int    argc,
                       char **argv)
{
  g_autoptr(StrataSampleSet) samples = NULL;
  g_autoptr(StrataFlameGraph) graph = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *from_text = NULL;
  g_autofree char *to_text = NULL;
  g_autofree char *event = NULL;
  gboolean folded = FALSE;
  gboolean addresses = FALSE;
  double min_percent = 1.0;
  int tid = -1, pid = -1;
  const GOptionEntry entries[] = {
    { "from", 0, 0, G_OPTION_ARG_STRING, &from_text, "Samples from T on (default: the trace's start)", "T" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to_text, "Samples before T (default: the trace's end)", "T" },
    { "tid", 0, 0, G_OPTION_ARG_INT, &tid, "The samples of one thread", "N" },
    { "pid", 0, 0, G_OPTION_ARG_INT, &pid, "The samples of one process", "N" },
    { "event", 0, 0, G_OPTION_ARG_STRING, &event, "The samples of one event (cycles, a tracepoint recorded with -g such as sched_switch, * for all; default: the CPU samples)", "NAME" },
    { "folded", 0, 0, G_OPTION_ARG_NONE, &folded, "Print folded stacks (flamegraph.pl, inferno, speedscope)", NULL },
    { "addresses", 0, 0, G_OPTION_ARG_NONE, &addresses, "Frames as their addresses, not named", NULL },
    { "min-percent", 0, 0, G_OPTION_ARG_DOUBLE, &min_percent, "The tree's smallest frame shown (default 1)", "P" },
    { NULL }
  };
  StrataFlameFilter filter;
  const StrataFlameNode *nodes;
  StrataTrace *trace;
  const char *file;
  guint n;

  file = strata_cli_parse_file_args ("flamegraph",
                                     "the call chains of a range's samples as a flame graph",
                                     entries, NULL, &argc, &argv);
  if (file == NULL)
    return STRATA_CLI_EXIT_FAILED;
  if (tid >= 0 && pid >= 0)
    {
      g_printerr ("strata-cli flamegraph: give one of --tid and --pid\n");
      return STRATA_CLI_EXIT_FAILED;
    }

  /* Call chains live in the source, not in the index: the file is read
   * again for its samples. */
  samples = strata_sample_set_load (file, NULL, &error);
  if (samples == NULL)
    {
      g_printerr ("strata-cli: %s\n", error->message);
      return STRATA_CLI_EXIT_FAILED;
    }
  trace = strata_sample_set_get_trace (samples);

  strata_flame_filter_init (&filter);
  if ((from_text != NULL && !strata_parse_time (from_text, strata_trace_get_start (trace), &filter.from, &error)) ||
      (to_text != NULL && !strata_parse_time (to_text, strata_trace_get_start (trace), &filter.to, &error)))
    {
      g_printerr ("strata-cli flamegraph: %s\n", error->message);
      return STRATA_CLI_EXIT_FAILED;
    }
  filter.tid = tid;
  filter.pid = pid;
  filter.event = event;
  filter.addresses = addresses;

  graph = strata_flame_graph_new (samples, &filter);
  nodes = strata_flame_graph_get_nodes (graph, &n);

  if (folded)
    {
      g_autofree char *text = strata_flame_graph_to_folded (graph);

      fputs (text, stdout);
    }
  else if (nodes[0].total == 0)
    {
      g_autoptr(GPtrArray) events = strata_sample_set_list_events (samples);

      printf ("%s: no samples in the range", file);
      if (events->len > 0)
        {
          printf (" (the trace's sampled events:");
          for (guint i = 0; i < events->len; i++)
            printf (" %s", (const char *) g_ptr_array_index (events, i));
          printf (")");
        }
      printf ("\n");
    }
  else
    {
      printf ("%s: %" G_GUINT64_FORMAT " samples", file, nodes[0].total);
      if (strata_flame_graph_get_without_chain (graph) > 0)
        printf (", %" G_GUINT64_FORMAT " without a call chain", strata_flame_graph_get_without_chain (graph));
      printf ("\n\n%7s %7s  %s\n", "total", "self", "frame");
      print_tree (nodes, 0, nodes[0].total, min_percent);
    }

  return strata_cli_finish (trace);
}
