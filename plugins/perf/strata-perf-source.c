/* strata-perf-source.c
 *
 * Reads perf.data itself, without perf: the file header (PERFILE2 in
 * either byte order, the old PERFFILE), the attrs of any size, the feature
 * sections, then the data records, which are parsed field by field against
 * the attr's sample_type with every length checked against the record.
 * Pipe-mode files carry attrs, features and the tracing data as records
 * instead. COMPRESSED records are one zstd stream whose output is a run of
 * records, which may straddle two compressed records.
 *
 * Records are not in time order in the file (each CPU's ring buffer is
 * copied out in turn), so decoded events wait in a reorder buffer: at each
 * FINISHED_ROUND everything up to the largest timestamp of the round
 * before is released, as perf does. The buffer has a fixed bound; past it
 * (a file without rounds) the oldest half is released and the source says
 * so once, and only if an event then arrives earlier than what was already
 * released is the order actually broken (the model clamps it). The buffer
 * is a queue of chunks, one per round, decoded in place and merged from
 * there; when asked, for a file of tracepoints, a thread of the source's
 * own reads and decodes the next rounds while the caller's merges this
 * one, with the same result as reading alone (see "The reorder buffer"
 * below). It is not the default: on a machine whose cores are all busy
 * (bench/RESULTS-perf.md) the hand-over costs more than it gains.
 *
 * Tracepoint samples are decoded with libtraceevent from the formats in
 * the file's tracing data into the same StrataEvents the trace.dat reader
 * yields; other samples become STRATA_EVENT_SAMPLE with their call chain
 * interned in a table of the source. When the file has no sched_switch,
 * PERF_RECORD_SWITCH(_CPU_WIDE) records stand in for it, and FORK, COMM
 * (exec) and EXIT records for the sched_process_* tracepoints.
 *
 * The span hint is the samples' span that perf record writes in the
 * HEADER_SAMPLE_TIME feature of a file (not of a pipe); the other records'
 * times (COMM, FORK, EXIT, SWITCH ...) may lie outside it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <traceevent/event-parse.h>
#include <zstd.h>

#include "strata-error.h"
#include "strata-perf-format.h"
#include "strata-perf-source.h"
#include "../strata-tracepoint-fields.h"

/* The reorder buffer's bound, in events: past it the oldest half goes. */
#define MAX_PENDING        (1u << 19)
/* How much of the mapped file is read before its pages are given back. */
#define DROP_STEP          (32u << 20)
/* The largest output one COMPRESSED record may inflate to. */
#define MAX_DECOMP         (256u << 20)
/* Feature sections and the tracing data are read whole: a bound on them. */
#define MAX_SECTION        (256u << 20)
#define MAX_ATTRS          4096
#define MAX_IDS            (1u << 20)
#define MAX_CPU            8192
#define COMM_CACHE_SIZE    256
#define COMM_CACHE_LEN     24
#define PERF_CONTEXT_MAX   ((guint64) -4095)
/* A compressed file's records kept for reading them again. */
#define MAX_KEPT           (512u << 20)
/* Event buffers of merged chunks kept for new ones. */
#define SPARE_BUFFERS      8

/* Pseudo events that wait in the reorder buffer beside the real ones and
 * are consumed when released: a thread's comm set by COMM, or inherited
 * by FORK, so names are resolved in time order, not file order. */
#define EVENT_COMM_SET     (STRATA_N_EVENT_TYPES + 1)
#define EVENT_COMM_COPY    (STRATA_N_EVENT_TYPES + 2)

/* ------------------------------------------------------------------ */
/* Tracepoint formats: what the source needs of one event id.          */

/* A field as the decoder loads it: looked up with libtraceevent once
 * per event id, then read straight from the raw data. */
typedef enum
{
  FIELD_ABSENT,   /* not in the format (or unusable): the fallback value */
  FIELD_NUMBER,   /* 1, 2, 4 or 8 bytes */
  FIELD_STRING,   /* a fixed char array */
  FIELD_OTHER,    /* anything else: through libtraceevent */
} FieldKind;

typedef struct
{
  guint32 offset;
  guint32 size;
  guint8  kind;
  guint8  is_signed;
} FieldLoad;

typedef struct
{
  guint32                  type;
  guint32                  name;
  StrataTracepointFields   tp;
  gboolean                 direct;   /* every field of its type loads directly */
  guint32                  need;     /* raw bytes that hold all those fields */
  FieldLoad                pid;      /* common_pid */
  FieldLoad                f[7];
  guint32                  chain_name;  /* "system:name": its call chains' samples */
} TpInfo;


typedef struct
{
  char    bytes[COMM_CACHE_LEN];
  guint8  len;
  guint8  used;
  guint32 id;
} CommCacheEntry;

#define COMM_WORDS_SIZE 256

typedef struct
{
  guint64  w[2];
  guint32  id;
  gboolean used;
} CommWords;

typedef struct _Chunk Chunk;

/* One perf_event_attr of the file (an evsel, in perf's words). */
typedef struct
{
  guint32  type;
  guint64  config;
  guint64  sample_type;
  guint64  read_format;
  guint64  flags;
  guint64  branch_sample_type;
  guint    n_user_regs;
  guint    n_intr_regs;
  gint32   clockid;
  gboolean sample_id_all;
  guint    trailer;       /* bytes of the sample_id_all trailer */
  guint32  name;          /* pool id: "cpu-clock", "sched_switch" */
  gboolean named;         /* by EVENT_DESC or EVENT_UPDATE */
  TpInfo  *tp;            /* a tracepoint with a known format */
  /* A sample of only fixed-size fields before its raw data (the usual
   * tracepoint sample) is read at these offsets, -1 when absent. */
  gint8    layout;        /* 0: not looked at yet, 1: fixed, -1: not */
  gint16   off_tid;
  gint16   off_time;
  gint16   off_cpu;
  gint16   off_raw;
} Attr;

typedef struct
{
  guint64      ip;
  gint32       pid;
  gint32       tid;
  guint64      time;
  gint32       cpu;
  guint64      period;
  guint64      nr;        /* call chain entries */
  const guint8 *ips;
  const guint8 *raw;
  guint32      raw_size;
  gboolean     has_tid;
  gboolean     has_time;
  gboolean     has_cpu;
} Sample;

typedef struct
{
  guint32 start;          /* in self->frames */
  guint32 len;
} Chain;

typedef struct
{
  guint64 address;
  char   *name;
} KernelSym;

/* An executable mapping of a process (MMAP or MMAP2), for symbolization. */
typedef struct
{
  guint64 start;
  guint64 len;
  guint64 pgoff;
  guint32 file;      /* pool id of the path */
} Map;

/* One ELF file opened through libdwfl, on first use. */
typedef struct
{
  Dwfl        *dwfl;
  Dwfl_Module *module;
} ElfFile;

typedef struct
{
  guint32       type;
  guint16       misc;
  guint16       size;
  const guint8 *body;      /* after the 8-byte header */
  gsize         body_len;
  guint64       offset;    /* in the file; the COMPRESSED record for inflated ones */
  gboolean      inflated;
} Record;

struct _StrataPerfSource
{
  StrataSource      parent_instance;

  char             *display_name;
  StrataStringPool *strings;       /* not owned: the source's pool */
  int               fd;
  const guint8     *map;
  gsize             map_len;
  gboolean          swap;          /* the file's byte order is not ours */
  gboolean          pipe;
  guint             version;       /* 1 or 2 */

  /* Where the records are: [pos, data_end). */
  guint64           pos;
  guint64           data_end;
  guint64           data_offset;
  guint64           data_size;     /* what the header says (file mode) */
  gboolean          data_cut;      /* the file ends before the data does */
  guint64           dropped_until; /* pages of the map before this were given back */
  GError           *feature_damage;/* reported after the events */

  GArray           *attrs;         /* Attr */
  GHashTable       *ids;           /* sample id (guint64 *) → attr index + 1 */
  guint64          *id_keys;       /* the keys, owned in one block per attr */
  GPtrArray        *id_blocks;
  gint              sample_id_pos; /* u64 index of the id in a sample, or -1 */
  gint              trailer_id_pos;/* from the end of a record, or -1 */
  gboolean          identifier;
  guint64           last_id;
  Attr             *last_attr;     /* of last_id; NULL when attrs change */
  guint64           id_base;       /* ids are few and close: attr index + 1 by id - base */
  GArray           *id_table;      /* guint16, or NULL */

  /* zstd: one stream across COMPRESSED records. */
  ZSTD_DStream     *zstd;
  guint8           *decomp;
  gsize             decomp_len;
  gsize             decomp_pos;
  gsize             decomp_alloc;
  guint64           decomp_from;   /* the COMPRESSED record the bytes came from */

  /* Tracing data. */
  struct tep_handle *tep;
  GHashTable        *tp_infos;     /* event id → TpInfo (owned) */
  gboolean           has_sched_switch;
  gboolean           has_fork_tp;
  gboolean           has_exec_tp;
  gboolean           has_exit_tp;
  gboolean           native_order;
  CommCacheEntry    *comm_cache;
  CommWords         *comm_words;
  char              *kallsyms_text; /* from the tracing data, may be NULL */

  GHashTable        *comms;         /* tid → pool id, from COMM/FORK/THREAD_MAP */

  /* Event names of the records that stand in for tracepoints. */
  guint32            name_lost;
  guint32            name_switch;
  guint32            name_fork;
  guint32            name_exec;
  guint32            name_exit;

  /* The reorder buffer, the producer's side: the chunk being filled. */
  Chunk             *filling;
  gint64             last_push_ts;
  gint64             limit;         /* events up to this time may go after this record */
  gint64             round_limit;   /* what the next round may release */
  gint64             max_ts;        /* the largest timestamp seen */
  gint64            *carry;         /* the times of the events pushed after limit */
  guint              carry_n;
  guint              carry_alloc;
  gint64             low[4];        /* of those due at once, in the record being read */
  guint              low_n;
  gboolean           cut;           /* the chunk ends with this record */
  guint              overflow_check;/* waiting events at which the bound is checked */
  guint              window;        /* the bound: MAX_PENDING */
  gboolean           seen_round;
  gboolean           order_overflow;

  /* The consumer's side: the runs of the chunks taken, merged. */
  GArray            *runs;          /* Run, in arrival order */
  gint64             release_limit; /* events up to this time may be handed out */
  gint64             released_ts;   /* the largest timestamp handed out */
  guint64            out_of_order;
  GHashTable        *released_comms;/* tid → pool id: comms as of the chunks taken */
  GHashTable        *timed_comms;   /* the same, as of the last released event */
  gboolean           done;          /* the last chunk was taken */
  gboolean           reported;
  gboolean           started;
  gboolean           read_ahead;    /* asked for: decode in a thread of its own */
  GError            *deferred_error;

  /* The producer thread, when the file lets one run ahead. */
  GThread           *worker;
  GMutex             lock;
  GCond              cond;
  GQueue             ready;         /* Chunk */
  guint              ready_events;
  gboolean           stop;
  gboolean           last_queued;
  gboolean           producer_waiting;
  gboolean           consumer_waiting;
  struct { StrataEvent *events; guint alloc; } spare[SPARE_BUFFERS];
  guint              n_spare;

  /* Call chains, interned. */
  GArray            *frames;        /* guint64 */
  GArray            *chains;        /* Chain */
  GHashTable        *chain_ids;     /* chain index + 1 (hashing the frames) */
  guint64            chain_lookup_hash;

  GArray            *ksyms;         /* KernelSym, sorted; NULL until asked */
  gboolean           ksyms_usable;  /* the kallsyms describe the recorded kernel */
  gint64             ksyms_delta;   /* machine address - recorded address (KASLR) */
  guint64            kernel_text;   /* _text as the file's kernel MMAP says, or 0 */
  GHashTable        *maps;          /* pid → GArray of Map (pid -1: the kernel) */
  GHashTable        *elf_files;     /* path → ElfFile (NULL when not readable) */

  guint64            record_counts[PERF_RECORD_MAX_TYPE];
  guint64            inexact_samples;   /* whose fields do not fill the record */
  guint64            unclaimed_samples; /* of an id no attr has */

  /* Reading record by record (strata_perf_source_next_record_head). */
  guint64            rr_at;         /* where the records being read started afresh */
  guint32            rr_skip;       /* records read since */
  guint64            rr_frontier;   /* the furthest file offset read */
  Record             rr_last;       /* the record given last */
  gboolean           rr_valid;
  gboolean           rr_decided;
  GByteArray        *rr_kept;       /* a compressed file's records, as read; or NULL */
  gsize              rr_cursor;     /* the next one to give from rr_kept */
};

G_DEFINE_FINAL_TYPE (StrataPerfSource, strata_perf_source, STRATA_TYPE_SOURCE)

/* ------------------------------------------------------------------ */
/* Byte order.                                                         */

static inline guint64
rd64 (const StrataPerfSource *self,
      const guint8           *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return self->swap ? GUINT64_SWAP_LE_BE (v) : v;
}

static inline guint32
rd32 (const StrataPerfSource *self,
      const guint8           *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return self->swap ? GUINT32_SWAP_LE_BE (v) : v;
}

static inline guint16
rd16 (const StrataPerfSource *self,
      const guint8           *p)
{
  guint16 v;

  memcpy (&v, p, 2);
  return self->swap ? GUINT16_SWAP_LE_BE (v) : v;
}

static gboolean G_GNUC_PRINTF (5, 6)
fail (StrataPerfSource  *self,
      GError           **error,
      gint               code,
      guint64            offset,
      const char        *format,
      ...)
{
  g_autofree char *msg = NULL;
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, STRATA_ERROR, code, "%s: offset %" G_GUINT64_FORMAT ": %s",
               self->display_name, offset, msg);
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* Tracepoint decoding (the same normalisation as the trace.dat reader). */

static gboolean
field_load_init (FieldLoad               *l,
                 struct tep_format_field *f,
                 gboolean                 string,
                 guint32                 *need)
{
  memset (l, 0, sizeof *l);
  if (f == NULL || f->offset < 0 || f->size <= 0)
    {
      l->kind = FIELD_ABSENT;
      return TRUE;
    }

  l->offset = f->offset;
  l->size = f->size;
  l->is_signed = (f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8;
  if (string)
    l->kind = (f->flags & TEP_FIELD_IS_DYNAMIC) ? FIELD_OTHER : FIELD_STRING;
  else
    l->kind = (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)
              ? FIELD_NUMBER : FIELD_OTHER;
  *need = MAX (*need, (guint32) f->offset + (guint32) f->size);
  return l->kind != FIELD_OTHER;
}

/* Which of a type's fields (StrataTracepointFields.fields) are strings,
 * and how many it has. */
static void
type_fields (guint32  type,
             guint   *n_fields,
             guint   *strings)
{
  switch (type)
    {
    case STRATA_EVENT_SCHED_SWITCH: *n_fields = 7; *strings = 1u << SW_PREV_COMM | 1u << SW_NEXT_COMM; break;
    case STRATA_EVENT_SCHED_WAKING:
    case STRATA_EVENT_SCHED_WAKEUP:
    case STRATA_EVENT_SCHED_WAKEUP_NEW: *n_fields = 5; *strings = 1u << WK_COMM; break;
    case STRATA_EVENT_SCHED_PROCESS_FORK: *n_fields = 4; *strings = 1u << FK_PARENT_COMM | 1u << FK_CHILD_COMM; break;
    case STRATA_EVENT_SCHED_PROCESS_EXEC: *n_fields = 3; *strings = 1u << EX_FILENAME; break;
    case STRATA_EVENT_SCHED_PROCESS_EXIT: *n_fields = 3; *strings = 1u << XT_COMM; break;
    case STRATA_EVENT_IRQ_HANDLER_ENTRY:
    case STRATA_EVENT_IRQ_HANDLER_EXIT: *n_fields = 3; *strings = 1u << IRQ_NAME; break;
    case STRATA_EVENT_SOFTIRQ_ENTRY:
    case STRATA_EVENT_SOFTIRQ_EXIT: *n_fields = 1; *strings = 0; break;
    default: *n_fields = 0; *strings = 0; break;
    }
}

static void
prepare_loads (StrataPerfSource *self,
               TpInfo           *info)
{
  guint n_fields, strings;

  type_fields (info->type, &n_fields, &strings);
  info->need = 0;
  info->direct = self->native_order;
  if (!field_load_init (&info->pid, info->tp.common_pid, FALSE, &info->need))
    info->direct = FALSE;
  for (guint i = 0; i < n_fields; i++)
    if (!field_load_init (&info->f[i], info->tp.fields[i], (strings >> i) & 1, &info->need))
      info->direct = FALSE;
}

static TpInfo *
resolve_tracepoint (StrataPerfSource *self,
                    guint64           config)
{
  struct tep_event *event;
  TpInfo *info;

  if (self->tep == NULL || config > G_MAXINT32)
    return NULL;

  info = g_hash_table_lookup (self->tp_infos, GINT_TO_POINTER ((gint) config));
  if (info != NULL)
    return info;

  event = tep_find_event (self->tep, (int) config);
  if (event == NULL || event->name == NULL)
    return NULL;

  info = g_new0 (TpInfo, 1);
  g_hash_table_insert (self->tp_infos, GINT_TO_POINTER ((gint) config), info);
  info->name = strata_string_pool_intern (self->strings, event->name);
  info->type = strata_tracepoint_fields_resolve (&info->tp, event);
  {
    g_autofree char *full = g_strdup_printf ("%s:%s", event->system ? event->system : "", event->name);

    info->chain_name = strata_string_pool_intern (self->strings, full);
  }
  prepare_loads (self, info);

  return info;
}

static inline gboolean
read_number (StrataPerfSource        *self,
             struct tep_format_field *f,
             struct tep_record       *record,
             gint64                  *value)
{
  return strata_tracepoint_read_number (f, record, self->native_order, value);
}

static gint32
read_i32 (StrataPerfSource        *self,
          struct tep_format_field *f,
          struct tep_record       *record,
          gint32                   fallback)
{
  gint64 v;

  return read_number (self, f, record, &v) ? (gint32) v : fallback;
}

static guint32
intern_cached (StrataPerfSource *self,
               const char       *bytes,
               gsize             len)
{
  if (len <= COMM_CACHE_LEN)
    {
      CommCacheEntry *entry;
      guint32 hash = 2166136261u;

      for (guint i = 0; i < len; i++)
        hash = (hash ^ (guint8) bytes[i]) * 16777619u;
      entry = &self->comm_cache[hash & (COMM_CACHE_SIZE - 1)];

      if (entry->used && entry->len == len && memcmp (entry->bytes, bytes, len) == 0)
        return entry->id;

      entry->id = strata_string_pool_intern_len (self->strings, bytes, len);
      memcpy (entry->bytes, bytes, len);
      entry->len = len;
      entry->used = TRUE;
      return entry->id;
    }

  return strata_string_pool_intern_len (self->strings, bytes, len);
}

/* A comm (char[16]): its two words are its key in a small cache. */
static inline guint32
intern_comm16 (StrataPerfSource *self,
               const char       *bytes)
{
  guint64 w[2];
  CommWords *entry;

  memcpy (w, bytes, 16);
  entry = &self->comm_words[(guint) (((w[0] * 0x9e3779b97f4a7c15ull) ^ w[1]) >> 56) &
                            (COMM_WORDS_SIZE - 1)];
  if (G_LIKELY (entry->used && entry->w[0] == w[0] && entry->w[1] == w[1]))
    return entry->id;
  entry->w[0] = w[0];
  entry->w[1] = w[1];
  entry->used = TRUE;
  entry->id = intern_cached (self, bytes, strnlen (bytes, 16));
  return entry->id;
}

static guint32
read_string (StrataPerfSource        *self,
             struct tep_format_field *f,
             struct tep_record       *record)
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
    return intern_comm16 (self, data + offset);

  return intern_cached (self, data + offset, strnlen (data + offset, len));
}

