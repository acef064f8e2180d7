/* strata-timeline-input.c
 *
 * The timeline's input: Ctrl+wheel and pinch zoom around the pointer,
 * drags that pan, move the overview's window, drag out a range on the
 * ruler or scroll the names; clicks that select an activity or a row
 * (in the session, so every view sees it); W/A/S/D, Home, End, M,
 * Escape and Alt+arrows; the hover outline; the row menu (pin, hide,
 * fold). Each handler changes the session or the view's rows and lets
 * the next frame draw it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "strata-timeline-view-internal.h"

/**
 * strata_timeline_view_handle_scroll:
 * @wheel: the deltas are wheel clicks, not pixels (a touchpad)
 *
 * Ctrl+scroll zooms around the pointer; horizontal (or Shift+) scroll
 * pans; vertical scroll moves the rows.
 */
gboolean
strata_timeline_view_handle_scroll (StrataTimelineView *self,
                                    double              x,
                                    double              y,
                                    double              dx,
                                    double              dy,
                                    GdkModifierType     state,
                                    gboolean            wheel)
{
  double px_x = wheel ? dx * 60 : dx;
  double px_y = wheel ? dy * 3 * self->style.row_height : dy;

  if (self->trace == NULL)
    return FALSE;

  if (state & GDK_CONTROL_MASK)
    {
      double factor = wheel ? pow (WHEEL_ZOOM_STEP, dy) : exp (dy * 0.01);

      strata_session_push_history_for_burst (self->session);
      strata_timeline_view_zoom (self, factor, x);
      return TRUE;
    }

  if (state & GDK_SHIFT_MASK)
    {
      px_x = wheel ? dy * 60 : dy;
      px_y = 0;
    }

  if (px_x != 0)
    {
      strata_session_push_history_for_burst (self->session);
      strata_timeline_view_pan (self, px_x);
    }
  if (px_y != 0 && self->vadjustment != NULL)
    gtk_adjustment_set_value (self->vadjustment, gtk_adjustment_get_value (self->vadjustment) + px_y);
  return TRUE;
}

static gboolean
on_scroll (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           StrataTimelineView       *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  gboolean wheel = gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL;

  return strata_timeline_view_handle_scroll (self, self->pointer_x, self->pointer_y, dx, dy, state, wheel);
}

void
strata_timeline_view_handle_drag_begin (StrataTimelineView *self,
                                        double              x,
                                        double              y)
{
  self->drag_x = x;
  self->drag_y = y;
  self->drag_from = strata_session_get_from (self->session);
  self->drag_to = strata_session_get_to (self->session);
  self->drag_scroll = scroll_y (self);
  self->drag_moved = FALSE;

  if (self->trace == NULL)
    self->drag_mode = DRAG_NONE;
  else if (y < OVERVIEW_HEIGHT)
    self->drag_mode = x >= self->style.name_width ? DRAG_OVERVIEW : DRAG_NONE;
  else if (y < rows_top (self))
    self->drag_mode = x >= self->style.name_width ? DRAG_RANGE : DRAG_NONE;
  else if (x < self->style.name_width)
    self->drag_mode = DRAG_NAMES;
  else
    self->drag_mode = DRAG_PAN;

  if (self->drag_mode == DRAG_OVERVIEW)
    {
      /* A press in the overview centres the window there. */
      gint64 span = strata_session_get_to (self->session) - strata_session_get_from (self->session);
      gint64 t = strata_session_get_start (self->session) + (gint64) ((x - self->style.name_width) / area_width (self) *
                                         (double) (strata_session_get_end (self->session) - strata_session_get_start (self->session)));

      strata_session_push_history (self->session);
      strata_timeline_view_set_range (self, t - span / 2, t - span / 2 + span);
      self->drag_from = strata_session_get_from (self->session);
      self->drag_to = strata_session_get_to (self->session);
    }
  else if (self->drag_mode == DRAG_PAN)
    strata_session_push_history (self->session);
}

