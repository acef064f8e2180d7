/* test-ui-live.c
 *
 * The window following a recording while strata-cli record writes it, as
 * `strata FILE` does on a file still being written: the recorder runs,
 * the window opens its file, and processes started during the recording
 * get their rows while it goes on; the view's right edge keeps to the
 * present until the user pans back, and End brings it back. Once the
 * recorder stops, the window holds the finished recording, and the index
 * the followed pass wrote gives the same `strata-cli stats` as a fresh
 * pass over the finished file. Each new process's latency, from its
 * first moment in the trace to the first frame drawn with its row, is
 * measured and said (not asserted: the machine is shared).
 *
 * While it grows, everything that answers on a finished trace answers on
 * the part recorded: a click selects an activity (the panel shows it and
 * the event list its row), a dragged range gives its statistics, and a
 * search finds threads, new ones as they come without a jump. Once the
 * recording is whole the selection stays, and the range's statistics
 * from the finished trace are those the live view gave.
 *
 * Needs root (or CAP_BPF and CAP_PERFMON): skips where recording is not
 * permitted, and takes the machine-wide recording lock.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <signal.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include "strata-event-list.h"
#include "strata-event-model.h"
#include "strata-item-info.h"
#include "strata-session.h"
#include "strata-test-record.h"
#include "strata-test-support.h"
#include "strata-test-ui.h"

#define N_CHILDREN 12

typedef struct
{
  GSubprocess *proc;
  gint32       pid;
  gint64       shown_ns;   /* CLOCK_MONOTONIC when a frame first had its row; 0 before */
  gint64       begin_ns;   /* its channel's begin: its first moment in the trace */
} Child;

typedef struct
{
  StrataTimelineView *timeline;
  Child               children[N_CHILDREN];
  guint               n_children;
} Live;

/* The channel of the thread @tid, if the view has a row for it. */
static gboolean
row_of (StrataTimelineView *timeline,
        gint32              tid,
        gint64             *begin)
{
  const StrataChannel *channels;
  guint n;

  channels = strata_timeline_view_get_channels (timeline, &n);
  for (guint i = 0; channels != NULL && i < n; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD && channels[i].id == tid &&
        strata_timeline_view_y_for_row (timeline, i) >= 0)
      {
        *begin = channels[i].begin;
        return TRUE;
      }
  return FALSE;
}

/* After each frame: which children's rows it drew. */
static void
after_paint (GdkFrameClock *clock,
             Live          *live)
{
  gint64 now = g_get_monotonic_time () * 1000;

  for (guint i = 0; i < live->n_children; i++)
    {
      Child *c = &live->children[i];

      if (c->shown_ns == 0 && row_of (live->timeline, c->pid, &c->begin_ns))
        c->shown_ns = now;
    }
}

