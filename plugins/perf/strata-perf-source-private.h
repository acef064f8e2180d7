/* strata-perf-source-private.h
 *
 * What the files of the perf.data reader share: the source's state, the
 * attrs, samples and records as they are parsed, the byte-order readers,
 * and the functions each file gives the others. The reader's files, in
 * the order a file is read:
 *
 *   strata-perf-source.c        the StrataSource: open, batches, what tests ask
 *   strata-perf-header.c        the file header and its feature sections, the
 *                               pipe-mode preamble
 *   strata-perf-features.c      one feature (file section or FEATURE record)
 *   strata-perf-attrs.c         perf_event_attrs and the sample ids that name them
 *   strata-perf-tracing-data.c  the tracepoint formats (HEADER_TRACING_DATA)
 *   strata-perf-tokenizer.c     the record stream: the mapped file, COMPRESSED
 *                               records inflated, AUXTRACE data stepped over
 *   strata-perf-record-types.c  every record type: its name and fixed size
 *   strata-perf-records.c       one record: what it means for the model
 *   strata-perf-sample.c        SAMPLE records and sample_id trailers; call chains
 *   strata-perf-reorder.c       the reorder buffer and its read-ahead thread
 *   strata-perf-random-access.c record by record again, for the event list
 *
 * Names of the machine's code are plugins/strata-symbolizer.c's, and the
 * tracepoint fields plugins/strata-tracepoint-fields.c's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include <traceevent/event-parse.h>
#include <zstd.h>

#include "strata-error.h"
#include "strata-perf-format.h"
#include "strata-perf-source.h"
#include "../strata-symbolizer.h"
#include "../strata-tracepoint-fields.h"

G_BEGIN_DECLS

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

/* What the source needs of one tracepoint event id. */
typedef struct
{
  guint32                  name;
  guint32                  chain_name;  /* "system:name": its call chains' samples */
  StrataTracepointFields   tp;       /* its type and fields */
} TpInfo;

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

/* A sample's fields, or a record's sample_id trailer. */
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
  guint32       type;
  guint16       misc;
  guint16       size;
  const guint8 *body;      /* after the 8-byte header */
  gsize         body_len;
  guint64       offset;    /* in the file; the COMPRESSED record for inflated ones */
  gboolean      inflated;
  const guint8 *payload;   /* the data after the record (AUXTRACE, a pipe's
                            * TRACING_DATA), or NULL */
  guint64       payload_len;
} Record;

/* A run of records' events in the reorder buffer (strata-perf-reorder.c). */
typedef struct _Chunk Chunk;

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

  /* Attrs (strata-perf-attrs.c). */
  GArray           *attrs;         /* Attr */
  GHashTable       *ids;           /* sample id (guint64 *) → attr index + 1 */
  GPtrArray        *id_blocks;     /* the keys, owned in one block per attr */
  gint              sample_id_pos; /* u64 index of the id in a sample, or -1 */
  gint              trailer_id_pos;/* from the end of a record, or -1 */
  gboolean          identifier;
  guint64           last_id;
  Attr             *last_attr;     /* of last_id; NULL when attrs change */
  guint64           id_base;       /* ids are few and close: attr index + 1 by id - base */
  GArray           *id_table;      /* guint16, or NULL */

  /* zstd: one stream across COMPRESSED records (strata-perf-tokenizer.c). */
  ZSTD_DStream     *zstd;
  guint8           *decomp;
  gsize             decomp_len;
  gsize             decomp_pos;
  gsize             decomp_alloc;
  guint64           decomp_from;   /* the COMPRESSED record the bytes came from */

  /* Tracing data (strata-perf-tracing-data.c). */
  struct tep_handle *tep;
  GHashTable        *tp_infos;     /* event id → TpInfo (owned) */
  gboolean           has_sched_switch;
  gboolean           has_fork_tp;
  gboolean           has_exec_tp;
  gboolean           has_exit_tp;
  gboolean           native_order;
  StrataCommCache   *comm_cache;

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

  /* Call chains, interned (strata-perf-sample.c). */
  GArray            *frames;        /* guint64 */
  GArray            *chains;        /* Chain */
  GHashTable        *chain_ids;     /* hash of the frames → GArray of chain indices */

  /* Names of kernel and user code: mappings, forks and execs told as
   * they are read. */
  StrataSymbolizer  *symbolizer;

  guint64            record_counts[PERF_RECORD_MAX_TYPE];
  GHashTable        *unknown_counts;    /* type → guint64[2]: records and bytes of a
                                         * type no one defines */

  /* AUX area data (a processor trace), stepped over and counted. */
  guint32            auxtrace_type;     /* AUXTRACE_INFO's: which PMU */
  GArray            *aux_records;       /* guint64 by CPU + 1 (0: no CPU) */
  GArray            *aux_bytes;         /* the same, bytes */
  guint64            inexact_samples;   /* whose fields do not fill the record */
  guint64            unclaimed_samples; /* of an id no attr has */

  /* Reading record by record (strata-perf-random-access.c). */
  guint64            rr_at;         /* where the records being read started afresh */
  guint32            rr_skip;       /* records read since */
  guint64            rr_frontier;   /* the furthest file offset read */
  Record             rr_last;       /* the record given last */
  gboolean           rr_valid;
  gboolean           rr_decided;
  GByteArray        *rr_kept;       /* a compressed file's records, as read; or NULL */
  gsize              rr_cursor;     /* the next one to give from rr_kept */
  StrataPerfPosition rr_first;      /* of the first record given */
  gboolean           rr_started;    /* whether one was */
};

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

