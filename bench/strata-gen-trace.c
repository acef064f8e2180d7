/* strata-gen-trace.c
 *
 * Generates big, realistic and valid trace.dat files for Strata's benchmarks.
 * It simulates a scheduler (threads switching on and off CPUs, waking each
 * other, being preempted, forking, exec-ing and exiting, with hard and soft
 * interrupts nested inside) and writes the events as raw ring-buffer pages,
 * one file per CPU, exactly as the kernel's trace_pipe_raw would hand them
 * out. `trace-cmd restore` then wraps those pages with a header captured from
 * this machine's tracefs, so the result carries the real event formats. The
 * event ids, the field offsets and sizes, the page header and even the bits
 * the kernel uses for prev_state are all taken from that header at run time,
 * never hard-coded; only the ring-buffer event header (type_len/time_delta),
 * which has not changed since the ring buffer was written, is fixed here, as
 * libtraceevent's kbuffer also does. Output is deterministic for a seed (on a
 * given kernel), and generation runs at several million events per second.
 * --shape picks what the scheduler does: "bench" (the default, a mostly idle
 * desktop), "dense" (few CPUs, thousands of threads all busy, dense in
 * time) or "churn" (short-lived threads forking and exiting, about a
 * million in 20M events), so the index is measured on every shape.
 */

#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>

/* Exported by libtracecmd 1.3 but missing from its public header. */
int tracecmd_page_size (struct tracecmd_input *handle);

/* Ring-buffer event header: 5 bits of type_len, 27 bits of time delta. */
#define STRATA_RB_TYPE_LEN_BITS   5
#define STRATA_RB_DELTA_BITS      27
#define STRATA_RB_DELTA_MAX       ((G_GUINT64_CONSTANT (1) << STRATA_RB_DELTA_BITS) - 1)
#define STRATA_RB_TIME_EXTEND     30
#define STRATA_RB_MAX_SMALL_DATA  (28 * 4)

#define STRATA_GEN_MAX_RECORD     512

#define STRATA_GEN_ERROR (strata_gen_error_quark ())
GQuark strata_gen_error_quark (void);
G_DEFINE_QUARK (strata-gen-trace-error, strata_gen_error)

/* common_flags bits (kernel trace_flag_type). */
#define STRATA_FLAG_IRQS_OFF  0x01
#define STRATA_FLAG_HARDIRQ   0x08
#define STRATA_FLAG_SOFTIRQ   0x10

/* ------------------------------------------------------------------------ */
/* Deterministic random numbers (splitmix64): fast and identical everywhere. */

typedef struct
{
  guint64 state;
} StrataRng;

