/* strata-perf-records.c
 *
 * One record of a perf.data and what it means for the kernel model:
 * samples go to strata-perf-sample.c; COMM, FORK, EXIT and THREAD_MAP
 * name threads (in time order, through the reorder buffer); SWITCH,
 * FORK, EXIT and COMM with exec stand in for the sched tracepoints when
 * the file has none; LOST counts losses; MMAP records and forks are told
 * to the symbolizer; FINISHED_ROUND lets the reorder buffer go on; the
 * header records of a pipe (attrs, tracing data, features, event names)
 * are read where they come.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-perf-private.h"

guint32
strata_perf_comm_of (StrataPerfSource *self,
                     gint32            tid)
{
  if (tid == 0)
    return strata_string_pool_intern (self->strings, "swapper");
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->comms, GINT_TO_POINTER (tid)));
}

/* A thread's comm changes as of the record being read: for the records
 * that follow, and (through the reorder buffer) for the release. */
static void
comms_insert (StrataPerfSource *self,
              gint32            tid,
              guint32           comm)
{
  g_hash_table_insert (self->comms, GINT_TO_POINTER (tid), GUINT_TO_POINTER (comm));
  strata_perf_note_comm (self, tid, comm);
}

static void
set_comm (StrataPerfSource *self,
          gint32            tid,
          const guint8     *bytes,
          gsize             max)
{
  gsize len = strnlen ((const char *) bytes, max);

  comms_insert (self, tid, strata_comm_cache_intern (self->comm_cache, (const char *) bytes, len));
}

static gboolean
handle_switch (StrataPerfSource *self,
               guint             type,
               guint16           misc,
               const guint8     *body,
               gsize             len,
               guint64           offset)
{
  Attr *a = strata_perf_attr_of_other (self, body, len);
  gboolean out = (misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
  StrataEvent ev;
  Sample s;
  gint32 other = -1;

  if (self->has_sched_switch || a == NULL)
    return TRUE;
  if (!strata_perf_parse_trailer (self, a, body, len, &s) || !s.has_time || !s.has_tid)
    return TRUE;

  if (type == PERF_RECORD_SWITCH_CPU_WIDE)
    {
      if (len < 8 + a->trailer)
        return TRUE;
      other = rd32 (self, body + 4);  /* next_prev_tid */
    }

  strata_perf_event_init (self, &ev, &s, offset);
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
  ev.u.sched_switch.prev_comm = strata_perf_comm_of (self, ev.u.sched_switch.prev_pid);
  ev.u.sched_switch.next_comm = strata_perf_comm_of (self, ev.u.sched_switch.next_pid);
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

  strata_perf_push_event (self, &ev);
  return TRUE;
}

/* COMM: a thread's name, for the records and the release that follow;
 * with exec, the exec that the sched tracepoint would have said. */
static gboolean
handle_comm (StrataPerfSource  *self,
             guint16            misc,
             const guint8      *body,
             gsize              len,
             guint64            offset,
             const Sample      *s,
             guint              trailer,
             GError           **error)
{
  StrataEvent ev;
  gint32 pid, tid;

  if (len < 8 + trailer)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                             "a COMM record of %" G_GSIZE_FORMAT " bytes", len + 8);
  pid = rd32 (self, body);
  tid = rd32 (self, body + 4);
  set_comm (self, tid, body + 8, len - 8 - trailer);

  strata_perf_event_init (self, &ev, s, offset);
  ev.type = EVENT_COMM_SET;
  ev.pid = tid;
  ev.u.exec.filename = strata_perf_comm_of (self, tid);
  strata_perf_push_event (self, &ev);

  if (misc & PERF_RECORD_MISC_COMM_EXEC)
    strata_symbolizer_exec (self->symbolizer, pid,
                            s->has_time ? (gint64) MIN (s->time, (guint64) G_MAXINT64) : MAX (self->max_ts, 0));

  if ((misc & PERF_RECORD_MISC_COMM_EXEC) && !self->has_exec_tp && s->has_time && s->time > 0)
    {
      strata_perf_event_init (self, &ev, s, offset);
      ev.type = STRATA_EVENT_SCHED_PROCESS_EXEC;
      ev.name = self->name_exec;
      ev.pid = tid;
      ev.tgid = pid;
      ev.u.exec.pid = tid;
      ev.u.exec.old_pid = tid;
      ev.u.exec.filename = strata_perf_comm_of (self, tid);
      strata_perf_push_event (self, &ev);
    }

  return TRUE;
}

