/* strata-perf-record-types.c
 *
 * Every record type of perf.data that the kernel (include/uapi/linux/
 * perf_event.h) and perf (tools/lib/perf/include/perf/event.h) define,
 * with the name `perf report --stats` gives it and the bytes of its fixed
 * fields after the 8-byte header: a record shorter than that is damaged.
 * Only the reader's own checks apply to the types it reads fields of
 * (samples, COMM, FORK, MMAP ...); the size here guards the types it
 * counts and steps over. A type missing here is unknown: stepped over
 * and counted, whatever its size.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-perf-source-private.h"

typedef struct
{
  const char *name;
  guint16     min_body;
} RecordType;

static const RecordType kernel_types[] = {
  [PERF_RECORD_MMAP] = { "MMAP", 0 },
  [PERF_RECORD_LOST] = { "LOST", 0 },
  [PERF_RECORD_COMM] = { "COMM", 0 },
  [PERF_RECORD_EXIT] = { "EXIT", 0 },
  [PERF_RECORD_THROTTLE] = { "THROTTLE", 24 },         /* time, id, stream_id */
  [PERF_RECORD_UNTHROTTLE] = { "UNTHROTTLE", 24 },
  [PERF_RECORD_FORK] = { "FORK", 0 },
  [PERF_RECORD_READ] = { "READ", 8 },                  /* pid, tid, then the values */
  [PERF_RECORD_SAMPLE] = { "SAMPLE", 0 },
  [PERF_RECORD_MMAP2] = { "MMAP2", 0 },
  [PERF_RECORD_AUX] = { "AUX", 24 },                   /* aux_offset, aux_size, flags */
  [PERF_RECORD_ITRACE_START] = { "ITRACE_START", 8 },  /* pid, tid */
  [PERF_RECORD_LOST_SAMPLES] = { "LOST_SAMPLES", 0 },
  [PERF_RECORD_SWITCH] = { "SWITCH", 0 },
  [PERF_RECORD_SWITCH_CPU_WIDE] = { "SWITCH_CPU_WIDE", 0 },
  [PERF_RECORD_NAMESPACES] = { "NAMESPACES", 16 },     /* pid, tid, nr, then nr {dev, inode} */
  [PERF_RECORD_KSYMBOL] = { "KSYMBOL", 16 },           /* addr, len, ksym_type, flags, name */
  [PERF_RECORD_BPF_EVENT] = { "BPF_EVENT", 16 },       /* type, flags, id, tag[8] */
  [PERF_RECORD_CGROUP] = { "CGROUP", 8 },              /* id, path */
  [PERF_RECORD_TEXT_POKE] = { "TEXT_POKE", 12 },       /* addr, old_len, new_len, bytes */
  [PERF_RECORD_AUX_OUTPUT_HW_ID] = { "AUX_OUTPUT_HW_ID", 8 }, /* hw_id */
  [PERF_RECORD_CALLCHAIN_DEFERRED] = { "CALLCHAIN_DEFERRED", 16 }, /* cookie, nr, ips */
};

static const RecordType perf_types[] = {
  [PERF_RECORD_HEADER_ATTR - 64] = { "ATTR", 0 },
  [PERF_RECORD_HEADER_EVENT_TYPE - 64] = { "EVENT_TYPE", 72 },   /* event_id, name[64] */
  [PERF_RECORD_HEADER_TRACING_DATA - 64] = { "TRACING_DATA", 0 }, /* checked where read */
  [PERF_RECORD_HEADER_BUILD_ID - 64] = { "BUILD_ID", 28 },       /* pid, build_id[24], filename */
  [PERF_RECORD_FINISHED_ROUND - 64] = { "FINISHED_ROUND", 0 },
  [PERF_RECORD_ID_INDEX - 64] = { "ID_INDEX", 8 },               /* nr, then nr entries */
  [PERF_RECORD_AUXTRACE_INFO - 64] = { "AUXTRACE_INFO", 8 },     /* type, reserved, priv[] */
  [PERF_RECORD_AUXTRACE - 64] = { "AUXTRACE", PERF_AUXTRACE_BODY_SIZE },
  [PERF_RECORD_AUXTRACE_ERROR - 64] = { "AUXTRACE_ERROR", 96 },  /* the fields of fmt 0 */
  [PERF_RECORD_THREAD_MAP - 64] = { "THREAD_MAP", 8 },           /* nr, then nr entries */
  [PERF_RECORD_CPU_MAP - 64] = { "CPU_MAP", 2 },                 /* type, then the map */
  [PERF_RECORD_STAT_CONFIG - 64] = { "STAT_CONFIG", 8 },         /* nr, then nr {tag, val} */
  [PERF_RECORD_STAT - 64] = { "STAT", 40 },                      /* id, cpu, thread, val, ena, run */
  [PERF_RECORD_STAT_ROUND - 64] = { "STAT_ROUND", 16 },          /* type, time */
  [PERF_RECORD_EVENT_UPDATE - 64] = { "EVENT_UPDATE", 16 },      /* type, id, then the update */
  [PERF_RECORD_TIME_CONV - 64] = { "TIME_CONV", 24 },            /* shift, mult, zero (more since 5.10) */
  [PERF_RECORD_HEADER_FEATURE - 64] = { "FEATURE", 0 },          /* checked where read */
  [PERF_RECORD_COMPRESSED - 64] = { "COMPRESSED", 0 },
  [PERF_RECORD_FINISHED_INIT - 64] = { "FINISHED_INIT", 0 },
  [PERF_RECORD_COMPRESSED2 - 64] = { "COMPRESSED2", 0 },         /* checked where read */
  [PERF_RECORD_BPF_METADATA - 64] = { "BPF_METADATA", 24 },      /* prog_name[16], nr_entries */
  [PERF_RECORD_SCHEDSTAT_CPU - 64] = { "SCHEDSTAT_CPU", 16 },    /* timestamp, cpu, version */
  [PERF_RECORD_SCHEDSTAT_DOMAIN - 64] = { "SCHEDSTAT_DOMAIN", 16 }, /* timestamp, cpu, version, domain */
};

static const RecordType *
lookup (guint32 type)
{
  const RecordType *t = NULL;

  if (type < G_N_ELEMENTS (kernel_types))
    t = &kernel_types[type];
  else if (type >= 64 && type - 64 < G_N_ELEMENTS (perf_types))
    t = &perf_types[type - 64];
  return t != NULL && t->name != NULL ? t : NULL;
}

/**
 * strata_perf_record_type_name:
 * @type: a record type
 *
 * Returns: (nullable): the name perf gives @type ("AUXTRACE"), or NULL
 *   for a type neither the kernel nor perf defines
 */
const char *
strata_perf_record_type_name (guint32 type)
{
  const RecordType *t = lookup (type);

  return t != NULL ? t->name : NULL;
}

/**
 * strata_perf_record_check_size:
 * @rec: a record of any type
 *
 * Returns: FALSE with @error set when @rec is shorter than the fixed
 *   fields its type documents
 */
gboolean
strata_perf_record_check_size (StrataPerfSource  *self,
                               const Record      *rec,
                               GError           **error)
{
  const RecordType *t = lookup (rec->type);

  if (t == NULL || rec->body_len >= t->min_body)
    return TRUE;
  return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                           "a %s record of %u bytes, shorter than the %u of its fields",
                           t->name, rec->size, t->min_body + 8u);
}
