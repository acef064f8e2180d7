/* strata-painter.h
 *
 * The timeline painter: turns one viewport of a trace into a display list
 * of coloured rectangles and text labels, with no cairo and no GTK, so the
 * CLI's PNG renderer and the GTK widget draw the same picture from the same
 * code. A frame is one query of the zoom tree for the rows that fit, at the
 * level that matches the scale; what lands in one pixel column of one row
 * is folded into a few rectangles, so a frame costs pixels times rows, not
 * activities. The ruler's ticks are computed here too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-activity.h"
#include "strata-string-pool.h"
#include "strata-trace.h"
#include "strata-zoom-tree.h"

G_BEGIN_DECLS

typedef enum
{
  STRATA_PAINT_SCHEME_LIGHT,
  STRATA_PAINT_SCHEME_DARK,
} StrataPaintScheme;

/* Colours are 0xRRGGBBAA, not premultiplied. */
typedef struct
{
  float   x;
  float   y;
  float   w;
  float   h;
  guint32 rgba;
} StrataPaintRect;

/* What a text is, so a client can pick a font for it. */
typedef enum
{
  STRATA_PAINT_TEXT_ROW_NAME,    /* a CPU or thread row's name */
  STRATA_PAINT_TEXT_GROUP_NAME,  /* a process row, heading its threads */
  STRATA_PAINT_TEXT_ROW_ID,      /* the pid or tid beside a name */
  STRATA_PAINT_TEXT_ACTIVITY,    /* inside an activity wide enough for it */
  STRATA_PAINT_TEXT_RULER,
  STRATA_PAINT_TEXT_LEGEND,
} StrataPaintTextRole;

typedef enum
{
  STRATA_PAINT_ALIGN_LEFT,       /* x is the text's left edge */
  STRATA_PAINT_ALIGN_RIGHT,      /* x is its right edge */
} StrataPaintAlign;

typedef struct
{
  float       x;
  float       y;          /* the middle of the line */
  float       max_width;  /* ellipsize or clip beyond this */
  guint32     rgba;
  guint32     string;     /* a pool id, or STRATA_STRING_NONE for the list's own text */
  const char *text;       /* always set, valid as long as the list and the pool */
  guint8      role;       /* StrataPaintTextRole */
  guint8      align;      /* StrataPaintAlign */
  guint16     reserved;
} StrataPaintText;

/* A row on screen, in frame coordinates (it may be cut by the area's
 * top or bottom edge). */
typedef struct
{
  guint32 channel;
  guint8  kind;    /* StrataChannelKind */
  guint8  indent;  /* 1 for a thread under its process */
  guint16 reserved;
  float   y;
  float   h;
} StrataPaintRow;

typedef struct
{
  gint64      time;
  float       x;          /* frame coordinates */
  gboolean    labelled;   /* a major tick; minor ones have no label */
  const char *label;      /* owned by whoever filled the array's chunk */
} StrataPaintTick;

/* The frame around the timeline: where the row names, the ruler and the
 * legend go, and the rows' height. */
typedef struct
{
  guint             row_height;
  guint             name_width;     /* 0 leaves the row names out */
  guint             ruler_height;   /* 0 leaves the ruler out */
  guint             legend_height;  /* 0 leaves the legend out */
  StrataPaintScheme scheme;
} StrataPaintStyle;

/* The timeline area: [from, to) across width pixels, rows scrolled up by
 * scroll_y pixels in height pixels. The frame adds the style's margins. */
typedef struct
{
  gint64 from;
  gint64 to;
  guint  width;
  guint  height;
  float  scroll_y;
} StrataPaintViewport;