/* FORK and EXIT: a new thread inherits its parent's comm (and a new
 * process its mappings); both stand in for their sched tracepoints when
 * the file has none. */
static gboolean
handle_fork_exit (StrataPerfSource  *self,
                  guint              type,
                  const guint8      *body,
                  gsize              len,
                  guint64            offset,
                  Sample            *s,
                  guint              trailer,
                  GError           **error)
{
  StrataEvent ev;
  gint32 pid, ppid, tid, ptid;
  guint64 time;

  if (len < 24 + trailer)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                             "a %s record of %" G_GSIZE_FORMAT " bytes",
                             type == PERF_RECORD_FORK ? "FORK" : "EXIT", len + 8);
  pid = rd32 (self, body);
  ppid = rd32 (self, body + 4);
  tid = rd32 (self, body + 8);
  ptid = rd32 (self, body + 12);
  time = rd64 (self, body + 16);

  if (type == PERF_RECORD_FORK)
    {
      guint32 parent = strata_perf_comm_of (self, ptid);

      strata_symbolizer_fork (self->symbolizer, ppid, pid);
      if (parent != STRATA_STRING_NONE)
        comms_insert (self, tid, parent);

      s->time = time;
      s->has_time = time != 0 || s->has_time;
      strata_perf_event_init (self, &ev, s, offset);
      ev.type = EVENT_COMM_COPY;
      ev.u.fork.parent_pid = ptid;
      ev.u.fork.child_pid = tid;
      strata_perf_push_event (self, &ev);
    }

  if (time == 0 || time > (guint64) G_MAXINT64)
    return TRUE;  /* synthesized from /proc before recording began */
  if ((type == PERF_RECORD_FORK && self->has_fork_tp) ||
      (type == PERF_RECORD_EXIT && self->has_exit_tp))
    return TRUE;

  s->time = time;
  s->has_time = TRUE;
  strata_perf_event_init (self, &ev, s, offset);
  if (type == PERF_RECORD_FORK)
    {
      ev.type = STRATA_EVENT_SCHED_PROCESS_FORK;
      ev.name = self->name_fork;
      ev.pid = ptid;
      ev.tgid = -1;
      ev.u.fork.parent_pid = ptid;
      ev.u.fork.child_pid = tid;
      ev.u.fork.parent_comm = strata_perf_comm_of (self, ptid);
      ev.u.fork.child_comm = strata_perf_comm_of (self, tid);
    }
  else
    {
      ev.type = STRATA_EVENT_SCHED_PROCESS_EXIT;
      ev.name = self->name_exit;
      ev.pid = tid;
      ev.tgid = pid;
      ev.u.exit.pid = tid;
      ev.u.exit.prio = -1;
      ev.u.exit.comm = strata_perf_comm_of (self, tid);
    }
  strata_perf_push_event (self, &ev);
  return TRUE;
}

/* LOST and LOST_SAMPLES: counted for their CPU, and an instant where
 * they have a time. */
static gboolean
handle_lost (StrataPerfSource  *self,
             guint              type,
             const guint8      *body,
             gsize              len,
             guint64            offset,
             Sample            *s,
             GError           **error)
{
  guint need = type == PERF_RECORD_LOST ? 16 : 8;
  StrataEvent ev;
  guint64 count;

  if (len < need)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                             "a LOST record of %" G_GSIZE_FORMAT " bytes", len + 8);
  count = rd64 (self, body + need - 8);
  if (s->cpu < 0 || s->cpu >= MAX_CPU)
    s->cpu = 0;
  strata_perf_note_lost (self, s->cpu, count);
  if (!s->has_time)
    return TRUE;
  strata_perf_event_init (self, &ev, s, offset);
  ev.type = STRATA_EVENT_LOST;
  ev.name = self->name_lost;
  ev.pid = -1;
  ev.u.lost.count = count;
  strata_perf_push_event (self, &ev);
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
  Attr *a = strata_perf_attr_of_other (self, body, len);
  guint trailer = a != NULL ? a->trailer : 0;
  Sample s;

  if (!strata_perf_parse_trailer (self, a, body, len, &s))
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                             "a record of %" G_GSIZE_FORMAT " bytes is shorter than its sample_id trailer",
                             len + 8);

  switch (type)
    {
    case PERF_RECORD_COMM:
      return handle_comm (self, misc, body, len, offset, &s, trailer, error);
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      return handle_fork_exit (self, type, body, len, offset, &s, trailer, error);
    case PERF_RECORD_LOST:
    case PERF_RECORD_LOST_SAMPLES:
      return handle_lost (self, type, body, len, offset, &s, error);
    default:
      return TRUE;
    }
}

