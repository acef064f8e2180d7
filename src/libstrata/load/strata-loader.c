/* strata-loader.c
 *
 * The loader puts the pass (strata_trace_read()) and the index's halves
 * (strata_index_find(), strata_index_store(), strata_index_open())
 * together, so nothing below it calls up into loading. Through the
 * index, the pass keeps no activities and hands them to the statistics
 * builder instead, told of every exited thread too so its memory follows
 * the threads alive; the tree built in memory goes before the new index
 * is mapped (the two together were the build's peak), and an index that
 * does not read back right after it was written (the disk?) means the
 * trace is read again without one rather than not at all.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <malloc.h>

#include "strata-index.h"
#include "strata-loader.h"
#include "strata-stats.h"
#include "strata-trace-private.h"

struct _StrataLoader
{
  GObject                  parent_instance;

  char                    *path;
  StrataLoaderIndex        index_mode;
  char                    *index_path;
  gboolean                 keep_activities;
  gboolean                 statistics;
  gboolean                 follow;
  gboolean                 has_params;
  StrataZoomParams         params;
  StrataParameters         parameters;

  StrataActivityFunc       sink;
  StrataChannelCloseFunc   close_sink;
  gpointer                 sink_data;
  StrataTraceProgressFunc  progress;
  gpointer                 progress_data;
  GDestroyNotify           progress_destroy;

  /* strata_loader_find_index()'s findings, for the load after it. */
  gboolean                 looked;
  StrataSourceIdentity     identity;
  char                    *write_path;

  /* The statistics builder and the caller's sink both, while a pass
   * feeds them. */
  StrataStatsBuilder      *stats;
};

enum
{
  PROP_0,
  PROP_PATH,
  PROP_INDEX_MODE,
  PROP_INDEX_PATH,
  PROP_KEEP_ACTIVITIES,
  PROP_STATISTICS,
  N_PROPS
};

enum
{
  NOTE,
  INDEX_WRITTEN,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (StrataLoader, strata_loader, G_TYPE_OBJECT)

static void
strata_loader_finalize (GObject *object)
{
  StrataLoader *self = (StrataLoader *)object;

  if (self->progress_destroy != NULL)
    self->progress_destroy (self->progress_data);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->index_path, g_free);
  g_clear_pointer (&self->write_path, g_free);
  strata_parameters_clear (&self->parameters);

  G_OBJECT_CLASS (strata_loader_parent_class)->finalize (object);
}

static void
strata_loader_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  StrataLoader *self = STRATA_LOADER (object);

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;

    case PROP_INDEX_MODE:
      g_value_set_int (value, self->index_mode);
      break;

    case PROP_INDEX_PATH:
      g_value_set_string (value, self->index_path);
      break;

    case PROP_KEEP_ACTIVITIES:
      g_value_set_boolean (value, self->keep_activities);
      break;

    case PROP_STATISTICS:
      g_value_set_boolean (value, self->statistics);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