gboolean     strata_perf_fail                  (StrataPerfSource  *self,
                                                GError           **error,
                                                gint               code,
                                                guint64            offset,
                                                const char        *format,
                                                ...) G_GNUC_PRINTF (5, 6);

/* strata-perf-header.c */
gboolean     strata_perf_read_file_header      (StrataPerfSource  *self,
                                                GError           **error);
gboolean     strata_perf_read_pipe_preamble    (StrataPerfSource  *self,
                                                GError           **error);

/* strata-perf-features.c */
const char  *strata_perf_clock_name            (gint32             clockid);
gboolean     strata_perf_parse_feature         (StrataPerfSource  *self,
                                                guint              feat,
                                                const guint8      *p,
                                                gsize              len,
                                                guint64            offset,
                                                GError           **error);

/* strata-perf-attrs.c */
gboolean     strata_perf_add_attr              (StrataPerfSource  *self,
                                                const guint8      *p,
                                                gsize              len,
                                                guint64            offset,
                                                const guint8      *ids,
                                                guint64            n_ids,
                                                GError           **error);
void         strata_perf_compute_id_positions  (StrataPerfSource  *self);
Attr        *strata_perf_attr_of_sample        (StrataPerfSource  *self,
                                                const guint8      *body,
                                                gsize              len);
Attr        *strata_perf_attr_of_other         (StrataPerfSource  *self,
                                                const guint8      *body,
                                                gsize              len);
void         strata_perf_name_attrs_by_id      (StrataPerfSource  *self,
                                                guint64            id,
                                                const char        *name);
gboolean     strata_perf_handle_header_attr    (StrataPerfSource  *self,
                                                const Record      *rec,
                                                GError           **error);

/* strata-perf-tracing-data.c */
gboolean     strata_perf_parse_tracing_data    (StrataPerfSource  *self,
                                                const guint8      *data,
                                                gsize              len,
                                                guint64            base,
                                                GError           **error);
void         strata_perf_resolve_attr_names    (StrataPerfSource  *self);

/* strata-perf-record-types.c */
const char  *strata_perf_record_type_name      (guint32            type);
gboolean     strata_perf_record_check_size     (StrataPerfSource  *self,
                                                const Record      *rec,
                                                GError           **error);

/* strata-perf-tokenizer.c */
gboolean     strata_perf_next_record           (StrataPerfSource  *self,
                                                Record            *rec,
                                                GError           **error);

/* strata-perf-records.c */
gboolean     strata_perf_process_record        (StrataPerfSource  *self,
                                                const Record      *rec,
                                                GError           **error);
