/* strata-tracepoint-fields.h
 *
 * The fields of the tracepoints the kernel model reads (sched_switch, the
 * wakeups, fork, exec, exit, irq and softirq), looked up once per event
 * format with libtraceevent, and read from a record's raw payload into a
 * StrataEvent: numbers, strings (comms interned through a cache, so the
 * same comm in a million records is looked up once) and what
 * sched_switch's prev_state means. Shared by the readers that decode
 * tracepoints through the formats a file carries (trace.dat and
 * perf.data), so each rule exists once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-event.h"
#include "strata-string-pool.h"
#include "strata-task-state-format.h"

G_BEGIN_DECLS

#define STRATA_TRACEPOINT_MAX_FIELDS 7

/* A field the model reads and where it goes in a StrataEvent. */
typedef struct _StrataTracepointFieldSpec StrataTracepointFieldSpec;

/* A field as the fast path loads it: its place and how to read it,
 * straight from the raw data without libtraceevent. */
typedef struct
{
  guint32 offset;
  guint32 size;
  guint8  kind;        /* absent, number, string, or other (libtraceevent only) */
  guint8  is_signed;
} StrataFieldLoad;

/* One field of the fast path, compiled: what the decoder does, with no
 * look-up of the field's spec or format. */
typedef struct
{
  guint32 from;        /* offset in the raw data */
  guint16 to;          /* offset in the StrataEvent */
  guint8  op;          /* how to load it (StepOp in the .c) */
  guint8  field;       /* its index in loads[] (the state and the context) */
  guint32 value;       /* what an absent field gets; a string's size */
} StrataFieldStep;

typedef struct
{
  StrataEventType          type;       /* what the event decodes as */
  const StrataTracepointFieldSpec *specs;  /* the type's fields; NULL for none */
  struct tep_format_field *common_pid;
  struct tep_format_field *fields[STRATA_TRACEPOINT_MAX_FIELDS];
  StrataTaskStateFormat    states;     /* sched_switch only */

  /* Every field of the type loads directly (fixed numbers and char
   * arrays): a record of at least @need bytes in the machine's byte
   * order is read with no look-ups and no checks per field. */
  gboolean                 direct;
  guint32                  need;
  StrataFieldLoad          load_pid;
  StrataFieldLoad          loads[STRATA_TRACEPOINT_MAX_FIELDS];
  guint                    n_steps;
  StrataFieldStep          steps[STRATA_TRACEPOINT_MAX_FIELDS];
} StrataTracepointFields;

/* Strings of tracepoint fields, interned in a pool through a cache on
 * their bytes. */
typedef struct _StrataCommCache StrataCommCache;

StrataCommCache *strata_comm_cache_new              (StrataStringPool *strings);
void             strata_comm_cache_free             (StrataCommCache  *self);
guint32          strata_comm_cache_intern           (StrataCommCache  *self,
                                                     const char       *bytes,
                                                     gsize             len);
guint32          strata_comm_cache_intern_comm16    (StrataCommCache  *self,
                                                     const char       *bytes);

StrataEventType  strata_tracepoint_fields_resolve   (StrataTracepointFields *self,
                                                     struct tep_event       *event);
void             strata_tracepoint_fields_decode    (StrataTracepointFields *self,
                                                     const guint8           *data,
                                                     guint32                 size,
                                                     gboolean                native_order,
                                                     StrataCommCache        *comms,
                                                     gboolean                pid_known,
                                                     StrataEvent            *event);

gboolean         strata_tracepoint_field_fits       (const struct tep_format_field *f,
                                                     const struct tep_record       *record);
gboolean         strata_tracepoint_read_number      (struct tep_format_field *f,
                                                     struct tep_record       *record,
                                                     gboolean                 native_order,
                                                     gint64                  *value);
gint32           strata_tracepoint_read_i32         (struct tep_format_field *f,
                                                     struct tep_record       *record,
                                                     gboolean                 native_order,
                                                     gint32                   fallback);
guint32          strata_tracepoint_read_string      (struct tep_format_field *f,
                                                     struct tep_record       *record,
                                                     StrataCommCache         *comms);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataCommCache, strata_comm_cache_free)

G_END_DECLS
