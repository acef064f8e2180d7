/* strata-ebpf-record.bpf.c
 *
 * The recorder's BPF programs: one per tracepoint, each writing a compact
 * fixed-layout record (strata-ebpf-format.h) into the ring buffer of its
 * CPU's group. Every hook exists twice, as tp_btf (typed arguments, the
 * cheaper entry) and as raw_tp (for kernels without tp_btf); the recorder
 * loads one of the two. A thread's name and process are sent once, when a
 * hook first meets it (and again when it exec()s or is renamed), not with
 * every event. Records go in without waking the consumer, which drains on
 * its own timer, unless a ring fills past its wakeup mark. A record that
 * finds its ring full is counted per CPU, and the count goes into the
 * ring as a LOST record before that CPU's next record that fits.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "strata-ebpf-kernel.bpf.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "strata-ebpf-format.h"

char LICENSE[] SEC ("license") = "GPL";

/* Set by the recorder before loading (read-only to the programs, so the
 * verifier prunes the branches they decide). */
const volatile __u32 recorder_tgid = 0;
const volatile __u32 cpus_per_ring = 8;
const volatile __u64 wakeup_bytes = 1 << 20;
/* Whether sched_switch passes prev_state (5.18 and later): otherwise it
 * is read from the task, under the name this kernel gives it. */
const volatile bool switch_has_state_arg = false;

/* Set by the recorder once every hook is attached, cleared before they
 * are detached: the hooks attach one after another, and a recording
 * whose switches began before its wakeups would not be whole. */
volatile bool recording = false;

