/* strata-bench-frame.c
 *
 * The frame benchmark: the CPU time the timeline needs to build one
 * frame's render nodes at 1920x1080 with about 60 visible rows, at ten
 * zoom levels (the whole trace, then each a quarter of the last), on a
 * generated activity stream of any size. A frame is what the widget's
 * snapshot() does: one StrataPainter paint (one zoom-tree query of the
 * visible rows, folded per pixel column) and the display list turned into
 * GTK render nodes (colour nodes, text through one PangoLayout). The
 * baseline is what Hotspot does: a colour node for every raw activity in
 * view, read from the raw store. Times are the calling thread's CPU time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gtk/gtk.h>
#include <pango/pangocairo.h>

#include "strata-bench-time.h"
#include "strata-painter-private.h"
#include "strata-test-streams.h"
#include "strata-timeline-render.h"

#define FEED_BATCH    4096
#define FRAME_WIDTH   1920
#define FRAME_HEIGHT  1080
#define N_LEVELS      10

static gboolean
parse_count (const char *s,
             guint64    *out)
{
  char *end = NULL;
  double v = g_ascii_strtod (s, &end);

  if (end == s || v <= 0)
    return FALSE;
  if (*end == 'k' || *end == 'K')
    v *= 1e3, end++;
  else if (*end == 'm' || *end == 'M')
    v *= 1e6, end++;
  if (*end != '\0')
    return FALSE;
  *out = (guint64) v;
  return TRUE;
}

/* The CPU rows are the channels whose activities are what runs on a CPU. */
static gboolean
is_cpu_kind (guint8 kind)
{
  return kind == STRATA_ACTIVITY_TASK || kind == STRATA_ACTIVITY_IDLE || kind == STRATA_ACTIVITY_IRQ ||
         kind == STRATA_ACTIVITY_SOFTIRQ || kind == STRATA_ACTIVITY_UNKNOWN;
}

/* One frame of the timeline, as snapshot() builds it. */
static gint64
frame_zoom_tree (StrataPainter        *painter,
                 StrataDisplayList    *list,
                 StrataTimelineRender *render,
                 gint64                from,
                 gint64                to,
                 guint                *n_nodes,
                 gint64               *paint_ns)
{
  const StrataPaintStyle *style = strata_painter_get_style (painter);
  StrataPaintViewport vp = { from, to, FRAME_WIDTH - style->name_width,
                             FRAME_HEIGHT - style->ruler_height - style->legend_height, 0 };
  GtkSnapshot *snapshot;
  GskRenderNode *node;
  gint64 t0 = cpu_ns ();

  snapshot = gtk_snapshot_new ();
  strata_painter_paint (painter, &vp, list);
  *paint_ns = cpu_ns () - t0;
  strata_timeline_render_list (render, snapshot, list);
  node = gtk_snapshot_free_to_node (snapshot);
  g_clear_pointer (&node, gsk_render_node_unref);
  *n_nodes = list->rects->len + list->texts->len;
  return cpu_ns () - t0;
}

/* --fold-ab: the frame painted again with either fold, once it has been
 * painted (so both find the spans' runs found, and their items in the
 * caches): the per-item reference fold must give the same display list. */
static gint64
paint_with (StrataPainter     *painter,
            StrataDisplayList *list,
            gboolean           reference,
            gint64             from,
            gint64             to,
            gint64            *fold_ns,
            gint64            *emit_ns)
{
  const StrataPaintStyle *style = strata_painter_get_style (painter);
  StrataPaintViewport vp = { from, to, FRAME_WIDTH - style->name_width,
                             FRAME_HEIGHT - style->ruler_height - style->legend_height, 0 };
  gint64 t0;

  strata_painter_set_reference_fold (painter, reference);
  t0 = cpu_ns ();
  strata_painter_paint (painter, &vp, list);
  t0 = cpu_ns () - t0;
  strata_painter_get_times (painter, fold_ns, emit_ns);
  strata_painter_set_reference_fold (painter, FALSE);
  return t0;
}

