/* strata-symbolizer.h
 *
 * Names code addresses of a recorded machine: kernel addresses from the
 * recording's kallsyms (or this machine's, when it runs the kernel that
 * was recorded), user addresses through the files each process had
 * mapped, read with elfutils (libdwfl) on first use. A reader tells it
 * what the recording says about address spaces (a mapping, a fork, an
 * exec) as it reads, and asks for names afterwards; it knows nothing of
 * any file format, so every reader of samples (perf.data, the eBPF
 * recorder's file) shares it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Addresses from here up are the kernel's (x86-64 and arm64 alike). */
#define STRATA_SYMBOLIZER_KERNEL_START G_GUINT64_CONSTANT (0xffff800000000000)

typedef struct _StrataSymbolizer StrataSymbolizer;

StrataSymbolizer *strata_symbolizer_new                  (void);
void              strata_symbolizer_free                 (StrataSymbolizer *self);

void              strata_symbolizer_set_kallsyms         (StrataSymbolizer *self,
                                                          char             *text);
void              strata_symbolizer_set_kernel_release   (StrataSymbolizer *self,
                                                          const char       *release);
void              strata_symbolizer_set_kernel_text      (StrataSymbolizer *self,
                                                          guint64           address);

void              strata_symbolizer_add_mapping          (StrataSymbolizer *self,
                                                          gint32            pid,
                                                          guint64           start,
                                                          guint64           len,
                                                          guint64           pgoff,
                                                          const char       *path,
                                                          gsize             path_len);
void              strata_symbolizer_fork                 (StrataSymbolizer *self,
                                                          gint32            parent_pid,
                                                          gint32            child_pid);
void              strata_symbolizer_exec                 (StrataSymbolizer *self,
                                                          gint32            pid,
                                                          gint64            ts);

char             *strata_symbolizer_name                 (StrataSymbolizer *self,
                                                          gint32            pid,
                                                          guint64           address,
                                                          gint64            ts);
const char       *strata_symbolizer_lookup_kernel        (StrataSymbolizer *self,
                                                          guint64           address);
gboolean          strata_symbolizer_kernel_symbols_known (StrataSymbolizer *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataSymbolizer, strata_symbolizer_free)

G_END_DECLS
