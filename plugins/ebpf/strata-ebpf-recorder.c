/* strata-ebpf-recorder.c
 *
 * Loading, attaching, draining, writing. Each ring buffer (one per group
 * of CPUs) has a thread of its own: it sleeps until its drain period is
 * over or the BPF side forces a wakeup (a ring filled past a quarter),
 * takes everything out with ring_buffer__consume() (ring_buffer__poll
 * alone would wait for a wakeup that records submitted without one never
 * send), and hands the records to its drain, which cuts the ones safely
 * in the past into time-ordered blocks for the writer. Stopping detaches
 * the hooks first, so the last drain takes everything there will be, and
 * records what the BPF side counted as dropped but could not report.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gio/gio.h>

#include "strata-ebpf-drain.h"
#include "strata-ebpf-format.h"
#include "strata-ebpf-preflight.h"
#include "strata-ebpf-proc.h"
#include "strata-ebpf-recorder.h"
#include "strata-ebpf-skel.h"
#include "strata-ebpf-writer.h"

#define BTF_PATH            "/sys/kernel/btf/vmlinux"
/* What the bpf() syscall returns for an operation this kernel lacks
 * (include/linux/errno.h; not in the C library's errno.h). */
#define KERNEL_ENOTSUPP     524
#define DEFAULT_RING_SIZE   (16u << 20)
#define DEFAULT_CPUS_PER_RING 8
/* A record reaches the file a slack plus up to a period after its time.
 * A shorter period (--drain-period 20) writes 5 times as many blocks, and
 * a window following the file does work per block it reads: on a loaded
 * machine that work fell behind by seconds where 100 ms kept up
 * (bench/RESULTS-live.md). */
#define DEFAULT_DRAIN_MS    100
#define BLOCK_SIZE          (1u << 20)
/* A record's time is read a moment before it is reserved and committed:
 * a drain leaves the newest records this long for the next one, in case
 * an older one is still on its way. The moment is microseconds; the slack
 * is a drain period, at most 50 ms (50 ms at the default period). */
#define MAX_SLACK_NS        (50 * G_GINT64_CONSTANT (1000000))
/* A ring with nothing to say still writes an (empty) block this often, so
 * a reader following the file knows it has not fallen behind. */
#define EMPTY_BLOCK_NS      G_GINT64_CONSTANT (1000000000)

typedef struct
{
  gint32   tgid;
  gboolean reset;   /* it exec()ed: its old mappings are gone */
} MapsWanted;

typedef struct
{
  StrataEbpfRecorder *recorder;
  guint               index;
  guint               first_cpu;
  guint               n_cpus;
  int                 map_fd;
  int                 epoll_fd;
  struct ring_buffer *rb;
  StrataEbpfDrain    *drain;
  GThread            *thread;
  gint64              last_block;
  GArray             *maps_wanted;   /* MapsWanted, found while consuming */
  guint64             malformed;
} Ring;

struct _StrataEbpfRecorder
{
  GObject                  parent_instance;

  char                    *output;
  StrataRecordSets         sets;
  guint                    sample_freq;
  guint64                  buffer_size;
  guint                    cpus_per_ring;
  guint                    drain_ms;
  char                    *command_line;
  char                    *hooks_wanted;
  const char              *hooks;

  struct strata_ebpf_skel *skel;
  StrataEbpfWriter        *writer;
  Ring                    *rings;
  guint                    n_rings;
  guint                    n_cpus;
  guint64                  ring_size;
  GPtrArray               *perf_links;   /* struct bpf_link * */
  GArray                  *perf_fds;     /* int */
  int                      stop_fd;
  gint64                   start_ns;
  gint64                   stop_ns;
  gboolean                 running;
  gint                     stopping;     /* atomic */
  gint                     failed;       /* atomic */

  GMutex                   lock;         /* what follows */
  GError                  *error;        /* the first a ring thread met */
  GHashTable              *maps_read;    /* tgid -> 1: its mappings are in the file */

  guint64                  own_counts[STRATA_EBPF_N_RECORD_TYPES];  /* atomic */
  guint64                 *lost;         /* by CPU, at stop */
  guint64                  missed;       /* hook runs the kernel skipped, at stop */
};

G_DEFINE_FINAL_TYPE (StrataEbpfRecorder, strata_ebpf_recorder, G_TYPE_OBJECT)

static gint64
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static guint64
clock_ns (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* The three clocks read together: realtime and boottime between two
 * monotonic reads, monotonic taken as their middle. */
static void
snapshot_clocks (struct strata_ebpf_clocks *c)
{
  guint64 m0 = clock_ns (CLOCK_MONOTONIC);

  c->realtime = clock_ns (CLOCK_REALTIME);
  c->boottime = clock_ns (CLOCK_BOOTTIME);
  c->monotonic = m0 + (clock_ns (CLOCK_MONOTONIC) - m0) / 2;
}

/* ------------------------------------------------------------------ */
/* Sets and names.                                                      */

static const struct {
  const char       *name;
  StrataRecordSets  set;
} set_names[] = {
  { "sched", STRATA_RECORD_SCHED },
  { "irq", STRATA_RECORD_IRQ },
  { "syscalls", STRATA_RECORD_SYSCALLS },
  { "samples", STRATA_RECORD_SAMPLES },
};

gboolean
strata_record_sets_parse (const char        *list,
                          StrataRecordSets  *sets,
                          GError           **error)
{
  g_auto(GStrv) parts = g_strsplit (list, ",", -1);
  StrataRecordSets result = STRATA_RECORD_ALWAYS;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *p = g_strstrip (parts[i]);
      gboolean found = FALSE;

      if (*p == '\0')
        continue;
      for (guint j = 0; j < G_N_ELEMENTS (set_names); j++)
        if (g_str_equal (p, set_names[j].name))
          {
            result |= set_names[j].set;
            found = TRUE;
          }
      if (!found)
        {
          g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_INVALID,
                       "unknown event set “%s” (the sets are sched, irq, syscalls and samples)", p);
          return FALSE;
        }
    }

  *sets = result;
  return TRUE;
}

