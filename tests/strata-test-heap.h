/* strata-test-heap.h — the heap in use, for the tests that bound what a
 * structure keeps per channel or per row.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <malloc.h>
#include <glib.h>

#if defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define STRATA_TEST_WITH_ASAN 1
# endif
#endif
#if !defined(STRATA_TEST_WITH_ASAN) && defined(__SANITIZE_ADDRESS__)
# define STRATA_TEST_WITH_ASAN 1
#endif
#ifdef STRATA_TEST_WITH_ASAN
# include <sanitizer/allocator_interface.h>
#endif

/* The heap in use, by malloc's count (the sanitizer's under ASan, which
 * takes malloc over). */
static inline gsize
strata_test_heap_in_use (void)
{
#ifdef STRATA_TEST_WITH_ASAN
  return __sanitizer_get_current_allocated_bytes ();
#else
  return mallinfo2 ().uordblks;
#endif
}
