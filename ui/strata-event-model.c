/* strata-event-model.c
 *
 * See strata-event-model.h. The rows are the activities of every CPU and
 * thread channel (tasks, interrupts and idle on CPU rows; states, wakeups
 * and other events on thread rows), ordered by start, then channel. The
 * buckets are time slices of the trace; one pass over the raw store counts
 * what each holds under the filter.
 *
 * A trace still loading has a model of its part complete when the model
 * was made: the activities that ended before its horizon then, which the
 * pass never changes, read through the tree's lock as the pass goes on
 * adding (strata_zoom_tree_query_activities()), in time slices so a
 * recount copies a slice of a channel at a time. Its channels are a copy:
 * the live table is replaced as the trace grows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-event-model.h"

#define N_BUCKETS 65536

struct _StrataEventItem
{
  GObject        parent_instance;
  StrataActivity activity;
  guint          position;
};

G_DEFINE_FINAL_TYPE (StrataEventItem, strata_event_item, G_TYPE_OBJECT)

static void
strata_event_item_class_init (StrataEventItemClass *klass)
{
}

static void
strata_event_item_init (StrataEventItem *self)
{
}

const StrataActivity *
strata_event_item_get_activity (StrataEventItem *self)
{
  g_return_val_if_fail (STRATA_IS_EVENT_ITEM (self), NULL);
  return &self->activity;
}

guint
strata_event_item_get_position (StrataEventItem *self)
{
  g_return_val_if_fail (STRATA_IS_EVENT_ITEM (self), 0);
  return self->position;
}

struct _StrataEventModel
{
  GObject              parent_instance;
  StrataTrace         *trace;
  StrataRawStore      *raw;
  const StrataChannel *channels;
  guint                n_channels;
  gint64               start;
  gint64               bucket_ns;
  guint64             *cum;        /* N_BUCKETS + 1 */
  guint                n_items;
  int                  kind;
  gint32               cpu;
  gint32               tid;
  gint64               cached_bucket;
  GArray              *cached;     /* StrataActivity, sorted */
  StrataZoomTree      *tree;       /* a live model's */
  StrataChannel       *own_channels; /* a live model's copy */
  gint64               until;      /* a live model: what ended before this */
  GArray              *scratch;    /* StrataActivity, a live model's slice */
};

/* A live model's recount reads a channel in this many slices of time. */
#define N_LIVE_SLICES 16

static GType
strata_event_model_get_item_type (GListModel *model)
{
  return STRATA_TYPE_EVENT_ITEM;
}

static guint
strata_event_model_get_n_items (GListModel *model)
{
  return STRATA_EVENT_MODEL (model)->n_items;
}

/* The CPU an activity was on, or -1. */
gint32
strata_event_activity_cpu (StrataEventModel     *self,
                           const StrataActivity *a)
{
  if (a->channel < self->n_channels && self->channels[a->channel].kind == STRATA_CHANNEL_CPU)
    return self->channels[a->channel].id;
  if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_RUNNING)
    return a->arg;
  return -1;
}

static gboolean
channel_wanted (StrataEventModel *self,
                guint32           channel)
{
  const StrataChannel *ch = &self->channels[channel];

  if (ch->kind == STRATA_CHANNEL_PROCESS)
    return FALSE;
  if (self->tid >= 0 && ch->kind == STRATA_CHANNEL_THREAD && ch->id != self->tid)
    return FALSE;
  if (self->cpu >= 0 && ch->kind == STRATA_CHANNEL_CPU && ch->id != self->cpu)
    return FALSE;
  return TRUE;
}

static gboolean
activity_wanted (StrataEventModel     *self,
                 const StrataActivity *a)
{
  const StrataChannel *ch = &self->channels[a->channel];

  if (self->kind != STRATA_EVENT_ANY_KIND && a->kind != self->kind)
    return FALSE;
  if (self->cpu >= 0 && strata_event_activity_cpu (self, a) != self->cpu)
    return FALSE;
  if (self->tid >= 0 && ch->kind == STRATA_CHANNEL_CPU &&
      !(a->kind == STRATA_ACTIVITY_TASK && a->arg == self->tid))
    return FALSE;
  return TRUE;
}

static gint64
bucket_of (StrataEventModel *self,
           gint64            t)
{
  gint64 b = (t - self->start) / self->bucket_ns;

  return CLAMP (b, 0, N_BUCKETS - 1);
}

typedef void (*ActivityFunc) (StrataEventModel     *self,
                              const StrataActivity *a,
                              gpointer              data);

/* The one walk over the raw store: @func for each activity the filter
 * wants that starts in [@t0, @t1), channel by channel and lane by lane
 * (so not in time order). The count and a bucket's rows both come from
 * here, so they cannot disagree. */
/* walk_starting_in() of a live model: copies, under the tree's lock, of
 * what ended before self->until. */
