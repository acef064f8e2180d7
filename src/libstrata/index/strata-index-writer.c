/* strata-index-writer.c
 *
 * Writes a trace that one pass built (its zoom tree finished) into an
 * index file: sections one after the other, each 64-byte aligned, every
 * array with a checksum per block, the header last, at offset 0. The file
 * is written unnamed in the same folder (O_TMPFILE; a temporary name
 * where the file system has no unnamed files), synced, and given its name
 * only when complete: a full disk, a failed write or an interruption
 * leave nothing under the final name, and (unnamed) nothing at all.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <xxhash.h>

#include "strata-error.h"
#include "strata-index.h"
#include "strata-block-codec.h"
#include "strata-chunk-keys.h"
#include "strata-index-private.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-spill-file.h"
#include "strata-stats.h"
#include "strata-trace-private.h"
#include "strata-zoom-tree-private.h"

typedef struct
{
  FILE       *file;
  const char *path;
  guint64     offset;
  int         error;     /* errno of the first failure */
  int         zstd_level;
  guint       alignment; /* of what align() starts: 0 for STRATA_INDEX_ALIGN */
  GByteArray *block;     /* scratch: one packed block */
  GArray     *records;   /* scratch: StrataIndexBlock */
  /* Scratch of the raw store's lanes, one for all (a million threads'
   * lanes allocated theirs each, a few of a few bytes each). */
  guint8              *packed;   /* STRATA_BLOCK_PACKER_MAX_PACKED bytes */
  StrataActivity      *elems;    /* STRATA_INDEX_ACTIVITY_BLOCK */
  StrataRawStoreFence *fences;   /* STRATA_INDEX_FENCE_BLOCK */
  GArray              *sums;     /* guint64 */
} Writer;

/* The index file's stdio buffer, our own: glibc takes setvbuf()'s size
 * only with one, and wrote the index 4 KiB a write() (24 000 writes for
 * 100 MB). */
#define WRITE_BUFFER ((gsize) 1 << 20)

static void
put (Writer     *w,
     const void *data,
     gsize       size)
{
  if (w->error != 0 || size == 0)
    return;
  if (fwrite (data, 1, size, w->file) != size)
    w->error = errno != 0 ? errno : EIO;
  w->offset += size;
}

static void
align (Writer *w)
{
  static const guint8 zeros[STRATA_INDEX_ALIGN];
  guint64 to = w->alignment != 0 ? w->alignment : STRATA_INDEX_ALIGN;

  put (w, zeros, (to - w->offset % to) % to);
}

/* Writes @n elements and then their block checksums; returns the offset
 * of the elements, *sums_offset that of the checksums. */
static guint64
put_checked (Writer     *w,
             const void *data,
             guint64     n,
             gsize       elem_size,
             guint       per_block,
             guint64    *sums_offset)
{
  const guint8 *bytes = data;
  guint64 offset;

  align (w);
  offset = w->offset;
  put (w, data, n * elem_size);
  align (w);
  *sums_offset = w->offset;
  for (guint64 first = 0; first < n; first += per_block)
    {
      guint64 sum = strata_index_checksum (bytes + first * elem_size,
                                           MIN (per_block, n - first) * elem_size);

      put (w, &sum, sizeof sum);
    }
  return offset;
}

/* Writes @n elements packed, block by block, then their blocks' records
 * as a checked array; returns the records' offset, *sums_offset that of
 * their checksums. */
static guint64
put_packed (Writer     *w,
            const void *data,
            guint64     n,
            guint32     elem_size,
            guint       per_block,
            guint64    *sums_offset)
{
  const guint8 *bytes = data;

  g_array_set_size (w->records, 0);
  for (guint64 first = 0; first < n; first += per_block)
    {
      guint len = (guint) MIN ((guint64) per_block, n - first);
      StrataIndexBlock rec = { 0 };

      strata_block_pack (bytes + first * elem_size, len, elem_size, w->zstd_level, w->block, &rec.codec);
      rec.offset = w->offset;
      rec.size = w->block->len;
      rec.n = len;
      rec.checksum = strata_index_checksum (w->block->data, w->block->len);
      put (w, w->block->data, w->block->len);
      g_array_append_val (w->records, rec);
    }

  return put_checked (w, w->records->data, w->records->len, sizeof (StrataIndexBlock),
                      STRATA_INDEX_TABLE_BLOCK, sums_offset);
}

/* A lane of the raw store: its blocks spilled during the pass, their
 * bytes copied as the packer wrote them (the same codec at the same
 * level; a short one only last, as the writer would cut it), or, where
 * they were not written (another level, a failed file), packed again from
 * the elements; then its activities still in memory packed; then the
 * records of all. The tickets of the spilled blocks are read part by
 * part (a long lane's are in pages in the spill file); *n_acts is the
 * lane's activities. */
