/* strata-bench-read.c
 *
 * The reader alone: opens a trace through strata_source_open() and pulls
 * every event out of it in batches of the size the trace loader uses,
 * with no kernel model, zoom tree or statistics behind it, then prints
 * how many events there were, a checksum of their times and fields (so
 * two versions of a reader can be checked to yield the same events) and
 * how long it took. This is the reader thread's share of a load, which
 * bench/run-perf.sh reports beside the whole pass.
 *
 * Usage: strata-bench-read [--read-ahead] [--window N] FILE
 *
 * --read-ahead reads a perf.data with its read-ahead thread (decoding
 * the next rounds while this one is merged); --window sets a perf.data's
 * reorder bound (events), to check the flushes past it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "strata.h"
#include "../plugins/perf/strata-perf-source.h"

#define BATCH 4096

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataSource) source = NULL;
  g_autofree StrataEvent *events = NULL;
  guint64 n = 0, sum = 0;
  gint64 t0, t1;
  gssize got;
  gboolean read_ahead = FALSE;
  guint window = 0;
  const char *path = NULL;

  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--read-ahead"))
      read_ahead = TRUE;
    else if (g_str_equal (argv[i], "--window") && i + 1 < argc)
      window = (guint) atoi (argv[++i]);
    else if (path == NULL)
      path = argv[i];
    else
      path = "";
  if (path == NULL || *path == '\0')
    {
      fprintf (stderr, "usage: %s [--read-ahead] [--window N] FILE\n", argv[0]);
      return 2;
    }

  strata_source_ensure_builtin ();
  events = g_new (StrataEvent, BATCH);
  t0 = g_get_monotonic_time ();
  source = strata_source_open (path, &error);
  if (source == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  if (read_ahead && STRATA_IS_PERF_SOURCE (source))
    strata_perf_source_set_threaded (STRATA_PERF_SOURCE (source), TRUE);
  if (window >= 2 && STRATA_IS_PERF_SOURCE (source))
    strata_perf_source_set_reorder_window (STRATA_PERF_SOURCE (source), window);

  while ((got = strata_source_read_batch (source, events, BATCH, &error)) > 0)
    for (gssize i = 0; i < got; i++)
      {
        const guint32 *u = (const guint32 *) (gconstpointer) &events[i].u;

        n++;
        sum = sum * 31 + (guint64) events[i].ts + events[i].type + events[i].name +
              (guint32) events[i].cpu + (guint32) events[i].pid;
        for (guint k = 0; k < sizeof events[i].u / 4; k++)
          sum = sum * 7 + u[k];
      }
  t1 = g_get_monotonic_time ();

  if (got < 0)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }

  printf ("%" G_GUINT64_FORMAT " events, checksum %016" G_GINT64_MODIFIER "x, %.3f s, %.2f M events/s\n",
          n, sum, (t1 - t0) / 1e6, n / ((t1 - t0) / 1e6) / 1e6);
  return 0;
}
