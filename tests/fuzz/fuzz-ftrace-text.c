/* fuzz-ftrace-text.c
 *
 * A libFuzzer harness for the reader of ftrace text output. Sources open
 * files, not memory, so each input is written to one temporary file, opened
 * through strata_source_open() (which also exercises the probe), and read to
 * the end or to the first error. The reader must never crash, never read out
 * of bounds and never allocate from a number it read; errors are expected
 * and ignored. Seed it with the first few hundred lines of each fixture .txt.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "strata-error.h"
#include "strata-source.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

static char *path;
static int fd = -1;

/* One file per fuzzing process, rewritten in place for every input (no
 * rename, no fsync), so that a long run neither fills the temporary
 * directory nor waits for the disk. */
static gboolean
write_input (const uint8_t *data,
             size_t         size)
{
  size_t done = 0;

  if (fd < 0)
    {
      GError *error = NULL;

      fd = g_file_open_tmp ("strata-fuzz-ftrace-text-XXXXXX.txt", &path, &error);
      if (fd < 0)
        g_error ("%s", error->message);
    }

  if (ftruncate (fd, 0) != 0)
    return FALSE;

  while (done < size)
    {
      ssize_t n = pwrite (fd, data + done, size - done, done);

      if (n <= 0)
        return FALSE;
      done += n;
    }

  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;
  StrataEvent events[256];
  gssize n;

  if (!write_input (data, size))
    return 0;

  source = strata_source_open (path, &error);
  if (source == NULL)
    return 0;

  while ((n = strata_source_read_batch (source, events, G_N_ELEMENTS (events), &error)) > 0)
    {
      const StrataSourceInfo *info = strata_source_get_info (source);

      /* The contract every consumer relies on: time order and pool ids
       * that resolve. */
      for (gssize i = 0; i < n; i++)
        {
          g_assert_cmpint (events[i].ts, <=, info->last_ts);
          if (i > 0)
            g_assert_cmpint (events[i - 1].ts, <=, events[i].ts);
          g_assert_cmpuint (events[i].name, <, strata_string_pool_get_size (strata_source_get_strings (source)));
        }
    }

  if (n < 0)
    {
      g_assert_nonnull (error);
      g_assert_true (error->domain == STRATA_ERROR);
    }

  return 0;
}
