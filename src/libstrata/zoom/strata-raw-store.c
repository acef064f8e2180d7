/* strata-raw-store.c
 *
 * The raw store's lanes, in memory, spilled or mapped. Once a store holds
 * more than its spill threshold, a lane's oldest full block of
 * STRATA_RAW_STORE_BLOCK activities is handed to a block packer
 * (strata-block-packer.c: packed with the index codec on a thread of its
 * own and appended to an unlinked file) as soon as the lane has more
 * than a few blocks in memory, so only a short tail per lane, its fences
 * and one ticket per spilled block stay resident (and the packer's
 * bounded queue). The tails are held to a budget of bytes too: past it,
 * the tails of the channels appended to least recently (a thread that
 * exited never gets more) are spilled as short blocks. A short block is
 * always a lane's last: the next activity of that lane brings it back
 * first (from the packer's copy while it is queued, from the file after),
 * so every block but the last holds STRATA_RAW_STORE_BLOCK activities, a
 * lane's block is found by dividing, and the index it is written into is
 * the same bytes whatever was spilled. Spilled blocks are read back by
 * ticket into the reader's block buffer; the index writer copies their
 * bytes into the index as the packer wrote them.
 *
 * A lane that lives the whole trace (a CPU's, a long-running thread's)
 * would still keep a fence per FENCE_STEP activities and a ticket per
 * spilled block for ever: once it has a page's worth of full blocks
 * spilled, their tickets and fences go to the spill file as one
 * checksummed page, and the lane keeps a Page (where it is, its first
 * fence) per page besides the tickets and fences of its last, still
 * growing one. Look-ups bisect the pages' first fences, then one page,
 * read back into the calling thread's copy.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strata-block-packer.h"
#include "strata-error.h"
#include "strata-block-codec.h"
#include "strata-block-packer.h"
#include "strata-packed-array.h"
#include "strata-raw-store-internal.h"
#include "strata-raw-store-private.h"
#include "strata-spill-file.h"
#include "strata-spilled-array.h"
#include "strata-raw-store.h"

/**
 * strata_raw_store_new_with_parameters:
 * @parameters: the raw store's spill thresholds and budget, and the zstd
 *   level of its spilled blocks
 */
StrataRawStore *
strata_raw_store_new_with_parameters (const StrataParameters *parameters)
{
  StrataRawStore *self = g_new0 (StrataRawStore, 1);

  self->channels = strata_spilled_array_new (sizeof (Channel));
  g_mutex_init (&self->lent_lock);
  self->lent = g_array_new (FALSE, TRUE, sizeof (LentRange));
  self->unsealed = g_ptr_array_new ();
  self->spill_keep = SPILL_KEEP;
  self->spill_from = strata_parameter_or (parameters->raw_spill_from, SPILL_FROM);
  self->budget = strata_parameter_or (parameters->raw_budget, SPILL_BUDGET);
  self->page_blocks = (guint) strata_parameter_or (parameters->raw_page_blocks, PAGE_BLOCKS);
  self->spill_queue = strata_parameter_or (parameters->raw_spill_queue, SPILL_QUEUE);
  self->zstd_level = parameters->zstd_level != STRATA_PARAMETER_ZSTD_DEFAULT
                       ? parameters->zstd_level : STRATA_INDEX_ZSTD_LEVEL;
  self->page_fences = self->page_blocks * (STRATA_RAW_STORE_BLOCK / FENCE_STEP);
  self->block_copies = (guint) strata_parameter_or (parameters->raw_block_copies, BLOCK_COPIES);

  return self;
}

/* A raw store with the parameters the environment sets. */
StrataRawStore *
strata_raw_store_new (void)
{
  g_auto(StrataParameters) parameters;

  strata_parameters_init_from_environment (&parameters);
  return strata_raw_store_new_with_parameters (&parameters);
}

/* What the store holds in memory, in all (strata_raw_store_get_resident_bytes())
 * and, if @parts, by kind. */
typedef struct
{
  guint64 channels;         /* the table of channels, their Lanes */
  guint64 tails;            /* activities in memory */
  guint64 records;          /* fences and tickets in memory */
  guint64 pages;            /* the lanes' Page entries */
  guint64 copies;           /* the readers' copies of seals and pages */
  guint64 packer;           /* queued blocks, the packer's records */
} ResidentParts;

static inline guint64 lane_alloc (guint len);

static guint64
resident_parts (StrataRawStore *self,
                ResidentParts  *parts)
{
  ResidentParts p = { 0 };

  p.channels = sizeof *self + (guint64) self->channels->len * sizeof (Channel);
  for (guint i = 0; i < self->channels->len; i++)
    {
      Channel *ch = &strata_spilled_array_index (self->channels, Channel, i);

      if (ch->present & SEALED)
        continue;
      p.channels += (guint64) __builtin_popcount (ch->present) * sizeof (Lane);
      for (guint k = 0; k < (guint) __builtin_popcount (ch->present); k++)
        {
          p.tails += lane_alloc (ch->lanes[k].n_acts);
          p.records += (guint64) ch->lanes[k].fences_alloc * sizeof (Fence) +
                       (guint64) ch->lanes[k].spilled_alloc * sizeof (StrataRawStoreSpilled);
          p.pages += (guint64) ch->lanes[k].pages_alloc * sizeof (Page);
        }
      if ((i + 1) % LET_GO_EVERY == 0)
        strata_spilled_array_let_go (self->channels, i);
    }
  /* The readers' copies of seals and pages. */
  g_mutex_lock (&self->lent_lock);
  for (guint i = 0; i < self->unsealed->len; i++)
    {
      const Unsealed *u = g_ptr_array_index (self->unsealed, i);

      p.copies += sizeof *u + u->seal.size + u->page_size + u->block_size;
      if (u->blocks != NULL)
        p.copies += (guint64) self->block_copies * sizeof (BlockCopy);
    }
  g_mutex_unlock (&self->lent_lock);
  if (self->packer != NULL)
    {
      StrataBlockPackerStats stats;

      /* What waits to be packed, and the packer's record per block. */
      strata_block_packer_get_stats (self->packer, &stats);
      p.packer = stats.queued + stats.records;
    }
  if (self->seal_stage != NULL)
    p.records += SEAL_STAGE;
  if (parts != NULL)
    *parts = p;
  return p.channels + p.tails + p.records + p.pages + p.copies + p.packer;
}

/**
 * strata_raw_store_let_go_channels:
 *
 * For a loop over every channel's lanes, every so often: the channels'
 * entries leave the process's memory (they are in a spill file, and come
 * back as they are read again).
 */
void
strata_raw_store_let_go_channels (StrataRawStore *self)
{
  g_return_if_fail (self != NULL);

  if (self->map == NULL)
    strata_spilled_array_let_go (self->channels, self->channels->len);
}

void
strata_raw_store_free (StrataRawStore *self)
{
  if (self == NULL)
    return;
  if (self->map == NULL && self->channels->len > 0)
    {
      ResidentParts p;
      guint64 total = resident_parts (self, &p);

      g_debug ("raw store: %" G_GUINT64_FORMAT " kB resident at its end: %" G_GUINT64_FORMAT
               " kB channels and lanes, %" G_GUINT64_FORMAT " kB activities, %" G_GUINT64_FORMAT
               " kB fences and tickets, %" G_GUINT64_FORMAT " kB pages' entries, %" G_GUINT64_FORMAT
               " kB readers' copies, %" G_GUINT64_FORMAT " kB the packer's",
               total >> 10, p.channels >> 10, p.tails >> 10, p.records >> 10, p.pages >> 10,
               p.copies >> 10, p.packer >> 10);
    }
  if (self->map != NULL)
    {
      for (guint i = 0; self->made != NULL && i < self->made->len; i++)
        {
          MappedLane *lane = g_ptr_array_index (self->made, i);

          strata_packed_array_clear (&lane->acts);
          strata_checked_array_clear (&lane->fences);
          g_free (lane);
        }
      g_clear_pointer (&self->made, g_ptr_array_unref);
      g_free (self->mapped);
      strata_checked_array_clear (&self->dir);
      strata_checked_array_clear (&self->channel_dir);
      strata_index_map_unref (self->map);
    }

  for (guint i = 0; i < self->channels->len; i++)
    {
      Channel *ch = &strata_spilled_array_index (self->channels, Channel, i);

      if (ch->present & SEALED)
        continue;
      for (guint k = 0; k < (guint) __builtin_popcount (ch->present); k++)
        {
          g_free (ch->lanes[k].acts);
          g_free (ch->lanes[k].fences);
          g_free (ch->lanes[k].spilled);
          g_free (ch->lanes[k].pages);
        }
      g_free (ch->lanes);
      if ((i + 1) % LET_GO_EVERY == 0)
        strata_spilled_array_let_go (self->channels, i);
    }
  if (self->packer != NULL)
    {
      StrataBlockPackerStats stats;

      strata_block_packer_get_stats (self->packer, &stats);
      g_debug ("raw store: %" G_GUINT64_FORMAT " blocks to the packer, %" G_GUINT64_FORMAT
               " packed on the adder's thread (the queue full), %" G_GUINT64_FORMAT " waits; peak queue %"
               G_GSIZE_FORMAT " bytes; %" G_GUINT64_FORMAT " activities brought back; %" G_GUINT64_FORMAT
               " channels sealed; %" G_GUINT64_FORMAT " pages of lanes' records written, %d read back (%u threads);"
               " %d spilled blocks read, %d of them from a thread's copy",
               stats.n_blocks, stats.n_helped, stats.n_waits, stats.peak_queued,
               self->n_unspilled, self->n_sealed, self->n_pages, g_atomic_int_get (&self->n_page_reads), self->unsealed->len,
               g_atomic_int_get (&self->n_block_reads), g_atomic_int_get (&self->n_block_copied));
    }
  g_clear_pointer (&self->windows, strata_file_windows_free);
  g_free (self->seal_stage);
  g_clear_pointer (&self->staged_channels, g_array_unref);
  g_clear_pointer (&self->seal_scratch, g_byte_array_unref);
  if (self->own_packer)
    g_clear_pointer (&self->packer, strata_block_packer_free);
  strata_spilled_array_free (self->channels);
  for (guint i = 0; i < self->lent->len; i++)
    g_free (g_array_index (self->lent, LentRange, i).acts);
  g_array_unref (self->lent);
  for (guint i = 0; i < self->unsealed->len; i++)
    {
      Unsealed *u = g_ptr_array_index (self->unsealed, i);

      g_free (u->seal.bytes);
      for (guint k = 0; k < PAGE_COPIES; k++)
        g_free (u->page[k]);
      for (guint k = 0; u->blocks != NULL && k < self->block_copies; k++)
        g_free (u->blocks[k].acts);
      g_free (u->blocks);
      g_free (u);
    }
  g_ptr_array_unref (self->unsealed);
  g_mutex_clear (&self->lent_lock);
  g_free (self);
}

