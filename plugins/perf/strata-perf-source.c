/* strata-perf-source.c
 *
 * Reads perf.data itself, without perf: the file header (PERFILE2 in
 * either byte order, the old PERFFILE), the attrs of any size, the feature
 * sections, then the data records, which are parsed field by field against
 * the attr's sample_type with every length checked against the record.
 * Pipe-mode files carry attrs, features and the tracing data as records
 * instead. COMPRESSED records are one zstd stream whose output is a run of
 * records, which may straddle two compressed records.
 *
 * Records are not in time order in the file, so decoded events wait in
 * a reorder buffer flushed by FINISHED_ROUND (strata-perf-reorder.c),
 * which may be filled by a thread of its own.
 *
 * Tracepoint samples are decoded with libtraceevent from the formats in
 * the file's tracing data into the same StrataEvents the trace.dat reader
 * yields; other samples become STRATA_EVENT_SAMPLE with their call chain
 * interned in a table of the source. When the file has no sched_switch,
 * PERF_RECORD_SWITCH(_CPU_WIDE) records stand in for it, and FORK, COMM
 * (exec) and EXIT records for the sched_process_* tracepoints.
 *
 * The span hint is the samples' span that perf record writes in the
 * HEADER_SAMPLE_TIME feature of a file (not of a pipe); the other records'
 * times (COMM, FORK, EXIT, SWITCH ...) may lie outside it.
 *
 * This file is the StrataSource; strata-perf-source-private.h lists the others.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata-perf-source-private.h"

gboolean
strata_perf_fail (StrataPerfSource  *self,
                  GError           **error,
                  gint               code,
                  guint64            offset,
                  const char        *format,
                  ...)
{
  g_autofree char *msg = NULL;
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, STRATA_ERROR, code, "%s: offset %" G_GUINT64_FORMAT ": %s",
               self->display_name, offset, msg);
  return FALSE;
}

G_DEFINE_FINAL_TYPE (StrataPerfSource, strata_perf_source, STRATA_TYPE_SOURCE)

static const char *
auxtrace_pmu (guint32 type)
{
  switch (type)
    {
    case PERF_AUXTRACE_INTEL_PT: return "intel_pt";
    case PERF_AUXTRACE_INTEL_BTS: return "intel_bts";
    case PERF_AUXTRACE_CS_ETM: return "cs_etm";
    case PERF_AUXTRACE_ARM_SPE: return "arm_spe";
    case PERF_AUXTRACE_S390_CPUMSF: return "cpum_sf";
    case PERF_AUXTRACE_HISI_PTT: return "hisi_ptt";
    case PERF_AUXTRACE_VPA_DTL: return "vpa_dtl";
    default: return NULL;
    }
}

/* Once every record is read (the read-ahead thread, if any, is gone):
 * what was stepped over goes into the info. */
static void
publish_undecoded (StrataPerfSource *self)
{
  StrataSource *source = STRATA_SOURCE (self);
  GHashTableIter iter;
  gpointer key, value;

  if (self->aux_bytes->len > 0)
    {
      const char *pmu = auxtrace_pmu (self->auxtrace_type);
      g_autofree char *what = pmu != NULL
        ? g_strdup_printf ("%s AUX area data", pmu)
        : g_strdup_printf ("AUX area data of an unknown PMU (AUXTRACE_INFO type %u)", self->auxtrace_type);

      for (guint i = 0; i < self->aux_bytes->len; i++)
        if (g_array_index (self->aux_records, guint64, i) > 0)
          strata_source_note_undecoded (source, what, (gint) i - 1,
                                        g_array_index (self->aux_records, guint64, i),
                                        g_array_index (self->aux_bytes, guint64, i));
    }

  g_hash_table_iter_init (&iter, self->unknown_counts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autofree char *what = g_strdup_printf ("records of unknown type %u", GPOINTER_TO_UINT (key));

      const guint64 *n = value;

      strata_source_note_undecoded (source, what, -1, n[0], n[1]);
    }
}

