/* strata-live-channels.h
 *
 * A growing trace's channel table, handed from the loading thread to the
 * one that shows it in pieces: the channels new since the last hand-over
 * and those of the earlier ones that changed meanwhile (a thread named at
 * exec, given its process, ended), as the progress reports say
 * (StrataTraceProgress's n_before and changed). The showing side keeps
 * the whole table (strata_timeline_view_set_live()), so what a showing
 * costs grows with what changed, not with every thread a recording made.
 *
 * Not locked: the caller holds its own lock around every call (the
 * window's load progress lock).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata.h"

G_BEGIN_DECLS

/* A channel of a growing trace that changed after a hand-over had it: its
 * id and what it is now. */
typedef struct
{
  guint32       id;
  StrataChannel channel;
} StrataChannelChange;

typedef struct _StrataLiveChannels StrataLiveChannels;

StrataLiveChannels *strata_live_channels_new       (void);
void                strata_live_channels_free      (StrataLiveChannels        *self);
void                strata_live_channels_note      (StrataLiveChannels        *self,
                                                    const StrataTraceProgress *progress);
void                strata_live_channels_hand_over (StrataLiveChannels        *self,
                                                    const StrataTraceProgress *progress);
gboolean            strata_live_channels_take      (StrataLiveChannels        *self,
                                                    GArray                   **fresh,
                                                    GArray                   **changes);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataLiveChannels, strata_live_channels_free)

G_END_DECLS
