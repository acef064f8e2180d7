/* strata-ebpf-source.c
 *
 * Reads a recording made by strata-cli record. Each ring's blocks are in
 * time order, but the rings were drained by threads of their own, so
 * their blocks interleave in the file; this merges them. A ring's next
 * record can be handed out once every other ring either has a record at
 * hand that is no earlier, or has promised (a block's horizon) that its
 * later blocks start no earlier: only then is the next block read. The
 * records the recorder wrote itself (the threads that existed when it
 * started, processes' mappings) are taken in as their blocks are read.
 * Threads are named from TASK, FORK and EXEC records as they come, so a
 * switch carries the names its threads had at that moment.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-ebpf-file.h"
#include "strata-ebpf-source.h"
#include "strata-error.h"
#include "../strata-symbolizer.h"

/* Bytes of records held waiting for another ring before the merge gives
 * up waiting: only a file whose horizons lie gets there. */
#define MAX_QUEUED (256u << 20)

/* Following a file, how long it may stay the same size before its
 * recorder is taken to be gone (killed): a live recorder writes an empty
 * block at least every second even when nothing happens. */
#define FOLLOW_STALE_USEC (3 * G_USEC_PER_SEC)

typedef struct
{
  GBytes       *records;
  const guint8 *p;
  const guint8 *end;
  guint64       offset;   /* of the records in the file */
} Block;

typedef struct
{
  GQueue   blocks;        /* Block */
  guint64  horizon;
} Ring;

typedef struct
{
  guint32 comm;
  gint32  tgid;
} Task;

typedef struct
{
  guint32 offset;
  guint32 n;
} Chain;

struct _StrataEbpfSource
{
  StrataSource      parent_instance;

  StrataEbpfFile   *file;
  char             *name;
  StrataStringPool *strings;

  Ring             *rings;
  guint             n_rings;
  guint64           queued;      /* bytes of records in the rings' queues */
  gboolean          no_more;     /* no block will be read any more */
  gboolean          complete;
  gboolean          follow;
  guint64           seen_size;   /* following: the file's size when it last grew */
  gint64            seen_usec;
  GError           *deferred;    /* the damage, said after the events before it */
  guint64           released_ts;
  guint64           out_of_order;

  GHashTable       *tasks;       /* pid -> Task */
  GHashTable       *irq_names;   /* irq -> pool id */
  StrataSymbolizer *symbolizer;  /* the processes' mappings, for samples' frames */
  GArray           *swappers;    /* pool id of "swapper/N", by CPU */
  GArray           *frames;      /* guint64: every call chain's frames */
  GArray           *chains;      /* Chain, by id */
  GHashTable       *chain_ids;   /* frames (a GBytes) -> id + 1 */

  guint32           names[STRATA_EBPF_N_RECORD_TYPES];
};

G_DEFINE_FINAL_TYPE (StrataEbpfSource, strata_ebpf_source, STRATA_TYPE_SOURCE)

