/* strata-event-list.c
 *
 * See strata-event-list.h. A row chosen here is selected in the session,
 * with a jump that keeps the scale; an activity selected there is
 * selected here; when the session's range moves, a shown list scrolls
 * to the first activity at its start (KernelShark's "graph follows", the
 * other way round too). Only the rows on screen are ever made: the model
 * is virtual.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "strata-event-list.h"
#include "strata-event-fields.h"
#include "strata-event-model.h"
#include "strata-item-info.h"
#include "strata-session.h"

enum {
  COLUMN_TIME,
  COLUMN_CPU,
  COLUMN_TASK,
  COLUMN_PID,
  COLUMN_EVENT,
  COLUMN_DETAILS,
  COLUMN_FIELDS,
  N_COLUMNS
};

struct _StrataEventList
{
  GtkBox              parent_instance;
  StrataEventModel   *model;
  GtkSingleSelection *selection;
  GtkColumnView      *view;
  GtkDropDown        *kind_filter;
  GtkEntry           *cpu_filter;
  GtkEntry           *task_filter;
  GtkLabel           *count;
  guint               followed;
  gboolean            following;
  StrataSession      *session;
  gboolean            jumping;   /* moving the session's range to a row chosen here */

  /* The events' own fields, read from the trace.dat as rows are shown. */
  char               *fields_path;
  StrataEventFields  *fields;
  gboolean            fields_tried;
  guint               n_fields_read;
};

G_DEFINE_FINAL_TYPE (StrataEventList, strata_event_list, GTK_TYPE_BOX)

/* The kinds the filter offers, in the order of the drop-down's items in
 * strata-event-list.ui after "All activities". */
static const StrataActivityKind filter_kinds[] = {
  STRATA_ACTIVITY_TASK, STRATA_ACTIVITY_IRQ, STRATA_ACTIVITY_SOFTIRQ, STRATA_ACTIVITY_IDLE,
  STRATA_ACTIVITY_STATE, STRATA_ACTIVITY_WAKEUP, STRATA_ACTIVITY_EVENT,
};

static char *
cell_text (StrataEventList      *self,
           const StrataActivity *a,
           guint                 column)
{
  StrataTrace *trace = strata_event_model_get_trace (self->model);
  const StrataChannel *channels;
  const StrataChannel *ch;
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  ch = a->channel < n ? &channels[a->channel] : NULL;

  switch (column)
    {
    case COLUMN_TIME:
      return strata_format_offset (a->start - strata_trace_get_start (trace));
    case COLUMN_CPU:
      {
        gint32 cpu = strata_event_activity_cpu (self->model, a);

        return cpu >= 0 ? g_strdup_printf ("%d", cpu) : g_strdup ("");
      }
    case COLUMN_TASK:
      if (ch != NULL && ch->kind == STRATA_CHANNEL_CPU && a->kind == STRATA_ACTIVITY_TASK)
        return g_strdup (strata_trace_get_string (trace, a->label));
      return g_strdup (ch != NULL && ch->kind != STRATA_CHANNEL_CPU
                       ? strata_channel_display_name (trace, a->channel) : "");
    case COLUMN_PID:
      if (ch != NULL && ch->kind == STRATA_CHANNEL_CPU && a->kind == STRATA_ACTIVITY_TASK)
        return g_strdup_printf ("%d", a->arg);
      return ch != NULL && ch->kind == STRATA_CHANNEL_THREAD ? g_strdup_printf ("%d", ch->id) : g_strdup ("");
    case COLUMN_EVENT:
      if (a->kind == STRATA_ACTIVITY_STATE)
        return g_strdup (strata_task_state_display_name (a->state));
      if (a->kind == STRATA_ACTIVITY_EVENT || a->kind == STRATA_ACTIVITY_IRQ || a->kind == STRATA_ACTIVITY_SOFTIRQ)
        return g_strdup (strata_trace_get_string (trace, a->label));
      return g_strdup (strata_activity_kind_to_string (a->kind));
    case COLUMN_FIELDS:
      {
        char *fields = NULL;

        if (!self->fields_tried && self->fields_path != NULL)
          {
            self->fields_tried = TRUE;
            self->fields = strata_event_fields_open (self->fields_path, NULL);
          }
        if (self->fields != NULL)
          {
            fields = strata_event_fields_for_activity (self->fields, trace, a,
                                                       strata_event_activity_cpu (self->model, a));
            self->n_fields_read++;
          }
        return fields != NULL ? fields : g_strdup ("");
      }
    case COLUMN_DETAILS:
    default:
      {
        g_autofree char *d = strata_format_duration (a->end - a->start);

        if (a->kind == STRATA_ACTIVITY_WAKEUP)
          /* Translators: an event list's details of a wakeup */
          return g_strdup_printf (_("woken by %d"), a->arg);
        if (a->end == a->start)
          return g_strdup ("");
        /* Translators: an event list's details: how long it lasted */
        return g_strdup_printf (_("for %s"), d);
      }
    }
}

