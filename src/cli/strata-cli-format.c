/* strata-cli-format.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

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

/**
 * strata_parse_time:
 * @text: digits with an optional fraction and unit (ns, us, µs, ms, s):
 *   absolute in the trace's clock, or from its start with a leading '+'.
 *   Without a unit, a whole number is nanoseconds ("229760484430") and a
 *   fraction is seconds, as `info` and `trace-cmd report` print times
 *   ("229.760484430").
 * @start: the trace's first timestamp
 * @out: (out): the time in ns
 *
 * Integer arithmetic, so "12.5ms" is exactly 12500000 ns.
 *
 * Returns: %FALSE with @error set if @text is not a time
 */
gboolean
strata_parse_time (const char  *text,
                   gint64       start,
                   gint64      *out,
                   GError     **error)
{
  static const struct { const char *suffix; gint64 unit; } units[] = {
    { "ns", 1 }, { "us", 1000 }, { "µs", 1000 }, { "ms", 1000000 },
    { "s", G_GINT64_CONSTANT (1000000000) }, { "", 1 },
  };
  const char *p = text;
  gboolean relative = FALSE;
  guint64 whole = 0, frac = 0, frac_scale = 1;
  gint64 unit = 0;

  if (*p == '+')
    {
      relative = TRUE;
      p++;
    }

  if (!g_ascii_isdigit (*p))
    goto bad;
  while (g_ascii_isdigit (*p))
    {
      if (whole > G_MAXINT64 / 10)
        goto bad;
      whole = whole * 10 + (*p++ - '0');
    }
  if (*p == '.')
    {
      p++;
      while (g_ascii_isdigit (*p))
        {
          /* Nanoseconds of a second is as fine as a fraction can matter,
           * and keeps frac * unit within 64 bits. */
          if (frac_scale < G_GINT64_CONSTANT (1000000000))
            {
              frac = frac * 10 + (*p - '0');
              frac_scale *= 10;
            }
          p++;
        }
    }

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_str_equal (p, units[i].suffix))
      {
        unit = units[i].unit;
        break;
      }
  if (*p == '\0' && frac_scale > 1)
    unit = G_GINT64_CONSTANT (1000000000);
  if (unit == 0 || whole > (guint64) (G_MAXINT64 / unit) / 2)
    goto bad;

  *out = (gint64) (whole * unit) + (gint64) (frac * (guint64) unit / frac_scale);
  if (relative)
    *out += start;
  return TRUE;

bad:
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "“%s” is not a time: expected NS, seconds with a fraction, a number with a "
               "unit (ns, us, ms, s) or +TIME from the trace's start", text);
  return FALSE;
}