enum
{
  PROP_0,
  PROP_FOLLOW,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ------------------------------------------------------------------ */
/* What the records say of threads and processes.                       */

static guint32
intern_fixed (StrataEbpfSource *self,
              const char       *bytes,
              gsize             max)
{
  return strata_string_pool_intern_len (self->strings, bytes, strnlen (bytes, max));
}

static void
set_task (StrataEbpfSource *self,
          gint32            pid,
          gint32            tgid,
          guint32           comm)
{
  Task *t = g_hash_table_lookup (self->tasks, GINT_TO_POINTER (pid));

  if (t == NULL)
    {
      t = g_new (Task, 1);
      g_hash_table_insert (self->tasks, GINT_TO_POINTER (pid), t);
    }
  t->comm = comm;
  t->tgid = tgid;
}

static guint32
comm_of (StrataEbpfSource *self,
         gint32            pid,
         guint             cpu)
{
  Task *t;

  if (pid == 0)
    {
      if (cpu >= self->swappers->len)
        g_array_set_size (self->swappers, cpu + 1);
      if (g_array_index (self->swappers, guint32, cpu) == 0)
        {
          g_autofree char *name = g_strdup_printf ("swapper/%u", cpu);

          g_array_index (self->swappers, guint32, cpu) = strata_string_pool_intern (self->strings, name);
        }
      return g_array_index (self->swappers, guint32, cpu);
    }

  t = g_hash_table_lookup (self->tasks, GINT_TO_POINTER (pid));
  return t != NULL ? t->comm : STRATA_STRING_NONE;
}

static gint32
tgid_of (StrataEbpfSource *self,
         gint32            pid)
{
  Task *t;

  if (pid == 0)
    return 0;
  t = g_hash_table_lookup (self->tasks, GINT_TO_POINTER (pid));
  return t != NULL ? t->tgid : -1;
}

static void
add_map (StrataEbpfSource             *self,
         gint32                        tgid,
         const struct strata_ebpf_map *m,
         const guint8                 *rec)
{
  guint64 start = GUINT64_FROM_LE (m->start);
  guint64 end = GUINT64_FROM_LE (m->end);

  if (end <= start)
    return;
  strata_symbolizer_add_mapping (self->symbolizer, tgid, start, end - start,
                                 GUINT64_FROM_LE (m->pgoff), (const char *) rec + sizeof *m,
                                 GUINT16_FROM_LE (m->path_len));
}

static guint32
intern_chain (StrataEbpfSource *self,
              const guint64    *frames,
              guint             n)
{
  g_autoptr(GBytes) key = g_bytes_new (frames, n * sizeof (guint64));
  gpointer found;
  Chain c;

  if (g_hash_table_lookup_extended (self->chain_ids, key, NULL, &found))
    return GPOINTER_TO_UINT (found) - 1;

  c.offset = self->frames->len;
  c.n = n;
  g_array_append_vals (self->frames, frames, n);
  g_array_append_val (self->chains, c);
  g_hash_table_insert (self->chain_ids, g_steal_pointer (&key), GUINT_TO_POINTER (self->chains->len));

  return self->chains->len - 1;
}

/* ------------------------------------------------------------------ */
/* Records to events.                                                   */

static StrataTaskState
task_state_of (guint16 bits)
{
  static const StrataTaskState by_bit[] = {
    STRATA_TASK_STATE_SLEEPING,          /* S */
    STRATA_TASK_STATE_UNINTERRUPTIBLE,   /* D */
    STRATA_TASK_STATE_STOPPED,           /* T */
    STRATA_TASK_STATE_STOPPED,           /* t */
    STRATA_TASK_STATE_DEAD,              /* X */
    STRATA_TASK_STATE_DEAD,              /* Z */
    STRATA_TASK_STATE_PARKED,            /* P */
    STRATA_TASK_STATE_SLEEPING,          /* I */
  };

  if (bits & STRATA_EBPF_STATE_PREEMPTED)
    return STRATA_TASK_STATE_PREEMPTED;
  for (guint i = 0; i < G_N_ELEMENTS (by_bit); i++)
    if (bits & (1u << i))
      return by_bit[i];
  return STRATA_TASK_STATE_RUNNING;
}

/* The #StrataEventContext of a wakeup's context byte: nothing when the
 * recorder could not read it, as for a trace without irq-info. */
static guint
context_of (guint8 bits)
{
  guint context = 0;

  if ((bits & STRATA_EBPF_CONTEXT_KNOWN) == 0)
    return 0;
  if (bits & STRATA_EBPF_CONTEXT_HARDIRQ)
    context |= STRATA_EVENT_CONTEXT_HARDIRQ;
  if (bits & STRATA_EBPF_CONTEXT_SOFTIRQ)
    context |= STRATA_EVENT_CONTEXT_SOFTIRQ;
  if (bits & STRATA_EBPF_CONTEXT_NMI)
    context |= STRATA_EVENT_CONTEXT_NMI;
  return context;
}

/* Takes in one record: TRUE when it is an event, then in @ev. */
static gboolean
decode (StrataEbpfSource *self,
        const guint8     *rec,
        guint64           offset,
        StrataEvent      *ev)
{
  struct strata_ebpf_record h;
  guint type;

  memcpy (&h, rec, sizeof h);
  type = h.type;

  memset (ev, 0, sizeof *ev);
  ev->ts = (gint64) MIN (GUINT64_FROM_LE (h.ts), (guint64) G_MAXINT64);
  ev->source_offset = offset;
  ev->cpu = GUINT16_FROM_LE (h.cpu);
  ev->pid = (gint32) GUINT32_FROM_LE (h.pid);
  ev->tgid = tgid_of (self, ev->pid);
  if (type < STRATA_EBPF_N_RECORD_TYPES)
    ev->name = self->names[type];

  switch (type)
    {
    case STRATA_EBPF_REC_TASK:
      {
        const struct strata_ebpf_task *t = (const void *) rec;

        set_task (self, ev->pid, (gint32) GUINT32_FROM_LE (t->tgid),
                  intern_fixed (self, t->comm, sizeof t->comm));
        if (t->reason != STRATA_EBPF_TASK_RENAME)
          return FALSE;
        ev->type = STRATA_EVENT_OTHER;
        ev->tgid = (gint32) GUINT32_FROM_LE (t->tgid);
        return TRUE;
      }

    case STRATA_EBPF_REC_SWITCH:
      {
        const struct strata_ebpf_switch *s = (const void *) rec;
        gint32 next = (gint32) GUINT32_FROM_LE (s->next_pid);

        ev->type = STRATA_EVENT_SCHED_SWITCH;
        ev->u.sched_switch.prev_pid = ev->pid;
        ev->u.sched_switch.next_pid = next;
        ev->u.sched_switch.prev_prio = (gint16) GUINT16_FROM_LE (s->prev_prio);
        ev->u.sched_switch.next_prio = (gint16) GUINT16_FROM_LE (s->next_prio);
        ev->u.sched_switch.prev_comm = comm_of (self, ev->pid, ev->cpu);
        ev->u.sched_switch.next_comm = comm_of (self, next, ev->cpu);
        ev->u.sched_switch.prev_state = task_state_of (GUINT16_FROM_LE (s->prev_state));
        return TRUE;
      }

    case STRATA_EBPF_REC_WAKING:
    case STRATA_EBPF_REC_WAKEUP_NEW:
      {
        const struct strata_ebpf_wakeup *w = (const void *) rec;

        ev->type = type == STRATA_EBPF_REC_WAKING ? STRATA_EVENT_SCHED_WAKING
                                                  : STRATA_EVENT_SCHED_WAKEUP_NEW;
        ev->u.wakeup.pid = (gint32) GUINT32_FROM_LE (w->target_pid);
        ev->u.wakeup.prio = (gint16) GUINT16_FROM_LE (w->prio);
        ev->u.wakeup.target_cpu = (gint16) GUINT16_FROM_LE (w->target_cpu);
        ev->u.wakeup.comm = comm_of (self, ev->u.wakeup.pid, ev->cpu);
        /* A 24-byte wakeup, from before the context byte, says nothing. */
        if ((gsize) h.size8 * 8 >= G_STRUCT_OFFSET (struct strata_ebpf_wakeup, context) + 1)
          ev->u.wakeup.context = context_of (w->context);
        return TRUE;
      }

    case STRATA_EBPF_REC_FORK:
      {
        const struct strata_ebpf_fork *f = (const void *) rec;
        gint32 child = (gint32) GUINT32_FROM_LE (f->child_pid);
        guint32 comm = intern_fixed (self, f->child_comm, sizeof f->child_comm);

        set_task (self, child, (gint32) GUINT32_FROM_LE (f->child_tgid), comm);
        if (child == (gint32) GUINT32_FROM_LE (f->child_tgid) && ev->tgid > 0)
          strata_symbolizer_fork (self->symbolizer, ev->tgid, child);
        ev->type = STRATA_EVENT_SCHED_PROCESS_FORK;
        ev->u.fork.parent_pid = ev->pid;
        ev->u.fork.child_pid = child;
        ev->u.fork.parent_comm = comm_of (self, ev->pid, ev->cpu);
        ev->u.fork.child_comm = comm;
        return TRUE;
      }

    case STRATA_EBPF_REC_EXEC:
      {
        const struct strata_ebpf_exec *x = (const void *) rec;
        gint32 old_pid = (gint32) GUINT32_FROM_LE (x->old_pid);
        gint32 tgid = (gint32) GUINT32_FROM_LE (x->tgid);

        set_task (self, ev->pid, tgid, intern_fixed (self, x->comm, sizeof x->comm));
        if (old_pid != ev->pid)
          g_hash_table_remove (self->tasks, GINT_TO_POINTER (old_pid));
        ev->tgid = tgid;
        ev->type = STRATA_EVENT_SCHED_PROCESS_EXEC;
        ev->u.exec.pid = ev->pid;
        ev->u.exec.old_pid = old_pid;
        ev->u.exec.filename = strata_string_pool_intern_len (self->strings, x->filename,
                                                             strnlen (x->filename, GUINT16_FROM_LE (x->filename_len)));
        return TRUE;
      }

    case STRATA_EBPF_REC_EXIT:
      {
        const struct strata_ebpf_exit *x = (const void *) rec;

        ev->type = STRATA_EVENT_SCHED_PROCESS_EXIT;
        ev->u.exit.pid = ev->pid;
        ev->u.exit.prio = (gint16) GUINT16_FROM_LE (x->prio);
        ev->u.exit.comm = comm_of (self, ev->pid, ev->cpu);
        return TRUE;
      }

    case STRATA_EBPF_REC_IRQ_ENTRY:
    case STRATA_EBPF_REC_IRQ_EXIT:
      {
        const struct strata_ebpf_irq *i = (const void *) rec;
        gint32 irq = (gint32) GUINT32_FROM_LE (i->irq);

        ev->type = type == STRATA_EBPF_REC_IRQ_ENTRY ? STRATA_EVENT_IRQ_HANDLER_ENTRY
                                                     : STRATA_EVENT_IRQ_HANDLER_EXIT;
        ev->u.irq.irq = irq;
        ev->u.irq.ret = (gint32) GUINT32_FROM_LE (i->ret);
        ev->u.irq.name = GPOINTER_TO_UINT (g_hash_table_lookup (self->irq_names, GINT_TO_POINTER (irq)));
        return TRUE;
      }

    case STRATA_EBPF_REC_SOFTIRQ_ENTRY:
    case STRATA_EBPF_REC_SOFTIRQ_EXIT:
      {
        const struct strata_ebpf_irq *i = (const void *) rec;

        ev->type = type == STRATA_EBPF_REC_SOFTIRQ_ENTRY ? STRATA_EVENT_SOFTIRQ_ENTRY
                                                         : STRATA_EVENT_SOFTIRQ_EXIT;
        ev->u.softirq.vec = (gint32) GUINT32_FROM_LE (i->irq);
        return TRUE;
      }

    case STRATA_EBPF_REC_IRQ_NAME:
      {
        const struct strata_ebpf_irq_name *n = (const void *) rec;

        g_hash_table_insert (self->irq_names, GINT_TO_POINTER ((gint32) GUINT32_FROM_LE (n->irq)),
                             GUINT_TO_POINTER (intern_fixed (self, n->name, sizeof n->name)));
        return FALSE;
      }

    case STRATA_EBPF_REC_SYS_ENTER:
    case STRATA_EBPF_REC_SYS_EXIT:
      ev->type = STRATA_EVENT_OTHER;
      return TRUE;

    case STRATA_EBPF_REC_LOST:
      {
        const struct strata_ebpf_lost *l = (const void *) rec;

        ev->type = STRATA_EVENT_LOST;
        ev->pid = -1;
        ev->tgid = -1;
        ev->u.lost.count = GUINT64_FROM_LE (l->count);
        strata_source_note_lost (STRATA_SOURCE (self), ev->cpu, ev->u.lost.count);
        return TRUE;
      }

    case STRATA_EBPF_REC_SAMPLE:
      {
        const struct strata_ebpf_sample *s = (const void *) rec;
        guint n = GUINT16_FROM_LE (s->n_kernel) + GUINT16_FROM_LE (s->n_user);
        guint64 frames[STRATA_EBPF_MAX_KERNEL_FRAMES + STRATA_EBPF_MAX_USER_FRAMES];

        n = MIN (n, G_N_ELEMENTS (frames));
        for (guint i = 0; i < n; i++)
          {
            memcpy (&frames[i], rec + sizeof *s + 8 * i, 8);
            frames[i] = GUINT64_FROM_LE (frames[i]);
          }
        ev->type = STRATA_EVENT_SAMPLE;
        ev->tgid = (gint32) GUINT32_FROM_LE (s->tgid);
        ev->u.sample.ip = n > 0 ? frames[0] : 0;
        ev->u.sample.period = GUINT64_FROM_LE (s->period);
        ev->u.sample.callchain = n > 0 ? intern_chain (self, frames, n) : G_MAXUINT32;
        ev->u.sample.comm = comm_of (self, ev->pid, ev->cpu);
        return TRUE;
      }

    case STRATA_EBPF_REC_MAP:
      add_map (self, ev->pid, (const void *) rec, rec);
      return FALSE;

    case STRATA_EBPF_REC_MAPS_RESET:
      /* Written just before the new image's mappings (the EXEC record
       * itself comes later in the file): the image starts here. */
      strata_symbolizer_exec (self->symbolizer, ev->pid, ev->ts);
      return FALSE;

    default:
      return FALSE;  /* a newer recorder's record */
    }
}

/* ------------------------------------------------------------------ */
/* The merge.                                                           */

static guint64
head_ts (Ring *r)
{
  Block *b = g_queue_peek_head (&r->blocks);
  guint64 ts;

  if (b == NULL)
    return G_MAXUINT64;
  memcpy (&ts, b->p, sizeof ts);
  return GUINT64_FROM_LE (ts);
}

static void
block_free (Block *b)
{
  g_bytes_unref (b->records);
  g_free (b);
}

static void
take_recorder_block (StrataEbpfSource          *self,
                     const StrataEbpfBlockData *data)
{
  gsize size;
  const guint8 *p = g_bytes_get_data (data->records, &size);
  const guint8 *end = p + size;
  StrataEvent ignored;

  /* Identities and mappings: nothing here is an event. */
  while (p < end)
    {
      decode (self, p, 0, &ignored);
      p += (gsize) p[G_STRUCT_OFFSET (struct strata_ebpf_record, size8)] * 8;
    }
}

static void
defer (StrataEbpfSource *self,
       GError           *error)
{
  if (self->deferred == NULL)
    self->deferred = error;
  else
    g_error_free (error);
}

/* Reads the next block into its ring. FALSE when there is none now. */
static gboolean
pull_block (StrataEbpfSource *self)
{
  StrataEbpfBlockData data;
  GError *error = NULL;

  if (self->no_more)
    return FALSE;

  switch (strata_ebpf_file_next (self->file, &data, &error))
    {
    case STRATA_EBPF_FILE_BLOCK:
      if (data.ring == STRATA_EBPF_RING_RECORDER)
        take_recorder_block (self, &data);
      else if (data.ring >= self->n_rings)
        {
          defer (self, g_error_new (STRATA_ERROR, STRATA_ERROR_CORRUPT,
                                    "%s: offset %" G_GUINT64_FORMAT ": a block of ring %u, "
                                    "the header says there are %u",
                                    self->name, data.offset, data.ring, self->n_rings));
          self->no_more = TRUE;
        }
      else
        {
          Ring *r = &self->rings[data.ring];

          if (data.n_records > 0)
            {
              Block *b = g_new0 (Block, 1);
              gsize size;

              b->p = g_bytes_get_data (data.records, &size);
              b->end = b->p + size;
              b->offset = data.offset + sizeof (struct strata_ebpf_block);
              b->records = g_steal_pointer (&data.records);
              g_queue_push_tail (&r->blocks, b);
              self->queued += size;
            }
          r->horizon = MAX (r->horizon, data.horizon);
        }
      strata_ebpf_block_data_clear (&data);
      return TRUE;

    case STRATA_EBPF_FILE_COMPLETE:
      self->complete = TRUE;
      self->no_more = TRUE;
      return TRUE;

    case STRATA_EBPF_FILE_AT_END:
      if (self->follow)
        {
          guint64 size = strata_ebpf_file_get_offset (self->file) + strata_ebpf_file_get_tail (self->file);
          gint64 now = g_get_monotonic_time ();

          if (size != self->seen_size || self->seen_usec == 0)
            {
              self->seen_size = size;
              self->seen_usec = now;
            }
          if (now - self->seen_usec < FOLLOW_STALE_USEC)
            return FALSE;
          /* Nothing written for that long: the recorder is gone, and
           * the file ends as a killed recording does. */
          self->follow = FALSE;
        }
      {
        guint64 at = strata_ebpf_file_get_offset (self->file);
        guint64 tail = strata_ebpf_file_get_tail (self->file);

        if (tail > 0)
          defer (self, g_error_new (STRATA_ERROR, STRATA_ERROR_TRUNCATED,
                                    "%s: offset %" G_GUINT64_FORMAT ": the recording ends inside a "
                                    "block (%" G_GUINT64_FORMAT " bytes of it are there): the "
                                    "recorder was stopped while writing it (killed, or the disk "
                                    "was full); the blocks before it are read",
                                    self->name, at, tail));
        else
          defer (self, g_error_new (STRATA_ERROR, STRATA_ERROR_TRUNCATED,
                                    "%s: offset %" G_GUINT64_FORMAT ": the recording ends without "
                                    "its footer: the recorder did not stop cleanly (killed, or "
                                    "the disk was full); every block in it is read",
                                    self->name, at));
      }
      self->no_more = TRUE;
      return TRUE;

    case STRATA_EBPF_FILE_DAMAGED:
    default:
      defer (self, error);
      self->no_more = TRUE;
      return TRUE;
    }
}

/* The ring whose next record is the earliest, and the time up to which
 * it may go on handing out records: the other rings' next records, and
 * for a ring with nothing at hand, what its horizon promises. */
static gboolean
choose (StrataEbpfSource *self,
        guint            *best_out,
        guint64          *bound_out)
{
  guint best = G_MAXUINT;
  guint64 best_ts = G_MAXUINT64;
  guint64 bound = G_MAXUINT64;
  gboolean wait = !self->no_more && self->queued < MAX_QUEUED;

  for (guint r = 0; r < self->n_rings; r++)
    {
      guint64 ts = head_ts (&self->rings[r]);

      if (ts < best_ts)
        {
          best_ts = ts;
          best = r;
        }
    }
  if (best == G_MAXUINT)
    return FALSE;

  for (guint r = 0; r < self->n_rings; r++)
    {
      Ring *ring = &self->rings[r];

      if (r == best)
        continue;
      if (!g_queue_is_empty (&ring->blocks))
        bound = MIN (bound, head_ts (ring));
      else if (wait)
        bound = MIN (bound, ring->horizon);
    }
  /* The chosen ring's own next block may come before the rest of this
   * one only if the file lies; its horizon bounds nothing here. */
  if (best_ts > bound)
    return FALSE;

  *best_out = best;
  *bound_out = bound;
  return TRUE;
}

static gssize
strata_ebpf_source_read_batch (StrataSource  *source,
                               StrataEvent   *events,
                               gsize          n_events,
                               GError       **error)
{
  StrataEbpfSource *self = STRATA_EBPF_SOURCE (source);
  gsize n = 0;

  while (n < n_events)
    {
      guint best;
      guint64 bound;
      Ring *ring;
      Block *b;

      if (!choose (self, &best, &bound))
        {
          if (pull_block (self))
            continue;
          break;
        }

      ring = &self->rings[best];
      b = g_queue_peek_head (&ring->blocks);
      while (n < n_events && b->p < b->end)
        {
          struct strata_ebpf_record h;
          guint64 ts;

          memcpy (&h, b->p, sizeof h);
          ts = GUINT64_FROM_LE (h.ts);
          if (ts > bound)
            break;
          if (decode (self, b->p, b->offset + (b->p - (const guint8 *) g_bytes_get_data (b->records, NULL)),
                      &events[n]))
            {
              if (G_UNLIKELY (ts < self->released_ts))
                self->out_of_order++;
              self->released_ts = MAX (self->released_ts, ts);
              n++;
            }
          b->p += (gsize) h.size8 * 8;
        }
      if (b->p >= b->end)
        {
          self->queued -= g_bytes_get_size (b->records);
          block_free (g_queue_pop_head (&ring->blocks));
        }
    }

  if (n > 0)
    return n;

  if (self->no_more && self->deferred != NULL)
    {
      if (self->out_of_order > 0)
        g_message ("%s: %" G_GUINT64_FORMAT " events came after later ones of another ring "
                   "(the kernel model clamps them)", self->name, self->out_of_order);
      g_propagate_error (error, g_steal_pointer (&self->deferred));
      return -1;
    }

  return 0;
}

/* ------------------------------------------------------------------ */
/* Opening.                                                             */

static guint
strata_ebpf_source_probe (const guint8 *head,
                          gsize         head_len)
{
  if (head_len >= STRATA_EBPF_MAGIC_LEN && memcmp (head, STRATA_EBPF_MAGIC, STRATA_EBPF_MAGIC_LEN) == 0)
    return 100;
  return 0;
}

static void
add_details (StrataEbpfSource       *self,
             const StrataEbpfHeader *h)
{
  StrataSource *source = STRATA_SOURCE (self);
  const StrataEbpfFooter *footer = strata_ebpf_file_get_footer (self->file);
  g_autoptr(GDateTime) start = NULL;

  if (h->command_line != NULL)
    strata_source_add_detail (source, "Command line", h->command_line);
  if (h->event_sets != NULL)
    strata_source_add_detail (source, "Event sets", h->event_sets);
  if (h->sample_freq > 0)
    {
      g_autofree char *freq = g_strdup_printf ("%u Hz per CPU", h->sample_freq);
      strata_source_add_detail (source, "Samples", freq);
    }
  {
    g_autofree char *size = g_format_size_full (h->rings.ring_size, G_FORMAT_SIZE_IEC_UNITS);
    g_autofree char *rings = g_strdup_printf ("%u of %s, %u CPUs each",
                                              h->rings.n_rings, size, h->rings.cpus_per_ring);
    strata_source_add_detail (source, "Ring buffers", rings);
  }
  if (h->hooks != NULL)
    strata_source_add_detail (source, "Hooks", h->hooks);

  start = g_date_time_new_from_unix_utc (h->clocks.realtime / G_GUINT64_CONSTANT (1000000000));
  if (start != NULL)
    {
      g_autoptr(GDateTime) exact = g_date_time_add (start, (h->clocks.realtime % 1000000000) / 1000);
      g_autofree char *iso = exact != NULL ? g_date_time_format_iso8601 (exact) : NULL;
      g_autofree char *clocks = g_strdup_printf ("%s (monotonic %" G_GUINT64_FORMAT " ns, boot time %"
                                                 G_GUINT64_FORMAT " ns)",
                                                 iso != NULL ? iso : "?", (guint64) h->clocks.monotonic,
                                                 (guint64) h->clocks.boottime);

      strata_source_add_detail (source, "Started", clocks);
    }

  strata_source_add_detail (source, "Stopped cleanly", footer != NULL ? "yes" : "no (no footer)");
}

static gboolean
strata_ebpf_source_open (StrataSource  *source,
                         const char    *path,
                         GError       **error)
{
  StrataEbpfSource *self = STRATA_EBPF_SOURCE (source);
  StrataSourceInfo *info = strata_source_get_info_mutable (source);
  const StrataEbpfHeader *h;
  const StrataEbpfFooter *footer;
  static const char *names[STRATA_EBPF_N_RECORD_TYPES] = {
    [STRATA_EBPF_REC_TASK] = "task_rename",
    [STRATA_EBPF_REC_SWITCH] = "sched_switch",
    [STRATA_EBPF_REC_WAKING] = "sched_waking",
    [STRATA_EBPF_REC_WAKEUP_NEW] = "sched_wakeup_new",
    [STRATA_EBPF_REC_FORK] = "sched_process_fork",
    [STRATA_EBPF_REC_EXEC] = "sched_process_exec",
    [STRATA_EBPF_REC_EXIT] = "sched_process_exit",
    [STRATA_EBPF_REC_IRQ_ENTRY] = "irq_handler_entry",
    [STRATA_EBPF_REC_IRQ_EXIT] = "irq_handler_exit",
    [STRATA_EBPF_REC_SOFTIRQ_ENTRY] = "softirq_entry",
    [STRATA_EBPF_REC_SOFTIRQ_EXIT] = "softirq_exit",
    [STRATA_EBPF_REC_SYS_ENTER] = "sys_enter",
    [STRATA_EBPF_REC_SYS_EXIT] = "sys_exit",
    [STRATA_EBPF_REC_LOST] = "lost_events",
    [STRATA_EBPF_REC_SAMPLE] = "cpu-clock",
  };

  self->name = g_strdup (path);
  self->strings = strata_string_pool_ref (strata_source_get_strings (source));
  self->file = strata_ebpf_file_open (path, path, error);
  if (self->file == NULL)
    return FALSE;

  h = strata_ebpf_file_get_header (self->file);
  if (h->rings.n_rings == 0 || h->rings.n_rings > h->n_cpus)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset %" G_GSIZE_FORMAT ": %u ring buffers for %u CPUs", path,
                   sizeof (struct strata_ebpf_file_header), h->rings.n_rings, h->n_cpus);
      return FALSE;
    }
  self->n_rings = h->rings.n_rings;
  self->rings = g_new0 (Ring, self->n_rings);

  for (guint i = 0; i < STRATA_EBPF_N_RECORD_TYPES; i++)
    if (names[i] != NULL)
      self->names[i] = strata_string_pool_intern (self->strings, names[i]);

  g_free (info->format);
  info->format = g_strdup ("strata eBPF");
  g_free (info->version);
  info->version = g_strdup_printf ("%u", h->version);
  g_free (info->compression);
  info->compression = g_strdup ("none");
  g_free (info->clock);
  info->clock = g_strdup ("mono");
  info->n_cpus = h->n_cpus;
  info->hostname = g_strdup (h->hostname);
  info->kernel_release = g_strdup (h->kernel_release);
  g_array_set_size (info->lost_per_cpu, h->n_cpus);

  footer = strata_ebpf_file_get_footer (self->file);
  if (footer != NULL && footer->first_ts <= footer->last_ts && footer->last_ts <= G_MAXINT64)
    {
      info->span_first = footer->first_ts;
      info->span_last = footer->last_ts;
    }

  strata_symbolizer_set_kernel_release (self->symbolizer, h->kernel_release);
  if (h->kernel_text != 0)
    strata_symbolizer_set_kernel_text (self->symbolizer, h->kernel_text);

  add_details (self, h);

  return TRUE;
}

