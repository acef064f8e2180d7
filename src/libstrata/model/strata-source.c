/* strata-source.c
 *
 * The base class of input plugins and the registry that chooses one for a
 * file. The choice reads the file's first bytes and asks each registered
 * plugin how sure it is; the highest score wins, so a plugin never has to
 * know about the others.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "strata-error.h"
#include "strata-source.h"

typedef struct
{
  char             *path;
  StrataStringPool *strings;
  StrataSourceInfo  info;
} StrataSourcePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (StrataSource, strata_source, G_TYPE_OBJECT)

static void
strata_source_finalize (GObject *object)
{
  StrataSource *self = (StrataSource *)object;
  StrataSourcePrivate *priv = strata_source_get_instance_private (self);

  g_clear_pointer (&priv->path, g_free);
  g_clear_pointer (&priv->strings, strata_string_pool_unref);
  g_clear_pointer (&priv->info.format, g_free);
  g_clear_pointer (&priv->info.version, g_free);
  g_clear_pointer (&priv->info.compression, g_free);
  g_clear_pointer (&priv->info.clock, g_free);
  g_clear_pointer (&priv->info.instances, g_ptr_array_unref);
  g_clear_pointer (&priv->info.lost_per_cpu, g_array_unref);
  g_clear_pointer (&priv->info.hostname, g_free);
  g_clear_pointer (&priv->info.kernel_release, g_free);
  g_clear_pointer (&priv->info.undecoded, g_ptr_array_unref);
  g_clear_pointer (&priv->info.details, g_array_unref);

  G_OBJECT_CLASS (strata_source_parent_class)->finalize (object);
}

enum {
  PROP_0,
  PROP_FILE_POSITION,
};

static void
strata_source_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  StrataSource *self = STRATA_SOURCE (object);

  switch (prop_id)
    {
    case PROP_FILE_POSITION:
      g_value_set_uint64 (value, strata_source_get_file_position (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
strata_source_class_init (StrataSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = strata_source_finalize;
  object_class->get_property = strata_source_get_property;

  g_object_class_install_property (object_class, PROP_FILE_POSITION,
                                   g_param_spec_uint64 ("file-position", NULL, NULL,
                                                        0, G_MAXUINT64, 0,
                                                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void
strata_source_init (StrataSource *self)
{
  StrataSourcePrivate *priv = strata_source_get_instance_private (self);

  priv->strings = strata_string_pool_new ();
  priv->info.instances = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (priv->info.instances, g_strdup (""));
  priv->info.lost_per_cpu = g_array_new (FALSE, TRUE, sizeof (guint64));
  priv->info.undecoded = g_ptr_array_new_with_free_func ((GDestroyNotify) strata_undecoded_free);
  priv->info.first_ts = G_MAXINT64;
  priv->info.last_ts = G_MININT64;
  priv->info.span_first = G_MAXINT64;
  priv->info.span_last = G_MININT64;
  priv->info.details = strata_source_details_new ();
}

static void
detail_clear (gpointer data)
{
  StrataSourceDetail *d = data;

  g_free (d->name);
  g_free (d->value);
}

/* An empty array of StrataSourceDetail that frees its strings. */
GArray *
strata_source_details_new (void)
{
  GArray *details = g_array_new (FALSE, FALSE, sizeof (StrataSourceDetail));

  g_array_set_clear_func (details, detail_clear);
  return details;
}

/* For plugins: a fact of the file's own, shown by `info` as it is. */
void
strata_source_add_detail (StrataSource *self,
                          const char   *name,
                          const char   *value)
{
  StrataSourcePrivate *priv = strata_source_get_instance_private (self);
  StrataSourceDetail d;

  g_return_if_fail (STRATA_IS_SOURCE (self));
  g_return_if_fail (name != NULL && value != NULL);

  d.name = g_strdup (name);
  d.value = g_strdup (value);
  g_array_append_val (priv->info.details, d);
}

const char *
strata_source_get_path (StrataSource *self)
{
  StrataSourcePrivate *priv = strata_source_get_instance_private (self);

  g_return_val_if_fail (STRATA_IS_SOURCE (self), NULL);

  return priv->path;
}

/**
 * strata_source_get_strings:
 *
 * Returns: (transfer none): the pool the source's events refer to.
 */
StrataStringPool *
strata_source_get_strings (StrataSource *self)
{
  StrataSourcePrivate *priv = strata_source_get_instance_private (self);

  g_return_val_if_fail (STRATA_IS_SOURCE (self), NULL);

  return priv->strings;
}

