/* strata-trace.c
 *
 * One pass over a source: read batches, feed the kernel model, keep its
 * activities (sorted by start, then channel, so every consumer sees the
 * same order) and count events by name. A read error after some events is
 * kept as the trace's damage: the caller warns and goes on with what was
 * read. An error before any event is an error.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>

#include "strata-kernel-model.h"
#include "strata-trace.h"

#define BATCH_SIZE 4096

struct _StrataTrace
{
  GObject            parent_instance;
  StrataSource      *source;
  StrataStringPool  *strings;
  GArray            *channels;     /* StrataChannel */
  GArray            *switches;     /* guint64 per channel */
  GArray            *activities;   /* StrataActivity */
  GArray            *counts;       /* guint64 per name id */
  GArray            *event_counts; /* StrataEventCount, non-zero only */
  guint64            n_events;
  gint64             start;
  gint64             end;
  GError            *damage;
};

G_DEFINE_FINAL_TYPE (StrataTrace, strata_trace, G_TYPE_OBJECT)

static void
strata_trace_finalize (GObject *object)
{
  StrataTrace *self = (StrataTrace *)object;

  g_clear_object (&self->source);
  g_clear_pointer (&self->strings, strata_string_pool_unref);
  g_clear_pointer (&self->channels, g_array_unref);
  g_clear_pointer (&self->switches, g_array_unref);
  g_clear_pointer (&self->activities, g_array_unref);
  g_clear_pointer (&self->counts, g_array_unref);
  g_clear_pointer (&self->event_counts, g_array_unref);
  g_clear_error (&self->damage);

  G_OBJECT_CLASS (strata_trace_parent_class)->finalize (object);
}

static void
strata_trace_class_init (StrataTraceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = strata_trace_finalize;
}

static void
strata_trace_init (StrataTrace *self)
{
  self->channels = g_array_new (FALSE, FALSE, sizeof (StrataChannel));
  self->switches = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->activities = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->counts = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->event_counts = g_array_new (FALSE, FALSE, sizeof (StrataEventCount));
}

static void
collect_activity (const StrataActivity *activity,
                  gpointer              user_data)
{
  GArray *activities = user_data;

  g_array_append_vals (activities, activity, 1);
}

static int
compare_activities (gconstpointer a,
                    gconstpointer b)
{
  const StrataActivity *x = a;
  const StrataActivity *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->channel != y->channel)
    return x->channel < y->channel ? -1 : 1;
  if (x->end != y->end)
    return x->end < y->end ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return 0;
}

/**
 * strata_trace_load:
 * @path: a trace file in any format a plugin reads
 * @error: where to report a file that cannot be read at all
 *
 * Reads the whole trace through the kernel model. When the file is damaged
 * after some events, the trace is returned with what was read and the
 * damage is available from strata_trace_get_damage().
 *
 * Returns: (transfer full): the trace, or %NULL with @error set
 */
StrataTrace *
strata_trace_load (const char  *path,
                   GError     **error)
{
  g_autoptr(StrataTrace) self = NULL;
  g_autoptr(StrataKernelModel) model = NULL;
  g_autofree StrataEvent *batch = NULL;
  const StrataSourceInfo *info;
  const StrataChannel *channels;
  guint n_channels;
  GError *read_error = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (STRATA_TYPE_TRACE, NULL);
  self->source = strata_source_open (path, error);
  if (self->source == NULL)
    return NULL;

  self->strings = strata_string_pool_ref (strata_source_get_strings (self->source));
  info = strata_source_get_info (self->source);

  model = strata_kernel_model_new (self->strings, info->lost_per_cpu);
  strata_kernel_model_set_sink (model, collect_activity, self->activities);

  batch = g_new (StrataEvent, BATCH_SIZE);

  for (;;)
    {
      gssize n = strata_source_read_batch (self->source, batch, BATCH_SIZE, &read_error);

      if (n < 0)
        break;
      if (n == 0)
        break;

      for (gssize i = 0; i < n; i++)
        {
          guint32 name = batch[i].name;

          if (name >= self->counts->len)
            g_array_set_size (self->counts, name + 1);
          g_array_index (self->counts, guint64, name)++;
        }

      self->n_events += n;
      strata_kernel_model_feed (model, batch, n);
    }

  if (read_error != NULL)
    {
      if (self->n_events == 0)
        {
          g_propagate_error (error, read_error);
          return NULL;
        }
      self->damage = read_error;
    }

  self->start = info->first_ts == G_MAXINT64 ? 0 : info->first_ts;
  self->end = info->last_ts == G_MININT64 ? 0 : info->last_ts;

  strata_kernel_model_finish (model, self->end);

  channels = strata_kernel_model_get_channels (model, &n_channels);
  g_array_append_vals (self->channels, channels, n_channels);
  g_array_set_size (self->switches, n_channels);
  for (guint i = 0; i < n_channels; i++)
    g_array_index (self->switches, guint64, i) =
      strata_kernel_model_get_context_switches (model, i);

  g_array_sort (self->activities, compare_activities);

  for (guint i = 0; i < self->counts->len; i++)
    {
      guint64 count = g_array_index (self->counts, guint64, i);

      if (count > 0)
        {
          StrataEventCount ec = { i, count };
          g_array_append_val (self->event_counts, ec);
        }
    }

  return g_steal_pointer (&self);
}

StrataSource *
strata_trace_get_source (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  return self->source;
}

const StrataSourceInfo *
strata_trace_get_info (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  return strata_source_get_info (self->source);
}

StrataStringPool *
strata_trace_get_strings (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  return self->strings;
}

const char *
strata_trace_get_string (StrataTrace *self,
                         guint32      id)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), "");
  return strata_string_pool_get (self->strings, id);
}

const StrataChannel *
strata_trace_get_channels (StrataTrace *self,
                           guint       *n_channels)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);

  *n_channels = self->channels->len;
  return (const StrataChannel *) (gpointer) self->channels->data;
}

const StrataActivity *
strata_trace_get_activities (StrataTrace *self,
                             gsize       *n_activities)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);

  *n_activities = self->activities->len;
  return (const StrataActivity *) (gpointer) self->activities->data;
}

const StrataEventCount *
strata_trace_get_event_counts (StrataTrace *self,
                               guint       *n_counts)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);

  *n_counts = self->event_counts->len;
  return (const StrataEventCount *) (gpointer) self->event_counts->data;
}

guint64
strata_trace_get_n_events (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), 0);
  return self->n_events;
}

guint64
strata_trace_get_context_switches (StrataTrace *self,
                                   guint        channel)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), 0);

  if (channel >= self->switches->len)
    return 0;
  return g_array_index (self->switches, guint64, channel);
}

gint64
strata_trace_get_start (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), 0);
  return self->start;
}

gint64
strata_trace_get_end (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), 0);
  return self->end;
}

/**
 * strata_trace_get_damage:
 *
 * Returns: (nullable): the error that ended reading early, if any; the
 *   trace holds everything read before it
 */
const GError *
strata_trace_get_damage (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  return self->damage;
}
