/* strata-wakeup-arrows.c
 *
 * See strata-wakeup-arrows.h. The view's wakeups are found again only
 * when the view or its rows change, not on every redraw (a hover redraws
 * the kept frame and its overlay).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "strata-timeline-view-private.h"
#include "strata-wakeup-arrows.h"

struct _StrataWakeupArrows
{
  StrataTrace     *trace;
  StrataThreadMap *threads;
  gboolean         has_selected;
  StrataWakeup     selected;
  guint32          selected_end_row;   /* where the selected arrow ends */
  gboolean         show_all;
  GArray          *in_view;            /* StrataWakeup */
  gint64           view_from, view_to;
  guint            view_rows;
  guint32          view_first_row;
};

StrataWakeupArrows *
strata_wakeup_arrows_new (void)
{
  StrataWakeupArrows *self = g_new0 (StrataWakeupArrows, 1);

  self->in_view = g_array_new (FALSE, FALSE, sizeof (StrataWakeup));
  return self;
}

void
strata_wakeup_arrows_free (StrataWakeupArrows *self)
{
  if (self == NULL)
    return;
  g_clear_object (&self->trace);
  g_clear_pointer (&self->threads, strata_thread_map_free);
  g_array_unref (self->in_view);
  g_free (self);
}

void
strata_wakeup_arrows_set_trace (StrataWakeupArrows *self,
                                StrataTrace        *trace)
{
  g_return_if_fail (self != NULL);

  if (trace == self->trace)
    return;
  g_clear_object (&self->trace);
  g_clear_pointer (&self->threads, strata_thread_map_free);
  self->trace = trace != NULL ? g_object_ref (trace) : NULL;
  self->has_selected = FALSE;
  self->view_rows = 0;
  g_array_set_size (self->in_view, 0);
}

static StrataThreadMap *
threads_of (StrataWakeupArrows *self)
{
  if (self->threads == NULL)
    self->threads = strata_thread_map_new (self->trace);
  return self->threads;
}

/* The WOKEN state of @channel that ends (switch-in) at @t, or that holds @t. */
static gboolean
woken_state_at (StrataWakeupArrows *self,
                guint32             channel,
                gint64              t,
                gboolean            ending,
                StrataWakeup       *out)
{
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

  strata_trace_query_channel (self->trace, channel, t - 1, t + 1, found);
  for (guint i = 0; i < found->len; i++)
    {
      const StrataActivity *a = &g_array_index (found, StrataActivity, i);

      if (a->kind != STRATA_ACTIVITY_STATE || a->state != STRATA_TASK_STATE_WOKEN)
        continue;
      if ((ending && a->end == t) || (!ending && a->start <= t && a->end >= t))
        return strata_wakeup_from_state (self->trace, threads_of (self), a, out);
    }
  return FALSE;
}

/**
 * strata_wakeup_arrows_set_selection:
 *
 * Returns: whether the selection has a wakeup to draw
 */
gboolean
strata_wakeup_arrows_set_selection (StrataWakeupArrows            *self,
                                    const StrataSelection *sel)
{
  const StrataChannel *channels;
  const StrataZoomItem *item;
  guint n;

  g_return_val_if_fail (self != NULL, FALSE);

  self->has_selected = FALSE;
  if (self->trace == NULL || sel == NULL || sel->kind != STRATA_SELECTION_ITEM ||
      (sel->item.flags & STRATA_ZOOM_ITEM_AGGREGATE))
    return FALSE;

  item = &sel->item;
  channels = strata_trace_get_channels (self->trace, &n);
  if (item->channel >= n)
    return FALSE;
  self->selected_end_row = item->channel;

  if (item->kind == STRATA_ACTIVITY_STATE && item->state == STRATA_TASK_STATE_WOKEN)
    self->has_selected = woken_state_at (self, item->channel, item->start, FALSE, &self->selected);
  else if (item->kind == STRATA_ACTIVITY_STATE && item->state == STRATA_TASK_STATE_RUNNING)
    self->has_selected = woken_state_at (self, item->channel, item->start, TRUE, &self->selected);
  else if (item->kind == STRATA_ACTIVITY_TASK && channels[item->channel].kind == STRATA_CHANNEL_CPU)
    {
      guint32 thread = strata_thread_map_lookup (threads_of (self), channels[item->channel].instance,
                                                 item->arg, item->start);

      if (thread != STRATA_CHANNEL_NONE)
        self->has_selected = woken_state_at (self, thread, item->start, TRUE, &self->selected);
    }
  if (self->has_selected && self->selected.running_at == G_MAXINT64)
    self->has_selected = FALSE;
  return self->has_selected;
}

const StrataWakeup *
strata_wakeup_arrows_get_selected (StrataWakeupArrows *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->has_selected ? &self->selected : NULL;
}

void
strata_wakeup_arrows_set_show_all (StrataWakeupArrows *self,
                                   gboolean            show)
{
  g_return_if_fail (self != NULL);
  self->show_all = show;
  self->view_rows = 0;
}

