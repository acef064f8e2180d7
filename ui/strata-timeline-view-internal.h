/* strata-timeline-view-internal.h
 *
 * The timeline widget's state and geometry, for the two files it is
 * written in: strata-timeline-view.c (the trace, rows, painting, hit
 * testing and what it shows of the session) and strata-timeline-input.c
 * (pointer, keys, gestures and the row menu). Nothing else includes it;
 * the tests use strata-timeline-view-private.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <math.h>

#include "strata-timeline-render.h"
#include "strata-timeline-view-private.h"

G_BEGIN_DECLS

#define OVERVIEW_HEIGHT     STRATA_TIMELINE_OVERVIEW_HEIGHT
#define WHEEL_ZOOM_STEP     1.25
#define KEY_ZOOM_STEP       1.5
#define KEY_PAN_FRACTION    0.125
#define MIN_NS_PER_PIXEL    0.25
#define ACCENT              0x3584e4ffu

typedef enum
{
  DRAG_NONE,
  DRAG_PAN,
  DRAG_RANGE,
  DRAG_OVERVIEW,
  DRAG_NAMES,
} DragMode;

/* What the painter's display list depends on: the viewport, and its
 * own state as of content_serial. A frame with the same key as the last
 * one is that frame again. */
typedef struct
{
  StrataPaintViewport vp;
  guint               serial;
} PaintKey;

struct _StrataTimelineView
{
  GtkWidget                parent_instance;

  StrataTrace             *trace;
  /* What the other views share with this one: the range, history,
   * selection, markers and search. The view draws it and changes it. */
  StrataSession           *session;
  gboolean                 syncing_session; /* installing a trace: tell no one yet */
  gboolean                 selecting;       /* a selection made here, on a row in view */
  StrataZoomTree          *tree;
  StrataTimelineOverlayFunc overlay;      /* drawn over the rows (wakeups, a path) */
  gpointer                 overlay_data;
  const StrataChannel     *channels;      /* the trace's, or live_channels */
  guint                    n_channels;
  StrataSpilledArray      *live_channels; /* StrataChannel: found so far, while loading;
                                           * the trace's (strata_trace_set_live()), not owned */
  gboolean                 live;
  StrataPainter           *painter;
  StrataPainter           *overview_painter;
  StrataDisplayList       *list;
  PaintKey                 list_key;       /* what self->list was painted for */
  guint                    content_serial; /* bumped when what the painter draws changes; from 1 */
  guint                    n_paints;
  GskRenderNode           *rects_node;     /* self->list drawn, with its scale */
  GskRenderNode           *texts_node;
  int                      nodes_scale;
  StrataDisplayList       *overview_list;
  GskRenderNode           *overview_node;
  int                      overview_width;
  StrataTimelineRender    *render;
  PangoLayout             *layout;

  StrataPaintStyle         style;
  gboolean                 dark;

  GtkAdjustment           *hadjustment;
  GtkAdjustment           *vadjustment;
  guint                    hscroll_policy : 1;
  guint                    vscroll_policy : 1;
  gboolean                 syncing_adjustments;

  /* The rows shown are the painter's (shown_rows()): its default rows
   * (base_rows()) read where it keeps them, or, once the user pinned,
   * hid or folded some, those made from them here and handed to it. */
  StrataSpilledArray      *chosen_rows; /* guint32 */
  GArray                  *pinned;      /* guint32 */
  GHashTable              *hidden;      /* channel set */
  GHashTable              *collapsed;   /* process channel set */

  gboolean                 pointer_inside;
  double                   pointer_x;
  double                   pointer_y;
  gboolean                 has_hover;
  StrataZoomItem           hover;

  DragMode                 drag_mode;
  double                   drag_x;
  double                   drag_y;
  gint64                   drag_from;
  gint64                   drag_to;
  double                   drag_scroll;
  gboolean                 drag_moved;
  gint64                   drag_range_from; /* DRAG_RANGE: what the drag covers */
  gint64                   drag_range_to;

  gint64                   pinch_from;
  gint64                   pinch_to;
  double                   pinch_x;

  GtkWidget               *row_menu;
  guint32                  menu_channel;
};

/* Geometry ---------------------------------------------------------------- */

static inline double
rows_top (StrataTimelineView *self)
{
  return OVERVIEW_HEIGHT + self->style.ruler_height;
}

static inline int
rows_area_height (StrataTimelineView *self)
{
  int h = gtk_widget_get_height (GTK_WIDGET (self));

  return MAX (0, h - OVERVIEW_HEIGHT - (int) self->style.ruler_height - (int) self->style.legend_height);
}

static inline int
area_width (StrataTimelineView *self)
{
  return MAX (1, gtk_widget_get_width (GTK_WIDGET (self)) - (int) self->style.name_width);
}

static inline double
ns_per_pixel (StrataTimelineView *self)
{
  return (double) (strata_session_get_to (self->session) - strata_session_get_from (self->session)) / area_width (self);
}

static inline gint64
time_at (StrataTimelineView *self,
         double              x)
{
  return strata_session_get_from (self->session) + (gint64) llround ((x - self->style.name_width) * ns_per_pixel (self));
}

/* The rows shown, top to bottom: valid until they change. */
static inline const guint32 *
shown_rows (StrataTimelineView *self,
            guint              *n_rows)
{
  *n_rows = 0;
  return self->painter != NULL ? strata_painter_get_rows (self->painter, n_rows) : NULL;
}

/* The painter's default rows, as the last showing made them. */
static inline const guint32 *
base_rows (StrataTimelineView *self,
           guint              *n_rows)
{
  *n_rows = 0;
  return self->painter != NULL ? strata_painter_get_default_rows (self->painter, n_rows) : NULL;
}

/* The rows are drawn at whole pixels, however finely a touchpad scrolls
 * the adjustment: a row's edges stay sharp, and a frame after a scroll
 * can draw the rows it already drew again instead of asking for them. */
static inline double
scroll_y (StrataTimelineView *self)
{
  return self->vadjustment != NULL ? round (gtk_adjustment_get_value (self->vadjustment)) : 0;
}

int       _strata_timeline_view_row_index_at      (StrataTimelineView *self,
                                                   double              y);
gboolean  _strata_timeline_view_is_pinned         (StrataTimelineView *self,
                                                   guint32             channel);
void      _strata_timeline_view_init_input        (StrataTimelineView *self);
void      _strata_timeline_view_class_init_input  (GtkWidgetClass     *widget_class);

G_END_DECLS
