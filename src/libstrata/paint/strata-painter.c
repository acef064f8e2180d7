/* strata-painter.c
 *
 * How a frame is painted. The rows that fit in the viewport are queried
 * from the zoom tree in one call, at the finest level whose pixel is at
 * least the screen's (strata_zoom_geometry_level_for_frame()). Every item of a row is then folded into the pixel
 * columns it covers, in one of three lanes: the row's main lane (a CPU's
 * tasks, a thread's states), the nested lane (interrupts inside a task,
 * drawn as a band at the bottom of a CPU row) and the instants (wakeups,
 * events, deaths, drawn as ticks at the top).
 *
 * A column keeps the few colours that cover most of it and how much of
 * it they cover. Background colours (idle, sleeping, unknown) fill the
 * lane; foreground colours (a task, running, runnable, blocked, an IRQ)
 * are stacked from the bottom to a height that is the share of the pixel
 * they cover. An aggregate of trivial activities counts for its busy time,
 * not its span, so a zoomed-out CPU that runs 10% of the time shows short
 * bars and a saturated one full ones. Adjacent columns that come out the
 * same are merged into one rectangle, so the display list grows with
 * pixels times rows whatever the number of activities.
 *
 * The fold and the emission run for every item and every column of a
 * dense frame, so they have a fast form (fold_items(), emit_lane_fast())
 * beside the painter's first, item by item (paint_item(), emit_lane()),
 * which is kept as their oracle: both give the same display list, bit for
 * bit, and test-painter-fold compares them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata-painter.h"
#include "strata-painter-private.h"
#include "strata-zoom-chunk.h"

#define N_FG_SLOTS       3
#define N_BG_SLOTS       2
#define MIN_LABEL_WIDTH  40.0
#define HATCH_PERIOD     6
#define HATCH_WIDTH      2
#define TICK_MIN_SPACING 90.0
/* The painter cannot measure text: this guesses the width of a label in
 * the small fonts clients use, with some room to spare. */
#define TEXT_WIDTH(s)    (6.5f * g_utf8_strlen ((s), -1) + 6)
#define TASK_COLOR_CACHE 256
/* A span shorter than this is folded whole, without cutting its lanes. */
#define MIN_SPAN_CUT     64
/* Small enough to lose to any real foreground in a column. */
#define BRIEF_COVER      1e-4

typedef enum
{
  LANE_MAIN,
  LANE_NESTED,
  LANE_INSTANTS,
  N_LANES
} Lane;

/* Drawing order within a row: each layer's rectangles go to the display
 * list after the previous layer's, so merging runs never reorders them. */
typedef enum
{
  LAYER_BACKGROUND,
  LAYER_HATCH,
  LAYER_FOREGROUND,
  LAYER_NESTED,
  LAYER_TICKS,
  N_LAYERS
} LayerId;

typedef struct
{
  guint32 background;
  guint32 stripe;
  guint32 group;
  guint32 separator;
  guint32 grid;
  guint32 ruler;
  guint32 text;
  guint32 text_dim;
  guint32 states[STRATA_N_TASK_STATES];
  guint32 unknown_stripe;
  guint32 irq;
  guint32 softirq;
  guint32 wakeup;
  guint32 event;
  guint32 brief;
  float   task_saturation;
  float   task_lightness;
} Scheme;

static const Scheme schemes[] = {
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

typedef struct
{
  guint32 rgba;
  float   cover;   /* of the column, 1.0 being all of it */
} Slot;

/* What classify() says of every item of one kind and state, found once
 * per scheme, so the fold looks it up instead of working it out again
 * for each of the hundreds of thousands of items of a dense frame. */
typedef struct
{
  guint32 rgba;
  float   weight;
  guint8  klass;     /* ItemClass */
  guint8  lane;      /* Lane at depth 0 */
  guint8  by_depth;  /* LANE_NESTED at any depth above 0 */
  guint8  task;      /* the colour is the tid's, not rgba */
} KindClass;

#define CLASS_KINDS  16
#define CLASS_STATES 16

typedef struct
{
  Slot  fg[N_FG_SLOTS];
  Slot  bg[N_BG_SLOTS];
  float fg_total;
  float bg_total;
} Column;

typedef struct
{
  Column *columns;
  gint    lo;      /* the columns touched, [lo, hi) */
  gint    hi;
} LaneColumns;

typedef struct
{
  gint32  x0;
  gint32  x1;
  float   y;
  float   h;
  guint32 rgba;
} Run;

/* A layer's open runs: those the column before left open (closing
 * drops the rest) and this column's puts, at most N_FG_SLOTS each. */
#define MAX_OPEN_RUNS (2 * N_FG_SLOTS)

typedef struct
{
  Run     open[MAX_OPEN_RUNS];  /* extended while the next column matches */
  guint   n_open;
  GArray *done;    /* StrataPaintRect, in frame coordinates: n_done of
                    * them, the length being what is reserved */
  guint   n_done;
} Layer;

struct _StrataPainter
{
  StrataStringPool    *strings;
  StrataZoomTree      *tree;
  StrataTrace         *trace;      /* keeps the tree alive when made for one */
  const StrataChannel *channels;
  guint                n_channels;
  gint64               start;
  gint64               end;
  StrataPaintStyle     style;
  GArray              *rows;       /* guint32 channel */
  GArray              *indents;    /* guint8 per row: 1 for a thread under its process */
  GPtrArray           *instances;  /* char *: buffer instance names, [0] = "" (top) */
  GArray              *names;      /* guint32 per channel: the name a row shows */
  GHashTable          *cpu_names;  /* instance << 16 | cpu -> pool id */

  /* Scratch kept from one frame to the next. */
  GArray              *query;      /* guint32 */
  StrataZoomResult    *result;     /* the frame's query */
  GArray              *row_of;     /* gint32 per channel: its visible row, or -1 */
  LaneColumns          lanes[N_LANES];
  guint                n_columns;
  Layer                layers[N_LAYERS];

  /* Rows made of several channels (strata_painter_set_row_members). */
  GHashTable          *members;    /* row channel -> GArray of guint32 channels */
  gboolean             merging;    /* painting one: no labels inside it */

  /* Task colours by tid, direct-mapped: a zoomed-out CPU row has
   * thousands of task items a frame, and a colour costs an fmod and an
   * HSL conversion. */
  struct { gint32 tid; guint32 rgba; } task_colors[TASK_COLOR_CACHE];
  StrataPaintScheme    task_colors_scheme;

  /* Where an item goes, by kind and state, for the current scheme
   * (build_classes()); classes_scheme is -1 until built. */
  KindClass            classes[CLASS_KINDS * CLASS_STATES];
  gint                 classes_scheme;
  gboolean             reference_fold;  /* paint_item() for every item */
  gboolean             timed;           /* fold_ns and emit_ns are measured */
  gint64               fold_ns;         /* in the last frame, the rows' folds */
  gint64               emit_ns;         /* and their lanes' emission */
};

/* Geometry of one row's lanes, in frame coordinates. */
typedef struct
{
  float main_y;
  float main_h;
  float nested_y;
  float nested_h;
  float ticks_y;
  float ticks_h;
  float clip_y0;
  float clip_y1;
} RowGeometry;

static inline float
channel_of (guint32 rgba,
            guint   shift)
{
  return ((rgba >> shift) & 0xff) / 255.f;
}

static inline guint32
rgba_alpha (guint32 rgba)
{
  return rgba & 0xff;
}

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
  const Scheme *s = &schemes[scheme == STRATA_PAINT_SCHEME_DARK];
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
  const Scheme *s = &schemes[scheme == STRATA_PAINT_SCHEME_DARK];

  if ((guint) state >= STRATA_N_TASK_STATES)
    state = STRATA_TASK_STATE_UNKNOWN;
  return s->states[state];
}

/* Dark text on light colours, light text on dark ones. */
static guint32
text_color_on (guint32 rgba)
{
  float luma = 0.2126f * channel_of (rgba, 24) + 0.7152f * channel_of (rgba, 16) +
               0.0722f * channel_of (rgba, 8);

  return luma > 0.55f ? 0x1a1a1aff : 0xffffffff;
}

/* Time and text helpers ------------------------------------------------- */

static gint64
floor_div (gint64 a,
           gint64 b)
{
  gint64 q = a / b;

  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

static gint64
unit_for (gint64 magnitude)
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
  gint64 unit = unit_for (magnitude);
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
  relative = decimals_for (unit_for (magnitude), step) > 3;

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

StrataDisplayList *
strata_display_list_new (void)
{
  StrataDisplayList *self = g_new0 (StrataDisplayList, 1);

  self->rects = g_array_new (FALSE, FALSE, sizeof (StrataPaintRect));
  self->texts = g_array_new (FALSE, FALSE, sizeof (StrataPaintText));
  self->rows = g_array_new (FALSE, FALSE, sizeof (StrataPaintRow));
  self->ticks = g_array_new (FALSE, FALSE, sizeof (StrataPaintTick));
  self->strings = g_string_chunk_new (4096);

  return self;
}

/* Empties the list and keeps its memory for the next frame. */
void
strata_display_list_clear (StrataDisplayList *self)
{
  g_return_if_fail (self != NULL);

  g_array_set_size (self->rects, 0);
  g_array_set_size (self->texts, 0);
  g_array_set_size (self->rows, 0);
  g_array_set_size (self->ticks, 0);
  g_string_chunk_clear (self->strings);
  self->n_items = 0;
  self->n_folded = 0;
  self->level = 0;
  memset (&self->stats, 0, sizeof self->stats);
}

void
strata_display_list_free (StrataDisplayList *self)
{
  if (self == NULL)
    return;

  g_array_unref (self->rects);
  g_array_unref (self->texts);
  g_array_unref (self->rows);
  g_array_unref (self->ticks);
  g_string_chunk_free (self->strings);
  g_free (self);
}

/* Where @t is drawn, in frame coordinates. */
float
strata_display_list_x_for_time (const StrataDisplayList *self,
                                 gint64                   t)
{
  g_return_val_if_fail (self != NULL, 0);

  if (self->ns_per_pixel <= 0)
    return self->area_x;
  return self->area_x + (float) ((t - self->from) / self->ns_per_pixel);
}

/**
 * strata_display_list_find_row:
 *
 * Returns: (nullable): where @channel's row is, if it is visible
 */
const StrataPaintRow *
strata_display_list_find_row (const StrataDisplayList *self,
                              guint32                  channel)
{
  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; i < self->rows->len; i++)
    {
      const StrataPaintRow *row = &g_array_index (self->rows, StrataPaintRow, i);

      if (row->channel == channel)
        return row;
    }
  return NULL;
}

