/* strata-perf-source.h
 *
 * The perf.data reader: file mode (PERFILE2 in either byte order, and the
 * old PERFFILE header) and pipe mode, COMPRESSED records as one zstd
 * stream, tracepoints decoded with libtraceevent from the file's own
 * tracing data, samples with their call chains, PERF_RECORD_SWITCH as
 * scheduler switches when the sched tracepoints are absent, all yielded in
 * time order through a reorder buffer flushed by FINISHED_ROUND. What is
 * declared here beyond the StrataSource interface is for tests and tools
 * that want to know what the file held record by record.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-source.h"

G_BEGIN_DECLS

#define STRATA_TYPE_PERF_SOURCE (strata_perf_source_get_type ())

G_DECLARE_FINAL_TYPE (StrataPerfSource, strata_perf_source, STRATA, PERF_SOURCE, StrataSource)

void            strata_plugin_perf_register            (void);

/* Records of @type (PERF_RECORD_*, or a type no one defines, which is
 * stepped over) read so far, including those inside COMPRESSED records
 * (which are counted too). */
guint64         strata_perf_source_get_record_count    (StrataPerfSource *self,
                                                        guint             type);
/* The frames of call chain @id (a sample activity's arg), innermost first,
 * perf's context markers (PERF_CONTEXT_KERNEL ...) left out. */
const guint64  *strata_perf_source_get_callchain       (StrataPerfSource *self,
                                                        guint32           id,
                                                        guint            *n_frames);
guint           strata_perf_source_get_n_callchains    (StrataPerfSource *self);
/* Samples whose fields, as their attr's sample_type and read_format lay
 * them out, do not fill the record exactly, or whose id no attr has: 0
 * for a file read right. */
guint64         strata_perf_source_get_inexact_samples (StrataPerfSource *self);
/* Whether the file's tracing data had sched_switch (so PERF_RECORD_SWITCH
 * records were not turned into switches). */
gboolean        strata_perf_source_has_sched_switch    (StrataPerfSource *self);
/* Whether the time order could not be kept within the reorder buffer's
 * bound (a file without FINISHED_ROUND, or rounds larger than the bound). */
gboolean        strata_perf_source_get_order_overflow  (StrataPerfSource *self);
/* For tests: the reorder buffer's bound, in events (512K by default). */
void            strata_perf_source_set_reorder_window  (StrataPerfSource *self,
                                                        guint             n_events);
/* Whether the records are to be read ahead in a thread of the source's
 * own (off by default; only a file-mode file of tracepoints can be), set
 * before the first batch; and whether they were. The events are the same
 * either way. */
void            strata_perf_source_set_threaded        (StrataPerfSource *self,
                                                        gboolean          threaded);
gboolean        strata_perf_source_get_threaded        (StrataPerfSource *self);
/* Events that arrived after later ones were already handed out. */
guint64         strata_perf_source_get_out_of_order    (StrataPerfSource *self);
/* The name of a kernel address from the file's tracing data kallsyms or
 * the machine's /proc/kallsyms, or NULL. */
const char     *strata_perf_source_lookup_kernel       (StrataPerfSource *self,
                                                        guint64           address);

char           *strata_perf_source_symbolize           (StrataPerfSource *self,
                                                        gint32            pid,
                                                        guint64           address);
/* Whether kernel addresses can be named: the file's tracing data had
 * kallsyms, or this machine's describe the kernel that was recorded. */
gboolean        strata_perf_source_kernel_symbols_known (StrataPerfSource *self);

/* Record by record again, for a reader that wants the fields of a few
 * events (the event list's Fields column): a second source on the same
 * file, opened as usual, then read with these instead of batches. The
 * records come in file order, which is time order per CPU (when they
 * say their CPU); each has a
 * position that strata_perf_source_seek_record() goes back to. A
 * position is a file offset where reading can start afresh (a record,
 * or a COMPRESSED record whose inflated bytes start with one) and how
 * many records to pass from there. A compressed file's COMPRESSED
 * records are one zstd stream that cannot be entered midway: its
 * samples and SWITCH records are kept in memory as they are first read
 * (up to 512 MiB; past that reading fails), and their positions are in
 * those. */
typedef struct
{
  guint64  at;
  guint32  skip;
  gboolean kept;     /* at is an offset in the records kept (see below) */
} StrataPerfPosition;

typedef struct
{
  StrataPerfPosition where;
  gint64             ts;
  gint32             cpu;      /* 0 when the record does not say */
  gboolean           has_cpu;  /* whether it says */
  const char        *name;     /* an interned string (g_intern_string) */
} StrataPerfRecordHead;

/* The next sample or SWITCH record that has a time: FALSE at the end or
 * on damage (@error set then). */
gboolean        strata_perf_source_next_record_head    (StrataPerfSource     *self,
                                                        StrataPerfRecordHead *head,
                                                        GError              **error);
/* The fields of the record strata_perf_source_next_record_head() just
 * gave: a tracepoint's as `perf script -F trace` prints them (its print
 * format, through libtraceevent); "ip=0x... period=N depth=N" for other
 * samples (depth: its call chain's frames, perf's context markers left
 * out); for a SWITCH "IN"/"OUT" ("OUT preempt"), then for a CPU-wide one
 * "next pid/tid: P/T" or "prev pid/tid: P/T". */
char           *strata_perf_source_format_record       (StrataPerfSource     *self);
gboolean        strata_perf_source_seek_record         (StrataPerfSource     *self,
                                                        const StrataPerfPosition *where,
                                                        GError              **error);

G_END_DECLS
