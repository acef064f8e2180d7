/* strata-index-reader.c
 *
 * Opens an index: maps the file, checks the header (magic, version, the
 * layout of the structs, its checksum, the file's length), compares the
 * source's identity and the tree's parameters, verifies the small sections
 * the trace needs at once (its description, strings, channels, levels) and
 * makes the tree and the raw store views over the rest. What is read at
 * open does not grow with the number of events: chunks and raw blocks are
 * checked as queries reach them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

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

/* What the source read past without decoding (optional: an index of an
 * older Strata has none). */
static void
read_undecoded (GVariantDict     *dict,
                StrataSourceInfo *info)
{
  g_autoptr(GVariant) all = g_variant_dict_lookup_value (dict, "undecoded", G_VARIANT_TYPE ("a(sttat)"));
  GVariantIter iter;
  const char *what;
  guint64 records, bytes;
  GVariant *per_cpu;

  if (all == NULL)
    return;
  g_variant_iter_init (&iter, all);
  while (g_variant_iter_next (&iter, "(&stt@at)", &what, &records, &bytes, &per_cpu))
    {
      StrataUndecoded *u = strata_undecoded_new (what);
      gsize n;
      const guint64 *values = g_variant_get_fixed_array (per_cpu, &n, sizeof (guint64));

      u->records = records;
      u->bytes = bytes;
      g_array_append_vals (u->bytes_per_cpu, values, n);
      g_ptr_array_add (info->undecoded, u);
      g_variant_unref (per_cpu);
    }
}

/* What else the file said of itself (optional: an index of an older
 * Strata has none). */
static void
read_details (GVariantDict     *dict,
              StrataSourceInfo *info)
{
  g_autoptr(GVariant) details = g_variant_dict_lookup_value (dict, "details", G_VARIANT_TYPE ("a(ss)"));
  GVariantIter iter;
  const char *key, *value;

  info->details = strata_source_details_new ();
  if (details == NULL)
    return;
  g_variant_iter_init (&iter, details);
  while (g_variant_iter_next (&iter, "(&s&s)", &key, &value))
    {
      StrataSourceDetail d = { g_strdup (key), g_strdup (value) };

      g_array_append_val (info->details, d);
    }
}

/* Channels checked between two let-goes of their pages. */
#define CHECK_WINDOW (1u << 16)

static gboolean
corrupt (GError     **error,
         const char  *what)
{
  g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT, "%s", what);
  return FALSE;
}

static const guint8 *
section (StrataIndexMap           *map,
         const StrataIndexHeader  *h,
         StrataIndexSectionId      id,
         gsize                    *size,
         GError                  **error)
{
  static const char *names[] = { "metadata", "string table", "channel table", "level table", "thread statistics" };
  const StrataIndexSection *s = &h->sections[id];
  gsize map_size;
  const guint8 *base = strata_index_map_get_data (map, &map_size);

  if (!strata_index_map_contains (map, s->offset, s->size, 1))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT, "the %s is out of bounds", names[id]);
      return NULL;
    }
  if (!strata_index_map_verify (map, base + s->offset, s->size, s->checksum))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT, "the %s fails its checksum", names[id]);
      return NULL;
    }
  *size = s->size;
  return base + s->offset;
}

static StrataStringPool *
read_strings (const guint8  *data,
              gsize          size,
              GError       **error)
{
  g_autoptr(StrataStringPool) pool = strata_string_pool_new ();
  const guint32 *offsets;
  const char *bytes;
  guint32 n;

  if (size < sizeof (guint32))
    return corrupt (error, "the string table is too short"), NULL;
  memcpy (&n, data, sizeof n);
  if (n == 0 || (guint64) n + 2 > (size / sizeof (guint32)))
    return corrupt (error, "the string table is too short"), NULL;
  offsets = (const guint32 *)(gconstpointer) data + 1;
  bytes = (const char *) (offsets + n + 1);
  if (offsets[0] != 0 || offsets[n] > size - (gsize) (n + 2) * sizeof (guint32))
    return corrupt (error, "the string table is out of bounds"), NULL;

  for (guint32 i = 1; i < n; i++)
    {
      if (offsets[i + 1] < offsets[i] || offsets[i + 1] > offsets[n] ||
          memchr (bytes + offsets[i], '\0', offsets[i + 1] - offsets[i]) != NULL ||
          strata_string_pool_intern_len (pool, bytes + offsets[i], offsets[i + 1] - offsets[i]) != i)
        return corrupt (error, "the string table is damaged"), NULL;
    }

  return g_steal_pointer (&pool);
}