strata_loader_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  StrataLoader *self = STRATA_LOADER (object);

  switch (prop_id)
    {
    case PROP_PATH:
      self->path = g_value_dup_string (value);
      break;

    case PROP_INDEX_MODE:
      strata_loader_set_index_mode (self, g_value_get_int (value));
      break;

    case PROP_INDEX_PATH:
      strata_loader_set_index_path (self, g_value_get_string (value));
      break;

    case PROP_KEEP_ACTIVITIES:
      strata_loader_set_keep_activities (self, g_value_get_boolean (value));
      break;

    case PROP_STATISTICS:
      strata_loader_set_statistics (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
strata_loader_class_init (StrataLoaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = strata_loader_finalize;
  object_class->get_property = strata_loader_get_property;
  object_class->set_property = strata_loader_set_property;

  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_INDEX_MODE] =
    g_param_spec_int ("index-mode", NULL, NULL,
                      STRATA_LOADER_INDEX_NONE, STRATA_LOADER_INDEX_REBUILD, STRATA_LOADER_INDEX_USE,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_INDEX_PATH] =
    g_param_spec_string ("index-path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_KEEP_ACTIVITIES] =
    g_param_spec_boolean ("keep-activities", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATISTICS] =
    g_param_spec_boolean ("statistics", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * StrataLoader::note:
   * @message: what is worth saying once
   *
   * A stale, damaged or other-version index being rebuilt, an index that
   * could not be written, or one that did not read back. Emitted on the
   * loading thread.
   */
  signals[NOTE] =
    g_signal_new ("note", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * StrataLoader::index-written:
   * @index_path: the index just written
   *
   * The pass's index is in its file, not yet opened: what happens to the
   * file before it is (the tests damage it) is what the open finds.
   */
  signals[INDEX_WRITTEN] =
    g_signal_new ("index-written", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
strata_loader_init (StrataLoader *self)
{
  self->index_mode = STRATA_LOADER_INDEX_USE;
  strata_parameters_init_from_environment (&self->parameters);
}

/**
 * strata_loader_new:
 * @path: a trace file in any format a plugin reads
 *
 * A loader of @path through its index, keeping no activities, with the
 * parameters the environment sets (strata-parameters.h).
 */
StrataLoader *
strata_loader_new (const char *path)
{
  g_return_val_if_fail (path != NULL, NULL);
  return g_object_new (STRATA_TYPE_LOADER, "path", path, NULL);
}

const char *
strata_loader_get_path (StrataLoader *self)
{
  g_return_val_if_fail (STRATA_IS_LOADER (self), NULL);
  return self->path;
}

void
strata_loader_set_index_mode (StrataLoader      *self,
                              StrataLoaderIndex  mode)
{
  g_return_if_fail (STRATA_IS_LOADER (self));

  if (self->index_mode == mode)
    return;
  self->index_mode = mode;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INDEX_MODE]);
}

StrataLoaderIndex
strata_loader_get_index_mode (StrataLoader *self)
{
  g_return_val_if_fail (STRATA_IS_LOADER (self), STRATA_LOADER_INDEX_NONE);
  return self->index_mode;
}

/**
 * strata_loader_set_index_path:
 * @index_path: (nullable): the index file, and nowhere else; %NULL: where
 *   the index of the trace lives (beside it, or in the cache)
 */
void
strata_loader_set_index_path (StrataLoader *self,
                              const char   *index_path)
{
  g_return_if_fail (STRATA_IS_LOADER (self));

  if (g_strcmp0 (self->index_path, index_path) == 0)
    return;
  g_free (self->index_path);
  self->index_path = g_strdup (index_path);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INDEX_PATH]);
}

const char *
strata_loader_get_index_path (StrataLoader *self)
{
  g_return_val_if_fail (STRATA_IS_LOADER (self), NULL);
  return self->index_path;
}

/**
 * strata_loader_set_keep_activities:
 * @keep: whether the trace holds every activity
 *   (strata_trace_get_activities()); only without the index
 */
void
strata_loader_set_keep_activities (StrataLoader *self,
                                   gboolean      keep)
{
  g_return_if_fail (STRATA_IS_LOADER (self));

  keep = !!keep;
  if (self->keep_activities == keep)
    return;
  self->keep_activities = keep;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KEEP_ACTIVITIES]);
}

gboolean
strata_loader_get_keep_activities (StrataLoader *self)
{
  g_return_val_if_fail (STRATA_IS_LOADER (self), FALSE);
  return self->keep_activities;
}

/**
 * strata_loader_set_statistics:
 * @statistics: whether a pass without the index gathers the trace's
 *   statistics (strata_trace_get_stats()); through the index it always does
 */
void
strata_loader_set_statistics (StrataLoader *self,
                              gboolean      statistics)
{
  g_return_if_fail (STRATA_IS_LOADER (self));

  statistics = !!statistics;
  if (self->statistics == statistics)
    return;
  self->statistics = statistics;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATISTICS]);
}

gboolean
strata_loader_get_statistics (StrataLoader *self)
{
  g_return_val_if_fail (STRATA_IS_LOADER (self), FALSE);
  return self->statistics;
}

/**
 * strata_loader_set_zoom_params:
 * @params: (nullable): build the zoom tree with these; %NULL: through the
 *   index the defaults, without it no tree
 */
void
strata_loader_set_zoom_params (StrataLoader           *self,
                               const StrataZoomParams *params)
{
  g_return_if_fail (STRATA_IS_LOADER (self));

  self->has_params = params != NULL;
  if (params != NULL)
    self->params = *params;
}

/**
 * strata_loader_set_parameters:
 *
 * How the pass holds what it builds, in place of what the environment
 * said when the loader was made.
 */
void
strata_loader_set_parameters (StrataLoader           *self,
                              const StrataParameters *parameters)
{
  g_return_if_fail (STRATA_IS_LOADER (self));
  g_return_if_fail (parameters != NULL);

  strata_parameters_clear (&self->parameters);
  strata_parameters_copy (&self->parameters, parameters);
}

/**
 * strata_loader_set_sink:
 * @sink: (nullable): called with every activity as the model completes it
 * @close_sink: (nullable): called with every channel the model closes (a
 *   thread that exited: nothing of it comes after)
 *
 * What sees the activities stream past, on the loading thread.
 */
void
strata_loader_set_sink (StrataLoader           *self,
                        StrataActivityFunc      sink,
                        StrataChannelCloseFunc  close_sink,
                        gpointer                sink_data)
{
  g_return_if_fail (STRATA_IS_LOADER (self));

  self->sink = sink;
  self->close_sink = close_sink;
  self->sink_data = sink_data;
}

