/* strata-index.c
 *
 * The source's identity, where an index lives, and the index's two
 * halves around a pass: find a sound one (strata_index_find()) and store
 * the one a pass built (strata_index_store()); strata-index-reader.c
 * opens one, and strata-loader.c puts the three together.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <xxhash.h>
#include <zstd.h>

#include "strata-error.h"
#include "strata-index.h"
#include "strata-index-private.h"
#include "strata-stats.h"
#include "strata-trace-private.h"

/* The source's identity. */

#define SAMPLE_SIZE   4096
#define N_SAMPLES     16

/**
 * strata_source_identity_compute:
 * @identity: (out): the file's size, modification time and a hash of its
 *   first and last 64 KiB and 16 blocks between them
 *
 * What the index remembers of its trace: reading it costs the same for a
 * trace of any size.
 */
gboolean
strata_source_identity_compute (const char            *path,
                                StrataSourceIdentity  *identity,
                                GError               **error)
{
  g_autofree guint8 *buf = g_malloc (64 * 1024);
  XXH3_state_t *state;
  struct stat st;
  int fd;

  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      int saved = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_NOT_FOUND,
                   "%s: %s", path, g_strerror (saved));
      return FALSE;
    }

  identity->size = st.st_size;
  identity->mtime_ns = (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;

  state = XXH3_createState ();
  XXH3_64bits_reset (state);
  XXH3_64bits_update (state, &identity->size, sizeof identity->size);
  for (guint i = 0; i < N_SAMPLES + 2; i++)
    {
      gsize want = i < 2 ? 64 * 1024 : SAMPLE_SIZE;
      guint64 offset;
      gssize got;

      if (i == 0)
        offset = 0;
      else if (i == 1)
        offset = identity->size > want ? identity->size - want : 0;
      else
        offset = identity->size / (N_SAMPLES + 1) * (i - 1);
      got = pread (fd, buf, want, offset);
      if (got < 0)
        {
          int saved = errno;

          XXH3_freeState (state);
          close (fd);
          g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO, "%s: %s", path, g_strerror (saved));
          return FALSE;
        }
      XXH3_64bits_update (state, buf, got);
    }
  identity->sample_hash = XXH3_64bits_digest (state);
  XXH3_freeState (state);
  close (fd);

  return TRUE;
}

/* In the user's cache, named by the source's identity. */
char *
strata_index_cache_path (const StrataSourceIdentity *identity)
{
  guint64 key = XXH3_64bits (identity, sizeof *identity);
  g_autofree char *name = g_strdup_printf ("%016" G_GINT64_MODIFIER "x" STRATA_INDEX_SUFFIX, key);

  return g_build_filename (g_get_user_cache_dir (), "strata", name, NULL);
}

/* Where the index of @trace_path goes: in @dir if set, else beside the
 * trace (FILE.strata-index) when that folder is writable, else the user's
 * cache ($XDG_CACHE_HOME/strata), named by the source's identity. */
static char *
default_path_in (const char                 *dir,
                 const char                 *trace_path,
                 const StrataSourceIdentity *identity)
{
  g_autofree char *parent = NULL;
  g_autofree char *beside = NULL;

  if (dir != NULL && dir[0] != '\0')
    {
      guint64 key = XXH3_64bits (identity, sizeof *identity);
      g_autofree char *name = g_strdup_printf ("%016" G_GINT64_MODIFIER "x" STRATA_INDEX_SUFFIX, key);

      return g_build_filename (dir, name, NULL);
    }

  beside = g_strconcat (trace_path, STRATA_INDEX_SUFFIX, NULL);
  parent = g_path_get_dirname (trace_path);
  if (g_file_test (beside, G_FILE_TEST_EXISTS) ? access (beside, R_OK) == 0 : access (parent, W_OK) == 0)
    return g_steal_pointer (&beside);

  return strata_index_cache_path (identity);
}

/**
 * strata_index_default_path:
 *
 * Where the index of @trace_path goes: StrataParameters.index_dir as the
 * environment sets it ($STRATA_INDEX_DIR: the tests use it, so the
 * fixtures' folder stays clean), else beside the trace (FILE.strata-index)
 * when that folder is writable, else the user's cache
 * ($XDG_CACHE_HOME/strata), named by the source's identity.
 */
char *
strata_index_default_path (const char                 *trace_path,
                           const StrataSourceIdentity *identity)
{
  g_auto(StrataParameters) parameters;

  strata_parameters_init_from_environment (&parameters);
  return default_path_in (parameters.index_dir, trace_path, identity);
}

/* The default path for @options' parameters, or the environment's. */
static char *
default_path_for (const char                 *trace_path,
                  const StrataSourceIdentity *identity,
                  const StrataIndexOptions   *options)
{
  if (options != NULL && options->parameters != NULL)
    return default_path_in (options->parameters->index_dir, trace_path, identity);
  return strata_index_default_path (trace_path, identity);
}

static void
note (const StrataIndexOptions *options,
      const char               *format,
      ...) G_GNUC_PRINTF (2, 3);

static void
note (const StrataIndexOptions *options,
      const char               *format,
      ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (options == NULL || options->note == NULL)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  options->note (message, options->note_data);
}

