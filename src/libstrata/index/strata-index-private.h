/* strata-index-private.h
 *
 * What the index's files share: a trace opened from a map already made
 * (the reader's entry point, which the fuzzer calls with bytes in
 * memory).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-index.h"
#include "strata-index-map.h"
#include "strata-thread-rows.h"

G_BEGIN_DECLS

StrataTrace    *strata_index_open_map     (StrataIndexMap             *map,
                                           const char                 *index_path,
                                           const StrataSourceIdentity *identity,
                                           const StrataZoomParams     *params,
                                           GError                    **error);

/* strata_index_write_with_parameters(), the statistics' thread rows
 * from @thread_rows (strata_stats_builder_finish_to_rows()) if given. */
gboolean strata_index_write_full (StrataTrace                *trace,
                                  StrataThreadRows           *thread_rows,
                                  const StrataSourceIdentity *identity,
                                  const char                 *index_path,
                                  const StrataParameters     *parameters,
                                  GError                    **error);

G_END_DECLS
