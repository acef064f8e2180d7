/* test-render.c
 *
 * The painter against the data it draws. On a real recording, every pixel
 * column that the raw store says one state (or one task) fills entirely
 * is painted in that state's (or task's) colour, at several zooms, and a
 * known thread is green where it ran; the display list stays within a few
 * rectangles per pixel of each row however many activities lie behind it;
 * the default rows are exactly the threads with something to show; the
 * ruler's steps and labels are round; and strata-cli render writes a PNG
 * of the size asked whose pixels are the display list's colours, also
 * (with exit status 2) for a damaged trace.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <cairo.h>
#include <math.h>
#include <string.h>

#include "strata-test-support.h"
#include "strata-test-streams.h"

#define SCHEME STRATA_PAINT_SCHEME_LIGHT

static guint
n_rows_of (StrataPainter *painter)
{
  guint n;

  strata_painter_get_rows (painter, &n);
  return n;
}

/* A viewport with every row in it. */
static void
paint_all_rows (StrataPainter     *painter,
                gint64             from,
                gint64             to,
                guint              width,
                StrataDisplayList *list)
{
  StrataPaintViewport viewport = { from, to, width, 0, 0 };

  viewport.height = n_rows_of (painter) * strata_painter_get_style (painter)->row_height;
  strata_painter_paint (painter, &viewport, list);
}

/* The rectangle drawn last over a point: what is seen there. */
static const StrataPaintRect *
topmost_at (const StrataDisplayList *list,
            float                    x,
            float                    y)
{
  for (guint i = list->rects->len; i-- > 0; )
    {
      const StrataPaintRect *r = &g_array_index (list->rects, StrataPaintRect, i);

      if (x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h)
        return r;
    }
  return NULL;
}

/* The one interval (not an instant) of @channel at depth 0 that overlaps
 * [t0, t1), if there is exactly one and it covers all of it. */
static gboolean
sole_cover (StrataRawStore *raw,
            guint32         channel,
            gint64          t0,
            gint64          t1,
            StrataActivity *out)
{
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  guint n = 0;

  strata_raw_store_query (raw, channel, t0, t1, found);
  for (guint i = 0; i < found->len; i++)
    {
      const StrataActivity *a = &g_array_index (found, StrataActivity, i);

      if (strata_activity_is_instant (a) || strata_activity_get_depth (a) > 0 ||
          !strata_activity_overlaps (a, t0, t1))
        continue;
      *out = *a;
      n++;
    }

  return n == 1 && out->start <= t0 && out->end >= t1;
}

/* For every visible row and pixel column that one activity fills, the
 * colour seen in the row's lane is that activity's, if the activity is at
 * least one pixel of the zoom level drawn long. The painter draws from the
 * finest level whose pixel is at least the screen's (1 to F screen
 * pixels), so an activity shorter than that is part of an aggregate that
 * spreads its members' busy time over its span, and may share its columns
 * with its neighbours; one at least that long is an item of its own and
 * must be exact. Returns how many columns were checked. */
