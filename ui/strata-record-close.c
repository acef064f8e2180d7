/* strata-record-close.c
 *
 * An AdwMessageDialog (libadwaita 1.2 has neither AdwDialog nor
 * AdwAlertDialog) with three responses: "keep" (suggested, the default:
 * a recording is kept unless the user says otherwise), "discard"
 * (destructive) and "cancel" (the close response, so Escape and the
 * dialog's own closing go on recording).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "strata-record-close.h"

typedef struct
{
  StrataRecordCloseFunc func;
  gpointer              user_data;
} Answer;

static void
on_response (AdwMessageDialog *dialog,
             const char       *response,
             Answer           *a)
{
  StrataRecordCloseAnswer answer = STRATA_RECORD_CLOSE_CANCEL;

  if (g_strcmp0 (response, "keep") == 0)
    answer = STRATA_RECORD_CLOSE_KEEP;
  else if (g_strcmp0 (response, "discard") == 0)
    answer = STRATA_RECORD_CLOSE_DISCARD;
  a->func (answer, a->user_data);
}

/**
 * strata_record_close_ask:
 *
 * Presents the question over @parent. @func is called once, with the
 * answer, when the user gives one.
 *
 * Returns: (transfer none): the dialog
 */
GtkWindow *
strata_record_close_ask (GtkWindow             *parent,
                         const char            *output,
                         StrataRecordCloseFunc  func,
                         gpointer               user_data)
{
  g_autofree char *name = g_filename_display_basename (output);
  g_autofree char *body = NULL;
  GtkWidget *dialog;
  Answer *a = g_new0 (Answer, 1);

  a->func = func;
  a->user_data = user_data;
  /* Translators: the file a recording is being written to */
  body = g_strdup_printf (_("This window is still recording to %s. Stop the recording and keep the file, "
                            "or discard it?"), name);
  dialog = adw_message_dialog_new (parent, _("Stop Recording?"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "discard", _("_Discard"),
                                    "keep", _("_Stop and Keep"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "keep",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "keep");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  /* Gone with the window, unanswered, should the window go first. */
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  g_signal_connect_data (dialog, "response", G_CALLBACK (on_response), a, (GClosureNotify) g_free, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return GTK_WINDOW (dialog);
}