static void
assert_same_list (const StrataDisplayList *a,
                  const StrataDisplayList *b)
{
  if (a->rects->len != b->rects->len ||
      memcmp (a->rects->data, b->rects->data, a->rects->len * sizeof (StrataPaintRect)) != 0 ||
      a->texts->len != b->texts->len || a->n_folded != b->n_folded)
    g_error ("the fold and the reference fold differ: %u and %u rectangles, %u and %u texts",
             a->rects->len, b->rects->len, a->texts->len, b->texts->len);
  for (guint i = 0; i < a->texts->len; i++)
    {
      const StrataPaintText *ta = &g_array_index (a->texts, StrataPaintText, i);
      const StrataPaintText *tb = &g_array_index (b->texts, StrataPaintText, i);

      if (ta->x != tb->x || ta->y != tb->y || ta->max_width != tb->max_width || ta->rgba != tb->rgba ||
          g_strcmp0 (ta->text, tb->text) != 0 || ta->role != tb->role || ta->align != tb->align)
        g_error ("the fold and the reference fold differ at text %u", i);
    }
}

/* The raw activities in view on @rows: what Hotspot's way would draw. */
static guint64
count_raw (StrataRawStore *raw,
           const guint32  *rows,
           guint           n_rows,
           gint64          from,
           gint64          to)
{
  guint64 n = 0;

  for (guint r = 0; r < n_rows; r++)
    for (guint lane = 0; lane < STRATA_RAW_STORE_N_LANES; lane++)
      {
        guint first = 0, end = 0;

        if (strata_raw_store_get_lane (raw, rows[r], lane, from, to, &first, &end) != NULL)
          n += end - first;
      }
  return n;
}

/* Hotspot's way: a node for every activity in view, each at least a
 * pixel wide, for the same rows, read in place from the raw store. */
static gint64
frame_raw (StrataTimelineRender    *render,
           const StrataDisplayList *furniture,
           StrataRawStore *raw,
           const guint32  *rows,
           guint           n_rows,
           guint           row_height,
           float           area_x,
           gint64          from,
           gint64          to,
           guint64        *n_nodes)
{
  double npp = (double) (to - from) / (FRAME_WIDTH - area_x);
  GtkSnapshot *snapshot;
  GskRenderNode *node;
  gint64 t0 = cpu_ns ();
  GdkRGBA colour = { 0.24f, 0.67f, 0.36f, 1 };

  *n_nodes = 0;
  snapshot = gtk_snapshot_new ();
  for (guint r = 0; r < n_rows; r++)
    for (guint lane = 0; lane < STRATA_RAW_STORE_N_LANES; lane++)
      {
        guint first = 0, end = 0;
        const StrataActivity *acts = strata_raw_store_get_lane (raw, rows[r], lane, from, to, &first, &end);

        for (guint i = first; acts != NULL && i < end; i++)
          {
            const StrataActivity *a = &acts[i];
            float x0 = area_x + (float) ((MAX (a->start, from) - from) / npp);
            float x1 = area_x + (float) ((MIN (a->end, to) - from) / npp);

            gtk_snapshot_append_color (snapshot, &colour,
                                       &GRAPHENE_RECT_INIT (x0, r * row_height, MAX (x1 - x0, 1), row_height - 2));
            (*n_nodes)++;
          }
      }
  /* The same names, ruler and legend as the frame it stands against. */
  strata_timeline_render_texts (render, snapshot, furniture);
  node = gtk_snapshot_free_to_node (snapshot);
  g_clear_pointer (&node, gsk_render_node_unref);
  return cpu_ns () - t0;
}

/* --item-stats: what the frame at [from, to) folds, per row: the items
 * of the frame's query in view, by the tree's lane they come from (depth
 * 0..15, then the instants), and how many columns the interval ones
 * cover. The same query as the painter's, on a result of its own. */
