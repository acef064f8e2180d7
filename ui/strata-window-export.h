/* strata-window-export.h
 *
 * What the window's menu exports: the timeline's range (the selected
 * one, or else the view) as Trace Event Format JSON or CSV
 * (strata-export.h), and the view itself as a PNG or SVG picture (the
 * timeline's render nodes drawn with cairo, the same nodes the screen
 * shows). The actions ask for a file name; the functions they end in
 * take one, for the tests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata.h"
#include "strata-timeline-view.h"

G_BEGIN_DECLS

void     strata_timeline_export_range (StrataTimelineView  *timeline,
                                       gint64              *from,
                                       gint64              *to);
gboolean strata_timeline_export       (StrataTimelineView  *timeline,
                                       StrataExportFormat   format,
                                       const char          *path,
                                       GError             **error);
gboolean strata_timeline_save_image   (StrataTimelineView  *timeline,
                                       const char          *path,
                                       gboolean             dark,
                                       GError             **error);

/* Window actions (win.export-json, win.export-csv, win.save-image). */
void     strata_window_export_action  (GtkWidget           *widget,
                                       const char          *action_name,
                                       GVariant            *parameter);

G_END_DECLS
