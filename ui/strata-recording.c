/* strata-recording.c
 *
 * The recorder is a child with two pipes: its stdin, which the
 * application closes to stop it (--stop-on-eof), and its stderr, read
 * line by line for "recording to" (the hooks are in) or the error that
 * came instead. The end is decided only once both the process has exited
 * and its stderr is read to the end, so a failure's message is the
 * recorder's own last word when it had one, else what pkexec's exit
 * status means (126: the dialog was dismissed, 127: not authorized).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "strata-recording.h"

/* capability(7) numbers, not in every libc's headers. */
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT     39

struct _StrataRecording
{
  GObject              parent_instance;

  StrataRecordOptions  options;
  gboolean             via_pkexec;
  char                *pkexec;
  char                *cli;

  GSubprocess         *process;
  GDataInputStream    *err;
  GCancellable        *cancellable;
  char                *last_error;   /* the recorder's last "strata-cli record: " line */
  gboolean             started;
  gboolean             exited;
  gboolean             err_done;
  gboolean             ended;
  gboolean             discard;      /* the file goes once the recorder exits */
};

enum
{
  STARTED,
  FAILED,
  FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (StrataRecording, strata_recording, G_TYPE_OBJECT)

void
strata_record_options_clear (StrataRecordOptions *options)
{
  g_clear_pointer (&options->command, g_free);
  g_clear_pointer (&options->output, g_free);
}

/**
 * strata_record_default_output:
 *
 * Where a recording goes unless the user says: a file named after the
 * moment, under the user's data folder (recordings are kept, not cache).
 */
char *
strata_record_default_output (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y-%m-%d-%H%M%S");
  g_autofree char *name = g_strdup_printf ("recording-%s.strata", stamp);

  return g_build_filename (g_get_user_data_dir (), "strata", "recordings", name, NULL);
}

gboolean
strata_recording_privileged (void)
{
  g_autofree char *status = NULL;
  const char *line;
  guint64 caps;

  if (geteuid () == 0)
    return TRUE;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL) ||
      (line = strstr (status, "\nCapEff:")) == NULL ||
      sscanf (line + strlen ("\nCapEff:"), "%" G_GINT64_MODIFIER "x", &caps) != 1)
    return FALSE;
  return (caps & (G_GUINT64_CONSTANT (1) << CAP_PERFMON_BIT)) != 0 &&
         (caps & (G_GUINT64_CONSTANT (1) << CAP_BPF_BIT)) != 0;
}

static void
strata_recording_finalize (GObject *object)
{
  StrataRecording *self = (StrataRecording *) object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  /* Gone with the window: stdin closes with the pipe, and the recorder
   * finishes its file by itself. */
  g_clear_object (&self->err);
  g_clear_object (&self->process);
  strata_record_options_clear (&self->options);
  g_free (self->pkexec);
  g_free (self->cli);
  g_free (self->last_error);

  G_OBJECT_CLASS (strata_recording_parent_class)->finalize (object);
}

