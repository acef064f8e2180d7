/* strata-painter-internal.h
 *
 * What the files of the painter share and nothing else includes: the
 * painter's structure, its columns and lanes, the colour schemes and
 * classes, and the functions one file of it calls in another.
 * strata-painter.c says how a frame is painted.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-painter.h"
#include "strata-spilled-array.h"
#include "strata-zoom-tree.h"

G_BEGIN_DECLS

#define N_FG_SLOTS       3
#define N_BG_SLOTS       2
#define MIN_LABEL_WIDTH  40.0
#define HATCH_PERIOD     6
#define HATCH_WIDTH      2
#define TICK_MIN_SPACING 90.0
/* The painter cannot measure text: this guesses the width of a label in
 * the small fonts clients use, with some room to spare. */
#define TEXT_WIDTH(s)    (6.5f * g_utf8_strlen ((s), -1) + 6)
#define TASK_COLOR_CACHE 4096
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

/* The light scheme, then the dark (strata-palette.c). */
extern const Scheme strata_painter_schemes[2];

typedef struct
{
  guint32 rgba;
  float   cover;   /* of the column, 1.0 being all of it */
} Slot;

/* What strata_painter_classify() says of every item of one kind and state, found once
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

/* What the rows of a frame were drawn for, besides their heights
 * (strata-painter-kept-rows.c). */
typedef struct
{
  gint64               from;
  gint64               to;
  guint                width;
  gint64               start;
  gint64               end;
  const StrataChannel *channels;
  guint                n_channels;
  float                row_height;
  float                name_width;
  float                ruler_height;
  gint                 scheme;
  gboolean             reference_fold;
} KeptView;

/* One row of the last frame: its rectangles and labels in kept_rects
 * and kept_texts, drawn with its top at y. */
