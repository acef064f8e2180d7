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

#include "strata-file-io.h"

G_BEGIN_DECLS

int      strata_spill_file_open (GError       **error);

G_END_DECLS