static guint32
decode_task_state (StrataPerfSource  *self,
                   TpInfo            *info,
                   struct tep_record *record)
{
  gint64 state;

  if (!read_number (self, info->tp.fields[SW_PREV_STATE], record, &state))
    return STRATA_TASK_STATE_UNKNOWN;

  return strata_task_state_format_decode (&info->tp.states, state);
}

static inline gint64
load_number (const guint8    *data,
             const FieldLoad *l)
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

static inline gint32
load_i32 (const guint8    *data,
          const FieldLoad *l,
          gint32           fallback)
{
  return l->kind == FIELD_NUMBER ? (gint32) load_number (data, l) : fallback;
}

static guint32
load_string (StrataPerfSource *self,
             const guint8     *data,
             const FieldLoad  *l)
{
  if (l->kind != FIELD_STRING)
    return STRATA_STRING_NONE;
  if (l->size == 16)
    return intern_comm16 (self, (const char *) data + l->offset);
  return intern_cached (self, (const char *) data + l->offset,
                        strnlen ((const char *) data + l->offset, l->size));
}

/* The same as decode_tracepoint() below for a format whose fields all
 * load directly and a record that holds them all: no look-ups, no
 * checks per field. */
static void
decode_direct (StrataPerfSource *self,
               TpInfo           *info,
               const guint8     *d,
               gboolean          has_tid,
               StrataEvent      *event)
{
  const FieldLoad *f = info->f;

  event->type = info->type;
  event->name = info->name;
  if (!has_tid)
    event->pid = load_i32 (d, &info->pid, -1);

  switch (info->type)
    {
    case STRATA_EVENT_SCHED_SWITCH:
      event->u.sched_switch.prev_comm = load_string (self, d, &f[SW_PREV_COMM]);
      event->u.sched_switch.prev_pid = load_i32 (d, &f[SW_PREV_PID], -1);
      event->u.sched_switch.prev_prio = load_i32 (d, &f[SW_PREV_PRIO], -1);
      event->u.sched_switch.prev_state =
        f[SW_PREV_STATE].kind == FIELD_NUMBER
        ? strata_task_state_format_decode (&info->tp.states, load_number (d, &f[SW_PREV_STATE]))
        : STRATA_TASK_STATE_UNKNOWN;
      event->u.sched_switch.next_comm = load_string (self, d, &f[SW_NEXT_COMM]);
      event->u.sched_switch.next_pid = load_i32 (d, &f[SW_NEXT_PID], -1);
      event->u.sched_switch.next_prio = load_i32 (d, &f[SW_NEXT_PRIO], -1);
      break;
    case STRATA_EVENT_SCHED_WAKING:
    case STRATA_EVENT_SCHED_WAKEUP:
    case STRATA_EVENT_SCHED_WAKEUP_NEW:
      event->u.wakeup.comm = load_string (self, d, &f[WK_COMM]);
      event->u.wakeup.pid = load_i32 (d, &f[WK_PID], -1);
      event->u.wakeup.prio = load_i32 (d, &f[WK_PRIO], -1);
      event->u.wakeup.target_cpu = load_i32 (d, &f[WK_TARGET_CPU], -1);
      event->u.wakeup.context =
        strata_event_context_from_trace_flags (load_i32 (d, &f[WK_COMMON_FLAGS], 0));
      break;
    case STRATA_EVENT_SCHED_PROCESS_FORK:
      event->u.fork.parent_comm = load_string (self, d, &f[FK_PARENT_COMM]);
      event->u.fork.parent_pid = load_i32 (d, &f[FK_PARENT_PID], -1);
      event->u.fork.child_comm = load_string (self, d, &f[FK_CHILD_COMM]);
      event->u.fork.child_pid = load_i32 (d, &f[FK_CHILD_PID], -1);
      break;
    case STRATA_EVENT_SCHED_PROCESS_EXEC:
      event->u.exec.filename = load_string (self, d, &f[EX_FILENAME]);
      event->u.exec.pid = load_i32 (d, &f[EX_PID], -1);
      event->u.exec.old_pid = load_i32 (d, &f[EX_OLD_PID], -1);
      break;
    case STRATA_EVENT_SCHED_PROCESS_EXIT:
      event->u.exit.comm = load_string (self, d, &f[XT_COMM]);
      event->u.exit.pid = load_i32 (d, &f[XT_PID], -1);
      event->u.exit.prio = load_i32 (d, &f[XT_PRIO], -1);
      break;
    case STRATA_EVENT_IRQ_HANDLER_ENTRY:
    case STRATA_EVENT_IRQ_HANDLER_EXIT:
      event->u.irq.irq = load_i32 (d, &f[IRQ_IRQ], -1);
      event->u.irq.name = load_string (self, d, &f[IRQ_NAME]);
      event->u.irq.ret = load_i32 (d, &f[IRQ_RET], 0);
      break;
    case STRATA_EVENT_SOFTIRQ_ENTRY:
    case STRATA_EVENT_SOFTIRQ_EXIT:
      event->u.softirq.vec = load_i32 (d, &f[SI_VEC], -1);
      break;
    default:
      break;
    }
}

static void
decode_tracepoint (StrataPerfSource *self,
                   TpInfo           *info,
                   const guint8     *raw,
                   guint32           raw_size,
                   gboolean          has_tid,
                   StrataEvent      *event)
{
  struct tep_record record = { 0 };
  struct tep_format_field **f = info->tp.fields;

  if (info->direct && raw_size >= info->need && self->native_order)
    {
      decode_direct (self, info, raw, has_tid, event);
      return;
    }

  record.data = (void *) raw;
  record.size = raw_size;
  record.cpu = event->cpu;

  event->type = info->type;
  event->name = info->name;
  if (!has_tid)
    event->pid = read_i32 (self, info->tp.common_pid, &record, -1);

  switch (info->type)
    {
    case STRATA_EVENT_SCHED_SWITCH:
      event->u.sched_switch.prev_comm = read_string (self, f[SW_PREV_COMM], &record);
      event->u.sched_switch.prev_pid = read_i32 (self, f[SW_PREV_PID], &record, -1);
      event->u.sched_switch.prev_prio = read_i32 (self, f[SW_PREV_PRIO], &record, -1);
      event->u.sched_switch.prev_state = decode_task_state (self, info, &record);
      event->u.sched_switch.next_comm = read_string (self, f[SW_NEXT_COMM], &record);
      event->u.sched_switch.next_pid = read_i32 (self, f[SW_NEXT_PID], &record, -1);
      event->u.sched_switch.next_prio = read_i32 (self, f[SW_NEXT_PRIO], &record, -1);
      break;
    case STRATA_EVENT_SCHED_WAKING:
    case STRATA_EVENT_SCHED_WAKEUP:
    case STRATA_EVENT_SCHED_WAKEUP_NEW:
      event->u.wakeup.comm = read_string (self, f[WK_COMM], &record);
      event->u.wakeup.pid = read_i32 (self, f[WK_PID], &record, -1);
      event->u.wakeup.prio = read_i32 (self, f[WK_PRIO], &record, -1);
      event->u.wakeup.target_cpu = read_i32 (self, f[WK_TARGET_CPU], &record, -1);
      event->u.wakeup.context =
        strata_event_context_from_trace_flags (read_i32 (self, f[WK_COMMON_FLAGS], &record, 0));
      break;
    case STRATA_EVENT_SCHED_PROCESS_FORK:
      event->u.fork.parent_comm = read_string (self, f[FK_PARENT_COMM], &record);
      event->u.fork.parent_pid = read_i32 (self, f[FK_PARENT_PID], &record, -1);
      event->u.fork.child_comm = read_string (self, f[FK_CHILD_COMM], &record);
      event->u.fork.child_pid = read_i32 (self, f[FK_CHILD_PID], &record, -1);
      break;
    case STRATA_EVENT_SCHED_PROCESS_EXEC:
      event->u.exec.filename = read_string (self, f[EX_FILENAME], &record);
      event->u.exec.pid = read_i32 (self, f[EX_PID], &record, -1);
      event->u.exec.old_pid = read_i32 (self, f[EX_OLD_PID], &record, -1);
      break;
    case STRATA_EVENT_SCHED_PROCESS_EXIT:
      event->u.exit.comm = read_string (self, f[XT_COMM], &record);
      event->u.exit.pid = read_i32 (self, f[XT_PID], &record, -1);
      event->u.exit.prio = read_i32 (self, f[XT_PRIO], &record, -1);
      break;
    case STRATA_EVENT_IRQ_HANDLER_ENTRY:
    case STRATA_EVENT_IRQ_HANDLER_EXIT:
      event->u.irq.irq = read_i32 (self, f[IRQ_IRQ], &record, -1);
      event->u.irq.name = read_string (self, f[IRQ_NAME], &record);
      event->u.irq.ret = read_i32 (self, f[IRQ_RET], &record, 0);
      break;
    case STRATA_EVENT_SOFTIRQ_ENTRY:
    case STRATA_EVENT_SOFTIRQ_EXIT:
      event->u.softirq.vec = read_i32 (self, f[SI_VEC], &record, -1);
      break;
    default:
      break;
    }
}

/* ------------------------------------------------------------------ */
/* The tracing data: the same layout as the start of a trace.dat.       */

typedef struct
{
  StrataPerfSource *self;
  const guint8     *data;
  gsize             len;
  gsize             pos;
  guint64           base;       /* its offset in the file, for messages */
  gboolean          big_endian;
} Blob;

static gboolean
blob_need (Blob    *b,
           gsize    n,
           GError **error,
           const char *what)
{
  if (b->len - b->pos < n)
    return fail (b->self, error, STRATA_ERROR_TRUNCATED, b->base + b->pos,
                 "tracing data: %s needs %" G_GSIZE_FORMAT " bytes, %" G_GSIZE_FORMAT " left",
                 what, n, b->len - b->pos);
  return TRUE;
}

static guint64
blob_num (Blob  *b,
          guint  size)
{
  guint64 v = 0;

  for (guint i = 0; i < size; i++)
    {
      guint8 byte = b->data[b->pos + i];

      if (b->big_endian)
        v = (v << 8) | byte;
      else
        v |= (guint64) byte << (8 * i);
    }
  b->pos += size;
  return v;
}

static const char *
blob_string (Blob    *b,
             GError **error,
             const char *what)
{
  const guint8 *nul = memchr (b->data + b->pos, '\0', b->len - b->pos);
  const char *s;

  if (nul == NULL)
    {
      fail (b->self, error, STRATA_ERROR_TRUNCATED, b->base + b->pos,
            "tracing data: %s is not terminated", what);
      return NULL;
    }
  s = (const char *) b->data + b->pos;
  b->pos = nul - b->data + 1;
  return s;
}

/* A block of @size_bytes length then the bytes; a copy with a nul after. */
static char *
blob_block (Blob    *b,
            guint    size_bytes,
            gsize   *len,
            GError **error,
            const char *what)
{
  guint64 n;
  char *copy;

  if (!blob_need (b, size_bytes, error, what))
    return NULL;
  n = blob_num (b, size_bytes);
  if (n > b->len - b->pos)
    {
      fail (b->self, error, STRATA_ERROR_CORRUPT, b->base + b->pos - size_bytes,
            "tracing data: %s says %" G_GUINT64_FORMAT " bytes, only %" G_GSIZE_FORMAT " follow",
            what, n, b->len - b->pos);
      return NULL;
    }
  copy = g_malloc (n + 1);
  memcpy (copy, b->data + b->pos, n);
  copy[n] = '\0';
  b->pos += n;
  *len = n;
  return copy;
}

/* The printk format lines ("ADDR : \"FORMAT\"") libtraceevent can take.
 * It splits a line at its first ':', skips one byte and a quote, and
 * reads before the start of what is left when that is under three bytes
 * long. */
static char *
printk_formats_sane (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GString *kept = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *colon = strchr (lines[i], ':');
      const char *fmt;

      if (!g_ascii_isxdigit (lines[i][0]) || colon == NULL || colon[1] == '\0')
        continue;
      fmt = colon + 2;
      if (*fmt == '"')
        fmt++;
      if (strlen (fmt) < 3)
        continue;
      g_string_append (kept, lines[i]);
      g_string_append_c (kept, '\n');
    }

  return g_string_free (kept, FALSE);
}