/**
 * strata_loader_set_progress_func:
 * @func: (nullable): told after each batch of events what the pass has
 *   done, on the loading thread; returning %FALSE cancels the load
 *
 * For a viewer that shows the trace while it loads: the zoom tree in the
 * progress report can be queried as it grows.
 */
void
strata_loader_set_progress_func (StrataLoader            *self,
                                 StrataTraceProgressFunc  func,
                                 gpointer                 user_data,
                                 GDestroyNotify           destroy)
{
  g_return_if_fail (STRATA_IS_LOADER (self));

  if (self->progress_destroy != NULL)
    self->progress_destroy (self->progress_data);
  self->progress = func;
  self->progress_data = user_data;
  self->progress_destroy = destroy;
}

/**
 * strata_loader_set_follow:
 * @follow: whether the pass follows a file still being written (a
 *   recording in progress) until its writer finishes it
 *
 * Only a source that can follow its file does (the eBPF recording's);
 * any other is read as it is. The pass's trace then grows as the file
 * does, and the progress callback sees it; the cancellable given to
 * strata_loader_load() ends the wait. The index is written once the file
 * is finished, for the file as it is then.
 */
void
strata_loader_set_follow (StrataLoader *self,
                          gboolean      follow)
{
  g_return_if_fail (STRATA_IS_LOADER (self));

  self->follow = !!follow;
}

gboolean
strata_loader_get_follow (StrataLoader *self)
{
  g_return_val_if_fail (STRATA_IS_LOADER (self), FALSE);
  return self->follow;
}

static void
note (const char *message,
      gpointer    user_data)
{
  g_signal_emit (user_data, signals[NOTE], 0, message);
}

static void
index_options (StrataLoader       *self,
               StrataIndexOptions *options)
{
  *options = (StrataIndexOptions) { 0 };
  options->index_path = self->index_path;
  options->flags = self->index_mode == STRATA_LOADER_INDEX_REBUILD ? STRATA_INDEX_OPEN_REBUILD : 0;
  options->note = note;
  options->note_data = self;
  options->parameters = &self->parameters;
}

/* The tree's parameters, the loader's pipelining in them. */
static void
zoom_params (StrataLoader     *self,
             StrataZoomParams *params)
{
  if (self->has_params)
    *params = self->params;
  else
    strata_zoom_params_init (params);
  if (self->parameters.pipelined >= 0)
    params->pipelined = self->parameters.pipelined;
  params->parameters = &self->parameters;
}

/**
 * strata_loader_find_index:
 *
 * The index half that is quick enough for a main loop: the trace mapped
 * from a sound index of this version, built from this very file with
 * these parameters, if there is one (having said through "note" why one
 * that is there is not used). Otherwise %NULL, and strata_loader_load()
 * builds the index without looking again. Without the index, or told to
 * rebuild it, always %NULL.
 *
 * Returns: (transfer full) (nullable): the trace from its index, or
 *   %NULL (with @error set if the file cannot even be read)
 */
StrataTrace *
strata_loader_find_index (StrataLoader  *self,
                          GError       **error)
{
  StrataIndexOptions options;
  StrataZoomParams params;

  g_return_val_if_fail (STRATA_IS_LOADER (self), NULL);

  if (self->index_mode == STRATA_LOADER_INDEX_NONE || self->looked)
    return NULL;
  if (!strata_source_identity_compute (self->path, &self->identity, error))
    return NULL;
  self->looked = TRUE;
  index_options (self, &options);
  zoom_params (self, &params);
  g_clear_pointer (&self->write_path, g_free);
  return strata_index_find (self->path, &self->identity, &params, &options, &self->write_path);
}

/* The statistics builder and the caller's sink both. */
static void
both_add (const StrataActivity *activity,
          gpointer              user_data)
{
  StrataLoader *self = user_data;

  strata_stats_builder_add (activity, self->stats);
  self->sink (activity, self->sink_data);
}

static void
both_close (guint32  channel,
            gint64   t,
            gpointer user_data)
{
  StrataLoader *self = user_data;

  strata_stats_builder_close (channel, t, self->stats);
  if (self->close_sink != NULL)
    self->close_sink (channel, t, self->sink_data);
}

