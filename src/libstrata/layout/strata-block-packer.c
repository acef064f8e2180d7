/* strata-block-packer.c
 *
 * A worker thread with a bounded queue. The caller hands over an array of
 * elements (a GBytes it no longer needs: a chunk's items, a lane's full
 * block of activities); it is cut into blocks of per_block elements, each
 * given the next ticket, and the call returns at once unless the queue
 * already holds max_queued bytes: then the caller packs the oldest blocks
 * itself until there is room, so what waits in memory is bounded and the
 * caller never sleeps while there is packing to do. An array too big to
 * be held twice (a chunk of millions of items) is streamed instead, in
 * batches of a few blocks as its pieces come (StrataBlockStream), its
 * tickets consecutive all the same. Each block is packed with the index
 * codec (strata_block_pack(): the very bytes the index writer would
 * write) and appended to an unlinked file in $XDG_CACHE_HOME/strata (else
 * the temporary directory); its record is filled in and its elements let
 * go. Reading a ticket never waits: a queued block is copied from the
 * elements still held, a written one is read back with pread(), checked
 * against its record and decoded through a bounded cache of decoded
 * blocks (the one a mapped index has, strata-index.c). A block that cannot
 * be written keeps its elements in memory for good, and the packer says
 * it failed, so its user stops handing it more.
 *
 * Only the tickets still in the queue have a slot in memory (a ring, from
 * the oldest not yet written). A written block's record goes to a page of
 * RECORDS_PAGE records, and each full page to the spill file too, so the
 * records do not grow with the trace: a few pages are kept at hand for
 * the look-ups, and a page read back is checked against its checksum.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "strata-block-codec.h"
#include "strata-block-packer.h"
#include "strata-error.h"
#include "strata-index-map.h"
#include "strata-spill-file.h"

typedef enum
{
  SLOT_QUEUED,    /* elements held, not packed yet */
  SLOT_WRITTEN,   /* in the file: rec says where */
  SLOT_FAILED,    /* could not be written: elements held for good */
} SlotState;

/* One ticket in the queue. */
typedef struct
{
  StrataIndexBlock rec;
  GBytes          *elems;      /* while not written */
  guint32          first;      /* its first element in elems */
  guint16          n;
  guint16          elem_size;
  guint8           state;      /* SlotState */
} Slot;

/* Written blocks' records, a page of them at a time; rec.reserved holds
 * the index of the block's element size in elem_sizes[] (cleared before a
 * record leaves the packer), with REC_FAILED set for a block that could
 * not be written (its slot is in the failed table). */
#define RECORDS_PAGE   1024
#define PAGES_AT_HAND  4
#define MAX_ELEM_SIZES 64
#define REC_FAILED     0x80

typedef struct
{
  StrataIndexBlock recs[RECORDS_PAGE];
} RecordPage;

typedef struct
{
  guint64     offset;          /* in the spill file */
  guint64     checksum;
  RecordPage *held;            /* could not be written: kept here */
} PageRef;

struct _StrataBlockPacker
{
  GMutex          submit_lock; /* held by a submission, or a stream all along */
  GMutex          lock;
  GCond           work;        /* a block was queued, or quit */
  GCond           done;        /* a block left the queue */
  guint           n_work_waiters; /* threads in g_cond_wait (&work): 0 or 1 */
  guint           n_done_waiters; /* threads in g_cond_wait (&done) */

  /* Tickets [base, n_tickets) in a ring of ring_mask + 1 slots. */
  Slot           *ring;
  guint64         ring_mask;
  guint64         base;
  guint64         n_tickets;

  /* Records of tickets [0, base): pages [0, pages->len) in the file, the
   * last ones in open_page. */
  GArray         *pages;       /* PageRef */
  RecordPage     *open_page;
  RecordPage     *at_hand[PAGES_AT_HAND];
  guint64         at_hand_page[PAGES_AT_HAND];
  guint           next_at_hand;
  guint16         elem_sizes[MAX_ELEM_SIZES];
  guint           n_elem_sizes;
  GHashTable     *failed;      /* ticket -> Slot, elements held for good */

  guint64         next;        /* the first ticket not claimed for packing yet */
  guint64         n_done;      /* tickets written or failed */
  gsize           queued;
  gsize           peak_queued;
  gsize           max_queued;
  guint64         written;
  guint64         n_waits;     /* submissions that waited for room */
  gint64          wait_us;     /* ... for this long in all */
  guint64         n_helped;    /* blocks a submitter packed itself, the queue full */
  GByteArray     *help_buf;    /* theirs (under submit_lock) */
  gboolean        quit;
  gboolean        held;        /* the worker takes no block (for tests) */
  gint            failed_any;
  gboolean        pages_failed; /* a page of records could not be written */
  GThread        *thread;

  int             fd;
  guint64         file_size;   /* where the next block goes (under the lock) */
  guint           in_flight;   /* places given whose bytes are not written (or failed) yet */
  guint64         quiet_end;   /* [0, quiet_end) is all written or failed, for good */
  guint64         serial;      /* this packer among all, for the read-ahead */
  int             zstd_level;

  /* Decoded blocks read back, keyed by ticket, and zstd contexts. */
  StrataBlockCache *cache;
};

static gint packer_serials;

static inline Slot *
slot_of (StrataBlockPacker *self,
         guint64            ticket)
{
  return &self->ring[ticket & self->ring_mask];
}

#define RING_MIN 64

static void
ring_resize (StrataBlockPacker *self,
             guint64            cap)
{
  Slot *ring = g_new (Slot, cap);

  for (guint64 t = self->base; t < self->n_tickets; t++)
    ring[t & (cap - 1)] = *slot_of (self, t);
  g_free (self->ring);
  self->ring = ring;
  self->ring_mask = cap - 1;
}