static void
add_rect (StrataDisplayList *list,
          float              x,
          float              y,
          float              w,
          float              h,
          guint32            rgba)
{
  StrataPaintRect r = { x, y, w, h, rgba };

  if (w > 0 && h > 0 && rgba_alpha (rgba) > 0)
    g_array_append_val (list->rects, r);
}

static void
add_text (StrataDisplayList *list,
          float              x,
          float              y,
          float              max_width,
          guint32            rgba,
          guint32            string,
          const char        *text,
          StrataPaintTextRole role,
          StrataPaintAlign   align)
{
  StrataPaintText t = { 0 };

  if (text == NULL || text[0] == '\0' || max_width < 8)
    return;

  t.x = x;
  t.y = y;
  t.max_width = max_width;
  t.rgba = rgba;
  t.string = string;
  t.text = text;
  t.role = role;
  t.align = align;
  g_array_append_val (list->texts, t);
}

static void
add_own_text (StrataDisplayList  *list,
              float               x,
              float               y,
              float               max_width,
              guint32             rgba,
              const char         *text,
              StrataPaintTextRole role,
              StrataPaintAlign    align)
{
  add_text (list, x, y, max_width, rgba, STRATA_STRING_NONE,
            g_string_chunk_insert (list->strings, text), role, align);
}

/* The painter -------------------------------------------------------------- */

/**
 * strata_paint_style_init:
 *
 * The default frame: 20-pixel rows, a 190-pixel name column, a ruler and
 * a legend, light colours.
 */
void
strata_paint_style_init (StrataPaintStyle *style)
{
  g_return_if_fail (style != NULL);

  style->row_height = 20;
  style->name_width = 190;
  style->ruler_height = 24;
  style->legend_height = 22;
  style->scheme = STRATA_PAINT_SCHEME_LIGHT;
}

/**
 * strata_painter_new:
 * @strings: the pool the channels' and activities' labels are in
 * @tree: the zoom tree to draw; it must outlive the painter
 *
 * Give it the channels with strata_painter_set_channels(), the trace's
 * span with strata_painter_set_extent() and rows with
 * strata_painter_set_rows().
 */
StrataPainter *
strata_painter_new (StrataStringPool *strings,
                    StrataZoomTree   *tree)
{
  StrataPainter *self;

  g_return_val_if_fail (strings != NULL && tree != NULL, NULL);

  self = g_new0 (StrataPainter, 1);
  self->strings = strata_string_pool_ref (strings);
  self->tree = tree;
  strata_paint_style_init (&self->style);
  self->rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->indents = g_array_new (FALSE, FALSE, sizeof (guint8));
  self->instances = g_ptr_array_new_with_free_func (g_free);
  self->names = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->cpu_names = g_hash_table_new (NULL, NULL);
  self->classes_scheme = -1;
  self->query = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->result = strata_zoom_result_new ();
  self->row_of = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint i = 0; i < N_LAYERS; i++)
    {
      self->layers[i].done = g_array_new (FALSE, FALSE, sizeof (StrataPaintRect));
    }
  self->members = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);

  return self;
}

/**
 * strata_painter_new_for_trace:
 * @trace: a trace loaded with its zoom tree
 *
 * A painter for @trace's channels, span and tree, showing the default
 * rows. It holds a reference on @trace.
 */
StrataPainter *
strata_painter_new_for_trace (StrataTrace *trace)
{
  g_autoptr(GArray) rows = NULL;
  StrataZoomTree *tree;
  StrataPainter *self;
  const StrataSourceInfo *info;
  const StrataChannel *channels;
  guint n_channels;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);
  tree = strata_trace_get_zoom_tree (trace);
  g_return_val_if_fail (tree != NULL, NULL);

  self = strata_painter_new (strata_trace_get_strings (trace), tree);
  self->trace = g_object_ref (trace);
  info = strata_trace_get_info (trace);
  if (info != NULL && info->instances != NULL)
    for (guint i = 0; i < info->instances->len; i++)
      g_ptr_array_add (self->instances, g_strdup (g_ptr_array_index (info->instances, i)));
  channels = strata_trace_get_channels (trace, &n_channels);
  strata_painter_set_channels (self, channels, n_channels);
  strata_painter_set_extent (self, strata_trace_get_start (trace), strata_trace_get_end (trace));

  rows = strata_painter_default_rows (self);
  strata_painter_set_rows (self, (const guint32 *)(gpointer) rows->data, rows->len);

  return self;
}

void
strata_painter_free (StrataPainter *self)
{
  if (self == NULL)
    return;

  for (guint i = 0; i < N_LAYERS; i++)
    {
      g_array_unref (self->layers[i].done);
    }
  for (guint i = 0; i < N_LANES; i++)
    g_free (self->lanes[i].columns);
  g_array_unref (self->rows);
  g_array_unref (self->indents);
  g_ptr_array_unref (self->instances);
  g_array_unref (self->names);
  g_hash_table_unref (self->cpu_names);
  g_array_unref (self->query);
  strata_zoom_result_free (self->result);
  g_array_unref (self->row_of);
  g_hash_table_unref (self->members);
  strata_string_pool_unref (self->strings);
  g_clear_object (&self->trace);
  g_free (self);
}

static gpointer
cpu_key (guint16 instance,
         gint32  cpu)
{
  return GUINT_TO_POINTER (((guint) instance << 16) | ((guint) cpu & 0xffff));
}

/**
 * strata_painter_set_channels:
 * @channels: (array length=n_channels): the trace's channels; not copied,
 *   so call this again when they grow
 *
 * A process row is named after its main thread (the kernel model knows a
 * process by its pid only), and a thread's running spans are labelled
 * with the CPU's row name.
 */
void
strata_painter_set_channels (StrataPainter       *self,
                             const StrataChannel *channels,
                             guint                n_channels)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (channels != NULL || n_channels == 0);

  self->channels = channels;
  self->n_channels = n_channels;

  g_array_set_size (self->names, n_channels);
  g_hash_table_remove_all (self->cpu_names);

  for (guint i = 0; i < n_channels; i++)
    {
      g_array_index (self->names, guint32, i) = channels[i].name;
      if (channels[i].kind == STRATA_CHANNEL_CPU)
        g_hash_table_insert (self->cpu_names, cpu_key (channels[i].instance, channels[i].id),
                             GUINT_TO_POINTER (channels[i].name));
    }

  for (guint i = 0; i < n_channels; i++)
    {
      const StrataChannel *t = &channels[i];
      guint32 *name;

      if (t->kind != STRATA_CHANNEL_THREAD || t->parent >= n_channels)
        continue;

      name = &g_array_index (self->names, guint32, t->parent);
      if (channels[t->parent].name == STRATA_STRING_NONE &&
          (*name == STRATA_STRING_NONE || t->id == channels[t->parent].id))
        *name = t->name;
    }

  g_array_set_size (self->row_of, n_channels);
  for (guint i = 0; i < n_channels; i++)
    g_array_index (self->row_of, gint32, i) = -1;
}

/* The trace's span: time zero of the ruler, and what the default rows
 * look at to leave out threads with nothing to show. */
void
strata_painter_set_extent (StrataPainter *self,
                           gint64         start,
                           gint64         end)
{
  g_return_if_fail (self != NULL);

  self->start = start;
  self->end = MAX (start, end);
}

void
strata_painter_set_style (StrataPainter          *self,
                          const StrataPaintStyle *style)
{
  g_return_if_fail (self != NULL && style != NULL);

  self->style = *style;
  self->style.row_height = MAX (self->style.row_height, 4);
  if (self->style.scheme != STRATA_PAINT_SCHEME_DARK)
    self->style.scheme = STRATA_PAINT_SCHEME_LIGHT;
}

const StrataPaintStyle *
strata_painter_get_style (StrataPainter *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return &self->style;
}

/**
 * strata_painter_set_rows:
 * @channels: (array length=n_rows): the channels to show, top to bottom
 *
 * Call it after strata_painter_set_channels(): a thread is indented
 * when its process's row heads it.
 */
void
strata_painter_set_rows (StrataPainter *self,
                         const guint32 *channels,
                         guint          n_rows)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (channels != NULL || n_rows == 0);

  g_array_set_size (self->rows, 0);
  g_array_append_vals (self->rows, channels, n_rows);

  /* A thread is indented under its process only where the process's row
   * is there to head it. */
  g_array_set_size (self->indents, n_rows);
  for (guint i = 0; i < n_rows; i++)
    {
      const StrataChannel *ch = channels[i] < self->n_channels ? &self->channels[channels[i]] : NULL;
      guint8 indent = 0;

      if (ch != NULL && ch->kind == STRATA_CHANNEL_THREAD && ch->parent < self->n_channels)
        for (guint j = i; j-- > 0; )
          {
            const StrataChannel *above = channels[j] < self->n_channels ? &self->channels[channels[j]] : NULL;

            if (channels[j] == ch->parent)
              indent = 1;
            if (above == NULL || above->kind != STRATA_CHANNEL_THREAD || above->parent != ch->parent)
              break;
          }
      g_array_index (self->indents, guint8, i) = indent;
    }
}

const guint32 *
strata_painter_get_rows (StrataPainter *self,
                         guint         *n_rows)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (n_rows != NULL)
    *n_rows = self->rows->len;
  return (const guint32 *)(gpointer) self->rows->data;
}

static int
by_instance_and_id (gconstpointer pa,
                    gconstpointer pb,
                    gpointer      user_data)
{
  const StrataChannel *channels = user_data;
  const StrataChannel *a = &channels[*(const guint32 *) pa];
  const StrataChannel *b = &channels[*(const guint32 *) pb];

  if (a->instance != b->instance)
    return a->instance < b->instance ? -1 : 1;
  if (a->id != b->id)
    return a->id < b->id ? -1 : 1;
  if (a->generation != b->generation)
    return a->generation < b->generation ? -1 : 1;
  return 0;
}

/* The threads whose rows would show something other than "unknown": one
 * query of the coarsest level over the whole trace. */
static guint8 *
threads_with_something (StrataPainter *self)
{
  g_autoptr(GArray) query = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  StrataZoomGeometry g;
  guint8 *shown = g_new0 (guint8, self->n_channels + 1);

  for (guint32 i = 0; i < self->n_channels; i++)
    if (self->channels[i].kind == STRATA_CHANNEL_THREAD)
      g_array_append_val (query, i);

  if (!strata_zoom_tree_get_geometry (self->tree, &g) || self->end <= self->start)
    {
      memset (shown, 1, self->n_channels);
      return shown;
    }

  strata_zoom_tree_query (self->tree, 0, self->start, self->end + 1,
                          (const guint32 *)(gpointer) query->data, query->len, items, NULL);

  for (guint i = 0; i < items->len; i++)
    {
      const StrataZoomItem *item = &g_array_index (items, StrataZoomItem, i);

      if (item->channel < self->n_channels &&
          !(item->kind == STRATA_ACTIVITY_STATE && item->state == STRATA_TASK_STATE_UNKNOWN))
        shown[item->channel] = 1;
    }

  return shown;
}

