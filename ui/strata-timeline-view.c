/* strata-timeline-view.c
 *
 * The timeline widget. Its snapshot() asks the painter for one frame (one
 * zoom-tree query for the rows that fit at the level of the current
 * scale), draws that display list as colour nodes and text, then adds
 * what only an interactive view has: the overview strip of the whole
 * trace with the visible window, the hovered and selected activity, the
 * selected range, markers and search matches. The range, history,
 * selection, markers and search are the session's (strata-session.c),
 * shared with the other views: this widget draws them and redraws when
 * the session says they changed. Navigation (strata-timeline-input.c)
 * only changes the session's range and the vertical scroll; vertical
 * scrolling changes which rows the next query asks for.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "strata-painter-private.h"
#include "strata-timeline-view-internal.h"

enum {
  PROP_0,
  PROP_TRACE,
  PROP_DARK,
  PROP_SESSION,
  N_PROPS,
  /* GtkScrollable */
  PROP_HADJUSTMENT,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
};

enum {
  SIGNAL_VIEW_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE_WITH_CODE (StrataTimelineView, strata_timeline_view, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

static void update_adjustments (StrataTimelineView *self);

/* Geometry ---------------------------------------------------------------- */

double
strata_timeline_view_x_for_time (StrataTimelineView *self,
                                 gint64              t)
{
  return self->style.name_width + (t - strata_session_get_from (self->session)) / ns_per_pixel (self);
}

/* Which row index of the rows shown is at widget @y, or -1. */
int
_strata_timeline_view_row_index_at (StrataTimelineView *self,
                                    double              y)
{
  double top = rows_top (self);
  guint n_rows;
  int i;

  if (y < top || y >= top + rows_area_height (self))
    return -1;
  i = (int) floor ((y - top + scroll_y (self)) / self->style.row_height);
  shown_rows (self, &n_rows);
  return i >= 0 && (guint) i < n_rows ? i : -1;
}

/* Which row index of the rows shown shows @channel: its own row, or the row
 * of the collapsed process it is drawn in; -1 for none. */
static int
row_index_of (StrataTimelineView *self,
              guint32             channel)
{
  guint n_rows;
  const guint32 *rows = shown_rows (self, &n_rows);

  for (guint i = 0; i < n_rows; i++)
    if (rows[i] == channel)
      return i;
  if (self->painter != NULL && channel < self->n_channels &&
      self->channels[channel].kind == STRATA_CHANNEL_THREAD)
    {
      guint32 parent = self->channels[channel].parent;
      const guint32 *members;
      guint n = 0;

      members = strata_painter_get_row_members (self->painter, parent, &n);
      for (guint m = 0; m < n; m++)
        if (members[m] == channel)
          return row_index_of (self, parent);
    }
  return -1;
}

double
strata_timeline_view_y_for_row (StrataTimelineView *self,
                                guint32             channel)
{
  int i = row_index_of (self, channel);

  if (i < 0)
    return -1;
  return rows_top (self) + (double) i * self->style.row_height - scroll_y (self);
}

/* Range and history ------------------------------------------------------- */

/* The narrowest range the session may show at this width. */
static void
update_min_span (StrataTimelineView *self)
{
  strata_session_set_min_span (self->session,
                               MAX ((gint64) ceil (area_width (self) * MIN_NS_PER_PIXEL), 16));
}

void
strata_timeline_view_set_range (StrataTimelineView *self,
                                gint64              from,
                                gint64              to)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  if (self->trace == NULL)
    return;
  strata_session_set_range (self->session, from, to);
}

/* A jump the user may want to come back from. */
void
strata_timeline_view_navigate_to (StrataTimelineView *self,
                                  gint64              from,
                                  gint64              to)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  strata_session_navigate_to (self->session, from, to);
}

void
strata_timeline_view_get_range (StrataTimelineView *self,
                                gint64             *from,
                                gint64             *to)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  strata_session_get_range (self->session, from, to);
}

/**
 * strata_timeline_view_zoom:
 * @factor: the new span over the old one: below 1 zooms in
 * @anchor_x: the widget x whose time stays where it is, or -1 for the
 *   middle of the timeline
 */
void
strata_timeline_view_zoom (StrataTimelineView *self,
                           double              factor,
                           double              anchor_x)
{
  double npp, new_span;
  gint64 anchor_t, from;

  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  if (self->trace == NULL)
    return;
  if (anchor_x < self->style.name_width)
    anchor_x = self->style.name_width + area_width (self) / 2.0;
  anchor_t = time_at (self, anchor_x);
  npp = ns_per_pixel (self);
  new_span = MAX ((strata_session_get_to (self->session) - strata_session_get_from (self->session)) * factor, 1);
  from = anchor_t - (gint64) llround ((anchor_x - self->style.name_width) * npp * factor);
  strata_timeline_view_set_range (self, from, from + (gint64) llround (new_span));
}

/* Moves the view right by @dx pixels (left for negative). */
void
strata_timeline_view_pan (StrataTimelineView *self,
                          double              dx)
{
  gint64 dt;

  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  dt = (gint64) llround (dx * ns_per_pixel (self));
  strata_timeline_view_set_range (self, strata_session_get_from (self->session) + dt, strata_session_get_to (self->session) + dt);
}

void
strata_timeline_view_fit (StrataTimelineView *self)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  strata_session_fit (self->session);
}

gboolean
strata_timeline_view_go_back (StrataTimelineView *self)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), FALSE);
  return strata_session_go_back (self->session);
}

gboolean
strata_timeline_view_go_forward (StrataTimelineView *self)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), FALSE);
  return strata_session_go_forward (self->session);
}

/* Session ----------------------------------------------------------------- */

static void
session_range_changed (StrataTimelineView *self)
{
  if (self->syncing_session)
    return;
  update_adjustments (self);
  g_signal_emit (self, signals[SIGNAL_VIEW_CHANGED], 0);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void scroll_to_row (StrataTimelineView *self,
                           guint32             channel);

/* The selection, changed here or by another view (the event list's
 * choice, whose row is scrolled into view). */
static void
session_selection_changed (StrataTimelineView *self)
{
  const StrataSelection *sel = strata_session_get_selection (self->session);

  if (!self->selecting && (sel->kind == STRATA_SELECTION_ITEM || sel->kind == STRATA_SELECTION_ROW))
    scroll_to_row (self, sel->channel);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}


static void
connect_session (StrataTimelineView *self)
{
  g_signal_connect_swapped (self->session, "range-changed", G_CALLBACK (session_range_changed), self);
  g_signal_connect_swapped (self->session, "selection-changed", G_CALLBACK (session_selection_changed), self);
  g_signal_connect_swapped (self->session, "markers-changed", G_CALLBACK (gtk_widget_queue_draw), self);
  g_signal_connect_swapped (self->session, "notify::search", G_CALLBACK (gtk_widget_queue_draw), self);
  g_signal_connect_swapped (self->session, "notify::search-match", G_CALLBACK (gtk_widget_queue_draw), self);
}

StrataSession *
strata_timeline_view_get_session (StrataTimelineView *self)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), NULL);
  return self->session;
}

/**
 * strata_timeline_view_set_session:
 * @session: what this view shares with the others of its trace
 *
 * The view shows @session's range, selection, markers and search from
 * now on; its trace is installed in @session (which starts afresh if it
 * held another).
 */
void
strata_timeline_view_set_session (StrataTimelineView *self,
                                  StrataSession      *session)
{
  g_autoptr(StrataTrace) trace = NULL;

  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));
  g_return_if_fail (STRATA_IS_SESSION (session));

  if (self->session == session)
    return;
  trace = self->trace != NULL ? g_object_ref (self->trace) : NULL;
  strata_timeline_view_set_trace (self, NULL);
  g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  connect_session (self);
  if (trace != NULL)
    strata_timeline_view_set_trace (self, trace);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Adjustments ------------------------------------------------------------- */