static void
strata_recording_class_init (StrataRecordingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = strata_recording_finalize;

  signals[STARTED] =
    g_signal_new ("started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
  /**
   * StrataRecording::failed:
   * @message: what to tell the user; nothing was recorded
   */
  signals[FAILED] =
    g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
strata_recording_init (StrataRecording *self)
{
  self->via_pkexec = !strata_recording_privileged ();
  self->cancellable = g_cancellable_new ();
}

StrataRecording *
strata_recording_new (const StrataRecordOptions *options)
{
  StrataRecording *self = g_object_new (STRATA_TYPE_RECORDING, NULL);

  self->options = *options;
  self->options.command = g_strdup (options->command);
  self->options.output = options->output != NULL ? g_strdup (options->output)
                                                 : strata_record_default_output ();
  return self;
}

void
strata_recording_set_via_pkexec (StrataRecording *self,
                                 gboolean         via_pkexec)
{
  g_return_if_fail (STRATA_IS_RECORDING (self));
  self->via_pkexec = !!via_pkexec;
}

void
strata_recording_set_programs (StrataRecording *self,
                               const char      *pkexec,
                               const char      *cli)
{
  g_return_if_fail (STRATA_IS_RECORDING (self));

  g_free (self->pkexec);
  self->pkexec = g_strdup (pkexec);
  g_free (self->cli);
  self->cli = g_strdup (cli);
}

const char *
strata_recording_get_output (StrataRecording *self)
{
  g_return_val_if_fail (STRATA_IS_RECORDING (self), NULL);
  return self->options.output;
}

/* pkexec runs only absolute paths, the one its policy names. */
static const char *
cli_path (StrataRecording *self)
{
  return self->cli != NULL ? self->cli : BINDIR "/strata-cli";
}

static const char *
pkexec_path (StrataRecording *self)
{
  return self->pkexec != NULL ? self->pkexec : "/usr/bin/pkexec";
}

static void
add (GPtrArray  *argv,
     const char *arg)
{
  g_ptr_array_add (argv, g_strdup (arg));
}

static void
add_many (GPtrArray *argv,
          ...)
{
  va_list ap;
  const char *arg;

  va_start (ap, argv);
  while ((arg = va_arg (ap, const char *)) != NULL)
    add (argv, arg);
  va_end (ap);
}

GStrv
strata_recording_get_argv (StrataRecording *self)
{
  GPtrArray *b = g_ptr_array_new ();
  const StrataRecordOptions *o;

  g_return_val_if_fail (STRATA_IS_RECORDING (self), NULL);

  o = &self->options;
  if (self->via_pkexec)
    add (b, pkexec_path (self));
  add_many (b, cli_path (self), "record", "--stop-on-eof", "-q", "-o", o->output, NULL);
  if (o->syscalls || o->samples)
    g_ptr_array_add (b, g_strdup_printf ("--events=%s%s%s", o->syscalls ? "syscalls" : "",
                                             o->syscalls && o->samples ? "," : "",
                                             o->samples ? "samples" : ""));
  if (o->samples && o->freq > 0)
    g_ptr_array_add (b, g_strdup_printf ("--freq=%u", o->freq));
  if (o->duration_s > 0)
    g_ptr_array_add (b, g_strdup_printf ("--duration=%u", o->duration_s));
  if (o->command != NULL && o->command[0] != '\0')
    {
      add (b, "--");
      /* pkexec runs the recorder as root: the traced command goes back to
       * the user who asked for it. */
      if (self->via_pkexec)
        {
          add (b, "/usr/bin/setpriv");
          g_ptr_array_add (b, g_strdup_printf ("--reuid=%u", (guint) getuid ()));
          g_ptr_array_add (b, g_strdup_printf ("--regid=%u", (guint) getgid ()));
          add_many (b, "--clear-groups", "--", NULL);
        }
      add_many (b, "/bin/sh", "-c", o->command, NULL);
    }
  g_ptr_array_add (b, NULL);
  return (GStrv) g_ptr_array_free (b, FALSE);
}

static void
remove_output (StrataRecording *self)
{
  if (g_unlink (self->options.output) != 0 && errno != ENOENT)
    {
      int errsv = errno;

      g_warning ("Cannot remove the discarded recording %s: %s", self->options.output, g_strerror (errsv));
    }
}

static void
maybe_end (StrataRecording *self)
{
  /* A recorder that never started is waited for to the end of its
   * stderr, for its message. One that started has finished the file
   * when it exits: what it shares its stderr with (the traced command,
   * or a process that command left) need not end with it. */
  if (!self->exited || self->ended || (!self->err_done && !self->started))
    return;
  self->ended = TRUE;

  /* Only now: a recorder still writing (as root, through pkexec) would
   * go on writing to the file unlinked under it, which is harmless, but
   * one that had not opened it yet would make it again. */
  if (self->discard)
    remove_output (self);

  if (self->started)
    {
      g_signal_emit (self, signals[FINISHED], 0);
      return;
    }
  {
    int status = g_subprocess_get_if_exited (self->process) ? g_subprocess_get_exit_status (self->process) : -1;
    g_autofree char *message = NULL;

    if (self->via_pkexec && status == 126)
      message = g_strdup (_("Recording was not authorized: the password dialog was dismissed. Nothing was recorded."));
    else if (self->via_pkexec && status == 127 && self->last_error == NULL)
      message = g_strdup (_("Recording was not authorized: recording needs an administrator's password. Nothing was recorded."));
    else if (self->last_error != NULL)
      /* Translators: the recorder's own error follows */
      message = g_strdup_printf (_("The recorder could not start: %s"), self->last_error);
    else
      message = g_strdup_printf (_("The recorder exited with status %d before it started. Nothing was recorded."), status);
    g_signal_emit (self, signals[FAILED], 0, message);
  }
}

static void
on_exited (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(StrataRecording) self = data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  self->exited = TRUE;
  maybe_end (self);
}

static void
on_line (GObject      *object,
         GAsyncResult *result,
         gpointer      data)
{
  g_autoptr(StrataRecording) self = data;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object),
                                                                     result, NULL, NULL);

  if (line == NULL)
    {
      self->err_done = TRUE;
      maybe_end (self);
      return;
    }
  if (g_str_has_prefix (line, "strata-cli record: recording to "))
    {
      if (!self->started)
        {
          self->started = TRUE;
          g_signal_emit (self, signals[STARTED], 0);
        }
    }
  else if (g_str_has_prefix (line, "strata-cli record: ") && !self->started)
    {
      g_free (self->last_error);
      self->last_error = g_strdup (line + strlen ("strata-cli record: "));
    }
  g_data_input_stream_read_line_async (self->err, G_PRIORITY_DEFAULT, self->cancellable,
                                       on_line, g_object_ref (self));
}

