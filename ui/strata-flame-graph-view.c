/* strata-flame-graph-view.c
 *
 * See strata-flame-graph-view.h. Each frame's place is its offset in
 * samples from the root's start (its callers' offsets plus the totals of
 * its elder siblings), computed once per graph; a zoom shows the samples
 * [offset, offset + total) of the zoomed frame across the width, so its
 * callers, which hold it, span the width too. Frames narrower than half
 * a pixel are not drawn; text only where it fits, through one layout.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "strata-flame-graph-view.h"

#define ROW_HEIGHT 18

struct _StrataFlameGraphView
{
  GtkWidget         parent_instance;

  StrataFlameGraph *graph;
  guint64          *offsets;   /* per node */
  gboolean         *matches;   /* per node: its name holds the search */
  char             *search;
  guint64           matched;
  guint32           zoom;
  PangoLayout      *layout;
};

G_DEFINE_FINAL_TYPE (StrataFlameGraphView, strata_flame_graph_view, GTK_TYPE_WIDGET)

static const StrataFlameNode *
nodes_of (StrataFlameGraphView *self,
          guint                *n)
{
  *n = 0;
  return self->graph != NULL ? strata_flame_graph_get_nodes (self->graph, n) : NULL;
}

static void
layout_offsets (StrataFlameGraphView *self)
{
  const StrataFlameNode *nodes;
  guint n;

  g_clear_pointer (&self->offsets, g_free);
  nodes = nodes_of (self, &n);
  if (n == 0)
    return;
  self->offsets = g_new0 (guint64, n);
  /* A child always comes after its parent. */
  for (guint i = 0; i < n; i++)
    {
      guint64 at = self->offsets[i];

      for (guint32 c = nodes[i].first_child; c != STRATA_FLAME_NONE; c = nodes[c].next_sibling)
        {
          self->offsets[c] = at;
          at += nodes[c].total;
        }
    }
}

static void
update_matches (StrataFlameGraphView *self)
{
  const StrataFlameNode *nodes;
  guint n;

  g_clear_pointer (&self->matches, g_free);
  self->matched = 0;
  nodes = nodes_of (self, &n);
  if (n == 0 || self->search == NULL || self->search[0] == '\0')
    return;

  self->matches = g_new0 (gboolean, n);
  for (guint i = 1; i < n; i++)
    {
      g_autofree char *folded = g_utf8_casefold (nodes[i].name, -1);

      self->matches[i] = strstr (folded, self->search) != NULL;
    }
  /* The samples under a matching frame, each once: a match below
   * another adds nothing. */
  for (guint i = 1; i < n; i++)
    {
      gboolean under = FALSE;

      if (!self->matches[i])
        continue;
      for (guint32 p = nodes[i].parent; p != STRATA_FLAME_NONE && !under; p = nodes[p].parent)
        under = self->matches[p];
      if (!under)
        self->matched += nodes[i].total;
    }
}

/* The node's colour: warm, stable for a name (the same function keeps
 * its colour when zoomed or in another selection). */
static void
color_of (StrataFlameGraphView *self,
          guint32               node,
          const char           *name,
          GdkRGBA              *rgba)
{
  guint h = g_str_hash (name);

  rgba->red = (205 + h % 50) / 255.f;
  rgba->green = (80 + (h >> 8) % 140) / 255.f;
  rgba->blue = (40 + (h >> 16) % 50) / 255.f;
  rgba->alpha = 1;
  if (node == 0)
    {
      rgba->red = rgba->green = rgba->blue = 0.55f;
    }
  if (self->matches != NULL)
    {
      if (self->matches[node])
        {
          rgba->red = 0.57f;
          rgba->green = 0.25f;
          rgba->blue = 0.85f;
        }
      else
        rgba->alpha = 0.45f;
    }
}

static gboolean
window_of (StrataFlameGraphView *self,
           guint64              *from,
           guint64              *len)
{
  const StrataFlameNode *nodes;
  guint n;

  nodes = nodes_of (self, &n);
  if (n == 0 || nodes[0].total == 0 || self->offsets == NULL)
    return FALSE;
  *from = self->offsets[self->zoom];
  *len = MAX (nodes[self->zoom].total, 1);
  return TRUE;
}

