/* strata-zoom-plain.c
 *
 * A plain chunk proven so instead of counted. Below the levels where
 * activities stop being trivial, a dense chunk is plain: aggregation does
 * not halve its items, nor any channel's (strata_zoom_tree_keep_paying_spans()),
 * and the raw store serves it. A level whose last chunk was plain counts
 * the next one (level_finish_count()): every piece goes through its lane's
 * run, a cache miss or two per piece and level, for a chunk that stores
 * nothing again; on the dense shape, five levels of eight and three
 * quarters of the levels' thread.
 *
 * The proof needs no lane state of the level. In a lane, an activity
 * that follows another in the chunk begins an item of its own at a level
 * of pixel p when it is not trivial (at least p long), or when it starts
 * more than p after the one before started: the run holding the one before
 * began no later than that one, and the rule (strata-aggregator.c) takes
 * no member that stretches a run past one pixel. So with s the previous
 * start in the lane (clipped to the chunk's start cs), an activity of
 * duration d starting at t is *doubtful* only when d < p and
 * t - max (s, cs) <= p. A lane's items are at least its members less its
 * doubtful ones; where no activity of the chunk is doubtful, every one is
 * an item of its own, and with min_reduction >= 2 neither the chunk nor a
 * channel pays: the chunk is plain, exactly as counting it finds.
 *
 * Where some are doubtful the chunk is decided when the pass ends, from
 * the raw store, over the channels of the doubtful ones only when the
 * doubtful are too few for the chunk to pay whole (its members are at
 * least its starts S, its items at least S less the doubtful U: whole
 * pays only when U * R >= S * (R - 1)); the same chunk as counting it
 * would store (over every channel with a start in it, listed as the proof
 * went, where the doubtful are too many). Deciding a chunk so costs tens
 * of microseconds a channel where counting it cost its pieces: after a
 * failed proof the level counts its plain chunks for a while (1, 2, 4 ..
 * 64 of them) before it tries again, proves only narrow chunks, and stops
 * when its failures have cost more than a credit its proofs earn.
 *
 * What it reads per piece is the previous start of the piece's lane,
 * shared by every level (a gint64 by lane id) and the pieces of the
 * buffer, already in the cache: no level's lane states.
 *
 * The durations d are of the pieces, clipped to their buffer (an
 * activity's start piece is no longer than the activity in any chunk that
 * holds its start), and a lane's previous start not seen is taken as the
 * chunk's start: a doubt too many is possible, a doubt too few is not.
 * Lanes hold activities one after the other (a nesting depth, or
 * instants), as the levels' walk already assumes (consume()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-block-packer.h"
#include "strata-chunk-keys.h"
#include "strata-raw-store-private.h"
#include "strata-spill-file.h"
#include "strata-zoom-chunk.h"
#include "strata-zoom-tree.h"
#include "strata-zoom-tree-internal.h"
#include "strata-zoom-tree-private.h"

/* The channels listed (of the doubtful activities, of the starts), at
 * most, before the list is sorted and made unique; if it is still more
 * than half of it then, any channel is a candidate (the chunk's decision
 * then reads all of the raw store's, and the level proves no more). */
#define PROOF_CHANNELS_MAX 65536

/* The most plain chunks a level counts after failed proofs before it
 * tries again. */
#define PROOF_WAIT_MAX  64

/* What a level's failed proofs may read from the raw store, in channels
 * (tens of microseconds each, where counting costs a few tenths of one a
 * piece): this many at first, and a channel more for every PROOF_EARNS
 * starts of the chunks it proved plain. */
#define PROOF_CREDIT    256
#define PROOF_EARNS     64

/* A level proves no chunk longer than this fraction of the trace so far:
 * the churn shape's coarse chunks (a whole trace of threads) had few
 * channels in the chunk before and a hundred thousand in theirs. */
#define PROOF_SPAN_PART 64

/* A failed proof is decided from the raw store a channel at a time, tens
 * of microseconds each, where counting the chunk cost its pieces only: a
 * level proves only chunks that follow one with at most this many
 * channels starting (the churn shape's coarse chunks have tens of
 * thousands; the dense shape's plain ones, up to its two thousand
 * threads). */
#define PROOF_CHANNELS_WIDE 4096

/* Nor chunks that follow one of more than this many times the density
 * threshold's members: the churn shape's coarse levels had few channels
 * in a chunk and ten times as many in the next. The dense shape's chunks
 * that prove plain have one or two thousand. */
#define PROOF_MEMBERS_WIDE 16

/* Whether @level proves the chunk it begins (a plain chunk's successor,
 * which it would count) rather than counts it. */
