/* strata-paint-layers.c
 *
 * Columns into rectangles: a lane's columns are emitted left to right as
 * layers (a colour, a top and a bottom), and a layer that goes on the
 * same into the next column grows instead of starting a rectangle of its
 * own, so the display list grows with pixels times rows whatever the
 * number of activities.
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

/* A finished rectangle into its layer: room is made by doubling, not a
 * g_array_set_size() call for every rectangle. */
static inline void
layer_push_done (Layer                 *layer,
                 const StrataPaintRect *r)
{
  if (layer->n_done == layer->done->len)
    g_array_set_size (layer->done, MAX (64u, layer->done->len * 2));
  g_array_index (layer->done, StrataPaintRect, layer->n_done++) = *r;
}

/* The layers' rectangles onto the list, in layer order. */
void
strata_painter_layers_flush (StrataPainter     *self,
                             StrataDisplayList *list)
{
  for (guint i = 0; i < N_LAYERS; i++)
    {
      Layer *layer = &self->layers[i];

      g_array_append_vals (list->rects, layer->done->data, layer->n_done);
      layer->n_done = 0;
    }
}

void
strata_painter_layer_emit (StrataPainter *self,
                           Layer         *layer,
                           const Run     *run,
                           float          area_x,
                           float          clip_y0,
                           float          clip_y1)
{
  const Scheme *s = &strata_painter_schemes[self->style.scheme];
  float y0 = MAX (run->y, clip_y0);
  float y1 = MIN (run->y + run->h, clip_y1);
  StrataPaintRect r;

  if (y1 <= y0)
    return;

  r.x = area_x + run->x0;
  r.y = y0;
  r.w = run->x1 - run->x0;
  r.h = y1 - y0;
  r.rgba = run->rgba;
  layer_push_done (layer, &r);

  /* "Unknown" is hatched, so it never reads as a state. The stripes sit
   * at fixed pixels, so they line up across runs and rows. */
  if (layer == &self->layers[LAYER_BACKGROUND] && run->rgba == s->states[STRATA_TASK_STATE_UNKNOWN])
    {
      Layer *hatch = &self->layers[LAYER_HATCH];
      gint32 x = run->x0 + (HATCH_PERIOD - run->x0 % HATCH_PERIOD) % HATCH_PERIOD;

      for (; x < run->x1; x += HATCH_PERIOD)
        {
          StrataPaintRect stripe = { area_x + x, y0, MIN (HATCH_WIDTH, run->x1 - x), y1 - y0,
                                     s->unknown_stripe };
          layer_push_done (hatch, &stripe);
        }
    }
}

void
strata_painter_layer_put (Layer   *layer,
                          gint32   x,
                          float    y,
                          float    h,
                          guint32  rgba)
{
  Run run = { x, x + 1, y, h, rgba };

  if (h <= 0 || rgba_alpha (rgba) == 0)
    return;

  for (guint i = 0; i < layer->n_open; i++)
    {
      Run *open = &layer->open[i];

      if (open->x1 == x && open->y == y && open->h == h && open->rgba == rgba)
        {
          open->x1 = x + 1;
          return;
        }
    }
  g_assert (layer->n_open < MAX_OPEN_RUNS);
  layer->open[layer->n_open++] = run;
}

/* Closes the runs that column @x did not extend; all of them if @x < 0. */
void
strata_painter_layer_close (StrataPainter *self,
                            Layer         *layer,
                            gint32         x,
                            float          area_x,
                            float          clip_y0,
                            float          clip_y1)
{
  guint kept = 0;

  for (guint i = 0; i < layer->n_open; i++)
    {
      Run run = layer->open[i];

      if (x >= 0 && run.x1 == x + 1)
        layer->open[kept++] = run;
      else
        strata_painter_layer_emit (self, layer, &run, area_x, clip_y0, clip_y1);
    }
  layer->n_open = kept;
}
