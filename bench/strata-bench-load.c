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
 * open would then only map it (unless --indexed says that open is the one
 * to time).
 *
 * With --frames, it also times the frames of the growing trace (issue 23's
 * frame cost while following): every tick of the load (--frame-period,
 * 50 ms), the timeline's snapshot as GTK takes it for a frame, in the main
 * thread's CPU time, while the worker goes on growing the tree, of
 * --views views that follow the present: the one the window shows (the
 * whole trace so far) and the same view ending at the present 4, 16, 64 ...
 * times narrower (a user following at a closer zoom); then the window's
 * own view again. Once loaded, the same views of the finished trace, each
 * painted anew as the live ones are (every live update is a new view). It
 * prints both medians, over every view timed, and their ratio; a 2M-event
 * trace loads in a second or two on an idle machine, and the ratio of a
 * handful of frames a run was mostly noise.
 *
 * With --memory, it samples its own memory every 250 ms of the load (and
 * once loaded): the resident set by kind (/proc/self/smaps_rollup's
 * anonymous and file-backed parts) and malloc's view (mallinfo2: bytes
 * in use, bytes free in its arenas, bytes in mmapped chunks), one
 * "mem ..." line a sample on stderr, and malloc_info()'s per-arena XML at
 * the sample of largest RSS; so what the app holds while it draws can be
 * told apart from what malloc keeps but does not use.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <sys/resource.h>

#include <adwaita.h>

#include "strata-bench-snapshot.h"
#include "strata-loader.h"
#include "strata-timeline-view-private.h"
#include "strata-window.h"

typedef struct
{
  gint64 from, to;
  gint64 live_ns;
  guint  view;   /* 0: the one shown; v: 4^v times narrower */
} LiveFrame;

static guint n_frames;

/* Times @n_views views following the present, narrower and narrower
 * (the first the one shown), and shows the view that was shown again. */
static void
time_live_views (StrataTimelineView *timeline,
                 guint               n_views,
                 GArray             *frames)
{
  gint64 shown_from, shown_to;

  strata_timeline_view_get_range (timeline, &shown_from, &shown_to);
  for (guint v = 0; v < n_views; v++)
    {
      gint64 span = (shown_to - shown_from) >> (2 * v);
      LiveFrame f;

      if (v > 0)
        {
          if (span < 1000)
            break;
          /* Ending at the present, the view goes on following it. */
          strata_timeline_view_set_range (timeline, shown_to - span, shown_to);
        }
      strata_timeline_view_forget_frame (timeline);
      strata_timeline_view_get_range (timeline, &f.from, &f.to);
      f.view = v;
      f.live_ns = strata_bench_snapshot_ns (GTK_WIDGET (timeline));
      g_array_append_val (frames, f);
    }
  if (n_views > 1)
    strata_timeline_view_set_range (timeline, shown_from, shown_to);
}

/* --memory: the largest RSS sampled, and malloc_info() at it; overall
 * and while the growing trace was shown. */
static gint64 mem_peak_kb, mem_live_peak_kb;
static char *mem_peak_info, *mem_live_peak_info;

static char *
malloc_info_text (void)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  char *text;

  if (f == NULL)
    return NULL;
  malloc_info (0, f);
  fclose (f);
  text = g_strdup (buf);
  free (buf);
  return text;
}

static gint64
rollup_kb (const char *text,
           const char *key)
{
  const char *at = strstr (text, key);

  return at != NULL ? g_ascii_strtoll (at + strlen (key), NULL, 10) : -1;
}

/* Wakes the main loop, so that the samples go on while the worker writes
 * the index and nothing else happens on the main thread. */
