/* strata-string-pool.c
 *
 * The pool keeps the strings in large blocks (a GStringChunk, whose strings
 * never move) and maps them to dense ids through a two-level table whose
 * blocks never move either. So a look-up by id takes no lock: an id handed
 * from one thread to another (through a queue, which orders memory) can be
 * read while the first thread goes on interning. Interning takes a mutex;
 * readers that intern on a hot path keep a small cache in front of it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-string-pool.h"

#define BLOCK_BITS 12
#define BLOCK_SIZE (1u << BLOCK_BITS)
#define MAX_BLOCKS (1u << 16)

struct _StrataStringPool
{
  gatomicrefcount   ref_count;
  GMutex            mutex;
  GStringChunk     *chunk;
  GHashTable       *ids;      /* const char * (in chunk) -> id */
  const char      **blocks[MAX_BLOCKS];
  guint             size;     /* read with g_atomic_int_get */
};

StrataStringPool *
strata_string_pool_new (void)
{
  StrataStringPool *self = g_new0 (StrataStringPool, 1);

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->mutex);
  self->chunk = g_string_chunk_new (64 * 1024);
  self->ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->blocks[0] = g_new0 (const char *, BLOCK_SIZE);
  self->blocks[0][0] = "";
  self->size = 1;

  return self;
}

StrataStringPool *
strata_string_pool_ref (StrataStringPool *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
strata_string_pool_unref (StrataStringPool *self)
{
  g_return_if_fail (self != NULL);

  if (g_atomic_ref_count_dec (&self->ref_count))
    {
      for (guint i = 0; i < MAX_BLOCKS && self->blocks[i] != NULL; i++)
        g_free (self->blocks[i]);
      g_clear_pointer (&self->ids, g_hash_table_unref);
      g_clear_pointer (&self->chunk, g_string_chunk_free);
      g_mutex_clear (&self->mutex);
      g_free (self);
    }
}

guint32
strata_string_pool_intern (StrataStringPool *self,
                           const char       *str)
{
  gpointer found;
  guint32 id;
  char *copy;

  g_return_val_if_fail (self != NULL, STRATA_STRING_NONE);

  if (str == NULL || str[0] == '\0')
    return STRATA_STRING_NONE;

  g_mutex_lock (&self->mutex);

  if (g_hash_table_lookup_extended (self->ids, str, NULL, &found))
    {
      g_mutex_unlock (&self->mutex);
      return GPOINTER_TO_UINT (found);
    }

  id = self->size;
  if (id >= MAX_BLOCKS * BLOCK_SIZE)
    {
      /* 268 million distinct strings: a hostile file, not a trace. */
      g_mutex_unlock (&self->mutex);
      return STRATA_STRING_NONE;
    }

  if (self->blocks[id >> BLOCK_BITS] == NULL)
    self->blocks[id >> BLOCK_BITS] = g_new0 (const char *, BLOCK_SIZE);

  copy = g_string_chunk_insert (self->chunk, str);
  self->blocks[id >> BLOCK_BITS][id & (BLOCK_SIZE - 1)] = copy;
  g_hash_table_insert (self->ids, copy, GUINT_TO_POINTER (id));
  g_atomic_int_set (&self->size, id + 1);

  g_mutex_unlock (&self->mutex);

  return id;
}

guint32
strata_string_pool_intern_len (StrataStringPool *self,
                               const char       *str,
                               gssize            len)
{
  char stack_buf[256];
  g_autofree char *heap_buf = NULL;
  char *buf;

  if (len < 0)
    return strata_string_pool_intern (self, str);

  if ((gsize) len < sizeof stack_buf)
    buf = stack_buf;
  else
    buf = heap_buf = g_malloc (len + 1);

  memcpy (buf, str, len);
  buf[len] = '\0';

  return strata_string_pool_intern (self, buf);
}

const char *
strata_string_pool_get (StrataStringPool *self,
                        guint32           id)
{
  g_return_val_if_fail (self != NULL, "");

  if (id >= (guint) g_atomic_int_get (&self->size))
    return "";

  return self->blocks[id >> BLOCK_BITS][id & (BLOCK_SIZE - 1)];
}

guint
strata_string_pool_get_size (StrataStringPool *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return g_atomic_int_get (&self->size);
}
