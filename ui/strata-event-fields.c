/* strata-event-fields.c
 *
 * See strata-event-fields.h. The file is read through libtracecmd with a
 * handle of our own (used on the main thread only: a handle is not
 * thread-safe). Each CPU's records are walked front to back only as far
 * as a look-up needs, and every CHECKPOINT_EVERY-th record's time and
 * offset is kept on the way; a look-up at an earlier time jumps to the
 * checkpoint before it (tracecmd_read_at) and reads a few records on from
 * there. So a screen of rows costs a few dozen records per CPU, and the
 * file is never read twice over the same stretch. Only the top-level
 * buffer is looked in; events of other buffer instances have no fields
 * here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "strata-error.h"
#include "strata-event-fields.h"

#define CHECKPOINT_EVERY 64

/* Exported by libtracecmd 1.3, but missing from its public header. */
int tracecmd_cpus (struct tracecmd_input *handle);

typedef struct
{
  guint64 ts;
  guint64 offset;
} Checkpoint;

typedef struct
{
  GArray  *checkpoints;   /* Checkpoint, in time order */
  guint64  n_records;     /* walked so far */
  guint64  last_ts;       /* of the last record walked */
  guint64  last_offset;
  gboolean started;
  gboolean done;          /* the CPU's records are all walked */
} CpuWalk;

struct _StrataEventFields
{
  struct tracecmd_input *input;
  struct tep_handle     *tep;
  guint                  n_cpus;
  CpuWalk               *cpus;
};

StrataEventFields *
strata_event_fields_open (const char  *path,
                          GError     **error)
{
  StrataEventFields *self;
  struct tracecmd_input *input;

  g_return_val_if_fail (path != NULL, NULL);

  input = tracecmd_open (path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
  if (input == NULL)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNKNOWN_FORMAT,
                   "%s: not a trace.dat libtracecmd can open", path);
      return NULL;
    }

  self = g_new0 (StrataEventFields, 1);
  self->input = input;
  self->tep = tracecmd_get_tep (input);
  self->n_cpus = MAX (tracecmd_cpus (input), 0);
  self->cpus = g_new0 (CpuWalk, self->n_cpus);
  for (guint i = 0; i < self->n_cpus; i++)
    self->cpus[i].checkpoints = g_array_new (FALSE, FALSE, sizeof (Checkpoint));
  return self;
}

void
strata_event_fields_free (StrataEventFields *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->n_cpus; i++)
    g_array_unref (self->cpus[i].checkpoints);
  g_free (self->cpus);
  tracecmd_close (self->input);
  g_free (self);
}