/* Room in the ring for @more tickets past the last. */
static void
ring_reserve (StrataBlockPacker *self,
              guint64            more)
{
  guint64 need = self->n_tickets - self->base + more;
  guint64 cap = self->ring_mask + 1;

  if (need <= cap)
    return;
  while (cap < need)
    cap *= 2;
  ring_resize (self, cap);
}

static guint8
elem_size_index (StrataBlockPacker *self,
                 guint16            elem_size)
{
  for (guint i = 0; i < self->n_elem_sizes; i++)
    if (self->elem_sizes[i] == elem_size)
      return (guint8) i;
  g_assert (self->n_elem_sizes < MAX_ELEM_SIZES);
  self->elem_sizes[self->n_elem_sizes] = elem_size;
  return (guint8) self->n_elem_sizes++;
}

/* With the lock held: ticket @ticket's record into its page; a full page
 * goes to the file (kept in memory if it cannot be written) and stays at
 * hand for the look-ups that follow. */
static void
put_record (StrataBlockPacker      *self,
            guint64                 ticket,
            const StrataIndexBlock *rec)
{
  guint i = (guint) (ticket % RECORDS_PAGE);
  PageRef ref = { 0 };
  RecordPage *page;
  guint k;

  g_assert (ticket / RECORDS_PAGE == self->pages->len);
  if (self->open_page == NULL)
    self->open_page = g_new (RecordPage, 1);
  self->open_page->recs[i] = *rec;
  if (i < RECORDS_PAGE - 1)
    return;

  page = g_steal_pointer (&self->open_page);
  ref.checksum = strata_index_checksum (page, sizeof *page);
  ref.offset = self->file_size;
  if (!self->pages_failed && strata_file_write_all (self->fd, (const guint8 *) page, sizeof *page, ref.offset))
    self->file_size += sizeof *page;
  else
    {
      self->pages_failed = TRUE;
      ref.held = page;
      g_array_append_val (self->pages, ref);
      return;
    }
  g_array_append_val (self->pages, ref);
  k = self->next_at_hand++ % PAGES_AT_HAND;
  g_free (self->at_hand[k]);
  self->at_hand[k] = page;
  self->at_hand_page[k] = self->pages->len - 1;
}

/* With the lock held: waits for a block to leave the queue. A GCond's
 * signal is a futex call whether or not anyone waits, and a block leaves
 * the queue hundreds of thousands of times in a big trace's pass, so the
 * packer broadcasts only when someone is here (and the submitters signal
 * the worker only when it sleeps). */
static void
wait_done (StrataBlockPacker *self)
{
  self->n_done_waiters++;
  g_cond_wait (&self->done, &self->lock);
  self->n_done_waiters--;
}

/* With the lock held: the written or failed slots at the front of the
 * ring leave it, their records to the pages. */
static void
retire_front (StrataBlockPacker *self)
{
  while (self->base < self->n_tickets)
    {
      Slot *slot = slot_of (self, self->base);
      StrataIndexBlock rec;

      if (slot->state == SLOT_QUEUED)
        break;
      rec = slot->rec;
      rec.n = slot->n;
      rec.reserved = elem_size_index (self, slot->elem_size);
      if (slot->state == SLOT_FAILED)
        {
          rec.reserved |= REC_FAILED;
          g_hash_table_insert (self->failed, g_memdup2 (&self->base, sizeof self->base),
                               g_memdup2 (slot, sizeof *slot));
        }
      put_record (self, self->base, &rec);
      self->base++;
    }
  /* A big array submitted whole grew the ring: give it back once the
   * queue has drained, all of it at once (a stage can retire thousands
   * of tickets in one call). */
  if (self->ring_mask + 1 > RING_MIN && (self->n_tickets - self->base) * 8 < self->ring_mask + 1)
    {
      guint64 cap = self->ring_mask + 1;

      do
        cap = MAX (RING_MIN, cap / 4);
      while (cap > RING_MIN && (self->n_tickets - self->base) * 8 < cap);
      ring_resize (self, cap);
    }
}

/* With the lock held: the record of ticket @ticket, which has left the
 * ring; %FALSE if its page cannot be read back. */
static gboolean
record_of (StrataBlockPacker *self,
           guint64            ticket,
           StrataIndexBlock  *rec)
{
  guint64 p = ticket / RECORDS_PAGE;
  const RecordPage *page = NULL;

  if (p == self->pages->len)
    page = self->open_page;
  else if (g_array_index (self->pages, PageRef, p).held != NULL)
    page = g_array_index (self->pages, PageRef, p).held;
  else
    {
      const PageRef *ref = &g_array_index (self->pages, PageRef, p);
      guint k;

      for (k = 0; k < PAGES_AT_HAND; k++)
        if (self->at_hand[k] != NULL && self->at_hand_page[k] == p)
          {
            page = self->at_hand[k];
            break;
          }
      if (page == NULL)
        {
          k = self->next_at_hand++ % PAGES_AT_HAND;
          if (self->at_hand[k] == NULL)
            self->at_hand[k] = g_new (RecordPage, 1);
          self->at_hand_page[k] = G_MAXUINT64;
          if (!strata_file_read_all (self->fd, self->at_hand[k], sizeof (RecordPage), ref->offset))
            return FALSE;
          if (strata_index_checksum (self->at_hand[k], sizeof (RecordPage)) != ref->checksum)
            return FALSE;
          self->at_hand_page[k] = p;
          page = self->at_hand[k];
        }
    }
  if (page == NULL)
    return FALSE;
  *rec = page->recs[ticket % RECORDS_PAGE];
  return TRUE;
}

/* With the lock held: a place given out (by pack_placed() or
 * strata_block_packer_put_bytes()) is written or has failed. */
