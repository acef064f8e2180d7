/* strata-file-windows.c
 *
 * A few windows of a file kept in memory. The index writer copies the
 * raw store's spill file into the index in the order of the channels,
 * while the file holds the exited channels' seals and the lanes' blocks
 * as two streams, interleaved in the order the channels closed, and a
 * long-lived thread's blocks over the whole of it: one read-ahead buffer
 * was read again at each jump between the streams (1.2 GB of 4 KiB
 * reads for a file of 50 MB on churn 2M). A window per stream, the least
 * recently used one given to a read that none holds, reads each stretch
 * once, a window at a time (less where a stream uses little of what it
 * reads).
 *
 * Reads of bytes past @end (not written for good) or of more than half a
 * window go to the file as they are.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-file-windows.h"

/* Where a window starts: a page boundary, so a stream that steps a little
 * back stays in it. */
#define WINDOW_ALIGN ((guint64) 4096)

/* What a window that starts a stream reads, unless set: a stream that goes on right
 * after a window's end (less than a quarter of it farther) reads twice as
 * much as that window the next time, up to the window; one that skips
 * more reads this again (a long-lived thread's blocks, one here and there
 * over the whole file, read a stretch of 256 KiB each). */
#define FIRST_FILL ((gsize) 16 << 10)

typedef struct
{
  guint64  offset;
  gsize    len;     /* 0: empty */
  guint64  used;    /* the reader's clock at its last use */
  guint8  *bytes;
} Window;

struct _StrataFileWindows
{
  GMutex                 lock;
  Window                *windows;
  guint                  n_windows;
  gsize                  window;
  guint64                end;
  guint64                clock;
  guint64                n_reads;
  gsize                  first_fill;
  StrataFileWindowsRead  read;
  gpointer               data;
};

/**
 * strata_file_windows_new:
 * @n_windows: how many windows, of @window bytes each
 * @end: the bytes before it are written for good
 * @read: how the file is read
 */
StrataFileWindows *
strata_file_windows_new (guint                 n_windows,
                         gsize                 window,
                         guint64               end,
                         StrataFileWindowsRead read,
                         gpointer              data)
{
  StrataFileWindows *self = g_new0 (StrataFileWindows, 1);

  g_return_val_if_fail (n_windows > 0 && window >= WINDOW_ALIGN, NULL);

  g_mutex_init (&self->lock);
  self->windows = g_new0 (Window, n_windows);
  self->n_windows = n_windows;
  self->window = window;
  self->end = end;
  self->first_fill = FIRST_FILL;
  self->read = read;
  self->data = data;
  return self;
}

void
strata_file_windows_free (StrataFileWindows *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->n_windows; i++)
    g_free (self->windows[i].bytes);
  g_free (self->windows);
  g_mutex_clear (&self->lock);
  g_free (self);
}

/**
 * strata_file_windows_set_first_fill:
 * @first_fill: what a window that starts a stream reads (16 KiB unless
 *   set), at least a page
 *
 * A reader whose streams mostly skip, a block here and there, reads less
 * with a small first fill: only a stream read right on grows its window.
 */
void
strata_file_windows_set_first_fill (StrataFileWindows *self,
                                    gsize              first_fill)
{
  g_return_if_fail (self != NULL);

  self->first_fill = CLAMP (first_fill, (gsize) WINDOW_ALIGN, self->window);
}

/* The reads of the file made, windows filled and reads past them. */
guint64
strata_file_windows_get_n_reads (StrataFileWindows *self)
{
  guint64 n;

  g_mutex_lock (&self->lock);
  n = self->n_reads;
  g_mutex_unlock (&self->lock);
  return n;
}

/* @size bytes at @offset into @out: from the window that holds them, or
 * from the least recently used one, read again from their page on. */
gboolean
strata_file_windows_read (StrataFileWindows *self,
                          guint64            offset,
                          gpointer           out,
                          gsize              size)
{
  Window *w = NULL, *next = NULL, *lru = NULL;
  guint64 start;

  if (size == 0)
    return TRUE;
  if (size > self->window / 2 || offset > self->end || size > self->end - offset)
    {
      g_mutex_lock (&self->lock);
      self->n_reads++;
      g_mutex_unlock (&self->lock);
      return self->read (self->data, offset, out, size);
    }

  g_mutex_lock (&self->lock);
  self->clock++;
  for (guint i = 0; i < self->n_windows; i++)
    {
      Window *c = &self->windows[i];

      if (c->len > 0 && offset >= c->offset && offset + size <= c->offset + c->len)
        {
          w = c;
          break;
        }
      /* The stream that @offset goes on (it ends past the window, not a
       * window's length farther), else the least recently used. */
      if (c->len > 0 && offset >= c->offset && offset + size > c->offset + c->len &&
          offset - c->offset < 2 * (guint64) c->len)
        {
          if (next == NULL || c->offset > next->offset)
            next = c;
        }
      else if (lru == NULL || c->used < lru->used)
        lru = c;
    }
  if (w == NULL)
    {
      gsize fill = self->first_fill;

      /* The stream's window stays (a stream goes forward only by and
       * large: the channels closed in about the order they began). */
      if (next != NULL)
        {
          guint64 end = next->offset + next->len;

          fill = offset - MIN (offset, end) < next->len / 4 ? 2 * next->len : self->first_fill;
        }
      w = lru != NULL ? lru : next;
      start = offset - offset % WINDOW_ALIGN;
      fill = CLAMP (fill, self->first_fill, self->window);
      fill = MAX (fill, (gsize) (offset + size - start));
      if (w->bytes == NULL)
        w->bytes = g_malloc (self->window);
      w->offset = start;
      w->len = (gsize) MIN ((guint64) fill, self->end - start);
      self->n_reads++;
      if (!self->read (self->data, start, w->bytes, w->len))
        {
          w->len = 0;
          g_mutex_unlock (&self->lock);
          return self->read (self->data, offset, out, size);
        }
    }
  w->used = self->clock;
  memcpy (out, w->bytes + (offset - w->offset), size);
  g_mutex_unlock (&self->lock);
  return TRUE;
}