#define N_TREE_LANES 17

static gboolean
item_is_instant (const StrataZoomItem *item)
{
  return item->kind == STRATA_ACTIVITY_WAKEUP || item->kind == STRATA_ACTIVITY_EVENT ||
         item->kind == STRATA_ACTIVITY_SAMPLE ||
         (item->kind == STRATA_ACTIVITY_STATE && item->state == STRATA_TASK_STATE_DEAD);
}

static void
print_item_stats (StrataZoomTree *tree,
                  guint           level,
                  guint           tree_level,
                  const guint32  *rows,
                  guint           n_rows,
                  gint64          from,
                  gint64          to,
                  guint           width)
{
  g_autoptr(StrataZoomResult) result = strata_zoom_result_new ();
  StrataZoomQueryStats stats;
  const StrataZoomSpan *spans;
  guint n_spans;
  guint64 by_lane[N_TREE_LANES] = { 0 }, walked = 0, in_view = 0, aggregates = 0;
  guint64 widths[6] = { 0 };   /* 1, 2, 3, 4, 5-16, more columns */
  double npp = (double) (to - from) / width;
  GString *line = g_string_new (NULL);

  strata_zoom_tree_query_spans (tree, tree_level, from, to, rows, n_rows, result, &stats);
  spans = strata_zoom_result_get_spans (result, &n_spans);
  for (guint s = 0; s < n_spans; s++)
    for (guint i = 0; i < spans[s].n_items; i++)
      {
        const StrataZoomItem *item = &spans[s].items[i];
        double x0 = (item->start - from) / npp, x1 = (item->end - from) / npp;
        gboolean instant = item_is_instant (item);
        guint lane = instant ? N_TREE_LANES - 1
                             : (item->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK) >> STRATA_ACTIVITY_FLAG_DEPTH_SHIFT;
        gint c0, c1, n;

        walked++;
        if (item->end < from || item->start > to || x1 < 0 || x0 > width)
          continue;
        in_view++;
        by_lane[lane]++;
        aggregates += (item->flags & STRATA_ZOOM_ITEM_AGGREGATE) != 0;
        if (instant || item->end <= item->start)
          continue;
        c0 = (gint) MAX (x0, 0);
        c1 = MIN ((gint) ceil (MIN (x1, (double) width)), (gint) width);
        n = MAX (c1 - c0, 1);
        widths[n <= 4 ? n - 1 : n <= 16 ? 4 : 5]++;
      }

  g_string_append_printf (line, "| %u | %u | %.0f | %.0f |", level, tree_level,
                          (double) walked / n_rows, (double) in_view / n_rows);
  for (guint l = 0; l < N_TREE_LANES; l++)
    if (l < 3 || l == N_TREE_LANES - 1)
      g_string_append_printf (line, " %.0f |", (double) by_lane[l] / n_rows);
  {
    guint64 deeper = 0;

    for (guint l = 3; l < N_TREE_LANES - 1; l++)
      deeper += by_lane[l];
    g_string_append_printf (line, " %.0f |", (double) deeper / n_rows);
  }
  g_string_append_printf (line, " %.0f%% |", in_view ? 100.0 * aggregates / in_view : 0);
  {
    guint64 total = 0;

    for (guint k = 0; k < G_N_ELEMENTS (widths); k++)
      total += widths[k];
    for (guint k = 0; k < G_N_ELEMENTS (widths); k++)
      g_string_append_printf (line, " %.0f%% |", total ? 100.0 * widths[k] / total : 0);
  }
  printf ("%s\n", line->str);
  g_string_free (line, TRUE);
}

/* --live: what showing a trace while it loads costs. Once a second of
 * loading, on the loading thread (the worker waits, as the tree grows
 * no further meanwhile): a painter for the channels so far with its
 * default rows (what the window does for each update), then a frame of
 * the whole extent read so far. */
static gint64 live_last;

