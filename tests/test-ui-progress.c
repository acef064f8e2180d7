/* test-ui-progress.c
 *
 * What the window shows while a trace loads: how much of the file has
 * been read, the rates and the time left. The bytes read come from where
 * the events come from in the file; for the kernel's text output, where
 * events are lines in file order, they must equal the end of the event
 * lines read so far as the test counts them itself. On every format the
 * share grows with each report and ends near the whole file, and the
 * time left at each report is the time still needed at the pace so far,
 * as the test computes it from the rate of bytes. The window's bars and
 * labels show each report's estimate.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>

#include "strata-load-estimate.h"
#include "strata-test-support.h"
#include "strata-test-ui.h"
#include "strata-window-private.h"

typedef struct
{
  guint64 n_events;
  guint64 bytes_read;
  guint64 bytes_total;
  gint64  start;
  gint64  horizon;
} Report;

static gboolean
keep_report (const StrataTraceProgress *p,
             gpointer                   data)
{
  GArray *reports = data;
  Report r = { p->n_events, p->bytes_read, p->bytes_total, p->start, p->horizon };

  g_array_append_val (reports, r);
  return TRUE;
}

static GArray *
load_reports (const char *fixture,
              guint64    *file_size)
{
  g_autofree char *path = strata_test_fixture (fixture);
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  GArray *reports = g_array_new (FALSE, FALSE, sizeof (Report));
  StrataZoomParams params;
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  *file_size = st.st_size;
  strata_zoom_params_init (&params);
  trace = strata_test_load_full (path, FALSE, NULL, NULL, NULL, &params, keep_report, reports, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return reports;
}

static void
test_bytes_read_against_file_size (void)
{
  /* Every file, compressed or not, is nearly all read at the last report:
   * uncompressed trace.dat and text by their events' offsets, perf.data
   * and zstd trace.dat by the readers' own file position (see
   * test-trace-progress). */
  const struct { const char *name; double at_end; } fixtures[] = {
    { "sched-small.dat", 0.95 }, { "sched-small.txt", 0.95 }, { "perf-switch.data.xz", 0.95 },
    { "sched-tgid.dat", 0.95 }, { "instances.dat", 0.95 }, { "perf-zstd.data.xz", 0.95 },
  };

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      guint64 size;
      g_autoptr(GArray) reports = load_reports (fixtures[f].name, &size);
      const Report *end;
      guint64 last = 0;

      g_assert_cmpuint (reports->len, >, 0);
      for (guint i = 0; i < reports->len; i++)
        {
          const Report *r = &g_array_index (reports, Report, i);

          g_test_message ("%s: report %u: %" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT
                          " of %" G_GUINT64_FORMAT " bytes", fixtures[f].name, i, r->n_events,
                          r->bytes_read, r->bytes_total);
          g_assert_cmpuint (r->bytes_total, ==, size);
          g_assert_cmpuint (r->bytes_read, >=, last);
          g_assert_cmpuint (r->bytes_read, <=, size);
          last = r->bytes_read;

          /* The time left is what is left at the rate so far (a report a
           * second, made up). */
          {
            StrataLoadEstimate e = { 0 };
            double rate = r->bytes_read / (double) (i + 1);

            e.elapsed_usec = (i + 1) * G_USEC_PER_SEC;
            e.n_events = r->n_events;
            e.bytes_read = r->bytes_read;
            e.bytes_total = r->bytes_total;
            g_assert_cmpfloat (fabs (strata_load_estimate_eta_usec (&e) -
                                     (r->bytes_total - r->bytes_read) / rate * G_USEC_PER_SEC), <=, 1);
          }
        }
      end = &g_array_index (reports, Report, reports->len - 1);
      g_assert_cmpuint (end->bytes_read, >, 0);
      g_assert_cmpfloat ((double) end->bytes_read / end->bytes_total, >=, fixtures[f].at_end);
    }
}

/* A kernel text trace of @n_events sched_switch lines on two CPUs, a task
 * switching in and out of each: big enough for several reports. Writes
 * where each event's line starts in @line_starts. */