static void
run_for (gint64 usec)
{
  gint64 until = g_get_monotonic_time () + usec;

  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static void
test_follow_growing_recording (void)
{
  g_autofree char *why = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *with_index = NULL;
  g_autofree char *fresh = NULL;
  g_autofree char *png = NULL;
  g_autoptr(GSubprocess) recorder = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  StrataWindow *window;
  StrataTimelineView *timeline;
  Live live = { 0 };
  gint64 from0, to0, from1, to1, start, end;
  gint64 latencies[N_CHILDREN];
  gulong paint_id;
  int lock;

  if (!strata_test_record_permitted (&why))
    {
      g_test_skip (why);
      return;
    }

  dir = strata_test_tmpdir ();
  path = g_build_filename (dir, "live.strata", NULL);

  lock = strata_test_record_lock ();
  /* bench/run-live-latency.sh sets another drain period for its baseline. */
  if (g_getenv ("STRATA_TEST_DRAIN_PERIOD") != NULL)
    {
      const char *args[] = { "--drain-period", g_getenv ("STRATA_TEST_DRAIN_PERIOD"), NULL };

      recorder = strata_test_recorder_start (path, args, &error);
    }
  else
    recorder = strata_test_recorder_start (path, NULL, &error);
  g_assert_no_error (error);

  window = strata_window_new (NULL);
  timeline = strata_window_get_timeline (window);
  live.timeline = timeline;
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  file = g_file_new_for_path (path);
  strata_window_open (window, file);

  /* The timeline shows the recording while it is written. */
  while (!strata_timeline_view_is_live (timeline))
    {
      g_assert_false (strata_window_is_empty (window));
      g_main_context_iteration (NULL, TRUE);
    }
  while (gtk_widget_get_frame_clock (GTK_WIDGET (timeline)) == NULL)
    g_main_context_iteration (NULL, TRUE);
  paint_id = g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (timeline)), "after-paint",
                               G_CALLBACK (after_paint), &live);
  run_for (300 * G_TIME_SPAN_MILLISECOND);
  g_assert_true (strata_timeline_view_get_following (timeline));
  strata_timeline_view_get_range (timeline, &from0, &to0);

  /* Processes born while the window watches. */
  for (guint i = 0; i < N_CHILDREN; i++)
    {
      Child *c = &live.children[i];

      c->proc = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "sleep", "0.2", NULL);
      g_assert_no_error (error);
      c->pid = atoi (g_subprocess_get_identifier (c->proc));
      live.n_children++;
      run_for (250 * G_TIME_SPAN_MILLISECOND);
    }
  /* Until every row is there, or long after it should be. */
  for (int wait = 0; wait < 100; wait++)
    {
      gboolean all = TRUE;

      for (guint i = 0; i < live.n_children; i++)
        all = all && live.children[i].shown_ns != 0;
      if (all)
        break;
      run_for (50 * G_TIME_SPAN_MILLISECOND);
    }
  for (guint i = 0; i < live.n_children; i++)
    {
      Child *c = &live.children[i];

      g_assert_true (g_subprocess_wait_check (c->proc, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpint (c->shown_ns, !=, 0);
      g_assert_cmpint (c->begin_ns, >, 0);
      latencies[i] = c->shown_ns - c->begin_ns;
      g_test_message ("pid %d: row drawn %.1f ms after its first moment", c->pid, latencies[i] / 1e6);
      g_clear_object (&c->proc);
    }
  qsort (latencies, N_CHILDREN, sizeof latencies[0], compare_gint64);
  g_test_message ("latency from a thread's first moment to its row on screen: median %.1f ms, "
                  "min %.1f ms, max %.1f ms (%d processes)",
                  (latencies[N_CHILDREN / 2 - 1] + latencies[N_CHILDREN / 2]) / 2e6,
                  latencies[0] / 1e6, latencies[N_CHILDREN - 1] / 1e6, N_CHILDREN);

  /* The present moved on, and the view with it: still the whole
   * recording, its right edge at the newest event. */
  g_assert_true (strata_timeline_view_is_live (timeline));
  g_assert_true (strata_timeline_view_get_following (timeline));
  strata_timeline_view_get_range (timeline, &from1, &to1);
  strata_timeline_view_get_extent (timeline, &start, &end);
  g_assert_cmpint (to1, >, to0 + 2 * G_TIME_SPAN_SECOND * 1000);
  g_assert_cmpint (to1, ==, end);

  /* The status of a recording, not a load's share and time left. */
  {
    GtkLabel *status = GTK_LABEL (gtk_widget_get_template_child (GTK_WIDGET (window), STRATA_TYPE_WINDOW,
                                                                 "live_label"));
    GtkLabel *lost = GTK_LABEL (gtk_widget_get_template_child (GTK_WIDGET (window), STRATA_TYPE_WINDOW,
                                                               "lost_label"));

    g_test_message ("status: %s · %s", gtk_label_get_text (status), gtk_label_get_text (lost));
    g_assert_true (g_str_has_prefix (gtk_label_get_text (status), "Recording · 0:00:"));
    g_assert_true (gtk_widget_get_visible (GTK_WIDGET (lost)));
  }

  texture = strata_test_ui_render (GTK_WIDGET (window));
  png = strata_test_ui_save_png (texture, "test-ui-live-following");
  g_test_message ("the window while following: %s", png);

  /* Zoomed in at the present, the span is kept as the edge slides. */
  strata_timeline_view_set_range (timeline, end - G_TIME_SPAN_SECOND * 1000, end);
  g_assert_true (strata_timeline_view_get_following (timeline));
  run_for (600 * G_TIME_SPAN_MILLISECOND);
  strata_timeline_view_get_range (timeline, &from1, &to1);
  strata_timeline_view_get_extent (timeline, &start, &end);
  g_assert_cmpint (to1, ==, end);
  g_assert_cmpint (to1 - from1, ==, G_TIME_SPAN_SECOND * 1000);
  g_assert_cmpint (to1, >, to0);

  /* Panned back, it stays where the user put it while the trace grows. */
  strata_timeline_view_pan (timeline, -400);
  g_assert_false (strata_timeline_view_get_following (timeline));
  strata_timeline_view_get_range (timeline, &from0, &to0);
  run_for (600 * G_TIME_SPAN_MILLISECOND);
  strata_timeline_view_get_range (timeline, &from1, &to1);
  strata_timeline_view_get_extent (timeline, &start, &end);
  g_assert_cmpint (from1, ==, from0);
  g_assert_cmpint (to1, ==, to0);
  g_assert_cmpint (end, >, to1);

  /* End: back to the present, the span kept, following again. */
  g_assert_true (strata_timeline_view_handle_key (timeline, GDK_KEY_End, 0));
  g_assert_true (strata_timeline_view_get_following (timeline));
  strata_timeline_view_get_range (timeline, &from1, &to1);
  strata_timeline_view_get_extent (timeline, &start, &end);
  g_assert_cmpint (to1, ==, end);
  g_assert_cmpint (to1 - from1, ==, to0 - from0);

  /* The recorder finishes the file: the window holds the finished
   * recording, read from the index the followed pass wrote. */
  g_assert_true (strata_test_recorder_stop (recorder, &summary, &error));
  g_assert_no_error (error);
  strata_test_record_unlock (lock);
  g_signal_handler_disconnect (gtk_widget_get_frame_clock (GTK_WIDGET (timeline)), paint_id);
  strata_test_ui_wait_until_shown (window);
  g_assert_false (strata_timeline_view_is_live (timeline));
  g_assert_null (strata_trace_get_damage (strata_timeline_view_get_trace (timeline)));
  g_assert_nonnull (strata_trace_get_index_path (strata_timeline_view_get_trace (timeline)));

  /* The statistics of the tree the live view built (its index) against
   * one fresh pass over the finished file. */
  {
    const char *args_index[] = { "stats", "--json", "--top", "1000", path, NULL };
    const char *args_fresh[] = { "stats", "--json", "--top", "1000", "--no-index", path, NULL };

    g_assert_cmpint (strata_test_run_cli (args_index, &with_index, NULL), ==, 0);
    g_assert_cmpint (strata_test_run_cli (args_fresh, &fresh, NULL), ==, 0);
    g_assert_cmpstr (with_index, ==, fresh);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  strata_test_ui_settle ();
}

/* The thread channels of the view named @name, in channel order. */
static GArray *
threads_named (StrataTimelineView *timeline,
               const char         *name)
{
  StrataTrace *trace = strata_timeline_view_get_trace (timeline);
  GArray *found = g_array_new (FALSE, FALSE, sizeof (guint32));
  const StrataChannel *channels;
  guint n;

  channels = strata_timeline_view_get_channels (timeline, &n);
  for (guint32 i = 0; channels != NULL && i < n; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD &&
        g_strcmp0 (strata_channel_display_name (trace, i), name) == 0)
      g_array_append_val (found, i);
  return found;
}

/* Starts @exe (sleeping @seconds) and runs the loop until the view has
 * its row. */
static void
spawn_and_see (StrataTimelineView *timeline,
               const char         *exe,
               const char         *seconds)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) proc = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, exe, seconds, NULL);
  gint32 pid, wait;
  gint64 begin;

  g_assert_no_error (error);
  pid = atoi (g_subprocess_get_identifier (proc));
  for (wait = 0; wait < 400 && !row_of (timeline, pid, &begin); wait++)
    run_for (50 * G_TIME_SPAN_MILLISECOND);
  g_assert_true (row_of (timeline, pid, &begin));
  g_assert_true (g_subprocess_wait_check (proc, NULL, &error));
  g_assert_no_error (error);
}

