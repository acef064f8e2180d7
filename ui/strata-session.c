/* strata-session.c
 *
 * The state the views of one trace share, kept apart from any widget so
 * that each view only draws it and changes it: the timeline moves the
 * range and selects, the event list follows the range and selects, the
 * panel and the analysis pane describe the selection. The range is
 * clamped here, to the extent (which grows while a trace loads) and to
 * the narrowest span the timeline can draw; a jump the user may want to
 * come back from is pushed on the history, continuous navigation (a
 * wheel, a key held down) one step per burst.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-item-info.h"
#include "strata-session.h"

#define HISTORY_GAP_USEC  (600 * G_TIME_SPAN_MILLISECOND)
#define HISTORY_MAX       100
#define DEFAULT_MIN_SPAN  16

typedef struct
{
  gint64 from;
  gint64 to;
} Range;

struct _StrataSession
{
  GObject          parent_instance;

  StrataTrace     *trace;
  gint64           start;
  gint64           end;
  gint64           from;
  gint64           to;
  gint64           min_span;
  /* The right edge stays on the present as a growing trace grows, the
   * span kept (the whole trace while the view shows it all); a pan or
   * zoom away from the present stops it, follow() resumes it. */
  gboolean         following;

  GArray          *back;        /* Range */
  GArray          *forward;     /* Range */
  gint64           last_nav_usec;

  StrataSelection  selection;

  gint64           markers[2];
  guint            n_markers;

  char            *search;
  GArray          *matches;     /* guint32 channels, in row order */
  int              match_index;
};

enum {
  PROP_0,
  PROP_TRACE,
  PROP_CAN_GO_BACK,
  PROP_CAN_GO_FORWARD,
  PROP_FOLLOWING,
  PROP_SEARCH,
  PROP_SEARCH_MATCH,
  N_PROPS
};

enum {
  SIGNAL_RANGE_CHANGED,
  SIGNAL_SELECTION_CHANGED,
  SIGNAL_MARKERS_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (StrataSession, strata_session, G_TYPE_OBJECT)

/* Range ------------------------------------------------------------------- */

static void
clamp_range (StrataSession *self,
             gint64        *from,
             gint64        *to)
{
  gint64 full = MAX (self->end - self->start, 1);
  gint64 span = CLAMP (*to - *from, MIN (self->min_span, full), full);
  gint64 mid = *from + (*to - *from) / 2;

  *from = mid - span / 2;
  *to = *from + span;
  if (*from < self->start)
    {
      *from = self->start;
      *to = *from + span;
    }
  if (*to > self->end)
    {
      *to = self->end;
      *from = *to - span;
    }
}

static void
set_following (StrataSession *self,
               gboolean       following)
{
  following = !!following;
  if (self->following == following)
    return;
  self->following = following;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FOLLOWING]);
}

static void
notify_history (StrataSession *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_GO_BACK]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_GO_FORWARD]);
}

/**
 * strata_session_set_extent:
 * @start: the first time there is to show
 * @end: the last, which grows while a trace loads
 *
 * A view of the whole extent grows with it; a narrower one that follows
 * the present slides, its span kept; any other stays where it is.
 */
void
strata_session_set_extent (StrataSession *self,
                           gint64         start,
                           gint64         end)
{
  gboolean whole, slide;
  gint64 span, from, to;

  g_return_if_fail (STRATA_IS_SESSION (self));

  end = MAX (end, start + 1);
  whole = self->from <= self->start && self->to >= self->end;
  slide = self->following && !whole;
  span = self->to - self->from;
  self->start = start;
  self->end = end;
  if (whole && self->following)
    {
      from = start;
      to = end;
    }
  else if (slide)
    {
      to = end;
      from = end - span;
    }
  else
    {
      from = self->from;
      to = self->to;
    }
  clamp_range (self, &from, &to);
  self->from = from;
  self->to = to;
  g_signal_emit (self, signals[SIGNAL_RANGE_CHANGED], 0);
}

gint64
strata_session_get_start (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), 0);
  return self->start;
}

gint64
strata_session_get_end (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), 0);
  return self->end;
}

