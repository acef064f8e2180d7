/* main.c
 *
 * `strata [TRACE...]`: the GNOME application. Without a session bus (a
 * bare X server, a test) the instance runs on its own instead of failing
 * to register.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "strata-application.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(StrataApplication) app = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  GApplicationFlags flags = G_APPLICATION_DEFAULT_FLAGS;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  if (bus == NULL)
    flags |= G_APPLICATION_NON_UNIQUE;

  g_set_application_name (_("Strata"));
  app = strata_application_new (flags);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