/**
 * strata_painter_default_rows:
 *
 * The rows a timeline starts with: the CPUs, then each process followed
 * by its threads, then the threads whose process is not known, each group
 * by id. Threads with nothing known of them but that they exist are left
 * out, and so are processes left with no thread.
 *
 * Returns: (transfer full) (element-type guint32): channel ids
 */
GArray *
strata_painter_default_rows (StrataPainter *self)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) cpus = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) processes = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) threads = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree guint8 *shown = NULL;
  g_autofree guint32 *head = NULL;
  g_autofree guint32 *next = NULL;

  g_return_val_if_fail (self != NULL, rows);

  if (self->n_channels == 0)
    return rows;

  for (guint32 i = 0; i < self->n_channels; i++)
    {
      switch (self->channels[i].kind)
        {
        case STRATA_CHANNEL_CPU:
          g_array_append_val (cpus, i);
          break;
        case STRATA_CHANNEL_PROCESS:
          g_array_append_val (processes, i);
          break;
        case STRATA_CHANNEL_THREAD:
        default:
          g_array_append_val (threads, i);
          break;
        }
    }

  g_array_sort_with_data (cpus, by_instance_and_id, (gpointer) self->channels);
  g_array_sort_with_data (processes, by_instance_and_id, (gpointer) self->channels);
  g_array_sort_with_data (threads, by_instance_and_id, (gpointer) self->channels);

  shown = threads_with_something (self);

  /* Each process's shown threads as a list in tid order: pushed from the
   * back of the sorted threads, so each list comes out front to back. */
  head = g_new (guint32, self->n_channels);
  next = g_new (guint32, self->n_channels);
  for (guint i = 0; i < self->n_channels; i++)
    head[i] = STRATA_CHANNEL_NONE;
  for (guint t = threads->len; t-- > 0; )
    {
      guint32 tc = g_array_index (threads, guint32, t);
      guint32 parent = self->channels[tc].parent;

      if (shown[tc] && parent < self->n_channels &&
          self->channels[parent].kind == STRATA_CHANNEL_PROCESS)
        {
          next[tc] = head[parent];
          head[parent] = tc;
        }
    }

  g_array_append_vals (rows, cpus->data, cpus->len);

  for (guint p = 0; p < processes->len; p++)
    {
      guint32 pc = g_array_index (processes, guint32, p);

      if (head[pc] == STRATA_CHANNEL_NONE)
        continue;
      /* A process of one thread is that thread's row alone: a heading
       * over a single row says nothing the row does not. */
      if (next[head[pc]] != STRATA_CHANNEL_NONE)
        g_array_append_val (rows, pc);
      for (guint32 tc = head[pc]; tc != STRATA_CHANNEL_NONE; tc = next[tc])
        g_array_append_val (rows, tc);
    }

  for (guint t = 0; t < threads->len; t++)
    {
      guint32 tc = g_array_index (threads, guint32, t);
      guint32 parent = self->channels[tc].parent;

      if (shown[tc] &&
          (parent >= self->n_channels || self->channels[parent].kind != STRATA_CHANNEL_PROCESS))
        g_array_append_val (rows, tc);
    }

  return rows;
}

/* Columns --------------------------------------------------------------- */

static void
slot_add (Slot    *slots,
          guint    n_slots,
          guint32  rgba,
          float    cover)
{
  guint smallest = 0;

  for (guint i = 0; i < n_slots; i++)
    if (slots[i].cover > 0 && slots[i].rgba == rgba)
      {
        slots[i].cover += cover;
        return;
      }

  /* A free slot, or the smallest one if this beats it: the column keeps
   * the colours that cover most of it. */
  for (guint i = 0; i < n_slots; i++)
    {
      if (slots[i].cover <= 0)
        {
          slots[i].rgba = rgba;
          slots[i].cover = cover;
          return;
        }
      if (slots[i].cover < slots[smallest].cover)
        smallest = i;
    }

  if (cover > slots[smallest].cover)
    {
      slots[smallest].rgba = rgba;
      slots[smallest].cover = cover;
    }
}

static void
lane_touch (LaneColumns *lane,
            gint         c0,
            gint         c1)
{
  lane->lo = MIN (lane->lo, c0);
  lane->hi = MAX (lane->hi, c1);
}

/* Spreads an interval over the columns it covers, at @density of each. */
static void
lane_add_interval (LaneColumns *lane,
                   guint        width,
                   double       x0,
                   double       x1,
                   double       density,
                   gboolean     background,
                   guint32      rgba)
{
  gint c0, c1;

  if (x1 <= 0 || x0 >= width || x1 <= x0)
    return;

  x0 = MAX (x0, 0);
  x1 = MIN (x1, (double) width);
  c0 = (gint) x0;
  c1 = MIN ((gint) ceil (x1), (gint) width);
  if (c1 <= c0)
    c1 = c0 + 1;

  for (gint c = c0; c < c1; c++)
    {
      Column *col = &lane->columns[c];
      float cover = (float) ((MIN (x1, c + 1.0) - MAX (x0, (double) c)) * density);

      if (cover <= 0)
        cover = 1e-6f;
      if (background)
        {
          slot_add (col->bg, N_BG_SLOTS, rgba, cover);
          col->bg_total += cover;
        }
      else
        {
          slot_add (col->fg, N_FG_SLOTS, rgba, cover);
          col->fg_total += cover;
        }
    }

  lane_touch (lane, c0, c1);
}

static void
lane_add_instant (LaneColumns *lane,
                  guint        width,
                  double       x,
                  float        weight,
                  guint32      rgba)
{
  gint c;

  if (x < 0 || x >= width)
    return;

  c = (gint) x;
  slot_add (lane->columns[c].fg, N_FG_SLOTS, rgba, weight);
  lane->columns[c].fg_total += weight;
  lane_touch (lane, c, c + 1);
}

/* Layers: runs of identical columns become one rectangle ---------------- */

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
static void
layers_flush (StrataPainter     *self,
              StrataDisplayList *list)
{
  for (guint i = 0; i < N_LAYERS; i++)
    {
      Layer *layer = &self->layers[i];

      g_array_append_vals (list->rects, layer->done->data, layer->n_done);
      layer->n_done = 0;
    }
}

/* roundf() for the small non-negative and negative values here, without
 * a call: x minus its truncation is exact, so this rounds half away from
 * zero exactly as roundf() does. */
static inline float
round_half_away (float x)
{
  float t;

  if (!(fabsf (x) < 8388608.f))
    return roundf (x);
  t = (float) (gint32) x;
  if (fabsf (x - t) >= 0.5f)
    t += x < 0 ? -1.f : 1.f;
  return t;
}

/* round_half_away() without a branch on which way it rounds (half the
 * columns of a dense row go each way): the step of +-1 is masked to +0
 * in its bits where it is not taken (a multiply by 0 or 1 became a
 * branch again), and t + 0 is t, t never being -0 (an int converts to
 * +0). */
static inline float
round_half_away_flat (float x)
{
  float t, step;
  guint32 bits, mask;

  if (G_UNLIKELY (!(fabsf (x) < 8388608.f)))
    return roundf (x);
  t = (float) (gint32) x;
  step = copysignf (1.f, x);
  mask = 0u - (guint32) (fabsf (x - t) >= 0.5f);
  memcpy (&bits, &step, sizeof bits);
  bits &= mask;
  memcpy (&step, &bits, sizeof step);
  return t + step;
}

static void
layer_emit (StrataPainter *self,
            Layer         *layer,
            const Run     *run,
            float          area_x,
            float          clip_y0,
            float          clip_y1)
{
  const Scheme *s = &schemes[self->style.scheme];
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

static void
layer_put (Layer   *layer,
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
static void
layer_close (StrataPainter *self,
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
        layer_emit (self, layer, &run, area_x, clip_y0, clip_y1);
    }
  layer->n_open = kept;
}

/* Room for @n more rectangles in @layer, made once before a lane's
 * columns, so run_emit() needs no check. */
static inline void
layer_reserve (Layer *layer,
               guint  n)
{
  if (layer->n_done + n > layer->done->len)
    g_array_set_size (layer->done, MAX (layer->done->len * 2, layer->n_done + n));
}

/* layer_emit() for a layer that is not the background (so never
 * hatched), into room made by layer_reserve(): the same rectangle from
 * the same operations. */
static G_ALWAYS_INLINE inline void
run_emit (Layer     *layer,
          const Run *run,
          float      area_x,
          float      clip_y0,
          float      clip_y1)
{
  float y0 = MAX (run->y, clip_y0);
  float y1 = MIN (run->y + run->h, clip_y1);
  StrataPaintRect *r;

  if (y1 <= y0)
    return;

  g_assert (layer->n_done < layer->done->len);
  r = &g_array_index (layer->done, StrataPaintRect, layer->n_done++);
  r->x = area_x + run->x0;
  r->y = y0;
  r->w = run->x1 - run->x0;
  r->h = y1 - y0;
  r->rgba = run->rgba;
}

static int
by_cover_descending (gconstpointer pa,
                     gconstpointer pb)
{
  const Slot *a = pa, *b = pb;

  if (a->cover != b->cover)
    return a->cover > b->cover ? -1 : 1;
  return a->rgba < b->rgba ? -1 : a->rgba > b->rgba;
}

static inline float
column_foreground_height (const Column *col,
                          float         lane_h)
{
  float height;

  if (col->fg_total <= 0)
    return 0;
  height = round_half_away (MIN (col->fg_total, 1.f) * lane_h);
  return CLAMP (height, MIN (2.f, lane_h), lane_h);
}

/* The foreground of a column: its colours stacked from the bottom of the
 * lane, the one covering most at the bottom, as high in all as the share
 * of the pixel they cover (at least 2 pixels, so nothing vanishes). */
static void
stack_column (Layer        *layer,
              gint32        x,
              const Column *col,
              float         lane_y,
              float         lane_h,
              float         height)
{
  Slot slots[N_FG_SLOTS];
  guint n = 0;
  float sum = 0, acc = 0, prev = 0;

  for (guint i = 0; i < N_FG_SLOTS; i++)
    if (col->fg[i].cover > 0)
      {
        slots[n++] = col->fg[i];
        sum += col->fg[i].cover;
      }
  if (n == 0)
    return;

  /* One colour, the usual case: the loop below for one slot (the same
   * float operations, so the same pixels), without the sort. */
  if (n == 1)
    {
      float top = round_half_away (height * sum / sum);

      if (top > 0)
        layer_put (layer, x, lane_y + lane_h - top, top, slots[0].rgba);
      return;
    }

  /* At most N_FG_SLOTS: an insertion sort, not qsort's call per
   * comparison (this runs for every column of every row). */
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && by_cover_descending (&slots[j], &slots[j - 1]) < 0; j--)
      {
        Slot t = slots[j];

        slots[j] = slots[j - 1];
        slots[j - 1] = t;
      }

  for (guint i = 0; i < n; i++)
    {
      float top;

      acc += slots[i].cover;
      top = round_half_away (height * acc / sum);
      if (top > prev)
        layer_put (layer, x, lane_y + lane_h - top, top - prev, slots[i].rgba);
      prev = top;
    }
}

