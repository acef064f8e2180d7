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
 * @text: a time: nanoseconds as the trace counts them ("229760484430"),
 *   seconds with a fraction as `info` and `trace-cmd report` print them
 *   ("229.760484430"), or, after "+", a duration from the trace's start
 *   with a unit ("+12.5ms", "+3s", "+250us", "+800ns")
 * @trace_start: the trace's first timestamp
 * @ns: (out): the time in ns
 *
 * Returns: %FALSE with @error set if @text is none of these
 */
gboolean
strata_parse_time (const char  *text,
                   gint64       trace_start,
                   gint64      *ns,
                   GError     **error)
{
  static const struct { const char *suffix; double scale; } units[] = {
    { "ns", 1 }, { "us", 1e3 }, { "\u00b5s", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
  };
  const char *p = text;
  gboolean relative = FALSE;
  char *end = NULL;
  double value;

  if (*p == '+')
    {
      relative = TRUE;
      p++;
    }

  if (!relative && strchr (p, '.') == NULL)
    {
      gint64 v = g_ascii_strtoll (p, &end, 10);

      if (end != p && *end == '\0' && v >= 0)
        {
          *ns = v;
          return TRUE;
        }
    }

  value = g_ascii_strtod (p, &end);
  if (end == p || value < 0)
    goto bad;

  if (!relative)
    {
      if (*end != '\0')
        goto bad;
      *ns = (gint64) (value * 1e9 + 0.5);
      return TRUE;
    }

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_str_equal (end, units[i].suffix))
      {
        *ns = trace_start + (gint64) (value * units[i].scale + 0.5);
        return TRUE;
      }

bad:
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "time “%s”: expected nanoseconds (229760484430), seconds (229.760484430) "
               "or a duration from the start (+12.5ms)", text);
  return FALSE;
}