gboolean
strata_flame_graph_view_get_node_area (StrataFlameGraphView *self,
                                       guint32               node,
                                       graphene_rect_t      *area)
{
  const StrataFlameNode *nodes;
  double width = gtk_widget_get_width (GTK_WIDGET (self));
  guint64 from, len;
  double x0, x1;
  guint n;

  g_return_val_if_fail (STRATA_IS_FLAME_GRAPH_VIEW (self), FALSE);

  nodes = nodes_of (self, &n);
  if (node >= n || !window_of (self, &from, &len))
    return FALSE;
  x0 = ((double) self->offsets[node] - (double) from) / len * width;
  x1 = ((double) self->offsets[node] + nodes[node].total - (double) from) / len * width;
  x0 = MAX (x0, 0);
  x1 = MIN (x1, width);
  if (x1 - x0 < 0.5)
    return FALSE;
  graphene_rect_init (area, x0, nodes[node].depth * ROW_HEIGHT, x1 - x0, ROW_HEIGHT - 1);
  return TRUE;
}

static void
strata_flame_graph_view_snapshot (GtkWidget   *widget,
                                  GtkSnapshot *snapshot)
{
  StrataFlameGraphView *self = STRATA_FLAME_GRAPH_VIEW (widget);
  const StrataFlameNode *nodes;
  GdkRGBA fg = { 0.1f, 0.1f, 0.1f, 1 };
  guint n;

  nodes = nodes_of (self, &n);
  if (self->layout == NULL)
    self->layout = gtk_widget_create_pango_layout (widget, NULL);

  for (guint i = 0; i < n; i++)
    {
      graphene_rect_t r;
      GdkRGBA rgba;
      int text_w, text_h;

      if (!strata_flame_graph_view_get_node_area (self, i, &r))
        continue;
      color_of (self, i, nodes[i].name, &rgba);
      gtk_snapshot_append_color (snapshot, &rgba, &r);
      if (r.size.width < 30)
        continue;

      pango_layout_set_text (self->layout, nodes[i].name, -1);
      pango_layout_set_width (self->layout, (int) ((r.size.width - 6) * PANGO_SCALE));
      pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_END);
      pango_layout_get_pixel_size (self->layout, &text_w, &text_h);
      gtk_snapshot_save (snapshot);
      gtk_snapshot_push_clip (snapshot, &r);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (r.origin.x + 3, r.origin.y + (ROW_HEIGHT - 1 - text_h) / 2.f));
      gtk_snapshot_append_layout (snapshot, self->layout, &fg);
      gtk_snapshot_pop (snapshot);
      gtk_snapshot_restore (snapshot);
    }
}

static void
strata_flame_graph_view_measure (GtkWidget      *widget,
                                 GtkOrientation  orientation,
                                 int             for_size,
                                 int            *minimum,
                                 int            *natural,
                                 int            *minimum_baseline,
                                 int            *natural_baseline)
{
  StrataFlameGraphView *self = STRATA_FLAME_GRAPH_VIEW (widget);

  if (orientation == GTK_ORIENTATION_VERTICAL)
    *minimum = *natural = self->graph != NULL
                          ? (int) (strata_flame_graph_get_max_depth (self->graph) + 1) * ROW_HEIGHT : 0;
  else
    *minimum = *natural = 200;
  *minimum_baseline = *natural_baseline = -1;
}

guint32
strata_flame_graph_view_node_at (StrataFlameGraphView *self,
                                 double                x,
                                 double                y)
{
  const StrataFlameNode *nodes;
  guint n;

  g_return_val_if_fail (STRATA_IS_FLAME_GRAPH_VIEW (self), STRATA_FLAME_NONE);

  nodes = nodes_of (self, &n);
  for (guint i = 0; i < n; i++)
    {
      graphene_rect_t r;

      if (nodes[i].depth == (guint) (y / ROW_HEIGHT) && strata_flame_graph_view_get_node_area (self, i, &r) &&
          x >= r.origin.x && x < r.origin.x + r.size.width)
        return i;
    }
  return STRATA_FLAME_NONE;
}

/**
 * strata_flame_graph_view_describe:
 *
 * Returns: (transfer full) (nullable): what the tooltip says of @node
 */
char *
strata_flame_graph_view_describe (StrataFlameGraphView *self,
                                  guint32               node)
{
  const StrataFlameNode *nodes;
  g_autofree char *total = NULL, *self_n = NULL;
  double whole;
  guint n;

  g_return_val_if_fail (STRATA_IS_FLAME_GRAPH_VIEW (self), NULL);

  nodes = nodes_of (self, &n);
  if (node >= n)
    return NULL;
  whole = MAX (nodes[0].total, 1);
  /* Translators: a flame graph frame's tooltip: its name, then its
   * samples with those of the functions it called, then its own */
  total = g_strdup_printf ("%" G_GUINT64_FORMAT, nodes[node].total);
  self_n = g_strdup_printf ("%" G_GUINT64_FORMAT, nodes[node].self);
  return g_strdup_printf (_("%s\nTotal: %s samples (%.1f%%)\nSelf: %s samples (%.1f%%)"),
                          nodes[node].name, total, 100.0 * nodes[node].total / whole,
                          self_n, 100.0 * nodes[node].self / whole);
}