static guint
check_columns_against_raw (StrataTrace             *trace,
                           const StrataDisplayList *list)
{
  StrataZoomTree *tree = strata_trace_get_zoom_tree (trace);
  StrataRawStore *raw = strata_zoom_tree_get_raw_store (tree);
  const StrataChannel *channels;
  guint n_channels, checked = 0;
  StrataZoomGeometry g;
  gint64 min_length;

  channels = strata_trace_get_channels (trace, &n_channels);
  g_assert_true (strata_zoom_tree_get_geometry (tree, &g));
  min_length = strata_zoom_geometry_pixel (&g, list->level);
  /* Never looser than F screen pixels. */
  g_assert_cmpfloat ((double) min_length, <=, ((guint64) 1 << g.factor_log2) * MAX (list->ns_per_pixel, 1.0));

  for (guint r = 0; r < list->rows->len; r++)
    {
      const StrataPaintRow *row = &g_array_index (list->rows, StrataPaintRow, r);
      const StrataChannel *ch = &channels[row->channel];
      /* Thread rows: below the wakeup ticks at the top. CPU rows: above
       * the interrupt band at the bottom and below the ticks. */
      float probe_y = ch->kind == STRATA_CHANNEL_THREAD ? row->y + row->h - 3 : row->y + row->h / 2 - 1;

      if (ch->kind == STRATA_CHANNEL_PROCESS)
        continue;

      for (guint x = 0; x < (guint) list->area_width; x++)
        {
          gint64 t0 = list->from + (gint64) floor (x * list->ns_per_pixel);
          gint64 t1 = list->from + (gint64) ceil ((x + 1) * list->ns_per_pixel);
          const StrataPaintRect *seen;
          StrataActivity a = { 0 };
          guint32 expected;

          if (!sole_cover (raw, row->channel, t0, t1, &a) || a.end - a.start < min_length)
            continue;

          if (a.kind == STRATA_ACTIVITY_STATE && a.state != STRATA_TASK_STATE_UNKNOWN)
            expected = strata_paint_state_color (SCHEME, a.state);
          else if (a.kind == STRATA_ACTIVITY_TASK)
            expected = strata_paint_task_color (SCHEME, a.arg);
          else
            continue;   /* idle is drawn as nothing, unknown is hatched */

          seen = topmost_at (list, list->area_x + x + 0.5f, probe_y);
          g_assert_nonnull (seen);
          if (seen->rgba != expected)
            g_error ("%s %d at x=%u [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "): "
                     "expected %08x (%s %s), seen %08x",
                     strata_channel_kind_to_string (ch->kind), ch->id, x, t0, t1, expected,
                     strata_activity_kind_to_string (a.kind), strata_task_state_to_string (a.state),
                     seen->rgba);
          checked++;
        }
    }

  return checked;
}

static void
test_columns_match_raw_store (void)
{
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-small.dat");
  g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  gint64 start = strata_trace_get_start (trace), end = strata_trace_get_end (trace);
  const struct { gint64 from, to; guint width; } views[] = {
    { start, end, 1000 },                                  /* ~34 µs a pixel */
    { start, end, 317 },                                   /* an odd scale */
    { start + 16000000, start + 18000000, 1200 },
    { start + 16900000, start + 17100000, 800 },           /* 250 ns a pixel */
    { start + 17000000, start + 17000500, 1000 },          /* under 1 ns a pixel */
  };

  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      guint checked;

      paint_all_rows (painter, views[i].from, views[i].to, views[i].width, list);
      g_assert_cmpuint (list->rows->len, ==, n_rows_of (painter));
      checked = check_columns_against_raw (trace, list);
      g_test_message ("view %u: level %u, %u items, %u rects, %u columns checked",
                      i, list->level, list->n_items, list->rects->len, checked);
      /* Most of the 46 rows are inside one state for most columns. */
      g_assert_cmpuint (checked, >, views[i].width * 10);
    }
}

/* Thread 4302 (the benchmark's parent, the busiest thread) at the middle
 * of its longest run, found in the trace's own activity list: green there
 * at any zoom, and not green in the middle of its longest sleep. */
