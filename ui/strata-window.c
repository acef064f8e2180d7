/* strata-window.c
 *
 * The main window. Opening a trace goes through its persistent index: a
 * sound one (strata_loader_find_index(), wherever the index module looks)
 * is mapped at once and shown with no progress at all. Otherwise the
 * trace is read and its zoom tree built in a worker thread (a GTask
 * around strata_loader_load()); the worker counts the activities it has
 * made under a lock and hands the count to the main loop in at most one
 * idle callback at a time (and a few a second), which shows how much of
 * the file has been read with the rates and the time left (strata-load-estimate.c), and at the
 * end the loader writes the index so the next open is instant. A stale or damaged index, or one that cannot be written, is
 * said once in a toast. The window owns the session the timeline, the event
 * list and the analysis pane share (strata-session.c); the details panel
 * describes its selection with the same fields as the tooltip
 * (strata-item-info.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <malloc.h>
#include <time.h>

#include <glib/gi18n.h>

#include "strata-analysis-pane.h"
#include "strata-event-list.h"
#include "strata-item-info.h"
#include "strata-load-estimate.h"
#include "strata-record-dialog.h"
#include "strata-record-status.h"
#include "strata-record-close.h"
#include "strata-recording.h"
#include "strata-window.h"
#include "strata-window-private.h"
#include "strata-window-export.h"

/* How often the timeline is given what the load has built so far: often
 * enough that a recording followed as it is written shows a new thread
 * within a quarter of a second (the recorder's own delay is most of it);
 * what showing it costs slows it down (live_every_usec). */
#define LIVE_EVERY_USEC (50 * G_TIME_SPAN_MILLISECOND)

/* A finished file is read as fast as the cores allow, and the main loop
 * shares them with the pass: showing the growing trace (the painter's
 * queries of a tree whose top chunks are still open, computed on demand,
 * and the frames after) may take at most one part in LIVE_FILE_SHARE of
 * the main thread's time, all it spent since the last showing counted. */
#define LIVE_FILE_SHARE 20

/* How often the progress is shown: the worker reports after every batch
 * of events, and an idle callback each time kept the main loop busy
 * relaying the label (about as often as the pass could feed it). Each
 * showing is a frame of the window (a few ms in software rendering), so
 * a file's progress moves four times a second; a recording's status,
 * which counts its seconds, ten. */
#define PROGRESS_EVERY_USEC (250 * G_TIME_SPAN_MILLISECOND)
#define RECORDING_PROGRESS_EVERY_USEC (100 * G_TIME_SPAN_MILLISECOND)

/* Shared by the worker (which writes) and the main loop (which reads),
 * under the lock. */
typedef struct
{
  GMutex       lock;
  guint64      n_events;
  gint64       start;
  gint64       horizon;
  guint64      bytes_read;     /* of the file, as the last report said */
  guint64      bytes_total;
  guint64      n_lost;
  gboolean     growing;        /* a recording still being written */
  guint64      rate_n;         /* events and horizon where the rate's second began */
  gint64       rate_horizon;
  double       rate;
  StrataTrace *trace;          /* the trace being built, once it has events */
  /* The channel table, handed over in pieces: the timeline keeps it. */
  StrataLiveChannels *live_channels;
  gint64       last_live_usec;
  gint64       live_every_usec; /* grows with what showing it costs */
  gint64       main_cpu_usec;   /* the main thread's CPU time after the last showing */
  gint64       last_report_usec;
  gboolean     idle_pending;
  gboolean     cancelled;
  gint64       began_usec;
  GWeakRef     window;
  /* Set before the worker starts: the loader that looked for the index. */
  StrataLoader         *loader;
  GCancellable         *cancellable;
  GString              *notes;     /* what the loader said, under the lock */
} LoadProgress;

struct _StrataWindow
{
  AdwApplicationWindow  parent_instance;

  AdwWindowTitle       *window_title;
  AdwSplitButton       *open_button;
  GtkSearchBar         *search_bar;
  GtkSearchEntry       *search_entry;
  GtkLabel             *search_status;
  GtkToggleButton      *search_button;
  AdwToastOverlay      *toast_overlay;
  GtkStack             *stack;
  AdwStatusPage        *loading_page;
  GtkProgressBar       *progress_bar;
  GtkLabel             *progress_label;
  GtkRevealer          *live_bar;
  GtkLabel             *live_label;
  GtkProgressBar       *live_progress;
  GtkToggleButton      *follow_button;
  GtkLabel             *lost_label;
  GtkPaned             *paned;
  GtkPaned             *events_paned;
  GtkWidget            *bottom_box;
  StrataAnalysisPane   *analysis_pane;
  GtkToggleButton      *analysis_button;
  StrataEventList      *event_list;
  GtkToggleButton      *events_button;
  StrataTimelineView   *timeline;
  GtkWidget            *panel;
  GtkLabel             *panel_title;
  GtkGrid              *panel_grid;
  GtkWidget            *zoom_to_button;
  GtkWidget            *members_heading;
  GtkListBox           *members_list;

  GMenu                *recent_menu;
  GSettings            *settings;
  /* What the timeline, the event list, the panel and the analysis pane
   * share of the trace shown: range, history, selection, markers, search
   * (afresh for each trace the timeline installs). */
  StrataSession        *session;
  StrataTrace          *trace;
  GFile                *file;
  LoadProgress         *loading;
  StrataItemInfo       *info;
  GArray               *member_groups;   /* StrataMemberGroup */
  StrataRecording      *recording;       /* the recorder this window started, while it runs */
  char                 *record_message;  /* why the last recording did not start */
  GtkWindow            *close_question;  /* asking whether to keep the recording, while shown */
  StrataRecording      *asked_about;     /* its recording, which may end while it asks */
  gboolean              close_answered;  /* the user said what becomes of the recording */
  gboolean              events_behind;   /* the event list waits to be shown to take the trace */

  /* The event list of a growing trace, made again for its newer part. */
  gconstpointer         live_events_of;  /* the trace it was made for (compared only) */
  gint64                live_events_next_usec;
};

G_DEFINE_FINAL_TYPE (StrataWindow, strata_window, ADW_TYPE_APPLICATION_WINDOW)

static void update_actions (StrataWindow *self);

/* Loading ----------------------------------------------------------------- */

static void
load_progress_clear (gpointer data)
{
  LoadProgress *p = data;

  g_mutex_clear (&p->lock);
  g_weak_ref_clear (&p->window);
  g_clear_object (&p->trace);
  g_clear_pointer (&p->live_channels, strata_live_channels_free);
  g_clear_object (&p->loader);
  g_clear_object (&p->cancellable);
  if (p->notes != NULL)
    g_string_free (p->notes, TRUE);
}

