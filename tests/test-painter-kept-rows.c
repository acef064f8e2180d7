/* test-painter-kept-rows.c
 *
 * A frame of the same view in time as the last one draws the rows the
 * last frame drew again, moved, instead of painting them anew
 * (strata-painter-kept-rows.c). The oracle: every such frame is the same
 * display list, rectangle for rectangle and bit for bit, texts and counts
 * too, as the same frame painted anew (strata_painter_forget_rows() first),
 * through a walk of the rows scrolled by whole and by fractional pixels,
 * up and down, beyond the rows, in a taller and a shorter area, with rows
 * hidden, shown and reordered, another scheme and another row height, on
 * real recordings and generated streams, at several zoom levels. And the
 * frames that should draw rows again do, and a new view draws none.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-painter-private.h"
#include "strata-test-support.h"
#include "strata-test-streams.h"
#include "strata-zoom-tree-private.h"

static void
assert_same_lists (const StrataDisplayList *a,
                   const StrataDisplayList *b)
{
  strata_test_assert_same_display_lists (a, b);
  g_assert_cmpuint (a->rows->len, ==, b->rows->len);
}

/* @vp painted after whatever the painter drew last, then painted anew
 * into another list: the same. Returns the rows drawn again. */
static guint
paint_checked (StrataPainter             *painter,
               const StrataPaintViewport *vp,
               StrataDisplayList         *list)
{
  g_autoptr(StrataDisplayList) anew = strata_display_list_new ();
  guint n;

  strata_painter_paint (painter, vp, list);
  n = strata_painter_get_n_drawn_again (painter);

  strata_painter_forget_rows (painter);
  strata_painter_paint (painter, vp, anew);
  g_assert_cmpuint (strata_painter_get_n_drawn_again (painter), ==, 0);
  assert_same_lists (list, anew);

  /* The painter's last frame is now @anew's: draw @list's again so the
   * next step starts from it, as the timeline would. */
  strata_painter_paint (painter, vp, list);
  assert_same_lists (list, anew);
  return n;
}

/* One view in time, walked through what keeps it. Returns the rows
 * drawn again in all. */
static guint
walk_view (StrataPainter *painter,
           const guint32 *rows,
           guint          n_rows,
           gint64         from,
           gint64         to,
           guint          width)
{
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  g_autoptr(GArray) some = g_array_new (FALSE, FALSE, sizeof (guint32));
  StrataPaintStyle style;
  StrataPaintViewport vp = { 0 };
  float rh;
  guint drawn = 0, n;

  strata_paint_style_init (&style);
  style.row_height = 17;
  strata_painter_set_style (painter, &style);
  strata_painter_set_rows (painter, rows, n_rows);
  rh = style.row_height;

  vp.from = from;
  vp.to = to;
  vp.width = width;
  vp.height = (guint) (MIN (n_rows, 30u) * rh * 0.7f);

  /* The first frame has nothing to draw again. */
  strata_painter_forget_rows (painter);
  g_assert_cmpuint (paint_checked (painter, &vp, list), ==, 0);

  /* Scrolled by whole rows, by pixels and by fractions of one. */
  {
    static const float scrolls[] = { 0, 3, 1, 4.5f, 0, 2, 2.25f, 2, 7, 6, 0 };

    for (guint i = 0; i < G_N_ELEMENTS (scrolls); i++)
      {
        vp.scroll_y = scrolls[i] * rh;
        if (i == 4)
          vp.scroll_y = 5;
        n = paint_checked (painter, &vp, list);
        drawn += n;
      }
  }

  /* Taller, then shorter. */
  vp.height += (guint) (3 * rh);
  drawn += paint_checked (painter, &vp, list);
  vp.height -= (guint) (5 * rh);
  drawn += paint_checked (painter, &vp, list);

  /* Every other row hidden, then the rows backwards, then all again. */
  for (guint i = 0; i < n_rows; i += 2)
    g_array_append_val (some, rows[i]);
  strata_painter_set_rows (painter, (const guint32 *)(gpointer) some->data, some->len);
  drawn += paint_checked (painter, &vp, list);
  g_array_set_size (some, 0);
  for (guint i = n_rows; i > 0; i--)
    g_array_append_val (some, rows[i - 1]);
  strata_painter_set_rows (painter, (const guint32 *)(gpointer) some->data, some->len);
  drawn += paint_checked (painter, &vp, list);
  strata_painter_set_rows (painter, rows, n_rows);
  drawn += paint_checked (painter, &vp, list);

  /* Another scheme, another row height: nothing drawn again. */
  style.scheme = STRATA_PAINT_SCHEME_DARK;
  strata_painter_set_style (painter, &style);
  g_assert_cmpuint (paint_checked (painter, &vp, list), ==, 0);
  style.row_height = 23;
  strata_painter_set_style (painter, &style);
  g_assert_cmpuint (paint_checked (painter, &vp, list), ==, 0);
  vp.scroll_y = 2 * style.row_height;
  drawn += paint_checked (painter, &vp, list);

  /* A new view in time: nothing drawn again. */
  vp.to = from + (to - from) / 2;
  g_assert_cmpuint (paint_checked (painter, &vp, list), ==, 0);
  return drawn;
}

static void
walk_levels (StrataPainter *painter,
             const guint32 *rows,
             guint          n_rows,
             gint64         start,
             gint64         end)
{
  static const guint widths[] = { 1000, 1723, 257 };
  guint drawn = 0;

  for (guint level = 0; level < 6; level++)
    {
      gint64 span = MAX ((end - start) >> (2 * level), 64);
      gint64 from = start + (end - start - span) / 3;

      drawn += walk_view (painter, rows, n_rows, from, from + span, widths[level % G_N_ELEMENTS (widths)]);
    }
  if (n_rows > 8)
    g_assert_cmpuint (drawn, >, 0);
}