/* The longest whole sleep of @channel's, as the live trace has it. */
static gboolean
longest_sleep (StrataTrace    *trace,
               guint32         channel,
               StrataActivity *out)
{
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  gboolean any = FALSE;

  strata_trace_query_channel (trace, channel, G_MININT64 / 2, G_MAXINT64 / 2, found);
  for (guint i = 0; i < found->len; i++)
    {
      const StrataActivity *a = &g_array_index (found, StrataActivity, i);

      if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_SLEEPING &&
          !(a->flags & (STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE | STRATA_ACTIVITY_FLAG_CONTINUES_AFTER)) &&
          (!any || a->end - a->start > out->end - out->start))
        {
          *out = *a;
          any = TRUE;
        }
    }
  return any;
}

static void
test_inspect_growing_recording (void)
{
  g_autofree char *why = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *exe = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *item_text = NULL;
  g_autofree char *range_text = NULL;
  g_autofree char *finished_text = NULL;
  g_autofree char *png = NULL;
  g_autofree char *pid_field = NULL;
  g_autoptr(GSubprocess) recorder = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFile) sleep_file = NULL;
  g_autoptr(GFile) exe_file = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GArray) named = NULL;
  StrataWindow *window;
  StrataTimelineView *timeline;
  StrataSession *session;
  StrataEventList *list;
  GtkAdjustment *vadj;
  StrataSelection range;
  StrataActivity a = { 0 };
  const StrataSelection *sel;
  const StrataChannel *channels;
  guint32 channel, match;
  guint n_channels, n_matches, n_live_matches;
  double x, y, scrolled;
  gint64 d;
  int lock;

  if (!strata_test_record_permitted (&why))
    {
      g_test_skip (why);
      return;
    }

  /* A program of a name nothing else has: its threads are searched for. */
  dir = strata_test_tmpdir ();
  path = g_build_filename (dir, "inspect.strata", NULL);
  exe = g_build_filename (dir, "inspectee", NULL);
  sleep_file = g_file_new_for_path ("/bin/sleep");
  exe_file = g_file_new_for_path (exe);
  g_assert_true (g_file_copy (sleep_file, exe_file, G_FILE_COPY_NONE, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (exe, 0755), ==, 0);

  lock = strata_test_record_lock ();
  recorder = strata_test_recorder_start (path, NULL, &error);
  g_assert_no_error (error);

  window = strata_window_new (NULL);
  timeline = strata_window_get_timeline (window);
  session = strata_timeline_view_get_session (timeline);
  list = strata_window_get_event_list (window);
  vadj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (timeline));
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  file = g_file_new_for_path (path);
  strata_window_open (window, file);
  while (!strata_timeline_view_is_live (timeline))
    {
      g_assert_false (strata_window_is_empty (window));
      g_main_context_iteration (NULL, TRUE);
    }
  strata_window_show_events (window, TRUE);

  for (guint i = 0; i < 3; i++)
    spawn_and_see (timeline, exe, "0.3");

  /* Search: the threads of the part recorded; the first is selected. */
  strata_window_search (window, "inspectee");
  /* A row shows at the fork, under the parent's name; the name follows
   * with the exec, and the search with the next update. */
  strata_session_get_matches (session, &n_matches);
  for (int wait = 0; wait < 100 && n_matches < 3; wait++)
    {
      run_for (50 * G_TIME_SPAN_MILLISECOND);
      strata_session_get_matches (session, &n_matches);
    }
  named = threads_named (timeline, "inspectee");
  {
    const guint32 *matches = strata_session_get_matches (session, &n_matches);

    g_assert_cmpuint (n_matches, >=, 3);
    g_assert_cmpuint (n_matches, ==, named->len);
    for (guint i = 0; i < n_matches; i++)
      g_assert_cmpstr (strata_channel_display_name (strata_timeline_view_get_trace (timeline), matches[i]), ==,
                       "inspectee");
  }
  match = strata_timeline_view_get_search_match (timeline);
  g_assert_cmpuint (match, !=, STRATA_CHANNEL_NONE);
  g_assert_cmpint (strata_session_get_selection (session)->kind, ==, STRATA_SELECTION_ROW);
  strata_test_ui_settle ();
  scrolled = gtk_adjustment_get_value (vadj);

  /* New threads match as they come, and the view stays put. */
  g_clear_pointer (&named, g_array_unref);
  n_live_matches = n_matches;
  for (guint i = 0; i < 2; i++)
    spawn_and_see (timeline, exe, "0.3");
  strata_session_get_matches (session, &n_matches);
  for (int wait = 0; wait < 100 && n_matches < n_live_matches + 2; wait++)
    {
      run_for (50 * G_TIME_SPAN_MILLISECOND);
      strata_session_get_matches (session, &n_matches);
    }
  g_assert_cmpuint (n_matches, ==, n_live_matches + 2);
  g_assert_cmpuint (strata_timeline_view_get_search_match (timeline), ==, match);
  sel = strata_session_get_selection (session);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_ROW);
  g_assert_cmpuint (sel->channel, ==, match);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), ==, scrolled);
  n_live_matches = n_matches;

  /* A click on a sleep of the first one: the panel and the list's row. */
  channel = match;
  g_assert_true (strata_timeline_view_is_live (timeline));
  g_assert_true (longest_sleep (strata_timeline_view_get_trace (timeline), channel, &a));
  d = a.end - a.start;
  strata_session_navigate_to (session, a.start - d / 4, a.end + d / 4);
  strata_timeline_view_set_following (timeline, FALSE);
  strata_timeline_view_select_row (timeline, channel);
  /* The sleep was read from the raw store, which the level the click
   * asks holds only once the pass next advances the tree: the hit finds
   * it where the pass has read it, so the first click selects it. */
  strata_test_ui_settle ();
  /* Meanwhile the rows area may have shrunk (the row's panel shown) and
   * new threads' rows come in above it: the row is brought into view
   * again, and clicked before the main loop runs again. */
  strata_timeline_view_select_row (timeline, channel);
  x = (strata_timeline_view_x_for_time (timeline, a.start) + strata_timeline_view_x_for_time (timeline, a.end)) / 2;
  y = strata_timeline_view_y_for_row (timeline, channel) + 6;
  g_assert_cmpfloat (y, >, 0);
  g_assert_cmpfloat (y, <, gtk_widget_get_height (GTK_WIDGET (timeline)));
  strata_timeline_view_handle_drag_begin (timeline, x, y);
  strata_timeline_view_handle_drag_end (timeline, 0, 0);
  sel = strata_session_get_selection (session);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_ITEM);
  g_assert_cmpuint (sel->item.channel, ==, channel);
  g_assert_cmpint (sel->item.start, ==, a.start);
  g_assert_cmpint (sel->item.end, ==, a.end);
  g_assert_true (gtk_widget_get_visible (strata_window_get_panel (window)));
  item_text = strata_window_get_panel_text (window);
  channels = strata_timeline_view_get_channels (timeline, &n_channels);
  pid_field = g_strdup_printf ("TID: %d\n", channels[channel].id);
  g_test_message ("the panel of a live activity:\n%s", item_text);
  g_assert_nonnull (strstr (item_text, pid_field));
  g_assert_nonnull (strstr (item_text, "State: Sleeping\n"));
  /* The list is made again for the newer part at most once a second. */
  for (int wait = 0; wait < 100 && strata_event_list_get_selected (list) == GTK_INVALID_LIST_POSITION; wait++)
    run_for (50 * G_TIME_SPAN_MILLISECOND);
  {
    guint row = strata_event_list_get_selected (list);
    StrataActivity b;

    g_assert_cmpuint (row, !=, GTK_INVALID_LIST_POSITION);
    g_assert_true (strata_event_model_get_activity (STRATA_EVENT_MODEL (strata_event_list_get_model (list)), row, &b));
    g_assert_cmpuint (b.channel, ==, a.channel);
    g_assert_cmpint (b.start, ==, a.start);
    g_assert_cmpint (b.end, ==, a.end);
  }
  g_assert_true (strata_timeline_view_is_live (timeline));
  texture = strata_test_ui_render (GTK_WIDGET (window));
  png = strata_test_ui_save_png (texture, "test-ui-live-inspect");
  g_test_message ("a live activity selected: %s", png);

  /* A range dragged on the ruler: its statistics from the part recorded. */
  {
    double top = STRATA_TIMELINE_OVERVIEW_HEIGHT + 8;
    double x0 = strata_timeline_view_x_for_time (timeline, a.start - d / 8);
    double x1 = strata_timeline_view_x_for_time (timeline, a.end + d / 8);

    strata_timeline_view_handle_drag_begin (timeline, x0, top);
    strata_timeline_view_handle_drag_update (timeline, x1 - x0, 0);
    strata_timeline_view_handle_drag_end (timeline, x1 - x0, 0);
  }
  sel = strata_session_get_selection (session);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_RANGE);
  range = *sel;
  g_assert_true (strata_timeline_view_is_live (timeline));
  range_text = strata_window_get_panel_text (window);
  g_test_message ("the statistics of a live range:\n%s", range_text);
  g_assert_true (g_str_has_prefix (range_text, "Range of "));
  g_assert_nonnull (strstr (range_text, "CPU 0 busy: "));
  g_assert_nonnull (strstr (range_text, " running"));
  g_assert_nonnull (strstr (range_text, "Wakeups: "));

  /* The recording ends: the finished trace answers, the same. */
  g_assert_true (strata_test_recorder_stop (recorder, &summary, &error));
  g_assert_no_error (error);
  strata_test_record_unlock (lock);
  strata_test_ui_wait_until_shown (window);
  g_assert_false (strata_timeline_view_is_live (timeline));
  sel = strata_session_get_selection (session);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_RANGE);
  g_assert_cmpint (sel->from, ==, range.from);
  g_assert_cmpint (sel->to, ==, range.to);
  finished_text = strata_window_get_panel_text (window);
  g_assert_cmpstr (finished_text, ==, range_text);
  strata_session_get_matches (session, &n_matches);
  g_assert_cmpuint (n_matches, ==, n_live_matches);
  g_assert_cmpuint (strata_timeline_view_get_search_match (timeline), ==, match);

  gtk_window_destroy (GTK_WINDOW (window));
  strata_test_ui_settle ();
  g_unlink (exe);
}

int
main (int   argc,
      char *argv[])
{
  strata_test_ui_init (&argc, &argv);

  g_test_add_func ("/ui/live/follow-growing-recording", test_follow_growing_recording);
  g_test_add_func ("/ui/live/inspect-growing-recording", test_inspect_growing_recording);

  return g_test_run ();
}
