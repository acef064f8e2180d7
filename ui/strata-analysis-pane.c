/* strata-analysis-pane.c
 *
 * See strata-analysis-pane.h. What the pane shows follows the session's
 * selection and range through one idle update (many notifications in a
 * frame are one computation), and only the page on screen is computed.
 * The flame graph's samples need a second read of the trace (the call
 * chains live in the source, not in the index): it runs in a GTask the
 * first time the page is shown, and can be cancelled by closing the
 * trace.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "strata-analysis-pane.h"
#include "strata-item-info.h"

struct _StrataAnalysisPane
{
  GtkWidget                parent_instance;

  GtkWidget               *box;
  GtkLabel                *status;
  GtkToggleButton         *wakeups_button;
  GtkStack                *stack;
  GtkSearchEntry          *flame_search;
  GtkLabel                *flame_status;
  StrataFlameGraphView    *flame_view;
  StrataCriticalPathPanel *path_panel;
  GtkLabel                *wakeup_label;
  GtkLabel                *slice_label;
  StrataHistogramView     *wakeup_view;
  StrataHistogramView     *slice_view;

  StrataTimelineView      *timeline;   /* weak */
  StrataSession           *session;    /* the timeline's: its range and selection */
  StrataTrace             *trace;
  GFile                   *file;
  StrataWakeupArrows      *arrows;
  StrataSampleSet         *samples;
  GCancellable            *loading;
  char                    *samples_error;
  guint                    update_idle;
  guint                    n_arrows;
};

G_DEFINE_FINAL_TYPE (StrataAnalysisPane, strata_analysis_pane, GTK_TYPE_WIDGET)

/* What the pane looks at: the selected range, or else the view; the
 * selected thread or process, or else every thread. */
typedef struct
{
  gint64  from;
  gint64  to;
  guint32 thread;   /* a thread's row, or STRATA_CHANNEL_NONE */
  gint32  pid;      /* a process, or -1 */
} Scope;

static void
scope_of (StrataAnalysisPane *self,
          Scope              *s)
{
  const StrataSelection *sel = strata_session_get_selection (self->session);
  const StrataChannel *channels;
  guint n;

  strata_session_get_range (self->session, &s->from, &s->to);
  s->thread = STRATA_CHANNEL_NONE;
  s->pid = -1;
  channels = strata_trace_get_channels (self->trace, &n);
  if (sel == NULL)
    return;
  if (sel->kind == STRATA_SELECTION_RANGE)
    {
      s->from = sel->from;
      s->to = sel->to;
    }
  else if (sel->kind == STRATA_SELECTION_ITEM || sel->kind == STRATA_SELECTION_ROW)
    {
      guint32 ch = sel->kind == STRATA_SELECTION_ITEM ? sel->item.channel : sel->channel;

      if (ch >= n)
        return;
      if (channels[ch].kind == STRATA_CHANNEL_THREAD)
        s->thread = ch;
      else if (channels[ch].kind == STRATA_CHANNEL_PROCESS)
        s->pid = channels[ch].id;
      else if (sel->kind == STRATA_SELECTION_ITEM && sel->item.kind == STRATA_ACTIVITY_TASK &&
               !(sel->item.flags & STRATA_ZOOM_ITEM_AGGREGATE))
        {
          g_autoptr(StrataThreadMap) threads = strata_thread_map_new (self->trace);

          s->thread = strata_thread_map_lookup (threads, channels[ch].instance, sel->item.arg,
                                                sel->item.start);
        }
    }
}

