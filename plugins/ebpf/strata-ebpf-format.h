/* strata-ebpf-format.h
 *
 * The layout of Strata's eBPF recording (docs/ebpf-format.md says it in
 * prose): the records the BPF programs put into the ring buffers, which
 * the recorder copies into the file unchanged, and the file's header,
 * blocks and footer around them. Both the BPF programs (compiled with
 * clang -target bpf) and the recorder and reader include this, so it uses
 * only the kernel's fixed-width types and nothing of GLib. Integers are
 * little-endian; records and blocks are 8-byte aligned.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#ifndef __bpf__
#include <linux/types.h>
#endif

/* ------------------------------------------------------------------ */
/* Records                                                              */

/* Every record starts with this. @pid is the thread the event ran in
 * (for a switch, the one switched out; for TASK and MAP records, the
 * thread or process they describe). @size8 is the record's whole size,
 * header included, in units of 8 bytes: a reader skips a record of a type
 * it does not know by it. */
struct strata_ebpf_record
{
  __u64 ts;           /* CLOCK_MONOTONIC, ns (bpf_ktime_get_ns) */
  __s32 pid;
  __u16 cpu;
  __u8  type;         /* enum strata_ebpf_record_type */
  __u8  size8;
};

#define STRATA_EBPF_RECORD_MAX_SIZE (255 * 8)

enum strata_ebpf_record_type
{
  STRATA_EBPF_REC_TASK = 1,        /* a thread's identity: first sight, or it changed */
  STRATA_EBPF_REC_SWITCH,          /* sched_switch */
  STRATA_EBPF_REC_WAKING,          /* sched_waking */
  STRATA_EBPF_REC_WAKEUP_NEW,      /* sched_wakeup_new */
  STRATA_EBPF_REC_FORK,            /* sched_process_fork */
  STRATA_EBPF_REC_EXEC,            /* sched_process_exec */
  STRATA_EBPF_REC_EXIT,            /* sched_process_exit */
  STRATA_EBPF_REC_IRQ_ENTRY,       /* irq_handler_entry */
  STRATA_EBPF_REC_IRQ_EXIT,        /* irq_handler_exit */
  STRATA_EBPF_REC_SOFTIRQ_ENTRY,   /* softirq_entry */
  STRATA_EBPF_REC_SOFTIRQ_EXIT,    /* softirq_exit */
  STRATA_EBPF_REC_IRQ_NAME,        /* an interrupt line's handler name, on first sight */
  STRATA_EBPF_REC_SYS_ENTER,       /* raw_syscalls:sys_enter */
  STRATA_EBPF_REC_SYS_EXIT,        /* raw_syscalls:sys_exit */
  STRATA_EBPF_REC_LOST,            /* records this CPU could not put into its ring */
  STRATA_EBPF_REC_SAMPLE,          /* a CPU sample with its stacks */
  STRATA_EBPF_REC_MAP,             /* an executable mapping of a process (from /proc) */
  STRATA_EBPF_REC_MAPS_RESET,      /* the process's mappings before this are gone (exec) */
  STRATA_EBPF_N_RECORD_TYPES
};

/* Why a TASK record was sent. */
enum strata_ebpf_task_reason
{
  STRATA_EBPF_TASK_EXISTING = 0,   /* the thread existed when the recording started */
  STRATA_EBPF_TASK_FIRST_SEEN,     /* a hook met the thread for the first time */
  STRATA_EBPF_TASK_RENAME,         /* task_rename: prctl(PR_SET_NAME), a write to comm */
};

#define STRATA_EBPF_COMM_LEN 16

struct strata_ebpf_task
{
  struct strata_ebpf_record h;     /* pid: the thread described */
  __s32 tgid;
  __u8  reason;                    /* enum strata_ebpf_task_reason */
  __u8  pad[3];
  char  comm[STRATA_EBPF_COMM_LEN];  /* NUL-padded, not always NUL-terminated */
};

/* prev_state as ftrace's sched_switch reports it, whatever the kernel's
 * own bits: 0 is R (runnable), bit n-1 the n-th letter of "SDTtXZPI", and
 * STRATA_EBPF_STATE_PREEMPTED "R+" (switched out while runnable). */
#define STRATA_EBPF_STATE_PREEMPTED 0x100

struct strata_ebpf_switch
{
  struct strata_ebpf_record h;     /* pid: prev, the thread switched out */
  __s32 next_pid;
  __u16 prev_state;
  __s16 prev_prio;
  __s16 next_prio;
  __u16 pad[3];
};

