/* test-ui-record.c
 *
 * Recording from the application: the exact command line it runs,
 * through pkexec and directly; each way pkexec refuses (absent: nothing
 * is started; the password dialog dismissed: exit 126; not authorized:
 * 127) shows its message and leaves no recorder running; and, where this
 * machine lets the test record, a recording started as the Record action
 * starts one, with a command that would run for ever, followed in the
 * window, stopped with Stop, and kept whole; and the window closed while
 * it records, which asks: Stop and Keep leaves the finished file, Discard
 * leaves no file, Cancel leaves the window recording; neither of the
 * first two leaves a recorder running.
 * pkexec's refusals are played by a script standing in for it (this test
 * must not ask anyone for a password), which exits as pkexec does.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "strata-record-dialog.h"
#include "strata-record-status.h"
#include "strata-recording.h"
#include "strata-test-record.h"
#include "strata-test-support.h"
#include "strata-test-ui.h"
#include "strata-window-private.h"

static void
test_command_line (void)
{
  StrataRecordOptions options = { 0 };
  g_autoptr(StrataRecording) recording = NULL;
  g_auto(GStrv) via = NULL;
  g_auto(GStrv) direct = NULL;
  g_autofree char *uid = g_strdup_printf ("--reuid=%u", (guint) getuid ());
  g_autofree char *gid = g_strdup_printf ("--regid=%u", (guint) getgid ());
  const char *expected_via[] = {
    "/usr/bin/pkexec", BINDIR "/strata-cli", "record", "--stop-on-eof", "-q",
    "-o", "/tmp/out.strata", "--events=syscalls,samples", "--freq=199", "--duration=5",
    "--", "/usr/bin/setpriv", uid, gid, "--clear-groups", "--", "/bin/sh", "-c", "make -j2",
    NULL
  };
  const char *expected_direct[] = {
    BINDIR "/strata-cli", "record", "--stop-on-eof", "-q", "-o", "/tmp/out.strata",
    "--events=syscalls,samples", "--freq=199", "--duration=5", "--", "/bin/sh", "-c", "make -j2",
    NULL
  };
  const char *expected_plain[] = {
    "/usr/bin/pkexec", BINDIR "/strata-cli", "record", "--stop-on-eof", "-q", "-o", "/tmp/plain.strata",
    NULL
  };

  options.syscalls = TRUE;
  options.samples = TRUE;
  options.freq = 199;
  options.duration_s = 5;
  options.command = (char *) "make -j2";
  options.output = (char *) "/tmp/out.strata";
  recording = strata_recording_new (&options);

  strata_recording_set_via_pkexec (recording, TRUE);
  via = strata_recording_get_argv (recording);
  g_assert_cmpstrv (via, expected_via);

  strata_recording_set_via_pkexec (recording, FALSE);
  direct = strata_recording_get_argv (recording);
  g_assert_cmpstrv (direct, expected_direct);

  /* Nothing chosen: only what is always recorded, until stopped. */
  {
    StrataRecordOptions plain = { 0 };
    g_autoptr(StrataRecording) r = NULL;
    g_auto(GStrv) argv = NULL;

    plain.output = (char *) "/tmp/plain.strata";
    r = strata_recording_new (&plain);
    strata_recording_set_via_pkexec (r, TRUE);
    argv = strata_recording_get_argv (r);
    g_assert_cmpstrv (argv, expected_plain);
  }

  /* The default file: under the user's data folder, named for the time. */
  {
    g_autofree char *output = strata_record_default_output ();
    g_autofree char *folder = g_build_filename (g_get_user_data_dir (), "strata", "recordings", NULL);
    g_autofree char *dir = g_path_get_dirname (output);
    g_autofree char *base = g_path_get_basename (output);

    g_assert_cmpstr (dir, ==, folder);
    g_assert_true (g_str_has_prefix (base, "recording-"));
    g_assert_true (g_str_has_suffix (base, ".strata"));
  }
}