static gssize
strata_perf_source_read_batch (StrataSource  *source,
                               StrataEvent   *events,
                               gsize          n_events,
                               GError       **error)
{
  StrataPerfSource *self = STRATA_PERF_SOURCE (source);
  gsize n = 0;

  if (!self->started)
    {
      self->started = TRUE;
      if (self->read_ahead && strata_perf_can_run_ahead (self))
        strata_perf_start_read_ahead (self);
    }

  /* Hand out what may go, take chunks in while there is room. */
  for (;;)
    {
      n += strata_perf_drain (self, events + n, n_events - n);
      if (n == n_events)
        break;
      if (self->done)
        {
          if (self->out_of_order > 0 && !self->reported)
            g_message ("%s: %" G_GUINT64_FORMAT " events came later in the file than the "
                       "reorder window allows: they are out of time order (the kernel model "
                       "clamps them)",
                       self->display_name, self->out_of_order);
          if (!self->reported)
            publish_undecoded (self);
          self->reported = TRUE;
          break;
        }
      strata_perf_take_next_chunk (self);
    }

  if (n > 0)
    return n;

  if (self->deferred_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->deferred_error));
      return -1;
    }

  return 0;
}

static guint
strata_perf_source_probe (const guint8 *head,
                          gsize         head_len)
{
  if (head_len >= 8 && (memcmp (head, "PERFILE2", 8) == 0 ||
                        memcmp (head, "2ELIFREP", 8) == 0 ||
                        memcmp (head, PERF_MAGIC1_STR, 8) == 0))
    return 100;
  return 0;
}

static gboolean
strata_perf_source_open (StrataSource  *source,
                         const char    *path,
                         GError       **error)
{
  StrataPerfSource *self = STRATA_PERF_SOURCE (source);
  StrataSourceInfo *info = strata_source_get_info_mutable (source);
  struct stat st;

  self->display_name = g_path_get_basename (path);
  self->strings = strata_source_get_strings (source);

  self->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (self->fd < 0)
    {
      int errsv = errno;
      g_set_error (error, STRATA_ERROR,
                   errsv == ENOENT ? STRATA_ERROR_NOT_FOUND : STRATA_ERROR_IO,
                   "%s: %s", path, g_strerror (errsv));
      return FALSE;
    }
  if (fstat (self->fd, &st) != 0 || st.st_size <= 0)
    return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, 0, "the file is empty");

  self->map_len = st.st_size;
  self->map = mmap (NULL, self->map_len, PROT_READ, MAP_PRIVATE, self->fd, 0);
  if (self->map == MAP_FAILED)
    {
      int errsv = errno;

      self->map = NULL;
      return strata_perf_fail (self, error, STRATA_ERROR_IO, 0, "cannot map the file: %s",
                               g_strerror (errsv));
    }
  madvise ((void *) self->map, self->map_len, MADV_SEQUENTIAL);

  info->format = g_strdup ("perf.data");
  info->compression = g_strdup ("none");

  if (!strata_perf_read_file_header (self, error))
    return FALSE;

  if (self->pipe && !strata_perf_read_pipe_preamble (self, error))
    return FALSE;

  if (self->attrs->len == 0)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, self->pipe ? PERF_PIPE_HEADER_SIZE : 24,
                             "no event attributes: nothing was recorded");

  if (info->clock == NULL)
    {
      const Attr *a = &g_array_index (self->attrs, Attr, 0);

      info->clock = g_strdup ((a->flags >> PERF_ATTR_FLAG_USE_CLOCKID) & 1
                              ? strata_perf_clock_name (a->clockid) : "perf");
    }

  return TRUE;
}