void
strata_timeline_view_handle_drag_update (StrataTimelineView *self,
                                         double              dx,
                                         double              dy)
{
  double npp = (double) (self->drag_to - self->drag_from) / area_width (self);

  if (fabs (dx) >= 3 || fabs (dy) >= 3)
    self->drag_moved = TRUE;
  if (!self->drag_moved)
    return;

  switch (self->drag_mode)
    {
    case DRAG_PAN:
      {
        gint64 dt = (gint64) llround (dx * npp);

        strata_timeline_view_set_range (self, self->drag_from - dt, self->drag_to - dt);
        if (self->vadjustment != NULL)
          gtk_adjustment_set_value (self->vadjustment, self->drag_scroll - dy);
      }
      break;

    case DRAG_NAMES:
      if (self->vadjustment != NULL)
        gtk_adjustment_set_value (self->vadjustment, self->drag_scroll - dy);
      break;

    case DRAG_OVERVIEW:
      {
        double full_npp = (double) (strata_session_get_end (self->session) - strata_session_get_start (self->session)) / area_width (self);
        gint64 dt = (gint64) llround (dx * full_npp);

        strata_timeline_view_set_range (self, self->drag_from + dt, self->drag_to + dt);
      }
      break;

    case DRAG_RANGE:
      {
        gint64 a = time_at (self, self->drag_x);
        gint64 b = time_at (self, self->drag_x + dx);

        self->drag_range_from = MAX (MIN (a, b), strata_session_get_start (self->session));
        self->drag_range_to = MIN (MAX (a, b), strata_session_get_end (self->session));
        gtk_widget_queue_draw (GTK_WIDGET (self));
      }
      break;

    case DRAG_NONE:
    default:
      break;
    }
}

static void
select_at (StrataTimelineView *self,
           double              x,
           double              y)
{
  StrataZoomItem item;

  if (strata_timeline_view_hit (self, x, y, &item))
    {
      self->selecting = TRUE;
      strata_session_select_item (self->session, &item);
      self->selecting = FALSE;
    }
  else
    strata_timeline_view_clear_selection (self);
}

void
strata_timeline_view_handle_drag_end (StrataTimelineView *self,
                                      double              dx,
                                      double              dy)
{
  DragMode mode = self->drag_mode;

  strata_timeline_view_handle_drag_update (self, dx, dy);
  self->drag_mode = DRAG_NONE;

  if (mode == DRAG_RANGE && self->drag_moved && self->drag_range_to > self->drag_range_from)
    strata_session_select_range (self->session, self->drag_range_from, self->drag_range_to);
  else if (mode == DRAG_RANGE)
    strata_timeline_view_clear_selection (self);
  else if (mode == DRAG_PAN && !self->drag_moved)
    select_at (self, self->drag_x, self->drag_y);
  else if (mode == DRAG_NAMES && !self->drag_moved)
    {
      int i = _strata_timeline_view_row_index_at (self, self->drag_y);

      if (i >= 0)
        {
          guint n_rows;
          guint32 ch = shown_rows (self, &n_rows)[i];
          const StrataChannel *channels;
          guint n;

          channels = self->channels, n = self->n_channels;
          /* A click on a process's name folds or unfolds its threads. */
          if (ch < n && channels[ch].kind == STRATA_CHANNEL_PROCESS)
            strata_timeline_view_set_expanded (self, ch,
                                               g_hash_table_contains (self->collapsed, GUINT_TO_POINTER (ch)));
          self->selecting = TRUE;
          strata_session_select_row (self->session, ch);
          self->selecting = FALSE;
        }
    }
}

static void
on_drag_begin (GtkGestureDrag     *gesture,
               double              x,
               double              y,
               StrataTimelineView *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
  strata_timeline_view_handle_drag_begin (self, x, y);
}

static void
on_drag_update (GtkGestureDrag     *gesture,
                double              dx,
                double              dy,
                StrataTimelineView *self)
{
  strata_timeline_view_handle_drag_update (self, dx, dy);
}

static void
on_drag_end (GtkGestureDrag     *gesture,
             double              dx,
             double              dy,
             StrataTimelineView *self)
{
  strata_timeline_view_handle_drag_end (self, dx, dy);
}

/* A double click zooms to the activity under the pointer. */
void
strata_timeline_view_handle_press (StrataTimelineView *self,
                                   int                 n_press,
                                   double              x,
                                   double              y)
{
  StrataZoomItem item;

  if (n_press != 2 || x < self->style.name_width || y < rows_top (self))
    return;
  if (strata_timeline_view_hit (self, x, y, &item))
    {
      gint64 span = MAX (item.end - item.start, 1);
      gint64 margin = span / 10 + 1;

      strata_timeline_view_navigate_to (self, item.start - margin, item.end + margin);
    }
}

