/* strata-index-map.c
 *
 * The mapping itself is GLib's (GMappedFile, read-only and shared), so the
 * kernel pages the file in as queries touch it and an index of any size
 * opens at once. Everything built on the map reads through offsets it
 * checked with strata_index_map_contains() first: a length in a damaged
 * file never reads outside it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xxhash.h>

#include "strata-error.h"
#include "strata-index-map.h"

struct _StrataIndexMap
{
  gatomicrefcount   ref_count;
  GMappedFile      *file;
  GBytes           *bytes;
  const guint8     *data;
  gsize             size;
  gint              damaged;
  GMutex            lock;
  char             *damage;
  StrataBlockCache *cache;
};

guint64
strata_index_checksum (const void *data,
                       gsize       size)
{
  return XXH3_64bits (data, size);
}

StrataIndexHasher *
strata_index_hasher_new (void)
{
  XXH3_state_t *state = XXH3_createState ();

  g_assert (state != NULL);
  XXH3_64bits_reset (state);
  return (StrataIndexHasher *) state;
}

void
strata_index_hasher_add (StrataIndexHasher *self,
                         const void        *data,
                         gsize              size)
{
  if (size > 0)
    XXH3_64bits_update ((XXH3_state_t *) self, data, size);
}

/* Frees @self; returns the checksum of what was added. */
guint64
strata_index_hasher_free (StrataIndexHasher *self)
{
  guint64 sum = XXH3_64bits_digest ((XXH3_state_t *) self);

  XXH3_freeState ((XXH3_state_t *) self);
  return sum;
}

static StrataIndexMap *
map_new (void)
{
  StrataIndexMap *self = g_new0 (StrataIndexMap, 1);

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->lock);
  self->cache = strata_block_cache_new ();
  return self;
}

StrataIndexMap *
strata_index_map_new (const char  *path,
                      GError     **error)
{
  g_autoptr(GError) local = NULL;
  GMappedFile *file = g_mapped_file_new (path, FALSE, &local);
  StrataIndexMap *self;

  if (file == NULL)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_NOT_FOUND, "%s", local->message);
      return NULL;
    }

  self = map_new ();
  self->file = file;
  self->data = (const guint8 *) g_mapped_file_get_contents (file);
  self->size = g_mapped_file_get_length (file);

  return self;
}

StrataIndexMap *
strata_index_map_new_from_bytes (GBytes *bytes)
{
  StrataIndexMap *self = map_new ();

  self->bytes = g_bytes_ref (bytes);
  self->data = g_bytes_get_data (bytes, &self->size);
  return self;
}

StrataIndexMap *
strata_index_map_ref (StrataIndexMap *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
strata_index_map_unref (StrataIndexMap *self)
{
  if (self == NULL || !g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_clear_pointer (&self->file, g_mapped_file_unref);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_mutex_clear (&self->lock);
  g_free (self->damage);
  strata_block_cache_free (self->cache);
  g_free (self);
}

/* The decoded blocks of this file's packed arrays, and its zstd contexts. */
StrataBlockCache *
strata_index_map_get_cache (StrataIndexMap *self)
{
  return self->cache;
}

const guint8 *
strata_index_map_get_data (StrataIndexMap *self,
                           gsize          *size)
{
  *size = self->size;
  return self->data;
}

/* Whether @count elements of @elem_size at @offset lie inside the file
 * and are aligned for reading in place. */
gboolean
strata_index_map_contains (StrataIndexMap *self,
                           guint64         offset,
                           guint64         count,
                           guint64         elem_size)
{
  if (count == 0)
    return offset <= self->size;
  if (elem_size > 0 && count > G_MAXUINT64 / elem_size)
    return FALSE;
  if (offset % 8 != 0 || offset > self->size)
    return FALSE;
  return count * elem_size <= self->size - offset;
}

/* The checksums are not looked at in a fuzzing build, so the fuzzer gets
 * past them to the structure behind. */
/* A section read whole for its checksum is read a window at a time, and
 * the file's pages of each window are let go once hashed (the kernel
 * pages them in again when they are read): with a million threads the
 * statistics' rows alone are 121 MB, and hashing them at the open made
 * them part of the process's peak RSS beside everything else. */
#define VERIFY_WINDOW ((gsize) 8 << 20)

static guint64
checksum_in_windows (StrataIndexMap *self,
                     const guint8   *data,
                     gsize           size)
{
  XXH3_state_t *state;
  guint64 sum;
  gsize page = (gsize) sysconf (_SC_PAGESIZE);

  if (self->file == NULL || size <= VERIFY_WINDOW)
    return strata_index_checksum (data, size);

  state = XXH3_createState ();
  XXH3_64bits_reset (state);
  for (gsize at = 0; at < size; at += VERIFY_WINDOW)
    {
      gsize n = MIN (VERIFY_WINDOW, size - at);
      guintptr first = ((guintptr) (data + at) + page - 1) & ~(guintptr) (page - 1);
      guintptr last = ((guintptr) (data + at + n)) & ~(guintptr) (page - 1);

      XXH3_64bits_update (state, data + at, n);
      /* Read-only and private: the pages go back to the file's. */
      if (last > first)
        (void) madvise ((void *) first, last - first, MADV_DONTNEED);
    }
  sum = XXH3_64bits_digest (state);
  XXH3_freeState (state);
  return sum;
}

/**
 * strata_index_map_let_go:
 * @data: bytes of the map
 *
 * The whole pages of @data leave the process's memory (the kernel reads
 * them from the file again when they are read): for what is read once
 * at the open and then seldom (a million threads' channels). Nothing
 * for bytes that are not a file's.
 */
void
strata_index_map_let_go (StrataIndexMap *self,
                         const void     *data,
                         gsize           size)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  guintptr first, last;

  g_return_if_fail (self != NULL);

  if (self->file == NULL || size == 0)
    return;
  first = ((guintptr) data + page - 1) & ~(guintptr) (page - 1);
  last = ((guintptr) data + size) & ~(guintptr) (page - 1);
  if (last > first)
    (void) madvise ((void *) first, last - first, MADV_DONTNEED);
}

gboolean
strata_index_map_verify (StrataIndexMap *self,
                         const void     *data,
                         gsize           size,
                         guint64         checksum)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  (void) checksum_in_windows (self, data, size);
  return TRUE;
#else
  return checksum_in_windows (self, data, size) == checksum;
#endif
}

