/* strata-ebpf-hooks.bpf.h
 *
 * The recorder's hooks, one per tracepoint, included twice by
 * strata-ebpf-record.bpf.c: once as tp_btf programs, whose task pointers
 * the verifier knows, so their fields are read with plain loads (CO-RE
 * relocated), and once as raw_tp programs for kernels without tp_btf,
 * whose pointers are only numbers, so their fields are read with
 * bpf_probe_read_kernel(). The includer defines STRATA_HOOK_KIND (the
 * programs' name prefix), STRATA_HOOK_SEC (the section prefix), TREAD
 * (read a field) and TREAD_COMM (copy a task's comm). Each hook reads its
 * tracepoint's arguments from ctx, which has the same layout for both.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* No include guard: it is meant to be read twice. */

#define HOOK_CAT2(a, b) a##_##b
#define HOOK_CAT(a, b) HOOK_CAT2 (a, b)
#define HOOK(name) HOOK_CAT (STRATA_HOOK_KIND, name)

/* Sends @task's identity if it was not sent yet: this CPU's cache of
 * sent threads first, the seen map behind it. */
static __always_inline void
HOOK (announce) (struct emit        *e,
                 struct task_struct *task)
{
  struct strata_ebpf_task *t;
  __s32 pid = TREAD (task, pid);
  __s32 *cached = &e->st->seen[pid & (SEEN_CACHE - 1)];
  __u8 one = 1;

  if (pid == 0 || *cached == pid)
    return;
  if (bpf_map_lookup_elem (&seen, &pid) != NULL)
    {
      *cached = pid;
      return;
    }

  t = reserve (e, sizeof *t);
  if (t == NULL)
    return;
  head (&t->h, e, pid, STRATA_EBPF_REC_TASK, sizeof *t);
  t->tgid = TREAD (task, tgid);
  t->reason = STRATA_EBPF_TASK_FIRST_SEEN;
  t->pad[0] = t->pad[1] = t->pad[2] = 0;
  TREAD_COMM (t->comm, task);
  submit (e, t);
  bpf_map_update_elem (&seen, &pid, &one, BPF_ANY);
  *cached = pid;
}

static __always_inline __u32
HOOK (task_state) (struct task_struct *t)
{
  struct task_struct___pre_5_14 *old = (void *) t;

  if (bpf_core_field_exists (t->__state))
    return TREAD (t, __state);
  return (__u32) TREAD (old, state);
}

static __always_inline __s16
HOOK (task_cpu) (struct task_struct *t)
{
  if (bpf_core_field_exists (t->cpu))
    return TREAD (t, cpu);
  return TREAD (t, thread_info.cpu);
}

/* ------------------------------------------------------------------ */
/* The hooks. Each reads its tracepoint's arguments from ctx, which has
 * the same layout for tp_btf and raw_tp; task fields are read through
 * CO-RE, which works on either kind of pointer. */

static __always_inline int
HOOK (on_switch) (unsigned long long *ctx)
{
  bool preempt = (bool) ctx[0];
  struct task_struct *prev = (void *) ctx[1];
  struct task_struct *next = (void *) ctx[2];
  struct strata_ebpf_switch *s;
  struct emit e;
  __u32 state;

  if (!emit_begin (&e))
    return 0;

  HOOK (announce) (&e, prev);
  HOOK (announce) (&e, next);

  s = reserve (&e, sizeof *s);
  if (s == NULL)
    return 0;

  if (switch_has_state_arg)
    state = (__u32) ctx[3];
  else
    state = HOOK (task_state) (prev);

  head (&s->h, &e, TREAD (prev, pid), STRATA_EBPF_REC_SWITCH, sizeof *s);
  s->next_pid = TREAD (next, pid);
  s->prev_state = report_state (preempt, state, TREAD (prev, exit_state));
  s->prev_prio = TREAD (prev, prio);
  s->next_prio = TREAD (next, prio);
  s->pad[0] = s->pad[1] = s->pad[2] = 0;
  submit (&e, s);
  return 0;
}

static __always_inline int
HOOK (on_wakeup) (unsigned long long *ctx,
                  __u8                type)
{
  struct task_struct *p = (void *) ctx[0];
  struct strata_ebpf_wakeup *w;
  __u64 id = bpf_get_current_pid_tgid ();
  struct emit e;

  /* The recorder's threads being woken (its drain timer) are left out:
   * recording them would record the recording. What it wakes stays. */
  if (is_recorder (TREAD (p, tgid)))
    return 0;
  if (!emit_begin (&e))
    return 0;

  w = reserve (&e, sizeof *w);
  if (w == NULL)
    return 0;
  head (&w->h, &e, (__s32) id, type, sizeof *w);
  w->target_pid = TREAD (p, pid);
  w->prio = TREAD (p, prio);
  w->target_cpu = HOOK (task_cpu) (p);
  w->context = current_context ();
  for (int i = 0; i < 7; i++)
    w->pad[i] = 0;
  submit (&e, w);
  return 0;
}

static __always_inline int
HOOK (on_waking) (unsigned long long *ctx)
{
  return HOOK (on_wakeup) (ctx, STRATA_EBPF_REC_WAKING);
}

static __always_inline int
HOOK (on_wakeup_new) (unsigned long long *ctx)
{
  return HOOK (on_wakeup) (ctx, STRATA_EBPF_REC_WAKEUP_NEW);
}