static guint
lane_of (const StrataActivity *a)
{
  if (strata_activity_is_instant (a))
    return INSTANT_LANE;
  return MIN (strata_activity_get_depth (a), N_DEPTHS - 1);
}

/* The activities of the lane in the spill file, before those in memory:
 * every block there but the last is full (those of the pages are). */
static guint
lane_base (StrataRawStore *self,
           const Lane     *lane)
{
  guint paged = lane->n_pages * self->page_blocks * STRATA_RAW_STORE_BLOCK;

  if (lane->n_spilled == 0)
    return paged;
  return paged + (lane->n_spilled - 1) * STRATA_RAW_STORE_BLOCK + lane->spilled[lane->n_spilled - 1].n;
}


/* What a lane's array of @len activities has allocated. A lane only
 * grows until it is replaced by a fresh array of what it keeps (it is
 * never shrunk in place), so that is grow_array()'s rounding of its
 * length: the next power of two of its bytes. */
static inline guint64
lane_alloc (guint len)
{
  guint64 bytes = (guint64) len * sizeof (StrataActivity);

  if (len == 0)
    return 0;
  return MAX (16, bytes <= 1 ? 1 : G_GUINT64_CONSTANT (1) << g_bit_storage (bytes - 1));
}

/* The first activity of @lane that ends after @t, or has no length and is
 * at @t (for an instant lane: the first at or after @t). Ends are in order
 * because a lane's activities do not overlap, so the test is monotonic. */
static inline gboolean
before_time (gint64   start,
             gint64   end,
             gint64   t,
             gboolean instants)
{
  return instants ? start < t : (end < t || (end == t && start < t));
}

static MappedLane *
mapped_lane (StrataRawStore *self,
             guint32         channel,
             guint           l)
{
  const StrataIndexChannelLanes *entry;
  const StrataIndexLane *rec;
  MappedLane *lane, *fresh;
  guint64 i;

  if (!strata_checked_array_check (&self->channel_dir, channel, channel + 1))
    return NULL;
  entry = (const StrataIndexChannelLanes *)(gconstpointer)(self->channel_dir.data +
                                                           (gsize) channel * sizeof (StrataIndexChannelLanes));
  if (!(entry->present & (1u << l)))
    return NULL;
  if ((entry->present & ~LANES) != 0 ||
      (guint64) entry->first + __builtin_popcount (entry->present) > self->n_mapped_lanes)
    {
      strata_index_map_note_damage (self->map, "raw store: the lanes of channel %u are out of bounds", channel);
      return NULL;
    }
  i = (guint64) entry->first + __builtin_popcount (entry->present & ((1u << l) - 1));
  if ((lane = g_atomic_pointer_get (&self->mapped[i])) != NULL)
    return lane;

  if (!strata_checked_array_check (&self->dir, i, i + 1))
    return NULL;
  rec = (const StrataIndexLane *)(gconstpointer)(self->dir.data + i * sizeof (StrataIndexLane));

  fresh = g_new0 (MappedLane, 1);
  if (rec->n > 0 &&
      (rec->n_fences != (rec->n + FENCE_STEP - 1) / FENCE_STEP ||
       !strata_packed_array_init (&fresh->acts, self->map, rec->offset, rec->sums_offset, rec->n,
                                  sizeof (StrataActivity), STRATA_INDEX_ACTIVITY_BLOCK, "raw store") ||
       !strata_checked_array_init (&fresh->fences, self->map, rec->fences_offset, rec->fence_sums_offset,
                                   rec->n_fences, sizeof (Fence), STRATA_INDEX_FENCE_BLOCK, "raw store fences")))
    {
      fresh->bad = TRUE;
      strata_index_map_note_damage (self->map, "raw store: lane %u of channel %u is out of bounds", l, channel);
    }

  if (g_atomic_pointer_compare_and_exchange (&self->mapped[i], NULL, fresh))
    {
      g_mutex_lock (&self->lent_lock);
      g_ptr_array_add (self->made, fresh);
      g_mutex_unlock (&self->lent_lock);
    }
  else
    {
      strata_packed_array_clear (&fresh->acts);
      strata_checked_array_clear (&fresh->fences);
      g_free (fresh);
    }
  return g_atomic_pointer_get (&self->mapped[i]);
}

/* @size bytes from @from on of the seal at @appended (a sealed channel's),
 * from the stage while it is there. */
static gboolean
seal_read_at (StrataRawStore *self,
              guint64         appended,
              gsize           from,
              gpointer        out,
              gsize           size)
{
  if (appended & SEAL_STAGED)
    {
      guint64 at = (appended & ~SEAL_STAGED) + from;

      if (at > self->seal_staged || size > self->seal_staged - at)
        return FALSE;
      memcpy (out, self->seal_stage + at, size);
      return TRUE;
    }
  return strata_raw_store_spill_read_at (self, appended + from, out, size);
}

/* The seal of sealed channel @channel read back into @u. A seal that
 * cannot be read back is fatal, as a spilled block is (unspill_block()):
 * the store would answer without that thread's activities. */
static void
unseal_into (StrataRawStore *self,
             guint32         channel,
             Seal           *u)
{
  const Channel *ch = &strata_spilled_array_index (self->channels, Channel, channel);
  SealHeader h;
  const guint8 *p;
  guint k = 0;

  u->channel = G_MAXUINT32;
  g_clear_pointer (&u->bytes, g_free);
  if (!seal_read_at (self, ch->appended, 0, &h, sizeof h) || h.magic != SEAL_MAGIC ||
      h.n_lanes != (guint) __builtin_popcount (ch->present & LANES) || h.size > G_MAXUINT32 ||
      h.size < (guint64) h.n_lanes * sizeof (SealLane))
    g_error ("raw store: the records of exited channel %u cannot be read back", channel);
  u->bytes = g_malloc (MAX (h.size, 1));
  /* (The sizes are read by the accounting, on any thread.) */
  g_mutex_lock (&self->lent_lock);
  u->size = h.size;
  g_mutex_unlock (&self->lent_lock);
  if (!seal_read_at (self, ch->appended, sizeof h, u->bytes, h.size) ||
      strata_index_checksum (u->bytes, h.size) != h.checksum)
    g_error ("raw store: the records of exited channel %u cannot be read back", channel);

  p = u->bytes + (gsize) h.n_lanes * sizeof (SealLane);
  for (guint l = 0; l < N_LANES; l++)
    if (ch->present & (1u << l))
      {
        const SealLane *sl = (const SealLane *)(gconstpointer) (u->bytes + (gsize) k * sizeof (SealLane));
        Lane *lane = &u->lanes[k++];

        memset (lane, 0, sizeof *lane);
        lane->n_pages = sl->n_pages;
        lane->n_spilled = sl->n_spilled;
        lane->n_fences = sl->n_fences;
        if ((guint64) (p - u->bytes) + (guint64) sl->n_pages * sizeof (Page) +
            ((guint64) sl->n_spilled + sl->n_fences) * sizeof (Fence) > h.size)
          g_error ("raw store: the records of exited channel %u cannot be read back", channel);
        lane->pages = (Page *)(gpointer) p;
        p += (gsize) sl->n_pages * sizeof (Page);
        lane->spilled = (StrataRawStoreSpilled *)(gpointer) p;
        p += (gsize) sl->n_spilled * sizeof (StrataRawStoreSpilled);
        lane->fences = (Fence *)(gpointer) p;
        p += (gsize) sl->n_fences * sizeof (Fence);
      }
  u->channel = channel;
}