static inline void
place_done (StrataBlockPacker *self)
{
  if (--self->in_flight == 0)
    self->quiet_end = self->file_size;
}

/* Block @ticket, packed into @rec and written (@ok) or not: it leaves
 * the queue. With the lock held. Returns the slot's reference to the
 * elements once they are written, the last one perhaps: for the caller
 * to let go outside the lock. */
static GBytes *
finish_slot (StrataBlockPacker      *self,
             guint64                 ticket,
             const StrataIndexBlock *rec,
             gboolean                ok)
{
  Slot *s = slot_of (self, ticket);
  gsize bytes = (gsize) s->n * s->elem_size;
  GBytes *drop = NULL;

  if (ok)
    {
      s->rec = *rec;
      s->state = SLOT_WRITTEN;
      drop = g_steal_pointer (&s->elems);
      self->written += bytes;
    }
  else
    {
      s->state = SLOT_FAILED;
      g_atomic_int_set (&self->failed_any, 1);
    }
  self->queued -= bytes;
  self->n_done++;
  place_done (self);
  return drop;
}

/* With the lock held: the elements in @drop let go without it. */
static void
drop_unlocked (StrataBlockPacker *self,
               GPtrArray         *drop)
{
  if (drop->len == 0)
    return;
  g_mutex_unlock (&self->lock);
  g_ptr_array_set_size (drop, 0);
  g_mutex_lock (&self->lock);
}

/* Packs block @ticket, claimed (next moved past it) by the caller, and
 * gives it its place in the file; with the lock held, dropped while
 * packing so queries and submissions go on. */
static void
pack_placed (StrataBlockPacker *self,
             guint64            ticket,
             GByteArray        *packed,
             StrataIndexBlock  *rec)
{
  Slot slot = *slot_of (self, ticket);

  g_bytes_ref (slot.elems);
  g_mutex_unlock (&self->lock);

  memset (rec, 0, sizeof *rec);
  strata_block_pack ((const guint8 *) g_bytes_get_data (slot.elems, NULL) +
                           (gsize) slot.first * slot.elem_size,
                           slot.n, slot.elem_size, self->zstd_level, packed, &rec->codec);
  rec->size = packed->len;
  rec->n = slot.n;
  rec->checksum = strata_index_checksum (packed->data, packed->len);
  /* The slot keeps its own reference until the block is written. */
  g_bytes_unref (slot.elems);

  g_mutex_lock (&self->lock);
  rec->offset = self->file_size;
  self->file_size += packed->len;
  self->in_flight++;
}

/* Packs and writes block @ticket, claimed by the caller (a submitter
 * that found the queue full), with the lock held. */
static void
pack_claimed (StrataBlockPacker *self,
              guint64            ticket,
              GByteArray        *packed)
{
  StrataIndexBlock rec;
  GBytes *drop;
  gboolean ok;

  pack_placed (self, ticket, packed, &rec);
  g_mutex_unlock (&self->lock);
  ok = !g_atomic_int_get (&self->failed_any) && strata_file_write_all (self->fd, packed->data, packed->len, rec.offset);
  g_mutex_lock (&self->lock);

  drop = finish_slot (self, ticket, &rec, ok);
  retire_front (self);
  if (self->n_done_waiters > 0)
    g_cond_broadcast (&self->done);
  if (drop != NULL)
    {
      g_mutex_unlock (&self->lock);
      g_bytes_unref (drop);
      g_mutex_lock (&self->lock);
    }
}

/* The worker's blocks go to the file in runs of consecutive places, a
 * pwrite() for up to STAGE_BYTES of them rather than one for each block
 * of a few kilobytes (the kernel's path for a write costs about what a
 * block's packing does). A staged block is still queued: read back from
 * its elements, waited for by those who wait for it. */
#define STAGE_BYTES (256u << 10)

typedef struct
{
  GByteArray *bytes;     /* the packed blocks, from offset on in the file */
  guint64     offset;
  GArray     *tickets;   /* guint64 */
  GArray     *recs;      /* StrataIndexBlock, the same order */
  GPtrArray  *drop;
} Stage;

/* With the lock held: the staged blocks written and out of the queue. */
static void
stage_flush (StrataBlockPacker *self,
             Stage             *stage)
{
  gsize done = 0;

  if (stage->tickets->len == 0)
    return;
  g_mutex_unlock (&self->lock);
  if (!g_atomic_int_get (&self->failed_any))
    done = strata_file_write_some (self->fd, stage->bytes->data, stage->bytes->len, stage->offset);
  g_mutex_lock (&self->lock);

  /* A write that failed part way (a full disk) wrote the blocks before
   * the failure: those are written, as they would have been one by one. */
  for (guint i = 0; i < stage->tickets->len; i++)
    {
      const StrataIndexBlock *rec = &g_array_index (stage->recs, StrataIndexBlock, i);
      GBytes *drop = finish_slot (self, g_array_index (stage->tickets, guint64, i), rec,
                                  rec->offset + rec->size <= stage->offset + done);

      if (drop != NULL)
        g_ptr_array_add (stage->drop, drop);
    }
  retire_front (self);
  if (self->n_done_waiters > 0)
    g_cond_broadcast (&self->done);
  g_byte_array_set_size (stage->bytes, 0);
  g_array_set_size (stage->tickets, 0);
  g_array_set_size (stage->recs, 0);
  drop_unlocked (self, stage->drop);
}

/* With the lock held: block @ticket packed and staged; the stage written
 * first if the block's place does not follow it (a submitter or a seal
 * took the places between). */
