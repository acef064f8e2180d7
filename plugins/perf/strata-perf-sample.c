/* strata-perf-sample.c
 *
 * SAMPLE records: their fields parsed against the attr's sample_type and
 * read_format, every length checked against the record; the sample_id
 * trailer of other records. One table per layout says which fields come
 * in which order and how each is shaped, and one reader walks it; the
 * same tables give the fixed offsets of a tracepoint sample and where
 * the attr's id sits. Tracepoint samples decoded through their
 * formats where they wait in the reorder buffer, other samples as
 * STRATA_EVENT_SAMPLE with their call chain, interned in a table of the
 * source.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-perf-source-private.h"

/* ------------------------------------------------------------------ */
/* The fields of a sample and of a sample_id trailer.                   */

/* How a field is laid out. The one-word kinds come first: a sample whose
 * fields before the raw data are all of them has a fixed layout. */
typedef enum
{
  FIELD_WORD,       /* one u64 the reader does not keep */
  FIELD_IP,
  FIELD_TIME,
  FIELD_PERIOD,
  FIELD_TID,        /* pid, tid: a u32 each */
  FIELD_CPU,        /* cpu, reserved: a u32 each */
  FIELD_LAST_WORD = FIELD_CPU,
  FIELD_READ,       /* the counter values, as read_format lays them out */
  FIELD_CALLCHAIN,  /* nr, then nr u64 */
  FIELD_RAW,        /* a u32 size, then the bytes */
  FIELD_BRANCHES,   /* nr, the hardware index if asked for, nr entries of 24 bytes */
  FIELD_REGS,       /* abi, then the registers unless abi is 0 */
  FIELD_SIZED,      /* size, the bytes (the user stack: then dyn_size unless size is 0) */
} FieldKind;

typedef struct
{
  guint64     bits;     /* in sample_type: the field is there when one is set */
  FieldKind   kind;
  const char *what;     /* for "ends inside ..." */
} SampleField;

/* In the order the kernel writes them (perf_event.h's PERF_RECORD_SAMPLE). */
static const SampleField sample_fields[] = {
  { PERF_SAMPLE_IDENTIFIER, FIELD_WORD, "the identifier" },
  { PERF_SAMPLE_IP, FIELD_IP, "the ip" },
  { PERF_SAMPLE_TID, FIELD_TID, "the pid and tid" },
  { PERF_SAMPLE_TIME, FIELD_TIME, "the time" },
  { PERF_SAMPLE_ADDR, FIELD_WORD, "the address" },
  { PERF_SAMPLE_ID, FIELD_WORD, "the id" },
  { PERF_SAMPLE_STREAM_ID, FIELD_WORD, "the stream id" },
  { PERF_SAMPLE_CPU, FIELD_CPU, "the cpu" },
  { PERF_SAMPLE_PERIOD, FIELD_PERIOD, "the period" },
  { PERF_SAMPLE_READ, FIELD_READ, "the read values" },
  { PERF_SAMPLE_CALLCHAIN, FIELD_CALLCHAIN, "the call chain" },
  { PERF_SAMPLE_RAW, FIELD_RAW, "the raw data's size" },
  { PERF_SAMPLE_BRANCH_STACK, FIELD_BRANCHES, "the branch stack" },
  { PERF_SAMPLE_REGS_USER, FIELD_REGS, "the user registers" },
  { PERF_SAMPLE_STACK_USER, FIELD_SIZED, "the user stack" },
  { PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, FIELD_WORD, "the weight" },
  { PERF_SAMPLE_DATA_SRC, FIELD_WORD, "the data source" },
  { PERF_SAMPLE_TRANSACTION, FIELD_WORD, "the transaction" },
  { PERF_SAMPLE_REGS_INTR, FIELD_REGS, "the interrupt registers" },
  { PERF_SAMPLE_PHYS_ADDR, FIELD_WORD, "the physical address" },
  { PERF_SAMPLE_CGROUP, FIELD_WORD, "the cgroup" },
  { PERF_SAMPLE_DATA_PAGE_SIZE, FIELD_WORD, "the data page size" },
  { PERF_SAMPLE_CODE_PAGE_SIZE, FIELD_WORD, "the code page size" },
  { PERF_SAMPLE_AUX, FIELD_SIZED, "the aux data" },
};