static void
chosen (const StrataRecordOptions *options,
        gpointer                   data)
{
  StrataRecordOptions *out = data;

  *out = *options;
  out->command = g_strdup (options->command);
  out->output = g_strdup (options->output);
}

/* The dialog as the user sees it, and what Record hands on. */
static void
test_dialog (void)
{
  StrataRecordOptions got = { 0 };
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *png = NULL;
  StrataWindow *window = strata_window_new (NULL);
  GtkWindow *dialog;

  gtk_window_present (GTK_WINDOW (window));
  dialog = strata_record_dialog_new (GTK_WINDOW (window), chosen, &got);
  gtk_window_present (dialog);
  strata_test_ui_settle ();
  while (gtk_widget_get_width (GTK_WIDGET (dialog)) == 0)
    g_main_context_iteration (NULL, TRUE);
  strata_test_ui_settle ();
  texture = strata_test_ui_render (GTK_WIDGET (dialog));
  png = strata_test_ui_save_png (texture, "test-ui-record-dialog");
  g_test_message ("the Record dialog: %s", png);

  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "record");
  g_assert_nonnull (got.output);
  g_assert_true (g_str_has_prefix (got.output, g_get_user_data_dir ()));
  g_assert_null (got.command);
  g_assert_false (got.syscalls);
  g_assert_false (got.samples);
  g_assert_cmpuint (got.freq, ==, 99);
  g_assert_cmpuint (got.duration_s, ==, 0);
  strata_record_options_clear (&got);

  gtk_window_destroy (GTK_WINDOW (window));
  strata_test_ui_settle ();
}

/* g_format_size() puts a no-break space before the unit. */
static void
test_status (void)
{
  g_autofree char *a = strata_record_status_format (G_GINT64_CONSTANT (3723) * 1000000000 + 999, 12345, 3200000);
  g_autofree char *b = strata_record_status_format (5 * G_GINT64_CONSTANT (1000000000), 250, 1000);
  g_autofree char *none = strata_record_status_lost (0);
  g_autofree char *one = strata_record_status_lost (1);
  g_autofree char *some = strata_record_status_lost (4096);

  g_assert_cmpstr (a, ==, "Recording · 1:02:03 · 12.3 k events/s · 3.2\u00a0MB");
  g_assert_cmpstr (b, ==, "Recording · 0:00:05 · 250 events/s · 1.0\u00a0kB");
  g_assert_cmpstr (none, ==, "none lost");
  g_assert_cmpstr (one, ==, "1 event lost");
  g_assert_cmpstr (some, ==, "4096 events lost");
}

/* No process of ours has @output on its command line. */
static void
assert_no_recorder (const char *output)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize len;

      if (!g_ascii_isdigit (name[0]) || !g_file_get_contents (path, &cmdline, &len, NULL))
        continue;
      for (gsize i = 0; i + 1 < len; i++)
        if (cmdline[i] == '\0')
          cmdline[i] = ' ';
      g_assert_null (strstr (cmdline, output));
    }
}

static StrataRecording *
refused_recording (const char *dir,
                   const char *pkexec)
{
  StrataRecordOptions options = { 0 };
  g_autofree char *output = g_build_filename (dir, "refused.strata", NULL);
  StrataRecording *recording;

  options.output = output;
  options.command = (char *) "sleep 10";
  recording = strata_recording_new (&options);
  strata_recording_set_via_pkexec (recording, TRUE);
  strata_recording_set_programs (recording, pkexec, g_getenv ("STRATA_CLI"));
  return recording;
}

static void
test_pkexec_absent (void)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *missing = g_build_filename (dir, "no-such-pkexec", NULL);
  g_autoptr(StrataRecording) recording = refused_recording (dir, missing);
  StrataWindow *window = strata_window_new (NULL);

  gtk_window_present (GTK_WINDOW (window));
  g_assert_false (strata_window_start_recording (window, recording));
  g_assert_nonnull (strata_window_get_record_message (window));
  g_assert_nonnull (strstr (strata_window_get_record_message (window), "pkexec"));
  g_assert_null (strata_window_get_recording (window));
  g_assert_false (strata_recording_is_running (recording));
  g_assert_true (strata_window_is_empty (window));
  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (window)));
  assert_no_recorder (strata_recording_get_output (recording));
  g_assert_false (g_file_test (strata_recording_get_output (recording), G_FILE_TEST_EXISTS));

  gtk_window_destroy (GTK_WINDOW (window));
  strata_test_ui_settle ();
}