typedef struct
{
  guint32 channel;
  float   y;
  guint   rect0;
  guint   n_rects;
  guint   text0;
  guint   n_texts;
  guint   n_items;
  guint   n_folded;
} KeptRow;

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
  /* The rows shown: those a caller chose (strata_painter_set_rows()),
   * copied into a spilled array, or the default rows themselves (placed,
   * read in place: strata_painter_show_default_rows()), so a followed
   * recording's showing copies no row. A thread's indent under its
   * process is worked out for the rows a frame draws, not kept. */
  StrataSpilledArray  *rows;       /* guint32 channel */
  gboolean             rows_default;
  GPtrArray           *instances;  /* char *: buffer instance names, [0] = "" (top) */
  /* Per channel, in spilled arrays (in a file past a few MiB, not in
   * the heap: a followed recording's painters are given every channel it
   * ever made), and brought up to date for the channels new or changed
   * since the last time (strata_painter_grow_channels()), so a showing
   * reads only those. */
  StrataSpilledArray  *names;      /* guint32 per channel: the channel whose name its row
                                    * shows (itself, or a process's thread) */
  GHashTable          *cpu_names;  /* instance << 16 | cpu -> pool id */

  /* The default rows' answers and order, kept from one call to the next
   * (strata-painter-default-rows.c): a thread found with something stays
   * so as the trace grows (its start kept, its end later), so only the
   * others are asked about again, and the rows' order is kept, a new row
   * put in its place, rather than all channels sorted at each showing. */
  StrataSpilledArray  *shown;       /* guint8 per channel: 1 once found with something */
  guint                n_asked;     /* channels [0, n_asked) shown or in unanswered */
  GArray              *unanswered;  /* guint32: threads found with nothing yet */
  GArray              *newly_shown; /* guint32: threads found with something by the last asking */
  gint64               shown_start; /* the extent the answers are for */
  gint64               shown_end;
  StrataSpilledArray  *placed;      /* guint32: the default rows, in their order */
  guint                n_placed;    /* channels [0, n_placed) placed (or not to be) */
  gboolean             placed_valid;

  /* Scratch kept from one frame to the next. */
  GArray              *query;      /* guint32 */
  StrataZoomResult    *result;     /* the frame's query */
  StrataZoomResult    *partial;    /* or, when it draws some rows again, its query of
                                    * the others: a result keeps the blocks of its last
                                    * query only, so the next frame of all rows finds
                                    * those of the last one in result */
  StrataSpilledArray  *row_of;     /* gint32 per channel: its visible row, or -1 */
  LaneColumns          lanes[N_LANES];
  guint                n_columns;
  Layer                layers[N_LAYERS];

  /* Rows made of several channels (strata_painter_set_row_members). */
  GHashTable          *members;    /* row channel -> GArray of guint32 channels */
  gboolean             merging;    /* painting one: no labels inside it */

  /* Task colours by tid, direct-mapped: a zoomed-out CPU row has
   * thousands of task items a frame, and a colour costs an fmod and an
   * HSL conversion. Slots for a few thousand consecutive tids: with 256,
   * the 2 000 threads of a dense trace's CPU rows evicted each other and
   * most task items paid the conversion (a third of the whole-trace
   * frame's fold). */
  struct { gint32 tid; guint32 rgba; } task_colors[TASK_COLOR_CACHE];
  StrataPaintScheme    task_colors_scheme;

  /* Where an item goes, by kind and state, for the current scheme
   * (build_classes()); classes_scheme is -1 until built. */
  KindClass            classes[CLASS_KINDS * CLASS_STATES];
  gint                 classes_scheme;
  gboolean             reference_fold;  /* strata_painter_paint_item() for every item */
  gboolean             timed;           /* fold_ns and emit_ns are measured */
  gint64               fold_ns;         /* in the last frame, the rows' folds */
  gint64               emit_ns;         /* and their lanes' emission */
  gint64               query_ns;        /* and its query of the zoom tree */

  /* The last frame's rows, drawn again where the view has not moved
   * (strata-painter-kept-rows.c). */
  GArray              *kept_rects;      /* StrataPaintRect: the last frame's list's */
  GArray              *kept_texts;      /* StrataPaintText: the same */
  GArray              *kept;            /* KeptRow: the last frame's rows in them */
  GHashTable          *kept_of;         /* channel -> its index in kept + 1 */
  gboolean             kept_valid;      /* the last frame was of this frame's view */
  GArray              *keeping;         /* KeptRow: this frame's rows */
  KeptView             keeping_view;    /* this frame's view */
  const StrataDisplayList *keeping_list; /* and the list it went into, with */
  const GArray        *keeping_rects;   /* its arrays as it left them */
  const GArray        *keeping_texts;
  guint                keeping_n_rects;
  guint                keeping_n_texts;
  gboolean             keeping_on;      /* this frame's rows may be kept */
  guint                n_drawn_again;   /* this frame's rows drawn from kept ones */
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

/* strata_painter_layer_emit() for a layer that is not the background (so never
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

typedef enum
{
  CLASS_NONE,
  CLASS_BACKGROUND,
  CLASS_FOREGROUND,
  CLASS_INSTANT,
} ItemClass;

/* strata-palette.c */
guint32
strata_painter_text_color_on (guint32 rgba);
ItemClass
strata_painter_classify (StrataPainter        *self,
                         const StrataZoomItem *item,
                         Lane                 *lane,
                         guint32              *rgba,
                         float                *weight);
guint32
strata_painter_label_for (StrataPainter        *self,
                          const StrataChannel  *channel,
                          const StrataZoomItem *item);

/* strata-ruler.c */
gint64
strata_painter_unit_for (gint64 magnitude);

/* strata-display-list.c */
void
strata_painter_add_rect (StrataDisplayList *list,
                         float              x,
                         float              y,
                         float              w,
                         float              h,
                         guint32            rgba);
void
strata_painter_add_text (StrataDisplayList *list,
                         float              x,
                         float              y,
                         float              max_width,
                         guint32            rgba,
                         guint32            string,
                         const char        *text,
                         StrataPaintTextRole role,
                         StrataPaintAlign   align);
