/* strata-test-ui.h
 *
 * For the UI tests: start GTK and libadwaita, open a fixture in a real
 * window and wait for the worker to finish, render a widget into a
 * texture (the renderer of its window, through GtkWidgetPaintable) and
 * read its pixels back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata-window.h"
#include "strata-timeline-view-private.h"

G_BEGIN_DECLS

typedef struct
{
  int      width;
  int      height;
  gsize    stride;
  guint8  *data;      /* B8G8R8A8 premultiplied, as gdk_texture_download gives */
} StrataTestPixels;

void              strata_test_ui_init          (int              *argc,
                                                char           ***argv);
StrataWindow     *strata_test_ui_open_window   (const char        *fixture,
                                                int                width,
                                                int                height);
void              strata_test_ui_settle        (void);
void              strata_test_ui_wait_until_shown (StrataWindow   *window);
GdkTexture       *strata_test_ui_render        (GtkWidget         *widget);
StrataTestPixels *strata_test_ui_pixels        (GdkTexture        *texture);
void              strata_test_ui_pixels_free   (StrataTestPixels  *pixels);
guint32           strata_test_ui_pixel         (const StrataTestPixels *pixels,
                                                int                x,
                                                int                y);
gboolean          strata_test_ui_color_near    (guint32            a,
                                                guint32            b,
                                                int                tolerance);
char             *strata_test_ui_save_png      (GdkTexture        *texture,
                                                const char        *name);
guint32           strata_test_ui_thread_channel (StrataTrace      *trace,
                                                 gint32            tid);
StrataActivity    strata_test_ui_longest_running (StrataTrace     *trace,
                                                  guint32          channel);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataTestPixels, strata_test_ui_pixels_free)

G_END_DECLS

G_BEGIN_DECLS
guint    strata_test_ui_check_against_painter (StrataTimelineView     *view,
                                               const StrataTestPixels *pixels,
                                               const char             *png_name);
G_END_DECLS