static void
test_known_thread_running (void)
{
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-small.dat");
  g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  const StrataChannel *channels;
  const StrataActivity *all;
  guint n_channels;
  gsize n;
  guint32 thread = STRATA_CHANNEL_NONE;
  const StrataActivity *run = NULL, *sleep = NULL;
  guint32 running = strata_paint_state_color (SCHEME, STRATA_TASK_STATE_RUNNING);
  gint64 spans[] = { 0, 20000000, 1000000, 50000 };

  channels = strata_trace_get_channels (trace, &n_channels);
  for (guint i = 0; i < n_channels; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD && channels[i].id == 4302)
      thread = i;
  g_assert_cmpuint (thread, !=, STRATA_CHANNEL_NONE);

  all = strata_trace_get_activities (trace, &n);
  for (gsize i = 0; i < n; i++)
    {
      const StrataActivity *a = &all[i];

      if (a->channel != thread || a->kind != STRATA_ACTIVITY_STATE)
        continue;
      if (a->state == STRATA_TASK_STATE_RUNNING && (run == NULL || a->end - a->start > run->end - run->start))
        run = a;
      if (a->state == STRATA_TASK_STATE_SLEEPING &&
          (sleep == NULL || a->end - a->start > sleep->end - sleep->start))
        sleep = a;
    }
  g_assert_nonnull (run);
  g_assert_nonnull (sleep);
  /* Long enough to fill pixels at the whole trace's scale. */
  g_assert_cmpint (run->end - run->start, >, 1000000);

  for (guint i = 0; i < G_N_ELEMENTS (spans); i++)
    for (guint k = 0; k < 2; k++)
      {
        const StrataActivity *a = k == 0 ? run : sleep;
        gint64 t = a->start + (a->end - a->start) / 2;
        gint64 from = spans[i] ? t - spans[i] / 2 : strata_trace_get_start (trace);
        gint64 to = spans[i] ? t + spans[i] / 2 : strata_trace_get_end (trace);
        const StrataPaintRow *row;
        const StrataPaintRect *seen;

        paint_all_rows (painter, from, to, 1000, list);
        row = strata_display_list_find_row (list, thread);
        g_assert_nonnull (row);
        seen = topmost_at (list, floorf (strata_display_list_x_for_time (list, t)) + 0.5f,
                           row->y + row->h - 3);
        g_assert_nonnull (seen);
        if (k == 0)
          g_assert_cmphex (seen->rgba, ==, running);
        else
          g_assert_cmphex (seen->rgba, ==, strata_paint_state_color (SCHEME, STRATA_TASK_STATE_SLEEPING));
      }
}

static guint
rects_in_row (const StrataDisplayList *list,
              const StrataPaintRow    *row)
{
  guint n = 0;

  for (guint i = 0; i < list->rects->len; i++)
    {
      const StrataPaintRect *r = &g_array_index (list->rects, StrataPaintRect, i);

      if (r->x >= list->area_x && r->y >= row->y && r->y + r->h <= row->y + row->h &&
          r->w < list->area_width)
        n++;
    }
  return n;
}

/* However many activities are behind a frame, it has a few rectangles
 * per pixel column of each row at most. */
static void
assert_bounded (const StrataDisplayList *list)
{
  /* The frame's furniture: background, ruler, grid, legend, names. */
  guint furniture = 64 + list->ticks->len * 2 + list->rows->len * 2;

  g_assert_cmpuint (list->rects->len, <=, (guint) list->area_width * list->rows->len * 8 + furniture);
  for (guint i = 0; i < list->rows->len; i++)
    g_assert_cmpuint (rects_in_row (list, &g_array_index (list->rows, StrataPaintRow, i)), <=,
                      (guint) list->area_width * 8);
  /* Labels only where at least 40 pixels are free for them. */
  g_assert_cmpuint (list->texts->len, <=, 2 * list->rows->len * ((guint) list->area_width / 40 + 3) + 64);
}

/* A CPU row running threads whose tids share the painter's colour cache
 * slots (the cache is direct-mapped by tid, a few thousand slots): each
 * task, as long as many pixels, is drawn in its own thread's colour in
 * every column, painted after frames of other tids and in the other
 * scheme, so a colour evicted and found again is still the tid's. */