static gboolean
parse_tracing_data (StrataPerfSource  *self,
                    const guint8      *data,
                    gsize              len,
                    guint64            base,
                    GError           **error)
{
  static const guint8 magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
  Blob b = { self, data, len, 0, base, FALSE };
  const char *version;
  guint long_size, page_size;
  guint64 n;
  gsize block_len;
  char *block;
  guint major = 0, minor = 0;

  if (self->tep != NULL)
    return TRUE;  /* a second copy (pipe mode repeats nothing, but be safe) */

  if (!blob_need (&b, sizeof magic, error, "the magic"))
    return FALSE;
  if (memcmp (data, magic, sizeof magic) != 0)
    return fail (self, error, STRATA_ERROR_CORRUPT, base, "tracing data: bad magic");
  b.pos = sizeof magic;

  if ((version = blob_string (&b, error, "the version")) == NULL)
    return FALSE;
  if (sscanf (version, "%u.%u", &major, &minor) < 1)
    return fail (self, error, STRATA_ERROR_CORRUPT, base + sizeof magic,
                 "tracing data: version \"%.16s\" is not a number", version);

  if (!blob_need (&b, 2 + 4, error, "the byte order and sizes"))
    return FALSE;
  b.big_endian = data[b.pos++] != 0;
  long_size = data[b.pos++];
  page_size = blob_num (&b, 4);
  if (long_size != 4 && long_size != 8)
    return fail (self, error, STRATA_ERROR_CORRUPT, base + b.pos - 5,
                 "tracing data: long size %u", long_size);

  self->tep = tep_alloc ();
  tep_set_flag (self->tep, TEP_NSEC_OUTPUT);
  tep_set_file_bigendian (self->tep, b.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian (self->tep, G_BYTE_ORDER == G_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_long_size (self->tep, long_size);
  tep_set_page_size (self->tep, page_size);
  self->native_order = b.big_endian == (G_BYTE_ORDER == G_BIG_ENDIAN);

  /* header_page and header_event: a name, an 8-byte size, the text. */
  for (guint i = 0; i < 2; i++)
    {
      const char *expect = i == 0 ? "header_page" : "header_event";
      const char *name = blob_string (&b, error, "a header section's name");

      if (name == NULL)
        return FALSE;
      if (strcmp (name, expect) != 0)
        return fail (self, error, STRATA_ERROR_CORRUPT, base + b.pos,
                     "tracing data: expected %s, found \"%.32s\"", expect, name);
      if ((block = blob_block (&b, 8, &block_len, error, expect)) == NULL)
        return FALSE;
      if (i == 0)
        tep_parse_header_page (self->tep, block, block_len, long_size);
      g_free (block);
    }

  /* ftrace's own event formats. */
  if (!blob_need (&b, 4, error, "the ftrace format count"))
    return FALSE;
  n = blob_num (&b, 4);
  for (guint64 i = 0; i < n; i++)
    {
      if ((block = blob_block (&b, 8, &block_len, error, "an ftrace format")) == NULL)
        return FALSE;
      tep_parse_event (self->tep, block, block_len, "ftrace");
      g_free (block);
    }

  /* The event systems and their formats. */
  if (!blob_need (&b, 4, error, "the system count"))
    return FALSE;
  n = blob_num (&b, 4);
  for (guint64 i = 0; i < n; i++)
    {
      const char *system = blob_string (&b, error, "a system name");
      guint64 count;

      if (system == NULL)
        return FALSE;
      if (!blob_need (&b, 4, error, "a system's event count"))
        return FALSE;
      count = blob_num (&b, 4);
      for (guint64 j = 0; j < count; j++)
        {
          if ((block = blob_block (&b, 8, &block_len, error, "an event format")) == NULL)
            return FALSE;
          tep_parse_event (self->tep, block, block_len, system);
          g_free (block);
        }
    }

  /* kallsyms and printk formats; saved cmdlines from version 0.6 on. */
  if ((block = blob_block (&b, 4, &block_len, error, "kallsyms")) == NULL)
    return FALSE;
  if (block_len > 0)
    {
      tep_parse_kallsyms (self->tep, block);
      self->kallsyms_text = block;
    }
  else
    g_free (block);

  if ((block = blob_block (&b, 4, &block_len, error, "printk formats")) == NULL)
    return FALSE;
  if (block_len > 0)
    {
      g_autofree char *kept = printk_formats_sane (block);

      tep_parse_printk_formats (self->tep, kept);
    }
  g_free (block);

  if ((major > 0 || minor >= 6) && b.pos < b.len)
    {
      if ((block = blob_block (&b, 8, &block_len, error, "saved cmdlines")) == NULL)
        return FALSE;
      if (block_len > 0)
        tep_parse_saved_cmdlines (self->tep, block);
      g_free (block);
    }

  return TRUE;
}

extern void __sanitizer_set_death_callback (void (*callback) (void)) __attribute__((weak));

#define PROBE_TIMEOUT_MS 5000

/* libtraceevent trusts the event formats it parses: a damaged one can
 * crash it. So the tracing data is parsed first in a child process, and
 * only if that child survives, here. */
static gboolean
parse_tracing_data_checked (StrataPerfSource  *self,
                            const guint8      *data,
                            gsize              len,
                            guint64            base,
                            GError           **error)
{
  int status = 0;
  pid_t pid, done = 0;
  gint64 deadline;

  if (self->tep != NULL)
    return TRUE;

  pid = fork ();
  if (pid == 0)
    {
      /* Die of the signal: a sanitizer or fuzzer runtime would otherwise
       * report the child's crash as the parent's. */
      signal (SIGSEGV, SIG_DFL);
      signal (SIGBUS, SIG_DFL);
      signal (SIGABRT, SIG_DFL);
      signal (SIGFPE, SIG_DFL);
      signal (SIGILL, SIG_DFL);
      if (__sanitizer_set_death_callback != NULL)
        __sanitizer_set_death_callback (NULL);
      alarm (PROBE_TIMEOUT_MS / 1000 + 1);
      parse_tracing_data (self, data, len, base, NULL);
      for (guint i = 0; i < self->attrs->len; i++)
        {
          const Attr *a = &g_array_index (self->attrs, Attr, i);

          if (a->type == PERF_TYPE_TRACEPOINT)
            resolve_tracepoint (self, a->config);
        }
      _exit (0);
    }

  if (pid > 0)
    {
      deadline = g_get_monotonic_time () + PROBE_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;
      while ((done = waitpid (pid, &status, WNOHANG)) == 0 || (done < 0 && errno == EINTR))
        {
          if (g_get_monotonic_time () > deadline)
            break;
          g_usleep (200);
        }
      if (done == 0)
        {
          kill (pid, SIGKILL);
          waitpid (pid, &status, 0);
          return fail (self, error, STRATA_ERROR_CORRUPT, base,
                       "libtraceevent did not finish parsing the tracing data's event formats");
        }
      if (done == pid && (WIFSIGNALED (status) || WEXITSTATUS (status) != 0))
        return fail (self, error, STRATA_ERROR_CORRUPT, base,
                     "libtraceevent crashed (%s) parsing the tracing data: its event "
                     "formats are damaged",
                     WIFSIGNALED (status) ? g_strsignal (WTERMSIG (status)) : "exit status");
    }

  return parse_tracing_data (self, data, len, base, error);
}

/* Once the attrs and the tracing data are both known. */
static void
resolve_attr_names (StrataPerfSource *self)
{
  for (guint i = 0; i < self->attrs->len; i++)
    {
      Attr *a = &g_array_index (self->attrs, Attr, i);

      if (a->type != PERF_TYPE_TRACEPOINT || a->tp != NULL)
        continue;
      a->tp = resolve_tracepoint (self, a->config);
      if (a->tp != NULL)
        {
          a->name = a->tp->name;
          a->named = TRUE;
          switch (a->tp->type)
            {
            case STRATA_EVENT_SCHED_SWITCH: self->has_sched_switch = TRUE; break;
            case STRATA_EVENT_SCHED_PROCESS_FORK: self->has_fork_tp = TRUE; break;
            case STRATA_EVENT_SCHED_PROCESS_EXEC: self->has_exec_tp = TRUE; break;
            case STRATA_EVENT_SCHED_PROCESS_EXIT: self->has_exit_tp = TRUE; break;
            default: break;
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* Attrs.                                                               */

static const char *
attr_default_name (guint32 type,
                   guint64 config)
{
  static const char *hw[] = {
    "cycles", "instructions", "cache-references", "cache-misses",
    "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
    "stalled-cycles-backend", "ref-cycles",
  };
  static const char *sw[] = {
    "cpu-clock", "task-clock", "page-faults", "context-switches",
    "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy", "bpf-output", "cgroup-switches",
  };

  if (type == PERF_TYPE_HARDWARE && config < G_N_ELEMENTS (hw))
    return hw[config];
  if (type == PERF_TYPE_SOFTWARE && config < G_N_ELEMENTS (sw))
    return sw[config];
  return NULL;
}

static guint
sample_id_size (guint64 sample_type)
{
  guint n = 0;

  n += !!(sample_type & PERF_SAMPLE_TID);
  n += !!(sample_type & PERF_SAMPLE_TIME);
  n += !!(sample_type & PERF_SAMPLE_ID);
  n += !!(sample_type & PERF_SAMPLE_STREAM_ID);
  n += !!(sample_type & PERF_SAMPLE_CPU);
  n += !!(sample_type & PERF_SAMPLE_IDENTIFIER);

  return n * 8;
}

/* Reverses the bits of each byte: a bit field word written by a machine
 * of the other byte order keeps its bytes in place but numbers the bits
 * from the other end of each. */
static guint64
swap_bitfield (guint64 v)
{
  guint64 out = 0;

  for (guint byte = 0; byte < 8; byte++)
    {
      guint8 b = (v >> (8 * byte)) & 0xff, r = 0;

      for (guint bit = 0; bit < 8; bit++)
        if (b & (1u << bit))
          r |= 1u << (7 - bit);
      out |= (guint64) r << (8 * byte);
    }

  return out;
}

/* Adds an attr read from @p (@len bytes of it, which may be more or less
 * than we know) and its sample ids. */
static gboolean
add_attr (StrataPerfSource  *self,
          const guint8      *p,
          gsize              len,
          guint64            offset,
          const guint8      *ids,
          guint64            n_ids,
          GError           **error)
{
  guint8 buf[PERF_ATTR_SIZE_KNOWN] = { 0 };
  Attr a = { 0 };
  const char *name;
  guint index;
  guint64 *keys;

  if (self->attrs->len >= MAX_ATTRS)
    return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                 "more than %u event attributes", MAX_ATTRS);
  if (len < PERF_ATTR_SIZE_VER0)
    return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                 "an event attribute of %" G_GSIZE_FORMAT " bytes (at least %u expected)",
                 len, PERF_ATTR_SIZE_VER0);
  memcpy (buf, p, MIN (len, sizeof buf));

  a.type = rd32 (self, buf + PERF_ATTR_OFF_TYPE);
  a.config = rd64 (self, buf + PERF_ATTR_OFF_CONFIG);
  a.sample_type = rd64 (self, buf + PERF_ATTR_OFF_SAMPLE_TYPE);
  a.read_format = rd64 (self, buf + PERF_ATTR_OFF_READ_FORMAT);
  memcpy (&a.flags, buf + PERF_ATTR_OFF_FLAGS, 8);
  if (self->swap)
    a.flags = swap_bitfield (a.flags);
  else
    a.flags = GUINT64_FROM_LE (a.flags);
  a.branch_sample_type = rd64 (self, buf + PERF_ATTR_OFF_BRANCH_SAMPLE);
  a.n_user_regs = __builtin_popcountll (rd64 (self, buf + PERF_ATTR_OFF_REGS_USER));
  a.n_intr_regs = __builtin_popcountll (rd64 (self, buf + PERF_ATTR_OFF_REGS_INTR));
  a.clockid = (gint32) rd32 (self, buf + PERF_ATTR_OFF_CLOCKID);
  a.sample_id_all = (a.flags >> PERF_ATTR_FLAG_SAMPLE_ID_ALL) & 1;
  a.trailer = a.sample_id_all ? sample_id_size (a.sample_type) : 0;

  name = attr_default_name (a.type, a.config);
  if (name != NULL)
    a.name = strata_string_pool_intern (self->strings, name);
  else
    {
      g_autofree char *s = g_strdup_printf ("perf-event-%u:%" G_GUINT64_FORMAT, a.type, a.config);
      a.name = strata_string_pool_intern (self->strings, s);
    }

  g_array_append_val (self->attrs, a);
  self->last_attr = NULL;  /* the array may have moved */
  index = self->attrs->len;

  if (n_ids > MAX_IDS)
    return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                 "an event attribute with %" G_GUINT64_FORMAT " ids", n_ids);
  keys = g_new (guint64, MAX (n_ids, 1));
  g_ptr_array_add (self->id_blocks, keys);
  for (guint64 i = 0; i < n_ids; i++)
    {
      keys[i] = rd64 (self, ids + 8 * i);
      g_hash_table_insert (self->ids, &keys[i], GUINT_TO_POINTER (index));
    }

  return TRUE;
}

/* Where the id is in samples and in trailers: the same for every attr,
 * as perf requires of a file with several. */
/* The kernel numbers sample ids from a counter: the ids of one file are
 * usually a dense range, looked up by index rather than hashed. */
static void
build_id_table (StrataPerfSource *self)
{
  GHashTableIter iter;
  gpointer key, value;
  guint64 lo = G_MAXUINT64, hi = 0;

  g_clear_pointer (&self->id_table, g_array_unref);
  if (g_hash_table_size (self->ids) == 0 || self->attrs->len >= G_MAXUINT16)
    return;

  g_hash_table_iter_init (&iter, self->ids);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      lo = MIN (lo, *(guint64 *) key);
      hi = MAX (hi, *(guint64 *) key);
    }
  if (hi - lo >= 65536)
    return;

  self->id_base = lo;
  self->id_table = g_array_new (FALSE, TRUE, sizeof (guint16));
  g_array_set_size (self->id_table, hi - lo + 1);
  g_hash_table_iter_init (&iter, self->ids);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_array_index (self->id_table, guint16, *(guint64 *) key - lo) = GPOINTER_TO_UINT (value);
}

static void
compute_id_positions (StrataPerfSource *self)
{
  const Attr *a;
  guint64 st;

  build_id_table (self);

  self->sample_id_pos = -1;
  self->trailer_id_pos = -1;
  self->identifier = FALSE;

  if (self->attrs->len == 0)
    return;

  a = &g_array_index (self->attrs, Attr, 0);
  st = a->sample_type;

  if (st & PERF_SAMPLE_IDENTIFIER)
    {
      self->identifier = TRUE;
      self->sample_id_pos = 0;
      self->trailer_id_pos = 1;
    }
  else if (st & PERF_SAMPLE_ID)
    {
      guint pos = 0, back = 1;

      pos += !!(st & PERF_SAMPLE_IP);
      pos += !!(st & PERF_SAMPLE_TID);
      pos += !!(st & PERF_SAMPLE_TIME);
      pos += !!(st & PERF_SAMPLE_ADDR);
      self->sample_id_pos = pos;

      back += !!(st & PERF_SAMPLE_STREAM_ID);
      back += !!(st & PERF_SAMPLE_CPU);
      self->trailer_id_pos = back;
    }
}

static Attr *
attr_for_id (StrataPerfSource *self,
             guint64           id)
{
  gpointer found;

  /* Runs of samples of one event are the rule: remember the last id. */
  if (self->last_attr != NULL && id == self->last_id)
    return self->last_attr;

  if (self->id_table != NULL && id - self->id_base < self->id_table->len)
    {
      guint16 index = g_array_index (self->id_table, guint16, id - self->id_base);

      if (index != 0)
        {
          self->last_id = id;
          self->last_attr = &g_array_index (self->attrs, Attr, index - 1);
          return self->last_attr;
        }
    }

  found = g_hash_table_lookup (self->ids, &id);
  if (found != NULL)
    {
      self->last_id = id;
      self->last_attr = &g_array_index (self->attrs, Attr, GPOINTER_TO_UINT (found) - 1);
      return self->last_attr;
    }

  if (found == NULL)
    return self->attrs->len == 1 ? &g_array_index (self->attrs, Attr, 0) : NULL;
  return &g_array_index (self->attrs, Attr, GPOINTER_TO_UINT (found) - 1);
}

static Attr *
attr_of_sample (StrataPerfSource *self,
                const guint8     *body,
                gsize             len)
{
  if (self->attrs->len == 0)
    return NULL;
  if (self->attrs->len == 1 || self->sample_id_pos < 0)
    return &g_array_index (self->attrs, Attr, 0);
  if ((gsize) (self->sample_id_pos + 1) * 8 > len)
    return NULL;
  return attr_for_id (self, rd64 (self, body + 8 * self->sample_id_pos));
}

static Attr *
attr_of_other (StrataPerfSource *self,
               const guint8     *body,
               gsize             len)
{
  if (self->attrs->len == 0)
    return NULL;
  if (self->attrs->len == 1 || self->trailer_id_pos < 0)
    return &g_array_index (self->attrs, Attr, 0);
  if ((gsize) self->trailer_id_pos * 8 > len)
    return NULL;
  return attr_for_id (self, rd64 (self, body + len - 8 * self->trailer_id_pos));
}

static void
name_attrs_by_id (StrataPerfSource *self,
                  guint64           id,
                  const char       *name)
{
  gpointer found = g_hash_table_lookup (self->ids, &id);
  Attr *a;

  if (found == NULL)
    return;
  a = &g_array_index (self->attrs, Attr, GPOINTER_TO_UINT (found) - 1);
  if (a->tp != NULL)
    return;  /* a tracepoint keeps its format's name */
  a->name = strata_string_pool_intern (self->strings, name);
  a->named = TRUE;
}

/* ------------------------------------------------------------------ */
/* Samples and sample_id trailers.                                      */

#define NEED(n) G_STMT_START { if ((gsize) (n) > len - pos) { *why = what; return FALSE; } } G_STMT_END

static gboolean
parse_sample (StrataPerfSource  *self,
              const Attr        *a,
              const guint8      *p,
              gsize              len,
              Sample            *s,
              gsize             *used,
              const char       **why)
{
  guint64 st = a->sample_type;
  gsize pos = 0;
  const char *what = "";

  memset (s, 0, sizeof *s);
  s->cpu = -1;
  s->pid = -1;
  s->tid = -1;

  if (st & PERF_SAMPLE_IDENTIFIER) { what = "the identifier"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_IP) { what = "the ip"; NEED (8); s->ip = rd64 (self, p + pos); pos += 8; }
  if (st & PERF_SAMPLE_TID)
    {
      what = "the pid and tid"; NEED (8);
      s->pid = rd32 (self, p + pos);
      s->tid = rd32 (self, p + pos + 4);
      s->has_tid = TRUE;
      pos += 8;
    }
  if (st & PERF_SAMPLE_TIME) { what = "the time"; NEED (8); s->time = rd64 (self, p + pos); s->has_time = TRUE; pos += 8; }
  if (st & PERF_SAMPLE_ADDR) { what = "the address"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_ID) { what = "the id"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_STREAM_ID) { what = "the stream id"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_CPU) { what = "the cpu"; NEED (8); s->cpu = rd32 (self, p + pos); s->has_cpu = TRUE; pos += 8; }
  if (st & PERF_SAMPLE_PERIOD) { what = "the period"; NEED (8); s->period = rd64 (self, p + pos); pos += 8; }
  if (st & PERF_SAMPLE_READ)
    {
      guint64 rf = a->read_format;
      guint per_value = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
      guint times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

      what = "the read values";
      if (rf & PERF_FORMAT_GROUP)
        {
          guint64 nr;

          NEED (8);
          nr = rd64 (self, p + pos);
          pos += 8;
          NEED (8 * times);
          pos += 8 * times;
          if (nr > (len - pos) / (8 * per_value))
            {
              *why = "the read group's count";
              return FALSE;
            }
          pos += nr * 8 * per_value;
        }
      else
        {
          NEED (8 * (per_value + times));
          pos += 8 * (per_value + times);
        }
    }
  if (st & PERF_SAMPLE_CALLCHAIN)
    {
      what = "the call chain";
      NEED (8);
      s->nr = rd64 (self, p + pos);
      pos += 8;
      if (s->nr > (len - pos) / 8)
        {
          *why = "the call chain's length";
          return FALSE;
        }
      s->ips = p + pos;
      pos += s->nr * 8;
    }
  if (st & PERF_SAMPLE_RAW)
    {
      what = "the raw data's size";
      NEED (4);
      s->raw_size = rd32 (self, p + pos);
      pos += 4;
      what = "the raw data";
      NEED (s->raw_size);
      s->raw = p + pos;
      pos += s->raw_size;
    }
  if (st & PERF_SAMPLE_BRANCH_STACK)
    {
      guint64 nr;

      what = "the branch stack";
      NEED (8);
      nr = rd64 (self, p + pos);
      pos += 8;
      if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
        {
          NEED (8);
          pos += 8;
        }
      if (nr > (len - pos) / 24)
        {
          *why = "the branch stack's length";
          return FALSE;
        }
      pos += nr * 24;
    }
  if (st & PERF_SAMPLE_REGS_USER)
    {
      guint64 abi;

      what = "the user registers";
      NEED (8);
      abi = rd64 (self, p + pos);
      pos += 8;
      if (abi != 0)
        {
          NEED (8 * a->n_user_regs);
          pos += 8 * a->n_user_regs;
        }
    }
  if (st & PERF_SAMPLE_STACK_USER)
    {
      guint64 size;

      what = "the user stack";
      NEED (8);
      size = rd64 (self, p + pos);
      pos += 8;
      NEED (size);
      pos += size;
      if (size != 0)
        {
          NEED (8);
          pos += 8;
        }
    }
  if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) { what = "the weight"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_DATA_SRC) { what = "the data source"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_TRANSACTION) { what = "the transaction"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_REGS_INTR)
    {
      guint64 abi;

      what = "the interrupt registers";
      NEED (8);
      abi = rd64 (self, p + pos);
      pos += 8;
      if (abi != 0)
        {
          NEED (8 * a->n_intr_regs);
          pos += 8 * a->n_intr_regs;
        }
    }
  if (st & PERF_SAMPLE_PHYS_ADDR) { what = "the physical address"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_CGROUP) { what = "the cgroup"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_DATA_PAGE_SIZE) { what = "the data page size"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_CODE_PAGE_SIZE) { what = "the code page size"; NEED (8); pos += 8; }
  if (st & PERF_SAMPLE_AUX)
    {
      guint64 size;

      what = "the aux data";
      NEED (8);
      size = rd64 (self, p + pos);
      pos += 8;
      NEED (size);
      pos += size;
    }

  *used = pos;
  return TRUE;
}

#undef NEED

/* The sample_id_all trailer at the end of a non-sample record. */
static gboolean
parse_trailer (StrataPerfSource *self,
               const Attr       *a,
               const guint8     *body,
               gsize             len,
               Sample           *s)
{
  const guint8 *p;
  guint64 st;

  memset (s, 0, sizeof *s);
  s->cpu = -1;
  s->pid = -1;
  s->tid = -1;

  if (a == NULL || !a->sample_id_all)
    return TRUE;
  if (a->trailer > len)
    return FALSE;

  st = a->sample_type;
  p = body + len - a->trailer;

  if (st & PERF_SAMPLE_TID)
    {
      s->pid = rd32 (self, p);
      s->tid = rd32 (self, p + 4);
      s->has_tid = TRUE;
      p += 8;
    }
  if (st & PERF_SAMPLE_TIME)
    {
      s->time = rd64 (self, p);
      s->has_time = TRUE;
      p += 8;
    }
  if (st & PERF_SAMPLE_ID)
    p += 8;
  if (st & PERF_SAMPLE_STREAM_ID)
    p += 8;
  if (st & PERF_SAMPLE_CPU)
    {
      s->cpu = rd32 (self, p);
      s->has_cpu = TRUE;
    }

  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Call chains.                                                         */

static guint
chain_hash (gconstpointer key)
{
  return (guint) (*(const guint64 *) key);
}

typedef struct
{
  StrataPerfSource *self;
  const guint64    *frames;
  guint             len;
} ChainKey;

/* The table's keys are chain indices + 1 disguised as pointers, except
 * during a look-up, when the key is a ChainKey: the table hashes with the
 * hash kept beside the chain, so both sides hash alike. */
static guint32
intern_chain (StrataPerfSource *self,
              const guint64    *frames,
              guint             len)
{
  guint64 hash = 1469598103934665603ull;
  GArray *bucket;
  Chain c;

  for (guint i = 0; i < len; i++)
    hash = (hash ^ frames[i]) * 1099511628211ull;
  hash ^= len;

  bucket = g_hash_table_lookup (self->chain_ids, &hash);
  if (bucket != NULL)
    for (guint i = 0; i < bucket->len; i++)
      {
        guint32 id = g_array_index (bucket, guint32, i);
        const Chain *known = &g_array_index (self->chains, Chain, id);

        if (known->len == len &&
            memcmp (&g_array_index (self->frames, guint64, known->start), frames, len * 8) == 0)
          return id;
      }

  if (bucket == NULL)
    {
      guint64 *key = g_new (guint64, 1);

      *key = hash;
      bucket = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_hash_table_insert (self->chain_ids, key, bucket);
    }

  c.start = self->frames->len;
  c.len = len;
  g_array_append_vals (self->frames, frames, len);
  g_array_append_val (self->chains, c);
  {
    guint32 id = self->chains->len - 1;
    g_array_append_val (bucket, id);
    return id;
  }
}

/* ------------------------------------------------------------------ */
/* The reorder buffer.                                                  */

/* The records are cut into chunks: at each FINISHED_ROUND, and wherever
 * else what may be handed out changes (the bound's flush, an event that
 * is due as soon as it arrives). A chunk holds the events of its records
 * in arrival order, split into runs that are each in time order, and the
 * time up to which events may go once it is in. The producer (reading
 * and decoding records) fills chunks; the consumer (read_batch) merges
 * the runs of the chunks it has taken, up to that time. What the release
 * reads of the records' state (the comms, the lost counts) travels in the
 * chunk, so the consumer sees it as of the chunk's end, exactly as when
 * each record was followed by a merge: the producer can therefore run
 * ahead in a thread of its own, and the events come out the same. */

typedef struct
{
  guint32 start;          /* in the chunk's events */
  guint32 end;
} ChunkRun;

typedef struct
{
  gint32  tid;
  guint32 comm;
} CommUpdate;

typedef struct
{
  guint   cpu;
  guint64 count;
} LostNote;

/* A sample's call chain, to intern when the chunk is taken in. */
typedef struct
{
  guint32 event;          /* in the chunk's events */
  guint32 start;          /* in the chunk's frames */
  guint32 len;
} PendingChain;

struct _Chunk
{
  StrataEvent *events;
  guint        n;
  guint        alloc;
  GArray      *runs;       /* ChunkRun */
  GArray      *comms;      /* CommUpdate, in the records' order; or NULL */
  GArray      *lost;       /* LostNote; or NULL */
  GArray      *frames;     /* guint64: the call chains of its samples; or NULL */
  GArray      *chains;     /* PendingChain; or NULL */
  gint64       limit;      /* events up to this time may go once it is in */
  GError      *error;      /* the damage that ended the records (last chunk) */
  gboolean     last;
  guint        live_runs;  /* the consumer's runs still reading from it */
};

/* A run the consumer merges: what is left of a chunk's run. */
typedef struct
{
  StrataEvent *p;
  StrataEvent *end;
  Chunk       *chunk;
} Run;

typedef struct
{
  gint64  ts;
  guint32 index;
} SortKey;

/* Chunks waiting for the consumer, at most this many events (or chunks);
 * a consumer that found none waits for half of that (or the last chunk),
 * not for each round: on a busy machine each wake-up costs a time slice. */
#define READY_EVENTS       (1u << 16)
#define READY_CHUNKS       8
#define WAKE_EVENTS        (READY_EVENTS / 2)
#define WAKE_CHUNKS        (READY_CHUNKS / 2)
#define MAX_MERGE_RUNS     64

static int
sort_key_cmp (gconstpointer a,
              gconstpointer b)
{
  const SortKey *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

static int
ts_cmp (gconstpointer a,
        gconstpointer b)
{
  const gint64 *x = a, *y = b;

  return *x < *y ? -1 : (*x > *y);
}

static Chunk *
chunk_new (StrataPerfSource *self)
{
  Chunk *c = g_new0 (Chunk, 1);

  c->runs = g_array_new (FALSE, FALSE, sizeof (ChunkRun));
  c->limit = G_MININT64;

  /* A buffer of an earlier chunk: rounds are alike in size, so it is
   * mostly big enough already, and its pages are mapped. */
  g_mutex_lock (&self->lock);
  if (self->n_spare > 0)
    {
      self->n_spare--;
      c->events = self->spare[self->n_spare].events;
      c->alloc = self->spare[self->n_spare].alloc;
    }
  g_mutex_unlock (&self->lock);

  return c;
}

static void
chunk_free (StrataPerfSource *self,
            Chunk            *c)
{
  if (c == NULL)
    return;

  g_mutex_lock (&self->lock);
  if (c->events != NULL && self->n_spare < SPARE_BUFFERS)
    {
      self->spare[self->n_spare].events = g_steal_pointer (&c->events);
      self->spare[self->n_spare].alloc = c->alloc;
      self->n_spare++;
    }
  g_mutex_unlock (&self->lock);

  g_free (c->events);
  g_array_unref (c->runs);
  g_clear_pointer (&c->comms, g_array_unref);
  g_clear_pointer (&c->lost, g_array_unref);
  g_clear_pointer (&c->frames, g_array_unref);
  g_clear_pointer (&c->chains, g_array_unref);
  g_clear_error (&c->error);
  g_free (c);
}

static Chunk *
producer_chunk (StrataPerfSource *self)
{
  if (self->filling == NULL)
    self->filling = chunk_new (self);
  return self->filling;
}

/* ---- The producer's side. ---------------------------------------- */

/* Events up to @limit may go at the end of the record being read. */
static void
producer_set_limit (StrataPerfSource *self,
                    gint64            limit)
{
  guint kept = 0;

  if (limit <= self->limit)
    return;

  self->limit = limit;
  for (guint i = 0; i < self->carry_n; i++)
    if (self->carry[i] > limit)
      self->carry[kept++] = self->carry[i];
  self->carry_n = kept;
  self->cut = TRUE;
}

/* A new event at the end of the chunk being filled, for the caller to
 * decode into in place and then hand to push_commit(). */
static inline StrataEvent *
pending_slot (StrataPerfSource *self)
{
  Chunk *c = self->filling != NULL ? self->filling : producer_chunk (self);

  if (G_UNLIKELY (c->n == c->alloc))
    {
      c->alloc = MAX (c->alloc * 2, 256);
      c->events = g_renew (StrataEvent, c->events, c->alloc);
    }
  return &c->events[c->n];
}

/* Takes the event pending_slot() gave into the chunk. The producer keeps
 * the times of the events not yet due (carry) so that it knows, as the
 * merge would, how many wait: the reorder buffer's bound. */
static void
push_commit (StrataPerfSource *self)
{
  Chunk *c = self->filling;
  const StrataEvent *ev = &c->events[c->n];
  gint64 ts = ev->ts;
  guint live;

  /* A step back in time starts a new run. */
  if (c->runs->len == 0 || ts < self->last_push_ts)
    {
      ChunkRun run = { c->n, c->n };

      g_array_append_val (c->runs, run);
    }
  c->n++;
  g_array_index (c->runs, ChunkRun, c->runs->len - 1).end = c->n;
  self->last_push_ts = ts;
  self->max_ts = MAX (self->max_ts, ts);

  if (ts > self->limit)
    {
      if (G_UNLIKELY (self->carry_n == self->carry_alloc))
        {
          self->carry_alloc = MAX (self->carry_alloc * 2, 256);
          self->carry = g_renew (gint64, self->carry, self->carry_alloc);
        }
      self->carry[self->carry_n++] = ts;
    }
  else
    {
      /* Due at once (it may be earlier than what went already): it goes
       * before anything read after this record. */
      if (self->low_n < G_N_ELEMENTS (self->low))
        self->low[self->low_n] = ts;
      self->low_n++;
      self->cut = TRUE;
    }

  live = self->carry_n + self->low_n;
  if (live < self->window)
    self->overflow_check = self->window;
  else if (live >= self->overflow_check)
    {
      g_autofree gint64 *times = g_new (gint64, live);
      guint n = 0;

      /* Once more only when another half window has come in. */
      self->overflow_check = live + self->window / 2;

      if (!self->order_overflow)
        g_message ("%s: more than %u events %s: they are sorted within a window of that "
                   "many events, so an event later in the file than that by more than "
                   "the window may be out of time order",
                   self->display_name, self->window,
                   self->seen_round ? "between two FINISHED_ROUND records"
                                    : "before any FINISHED_ROUND record");
      self->order_overflow = TRUE;

      /* The oldest half goes: up to the median time of those waiting,
       * found by sorting a copy (rare, so simplicity wins). */
      memcpy (times, self->carry, self->carry_n * sizeof (gint64));
      n = self->carry_n;
      for (guint i = 0; i < MIN (self->low_n, G_N_ELEMENTS (self->low)); i++)
        times[n++] = self->low[i];
      qsort (times, n, sizeof *times, ts_cmp);
      producer_set_limit (self, times[n / 2]);
    }
}

static void
push_event (StrataPerfSource  *self,
            const StrataEvent *ev)
{
  *pending_slot (self) = *ev;
  push_commit (self);
}

/* ---- The consumer's side. ---------------------------------------- */

static guint32
timed_comm_of (StrataPerfSource *self,
               gint32            tid)
{
  gpointer found;

  if (tid == 0)
    return strata_string_pool_intern (self->strings, "swapper");
  found = g_hash_table_lookup (self->timed_comms, GINT_TO_POINTER (tid));
  if (found != NULL)
    return GPOINTER_TO_UINT (found);
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->released_comms, GINT_TO_POINTER (tid)));
}

/* Hands one released event on: pseudo events update the comms (and are
 * not handed out: FALSE), the records that stand in for tracepoints get
 * their names as of now. */
static gboolean
release_event (StrataPerfSource *self,
               StrataEvent      *ev)
{
  if (ev->type < STRATA_EVENT_SCHED_PROCESS_FORK && ev->name != self->name_switch)
    return TRUE;  /* a tracepoint's switch or wakeup, the common case */
  if (ev->type == EVENT_COMM_SET)
    {
      g_hash_table_insert (self->timed_comms, GINT_TO_POINTER (ev->pid),
                           GUINT_TO_POINTER (ev->u.exec.filename));
      return FALSE;
    }
  if (ev->type == EVENT_COMM_COPY)
    {
      guint32 parent = timed_comm_of (self, ev->u.fork.parent_pid);

      if (parent != STRATA_STRING_NONE)
        g_hash_table_insert (self->timed_comms, GINT_TO_POINTER (ev->u.fork.child_pid),
                             GUINT_TO_POINTER (parent));
      return FALSE;
    }
  if (ev->name == self->name_switch && ev->type == STRATA_EVENT_SCHED_SWITCH)
    {
      ev->u.sched_switch.prev_comm = timed_comm_of (self, ev->u.sched_switch.prev_pid);
      ev->u.sched_switch.next_comm = timed_comm_of (self, ev->u.sched_switch.next_pid);
    }
  else if (ev->name == self->name_fork && ev->type == STRATA_EVENT_SCHED_PROCESS_FORK)
    {
      ev->u.fork.parent_comm = timed_comm_of (self, ev->u.fork.parent_pid);
      ev->u.fork.child_comm = ev->u.fork.parent_comm;
    }
  else if (ev->name == self->name_exit && ev->type == STRATA_EVENT_SCHED_PROCESS_EXIT)
    ev->u.exit.comm = timed_comm_of (self, ev->u.exit.pid);
  else if (ev->type == STRATA_EVENT_SAMPLE && ev->pid > 0)
    ev->u.sample.comm = timed_comm_of (self, ev->pid);

  return TRUE;
}

/* Drops a merge run that is used up: its chunk goes with the last. */
static void
run_done (StrataPerfSource *self,
          Run              *run)
{
  if (--run->chunk->live_runs == 0)
    chunk_free (self, run->chunk);
  run->chunk = NULL;
}

/* Takes a chunk in: the state changes of its records, its runs, its
 * limit. */
static void
take_chunk (StrataPerfSource *self,
            Chunk            *c)
{
  if (c->comms != NULL)
    for (guint i = 0; i < c->comms->len; i++)
      {
        const CommUpdate *u = &g_array_index (c->comms, CommUpdate, i);

        g_hash_table_insert (self->released_comms, GINT_TO_POINTER (u->tid),
                             GUINT_TO_POINTER (u->comm));
      }
  if (c->lost != NULL)
    for (guint i = 0; i < c->lost->len; i++)
      {
        const LostNote *l = &g_array_index (c->lost, LostNote, i);

        strata_source_note_lost (STRATA_SOURCE (self), l->cpu, l->count);
      }

  if (c->chains != NULL)
    for (guint i = 0; i < c->chains->len; i++)
      {
        const PendingChain *pc = &g_array_index (c->chains, PendingChain, i);

        c->events[pc->event].u.sample.callchain =
          intern_chain (self, &g_array_index (c->frames, guint64, pc->start), pc->len);
      }

  for (guint i = 0; i < c->runs->len; i++)
    {
      const ChunkRun *cr = &g_array_index (c->runs, ChunkRun, i);
      Run run = { c->events + cr->start, c->events + cr->end, c };

      if (cr->end > cr->start)
        {
          g_array_append_val (self->runs, run);
          c->live_runs++;
        }
    }

  self->release_limit = MAX (self->release_limit, c->limit);
  if (c->error != NULL)
    {
      g_clear_error (&self->deferred_error);
      self->deferred_error = g_steal_pointer (&c->error);
    }
  if (c->last)
    self->done = TRUE;
  if (c->live_runs == 0)
    chunk_free (self, c);
}

/* Too many runs to merge by looking at each head: all that is left goes
 * into one chunk in time order (arrival order among equal times: earlier
 * runs arrived first), one run. */
static void
merge_runs (StrataPerfSource *self)
{
  Chunk *all = chunk_new (self);
  guint n = 0;
  g_autofree SortKey *keys = NULL;
  g_autofree StrataEvent *rest = NULL;

  for (guint r = 0; r < self->runs->len; r++)
    {
      Run *run = &g_array_index (self->runs, Run, r);

      n += run->end - run->p;
    }
  rest = g_new (StrataEvent, MAX (n, 1));
  keys = g_new (SortKey, MAX (n, 1));
  n = 0;
  for (guint r = 0; r < self->runs->len; r++)
    {
      Run *run = &g_array_index (self->runs, Run, r);
      guint len = run->end - run->p;

      memcpy (rest + n, run->p, len * sizeof (StrataEvent));
      n += len;
      run_done (self, run);
    }
  for (guint i = 0; i < n; i++)
    {
      keys[i].ts = rest[i].ts;
      keys[i].index = i;
    }
  qsort (keys, n, sizeof *keys, sort_key_cmp);

  if (all->alloc < n)
    {
      all->alloc = n;
      all->events = g_renew (StrataEvent, all->events, all->alloc);
    }
  for (guint i = 0; i < n; i++)
    all->events[i] = rest[keys[i].index];
  all->n = n;

  g_array_set_size (self->runs, 0);
  if (n > 0)
    {
      Run run = { all->events, all->events + n, all };

      all->live_runs = 1;
      g_array_append_val (self->runs, run);
    }
  else
    chunk_free (self, all);
}

/* Merges the runs' heads up to the release limit straight into @out:
 * each CPU's ring buffer is in time order, so a round is a handful of
 * ordered runs. Returns how many events were written. */
static gsize
drain (StrataPerfSource *self,
       StrataEvent      *out,
       gsize             room)
{
  gsize written = 0;
  guint n_runs;
  Run *runs;

  if (self->runs->len == 0 || room == 0)
    return 0;
  if (self->runs->len > MAX_MERGE_RUNS)
    merge_runs (self);

  n_runs = self->runs->len;
  runs = (Run *) (gpointer) self->runs->data;

  while (written < room)
    {
      guint best = G_MAXUINT;
      gint64 bound;
      StrataEvent *p, *end;

      for (guint r = 0; r < n_runs; r++)
        if (runs[r].p < runs[r].end &&
            (best == G_MAXUINT || runs[r].p->ts < runs[best].p->ts))
          best = r;   /* runs are in arrival order: ties go to the earlier */
      if (best == G_MAXUINT || runs[best].p->ts > self->release_limit)
        break;

      /* The best run goes on being the best up to the other runs' heads
       * (a tie with an earlier run goes to that one): take its events up
       * to there in one go instead of choosing again for each. */
      bound = self->release_limit;
      for (guint r = 0; r < n_runs; r++)
        if (r != best && runs[r].p < runs[r].end)
          {
            gint64 head = runs[r].p->ts;

            bound = MIN (bound, r < best ? head - 1 : head);
          }

      p = runs[best].p;
      end = runs[best].end;
      /* Earlier than what was handed out already: the file's order is
       * beyond the reorder buffer (perf says "timestamp below last
       * timeslice flush"). The model clamps it. Counted as it goes
       * rather than as it came: nothing later went in between. */
      while (p < end && written < room && p->ts <= bound)
        {
          StrataEvent *ev = p++;

          if (G_UNLIKELY (ev->ts < self->released_ts))
            self->out_of_order++;
          if (release_event (self, ev))
            out[written++] = *ev;
        }
      self->released_ts = MAX (self->released_ts, p[-1].ts);
      runs[best].p = p;
    }

  /* Drop the runs used up, and with the last of a chunk's, the chunk. */
  {
    guint kept = 0;

    for (guint r = 0; r < n_runs; r++)
      if (runs[r].p < runs[r].end)
        runs[kept++] = runs[r];
      else
        run_done (self, &runs[r]);
    g_array_set_size (self->runs, kept);
  }

  return written;
}


/* ------------------------------------------------------------------ */
/* Records.                                                             */

static guint32
comm_of (StrataPerfSource *self,
         gint32            tid)
{
  if (tid == 0)
    return strata_string_pool_intern (self->strings, "swapper");
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->comms, GINT_TO_POINTER (tid)));
}

