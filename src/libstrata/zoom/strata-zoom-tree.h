/* strata-zoom-tree.h
 *
 * The zoom tree of the seed, built in one pass over a stream of activities:
 * the buffer former cuts the stream into adjacent buffers, one event
 * aggregator per zoom level consumes every buffer and pre-calculates the
 * chunks of its level where the chunking criterion finds the data dense,
 * and the raw store keeps every activity so sparse regions are computed on
 * demand. A query is served from at most two chunks of one level.
 *
 * The tree can be queried while it is being built, from another thread:
 * finished chunks never change and the growing edge is computed on demand.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-activity.h"
#include "strata-aggregator.h"
#include "strata-parameters.h"
#include "strata-raw-store.h"
#include "strata-zoom-geometry.h"

G_BEGIN_DECLS

/* The seed's buffer formulation criteria. */
typedef enum
{
  /* Look ahead T activities and cut at the end of the coarsest chunk that
   * starts the buffer and fits inside them (seed, "buffer formulation"). */
  STRATA_BUFFER_ADAPTIVE,
  /* Buffers of a fixed time interval, aligned to multiples of it. */
  STRATA_BUFFER_FIXED_INTERVAL,
  /* Buffers of a fixed number of activity starts. */
  STRATA_BUFFER_FIXED_COUNT,
} StrataBufferCriterion;

typedef struct
{
  guint                 zoom_factor;        /* F, a power of two */
  guint                 pixels_per_chunk;   /* W, a power of two */
  guint                 density_threshold;  /* T */
  StrataBufferCriterion buffer_criterion;
  gint64                buffer_interval;    /* ns, for FIXED_INTERVAL */
  guint                 buffer_count;       /* for FIXED_COUNT */
  guint                 min_reduction;      /* store a dense chunk whole if it has at most
                                             * 1/min_reduction items per member, else its
                                             * channels that have; 1 stores all */
  gboolean              pipelined;          /* the levels in a thread of their own, behind the
                                             * buffer former (adaptive buffers, one aggregator) */
  const StrataParameters *parameters;       /* how the tree holds what it builds (copied by
                                             * strata_zoom_tree_new()); NULL: the environment's */
} StrataZoomParams;

typedef struct _StrataZoomTree StrataZoomTree;

/* A chunk the aggregators pre-calculated. */
typedef struct
{
  guint  level;
  gint64 index;
  gint64 start;
  gint64 end;
  guint  n_items;
  guint  n_channels;
  gsize  size;        /* bytes */
  gboolean at_end;    /* a first chunk, computed from the raw store at the end */
} StrataZoomChunkInfo;

/* One channel's items in one chunk, as a query found them: in place in a
 * pre-calculated chunk, or computed on demand into the query's result. */
typedef struct
{
  guint32               channel;
  guint32               n_items;
  gint64                chunk;    /* its index at the queried level */
  const StrataZoomItem *items;
} StrataZoomSpan;

typedef struct _StrataZoomResult StrataZoomResult;

/* How the last query was served. */
typedef struct
{
  guint n_chunks;             /* chunks of the level it touched (at most 2 for one screen) */
  guint n_precomputed;        /* of which were pre-calculated */
  guint n_on_demand;          /* channel x chunk parts computed from the raw store */
  guint n_cut;                /* pre-calculated spans answered in part: what can be in view */
  guint n_decoded;            /* blocks of spilled or mapped chunks decoded, not kept from the last query */
} StrataZoomQueryStats;

/* Each buffer the former delivers, and the stack of active aggregators
 * over it: ranks 0 .. stack_rank - 1 are dense there. Ranks are the levels
 * of strata_zoom_tree_get_rank_geometry(), fixed before the trace's length
 * is known; strata_zoom_tree_level_of_rank() maps one to a level. */
typedef void (*StrataZoomBufferFunc) (gint64   start,
                                      gint64   end,
                                      guint    n_pieces,
                                      guint    stack_rank,
                                      gpointer user_data);