gboolean
strata_wakeup_arrows_get_show_all (StrataWakeupArrows *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->show_all;
}

static void
find_in_view (StrataWakeupArrows *self,
              StrataTimelineView *view)
{
  const StrataChannel *channels;
  const guint32 *rows;
  guint n_rows, n;
  gint64 from, to;
  g_autoptr(GArray) threads = g_array_new (FALSE, FALSE, sizeof (guint32));

  strata_timeline_view_get_range (view, &from, &to);
  rows = strata_timeline_view_get_rows (view, &n_rows);
  if (from == self->view_from && to == self->view_to && n_rows == self->view_rows &&
      (n_rows == 0 || rows[0] == self->view_first_row))
    return;
  self->view_from = from;
  self->view_to = to;
  self->view_rows = n_rows;
  self->view_first_row = n_rows > 0 ? rows[0] : 0;
  g_array_set_size (self->in_view, 0);

  channels = strata_trace_get_channels (self->trace, &n);
  for (guint i = 0; i < n_rows; i++)
    if (rows[i] < n && channels[rows[i]].kind == STRATA_CHANNEL_THREAD &&
        strata_timeline_view_y_for_row (view, rows[i]) >= 0)
      g_array_append_val (threads, rows[i]);
  strata_wakeups_in_range (self->trace, threads_of (self), (const guint32 *) (gpointer) threads->data,
                           threads->len, from, to, self->in_view);
}

/* From the waker's row, or where the wakeup ran (the CPU's row). */
static double
start_row_y (StrataTimelineView *view,
             const StrataWakeup *w)
{
  double y = -1;

  if (w->waker != STRATA_CHANNEL_NONE && !strata_wakeup_is_interrupt (w))
    y = strata_timeline_view_y_for_row (view, w->waker);
  if (y < 0 && w->cpu_channel != STRATA_CHANNEL_NONE)
    y = strata_timeline_view_y_for_row (view, w->cpu_channel);
  return y;
}

static void
arrow (cairo_t *cr,
       double   x0,
       double   y0,
       double   x1,
       double   y1)
{
  double angle = atan2 (y1 - y0, x1 - x0);
  double len = 7;

  cairo_move_to (cr, x0, y0);
  cairo_line_to (cr, x1, y1);
  cairo_stroke (cr);
  cairo_arc (cr, x0, y0, 2.5, 0, 2 * G_PI);
  cairo_fill (cr);
  cairo_move_to (cr, x1, y1);
  cairo_line_to (cr, x1 - len * cos (angle - 0.45), y1 - len * sin (angle - 0.45));
  cairo_line_to (cr, x1 - len * cos (angle + 0.45), y1 - len * sin (angle + 0.45));
  cairo_close_path (cr);
  cairo_fill (cr);
}

/**
 * strata_wakeup_arrows_draw:
 *
 * Returns: the arrows drawn
 */
guint
strata_wakeup_arrows_draw (StrataWakeupArrows    *self,
                           StrataTimelineView    *view,
                           GtkSnapshot           *snapshot,
                           const graphene_rect_t *area)
{
  double rh = strata_timeline_view_get_row_height (view);
  cairo_t *cr = NULL;
  guint drawn = 0;

  g_return_val_if_fail (self != NULL, 0);

  if (self->trace == NULL)
    return 0;
  if (self->show_all)
    find_in_view (self, view);

  for (guint i = 0; i <= (self->show_all ? self->in_view->len : 0) && drawn < STRATA_WAKEUP_ARROWS_MAX; i++)
    {
      const StrataWakeup *w;
      double y0, y1;
      gboolean selected = i == 0;

      if (selected)
        {
          if (!self->has_selected)
            continue;
          w = &self->selected;
          y1 = strata_timeline_view_y_for_row (view, self->selected_end_row);
        }
      else
        {
          w = &g_array_index (self->in_view, StrataWakeup, i - 1);
          if (w->running_at == G_MAXINT64)
            continue;
          y1 = strata_timeline_view_y_for_row (view, w->woken);
        }
      y0 = start_row_y (view, w);
      if (y0 < 0 || y1 < 0)
        continue;
      if (cr == NULL)
        cr = gtk_snapshot_append_cairo (snapshot, area);
      if (selected)
        cairo_set_source_rgba (cr, 0.9, 0.38, 0.0, 1);
      else
        cairo_set_source_rgba (cr, 0.9, 0.65, 0.04, 0.85);
      cairo_set_line_width (cr, selected ? 2 : 1.2);
      arrow (cr, strata_timeline_view_x_for_time (view, w->woken_at), y0 + rh / 2,
             strata_timeline_view_x_for_time (view, w->running_at), y1 + rh / 2);
      drawn++;
    }
  if (cr != NULL)
    cairo_destroy (cr);
  return drawn;
}
