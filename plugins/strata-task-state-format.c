/* strata-task-state-format.c
 *
 * See strata-task-state-format.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-event.h"
#include "strata-task-state-format.h"

/* Finds the __print_flags() table of prev_state in sched_switch's print
 * format, wherever the ternaries around it put it. */
static struct tep_print_arg *
find_print_flags (struct tep_print_arg *arg,
                  guint                 depth)
{
  for (; arg != NULL && depth < 64; arg = arg->next)
    {
      struct tep_print_arg *found = NULL;

      switch (arg->type)
        {
        case TEP_PRINT_FLAGS:
          return arg;
        case TEP_PRINT_OP:
          if ((found = find_print_flags (arg->op.left, depth + 1)) == NULL)
            found = find_print_flags (arg->op.right, depth + 1);
          break;
        case TEP_PRINT_TYPE:
          found = find_print_flags (arg->typecast.item, depth + 1);
          break;
        default:
          break;
        }

      if (found != NULL)
        return found;
    }

  return NULL;
}

/**
 * strata_task_state_format_init:
 * @sched_switch: the file's sched_switch event
 *
 * Reads the letters and bits of prev_state from @sched_switch's print
 * format. A format without them leaves the mask 0, and decoding then
 * knows only that 0 is runnable.
 */
void
strata_task_state_format_init (StrataTaskStateFormat *self,
                               struct tep_event      *sched_switch)
{
  struct tep_print_arg *flags = find_print_flags (sched_switch->print_fmt.args, 0);
  guint64 all = 0;

  memset (self, 0, sizeof *self);
  if (flags == NULL)
    return;

  for (struct tep_print_flag_sym *sym = flags->flags.flags;
       sym != NULL && self->n_flags < STRATA_TASK_STATE_MAX_FLAGS;
       sym = sym->next)
    {
      guint64 bit;
      char *end;

      if (sym->value == NULL || sym->str == NULL)
        continue;
      bit = g_ascii_strtoull (sym->value, &end, 0);
      if (bit == 0 || *end != '\0')
        continue;
      self->bits[self->n_flags] = bit;
      g_strlcpy (self->letters[self->n_flags], sym->str, sizeof self->letters[0]);
      self->n_flags++;
      all |= bit;
    }

  if (all == 0)
    return;

  self->mask = all;
  /* The highest state bit, shifted once: TASK_REPORT_MAX. */
  self->preempt_bit = (G_GUINT64_CONSTANT (1) << (63 - __builtin_clzll (all))) << 1;
}

static guint8
decode_letters (const StrataTaskStateFormat *self,
                gint64                       state)
{
  char letters[64];
  gsize len = 0;

  if (self->mask == 0)
    return state == 0 ? STRATA_TASK_STATE_RUNNABLE : STRATA_TASK_STATE_UNKNOWN;

  if ((state & self->mask) == 0)
    letters[len++] = 'R';
  else
    for (guint i = 0; i < self->n_flags; i++)
      if (state & self->bits[i])
        {
          gsize l = strlen (self->letters[i]);

          if (len + l + 2 >= sizeof letters)
            break;
          if (len > 0)
            letters[len++] = '|';
          memcpy (letters + len, self->letters[i], l);
          len += l;
        }

  if (state & self->preempt_bit)
    letters[len++] = '+';
  letters[len] = '\0';

  return strata_task_state_from_letters (letters, len);
}

/**
 * strata_task_state_format_decode:
 * @prev_state: the raw prev_state field of one sched_switch
 *
 * Returns: the #StrataTaskState the kernel's letters for @prev_state mean
 */
guint32
strata_task_state_format_decode (StrataTaskStateFormat *self,
                                 gint64                 prev_state)
{
  guint slot = (guint) (prev_state ^ (prev_state >> 8)) & (STRATA_TASK_STATE_CACHE_SIZE - 1);

  if (self->cache_used[slot] && self->cache_value[slot] == (guint64) prev_state)
    return self->cache_state[slot];

  self->cache_value[slot] = prev_state;
  self->cache_state[slot] = decode_letters (self, prev_state);
  self->cache_used[slot] = TRUE;
  return self->cache_state[slot];
}
