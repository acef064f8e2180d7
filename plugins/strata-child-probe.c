/* strata-child-probe.c
 *
 * Running a reader's risky first parse in a forked child: see
 * strata-child-probe.h.
 *
 * The child only calls the library it probes, and malloc, which glibc
 * keeps usable after fork. Not every allocator is: under
 * AddressSanitizer (clang 14) a child forked while another thread held
 * the allocator's lock waits for it for ever, a few times in a hundred in
 * the viewer's tests. Such a child is told apart from a slow one by the
 * kernel (it sits in a futex wait and uses no CPU), killed and forked
 * again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strata-child-probe.h"

/* Present only under a sanitizer runtime. */
extern void __sanitizer_set_death_callback (void (*callback) (void)) __attribute__((weak));

#define PROBE_ATTEMPTS    3
#define PROBE_STUCK_USEC  (2 * G_USEC_PER_SEC)
#define PROBE_POLL_USEC   500
/* How often the kernel is asked whether the child still works. */
#define PROBE_CHECK_EVERY 100

typedef enum
{
  ONCE_EXITED,
  ONCE_HUNG,
  ONCE_STUCK,      /* waits on a lock it inherited */
  ONCE_NO_CHILD,
} OnceResult;

/* The first bytes of /proc/@pid/@what, NUL-terminated; FALSE if none. */
static gboolean
read_proc (pid_t       pid,
           const char *what,
           char       *buf,
           gsize       size)
{
  char file[64];
  ssize_t n;
  int fd;

  g_snprintf (file, sizeof file, "/proc/%d/%s", (int) pid, what);
  if ((fd = open (file, O_RDONLY | O_CLOEXEC)) < 0)
    return FALSE;
  n = read (fd, buf, size - 1);
  close (fd);
  if (n <= 0)
    return FALSE;
  buf[n] = '\0';
  return TRUE;
}

/* The CPU time @pid has used (in clock ticks), and whether it is waiting
 * in a futex right now; FALSE if /proc does not say. */
static gboolean
child_cpu_and_wait (pid_t     pid,
                    guint64  *cpu,
                    gboolean *in_futex)
{
  char buf[512];
  unsigned long long utime, stime;
  const char *after_name;
  long syscall_nr;

  /* Past the command's name, which may hold spaces: state is field 3,
   * utime and stime fields 14 and 15. */
  if (!read_proc (pid, "stat", buf, sizeof buf) ||
      (after_name = strrchr (buf, ')')) == NULL ||
      sscanf (after_name + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
              &utime, &stime) != 2)
    return FALSE;
  *cpu = utime + stime;

  if (!read_proc (pid, "syscall", buf, sizeof buf))
    return FALSE;
  *in_futex = sscanf (buf, "%ld", &syscall_nr) == 1 && syscall_nr == SYS_futex;
  return TRUE;
}

static OnceResult
probe_once (StrataChildProbeFunc  func,
            gpointer              data,
            guint                 timeout_ms,
            int                  *wait_status)
{
  pid_t pid;
  pid_t done = 0;
  gint64 deadline, last_progress;
  guint64 last_cpu = G_MAXUINT64;
  guint polls = 0;

  pid = fork ();
  if (pid < 0)
    return ONCE_NO_CHILD;

  if (pid == 0)
    {
      /* Die of the signal, not in a handler of the parent's: a sanitizer
       * or fuzzer runtime would report the child's crash as its own. */
      signal (SIGSEGV, SIG_DFL);
      signal (SIGBUS, SIG_DFL);
      signal (SIGABRT, SIG_DFL);
      signal (SIGFPE, SIG_DFL);
      signal (SIGILL, SIG_DFL);
      if (__sanitizer_set_death_callback != NULL)
        __sanitizer_set_death_callback (NULL);
      alarm (timeout_ms / 1000 + 1);
      func (data);
      _exit (0);
    }

  last_progress = g_get_monotonic_time ();
  deadline = last_progress + timeout_ms * G_TIME_SPAN_MILLISECOND;
  while ((done = waitpid (pid, wait_status, WNOHANG)) == 0 ||
         (done < 0 && errno == EINTR))
    {
      gint64 now = g_get_monotonic_time ();

      if (now > deadline)
        break;
      /* Now and then: has it used CPU since, or is it parked in a futex? */
      if (++polls % PROBE_CHECK_EVERY == 0)
        {
          guint64 cpu = last_cpu;
          gboolean in_futex;

          /* What /proc does not say is taken as progress. */
          if (!child_cpu_and_wait (pid, &cpu, &in_futex) || cpu != last_cpu || !in_futex)
            {
              last_cpu = cpu;
              last_progress = now;
            }
          else if (now - last_progress > PROBE_STUCK_USEC)
            {
              kill (pid, SIGKILL);
              waitpid (pid, NULL, 0);
              return ONCE_STUCK;
            }
        }
      g_usleep (PROBE_POLL_USEC);
    }

  if (done == 0)
    {
      kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
      return ONCE_HUNG;
    }
  return done < 0 ? ONCE_NO_CHILD : ONCE_EXITED;
}

/**
 * strata_child_probe_run:
 * @func: what the child runs
 * @timeout_ms: how long the child may work before it counts as hung
 * @wait_status: (out): the child's wait status, when it exited
 *
 * Runs @func in a forked child and waits for it. A child that waits on
 * an inherited lock is killed and forked again, up to three times.
 *
 * Returns: what became of the child
 */
StrataChildProbeResult
strata_child_probe_run (StrataChildProbeFunc  func,
                        gpointer              data,
                        guint                 timeout_ms,
                        int                  *wait_status)
{
  *wait_status = 0;
  for (guint attempt = 0; attempt < PROBE_ATTEMPTS; attempt++)
    {
      switch (probe_once (func, data, timeout_ms, wait_status))
        {
        case ONCE_EXITED:
          return STRATA_CHILD_PROBE_EXITED;
        case ONCE_HUNG:
          return STRATA_CHILD_PROBE_HUNG;
        case ONCE_NO_CHILD:
          return STRATA_CHILD_PROBE_NO_CHILD;
        case ONCE_STUCK:
          g_debug ("the probe's child waited on an inherited lock; forked again");
          break;
        default:
          g_assert_not_reached ();
        }
    }
  return STRATA_CHILD_PROBE_NO_CHILD;
}