/* pkexec refusing with @status, as it does without running anything. */
static void
check_refusal (int         status,
               const char *expected)
{
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *fake = g_build_filename (dir, "pkexec", NULL);
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\n"
                                             "# pkexec refusing: %d\n"
                                             "sleep 0.2\n"
                                             "exit %d\n", status, status);
  g_autoptr(StrataRecording) recording = NULL;
  StrataWindow *window = strata_window_new (NULL);
  GPid pid;

  g_assert_true (g_file_set_contents (fake, script, -1, NULL));
  g_assert_cmpint (g_chmod (fake, 0755), ==, 0);
  recording = refused_recording (dir, fake);

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (strata_window_start_recording (window, recording));
  pid = strata_recording_get_pid (recording);
  g_assert_cmpint (pid, >, 0);
  /* The window is not blocked while pkexec asks. */
  g_assert_true (strata_window_get_recording (window) == recording);
  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (window)));

  while (strata_window_get_record_message (window) == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_test_message ("exit %d: %s", status, strata_window_get_record_message (window));
  g_assert_cmpstr (strata_window_get_record_message (window), ==, expected);
  g_assert_null (strata_window_get_recording (window));
  g_assert_false (strata_recording_is_running (recording));
  g_assert_cmpint (kill (pid, 0), ==, -1);
  g_assert_cmpint (errno, ==, ESRCH);
  assert_no_recorder (strata_recording_get_output (recording));
  g_assert_true (strata_window_is_empty (window));

  gtk_window_destroy (GTK_WINDOW (window));
  strata_test_ui_settle ();
}

static void
test_pkexec_dismissed (void)
{
  check_refusal (126, "Recording was not authorized: the password dialog was dismissed. "
                      "Nothing was recorded.");
}

static void
test_pkexec_not_authorized (void)
{
  check_refusal (127, "Recording was not authorized: recording needs an administrator's password. "
                      "Nothing was recorded.");
}

/* Where this machine may record: the Record action's way, directly, a
 * command traced; the window follows, Stop finishes the file, and the
 * window keeps the whole recording. */