static char *
write_text_trace (guint   n_events,
                  GArray *line_starts)
{
  g_autofree char *dir = strata_test_tmpdir ();
  char *path = g_build_filename (dir, "progress.txt", NULL);
  g_autoptr(GString) text = g_string_new ("# tracer: nop\n"
                                          "#\n"
                                          "# entries-in-buffer/entries-written: 0/0   #P:2\n"
                                          "#\n"
                                          "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
                                          "#              | |         |   |||||     |         |\n");
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < n_events; i++)
    {
      guint cpu = i % 2;
      gboolean out = (i / 2) % 2 == 0;
      guint64 us = 100000000 + (guint64) i * 3;
      int pid = 5000 + cpu;
      guint64 at = text->len;

      g_array_append_val (line_starts, at);
      if (out)
        g_string_append_printf (text,
                                "          worker-%d    [%03u] d..2. %6" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT
                                ": sched_switch: prev_comm=worker prev_pid=%d prev_prio=120 prev_state=S"
                                " ==> next_comm=swapper/%u next_pid=0 next_prio=120\n",
                                pid, cpu, us / 1000000, us % 1000000, pid, cpu);
      else
        g_string_append_printf (text,
                                "          <idle>-0       [%03u] d..2. %6" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT
                                ": sched_switch: prev_comm=swapper/%u prev_pid=0 prev_prio=120 prev_state=R"
                                " ==> next_comm=worker next_pid=%d next_prio=120\n",
                                cpu, us / 1000000, us % 1000000, cpu, pid);
    }
  g_assert_true (g_file_set_contents (path, text->str, text->len, &error));
  g_assert_no_error (error);
  return path;
}

/* The oracle: after n events of a text trace, read is what lies before
 * the n-th event's line and its first byte. */
static void
test_text_bytes_are_its_lines (void)
{
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autofree char *path = write_text_trace (20000, starts);
  g_autoptr(GArray) reports = g_array_new (FALSE, FALSE, sizeof (Report));
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  StrataZoomParams params;
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  strata_zoom_params_init (&params);
  trace = strata_test_load_full (path, FALSE, NULL, NULL, NULL, &params, keep_report, reports, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strata_trace_get_n_events (trace), ==, starts->len);

  g_assert_cmpuint (reports->len, >=, 4);
  for (guint i = 0; i < reports->len; i++)
    {
      const Report *r = &g_array_index (reports, Report, i);

      g_assert_cmpuint (r->bytes_total, ==, (guint64) st.st_size);
      g_assert_cmpuint (r->n_events, >, 0);
      g_assert_cmpuint (r->bytes_read, ==, g_array_index (starts, guint64, r->n_events - 1) + 1);
    }
  g_remove (path);
}

/* The time left at each report of a real load, told by the estimate, is
 * what is left of the file at the rate of bytes so far; the elapsed times
 * are made up (a second a report), so it does not depend on the machine. */