static void
test_task_colors_colliding_tids (void)
{
  /* Tids equal modulo 256, 4 096 and 65 536, and a few neighbours. */
  static const gint32 tids[] = { 7, 7 + 4096, 7 + 256, 7 + 65536, 7 + 8192, 8, 7 + 4096 * 3, 263, 4103 };
  const gint64 length = 1000000, n_tasks = 4 * G_N_ELEMENTS (tids);
  g_autoptr(StrataZoomTree) tree = NULL;
  g_autoptr(StrataStringPool) pool = strata_string_pool_new ();
  g_autoptr(StrataPainter) painter = NULL;
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  g_autoptr(GArray) activities = g_array_new (FALSE, TRUE, sizeof (StrataActivity));
  g_autoptr(GError) error = NULL;
  StrataChannel channel = { 0 };
  StrataPaintStyle style;
  StrataZoomParams params;
  const guint width = 1000;
  guint checked = 0;

  for (gint64 i = 0; i < n_tasks; i++)
    {
      StrataActivity a = { 0 };

      a.start = i * length;
      a.end = a.start + length;
      a.channel = 0;
      a.kind = STRATA_ACTIVITY_TASK;
      /* A different order in each round of the tids. */
      a.arg = tids[(i * (1 + 2 * (i / G_N_ELEMENTS (tids)))) % G_N_ELEMENTS (tids)];
      g_array_append_val (activities, a);
    }
  strata_zoom_params_init (&params);
  tree = strata_zoom_tree_new (&params, &error);
  g_assert_no_error (error);
  strata_test_stream_build (tree, (const StrataActivity *)(gpointer) activities->data, activities->len);

  channel.kind = STRATA_CHANNEL_CPU;
  channel.name = strata_string_pool_intern (pool, "CPU 0");
  channel.parent = STRATA_CHANNEL_NONE;
  channel.tgid = -1;
  channel.end = G_MAXINT64;
  painter = strata_painter_new (pool, tree);
  strata_painter_set_channels (painter, &channel, 1);
  strata_painter_set_extent (painter, 0, n_tasks * length);
  strata_painter_set_rows (painter, (const guint32[]) { 0 }, 1);
  strata_paint_style_init (&style);

  for (guint pass = 0; pass < 3; pass++)
    {
      /* The light scheme, the dark, the light again: the cache is the
       * scheme's. */
      StrataPaintScheme scheme = pass == 1 ? STRATA_PAINT_SCHEME_DARK : STRATA_PAINT_SCHEME_LIGHT;
      const StrataPaintRow *row;

      style.scheme = scheme;
      strata_painter_set_style (painter, &style);
      paint_all_rows (painter, 0, n_tasks * length, width, list);
      g_assert_cmpuint (list->rows->len, ==, 1);
      row = &g_array_index (list->rows, StrataPaintRow, 0);

      for (guint x = 0; x < width; x++)
        {
          /* A column well inside one task. */
          gint64 t = (gint64) ((x + 0.5) * list->ns_per_pixel);
          gint64 in_task = t % length;
          const StrataPaintRect *seen;
          guint32 expected;

          if (in_task < length / 8 || in_task > length - length / 8)
            continue;
          expected = strata_paint_task_color (scheme, g_array_index (activities, StrataActivity, t / length).arg);
          seen = topmost_at (list, list->area_x + x + 0.5f, row->y + row->h / 2 - 1);
          g_assert_nonnull (seen);
          g_assert_cmphex (seen->rgba, ==, expected);
          checked++;
        }
    }
  g_assert_cmpuint (checked, >, 3 * width / 2);
}

