/* strata-ebpf-kernel.bpf.h
 *
 * The kernel types the recorder's BPF programs read, kept by hand: only
 * the fields used, each struct marked preserve_access_index so that clang
 * emits CO-RE relocations and libbpf fits every access to the running
 * kernel's BTF when the program loads. This stands in for a generated
 * vmlinux.h (megabytes, and a BTF-enabled kernel on the build machine):
 * the project builds without BTF, only loading needs it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

typedef unsigned char      __u8;
typedef signed char        __s8;
typedef unsigned short     __u16;
typedef short              __s16;
typedef unsigned int       __u32;
typedef int                __s32;
typedef unsigned long long __u64;
typedef long long          __s64;
typedef __u16              __be16;
typedef __u32              __be32;
typedef __u32              __wsum;
typedef _Bool              bool;
typedef int                pid_t;

#define true  1
#define false 0

/* From the kernel's UAPI (include/uapi/linux/bpf.h): fixed by the ABI. */
enum bpf_map_type
{
  BPF_MAP_TYPE_HASH = 1,
  BPF_MAP_TYPE_ARRAY = 2,
  BPF_MAP_TYPE_PERCPU_ARRAY = 6,
  BPF_MAP_TYPE_LRU_HASH = 9,
  BPF_MAP_TYPE_ARRAY_OF_MAPS = 12,
  BPF_MAP_TYPE_RINGBUF = 27,
};

enum
{
  BPF_ANY = 0,
  BPF_NOEXIST = 1,
};

enum
{
  BPF_F_USER_STACK = 1ULL << 8,
};

enum
{
  BPF_RB_NO_WAKEUP = 1ULL << 0,
  BPF_RB_FORCE_WAKEUP = 1ULL << 1,
};

enum
{
  BPF_RB_AVAIL_DATA = 0,
};

/* The scheduler's task states (include/linux/sched.h). The low seven are
 * what sched_switch reports (TASK_REPORT); the others change that report
 * as __task_state_index() says. Stable since 4.14; TASK_RTLOCK_WAIT came
 * in 5.15 and TASK_FROZEN in 6.1 on bits no older kernel sets. */
#define STRATA_TASK_REPORT        0x7f
#define STRATA_TASK_UNINTERRUPTIBLE 0x0002
#define STRATA_TASK_NOLOAD        0x0400
#define STRATA_TASK_IDLE          (STRATA_TASK_UNINTERRUPTIBLE | STRATA_TASK_NOLOAD)
#define STRATA_TASK_RTLOCK_WAIT   0x1000
#define STRATA_TASK_FROZEN        0x8000

/* The way from a task to its CPU's runqueue (a per-CPU variable, so
 * other per-CPU variables lie at fixed distances from it): the task's
 * fair-scheduling queue, whose rq it is (CONFIG_FAIR_GROUP_SCHED). */
struct rq
{
  int cpu;
} __attribute__((preserve_access_index));

struct cfs_rq
{
  struct rq *rq;
} __attribute__((preserve_access_index));

struct sched_entity
{
  struct cfs_rq *cfs_rq;
} __attribute__((preserve_access_index));

struct thread_info
{
  __u32 cpu;
} __attribute__((preserve_access_index));

struct task_struct
{
  struct thread_info thread_info;
  struct sched_entity se;
  unsigned int __state;
  unsigned int cpu;
  int prio;
  int exit_state;
  pid_t pid;
  pid_t tgid;
  char comm[16];
} __attribute__((preserve_access_index));

/* Before 5.14 the state was a long called state. */
struct task_struct___pre_5_14
{
  long state;
} __attribute__((preserve_access_index));

/* preempt_count's fields (include/linux/preempt.h), unchanged since
 * 5.x: the hard interrupt nesting, the NMI nesting, and the bit set while
 * a softirq is being served (the bits above it count bh disabled). */
#define STRATA_PREEMPT_SOFTIRQ_OFFSET 0x00000100
#define STRATA_PREEMPT_HARDIRQ_MASK   0x000f0000
#define STRATA_PREEMPT_NMI_MASK       0x00f00000

struct linux_binprm
{
  const char *filename;
} __attribute__((preserve_access_index));

struct irqaction
{
  const char *name;
} __attribute__((preserve_access_index));

#if defined(__TARGET_ARCH_x86)
struct pt_regs
{
  long unsigned int orig_ax;
} __attribute__((preserve_access_index));
#define STRATA_SYSCALL_NR_FIELD orig_ax
/* The registers before the sample period in bpf_perf_event_data. */
#define STRATA_USER_REGS_SIZE (21 * 8)
#elif defined(__TARGET_ARCH_arm64)
struct pt_regs
{
  int syscallno;
} __attribute__((preserve_access_index));
#define STRATA_SYSCALL_NR_FIELD syscallno
#define STRATA_USER_REGS_SIZE (34 * 8)
#else
#error "the recorder knows the registers of x86_64 and arm64 only"
#endif

/* The context of a perf_event program (include/uapi/linux/bpf_perf_event.h):
 * the interrupted registers, then the period. Not relocated: the verifier
 * maps its fields itself. */
struct bpf_perf_event_data
{
  __u8  regs[STRATA_USER_REGS_SIZE];
  __u64 sample_period;
  __u64 addr;
};
