/* strata-timeline-render.h
 *
 * The painter's display list as GTK render nodes: its rectangles as colour
 * nodes (a dense row's as one texture), its texts through one reused
 * PangoLayout. The timeline widget's
 * snapshot() draws through this, and so does the frame benchmark, so what
 * is measured is what is shown. It is the GTK twin of strata-cli render's
 * cairo rasterizer: both draw the same list.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata.h"

G_BEGIN_DECLS

typedef struct _StrataTimelineRender StrataTimelineRender;

StrataTimelineRender *strata_timeline_render_new      (PangoContext            *context);
void                  strata_timeline_render_free     (StrataTimelineRender    *self);
void                  strata_timeline_render_set_scale (StrataTimelineRender   *self,
                                                       int                     scale);
void                  strata_timeline_render_rects    (StrataTimelineRender    *self,
                                                       GtkSnapshot             *snapshot,
                                                       const StrataDisplayList *list);
void                  strata_timeline_render_texts    (StrataTimelineRender    *self,
                                                       GtkSnapshot             *snapshot,
                                                       const StrataDisplayList *list);
void                  strata_timeline_render_list     (StrataTimelineRender    *self,
                                                       GtkSnapshot             *snapshot,
                                                       const StrataDisplayList *list);

static inline void
strata_rgba_from_u32 (GdkRGBA *rgba,
                      guint32  c)
{
  rgba->red = ((c >> 24) & 0xff) / 255.f;
  rgba->green = ((c >> 16) & 0xff) / 255.f;
  rgba->blue = ((c >> 8) & 0xff) / 255.f;
  rgba->alpha = (c & 0xff) / 255.f;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataTimelineRender, strata_timeline_render_free)

G_END_DECLS
