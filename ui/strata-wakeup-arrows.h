/* strata-wakeup-arrows.h
 *
 * Wakeups drawn on the timeline as arrows, as Perfetto draws its flows:
 * from where the wakeup ran (the waker's row; for an interrupt or the
 * idle task, the waking CPU's row) to the woken thread's switch-in (on
 * its row, or on the CPU row of a selected run). For the selection: the
 * wakeup before a selected run or of a selected woken state; on demand,
 * every wakeup of the threads on screen in the view (at most a few
 * hundred, the first in time).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata.h"
#include "strata-timeline-view.h"

G_BEGIN_DECLS

#define STRATA_WAKEUP_ARROWS_MAX 400

typedef struct _StrataWakeupArrows StrataWakeupArrows;

StrataWakeupArrows *strata_wakeup_arrows_new           (void);
void                strata_wakeup_arrows_free          (StrataWakeupArrows            *self);
void                strata_wakeup_arrows_set_trace     (StrataWakeupArrows            *self,
                                                        StrataTrace                   *trace);
gboolean            strata_wakeup_arrows_set_selection (StrataWakeupArrows            *self,
                                                        const StrataSelection *selection);
void                strata_wakeup_arrows_set_show_all  (StrataWakeupArrows            *self,
                                                        gboolean                       show);
gboolean            strata_wakeup_arrows_get_show_all  (StrataWakeupArrows            *self);
const StrataWakeup *strata_wakeup_arrows_get_selected  (StrataWakeupArrows            *self);
guint               strata_wakeup_arrows_draw          (StrataWakeupArrows            *self,
                                                        StrataTimelineView            *view,
                                                        GtkSnapshot                   *snapshot,
                                                        const graphene_rect_t         *area);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataWakeupArrows, strata_wakeup_arrows_free)

G_END_DECLS