static void
stage_block (StrataBlockPacker *self,
             Stage             *stage,
             guint64            ticket,
             GByteArray        *packed)
{
  StrataIndexBlock rec;

  pack_placed (self, ticket, packed, &rec);
  if (stage->tickets->len > 0 && rec.offset != stage->offset + stage->bytes->len)
    stage_flush (self, stage);
  if (stage->tickets->len == 0)
    stage->offset = rec.offset;
  g_byte_array_append (stage->bytes, packed->data, packed->len);
  g_array_append_val (stage->tickets, ticket);
  g_array_append_val (stage->recs, rec);
}

static gpointer
packer_main (gpointer data)
{
  StrataBlockPacker *self = data;
  g_autoptr(GByteArray) packed = g_byte_array_new ();
  Stage stage = {
    g_byte_array_sized_new (STAGE_BYTES + STRATA_BLOCK_PACKER_MAX_PACKED),
    0,
    g_array_new (FALSE, FALSE, sizeof (guint64)),
    g_array_new (FALSE, FALSE, sizeof (StrataIndexBlock)),
    g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref),
  };

  g_mutex_lock (&self->lock);
  for (;;)
    {
      while (!self->quit && (self->next == self->n_tickets || self->held))
        {
          /* Nothing more to pack: what is staged goes before the wait. */
          if (stage.tickets->len > 0)
            {
              stage_flush (self, &stage);
              continue;
            }
          self->n_work_waiters++;
          g_cond_wait (&self->work, &self->lock);
          self->n_work_waiters--;
        }
      if (self->quit)
        break;
      stage_block (self, &stage, self->next++, packed);
      /* Full, or someone waits (for a staged block, perhaps). */
      if (stage.bytes->len >= STAGE_BYTES || self->n_done_waiters > 0)
        stage_flush (self, &stage);
    }
  g_mutex_unlock (&self->lock);

  g_byte_array_unref (stage.bytes);
  g_array_unref (stage.tickets);
  g_array_unref (stage.recs);
  g_ptr_array_unref (stage.drop);

  return NULL;
}

static void
failed_slot_free (gpointer data)
{
  Slot *slot = data;

  g_bytes_unref (slot->elems);
  g_free (slot);
}

/**
 * strata_block_packer_new:
 * @max_queued: bytes of elements a submission waits to see the queue
 *   under (a single bigger one is taken when the queue is empty)
 * @zstd_level: as strata_block_pack() takes it (0: varints only)
 *
 * Returns: (transfer full): a packer with its spill file open and its
 *   thread started, or %NULL if no spill file could be made
 */
StrataBlockPacker *
strata_block_packer_new (gsize    max_queued,
                         int      zstd_level,
                         GError **error)
{
  StrataBlockPacker *self;
  int fd = strata_spill_file_open (error);

  if (fd < 0)
    return NULL;

  self = g_new0 (StrataBlockPacker, 1);
  g_mutex_init (&self->submit_lock);
  g_mutex_init (&self->lock);
  g_cond_init (&self->work);
  g_cond_init (&self->done);
  self->ring = g_new (Slot, RING_MIN);
  self->ring_mask = RING_MIN - 1;
  self->pages = g_array_new (FALSE, FALSE, sizeof (PageRef));
  for (guint k = 0; k < PAGES_AT_HAND; k++)
    self->at_hand_page[k] = G_MAXUINT64;
  self->failed = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, failed_slot_free);
  self->max_queued = MAX (max_queued, 1);
  self->fd = fd;
  self->serial = (guint64) g_atomic_int_add (&packer_serials, 1) + 1;
  self->zstd_level = zstd_level;
  self->cache = strata_block_cache_new ();
  self->thread = g_thread_new ("strata-packer", packer_main, self);

  return self;
}

/* Stops the worker (blocks still queued are dropped with the rest). */
void
strata_block_packer_free (StrataBlockPacker *self)
{
  if (self == NULL)
    return;

  g_mutex_lock (&self->lock);
  self->quit = TRUE;
  g_cond_broadcast (&self->work);
  g_mutex_unlock (&self->lock);
  g_thread_join (self->thread);

  for (guint64 t = self->base; t < self->n_tickets; t++)
    g_clear_pointer (&slot_of (self, t)->elems, g_bytes_unref);
  g_free (self->ring);
  g_hash_table_unref (self->failed);
  for (guint p = 0; p < self->pages->len; p++)
    g_free (g_array_index (self->pages, PageRef, p).held);
  g_array_unref (self->pages);
  g_free (self->open_page);
  for (guint k = 0; k < PAGES_AT_HAND; k++)
    g_free (self->at_hand[k]);
  g_clear_pointer (&self->help_buf, g_byte_array_unref);
  close (self->fd);
  strata_block_cache_free (self->cache);
  g_mutex_clear (&self->submit_lock);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->work);
  g_cond_clear (&self->done);
  g_free (self);
}

/**
 * strata_block_packer_submit:
 * @elems: the array, of whole elements; the packer keeps a reference
 *   until each of its blocks is written
 * @per_block: elements per block (at most STRATA_INDEX_MAX_BLOCK_ELEMS,
 *   and STRATA_INDEX_MAX_BLOCK_BYTES a block)
 *
 * Queues @elems cut into blocks of @per_block elements, the last one
 * shorter, with consecutive tickets. Waits while the queue is full. Safe
 * to call from several threads (each array's tickets stay consecutive).
 *
 * Returns: the ticket of its first block (an empty array takes none, and
 *   gets the ticket the next block will have)
 */
static guint64 submit_locked (StrataBlockPacker *self,
                              GBytes            *elems,
                              guint32            elem_size,
                              guint              per_block);

