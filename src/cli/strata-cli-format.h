/* strata-cli-format.h
 *
 * Human-readable numbers for the CLI: durations in the unit that fits
 * (ns, µs, ms, s), trace timestamps as seconds with nanoseconds, percentages;
 * and times typed by a user.
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
gboolean strata_parse_time    (const char  *text,
                               gint64       start,
                               gint64      *out,
                               GError     **error);

G_END_DECLS
