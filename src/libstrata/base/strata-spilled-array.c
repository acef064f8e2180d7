/* strata-spilled-array.c
 *
 * The array starts in the heap; past LET_GO_WINDOW it moves to a spill
 * file, which grows as the array does (doubling), the mapping with it
 * (mremap()). Letting go is madvise (MADV_DONTNEED) of the whole
 * pages before an element: on a shared mapping of a file that drops the
 * pages from the process and keeps their contents in the file, so it is
 * safe beside readers and writers of the same pages on other threads
 * (they fault the page back in). The array lets go by itself as it grows
 * (all but its last LET_GO_WINDOW bytes, each time it has grown by that
 * much); a loop over all of it lets go every so often itself.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "strata-spill-file.h"
#include "strata-spilled-array.h"

/* The leak checker scans the heap for pointers, not a program's own
 * mappings: elements that point into the heap (the raw store's lanes) are
 * shown to it as a root region while the mapping is there. */
#if defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define WITH_LSAN 1
# endif
#endif
#if !defined(WITH_LSAN) && defined(__SANITIZE_ADDRESS__)
# define WITH_LSAN 1
#endif
#ifdef WITH_LSAN
# include <sanitizer/lsan_interface.h>
# define ROOTS_ADD(p, n)    __lsan_register_root_region ((p), (n))
# define ROOTS_REMOVE(p, n) __lsan_unregister_root_region ((p), (n))
#else
# define ROOTS_ADD(p, n)    ((void) 0)
# define ROOTS_REMOVE(p, n) ((void) 0)
#endif

/* A small array (a chunk's lane changes, made for every chunk the index
 * has) starts with a few kilobytes, not with the room of a big one. */
#define FIRST_BYTES    ((gsize) 4 << 10)
#define LET_GO_WINDOW  ((gsize) 4 << 20)

static gsize
page_size (void)
{
  static gsize size;

  if (size == 0)
    size = (gsize) sysconf (_SC_PAGESIZE);
  return size;
}

/**
 * strata_spilled_array_new:
 * @elem_size: the size of an element
 *
 * An empty array: in the heap while it is small, then in a spill file if
 * there is a folder for one (see reserve()). New elements are zero.
 */
StrataSpilledArray *
strata_spilled_array_new (guint elem_size)
{
  StrataSpilledArray *self;

  g_return_val_if_fail (elem_size > 0, NULL);

  self = g_new0 (StrataSpilledArray, 1);
  self->elem_size = elem_size;
  self->fd = -1;
  return self;
}

void
strata_spilled_array_free (StrataSpilledArray *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    {
      if (self->data != NULL)
        {
          ROOTS_REMOVE (self->data, self->bytes);
          munmap (self->data, self->bytes);
        }
      close (self->fd);
    }
  else
    g_free (self->data);
  g_free (self);
}

/* The file and its mapping made to hold @bytes. The file's blocks are
 * allocated here, where a full disk is an error to handle, not later
 * when a page of the mapping is first written (a SIGBUS then). */
static gboolean
grow_file (StrataSpilledArray *self,
           gsize               bytes)
{
  void *data;
  int err = posix_fallocate (self->fd, 0, (off_t) bytes);

  if (err == EOPNOTSUPP || err == EINVAL)
    err = ftruncate (self->fd, (off_t) bytes) != 0 ? errno : 0;
  if (err != 0)
    {
      errno = err;
      return FALSE;
    }
  if (self->data == NULL)
    data = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
  else
    data = mremap (self->data, self->bytes, bytes, MREMAP_MAYMOVE);
  if (data == MAP_FAILED)
    return FALSE;
  if (self->data != NULL)
    ROOTS_REMOVE (self->data, self->bytes);
  ROOTS_ADD (data, bytes);
  self->data = data;
  return TRUE;
}

/* Room for @len elements. While it is no bigger than LET_GO_WINDOW the
 * array is in the heap: none of it would be let go (tend() keeps the last
 * LET_GO_WINDOW bytes), and a small trace's tables need no file. Past
 * that it moves to a spill file; without one, or without room in it (a
 * full disk), it stays in (or goes back to) the heap rather than fail. */