static void
walk_live (StrataEventModel *self,
           gint64            t0,
           gint64            t1,
           ActivityFunc      func,
           gpointer          data)
{
  gint64 lo = MAX (t0, self->start), hi = MIN (t1, self->until);
  gint64 step;

  if (hi <= lo)
    return;
  /* A bucket's walk is one slice; the whole trace's, N_LIVE_SLICES. */
  step = MAX ((self->until - self->start) / N_LIVE_SLICES, 1);
  for (guint32 c = 0; c < self->n_channels; c++)
    {
      if (!channel_wanted (self, c))
        continue;
      for (gint64 s0 = lo; s0 < hi; s0 += step)
        {
          gint64 s1 = MIN (s0 + step, hi);
          /* The first slice also takes what started before the trace did. */
          gint64 from = s0 == lo ? t0 : s0;

          g_array_set_size (self->scratch, 0);
          strata_zoom_tree_query_activities (self->tree, c, from, s1, FALSE, self->scratch);
          for (guint i = 0; i < self->scratch->len; i++)
            {
              const StrataActivity *a = &g_array_index (self->scratch, StrataActivity, i);

              if (a->start >= from && a->start < s1 && a->end < self->until && activity_wanted (self, a))
                func (self, a, data);
            }
        }
    }
}

static void
walk_starting_in (StrataEventModel *self,
                  gint64            t0,
                  gint64            t1,
                  ActivityFunc      func,
                  gpointer          data)
{
  if (self->tree != NULL)
    {
      walk_live (self, t0, t1, func, data);
      return;
    }
  for (guint32 c = 0; self->raw != NULL && c < self->n_channels; c++)
    {
      if (!channel_wanted (self, c))
        continue;
      for (guint lane = 0; lane < STRATA_RAW_STORE_N_LANES; lane++)
        {
          guint first = 0, end = 0;
          const StrataActivity *acts = strata_raw_store_get_lane (self->raw, c, lane, t0, t1, &first, &end);

          /* The lane's activities overlapping [t0, t1) are [first, end);
           * the ones starting inside are the list's. */
          for (guint i = first; acts != NULL && i < end; i++)
            if (acts[i].start >= t0 && acts[i].start < t1 && activity_wanted (self, &acts[i]))
              func (self, &acts[i], data);
        }
    }
}

static void
count_in_bucket (StrataEventModel     *self,
                 const StrataActivity *a,
                 gpointer              data)
{
  self->cum[bucket_of (self, a->start) + 1]++;
}

static void
recount (StrataEventModel *self)
{
  memset (self->cum, 0, sizeof (guint64) * (N_BUCKETS + 1));
  walk_starting_in (self, G_MININT64 / 2, G_MAXINT64 / 2, count_in_bucket, NULL);
  for (guint b = 0; b < N_BUCKETS; b++)
    self->cum[b + 1] += self->cum[b];
  self->n_items = (guint) MIN (self->cum[N_BUCKETS], G_MAXUINT);
  self->cached_bucket = -1;
}

static int
by_start_then_channel (gconstpointer pa,
                       gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->channel != b->channel)
    return a->channel < b->channel ? -1 : 1;
  return a->end < b->end ? -1 : a->end > b->end;
}

static void
keep_activity (StrataEventModel     *self,
               const StrataActivity *a,
               gpointer              data)
{
  g_array_append_vals (self->cached, a, 1);
}

/* The activities that start in bucket @b, sorted. */
static void
ensure_bucket (StrataEventModel *self,
               gint64            b)
{
  gint64 t0 = self->start + b * self->bucket_ns;
  gint64 t1 = b == N_BUCKETS - 1 ? G_MAXINT64 / 2 : t0 + self->bucket_ns;

  if (self->cached_bucket == b)
    return;
  if (b == 0)
    t0 = G_MININT64 / 2;

  g_array_set_size (self->cached, 0);
  walk_starting_in (self, t0, t1, keep_activity, NULL);
  g_array_sort (self->cached, by_start_then_channel);
  self->cached_bucket = b;
}

static gint64
bucket_for_position (StrataEventModel *self,
                     guint             position)
{
  gint64 lo = 0, hi = N_BUCKETS - 1;

  /* The last bucket whose first position is at most @position. */
  while (lo < hi)
    {
      gint64 mid = (lo + hi + 1) / 2;

      if (self->cum[mid] <= position)
        lo = mid;
      else
        hi = mid - 1;
    }
  return lo;
}

gboolean
strata_event_model_get_activity (StrataEventModel *self,
                                 guint             position,
                                 StrataActivity   *out)
{
  gint64 b;
  guint64 offset;

  g_return_val_if_fail (STRATA_IS_EVENT_MODEL (self), FALSE);

  if (position >= self->n_items)
    return FALSE;
  b = bucket_for_position (self, position);
  ensure_bucket (self, b);
  offset = position - self->cum[b];
  if (offset >= self->cached->len)
    return FALSE;
  *out = g_array_index (self->cached, StrataActivity, offset);
  return TRUE;
}