static void
update_adjustments (StrataTimelineView *self)
{
  double page = rows_area_height (self);
  double content;
  guint n_rows;

  shown_rows (self, &n_rows);
  content = (double) n_rows * self->style.row_height;

  self->syncing_adjustments = TRUE;
  if (self->vadjustment != NULL)
    {
      double value = CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, MAX (0, content - page));

      gtk_adjustment_configure (self->vadjustment, value, 0, MAX (content, page),
                                self->style.row_height, MAX (page * 0.9, 1), page);
    }
  if (self->hadjustment != NULL && self->trace != NULL)
    gtk_adjustment_configure (self->hadjustment, strata_session_get_from (self->session) - strata_session_get_start (self->session), 0,
                              MAX (strata_session_get_end (self->session) - strata_session_get_start (self->session), 1),
                              (strata_session_get_to (self->session) - strata_session_get_from (self->session)) / 10.0, (strata_session_get_to (self->session) - strata_session_get_from (self->session)) * 0.9,
                              strata_session_get_to (self->session) - strata_session_get_from (self->session));
  self->syncing_adjustments = FALSE;
}

static void
vadjustment_changed (StrataTimelineView *self)
{
  if (!self->syncing_adjustments)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
hadjustment_changed (StrataTimelineView *self)
{
  gint64 from;

  if (self->syncing_adjustments || self->trace == NULL)
    return;
  from = strata_session_get_start (self->session) + (gint64) gtk_adjustment_get_value (self->hadjustment);
  strata_timeline_view_set_range (self, from, from + (strata_session_get_to (self->session) - strata_session_get_from (self->session)));
}

static void
set_adjustment (StrataTimelineView  *self,
                GtkAdjustment      **slot,
                GtkAdjustment       *adjustment,
                GCallback            callback)
{
  if (*slot == adjustment && adjustment != NULL)
    return;
  if (*slot != NULL)
    {
      g_signal_handlers_disconnect_by_data (*slot, self);
      g_clear_object (slot);
    }
  if (adjustment == NULL)
    adjustment = gtk_adjustment_new (0, 0, 0, 0, 0, 0);
  *slot = g_object_ref_sink (adjustment);
  g_signal_connect_swapped (adjustment, "value-changed", callback, self);
  update_adjustments (self);
}

/* The render nodes of the last display list, made again at the next
 * frame (ensure_nodes()). */
static void
drop_nodes (StrataTimelineView *self)
{
  g_clear_pointer (&self->rects_node, gsk_render_node_unref);
  g_clear_pointer (&self->texts_node, gsk_render_node_unref);
}

/* What the painter draws has changed (its rows, their members, its style
 * or the painter itself): the next frame asks it again, even for the
 * same view. Everything else a redraw can be for (the hover, the
 * selection, the markers, search matches) is drawn over the last frame's
 * nodes. */
static void
content_changed (StrataTimelineView *self)
{
  self->content_serial++;
  drop_nodes (self);
}

/* Rows -------------------------------------------------------------------- */

gboolean
_strata_timeline_view_is_pinned (StrataTimelineView *self,
                                 guint32             channel)
{
  for (guint i = 0; i < self->pinned->len; i++)
    if (g_array_index (self->pinned, guint32, i) == channel)
      return TRUE;
  return FALSE;
}

/* A collapsed process's row shows its threads together: the threads of
 * the default rows under it that are not hidden, pinned ones too. */
static GArray *
collapsed_members (StrataTimelineView *self,
                   guint32             process)
{
  GArray *members = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint n_base;
  const guint32 *base = base_rows (self, &n_base);

  for (guint i = 0; i < n_base; i++)
    {
      guint32 ch = base[i];

      if (ch < self->n_channels && self->channels[ch].kind == STRATA_CHANNEL_THREAD &&
          self->channels[ch].parent == process &&
          !g_hash_table_contains (self->hidden, GUINT_TO_POINTER (ch)))
        g_array_append_val (members, ch);
    }
  return members;
}

static void
set_merged_rows (StrataTimelineView *self)
{
  const guint32 *rows;
  guint n_rows;

  strata_painter_clear_row_members (self->painter);
  /* (The rows are read only when a process is collapsed.) */
  if (g_hash_table_size (self->collapsed) == 0)
    return;
  rows = shown_rows (self, &n_rows);
  for (guint i = 0; i < n_rows; i++)
    {
      guint32 ch = rows[i];
      g_autoptr(GArray) members = NULL;

      if (ch >= self->n_channels || self->channels[ch].kind != STRATA_CHANNEL_PROCESS ||
          !g_hash_table_contains (self->collapsed, GUINT_TO_POINTER (ch)))
        continue;
      members = collapsed_members (self, ch);
      strata_painter_set_row_members (self->painter, ch, (const guint32 *)(gpointer) members->data,
                                      members->len);
    }
}

/* The rows shown: the painter's default rows as they are, unless the user
 * pinned, hid or folded some. Those are then made here from the default
 * rows and handed to the painter (a copy of every row, but for a view the
 * user changed, not at each showing of a followed recording). */
static void
rebuild_rows (StrataTimelineView *self)
{
  const StrataChannel *channels = NULL;
  guint n_channels = 0;
  gboolean collapsing = g_hash_table_size (self->collapsed) > 0;
  const guint32 *base;
  guint n_base;

  if (self->trace != NULL)
    channels = self->channels, n_channels = self->n_channels;

  if (self->painter != NULL && self->pinned->len == 0 && g_hash_table_size (self->hidden) == 0 && !collapsing)
    {
      g_clear_pointer (&self->chosen_rows, strata_spilled_array_free);
      strata_painter_show_default_rows (self->painter);
    }
  else if (self->painter != NULL)
    {
      if (self->chosen_rows == NULL)
        self->chosen_rows = strata_spilled_array_new (sizeof (guint32));
      strata_spilled_array_set_size (self->chosen_rows, 0);
      for (guint i = 0; i < self->pinned->len; i++)
        {
          guint32 ch = g_array_index (self->pinned, guint32, i);

          if (!g_hash_table_contains (self->hidden, GUINT_TO_POINTER (ch)))
            strata_spilled_array_append (self->chosen_rows, &ch);
        }

      base = base_rows (self, &n_base);
      for (guint i = 0; i < n_base; i++)
        {
          guint32 ch = base[i];

          if (ch >= n_channels || _strata_timeline_view_is_pinned (self, ch) ||
              g_hash_table_contains (self->hidden, GUINT_TO_POINTER (ch)))
            continue;
          /* (The channel is read only when a process is collapsed.) */
          if (collapsing && channels[ch].kind == STRATA_CHANNEL_THREAD && channels[ch].parent < n_channels &&
              g_hash_table_contains (self->collapsed, GUINT_TO_POINTER (channels[ch].parent)))
            continue;
          strata_spilled_array_append (self->chosen_rows, &ch);
        }
      strata_painter_set_rows (self->painter, (const guint32 *)(gpointer) self->chosen_rows->data,
                               self->chosen_rows->len);
    }

  if (self->painter != NULL)
    set_merged_rows (self);
  content_changed (self);
  update_adjustments (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const guint32 *
strata_timeline_view_get_rows (StrataTimelineView *self,
                               guint              *n_rows)
{
  guint n;
  const guint32 *rows;

  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), NULL);

  rows = shown_rows (self, &n);
  if (n_rows != NULL)
    *n_rows = n;
  return rows;
}

void
strata_timeline_view_set_row_pinned (StrataTimelineView *self,
                                     guint32             channel,
                                     gboolean            pinned)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  if (pinned == _strata_timeline_view_is_pinned (self, channel))
    return;
  if (pinned)
    g_array_append_val (self->pinned, channel);
  else
    for (guint i = 0; i < self->pinned->len; i++)
      if (g_array_index (self->pinned, guint32, i) == channel)
        {
          g_array_remove_index (self->pinned, i);
          break;
        }
  rebuild_rows (self);
}

void
strata_timeline_view_set_row_hidden (StrataTimelineView *self,
                                     guint32             channel,
                                     gboolean            hidden)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  if (hidden)
    g_hash_table_add (self->hidden, GUINT_TO_POINTER (channel));
  else
    g_hash_table_remove (self->hidden, GUINT_TO_POINTER (channel));
  rebuild_rows (self);
}

void
strata_timeline_view_show_all_rows (StrataTimelineView *self)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  g_hash_table_remove_all (self->hidden);
  g_hash_table_remove_all (self->collapsed);
  rebuild_rows (self);
}

void
strata_timeline_view_set_expanded (StrataTimelineView *self,
                                   guint32             process,
                                   gboolean            expanded)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  if (expanded)
    g_hash_table_remove (self->collapsed, GUINT_TO_POINTER (process));
  else
    g_hash_table_add (self->collapsed, GUINT_TO_POINTER (process));
  rebuild_rows (self);
}

/* Trace ------------------------------------------------------------------- */

static void
invalidate_overview (StrataTimelineView *self)
{
  g_clear_pointer (&self->overview_node, gsk_render_node_unref);
}

