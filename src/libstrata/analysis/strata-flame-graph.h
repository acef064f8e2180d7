/* strata-flame-graph.h
 *
 * A flame graph of a trace's samples: the call chains of the samples in a
 * time range (of one thread or process, of one event) merged into a tree
 * of frames, the outermost at the root, each frame with the samples in
 * it or below (total) and in it alone (self); and the same as "folded"
 * stacks, one line per distinct stack with its count, the format
 * flamegraph.pl, inferno and speedscope read.
 *
 * Samples are the SAMPLE activities of the kernel model (perf.data's
 * cpu-clock, cycles ...; idle is not among them: the model keeps samples
 * only on threads' rows); their call chains and symbols are the source's,
 * so a StrataSampleSet keeps the trace it read them with.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-trace.h"

G_BEGIN_DECLS

typedef struct _StrataSampleSet StrataSampleSet;

StrataSampleSet *strata_sample_set_load      (const char            *path,
                                              GCancellable          *cancellable,
                                              GError               **error);
StrataSampleSet *strata_sample_set_ref       (StrataSampleSet       *self);
void             strata_sample_set_unref     (StrataSampleSet       *self);
StrataTrace     *strata_sample_set_get_trace (StrataSampleSet       *self);
guint            strata_sample_set_get_size  (StrataSampleSet       *self);
GPtrArray       *strata_sample_set_list_events (StrataSampleSet     *self);

typedef struct
{
  gint64      from;          /* samples in [from, to) */
  gint64      to;
  gint32      tid;           /* one thread, or -1 */
  gint32      pid;           /* one process, or -1 */
  const char *event;         /* samples of this event only ("cycles", or a tracepoint
                              * recorded with its call chain, "sched_switch"), "*" for
                              * every sample, or NULL for the samples of the CPU (no
                              * tracepoint's) */
  gboolean    thread_root;   /* each stack starts with its thread's name */
  gboolean    addresses;     /* frames as their addresses ("0x7f1c2a3b4c5d"), unnamed */
} StrataFlameFilter;

void strata_flame_filter_init (StrataFlameFilter *filter);

#define STRATA_FLAME_NONE G_MAXUINT32

typedef struct
{
  const char *name;
  guint32     parent;         /* STRATA_FLAME_NONE for the root */
  guint32     first_child;    /* children, the most samples first */
  guint32     next_sibling;
  guint32     depth;          /* 0 for the root, which holds every sample */
  guint64     total;          /* samples in this frame or below it */
  guint64     self;           /* samples whose innermost frame it is */
} StrataFlameNode;

typedef struct _StrataFlameGraph StrataFlameGraph;

StrataFlameGraph      *strata_flame_graph_new        (StrataSampleSet         *samples,
                                                      const StrataFlameFilter *filter);
void                   strata_flame_graph_free       (StrataFlameGraph        *self);
const StrataFlameNode *strata_flame_graph_get_nodes  (StrataFlameGraph        *self,
                                                      guint                   *n_nodes);
guint64                strata_flame_graph_get_without_chain (StrataFlameGraph *self);
guint32                strata_flame_graph_get_max_depth     (StrataFlameGraph *self);
char                  *strata_flame_graph_to_folded  (StrataFlameGraph        *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataSampleSet, strata_sample_set_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataFlameGraph, strata_flame_graph_free)

G_END_DECLS
