/* strata-load-estimate.h
 *
 * How far a trace's load has gone and how long it has left: the share of
 * the file its events have come from (StrataTraceProgress's bytes read
 * against the file's size), the rates of events and bytes since the load
 * began, and the time left at that pace. What the window's progress bar
 * and its label show while the index is built.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gint64  elapsed_usec;  /* since the load began */
  guint64 n_events;
  guint64 bytes_read;
  guint64 bytes_total;   /* 0 when the size is not known */
  gint64  covered_ns;    /* how much of the trace's time has been read */
} StrataLoadEstimate;

double  strata_load_estimate_fraction  (const StrataLoadEstimate *self);
gint64  strata_load_estimate_eta_usec  (const StrataLoadEstimate *self);
double  strata_load_estimate_bytes_per_second (const StrataLoadEstimate *self);
char   *strata_load_estimate_format_eta (gint64                   eta_usec);
char   *strata_load_estimate_format    (const StrataLoadEstimate *self);

G_END_DECLS
