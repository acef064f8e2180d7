/* strata-event.c
 *
 * Names and conversions for decoded events and task states, shared by every
 * plugin so the binary and text readers normalise the same way.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-event.h"

static const char *event_type_names[STRATA_N_EVENT_TYPES] = {
  [STRATA_EVENT_OTHER] = "other",
  [STRATA_EVENT_SCHED_SWITCH] = "sched_switch",
  [STRATA_EVENT_SCHED_WAKING] = "sched_waking",
  [STRATA_EVENT_SCHED_WAKEUP] = "sched_wakeup",
  [STRATA_EVENT_SCHED_WAKEUP_NEW] = "sched_wakeup_new",
  [STRATA_EVENT_SCHED_PROCESS_FORK] = "sched_process_fork",
  [STRATA_EVENT_SCHED_PROCESS_EXEC] = "sched_process_exec",
  [STRATA_EVENT_SCHED_PROCESS_EXIT] = "sched_process_exit",
  [STRATA_EVENT_IRQ_HANDLER_ENTRY] = "irq_handler_entry",
  [STRATA_EVENT_IRQ_HANDLER_EXIT] = "irq_handler_exit",
  [STRATA_EVENT_SOFTIRQ_ENTRY] = "softirq_entry",
  [STRATA_EVENT_SOFTIRQ_EXIT] = "softirq_exit",
  [STRATA_EVENT_LOST] = "lost_events",
  [STRATA_EVENT_SAMPLE] = "sample",
};

const char *
strata_event_type_to_string (StrataEventType type)
{
  if (type >= STRATA_N_EVENT_TYPES)
    return "other";
  return event_type_names[type];
}

StrataEventType
strata_event_type_from_name (const char *name)
{
  g_return_val_if_fail (name != NULL, STRATA_EVENT_OTHER);

  for (guint i = 1; i < STRATA_EVENT_LOST; i++)
    if (strcmp (name, event_type_names[i]) == 0)
      return i;

  return STRATA_EVENT_OTHER;
}

static const struct {
  const char *name;
  char letter;
} task_states[STRATA_N_TASK_STATES] = {
  [STRATA_TASK_STATE_UNKNOWN] = { "unknown", '?' },
  [STRATA_TASK_STATE_RUNNING] = { "running", 'R' },
  [STRATA_TASK_STATE_RUNNABLE] = { "runnable", 'R' },
  [STRATA_TASK_STATE_PREEMPTED] = { "preempted", 'R' },
  [STRATA_TASK_STATE_WOKEN] = { "woken", 'W' },
  [STRATA_TASK_STATE_SLEEPING] = { "sleeping", 'S' },
  [STRATA_TASK_STATE_UNINTERRUPTIBLE] = { "uninterruptible", 'D' },
  [STRATA_TASK_STATE_STOPPED] = { "stopped", 'T' },
  [STRATA_TASK_STATE_DEAD] = { "dead", 'X' },
  [STRATA_TASK_STATE_PARKED] = { "parked", 'P' },
};

const char *
strata_task_state_to_string (StrataTaskState state)
{
  if (state >= STRATA_N_TASK_STATES)
    return "unknown";
  return task_states[state].name;
}

char
strata_task_state_to_letter (StrataTaskState state)
{
  if (state >= STRATA_N_TASK_STATES)
    return '?';
  return task_states[state].letter;
}

/*
 * strata_task_state_from_letters:
 * @letters: the kernel's rendering of prev_state: "R", "R+", "S", "D",
 *   "D|K", "I", "T", "t", "X", "Z", "P", "W" ...
 * @len: length of @letters, or -1 if nul-terminated
 *
 * Several letters joined by "|" can appear (for example "D|K" for a killable
 * wait); the first one decides, as it does for `perf sched` and KernelShark.
 */
StrataTaskState
strata_task_state_from_letters (const char *letters,
                                gssize      len)
{
  if (letters == NULL || len == 0 || letters[0] == '\0')
    return STRATA_TASK_STATE_UNKNOWN;

  if (len < 0)
    len = strlen (letters);

  switch (letters[0])
    {
    case 'R':
      return (len > 1 && letters[1] == '+') ? STRATA_TASK_STATE_PREEMPTED
                                            : STRATA_TASK_STATE_RUNNABLE;
    case 'S':
    case 'I':
      return STRATA_TASK_STATE_SLEEPING;
    case 'D':
    case 'K':
    case 'W':
    case 'N':
      return STRATA_TASK_STATE_UNINTERRUPTIBLE;
    case 'T':
    case 't':
      return STRATA_TASK_STATE_STOPPED;
    case 'X':
    case 'Z':
    case 'x':
      return STRATA_TASK_STATE_DEAD;
    case 'P':
      return STRATA_TASK_STATE_PARKED;
    default:
      return STRATA_TASK_STATE_UNKNOWN;
    }
}

/* The kernel's softirq vector names (include/linux/interrupt.h), as the
 * softirq_entry print format renders them. */
const char *
strata_softirq_name (gint vec)
{
  static const char *names[] = {
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
    "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
  };

  if (vec >= 0 && (guint) vec < G_N_ELEMENTS (names))
    return names[vec];

  return "softirq";
}

/* The bits of an event's common_flags (kernel/trace/trace.h), the same in
 * ftrace's ring buffer and in perf's raw tracepoint data. */
#define TRACE_FLAG_HARDIRQ 0x08
#define TRACE_FLAG_SOFTIRQ 0x10
#define TRACE_FLAG_NMI     0x40

/**
 * strata_event_context_from_trace_flags:
 * @flags: a tracepoint's common_flags
 *
 * Returns: the #StrataEventContext bits the flags say the event ran in
 */
guint
strata_event_context_from_trace_flags (guint flags)
{
  guint context = 0;

  if (flags & TRACE_FLAG_HARDIRQ)
    context |= STRATA_EVENT_CONTEXT_HARDIRQ;
  if (flags & TRACE_FLAG_SOFTIRQ)
    context |= STRATA_EVENT_CONTEXT_SOFTIRQ;
  if (flags & TRACE_FLAG_NMI)
    context |= STRATA_EVENT_CONTEXT_NMI;

  return context;
}

/**
 * strata_event_context_from_irq_info:
 * @letter: the third letter of the text rendering's irq-info column
 *   ("d.s2."), which the kernel's trace output prints from the same flags
 *
 * Returns: the #StrataEventContext bits it stands for
 */
guint
strata_event_context_from_irq_info (char letter)
{
  switch (letter)
    {
    case 'Z': return STRATA_EVENT_CONTEXT_NMI | STRATA_EVENT_CONTEXT_HARDIRQ;
    case 'z': return STRATA_EVENT_CONTEXT_NMI;
    case 'H': return STRATA_EVENT_CONTEXT_HARDIRQ | STRATA_EVENT_CONTEXT_SOFTIRQ;
    case 'h': return STRATA_EVENT_CONTEXT_HARDIRQ;
    case 's': return STRATA_EVENT_CONTEXT_SOFTIRQ;
    default:  return 0;
    }
}
