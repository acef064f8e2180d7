/* strata-tracepoint-fields.c
 *
 * See strata-tracepoint-fields.h. A record is decoded one of two ways
 * with the same result: the fast path loads each field at the offset its
 * format gave, when every field of the type is a plain number or char
 * array, the record holds them all and the file's byte order is the
 * machine's (the common case, hot in a pass over millions of records);
 * the general path checks each field against the record and reads it
 * through libtraceevent where it must (other byte order, __data_loc
 * strings, odd sizes).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stddef.h>
#include <string.h>

#include "strata-tracepoint-fields.h"

/* ------------------------------------------------------------------ */
/* The comm cache.                                                      */

/* Strings up to this long (comms, short file names) are cached on their
 * bytes, in a direct-mapped table. */
#define COMM_CACHE_SIZE  1024
#define COMM_CACHE_LEN   24
/* A char[16] comm is cached on its two words, before hashing its bytes. */
#define COMM_WORDS_SIZE  256

typedef struct
{
  char    bytes[COMM_CACHE_LEN];
  guint8  len;
  guint8  used;
  guint32 id;
} CommCacheEntry;

typedef struct
{
  guint64  w[2];
  guint32  id;
  gboolean used;
} CommWords;

struct _StrataCommCache
{
  StrataStringPool *strings;   /* not owned */
  CommCacheEntry    entries[COMM_CACHE_SIZE];
  CommWords         words[COMM_WORDS_SIZE];
};

/**
 * strata_comm_cache_new:
 * @strings: the pool the strings go to; it must outlive the cache
 *
 * Returns: (transfer full): an empty cache
 */
StrataCommCache *
strata_comm_cache_new (StrataStringPool *strings)
{
  StrataCommCache *self = g_new0 (StrataCommCache, 1);

  self->strings = strings;
  return self;
}

void
strata_comm_cache_free (StrataCommCache *self)
{
  g_free (self);
}

/**
 * strata_comm_cache_intern:
 * @bytes: a string, not necessarily terminated
 * @len: its length
 *
 * Returns: @bytes' id in the cache's pool
 */
guint32
strata_comm_cache_intern (StrataCommCache *self,
                          const char      *bytes,
                          gsize            len)
{
  CommCacheEntry *entry;
  guint32 hash = 2166136261u;

  if (len > COMM_CACHE_LEN)
    return strata_string_pool_intern_len (self->strings, bytes, len);

  for (guint i = 0; i < len; i++)
    hash = (hash ^ (guint8) bytes[i]) * 16777619u;
  entry = &self->entries[hash & (COMM_CACHE_SIZE - 1)];

  if (entry->used && entry->len == len && memcmp (entry->bytes, bytes, len) == 0)
    return entry->id;

  entry->id = strata_string_pool_intern_len (self->strings, bytes, len);
  memcpy (entry->bytes, bytes, len);
  entry->len = len;
  entry->used = TRUE;
  return entry->id;
}

/**
 * strata_comm_cache_intern_comm16:
 * @bytes: a char[16] comm, nul-padded (or not terminated at all)
 *
 * Returns: the comm's id in the cache's pool
 */
guint32
strata_comm_cache_intern_comm16 (StrataCommCache *self,
                                 const char      *bytes)
{
  guint64 w[2];
  CommWords *entry;

  memcpy (w, bytes, 16);
  entry = &self->words[(guint) (((w[0] * 0x9e3779b97f4a7c15ull) ^ w[1]) >> 56) &
                       (COMM_WORDS_SIZE - 1)];
  if (G_LIKELY (entry->used && entry->w[0] == w[0] && entry->w[1] == w[1]))
    return entry->id;
  entry->w[0] = w[0];
  entry->w[1] = w[1];
  entry->used = TRUE;
  entry->id = strata_comm_cache_intern (self, bytes, strnlen (bytes, 16));
  return entry->id;
}

/* ------------------------------------------------------------------ */
/* The fields of each type.                                             */

enum
{
  LOAD_ABSENT,   /* not in the format (or unusable): the fallback value */
  LOAD_NUMBER,   /* 1, 2, 4 or 8 bytes */
  LOAD_STRING,   /* a fixed char array */
  LOAD_OTHER,    /* anything else: through libtraceevent */
};