char *
strata_record_sets_to_string (StrataRecordSets sets)
{
  GString *s = g_string_new (NULL);

  for (guint j = 0; j < G_N_ELEMENTS (set_names); j++)
    if (sets & set_names[j].set)
      g_string_append_printf (s, "%s%s", s->len > 0 ? "," : "", set_names[j].name);

  return g_string_free (s, FALSE);
}

guint
strata_ebpf_record_n_types (void)
{
  return STRATA_EBPF_N_RECORD_TYPES;
}

const char *
strata_ebpf_record_type_name (guint type)
{
  static const char *names[STRATA_EBPF_N_RECORD_TYPES] = {
    [STRATA_EBPF_REC_TASK] = "task (thread names)",
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
    [STRATA_EBPF_REC_IRQ_NAME] = "irq names",
    [STRATA_EBPF_REC_SYS_ENTER] = "sys_enter",
    [STRATA_EBPF_REC_SYS_EXIT] = "sys_exit",
    [STRATA_EBPF_REC_LOST] = "lost (records)",
    [STRATA_EBPF_REC_SAMPLE] = "samples",
    [STRATA_EBPF_REC_MAP] = "mappings",
    [STRATA_EBPF_REC_MAPS_RESET] = "mapping resets",
  };

  return type < G_N_ELEMENTS (names) ? names[type] : NULL;
}

/* The programs of each set, by the tracepoint they hook (each has a
 * btf_ and a raw_ variant); the sampler is on its own. */
static const struct {
  const char       *tracepoint;
  StrataRecordSets  set;
} hook_table[] = {
  { "sched_switch", STRATA_RECORD_SCHED },
  { "sched_waking", STRATA_RECORD_SCHED },
  { "sched_wakeup_new", STRATA_RECORD_SCHED },
  { "sched_process_fork", STRATA_RECORD_SCHED },
  { "sched_process_exec", STRATA_RECORD_SCHED },
  { "sched_process_exit", STRATA_RECORD_SCHED },
  { "task_rename", STRATA_RECORD_SCHED },
  { "irq_handler_entry", STRATA_RECORD_IRQ },
  { "irq_handler_exit", STRATA_RECORD_IRQ },
  { "softirq_entry", STRATA_RECORD_IRQ },
  { "softirq_exit", STRATA_RECORD_IRQ },
  { "sys_enter", STRATA_RECORD_SYSCALLS },
  { "sys_exit", STRATA_RECORD_SYSCALLS },
};

/* ------------------------------------------------------------------ */
/* Errors.                                                              */

/* libbpf says what went wrong (the verifier's log among it) through its
 * print callback: kept while loading, to quote from on failure. */
static GMutex load_log_lock;
static GString *load_log;

static int G_GNUC_PRINTF (2, 0)
capture_libbpf (enum libbpf_print_level  level,
                const char              *format,
                va_list                  args)
{
  if (load_log != NULL)
    g_string_append_vprintf (load_log, format, args);
  return 0;
}

static void
set_error_from_errno (GError     **error,
                      int          err,
                      const char  *doing)
{
  if (err == EPERM || err == EACCES)
    g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_PERMISSION,
                 "%s: %s: recording needs root, or the capabilities CAP_BPF and CAP_PERFMON "
                 "(and, in a container, one allowed to use them)", doing, g_strerror (err));
  else if (err == EOPNOTSUPP || err == KERNEL_ENOTSUPP || err == EINVAL || err == ENOENT)
    g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_UNSUPPORTED,
                 "%s: %s: this kernel lacks what the recorder needs (5.8 or later, with BTF "
                 "and BPF ring buffers)", doing, g_strerror (err));
  else
    g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_FAILED,
                 "%s: %s", doing, g_strerror (err));
}

/* A write error from the writer, made into one the user can act on. */
static GError *
output_error (StrataEbpfRecorder *self,
              const GError       *io)
{
  if (g_error_matches (io, G_IO_ERROR, G_IO_ERROR_NO_SPACE))
    return g_error_new (STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_DISK_FULL,
                        "the disk is full: %s. The recording stopped there, and the file "
                        "holds everything up to that offset; free some space, or record to "
                        "another disk with -o", io->message);
  return g_error_new (STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_OUTPUT,
                      "writing the recording failed: %s", io->message);
}

static void
fail (StrataEbpfRecorder *self,
      GError             *error)
{
  g_mutex_lock (&self->lock);
  if (self->error == NULL)
    self->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&self->lock);
  g_atomic_int_set (&self->failed, 1);
}

/* ------------------------------------------------------------------ */
/* The rings' threads.                                                  */

static gboolean
write_ring_block (const guint8  *records,
                  gsize          size,
                  guint32        n_records,
                  guint64        horizon,
                  gpointer       user_data,
                  GError       **error)
{
  Ring *ring = user_data;

  ring->last_block = monotonic_ns ();
  return strata_ebpf_writer_write_block (ring->recorder->writer, ring->index, records, size,
                                         n_records, horizon, error);
}

static gboolean
write_own_block (StrataEbpfRecorder  *self,
                 GByteArray          *records,
                 GError             **error)
{
  guint32 n = 0;

  if (records->len == 0)
    return TRUE;

  for (gsize at = 0; at < records->len;)
    {
      guint8 type = records->data[at + G_STRUCT_OFFSET (struct strata_ebpf_record, type)];

      __atomic_fetch_add (&self->own_counts[type], 1, __ATOMIC_RELAXED);
      at += (gsize) records->data[at + G_STRUCT_OFFSET (struct strata_ebpf_record, size8)] * 8;
      n++;
    }

  return strata_ebpf_writer_write_block (self->writer, STRATA_EBPF_RING_RECORDER,
                                         records->data, records->len, n, 0, error);
}