/**
 * strata_session_set_min_span:
 * @min_span: the narrowest range the timeline draws at its width
 *
 * The range is clamped again, quietly: this comes from a size
 * allocation, which draws anyway.
 */
void
strata_session_set_min_span (StrataSession *self,
                             gint64         min_span)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  self->min_span = MAX (min_span, 1);
  if (self->trace != NULL)
    clamp_range (self, &self->from, &self->to);
}

gint64
strata_session_get_from (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), 0);
  return self->from;
}

gint64
strata_session_get_to (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), 0);
  return self->to;
}

void
strata_session_get_range (StrataSession *self,
                          gint64        *from,
                          gint64        *to)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  if (from != NULL)
    *from = self->from;
  if (to != NULL)
    *to = self->to;
}

/* Moves the visible range, clamped; "range-changed" if it moved. */
void
strata_session_set_range (StrataSession *self,
                          gint64         from,
                          gint64         to)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  if (self->trace == NULL)
    return;
  clamp_range (self, &from, &to);
  /* Whatever moved the view, it follows the present if it ends there. */
  set_following (self, to >= self->end);
  if (from == self->from && to == self->to)
    return;
  self->from = from;
  self->to = to;
  g_signal_emit (self, signals[SIGNAL_RANGE_CHANGED], 0);
}

void
strata_session_push_history (StrataSession *self)
{
  Range r = { self->from, self->to };

  g_return_if_fail (STRATA_IS_SESSION (self));

  if (self->trace == NULL)
    return;
  if (self->back->len > 0)
    {
      Range *top = &g_array_index (self->back, Range, self->back->len - 1);

      if (top->from == r.from && top->to == r.to)
        return;
    }
  g_array_append_val (self->back, r);
  if (self->back->len > HISTORY_MAX)
    g_array_remove_index (self->back, 0);
  g_array_set_size (self->forward, 0);
  notify_history (self);
}

/* Continuous navigation (wheel, keys held down) is one step of history
 * per burst, not per event. */
void
strata_session_push_history_for_burst (StrataSession *self)
{
  gint64 now = g_get_monotonic_time ();

  g_return_if_fail (STRATA_IS_SESSION (self));

  if (now - self->last_nav_usec > HISTORY_GAP_USEC)
    strata_session_push_history (self);
  self->last_nav_usec = now;
}

/* A jump the user may want to come back from. */
void
strata_session_navigate_to (StrataSession *self,
                            gint64         from,
                            gint64         to)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  strata_session_push_history (self);
  self->last_nav_usec = 0;
  strata_session_set_range (self, from, to);
}

void
strata_session_fit (StrataSession *self)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  strata_session_navigate_to (self, self->start, self->end);
}

static gboolean
step_history (StrataSession *self,
              GArray        *from_stack,
              GArray        *to_stack)
{
  Range here = { self->from, self->to }, r;

  if (from_stack->len == 0)
    return FALSE;
  r = g_array_index (from_stack, Range, from_stack->len - 1);
  g_array_set_size (from_stack, from_stack->len - 1);
  g_array_append_val (to_stack, here);
  strata_session_set_range (self, r.from, r.to);
  self->last_nav_usec = 0;
  notify_history (self);
  return TRUE;
}

gboolean
strata_session_go_back (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), FALSE);
  return step_history (self, self->back, self->forward);
}

gboolean
strata_session_go_forward (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), FALSE);
  return step_history (self, self->forward, self->back);
}

gboolean
strata_session_get_can_go_back (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), FALSE);
  return self->back->len > 0;
}

gboolean
strata_session_get_can_go_forward (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), FALSE);
  return self->forward->len > 0;
}

gboolean
strata_session_get_following (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), FALSE);
  return self->following;
}

/* Brings the right edge to the present, the span kept, and keeps it
 * there as the extent grows (End in the timeline). */
void
strata_session_follow (StrataSession *self)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  if (self->trace != NULL)
    strata_session_set_range (self, self->end - (self->to - self->from), self->end);
  set_following (self, TRUE);
}

void
strata_session_set_following (StrataSession *self,
                              gboolean       following)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  if (following)
    strata_session_follow (self);
  else
    set_following (self, FALSE);
}

