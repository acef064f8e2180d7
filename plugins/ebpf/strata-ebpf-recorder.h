/* strata-ebpf-recorder.h
 *
 * The eBPF recorder: loads the BPF programs, attaches them to the
 * scheduler, interrupt (and, on request, syscall and sampling) hooks,
 * drains the ring buffers on a timer of its own and writes Strata's
 * recording file, which any reader may follow while it grows. One object
 * per recording: configure it, start it, read its status while it runs,
 * stop it. strata-cli record is a thin client of it; the application
 * runs that command (it needs privileges the application does not have)
 * and follows the file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "strata-record-error.h"

G_BEGIN_DECLS

/* What is recorded. Scheduling and interrupts always are. */
typedef enum
{
  STRATA_RECORD_SCHED    = 1 << 0,  /* switches, wakeups, fork, exec, exit, renames */
  STRATA_RECORD_IRQ      = 1 << 1,  /* hard and soft interrupts */
  STRATA_RECORD_SYSCALLS = 1 << 2,  /* raw_syscalls: sys_enter, sys_exit */
  STRATA_RECORD_SAMPLES  = 1 << 3,  /* CPU samples with kernel and user stacks */
} StrataRecordSets;

#define STRATA_RECORD_ALWAYS (STRATA_RECORD_SCHED | STRATA_RECORD_IRQ)

typedef struct
{
  gint64   elapsed_ns;   /* since the hooks were attached */
  guint64  records;      /* written to the file (or about to be) */
  guint64  lost;         /* found their ring full */
  guint64  bytes;        /* of the file */
  guint64  late;         /* came after a block later than them was written */
  gboolean running;
  gboolean failed;       /* stopped by an error: stop() says which */
} StrataRecordStatus;

#define STRATA_TYPE_EBPF_RECORDER (strata_ebpf_recorder_get_type ())

G_DECLARE_FINAL_TYPE (StrataEbpfRecorder, strata_ebpf_recorder, STRATA, EBPF_RECORDER, GObject)

/* "syscalls,samples" (and the always-on "sched", "irq") to sets. */
gboolean            strata_record_sets_parse             (const char          *list,
                                                          StrataRecordSets    *sets,
                                                          GError             **error);
char               *strata_record_sets_to_string         (StrataRecordSets     sets);

StrataEbpfRecorder *strata_ebpf_recorder_new             (const char          *output);
void                strata_ebpf_recorder_set_sets        (StrataEbpfRecorder  *self,
                                                          StrataRecordSets     sets);
/* Samples per second per CPU; 0 (the default) records none. */
void                strata_ebpf_recorder_set_sample_freq (StrataEbpfRecorder  *self,
                                                          guint                hz);
/* Bytes of each ring buffer (rounded up to a power of two). */
void                strata_ebpf_recorder_set_buffer_size (StrataEbpfRecorder  *self,
                                                          guint64              bytes);
void                strata_ebpf_recorder_set_cpus_per_ring (StrataEbpfRecorder *self,
                                                          guint                cpus);
/* How often the rings are drained (default 100 ms); a record waits a
 * period (at most 50 ms) in the drain, in case an older one is late. */
void                strata_ebpf_recorder_set_drain_period (StrataEbpfRecorder *self,
                                                          guint                ms);
/* What the file's header says started the recording. */
void                strata_ebpf_recorder_set_command_line (StrataEbpfRecorder *self,
                                                          const char          *command_line);
/* "tp_btf", "raw_tp", or NULL to choose (tp_btf where the kernel has it). */
void                strata_ebpf_recorder_set_hooks       (StrataEbpfRecorder  *self,
                                                          const char          *hooks);

gboolean            strata_ebpf_recorder_start           (StrataEbpfRecorder  *self,
                                                          GError             **error);
void                strata_ebpf_recorder_get_status      (StrataEbpfRecorder  *self,
                                                          StrataRecordStatus  *status);
/* Detaches the hooks, drains the rings, writes the footer. */
gboolean            strata_ebpf_recorder_stop            (StrataEbpfRecorder  *self,
                                                          GError             **error);

/* After stop(): what was written and what was lost. */
const char         *strata_ebpf_recorder_get_hooks       (StrataEbpfRecorder  *self);
guint64             strata_ebpf_recorder_get_missed      (StrataEbpfRecorder  *self,
                                                          guint64             *malformed);
guint               strata_ebpf_recorder_get_n_cpus      (StrataEbpfRecorder  *self);
guint64             strata_ebpf_recorder_get_lost        (StrataEbpfRecorder  *self,
                                                          guint                cpu);
/* Records by type (enum strata_ebpf_record_type in strata-ebpf-format.h). */
guint64             strata_ebpf_recorder_get_count       (StrataEbpfRecorder  *self,
                                                          guint                type);
/* The types' names, 1 to strata_ebpf_record_n_types() - 1 (0 is none). */
guint               strata_ebpf_record_n_types           (void);
const char         *strata_ebpf_record_type_name         (guint                type);

G_END_DECLS