static void
on_pressed (GtkGestureClick    *gesture,
            int                 n_press,
            double              x,
            double              y,
            StrataTimelineView *self)
{
  strata_timeline_view_handle_press (self, n_press, x, y);
}

static void
on_context_pressed (GtkGestureClick    *gesture,
                    int                 n_press,
                    double              x,
                    double              y,
                    StrataTimelineView *self)
{
  g_autoptr(GMenu) menu = NULL;
  const StrataChannel *channels;
  guint n;
  int i = _strata_timeline_view_row_index_at (self, y);
  guint32 ch;

  if (i < 0 || self->trace == NULL)
    return;
  ch = shown_rows (self, &n)[i];
  channels = self->channels, n = self->n_channels;
  self->menu_channel = ch;

  menu = g_menu_new ();
  g_menu_append (menu, _strata_timeline_view_is_pinned (self, ch) ? _("Unpin Row") : _("Pin Row to Top"), "timeline.toggle-pin");
  g_menu_append (menu, _("Hide Row"), "timeline.hide-row");
  if (ch < n && channels[ch].kind == STRATA_CHANNEL_PROCESS)
    g_menu_append (menu, g_hash_table_contains (self->collapsed, GUINT_TO_POINTER (ch))
                           ? _("Expand Threads") : _("Collapse Threads"), "timeline.toggle-expand");
  g_menu_append (menu, _("Show All Rows"), "timeline.show-all");

  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->row_menu), G_MENU_MODEL (menu));
  gtk_popover_set_pointing_to (GTK_POPOVER (self->row_menu), &(GdkRectangle) { (int) x, (int) y, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->row_menu));
}

static void
action_toggle_pin (GtkWidget  *widget,
                   const char *name,
                   GVariant   *param)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (widget);

  strata_timeline_view_set_row_pinned (self, self->menu_channel, !_strata_timeline_view_is_pinned (self, self->menu_channel));
}

static void
action_hide_row (GtkWidget  *widget,
                 const char *name,
                 GVariant   *param)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (widget);

  strata_timeline_view_set_row_hidden (self, self->menu_channel, TRUE);
}

static void
action_toggle_expand (GtkWidget  *widget,
                      const char *name,
                      GVariant   *param)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (widget);

  strata_timeline_view_set_expanded (self, self->menu_channel,
                                     g_hash_table_contains (self->collapsed, GUINT_TO_POINTER (self->menu_channel)));
}

static void
action_show_all (GtkWidget  *widget,
                 const char *name,
                 GVariant   *param)
{
  strata_timeline_view_show_all_rows (STRATA_TIMELINE_VIEW (widget));
}

static void
on_zoom_begin (GtkGesture         *gesture,
               GdkEventSequence   *sequence,
               StrataTimelineView *self)
{
  double x, y;

  strata_session_push_history (self->session);
  self->pinch_from = strata_session_get_from (self->session);
  self->pinch_to = strata_session_get_to (self->session);
  if (!gtk_gesture_get_bounding_box_center (gesture, &x, &y))
    x = self->pointer_x;
  self->pinch_x = x;
}

static void
on_zoom_scale_changed (GtkGestureZoom     *gesture,
                       double              scale,
                       StrataTimelineView *self)
{
  double npp = (double) (self->pinch_to - self->pinch_from) / area_width (self);
  gint64 anchor = self->pinch_from + (gint64) llround ((self->pinch_x - self->style.name_width) * npp);
  double span = (self->pinch_to - self->pinch_from) / MAX (scale, 1e-3);
  gint64 from = anchor - (gint64) llround ((self->pinch_x - self->style.name_width) * span / area_width (self));

  strata_timeline_view_set_range (self, from, from + (gint64) llround (span));
}

/**
 * strata_timeline_view_handle_key:
 *
 * W/S zoom in and out around the pointer (or the middle), A/D pan as in
 * Perfetto and chrome://tracing; Home fits the trace; M drops a marker;
 * Escape clears the selection; Alt+Left/Right go back and forward.
 */