static gboolean
live_report (const StrataTraceProgress *p,
             gpointer                   data)
{
  g_autoptr(StrataPainter) painter = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(StrataDisplayList) list = NULL;
  StrataPaintViewport vp = { 0 };
  gint64 t0, t1, t2;

  if (g_get_monotonic_time () - live_last < G_USEC_PER_SEC || p->start == G_MAXINT64 || p->tree == NULL)
    return TRUE;
  t0 = cpu_ns ();
  painter = strata_painter_new (strata_trace_get_strings (p->trace), p->tree);
  strata_painter_set_channels (painter, p->channels, p->n_channels);
  strata_painter_set_extent (painter, p->start, p->horizon);
  rows = strata_painter_default_rows (painter);
  strata_painter_set_rows (painter, (const guint32 *)(gpointer) rows->data, rows->len);
  t1 = cpu_ns ();
  list = strata_display_list_new ();
  vp.from = p->start;
  vp.to = MAX (p->horizon, p->start + 1);
  vp.width = FRAME_WIDTH - 190;
  vp.height = FRAME_HEIGHT - 46;
  strata_painter_paint (painter, &vp, list);
  t2 = cpu_ns ();
  printf ("| %.2f M | %u | %.1f | %.1f | %u |\n", p->n_events / 1e6, rows->len, (t1 - t0) / 1e6,
          (t2 - t1) / 1e6, list->n_items);
  live_last = g_get_monotonic_time ();
  return TRUE;
}