static int
on_ring_record (void   *ctx,
                void   *data,
                size_t  size)
{
  Ring *ring = ctx;
  const struct strata_ebpf_record *h = data;

  if (!strata_ebpf_drain_add (ring->drain, data, size))
    {
      ring->malformed++;
      return 0;
    }

  /* With samples, a new process's mappings are read while it lives. */
  if (ring->recorder->sets & STRATA_RECORD_SAMPLES)
    {
      MapsWanted w = { 0, FALSE };

      if (h->type == STRATA_EBPF_REC_TASK)
        w.tgid = ((const struct strata_ebpf_task *) data)->tgid;
      else if (h->type == STRATA_EBPF_REC_FORK)
        w.tgid = ((const struct strata_ebpf_fork *) data)->child_tgid;
      else if (h->type == STRATA_EBPF_REC_EXEC)
        {
          w.tgid = ((const struct strata_ebpf_exec *) data)->tgid;
          w.reset = TRUE;
        }
      if (w.tgid > 0)
        g_array_append_val (ring->maps_wanted, w);
    }

  return 0;
}

/* Reads the mappings of the processes met in the last consume that are
 * not in the file yet. */
static gboolean
read_wanted_maps (Ring    *ring,
                  GError **error)
{
  StrataEbpfRecorder *self = ring->recorder;
  g_autoptr(GByteArray) records = NULL;
  guint64 ts;

  if (ring->maps_wanted->len == 0)
    return TRUE;

  records = g_byte_array_new ();
  ts = monotonic_ns ();
  for (guint i = 0; i < ring->maps_wanted->len; i++)
    {
      MapsWanted *w = &g_array_index (ring->maps_wanted, MapsWanted, i);
      gboolean want;

      g_mutex_lock (&self->lock);
      want = w->reset || !g_hash_table_contains (self->maps_read, GINT_TO_POINTER (w->tgid));
      if (want)
        g_hash_table_add (self->maps_read, GINT_TO_POINTER (w->tgid));
      g_mutex_unlock (&self->lock);

      if (!want)
        continue;
      if (w->reset)
        strata_ebpf_proc_add_marker (records, STRATA_EBPF_REC_MAPS_RESET, w->tgid, ts);
      strata_ebpf_proc_read_maps (records, w->tgid, ts);
    }
  g_array_set_size (ring->maps_wanted, 0);

  return write_own_block (self, records, error);
}

/* What the BPF side counted per CPU: a percpu array's one element. */
static gboolean
read_cpu_states (StrataEbpfRecorder *self,
                 guint64            *dropped,
                 guint64            *reported,
                 guint64            *first_ts)
{
  /* Each CPU's value, 8-byte aligned: three counters first (the rest is
   * the programs' own cache). */
  gsize stride = (bpf_map__value_size (self->skel->maps.cpu_states) + 7) & ~(gsize) 7;
  g_autofree guint8 *values = g_malloc0 (stride * self->n_cpus);
  guint32 zero = 0;
  gboolean ok;

  ok = bpf_map_lookup_elem (bpf_map__fd (self->skel->maps.cpu_states), &zero, values) == 0;
  for (guint i = 0; ok && i < self->n_cpus; i++)
    {
      guint64 v[3];

      memcpy (v, values + i * stride, sizeof v);
      dropped[i] = v[0];
      if (reported != NULL)
        reported[i] = v[1];
      if (first_ts != NULL)
        first_ts[i] = v[2];
    }

  return ok;
}

/* The drops this ring's CPUs could not report themselves, as LOST
 * records at the end. */
static void
add_final_lost (Ring    *ring,
                guint64  ts)
{
  StrataEbpfRecorder *self = ring->recorder;
  g_autofree guint64 *dropped = g_new0 (guint64, self->n_cpus);
  g_autofree guint64 *reported = g_new0 (guint64, self->n_cpus);
  g_autofree guint64 *first = g_new0 (guint64, self->n_cpus);

  if (!read_cpu_states (self, dropped, reported, first))
    return;

  for (guint cpu = ring->first_cpu; cpu < ring->first_cpu + ring->n_cpus; cpu++)
    {
      struct strata_ebpf_lost l;

      self->lost[cpu] = dropped[cpu];
      if (dropped[cpu] <= reported[cpu])
        continue;
      memset (&l, 0, sizeof l);
      l.h.ts = GUINT64_TO_LE (ts);
      l.h.pid = GINT32_TO_LE (-1);
      l.h.cpu = GUINT16_TO_LE (cpu);
      l.h.type = STRATA_EBPF_REC_LOST;
      l.h.size8 = sizeof l / 8;
      l.count = GUINT64_TO_LE (dropped[cpu] - reported[cpu]);
      l.first_ts = GUINT64_TO_LE (first[cpu]);
      strata_ebpf_drain_add (ring->drain, &l, sizeof l);
    }
}

static gpointer
ring_thread (gpointer data)
{
  Ring *ring = data;
  StrataEbpfRecorder *self = ring->recorder;
  gint64 period = self->drain_ms * G_GINT64_CONSTANT (1000000);
  gint64 slack = MIN (period, MAX_SLACK_NS);
  gint64 deadline = monotonic_ns () + period;
  GError *error = NULL;
  gboolean ok = TRUE;

  ring->last_block = monotonic_ns ();

  while (ok)
    {
      struct epoll_event events[2];
      gint64 now = monotonic_ns ();
      int timeout = now < deadline ? (int) ((deadline - now + 999999) / 1000000) : 0;
      gboolean stopping;

      if (epoll_wait (ring->epoll_fd, events, G_N_ELEMENTS (events), timeout) < 0 && errno != EINTR)
        break;

      stopping = g_atomic_int_get (&self->stopping);
      /* Whatever was committed before this moment is taken now. */
      now = monotonic_ns ();
      if (ring_buffer__consume (ring->rb) < 0)
        {
          fail (self, g_error_new (STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_FAILED,
                                   "reading ring buffer %u failed", ring->index));
          break;
        }
      if (stopping)
        break;
      ok = read_wanted_maps (ring, &error);

      if (ok && now >= deadline)
        {
          gboolean empty = now - ring->last_block >= EMPTY_BLOCK_NS;

          ok = strata_ebpf_drain_cut (ring->drain, (guint64) (now - slack), empty,
                                      write_ring_block, ring, &error);
          deadline = now + period;
        }
    }

  /* The hooks are detached: what is in the ring now is all there is. */
  if (ok && g_atomic_int_get (&self->stopping))
    {
      gint64 now;

      ring_buffer__consume (ring->rb);
      now = monotonic_ns ();
      add_final_lost (ring, now);
      ok = read_wanted_maps (ring, &error) &&
           strata_ebpf_drain_cut (ring->drain, G_MAXUINT64, FALSE, write_ring_block, ring, &error);
    }

  if (error != NULL)
    fail (self, output_error (self, error));
  g_clear_error (&error);

  return NULL;
}

