/* strata-window-private.h
 *
 * What the UI tests reach inside a StrataWindow: the loading progress, as
 * the worker's reports are shown, without a worker to race with.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-load-estimate.h"
#include "strata-window.h"

G_BEGIN_DECLS

void strata_window_show_load_estimate (StrataWindow             *self,
                                       const StrataLoadEstimate *estimate);

G_END_DECLS
