/* strata-tracecmd-private.h
 *
 * Declarations of libtracecmd functions that libtracecmd.so.1 (trace-cmd
 * 3.1.6) exports but that its public header, trace-cmd.h, does not declare.
 * trace-cmd itself uses them through a private header that Debian does not
 * ship; the prototypes below match the exported symbols of that version
 * (check with `nm -D libtracecmd.so.1`). Only what the trace.dat reader needs
 * is declared here, so a change in the library shows up in one place.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <stdbool.h>
#include <trace-cmd.h>

G_BEGIN_DECLS

/* The number of CPUs of the buffer the handle reads. */
int                 tracecmd_cpus                     (struct tracecmd_input *handle);

/* The file's format version: 6 or 7. */
unsigned long       tracecmd_get_in_file_version      (struct tracecmd_input *handle);

/* The trace clock ("local", "mono", ...), or NULL when the file does not say. */
const char         *tracecmd_get_trace_clock          (struct tracecmd_input *handle);

/* The compression algorithm's name and version; fails on an uncompressed file. */
int                 tracecmd_get_file_compress_proto  (struct tracecmd_input *handle,
                                                       const char           **name,
                                                       const char           **version);

/* The kernel's per_cpu/cpuN/stats text of every CPU, one after the other. */
const char         *tracecmd_get_cpustats             (struct tracecmd_input *handle);

/* The uname string of the traced machine: "Linux host 6.1.0 x86_64". */
const char         *tracecmd_get_uname                (struct tracecmd_input *handle);

/* Whether the library was built with the compression algorithm. */
bool                tracecmd_compress_is_supported    (const char            *name,
                                                       const char            *version);

G_END_DECLS
