/* strata-ebpf-proc.h
 *
 * What the recorder reads from /proc rather than from BPF, as records
 * of the recording's own format: the threads that exist when it starts
 * (so every row is named from the first moment), and a process's
 * executable mappings (so samples' user frames can be named later).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-ebpf-format.h"

G_BEGIN_DECLS

/* Appends a TASK record (reason EXISTING, time @ts) for every thread
 * of every process; returns how many. */
guint     strata_ebpf_proc_walk_threads (GByteArray *out,
                                         guint64     ts,
                                         GArray     *tgids);
/* Appends a MAP record (time @ts) for each executable mapping of @tgid
 * that has a path; returns how many (0 when the process is gone). */
guint     strata_ebpf_proc_read_maps    (GByteArray *out,
                                         gint32      tgid,
                                         guint64     ts);
/* Appends one record with just a header (MAPS_RESET and the like). */
void      strata_ebpf_proc_add_marker   (GByteArray *out,
                                         guint8      type,
                                         gint32      pid,
                                         guint64     ts);

G_END_DECLS