static inline const Slot *
biggest_slot (const Slot *slots,
              guint       n_slots)
{
  const Slot *best = NULL;

  for (guint i = 0; i < n_slots; i++)
    if (slots[i].cover > 0 && (best == NULL || slots[i].cover > best->cover))
      best = &slots[i];
  return best;
}

static void
emit_lane (StrataPainter     *self,
           Lane               which,
           const RowGeometry *geo,
           float              area_x)
{
  LaneColumns *lane = &self->lanes[which];
  Layer *bg = &self->layers[LAYER_BACKGROUND];
  Layer *fg = &self->layers[which == LANE_MAIN ? LAYER_FOREGROUND : LAYER_NESTED];
  Layer *ticks = &self->layers[LAYER_TICKS];
  Column prev;
  gboolean have_prev = FALSE;

  for (gint x = lane->lo; x < lane->hi; x++)
    {
      Column *col = &lane->columns[x];

      /* A column like the one before it puts the same rectangles, so it
       * only extends the runs the one before left open (closing already
       * removed every other): an activity many pixels wide costs one
       * comparison per pixel, not a fold. */
      if (have_prev && memcmp (col, &prev, sizeof prev) == 0)
        {
          Layer *used[] = { bg, fg, ticks };
          gint x_end = x + 1;

          /* The whole stretch of such columns at once. */
          while (x_end < lane->hi && memcmp (&lane->columns[x_end], &prev, sizeof prev) == 0)
            x_end++;

          for (guint i = 0; i < G_N_ELEMENTS (used); i++)
            for (guint r = 0; r < used[i]->n_open; r++)
              {
                Run *run = &used[i]->open[r];

                if (run->x1 == x)
                  run->x1 = x_end;
              }
          x = x_end - 1;
          continue;
        }
      prev = *col;
      have_prev = TRUE;

      switch (which)
        {
        case LANE_MAIN:
          {
            float fg_h = column_foreground_height (col, geo->main_h);
            const Slot *b = biggest_slot (col->bg, N_BG_SLOTS);

            if (b != NULL && fg_h < geo->main_h)
              layer_put (bg, x, geo->main_y, geo->main_h, b->rgba);
            stack_column (fg, x, col, geo->main_y, geo->main_h, fg_h);
            layer_close (self, bg, x, area_x, geo->clip_y0, geo->clip_y1);
            layer_close (self, fg, x, area_x, geo->clip_y0, geo->clip_y1);
          }
          break;

        case LANE_NESTED:
          stack_column (fg, x, col, geo->nested_y, geo->nested_h,
                        column_foreground_height (col, geo->nested_h));
          layer_close (self, fg, x, area_x, geo->clip_y0, geo->clip_y1);
          break;

        case LANE_INSTANTS:
        case N_LANES:
        default:
          {
            const Slot *t = biggest_slot (col->fg, N_FG_SLOTS);

            if (t != NULL)
              layer_put (ticks, x, geo->ticks_y, geo->ticks_h, t->rgba);
            layer_close (self, ticks, x, area_x, geo->clip_y0, geo->clip_y1);
          }
          break;
        }
    }

  /* The next row starts from empty columns: one clearing of the columns
   * touched, not a call for each. */
  if (lane->lo < lane->hi)
    memset (&lane->columns[lane->lo], 0, (gsize) (lane->hi - lane->lo) * sizeof (Column));

  for (guint i = 0; i < N_LAYERS; i++)
    layer_close (self, &self->layers[i], -1, area_x, geo->clip_y0, geo->clip_y1);

  lane->lo = G_MAXINT;
  lane->hi = G_MININT;
}

/* emit_lane() with what it calls made in place: the background and the
 * ticks put at most one rectangle a column, so each keeps at most one
 * open run, extended or ended at the next column without a search; a
 * column is compared with the one before it in place, not with a copy.
 * The same rectangles in the same order, from the same values (where an
 * operation is left out, it is one whose result is known, as said there);
 * emit_lane() stays as the reference (strata_painter_set_reference_fold()). */

/* biggest_slot() for slots in use first (as the fold leaves them), by
 * index, the first of equals, without a branch per slot: NULL when the
 * first is free. */
static inline const Slot *
biggest_flat (const Slot *slots,
              guint       n_slots)
{
  guint best = 0;

  for (guint i = 1; i < n_slots; i++)
    best = slots[i].cover > slots[best].cover ? i : best;
  return slots[0].cover > 0 ? &slots[best] : NULL;
}

/* column_foreground_height() with round_half_away_flat(). */
static inline float
fg_height (const Column *col,
           float         lane_h)
{
  float height;

  if (col->fg_total <= 0)
    return 0;
  height = round_half_away_flat (MIN (col->fg_total, 1.f) * lane_h);
  return CLAMP (height, MIN (2.f, lane_h), lane_h);
}

/* layer_put() and then layer_close() at column @x, for a layer that gets
 * at most this one put a column; @put FALSE for none. The background's
 * runs are emitted with layer_emit() (which hatches), the ticks' with
 * run_emit(). */
static G_ALWAYS_INLINE inline void
single_put (StrataPainter *self,
            Layer         *layer,
            gboolean       background,
            gboolean       put,
            gint32         x,
            float          y,
            float          h,
            guint32        rgba,
            float          area_x,
            float          clip_y0,
            float          clip_y1)
{
  Run *open = &layer->open[0];

  put = put && h > 0 && rgba_alpha (rgba) != 0;
  if (layer->n_open == 1)
    {
      if (put && open->x1 == x && open->y == y && open->h == h && open->rgba == rgba)
        {
          open->x1 = x + 1;
          return;
        }
      if (background)
        layer_emit (self, layer, open, area_x, clip_y0, clip_y1);
      else
        run_emit (layer, open, area_x, clip_y0, clip_y1);
      layer->n_open = 0;
    }
  if (put)
    {
      open->x0 = x;
      open->x1 = x + 1;
      open->y = y;
      open->h = h;
      open->rgba = rgba;
      layer->n_open = 1;
    }
}

static G_ALWAYS_INLINE inline void
fg_put (Layer   *layer,
        gint32   x,
        float    y,
        float    h,
        guint32  rgba)
{
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
  layer->open[layer->n_open].x0 = x;
  layer->open[layer->n_open].x1 = x + 1;
  layer->open[layer->n_open].y = y;
  layer->open[layer->n_open].h = h;
  layer->open[layer->n_open].rgba = rgba;
  layer->n_open++;
}

/* layer_close() at column @x >= 0 for a layer that is not the
 * background, in one pass: the runs column @x did not extend are emitted
 * in the order they are open, the others stay open in theirs. */
static G_ALWAYS_INLINE inline void
fg_close (Layer  *layer,
          gint32  x,
          float   area_x,
          float   clip_y0,
          float   clip_y1)
{
  guint kept = 0, n = layer->n_open;

  for (guint i = 0; i < n; i++)
    {
      if (layer->open[i].x1 == x + 1)
        layer->open[kept++] = layer->open[i];
      else
        run_emit (layer, &layer->open[i], area_x, clip_y0, clip_y1);
    }
  layer->n_open = kept;
}

/* Orders two slots as by_cover_descending() does, without its branches
 * (which way it goes is a coin toss in a dense row). */
static G_ALWAYS_INLINE inline void
slot_order (Slot *a,
            Slot *b)
{
  gboolean swap = b->cover > a->cover || (b->cover == a->cover && b->rgba < a->rgba);
  Slot lo = swap ? *a : *b, hi = swap ? *b : *a;

  *a = hi;
  *b = lo;
}

/* stack_column() with fg_put(). The slots in use are the first ones (a
 * cover, once added, stays above zero), and their order is total (no two
 * share a colour), so a sorting network orders them as the insertion
 * sort does. The last colour's top is the height itself: stack_column()
 * rounds height * acc / sum, acc being the same covers as sum added in
 * another order, so within a few ulps of it (at most 3 additions of
 * positive floats, each off by half an ulp), which keeps the quotient
 * within 2^-20 height of height, a whole number far below 2^19: it rounds
 * back to it, as the one-colour case below says too. */
static G_ALWAYS_INLINE inline void
fg_stack (Layer        *layer,
          gint32        x,
          const Column *col,
          float         lane_y,
          float         lane_h,
          float         height)
{
  Slot slots[N_FG_SLOTS];
  guint n;
  float sum, acc, prev, top;

  G_STATIC_ASSERT (N_FG_SLOTS == 3);

  if (col->fg[0].cover <= 0)
    return;

  /* One colour: stack_column() rounds height * sum / sum, which is
   * height itself here, height being a whole number of pixels (lane
   * heights are) far below 2^22: the product and the quotient are each
   * within half an ulp, so the quotient is within 2^-23 height of it,
   * and rounds back to it. No division, then. */
  if (col->fg[1].cover <= 0)
    {
      if (height > 0)
        fg_put (layer, x, lane_y + lane_h - height, height, col->fg[0].rgba);
      return;
    }

  slots[0] = col->fg[0];
  slots[1] = col->fg[1];
  n = col->fg[2].cover > 0 ? 3 : 2;
  sum = slots[0].cover + slots[1].cover;
  if (n == 3)
    {
      slots[2] = col->fg[2];
      sum += slots[2].cover;
      slot_order (&slots[1], &slots[2]);
      slot_order (&slots[0], &slots[1]);
      slot_order (&slots[1], &slots[2]);
    }
  else
    slot_order (&slots[0], &slots[1]);

  acc = slots[0].cover;
  top = round_half_away_flat (height * acc / sum);
  if (top > 0)
    fg_put (layer, x, lane_y + lane_h - top, top, slots[0].rgba);
  prev = top;
  if (n == 3)
    {
      acc += slots[1].cover;
      top = round_half_away_flat (height * acc / sum);
      if (top > prev)
        fg_put (layer, x, lane_y + lane_h - top, top - prev, slots[1].rgba);
      prev = top;
    }
  top = height;
  if (top > prev)
    fg_put (layer, x, lane_y + lane_h - top, top - prev, slots[n - 1].rgba);
}

