/* strata-palette.c
 *
 * The colours: the light and dark schemes, a task's colour from its
 * name (a hue of its own, the same in every run), a state's, the text
 * colour that reads on a fill, and which colour class an item of each
 * kind and state paints in (strata_painter_classify()), with its label.
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

const Scheme strata_painter_schemes[2] = {
  [STRATA_PAINT_SCHEME_LIGHT] = {
    .background = 0xffffffff,
    .stripe = 0xf4f5f7ff,
    .group = 0xe6e9eeff,
    .separator = 0xd3d6dcff,
    .grid = 0x0000001c,
    .ruler = 0xeceef2ff,
    .text = 0x222428ff,
    .text_dim = 0x7c818bff,
    .states = {
      [STRATA_TASK_STATE_UNKNOWN] = 0xb0b4bb80,
      [STRATA_TASK_STATE_RUNNING] = 0x3daa5cff,
      [STRATA_TASK_STATE_RUNNABLE] = 0xf0a040ff,
      [STRATA_TASK_STATE_PREEMPTED] = 0xe8892aff,
      [STRATA_TASK_STATE_WOKEN] = 0xf2c53dff,
      [STRATA_TASK_STATE_SLEEPING] = 0xc5cad370,
      [STRATA_TASK_STATE_UNINTERRUPTIBLE] = 0xd9453dff,
      [STRATA_TASK_STATE_STOPPED] = 0x8f6fd0ff,
      [STRATA_TASK_STATE_DEAD] = 0x1c1c1cff,
      [STRATA_TASK_STATE_PARKED] = 0xb9bec660,
    },
    .unknown_stripe = 0x878c9590,
    .irq = 0xa8326eff,
    .softirq = 0x3d4fa8ff,
    .wakeup = 0x2d6fd6ff,
    .event = 0x6b6f76ff,
    .brief = 0x8791a3ff,
    .task_saturation = 0.55f,
    .task_lightness = 0.64f,
  },
  [STRATA_PAINT_SCHEME_DARK] = {
    .background = 0x1f2023ff,
    .stripe = 0x25272bff,
    .group = 0x30333aff,
    .separator = 0x3c3f46ff,
    .grid = 0xffffff18,
    .ruler = 0x2a2c31ff,
    .text = 0xe4e6ebff,
    .text_dim = 0x9297a0ff,
    .states = {
      [STRATA_TASK_STATE_UNKNOWN] = 0x6a6e7680,
      [STRATA_TASK_STATE_RUNNING] = 0x4fc56dff,
      [STRATA_TASK_STATE_RUNNABLE] = 0xe8a04aff,
      [STRATA_TASK_STATE_PREEMPTED] = 0xdf8d36ff,
      [STRATA_TASK_STATE_WOKEN] = 0xe3c14fff,
      [STRATA_TASK_STATE_SLEEPING] = 0x5b606a80,
      [STRATA_TASK_STATE_UNINTERRUPTIBLE] = 0xe8564eff,
      [STRATA_TASK_STATE_STOPPED] = 0xa187e0ff,
      [STRATA_TASK_STATE_DEAD] = 0xf0f0f0ff,
      [STRATA_TASK_STATE_PARKED] = 0x5b606a60,
    },
    .unknown_stripe = 0x9aa0a880,
    .irq = 0xff6aa8ff,
    .softirq = 0x8a9bffff,
    .wakeup = 0x7fb2ffff,
    .event = 0xb8bcc4ff,
    .brief = 0x9aa4b8ff,
    .task_saturation = 0.50f,
    .task_lightness = 0.50f,
  },
};

static guint32
hsl_to_rgba (float h,
             float s,
             float l)
{
  float c = (1.f - fabsf (2.f * l - 1.f)) * s;
  float hp = h * 6.f;
  float x = c * (1.f - fabsf (fmodf (hp, 2.f) - 1.f));
  float m = l - c / 2.f;
  float r = 0, g = 0, b = 0;

  if (hp < 1)
    r = c, g = x;
  else if (hp < 2)
    r = x, g = c;
  else if (hp < 3)
    g = c, b = x;
  else if (hp < 4)
    g = x, b = c;
  else if (hp < 5)
    r = x, b = c;
  else
    r = c, b = x;

  return ((guint32) lrintf ((r + m) * 255.f) << 24) |
         ((guint32) lrintf ((g + m) * 255.f) << 16) |
         ((guint32) lrintf ((b + m) * 255.f) << 8) | 0xff;
}

/**
 * strata_paint_task_color:
 * @tid: a thread id
 *
 * The colour of a task on a CPU row. Hues step by the golden ratio from
 * one tid to the next, so the threads a program starts one after another
 * (consecutive tids) come out far apart, and a thread keeps its colour in
 * every trace and every frame.
 *
 * Returns: 0xRRGGBBAA
 */
guint32
strata_paint_task_color (StrataPaintScheme scheme,
                         gint32            tid)
{
  const Scheme *s = &strata_painter_schemes[scheme == STRATA_PAINT_SCHEME_DARK];
  double hue = fmod ((guint32) tid * 0.6180339887498949, 1.0);

  return hsl_to_rgba ((float) hue, s->task_saturation, s->task_lightness);
}

