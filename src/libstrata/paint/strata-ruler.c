/* strata-ruler.c
 *
 * Times as the ruler and the panels write them (the unit that suits the
 * span, as few decimals as tell ticks apart), and the ruler's ticks: a
 * major step of 1, 2 or 5 of a power of ten giving at least the spacing
 * asked for in pixels, and the minor steps between.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata-painter.h"
#include "strata-painter-internal.h"
#include "strata-painter-private.h"
#include "strata-zoom-chunk.h"

static gint64
floor_div (gint64 a,
           gint64 b)
{
  gint64 q = a / b;

  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

gint64
strata_painter_unit_for (gint64 magnitude)
{
  magnitude = ABS (magnitude);
  if (magnitude >= G_GINT64_CONSTANT (1000000000))
    return G_GINT64_CONSTANT (1000000000);
  if (magnitude >= 1000000)
    return 1000000;
  if (magnitude >= 1000)
    return 1000;
  return 1;
}

static const char *
unit_name (gint64 unit)
{
  switch (unit)
    {
    case G_GINT64_CONSTANT (1000000000): return "s";
    case 1000000: return "ms";
    case 1000: return "µs";
    default: return "ns";
    }
}

/* The decimals that tell multiples of @step apart in @unit. */
static guint
decimals_for (gint64 unit,
              gint64 step)
{
  guint decimals = 0;
  gint64 quantum = unit;

  while (quantum > 1 && step % quantum != 0)
    {
      quantum /= 10;
      decimals++;
    }
  return decimals;
}

/**
 * strata_paint_format_time:
 * @t: a time in ns (relative to whatever origin the caller uses)
 * @magnitude: the largest time to be shown beside it: picks the unit
 * @step: the spacing of the times shown: picks the decimals
 *
 * Formats @t in the unit that suits @magnitude with just enough decimals
 * to tell multiples of @step apart: "12.5 ms", "300 µs", "2 s". Integer
 * arithmetic, so 0.3 ms is never printed as 0.29999.
 *
 * Returns: (transfer full): the text
 */
char *
strata_paint_format_time (gint64 t,
                          gint64 magnitude,
                          gint64 step)
{
  gint64 unit = strata_painter_unit_for (magnitude);
  guint decimals = decimals_for (unit, MAX (step, 1));
  guint64 a = t < 0 ? -(guint64) t : (guint64) t;
  GString *s = g_string_new (t < 0 ? "-" : "");

  g_string_append_printf (s, "%" G_GUINT64_FORMAT, a / (guint64) unit);
  if (decimals > 0)
    {
      guint64 frac = a % (guint64) unit;
      guint64 quantum = (guint64) unit;

      for (guint i = 0; i < decimals; i++)
        quantum /= 10;
      g_string_append_printf (s, ".%0*" G_GUINT64_FORMAT, (int) decimals, frac / quantum);
    }
  g_string_append_printf (s, " %s", unit_name (unit));

  return g_string_free (s, FALSE);
}

/**
 * strata_paint_ruler_step:
 * @span: the time across @width, in ns
 * @width: pixels
 * @min_spacing: the fewest pixels between two labelled ticks
 *
 * Returns: the shortest step of 1, 2 or 5 × 10^k ns whose ticks are at
 *   least @min_spacing pixels apart
 */
gint64
strata_paint_ruler_step (gint64 span,
                         double width,
                         double min_spacing)
{
  double raw;
  gint64 p = 1;

  if (span <= 0 || width <= 0)
    return 1;

  raw = (double) span * min_spacing / width;
  while (p <= G_MAXINT64 / 100 && (double) p * 10 <= raw)
    p *= 10;

  if (raw <= p)
    return p;
  if (raw <= 2 * p)
    return 2 * p;
  if (raw <= 5 * p)
    return 5 * p;
  return 10 * p;
}

/* Unlabelled ticks in between: fifths of a 1 or 5 step, halves of a 2. */
static gint64
minor_step (gint64 step)
{
  gint64 p = 1;

  while (p <= step / 10)
    p *= 10;

  if (step / p == 2)
    return step / 2;
  return step >= 5 ? step / 5 : step;
}

/**
 * strata_paint_ruler_ticks:
 * @from: the time at @x
 * @to: the time at @x + @width (excluded)
 * @x: where the axis starts, in the caller's coordinates
 * @width: its length in pixels
 * @origin: time zero of the labels (the trace's start)
 * @min_spacing: the fewest pixels between labelled ticks
 * @ticks: (element-type StrataPaintTick): where the ticks are appended
 * @labels: where the labels' text is kept
 *
 * Ticks at round multiples of the step from @origin, labelled with the
 * time since @origin. When the labels would need more than three
 * decimals (deep zoom far from the origin), the first labelled tick says
 * the full time and the others the offset from it ("+20 ns").
 */
void
strata_paint_ruler_ticks (gint64        from,
                          gint64        to,
                          double        x,
                          double        width,
                          gint64        origin,
                          double        min_spacing,
                          GArray       *ticks,
                          GStringChunk *labels)
{
  gint64 step, minor, magnitude, base = 0;
  double px;
  gboolean relative, have_base = FALSE;

  g_return_if_fail (ticks != NULL && labels != NULL);

  if (to <= from || width <= 0)
    return;

  step = strata_paint_ruler_step (to - from, width, min_spacing);
  px = width / (double) (to - from);
  minor = minor_step (step);
  if (minor * px < 6)
    minor = step;

  magnitude = MAX (ABS (from - origin), ABS (to - origin));
  relative = decimals_for (strata_painter_unit_for (magnitude), step) > 3;

  for (gint64 k = floor_div (from - origin - 1, minor) + 1; ; k++)
    {
      gint64 rel = k * minor;
      gint64 t = origin + rel;
      StrataPaintTick tick = { 0 };
      g_autofree char *label = NULL;

      if (t >= to)
        break;
      if (t < from)
        continue;

      tick.time = t;
      tick.x = (float) (x + (t - from) * px);
      tick.labelled = rel % step == 0;
      if (tick.labelled)
        {
          if (relative && have_base)
            {
              g_autofree char *delta = strata_paint_format_time (t - base, to - from, step);
              label = g_strconcat ("+", delta, NULL);
            }
          else
            label = strata_paint_format_time (rel, magnitude, step);
          if (!have_base)
            {
              base = t;
              have_base = TRUE;
            }
          tick.label = g_string_chunk_insert (labels, label);
        }
      g_array_append_val (ticks, tick);
    }
}

/* The display list --------------------------------------------------------- */
