/* strata-fresh-memory.c
 *
 * Only the whole huge pages inside a buffer are advised: madvise() works
 * on pages, and the buffer's edges may share theirs with other
 * allocations, which keep the pages they have.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <sys/mman.h>

#include "strata-fresh-memory.h"

#define HUGE_PAGE ((guintptr) 2 << 20)

/* Asks for huge pages under the whole 2 MiB pages of [@data, @data +
 * @size), before they are first touched. */
void
strata_fresh_memory_advise (gpointer data,
                            gsize    size)
{
#ifdef MADV_HUGEPAGE
  guintptr first = ((guintptr) data + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  guintptr end = ((guintptr) data + size) & ~(HUGE_PAGE - 1);

  if (data != NULL && end > first)
    (void) madvise ((void *) first, end - first, MADV_HUGEPAGE);
#else
  (void) data;
  (void) size;
#endif
}