static void
test_record_and_stop (void)
{
  g_autofree char *why = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *output = NULL;
  g_autofree char *uri = NULL;
  g_autoptr(StrataRecording) recording = NULL;
  StrataRecordOptions options = { 0 };
  StrataWindow *window;
  StrataTimelineView *timeline;
  const StrataChannel *channels;
  guint n;
  gboolean sleep_row = FALSE;
  int lock;

  if (!strata_test_record_permitted (&why))
    {
      g_test_skip (why);
      return;
    }
  dir = strata_test_tmpdir ();
  output = g_build_filename (dir, "from-the-app.strata", NULL);
  options.output = output;
  options.command = (char *) "while :; do sleep 0.1; done";
  recording = strata_recording_new (&options);
  g_assert_true (strata_recording_privileged ());
  strata_recording_set_via_pkexec (recording, FALSE);
  strata_recording_set_programs (recording, NULL, g_getenv ("STRATA_CLI"));

  window = strata_window_new (NULL);
  timeline = strata_window_get_timeline (window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));

  lock = strata_test_record_lock ();
  g_assert_true (strata_window_start_recording (window, recording));

  /* The command's sleeps get rows while the recording goes on. */
  while (!sleep_row)
    {
      g_assert_null (strata_window_get_record_message (window));
      g_main_context_iteration (NULL, TRUE);
      if (!strata_timeline_view_is_live (timeline))
        continue;
      channels = strata_timeline_view_get_channels (timeline, &n);
      for (guint i = 0; i < n; i++)
        if (channels[i].kind == STRATA_CHANNEL_THREAD &&
            g_strcmp0 (strata_trace_get_string (strata_timeline_view_get_trace (timeline), channels[i].name),
                       "sleep") == 0 &&
            strata_timeline_view_y_for_row (timeline, i) >= 0)
          sleep_row = TRUE;
    }

  /* Stop (the live bar's button): the recorder finishes the file. */
  g_assert_true (strata_recording_is_running (recording));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-open", NULL);
  strata_test_ui_wait_until_shown (window);
  while (strata_window_get_recording (window) != NULL)
    g_main_context_iteration (NULL, TRUE);
  strata_test_record_unlock (lock);

  g_assert_false (strata_recording_is_running (recording));
  assert_no_recorder (output);
  g_assert_false (strata_timeline_view_is_live (timeline));
  g_assert_nonnull (strata_timeline_view_get_trace (timeline));
  g_assert_null (strata_trace_get_damage (strata_timeline_view_get_trace (timeline)));
  uri = g_filename_to_uri (output, NULL, NULL);
  g_assert_true (gtk_recent_manager_has_item (gtk_recent_manager_get_default (), uri));

  /* The whole file: strata-cli exits 2 on one that ends without its footer. */
  {
    const char *args[] = { "info", output, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
    g_assert_null (strstr (err != NULL ? err : "", "footer"));
  }

  gtk_window_destroy (GTK_WINDOW (window));
  strata_test_ui_settle ();
}

/* The question a window closed while it records shows, found among the
 * toplevels: an AdwMessageDialog over @window. */
static AdwMessageDialog *
close_question (StrataWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w) && gtk_window_get_transient_for (w) == GTK_WINDOW (window) &&
          gtk_widget_get_visible (GTK_WIDGET (w)))
        return ADW_MESSAGE_DIALOG (w);
    }
  return NULL;
}

/* The button labelled @label under @widget, as the user would press it. */
static GtkWidget *
find_button (GtkWidget  *widget,
             const char *label)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_button (c, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Whether @window is among the toplevels (compared, not touched: it may
 * be gone). */
static gboolean
is_toplevel (gpointer window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if ((gpointer) w == window)
        return TRUE;
    }
  return FALSE;
}

/* A recording started as the Record action starts one, followed once
 * the window shows it live; then the window is closed and the question
 * answered with @response. */