guint64
strata_block_packer_submit (StrataBlockPacker *self,
                            GBytes            *elems,
                            guint32            elem_size,
                            guint              per_block)
{
  gsize size = g_bytes_get_size (elems);
  guint64 first;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (elem_size > 0 && elem_size <= G_MAXUINT16 && size % elem_size == 0, 0);
  g_return_val_if_fail (per_block > 0 && per_block <= STRATA_INDEX_MAX_BLOCK_ELEMS &&
                        (gsize) per_block * elem_size <= STRATA_INDEX_MAX_BLOCK_BYTES, 0);
  g_return_val_if_fail (size / elem_size <= G_MAXUINT32, 0);

  g_mutex_lock (&self->submit_lock);
  first = submit_locked (self, elems, elem_size, per_block);
  g_mutex_unlock (&self->submit_lock);
  return first;
}

/* With submit_lock held, so the tickets of what one caller submits in a
 * row are consecutive. */
static guint64
submit_locked (StrataBlockPacker *self,
               GBytes            *elems,
               guint32            elem_size,
               guint              per_block)
{
  gsize size = g_bytes_get_size (elems);
  guint64 n = size / elem_size;
  guint64 first;

  /* The queue full: the worker is behind, so this thread packs the
   * oldest block no one has taken rather than sleep (the wall time is
   * then never worse than packing in this thread), and waits only for
   * blocks already being packed. */
  g_mutex_lock (&self->lock);
  while (self->queued > 0 && self->queued + size > self->max_queued)
    {
      if (self->next < self->n_tickets)
        {
          if (self->help_buf == NULL)
            self->help_buf = g_byte_array_new ();
          pack_claimed (self, self->next++, self->help_buf);
          self->n_helped++;
        }
      else
        {
          gint64 t0 = g_get_monotonic_time ();

          wait_done (self);
          self->n_waits++;
          self->wait_us += g_get_monotonic_time () - t0;
        }
    }

  first = self->n_tickets;
  ring_reserve (self, (n + per_block - 1) / per_block);
  for (guint64 at = 0; at < n; at += per_block)
    {
      Slot *slot = slot_of (self, self->n_tickets++);

      memset (slot, 0, sizeof *slot);
      slot->elems = g_bytes_ref (elems);
      slot->first = (guint32) at;
      slot->n = (guint16) MIN ((guint64) per_block, n - at);
      slot->elem_size = (guint16) elem_size;
      slot->state = SLOT_QUEUED;
    }
  self->queued += size;
  self->peak_queued = MAX (self->peak_queued, self->queued);
  if (self->n_work_waiters > 0)
    g_cond_signal (&self->work);
  g_mutex_unlock (&self->lock);

  return first;
}

/* An array given in pieces: whole blocks go to the queue a batch at a
 * time, so only a batch and the queue are held. */
struct _StrataBlockStream
{
  StrataBlockPacker *packer;
  guint32            elem_size;
  guint              per_block;
  guint              batch;      /* elements per batch: whole blocks */
  guint8            *buf;        /* the batch being filled */
  gsize              n_buf;      /* elements in it */
  guint64            first;      /* the ticket of the array's first block */
  gboolean           started;
  guint64            n;          /* elements so far */
};

#define STREAM_BATCH_BLOCKS 32

/**
 * strata_block_packer_begin:
 *
 * Starts an array to be given in pieces (strata_block_stream_add()), cut
 * into blocks of @per_block elements as strata_block_packer_submit()
 * would cut it whole. Other submissions wait until
 * strata_block_stream_end().
 *
 * Returns: (transfer full): the stream
 */
StrataBlockStream *
strata_block_packer_begin (StrataBlockPacker *self,
                           guint32            elem_size,
                           guint              per_block)
{
  StrataBlockStream *stream;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (elem_size > 0 && elem_size <= G_MAXUINT16, NULL);
  g_return_val_if_fail (per_block > 0 && per_block <= STRATA_INDEX_MAX_BLOCK_ELEMS &&
                        (gsize) per_block * elem_size <= STRATA_INDEX_MAX_BLOCK_BYTES, NULL);

  g_mutex_lock (&self->submit_lock);
  stream = g_new0 (StrataBlockStream, 1);
  stream->packer = self;
  stream->elem_size = elem_size;
  stream->per_block = per_block;
  stream->batch = per_block * STREAM_BATCH_BLOCKS;
  stream->buf = g_malloc ((gsize) stream->batch * elem_size);
  g_mutex_lock (&self->lock);
  stream->first = self->n_tickets;
  g_mutex_unlock (&self->lock);
  return stream;
}

static void
stream_flush (StrataBlockStream *stream)
{
  GBytes *bytes;

  if (stream->n_buf == 0)
    return;
  bytes = g_bytes_new_take (g_steal_pointer (&stream->buf), stream->n_buf * stream->elem_size);
  submit_locked (stream->packer, bytes, stream->elem_size, stream->per_block);
  g_bytes_unref (bytes);
  stream->n_buf = 0;
  stream->buf = g_malloc ((gsize) stream->batch * stream->elem_size);
}

/* Appends @n elements to the stream's array. */
void
strata_block_stream_add (StrataBlockStream *stream,
                         const void        *elems,
                         gsize              n)
{
  const guint8 *p = elems;

  while (n > 0)
    {
      gsize take = MIN (n, stream->batch - stream->n_buf);

      memcpy (stream->buf + stream->n_buf * stream->elem_size, p, take * stream->elem_size);
      stream->n_buf += take;
      stream->n += take;
      p += take * stream->elem_size;
      n -= take;
      if (stream->n_buf == stream->batch)
        stream_flush (stream);
    }
}

/**
 * strata_block_stream_end:
 * @n: (out) (optional): how many elements the array has
 *
 * Submits what is left of the array (its last block may be short) and
 * frees @stream; other submissions may go on.
 *
 * Returns: the ticket of the array's first block
 */