static void
test_rect_count_bounded (void)
{
  g_autoptr(StrataZoomTree) tree = NULL;
  g_autoptr(StrataStringPool) pool = strata_string_pool_new ();
  g_autoptr(StrataPainter) painter = NULL;
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  g_autoptr(GArray) activities = NULL;
  g_autoptr(GArray) channels = g_array_new (FALSE, TRUE, sizeof (StrataChannel));
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;
  gint64 start = G_MAXINT64, end = G_MININT64;
  guint n_channels;
  guint widths[] = { 64, 400, 1500 };
  gboolean folded = FALSE;

  /* A dense stream: 4 CPUs and 16 threads, far more activities than
   * pixels at any of these scales. */
  activities = strata_test_stream_collect (STRATA_TEST_STREAM_DENSE, 400000, 7);
  strata_zoom_params_init (&params);
  tree = strata_zoom_tree_new (&params, &error);
  g_assert_no_error (error);
  strata_test_stream_build (tree, (const StrataActivity *)(gpointer) activities->data, activities->len);

  n_channels = 0;
  for (guint i = 0; i < activities->len; i++)
    {
      const StrataActivity *a = &g_array_index (activities, StrataActivity, i);

      start = MIN (start, a->start);
      end = MAX (end, a->end);
      n_channels = MAX (n_channels, a->channel + 1);
    }
  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *name = g_strdup_printf ("task-%u", i);
      strata_string_pool_intern (pool, name);
    }
  g_array_set_size (channels, n_channels);
  for (guint i = 0; i < n_channels; i++)
    {
      StrataChannel *ch = &g_array_index (channels, StrataChannel, i);
      g_autofree char *name = g_strdup_printf (i < 4 ? "CPU %u" : "thread %u", i);

      ch->kind = i < 4 ? STRATA_CHANNEL_CPU : STRATA_CHANNEL_THREAD;
      ch->id = i < 4 ? (gint32) i : (gint32) (1000 + i);
      ch->name = strata_string_pool_intern (pool, name);
      ch->parent = STRATA_CHANNEL_NONE;
      ch->tgid = -1;
      ch->end = G_MAXINT64;
    }

  painter = strata_painter_new (pool, tree);
  strata_painter_set_channels (painter, (const StrataChannel *)(gpointer) channels->data, n_channels);
  strata_painter_set_extent (painter, start, end);
  rows = strata_painter_default_rows (painter);
  g_assert_cmpuint (rows->len, ==, n_channels);
  strata_painter_set_rows (painter, (const guint32 *)(gpointer) rows->data, rows->len);

  for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
    for (gint64 div = 1; div <= 10000; div *= 10)
      {
        gint64 from = start + (end - start) / 3;
        gint64 to = from + (end - start) / div;
        StrataZoomGeometry g;

        paint_all_rows (painter, from, to, widths[w], list);
        g_assert_true (strata_zoom_tree_get_geometry (tree, &g));
        /* The finest level whose pixel is at least the screen's (the
         * coarsest there is if none is), no finer than F times the
         * screen's, and no finer if the viewport would overlap more than
         * two of its chunks. */
        g_assert_cmpuint (list->level, ==,
                          strata_zoom_geometry_level_for_frame (&g, to - from, widths[w]));
        if (list->level > 0)
          g_assert_cmpint (strata_zoom_geometry_pixel (&g, list->level), >=, MAX ((to - from) / widths[w], 1));
        if (list->level + 1 < g.n_levels &&
            list->level + 1 <= strata_zoom_geometry_level_for_viewport (&g, to - from))
          g_assert_cmpint (strata_zoom_geometry_pixel (&g, list->level + 1), <, MAX ((to - from) / widths[w], 1));
        g_assert_cmpuint (list->level, <=, strata_zoom_geometry_level_for_viewport (&g, to - from));
        g_assert_cmpuint (list->stats.n_chunks, <=, 2);
        g_test_message ("width %u, 1/%" G_GINT64_FORMAT " of the trace: %u items, %u rects",
                        widths[w], div, list->n_items, list->rects->len);
        assert_bounded (list);
        folded |= list->n_items > 2 * list->rects->len;
      }

  /* Zoomed out, many items share a pixel: had each been drawn, the
   * bounds above would not hold. */
  g_assert_true (folded);
}

static void
test_real_trace_bounded (void)
{
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-small.dat");
  g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  guint widths[] = { 16, 100, 640, 2500 };

  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      paint_all_rows (painter, strata_trace_get_start (trace), strata_trace_get_end (trace),
                      widths[i], list);
      assert_bounded (list);
    }
}

/* Only the rows that fit are drawn, cut at the area's edges, and every
 * rectangle stays in the frame. */