static gboolean
try_write (StrataTrace                *trace,
           StrataThreadRows           *thread_rows,
           const StrataSourceIdentity *identity,
           const char                 *path,
           const StrataIndexOptions   *options,
           GError                    **error)
{
  g_autofree char *dir = g_path_get_dirname (path);

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO, "%s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  if (options != NULL && options->parameters != NULL)
    return strata_index_write_full (trace, thread_rows, identity, path, options->parameters, error);
  else
    {
      g_auto(StrataParameters) parameters;

      strata_parameters_init_from_environment (&parameters);
      return strata_index_write_full (trace, thread_rows, identity, path, &parameters, error);
    }
}

/**
 * strata_index_find:
 * @trace_path: a trace file
 * @identity: @trace_path's identity (strata_source_identity_compute())
 * @params: (nullable): the zoom tree's parameters, %NULL for the defaults
 * @options: (nullable): where the index is, what to do, what to say
 * @write_path: (out) (optional): where a new index should go, when there
 *   is no sound one
 *
 * The lookup half of the loader (strata_loader_find_index()), for a caller that builds
 * the trace its own way (the viewer, which shows it while it loads): the
 * trace mapped from its index if a sound one is where the index of
 * @trace_path lives ($STRATA_INDEX_DIR, beside the trace, or the cache),
 * else %NULL, having said once through @options->note why an index that
 * is there is not used.
 *
 * Returns: (transfer full) (nullable): the trace from its index
 */
StrataTrace *
strata_index_find (const char                 *trace_path,
                   const StrataSourceIdentity *identity,
                   const StrataZoomParams     *params,
                   const StrataIndexOptions   *options,
                   char                      **write_path)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *path = NULL;
  StrataIndexOpenFlags flags = options != NULL ? options->flags : 0;
  StrataZoomParams defaults;
  StrataTrace *trace = NULL;

  g_return_val_if_fail (trace_path != NULL, NULL);
  g_return_val_if_fail (identity != NULL, NULL);

  if (write_path != NULL)
    *write_path = NULL;
  if (params == NULL)
    {
      strata_zoom_params_init (&defaults);
      params = &defaults;
    }

  path = options != NULL && options->index_path != NULL
           ? g_strdup (options->index_path)
           : default_path_for (trace_path, identity, options);

  if (!(flags & STRATA_INDEX_OPEN_REBUILD) && g_file_test (path, G_FILE_TEST_EXISTS))
    {
      trace = strata_index_open (path, identity, params, &local);
      if (trace != NULL)
        return trace;

      /* A stale index beside a trace in a folder we cannot write: the
       * last rebuild went to the cache. */
      if (options == NULL || options->index_path == NULL)
        {
          g_autofree char *cache = strata_index_cache_path (identity);

          if (g_strcmp0 (cache, path) != 0 && g_file_test (cache, G_FILE_TEST_EXISTS) &&
              (trace = strata_index_open (cache, identity, params, NULL)) != NULL)
            return trace;
        }
      note (options, "index %s: %s; rebuilding it", path, local->message);
    }

  if (write_path != NULL)
    *write_path = g_steal_pointer (&path);
  return NULL;
}

/**
 * strata_index_store:
 * @built: a trace just built from its source
 * @stats: (nullable): the statistics gathered from the pass's activities;
 *   finished here and kept with @built, their thread rows only when no
 *   index is written (else they are in the index alone)
 * @identity: the source's identity, computed before the pass
 * @index_path: where strata_index_find() said the index goes
 * @options: (nullable): what to say (@options->index_path set means
 *   nowhere else may be written)
 *
 * Writes @built's index to @index_path or, when that folder is not
 * writable after all, in the cache; what goes wrong is said once through
 * @options->note. The caller opens it (strata_index_open()): the loader
 * lets go of @built first, so the two are never in memory together.
 *
 * Returns: (transfer full) (nullable): where the index went, or %NULL
 */
char *
strata_index_store (StrataTrace                *built,
                    StrataStatsBuilder         *stats,
                    const StrataSourceIdentity *identity,
                    const char                 *index_path,
                    const StrataIndexOptions   *options)
{
  g_autoptr(StrataThreadRows) thread_rows = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *path = NULL;
  StrataStats *finished = NULL;

  g_return_val_if_fail (STRATA_IS_TRACE (built), NULL);
  g_return_val_if_fail (identity != NULL, NULL);
  g_return_val_if_fail (index_path != NULL, NULL);

  /* The thread rows, one per thread that ever lived, are merged into
   * their section from where they are rather than held (121 MB for a
   * million threads, at the index build's peak); @built's statistics get
   * them back only if no index is written. */
  if (stats != NULL)
    {
      finished = strata_stats_builder_finish_to_rows (stats, built, &thread_rows);
      strata_trace_set_stats (built, finished);
    }

  path = g_strdup (index_path);
  if (!try_write (built, thread_rows, identity, path, options, &local))
    {
      g_autofree char *cache = strata_index_cache_path (identity);

      /* Beside the trace was not writable after all: the cache. */
      if ((options == NULL || options->index_path == NULL) && g_strcmp0 (cache, path) != 0)
        {
          g_autoptr(GError) second = NULL;

          if (try_write (built, thread_rows, identity, cache, options, &second))
            {
              g_clear_error (&local);
              g_free (path);
              path = g_steal_pointer (&cache);
            }
        }
      if (local != NULL)
        {
          g_autoptr(GError) lost = NULL;

          note (options, "index not written: %s", local->message);
          if (thread_rows != NULL && !strata_thread_rows_into_array (thread_rows, finished->threads, &lost))
            note (options, "%s", lost->message);
          return NULL;
        }
    }
  return g_steal_pointer (&path);
}