/* The task and a pending progress idle each hold a reference: the load
 * can end while the idle is still queued. */
static void
load_progress_free (gpointer data)
{
  g_atomic_rc_box_release_full (data, load_progress_clear);
}

static gboolean
load_cancelled (LoadProgress *p)
{
  gboolean cancelled;

  g_mutex_lock (&p->lock);
  cancelled = p->cancelled;
  g_mutex_unlock (&p->lock);
  return cancelled;
}

static void
cancel_load (LoadProgress *p)
{
  g_mutex_lock (&p->lock);
  p->cancelled = TRUE;
  g_mutex_unlock (&p->lock);
  g_cancellable_cancel (p->cancellable);
}

static void
show_progress (StrataWindow             *self,
               const StrataLoadEstimate *estimate)
{
  g_autofree char *text = strata_load_estimate_format (estimate);
  double fraction = strata_load_estimate_fraction (estimate);

  /* The share of the file its events came from fills the bars; a file
   * of unknown size makes them pulse. */
  if (fraction >= 0)
    {
      gtk_progress_bar_set_fraction (self->progress_bar, fraction);
      gtk_progress_bar_set_fraction (self->live_progress, fraction);
    }
  else
    {
      gtk_progress_bar_pulse (self->progress_bar);
      gtk_progress_bar_pulse (self->live_progress);
    }
  gtk_label_set_text (self->progress_label, text);
  gtk_label_set_text (self->live_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->lost_label), FALSE);
}

/* A recording being written has no share read nor time left: how long
 * it has run, its rate over the last second of it, its size and losses. */
static void
show_recording (StrataWindow             *self,
                LoadProgress             *p,
                const StrataLoadEstimate *estimate,
                guint64                   n_lost,
                gint64                    horizon)
{
  g_autofree char *text = NULL;
  g_autofree char *lost = strata_record_status_lost (n_lost);

  if (p->rate_horizon == 0 || horizon < p->rate_horizon)
    {
      p->rate_horizon = horizon;
      p->rate_n = estimate->n_events;
    }
  else if (horizon - p->rate_horizon >= G_TIME_SPAN_SECOND * 1000)
    {
      p->rate = (estimate->n_events - p->rate_n) * 1e9 / (horizon - p->rate_horizon);
      p->rate_horizon = horizon;
      p->rate_n = estimate->n_events;
    }
  text = strata_record_status_format (estimate->covered_ns, p->rate, estimate->bytes_total);
  gtk_label_set_text (self->live_label, text);
  gtk_label_set_text (self->lost_label, lost);
  gtk_widget_set_visible (GTK_WIDGET (self->lost_label), TRUE);
  if (n_lost > 0)
    gtk_widget_add_css_class (GTK_WIDGET (self->lost_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->lost_label), "error");
  gtk_progress_bar_pulse (self->live_progress);
}

/* For the tests: what progress_idle() shows for a report. */
void
strata_window_show_load_estimate (StrataWindow             *self,
                                  const StrataLoadEstimate *estimate)
{
  g_return_if_fail (STRATA_IS_WINDOW (self));
  g_return_if_fail (estimate != NULL);

  show_progress (self, estimate);
}

/* The CPU time the calling thread has used. */
static gint64
thread_cpu_usec (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gboolean
progress_idle (gpointer data)
{
  LoadProgress *p = data;
  g_autoptr(StrataWindow) self = g_weak_ref_get (&p->window);
  g_autoptr(GArray) fresh = NULL;
  g_autoptr(GArray) changes = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  StrataLoadEstimate estimate = { 0 };
  gint64 start, horizon;
  guint64 n_lost;
  gboolean growing;

  g_mutex_lock (&p->lock);
  n_lost = p->n_lost;
  growing = p->growing;
  estimate.n_events = p->n_events;
  estimate.bytes_read = p->bytes_read;
  estimate.bytes_total = p->bytes_total;
  start = p->start;
  horizon = p->horizon;
  if (p->live_channels != NULL)
    strata_live_channels_take (p->live_channels, &fresh, &changes);
  trace = p->trace != NULL ? g_object_ref (p->trace) : NULL;
  p->idle_pending = FALSE;
  g_mutex_unlock (&p->lock);

  if (self == NULL || self->loading != p)
    return G_SOURCE_REMOVE;

  estimate.elapsed_usec = g_get_monotonic_time () - p->began_usec;
  estimate.covered_ns = horizon > start && start != G_MAXINT64 ? horizon - start : 0;
  if (growing)
    show_recording (self, p, &estimate, n_lost, horizon);
  else
    show_progress (self, &estimate);

  /* The timeline is usable as soon as there is something to draw. */
  if (fresh != NULL && trace != NULL)
    {
      gboolean first = !strata_timeline_view_is_live (self->timeline);
      gint64 t0 = g_get_monotonic_time (), cpu0 = thread_cpu_usec (), spent, cpu;

      strata_timeline_view_set_live (self->timeline, trace, (const StrataChannel *)(gpointer) fresh->data,
                                     fresh->len, (const StrataChannelChange *)(gpointer) changes->data,
                                     changes->len, start, horizon);

      /* The tree's unfinished chunks are computed on demand, so showing
       * a growing trace costs more as it grows: the main loop keeps most
       * of its time for the user (the frame costs about as much again).
       * A finished file counts the frames and the progress since the
       * last showing too, and keeps most of the cores for the pass. */
      spent = g_get_monotonic_time () - t0;
      cpu = thread_cpu_usec ();
      g_mutex_lock (&p->lock);
      /* A recording's showing is spaced by what it cost the main thread,
       * not by the wall time it took: on a busy machine that counts the
       * time other processes ran, and spaced the rows of new threads by
       * up to a second. */
      if (growing)
        p->live_every_usec = 8 * (cpu - cpu0);
      else
        p->live_every_usec = (LIVE_FILE_SHARE - 1) * MAX (cpu - p->main_cpu_usec, spent);
      p->main_cpu_usec = cpu;
      g_mutex_unlock (&p->lock);
      if (first)
        {
          gtk_revealer_set_reveal_child (self->live_bar, TRUE);
          gtk_widget_set_visible (self->panel, FALSE);
          gtk_stack_set_visible_child_name (self->stack, "timeline");
        }
    }
  return G_SOURCE_REMOVE;
}

/* Called on the worker after each batch of events. */
static gboolean
load_progress (const StrataTraceProgress *progress,
               gpointer                   data)
{
  LoadProgress *p = data;
  gint64 now = g_get_monotonic_time ();
  gboolean go_on, live = FALSE;

  g_mutex_lock (&p->lock);
  go_on = !p->cancelled;
  p->n_events = progress->n_events;
  p->bytes_read = progress->bytes_read;
  p->bytes_total = progress->bytes_total;
  p->start = progress->start;
  p->horizon = progress->horizon;
  p->n_lost = progress->n_lost;
  p->growing = progress->growing;
  /* The timeline takes the channels new or changed since it last took
   * them: a copy of them all at each showing was 2.7 MB at 67 000
   * threads, several times a second. */
  if (p->live_channels != NULL && progress->tree != NULL && progress->start != G_MAXINT64 &&
      progress->horizon > progress->start && progress->n_channels > 0 &&
      now - p->last_live_usec >= MAX (LIVE_EVERY_USEC, p->live_every_usec))
    {
      strata_live_channels_hand_over (p->live_channels, progress);
      if (p->trace == NULL)
        p->trace = g_object_ref (progress->trace);
      p->last_live_usec = now;
      live = TRUE;
    }
  else if (p->live_channels != NULL)
    strata_live_channels_note (p->live_channels, progress);
  if (!p->idle_pending &&
      (live || now - p->last_report_usec >= (progress->growing ? RECORDING_PROGRESS_EVERY_USEC
                                                                 : PROGRESS_EVERY_USEC)))
    {
      p->idle_pending = TRUE;
      p->last_report_usec = now;
      g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, progress_idle, g_atomic_rc_box_acquire (p),
                       load_progress_free);
    }
  g_mutex_unlock (&p->lock);

  return go_on;
}