static void
test_scrolled_rows (void)
{
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-small.dat");
  g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  const StrataPaintStyle *style = strata_painter_get_style (painter);
  StrataPaintViewport viewport = {
    strata_trace_get_start (trace), strata_trace_get_end (trace), 700, 5 * style->row_height, 0,
  };

  viewport.scroll_y = 3 * style->row_height + style->row_height / 2;
  strata_painter_paint (painter, &viewport, list);

  /* Half of row 3, rows 4 to 7, half of row 8. */
  g_assert_cmpuint (list->rows->len, ==, 6);
  g_assert_cmpfloat (g_array_index (list->rows, StrataPaintRow, 0).y, <, list->area_y);

  for (guint i = 0; i < list->rects->len; i++)
    {
      const StrataPaintRect *r = &g_array_index (list->rects, StrataPaintRect, i);

      g_assert_cmpfloat (r->x, >=, 0);
      g_assert_cmpfloat (r->y, >=, 0);
      g_assert_cmpfloat (r->x + r->w, <=, list->frame_width);
      g_assert_cmpfloat (r->y + r->h, <=, list->frame_height);
      /* Nothing of the rows spills into the ruler or the legend: what
       * reaches into the area is inside it. */
      if (r->x >= list->area_x && r->w < list->area_width &&
          r->y < list->area_y + list->area_height && r->y + r->h > list->area_y)
        {
          g_assert_cmpfloat (r->y, >=, list->area_y);
          g_assert_cmpfloat (r->y + r->h, <=, list->area_y + list->area_height);
        }
    }
}

/* The default rows: CPUs first, then exactly the threads of which the
 * trace knows something, each once; a process heads its threads only when
 * it has more than one. */
static void
test_default_rows (void)
{
  const char *fixtures[] = { "sched-small.dat", "sched-tgid.txt", "instances.dat" };

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autoptr(StrataTrace) trace = strata_test_load_with_tree (fixtures[f]);
      g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
      g_autofree guint8 *known = NULL;
      g_autofree guint *seen = NULL;
      const StrataChannel *channels;
      const StrataActivity *all;
      const guint32 *rows;
      guint n_channels, n_rows, n_cpus = 0;
      gsize n;

      channels = strata_trace_get_channels (trace, &n_channels);
      all = strata_trace_get_activities (trace, &n);
      known = g_new0 (guint8, n_channels);
      seen = g_new0 (guint, n_channels);
      for (gsize i = 0; i < n; i++)
        if (!(all[i].kind == STRATA_ACTIVITY_STATE && all[i].state == STRATA_TASK_STATE_UNKNOWN))
          known[all[i].channel] = 1;
      for (guint i = 0; i < n_channels; i++)
        n_cpus += channels[i].kind == STRATA_CHANNEL_CPU;

      rows = strata_painter_get_rows (painter, &n_rows);
      for (guint i = 0; i < n_rows; i++)
        {
          const StrataChannel *ch = &channels[rows[i]];

          seen[rows[i]]++;
          g_assert_cmpint (i < n_cpus, ==, ch->kind == STRATA_CHANNEL_CPU);
          if (ch->kind == STRATA_CHANNEL_PROCESS)
            {
              /* Followed by at least two of its threads. */
              g_assert_cmpuint (i + 2, <, n_rows);
              g_assert_cmpuint (channels[rows[i + 1]].parent, ==, rows[i]);
              g_assert_cmpuint (channels[rows[i + 2]].parent, ==, rows[i]);
            }
        }

      for (guint i = 0; i < n_channels; i++)
        {
          g_assert_cmpuint (seen[i], <=, 1);
          if (channels[i].kind == STRATA_CHANNEL_THREAD)
            g_assert_cmpuint (seen[i], ==, known[i]);
          if (channels[i].kind == STRATA_CHANNEL_CPU)
            g_assert_cmpuint (seen[i], ==, 1);
        }
    }
}

