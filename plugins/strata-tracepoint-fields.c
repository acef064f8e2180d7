/* strata-tracepoint-fields.c
 *
 * See strata-tracepoint-fields.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-tracepoint-fields.h"

/**
 * strata_tracepoint_fields_resolve:
 * @event: an event format of the file, with a name
 *
 * Looks up the fields the kernel model needs for @event's type.
 *
 * Returns: the type to decode @event as: %STRATA_EVENT_OTHER when the
 *   format lacks a field the model needs (another kernel's idea of the
 *   event), which is then kept by name rather than decoded wrongly
 */
StrataEventType
strata_tracepoint_fields_resolve (StrataTracepointFields *self,
                                  struct tep_event       *event)
{
  StrataEventType type = strata_event_type_from_name (event->name);
  struct tep_format_field **f = self->fields;
  guint n_required = 0;

  memset (self, 0, sizeof *self);
  self->common_pid = tep_find_common_field (event, "common_pid");

  switch (type)
    {
    case STRATA_EVENT_SCHED_SWITCH:
      f[SW_PREV_COMM] = tep_find_field (event, "prev_comm");
      f[SW_PREV_PID] = tep_find_field (event, "prev_pid");
      f[SW_PREV_PRIO] = tep_find_field (event, "prev_prio");
      f[SW_PREV_STATE] = tep_find_field (event, "prev_state");
      f[SW_NEXT_COMM] = tep_find_field (event, "next_comm");
      f[SW_NEXT_PID] = tep_find_field (event, "next_pid");
      f[SW_NEXT_PRIO] = tep_find_field (event, "next_prio");
      n_required = 7;
      strata_task_state_format_init (&self->states, event);
      break;
    case STRATA_EVENT_SCHED_WAKING:
    case STRATA_EVENT_SCHED_WAKEUP:
    case STRATA_EVENT_SCHED_WAKEUP_NEW:
      f[WK_COMM] = tep_find_field (event, "comm");
      f[WK_PID] = tep_find_field (event, "pid");
      f[WK_PRIO] = tep_find_field (event, "prio");
      f[WK_TARGET_CPU] = tep_find_field (event, "target_cpu");
      /* Whether the wakeup came from an interrupt (a common field). */
      f[WK_COMMON_FLAGS] = tep_find_common_field (event, "common_flags");
      n_required = 2;
      break;
    case STRATA_EVENT_SCHED_PROCESS_FORK:
      f[FK_PARENT_COMM] = tep_find_field (event, "parent_comm");
      f[FK_PARENT_PID] = tep_find_field (event, "parent_pid");
      f[FK_CHILD_COMM] = tep_find_field (event, "child_comm");
      f[FK_CHILD_PID] = tep_find_field (event, "child_pid");
      n_required = 4;
      break;
    case STRATA_EVENT_SCHED_PROCESS_EXEC:
      f[EX_FILENAME] = tep_find_field (event, "filename");
      f[EX_PID] = tep_find_field (event, "pid");
      f[EX_OLD_PID] = tep_find_field (event, "old_pid");
      n_required = 2;
      break;
    case STRATA_EVENT_SCHED_PROCESS_EXIT:
      f[XT_COMM] = tep_find_field (event, "comm");
      f[XT_PID] = tep_find_field (event, "pid");
      f[XT_PRIO] = tep_find_field (event, "prio");
      n_required = 2;
      break;
    case STRATA_EVENT_IRQ_HANDLER_ENTRY:
      f[IRQ_IRQ] = tep_find_field (event, "irq");
      f[IRQ_NAME] = tep_find_field (event, "name");
      n_required = 1;
      break;
    case STRATA_EVENT_IRQ_HANDLER_EXIT:
      f[IRQ_IRQ] = tep_find_field (event, "irq");
      f[IRQ_RET] = tep_find_field (event, "ret");
      n_required = 1;
      break;
    case STRATA_EVENT_SOFTIRQ_ENTRY:
    case STRATA_EVENT_SOFTIRQ_EXIT:
      f[SI_VEC] = tep_find_field (event, "vec");
      n_required = 1;
      break;
    default:
      break;
    }

  for (guint i = 0; i < n_required; i++)
    if (f[i] == NULL)
      return STRATA_EVENT_OTHER;

  return type;
}

/**
 * strata_tracepoint_field_fits:
 * @f: (nullable): a field of @record's format
 *
 * Returns: whether @f lies inside @record's payload
 */
gboolean
strata_tracepoint_field_fits (const struct tep_format_field *f,
                              const struct tep_record       *record)
{
  return f != NULL && f->offset >= 0 && f->size > 0 &&
         (gint64) f->offset + f->size <= record->size;
}

/**
 * strata_tracepoint_read_number:
 * @f: (nullable): a numeric field of @record's format
 * @native_order: whether the file's byte order is the machine's
 * @value: (out): the field, narrow signed fields sign-extended
 *
 * Returns: FALSE when @f is absent or does not fit in @record
 */
gboolean
strata_tracepoint_read_number (struct tep_format_field *f,
                               struct tep_record       *record,
                               gboolean                 native_order,
                               gint64                  *value)
{
  unsigned long long v;

  if (!strata_tracepoint_field_fits (f, record))
    return FALSE;

  /* The file's byte order is the machine's in the common case: read the
   * field directly rather than through libtraceevent's generic reader. */
  if (native_order && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8))
    {
      const guint8 *p = (const guint8 *) record->data + f->offset;

      switch (f->size)
        {
        case 1: v = p[0]; break;
        case 2: { guint16 x; memcpy (&x, p, 2); v = x; } break;
        case 4: { guint32 x; memcpy (&x, p, 4); v = x; } break;
        default: { guint64 x; memcpy (&x, p, 8); v = x; } break;
        }
    }
  else if (tep_read_number_field (f, record->data, &v) != 0)
    return FALSE;

  /* Sign-extend narrow signed fields (pids, prio, ret). */
  if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8)
    {
      guint shift = 64 - 8 * f->size;
      *value = ((gint64) (v << shift)) >> shift;
    }
  else
    *value = (gint64) v;

  return TRUE;
}