/* The loader's notes, from the worker: kept for load_done(). */
static void
load_note (StrataLoader *loader,
           const char   *message,
           gpointer      data)
{
  LoadProgress *p = data;

  g_mutex_lock (&p->lock);
  if (p->notes == NULL)
    p->notes = g_string_new (message);
  else
    g_string_append_printf (p->notes, "\n%s", message);
  g_mutex_unlock (&p->lock);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadProgress *p = task_data;
  StrataTrace *built;
  GError *error = NULL;

  /* Through the index (the statistics go into it as the CLI's pass puts
   * them), written here, off the main loop, and mapped back: the next
   * open of this trace is instant, and this one's tree no longer sits in
   * memory. */
  g_signal_connect (p->loader, "note", G_CALLBACK (load_note), p);
  strata_loader_set_progress_func (p->loader, load_progress, p, NULL);
  built = strata_loader_load (p->loader, p->cancellable, &error);
  if (built == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, built, g_object_unref);
}

/* The same, on the main loop, while looking for the index. */
static void
load_note_main (StrataLoader *loader,
                const char   *message,
                gpointer      data)
{
  GString *notes = data;

  if (notes->len > 0)
    g_string_append_c (notes, '\n');
  g_string_append (notes, message);
}

static void
toast_notes (StrataWindow *self,
             const char   *notes)
{
  /* Translators: shown when a trace's saved index cannot be used or
   * written; the details follow */
  g_autofree char *msg = g_strdup_printf (_("Index: %s"), notes);
  AdwToast *toast = adw_toast_new (msg);

  adw_toast_set_timeout (toast, 10);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
show_trace (StrataWindow *self,
            StrataTrace  *trace,
            GFile        *file)
{
  const StrataSourceInfo *info = strata_trace_get_info (trace);
  g_autofree char *basename = g_file_get_basename (file);
  g_autofree char *span = strata_format_duration (strata_trace_get_end (trace) - strata_trace_get_start (trace));
  g_autofree char *subtitle = NULL;
  g_autofree char *uri = g_file_get_uri (file);
  const GError *damage;

  g_set_object (&self->trace, trace);
  g_set_object (&self->file, file);
  strata_analysis_pane_set_file (self->analysis_pane, file);
  strata_timeline_view_set_trace (self->timeline, trace);
  /* The event list counts every activity of the trace as it takes it
   * (one walk of the whole raw store: on the dense 20M trace, 24 s on
   * the main thread and every page of the index made resident, as the
   * first open ended). Hidden, it takes the trace when it is shown. */
  self->events_behind = !gtk_widget_get_visible (GTK_WIDGET (self->event_list));
  strata_event_list_set_trace (self->event_list, self->events_behind ? NULL : trace);
  {
    /* The Fields column reads a trace.dat's or a perf.data's events
     * again, or the kernel's text lines, as rows show; not a damaged file, which
     * libtracecmd's own reading of records is not safe against (our
     * reader checks each page before it decodes it). */
    g_autofree char *path = g_file_get_path (file);
    gboolean ftrace = (g_strcmp0 (info->format, "trace.dat") == 0 || g_strcmp0 (info->format, "ftrace text") == 0 ||
                       g_strcmp0 (info->format, "perf.data") == 0) &&
                      strata_trace_get_damage (trace) == NULL;

    strata_event_list_set_fields_file (self->event_list, ftrace ? path : NULL);
  }

  /* Translators: the window's subtitle: format, CPU count, length */
  subtitle = g_strdup_printf (_("%s · %u CPUs · %s"), info->format, info->n_cpus, span);
  adw_window_title_set_title (self->window_title, basename);
  adw_window_title_set_subtitle (self->window_title, subtitle);
  gtk_window_set_title (GTK_WINDOW (self), basename);
  gtk_stack_set_visible_child_name (self->stack, "timeline");
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));

  {
    GtkRecentData recent = {
      .mime_type = (char *) "application/octet-stream",
      .app_name = (char *) "strata",
      .app_exec = (char *) "strata %u",
    };

    gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &recent);
  }

  damage = strata_trace_get_damage (trace);
  if (damage != NULL)
    {
      /* Translators: shown when the end of a trace file is damaged */
      g_autofree char *msg = g_strdup_printf (_("Shown up to the damage: %s"), damage->message);
      AdwToast *toast = adw_toast_new (msg);

      adw_toast_set_timeout (toast, 0);
      adw_toast_overlay_add_toast (self->toast_overlay, toast);
    }
  update_actions (self);
}