static guint64
put_spilled_and_packed (Writer                      *w,
                        StrataRawStore              *raw,
                        guint32                      channel,
                        guint                        lane,
                        guint                        n_spilled,
                        const StrataActivity        *acts,
                        guint                        n,
                        guint32                     *n_acts,
                        guint64                     *sums_offset)
{
  StrataBlockPacker *packer = strata_raw_store_get_packer (raw);
  const StrataRawStoreSpilled *spilled;
  const StrataRawStoreFence *fences;
  GArray *records = w->records;
  guint n_part, n_fences, seen = 0;
  gboolean copy;

  *n_acts = n;
  if (n_spilled == 0)
    return put_packed (w, acts, n, sizeof *acts, STRATA_INDEX_ACTIVITY_BLOCK, sums_offset);

  g_assert (packer != NULL);
  copy = strata_block_packer_get_zstd_level (packer) == w->zstd_level;
  g_array_set_size (records, 0);
  for (guint part = 0;
       strata_raw_store_read_lane_part (raw, channel, lane, part, &spilled, &n_part, &fences, &n_fences);
       part++)
    for (guint b = 0; b < n_part; b++)
      {
        StrataIndexBlock rec = { 0 };
        StrataRawStoreSpilled one = spilled[b];

        if (copy && strata_block_packer_get_record (packer, one.ticket, &rec) &&
            rec.n == one.n && strata_raw_store_read_block_bytes (raw, &rec, w->packed))
          {
            rec.offset = w->offset;
            put (w, w->packed, rec.size);
          }
        else if (strata_block_packer_read (packer, one.ticket, w->elems) == one.n)
          {
            strata_block_pack (w->elems, one.n, sizeof *w->elems, w->zstd_level, w->block, &rec.codec);
            rec.offset = w->offset;
            rec.size = w->block->len;
            rec.n = one.n;
            rec.checksum = strata_index_checksum (w->block->data, w->block->len);
            put (w, w->block->data, w->block->len);
          }
        else
          {
            w->error = EIO;
            return 0;
          }
        g_array_append_val (records, rec);
        *n_acts += one.n;
        seen++;
      }
  if (seen != n_spilled)
    {
      w->error = EIO;
      return 0;
    }
  for (guint64 first = 0; first < n; first += STRATA_INDEX_ACTIVITY_BLOCK)
    {
      guint len = (guint) MIN ((guint64) STRATA_INDEX_ACTIVITY_BLOCK, n - first);
      StrataIndexBlock rec = { 0 };

      strata_block_pack (acts + first, len, sizeof *acts, w->zstd_level, w->block, &rec.codec);
      rec.offset = w->offset;
      rec.size = w->block->len;
      rec.n = len;
      rec.checksum = strata_index_checksum (w->block->data, w->block->len);
      put (w, w->block->data, w->block->len);
      g_array_append_val (records, rec);
    }

  return put_checked (w, records->data, records->len, sizeof (StrataIndexBlock),
                      STRATA_INDEX_TABLE_BLOCK, sums_offset);
}

/* A lane's fences, as put_checked() writes an array, read part by part
 * (a long lane's are in pages in the spill file) through a buffer of
 * one checksummed block; *n_fences is how many. */
static guint64
put_lane_fences (Writer         *w,
                 StrataRawStore *raw,
                 guint32         channel,
                 guint           lane,
                 guint32        *n_fences,
                 guint64        *sums_offset)
{
  GArray *sums = w->sums;
  StrataRawStoreFence *buf = w->fences;
  const StrataRawStoreSpilled *spilled;
  const StrataRawStoreFence *fences;
  guint n_part, n_spilled, in_buf = 0;
  guint64 offset;

  *n_fences = 0;
  g_array_set_size (sums, 0);
  align (w);
  offset = w->offset;
  for (guint part = 0;
       strata_raw_store_read_lane_part (raw, channel, lane, part, &spilled, &n_spilled, &fences, &n_part);
       part++)
    for (guint i = 0; i < n_part;)
      {
        guint k = MIN (n_part - i, STRATA_INDEX_FENCE_BLOCK - in_buf);

        memcpy (buf + in_buf, fences + i, k * sizeof *buf);
        in_buf += k;
        i += k;
        *n_fences += k;
        if (in_buf == STRATA_INDEX_FENCE_BLOCK)
          {
            guint64 sum = strata_index_checksum (buf, in_buf * sizeof *buf);

            put (w, buf, in_buf * sizeof *buf);
            g_array_append_val (sums, sum);
            in_buf = 0;
          }
      }
  if (in_buf > 0)
    {
      guint64 sum = strata_index_checksum (buf, in_buf * sizeof *buf);

      put (w, buf, in_buf * sizeof *buf);
      g_array_append_val (sums, sum);
    }
  align (w);
  *sums_offset = w->offset;
  put (w, sums->data, sums->len * sizeof (guint64));
  return offset;
}

/* A chunk's items spilled during the pass (strata-block-packer.c): each
 * block's bytes copied as the packer wrote them (the same codec at the
 * same level, so the same bytes put_packed() would write), or, where they
 * could not be written or were packed at another level, packed here from
 * its elements; then the records, as put_packed() leaves them. */
static guint64
put_spilled_items (Writer            *w,
                   StrataBlockPacker *packer,
                   guint64            first_block,
                   guint64            n,
                   guint64           *sums_offset)
{
  guint8 *bytes = w->packed;
  guint64 elems[STRATA_INDEX_MAX_BLOCK_BYTES / 8];
  gboolean copy = strata_block_packer_get_zstd_level (packer) == w->zstd_level;

  g_array_set_size (w->records, 0);
  for (guint64 b = 0; b * STRATA_INDEX_ITEM_BLOCK < n; b++)
    {
      guint len = (guint) MIN ((guint64) STRATA_INDEX_ITEM_BLOCK, n - b * STRATA_INDEX_ITEM_BLOCK);
      StrataIndexBlock rec = { 0 };

      if (copy && strata_block_packer_get_record (packer, first_block + b, &rec) &&
          rec.n == len && strata_block_packer_read_bytes (packer, &rec, bytes))
        {
          rec.offset = w->offset;
          put (w, bytes, rec.size);
        }
      else if (strata_block_packer_read (packer, first_block + b, elems) == len)
        {
          memset (&rec, 0, sizeof rec);
          strata_block_pack (elems, len, sizeof (StrataZoomItem), w->zstd_level, w->block, &rec.codec);
          rec.offset = w->offset;
          rec.size = w->block->len;
          rec.n = len;
          rec.checksum = strata_index_checksum (w->block->data, w->block->len);
          put (w, w->block->data, w->block->len);
        }
      else
        {
          w->error = EIO;
          return 0;
        }
      g_array_append_val (w->records, rec);
    }

  return put_checked (w, w->records->data, w->records->len, sizeof (StrataIndexBlock),
                      STRATA_INDEX_TABLE_BLOCK, sums_offset);
}

