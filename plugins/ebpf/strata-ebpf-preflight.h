/* strata-ebpf-preflight.h
 *
 * The checks a recording makes before it loads anything, each failing
 * with an error that says what is missing and how to get it: the
 * privileges (root, or CAP_BPF and CAP_PERFMON: which one is missing),
 * the kernel's BTF, and an output that can be written; and, when the
 * kernel refuses a program all the same, what its verifier said.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean strata_ebpf_preflight_privileges (GError     **error);
gboolean strata_ebpf_preflight_btf        (const char  *btf_path,
                                           GError     **error);
gboolean strata_ebpf_preflight_output     (const char  *path,
                                           GError     **error);
/* When loading failed anyway: the verifier's words, from libbpf's log. */
char    *strata_ebpf_describe_verifier_log (const char  *log);

G_END_DECLS