const StrataSourceInfo *
strata_source_get_info (StrataSource *self)
{
  StrataSourcePrivate *priv = strata_source_get_instance_private (self);

  g_return_val_if_fail (STRATA_IS_SOURCE (self), NULL);

  return &priv->info;
}

StrataSourceInfo *
strata_source_get_info_mutable (StrataSource *self)
{
  StrataSourcePrivate *priv = strata_source_get_instance_private (self);

  g_return_val_if_fail (STRATA_IS_SOURCE (self), NULL);

  return &priv->info;
}

void
strata_source_note_lost (StrataSource *self,
                         guint         cpu,
                         guint64       count)
{
  StrataSourcePrivate *priv = strata_source_get_instance_private (self);
  GArray *lost = priv->info.lost_per_cpu;

  g_return_if_fail (STRATA_IS_SOURCE (self));

  if (cpu >= lost->len)
    g_array_set_size (lost, cpu + 1);
  g_array_index (lost, guint64, cpu) += count;
  priv->info.lost_events += count;
}

StrataUndecoded *
strata_undecoded_new (const char *what)
{
  StrataUndecoded *u = g_new0 (StrataUndecoded, 1);

  u->what = g_strdup (what);
  u->bytes_per_cpu = g_array_new (FALSE, TRUE, sizeof (guint64));
  return u;
}

void
strata_undecoded_free (StrataUndecoded *undecoded)
{
  if (undecoded == NULL)
    return;
  g_free (undecoded->what);
  g_array_unref (undecoded->bytes_per_cpu);
  g_free (undecoded);
}

/**
 * strata_source_note_undecoded:
 * @what: what the data is, the same string for the same kind
 * @cpu: the CPU it was recorded on, or -1 when it says none
 * @records: how many records it took
 * @bytes: how many bytes
 *
 * For plugins: data read past without decoding, added up by @what.
 */
void
strata_source_note_undecoded (StrataSource *self,
                              const char   *what,
                              gint          cpu,
                              guint64       records,
                              guint64       bytes)
{
  StrataSourcePrivate *priv = strata_source_get_instance_private (self);
  GPtrArray *all = priv->info.undecoded;
  StrataUndecoded *u = NULL;

  g_return_if_fail (STRATA_IS_SOURCE (self));
  g_return_if_fail (what != NULL);

  for (guint i = 0; i < all->len && u == NULL; i++)
    if (g_str_equal (((StrataUndecoded *) g_ptr_array_index (all, i))->what, what))
      u = g_ptr_array_index (all, i);
  if (u == NULL)
    {
      u = strata_undecoded_new (what);
      g_ptr_array_add (all, u);
    }

  u->records += records;
  u->bytes += bytes;
  if (cpu >= 0)
    {
      if ((guint) cpu >= u->bytes_per_cpu->len)
        g_array_set_size (u->bytes_per_cpu, cpu + 1);
      g_array_index (u->bytes_per_cpu, guint64, cpu) += bytes;
    }
}

/**
 * strata_source_read_batch:
 * @self: a source
 * @events: (out caller-allocates): where to write events
 * @n_events: room in @events
 * @error: the damage, when -1 is returned
 *
 * Reads the next events in time order. Keeps the info's first and last
 * timestamps up to date.
 *
 * Returns: the number of events written, 0 at the end, -1 on error.
 */
gssize
strata_source_read_batch (StrataSource  *self,
                          StrataEvent   *events,
                          gsize          n_events,
                          GError       **error)
{
  StrataSourcePrivate *priv = strata_source_get_instance_private (self);
  gssize n;

  g_return_val_if_fail (STRATA_IS_SOURCE (self), -1);
  g_return_val_if_fail (events != NULL || n_events == 0, -1);

  n = STRATA_SOURCE_GET_CLASS (self)->read_batch (self, events, n_events, error);

  if (n > 0)
    {
      if (events[0].ts < priv->info.first_ts)
        priv->info.first_ts = events[0].ts;
      if (events[n - 1].ts > priv->info.last_ts)
        priv->info.last_ts = events[n - 1].ts;
    }

  return n;
}

static gboolean
read_head (const char  *path,
           guint8      *head,
           gsize       *head_len,
           GError     **error)
{
  gsize got = 0;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, STRATA_ERROR,
                   errsv == ENOENT ? STRATA_ERROR_NOT_FOUND : STRATA_ERROR_IO,
                   "%s: %s", path, g_strerror (errsv));
      return FALSE;
    }

  while (got < *head_len)
    {
      gssize n = read (fd, head + got, *head_len - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;
          g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO,
                       "%s: offset 0: %s", path, g_strerror (errsv));
          close (fd);
          return FALSE;
        }
      if (n == 0)
        break;
      got += n;
    }

  close (fd);
  *head_len = got;

  return TRUE;
}