static char *
scope_text (StrataAnalysisPane *self,
            const Scope        *s)
{
  g_autofree char *len = strata_format_duration (s->to - s->from);
  const StrataChannel *channels;
  guint n;

  channels = strata_trace_get_channels (self->trace, &n);
  if (s->thread != STRATA_CHANNEL_NONE)
    /* Translators: what the analyses cover: "bash 1234, 12.5 ms" */
    return g_strdup_printf (_("%s %d, %s"), strata_channel_display_name (self->trace, s->thread),
                            channels[s->thread].id, len);
  if (s->pid >= 0)
    /* Translators: what the analyses cover: "process 1234, 12.5 ms" */
    return g_strdup_printf (_("process %d, %s"), s->pid, len);
  /* Translators: what the analyses cover: "all threads, 12.5 ms" */
  return g_strdup_printf (_("all threads, %s"), len);
}

static GArray *
thread_rows (StrataAnalysisPane *self,
             const Scope        *s)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  const StrataChannel *channels;
  guint n;

  if (s->thread != STRATA_CHANNEL_NONE)
    {
      g_array_append_val (rows, s->thread);
      return rows;
    }
  channels = strata_trace_get_channels (self->trace, &n);
  for (guint32 i = 0; i < n; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD && (s->pid < 0 || channels[i].tgid == s->pid))
      g_array_append_val (rows, i);
  return rows;
}

static void schedule_update (StrataAnalysisPane *self);

static void
samples_loaded (GObject      *object,
                GAsyncResult *result,
                gpointer      data)
{
  StrataAnalysisPane *self = data;
  g_autoptr(GError) error = NULL;
  StrataSampleSet *set = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_object_unref (self);
      return;
    }
  g_clear_object (&self->loading);
  if (set == NULL)
    self->samples_error = g_strdup (error->message);
  self->samples = set;
  schedule_update (self);
  g_object_unref (self);
}

static void
load_samples_thread (GTask        *task,
                     gpointer      source,
                     gpointer      data,
                     GCancellable *cancellable)
{
  GError *error = NULL;
  StrataSampleSet *set = strata_sample_set_load (data, cancellable, &error);

  if (set == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, set, (GDestroyNotify) strata_sample_set_unref);
}

static void
update_flame (StrataAnalysisPane *self,
              const Scope        *s)
{
  const StrataSourceInfo *info = strata_trace_get_info (self->trace);
  g_autofree char *what = NULL;
  g_autofree char *n_text = NULL;
  StrataFlameGraph *graph;
  StrataFlameFilter filter;
  const StrataChannel *channels;
  guint64 total;
  guint n;

  if (self->samples == NULL)
    {
      strata_flame_graph_view_set_graph (self->flame_view, NULL);
      if (self->samples_error != NULL)
        gtk_label_set_text (self->flame_status, self->samples_error);
      else if (g_strcmp0 (info->format, "perf.data") != 0 || self->file == NULL)
        gtk_label_set_text (self->flame_status, _("This trace has no samples: record one with perf record -g"));
      else
        {
          if (self->loading == NULL)
            {
              g_autoptr(GTask) task = NULL;

              self->loading = g_cancellable_new ();
              task = g_task_new (NULL, self->loading, samples_loaded, g_object_ref (self));
              g_task_set_task_data (task, g_file_get_path (self->file), g_free);
              g_task_run_in_thread (task, load_samples_thread);
            }
          gtk_label_set_text (self->flame_status, _("Reading the samples and their call chains…"));
        }
      return;
    }

  strata_flame_filter_init (&filter);
  filter.from = s->from;
  filter.to = s->to;
  channels = strata_trace_get_channels (self->trace, &n);
  if (s->thread != STRATA_CHANNEL_NONE)
    filter.tid = channels[s->thread].id;
  filter.pid = s->pid;
  graph = strata_flame_graph_new (self->samples, &filter);
  total = strata_flame_graph_get_nodes (graph, &n)[0].total;
  strata_flame_graph_view_set_graph (self->flame_view, graph);
  strata_flame_graph_view_set_search (self->flame_view, gtk_editable_get_text (GTK_EDITABLE (self->flame_search)));
  what = scope_text (self, s);
  n_text = g_strdup_printf ("%" G_GUINT64_FORMAT, total);
  if (strata_flame_graph_view_get_matched (self->flame_view) > 0)
    {
      g_autofree char *text = NULL;
      guint64 matched = strata_flame_graph_view_get_matched (self->flame_view);

      /* Translators: "1234 samples (all threads, 12 ms), 40.2% matched" */
      text = g_strdup_printf (_("%s samples (%s), %.1f%% matched"), n_text, what,
                              100.0 * matched / MAX (total, 1));
      gtk_label_set_text (self->flame_status, text);
    }
  else
    {
      /* Translators: "1234 samples (all threads, 12 ms)" */
      g_autofree char *text = g_strdup_printf (_("%s samples (%s)"), n_text, what);

      gtk_label_set_text (self->flame_status, text);
    }
}

