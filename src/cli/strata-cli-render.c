/* strata-cli-render.c
 *
 * `strata-cli render FILE -o out.png`: draws a timeline of the trace into
 * a PNG, for a quick look without the application, for bug reports and
 * for checking the painter by eye. The picture is the painter's display
 * list (the same one the GTK widget draws) rasterized with cairo, and its
 * text with pango.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cairo.h>
#include <pango/pangocairo.h>

#include "strata-cli.h"
#include "strata-cli-format.h"

/* Pixel sizes, so the picture does not depend on the screen's DPI. */
static const struct {
  const char *family;
  int         px;
  PangoWeight weight;
} fonts[] = {
  [STRATA_PAINT_TEXT_ROW_NAME]   = { "Sans", 11, PANGO_WEIGHT_NORMAL },
  [STRATA_PAINT_TEXT_GROUP_NAME] = { "Sans", 11, PANGO_WEIGHT_BOLD },
  [STRATA_PAINT_TEXT_ROW_ID]     = { "Sans", 10, PANGO_WEIGHT_NORMAL },
  [STRATA_PAINT_TEXT_ACTIVITY]   = { "Sans", 10, PANGO_WEIGHT_NORMAL },
  [STRATA_PAINT_TEXT_RULER]      = { "Sans", 10, PANGO_WEIGHT_NORMAL },
  [STRATA_PAINT_TEXT_LEGEND]     = { "Sans", 10, PANGO_WEIGHT_NORMAL },
};

static void
set_source (cairo_t *cr,
            guint32  rgba)
{
  cairo_set_source_rgba (cr,
                         ((rgba >> 24) & 0xff) / 255.,
                         ((rgba >> 16) & 0xff) / 255.,
                         ((rgba >> 8) & 0xff) / 255.,
                         (rgba & 0xff) / 255.);
}

static void
draw_list (cairo_t                 *cr,
           const StrataDisplayList *list)
{
  g_autoptr(PangoLayout) layout = pango_cairo_create_layout (cr);
  PangoFontDescription *descs[G_N_ELEMENTS (fonts)];

  /* The display list's rectangles sit on whole pixels; antialiasing them
   * would only blur the edges between neighbours. */
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  for (guint i = 0; i < list->rects->len; i++)
    {
      const StrataPaintRect *r = &g_array_index (list->rects, StrataPaintRect, i);

      set_source (cr, r->rgba);
      cairo_rectangle (cr, r->x, r->y, r->w, r->h);
      cairo_fill (cr);
    }
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);

  for (guint i = 0; i < G_N_ELEMENTS (fonts); i++)
    {
      descs[i] = pango_font_description_new ();
      pango_font_description_set_family (descs[i], fonts[i].family);
      pango_font_description_set_absolute_size (descs[i], fonts[i].px * PANGO_SCALE);
      pango_font_description_set_weight (descs[i], fonts[i].weight);
    }

  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (layout, TRUE);

  for (guint i = 0; i < list->texts->len; i++)
    {
      const StrataPaintText *t = &g_array_index (list->texts, StrataPaintText, i);
      PangoRectangle logical;
      double x;

      pango_layout_set_font_description (layout, descs[MIN (t->role, G_N_ELEMENTS (fonts) - 1)]);
      pango_layout_set_width (layout, (int) (t->max_width * PANGO_SCALE));
      /* A comm is whatever bytes the task set; pango takes UTF-8 only. */
      if (g_utf8_validate (t->text, -1, NULL))
        pango_layout_set_text (layout, t->text, -1);
      else
        {
          g_autofree char *valid = g_utf8_make_valid (t->text, -1);
          pango_layout_set_text (layout, valid, -1);
        }
      pango_layout_get_pixel_extents (layout, NULL, &logical);

      x = t->align == STRATA_PAINT_ALIGN_RIGHT ? t->x - logical.width : t->x;
      set_source (cr, t->rgba);
      cairo_move_to (cr, x, t->y - logical.height / 2.);
      pango_cairo_show_layout (cr, layout);
    }

  for (guint i = 0; i < G_N_ELEMENTS (fonts); i++)
    pango_font_description_free (descs[i]);
}