/* Tells the symbolizer of an executable mapping: pid, start, len,
 * pgoff, then (MMAP2) device or build id, prot and flags, then the path. */
static void
note_mmap (StrataPerfSource *self,
           const Record     *rec)
{
  static const char kernel[] = "[kernel.kallsyms]";
  gsize fixed = rec->type == PERF_RECORD_MMAP ? 32 : 32 + 24 + 8;
  const guint8 *b = rec->body;
  const char *path;
  gsize path_len;
  gint32 pid;
  guint64 start;

  if (rec->body_len <= fixed)
    return;
  if (rec->type == PERF_RECORD_MMAP2 && (rd32 (self, b + 56) & 4) == 0)
    return;  /* not executable (prot PROT_EXEC) */

  pid = rd32 (self, b);
  start = rd64 (self, b + 8);
  path = (const char *) b + fixed;
  path_len = strnlen (path, rec->body_len - fixed);

  if (pid == -1 && path_len >= sizeof kernel - 1 && memcmp (path, kernel, sizeof kernel - 1) == 0)
    strata_symbolizer_set_kernel_text (self->symbolizer, start);

  strata_symbolizer_add_mapping (self->symbolizer, pid, start, rd64 (self, b + 16),
                                 rd64 (self, b + 24), path, path_len);
}

gboolean
strata_perf_process_record (StrataPerfSource  *self,
                            const Record      *rec,
                            GError           **error)
{
  if (rec->type < PERF_RECORD_MAX_TYPE)
    self->record_counts[rec->type]++;

  switch (rec->type)
    {
    case PERF_RECORD_SAMPLE:
      return strata_perf_handle_sample (self, rec->body, rec->body_len, rec->offset, error);

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
      strata_perf_set_limit (self, self->round_limit);
      self->round_limit = self->max_ts;
      self->cut = TRUE;
      return TRUE;

    case PERF_RECORD_HEADER_ATTR:
      return strata_perf_handle_header_attr (self, rec, error);

    case PERF_RECORD_HEADER_TRACING_DATA:
      {
        guint32 size;
        guint64 padded;

        if (rec->body_len < 4)
          return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                                   "a TRACING_DATA record without its size");
        size = rd32 (self, rec->body);
        if (!self->pipe || rec->inflated)
          return TRUE;  /* only pipe mode puts the data after the record */
        padded = ((guint64) size + 7) & ~(guint64) 7;
        if (padded > self->data_end - self->pos)
          return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, rec->offset,
                                   "the tracing data of %u bytes runs past the end of the file", size);
        if (!strata_perf_parse_tracing_data (self, self->map + self->pos, size, self->pos, error))
          return FALSE;
        self->pos += padded;
        strata_perf_resolve_attr_names (self);
      }
      return TRUE;

    case PERF_RECORD_HEADER_FEATURE:
      if (rec->body_len < 8)
        return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                                 "a FEATURE record without its feature id");
      return strata_perf_parse_feature (self, (guint) MIN (rd64 (self, rec->body), G_MAXUINT),
                                        rec->body + 8, rec->body_len - 8, rec->offset, error);

    case PERF_RECORD_EVENT_UPDATE:
      if (rec->body_len >= 16 && rd64 (self, rec->body) == PERF_EVENT_UPDATE_NAME)
        {
          g_autofree char *name = g_strndup ((const char *) rec->body + 16, rec->body_len - 16);

          strata_perf_name_attrs_by_id (self, rd64 (self, rec->body + 8), name);
        }
      return TRUE;

    case PERF_RECORD_THREAD_MAP:
      if (rec->body_len >= 8)
        {
          guint64 nr = rd64 (self, rec->body);

          if (nr > (rec->body_len - 8) / 24)
            return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                                     "a THREAD_MAP of %" G_GUINT64_FORMAT " entries in %u bytes",
                                     nr, rec->size);
          for (guint64 i = 0; i < nr; i++)
            {
              const guint8 *e = rec->body + 8 + 24 * i;
              gint32 pid = (gint32) rd64 (self, e);

              if (e[8] != '\0' && strata_perf_comm_of (self, pid) == STRATA_STRING_NONE)
                set_comm (self, pid, e + 8, 16);
            }
        }
      return TRUE;

    case PERF_RECORD_ID_INDEX:
      if (rec->body_len >= 8)
        {
          guint64 nr = rd64 (self, rec->body);

          if (nr > (rec->body_len - 8) / 32)
            return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
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