/* A thread's comm changes as of the record being read: for the records
 * that follow, and (through the chunk) for the release. */
static void
comms_insert (StrataPerfSource *self,
              gint32            tid,
              guint32           comm)
{
  CommUpdate u = { tid, comm };

  g_hash_table_insert (self->comms, GINT_TO_POINTER (tid), GUINT_TO_POINTER (comm));
  if (self->filling == NULL && !self->started)
    {
      /* While opening: no chunk, nothing read by the consumer yet. */
      g_hash_table_insert (self->released_comms, GINT_TO_POINTER (tid), GUINT_TO_POINTER (comm));
      return;
    }
  producer_chunk (self);
  if (self->filling->comms == NULL)
    self->filling->comms = g_array_new (FALSE, FALSE, sizeof (CommUpdate));
  g_array_append_val (self->filling->comms, u);
}

static void
note_lost (StrataPerfSource *self,
           guint             cpu,
           guint64           count)
{
  LostNote l = { cpu, count };

  producer_chunk (self);
  if (self->filling->lost == NULL)
    self->filling->lost = g_array_new (FALSE, FALSE, sizeof (LostNote));
  g_array_append_val (self->filling->lost, l);
}

static void
set_comm (StrataPerfSource *self,
          gint32            tid,
          const guint8     *bytes,
          gsize             max)
{
  gsize len = strnlen ((const char *) bytes, max);

  comms_insert (self, tid, intern_cached (self, (const char *) bytes, len));
}