/* The calling thread's Unsealed (made at its first read). */
static Unsealed *
thread_copies (StrataRawStore *self)
{
  GThread *thread = g_thread_self ();
  Unsealed *u = NULL;

  g_mutex_lock (&self->lent_lock);
  for (guint i = 0; i < self->unsealed->len && u == NULL; i++)
    if (((Unsealed *) g_ptr_array_index (self->unsealed, i))->thread == thread)
      u = g_ptr_array_index (self->unsealed, i);
  if (u == NULL)
    {
      u = g_new0 (Unsealed, 1);
      u->thread = thread;
      u->seal.channel = G_MAXUINT32;
      for (guint k = 0; k < PAGE_COPIES; k++)
        u->page_at[k] = G_MAXUINT64;
      g_ptr_array_add (self->unsealed, u);
    }
  g_mutex_unlock (&self->lent_lock);
  return u;
}

/* The bytes of @page after its header: its page_blocks tickets, then its
 * page_fences fences, in one of the calling thread's copies (valid until
 * the thread reads another page). A page that cannot be read back is
 * fatal, as a seal is: the look-up would answer without those
 * activities. */
static const guint8 *
read_page (StrataRawStore *self,
           const Page     *page)
{
  Unsealed *u = thread_copies (self);
  gsize size = (gsize) self->page_blocks * sizeof (StrataRawStoreSpilled) +
               (gsize) self->page_fences * sizeof (Fence);
  PageHeader h;
  guint k;

  k = (guint) ((page->offset * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> (64 - PAGE_COPIES_LOG));
  if (u->page_at[k] == page->offset)
    return u->page[k];
  u->page_at[k] = G_MAXUINT64;
  if (u->page[k] == NULL)
    {
      u->page[k] = g_malloc (size);
      g_mutex_lock (&self->lent_lock);
      u->page_size += size;
      g_mutex_unlock (&self->lent_lock);
    }
  if (!strata_raw_store_spill_read_at (self, page->offset, &h, sizeof h) || h.magic != PAGE_MAGIC ||
      h.n_spilled != self->page_blocks || h.n_fences != self->page_fences ||
      !strata_raw_store_spill_read_at (self, page->offset + sizeof h, u->page[k], size) ||
      strata_index_checksum (u->page[k], size) != h.checksum)
    g_error ("raw store: a page of a lane's records at %" G_GUINT64_FORMAT " cannot be read back", page->offset);
  u->page_at[k] = page->offset;
  g_atomic_int_inc (&self->n_page_reads);
  return u->page[k];
}

/* The calling thread's copy of sealed @channel's lane @l: valid until the
 * thread reads another sealed channel. */
static Lane *
unsealed_lane (StrataRawStore *self,
               guint32         channel,
               guint           l)
{
  const Channel *ch = &strata_spilled_array_index (self->channels, Channel, channel);
  Unsealed *u;

  if (!(ch->present & (1u << l)))
    return NULL;
  u = thread_copies (self);
  if (u->seal.channel != channel)
    unseal_into (self, channel, &u->seal);
  return &u->seal.lanes[__builtin_popcount (ch->present & ((1u << l) - 1))];
}

/* The lane @l of @channel, or FALSE when it has none (or is damaged).
 * Only the fields are set, not the block buffer. */
static gboolean
lane_view (StrataRawStore *self,
           guint32         channel,
           guint           l,
           LaneView       *v)
{
  v->acts = NULL;
  v->n = 0;
  v->fences = NULL;
  v->n_fences = 0;
  v->packed = NULL;
  v->fences_check = NULL;
  v->block = G_MAXUINT64;
  v->block_n = 0;
  v->spilled = NULL;
  v->base = 0;
  v->pages = NULL;
  v->n_pages = 0;
  v->page_blocks = self->page_blocks;
  v->store = self;
  v->copies = NULL;

  if (self->map != NULL)
    {
      MappedLane *lane;

      if (channel >= self->n_mapped || (lane = mapped_lane (self, channel, l)) == NULL ||
          lane->bad || lane->acts.n == 0)
        return FALSE;
      v->n = (guint) lane->acts.n;
      v->fences = lane->fences.data;
      v->n_fences = (guint) lane->fences.n;
      v->packed = &lane->acts;
      v->fences_check = &lane->fences;
      return TRUE;
    }

  if (channel >= self->channels->len)
    return FALSE;
  {
    Channel *ch = &strata_spilled_array_index (self->channels, Channel, channel);
    Lane *lane = G_UNLIKELY (ch->present & SEALED) ? unsealed_lane (self, channel, l) : channel_lane (ch, l);

    if (lane == NULL || (lane->n_acts == 0 && lane->n_spilled == 0 && lane->n_pages == 0))
      return FALSE;
    v->acts = lane->acts;
    v->spilled = lane->spilled;
    v->base = lane_base (self, lane);
    v->pages = lane->pages;
    v->n_pages = lane->n_pages;
    v->n = v->base + lane->n_acts;
    v->fences = lane->fences;
    v->n_fences = lane->n_fences;
  }
  return TRUE;
}

/* Spilled block @rec into @out (room for STRATA_RAW_STORE_BLOCK): from
 * the calling thread's copy of it, else read from the packer and copied
 * (over the copy of another block that hashes to the same place).
 * Returns how many activities, 0 if it cannot be read back. */
static guint
read_spilled (StrataRawStore              *self,
              LaneView                    *v,
              const StrataRawStoreSpilled *rec,
              StrataActivity              *out)
{
  Unsealed *u;
  BlockCopy *copy;
  guint n;

  g_atomic_int_inc (&self->n_block_reads);
  if (self->block_copies == 0 || g_thread_self () == self->builder)
    return strata_raw_store_read_spilled_block (self, rec->ticket, out);
  if (v->copies == NULL)
    v->copies = thread_copies (self);
  u = v->copies;
  if (u->blocks == NULL)
    {
      u->blocks = g_new0 (BlockCopy, self->block_copies);
      for (guint k = 0; k < self->block_copies; k++)
        u->blocks[k].ticket = G_MAXUINT64;
    }
  copy = &u->blocks[(rec->ticket * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) >> 32) % self->block_copies];
  if (copy->ticket == rec->ticket)
    {
      memcpy (out, copy->acts, (gsize) copy->n * sizeof (StrataActivity));
      g_atomic_int_inc (&self->n_block_copied);
      return copy->n;
    }

  n = strata_raw_store_read_spilled_block (self, rec->ticket, out);
  if (n == 0 || n != rec->n)
    return n;
  if (copy->acts == NULL)
    {
      copy->acts = g_new (StrataActivity, STRATA_RAW_STORE_BLOCK);
      /* (The sizes are read by the accounting, on any thread.) */
      g_mutex_lock (&self->lent_lock);
      u->block_size += STRATA_RAW_STORE_BLOCK * sizeof (StrataActivity);
      g_mutex_unlock (&self->lent_lock);
    }
  memcpy (copy->acts, out, (gsize) n * sizeof (StrataActivity));
  copy->ticket = rec->ticket;
  copy->n = n;
  return n;
}

/* Activity @i of a lane in memory that is among its spilled ones. */
static const StrataActivity *
spilled_get (LaneView *v,
             guint     i)
{
  guint64 b = i / STRATA_RAW_STORE_BLOCK;

  if (b != v->block)
    {
      guint64 paged = (guint64) v->n_pages * v->page_blocks;
      StrataRawStore *store = v->store;
      StrataRawStoreSpilled rec;

      if (b >= paged)
        rec = ((const StrataRawStoreSpilled *) v->spilled)[b - paged];
      else
        rec = ((const StrataRawStoreSpilled *)(gconstpointer)
               read_page (store, (const Page *) v->pages + b / v->page_blocks))[b % v->page_blocks];
      v->block_n = read_spilled (store, v, &rec, v->buf);
      if (v->block_n != rec.n)
        v->block_n = 0;
      v->block = b;
    }
  return i - b * STRATA_RAW_STORE_BLOCK < v->block_n ? &v->buf[i - b * STRATA_RAW_STORE_BLOCK] : NULL;
}

/* Activity @i of the lane, or NULL when it is past the end or in a block
 * found damaged. A packed lane's block is decoded into the view's buffer. */
static inline const StrataActivity *
lane_get (LaneView *v,
          guint     i)
{
  guint64 b;
  guint off;

  if (i >= v->n)
    return NULL;
  if (v->packed == NULL && i >= v->base)
    return &v->acts[i - v->base];
  if (v->packed == NULL)
    return spilled_get (v, i);

  b = i / STRATA_RAW_STORE_BLOCK;
  if (b != v->block)
    {
      v->block_n = strata_packed_array_read_block (v->packed, b, v->buf);
      v->block = b;
    }
  off = (guint) (i - b * STRATA_RAW_STORE_BLOCK);
  return off < v->block_n ? &v->buf[off] : NULL;
}