static void
emit_lane_fast (StrataPainter     *self,
                Lane               which,
                const RowGeometry *geo,
                float              area_x)
{
  LaneColumns *lane = &self->lanes[which];
  Column *cols = lane->columns;
  Layer *bg = &self->layers[LAYER_BACKGROUND];
  Layer *fg = &self->layers[which == LANE_MAIN ? LAYER_FOREGROUND : LAYER_NESTED];
  Layer *ticks = &self->layers[LAYER_TICKS];
  const float clip_y0 = geo->clip_y0, clip_y1 = geo->clip_y1;

  g_assert (bg->n_open == 0 && fg->n_open == 0 && ticks->n_open == 0);

  /* A column puts at most N_FG_SLOTS foreground rectangles and one tick,
   * and every rectangle emitted was a put. */
  if (lane->lo < lane->hi)
    {
      layer_reserve (fg, N_FG_SLOTS * (guint) (lane->hi - lane->lo));
      layer_reserve (ticks, (guint) (lane->hi - lane->lo));
    }

  for (gint x = lane->lo; x < lane->hi; x++)
    {
      const Column *col = &cols[x];

      /* Like the column before: the same puts, so only extend the runs
       * it left open, for the whole stretch of such columns. */
      if (x > lane->lo && memcmp (col, col - 1, sizeof *col) == 0)
        {
          Layer *used[] = { bg, fg, ticks };
          gint x_end = x + 1;

          while (x_end < lane->hi && memcmp (&cols[x_end], col, sizeof *col) == 0)
            x_end++;

          for (guint i = 0; i < G_N_ELEMENTS (used); i++)
            for (guint r = 0; r < used[i]->n_open; r++)
              {
                Run *run = &used[i]->open[r];

                if (run->x1 == x)
                  run->x1 = x_end;
              }
          x = x_end - 1;
          continue;
        }

      switch (which)
        {
        case LANE_MAIN:
          {
            float fg_h = fg_height (col, geo->main_h);
            const Slot *b = biggest_flat (col->bg, N_BG_SLOTS);

            single_put (self, bg, TRUE, b != NULL && fg_h < geo->main_h, x, geo->main_y, geo->main_h,
                        b != NULL ? b->rgba : 0, area_x, clip_y0, clip_y1);
            fg_stack (fg, x, col, geo->main_y, geo->main_h, fg_h);
            fg_close (fg, x, area_x, clip_y0, clip_y1);
          }
          break;

        case LANE_NESTED:
          fg_stack (fg, x, col, geo->nested_y, geo->nested_h,
                    fg_height (col, geo->nested_h));
          fg_close (fg, x, area_x, clip_y0, clip_y1);
          break;

        case LANE_INSTANTS:
        case N_LANES:
        default:
          {
            const Slot *t = biggest_flat (col->fg, N_FG_SLOTS);

            single_put (self, ticks, FALSE, t != NULL, x, geo->ticks_y, geo->ticks_h,
                        t != NULL ? t->rgba : 0, area_x, clip_y0, clip_y1);
          }
          break;
        }
    }

  if (lane->lo < lane->hi)
    memset (&cols[lane->lo], 0, (gsize) (lane->hi - lane->lo) * sizeof (Column));

  for (guint i = 0; i < N_LAYERS; i++)
    layer_close (self, &self->layers[i], -1, area_x, clip_y0, clip_y1);

  lane->lo = G_MAXINT;
  lane->hi = G_MININT;
}

/* The three lanes of a row, the way the fold asks. */
static void
emit_lanes (StrataPainter     *self,
            const RowGeometry *geo,
            float              area_x)
{
  for (guint l = 0; l < N_LANES; l++)
    if (self->reference_fold)
      emit_lane (self, l, geo, area_x);
    else
      emit_lane_fast (self, l, geo, area_x);
}

/* Rows ------------------------------------------------------------------- */

typedef enum
{
  CLASS_NONE,
  CLASS_BACKGROUND,
  CLASS_FOREGROUND,
  CLASS_INSTANT,
} ItemClass;

/* Where an item goes and in which colour. */
static ItemClass
classify (StrataPainter        *self,
          const StrataZoomItem *item,
          Lane                 *lane,
          guint32              *rgba,
          float                *weight)
{
  const Scheme *s = &schemes[self->style.scheme];
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
static guint32
label_for (StrataPainter        *self,
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
                                                      cpu_key (channel->instance, item->arg)));
      return STRATA_STRING_NONE;

    default:
      return STRATA_STRING_NONE;
    }
}

/* A CPU row keeps a strip at its bottom for interrupts, under the tasks
 * rather than over them: the least a column shows of either (a sliver)
 * stays visible. */
static void
row_geometry (const StrataPaintRow    *row,
              const StrataDisplayList *list,
              RowGeometry             *geo)
{
  float pad = MAX (1.f, floorf (row->h / 10.f));
  float inner = row->h - 2 * pad;

  geo->nested_h = row->kind == STRATA_CHANNEL_CPU ? MAX (2.f, roundf (inner * 0.3f)) : 0;
  geo->nested_y = row->y + pad + inner - geo->nested_h;
  geo->main_y = row->y + pad;
  geo->main_h = inner - geo->nested_h;
  geo->ticks_y = geo->main_y;
  geo->ticks_h = MAX (3.f, roundf (inner / 3.f));
  geo->clip_y0 = list->area_y;
  geo->clip_y1 = list->area_y + list->area_height;
}

/* One item into its row's lanes, and its label where it fits. */
static void
paint_item (StrataPainter        *self,
            StrataDisplayList    *list,
            const StrataChannel  *channel,
            const RowGeometry    *row_geo,
            const StrataZoomItem *item)
{
  guint width = (guint) list->area_width;
  double npp = list->ns_per_pixel;
  const RowGeometry geo = *row_geo;
  double x0 = (item->start - list->from) / npp;
  double x1 = (item->end - list->from) / npp;
  gboolean aggregate = (item->flags & STRATA_ZOOM_ITEM_AGGREGATE) != 0;
  guint32 rgba;
  float weight;
  Lane lane;
  ItemClass klass;

  /* A chunk's span holds items beyond the viewport too. */
  if (x1 < 0 || x0 > width || (x1 == 0 && item->end > item->start))
    return;
  list->n_folded++;

  klass = classify (self, item, &lane, &rgba, &weight);
  if (klass == CLASS_NONE)
    return;

  if (klass == CLASS_INSTANT)
    {
      lane_add_instant (&self->lanes[LANE_INSTANTS], width, x0,
                        weight * MAX (item->count, 1u), rgba);
      return;
    }

  if (item->end <= item->start)
    return;

  {
    /* An aggregate covers its span only as much as its members are
     * busy in it: density shows when zoomed out. */
    double density = aggregate ? CLAMP ((double) item->busy / (item->end - item->start), 0, 1) : 1;

    lane_add_interval (&self->lanes[lane], width, x0, x1, density,
                       klass == CLASS_BACKGROUND, rgba);

    /* An aggregate that idle or sleep dominates, but of several
     * members, hides activities too short to tell apart: its busy
     * time counts the idle too, so their share is not known. A sliver
     * of the lowest height says they are there. */
    if (aggregate && klass == CLASS_BACKGROUND && item->count > 1)
      lane_add_interval (&self->lanes[lane], width, x0, x1, BRIEF_COVER, FALSE,
                         schemes[self->style.scheme].brief);
  }

  if (!aggregate && lane == LANE_MAIN && klass == CLASS_FOREGROUND)
    {
      double vx0 = MAX (x0, 0), vx1 = MIN (x1, (double) width);
      guint32 label;

      if (vx1 - vx0 < MIN_LABEL_WIDTH || self->merging)
        return;
      label = label_for (self, channel, item);
      if (label != STRATA_STRING_NONE)
        add_text (list, list->area_x + (float) vx0 + 4, geo.main_y + geo.main_h / 2,
                  (float) (vx1 - vx0) - 8, text_color_on (rgba), label,
                  strata_string_pool_get (self->strings, label),
                  STRATA_PAINT_TEXT_ACTIVITY, STRATA_PAINT_ALIGN_LEFT);
    }
}

/* Where the lane of items[@first] ends in a span of @n items: every span,
 * pre-calculated, decoded or computed on demand, holds its channel's
 * lanes one after the other in the order of their numbers (the tree
 * sorts a chunk's lanes so, and the on-demand code and the raw store
 * walk them so), so the first item of a later lane is found by
 * bisection, not by a walk over the span. */
