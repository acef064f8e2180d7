/* test-ui-session.c
 *
 * The session the timeline, the event list, the details panel and the
 * analysis pane share, on a real recording: an activity clicked in the
 * timeline is the one the panel describes and the row the list selects
 * (found by walking the list, not by the list's own lookup); a row chosen
 * in the list is the timeline's selection; a range dragged on the ruler
 * is the panel's; back and forward (the window's actions and the
 * timeline's keys) restore the ranges; the list follows the range to the
 * first activity at its start; and a session given another trace starts
 * afresh, while a growing extent keeps, grows or slides the range as the
 * timeline's live view needs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "strata-event-list.h"
#include "strata-event-model.h"
#include "strata-session.h"
#include "strata-test-support.h"
#include "strata-test-ui.h"

static StrataWindow *window;
static StrataTimelineView *view;
static StrataSession *session;

static guint32
thread_channel (gint32 tid)
{
  return strata_test_ui_thread_channel (strata_session_get_trace (session), tid);
}

static StrataActivity
longest_running (guint32 channel)
{
  return strata_test_ui_longest_running (strata_session_get_trace (session), channel);
}

/* The list's row of @a, by walking the whole list. */
static guint
row_by_walking (GListModel           *model,
                const StrataActivity *a)
{
  guint n = g_list_model_get_n_items (model);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(StrataEventItem) item = g_list_model_get_item (model, i);
      const StrataActivity *b = strata_event_item_get_activity (item);

      if (b->start == a->start && b->end == a->end && b->channel == a->channel && b->kind == a->kind)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

static void
count_signal (gpointer  instance,
              guint    *counter)
{
  (*counter)++;
}

static void
test_timeline_selection_is_shared (void)
{
  StrataEventList *list = strata_window_get_event_list (window);
  guint32 channel = thread_channel (4302);
  StrataActivity a = longest_running (channel);
  const StrataSelection *sel;
  g_autofree char *text = NULL;
  gint64 d = a.end - a.start;
  guint seen = 0, row;
  double x, y;
  gulong id;

  strata_window_show_events (window, TRUE);
  strata_timeline_view_clear_selection (view);
  strata_session_navigate_to (session, a.start - d / 4, a.end + d / 4);
  strata_test_ui_settle ();

  /* A click on the interval in the timeline... */
  id = g_signal_connect (session, "selection-changed", G_CALLBACK (count_signal), &seen);
  x = (strata_timeline_view_x_for_time (view, a.start) + strata_timeline_view_x_for_time (view, a.end)) / 2;
  y = strata_timeline_view_y_for_row (view, channel) + 6;
  strata_timeline_view_handle_drag_begin (view, x, y);
  strata_timeline_view_handle_drag_end (view, 0, 0);
  g_signal_handler_disconnect (session, id);
  g_assert_cmpuint (seen, ==, 1);

  /* ...is the session's selection... */
  sel = strata_session_get_selection (session);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_ITEM);
  g_assert_cmpint (sel->item.start, ==, a.start);
  g_assert_cmpint (sel->item.end, ==, a.end);
  g_assert_cmpuint (sel->item.channel, ==, channel);

  /* ...the panel's... */
  g_assert_true (gtk_widget_get_visible (strata_window_get_panel (window)));
  text = strata_window_get_panel_text (window);
  g_assert_nonnull (strstr (text, "TID: 4302\n"));
  g_assert_nonnull (strstr (text, "State: Running\n"));

  /* ...and the list's selected row. */
  row = row_by_walking (strata_event_list_get_model (list), &a);
  g_assert_cmpuint (row, !=, GTK_INVALID_LIST_POSITION);
  g_assert_cmpuint (strata_event_list_get_selected (list), ==, row);

  /* A click on empty ruler clears it everywhere. */
  strata_timeline_view_handle_drag_begin (view, x, STRATA_TIMELINE_OVERVIEW_HEIGHT + 4);
  strata_timeline_view_handle_drag_end (view, 0, 0);
  g_assert_cmpint (strata_session_get_selection (session)->kind, ==, STRATA_SELECTION_NONE);
  g_assert_false (gtk_widget_get_visible (strata_window_get_panel (window)));
  g_assert_cmpuint (strata_event_list_get_selected (list), ==, GTK_INVALID_LIST_POSITION);
  strata_window_show_events (window, FALSE);
}