static const guint64 *
strata_ebpf_source_get_callchain (StrataSource *source,
                                  guint32       id,
                                  guint        *n_frames)
{
  StrataEbpfSource *self = STRATA_EBPF_SOURCE (source);
  const Chain *c;

  if (id >= self->chains->len)
    return NULL;
  c = &g_array_index (self->chains, Chain, id);
  *n_frames = c->n;
  return &g_array_index (self->frames, guint64, c->offset);
}

/* Kernel frames through kallsyms, user frames through the mappings the
 * recorder read from /proc: the same code as perf.data's samples. */
static char *
strata_ebpf_source_symbolize (StrataSource *source,
                              gint32        pid,
                              guint64       address)
{
  StrataEbpfSource *self = STRATA_EBPF_SOURCE (source);

  return strata_symbolizer_name (self->symbolizer, pid, address, G_MAXINT64);
}

static guint64
strata_ebpf_source_get_file_position (StrataSource *source)
{
  StrataEbpfSource *self = STRATA_EBPF_SOURCE (source);

  return self->file != NULL ? strata_ebpf_file_get_offset (self->file) : 0;
}

static void
strata_ebpf_source_finalize (GObject *object)
{
  StrataEbpfSource *self = (StrataEbpfSource *) object;

  for (guint i = 0; i < self->n_rings; i++)
    g_queue_clear_full (&self->rings[i].blocks, (GDestroyNotify) block_free);
  g_free (self->rings);
  g_clear_pointer (&self->file, strata_ebpf_file_free);
  g_clear_pointer (&self->strings, strata_string_pool_unref);
  g_clear_pointer (&self->tasks, g_hash_table_unref);
  g_clear_pointer (&self->irq_names, g_hash_table_unref);
  g_clear_pointer (&self->symbolizer, strata_symbolizer_free);
  g_clear_pointer (&self->swappers, g_array_unref);
  g_clear_pointer (&self->frames, g_array_unref);
  g_clear_pointer (&self->chains, g_array_unref);
  g_clear_pointer (&self->chain_ids, g_hash_table_unref);
  g_clear_error (&self->deferred);
  g_free (self->name);

  G_OBJECT_CLASS (strata_ebpf_source_parent_class)->finalize (object);
}

