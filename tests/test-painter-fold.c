/* test-painter-fold.c
 *
 * The painter's fold (every item of a frame into its row's pixel columns)
 * against the per-item fold it replaced, kept as the oracle: for real
 * recordings and generated streams, at every zoom level, several widths,
 * row heights, both colour schemes, scrolled rows and merged rows (a
 * collapsed process), the two display lists are the same, rectangle for
 * rectangle and bit for bit, and so are their texts and the count of
 * items folded. The frame must not change when the fold gets cheaper.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-painter-private.h"
#include "strata-test-support.h"
#include "strata-test-streams.h"

static void
assert_same_lists (const StrataDisplayList *fast,
                   const StrataDisplayList *ref)
{
  g_assert_cmpuint (fast->rects->len, ==, ref->rects->len);
  for (guint i = 0; i < fast->rects->len; i++)
    {
      const StrataPaintRect *a = &g_array_index (fast->rects, StrataPaintRect, i);
      const StrataPaintRect *b = &g_array_index (ref->rects, StrataPaintRect, i);

      if (memcmp (a, b, sizeof *a) != 0)
        g_error ("rectangle %u: %g,%g %gx%g %08x against %g,%g %gx%g %08x", i,
                 a->x, a->y, a->w, a->h, a->rgba, b->x, b->y, b->w, b->h, b->rgba);
    }

  g_assert_cmpuint (fast->texts->len, ==, ref->texts->len);
  for (guint i = 0; i < fast->texts->len; i++)
    {
      const StrataPaintText *a = &g_array_index (fast->texts, StrataPaintText, i);
      const StrataPaintText *b = &g_array_index (ref->texts, StrataPaintText, i);

      g_assert_cmpfloat (a->x, ==, b->x);
      g_assert_cmpfloat (a->y, ==, b->y);
      g_assert_cmpfloat (a->max_width, ==, b->max_width);
      g_assert_cmphex (a->rgba, ==, b->rgba);
      g_assert_cmpuint (a->string, ==, b->string);
      g_assert_cmpstr (a->text, ==, b->text);
      g_assert_cmpuint (a->role, ==, b->role);
      g_assert_cmpuint (a->align, ==, b->align);
    }

  g_assert_cmpuint (fast->n_items, ==, ref->n_items);
  g_assert_cmpuint (fast->n_folded, ==, ref->n_folded);
  g_assert_cmpuint (fast->level, ==, ref->level);
}

/* One viewport painted both ways. Returns the items folded. */
static guint
paint_both (StrataPainter             *painter,
            const StrataPaintViewport *vp)
{
  g_autoptr(StrataDisplayList) fast = strata_display_list_new ();
  g_autoptr(StrataDisplayList) ref = strata_display_list_new ();

  g_assert_false (strata_painter_get_reference_fold (painter));
  strata_painter_paint (painter, vp, fast);
  strata_painter_set_reference_fold (painter, TRUE);
  strata_painter_paint (painter, vp, ref);
  strata_painter_set_reference_fold (painter, FALSE);
  assert_same_lists (fast, ref);
  return fast->n_folded;
}

/* Views of [start, end) from the whole of it down to a few pixels of
 * the finest level, at a few places, widths, row heights and schemes.
 * Returns the items folded in all. */
static guint64
paint_views (StrataPainter *painter,
             gint64         start,
             gint64         end,
             guint          n_rows,
             guint32        seed)
{
  static const guint widths[] = { 257, 1000, 1723 };
  static const guint row_heights[] = { 7, 17, 24 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  guint64 folded = 0;
  StrataPaintStyle style;

  strata_paint_style_init (&style);
  for (guint level = 0; level < 12; level++)
    {
      gint64 span = MAX ((end - start) >> (2 * level), 64);

      for (guint k = 0; k < 3; k++)
        {
          StrataPaintViewport vp = { 0 };

          style.row_height = row_heights[(level + k) % G_N_ELEMENTS (row_heights)];
          style.scheme = (level + k) % 2 ? STRATA_PAINT_SCHEME_DARK : STRATA_PAINT_SCHEME_LIGHT;
          strata_painter_set_style (painter, &style);

          vp.from = start + (gint64) (g_rand_double (rand) * MAX (end - start - span, 0));
          /* Sometimes starting before the trace, or reaching past it. */
          if (k == 1)
            vp.from -= span / 3;
          vp.to = vp.from + span;
          vp.width = widths[(level + 2 * k) % G_N_ELEMENTS (widths)];
          vp.height = MIN (n_rows, 40u) * style.row_height;
          vp.scroll_y = k == 2 && n_rows > 4 ? 2.5f * style.row_height : 0;
          folded += paint_both (painter, &vp);
        }
    }
  return folded;
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
      gint64 start = strata_trace_get_start (trace), end = strata_trace_get_end (trace);

      g_assert_cmpint (end, >, start);
      strata_painter_set_rows (painter, (const guint32 *)(gpointer) rows->data, rows->len);
      g_assert_cmpuint (paint_views (painter, start, end, rows->len, f + 1), >, 0);
    }
}