/* G_MAXUINT when the lane was found damaged. */
static guint
lower_bound (LaneView *v,
             gint64    t,
             gboolean  instants)
{
  const Fence *fences = v->fences;
  guint page_fences = v->page_blocks * (STRATA_RAW_STORE_BLOCK / FENCE_STEP);
  guint paged = v->n_pages * page_fences;
  guint lo = 0, hi = v->n;

  /* The block: the last fence before t starts it, the next one ends it. */
  if (paged + v->n_fences > 1)
    {
      guint flo = 0, fhi = paged + v->n_fences;
      const Fence *page = NULL;
      guint page_first = 0;

      /* The page: the last one whose first fence is before t has the
       * last fence before t, unless the fences after the pages do. */
      if (v->n_pages > 0)
        {
          const Page *pages = v->pages;
          guint plo = 0, phi = v->n_pages;

          while (plo < phi)
            {
              guint mid = plo + (phi - plo) / 2;

              if (before_time (pages[mid].start, pages[mid].end, t, instants))
                plo = mid + 1;
              else
                phi = mid;
            }
          if (plo == 0)
            fhi = 0;
          else
            {
              flo = page_first = (plo - 1) * page_fences;
              if (plo < v->n_pages)
                fhi = plo * page_fences;
              page = (const Fence *)(gconstpointer)
                     (read_page (v->store, &pages[plo - 1]) +
                      (gsize) v->page_blocks * sizeof (StrataRawStoreSpilled));
            }
        }

      while (flo < fhi)
        {
          guint mid = flo + (fhi - flo) / 2;
          const Fence *f = mid < paged ? &page[mid - page_first] : &fences[mid - paged];

          if (v->fences_check != NULL && !strata_checked_array_check (v->fences_check, mid, mid + 1))
            return G_MAXUINT;
          if (before_time (f->start, f->end, t, instants))
            flo = mid + 1;
          else
            fhi = mid;
        }
      lo = flo > 0 ? (flo - 1) * FENCE_STEP : 0;
      hi = MIN (v->n, (gsize) flo * FENCE_STEP + 1);
    }

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const StrataActivity *a = lane_get (v, mid);

      if (a == NULL)
        return G_MAXUINT;
      if (before_time (a->start, a->end, t, instants))
        lo = mid + 1;
      else
        hi = mid;
    }

  return lo;
}

/* The fences of the activities in memory (those spilled keep theirs:
 * @base is a multiple of the block, so of FENCE_STEP; those of the
 * pages are before @base). */
static void
rebuild_fences (StrataRawStore *self,
                Lane           *lane,
                guint           base)
{
  lane->n_fences = base / FENCE_STEP - lane->n_pages * self->page_fences;
  for (guint i = 0; i < lane->n_acts; i += FENCE_STEP)
    {
      const StrataActivity *a = &lane->acts[i];

      lane->fences = grow_array (lane->fences, &lane->fences_alloc, lane->n_fences + 1, sizeof (Fence));
      lane->fences[lane->n_fences++] = (Fence) { a->start, a->end };
    }
}

/* The lane's first page_blocks tickets in memory (of full blocks: a
 * short one is only ever a lane's last) and their fences to the spill
 * file as a page; the rest of them moved to arrays of about a page's
 * worth, which they grow into until the next page (the old ones are
 * freed whole). FALSE, and no more pages, if it could not be written:
 * the lane keeps them in memory. */
static gboolean
page_out (StrataRawStore *self,
          Lane           *rl)
{
  gsize records = (gsize) self->page_blocks * sizeof (StrataRawStoreSpilled);
  gsize fences = (gsize) self->page_fences * sizeof (Fence);
  g_autofree guint8 *bytes = NULL;
  PageHeader h = { PAGE_MAGIC, self->page_blocks, self->page_fences, 0, 0 };
  guint32 left, alloc;
  guint64 offset;
  gpointer fresh;

  g_assert (rl->n_spilled >= self->page_blocks && rl->n_fences >= self->page_fences);
  for (guint b = 0; b < self->page_blocks; b++)
    g_assert (rl->spilled[b].n == STRATA_RAW_STORE_BLOCK);

  bytes = g_malloc (sizeof h + records + fences);
  memcpy (bytes + sizeof h, rl->spilled, records);
  memcpy (bytes + sizeof h + records, rl->fences, fences);
  h.checksum = strata_index_checksum (bytes + sizeof h, records + fences);
  memcpy (bytes, &h, sizeof h);
  if ((offset = strata_block_packer_put_bytes (self->packer, bytes, sizeof h + records + fences)) == G_MAXUINT64)
    {
      g_debug ("raw store: lanes keep their records in memory: a page could not be written");
      self->paging_failed = TRUE;
      return FALSE;
    }

  rl->pages = grow_array (rl->pages, &rl->pages_alloc, rl->n_pages + 1, sizeof (Page));
  rl->pages[rl->n_pages++] = (Page) { offset, rl->fences[0].start, rl->fences[0].end };
  self->n_pages++;

  /* A page's worth of tickets, and its fences with those of a block or
   * so in memory: what the lane holds when it writes the next page. */
  left = rl->n_spilled - self->page_blocks;
  alloc = 0;
  fresh = grow_array (NULL, &alloc, MAX (left, self->page_blocks), sizeof (StrataRawStoreSpilled));
  memcpy (fresh, rl->spilled + self->page_blocks, (gsize) left * sizeof (StrataRawStoreSpilled));
  g_free (rl->spilled);
  rl->spilled = fresh;
  rl->n_spilled = left;
  rl->spilled_alloc = alloc;

  left = rl->n_fences - self->page_fences;
  alloc = MAX (left, self->page_fences + 2 * (STRATA_RAW_STORE_BLOCK / FENCE_STEP));
  fresh = g_new (Fence, alloc);
  memcpy (fresh, rl->fences + self->page_fences, (gsize) left * sizeof (Fence));
  g_free (rl->fences);
  rl->fences = fresh;
  rl->n_fences = left;
  rl->fences_alloc = alloc;
  return TRUE;
}

/* The lane's last page back in memory, before the tickets and fences
 * there (a late activity brings back the blocks before them). */
static void
page_in (StrataRawStore *self,
         Lane           *rl)
{
  const guint8 *page;

  g_assert (rl->n_pages > 0);
  page = read_page (self, &rl->pages[rl->n_pages - 1]);

  rl->spilled = grow_array (rl->spilled, &rl->spilled_alloc, rl->n_spilled + self->page_blocks,
                            sizeof (StrataRawStoreSpilled));
  memmove (rl->spilled + self->page_blocks, rl->spilled, (gsize) rl->n_spilled * sizeof (StrataRawStoreSpilled));
  memcpy (rl->spilled, page, (gsize) self->page_blocks * sizeof (StrataRawStoreSpilled));
  rl->n_spilled += self->page_blocks;

  rl->fences = grow_array (rl->fences, &rl->fences_alloc, rl->n_fences + self->page_fences, sizeof (Fence));
  memmove (rl->fences + self->page_fences, rl->fences, (gsize) rl->n_fences * sizeof (Fence));
  memcpy (rl->fences, page + (gsize) self->page_blocks * sizeof (StrataRawStoreSpilled),
          (gsize) self->page_fences * sizeof (Fence));
  rl->n_fences += self->page_fences;
  rl->n_pages--;
}

/* Hands the @n activities of the lane in memory from @from (a full
 * block, or a lane's short last one) to the packer, which packs and
 * writes them on its own thread (the caller then drops them from
 * memory; the packer holds its copy until it is written). FALSE (and no
 * more spilling) if there is no spill file or a block could not be
 * written: the store then simply keeps the rest in memory. */
static gboolean
spill_block (StrataRawStore *self,
             Lane           *rl,
             guint           from,
             guint           n)
{
  StrataRawStoreSpilled rec = { 0 };
  g_autoptr(GBytes) bytes = NULL;

  if (self->packer == NULL)
    {
      g_autoptr(GError) error = NULL;

      /* Packed at the index writer's level, so it copies their bytes as
       * the packer wrote them. */
      self->packer = strata_block_packer_new (self->spill_queue, self->zstd_level, &error);
      if (self->packer == NULL)
        {
          g_debug ("raw store: stays in memory: %s", error->message);
          self->spill_failed = TRUE;
          return FALSE;
        }
      self->own_packer = TRUE;
    }
  if (strata_block_packer_has_failed (self->packer))
    {
      self->spill_failed = TRUE;
      return FALSE;
    }

  g_assert (n > 0 && n <= STRATA_RAW_STORE_BLOCK && from + n <= rl->n_acts);
  g_assert (lane_base (self, rl) % STRATA_RAW_STORE_BLOCK == 0);

  /* A page's worth of tickets in memory: they and their fences go to
   * the spill file before this one joins them. */
  if (self->page_blocks > 0 && !self->paging_failed && rl->n_spilled >= self->page_blocks)
    page_out (self, rl);

  bytes = g_bytes_new (&rl->acts[from], (gsize) n * sizeof (StrataActivity));
  rec.ticket = strata_block_packer_submit (self->packer, bytes, sizeof (StrataActivity), STRATA_RAW_STORE_BLOCK);
  rec.n = n;

  rl->spilled = grow_array (rl->spilled, &rl->spilled_alloc, rl->n_spilled + 1, sizeof (StrataRawStoreSpilled));
  rl->spilled[rl->n_spilled++] = rec;
  self->n_spilled += n;
  return TRUE;
}

