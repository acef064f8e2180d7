/* strata-ebpf-drain.c
 *
 * Records arrive from a ring in the order they were reserved, which is
 * nearly their time order: a program reads the clock a little before it
 * reserves, and an interrupt's program may run in between on the same
 * CPU. So a drain sorts what it holds (an insertion sort, linear on
 * nearly sorted input, with a merge sort behind it for input that is
 * not) and hands out only what is older than the watermark the consumer
 * gives it: the records younger than that may still have an older
 * neighbour on its way, and wait for the next cut.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-ebpf-drain.h"

typedef struct
{
  guint64 ts;
  guint32 offset;  /* in pending: also the order of arrival */
  guint32 size;
} Key;

struct _StrataEbpfDrain
{
  gsize       block_size;
  GByteArray *pending;
  GArray     *keys;     /* Key, one per record in pending */
  GByteArray *out;      /* the block being put together */
  guint64     horizon;  /* the last block's */
  guint64     counts[STRATA_EBPF_N_RECORD_TYPES];
  guint64     late;
};

StrataEbpfDrain *
strata_ebpf_drain_new (gsize block_size)
{
  StrataEbpfDrain *self = g_new0 (StrataEbpfDrain, 1);

  g_return_val_if_fail (block_size >= STRATA_EBPF_RECORD_MAX_SIZE, NULL);
  g_return_val_if_fail (block_size <= STRATA_EBPF_BLOCK_MAX_SIZE, NULL);

  self->block_size = block_size;
  self->pending = g_byte_array_new ();
  self->keys = g_array_new (FALSE, FALSE, sizeof (Key));
  self->out = g_byte_array_sized_new (block_size);

  return self;
}

void
strata_ebpf_drain_free (StrataEbpfDrain *self)
{
  if (self == NULL)
    return;
  g_byte_array_unref (self->pending);
  g_array_unref (self->keys);
  g_byte_array_unref (self->out);
  g_free (self);
}

gboolean
strata_ebpf_drain_add (StrataEbpfDrain *self,
                       const void      *data,
                       gsize            size)
{
  struct strata_ebpf_record r;
  Key k;

  if (size < sizeof r || size > STRATA_EBPF_RECORD_MAX_SIZE || size % 8 != 0)
    return FALSE;
  memcpy (&r, data, sizeof r);
  if ((gsize) r.size8 * 8 != size)
    return FALSE;
  if (self->pending->len > G_MAXUINT32 - size)
    return FALSE;

  k.ts = GUINT64_FROM_LE (r.ts);
  k.offset = self->pending->len;
  k.size = size;
  g_byte_array_append (self->pending, data, size);
  g_array_append_val (self->keys, k);

  return TRUE;
}

gsize
strata_ebpf_drain_get_pending (StrataEbpfDrain *self)
{
  return self->keys->len;
}

guint64
strata_ebpf_drain_get_count (StrataEbpfDrain *self,
                             guint            type)
{
  g_return_val_if_fail (type < STRATA_EBPF_N_RECORD_TYPES, 0);

  return __atomic_load_n (&self->counts[type], __ATOMIC_RELAXED);
}

guint64
strata_ebpf_drain_get_late (StrataEbpfDrain *self)
{
  return __atomic_load_n (&self->late, __ATOMIC_RELAXED);
}

static int
key_cmp (gconstpointer a,
         gconstpointer b)
{
  const Key *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->offset < y->offset ? -1 : (x->offset > y->offset);
}

/* Stable: ties keep their order of arrival. */
static void
sort_keys (GArray *keys)
{
  Key *k = (Key *) (gpointer) keys->data;
  guint n = keys->len;
  guint64 budget = 8 * (guint64) n + 1024;

  for (guint i = 1; i < n; i++)
    {
      Key x = k[i];
      guint j = i;

      while (j > 0 && k[j - 1].ts > x.ts)
        {
          k[j] = k[j - 1];
          j--;
          if (--budget == 0)
            {
              k[j] = x;
              g_array_sort (keys, key_cmp);
              return;
            }
        }
      k[j] = x;
    }
}

static gboolean
flush (StrataEbpfDrain      *self,
       guint32               n_records,
       guint64               horizon,
       StrataEbpfBlockFunc   func,
       gpointer              user_data,
       GError              **error)
{
  gboolean ok = func (self->out->data, self->out->len, n_records, horizon, user_data, error);

  g_byte_array_set_size (self->out, 0);
  self->horizon = MAX (self->horizon, horizon);
  return ok;
}

gboolean
strata_ebpf_drain_cut (StrataEbpfDrain      *self,
                       guint64               watermark,
                       gboolean              empty_block,
                       StrataEbpfBlockFunc   func,
                       gpointer              user_data,
                       GError              **error)
{
  Key *k;
  guint n, i;
  guint32 in_block = 0;
  guint8 type;

  sort_keys (self->keys);
  k = (Key *) (gpointer) self->keys->data;
  n = self->keys->len;

  for (i = 0; i < n && k[i].ts < watermark; i++)
    {
      const guint8 *rec = self->pending->data + k[i].offset;

      if (self->out->len + k[i].size > self->block_size)
        {
          if (!flush (self, in_block, k[i].ts, func, user_data, error))
            return FALSE;
          in_block = 0;
        }
      if (k[i].ts < self->horizon)
        __atomic_fetch_add (&self->late, 1, __ATOMIC_RELAXED);
      g_byte_array_append (self->out, rec, k[i].size);
      in_block++;
      type = rec[G_STRUCT_OFFSET (struct strata_ebpf_record, type)];
      if (type < STRATA_EBPF_N_RECORD_TYPES)
        __atomic_fetch_add (&self->counts[type], 1, __ATOMIC_RELAXED);
    }

  if ((in_block > 0 || (i == 0 && empty_block)) &&
      !flush (self, in_block, watermark, func, user_data, error))
    return FALSE;

  /* What waits for the next cut, in the order found. */
  if (i > 0)
    {
      g_autoptr(GByteArray) rest = g_byte_array_new ();

      for (guint j = i; j < n; j++)
        {
          Key moved = k[j];

          moved.offset = rest->len;
          g_byte_array_append (rest, self->pending->data + k[j].offset, k[j].size);
          k[j - i] = moved;
        }
      g_array_set_size (self->keys, n - i);
      g_byte_array_unref (self->pending);
      self->pending = g_steal_pointer (&rest);
    }

  return TRUE;
}