/* One frame. Rectangles are drawn in order, then the texts over them. */
typedef struct
{
  gint64               from;
  gint64               to;
  double               ns_per_pixel;
  float                frame_width;
  float                frame_height;
  float                area_x;        /* the timeline area in the frame */
  float                area_y;
  float                area_width;
  float                area_height;
  guint                level;         /* the zoom tree's level drawn */
  guint                n_items;       /* items the query returned */
  guint                n_folded;      /* of them, those in view folded into columns */
  StrataZoomQueryStats stats;
  GArray              *rects;         /* StrataPaintRect */
  GArray              *texts;         /* StrataPaintText */
  GArray              *rows;          /* StrataPaintRow, the visible ones */
  GArray              *ticks;         /* StrataPaintTick */

  /*< private >*/
  GStringChunk        *strings;
} StrataDisplayList;

typedef struct _StrataPainter StrataPainter;

void               strata_paint_style_init          (StrataPaintStyle          *style);

StrataDisplayList *strata_display_list_new          (void);
void               strata_display_list_clear        (StrataDisplayList         *self);
void               strata_display_list_free         (StrataDisplayList         *self);
float              strata_display_list_x_for_time   (const StrataDisplayList   *self,
                                                     gint64                     t);
const StrataPaintRow *strata_display_list_find_row  (const StrataDisplayList   *self,
                                                     guint32                    channel);

StrataPainter     *strata_painter_new               (StrataStringPool          *strings,
                                                     StrataZoomTree            *tree);
StrataPainter     *strata_painter_new_for_trace     (StrataTrace               *trace);
void               strata_painter_free              (StrataPainter             *self);
void               strata_painter_set_channels      (StrataPainter             *self,
                                                     const StrataChannel       *channels,
                                                     guint                      n_channels);
void               strata_painter_grow_channels     (StrataPainter             *self,
                                                     const StrataChannel       *channels,
                                                     guint                      n_channels,
                                                     const guint32             *changed,
                                                     guint                      n_changed);
void               strata_painter_set_extent        (StrataPainter             *self,
                                                     gint64                     start,
                                                     gint64                     end);
void               strata_painter_set_style         (StrataPainter             *self,
                                                     const StrataPaintStyle    *style);
const StrataPaintStyle *strata_painter_get_style    (StrataPainter             *self);
void               strata_painter_set_rows          (StrataPainter             *self,
                                                     const guint32             *channels,
                                                     guint                      n_rows);
const guint32     *strata_painter_get_rows          (StrataPainter             *self,
                                                     guint                     *n_rows);
GArray            *strata_painter_default_rows      (StrataPainter             *self);
const guint32     *strata_painter_update_default_rows (StrataPainter            *self,
                                                     guint                     *n_rows);
const guint32     *strata_painter_get_default_rows  (StrataPainter             *self,
                                                     guint                     *n_rows);
void               strata_painter_show_default_rows (StrataPainter             *self);
void               strata_painter_set_row_members   (StrataPainter             *self,
                                                     guint32                    row,
                                                     const guint32             *members,
                                                     guint                      n_members);
void               strata_painter_clear_row_members (StrataPainter             *self);
const guint32     *strata_painter_get_row_members   (StrataPainter             *self,
                                                     guint32                    row,
                                                     guint                     *n_members);
void               strata_painter_paint             (StrataPainter             *self,
                                                     const StrataPaintViewport *viewport,
                                                     StrataDisplayList         *list);

guint32            strata_paint_state_color         (StrataPaintScheme          scheme,
                                                     StrataTaskState            state);
guint32            strata_paint_task_color          (StrataPaintScheme          scheme,
                                                     gint32                     tid);

gint64             strata_paint_ruler_step          (gint64                     span,
                                                     double                     width,
                                                     double                     min_spacing);
void               strata_paint_ruler_ticks         (gint64                     from,
                                                     gint64                     to,
                                                     double                     x,
                                                     double                     width,
                                                     gint64                     origin,
                                                     double                     min_spacing,
                                                     GArray                    *ticks,
                                                     GStringChunk              *labels);
char              *strata_paint_format_time         (gint64                     t,
                                                     gint64                     magnitude,
                                                     gint64                     step);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataDisplayList, strata_display_list_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataPainter, strata_painter_free)

G_END_DECLS