/* The lane's first @n activities in memory are spilled: what is left is
 * copied into an array of its size (the old one is freed whole). */
static void
drop_front (StrataRawStore *self,
            Lane           *rl,
            guint           n)
{
  guint32 left = rl->n_acts - n, alloc = 0;
  StrataActivity *fresh = NULL;

  if (n == 0)
    return;
  if (left > 0)
    {
      fresh = grow_array (NULL, &alloc, left, sizeof (StrataActivity));
      memcpy (fresh, &rl->acts[n], (gsize) left * sizeof (StrataActivity));
    }
  self->lane_bytes -= lane_alloc (rl->n_acts);
  self->lane_bytes += lane_alloc (left);
  g_free (rl->acts);
  rl->acts = fresh;
  rl->n_acts = left;
  rl->acts_alloc = alloc;
}

/* Every activity of the lane in memory to the spill file: its full blocks,
 * then the rest as a short last block. */
static gboolean
spill_tail (StrataRawStore *self,
            Lane           *rl)
{
  guint from = 0;

  while (from < rl->n_acts)
    {
      guint n = MIN (STRATA_RAW_STORE_BLOCK, rl->n_acts - from);

      if (!spill_block (self, rl, from, n))
        break;
      from += n;
    }
  drop_front (self, rl, from);
  return rl->n_acts == 0;
}

typedef struct
{
  guint64 appended;
  guint32 channel;
} Candidate;

static int
by_appended (gconstpointer pa,
             gconstpointer pb)
{
  const Candidate *a = pa, *b = pb;

  if (a->appended != b->appended)
    return a->appended < b->appended ? -1 : 1;
  return a->channel < b->channel ? -1 : a->channel > b->channel;
}

/* Activities a channel must have gone without, for its tail to be
 * spilled for the budget: an eighth of what the budget holds. */
static guint64
cold_window (StrataRawStore *self)
{
  return MAX (self->budget / sizeof (StrataActivity) / 8, 1);
}

/* The store is past its budget: the channels appended to least recently
 * (and not lately) spill their lanes' tails until half of it is left. */
static void
spill_tails (StrataRawStore *self)
{
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (Candidate));
  guint64 window = cold_window (self);

  for (guint32 c = 0; c < self->channels->len; c++)
    {
      Channel *ch = &strata_spilled_array_index (self->channels, Channel, c);

      if (ch->resident != 0 && ch->appended + window <= self->size)
        {
          Candidate k = { ch->appended, c };

          g_array_append_val (order, k);
        }
      if ((c + 1) % LET_GO_EVERY == 0)
        strata_spilled_array_let_go (self->channels, c);
    }
  g_array_sort (order, by_appended);

  for (guint i = 0; i < order->len && self->lane_bytes > self->budget / 2; i++)
    {
      Channel *ch = &strata_spilled_array_index (self->channels, Channel, g_array_index (order, Candidate, i).channel);

      for (guint l = 0; l < N_LANES; l++)
        if (ch->resident & (1u << l))
          {
            if (!spill_tail (self, channel_lane (ch, l)))
              return;
            ch->resident &= ~(1u << l);
            self->n_evicted++;
          }
    }
  /* The rest is live: another look only after a window's worth. */
  if (self->lane_bytes > self->budget / 2)
    self->next_round = self->size + window;
}

/* The lane's last spilled block back in memory, before the others. */
static gboolean
unspill_block (StrataRawStore *self,
               Lane           *rl)
{
  const StrataRawStoreSpilled *rec;
  StrataActivity acts[STRATA_RAW_STORE_BLOCK];
  guint n;

  if (rl->n_spilled == 0)
    page_in (self, rl);
  rec = &rl->spilled[rl->n_spilled - 1];
  n = rec->n;

  /* Queued or written, the packer gives it back (its ticket is then
   * simply never read again). */
  if (strata_block_packer_read (self->packer, rec->ticket, acts) != n)
    g_error ("raw store: a spilled block cannot be read back");
  self->lane_bytes -= lane_alloc (rl->n_acts);
  rl->acts = grow_array (rl->acts, &rl->acts_alloc, rl->n_acts + n, sizeof (StrataActivity));
  memmove (&rl->acts[n], rl->acts, (gsize) rl->n_acts * sizeof (StrataActivity));
  memcpy (rl->acts, acts, (gsize) n * sizeof (StrataActivity));
  rl->n_acts += n;
  self->lane_bytes += lane_alloc (rl->n_acts);
  rl->n_spilled--;
  self->n_spilled -= n;
  self->n_unspilled += n;
  return TRUE;
}

/* A sealed channel that gets another activity after all (its thread was
 * taken for dead): its lanes' records back in memory. */
static void
reopen_channel (StrataRawStore *self,
                guint32         channel)
{
  Seal u = { G_MAXUINT32, NULL, 0, { { 0 } } };
  Channel *ch = &strata_spilled_array_index (self->channels, Channel, channel);
  guint n = __builtin_popcount (ch->present & LANES);

  unseal_into (self, channel, &u);
  ch->lanes = g_new0 (Lane, MAX (n, 1));
  for (guint k = 0; k < n; k++)
    {
      Lane *lane = &ch->lanes[k];

      lane->n_spilled = lane->spilled_alloc = u.lanes[k].n_spilled;
      lane->spilled = g_memdup2 (u.lanes[k].spilled, (gsize) lane->n_spilled * sizeof (StrataRawStoreSpilled));
      lane->n_fences = lane->fences_alloc = u.lanes[k].n_fences;
      lane->fences = g_memdup2 (u.lanes[k].fences, (gsize) lane->n_fences * sizeof (Fence));
      lane->n_pages = lane->pages_alloc = u.lanes[k].n_pages;
      lane->pages = g_memdup2 (u.lanes[k].pages, (gsize) lane->n_pages * sizeof (Page));
    }
  g_free (u.bytes);
  ch->present &= ~SEALED;
  ch->appended = self->size;
  self->n_sealed--;
}

/* The staged seals written, in one piece, and their channels told where.
 * If they cannot be, their channels are opened again (as a seal that
 * could not be written leaves its channel): FALSE then. */
gboolean
strata_raw_store_flush_seals (StrataRawStore *self)
{
  guint64 offset = G_MAXUINT64;

  if (self->seal_staged == 0)
    return TRUE;
  offset = strata_block_packer_put_bytes (self->packer, self->seal_stage, self->seal_staged);
  for (guint i = 0; i < self->staged_channels->len; i++)
    {
      guint32 c = g_array_index (self->staged_channels, guint32, i);
      Channel *ch = &strata_spilled_array_index (self->channels, Channel, c);

      /* (Not one opened again since, nor one sealed again later in the
       * stage and already told.) */
      if (!(ch->present & SEALED) || !(ch->appended & SEAL_STAGED))
        continue;
      if (offset != G_MAXUINT64)
        ch->appended = offset + (ch->appended & ~SEAL_STAGED);
      else
        reopen_channel (self, c);
    }
  g_array_set_size (self->staged_channels, 0);
  self->seal_staged = 0;
  return offset != G_MAXUINT64;
}

/**
 * strata_raw_store_close_channel:
 *
 * @channel will get no more activities (its thread exited): once the
 * store spills, its activities still in memory go to the spill file, and
 * so do its lanes' records, in one piece; only the channel's own entry
 * stays. Look-ups read them back. A store that does not spill, or cannot,
 * keeps the channel as it is.
 */