static void
load_done (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(StrataWindow) self = data;
  GTask *task = G_TASK (result);
  LoadProgress *p = g_task_get_task_data (task);
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  GFile *file = g_object_get_data (G_OBJECT (task), "file");
  g_autofree char *notes = NULL;

  trace = g_task_propagate_pointer (task, &error);
  if (load_cancelled (p) || self->loading != p)
    return;
  self->loading = NULL;
  gtk_revealer_set_reveal_child (self->live_bar, FALSE);

  g_mutex_lock (&p->lock);
  if (p->notes != NULL)
    notes = g_string_free (g_steal_pointer (&p->notes), FALSE);
  g_mutex_unlock (&p->lock);
  if (notes != NULL)
    toast_notes (self, notes);

  if (trace == NULL)
    {
      AdwToast *toast = adw_toast_new (error->message);

      adw_toast_set_timeout (toast, 0);
      adw_toast_overlay_add_toast (self->toast_overlay, toast);
      strata_timeline_view_set_trace (self->timeline, self->trace);
      gtk_stack_set_visible_child_name (self->stack, self->trace != NULL ? "timeline" : "empty");
      update_actions (self);
      return;
    }

  /* The trace the timeline showed as it grew, whole: what the user
   * selected and searched in it stays. */
  strata_timeline_view_finish_live (self->timeline, trace);
  show_trace (self, trace, file);

  /* The trace the pass built, shown while it grew, goes now that its
   * index is shown (the progress held it for the live view), and its
   * pages go back to the system: the pass's arenas held 150-180 MB free
   * after the dense 20M trace's load, resident as long as the window
   * lived. The CLI's pass trims as its tree finishes; the app's tree
   * lives on in the view until here. */
  g_mutex_lock (&p->lock);
  g_clear_object (&p->trace);
  g_clear_pointer (&p->live_channels, strata_live_channels_free);
  g_mutex_unlock (&p->lock);
  malloc_trim (0);
}

/**
 * strata_window_open:
 * @file: a trace
 *
 * Shows @file from its index if a sound one exists (at once, before this
 * returns); otherwise reads @file in a worker thread, the window showing
 * the progress and then the timeline, or a toast saying why the file
 * cannot be read, and writes the index for the next time.
 */
void
strata_window_open (StrataWindow *self,
                    GFile        *file)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *basename = NULL;
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GString) notes = g_string_new (NULL);
  g_autoptr(StrataLoader) loader = NULL;
  StrataZoomParams params;
  LoadProgress *p;

  g_return_if_fail (STRATA_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  if (self->loading != NULL)
    cancel_load (self->loading);
  self->loading = NULL;

  /* The identity reads a few sampled blocks and the index is mapped, its
   * blocks checked when first touched: quick enough for the main loop.
   * A file that cannot even be read is left to the load to report, with
   * no index. */
  loader = strata_loader_new (path != NULL ? path : "");
  strata_zoom_params_init (&params);
  strata_loader_set_zoom_params (loader, &params);
  /* A recording still being written is followed until its recorder
   * finishes it; any other file is read as it is. */
  strata_loader_set_follow (loader, TRUE);
  if (path != NULL)
    {
      g_autoptr(StrataTrace) trace = NULL;
      g_autoptr(GError) error = NULL;
      gulong id = g_signal_connect (loader, "note", G_CALLBACK (load_note_main), notes);

      trace = strata_loader_find_index (loader, &error);
      g_signal_handler_disconnect (loader, id);
      if (notes->len > 0)
        toast_notes (self, notes->str);
      if (trace != NULL)
        {
          gtk_revealer_set_reveal_child (self->live_bar, FALSE);
          show_trace (self, trace, file);
          return;
        }
      if (error != NULL)
        strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
    }
  else
    strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);

  p = g_atomic_rc_box_new0 (LoadProgress);
  g_mutex_init (&p->lock);
  g_weak_ref_init (&p->window, self);
  p->began_usec = g_get_monotonic_time ();
  p->main_cpu_usec = thread_cpu_usec ();
  p->loader = g_steal_pointer (&loader);
  p->cancellable = g_cancellable_new ();
  p->live_channels = strata_live_channels_new ();
  self->loading = p;

  basename = g_file_get_basename (file);
  adw_status_page_set_description (self->loading_page, basename);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_label_set_text (self->progress_label, "");
  gtk_stack_set_visible_child_name (self->stack, "loading");
  update_actions (self);

  task = g_task_new (NULL, NULL, load_done, g_object_ref (self));
  g_task_set_source_tag (task, strata_window_open);
  g_task_set_task_data (task, p, load_progress_free);
  g_object_set_data_full (G_OBJECT (task), "file", g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, load_thread);
}

gboolean
strata_window_is_empty (StrataWindow *self)
{
  g_return_val_if_fail (STRATA_IS_WINDOW (self), FALSE);
  return self->trace == NULL && self->loading == NULL;
}

StrataTimelineView *
strata_window_get_timeline (StrataWindow *self)
{
  g_return_val_if_fail (STRATA_IS_WINDOW (self), NULL);
  return self->timeline;
}

/* The flame graph, critical path and latency pane (StrataAnalysisPane). */
GtkWidget *
strata_window_get_analysis_pane (StrataWindow *self)
{
  g_return_val_if_fail (STRATA_IS_WINDOW (self), NULL);
  return GTK_WIDGET (self->analysis_pane);
}

GtkWidget *
strata_window_get_panel (StrataWindow *self)
{
  g_return_val_if_fail (STRATA_IS_WINDOW (self), NULL);
  return self->panel;
}

/* Recent files ------------------------------------------------------------ */

static int
by_last_use (gconstpointer a,
             gconstpointer b)
{
  GDateTime *ta = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  GDateTime *tb = gtk_recent_info_get_modified ((GtkRecentInfo *) b);

  return g_date_time_compare (tb, ta);
}

static void
update_recent (StrataWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  guint n = 0;

  g_menu_remove_all (self->recent_menu);
  items = g_list_sort (items, by_last_use);
  for (GList *l = items; l != NULL && n < 10; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      g_autoptr(GMenuItem) item = NULL;

      if (!gtk_recent_info_has_application (info, "strata") ||
          !gtk_recent_info_exists (info))
        continue;
      item = g_menu_item_new (gtk_recent_info_get_display_name (info), NULL);
      g_menu_item_set_action_and_target (item, "win.open-uri", "s", gtk_recent_info_get_uri (info));
      g_menu_append_item (self->recent_menu, item);
      n++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);

  if (n == 0)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (_("No Recent Traces"), "win.none");
      g_menu_append_item (self->recent_menu, item);
    }
}

/* The menu beside Open: the traces opened last, the newest first. */
GMenuModel *
strata_window_get_recent_menu (StrataWindow *self)
{
  g_return_val_if_fail (STRATA_IS_WINDOW (self), NULL);
  return G_MENU_MODEL (self->recent_menu);
}

/* The panel --------------------------------------------------------------- */

static void
clear_grid (GtkGrid *grid)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (grid))) != NULL)
    gtk_grid_remove (grid, child);
}

static void
member_row_activated (GtkListBox    *list,
                      GtkListBoxRow *row,
                      StrataWindow  *self)
{
  int i = gtk_list_box_row_get_index (row);
  const StrataMemberGroup *g;
  gint64 margin;

  if (self->member_groups == NULL || i < 0 || (guint) i >= self->member_groups->len)
    return;
  g = &g_array_index (self->member_groups, StrataMemberGroup, i);
  margin = (g->last_end - g->first_start) / 10 + 1;
  strata_session_navigate_to (self->session, g->first_start - margin, g->last_end + margin);
}