/* What a wakeup ran in, from the CPU's preempt_count when it was
 * recorded: the interrupt, not the thread it interrupted, is then the
 * waker. Without STRATA_EBPF_CONTEXT_KNOWN the kernel did not let the
 * recorder read it (and records of 24 bytes, written before this byte
 * existed, do not have it), so nothing is known either way. */
enum strata_ebpf_context
{
  STRATA_EBPF_CONTEXT_HARDIRQ = 1 << 0,
  STRATA_EBPF_CONTEXT_SOFTIRQ = 1 << 1,   /* serving a softirq, not just bh disabled */
  STRATA_EBPF_CONTEXT_NMI     = 1 << 2,
  STRATA_EBPF_CONTEXT_KNOWN   = 1 << 7,
};

struct strata_ebpf_wakeup
{
  struct strata_ebpf_record h;     /* pid: the waker */
  __s32 target_pid;
  __s16 prio;
  __s16 target_cpu;
  __u8  context;                   /* enum strata_ebpf_context bits */
  __u8  pad[7];
};

/* A wakeup as the first recorders wrote it, without @context: readers
 * still take it, as a wakeup whose context is not known. */
#define STRATA_EBPF_WAKEUP_MIN_SIZE 24

struct strata_ebpf_fork
{
  struct strata_ebpf_record h;     /* pid: the parent */
  __s32 child_pid;
  __s32 child_tgid;
  char  child_comm[STRATA_EBPF_COMM_LEN];
};

#define STRATA_EBPF_FILENAME_MAX 256

struct strata_ebpf_exec
{
  struct strata_ebpf_record h;     /* pid: the thread after exec (the process's leader) */
  __s32 old_pid;                   /* its id before, when a non-leader thread exec()ed */
  __s32 tgid;
  char  comm[STRATA_EBPF_COMM_LEN];  /* the new name */
  __u16 filename_len;              /* bytes of filename[], no NUL */
  __u16 pad[3];
  char  filename[];                /* then padding to 8 bytes */
};

struct strata_ebpf_exit
{
  struct strata_ebpf_record h;     /* pid: the thread exiting */
  __s16 prio;
  __u16 pad[3];
};

struct strata_ebpf_irq
{
  struct strata_ebpf_record h;     /* pid: the thread interrupted */
  __s32 irq;                       /* the line, or the softirq's vector */
  __s32 ret;                       /* irq_handler_exit: IRQ_HANDLED ...; else 0 */
};

#define STRATA_EBPF_IRQ_NAME_LEN 32

struct strata_ebpf_irq_name
{
  struct strata_ebpf_record h;
  __s32 irq;
  __u32 pad;
  char  name[STRATA_EBPF_IRQ_NAME_LEN];
};

struct strata_ebpf_sys_enter
{
  struct strata_ebpf_record h;
  __s32 nr;
  __u32 pad;
};

struct strata_ebpf_sys_exit
{
  struct strata_ebpf_record h;
  __s32 nr;
  __u32 pad;
  __s64 ret;
};

/* Written before the next record of its CPU that could be put into the
 * ring (or by the recorder when it stops): @count records were dropped
 * since the previous LOST record, the first at @first_ts. */
struct strata_ebpf_lost
{
  struct strata_ebpf_record h;     /* pid: -1 */
  __u64 count;
  __u64 first_ts;
};

#define STRATA_EBPF_MAX_KERNEL_FRAMES 127
#define STRATA_EBPF_MAX_USER_FRAMES   124

struct strata_ebpf_sample
{
  struct strata_ebpf_record h;     /* pid: the thread sampled */
  __s32 tgid;
  __u16 n_kernel;                  /* kernel frames, innermost first, then */
  __u16 n_user;                    /* user frames, innermost first */
  __u64 period;                    /* the perf event's period at this sample (ns of cpu-clock) */
  __u64 frames[];
};

/* Written by the recorder from /proc/PID/maps, not by BPF. */
struct strata_ebpf_map
{
  struct strata_ebpf_record h;     /* pid: the process (tgid) */
  __u64 start;
  __u64 end;
  __u64 pgoff;
  __u16 path_len;                  /* bytes of path[], no NUL */
  __u16 pad[3];
  char  path[];                    /* then padding to 8 bytes */
};

/* ------------------------------------------------------------------ */
/* The file                                                             */

/* The file begins with the magic, then a header of tagged fields, then
 * blocks until the end. A clean stop writes a footer block and a trailer. */
