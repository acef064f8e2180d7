/* test-ui-index.c
 *
 * The viewer through the persistent index, on a real recording: the
 * first open of a trace reads it in the worker thread and leaves one
 * index file behind; the second open of the same file is served from
 * that index before strata_window_open() returns (no worker, no progress
 * page, the file untouched), and it draws the same pixels as the first
 * window and answers the zoom tree's and the raw store's queries exactly
 * as a trace loaded afresh in memory does. A damaged index is not used:
 * the next open reads the trace again and leaves a sound index. The
 * indexes go to a temporary $STRATA_INDEX_DIR, so the fixtures' folder
 * stays clean.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "strata-index.h"
#include "strata-test-support.h"
#include "strata-test-ui.h"

#define FIXTURE "sched-small.dat"
#define WIDTH   1400
#define HEIGHT  860

static char *index_dir;

/* The one index file in index_dir, or NULL when there is none. */
static char *
only_index (void)
{
  g_autoptr(GDir) dir = g_dir_open (index_dir, 0, NULL);
  const char *name;
  char *found = NULL;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      if (!g_str_has_suffix (name, STRATA_INDEX_SUFFIX))
        continue;
      g_assert_null (found);
      found = g_build_filename (index_dir, name, NULL);
    }
  return found;
}

static StrataTestPixels *
timeline_pixels (StrataWindow *window)
{
  g_autoptr(GdkTexture) texture = NULL;

  strata_test_ui_settle ();
  texture = strata_test_ui_render (GTK_WIDGET (strata_window_get_timeline (window)));
  return strata_test_ui_pixels (texture);
}

/* Every channel's zoom-tree answer at every level, and its raw
 * activities, the same in both traces. */
static void
assert_same_answers (StrataTrace *a,
                     StrataTrace *b)
{
  StrataZoomTree *ta = strata_trace_get_zoom_tree (a);
  StrataZoomTree *tb = strata_trace_get_zoom_tree (b);
  StrataRawStore *ra = strata_zoom_tree_get_raw_store (ta);
  StrataRawStore *rb = strata_zoom_tree_get_raw_store (tb);
  gint64 from = strata_trace_get_start (a), to = strata_trace_get_end (a) + 1;
  guint n_channels, n_b, compared = 0;
  StrataZoomGeometry ga, gb;

  strata_trace_get_channels (a, &n_channels);
  strata_trace_get_channels (b, &n_b);
  g_assert_cmpuint (n_channels, ==, n_b);
  g_assert_cmpint (strata_trace_get_start (a), ==, strata_trace_get_start (b));
  g_assert_cmpint (strata_trace_get_end (a), ==, strata_trace_get_end (b));
  g_assert_true (strata_zoom_tree_get_geometry (ta, &ga));
  g_assert_true (strata_zoom_tree_get_geometry (tb, &gb));
  g_assert_cmpmem (&ga, sizeof ga, &gb, sizeof gb);

  for (guint32 ch = 0; ch < n_channels; ch++)
    {
      g_autoptr(GArray) raw_a = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      g_autoptr(GArray) raw_b = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

      if (ch < strata_raw_store_get_n_channels (ra))
        strata_raw_store_query (ra, ch, from, to, raw_a);
      if (ch < strata_raw_store_get_n_channels (rb))
        strata_raw_store_query (rb, ch, from, to, raw_b);
      g_assert_cmpuint (raw_a->len, ==, raw_b->len);
      g_assert_cmpmem (raw_a->data, raw_a->len * sizeof (StrataActivity),
                       raw_b->data, raw_b->len * sizeof (StrataActivity));

      /* At each level, one chunk's worth from the middle of the trace (at
       * most two chunks, as the painter asks). */
      for (guint level = 0; level < ga.n_levels; level++)
        {
          gint64 q_from = from + (to - from) / 2;
          gint64 q_to = MIN (to, q_from + strata_zoom_geometry_chunk_duration (&ga, level));
          g_autoptr(GArray) za = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
          g_autoptr(GArray) zb = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));

          if (level == 0)
            q_from = from;
          strata_zoom_tree_query (ta, level, q_from, q_to, &ch, 1, za, NULL);
          strata_zoom_tree_query (tb, level, q_from, q_to, &ch, 1, zb, NULL);
          g_assert_cmpuint (za->len, ==, zb->len);
          g_assert_cmpmem (za->data, za->len * sizeof (StrataZoomItem),
                           zb->data, zb->len * sizeof (StrataZoomItem));
          compared += za->len;
        }
    }
  g_assert_cmpuint (compared, >, 0);
}

