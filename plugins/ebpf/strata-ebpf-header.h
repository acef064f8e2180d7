/* strata-ebpf-header.h
 *
 * The header of an eBPF recording, the facts that hold for the whole
 * file: where and how it was recorded (kernel, host, CPUs, the recorder's
 * command line, the event sets, the rings) and the clock snapshot that
 * ties its monotonic times to wall-clock time. Turned into the file's
 * first bytes by the recorder and back into this struct by the reader;
 * the layout is in strata-ebpf-format.h and docs/ebpf-format.md.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-ebpf-format.h"

G_BEGIN_DECLS

typedef struct
{
  guint32                        version;
  char                          *kernel_release;
  char                          *hostname;
  char                          *command_line;
  char                          *event_sets;
  char                          *hooks;
  guint32                        n_cpus;
  guint32                        sample_freq;
  guint32                        recorder_pid;
  guint64                        kernel_text;  /* where the kernel's text was (KASLR), or 0 */
  struct strata_ebpf_rings_field rings;
  struct strata_ebpf_clocks      clocks;
} StrataEbpfHeader;

void       strata_ebpf_header_clear      (StrataEbpfHeader       *header);
GBytes    *strata_ebpf_header_serialize  (const StrataEbpfHeader *header);
/* How many bytes of @data (the file's first bytes) the header needs,
 * once its fixed part is there: 0 when @len is too short to say. */
gsize      strata_ebpf_header_size       (const guint8           *data,
                                          gsize                   len);
/* Reads the header from @data, which holds at least its size. Errors
 * name @name and the offset. */
gboolean   strata_ebpf_header_parse      (StrataEbpfHeader       *header,
                                          const char             *name,
                                          const guint8           *data,
                                          gsize                   len,
                                          GError                **error);
guint64    strata_ebpf_checksum          (const void             *data,
                                          gsize                   len);

G_END_DECLS