#define STRATA_EBPF_MAGIC           "STRATAEB"
#define STRATA_EBPF_MAGIC_LEN       8
#define STRATA_EBPF_VERSION         1

struct strata_ebpf_file_header
{
  char  magic[STRATA_EBPF_MAGIC_LEN];
  __u32 version;
  __u32 header_size;               /* from the magic to the first block, checksum included */
  __u32 flags;                     /* 0 */
  __u32 n_fields;
  /* then n_fields strata_ebpf_field, then a __u64 checksum: XXH3-64 of
   * the header_size - 8 bytes before it */
};

#define STRATA_EBPF_HEADER_MAX_SIZE (1u << 20)

struct strata_ebpf_field
{
  __u16 tag;                       /* enum strata_ebpf_field_tag; unknown ones are skipped */
  __u16 pad;
  __u32 length;                    /* bytes of value, then padding to 8 bytes */
};

enum strata_ebpf_field_tag
{
  STRATA_EBPF_FIELD_KERNEL_RELEASE = 1,  /* string: uname -r */
  STRATA_EBPF_FIELD_HOSTNAME,            /* string */
  STRATA_EBPF_FIELD_N_CPUS,              /* __u32: possible CPUs */
  STRATA_EBPF_FIELD_COMMAND_LINE,        /* string: the recorder's arguments */
  STRATA_EBPF_FIELD_EVENT_SETS,          /* string: "sched,irq,syscalls,samples" */
  STRATA_EBPF_FIELD_RINGS,               /* struct strata_ebpf_rings_field */
  STRATA_EBPF_FIELD_CLOCKS,              /* struct strata_ebpf_clocks */
  STRATA_EBPF_FIELD_SAMPLE_FREQ,         /* __u32: samples per second per CPU, 0 none */
  STRATA_EBPF_FIELD_RECORDER_PID,        /* __u32 */
  STRATA_EBPF_FIELD_HOOKS,               /* string: "tp_btf" or "raw_tp" */
  STRATA_EBPF_FIELD_KERNEL_TEXT,         /* __u64: _text in /proc/kallsyms (0: not readable) */
};

struct strata_ebpf_rings_field
{
  __u32 n_rings;
  __u32 cpus_per_ring;             /* ring r holds CPUs r * cpus_per_ring ... */
  __u64 ring_size;                 /* bytes of each ring buffer */
};

/* Taken together (the realtime and boottime reads bracketed by
 * monotonic ones): a recording's monotonic times convert to wall-clock
 * and boot time with them. */
struct strata_ebpf_clocks
{
  __u64 monotonic;
  __u64 realtime;
  __u64 boottime;
};

/* A block: this header, then @size bytes of records in time order. */
#define STRATA_EBPF_BLOCK_MAGIC     0x4b4c4253u   /* "SBLK" */
#define STRATA_EBPF_BLOCK_MAX_SIZE  (64u << 20)
#define STRATA_EBPF_RING_RECORDER   0xffffu       /* records the recorder wrote itself */
#define STRATA_EBPF_RING_FOOTER     0xfffeu

struct strata_ebpf_block
{
  __u32 magic;
  __u32 size;                      /* bytes of records after this header */
  __u16 ring;                      /* the ring buffer, or STRATA_EBPF_RING_* */
  __u16 flags;                     /* 0 */
  __u32 n_records;
  __u64 first_ts;                  /* the first and the last record's time */
  __u64 last_ts;
  __u64 horizon;                   /* this ring's later blocks hold no record before this */
  __u64 checksum;                  /* XXH3-64 of this header (checksum 0) and the records */
};

/* The footer block's records (ring STRATA_EBPF_RING_FOOTER). */
struct strata_ebpf_footer
{
  struct strata_ebpf_clocks stop;  /* when the recorder stopped */
  __u32 n_cpus;
  __u32 n_blocks;
  __u32 n_types;                   /* STRATA_EBPF_N_RECORD_TYPES when written */
  __u32 pad;
  /* then __u64 lost[n_cpus], __u64 records[n_types] (by type), and
   * n_blocks struct strata_ebpf_block_entry */
};

struct strata_ebpf_block_entry
{
  __u64 offset;
  __u64 first_ts;
  __u64 last_ts;
  __u32 n_records;
  __u16 ring;
  __u16 pad;
};

/* The last 16 bytes of a cleanly stopped recording. */
#define STRATA_EBPF_TRAILER_MAGIC   "STRATAFT"

struct strata_ebpf_trailer
{
  __u64 footer_offset;
  char  magic[STRATA_EBPF_MAGIC_LEN];
};
