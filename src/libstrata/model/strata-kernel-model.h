/* strata-kernel-model.h
 *
 * Turns decoded kernel events into activities on channels: what ran on each
 * CPU (tasks, idle, IRQs and softirqs nested inside), and the scheduling
 * state of every thread (running on CPU n, runnable after preemption,
 * runnable after a wakeup, sleeping, uninterruptible, dead), plus instants
 * for wakeups and every other event. It is a state machine per CPU and per
 * thread, fed in time order; it never invents a state the trace does not
 * show.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-activity.h"
#include "strata-event.h"
#include "strata-spilled-array.h"
#include "strata-string-pool.h"

G_BEGIN_DECLS

typedef struct _StrataKernelModel StrataKernelModel;

/* A sched_waking traced while its thread is still on its CPU ends the
 * sleep the thread's switch-out then reports, if that switch-out comes
 * within this many ns: the thread's WOKEN state then begins at the
 * switch-out, named after that waking (which is before the state). */
#define STRATA_KERNEL_MODEL_EARLY_WAKING_NS G_GINT64_CONSTANT (1000000)

/* A thread's channel gets no activity after @t (the thread exited and was
 * switched out for the last time): what a consumer keeps only for that
 * channel's coming activities can go. */
typedef void (*StrataChannelCloseFunc) (guint32  channel,
                                        gint64   t,
                                        gpointer user_data);

StrataKernelModel   *strata_kernel_model_new           (StrataStringPool     *strings,
                                                        const GArray         *lost_per_cpu);
void                 strata_kernel_model_free          (StrataKernelModel    *self);
void                 strata_kernel_model_set_sink      (StrataKernelModel    *self,
                                                        StrataActivityFunc    func,
                                                        gpointer              user_data);
void                 strata_kernel_model_set_close_func (StrataKernelModel    *self,
                                                         StrataChannelCloseFunc func,
                                                         gpointer              user_data);
void                 strata_kernel_model_feed          (StrataKernelModel    *self,
                                                        const StrataEvent    *events,
                                                        gsize                 n_events);
void                 strata_kernel_model_intern_ahead  (StrataStringPool     *strings,
                                                        GByteArray           *cpus_named,
                                                        const StrataEvent    *events,
                                                        gsize                 n_events);
void                 strata_kernel_model_finish        (StrataKernelModel    *self,
                                                        gint64                end_ts);
const StrataChannel *strata_kernel_model_get_channels  (StrataKernelModel    *self,
                                                        guint                *n_channels);
void                 strata_kernel_model_track_changes (StrataKernelModel    *self);
const guint32       *strata_kernel_model_get_changes   (StrataKernelModel    *self,
                                                        guint                *n_changes,
                                                        guint                *n_before);
void                 strata_kernel_model_forget_changes (StrataKernelModel   *self);
StrataSpilledArray  *strata_kernel_model_steal_channels (StrataKernelModel    *self,
                                                        GArray              **switches);
guint64              strata_kernel_model_get_context_switches (StrataKernelModel *self,
                                                               guint              channel);
void                 strata_kernel_model_set_layout    (StrataKernelModel    *self,
                                                        guint                 n_instances,
                                                        guint                 n_cpus);
gint64               strata_kernel_model_get_horizon   (StrataKernelModel    *self);
void                 strata_kernel_model_foreach_open  (StrataKernelModel    *self,
                                                        StrataActivityFunc    func,
                                                        gpointer              user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataKernelModel, strata_kernel_model_free)

G_END_DECLS
