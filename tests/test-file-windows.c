/* test-file-windows.c
 *
 * The windows of a file (base/strata-file-windows.c) answer every read
 * as the file does, whatever the order (streams interleaved, jumps back,
 * reads across a window's end, past the written end, larger than a
 * window), and read a stretch read in order once; started at a page, a
 * reader that skips reads a page a read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "strata-file-io.h"
#include "strata-file-windows.h"

#define FILE_BYTES  ((gsize) 3 << 20)
#define WINDOW      ((gsize) 64 << 10)

typedef struct
{
  int     fd;
  guint64 n_reads;
  guint64 n_bytes;
} File;

static gboolean
file_read (gpointer data,
           guint64  offset,
           gpointer out,
           gsize    size)
{
  File *f = data;

  f->n_reads++;
  f->n_bytes += size;
  return strata_file_read_all (f->fd, out, size, offset);
}

static File
make_file (guint8 **bytes)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "strata-file-windows-XXXXXX", NULL);
  File f = { g_mkstemp (path), 0, 0 };

  g_assert_cmpint (f.fd, >=, 0);
  g_unlink (path);
  *bytes = g_malloc (FILE_BYTES);
  for (gsize i = 0; i < FILE_BYTES; i++)
    (*bytes)[i] = (guint8) g_rand_int (rand);
  g_assert_true (strata_file_write_all (f.fd, *bytes, FILE_BYTES, 0));
  return f;
}

/* Reads of every kind through windows over the first @end bytes equal
 * the file's bytes. */
static void
test_reads_equal_file (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  g_autofree guint8 *bytes = NULL;
  g_autofree guint8 *out = g_malloc (2 * WINDOW);
  File f = make_file (&bytes);
  guint64 end = FILE_BYTES - 12345;   /* the rest "not written for good" */
  StrataFileWindows *windows = strata_file_windows_new (4, WINDOW, end, file_read, &f);
  guint64 streams[6] = { 0, FILE_BYTES / 6, FILE_BYTES / 3, FILE_BYTES / 2, 2 * FILE_BYTES / 3, end - 5000 };

  for (guint i = 0; i < 200000; i++)
    {
      guint kind = g_rand_int_range (rand, 0, 10);
      guint64 offset;
      gsize size;

      if (kind < 7)
        {
          /* One of six streams forward, more than there are windows. */
          guint s = g_rand_int_range (rand, 0, 6);

          size = g_rand_int_range (rand, 1, 3000);
          offset = streams[s];
          streams[s] += size + g_rand_int_range (rand, 0, 200);
          if (streams[s] >= FILE_BYTES - 3000)
            streams[s] = g_rand_int_range (rand, 0, 4096);
        }
      else if (kind < 9)
        {
          /* Anywhere, past the written end too. */
          size = g_rand_int_range (rand, 1, 9000);
          offset = g_rand_int_range (rand, 0, FILE_BYTES - size);
        }
      else
        {
          /* Larger than half a window. */
          size = g_rand_int_range (rand, WINDOW / 2 + 1, 2 * WINDOW);
          offset = g_rand_int_range (rand, 0, FILE_BYTES - size);
        }
      memset (out, 0, size);
      g_assert_true (strata_file_windows_read (windows, offset, out, size));
      g_assert_cmpmem (out, size, bytes + offset, size);
    }
  g_assert_true (strata_file_windows_read (windows, 0, out, 0));
  /* Past the file's end: FALSE, as the file says. */
  g_assert_false (strata_file_windows_read (windows, FILE_BYTES - 10, out, 20));
  strata_file_windows_free (windows);
  close (f.fd);
}

/* Two streams read forward, interleaved, a few bytes at a time, are read
 * from the file a window at a time: each stretch once. */
static void
test_streams_read_once (void)
{
  g_autofree guint8 *bytes = NULL;
  guint8 out[300];
  File f = make_file (&bytes);
  StrataFileWindows *windows = strata_file_windows_new (4, WINDOW, FILE_BYTES, file_read, &f);
  guint64 a = 100, b = FILE_BYTES / 2 + 7;

  while (b + sizeof out <= FILE_BYTES)
    {
      g_assert_true (strata_file_windows_read (windows, a, out, 100));
      g_assert_cmpmem (out, 100, bytes + a, 100);
      g_assert_true (strata_file_windows_read (windows, b, out, sizeof out));
      g_assert_cmpmem (out, sizeof out, bytes + b, sizeof out);
      a += 150;
      b += sizeof out;
    }
  g_test_message ("%" G_GUINT64_FORMAT " reads for %" G_GSIZE_FORMAT " windows' worth",
                  f.n_reads, FILE_BYTES / WINDOW);
  /* The stretches the streams cover, a window each (and one for the
   * starts' pages). */
  g_assert_cmpuint (f.n_reads, <=, (a - 100) / (WINDOW - 4096) + (b - FILE_BYTES / 2) / (WINDOW - 4096) + 4);
  g_assert_cmpuint (f.n_reads, ==, strata_file_windows_get_n_reads (windows));
  strata_file_windows_free (windows);
  close (f.fd);
}

/* With a first fill of a page, a reader that skips (1 KiB, then 15 KiB
 * on: a busy lane's blocks among the others', as the tree's finish reads
 * them) reads a page for each read, not a window, and gets the file's
 * bytes; a stream read right on still grows its window and reads each
 * stretch once. */
static void
test_first_fill_page (void)
{
  g_autofree guint8 *bytes = NULL;
  guint8 out[1024];
  File f = make_file (&bytes);
  StrataFileWindows *windows = strata_file_windows_new (4, WINDOW, FILE_BYTES, file_read, &f);
  guint64 n = 0, at;

  strata_file_windows_set_first_fill (windows, 4096);
  for (at = 100; at + sizeof out <= FILE_BYTES; at += 16 << 10, n++)
    {
      g_assert_true (strata_file_windows_read (windows, at, out, sizeof out));
      g_assert_cmpmem (out, sizeof out, bytes + at, sizeof out);
    }
  /* A page, two where the read crosses a page's end. */
  g_assert_cmpuint (f.n_reads, ==, n);
  g_assert_cmpuint (f.n_bytes, <=, n * 2 * 4096);

  f.n_reads = f.n_bytes = 0;
  for (at = 0; at + sizeof out <= FILE_BYTES; at += sizeof out)
    {
      g_assert_true (strata_file_windows_read (windows, at, out, sizeof out));
      g_assert_cmpmem (out, sizeof out, bytes + at, sizeof out);
    }
  /* The window doubles from a page to its size: a few reads to grow,
   * then a window a read, each byte read about once. */
  g_assert_cmpuint (f.n_reads, <=, FILE_BYTES / (WINDOW - 4096) + 8);
  g_assert_cmpuint (f.n_bytes, <=, FILE_BYTES + 4 * WINDOW);
  strata_file_windows_free (windows);
  close (f.fd);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/file-windows/reads-equal-file", test_reads_equal_file);
  g_test_add_func ("/strata/file-windows/streams-read-once", test_streams_read_once);
  g_test_add_func ("/strata/file-windows/first-fill-page", test_first_fill_page);

  return g_test_run ();
}
