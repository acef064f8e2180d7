/* strata-export.h
 *
 * A range of a trace written for other tools: the Trace Event Format
 * ("chrome-json", what Perfetto's UI and chrome://tracing open: each CPU
 * and each thread a track, each state or CPU activity a complete slice,
 * each instant an instant event, each wakeup a flow from the waker to
 * the woken thread's switch-in) or CSV (one line per activity of the
 * range, with its row's identity, enough to compute the range's
 * statistics again from the file alone). Both are streamed: a range of
 * any size is written without being held in memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "strata-trace.h"

G_BEGIN_DECLS

typedef enum
{
  STRATA_EXPORT_CHROME_JSON,
  STRATA_EXPORT_CSV,
} StrataExportFormat;

/* The chrome-json process that holds the CPUs' tracks (buffer instance
 * i is this + i): real pids are below 2^22. */
#define STRATA_EXPORT_CPU_PID 1000000000

gboolean strata_export_format_from_name (const char          *name,
                                         StrataExportFormat  *format);
gboolean strata_export_write            (StrataTrace         *trace,
                                         StrataExportFormat   format,
                                         gint64               from,
                                         gint64               to,
                                         GOutputStream       *out,
                                         GCancellable        *cancellable,
                                         GError             **error);
gboolean strata_export_to_file          (StrataTrace         *trace,
                                         StrataExportFormat   format,
                                         gint64               from,
                                         gint64               to,
                                         const char          *path,
                                         GCancellable        *cancellable,
                                         GError             **error);

G_END_DECLS
