/* strata-perf-reorder.c
 *
 * The reorder buffer of the perf.data reader. Records are not in time
 * order in the file (each CPU's ring buffer is copied out in turn), so
 * decoded events wait here: at each FINISHED_ROUND everything up to the
 * largest timestamp of the round before is released, as perf does. The
 * buffer has a fixed bound; past it (a file without rounds) the oldest
 * half is released and the source says so once, and only if an event
 * then arrives earlier than what was already released is the order
 * actually broken (the model clamps it). When asked, for a file of
 * tracepoints, a thread of the source's own reads and decodes the next
 * rounds while the caller's merges this one, with the same result as
 * reading alone. It is not the default: on a machine whose cores are all
 * busy (bench/RESULTS-perf.md) the hand-over costs more than it gains.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-perf-source-private.h"

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
/* How far ahead of the sample being read the mapped file is asked into
 * the cache: the hardware's prefetcher stops at each 4 KiB page, and a
 * sample's first load missed there (perf annotate: a third of
 * strata_perf_handle_sample's samples on one load of the record). */
#define PREFETCH_AHEAD     1024

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

Chunk *
strata_perf_producer_chunk (StrataPerfSource *self)
{
  if (self->filling == NULL)
    self->filling = chunk_new (self);
  return self->filling;
}

/* ---- The producer's side. ---------------------------------------- */

/* Events up to @limit may go at the end of the record being read. */
void
strata_perf_set_limit (StrataPerfSource *self,
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

/* Takes the event strata_perf_pending_slot() gave into the chunk. The producer keeps
 * the times of the events not yet due (carry) so that it knows, as the
 * merge would, how many wait: the reorder buffer's bound. */
void
strata_perf_push_commit (StrataPerfSource *self)
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
      strata_perf_set_limit (self, times[n / 2]);
    }
}

void
strata_perf_push_event (StrataPerfSource  *self,
                        const StrataEvent *ev)
{
  *strata_perf_pending_slot (self) = *ev;
  strata_perf_push_commit (self);
}

void
strata_perf_note_lost (StrataPerfSource *self,
                       guint             cpu,
                       guint64           count)
{
  LostNote l = { cpu, count };

  strata_perf_producer_chunk (self);
  if (self->filling->lost == NULL)
    self->filling->lost = g_array_new (FALSE, FALSE, sizeof (LostNote));
  g_array_append_val (self->filling->lost, l);
}

/* A thread's comm changed as of the record being read: the release sees
 * it from the chunk's end on. */
void
strata_perf_note_comm (StrataPerfSource *self,
                       gint32            tid,
                       guint32           comm)
{
  CommUpdate u = { tid, comm };

  if (self->filling == NULL && !self->started)
    {
      /* While opening: no chunk, nothing read by the consumer yet. */
      g_hash_table_insert (self->released_comms, GINT_TO_POINTER (tid), GUINT_TO_POINTER (comm));
      return;
    }
  strata_perf_producer_chunk (self);
  if (self->filling->comms == NULL)
    self->filling->comms = g_array_new (FALSE, FALSE, sizeof (CommUpdate));
  g_array_append_val (self->filling->comms, u);
}

/* The call chain of the event about to be pushed: interned as the chunk
 * is taken in, in the consumer's thread, whose table it is. */
