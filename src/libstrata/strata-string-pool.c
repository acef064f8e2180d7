/* strata-string-pool.c
 *
 * The pool keeps the strings in large blocks (a GStringChunk) and maps them
 * to dense ids. Look-ups by id are an array index; interning is one hash
 * look-up. It is not thread-safe: each reader owns one.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-string-pool.h"

struct _StrataStringPool
{
  gatomicrefcount  ref_count;
  GStringChunk    *chunk;
  GHashTable      *ids;      /* const char * (in chunk) -> id */
  GPtrArray       *strings;  /* id -> const char * (in chunk) */
};

StrataStringPool *
strata_string_pool_new (void)
{
  StrataStringPool *self = g_new0 (StrataStringPool, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->chunk = g_string_chunk_new (64 * 1024);
  self->ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->strings = g_ptr_array_new ();
  g_ptr_array_add (self->strings, (gpointer) "");

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
      g_clear_pointer (&self->ids, g_hash_table_unref);
      g_clear_pointer (&self->strings, g_ptr_array_unref);
      g_clear_pointer (&self->chunk, g_string_chunk_free);
      g_free (self);
    }
}

guint32
strata_string_pool_intern (StrataStringPool *self,
                           const char       *str)
{
  gpointer id;
  char *copy;

  g_return_val_if_fail (self != NULL, STRATA_STRING_NONE);

  if (str == NULL || str[0] == '\0')
    return STRATA_STRING_NONE;

  if (g_hash_table_lookup_extended (self->ids, str, NULL, &id))
    return GPOINTER_TO_UINT (id);

  copy = g_string_chunk_insert (self->chunk, str);
  g_hash_table_insert (self->ids, copy, GUINT_TO_POINTER (self->strings->len));
  g_ptr_array_add (self->strings, copy);

  return self->strings->len - 1;
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

  if (id >= self->strings->len)
    return "";

  return g_ptr_array_index (self->strings, id);
}

guint
strata_string_pool_get_size (StrataStringPool *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->strings->len;
}
