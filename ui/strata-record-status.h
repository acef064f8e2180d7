/* strata-record-status.h
 *
 * The status line of a recording being followed: how long it has run
 * (in the recording's own time), events per second over the last second
 * of it, the file's size; and the lost events, said apart because they
 * matter (the window shows them prominently).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *strata_record_status_format (gint64  elapsed_ns,
                                   double  events_per_s,
                                   guint64 bytes);
char *strata_record_status_lost   (guint64 n_lost);

G_END_DECLS