/* The pass itself, gathering the statistics into @stats if given. */
static StrataTrace *
read_trace (StrataLoader           *self,
            const StrataZoomParams *params,
            gboolean                keep,
            gboolean                report,
            StrataStatsBuilder     *stats,
            GCancellable           *cancellable,
            GError                **error)
{
  StrataTracePass pass = { 0 };
  StrataTrace *trace;

  pass.follow = self->follow;
  pass.cancellable = cancellable;

  pass.keep_activities = keep;
  pass.params = params;
  pass.debug_memory = self->parameters.debug_memory;
  if (report)
    {
      pass.progress = self->progress;
      pass.progress_data = self->progress_data;
    }
  if (stats != NULL && self->sink != NULL)
    {
      /* Sink and statistics both: through the loader. */
      self->stats = stats;
      pass.sink = both_add;
      pass.close_sink = both_close;
      pass.sink_data = self;
    }
  else if (stats != NULL)
    {
      pass.sink = strata_stats_builder_add;
      pass.close_sink = strata_stats_builder_close;
      pass.sink_data = stats;
    }
  else
    {
      pass.sink = self->sink;
      pass.close_sink = self->close_sink;
      pass.sink_data = self->sink_data;
    }
  trace = strata_trace_read (self->path, &pass, error);
  self->stats = NULL;
  return trace;
}

static StrataStatsBuilder *
stats_builder_new (StrataLoader *self)
{
  StrataStatsBuilder *stats = strata_stats_builder_new_with_parameters (&self->parameters);

  return stats;
}

/* Without the index: one pass, what the caller asks for. */
static StrataTrace *
load_without_index (StrataLoader           *self,
                    const StrataZoomParams *params,
                    gboolean                report,
                    GCancellable           *cancellable,
                    GError                **error)
{
  g_autoptr(StrataStatsBuilder) stats = self->statistics ? stats_builder_new (self) : NULL;
  StrataTrace *trace;

  trace = read_trace (self, params, self->keep_activities, report, stats, cancellable, error);
  if (trace != NULL && stats != NULL)
    strata_trace_set_stats (trace, strata_stats_builder_finish (stats, trace));
  return trace;
}

/**
 * strata_loader_load:
 * @cancellable: (nullable): cancelled, the pass's result is not written
 *   to an index (the progress callback stops the pass itself)
 *
 * Loads the trace: through the index, the mapped index if a sound one is
 * there (strata_loader_find_index(), if not called already), else one
 * pass that builds the tree and the statistics, the index written and
 * opened; without it, one pass keeping what the loader was told to keep.
 * When the file is damaged after some events, the trace is returned with
 * what was read (strata_trace_get_damage()).
 *
 * Returns: (transfer full): the trace, or %NULL with @error set
 */
StrataTrace *
strata_loader_load (StrataLoader  *self,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(StrataStatsBuilder) stats = NULL;
  g_autoptr(StrataTrace) built = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *written = NULL;
  StrataIndexOptions options;
  StrataZoomParams params;
  StrataTrace *trace;

  g_return_val_if_fail (STRATA_IS_LOADER (self), NULL);

  zoom_params (self, &params);
  if (self->index_mode == STRATA_LOADER_INDEX_NONE)
    return load_without_index (self, self->has_params ? &params : NULL, TRUE, cancellable, error);

  if (!self->looked)
    {
      if ((trace = strata_loader_find_index (self, error)) != NULL)
        return trace;
      if (!self->looked)
        return NULL;
    }

  stats = stats_builder_new (self);
  built = read_trace (self, &params, FALSE, TRUE, stats, cancellable, error);
  if (built == NULL)
    return NULL;
  if (g_cancellable_is_cancelled (cancellable))
    return g_steal_pointer (&built);
  /* A followed file was still growing when it was identified: the index
   * is of the file as it is now. */
  if (self->follow && !strata_source_identity_compute (self->path, &self->identity, NULL))
    return g_steal_pointer (&built);

  index_options (self, &options);
  written = strata_index_store (built, stats, &self->identity, self->write_path, &options);
  if (written == NULL)
    return g_steal_pointer (&built);

  /* Everything the tree built in memory answers is in the index now, so
   * it goes before the index is mapped: the two together were the build's
   * peak (80M events: the tree's 147 MB and the opened index's pages).
   * So do the statistics, and the heap gives their pages back: freed
   * and kept by malloc, they stayed under the open's (20M events and a
   * million threads: 292-317 MB at the open, the open alone 236 MB). */
  g_clear_object (&built);
  g_clear_pointer (&stats, strata_stats_builder_free);
  malloc_trim (0);
  g_signal_emit (self, signals[INDEX_WRITTEN], 0, written);
  trace = strata_index_open (written, &self->identity, &params, &local);
  if (trace == NULL)
    {
      /* The index just written does not read back (the disk?): the trace
       * without it, read again, rather than nothing. */
      g_autofree char *message = g_strdup_printf ("index %s: %s; reading the trace without it",
                                                  written, local->message);
      gboolean statistics = self->statistics;
      gboolean follow = self->follow;

      note (message, self);
      /* The file is finished by now: nothing to follow. */
      self->statistics = TRUE;
      self->follow = FALSE;
      trace = load_without_index (self, &params, FALSE, NULL, error);
      self->follow = follow;
      self->statistics = statistics;
    }
  return trace;
}