/* A spilled chunk's spans, keys and lane changes, laid out in the
 * packer's file as the index lays them out: copied a window at a time,
 * checked against the checksum the tree took when it wrote them (the
 * index's checksum of them too). FALSE if they cannot be read or are
 * damaged. */
#define PIECE_WINDOW ((gsize) 1 << 20)

static gboolean
put_spilled_piece (Writer                    *w,
                   const StrataZoomChunkView *view,
                   guint64                   *checksum)
{
  g_autofree guint8 *window = g_malloc (MIN (MAX (view->piece_size, 1), PIECE_WINDOW));
  StrataIndexHasher *hasher = strata_index_hasher_new ();
  gboolean ok = TRUE;

  for (gsize at = 0; at < view->piece_size && ok && w->error == 0; at += PIECE_WINDOW)
    {
      gsize n = MIN (PIECE_WINDOW, view->piece_size - at);

      ok = strata_block_packer_read_at (view->packer, view->piece_offset + at, window, n);
      if (ok)
        {
          strata_index_hasher_add (hasher, window, n);
          put (w, window, n);
        }
    }
  *checksum = strata_index_hasher_free (hasher);
  return ok && *checksum == view->piece_checksum;
}

static void
put_section (Writer             *w,
             StrataIndexSection *section,
             const void         *data,
             gsize               size)
{
  align (w);
  section->offset = w->offset;
  section->size = size;
  section->checksum = strata_index_checksum (data, size);
  put (w, data, size);
}

/* put_section() of the channels, hashed and written a window at a time,
 * each let go of once written: a million threads' channels are 40 MB,
 * mostly in the pass's spill file, and are not brought back all at once. */
static void
put_channels_section (Writer              *w,
                      StrataIndexSection  *section,
                      StrataTrace         *trace,
                      const StrataChannel *channels,
                      guint                n_channels)
{
  XXH3_state_t *hash = XXH3_createState ();

  align (w);
  section->offset = w->offset;
  section->size = (gsize) n_channels * sizeof (StrataChannel);
  XXH3_64bits_reset (hash);
  for (guint first = 0; first < n_channels; first += STRATA_TRACE_LET_GO_EVERY)
    {
      gsize size = (gsize) MIN (n_channels - first, STRATA_TRACE_LET_GO_EVERY) * sizeof (StrataChannel);

      XXH3_64bits_update (hash, channels + first, size);
      put (w, channels + first, size);
      strata_trace_let_go_channels (trace);
    }
  section->checksum = XXH3_64bits_digest (hash);
  XXH3_freeState (hash);
}

/* StrataParameters.debug_memory (STRATA_DEBUG_MEMORY=1): the process's
 * anonymous memory and its peak as each part of the index is written,
 * where the index build's peak is on a trace of many threads. */
static void
note_memory (const StrataParameters *parameters,
             const char             *where)
{
  char status[4096];
  const char *anon, *hwm;
  FILE *file;
  gsize n;

  if (!parameters->debug_memory || (file = fopen ("/proc/self/status", "r")) == NULL)
    return;
  n = fread (status, 1, sizeof status - 1, file);
  status[n] = '\0';
  fclose (file);
  anon = strstr (status, "RssAnon:");
  hwm = strstr (status, "VmHWM:");
  g_message ("index writer, %s: %.*s, %.*s", where,
             anon != NULL ? (int) strcspn (anon, "\n") : 0, anon != NULL ? anon : "",
             hwm != NULL ? (int) strcspn (hwm, "\n") : 0, hwm != NULL ? hwm : "");
}

typedef struct
{
  Writer      *w;
  XXH3_state_t *hash;
} RowsSection;

static gboolean
put_rows (const StrataThreadStats *rows,
          gsize                    n,
          gpointer                 user_data)
{
  RowsSection *r = user_data;

  XXH3_64bits_update (r->hash, rows, n * sizeof *rows);
  put (r->w, rows, n * sizeof *rows);
  return r->w->error == 0;
}

/* The statistics' thread rows section from @thread_rows as they are
 * merged, the same bytes and checksum as put_section() of them all. */
static void
put_rows_section (Writer             *w,
                  StrataIndexSection *section,
                  StrataThreadRows   *thread_rows)
{
  g_autoptr(GError) error = NULL;
  RowsSection r = { w, XXH3_createState () };

  align (w);
  section->offset = w->offset;
  section->size = strata_thread_rows_get_count (thread_rows) * sizeof (StrataThreadStats);
  XXH3_64bits_reset (r.hash);
  if (!strata_thread_rows_foreach (thread_rows, put_rows, &r, &error) && w->error == 0)
    {
      g_debug ("index: %s", error != NULL ? error->message : "the thread rows stopped");
      w->error = EIO;
    }
  section->checksum = XXH3_64bits_digest (r.hash);
  XXH3_freeState (r.hash);
}

static GVariant *
latency_variant (const StrataLatency *l)
{
  return g_variant_new ("(xxxxu)", l->p50, l->p90, l->p99, l->max, l->count);
}

