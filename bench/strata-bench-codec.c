/* strata-bench-codec.c
 *
 * The index's block codec measured on real blocks: every packed block of
 * an index (the raw store's activities, the chunks' items) is read back
 * through the reader's own functions (strata_packed_array_read_block),
 * then packed and unpacked again by each variant of the codec, all in
 * one process and interleaved run by run so the ratios between them are
 * fair on a shared machine (the time is the thread's CPU time). Per variant and per kind of element: bytes
 * out over bytes in (the elements as they are in memory), pack and
 * unpack ns per element, medians of the runs; every variant's blocks are
 * checked to come back exactly before anything is timed. The variants
 * are main's version 3 codec (kept here, copied as it was, to compare
 * against), the same columns with the entropy stage changed (zstd levels,
 * a reused context, the one-shot, advanced and streaming APIs, zstd
 * parameters, a dictionary trained on the index's own blocks), two
 * other column layouts (byte planes, repeated columns), and the codec
 * the library ships (strata_block_pack / unpack_block).
 *
 * Usage: strata-bench-codec INDEX [--runs N] [--variant PART,PART...] [--columns]
 *                           [--dict-from OTHER-INDEX]
 *   e.g. _build/bench/strata-gen-trace -n 2000000 -o /tmp/codec-2m.dat
 *        strata-cli index --force --index /tmp/codec-2m.idx /tmp/codec-2m.dat
 *        strata-bench-codec /tmp/codec-2m.idx
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zstd.h>
#include <zdict.h>

#include "strata-block-codec.h"
#include "strata-block-packer.h"
#include "strata-chunk-keys.h"
#include "strata-index-private.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-trace-private.h"
#include "strata-zoom-tree-private.h"

/* One block as the index holds it. */
typedef struct
{
  gsize   at;          /* offset of its elements in the pool */
  guint   n;
  guint32 elem_size;
} Block;

typedef struct
{
  GByteArray *pool;    /* the decoded elements of every block */
  GArray     *blocks;  /* Block */
  guint       id;      /* 0 activities, 1 items */
  guint64     n_elems;
  guint64     bytes;   /* as stored in the index */
} Kind;

/* Main's version 3 codec (76a9418), copied as it was so it can be
 * measured against the library's current one in the same run. */

static inline guint64
v3_zigzag64 (guint64 d)
{
  return (d << 1) ^ (0 - (d >> 63));
}

static inline guint32
v3_zigzag32 (guint32 d)
{
  return (d << 1) ^ (0u - (d >> 31));
}

static inline void
v3_put_varint (GByteArray *out,
               guint64     v)
{
  guint8 buf[10];
  guint n = 0;

  while (v >= 0x80)
    {
      buf[n++] = (guint8) (v | 0x80);
      v >>= 7;
    }
  buf[n++] = (guint8) v;
  g_byte_array_append (out, buf, n);
}

static inline StrataActivity
v3_common_at (const guint8 *e,
              guint         i,
              guint32       elem_size)
{
  StrataActivity c;

  memcpy (&c, e + (gsize) i * elem_size, sizeof c);
  return c;
}

static void
v3_encode_block (const void *elems,
                 guint       n,
                 guint32     elem_size,
                 GByteArray *out)
{
  const guint8 *e = elems;
  StrataActivity prev = { 0 };

  for (guint i = 0; i < n; i++)
    {
      StrataActivity c = v3_common_at (e, i, elem_size);

      v3_put_varint (out, v3_zigzag64 ((guint64) c.end - (guint64) c.start));
    }
  for (guint i = 0; i < n; prev = v3_common_at (e, i, elem_size), i++)
    v3_put_varint (out, v3_zigzag64 ((guint64) v3_common_at (e, i, elem_size).start - (guint64) prev.end));
  prev = (StrataActivity) { 0 };
  for (guint i = 0; i < n; prev = v3_common_at (e, i, elem_size), i++)
    v3_put_varint (out, v3_zigzag32 (v3_common_at (e, i, elem_size).channel - prev.channel));
  prev = (StrataActivity) { 0 };
  for (guint i = 0; i < n; prev = v3_common_at (e, i, elem_size), i++)
    v3_put_varint (out, v3_zigzag32 (v3_common_at (e, i, elem_size).label - prev.label));
  prev = (StrataActivity) { 0 };
  for (guint i = 0; i < n; prev = v3_common_at (e, i, elem_size), i++)
    v3_put_varint (out, v3_zigzag32 ((guint32) v3_common_at (e, i, elem_size).arg - (guint32) prev.arg));
  for (guint i = 0; i < n; i++)
    {
      StrataActivity c = v3_common_at (e, i, elem_size);

      g_byte_array_append (out, &c.kind, 1);
    }
  for (guint i = 0; i < n; i++)
    {
      StrataActivity c = v3_common_at (e, i, elem_size);

      g_byte_array_append (out, &c.state, 1);
    }
  prev = (StrataActivity) { 0 };
  for (guint i = 0; i < n; prev = v3_common_at (e, i, elem_size), i++)
    v3_put_varint (out, (guint16) (v3_common_at (e, i, elem_size).flags ^ prev.flags));

  if (elem_size == sizeof (StrataZoomItem))
    {
      for (guint i = 0; i < n; i++)
        v3_put_varint (out, ((const StrataZoomItem *) (gconstpointer) (e + (gsize) i * elem_size))->count);
      for (guint i = 0; i < n; i++)
        v3_put_varint (out, ((const StrataZoomItem *) (gconstpointer) (e + (gsize) i * elem_size))->reserved);
      for (guint i = 0; i < n; i++)
        {
          const StrataZoomItem *it = (const StrataZoomItem *) (gconstpointer) (e + (gsize) i * elem_size);

          v3_put_varint (out, v3_zigzag64 (((guint64) it->end - (guint64) it->start) - (guint64) it->busy));
        }
    }
}

