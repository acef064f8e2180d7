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

/* What the window's actions (win.export-json, win.export-csv,
 * win.save-image) do: ask for a file over @window, then export. */
void     strata_timeline_export_ask   (GtkWindow           *window,
                                       StrataTimelineView  *timeline,
                                       const char          *action_name);

G_END_DECLS