static GVariant *
meta_variant (StrataTrace *trace)
{
  const StrataSourceInfo *info = strata_trace_get_info (trace);
  const StrataStats *stats = strata_trace_get_stats (trace);
  const StrataEventCount *counts;
  const GError *damage = strata_trace_get_damage (trace);
  g_autoptr(GVariantDict) dict = g_variant_dict_new (NULL);
  GVariantBuilder b;
  guint n_counts, n_channels;

  g_variant_dict_insert (dict, "format", "s", info->format ? info->format : "");
  g_variant_dict_insert (dict, "version", "s", info->version ? info->version : "");
  g_variant_dict_insert (dict, "compression", "s", info->compression ? info->compression : "");
  g_variant_dict_insert (dict, "clock", "s", info->clock ? info->clock : "");
  g_variant_dict_insert (dict, "n-cpus", "u", info->n_cpus);
  if (info->hostname != NULL)
    g_variant_dict_insert (dict, "hostname", "s", info->hostname);
  if (info->kernel_release != NULL)
    g_variant_dict_insert (dict, "kernel-release", "s", info->kernel_release);
  if (info->details != NULL && info->details->len > 0)
    {
      g_variant_builder_init (&b, G_VARIANT_TYPE ("a(ss)"));
      for (guint i = 0; i < info->details->len; i++)
        {
          const StrataSourceDetail *d = &g_array_index (info->details, StrataSourceDetail, i);

          g_variant_builder_add (&b, "(ss)", d->name, d->value);
        }
      g_variant_dict_insert_value (dict, "details", g_variant_builder_end (&b));
    }

  g_variant_builder_init (&b, G_VARIANT_TYPE ("as"));
  for (guint i = 0; i < info->instances->len; i++)
    g_variant_builder_add (&b, "s", g_ptr_array_index (info->instances, i));
  g_variant_dict_insert_value (dict, "instances", g_variant_builder_end (&b));

  g_variant_dict_insert_value (dict, "lost-per-cpu",
                               g_variant_new_fixed_array (G_VARIANT_TYPE_UINT64, info->lost_per_cpu->data,
                                                          info->lost_per_cpu->len, sizeof (guint64)));
  g_variant_dict_insert (dict, "lost-events", "t", info->lost_events);
  if (info->undecoded != NULL && info->undecoded->len > 0)
    {
      g_variant_builder_init (&b, G_VARIANT_TYPE ("a(sttat)"));
      for (guint i = 0; i < info->undecoded->len; i++)
        {
          const StrataUndecoded *u = g_ptr_array_index (info->undecoded, i);

          g_variant_builder_add (&b, "(stt@at)", u->what, u->records, u->bytes,
                                 g_variant_new_fixed_array (G_VARIANT_TYPE_UINT64, u->bytes_per_cpu->data,
                                                            u->bytes_per_cpu->len, sizeof (guint64)));
        }
      g_variant_dict_insert_value (dict, "undecoded", g_variant_builder_end (&b));
    }
  g_variant_dict_insert (dict, "lost-unknown", "b", info->lost_unknown);
  g_variant_dict_insert (dict, "first-ts", "x", info->first_ts);
  g_variant_dict_insert (dict, "last-ts", "x", info->last_ts);

  g_variant_dict_insert (dict, "n-events", "t", strata_trace_get_n_events (trace));
  g_variant_dict_insert (dict, "start", "x", strata_trace_get_start (trace));
  g_variant_dict_insert (dict, "end", "x", strata_trace_get_end (trace));
  if (damage != NULL)
    g_variant_dict_insert (dict, "damage", "(us)", (guint32) damage->code, damage->message);

  counts = strata_trace_get_event_counts (trace, &n_counts);
  g_variant_builder_init (&b, G_VARIANT_TYPE ("a(ut)"));
  for (guint i = 0; i < n_counts; i++)
    g_variant_builder_add (&b, "(ut)", counts[i].name, counts[i].count);
  g_variant_dict_insert_value (dict, "event-counts", g_variant_builder_end (&b));

  /* One per channel up to the last that has any: only CPU channels do,
   * and a million short-lived threads' zeros were 8.6 MB that every open
   * read and checked (the reader takes the channels past the array to
   * have none, as strata_trace_get_context_switches() does). Not copied
   * into a variant of its own first: the serialised meta is the one copy. */
  {
    g_autoptr(GBytes) bytes = NULL;
    guint n_switches;
    const guint64 *switches = strata_trace_peek_context_switches (trace, &n_switches);

    strata_trace_get_channels (trace, &n_channels);
    n_switches = MIN (n_switches, n_channels);
    while (n_switches > 0 && switches[n_switches - 1] == 0)
      n_switches--;
    bytes = g_bytes_new_static (n_switches > 0 ? switches : NULL, (gsize) n_switches * sizeof (guint64));
    g_variant_dict_insert_value (dict, "switches", g_variant_new_from_bytes (G_VARIANT_TYPE ("at"), bytes, TRUE));
  }

  if (stats != NULL)
    {
      g_variant_dict_insert (dict, "stats-span", "(xxt)", stats->start, stats->end, stats->switches);
      g_variant_dict_insert_value (dict, "stats-wakeup", latency_variant (&stats->wakeup));

      /* The per-CPU rows as they are in memory (the header records the
       * layout); the per-thread rows, as many as threads ever lived, have
       * a section of their own, written from where they are (in here
       * they were copied twice, 43 MB at the end of an 80M-event pass). */
      g_variant_dict_insert_value (dict, "stats-cpus",
                                   g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, stats->cpus->data,
                                                              stats->cpus->len * sizeof (StrataCpuStats), 1));
    }

  return g_variant_ref_sink (g_variant_dict_end (dict));
}

