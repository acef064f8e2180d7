/* strata-file-windows.h
 *
 * A few windows of a file kept in memory, for a reader that goes through
 * it in several interleaved streams, each forward, and would otherwise
 * read it a block at a time or read the same stretch again and again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Reads @size bytes at @offset into @out, all of them or FALSE. */
typedef gboolean (*StrataFileWindowsRead) (gpointer  data,
                                           guint64   offset,
                                           gpointer  out,
                                           gsize     size);

typedef struct _StrataFileWindows StrataFileWindows;

StrataFileWindows *strata_file_windows_new   (guint                  n_windows,
                                              gsize                  window,
                                              guint64                end,
                                              StrataFileWindowsRead  read,
                                              gpointer               data);
void               strata_file_windows_free  (StrataFileWindows     *self);
void               strata_file_windows_set_first_fill (StrataFileWindows *self,
                                                       gsize              first_fill);
gboolean           strata_file_windows_read  (StrataFileWindows     *self,
                                              guint64                offset,
                                              gpointer               out,
                                              gsize                  size);
guint64            strata_file_windows_get_n_reads (StrataFileWindows *self);

G_END_DECLS