static void
test_second_open_from_index (void)
{
  g_autofree char *path = strata_test_fixture (FIXTURE);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *index = NULL;
  g_autofree char *again = NULL;
  StrataTestPixels *first_pixels[2];
  g_autoptr(StrataTrace) first_trace = NULL;
  g_autoptr(StrataTrace) fresh = NULL;
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;
  StrataWindow *first, *second;
  StrataTimelineView *first_view, *second_view;
  GStatBuf before, after;
  gint64 from, to;

  g_assert_null (only_index ());

  /* First open: read in the worker, the index written at the end. */
  first = strata_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (first), WIDTH, HEIGHT);
  gtk_window_present (GTK_WINDOW (first));
  strata_window_open (first, file);
  g_assert_null (strata_timeline_view_get_trace (strata_window_get_timeline (first)));
  strata_test_ui_wait_until_shown (first);
  first_view = strata_window_get_timeline (first);
  first_trace = g_object_ref (strata_timeline_view_get_trace (first_view));

  index = only_index ();
  g_assert_nonnull (index);
  g_assert_cmpint (g_stat (index, &before), ==, 0);
  g_assert_cmpint (before.st_size, >, 0);

  /* What it draws over the whole trace and over a slice of it, while it
   * is the one window (a window in the backdrop draws otherwise). */
  strata_timeline_view_get_range (first_view, &from, &to);
  first_pixels[0] = timeline_pixels (first);
  from += (to - from) / 3;
  to = from + (to - from) / 5;
  strata_timeline_view_set_range (first_view, from, to);
  first_pixels[1] = timeline_pixels (first);
  gtk_window_destroy (GTK_WINDOW (first));
  strata_test_ui_settle ();

  /* Second open: from the index, before strata_window_open() returns. */
  second = strata_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (second), WIDTH, HEIGHT);
  gtk_window_present (GTK_WINDOW (second));
  strata_window_open (second, file);
  second_view = strata_window_get_timeline (second);
  g_assert_nonnull (strata_timeline_view_get_trace (second_view));
  g_assert_false (strata_timeline_view_is_live (second_view));
  g_assert_cmpstr (strata_trace_get_index_path (strata_timeline_view_get_trace (second_view)), ==, index);
  strata_test_ui_wait_until_shown (second);

  again = only_index ();
  g_assert_cmpstr (again, ==, index);
  g_assert_cmpint (g_stat (index, &after), ==, 0);
  g_assert_cmpint (after.st_size, ==, before.st_size);
  g_assert_cmpint (after.st_mtime, ==, before.st_mtime);
  g_assert_cmpint (after.st_ino, ==, before.st_ino);

  /* The same pixels, and the painter's oracle agrees with them. */
  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(StrataTestPixels) second_pixels = NULL;

      if (round == 1)
        strata_timeline_view_set_range (second_view, from, to);
      second_pixels = timeline_pixels (second);
      g_assert_cmpint (first_pixels[round]->width, ==, second_pixels->width);
      g_assert_cmpint (first_pixels[round]->height, ==, second_pixels->height);
      g_assert_cmpmem (first_pixels[round]->data, first_pixels[round]->stride * first_pixels[round]->height,
                       second_pixels->data, second_pixels->stride * second_pixels->height);
      g_assert_cmpuint (strata_test_ui_check_against_painter (second_view, second_pixels, "index-second.png"), >, 0);
      strata_test_ui_pixels_free (first_pixels[round]);
    }

  /* The same answers as the trace read afresh, in memory. */
  strata_zoom_params_init (&params);
  fresh = strata_test_load_full (path, FALSE, NULL, NULL, NULL, &params, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (strata_trace_get_index_path (fresh));
  assert_same_answers (fresh, strata_timeline_view_get_trace (second_view));
  assert_same_answers (fresh, first_trace);

  gtk_window_destroy (GTK_WINDOW (second));
  strata_test_ui_settle ();
}

static void
test_damaged_index_rebuilt (void)
{
  g_autofree char *path = strata_test_fixture (FIXTURE);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *index = only_index ();
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataTrace) reopened = NULL;
  StrataSourceIdentity identity;
  StrataWindow *window;
  StrataTimelineView *view;
  gsize length;

  /* The index the first test left, its second half scrambled. */
  g_assert_nonnull (index);
  g_file_get_contents (index, &contents, &length, &error);
  g_assert_no_error (error);
  for (gsize i = length / 2; i < length; i++)
    contents[i] ^= 0x5a;
  g_file_set_contents (index, contents, length, &error);
  g_assert_no_error (error);

  window = strata_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, HEIGHT);
  gtk_window_present (GTK_WINDOW (window));
  strata_window_open (window, file);
  view = strata_window_get_timeline (window);
  /* Not served from the damaged index: read in the worker again. */
  g_assert_null (strata_timeline_view_get_trace (view));
  strata_test_ui_wait_until_shown (window);
  g_assert_nonnull (strata_timeline_view_get_trace (view));

  /* And the index is sound again. */
  g_assert_true (strata_source_identity_compute (path, &identity, &error));
  reopened = strata_index_open (index, &identity, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (reopened);
  g_assert_null (strata_trace_get_index_damage (reopened));

  gtk_window_destroy (GTK_WINDOW (window));
  strata_test_ui_settle ();
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *tmp = NULL;
  int status;

  strata_test_ui_init (&argc, &argv);
  tmp = strata_test_tmpdir ();
  index_dir = g_build_filename (tmp, "indexes", NULL);
  g_assert_cmpint (g_mkdir_with_parents (index_dir, 0755), ==, 0);
  g_setenv ("STRATA_INDEX_DIR", index_dir, TRUE);

  g_test_add_func ("/strata/ui/index/second-open-from-index", test_second_open_from_index);
  g_test_add_func ("/strata/ui/index/damaged-index-rebuilt", test_damaged_index_rebuilt);

  status = g_test_run ();
  g_free (index_dir);
  return status;
}
