/* strata-test-streams.h
 *
 * Generated activity streams for the zoom-tree tests and benchmarks:
 * dense, sparse, bursty, thousands of threads, long sleeps. A stream is a
 * set of lanes (a channel at one depth, or its instants), each a sequence
 * of non-overlapping activities with random lengths and gaps, merged into
 * start order as the kernel model's output would be after sorting. It is
 * generated as it is read, so a stream of 100M activities costs no memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata.h"

G_BEGIN_DECLS

typedef enum
{
  STRATA_TEST_STREAM_DENSE,
  STRATA_TEST_STREAM_SPARSE,
  STRATA_TEST_STREAM_BURSTY,
  STRATA_TEST_STREAM_MANY_THREADS,
  STRATA_TEST_STREAM_LONG_SLEEPS,
  STRATA_TEST_STREAM_MIXED,
  STRATA_TEST_N_STREAMS
} StrataTestStreamKind;

typedef struct _StrataTestStream StrataTestStream;

const char       *strata_test_stream_kind_name (StrataTestStreamKind  kind);
StrataTestStream *strata_test_stream_new       (StrataTestStreamKind  kind,
                                                guint64               n_activities,
                                                guint32               seed);
gboolean          strata_test_stream_next      (StrataTestStream     *self,
                                                StrataActivity       *out);
guint             strata_test_stream_get_n_channels (StrataTestStream *self);
void              strata_test_stream_free      (StrataTestStream     *self);
GArray           *strata_test_stream_collect   (StrataTestStreamKind  kind,
                                                guint64               n_activities,
                                                guint32               seed);
void              strata_test_stream_build     (StrataZoomTree       *tree,
                                                const StrataActivity *activities,
                                                gsize                 n);

/* A channel that closes after activity @after of a stream, at @t. */
typedef struct
{
  gsize   after;
  guint32 channel;
  gint64  t;
} StrataTestClose;

GArray           *strata_test_process_churn    (guint                 n_threads,
                                                guint                 every,
                                                guint                *n_channels,
                                                GArray              **closes);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataTestStream, strata_test_stream_free)

G_END_DECLS