int
strata_cli_render (int    argc,
                   char **argv)
{
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataPainter) painter = NULL;
  g_autoptr(StrataDisplayList) list = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *from_s = NULL, *to_s = NULL, *output = NULL;
  StrataCliZoomOptions zoom_options;
  StrataCliIndexOptions index;
  g_autofree char *zoom_buffers = NULL;
  g_autofree char *index_path = NULL;
  GOptionGroup *group = strata_cli_zoom_option_group (&zoom_options);
  gboolean rebuilt = FALSE;
  StrataPaintStyle style;
  StrataPaintViewport viewport = { 0 };
  gboolean dark = FALSE;
  int width = 1600, height = 0, row_height = 0;
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;
  gint64 start, end;
  guint n_rows;
  const GOptionEntry entries[] = {
    { "from", 0, 0, G_OPTION_ARG_STRING, &from_s,
      "Start of the view (default: the trace's start)", "TIME" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to_s,
      "End of the view (default: the trace's end)", "TIME" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Width of the picture (default 1600)", "PX" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height,
      "Height of the picture (default: all rows, at most 4000)", "PX" },
    { "row-height", 0, 0, G_OPTION_ARG_INT, &row_height, "Height of a row (default 20)", "PX" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark colours", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The PNG to write", "FILE" },
    { NULL }
  };
  const char *file;

  file = strata_cli_parse_file_args ("render",
                                     "draw the timeline into a PNG\n\n"
                                     "A TIME is in nanoseconds of the trace's clock, or a number with\n"
                                     "a unit (12.5ms, 300us, 229.77s); with a leading '+' it counts\n"
                                     "from the trace's start (+10ms). The picture has the row names on\n"
                                     "the left, a ruler on top (times since the trace's start) and a\n"
                                     "legend at the bottom.",
                                     entries, (strata_cli_add_index_options (group, &index), group),
                                     &argc, &argv);
  zoom_buffers = zoom_options.buffers;
  index_path = index.index_path;
  if (file == NULL)
    return STRATA_CLI_EXIT_FAILED;

  if (output == NULL)
    {
      g_printerr ("strata-cli render: say where the PNG goes with -o FILE\n");
      return STRATA_CLI_EXIT_FAILED;
    }

  strata_paint_style_init (&style);
  style.scheme = dark ? STRATA_PAINT_SCHEME_DARK : STRATA_PAINT_SCHEME_LIGHT;
  if (row_height > 0)
    style.row_height = row_height;

  if (width < (int) style.name_width + 16 || width > 32767 ||
      (height != 0 && (height < (int) (style.ruler_height + style.legend_height + style.row_height) ||
                       height > 32767)))
    {
      g_printerr ("strata-cli render: a picture from %ux%u to 32767x32767 pixels, please\n",
                  style.name_width + 16, style.ruler_height + style.legend_height + style.row_height);
      return STRATA_CLI_EXIT_FAILED;
    }

  trace = strata_cli_open_trace (file, &zoom_options, &index);
  if (trace == NULL)
    return STRATA_CLI_EXIT_FAILED;

  start = strata_trace_get_start (trace);
  end = strata_trace_get_end (trace);
  viewport.from = start;
  viewport.to = MAX (end, start + 1);
  if ((from_s != NULL && !strata_parse_time (from_s, start, &viewport.from, &error)) ||
      (to_s != NULL && !strata_parse_time (to_s, start, &viewport.to, &error)))
    {
      g_printerr ("strata-cli render: %s\n", error->message);
      return STRATA_CLI_EXIT_FAILED;
    }
  if (viewport.to <= viewport.from)
    {
      g_printerr ("strata-cli render: --to must be after --from\n");
      return STRATA_CLI_EXIT_FAILED;
    }

paint:
  g_clear_pointer (&painter, strata_painter_free);
  g_clear_pointer (&list, strata_display_list_free);
  painter = strata_painter_new_for_trace (trace);
  strata_painter_set_style (painter, &style);
  strata_painter_get_rows (painter, &n_rows);

  if (height == 0)
    height = CLAMP (style.ruler_height + style.legend_height + MAX (n_rows, 1) * style.row_height,
                    1, 4000);

  viewport.width = width - style.name_width;
  viewport.height = height - style.ruler_height - style.legend_height;

  list = strata_display_list_new ();
  strata_painter_paint (painter, &viewport, list);
  /* A damaged index may have left something out: rebuild, draw again. */
  if (!rebuilt && strata_cli_rebuild_if_damaged (&trace, file, &zoom_options, &index))
    {
      if (trace == NULL)
        return STRATA_CLI_EXIT_FAILED;
      rebuilt = TRUE;
      goto paint;
    }

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  draw_list (cr, list);
  cairo_destroy (cr);
  status = cairo_surface_write_to_png (surface, output);
  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_printerr ("strata-cli render: cannot write %s: %s\n", output, cairo_status_to_string (status));
      return STRATA_CLI_EXIT_FAILED;
    }

  printf ("%s: %dx%d, %u of %u rows, level %u, %u items drawn as %u rectangles\n",
          output, width, height, list->rows->len, n_rows, list->level, list->n_items,
          list->rects->len);

  return strata_cli_finish (trace);
}