static void
read_latency (GVariant      *v,
              StrataLatency *l)
{
  g_variant_get (v, "(xxxxu)", &l->p50, &l->p90, &l->p99, &l->max, &l->count);
}

static StrataStats *
read_stats (StrataIndexMap          *map,
            GVariantDict            *dict,
            guint                    n_channels,
            const StrataThreadStats *thread_rows,
            gsize                    threads_size)
{
  g_autoptr(GVariant) wakeup = NULL, cpus = NULL;
  const StrataCpuStats *cpu_rows;
  gsize cpus_size;
  StrataStats *stats;

  wakeup = g_variant_dict_lookup_value (dict, "stats-wakeup", G_VARIANT_TYPE ("(xxxxu)"));
  cpus = g_variant_dict_lookup_value (dict, "stats-cpus", G_VARIANT_TYPE_BYTESTRING);
  if (wakeup == NULL || cpus == NULL)
    return NULL;
  cpu_rows = g_variant_get_fixed_array (cpus, &cpus_size, 1);
  if (cpus_size % sizeof (StrataCpuStats) != 0 || threads_size % sizeof (StrataThreadStats) != 0)
    return NULL;
  for (gsize i = 0; i < cpus_size / sizeof (StrataCpuStats); i++)
    if (cpu_rows[i].channel >= n_channels)
      return NULL;
  /* A row a thread that ever lived (483 MB over 4.3M threads): their
   * file pages go behind the check, or they all were the open's peak. */
  for (gsize i = 0, from = 0; i < threads_size / sizeof (StrataThreadStats); i++)
    {
      if (thread_rows[i].channel >= n_channels)
        return NULL;
      if ((i + 1) % CHECK_WINDOW == 0 || (i + 1) * sizeof (StrataThreadStats) == threads_size)
        {
          /* From a page before the window: the one it shares with the last. */
          gsize at = from * sizeof (StrataThreadStats), back = MIN (at, (gsize) 4096);

          strata_index_map_let_go (map, (const guint8 *) (thread_rows + from) - back,
                                   (i + 1 - from) * sizeof (StrataThreadStats) + back);
          from = i + 1;
        }
    }

  stats = g_new0 (StrataStats, 1);
  if (!g_variant_dict_lookup (dict, "stats-span", "(xxt)", &stats->start, &stats->end, &stats->switches))
    {
      g_free (stats);
      return NULL;
    }
  read_latency (wakeup, &stats->wakeup);
  stats->cpus = g_array_new (FALSE, TRUE, sizeof (StrataCpuStats));
  g_array_append_vals (stats->cpus, cpu_rows, cpus_size / sizeof (StrataCpuStats));
  /* The thread rows (an 112-byte row a thread that ever lived: 5 MB for
   * a 20M-event trace) are checked here but copied out of the map only
   * when the statistics are first asked for (strata_trace_get_stats()):
   * the copy's fresh pages were half of what an open cost. */
  stats->threads = NULL;

  return stats;
}

