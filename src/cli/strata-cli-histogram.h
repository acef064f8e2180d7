/* strata-cli-histogram.h
 *
 * `strata-cli stats --histogram`: the wakeup latency and run-slice
 * histograms (strata-histogram.h) of the threads over a range, as text
 * bars or JSON.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata.h"
#include "strata-json-writer.h"

G_BEGIN_DECLS

void strata_cli_histograms_compute (StrataTrace      *trace,
                                    gint32            tid,
                                    gint64            from,
                                    gint64            to,
                                    StrataHistogram   out[STRATA_N_HISTOGRAMS]);
void strata_cli_histograms_print   (const StrataHistogram histograms[STRATA_N_HISTOGRAMS]);
void strata_cli_histograms_json    (const StrataHistogram histograms[STRATA_N_HISTOGRAMS],
                                    StrataJsonWriter     *w);

G_END_DECLS
