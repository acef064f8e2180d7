/* test-ui-window.c
 *
 * The window around the timeline, on a real recording: the tooltip and
 * the details panel say the right things about an activity picked from
 * the raw store (name, tid, pid, state, CPU, start, duration), about an
 * aggregate (its count equals its members) and about a range (a thread's
 * running time there equals the raw activities' clipped sum); search finds
 * a thread named in the kernel's own text rendering of the same trace;
 * dark mode draws the painter's dark colours. The PNGs it renders are the
 * screenshots in data/screenshots when STRATA_UI_SCREENSHOTS names a
 * folder.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <glib/gstdio.h>

#include <adwaita.h>

#include "strata-application.h"
#include "strata-event-fields.h"
#include "strata-event-model.h"
#include "strata-item-info.h"
#include "strata-test-support.h"
#include "strata-test-ui.h"

static StrataWindow *window;
static StrataTimelineView *view;

static guint32
thread_channel (gint32 tid)
{
  return strata_test_ui_thread_channel (strata_timeline_view_get_trace (view), tid);
}

static StrataActivity
longest_running (guint32 channel)
{
  return strata_test_ui_longest_running (strata_timeline_view_get_trace (view), channel);
}

static void
save_screenshot (const char *name)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *png = NULL;

  strata_test_ui_settle ();
  texture = strata_test_ui_render (GTK_WIDGET (window));
  png = strata_test_ui_save_png (texture, name);
  g_test_message ("screenshot %s", png);
}

static void
test_tooltip_and_panel_for_activity (void)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  guint32 channel = thread_channel (4302);
  StrataActivity a = longest_running (channel);
  const StrataChannel *channels;
  g_autoptr(StrataItemInfo) info = NULL;
  g_autofree char *start = NULL, *duration = NULL, *cpu = NULL, *text = NULL;
  g_autofree char *want_start = NULL, *want_duration = NULL;
  const StrataSelection *sel;
  gint64 d = a.end - a.start;
  double x, y;
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  strata_timeline_view_navigate_to (view, a.start - d / 4, a.end + d / 4);
  strata_timeline_view_select_row (view, channel);
  strata_test_ui_settle ();

  x = (strata_timeline_view_x_for_time (view, a.start) + strata_timeline_view_x_for_time (view, a.end)) / 2;
  y = strata_timeline_view_y_for_row (view, channel) + 6;

  /* What the tooltip shows. */
  info = strata_timeline_view_describe_at (view, x, y);
  g_assert_nonnull (info);
  want_start = strata_format_offset (a.start - strata_trace_get_start (trace));
  want_duration = strata_format_duration (d);
  cpu = g_strdup_printf ("%d", a.arg);
  g_assert_cmpstr (info->title, ==, "sched-messaging");
  g_assert_cmpstr (strata_item_info_get (info, "TID"), ==, "4302");
  if (channels[channel].tgid >= 0)
    {
      g_autofree char *pid = g_strdup_printf ("%d", channels[channel].tgid);
      g_assert_cmpstr (strata_item_info_get (info, "PID"), ==, pid);
    }
  g_assert_cmpstr (strata_item_info_get (info, "State"), ==, "Running");
  g_assert_cmpstr (strata_item_info_get (info, "CPU"), ==, cpu);
  g_assert_cmpstr (strata_item_info_get (info, "Start"), ==, want_start);
  g_assert_cmpstr (strata_item_info_get (info, "Duration"), ==, want_duration);

  /* A click selects it and the panel says the same. */
  strata_timeline_view_handle_drag_begin (view, x, y);
  strata_timeline_view_handle_drag_end (view, 0, 0);
  sel = strata_timeline_view_get_selection (view);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_ITEM);
  g_assert_cmpint (sel->item.start, ==, a.start);
  g_assert_cmpint (sel->item.end, ==, a.end);
  g_assert_true (gtk_widget_get_visible (strata_window_get_panel (window)));
  text = strata_window_get_panel_text (window);
  start = g_strdup_printf ("Start: %s\n", want_start);
  duration = g_strdup_printf ("Duration: %s\n", want_duration);
  g_assert_nonnull (strstr (text, "TID: 4302\n"));
  g_assert_nonnull (strstr (text, "State: Running\n"));
  g_assert_nonnull (strstr (text, start));
  g_assert_nonnull (strstr (text, duration));

  save_screenshot ("selection-panel");
}