void
strata_raw_store_close_channel (StrataRawStore *self,
                                guint32         channel)
{
  GByteArray *seal;
  SealHeader h = { SEAL_MAGIC, 0, 0, 0 };
  Channel *ch;
  guint n;
  guint64 offset;
  gint64 first;

  g_return_if_fail (self != NULL);

  if (self->map != NULL || channel >= self->channels->len || self->packer == NULL || self->spill_failed)
    return;
  ch = &strata_spilled_array_index (self->channels, Channel, channel);
  if ((ch->present & SEALED) || (ch->present & LANES) == 0)
    return;
  n = __builtin_popcount (ch->present & LANES);

  for (guint k = 0; k < n; k++)
    if (ch->lanes[k].n_acts > 0 && !spill_tail (self, &ch->lanes[k]))
      return;
  ch->resident = 0;

  if (self->seal_scratch == NULL)
    self->seal_scratch = g_byte_array_new ();
  seal = self->seal_scratch;
  g_byte_array_set_size (seal, sizeof h);
  for (guint k = 0; k < n; k++)
    {
      SealLane sl = { ch->lanes[k].n_pages, ch->lanes[k].n_spilled, ch->lanes[k].n_fences, 0 };

      g_byte_array_append (seal, (const guint8 *) &sl, sizeof sl);
    }
  for (guint k = 0; k < n; k++)
    {
      g_byte_array_append (seal, (const guint8 *) ch->lanes[k].pages, ch->lanes[k].n_pages * sizeof (Page));
      g_byte_array_append (seal, (const guint8 *) ch->lanes[k].spilled,
                           ch->lanes[k].n_spilled * sizeof (StrataRawStoreSpilled));
      g_byte_array_append (seal, (const guint8 *) ch->lanes[k].fences, ch->lanes[k].n_fences * sizeof (Fence));
    }
  h.n_lanes = n;
  h.size = seal->len - sizeof h;
  h.checksum = strata_index_checksum (seal->data + sizeof h, h.size);
  memcpy (seal->data, &h, sizeof h);
  if (seal->len > SEAL_STAGE / 4)
    {
      if ((offset = strata_block_packer_put_bytes (self->packer, seal->data, seal->len)) == G_MAXUINT64)
        return;
    }
  else
    {
      if (self->seal_staged + seal->len > SEAL_STAGE && !strata_raw_store_flush_seals (self))
        return;
      if (self->seal_stage == NULL)
        {
          self->seal_stage = g_malloc (SEAL_STAGE);
          self->staged_channels = g_array_new (FALSE, FALSE, sizeof (guint32));
        }
      offset = SEAL_STAGED | self->seal_staged;
      memcpy (self->seal_stage + self->seal_staged, seal->data, seal->len);
      self->seal_staged += seal->len;
      g_array_append_val (self->staged_channels, channel);
    }
  if (seal->len > SEAL_STAGE)
    g_clear_pointer (&self->seal_scratch, g_byte_array_unref);

  first = G_MAXINT64;
  for (guint k = 0; k < n; k++)
    {
      if (ch->lanes[k].n_pages > 0)
        first = MIN (first, ch->lanes[k].pages[0].start);
      else if (ch->lanes[k].n_fences > 0)
        first = MIN (first, ch->lanes[k].fences[0].start);
      g_free (ch->lanes[k].acts);
      g_free (ch->lanes[k].fences);
      g_free (ch->lanes[k].spilled);
      g_free (ch->lanes[k].pages);
    }
  g_free (ch->lanes);
  ch->first = first;
  ch->appended = offset;
  ch->present |= SEALED;
  self->n_sealed++;
}

/* How many channels are sealed (strata_raw_store_close_channel()). */
guint64
strata_raw_store_get_n_sealed (StrataRawStore *self)
{
  return self->n_sealed;
}

/* How many pages of lanes' records were written to the spill file (some
 * maybe read back into their lanes since). */
guint64
strata_raw_store_get_n_pages (StrataRawStore *self)
{
  return self->n_pages;
}

/* Tickets a page of a lane's records holds (0: lanes keep them all in
 * memory), for the tests; before the first activity. */
void
strata_raw_store_set_page_blocks (StrataRawStore *self,
                                  guint           blocks)
{
  g_return_if_fail (self != NULL && self->map == NULL && self->size == 0);

  self->page_blocks = MIN (blocks, 1u << 16);
  self->page_fences = self->page_blocks * (STRATA_RAW_STORE_BLOCK / FENCE_STEP);
}

/* Where the next activity appended to @rl falls in the lane, as far as
 * its fences care (modulo FENCE_STEP). With activities in memory every
 * spilled block is full (a short one is only ever the last of a lane
 * with none in memory), so what lies before them is a multiple of the
 * block: the last ticket, read for lane_base() on every add, was a cache
 * miss of its own, a third of the add's time on thousands of busy
 * threads. */
static inline guint
fence_position (StrataRawStore *self,
                const Lane     *rl)
{
  if (rl->n_acts > 0)
    return rl->n_acts;
  return lane_base (self, rl);
}

/* strata_raw_store_add(), for strata_raw_store_add_many() too. */
static G_ALWAYS_INLINE inline void
add_one (StrataRawStore       *self,
         const StrataActivity *activity)
{
  guint l = lane_of (activity);
  Channel *ch;
  Lane *rl;

  g_return_if_fail (self->map == NULL);

  if G_UNLIKELY (self->size == 0)
    self->builder = g_thread_self ();
  if (activity->channel >= self->channels->len)
    strata_spilled_array_set_size (self->channels, activity->channel + 1);
  ch = &strata_spilled_array_index (self->channels, Channel, activity->channel);
  if G_UNLIKELY (ch->present & SEALED)
    reopen_channel (self, activity->channel);

  rl = channel_lane (ch, l);
  if G_UNLIKELY (rl == NULL)
    {
      guint n = __builtin_popcount (ch->present);
      guint at = __builtin_popcount (ch->present & ((1u << l) - 1));

      ch->lanes = g_renew (Lane, ch->lanes, n + 1);
      memmove (&ch->lanes[at + 1], &ch->lanes[at], (n - at) * sizeof (Lane));
      ch->present |= 1u << l;
      rl = &ch->lanes[at];
      memset (rl, 0, sizeof *rl);
    }

  /* One that comes before the activities in memory, or any when the lane
   * has none there (its last block may be a short one, which must be
   * full before another is spilled): its spilled blocks come back, the
   * last first, until it falls among them. */
  while ((rl->n_spilled > 0 || rl->n_pages > 0) && (rl->n_acts == 0 || rl->acts[0].start > activity->start))
    if (!unspill_block (self, rl))
      break;

  self->lane_bytes -= lane_alloc (rl->n_acts);
  rl->acts = grow_array (rl->acts, &rl->acts_alloc, rl->n_acts + 1, sizeof (StrataActivity));
  if (rl->n_acts == 0 || rl->acts[rl->n_acts - 1].start <= activity->start)
    {
      if (fence_position (self, rl) % FENCE_STEP == 0)
        {
          rl->fences = grow_array (rl->fences, &rl->fences_alloc, rl->n_fences + 1, sizeof (Fence));
          rl->fences[rl->n_fences++] = (Fence) { activity->start, activity->end };
        }
      rl->acts[rl->n_acts++] = *activity;
    }
  else
    {
      guint lo = 0, hi = rl->n_acts;

      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (rl->acts[mid].start <= activity->start)
            lo = mid + 1;
          else
            hi = mid;
        }
      memmove (&rl->acts[lo + 1], &rl->acts[lo], (gsize) (rl->n_acts - lo) * sizeof (StrataActivity));
      rl->acts[lo] = *activity;
      rl->n_acts++;
      rebuild_fences (self, rl, lane_base (self, rl));
    }
  self->lane_bytes += lane_alloc (rl->n_acts);

  self->size++;
  ch->appended = self->size;
  ch->resident |= 1u << l;

  if (self->size > self->spill_from && !self->spill_failed)
    {
      guint from = 0;

      /* All the full blocks past those kept, then one move of the rest. */
      while (rl->n_acts - from > (self->spill_keep + 1) * STRATA_RAW_STORE_BLOCK &&
             spill_block (self, rl, from, STRATA_RAW_STORE_BLOCK))
        from += STRATA_RAW_STORE_BLOCK;
      drop_front (self, rl, from);

      if (self->lane_bytes > self->budget && !self->spill_failed &&
          self->size >= self->next_round)
        spill_tails (self);
    }
  self->peak_lane_bytes = MAX (self->peak_lane_bytes, self->lane_bytes);
}

/**
 * strata_raw_store_adopt:
 *
 * The calling thread is the one that adds from now on (the thread that
 * added so far has finished): it reads spilled blocks as the builder
 * does, not through a reader's copies.
 */
void
strata_raw_store_adopt (StrataRawStore *self)
{
  g_return_if_fail (self != NULL);
  self->builder = g_thread_self ();
}

/**
 * strata_raw_store_add:
 * @activity: a complete activity
 * @store: a #StrataRawStore
 *
 * A #StrataActivityFunc, so the store can be the kernel model's sink. The
 * model completes a lane's activities in start order; one that comes late
 * is put in its place.
 */
void
strata_raw_store_add (const StrataActivity *activity,
                      gpointer              store)
{
  add_one (store, activity);
}

/* Asks the cache for what adding @a will touch, in three steps, each
 * once the one before it has arrived: the channel's entry (@step 0), its
 * lane's record (1), the lane's tail, where it writes, and its first
 * activity when it has spilled ones (2). Nothing is
 * changed, and what an add in between moves is only fetched in vain. */
static G_ALWAYS_INLINE inline void
prefetch_add (StrataRawStore       *self,
              const StrataActivity *a,
              guint                 step)
{
  const Channel *ch;
  const Lane *rl;
  guint l;

  if (a->channel >= self->channels->len)
    return;
  ch = &strata_spilled_array_index (self->channels, Channel, a->channel);
  if (step == 0)
    {
      __builtin_prefetch (ch, 1);
      return;
    }
  l = lane_of (a);
  if (!(ch->present & (1u << l)) || (ch->present & SEALED))
    return;
  rl = &ch->lanes[__builtin_popcount (ch->present & ((1u << l) - 1))];
  if (step == 1)
    __builtin_prefetch (rl, 1);
  else if (rl->n_acts > 0)
    {
      /* The first one too, when some are spilled: it says whether the
       * new one falls among them. */
      if (rl->n_spilled > 0 || rl->n_pages > 0)
        __builtin_prefetch (&rl->acts[0], 0);
      __builtin_prefetch (&rl->acts[rl->n_acts - 1], 1);
      if (rl->n_acts < rl->acts_alloc)
        __builtin_prefetch (&rl->acts[rl->n_acts], 1);
    }
}