gboolean
strata_zoom_tree_level_begin_proof (StrataZoomTree *self,
                                    guint           rank)
{
  Level *level = &self->levels[rank];

  level->proving = FALSE;
  if (!level->counting || self->params.min_reduction < 2 || self->parameters.prove_plain == 0)
    return FALSE;
  if (level->n_proven + level->n_proofs_failed == 0)
    level->proof_credit = PROOF_CREDIT;
  if (level->last_starting > PROOF_CHANNELS_WIDE || level->proof_credit <= 0 ||
      level->last_members > (guint64) PROOF_MEMBERS_WIDE * self->params.density_threshold ||
      self->proof_origin == 0 ||
      (strata_zoom_geometry_chunk_start (&self->ranks, rank, level->chunk + 1) -
       strata_zoom_geometry_chunk_start (&self->ranks, rank, level->chunk)) * PROOF_SPAN_PART >
      strata_zoom_geometry_chunk_start (&self->ranks, rank, level->chunk) - (self->proof_origin - 1))
    return FALSE;
  if (level->proof_wait > 0)
    {
      level->proof_wait--;
      return FALSE;
    }

  level->proving = TRUE;
  level->counting = FALSE;
  level->proof_start = strata_zoom_geometry_chunk_start (&self->ranks, rank, level->chunk);
  level->proof_starts = 0;
  level->proof_doubts = 0;
  level->proof_any = FALSE;
  if (level->proof_channels == NULL)
    level->proof_channels = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (level->proof_starting == NULL)
    level->proof_starting = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_set_size (level->proof_channels, 0);
  g_array_set_size (level->proof_starting, 0);
  return TRUE;
}

static int
by_channel (gconstpointer pa,
            gconstpointer pb)
{
  guint32 a = *(const guint32 *) pa, b = *(const guint32 *) pb;

  return a < b ? -1 : a > b;
}

/* @channels sorted, each once. */
static void
channels_unique (GArray *channels)
{
  guint kept = 0;

  g_array_sort (channels, by_channel);
  for (guint i = 0; i < channels->len; i++)
    if (kept == 0 || g_array_index (channels, guint32, kept - 1) != g_array_index (channels, guint32, i))
      g_array_index (channels, guint32, kept++) = g_array_index (channels, guint32, i);
  g_array_set_size (channels, kept);
}

/* Adds @channel to @level's list @channels, unless it is the last one. */
static inline void
proof_list (Level   *level,
            GArray  *channels,
            guint32  channel)
{
  if (channels->len > 0 && g_array_index (channels, guint32, channels->len - 1) == channel)
    return;
  if G_UNLIKELY (channels->len == PROOF_CHANNELS_MAX)
    {
      channels_unique (channels);
      if (channels->len > PROOF_CHANNELS_MAX / 2)
        {
          level->proof_any = TRUE;
          return;
        }
    }
  g_array_append_val (channels, channel);
}

/* The activities that start in @buffer, for every level proving its
 * chunk (@proving, @n_proving). */
void
strata_zoom_tree_prove_buffer (StrataZoomTree *self,
                               const Buffer   *buffer,
                               Level * const  *proving,
                               guint           n_proving)
{
  const StrataActivity *pieces = (const StrataActivity *)(gpointer) buffer->pieces->data;
  const guint32 *ids = (const guint32 *)(gpointer) buffer->lanes->data;
  guint n = buffer->pieces->len;
  guint64 starts = 0;
  gint64 *last;

  if (self->last_start == NULL)
    self->last_start = strata_spilled_array_new (sizeof (gint64));
  last = (gint64 *)(gpointer) self->last_start->data;

  for (guint i = 0; i < n; i++)
    {
      const StrataActivity *a = &pieces[i];
      gint64 d = a->end - a->start, s;

      if (a->flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE)
        continue;
      if G_UNLIKELY (ids[i] >= self->last_start->len)
        {
          strata_spilled_array_set_size (self->last_start, MAX (ids[i] + 1, 2 * self->last_start->len));
          last = (gint64 *)(gpointer) self->last_start->data;
        }
      s = last[ids[i]];
      last[ids[i]] = a->start;
      starts++;

      for (guint k = 0; k < n_proving; k++)
        {
          Level *level = proving[k];
          gboolean doubtful = d < level->threshold &&
                              a->start - MAX (s, level->proof_start) <= level->threshold;

          level->proof_doubts += doubtful;
          if (level->proof_any)
            continue;
          proof_list (level, level->proof_starting, a->channel);
          if (doubtful)
            proof_list (level, level->proof_channels, a->channel);
        }
    }

  for (guint k = 0; k < n_proving; k++)
    proving[k]->proof_starts += starts;
}

