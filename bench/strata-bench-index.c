/* strata-bench-index.c
 *
 * What the index buys once it is built: run as a fresh process after the
 * index exists, it times opening the trace through it (the source's
 * identity, the header and the small sections, the views) up to the first
 * answer a viewer needs (the whole trace at one screen's resolution), then
 * the latency of display requests (strata_zoom_tree_query_spans) over
 * random viewports, from a thousandth of the trace to all of it, over a
 * screen of rows (a random block of 60 contiguous channels, as the
 * zoom-tree benchmark asks), on the mapped tree, and the pages the process
 * touched (its peak RSS).
 *
 * With --in-memory the trace is read without the index (one pass, the
 * tree built in memory) and the same queries are timed on that tree, to
 * show what answering from the mapped file costs against memory.
 *
 * Beside each wall time, the thread's CPU time (page faults included),
 * which a shared machine's load disturbs far less.
 *
 * With --by-level, the cold pass's latencies are also told level by
 * level, with how many of each level's queries were answered in part
 * from the raw store (a level left to it), to show where a slow query
 * comes from.
 *
 * With --min-reduction, the tree's parameter of that name (the default
 * otherwise): an index is opened only with the parameters it was built
 * with, so an index built with `strata-cli index --min-reduction 1` is
 * read as it is only when the same value is given here; without it, the
 * open rebuilds that index with the default (and the numbers are the
 * default's).
 *
 * Usage: strata-bench-index TRACE [--index PATH] [--queries N] [--rows N] [--in-memory] [--by-level]
 *                                 [--min-reduction R]
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "strata.h"
#include "strata-bench-time.h"

/* The process's resident pages of one kind, from /proc/self/status:
 * RssAnon (its own memory) or RssFile (pages of mapped files, the index's
 * among them, which the kernel can drop and read again). */
