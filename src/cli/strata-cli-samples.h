/* strata-cli-samples.h
 *
 * The top functions of a trace's samples (perf cpu-clock, cycles ...) in a
 * time range, for `strata-cli stats`: samples are collected as the trace
 * streams past, and only the call chains that fall in the range are
 * symbolized, once each.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata.h"
#include "strata-json-writer.h"

G_BEGIN_DECLS

typedef struct _StrataCliSamples StrataCliSamples;

StrataCliSamples *strata_cli_samples_new     (void);
void              strata_cli_samples_free    (StrataCliSamples     *self);
void              strata_cli_samples_add     (StrataCliSamples     *self,
                                              const StrataActivity *activity);
void              strata_cli_samples_resolve (StrataCliSamples     *self,
                                              StrataTrace          *trace,
                                              gint64                from,
                                              gint64                to,
                                              guint                 top);
void              strata_cli_samples_print   (StrataCliSamples     *self);
void              strata_cli_samples_json    (StrataCliSamples     *self,
                                              StrataJsonWriter     *w);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataCliSamples, strata_cli_samples_free)

G_END_DECLS