gboolean
strata_timeline_view_handle_key (StrataTimelineView *self,
                                 guint               keyval,
                                 GdkModifierType     state)
{
  double anchor = self->pointer_inside ? self->pointer_x : -1;

  if (self->trace == NULL)
    return FALSE;
  if (state & (GDK_CONTROL_MASK | GDK_SUPER_MASK))
    return FALSE;

  if (state & GDK_ALT_MASK)
    {
      if (keyval == GDK_KEY_Left)
        return strata_timeline_view_go_back (self), TRUE;
      if (keyval == GDK_KEY_Right)
        return strata_timeline_view_go_forward (self), TRUE;
      return FALSE;
    }

  switch (keyval)
    {
    case GDK_KEY_w:
    case GDK_KEY_W:
      strata_session_push_history_for_burst (self->session);
      strata_timeline_view_zoom (self, 1 / KEY_ZOOM_STEP, anchor);
      return TRUE;
    case GDK_KEY_s:
    case GDK_KEY_S:
      strata_session_push_history_for_burst (self->session);
      strata_timeline_view_zoom (self, KEY_ZOOM_STEP, anchor);
      return TRUE;
    case GDK_KEY_a:
    case GDK_KEY_A:
    case GDK_KEY_Left:
      strata_session_push_history_for_burst (self->session);
      strata_timeline_view_pan (self, -KEY_PAN_FRACTION * area_width (self));
      return TRUE;
    case GDK_KEY_d:
    case GDK_KEY_D:
    case GDK_KEY_Right:
      strata_session_push_history_for_burst (self->session);
      strata_timeline_view_pan (self, KEY_PAN_FRACTION * area_width (self));
      return TRUE;
    case GDK_KEY_Up:
      gtk_adjustment_set_value (self->vadjustment, gtk_adjustment_get_value (self->vadjustment) - self->style.row_height);
      return TRUE;
    case GDK_KEY_Down:
      gtk_adjustment_set_value (self->vadjustment, gtk_adjustment_get_value (self->vadjustment) + self->style.row_height);
      return TRUE;
    case GDK_KEY_Home:
      strata_timeline_view_fit (self);
      return TRUE;
    case GDK_KEY_End:
      strata_session_push_history_for_burst (self->session);
      strata_timeline_view_follow (self);
      return TRUE;
    case GDK_KEY_m:
    case GDK_KEY_M:
      strata_timeline_view_add_marker (self, self->pointer_inside && self->pointer_x >= self->style.name_width
                                               ? time_at (self, self->pointer_x)
                                               : strata_session_get_from (self->session) + (strata_session_get_to (self->session) - strata_session_get_from (self->session)) / 2);
      return TRUE;
    case GDK_KEY_Escape:
      if (strata_session_get_selection (self->session)->kind == STRATA_SELECTION_NONE)
        strata_session_clear_markers (self->session);
      strata_timeline_view_clear_selection (self);
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                StrataTimelineView    *self)
{
  return strata_timeline_view_handle_key (self, keyval, state);
}

void
strata_timeline_view_handle_motion (StrataTimelineView *self,
                                    double              x,
                                    double              y)
{
  StrataZoomItem item;
  gboolean hit;

  self->pointer_inside = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;

  if (self->drag_mode != DRAG_NONE)
    return;
  hit = strata_timeline_view_hit (self, x, y, &item);
  if (hit != self->has_hover || (hit && memcmp (&item, &self->hover, sizeof item) != 0))
    {
      self->has_hover = hit;
      if (hit)
        self->hover = item;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
on_motion (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           StrataTimelineView       *self)
{
  strata_timeline_view_handle_motion (self, x, y);
}

static void
on_leave (GtkEventControllerMotion *controller,
          StrataTimelineView       *self)
{
  self->pointer_inside = FALSE;
  if (self->has_hover)
    {
      self->has_hover = FALSE;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

/* The event controllers, added once by the widget's init. */
void
_strata_timeline_view_init_input (StrataTimelineView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (controller, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "enter", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_key_new ();
  g_signal_connect (controller, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (gesture, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect (gesture, "pressed", G_CALLBACK (on_pressed), self);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_SECONDARY);
  g_signal_connect (gesture, "pressed", G_CALLBACK (on_context_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (on_zoom_begin), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (on_zoom_scale_changed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
}

void
_strata_timeline_view_class_init_input (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "timeline.toggle-pin", NULL, action_toggle_pin);
  gtk_widget_class_install_action (widget_class, "timeline.hide-row", NULL, action_hide_row);
  gtk_widget_class_install_action (widget_class, "timeline.toggle-expand", NULL, action_toggle_expand);
  gtk_widget_class_install_action (widget_class, "timeline.show-all", NULL, action_show_all);
}