static void
test_ruler (void)
{
  const struct { gint64 t, magnitude, step; const char *text; } formats[] = {
    { 12500000, 34000000, 500000, "12.5 ms" },
    { 0, 34000000, 5000000, "0 ms" },
    { 1500, 2000, 500, "1.5 µs" },
    { 2000000000, 3000000000, 1000000000, "2 s" },
    { -5000000, 10000000, 1000000, "-5 ms" },
    { 300000, 900000, 100000, "300 µs" },
    { 12300000, 34000000, 100000, "12.3 ms" },
    { 7, 900, 1, "7 ns" },
  };
  g_autoptr(GArray) ticks = g_array_new (FALSE, FALSE, sizeof (StrataPaintTick));
  GStringChunk *labels = g_string_chunk_new (256);
  guint n_labelled = 0;

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *text = strata_paint_format_time (formats[i].t, formats[i].magnitude, formats[i].step);
      g_assert_cmpstr (text, ==, formats[i].text);
    }

  /* The step is the smallest 1, 2 or 5 x 10^k that keeps labelled ticks
   * min_spacing apart. */
  for (gint64 span = 1; span < G_GINT64_CONSTANT (100000000000); span = span * 3 + 7)
    for (double width = 50; width < 5000; width *= 2.7)
      {
        gint64 step = strata_paint_ruler_step (span, width, 90);
        gint64 p = 1, smaller;

        while (p * 10 <= step)
          p *= 10;
        g_assert_true (step == p || step == 2 * p || step == 5 * p);
        if (step > 1)
          g_assert_cmpfloat (step * width / span, >=, 90 - 1e-6);
        smaller = step == p ? p / 2 : step == 2 * p ? p : 2 * p;
        if (smaller >= 1 && step > 1)
          g_assert_cmpfloat (smaller * width / span, <, 90);
      }

  /* Deep zoom, far from the origin: one full label, then offsets. */
  strata_paint_ruler_ticks (17000000, 17000500, 0, 1000, 0, 90, ticks, labels);
  for (guint i = 0; i < ticks->len; i++)
    {
      const StrataPaintTick *tick = &g_array_index (ticks, StrataPaintTick, i);

      g_assert_cmpint (tick->time, >=, 17000000);
      g_assert_cmpint (tick->time, <, 17000500);
      g_assert_cmpfloat (fabsf (tick->x - (tick->time - 17000000) * 2.f), <, 0.01);
      if (!tick->labelled)
        continue;
      if (n_labelled++ == 0)
        g_assert_true (g_str_has_suffix (tick->label, " ms"));
      else
        g_assert_true (g_str_has_prefix (tick->label, "+") && g_str_has_suffix (tick->label, " ns"));
    }
  g_assert_cmpuint (n_labelled, >=, 5);

  g_string_chunk_free (labels);
}

static gboolean
clear_of_text (const StrataDisplayList *list,
               float                    x,
               float                    y)
{
  for (guint i = 0; i < list->texts->len; i++)
    {
      const StrataPaintText *t = &g_array_index (list->texts, StrataPaintText, i);
      float x0 = t->align == STRATA_PAINT_ALIGN_RIGHT ? t->x - t->max_width : t->x;

      if (x >= x0 - 2 && x < x0 + t->max_width + 2 && fabsf (y - t->y) < 9)
        return FALSE;
    }
  return TRUE;
}

/* strata-cli render writes a PNG of the size asked, and its pixels are
 * the colours of the display list the library paints for the same view. */