/* Selection --------------------------------------------------------------- */

const StrataSelection *
strata_session_get_selection (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), NULL);
  return &self->selection;
}

static void
selection_changed (StrataSession *self)
{
  g_signal_emit (self, signals[SIGNAL_SELECTION_CHANGED], 0);
}

void
strata_session_select_item (StrataSession        *self,
                            const StrataZoomItem *item)
{
  g_return_if_fail (STRATA_IS_SESSION (self));
  g_return_if_fail (item != NULL);

  self->selection.kind = STRATA_SELECTION_ITEM;
  self->selection.item = *item;
  self->selection.channel = item->channel;
  selection_changed (self);
}

void
strata_session_select_row (StrataSession *self,
                           guint32        channel)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  self->selection.kind = STRATA_SELECTION_ROW;
  self->selection.channel = channel;
  selection_changed (self);
}

/* A range of time over the rows shown, clamped to the extent. */
void
strata_session_select_range (StrataSession *self,
                             gint64         from,
                             gint64         to)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  self->selection.kind = STRATA_SELECTION_RANGE;
  self->selection.from = MAX (MIN (from, to), self->start);
  self->selection.to = MIN (MAX (from, to), self->end);
  selection_changed (self);
}

void
strata_session_clear_selection (StrataSession *self)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  if (self->selection.kind == STRATA_SELECTION_NONE)
    return;
  self->selection.kind = STRATA_SELECTION_NONE;
  selection_changed (self);
}

/* Markers ----------------------------------------------------------------- */

/* Two markers; a third replaces the older. */
void
strata_session_add_marker (StrataSession *self,
                           gint64         t)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  if (self->n_markers == 2)
    {
      self->markers[0] = self->markers[1];
      self->n_markers = 1;
    }
  self->markers[self->n_markers++] = t;
  g_signal_emit (self, signals[SIGNAL_MARKERS_CHANGED], 0);
}

guint
strata_session_get_markers (StrataSession *self,
                            gint64        *markers)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), 0);

  for (guint i = 0; markers != NULL && i < self->n_markers; i++)
    markers[i] = self->markers[i];
  return self->n_markers;
}

void
strata_session_clear_markers (StrataSession *self)
{
  g_return_if_fail (STRATA_IS_SESSION (self));

  if (self->n_markers == 0)
    return;
  self->n_markers = 0;
  g_signal_emit (self, signals[SIGNAL_MARKERS_CHANGED], 0);
}

/* Search ------------------------------------------------------------------ */

static gboolean
channel_matches (StrataSession       *self,
                 const StrataChannel *ch,
                 guint32              channel,
                 const char          *folded,
                 gint64               number,
                 gboolean             is_number)
{
  g_autofree char *name = NULL;

  if (ch->kind == STRATA_CHANNEL_CPU)
    return FALSE;
  if (is_number)
    return ch->id == number || (ch->kind == STRATA_CHANNEL_THREAD && ch->tgid == number);
  name = g_utf8_casefold (strata_channel_display_name (self->trace, channel), -1);
  return strstr (name, folded) != NULL;
}

/**
 * strata_session_set_search:
 * @text: (nullable): a name (a substring of a comm, any case) or a pid/tid
 * @order: (array length=n_order): the channels to look through, in the
 *   order stepping goes (the timeline's rows, hidden and collapsed ones
 *   included)
 *
 * Finds the channels that match; the first is not selected yet
 * (strata_session_search_step() does).
 *
 * Returns: how many match
 */
/* The rows of @order that match self->search, in that order. */
static void
find_matches (StrataSession *self,
              const guint32 *order,
              guint          n_order)
{
  const StrataChannel *channels;
  g_autofree char *folded = NULL;
  gint64 number = 0;
  gboolean is_number;
  guint n = 0;

  g_array_set_size (self->matches, 0);
  if (self->trace == NULL || self->search == NULL)
    return;
  folded = g_utf8_casefold (self->search, -1);
  is_number = g_ascii_string_to_signed (self->search, 10, 0, G_MAXINT32, &number, NULL);
  channels = strata_trace_get_channels (self->trace, &n);
  for (guint i = 0; i < n_order; i++)
    if (order[i] < n && channel_matches (self, &channels[order[i]], order[i], folded, number, is_number))
      g_array_append_val (self->matches, order[i]);
}

