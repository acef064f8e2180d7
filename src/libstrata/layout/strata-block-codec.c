/* strata-block-codec.c
 *
 * The compact form of the index's two big arrays, the raw store's lanes
 * (32-byte activities) and the chunks' items (48-byte items): cut into
 * blocks of a fixed number of elements, each block encoded on its own,
 * column by column (the durations, the starts as zigzag deltas from the
 * end before, the channel, label and argument as deltas, the kind, state
 * and the flags' change from the one before, and for items the count and
 * the idle part of the duration), every number a LEB128 varint; then,
 * where it pays, the block's bytes squeezed again with zstd, through one
 * context per packing thread (a context made per block cost nearly as
 * much as the squeezing). The decoder trusts nothing: every varint, every
 * length and every count is checked, and a block that does not decode to
 * exactly its elements is damaged.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <zstd.h>

#include "strata-activity.h"
#include "strata-block-codec.h"
#include "strata-varint.h"

/* Encoding. */

/* The most bytes the columns take for one element: a 64-bit varint takes
 * at most 10 bytes, a 32-bit one 5, a 16-bit one 3. */
#define MAX_ENCODED_ACTIVITY (10 + 10 + 5 + 5 + 5 + 1 + 1 + 3)
#define MAX_ENCODED_ITEM     (MAX_ENCODED_ACTIVITY + 5 + 5 + 10)
/* The varints are written straight into room reserved for that worst
 * case: appending each number to a GByteArray was a third of what packing
 * a block cost. */

/* The fields both kinds of element share, at the same offsets. */
typedef struct
{
  guint64 start;
  guint64 end;
  guint32 channel;
  guint32 label;
  guint32 arg;
  guint8  kind;
  guint8  state;
  guint16 flags;
} Common;

typedef struct
{
  guint32 count;
  guint32 reserved;
  guint64 busy;
} Extra;

/* An item as the decoder writes it: the zoom tree's item, laid out as
 * strata-index-layout.h says (strata-aggregator.c checks it). */
typedef struct
{
  gint64  start;
  gint64  end;
  guint32 channel;
  guint32 label;
  gint32  arg;
  guint8  kind;
  guint8  state;
  guint16 flags;
  guint32 count;
  guint32 reserved;
  gint64  busy;
} Item;

G_STATIC_ASSERT (sizeof (Common) == sizeof (StrataActivity));
G_STATIC_ASSERT (sizeof (Common) == STRATA_INDEX_ACTIVITY_SIZE);
G_STATIC_ASSERT (G_STRUCT_OFFSET (Item, count) == sizeof (Common));
G_STATIC_ASSERT (sizeof (Common) + sizeof (Extra) == STRATA_INDEX_ITEM_SIZE);
G_STATIC_ASSERT (sizeof (Item) == STRATA_INDEX_ITEM_SIZE);

static inline Common
common_at (const guint8 *elems,
           guint         i,
           guint32       elem_size)
{
  Common c;

  memcpy (&c, elems + (gsize) i * elem_size, sizeof c);
  return c;
}

static inline Extra
extra_at (const guint8 *elems,
          guint         i,
          guint32       elem_size)
{
  Extra x;

  memcpy (&x, elems + (gsize) i * elem_size + sizeof (Common), sizeof x);
  return x;
}

/* The block's varint columns at @p (room for n * MAX_ENCODED_ITEM
 * bytes); returns the end of what it wrote. */