void
strata_perf_note_chain (StrataPerfSource *self,
                        const guint64    *frames,
                        guint             n)
{
  Chunk *c = strata_perf_producer_chunk (self);
  PendingChain pc = { c->n, c->frames != NULL ? c->frames->len : 0, n };

  if (c->frames == NULL)
    {
      c->frames = g_array_new (FALSE, FALSE, sizeof (guint64));
      c->chains = g_array_new (FALSE, FALSE, sizeof (PendingChain));
    }
  g_array_append_vals (c->frames, frames, n);
  g_array_append_val (c->chains, pc);
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
          strata_perf_intern_chain (self, &g_array_index (c->frames, guint64, pc->start), pc->len);
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
gsize
strata_perf_drain (StrataPerfSource *self,
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

/* ---- The read-ahead thread. -------------------------------------- */

/* The common case, a sample whole in the bytes inflated from a
 * COMPRESSED record or in the mapped file (with no pages of it to give
 * back first): its header, the position moved past it and @offset set
 * as strata_perf_next_record() would, with none of its detours for
 * other records. NULL when the next record is anything else. */
static inline const guint8 *
take_sample (StrataPerfSource *self,
             guint64          *offset)
{
  gsize avail = self->decomp_len - self->decomp_pos;
  const guint8 *h;
  guint16 size;

  if (avail > 0)
    {
      /* Inflated bytes come first; a record they end inside is
       * next_record()'s to report or to complete. */
      if (avail < 8)
        return NULL;
      h = self->decomp + self->decomp_pos;
      size = rd16 (self, h + 6);
      if (rd32 (self, h) != PERF_RECORD_SAMPLE || size < 8 || size > avail)
        return NULL;
      *offset = self->decomp_from;
      self->decomp_pos += size;
      return h;
    }

  if (self->data_end - self->pos < 8 || self->pos - self->dropped_until > DROP_STEP)
    return NULL;
  h = self->map + self->pos;
  size = rd16 (self, h + 6);
  if (rd32 (self, h) != PERF_RECORD_SAMPLE || size < 8 || size > self->data_end - self->pos)
    return NULL;
  *offset = self->pos;
  self->pos += size;
  /* Never faults: past the map's end or on a page given back, nothing. */
  __builtin_prefetch (h + PREFETCH_AHEAD);
  return h;
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
      const guint8 *h;
      guint64 offset;
      Record rec;

      if ((h = take_sample (self, &offset)) != NULL)
        {
          self->record_counts[PERF_RECORD_SAMPLE]++;
          if (strata_perf_handle_sample (self, h + 8, rd16 (self, h + 6) - 8, offset, &error))
            {
              if (self->cut)
                {
                  c = strata_perf_producer_chunk (self);
                  c->limit = self->limit;
                  break;
                }
              continue;
            }
          c = strata_perf_producer_chunk (self);
          c->error = error;
          c->last = TRUE;
          c->limit = G_MAXINT64;
          break;
        }

      if (!strata_perf_next_record (self, &rec, &error) || !strata_perf_process_record (self, &rec, &error))
        {
          c = strata_perf_producer_chunk (self);
          if (error == NULL)
            error = g_steal_pointer (&self->feature_damage);
          c->error = error;
          c->last = TRUE;
          c->limit = G_MAXINT64;
          break;
        }
      if (self->cut)
        {
          c = strata_perf_producer_chunk (self);
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
gboolean
strata_perf_can_run_ahead (StrataPerfSource *self)
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

/* Starts the read-ahead thread: the records are read and decoded there
 * from now on. */
void
strata_perf_start_read_ahead (StrataPerfSource *self)
{
  g_assert (self->worker == NULL);
  self->worker = g_thread_new ("strata-perf-read", producer_thread, self);
}

/* Takes the next chunk in, from the thread or read here. */
void
strata_perf_take_next_chunk (StrataPerfSource *self)
{
  take_chunk (self, next_chunk (self));
}

void
strata_perf_reorder_init (StrataPerfSource *self)
{
  self->timed_comms = g_hash_table_new (NULL, NULL);
  self->released_comms = g_hash_table_new (NULL, NULL);
  self->runs = g_array_new (FALSE, FALSE, sizeof (Run));
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->ready);
  self->overflow_check = self->window = MAX_PENDING;
  self->release_limit = G_MININT64;
  self->limit = G_MININT64;
  self->round_limit = G_MININT64;
  self->max_ts = G_MININT64;
  self->released_ts = G_MININT64;
}

/* Stops the thread, frees every chunk. */
void
strata_perf_reorder_clear (StrataPerfSource *self)
{
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
  g_clear_pointer (&self->timed_comms, g_hash_table_unref);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
}