static int
run_live (const char *path)
{
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;

  strata_source_ensure_builtin ();
  strata_zoom_params_init (&params);
  printf ("# strata-bench-frame --live %s: once a second of loading, CPU ms\n\n", path);
  printf ("| events read | rows | painter + default rows ms | whole-extent paint ms | items |\n");
  printf ("|---|---|---|---|---|\n");
  live_last = g_get_monotonic_time ();
  {
    g_autoptr(StrataLoader) loader = strata_loader_new (path);

    strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
    strata_loader_set_zoom_params (loader, &params);
    strata_loader_set_progress_func (loader, live_report, NULL, NULL);
    trace = strata_loader_load (loader, NULL, &error);
  }
  if (trace == NULL)
    {
      g_printerr ("strata-bench-frame: %s\n", error->message);
      return 1;
    }
  return 0;
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *count = NULL;
  gint frames = 20, seed = 1;
  gboolean no_raw = FALSE;
  gint raw_limit = 5000000;
  gint only_level = -1;
  gboolean item_stats = FALSE;
  gboolean fold_ab = FALSE;
  gboolean split = FALSE;
  gboolean pan = FALSE;
  g_autofree char *live = NULL;
  GOptionEntry entries[] = {
    { "n", 'n', 0, G_OPTION_ARG_STRING, &count, "Activities (1M, 10M, 100M)", "N" },
    { "frames", 'f', 0, G_OPTION_ARG_INT, &frames, "Frames per zoom level (default 20)", "F" },
    { "seed", 's', 0, G_OPTION_ARG_INT, &seed, "Stream seed", "SEED" },
    { "no-raw", 0, 0, G_OPTION_ARG_NONE, &no_raw, "Leave out the raw-activity baseline", NULL },
    { "live", 0, 0, G_OPTION_ARG_FILENAME, &live,
      "Instead: what showing this trace costs while it loads", "TRACE" },
    { "level", 'l', 0, G_OPTION_ARG_INT, &only_level,
      "Time only this one of the ten levels (to profile it)", "L" },
    { "fold-ab", 0, 0, G_OPTION_ARG_NONE, &fold_ab,
      "Also paint each frame again with the painter's reference (per-item) fold and with its fold: the same list, and their times", NULL },
    { "split", 0, 0, G_OPTION_ARG_NONE, &split,
      "Also paint each frame again, split: the rows' fold, their emission, the rest of the paint (query, furniture); and the GTK nodes", NULL },
    { "pan", 0, 0, G_OPTION_ARG_NONE, &pan,
      "Also, after each frame, the frames of a pan from it (four steps of a tenth of the view, as D takes): what moving about costs, the view before's blocks at hand", NULL },
    { "item-stats", 0, 0, G_OPTION_ARG_NONE, &item_stats,
      "Then, for one frame of each level: the items per row in view by tree lane, and their widths", NULL },
    { "raw-limit", 0, 0, G_OPTION_ARG_INT, &raw_limit,
      "Draw the baseline only for views of at most this many raw activities (default 5M: a node each)", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- CPU time to build one timeline frame");
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTestStream) stream = NULL;
  g_autoptr(StrataZoomTree) tree = NULL;
  g_autoptr(StrataStringPool) pool = NULL;
  g_autoptr(StrataPainter) painter = NULL;
  g_autoptr(StrataDisplayList) list = NULL;
  g_autoptr(StrataDisplayList) ref_list = NULL;
  g_autoptr(StrataDisplayList) ab_list = NULL;
  g_autoptr(StrataTimelineRender) render = NULL;
  GString *ab = g_string_new (NULL);
  GString *sp = g_string_new (NULL);
  GString *pn = g_string_new (NULL);
  g_autoptr(GArray) all_pan = g_array_new (FALSE, FALSE, sizeof (gint64));
  PangoContext *pango = NULL;
  g_autoptr(GArray) channels = g_array_new (FALSE, TRUE, sizeof (StrataChannel));
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) all_raw = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 last_from[N_LEVELS] = { 0 }, last_to[N_LEVELS] = { 0 };
  guint last_level[N_LEVELS] = { 0 };
  StrataZoomParams params;
  StrataActivity a, next;
  gboolean have, more;
  gint64 start = G_MAXINT64, end = G_MININT64, build_t0;
  guint64 n = 1000000, i = 0;
  GRand *rand;
  const StrataPaintStyle *style;
  guint visible;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) ||
      (count != NULL && !parse_count (count, &n)) || frames <= 0)
    {
      g_printerr ("strata-bench-frame: %s\n", error != NULL ? error->message : "bad arguments");
      return 2;
    }

  if (live != NULL)
    return run_live (live);

  /* Render nodes and Pango need no display; GTK is started if one is
   * there, for its font settings. */
  gtk_init_check ();

  strata_zoom_params_init (&params);
  tree = strata_zoom_tree_new (&params, &error);
  g_assert_no_error (error);
  pool = strata_string_pool_new ();

  build_t0 = g_get_monotonic_time ();
  stream = strata_test_stream_new (STRATA_TEST_STREAM_MIXED, n, seed);
  have = strata_test_stream_next (stream, &a);
  while (have)
    {
      more = strata_test_stream_next (stream, &next);
      if (a.channel >= channels->len)
        {
          guint old = channels->len;

          g_array_set_size (channels, a.channel + 1);
          for (guint c = old; c < channels->len; c++)
            g_array_index (channels, StrataChannel, c).kind = 0xff;
        }
      if (g_array_index (channels, StrataChannel, a.channel).kind == 0xff)
        g_array_index (channels, StrataChannel, a.channel).kind =
          is_cpu_kind (a.kind) ? STRATA_CHANNEL_CPU : STRATA_CHANNEL_THREAD;
      start = MIN (start, a.start);
      end = MAX (end, a.end);
      strata_zoom_tree_add (&a, tree);
      if (++i % FEED_BATCH == 0 && more)
        strata_zoom_tree_advance (tree, next.start, NULL, NULL);
      a = next;
      have = more;
    }
  strata_zoom_tree_finish (tree);

  for (guint c = 0; c < channels->len; c++)
    {
      StrataChannel *ch = &g_array_index (channels, StrataChannel, c);
      g_autofree char *name = NULL;

      if (ch->kind == 0xff)
        ch->kind = STRATA_CHANNEL_THREAD;
      name = g_strdup_printf (ch->kind == STRATA_CHANNEL_CPU ? "CPU %u" : "thread %u", c);
      ch->id = c;
      ch->name = strata_string_pool_intern (pool, name);
      ch->parent = STRATA_CHANNEL_NONE;
      ch->tgid = -1;
      ch->end = G_MAXINT64;
    }

  painter = strata_painter_new (pool, tree);
  strata_painter_set_channels (painter, (const StrataChannel *)(gpointer) channels->data, channels->len);
  strata_painter_set_extent (painter, start, end);
  {
    StrataPaintStyle s;

    strata_paint_style_init (&s);
    s.row_height = 17;
    strata_painter_set_style (painter, &s);
  }
  style = strata_painter_get_style (painter);
  visible = (FRAME_HEIGHT - style->ruler_height - style->legend_height) / style->row_height;
  for (guint32 c = 0; c < channels->len && rows->len < visible; c++)
    g_array_append_val (rows, c);
  strata_painter_set_rows (painter, (const guint32 *)(gpointer) rows->data, rows->len);

  list = strata_display_list_new ();
  ref_list = strata_display_list_new ();
  ab_list = strata_display_list_new ();
  if (fold_ab)
    strata_painter_set_timed (painter, TRUE);
  pango = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  render = strata_timeline_render_new (pango);
  rand = g_rand_new_with_seed (seed);

  printf ("# strata-bench-frame: %" G_GUINT64_FORMAT " activities (mixed), %u channels, built in %.1f s\n",
          n, channels->len, (g_get_monotonic_time () - build_t0) / 1e6);
  printf ("# %dx%d, %u visible rows, %d frames per level, CPU time of the calling thread\n\n",
          FRAME_WIDTH, FRAME_HEIGHT, rows->len, frames);
  printf ("| level | span | tree level | items | on-demand parts | nodes | frame median ms | of which paint ms | raw activities in view | raw median ms | raw / frame |\n");
  printf ("|---|---|---|---|---|---|---|---|---|---|---|\n");

  for (guint level = 0; level < N_LEVELS; level++)
    {
      g_autoptr(GArray) t = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) traw = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) tpaint = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) tref = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) tfast = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) fold = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) emit = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) ref_fold = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) ref_emit = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) s_again = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) s_fold = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) s_emit = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) s_rest = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) s_nodes = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) tpan = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) tpan_paint = g_array_new (FALSE, FALSE, sizeof (gint64));
      guint64 folded_sum = 0;
      gint64 span = MAX ((end - start) >> (2 * level), FRAME_WIDTH);
      guint64 raw_nodes_sum = 0;
      guint nodes = 0, items = 0, tree_level = 0, on_demand = 0;
      g_autofree char *span_s = NULL;
      double tree_ms, raw_ms = 0;

      if (only_level >= 0 && level != (guint) only_level)
        continue;

      /* One frame first, so what is measured is a warm frame as the
       * widget draws them while the user moves about. */
      for (int f = -1; f < frames; f++)
        {
          gint64 from = start + (gint64) (g_rand_double (rand) * MAX (end - start - span, 0));
          gint64 dp = 0;
          gint64 dt = frame_zoom_tree (painter, list, render, from, from + span, &nodes, &dp);

          if (f >= 0)
            {
              g_array_append_val (t, dt);
              g_array_append_val (tpaint, dp);
              g_array_append_val (all, dt);
              folded_sum += list->n_folded;
              if (split)
                {
                  gint64 fns, ens, rest, dn = dt - dp, again;

                  /* The frame painted again with the painter's clock on
                   * (its reads would weigh on the timed frame): the
                   * spans' items are decoded again, but warm. */
                  if (!fold_ab)
                    strata_painter_set_timed (painter, TRUE);
                  again = paint_with (painter, ab_list, FALSE, from, from + span, &fns, &ens);
                  if (!fold_ab)
                    strata_painter_set_timed (painter, FALSE);
                  rest = again - fns - ens;
                  g_array_append_val (s_again, again);
                  g_array_append_val (s_fold, fns);
                  g_array_append_val (s_emit, ens);
                  g_array_append_val (s_rest, rest);
                  g_array_append_val (s_nodes, dn);
                }
            }
          if (pan && f >= 0)
            {
              /* A tenth of the view further each step: each frame shows
               * nine tenths of what the one before did. */
              for (guint k = 1; k <= 4; k++)
                {
                  gint64 at = MIN (from + (gint64) k * (span / 10), MAX (end - span, start));
                  guint pn_nodes;
                  gint64 pp = 0, pt = frame_zoom_tree (painter, list, render, at, at + span, &pn_nodes, &pp);

                  g_array_append_val (tpan, pt);
                  g_array_append_val (tpan_paint, pp);
                  g_array_append_val (all_pan, pt);
                }
            }
          if (fold_ab)
            {
              gint64 fns, ens, rfns, rens, dref, dfast;

              /* Which goes first alternates, frame by frame. */
              if (f % 2 == 0)
                {
                  dref = paint_with (painter, ref_list, TRUE, from, from + span, &rfns, &rens);
                  dfast = paint_with (painter, ab_list, FALSE, from, from + span, &fns, &ens);
                }
              else
                {
                  dfast = paint_with (painter, ab_list, FALSE, from, from + span, &fns, &ens);
                  dref = paint_with (painter, ref_list, TRUE, from, from + span, &rfns, &rens);
                }
              /* The timed frame's list, unless a pan painted over it. */
              if (!pan || f < 0)
                assert_same_list (list, ref_list);
              assert_same_list (ab_list, ref_list);
              if (f >= 0)
                {
                  g_array_append_val (tref, dref);
                  g_array_append_val (tfast, dfast);
                  g_array_append_val (fold, fns);
                  g_array_append_val (emit, ens);
                  g_array_append_val (ref_fold, rfns);
                  g_array_append_val (ref_emit, rens);
                }
            }
          items = list->n_items;
          tree_level = list->level;
          last_from[level] = from;
          last_to[level] = from + span;
          last_level[level] = list->level;
          on_demand = list->stats.n_on_demand;

          if (!no_raw)
            {
              StrataRawStore *raw = strata_zoom_tree_get_raw_store (tree);
              const guint32 *r = (const guint32 *)(gpointer) rows->data;
              guint64 rn = count_raw (raw, r, rows->len, from, from + span);

              if (f >= 0)
                raw_nodes_sum += rn;
              if (rn <= (guint64) raw_limit)
                {
                  gint64 dr = frame_raw (render, list, raw, r, rows->len, style->row_height,
                                         style->name_width, from, from + span, &rn);

                  if (f >= 0)
                    {
                      g_array_append_val (traw, dr);
                      g_array_append_val (all_raw, dr);
                    }
                }
            }
        }

      tree_ms = median_ms (t);
      if (fold_ab)
        {
          double fast = median_ms (tfast), refm = median_ms (tref), folded = (double) folded_sum / frames;
          double f_ms = median_ms (fold), e_ms = median_ms (emit);
          double rf_ms = median_ms (ref_fold), re_ms = median_ms (ref_emit);

          g_string_append_printf (ab, "| %u | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | %.2f |\n",
                                  level, folded, refm, fast, rf_ms, f_ms, re_ms, e_ms,
                                  folded > 0 ? rf_ms * 1e6 / folded : 0, folded > 0 ? f_ms * 1e6 / folded : 0,
                                  f_ms > 0 ? rf_ms / f_ms : 0);
        }
      if (pan)
        g_string_append_printf (pn, "| %u | %.3f | %.3f | %.3f |\n", level, median_ms (t),
                                median_ms (tpan), median_ms (tpan_paint));
      if (split)
        g_string_append_printf (sp, "| %u | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
                                level, (double) folded_sum / frames, tree_ms, median_ms (tpaint),
                                median_ms (s_again), median_ms (s_fold), median_ms (s_emit),
                                median_ms (s_rest), median_ms (s_nodes));
      span_s = strata_paint_format_time (span, span, span / 10);
      if (!no_raw && traw->len == (guint) frames)
        {
          raw_ms = median_ms (traw);
          printf ("| %u | %s | %u | %u | %u | %u | %.3f | %.3f | %" G_GUINT64_FORMAT " | %.3f | %.2fx |\n",
                  level, span_s, tree_level, items, on_demand, nodes, tree_ms, median_ms (tpaint),
                  raw_nodes_sum / (guint64) frames, raw_ms, tree_ms > 0 ? raw_ms / tree_ms : 0);
        }
      else
        printf ("| %u | %s | %u | %u | %u | %u | %.3f | %.3f | %" G_GUINT64_FORMAT " | not drawn (over --raw-limit) | – |\n",
                level, span_s, tree_level, items, on_demand, nodes, tree_ms, median_ms (tpaint),
                raw_nodes_sum / (guint64) frames);
    }

  printf ("\nall levels: zoom tree median %.3f ms", median_ms (all));
  if (!no_raw)
    printf (", raw median %.3f ms (over the levels drawn)", median_ms (all_raw));
  printf ("\n");

  if (fold_ab)
    {
      printf ("\n# each frame painted again, once with the reference (per-item fold, emit_lane()) and once\n"
              "# with the new fold and emission, in turn first (the same display lists, checked); medians of\n"
              "# the calling thread's CPU ms: paint, and the rows' fold and emission within it; ns per item\n"
              "# folded (items in view)\n\n");
      printf ("| level | items folded | reference paint | paint | reference fold | fold | reference emit | emit | reference fold ns/item | fold ns/item | fold speed-up |\n");
      printf ("|---|---|---|---|---|---|---|---|---|---|---|\n%s", ab->str);
    }
  g_string_free (ab, TRUE);

  if (split)
    {
      printf ("\n# each frame painted again after it was timed, with the painter's clock on (medians of\n"
              "# each part, CPU ms): the repaint, the rows' fold within it (cutting the spans to the\n"
              "# view and folding their items), their lanes' emission, the rest of it (the query,\n"
              "# the furniture, the layers' flush); and the timed frame's GTK render nodes (frame\n"
              "# minus paint)\n\n");
      printf ("| level | items folded | frame | paint | repaint | fold | emit | rest of paint | nodes |\n");
      printf ("|---|---|---|---|---|---|---|---|---|\n%s", sp->str);
    }
  g_string_free (sp, TRUE);

  if (pan)
    {
      printf ("\n# after each timed frame, four frames of a pan from it, a tenth of the view a step (the\n"
              "# painter's query result keeps the blocks the frame before decoded): medians, CPU ms\n\n");
      printf ("| level | frame (a view never seen) | pan frame | of which paint |\n");
      printf ("|---|---|---|---|\n%s", pn->str);
      printf ("\nall levels: pan frame median %.3f ms\n", median_ms (all_pan));
    }
  g_string_free (pn, TRUE);

  if (item_stats)
    {
      printf ("\n# items per row of the last frame of each level: walked (the query's), in view, by\n"
              "# the tree's lane in view; the share of aggregates, and the interval items' widths in columns\n\n");
      printf ("| level | tree level | walked | in view | depth 0 | depth 1 | depth 2 | instants | depth 3-15 | aggregates | 1 col | 2 | 3 | 4 | 5-16 | more |\n");
      printf ("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
      for (guint level = 0; level < N_LEVELS; level++)
        if (only_level < 0 || level == (guint) only_level)
          print_item_stats (tree, level, last_level[level], (const guint32 *)(gpointer) rows->data,
                            rows->len, last_from[level], last_to[level],
                            FRAME_WIDTH - style->name_width);
    }

  g_rand_free (rand);
  g_clear_pointer (&render, strata_timeline_render_free);
  g_object_unref (pango);
  return 0;
}