static gboolean
read_meta (StrataIndexMap    *map,
           const guint8      *data,
           gsize              size,
           const guint8      *thread_rows,
           gsize              threads_size,
           guint              n_strings,
           guint              n_channels,
           StrataTraceParts  *parts,
           GError           **error)
{
  /* Read in place: the map outlives this function, and every value is
   * copied out of the variant (the meta holds a word per channel, 8.6 MB
   * for a million threads, that a copy would fault in twice). */
  g_autoptr(GBytes) bytes = g_bytes_new_static (data, size);
  g_autoptr(GVariant) v = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE_VARDICT, bytes, FALSE));
  g_autoptr(GVariantDict) dict = g_variant_dict_new (v);
  g_autoptr(GVariant) instances = NULL, lost = NULL, counts = NULL, switches = NULL, damage = NULL;
  StrataSourceInfo *info;
  GVariantIter iter;
  const char *s;
  guint32 name;
  guint64 count;

  info = parts->info = g_new0 (StrataSourceInfo, 1);
  info->instances = g_ptr_array_new_with_free_func (g_free);
  info->lost_per_cpu = g_array_new (FALSE, TRUE, sizeof (guint64));
  info->undecoded = g_ptr_array_new_with_free_func ((GDestroyNotify) strata_undecoded_free);

  instances = g_variant_dict_lookup_value (dict, "instances", G_VARIANT_TYPE ("as"));
  lost = g_variant_dict_lookup_value (dict, "lost-per-cpu", G_VARIANT_TYPE ("at"));
  counts = g_variant_dict_lookup_value (dict, "event-counts", G_VARIANT_TYPE ("a(ut)"));
  switches = g_variant_dict_lookup_value (dict, "switches", G_VARIANT_TYPE ("at"));
  if (instances == NULL || lost == NULL || counts == NULL || switches == NULL ||
      !g_variant_dict_lookup (dict, "format", "s", &info->format) ||
      !g_variant_dict_lookup (dict, "version", "s", &info->version) ||
      !g_variant_dict_lookup (dict, "compression", "s", &info->compression) ||
      !g_variant_dict_lookup (dict, "clock", "s", &info->clock) ||
      !g_variant_dict_lookup (dict, "n-cpus", "u", &info->n_cpus) ||
      !g_variant_dict_lookup (dict, "lost-events", "t", &info->lost_events) ||
      !g_variant_dict_lookup (dict, "lost-unknown", "b", &info->lost_unknown) ||
      !g_variant_dict_lookup (dict, "first-ts", "x", &info->first_ts) ||
      !g_variant_dict_lookup (dict, "last-ts", "x", &info->last_ts) ||
      !g_variant_dict_lookup (dict, "n-events", "t", &parts->n_events) ||
      !g_variant_dict_lookup (dict, "start", "x", &parts->start) ||
      !g_variant_dict_lookup (dict, "end", "x", &parts->end))
    return corrupt (error, "the metadata is incomplete");
  g_variant_dict_lookup (dict, "hostname", "s", &info->hostname);
  g_variant_dict_lookup (dict, "kernel-release", "s", &info->kernel_release);
  read_undecoded (dict, info);
  read_details (dict, info);

  g_variant_iter_init (&iter, instances);
  while (g_variant_iter_next (&iter, "&s", &s))
    g_ptr_array_add (info->instances, g_strdup (s));
  {
    gsize n;
    const guint64 *values = g_variant_get_fixed_array (lost, &n, sizeof (guint64));

    g_array_append_vals (info->lost_per_cpu, values, n);
  }

  parts->event_counts = g_array_new (FALSE, FALSE, sizeof (StrataEventCount));
  g_variant_iter_init (&iter, counts);
  while (g_variant_iter_next (&iter, "(ut)", &name, &count))
    {
      StrataEventCount ec = { name, count };

      if (name >= n_strings)
        return corrupt (error, "an event count names no string");
      g_array_append_val (parts->event_counts, ec);
    }

  {
    gsize n;
    const guint64 *values = g_variant_get_fixed_array (switches, &n, sizeof (guint64));

    if (n != n_channels)
      return corrupt (error, "the context switches do not match the channels");
    /* Only CPU channels have any: the array stops at the last that has
     * (a million threads' zeros were 8 MB), and the zeros read go. */
    while (n > 0 && values[n - 1] == 0)
      {
        n--;
        if (n % CHECK_WINDOW == 0)
          strata_index_map_let_go (map, values + n, (n_channels - n) * sizeof (guint64));
      }
    parts->switches = g_array_sized_new (FALSE, TRUE, sizeof (guint64), (guint) n);
    g_array_append_vals (parts->switches, values, n);
  }

  damage = g_variant_dict_lookup_value (dict, "damage", G_VARIANT_TYPE ("(us)"));
  if (damage != NULL)
    {
      guint32 code;
      const char *message;

      g_variant_get (damage, "(u&s)", &code, &message);
      parts->damage = g_error_new_literal (STRATA_ERROR, code, message);
    }

  parts->stats = read_stats (map, dict, n_channels, (const StrataThreadStats *)(gconstpointer) thread_rows, threads_size);
  if (parts->stats == NULL)
    return corrupt (error, "the statistics are missing");
  parts->thread_rows = (const StrataThreadStats *)(gconstpointer) thread_rows;
  parts->n_thread_rows = threads_size / sizeof (StrataThreadStats);

  return TRUE;
}

static void
parts_clear (StrataTraceParts *parts)
{
  g_clear_pointer (&parts->info, strata_source_info_free);
  g_clear_pointer (&parts->strings, strata_string_pool_unref);
  g_clear_pointer (&parts->channels, g_array_unref);
  g_clear_pointer (&parts->channels_map, strata_index_map_unref);
  g_clear_pointer (&parts->switches, g_array_unref);
  g_clear_pointer (&parts->event_counts, g_array_unref);
  g_clear_error (&parts->damage);
  g_clear_pointer (&parts->tree, strata_zoom_tree_free);
  g_clear_pointer (&parts->stats, strata_stats_free);
  g_clear_pointer (&parts->stats_map, strata_index_map_unref);
  g_clear_pointer (&parts->index_path, g_free);
}