static void
event_init (StrataPerfSource *self,
            StrataEvent      *ev,
            const Sample     *s,
            guint64           offset)
{
  memset (ev, 0, sizeof *ev);
  ev->ts = s->has_time ? (gint64) MIN (s->time, (guint64) G_MAXINT64) : MAX (self->max_ts, 0);
  ev->source_offset = offset;
  ev->cpu = s->has_cpu ? s->cpu : 0;
  ev->pid = s->tid;
  ev->tgid = s->has_tid ? s->pid : -1;
}

/* Whether @a's samples are fixed-size fields then the raw data, and at
 * which offsets (the fields parse_sample() reads, in its order). */
static void
prepare_layout (Attr *a)
{
  const guint64 fixed = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                        PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                        PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                        PERF_SAMPLE_RAW;
  guint64 st = a->sample_type;
  gint16 pos = 0;

  a->layout = -1;
  if (a->tp == NULL || (st & ~fixed) != 0 || (st & PERF_SAMPLE_RAW) == 0)
    return;

  a->off_tid = a->off_time = a->off_cpu = -1;
  if (st & PERF_SAMPLE_IDENTIFIER) pos += 8;
  if (st & PERF_SAMPLE_IP) pos += 8;
  if (st & PERF_SAMPLE_TID) { a->off_tid = pos; pos += 8; }
  if (st & PERF_SAMPLE_TIME) { a->off_time = pos; pos += 8; }
  if (st & PERF_SAMPLE_ADDR) pos += 8;
  if (st & PERF_SAMPLE_ID) pos += 8;
  if (st & PERF_SAMPLE_STREAM_ID) pos += 8;
  if (st & PERF_SAMPLE_CPU) { a->off_cpu = pos; pos += 8; }
  if (st & PERF_SAMPLE_PERIOD) pos += 8;
  a->off_raw = pos;
  a->layout = 1;
}

/* A tracepoint sample of a fixed layout, parsed and decoded where it
 * waits to be merged. FALSE when it does not hold its raw data: the
 * general path says why. */
static inline gboolean
handle_fixed_sample (StrataPerfSource  *self,
                     Attr              *a,
                     const guint8      *body,
                     gsize              len,
                     guint64            offset,
                     gboolean          *ok,
                     GError           **error)
{
  guint32 raw_size;
  gint32 cpu = -1;
  StrataEvent *ev;

  if (len < (gsize) a->off_raw + 4)
    return FALSE;
  raw_size = rd32 (self, body + a->off_raw);
  if (raw_size > len - a->off_raw - 4)
    return FALSE;

  if ((gsize) a->off_raw + 4 + raw_size != len)
    self->inexact_samples++;
  if (a->off_cpu >= 0)
    {
      cpu = rd32 (self, body + a->off_cpu);
      if (cpu >= MAX_CPU)
        {
          *ok = fail (self, error, STRATA_ERROR_CORRUPT, offset, "a sample on CPU %d", cpu);
          return TRUE;
        }
    }

  ev = pending_slot (self);
  memset (ev, 0, sizeof *ev);
  if (a->off_time >= 0)
    ev->ts = (gint64) MIN (rd64 (self, body + a->off_time), (guint64) G_MAXINT64);
  else
    ev->ts = MAX (self->max_ts, 0);
  ev->source_offset = offset;
  ev->cpu = a->off_cpu >= 0 ? cpu : 0;
  if (a->off_tid >= 0)
    {
      ev->pid = rd32 (self, body + a->off_tid + 4);
      ev->tgid = rd32 (self, body + a->off_tid);
    }
  else
    {
      ev->pid = -1;
      ev->tgid = -1;
    }
  decode_tracepoint (self, a->tp, body + a->off_raw + 4, raw_size, a->off_tid >= 0, ev);
  push_commit (self);
  *ok = TRUE;
  return TRUE;
}

static gboolean
handle_sample (StrataPerfSource  *self,
               const guint8      *body,
               gsize              len,
               guint64            offset,
               GError           **error)
{
  Attr *a = attr_of_sample (self, body, len);
  const char *why = NULL;
  StrataEvent ev;
  Sample s;
  gsize used = 0;
  gboolean ok;

  if (a == NULL)
    {
      self->unclaimed_samples++;
      return TRUE;  /* an id no attr claims: perf skips it too */
    }

  if (G_UNLIKELY (a->layout == 0))
    prepare_layout (a);
  if (a->layout > 0 && handle_fixed_sample (self, a, body, len, offset, &ok, error))
    return ok;

  if (!parse_sample (self, a, body, len, &s, &used, &why))
    return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                 "a sample of %" G_GSIZE_FORMAT " bytes ends inside %s",
                 len + 8, why);

  if (used != len)
    self->inexact_samples++;

  if (s.has_cpu && s.cpu >= MAX_CPU)
    return fail (self, error, STRATA_ERROR_CORRUPT, offset, "a sample on CPU %d", s.cpu);

  if (a->tp != NULL && s.raw != NULL)
    {
      /* Decoded where it waits: the common case copies nothing. */
      StrataEvent *slot = pending_slot (self);

      event_init (self, slot, &s, offset);
      decode_tracepoint (self, a->tp, s.raw, s.raw_size, s.has_tid, slot);
      push_commit (self);
      if (s.ips == NULL)
        return TRUE;

      /* Recorded with its call chain (sched_switch -g: where threads go
       * off the CPU): the chain is a sample of its own, named as perf
       * names the event, "sched:sched_switch". */
      event_init (self, &ev, &s, offset);
      ev.type = STRATA_EVENT_SAMPLE;
      ev.name = a->tp->chain_name;
      ev.u.sample.ip = s.ip;
      ev.u.sample.period = s.period;
      ev.u.sample.callchain = G_MAXUINT32;
      ev.u.sample.flags = STRATA_SAMPLE_TRACEPOINT;
    }
  else
    {
      event_init (self, &ev, &s, offset);
      ev.type = STRATA_EVENT_SAMPLE;
      ev.name = a->name;
      ev.u.sample.ip = s.ip;
      ev.u.sample.period = s.period;
      ev.u.sample.callchain = G_MAXUINT32;
    }

  {
    guint64 frames[512];
    guint n = 0;

    if (s.ips != NULL)
      {
        for (guint64 i = 0; i < s.nr && n < G_N_ELEMENTS (frames); i++)
          {
            guint64 ip = rd64 (self, s.ips + 8 * i);

            if (ip >= PERF_CONTEXT_MAX)
              continue;
            frames[n++] = ip;
          }
      }
    /* A chain of context markers only (user frames left to DWARF
     * unwinding, --call-graph dwarf): the sample's ip, as perf shows. */
    if (n == 0 && s.ip != 0)
      frames[n++] = s.ip;

    if (n > 0)
      {
        /* Interned as the chunk is taken in, in the caller's thread:
         * the table is the caller's to read. */
        Chunk *c = producer_chunk (self);
        PendingChain pc = { c->n, c->frames != NULL ? c->frames->len : 0, n };

        if (c->frames == NULL)
          {
            c->frames = g_array_new (FALSE, FALSE, sizeof (guint64));
            c->chains = g_array_new (FALSE, FALSE, sizeof (PendingChain));
          }
        g_array_append_vals (c->frames, frames, n);
        g_array_append_val (c->chains, pc);
      }
  }

  push_event (self, &ev);
  return TRUE;
}

static gboolean
handle_switch (StrataPerfSource *self,
               guint             type,
               guint16           misc,
               const guint8     *body,
               gsize             len,
               guint64           offset)
{
  Attr *a = attr_of_other (self, body, len);
  gboolean out = (misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
  StrataEvent ev;
  Sample s;
  gint32 other = -1;

  if (self->has_sched_switch || a == NULL)
    return TRUE;
  if (!parse_trailer (self, a, body, len, &s) || !s.has_time || !s.has_tid)
    return TRUE;

  if (type == PERF_RECORD_SWITCH_CPU_WIDE)
    {
      if (len < 8 + a->trailer)
        return TRUE;
      other = rd32 (self, body + 4);  /* next_prev_tid */
    }

  event_init (self, &ev, &s, offset);
  ev.type = STRATA_EVENT_SCHED_SWITCH;
  ev.name = self->name_switch;

  if (type == PERF_RECORD_SWITCH_CPU_WIDE)
    {
      /* The switch-out names both tasks; the switch-in that follows on
       * the same CPU says the same again. */
      if (!out)
        return TRUE;
      ev.u.sched_switch.prev_pid = s.tid;
      ev.u.sched_switch.next_pid = other;
    }
  else if (out)
    {
      /* A per-task switch says only which task left: what ran next is
       * outside the recording, shown as idle. */
      ev.u.sched_switch.prev_pid = s.tid;
      ev.u.sched_switch.next_pid = 0;
    }
  else
    {
      ev.u.sched_switch.prev_pid = 0;
      ev.u.sched_switch.next_pid = s.tid;
    }

  ev.pid = ev.u.sched_switch.prev_pid;
  ev.u.sched_switch.prev_comm = comm_of (self, ev.u.sched_switch.prev_pid);
  ev.u.sched_switch.next_comm = comm_of (self, ev.u.sched_switch.next_pid);
  ev.u.sched_switch.prev_prio = -1;
  ev.u.sched_switch.next_prio = -1;
  /* Preempted, or it gave the CPU up (blocked: the record does not say
   * how deeply). */
  if (!out)
    ev.u.sched_switch.prev_state = STRATA_TASK_STATE_UNKNOWN;
  else if (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
    ev.u.sched_switch.prev_state = STRATA_TASK_STATE_PREEMPTED;
  else
    ev.u.sched_switch.prev_state = STRATA_TASK_STATE_SLEEPING;
  if (ev.u.sched_switch.prev_pid == 0)
    ev.u.sched_switch.prev_state = STRATA_TASK_STATE_RUNNABLE;

  push_event (self, &ev);
  return TRUE;
}

static gboolean
handle_task_record (StrataPerfSource  *self,
                    guint              type,
                    guint16            misc,
                    const guint8      *body,
                    gsize              len,
                    guint64            offset,
                    GError           **error)
{
  Attr *a = attr_of_other (self, body, len);
  guint trailer = a != NULL ? a->trailer : 0;
  StrataEvent ev;
  Sample s;

  if (!parse_trailer (self, a, body, len, &s))
    return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                 "a record of %" G_GSIZE_FORMAT " bytes is shorter than its sample_id trailer",
                 len + 8);

  switch (type)
    {
    case PERF_RECORD_COMM:
      {
        gint32 tid;

        if (len < 8 + trailer)
          return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                       "a COMM record of %" G_GSIZE_FORMAT " bytes", len + 8);
        tid = rd32 (self, body + 4);
        set_comm (self, tid, body + 8, len - 8 - trailer);

        event_init (self, &ev, &s, offset);
        ev.type = EVENT_COMM_SET;
        ev.pid = tid;
        ev.u.exec.filename = comm_of (self, tid);
        push_event (self, &ev);

        if ((misc & PERF_RECORD_MISC_COMM_EXEC) && !self->has_exec_tp && s.has_time && s.time > 0)
          {
            event_init (self, &ev, &s, offset);
            ev.type = STRATA_EVENT_SCHED_PROCESS_EXEC;
            ev.name = self->name_exec;
            ev.pid = tid;
            ev.tgid = rd32 (self, body);
            ev.u.exec.pid = tid;
            ev.u.exec.old_pid = tid;
            ev.u.exec.filename = comm_of (self, tid);
            push_event (self, &ev);
          }
      }
      break;

    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      {
        gint32 pid, ppid, tid, ptid;
        guint64 time;

        if (len < 24 + trailer)
          return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                       "a %s record of %" G_GSIZE_FORMAT " bytes",
                       type == PERF_RECORD_FORK ? "FORK" : "EXIT", len + 8);
        pid = rd32 (self, body);
        ppid = rd32 (self, body + 4);
        tid = rd32 (self, body + 8);
        ptid = rd32 (self, body + 12);
        time = rd64 (self, body + 16);

        if (type == PERF_RECORD_FORK && pid != ppid &&
            !g_hash_table_contains (self->maps, GINT_TO_POINTER (pid)))
          {
            /* A new process starts with its parent's mappings; fork()
             * writes no MMAP records for them. */
            GArray *parent_maps = g_hash_table_lookup (self->maps, GINT_TO_POINTER (ppid));

            if (parent_maps != NULL)
              g_hash_table_insert (self->maps, GINT_TO_POINTER (pid), g_array_copy (parent_maps));
          }

        if (type == PERF_RECORD_FORK)
          {
            guint32 parent = comm_of (self, ptid);

            if (parent != STRATA_STRING_NONE)
              comms_insert (self, tid, parent);

            s.time = time;
            s.has_time = time != 0 || s.has_time;
            event_init (self, &ev, &s, offset);
            ev.type = EVENT_COMM_COPY;
            ev.u.fork.parent_pid = ptid;
            ev.u.fork.child_pid = tid;
            push_event (self, &ev);
          }

        if (time == 0 || time > (guint64) G_MAXINT64)
          break;  /* synthesized from /proc before recording began */
        if ((type == PERF_RECORD_FORK && self->has_fork_tp) ||
            (type == PERF_RECORD_EXIT && self->has_exit_tp))
          break;

        s.time = time;
        s.has_time = TRUE;
        event_init (self, &ev, &s, offset);
        if (type == PERF_RECORD_FORK)
          {
            ev.type = STRATA_EVENT_SCHED_PROCESS_FORK;
            ev.name = self->name_fork;
            ev.pid = ptid;
            ev.tgid = -1;
            ev.u.fork.parent_pid = ptid;
            ev.u.fork.child_pid = tid;
            ev.u.fork.parent_comm = comm_of (self, ptid);
            ev.u.fork.child_comm = comm_of (self, tid);
          }
        else
          {
            ev.type = STRATA_EVENT_SCHED_PROCESS_EXIT;
            ev.name = self->name_exit;
            ev.pid = tid;
            ev.tgid = pid;
            ev.u.exit.pid = tid;
            ev.u.exit.prio = -1;
            ev.u.exit.comm = comm_of (self, tid);
          }
        push_event (self, &ev);
      }
      break;

    case PERF_RECORD_LOST:
    case PERF_RECORD_LOST_SAMPLES:
      {
        guint need = type == PERF_RECORD_LOST ? 16 : 8;
        guint64 count;

        if (len < need)
          return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                       "a LOST record of %" G_GSIZE_FORMAT " bytes", len + 8);
        count = rd64 (self, body + need - 8);
        if (s.cpu < 0 || s.cpu >= MAX_CPU)
          s.cpu = 0;
        note_lost (self, s.cpu, count);
        if (!s.has_time)
          break;
        event_init (self, &ev, &s, offset);
        ev.type = STRATA_EVENT_LOST;
        ev.name = self->name_lost;
        ev.pid = -1;
        ev.u.lost.count = count;
        push_event (self, &ev);
      }
      break;

    default:
      break;
    }

  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Features (file sections, or HEADER_FEATURE records in pipe mode).     */

static char *
feature_string (StrataPerfSource *self,
                const guint8     *p,
                gsize             len,
                gsize            *used)
{
  guint32 n;

  if (len < 4)
    return NULL;
  n = rd32 (self, p);
  if (n > len - 4)
    return NULL;
  *used = 4 + n;
  return g_strndup ((const char *) p + 4, n);
}

static const char *
clock_name (gint32 clockid)
{
  switch (clockid)
    {
    case 0: return "realtime";
    case 1: return "mono";
    case 4: return "mono_raw";
    case 7: return "boot";
    case 11: return "tai";
    default: return "perf";
    }
}