static guint
lane_end (const StrataZoomItem *items,
          guint                 first,
          guint                 n)
{
  guint lane = strata_zoom_item_lane (&items[first]);
  guint lo = first + 1, hi = n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (strata_zoom_item_lane (&items[mid]) != lane)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

static void fold_items (StrataPainter        *self,
                        StrataDisplayList    *list,
                        const StrataChannel  *channel,
                        const RowGeometry    *geo,
                        const StrataZoomItem *items,
                        guint                 first,
                        guint                 end);

static void
paint_items (StrataPainter        *self,
             StrataDisplayList    *list,
             const StrataChannel  *channel,
             const RowGeometry    *geo,
             const StrataZoomItem *items,
             guint                 first,
             guint                 end)
{
  if (!self->reference_fold)
    {
      fold_items (self, list, channel, geo, items, first, end);
      return;
    }

  for (guint i = first; i < end; i++)
    {
      const StrataZoomItem *item = &items[i];

      if (item->end < list->from || item->start > list->to)
        continue;
      paint_item (self, list, channel, geo, item);
    }
}

/* The fold ------------------------------------------------------------------
 *
 * What paint_item() does, item after item, with the same floating-point
 * operations in the same order (so the same columns, to the bit), but
 * without the work that does not depend on the item: the class, lane and
 * colour come from a table made once per scheme by asking classify()
 * itself; a slot is found with the columns' slots unrolled in place; a
 * division is skipped where its operand is one already divided (an item
 * that starts where the one before ended, an instant's end). paint_item()
 * stays the oracle: strata_painter_set_reference_fold() paints with it. */

static void
build_classes (StrataPainter *self)
{
  if (self->classes_scheme == (gint) self->style.scheme &&
      self->task_colors_scheme == self->style.scheme)
    return;

  for (guint k = 0; k < CLASS_KINDS; k++)
    for (guint st = 0; st < CLASS_STATES; st++)
      {
        KindClass *kc = &self->classes[k * CLASS_STATES + st];
        StrataZoomItem item = { 0 };
        Lane lane, nested_lane;
        guint32 rgba, nested_rgba;
        float weight, nested_weight;

        item.kind = k;
        item.state = st;
        kc->klass = classify (self, &item, &lane, &rgba, &weight);
        kc->lane = lane;
        kc->rgba = rgba;
        kc->weight = weight;
        kc->task = k == STRATA_ACTIVITY_TASK;

        item.flags = 1 << STRATA_ACTIVITY_FLAG_DEPTH_SHIFT;
        classify (self, &item, &nested_lane, &nested_rgba, &nested_weight);
        kc->by_depth = nested_lane != lane;
        g_assert (!kc->by_depth || nested_lane == LANE_NESTED);
        g_assert (kc->task || (nested_rgba == rgba && nested_weight == weight));
      }
  self->classes_scheme = self->style.scheme;
}

/* slot_add() for N_FG_SLOTS, unrolled: the slots in use are always the
 * first ones (a cover, once added, stays above zero). */
static inline void
fg_slots_add (Slot    *s,
              guint32  rgba,
              float    cover)
{
  guint m;

  G_STATIC_ASSERT (N_FG_SLOTS == 3);

  if (s[0].cover > 0 && s[0].rgba == rgba)
    {
      s[0].cover += cover;
      return;
    }
  if (s[1].cover > 0 && s[1].rgba == rgba)
    {
      s[1].cover += cover;
      return;
    }
  if (s[2].cover > 0 && s[2].rgba == rgba)
    {
      s[2].cover += cover;
      return;
    }

  m = s[0].cover <= 0 ? 0 : s[1].cover <= 0 ? 1 : s[2].cover <= 0 ? 2 : 3;
  if (m < 3)
    {
      s[m].rgba = rgba;
      s[m].cover = cover;
      return;
    }

  m = s[1].cover < s[0].cover ? 1 : 0;
  if (s[2].cover < s[m].cover)
    m = 2;
  if (cover > s[m].cover)
    {
      s[m].rgba = rgba;
      s[m].cover = cover;
    }
}

/* slot_add() for N_BG_SLOTS, unrolled. */
static inline void
bg_slots_add (Slot    *s,
              guint32  rgba,
              float    cover)
{
  guint m;

  G_STATIC_ASSERT (N_BG_SLOTS == 2);

  if (s[0].cover > 0 && s[0].rgba == rgba)
    {
      s[0].cover += cover;
      return;
    }
  if (s[1].cover > 0 && s[1].rgba == rgba)
    {
      s[1].cover += cover;
      return;
    }

  if (s[0].cover <= 0 || s[1].cover <= 0)
    {
      m = s[0].cover <= 0 ? 0 : 1;
      s[m].rgba = rgba;
      s[m].cover = cover;
      return;
    }

  m = s[1].cover < s[0].cover ? 1 : 0;
  if (cover > s[m].cover)
    {
      s[m].rgba = rgba;
      s[m].cover = cover;
    }
}

static inline guint32
task_color (StrataPainter *self,
            gint32         tid)
{
  guint slot = (guint32) tid % TASK_COLOR_CACHE;

  if (G_UNLIKELY (self->task_colors[slot].rgba == 0 || self->task_colors[slot].tid != tid))
    {
      self->task_colors[slot].tid = tid;
      self->task_colors[slot].rgba = strata_paint_task_color (self->style.scheme, tid);
    }
  return self->task_colors[slot].rgba;
}

/* Items [first, end) of a row into its lanes, as paint_items() would. */
static void
fold_items (StrataPainter        *self,
            StrataDisplayList    *list,
            const StrataChannel  *channel,
            const RowGeometry    *geo,
            const StrataZoomItem *items,
            guint                 first,
            guint                 end)
{
  const gint64 from = list->from, to = list->to;
  const double npp = list->ns_per_pixel;
  const guint width = (guint) list->area_width;
  const double dwidth = width;
  const guint32 brief = schemes[self->style.scheme].brief;
  gint lo[N_LANES], hi[N_LANES];
  /* The last division: an item that starts where the one before it ended
   * has its x0 already. */
  gint64 last_t = G_MININT64;
  double last_x = 0;
  guint n_folded = 0;

  /* The task colours are this scheme's: classify() reset them if not. */
  build_classes (self);
  g_assert (self->task_colors_scheme == self->style.scheme);

  for (guint l = 0; l < N_LANES; l++)
    {
      lo[l] = self->lanes[l].lo;
      hi[l] = self->lanes[l].hi;
    }

  for (guint i = first; i < end; i++)
    {
      const StrataZoomItem *item = &items[i];
      const KindClass *kc;
      double x0, x1, density, cx0, cx1;
      gboolean aggregate;
      guint32 rgba;
      Column *cols;
      gint c0, c1;
      guint lane;

      if (item->end < from || item->start > to)
        continue;

      if (G_UNLIKELY (item->kind >= CLASS_KINDS || item->state >= CLASS_STATES))
        {
          paint_item (self, list, channel, geo, item);
          continue;
        }

      x0 = item->start == last_t ? last_x : (item->start - from) / npp;
      x1 = item->end == item->start ? x0 : (item->end - from) / npp;
      last_t = item->end;
      last_x = x1;

      /* A chunk's span holds items beyond the viewport too. */
      if (x1 < 0 || x0 > width || (x1 == 0 && item->end > item->start))
        continue;
      n_folded++;

      kc = &self->classes[item->kind * CLASS_STATES + item->state];
      if (kc->klass == CLASS_NONE)
        continue;
      rgba = kc->task ? task_color (self, item->arg) : kc->rgba;

      if (kc->klass == CLASS_INSTANT)
        {
          float w;

          if (x0 < 0 || x0 >= width)
            continue;
          c0 = (gint) x0;
          w = kc->weight * MAX (item->count, 1u);
          cols = self->lanes[LANE_INSTANTS].columns;
          fg_slots_add (cols[c0].fg, rgba, w);
          cols[c0].fg_total += w;
          lo[LANE_INSTANTS] = MIN (lo[LANE_INSTANTS], c0);
          hi[LANE_INSTANTS] = MAX (hi[LANE_INSTANTS], c0 + 1);
          continue;
        }

      if (item->end <= item->start)
        continue;

      /* lane_add_interval()'s bounds. An interval that does not reach
       * into the area has no label either (it would be under 0 px). */
      if (x1 <= 0 || x0 >= width || x1 <= x0)
        continue;
      cx0 = MAX (x0, 0);
      cx1 = MIN (x1, dwidth);
      c0 = (gint) cx0;
      /* (gint) ceil (cx1), cx1 being positive */
      c1 = (gint) cx1;
      c1 += (double) c1 < cx1;
      c1 = MIN (c1, (gint) width);
      if (c1 <= c0)
        c1 = c0 + 1;

      aggregate = (item->flags & STRATA_ZOOM_ITEM_AGGREGATE) != 0;
      density = aggregate ? CLAMP ((double) item->busy / (item->end - item->start), 0, 1) : 1;
      lane = kc->by_depth && (item->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK) != 0 ? LANE_NESTED : kc->lane;
      cols = self->lanes[lane].columns;

      if (kc->klass == CLASS_BACKGROUND)
        {
          /* An aggregate that idle or sleep dominates, but of several
           * members, adds the sliver that says brief activities are
           * there (see paint_item()): the foreground slots are apart
           * from the background ones, so both go in one pass. */
          gboolean sliver = aggregate && item->count > 1;

          for (gint c = c0; c < c1; c++)
            {
              double overlap = MIN (cx1, c + 1.0) - MAX (cx0, (double) c);
              float cover = (float) (overlap * density);

              if (cover <= 0)
                cover = 1e-6f;
              bg_slots_add (cols[c].bg, rgba, cover);
              cols[c].bg_total += cover;
              if (sliver)
                {
                  float b = (float) (overlap * BRIEF_COVER);

                  if (b <= 0)
                    b = 1e-6f;
                  fg_slots_add (cols[c].fg, brief, b);
                  cols[c].fg_total += b;
                }
            }
        }
      else
        {
          for (gint c = c0; c < c1; c++)
            {
              float cover = (float) ((MIN (cx1, c + 1.0) - MAX (cx0, (double) c)) * density);

              if (cover <= 0)
                cover = 1e-6f;
              fg_slots_add (cols[c].fg, rgba, cover);
              cols[c].fg_total += cover;
            }
        }
      lo[lane] = MIN (lo[lane], c0);
      hi[lane] = MAX (hi[lane], c1);

      if (!aggregate && lane == LANE_MAIN && kc->klass == CLASS_FOREGROUND)
        {
          double vx0 = MAX (x0, 0), vx1 = MIN (x1, dwidth);
          guint32 label;

          if (vx1 - vx0 < MIN_LABEL_WIDTH || self->merging)
            continue;
          label = label_for (self, channel, item);
          if (label != STRATA_STRING_NONE)
            add_text (list, list->area_x + (float) vx0 + 4, geo->main_y + geo->main_h / 2,
                      (float) (vx1 - vx0) - 8, text_color_on (rgba), label,
                      strata_string_pool_get (self->strings, label),
                      STRATA_PAINT_TEXT_ACTIVITY, STRATA_PAINT_ALIGN_LEFT);
        }
    }

  for (guint l = 0; l < N_LANES; l++)
    {
      self->lanes[l].lo = MIN (self->lanes[l].lo, lo[l]);
      self->lanes[l].hi = MAX (self->lanes[l].hi, hi[l]);
    }
  list->n_folded += n_folded;
}

/**
 * strata_painter_set_reference_fold:
 * @reference: fold every item with paint_item(), the painter's first way
 *
 * For the tests and the benchmark: the display list must come out the
 * same either way.
 */
void
strata_painter_set_reference_fold (StrataPainter *self,
                                   gboolean       reference)
{
  g_return_if_fail (self != NULL);

  self->reference_fold = !!reference;
}

gboolean
strata_painter_get_reference_fold (StrataPainter *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->reference_fold;
}

/**
 * strata_painter_set_timed:
 * @timed: measure the CPU time of the rows' folds and of their lanes'
 *   emission in each frame (a clock reading or two per row)
 */
void
strata_painter_set_timed (StrataPainter *self,
                          gboolean       timed)
{
  g_return_if_fail (self != NULL);

  self->timed = !!timed;
}

/**
 * strata_painter_get_times:
 * @fold_ns: (out): the last frame's folds of its rows' items, in ns
 * @emit_ns: (out): the last frame's emission of its rows' lanes, in ns
 *
 * Both 0 unless strata_painter_set_timed() asked for them. Merged rows
 * are not in them.
 */
void
strata_painter_get_times (StrataPainter *self,
                          gint64        *fold_ns,
                          gint64        *emit_ns)
{
  g_return_if_fail (self != NULL);

  *fold_ns = self->fold_ns;
  *emit_ns = self->emit_ns;
}

/* For the benchmark's split of a frame (strata_painter_set_timed()): the
 * calling thread's CPU time, as the benchmark measures frames. */
static gint64
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* The items of a span of @n that can be in view, folded (fold_items()
 * culls the rest): each of its lanes is cut to them by bisection. A
 * lane's items do not overlap, so both their starts and their ends are in
 * order: the items before the cut have ended before the view, the ones
 * after start after it, and an item that starts before the view and
 * reaches into it is kept. The same items in the same order as folding
 * the whole span. */
static void
fold_span (StrataPainter        *self,
           StrataDisplayList    *list,
           const StrataChannel  *channel,
           const RowGeometry    *geo,
           const StrataZoomItem *items,
           guint                 n)
{
  if (n < MIN_SPAN_CUT)
    {
      fold_items (self, list, channel, geo, items, 0, n);
      return;
    }

  for (guint first = 0, next; first < n; first = next)
    {
      guint lo = first, hi, end;

      next = lane_end (items, first, n);
      hi = next;
      /* The first item that starts after the view... */
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (items[mid].start > list->to)
            hi = mid;
          else
            lo = mid + 1;
        }
      end = lo;
      /* ...and the first that ends in it or after. */
      lo = first, hi = end;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (items[mid].end < list->from)
            lo = mid + 1;
          else
            hi = mid;
        }
      fold_items (self, list, channel, geo, items, lo, end);
    }
}