struct
{
  __uint (type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
  __uint (max_entries, 1);
  __type (key, __u32);
  __array (values, struct {
    __uint (type, BPF_MAP_TYPE_RINGBUF);
    __uint (max_entries, 1 << 22);
  });
} rings SEC (".maps");

#define SEEN_CACHE 256

struct cpu_state
{
  __u64 dropped;        /* records that found the ring full, ever */
  __u64 reported;       /* of those, sent in LOST records */
  __u64 first_drop_ts;  /* the first drop since the last LOST record */
  /* Threads this CPU knows were sent, by pid modulo SEEN_CACHE: most
   * switches are between a few threads, and this array is in hand
   * already, where the seen map costs a hash lookup (about 60 ns each,
   * two a switch, on the machine measured). */
  __s32 seen[SEEN_CACHE];
};

struct
{
  __uint (type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint (max_entries, 1);
  __type (key, __u32);
  __type (value, struct cpu_state);
} cpu_states SEC (".maps");

/* Threads whose identity was sent. LRU: one evicted is sent again. */
struct
{
  __uint (type, BPF_MAP_TYPE_LRU_HASH);
  __uint (max_entries, 65536);
  __type (key, __s32);
  __type (value, __u8);
} seen SEC (".maps");

struct
{
  __uint (type, BPF_MAP_TYPE_LRU_HASH);
  __uint (max_entries, 4096);
  __type (key, __s32);
  __type (value, __u8);
} irq_seen SEC (".maps");

/* Records of a size known only at run time (exec, samples) are put
 * together here, then copied into the ring. */
struct scratch
{
  __u8 data[2048 + 64];
};

struct
{
  __uint (type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint (max_entries, 1);
  __type (key, __u32);
  __type (value, struct scratch);
} scratch SEC (".maps");

struct emit
{
  void             *rb;
  struct cpu_state *st;
  __u64             ts;
  __u32             cpu;
};

static __always_inline bool
is_recorder (__u32 tgid)
{
  return tgid == recorder_tgid;
}

static __always_inline __u64
wake_flags (void *rb)
{
  return bpf_ringbuf_query (rb, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
                                                                  : BPF_RB_NO_WAKEUP;
}

static __always_inline void
note_drop (struct emit *e)
{
  if (e->st->dropped == e->st->reported)
    e->st->first_drop_ts = e->ts;
  __sync_fetch_and_add (&e->st->dropped, 1);
}

static __always_inline void
head (struct strata_ebpf_record *h,
      struct emit               *e,
      __s32                      pid,
      __u8                       type,
      __u32                      size)
{
  h->ts = e->ts;
  h->pid = pid;
  h->cpu = e->cpu;
  h->type = type;
  h->size8 = size / 8;
}

/* Drops since the last LOST record go in before anything else of this
 * CPU. The compare-and-swap keeps a nested program (an interrupt's, on
 * the same CPU) from reporting the same drops twice. */
static __always_inline void
report_lost (struct emit *e)
{
  __u64 dropped = e->st->dropped;
  __u64 reported = e->st->reported;
  struct strata_ebpf_lost *l;

  l = bpf_ringbuf_reserve (e->rb, sizeof *l, 0);
  if (l == NULL)
    return;
  if (__sync_val_compare_and_swap (&e->st->reported, reported, dropped) != reported)
    {
      bpf_ringbuf_discard (l, BPF_RB_NO_WAKEUP);
      return;
    }
  head (&l->h, e, -1, STRATA_EBPF_REC_LOST, sizeof *l);
  l->count = dropped - reported;
  l->first_ts = e->st->first_drop_ts;
  bpf_ringbuf_submit (l, wake_flags (e->rb));
}

static __always_inline bool
emit_begin (struct emit *e)
{
  __u32 zero = 0;
  __u32 ring;

  if (!recording)
    return false;
  e->cpu = bpf_get_smp_processor_id ();
  ring = e->cpu / cpus_per_ring;
  e->rb = bpf_map_lookup_elem (&rings, &ring);
  if (e->rb == NULL)
    return false;
  e->st = bpf_map_lookup_elem (&cpu_states, &zero);
  if (e->st == NULL)
    return false;
  e->ts = bpf_ktime_get_ns ();
  if (e->st->dropped != e->st->reported)
    report_lost (e);
  return true;
}

/* This CPU no longer knows @pid as sent (other CPUs may: only for a
 * record lost to a full ring, whose loss is marked anyway). */
static __always_inline void
forget (struct emit *e,
        __s32        pid)
{
  __s32 *cached = &e->st->seen[pid & (SEEN_CACHE - 1)];

  if (*cached == pid)
    *cached = 0;
}

static __always_inline void *
reserve (struct emit *e,
         __u32        size)
{
  void *rec = bpf_ringbuf_reserve (e->rb, size, 0);

  if (rec == NULL)
    note_drop (e);
  return rec;
}

static __always_inline void
submit (struct emit *e,
        void        *rec)
{
  bpf_ringbuf_submit (rec, wake_flags (e->rb));
}

static __always_inline int
copy_out (struct emit *e,
          void        *data,
          __u64        size)
{
  if (bpf_ringbuf_output (e->rb, data, size, wake_flags (e->rb)) != 0)
    note_drop (e);
  return 0;
}

/* What ftrace's sched_switch reports for prev_state
 * (__trace_sched_switch_state): R+ when preempted, otherwise the highest
 * reported state bit, an idle kernel thread as I and a frozen or
 * rtlock-waiting one as D. */
static __always_inline __u16
report_state (bool  preempt,
              __u32 state,
              __u32 exit_state)
{
  __u32 s;

  if (preempt)
    return STRATA_EBPF_STATE_PREEMPTED;

  s = (state | exit_state) & STRATA_TASK_REPORT;
  if ((state & STRATA_TASK_IDLE) == STRATA_TASK_IDLE)
    s = STRATA_TASK_REPORT + 1;
  if (state & (STRATA_TASK_RTLOCK_WAIT | STRATA_TASK_FROZEN))
    s = STRATA_TASK_UNINTERRUPTIBLE;

  s |= s >> 1;
  s |= s >> 2;
  s |= s >> 4;
  return s - (s >> 1);
}

/* The CPU's preempt_count is a per-CPU variable (x86: __preempt_count,
 * or pcpu_hot's field in 6.2 to 6.14), but a typed __ksym for it loads
 * only where kallsyms lists data (CONFIG_KALLSYMS_ALL), which many
 * kernels do not. The runqueue is per-CPU too and reachable from the
 * current task, and per-CPU variables keep the distances between them
 * that the kernel's BTF states (their offsets in .data..percpu): the
 * recorder puts that distance here, or leaves preempt_count_known
 * false where it found none (other architectures, whose count is in
 * thread_info, or a kernel without group scheduling). */
const volatile bool preempt_count_known = false;
const volatile __s64 preempt_count_from_rq = 0;

/* What the current program runs in, as STRATA_EBPF_CONTEXT_* bits; 0
 * (not even KNOWN) where the count could not be read. */
static __always_inline __u8
current_context (void)
{
  struct task_struct *task = (void *) bpf_get_current_task ();
  struct rq *rq;
  __u8 context = STRATA_EBPF_CONTEXT_KNOWN;
  __u32 count = 0;

  if (!preempt_count_known || !bpf_core_field_exists (struct task_struct, se) ||
      !bpf_core_field_exists (struct sched_entity, cfs_rq) ||
      !bpf_core_field_exists (struct rq, cpu))
    return 0;
  rq = BPF_CORE_READ (task, se.cfs_rq, rq);
  /* A runqueue not this CPU's would be the wrong count: say nothing. */
  if (rq == NULL || BPF_CORE_READ (rq, cpu) != (int) bpf_get_smp_processor_id ())
    return 0;
  if (bpf_probe_read_kernel (&count, sizeof count, (char *) rq + preempt_count_from_rq) != 0)
    return 0;

  if (count & STRATA_PREEMPT_HARDIRQ_MASK)
    context |= STRATA_EBPF_CONTEXT_HARDIRQ;
  if (count & STRATA_PREEMPT_SOFTIRQ_OFFSET)
    context |= STRATA_EBPF_CONTEXT_SOFTIRQ;
  if (count & STRATA_PREEMPT_NMI_MASK)
    context |= STRATA_EBPF_CONTEXT_NMI;
  return context;
}

/* The hooks, twice: tp_btf with plain loads, raw_tp with probe reads. */
#define STRATA_HOOK_KIND btf
#define STRATA_HOOK_SEC "tp_btf/"
#define TREAD(p, field) ((p)->field)
#define TREAD_COMM(dst, task) __builtin_memcpy ((dst), (task)->comm, STRATA_EBPF_COMM_LEN)
#include "strata-ebpf-hooks.bpf.h"
#undef STRATA_HOOK_KIND
#undef STRATA_HOOK_SEC
#undef TREAD
#undef TREAD_COMM

#define STRATA_HOOK_KIND raw
#define STRATA_HOOK_SEC "raw_tp/"
#define TREAD(p, field) BPF_CORE_READ ((p), field)
#define TREAD_COMM(dst, task) BPF_CORE_READ_INTO (&(dst), (task), comm)
#include "strata-ebpf-hooks.bpf.h"
#undef STRATA_HOOK_KIND
#undef STRATA_HOOK_SEC
#undef TREAD
#undef TREAD_COMM

/* A CPU sample: the interrupted thread's kernel and user stacks, copied
 * into the record (bpf_get_stack, not a stack map whose ids collide).
 * The idle task's samples and the recorder's own are left out. */
SEC ("perf_event")
int
on_sample (struct bpf_perf_event_data *ctx)
{
  struct strata_ebpf_sample *s;
  __u64 id = bpf_get_current_pid_tgid ();
  __u32 zero = 0;
  struct emit e;
  long nk, nu;
  __u32 size;

  if ((__u32) id == 0 || is_recorder (id >> 32))
    return 0;
  if (!emit_begin (&e))
    return 0;
  s = bpf_map_lookup_elem (&scratch, &zero);
  if (s == NULL)
    return 0;

  nk = bpf_get_stack (ctx, s->frames, STRATA_EBPF_MAX_KERNEL_FRAMES * 8, 0);
  if (nk < 0)
    nk = 0;
  nk /= 8;
  if (nk > STRATA_EBPF_MAX_KERNEL_FRAMES)
    nk = STRATA_EBPF_MAX_KERNEL_FRAMES;
  nu = bpf_get_stack (ctx, &s->frames[nk], STRATA_EBPF_MAX_USER_FRAMES * 8, BPF_F_USER_STACK);
  if (nu < 0)
    nu = 0;
  nu /= 8;
  if (nu > STRATA_EBPF_MAX_USER_FRAMES)
    nu = STRATA_EBPF_MAX_USER_FRAMES;

  size = sizeof *s + (nk + nu) * 8;
  head (&s->h, &e, (__s32) id, STRATA_EBPF_REC_SAMPLE, size);
  s->tgid = id >> 32;
  s->n_kernel = nk;
  s->n_user = nu;
  s->period = ctx->sample_period;
  if (size > sizeof *s + (STRATA_EBPF_MAX_KERNEL_FRAMES + STRATA_EBPF_MAX_USER_FRAMES) * 8)
    return 0;
  return copy_out (&e, s, size);
}