static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  data)
{
  GtkWidget *label = gtk_label_new (NULL);
  guint column = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (factory), "column"));

  gtk_label_set_xalign (GTK_LABEL (label), column == COLUMN_CPU || column == COLUMN_PID ? 1 : 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (column == COLUMN_TIME || column == COLUMN_CPU || column == COLUMN_PID)
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           StrataEventList          *self)
{
  StrataEventItem *event = gtk_list_item_get_item (item);
  guint column = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (factory), "column"));
  g_autofree char *text = NULL;

  if (event == NULL)
    return;
  text = cell_text (self, strata_event_item_get_activity (event), column);
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text);
}

static void
update_count (StrataEventList *self)
{
  guint n = self->model != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->model)) : 0;
  g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u activity", "%u activities", n), n);

  gtk_label_set_text (self->count, text);
}

/* A row chosen here: the session's range centres on it, its scale kept
 * (widened to hold it), and it is selected. */
static void
jump_to (StrataEventList      *self,
         const StrataActivity *a)
{
  StrataZoomItem item = {
    .start = a->start, .end = a->end, .channel = a->channel, .label = a->label, .arg = a->arg,
    .kind = a->kind, .state = a->state, .flags = a->flags, .count = 1, .busy = a->end - a->start,
  };
  gint64 from, to, span;

  strata_session_get_range (self->session, &from, &to);
  span = to - from;
  if (a->end - a->start > span)
    span = (a->end - a->start) * 5 / 4 + 1;
  self->jumping = TRUE;
  strata_session_navigate_to (self->session, a->start - span / 2, a->start - span / 2 + span);
  strata_session_select_item (self->session, &item);
  self->jumping = FALSE;
}

static void
selection_changed (GtkSingleSelection *selection,
                   guint               position,
                   guint               n_items,
                   StrataEventList    *self)
{
  StrataActivity a;
  guint selected = gtk_single_selection_get_selected (selection);

  if (self->following || self->model == NULL || selected == GTK_INVALID_LIST_POSITION)
    return;
  if (!strata_event_model_get_activity (self->model, selected, &a))
    return;
  if (self->session != NULL)
    jump_to (self, &a);
}

/* GTK 4.8 has no gtk_column_view_scroll_to(); the list inside it has
 * the "list.scroll-to-item" action. */
static void
scroll_to (StrataEventList *self,
           guint            position)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->view)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      {
        gtk_widget_activate_action (child, "list.scroll-to-item", "u", position);
        return;
      }
}

/* The timeline moved: the list shows the first activity at @t. */
void
strata_event_list_follow (StrataEventList *self,
                          gint64           t)
{
  g_return_if_fail (STRATA_IS_EVENT_LIST (self));

  if (self->model == NULL || g_list_model_get_n_items (G_LIST_MODEL (self->model)) == 0)
    return;
  self->followed = strata_event_model_position_at (self->model, t);
  scroll_to (self, self->followed);
}

guint
strata_event_list_get_followed (StrataEventList *self)
{
  g_return_val_if_fail (STRATA_IS_EVENT_LIST (self), 0);
  return self->followed;
}

/* The session's range moved: a shown list follows its start. */
static void
session_range_changed (StrataEventList *self)
{
  if (self->jumping || !gtk_widget_get_visible (GTK_WIDGET (self)))
    return;
  strata_event_list_follow (self, strata_session_get_from (self->session));
}

/* The row of the activity @item is, if it is one (an aggregate is not):
 * at or just after the first position at its start. */
static guint
position_of_item (StrataEventList      *self,
                  const StrataZoomItem *item)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->model));
  StrataActivity a;

  if (item->count > 1)
    return GTK_INVALID_LIST_POSITION;
  for (guint p = strata_event_model_position_at (self->model, item->start);
       p < n && strata_event_model_get_activity (self->model, p, &a) && a.start == item->start; p++)
    if (a.channel == item->channel && a.end == item->end && a.kind == item->kind)
      return p;
  return GTK_INVALID_LIST_POSITION;
}

/* An activity selected elsewhere (the timeline): a shown list selects
 * its row, or shows where it starts. */