/* How far ahead of the activity added strata_raw_store_add_many() takes
 * each step of prefetch_add(). */
#define PREFETCH_CHANNEL 12
#define PREFETCH_LANE    8
#define PREFETCH_TAIL    4

/**
 * strata_raw_store_add_many:
 * @self: a #StrataRawStore
 * @activities: (array length=n): complete activities
 * @n: how many
 *
 * strata_raw_store_add() of each, in turn. Each add misses the cache
 * twice or three times, one miss waiting for the other (its channel's
 * entry, then its lane, then the lane's tail: a tenth of the build's
 * time on thousands of busy threads); knowing the activities to come,
 * this fetches those of the ones a few places ahead meanwhile.
 */
void
strata_raw_store_add_many (StrataRawStore       *self,
                           const StrataActivity *activities,
                           guint                 n)
{
  g_return_if_fail (self != NULL);

  for (guint i = 0; i < n; i++)
    {
      if (i + PREFETCH_CHANNEL < n)
        prefetch_add (self, &activities[i + PREFETCH_CHANNEL], 0);
      if (i + PREFETCH_LANE < n)
        prefetch_add (self, &activities[i + PREFETCH_LANE], 1);
      if (i + PREFETCH_TAIL < n)
        prefetch_add (self, &activities[i + PREFETCH_TAIL], 2);
      add_one (self, &activities[i]);
    }
}


guint64
strata_raw_store_get_size (StrataRawStore *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->size;
}

/* The mapped side of strata_raw_store_get_lane(): [first, end) decoded
 * into an array of @end activities of the calling thread's (only those
 * are written, so only their pages are touched), the one before freed. */
static const StrataActivity *
lend_range (StrataRawStore *self,
            guint32         channel,
            guint           l,
            gint64          t0,
            gint64          t1,
            guint          *first,
            guint          *end)
{
  g_autofree LaneView *v = g_new (LaneView, 1);
  GThread *thread = g_thread_self ();
  const StrataActivity *a;
  StrataActivity *acts;
  LentRange *range = NULL;
  guint i;

  if (!lane_view (self, channel, l, v))
    return NULL;
  *first = lower_bound (v, t0, l == INSTANT_LANE);
  if (*first == G_MAXUINT)
    {
      *first = 0;
      return NULL;
    }
  for (i = *first; (a = lane_get (v, i)) != NULL && a->start < t1; i++)
    ;
  *end = i;

  acts = g_new (StrataActivity, MAX (*end, 1));
  for (i = *first; i < *end; i++)
    {
      if ((a = lane_get (v, i)) == NULL)
        {
          *end = i;
          break;
        }
      acts[i] = *a;
    }

  g_mutex_lock (&self->lent_lock);
  for (guint k = 0; k < self->lent->len && range == NULL; k++)
    if (g_array_index (self->lent, LentRange, k).thread == thread)
      range = &g_array_index (self->lent, LentRange, k);
  if (range == NULL)
    {
      g_array_set_size (self->lent, self->lent->len + 1);
      range = &g_array_index (self->lent, LentRange, self->lent->len - 1);
      range->thread = thread;
    }
  g_free (range->acts);
  range->acts = acts;
  range->n = *end;
  g_mutex_unlock (&self->lent_lock);

  return acts;
}

/**
 * strata_raw_store_get_lane:
 * @lane: 0..15 for a nesting depth, 16 for the instants
 * @first: (out): the index of the lane's first activity that can overlap
 *   [@t0, @t1)
 * @end: (out): one past the last one that starts before @t1
 *
 * A lane in place, for walking it: the activities from @first to @end are
 * those overlapping [@t0, @t1) (with strata_activity_overlaps() to settle
 * the ends). In memory, the ones before @first are the lane's earlier
 * ones, with no copy, and the array stays valid until the next activity
 * is added. A store mapped from an index has its lanes packed, and a lane
 * that has spilled blocks to disk is partly packed: only [@first, @end)
 * are there, decoded for the calling thread, and valid until its next
 * call on this store (strata_raw_store_open_lane() reads
 * any part of any store without a copy).
 *
 * Returns: (nullable): the lane's activities, or %NULL if it has none
 */
const StrataActivity *
strata_raw_store_get_lane (StrataRawStore *self,
                           guint32         channel,
                           guint           lane,
                           gint64          t0,
                           gint64          t1,
                           guint          *first,
                           guint          *end)
{
  LaneView v;
  guint i;

  g_return_val_if_fail (self != NULL && first != NULL && end != NULL && lane < N_LANES, NULL);

  *first = *end = 0;
  if (self->map != NULL)
    return lend_range (self, channel, lane, t0, t1, first, end);
  if (!lane_view (self, channel, lane, &v))
    return NULL;
  if (v.base > 0)
    return lend_range (self, channel, lane, t0, t1, first, end);

  *first = lower_bound (&v, t0, lane == INSTANT_LANE);
  for (i = *first; i < v.n && v.acts[i].start < t1; i++)
    ;
  *end = i;

  return v.acts;
}

/**
 * strata_raw_store_open_lane:
 * @lane: 0..15 for a nesting depth, 16 for the instants
 * @out: (out caller-allocates): the lane, for strata_raw_lane_get()
 * @first: (out): the index of the lane's first activity that can overlap
 *   [@t0, @t1)
 * @end: (out): one past the last one that starts before @t1
 *
 * strata_raw_store_get_lane() for any store: in memory or packed in an
 * index, the activities are read with strata_raw_lane_get(), before
 * @first as well.
 *
 * Returns: %FALSE if the lane has none (or is damaged where the look-up
 *   read it)
 */
gboolean
strata_raw_store_open_lane (StrataRawStore *self,
                            guint32         channel,
                            guint           lane,
                            gint64          t0,
                            gint64          t1,
                            StrataRawLane  *out,
                            guint          *first,
                            guint          *end)
{
  const StrataActivity *a;
  guint i;

  g_return_val_if_fail (self != NULL && out != NULL && first != NULL && end != NULL && lane < N_LANES, FALSE);

  *first = *end = 0;
  if (!lane_view (self, channel, lane, out))
    return FALSE;

  *first = lower_bound (out, t0, lane == INSTANT_LANE);
  if (*first == G_MAXUINT)
    {
      *first = 0;
      return FALSE;
    }
  for (i = *first; (a = lane_get (out, i)) != NULL && a->start < t1; i++)
    ;
  *end = i;

  return TRUE;
}

/**
 * strata_raw_store_lane_begins_before:
 *
 * Whether the lane has an activity that starts before @t, from its first
 * fence alone: a lane that begins later is known empty over any range
 * ending at @t without a block of it being read (a channel born late in
 * the trace, asked for a chunk at its start).
 *
 * Returns: %FALSE if the lane has none starting before @t; %TRUE if it may
 */
gboolean
strata_raw_store_lane_begins_before (StrataRawStore *self,
                                     guint32         channel,
                                     guint           lane,
                                     gint64          t)
{
  LaneView v;

  g_return_val_if_fail (self != NULL && lane < N_LANES, FALSE);

  /* A sealed channel's start is at hand: one that begins at or after @t
   * is not read back (the first chunks computed at the end ask each
   * level's first chunk of every channel). */
  if (self->map == NULL && channel < self->channels->len)
    {
      const Channel *ch = &strata_spilled_array_index (self->channels, Channel, channel);

      if ((ch->present & SEALED) && ch->first >= t)
        return FALSE;
    }
  if (!lane_view (self, channel, lane, &v))
    return FALSE;
  if (v.n_pages > 0)
    return ((const Page *) v.pages)[0].start < t;
  /* No fence, or one found damaged: the look-up itself will tell. */
  if (v.n_fences == 0 ||
      (v.fences_check != NULL && !strata_checked_array_check (v.fences_check, 0, 1)))
    return TRUE;
  return ((const Fence *) v.fences)[0].start < t;
}

/**
 * strata_raw_lane_get:
 * @i: an activity of the lane
 *
 * Returns: (nullable): the activity, valid until the next call on @lane;
 *   %NULL past the lane's end or in a block found damaged
 */
const StrataActivity *
strata_raw_lane_get (StrataRawLane *lane,
                     guint          i)
{
  return lane_get (lane, i);
}

/**
 * strata_raw_store_check:
 * @from: the first activity of the lane to be read
 * @to: one past the last
 *
 * Whether those activities are sound to read. In memory they always are;
 * mapped from an index, their blocks are decoded (and checked).
 */
gboolean
strata_raw_store_check (StrataRawStore *self,
                        guint32         channel,
                        guint           lane,
                        guint           from,
                        guint           to)
{
  LaneView v;

  if (self->map == NULL)
    return TRUE;
  if (!lane_view (self, channel, lane, &v))
    return FALSE;
  for (guint i = from; i < to && i < v.n; i += STRATA_RAW_STORE_BLOCK - i % STRATA_RAW_STORE_BLOCK)
    if (lane_get (&v, i) == NULL)
      return FALSE;
  return TRUE;
}