static void
test_aggregate_lists_its_members (void)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  const StrataChannel *channels;
  const guint32 *rows;
  g_autoptr(StrataItemInfo) info = NULL;
  g_autoptr(GArray) members = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autofree char *count = NULL;
  StrataZoomItem item = { 0 };
  gboolean found = FALSE;
  guint n, n_rows;
  double y = 0;
  char *text;

  strata_timeline_view_fit (view);
  strata_timeline_view_clear_selection (view);
  strata_test_ui_settle ();
  channels = strata_trace_get_channels (trace, &n);
  rows = strata_timeline_view_get_rows (view, &n_rows);

  /* An aggregate of several activities on the busy CPU, whole trace. */
  for (guint r = 0; r < n_rows && !found; r++)
    {
      if (channels[rows[r]].kind != STRATA_CHANNEL_CPU)
        continue;
      y = strata_timeline_view_y_for_row (view, rows[r]) + 5;
      for (double x = 210; x < 1350 && !found; x += 1)
        found = strata_timeline_view_hit (view, x, y, &item) &&
                (item.flags & STRATA_ZOOM_ITEM_AGGREGATE) && item.count > 3;
    }
  g_assert_true (found);

  /* Its count is its members: the seed's drill-down. */
  strata_zoom_tree_get_members (strata_trace_get_zoom_tree (trace), &item, members);
  g_assert_cmpuint (members->len, ==, item.count);

  info = strata_item_info_new_for_item (trace, &item);
  count = g_strdup_printf ("%u", item.count);
  g_assert_cmpstr (strata_item_info_get (info, "Activities"), ==, count);
  g_assert_nonnull (strata_item_info_get (info, "Busy"));
  g_assert_nonnull (strata_item_info_get (info, "Top members"));

  text = strata_item_info_to_markup (info, 20);
  g_assert_nonnull (strstr (text, "Activities"));
  g_free (text);
}

static void
test_range_statistics (void)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  StrataRawStore *raw = strata_zoom_tree_get_raw_store (strata_trace_get_zoom_tree (trace));
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  const StrataPaintStyle *style = strata_painter_get_style (strata_timeline_view_get_painter (view));
  guint32 channel = thread_channel (4302);
  const StrataSelection *sel;
  g_autofree char *text = NULL, *running = NULL, *want = NULL;
  gint64 sum = 0;

  strata_timeline_view_fit (view);
  strata_timeline_view_handle_drag_begin (view, 300, STRATA_TIMELINE_OVERVIEW_HEIGHT + style->ruler_height / 2.0);
  strata_timeline_view_handle_drag_end (view, 500, 0);
  sel = strata_timeline_view_get_selection (view);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_RANGE);

  /* Thread 4302's running time inside, summed here from the raw store. */
  strata_raw_store_query (raw, channel, sel->from, sel->to, found);
  for (guint i = 0; i < found->len; i++)
    {
      const StrataActivity *a = &g_array_index (found, StrataActivity, i);

      if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_RUNNING)
        sum += MAX (0, MIN (a->end, sel->to) - MAX (a->start, sel->from));
    }
  g_assert_cmpint (sum, >, 0);

  text = strata_window_get_panel_text (window);
  g_assert_nonnull (text);
  g_assert_true (g_str_has_prefix (text, "Range of "));
  running = strata_format_duration (sum);
  want = g_strdup_printf ("sched-messaging 4302: %s running", running);
  g_assert_nonnull (strstr (text, want));
  g_assert_nonnull (strstr (text, "Wakeups: "));

  save_screenshot ("range-selection");
  /* Two markers, the time between them on the ruler. */
  strata_timeline_view_add_marker (view, sel->to + (sel->to - sel->from) / 5);
  strata_timeline_view_add_marker (view, sel->to + (sel->to - sel->from) * 4 / 5);
  save_screenshot ("markers");
  strata_timeline_view_clear_selection (view);
  strata_timeline_view_handle_key (view, GDK_KEY_Escape, 0);
  g_assert_cmpuint (strata_timeline_view_get_markers (view, NULL), ==, 0);
}

/* The threads the kernel's text rendering names "sched-messaging-TID". */
static GHashTable *
text_threads (const char *comm)
{
  g_autofree char *path = strata_test_fixture ("sched-small.txt");
  g_autofree char *contents = NULL;
  g_autofree char *prefix = g_strconcat (comm, "-", NULL);
  g_auto(GStrv) lines = NULL;
  GHashTable *tids = g_hash_table_new (NULL, NULL);

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = lines[i];

      while (*l == ' ')
        l++;
      if (g_str_has_prefix (l, prefix))
        g_hash_table_add (tids, GINT_TO_POINTER (atoi (l + strlen (prefix))));
    }
  return tids;
}