static void
session_selection_changed (StrataEventList *self)
{
  const StrataSelection *sel = strata_session_get_selection (self->session);
  guint p;

  if (self->jumping || self->model == NULL || !gtk_widget_get_visible (GTK_WIDGET (self)))
    return;
  if (sel->kind != STRATA_SELECTION_ITEM)
    {
      self->following = TRUE;
      gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
      self->following = FALSE;
      return;
    }
  p = position_of_item (self, &sel->item);
  if (p == GTK_INVALID_LIST_POSITION)
    {
      strata_event_list_follow (self, sel->item.start);
      return;
    }
  self->following = TRUE;
  gtk_single_selection_set_selected (self->selection, p);
  self->following = FALSE;
  self->followed = p;
  scroll_to (self, p);
}

/* Which row is selected, or GTK_INVALID_LIST_POSITION. */
guint
strata_event_list_get_selected (StrataEventList *self)
{
  g_return_val_if_fail (STRATA_IS_EVENT_LIST (self), GTK_INVALID_LIST_POSITION);
  return gtk_single_selection_get_selected (self->selection);
}

/**
 * strata_event_list_set_session:
 * @session: what the list shares with the timeline: it follows the range
 *   and selects there
 */
void
strata_event_list_set_session (StrataEventList *self,
                               StrataSession   *session)
{
  g_return_if_fail (STRATA_IS_EVENT_LIST (self));
  g_return_if_fail (STRATA_IS_SESSION (session));

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  g_signal_connect_swapped (session, "range-changed", G_CALLBACK (session_range_changed), self);
  g_signal_connect_swapped (session, "selection-changed", G_CALLBACK (session_selection_changed), self);
}

/* As a click on the row does. */
void
strata_event_list_select (StrataEventList *self,
                          guint            position)
{
  g_return_if_fail (STRATA_IS_EVENT_LIST (self));

  gtk_single_selection_set_selected (self->selection, position);
}

GListModel *
strata_event_list_get_model (StrataEventList *self)
{
  g_return_val_if_fail (STRATA_IS_EVENT_LIST (self), NULL);
  return self->model != NULL ? G_LIST_MODEL (self->model) : NULL;
}

void
strata_event_list_set_filter (StrataEventList *self,
                              int              kind,
                              gint32           cpu,
                              gint32           tid)
{
  g_return_if_fail (STRATA_IS_EVENT_LIST (self));

  if (self->model == NULL)
    return;
  self->following = TRUE;
  strata_event_model_set_filter (self->model, kind, cpu, tid);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  self->following = FALSE;
  update_count (self);
}

static void
filters_changed (StrataEventList *self)
{
  guint k = gtk_drop_down_get_selected (self->kind_filter);
  const char *cpu = gtk_editable_get_text (GTK_EDITABLE (self->cpu_filter));
  const char *tid = gtk_editable_get_text (GTK_EDITABLE (self->task_filter));
  gint64 c = -1, t = -1;

  if (cpu[0] != '\0' && !g_ascii_string_to_signed (cpu, 10, 0, G_MAXINT32, &c, NULL))
    c = -1;
  if (tid[0] != '\0' && !g_ascii_string_to_signed (tid, 10, 0, G_MAXINT32, &t, NULL))
    t = -1;
  strata_event_list_set_filter (self, k == 0 || k > G_N_ELEMENTS (filter_kinds)
                                        ? STRATA_EVENT_ANY_KIND : (int) filter_kinds[k - 1],
                                (gint32) c, (gint32) t);
}

static void
install_model (StrataEventList  *self,
               StrataEventModel *model)
{
  g_clear_object (&self->model);
  self->model = model;
  self->following = TRUE;
  gtk_single_selection_set_model (self->selection, self->model != NULL ? G_LIST_MODEL (self->model) : NULL);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  self->following = FALSE;
  self->followed = 0;
  /* The filters shown apply to the new rows too. */
  if (self->model != NULL)
    filters_changed (self);
  update_count (self);
}

void
strata_event_list_set_trace (StrataEventList *self,
                             StrataTrace     *trace)
{
  g_return_if_fail (STRATA_IS_EVENT_LIST (self));

  install_model (self, trace != NULL && strata_trace_get_zoom_tree (trace) != NULL
                       ? strata_event_model_new (trace) : NULL);
  /* The finished trace of one shown live keeps its selection: its row. */
  if (self->session != NULL && self->model != NULL &&
      strata_session_get_selection (self->session)->kind == STRATA_SELECTION_ITEM)
    session_selection_changed (self);
}