guint64
strata_block_stream_end (StrataBlockStream *stream,
                         guint64           *n)
{
  StrataBlockPacker *self = stream->packer;
  guint64 first = stream->first;

  stream_flush (stream);
  if (n != NULL)
    *n = stream->n;
  g_free (stream->buf);
  g_free (stream);
  g_mutex_unlock (&self->submit_lock);
  return first;
}

/**
 * strata_block_packer_put_bytes:
 *
 * Appends @size bytes of the caller's own (not a block, no ticket) to the
 * spill file, written at once on the calling thread, for a user that
 * moves its own records out of memory (the raw store's exited channels).
 *
 * Returns: their offset, to read them back with
 *   strata_block_packer_read_at(); G_MAXUINT64 if they could not be
 *   written
 */
guint64
strata_block_packer_put_bytes (StrataBlockPacker *self,
                               gconstpointer      bytes,
                               gsize              size)
{
  StrataBytesPart part = { bytes, size };

  return strata_block_packer_put_parts (self, &part, 1);
}

/**
 * strata_block_packer_put_parts:
 *
 * strata_block_packer_put_bytes() of @parts laid end to end, which the
 * caller need not copy into one piece first (a chunk's spans and lane
 * changes, tens of MB over a million threads).
 *
 * Returns: the offset of the first, G_MAXUINT64 if they could not be
 *   written
 */
guint64
strata_block_packer_put_parts (StrataBlockPacker     *self,
                               const StrataBytesPart *parts,
                               guint                  n_parts)
{
  return strata_block_packer_put_parts_full (self, parts, n_parts, NULL, NULL);
}

/* What strata_block_packer_put_parts_full() writes at a time. */
#define PUT_WINDOW ((gsize) 1 << 20)

/**
 * strata_block_packer_put_parts_full:
 * @written: (nullable): called after each stretch of a part is written,
 *   at most a MiB of it, in order
 *
 * strata_block_packer_put_parts(), telling @written of each stretch as it
 * is written: the caller hashes what it wrote, and lets go of parts read
 * from a spill file's mapping behind the write, so writing them does not
 * bring them all back into memory at once.
 */
guint64
strata_block_packer_put_parts_full (StrataBlockPacker     *self,
                                    const StrataBytesPart *parts,
                                    guint                  n_parts,
                                    StrataPartWritten      written,
                                    gpointer               user_data)
{
  guint64 offset, at;
  gsize size = 0;
  gboolean ok;

  g_return_val_if_fail (self != NULL, G_MAXUINT64);

  for (guint i = 0; i < n_parts; i++)
    size += parts[i].size;
  g_mutex_lock (&self->lock);
  offset = self->file_size;
  self->file_size += size;
  self->in_flight++;
  g_mutex_unlock (&self->lock);
  ok = !g_atomic_int_get (&self->failed_any);
  at = offset;
  for (guint i = 0; i < n_parts && ok; i++)
    for (gsize from = 0; from < parts[i].size && ok; from += PUT_WINDOW)
      {
        gsize n = MIN (PUT_WINDOW, parts[i].size - from);

        ok = strata_file_write_all (self->fd, (const guint8 *) parts[i].bytes + from, n, at);
        at += n;
        if (ok && written != NULL)
          written (i, (const guint8 *) parts[i].bytes + from, n, from, user_data);
      }
  g_mutex_lock (&self->lock);
  place_done (self);
  g_mutex_unlock (&self->lock);
  return ok ? offset : G_MAXUINT64;
}

/* What a thread read of a packer's file beyond what it asked for. Once
 * the pass has ended, the file is read in the order it was written (the
 * index writer copies each lane's and chunk's blocks, the first chunks
 * read each lane's), a few kilobytes a block: a read of more serves the
 * blocks after it in that stretch. What a thread reads ahead starts at
 * READ_START and doubles, up to READ_AHEAD, while its reads go on
 * forward (a look-up here and there, as a frame's on-demand parts make,
 * pays for little more than its block). Only bytes that are
 * written for good are read ahead (below quiet_end: nothing is placed
 * there that is not written or failed, and places are never given
 * twice), so what the buffer holds stays true. */
#define READ_AHEAD  (128u << 10)
#define READ_START  (16u << 10)
#define READ_SMALL  (4u << 10)

typedef struct
{
  guint64 serial;      /* the packer, 0: none */
  guint64 offset;
  gsize   len;
  guint64 last_end;    /* where this thread's last read of it ended */
  gsize   window;      /* what the next read forward reads */
  guint8  bytes[READ_AHEAD];
} ReadAhead;

static GPrivate read_ahead_key = G_PRIVATE_INIT (g_free);

/* @size bytes at @offset into @out: from the thread's read-ahead, or
 * read, and then, if they are written for good and the read follows the
 * thread's last one (or is small: a seal's header, its body after it),
 * with what comes after them. */