/* Small enough that a window hashed is still in the cache when it is
 * visited. */
#define VISIT_WINDOW ((gsize) 256 << 10)

/**
 * strata_index_map_verify_visit:
 * @elem_size: the size of @data's elements (@size is a multiple of it)
 * @visit: checks the elements of a window, right after the window was
 *   hashed (while it is in the cache) and before its file pages go
 * @visited: (out): whether @visit found every window sound
 *
 * strata_index_map_verify() and a check of each element in one read of
 * the bytes: a million threads' channels were read twice at the open,
 * and their pages faulted in twice, once to hash them and once to check
 * them.
 *
 * Returns: whether @data has @checksum (always in a fuzzing build)
 */
gboolean
strata_index_map_verify_visit (StrataIndexMap       *self,
                               const void           *data,
                               gsize                 size,
                               guint64               checksum,
                               gsize                 elem_size,
                               StrataIndexVisitFunc  visit,
                               gpointer              user_data,
                               gboolean             *visited)
{
  gsize window = MAX (VISIT_WINDOW / elem_size, 1) * elem_size;
  const guint8 *bytes = data;
  XXH3_state_t *state;
  guint64 sum;

  g_return_val_if_fail (self != NULL && elem_size > 0 && visit != NULL && visited != NULL, FALSE);

  *visited = TRUE;
  state = XXH3_createState ();
  XXH3_64bits_reset (state);
  for (gsize at = 0; at < size; at += window)
    {
      gsize n = MIN (window, size - at);

      XXH3_64bits_update (state, bytes + at, n);
      if (*visited && !visit (bytes + at, at / elem_size, n / elem_size, user_data))
        *visited = FALSE;
      strata_index_map_let_go (self, bytes + at, n);
    }
  sum = XXH3_64bits_digest (state);
  XXH3_freeState (state);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  (void) sum;
  (void) checksum;
  return TRUE;
#else
  return sum == checksum;
#endif
}

void
strata_index_map_note_damage (StrataIndexMap *self,
                              const char     *format,
                              ...)
{
  va_list args;

  g_mutex_lock (&self->lock);
  if (self->damage == NULL)
    {
      va_start (args, format);
      self->damage = g_strdup_vprintf (format, args);
      va_end (args);
    }
  g_mutex_unlock (&self->lock);
  g_atomic_int_set (&self->damaged, 1);
}

/* Returns: (nullable): what was found damaged first, if anything was */
const char *
strata_index_map_get_damage (StrataIndexMap *self)
{
  const char *damage;

  if (self == NULL || !g_atomic_int_get (&self->damaged))
    return NULL;
  g_mutex_lock (&self->lock);
  damage = self->damage;
  g_mutex_unlock (&self->lock);
  return damage;
}
