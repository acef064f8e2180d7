/* strata-main-cpu.c
 *
 * An LD_PRELOAD shim for benchmarks: when the process exits, the CPU time
 * of its main thread (the one that runs exit handlers: for strata-cli
 * index, the builder) is appended to the file $STRATA_MAIN_CPU_OUT, in
 * seconds. bench/run-index-threads.py builds and uses it; the time the
 * other threads took is the process's total less this.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((destructor)) static void
strata_main_cpu_report (void)
{
  const char *path = getenv ("STRATA_MAIN_CPU_OUT");
  struct timespec ts;
  FILE *f;

  if (path == NULL || clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return;
  f = fopen (path, "a");
  if (f == NULL)
    return;
  fprintf (f, "%.4f\n", ts.tv_sec + ts.tv_nsec / 1e9);
  fclose (f);
}
