/* strata-test-record.h
 *
 * What the recording tests share: whether this machine lets them record
 * (root, or CAP_BPF and CAP_PERFMON, and a kernel with BTF), the
 * machine-wide lock every recording takes (tracefs and the CPUs are
 * shared by everyone recording), strata-cli record run in the background
 * and stopped with SIGINT, and the workload of strata-record-workload.c,
 * started before the recording and let go once it runs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "strata.h"

G_BEGIN_DECLS

#define STRATA_TEST_RECORD_LOCK "/tmp/strata-record.lock"

typedef struct
{
  gint32 tid;
  char   name[16];
  gint64 a0, b0;    /* the counters' first read was between these (CLOCK_MONOTONIC) */
  gint64 a1, b1;    /* and their second between these */
  gint64 switches;  /* context switches between the two reads (getrusage) */
  gint64 cpu_ns;    /* CPU time between them (CLOCK_THREAD_CPUTIME_ID) */
} StrataTestThread;

/* FALSE, with the reason, where recording is not permitted. */
gboolean     strata_test_record_permitted   (char               **why);
/* Takes the machine-wide recording lock (blocking); returns its fd. */
int          strata_test_record_lock        (void);
void         strata_test_record_unlock      (int                  fd);

/* Runs strata-cli record -o @output @args in the background and waits
 * until it says the recording runs. */
GSubprocess *strata_test_recorder_start     (const char          *output,
                                             const char * const  *args,
                                             GError             **error);
/* Stops it with SIGINT (or @signum) and waits; its stderr (the summary)
 * in @err. */
gboolean     strata_test_recorder_stop      (GSubprocess         *recorder,
                                             char               **err,
                                             GError             **error);
gboolean     strata_test_recorder_stop_with (GSubprocess         *recorder,
                                             int                  signum,
                                             char               **err,
                                             GError             **error);

/* Starts the workload: its thread "strata-pre" exists when this returns. */
GSubprocess *strata_test_workload_start     (int                  round_trips,
                                             int                  spin_us,
                                             gint32              *pid,
                                             GError             **error);
/* Lets it run to its end: its threads' measures (StrataTestThread). */
GArray      *strata_test_workload_finish    (GSubprocess         *workload,
                                             GError             **error);
const StrataTestThread *strata_test_thread_find (GArray          *threads,
                                                 const char      *name);

G_END_DECLS
