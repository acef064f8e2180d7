/* strata-trace-stats.c
 *
 * The statistics' rows are GArrays of plain structs, written to the
 * index as they are in memory; freeing them is all there is to do here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-trace-stats.h"

void
strata_stats_free (StrataStats *stats)
{
  if (stats == NULL)
    return;

  g_clear_pointer (&stats->cpus, g_array_unref);
  g_clear_pointer (&stats->threads, g_array_unref);
  g_free (stats);
}