/* The end of a chunk the level proved: plain, or left to the end of the
 * pass with the channels that may pay. */
void
strata_zoom_tree_level_finish_proof (StrataZoomTree *self,
                                     Level          *level)
{
  guint64 r = MAX (self->params.min_reduction, 1);

  level->last_members = level->proof_starts;
  if (level->proof_doubts == 0)
    {
      level->n_plain++;
      level->n_proven++;
      level->proof_fails = 0;
      level->proof_credit += (gint64) (level->proof_starts / PROOF_EARNS);
    }
  else
    {
      Deferred d = { level->chunk, NULL, TRUE, level->proof_doubts * r < level->proof_starts * (r - 1) };

      /* The channels of the doubtful activities may pay; where the
       * chunk may pay whole, every channel with a start counts; any
       * channel where the lists overflowed. */
      if (!level->proof_any)
        {
          GArray *c = d.whole_excluded ? level->proof_channels : level->proof_starting;

          channels_unique (level->proof_starting);
          level->last_starting = level->proof_starting->len;
          channels_unique (c);
          d.channels = g_array_sized_new (FALSE, FALSE, sizeof (guint32), c->len);
          g_array_append_vals (d.channels, c->data, c->len);
        }
      g_array_append_val (level->deferred, d);
      level->n_proofs_failed++;
      level->proof_fails++;
      level->proof_wait = 1u << MIN (level->proof_fails - 1, 6);
      level->proof_wait = MIN (level->proof_wait, PROOF_WAIT_MAX);
      level->proof_credit -= d.channels != NULL ? (gint64) d.channels->len : G_MAXINT32;
    }
  /* Lists that grew for a wide chunk do not stay. */
  if (level->proof_channels != NULL && level->proof_channels->len > 4 * 1024)
    g_clear_pointer (&level->proof_channels, g_array_unref);
  if (level->proof_starting != NULL && level->proof_starting->len > 4 * 1024)
    g_clear_pointer (&level->proof_starting, g_array_unref);

  /* Plain or not, the next chunk is likely alike. */
  level->last_plain = TRUE;
  level->proving = FALSE;
  level->chunk = -1;
  level->chunk_active = FALSE;
  level->counting = FALSE;
}

/* A chunk whose proof failed, decided from the raw store as counting it
 * would have decided it, and computed by the same call a counted chunk
 * worth storing is (compute_deferred_chunks()): whole, with every channel
 * that has a start in it, or the channels that pay; NULL (and counted
 * plain) when neither. */
Chunk *
strata_zoom_tree_compute_doubtful_chunk (StrataZoomTree *self,
                                         guint           rank,
                                         const Deferred *d)
{
  Level *level = &self->levels[rank];
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GArray) starting = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) paying = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint n_channels = d->channels != NULL ? d->channels->len : strata_raw_store_get_n_channels (self->raw);
  guint64 n_items = 0, members = 0;

  for (guint i = 0; i < n_channels; i++)
    {
      guint32 c = d->channels != NULL ? g_array_index (d->channels, guint32, i) : i;
      const StrataZoomItem *it;
      guint64 m = 0;
      gboolean starts = FALSE;

      if (i % 65536 == 65535)
        strata_raw_store_let_go_channels (self->raw);
      g_array_set_size (items, 0);
      strata_zoom_compute_chunk_full (self->raw, NULL, 0, &self->ranks, rank, d->index, c, items);
      it = (const StrataZoomItem *)(gpointer) items->data;
      for (guint k = 0; k < items->len; k++)
        {
          starts |= !(it[k].flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE);
          m += it[k].count;
        }
      if (items->len == 0 || !starts)
        continue;
      g_array_append_val (starting, c);
      n_items += items->len;
      members += m;
      if (strata_zoom_tree_channel_pays (self, items->len, m))
        g_array_append_val (paying, c);
    }
  strata_raw_store_let_go_channels (self->raw);

  if (!d->whole_excluded && strata_zoom_tree_worth_storing (self, starting->len, n_items, members))
    return strata_zoom_tree_compute_stored_chunk (self, rank, d->index, starting, FALSE);
  if (paying->len > 0)
    return strata_zoom_tree_compute_stored_chunk (self, rank, d->index, paying, FALSE);
  level->n_plain++;
  return NULL;
}

/* What the proofs hold, let go with the build's state. */
void
strata_zoom_tree_plain_clear (StrataZoomTree *self)
{
  g_clear_pointer (&self->last_start, strata_spilled_array_free);
  for (guint r = 0; r < self->n_ranks; r++)
    {
      g_clear_pointer (&self->levels[r].proof_channels, g_array_unref);
      g_clear_pointer (&self->levels[r].proof_starting, g_array_unref);
    }
}