static void
strata_perf_source_finalize (GObject *object)
{
  StrataPerfSource *self = (StrataPerfSource *)object;

  strata_perf_reorder_clear (self);
  g_clear_pointer (&self->rr_kept, g_byte_array_unref);

  if (self->map != NULL)
    munmap ((void *) self->map, self->map_len);
  if (self->fd >= 0)
    close (self->fd);
  g_clear_pointer (&self->display_name, g_free);
  g_clear_pointer (&self->attrs, g_array_unref);
  g_clear_pointer (&self->ids, g_hash_table_unref);
  g_clear_pointer (&self->id_table, g_array_unref);
  g_clear_pointer (&self->id_blocks, g_ptr_array_unref);
  g_clear_pointer (&self->zstd, ZSTD_freeDStream);
  g_clear_pointer (&self->decomp, g_free);
  g_clear_pointer (&self->tep, tep_free);
  g_clear_pointer (&self->tp_infos, g_hash_table_unref);
  g_clear_pointer (&self->comm_cache, strata_comm_cache_free);
  g_clear_pointer (&self->comms, g_hash_table_unref);
  g_clear_pointer (&self->symbolizer, strata_symbolizer_free);
  g_clear_pointer (&self->unknown_counts, g_hash_table_unref);
  g_clear_pointer (&self->aux_bytes, g_array_unref);
  g_clear_pointer (&self->aux_records, g_array_unref);
  g_clear_error (&self->deferred_error);
  g_clear_error (&self->feature_damage);
  g_clear_pointer (&self->frames, g_array_unref);
  g_clear_pointer (&self->chains, g_array_unref);
  g_clear_pointer (&self->chain_ids, g_hash_table_unref);

  G_OBJECT_CLASS (strata_perf_source_parent_class)->finalize (object);
}

static const guint64 *
source_get_callchain (StrataSource *source,
                      guint32       id,
                      guint        *n_frames)
{
  return strata_perf_source_get_callchain (STRATA_PERF_SOURCE (source), id, n_frames);
}

static char *
source_symbolize (StrataSource *source,
                  gint32        pid,
                  guint64       address)
{
  return strata_perf_source_symbolize (STRATA_PERF_SOURCE (source), pid, address);
}

/* How far into the file's bytes the reader is, for a load's progress:
 * the records up to the one being read (a COMPRESSED one's events all
 * carry its offset, however many there are) and what lies outside the
 * data section (the headers and the feature sections after the data, read
 * at open). The events' offsets alone would leave out the features, and
 * with compression stand still for a whole record. */
static guint64
strata_perf_source_get_file_position (StrataSource *source)
{
  StrataPerfSource *self = STRATA_PERF_SOURCE (source);

  if (self->data_end <= self->map_len && self->pos <= self->data_end && self->pos > 0)
    return self->map_len - (self->data_end - self->pos);
  return 0;
}

static void
strata_perf_source_class_init (StrataPerfSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  StrataSourceClass *source_class = STRATA_SOURCE_CLASS (klass);

  object_class->finalize = strata_perf_source_finalize;
  source_class->probe = strata_perf_source_probe;
  source_class->open = strata_perf_source_open;
  source_class->read_batch = strata_perf_source_read_batch;
  source_class->get_callchain = source_get_callchain;
  source_class->symbolize = source_symbolize;
  source_class->get_file_position = strata_perf_source_get_file_position;
  strata_perf_record_streams_init (source_class);
}

static void
strata_perf_source_init (StrataPerfSource *self)
{
  StrataStringPool *strings = strata_source_get_strings (STRATA_SOURCE (self));

  self->fd = -1;
  self->strings = strings;
  self->attrs = g_array_new (FALSE, TRUE, sizeof (Attr));
  self->ids = g_hash_table_new (g_int64_hash, g_int64_equal);
  self->id_blocks = g_ptr_array_new_with_free_func (g_free);
  self->tp_infos = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->comm_cache = strata_comm_cache_new (strings);
  self->comms = g_hash_table_new (NULL, NULL);
  self->symbolizer = strata_symbolizer_new ();
  self->unknown_counts = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->aux_bytes = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->aux_records = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->frames = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->chains = g_array_new (FALSE, FALSE, sizeof (Chain));
  self->chain_ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                           (GDestroyNotify) g_array_unref);
  self->sample_id_pos = -1;
  self->trailer_id_pos = -1;
  strata_perf_reorder_init (self);

  self->name_lost = strata_string_pool_intern (strings, "lost_events");
  self->name_switch = strata_string_pool_intern (strings, "PERF_RECORD_SWITCH");
  self->name_fork = strata_string_pool_intern (strings, "PERF_RECORD_FORK");
  self->name_exec = strata_string_pool_intern (strings, "PERF_RECORD_COMM_EXEC");
  self->name_exit = strata_string_pool_intern (strings, "PERF_RECORD_EXIT");
}

