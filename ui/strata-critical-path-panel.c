/* strata-critical-path-panel.c
 *
 * See strata-critical-path-panel.h. A path can have many segments (a
 * thread preempted often); the list shows the first MAX_ROWS and says
 * how many more there are, the timeline draws them all (those in view).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "strata-critical-path-panel.h"
#include "strata-item-info.h"
#include "strata-timeline-view-private.h"

#define MAX_ROWS 1000

struct _StrataCriticalPathPanel
{
  GtkWidget    parent_instance;

  GtkWidget   *box;
  GtkLabel    *title;
  GtkLabel    *summary;
  GtkListBox  *list;

  StrataTrace *trace;
  GArray      *segments;   /* StrataPathSegment */
  gint64       from;
  gint64       to;
  guint        n_rows;
};

G_DEFINE_FINAL_TYPE (StrataCriticalPathPanel, strata_critical_path_panel, GTK_TYPE_WIDGET)

enum { SIGNAL_SEGMENT_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *
thread_name (StrataCriticalPathPanel *self,
             guint32                  channel)
{
  const StrataChannel *channels;
  const char *name;
  guint n;

  channels = strata_trace_get_channels (self->trace, &n);
  if (channel >= n)
    return "?";
  name = strata_trace_get_string (self->trace, channels[channel].name);
  return name != NULL && name[0] != '\0' ? name : "?";
}

static char *
state_text (const StrataPathSegment *s)
{
  const char *state = strata_task_state_display_name (s->state);

  switch (s->wait)
    {
    /* Translators: a wait on a critical path; %s is the state ("Sleeping") */
    case STRATA_PATH_WAIT_INTERRUPT: return g_strdup_printf (_("%s, woken by an interrupt"), state);
    /* Translators: a wait on a critical path; %s is the state */
    case STRATA_PATH_WAIT_UNENDED:   return g_strdup_printf (_("%s, not woken in the range"), state);
    /* Translators: a wait on a critical path; %s is the state */
    case STRATA_PATH_WAIT_UNKNOWN:   return g_strdup_printf (_("%s, waker not in the trace"), state);
    case STRATA_PATH_WAIT_NONE:
    default:
      if (s->state == STRATA_TASK_STATE_RUNNING && s->cpu >= 0)
        /* Translators: "Running on CPU 3" */
        return g_strdup_printf (_("%s on CPU %d"), state, s->cpu);
      return g_strdup (state);
    }
}

static GtkWidget *
cell (const char *text,
      int         chars,
      float       xalign,
      gboolean    dim)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  if (chars > 0)
    gtk_label_set_width_chars (GTK_LABEL (label), chars);
  else
    {
      gtk_widget_set_hexpand (label, TRUE);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
    }
  if (dim)
    gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "numeric");
  return label;
}

static GtkWidget *
segment_row (StrataCriticalPathPanel *self,
             const StrataPathSegment *s)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gint64 start = strata_trace_get_start (self->trace);
  g_autofree char *at = strata_format_offset (s->start - start);
  g_autofree char *len = strata_format_duration (s->end - s->start);
  g_autofree char *share = g_strdup_printf ("%.1f%%", 100.0 * (s->end - s->start) / MAX (self->to - self->from, 1));
  g_autofree char *who = g_strdup_printf ("%s %d", thread_name (self, s->channel), s->tid);
  g_autofree char *what = state_text (s);

  gtk_widget_set_margin_start (box, 8);
  gtk_widget_set_margin_end (box, 8);
  gtk_widget_set_margin_top (box, 3);
  gtk_widget_set_margin_bottom (box, 3);
  gtk_box_append (GTK_BOX (box), cell (at, 11, 1, TRUE));
  gtk_box_append (GTK_BOX (box), cell (len, 10, 1, FALSE));
  gtk_box_append (GTK_BOX (box), cell (share, 6, 1, TRUE));
  gtk_box_append (GTK_BOX (box), cell (who, 18, 0, FALSE));
  gtk_box_append (GTK_BOX (box), cell (what, 0, 0, FALSE));
  return box;
}

