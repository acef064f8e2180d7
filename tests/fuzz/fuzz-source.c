/* fuzz-source.c
 *
 * A libFuzzer harness for the binary trace readers, built three times:
 * as fuzz-perf (seeds: the perf-*.data.xz fixtures, unpacked), as
 * fuzz-tracedat (seeds: the .dat fixtures and cuts of them) and as
 * fuzz-ebpf (Strata's eBPF recordings). Each input is
 * written to a memfd and opened by path through strata_source_open(), as a
 * user's file would be (the perf reader maps the file, libtracecmd opens
 * the path itself), so the probe picks the reader from the content, then
 * read to the end. A reader must answer any input with events or a
 * STRATA_ERROR, never a crash, a hang or an unbounded allocation.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "strata-error.h"
#include "strata-source.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  StrataEvent events[256];
  gsize written = 0;
  gssize n;
  int fd;

  fd = memfd_create (FUZZ_INPUT_NAME, MFD_CLOEXEC);
  if (fd < 0)
    return 0;

  while (written < size)
    {
      gssize w = write (fd, data + written, size - written);

      if (w <= 0)
        {
          close (fd);
          return 0;
        }
      written += w;
    }

  path = g_strdup_printf ("/proc/self/fd/%d", fd);
  source = strata_source_open (path, &error);

  if (source != NULL)
    {
      while ((n = strata_source_read_batch (source, events, G_N_ELEMENTS (events), &error)) > 0)
        ;
      if (n < 0)
        g_assert (error != NULL && error->domain == STRATA_ERROR);
    }
  else
    g_assert (error != NULL && error->domain == STRATA_ERROR);

  g_clear_object (&source);
  close (fd);

  return 0;
}