static gboolean
query_tooltip (GtkWidget  *widget,
               int         x,
               int         y,
               gboolean    keyboard,
               GtkTooltip *tooltip,
               gpointer    data)
{
  StrataFlameGraphView *self = STRATA_FLAME_GRAPH_VIEW (widget);
  guint32 node = strata_flame_graph_view_node_at (self, x, y);
  g_autofree char *text = strata_flame_graph_view_describe (self, node);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
pressed (GtkGestureClick      *gesture,
         int                   n_press,
         double                x,
         double                y,
         StrataFlameGraphView *self)
{
  guint32 node = strata_flame_graph_view_node_at (self, x, y);

  if (node != STRATA_FLAME_NONE)
    strata_flame_graph_view_zoom_to (self, node);
}

static gboolean
key_pressed (GtkEventControllerKey *key,
             guint                  keyval,
             guint                  keycode,
             GdkModifierType        state,
             StrataFlameGraphView  *self)
{
  if (keyval == GDK_KEY_Escape && self->zoom != 0)
    {
      strata_flame_graph_view_zoom_to (self, 0);
      return TRUE;
    }
  return FALSE;
}

static void
strata_flame_graph_view_dispose (GObject *object)
{
  StrataFlameGraphView *self = STRATA_FLAME_GRAPH_VIEW (object);

  g_clear_pointer (&self->graph, strata_flame_graph_free);
  g_clear_pointer (&self->offsets, g_free);
  g_clear_pointer (&self->matches, g_free);
  g_clear_pointer (&self->search, g_free);
  g_clear_object (&self->layout);
  G_OBJECT_CLASS (strata_flame_graph_view_parent_class)->dispose (object);
}

static void
strata_flame_graph_view_class_init (StrataFlameGraphViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = strata_flame_graph_view_dispose;
  widget_class->snapshot = strata_flame_graph_view_snapshot;
  widget_class->measure = strata_flame_graph_view_measure;
  gtk_widget_class_set_css_name (widget_class, "flamegraph");
}

static void
strata_flame_graph_view_init (StrataFlameGraphView *self)
{
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *key = gtk_event_controller_key_new ();

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip), NULL);
  g_signal_connect (click, "pressed", G_CALLBACK (pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  g_signal_connect (key, "key-pressed", G_CALLBACK (key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), key);
}

GtkWidget *
strata_flame_graph_view_new (void)
{
  return g_object_new (STRATA_TYPE_FLAME_GRAPH_VIEW, NULL);
}

/**
 * strata_flame_graph_view_set_graph:
 * @graph: (transfer full) (nullable): what to draw
 */
void
strata_flame_graph_view_set_graph (StrataFlameGraphView *self,
                                   StrataFlameGraph     *graph)
{
  g_return_if_fail (STRATA_IS_FLAME_GRAPH_VIEW (self));

  g_clear_pointer (&self->graph, strata_flame_graph_free);
  self->graph = graph;
  self->zoom = 0;
  layout_offsets (self);
  update_matches (self);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

StrataFlameGraph *
strata_flame_graph_view_get_graph (StrataFlameGraphView *self)
{
  g_return_val_if_fail (STRATA_IS_FLAME_GRAPH_VIEW (self), NULL);
  return self->graph;
}

void
strata_flame_graph_view_set_search (StrataFlameGraphView *self,
                                    const char           *text)
{
  g_return_if_fail (STRATA_IS_FLAME_GRAPH_VIEW (self));

  g_clear_pointer (&self->search, g_free);
  if (text != NULL && text[0] != '\0')
    self->search = g_utf8_casefold (text, -1);
  update_matches (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The samples under the frames the search matches (each once). */
guint64
strata_flame_graph_view_get_matched (StrataFlameGraphView *self)
{
  g_return_val_if_fail (STRATA_IS_FLAME_GRAPH_VIEW (self), 0);
  return self->matched;
}

void
strata_flame_graph_view_zoom_to (StrataFlameGraphView *self,
                                 guint32               node)
{
  guint n;

  g_return_if_fail (STRATA_IS_FLAME_GRAPH_VIEW (self));

  nodes_of (self, &n);
  self->zoom = node < n ? node : 0;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint32
strata_flame_graph_view_get_zoom (StrataFlameGraphView *self)
{
  g_return_val_if_fail (STRATA_IS_FLAME_GRAPH_VIEW (self), 0);
  return self->zoom;
}
