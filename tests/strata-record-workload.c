/* strata-record-workload.c
 *
 * The workload the recording tests record: threads that spin and sleep
 * in known patterns and ping-pong through a pipe a known number of
 * times. One of them ("strata-pre") exists before the recording starts:
 * the program starts it, prints "ready" and waits for a line on stdin
 * before anything else happens. Each thread then measures itself, with
 * the kernel's own counters, which are independent of any trace: its
 * context switches (voluntary and involuntary, from getrusage) and its
 * CPU time (CLOCK_THREAD_CPUTIME_ID) between two moments it notes on
 * CLOCK_MONOTONIC, the clock recordings use. Each read of the counters
 * is bracketed by two clock reads, so a test knows within which times
 * it was taken. At the end it prints a line per thread:
 *
 *   thread TID NAME A0 B0 A1 B1 SWITCHES CPU_NS
 *
 * SWITCHES and CPU_NS are the counters' growth between the read taken
 * in [A0, B0] and the one taken in [A1, B1].
 *
 *   strata-record-workload [ROUND_TRIPS [SPIN_US]]
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef struct
{
  const char *name;
  pid_t       tid;
  long long   a0, b0, a1, b1;
  long long   switches;
  long long   cpu_ns;
} Measure;

static int round_trips = 1000;
static int spin_us = 20;
static int ping_to_pong[2], pong_to_ping[2], go_pipe[2];

static long long
clock_of (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long
switches_now (void)
{
  struct rusage ru;

  getrusage (RUSAGE_THREAD, &ru);
  return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void
measure_begin (Measure    *m,
               const char *name)
{
  m->name = name;
  m->tid = syscall (SYS_gettid);
  prctl (PR_SET_NAME, name);
  m->a0 = clock_of (CLOCK_MONOTONIC);
  m->switches = switches_now ();
  m->cpu_ns = clock_of (CLOCK_THREAD_CPUTIME_ID);
  m->b0 = clock_of (CLOCK_MONOTONIC);
}

static void
measure_end (Measure *m)
{
  m->a1 = clock_of (CLOCK_MONOTONIC);
  m->cpu_ns = clock_of (CLOCK_THREAD_CPUTIME_ID) - m->cpu_ns;
  m->switches = switches_now () - m->switches;
  m->b1 = clock_of (CLOCK_MONOTONIC);
}

static void
spin (long long ns)
{
  long long until = clock_of (CLOCK_THREAD_CPUTIME_ID) + ns;

  while (clock_of (CLOCK_THREAD_CPUTIME_ID) < until)
    ;
}

static void
rest (long long ns)
{
  struct timespec ts = { ns / 1000000000LL, ns % 1000000000LL };

  nanosleep (&ts, NULL);
}

/* Spins 20 ms, sleeps 10 ms, ten times. */
static void *
spinner (void *data)
{
  Measure *m = data;

  measure_begin (m, "strata-spin");
  for (int i = 0; i < 10; i++)
    {
      spin (20 * 1000000LL);
      rest (10 * 1000000LL);
    }
  measure_end (m);
  return NULL;
}

static void *
ping (void *data)
{
  Measure *m = data;
  char c = 'x';

  measure_begin (m, "strata-ping");
  for (int i = 0; i < round_trips; i++)
    {
      spin (spin_us * 1000LL);
      if (write (ping_to_pong[1], &c, 1) != 1 || read (pong_to_ping[0], &c, 1) != 1)
        abort ();
    }
  measure_end (m);
  return NULL;
}

/* Exists before the recording: named, then asleep on the go pipe. */
static void *
pong (void *data)
{
  Measure *m = data;
  char c;

  prctl (PR_SET_NAME, "strata-pre");
  if (read (go_pipe[0], &c, 1) != 1)
    abort ();

  measure_begin (m, "strata-pre");
  for (int i = 0; i < round_trips; i++)
    {
      if (read (ping_to_pong[0], &c, 1) != 1)
        abort ();
      spin (spin_us * 1000LL);
      if (write (pong_to_ping[1], &c, 1) != 1)
        abort ();
    }
  measure_end (m);
  return NULL;
}

int
main (int    argc,
      char **argv)
{
  Measure measures[3];
  pthread_t pre, threads[2];
  char line[64];

  if (argc > 1)
    round_trips = atoi (argv[1]);
  if (argc > 2)
    spin_us = atoi (argv[2]);
  memset (measures, 0, sizeof measures);

  if (pipe (ping_to_pong) != 0 || pipe (pong_to_ping) != 0 || pipe (go_pipe) != 0)
    return 1;

  prctl (PR_SET_NAME, "strata-work");
  pthread_create (&pre, NULL, pong, &measures[0]);
  /* Let it name itself and fall asleep before saying so. */
  rest (20 * 1000000LL);
  printf ("ready %d\n", (int) getpid ());
  fflush (stdout);

  if (fgets (line, sizeof line, stdin) == NULL)
    return 1;

  if (write (go_pipe[1], "g", 1) != 1)
    return 1;
  pthread_create (&threads[0], NULL, spinner, &measures[1]);
  pthread_create (&threads[1], NULL, ping, &measures[2]);
  pthread_join (threads[0], NULL);
  pthread_join (threads[1], NULL);
  pthread_join (pre, NULL);

  for (int i = 0; i < 3; i++)
    printf ("thread %d %s %lld %lld %lld %lld %lld %lld\n", (int) measures[i].tid, measures[i].name,
            measures[i].a0, measures[i].b0, measures[i].a1, measures[i].b1,
            measures[i].switches, measures[i].cpu_ns);
  printf ("done\n");
  fflush (stdout);

  return 0;
}
