/* strata-file-io.h
 *
 * Reading and writing a file at an offset, all of it, through short
 * transfers and interrupted calls: the pass's spill files, the index, and
 * the readers' files alike.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The _some calls return how many bytes moved; when fewer than @size,
 * errno says why, and is 0 when the file ended. */
gsize    strata_file_write_some (int            fd,
                                 gconstpointer  data,
                                 gsize          size,
                                 guint64        offset);
gboolean strata_file_write_all  (int            fd,
                                 gconstpointer  data,
                                 gsize          size,
                                 guint64        offset);
gsize    strata_file_read_some  (int            fd,
                                 gpointer       out,
                                 gsize          size,
                                 guint64        offset);
gboolean strata_file_read_all   (int            fd,
                                 gpointer       out,
                                 gsize          size,
                                 guint64        offset);

/* strata_file_read_all(), and why not: @errsv is errno, or 0 when the file
 * ended before @size bytes. */
gboolean strata_file_read_exact (int            fd,
                                 gpointer       out,
                                 gsize          size,
                                 guint64        offset,
                                 int           *errsv);

G_END_DECLS