static gboolean
read_through (StrataBlockPacker *self,
              guint8            *out,
              gsize              size,
              guint64            offset)
{
  ReadAhead *ra = g_private_get (&read_ahead_key);
  guint64 quiet;
  gsize want;

  if (ra != NULL && ra->serial == self->serial &&
      offset >= ra->offset && offset + size <= ra->offset + ra->len)
    {
      memcpy (out, ra->bytes + (offset - ra->offset), size);
      ra->last_end = offset + size;
      return TRUE;
    }

  if (size >= READ_AHEAD)
    return strata_file_read_all (self->fd, out, size, offset);

  g_mutex_lock (&self->lock);
  quiet = self->quiet_end;
  g_mutex_unlock (&self->lock);

  if (ra == NULL)
    {
      ra = g_new0 (ReadAhead, 1);
      g_private_set (&read_ahead_key, ra);
    }
  if (ra->serial != self->serial)
    {
      ra->serial = self->serial;
      ra->len = 0;
      ra->last_end = G_MAXUINT64;
      ra->window = READ_START;
    }

  /* A stretch read forward, or a small read: worth reading on. */
  if (offset >= ra->last_end && offset - ra->last_end < READ_AHEAD)
    {
      want = ra->window;
      ra->window = MIN (2 * ra->window, READ_AHEAD);
    }
  else
    {
      ra->window = READ_START;
      want = size < READ_SMALL ? READ_SMALL : size;
    }
  if (offset + size > quiet || want <= size)
    {
      ra->last_end = offset + size;
      return strata_file_read_all (self->fd, out, size, offset);
    }

  /* The file may end before its places do: where writes failed (a full
   * disk), nothing was written after. */
  want = (gsize) MIN ((guint64) want, quiet - offset);
  ra->len = strata_file_read_some (self->fd, ra->bytes, want, offset);
  ra->offset = offset;
  ra->last_end = offset + size;
  if (ra->len < size)
    {
      ra->len = 0;
      return FALSE;
    }
  memcpy (out, ra->bytes, size);
  return TRUE;
}

/* Bytes strata_block_packer_put_bytes() wrote, or part of them. */
gboolean
strata_block_packer_read_at (StrataBlockPacker *self,
                             guint64            offset,
                             gpointer           out,
                             gsize              size)
{
  return read_through (self, out, size, offset);
}

/* Like strata_block_packer_read_at(), without the read-ahead: for a
 * reader that keeps its own windows of the file (strata-file-windows.c)
 * and reads a page where the file is read here and there. */
gboolean
strata_block_packer_read_at_direct (StrataBlockPacker *self,
                                    guint64            offset,
                                    gpointer           out,
                                    gsize              size)
{
  return strata_file_read_all (self->fd, out, size, offset);
}

/* Block @ticket's packed bytes back from the file into @out (at least
 * STRATA_BLOCK_PACKER_MAX_PACKED bytes), as its record says. */
gboolean
strata_block_packer_read_bytes (StrataBlockPacker      *self,
                                const StrataIndexBlock *rec,
                                guint8                 *out)
{
  if (rec->size > STRATA_BLOCK_PACKER_MAX_PACKED || !read_through (self, out, rec->size, rec->offset))
    return FALSE;
  return strata_index_checksum (out, rec->size) == rec->checksum;
}

static gboolean
read_bytes_of (const StrataIndexBlock *rec,
               guint8                 *out,
               gpointer                data)
{
  return strata_block_packer_read_bytes (data, rec, out);
}

static guint
read_block (StrataBlockPacker      *self,
            guint64                 ticket,
            void                   *out,
            gboolean                cached,
            StrataBlockBytesReader  read_bytes,
            gpointer                data)
{
  guint8 bytes[STRATA_BLOCK_PACKER_MAX_PACKED];
  StrataIndexBlock rec;
  guint32 elem_size = 0;
  gpointer dctx;
  gboolean ok;

  g_mutex_lock (&self->lock);
  if (ticket >= self->n_tickets)
    {
      g_mutex_unlock (&self->lock);
      return 0;
    }
  {
    const Slot *slot = NULL;

    if (ticket >= self->base)
      slot = slot_of (self, ticket);
    else if (!record_of (self, ticket, &rec))
      {
        g_mutex_unlock (&self->lock);
        return 0;
      }
    else if (rec.reserved & REC_FAILED)
      {
        if ((slot = g_hash_table_lookup (self->failed, &ticket)) == NULL)
          {
            g_mutex_unlock (&self->lock);
            return 0;
          }
      }
    else
      {
        elem_size = self->elem_sizes[rec.reserved];
        rec.reserved = 0;
      }

    if (slot != NULL && slot->state != SLOT_WRITTEN)
      {
        guint n = slot->n;

        memcpy (out, (const guint8 *) g_bytes_get_data (slot->elems, NULL) + (gsize) slot->first * slot->elem_size,
                (gsize) n * slot->elem_size);
        g_mutex_unlock (&self->lock);
        return n;
      }
    if (slot != NULL)
      {
        rec = slot->rec;
        elem_size = slot->elem_size;
      }
  }
  g_mutex_unlock (&self->lock);

  if (cached && strata_block_cache_get (self->cache, 0, ticket, out, (gsize) rec.n * elem_size))
    return rec.n;
  if (read_bytes == NULL)
    {
      read_bytes = read_bytes_of;
      data = self;
    }
  if (!read_bytes (&rec, bytes, data))
    return 0;
  dctx = strata_block_cache_take_dctx (self->cache);
  ok = strata_block_unpack (bytes, rec.size, rec.codec, rec.n, elem_size, dctx, out);
  strata_block_cache_give_dctx (self->cache, dctx);
  if (!ok)
    return 0;
  if (cached)
    strata_block_cache_put (self->cache, 0, ticket, out, (gsize) rec.n * elem_size);
  return rec.n;
}

/**
 * strata_block_packer_read:
 * @out: room for the block's elements
 *
 * Block @ticket's elements, whether it is still queued or written. Never
 * waits for the worker.
 *
 * Returns: how many, or 0 if it cannot be read back (the file failed)
 */
guint
strata_block_packer_read (StrataBlockPacker *self,
                          guint64            ticket,
                          void              *out)
{
  return read_block (self, ticket, out, TRUE, NULL, NULL);
}

/**
 * strata_block_packer_read_with:
 * @read_bytes: how the block's packed bytes are read from the file
 *
 * Like strata_block_packer_read(), for a reader that has the file's bytes
 * nearer than the packer's read-ahead (the raw store's windows, while the
 * tree's finish or the index writer walks its lanes): a block not in the
 * cache and not queued has its bytes read by @read_bytes, which checks
 * them against the record as strata_block_packer_read_bytes() does.
 */
