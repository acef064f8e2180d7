/* strata-fresh-memory.h
 *
 * Big buffers the read side fills once (a table copied out of the mapped
 * index, a query's answer) ask the kernel for huge pages. A fresh 4 KiB
 * page costs a fault on first touch; on a virtual machine one costs tens
 * of microseconds, so copying the channel table of a million-thread
 * trace (43 MB, 10 500 faults) took most of its open. With transparent
 * huge pages in "madvise" mode (Debian's default) the same copy takes a
 * fault every 2 MiB; where they are off the advice is ignored.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

void strata_fresh_memory_advise (gpointer data,
                                 gsize    size);

G_END_DECLS
