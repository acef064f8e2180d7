/* strata-bench-load.c
 *
 * The app's first open of a trace, as a user makes it: a StrataWindow of
 * 1920x1080 (under Xvfb) opens the file through strata_window_open(), so
 * the pass runs in the window's worker and the timeline shows the growing
 * trace while it loads, and the program waits until the window shows the
 * finished trace (its index written and mapped). It prints, one "key
 * value" a line: the wall time from the open to the finished trace, the
 * process's CPU time, its peak RSS, and how many frames the window drew
 * meanwhile. There must be no index for the trace yet (bench/run-index.sh
 * points STRATA_INDEX_DIR at an empty folder); one is refused, since the
 * open would then only map it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <sys/resource.h>

#include <adwaita.h>

#include "strata-loader.h"
#include "strata-window.h"

static guint n_frames;

static void
count_frame (GdkFrameClock *clock,
             gpointer       data)
{
  n_frames++;
}

static double
seconds (struct timeval tv)
{
  return tv.tv_sec + tv.tv_usec / 1e6;
}

int
main (int    argc,
      char **argv)
{
  gint width = 1920, height = 1080;
  GOptionEntry entries[] = {
    { "width", 'w', 0, G_OPTION_ARG_INT, &width, "Window width (default 1920)", "W" },
    { "height", 'h', 0, G_OPTION_ARG_INT, &height, "Window height (default 1080)", "H" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE - the app's first open of a trace, timed");
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  StrataTimelineView *timeline;
  StrataWindow *window;
  GdkFrameClock *clock;
  struct rusage usage;
  gint64 t0, t1;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2)
    {
      g_printerr ("strata-bench-load: %s\n", error != NULL ? error->message : "give one trace");
      return 2;
    }
  if (!gtk_init_check ())
    {
      g_printerr ("strata-bench-load: no display (run it under xvfb-run)\n");
      return 2;
    }
  adw_init ();

  {
    g_autoptr(StrataLoader) loader = strata_loader_new (argv[1]);
    g_autoptr(StrataTrace) indexed = strata_loader_find_index (loader, NULL);

    if (indexed != NULL)
      {
        g_printerr ("strata-bench-load: %s already has an index; remove it (or set STRATA_INDEX_DIR)\n", argv[1]);
        return 2;
      }
  }

  file = g_file_new_for_commandline_arg (argv[1]);
  window = strata_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  timeline = strata_window_get_timeline (window);
  while (!gtk_widget_get_mapped (GTK_WIDGET (window)))
    g_main_context_iteration (NULL, TRUE);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_signal_connect (clock, "after-paint", G_CALLBACK (count_frame), NULL);

  t0 = g_get_monotonic_time ();
  strata_window_open (window, file);
  /* Loaded: the timeline holds the finished trace. A load that failed
   * leaves the window empty (its toast says why). */
  while (strata_timeline_view_get_trace (timeline) == NULL || strata_timeline_view_is_live (timeline))
    {
      if (strata_window_is_empty (window))
        {
          g_printerr ("strata-bench-load: %s did not load\n", argv[1]);
          return 1;
        }
      g_main_context_iteration (NULL, TRUE);
    }
  t1 = g_get_monotonic_time ();

  getrusage (RUSAGE_SELF, &usage);
  printf ("load_s %.3f\n", (t1 - t0) / 1e6);
  printf ("user_s %.3f\n", seconds (usage.ru_utime));
  printf ("sys_s %.3f\n", seconds (usage.ru_stime));
  printf ("peak_rss_kb %ld\n", usage.ru_maxrss);
  printf ("frames %u\n", n_frames);
  printf ("frames_per_s %.1f\n", n_frames / ((t1 - t0) / 1e6));

  g_signal_handlers_disconnect_by_func (clock, count_frame, NULL);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