static void
test_search_finds_thread (void)
{
  const StrataChannel *channels;
  g_autoptr(GHashTable) named = text_threads ("sched-messaging");
  const StrataSelection *sel;
  guint n, matches = 0;
  guint32 first, second;

  channels = strata_trace_get_channels (strata_timeline_view_get_trace (view), &n);

  /* By tid: the one thread, selected and scrolled to. */
  strata_window_search (window, "4302");
  first = strata_timeline_view_get_search_match (view);
  g_assert_cmpuint (first, ==, thread_channel (4302));
  sel = strata_timeline_view_get_selection (view);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_ROW);
  g_assert_cmpuint (sel->channel, ==, first);
  g_assert_cmpfloat (strata_timeline_view_y_for_row (view, first), >=, 0);

  /* By name, any case: each match is a thread the text names so, and
   * stepping visits them all and comes back to the first. */
  strata_window_search (window, "SCHED-mess");
  first = strata_timeline_view_get_search_match (view);
  do
    {
      guint32 ch = strata_timeline_view_get_search_match (view);

      g_assert_cmpint (channels[ch].kind, ==, STRATA_CHANNEL_THREAD);
      g_assert_true (g_hash_table_contains (named, GINT_TO_POINTER (channels[ch].id)));
      matches++;
      g_assert_true (strata_timeline_view_search_step (view, 1));
    }
  while (strata_timeline_view_get_search_match (view) != first && matches < 1000);
  g_assert_cmpuint (matches, >=, 20);
  g_assert_cmpuint (matches, <=, g_hash_table_size (named));

  /* The entry reports the text it was given a moment later: the search
   * is not made again, so the match stepped to meanwhile stays. */
  g_assert_true (strata_timeline_view_search_step (view, 1));
  second = strata_timeline_view_get_search_match (view);
  g_assert_cmpuint (second, !=, first);
  for (gint64 until = g_get_monotonic_time () + 500 * G_TIME_SPAN_MILLISECOND; g_get_monotonic_time () < until;)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (strata_timeline_view_get_search_match (view), ==, second);
  g_assert_cmpuint (strata_timeline_view_get_selection (view)->channel, ==, second);

  /* A hidden row is shown again when search steps onto it. */
  strata_timeline_view_set_row_hidden (view, thread_channel (4302), TRUE);
  g_assert_cmpfloat (strata_timeline_view_y_for_row (view, thread_channel (4302)), <, 0);
  strata_window_search (window, "4302");
  g_assert_cmpfloat (strata_timeline_view_y_for_row (view, thread_channel (4302)), >=, 0);

  strata_window_search (window, NULL);
  g_assert_cmpuint (strata_timeline_view_get_search_match (view), ==, STRATA_CHANNEL_NONE);
}

static void
test_pin_and_hide_rows (void)
{
  guint32 channel = thread_channel (4320);
  const guint32 *rows;
  guint n_before, n;

  strata_timeline_view_get_rows (view, &n_before);
  strata_timeline_view_set_row_pinned (view, channel, TRUE);
  rows = strata_timeline_view_get_rows (view, &n);
  g_assert_cmpuint (n, ==, n_before);
  g_assert_cmpuint (rows[0], ==, channel);

  strata_timeline_view_set_row_hidden (view, channel, TRUE);
  rows = strata_timeline_view_get_rows (view, &n);
  g_assert_cmpuint (n, ==, n_before - 1);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (rows[i], !=, channel);

  strata_timeline_view_set_row_pinned (view, channel, FALSE);
  strata_timeline_view_show_all_rows (view);
  strata_timeline_view_get_rows (view, &n);
  g_assert_cmpuint (n, ==, n_before);
}

static void
test_markers (void)
{
  gint64 m[2];

  strata_timeline_view_add_marker (view, 100);
  strata_timeline_view_add_marker (view, 300);
  strata_timeline_view_add_marker (view, 700);
  g_assert_cmpuint (strata_timeline_view_get_markers (view, m), ==, 2);
  g_assert_cmpint (m[0], ==, 300);
  g_assert_cmpint (m[1], ==, 700);
  /* Escape with nothing selected clears them. */
  strata_timeline_view_clear_selection (view);
  strata_timeline_view_handle_key (view, GDK_KEY_Escape, 0);
  g_assert_cmpuint (strata_timeline_view_get_markers (view, NULL), ==, 0);
}