static gboolean
check_header (StrataIndexMap              *map,
              const StrataIndexHeader     *h,
              const StrataSourceIdentity  *identity,
              const StrataZoomParams      *params,
              GError                     **error)
{
  gsize size;

  strata_index_map_get_data (map, &size);

  if (size < sizeof h->magic || memcmp (h->magic, STRATA_INDEX_MAGIC, sizeof h->magic) != 0)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNKNOWN_FORMAT, "not a Strata index");
      return FALSE;
    }
  if (size < G_STRUCT_OFFSET (StrataIndexHeader, version) + sizeof h->version)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_TRUNCATED, "the index ends in its header");
      return FALSE;
    }
  if (h->version != STRATA_INDEX_VERSION)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED,
                   "index version %u, this build reads version %u", h->version, STRATA_INDEX_VERSION);
      return FALSE;
    }
  if (size < sizeof *h)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_TRUNCATED, "the index ends in its header");
      return FALSE;
    }
  if (!strata_index_map_verify (map, h, G_STRUCT_OFFSET (StrataIndexHeader, checksum), h->checksum))
    return corrupt (error, "the header fails its checksum");
  if (h->header_size != sizeof *h || h->byte_order != STRATA_INDEX_BYTE_ORDER ||
      h->activity_size != sizeof (StrataActivity) || h->item_size != sizeof (StrataZoomItem) ||
      h->channel_size != sizeof (StrataChannel))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED,
                   "the index was written by a build with another layout");
      return FALSE;
    }
  if (h->file_size != size)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_TRUNCATED,
                   "the index is %" G_GSIZE_FORMAT " bytes long, its header says %" G_GUINT64_FORMAT,
                   size, h->file_size);
      return FALSE;
    }

  if (identity != NULL &&
      (h->source_size != identity->size || h->source_mtime_ns != identity->mtime_ns ||
       h->source_sample_hash != identity->sample_hash))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_STALE,
                   "the trace has changed since the index was built (%s)",
                   h->source_size != identity->size ? "its size" :
                   h->source_sample_hash != identity->sample_hash ? "its content" : "its time");
      return FALSE;
    }

  if (params != NULL &&
      (h->zoom_factor != params->zoom_factor || h->pixels_per_chunk != params->pixels_per_chunk ||
       h->density_threshold != params->density_threshold ||
       h->buffer_criterion != (guint32) params->buffer_criterion ||
       (params->buffer_criterion == STRATA_BUFFER_FIXED_INTERVAL && h->buffer_interval != params->buffer_interval) ||
       (params->buffer_criterion == STRATA_BUFFER_FIXED_COUNT && h->buffer_count != params->buffer_count) ||
       h->min_reduction != params->min_reduction))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_STALE,
                   "the index was built with other zoom-tree parameters");
      return FALSE;
    }

  return TRUE;
}

/**
 * strata_index_open:
 * @index_path: an index file
 * @identity: (nullable): the trace it must have been built from, or
 *   %NULL to take it as it is
 * @params: (nullable): the tree parameters it must have, or %NULL for any
 *
 * Opens an index: the trace comes back with its description, counts,
 * statistics and its zoom tree, mapped. Fails with %STRATA_ERROR_STALE for
 * an index of another trace or other parameters, %STRATA_ERROR_UNSUPPORTED
 * for another version, %STRATA_ERROR_TRUNCATED or %STRATA_ERROR_CORRUPT for
 * a damaged one.
 *
 * Returns: (transfer full): the trace, or %NULL with @error set
 */
StrataTrace *
strata_index_open (const char                 *index_path,
                   const StrataSourceIdentity *identity,
                   const StrataZoomParams     *params,
                   GError                    **error)
{
  g_autoptr(StrataIndexMap) map = NULL;

  g_return_val_if_fail (index_path != NULL, NULL);

  map = strata_index_map_new (index_path, error);
  if (map == NULL)
    return NULL;
  return strata_index_open_map (map, index_path, identity, params, error);
}