static void
update_path (StrataAnalysisPane *self,
             const Scope        *s)
{
  if (s->thread == STRATA_CHANNEL_NONE)
    strata_critical_path_panel_clear (self->path_panel);
  else
    strata_critical_path_panel_compute (self->path_panel, self->trace, s->thread, s->from, s->to);
}

static void
update_latency (StrataAnalysisPane *self,
                const Scope        *s)
{
  g_autoptr(GArray) rows = thread_rows (self, s);
  StrataHistogram h[STRATA_N_HISTOGRAMS];
  StrataHistogramView *views[STRATA_N_HISTOGRAMS] = { self->wakeup_view, self->slice_view };
  GtkLabel *labels[STRATA_N_HISTOGRAMS] = { self->wakeup_label, self->slice_label };

  strata_histograms_compute (self->trace, (const guint32 *) (gpointer) rows->data, rows->len,
                             s->from, s->to, h);
  for (guint k = 0; k < STRATA_N_HISTOGRAMS; k++)
    {
      g_autofree char *p50 = strata_format_duration (h[k].p50);
      g_autofree char *p99 = strata_format_duration (h[k].p99);
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, h[k].count);
      g_autofree char *text = NULL;

      strata_histogram_view_set_histogram (views[k], &h[k]);
      if (k == STRATA_HISTOGRAM_WAKEUP)
        /* Translators: a histogram's heading: count, median, 99th percentile */
        text = g_strdup_printf (_("Wakeup latency: %s wakeups, p50 %s, p99 %s"), count, p50, p99);
      else
        /* Translators: a histogram's heading: count, median, 99th percentile */
        text = g_strdup_printf (_("Run slices: %s slices, p50 %s, p99 %s"), count, p50, p99);
      gtk_label_set_text (labels[k], text);
    }
}

/**
 * strata_analysis_pane_update_now:
 *
 * Computes the page on screen for the timeline's selection and view at
 * once (the pane does it on its own in an idle after they change).
 */
void
strata_analysis_pane_update_now (StrataAnalysisPane *self)
{
  StrataTrace *trace;
  const char *page;
  Scope s;

  g_return_if_fail (STRATA_IS_ANALYSIS_PANE (self));

  g_clear_handle_id (&self->update_idle, g_source_remove);
  trace = self->timeline != NULL ? strata_timeline_view_get_trace (self->timeline) : NULL;
  if (trace != self->trace)
    {
      g_cancellable_cancel (self->loading);
      g_clear_object (&self->loading);
      g_clear_pointer (&self->samples, strata_sample_set_unref);
      g_clear_pointer (&self->samples_error, g_free);
      g_set_object (&self->trace, trace);
      strata_wakeup_arrows_set_trace (self->arrows, trace);
      strata_critical_path_panel_clear (self->path_panel);
    }
  if (self->trace == NULL || strata_timeline_view_is_live (self->timeline))
    return;

  strata_wakeup_arrows_set_selection (self->arrows, strata_session_get_selection (self->session));
  scope_of (self, &s);
  {
    g_autofree char *text = scope_text (self, &s);

    gtk_label_set_text (self->status, text);
  }

  page = gtk_stack_get_visible_child_name (self->stack);
  if (g_strcmp0 (page, "flame") == 0)
    update_flame (self, &s);
  else if (g_strcmp0 (page, "path") == 0)
    update_path (self, &s);
  else if (g_strcmp0 (page, "latency") == 0)
    update_latency (self, &s);
  gtk_widget_queue_draw (GTK_WIDGET (self->timeline));
}