guint32      strata_perf_comm_of               (StrataPerfSource  *self,
                                                gint32             tid);

/* strata-perf-sample.c */
guint        strata_perf_trailer_size          (guint64            sample_type);
void         strata_perf_id_positions          (guint64            sample_type,
                                                gint              *in_sample,
                                                gint              *from_end);
void         strata_perf_prepare_layout        (Attr              *a);
gboolean     strata_perf_parse_sample          (StrataPerfSource  *self,
                                                const Attr        *a,
                                                const guint8      *p,
                                                gsize              len,
                                                Sample            *s,
                                                gsize             *used,
                                                const char       **why);
gboolean     strata_perf_parse_trailer         (StrataPerfSource  *self,
                                                const Attr        *a,
                                                const guint8      *body,
                                                gsize              len,
                                                Sample            *s);
void         strata_perf_event_init            (StrataPerfSource  *self,
                                                StrataEvent       *ev,
                                                const Sample      *s,
                                                guint64            offset);
gboolean     strata_perf_handle_sample         (StrataPerfSource  *self,
                                                const guint8      *body,
                                                gsize              len,
                                                guint64            offset,
                                                GError           **error);
guint32      strata_perf_intern_chain          (StrataPerfSource  *self,
                                                const guint64     *frames,
                                                guint              len);

/* strata-perf-reorder.c */
Chunk       *strata_perf_producer_chunk        (StrataPerfSource  *self);
void         strata_perf_push_commit           (StrataPerfSource  *self);
void         strata_perf_push_event            (StrataPerfSource  *self,
                                                const StrataEvent *ev);
void         strata_perf_set_limit             (StrataPerfSource  *self,
                                                gint64             limit);
void         strata_perf_note_comm             (StrataPerfSource  *self,
                                                gint32             tid,
                                                guint32            comm);
void         strata_perf_note_lost             (StrataPerfSource  *self,
                                                guint              cpu,
                                                guint64            count);
void         strata_perf_note_chain            (StrataPerfSource  *self,
                                                const guint64     *frames,
                                                guint              n);
void         strata_perf_record_streams_init   (StrataSourceClass *source_class);
void         strata_perf_reorder_init          (StrataPerfSource  *self);
void         strata_perf_reorder_clear         (StrataPerfSource  *self);
gboolean     strata_perf_can_run_ahead         (StrataPerfSource  *self);
void         strata_perf_start_read_ahead      (StrataPerfSource  *self);
gsize        strata_perf_drain                 (StrataPerfSource  *self,
                                                StrataEvent       *out,
                                                gsize              room);
void         strata_perf_take_next_chunk       (StrataPerfSource  *self);

/* A sample's attr as strata_perf_attr_of_sample() finds it, its common
 * case inline for the samples' hot path: several attrs whose ids are a
 * dense range, the id at a fixed word of the sample. */
static inline Attr *
strata_perf_sample_attr (StrataPerfSource *self,
                         const guint8     *body,
                         gsize             len)
{
  if (G_LIKELY (self->id_table != NULL && self->attrs->len > 1 && self->sample_id_pos >= 0 &&
                (gsize) (self->sample_id_pos + 1) * 8 <= len))
    {
      guint64 slot = rd64 (self, body + 8 * self->sample_id_pos) - self->id_base;

      if (slot < self->id_table->len)
        {
          guint16 index = g_array_index (self->id_table, guint16, slot);

          if (index != 0)
            return &g_array_index (self->attrs, Attr, index - 1);
        }
    }
  return strata_perf_attr_of_sample (self, body, len);
}

/* A new event at the end of the chunk being filled, for the caller to
 * decode into in place and then hand to strata_perf_push_commit(). */
static inline StrataEvent *
strata_perf_pending_slot (StrataPerfSource *self)
{
  Chunk *c = self->filling != NULL ? self->filling : strata_perf_producer_chunk (self);

  if (G_UNLIKELY (c->n == c->alloc))
    {
      c->alloc = MAX (c->alloc * 2, 256);
      c->events = g_renew (StrataEvent, c->events, c->alloc);
    }
  return &c->events[c->n];
}

G_END_DECLS