static void
paint_row (StrataPainter        *self,
           StrataDisplayList    *list,
           const StrataPaintRow *row,
           const StrataZoomSpan *spans,
           guint                 n_spans)
{
  const StrataChannel *channel = &self->channels[row->channel];
  RowGeometry geo;
  gint64 t0 = 0, t1 = 0;

  row_geometry (row, list, &geo);
  if (self->timed)
    t0 = thread_cpu_ns ();

  /* A span is a whole chunk's, up to 2F times the viewport at the level
   * a frame is drawn from: its lanes are cut to the view first
   * (fold_span()). The reference fold takes every item, leaving what lies
   * outside with two comparisons before paint_item's divisions. */
  for (guint s = 0; s < n_spans; s++)
    {
      const StrataZoomItem *items = spans[s].items;
      guint n = spans[s].n_items;

      if (self->reference_fold)
        {
          paint_items (self, list, channel, &geo, items, 0, n);
          continue;
        }

      fold_span (self, list, channel, &geo, items, n);
    }

  if (self->timed)
    {
      t1 = thread_cpu_ns ();
      self->fold_ns += t1 - t0;
    }
  emit_lanes (self, &geo, list->area_x);
  if (self->timed)
    self->emit_ns += thread_cpu_ns () - t1;

  layers_flush (self, list);
}

static void
ensure_columns (StrataPainter *self,
                guint          width)
{
  if (width > self->n_columns)
    {
      for (guint i = 0; i < N_LANES; i++)
        {
          g_free (self->lanes[i].columns);
          self->lanes[i].columns = g_new0 (Column, width);
        }
      self->n_columns = width;
    }

  for (guint i = 0; i < N_LANES; i++)
    {
      self->lanes[i].lo = G_MAXINT;
      self->lanes[i].hi = G_MININT;
    }
}

/* Frame furniture --------------------------------------------------------- */

static void
paint_row_backgrounds (StrataPainter     *self,
                       StrataDisplayList *list,
                       guint              first_index)
{
  const Scheme *s = &schemes[self->style.scheme];
  float y0 = list->area_y, y1 = list->area_y + list->area_height;

  for (guint i = 0; i < list->rows->len; i++)
    {
      const StrataPaintRow *row = &g_array_index (list->rows, StrataPaintRow, i);
      float top = MAX (row->y, y0), bottom = MIN (row->y + row->h, y1);
      guint32 rgba = 0;

      if (row->kind == STRATA_CHANNEL_PROCESS)
        rgba = s->group;
      else if ((first_index + i) % 2 == 1)
        rgba = s->stripe;
      if (bottom > top)
        add_rect (list, 0, top, list->frame_width, bottom - top, rgba);

      /* A line where the CPUs end and above each process. */
      if (i + first_index > 0 && row->y >= y0 &&
          (row->kind == STRATA_CHANNEL_PROCESS ||
           (i > 0 && g_array_index (list->rows, StrataPaintRow, i - 1).kind == STRATA_CHANNEL_CPU &&
            row->kind != STRATA_CHANNEL_CPU)))
        add_rect (list, 0, row->y, list->frame_width, 1, s->separator);
    }
}

static void
paint_row_names (StrataPainter     *self,
                 StrataDisplayList *list)
{
  const Scheme *s = &schemes[self->style.scheme];
  float width = self->style.name_width;

  if (width <= 0)
    return;

  for (guint i = 0; i < list->rows->len; i++)
    {
      const StrataPaintRow *row = &g_array_index (list->rows, StrataPaintRow, i);
      const StrataChannel *channel = &self->channels[row->channel];
      guint32 name = g_array_index (self->names, guint32, row->channel);
      float mid = row->y + row->h / 2;
      float x = 8 + 14 * row->indent;
      float id_room = 56;
      char id[32];

      if (mid < list->area_y || mid > list->area_y + list->area_height)
        continue;

      if (channel->kind == STRATA_CHANNEL_CPU)
        {
          /* CPUs of a buffer instance other than the top one say which. */
          const char *instance = channel->instance > 0 && channel->instance < self->instances->len
                                   ? g_ptr_array_index (self->instances, channel->instance) : NULL;

          add_text (list, x, mid, width - x - 8 - (instance ? 80 : 0), s->text, name,
                    strata_string_pool_get (self->strings, name),
                    STRATA_PAINT_TEXT_ROW_NAME, STRATA_PAINT_ALIGN_LEFT);
          if (instance != NULL)
            add_text (list, width - 8, mid, 80, s->text_dim, STRATA_STRING_NONE, instance,
                      STRATA_PAINT_TEXT_ROW_ID, STRATA_PAINT_ALIGN_RIGHT);
        }
      else
        {
          const char *text = strata_string_pool_get (self->strings, name);

          if (text[0] == '\0')
            text = channel->kind == STRATA_CHANNEL_PROCESS ? "process" : "thread";
          add_text (list, x, mid, width - x - id_room - 4, s->text,
                    text == strata_string_pool_get (self->strings, name) ? name : STRATA_STRING_NONE,
                    text,
                    channel->kind == STRATA_CHANNEL_PROCESS ? STRATA_PAINT_TEXT_GROUP_NAME
                                                            : STRATA_PAINT_TEXT_ROW_NAME,
                    STRATA_PAINT_ALIGN_LEFT);
          g_snprintf (id, sizeof id, "%d", channel->id);
          add_own_text (list, width - 8, mid, id_room, s->text_dim, id,
                        STRATA_PAINT_TEXT_ROW_ID, STRATA_PAINT_ALIGN_RIGHT);
        }
    }

  add_rect (list, width - 1, list->area_y, 1, list->area_height, s->separator);
}

static void
paint_grid (StrataPainter     *self,
            StrataDisplayList *list)
{
  const Scheme *s = &schemes[self->style.scheme];

  for (guint i = 0; i < list->ticks->len; i++)
    {
      const StrataPaintTick *tick = &g_array_index (list->ticks, StrataPaintTick, i);

      if (tick->labelled)
        add_rect (list, floorf (tick->x), list->area_y, 1, list->area_height, s->grid);
    }
}

static void
paint_ruler (StrataPainter     *self,
             StrataDisplayList *list)
{
  const Scheme *s = &schemes[self->style.scheme];
  float h = self->style.ruler_height;
  float right = list->area_x + list->area_width;
  g_autofree char *span = NULL;

  if (h <= 0)
    return;

  add_rect (list, 0, 0, list->frame_width, h, s->ruler);
  add_rect (list, 0, h - 1, list->frame_width, 1, s->separator);

  for (guint i = 0; i < list->ticks->len; i++)
    {
      const StrataPaintTick *tick = &g_array_index (list->ticks, StrataPaintTick, i);
      float tick_h = tick->labelled ? MIN (8.f, h / 3) : MIN (4.f, h / 5);
      float next = right;

      add_rect (list, floorf (tick->x), h - 1 - tick_h, 1, tick_h,
                tick->labelled ? s->text_dim : s->separator);
      if (!tick->labelled)
        continue;

      for (guint j = i + 1; j < list->ticks->len; j++)
        if (g_array_index (list->ticks, StrataPaintTick, j).labelled)
          {
            next = g_array_index (list->ticks, StrataPaintTick, j).x;
            break;
          }
      /* A number cut short reads as another number: a label that would
       * not fit (the last one, at the right edge) is left out. */
      if (next - tick->x - 8 < TEXT_WIDTH (tick->label))
        continue;
      add_text (list, floorf (tick->x) + 4, (h - tick_h) / 2, next - tick->x - 8, s->text,
                STRATA_STRING_NONE, tick->label, STRATA_PAINT_TEXT_RULER, STRATA_PAINT_ALIGN_LEFT);
    }

  /* Over the names: how much time the view spans. */
  if (self->style.name_width > 0)
    {
      gint64 d = list->to - list->from;

      span = strata_paint_format_time (d, d, MAX (unit_for (d) / 100, 1));
      add_own_text (list, 8, h / 2, self->style.name_width - 16, s->text_dim, span,
                    STRATA_PAINT_TEXT_RULER, STRATA_PAINT_ALIGN_LEFT);
      add_rect (list, self->style.name_width - 1, 0, 1, h, s->separator);
    }
}

typedef struct
{
  guint32     rgba;
  const char *text;
} LegendEntry;

/* Reserves room for a legend entry: its swatch at @x, its text after it.
 * max_width keeps a wider font than guessed from running into the next
 * entry.
 * Returns where the next entry goes, or a negative number if this one
 * does not fit. */
static float
legend_entry (StrataDisplayList *list,
              float              x,
              float              mid,
              float              right,
              float              swatch_width,
              guint32            text_rgba,
              const char        *text)
{
  float room = TEXT_WIDTH (text);

  if (x + swatch_width + 4 + room > right)
    return -1;

  add_own_text (list, x + swatch_width + 4, mid, room, text_rgba, text,
                STRATA_PAINT_TEXT_LEGEND, STRATA_PAINT_ALIGN_LEFT);
  return x + swatch_width + 4 + room + 12;
}

