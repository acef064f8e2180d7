/* strata-child-probe.h
 *
 * Runs a function in a forked child and says what became of it: the
 * readers hand libtraceevent and libtracecmd event formats first in a
 * child, since a damaged format can crash or hang those libraries, and
 * only a child that survived lets the reader parse them in its own
 * process. The probe tells a child that hung on the data from one that
 * waits for ever on a lock it inherited at fork (another thread held it),
 * and forks again for the latter.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  STRATA_CHILD_PROBE_EXITED,   /* its wait status says how */
  STRATA_CHILD_PROBE_HUNG,     /* it worked until the time ran out */
  STRATA_CHILD_PROBE_NO_CHILD, /* none to be had: fork failed, or each child waited on an inherited lock */
} StrataChildProbeResult;

/* Runs in the child: it exits with status 0 when this returns, and may
 * _exit() with another status itself. */
typedef void (*StrataChildProbeFunc) (gpointer data);

StrataChildProbeResult strata_child_probe_run (StrataChildProbeFunc  func,
                                               gpointer              data,
                                               guint                 timeout_ms,
                                               int                  *wait_status);

G_END_DECLS