static gboolean
name_matches (const char         *name,
              const char * const *names)
{
  if (names == NULL || names[0] == NULL)
    return TRUE;
  for (guint i = 0; names[i] != NULL; i++)
    if (g_strcmp0 (name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The record's fields, or NULL when its name is not one of @names. */
static char *
fields_of (StrataEventFields  *self,
           struct tep_record  *record,
           const char * const *names)
{
  struct tep_event *event = tep_find_event_by_record (self->tep, record);
  struct trace_seq s;
  char *text;

  if (event == NULL || !name_matches (event->name, names))
    return NULL;
  trace_seq_init (&s);
  tep_print_event (self->tep, &s, record, "%s", TEP_PRINT_INFO_RAW);
  trace_seq_terminate (&s);
  text = g_strstrip (g_strdup (s.buffer != NULL ? s.buffer : ""));
  trace_seq_destroy (&s);
  return text;
}

/* Walks @cpu's records on until one is later than @ts, keeping
 * checkpoints; a record at @ts that matches is the answer. */
static char *
walk_on (StrataEventFields  *self,
         guint               cpu,
         guint64             ts,
         const char * const *names)
{
  CpuWalk *w = &self->cpus[cpu];
  struct tep_record *record;
  char *found = NULL;

  if (!w->started)
    record = tracecmd_read_cpu_first (self->input, cpu);
  else
    {
      int at_cpu = -1;
      struct tep_record *last = tracecmd_read_at (self->input, w->last_offset, &at_cpu);

      if (last != NULL)
        tracecmd_free_record (last);
      record = last != NULL && at_cpu == (int) cpu ? tracecmd_read_data (self->input, cpu) : NULL;
    }
  w->started = TRUE;

  for (; record != NULL; record = tracecmd_read_data (self->input, cpu))
    {
      if (w->n_records % CHECKPOINT_EVERY == 0)
        {
          Checkpoint c = { record->ts, record->offset };
          g_array_append_val (w->checkpoints, c);
        }
      w->n_records++;
      w->last_ts = record->ts;
      w->last_offset = record->offset;

      if (record->ts == ts && found == NULL)
        found = fields_of (self, record, names);
      if (record->ts > ts)
        {
          tracecmd_free_record (record);
          return found;
        }
      tracecmd_free_record (record);
    }
  w->done = TRUE;
  return found;
}

/* A time already walked past: from the last checkpoint before it. */
static char *
look_back (StrataEventFields  *self,
           guint               cpu,
           guint64             ts,
           const char * const *names)
{
  CpuWalk *w = &self->cpus[cpu];
  guint lo = 0, hi = w->checkpoints->len;
  struct tep_record *record;
  char *found = NULL;
  int at_cpu = -1;

  /* The last checkpoint strictly before @ts: records of the same time
   * can straddle a checkpoint. */
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (g_array_index (w->checkpoints, Checkpoint, mid).ts < ts)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    record = tracecmd_read_cpu_first (self->input, cpu);
  else
    {
      record = tracecmd_read_at (self->input, g_array_index (w->checkpoints, Checkpoint, lo - 1).offset, &at_cpu);
      if (record != NULL && at_cpu != (int) cpu)
        g_clear_pointer (&record, tracecmd_free_record);
    }

  for (; record != NULL; record = tracecmd_read_data (self->input, cpu))
    {
      gboolean past = record->ts > ts;

      if (record->ts == ts && found == NULL)
        found = fields_of (self, record, names);
      tracecmd_free_record (record);
      if (past)
        break;
    }
  return found;
}

/**
 * strata_event_fields_lookup:
 * @cpu: the CPU the event was recorded on, or -1 to look on every CPU
 * @ts: its time, in the trace's clock
 * @names: (nullable) (array zero-terminated=1): the event names it may
 *   have; %NULL for any
 *
 * Returns: (transfer full) (nullable): its fields, or %NULL when no such
 *   event is there
 */
char *
strata_event_fields_lookup (StrataEventFields  *self,
                            gint32              cpu,
                            gint64              ts,
                            const char * const *names)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (ts < 0)
    return NULL;

  for (guint c = 0; c < self->n_cpus; c++)
    {
      CpuWalk *w = &self->cpus[c];
      char *found;

      if (cpu >= 0 && (guint) cpu != c)
        continue;
      if (!w->done && (!w->started || (guint64) ts > w->last_ts))
        found = walk_on (self, c, ts, names);
      else
        found = look_back (self, c, ts, names);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The events an activity may have come from, by its kind. */
static const char * const switch_names[] = { "sched_switch", NULL };
static const char * const irq_names[] = { "irq_handler_entry", NULL };
static const char * const softirq_names[] = { "softirq_entry", NULL };

/**
 * strata_event_fields_for_activity:
 * @cpu: the activity's CPU, or -1 when it is not known
 *
 * The fields of the event that began @activity: an event or a wakeup is
 * its own event; a task or idle time on a CPU began with a sched_switch,
 * a thread's state with one when there is one at that time (else with
 * whatever event is there then); an interrupt with its entry.
 *
 * Returns: (transfer full) (nullable): its fields
 */
char *
strata_event_fields_for_activity (StrataEventFields    *self,
                                  StrataTrace          *trace,
                                  const StrataActivity *activity,
                                  gint32                cpu)
{
  const StrataChannel *channels;
  guint n_channels;
  const char *own[2] = { NULL, NULL };

  g_return_val_if_fail (self != NULL && activity != NULL, NULL);

  /* Only the top-level buffer's events are looked in. */
  channels = strata_trace_get_channels (trace, &n_channels);
  if (activity->channel < n_channels && channels[activity->channel].instance != 0)
    return NULL;

  switch (activity->kind)
    {
    case STRATA_ACTIVITY_EVENT:
    case STRATA_ACTIVITY_WAKEUP:
    case STRATA_ACTIVITY_SAMPLE:
      own[0] = strata_trace_get_string (trace, activity->label);
      return strata_event_fields_lookup (self, cpu, activity->start, own);

    case STRATA_ACTIVITY_IRQ:
      return strata_event_fields_lookup (self, cpu, activity->start, irq_names);

    case STRATA_ACTIVITY_SOFTIRQ:
      return strata_event_fields_lookup (self, cpu, activity->start, softirq_names);

    case STRATA_ACTIVITY_TASK:
    case STRATA_ACTIVITY_IDLE:
      return strata_event_fields_lookup (self, cpu, activity->start, switch_names);

    case STRATA_ACTIVITY_STATE:
      {
        char *found = strata_event_fields_lookup (self, cpu, activity->start, switch_names);

        /* A state a wakeup or a fork began: whatever happened then. */
        return found != NULL ? found : strata_event_fields_lookup (self, cpu, activity->start, NULL);
      }

    default:
      return NULL;
    }
}