static void
test_list_selection_is_shared (void)
{
  StrataEventList *list = strata_window_get_event_list (window);
  GListModel *model;
  const StrataSelection *sel;
  StrataActivity a = { 0 };
  gint64 from, to, span;
  guint n, p;

  strata_window_show_events (window, TRUE);
  strata_test_ui_settle ();
  model = strata_event_list_get_model (list);
  n = g_list_model_get_n_items (model);
  g_assert_cmpuint (n, >, 100);

  /* A running interval from the middle of the list. */
  for (p = n / 2; p < n; p++)
    {
      g_autoptr(StrataEventItem) item = g_list_model_get_item (model, p);

      a = *strata_event_item_get_activity (item);
      if (a.kind == STRATA_ACTIVITY_STATE && a.state == STRATA_TASK_STATE_RUNNING && a.end > a.start)
        break;
    }
  g_assert_cmpuint (p, <, n);

  strata_timeline_view_fit (view);
  strata_session_set_range (session, a.start - 2000000, a.start + 2000000);
  strata_session_get_range (session, &from, &to);
  span = to - from;
  strata_event_list_select (list, p);

  /* The timeline's selection is that row's activity, centred, at the
   * same scale (unless it is longer than the view). */
  sel = strata_timeline_view_get_selection (view);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_ITEM);
  g_assert_cmpint (sel->item.start, ==, a.start);
  g_assert_cmpint (sel->item.end, ==, a.end);
  g_assert_cmpuint (sel->item.channel, ==, a.channel);
  strata_timeline_view_get_range (view, &from, &to);
  if (a.end - a.start <= span)
    g_assert_cmpint (to - from, ==, span);
  g_assert_cmpint (from, <=, a.start);
  g_assert_cmpint (to, >=, a.start);
  g_assert_true (strata_session_get_can_go_back (session));
  g_assert_true (gtk_widget_get_visible (strata_window_get_panel (window)));
  strata_window_show_events (window, FALSE);
}

static void
test_range_selection_is_shared (void)
{
  StrataTrace *trace = strata_session_get_trace (session);
  const StrataSelection *sel;
  g_autofree char *text = NULL;
  g_autofree char *want = NULL;
  gint64 start = strata_trace_get_start (trace);
  double x0, x1;

  strata_timeline_view_clear_selection (view);
  strata_timeline_view_fit (view);
  strata_session_set_range (session, start, start + 10000000);
  strata_test_ui_settle ();

  /* Dragged on the ruler from 2 ms to 6 ms. */
  x0 = strata_timeline_view_x_for_time (view, start + 2000000);
  x1 = strata_timeline_view_x_for_time (view, start + 6000000);
  strata_timeline_view_handle_drag_begin (view, x0, STRATA_TIMELINE_OVERVIEW_HEIGHT + 4);
  strata_timeline_view_handle_drag_update (view, (x1 - x0) / 2, 0);
  /* Being dragged out, it is no selection yet. */
  g_assert_cmpint (strata_session_get_selection (session)->kind, ==, STRATA_SELECTION_NONE);
  strata_timeline_view_handle_drag_end (view, x1 - x0, 0);

  sel = strata_session_get_selection (session);
  g_assert_cmpint (sel->kind, ==, STRATA_SELECTION_RANGE);
  /* Within a pixel of what was dragged. */
  g_assert_cmpint (ABS (sel->from - (start + 2000000)), <=, 10000000 / 1000);
  g_assert_cmpint (ABS (sel->to - (start + 6000000)), <=, 10000000 / 1000);
  text = strata_window_get_panel_text (window);
  g_assert_nonnull (text);
  want = strata_format_duration (sel->to - sel->from);
  g_assert_nonnull (strstr (text, want));
  strata_timeline_view_clear_selection (view);
}

