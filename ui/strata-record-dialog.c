/* strata-record-dialog.c
 *
 * An AdwMessageDialog (libadwaita 1.2 has no AdwDialog) with the
 * choices as its extra child; the widgets are found again by name when
 * the user answers, so the dialog keeps no state of its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "strata-record-dialog.h"

typedef struct
{
  StrataRecordDialogFunc func;
  gpointer               user_data;
  GtkCheckButton        *syscalls;
  GtkCheckButton        *samples;
  GtkSpinButton         *freq;
  GtkEntry              *command;
  GtkSpinButton         *duration;
  GtkEntry              *output;
} Choices;

static void
on_response (AdwMessageDialog *dialog,
             const char       *response,
             Choices          *c)
{
  StrataRecordOptions options = { 0 };
  const char *output, *command;

  if (g_strcmp0 (response, "record") != 0)
    return;

  options.syscalls = gtk_check_button_get_active (c->syscalls);
  options.samples = gtk_check_button_get_active (c->samples);
  options.freq = (guint) gtk_spin_button_get_value_as_int (c->freq);
  options.duration_s = (guint) gtk_spin_button_get_value_as_int (c->duration);
  command = gtk_editable_get_text (GTK_EDITABLE (c->command));
  output = gtk_editable_get_text (GTK_EDITABLE (c->output));
  options.command = command[0] != '\0' ? g_strdup (command) : NULL;
  options.output = output[0] != '\0' ? g_strdup (output) : strata_record_default_output ();
  c->func (&options, c->user_data);
  strata_record_options_clear (&options);
}

static GtkWidget *
labelled (GtkGrid    *grid,
          int         row,
          const char *label,
          GtkWidget  *widget)
{
  GtkWidget *l = gtk_label_new_with_mnemonic (label);

  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), widget);
  gtk_grid_attach (grid, l, 0, row, 1, 1);
  gtk_widget_set_hexpand (widget, TRUE);
  gtk_grid_attach (grid, widget, 1, row, 1, 1);
  return widget;
}

GtkWindow *
strata_record_dialog_new (GtkWindow              *parent,
                          StrataRecordDialogFunc  func,
                          gpointer                user_data)
{
  GtkWidget *dialog;
  GtkGrid *grid;
  GtkWidget *always;
  Choices *c = g_new0 (Choices, 1);
  g_autofree char *output = strata_record_default_output ();

  c->func = func;
  c->user_data = user_data;

  dialog = adw_message_dialog_new (parent, _("Record"),
                                   _("Records the kernel's scheduling with eBPF and shows it as it "
                                     "happens. Recording needs administrator rights: without them "
                                     "you are asked for a password."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "record", _("_Record"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "record", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "record");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_row_spacing (grid, 6);
  gtk_grid_set_column_spacing (grid, 12);

  always = gtk_label_new (_("Scheduling and interrupts are always recorded."));
  gtk_label_set_xalign (GTK_LABEL (always), 0);
  gtk_label_set_wrap (GTK_LABEL (always), TRUE);
  gtk_widget_add_css_class (always, "dim-label");
  gtk_grid_attach (grid, always, 0, 0, 2, 1);

  c->syscalls = GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_("_System calls")));
  gtk_grid_attach (grid, GTK_WIDGET (c->syscalls), 0, 1, 2, 1);
  c->samples = GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_("CPU s_amples with stacks")));
  gtk_grid_attach (grid, GTK_WIDGET (c->samples), 0, 2, 2, 1);
  c->freq = GTK_SPIN_BUTTON (labelled (grid, 3, _("Samples per second (_Hz)"),
                                       gtk_spin_button_new_with_range (1, 10000, 1)));
  gtk_spin_button_set_value (c->freq, 99);
  g_object_bind_property (c->samples, "active", c->freq, "sensitive", G_BINDING_SYNC_CREATE);
  c->command = GTK_ENTRY (labelled (grid, 4, _("C_ommand"), gtk_entry_new ()));
  gtk_entry_set_placeholder_text (c->command, _("Optional: run and trace this command"));
  c->duration = GTK_SPIN_BUTTON (labelled (grid, 5, _("_Duration (s)"),
                                           gtk_spin_button_new_with_range (0, 24 * 3600, 1)));
  gtk_widget_set_tooltip_text (GTK_WIDGET (c->duration), _("0: until you press Stop"));
  c->output = GTK_ENTRY (labelled (grid, 6, _("Save _to"), gtk_entry_new ()));
  gtk_editable_set_text (GTK_EDITABLE (c->output), output);
  gtk_editable_set_width_chars (GTK_EDITABLE (c->output), 40);

  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), GTK_WIDGET (grid));
  g_signal_connect_data (dialog, "response", G_CALLBACK (on_response), c, (GClosureNotify) g_free, 0);
  return GTK_WINDOW (dialog);
}
