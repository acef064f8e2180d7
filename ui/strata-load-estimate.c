/* strata-load-estimate.c
 *
 * See strata-load-estimate.h. The time left is the time taken so far
 * scaled by what is left of the file over what has been read: the pace of
 * the whole load so far, which is steadier than the last report's. Until
 * something has been read, or while the file's size is not known, there
 * is no estimate and the bar pulses.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "strata-item-info.h"
#include "strata-load-estimate.h"

/* The share of the file read, in [0, 1], or -1 when not known. */
double
strata_load_estimate_fraction (const StrataLoadEstimate *self)
{
  g_return_val_if_fail (self != NULL, -1);

  if (self->bytes_total == 0)
    return -1;
  return CLAMP ((double) self->bytes_read / (double) self->bytes_total, 0.0, 1.0);
}

double
strata_load_estimate_bytes_per_second (const StrataLoadEstimate *self)
{
  g_return_val_if_fail (self != NULL, 0);

  if (self->elapsed_usec <= 0)
    return 0;
  return (double) self->bytes_read * G_USEC_PER_SEC / (double) self->elapsed_usec;
}

/* The time left in microseconds, or -1 when it cannot be told yet. */
gint64
strata_load_estimate_eta_usec (const StrataLoadEstimate *self)
{
  double left;

  g_return_val_if_fail (self != NULL, -1);

  if (self->bytes_total == 0 || self->bytes_read == 0 || self->elapsed_usec <= 0)
    return -1;
  if (self->bytes_read >= self->bytes_total)
    return 0;
  left = (double) self->elapsed_usec * (double) (self->bytes_total - self->bytes_read) /
         (double) self->bytes_read;
  return (gint64) (left + 0.5);
}

/* "5 s", "1 min 20 s", "2 h 5 min": whole seconds, as a wait is said. */
char *
strata_load_estimate_format_eta (gint64 eta_usec)
{
  gint64 s = (eta_usec + G_USEC_PER_SEC / 2) / G_USEC_PER_SEC;

  if (s < 60)
    /* Translators: time left to load, in seconds */
    return g_strdup_printf (_("%d s left"), (int) s);
  if (s < 3600)
    /* Translators: time left to load, in minutes and seconds */
    return g_strdup_printf (_("%d min %02d s left"), (int) (s / 60), (int) (s % 60));
  /* Translators: time left to load, in hours and minutes */
  return g_strdup_printf (_("%d h %02d min left"), (int) (s / 3600), (int) (s / 60 % 60));
}

char *
strata_load_estimate_format (const StrataLoadEstimate *self)
{
  double secs = self->elapsed_usec / (double) G_USEC_PER_SEC;
  double events_rate = secs > 0 ? self->n_events / 1e6 / secs : 0.0;
  gint64 eta = strata_load_estimate_eta_usec (self);
  g_autofree char *covered = strata_format_duration (MAX (self->covered_ns, 0));
  g_autofree char *left = NULL;

  if (strata_load_estimate_fraction (self) < 0)
    /* Translators: progress while reading a trace of unknown size: events,
     * their rate per second, and how much of the trace's time has been read */
    return g_strdup_printf (_("%.2f M events · %.2f M/s · %s read"),
                            self->n_events / 1e6, events_rate, covered);

  left = eta >= 0 ? strata_load_estimate_format_eta (eta) : g_strdup (_("estimating time left"));
  /* Translators: progress while reading a trace: the share of the file
   * read, events, their rate per second, megabytes read per second, and
   * the time left at that pace */
  return g_strdup_printf (_("%.0f %% · %.2f M events · %.2f M/s · %.1f MB/s · %s"),
                          100 * strata_load_estimate_fraction (self), self->n_events / 1e6,
                          events_rate, strata_load_estimate_bytes_per_second (self) / 1e6, left);
}
