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

struct cpu_state
{
  __u64 dropped;        /* records that found the ring full, ever */
  __u64 reported;       /* of those, sent in LOST records */
  __u64 first_drop_ts;  /* the first drop since the last LOST record */
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

/* Sends @task's identity if it was not sent yet. */
static __always_inline void
announce (struct emit        *e,
          struct task_struct *task)
{
  struct strata_ebpf_task *t;
  __s32 pid = BPF_CORE_READ (task, pid);
  __u8 one = 1;

  if (pid == 0 || bpf_map_lookup_elem (&seen, &pid) != NULL)
    return;

  t = reserve (e, sizeof *t);
  if (t == NULL)
    return;
  head (&t->h, e, pid, STRATA_EBPF_REC_TASK, sizeof *t);
  t->tgid = BPF_CORE_READ (task, tgid);
  t->reason = STRATA_EBPF_TASK_FIRST_SEEN;
  t->pad[0] = t->pad[1] = t->pad[2] = 0;
  BPF_CORE_READ_INTO (&t->comm, task, comm);
  submit (e, t);
  bpf_map_update_elem (&seen, &pid, &one, BPF_ANY);
}

static __always_inline __u32
task_state (struct task_struct *t)
{
  struct task_struct___pre_5_14 *old = (void *) t;

  if (bpf_core_field_exists (t->__state))
    return BPF_CORE_READ (t, __state);
  return (__u32) BPF_CORE_READ (old, state);
}

static __always_inline __s16
task_cpu (struct task_struct *t)
{
  if (bpf_core_field_exists (t->cpu))
    return BPF_CORE_READ (t, cpu);
  return BPF_CORE_READ (t, thread_info.cpu);
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

/* ------------------------------------------------------------------ */
/* The hooks. Each reads its tracepoint's arguments from ctx, which has
 * the same layout for tp_btf and raw_tp; task fields are read through
 * CO-RE, which works on either kind of pointer. */

static __always_inline int
on_switch (unsigned long long *ctx)
{
  bool preempt = (bool) ctx[0];
  struct task_struct *prev = (void *) ctx[1];
  struct task_struct *next = (void *) ctx[2];
  struct strata_ebpf_switch *s;
  struct emit e;
  __u32 state;

  if (!emit_begin (&e))
    return 0;

  announce (&e, prev);
  announce (&e, next);

  s = reserve (&e, sizeof *s);
  if (s == NULL)
    return 0;

  if (switch_has_state_arg)
    state = (__u32) ctx[3];
  else
    state = task_state (prev);

  head (&s->h, &e, BPF_CORE_READ (prev, pid), STRATA_EBPF_REC_SWITCH, sizeof *s);
  s->next_pid = BPF_CORE_READ (next, pid);
  s->prev_state = report_state (preempt, state, BPF_CORE_READ (prev, exit_state));
  s->prev_prio = BPF_CORE_READ (prev, prio);
  s->next_prio = BPF_CORE_READ (next, prio);
  s->pad[0] = s->pad[1] = s->pad[2] = 0;
  submit (&e, s);
  return 0;
}

static __always_inline int
on_wakeup (unsigned long long *ctx,
           __u8                type)
{
  struct task_struct *p = (void *) ctx[0];
  struct strata_ebpf_wakeup *w;
  __u64 id = bpf_get_current_pid_tgid ();
  struct emit e;

  /* The recorder's threads being woken (its drain timer) are left out:
   * recording them would record the recording. What it wakes stays. */
  if (is_recorder (BPF_CORE_READ (p, tgid)))
    return 0;
  if (!emit_begin (&e))
    return 0;

  w = reserve (&e, sizeof *w);
  if (w == NULL)
    return 0;
  head (&w->h, &e, (__s32) id, type, sizeof *w);
  w->target_pid = BPF_CORE_READ (p, pid);
  w->prio = BPF_CORE_READ (p, prio);
  w->target_cpu = task_cpu (p);
  submit (&e, w);
  return 0;
}

static __always_inline int
on_waking (unsigned long long *ctx)
{
  return on_wakeup (ctx, STRATA_EBPF_REC_WAKING);
}

static __always_inline int
on_wakeup_new (unsigned long long *ctx)
{
  return on_wakeup (ctx, STRATA_EBPF_REC_WAKEUP_NEW);
}

static __always_inline int
on_fork (unsigned long long *ctx)
{
  struct task_struct *parent = (void *) ctx[0];
  struct task_struct *child = (void *) ctx[1];
  struct strata_ebpf_fork *f;
  struct emit e;
  __s32 child_pid = BPF_CORE_READ (child, pid);
  __u8 one = 1;

  if (!emit_begin (&e))
    return 0;

  f = reserve (&e, sizeof *f);
  if (f == NULL)
    {
      /* A pid reused from a thread that was seen must be named again. */
      bpf_map_delete_elem (&seen, &child_pid);
      return 0;
    }
  head (&f->h, &e, BPF_CORE_READ (parent, pid), STRATA_EBPF_REC_FORK, sizeof *f);
  f->child_pid = child_pid;
  f->child_tgid = BPF_CORE_READ (child, tgid);
  BPF_CORE_READ_INTO (&f->child_comm, child, comm);
  submit (&e, f);
  bpf_map_update_elem (&seen, &child_pid, &one, BPF_ANY);
  return 0;
}

static __always_inline int
on_exec (unsigned long long *ctx)
{
  struct task_struct *p = (void *) ctx[0];
  __s32 old_pid = (__s32) ctx[1];
  struct linux_binprm *bprm = (void *) ctx[2];
  const char *filename = BPF_CORE_READ (bprm, filename);
  struct strata_ebpf_exec *x;
  __u32 zero = 0;
  __s32 pid = BPF_CORE_READ (p, pid);
  __u8 one = 1;
  struct emit e;
  long len;
  __u32 size;

  if (!emit_begin (&e))
    return 0;
  x = bpf_map_lookup_elem (&scratch, &zero);
  if (x == NULL)
    return 0;

  len = bpf_probe_read_kernel_str (x->filename, STRATA_EBPF_FILENAME_MAX, filename);
  if (len < 1)
    len = 1;
  if (len > STRATA_EBPF_FILENAME_MAX)
    len = STRATA_EBPF_FILENAME_MAX;
  len -= 1;  /* the NUL */
  size = (sizeof *x + len + 7) & ~7u;
  /* Zero what pads the name to the record's end. */
  for (int i = 0; i < 8; i++)
    if (len + i < STRATA_EBPF_FILENAME_MAX)
      x->filename[len + i] = 0;

  head (&x->h, &e, pid, STRATA_EBPF_REC_EXEC, size);
  x->old_pid = old_pid;
  x->tgid = BPF_CORE_READ (p, tgid);
  BPF_CORE_READ_INTO (&x->comm, p, comm);
  x->filename_len = len;
  x->pad[0] = x->pad[1] = x->pad[2] = 0;
  copy_out (&e, x, size);

  if (old_pid != pid)
    bpf_map_delete_elem (&seen, &old_pid);
  bpf_map_update_elem (&seen, &pid, &one, BPF_ANY);
  return 0;
}

static __always_inline int
on_exit (unsigned long long *ctx)
{
  struct task_struct *p = (void *) ctx[0];
  struct strata_ebpf_exit *x;
  struct emit e;

  if (!emit_begin (&e))
    return 0;
  x = reserve (&e, sizeof *x);
  if (x == NULL)
    return 0;
  head (&x->h, &e, BPF_CORE_READ (p, pid), STRATA_EBPF_REC_EXIT, sizeof *x);
  x->prio = BPF_CORE_READ (p, prio);
  x->pad[0] = x->pad[1] = x->pad[2] = 0;
  submit (&e, x);
  return 0;
}

static __always_inline int
on_rename (unsigned long long *ctx)
{
  struct task_struct *task = (void *) ctx[0];
  const char *comm = (const char *) ctx[1];
  struct strata_ebpf_task *t;
  __s32 pid = BPF_CORE_READ (task, pid);
  __u8 one = 1;
  struct emit e;

  if (!emit_begin (&e))
    return 0;
  t = reserve (&e, sizeof *t);
  if (t == NULL)
    {
      bpf_map_delete_elem (&seen, &pid);
      return 0;
    }
  head (&t->h, &e, pid, STRATA_EBPF_REC_TASK, sizeof *t);
  t->tgid = BPF_CORE_READ (task, tgid);
  t->reason = STRATA_EBPF_TASK_RENAME;
  t->pad[0] = t->pad[1] = t->pad[2] = 0;
  __builtin_memset (t->comm, 0, sizeof t->comm);
  bpf_probe_read_kernel_str (t->comm, sizeof t->comm, comm);
  submit (&e, t);
  bpf_map_update_elem (&seen, &pid, &one, BPF_ANY);
  return 0;
}

static __always_inline int
irq_record (__u8  type,
            __s32 irq,
            __s32 ret)
{
  struct strata_ebpf_irq *r;
  struct emit e;

  if (!emit_begin (&e))
    return 0;
  r = reserve (&e, sizeof *r);
  if (r == NULL)
    return 0;
  head (&r->h, &e, (__s32) bpf_get_current_pid_tgid (), type, sizeof *r);
  r->irq = irq;
  r->ret = ret;
  submit (&e, r);
  return 0;
}

static __always_inline int
on_irq_entry (unsigned long long *ctx)
{
  __s32 irq = (__s32) ctx[0];
  struct irqaction *action = (void *) ctx[1];

  /* A line's handler is named the first time it runs. */
  if (bpf_map_lookup_elem (&irq_seen, &irq) == NULL)
    {
      struct strata_ebpf_irq_name *n;
      struct emit e;
      __u8 one = 1;

      if (!emit_begin (&e))
        return 0;
      n = reserve (&e, sizeof *n);
      if (n != NULL)
        {
          head (&n->h, &e, -1, STRATA_EBPF_REC_IRQ_NAME, sizeof *n);
          n->irq = irq;
          n->pad = 0;
          __builtin_memset (n->name, 0, sizeof n->name);
          bpf_probe_read_kernel_str (n->name, sizeof n->name, BPF_CORE_READ (action, name));
          submit (&e, n);
          bpf_map_update_elem (&irq_seen, &irq, &one, BPF_ANY);
        }
    }

  return irq_record (STRATA_EBPF_REC_IRQ_ENTRY, irq, 0);
}

static __always_inline int
on_irq_exit (unsigned long long *ctx)
{
  return irq_record (STRATA_EBPF_REC_IRQ_EXIT, (__s32) ctx[0], (__s32) ctx[2]);
}

static __always_inline int
on_softirq_entry (unsigned long long *ctx)
{
  return irq_record (STRATA_EBPF_REC_SOFTIRQ_ENTRY, (__s32) ctx[0], 0);
}

static __always_inline int
on_softirq_exit (unsigned long long *ctx)
{
  return irq_record (STRATA_EBPF_REC_SOFTIRQ_EXIT, (__s32) ctx[0], 0);
}

static __always_inline int
on_sys_enter (unsigned long long *ctx)
{
  struct strata_ebpf_sys_enter *r;
  __u64 id = bpf_get_current_pid_tgid ();
  struct emit e;

  if (is_recorder (id >> 32) || !emit_begin (&e))
    return 0;
  r = reserve (&e, sizeof *r);
  if (r == NULL)
    return 0;
  head (&r->h, &e, (__s32) id, STRATA_EBPF_REC_SYS_ENTER, sizeof *r);
  r->nr = (__s32) ctx[1];
  r->pad = 0;
  submit (&e, r);
  return 0;
}

static __always_inline int
on_sys_exit (unsigned long long *ctx)
{
  struct pt_regs *regs = (void *) ctx[0];
  struct strata_ebpf_sys_exit *r;
  __u64 id = bpf_get_current_pid_tgid ();
  struct emit e;

  if (is_recorder (id >> 32) || !emit_begin (&e))
    return 0;
  r = reserve (&e, sizeof *r);
  if (r == NULL)
    return 0;
  head (&r->h, &e, (__s32) id, STRATA_EBPF_REC_SYS_EXIT, sizeof *r);
  r->nr = STRATA_SYSCALL_NR (regs);
  r->pad = 0;
  r->ret = (__s64) ctx[1];
  submit (&e, r);
  return 0;
}

#define STRATA_HOOK(tp, fn)                                             \
  SEC ("tp_btf/" #tp) int btf_##tp (unsigned long long *ctx) { return fn (ctx); } \
  SEC ("raw_tp/" #tp) int raw_##tp (unsigned long long *ctx) { return fn (ctx); }

STRATA_HOOK (sched_switch, on_switch)
STRATA_HOOK (sched_waking, on_waking)
STRATA_HOOK (sched_wakeup_new, on_wakeup_new)
STRATA_HOOK (sched_process_fork, on_fork)
STRATA_HOOK (sched_process_exec, on_exec)
STRATA_HOOK (sched_process_exit, on_exit)
STRATA_HOOK (task_rename, on_rename)
STRATA_HOOK (irq_handler_entry, on_irq_entry)
STRATA_HOOK (irq_handler_exit, on_irq_exit)
STRATA_HOOK (softirq_entry, on_softirq_entry)
STRATA_HOOK (softirq_exit, on_softirq_exit)
STRATA_HOOK (sys_enter, on_sys_enter)
STRATA_HOOK (sys_exit, on_sys_exit)

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