static void
test_screenshots_and_dark_mode (void)
{
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(StrataTestPixels) pixels = NULL;
  guint32 channel = thread_channel (4302);
  StrataActivity a = longest_running (channel);
  gboolean dark = FALSE;
  gint64 mid;

  strata_timeline_view_clear_selection (view);
  strata_timeline_view_fit (view);
  save_screenshot ("whole-trace");

  /* A few microseconds round the end of a running interval. */
  mid = a.end;
  strata_timeline_view_set_range (view, mid - 4000, mid + 4000);
  save_screenshot ("zoomed-to-microseconds");
  strata_timeline_view_fit (view);

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  strata_test_ui_settle ();
  g_object_get (view, "dark", &dark, NULL);
  g_assert_true (dark);
  save_screenshot ("dark-mode");

  texture = strata_test_ui_render (GTK_WIDGET (view));
  pixels = strata_test_ui_pixels (texture);
  g_assert_cmpuint (strata_test_ui_check_against_painter (view, pixels, "dark"), >, 100);
  (void) trace;

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_LIGHT);
  strata_test_ui_settle ();
}

static char *
recent_target (GMenuModel *menu,
               int         i)
{
  g_autoptr(GVariant) target = g_menu_model_get_item_attribute_value (menu, i, G_MENU_ATTRIBUTE_TARGET,
                                                                      G_VARIANT_TYPE_STRING);

  return target != NULL ? g_variant_dup_string (target, NULL) : NULL;
}

/* The event list: every activity of the trace once, in time order, the
 * same as the trace's own list of activities (loaded apart, with them
 * kept); filters; a row chosen moves the timeline to it, and the list
 * follows the timeline back. */
static void
test_event_list (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autoptr(StrataTrace) all = NULL;
  g_autoptr(GError) error = NULL;
  StrataEventList *list = strata_window_get_event_list (window);
  GListModel *model;
  const StrataActivity *activities;
  const StrataSelection *sel;
  StrataZoomParams params;
  StrataActivity a, prev = { 0 };
  gsize n_all, wakeups = 0;
  guint n, p, first;
  gint64 from, to, mid;

  strata_window_show_events (window, TRUE);
  strata_test_ui_settle ();
  model = strata_event_list_get_model (list);
  g_assert_nonnull (model);

  strata_zoom_params_init (&params);
  all = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, NULL, NULL, &error);
  g_assert_no_error (error);
  activities = strata_trace_get_activities (all, &n_all);
  for (gsize i = 0; i < n_all; i++)
    if (activities[i].kind == STRATA_ACTIVITY_WAKEUP)
      wakeups++;

  /* Every activity once, in order of start. */
  n = g_list_model_get_n_items (model);
  g_assert_cmpuint (n, ==, n_all);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(StrataEventItem) item = g_list_model_get_item (model, i);

      g_assert_nonnull (item);
      a = *strata_event_item_get_activity (item);
      if (i > 0)
        g_assert_cmpint (a.start, >=, prev.start);
      prev = a;
    }

  /* Filtered to wakeups, or to one thread. */
  strata_event_list_set_filter (list, STRATA_ACTIVITY_WAKEUP, -1, -1);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, wakeups);
  strata_event_list_set_filter (list, -1, -1, 4302);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(StrataEventItem) item = g_list_model_get_item (model, i);
      const StrataActivity *b = strata_event_item_get_activity (item);

      g_assert_true (b->channel == thread_channel (4302) || (b->kind == STRATA_ACTIVITY_TASK && b->arg == 4302));
    }
  strata_event_list_set_filter (list, -1, -1, -1);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n_all);

  /* A row chosen: the timeline centres on it and selects it. */
  strata_timeline_view_set_range (view, strata_trace_get_start (all) + 1000000, strata_trace_get_start (all) + 3000000);
  p = n / 2;
  {
    g_autoptr(StrataEventItem) item = g_list_model_get_item (model, p);

    a = *strata_event_item_get_activity (item);
  }
  strata_event_list_select (list, p);
  strata_timeline_view_get_range (view, &from, &to);
  mid = from + (to - from) / 2;
  g_assert_cmpint (ABS (mid - a.start), <=, 2);
  sel = strata_timeline_view_get_selection (view);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_ITEM);
  g_assert_cmpint (sel->item.start, ==, a.start);
  g_assert_cmpuint (sel->item.channel, ==, a.channel);

  /* The timeline moved: the list shows the first activity from there. */
  strata_timeline_view_set_range (view, strata_trace_get_start (all) + 20000000, strata_trace_get_start (all) + 21000000);
  first = strata_event_list_get_followed (list);
  {
    g_autoptr(StrataEventItem) item = g_list_model_get_item (model, first);
    g_autoptr(StrataEventItem) before = first > 0 ? g_list_model_get_item (model, first - 1) : NULL;

    g_assert_cmpint (strata_event_item_get_activity (item)->start, >=, strata_trace_get_start (all) + 20000000);
    if (before != NULL)
      g_assert_cmpint (strata_event_item_get_activity (before)->start, <, strata_trace_get_start (all) + 20000000);
  }

  save_screenshot ("event-list");
  strata_window_show_events (window, FALSE);
  strata_timeline_view_clear_selection (view);
}

