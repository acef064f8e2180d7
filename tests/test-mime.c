/* test-mime.c
 *
 * The MIME types in data/org.strata.Strata.mime.xml sniff the same files
 * Strata's own readers recognise: shared-mime-info's update-mime-database
 * compiles our description into a private data folder, GIO guesses each
 * fixture's type from its bytes alone (no file name), and the result must
 * name the format the plugin registry picks for the same file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gio/gio.h>

#include "strata-test-support.h"

static char *data_home;

static const struct {
  const char *fixture;
  const char *mime;
  const char *format;
} cases[] = {
  { "sched-small.dat",      "application/x-trace-cmd", "trace.dat" },
  { "sched-tgid.dat",       "application/x-trace-cmd", "trace.dat" },
  { "instances.dat",        "application/x-trace-cmd", "trace.dat" },
  { "sched-small-v6.dat.xz", "application/x-trace-cmd", "trace.dat" },
  { "sched-small.txt",      "text/x-ftrace",           "ftrace text" },
  { "lossy.txt",            "text/x-ftrace",           "ftrace text" },
  { "ebpf-sched.strata.xz", "application/x-strata-recording", "strata eBPF" },
};

static void
test_sniffing_agrees_with_readers (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = strata_test_fixture (cases[i].fixture);
      g_autofree char *contents = NULL;
      g_autofree char *type = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(StrataSource) source = NULL;
      gboolean uncertain = TRUE;
      gsize len;

      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      type = g_content_type_guess (NULL, (const guchar *) contents, MIN (len, 4096), &uncertain);
      g_assert_cmpstr (type, ==, cases[i].mime);
      g_assert_false (uncertain);

      source = strata_source_open (path, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (strata_source_get_info (source)->format, ==, cases[i].format);
    }
}

/* And a file that is none of them is not taken for one. */
static void
test_other_files_are_not_traces (void)
{
  const char *text = "hello, not a trace\n";
  g_autofree char *type = g_content_type_guess (NULL, (const guchar *) text, strlen (text), NULL);

  g_assert_false (g_content_type_equals (type, "text/x-ftrace"));
  g_assert_false (g_content_type_equals (type, "application/x-trace-cmd"));
  g_assert_false (g_content_type_equals (type, "application/x-perf-data"));
  g_assert_true (g_content_type_is_a ("text/x-ftrace", "text/plain"));
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *packages = NULL;
  g_autofree char *dest = NULL;
  g_autofree char *cmd = NULL;
  g_autofree char *mime_dir = NULL;
  const char *xml = g_getenv ("STRATA_MIME_XML");
  int status, wait_status = 0;

  g_assert_nonnull (xml);

  /* Before anything asks GIO for the user's data folder. */
  data_home = g_dir_make_tmp ("strata-mime-XXXXXX", NULL);
  g_assert_nonnull (data_home);
  mime_dir = g_build_filename (data_home, "mime", NULL);
  packages = g_build_filename (mime_dir, "packages", NULL);
  g_assert_cmpint (g_mkdir_with_parents (packages, 0700), ==, 0);
  dest = g_build_filename (packages, "org.strata.Strata.mime.xml", NULL);
  {
    g_autofree char *contents = NULL;
    gsize len;

    g_assert_true (g_file_get_contents (xml, &contents, &len, NULL));
    g_assert_true (g_file_set_contents (dest, contents, len, NULL));
  }
  cmd = g_strdup_printf ("update-mime-database '%s'", mime_dir);
  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &wait_status, NULL));
  g_assert_true (g_spawn_check_wait_status (wait_status, NULL));
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);

  g_test_init (&argc, &argv, NULL);
  strata_source_ensure_builtin ();
  g_test_add_func ("/strata/mime/sniffing-agrees-with-readers", test_sniffing_agrees_with_readers);
  g_test_add_func ("/strata/mime/other-files-are-not-traces", test_other_files_are_not_traces);
  status = g_test_run ();

  {
    g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", data_home);
    g_spawn_command_line_sync (rm, NULL, NULL, NULL, NULL);
  }
  g_free (data_home);
  return status;
}