static __always_inline int
HOOK (on_fork) (unsigned long long *ctx)
{
  struct task_struct *parent = (void *) ctx[0];
  struct task_struct *child = (void *) ctx[1];
  struct strata_ebpf_fork *f;
  struct emit e;
  __s32 child_pid = TREAD (child, pid);
  __u8 one = 1;

  if (!emit_begin (&e))
    return 0;

  f = reserve (&e, sizeof *f);
  if (f == NULL)
    {
      /* A pid reused from a thread that was seen must be named again. */
      bpf_map_delete_elem (&seen, &child_pid);
      forget (&e, child_pid);
      return 0;
    }
  head (&f->h, &e, TREAD (parent, pid), STRATA_EBPF_REC_FORK, sizeof *f);
  f->child_pid = child_pid;
  f->child_tgid = TREAD (child, tgid);
  TREAD_COMM (f->child_comm, child);
  submit (&e, f);
  bpf_map_update_elem (&seen, &child_pid, &one, BPF_ANY);
  e.st->seen[child_pid & (SEEN_CACHE - 1)] = child_pid;
  return 0;
}

static __always_inline int
HOOK (on_exec) (unsigned long long *ctx)
{
  struct task_struct *p = (void *) ctx[0];
  __s32 old_pid = (__s32) ctx[1];
  struct linux_binprm *bprm = (void *) ctx[2];
  const char *filename = TREAD (bprm, filename);
  struct strata_ebpf_exec *x;
  __u32 zero = 0;
  __s32 pid = TREAD (p, pid);
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
  x->tgid = TREAD (p, tgid);
  TREAD_COMM (x->comm, p);
  x->filename_len = len;
  x->pad[0] = x->pad[1] = x->pad[2] = 0;
  copy_out (&e, x, size);

  if (old_pid != pid)
    {
      bpf_map_delete_elem (&seen, &old_pid);
      forget (&e, old_pid);
    }
  bpf_map_update_elem (&seen, &pid, &one, BPF_ANY);
  e.st->seen[pid & (SEEN_CACHE - 1)] = pid;
  return 0;
}

static __always_inline int
HOOK (on_exit) (unsigned long long *ctx)
{
  struct task_struct *p = (void *) ctx[0];
  struct strata_ebpf_exit *x;
  struct emit e;

  if (!emit_begin (&e))
    return 0;
  x = reserve (&e, sizeof *x);
  if (x == NULL)
    return 0;
  head (&x->h, &e, TREAD (p, pid), STRATA_EBPF_REC_EXIT, sizeof *x);
  x->prio = TREAD (p, prio);
  x->pad[0] = x->pad[1] = x->pad[2] = 0;
  submit (&e, x);
  return 0;
}

static __always_inline int
HOOK (on_rename) (unsigned long long *ctx)
{
  struct task_struct *task = (void *) ctx[0];
  const char *comm = (const char *) ctx[1];
  struct strata_ebpf_task *t;
  __s32 pid = TREAD (task, pid);
  __u8 one = 1;
  struct emit e;

  if (!emit_begin (&e))
    return 0;
  t = reserve (&e, sizeof *t);
  if (t == NULL)
    {
      bpf_map_delete_elem (&seen, &pid);
      forget (&e, pid);
      return 0;
    }
  head (&t->h, &e, pid, STRATA_EBPF_REC_TASK, sizeof *t);
  t->tgid = TREAD (task, tgid);
  t->reason = STRATA_EBPF_TASK_RENAME;
  t->pad[0] = t->pad[1] = t->pad[2] = 0;
  __builtin_memset (t->comm, 0, sizeof t->comm);
  bpf_probe_read_kernel_str (t->comm, sizeof t->comm, comm);
  submit (&e, t);
  bpf_map_update_elem (&seen, &pid, &one, BPF_ANY);
  return 0;
}

static __always_inline int
HOOK (irq_record) (__u8  type,
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
HOOK (on_irq_entry) (unsigned long long *ctx)
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
          bpf_probe_read_kernel_str (n->name, sizeof n->name, TREAD (action, name));
          submit (&e, n);
          bpf_map_update_elem (&irq_seen, &irq, &one, BPF_ANY);
        }
    }

  return HOOK (irq_record) (STRATA_EBPF_REC_IRQ_ENTRY, irq, 0);
}

static __always_inline int
HOOK (on_irq_exit) (unsigned long long *ctx)
{
  return HOOK (irq_record) (STRATA_EBPF_REC_IRQ_EXIT, (__s32) ctx[0], (__s32) ctx[2]);
}

static __always_inline int
HOOK (on_softirq_entry) (unsigned long long *ctx)
{
  return HOOK (irq_record) (STRATA_EBPF_REC_SOFTIRQ_ENTRY, (__s32) ctx[0], 0);
}

static __always_inline int
HOOK (on_softirq_exit) (unsigned long long *ctx)
{
  return HOOK (irq_record) (STRATA_EBPF_REC_SOFTIRQ_EXIT, (__s32) ctx[0], 0);
}

static __always_inline int
HOOK (on_sys_enter) (unsigned long long *ctx)
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
HOOK (on_sys_exit) (unsigned long long *ctx)
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
  r->nr = (__s32) TREAD (regs, STRATA_SYSCALL_NR_FIELD);
  r->pad = 0;
  r->ret = (__s64) ctx[1];
  submit (&e, r);
  return 0;
}

#define STRATA_HOOK(tp, fn) \
  SEC (STRATA_HOOK_SEC #tp) int HOOK (tp) (unsigned long long *ctx) { return HOOK (fn) (ctx); }

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

#undef STRATA_HOOK

#undef HOOK
#undef HOOK_CAT
#undef HOOK_CAT2