/* What a live showing changed of the channels the view's painters were
 * given last: the channels after those are new, and @ids changed in place
 * (@moved: one of them in its place among the rows). */
typedef struct
{
  const guint32 *ids;
  guint          n_ids;
  gboolean       moved;
} ChannelDelta;

/* @continued: @trace is the finished one of the live trace shown, the
 * same recording: what the user did with it stays. @delta: what changed
 * of a live trace's channels since its last showing (NULL: it is all
 * given again). */
static void
install (StrataTimelineView  *self,
         StrataTrace         *trace,
         const StrataChannel *channels,
         guint                n_channels,
         gint64               start,
         gint64               end,
         gboolean             live,
         gboolean             continued,
         const ChannelDelta  *delta)
{
  gboolean same = trace != NULL && (trace == self->trace || continued);
  /* A growing trace shown again keeps its painters: given the channels
   * again, they keep their arrays and what they found of the threads. */
  gboolean keep_painters = live && same && self->live && self->painter != NULL &&
                           self->overview_painter != NULL;
  const guint32 *base;
  guint n_base;

  if (!keep_painters)
    {
      g_clear_pointer (&self->painter, strata_painter_free);
      g_clear_pointer (&self->overview_painter, strata_painter_free);
    }
  invalidate_overview (self);
  if (!same)
    {
      g_array_set_size (self->pinned, 0);
      g_hash_table_remove_all (self->hidden);
      g_hash_table_remove_all (self->collapsed);
      g_set_object (&self->trace, trace);
      /* Another trace: the session starts afresh. */
      strata_session_set_trace (self->session, trace);
    }
  else if (continued)
    g_set_object (&self->trace, trace);
  /* A trace that grew still holds the hovered item. */
  if (!same || !live)
    self->has_hover = FALSE;
  self->live = live;
  self->tree = trace != NULL ? strata_trace_get_zoom_tree (trace) : NULL;
  self->channels = self->tree != NULL ? channels : NULL;
  self->n_channels = self->tree != NULL ? n_channels : 0;

  if (self->tree != NULL)
    {
      g_autoptr(GArray) cpus = g_array_new (FALSE, FALSE, sizeof (guint32));
      StrataPaintStyle ov;

      self->syncing_session = TRUE;
      update_min_span (self);
      strata_session_set_extent (self->session, start, end);
      self->syncing_session = FALSE;

      /* The finished trace's painter knows its buffer instances too. */
      if (live)
        {
          if (!keep_painters)
            {
              self->painter = strata_painter_new (strata_trace_get_strings (trace), self->tree);
              self->overview_painter = strata_painter_new (strata_trace_get_strings (trace), self->tree);
            }
          /* Kept painters are given what changed, so a showing reads the
           * channels new or changed since the last, not all of them. */
          if (keep_painters && delta != NULL && !delta->moved)
            {
              strata_painter_grow_channels (self->painter, channels, n_channels, delta->ids, delta->n_ids);
              strata_painter_grow_channels (self->overview_painter, channels, n_channels, delta->ids,
                                            delta->n_ids);
            }
          else
            {
              strata_painter_set_channels (self->painter, channels, n_channels);
              strata_painter_set_channels (self->overview_painter, channels, n_channels);
            }
          strata_painter_set_extent (self->painter, strata_session_get_start (self->session), strata_session_get_end (self->session));
          strata_painter_set_extent (self->overview_painter, strata_session_get_start (self->session), strata_session_get_end (self->session));
        }
      else
        {
          self->painter = strata_painter_new_for_trace (trace);
          self->overview_painter = strata_painter_new_for_trace (trace);
        }
      strata_painter_set_style (self->painter, &self->style);
      base = strata_painter_update_default_rows (self->painter, &n_base);

      /* The overview: every CPU in a thin row, the whole trace. The
       * default rows start with them. */
      for (guint i = 0; i < n_base; i++)
        {
          guint32 ch = base[i];

          if (ch >= n_channels || channels[ch].kind != STRATA_CHANNEL_CPU)
            break;
          g_array_append_val (cpus, ch);
        }
      strata_painter_set_rows (self->overview_painter, (const guint32 *)(gpointer) cpus->data, cpus->len);
      ov = self->style;
      ov.name_width = 0;
      ov.ruler_height = 0;
      ov.legend_height = 0;
      ov.row_height = MAX (4, (OVERVIEW_HEIGHT - 10) / MAX (cpus->len, 1));
      strata_painter_set_style (self->overview_painter, &ov);
    }
  else
    {
      g_clear_object (&self->trace);
      strata_session_set_trace (self->session, NULL);
    }

  rebuild_rows (self);
  update_adjustments (self);
  /* New rows (a growing trace's threads, or the finished trace's) may
   * match the search: found without a jump to them. */
  base = base_rows (self, &n_base);
  if (same && self->painter != NULL)
    strata_session_update_search (self->session, base, n_base);
  /* Told once the view is whole: the panel answers again from it. */
  if (continued)
    strata_session_continue_trace (self->session, trace);
  if (!same || continued)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
  g_signal_emit (self, signals[SIGNAL_VIEW_CHANGED], 0);
}

/**
 * strata_timeline_view_set_trace:
 * @trace: (nullable): a loaded trace with its zoom tree
 *
 * Shows @trace. Given the trace that strata_timeline_view_set_live()
 * showed while it loaded, the view keeps where the user went.
 */
void
strata_timeline_view_set_trace (StrataTimelineView *self,
                                StrataTrace        *trace)
{
  const StrataChannel *channels = NULL;
  guint n = 0;

  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));
  g_return_if_fail (trace == NULL || STRATA_IS_TRACE (trace));

  if (self->trace == trace && !self->live)
    return;
  if (trace != NULL)
    channels = strata_trace_get_channels (trace, &n);
  install (self, trace, channels, n,
           trace != NULL ? strata_trace_get_start (trace) : 0,
           trace != NULL ? strata_trace_get_end (trace) : 0, FALSE, FALSE, NULL);
  self->live_channels = NULL;
}

/**
 * strata_timeline_view_finish_live:
 * @trace: the finished trace of the one strata_timeline_view_set_live()
 *   showed (the same file's load, which may have become another object
 *   through the index)
 *
 * Shows @trace in place of the live one, as the same recording: the
 * range, selection, search, markers and rows the user set stay, and
 * what answers from the trace answers from the finished one. Without a
 * live trace shown, as strata_timeline_view_set_trace().
 */
void
strata_timeline_view_finish_live (StrataTimelineView *self,
                                  StrataTrace        *trace)
{
  const StrataChannel *channels;
  guint n = 0;

  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));
  g_return_if_fail (STRATA_IS_TRACE (trace));

  if (!self->live || self->trace == NULL)
    {
      strata_timeline_view_set_trace (self, trace);
      return;
    }
  channels = strata_trace_get_channels (trace, &n);
  install (self, trace, channels, n, strata_trace_get_start (trace), strata_trace_get_end (trace),
           FALSE, trace != self->trace, NULL);
  self->live_channels = NULL;
}

/**
 * strata_timeline_view_set_live:
 * @trace: a trace still loading (from a StrataTraceProgress)
 * @fresh: (array length=n_fresh): its channels since the last call for
 *   @trace (all of them the first time)
 * @changes: (array length=n_changes): those of the earlier ones that
 *   changed since, in the order they changed
 * @start: its first event
 * @horizon: how far its activities are complete
 *
 * Shows what a load has built so far; the zoom tree is queried as it
 * grows. The view keeps one table of the trace's channels, to which a
 * showing appends the new ones and in which it copies the changed ones,
 * and its painters are given only those (strata_painter_grow_channels()):
 * what a showing costs grows with what changed, not with all the threads
 * a recording ever made. The table is a spilled array (in a file past a
 * few MiB), so what the app holds in memory does not grow with them
 * either. The trace reads that same table
 * (strata_trace_set_live()), so the tooltips, the panel, range statistics
 * and search answer from the part loaded: they read the trace on this
 * thread, which is the one that gives it its channels.
 */
