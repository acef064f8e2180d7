/* fuzz-replay.c
 *
 * Runs a libFuzzer harness's LLVMFuzzerTestOneInput() once on each file
 * of the folders (or files) it is given, in name order, without libFuzzer:
 * so every build (normal, release, sanitizers) replays the committed
 * corpus and every input that ever crashed a reader (regressions/), and a
 * bug that comes back fails a test there, not only in the next fuzzing
 * run. Prints one TAP line per folder; a crash ends the program, which
 * fails the test, with the input named on stderr first.
 *
 * Usage: replay-NAME DIR_OR_FILE...
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The files to replay for @arg: itself, or the files in it, sorted. */
static GPtrArray *
inputs_of (const char *arg)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (!g_file_test (arg, G_FILE_TEST_IS_DIR))
    {
      g_ptr_array_add (files, g_strdup (arg));
      return files;
    }
  dir = g_dir_open (arg, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (files, g_build_filename (arg, name, NULL));
  g_ptr_array_sort (files, compare_names);
  return files;
}

int
main (int   argc,
      char *argv[])
{
  printf ("1..%d\n", argc - 1);
  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GPtrArray) files = inputs_of (argv[i]);
      guint64 bytes = 0;

      for (guint f = 0; f < files->len; f++)
        {
          const char *path = g_ptr_array_index (files, f);
          g_autofree char *data = NULL;
          g_autoptr(GError) error = NULL;
          gsize len;

          if (!g_file_get_contents (path, &data, &len, &error))
            {
              printf ("not ok %d - %s: %s\n", i, argv[i], error->message);
              return 1;
            }
          /* Said before, so a crash names its input. */
          fprintf (stderr, "replaying %s (%" G_GSIZE_FORMAT " bytes)\n", path, len);
          LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
          bytes += len;
        }
      printf ("ok %d - %s: %u inputs, %" G_GUINT64_FORMAT " bytes\n", i, argv[i], files->len, bytes);
    }
  return 0;
}