/**
 * strata_paint_state_color:
 * @state: a thread's scheduling state
 *
 * Returns: 0xRRGGBBAA, the colour of @state on a thread row
 */
guint32
strata_paint_state_color (StrataPaintScheme scheme,
                          StrataTaskState   state)
{
  const Scheme *s = &strata_painter_schemes[scheme == STRATA_PAINT_SCHEME_DARK];

  if ((guint) state >= STRATA_N_TASK_STATES)
    state = STRATA_TASK_STATE_UNKNOWN;
  return s->states[state];
}

/* Dark text on light colours, light text on dark ones. */
guint32
strata_painter_text_color_on (guint32 rgba)
{
  float luma = 0.2126f * channel_of (rgba, 24) + 0.7152f * channel_of (rgba, 16) +
               0.0722f * channel_of (rgba, 8);

  return luma > 0.55f ? 0x1a1a1aff : 0xffffffff;
}

/* Time and text helpers ------------------------------------------------- */

/* Where an item goes and in which colour. */
ItemClass
strata_painter_classify (StrataPainter        *self,
                         const StrataZoomItem *item,
                         Lane                 *lane,
                         guint32              *rgba,
                         float                *weight)
{
  const Scheme *s = &strata_painter_schemes[self->style.scheme];
  guint depth = (item->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK) >> STRATA_ACTIVITY_FLAG_DEPTH_SHIFT;

  *lane = depth > 0 ? LANE_NESTED : LANE_MAIN;
  *rgba = 0;
  *weight = 1;

  switch (item->kind)
    {
    case STRATA_ACTIVITY_TASK:
      {
        guint slot = (guint32) item->arg % TASK_COLOR_CACHE;

        if (self->task_colors_scheme != self->style.scheme || self->task_colors[slot].rgba == 0 ||
            self->task_colors[slot].tid != item->arg)
          {
            if (self->task_colors_scheme != self->style.scheme)
              {
                memset (self->task_colors, 0, sizeof self->task_colors);
                self->task_colors_scheme = self->style.scheme;
              }
            self->task_colors[slot].tid = item->arg;
            self->task_colors[slot].rgba = strata_paint_task_color (self->style.scheme, item->arg);
          }
        *rgba = self->task_colors[slot].rgba;
      }
      return CLASS_FOREGROUND;

    case STRATA_ACTIVITY_IDLE:
      /* Idle is drawn as nothing, but it takes its share of the column
       * from the unknown that would otherwise be the background. */
      *rgba = 0;
      return CLASS_BACKGROUND;

    case STRATA_ACTIVITY_UNKNOWN:
      *rgba = s->states[STRATA_TASK_STATE_UNKNOWN];
      return CLASS_BACKGROUND;

    case STRATA_ACTIVITY_IRQ:
      *rgba = s->irq;
      return CLASS_FOREGROUND;

    case STRATA_ACTIVITY_SOFTIRQ:
      *rgba = s->softirq;
      return CLASS_FOREGROUND;

    case STRATA_ACTIVITY_STATE:
      *lane = LANE_MAIN;
      *rgba = strata_paint_state_color (self->style.scheme, item->state);
      switch (item->state)
        {
        case STRATA_TASK_STATE_DEAD:
          *lane = LANE_INSTANTS;
          *weight = 1000;   /* a death is the tick a column shows */
          return CLASS_INSTANT;
        case STRATA_TASK_STATE_SLEEPING:
        case STRATA_TASK_STATE_PARKED:
        case STRATA_TASK_STATE_UNKNOWN:
          return CLASS_BACKGROUND;
        default:
          return CLASS_FOREGROUND;
        }

    case STRATA_ACTIVITY_WAKEUP:
      *lane = LANE_INSTANTS;
      *rgba = s->wakeup;
      *weight = 10;
      return CLASS_INSTANT;

    case STRATA_ACTIVITY_EVENT:
    case STRATA_ACTIVITY_SAMPLE:
      *lane = LANE_INSTANTS;
      *rgba = s->event;
      return CLASS_INSTANT;

    default:
      return CLASS_NONE;
    }
}

/* The text inside a wide activity: the task's comm on a CPU row, the CPU
 * a thread runs on, an interrupt's name. */
guint32
strata_painter_label_for (StrataPainter        *self,
                          const StrataChannel  *channel,
                          const StrataZoomItem *item)
{
  switch (item->kind)
    {
    case STRATA_ACTIVITY_TASK:
    case STRATA_ACTIVITY_IRQ:
    case STRATA_ACTIVITY_SOFTIRQ:
      return item->label;

    case STRATA_ACTIVITY_STATE:
      if (item->state == STRATA_TASK_STATE_RUNNING && item->arg >= 0)
        return GPOINTER_TO_UINT (g_hash_table_lookup (self->cpu_names,
                                                      strata_painter_cpu_key (channel->instance, item->arg)));
      return STRATA_STRING_NONE;

    default:
      return STRATA_STRING_NONE;
    }
}