void
strata_timeline_view_set_live (StrataTimelineView        *self,
                               StrataTrace               *trace,
                               const StrataChannel       *fresh,
                               guint                      n_fresh,
                               const StrataChannelChange *changes,
                               guint                      n_changes,
                               gint64                     start,
                               gint64                     horizon)
{
  g_autoptr(GArray) changed = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n_changes);
  StrataSpilledArray *table;
  ChannelDelta delta = { 0 };
  guint n_before;

  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));
  g_return_if_fail (STRATA_IS_TRACE (trace));
  g_return_if_fail (fresh != NULL || n_fresh == 0);
  g_return_if_fail (changes != NULL || n_changes == 0);

  /* Another trace (or none shown live): its table starts empty, and is
   * the trace's from the start. */
  if (self->live_channels == NULL || !self->live || self->trace != trace)
    {
      self->live_channels = strata_spilled_array_new (sizeof (StrataChannel));
      strata_trace_set_live (trace, self->live_channels, start, MAX (horizon, start + 1));
    }
  table = self->live_channels;
  n_before = table->len;
  strata_spilled_array_set_size (table, n_before + n_fresh);
  if (n_fresh > 0)
    memcpy (&strata_spilled_array_index (table, StrataChannel, n_before), fresh,
            (gsize) n_fresh * sizeof (StrataChannel));
  for (guint i = 0; i < n_changes; i++)
    {
      StrataChannel *was;
      const StrataChannel *now = &changes[i].channel;

      g_return_if_fail (changes[i].id < table->len);
      was = &strata_spilled_array_index (table, StrataChannel, changes[i].id);
      /* A channel whose place among the rows changed (a thread's process
       * found late) has the painters order every row again. */
      if (was->kind != now->kind || was->instance != now->instance || was->id != now->id ||
          was->generation != now->generation || was->parent != now->parent)
        delta.moved = TRUE;
      *was = *now;
      g_array_append_val (changed, changes[i].id);
    }
  delta.ids = (const guint32 *)(gpointer) changed->data;
  delta.n_ids = changed->len;

  strata_trace_set_live (trace, table, start, MAX (horizon, start + 1));
  install (self, trace, (const StrataChannel *)(gpointer) table->data, table->len, start,
           MAX (horizon, start + 1), TRUE, FALSE, &delta);
}

/**
 * strata_timeline_view_follow:
 *
 * Brings the view's right edge to the present, its span kept, and has it
 * stay there as a growing trace grows (End does this).
 */
void
strata_timeline_view_follow (StrataTimelineView *self)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  strata_session_follow (self->session);
}

gboolean
strata_timeline_view_get_following (StrataTimelineView *self)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), FALSE);
  return strata_session_get_following (self->session);
}

void
strata_timeline_view_set_following (StrataTimelineView *self,
                                    gboolean            following)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  strata_session_set_following (self->session, following);
}

gboolean
strata_timeline_view_is_live (StrataTimelineView *self)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), FALSE);
  return self->live;
}

StrataTrace *
strata_timeline_view_get_trace (StrataTimelineView *self)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), NULL);
  return self->trace;
}

void
strata_timeline_view_set_dark (StrataTimelineView *self,
                               gboolean            dark)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  dark = !!dark;
  if (self->dark == dark)
    return;
  self->dark = dark;
  self->style.scheme = dark ? STRATA_PAINT_SCHEME_DARK : STRATA_PAINT_SCHEME_LIGHT;
  if (self->painter != NULL)
    strata_painter_set_style (self->painter, &self->style);
  if (self->overview_painter != NULL)
    {
      StrataPaintStyle ov = *strata_painter_get_style (self->overview_painter);

      ov.scheme = self->style.scheme;
      strata_painter_set_style (self->overview_painter, &ov);
    }
  content_changed (self);
  invalidate_overview (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DARK]);
}

void
strata_timeline_view_set_row_height (StrataTimelineView *self,
                                     guint               row_height)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  row_height = CLAMP (row_height, 12, 64);
  if (self->style.row_height == row_height)
    return;
  self->style.row_height = row_height;
  if (self->painter != NULL)
    strata_painter_set_style (self->painter, &self->style);
  content_changed (self);
  update_adjustments (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Painting ---------------------------------------------------------------- */

static gboolean
paint_key_equal (const PaintKey *a,
                 const PaintKey *b)
{
  return a->vp.from == b->vp.from && a->vp.to == b->vp.to && a->vp.scroll_y == b->vp.scroll_y &&
         a->vp.width == b->vp.width && a->vp.height == b->vp.height && a->serial == b->serial;
}

/* The display list of the current view: the last one if nothing it
 * depends on has changed (a redraw for the hover or the selection asks
 * the zoom tree nothing), else painted anew. While the trace loads the
 * tree grows under the same painter, so every frame is painted. */
static void
paint (StrataTimelineView *self,
       int                 width,
       int                 height)
{
  PaintKey key = { { 0 }, 0 };

  if (self->painter == NULL)
    {
      strata_display_list_clear (self->list);
      content_changed (self);
      return;
    }

  key.vp.from = strata_session_get_from (self->session);
  key.vp.to = strata_session_get_to (self->session);
  key.vp.width = MAX (1, width - (int) self->style.name_width);
  key.vp.height = MAX (0, height - OVERVIEW_HEIGHT - (int) self->style.ruler_height - (int) self->style.legend_height);
  key.vp.scroll_y = scroll_y (self);
  key.serial = self->content_serial;
  if (!self->live && paint_key_equal (&key, &self->list_key))
    return;

  strata_painter_paint (self->painter, &key.vp, self->list);
  self->n_paints++;
  self->list_key = key;
  drop_nodes (self);
}

/* The display list's rectangles and texts as render nodes, built once
 * per list (and scale) and appended again for every redraw of it. */
static void
ensure_nodes (StrataTimelineView *self,
              int                 scale)
{
  GtkSnapshot *s;

  if (self->nodes_scale != scale)
    {
      drop_nodes (self);
      self->nodes_scale = scale;
    }
  if (self->rects_node == NULL)
    {
      s = gtk_snapshot_new ();
      strata_timeline_render_rects (self->render, s, self->list);
      self->rects_node = gtk_snapshot_free_to_node (s);
    }
  if (self->texts_node == NULL)
    {
      s = gtk_snapshot_new ();
      strata_timeline_render_texts (self->render, s, self->list);
      self->texts_node = gtk_snapshot_free_to_node (s);
    }
}

guint
strata_timeline_view_get_n_paints (StrataTimelineView *self)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), 0);
  return self->n_paints;
}

/* For the redraw benchmark: the next frame is painted anew, as every
 * redraw was before the frame was kept, and as a new view is (no row
 * drawn again from the last frame). */
void
strata_timeline_view_forget_frame (StrataTimelineView *self)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));
  content_changed (self);
  if (self->painter != NULL)
    strata_painter_forget_rows (self->painter);
}

/* For the tests and the hit test before the first frame. */
void
strata_timeline_view_paint_now (StrataTimelineView *self,
                                int                 width,
                                int                 height)
{
  paint (self, width, height);
}

const StrataDisplayList *
strata_timeline_view_get_display_list (StrataTimelineView *self)
{
  return self->list;
}

StrataPainter *
strata_timeline_view_get_painter (StrataTimelineView *self)
{
  return self->painter;
}

const StrataChannel *
strata_timeline_view_get_channels (StrataTimelineView *self,
                                   guint              *n_channels)
{
  *n_channels = self->n_channels;
  return self->channels;
}

/* What the view's tables of a value per channel or row (its live table,
 * the rows the user chose, its painters') hold in the heap: each at most
 * a few MiB, past that in its spill file. */
gsize
strata_timeline_view_get_spilled_heap (StrataTimelineView *self)
{
  gsize bytes = 0;

  if (self->live_channels != NULL)
    bytes += strata_spilled_array_get_heap_bytes (self->live_channels);
  if (self->chosen_rows != NULL)
    bytes += strata_spilled_array_get_heap_bytes (self->chosen_rows);
  if (self->painter != NULL)
    bytes += strata_painter_get_spilled_heap (self->painter);
  if (self->overview_painter != NULL)
    bytes += strata_painter_get_spilled_heap (self->overview_painter);
  return bytes;
}

void
strata_timeline_view_get_extent (StrataTimelineView *self,
                                 gint64             *start,
                                 gint64             *end)
{
  *start = strata_session_get_start (self->session);
  *end = strata_session_get_end (self->session);
}

static void
ensure_render (StrataTimelineView *self)
{
  if (self->render == NULL)
    self->render = strata_timeline_render_new (gtk_widget_get_pango_context (GTK_WIDGET (self)));
  if (self->layout == NULL)
    {
      PangoFontDescription *desc;

      self->layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
      desc = pango_font_description_copy (pango_context_get_font_description (pango_layout_get_context (self->layout)));
      pango_font_description_set_absolute_size (desc, 10 * PANGO_SCALE);
      pango_layout_set_font_description (self->layout, desc);
      pango_font_description_free (desc);
    }
}