/* Last, as it opens another trace in the window: both are in the recent
 * traces beside Open, the newest first, and opening from there works. */
static void
test_recent_traces (void)
{
  g_autofree char *first_path = strata_test_fixture ("sched-small.dat");
  g_autofree char *second_path = strata_test_fixture ("instances.dat");
  g_autofree char *first = g_filename_to_uri (first_path, NULL, NULL);
  g_autofree char *second = g_filename_to_uri (second_path, NULL, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (second_path);
  GMenuModel *menu = strata_window_get_recent_menu (window);
  g_autofree char *top = NULL;
  gboolean seen_first = FALSE;

  g_assert_true (gtk_recent_manager_has_item (gtk_recent_manager_get_default (), first));

  strata_window_open (window, file);
  while (strata_timeline_view_is_live (view) ||
         !g_str_equal (gtk_window_get_title (GTK_WINDOW (window)), "instances.dat"))
    g_main_context_iteration (NULL, TRUE);

  /* The manager saves, then says it changed, then the menu follows. */
  for (;;)
    {
      g_clear_pointer (&top, g_free);
      top = g_menu_model_get_n_items (menu) > 0 ? recent_target (menu, 0) : NULL;
      if (top != NULL && g_str_equal (top, second))
        break;
      g_main_context_iteration (NULL, TRUE);
    }
  for (int i = 1; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *uri = recent_target (menu, i);

      if (uri != NULL && g_str_equal (uri, first))
        seen_first = TRUE;
    }
  g_assert_true (seen_first);

  /* And back, through the menu's action. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-uri", "s", first);
  while (strata_timeline_view_is_live (view) ||
         !g_str_equal (gtk_window_get_title (GTK_WINDOW (window)), "sched-small.dat"))
    g_main_context_iteration (NULL, TRUE);
}

static GtkWindow *
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      GtkWindow *w = g_list_model_get_item (toplevels, i);

      /* The list keeps it alive. */
      g_object_unref (w);
      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type))
        return w;
    }
  return NULL;
}

/* The application's own actions: a new window, the about window, the
 * preferences (with the schema compiled by the build), each opens. */
static void
test_application_actions (void)
{
  g_autoptr(StrataApplication) app = strata_application_new (G_APPLICATION_NON_UNIQUE);
  g_autoptr(GError) error = NULL;
  GtkWindow *w;

  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_assert_nonnull (strata_application_get_settings (app));

  g_action_group_activate_action (G_ACTION_GROUP (app), "new-window", NULL);
  strata_test_ui_settle ();
  g_assert_nonnull (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_true (STRATA_IS_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app))));

  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  strata_test_ui_settle ();
  w = find_toplevel (ADW_TYPE_ABOUT_WINDOW);
  g_assert_nonnull (w);
  g_assert_cmpstr (adw_about_window_get_application_name (ADW_ABOUT_WINDOW (w)), ==, "Strata");
  gtk_window_destroy (w);

  g_action_group_activate_action (G_ACTION_GROUP (app), "preferences", NULL);
  strata_test_ui_settle ();
  w = find_toplevel (ADW_TYPE_PREFERENCES_WINDOW);
  g_assert_nonnull (w);
  gtk_window_destroy (w);

  gtk_window_destroy (gtk_application_get_active_window (GTK_APPLICATION (app)));
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_LIGHT);
}