static long
rss_kb (const char *key)
{
  g_autofree char *text = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL) || (line = strstr (text, key)) == NULL)
    return -1;
  return strtol (line + strlen (key) + 1, NULL, 10);
}

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *index_path = NULL;
  int n_queries = 1000, n_rows = 60, min_reduction = 0;
  gboolean in_memory = FALSE, by_level = FALSE;
  GOptionEntry entries[] = {
    { "index", 0, 0, G_OPTION_ARG_FILENAME, &index_path, "The index (default: beside the trace)", "PATH" },
    { "queries", 'q', 0, G_OPTION_ARG_INT, &n_queries, "Random viewports (default 1000)", "N" },
    { "rows", 'r', 0, G_OPTION_ARG_INT, &n_rows, "Visible channels (default 60)", "N" },
    { "in-memory", 0, 0, G_OPTION_ARG_NONE, &in_memory, "Without the index: the tree in memory", NULL },
    { "by-level", 0, 0, G_OPTION_ARG_NONE, &by_level, "Also the cold latencies level by level", NULL },
    { "min-reduction", 0, 0, G_OPTION_ARG_INT, &min_reduction, "The tree's min reduction, as the index was built with", "R" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE - time the open through the index and its queries");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataZoomResult) result = strata_zoom_result_new ();
  g_autofree gint64 *latencies = NULL;
  g_autofree gint64 *warm = NULL;
  g_autofree gint64 *cpu = NULL;
  gint64 c0, c_open, c_first;
  g_autofree guint *levels = NULL;
  g_autofree gboolean *on_demand = NULL;
  StrataZoomQueryStats stats;
  StrataZoomGeometry g;
  struct rusage usage;
  gint64 t0, t_open, t_first, start, end, span;
  g_autofree guint32 *rows = NULL;
  guint level, n_spans, n_channels;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || n_queries < 1 || min_reduction < 0)
    {
      g_printerr ("%s\n", error != NULL ? error->message : "usage: strata-bench-index TRACE");
      return 2;
    }

  t0 = g_get_monotonic_time ();
  c0 = cpu_ns ();
  {
    g_autoptr(StrataLoader) loader = strata_loader_new (argv[1]);

    StrataZoomParams params;

    strata_zoom_params_init (&params);
    if (min_reduction > 0)
      params.min_reduction = (guint) min_reduction;
    strata_loader_set_index_path (loader, index_path);
    strata_loader_set_zoom_params (loader, &params);
    if (in_memory)
      {
        /* The tree and the statistics, as through the index. */
        strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
        strata_loader_set_statistics (loader, TRUE);
      }
    trace = strata_loader_load (loader, NULL, &error);
  }
  if (trace == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  t_open = g_get_monotonic_time ();
  c_open = cpu_ns ();
  if (!in_memory && strata_trace_get_index_path (trace) == NULL)
    {
      g_printerr ("no index: it was built now; run again\n");
      return 1;
    }

  start = strata_trace_get_start (trace);
  end = strata_trace_get_end (trace) + 1;
  span = MAX (end - start, 1);
  if (!strata_zoom_tree_get_geometry (strata_trace_get_zoom_tree (trace), &g))
    return 1;
  strata_trace_get_channels (trace, &n_channels);
  n_rows = CLAMP (n_rows, 1, (int) n_channels);
  rows = g_new (guint32, n_rows);
  for (int r = 0; r < n_rows; r++)
    rows[r] = r;
  level = strata_zoom_geometry_level_for_viewport (&g, span);
  strata_zoom_tree_query_spans (strata_trace_get_zoom_tree (trace), level, start, end, rows, n_rows, result, NULL);
  strata_zoom_result_get_spans (result, &n_spans);
  t_first = g_get_monotonic_time ();
  c_first = cpu_ns ();

  latencies = g_new (gint64, n_queries);
  warm = g_new (gint64, n_queries);
  levels = g_new (guint, n_queries);
  cpu = g_new (gint64, n_queries);
  on_demand = g_new (gboolean, n_queries);
  for (int pass = 0; pass < 2; pass++)
  {
  /* The second pass asks the same viewports again: their pages are in
   * memory and checked by then. */
  g_autoptr(GRand) viewports = g_rand_new_with_seed (7);
  gint64 *out = pass == 0 ? latencies : warm;

  for (int q = 0; q < n_queries; q++)
    {
      double fraction = exp (g_rand_double_range (viewports, log (1e-3), 0));
      gint64 len = MAX ((gint64) (span * fraction), 1);
      gint64 from = start + (gint64) (g_rand_double (viewports) * (double) (span - len));
      gint64 q0, qc0;

      guint32 first_row = g_rand_int_range (viewports, 0, n_channels - n_rows + 1);

      for (int r = 0; r < n_rows; r++)
        rows[r] = first_row + r;
      level = strata_zoom_geometry_level_for_viewport (&g, len);
      q0 = g_get_monotonic_time ();
      qc0 = cpu_ns ();
      strata_zoom_tree_query_spans (strata_trace_get_zoom_tree (trace), level, from, from + len,
                                    rows, n_rows, result, &stats);
      out[q] = g_get_monotonic_time () - q0;
      if (pass == 0)
        {
          cpu[q] = (cpu_ns () - qc0) / 1000;
          levels[q] = level;
          on_demand[q] = stats.n_on_demand > 0;
        }
    }
  }
  if (by_level)
    {
      printf ("# level: queries, of which on demand, cold p50 / p99 / max us, cold CPU p50 / p99 us\n");
      for (guint lv = 0; lv < g.n_levels; lv++)
        {
          g_autoptr(GArray) at = g_array_new (FALSE, FALSE, sizeof (gint64));
          g_autoptr(GArray) at_cpu = g_array_new (FALSE, FALSE, sizeof (gint64));
          guint n_od = 0;

          for (int q = 0; q < n_queries; q++)
            if (levels[q] == lv)
              {
                g_array_append_val (at, latencies[q]);
                g_array_append_val (at_cpu, cpu[q]);
                n_od += on_demand[q];
              }
          if (at->len == 0)
            continue;
          g_array_sort (at, compare_gint64);
          g_array_sort (at_cpu, compare_gint64);
          printf ("level %u: %u, %u, %" G_GINT64_FORMAT " / %" G_GINT64_FORMAT " / %" G_GINT64_FORMAT
                  ", %" G_GINT64_FORMAT " / %" G_GINT64_FORMAT "\n",
                  lv, at->len, n_od, g_array_index (at, gint64, at->len / 2),
                  g_array_index (at, gint64, at->len * 99 / 100), g_array_index (at, gint64, at->len - 1),
                  g_array_index (at_cpu, gint64, at_cpu->len / 2), g_array_index (at_cpu, gint64, at_cpu->len * 99 / 100));
        }
    }
  qsort (latencies, n_queries, sizeof (gint64), compare_gint64);
  qsort (cpu, n_queries, sizeof (gint64), compare_gint64);
  qsort (warm, n_queries, sizeof (gint64), compare_gint64);
  getrusage (RUSAGE_SELF, &usage);

  printf ("open_ms %.3f\nfirst_query_ms %.3f\nopen_to_first_answer_ms %.3f\n"
          "query_p50_us %" G_GINT64_FORMAT "\nquery_p90_us %" G_GINT64_FORMAT "\n"
          "query_p99_us %" G_GINT64_FORMAT "\nquery_max_us %" G_GINT64_FORMAT "\n"
          "query_warm_p50_us %" G_GINT64_FORMAT "\nquery_warm_p99_us %" G_GINT64_FORMAT "\n"
          "open_cpu_ms %.3f\nopen_to_first_answer_cpu_ms %.3f\n"
          "query_cpu_p50_us %" G_GINT64_FORMAT "\nquery_cpu_p90_us %" G_GINT64_FORMAT "\nquery_cpu_p99_us %" G_GINT64_FORMAT "\n"
          "first_spans %u\npeak_rss_kb %ld\nrss_anon_kb %ld\nrss_file_kb %ld\n",
          (t_open - t0) / 1e3, (t_first - t_open) / 1e3, (t_first - t0) / 1e3,
          latencies[n_queries / 2], latencies[n_queries * 9 / 10], latencies[n_queries * 99 / 100],
          latencies[n_queries - 1], warm[n_queries / 2], warm[n_queries * 99 / 100],
          (c_open - c0) / 1e6, (c_first - c0) / 1e6, cpu[n_queries / 2], cpu[n_queries * 9 / 10], cpu[n_queries * 99 / 100], n_spans, usage.ru_maxrss, rss_kb ("RssAnon:"), rss_kb ("RssFile:"));
  return 0;
}