/* ------------------------------------------------------------------ */
/* Starting.                                                            */

/* Where per-CPU variable @name lies in .data..percpu (its offset from
 * the section's start, which the kernel's BTF states), plus the offset
 * of its member @member when that is not NULL. */
static gboolean
percpu_offset (const struct btf *vmlinux,
               const char       *name,
               const char       *member,
               gint64           *offset)
{
  __s32 sec = btf__find_by_name_kind (vmlinux, ".data..percpu", BTF_KIND_DATASEC);
  const struct btf_type *t;
  const struct btf_var_secinfo *vs;

  if (sec <= 0)
    return FALSE;
  t = btf__type_by_id (vmlinux, sec);
  vs = btf_var_secinfos (t);
  for (guint i = 0; i < btf_vlen (t); i++, vs++)
    {
      const struct btf_type *var = btf__type_by_id (vmlinux, vs->type);
      const struct btf_type *type;
      const struct btf_member *m;

      if (var == NULL || !g_str_equal (btf__name_by_offset (vmlinux, var->name_off), name))
        continue;
      *offset = vs->offset;
      if (member == NULL)
        return TRUE;
      type = btf__type_by_id (vmlinux, var->type);
      while (type != NULL && (btf_is_typedef (type) || btf_is_mod (type)))
        type = btf__type_by_id (vmlinux, type->type);
      if (type == NULL || !btf_is_struct (type))
        return FALSE;
      m = btf_members (type);
      for (guint j = 0; j < btf_vlen (type); j++, m++)
        if (g_str_equal (btf__name_by_offset (vmlinux, m->name_off), member))
          {
            *offset += btf_member_bit_offset (type, j) / 8;
            return TRUE;
          }
      return FALSE;
    }

  return FALSE;
}

/* The distance from a CPU's runqueue to its preempt_count, both per-CPU
 * variables (strata-ebpf-record.bpf.c says why the programs want it):
 * x86's __preempt_count (before 6.2 and from 6.15) or pcpu_hot's
 * preempt_count (6.2 to 6.14). Other architectures keep the count in
 * the thread, where this finds neither. */
static gboolean
preempt_count_from_rq (const struct btf *vmlinux,
                       gint64           *distance)
{
  gint64 rq, count;

  if (!percpu_offset (vmlinux, "runqueues", NULL, &rq))
    return FALSE;
  if (!percpu_offset (vmlinux, "__preempt_count", NULL, &count) &&
      !percpu_offset (vmlinux, "pcpu_hot", "preempt_count", &count))
    return FALSE;
  *distance = count - rq;
  return TRUE;
}

/* tp_btf where the kernel's BTF describes sched_switch's tracepoint,
 * whether that passes prev_state (5.18 and later), and where the
 * programs find the CPU's preempt_count (@has_preempt_count FALSE where
 * they do not). */
