/* strata-perf-sample.c
 *
 * SAMPLE records: their fields parsed against the attr's sample_type and
 * read_format, every length checked against the record; the sample_id
 * trailer of other records; tracepoint samples decoded through their
 * formats where they wait in the reorder buffer, other samples as
 * STRATA_EVENT_SAMPLE with their call chain, interned in a table of the
 * source.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-perf-source-private.h"

#define NEED(n) G_STMT_START { if ((gsize) (n) > len - pos) { *why = what; return FALSE; } } G_STMT_END

/* The fields after the raw data, from the branch stack on: where perf
 * puts what a newer kernel added. @at is where they start and, on
 * success, where they end. */
static gboolean
parse_sample_tail (StrataPerfSource  *self,
                   const Attr        *a,
                   const guint8      *p,
                   gsize              len,
                   gsize             *at,
                   const char       **why)
{
  guint64 st = a->sample_type;
  gsize pos = *at;
  const char *what = "";

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

  *at = pos;
  return TRUE;
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
  if (!parse_sample_tail (self, a, p, len, &pos, why))
    return FALSE;

  *used = pos;
  return TRUE;
}

#undef NEED

/* The sample_id_all trailer at the end of a non-sample record. */
gboolean
strata_perf_parse_trailer (StrataPerfSource *self,
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
  Attr *a = strata_perf_attr_of_sample (self, body, len);
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