guint
strata_session_set_search (StrataSession *self,
                           const char    *text,
                           const guint32 *order,
                           guint          n_order)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), 0);

  self->match_index = -1;
  g_clear_pointer (&self->search, g_free);
  if (self->trace != NULL && text != NULL && text[0] != '\0')
    self->search = g_strstrip (g_strdup (text));
  find_matches (self, order, n_order);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH_MATCH]);
  return self->matches->len;
}

/**
 * strata_session_update_search:
 * @order: the rows, as strata_session_set_search() takes them
 *
 * The same search over rows that changed (a growing trace's new
 * threads): the matches are found again, the current one stays current
 * and nothing is selected or scrolled to, so the view does not jump.
 *
 * Returns: how many rows match
 */
guint
strata_session_update_search (StrataSession *self,
                              const guint32 *order,
                              guint          n_order)
{
  guint32 current;
  guint before;

  g_return_val_if_fail (STRATA_IS_SESSION (self), 0);

  if (self->search == NULL)
    return 0;
  current = strata_session_get_search_match (self);
  before = self->matches->len;
  find_matches (self, order, n_order);
  self->match_index = -1;
  for (guint i = 0; current != STRATA_CHANNEL_NONE && i < self->matches->len; i++)
    if (g_array_index (self->matches, guint32, i) == current)
      self->match_index = (int) i;
  if (self->matches->len != before)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH]);
  return self->matches->len;
}

const char *
strata_session_get_search (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), NULL);
  return self->search;
}

const guint32 *
strata_session_get_matches (StrataSession *self,
                            guint         *n_matches)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), NULL);

  *n_matches = self->matches->len;
  return (const guint32 *)(gpointer) self->matches->data;
}

/* Which of the matches is the current one, or -1. */
int
strata_session_get_match_index (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), -1);
  return self->match_index;
}

/**
 * strata_session_search_step:
 * @direction: > 0 for the next match, else the previous; wrapping round
 *
 * Selects the row of the next or previous match.
 *
 * Returns: its channel, or %STRATA_CHANNEL_NONE without matches
 */
guint32
strata_session_search_step (StrataSession *self,
                            int            direction)
{
  int n;

  g_return_val_if_fail (STRATA_IS_SESSION (self), STRATA_CHANNEL_NONE);

  n = (int) self->matches->len;
  if (n == 0)
    return STRATA_CHANNEL_NONE;
  if (self->match_index < 0)
    self->match_index = direction >= 0 ? 0 : n - 1;
  else
    self->match_index = (self->match_index + (direction >= 0 ? 1 : -1) + n) % n;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH_MATCH]);
  strata_session_select_row (self, g_array_index (self->matches, guint32, self->match_index));
  return g_array_index (self->matches, guint32, self->match_index);
}

guint32
strata_session_get_search_match (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), STRATA_CHANNEL_NONE);

  if (self->match_index < 0 || (guint) self->match_index >= self->matches->len)
    return STRATA_CHANNEL_NONE;
  return g_array_index (self->matches, guint32, self->match_index);
}

/* Trace ------------------------------------------------------------------- */

StrataTrace *
strata_session_get_trace (StrataSession *self)
{
  g_return_val_if_fail (STRATA_IS_SESSION (self), NULL);
  return self->trace;
}

/**
 * strata_session_set_trace:
 * @trace: (nullable): the trace the views show
 *
 * Another trace starts afresh: no history, selection, markers or
 * search, the whole extent shown and following its present (the
 * extent comes with strata_session_set_extent()).
 */
