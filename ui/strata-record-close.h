/* strata-record-close.h
 *
 * The question a window asks when it is closed while its recording runs:
 * stop the recorder and keep the file, discard the recording, or go on
 * recording (Cancel, also Escape). The answer goes to @func; the window
 * decides what it means.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum
{
  STRATA_RECORD_CLOSE_CANCEL,
  STRATA_RECORD_CLOSE_KEEP,
  STRATA_RECORD_CLOSE_DISCARD,
} StrataRecordCloseAnswer;

typedef void (*StrataRecordCloseFunc) (StrataRecordCloseAnswer answer,
                                       gpointer                user_data);

/* @output: the file being written, named in the question. */
GtkWindow *strata_record_close_ask (GtkWindow             *parent,
                                    const char            *output,
                                    StrataRecordCloseFunc  func,
                                    gpointer               user_data);

G_END_DECLS