static void
fill_panel (StrataWindow *self)
{
  const StrataSelection *sel = strata_session_get_selection (self->session);
  StrataTrace *trace = strata_session_get_trace (self->session);
  GtkWidget *child;

  g_clear_pointer (&self->info, strata_item_info_free);
  g_clear_pointer (&self->member_groups, g_array_unref);
  clear_grid (self->panel_grid);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->members_list))) != NULL)
    gtk_list_box_remove (self->members_list, child);
  gtk_widget_set_visible (self->members_heading, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->members_list), FALSE);

  if (trace != NULL)
    switch (sel->kind)
      {
      case STRATA_SELECTION_ITEM:
        self->info = strata_item_info_new_for_item (trace, &sel->item);
        break;
      case STRATA_SELECTION_ROW:
        self->info = strata_item_info_new_for_row (trace, sel->channel);
        break;
      case STRATA_SELECTION_RANGE:
        {
          guint n_rows;
          const guint32 *rows = strata_timeline_view_get_rows (self->timeline, &n_rows);

          self->info = strata_item_info_new_for_range (trace, rows, n_rows, sel->from, sel->to);
        }
        break;
      case STRATA_SELECTION_NONE:
      default:
        break;
      }

  gtk_widget_set_visible (self->panel, self->info != NULL);
  update_actions (self);
  if (self->info == NULL)
    return;

  gtk_label_set_text (self->panel_title, self->info->title);
  for (guint i = 0; i < self->info->fields->len; i++)
    {
      const StrataInfoField *f = g_ptr_array_index (self->info->fields, i);
      GtkWidget *key = gtk_label_new (f->key);
      GtkWidget *value = gtk_label_new (f->value);

      gtk_label_set_xalign (GTK_LABEL (key), 1);
      gtk_label_set_yalign (GTK_LABEL (key), 0);
      gtk_label_set_wrap (GTK_LABEL (key), TRUE);
      gtk_label_set_max_width_chars (GTK_LABEL (key), 18);
      gtk_widget_add_css_class (key, "dim-label");
      gtk_label_set_xalign (GTK_LABEL (value), 0);
      gtk_label_set_wrap (GTK_LABEL (value), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (value), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_max_width_chars (GTK_LABEL (value), 30);
      gtk_label_set_selectable (GTK_LABEL (value), TRUE);
      gtk_widget_set_hexpand (value, TRUE);
      gtk_widget_add_css_class (value, "numeric");
      gtk_grid_attach (self->panel_grid, key, 0, i, 1, 1);
      gtk_grid_attach (self->panel_grid, value, 1, i, 1, 1);
    }

  if (sel->kind == STRATA_SELECTION_ITEM && (sel->item.flags & STRATA_ZOOM_ITEM_AGGREGATE))
    {
      self->member_groups = strata_item_info_group_members (trace, self->info->members);
      for (guint i = 0; i < MIN (self->member_groups->len, 50); i++)
        {
          const StrataMemberGroup *g = &g_array_index (self->member_groups, StrataMemberGroup, i);
          g_autofree char *d = strata_format_duration (g->duration);
          g_autofree char *sub = g_strdup_printf (_("%u × · %s"), g->count, d);
          GtkWidget *row = adw_action_row_new ();

          adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), g->name);
          adw_action_row_set_subtitle (ADW_ACTION_ROW (row), sub);
          gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
          gtk_widget_set_tooltip_text (row, _("Zoom to these members"));
          adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("zoom-in-symbolic"));
          gtk_list_box_append (self->members_list, row);
        }
      gtk_widget_set_visible (self->members_heading, self->member_groups->len > 0);
      gtk_widget_set_visible (GTK_WIDGET (self->members_list), self->member_groups->len > 0);
    }
}

/* What Copy puts on the clipboard, and what the tests read. */
char *
strata_window_get_panel_text (StrataWindow *self)
{
  g_return_val_if_fail (STRATA_IS_WINDOW (self), NULL);
  return self->info != NULL ? strata_item_info_to_text (self->info) : NULL;
}

/* The event list ------------------------------------------------------------ */

StrataEventList *
strata_window_get_event_list (StrataWindow *self)
{
  g_return_val_if_fail (STRATA_IS_WINDOW (self), NULL);
  return self->event_list;
}

/* The list of a growing trace holds what was complete when it was made:
 * at most this often it is made again, and less often when making it
 * takes long (a recount reads the whole tree so far). */
#define LIVE_EVENTS_EVERY_USEC G_USEC_PER_SEC

static void
update_live_events (StrataWindow *self)
{
  StrataTrace *trace = strata_timeline_view_get_trace (self->timeline);
  gint64 now = g_get_monotonic_time ();

  if (trace == NULL || !strata_timeline_view_is_live (self->timeline) ||
      !gtk_widget_get_visible (GTK_WIDGET (self->event_list)) ||
      (self->live_events_of == (gconstpointer) trace && now < self->live_events_next_usec))
    return;
  strata_event_list_set_live (self->event_list, trace, strata_trace_get_end (trace));
  self->live_events_of = trace;
  self->live_events_next_usec = now + MAX (LIVE_EVENTS_EVERY_USEC, 10 * (g_get_monotonic_time () - now));
}

/* The event list and the analyses share the pane under the timeline. */
static void
analysis_toggled (GtkToggleButton *button,
                  StrataWindow    *self)
{
  gboolean on = gtk_toggle_button_get_active (button);

  gtk_widget_set_visible (GTK_WIDGET (self->analysis_pane), on);
  gtk_widget_set_visible (self->bottom_box, on || gtk_toggle_button_get_active (self->events_button));
  if (on)
    gtk_paned_set_position (self->events_paned, MAX (gtk_widget_get_height (GTK_WIDGET (self->events_paned)) - 320, 200));
}

static void
events_toggled (GtkToggleButton *button,
                StrataWindow    *self)
{
  gboolean on = gtk_toggle_button_get_active (button);

  gtk_widget_set_visible (GTK_WIDGET (self->event_list), on);
  gtk_widget_set_visible (self->bottom_box, on || gtk_toggle_button_get_active (self->analysis_button));
  if (on && self->events_behind)
    {
      self->events_behind = FALSE;
      strata_event_list_set_trace (self->event_list, self->trace);
    }
  if (on)
    {
      gtk_paned_set_position (self->events_paned, MAX (gtk_widget_get_height (GTK_WIDGET (self->events_paned)) - 260, 200));
      /* Shown again: it catches up with the range it did not follow (a
       * growing trace's with its newer part). */
      self->live_events_next_usec = 0;
      update_live_events (self);
      strata_event_list_follow (self->event_list, strata_session_get_from (self->session));
    }
}