static void
probe_kernel (gboolean *has_btf_tp,
              gboolean *has_state_arg,
              gboolean *has_preempt_count,
              gint64   *preempt_count_distance)
{
  struct btf *vmlinux = btf__load_vmlinux_btf ();
  const struct btf_type *t;
  __s32 id;

  *has_btf_tp = FALSE;
  *has_state_arg = FALSE;
  *has_preempt_count = FALSE;
  *preempt_count_distance = 0;
  if (vmlinux == NULL)
    return;

  *has_preempt_count = preempt_count_from_rq (vmlinux, preempt_count_distance);

  id = btf__find_by_name_kind (vmlinux, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
  if (id > 0)
    {
      *has_btf_tp = TRUE;
      t = btf__type_by_id (vmlinux, id);
      while (t != NULL && (btf_is_typedef (t) || btf_is_ptr (t)))
        t = btf__type_by_id (vmlinux, t->type);
      /* void *, bool preempt, prev, next[, prev_state] */
      if (t != NULL && btf_is_func_proto (t))
        *has_state_arg = btf_vlen (t) >= 5;
    }

  btf__free (vmlinux);
}

static guint64
round_ring_size (guint64 bytes)
{
  guint64 page = sysconf (_SC_PAGESIZE);
  guint64 size = MAX (bytes, page);
  guint64 p = 1;

  while (p < size && p < (G_GUINT64_CONSTANT (1) << 40))
    p <<= 1;
  return p;
}

static gboolean
create_rings (StrataEbpfRecorder  *self,
              GError             **error)
{
  self->rings = g_new0 (Ring, self->n_rings);
  for (guint r = 0; r < self->n_rings; r++)
    {
      Ring *ring = &self->rings[r];
      struct epoll_event ev = { 0 };

      ring->recorder = self;
      ring->index = r;
      ring->first_cpu = r * self->cpus_per_ring;
      ring->n_cpus = MIN (self->cpus_per_ring, self->n_cpus - ring->first_cpu);
      ring->epoll_fd = -1;
      ring->drain = strata_ebpf_drain_new (BLOCK_SIZE);
      ring->maps_wanted = g_array_new (FALSE, FALSE, sizeof (MapsWanted));
      ring->map_fd = bpf_map_create (BPF_MAP_TYPE_RINGBUF, "strata_ring", 0, 0, self->ring_size, NULL);
      if (ring->map_fd < 0)
        {
          set_error_from_errno (error, errno, "creating a ring buffer");
          return FALSE;
        }
      ring->rb = ring_buffer__new (ring->map_fd, on_ring_record, ring, NULL);
      if (ring->rb == NULL)
        {
          set_error_from_errno (error, errno, "mapping a ring buffer");
          return FALSE;
        }

      /* The ring's wakeups, edge-triggered (its fd stays readable while
       * it holds anything), and the stop signal. */
      ring->epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
      ev.events = EPOLLIN | EPOLLET;
      ev.data.u32 = 0;
      if (ring->epoll_fd < 0 ||
          epoll_ctl (ring->epoll_fd, EPOLL_CTL_ADD, ring_buffer__epoll_fd (ring->rb), &ev) != 0)
        {
          set_error_from_errno (error, errno, "watching a ring buffer");
          return FALSE;
        }
      ev.events = EPOLLIN;
      ev.data.u32 = 1;
      if (epoll_ctl (ring->epoll_fd, EPOLL_CTL_ADD, self->stop_fd, &ev) != 0)
        {
          set_error_from_errno (error, errno, "watching a ring buffer");
          return FALSE;
        }
    }

  return TRUE;
}

/* The rings into the outer map the programs pick theirs from. */
static gboolean
install_rings (StrataEbpfRecorder  *self,
               GError             **error)
{
  int outer = bpf_map__fd (self->skel->maps.rings);

  for (guint r = 0; r < self->n_rings; r++)
    if (bpf_map_update_elem (outer, &r, &self->rings[r].map_fd, BPF_ANY) != 0)
      {
        set_error_from_errno (error, errno, "installing a ring buffer");
        return FALSE;
      }

  return TRUE;
}

static gboolean
load_programs (StrataEbpfRecorder  *self,
               GError             **error)
{
  struct bpf_program *prog;
  libbpf_print_fn_t previous;
  gboolean btf_tp, state_arg, preempt_count;
  gint64 preempt_count_distance;
  int err;

  probe_kernel (&btf_tp, &state_arg, &preempt_count, &preempt_count_distance);
  if (self->hooks_wanted != NULL && g_str_equal (self->hooks_wanted, "tp_btf") && !btf_tp)
    {
      g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_UNSUPPORTED,
                   "this kernel has no tp_btf hooks for the scheduler's tracepoints");
      return FALSE;
    }
  self->hooks = (self->hooks_wanted != NULL ? g_str_equal (self->hooks_wanted, "raw_tp") : !btf_tp)
                ? "raw_tp" : "tp_btf";

  self->skel = strata_ebpf_skel__open ();
  if (self->skel == NULL)
    {
      set_error_from_errno (error, errno, "opening the BPF programs");
      return FALSE;
    }

  self->skel->rodata->recorder_tgid = getpid ();
  self->skel->rodata->cpus_per_ring = self->cpus_per_ring;
  self->skel->rodata->wakeup_bytes = self->ring_size / 4;
  self->skel->rodata->switch_has_state_arg = state_arg;
  self->skel->rodata->preempt_count_known = preempt_count;
  self->skel->rodata->preempt_count_from_rq = preempt_count_distance;

  bpf_object__for_each_program (prog, self->skel->obj)
    {
      const char *name = bpf_program__name (prog);
      gboolean load = FALSE;

      if (g_str_equal (name, "on_sample"))
        load = (self->sets & STRATA_RECORD_SAMPLES) != 0;
      else if (g_str_has_prefix (name, g_str_equal (self->hooks, "tp_btf") ? "btf_" : "raw_"))
        for (guint i = 0; i < G_N_ELEMENTS (hook_table); i++)
          if (g_str_equal (name + 4, hook_table[i].tracepoint))
            load = (self->sets & hook_table[i].set) != 0;
      bpf_program__set_autoload (prog, load);
    }

  /* The rings are made before loading: the first stands as the model
   * of the outer map's values (its size is theirs). */
  bpf_map__set_max_entries (self->skel->maps.rings, self->n_rings);
  if (!create_rings (self, error))
    return FALSE;
  bpf_map__set_inner_map_fd (self->skel->maps.rings, self->rings[0].map_fd);

  g_mutex_lock (&load_log_lock);
  load_log = g_string_new (NULL);
  previous = libbpf_set_print (capture_libbpf);
  err = strata_ebpf_skel__load (self->skel);
  libbpf_set_print (previous);

  if (err != 0)
    {
      g_autofree char *excerpt = strata_ebpf_describe_verifier_log (load_log->str);

      if (excerpt != NULL)
        g_set_error_literal (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_VERIFIER, excerpt);
      else
        set_error_from_errno (error, -err, "loading the BPF programs");
    }
  g_string_free (g_steal_pointer (&load_log), TRUE);
  g_mutex_unlock (&load_log_lock);

  return err == 0;
}

/* Where the kernel's text is (it moves at every boot, KASLR), so its
 * addresses can be named after a reboot: _text in /proc/kallsyms, 0 when
 * the addresses are hidden (kptr_restrict) or the file is not there. */
static guint64
kernel_text (void)
{
  g_autofree char *line = NULL;
  size_t size = 0;
  guint64 address = 0;
  FILE *f = fopen ("/proc/kallsyms", "re");

  if (f == NULL)
    return 0;
  while (getline (&line, &size, f) > 0)
    {
      unsigned long long a;
      char type;
      char name[64];

      if (sscanf (line, "%llx %c %63s", &a, &type, name) == 3 && strcmp (name, "_text") == 0)
        {
          address = a;
          break;
        }
    }
  fclose (f);
  return address;
}