/* ------------------------------------------------------------------ */
/* For tests and tools.                                                  */

guint64
strata_perf_source_get_record_count (StrataPerfSource *self,
                                     guint             type)
{
  const guint64 *counts;

  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), 0);

  if (type < PERF_RECORD_MAX_TYPE && strata_perf_record_type_name (type) != NULL)
    return self->record_counts[type];
  counts = g_hash_table_lookup (self->unknown_counts, GUINT_TO_POINTER (type));
  return counts != NULL ? counts[0] : 0;
}

const guint64 *
strata_perf_source_get_callchain (StrataPerfSource *self,
                                  guint32           id,
                                  guint            *n_frames)
{
  const Chain *c;

  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), NULL);

  if (id >= self->chains->len)
    {
      *n_frames = 0;
      return NULL;
    }
  c = &g_array_index (self->chains, Chain, id);
  *n_frames = c->len;
  return &g_array_index (self->frames, guint64, c->start);
}

guint
strata_perf_source_get_n_callchains (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), 0);
  return self->chains->len;
}

guint64
strata_perf_source_get_inexact_samples (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), 0);
  return self->inexact_samples + self->unclaimed_samples;
}

gboolean
strata_perf_source_has_sched_switch (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), FALSE);
  return self->has_sched_switch;
}

void
strata_perf_source_set_reorder_window (StrataPerfSource *self,
                                       guint             n_events)
{
  g_return_if_fail (STRATA_IS_PERF_SOURCE (self));
  g_return_if_fail (n_events >= 2);

  self->window = n_events;
  self->overflow_check = n_events;
}

void
strata_perf_source_set_threaded (StrataPerfSource *self,
                                 gboolean          threaded)
{
  g_return_if_fail (STRATA_IS_PERF_SOURCE (self));
  g_return_if_fail (!self->started);

  self->read_ahead = threaded;
}

gboolean
strata_perf_source_get_threaded (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), FALSE);
  return self->started && self->read_ahead && strata_perf_can_run_ahead (self);
}

guint64
strata_perf_source_get_out_of_order (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), 0);
  return self->out_of_order;
}

gboolean
strata_perf_source_get_order_overflow (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), FALSE);
  return self->order_overflow;
}

/* The name of a kernel address (see strata_symbolizer_lookup_kernel()). */
const char *
strata_perf_source_lookup_kernel (StrataPerfSource *self,
                                  guint64           address)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), NULL);

  return strata_symbolizer_lookup_kernel (self->symbolizer, address);
}

/**
 * strata_perf_source_symbolize:
 * @pid: the process the address is in (its tgid)
 * @address: a code address from a sample
 *
 * Names the function at @address through the file's mappings (see
 * strata_symbolizer_name()).
 *
 * Returns: (transfer full): the name
 */
char *
strata_perf_source_symbolize (StrataPerfSource *self,
                              gint32            pid,
                              guint64           address)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), NULL);

  return strata_symbolizer_name (self->symbolizer, pid, address, G_MAXINT64);
}

gboolean
strata_perf_source_kernel_symbols_known (StrataPerfSource *self)
{
  g_return_val_if_fail (STRATA_IS_PERF_SOURCE (self), FALSE);

  return strata_symbolizer_kernel_symbols_known (self->symbolizer);
}

void
strata_plugin_perf_register (void)
{
  g_io_extension_point_implement (STRATA_SOURCE_EXTENSION_POINT,
                                  STRATA_TYPE_PERF_SOURCE, "perf.data", 0);
}