/* The sample_id_all trailer of other records (perf_event.h's sample_id). */
static const SampleField trailer_fields[] = {
  { PERF_SAMPLE_TID, FIELD_TID, "the pid and tid" },
  { PERF_SAMPLE_TIME, FIELD_TIME, "the time" },
  { PERF_SAMPLE_ID, FIELD_WORD, "the id" },
  { PERF_SAMPLE_STREAM_ID, FIELD_WORD, "the stream id" },
  { PERF_SAMPLE_CPU, FIELD_CPU, "the cpu" },
  { PERF_SAMPLE_IDENTIFIER, FIELD_WORD, "the identifier" },
};

/* Reads the fields of @fields that @a's sample_type has, from *@at in
 * @p (@len bytes), into @s, each length checked against @len; *@at
 * ends where they do. On failure @why says what @p ended inside. */
static gboolean
read_fields (StrataPerfSource   *self,
             const Attr         *a,
             const SampleField  *fields,
             guint               n_fields,
             const guint8       *p,
             gsize               len,
             gsize              *at,
             Sample             *s,
             const char        **why)
{
  guint64 st = a->sample_type;
  gsize pos = *at;

#define NEED(n) G_STMT_START { if ((gsize) (n) > len - pos) return FALSE; } G_STMT_END

  for (guint i = 0; i < n_fields; i++)
    {
      const SampleField *f = &fields[i];
      guint64 n;

      if (!(st & f->bits))
        continue;
      *why = f->what;
      NEED (f->kind == FIELD_RAW ? 4 : 8);

      switch (f->kind)
        {
        case FIELD_WORD:
          break;
        case FIELD_IP:
          s->ip = rd64 (self, p + pos);
          break;
        case FIELD_TIME:
          s->time = rd64 (self, p + pos);
          s->has_time = TRUE;
          break;
        case FIELD_PERIOD:
          s->period = rd64 (self, p + pos);
          break;
        case FIELD_TID:
          s->pid = rd32 (self, p + pos);
          s->tid = rd32 (self, p + pos + 4);
          s->has_tid = TRUE;
          break;
        case FIELD_CPU:
          s->cpu = rd32 (self, p + pos);
          s->has_cpu = TRUE;
          break;
        case FIELD_READ:
          {
            guint64 rf = a->read_format;
            guint per_value = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
            guint times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
                          !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

            if (rf & PERF_FORMAT_GROUP)
              {
                n = rd64 (self, p + pos);
                pos += 8;
                NEED (8 * times);
                pos += 8 * times;
                if (n > (len - pos) / (8 * per_value))
                  {
                    *why = "the read group's count";
                    return FALSE;
                  }
                pos += n * 8 * per_value;
              }
            else
              {
                NEED (8 * (per_value + times));
                pos += 8 * (per_value + times);
              }
          }
          continue;
        case FIELD_CALLCHAIN:
          n = rd64 (self, p + pos);
          pos += 8;
          if (n > (len - pos) / 8)
            {
              *why = "the call chain's length";
              return FALSE;
            }
          s->nr = n;
          s->ips = p + pos;
          pos += n * 8;
          continue;
        case FIELD_RAW:
          s->raw_size = rd32 (self, p + pos);
          pos += 4;
          *why = "the raw data";
          NEED (s->raw_size);
          s->raw = p + pos;
          pos += s->raw_size;
          continue;
        case FIELD_BRANCHES:
          n = rd64 (self, p + pos);
          pos += 8;
          if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
            {
              NEED (8);
              pos += 8;
            }
          if (n > (len - pos) / 24)
            {
              *why = "the branch stack's length";
              return FALSE;
            }
          pos += n * 24;
          continue;
        case FIELD_REGS:
          n = rd64 (self, p + pos) != 0
              ? (f->bits == PERF_SAMPLE_REGS_USER ? a->n_user_regs : a->n_intr_regs)
              : 0;
          pos += 8;
          NEED (8 * n);
          pos += 8 * n;
          continue;
        case FIELD_SIZED:
          n = rd64 (self, p + pos);
          pos += 8;
          NEED (n);
          pos += n;
          if (f->bits == PERF_SAMPLE_STACK_USER && n != 0)
            {
              NEED (8);
              pos += 8;
            }
          continue;
        default:
          g_assert_not_reached ();
        }
      pos += 8;  /* the one-word kinds */
    }

#undef NEED

  *at = pos;
  return TRUE;
}

