/* strata-perf-random-access.c
 *
 * Record by record again, for a reader that wants the fields of a few
 * events (the event list's Fields column): a second source on the same
 * file reads the samples and SWITCH records in file order, each with a
 * position it can seek back to, and formats one as `perf script` prints
 * it. A compressed file's records, one zstd stream that cannot be entered
 * midway, are kept as they are first read. The same is the source
 * interface's record stream (strata_source_next_record()): one stream,
 * of every CPU's records.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-perf-source-private.h"

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
  if (!strata_perf_next_record (self, rec, error))
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
                return strata_perf_fail (self, error, STRATA_ERROR_IO, rec.offset,
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

            a = strata_perf_attr_of_sample (self, rec.body, rec.body_len);
            if (a == NULL || !strata_perf_parse_sample (self, a, rec.body, rec.body_len, &s, &used, &why))
              continue;
          }
          break;

        case PERF_RECORD_SWITCH:
        case PERF_RECORD_SWITCH_CPU_WIDE:
          a = strata_perf_attr_of_other (self, rec.body, rec.body_len);
          if (a == NULL || !strata_perf_parse_trailer (self, a, rec.body, rec.body_len, &s))
            continue;
          break;

        case PERF_RECORD_HEADER_ATTR:
        case PERF_RECORD_EVENT_UPDATE:
          /* Only the first time it is read. */
          if (!rec.inflated && rec.offset >= before)
            if (!strata_perf_process_record (self, &rec, error))
              return FALSE;
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
      if (!self->rr_started)
        {
          self->rr_first = head->where;
          self->rr_started = TRUE;
        }
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

      a = strata_perf_attr_of_other (self, rec->body, rec->body_len);
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

    a = strata_perf_attr_of_sample (self, rec->body, rec->body_len);
    if (a == NULL || !strata_perf_parse_sample (self, a, rec->body, rec->body_len, &s, &used, &why))
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
        return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, where->at, "not a position in the records kept");
      self->rr_cursor = where->at;
      return TRUE;
    }
  if (self->zstd != NULL)
    return strata_perf_fail (self, error, STRATA_ERROR_UNSUPPORTED, where->at,
                             "a zstd stream cannot be entered midway");
  if (where->at < self->data_offset || where->at > self->data_end)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, where->at, "not a position in the data");

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
    }
  return TRUE;
}

/* The source interface's record stream ----------------------------------- */

#define POSITION_KEPT 1u

static guint
record_streams_get_n (StrataSource *source)
{
  return 1;
}

static gint
record_streams_get_cpu (StrataSource *source,
                        guint         stream)
{
  return -1;
}

static gboolean
record_streams_seek (StrataSource               *source,
                     guint                       stream,
                     const StrataRecordPosition *where,
                     GError                    **error)
{
  StrataPerfSource *self = STRATA_PERF_SOURCE (source);
  StrataPerfPosition at;

  if (where == NULL)
    {
      /* Not read yet: the next record is the first. */
      if (!self->rr_started)
        return TRUE;
      return strata_perf_source_seek_record (self, &self->rr_first, error);
    }
  at.at = where->at;
  at.skip = where->skip;
  at.kept = (where->flags & POSITION_KEPT) != 0;
  return strata_perf_source_seek_record (self, &at, error);
}

static gboolean
record_streams_next (StrataSource      *source,
                     StrataRecordHead  *head,
                     GError           **error)
{
  StrataPerfRecordHead h;

  if (!strata_perf_source_next_record_head (STRATA_PERF_SOURCE (source), &h, error))
    return FALSE;
  head->where.at = h.where.at;
  head->where.skip = h.where.skip;
  head->where.flags = h.where.kept ? POSITION_KEPT : 0;
  head->ts = h.ts;
  head->cpu = h.has_cpu ? h.cpu : -1;
  head->name = h.name;
  return TRUE;
}

static char *
record_streams_format (StrataSource *source)
{
  return strata_perf_source_format_record (STRATA_PERF_SOURCE (source));
}

void
strata_perf_record_streams_init (StrataSourceClass *source_class)
{
  source_class->get_n_record_streams = record_streams_get_n;
  source_class->get_record_stream_cpu = record_streams_get_cpu;
  source_class->seek_record = record_streams_seek;
  source_class->next_record = record_streams_next;
  source_class->format_record = record_streams_format;
}
