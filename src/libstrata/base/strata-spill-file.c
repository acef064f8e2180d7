/* strata-spill-file.c
 *
 * O_TMPFILE where the file system has it (the file never has a name, so
 * a killed process leaves nothing behind), else a named file unlinked at
 * once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <fcntl.h>

#include <glib/gstdio.h>

#include "strata-error.h"
#include "strata-spill-file.h"

/* An unlinked file in $XDG_CACHE_HOME/strata, else the temporary
 * directory, closed with close(). -1 and @error when there is no folder
 * for it. */
int
strata_spill_file_open (GError **error)
{
  g_autofree char *cache = g_build_filename (g_get_user_cache_dir (), "strata", NULL);
  const char *dirs[] = { cache, g_get_tmp_dir () };

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *templ = NULL;
      int fd;

      if (g_mkdir_with_parents (dirs[i], 0700) != 0)
        continue;
#ifdef O_TMPFILE
      fd = open (dirs[i], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
      if (fd >= 0)
        return fd;
#endif
      templ = g_build_filename (dirs[i], "blocks-XXXXXX", NULL);
      fd = g_mkstemp_full (templ, O_RDWR | O_CLOEXEC, 0600);
      if (fd >= 0)
        {
          g_unlink (templ);
          return fd;
        }
    }
  g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO,
               "no folder for a spill file (%s, %s)", cache, g_get_tmp_dir ());
  return -1;
}