static gboolean
parse_feature (StrataPerfSource  *self,
               guint              feat,
               const guint8      *p,
               gsize              len,
               guint64            offset,
               GError           **error)
{
  StrataSourceInfo *info = strata_source_get_info_mutable (STRATA_SOURCE (self));
  gsize used = 0;

  switch (feat)
    {
    case PERF_FEAT_TRACING_DATA:
      if (!parse_tracing_data_checked (self, p, len, offset, error))
        return FALSE;
      resolve_attr_names (self);
      break;

    case PERF_FEAT_HOSTNAME:
      g_free (info->hostname);
      info->hostname = feature_string (self, p, len, &used);
      break;

    case PERF_FEAT_OSRELEASE:
      g_free (info->kernel_release);
      info->kernel_release = feature_string (self, p, len, &used);
      break;

    case PERF_FEAT_NRCPUS:
      if (len >= 8)
        info->n_cpus = MIN (rd32 (self, p), MAX_CPU);
      break;

    case PERF_FEAT_CLOCK_DATA:
      if (len >= 8)
        {
          g_free (info->clock);
          info->clock = g_strdup (clock_name ((gint32) rd32 (self, p + 4)));
        }
      break;

    case PERF_FEAT_SAMPLE_TIME:
      /* The times of the first and last samples, which perf record finds
       * by processing the file once it is written (for build ids), so a
       * file it did not process (-z, --no-buildid) says 0 and 0. A pipe
       * has its features before its samples: it can say nothing. The
       * reader gives an event its sample's time as it is, so the hint is
       * in the same clock. */
      if (!self->pipe && len >= 16)
        {
          guint64 first = rd64 (self, p);
          guint64 last = rd64 (self, p + 8);

          if ((first != 0 || last != 0) && first <= last)
            {
              info->span_first = (gint64) MIN (first, (guint64) G_MAXINT64);
              info->span_last = (gint64) MIN (last, (guint64) G_MAXINT64);
            }
        }
      break;

    case PERF_FEAT_COMPRESSED:
      if (len >= 8)
        {
          g_free (info->compression);
          info->compression = g_strdup (rd32 (self, p + 4) == 1 ? "zstd" : "unknown");
        }
      break;

    case PERF_FEAT_EVENT_DESC:
      {
        guint32 nr, attr_size;
        gsize pos = 8;

        if (len < 8)
          break;
        nr = rd32 (self, p);
        attr_size = rd32 (self, p + 4);
        for (guint32 i = 0; i < nr; i++)
          {
            g_autofree char *name = NULL;
            guint32 nr_ids;

            if (attr_size > len - pos || len - pos - attr_size < 4)
              break;
            pos += attr_size;
            nr_ids = rd32 (self, p + pos);
            pos += 4;
            name = feature_string (self, p + pos, len - pos, &used);
            if (name == NULL)
              break;
            pos += used;
            if (nr_ids > (len - pos) / 8)
              break;
            for (guint32 j = 0; j < nr_ids; j++)
              name_attrs_by_id (self, rd64 (self, p + pos + 8 * j), name);
            pos += 8 * (gsize) nr_ids;
          }
      }
      break;

    default:
      break;
    }

  return TRUE;
}

/* ------------------------------------------------------------------ */
/* The record stream.                                                   */

static gboolean
inflate_record (StrataPerfSource  *self,
                const guint8      *data,
                gsize              len,
                guint64            offset,
                GError           **error)
{
  ZSTD_inBuffer in = { data, len, 0 };
  gsize keep = self->decomp_len - self->decomp_pos;

  if (self->zstd == NULL)
    {
      self->zstd = ZSTD_createDStream ();
      ZSTD_initDStream (self->zstd);
    }

  /* What is left of the last output is the start of a record that goes
   * on in this one. */
  if (keep > 0 && self->decomp_pos > 0)
    memmove (self->decomp, self->decomp + self->decomp_pos, keep);
  self->decomp_len = keep;
  self->decomp_pos = 0;
  self->decomp_from = offset;

  while (in.pos < in.size)
    {
      ZSTD_outBuffer out;
      size_t ret;

      if (self->decomp_alloc - self->decomp_len < 65536)
        {
          if (self->decomp_alloc >= MAX_DECOMP)
            return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                         "a COMPRESSED record inflates to more than %u bytes", MAX_DECOMP);
          self->decomp_alloc = MAX (self->decomp_alloc * 2, 1u << 20);
          self->decomp = g_realloc (self->decomp, self->decomp_alloc);
        }

      out.dst = self->decomp;
      out.size = self->decomp_alloc;
      out.pos = self->decomp_len;
      ret = ZSTD_decompressStream (self->zstd, &out, &in);
      if (ZSTD_isError (ret))
        return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                     "a COMPRESSED record does not inflate: %s", ZSTD_getErrorName (ret));
      if (out.pos == self->decomp_len && in.pos < in.size && out.pos < out.size)
        return fail (self, error, STRATA_ERROR_CORRUPT, offset,
                     "a COMPRESSED record does not inflate");
      self->decomp_len = out.pos;
    }

  return TRUE;
}

/* The next record: from the inflated bytes first, then the file. Returns
 * FALSE at the end (error unset) or on damage. */
static gboolean
next_record (StrataPerfSource  *self,
             Record            *rec,
             GError           **error)
{
  for (;;)
    {
      gsize avail = self->decomp_len - self->decomp_pos;

      if (avail >= 8)
        {
          const guint8 *h = self->decomp + self->decomp_pos;
          guint16 size = rd16 (self, h + 6);

          if (size < 8)
            return fail (self, error, STRATA_ERROR_CORRUPT, self->decomp_from,
                         "a record of size %u at byte %" G_GSIZE_FORMAT " of the data "
                         "inflated from the COMPRESSED record here", size, self->decomp_pos);
          if (size <= avail)
            {
              rec->type = rd32 (self, h);
              rec->misc = rd16 (self, h + 4);
              rec->size = size;
              rec->body = h + 8;
              rec->body_len = size - 8;
              rec->offset = self->decomp_from;
              rec->inflated = TRUE;
              self->decomp_pos += size;
              return TRUE;
            }
        }

      if (self->pos >= self->data_end)
        {
          if (avail > 0)
            return fail (self, error, STRATA_ERROR_TRUNCATED, self->decomp_from,
                         "the compressed data ends inside a record");
          if (self->data_cut)
            return fail (self, error, STRATA_ERROR_TRUNCATED, self->pos,
                         "the file ends here, inside its data section of %" G_GUINT64_FORMAT
                         " bytes at %" G_GUINT64_FORMAT, self->data_size, self->data_offset);
          return FALSE;
        }

      if (self->data_end - self->pos < 8)
        return fail (self, error, STRATA_ERROR_TRUNCATED, self->pos,
                     "the file ends inside a record's header");

      /* The records behind are decoded and copied: their pages go back to
       * the page cache, so resident memory does not grow with the file. */
      if (self->pos - self->dropped_until > DROP_STEP)
        {
          guint64 until = (self->pos - 65536) & ~(guint64) (DROP_STEP - 1);

          if (until > self->dropped_until)
            {
              madvise ((void *) (self->map + self->dropped_until), until - self->dropped_until,
                       MADV_DONTNEED);
              self->dropped_until = until;
            }
        }

      {
        const guint8 *h = self->map + self->pos;
        guint32 type = rd32 (self, h);
        guint16 size = rd16 (self, h + 6);

        if (size < 8)
          return fail (self, error, STRATA_ERROR_CORRUPT, self->pos,
                       "a record (type %u) of size %u, less than its own header", type, size);
        if (size > self->data_end - self->pos)
          return fail (self, error, STRATA_ERROR_TRUNCATED, self->pos,
                       "a record (type %u) of %u bytes runs past the end of the %s "
                       "(%" G_GUINT64_FORMAT " bytes left)", type, size,
                       self->data_end < self->map_len ? "data section" : "file",
                       self->data_end - self->pos);

        rec->type = type;
        rec->misc = rd16 (self, h + 4);
        rec->size = size;
        rec->body = h + 8;
        rec->body_len = size - 8;
        rec->offset = self->pos;
        rec->inflated = FALSE;
        self->pos += size;

        if (type == PERF_RECORD_COMPRESSED || type == PERF_RECORD_COMPRESSED2)
          {
            const guint8 *data = rec->body;
            gsize data_len = rec->body_len;

            self->record_counts[type]++;
            if (type == PERF_RECORD_COMPRESSED2)
              {
                guint64 n;

                if (data_len < 8)
                  return fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                               "a COMPRESSED2 record without its data size");
                n = rd64 (self, data);
                if (n > data_len - 8)
                  return fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                               "a COMPRESSED2 record says %" G_GUINT64_FORMAT " bytes, "
                               "holds %" G_GSIZE_FORMAT, n, data_len - 8);
                data += 8;
                data_len = n;
              }
            if (!inflate_record (self, data, data_len, rec->offset, error))
              return FALSE;
            continue;
          }

        return TRUE;
      }
    }
}

/* Keeps the executable mappings: pid, start, len, pgoff, then (MMAP2)
 * device or build id, prot and flags, then the path. */
static void
note_mmap (StrataPerfSource *self,
           const Record     *rec)
{
  gsize fixed = rec->type == PERF_RECORD_MMAP ? 32 : 32 + 24 + 8;
  const guint8 *b = rec->body;
  Map m;
  gint32 pid;
  GArray *maps;
  gsize name_len;

  if (rec->body_len <= fixed)
    return;
  if (rec->type == PERF_RECORD_MMAP2 && (rd32 (self, b + 56) & 4) == 0)
    return;  /* not executable (prot PROT_EXEC) */

  pid = rd32 (self, b);
  m.start = rd64 (self, b + 8);
  m.len = rd64 (self, b + 16);
  m.pgoff = rd64 (self, b + 24);
  name_len = strnlen ((const char *) b + fixed, rec->body_len - fixed);
  m.file = strata_string_pool_intern_len (self->strings, (const char *) b + fixed, name_len);

  if (pid == -1 && g_str_has_prefix ((const char *) b + fixed, "[kernel.kallsyms]"))
    self->kernel_text = m.start;

  maps = g_hash_table_lookup (self->maps, GINT_TO_POINTER (pid));
  if (maps == NULL)
    {
      maps = g_array_new (FALSE, FALSE, sizeof (Map));
      g_hash_table_insert (self->maps, GINT_TO_POINTER (pid), maps);
    }
  g_array_append_val (maps, m);
}

static gboolean
handle_header_attr (StrataPerfSource  *self,
                    const Record      *rec,
                    GError           **error)
{
  guint32 attr_size;

  if (rec->body_len < 8)
    return fail (self, error, STRATA_ERROR_CORRUPT, rec->offset, "an ATTR record without an attr");
  attr_size = rd32 (self, rec->body + PERF_ATTR_OFF_SIZE);
  if (attr_size == 0)
    attr_size = PERF_ATTR_SIZE_VER0;
  if (attr_size > rec->body_len)
    return fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                 "an ATTR record of %u bytes holds an attr of %u", rec->size, attr_size);

  if (!add_attr (self, rec->body, attr_size, rec->offset, rec->body + attr_size,
                 (rec->body_len - attr_size) / 8, error))
    return FALSE;
  compute_id_positions (self);
  resolve_attr_names (self);
  return TRUE;
}

static gboolean
process_record (StrataPerfSource  *self,
                const Record      *rec,
                GError           **error)
{
  if (rec->type < PERF_RECORD_MAX_TYPE)
    self->record_counts[rec->type]++;

  switch (rec->type)
    {
    case PERF_RECORD_SAMPLE:
      return handle_sample (self, rec->body, rec->body_len, rec->offset, error);

    case PERF_RECORD_COMM:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
    case PERF_RECORD_LOST:
    case PERF_RECORD_LOST_SAMPLES:
      return handle_task_record (self, rec->type, rec->misc, rec->body, rec->body_len,
                                 rec->offset, error);

    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      return handle_switch (self, rec->type, rec->misc, rec->body, rec->body_len, rec->offset);

    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      note_mmap (self, rec);
      return TRUE;

    case PERF_RECORD_FINISHED_ROUND:
      self->seen_round = TRUE;
      producer_set_limit (self, self->round_limit);
      self->round_limit = self->max_ts;
      self->cut = TRUE;
      return TRUE;

    case PERF_RECORD_HEADER_ATTR:
      return handle_header_attr (self, rec, error);

    case PERF_RECORD_HEADER_TRACING_DATA:
      {
        guint32 size;
        guint64 padded;

        if (rec->body_len < 4)
          return fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                       "a TRACING_DATA record without its size");
        size = rd32 (self, rec->body);
        if (!self->pipe || rec->inflated)
          return TRUE;  /* only pipe mode puts the data after the record */
        padded = ((guint64) size + 7) & ~(guint64) 7;
        if (padded > self->data_end - self->pos)
          return fail (self, error, STRATA_ERROR_TRUNCATED, rec->offset,
                       "the tracing data of %u bytes runs past the end of the file", size);
        if (!parse_tracing_data_checked (self, self->map + self->pos, size, self->pos, error))
          return FALSE;
        self->pos += padded;
        resolve_attr_names (self);
      }
      return TRUE;

    case PERF_RECORD_HEADER_FEATURE:
      if (rec->body_len < 8)
        return fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                     "a FEATURE record without its feature id");
      return parse_feature (self, (guint) MIN (rd64 (self, rec->body), G_MAXUINT),
                            rec->body + 8, rec->body_len - 8, rec->offset, error);

    case PERF_RECORD_EVENT_UPDATE:
      if (rec->body_len >= 16 && rd64 (self, rec->body) == PERF_EVENT_UPDATE_NAME)
        {
          g_autofree char *name = g_strndup ((const char *) rec->body + 16, rec->body_len - 16);

          name_attrs_by_id (self, rd64 (self, rec->body + 8), name);
        }
      return TRUE;

    case PERF_RECORD_THREAD_MAP:
      if (rec->body_len >= 8)
        {
          guint64 nr = rd64 (self, rec->body);

          if (nr > (rec->body_len - 8) / 24)
            return fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                         "a THREAD_MAP of %" G_GUINT64_FORMAT " entries in %u bytes",
                         nr, rec->size);
          for (guint64 i = 0; i < nr; i++)
            {
              const guint8 *e = rec->body + 8 + 24 * i;
              gint32 pid = (gint32) rd64 (self, e);

              if (e[8] != '\0' && comm_of (self, pid) == STRATA_STRING_NONE)
                set_comm (self, pid, e + 8, 16);
            }
        }
      return TRUE;

    case PERF_RECORD_ID_INDEX:
      if (rec->body_len >= 8)
        {
          guint64 nr = rd64 (self, rec->body);

          if (nr > (rec->body_len - 8) / 32)
            return fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                         "an ID_INDEX of %" G_GUINT64_FORMAT " entries in %u bytes",
                         nr, rec->size);
        }
      return TRUE;

    default:
      /* MMAP, MMAP2, THROTTLE, UNTHROTTLE, CPU_MAP, TIME_CONV,
       * FINISHED_INIT, BUILD_ID, AUX ... are counted; nothing in the
       * kernel model depends on them. */
      return TRUE;
    }
}

/* Reads records up to the next cut and hands back their chunk; the last
 * one carries the damage that ended the records, if any. */
static Chunk *
produce_chunk (StrataPerfSource *self)
{
  Chunk *c;

  for (;;)
    {
      GError *error = NULL;
      Record rec;

      /* The common case, a sample in the mapped file with nothing
       * inflated pending and no pages to give back: what next_record()
       * and process_record() would do, without their detours. */
      if (self->decomp_pos == self->decomp_len && self->data_end - self->pos >= 8 &&
          self->pos - self->dropped_until <= DROP_STEP)
        {
          const guint8 *h = self->map + self->pos;
          guint16 size = rd16 (self, h + 6);

          if (rd32 (self, h) == PERF_RECORD_SAMPLE && size >= 8 && size <= self->data_end - self->pos)
            {
              guint64 offset = self->pos;

              self->pos += size;
              self->record_counts[PERF_RECORD_SAMPLE]++;
              if (handle_sample (self, h + 8, size - 8, offset, &error))
                {
                  if (self->cut)
                    {
                      c = producer_chunk (self);
                      c->limit = self->limit;
                      break;
                    }
                  continue;
                }
              c = producer_chunk (self);
              c->error = error;
              c->last = TRUE;
              c->limit = G_MAXINT64;
              break;
            }
        }

      if (!next_record (self, &rec, &error) || !process_record (self, &rec, &error))
        {
          c = producer_chunk (self);
          if (error == NULL)
            error = g_steal_pointer (&self->feature_damage);
          c->error = error;
          c->last = TRUE;
          c->limit = G_MAXINT64;
          break;
        }
      if (self->cut)
        {
          c = producer_chunk (self);
          c->limit = self->limit;
          break;
        }
    }

  self->cut = FALSE;
  self->low_n = 0;
  self->filling = NULL;
  return c;
}

static gpointer
producer_thread (gpointer data)
{
  StrataPerfSource *self = data;
  gboolean last = FALSE;

  while (!last)
    {
      Chunk *c = produce_chunk (self);

      last = c->last;
      g_mutex_lock (&self->lock);
      while (!self->stop && self->ready.length > 0 &&
             (self->ready_events >= READY_EVENTS || self->ready.length >= READY_CHUNKS))
        {
          self->producer_waiting = TRUE;
          g_cond_wait (&self->cond, &self->lock);
          self->producer_waiting = FALSE;
        }
      if (self->stop)
        {
          g_mutex_unlock (&self->lock);
          chunk_free (self, c);
          break;
        }
      g_queue_push_tail (&self->ready, c);
      self->ready_events += c->n;
      self->last_queued = last;
      if (self->consumer_waiting &&
          (last || self->ready_events >= WAKE_EVENTS || self->ready.length >= WAKE_CHUNKS))
        g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
    }

  return NULL;
}

/* The next chunk: from the producer thread, or read here. */
static Chunk *
next_chunk (StrataPerfSource *self)
{
  Chunk *c;

  if (self->worker == NULL)
    return produce_chunk (self);

  g_mutex_lock (&self->lock);
  if (self->ready.length == 0)
    {
      self->consumer_waiting = TRUE;
      while (self->ready.length == 0 ||
             (!self->last_queued && self->ready_events < WAKE_EVENTS &&
              self->ready.length < WAKE_CHUNKS))
        g_cond_wait (&self->cond, &self->lock);
      self->consumer_waiting = FALSE;
    }
  c = g_queue_pop_head (&self->ready);
  self->ready_events -= c->n;
  if (self->producer_waiting)
    g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);

  if (c->last)
    g_clear_pointer (&self->worker, g_thread_join);

  return c;
}

/* Whether the records can be read and decoded a chunk or more ahead of
 * the caller, in a thread: nothing the caller may ask for while it reads
 * may change behind it (the call chains are interned on the caller's
 * side, but the mappings that name their frames are the reader's), so
 * only a file of tracepoints (every attr one with its raw data, or
 * perf's dummy side-band event) in file mode, and only with a second
 * processor to run on. */
