/* strata-record-dialog.h
 *
 * The Record dialog: which event sets (scheduling and interrupts always;
 * system calls; CPU samples at a frequency), an optional command to run
 * and trace, an optional duration, and where to save (a timestamped file
 * under the user's data folder unless changed). Record hands the choices
 * to @func; Cancel hands nothing.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata-recording.h"

G_BEGIN_DECLS

typedef void (*StrataRecordDialogFunc) (const StrataRecordOptions *options,
                                        gpointer                   user_data);

GtkWindow *strata_record_dialog_new (GtkWindow              *parent,
                                     StrataRecordDialogFunc  func,
                                     gpointer                user_data);

G_END_DECLS