static void
check_close (const char *response,
             const char *button)
{
  g_autofree char *why = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *output = NULL;
  g_autoptr(StrataRecording) recording = NULL;
  StrataRecordOptions options = { 0 };
  StrataWindow *window;
  AdwMessageDialog *question;
  gpointer alive;   /* the window, until it is finalized */
  int lock;

  if (!strata_test_record_permitted (&why))
    {
      g_test_skip (why);
      return;
    }
  dir = strata_test_tmpdir ();
  output = g_build_filename (dir, "closed.strata", NULL);
  options.output = output;
  options.command = (char *) "while :; do sleep 0.1; done";
  recording = strata_recording_new (&options);
  strata_recording_set_via_pkexec (recording, FALSE);
  strata_recording_set_programs (recording, NULL, g_getenv ("STRATA_CLI"));

  window = strata_window_new (NULL);
  alive = window;
  g_object_add_weak_pointer (G_OBJECT (window), &alive);
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));

  lock = strata_test_record_lock ();
  g_assert_true (strata_window_start_recording (window, recording));
  while (!strata_timeline_view_is_live (strata_window_get_timeline (window)))
    {
      g_assert_null (strata_window_get_record_message (window));
      g_main_context_iteration (NULL, TRUE);
    }

  /* Closing asks, and the window stays, recording, until it is answered. */
  g_assert_null (close_question (window));
  gtk_window_close (GTK_WINDOW (window));
  strata_test_ui_settle ();
  g_assert_true (is_toplevel (window));
  question = close_question (window);
  g_assert_nonnull (question);
  g_assert_true (adw_message_dialog_has_response (question, "keep"));
  g_assert_true (adw_message_dialog_has_response (question, "discard"));
  g_assert_cmpstr (adw_message_dialog_get_close_response (question), ==, "cancel");
  g_assert_cmpstr (adw_message_dialog_get_default_response (question), ==, "keep");
  g_assert_true (strata_recording_is_running (recording));
  /* Closing again while it asks asks nothing more. */
  gtk_window_close (GTK_WINDOW (window));
  strata_test_ui_settle ();
  g_assert_true (is_toplevel (window));
  g_assert_true (close_question (window) == question);
  {
    g_autoptr(GdkTexture) texture = strata_test_ui_render (GTK_WIDGET (question));
    g_autofree char *png = strata_test_ui_save_png (texture, "test-ui-record-close-question");

    g_test_message ("the question: %s", png);
  }

  /* Pressed as the user would: the button answers and closes the question. */
  g_assert_nonnull (find_button (GTK_WIDGET (question), button));
  g_assert_true (gtk_widget_activate (find_button (GTK_WIDGET (question), button)));
  /* A button activated shows itself pressed for a moment before it clicks. */
  while (close_question (window) != NULL)
    g_main_context_iteration (NULL, TRUE);
  strata_test_ui_settle ();

  if (g_str_equal (response, "cancel"))
    {
      /* Still the window, still recording; its Stop ends it as before. */
      g_assert_true (is_toplevel (window));
      g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
      g_assert_null (close_question (window));
      g_assert_true (strata_window_get_recording (window) == recording);
      g_assert_true (strata_recording_is_running (recording));
      gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-open", NULL);
      while (strata_window_get_recording (window) != NULL)
        g_main_context_iteration (NULL, TRUE);
      gtk_window_destroy (GTK_WINDOW (window));
    }
  else
    {
      /* The window is gone from the screen at once; the recorder ends
       * after it, and with it the window's pass following the file,
       * the last to hold the window. */
      g_assert_false (is_toplevel (window));
      while (strata_recording_is_running (recording))
        g_main_context_iteration (NULL, TRUE);
      while (alive != NULL)
        g_main_context_iteration (NULL, TRUE);
    }
  strata_test_record_unlock (lock);
  strata_test_ui_settle ();

  g_assert_false (strata_recording_is_running (recording));
  assert_no_recorder (output);
  if (g_str_equal (response, "discard"))
    g_assert_false (g_file_test (output, G_FILE_TEST_EXISTS));
  else
    {
      /* The whole file: strata-cli exits 2 on one that ends without its footer. */
      const char *args[] = { "info", output, NULL };
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;

      g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
      g_assert_null (strstr (err != NULL ? err : "", "footer"));
    }
}

static void
test_close_keep (void)
{
  check_close ("keep", "_Stop and Keep");
}

static void
test_close_discard (void)
{
  check_close ("discard", "_Discard");
}

static void
test_close_cancel (void)
{
  check_close ("cancel", "_Cancel");
}

int
main (int   argc,
      char *argv[])
{
  strata_test_ui_init (&argc, &argv);

  g_test_add_func ("/ui/record/command-line", test_command_line);
  g_test_add_func ("/ui/record/dialog", test_dialog);
  g_test_add_func ("/ui/record/status", test_status);
  g_test_add_func ("/ui/record/pkexec-absent", test_pkexec_absent);
  g_test_add_func ("/ui/record/pkexec-dismissed", test_pkexec_dismissed);
  g_test_add_func ("/ui/record/pkexec-not-authorized", test_pkexec_not_authorized);
  g_test_add_func ("/ui/record/record-and-stop", test_record_and_stop);
  g_test_add_func ("/ui/record/close-keep", test_close_keep);
  g_test_add_func ("/ui/record/close-discard", test_close_discard);
  g_test_add_func ("/ui/record/close-cancel", test_close_cancel);

  return g_test_run ();
}