/**
 * strata_source_open:
 * @path: a trace file
 * @error: where to report a missing file or an unknown format
 *
 * Finds the plugin that recognises @path by its content and opens it.
 *
 * Returns: (transfer full): a source, ready for strata_source_read_batch()
 */
StrataSource *
strata_source_open (const char  *path,
                    GError     **error)
{
  g_autoptr(StrataSource) source = NULL;
  guint8 head[STRATA_SOURCE_PROBE_SIZE];
  gsize head_len = sizeof head;
  GIOExtensionPoint *ep;
  GType best_type = G_TYPE_INVALID;
  guint best_score = 0;
  StrataSourcePrivate *priv;

  g_return_val_if_fail (path != NULL, NULL);

  strata_source_ensure_builtin ();

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNKNOWN_FORMAT,
                   "%s: is a directory, not a trace file", path);
      return NULL;
    }

  if (!read_head (path, head, &head_len, error))
    return NULL;

  if (head_len == 0)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_TRUNCATED,
                   "%s: offset 0: the file is empty", path);
      return NULL;
    }

  ep = g_io_extension_point_lookup (STRATA_SOURCE_EXTENSION_POINT);

  for (const GList *l = g_io_extension_point_get_extensions (ep); l; l = l->next)
    {
      GIOExtension *ext = l->data;
      GTypeClass *klass = g_io_extension_ref_class (ext);
      guint score = STRATA_SOURCE_CLASS (klass)->probe (head, head_len);

      if (score > best_score)
        {
          best_score = score;
          best_type = g_io_extension_get_type (ext);
        }

      g_type_class_unref (klass);
    }

  if (best_type == G_TYPE_INVALID)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNKNOWN_FORMAT,
                   "%s: offset 0: not a trace Strata can read "
                   "(expected trace.dat, ftrace text output or perf.data)",
                   path);
      return NULL;
    }

  source = g_object_new (best_type, NULL);
  priv = strata_source_get_instance_private (source);
  priv->path = g_strdup (path);

  if (!STRATA_SOURCE_GET_CLASS (source)->open (source, path, error))
    return NULL;

  return g_steal_pointer (&source);
}

/**
 * strata_source_get_callchain:
 * @id: a sample activity's arg
 * @n_frames: (out): how many frames
 *
 * Returns: (nullable) (transfer none): the call chain's frames, innermost
 *   first, or %NULL when the source has no call chains or no such id
 */
const guint64 *
strata_source_get_callchain (StrataSource *self,
                             guint32       id,
                             guint        *n_frames)
{
  StrataSourceClass *klass;

  g_return_val_if_fail (STRATA_IS_SOURCE (self), NULL);
  g_return_val_if_fail (n_frames != NULL, NULL);

  klass = STRATA_SOURCE_GET_CLASS (self);
  *n_frames = 0;
  if (klass->get_callchain == NULL)
    return NULL;
  return klass->get_callchain (self, id, n_frames);
}

/**
 * strata_source_symbolize:
 * @pid: the process @address belongs to
 * @address: a code address from a sample
 *
 * Names a code address, lazily: only what is asked for is looked up.
 *
 * Returns: (nullable) (transfer full): the function's name (or the
 *   address, when the source cannot name it), %NULL when the source has
 *   no symbols at all
 */
char *
strata_source_symbolize (StrataSource *self,
                         gint32        pid,
                         guint64       address)
{
  StrataSourceClass *klass;

  g_return_val_if_fail (STRATA_IS_SOURCE (self), NULL);

  klass = STRATA_SOURCE_GET_CLASS (self);
  if (klass->symbolize == NULL)
    return NULL;
  return klass->symbolize (self, pid, address);
}

/* Whether the format carries samples with call chains (its reader
 * implements get_callchain). */
gboolean
strata_source_has_callchains (StrataSource *self)
{
  g_return_val_if_fail (STRATA_IS_SOURCE (self), FALSE);

  return STRATA_SOURCE_GET_CLASS (self)->get_callchain != NULL;
}

/* Whether the reader measures its own way through the file (see
 * get_file_position in #StrataSourceClass). */
gboolean
strata_source_has_file_position (StrataSource *self)
{
  g_return_val_if_fail (STRATA_IS_SOURCE (self), FALSE);

  return STRATA_SOURCE_GET_CLASS (self)->get_file_position != NULL;
}

/**
 * strata_source_get_file_position:
 *
 * Returns: how many of the file's bytes the reader has gone through, by
 *   its own measure; 0 when it has none (the events' offsets are one)
 */