void
strata_critical_path_panel_clear (StrataCriticalPathPanel *self)
{
  GtkWidget *child;

  g_return_if_fail (STRATA_IS_CRITICAL_PATH_PANEL (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  g_clear_pointer (&self->segments, g_array_unref);
  g_clear_object (&self->trace);
  self->n_rows = 0;
  gtk_label_set_text (self->title, _("Select a thread to see what it waited for over the view"));
  gtk_widget_set_visible (GTK_WIDGET (self->summary), FALSE);
}

/**
 * strata_critical_path_panel_compute:
 * @channel: a thread's row
 *
 * Returns: FALSE when there is no path (not a thread, an empty range)
 */
gboolean
strata_critical_path_panel_compute (StrataCriticalPathPanel *self,
                                    StrataTrace             *trace,
                                    guint32                  channel,
                                    gint64                   from,
                                    gint64                   to)
{
  g_autoptr(GArray) threads = NULL;
  g_autofree char *len = NULL;
  GString *summary;
  GArray *path;

  g_return_val_if_fail (STRATA_IS_CRITICAL_PATH_PANEL (self), FALSE);

  strata_critical_path_panel_clear (self);
  path = strata_critical_path_compute (trace, channel, from, to, NULL);
  if (path == NULL)
    return FALSE;

  self->trace = g_object_ref (trace);
  self->segments = path;
  self->from = from;
  self->to = to;

  len = strata_format_duration (to - from);
  {
    /* Translators: "Critical path of bash 1234 over 12.5 ms" */
    guint n;
    const StrataChannel *channels = strata_trace_get_channels (trace, &n);
    g_autofree char *title = g_strdup_printf (_("Critical path of %s %d over %s"),
                                              thread_name (self, channel), channels[channel].id, len);
    gtk_label_set_text (self->title, title);
  }

  threads = strata_critical_path_by_thread (path);
  summary = g_string_new (NULL);
  for (guint i = 0; i < MIN (threads->len, 6); i++)
    {
      const StrataPathThread *t = &g_array_index (threads, StrataPathThread, i);
      g_autofree char *d = strata_format_duration (t->total);

      g_string_append_printf (summary, "%s%s %d: %s (%.1f%%)", i > 0 ? "\n" : "",
                              thread_name (self, t->channel), t->tid, d, 100.0 * t->total / MAX (to - from, 1));
    }
  gtk_label_set_text (self->summary, summary->str);
  gtk_widget_set_visible (GTK_WIDGET (self->summary), TRUE);
  g_string_free (summary, TRUE);

  for (guint i = 0; i < path->len && i < MAX_ROWS; i++)
    gtk_list_box_append (self->list, segment_row (self, &g_array_index (path, StrataPathSegment, i)));
  self->n_rows = MIN (path->len, MAX_ROWS);
  if (path->len > MAX_ROWS)
    {
      /* Translators: at the end of a long list of path segments */
      g_autofree char *more = g_strdup_printf (_("and %u more"), path->len - MAX_ROWS);
      GtkWidget *row = cell (more, 0, 0.5f, TRUE);

      gtk_list_box_append (self->list, row);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (gtk_widget_get_parent (row)), FALSE);
    }

  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

const GArray *
strata_critical_path_panel_get_segments (StrataCriticalPathPanel *self)
{
  g_return_val_if_fail (STRATA_IS_CRITICAL_PATH_PANEL (self), NULL);
  return self->segments;
}

guint
strata_critical_path_panel_get_n_rows (StrataCriticalPathPanel *self)
{
  g_return_val_if_fail (STRATA_IS_CRITICAL_PATH_PANEL (self), 0);
  return self->n_rows;
}

/* The path over the rows: each segment a band on its thread's row, a
 * line where it hands over to another thread. */
void
strata_critical_path_panel_draw (StrataCriticalPathPanel *self,
                                 StrataTimelineView      *view,
                                 GtkSnapshot             *snapshot,
                                 const graphene_rect_t   *area)
{
  const GdkRGBA band = { 0.18f, 0.76f, 0.49f, 0.35f };
  const GdkRGBA edge = { 0.15f, 0.64f, 0.41f, 1 };
  double rh = strata_timeline_view_get_row_height (view);
  double prev_x = 0, prev_y = -1;

  g_return_if_fail (STRATA_IS_CRITICAL_PATH_PANEL (self));

  if (self->segments == NULL)
    return;

  for (guint i = 0; i < self->segments->len; i++)
    {
      const StrataPathSegment *s = &g_array_index (self->segments, StrataPathSegment, i);
      double x0 = strata_timeline_view_x_for_time (view, s->start);
      double x1 = strata_timeline_view_x_for_time (view, s->end);
      double y = strata_timeline_view_y_for_row (view, s->channel);

      if (y >= 0 && x1 >= area->origin.x && x0 <= area->origin.x + area->size.width)
        {
          x0 = MAX (x0, area->origin.x - 2);
          x1 = MIN (x1, area->origin.x + area->size.width + 2);
          gtk_snapshot_append_color (snapshot, &band, &GRAPHENE_RECT_INIT (x0, y, MAX (x1 - x0, 1), rh));
          gtk_snapshot_append_color (snapshot, &edge, &GRAPHENE_RECT_INIT (x0, y + rh - 3, MAX (x1 - x0, 1), 3));
        }
      if (y >= 0 && prev_y >= 0 && prev_y != y &&
          prev_x >= area->origin.x && prev_x <= area->origin.x + area->size.width)
        gtk_snapshot_append_color (snapshot, &edge,
                                   &GRAPHENE_RECT_INIT (floor (prev_x), MIN (prev_y, y) + rh / 2, 2,
                                                        ABS (y - prev_y)));
      prev_x = strata_timeline_view_x_for_time (view, s->end);
      prev_y = y;
    }
}

static void
row_activated (GtkListBox              *list,
               GtkListBoxRow           *row,
               StrataCriticalPathPanel *self)
{
  int i = gtk_list_box_row_get_index (row);

  if (self->segments != NULL && i >= 0 && (guint) i < self->n_rows)
    g_signal_emit (self, signals[SIGNAL_SEGMENT_ACTIVATED], 0, (guint) i);
}

static void
strata_critical_path_panel_dispose (GObject *object)
{
  StrataCriticalPathPanel *self = STRATA_CRITICAL_PATH_PANEL (object);

  g_clear_pointer (&self->segments, g_array_unref);
  g_clear_object (&self->trace);
  gtk_widget_dispose_template (GTK_WIDGET (self), STRATA_TYPE_CRITICAL_PATH_PANEL);
  G_OBJECT_CLASS (strata_critical_path_panel_parent_class)->dispose (object);
}

static void
strata_critical_path_panel_class_init (StrataCriticalPathPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = strata_critical_path_panel_dispose;

  /**
   * StrataCriticalPathPanel::segment-activated:
   * @index: the segment's place in the path
   */
  signals[SIGNAL_SEGMENT_ACTIVATED] =
    g_signal_new ("segment-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/strata/Strata/strata-critical-path-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, StrataCriticalPathPanel, box);
  gtk_widget_class_bind_template_child (widget_class, StrataCriticalPathPanel, title);
  gtk_widget_class_bind_template_child (widget_class, StrataCriticalPathPanel, summary);
  gtk_widget_class_bind_template_child (widget_class, StrataCriticalPathPanel, list);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
strata_critical_path_panel_init (StrataCriticalPathPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect (self->list, "row-activated", G_CALLBACK (row_activated), self);
}

GtkWidget *
strata_critical_path_panel_new (void)
{
  return g_object_new (STRATA_TYPE_CRITICAL_PATH_PANEL, NULL);
}
