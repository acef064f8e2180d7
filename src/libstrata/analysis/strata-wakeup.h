/* strata-wakeup.h
 *
 * Who woke whom. The kernel model keeps, with each WOKEN state of a
 * thread (runnable after a wakeup, until it is switched in), the tid the
 * wakeup ran in, the CPU it ran on and whether it ran in an interrupt
 * (strata-activity.h says where); this reads them back as a wakeup: the
 * woken thread, when it was woken and when it was switched in, and the
 * waker as a channel of the trace, so a tooltip can name it, the
 * timeline can draw an arrow from it and the critical path can follow it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-trace.h"
#include "strata-trace-lookup.h"

G_BEGIN_DECLS

typedef struct
{
  gint64   woken_at;      /* the wakeup: the WOKEN state's start */
  gint64   running_at;    /* the switch-in: its end, or G_MAXINT64 when the trace
                           * does not show one (it ends the trace, or events were lost) */
  guint32  woken;         /* the woken thread's channel */
  gint32   woken_tid;
  gint32   waker_tid;     /* the thread the wakeup ran in: 0 the idle task, -1 not known */
  guint32  waker;         /* its channel then, or STRATA_CHANNEL_NONE (idle, never seen) */
  gint32   cpu;           /* the CPU it ran on, or -1 */
  guint32  cpu_channel;   /* that CPU's row, or STRATA_CHANNEL_NONE */
  guint    context;       /* StrataEventContext: the interrupt it ran in, if any */
} StrataWakeup;

gboolean strata_wakeup_from_state       (StrataTrace          *trace,
                                         StrataThreadMap      *threads,
                                         const StrataActivity *state,
                                         StrataWakeup         *out);
gboolean strata_wakeup_is_interrupt     (const StrataWakeup   *wakeup);
void     strata_wakeups_in_range        (StrataTrace          *trace,
                                         StrataThreadMap      *threads,
                                         const guint32        *channels,
                                         guint                 n_channels,
                                         gint64                from,
                                         gint64                to,
                                         GArray               *out);

G_END_DECLS