static gboolean
write_header (StrataEbpfRecorder  *self,
              GError             **error)
{
  StrataEbpfHeader header = { 0 };
  g_autofree char *sets = strata_record_sets_to_string (self->sets);
  struct utsname u;
  gboolean ok;

  if (uname (&u) == 0)
    {
      header.kernel_release = g_strdup (u.release);
      header.hostname = g_strdup (u.nodename);
    }
  header.n_cpus = self->n_cpus;
  header.command_line = g_strdup (self->command_line);
  header.event_sets = g_strdup (sets);
  header.hooks = g_strdup (self->hooks);
  header.rings.n_rings = self->n_rings;
  header.rings.cpus_per_ring = self->cpus_per_ring;
  header.rings.ring_size = self->ring_size;
  snapshot_clocks (&header.clocks);
  header.sample_freq = (self->sets & STRATA_RECORD_SAMPLES) ? self->sample_freq : 0;
  header.recorder_pid = getpid ();
  header.kernel_text = kernel_text ();

  ok = strata_ebpf_writer_write_header (self->writer, &header, error);
  strata_ebpf_header_clear (&header);

  return ok;
}

/* Every thread there is now, named, before a hook runs; with samples,
 * every process's mappings. */
static gboolean
write_existing (StrataEbpfRecorder  *self,
                GError             **error)
{
  g_autoptr(GByteArray) records = g_byte_array_new ();
  g_autoptr(GArray) tgids = g_array_new (FALSE, FALSE, sizeof (gint32));
  guint64 ts = monotonic_ns ();

  strata_ebpf_proc_walk_threads (records, ts, tgids);
  if (self->sets & STRATA_RECORD_SAMPLES)
    for (guint i = 0; i < tgids->len; i++)
      {
        gint32 tgid = g_array_index (tgids, gint32, i);

        if (strata_ebpf_proc_read_maps (records, tgid, ts) > 0)
          g_hash_table_add (self->maps_read, GINT_TO_POINTER (tgid));
      }

  return write_own_block (self, records, error);
}

static gboolean
attach_sampler (StrataEbpfRecorder  *self,
                GError             **error)
{
  for (guint cpu = 0; cpu < self->n_cpus; cpu++)
    {
      struct perf_event_attr attr = { 0 };
      struct bpf_link *link;
      int fd;

      attr.type = PERF_TYPE_SOFTWARE;
      attr.size = sizeof attr;
      attr.config = PERF_COUNT_SW_CPU_CLOCK;
      attr.sample_freq = self->sample_freq;
      attr.freq = 1;

      fd = syscall (__NR_perf_event_open, &attr, -1, (int) cpu, -1, PERF_FLAG_FD_CLOEXEC);
      if (fd < 0 && (errno == ENODEV || errno == ENOENT))
        continue;  /* an offline CPU */
      if (fd < 0 && errno == EINVAL)
        {
          g_autofree char *max = NULL;

          g_file_get_contents ("/proc/sys/kernel/perf_event_max_sample_rate", &max, NULL, NULL);
          g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_INVALID,
                       "the kernel refuses %u samples per second (kernel.perf_event_max_sample_rate "
                       "is %s): ask for fewer with --freq", self->sample_freq,
                       max != NULL ? g_strstrip (max) : "lower");
          return FALSE;
        }
      if (fd < 0)
        {
          set_error_from_errno (error, errno, "opening the CPU sampler");
          return FALSE;
        }
      g_array_append_val (self->perf_fds, fd);

      link = bpf_program__attach_perf_event (self->skel->progs.on_sample, fd);
      if (link == NULL)
        {
          set_error_from_errno (error, errno, "attaching the CPU sampler");
          return FALSE;
        }
      g_ptr_array_add (self->perf_links, link);
    }

  return TRUE;
}

static void
detach (StrataEbpfRecorder *self)
{
  /* Everywhere at once again, before the hooks go one by one. */
  if (self->skel != NULL && self->skel->bss != NULL)
    __atomic_store_n (&self->skel->bss->recording, false, __ATOMIC_SEQ_CST);
  if (self->skel != NULL)
    strata_ebpf_skel__detach (self->skel);
  if (self->perf_links != NULL)
    g_ptr_array_set_size (self->perf_links, 0);
  for (guint i = 0; self->perf_fds != NULL && i < self->perf_fds->len; i++)
    close (g_array_index (self->perf_fds, int, i));
  if (self->perf_fds != NULL)
    g_array_set_size (self->perf_fds, 0);
}

static void
stop_threads (StrataEbpfRecorder *self)
{
  guint64 one = 1;

  g_atomic_int_set (&self->stopping, 1);
  if (self->stop_fd >= 0 && write (self->stop_fd, &one, sizeof one) != sizeof one)
    { /* the threads still see the flag at their next period */ }
  for (guint r = 0; self->rings != NULL && r < self->n_rings; r++)
    g_clear_pointer (&self->rings[r].thread, g_thread_join);
}

/**
 * strata_ebpf_recorder_start:
 *
 * Checks that recording can work here, loads the programs, writes the
 * file's header and the threads that exist, starts draining and attaches
 * the hooks. When it returns TRUE the recording is running.
 */