guint
strata_block_packer_read_with (StrataBlockPacker      *self,
                               guint64                 ticket,
                               void                   *out,
                               StrataBlockBytesReader  read_bytes,
                               gpointer                data)
{
  return read_block (self, ticket, out, TRUE, read_bytes, data);
}

/**
 * strata_block_packer_read_direct:
 *
 * Like strata_block_packer_read(), for a reader that keeps the blocks it
 * decodes (a query's result): the cache of decoded blocks is neither
 * looked in nor filled.
 */
guint
strata_block_packer_read_direct (StrataBlockPacker *self,
                                 guint64            ticket,
                                 void              *out)
{
  return read_block (self, ticket, out, FALSE, NULL, NULL);
}

/**
 * strata_block_packer_append:
 * @first_ticket: the first block of an array strata_block_packer_submit()
 *   took, of @n elements
 * @per_block: as it was submitted
 * @out: an array of the array's elements
 *
 * Appends elements [@from, @from + @count) of that array to @out, as
 * strata_packed_array_append() does for an array mapped from an index.
 *
 * Returns: %FALSE (and @out as it was) if a block cannot be read back
 */
gboolean
strata_block_packer_append (StrataBlockPacker *self,
                            guint64            first_ticket,
                            guint              per_block,
                            guint64            n,
                            guint64            from,
                            guint64            count,
                            GArray            *out)
{
  guint64 block64[STRATA_INDEX_MAX_BLOCK_BYTES / 8];
  guint elem_size = g_array_get_element_size (out);
  guint len = out->len;

  if (count == 0)
    return TRUE;
  if (from > n || count > n - from || per_block == 0 || (gsize) per_block * elem_size > sizeof block64)
    return FALSE;

  for (guint64 b = from / per_block; b <= (from + count - 1) / per_block; b++)
    {
      guint64 first = b * per_block;
      guint nb = (guint) MIN ((guint64) per_block, n - first);
      guint64 lo = MAX (first, from), hi = MIN (first + nb, from + count);

      if (strata_block_packer_read (self, first_ticket + b, block64) != nb)
        {
          g_array_set_size (out, len);
          return FALSE;
        }
      g_array_append_vals (out, (const guint8 *) block64 + (lo - first) * elem_size, (guint) (hi - lo));
    }
  return TRUE;
}

/**
 * strata_block_packer_get_record:
 * @rec: (out): its record, the offset in the spill file
 *
 * Waits until block @ticket has left the queue.
 *
 * Returns: %FALSE if it could not be written (its elements are still
 *   there to read)
 */
gboolean
strata_block_packer_get_record (StrataBlockPacker *self,
                                guint64            ticket,
                                StrataIndexBlock  *rec)
{
  gboolean ok = FALSE;

  g_mutex_lock (&self->lock);
  if (ticket < self->n_tickets)
    {
      while (ticket >= self->base && slot_of (self, ticket)->state == SLOT_QUEUED && !self->quit)
        wait_done (self);
      if (ticket >= self->base)
        {
          ok = slot_of (self, ticket)->state == SLOT_WRITTEN;
          if (ok)
            *rec = slot_of (self, ticket)->rec;
        }
      else
        {
          ok = record_of (self, ticket, rec) && !(rec->reserved & REC_FAILED);
          rec->reserved = 0;
        }
    }
  g_mutex_unlock (&self->lock);
  return ok;
}

/* Waits until every block submitted has left the queue. */
void
strata_block_packer_flush (StrataBlockPacker *self)
{
  g_mutex_lock (&self->lock);
  while (self->n_done < self->n_tickets && !self->quit)
    wait_done (self);
  g_mutex_unlock (&self->lock);
}

int
strata_block_packer_get_zstd_level (StrataBlockPacker *self)
{
  return self->zstd_level;
}

/**
 * strata_block_packer_set_held:
 * @held: whether the worker thread leaves the queue alone
 *
 * For tests: while held, blocks stay queued (unless a submitter finds
 * the queue full and packs them itself), so what reads them while queued
 * can be checked. Waiting for a block (strata_block_packer_get_record(),
 * strata_block_packer_flush()) while held waits until it is let go.
 */
void
strata_block_packer_set_held (StrataBlockPacker *self,
                              gboolean           held)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->lock);
  self->held = held;
  g_cond_broadcast (&self->work);
  g_mutex_unlock (&self->lock);
}

/* Whether a block could not be written: hand it no more. */
gboolean
strata_block_packer_has_failed (StrataBlockPacker *self)
{
  return g_atomic_int_get (&self->failed_any);
}

void
strata_block_packer_get_stats (StrataBlockPacker      *self,
                               StrataBlockPackerStats *stats)
{
  g_mutex_lock (&self->lock);
  stats->queued = self->queued;
  stats->peak_queued = self->peak_queued;
  stats->max_queued = self->max_queued;
  stats->n_blocks = self->n_tickets;
  stats->records = (gsize) (self->ring_mask + 1) * sizeof (Slot) + self->pages->len * sizeof (PageRef) +
                   (self->open_page != NULL) * sizeof (RecordPage) + g_hash_table_size (self->failed) * sizeof (Slot);
  for (guint k = 0; k < PAGES_AT_HAND; k++)
    stats->records += (self->at_hand[k] != NULL) * sizeof (RecordPage);
  for (guint p = 0; p < self->pages->len; p++)
    stats->records += (g_array_index (self->pages, PageRef, p).held != NULL) * sizeof (RecordPage);
  stats->written = self->written;
  stats->file_size = self->file_size;
  stats->n_waits = self->n_waits;
  stats->wait_us = self->wait_us;
  stats->n_helped = self->n_helped;
  g_mutex_unlock (&self->lock);
}
