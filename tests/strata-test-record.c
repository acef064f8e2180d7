/* strata-test-record.c
 *
 * Running recordings from the tests: see strata-test-record.h. The
 * recorder and the workload are real processes, talked to through their
 * pipes; everything waits on what they print, never on a clock.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "strata-test-record.h"

gboolean
strata_test_record_permitted (char **why)
{
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2] = { { 0 } };
  gboolean admin = FALSE, bpf = FALSE, perfmon = FALSE;

  if (syscall (SYS_capget, &header, data) == 0)
    {
      admin = (data[0].effective & (1u << 21)) != 0;           /* CAP_SYS_ADMIN */
      perfmon = (data[1].effective & (1u << (38 - 32))) != 0;  /* CAP_PERFMON */
      bpf = (data[1].effective & (1u << (39 - 32))) != 0;      /* CAP_BPF */
    }
  if (!admin && !(bpf && perfmon))
    {
      *why = g_strdup ("recording needs root (or CAP_BPF and CAP_PERFMON); these tests "
                       "run as root in CI");
      return FALSE;
    }
  if (access ("/sys/kernel/btf/vmlinux", R_OK) != 0)
    {
      *why = g_strdup ("this kernel has no BTF (/sys/kernel/btf/vmlinux): it cannot load "
                       "the recorder's programs");
      return FALSE;
    }
  return TRUE;
}

int
strata_test_record_lock (void)
{
  int fd = open (STRATA_TEST_RECORD_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

  g_assert_cmpint (fd, >=, 0);
  while (flock (fd, LOCK_EX) != 0)
    g_assert_cmpint (errno, ==, EINTR);
  return fd;
}

void
strata_test_record_unlock (int fd)
{
  flock (fd, LOCK_UN);
  close (fd);
}

/* A test that fails an assertion aborts: its recorder must not outlive it,
 * recording on and holding the test runner's output pipe until the
 * runner's timeout. The recorder finishes its file on SIGTERM. */
static void
die_with_the_test (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

GSubprocess *
strata_test_recorder_start (const char          *output,
                            const char * const  *args,
                            GError             **error)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) recorder = NULL;
  g_autoptr(GDataInputStream) err = NULL;
  const char *cli = g_getenv ("STRATA_CLI");

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (char *) cli);
  g_ptr_array_add (argv, (char *) "record");
  g_ptr_array_add (argv, (char *) "-q");
  g_ptr_array_add (argv, (char *) "-o");
  g_ptr_array_add (argv, (char *) output);
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, die_with_the_test, NULL, NULL);
  recorder = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, error);
  if (recorder == NULL)
    return NULL;

  /* "strata-cli record: recording to FILE ..." once the hooks are in. */
  err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (recorder));
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (err), FALSE);
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line_utf8 (err, NULL, NULL, error);

      if (line == NULL)
        {
          if (error != NULL && *error == NULL)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the recorder did not start");
          g_subprocess_wait (recorder, NULL, NULL);
          return NULL;
        }
      g_test_message ("recorder: %s", line);
      if (g_str_has_prefix (line, "strata-cli record: recording to "))
        break;
      if (g_str_has_prefix (line, "strata-cli record: "))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", line);
          g_subprocess_wait (recorder, NULL, NULL);
          return NULL;
        }
    }

  /* What it says later is read through the same buffer. */
  g_object_set_data_full (G_OBJECT (recorder), "strata-test-stderr", g_steal_pointer (&err),
                          g_object_unref);
  return g_steal_pointer (&recorder);
}

gboolean
strata_test_recorder_stop (GSubprocess  *recorder,
                           char        **err,
                           GError      **error)
{
  return strata_test_recorder_stop_with (recorder, SIGINT, err, error);
}

gboolean
strata_test_recorder_stop_with (GSubprocess  *recorder,
                                int           signum,
                                char        **err,
                                GError      **error)
{
  GInputStream *pipe = g_object_get_data (G_OBJECT (recorder), "strata-test-stderr");
  g_autoptr(GByteArray) all = g_byte_array_new ();

  g_subprocess_send_signal (recorder, signum);
  for (;;)
    {
      guint8 buf[4096];
      gssize n = g_input_stream_read (pipe, buf, sizeof buf, NULL, error);

      if (n < 0)
        return FALSE;
      if (n == 0)
        break;
      g_byte_array_append (all, buf, n);
    }
  if (!g_subprocess_wait (recorder, NULL, error))
    return FALSE;
  g_byte_array_append (all, (const guint8 *) "", 1);
  if (err != NULL)
    *err = g_strdup ((const char *) all->data);
  g_test_message ("recorder: %s", (const char *) all->data);

  if (!g_subprocess_get_if_exited (recorder) || g_subprocess_get_exit_status (recorder) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the recorder failed (%s %d): %s",
                   g_subprocess_get_if_exited (recorder) ? "exit status" : "signal",
                   g_subprocess_get_if_exited (recorder) ? g_subprocess_get_exit_status (recorder)
                                                         : g_subprocess_get_term_sig (recorder),
                   (const char *) all->data);
      return FALSE;
    }
  return TRUE;
}

GSubprocess *
strata_test_workload_start (int          round_trips,
                            int          spin_us,
                            gint32      *pid,
                            GError     **error)
{
  const char *path = g_getenv ("STRATA_RECORD_WORKLOAD");
  g_autofree char *trips = g_strdup_printf ("%d", round_trips);
  g_autofree char *spin = g_strdup_printf ("%d", spin_us);
  g_autoptr(GSubprocess) workload = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *line = NULL;

  g_assert_nonnull (path);
  workload = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                               error, path, trips, spin, NULL);
  if (workload == NULL)
    return NULL;

  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (workload));
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (out), FALSE);
  line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, error);
  if (line == NULL || !g_str_has_prefix (line, "ready "))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the workload did not start");
      return NULL;
    }
  *pid = atoi (line + 6);

  return g_steal_pointer (&workload);
}

GArray *
strata_test_workload_finish (GSubprocess  *workload,
                             GError      **error)
{
  g_autoptr(GArray) threads = g_array_new (FALSE, TRUE, sizeof (StrataTestThread));
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_subprocess_communicate_utf8 (workload, "go\n", NULL, &out, NULL, error))
    return NULL;
  if (!g_subprocess_get_if_exited (workload) || g_subprocess_get_exit_status (workload) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the workload failed");
      return NULL;
    }

  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      StrataTestThread t = { 0 };
      long long a0, b0, a1, b1, sw, cpu;
      char name[16];
      int tid;

      if (sscanf (lines[i], "thread %d %15s %lld %lld %lld %lld %lld %lld",
                  &tid, name, &a0, &b0, &a1, &b1, &sw, &cpu) != 8)
        continue;
      t.tid = tid;
      g_strlcpy (t.name, name, sizeof t.name);
      t.a0 = a0;
      t.b0 = b0;
      t.a1 = a1;
      t.b1 = b1;
      t.switches = sw;
      t.cpu_ns = cpu;
      g_test_message ("workload: %s", lines[i]);
      g_array_append_val (threads, t);
    }

  return g_steal_pointer (&threads);
}

const StrataTestThread *
strata_test_thread_find (GArray     *threads,
                         const char *name)
{
  for (guint i = 0; i < threads->len; i++)
    if (g_str_equal (g_array_index (threads, StrataTestThread, i).name, name))
      return &g_array_index (threads, StrataTestThread, i);
  return NULL;
}