static GByteArray *
strings_table (StrataStringPool *pool)
{
  GByteArray *out = g_byte_array_new ();
  guint32 n = strata_string_pool_get_size (pool);
  guint32 offset = 0;

  g_byte_array_append (out, (const guint8 *) &n, sizeof n);
  for (guint32 i = 0; i <= n; i++)
    {
      g_byte_array_append (out, (const guint8 *) &offset, sizeof offset);
      if (i < n)
        offset += strlen (strata_string_pool_get (pool, i));
    }
  for (guint32 i = 0; i < n; i++)
    {
      const char *s = strata_string_pool_get (pool, i);

      g_byte_array_append (out, (const guint8 *) s, strlen (s));
    }
  return out;
}

/* A checked array written as it is produced, for the raw store's
 * directory: its elements go to a spill file a run at a time (a whole
 * number of checksummed blocks), each block's checksum is kept, and
 * staged_put() copies them into the index as put_checked() would have
 * written the array. Held in memory, the directory grew with the threads:
 * a 40-byte lane record for each of the 2.16M lanes (rounded up to 134 MB
 * by the array's growth) and an entry for each of the 1.08M channels of
 * 20M generated events of thread churn. */
#define STAGED_RUN_BLOCKS 256

typedef struct
{
  int      fd;
  guint64  n;           /* elements staged, in the file or in buf */
  guint64  n_written;   /* of them in the file */
  guint64  fd_offset;   /* where they begin in it */
  gsize    elem_size;
  guint    per_block;
  guint    len;         /* elements in buf */
  guint8  *buf;         /* STAGED_RUN_BLOCKS blocks */
  GArray  *sums;        /* guint64, a block's each */
} Staged;

static void
staged_init (Staged *s,
             int     fd,
             gsize   elem_size,
             guint   per_block)
{
  memset (s, 0, sizeof *s);
  s->fd = fd;
  s->elem_size = elem_size;
  s->per_block = per_block;
  s->buf = g_malloc ((gsize) STAGED_RUN_BLOCKS * per_block * elem_size);
  s->sums = g_array_new (FALSE, FALSE, sizeof (guint64));
}

static void
staged_clear (Staged *s)
{
  g_clear_pointer (&s->buf, g_free);
  g_clear_pointer (&s->sums, g_array_unref);
}

/* The elements in buf to the file, their blocks' checksums kept; only
 * the last run may end in a short block. */
static void
staged_flush (Writer *w,
              Staged *s)
{
  for (guint first = 0; first < s->len; first += s->per_block)
    {
      guint64 sum = strata_index_checksum (s->buf + first * s->elem_size,
                                           MIN (s->per_block, s->len - first) * s->elem_size);

      g_array_append_val (s->sums, sum);
    }
  if (w->error == 0 && s->len > 0 &&
      !strata_file_write_all (s->fd, s->buf, s->len * s->elem_size, s->fd_offset + s->n_written * s->elem_size))
    w->error = errno != 0 ? errno : EIO;
  s->n_written += s->len;
  s->len = 0;
}

static void
staged_add (Writer        *w,
            Staged        *s,
            gconstpointer  elem)
{
  memcpy (s->buf + s->len * s->elem_size, elem, s->elem_size);
  s->len++;
  s->n++;
  if (s->len == STAGED_RUN_BLOCKS * s->per_block)
    staged_flush (w, s);
}

/* The staged array into the index where put_checked() would have put it,
 * the same bytes; returns the elements' offset, *sums_offset that of
 * their checksums. The file is read back a run at a time. */
static guint64
staged_put (Writer  *w,
            Staged  *s,
            guint64 *sums_offset)
{
  gsize run = (gsize) STAGED_RUN_BLOCKS * s->per_block * s->elem_size;
  guint64 size, offset;

  staged_flush (w, s);
  align (w);
  offset = w->offset;
  size = s->n_written * s->elem_size;
  for (guint64 done = 0; done < size && w->error == 0; done += run)
    {
      gsize part = (gsize) MIN ((guint64) run, size - done);
      int errsv = 0;

      if (!strata_file_read_exact (s->fd, s->buf, part, s->fd_offset + done, &errsv))
        w->error = errsv != 0 ? errsv : EIO;
      else
        put (w, s->buf, part);
    }
  align (w);
  *sums_offset = w->offset;
  put (w, s->sums->data, s->sums->len * sizeof (guint64));
  return offset;
}

/* The raw store: each lane that has activities, channel by channel and
 * lane by lane: its blocks, their records, its fences; then the
 * directory, a StrataIndexChannelLanes per channel (which lanes it has)
 * and a StrataIndexLane per lane that has activities, both as checked
 * arrays, staged in a spill file while the lanes are written (above). A
 * directory of every channel's 17 lane slots was 680 bytes a channel, 8%
 * of the index for the 48 742 mostly short-lived threads of 20M
 * generated events. */