static gpointer
strata_event_model_get_item (GListModel *model,
                             guint       position)
{
  StrataEventModel *self = STRATA_EVENT_MODEL (model);
  StrataEventItem *item;
  StrataActivity a;

  if (!strata_event_model_get_activity (self, position, &a))
    return NULL;
  item = g_object_new (STRATA_TYPE_EVENT_ITEM, NULL);
  item->activity = a;
  item->position = position;
  return item;
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = strata_event_model_get_item_type;
  iface->get_n_items = strata_event_model_get_n_items;
  iface->get_item = strata_event_model_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (StrataEventModel, strata_event_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static void
strata_event_model_finalize (GObject *object)
{
  StrataEventModel *self = STRATA_EVENT_MODEL (object);

  g_clear_object (&self->trace);
  g_clear_pointer (&self->cum, g_free);
  g_clear_pointer (&self->cached, g_array_unref);
  g_clear_pointer (&self->scratch, g_array_unref);
  g_clear_pointer (&self->own_channels, g_free);
  G_OBJECT_CLASS (strata_event_model_parent_class)->finalize (object);
}

static void
strata_event_model_class_init (StrataEventModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = strata_event_model_finalize;
}

static void
strata_event_model_init (StrataEventModel *self)
{
  self->cum = g_new0 (guint64, N_BUCKETS + 1);
  self->cached = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->kind = STRATA_EVENT_ANY_KIND;
  self->cpu = -1;
  self->tid = -1;
  self->cached_bucket = -1;
}

/**
 * strata_event_model_new:
 * @trace: a loaded trace with its zoom tree
 */
StrataEventModel *
strata_event_model_new (StrataTrace *trace)
{
  StrataEventModel *self;
  StrataZoomTree *tree;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  self = g_object_new (STRATA_TYPE_EVENT_MODEL, NULL);
  self->trace = g_object_ref (trace);
  tree = strata_trace_get_zoom_tree (trace);
  self->raw = tree != NULL ? strata_zoom_tree_get_raw_store (tree) : NULL;
  self->channels = strata_trace_get_channels (trace, &self->n_channels);
  self->start = strata_trace_get_start (trace);
  self->bucket_ns = MAX ((strata_trace_get_end (trace) - self->start) / N_BUCKETS + 1, 1);
  recount (self);
  return self;
}

/**
 * strata_event_model_new_live:
 * @trace: a trace still loading, shown live (strata_trace_set_live())
 * @until: its horizon: the model holds what ended before it
 *
 * Made on the thread that shows @trace, from its channels so far.
 */
StrataEventModel *
strata_event_model_new_live (StrataTrace *trace,
                             gint64       until)
{
  StrataEventModel *self;
  const StrataChannel *channels;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);
  g_return_val_if_fail (strata_trace_get_zoom_tree (trace) != NULL, NULL);

  self = g_object_new (STRATA_TYPE_EVENT_MODEL, NULL);
  self->trace = g_object_ref (trace);
  self->tree = strata_trace_get_zoom_tree (trace);
  channels = strata_trace_get_channels (trace, &self->n_channels);
  self->own_channels = g_memdup2 (channels, sizeof (StrataChannel) * self->n_channels);
  self->channels = self->own_channels;
  self->start = strata_trace_get_start (trace);
  self->until = until;
  self->scratch = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->bucket_ns = MAX ((until - self->start) / N_BUCKETS + 1, 1);
  recount (self);
  return self;
}

StrataTrace *
strata_event_model_get_trace (StrataEventModel *self)
{
  g_return_val_if_fail (STRATA_IS_EVENT_MODEL (self), NULL);
  return self->trace;
}

/**
 * strata_event_model_set_filter:
 * @kind: a StrataActivityKind, or %STRATA_EVENT_ANY_KIND
 * @cpu: only what was on this CPU, or -1
 * @tid: only this thread (its row, and its time on CPU rows), or -1
 */
void
strata_event_model_set_filter (StrataEventModel *self,
                               int               kind,
                               gint32            cpu,
                               gint32            tid)
{
  guint old;

  g_return_if_fail (STRATA_IS_EVENT_MODEL (self));

  if (self->kind == kind && self->cpu == cpu && self->tid == tid)
    return;
  old = self->n_items;
  self->kind = kind;
  self->cpu = cpu;
  self->tid = tid;
  recount (self);
  g_list_model_items_changed (G_LIST_MODEL (self), 0, old, self->n_items);
}

/* The first position at or after @t. */
guint
strata_event_model_position_at (StrataEventModel *self,
                                gint64            t)
{
  gint64 b;
  guint lo = 0, hi;

  g_return_val_if_fail (STRATA_IS_EVENT_MODEL (self), 0);

  if (self->n_items == 0)
    return 0;
  b = bucket_of (self, t);
  ensure_bucket (self, b);
  hi = self->cached->len;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (g_array_index (self->cached, StrataActivity, mid).start < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (guint) MIN (self->cum[b] + lo, (guint64) self->n_items - 1);
}