/* The Fields column against `trace-cmd report -R -t` of the same file
 * (tests/fixtures/sched-small.report-raw.txt.xz): every event, wakeup,
 * task and interrupt row shows the raw fields trace-cmd prints for the
 * event at its time on its CPU, and only the rows shown were read. */
typedef struct
{
  guint   cpu;
  gint64  ts;
  char   *name;
  char   *fields;
} ReportLine;

static void
report_line_clear (gpointer data)
{
  ReportLine *l = data;

  g_free (l->name);
  g_free (l->fields);
}

static const ReportLine *
find_report_line (GArray     *lines,
                  gint32      cpu,
                  gint64      ts,
                  const char *name)
{
  for (guint i = 0; i < lines->len; i++)
    {
      const ReportLine *l = &g_array_index (lines, ReportLine, i);

      if (l->ts == ts && (cpu < 0 || l->cpu == (guint) cpu) && g_strcmp0 (l->name, name) == 0)
        return l;
    }
  return NULL;
}

static void
test_event_list_fields (void)
{
  g_autofree char *report_path = strata_test_fixture ("sched-small.report-raw.txt.xz");
  g_autofree char *report = NULL;
  g_autoptr(GArray) lines = g_array_new (FALSE, TRUE, sizeof (ReportLine));
  g_autoptr(GRegex) re = NULL;
  g_auto(GStrv) text_lines = NULL;
  StrataEventList *list = strata_window_get_event_list (window);
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  GListModel *model;
  guint n, checked = 0, known = 0, read_when_shown;

  g_array_set_clear_func (lines, report_line_clear);
  g_assert_true (g_file_get_contents (report_path, &report, NULL, NULL));
  re = g_regex_new ("^\\s*.+-\\d+\\s+\\[(\\d+)\\]\\s+(\\d+)\\.(\\d{9}):\\s+([^:\\s]+):\\s+(.*)$", 0, 0, NULL);
  text_lines = g_strsplit (report, "\n", -1);
  for (guint i = 0; text_lines[i] != NULL; i++)
    {
      g_autoptr(GMatchInfo) m = NULL;

      if (g_regex_match (re, text_lines[i], 0, &m))
        {
          g_autofree char *cpu = g_match_info_fetch (m, 1);
          g_autofree char *secs = g_match_info_fetch (m, 2);
          g_autofree char *ns = g_match_info_fetch (m, 3);
          ReportLine l;

          l.cpu = atoi (cpu);
          l.ts = g_ascii_strtoll (secs, NULL, 10) * 1000000000 + g_ascii_strtoll (ns, NULL, 10);
          l.name = g_match_info_fetch (m, 4);
          l.fields = g_strstrip (g_match_info_fetch (m, 5));
          g_array_append_val (lines, l);
        }
    }
  g_assert_cmpuint (lines->len, ==, strata_trace_get_n_events (trace));

  strata_event_list_set_filter (list, -1, -1, -1);
  strata_window_show_events (window, TRUE);
  strata_test_ui_settle ();
  model = strata_event_list_get_model (list);
  n = g_list_model_get_n_items (model);

  /* Lazily: the rows on screen, not the whole list. Fresh, then moved to
   * three quarters of the trace. */
  {
    g_autofree char *dat = strata_test_fixture ("sched-small.dat");

    strata_event_list_set_fields_file (list, dat);
    g_assert_cmpuint (strata_event_list_get_n_fields_read (list), ==, 0);
    gint64 t = strata_trace_get_start (trace) + (strata_trace_get_end (trace) - strata_trace_get_start (trace)) * 3 / 4;

    /* The list follows the timeline there. */
    strata_timeline_view_set_range (view, t, t + 200000);
    strata_test_ui_settle ();
    g_assert_cmpuint (strata_event_list_get_followed (list), ==,
                      strata_event_model_position_at (STRATA_EVENT_MODEL (strata_event_list_get_model (list)), t));
  }
  read_when_shown = strata_event_list_get_n_fields_read (list);
  g_test_message ("fields read for the rows shown: %u of %u rows", read_when_shown, n);
  save_screenshot ("event-list");
  g_assert_cmpuint (read_when_shown, >, 0);
  /* GTK's list view binds the rows around the visible ones too, about
   * two hundred in all, however long the list. */
  g_assert_cmpuint (read_when_shown, <=, 256);
  g_assert_cmpuint (n, >, 10 * read_when_shown);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(StrataEventItem) item = g_list_model_get_item (model, i);
      const StrataActivity *a = strata_event_item_get_activity (item);
      gint32 cpu = strata_event_activity_cpu (STRATA_EVENT_MODEL (model), a);
      g_autofree char *fields = NULL;
      const ReportLine *want = NULL;
      const char *name = NULL;

      switch (a->kind)
        {
        case STRATA_ACTIVITY_EVENT:
        case STRATA_ACTIVITY_WAKEUP:
          name = strata_trace_get_string (trace, a->label);
          break;
        case STRATA_ACTIVITY_TASK:
        case STRATA_ACTIVITY_IDLE:
          name = "sched_switch";
          break;
        case STRATA_ACTIVITY_IRQ:
          name = "irq_handler_entry";
          break;
        case STRATA_ACTIVITY_SOFTIRQ:
          name = "softirq_entry";
          break;
        default:
          continue;
        }
      fields = strata_event_list_get_fields_text (list, i);
      want = find_report_line (lines, cpu, a->start, name);
      if (want != NULL)
        {
          g_assert_cmpstr (fields, ==, want->fields);
          checked++;
        }
      else
        /* A task running when the trace began has no switch to show. */
        g_assert_cmpstr (fields, ==, "");

      /* A known one: the first switch, sh to its child, on CPU 0. */
      if (a->kind == STRATA_ACTIVITY_TASK && cpu == 0 && a->start == G_GINT64_CONSTANT (229760494679))
        {
          g_assert_cmpstr (fields, ==, "prev_comm=sh prev_pid=4301 prev_prio=120 prev_state=2 "
                                       "next_comm=sh next_pid=4302 next_prio=120");
          known++;
        }
    }
  g_test_message ("%u rows' fields equal trace-cmd report's", checked);
  g_assert_cmpuint (checked, >, 1000);
  g_assert_cmpuint (known, ==, 1);
}