/* Where the field of @bit is in a sample of @sample_type (in its
 * sample_id trailer with @trailer), when every field before it is one
 * word: -1 when it is absent or follows a field of another size. */
static gint
word_offset (guint64  sample_type,
             gboolean trailer,
             guint64  bit)
{
  const SampleField *fields = trailer ? trailer_fields : sample_fields;
  guint n_fields = trailer ? G_N_ELEMENTS (trailer_fields) : G_N_ELEMENTS (sample_fields);
  gint pos = 0;

  for (guint i = 0; i < n_fields; i++)
    {
      if (!(sample_type & fields[i].bits))
        continue;
      if (fields[i].bits == bit)
        return pos;
      if (fields[i].kind > FIELD_LAST_WORD)
        return -1;
      pos += 8;
    }
  return -1;
}

/* The bytes of the sample_id_all trailer of @sample_type's records. */
guint
strata_perf_trailer_size (guint64 sample_type)
{
  guint size = 0;

  for (guint i = 0; i < G_N_ELEMENTS (trailer_fields); i++)
    if (sample_type & trailer_fields[i].bits)
      size += 8;
  return size;
}

/**
 * strata_perf_id_positions:
 * @sample_type: the first attr's
 * @in_sample: (out): the word of a sample that holds its id, or -1
 * @from_end: (out): the word of a trailer, from the end, that holds it, or -1
 *
 * Where a sample and a record's sample_id trailer carry the id that says
 * which attr they belong to: IDENTIFIER where there is one, else ID.
 */
void
strata_perf_id_positions (guint64  sample_type,
                          gint    *in_sample,
                          gint    *from_end)
{
  guint64 bit = (sample_type & PERF_SAMPLE_IDENTIFIER) ? PERF_SAMPLE_IDENTIFIER : PERF_SAMPLE_ID;
  gint at = word_offset (sample_type, FALSE, bit);
  gint back = word_offset (sample_type, TRUE, bit);

  *in_sample = at >= 0 ? at / 8 : -1;
  *from_end = back >= 0 ? (gint) (strata_perf_trailer_size (sample_type) - back) / 8 : -1;
}

/* Whether @a's samples are one-word fields then the raw data, and at
 * which offsets: read there without the walk of read_fields(). */
void
strata_perf_prepare_layout (Attr *a)
{
  guint64 st = a->sample_type;
  guint64 fixed = PERF_SAMPLE_RAW;

  for (guint i = 0; i < G_N_ELEMENTS (sample_fields); i++)
    if (sample_fields[i].kind <= FIELD_LAST_WORD)
      fixed |= sample_fields[i].bits;

  a->layout = -1;
  if (a->tp == NULL || (st & ~fixed) != 0 || (st & PERF_SAMPLE_RAW) == 0)
    return;

  a->off_tid = word_offset (st, FALSE, PERF_SAMPLE_TID);
  a->off_time = word_offset (st, FALSE, PERF_SAMPLE_TIME);
  a->off_cpu = word_offset (st, FALSE, PERF_SAMPLE_CPU);
  a->off_raw = word_offset (st, FALSE, PERF_SAMPLE_RAW);
  a->layout = 1;
}

static void
sample_clear (Sample *s)
{
  memset (s, 0, sizeof *s);
  s->cpu = -1;
  s->pid = -1;
  s->tid = -1;
}

/**
 * strata_perf_parse_sample:
 * @a: the sample's attr
 * @p: the record's body (after its header)
 * @len: its length
 * @s: (out): the fields the reader uses
 * @used: (out): how many bytes the fields took
 * @why: (out): what the record ended inside, on failure
 *
 * Parses a SAMPLE record's fields in the order @a's sample_type lays them
 * out, each length checked against the record.
 *
 * Returns: FALSE when the record ends inside a field
 */