static void
test_history_restores_range (void)
{
  StrataTrace *trace = strata_session_get_trace (session);
  gint64 start = strata_trace_get_start (trace);
  gint64 from, to;

  strata_timeline_view_fit (view);
  strata_session_navigate_to (session, start + 1000000, start + 2000000);
  strata_session_navigate_to (session, start + 5000000, start + 9000000);

  /* The window's Back: the range before, in every view's session. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.back", NULL);
  strata_timeline_view_get_range (view, &from, &to);
  g_assert_cmpint (from, ==, start + 1000000);
  g_assert_cmpint (to, ==, start + 2000000);
  g_assert_true (strata_session_get_can_go_forward (session));

  /* The timeline's Alt+Right: forward again. */
  g_assert_true (strata_timeline_view_handle_key (view, GDK_KEY_Right, GDK_ALT_MASK));
  strata_session_get_range (session, &from, &to);
  g_assert_cmpint (from, ==, start + 5000000);
  g_assert_cmpint (to, ==, start + 9000000);
  g_assert_false (strata_session_get_can_go_forward (session));

  /* Alt+Left twice: both steps back. */
  strata_timeline_view_handle_key (view, GDK_KEY_Left, GDK_ALT_MASK);
  strata_timeline_view_handle_key (view, GDK_KEY_Left, GDK_ALT_MASK);
  strata_session_get_range (session, &from, &to);
  g_assert_cmpint (to - from, ==, strata_trace_get_end (trace) - start);
}

static void
test_list_follows_range (void)
{
  StrataEventList *list = strata_window_get_event_list (window);
  StrataTrace *trace = strata_session_get_trace (session);
  gint64 t = strata_trace_get_start (trace) + (strata_trace_get_end (trace) - strata_trace_get_start (trace)) / 3;
  GListModel *model;
  guint want = 0, n;

  strata_window_show_events (window, TRUE);
  strata_test_ui_settle ();
  model = strata_event_list_get_model (list);
  n = g_list_model_get_n_items (model);
  strata_session_set_range (session, t, t + 3000000);

  /* The first activity starting at or after the range's start. */
  for (; want < n; want++)
    {
      g_autoptr(StrataEventItem) item = g_list_model_get_item (model, want);

      if (strata_event_item_get_activity (item)->start >= strata_session_get_from (session))
        break;
    }
  g_assert_cmpuint (strata_event_list_get_followed (list), ==, want);
  strata_window_show_events (window, FALSE);
}

/* A session of its own, on the window's trace: what the live view and a
 * new trace rely on. */