/* For the index writer: a lane of a store in memory, in place (NULL for
 * a mapped store: the writer writes built trees): *n_spilled blocks at
 * strata_raw_store_get_packer() (all full but the last, which is short
 * only when *n is 0), then the *n activities returned; *n_fences fences
 * in all. The tickets and fences are there only for a lane that has no
 * pages (else NULL): strata_raw_store_read_lane_part() reads any. */
const StrataActivity *
strata_raw_store_peek_lane (StrataRawStore             *self,
                            guint32                     channel,
                            guint                       lane,
                            guint                      *n,
                            const StrataRawStoreFence **fences,
                            guint                      *n_fences,
                            const StrataRawStoreSpilled **spilled,
                            guint                      *n_spilled)
{
  LaneView v;

  *n = *n_fences = *n_spilled = 0;
  *fences = NULL;
  *spilled = NULL;
  if (self->map != NULL || !lane_view (self, channel, lane, &v))
    return NULL;
  *n = v.n - v.base;
  *n_fences = v.n_pages * self->page_fences + v.n_fences;
  *n_spilled = (v.base + STRATA_RAW_STORE_BLOCK - 1) / STRATA_RAW_STORE_BLOCK;
  if (v.n_pages == 0)
    {
      *fences = v.fences;
      *spilled = v.spilled;
    }
  return v.acts;
}

/* For the index writer: part @part of a lane's records (a store in
 * memory): its pages' first (each read back into the calling thread's
 * copy, valid until the thread reads another page), then, as the last
 * part, the tickets and fences in memory. Tickets and fences each in
 * order, one part after the other, they are the lane's. FALSE past the
 * last part. */
gboolean
strata_raw_store_read_lane_part (StrataRawStore               *self,
                                 guint32                       channel,
                                 guint                         lane,
                                 guint                         part,
                                 const StrataRawStoreSpilled **spilled,
                                 guint                        *n_spilled,
                                 const StrataRawStoreFence   **fences,
                                 guint                        *n_fences)
{
  LaneView v;

  *n_spilled = *n_fences = 0;
  *spilled = NULL;
  *fences = NULL;
  if (self->map != NULL || !lane_view (self, channel, lane, &v) || part > v.n_pages)
    return FALSE;
  if (part < v.n_pages)
    {
      const guint8 *page = read_page (self, (const Page *) v.pages + part);

      *spilled = (const StrataRawStoreSpilled *)(gconstpointer) page;
      *n_spilled = self->page_blocks;
      *fences = (const Fence *)(gconstpointer) (page + (gsize) self->page_blocks * sizeof (StrataRawStoreSpilled));
      *n_fences = self->page_fences;
      return TRUE;
    }
  *spilled = v.spilled;
  *n_spilled = (v.base + STRATA_RAW_STORE_BLOCK - 1) / STRATA_RAW_STORE_BLOCK - v.n_pages * self->page_blocks;
  *fences = v.fences;
  *n_fences = v.n_fences;
  return TRUE;
}

/* For the index writer: bit l set for each lane l of @channel that has
 * activities, from the channel's entry alone (a sealed channel's seal is
 * not read); 0 for a mapped store. */
guint32
strata_raw_store_get_lanes (StrataRawStore *self,
                            guint32         channel)
{
  if (self->map != NULL || channel >= self->channels->len)
    return 0;
  return strata_spilled_array_index (self->channels, Channel, channel).present & LANES;
}

/* For the index writer: the packer the spilled blocks are tickets of
 * (NULL if none was spilled). */
StrataBlockPacker *
strata_raw_store_get_packer (StrataRawStore *self)
{
  return self->packer;
}

/* The packer the store hands its spilled blocks to, instead of one of its
 * own (made at the first): @packer must outlive the store, and be set
 * before anything is spilled. */
void
strata_raw_store_set_packer (StrataRawStore    *self,
                             StrataBlockPacker *packer)
{
  g_return_if_fail (self != NULL && self->map == NULL && self->packer == NULL);

  self->packer = packer;
  self->own_packer = FALSE;
}

/* Activities brought back from the packer into memory (short last
 * blocks of lanes that grew again). */
guint64
strata_raw_store_get_unspilled (StrataRawStore *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_unspilled;
}

/* A store whose lanes are views over an index's bytes; nothing is read
 * until a look-up needs it. */
StrataRawStore *
strata_raw_store_new_mapped (StrataIndexMap           *map,
                             const StrataIndexHeader  *h,
                             GError                  **error)
{
  StrataRawStore *self = strata_raw_store_new ();

  self->map = strata_index_map_ref (map);
  self->size = h->n_activities;
  if (h->n_raw_lanes > (guint64) h->n_raw_channels * N_LANES ||
      !strata_checked_array_init (&self->channel_dir, map, h->raw_channels_offset, h->raw_channels_sums_offset,
                                  h->n_raw_channels, sizeof (StrataIndexChannelLanes),
                                  STRATA_INDEX_CHANNEL_BLOCK, "raw store channels") ||
      !strata_checked_array_init (&self->dir, map, h->lanes_offset, h->lanes_sums_offset,
                                  h->n_raw_lanes, sizeof (StrataIndexLane),
                                  STRATA_INDEX_LANE_BLOCK, "raw store lanes"))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT, "the raw store's lanes are out of bounds");
      self->n_mapped = 0;
      strata_raw_store_free (self);
      return NULL;
    }
  self->n_mapped = h->n_raw_channels;
  self->n_mapped_lanes = h->n_raw_lanes;
  self->mapped = g_new0 (MappedLane *, MAX (h->n_raw_lanes, 1));
  self->made = g_ptr_array_new ();

  return self;
}

/* One more than the highest channel that has an activity. */
guint
strata_raw_store_get_n_channels (StrataRawStore *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->map != NULL ? self->n_mapped : self->channels->len;
}

/**
 * strata_raw_store_query:
 * @channel: a channel
 * @t0: the start of the range
 * @t1: its end (excluded)
 * @out: (element-type StrataActivity): where the activities are appended
 *
 * Appends the channel's activities that overlap [@t0, @t1): intervals with
 * start < @t1 and end > @t0, instants with @t0 <= start < @t1; lane by
 * lane, each in start order. The cost is a binary search per lane plus the
 * activities returned.
 */
void
strata_raw_store_query (StrataRawStore *self,
                        guint32         channel,
                        gint64          t0,
                        gint64          t1,
                        GArray         *out)
{
  g_return_if_fail (self != NULL);

  if (t1 <= t0)
    return;

  for (guint l = 0; l < N_LANES; l++)
    {
      gboolean instants = l == INSTANT_LANE;
      LaneView v;
      guint i;

      if (!lane_view (self, channel, l, &v))
        continue;

      i = lower_bound (&v, t0, instants);
      for (const StrataActivity *a; i < v.n && (a = lane_get (&v, i)) != NULL; i++)
        {
          if (a->start >= t1)
            break;
          if (instants || strata_activity_overlaps (a, t0, t1))
            g_array_append_vals (out, a, 1);
        }
    }
}

/**
 * strata_raw_store_set_spill:
 * @from: spill once the store holds more than this many activities
 *   (G_MAXUINT64: never)
 * @keep_blocks: full blocks a lane keeps in memory besides its last
 *   activities (up to a block of them; always at least one)
 *
 * How a store being built spills its lanes' older activities to disk.
 */
void
strata_raw_store_set_spill (StrataRawStore *self,
                            guint64         from,
                            guint           keep_blocks)
{
  g_return_if_fail (self != NULL && self->map == NULL);

  self->spill_from = from;
  self->spill_keep = keep_blocks;
}

/**
 * strata_raw_store_get_resident_bytes:
 *
 * The bytes the store holds in memory, by its own accounting: the lanes'
 * activities in memory, their fences and the tickets of their spilled
 * blocks (those not in pages) and their pages' entries, as allocated, the
 * readers' copies of seals and pages read back, and what its packer
 * holds for them (the blocks queued, a record per block); not the spill
 * file, nor a mapped index's pages.
 */
guint64
strata_raw_store_get_resident_bytes (StrataRawStore *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return resident_parts (self, NULL);
}

/**
 * strata_raw_store_set_budget:
 * @bytes: what the lanes' activities in memory may take once the store
 *   spills (G_MAXUINT64: as much as they need)
 *
 * Past it, the lanes of the channels appended to least recently spill
 * their last activities as a short block (brought back when the lane gets
 * another), until half of it is left.
 */
void
strata_raw_store_set_budget (StrataRawStore *self,
                             guint64         bytes)
{
  g_return_if_fail (self != NULL && self->map == NULL);

  self->budget = bytes;
}

/**
 * strata_raw_store_get_tail_bytes:
 * @peak: (out) (optional): the most they took after any activity was added
 *
 * Returns: the bytes the lanes' activities in memory take now, as
 *   allocated (what the budget bounds: not the fences, nor the records of
 *   the spilled blocks, nor the channel table)
 */
guint64
strata_raw_store_get_tail_bytes (StrataRawStore *self,
                                 guint64        *peak)
{
  g_return_val_if_fail (self != NULL, 0);

  if (peak != NULL)
    *peak = self->peak_lane_bytes;
  return self->lane_bytes;
}

/* Activities held in the spill file. */
guint64
strata_raw_store_get_spilled (StrataRawStore *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_spilled;
}
