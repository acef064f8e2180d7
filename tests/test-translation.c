/* test-translation.c
 *
 * The gettext machinery works end to end: po/de.po, compiled by the build
 * into po/de/LC_MESSAGES/strata.mo, is what the application's own strings
 * come out as when the user's language is German, and every message of
 * the catalogue is translated.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "strata-item-info.h"
#include "strata-test-support.h"

static void
test_german_strings (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataItemInfo) info = NULL;
  StrataZoomParams params;

  g_assert_cmpstr (strata_task_state_display_name (STRATA_TASK_STATE_RUNNING), ==, "Läuft");
  g_assert_cmpstr (strata_task_state_display_name (STRATA_TASK_STATE_UNINTERRUPTIBLE), ==, "Nicht unterbrechbar");
  g_assert_cmpstr (g_dngettext (GETTEXT_PACKAGE, "%u row", "%u rows", 3), ==, "%u Zeilen");

  /* The panel's fields, for a CPU row of a real trace. */
  strata_zoom_params_init (&params);
  trace = strata_test_load_full (path, FALSE, NULL, NULL, NULL, &params, NULL, NULL, &error);
  g_assert_no_error (error);
  info = strata_item_info_new_for_row (trace, 0);
  g_assert_nonnull (strata_item_info_get (info, "Kontextwechsel"));
  g_assert_null (strata_item_info_get (info, "Context switches"));
}

/* msgfmt's own count: a complete translation has nothing untranslated or
 * fuzzy. */
static void
test_catalogue_complete (void)
{
  const char *po = g_getenv ("STRATA_DE_PO");
  g_autofree char *cmd = NULL;
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;

  g_assert_nonnull (po);
  cmd = g_strdup_printf ("env LANGUAGE=C LC_ALL=C msgfmt --check --statistics -o /dev/null '%s'", po);
  g_assert_true (g_spawn_command_line_sync (cmd, &out, &err, &wait_status, NULL));
  g_assert_true (g_spawn_check_wait_status (wait_status, NULL));
  g_assert_nonnull (strstr (err, "translated message"));
  g_assert_null (strstr (err, "untranslated"));
  g_assert_null (strstr (err, "fuzzy"));
}

int
main (int    argc,
      char **argv)
{
  const char *dir = g_getenv ("STRATA_LOCALEDIR");

  g_assert_nonnull (dir);
  g_setenv ("LANGUAGE", "de", TRUE);
  setlocale (LC_ALL, "C.UTF-8");
  bindtextdomain (GETTEXT_PACKAGE, dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/translation/german-strings", test_german_strings);
  g_test_add_func ("/strata/translation/catalogue-complete", test_catalogue_complete);
  return g_test_run ();
}