static gboolean
wake (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static void
sample_memory (gint64      since_usec,
               const char *when)
{
  g_autofree char *rollup = NULL;
  struct mallinfo2 mi = mallinfo2 ();
  gint64 rss, anon;

  if (!g_file_get_contents ("/proc/self/smaps_rollup", &rollup, NULL, NULL))
    return;
  rss = rollup_kb (rollup, "\nRss:");
  anon = rollup_kb (rollup, "\nAnonymous:");
  g_printerr ("mem %s t %.2f rss_kb %" G_GINT64_FORMAT " anon_kb %" G_GINT64_FORMAT " file_kb %" G_GINT64_FORMAT
              " malloc_used_kb %zu malloc_free_kb %zu malloc_mmap_kb %zu arena_kb %zu\n",
              when, (g_get_monotonic_time () - since_usec) / 1e6, rss, anon, rss - anon,
              mi.uordblks / 1024, mi.fordblks / 1024, mi.hblkhd / 1024, mi.arena / 1024);
  if (rss > mem_peak_kb)
    {
      mem_peak_kb = rss;
      g_free (mem_peak_info);
      mem_peak_info = malloc_info_text ();
    }
  if (g_str_equal (when, "live") && rss > mem_live_peak_kb)
    {
      mem_live_peak_kb = rss;
      g_free (mem_live_peak_info);
      mem_live_peak_info = malloc_info_text ();
    }
}

static void
count_frame (GdkFrameClock *clock,
             gpointer       data)
{
  n_frames++;
}

/* The views timed while the trace grew, timed again on the finished
 * trace; prints both medians and their ratio. */
static void
report_frames (StrataTimelineView *timeline,
               GArray             *frames)
{
  g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) done = g_array_new (FALSE, FALSE, sizeof (gint64));
  double live_ms, done_ms;

  for (guint i = 0; i < frames->len; i++)
    {
      const LiveFrame *f = &g_array_index (frames, LiveFrame, i);
      gint64 ns;

      strata_timeline_view_set_range (timeline, f->from, f->to);
      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
      /* A live view is painted anew every frame: so is this one. */
      strata_timeline_view_forget_frame (timeline);
      ns = strata_bench_snapshot_ns (GTK_WIDGET (timeline));
      g_array_append_val (live, f->live_ns);
      g_array_append_val (done, ns);
      if (g_getenv ("STRATA_BENCH_FRAMES_LOG") != NULL)
        g_printerr ("frame %u view %u from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT " live_ms %.3f finished_ms %.3f\n",
                    i, f->view, f->from, f->to, f->live_ns / 1e6, ns / 1e6);
    }
  /* Each view's medians too: where a live frame costs. */
  for (guint v = 0; v < 16; v++)
    {
      g_autoptr(GArray) lv = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) dv = g_array_new (FALSE, FALSE, sizeof (gint64));

      for (guint i = 0; i < frames->len; i++)
        if (g_array_index (frames, LiveFrame, i).view == v)
          {
            g_array_append_val (lv, g_array_index (live, gint64, i));
            g_array_append_val (dv, g_array_index (done, gint64, i));
          }
      if (lv->len > 0)
        printf ("view%u_timed %u live_ms %.3f finished_ms %.3f\n", v, lv->len, median_ms (lv), median_ms (dv));
    }
  live_ms = median_ms (live);
  done_ms = median_ms (done);
  printf ("frames_timed %u\n", frames->len);
  if (frames->len < 30)
    g_printerr ("strata-bench-load: only %u frames timed; the medians are noise (--frame-period, --views)\n",
                frames->len);
  printf ("frame_live_ms %.3f\n", live_ms);
  printf ("frame_finished_ms %.3f\n", done_ms);
  printf ("frame_live_over_finished %.2f\n", done_ms > 0 ? live_ms / done_ms : 0.0);
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
  gboolean time_frames = FALSE;
  gboolean memory = FALSE;
  gboolean indexed_ok = FALSE;
  gint64 next_sample = 0;
  g_autoptr(GArray) frames = g_array_new (FALSE, FALSE, sizeof (LiveFrame));
  gint64 next_frame = 0;
  gint frame_period_ms = 50, n_views = 4;
  GOptionEntry entries[] = {
    { "frames", 0, 0, G_OPTION_ARG_NONE, &time_frames, "Time the growing trace's frames against the finished trace's", NULL },
    { "frame-period", 0, 0, G_OPTION_ARG_INT, &frame_period_ms, "With --frames, time the live views every MS of the load (default 50)", "MS" },
    { "views", 0, 0, G_OPTION_ARG_INT, &n_views, "With --frames, views timed a tick: the one shown, then 4, 16 ... times narrower at the present (default 4)", "N" },
    { "memory", 0, 0, G_OPTION_ARG_NONE, &memory, "Sample the process's memory every 250 ms (on stderr)", NULL },
    { "indexed", 0, 0, G_OPTION_ARG_NONE, &indexed_ok, "Accept a trace already indexed (times the open from its index)", NULL },
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
  if (frame_period_ms < 1 || n_views < 1 || n_views > 16)
    {
      g_printerr ("strata-bench-load: --frame-period must be at least 1 and --views 1 to 16\n");
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

    if (indexed != NULL && !indexed_ok)
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

  if (memory)
    g_timeout_add (250, wake, NULL);
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
      if (time_frames && strata_timeline_view_is_live (timeline) &&
          g_get_monotonic_time () >= next_frame)
        {
          time_live_views (timeline, n_views, frames);
          next_frame = g_get_monotonic_time () + frame_period_ms * G_TIME_SPAN_MILLISECOND;
        }
      if (memory && g_get_monotonic_time () >= next_sample)
        {
          sample_memory (t0, strata_timeline_view_is_live (timeline) ? "live" : "loading");
          next_sample = g_get_monotonic_time () + 250 * G_TIME_SPAN_MILLISECOND;
        }
    }
  t1 = g_get_monotonic_time ();

  getrusage (RUSAGE_SELF, &usage);
  printf ("load_s %.3f\n", (t1 - t0) / 1e6);
  printf ("user_s %.3f\n", seconds (usage.ru_utime));
  printf ("sys_s %.3f\n", seconds (usage.ru_stime));
  printf ("peak_rss_kb %ld\n", usage.ru_maxrss);
  printf ("frames %u\n", n_frames);
  printf ("frames_per_s %.1f\n", n_frames / ((t1 - t0) / 1e6));
  if (time_frames)
    report_frames (timeline, frames);
  if (memory)
    {
      /* The finished trace's first frames too: a user's window draws it. */
      gint64 until = g_get_monotonic_time () + G_USEC_PER_SEC;

      sample_memory (t0, "loaded");
      while (g_get_monotonic_time () < until)
        g_main_context_iteration (NULL, TRUE);
      sample_memory (t0, "drawn");
      g_printerr ("mem_live_peak_rss_kb %" G_GINT64_FORMAT "\nmalloc_info at the live peak:\n%s\n",
                  mem_live_peak_kb, mem_live_peak_info != NULL ? mem_live_peak_info : "");
      g_printerr ("mem_peak_rss_kb %" G_GINT64_FORMAT "\nmalloc_info at the peak:\n%s\n", mem_peak_kb,
                  mem_peak_info != NULL ? mem_peak_info : "");
      g_free (mem_live_peak_info);
      g_free (mem_peak_info);
    }

  g_signal_handlers_disconnect_by_func (clock, count_frame, NULL);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
