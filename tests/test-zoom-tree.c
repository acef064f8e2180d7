/* test-zoom-tree.c
 *
 * The rules of the zoom-tree seed, each a test named after it: chunks per
 * level (FIG. 4/5), a viewport across a chunk seam served by two chunks
 * (FIG. 5: 21 to 85 at level 1), the triviality merge and its two stop
 * conditions (FIG. 6, literally), and conservation of member counts and
 * busy time by aggregation.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata.h"

static StrataActivity
act (gint64 start,
     gint64 end)
{
  StrataActivity a = { 0 };

  a.start = start;
  a.end = end;
  a.kind = STRATA_ACTIVITY_STATE;
  a.state = STRATA_TASK_STATE_RUNNING;
  return a;
}

static GArray *
aggregate (gint64                threshold,
           const StrataActivity *activities,
           guint                 n)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  StrataAggregateRun run;

  strata_aggregate_run_init (&run, threshold);
  for (guint i = 0; i < n; i++)
    strata_aggregate_run_offer (&run, &activities[i], out);
  strata_aggregate_run_flush (&run, out);
  strata_aggregate_run_clear (&run);

  return out;
}

#define ITEM(out, i) (&g_array_index ((out), StrataZoomItem, (i)))

/* FIG. 4 and 5: with a zoom factor of 4 over 256 time units, level x has
 * 4^x chunks of 256 / 4^x units. */