void
strata_window_show_events (StrataWindow *self,
                           gboolean      show)
{
  g_return_if_fail (STRATA_IS_WINDOW (self));
  gtk_toggle_button_set_active (self->events_button, show);
}

/* Search ------------------------------------------------------------------ */

/* strata_window_search: @text: (nullable): what to search, or %NULL to
 * close the search bar */

static void
show_search_status (StrataWindow *self,
                    guint         n)
{
  g_autofree char *text = NULL;
  const char *query = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  if (query[0] == '\0')
    text = g_strdup ("");
  else if (n == 0)
    text = g_strdup (_("No match"));
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u row", "%u rows", n), n);
  gtk_label_set_text (self->search_status, text);
}

/* The matches changed without a new search: a growing trace's new rows. */
static void
session_search_changed (StrataWindow *self)
{
  guint n = 0;

  strata_session_get_matches (self->session, &n);
  show_search_status (self, n);
}

static void
run_search (StrataWindow *self)
{
  guint n = strata_timeline_view_set_search (self->timeline, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));

  show_search_status (self, n);
}

/* The entry reports its text a moment after it changed. A search made
 * already for that text (strata_window_search() makes it at once) is not
 * made again: that would select the first match anew and scroll to it,
 * after the user or a growing trace had moved on. */
static void
search_changed (GtkSearchEntry *entry,
                StrataWindow   *self)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry))));
  const char *searched = strata_session_get_search (self->session);
  guint n = 0;

  if (searched != NULL && g_str_equal (text, searched))
    {
      strata_session_get_matches (self->session, &n);
      show_search_status (self, n);
      return;
    }
  run_search (self);
}

void
strata_window_search (StrataWindow *self,
                      const char   *text)
{
  g_return_if_fail (STRATA_IS_WINDOW (self));

  gtk_search_bar_set_search_mode (self->search_bar, text != NULL);
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text != NULL ? text : "");
  /* The entry reports changes after a delay; the caller wants them now. */
  run_search (self);
}

static void
search_activate (GtkSearchEntry *entry,
                 StrataWindow   *self)
{
  strata_timeline_view_search_step (self->timeline, 1);
}

static void
search_stop (GtkSearchEntry *entry,
             StrataWindow   *self)
{
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

/* Actions ----------------------------------------------------------------- */

static void
update_actions (StrataWindow *self)
{
  gboolean shown = strata_timeline_view_get_trace (self->timeline) != NULL;
  gboolean have = shown && self->loading == NULL;
  const StrataSelection *sel = strata_session_get_selection (self->session);
  gboolean can_back = strata_session_get_can_go_back (self->session);
  gboolean can_forward = strata_session_get_can_go_forward (self->session);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.zoom-in", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.zoom-out", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.zoom-fit", have);
  /* Search answers from the part of a growing trace already shown. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search", shown);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search-next", shown);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search-previous", shown);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.show-all-rows", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.back", have && can_back);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.forward", have && can_forward);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.copy-details", self->info != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.zoom-selection",
                                 have && (sel->kind == STRATA_SELECTION_ITEM ||
                                          sel->kind == STRATA_SELECTION_RANGE));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-open", self->loading != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.record", self->recording == NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.none", FALSE);
}

static void
open_response (GtkNativeDialog *dialog,
               int              response,
               StrataWindow    *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file != NULL)
        strata_window_open (self, file);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
action_open (GtkWidget  *widget,
             const char *name,
             GVariant   *param)
{
  StrataWindow *self = STRATA_WINDOW (widget);
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) traces = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  dialog = gtk_file_chooser_native_new (_("Open a Trace"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_filter_set_name (traces, _("Kernel traces"));
  gtk_file_filter_add_mime_type (traces, "application/x-trace-cmd");
  gtk_file_filter_add_mime_type (traces, "application/x-perf-data");
  gtk_file_filter_add_mime_type (traces, "application/x-strata-recording");
  gtk_file_filter_add_mime_type (traces, "text/x-ftrace");
  gtk_file_filter_add_suffix (traces, "dat");
  gtk_file_filter_add_suffix (traces, "data");
  gtk_file_filter_add_suffix (traces, "strata");
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), traces);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), all);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
action_open_uri (GtkWidget  *widget,
                 const char *name,
                 GVariant   *param)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  strata_window_open (STRATA_WINDOW (widget), file);
}

static void
action_cancel_open (GtkWidget  *widget,
                    const char *name,
                    GVariant   *param)
{
  StrataWindow *self = STRATA_WINDOW (widget);

  /* Stopping a recording: the recorder finishes the file, and the load
   * following it ends at the footer with the whole recording. */
  if (self->recording != NULL)
    {
      strata_recording_stop (self->recording);
      return;
    }

  /* The worker stops after its current batch and drops what it built;
   * the window goes back to what it showed before. */
  if (self->loading != NULL)
    cancel_load (self->loading);
  self->loading = NULL;
  gtk_revealer_set_reveal_child (self->live_bar, FALSE);
  strata_timeline_view_set_trace (self->timeline, self->trace);
  gtk_stack_set_visible_child_name (self->stack, self->trace != NULL ? "timeline" : "empty");
  update_actions (self);
}

/* Recording -------------------------------------------------------------- */

static void
recording_refused (StrataWindow *self,
                   const char   *message)
{
  AdwToast *toast = adw_toast_new (message);

  g_free (self->record_message);
  self->record_message = g_strdup (message);
  adw_toast_set_timeout (toast, 0);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
recording_started (StrataRecording *recording,
                   StrataWindow    *self)
{
  g_autoptr(GFile) file = g_file_new_for_path (strata_recording_get_output (recording));

  /* The file exists with its header: followed as it is written. */
  strata_window_open (self, file);
}

static void
recording_failed (StrataRecording *recording,
                  const char      *message,
                  StrataWindow    *self)
{
  recording_refused (self, message);
  if (self->recording == recording)
    g_clear_object (&self->recording);
  update_actions (self);
}

static void
recording_finished (StrataRecording *recording,
                    StrataWindow    *self)
{
  if (self->recording == recording)
    g_clear_object (&self->recording);
  update_actions (self);
}

/**
 * strata_window_start_recording:
 * @recording: not started yet
 *
 * Starts @recording and follows its file in this window once the
 * recorder runs; says in a toast why when it does not.
 *
 * Returns: whether a recorder was started (it may still fail: "failed")
 */
gboolean
strata_window_start_recording (StrataWindow    *self,
                               StrataRecording *recording)
{
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (STRATA_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (STRATA_IS_RECORDING (recording), FALSE);

  if (self->recording != NULL)
    return FALSE;
  g_clear_pointer (&self->record_message, g_free);
  g_signal_connect_object (recording, "started", G_CALLBACK (recording_started), self, 0);
  g_signal_connect_object (recording, "failed", G_CALLBACK (recording_failed), self, 0);
  g_signal_connect_object (recording, "finished", G_CALLBACK (recording_finished), self, 0);
  if (!strata_recording_start (recording, &error))
    {
      recording_refused (self, error->message);
      return FALSE;
    }
  self->recording = g_object_ref (recording);
  update_actions (self);
  return TRUE;
}

const char *
strata_window_get_record_message (StrataWindow *self)
{
  g_return_val_if_fail (STRATA_IS_WINDOW (self), NULL);
  return self->record_message;
}

StrataRecording *
strata_window_get_recording (StrataWindow *self)
{
  g_return_val_if_fail (STRATA_IS_WINDOW (self), NULL);
  return self->recording;
}

static void
record_chosen (const StrataRecordOptions *options,
               gpointer                   data)
{
  StrataWindow *self = data;
  g_autoptr(StrataRecording) recording = strata_recording_new (options);

  strata_window_start_recording (self, recording);
}

static void
action_record (GtkWidget  *widget,
               const char *name,
               GVariant   *param)
{
  StrataWindow *self = STRATA_WINDOW (widget);

  gtk_window_present (strata_record_dialog_new (GTK_WINDOW (self), record_chosen, self));
}

static void
action_zoom (GtkWidget  *widget,
             const char *name,
             GVariant   *param)
{
  StrataWindow *self = STRATA_WINDOW (widget);

  if (g_str_equal (name, "win.zoom-in"))
    strata_timeline_view_zoom (self->timeline, 1 / 1.5, -1);
  else if (g_str_equal (name, "win.zoom-out"))
    strata_timeline_view_zoom (self->timeline, 1.5, -1);
  else
    strata_session_fit (self->session);
}

static void
action_history (GtkWidget  *widget,
                const char *name,
                GVariant   *param)
{
  StrataWindow *self = STRATA_WINDOW (widget);

  if (g_str_equal (name, "win.back"))
    strata_session_go_back (self->session);
  else
    strata_session_go_forward (self->session);
}

static void
action_search (GtkWidget  *widget,
               const char *name,
               GVariant   *param)
{
  StrataWindow *self = STRATA_WINDOW (widget);

  if (g_str_equal (name, "win.search"))
    {
      gboolean on = !gtk_search_bar_get_search_mode (self->search_bar);

      gtk_search_bar_set_search_mode (self->search_bar, on);
      if (on)
        gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
    }
  else
    strata_timeline_view_search_step (self->timeline, g_str_equal (name, "win.search-next") ? 1 : -1);
}

static void
action_toggle_analysis (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  StrataWindow *self = STRATA_WINDOW (widget);

  gtk_toggle_button_set_active (self->analysis_button, !gtk_toggle_button_get_active (self->analysis_button));
}

static void
action_copy_details (GtkWidget  *widget,
                     const char *name,
                     GVariant   *param)
{
  StrataWindow *self = STRATA_WINDOW (widget);
  g_autofree char *text = strata_window_get_panel_text (self);

  if (text != NULL)
    {
      gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
      adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (_("Details copied")));
    }
}

static void
action_zoom_selection (GtkWidget  *widget,
                       const char *name,
                       GVariant   *param)
{
  StrataWindow *self = STRATA_WINDOW (widget);
  const StrataSelection *sel = strata_session_get_selection (self->session);
  gint64 from = sel->from, to = sel->to, margin;

  if (sel->kind == STRATA_SELECTION_ITEM)
    {
      from = sel->item.start;
      to = sel->item.end;
    }
  else if (sel->kind != STRATA_SELECTION_RANGE)
    return;
  margin = (to - from) / 10 + 1;
  strata_session_navigate_to (self->session, from - margin, to + margin);
}

static void
action_show_all_rows (GtkWidget  *widget,
                      const char *name,
                      GVariant   *param)
{
  strata_timeline_view_show_all_rows (STRATA_WINDOW (widget)->timeline);
}

static void
action_toggle_events (GtkWidget  *widget,
                      const char *name,
                      GVariant   *param)
{
  StrataWindow *self = STRATA_WINDOW (widget);

  gtk_toggle_button_set_active (self->events_button, !gtk_toggle_button_get_active (self->events_button));
}

/* Drag and drop ----------------------------------------------------------- */

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         StrataWindow  *self)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  if (files == NULL)
    return FALSE;
  strata_window_open (self, files->data);
  g_slist_free (files);
  return TRUE;
}