static void
append_rgba (GtkSnapshot *snapshot,
             guint32      c,
             float        x,
             float        y,
             float        w,
             float        h)
{
  GdkRGBA rgba;

  if (w <= 0 || h <= 0)
    return;
  strata_rgba_from_u32 (&rgba, c);
  gtk_snapshot_append_color (snapshot, &rgba, &GRAPHENE_RECT_INIT (x, y, w, h));
}

static void
append_outline (GtkSnapshot *snapshot,
                guint32      c,
                float        x,
                float        y,
                float        w,
                float        h,
                float        width)
{
  GskRoundedRect r;
  GdkRGBA rgba[4];
  float widths[4] = { width, width, width, width };

  strata_rgba_from_u32 (&rgba[0], c);
  rgba[1] = rgba[2] = rgba[3] = rgba[0];
  gsk_rounded_rect_init_from_rect (&r, &GRAPHENE_RECT_INIT (x, y, MAX (w, 1), h), 2);
  gtk_snapshot_append_border (snapshot, &r, widths, rgba);
}

/* A label on the ruler, white on a rounded accent-coloured pill so it
 * reads over the tick labels; @x is its middle. */
static void
append_pill (StrataTimelineView *self,
             GtkSnapshot        *snapshot,
             const char         *text,
             float               x,
             float               y_mid,
             guint32             fill)
{
  PangoRectangle logical;
  GskRoundedRect r;
  GdkRGBA bg, fg = { 1, 1, 1, 1 };
  float w, h;

  pango_layout_set_text (self->layout, text, -1);
  pango_layout_get_pixel_extents (self->layout, NULL, &logical);
  w = logical.width + 10;
  h = logical.height + 2;
  x = roundf (x - w / 2);
  strata_rgba_from_u32 (&bg, fill);
  gsk_rounded_rect_init_from_rect (&r, &GRAPHENE_RECT_INIT (x, roundf (y_mid - h / 2), w, h), h / 2);
  gtk_snapshot_push_rounded_clip (snapshot, &r);
  gtk_snapshot_append_color (snapshot, &bg, &r.bounds);
  gtk_snapshot_pop (snapshot);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x + 5, roundf (y_mid - logical.height / 2.f)));
  gtk_snapshot_append_layout (snapshot, self->layout, &fg);
  gtk_snapshot_restore (snapshot);
}

static void
append_text (StrataTimelineView *self,
             GtkSnapshot        *snapshot,
             const char         *text,
             float               x,
             float               y_mid,
             guint32             c,
             gboolean            right)
{
  PangoRectangle logical;
  GdkRGBA rgba;

  pango_layout_set_text (self->layout, text, -1);
  pango_layout_get_pixel_extents (self->layout, NULL, &logical);
  strata_rgba_from_u32 (&rgba, c);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (right ? x - logical.width : x,
                                                          roundf (y_mid - logical.height / 2.f)));
  gtk_snapshot_append_layout (snapshot, self->layout, &rgba);
  gtk_snapshot_restore (snapshot);
}

static void
snapshot_overview (StrataTimelineView *self,
                   GtkSnapshot        *snapshot,
                   int                 width)
{
  guint32 bg = self->dark ? 0x27292dffu : 0xf0f2f5ffu;
  guint32 line = self->dark ? 0x3c3f46ffu : 0xd3d6dcffu;
  guint32 dim = self->dark ? 0x00000070u : 0xffffff90u;
  float x0 = self->style.name_width;
  float w = MAX (1, width - (int) self->style.name_width);
  double x_from, x_to;
  gint64 full = MAX (strata_session_get_end (self->session) - strata_session_get_start (self->session), 1);

  append_rgba (snapshot, bg, 0, 0, width, OVERVIEW_HEIGHT);
  append_rgba (snapshot, line, 0, OVERVIEW_HEIGHT - 1, width, 1);
  append_text (self, snapshot, _("Overview"), 8, OVERVIEW_HEIGHT / 2.f,
               self->dark ? 0x9297a0ffu : 0x7c818bffu, FALSE);

  if (self->overview_painter == NULL)
    return;

  if (self->overview_node == NULL || self->overview_width != (int) w)
    {
      GtkSnapshot *s = gtk_snapshot_new ();
      StrataPaintViewport vp = { strata_session_get_start (self->session), strata_session_get_end (self->session), (guint) w, OVERVIEW_HEIGHT - 10, 0 };

      invalidate_overview (self);
      strata_painter_paint (self->overview_painter, &vp, self->overview_list);
      strata_timeline_render_rects (self->render, s, self->overview_list);
      self->overview_node = gtk_snapshot_free_to_node (s);
      self->overview_width = (int) w;
    }

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x0, 5));
  if (self->overview_node != NULL)
    gtk_snapshot_append_node (snapshot, self->overview_node);
  gtk_snapshot_restore (snapshot);

  /* The visible window: the rest is veiled. */
  x_from = x0 + (double) (strata_session_get_from (self->session) - strata_session_get_start (self->session)) / full * w;
  x_to = x0 + (double) (strata_session_get_to (self->session) - strata_session_get_start (self->session)) / full * w;
  append_rgba (snapshot, dim, x0, 1, x_from - x0, OVERVIEW_HEIGHT - 2);
  append_rgba (snapshot, dim, x_to, 1, x0 + w - x_to, OVERVIEW_HEIGHT - 2);
  append_outline (snapshot, ACCENT, floorf (x_from), 2, MAX (ceilf (x_to) - floorf (x_from), 3),
                  OVERVIEW_HEIGHT - 4, 1.5f);
}

static void
snapshot_item_outline (StrataTimelineView   *self,
                       GtkSnapshot          *snapshot,
                       const StrataZoomItem *item,
                       guint32               color,
                       float                 line)
{
  double y = strata_timeline_view_y_for_row (self, item->channel);
  double x0, x1;
  double left = self->style.name_width;
  double right = gtk_widget_get_width (GTK_WIDGET (self));

  if (y < 0)
    return;
  x0 = strata_timeline_view_x_for_time (self, item->start);
  x1 = strata_timeline_view_x_for_time (self, item->end);
  if (x1 < left || x0 > right)
    return;
  x0 = MAX (x0, left);
  x1 = MIN (x1, right);
  if (x1 - x0 < 3)
    {
      double mid = (x0 + x1) / 2;

      x0 = mid - 1.5;
      x1 = mid + 1.5;
    }
  append_outline (snapshot, color, floor (x0), y + 1, ceil (x1) - floor (x0), self->style.row_height - 2, line);
}

static void
snapshot_chevrons (StrataTimelineView *self,
                   GtkSnapshot        *snapshot)
{
  guint32 c = self->dark ? 0xc0c4ccffu : 0x5e636cffu;
  GdkRGBA rgba;
  cairo_t *cr = NULL;
  double top = rows_top (self), bottom = top + rows_area_height (self);

  if (self->trace == NULL)
    return;
  strata_rgba_from_u32 (&rgba, c);

  for (guint i = 0; i < self->list->rows->len; i++)
    {
      const StrataPaintRow *row = &g_array_index (self->list->rows, StrataPaintRow, i);
      double mid = OVERVIEW_HEIGHT + row->y + row->h / 2;
      gboolean collapsed;

      if (row->kind != STRATA_CHANNEL_PROCESS || mid < top || mid > bottom)
        continue;
      if (cr == NULL)
        cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, top, 8, bottom - top));
      collapsed = g_hash_table_contains (self->collapsed, GUINT_TO_POINTER (row->channel));
      gdk_cairo_set_source_rgba (cr, &rgba);
      if (collapsed)
        {
          cairo_move_to (cr, 2, mid - 3.5);
          cairo_line_to (cr, 6, mid);
          cairo_line_to (cr, 2, mid + 3.5);
        }
      else
        {
          cairo_move_to (cr, 0.5, mid - 2);
          cairo_line_to (cr, 7.5, mid - 2);
          cairo_line_to (cr, 4, mid + 2.5);
        }
      cairo_close_path (cr);
      cairo_fill (cr);
    }
  g_clear_pointer (&cr, cairo_destroy);
}