static void
test_eta_from_bytes (void)
{
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autofree char *path = write_text_trace (20000, starts);
  g_autoptr(GArray) reports = g_array_new (FALSE, FALSE, sizeof (Report));
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  StrataZoomParams params;
  gint64 previous = G_MAXINT64;

  strata_zoom_params_init (&params);
  trace = strata_test_load_full (path, FALSE, NULL, NULL, NULL, &params, keep_report, reports, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (reports->len, >=, 4);

  for (guint i = 0; i < reports->len; i++)
    {
      const Report *r = &g_array_index (reports, Report, i);
      StrataLoadEstimate e = { 0 };
      double rate, want;
      gint64 eta;
      g_autofree char *text = NULL;
      g_autofree char *percent = NULL;

      e.elapsed_usec = (i + 1) * G_USEC_PER_SEC;
      e.n_events = r->n_events;
      e.bytes_read = r->bytes_read;
      e.bytes_total = r->bytes_total;
      e.covered_ns = r->horizon - r->start;

      rate = r->bytes_read / (double) (i + 1);  /* bytes per second */
      want = (r->bytes_total - r->bytes_read) / rate * G_USEC_PER_SEC;
      eta = strata_load_estimate_eta_usec (&e);
      g_assert_cmpfloat (fabs (eta - want), <=, 1);
      g_assert_cmpfloat (fabs (strata_load_estimate_bytes_per_second (&e) - rate), <, 1e-6 * rate);
      g_assert_cmpfloat (fabs (strata_load_estimate_fraction (&e) - (double) r->bytes_read / r->bytes_total), <, 1e-12);
      /* A steady load: less time left at each report. */
      g_assert_cmpint (eta, <, previous);
      previous = eta;

      text = strata_load_estimate_format (&e);
      percent = g_strdup_printf ("%.0f %%", 100.0 * r->bytes_read / r->bytes_total);
      g_test_message ("report %u: %s", i, text);
      g_assert_true (g_str_has_prefix (text, percent));
      g_assert_nonnull (strstr (text, " left"));
    }
  g_remove (path);
}

static void
test_eta_text (void)
{
  StrataLoadEstimate e = { .elapsed_usec = 10 * G_USEC_PER_SEC, .n_events = 5000000,
                           .bytes_read = 250, .bytes_total = 1000 };
  g_autofree char *half = NULL;
  g_autofree char *unknown = NULL;
  g_autofree char *text = NULL;

  /* A quarter read in 10 s: 30 s left. */
  g_assert_cmpint (strata_load_estimate_eta_usec (&e), ==, 30 * G_USEC_PER_SEC);
  text = strata_load_estimate_format (&e);
  g_assert_cmpstr (text, ==, "25 % · 5.00 M events · 0.50 M/s · 0.0 MB/s · 30 s left");
  g_clear_pointer (&text, g_free);

  text = strata_load_estimate_format_eta (125 * G_USEC_PER_SEC);
  g_assert_cmpstr (text, ==, "2 min 05 s left");
  g_clear_pointer (&text, g_free);
  text = strata_load_estimate_format_eta ((gint64) (2 * 3600 + 300) * G_USEC_PER_SEC);
  g_assert_cmpstr (text, ==, "2 h 05 min left");

  /* Nothing read yet: no estimate; no size: no share, and no estimate. */
  e.bytes_read = 0;
  g_assert_cmpint (strata_load_estimate_eta_usec (&e), ==, -1);
  half = strata_load_estimate_format (&e);
  g_assert_nonnull (strstr (half, "estimating"));
  e.bytes_read = 500;
  e.bytes_total = 0;
  g_assert_cmpfloat (strata_load_estimate_fraction (&e), <, 0);
  g_assert_cmpint (strata_load_estimate_eta_usec (&e), ==, -1);
  unknown = strata_load_estimate_format (&e);
  g_assert_null (strstr (unknown, "left"));
  /* All read: nothing left. */
  e.bytes_total = 500;
  g_assert_cmpint (strata_load_estimate_eta_usec (&e), ==, 0);
}

/* The window shows each report: both bars filled to the share read, both
 * labels saying the estimate's text; a size not known makes them pulse
 * (the fraction then is the pulse's, not a share). */
static void
test_window_shows_estimate (void)
{
  StrataWindow *window = strata_window_new (NULL);
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autofree char *path = write_text_trace (20000, starts);
  g_autoptr(GArray) reports = g_array_new (FALSE, FALSE, sizeof (Report));
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  StrataZoomParams params;
  GtkProgressBar *bar, *live_bar;
  GtkLabel *label, *live_label;

  gtk_window_present (GTK_WINDOW (window));
  bar = GTK_PROGRESS_BAR (gtk_widget_get_template_child (GTK_WIDGET (window), STRATA_TYPE_WINDOW, "progress_bar"));
  live_bar = GTK_PROGRESS_BAR (gtk_widget_get_template_child (GTK_WIDGET (window), STRATA_TYPE_WINDOW, "live_progress"));
  label = GTK_LABEL (gtk_widget_get_template_child (GTK_WIDGET (window), STRATA_TYPE_WINDOW, "progress_label"));
  live_label = GTK_LABEL (gtk_widget_get_template_child (GTK_WIDGET (window), STRATA_TYPE_WINDOW, "live_label"));
  g_assert_nonnull (bar);
  g_assert_nonnull (live_bar);
  g_assert_nonnull (label);
  g_assert_nonnull (live_label);

  strata_zoom_params_init (&params);
  trace = strata_test_load_full (path, FALSE, NULL, NULL, NULL, &params, keep_report, reports, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < reports->len; i++)
    {
      const Report *r = &g_array_index (reports, Report, i);
      StrataLoadEstimate e = { (i + 1) * G_USEC_PER_SEC, r->n_events, r->bytes_read, r->bytes_total,
                               r->horizon - r->start };
      g_autofree char *want = strata_load_estimate_format (&e);

      strata_window_show_load_estimate (window, &e);
      g_assert_cmpfloat (fabs (gtk_progress_bar_get_fraction (bar) - (double) r->bytes_read / r->bytes_total), <, 1e-9);
      g_assert_cmpfloat (fabs (gtk_progress_bar_get_fraction (live_bar) - (double) r->bytes_read / r->bytes_total), <, 1e-9);
      g_assert_cmpstr (gtk_label_get_text (label), ==, want);
      g_assert_cmpstr (gtk_label_get_text (live_label), ==, want);
      g_assert_nonnull (strstr (want, " left"));
    }

  {
    StrataLoadEstimate unknown = { G_USEC_PER_SEC, 1000, 500, 0, 0 };
    g_autofree char *want = strata_load_estimate_format (&unknown);

    strata_window_show_load_estimate (window, &unknown);
    g_assert_cmpstr (gtk_label_get_text (label), ==, want);
    g_assert_null (strstr (want, "left"));
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_remove (path);
}

int
main (int    argc,
      char **argv)
{
  strata_test_ui_init (&argc, &argv);

  g_test_add_func ("/strata/ui/progress/bytes-read-against-file-size", test_bytes_read_against_file_size);
  g_test_add_func ("/strata/ui/progress/text-bytes-are-its-lines", test_text_bytes_are_its_lines);
  g_test_add_func ("/strata/ui/progress/eta-from-bytes", test_eta_from_bytes);
  g_test_add_func ("/strata/ui/progress/eta-text", test_eta_text);
  g_test_add_func ("/strata/ui/progress/window-shows-estimate", test_window_shows_estimate);

  return g_test_run ();
}