gboolean
strata_ebpf_recorder_start (StrataEbpfRecorder  *self,
                            GError             **error)
{
  GError *local = NULL;
  int n;

  g_return_val_if_fail (STRATA_IS_EBPF_RECORDER (self), FALSE);
  g_return_val_if_fail (self->skel == NULL, FALSE);

  if ((self->sets & STRATA_RECORD_SAMPLES) && self->sample_freq == 0)
    self->sample_freq = 99;
  if (self->cpus_per_ring == 0)
    {
      g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_INVALID,
                   "a ring buffer needs at least one CPU");
      return FALSE;
    }

  if (!strata_ebpf_preflight_privileges (error) ||
      !strata_ebpf_preflight_btf (BTF_PATH, error) ||
      !strata_ebpf_preflight_output (self->output, error))
    return FALSE;

  n = libbpf_num_possible_cpus ();
  if (n <= 0 || n > 65535)
    {
      g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_FAILED,
                   "cannot count this machine's CPUs");
      return FALSE;
    }
  self->n_cpus = n;
  self->n_rings = (self->n_cpus + self->cpus_per_ring - 1) / self->cpus_per_ring;
  self->ring_size = round_ring_size (self->buffer_size);
  self->lost = g_new0 (guint64, self->n_cpus);

  self->stop_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (self->stop_fd < 0)
    {
      set_error_from_errno (error, errno, "starting");
      return FALSE;
    }

  if (!load_programs (self, error) || !install_rings (self, error))
    return FALSE;

  self->writer = strata_ebpf_writer_new (self->output, &local);
  if (self->writer == NULL)
    {
      g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_OUTPUT,
                   "%s; choose another file with -o", local->message);
      g_error_free (local);
      return FALSE;
    }
  if (!write_header (self, &local) || !write_existing (self, &local))
    {
      g_propagate_error (error, output_error (self, local));
      g_error_free (local);
      return FALSE;
    }

  for (guint r = 0; r < self->n_rings; r++)
    {
      g_autofree char *name = g_strdup_printf ("strata-ring-%u", r);

      self->rings[r].thread = g_thread_new (name, ring_thread, &self->rings[r]);
    }

  if (strata_ebpf_skel__attach (self->skel) != 0)
    {
      set_error_from_errno (error, errno, "attaching to the kernel's tracepoints");
      detach (self);
      stop_threads (self);
      return FALSE;
    }
  if ((self->sets & STRATA_RECORD_SAMPLES) && !attach_sampler (self, error))
    {
      detach (self);
      stop_threads (self);
      return FALSE;
    }

  /* Every hook in: the recording starts now, everywhere at once. */
  __atomic_store_n (&self->skel->bss->recording, true, __ATOMIC_SEQ_CST);
  self->start_ns = monotonic_ns ();
  self->running = TRUE;

  return TRUE;
}

void
strata_ebpf_recorder_get_status (StrataEbpfRecorder *self,
                                 StrataRecordStatus *status)
{
  g_return_if_fail (STRATA_IS_EBPF_RECORDER (self));

  memset (status, 0, sizeof *status);
  status->running = self->running;
  status->failed = g_atomic_int_get (&self->failed) != 0;
  if (self->start_ns == 0)
    return;

  status->elapsed_ns = (self->running ? monotonic_ns () : self->stop_ns) - self->start_ns;
  for (guint t = 0; t < STRATA_EBPF_N_RECORD_TYPES; t++)
    status->records += strata_ebpf_recorder_get_count (self, t);
  for (guint r = 0; r < self->n_rings; r++)
    {
      status->records += strata_ebpf_drain_get_pending (self->rings[r].drain);
      status->late += strata_ebpf_drain_get_late (self->rings[r].drain);
    }
  if (self->running)
    {
      g_autofree guint64 *dropped = g_new0 (guint64, self->n_cpus);

      if (read_cpu_states (self, dropped, NULL, NULL))
        for (guint i = 0; i < self->n_cpus; i++)
          status->lost += dropped[i];
    }
  else
    for (guint i = 0; i < self->n_cpus; i++)
      status->lost += self->lost[i];
  status->bytes = self->writer != NULL ? strata_ebpf_writer_get_size (self->writer) : 0;
}

/**
 * strata_ebpf_recorder_stop:
 *
 * Ends the recording: nothing is lost that the rings hold, and the file
 * gets its footer. Returns FALSE with the error that stopped a recording
 * early (a full disk) or that the last writes met; the file then holds
 * what was written before it.
 */
gboolean
strata_ebpf_recorder_stop (StrataEbpfRecorder  *self,
                           GError             **error)
{
  struct strata_ebpf_clocks stop;
  guint64 counts[STRATA_EBPF_N_RECORD_TYPES];
  GError *local = NULL;

  g_return_val_if_fail (STRATA_IS_EBPF_RECORDER (self), FALSE);

  if (!self->running)
    return TRUE;

  strata_ebpf_recorder_get_missed (self, NULL);
  detach (self);
  stop_threads (self);
  self->running = FALSE;
  self->stop_ns = monotonic_ns ();
  snapshot_clocks (&stop);

  if (self->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->error));
      return FALSE;
    }

  for (guint t = 0; t < STRATA_EBPF_N_RECORD_TYPES; t++)
    counts[t] = strata_ebpf_recorder_get_count (self, t);
  if (!strata_ebpf_writer_finish (self->writer, &stop, self->lost, self->n_cpus, counts, &local))
    {
      g_propagate_error (error, output_error (self, local));
      g_error_free (local);
      return FALSE;
    }

  return TRUE;
}

/**
 * strata_ebpf_recorder_get_missed:
 * @malformed: (out) (optional): records the consumer could not take
 *
 * Returns: times the kernel skipped a hook because one of the same
 *   program was already running on that CPU (the programs'
 *   recursion_misses)
 */
guint64
strata_ebpf_recorder_get_missed (StrataEbpfRecorder *self,
                                 guint64            *malformed)
{
  struct bpf_program *prog;
  guint64 missed = 0;

  g_return_val_if_fail (STRATA_IS_EBPF_RECORDER (self), 0);

  if (malformed != NULL)
    {
      *malformed = 0;
      for (guint r = 0; self->rings != NULL && r < self->n_rings; r++)
        *malformed += self->rings[r].malformed;
    }
  if (self->skel == NULL)
    return self->missed;

  bpf_object__for_each_program (prog, self->skel->obj)
    {
      struct bpf_prog_info info;
      __u32 len = sizeof info;
      int fd = bpf_program__fd (prog);

      memset (&info, 0, sizeof info);
      if (fd >= 0 && bpf_obj_get_info_by_fd (fd, &info, &len) == 0)
        missed += info.recursion_misses;
    }
  self->missed = MAX (self->missed, missed);
  return self->missed;
}

const char *
strata_ebpf_recorder_get_hooks (StrataEbpfRecorder *self)
{
  g_return_val_if_fail (STRATA_IS_EBPF_RECORDER (self), NULL);
  return self->hooks;
}