static void
strata_timeline_view_snapshot (GtkWidget   *widget,
                               GtkSnapshot *snapshot)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  double top = rows_top (self), area_h = rows_area_height (self);
  double left = self->style.name_width;
  static const StrataSelection none = { STRATA_SELECTION_NONE, 0 };
  const StrataSelection *sel = strata_session_get_selection (self->session);
  const guint32 *matches;
  guint n_matches;
  int match_index = strata_session_get_match_index (self->session);
  gint64 markers[2];
  guint n_markers = strata_session_get_markers (self->session, markers);

  /* While a range is dragged out, it replaces the selection. */
  if (self->drag_mode == DRAG_RANGE && self->drag_moved)
    sel = &none;

  ensure_render (self);
  /* Dense rows become textures: at the screen's scale, so as sharp as
   * the colour nodes of the others. */
  strata_timeline_render_set_scale (self->render, gtk_widget_get_scale_factor (widget));

  if (self->trace == NULL)
    return;

  snapshot_overview (self, snapshot, width);

  paint (self, width, height);
  ensure_nodes (self, gtk_widget_get_scale_factor (widget));
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (0, OVERVIEW_HEIGHT));
  if (self->rects_node != NULL)
    gtk_snapshot_append_node (snapshot, self->rects_node);
  gtk_snapshot_restore (snapshot);

  /* Search matches: a tint over the names of the matching rows. */
  matches = strata_session_get_matches (self->session, &n_matches);
  for (guint i = 0; i < n_matches; i++)
    {
      guint32 ch = matches[i];
      double y = strata_timeline_view_y_for_row (self, ch);

      if (y < top - self->style.row_height || y > top + area_h)
        continue;
      append_rgba (snapshot, (int) i == match_index ? 0xf6d32d90u : 0xf6d32d48u,
                   0, MAX (y, top), left - 1, MIN (y + self->style.row_height, top + area_h) - MAX (y, top));
    }

  if (sel->kind == STRATA_SELECTION_ROW)
    {
      double y = strata_timeline_view_y_for_row (self, sel->channel);

      if (y >= top - self->style.row_height && y < top + area_h)
        append_rgba (snapshot, (ACCENT & 0xffffff00u) | 0x30u, 0, MAX (y, top), width,
                     MIN (y + self->style.row_height, top + area_h) - MAX (y, top));
    }

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (left, top, width - left, area_h));

  if (sel->kind == STRATA_SELECTION_RANGE || sel == &none)
    {
      double x0 = strata_timeline_view_x_for_time (self, sel == &none ? self->drag_range_from : sel->from);
      double x1 = strata_timeline_view_x_for_time (self, sel == &none ? self->drag_range_to : sel->to);

      append_rgba (snapshot, (ACCENT & 0xffffff00u) | 0x26u, x0, top, x1 - x0, area_h);
      append_rgba (snapshot, ACCENT, floor (x0), top, 1, area_h);
      append_rgba (snapshot, ACCENT, floor (x1), top, 1, area_h);
    }

  if (self->has_hover)
    snapshot_item_outline (self, snapshot, &self->hover, self->dark ? 0xffffffb0u : 0x000000a0u, 1);
  if (sel->kind == STRATA_SELECTION_ITEM)
    snapshot_item_outline (self, snapshot, &sel->item, ACCENT, 2);

  for (guint i = 0; i < n_markers; i++)
    {
      double x = strata_timeline_view_x_for_time (self, markers[i]);

      append_rgba (snapshot, 0xe01b24ffu, floor (x), top, 1, area_h);
    }

  if (self->overlay != NULL)
    self->overlay (self, snapshot, &GRAPHENE_RECT_INIT (left, top, width - left, area_h), self->overlay_data);

  gtk_snapshot_pop (snapshot);

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (0, OVERVIEW_HEIGHT));
  if (self->texts_node != NULL)
    gtk_snapshot_append_node (snapshot, self->texts_node);
  gtk_snapshot_restore (snapshot);

  snapshot_chevrons (self, snapshot);

  /* The selected range and the markers on the ruler, with their length. */
  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (left, OVERVIEW_HEIGHT, width - left, self->style.ruler_height));
  if (sel->kind == STRATA_SELECTION_RANGE)
    {
      double x0 = strata_timeline_view_x_for_time (self, sel->from);
      double x1 = strata_timeline_view_x_for_time (self, sel->to);
      g_autofree char *len = strata_format_duration (sel->to - sel->from);

      append_rgba (snapshot, (ACCENT & 0xffffff00u) | 0x50u, x0, OVERVIEW_HEIGHT, x1 - x0, self->style.ruler_height);
      append_pill (self, snapshot, len, (x0 + x1) / 2, OVERVIEW_HEIGHT + self->style.ruler_height / 2.f, ACCENT);
    }
  for (guint i = 0; i < n_markers; i++)
    {
      double x = strata_timeline_view_x_for_time (self, markers[i]);

      append_rgba (snapshot, 0xe01b24ffu, floor (x) - 1, OVERVIEW_HEIGHT, 3, self->style.ruler_height);
    }
  if (n_markers == 2)
    {
      double x = MAX (strata_timeline_view_x_for_time (self, markers[0]),
                      strata_timeline_view_x_for_time (self, markers[1]));
      g_autofree char *d = strata_format_duration (ABS (markers[1] - markers[0]));
      g_autofree char *label = g_strdup_printf ("Δ %s", d);

      double other = MIN (strata_timeline_view_x_for_time (self, markers[0]),
                          strata_timeline_view_x_for_time (self, markers[1]));

      append_pill (self, snapshot, label, (x + other) / 2, OVERVIEW_HEIGHT + self->style.ruler_height / 2.f,
                   0xe01b24ffu);
    }
  gtk_snapshot_pop (snapshot);
}

/* Hit testing ------------------------------------------------------------- */

static gboolean
same_activity (const StrataActivity *a,
               const StrataZoomItem *item)
{
  return a->kind == item->kind && a->state == item->state && a->label == item->label &&
         a->arg == item->arg &&
         (a->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK) == (item->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK);
}

/* A query cut the activity at a chunk's edge (and the raw store keeps it
 * in pieces cut at buffer edges): follow its pieces in the raw store to
 * its real start and end, so the tooltip tells the whole activity (of a
 * growing trace, up to its latest event). */
static void
extend_to_whole (StrataTimelineView *self,
                 StrataZoomItem     *item)
{
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  gboolean more;

  for (guint step = 0; step < 256 && (item->flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE); step++)
    {
      more = FALSE;
      g_array_set_size (found, 0);
      strata_zoom_tree_query_activities (self->tree, item->channel, item->start - 1, item->start + 1, TRUE, found);
      for (guint i = 0; i < found->len; i++)
        {
          const StrataActivity *a = &g_array_index (found, StrataActivity, i);

          if (same_activity (a, item) && a->start < item->start && a->end >= item->start)
            {
              item->start = a->start;
              item->flags = (item->flags & ~STRATA_ACTIVITY_FLAGS_START_SIDE) | (a->flags & STRATA_ACTIVITY_FLAGS_START_SIDE);
              more = TRUE;
              break;
            }
        }
      if (!more)
        break;
    }

  for (guint step = 0; step < 256 && (item->flags & STRATA_ACTIVITY_FLAG_CONTINUES_AFTER); step++)
    {
      more = FALSE;
      g_array_set_size (found, 0);
      strata_zoom_tree_query_activities (self->tree, item->channel, item->end - 1, item->end + 1, TRUE, found);
      for (guint i = 0; i < found->len; i++)
        {
          const StrataActivity *a = &g_array_index (found, StrataActivity, i);

          if (same_activity (a, item) && a->end > item->end && a->start <= item->end)
            {
              item->end = a->end;
              item->flags = (item->flags & ~STRATA_ACTIVITY_FLAGS_END_SIDE) | (a->flags & STRATA_ACTIVITY_FLAGS_END_SIDE);
              more = TRUE;
              break;
            }
        }
      if (!more)
        break;
    }
}

/* The activities of @members that overlap [@from, @to) as the pass has
 * read them (the raw store and the open pieces), those at least @pixel
 * long, appended to @out as items. */
