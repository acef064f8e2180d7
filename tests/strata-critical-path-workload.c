/* strata-critical-path-workload.c
 *
 * The test workload of the critical path: a known chain of dependencies
 * for test-critical-path to find again in a recording of it. Three
 * threads start together; A (the main thread) spins 10 ms and reads a
 * pipe that B writes; B reads a pipe that C writes; C spins 20 ms,
 * sleeps 50 ms, spins 20 ms and writes B's pipe; B then spins 30 ms and
 * writes A's; A spins 40 ms and ends. Walking back from A's end, the
 * path is A (40 ms), B (30 ms), C (20 ms, the 50 ms sleep an interrupt
 * ended, then the part of its first spin after A blocked) and A's first
 * 10 ms. Spins are measured by the clock, so a preempted spin still
 * takes its time. Each thread notes when it did what (CLOCK_MONOTONIC
 * ns, the clock perf -k CLOCK_MONOTONIC and ftrace's "mono" use) in the
 * file given as the argument, which the test compares with the path.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define MS 1000000LL

static pthread_barrier_t start_line;
static int pipe_ab[2], pipe_bc[2];

static struct
{
  long long a_tid, b_tid, c_tid;
  long long start, a_block, a_woke, a_end;
  long long b_woke, b_write;
  long long c_sleep, c_woke, c_write;
} note;

static long long
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
spin (long long ns)
{
  long long until = now () + ns;
  volatile unsigned long sink = 0;

  while (now () < until)
    sink++;
}

static long long
gettid_ll (void)
{
  return (long long) syscall (SYS_gettid);
}

static void
read_one (int fd)
{
  char c;

  if (read (fd, &c, 1) != 1)
    {
      perror ("read");
      exit (1);
    }
}

static void
write_one (int fd)
{
  if (write (fd, "x", 1) != 1)
    {
      perror ("write");
      exit (1);
    }
}

static void *
thread_b (void *data)
{
  (void) data;
  note.b_tid = gettid_ll ();
  pthread_barrier_wait (&start_line);
  read_one (pipe_bc[0]);
  note.b_woke = now ();
  spin (30 * MS);
  note.b_write = now ();
  write_one (pipe_ab[1]);
  return NULL;
}

static void *
thread_c (void *data)
{
  struct timespec nap = { 0, 50 * MS };

  (void) data;
  note.c_tid = gettid_ll ();
  pthread_barrier_wait (&start_line);
  spin (20 * MS);
  note.c_sleep = now ();
  nanosleep (&nap, NULL);
  note.c_woke = now ();
  spin (20 * MS);
  note.c_write = now ();
  write_one (pipe_bc[1]);
  return NULL;
}

int
main (int    argc,
      char **argv)
{
  pthread_t b, c;
  FILE *out;

  if (argc != 2)
    {
      fprintf (stderr, "usage: %s LOG\n", argv[0]);
      return 2;
    }
  if (pipe (pipe_ab) != 0 || pipe (pipe_bc) != 0)
    {
      perror ("pipe");
      return 1;
    }

  note.a_tid = gettid_ll ();
  pthread_barrier_init (&start_line, NULL, 3);
  pthread_create (&b, NULL, thread_b, NULL);
  pthread_create (&c, NULL, thread_c, NULL);
  pthread_barrier_wait (&start_line);
  note.start = now ();
  spin (10 * MS);
  note.a_block = now ();
  read_one (pipe_ab[0]);
  note.a_woke = now ();
  spin (40 * MS);
  note.a_end = now ();
  pthread_join (b, NULL);
  pthread_join (c, NULL);

  out = fopen (argv[1], "w");
  if (out == NULL)
    {
      perror (argv[1]);
      return 1;
    }
  fprintf (out, "a_tid %lld\nb_tid %lld\nc_tid %lld\n", note.a_tid, note.b_tid, note.c_tid);
  fprintf (out, "start %lld\na_block %lld\na_woke %lld\na_end %lld\n",
           note.start, note.a_block, note.a_woke, note.a_end);
  fprintf (out, "b_woke %lld\nb_write %lld\n", note.b_woke, note.b_write);
  fprintf (out, "c_sleep %lld\nc_woke %lld\nc_write %lld\n", note.c_sleep, note.c_woke, note.c_write);
  return fclose (out) == 0 ? 0 : 1;
}
