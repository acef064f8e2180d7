/* strata-recording.h
 *
 * A recording the application starts: `strata-cli record` run as a
 * child (the recorder is never linked into the application), directly
 * when the application has what recording needs (root, or CAP_BPF and
 * CAP_PERFMON), else through pkexec, which asks for an administrator's
 * password (data/org.strata.Strata.policy). It is stopped by closing its
 * stdin (--stop-on-eof): the application could not signal a recorder
 * that pkexec runs as root. It says "started" once the recorder's hooks
 * are in (the file then exists and can be followed), "failed" with a
 * message to show when it never got that far (pkexec absent, the
 * password refused or the dialog dismissed, the recorder's own error),
 * and "finished" when the recorder has written the footer and exited
 * (or, discarded, when the file it wrote is gone).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean  syscalls;
  gboolean  samples;
  guint     freq;          /* samples per second per CPU; 0: the recorder's default */
  char     *command;       /* run through sh -c and traced; NULL or "": none */
  guint     duration_s;    /* 0: until stopped */
  char     *output;
} StrataRecordOptions;

void     strata_record_options_clear      (StrataRecordOptions *options);
char    *strata_record_default_output     (void);

#define STRATA_TYPE_RECORDING (strata_recording_get_type ())

G_DECLARE_FINAL_TYPE (StrataRecording, strata_recording, STRATA, RECORDING, GObject)

StrataRecording *strata_recording_new             (const StrataRecordOptions *options);
/* Whether this process may record itself, without pkexec. */
gboolean         strata_recording_privileged      (void);
/* For the tests: force (or not) the way through pkexec, and which
 * pkexec and strata-cli (absolute paths; NULL: the installed ones). */
void             strata_recording_set_via_pkexec  (StrataRecording *self,
                                                   gboolean         via_pkexec);
void             strata_recording_set_programs    (StrataRecording *self,
                                                   const char      *pkexec,
                                                   const char      *cli);
/* The command line it runs (or would run), for the tests and the log. */
GStrv            strata_recording_get_argv        (StrataRecording *self);
const char      *strata_recording_get_output      (StrataRecording *self);
gboolean         strata_recording_start           (StrataRecording *self,
                                                   GError         **error);
void             strata_recording_stop            (StrataRecording *self);
/* Stops it, and removes its file once the recorder has exited. */
void             strata_recording_discard         (StrataRecording *self);
gboolean         strata_recording_is_running      (StrataRecording *self);
/* The recorder's process id while it runs (0 otherwise). */
GPid             strata_recording_get_pid         (StrataRecording *self);

G_END_DECLS