/**
 * strata_event_list_set_live:
 * @trace: a trace still loading, shown live (strata_timeline_view_set_live())
 * @until: its horizon
 *
 * The rows of what @trace completed before @until
 * (strata_event_model_new_live()), which stay as it grows; called again
 * for the newer part. The session's selected activity keeps its row, or
 * else the list shows the session's range.
 */
void
strata_event_list_set_live (StrataEventList *self,
                            StrataTrace     *trace,
                            gint64           until)
{
  g_return_if_fail (STRATA_IS_EVENT_LIST (self));
  g_return_if_fail (STRATA_IS_TRACE (trace));

  if (strata_trace_get_zoom_tree (trace) == NULL)
    return;
  install_model (self, strata_event_model_new_live (trace, until));
  if (self->session == NULL)
    return;
  if (strata_session_get_selection (self->session)->kind == STRATA_SELECTION_ITEM)
    session_selection_changed (self);
  else
    strata_event_list_follow (self, strata_session_get_from (self->session));
}

/**
 * strata_event_list_set_fields_file:
 * @path: (nullable): the trace.dat (or kernel text, or perf.data) the
 *   list's trace was read from
 *
 * Where the Fields column reads each shown event's fields from; opened
 * when the first row is shown. Other formats (and %NULL) leave the
 * column empty.
 */
void
strata_event_list_set_fields_file (StrataEventList *self,
                                   const char      *path)
{
  g_return_if_fail (STRATA_IS_EVENT_LIST (self));

  g_clear_pointer (&self->fields, strata_event_fields_free);
  g_free (self->fields_path);
  self->fields_path = g_strdup (path);
  self->fields_tried = FALSE;
  self->n_fields_read = 0;
}

/* What the Fields column shows for the row at @position (for the tests,
 * which compare it with trace-cmd's). */
char *
strata_event_list_get_fields_text (StrataEventList *self,
                                   guint            position)
{
  StrataActivity a;

  g_return_val_if_fail (STRATA_IS_EVENT_LIST (self), NULL);

  if (self->model == NULL || !strata_event_model_get_activity (self->model, position, &a))
    return NULL;
  return cell_text (self, &a, COLUMN_FIELDS);
}

/* How many rows' fields have been read so far: the rows shown, not the
 * list's length. */
guint
strata_event_list_get_n_fields_read (StrataEventList *self)
{
  g_return_val_if_fail (STRATA_IS_EVENT_LIST (self), 0);
  return self->n_fields_read;
}

static void
strata_event_list_dispose (GObject *object)
{
  StrataEventList *self = STRATA_EVENT_LIST (object);

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  g_clear_object (&self->model);
  g_clear_pointer (&self->fields, strata_event_fields_free);
  g_clear_pointer (&self->fields_path, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), STRATA_TYPE_EVENT_LIST);
  G_OBJECT_CLASS (strata_event_list_parent_class)->dispose (object);
}

static void
strata_event_list_class_init (StrataEventListClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = strata_event_list_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/strata/Strata/strata-event-list.ui");
  gtk_widget_class_bind_template_child (widget_class, StrataEventList, kind_filter);
  gtk_widget_class_bind_template_child (widget_class, StrataEventList, cpu_filter);
  gtk_widget_class_bind_template_child (widget_class, StrataEventList, task_filter);
  gtk_widget_class_bind_template_child (widget_class, StrataEventList, count);
  gtk_widget_class_bind_template_child (widget_class, StrataEventList, view);
  gtk_widget_class_bind_template_child (widget_class, StrataEventList, selection);
  gtk_widget_class_bind_template_callback (widget_class, filters_changed);
  gtk_widget_class_bind_template_callback (widget_class, selection_changed);
}

static void
strata_event_list_init (StrataEventList *self)
{
  static const char *titles[N_COLUMNS] = {
    N_("Time"), N_("CPU"), N_("Task"), N_("PID"), N_("Event"), N_("Details"), N_("Fields"),
  };

  gtk_widget_init_template (GTK_WIDGET (self));

  /* The columns stay in code: each has its own factory, told its column. */
  for (guint c = 0; c < N_COLUMNS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;

      g_object_set_data (G_OBJECT (factory), "column", GUINT_TO_POINTER (c));
      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), self);
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), self);
      column = gtk_column_view_column_new (_(titles[c]), factory);
      gtk_column_view_column_set_resizable (column, TRUE);
      if (c == COLUMN_FIELDS)
        gtk_column_view_column_set_expand (column, TRUE);
      gtk_column_view_append_column (self->view, column);
      g_object_unref (column);
    }
  update_count (self);
}

GtkWidget *
strata_event_list_new (void)
{
  return g_object_new (STRATA_TYPE_EVENT_LIST, NULL);
}