guint64
strata_source_get_file_position (StrataSource *self)
{
  StrataSourceClass *klass;

  g_return_val_if_fail (STRATA_IS_SOURCE (self), 0);

  klass = STRATA_SOURCE_GET_CLASS (self);
  if (klass->get_file_position == NULL)
    return 0;
  return klass->get_file_position (self);
}

/* Reading records again ------------------------------------------------ */

/**
 * strata_source_get_n_record_streams:
 *
 * Returns: how many streams of records @self can read again (one per CPU
 *   for a trace.dat), or 0 when its format cannot
 */
guint
strata_source_get_n_record_streams (StrataSource *self)
{
  StrataSourceClass *klass;

  g_return_val_if_fail (STRATA_IS_SOURCE (self), 0);

  klass = STRATA_SOURCE_GET_CLASS (self);
  if (klass->get_n_record_streams == NULL || klass->seek_record == NULL ||
      klass->next_record == NULL || klass->format_record == NULL)
    return 0;
  return klass->get_n_record_streams (self);
}

/**
 * strata_source_get_record_stream_cpu:
 *
 * Returns: the one CPU whose records @stream holds, or -1 when it holds
 *   any CPU's
 */
gint
strata_source_get_record_stream_cpu (StrataSource *self,
                                     guint         stream)
{
  StrataSourceClass *klass;

  g_return_val_if_fail (STRATA_IS_SOURCE (self), -1);

  klass = STRATA_SOURCE_GET_CLASS (self);
  return klass->get_record_stream_cpu != NULL ? klass->get_record_stream_cpu (self, stream) : -1;
}

/**
 * strata_source_seek_record:
 * @stream: a stream, below strata_source_get_n_record_streams()
 * @where: (nullable): a position a #StrataRecordHead of @stream gave, or
 *   %NULL for the stream's start
 *
 * Makes @stream the one strata_source_next_record() reads, from @where.
 *
 * Returns: FALSE with @error set when the position cannot be reached
 */
gboolean
strata_source_seek_record (StrataSource               *self,
                           guint                       stream,
                           const StrataRecordPosition *where,
                           GError                    **error)
{
  g_return_val_if_fail (STRATA_IS_SOURCE (self), FALSE);
  g_return_val_if_fail (stream < strata_source_get_n_record_streams (self), FALSE);

  return STRATA_SOURCE_GET_CLASS (self)->seek_record (self, stream, where, error);
}

gboolean
strata_source_can_seek_record_time (StrataSource *self)
{
  g_return_val_if_fail (STRATA_IS_SOURCE (self), FALSE);

  return STRATA_SOURCE_GET_CLASS (self)->seek_record_time != NULL;
}

/**
 * strata_source_seek_record_time:
 * @ts: a time in the trace's clock
 *
 * Makes @stream the one strata_source_next_record() reads, from a record
 * before its first at @ts (or that one: none at @ts comes before it, a
 * few earlier ones may); only where strata_source_can_seek_record_time().
 *
 * Returns: FALSE with @error set on damage
 */
gboolean
strata_source_seek_record_time (StrataSource  *self,
                                guint          stream,
                                gint64         ts,
                                GError       **error)
{
  g_return_val_if_fail (STRATA_IS_SOURCE (self), FALSE);
  g_return_val_if_fail (strata_source_can_seek_record_time (self), FALSE);
  g_return_val_if_fail (stream < strata_source_get_n_record_streams (self), FALSE);

  return STRATA_SOURCE_GET_CLASS (self)->seek_record_time (self, stream, ts, error);
}

/**
 * strata_source_next_record:
 * @head: (out caller-allocates): the record's position, time, CPU, name
 *
 * Returns: FALSE at the end of the stream, or with @error set on damage
 */
gboolean
strata_source_next_record (StrataSource      *self,
                           StrataRecordHead  *head,
                           GError           **error)
{
  g_return_val_if_fail (STRATA_IS_SOURCE (self), FALSE);
  g_return_val_if_fail (head != NULL, FALSE);
  g_return_val_if_fail (strata_source_get_n_record_streams (self) > 0, FALSE);

  return STRATA_SOURCE_GET_CLASS (self)->next_record (self, head, error);
}

/**
 * strata_source_format_record:
 *
 * Returns: (transfer full) (nullable): the raw fields of the record
 *   strata_source_next_record() gave last, as the format's own tool
 *   prints them (`trace-cmd report -R`, `perf script`, the kernel's text)
 */
char *
strata_source_format_record (StrataSource *self)
{
  g_return_val_if_fail (STRATA_IS_SOURCE (self), NULL);
  g_return_val_if_fail (strata_source_get_n_record_streams (self) > 0, NULL);

  return STRATA_SOURCE_GET_CLASS (self)->format_record (self);
}