static void
strata_ebpf_source_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  StrataEbpfSource *self = STRATA_EBPF_SOURCE (object);

  switch (prop_id)
    {
    case PROP_FOLLOW:
      /* Still following: the footer not read, the file still growing. */
      g_value_set_boolean (value, self->follow && !self->no_more);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
strata_ebpf_source_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  StrataEbpfSource *self = STRATA_EBPF_SOURCE (object);

  switch (prop_id)
    {
    case PROP_FOLLOW:
      strata_ebpf_source_set_follow (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
strata_ebpf_source_class_init (StrataEbpfSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  StrataSourceClass *source_class = STRATA_SOURCE_CLASS (klass);

  object_class->get_property = strata_ebpf_source_get_property;
  object_class->set_property = strata_ebpf_source_set_property;
  /* The generic way a pass asks any source to follow its file
   * (strata-trace.c), and learns, when a batch is empty, whether that is
   * "nothing more yet" (still TRUE) or the end: the footer was read, or
   * the file stopped growing for FOLLOW_STALE_USEC (a killed recorder). */
  properties[PROP_FOLLOW] =
    g_param_spec_boolean ("follow", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  object_class->finalize = strata_ebpf_source_finalize;
  source_class->probe = strata_ebpf_source_probe;
  source_class->open = strata_ebpf_source_open;
  source_class->read_batch = strata_ebpf_source_read_batch;
  source_class->get_callchain = strata_ebpf_source_get_callchain;
  source_class->symbolize = strata_ebpf_source_symbolize;
  source_class->get_file_position = strata_ebpf_source_get_file_position;
}

static void
strata_ebpf_source_init (StrataEbpfSource *self)
{
  self->tasks = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->irq_names = g_hash_table_new (NULL, NULL);
  self->symbolizer = strata_symbolizer_new ();
  self->swappers = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->frames = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->chains = g_array_new (FALSE, FALSE, sizeof (Chain));
  self->chain_ids = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                           (GDestroyNotify) g_bytes_unref, NULL);
}

void
strata_ebpf_source_set_follow (StrataEbpfSource *self,
                               gboolean          follow)
{
  g_return_if_fail (STRATA_IS_EBPF_SOURCE (self));

  self->follow = !!follow;
}

gboolean
strata_ebpf_source_is_complete (StrataEbpfSource *self)
{
  g_return_val_if_fail (STRATA_IS_EBPF_SOURCE (self), FALSE);

  return self->complete;
}

guint64
strata_ebpf_source_get_out_of_order (StrataEbpfSource *self)
{
  g_return_val_if_fail (STRATA_IS_EBPF_SOURCE (self), 0);

  return self->out_of_order;
}

void
strata_plugin_ebpf_register (void)
{
  g_io_extension_point_implement (STRATA_SOURCE_EXTENSION_POINT,
                                  STRATA_TYPE_EBPF_SOURCE, "strata-ebpf", 0);
}
