/* strata-thread-rows.h
 *
 * The statistics' thread rows in their order (longest running first) for
 * the index, in bounded memory: a row per thread that ever lived is 112
 * bytes, 121 MB for the million short-lived threads of 20M generated
 * events of thread churn. Past a budget the rows go to an unlinked spill
 * file in sorted runs, merged as the index's section is written.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-trace-stats.h"

G_BEGIN_DECLS

typedef struct _StrataThreadRows StrataThreadRows;

/* Rows in order, a batch at a time; FALSE stops the walk. */
typedef gboolean (*StrataThreadRowsFunc) (const StrataThreadStats *rows,
                                          gsize                    n,
                                          gpointer                 user_data);

StrataThreadRows *strata_thread_rows_new        (guint64                  budget);
void              strata_thread_rows_free       (StrataThreadRows        *self);
void              strata_thread_rows_add        (StrataThreadRows        *self,
                                                 const StrataThreadStats *row);
void              strata_thread_rows_finish     (StrataThreadRows        *self);
guint64           strata_thread_rows_get_count  (StrataThreadRows        *self);
guint             strata_thread_rows_get_n_runs (StrataThreadRows        *self);
gboolean          strata_thread_rows_foreach    (StrataThreadRows        *self,
                                                 StrataThreadRowsFunc     func,
                                                 gpointer                 user_data,
                                                 GError                 **error);
gboolean          strata_thread_rows_into_array (StrataThreadRows        *self,
                                                 GArray                  *threads,
                                                 GError                 **error);

int               strata_thread_stats_compare   (const StrataThreadStats *a,
                                                 const StrataThreadStats *b);
void              strata_thread_stats_sort      (StrataThreadStats       *rows,
                                                 guint                    n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataThreadRows, strata_thread_rows_free)

G_END_DECLS