static gboolean
can_run_ahead (StrataPerfSource *self)
{
  if (self->pipe || g_get_num_processors () < 2)
    return FALSE;
  for (guint i = 0; i < self->attrs->len; i++)
    {
      const Attr *a = &g_array_index (self->attrs, Attr, i);

      /* perf record's side-band event (mmap, comm, task) never samples. */
      if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY)
        continue;
      if (a->tp == NULL || (a->sample_type & PERF_SAMPLE_RAW) == 0)
        return FALSE;
    }
  return TRUE;
}

static gssize
strata_perf_source_read_batch (StrataSource  *source,
                               StrataEvent   *events,
                               gsize          n_events,
                               GError       **error)
{
  StrataPerfSource *self = STRATA_PERF_SOURCE (source);
  gsize n = 0;

  if (!self->started)
    {
      self->started = TRUE;
      if (self->read_ahead && can_run_ahead (self))
        self->worker = g_thread_new ("strata-perf-read", producer_thread, self);
    }

  /* Hand out what may go, take chunks in while there is room. */
  for (;;)
    {
      n += drain (self, events + n, n_events - n);
      if (n == n_events)
        break;
      if (self->done)
        {
          if (self->out_of_order > 0 && !self->reported)
            g_message ("%s: %" G_GUINT64_FORMAT " events came later in the file than the "
                       "reorder window allows: they are out of time order (the kernel model "
                       "clamps them)",
                       self->display_name, self->out_of_order);
          self->reported = TRUE;
          break;
        }
      take_chunk (self, next_chunk (self));
    }

  if (n > 0)
    return n;

  if (self->deferred_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->deferred_error));
      return -1;
    }

  return 0;
}

/* ------------------------------------------------------------------ */
/* Opening.                                                             */

static guint
strata_perf_source_probe (const guint8 *head,
                          gsize         head_len)
{
  if (head_len >= 8 && (memcmp (head, "PERFILE2", 8) == 0 ||
                        memcmp (head, "2ELIFREP", 8) == 0 ||
                        memcmp (head, PERF_MAGIC1_STR, 8) == 0))
    return 100;
  return 0;
}

static gboolean
read_file_header (StrataPerfSource  *self,
                  GError           **error)
{
  StrataSourceInfo *info = strata_source_get_info_mutable (STRATA_SOURCE (self));
  const guint8 *h = self->map;
  guint64 magic, size, attr_size, attrs_off, attrs_size, data_off, data_size;
  guint64 features[4] = { 0 };

  if (self->map_len < PERF_PIPE_HEADER_SIZE)
    return fail (self, error, STRATA_ERROR_TRUNCATED, 0,
                 "the file ends inside the perf.data header (%" G_GSIZE_FORMAT " bytes)",
                 self->map_len);

  memcpy (&magic, h, 8);
  magic = GUINT64_FROM_LE (magic);
  if (magic == PERF_MAGIC2)
    self->version = 2;
  else if (magic == PERF_MAGIC2_SWAPPED)
    {
      self->version = 2;
      self->swap = TRUE;
    }
  else if (memcmp (h, PERF_MAGIC1_STR, 8) == 0)
    self->version = 1;
  else
    return fail (self, error, STRATA_ERROR_UNKNOWN_FORMAT, 0, "not a perf.data file");

  size = rd64 (self, h + 8);

  /* Version 1 has no byte order in its magic: the header's own size,
   * read both ways, tells. */
  if (self->version == 1 && size != PERF_FILE_HEADER_SIZE && size != PERF_FILE_HEADER_SIZE_V1)
    {
      self->swap = TRUE;
      size = rd64 (self, h + 8);
    }

  if (size == PERF_PIPE_HEADER_SIZE)
    {
      self->pipe = TRUE;
      self->pos = PERF_PIPE_HEADER_SIZE;
      self->data_end = self->map_len;
      self->data_offset = PERF_PIPE_HEADER_SIZE;
      info->version = g_strdup_printf ("%u (pipe)", self->version);
      return TRUE;
    }

  if (size != PERF_FILE_HEADER_SIZE && size != PERF_FILE_HEADER_SIZE_V1)
    return fail (self, error, STRATA_ERROR_CORRUPT, 8,
                 "a header of %" G_GUINT64_FORMAT " bytes (%u or %u expected)",
                 size, PERF_FILE_HEADER_SIZE, PERF_FILE_HEADER_SIZE_V1);
  if (self->map_len < size)
    return fail (self, error, STRATA_ERROR_TRUNCATED, 0,
                 "the file ends inside the perf.data header");

  attr_size = rd64 (self, h + 16);
  attrs_off = rd64 (self, h + 24);
  attrs_size = rd64 (self, h + 32);
  data_off = rd64 (self, h + 40);
  data_size = rd64 (self, h + 48);
  if (size == PERF_FILE_HEADER_SIZE)
    for (guint i = 0; i < 4; i++)
      features[i] = rd64 (self, h + 72 + 8 * i);

  info->version = g_strdup_printf ("%u", self->version);

  /* The attrs: each attr_size bytes, the last 16 a section of its ids. */
  if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 65536)
    return fail (self, error, STRATA_ERROR_CORRUPT, 16,
                 "attr_size %" G_GUINT64_FORMAT " is not plausible", attr_size);
  if (attrs_off > self->map_len || attrs_size > self->map_len - attrs_off)
    return fail (self, error, STRATA_ERROR_TRUNCATED, 24,
                 "the attrs section (%" G_GUINT64_FORMAT " bytes at %" G_GUINT64_FORMAT
                 ") runs past the end of the file (%" G_GSIZE_FORMAT " bytes)",
                 attrs_size, attrs_off, self->map_len);
  if (attrs_size % attr_size != 0)
    return fail (self, error, STRATA_ERROR_CORRUPT, 32,
                 "the attrs section of %" G_GUINT64_FORMAT " bytes is not a whole number "
                 "of %" G_GUINT64_FORMAT "-byte attrs", attrs_size, attr_size);

  for (guint64 off = attrs_off; off < attrs_off + attrs_size; off += attr_size)
    {
      const guint8 *a = self->map + off;
      guint64 ids_off = rd64 (self, a + attr_size - 16);
      guint64 ids_size = rd64 (self, a + attr_size - 8);

      if (ids_off > self->map_len || ids_size > self->map_len - ids_off)
        return fail (self, error, STRATA_ERROR_TRUNCATED, off + attr_size - 16,
                     "an attr's ids (%" G_GUINT64_FORMAT " bytes at %" G_GUINT64_FORMAT
                     ") run past the end of the file", ids_size, ids_off);
      if (!add_attr (self, a, attr_size - 16, off, self->map + ids_off, ids_size / 8, error))
        return FALSE;
    }
  compute_id_positions (self);

  if (data_off > self->map_len)
    return fail (self, error, STRATA_ERROR_TRUNCATED, 40,
                 "the data section starts at %" G_GUINT64_FORMAT ", past the end of the file "
                 "(%" G_GSIZE_FORMAT " bytes)", data_off, self->map_len);

  self->data_offset = data_off;
  self->data_size = data_size;
  self->pos = data_off;
  if (data_size > self->map_len - data_off)
    {
      /* Cut short: read what is there, the damage is reported where the
       * records stop. */
      self->data_end = self->map_len;
      self->data_cut = TRUE;
    }
  else
    self->data_end = data_off + data_size;

  /* The feature sections follow the data: a table of {offset, size}, one
   * per set bit, in bit order. */
  {
    guint64 table = data_off + data_size;
    guint n = 0;

    for (guint feat = 0; feat < PERF_FEAT_BITS; feat++)
      {
        guint64 off, len;

        if (!(features[feat / 64] & (G_GUINT64_CONSTANT (1) << (feat % 64))))
          continue;

        /* Damage in the features leaves the records readable: it is
         * reported after them. */
        if (table > self->map_len || self->map_len - table < 16 * (guint64) (n + 1))
          {
            /* A file cut inside its data has no features to read: the
             * data's damage is what the reader reports. */
            if (!self->data_cut)
              fail (self, &self->feature_damage, STRATA_ERROR_TRUNCATED, table + 16 * n,
                    "the feature table runs past the end of the file");
            break;
          }

        off = rd64 (self, self->map + table + 16 * n);
        len = rd64 (self, self->map + table + 16 * n + 8);
        n++;

        if (off > self->map_len || len > self->map_len - off || len > MAX_SECTION)
          {
            fail (self, &self->feature_damage, STRATA_ERROR_CORRUPT, table + 16 * (n - 1),
                  "feature %u's section (%" G_GUINT64_FORMAT " bytes at %" G_GUINT64_FORMAT
                  ") runs past the end of the file", feat, len, off);
            break;
          }

        if (!parse_feature (self, feat, self->map + off, len, off, &self->feature_damage))
          break;
      }
  }

  return TRUE;
}

/* Pipe mode: the attrs, features and tracing data come first as records. */
static gboolean
read_pipe_preamble (StrataPerfSource  *self,
                    GError           **error)
{
  while (self->data_end - self->pos >= 8)
    {
      guint32 type = rd32 (self, self->map + self->pos);
      Record rec;

      if (type < PERF_RECORD_HEADER_ATTR || type == PERF_RECORD_COMPRESSED ||
          type == PERF_RECORD_COMPRESSED2 || type == PERF_RECORD_FINISHED_ROUND)
        break;
      if (!next_record (self, &rec, error))
        return FALSE;
      if (!process_record (self, &rec, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
strata_perf_source_open (StrataSource  *source,
                         const char    *path,
                         GError       **error)
{
  StrataPerfSource *self = STRATA_PERF_SOURCE (source);
  StrataSourceInfo *info = strata_source_get_info_mutable (source);
  struct stat st;

  self->display_name = g_path_get_basename (path);
  self->strings = strata_source_get_strings (source);

  self->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (self->fd < 0)
    {
      int errsv = errno;
      g_set_error (error, STRATA_ERROR,
                   errsv == ENOENT ? STRATA_ERROR_NOT_FOUND : STRATA_ERROR_IO,
                   "%s: %s", path, g_strerror (errsv));
      return FALSE;
    }
  if (fstat (self->fd, &st) != 0 || st.st_size <= 0)
    return fail (self, error, STRATA_ERROR_TRUNCATED, 0, "the file is empty");

  self->map_len = st.st_size;
  self->map = mmap (NULL, self->map_len, PROT_READ, MAP_PRIVATE, self->fd, 0);
  if (self->map == MAP_FAILED)
    {
      int errsv = errno;

      self->map = NULL;
      return fail (self, error, STRATA_ERROR_IO, 0, "cannot map the file: %s",
                   g_strerror (errsv));
    }
  madvise ((void *) self->map, self->map_len, MADV_SEQUENTIAL);

  info->format = g_strdup ("perf.data");
  info->compression = g_strdup ("none");

  if (!read_file_header (self, error))
    return FALSE;

  if (self->pipe && !read_pipe_preamble (self, error))
    return FALSE;

  if (self->attrs->len == 0)
    return fail (self, error, STRATA_ERROR_CORRUPT, self->pipe ? PERF_PIPE_HEADER_SIZE : 24,
                 "no event attributes: nothing was recorded");

  if (info->clock == NULL)
    {
      const Attr *a = &g_array_index (self->attrs, Attr, 0);

      info->clock = g_strdup ((a->flags >> PERF_ATTR_FLAG_USE_CLOCKID) & 1
                              ? clock_name (a->clockid) : "perf");
    }

  return TRUE;
}

/* ------------------------------------------------------------------ */

static void
elf_file_free (gpointer data)
{
  ElfFile *f = data;

  if (f == NULL)
    return;
  dwfl_end (f->dwfl);
  g_free (f);
}

static void
strata_perf_source_finalize (GObject *object)
{
  StrataPerfSource *self = (StrataPerfSource *)object;
  Chunk *c;

  if (self->worker != NULL)
    {
      g_mutex_lock (&self->lock);
      self->stop = TRUE;
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
      g_clear_pointer (&self->worker, g_thread_join);
    }
  while ((c = g_queue_pop_head (&self->ready)) != NULL)
    chunk_free (self, c);
  for (guint r = 0; r < self->runs->len; r++)
    run_done (self, &g_array_index (self->runs, Run, r));
  g_clear_pointer (&self->runs, g_array_unref);
  if (self->filling != NULL)
    chunk_free (self, g_steal_pointer (&self->filling));
  for (guint i = 0; i < self->n_spare; i++)
    g_free (self->spare[i].events);
  g_clear_pointer (&self->carry, g_free);
  g_clear_pointer (&self->released_comms, g_hash_table_unref);
  g_clear_pointer (&self->rr_kept, g_byte_array_unref);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);

  if (self->map != NULL)
    munmap ((void *) self->map, self->map_len);
  if (self->fd >= 0)
    close (self->fd);
  g_clear_pointer (&self->display_name, g_free);
  g_clear_pointer (&self->attrs, g_array_unref);
  g_clear_pointer (&self->ids, g_hash_table_unref);
  g_clear_pointer (&self->id_table, g_array_unref);
  g_clear_pointer (&self->id_blocks, g_ptr_array_unref);
  g_clear_pointer (&self->zstd, ZSTD_freeDStream);
  g_clear_pointer (&self->decomp, g_free);
  g_clear_pointer (&self->tep, tep_free);
  g_clear_pointer (&self->tp_infos, g_hash_table_unref);
  g_clear_pointer (&self->comm_cache, g_free);
  g_clear_pointer (&self->comm_words, g_free);
  g_clear_pointer (&self->kallsyms_text, g_free);
  g_clear_pointer (&self->comms, g_hash_table_unref);
  g_clear_pointer (&self->maps, g_hash_table_unref);
  g_clear_pointer (&self->elf_files, g_hash_table_unref);
  g_clear_pointer (&self->timed_comms, g_hash_table_unref);
  g_clear_error (&self->deferred_error);
  g_clear_error (&self->feature_damage);
  g_clear_pointer (&self->frames, g_array_unref);
  g_clear_pointer (&self->chains, g_array_unref);
  g_clear_pointer (&self->chain_ids, g_hash_table_unref);
  if (self->ksyms != NULL)
    {
      for (guint i = 0; i < self->ksyms->len; i++)
        g_free (g_array_index (self->ksyms, KernelSym, i).name);
      g_array_unref (self->ksyms);
    }

  G_OBJECT_CLASS (strata_perf_source_parent_class)->finalize (object);
}

static const guint64 *
source_get_callchain (StrataSource *source,
                      guint32       id,
                      guint        *n_frames)
{
  return strata_perf_source_get_callchain (STRATA_PERF_SOURCE (source), id, n_frames);
}

static char *
source_symbolize (StrataSource *source,
                  gint32        pid,
                  guint64       address)
{
  return strata_perf_source_symbolize (STRATA_PERF_SOURCE (source), pid, address);
}

/* How far into the file's bytes the reader is, for a load's progress:
 * the records up to the one being read (a COMPRESSED one's events all
 * carry its offset, however many there are) and what lies outside the
 * data section (the headers and the feature sections after the data, read
 * at open). The events' offsets alone would leave out the features, and
 * with compression stand still for a whole record. */
static guint64
strata_perf_source_get_file_position (StrataSource *source)
{
  StrataPerfSource *self = STRATA_PERF_SOURCE (source);

  if (self->data_end <= self->map_len && self->pos <= self->data_end && self->pos > 0)
    return self->map_len - (self->data_end - self->pos);
  return 0;
}

static void
strata_perf_source_class_init (StrataPerfSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  StrataSourceClass *source_class = STRATA_SOURCE_CLASS (klass);

  object_class->finalize = strata_perf_source_finalize;
  source_class->probe = strata_perf_source_probe;
  source_class->open = strata_perf_source_open;
  source_class->read_batch = strata_perf_source_read_batch;
  source_class->get_callchain = source_get_callchain;
  source_class->symbolize = source_symbolize;
  source_class->get_file_position = strata_perf_source_get_file_position;
}

static gboolean
u64_equal (gconstpointer a,
           gconstpointer b)
{
  return *(const guint64 *) a == *(const guint64 *) b;
}

static void
strata_perf_source_init (StrataPerfSource *self)
{
  StrataStringPool *strings = strata_source_get_strings (STRATA_SOURCE (self));

  self->fd = -1;
  self->attrs = g_array_new (FALSE, TRUE, sizeof (Attr));
  self->ids = g_hash_table_new (chain_hash, u64_equal);
  self->id_blocks = g_ptr_array_new_with_free_func (g_free);
  self->tp_infos = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->comm_cache = g_new0 (CommCacheEntry, COMM_CACHE_SIZE);
  self->comm_words = g_new0 (CommWords, COMM_WORDS_SIZE);
  self->comms = g_hash_table_new (NULL, NULL);
  self->maps = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
  self->elf_files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, elf_file_free);
  self->timed_comms = g_hash_table_new (NULL, NULL);
  self->released_comms = g_hash_table_new (NULL, NULL);
  self->runs = g_array_new (FALSE, FALSE, sizeof (Run));
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->ready);
  self->overflow_check = self->window = MAX_PENDING;
  self->release_limit = G_MININT64;
  self->limit = G_MININT64;
  self->frames = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->chains = g_array_new (FALSE, FALSE, sizeof (Chain));
  self->chain_ids = g_hash_table_new_full (chain_hash, u64_equal, g_free,
                                           (GDestroyNotify) g_array_unref);
  self->round_limit = G_MININT64;
  self->max_ts = G_MININT64;
  self->released_ts = G_MININT64;
  self->sample_id_pos = -1;
  self->trailer_id_pos = -1;

  self->name_lost = strata_string_pool_intern (strings, "lost_events");
  self->name_switch = strata_string_pool_intern (strings, "PERF_RECORD_SWITCH");
  self->name_fork = strata_string_pool_intern (strings, "PERF_RECORD_FORK");
  self->name_exec = strata_string_pool_intern (strings, "PERF_RECORD_COMM_EXEC");
  self->name_exit = strata_string_pool_intern (strings, "PERF_RECORD_EXIT");
}

/* ------------------------------------------------------------------ */
/* For tests and tools.                                                 */

guint64
strata_perf_source_get_record_count (StrataPerfSource *self,
                                     guint             type)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), 0);

  return type < PERF_RECORD_MAX_TYPE ? self->record_counts[type] : 0;
}