static gboolean
update_idle (gpointer data)
{
  StrataAnalysisPane *self = data;

  self->update_idle = 0;
  strata_analysis_pane_update_now (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_update (StrataAnalysisPane *self)
{
  if (self->update_idle == 0 && gtk_widget_get_visible (GTK_WIDGET (self)))
    self->update_idle = g_idle_add (update_idle, self);
}

static void
selection_changed (StrataAnalysisPane *self)
{
  /* The selection's arrow is drawn whether the pane shows or not. */
  if (self->trace != NULL)
    {
      strata_wakeup_arrows_set_selection (self->arrows, strata_session_get_selection (self->session));
      gtk_widget_queue_draw (GTK_WIDGET (self->timeline));
    }
  schedule_update (self);
}

static void
draw_overlay (StrataTimelineView    *view,
              GtkSnapshot           *snapshot,
              const graphene_rect_t *area,
              gpointer               data)
{
  StrataAnalysisPane *self = data;

  if (gtk_widget_get_visible (GTK_WIDGET (self)))
    strata_critical_path_panel_draw (self->path_panel, view, snapshot, area);
  self->n_arrows = strata_wakeup_arrows_draw (self->arrows, view, snapshot, area);
}

void
strata_analysis_pane_set_timeline (StrataAnalysisPane *self,
                                   StrataTimelineView *timeline)
{
  g_return_if_fail (STRATA_IS_ANALYSIS_PANE (self));
  g_return_if_fail (self->timeline == NULL);

  self->timeline = timeline;
  g_object_add_weak_pointer (G_OBJECT (timeline), (gpointer *) &self->timeline);
  /* What it shows follows the session the timeline shares; a new trace
   * is installed in the timeline after the session hears of it, so the
   * timeline's "view-changed" (which ends an install) is heard too. */
  g_set_object (&self->session, strata_timeline_view_get_session (timeline));
  g_signal_connect_object (self->session, "selection-changed", G_CALLBACK (selection_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->session, "range-changed", G_CALLBACK (schedule_update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (timeline, "view-changed", G_CALLBACK (schedule_update), self, G_CONNECT_SWAPPED);
  strata_timeline_view_set_overlay (timeline, draw_overlay, self);
}

/* The trace's file: the flame graph reads its samples from it again. */
void
strata_analysis_pane_set_file (StrataAnalysisPane *self,
                               GFile              *file)
{
  g_return_if_fail (STRATA_IS_ANALYSIS_PANE (self));
  g_set_object (&self->file, file);
}

void
strata_analysis_pane_show_page (StrataAnalysisPane *self,
                                const char         *name)
{
  g_return_if_fail (STRATA_IS_ANALYSIS_PANE (self));
  gtk_stack_set_visible_child_name (self->stack, name);
}

gboolean
strata_analysis_pane_is_loading (StrataAnalysisPane *self)
{
  g_return_val_if_fail (STRATA_IS_ANALYSIS_PANE (self), FALSE);
  return self->loading != NULL || self->update_idle != 0;
}

void
strata_analysis_pane_set_show_wakeups (StrataAnalysisPane *self,
                                       gboolean            show)
{
  g_return_if_fail (STRATA_IS_ANALYSIS_PANE (self));
  gtk_toggle_button_set_active (self->wakeups_button, show);
}

static void
wakeups_toggled (StrataAnalysisPane *self)
{
  strata_wakeup_arrows_set_show_all (self->arrows, gtk_toggle_button_get_active (self->wakeups_button));
  if (self->timeline != NULL)
    gtk_widget_queue_draw (GTK_WIDGET (self->timeline));
}

static void
search_changed (StrataAnalysisPane *self)
{
  schedule_update (self);
}

static void
segment_activated (StrataAnalysisPane *self,
                   guint               index)
{
  const GArray *segments = strata_critical_path_panel_get_segments (self->path_panel);
  const StrataPathSegment *s;

  if (segments == NULL || index >= segments->len || self->timeline == NULL)
    return;
  s = &g_array_index (segments, StrataPathSegment, index);
  strata_timeline_view_select_row (self->timeline, s->channel);
  strata_timeline_view_navigate_to (self->timeline, s->start - (s->end - s->start) / 2,
                                    s->end + (s->end - s->start) / 2);
}

StrataFlameGraphView *
strata_analysis_pane_get_flame_view (StrataAnalysisPane *self)
{
  return self->flame_view;
}

StrataCriticalPathPanel *
strata_analysis_pane_get_path_panel (StrataAnalysisPane *self)
{
  return self->path_panel;
}

StrataHistogramView *
strata_analysis_pane_get_histogram (StrataAnalysisPane *self,
                                    StrataHistogramKind kind)
{
  return kind == STRATA_HISTOGRAM_WAKEUP ? self->wakeup_view : self->slice_view;
}

StrataWakeupArrows *
strata_analysis_pane_get_arrows (StrataAnalysisPane *self)
{
  return self->arrows;
}

/* The arrows the last frame drew. */
guint
strata_analysis_pane_get_n_arrows (StrataAnalysisPane *self)
{
  return self->n_arrows;
}

static void
strata_analysis_pane_dispose (GObject *object)
{
  StrataAnalysisPane *self = STRATA_ANALYSIS_PANE (object);

  g_clear_handle_id (&self->update_idle, g_source_remove);
  if (self->timeline != NULL)
    {
      strata_timeline_view_set_overlay (self->timeline, NULL, NULL);
      g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
      self->timeline = NULL;
    }
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  g_cancellable_cancel (self->loading);
  g_clear_object (&self->loading);
  g_clear_pointer (&self->samples, strata_sample_set_unref);
  g_clear_pointer (&self->samples_error, g_free);
  g_clear_pointer (&self->arrows, strata_wakeup_arrows_free);
  g_clear_object (&self->trace);
  g_clear_object (&self->file);
  gtk_widget_dispose_template (GTK_WIDGET (self), STRATA_TYPE_ANALYSIS_PANE);
  G_OBJECT_CLASS (strata_analysis_pane_parent_class)->dispose (object);
}

static void
strata_analysis_pane_class_init (StrataAnalysisPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = strata_analysis_pane_dispose;

  g_type_ensure (STRATA_TYPE_FLAME_GRAPH_VIEW);
  g_type_ensure (STRATA_TYPE_CRITICAL_PATH_PANEL);
  g_type_ensure (STRATA_TYPE_HISTOGRAM_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/strata/Strata/strata-analysis-pane.ui");
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, box);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, status);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, wakeups_button);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, stack);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, flame_search);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, flame_status);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, flame_view);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, path_panel);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, wakeup_label);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, slice_label);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, wakeup_view);
  gtk_widget_class_bind_template_child (widget_class, StrataAnalysisPane, slice_view);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
strata_analysis_pane_init (StrataAnalysisPane *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->arrows = strata_wakeup_arrows_new ();
  g_signal_connect_swapped (self->wakeups_button, "toggled", G_CALLBACK (wakeups_toggled), self);
  g_signal_connect_swapped (self->flame_search, "search-changed", G_CALLBACK (search_changed), self);
  g_signal_connect_swapped (self->stack, "notify::visible-child-name", G_CALLBACK (schedule_update), self);
  g_signal_connect_swapped (self->path_panel, "segment-activated", G_CALLBACK (segment_activated), self);
  g_signal_connect_swapped (self, "notify::visible", G_CALLBACK (schedule_update), self);
}