/**
 * strata_recording_start:
 *
 * Starts the recorder, through pkexec unless this process may record
 * itself. FALSE, with @error saying why for the user, when nothing could
 * be started at all (pkexec absent); otherwise "started" or "failed"
 * follows, never both.
 */
gboolean
strata_recording_start (StrataRecording  *self,
                        GError          **error)
{
  g_auto(GStrv) argv = NULL;
  g_autofree char *dir = NULL;

  g_return_val_if_fail (STRATA_IS_RECORDING (self), FALSE);
  g_return_val_if_fail (self->process == NULL, FALSE);

  if (self->via_pkexec && !g_file_test (pkexec_path (self), G_FILE_TEST_IS_EXECUTABLE))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("Recording needs administrator rights, and pkexec (polkit), which asks for them, "
                     "is not installed. Nothing was recorded."));
      return FALSE;
    }

  dir = g_path_get_dirname (self->options.output);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   /* Translators: a folder, then why it cannot be made */
                   _("Cannot make the folder %s: %s"), dir, g_strerror (errsv));
      return FALSE;
    }

  argv = strata_recording_get_argv (self);
  self->process = g_subprocess_newv ((const char * const *) argv,
                                     G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, error);
  if (self->process == NULL)
    return FALSE;

  self->err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (self->process));
  g_data_input_stream_read_line_async (self->err, G_PRIORITY_DEFAULT, self->cancellable,
                                       on_line, g_object_ref (self));
  g_subprocess_wait_async (self->process, self->cancellable, on_exited, g_object_ref (self));
  return TRUE;
}

/**
 * strata_recording_stop:
 *
 * Closes the recorder's stdin: it stops, writes the footer and exits
 * ("finished"). Through pkexec this is the only way to reach it.
 */
void
strata_recording_stop (StrataRecording *self)
{
  GOutputStream *in;

  g_return_if_fail (STRATA_IS_RECORDING (self));

  if (self->process == NULL || self->exited)
    return;
  in = g_subprocess_get_stdin_pipe (self->process);
  if (in != NULL)
    g_output_stream_close (in, NULL, NULL);
}

/**
 * strata_recording_discard:
 *
 * Stops the recorder as strata_recording_stop() does and removes the
 * file it wrote once it has exited, before "finished" (or "failed").
 */
void
strata_recording_discard (StrataRecording *self)
{
  g_return_if_fail (STRATA_IS_RECORDING (self));

  self->discard = TRUE;
  if (self->ended)
    {
      remove_output (self);
      return;
    }
  strata_recording_stop (self);
}

gboolean
strata_recording_is_running (StrataRecording *self)
{
  g_return_val_if_fail (STRATA_IS_RECORDING (self), FALSE);
  return self->process != NULL && !self->exited;
}

GPid
strata_recording_get_pid (StrataRecording *self)
{
  const char *id;

  g_return_val_if_fail (STRATA_IS_RECORDING (self), 0);

  if (!strata_recording_is_running (self) ||
      (id = g_subprocess_get_identifier (self->process)) == NULL)
    return 0;
  return (GPid) atoi (id);
}