static void
reserve (StrataSpilledArray *self,
         gsize               len)
{
  gsize old_bytes = self->bytes;
  gsize bytes = MAX (old_bytes, FIRST_BYTES);
  guint8 *was_in_heap = NULL;
  gsize capacity;

  if (len <= self->capacity)
    return;
  while (bytes / self->elem_size < len)
    bytes *= 2;
  capacity = bytes / self->elem_size;

  if (self->fd < 0 && !self->in_heap && bytes > LET_GO_WINDOW)
    {
      if ((self->fd = strata_spill_file_open (NULL)) < 0)
        self->in_heap = TRUE;
      else
        {
          was_in_heap = self->data;
          self->data = NULL;
        }
    }

  if (self->fd >= 0 && !grow_file (self, bytes))
    {
      int err = errno;
      guint8 *heap = g_malloc0 (bytes);

      g_debug ("spilled array: no room in its file (%s), kept in memory", g_strerror (err));
      if (self->data != NULL)
        {
          memcpy (heap, self->data, (gsize) self->len * self->elem_size);
          ROOTS_REMOVE (self->data, old_bytes);
          munmap (self->data, old_bytes);
        }
      else if (was_in_heap != NULL)
        memcpy (heap, was_in_heap, (gsize) self->len * self->elem_size);
      close (self->fd);
      self->fd = -1;
      self->in_heap = TRUE;
      self->data = heap;
    }
  else if (self->fd < 0)
    {
      self->data = g_realloc (self->data, bytes);
      memset (self->data + old_bytes, 0, bytes - old_bytes);
    }
  else if (was_in_heap != NULL)
    memcpy (self->data, was_in_heap, (gsize) self->len * self->elem_size);
  g_free (was_in_heap);
  self->capacity = capacity;
  self->bytes = bytes;
}

/* Grown by LET_GO_WINDOW since the last time: all but the last
 * LET_GO_WINDOW bytes go. */
static void
tend (StrataSpilledArray *self)
{
  gsize bytes = (gsize) self->len * self->elem_size;

  if (bytes < self->grown + LET_GO_WINDOW)
    return;
  self->grown = bytes;
  strata_spilled_array_let_go (self, (guint) ((bytes - LET_GO_WINDOW) / self->elem_size));
}

/* The elements from @len to the end zeroed, for when the array grows
 * again. In the file, the whole pages among them are punched out rather
 * than written: emptying an array of tens of MB (a level's spans scratch
 * after a chunk over a million threads) would otherwise bring every page
 * of it back into the process to write its zeros. And the array lets go
 * again as it grows from there, not only past the size it had. */
static void
zero_tail (StrataSpilledArray *self,
           guint               len)
{
  gsize from = (gsize) len * self->elem_size;
  gsize to = (gsize) self->len * self->elem_size;
  gsize page = page_size ();
  gsize hole = (from + page - 1) / page * page;
  gsize hole_end = to / page * page;

  self->grown = MIN (self->grown, from);
  if (self->fd >= 0 && hole < hole_end &&
      fallocate (self->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                 (off_t) hole, (off_t) (hole_end - hole)) == 0)
    {
      memset (self->data + from, 0, hole - from);
      memset (self->data + hole_end, 0, to - hole_end);
      return;
    }
  memset (self->data + from, 0, to - from);
}

/**
 * strata_spilled_array_set_size:
 *
 * The array made @len elements long; new elements are zero (a shorter
 * array's dropped elements are zeroed for when it grows again).
 */
void
strata_spilled_array_set_size (StrataSpilledArray *self,
                               guint               len)
{
  g_return_if_fail (self != NULL);

  if (len > self->len)
    reserve (self, len);
  else if (len < self->len)
    zero_tail (self, len);
  self->len = len;
  tend (self);
}

/**
 * strata_spilled_array_append:
 *
 * Returns: where @elem now is, until the array grows again
 */
gpointer
strata_spilled_array_append (StrataSpilledArray *self,
                             gconstpointer       elem)
{
  guint8 *at;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (self->len < G_MAXUINT, NULL);

  reserve (self, (gsize) self->len + 1);
  at = self->data + (gsize) self->len * self->elem_size;
  memcpy (at, elem, self->elem_size);
  self->len++;
  tend (self);
  return at;
}

/**
 * strata_spilled_array_let_go:
 * @before: an element; the whole pages before it go
 *
 * The pages before @before leave the process's memory; their contents
 * stay, and come back when they are read or written.
 */
void
strata_spilled_array_let_go (StrataSpilledArray *self,
                             guint               before)
{
  gsize end;

  g_return_if_fail (self != NULL);

  if (self->fd < 0 || self->data == NULL)
    return;
  end = MIN ((gsize) before, (gsize) self->len) * self->elem_size;
  end -= end % page_size ();
  if (end > 0)
    (void) madvise (self->data, end, MADV_DONTNEED);
}

/**
 * strata_spilled_array_get_heap_bytes:
 *
 * Returns: what the array holds in the heap: its block while it is small
 *   (up to a few MiB) or has no spill file, else nothing (its pages are
 *   the file's)
 */
gsize
strata_spilled_array_get_heap_bytes (const StrataSpilledArray *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->fd < 0 && self->data != NULL ? self->bytes : 0;
}