typedef struct
{
  const guint8 *p;
  const guint8 *end;
  gboolean      bad;
} V3Reader;

static guint64
v3_get_varint_slow (V3Reader *r,
                    guint     max_bits)
{
  guint64 v = 0;

  for (guint shift = 0; shift < 64; shift += 7)
    {
      guint8 b;

      if (r->p >= r->end)
        break;
      b = *r->p++;
      if (shift == 63 && b > 1)
        break;
      v |= (guint64) (b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        {
          if (max_bits < 64 && (v >> max_bits) != 0)
            break;
          return v;
        }
    }
  r->bad = TRUE;
  r->p = r->end;
  return 0;
}

static inline guint64
v3_get_varint (V3Reader *r,
               guint     max_bits)
{
  if (G_LIKELY (r->p < r->end && *r->p < 0x80))
    return *r->p++;
  if (G_LIKELY (r->end - r->p >= 10))
    {
      const guint8 *p = r->p;
      guint64 v = 0;

      for (guint shift = 0; shift < 63; shift += 7, p++)
        {
          v |= (guint64) (*p & 0x7f) << shift;
          if ((*p & 0x80) == 0)
            {
              if (max_bits < 64 && (v >> max_bits) != 0)
                break;
              r->p = p + 1;
              return v;
            }
        }
    }
  return v3_get_varint_slow (r, max_bits);
}

static inline guint8
v3_get_byte (V3Reader *r)
{
  if (r->p >= r->end)
    {
      r->bad = TRUE;
      return 0;
    }
  return *r->p++;
}

static inline guint64
v3_unzigzag64 (guint64 z)
{
  return (z >> 1) ^ (0 - (z & 1));
}

static inline guint32
v3_unzigzag32 (guint32 z)
{
  return (z >> 1) ^ (0u - (z & 1));
}

/* Two other column layouts, tried here only (not in the file format):
 * each column's numbers are the same as version 3's (zigzag deltas,
 * XORed flags), laid out either as byte planes (a width byte, then the
 * column's lowest bytes, then its next ones, as many as its largest
 * number needs) or as varints with a column that is one number repeated
 * after its first (a lane's channel, a block's flags) said in two
 * numbers. They are here to see whether a layout zstd squeezes better
 * lets a cheaper level keep the size. */

#define N_COLUMNS 11

static guint
n_columns (guint32 elem_size)
{
  return elem_size == sizeof (StrataZoomItem) ? 11 : 8;
}

static void
column_values (const guint8 *e,
               guint         n,
               guint32       elem_size,
               guint         c,
               guint64      *vals)
{
  StrataActivity prev = { 0 };

  for (guint i = 0; i < n; prev = v3_common_at (e, i, elem_size), i++)
    {
      StrataActivity a = v3_common_at (e, i, elem_size);
      const StrataZoomItem *it = (const StrataZoomItem *) (gconstpointer) (e + (gsize) i * elem_size);

      switch (c)
        {
        case 0: vals[i] = v3_zigzag64 ((guint64) a.end - (guint64) a.start); break;
        case 1: vals[i] = v3_zigzag64 ((guint64) a.start - (guint64) prev.end); break;
        case 2: vals[i] = v3_zigzag32 (a.channel - prev.channel); break;
        case 3: vals[i] = v3_zigzag32 (a.label - prev.label); break;
        case 4: vals[i] = v3_zigzag32 ((guint32) a.arg - (guint32) prev.arg); break;
        case 5: vals[i] = a.kind; break;
        case 6: vals[i] = a.state; break;
        case 7: vals[i] = (guint16) (a.flags ^ prev.flags); break;
        case 8: vals[i] = it->count; break;
        case 9: vals[i] = it->reserved; break;
        default: vals[i] = v3_zigzag64 (((guint64) a.end - (guint64) a.start) - (guint64) it->busy); break;
        }
    }
}

/* Column @c back into the elements, the columns before it already there. */
static void
apply_column (guint8        *o,
              guint          n,
              guint32        elem_size,
              guint          c,
              const guint64 *vals)
{
  for (guint i = 0; i < n; i++)
    {
      StrataZoomItem *it = (StrataZoomItem *) (gpointer) (o + (gsize) i * elem_size);
      const StrataZoomItem *before = i > 0 ? (const StrataZoomItem *) (gconstpointer) (o + (gsize) (i - 1) * elem_size) : NULL;

      switch (c)
        {
        case 0: it->end = (gint64) v3_unzigzag64 (vals[i]); break;   /* the duration, for now */
        case 1:
          it->start = (gint64) ((before != NULL ? (guint64) before->end : 0) + v3_unzigzag64 (vals[i]));
          it->end = (gint64) ((guint64) it->start + (guint64) it->end);
          break;
        case 2: it->channel = (before != NULL ? before->channel : 0) + v3_unzigzag32 ((guint32) vals[i]); break;
        case 3: it->label = (before != NULL ? before->label : 0) + v3_unzigzag32 ((guint32) vals[i]); break;
        case 4: it->arg = (gint32) ((before != NULL ? (guint32) before->arg : 0) + v3_unzigzag32 ((guint32) vals[i])); break;
        case 5: it->kind = (guint8) vals[i]; break;
        case 6: it->state = (guint8) vals[i]; break;
        case 7: it->flags = (guint16) ((before != NULL ? before->flags : 0) ^ vals[i]); break;
        case 8: it->count = (guint32) vals[i]; break;
        case 9: it->reserved = (guint32) vals[i]; break;
        default:
          it->busy = (gint64) (((guint64) it->end - (guint64) it->start) - v3_unzigzag64 (vals[i]));
          break;
        }
    }
}

static void
planes_encode (const void *elems,
               guint       n,
               guint32     elem_size,
               GByteArray *out)
{
  guint64 vals[STRATA_INDEX_MAX_BLOCK_ELEMS];
  guint8 *p;

  g_byte_array_set_size (out, (guint) (n * (gsize) elem_size + N_COLUMNS + 8 * N_COLUMNS));
  p = out->data;
  for (guint c = 0; c < n_columns (elem_size); c++)
    {
      guint64 all = 0;
      guint w = 0;

      column_values (elems, n, elem_size, c, vals);
      for (guint i = 0; i < n; i++)
        all |= vals[i];
      while (w < 8 && (all >> (8 * w)) != 0)
        w++;
      *p++ = (guint8) w;
      for (guint b = 0; b < w; b++)
        for (guint i = 0; i < n; i++)
          *p++ = (guint8) (vals[i] >> (8 * b));
    }
  g_byte_array_set_size (out, (guint) (p - out->data));
}

static gboolean
planes_decode (const guint8 *bytes,
               gsize         size,
               guint         n,
               guint32       elem_size,
               void         *out)
{
  guint64 vals[STRATA_INDEX_MAX_BLOCK_ELEMS];
  const guint8 *p = bytes, *end = bytes + size;

  if (n > STRATA_INDEX_MAX_BLOCK_ELEMS)
    return FALSE;
  for (guint c = 0; c < n_columns (elem_size); c++)
    {
      guint w;

      if (p >= end || (w = *p++) > 8 || (gsize) (end - p) < (gsize) w * n)
        return FALSE;
      memset (vals, 0, n * sizeof vals[0]);
      for (guint b = 0; b < w; b++)
        for (guint i = 0; i < n; i++)
          vals[i] |= (guint64) *p++ << (8 * b);
      apply_column (out, n, elem_size, c, vals);
    }
  return p == end;
}

static guint8 *
runs_put_varint (guint8  *p,
                 guint64  v)
{
  while (v >= 0x80)
    {
      *p++ = (guint8) (v | 0x80);
      v >>= 7;
    }
  *p++ = (guint8) v;
  return p;
}

static void
runs_encode (const void *elems,
             guint       n,
             guint32     elem_size,
             GByteArray *out)
{
  guint64 vals[STRATA_INDEX_MAX_BLOCK_ELEMS];
  guint8 *p;

  g_byte_array_set_size (out, n * 60 + 3 * N_COLUMNS * 11);
  p = out->data;
  for (guint c = 0; c < n_columns (elem_size); c++)
    {
      gboolean repeated = n >= 2;

      column_values (elems, n, elem_size, c, vals);
      for (guint i = 2; repeated && i < n; i++)
        repeated = vals[i] == vals[1];
      *p++ = (guint8) repeated;
      if (repeated)
        {
          p = runs_put_varint (p, vals[0]);
          p = runs_put_varint (p, vals[1]);
        }
      else if (c == 5 || c == 6)
        for (guint i = 0; i < n; i++)
          *p++ = (guint8) vals[i];
      else
        for (guint i = 0; i < n; i++)
          p = runs_put_varint (p, vals[i]);
    }
  g_byte_array_set_size (out, (guint) (p - out->data));
}

static gboolean
runs_decode (const guint8 *bytes,
             gsize         size,
             guint         n,
             guint32       elem_size,
             void         *out)
{
  guint64 vals[STRATA_INDEX_MAX_BLOCK_ELEMS];
  V3Reader r = { bytes, bytes + size, FALSE };

  if (n > STRATA_INDEX_MAX_BLOCK_ELEMS)
    return FALSE;
  for (guint c = 0; c < n_columns (elem_size); c++)
    {
      guint8 tag = v3_get_byte (&r);

      if (tag > 1 || (tag == 1 && n < 2))
        return FALSE;
      if (tag == 1)
        {
          vals[0] = v3_get_varint (&r, 64);
          vals[1] = v3_get_varint (&r, 64);
          for (guint i = 2; i < n; i++)
            vals[i] = vals[1];
        }
      else if (c == 5 || c == 6)
        for (guint i = 0; i < n; i++)
          vals[i] = v3_get_byte (&r);
      else
        for (guint i = 0; i < n; i++)
          vals[i] = v3_get_varint (&r, 64);
      apply_column (out, n, elem_size, c, vals);
    }
  return !r.bad && r.p == r.end;
}

/* The variants. */

typedef enum
{
  COLUMNS_V3,        /* main's encoder and decoder, copied above */
  COLUMNS_LIBRARY,   /* strata_block_encode / decode_block */
  COLUMNS_PLANES,    /* byte planes per column (tried here only) */
  COLUMNS_RUNS,      /* varints, a repeated column in two numbers (tried here only) */
} Columns;

typedef enum
{
  STAGE_NONE,        /* the columns as they are */
  STAGE_ONESHOT,     /* ZSTD_compress: a context made and freed per block (main) */
  STAGE_CCTX,        /* ZSTD_compressCCtx on a reused context */
  STAGE_PARAMS,      /* ZSTD_compress2, parameters set once on a reused context */
  STAGE_STREAM,      /* ZSTD_compressStream2 (ZSTD_e_end), parameters set once */
  STAGE_SHIPPED,     /* strata_block_pack / strata_block_unpack */
  STAGE_DICT,        /* ZSTD_compress_usingCDict, a dictionary per kind trained on the index's blocks */
} Stage;

typedef struct
{
  const char *name;
  Columns     columns;
  Stage       stage;
  int         level;
  int         hash_log;    /* STAGE_PARAMS: 0 for the level's own */
  int         chain_log;
  int         min_match;
  int         strategy;
  gsize       dict_size;   /* STAGE_DICT */
} Variant;

static const Variant variants[] = {
  { "main v3: varints + zstd 3 (ZSTD_compress)", COLUMNS_V3, STAGE_ONESHOT, 3 },
  { "main's varints alone", COLUMNS_V3, STAGE_NONE, 0 },
  { "main's varints + zstd 3, reused CCtx", COLUMNS_V3, STAGE_CCTX, 3 },
  { "main's varints + zstd 3, compress2", COLUMNS_V3, STAGE_PARAMS, 3 },
  { "main's varints + zstd 3, stream", COLUMNS_V3, STAGE_STREAM, 3 },
  { "main's varints + zstd 2, reused CCtx", COLUMNS_V3, STAGE_CCTX, 2 },
  { "main's varints + zstd 1, reused CCtx", COLUMNS_V3, STAGE_CCTX, 1 },
  { "main's varints + zstd -1, reused CCtx", COLUMNS_V3, STAGE_CCTX, -1 },
  { "main's varints + zstd -5, reused CCtx", COLUMNS_V3, STAGE_CCTX, -5 },
  { "library columns alone", COLUMNS_LIBRARY, STAGE_NONE, 0 },
  { "library columns + zstd 3, reused CCtx", COLUMNS_LIBRARY, STAGE_CCTX, 3 },
  { "library columns + zstd 1, reused CCtx", COLUMNS_LIBRARY, STAGE_CCTX, 1 },
  { "library columns + zstd 3, hashLog 12 chainLog 12", COLUMNS_LIBRARY, STAGE_PARAMS, 3, 12, 12, 0, 0 },
  { "library columns + zstd 3, hashLog 14 chainLog 14", COLUMNS_LIBRARY, STAGE_PARAMS, 3, 14, 14, 0, 0 },
  { "library columns + zstd 3, minMatch 4", COLUMNS_LIBRARY, STAGE_PARAMS, 3, 0, 0, 4, 0 },
  { "library columns + zstd 3, minMatch 6", COLUMNS_LIBRARY, STAGE_PARAMS, 3, 0, 0, 6, 0 },
  { "library columns + zstd 2, minMatch 4", COLUMNS_LIBRARY, STAGE_PARAMS, 2, 0, 0, 4, 0 },
  { "library columns + zstd 4 (greedy)", COLUMNS_LIBRARY, STAGE_PARAMS, 4, 0, 0, 0, 0 },
  { "tried: byte planes + zstd 3", COLUMNS_PLANES, STAGE_CCTX, 3 },
  { "tried: byte planes + zstd 1", COLUMNS_PLANES, STAGE_CCTX, 1 },
  { "tried: byte planes + zstd -1", COLUMNS_PLANES, STAGE_CCTX, -1 },
  { "tried: repeated columns + zstd 3", COLUMNS_RUNS, STAGE_CCTX, 3 },
  { "tried: repeated columns + zstd 1", COLUMNS_RUNS, STAGE_CCTX, 1 },
  { "tried: library columns + zstd 3, 16 KiB dictionary", COLUMNS_LIBRARY, STAGE_DICT, 3, 0, 0, 0, 0, 16384 },
  { "tried: library columns + zstd 1, 16 KiB dictionary", COLUMNS_LIBRARY, STAGE_DICT, 1, 0, 0, 0, 0, 16384 },
  { "tried: library columns + zstd 1, 64 KiB dictionary", COLUMNS_LIBRARY, STAGE_DICT, 1, 0, 0, 0, 0, 65536 },
  { "tried: library columns + zstd -1, 16 KiB dictionary", COLUMNS_LIBRARY, STAGE_DICT, -1, 0, 0, 0, 0, 16384 },
  { "shipped: strata_block_pack", COLUMNS_LIBRARY, STAGE_SHIPPED, STRATA_INDEX_ZSTD_LEVEL },
};

#define N_VARIANTS G_N_ELEMENTS (variants)

typedef struct
{
  ZSTD_CCtx  *cctx;
  ZSTD_DCtx  *dctx;
  GByteArray *plain;
  guint8     *packed;       /* every block's bytes, one after the other */
  gsize       packed_size;
  gsize      *offsets;      /* per block, and one past the last */
  guint8     *codecs;
  guint       kind;         /* the kind being packed */
} Work;

/* The dictionaries of the STAGE_DICT variants, per kind. */
static ZSTD_CDict *cdicts[N_VARIANTS][2];
static ZSTD_DDict *ddicts[N_VARIANTS][2];
static gsize dict_lens[N_VARIANTS][2];

static void
encode_columns (const Variant *v,
                const void    *elems,
                guint          n,
                guint32        elem_size,
                GByteArray    *out)
{
  g_byte_array_set_size (out, 0);
  switch (v->columns)
    {
    case COLUMNS_V3: v3_encode_block (elems, n, elem_size, out); break;
    case COLUMNS_LIBRARY: strata_block_encode (elems, n, elem_size, out); break;
    case COLUMNS_PLANES: planes_encode (elems, n, elem_size, out); break;
    case COLUMNS_RUNS: runs_encode (elems, n, elem_size, out); break;
    default: g_assert_not_reached ();
    }
}

static gboolean
decode_columns (const Variant *v,
                const guint8  *bytes,
                gsize          size,
                guint          n,
                guint32        elem_size,
                void          *out)
{
  switch (v->columns)
    {
    /* The decoder did not change with the encoder: the library's reads both. */
    case COLUMNS_V3: return strata_block_decode (bytes, size, n, elem_size, out);
    case COLUMNS_LIBRARY: return strata_block_decode (bytes, size, n, elem_size, out);
    case COLUMNS_PLANES: return planes_decode (bytes, size, n, elem_size, out);
    case COLUMNS_RUNS: return runs_decode (bytes, size, n, elem_size, out);
    default: g_assert_not_reached ();
    }
  return FALSE;
}

/* Packs one block at the end of w->packed; returns its size. */
static gsize
pack_one (const Variant *v,
          Work          *w,
          const void    *elems,
          guint          n,
          guint32        elem_size,
          guint8        *dst,
          gsize          room,
          guint8        *codec)
{
  gsize got = 0;

  if (v->stage == STAGE_SHIPPED)
    {
      strata_block_pack (elems, n, elem_size, v->level, w->plain, codec);
      g_assert (w->plain->len <= room);
      memcpy (dst, w->plain->data, w->plain->len);
      return w->plain->len;
    }

  encode_columns (v, elems, n, elem_size, w->plain);
  *codec = STRATA_INDEX_CODEC_VARINT;
  if (v->stage != STAGE_NONE && w->plain->len >= 64)
    {
      switch (v->stage)
        {
        case STAGE_ONESHOT:
          got = ZSTD_compress (dst, room, w->plain->data, w->plain->len, v->level);
          break;
        case STAGE_CCTX:
          got = ZSTD_compressCCtx (w->cctx, dst, room, w->plain->data, w->plain->len, v->level);
          break;
        case STAGE_PARAMS:
          got = ZSTD_compress2 (w->cctx, dst, room, w->plain->data, w->plain->len);
          break;
        case STAGE_DICT:
          got = ZSTD_compress_usingCDict (w->cctx, dst, room, w->plain->data, w->plain->len,
                                          cdicts[v - variants][w->kind]);
          break;
        case STAGE_STREAM:
          {
            ZSTD_outBuffer o = { dst, room, 0 };
            ZSTD_inBuffer i = { w->plain->data, w->plain->len, 0 };

            ZSTD_CCtx_setPledgedSrcSize (w->cctx, w->plain->len);
            got = ZSTD_compressStream2 (w->cctx, &o, &i, ZSTD_e_end);
            got = got == 0 ? o.pos : (gsize) -1;
          }
          break;
        case STAGE_NONE:
        case STAGE_SHIPPED:
        default:
          g_assert_not_reached ();
        }
      g_assert (!ZSTD_isError (got));
      if (got < w->plain->len - w->plain->len / 8)
        {
          *codec = STRATA_INDEX_CODEC_ZSTD;
          return got;
        }
    }
  g_assert (w->plain->len <= room);
  memcpy (dst, w->plain->data, w->plain->len);
  return w->plain->len;
}

static gboolean
unpack_one (const Variant *v,
            Work          *w,
            const guint8  *bytes,
            gsize          size,
            guint8         codec,
            guint          n,
            guint32        elem_size,
            void          *out)
{
  guint8 plain[STRATA_INDEX_MAX_BLOCK_ELEMS * (11 * 10 + 2)];
  gsize got;

  if (v->stage == STAGE_SHIPPED)
    return strata_block_unpack (bytes, size, codec, n, elem_size, w->dctx, out);
  if (codec == STRATA_INDEX_CODEC_VARINT)
    return decode_columns (v, bytes, size, n, elem_size, out);
  if (v->stage == STAGE_DICT)
    got = ZSTD_decompress_usingDDict (w->dctx, plain, sizeof plain, bytes, size, ddicts[v - variants][w->kind]);
  else
    got = ZSTD_decompressDCtx (w->dctx, plain, sizeof plain, bytes, size);
  if (ZSTD_isError (got))
    return FALSE;
  return decode_columns (v, plain, got, n, elem_size, out);
}

static void
work_setup (const Variant *v,
            Work          *w)
{
  ZSTD_CCtx_reset (w->cctx, ZSTD_reset_session_and_parameters);
  if (v->stage == STAGE_PARAMS || v->stage == STAGE_STREAM)
    {
      ZSTD_CCtx_setParameter (w->cctx, ZSTD_c_compressionLevel, v->level);
      ZSTD_CCtx_setParameter (w->cctx, ZSTD_c_checksumFlag, 0);
      ZSTD_CCtx_setParameter (w->cctx, ZSTD_c_contentSizeFlag, 1);
      if (v->hash_log != 0)
        ZSTD_CCtx_setParameter (w->cctx, ZSTD_c_hashLog, v->hash_log);
      if (v->chain_log != 0)
        ZSTD_CCtx_setParameter (w->cctx, ZSTD_c_chainLog, v->chain_log);
      if (v->min_match != 0)
        ZSTD_CCtx_setParameter (w->cctx, ZSTD_c_minMatch, v->min_match);
      if (v->strategy != 0)
        ZSTD_CCtx_setParameter (w->cctx, ZSTD_c_strategy, v->strategy);
    }
}

/* The thread's CPU time in µs: the machine is shared, and a thread that
 * waits for a core should not count the wait. */
static gint64
cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static gint64
pack_kind (const Variant *v,
           Work          *w,
           const Kind    *k)
{
  gint64 t0 = cpu_us ();
  gsize at = 0;

  w->kind = k->id;
  work_setup (v, w);
  for (guint b = 0; b < k->blocks->len; b++)
    {
      const Block *blk = &g_array_index (k->blocks, Block, b);

      w->offsets[b] = at;
      at += pack_one (v, w, k->pool->data + blk->at, blk->n, blk->elem_size, w->packed + at,
                      w->packed_size - at, &w->codecs[b]);
    }
  w->offsets[k->blocks->len] = at;
  return cpu_us () - t0;
}

static gint64
unpack_kind (const Variant *v,
             Work          *w,
             const Kind    *k,
             gboolean       check)
{
  guint64 out64[STRATA_INDEX_MAX_BLOCK_BYTES / 8];
  gint64 t0 = cpu_us ();

  w->kind = k->id;
  for (guint b = 0; b < k->blocks->len; b++)
    {
      const Block *blk = &g_array_index (k->blocks, Block, b);
      gboolean ok = unpack_one (v, w, w->packed + w->offsets[b], w->offsets[b + 1] - w->offsets[b],
                                w->codecs[b], blk->n, blk->elem_size, out64);

      if (check && (!ok || memcmp (out64, k->pool->data + blk->at, (gsize) blk->n * blk->elem_size) != 0))
        g_error ("%s: block %u does not come back", v->name, b);
    }
  return cpu_us () - t0;
}

/* Every block of a packed array, read the reader's way. */
static void
collect (StrataIndexMap *map,
         Kind           *k,
         guint64         table_offset,
         guint64         sums_offset,
         guint64         n,
         guint32         elem_size,
         guint32         per_block,
         const char     *what)
{
  StrataPackedArray pa;
  guint64 n_blocks;

  if (n == 0)
    return;
  if (!strata_packed_array_init (&pa, map, table_offset, sums_offset, n, elem_size, per_block, what))
    g_error ("%s: bad packed array", what);
  n_blocks = (n + per_block - 1) / per_block;
  for (guint64 b = 0; b < n_blocks; b++)
    {
      Block blk = { k->pool->len, 0, elem_size };
      const StrataIndexBlock *rec = (const StrataIndexBlock *) (gconstpointer) pa.table.data + b;

      g_byte_array_set_size (k->pool, k->pool->len + per_block * elem_size);
      blk.n = strata_packed_array_read_block (&pa, b, k->pool->data + blk.at);
      if (blk.n == 0)
        g_error ("%s: block %" G_GUINT64_FORMAT " is damaged", what, b);
      g_byte_array_set_size (k->pool, blk.at + (gsize) blk.n * elem_size);
      g_array_append_val (k->blocks, blk);
      k->n_elems += blk.n;
      k->bytes += rec->size;
    }
  strata_packed_array_clear (&pa);
}

/* Where the varint bytes go: per column, its bytes and the share of
 * blocks in which it is one value repeated (--columns). */
static const char *column_names[] = {
  "duration", "gap", "channel", "label", "arg", "kind", "state", "flags", "count", "reserved", "idle",
};

static guint
varint_len (guint64 v)
{
  guint n = 1;

  while (v >= 0x80)
    {
      v >>= 7;
      n++;
    }
  return n;
}

static void
print_columns (const Kind *k,
               const char *name)
{
  guint64 bytes[11] = { 0 }, const_bytes[11] = { 0 };
  guint const_blocks[11] = { 0 };
  guint n_cols = k->blocks->len > 0 && g_array_index (k->blocks, Block, 0).elem_size == sizeof (StrataZoomItem) ? 11 : 8;

  for (guint b = 0; b < k->blocks->len; b++)
    {
      const Block *blk = &g_array_index (k->blocks, Block, b);
      const guint8 *e = k->pool->data + blk->at;
      StrataActivity prev = { 0 };

      for (guint c = 0; c < n_cols; c++)
        {
          guint64 first = 0, sum = 0;
          gboolean same = TRUE;

          prev = (StrataActivity) { 0 };
          for (guint i = 0; i < blk->n; prev = v3_common_at (e, i, blk->elem_size), i++)
            {
              StrataActivity a = v3_common_at (e, i, blk->elem_size);
              const StrataZoomItem *it = (const StrataZoomItem *) (gconstpointer) (e + (gsize) i * blk->elem_size);
              guint64 v;

              switch (c)
                {
                case 0: v = v3_zigzag64 ((guint64) a.end - (guint64) a.start); break;
                case 1: v = v3_zigzag64 ((guint64) a.start - (guint64) prev.end); break;
                case 2: v = v3_zigzag32 (a.channel - prev.channel); break;
                case 3: v = v3_zigzag32 (a.label - prev.label); break;
                case 4: v = v3_zigzag32 ((guint32) a.arg - (guint32) prev.arg); break;
                case 5: v = a.kind; break;
                case 6: v = a.state; break;
                case 7: v = (guint16) (a.flags ^ prev.flags); break;
                case 8: v = it->count; break;
                case 9: v = it->reserved; break;
                default: v = v3_zigzag64 (((guint64) a.end - (guint64) a.start) - (guint64) it->busy); break;
                }
              sum += c == 5 || c == 6 ? 1 : varint_len (v);
              if (i == 0)
                first = v;
              else if (v != first)
                same = FALSE;
            }
          bytes[c] += sum;
          if (same)
            {
              const_blocks[c]++;
              const_bytes[c] += sum;
            }
        }
    }
  g_print ("\n| %s column | varint bytes/element | blocks with one value | their bytes/element |\n|---|---|---|---|\n", name);
  for (guint c = 0; c < n_cols; c++)
    g_print ("| %s | %.3f | %.1f%% | %.3f |\n", column_names[c], bytes[c] / (double) MAX (k->n_elems, 1),
             100.0 * const_blocks[c] / MAX (k->blocks->len, 1), const_bytes[c] / (double) MAX (k->n_elems, 1));
}

/* A dictionary for variant @v and kind @k, trained on the varint columns
 * of every fourth block of the index itself (so it is what a dictionary
 * stored in each index, trained on its own blocks, would give; its
 * bytes are counted in the variant's size). Not timed. */
static void
train_dict (guint       v,
            const Kind *k)
{
  g_autoptr(GByteArray) samples = g_byte_array_new ();
  g_autoptr(GByteArray) plain = g_byte_array_new ();
  g_autoptr(GArray) sizes = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autofree guint8 *dict = g_malloc (variants[v].dict_size);
  gsize len;

  for (guint b = 0; b < k->blocks->len; b += 4)
    {
      const Block *blk = &g_array_index (k->blocks, Block, b);

      g_byte_array_set_size (plain, 0);
      strata_block_encode (k->pool->data + blk->at, blk->n, blk->elem_size, plain);
      g_byte_array_append (samples, plain->data, plain->len);
      len = plain->len;
      g_array_append_val (sizes, len);
    }
  len = ZDICT_trainFromBuffer (dict, variants[v].dict_size, samples->data, (const size_t *) (gpointer) sizes->data,
                               sizes->len);
  if (ZDICT_isError (len))
    g_error ("%s: training failed: %s", variants[v].name, ZDICT_getErrorName (len));
  cdicts[v][k->id] = ZSTD_createCDict (dict, len, variants[v].level);
  ddicts[v][k->id] = ZSTD_createDDict (dict, len);
  dict_lens[v][k->id] = len;
}

/* Whether variant @v is asked for: --variant is a comma-separated list
 * of parts of names. */
static gboolean
wanted (const Variant *v,
        const char    *only)
{
  g_auto(GStrv) parts = NULL;

  if (only == NULL)
    return TRUE;
  parts = g_strsplit (only, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (strstr (v->name, parts[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* Every packed block of the index at @path, decoded, by kind. */
static gboolean
load_index (const char *path,
            Kind       *kinds)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StrataIndexMap) map = NULL;
  const StrataIndexHeader *h;
  const StrataIndexLane *lanes;
  const StrataIndexLevel *levels;
  const guint8 *base;
  gsize size;

  map = strata_index_map_new (path, &error);
  if (map == NULL)
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  base = strata_index_map_get_data (map, &size);
  h = (const StrataIndexHeader *) (gconstpointer) base;
  if (size < sizeof *h || memcmp (h->magic, STRATA_INDEX_MAGIC, 8) != 0 || h->version != STRATA_INDEX_VERSION)
    {
      g_printerr ("%s: not a version %d index\n", path, STRATA_INDEX_VERSION);
      return FALSE;
    }

  for (guint k = 0; k < 2; k++)
    {
      kinds[k].pool = g_byte_array_new ();
      kinds[k].blocks = g_array_new (FALSE, FALSE, sizeof (Block));
      kinds[k].n_elems = kinds[k].bytes = 0;
      kinds[k].id = k;
    }

  /* The raw store: every lane that has activities. */
  g_assert (strata_index_map_contains (map, h->lanes_offset, h->n_raw_lanes, sizeof (StrataIndexLane)));
  lanes = (const StrataIndexLane *) (gconstpointer) (base + h->lanes_offset);
  for (guint64 i = 0; i < h->n_raw_lanes; i++)
    collect (map, &kinds[0], lanes[i].offset, lanes[i].sums_offset, lanes[i].n, sizeof (StrataActivity),
             STRATA_INDEX_ACTIVITY_BLOCK, "raw store");

  /* The chunks' items, rank by rank. */
  {
    const StrataIndexSection *s = &h->sections[STRATA_INDEX_SECTION_LEVELS];

    g_assert (strata_index_map_contains (map, s->offset, h->n_ranks, sizeof (StrataIndexLevel)));
    levels = (const StrataIndexLevel *) (gconstpointer) (base + s->offset);
    for (guint r = 0; r < h->n_ranks; r++)
      {
        const StrataIndexChunk *chunks = (const StrataIndexChunk *) (gconstpointer) (base + levels[r].chunks_offset);

        g_assert (strata_index_map_contains (map, levels[r].chunks_offset, levels[r].n_chunks,
                                             sizeof (StrataIndexChunk)));
        for (guint c = 0; c < levels[r].n_chunks; c++)
          collect (map, &kinds[1], chunks[c].items_offset, chunks[c].items_sums_offset, chunks[c].n_items,
                   sizeof (StrataZoomItem), STRATA_INDEX_ITEM_BLOCK, "chunk items");
      }
  }

  return TRUE;
}

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static gint64
median (gint64 *v,
        guint   n)
{
  qsort (v, n, sizeof *v, compare_gint64);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) ctx = NULL;
  g_autofree char *dict_from = NULL;
  g_autofree char *only = NULL;
  int n_runs = 5;
  gboolean columns = FALSE;
  GOptionEntry entries[] = {
    { "runs", 0, 0, G_OPTION_ARG_INT, &n_runs, "Runs per variant (default 5)", "N" },
    { "dict-from", 0, 0, G_OPTION_ARG_FILENAME, &dict_from, "Train the dictionaries on this other index's blocks", "INDEX" },
    { "columns", 0, 0, G_OPTION_ARG_NONE, &columns, "Where the varint bytes go, per column", NULL },
    { "variant", 0, 0, G_OPTION_ARG_STRING, &only, "Only the variants whose names contain one of these (comma-separated)", "TEXT" },
    { NULL }
  };
  Kind kinds[2], train_kinds[2];
  const char *kind_names[2] = { "activities", "items" };
  Work w = { 0 };
  gsize max_blocks = 0;
  /* [variant][kind][run] */
  g_autofree gint64 *pack_us = NULL, *unpack_us = NULL;
  gsize out_bytes[N_VARIANTS][2] = { { 0 } };

  ctx = g_option_context_new ("INDEX - the index codec's variants on an index's own blocks");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 2 || n_runs < 1)
    {
      g_printerr ("%s\n", error != NULL ? error->message : "usage: strata-bench-codec INDEX [--runs N]");
      return 2;
    }

  if (!load_index (argv[1], kinds) || (dict_from != NULL && !load_index (dict_from, train_kinds)))
    return 1;

  for (guint k = 0; k < 2; k++)
    {
      max_blocks = MAX (max_blocks, kinds[k].blocks->len);
      g_print ("%s: %u blocks, %" G_GUINT64_FORMAT " elements, %.1f MiB decoded, %.2f MiB in the index "
               "(%.3f bytes/element)\n",
               kind_names[k], kinds[k].blocks->len, kinds[k].n_elems, kinds[k].pool->len / 1048576.0,
               kinds[k].bytes / 1048576.0, (double) kinds[k].bytes / MAX (kinds[k].n_elems, 1));
    }

  if (columns)
    {
      print_columns (&kinds[0], kind_names[0]);
      print_columns (&kinds[1], kind_names[1]);
    }

  w.cctx = ZSTD_createCCtx ();
  w.dctx = ZSTD_createDCtx ();
  w.plain = g_byte_array_new ();
  w.packed_size = MAX (kinds[0].blocks->len * (gsize) STRATA_RAW_STORE_MAX_PACKED,
                       kinds[1].blocks->len * (gsize) (STRATA_INDEX_ITEM_BLOCK * (11 * 10 + 2)));
  w.packed_size = MIN (w.packed_size, (gsize) (kinds[0].pool->len + kinds[1].pool->len) * 2 + 65536);
  w.packed = g_malloc (w.packed_size);
  w.offsets = g_new (gsize, max_blocks + 1);
  w.codecs = g_new (guint8, max_blocks);
  pack_us = g_new0 (gint64, N_VARIANTS * 2 * n_runs);
  unpack_us = g_new0 (gint64, N_VARIANTS * 2 * n_runs);

  /* Each variant once, checked, untimed. */
  for (guint v = 0; v < N_VARIANTS; v++)
    {
      if (!wanted (&variants[v], only))
        continue;
      for (guint k = 0; k < 2; k++)
        {
          if (variants[v].stage == STAGE_DICT)
            train_dict (v, dict_from != NULL ? &train_kinds[k] : &kinds[k]);
          pack_kind (&variants[v], &w, &kinds[k]);
          out_bytes[v][k] = w.offsets[kinds[k].blocks->len] + dict_lens[v][k];
          unpack_kind (&variants[v], &w, &kinds[k], TRUE);
        }
    }

  /* Timed, interleaved: run r of every variant before run r + 1 of any. */
  for (int r = 0; r < n_runs; r++)
    for (guint v = 0; v < N_VARIANTS; v++)
      {
        if (!wanted (&variants[v], only))
          continue;
        for (guint k = 0; k < 2; k++)
          {
            pack_us[(v * 2 + k) * n_runs + r] = pack_kind (&variants[v], &w, &kinds[k]);
            unpack_us[(v * 2 + k) * n_runs + r] = unpack_kind (&variants[v], &w, &kinds[k], FALSE);
          }
      }

  g_print ("\nmedians of %d runs; bytes/element and ratio: out over the elements in memory (32 and 48 bytes)\n\n",
           n_runs);
  g_print ("| variant | kind | bytes/element | out/in | pack ns/element | unpack ns/element |\n");
  g_print ("|---|---|---|---|---|---|\n");
  for (guint v = 0; v < N_VARIANTS; v++)
    {
      guint64 all_out = 0, all_n = 0, all_in = 0;
      double all_pack = 0, all_unpack = 0;

      if (!wanted (&variants[v], only))
        continue;
      for (guint k = 0; k < 2; k++)
        {
          gint64 p = median (&pack_us[(v * 2 + k) * n_runs], n_runs);
          gint64 u = median (&unpack_us[(v * 2 + k) * n_runs], n_runs);
          double n = MAX (kinds[k].n_elems, 1);

          g_print ("| %s | %s | %.3f | %.4f | %.1f | %.1f |\n", variants[v].name, kind_names[k],
                   out_bytes[v][k] / n, out_bytes[v][k] / (double) MAX (kinds[k].pool->len, 1),
                   p * 1000.0 / n, u * 1000.0 / n);
          all_out += out_bytes[v][k];
          all_n += kinds[k].n_elems;
          all_in += kinds[k].pool->len;
          all_pack += p;
          all_unpack += u;
        }
      g_print ("| %s | both | %.3f | %.4f | %.1f | %.1f |\n", variants[v].name,
               all_out / (double) MAX (all_n, 1), all_out / (double) MAX (all_in, 1),
               all_pack * 1000.0 / MAX (all_n, 1), all_unpack * 1000.0 / MAX (all_n, 1));
    }

  for (guint k = 0; k < 2; k++)
    {
      g_byte_array_unref (kinds[k].pool);
      g_array_unref (kinds[k].blocks);
      if (dict_from != NULL)
        {
          g_byte_array_unref (train_kinds[k].pool);
          g_array_unref (train_kinds[k].blocks);
        }
    }
  ZSTD_freeCCtx (w.cctx);
  ZSTD_freeDCtx (w.dctx);
  g_byte_array_unref (w.plain);
  g_free (w.packed);
  g_free (w.offsets);
  g_free (w.codecs);
  return 0;
}