static void
test_cli_png (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *png = g_build_filename (dir, "render.png", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-small.dat");
  g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  const StrataPaintStyle *style = strata_painter_get_style (painter);
  const char *args[] = { "render", path, "--width", "900", "--height", "400", "-o", png, NULL };
  StrataPaintViewport viewport = { strata_trace_get_start (trace), strata_trace_get_end (trace), 0, 0, 0 };
  cairo_surface_t *surface;
  guint32 running = strata_paint_state_color (SCHEME, STRATA_TASK_STATE_RUNNING);
  const guint8 *data;
  int stride;
  guint checked = 0, running_checked = 0;

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, png));

  surface = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 900);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, 400);
  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);

  viewport.width = 900 - style->name_width;
  viewport.height = 400 - style->ruler_height - style->legend_height;
  strata_painter_paint (painter, &viewport, list);

  /* Every opaque rectangle's middle pixel, where no text is drawn, has
   * its colour in the PNG (the running spans among them). */
  for (guint r = 0; r < list->rects->len; r++)
    {
      const StrataPaintRect *rect = &g_array_index (list->rects, StrataPaintRect, r);
      float px = floorf (rect->x + rect->w / 2) + 0.5f, py = floorf (rect->y + rect->h / 2) + 0.5f;
      const StrataPaintRect *seen = topmost_at (list, px, py);
      guint32 argb;

      if (seen != rect || (rect->rgba & 0xff) != 0xff || rect->w < 1 || rect->h < 1 ||
          !clear_of_text (list, px, py))
        continue;

      argb = *(const guint32 *)(gconstpointer) (data + (int) py * stride + (int) px * 4);
      if ((argb & 0xffffff) != rect->rgba >> 8)
        g_error ("pixel %d,%d is %06x, the display list says %06x",
                 (int) px, (int) py, argb & 0xffffff, rect->rgba >> 8);
      checked++;
      running_checked += rect->rgba == running;
    }
  g_assert_cmpuint (checked, >, 200);
  g_assert_cmpuint (running_checked, >, 10);

  cairo_surface_destroy (surface);
}

static void
test_cli_times (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *png = g_build_filename (dir, "zoom.png", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *zoom[] = { "render", path, "--from", "+16.5ms", "--to", "+17000us", "--width", "640",
                         "--dark", "-o", png, NULL };
  const char *bad[] = { "render", path, "--from", "soon", "-o", png, NULL };
  const char *backwards[] = { "render", path, "--from", "+2ms", "--to", "+1ms", "-o", png, NULL };
  const char *no_output[] = { "render", path, NULL };
  cairo_surface_t *surface;

  g_assert_cmpint (strata_test_run_cli (zoom, &out, &err), ==, 0);
  surface = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 640);
  cairo_surface_destroy (surface);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (strata_test_run_cli (bad, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "soon"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (strata_test_run_cli (backwards, &out, &err), ==, 1);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (strata_test_run_cli (no_output, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "-o"));
}

/* A trace cut in half: the PNG shows what was read before the cut, and
 * the exit status says it is partial. */
static void
test_cli_damaged (void)
{
  g_autofree char *src = strata_test_fixture ("sched-small.txt");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "cut.txt", NULL);
  g_autofree char *png = g_build_filename (dir, "cut.png", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "render", path, "--width", "500", "--height", "200", "-o", png, NULL };
  cairo_surface_t *surface;
  gsize len;

  g_assert_true (g_file_get_contents (src, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (path, contents, len / 2, NULL));

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "warning"));

  surface = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 500);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, 200);
  cairo_surface_destroy (surface);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/render/columns-match-raw-store", test_columns_match_raw_store);
  g_test_add_func ("/strata/render/known-thread-running", test_known_thread_running);
  g_test_add_func ("/strata/render/task-colors-colliding-tids", test_task_colors_colliding_tids);
  g_test_add_func ("/strata/render/rect-count-bounded", test_rect_count_bounded);
  g_test_add_func ("/strata/render/real-trace-bounded", test_real_trace_bounded);
  g_test_add_func ("/strata/render/scrolled-rows", test_scrolled_rows);
  g_test_add_func ("/strata/render/default-rows", test_default_rows);
  g_test_add_func ("/strata/render/ruler", test_ruler);
  g_test_add_func ("/strata/render/cli-png", test_cli_png);
  g_test_add_func ("/strata/render/cli-times", test_cli_times);
  g_test_add_func ("/strata/render/cli-damaged", test_cli_damaged);

  return g_test_run ();
}