/* strata_kernel_model_foreach_open() has this shape. */
typedef void (*StrataForeachOpenFunc) (gpointer           source,
                                       StrataActivityFunc func,
                                       gpointer           user_data);

void            strata_zoom_params_init         (StrataZoomParams       *params);
StrataZoomTree *strata_zoom_tree_new            (const StrataZoomParams *params,
                                                 GError                **error);
void            strata_zoom_tree_free           (StrataZoomTree         *self);
void            strata_zoom_tree_set_buffer_func (StrataZoomTree        *self,
                                                  StrataZoomBufferFunc   func,
                                                  gpointer               user_data);
void            strata_zoom_tree_set_span_hint  (StrataZoomTree         *self,
                                                 gint64                  first,
                                                 gint64                  last);

void            strata_zoom_tree_add            (const StrataActivity   *activity,
                                                 gpointer                tree);
void            strata_zoom_tree_advance        (StrataZoomTree         *self,
                                                 gint64                  horizon,
                                                 StrataForeachOpenFunc   foreach_open,
                                                 gpointer                source);
void            strata_zoom_tree_close_channel  (StrataZoomTree         *self,
                                                 guint32                 channel,
                                                 gint64                  t);
void            strata_zoom_tree_finish         (StrataZoomTree         *self);
gboolean        strata_zoom_tree_is_finished    (StrataZoomTree         *self);

const StrataZoomParams *strata_zoom_tree_get_params (StrataZoomTree     *self);
gboolean        strata_zoom_tree_get_geometry   (StrataZoomTree         *self,
                                                 StrataZoomGeometry     *geometry);
guint           strata_zoom_tree_level_of_rank  (StrataZoomTree         *self,
                                                 guint                   rank);
void            strata_zoom_tree_get_rank_geometry (StrataZoomTree      *self,
                                                    StrataZoomGeometry  *geometry);
StrataRawStore *strata_zoom_tree_get_raw_store  (StrataZoomTree         *self);
guint64         strata_zoom_tree_get_n_buffers  (StrataZoomTree         *self);
GArray         *strata_zoom_tree_list_chunks    (StrataZoomTree         *self,
                                                 guint                   level);
guint           strata_zoom_tree_get_n_plain_chunks (StrataZoomTree     *self,
                                                     guint               level);
gboolean        strata_zoom_tree_get_chunk_items (StrataZoomTree        *self,
                                                  guint                  level,
                                                  gint64                 index,
                                                  guint32                channel,
                                                  GArray                *out);
gsize           strata_zoom_tree_get_size       (StrataZoomTree         *self);

void            strata_zoom_tree_get_members    (StrataZoomTree         *self,
                                                 const StrataZoomItem   *item,
                                                 GArray                 *out);
void            strata_zoom_tree_query_activities (StrataZoomTree       *self,
                                                   guint32               channel,
                                                   gint64                from,
                                                   gint64                to,
                                                   gboolean              with_open,
                                                   GArray               *out);
StrataZoomResult *strata_zoom_result_new       (void);
void            strata_zoom_result_free         (StrataZoomResult       *self);
const StrataZoomSpan *strata_zoom_result_get_spans (StrataZoomResult    *self,
                                                    guint               *n_spans);
gboolean        strata_zoom_result_holds        (StrataZoomResult       *self,
                                                 const StrataZoomItem   *items);
void            strata_zoom_tree_query_spans    (StrataZoomTree         *self,
                                                 guint                   level,
                                                 gint64                  from,
                                                 gint64                  to,
                                                 const guint32          *channels,
                                                 guint                   n_channels,
                                                 StrataZoomResult       *result,
                                                 StrataZoomQueryStats   *stats);
void            strata_zoom_tree_query          (StrataZoomTree         *self,
                                                 guint                   level,
                                                 gint64                  from,
                                                 gint64                  to,
                                                 const guint32          *channels,
                                                 guint                   n_channels,
                                                 GArray                 *out,
                                                 StrataZoomQueryStats   *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataZoomTree, strata_zoom_tree_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataZoomResult, strata_zoom_result_free)

G_END_DECLS
