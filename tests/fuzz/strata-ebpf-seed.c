/* strata-ebpf-seed.c
 *
 * Makes small seeds for fuzz-ebpf from a real recording: the same
 * header, then the file's blocks with at most RECORDS records each (the
 * first ones, of every type the block has, so the seed keeps the record
 * kinds), at most BLOCKS of them, and a footer; checksums made anew, so
 * the seed is a valid recording. A recording is mostly its first block
 * (every thread on the machine, their mappings): seeds of a few KiB
 * let the fuzzer spend its time on the records instead.
 *
 *   strata-ebpf-seed IN OUT [RECORDS [BLOCKS]]     (default 12 and 8)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata-ebpf-file.h"
#include "strata-ebpf-writer.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(StrataEbpfFile) in = NULL;
  g_autoptr(StrataEbpfWriter) out = NULL;
  g_autoptr(GError) error = NULL;
  guint max_records = argc > 3 ? atoi (argv[3]) : 12;
  guint max_blocks = argc > 4 ? atoi (argv[4]) : 8;
  guint64 counts[STRATA_EBPF_N_RECORD_TYPES] = { 0 };
  struct strata_ebpf_clocks stop = { 0 };
  g_autofree guint64 *lost = NULL;
  StrataEbpfBlockData block;
  guint blocks = 0;

  if (argc < 3)
    {
      fprintf (stderr, "usage: strata-ebpf-seed IN OUT [RECORDS [BLOCKS]]\n");
      return 1;
    }

  in = strata_ebpf_file_open (argv[1], NULL, &error);
  if (in == NULL || (out = strata_ebpf_writer_new (argv[2], &error)) == NULL ||
      !strata_ebpf_writer_write_header (out, strata_ebpf_file_get_header (in), &error))
    {
      fprintf (stderr, "strata-ebpf-seed: %s\n", error->message);
      return 1;
    }
  lost = g_new0 (guint64, strata_ebpf_file_get_header (in)->n_cpus);

  while (blocks < max_blocks && strata_ebpf_file_next (in, &block, &error) == STRATA_EBPF_FILE_BLOCK)
    {
      g_autoptr(GByteArray) kept = g_byte_array_new ();
      gsize size;
      const guint8 *p = g_bytes_get_data (block.records, &size);
      guint per_type[256] = { 0 };
      guint n = 0;

      /* The first few of each type, in their order. */
      for (gsize at = 0; at < size;)
        {
          const struct strata_ebpf_record *h = (const void *) (p + at);
          gsize len = (gsize) h->size8 * 8;

          if (per_type[h->type]++ < MAX (max_records / 4, 1) && n < max_records)
            {
              g_byte_array_append (kept, p + at, len);
              if (h->type < STRATA_EBPF_N_RECORD_TYPES)
                counts[h->type]++;
              n++;
            }
          at += len;
        }
      if (n > 0 || block.n_records == 0)
        {
          if (!strata_ebpf_writer_write_block (out, block.ring, kept->data, kept->len, n,
                                               block.horizon, &error))
            {
              fprintf (stderr, "strata-ebpf-seed: %s\n", error->message);
              return 1;
            }
          blocks++;
        }
      strata_ebpf_block_data_clear (&block);
    }

  if (!strata_ebpf_writer_finish (out, &stop, lost, strata_ebpf_file_get_header (in)->n_cpus,
                                  counts, &error))
    {
      fprintf (stderr, "strata-ebpf-seed: %s\n", error->message);
      return 1;
    }
  return 0;
}
