/* strata-ebpf-source.h
 *
 * The input plugin for Strata's own eBPF recordings (strata-cli record):
 * recognised by its magic, read block by block, the rings' blocks merged
 * by time, each record turned into the StrataEvent the kernel model
 * knows, threads named from the records that say who they are. What is
 * declared here beyond the StrataSource interface is for the live
 * timeline, which follows a recording while it is being written, and for
 * tests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-source.h"

G_BEGIN_DECLS

#define STRATA_TYPE_EBPF_SOURCE (strata_ebpf_source_get_type ())

G_DECLARE_FINAL_TYPE (StrataEbpfSource, strata_ebpf_source, STRATA, EBPF_SOURCE, StrataSource)

void      strata_plugin_ebpf_register           (void);

/* Following a file that is still being written: set before the first
 * batch. A batch then ends where the file's whole blocks end (or where
 * the rings' blocks no longer say which event is next); 0 events means
 * "nothing more yet", not the end: call again once the file has grown.
 * An incomplete block at the end is then not damage, only what the
 * recorder is writing. The "follow" property is the same switch for a
 * caller that does not know the plugin (a trace pass); read back, it
 * says whether an empty batch still means "nothing more yet": it turns
 * FALSE at the footer, or once the file has not grown for a few seconds
 * (the recorder was killed: the file then ends as such a file does). */
void      strata_ebpf_source_set_follow         (StrataEbpfSource *self,
                                                 gboolean          follow);
/* Whether the footer was read: the recording is whole and over. */
gboolean  strata_ebpf_source_is_complete        (StrataEbpfSource *self);
/* Events given out earlier than one given out before them (the kernel
 * model clamps them); 0 for a recording made right. */
guint64   strata_ebpf_source_get_out_of_order   (StrataEbpfSource *self);

G_END_DECLS
