/* strata-spill-file.h
 *
 * Where the pass puts what it must not hold in memory (packed blocks,
 * a coarse level's open chunk, exited threads' statistics): an unlinked
 * file in the user's cache or the temporary folder, gone when closed.
 * And the one way Strata reads and writes a file at an offset: all of
 * it, through short transfers and interrupted calls.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

int      strata_spill_file_open (GError       **error);

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

G_END_DECLS