/* The kernel's text output: the fields of each event, wakeup, task and
 * interrupt are what its line says after the event's name, found here
 * by splitting the lines with sscanf, not with the reader's expression. */
static void
test_event_fields_of_text (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.txt");
  g_autofree char *text = NULL;
  g_auto(GStrv) text_lines = NULL;
  g_autoptr(GHashTable) want = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(StrataEventFields) fields = NULL;
  g_autoptr(GError) error = NULL;
  const StrataActivity *activities;
  const StrataChannel *channels;
  StrataZoomParams params;
  gsize n;
  guint n_channels, checked = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  text_lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; text_lines[i] != NULL; i++)
    {
      const char *l = text_lines[i];
      const char *bracket = strstr (l, "] ");
      unsigned cpu, secs, usecs;
      char name[64];
      int used = 0;
      const char *open;

      if (l[0] == '#' || bracket == NULL)
        continue;
      for (open = bracket; open > l && *open != '['; open--)
        ;
      if (sscanf (open, "[%u] %*s %u.%u: %63[^:]: %n", &cpu, &secs, &usecs, name, &used) < 4 || used == 0)
        continue;
      g_hash_table_insert (want, g_strdup_printf ("%u %u.%06u %s", cpu, secs, usecs, name),
                           g_strstrip (g_strdup (open + used)));
    }
  g_assert_cmpuint (g_hash_table_size (want), >, 2000);

  strata_zoom_params_init (&params);
  trace = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, NULL, NULL, &error);
  g_assert_no_error (error);
  fields = strata_event_fields_open (path, &error);
  g_assert_no_error (error);
  channels = strata_trace_get_channels (trace, &n_channels);
  activities = strata_trace_get_activities (trace, &n);

  for (gsize i = 0; i < n; i++)
    {
      const StrataActivity *a = &activities[i];
      const char *name;
      g_autofree char *got = NULL;
      g_autofree char *key = NULL;
      const char *expected;
      gint32 cpu;

      if (channels[a->channel].kind != STRATA_CHANNEL_CPU)
        continue;
      cpu = channels[a->channel].id;
      switch (a->kind)
        {
        case STRATA_ACTIVITY_EVENT:
          name = strata_trace_get_string (trace, a->label);
          break;
        case STRATA_ACTIVITY_TASK:
        case STRATA_ACTIVITY_IDLE:
          name = "sched_switch";
          break;
        case STRATA_ACTIVITY_IRQ:
          name = "irq_handler_entry";
          break;
        case STRATA_ACTIVITY_SOFTIRQ:
          name = "softirq_entry";
          break;
        default:
          continue;
        }
      key = g_strdup_printf ("%d %u.%06u %s", cpu, (guint) (a->start / 1000000000),
                             (guint) (a->start % 1000000000 / 1000), name);
      expected = g_hash_table_lookup (want, key);
      got = strata_event_fields_for_activity (fields, trace, a, cpu);
      if (expected == NULL)
        continue;
      g_assert_nonnull (got);
      g_assert_cmpstr (got, ==, expected);
      checked++;
    }
  g_test_message ("%u activities' fields equal their lines", checked);
  g_assert_cmpuint (checked, >, 1000);
}

