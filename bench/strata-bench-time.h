/* strata-bench-time.h
 *
 * What the frame benchmarks time with: the calling thread's CPU time,
 * and the median of a run's samples.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <time.h>

#include <glib.h>

static inline gint64
cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static inline int
cmp_i64 (gconstpointer a,
         gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The median of @samples (nanoseconds, sorted in place), in ms. */
static inline double
median_ms (GArray *samples)
{
  g_array_sort (samples, cmp_i64);
  return samples->len ? g_array_index (samples, gint64, samples->len / 2) / 1e6 : 0;
}