typedef enum
{
  AS_NUMBER,     /* a gint32 of the event, -1 (or the fallback) when absent */
  AS_STRING,     /* a pool id, STRATA_STRING_NONE when absent */
  AS_STATE,      /* sched_switch's prev_state, as a StrataTaskState */
  AS_CONTEXT,    /* common_flags, as the StrataEventContext it ran in */
} FieldUse;

/* A field the model reads, where it goes in the event, and whether an
 * event without it is another kernel's idea of the type. */
struct _StrataTracepointFieldSpec
{
  const char *name;
  guint8      use;
  gint8       fallback;
  gboolean    required;
  guint16     offset;     /* in StrataEvent */
};

typedef StrataTracepointFieldSpec FieldSpec;

#define AT(member) offsetof (StrataEvent, u.member)

static const FieldSpec switch_fields[] = {
  { "prev_comm", AS_STRING, 0, TRUE, AT (sched_switch.prev_comm) },
  { "prev_pid", AS_NUMBER, -1, TRUE, AT (sched_switch.prev_pid) },
  { "prev_prio", AS_NUMBER, -1, TRUE, AT (sched_switch.prev_prio) },
  { "prev_state", AS_STATE, 0, TRUE, AT (sched_switch.prev_state) },
  { "next_comm", AS_STRING, 0, TRUE, AT (sched_switch.next_comm) },
  { "next_pid", AS_NUMBER, -1, TRUE, AT (sched_switch.next_pid) },
  { "next_prio", AS_NUMBER, -1, TRUE, AT (sched_switch.next_prio) },
  { NULL }
};
static const FieldSpec wakeup_fields[] = {
  { "comm", AS_STRING, 0, TRUE, AT (wakeup.comm) },
  { "pid", AS_NUMBER, -1, TRUE, AT (wakeup.pid) },
  { "prio", AS_NUMBER, -1, FALSE, AT (wakeup.prio) },
  { "target_cpu", AS_NUMBER, -1, FALSE, AT (wakeup.target_cpu) },
  /* Whether the wakeup came from an interrupt (a common field). */
  { "common_flags", AS_CONTEXT, 0, FALSE, AT (wakeup.context) },
  { NULL }
};
static const FieldSpec fork_fields[] = {
  { "parent_comm", AS_STRING, 0, TRUE, AT (fork.parent_comm) },
  { "parent_pid", AS_NUMBER, -1, TRUE, AT (fork.parent_pid) },
  { "child_comm", AS_STRING, 0, TRUE, AT (fork.child_comm) },
  { "child_pid", AS_NUMBER, -1, TRUE, AT (fork.child_pid) },
  { NULL }
};
static const FieldSpec exec_fields[] = {
  { "filename", AS_STRING, 0, TRUE, AT (exec.filename) },
  { "pid", AS_NUMBER, -1, TRUE, AT (exec.pid) },
  { "old_pid", AS_NUMBER, -1, FALSE, AT (exec.old_pid) },
  { NULL }
};
static const FieldSpec exit_fields[] = {
  { "comm", AS_STRING, 0, TRUE, AT (exit.comm) },
  { "pid", AS_NUMBER, -1, TRUE, AT (exit.pid) },
  { "prio", AS_NUMBER, -1, FALSE, AT (exit.prio) },
  { NULL }
};
static const FieldSpec irq_entry_fields[] = {
  { "irq", AS_NUMBER, -1, TRUE, AT (irq.irq) },
  { "name", AS_STRING, 0, FALSE, AT (irq.name) },
  { NULL }
};
static const FieldSpec irq_exit_fields[] = {
  { "irq", AS_NUMBER, -1, TRUE, AT (irq.irq) },
  { "ret", AS_NUMBER, 0, FALSE, AT (irq.ret) },
  { NULL }
};
static const FieldSpec softirq_fields[] = {
  { "vec", AS_NUMBER, -1, TRUE, AT (softirq.vec) },
  { NULL }
};

#undef AT

/* What an irq event does not have (the entry's ret, the exit's name)
 * stays as the caller zeroed it. */
