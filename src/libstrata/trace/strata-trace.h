/* strata-trace.h
 *
 * A trace as Strata knows it after one pass: the source's description of
 * itself, the channels and activities of the kernel model, and the number of
 * events of each type. Loading keeps whatever was readable before damage in
 * the file and says where the damage is.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "strata-activity.h"
#include "strata-source.h"
#include "strata-spilled-array.h"
#include "strata-string-pool.h"
#include "strata-trace-stats.h"
#include "strata-zoom-tree.h"

G_BEGIN_DECLS

#define STRATA_TYPE_TRACE (strata_trace_get_type ())

G_DECLARE_FINAL_TYPE (StrataTrace, strata_trace, STRATA, TRACE, GObject)

typedef struct
{
  guint32 name;    /* pool id of the event name */
  guint64 count;
} StrataEventCount;

/* What a load has done so far, handed to a StrataTraceProgressFunc on the
 * loading thread after each batch of events (strata-loader.h). The trace is the one the
 * load will return, still growing: its zoom tree and string pool can be
 * read from any thread (take a reference to keep them), its channels are
 * known only at the end, so the ones found so far are given here. */
typedef struct
{
  StrataTrace         *trace;
  StrataZoomTree      *tree;        /* the trace's, or NULL */
  const StrataChannel *channels;    /* valid during the call only */
  guint                n_channels;
  /* What changed since the last report: channels[n_before ..] are new
   * (n_before is the last report's n_channels, 0 the first time), and
   * changed[] are the ids below n_before whose fields changed (a name at
   * exec, a process, an end), in order, an id maybe more than once. A
   * table kept from the reports by appending the new channels and
   * copying the changed ones equals channels[] (valid during the call). */
  guint                n_before;
  const guint32       *changed;
  guint                n_changed;
  guint64              n_events;
  gint64               start;       /* the first event's time, G_MAXINT64 before one */
  gint64               horizon;     /* every activity before this is complete */
  guint64              bytes_read;  /* of the file: where its events are, or for
                                     * compressed data the reader's position */
  guint64              bytes_total; /* the file's size; 0 when not known */
  guint64              n_lost;      /* events the recorder says it lost, so far */
  gboolean             growing;     /* followed, the file has been waited for: it
                                     * is being written (a recording in progress) */
} StrataTraceProgress;

/* Returns FALSE to stop: the load then fails with G_IO_ERROR_CANCELLED. */
typedef gboolean (*StrataTraceProgressFunc) (const StrataTraceProgress *progress,
                                             gpointer                   user_data);

StrataZoomTree         *strata_trace_get_zoom_tree       (StrataTrace    *self);
StrataSource           *strata_trace_get_source          (StrataTrace    *self);
const StrataSourceInfo *strata_trace_get_info            (StrataTrace    *self);
StrataStringPool       *strata_trace_get_strings         (StrataTrace    *self);
const char             *strata_trace_get_string          (StrataTrace    *self,
                                                          guint32         id);
const StrataChannel    *strata_trace_get_channels        (StrataTrace    *self,
                                                          guint          *n_channels);
const StrataActivity   *strata_trace_get_activities      (StrataTrace    *self,
                                                          gsize          *n_activities);
const StrataEventCount *strata_trace_get_event_counts    (StrataTrace    *self,
                                                          guint          *n_counts);
guint64                 strata_trace_get_n_events        (StrataTrace    *self);
guint64                 strata_trace_get_context_switches (StrataTrace   *self,
                                                           guint          channel);
gint64                  strata_trace_get_start           (StrataTrace    *self);
gint64                  strata_trace_get_end             (StrataTrace    *self);
const GError           *strata_trace_get_damage          (StrataTrace    *self);
const StrataStats      *strata_trace_get_stats           (StrataTrace    *self);
const char             *strata_trace_get_index_path      (StrataTrace    *self);
const char             *strata_trace_get_index_damage    (StrataTrace    *self);

gboolean                strata_trace_is_loading          (StrataTrace    *self);
void                    strata_trace_set_live            (StrataTrace        *self,
                                                          StrataSpilledArray *channels,
                                                          gint64              start,
                                                          gint64              horizon);

G_END_DECLS
