/* strata-cli-format.h
 *
 * Human-readable numbers for the CLI: durations in the unit that fits
 * (ns, µs, ms, s), trace timestamps as seconds with nanoseconds, percentages.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *strata_format_duration  (gint64 ns);
char *strata_format_timestamp (gint64 ns);
char *strata_format_percent   (gint64 part,
                               gint64 whole);

G_END_DECLS