static void
write_raw_store (Writer            *w,
                 StrataRawStore    *raw,
                 StrataIndexHeader *h)
{
  guint n_channels = strata_raw_store_get_n_channels (raw);
  g_autoptr(GError) local_error = NULL;
  Staged entries, lanes;
  int fd;

  fd = strata_spill_file_open (&local_error);
  if (fd < 0)
    {
      w->error = EIO;
      return;
    }
  /* One file for both: the lanes' records from its start, the channels'
   * entries after the largest the lanes can be (a sparse file). */
  staged_init (&lanes, fd, sizeof (StrataIndexLane), STRATA_INDEX_LANE_BLOCK);
  staged_init (&entries, fd, sizeof (StrataIndexChannelLanes), STRATA_INDEX_CHANNEL_BLOCK);
  entries.fd_offset = (guint64) n_channels * STRATA_RAW_STORE_N_LANES * sizeof (StrataIndexLane);

  /* A lane's arrays (its blocks' records and checksums, its fences and
   * theirs) are aligned as their elements need, not on 64 bytes: a
   * million short-lived threads' lanes of a few activities each were a
   * quarter padding. */
  w->alignment = STRATA_INDEX_LANE_ALIGN;
  strata_raw_store_open_windows (raw, 0);
  for (guint32 c = 0; c < n_channels && w->error == 0; c++)
    {
      guint32 present;

      /* The store's entries of channels written go (a million threads'). */
      if (c % STRATA_TRACE_LET_GO_EVERY == 0)
        strata_raw_store_let_go_channels (raw);
      present = strata_raw_store_get_lanes (raw, c);
      StrataIndexChannelLanes entry = { 0 };

      g_assert (lanes.n <= G_MAXUINT32);
      entry.first = (guint32) lanes.n;
      for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
        {
          StrataIndexLane rec = { 0 };
          const StrataRawStoreFence *fences;
          const StrataRawStoreSpilled *spilled;
          const StrataActivity *acts;
          guint n, n_fences, n_spilled;

          if (!(present & (1u << l)))
            continue;
          acts = strata_raw_store_peek_lane (raw, c, l, &n, &fences, &n_fences, &spilled, &n_spilled);
          g_assert (n + n_spilled > 0);
          /* Every spilled block is full but maybe the last, which is then
           * the lane's last (nothing of it is in memory). */
          rec.offset = put_spilled_and_packed (w, raw, c, l, n_spilled, acts, n, &rec.n, &rec.sums_offset);
          if (w->error != 0)
            break;
          rec.fences_offset = put_lane_fences (w, raw, c, l, &rec.n_fences, &rec.fence_sums_offset);
          if (w->error == 0 && rec.n_fences != n_fences)
            w->error = EIO;
          entry.present |= 1u << l;
          staged_add (w, &lanes, &rec);
        }
      staged_add (w, &entries, &entry);
    }

  strata_raw_store_close_windows (raw);
  w->alignment = 0;
  if (w->error == 0)
    {
      h->n_raw_channels = n_channels;
      h->n_activities = strata_raw_store_get_size (raw);
      h->n_raw_lanes = lanes.n;
      h->raw_channels_offset = staged_put (w, &entries, &h->raw_channels_sums_offset);
      h->lanes_offset = staged_put (w, &lanes, &h->lanes_sums_offset);
    }
  staged_clear (&entries);
  staged_clear (&lanes);
  close (fd);
}

static GArray *
write_levels (Writer         *w,
              StrataZoomTree *tree,
              guint           n_ranks)
{
  GArray *levels = g_array_new (FALSE, TRUE, sizeof (StrataIndexLevel));
  g_autoptr(GArray) records = g_array_new (FALSE, TRUE, sizeof (StrataIndexChunk));

  g_array_set_size (levels, n_ranks);
  for (guint r = 0; r < n_ranks && w->error == 0; r++)
    {
      StrataIndexLevel *level = &g_array_index (levels, StrataIndexLevel, r);
      guint n = strata_zoom_tree_get_n_rank_chunks (tree, r, &level->n_plain);

      g_array_set_size (records, 0);
      for (guint i = 0; i < n; i++)
        {
          StrataIndexChunk rec = { 0 };
          g_autoptr(GError) peek_error = NULL;
          StrataZoomChunkView view;
          gsize spans_size;
          guint64 n_sums;

          /* A spilled chunk whose spans cannot be read back fails the
           * write: the index would miss it. */
          if (!strata_zoom_tree_peek_rank_chunk (tree, r, i, &view, &peek_error))
            {
              if (peek_error != NULL)
                {
                  g_warning ("index: %s", peek_error->message);
                  w->error = EIO;
                  break;
                }
              continue;
            }
          spans_size = view.n_channels * sizeof (StrataIndexSpan);

          if (view.items == NULL && view.packer != NULL)
            rec.items_offset = put_spilled_items (w, view.packer, view.first_block, view.n_items,
                                                  &rec.items_sums_offset);
          else
            rec.items_offset = put_packed (w, view.items, view.n_items, sizeof (StrataZoomItem),
                                           STRATA_INDEX_ITEM_BLOCK, &rec.items_sums_offset);
          if (w->error != 0)
            {
              strata_zoom_chunk_view_clear (&view);
              break;
            }
          n_sums = ((guint64) w->records->len + STRATA_INDEX_TABLE_BLOCK - 1) / STRATA_INDEX_TABLE_BLOCK;
          {
            /* The checksum of the table's block checksums, as written. */
            g_autofree guint64 *sums = g_new (guint64, n_sums + 1);
            const StrataIndexBlock *blocks = (const StrataIndexBlock *)(gconstpointer) w->records->data;

            for (guint64 b = 0; b < n_sums; b++)
              sums[b] = strata_index_checksum (blocks + b * STRATA_INDEX_TABLE_BLOCK,
                                               MIN (STRATA_INDEX_TABLE_BLOCK,
                                                    w->records->len - b * STRATA_INDEX_TABLE_BLOCK) *
                                               sizeof (StrataIndexBlock));
            rec.sums_checksum = strata_index_checksum (sums, n_sums * sizeof (guint64));
          }

          /* The spans, then the first item of each block of items, then
           * the lane changes: collected here for a chunk in memory, kept
           * by the tree for one it spilled. */
          align (w);
          rec.offset = w->offset;
          if (view.piece_offset != G_MAXUINT64)
            {
              if (!put_spilled_piece (w, &view, &rec.checksum))
                {
                  g_warning ("index: the spans of chunk %u of rank %u cannot be read back from the spill file",
                             i, r);
                  strata_zoom_chunk_view_clear (&view);
                  if (w->error == 0)
                    w->error = EIO;
                  break;
                }
              rec.n_changes = view.n_changes;
              strata_zoom_chunk_view_clear (&view);
            }
          else
            {
              gsize keys_at = strata_index_keys_offset (view.n_channels);
              guint64 n_keys = strata_index_n_keys (view.n_items);
              StrataIndexChunkKeys collected = { NULL };
              const StrataIndexItemKey *keys = view.keys;
              const guint32 *changes = view.changes;
              guint n_changes = view.n_changes;
              g_autofree guint8 *blob = NULL;
              gsize size;

              if (view.items != NULL)
                {
                  strata_index_chunk_keys_init (&collected);
                  strata_index_chunk_keys_add (&collected, view.items, view.n_items);
                  keys = (const StrataIndexItemKey *)(gconstpointer) collected.keys->data;
                  changes = (const guint32 *)(gconstpointer) collected.changes->data;
                  n_changes = collected.changes->len;
                }
              else if (keys == NULL && n_keys > 0)
                {
                  strata_zoom_chunk_view_clear (&view);
                  w->error = EIO;
                  break;
                }

              size = keys_at + n_keys * sizeof (StrataIndexItemKey) + n_changes * sizeof (guint32);
              blob = g_malloc0 (size);
              memcpy (blob, view.channels, spans_size);
              if (n_keys > 0)
                memcpy (blob + keys_at, keys, n_keys * sizeof (StrataIndexItemKey));
              if (n_changes > 0)
                memcpy (blob + keys_at + n_keys * sizeof (StrataIndexItemKey), changes, n_changes * sizeof (guint32));
              strata_index_chunk_keys_clear (&collected);
              strata_zoom_chunk_view_clear (&view);
              put (w, blob, size);
              rec.checksum = strata_index_checksum (blob, size);
              rec.n_changes = n_changes;
            }

          rec.index = view.index;
          rec.n_channels = view.n_channels;
          rec.n_items = view.n_items;
          rec.at_end = view.at_end;
          g_array_append_val (records, rec);
        }

      level->n_chunks = records->len;
      level->chunks_offset = put_checked (w, records->data, records->len, sizeof (StrataIndexChunk),
                                          STRATA_INDEX_CHUNK_BLOCK, &level->sums_offset);
    }

  return levels;
}