/* strata_index_open() of an index already in memory (the fuzzer's). */
StrataTrace *
strata_index_open_map (StrataIndexMap             *map,
                       const char                 *index_path,
                       const StrataSourceIdentity *identity,
                       const StrataZoomParams     *params,
                       GError                    **error)
{
  StrataTraceParts parts = { 0 };
  const StrataIndexHeader *h;
  const StrataIndexLevel *levels;
  StrataZoomParams tree_params;
  StrataZoomTreeState state;
  StrataRawStore *raw;
  const guint8 *data;
  gsize size;
  guint n_channels;

  data = strata_index_map_get_data (map, &size);
  if (size < sizeof (StrataIndexHeader))
    {
      /* Say what it is before saying it is short. */
      StrataIndexHeader copy = { 0 };

      if (size > 0)
        memcpy (&copy, data, size);
      check_header (map, &copy, identity, params, error);
      return NULL;
    }
  h = (const StrataIndexHeader *)(gconstpointer) data;
  if (!check_header (map, h, identity, params, error))
    return NULL;

  data = section (map, h, STRATA_INDEX_SECTION_STRINGS, &size, error);
  if (data == NULL || (parts.strings = read_strings (data, size, error)) == NULL)
    goto fail;

  data = section (map, h, STRATA_INDEX_SECTION_CHANNELS, &size, error);
  if (data == NULL)
    goto fail;
  if (size % sizeof (StrataChannel) != 0)
    {
      corrupt (error, "the channel table is damaged");
      goto fail;
    }
  n_channels = size / sizeof (StrataChannel);
  /* Read in place, not copied: a million threads' channels are 40 MB,
   * and once checked they are read a few at a time (the rows shown). The
   * check lets go of their pages behind it. */
  parts.mapped_channels = (const StrataChannel *)(gconstpointer) data;
  parts.n_mapped_channels = n_channels;
  parts.channels_map = strata_index_map_ref (map);
  for (guint i = 0; i < n_channels; i++)
    {
      const StrataChannel *ch = &parts.mapped_channels[i];

      if (ch->kind > STRATA_CHANNEL_THREAD || ch->name >= strata_string_pool_get_size (parts.strings) ||
          (ch->parent != STRATA_CHANNEL_NONE && ch->parent >= n_channels))
        {
          corrupt (error, "the channel table is damaged");
          goto fail;
        }
      if ((i + 1) % CHECK_WINDOW == 0 || i + 1 == n_channels)
        strata_index_map_let_go (map, data, (gsize) (i + 1) * sizeof (StrataChannel));
    }
  if (h->n_raw_channels > n_channels)
    {
      corrupt (error, "the raw store has more channels than the trace");
      goto fail;
    }

  {
    const guint8 *rows;
    gsize rows_size;

    if ((rows = section (map, h, STRATA_INDEX_SECTION_THREAD_STATS, &rows_size, error)) == NULL ||
        (data = section (map, h, STRATA_INDEX_SECTION_META, &size, error)) == NULL ||
        !read_meta (map, data, size, rows, rows_size, strata_string_pool_get_size (parts.strings), n_channels, &parts,
                    error))
      goto fail;
    /* Copied out of it: its file pages go (a word per channel). */
    strata_index_map_let_go (map, data, size);
    parts.stats_map = strata_index_map_ref (map);
  }

  data = section (map, h, STRATA_INDEX_SECTION_LEVELS, &size, error);
  if (data == NULL)
    goto fail;
  if (size != (gsize) h->n_ranks * sizeof (StrataIndexLevel))
    {
      corrupt (error, "the level table is damaged");
      goto fail;
    }
  levels = (const StrataIndexLevel *)(gconstpointer) data;

  strata_zoom_params_init (&tree_params);
  tree_params.zoom_factor = h->zoom_factor;
  tree_params.pixels_per_chunk = h->pixels_per_chunk;
  tree_params.density_threshold = h->density_threshold;
  tree_params.buffer_criterion = h->buffer_criterion;
  tree_params.buffer_interval = h->buffer_interval;
  tree_params.buffer_count = h->buffer_count;
  tree_params.min_reduction = h->min_reduction;
  if (params != NULL)

  if (h->first <= h->last &&
      (h->first < 0 || h->last >= (G_GINT64_CONSTANT (1) << 62)))
    {
      corrupt (error, "the tree's span is out of range");
      goto fail;
    }
  state.n_ranks = h->n_ranks;
  state.first = h->first;
  state.last = h->last;
  state.n_buffers = h->n_buffers;
  state.n_left_out = h->n_left_out;
  state.size = h->tree_size;

  raw = strata_raw_store_new_mapped (map, h, error);
  if (raw == NULL)
    goto fail;
  parts.tree = strata_zoom_tree_new_mapped (&tree_params, &state, map, levels, raw, error);
  if (parts.tree == NULL)
    goto fail;

  parts.index_path = g_strdup (index_path != NULL ? index_path : "(memory)");
  return strata_trace_new_from_parts (&parts);

fail:
  parts_clear (&parts);
  return NULL;
}