static void
paint_legend (StrataPainter     *self,
              StrataDisplayList *list)
{
  const Scheme *s = &schemes[self->style.scheme];
  StrataPaintScheme scheme = self->style.scheme;
  float h = self->style.legend_height;
  float top = list->frame_height - h;
  float mid = top + h / 2;
  float right = list->frame_width - 8;
  float x = 8, next;
  const LegendEntry entries[] = {
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_RUNNING), "running" },
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_RUNNABLE), "runnable" },
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_PREEMPTED), "preempted" },
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_WOKEN), "woken" },
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_UNINTERRUPTIBLE), "blocked (D)" },
    { strata_paint_state_color (scheme, STRATA_TASK_STATE_SLEEPING), "sleeping" },
    { s->irq, "IRQ" },
    { s->softirq, "softirq" },
    { s->wakeup, "wakeup" },
    { s->brief, "brief activity, zoom in" },
  };

  if (h <= 0)
    return;

  add_rect (list, 0, top, list->frame_width, h, s->ruler);
  add_rect (list, 0, top, list->frame_width, 1, s->separator);

  /* Tasks on CPU rows: a hue per thread, shown by three of them. */
  next = legend_entry (list, x, mid, right, 12, s->text, "task (a hue per thread)");
  if (next < 0)
    return;
  for (guint i = 0; i < 3; i++)
    add_rect (list, x + i * 4, mid - 5, 4, 10, strata_paint_task_color (scheme, 4000 + i));
  x = next;

  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      next = legend_entry (list, x, mid, right, 10, s->text, entries[i].text);
      if (next < 0)
        return;
      add_rect (list, x, mid - 5, 10, 10, entries[i].rgba);
      x = next;
    }

  /* Unknown, hatched as in the rows. */
  next = legend_entry (list, x, mid, right, 10, s->text, "unknown");
  if (next >= 0)
    {
      Run run = { 0, 10, mid - 5, 10, s->states[STRATA_TASK_STATE_UNKNOWN] };

      layer_emit (self, &self->layers[LAYER_BACKGROUND], &run, x, top, top + h);
      layers_flush (self, list);
    }
}

/* Rows made of several channels ---------------------------------------- */

/**
 * strata_painter_set_row_members:
 * @row: the channel whose row this is (a process, say)
 * @members: (array length=n_members) (nullable): the channels drawn in it
 *
 * Makes @row's row draw the activities of @members merged into it, as
 * one row, over whatever @row has of its own (a process has nothing): a
 * collapsed process shows its threads together. A pixel column of the row shows how busy the members are in
 * it (their busy time over the column's, up to the whole row's height)
 * in their dominant states, as an aggregate is drawn, and no labels.
 * No members (or %NULL) makes it an ordinary row again.
 */
void
strata_painter_set_row_members (StrataPainter *self,
                                guint32        row,
                                const guint32 *members,
                                guint          n_members)
{
  GArray *array;

  g_return_if_fail (self != NULL);
  g_return_if_fail (members != NULL || n_members == 0);

  if (n_members == 0)
    {
      g_hash_table_remove (self->members, GUINT_TO_POINTER (row));
      return;
    }
  array = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n_members);
  g_array_append_vals (array, members, n_members);
  g_hash_table_insert (self->members, GUINT_TO_POINTER (row), array);
}

/* Drops every row's members. */
void
strata_painter_clear_row_members (StrataPainter *self)
{
  g_return_if_fail (self != NULL);
  g_hash_table_remove_all (self->members);
}

/**
 * strata_painter_get_row_members:
 * @n_members: (out): how many
 *
 * Returns: (array length=n_members) (nullable): what @row's row is made
 *   of, or %NULL for an ordinary row
 */
const guint32 *
strata_painter_get_row_members (StrataPainter *self,
                                guint32        row,
                                guint         *n_members)
{
  GArray *array;

  g_return_val_if_fail (self != NULL, NULL);

  array = g_hash_table_lookup (self->members, GUINT_TO_POINTER (row));
  if (n_members != NULL)
    *n_members = array != NULL ? array->len : 0;
  return array != NULL ? (const guint32 *)(gpointer) array->data : NULL;
}

/* The members of the visible merged rows join the frame's one query;
 * those that are not rows themselves are marked -2, so only their merged
 * row paints them. */
static void
query_members (StrataPainter     *self,
               StrataDisplayList *list,
               gint32            *row_of)
{
  if (g_hash_table_size (self->members) == 0)
    return;

  for (guint i = 0; i < list->rows->len; i++)
    {
      guint32 ch = g_array_index (list->rows, StrataPaintRow, i).channel;
      GArray *members = g_hash_table_lookup (self->members, GUINT_TO_POINTER (ch));

      for (guint m = 0; members != NULL && m < members->len; m++)
        {
          guint32 member = g_array_index (members, guint32, m);

          if (member < self->n_channels && row_of[member] == -1)
            {
              g_array_append_val (self->query, member);
              row_of[member] = -2;
            }
        }
    }
}

static gboolean
is_member (const GArray *members,
           guint32       channel)
{
  for (guint m = 0; m < members->len; m++)
    if (g_array_index (members, guint32, m) == channel)
      return TRUE;
  return FALSE;
}

/* Each visible merged row: every member's items folded into the row's
 * lanes together, then the lanes emitted once, as paint_row() does for
 * one channel. */
static void
paint_merged_rows (StrataPainter        *self,
                   StrataDisplayList    *list,
                   const StrataZoomSpan *spans,
                   guint                 n_spans)
{
  if (g_hash_table_size (self->members) == 0)
    return;

  for (guint r = 0; r < list->rows->len; r++)
    {
      const StrataPaintRow *row = &g_array_index (list->rows, StrataPaintRow, r);
      GArray *members = g_hash_table_lookup (self->members, GUINT_TO_POINTER (row->channel));
      RowGeometry geo;

      if (members == NULL)
        continue;

      row_geometry (row, list, &geo);
      self->merging = TRUE;
      for (guint s = 0; s < n_spans; s++)
        if (spans[s].channel < self->n_channels && is_member (members, spans[s].channel))
          {
            const StrataChannel *channel = &self->channels[spans[s].channel];

            /* fold_span() first leaves out what ends before the view or
             * starts after it, which paint_item() leaves out too (it
             * lands outside the area) unless the view is longer than
             * 2^53 ns. */
            if (!self->reference_fold)
              fold_span (self, list, channel, &geo, spans[s].items, spans[s].n_items);
            else
              for (guint i = 0; i < spans[s].n_items; i++)
                paint_item (self, list, channel, &geo, &spans[s].items[i]);
          }
      self->merging = FALSE;

      emit_lanes (self, &geo, list->area_x);

      layers_flush (self, list);
    }
}

/**
 * strata_painter_paint:
 * @viewport: what to draw: the time range, the size of the timeline area
 *   and how far the rows are scrolled
 * @list: cleared, then filled with the frame
 *
 * Paints one frame: one query of the zoom tree for the visible rows, at
 * the level whose pixel matches (to - from) / width ns, folded into at most a
 * few rectangles per pixel column of each row; text where it fits; the
 * ruler, the row names and the legend around it as the style asks.
 */
void
strata_painter_paint (StrataPainter             *self,
                      const StrataPaintViewport *viewport,
                      StrataDisplayList         *list)
{
  const Scheme *s;
  StrataZoomGeometry g;
  guint first_index = 0;

  g_return_if_fail (self != NULL && viewport != NULL && list != NULL);

  s = &schemes[self->style.scheme];
  strata_display_list_clear (list);
  self->fold_ns = self->emit_ns = 0;

  list->from = viewport->from;
  list->to = MAX (viewport->to, viewport->from);
  list->area_x = self->style.name_width;
  list->area_y = self->style.ruler_height;
  list->area_width = viewport->width;
  list->area_height = viewport->height;
  list->frame_width = list->area_x + viewport->width;
  list->frame_height = list->area_y + viewport->height + self->style.legend_height;
  list->ns_per_pixel = viewport->width > 0 ? (double) (list->to - list->from) / viewport->width : 0;

  add_rect (list, 0, 0, list->frame_width, list->frame_height, s->background);

  /* The rows that fit: [first, last) of the row list. */
  for (guint i = 0; i < self->rows->len; i++)
    {
      guint32 ch = g_array_index (self->rows, guint32, i);
      float y = (float) i * self->style.row_height - viewport->scroll_y;
      StrataPaintRow row = { 0 };

      if (y + self->style.row_height <= 0)
        continue;
      if (y >= viewport->height)
        break;
      if (ch >= self->n_channels)
        continue;

      if (list->rows->len == 0)
        first_index = i;
      row.channel = ch;
      row.kind = self->channels[ch].kind;
      row.indent = g_array_index (self->indents, guint8, i);
      row.y = list->area_y + y;
      row.h = self->style.row_height;
      g_array_append_val (list->rows, row);
    }

  paint_row_backgrounds (self, list, first_index);

  if (list->ns_per_pixel > 0)
    {
      strata_paint_ruler_ticks (list->from, list->to, list->area_x, list->area_width,
                                self->start, TICK_MIN_SPACING, list->ticks, list->strings);
      paint_grid (self, list);
    }

  if (list->ns_per_pixel > 0 && list->rows->len > 0 &&
      strata_zoom_tree_get_geometry (self->tree, &g))
    {
      gint32 *row_of = (gint32 *)(gpointer) self->row_of->data;
      const StrataZoomSpan *spans;
      guint n_spans;

      g_array_set_size (self->query, 0);
      for (guint i = 0; i < list->rows->len; i++)
        {
          guint32 ch = g_array_index (list->rows, StrataPaintRow, i).channel;

          if (row_of[ch] < 0)
            g_array_append_val (self->query, ch);
          row_of[ch] = i;
        }
      query_members (self, list, row_of);

      /* The finest level whose pixel is at least the screen's: at most
       * about two items per screen pixel and row, whatever the trace's
       * size, and still one query of at most two chunks. */
      list->level = strata_zoom_geometry_level_for_frame (&g, list->to - list->from, viewport->width);
      strata_zoom_tree_query_spans (self->tree, list->level, list->from, list->to,
                                    (const guint32 *)(gpointer) self->query->data, self->query->len,
                                    self->result, &list->stats);

      ensure_columns (self, viewport->width);

      /* The spans come channel by channel, each channel's in time order. */
      spans = strata_zoom_result_get_spans (self->result, &n_spans);
      list->n_items = 0;
      for (guint i = 0; i < n_spans; )
        {
          guint32 ch = spans[i].channel;
          guint j = i;

          for (; j < n_spans && spans[j].channel == ch; j++)
            list->n_items += spans[j].n_items;
          if (ch < self->n_channels && row_of[ch] >= 0)
            paint_row (self, list, &g_array_index (list->rows, StrataPaintRow, row_of[ch]),
                       &spans[i], j - i);
          i = j;
        }
      paint_merged_rows (self, list, spans, n_spans);

      for (guint i = 0; i < self->query->len; i++)
        row_of[g_array_index (self->query, guint32, i)] = -1;
    }

  paint_row_names (self, list);
  paint_ruler (self, list);
  paint_legend (self, list);
}
