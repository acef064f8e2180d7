/* strata-flame-graph-view.h
 *
 * A flame graph drawn as an icicle: the root (every sample) on top, each
 * frame under its caller, as wide as its share of the samples. A click
 * zooms into a frame (its callers stay above it, full width), a click on
 * the root or Escape zooms out; a search tints the frames whose name
 * holds the text and says what share of the samples they cover; hovering
 * a frame tells its self and total counts and shares.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata.h"

G_BEGIN_DECLS

#define STRATA_TYPE_FLAME_GRAPH_VIEW (strata_flame_graph_view_get_type ())

G_DECLARE_FINAL_TYPE (StrataFlameGraphView, strata_flame_graph_view, STRATA, FLAME_GRAPH_VIEW, GtkWidget)

GtkWidget        *strata_flame_graph_view_new          (void);
void              strata_flame_graph_view_set_graph    (StrataFlameGraphView *self,
                                                        StrataFlameGraph     *graph);
StrataFlameGraph *strata_flame_graph_view_get_graph    (StrataFlameGraphView *self);
void              strata_flame_graph_view_set_search   (StrataFlameGraphView *self,
                                                        const char           *text);
guint64           strata_flame_graph_view_get_matched  (StrataFlameGraphView *self);
void              strata_flame_graph_view_zoom_to      (StrataFlameGraphView *self,
                                                        guint32               node);
guint32           strata_flame_graph_view_get_zoom     (StrataFlameGraphView *self);
guint32           strata_flame_graph_view_node_at      (StrataFlameGraphView *self,
                                                        double                x,
                                                        double                y);
gboolean          strata_flame_graph_view_get_node_area (StrataFlameGraphView *self,
                                                         guint32               node,
                                                         graphene_rect_t      *area);
char             *strata_flame_graph_view_describe     (StrataFlameGraphView *self,
                                                        guint32               node);

G_END_DECLS
