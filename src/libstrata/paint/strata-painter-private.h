/* strata-painter-private.h
 *
 * What the painter's tests and the frame benchmark reach beyond the public
 * API: the per-item fold that classifies and folds each item on its own,
 * every item of every span the query returns (the painter's first way,
 * kept as the oracle of the faster fold and of its cutting each span's
 * lanes to the view, which must give the same display list bit for bit),
 * and a split of a frame's time between its query, folding the items and
 * emitting the columns; how many rows the last frame drew again from
 * the one before (strata-painter-kept-rows.c), and forgetting them, so
 * a frame is painted as a new view's is. And what its tests of a
 * growing trace compare and measure: the name a row shows, and the heap
 * its per-channel tables in spilled arrays hold.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-painter.h"

G_BEGIN_DECLS

void     strata_painter_set_reference_fold (StrataPainter *self,
                                            gboolean       reference);
gboolean strata_painter_get_reference_fold (StrataPainter *self);
void     strata_painter_set_timed          (StrataPainter *self,
                                            gboolean       timed);
void     strata_painter_get_times          (StrataPainter *self,
                                            gint64        *fold_ns,
                                            gint64        *emit_ns);
gint64   strata_painter_get_query_ns       (StrataPainter *self);
void     strata_painter_forget_rows        (StrataPainter *self);
guint    strata_painter_get_n_drawn_again  (StrataPainter *self);
guint32  strata_painter_get_row_name       (StrataPainter *self,
                                            guint32        channel);
gsize    strata_painter_get_spilled_heap   (StrataPainter *self);

G_END_DECLS
