/* strata-raw-store.h
 *
 * The raw store: every activity of a trace, kept once, in lanes. A lane is
 * one channel at one nesting depth (whose activities never overlap), or a
 * channel's instants; each lane is an array in start order, so the
 * activities of a channel in a time range are found by binary search. A
 * long sleep is one entry however many chunks it spans: the store grows
 * with the number of activities, not with channels times time. Sparse
 * regions of the zoom tree are computed from it on demand.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-activity.h"
#include "strata-parameters.h"

G_BEGIN_DECLS

typedef struct _StrataRawStore StrataRawStore;

StrataRawStore *strata_raw_store_new       (void);
StrataRawStore *strata_raw_store_new_with_parameters (const StrataParameters *parameters);
void            strata_raw_store_free      (StrataRawStore       *self);
void            strata_raw_store_add       (const StrataActivity *activity,
                                            gpointer              store);
void            strata_raw_store_add_many  (StrataRawStore       *self,
                                            const StrataActivity *activities,
                                            guint                 n);
guint64         strata_raw_store_get_size  (StrataRawStore       *self);
guint           strata_raw_store_get_n_channels (StrataRawStore  *self);
void            strata_raw_store_query     (StrataRawStore       *self,
                                            guint32               channel,
                                            gint64                t0,
                                            gint64                t1,
                                            GArray               *out);

#define STRATA_RAW_STORE_N_LANES 17

const StrataActivity *strata_raw_store_get_lane (StrataRawStore *self,
                                                 guint32         channel,
                                                 guint           lane,
                                                 gint64          t0,
                                                 gint64          t1,
                                                 guint          *first,
                                                 guint          *end);

/* Activities per block of a lane as an index packs it. */
#define STRATA_RAW_STORE_BLOCK 256

/* A lane opened for reading, in memory or packed in an index: the
 * activities are read one by one with strata_raw_lane_get(), which
 * decodes a packed lane's blocks as they are reached (one at a time, in
 * the reader's own buffer). On the stack of one reader; not shared. */
typedef struct
{
  /*< private >*/
  const StrataActivity *acts;          /* in memory: the whole lane */
  guint                 n;
  gconstpointer         fences;        /* in memory: those after the pages' */
  guint                 n_fences;
  gpointer              packed;        /* mapped: StrataPackedArray */
  gpointer              fences_check;  /* mapped: StrataCheckedArray */
  gconstpointer         spilled;       /* in memory: tickets of the blocks spilled
                                        * after those of the pages */
  guint                 base;          /* activities spilled, before acts[0] */
  gconstpointer         pages;         /* in memory: the lane's pages of tickets
                                        * and fences in the spill file */
  guint                 n_pages;
  guint                 page_blocks;   /* tickets a page holds */
  gpointer              store;
  gpointer              copies;        /* the reading thread's copies, once looked up */
  guint64               block;         /* the block in buf, or G_MAXUINT64 */
  guint                 block_n;
  StrataActivity        buf[STRATA_RAW_STORE_BLOCK];
} StrataRawLane;

gboolean strata_raw_store_lane_begins_before (StrataRawStore *self,
                                              guint32         channel,
                                              guint           lane,
                                              gint64          t);
gboolean strata_raw_store_open_lane (StrataRawStore *self,
                                     guint32         channel,
                                     guint           lane,
                                     gint64          t0,
                                     gint64          t1,
                                     StrataRawLane  *out,
                                     guint          *first,
                                     guint          *end);
const StrataActivity *strata_raw_lane_get (StrataRawLane *lane,
                                           guint          i);

void     strata_raw_store_set_spill (StrataRawStore *self,
                                     guint64         from,
                                     guint           keep_blocks);
void     strata_raw_store_close_channel (StrataRawStore *self,
                                         guint32         channel);
guint64  strata_raw_store_get_n_sealed (StrataRawStore *self);
guint64  strata_raw_store_get_n_pages (StrataRawStore *self);
void     strata_raw_store_set_page_blocks (StrataRawStore *self,
                                           guint           blocks);
guint64  strata_raw_store_get_resident_bytes (StrataRawStore *self);
void     strata_raw_store_set_budget (StrataRawStore *self,
                                      guint64         bytes);
guint64  strata_raw_store_get_tail_bytes (StrataRawStore *self,
                                          guint64        *peak);
guint64  strata_raw_store_get_spilled (StrataRawStore *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataRawStore, strata_raw_store_free)

G_END_DECLS
