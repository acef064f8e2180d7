/* strata-activity.c
 *
 * Names of activity and channel kinds, for the CLI, JSON and the UI.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-activity.h"

const char *
strata_activity_kind_to_string (StrataActivityKind kind)
{
  static const char *names[STRATA_N_ACTIVITY_KINDS] = {
    [STRATA_ACTIVITY_TASK] = "task",
    [STRATA_ACTIVITY_IDLE] = "idle",
    [STRATA_ACTIVITY_IRQ] = "irq",
    [STRATA_ACTIVITY_SOFTIRQ] = "softirq",
    [STRATA_ACTIVITY_UNKNOWN] = "unknown",
    [STRATA_ACTIVITY_STATE] = "state",
    [STRATA_ACTIVITY_WAKEUP] = "wakeup",
    [STRATA_ACTIVITY_EVENT] = "event",
    [STRATA_ACTIVITY_SAMPLE] = "sample",
  };

  if (kind >= STRATA_N_ACTIVITY_KINDS)
    return "unknown";
  return names[kind];
}

const char *
strata_channel_kind_to_string (StrataChannelKind kind)
{
  switch (kind)
    {
    case STRATA_CHANNEL_CPU: return "cpu";
    case STRATA_CHANNEL_PROCESS: return "process";
    case STRATA_CHANNEL_THREAD: return "thread";
    default: return "unknown";
    }
}