/* GObject ----------------------------------------------------------------- */

static void
dark_changed (AdwStyleManager *manager,
              GParamSpec      *pspec,
              StrataWindow    *self)
{
  strata_timeline_view_set_dark (self->timeline, adw_style_manager_get_dark (manager));
}

static void
strata_window_dispose (GObject *object)
{
  StrataWindow *self = STRATA_WINDOW (object);

  if (self->loading != NULL)
    cancel_load (self->loading);
  self->loading = NULL;
  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  g_signal_handlers_disconnect_by_data (gtk_recent_manager_get_default (), self);
  if (self->timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->timeline, self);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_pointer (&self->info, strata_item_info_free);
  g_clear_pointer (&self->member_groups, g_array_unref);
  /* A recording this window started stops with it, its file finished. */
  if (self->recording != NULL)
    strata_recording_stop (self->recording);
  g_clear_object (&self->recording);
  g_clear_pointer (&self->record_message, g_free);
  g_clear_object (&self->asked_about);
  g_clear_object (&self->trace);
  g_clear_object (&self->file);
  g_clear_object (&self->recent_menu);
  g_clear_object (&self->settings);

  gtk_widget_dispose_template (GTK_WIDGET (self), STRATA_TYPE_WINDOW);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (strata_window_parent_class)->dispose (object);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  StrataWindow *self = STRATA_WINDOW (widget);

  strata_timeline_export_ask (GTK_WINDOW (self), strata_window_get_timeline (self), action_name);
}

/* Closing while recording --------------------------------------------- */

static void
release_application (StrataRecording *recording,
                     GApplication    *app)
{
  g_signal_handlers_disconnect_by_data (recording, app);
  g_application_release (app);
  g_object_unref (app);
}

static void
recording_failed_release (StrataRecording *recording,
                          const char      *message,
                          GApplication    *app)
{
  release_application (recording, app);
}