/* A damaged trace.dat keeps its readable events, but the Fields column
 * stays empty: libtracecmd opens this one, but its reading of records
 * does not check pages as our reader does. */
static void
test_damaged_trace_has_no_fields (void)
{
  g_autofree char *whole = strata_test_fixture ("sched-small-v6.dat.xz");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "damaged-fields.dat", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  StrataWindow *damaged;
  StrataTimelineView *timeline;
  StrataEventList *list;
  GListModel *model;
  gsize len;

  g_assert_true (g_file_get_contents (whole, &contents, &len, &error));
  /* The fourth page of CPU 0 says it holds more than a page (as
   * test-tracedat-damage's bad page): the events before it are read. */
  {
    guint64 cpu0, size0;

    g_assert_cmpuint (strata_test_v6_cpus ((const guint8 *) contents, len, &cpu0, &size0, 1), ==, 1);
    g_assert_cmpuint (cpu0 + 4 * 4096, <, len);
    memset (contents + cpu0 + 3 * 4096 + 8, 0x7f, 4);
  }
  g_assert_true (g_file_set_contents (path, contents, len, &error));
  g_assert_no_error (error);

  damaged = strata_window_new (NULL);
  gtk_window_present (GTK_WINDOW (damaged));
  file = g_file_new_for_path (path);
  strata_window_open (damaged, file);
  timeline = strata_window_get_timeline (damaged);
  /* Until it is shown, or the load failed (and the window is empty). */
  while ((strata_timeline_view_get_trace (timeline) == NULL || strata_timeline_view_is_live (timeline)) &&
         !strata_window_is_empty (damaged))
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (strata_timeline_view_get_trace (timeline));
  g_assert_nonnull (strata_trace_get_damage (strata_timeline_view_get_trace (timeline)));

  /* The event list takes the trace once it is shown. */
  list = strata_window_get_event_list (damaged);
  g_assert_null (strata_event_list_get_model (list));
  strata_window_show_events (damaged, TRUE);
  model = strata_event_list_get_model (list);
  g_assert_cmpuint (g_list_model_get_n_items (model), >, 100);
  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *fields = strata_event_list_get_fields_text (list, i);

      g_assert_cmpstr (fields, ==, "");
    }
  g_assert_cmpuint (strata_event_list_get_n_fields_read (list), ==, 0);

  gtk_window_destroy (GTK_WINDOW (damaged));
  g_remove (path);
}

int
main (int    argc,
      char **argv)
{
  int status;

  strata_test_ui_init (&argc, &argv);
  window = strata_test_ui_open_window ("sched-small.dat", 1400, 860);
  view = strata_window_get_timeline (window);

  g_test_add_func ("/strata/ui/window/tooltip-and-panel-for-activity", test_tooltip_and_panel_for_activity);
  g_test_add_func ("/strata/ui/window/aggregate-lists-its-members", test_aggregate_lists_its_members);
  g_test_add_func ("/strata/ui/window/range-statistics", test_range_statistics);
  g_test_add_func ("/strata/ui/window/search-finds-thread", test_search_finds_thread);
  g_test_add_func ("/strata/ui/window/pin-and-hide-rows", test_pin_and_hide_rows);
  g_test_add_func ("/strata/ui/window/markers", test_markers);
  g_test_add_func ("/strata/ui/window/screenshots-and-dark-mode", test_screenshots_and_dark_mode);
  g_test_add_func ("/strata/ui/window/event-list", test_event_list);
  g_test_add_func ("/strata/ui/window/event-list-fields", test_event_list_fields);
  g_test_add_func ("/strata/ui/window/event-fields-of-text", test_event_fields_of_text);
  g_test_add_func ("/strata/ui/window/damaged-trace-has-no-fields", test_damaged_trace_has_no_fields);
  g_test_add_func ("/strata/ui/window/recent-traces", test_recent_traces);
  g_test_add_func ("/strata/ui/window/application-actions", test_application_actions);

  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