static void
test_extent_and_new_trace (void)
{
  StrataTrace *trace = strata_session_get_trace (session);   /* the window's */
  g_autoptr(StrataSession) s = strata_session_new ();
  StrataZoomItem item = { .start = 10, .end = 20, .channel = 1, .count = 1 };
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (guint32));
  const StrataChannel *channels;
  guint ranges = 0, selections = 0, n;
  guint32 match;
  gint64 from, to;

  g_signal_connect (s, "range-changed", G_CALLBACK (count_signal), &ranges);
  g_signal_connect (s, "selection-changed", G_CALLBACK (count_signal), &selections);
  strata_session_set_trace (s, trace);
  g_assert_true (strata_session_get_following (s));

  /* A view of the whole extent grows with it. */
  strata_session_set_extent (s, 0, 1000);
  strata_session_get_range (s, &from, &to);
  g_assert_cmpint (from, ==, 0);
  g_assert_cmpint (to, ==, 1000);
  strata_session_set_extent (s, 0, 2000);
  strata_session_get_range (s, &from, &to);
  g_assert_cmpint (to, ==, 2000);
  g_assert_cmpuint (ranges, ==, 2);

  /* One that follows the present slides, its span kept. */
  strata_session_set_range (s, 1500, 2000);
  g_assert_true (strata_session_get_following (s));
  strata_session_set_extent (s, 0, 3000);
  strata_session_get_range (s, &from, &to);
  g_assert_cmpint (from, ==, 2500);
  g_assert_cmpint (to, ==, 3000);

  /* One panned away stays. */
  strata_session_navigate_to (s, 100, 600);
  g_assert_false (strata_session_get_following (s));
  strata_session_set_extent (s, 0, 4000);
  strata_session_get_range (s, &from, &to);
  g_assert_cmpint (from, ==, 100);
  g_assert_cmpint (to, ==, 600);

  /* Clamped to the extent and to the narrowest span. */
  strata_session_set_min_span (s, 50);
  strata_session_set_range (s, -500, -490);
  strata_session_get_range (s, &from, &to);
  g_assert_cmpint (from, ==, 0);
  g_assert_cmpint (to, ==, 50);

  strata_session_select_item (s, &item);
  strata_session_add_marker (s, 5);
  strata_session_add_marker (s, 6);
  strata_session_add_marker (s, 7);
  g_assert_cmpuint (strata_session_get_markers (s, NULL), ==, 2);
  /* A thread found by its tid, in the order given; stepping selects its row. */
  channels = strata_trace_get_channels (trace, &n);
  for (guint32 c = 0; c < n; c++)
    g_array_append_val (order, c);
  g_assert_cmpuint (strata_session_set_search (s, "4302", (const guint32 *)(gpointer) order->data, order->len), >=, 1);
  match = strata_session_search_step (s, 1);
  g_assert_cmpuint (match, <, n);
  g_assert_true (channels[match].id == 4302 || channels[match].tgid == 4302);
  g_assert_cmpint (strata_session_get_selection (s)->kind, ==, STRATA_SELECTION_ROW);
  g_assert_cmpuint (strata_session_get_selection (s)->channel, ==, match);
  g_assert_true (strata_session_get_can_go_back (s));
  g_assert_cmpuint (selections, ==, 2);

  /* Another trace: nothing of the old one. */
  strata_session_set_trace (s, NULL);
  g_assert_cmpint (strata_session_get_selection (s)->kind, ==, STRATA_SELECTION_NONE);
  g_assert_cmpuint (strata_session_get_markers (s, NULL), ==, 0);
  g_assert_false (strata_session_get_can_go_back (s));
  g_assert_false (strata_session_get_can_go_forward (s));
  g_assert_null (strata_session_get_search (s));
  g_assert_true (strata_session_get_following (s));
  g_assert_cmpuint (strata_session_get_search_match (s), ==, STRATA_CHANNEL_NONE);
  g_assert_cmpuint (selections, ==, 3);
}

int
main (int    argc,
      char **argv)
{
  int status;

  strata_test_ui_init (&argc, &argv);
  window = strata_test_ui_open_window ("sched-small.dat", 1400, 860);
  view = strata_window_get_timeline (window);
  session = strata_timeline_view_get_session (view);

  g_test_add_func ("/strata/ui/session/timeline-selection-is-shared", test_timeline_selection_is_shared);
  g_test_add_func ("/strata/ui/session/list-selection-is-shared", test_list_selection_is_shared);
  g_test_add_func ("/strata/ui/session/range-selection-is-shared", test_range_selection_is_shared);
  g_test_add_func ("/strata/ui/session/history-restores-range", test_history_restores_range);
  g_test_add_func ("/strata/ui/session/list-follows-range", test_list_follows_range);
  g_test_add_func ("/strata/ui/session/extent-and-new-trace", test_extent_and_new_trace);

  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