static guint8 *
encode_columns (const guint8 *e,
                guint         n,
                guint32       elem_size,
                guint8       *p)
{
  Common prev = { 0 };

  /* The durations, then each start from the end before it: a lane's
   * activities and a channel's items follow one another, so the gaps are
   * small (a jump back where the next channel's items begin). */
  for (guint i = 0; i < n; i++)
    {
      Common c = common_at (e, i, elem_size);

      p = strata_varint_put (p, strata_zigzag64 (c.end - c.start));
    }
  for (guint i = 0; i < n; prev = common_at (e, i, elem_size), i++)
    p = strata_varint_put (p, strata_zigzag64 (common_at (e, i, elem_size).start - prev.end));
  prev = (Common) { 0 };
  for (guint i = 0; i < n; prev = common_at (e, i, elem_size), i++)
    p = strata_varint_put (p, strata_zigzag32 (common_at (e, i, elem_size).channel - prev.channel));
  prev = (Common) { 0 };
  for (guint i = 0; i < n; prev = common_at (e, i, elem_size), i++)
    p = strata_varint_put (p, strata_zigzag32 (common_at (e, i, elem_size).label - prev.label));
  prev = (Common) { 0 };
  for (guint i = 0; i < n; prev = common_at (e, i, elem_size), i++)
    p = strata_varint_put (p, strata_zigzag32 (common_at (e, i, elem_size).arg - prev.arg));
  for (guint i = 0; i < n; i++)
    *p++ = common_at (e, i, elem_size).kind;
  for (guint i = 0; i < n; i++)
    *p++ = common_at (e, i, elem_size).state;
  /* The flags as what changed from the element before (often nothing). */
  prev = (Common) { 0 };
  for (guint i = 0; i < n; prev = common_at (e, i, elem_size), i++)
    p = strata_varint_put (p, (guint16) (common_at (e, i, elem_size).flags ^ prev.flags));

  if (elem_size == STRATA_INDEX_ITEM_SIZE)
    {
      for (guint i = 0; i < n; i++)
        p = strata_varint_put (p, extra_at (e, i, elem_size).count);
      for (guint i = 0; i < n; i++)
        p = strata_varint_put (p, extra_at (e, i, elem_size).reserved);
      /* The busy time is the duration less the gaps between members:
       * the gaps are small, often none. */
      for (guint i = 0; i < n; i++)
        {
          Common c = common_at (e, i, elem_size);

          p = strata_varint_put (p, strata_zigzag64 ((c.end - c.start) - extra_at (e, i, elem_size).busy));
        }
    }
  return p;
}

/**
 * strata_block_encode:
 * @elems: @n activities (@elem_size 32) or items (48)
 * @out: where the block's varint columns are appended
 *
 * Exact for any values: the deltas wrap as unsigned numbers do.
 */
void
strata_block_encode (const void *elems,
                           guint       n,
                           guint32     elem_size,
                           GByteArray *out)
{
  guint len = out->len;
  guint8 *end;

  g_return_if_fail (elem_size == sizeof (StrataActivity) || elem_size == STRATA_INDEX_ITEM_SIZE);

  g_byte_array_set_size (out, len + n * MAX_ENCODED_ITEM);
  end = encode_columns (elems, n, elem_size, out->data + len);
  g_byte_array_set_size (out, (guint) (end - out->data));
}

/* A number's value and where the next one begins (NULL: malformed or
 * cut short), returned by value: the decoder's position stays in a
 * register. (A reader passed by address to the slow path kept it in
 * memory, a store and a load on the chain of every number.) */
typedef struct
{
  const guint8 *p;
  guint64       v;
} Varint;

