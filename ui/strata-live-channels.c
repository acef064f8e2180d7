/* strata-live-channels.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-live-channels.h"

/* Arrays that held more than this many elements are made again once
 * emptied: a burst (thousands of threads ending at once) leaves no large
 * block behind. */
#define TRIM_ABOVE 4096

struct _StrataLiveChannels
{
  GArray *fresh;        /* StrataChannel: new since the last take */
  GArray *changes;      /* StrataChannelChange: in order, since the last take */
  GArray *changed_ids;  /* guint32: ids below n_handed changed since the last hand-over */
  guint   n_handed;     /* channels handed over (taken, or waiting in fresh) */
  gboolean waiting;     /* a hand-over not taken yet */
};

StrataLiveChannels *
strata_live_channels_new (void)
{
  StrataLiveChannels *self = g_new0 (StrataLiveChannels, 1);

  self->fresh = g_array_new (FALSE, FALSE, sizeof (StrataChannel));
  self->changes = g_array_new (FALSE, FALSE, sizeof (StrataChannelChange));
  self->changed_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  return self;
}

void
strata_live_channels_free (StrataLiveChannels *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->fresh);
  g_array_unref (self->changes);
  g_array_unref (self->changed_ids);
  g_free (self);
}

static void
empty (GArray **array)
{
  if ((*array)->len > TRIM_ABOVE)
    {
      guint size = g_array_get_element_size (*array);

      g_array_unref (*array);
      *array = g_array_new (FALSE, FALSE, size);
    }
  else
    g_array_set_size (*array, 0);
}

/**
 * strata_live_channels_note:
 * @progress: a report, every one of the pass's in turn
 *
 * Notes which of the channels handed over so far @progress says changed.
 * Call it for every report that is not handed over.
 */
void
strata_live_channels_note (StrataLiveChannels        *self,
                           const StrataTraceProgress *progress)
{
  g_return_if_fail (self != NULL && progress != NULL);

  /* A channel newer than the last hand-over goes over whole, as it is
   * then. */
  for (guint i = 0; i < progress->n_changed; i++)
    if (progress->changed[i] < self->n_handed)
      g_array_append_val (self->changed_ids, progress->changed[i]);
}

static int
compare_ids (gconstpointer a,
             gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

/**
 * strata_live_channels_hand_over:
 * @progress: a report (notes it too)
 *
 * Readies what the showing side's table lacks of @progress's channels,
 * for strata_live_channels_take(); what an earlier hand-over readied and
 * was not taken yet stays before it.
 */
void
strata_live_channels_hand_over (StrataLiveChannels        *self,
                                const StrataTraceProgress *progress)
{
  GArray *ids;

  g_return_if_fail (self != NULL && progress != NULL);
  g_return_if_fail (progress->n_channels >= self->n_handed);

  strata_live_channels_note (self, progress);
  ids = self->changed_ids;

  /* Each changed channel once, as it is now. */
  g_array_sort (ids, compare_ids);
  for (guint i = 0; i < ids->len; i++)
    {
      guint32 id = g_array_index (ids, guint32, i);
      StrataChannelChange change = { 0 };

      if (i > 0 && g_array_index (ids, guint32, i - 1) == id)
        continue;
      change.id = id;
      change.channel = progress->channels[id];
      g_array_append_val (self->changes, change);
    }
  empty (&self->changed_ids);

  g_array_append_vals (self->fresh, progress->channels + self->n_handed,
                       progress->n_channels - self->n_handed);
  self->n_handed = progress->n_channels;
  self->waiting = TRUE;
}

/**
 * strata_live_channels_take:
 * @fresh: (out) (transfer full): the channels to append (StrataChannel)
 * @changes: (out) (transfer full): then the ones to copy over
 *   (StrataChannelChange), in order
 *
 * Returns: whether there was a hand-over since the last take; if not,
 *   @fresh and @changes are set to NULL
 */
gboolean
strata_live_channels_take (StrataLiveChannels  *self,
                           GArray             **fresh,
                           GArray             **changes)
{
  g_return_val_if_fail (self != NULL && fresh != NULL && changes != NULL, FALSE);

  *fresh = NULL;
  *changes = NULL;
  if (!self->waiting)
    return FALSE;

  /* Handed as they are, made afresh for the next: small unless a burst. */
  *fresh = g_steal_pointer (&self->fresh);
  *changes = g_steal_pointer (&self->changes);
  self->fresh = g_array_new (FALSE, FALSE, sizeof (StrataChannel));
  self->changes = g_array_new (FALSE, FALSE, sizeof (StrataChannelChange));
  self->waiting = FALSE;
  return TRUE;
}
