/* strata-cli-format.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-cli-format.h"

char *
strata_format_duration (gint64 ns)
{
  gint64 a = ABS (ns);

  if (a < 1000)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  if (a < 1000 * 1000)
    return g_strdup_printf ("%.2f µs", ns / 1e3);
  if (a < G_GINT64_CONSTANT (1000000000))
    return g_strdup_printf ("%.2f ms", ns / 1e6);
  return g_strdup_printf ("%.3f s", ns / 1e9);
}

char *
strata_format_timestamp (gint64 ns)
{
  const char *sign = ns < 0 ? "-" : "";
  guint64 a = ns < 0 ? -(guint64) ns : (guint64) ns;

  return g_strdup_printf ("%s%" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT,
                          sign, a / 1000000000u, a % 1000000000u);
}

char *
strata_format_percent (gint64 part,
                       gint64 whole)
{
  if (whole <= 0)
    return g_strdup ("-");
  return g_strdup_printf ("%.1f%%", 100.0 * part / whole);
}