static void
test_fig4_chunks_per_level (void)
{
  StrataZoomGeometry g;
  g_autoptr(GError) error = NULL;
  gint64 expected_duration[] = { 256, 64, 16, 4, 1 };

  /* One pixel per chunk, so the levels go down to 1-unit chunks. */
  g_assert_true (strata_zoom_geometry_init (&g, 0, 255, 4, 1, 1000, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g.n_levels, ==, 5);

  for (guint level = 0; level < g.n_levels; level++)
    {
      gint64 first = strata_zoom_geometry_chunk_index (&g, level, 0);
      gint64 last = strata_zoom_geometry_chunk_index (&g, level, 255);

      g_assert_cmpint (strata_zoom_geometry_chunk_duration (&g, level), ==, expected_duration[level]);
      g_assert_cmpint (last - first + 1, ==, 1 << (2 * level));
    }
}

/* FIG. 5: showing 21 to 85 at level 1 (64-unit chunks) needs the chunks
 * [0, 64) and [64, 128): two, never more for a viewport of one screen. */
static void
test_fig5_seam_two_chunks (void)
{
  StrataZoomGeometry g;
  gint64 first, last;

  g_assert_true (strata_zoom_geometry_init (&g, 0, 255, 4, 1, 1000, NULL));
  first = strata_zoom_geometry_chunk_index (&g, 1, 21);
  last = strata_zoom_geometry_chunk_index (&g, 1, 85 - 1);
  g_assert_cmpint (first, ==, 0);
  g_assert_cmpint (last, ==, 1);
  g_assert_cmpint (strata_zoom_geometry_chunk_start (&g, 1, first), ==, 0);
  g_assert_cmpint (strata_zoom_geometry_chunk_start (&g, 1, last), ==, 64);

  /* Any viewport one chunk long overlaps at most two chunks. */
  for (gint64 t = 0; t + 64 <= 256; t++)
    g_assert_cmpint (strata_zoom_geometry_chunk_index (&g, 1, t + 63) -
                     strata_zoom_geometry_chunk_index (&g, 1, t), <=, 1);
}

static void
test_geometry_defaults (void)
{
  StrataZoomGeometry g;
  gint64 start = G_GINT64_CONSTANT (3600) * 1000000000;   /* an hour of uptime */
  gint64 end = start + G_GINT64_CONSTANT (100) * 1000000000;
  guint last;

  g_assert_true (strata_zoom_geometry_init (&g, start, end, STRATA_ZOOM_DEFAULT_FACTOR,
                                            STRATA_ZOOM_DEFAULT_PIXELS_PER_CHUNK,
                                            STRATA_ZOOM_DEFAULT_DENSITY, NULL));
  last = g.n_levels - 1;

  /* One root chunk holds the trace; the finest level has 1 ns per pixel. */
  g_assert_cmpint (strata_zoom_geometry_chunk_index (&g, 0, start), ==,
                   strata_zoom_geometry_chunk_index (&g, 0, end));
  g_assert_cmpint (strata_zoom_geometry_pixel (&g, last), ==, 1);
  g_assert_cmpint (strata_zoom_geometry_chunk_duration (&g, last), ==, STRATA_ZOOM_DEFAULT_PIXELS_PER_CHUNK);

  /* Each level is F times finer, and chunks are aligned to absolute time,
   * so a chunk's start is a multiple of its duration in every run. */
  for (guint level = 1; level < g.n_levels; level++)
    {
      gint64 d = strata_zoom_geometry_chunk_duration (&g, level);

      g_assert_cmpint (strata_zoom_geometry_chunk_duration (&g, level - 1), ==, 4 * d);
      g_assert_cmpint (strata_zoom_geometry_chunk_start (&g, level,
                         strata_zoom_geometry_chunk_index (&g, level, start + 12345)) % d, ==, 0);
    }

  /* Any viewport, at any zoom, is served by at most two chunks of the level
   * chosen for it, and that level draws at least one item per 2 pixels of
   * a 4K screen. */
  for (gint64 duration = 1000; duration < end - start; duration = duration * 3 / 2)
    {
      guint level = strata_zoom_geometry_level_for_viewport (&g, duration);

      for (gint64 from = start; from < start + 4 * duration; from += duration / 3 + 7)
        g_assert_cmpint (strata_zoom_geometry_chunk_index (&g, level, from + duration - 1) -
                         strata_zoom_geometry_chunk_index (&g, level, from), <=, 1);
      if (duration > 3840 * 2)
        g_assert_cmpint (strata_zoom_geometry_pixel (&g, level), <=, 2 * (duration / 3840) + 1);
    }

  /* A viewport at 1 µs per pixel is drawn from a level at least that fine. */
  g_assert_cmpint (strata_zoom_geometry_pixel (&g, strata_zoom_geometry_level_for_pixel (&g, 1000)),
                   <=, 1000);

  g_assert_false (strata_zoom_geometry_init (&g, 0, 10, 3, 4096, 1000, NULL));
  g_assert_false (strata_zoom_geometry_init (&g, 0, 10, 4, 1000, 1000, NULL));
}

/* FIG. 6, literally: threshold 10; (0, 2) and (2, 6) are trivial and their
 * merged span (0, 6) stays within 10: one aggregate. */
static void
test_fig6_triviality_merge (void)
{
  StrataActivity in[] = { act (0, 2), act (2, 6) };
  g_autoptr(GArray) out = aggregate (10, in, G_N_ELEMENTS (in));

  g_assert_cmpuint (out->len, ==, 1);
  g_assert_cmpint (ITEM (out, 0)->start, ==, 0);
  g_assert_cmpint (ITEM (out, 0)->end, ==, 6);
  g_assert_cmpuint (ITEM (out, 0)->count, ==, 2);
  g_assert_cmpint (ITEM (out, 0)->busy, ==, 6);
  g_assert_true (ITEM (out, 0)->flags & STRATA_ZOOM_ITEM_AGGREGATE);
}

/* FIG. 6, first stop condition: the next activity is not trivial. */
static void
test_fig6_stop_not_trivial (void)
{
  StrataActivity in[] = { act (0, 2), act (2, 6), act (6, 20) };
  g_autoptr(GArray) out = aggregate (10, in, G_N_ELEMENTS (in));

  g_assert_cmpuint (out->len, ==, 2);
  g_assert_cmpuint (ITEM (out, 0)->count, ==, 2);
  g_assert_cmpint (ITEM (out, 1)->start, ==, 6);
  g_assert_cmpint (ITEM (out, 1)->end, ==, 20);
  g_assert_cmpuint (ITEM (out, 1)->count, ==, 1);
  g_assert_false (ITEM (out, 1)->flags & STRATA_ZOOM_ITEM_AGGREGATE);
}

/* FIG. 6, second stop condition: the next activity is trivial, but taking
 * it would stretch the aggregate beyond the threshold ((0, 12) > 10). It
 * starts a run of its own and, merging with nothing, is kept as it is. */
static void
test_fig6_stop_span_exceeds (void)
{
  StrataActivity in[] = { act (0, 2), act (2, 6), act (6, 12) };
  g_autoptr(GArray) out = aggregate (10, in, G_N_ELEMENTS (in));

  g_assert_cmpuint (out->len, ==, 2);
  g_assert_cmpint (ITEM (out, 0)->end, ==, 6);
  g_assert_cmpint (ITEM (out, 1)->start, ==, 6);
  g_assert_cmpint (ITEM (out, 1)->end, ==, 12);
  g_assert_cmpuint (ITEM (out, 1)->count, ==, 1);
}

/* Aggregation conserves members and busy time, on a random lane; the
 * dominant member is the one with the most time. */
static void
test_aggregate_conserves (void)
{
  g_autoptr(GArray) in = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  gint64 t = 0, busy = 0, out_busy = 0;
  guint64 out_count = 0;

  for (guint i = 0; i < 100000; i++)
    {
      StrataActivity a = act (t, t + (g_rand_int_range (rand, 0, 10) == 0
                                      ? g_rand_int_range (rand, 100, 5000)
                                      : g_rand_int_range (rand, 0, 30)));

      a.state = g_rand_int_range (rand, 1, 4);
      a.label = g_rand_int_range (rand, 0, 3);
      g_array_append_val (in, a);
      busy += a.end - a.start;
      t = a.end + g_rand_int_range (rand, 0, 20);
    }

  for (gint64 threshold = 1; threshold <= 1 << 20; threshold *= 4)
    {
      g_autoptr(GArray) out = aggregate (threshold, (StrataActivity *) (gpointer) in->data, in->len);
      gint64 prev_end = G_MININT64;

      out_busy = 0;
      out_count = 0;
      for (guint i = 0; i < out->len; i++)
        {
          const StrataZoomItem *item = ITEM (out, i);

          out_busy += item->busy;
          out_count += item->count;
          g_assert_cmpint (item->start, >=, prev_end);   /* still a lane */
          prev_end = item->end;
          if (item->count > 1)
            g_assert_cmpint (item->end - item->start, <=, threshold);
        }

      g_assert_cmpint (out_busy, ==, busy);
      g_assert_cmpuint (out_count, ==, in->len);
    }
}

static void
test_dominant_member (void)
{
  StrataActivity in[] = { act (0, 1), act (1, 5), act (5, 6), act (6, 7) };
  g_autoptr(GArray) out = NULL;

  in[0].state = STRATA_TASK_STATE_SLEEPING;
  in[1].state = STRATA_TASK_STATE_RUNNING;      /* 4 units: dominant */
  in[2].state = STRATA_TASK_STATE_SLEEPING;
  in[3].state = STRATA_TASK_STATE_SLEEPING;     /* 3 units in all */
  out = aggregate (10, in, G_N_ELEMENTS (in));

  g_assert_cmpuint (out->len, ==, 1);
  g_assert_cmpuint (ITEM (out, 0)->state, ==, STRATA_TASK_STATE_RUNNING);
  g_assert_cmpuint (ITEM (out, 0)->count, ==, 4);
}

/* The run lists its candidates only once a second one joins (before,
 * the one is its first member's, in its item): what the first ones
 * weigh then is all they had, and an aggregate of like members is its
 * first member's, marked an aggregate. Runs reuse their state, as a
 * lane's does from chunk to chunk. */
static void
test_dominant_member_listed_late (void)
{
  StrataActivity first_wins[] = { act (0, 1), act (1, 2), act (2, 3), act (3, 5) };
  StrataActivity later_wins[] = { act (10, 11), act (11, 12), act (12, 15) };
  StrataActivity alike[] = { act (20, 21), act (21, 23), act (23, 24) };
  StrataActivity single[] = { act (30, 31), act (50, 51) };
  g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  StrataAggregateRun run;

  first_wins[0].label = first_wins[1].label = first_wins[2].label = 7;  /* 3 units */
  first_wins[3].label = 9;                                              /* 2 units */
  later_wins[0].label = later_wins[1].label = 7;                        /* 2 units */
  later_wins[2].label = 9;                                              /* 3 units */
  alike[0].label = alike[1].label = alike[2].label = 5;
  alike[0].arg = alike[1].arg = alike[2].arg = 2;
  single[0].label = 3;

  strata_aggregate_run_init (&run, 10);
  for (guint i = 0; i < G_N_ELEMENTS (first_wins); i++)
    strata_aggregate_run_offer (&run, &first_wins[i], out);
  strata_aggregate_run_flush (&run, out);
  for (guint i = 0; i < G_N_ELEMENTS (later_wins); i++)
    strata_aggregate_run_offer (&run, &later_wins[i], out);
  strata_aggregate_run_flush (&run, out);
  for (guint i = 0; i < G_N_ELEMENTS (alike); i++)
    strata_aggregate_run_offer (&run, &alike[i], out);
  for (guint i = 0; i < G_N_ELEMENTS (single); i++)
    strata_aggregate_run_offer (&run, &single[i], out);
  strata_aggregate_run_flush (&run, out);
  strata_aggregate_run_clear (&run);

  g_assert_cmpuint (out->len, ==, 5);
  g_assert_cmpuint (ITEM (out, 0)->label, ==, 7);
  g_assert_cmpuint (ITEM (out, 0)->count, ==, 4);
  g_assert_cmpint (ITEM (out, 0)->busy, ==, 5);
  g_assert_true (ITEM (out, 0)->flags & STRATA_ZOOM_ITEM_AGGREGATE);
  g_assert_cmpuint (ITEM (out, 1)->label, ==, 9);
  g_assert_cmpuint (ITEM (out, 1)->count, ==, 3);
  g_assert_cmpuint (ITEM (out, 2)->label, ==, 5);
  g_assert_cmpint (ITEM (out, 2)->arg, ==, 2);
  g_assert_cmpuint (ITEM (out, 2)->count, ==, 3);
  g_assert_cmpint (ITEM (out, 2)->start, ==, 20);
  g_assert_cmpint (ITEM (out, 2)->end, ==, 24);
  g_assert_true (ITEM (out, 2)->flags & STRATA_ZOOM_ITEM_AGGREGATE);
  /* Trivial, but merged with nothing: kept as they are. */
  g_assert_cmpuint (ITEM (out, 3)->label, ==, 3);
  g_assert_cmpuint (ITEM (out, 3)->count, ==, 1);
  g_assert_false (ITEM (out, 3)->flags & STRATA_ZOOM_ITEM_AGGREGATE);
  g_assert_cmpuint (ITEM (out, 4)->count, ==, 1);
  g_assert_cmpint (ITEM (out, 4)->start, ==, 50);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/zoom-tree/fig4-chunks-per-level", test_fig4_chunks_per_level);
  g_test_add_func ("/strata/zoom-tree/fig5-seam-two-chunks", test_fig5_seam_two_chunks);
  g_test_add_func ("/strata/zoom-tree/geometry-defaults", test_geometry_defaults);
  g_test_add_func ("/strata/zoom-tree/fig6-triviality-merge", test_fig6_triviality_merge);
  g_test_add_func ("/strata/zoom-tree/fig6-stop-not-trivial", test_fig6_stop_not_trivial);
  g_test_add_func ("/strata/zoom-tree/fig6-stop-span-exceeds", test_fig6_stop_span_exceeds);
  g_test_add_func ("/strata/zoom-tree/aggregate-conserves", test_aggregate_conserves);
  g_test_add_func ("/strata/zoom-tree/dominant-member", test_dominant_member);
  g_test_add_func ("/strata/zoom-tree/dominant-member-listed-late", test_dominant_member_listed_late);
  return g_test_run ();
}
