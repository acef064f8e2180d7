/* strata-trace-private.h
 *
 * The one pass over a source (the loader runs it), a trace made from
 * parts (what the index reader read back), and the statistics a trace is
 * given after its pass.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-index-map.h"
#include "strata-kernel-model.h"
#include "strata-trace.h"

G_BEGIN_DECLS

/* What an index gives back of a trace: the pass's findings without the
 * pass. */
typedef struct
{
  StrataSourceInfo *info;          /* taken */
  StrataStringPool *strings;       /* taken */
  GArray           *channels;      /* StrataChannel, taken; or NULL, and: */
  const StrataChannel *mapped_channels;  /* read in place ... */
  guint             n_mapped_channels;
  StrataIndexMap   *channels_map;  /* ... in this map, taken */
  GArray           *switches;      /* guint64, taken; channels past it have none */
  GArray           *event_counts;  /* StrataEventCount, taken */
  guint64           n_events;
  gint64            start;
  gint64            end;
  GError           *damage;        /* taken */
  StrataZoomTree   *tree;          /* taken */
  StrataStats      *stats;         /* taken; its threads NULL until asked for: */
  const StrataThreadStats *thread_rows;  /* ... these, in stats_map, not */
  gsize             n_thread_rows;         /* yet checked against ... */
  guint64           thread_rows_checksum;  /* ... their checksum */
  StrataIndexMap   *stats_map;     /* taken */
  char             *index_path;    /* taken */
} StrataTraceParts;

StrataTrace *strata_trace_new_from_parts (StrataTraceParts *parts);

/* One pass over a source: what it keeps, builds and tells. */
typedef struct
{
  gboolean                 keep_activities;
  StrataActivityFunc       sink;          /* each activity as the model completes it */
  StrataChannelCloseFunc   close_sink;    /* each channel the model closes (a thread that exited) */
  gpointer                 sink_data;
  const StrataZoomParams  *params;        /* the zoom tree's, or NULL for none */
  StrataTraceProgressFunc  progress;
  gpointer                 progress_data;
  gboolean                 debug_memory;
  /* Follow a file still being written, where the source can (its
   * "follow" property): an empty batch is then "nothing more yet" until
   * the source says the file is over; @cancellable ends the wait. */
  gboolean                 follow;
  GCancellable            *cancellable;
} StrataTracePass;

StrataTrace *strata_trace_read           (const char            *path,
                                          const StrataTracePass *pass,
                                          GError               **error);
void         strata_trace_set_stats      (StrataTrace      *self,
                                          StrataStats      *stats);
const guint64 *strata_trace_peek_context_switches (StrataTrace *self,
                                                   guint       *n_channels);
void         strata_trace_let_go_channels (StrataTrace *self);
/* Channels a loop over them reads between two strata_trace_let_go_channels(). */
#define STRATA_TRACE_LET_GO_EVERY (1u << 16)
void         strata_source_info_free     (StrataSourceInfo *info);

G_END_DECLS