void
strata_session_set_trace (StrataSession *self,
                          StrataTrace   *trace)
{
  gboolean had_selection;

  g_return_if_fail (STRATA_IS_SESSION (self));
  g_return_if_fail (trace == NULL || STRATA_IS_TRACE (trace));

  if (!g_set_object (&self->trace, trace))
    return;
  g_array_set_size (self->back, 0);
  g_array_set_size (self->forward, 0);
  g_array_set_size (self->matches, 0);
  self->match_index = -1;
  g_clear_pointer (&self->search, g_free);
  had_selection = self->selection.kind != STRATA_SELECTION_NONE || self->n_markers > 0;
  self->selection.kind = STRATA_SELECTION_NONE;
  self->n_markers = 0;
  self->start = self->end = self->from = self->to = 0;
  set_following (self, TRUE);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
  notify_history (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH]);
  if (had_selection)
    {
      g_signal_emit (self, signals[SIGNAL_MARKERS_CHANGED], 0);
      selection_changed (self);
    }
}

/**
 * strata_session_continue_trace:
 * @trace: the finished trace of the one the views showed while it grew
 *
 * The same recording, now whole: its channels and times are those the
 * live views showed, so the range, history, selection, markers and
 * search stay; what answers from the trace (the panel) answers again.
 */
void
strata_session_continue_trace (StrataSession *self,
                               StrataTrace   *trace)
{
  g_return_if_fail (STRATA_IS_SESSION (self));
  g_return_if_fail (STRATA_IS_TRACE (trace));

  if (!g_set_object (&self->trace, trace))
    return;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
  selection_changed (self);
}

/* GObject ----------------------------------------------------------------- */

static void
strata_session_finalize (GObject *object)
{
  StrataSession *self = STRATA_SESSION (object);

  g_clear_object (&self->trace);
  g_clear_pointer (&self->back, g_array_unref);
  g_clear_pointer (&self->forward, g_array_unref);
  g_clear_pointer (&self->matches, g_array_unref);
  g_clear_pointer (&self->search, g_free);

  G_OBJECT_CLASS (strata_session_parent_class)->finalize (object);
}

static void
strata_session_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  StrataSession *self = STRATA_SESSION (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      g_value_set_object (value, self->trace);
      break;
    case PROP_CAN_GO_BACK:
      g_value_set_boolean (value, strata_session_get_can_go_back (self));
      break;
    case PROP_CAN_GO_FORWARD:
      g_value_set_boolean (value, strata_session_get_can_go_forward (self));
      break;
    case PROP_FOLLOWING:
      g_value_set_boolean (value, self->following);
      break;
    case PROP_SEARCH:
      g_value_set_string (value, self->search);
      break;
    case PROP_SEARCH_MATCH:
      g_value_set_uint (value, strata_session_get_search_match (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
strata_session_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  StrataSession *self = STRATA_SESSION (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      strata_session_set_trace (self, g_value_get_object (value));
      break;
    case PROP_FOLLOWING:
      strata_session_set_following (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
strata_session_class_init (StrataSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = strata_session_finalize;
  object_class->get_property = strata_session_get_property;
  object_class->set_property = strata_session_set_property;

  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL, STRATA_TYPE_TRACE,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_CAN_GO_BACK] =
    g_param_spec_boolean ("can-go-back", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_CAN_GO_FORWARD] =
    g_param_spec_boolean ("can-go-forward", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_FOLLOWING] =
    g_param_spec_boolean ("following", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_SEARCH] =
    g_param_spec_string ("search", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_SEARCH_MATCH] =
    g_param_spec_uint ("search-match", NULL, NULL, 0, G_MAXUINT32, STRATA_CHANNEL_NONE,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The range and the selection are more than one value each, changed
   * together: a signal after the change, not a notify per field. */
  signals[SIGNAL_RANGE_CHANGED] =
    g_signal_new ("range-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_SELECTION_CHANGED] =
    g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_MARKERS_CHANGED] =
    g_signal_new ("markers-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
strata_session_init (StrataSession *self)
{
  self->following = TRUE;
  self->min_span = DEFAULT_MIN_SPAN;
  self->back = g_array_new (FALSE, FALSE, sizeof (Range));
  self->forward = g_array_new (FALSE, FALSE, sizeof (Range));
  self->matches = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->match_index = -1;
}

StrataSession *
strata_session_new (void)
{
  return g_object_new (STRATA_TYPE_SESSION, NULL);
}