/* A process row drawn for its threads together (what the timeline does
 * for a collapsed process), both ways. */
static void
test_merged_rows (void)
{
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-tgid.txt");
  g_autoptr(StrataPainter) painter = strata_painter_new_for_trace (trace);
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  const StrataChannel *channels;
  guint n_channels, n_merged = 0;

  channels = strata_trace_get_channels (trace, &n_channels);
  for (guint32 c = 0; c < n_channels; c++)
    {
      g_autoptr(GArray) members = g_array_new (FALSE, FALSE, sizeof (guint32));

      if (channels[c].kind == STRATA_CHANNEL_CPU)
        {
          g_array_append_val (rows, c);
          continue;
        }
      if (channels[c].kind != STRATA_CHANNEL_PROCESS)
        continue;
      for (guint32 t = 0; t < n_channels; t++)
        if (channels[t].kind == STRATA_CHANNEL_THREAD && channels[t].parent == c)
          g_array_append_val (members, t);
      if (members->len == 0)
        continue;
      g_array_append_val (rows, c);
      strata_painter_set_row_members (painter, c, (const guint32 *)(gpointer) members->data, members->len);
      n_merged++;
    }
  g_assert_cmpuint (n_merged, >, 0);
  strata_painter_set_rows (painter, (const guint32 *)(gpointer) rows->data, rows->len);
  paint_views (painter, strata_trace_get_start (trace), strata_trace_get_end (trace), rows->len, 7);
}

/* Generated streams: dense CPUs, many threads, bursts; every channel a
 * row, with the kinds the stream gives them. */
static void
test_generated (void)
{
  static const StrataTestStreamKind kinds[] = {
    STRATA_TEST_STREAM_MIXED, STRATA_TEST_STREAM_DENSE, STRATA_TEST_STREAM_BURSTY,
    STRATA_TEST_STREAM_MANY_THREADS, STRATA_TEST_STREAM_LONG_SLEEPS,
  };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr(GArray) acts = strata_test_stream_collect (kinds[k], 40000, 11 + k);
      g_autoptr(GArray) channels = g_array_new (FALSE, TRUE, sizeof (StrataChannel));
      g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_autoptr(StrataZoomTree) tree = NULL;
      g_autoptr(StrataStringPool) pool = strata_string_pool_new ();
      g_autoptr(StrataPainter) painter = NULL;
      g_autoptr(GError) error = NULL;
      StrataZoomParams params;
      gint64 start = G_MAXINT64, end = G_MININT64;

      strata_zoom_params_init (&params);
      tree = strata_zoom_tree_new (&params, &error);
      g_assert_no_error (error);
      strata_test_stream_build (tree, (const StrataActivity *)(gpointer) acts->data, acts->len);

      for (guint i = 0; i < acts->len; i++)
        {
          const StrataActivity *a = &g_array_index (acts, StrataActivity, i);
          StrataChannel *ch;

          if (a->channel >= channels->len)
            g_array_set_size (channels, a->channel + 1);
          ch = &g_array_index (channels, StrataChannel, a->channel);
          if (a->kind == STRATA_ACTIVITY_TASK || a->kind == STRATA_ACTIVITY_IDLE ||
              a->kind == STRATA_ACTIVITY_IRQ || a->kind == STRATA_ACTIVITY_SOFTIRQ ||
              a->kind == STRATA_ACTIVITY_UNKNOWN)
            ch->kind = STRATA_CHANNEL_CPU;
          else if (ch->kind != STRATA_CHANNEL_CPU)
            ch->kind = STRATA_CHANNEL_THREAD;
          start = MIN (start, a->start);
          end = MAX (end, a->end);
        }
      for (guint32 c = 0; c < channels->len; c++)
        {
          StrataChannel *ch = &g_array_index (channels, StrataChannel, c);
          g_autofree char *name = g_strdup_printf ("channel %u", c);

          ch->id = c;
          ch->name = strata_string_pool_intern (pool, name);
          ch->parent = STRATA_CHANNEL_NONE;
          ch->tgid = -1;
          ch->end = G_MAXINT64;
          g_array_append_val (rows, c);
        }

      painter = strata_painter_new (pool, tree);
      strata_painter_set_channels (painter, (const StrataChannel *)(gpointer) channels->data, channels->len);
      strata_painter_set_extent (painter, start, end);
      strata_painter_set_rows (painter, (const guint32 *)(gpointer) rows->data, rows->len);
      g_assert_cmpuint (paint_views (painter, start, end, rows->len, 100 + k), >, 1000);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  strata_source_ensure_builtin ();

  g_test_add_func ("/strata/painter-fold/fixtures-equal-reference", test_fixtures);
  g_test_add_func ("/strata/painter-fold/merged-rows-equal-reference", test_merged_rows);
  g_test_add_func ("/strata/painter-fold/generated-equal-reference", test_generated);

  return g_test_run ();
}
