/* strata-window-export.c
 *
 * See strata-window-export.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <cairo-svg.h>
#include <glib/gi18n.h>

#include "strata-window-export.h"

/* The range an export covers: the selected one, or else the view. */
void
strata_timeline_export_range (StrataTimelineView *timeline,
                              gint64             *from,
                              gint64             *to)
{
  const StrataSelection *sel = strata_timeline_view_get_selection (timeline);

  if (sel != NULL && sel->kind == STRATA_SELECTION_RANGE)
    {
      *from = sel->from;
      *to = sel->to;
    }
  else
    strata_timeline_view_get_range (timeline, from, to);
}

gboolean
strata_timeline_export (StrataTimelineView  *timeline,
                        StrataExportFormat   format,
                        const char          *path,
                        GError             **error)
{
  StrataTrace *trace = strata_timeline_view_get_trace (timeline);
  gint64 from, to;

  g_return_val_if_fail (trace != NULL, FALSE);

  strata_timeline_export_range (timeline, &from, &to);
  return strata_export_to_file (trace, format, from, to, path, NULL, error);
}

/**
 * strata_timeline_save_image:
 * @path: ends in ".svg" for an SVG picture, else a PNG is written
 * @dark: the background of the dark style
 *
 * The timeline as it is on screen, drawn from its render nodes with
 * cairo: into an SVG surface, or an image surface saved as PNG.
 */
gboolean
strata_timeline_save_image (StrataTimelineView  *timeline,
                            const char          *path,
                            gboolean             dark,
                            GError             **error)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (timeline));
  g_autoptr(GskRenderNode) node = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  int w = gtk_widget_get_width (GTK_WIDGET (timeline));
  int h = gtk_widget_get_height (GTK_WIDGET (timeline));
  gboolean svg = g_str_has_suffix (path, ".svg") || g_str_has_suffix (path, ".SVG");
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  if (w <= 0 || h <= 0)
    {
      gsk_render_node_unref (gtk_snapshot_free_to_node (snapshot));
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", path, _("The timeline is not on screen"));
      return FALSE;
    }
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);

  surface = svg ? cairo_svg_surface_create (path, w, h)
                : cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cr = cairo_create (surface);
  if (dark)
    cairo_set_source_rgb (cr, 0x24 / 255.0, 0x24 / 255.0, 0x24 / 255.0);
  else
    cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  if (node != NULL)
    gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  if (svg)
    cairo_surface_finish (surface);
  else
    cairo_surface_write_to_png (surface, path);
  status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", path, cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}

static void
show_error (GtkWindow    *window,
            const GError *error)
{
  GtkWidget *dialog = adw_message_dialog_new (window, _("Could not export"), error->message);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
save_response (GtkNativeDialog *dialog,
               int              response,
               gpointer         data)
{
  StrataTimelineView *timeline = data;
  const char *action = g_object_get_data (G_OBJECT (dialog), "strata-action");
  GtkWindow *window = gtk_native_dialog_get_transient_for (dialog);
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (response != GTK_RESPONSE_ACCEPT)
    goto out;
  file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  path = g_file_get_path (file);
  if (g_strcmp0 (action, "save-image") == 0)
    ok = strata_timeline_save_image (timeline, path, adw_style_manager_get_dark (adw_style_manager_get_default ()),
                                     &error);
  else
    ok = strata_timeline_export (timeline, g_strcmp0 (action, "export-csv") == 0
                                           ? STRATA_EXPORT_CSV : STRATA_EXPORT_CHROME_JSON,
                                 path, &error);
  if (!ok)
    show_error (window, error);

out:
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (timeline);
}

/* win.export-json, win.export-csv, win.save-image (@action_name): a file
 * name, asked over @window, then the export of @timeline. */
void
strata_timeline_export_ask (GtkWindow          *window,
                            StrataTimelineView *timeline,
                            const char         *action_name)
{
  const char *action = strchr (action_name, '.') != NULL ? strchr (action_name, '.') + 1 : action_name;
  GtkFileChooserNative *dialog;
  const char *title, *name;

  if (strata_timeline_view_get_trace (timeline) == NULL)
    return;
  if (g_strcmp0 (action, "export-csv") == 0)
    {
      title = _("Export the Range as CSV");
      name = "strata-range.csv";
    }
  else if (g_strcmp0 (action, "save-image") == 0)
    {
      title = _("Save the View as an Image (PNG or SVG)");
      name = "strata-view.png";
    }
  else
    {
      title = _("Export the Range for Perfetto or chrome://tracing");
      name = "strata-range.json";
    }
  dialog = gtk_file_chooser_native_new (title, GTK_WINDOW (window), GTK_FILE_CHOOSER_ACTION_SAVE,
                                        _("_Save"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  g_object_set_data_full (G_OBJECT (dialog), "strata-action", g_strdup (action), g_free);
  g_signal_connect (dialog, "response", G_CALLBACK (save_response), g_object_ref (timeline));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
