/* strata-test-support.h
 *
 * Shared by the test suites: finding (and unpacking) fixtures, reading all
 * events of a file, and asking trace-cmd for its view of the same file so
 * tests can compare two independent readers; two statistics compared.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata.h"

G_BEGIN_DECLS

void        strata_test_assert_stats_equal (const StrataStats *a,
                                            const StrataStats *b);
char       *strata_test_fixture            (const char        *name);
char       *strata_test_tmpdir             (void);
GBytes     *strata_test_fixture_bytes      (const char        *name);
StrataTrace *strata_test_load_with_tree    (const char        *name);
StrataTrace *strata_test_load              (const char        *path,
                                            GError           **error);
StrataTrace *strata_test_load_full         (const char              *path,
                                            gboolean                 keep,
                                            StrataActivityFunc       sink,
                                            StrataChannelCloseFunc   close_sink,
                                            gpointer                 sink_data,
                                            const StrataZoomParams  *params,
                                            StrataTraceProgressFunc  progress,
                                            gpointer                 progress_data,
                                            GError                 **error);
StrataTrace *strata_test_load_in_memory    (const char              *path,
                                            const StrataZoomParams  *params,
                                            GError                 **error);
StrataTrace *strata_test_load_index        (const char                *path,
                                            const StrataZoomParams    *params,
                                            const StrataIndexOptions  *options,
                                            GError                   **error);
char       *strata_test_write_tmp          (const char        *name,
                                            const guint8      *data,
                                            gsize              len);
gboolean    strata_test_have_program       (const char        *program);
GArray     *strata_test_read_events        (const char        *path,
                                            StrataSource     **source_out,
                                            GError           **error);
GHashTable *strata_test_trace_cmd_counts   (const char        *path,
                                            const char        *instance);
GHashTable *strata_test_event_counts       (StrataSource      *source,
                                            GArray            *events,
                                            guint16            instance);

int         strata_test_run_cli            (const char * const   *args,
                                            char                **out,
                                            char                **err);
GArray     *strata_test_brute_force_chunk  (const StrataActivity *all,
                                            gsize                 n,
                                            guint32               channel,
                                            gint64                s,
                                            gint64                e,
                                            gint64                pixel);
/* A tree growing up to @h, as the tests of its open chunks make it: the
 * activities of @all ending after @h that have begun by then, cut at @h
 * and flagged as the model flags what is going on, appended to @open by
 * channel (as the tree keeps them). */
void        strata_test_open_at            (const StrataActivity *all,
                                            gsize                 n,
                                            gint64                h,
                                            GArray               *open);
/* The first of @open's activities of @channel, and how many there are. */
const StrataActivity *
            strata_test_channel_open       (GArray               *open,
                                            guint32               channel,
                                            guint                *n_open);
/* The items of @items that overlap [@from, @to), in their order. */
GArray     *strata_test_items_in_window    (GArray               *items,
                                            gint64                from,
                                            gint64                to);
/* Sorts @acts in the order they complete, as the tree publishes them. */
void        strata_test_sort_by_end        (GArray               *acts);
guint       strata_test_v6_cpus            (const guint8         *data,
                                            gsize                 len,
                                            guint64              *offsets,
                                            guint64              *sizes,
                                            guint                 max);

/* Fails the test unless @a and @b hold the same rectangles (to the bit)
 * and labels in the same order, and the same counts of items and folded
 * items at the same level. */
void strata_test_assert_same_display_lists (const StrataDisplayList *a,
                                            const StrataDisplayList *b);

/* A painter over @tree for the activities @acts it was built from: every
 * channel a row, of the kind its activities give it; @channels (of
 * StrataChannel) is filled and must outlive it. */
StrataPainter *strata_test_painter_for_stream (StrataZoomTree   *tree,
                                               StrataStringPool *pool,
                                               const GArray     *acts,
                                               GArray           *channels,
                                               gint64           *start,
                                               gint64           *end);

G_END_DECLS