static void
close_answered (StrataRecordCloseAnswer  answer,
                gpointer                 data)
{
  StrataWindow *self = data;
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autoptr(StrataRecording) recording = g_steal_pointer (&self->asked_about);

  self->close_question = NULL;
  if (answer == STRATA_RECORD_CLOSE_CANCEL)
    return;

  /* The application lives on, without a window, until the recorder has
   * finished the file (or the file is gone): quitting with the last
   * window would leave a discarded file behind. */
  if (app != NULL && strata_recording_is_running (recording))
    {
      /* "failed" instead when it was stopped before it started (pkexec
       * still asking). */
      g_application_hold (G_APPLICATION (app));
      g_object_ref (app);
      g_signal_connect (recording, "finished", G_CALLBACK (release_application), app);
      g_signal_connect (recording, "failed", G_CALLBACK (recording_failed_release), app);
    }
  /* Either ends the recording even if it ended while the question was
   * shown (a duration): discarding it then removes the finished file. */
  if (answer == STRATA_RECORD_CLOSE_DISCARD)
    strata_recording_discard (recording);
  else
    strata_recording_stop (recording);
  self->close_answered = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

static gboolean
strata_window_close_request (GtkWindow *window)
{
  StrataWindow *self = STRATA_WINDOW (window);

  if (self->recording == NULL || !strata_recording_is_running (self->recording) || self->close_answered)
    return GTK_WINDOW_CLASS (strata_window_parent_class)->close_request (window);
  if (self->close_question == NULL)
    {
      self->asked_about = g_object_ref (self->recording);
      self->close_question = strata_record_close_ask (window, strata_recording_get_output (self->recording),
                                                      close_answered, self);
    }
  return TRUE;
}

static void
strata_window_class_init (StrataWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = strata_window_dispose;
  window_class->close_request = strata_window_close_request;

  g_type_ensure (STRATA_TYPE_TIMELINE_VIEW);
  g_type_ensure (STRATA_TYPE_EVENT_LIST);
  g_type_ensure (STRATA_TYPE_ANALYSIS_PANE);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/strata/Strata/strata-window.ui");
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, open_button);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, search_status);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, search_button);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, loading_page);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, follow_button);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, lost_label);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, live_bar);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, live_label);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, live_progress);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, events_paned);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, event_list);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, events_button);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, bottom_box);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, analysis_pane);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, analysis_button);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, timeline);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, panel);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, panel_title);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, panel_grid);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, zoom_to_button);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, members_heading);
  gtk_widget_class_bind_template_child (widget_class, StrataWindow, members_list);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, action_open);
  gtk_widget_class_install_action (widget_class, "win.open-uri", "s", action_open_uri);
  gtk_widget_class_install_action (widget_class, "win.cancel-open", NULL, action_cancel_open);
  gtk_widget_class_install_action (widget_class, "win.record", NULL, action_record);
  gtk_widget_class_install_action (widget_class, "win.zoom-in", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "win.zoom-out", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "win.zoom-fit", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "win.back", NULL, action_history);
  gtk_widget_class_install_action (widget_class, "win.forward", NULL, action_history);
  gtk_widget_class_install_action (widget_class, "win.search", NULL, action_search);
  gtk_widget_class_install_action (widget_class, "win.search-next", NULL, action_search);
  gtk_widget_class_install_action (widget_class, "win.search-previous", NULL, action_search);
  gtk_widget_class_install_action (widget_class, "win.copy-details", NULL, action_copy_details);
  gtk_widget_class_install_action (widget_class, "win.export-json", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-csv", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.save-image", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.toggle-analysis", NULL, action_toggle_analysis);
  gtk_widget_class_install_action (widget_class, "win.zoom-selection", NULL, action_zoom_selection);
  gtk_widget_class_install_action (widget_class, "win.show-all-rows", NULL, action_show_all_rows);
  gtk_widget_class_install_action (widget_class, "win.none", NULL, NULL);
  gtk_widget_class_install_action (widget_class, "win.toggle-events", NULL, action_toggle_events);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "win.record", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "win.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "win.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "win.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "win.zoom-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, GDK_ALT_MASK, "win.forward", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.copy-details", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.toggle-analysis", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK, "win.search-next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "win.toggle-events", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.search-previous", NULL);
}

static void
session_history_changed (StrataWindow *self)
{
  update_actions (self);
}

static void
strata_window_init (StrataWindow *self)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  /* GtkApplication adds its resource icons to the theme; a window made
   * without one (the tests) needs them too. */
  gtk_icon_theme_add_resource_path (gtk_icon_theme_get_for_display (gtk_widget_get_display (GTK_WIDGET (self))),
                                    "/org/strata/Strata/icons");

  self->recent_menu = g_menu_new ();
  adw_split_button_set_menu_model (self->open_button, G_MENU_MODEL (self->recent_menu));
  update_recent (self);
  g_signal_connect_swapped (gtk_recent_manager_get_default (), "changed", G_CALLBACK (update_recent), self);

  g_signal_connect (style, "notify::dark", G_CALLBACK (dark_changed), self);
  strata_timeline_view_set_dark (self->timeline, adw_style_manager_get_dark (style));

  /* One session, handed to each view before it is given a trace. */
  self->session = strata_session_new ();
  strata_timeline_view_set_session (self->timeline, self->session);
  strata_event_list_set_session (self->event_list, self->session);
  g_signal_connect_swapped (self->session, "selection-changed", G_CALLBACK (fill_panel), self);
  /* A new trace in the timeline: the panel shows nothing of the old. */
  g_signal_connect_swapped (self->session, "notify::trace", G_CALLBACK (fill_panel), self);
  g_signal_connect_swapped (self->session, "notify::search", G_CALLBACK (session_search_changed), self);
  g_signal_connect_swapped (self->timeline, "view-changed", G_CALLBACK (update_live_events), self);
  g_signal_connect_swapped (self->session, "notify::can-go-back", G_CALLBACK (session_history_changed), self);
  g_signal_connect_swapped (self->session, "notify::can-go-forward", G_CALLBACK (session_history_changed), self);
  g_signal_connect (self->members_list, "row-activated", G_CALLBACK (member_row_activated), self);
  g_object_bind_property (self->session, "following", self->follow_button, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_signal_connect (self->events_button, "toggled", G_CALLBACK (events_toggled), self);
  g_signal_connect (self->analysis_button, "toggled", G_CALLBACK (analysis_toggled), self);
  strata_analysis_pane_set_timeline (self->analysis_pane, self->timeline);

  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));
  g_signal_connect (self->search_entry, "search-changed", G_CALLBACK (search_changed), self);
  g_signal_connect (self->search_entry, "activate", G_CALLBACK (search_activate), self);
  g_signal_connect (self->search_entry, "stop-search", G_CALLBACK (search_stop), self);
  g_object_bind_property (self->search_bar, "search-mode-enabled", self->search_button, "active",
                          G_BINDING_SYNC_CREATE);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  gtk_paned_set_position (self->paned, 1000);
  update_actions (self);
}

StrataWindow *
strata_window_new (GtkApplication *application)
{
  return g_object_new (STRATA_TYPE_WINDOW, "application", application, NULL);
}
