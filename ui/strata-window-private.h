/* strata-window-private.h
 *
 * What the UI tests reach inside a StrataWindow: the loading progress, as
 * the worker's reports are shown, without a worker to race with.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-load-estimate.h"
#include "strata-recording.h"
#include "strata-window.h"

G_BEGIN_DECLS

void strata_window_show_load_estimate (StrataWindow             *self,
                                       const StrataLoadEstimate *estimate);

gboolean         strata_window_start_recording    (StrataWindow    *self,
                                                   StrataRecording *recording);
const char      *strata_window_get_record_message (StrataWindow    *self);
StrataRecording *strata_window_get_recording      (StrataWindow    *self);

G_END_DECLS