void
strata_painter_add_own_text (StrataDisplayList  *list,
                             float               x,
                             float               y,
                             float               max_width,
                             guint32             rgba,
                             const char         *text,
                             StrataPaintTextRole role,
                             StrataPaintAlign    align);

/* strata-painter-rows.c */
gpointer
strata_painter_cpu_key (guint16 instance,
                        gint32  cpu);
const guint32 *
strata_painter_peek_rows (StrataPainter *self,
                          guint         *n_rows);
guint8
strata_painter_row_indent (StrataPainter *self,
                           const guint32 *rows,
                           guint          i,
                           gint           above);

/* strata-paint-layers.c */
void
strata_painter_layers_flush (StrataPainter     *self,
                             StrataDisplayList *list);
void
strata_painter_layer_emit (StrataPainter *self,
                           Layer         *layer,
                           const Run     *run,
                           float          area_x,
                           float          clip_y0,
                           float          clip_y1);
void
strata_painter_layer_put (Layer   *layer,
                          gint32   x,
                          float    y,
                          float    h,
                          guint32  rgba);
void
strata_painter_layer_close (StrataPainter *self,
                            Layer         *layer,
                            gint32         x,
                            float          area_x,
                            float          clip_y0,
                            float          clip_y1);

/* strata-fold-reference.c */
void
strata_painter_emit_lane (StrataPainter     *self,
                          Lane               which,
                          const RowGeometry *geo,
                          float              area_x);
void
strata_painter_paint_item (StrataPainter        *self,
                           StrataDisplayList    *list,
                           const StrataChannel  *channel,
                           const RowGeometry    *row_geo,
                           const StrataZoomItem *item);
guint
strata_painter_lane_end (const StrataZoomItem *items,
                         guint                 first,
                         guint                 n);
void
strata_painter_paint_items (StrataPainter        *self,
                            StrataDisplayList    *list,
                            const StrataChannel  *channel,
                            const RowGeometry    *geo,
                            const StrataZoomItem *items,
                            guint                 first,
                            guint                 end);

/* strata-painter-kept-rows.c */
void
strata_painter_kept_init (StrataPainter *self);
void
strata_painter_kept_clear (StrataPainter *self);
void
strata_painter_kept_begin (StrataPainter             *self,
                           const StrataPaintViewport *viewport,
                           StrataDisplayList         *list);
void
strata_painter_kept_end (StrataPainter           *self,
                         const StrataDisplayList *list);
const KeptRow *
strata_painter_kept_find (StrataPainter           *self,
                          const StrataDisplayList *list,
                          const StrataPaintRow    *row);
void
strata_painter_kept_draw (StrataPainter        *self,
                          StrataDisplayList    *list,
                          const StrataPaintRow *row,
                          const KeptRow        *kept);
void
strata_painter_kept_note (StrataPainter           *self,
                          const StrataDisplayList *list,
                          const StrataPaintRow    *row,
                          guint                    rect0,
                          guint                    text0,
                          guint                    n_items,
                          guint                    n_folded);

/* strata-column-fold.c */
void
strata_painter_emit_lanes (StrataPainter     *self,
                           const RowGeometry *geo,
                           float              area_x);
void
strata_painter_fold_items (StrataPainter        *self,
                           StrataDisplayList    *list,
                           const StrataChannel  *channel,
                           const RowGeometry    *geo,
                           const StrataZoomItem *items,
                           guint                 first,
                           guint                 end);

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

/* Room for @n more rectangles in @layer, made once before a lane's
 * columns, so run_emit() needs no check. */
static inline void
layer_reserve (Layer *layer,
               guint  n)
{
  if (layer->n_done + n > layer->done->len)
    g_array_set_size (layer->done, MAX (layer->done->len * 2, layer->n_done + n));
}

G_END_DECLS