/* The header but its checksum: what the file is, the source it was built
 * from, the tree's parameters and its state at the end of the pass. */
static void
fill_header (StrataIndexHeader          *h,
             StrataZoomTree             *tree,
             const StrataZoomTreeState  *state,
             const StrataSourceIdentity *identity,
             guint64                     file_size)
{
  const StrataZoomParams *params = strata_zoom_tree_get_params (tree);

  memcpy (h->magic, STRATA_INDEX_MAGIC, sizeof h->magic);
  h->version = STRATA_INDEX_VERSION;
  h->header_size = sizeof *h;
  h->byte_order = STRATA_INDEX_BYTE_ORDER;
  h->activity_size = sizeof (StrataActivity);
  h->item_size = sizeof (StrataZoomItem);
  h->channel_size = sizeof (StrataChannel);
  h->file_size = file_size;
  h->source_size = identity->size;
  h->source_mtime_ns = identity->mtime_ns;
  h->source_sample_hash = identity->sample_hash;

  h->zoom_factor = params->zoom_factor;
  h->pixels_per_chunk = params->pixels_per_chunk;
  h->density_threshold = params->density_threshold;
  h->buffer_criterion = params->buffer_criterion;
  h->buffer_interval = params->buffer_interval;
  h->buffer_count = params->buffer_count;
  h->min_reduction = params->min_reduction;

  h->first = state->first;
  h->last = state->last;
  h->n_buffers = state->n_buffers;
  h->n_left_out = state->n_left_out;
  h->tree_size = state->size;
  h->n_ranks = state->n_ranks;
}

/**
 * strata_index_write_with_parameters:
 * @trace: a trace loaded with its zoom tree, the tree finished
 * @identity: the source file's identity
 * @index_path: where the index goes
 *
 * Writes the index of @trace. Nothing is left under @index_path unless the
 * whole file was written.
 */
gboolean
strata_index_write_with_parameters (StrataTrace                *trace,
                                    const StrataSourceIdentity *identity,
                                    const char                 *index_path,
                                    const StrataParameters     *parameters,
                                    GError                    **error)
{
  return strata_index_write_full (trace, NULL, identity, index_path, parameters, error);
}