static Varint
varint_slow (const guint8 *p,
             const guint8 *end,
             guint         max_bits)
{
  guint64 v = 0;

  for (guint shift = 0; shift < 64; shift += 7)
    {
      guint8 b;

      if (p >= end)
        break;
      b = *p++;
      if (shift == 63 && b > 1)
        break;
      v |= (guint64) (b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        {
          if (max_bits < 64 && (v >> max_bits) != 0)
            break;
          return (Varint) { p, v };
        }
    }
  return (Varint) { NULL, 0 };
}

/* A number of more than one byte: with ten bytes left, without looking
 * at the end at each byte. */
static inline Varint
varint_more (const guint8 *p,
             const guint8 *end,
             guint         max_bits)
{
  if (G_LIKELY (end - p >= 10))
    {
      const guint8 *q = p;
      guint64 v = 0;

      for (guint shift = 0; shift < 63; shift += 7, q++)
        {
          v |= (guint64) (*q & 0x7f) << shift;
          if ((*q & 0x80) == 0)
            {
              if (max_bits < 64 && (v >> max_bits) != 0)
                break;
              return (Varint) { q + 1, v };
            }
        }
    }
  return varint_slow (p, end, max_bits);
}

/* Most numbers fit in one byte: that case first. */
#define GET_VARINT(dst, max_bits)                                  \
  G_STMT_START {                                                   \
    if (G_LIKELY (p < end && *p < 0x80))                           \
      (dst) = *p++;                                                \
    else                                                           \
      {                                                            \
        Varint x_ = varint_more (p, end, (max_bits));              \
                                                                   \
        if (G_UNLIKELY (x_.p == NULL))                             \
          return FALSE;                                            \
        p = x_.p;                                                  \
        (dst) = x_.v;                                              \
      }                                                            \
  } G_STMT_END

#define GET_BYTE(dst)                                              \
  G_STMT_START {                                                   \
    if (G_UNLIKELY (p >= end))                                     \
      return FALSE;                                                \
    (dst) = *p++;                                                  \
  } G_STMT_END

/**
 * strata_block_decode:
 * @out: room for @n elements of @elem_size
 *
 * Returns: whether @bytes are exactly @n elements' varint columns
 */
gboolean
strata_block_decode (const guint8 *bytes,
                     gsize         size,
                     guint         n,
                     guint32       elem_size,
                     void         *out)
{
  const guint8 *p = bytes, *end = bytes + size;
  guint8 *o = out;
  guint64 prev64 = 0, v;
  guint32 prev32 = 0;

  /* Every field of every element is written below. */
  if (elem_size != sizeof (StrataActivity) && elem_size != STRATA_INDEX_ITEM_SIZE)
    return FALSE;

#define FIELD(i, type, member) (*(type *) (gpointer) (o + (gsize) (i) * elem_size + G_STRUCT_OFFSET (Common, member)))

  for (guint i = 0; i < n; i++)
    {
      GET_VARINT (v, 64);
      FIELD (i, guint64, end) = strata_unzigzag64 (v);   /* the duration, for now */
    }
  for (guint i = 0; i < n; i++)
    {
      guint64 start;

      GET_VARINT (v, 64);
      start = prev64 + strata_unzigzag64 (v);
      FIELD (i, guint64, start) = start;
      prev64 = FIELD (i, guint64, end) = start + FIELD (i, guint64, end);
    }
  for (guint i = 0; i < n; i++)
    {
      GET_VARINT (v, 32);
      prev32 = FIELD (i, guint32, channel) = prev32 + strata_unzigzag32 ((guint32) v);
    }
  prev32 = 0;
  for (guint i = 0; i < n; i++)
    {
      GET_VARINT (v, 32);
      prev32 = FIELD (i, guint32, label) = prev32 + strata_unzigzag32 ((guint32) v);
    }
  prev32 = 0;
  for (guint i = 0; i < n; i++)
    {
      GET_VARINT (v, 32);
      prev32 = FIELD (i, guint32, arg) = prev32 + strata_unzigzag32 ((guint32) v);
    }
  for (guint i = 0; i < n; i++)
    GET_BYTE (FIELD (i, guint8, kind));
  for (guint i = 0; i < n; i++)
    GET_BYTE (FIELD (i, guint8, state));
  prev32 = 0;
  for (guint i = 0; i < n; i++)
    {
      GET_VARINT (v, 16);
      prev32 = FIELD (i, guint16, flags) = (guint16) (prev32 ^ v);
    }

#undef FIELD

  if (elem_size == STRATA_INDEX_ITEM_SIZE)
    {
      for (guint i = 0; i < n; i++)
        {
          Item *item = (Item *) (gpointer) (o + (gsize) i * elem_size);

          GET_VARINT (v, 32);
          item->count = (guint32) v;
        }
      for (guint i = 0; i < n; i++)
        {
          Item *item = (Item *) (gpointer) (o + (gsize) i * elem_size);

          GET_VARINT (v, 32);
          item->reserved = (guint32) v;
        }
      for (guint i = 0; i < n; i++)
        {
          Item *item = (Item *) (gpointer) (o + (gsize) i * elem_size);
          guint64 dur = (guint64) item->end - (guint64) item->start;

          GET_VARINT (v, 64);
          item->busy = (gint64) (dur - strata_unzigzag64 (v));
        }
    }

  return p == end;
}

#undef GET_VARINT
#undef GET_BYTE

/* Each thread packs with a zstd context of its own, made on its first
 * block and kept until the thread ends: ZSTD_compress() made and freed
 * one per block, which on blocks this small cost nearly as much as the
 * compression itself. ZSTD_compress2() starts every frame afresh (only
 * the level is kept), so a reused context writes the bytes a fresh one
 * would, whatever it packed before: the same trace still gives the same
 * index. */
typedef struct
{
  ZSTD_CCtx *cctx;
  int        level;
} ThreadCCtx;

static void
free_thread_cctx (gpointer data)
{
  ThreadCCtx *t = data;

  ZSTD_freeCCtx (t->cctx);
  g_free (t);
}

static GPrivate thread_cctx = G_PRIVATE_INIT (free_thread_cctx);

static ZSTD_CCtx *
get_cctx (int level)
{
  ThreadCCtx *t = g_private_get (&thread_cctx);

  if (t == NULL)
    {
      t = g_new0 (ThreadCCtx, 1);
      t->cctx = ZSTD_createCCtx ();
      g_assert (t->cctx != NULL);
      g_private_set (&thread_cctx, t);
    }
  if (t->level != level)
    {
      ZSTD_CCtx_reset (t->cctx, ZSTD_reset_session_and_parameters);
      ZSTD_CCtx_setParameter (t->cctx, ZSTD_c_compressionLevel, level);
      t->level = level;
    }
  return t->cctx;
}

/**
 * strata_block_pack:
 * @zstd_level: 0 for varints only; otherwise zstd's level (negative:
 *   its fast levels)
 * @codec: (out): how @out is coded
 *
 * One block as the file stores it: its varint columns, squeezed with
 * zstd when that saves at least an eighth.
 */
void
strata_block_pack (const void *elems,
                         guint       n,
                         guint32     elem_size,
                         int         zstd_level,
                         GByteArray *out,
                         guint8     *codec)
{
  guint8 stack[STRATA_INDEX_MAX_BLOCK_ELEMS * MAX_ENCODED_ITEM];
  g_autofree guint8 *heap = NULL;
  guint8 *plain = stack;
  gsize plain_len, bound, packed;

  g_byte_array_set_size (out, 0);
  *codec = STRATA_INDEX_CODEC_VARINT;
  g_return_if_fail (elem_size == sizeof (StrataActivity) || elem_size == STRATA_INDEX_ITEM_SIZE);

  if (n > STRATA_INDEX_MAX_BLOCK_ELEMS)
    plain = heap = g_malloc ((gsize) n * MAX_ENCODED_ITEM);
  plain_len = (gsize) (encode_columns (elems, n, elem_size, plain) - plain);

  if (zstd_level != 0 && plain_len >= 64)
    {
      bound = ZSTD_compressBound (plain_len);
      g_byte_array_set_size (out, (guint) bound);
      packed = ZSTD_compress2 (get_cctx (zstd_level), out->data, bound, plain, plain_len);
      if (!ZSTD_isError (packed) && packed < plain_len - plain_len / 8)
        {
          g_byte_array_set_size (out, (guint) packed);
          *codec = STRATA_INDEX_CODEC_ZSTD;
          return;
        }
    }

  g_byte_array_set_size (out, 0);
  g_byte_array_append (out, plain, (guint) plain_len);
}

/* Decoding what was packed. */

/* The most bytes a block's varint columns can take: 11 numbers of at
 * most 10 bytes and 2 bytes per element. */
#define MAX_PLAIN(n) ((gsize) (n) * (11 * 10 + 2))

/**
 * strata_block_unpack:
 * @dctx: (nullable): a ZSTD_DCtx to use, or %NULL for a fresh one
 *
 * Decodes a block packed by strata_block_pack() (with @codec the
 * codec it chose) into @n elements; the bytes are taken as they are, with
 * no checksum (the raw store's spill file, written and read by the same
 * process, uses it).
 */
gboolean
strata_block_unpack (const guint8 *bytes,
                           gsize         size,
                           guint8        codec,
                           guint         n,
                           guint32       elem_size,
                           gpointer      dctx,
                           void         *out)
{
  if (n > STRATA_INDEX_MAX_BLOCK_ELEMS)
    return FALSE;

  switch (codec)
    {
    case STRATA_INDEX_CODEC_VARINT:
      return strata_block_decode (bytes, size, n, elem_size, out);

    case STRATA_INDEX_CODEC_ZSTD:
      {
        unsigned long long content = ZSTD_getFrameContentSize (bytes, size);
        guint8 plain[MAX_PLAIN (STRATA_INDEX_MAX_BLOCK_ELEMS)];
        gsize got;

        if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN ||
            content > MAX_PLAIN (n))
          return FALSE;
        if (dctx != NULL)
          got = ZSTD_decompressDCtx (dctx, plain, content, bytes, size);
        else
          got = ZSTD_decompress (plain, content, bytes, size);
        if (ZSTD_isError (got) || got != content)
          return FALSE;
        return strata_block_decode (plain, got, n, elem_size, out);
      }

    default:
      return FALSE;
    }
}