static void
add_recent_activities (StrataTimelineView *self,
                       const guint32      *members,
                       guint               n_members,
                       gint64              from,
                       gint64              to,
                       gint64              pixel,
                       GArray             *out)
{
  g_autoptr(GArray) acts = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

  for (guint m = 0; m < n_members; m++)
    strata_zoom_tree_query_activities (self->tree, members[m], from, to, TRUE, acts);
  for (guint i = 0; i < acts->len; i++)
    {
      const StrataActivity *a = &g_array_index (acts, StrataActivity, i);
      StrataZoomItem it;

      if (a->end - a->start < pixel)
        continue;
      strata_zoom_item_from_activity (&it, a);
      g_array_append_val (out, it);
    }
}

/**
 * strata_timeline_view_hit:
 * @item: (out): the item under (@x, @y)
 *
 * The item of the zoom tree under a point, at the level the frame is
 * drawn from: a small query of that row around the pointer's time (and,
 * while the trace grows, of what the pass has read of it).
 */
gboolean
strata_timeline_view_hit (StrataTimelineView *self,
                          double              x,
                          double              y,
                          StrataZoomItem     *item)
{
  g_autoptr(GArray) found = NULL;
  const StrataChannel *channels;
  const guint32 *members;
  StrataZoomGeometry g;
  guint n_channels, n_members = 0, n_rows;
  guint32 ch;
  double npp, row_y, best_score = G_MAXDOUBLE;
  gboolean nested_strip;
  gint64 t;
  guint level;
  int i;

  if (self->trace == NULL || x < self->style.name_width || !strata_zoom_tree_get_geometry (self->tree, &g))
    return FALSE;
  i = _strata_timeline_view_row_index_at (self, y);
  if (i < 0)
    return FALSE;

  ch = shown_rows (self, &n_rows)[i];
  channels = self->channels, n_channels = self->n_channels;
  if (ch >= n_channels)
    return FALSE;
  /* A collapsed process's row is its threads': the hit is the thread
   * busiest under the pointer. */
  members = strata_painter_get_row_members (self->painter, ch, &n_members);
  if (members == NULL)
    {
      if (channels[ch].kind == STRATA_CHANNEL_PROCESS)
        return FALSE;
      members = &ch, n_members = 1;
    }

  npp = ns_per_pixel (self);
  t = time_at (self, x);
  /* The level the painter drew the frame from. */
  level = strata_zoom_geometry_level_for_frame (&g, strata_session_get_to (self->session) - strata_session_get_from (self->session), area_width (self));
  row_y = rows_top (self) + (double) i * self->style.row_height - scroll_y (self);
  nested_strip = channels[ch].kind == STRATA_CHANNEL_CPU && y > row_y + self->style.row_height * 0.62;

  found = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  strata_zoom_tree_query (self->tree, level, t - (gint64) ceil (3 * npp), t + (gint64) ceil (3 * npp) + 1,
                          members, n_members, found, NULL);
  /* A growing trace: the level holds an activity that ended lately only
   * once the pass next advances the tree, but the raw store and the open
   * pieces have it as soon as the pass has read it. Those at least a
   * pixel of the level wide (the level keeps them as they are) are
   * candidates too, after the level's own items (which win a tie). */
  if (self->live)
    add_recent_activities (self, members, n_members, t - (gint64) ceil (3 * npp),
                           t + (gint64) ceil (3 * npp) + 1, strata_zoom_geometry_pixel (&g, level), found);

  for (guint k = 0; k < found->len; k++)
    {
      const StrataZoomItem *it = &g_array_index (found, StrataZoomItem, k);
      gboolean instant = it->end == it->start || it->kind == STRATA_ACTIVITY_WAKEUP ||
                         it->kind == STRATA_ACTIVITY_EVENT;
      guint depth = (it->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK) >> STRATA_ACTIVITY_FLAG_DEPTH_SHIFT;
      double score;

      if (instant)
        {
          double d = fabs ((double) (it->start - t)) / npp;

          if (d > 3)
            continue;
          score = 1 + d / 10;
        }
      else if (it->start <= t && t < it->end)
        score = (depth > 0) == nested_strip ? 0 : 2;
      else
        {
          double d = (it->start > t ? it->start - t : t - it->end) / npp;

          if (d > 1.5)
            continue;
          score = 3 + d;
        }
      if (it->kind == STRATA_ACTIVITY_IDLE)
        score += 0.5;
      /* In a merged row, a thread that is doing something wins over one
       * that sleeps or is not known at that time. */
      if (n_members > 1 && it->kind == STRATA_ACTIVITY_STATE &&
          (it->state == STRATA_TASK_STATE_SLEEPING || it->state == STRATA_TASK_STATE_PARKED ||
           it->state == STRATA_TASK_STATE_UNKNOWN))
        score += 0.25;
      if (score < best_score)
        {
          best_score = score;
          *item = *it;
        }
    }

  if (best_score == G_MAXDOUBLE)
    return FALSE;
  if (!(item->flags & STRATA_ZOOM_ITEM_AGGREGATE))
    extend_to_whole (self, item);
  return TRUE;
}

StrataItemInfo *
strata_timeline_view_describe_at (StrataTimelineView *self,
                                  double              x,
                                  double              y)
{
  StrataZoomItem item;
  guint n_rows;
  int i;

  if (self->trace == NULL)
    return NULL;
  if (x < self->style.name_width)
    {
      i = _strata_timeline_view_row_index_at (self, y);
      return i >= 0 ? strata_item_info_new_for_row (self->trace, shown_rows (self, &n_rows)[i]) : NULL;
    }
  if (!strata_timeline_view_hit (self, x, y, &item))
    return NULL;
  return strata_item_info_new_for_item (self->trace, &item);
}

static gboolean
strata_timeline_view_query_tooltip (GtkWidget  *widget,
                                    int         x,
                                    int         y,
                                    gboolean    keyboard,
                                    GtkTooltip *tooltip)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (widget);
  g_autoptr(StrataItemInfo) info = NULL;
  g_autofree char *markup = NULL;

  if (keyboard || self->drag_mode != DRAG_NONE)
    return FALSE;
  info = strata_timeline_view_describe_at (self, x, y);
  if (info == NULL)
    return FALSE;
  markup = strata_item_info_to_markup (info, 12);
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

/* Selection ------------------------------------------------------------- */

const StrataSelection *
strata_timeline_view_get_selection (StrataTimelineView *self)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), NULL);
  return strata_session_get_selection (self->session);
}

void
strata_timeline_view_clear_selection (StrataTimelineView *self)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  strata_session_clear_selection (self->session);
}

static void
scroll_to_row (StrataTimelineView *self,
               guint32             channel)
{
  double page = rows_area_height (self);
  int i = row_index_of (self, channel);
  double y, v;

  if (i < 0)
    return;
  y = (double) i * self->style.row_height;
  v = gtk_adjustment_get_value (self->vadjustment);
  if (y < v || y + self->style.row_height > v + page)
    gtk_adjustment_set_value (self->vadjustment, MAX (0, y - page / 3));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
strata_timeline_view_select_row (StrataTimelineView *self,
                                 guint32             channel)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  scroll_to_row (self, channel);
  strata_session_select_row (self->session, channel);
}

/* Selects @item (an activity found elsewhere, the event list's) and
 * scrolls its row into view. */
void
strata_timeline_view_select_item (StrataTimelineView   *self,
                                  const StrataZoomItem *item)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));
  g_return_if_fail (item != NULL);

  scroll_to_row (self, item->channel);
  strata_session_select_item (self->session, item);
}

/* Search ------------------------------------------------------------------ */

/**
 * strata_timeline_view_set_search:
 * @text: (nullable): a name (a substring of a comm, any case) or a pid/tid
 *
 * Highlights the rows that match and selects the first.
 *
 * Returns: how many rows match
 */
guint
strata_timeline_view_set_search (StrataTimelineView *self,
                                 const char         *text)
{
  const guint32 *base;
  guint n, n_base;

  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), 0);

  gtk_widget_queue_draw (GTK_WIDGET (self));
  /* In row order, so stepping goes down the timeline; rows not shown
   * (hidden, or in a collapsed process) match too and are shown. */
  if (self->trace == NULL || self->painter == NULL)
    return strata_session_set_search (self->session, NULL, NULL, 0);
  base = base_rows (self, &n_base);
  n = strata_session_set_search (self->session, text, base, n_base);
  if (n > 0)
    strata_timeline_view_search_step (self, 1);
  return n;
}

/* Selects the next (@direction > 0) or previous match, wrapping round,
 * its row shown and scrolled to. */