gboolean
strata_index_write_full (StrataTrace                *trace,
                         StrataThreadRows           *thread_rows,
                         const StrataSourceIdentity *identity,
                         const char                 *index_path,
                         const StrataParameters     *parameters,
                         GError                    **error)
{
  StrataZoomTree *tree = strata_trace_get_zoom_tree (trace);
  g_autofree char *dir = NULL, *base = NULL, *tmp = NULL;
  g_autofree char *file_buffer = NULL;
  g_autoptr(GVariant) meta = NULL;
  g_autoptr(GByteArray) strings = NULL;
  g_autoptr(GArray) levels = NULL;
  const StrataChannel *channels;
  StrataZoomTreeState state;
  StrataIndexHeader h = { 0 };
  Writer w = { 0 };
  gboolean anonymous;
  guint n_channels;
  int fd;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (tree != NULL && strata_zoom_tree_is_finished (tree), FALSE);

  dir = g_path_get_dirname (index_path);
  base = g_path_get_basename (index_path);
  tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  fd = open (dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  anonymous = fd >= 0;
  if (!anonymous)
    fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO, "%s: %s", index_path, g_strerror (saved));
      return FALSE;
    }
  w.file = fdopen (fd, "w");
  w.path = tmp;
  if (w.file == NULL)
    {
      close (fd);
      if (!anonymous)
        g_unlink (tmp);
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO, "%s: cannot write", tmp);
      return FALSE;
    }
  setvbuf (w.file, file_buffer = g_malloc (WRITE_BUFFER), _IOFBF, WRITE_BUFFER);
  w.block = g_byte_array_new ();
  w.records = g_array_new (FALSE, FALSE, sizeof (StrataIndexBlock));
  w.packed = g_malloc (STRATA_BLOCK_PACKER_MAX_PACKED);
  w.elems = g_new (StrataActivity, STRATA_INDEX_ACTIVITY_BLOCK);
  w.fences = g_new (StrataRawStoreFence, STRATA_INDEX_FENCE_BLOCK);
  w.sums = g_array_new (FALSE, FALSE, sizeof (guint64));
  /* StrataParameters.zstd_level (STRATA_INDEX_ZSTD_LEVEL): 0 writes
   * varints only, -7 to -1 zstd's fast levels, for measuring the codecs.
   * Blocks the pass spilled at this level are copied as they are, others
   * packed again. */
  w.zstd_level = parameters->zstd_level != STRATA_PARAMETER_ZSTD_DEFAULT
                   ? parameters->zstd_level : STRATA_INDEX_ZSTD_LEVEL;

  /* Room for the header, written last. */
  put (&w, &h, sizeof h);

  note_memory (parameters, "at its start");
  meta = meta_variant (trace);
  put_section (&w, &h.sections[STRATA_INDEX_SECTION_META],
               g_variant_get_data (meta), g_variant_get_size (meta));
  g_clear_pointer (&meta, g_variant_unref);
  note_memory (parameters, "the meta section written");
  strings = strings_table (strata_trace_get_strings (trace));
  put_section (&w, &h.sections[STRATA_INDEX_SECTION_STRINGS], strings->data, strings->len);
  g_clear_pointer (&strings, g_byte_array_unref);
  channels = strata_trace_get_channels (trace, &n_channels);
  put_channels_section (&w, &h.sections[STRATA_INDEX_SECTION_CHANNELS], trace, channels, n_channels);
  note_memory (parameters, "the strings and channels written");
  if (thread_rows != NULL)
    put_rows_section (&w, &h.sections[STRATA_INDEX_SECTION_THREAD_STATS], thread_rows);
  else
    {
      const StrataStats *stats = strata_trace_get_stats (trace);

      put_section (&w, &h.sections[STRATA_INDEX_SECTION_THREAD_STATS], stats != NULL ? stats->threads->data : NULL,
                   stats != NULL ? stats->threads->len * sizeof (StrataThreadStats) : 0);
    }

  note_memory (parameters, "the thread rows written");
  write_raw_store (&w, strata_zoom_tree_get_raw_store (tree), &h);
  note_memory (parameters, "the raw store written");

  strata_zoom_tree_get_state (tree, &state);
  levels = write_levels (&w, tree, state.n_ranks);
  put_section (&w, &h.sections[STRATA_INDEX_SECTION_LEVELS], levels->data,
               levels->len * sizeof (StrataIndexLevel));
  align (&w);
  note_memory (parameters, "the levels written");

  fill_header (&h, tree, &state, identity, w.offset);
  h.checksum = strata_index_checksum (&h, G_STRUCT_OFFSET (StrataIndexHeader, checksum));

  if (w.error == 0 && fflush (w.file) != 0)
    w.error = errno;
  if (w.error == 0 && !strata_file_write_all (fd, &h, sizeof h, 0))
    w.error = errno != 0 ? errno : EIO;
  if (w.error == 0 && fsync (fd) != 0)
    w.error = errno;

  /* Named only now, under a name of its own, then renamed over the final
   * one (linkat cannot replace a file). */
  if (w.error == 0 && anonymous)
    {
      g_autofree char *proc = g_strdup_printf ("/proc/self/fd/%d", fd);
      int linked = -1;

      for (int tries = 0; linked != 0 && tries < 8; tries++)
        {
          g_free (tmp);
          tmp = g_strdup_printf ("%s/.%s.%08x", dir, base, g_random_int ());
          linked = linkat (AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW);
          if (linked != 0 && errno != EEXIST)
            break;
        }
      if (linked != 0)
        w.error = errno != 0 ? errno : EIO;
      else
        anonymous = FALSE;   /* named now: a failure below removes it */
    }
  if (fclose (w.file) != 0 && w.error == 0)
    w.error = errno;
  g_byte_array_unref (w.block);
  g_array_unref (w.records);
  g_free (w.packed);
  g_free (w.elems);
  g_free (w.fences);
  g_array_unref (w.sums);

  if (w.error == 0 && g_rename (tmp, index_path) != 0)
    w.error = errno;
  if (w.error != 0)
    {
      if (!anonymous)
        g_unlink (tmp);
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO, "%s: %s", index_path, g_strerror (w.error));
      return FALSE;
    }

  return TRUE;
}

/**
 * strata_index_write:
 *
 * strata_index_write_with_parameters() with the parameters the
 * environment sets.
 */
gboolean
strata_index_write (StrataTrace                *trace,
                    const StrataSourceIdentity *identity,
                    const char                 *index_path,
                    GError                    **error)
{
  g_auto(StrataParameters) parameters;

  strata_parameters_init_from_environment (&parameters);
  return strata_index_write_with_parameters (trace, identity, index_path, &parameters, error);
}
