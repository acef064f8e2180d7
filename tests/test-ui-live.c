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
 * Needs root (or CAP_BPF and CAP_PERFMON): skips where recording is not
 * permitted, and takes the machine-wide recording lock.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <signal.h>
#include <stdlib.h>

#include <glib/gstdio.h>

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

int
main (int   argc,
      char *argv[])
{
  strata_test_ui_init (&argc, &argv);

  g_test_add_func ("/ui/live/follow-growing-recording", test_follow_growing_recording);

  return g_test_run ();
}