gboolean
strata_timeline_view_search_step (StrataTimelineView *self,
                                  int                 direction)
{
  guint32 ch;
  gboolean changed = FALSE;

  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), FALSE);

  /* The row is shown first if hidden, then scrolled to. */
  self->selecting = TRUE;
  ch = strata_session_search_step (self->session, direction);
  self->selecting = FALSE;
  if (ch == STRATA_CHANNEL_NONE)
    return FALSE;
  if (g_hash_table_remove (self->hidden, GUINT_TO_POINTER (ch)))
    changed = TRUE;
  if (ch < self->n_channels && self->channels[ch].parent < self->n_channels &&
      g_hash_table_remove (self->collapsed, GUINT_TO_POINTER (self->channels[ch].parent)))
    changed = TRUE;
  if (changed)
    rebuild_rows (self);
  scroll_to_row (self, ch);
  return TRUE;
}

guint32
strata_timeline_view_get_search_match (StrataTimelineView *self)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), STRATA_CHANNEL_NONE);
  return strata_session_get_search_match (self->session);
}

/* Markers ----------------------------------------------------------------- */

void
strata_timeline_view_add_marker (StrataTimelineView *self,
                                 gint64              t)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  strata_session_add_marker (self->session, t);
}

guint
strata_timeline_view_get_markers (StrataTimelineView *self,
                                  gint64             *markers)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), 0);
  return strata_session_get_markers (self->session, markers);
}

/* GObject ----------------------------------------------------------------- */

static void
strata_timeline_view_size_allocate (GtkWidget *widget,
                                    int        width,
                                    int        height,
                                    int        baseline)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (widget);

  update_min_span (self);
  update_adjustments (self);
  gtk_popover_present (GTK_POPOVER (self->row_menu));
}

static void
strata_timeline_view_measure (GtkWidget      *widget,
                              GtkOrientation  orientation,
                              int             for_size,
                              int            *minimum,
                              int            *natural,
                              int            *minimum_baseline,
                              int            *natural_baseline)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = self->style.name_width + 100;
      *natural = self->style.name_width + 1000;
    }
  else
    {
      *minimum = OVERVIEW_HEIGHT + self->style.ruler_height + self->style.legend_height + self->style.row_height;
      guint n_rows;

      shown_rows (self, &n_rows);
      *natural = OVERVIEW_HEIGHT + self->style.ruler_height + self->style.legend_height +
                 MAX (n_rows, 8) * self->style.row_height;
    }
}

static void
strata_timeline_view_dispose (GObject *object)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (object);

  g_clear_pointer (&self->row_menu, gtk_widget_unparent);
  strata_timeline_view_set_trace (self, NULL);
  /* The session is kept to finalize: what runs until then may ask it. */
  g_signal_handlers_disconnect_by_data (self->session, self);
  if (self->hadjustment != NULL)
    g_signal_handlers_disconnect_by_data (self->hadjustment, self);
  if (self->vadjustment != NULL)
    g_signal_handlers_disconnect_by_data (self->vadjustment, self);
  g_clear_object (&self->hadjustment);
  g_clear_object (&self->vadjustment);

  G_OBJECT_CLASS (strata_timeline_view_parent_class)->dispose (object);
}

static void
strata_timeline_view_finalize (GObject *object)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (object);

  g_clear_pointer (&self->list, strata_display_list_free);
  g_clear_pointer (&self->overview_list, strata_display_list_free);
  g_clear_pointer (&self->overview_node, gsk_render_node_unref);
  drop_nodes (self);
  g_clear_pointer (&self->render, strata_timeline_render_free);
  g_clear_object (&self->layout);
  g_clear_pointer (&self->chosen_rows, strata_spilled_array_free);
  g_clear_pointer (&self->pinned, g_array_unref);
  g_clear_pointer (&self->hidden, g_hash_table_unref);
  g_clear_pointer (&self->collapsed, g_hash_table_unref);
  self->live_channels = NULL;
  g_clear_object (&self->session);

  G_OBJECT_CLASS (strata_timeline_view_parent_class)->finalize (object);
}

static void
strata_timeline_view_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      g_value_set_object (value, self->trace);
      break;
    case PROP_DARK:
      g_value_set_boolean (value, self->dark);
      break;
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_HADJUSTMENT:
      g_value_set_object (value, self->hadjustment);
      break;
    case PROP_VADJUSTMENT:
      g_value_set_object (value, self->vadjustment);
      break;
    case PROP_HSCROLL_POLICY:
      g_value_set_enum (value, self->hscroll_policy);
      break;
    case PROP_VSCROLL_POLICY:
      g_value_set_enum (value, self->vscroll_policy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
strata_timeline_view_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  StrataTimelineView *self = STRATA_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      strata_timeline_view_set_trace (self, g_value_get_object (value));
      break;
    case PROP_DARK:
      strata_timeline_view_set_dark (self, g_value_get_boolean (value));
      break;
    case PROP_SESSION:
      strata_timeline_view_set_session (self, g_value_get_object (value));
      break;
    case PROP_HADJUSTMENT:
      set_adjustment (self, &self->hadjustment, g_value_get_object (value), G_CALLBACK (hadjustment_changed));
      break;
    case PROP_VADJUSTMENT:
      set_adjustment (self, &self->vadjustment, g_value_get_object (value), G_CALLBACK (vadjustment_changed));
      break;
    case PROP_HSCROLL_POLICY:
      self->hscroll_policy = g_value_get_enum (value);
      break;
    case PROP_VSCROLL_POLICY:
      self->vscroll_policy = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
strata_timeline_view_class_init (StrataTimelineViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = strata_timeline_view_dispose;
  object_class->finalize = strata_timeline_view_finalize;
  object_class->get_property = strata_timeline_view_get_property;
  object_class->set_property = strata_timeline_view_set_property;

  widget_class->snapshot = strata_timeline_view_snapshot;
  widget_class->measure = strata_timeline_view_measure;
  widget_class->size_allocate = strata_timeline_view_size_allocate;
  widget_class->query_tooltip = strata_timeline_view_query_tooltip;

  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL, STRATA_TYPE_TRACE,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_DARK] =
    g_param_spec_boolean ("dark", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, STRATA_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  signals[SIGNAL_VIEW_CHANGED] =
    g_signal_new ("view-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  _strata_timeline_view_class_init_input (widget_class);

  gtk_widget_class_set_css_name (widget_class, "timeline");
}

static void
strata_timeline_view_init (StrataTimelineView *self)
{
  strata_paint_style_init (&self->style);
  self->style.row_height = 22;
  self->style.name_width = 200;
  self->list = strata_display_list_new ();
  self->content_serial = 1;   /* the zeroed list_key is of no frame */
  self->overview_list = strata_display_list_new ();
  self->pinned = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->hidden = g_hash_table_new (NULL, NULL);
  self->collapsed = g_hash_table_new (NULL, NULL);
  /* Its own session until the window hands it the one it shares. */
  self->session = strata_session_new ();
  connect_session (self);
  set_adjustment (self, &self->hadjustment, NULL, G_CALLBACK (hadjustment_changed));
  set_adjustment (self, &self->vadjustment, NULL, G_CALLBACK (vadjustment_changed));

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  _strata_timeline_view_init_input (self);

  self->row_menu = gtk_popover_menu_new_from_model (NULL);
  gtk_popover_set_has_arrow (GTK_POPOVER (self->row_menu), FALSE);
  gtk_widget_set_halign (self->row_menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->row_menu, GTK_WIDGET (self));
}

GtkWidget *
strata_timeline_view_new (void)
{
  return g_object_new (STRATA_TYPE_TIMELINE_VIEW, NULL);
}

/**
 * strata_timeline_view_set_overlay:
 * @func: (nullable): draws over the rows, clipped to @area, after the
 *   selection and the markers (strata_timeline_view_x_for_time() and
 *   _y_for_row() place things); %NULL for none
 *
 * What the analyses draw on the timeline: wakeup arrows, a critical
 * path. A redraw (gtk_widget_queue_draw()) draws it again over the kept
 * frame, asking the tree nothing.
 */
void
strata_timeline_view_set_overlay (StrataTimelineView        *self,
                                  StrataTimelineOverlayFunc  func,
                                  gpointer                   user_data)
{
  g_return_if_fail (STRATA_IS_TIMELINE_VIEW (self));

  self->overlay = func;
  self->overlay_data = user_data;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
strata_timeline_view_get_row_height (StrataTimelineView *self)
{
  g_return_val_if_fail (STRATA_IS_TIMELINE_VIEW (self), 0);
  return self->style.row_height;
}
