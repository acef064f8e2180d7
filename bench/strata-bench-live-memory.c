/* strata-bench-live-memory.c
 *
 * What the pass behind a live view holds per channel (issue 23: an hour
 * of following a recording must not grow the app's memory without
 * bound, and a recording of `perf bench sched messaging` makes new
 * threads all the time). It loads a trace as the window does (through
 * the index, with a progress function, so the model tracks its changed
 * channels and the statistics run beside the tree) and, at each report
 * that passes the next step of channels, prints the report's channels
 * and events and malloc's bytes in use (mallinfo2: arenas and mmapped
 * chunks): "step CHANNELS EVENTS HEAP_BYTES". The heap between two
 * steps of a churn trace (bench/strata-gen-trace --shape churn), over
 * the channels between them, is the bytes a new channel costs.
 *
 * With --exit-at N it leaves with _exit() at the first report of at
 * least N channels, freeing nothing: under heaptrack, what it then
 * reports as leaked is what the pass held at that moment, by the place
 * that allocated it (run it at N and 4N and subtract).
 *
 * Usage: strata-bench-live-memory [--step N] [--exit-at N] TRACE
 * (STRATA_INDEX_DIR should name an empty folder of one's own.)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <unistd.h>

#include "strata.h"

typedef struct
{
  guint next;
  guint step;
  guint exit_at;
} Steps;

static guint64
heap_in_use (void)
{
  struct mallinfo2 info = mallinfo2 ();

  return info.uordblks + info.hblkhd;
}

static gboolean
report (const StrataTraceProgress *progress,
        gpointer                   user_data)
{
  Steps *steps = user_data;

  if (steps->exit_at > 0 && progress->n_channels >= steps->exit_at)
    {
      printf ("exit %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
              progress->n_channels, progress->n_events, heap_in_use ());
      fflush (stdout);
      _exit (0);
    }
  if (progress->n_channels >= steps->next)
    {
      printf ("step %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
              progress->n_channels, progress->n_events, heap_in_use ());
      fflush (stdout);
      while (steps->next <= progress->n_channels)
        steps->next += steps->step;
    }
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE");
  g_autoptr(StrataLoader) loader = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;
  int step = 10000, exit_at = 0;
  Steps steps;
  GOptionEntry entries[] = {
    { "step", 0, 0, G_OPTION_ARG_INT, &step, "Print the heap every N channels (10000)", "N" },
    { "exit-at", 0, 0, G_OPTION_ARG_INT, &exit_at, "Leave at the first report of N channels", "N" },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || step <= 0 || exit_at < 0)
    {
      g_printerr ("usage: %s [--step N] [--exit-at N] TRACE\n", argv[0]);
      return 2;
    }
  steps.next = steps.step = (guint) step;
  steps.exit_at = (guint) exit_at;

  loader = strata_loader_new (argv[1]);
  strata_zoom_params_init (&params);
  strata_loader_set_zoom_params (loader, &params);
  strata_loader_set_progress_func (loader, report, &steps, NULL);
  trace = strata_loader_load (loader, NULL, &error);
  if (trace == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  return 0;
}
