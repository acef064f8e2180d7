/* strata-file-io.c
 *
 * The one way Strata reads and writes a file at an offset. pread() and
 * pwrite() may move fewer bytes than asked (a signal, a full disk, the end
 * of the file), and every caller wants either all of it or to know how
 * much and why: the transfers go through one loop.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "strata-file-io.h"

/* How many of @size bytes went to (@writing) or came from @offset before
 * the file failed or ended; errno says why when it is fewer, and is 0 when
 * the file ended. */
static gsize
transfer (int      fd,
          gboolean writing,
          guint8  *data,
          gsize    size,
          guint64  offset)
{
  gsize done = 0;

  while (done < size)
    {
      gssize n = writing ? pwrite (fd, data + done, size - done, (off_t) (offset + done))
                         : pread (fd, data + done, size - done, (off_t) (offset + done));

      if (n < 0 && errno == EINTR)
        continue;
      if (n == 0)
        errno = 0;
      if (n <= 0)
        break;
      done += (gsize) n;
    }
  return done;
}

gsize
strata_file_write_some (int           fd,
                        gconstpointer data,
                        gsize         size,
                        guint64       offset)
{
  return transfer (fd, TRUE, (guint8 *) data, size, offset);
}

gboolean
strata_file_write_all (int           fd,
                       gconstpointer data,
                       gsize         size,
                       guint64       offset)
{
  return transfer (fd, TRUE, (guint8 *) data, size, offset) == size;
}

gsize
strata_file_read_some (int      fd,
                       gpointer out,
                       gsize    size,
                       guint64  offset)
{
  return transfer (fd, FALSE, out, size, offset);
}

gboolean
strata_file_read_all (int      fd,
                      gpointer out,
                      gsize    size,
                      guint64  offset)
{
  return transfer (fd, FALSE, out, size, offset) == size;
}

gboolean
strata_file_read_exact (int      fd,
                        gpointer out,
                        gsize    size,
                        guint64  offset,
                        int     *errsv)
{
  if (transfer (fd, FALSE, out, size, offset) == size)
    return TRUE;
  *errsv = errno;
  return FALSE;
}