guint
strata_ebpf_recorder_get_n_cpus (StrataEbpfRecorder *self)
{
  g_return_val_if_fail (STRATA_IS_EBPF_RECORDER (self), 0);
  return self->n_cpus;
}

guint64
strata_ebpf_recorder_get_lost (StrataEbpfRecorder *self,
                               guint               cpu)
{
  g_return_val_if_fail (STRATA_IS_EBPF_RECORDER (self), 0);
  return cpu < self->n_cpus && self->lost != NULL ? self->lost[cpu] : 0;
}

guint64
strata_ebpf_recorder_get_count (StrataEbpfRecorder *self,
                                guint               type)
{
  guint64 n;

  g_return_val_if_fail (STRATA_IS_EBPF_RECORDER (self), 0);
  g_return_val_if_fail (type < STRATA_EBPF_N_RECORD_TYPES, 0);

  n = __atomic_load_n (&self->own_counts[type], __ATOMIC_RELAXED);
  for (guint r = 0; r < self->n_rings; r++)
    if (self->rings[r].drain != NULL)
      n += strata_ebpf_drain_get_count (self->rings[r].drain, type);
  return n;
}

/* ------------------------------------------------------------------ */
/* The object.                                                          */

static void
strata_ebpf_recorder_finalize (GObject *object)
{
  StrataEbpfRecorder *self = (StrataEbpfRecorder *) object;

  if (self->running)
    strata_ebpf_recorder_stop (self, NULL);
  detach (self);
  stop_threads (self);

  for (guint r = 0; self->rings != NULL && r < self->n_rings; r++)
    {
      Ring *ring = &self->rings[r];

      g_clear_pointer (&ring->rb, ring_buffer__free);
      if (ring->map_fd > 0)
        close (ring->map_fd);
      if (ring->epoll_fd >= 0)
        close (ring->epoll_fd);
      strata_ebpf_drain_free (ring->drain);
      g_clear_pointer (&ring->maps_wanted, g_array_unref);
    }
  g_free (self->rings);
  g_clear_pointer (&self->skel, strata_ebpf_skel__destroy);
  g_clear_pointer (&self->writer, strata_ebpf_writer_free);
  g_clear_pointer (&self->perf_links, g_ptr_array_unref);
  g_clear_pointer (&self->perf_fds, g_array_unref);
  if (self->stop_fd >= 0)
    close (self->stop_fd);
  g_clear_error (&self->error);
  g_clear_pointer (&self->maps_read, g_hash_table_unref);
  g_free (self->lost);
  g_free (self->output);
  g_free (self->command_line);
  g_free (self->hooks_wanted);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (strata_ebpf_recorder_parent_class)->finalize (object);
}

static void
strata_ebpf_recorder_class_init (StrataEbpfRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = strata_ebpf_recorder_finalize;
}

static void
strata_ebpf_recorder_init (StrataEbpfRecorder *self)
{
  g_mutex_init (&self->lock);
  self->sets = STRATA_RECORD_ALWAYS;
  self->buffer_size = DEFAULT_RING_SIZE;
  self->cpus_per_ring = DEFAULT_CPUS_PER_RING;
  self->drain_ms = DEFAULT_DRAIN_MS;
  self->stop_fd = -1;
  self->maps_read = g_hash_table_new (NULL, NULL);
  self->perf_links = g_ptr_array_new_with_free_func ((GDestroyNotify) bpf_link__destroy);
  self->perf_fds = g_array_new (FALSE, FALSE, sizeof (int));
}

StrataEbpfRecorder *
strata_ebpf_recorder_new (const char *output)
{
  StrataEbpfRecorder *self;

  g_return_val_if_fail (output != NULL, NULL);

  self = g_object_new (STRATA_TYPE_EBPF_RECORDER, NULL);
  self->output = g_strdup (output);
  return self;
}

void
strata_ebpf_recorder_set_sets (StrataEbpfRecorder *self,
                               StrataRecordSets    sets)
{
  g_return_if_fail (STRATA_IS_EBPF_RECORDER (self));
  self->sets = sets | STRATA_RECORD_ALWAYS;
}

void
strata_ebpf_recorder_set_sample_freq (StrataEbpfRecorder *self,
                                      guint               hz)
{
  g_return_if_fail (STRATA_IS_EBPF_RECORDER (self));
  self->sample_freq = hz;
  if (hz > 0)
    self->sets |= STRATA_RECORD_SAMPLES;
}

void
strata_ebpf_recorder_set_buffer_size (StrataEbpfRecorder *self,
                                      guint64             bytes)
{
  g_return_if_fail (STRATA_IS_EBPF_RECORDER (self));
  self->buffer_size = bytes;
}

void
strata_ebpf_recorder_set_cpus_per_ring (StrataEbpfRecorder *self,
                                        guint               cpus)
{
  g_return_if_fail (STRATA_IS_EBPF_RECORDER (self));
  self->cpus_per_ring = cpus;
}

void
strata_ebpf_recorder_set_drain_period (StrataEbpfRecorder *self,
                                       guint               ms)
{
  g_return_if_fail (STRATA_IS_EBPF_RECORDER (self));
  self->drain_ms = MAX (ms, 1);
}

void
strata_ebpf_recorder_set_command_line (StrataEbpfRecorder *self,
                                       const char         *command_line)
{
  g_return_if_fail (STRATA_IS_EBPF_RECORDER (self));
  g_free (self->command_line);
  self->command_line = g_strdup (command_line);
}

void
strata_ebpf_recorder_set_hooks (StrataEbpfRecorder *self,
                                const char         *hooks)
{
  g_return_if_fail (STRATA_IS_EBPF_RECORDER (self));
  g_return_if_fail (hooks == NULL || g_str_equal (hooks, "tp_btf") || g_str_equal (hooks, "raw_tp"));
  g_free (self->hooks_wanted);
  self->hooks_wanted = g_strdup (hooks);
}