static inline guint64
strata_rng_next (StrataRng *rng)
{
  guint64 z = (rng->state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static inline guint32
strata_rng_below (StrataRng *rng,
                  guint32    n)
{
  return (guint32) (((strata_rng_next (rng) >> 32) * (guint64) n) >> 32);
}

static inline double
strata_rng_double (StrataRng *rng)
{
  return (strata_rng_next (rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* An exponentially distributed duration in ns, at least @min_ns. */
static inline guint64
strata_rng_duration (StrataRng *rng,
                     double     mean_ns,
                     guint64    min_ns)
{
  double u = 1.0 - strata_rng_double (rng);
  guint64 d = (guint64) (-mean_ns * log (u));

  return MAX (d, min_ns);
}

/* ------------------------------------------------------------------------ */
/* Event layouts, from the formats carried by the head file. */

typedef struct
{
  const struct tep_format_field *field;
} StrataGenField;

typedef struct
{
  struct tep_event *event;
  guint             fixed_size;
  /* Fields by role; a NULL field is absent on this kernel and not written. */
  StrataGenField    f[8];
} StrataGenEvent;

enum {
  EV_SWITCH,
  EV_WAKING,
  EV_WAKEUP,
  EV_WAKEUP_NEW,
  EV_FORK,
  EV_EXEC,
  EV_EXIT,
  EV_IRQ_ENTRY,
  EV_IRQ_EXIT,
  EV_SOFTIRQ_ENTRY,
  EV_SOFTIRQ_EXIT,
  N_EVENTS
};

static const struct {
  const char *system;
  const char *name;
  const char *fields[8];
} event_specs[N_EVENTS] = {
  [EV_SWITCH]        = { "sched", "sched_switch", { "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio" } },
  [EV_WAKING]        = { "sched", "sched_waking", { "comm", "pid", "prio", "target_cpu" } },
  [EV_WAKEUP]        = { "sched", "sched_wakeup", { "comm", "pid", "prio", "target_cpu" } },
  [EV_WAKEUP_NEW]    = { "sched", "sched_wakeup_new", { "comm", "pid", "prio", "target_cpu" } },
  [EV_FORK]          = { "sched", "sched_process_fork", { "parent_comm", "parent_pid", "child_comm", "child_pid" } },
  [EV_EXEC]          = { "sched", "sched_process_exec", { "filename", "pid", "old_pid" } },
  [EV_EXIT]          = { "sched", "sched_process_exit", { "comm", "pid", "prio", "group_dead" } },
  [EV_IRQ_ENTRY]     = { "irq", "irq_handler_entry", { "irq", "name" } },
  [EV_IRQ_EXIT]      = { "irq", "irq_handler_exit", { "irq", "ret" } },
  [EV_SOFTIRQ_ENTRY] = { "irq", "softirq_entry", { "vec" } },
  [EV_SOFTIRQ_EXIT]  = { "irq", "softirq_exit", { "vec" } },
};

/* A record being built: fixed part plus appended __data_loc payloads. */
typedef struct
{
  const StrataGenEvent *ev;
  guint8                data[STRATA_GEN_MAX_RECORD];
  guint                 len;
} StrataGenRecord;

typedef struct
{
  const struct tep_format_field *common_type;
  const struct tep_format_field *common_flags;
  const struct tep_format_field *common_preempt_count;
  const struct tep_format_field *common_pid;
  StrataGenEvent                 events[N_EVENTS];
  guint                          page_size;
  guint                          page_ts_size;
  guint                          page_commit_size;
  guint                          page_data_offset;
  /* prev_state encodings, found by asking libtraceevent to print them. */
  guint64                        state_sleeping;
  guint64                        state_disk;
  guint64                        state_dead;
  guint64                        state_zombie;
  guint64                        state_preempted;
} StrataGenLayout;

static inline void
put_uint (guint8   *dst,
          guint     size,
          guint64   value)
{
  /* The file is little-endian (checked at start-up). */
  switch (size)
    {
    case 1: { guint8 v = value; memcpy (dst, &v, 1); break; }
    case 2: { guint16 v = GUINT16_TO_LE (value); memcpy (dst, &v, 2); break; }
    case 4: { guint32 v = GUINT32_TO_LE (value); memcpy (dst, &v, 4); break; }
    case 8: { guint64 v = GUINT64_TO_LE (value); memcpy (dst, &v, 8); break; }
    default: g_assert_not_reached ();
    }
}

static inline void
record_begin (StrataGenRecord      *rec,
              const StrataGenLayout *layout,
              const StrataGenEvent  *ev,
              guint                  flags,
              guint                  preempt_count,
              int                    pid)
{
  rec->ev = ev;
  rec->len = ev->fixed_size;
  memset (rec->data, 0, ev->fixed_size);
  put_uint (rec->data + layout->common_type->offset, layout->common_type->size, ev->event->id);
  put_uint (rec->data + layout->common_flags->offset, layout->common_flags->size, flags);
  put_uint (rec->data + layout->common_preempt_count->offset, layout->common_preempt_count->size, preempt_count);
  put_uint (rec->data + layout->common_pid->offset, layout->common_pid->size, (guint32) pid);
}

static inline void
record_int (StrataGenRecord *rec,
            guint            role,
            gint64           value)
{
  const struct tep_format_field *field = rec->ev->f[role].field;

  if (field != NULL)
    put_uint (rec->data + field->offset, field->size, (guint64) value);
}

static inline void
record_str (StrataGenRecord *rec,
            guint            role,
            const char      *value)
{
  const struct tep_format_field *field = rec->ev->f[role].field;
  gsize len;

  if (field == NULL)
    return;

  len = strlen (value);
  if (field->flags & TEP_FIELD_IS_DYNAMIC)
    {
      guint offset = rec->len;

      len = MIN (len + 1, sizeof rec->data - rec->len);
      memcpy (rec->data + offset, value, len);
      rec->data[offset + len - 1] = '\0';
      rec->len += len;
      if (field->flags & TEP_FIELD_IS_RELATIVE)
        offset -= field->offset + field->size;
      put_uint (rec->data + field->offset, 4, ((guint32) len << 16) | offset);
    }
  else
    {
      /* Fixed char arrays (comms) are NUL padded; the record was zeroed. */
      memcpy (rec->data + field->offset, value, MIN (len, (gsize) field->size - 1));
    }
}

static gboolean
load_layout (StrataGenLayout       *layout,
             struct tracecmd_input *handle,
             GError               **error)
{
  struct tep_handle *tep = tracecmd_get_tep (handle);
  struct tep_event *any;

  if (tep_is_file_bigendian (tep) || tep_get_long_size (tep) != 8)
    {
      g_set_error (error, STRATA_GEN_ERROR, 0,
                   "the head describes a big-endian or 32-bit kernel; only 64-bit little-endian is generated");
      return FALSE;
    }

  layout->page_size = tracecmd_page_size (handle);
  layout->page_ts_size = tep_get_header_timestamp_size (tep);
  layout->page_commit_size = tep_get_header_page_size (tep);
  layout->page_data_offset = layout->page_ts_size + layout->page_commit_size;
  if (layout->page_size < 256 || layout->page_ts_size != 8 ||
      (layout->page_commit_size != 4 && layout->page_commit_size != 8))
    {
      g_set_error (error, STRATA_GEN_ERROR, 0,
                   "unexpected page header (page %u, timestamp %u, commit %u bytes)",
                   layout->page_size, layout->page_ts_size, layout->page_commit_size);
      return FALSE;
    }

  for (guint i = 0; i < N_EVENTS; i++)
    {
      StrataGenEvent *ev = &layout->events[i];

      ev->event = tep_find_event_by_name (tep, event_specs[i].system, event_specs[i].name);
      if (ev->event == NULL)
        {
          if (i == EV_SWITCH)
            {
              g_set_error (error, STRATA_GEN_ERROR, 0,
                           "the head has no sched/sched_switch format");
              return FALSE;
            }
          g_printerr ("strata-gen-trace: no %s/%s format, not generating it\n",
                      event_specs[i].system, event_specs[i].name);
          continue;
        }

      ev->fixed_size = 0;
      for (struct tep_format_field *f = ev->event->format.common_fields; f; f = f->next)
        ev->fixed_size = MAX (ev->fixed_size, (guint) (f->offset + f->size));
      for (struct tep_format_field *f = ev->event->format.fields; f; f = f->next)
        ev->fixed_size = MAX (ev->fixed_size, (guint) (f->offset + f->size));

      for (guint j = 0; j < G_N_ELEMENTS (event_specs[i].fields) && event_specs[i].fields[j]; j++)
        {
          struct tep_format_field *f = tep_find_field (ev->event, event_specs[i].fields[j]);

          if (f != NULL && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
              !(f->flags & TEP_FIELD_IS_ARRAY) &&
              f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
            f = NULL;
          ev->f[j].field = f;
        }
    }

  any = layout->events[EV_SWITCH].event;
  layout->common_type = tep_find_common_field (any, "common_type");
  layout->common_flags = tep_find_common_field (any, "common_flags");
  layout->common_preempt_count = tep_find_common_field (any, "common_preempt_count");
  layout->common_pid = tep_find_common_field (any, "common_pid");
  if (!layout->common_type || !layout->common_flags ||
      !layout->common_preempt_count || !layout->common_pid)
    {
      g_set_error (error, STRATA_GEN_ERROR, 0, "missing common fields");
      return FALSE;
    }

  return TRUE;
}

/* The kernel's prev_state encoding changes between versions (TASK_REPORT_MAX
 * moved, letters were added), so instead of copying its table we render
 * sched_switch records with each single bit set through the print fmt in
 * the head and see which letters come out. */
static gboolean
find_prev_states (StrataGenLayout   *layout,
                  struct tep_handle *tep,
                  GError           **error)
{
  gboolean found_s = FALSE, found_d = FALSE, found_x = FALSE, found_z = FALSE, found_p = FALSE;

  for (guint bit = 0; bit < 32; bit++)
    {
      StrataGenRecord rec;
      struct tep_record record = { 0 };
      struct trace_seq s;
      const char *p;
      g_autofree char *letters = NULL;

      record_begin (&rec, layout, &layout->events[EV_SWITCH], 0, 0, 1);
      record_str (&rec, 0, "a");
      record_str (&rec, 4, "b");
      record_int (&rec, 3, (gint64) 1 << bit);
      record.data = rec.data;
      record.size = rec.len;

      trace_seq_init (&s);
      tep_print_event (tep, &s, &record, "%s", TEP_PRINT_INFO);
      trace_seq_terminate (&s);
      p = strstr (s.buffer, "prev_state=");
      if (p != NULL)
        {
          p += strlen ("prev_state=");
          letters = g_strndup (p, strcspn (p, " "));
        }
      trace_seq_destroy (&s);
      if (letters == NULL)
        continue;

#define CLAIM(str, flag, var) \
      if (!flag && g_str_equal (letters, str)) { layout->var = (guint64) 1 << bit; flag = TRUE; }
      CLAIM ("S", found_s, state_sleeping);
      CLAIM ("D", found_d, state_disk);
      CLAIM ("X", found_x, state_dead);
      CLAIM ("Z", found_z, state_zombie);
      CLAIM ("R+", found_p, state_preempted);
#undef CLAIM
    }

  if (!found_s || !found_d || !found_p)
    {
      g_set_error (error, STRATA_GEN_ERROR, 0,
                   "could not find the S, D and R+ prev_state bits in the sched_switch print fmt");
      return FALSE;
    }
  if (!found_x)
    layout->state_dead = layout->state_sleeping;
  if (!found_z)
    layout->state_zombie = layout->state_dead;

  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Per-CPU ring-buffer pages. */

typedef struct
{
  FILE    *out;
  guint8  *page;
  guint    used;        /* bytes of event data on the current page */
  guint64  page_ts;
  guint64  last_ts;     /* timestamp of the last event written */
  gboolean open;
  guint64  pages;
} StrataGenPages;

static gboolean
pages_flush (StrataGenPages        *pg,
             const StrataGenLayout *layout,
             GError               **error)
{
  if (!pg->open)
    return TRUE;

  put_uint (pg->page, layout->page_ts_size, pg->page_ts);
  put_uint (pg->page + layout->page_ts_size, layout->page_commit_size, pg->used);
  if (fwrite (pg->page, layout->page_size, 1, pg->out) != 1)
    {
      g_set_error (error, STRATA_GEN_ERROR, 0, "writing a page: %s", g_strerror (errno));
      return FALSE;
    }
  pg->open = FALSE;
  pg->pages++;
  return TRUE;
}

static inline gboolean
pages_append (StrataGenPages        *pg,
              const StrataGenLayout *layout,
              guint64                ts,
              const guint8          *data,
              guint                  len,
              GError               **error)
{
  guint capacity = layout->page_size - layout->page_data_offset;
  guint aligned = (len + 3) & ~3u;
  guint need = (aligned <= STRATA_RB_MAX_SMALL_DATA ? 4 : 8) + aligned;
  guint64 delta;
  guint8 *p;

  g_assert (!pg->open || ts > pg->last_ts);

  delta = pg->open ? ts - pg->last_ts : 0;
  if (pg->open && pg->used + need + (delta > STRATA_RB_DELTA_MAX ? 8 : 0) > capacity)
    {
      if (!pages_flush (pg, layout, error))
        return FALSE;
    }
  if (!pg->open)
    {
      memset (pg->page, 0, layout->page_size);
      pg->open = TRUE;
      pg->used = 0;
      pg->page_ts = ts;
      delta = 0;
    }

  p = pg->page + layout->page_data_offset + pg->used;
  if (delta > STRATA_RB_DELTA_MAX)
    {
      put_uint (p, 4, ((delta & STRATA_RB_DELTA_MAX) << STRATA_RB_TYPE_LEN_BITS) | STRATA_RB_TIME_EXTEND);
      put_uint (p + 4, 4, delta >> STRATA_RB_DELTA_BITS);
      p += 8;
      pg->used += 8;
      delta = 0;
    }

  if (aligned <= STRATA_RB_MAX_SMALL_DATA)
    {
      put_uint (p, 4, (delta << STRATA_RB_TYPE_LEN_BITS) | (aligned / 4));
      p += 4;
    }
  else
    {
      /* type_len 0: the length (including this word) is in array[0]. */
      put_uint (p, 4, delta << STRATA_RB_TYPE_LEN_BITS);
      put_uint (p + 4, 4, aligned + 4);
      p += 8;
    }
  memcpy (p, data, len);
  pg->used += need;
  pg->last_ts = ts;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The scheduler simulation. */

typedef enum {
  THREAD_FREE,
  THREAD_RUNNING,
  THREAD_RUNNABLE,
  THREAD_SLEEPING,
} StrataThreadState;

typedef struct
{
  int               pid;
  int               tgid;
  int               prio;
  StrataThreadState state;
  int               cpu;          /* last CPU it ran or was queued on */
  guint             sleep_index;  /* position in the sleeping array */
  guint64           last_ts;      /* last event involving it, on any CPU */
  gboolean          pending_exec;
  char              comm[16];
} StrataThread;

typedef enum {
  PHASE_TASK,
  PHASE_IRQ_BODY,
  PHASE_IRQ_EXIT,
  PHASE_SOFTIRQ_EXIT,
} StrataCpuPhase;

typedef struct
{
  StrataGenPages pages;
  int            cur;           /* thread index, -1 when idle */
  guint         *rq;            /* ring of thread indices */
  guint          rq_head;
  guint          rq_len;
  guint64        time_next;
  StrataCpuPhase phase;
  int            irq;
  guint          softirq_vec;
  gboolean       softirq_raised;
  char           idle_comm[16];
} StrataCpu;

/* The shape of a generated trace: how a running thread's next step is
 * chosen and how long things last. The numbers of "bench" are the ones the
 * generator always used, so its files stay byte for byte what they were. */
typedef struct
{
  const char *name;
  const char *description;
  int         cpus;             /* defaults for --cpus and --threads */
  int         threads;
  /* A running thread's next step, by cumulative probability: an interrupt
   * below p_irq, waking a sleeper below p_wake, forking below p_fork,
   * exiting below p_exit, else the end of its slice. */
  double      p_irq;
  double      p_wake;
  double      p_fork;
  double      p_exit;
  double      p_preempt;        /* a slice ends preempted when others wait */
  double      time_scale;       /* slices and the gaps between a task's steps */
  gboolean    all_live;         /* every slot a live thread from the start */
  double      initial_runnable; /* of the threads not first on a CPU */
} StrataGenShape;

static const StrataGenShape shapes[] = {
  { "bench", "a desktop's mix: 8 CPUs, 256 thread slots, mostly idle CPUs",
    8, 256, 0.12, 0.40, 0.41, 0.42, 0.35, 1.0, FALSE, 0.05 },
  /* The issue-25 shape: few CPUs, thousands of threads all runnable or
   * running all the time, slices of a few microseconds, so 20M events span
   * about 4 s. Nothing forks or exits. */
  { "dense", "few CPUs, thousands of threads all busy, dense in time (8 CPUs, 2000 threads)",
    8, 2000, 0.03, 0.10, 0.0, 0.0, 0.95, 0.008, TRUE, 1.0 },
  /* Thread churn: threads fork, run a few slices and exit, so 20M events
   * hold about a million threads, each with its own fork, wakeup_new, exit
   * and (for new processes) exec. */
  { "churn", "short-lived threads: fork, run briefly, exit (about a million in 20M events)",
    8, 256, 0.12, 0.40, 0.49, 0.58, 0.35, 1.0, FALSE, 0.05 },
};

typedef struct
{
  StrataGenLayout  layout;
  const StrataGenShape *shape;
  StrataRng        rng;
  guint            n_cpus;
  guint            n_threads;   /* slots; live threads never exceed it */
  guint64          n_events;
  guint64          emitted;
  StrataCpu       *cpus;
  StrataThread    *threads;
  guint           *sleeping;
  guint            n_sleeping;
  guint           *free_slots;
  guint            n_free;
  guint            n_live;
  guint64          n_forks;
  guint            n_initial;
  guint64          first_ts;
  GHashTable      *group_sizes; /* tgid -> live threads */
  struct tep_handle *tep;        /* to avoid pids the head already names */
  int              next_pid;
  GError          *error;
} StrataSim;

static const char *process_names[] = {
  "bash", "gnome-shell", "Xwayland", "firefox", "pipewire", "wireplumber",
  "systemd-journal", "systemd", "dbus-daemon", "postgres", "nginx", "python3",
  "make", "cc1", "ld", "git", "ssh", "sshd", "chrome", "node", "java",
  "containerd", "dockerd", "redis-server", "rsyslogd", "NetworkManager",
  "gnome-terminal-", "tracker-miner-f", "evolution", "nautilus",
};

static const char *thread_names[] = {
  "gmain", "gdbus", "pool-0", "pool-1", "dconf worker", "IPC I/O Parent",
  "Socket Thread", "JS Helper", "threaded-ml", "worker", "GC Thread#0",
  "C2 CompilerThre", "io_uring-sq", "tokio-runtime-w", "ThreadPoolForeg",
};

static const char *exec_names[] = {
  "ls", "cat", "grep", "sed", "awk", "cc1", "as", "ld", "sort", "find",
  "python3", "sh", "date", "git", "gzip",
};

static const struct {
  int         irq;
  const char *name;
} irqs[] = {
  { 1, "i8042" }, { 9, "acpi" }, { 16, "ehci_hcd:usb1" }, { 24, "nvme0q1" },
  { 25, "nvme0q2" }, { 30, "eth0-TxRx-0" }, { 31, "eth0-TxRx-1" },
  { 40, "xhci_hcd" }, { 120, "amdgpu" }, { 130, "snd_hda_intel:card0" },
};

/* TIMER, NET_RX, RCU, SCHED, BLOCK, TASKLET weighted like a busy desktop. */
static const guint softirq_vecs[] = { 1, 1, 1, 1, 3, 3, 9, 9, 7, 4, 6 };

static int
sim_new_pid (StrataSim *sim)
{
  /* Pids the head's saved command lines already name would print with this
   * machine's comms, so skip them. */
  while (tep_is_pid_registered (sim->tep, sim->next_pid))
    sim->next_pid++;
  return sim->next_pid++;
}

static inline gboolean
sim_emit (StrataSim       *sim,
          guint            cpu,
          guint64          ts,
          StrataGenRecord *rec)
{
  if (sim->emitted >= sim->n_events || sim->error != NULL)
    return FALSE;
  if (!pages_append (&sim->cpus[cpu].pages, &sim->layout, ts, rec->data, rec->len, &sim->error))
    return FALSE;
  sim->emitted++;
  return TRUE;
}

/* The timestamp of the next event on @cpu, at least @gap after its last one
 * and after the last event of @thread (if any), so causality holds across
 * CPUs. */
static inline guint64
sim_ts (StrataSim    *sim,
        guint         cpu,
        guint64       gap,
        StrataThread *thread)
{
  StrataCpu *c = &sim->cpus[cpu];
  guint64 ts = MAX (c->pages.last_ts + gap, c->time_next);

  if (thread != NULL)
    ts = MAX (ts, thread->last_ts + 1);
  return ts;
}

static inline int
cur_pid (StrataSim *sim,
         StrataCpu *c)
{
  return c->cur < 0 ? 0 : sim->threads[c->cur].pid;
}

static void
rq_push (StrataCpu *c,
         guint      slots,
         guint      thread)
{
  g_assert (c->rq_len < slots);
  c->rq[(c->rq_head + c->rq_len) % slots] = thread;
  c->rq_len++;
}

static guint
rq_pop (StrataCpu *c,
        guint      slots)
{
  guint t = c->rq[c->rq_head];

  g_assert (c->rq_len > 0);
  c->rq_head = (c->rq_head + 1) % slots;
  c->rq_len--;
  return t;
}

static void
sleeping_add (StrataSim *sim,
              guint      t)
{
  sim->threads[t].state = THREAD_SLEEPING;
  sim->threads[t].sleep_index = sim->n_sleeping;
  sim->sleeping[sim->n_sleeping++] = t;
}

static void
sleeping_remove (StrataSim *sim,
                 guint      t)
{
  guint i = sim->threads[t].sleep_index;
  guint last = sim->sleeping[--sim->n_sleeping];

  sim->sleeping[i] = last;
  sim->threads[last].sleep_index = i;
}

static guint
pick_target_cpu (StrataSim    *sim,
                 StrataThread *thread)
{
  guint start;

  /* Wake-affine: stay where it last ran if that CPU is idle, else prefer
   * any idle CPU, else anywhere. */
  if (sim->cpus[thread->cpu].cur < 0 && sim->cpus[thread->cpu].rq_len == 0)
    return thread->cpu;
  start = strata_rng_below (&sim->rng, sim->n_cpus);
  for (guint i = 0; i < sim->n_cpus; i++)
    {
      guint cpu = (start + i) % sim->n_cpus;

      if (sim->cpus[cpu].cur < 0 && sim->cpus[cpu].rq_len == 0)
        return cpu;
    }
  return strata_rng_double (&sim->rng) < 0.7 ? (guint) thread->cpu : start;
}

static void
enqueue (StrataSim *sim,
         guint      t,
         guint      target,
         guint64    ts)
{
  StrataCpu *tc = &sim->cpus[target];

  sim->threads[t].state = THREAD_RUNNABLE;
  sim->threads[t].cpu = target;
  rq_push (tc, sim->n_threads, t);

  /* Kick an idle CPU so it switches the thread in shortly. */
  if (tc->cur < 0 && tc->phase == PHASE_TASK)
    {
      guint64 kick = MAX (tc->pages.last_ts, ts) + 1000 + strata_rng_below (&sim->rng, 4000);

      tc->time_next = MIN (tc->time_next, kick);
    }
}

/* sched_waking then sched_wakeup of a sleeping thread, on @cpu. */
static void
wake_thread (StrataSim *sim,
             guint      cpu,
             guint      t,
             guint      ctx_flags)
{
  StrataCpu *c = &sim->cpus[cpu];
  StrataThread *th = &sim->threads[t];
  const StrataGenLayout *L = &sim->layout;
  StrataGenRecord rec;
  guint target = pick_target_cpu (sim, th);
  guint64 ts;

  sleeping_remove (sim, t);

  if (L->events[EV_WAKING].event != NULL)
    {
      ts = sim_ts (sim, cpu, 200, th);
      record_begin (&rec, L, &L->events[EV_WAKING], STRATA_FLAG_IRQS_OFF | ctx_flags, 1, cur_pid (sim, c));
      record_str (&rec, 0, th->comm);
      record_int (&rec, 1, th->pid);
      record_int (&rec, 2, th->prio);
      record_int (&rec, 3, target);
      sim_emit (sim, cpu, ts, &rec);
      th->last_ts = ts;
    }

  ts = sim_ts (sim, cpu, 300 + strata_rng_below (&sim->rng, 1500), th);
  record_begin (&rec, L, &L->events[EV_WAKEUP], STRATA_FLAG_IRQS_OFF | ctx_flags, 2, cur_pid (sim, c));
  record_str (&rec, 0, th->comm);
  record_int (&rec, 1, th->pid);
  record_int (&rec, 2, th->prio);
  record_int (&rec, 3, target);
  sim_emit (sim, cpu, ts, &rec);
  th->last_ts = ts;

  enqueue (sim, t, target, ts);
}

/* sched_switch from the current thread (or idle) to the next runnable one. */
static void
switch_out (StrataSim *sim,
            guint      cpu,
            guint64    prev_state)
{
  StrataCpu *c = &sim->cpus[cpu];
  const StrataGenLayout *L = &sim->layout;
  StrataThread *prev = c->cur >= 0 ? &sim->threads[c->cur] : NULL;
  StrataThread *next = NULL;
  int next_index = -1;
  StrataGenRecord rec;
  guint64 ts;

  if (c->rq_len > 0)
    {
      next_index = rq_pop (c, sim->n_threads);
      next = &sim->threads[next_index];
    }

  ts = sim_ts (sim, cpu, 500, next);
  if (prev != NULL)
    ts = MAX (ts, prev->last_ts + 1);

  record_begin (&rec, L, &L->events[EV_SWITCH], STRATA_FLAG_IRQS_OFF, 2, prev ? prev->pid : 0);
  record_str (&rec, 0, prev ? prev->comm : c->idle_comm);
  record_int (&rec, 1, prev ? prev->pid : 0);
  record_int (&rec, 2, prev ? prev->prio : 120);
  record_int (&rec, 3, prev ? prev_state : 0);
  record_str (&rec, 4, next ? next->comm : c->idle_comm);
  record_int (&rec, 5, next ? next->pid : 0);
  record_int (&rec, 6, next ? next->prio : 120);
  sim_emit (sim, cpu, ts, &rec);

  if (prev != NULL)
    prev->last_ts = ts;
  if (next != NULL)
    {
      next->last_ts = ts;
      next->state = THREAD_RUNNING;
      next->cpu = cpu;
    }
  c->cur = next_index;
}

static void
do_fork (StrataSim *sim,
         guint      cpu)
{
  StrataCpu *c = &sim->cpus[cpu];
  StrataThread *parent = &sim->threads[c->cur];
  const StrataGenLayout *L = &sim->layout;
  StrataGenRecord rec;
  guint t = sim->free_slots[--sim->n_free];
  StrataThread *child = &sim->threads[t];
  gboolean new_process = strata_rng_double (&sim->rng) < 0.7;
  guint64 ts;

  child->pid = sim_new_pid (sim);
  child->tgid = new_process ? child->pid : parent->tgid;
  child->prio = parent->prio;
  child->cpu = cpu;
  child->pending_exec = new_process;
  child->last_ts = 0;
  if (new_process)
    memcpy (child->comm, parent->comm, sizeof child->comm);
  else
    g_strlcpy (child->comm, thread_names[strata_rng_below (&sim->rng, G_N_ELEMENTS (thread_names))],
               sizeof child->comm);
  sim->n_live++;
  sim->n_forks++;
  g_hash_table_insert (sim->group_sizes, GINT_TO_POINTER (child->tgid),
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (sim->group_sizes,
                                                                                GINT_TO_POINTER (child->tgid))) + 1));

  ts = sim_ts (sim, cpu, 2000, NULL);
  if (L->events[EV_FORK].event != NULL)
    {
      record_begin (&rec, L, &L->events[EV_FORK], 0, 0, parent->pid);
      record_str (&rec, 0, parent->comm);
      record_int (&rec, 1, parent->pid);
      record_str (&rec, 2, child->comm);
      record_int (&rec, 3, child->pid);
      sim_emit (sim, cpu, ts, &rec);
    }
  child->last_ts = ts;

  {
    const StrataGenEvent *wev = L->events[EV_WAKEUP_NEW].event ? &L->events[EV_WAKEUP_NEW] : &L->events[EV_WAKEUP];
    guint target = pick_target_cpu (sim, child);

    ts = sim_ts (sim, cpu, 1000, child);
    record_begin (&rec, L, wev, STRATA_FLAG_IRQS_OFF, 2, parent->pid);
    record_str (&rec, 0, child->comm);
    record_int (&rec, 1, child->pid);
    record_int (&rec, 2, child->prio);
    record_int (&rec, 3, target);
    sim_emit (sim, cpu, ts, &rec);
    child->last_ts = ts;
    enqueue (sim, t, target, ts);
  }
}

static void
do_exec (StrataSim *sim,
         guint      cpu)
{
  StrataCpu *c = &sim->cpus[cpu];
  StrataThread *th = &sim->threads[c->cur];
  const StrataGenLayout *L = &sim->layout;
  StrataGenRecord rec;
  const char *name = exec_names[strata_rng_below (&sim->rng, G_N_ELEMENTS (exec_names))];
  g_autofree char *filename = g_strconcat ("/usr/bin/", name, NULL);
  guint64 ts = sim_ts (sim, cpu, 5000, th);

  th->pending_exec = FALSE;
  g_strlcpy (th->comm, name, sizeof th->comm);
  if (L->events[EV_EXEC].event == NULL)
    return;
  record_begin (&rec, L, &L->events[EV_EXEC], 0, 0, th->pid);
  record_str (&rec, 0, filename);
  record_int (&rec, 1, th->pid);
  record_int (&rec, 2, th->pid);
  sim_emit (sim, cpu, ts, &rec);
  th->last_ts = ts;
}

static void
do_exit (StrataSim *sim,
         guint      cpu)
{
  StrataCpu *c = &sim->cpus[cpu];
  guint t = c->cur;
  StrataThread *th = &sim->threads[t];
  const StrataGenLayout *L = &sim->layout;
  StrataGenRecord rec;
  guint left = GPOINTER_TO_UINT (g_hash_table_lookup (sim->group_sizes, GINT_TO_POINTER (th->tgid))) - 1;
  gboolean leader = th->pid == th->tgid;

  if (left == 0)
    g_hash_table_remove (sim->group_sizes, GINT_TO_POINTER (th->tgid));
  else
    g_hash_table_insert (sim->group_sizes, GINT_TO_POINTER (th->tgid), GUINT_TO_POINTER (left));

  if (L->events[EV_EXIT].event != NULL)
    {
      guint64 ts = sim_ts (sim, cpu, 10000, th);

      record_begin (&rec, L, &L->events[EV_EXIT], 0, 0, th->pid);
      record_str (&rec, 0, th->comm);
      record_int (&rec, 1, th->pid);
      record_int (&rec, 2, th->prio);
      record_int (&rec, 3, left == 0);
      sim_emit (sim, cpu, ts, &rec);
      th->last_ts = ts;
    }

  /* A reaped leader waits as a zombie; other threads are released at once. */
  switch_out (sim, cpu, leader ? sim->layout.state_zombie : sim->layout.state_dead);
  th->state = THREAD_FREE;
  sim->free_slots[sim->n_free++] = t;
  sim->n_live--;
}

static void
irq_event (StrataSim *sim,
           guint      cpu,
           guint      which,
           gint64     arg)
{
  StrataCpu *c = &sim->cpus[cpu];
  const StrataGenLayout *L = &sim->layout;
  StrataGenRecord rec;
  guint64 ts = sim_ts (sim, cpu, 100, NULL);
  gboolean hard = which == EV_IRQ_ENTRY || which == EV_IRQ_EXIT;

  if (L->events[which].event == NULL)
    return;
  record_begin (&rec, L, &L->events[which],
                hard ? STRATA_FLAG_IRQS_OFF | STRATA_FLAG_HARDIRQ : STRATA_FLAG_SOFTIRQ,
                hard ? 1 : 0, cur_pid (sim, c));
  record_int (&rec, 0, arg);
  if (which == EV_IRQ_ENTRY)
    {
      for (guint i = 0; i < G_N_ELEMENTS (irqs); i++)
        if (irqs[i].irq == arg)
          record_str (&rec, 1, irqs[i].name);
    }
  else if (which == EV_IRQ_EXIT)
    record_int (&rec, 1, 1);
  sim_emit (sim, cpu, ts, &rec);
}

/* A duration of the task level (a slice, the gap after a step), scaled by
 * the shape; interrupts keep their own lengths. */
static inline guint64
task_duration (StrataSim *sim,
               double     mean_ns,
               guint64    min_ns)
{
  return strata_rng_duration (&sim->rng, mean_ns * sim->shape->time_scale,
                              (guint64) (min_ns * sim->shape->time_scale));
}

/* How long after an interrupt the CPU does something else: at once if the
 * interrupt woke a thread onto an idle CPU, a tick-less idle period if there
 * is nothing to run, and part of a time slice otherwise. */
static guint64
after_irq_delay (StrataSim *sim,
                 StrataCpu *c)
{
  if (c->cur < 0 && c->rq_len > 0)
    return strata_rng_duration (&sim->rng, 3000, 500);
  if (c->cur < 0)
    return strata_rng_duration (&sim->rng, 1000000, 5000);
  return task_duration (sim, 60000, 500);
}

/* One step of one CPU: the next thing that happens on it. */
static void
cpu_step (StrataSim *sim,
          guint      cpu)
{
  StrataCpu *c = &sim->cpus[cpu];
  StrataRng *rng = &sim->rng;
  double r = strata_rng_double (rng);

  switch (c->phase)
    {
    case PHASE_IRQ_BODY:
      /* Device interrupts often complete I/O someone sleeps on. */
      if (r < 0.4 && sim->n_sleeping > 0)
        wake_thread (sim, cpu, sim->sleeping[strata_rng_below (rng, sim->n_sleeping)],
                     STRATA_FLAG_HARDIRQ);
      c->phase = PHASE_IRQ_EXIT;
      c->time_next = c->pages.last_ts + strata_rng_duration (rng, 3000, 200);
      return;

    case PHASE_IRQ_EXIT:
      irq_event (sim, cpu, EV_IRQ_EXIT, c->irq);
      if (c->softirq_raised)
        {
          c->softirq_vec = softirq_vecs[strata_rng_below (rng, G_N_ELEMENTS (softirq_vecs))];
          irq_event (sim, cpu, EV_SOFTIRQ_ENTRY, c->softirq_vec);
          c->phase = PHASE_SOFTIRQ_EXIT;
          c->time_next = c->pages.last_ts + strata_rng_duration (rng, 8000, 300);
        }
      else
        {
          c->phase = PHASE_TASK;
          c->time_next = c->pages.last_ts + after_irq_delay (sim, c);
        }
      return;

    case PHASE_SOFTIRQ_EXIT:
      if (r < 0.2 && sim->n_sleeping > 0)
        wake_thread (sim, cpu, sim->sleeping[strata_rng_below (rng, sim->n_sleeping)],
                     STRATA_FLAG_SOFTIRQ);
      irq_event (sim, cpu, EV_SOFTIRQ_EXIT, c->softirq_vec);
      c->phase = PHASE_TASK;
      c->time_next = c->pages.last_ts + after_irq_delay (sim, c);
      return;

    case PHASE_TASK:
      break;
    }

  if (c->cur < 0)
    {
      if (c->rq_len > 0)
        {
          switch_out (sim, cpu, 0);
          c->time_next = c->pages.last_ts + task_duration (sim, 100000, 1000);
        }
      else
        {
          /* Idle until an interrupt arrives (or a wakeup kicks us). */
          c->irq = irqs[strata_rng_below (rng, G_N_ELEMENTS (irqs))].irq;
          c->softirq_raised = strata_rng_double (rng) < 0.5;
          irq_event (sim, cpu, EV_IRQ_ENTRY, c->irq);
          c->phase = PHASE_IRQ_BODY;
          c->time_next = c->pages.last_ts + strata_rng_duration (rng, 2000, 200);
        }
      return;
    }

  {
    StrataThread *th = &sim->threads[c->cur];

    if (th->pending_exec && r < 0.6)
      {
        do_exec (sim, cpu);
        c->time_next = c->pages.last_ts + task_duration (sim, 50000, 1000);
      }
    else if (r < sim->shape->p_irq)
      {
        c->irq = irqs[strata_rng_below (rng, G_N_ELEMENTS (irqs))].irq;
        c->softirq_raised = strata_rng_double (rng) < 0.4;
        irq_event (sim, cpu, EV_IRQ_ENTRY, c->irq);
        c->phase = PHASE_IRQ_BODY;
        c->time_next = c->pages.last_ts + strata_rng_duration (rng, 2000, 200);
      }
    else if (r < sim->shape->p_wake && sim->n_sleeping > 0)
      {
        wake_thread (sim, cpu, sim->sleeping[strata_rng_below (rng, sim->n_sleeping)], 0);
        c->time_next = c->pages.last_ts + task_duration (sim, 80000, 500);
      }
    else if (r < sim->shape->p_fork && sim->n_free > 0)
      {
        do_fork (sim, cpu);
        c->time_next = c->pages.last_ts + task_duration (sim, 40000, 500);
      }
    else if (r < sim->shape->p_exit && sim->n_live > sim->n_threads / 2)
      {
        do_exit (sim, cpu);
        c->time_next = c->pages.last_ts + task_duration (sim, 100000, 1000);
      }
    else
      {
        guint t = c->cur;

        if (c->rq_len > 0 && strata_rng_double (rng) < sim->shape->p_preempt)
          {
            /* Preempted: back on this CPU's run queue, still runnable. */
            switch_out (sim, cpu, sim->layout.state_preempted);
            sim->threads[t].state = THREAD_RUNNABLE;
            rq_push (c, sim->n_threads, t);
          }
        else
          {
            switch_out (sim, cpu, strata_rng_double (rng) < 0.9 ? sim->layout.state_sleeping
                                                                : sim->layout.state_disk);
            sleeping_add (sim, t);
          }
        c->time_next = c->pages.last_ts + (c->cur < 0 ? task_duration (sim, 1000000, 5000)
                                                      : task_duration (sim, 200000, 1000));
      }
  }
}

static void
sim_init (StrataSim *sim)
{
  guint t = 0;
  guint n_initial = sim->shape->all_live ? sim->n_threads : sim->n_threads - sim->n_threads / 4;

  sim->cpus = g_new0 (StrataCpu, sim->n_cpus);
  sim->threads = g_new0 (StrataThread, sim->n_threads);
  sim->sleeping = g_new (guint, sim->n_threads);
  sim->free_slots = g_new (guint, sim->n_threads);
  sim->group_sizes = g_hash_table_new (NULL, NULL);
  sim->next_pid = 1000;

  for (guint i = 0; i < sim->n_cpus; i++)
    {
      StrataCpu *c = &sim->cpus[i];

      c->cur = -1;
      c->rq = g_new (guint, sim->n_threads);
      c->pages.page = g_malloc0 (sim->layout.page_size);
      /* Boot plus about an hour, like a trace taken on a running machine. */
      c->time_next = G_GUINT64_CONSTANT (3600000000000) + strata_rng_below (&sim->rng, 100000);
      g_snprintf (c->idle_comm, sizeof c->idle_comm, "swapper/%u", i);
    }

  /* Three quarters of the slots (all of them in a shape that says so)
   * start as processes of 1-6 threads; the rest are free for forks. */
  while (t < n_initial)
    {
      const char *name = process_names[strata_rng_below (&sim->rng, G_N_ELEMENTS (process_names))];
      guint n = strata_rng_double (&sim->rng) < 0.5 ? 1 : 1 + strata_rng_below (&sim->rng, 6);
      int tgid = -1;
      int prio = strata_rng_double (&sim->rng) < 0.8 ? 120 : 100 + (int) strata_rng_below (&sim->rng, 40);

      for (guint k = 0; k < n && t < n_initial; k++, t++)
        {
          StrataThread *th = &sim->threads[t];

          th->pid = sim_new_pid (sim);
          th->tgid = tgid = (k == 0 ? th->pid : tgid);
          th->prio = prio;
          th->cpu = strata_rng_below (&sim->rng, sim->n_cpus);
          g_strlcpy (th->comm, k == 0 ? name : thread_names[strata_rng_below (&sim->rng, G_N_ELEMENTS (thread_names))],
                     sizeof th->comm);
          sim->n_live++;
          g_hash_table_insert (sim->group_sizes, GINT_TO_POINTER (tgid),
                               GUINT_TO_POINTER (k + 1));

          /* The CPUs start idle with one thread queued on each, so the
           * trace opens with switches that name every running thread; a
           * few more are queued behind them and the others sleep. */
          if (t < sim->n_cpus)
            {
              th->state = THREAD_RUNNABLE;
              th->cpu = t;
              rq_push (&sim->cpus[t], sim->n_threads, t);
            }
          else if (strata_rng_double (&sim->rng) < sim->shape->initial_runnable)
            {
              th->state = THREAD_RUNNABLE;
              rq_push (&sim->cpus[th->cpu], sim->n_threads, t);
            }
          else
            sleeping_add (sim, t);
        }
    }
  for (guint i = sim->n_threads; i > t; i--)
    sim->free_slots[sim->n_free++] = i - 1;
  sim->n_initial = t;
  sim->first_ts = G_MAXUINT64;
  for (guint i = 0; i < sim->n_cpus; i++)
    sim->first_ts = MIN (sim->first_ts, sim->cpus[i].time_next);
}

/* The last timestamp written, over all CPUs. */
static guint64
sim_last_ts (StrataSim *sim)
{
  guint64 last = sim->first_ts;

  for (guint i = 0; i < sim->n_cpus; i++)
    last = MAX (last, sim->cpus[i].pages.last_ts);
  return last;
}

static void
sim_clear (StrataSim *sim)
{
  for (guint i = 0; i < sim->n_cpus; i++)
    {
      g_free (sim->cpus[i].rq);
      g_free (sim->cpus[i].pages.page);
      if (sim->cpus[i].pages.out != NULL)
        fclose (sim->cpus[i].pages.out);
    }
  g_free (sim->cpus);
  g_free (sim->threads);
  g_free (sim->sleeping);
  g_free (sim->free_slots);
  g_hash_table_unref (sim->group_sizes);
  g_clear_error (&sim->error);
}

static gboolean
sim_run (StrataSim *sim,
         GError   **error)
{
  while (sim->emitted < sim->n_events && sim->error == NULL)
    {
      guint best = 0;

      for (guint i = 1; i < sim->n_cpus; i++)
        if (sim->cpus[i].time_next < sim->cpus[best].time_next)
          best = i;
      cpu_step (sim, best);
    }

  for (guint i = 0; i < sim->n_cpus && sim->error == NULL; i++)
    pages_flush (&sim->cpus[i].pages, &sim->layout, &sim->error);

  if (sim->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&sim->error));
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */

static gboolean
run_tool (const char * const *argv,
          GError            **error)
{
  g_autofree char *err_text = NULL;
  g_autofree char *cmdline = g_strjoinv (" ", (char **) argv);
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                     NULL, NULL, NULL, &err_text, &status, error))
    return FALSE;
  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_set_error (error, STRATA_GEN_ERROR, 0, "'%s' failed: %s", cmdline, err_text);
      return FALSE;
    }
  return TRUE;
}

static void
remove_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  gint64 n_events = 1000000;
  int n_cpus = 0;
  int n_threads = 0;
  g_autofree char *shape_name = g_strdup ("bench");
  const StrataGenShape *shape = NULL;
  gint64 seed = 1;
  int file_version = 7;
  g_autofree char *compression = g_strdup ("none");
  g_autofree char *output = NULL;
  g_autofree char *head = NULL;
  gboolean keep_temp = FALSE;
  GOptionEntry entries[] = {
    { "events", 'n', 0, G_OPTION_ARG_INT64, &n_events, "Total number of events (default 1000000)", "N" },
    { "shape", 0, 0, G_OPTION_ARG_STRING, &shape_name, "bench, dense or churn (default bench; see below)", "SHAPE" },
    { "cpus", 'c', 0, G_OPTION_ARG_INT, &n_cpus, "Number of CPUs (default: the shape's, 8)", "N" },
    { "threads", 't', 0, G_OPTION_ARG_INT, &n_threads, "Number of thread slots (default: the shape's; bench 256, dense 2000, churn 1024)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "Random seed (default 1)", "S" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Output trace.dat", "FILE" },
    { "file-version", 0, 0, G_OPTION_ARG_INT, &file_version, "trace.dat version, 6 or 7 (default 7)", "V" },
    { "compression", 0, 0, G_OPTION_ARG_STRING, &compression, "none or zstd (v7 only; default none)", "ALGO" },
    { "head", 0, 0, G_OPTION_ARG_FILENAME, &head, "Use this head (from 'trace-cmd restore -c') instead of capturing one", "FILE" },
    { "keep-temp", 0, 0, G_OPTION_ARG_NONE, &keep_temp, "Keep the raw per-CPU files", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- generate a synthetic scheduler trace.dat");
  g_autoptr(GError) error = NULL;
  g_autofree char *tmpdir = NULL;
  g_autofree char *restored = NULL;
  g_autoptr(GPtrArray) restore_argv = g_ptr_array_new_with_free_func (g_free);
  struct tracecmd_input *handle;
  StrataSim sim = { 0 };
  gboolean convert;
  gint64 t0, t1, t2;

  g_autoptr(GString) shapes_help = g_string_new ("Shapes:\n");

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    g_string_append_printf (shapes_help, "  %-7s %s\n", shapes[i].name, shapes[i].description);
  g_option_context_set_description (context, shapes_help->str);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    goto fail;
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    if (g_str_equal (shape_name, shapes[i].name))
      shape = &shapes[i];
  if (shape != NULL)
    {
      if (n_cpus == 0)
        n_cpus = shape->cpus;
      if (n_threads == 0)
        n_threads = shape->threads;
    }
  if (shape == NULL || output == NULL || n_events <= 0 || n_cpus < 1 || n_cpus > 4096 || n_threads < n_cpus + 4 ||
      (file_version != 6 && file_version != 7) ||
      (!g_str_equal (compression, "none") && !g_str_equal (compression, "zstd")) ||
      (file_version == 6 && !g_str_equal (compression, "none")))
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

      g_printerr ("%s\nNeed -o and a known shape; threads >= cpus + 4; compression only with --file-version 7.\n", help);
      return 2;
    }

  tmpdir = g_dir_make_tmp ("strata-gen-XXXXXX", &error);
  if (tmpdir == NULL)
    goto fail;

  if (head == NULL)
    {
      const char *args[] = { "trace-cmd", "restore", "-c", "-o", NULL, NULL };

      head = g_build_filename (tmpdir, "head.dat", NULL);
      args[4] = head;
      if (!run_tool (args, &error))
        goto fail;
    }

  handle = tracecmd_open_head (head, TRACECMD_FL_LOAD_NO_PLUGINS);
  if (handle == NULL)
    {
      g_set_error (&error, STRATA_GEN_ERROR, 0, "cannot read head %s", head);
      goto fail;
    }
  sim.tep = tracecmd_get_tep (handle);
  if (!load_layout (&sim.layout, handle, &error) ||
      !find_prev_states (&sim.layout, sim.tep, &error))
    {
      tracecmd_close (handle);
      goto fail;
    }

  sim.shape = shape;
  sim.rng.state = (guint64) seed;
  sim.n_cpus = n_cpus;
  sim.n_threads = n_threads;
  sim.n_events = n_events;
  sim_init (&sim);

  g_ptr_array_add (restore_argv, g_strdup ("trace-cmd"));
  g_ptr_array_add (restore_argv, g_strdup ("restore"));
  g_ptr_array_add (restore_argv, g_strdup ("-i"));
  g_ptr_array_add (restore_argv, g_strdup (head));
  g_ptr_array_add (restore_argv, g_strdup ("-o"));
  convert = file_version != 7 || !g_str_equal (compression, "none");
  restored = convert ? g_build_filename (tmpdir, "restored.dat", NULL) : g_strdup (output);
  g_ptr_array_add (restore_argv, g_strdup (restored));
  for (int i = 0; i < n_cpus; i++)
    {
      char *path = g_strdup_printf ("%s/cpu%d.raw", tmpdir, i);

      sim.cpus[i].pages.out = fopen (path, "wb");
      if (sim.cpus[i].pages.out == NULL)
        {
          g_set_error (&error, STRATA_GEN_ERROR, 0, "%s: %s", path, g_strerror (errno));
          g_free (path);
          tracecmd_close (handle);
          goto fail;
        }
      setvbuf (sim.cpus[i].pages.out, NULL, _IOFBF, 1 << 20);
      g_ptr_array_add (restore_argv, path);
    }
  g_ptr_array_add (restore_argv, NULL);

  t0 = g_get_monotonic_time ();
  if (!sim_run (&sim, &error))
    {
      tracecmd_close (handle);
      goto fail;
    }
  for (int i = 0; i < n_cpus; i++)
    {
      if (fclose (sim.cpus[i].pages.out) != 0)
        {
          sim.cpus[i].pages.out = NULL;
          g_set_error (&error, STRATA_GEN_ERROR, 0, "writing cpu%d.raw: %s", i, g_strerror (errno));
          tracecmd_close (handle);
          goto fail;
        }
      sim.cpus[i].pages.out = NULL;
    }
  tracecmd_close (handle);
  t1 = g_get_monotonic_time ();

  if (!run_tool ((const char * const *) restore_argv->pdata, &error))
    goto fail;
  if (convert)
    {
      g_autofree char *version = g_strdup_printf ("%d", file_version);
      const char *args[] = { "trace-cmd", "convert", "-i", restored, "-o", output,
                             "--file-version", version, "--compression", compression, NULL };

      if (!run_tool (args, &error))
        goto fail;
    }
  t2 = g_get_monotonic_time ();

  g_printerr ("strata-gen-trace: %s shape, %" G_GUINT64_FORMAT " events on %d CPUs, %u threads at the start, "
              "%" G_GUINT64_FORMAT " forked, %u live at the end, %.3f s of trace time, "
              "simulated in %.2f s (%.1f M events/s), wrapped in %.2f s -> %s\n",
              shape->name, sim.emitted, n_cpus, sim.n_initial, sim.n_forks, sim.n_live,
              (sim_last_ts (&sim) - sim.first_ts) / 1e9, (t1 - t0) / 1e6,
              sim.emitted / ((t1 - t0) / 1e6) / 1e6, (t2 - t1) / 1e6, output);

  sim_clear (&sim);
  if (!keep_temp)
    remove_tree (tmpdir);
  else
    g_printerr ("strata-gen-trace: kept %s\n", tmpdir);
  return 0;

fail:
  g_printerr ("strata-gen-trace: %s\n", error->message);
  if (sim.cpus != NULL)
    sim_clear (&sim);
  if (tmpdir != NULL && !keep_temp)
    remove_tree (tmpdir);
  return 1;
}