static const FieldSpec *
type_fields (StrataEventType type)
{
  switch (type)
    {
    case STRATA_EVENT_SCHED_SWITCH: return switch_fields;
    case STRATA_EVENT_SCHED_WAKING:
    case STRATA_EVENT_SCHED_WAKEUP:
    case STRATA_EVENT_SCHED_WAKEUP_NEW: return wakeup_fields;
    case STRATA_EVENT_SCHED_PROCESS_FORK: return fork_fields;
    case STRATA_EVENT_SCHED_PROCESS_EXEC: return exec_fields;
    case STRATA_EVENT_SCHED_PROCESS_EXIT: return exit_fields;
    case STRATA_EVENT_IRQ_HANDLER_ENTRY: return irq_entry_fields;
    case STRATA_EVENT_IRQ_HANDLER_EXIT: return irq_exit_fields;
    case STRATA_EVENT_SOFTIRQ_ENTRY:
    case STRATA_EVENT_SOFTIRQ_EXIT: return softirq_fields;
    default: return NULL;
    }
}

static gboolean
load_init (StrataFieldLoad         *l,
           struct tep_format_field *f,
           gboolean                 string,
           guint32                 *need)
{
  memset (l, 0, sizeof *l);
  if (f == NULL || f->offset < 0 || f->size <= 0)
    {
      l->kind = LOAD_ABSENT;
      return TRUE;
    }

  l->offset = f->offset;
  l->size = f->size;
  l->is_signed = (f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8;
  if (string)
    l->kind = (f->flags & TEP_FIELD_IS_DYNAMIC) ? LOAD_OTHER : LOAD_STRING;
  else
    l->kind = (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)
              ? LOAD_NUMBER : LOAD_OTHER;
  *need = MAX (*need, (guint32) f->offset + (guint32) f->size);
  return l->kind != LOAD_OTHER;
}

/* How the fast path loads a field: the field's use, kind, size and sign
 * folded into one choice, made once per event type. */
typedef enum
{
  STEP_ABSENT,    /* the field's fallback, in the step's value */
  STEP_U8,
  STEP_S8,
  STEP_U16,
  STEP_S16,
  STEP_32,        /* signed or not: the event keeps 32 bits */
  STEP_64,        /* the low 32 bits */
  STEP_COMM16,    /* a char[16], through the comm cache's words */
  STEP_STRING,    /* a char array of another size (the step's value) */
  STEP_STATE,     /* sched_switch's prev_state, decoded */
  STEP_CONTEXT,   /* common_flags, as the context the event ran in */
} StepOp;

static guint8
number_op (const StrataFieldLoad *l)
{
  switch (l->size)
    {
    case 1: return l->is_signed ? STEP_S8 : STEP_U8;
    case 2: return l->is_signed ? STEP_S16 : STEP_U16;
    case 4: return STEP_32;
    default: return STEP_64;
    }
}

/* The steps of the fast path, from the specs and the loads: what
 * load_field() would work out for each field on every event. */
static void
compile_steps (StrataTracepointFields *self)
{
  self->n_steps = 0;
  for (guint i = 0; self->specs != NULL && self->specs[i].name != NULL; i++)
    {
      const FieldSpec *spec = &self->specs[i];
      const StrataFieldLoad *l = &self->loads[i];
      StrataFieldStep *step = &self->steps[self->n_steps++];

      step->from = l->offset;
      step->to = spec->offset;
      step->field = i;
      step->op = STEP_ABSENT;
      switch (spec->use)
        {
        case AS_STRING:
          step->value = STRATA_STRING_NONE;
          if (l->kind == LOAD_STRING)
            {
              step->op = l->size == 16 ? STEP_COMM16 : STEP_STRING;
              step->value = l->size;
            }
          break;
        case AS_STATE:
          step->value = STRATA_TASK_STATE_UNKNOWN;
          if (l->kind == LOAD_NUMBER)
            step->op = STEP_STATE;
          break;
        case AS_CONTEXT:
          step->value = 0;
          if (l->kind == LOAD_NUMBER)
            step->op = STEP_CONTEXT;
          break;
        default:
          step->value = (guint32) spec->fallback;
          if (l->kind == LOAD_NUMBER)
            step->op = number_op (l);
          break;
        }
    }
}

/**
 * strata_tracepoint_fields_resolve:
 * @event: an event format of the file, with a name
 *
 * Looks up the fields the kernel model needs for @event's type.
 *
 * Returns: the type to decode @event as (also kept in @self):
 *   %STRATA_EVENT_OTHER when the format lacks a field the model needs
 *   (another kernel's idea of the event), which is then kept by name
 *   rather than decoded wrongly
 */
StrataEventType
strata_tracepoint_fields_resolve (StrataTracepointFields *self,
                                  struct tep_event       *event)
{
  StrataEventType type = strata_event_type_from_name (event->name);
  const FieldSpec *specs = type_fields (type);

  memset (self, 0, sizeof *self);
  self->common_pid = tep_find_common_field (event, "common_pid");

  for (guint i = 0; specs != NULL && specs[i].name != NULL; i++)
    {
      self->fields[i] = g_str_has_prefix (specs[i].name, "common_")
                        ? tep_find_common_field (event, specs[i].name)
                        : tep_find_field (event, specs[i].name);
      if (self->fields[i] == NULL && specs[i].required)
        {
          type = STRATA_EVENT_OTHER;
          specs = NULL;
          break;
        }
    }
  if (type == STRATA_EVENT_SCHED_SWITCH)
    strata_task_state_format_init (&self->states, event);

  self->type = type;
  self->specs = specs;
  self->direct = load_init (&self->load_pid, self->common_pid, FALSE, &self->need);
  for (guint i = 0; specs != NULL && specs[i].name != NULL; i++)
    if (!load_init (&self->loads[i], self->fields[i], specs[i].use == AS_STRING, &self->need))
      self->direct = FALSE;
  if (self->direct)
    compile_steps (self);

  return type;
}

/* ------------------------------------------------------------------ */
/* Reading fields through their formats (the general path).             */

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

/**
 * strata_tracepoint_read_i32:
 * @f: (nullable): a numeric field of @record's format
 * @fallback: the value when @f is absent or does not fit
 *
 * Returns: the field, cut to 32 bits
 */
gint32
strata_tracepoint_read_i32 (struct tep_format_field *f,
                            struct tep_record       *record,
                            gboolean                 native_order,
                            gint32                   fallback)
{
  gint64 v;

  return strata_tracepoint_read_number (f, record, native_order, &v) ? (gint32) v : fallback;
}

/**
 * strata_tracepoint_read_string:
 * @f: (nullable): a char[] field (a comm) or a __data_loc string (exec's
 *   filename) of @record's format
 *
 * Returns: the string's id, up to its first nul; %STRATA_STRING_NONE
 *   when @f is absent or does not fit
 */
guint32
strata_tracepoint_read_string (struct tep_format_field *f,
                               struct tep_record       *record,
                               StrataCommCache         *comms)
{
  const char *data = record->data;
  guint64 offset, len;

  if (!strata_tracepoint_field_fits (f, record))
    return STRATA_STRING_NONE;

  if (f->flags & TEP_FIELD_IS_DYNAMIC)
    {
      unsigned long long loc;

      if (tep_read_number_field (f, record->data, &loc) != 0)
        return STRATA_STRING_NONE;
      offset = loc & 0xffff;
      len = (loc >> 16) & 0xffff;
      if (f->flags & TEP_FIELD_IS_RELATIVE)
        offset += f->offset + f->size;
      if (offset > (guint64) record->size || len > (guint64) record->size - offset)
        return STRATA_STRING_NONE;
    }
  else
    {
      offset = f->offset;
      len = f->size;
    }

  if (len == 16)
    return strata_comm_cache_intern_comm16 (comms, data + offset);

  return strata_comm_cache_intern (comms, data + offset, strnlen (data + offset, len));
}

/* ------------------------------------------------------------------ */
/* Decoding.                                                            */

static inline gint64
load_number (const guint8          *data,
             const StrataFieldLoad *l)
{
  const guint8 *p = data + l->offset;
  guint64 v;

  switch (l->size)
    {
    case 1: v = p[0]; break;
    case 2: { guint16 x; memcpy (&x, p, 2); v = x; } break;
    case 4: { guint32 x; memcpy (&x, p, 4); v = x; } break;
    default: { guint64 x; memcpy (&x, p, 8); v = x; } break;
    }
  if (l->is_signed)
    {
      guint shift = 64 - 8 * l->size;
      return ((gint64) (v << shift)) >> shift;
    }
  return (gint64) v;
}

/* One step of the fast path: a field loaded at its offset, for a format
 * whose fields all load directly and a record that holds them all in the
 * machine's byte order (no look-ups, no checks per field). */
static inline guint32
run_step (StrataTracepointFields *self,
          const StrataFieldStep  *step,
          const guint8           *data,
          StrataCommCache        *comms)
{
  const guint8 *p = data + step->from;

  switch (step->op)
    {
    case STEP_U8: return p[0];
    case STEP_S8: return (guint32) (gint32) (gint8) p[0];
    case STEP_U16: { guint16 x; memcpy (&x, p, 2); return x; }
    case STEP_S16: { gint16 x; memcpy (&x, p, 2); return (guint32) (gint32) x; }
    case STEP_32: { guint32 x; memcpy (&x, p, 4); return x; }
    case STEP_64: { guint64 x; memcpy (&x, p, 8); return (guint32) x; }
    case STEP_COMM16:
      return strata_comm_cache_intern_comm16 (comms, (const char *) p);
    case STEP_STRING:
      return strata_comm_cache_intern (comms, (const char *) p, strnlen ((const char *) p, step->value));
    case STEP_STATE:
      return strata_task_state_format_decode (&self->states, load_number (data, &self->loads[step->field]));
    case STEP_CONTEXT:
      return strata_event_context_from_trace_flags ((guint) load_number (data, &self->loads[step->field]));
    default:
      return step->value;
    }
}

/* The same through the field's format, checked against the record. */
static guint32
read_field (StrataTracepointFields *self,
            guint                   i,
            struct tep_record      *record,
            gboolean                native_order,
            StrataCommCache        *comms)
{
  const FieldSpec *spec = &self->specs[i];
  gint64 v;

  switch (spec->use)
    {
    case AS_STRING:
      return strata_tracepoint_read_string (self->fields[i], record, comms);
    case AS_STATE:
      if (!strata_tracepoint_read_number (self->fields[i], record, native_order, &v))
        return STRATA_TASK_STATE_UNKNOWN;
      return strata_task_state_format_decode (&self->states, v);
    case AS_CONTEXT:
      if (!strata_tracepoint_read_number (self->fields[i], record, native_order, &v))
        return 0;
      return strata_event_context_from_trace_flags ((guint) v);
    default:
      return (guint32) strata_tracepoint_read_i32 (self->fields[i], record, native_order,
                                                    spec->fallback);
    }
}

/**
 * strata_tracepoint_fields_decode:
 * @data: a record's raw payload, in the file's byte order
 * @size: its length
 * @native_order: whether the file's byte order is the machine's
 * @comms: where the strings are interned
 * @pid_known: whether @event's pid is set already (a perf sample's tid);
 *   otherwise it is the record's common_pid
 * @event: a zeroed event with its time, CPU and source set; its type and
 *   fields are filled in (its name is the caller's)
 *
 * Decodes @data as @self's type. A field that is absent or does not fit
 * in the record gets its fallback (-1, or %STRATA_STRING_NONE).
 */
void
strata_tracepoint_fields_decode (StrataTracepointFields *self,
                                 const guint8           *data,
                                 guint32                 size,
                                 gboolean                native_order,
                                 StrataCommCache        *comms,
                                 gboolean                pid_known,
                                 StrataEvent            *event)
{
  guint8 *to = (guint8 *) event;

  event->type = self->type;
  if (self->direct && native_order && size >= self->need)
    {
      if (!pid_known)
        event->pid = self->load_pid.kind == LOAD_NUMBER ? (gint32) load_number (data, &self->load_pid) : -1;
      for (guint i = 0; i < self->n_steps; i++)
        {
          guint32 v = run_step (self, &self->steps[i], data, comms);

          memcpy (to + self->steps[i].to, &v, sizeof v);
        }
    }
  else
    {
      struct tep_record record = { 0 };

      record.data = (void *) data;
      record.size = size;
      record.cpu = event->cpu;
      if (!pid_known)
        event->pid = strata_tracepoint_read_i32 (self->common_pid, &record, native_order, -1);
      for (guint i = 0; self->specs != NULL && self->specs[i].name != NULL; i++)
        {
          guint32 v = read_field (self, i, &record, native_order, comms);

          memcpy (to + self->specs[i].offset, &v, sizeof v);
        }
    }
}