const guint64 *
strata_perf_source_get_callchain (StrataPerfSource *self,
                                  guint32           id,
                                  guint            *n_frames)
{
  const Chain *c;

  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), NULL);

  if (id >= self->chains->len)
    {
      *n_frames = 0;
      return NULL;
    }
  c = &g_array_index (self->chains, Chain, id);
  *n_frames = c->len;
  return &g_array_index (self->frames, guint64, c->start);
}

guint
strata_perf_source_get_n_callchains (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), 0);
  return self->chains->len;
}

guint64
strata_perf_source_get_inexact_samples (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), 0);
  return self->inexact_samples + self->unclaimed_samples;
}

gboolean
strata_perf_source_has_sched_switch (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), FALSE);
  return self->has_sched_switch;
}

void
strata_perf_source_set_reorder_window (StrataPerfSource *self,
                                       guint             n_events)
{
  g_return_if_fail (STRATA_IS_PERF_SOURCE (self));
  g_return_if_fail (n_events >= 2);

  self->window = n_events;
  self->overflow_check = n_events;
}

void
strata_perf_source_set_threaded (StrataPerfSource *self,
                                 gboolean          threaded)
{
  g_return_if_fail (STRATA_IS_PERF_SOURCE (self));
  g_return_if_fail (!self->started);

  self->read_ahead = threaded;
}

gboolean
strata_perf_source_get_threaded (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), FALSE);
  return self->started && self->read_ahead && can_run_ahead (self);
}

guint64
strata_perf_source_get_out_of_order (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), 0);
  return self->out_of_order;
}

gboolean
strata_perf_source_get_order_overflow (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), FALSE);
  return self->order_overflow;
}

static int
ksym_cmp (gconstpointer a,
          gconstpointer b)
{
  const KernelSym *x = a, *y = b;

  return x->address < y->address ? -1 : (x->address > y->address);
}

static gboolean
same_release (StrataPerfSource *self)
{
  const StrataSourceInfo *info = strata_source_get_info (STRATA_SOURCE (self));
  g_autofree char *release = NULL;

  if (info->kernel_release == NULL ||
      !g_file_get_contents ("/proc/sys/kernel/osrelease", &release, NULL, NULL))
    return FALSE;
  return strcmp (g_strstrip (release), info->kernel_release) == 0;
}

static void
load_kallsyms (StrataPerfSource *self)
{
  g_autofree char *machine = NULL;
  const char *text = self->kallsyms_text;

  self->ksyms = g_array_new (FALSE, FALSE, sizeof (KernelSym));

  if (text == NULL && g_file_get_contents ("/proc/kallsyms", &machine, NULL, NULL))
    text = machine;
  if (text == NULL)
    return;

  /* "ADDRESS TYPE NAME [MODULE]" lines; only text symbols name code. */
  for (const char *line = text; *line != '\0';)
    {
      const char *eol = strchr (line, '\n');
      const char *end = eol != NULL ? eol : line + strlen (line);
      char *after = NULL;
      guint64 address = g_ascii_strtoull (line, &after, 16);

      if (after != NULL && after + 3 < end && after[0] == ' ' && strchr ("tTwW", after[1]) != NULL &&
          after[2] == ' ' && address != 0)
        {
          const char *name = after + 3;
          const char *name_end = name;
          KernelSym k;

          while (name_end < end && *name_end != ' ' && *name_end != '\t')
            name_end++;
          k.address = address;
          k.name = g_strndup (name, name_end - name);
          /* The machine's kallsyms describe the recorded kernel if it
           * runs the release the file names; another boot's layout
           * differs by where _text is (KASLR), as perf relocates. */
          if (text == machine && strcmp (k.name, "_text") == 0 && same_release (self))
            {
              self->ksyms_usable = TRUE;
              if (self->kernel_text != 0)
                self->ksyms_delta = (gint64) (k.address - self->kernel_text);
            }
          g_array_append_val (self->ksyms, k);
        }
      line = eol != NULL ? eol + 1 : end;
    }
  g_array_sort (self->ksyms, ksym_cmp);
  if (text == self->kallsyms_text)
    self->ksyms_usable = self->ksyms->len > 0;
}

const char *
strata_perf_source_lookup_kernel (StrataPerfSource *self,
                                  guint64           address)
{
  guint lo = 0, hi;

  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), NULL);

  if (self->ksyms == NULL)
    load_kallsyms (self);

  address += self->ksyms_delta;
  hi = self->ksyms->len;
  if (!self->ksyms_usable || hi == 0 ||
      address < g_array_index (self->ksyms, KernelSym, 0).address)
    return NULL;

  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (self->ksyms, KernelSym, mid).address <= address)
        lo = mid;
      else
        hi = mid;
    }

  return g_array_index (self->ksyms, KernelSym, lo).name;
}

static const Dwfl_Callbacks offline_callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

static ElfFile *
open_elf (StrataPerfSource *self,
          const char       *path)
{
  ElfFile *f;
  gpointer found;

  if (g_hash_table_lookup_extended (self->elf_files, path, NULL, &found))
    return found;

  f = NULL;
  if (path[0] == '/' && g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      Dwfl *dwfl = dwfl_begin (&offline_callbacks);
      Dwfl_Module *mod = dwfl != NULL ? dwfl_report_offline (dwfl, path, path, -1) : NULL;

      if (mod != NULL && dwfl_report_end (dwfl, NULL, NULL) == 0)
        {
          f = g_new0 (ElfFile, 1);
          f->dwfl = dwfl;
          f->module = mod;
        }
      else if (dwfl != NULL)
        dwfl_end (dwfl);
    }

  g_hash_table_insert (self->elf_files, g_strdup (path), f);
  return f;
}

/* The function at file offset @offset of @f, through its program
 * headers (the load bias of the module libdwfl chose added). */
static const char *
elf_function_at (ElfFile *f,
                 guint64  offset)
{
  GElf_Addr bias = 0;
  Elf *elf = dwfl_module_getelf (f->module, &bias);
  size_t n = 0;

  if (elf == NULL || elf_getphdrnum (elf, &n) != 0)
    return NULL;

  for (size_t i = 0; i < n; i++)
    {
      GElf_Phdr mem, *ph = gelf_getphdr (elf, i, &mem);

      if (ph != NULL && ph->p_type == PT_LOAD && offset >= ph->p_offset &&
          offset < ph->p_offset + ph->p_filesz)
        return dwfl_module_addrname (f->module, offset - ph->p_offset + ph->p_vaddr + bias);
    }

  return NULL;
}

static const Map *
find_map (StrataPerfSource *self,
          gint32            pid,
          guint64           address)
{
  GArray *maps = g_hash_table_lookup (self->maps, GINT_TO_POINTER (pid));

  /* The latest mapping wins: a later mmap replaces an earlier one. */
  for (guint i = maps != NULL ? maps->len : 0; i > 0; i--)
    {
      const Map *m = &g_array_index (maps, Map, i - 1);

      if (address >= m->start && address - m->start < m->len)
        return m;
    }
  return NULL;
}

/**
 * strata_perf_source_symbolize:
 * @pid: the process the address is in (its tgid)
 * @address: a code address from a sample
 *
 * Names the function at @address: kernel addresses from the tracing
 * data's kallsyms or this machine's, when they describe the recorded
 * kernel; user addresses through the mapped file with libdwfl. An address
 * whose file is missing or has no symbol is named by its file and offset,
 * "libc.so.6+0x2a1c0"; one outside every mapping by its value.
 *
 * Returns: (transfer full): the name
 */
char *
strata_perf_source_symbolize (StrataPerfSource *self,
                              gint32            pid,
                              guint64           address)
{
  const Map *m;
  const char *name;

  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), NULL);

  if (address >= G_GUINT64_CONSTANT (0xffff800000000000))
    {
      name = strata_perf_source_lookup_kernel (self, address);
      if (name != NULL)
        return g_strdup (name);
      return g_strdup_printf ("[kernel] 0x%" G_GINT64_MODIFIER "x", address);
    }

  m = find_map (self, pid, address);
  if (m == NULL)
    return g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", address);

  {
    const char *path = strata_string_pool_get (self->strings, m->file);
    guint64 offset = address - m->start + m->pgoff;
    ElfFile *f = open_elf (self, path);
    g_autofree char *base = g_path_get_basename (path);

    if (f != NULL && (name = elf_function_at (f, offset)) != NULL)
      return g_strdup (name);
    return g_strdup_printf ("%s+0x%" G_GINT64_MODIFIER "x", base, offset);
  }
}

gboolean
strata_perf_source_kernel_symbols_known (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), FALSE);

  if (self->ksyms == NULL)
    load_kallsyms (self);
  return self->ksyms_usable;
}

void
strata_plugin_perf_register (void)
{
  g_io_extension_point_implement (STRATA_SOURCE_EXTENSION_POINT,
                                  STRATA_TYPE_PERF_SOURCE, "perf.data", 0);
}

/* ------------------------------------------------------------------ */
/* Record by record, for the fields of a few events.                   */

/* next_record(), keeping where the record can be found again: reading
 * starts afresh wherever no inflated bytes are left over. */
static gboolean
rr_next (StrataPerfSource    *self,
         Record              *rec,
         StrataPerfPosition  *where,
         GError             **error)
{
  if (self->decomp_len == self->decomp_pos)
    {
      self->rr_at = self->pos;
      self->rr_skip = 0;
    }
  where->at = self->rr_at;
  where->skip = self->rr_skip;
  if (!next_record (self, rec, error))
    return FALSE;
  self->rr_skip++;
  self->rr_frontier = MAX (self->rr_frontier, self->pos);
  return TRUE;
}

gboolean
strata_perf_source_next_record_head (StrataPerfSource     *self,
                                     StrataPerfRecordHead *head,
                                     GError              **error)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), FALSE);
  g_return_val_if_fail (head != NULL, FALSE);

  self->rr_valid = FALSE;
  for (;;)
    {
      guint64 before = self->rr_frontier;
      Record rec;
      Sample s;
      Attr *a;

      if (!self->rr_decided)
        {
          const StrataSourceInfo *info = strata_source_get_info (STRATA_SOURCE (self));

          self->rr_decided = TRUE;
          if (g_strcmp0 (info->compression, "none") != 0)
            self->rr_kept = g_byte_array_new ();
        }

      if (self->rr_kept != NULL && self->rr_cursor < self->rr_kept->len)
        {
          /* Read again from what was kept: whole records, checked when
           * they were kept. */
          const guint8 *h = self->rr_kept->data + self->rr_cursor;

          rec.type = rd32 (self, h);
          rec.misc = rd16 (self, h + 4);
          rec.size = rd16 (self, h + 6);
          rec.body = h + 8;
          rec.body_len = rec.size - 8;
          rec.offset = self->rr_cursor;
          rec.inflated = TRUE;
          head->where.at = self->rr_cursor;
          head->where.skip = 0;
          head->where.kept = TRUE;
          self->rr_cursor += rec.size;
        }
      else
        {
          if (!rr_next (self, &rec, &head->where, error))
            return FALSE;
          head->where.kept = FALSE;
          if (self->rr_kept != NULL &&
              (rec.type == PERF_RECORD_SAMPLE || rec.type == PERF_RECORD_SWITCH ||
               rec.type == PERF_RECORD_SWITCH_CPU_WIDE))
            {
              gsize at = self->rr_kept->len;

              if (at + rec.size > MAX_KEPT)
                return fail (self, error, STRATA_ERROR_IO, rec.offset,
                             "more than %u bytes of compressed records to keep", MAX_KEPT);
              g_byte_array_append (self->rr_kept, rec.body - 8, rec.size);
              rec.body = self->rr_kept->data + at + 8;
              head->where.at = at;
              head->where.skip = 0;
              head->where.kept = TRUE;
              self->rr_cursor = self->rr_kept->len;
            }
        }

      switch (rec.type)
        {
        case PERF_RECORD_SAMPLE:
          {
            gsize used;
            const char *why;

            a = attr_of_sample (self, rec.body, rec.body_len);
            if (a == NULL || !parse_sample (self, a, rec.body, rec.body_len, &s, &used, &why))
              continue;
          }
          break;

        case PERF_RECORD_SWITCH:
        case PERF_RECORD_SWITCH_CPU_WIDE:
          a = attr_of_other (self, rec.body, rec.body_len);
          if (a == NULL || !parse_trailer (self, a, rec.body, rec.body_len, &s))
            continue;
          break;

        case PERF_RECORD_HEADER_ATTR:
        case PERF_RECORD_EVENT_UPDATE:
          /* Only the first time it is read. */
          if (!rec.inflated && rec.offset >= before)
            if (!process_record (self, &rec, error))
              return FALSE;
          continue;

        case PERF_RECORD_HEADER_TRACING_DATA:
          /* Pipe mode's data after the record: the open read it. */
          if (self->pipe && !rec.inflated && rec.body_len >= 4)
            {
              guint64 padded = ((guint64) rd32 (self, rec.body) + 7) & ~(guint64) 7;

              if (padded > self->data_end - self->pos)
                return fail (self, error, STRATA_ERROR_TRUNCATED, rec.offset,
                             "the tracing data runs past the end of the file");
              self->pos += padded;
              self->rr_frontier = MAX (self->rr_frontier, self->pos);
            }
          continue;

        default:
          continue;
        }

      if (!s.has_time)
        continue;
      head->ts = (gint64) MIN (s.time, (guint64) G_MAXINT64);
      head->cpu = s.has_cpu ? s.cpu : 0;
      head->has_cpu = s.has_cpu;
      if (rec.type == PERF_RECORD_SAMPLE)
        head->name = g_intern_string (strata_string_pool_get (self->strings, a->name));
      else
        head->name = g_intern_string (strata_string_pool_get (self->strings, self->name_switch));
      self->rr_last = rec;
      self->rr_valid = TRUE;
      return TRUE;
    }
}

char *
strata_perf_source_format_record (StrataPerfSource *self)
{
  const Record *rec = &self->rr_last;
  GString *out;
  Sample s;
  Attr *a;

  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), NULL);

  if (!self->rr_valid)
    return NULL;

  if (rec->type == PERF_RECORD_SWITCH || rec->type == PERF_RECORD_SWITCH_CPU_WIDE)
    {
      gboolean is_out = (rec->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;

      a = attr_of_other (self, rec->body, rec->body_len);
      out = g_string_new (is_out ? "OUT" : "IN");
      if (is_out && (rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT))
        g_string_append (out, " preempt");
      if (rec->type == PERF_RECORD_SWITCH_CPU_WIDE && a != NULL && rec->body_len >= 8 + a->trailer)
        g_string_append_printf (out, " %s pid/tid: %d/%d", is_out ? "next" : "prev",
                                (gint32) rd32 (self, rec->body), (gint32) rd32 (self, rec->body + 4));
      return g_string_free (out, FALSE);
    }

  {
    gsize used;
    const char *why;

    a = attr_of_sample (self, rec->body, rec->body_len);
    if (a == NULL || !parse_sample (self, a, rec->body, rec->body_len, &s, &used, &why))
      return NULL;
  }

  if (s.raw != NULL && self->tep != NULL && s.raw_size > 0)
    {
      struct tep_record record = { 0 };
      struct tep_event *event;
      struct trace_seq seq;
      char *text = NULL;

      record.data = (void *) s.raw;
      record.size = s.raw_size;
      record.ts = s.time;
      record.cpu = s.cpu;
      event = tep_find_event_by_record (self->tep, &record);
      if (event == NULL)
        return NULL;
      trace_seq_init (&seq);
      tep_print_event (self->tep, &seq, &record, "%s", TEP_PRINT_INFO);
      trace_seq_terminate (&seq);
      if (seq.state == TRACE_SEQ__GOOD && seq.buffer != NULL)
        text = g_strstrip (g_strdup (seq.buffer));
      trace_seq_destroy (&seq);
      return text;
    }

  {
    guint64 depth = 0;

    for (guint64 i = 0; s.ips != NULL && i < s.nr; i++)
      if (rd64 (self, s.ips + 8 * i) < PERF_CONTEXT_MAX)
        depth++;
    out = g_string_new (NULL);
    g_string_append_printf (out, "ip=0x%" G_GINT64_MODIFIER "x", s.ip);
    if (a->sample_type & PERF_SAMPLE_PERIOD)
      g_string_append_printf (out, " period=%" G_GUINT64_FORMAT, s.period);
    if (a->sample_type & PERF_SAMPLE_CALLCHAIN)
      g_string_append_printf (out, " depth=%" G_GUINT64_FORMAT, depth);
    return g_string_free (out, FALSE);
  }
}

gboolean
strata_perf_source_seek_record (StrataPerfSource          *self,
                                const StrataPerfPosition  *where,
                                GError                   **error)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), FALSE);
  g_return_val_if_fail (where != NULL, FALSE);

  self->rr_valid = FALSE;
  if (where->kept)
    {
      if (self->rr_kept == NULL || where->at > self->rr_kept->len)
        return fail (self, error, STRATA_ERROR_CORRUPT, where->at, "not a position in the records kept");
      self->rr_cursor = where->at;
      return TRUE;
    }
  if (self->zstd != NULL)
    return fail (self, error, STRATA_ERROR_UNSUPPORTED, where->at,
                 "a zstd stream cannot be entered midway");
  if (where->at < self->data_offset || where->at > self->data_end)
    return fail (self, error, STRATA_ERROR_CORRUPT, where->at, "not a position in the data");

  self->pos = where->at;
  self->decomp_len = 0;
  self->decomp_pos = 0;
  if (self->zstd != NULL)
    ZSTD_initDStream (self->zstd);
  /* The pages behind are given back as reading goes on: not those ahead. */
  self->dropped_until = MIN (self->dropped_until, where->at & ~(guint64) (DROP_STEP - 1));
  self->rr_at = where->at;
  self->rr_skip = 0;

  for (guint32 i = 0; i < where->skip; i++)
    {
      StrataPerfPosition ignored;
      Record rec;

      if (!rr_next (self, &rec, &ignored, error))
        {
          if (error != NULL && *error == NULL)
            g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                         "the records end before the position");
          return FALSE;
        }
      if (rec.type == PERF_RECORD_HEADER_TRACING_DATA && self->pipe && !rec.inflated && rec.body_len >= 4)
        {
          guint64 padded = ((guint64) rd32 (self, rec.body) + 7) & ~(guint64) 7;

          if (padded > self->data_end - self->pos)
            return fail (self, error, STRATA_ERROR_TRUNCATED, rec.offset,
                         "the tracing data runs past the end of the file");
          self->pos += padded;
        }
    }
  return TRUE;
}