gboolean
strata_perf_parse_sample (StrataPerfSource  *self,
                          const Attr        *a,
                          const guint8      *p,
                          gsize              len,
                          Sample            *s,
                          gsize             *used,
                          const char       **why)
{
  *used = 0;
  sample_clear (s);
  return read_fields (self, a, sample_fields, G_N_ELEMENTS (sample_fields), p, len, used, s, why);
}

/* The sample_id_all trailer at the end of a non-sample record. */
gboolean
strata_perf_parse_trailer (StrataPerfSource *self,
                           const Attr       *a,
                           const guint8     *body,
                           gsize             len,
                           Sample           *s)
{
  const char *why;
  gsize at = 0;

  sample_clear (s);
  if (a == NULL || !a->sample_id_all)
    return TRUE;
  if (a->trailer > len)
    return FALSE;

  return read_fields (self, a, trailer_fields, G_N_ELEMENTS (trailer_fields),
                      body + len - a->trailer, a->trailer, &at, s, &why);
}

/* ------------------------------------------------------------------ */
/* Call chains.                                                         */

/* A chain's id: the same frames get the same id. The table maps a hash
 * of the frames to the ids of the chains with that hash. */
guint32
strata_perf_intern_chain (StrataPerfSource *self,
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
/* Samples.                                                             */

/* A tracepoint's raw data through its format, into an event that has its
 * time, CPU and (@has_tid) thread already. */
static inline void
decode_tracepoint (StrataPerfSource *self,
                   TpInfo           *info,
                   const guint8     *raw,
                   guint32           raw_size,
                   gboolean          has_tid,
                   StrataEvent      *event)
{
  event->name = info->name;
  strata_tracepoint_fields_decode (&info->tp, raw, raw_size, self->native_order,
                                   self->comm_cache, has_tid, event);
}

void
strata_perf_event_init (StrataPerfSource *self,
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
          *ok = strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset, "a sample on CPU %d", cpu);
          return TRUE;
        }
    }

  ev = strata_perf_pending_slot (self);
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
  strata_perf_push_commit (self);
  *ok = TRUE;
  return TRUE;
}

gboolean
strata_perf_handle_sample (StrataPerfSource  *self,
                           const guint8      *body,
                           gsize              len,
                           guint64            offset,
                           GError           **error)
{
  Attr *a = strata_perf_sample_attr (self, body, len);
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
    strata_perf_prepare_layout (a);
  if (a->layout > 0 && handle_fixed_sample (self, a, body, len, offset, &ok, error))
    return ok;

  if (!strata_perf_parse_sample (self, a, body, len, &s, &used, &why))
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                             "a sample of %" G_GSIZE_FORMAT " bytes ends inside %s",
                             len + 8, why);

  if (used != len)
    self->inexact_samples++;

  if (s.has_cpu && s.cpu >= MAX_CPU)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset, "a sample on CPU %d", s.cpu);

  if (a->tp != NULL && s.raw != NULL)
    {
      /* Decoded where it waits: the common case copies nothing. */
      StrataEvent *slot = strata_perf_pending_slot (self);

      strata_perf_event_init (self, slot, &s, offset);
      decode_tracepoint (self, a->tp, s.raw, s.raw_size, s.has_tid, slot);
      strata_perf_push_commit (self);
      if (s.ips == NULL)
        return TRUE;

      /* Recorded with its call chain (sched_switch -g: where threads go
       * off the CPU): the chain is a sample of its own, named as perf
       * names the event, "sched:sched_switch". */
      strata_perf_event_init (self, &ev, &s, offset);
      ev.type = STRATA_EVENT_SAMPLE;
      ev.name = a->tp->chain_name;
      ev.u.sample.ip = s.ip;
      ev.u.sample.period = s.period;
      ev.u.sample.callchain = G_MAXUINT32;
      ev.u.sample.flags = STRATA_SAMPLE_TRACEPOINT;
    }
  else
    {
      strata_perf_event_init (self, &ev, &s, offset);
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

    /* Interned as the chunk is taken in, in the caller's thread: the
     * table is the caller's to read. */
    if (n > 0)
      strata_perf_note_chain (self, frames, n);
  }

  strata_perf_push_event (self, &ev);
  return TRUE;
}