static void
test_fixtures (void)
{
  static const char *fixtures[] = { "sched-small.dat", "sched-tgid.dat", "lossy.dat", "instances.dat" };

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autoptr(StrataTrace) trace = strata_test_load_with_tree (fixtures[f]);
      g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
      g_autoptr(GArray) rows = strata_painter_default_rows (painter);

      g_assert_true (strata_zoom_tree_is_finished (strata_trace_get_zoom_tree (trace)));
      walk_levels (painter, (const guint32 *)(gpointer) rows->data, rows->len, strata_trace_get_start (trace),
                   strata_trace_get_end (trace));
    }
}

/* Generated streams: dense CPUs and many threads, every channel a row. */
static void
test_generated (void)
{
  static const StrataTestStreamKind kinds[] = {
    STRATA_TEST_STREAM_DENSE, STRATA_TEST_STREAM_MANY_THREADS, STRATA_TEST_STREAM_MIXED,
  };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr(GArray) acts = strata_test_stream_collect (kinds[k], 40000, 31 + k);
      g_autoptr(GArray) channels = g_array_new (FALSE, TRUE, sizeof (StrataChannel));
      g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_autoptr(StrataZoomTree) tree = NULL;
      g_autoptr(StrataStringPool) pool = strata_string_pool_new ();
      g_autoptr(StrataPainter) painter = NULL;
      g_autoptr(GError) error = NULL;
      StrataZoomParams params;
      gint64 start, end;

      strata_zoom_params_init (&params);
      tree = strata_zoom_tree_new (&params, &error);
      g_assert_no_error (error);
      strata_test_stream_build (tree, (const StrataActivity *)(gpointer) acts->data, acts->len);
      g_assert_true (strata_zoom_tree_is_finished (tree));

      painter = strata_test_painter_for_stream (tree, pool, acts, channels, &start, &end);
      for (guint32 c = 0; c < channels->len; c++)
        g_array_append_val (rows, c);
      walk_levels (painter, (const guint32 *)(gpointer) rows->data, rows->len, start, end);
    }
}

/* A collapsed process (rows drawn of several channels): such a frame
 * keeps nothing, and is the same as painted anew. */
static void
test_merged_rows_kept_none (void)
{
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-tgid.txt");
  g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  const StrataChannel *channels;
  guint n_channels;
  guint32 process = STRATA_CHANNEL_NONE;
  g_autoptr(GArray) members = g_array_new (FALSE, FALSE, sizeof (guint32));
  StrataPaintViewport vp = { 0 };

  g_array_unref (strata_painter_default_rows (painter));
  channels = strata_trace_get_channels (trace, &n_channels);
  for (guint32 c = 0; c < n_channels && process == STRATA_CHANNEL_NONE; c++)
    if (channels[c].kind == STRATA_CHANNEL_PROCESS)
      process = c;
  g_assert_cmpuint (process, !=, STRATA_CHANNEL_NONE);
  for (guint32 c = 0; c < n_channels; c++)
    if (channels[c].kind == STRATA_CHANNEL_THREAD && channels[c].parent == process)
      g_array_append_val (members, c);
  g_assert_cmpuint (members->len, >, 0);
  strata_painter_set_row_members (painter, process, (const guint32 *)(gpointer) members->data, members->len);

  vp.from = strata_trace_get_start (trace);
  vp.to = strata_trace_get_end (trace);
  vp.width = 800;
  vp.height = 400;
  for (guint i = 0; i < 3; i++)
    {
      vp.scroll_y = i * 20;
      g_assert_cmpuint (paint_checked (painter, &vp, list), ==, 0);
    }
}

/* Frames into two lists in turn: the rows kept are in the arrays of the
 * list painted last, so a frame into the other list paints anew, and
 * both lists are right. */
static void
test_two_lists (void)
{
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-small.dat");
  g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
  g_autoptr(StrataDisplayList) x = strata_display_list_new ();
  g_autoptr(StrataDisplayList) y = strata_display_list_new ();
  g_autoptr(StrataDisplayList) anew = strata_display_list_new ();
  StrataPaintViewport vp = { 0 };
  guint drawn = 0;

  vp.from = strata_trace_get_start (trace);
  vp.to = strata_trace_get_end (trace);
  vp.width = 900;
  vp.height = 200;
  for (guint i = 0; i < 8; i++)
    {
      StrataDisplayList *list = i % 3 == 2 ? y : x;

      vp.scroll_y = (i % 4) * 20;
      strata_painter_paint (painter, &vp, list);
      drawn += strata_painter_get_n_drawn_again (painter);
      if (i % 3 == 2 || i % 3 == 0)
        g_assert_cmpuint (strata_painter_get_n_drawn_again (painter), ==, 0);
      {
        g_autoptr(StrataPainter) fresh = strata_painter_new_for_trace (trace);

        strata_painter_paint (fresh, &vp, anew);
        assert_same_lists (list, anew);
      }
    }
  g_assert_cmpuint (drawn, >, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/painter-kept-rows/fixtures-equal-anew", test_fixtures);
  g_test_add_func ("/strata/painter-kept-rows/generated-equal-anew", test_generated);
  g_test_add_func ("/strata/painter-kept-rows/merged-rows-kept-none", test_merged_rows_kept_none);
  g_test_add_func ("/strata/painter-kept-rows/two-lists", test_two_lists);

  return g_test_run ();
}
