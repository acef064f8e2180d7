/* strata-record-status.c
 *
 * Plain formatting, kept out of the window so a test reads it without
 * one.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "strata-record-status.h"

char *
strata_record_status_format (gint64  elapsed_ns,
                             double  events_per_s,
                             guint64 bytes)
{
  gint64 s = MAX (elapsed_ns, 0) / G_GINT64_CONSTANT (1000000000);
  g_autofree char *size = g_format_size (bytes);
  g_autofree char *rate = events_per_s >= 1e6 ? g_strdup_printf ("%.1f M ", events_per_s / 1e6)
                        : events_per_s >= 1e3 ? g_strdup_printf ("%.1f k ", events_per_s / 1e3)
                        : g_strdup_printf ("%.0f ", events_per_s);

  /* Translators: a recording's status: elapsed (h:mm:ss), events per
   * second ("12.3 k"), the file's size */
  return g_strdup_printf (_("Recording · %" G_GINT64_FORMAT ":%02d:%02d · %sevents/s · %s"),
                          s / 3600, (int) (s / 60 % 60), (int) (s % 60), rate, size);
}

char *
strata_record_status_lost (guint64 n_lost)
{
  if (n_lost == 0)
    return g_strdup (_("none lost"));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%" G_GUINT64_FORMAT " event lost",
                                       "%" G_GUINT64_FORMAT " events lost", n_lost), n_lost);
}
