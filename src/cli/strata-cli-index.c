/* strata-cli-index.c
 *
 * How every command opens its trace: through the persistent index
 * (strata-index.h), built on first use beside the trace or in the cache,
 * with --index PATH to choose the file and --no-index to read the trace
 * in memory as before. A damaged, stale or other-version index is said
 * once on stderr and rebuilt. `strata-cli index FILE` builds it on
 * purpose, with a progress line (rate, ETA) when stderr is a terminal.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "strata-cli.h"
#include "strata-cli-format.h"

static GOptionEntry *
index_entries (StrataCliIndexOptions *options)
{
  static GOptionEntry entries[] = {
    { "index", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "The index file to use (default: FILE" STRATA_INDEX_SUFFIX " beside the trace, "
      "or in $XDG_CACHE_HOME/strata)", "PATH" },
    { "no-index", 0, 0, G_OPTION_ARG_NONE, NULL,
      "Read the trace in memory; neither read nor write an index", NULL },
    { "rebuild-index", 0, 0, G_OPTION_ARG_NONE, NULL,
      "Build the index anew even if it is sound", NULL },
    { NULL }
  };

  options->index_path = NULL;
  options->no_index = FALSE;
  options->rebuild = FALSE;
  entries[0].arg_data = &options->index_path;
  entries[1].arg_data = &options->no_index;
  entries[2].arg_data = &options->rebuild;
  return entries;
}

/* Returns: (transfer full): --index, --no-index and --rebuild-index */
GOptionGroup *
strata_cli_index_option_group (StrataCliIndexOptions *options)
{
  GOptionGroup *group = g_option_group_new ("index", "Index options:", "Show the index options",
                                            NULL, NULL);

  g_option_group_add_entries (group, index_entries (options));
  return group;
}

/* Adds the index options to @group (the zoom tree's). */
void
strata_cli_add_index_options (GOptionGroup          *group,
                              StrataCliIndexOptions *options)
{
  g_option_group_add_entries (group, index_entries (options));
}

typedef struct
{
  gint64  began;
  gint64  last;
  gboolean shown;
} ProgressLine;

static gboolean
on_progress (const StrataTraceProgress *progress,
             gpointer                   user_data)
{
  ProgressLine *p = user_data;
  gint64 now = g_get_monotonic_time ();
  double secs = (now - p->began) / 1e6;
  double rate = secs > 0 ? progress->n_events / secs : 0;
  guint64 bytes = progress->bytes_read, total = progress->bytes_total;

  if (now - p->last < 200000)
    return TRUE;
  p->last = now;
  p->shown = TRUE;

  if (total > 0 && bytes > 0)
    {
      double fraction = MIN ((double) bytes / total, 1.0);
      double eta = fraction > 0 ? secs * (1 - fraction) / fraction : 0;
      int width = 30, filled = (int) (fraction * width);

      fprintf (stderr, "\r[%.*s%*s] %3.0f%%  %.1fM events  %.2fM events/s  ETA %.0f s  ",
               filled, "##############################", width - filled, "",
               fraction * 100, progress->n_events / 1e6, rate / 1e6, eta);
    }
  else
    fprintf (stderr, "\r%.1fM events  %.2fM events/s  ", progress->n_events / 1e6, rate / 1e6);
  fflush (stderr);
  return TRUE;
}

static void
on_note (StrataLoader *loader,
         const char   *message,
         gpointer      user_data)
{
  g_printerr ("strata-cli: %s\n", message);
}

static StrataTrace *
open_trace (const char                  *path,
            const StrataCliZoomOptions  *zoom,
            const StrataCliIndexOptions *options,
            gboolean                     rebuild,
            gboolean                     progress)
{
  g_autoptr(StrataLoader) loader = strata_loader_new (path);
  g_autoptr(GError) error = NULL;
  ProgressLine line = { g_get_monotonic_time (), 0, FALSE };
  StrataZoomParams params;
  StrataTrace *trace;

  strata_zoom_params_init (&params);
  if (zoom != NULL && !strata_cli_zoom_params (zoom, &params, &error))
    {
      g_printerr ("strata-cli: %s\n", error->message);
      return NULL;
    }

  strata_loader_set_index_path (loader, options != NULL ? options->index_path : NULL);
  if (options != NULL && options->no_index)
    {
      /* One pass in memory, as through the index: the tree and the
       * statistics, nothing written. */
      strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
      strata_loader_set_statistics (loader, TRUE);
    }
  else if (rebuild || (options != NULL && options->rebuild))
    strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_REBUILD);
  strata_loader_set_zoom_params (loader, &params);
  g_signal_connect (loader, "note", G_CALLBACK (on_note), NULL);
  if (progress && isatty (STDERR_FILENO))
    strata_loader_set_progress_func (loader, on_progress, &line, NULL);

  trace = strata_loader_load (loader, NULL, &error);
  if (line.shown)
    fprintf (stderr, "\r%*s\r", 100, "");
  if (trace == NULL)
    g_printerr ("strata-cli: %s\n", error->message);

  return trace;
}

/**
 * strata_cli_open_trace:
 * @zoom: (nullable): the tree's parameters the command asks for, or %NULL
 *   when any tree will do (info, stats)
 * @options: (nullable): the index options
 *
 * The trace through its index, built on first use.
 */
StrataTrace *
strata_cli_open_trace (const char                  *path,
                       const StrataCliZoomOptions  *zoom,
                       const StrataCliIndexOptions *options)
{
  return open_trace (path, zoom, options, FALSE, TRUE);
}

/**
 * strata_cli_rebuild_if_damaged:
 * @trace: (inout): the trace a command has queried
 *
 * After a command's queries and before it prints: if they found the index
 * damaged (their answers might miss something), says so once, rebuilds the
 * index and opens the trace again, for the command to run again.
 *
 * Returns: %TRUE if @trace was replaced (or set to %NULL on failure)
 */
gboolean
strata_cli_rebuild_if_damaged (StrataTrace                **trace,
                               const char                  *path,
                               const StrataCliZoomOptions  *zoom,
                               const StrataCliIndexOptions *options)
{
  const char *damage = strata_trace_get_index_damage (*trace);

  if (damage == NULL)
    return FALSE;

  g_printerr ("strata-cli: index %s: %s; rebuilding it\n", strata_trace_get_index_path (*trace), damage);
  g_clear_object (trace);
  *trace = open_trace (path, zoom, options, TRUE, TRUE);
  return TRUE;
}

int
strata_cli_index (int    argc,
                  char **argv)
{
  g_autoptr(StrataTrace) trace = NULL;
  StrataCliZoomOptions zoom;
  StrataCliIndexOptions options;
  GOptionGroup *group = strata_cli_zoom_option_group (&zoom);
  gboolean force = FALSE;
  const GOptionEntry entries[] = {
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Build it even if a sound index is there", NULL },
    { NULL }
  };
  const char *file;
  const char *index_path;
  gint64 began, took;
  g_autofree char *took_text = NULL;
  struct stat st_index, st_trace;

  strata_cli_add_index_options (group, &options);
  file = strata_cli_parse_file_args ("index", "build the trace's index", entries, group, &argc, &argv);
  if (file == NULL)
    return STRATA_CLI_EXIT_FAILED;
  if (options.no_index)
    {
      g_printerr ("strata-cli index: --no-index makes no sense here\n");
      return STRATA_CLI_EXIT_FAILED;
    }

  began = g_get_monotonic_time ();
  trace = open_trace (file, &zoom, &options, force, TRUE);
  took = g_get_monotonic_time () - began;
  g_free (zoom.buffers);
  g_free (options.index_path);
  if (trace == NULL)
    return STRATA_CLI_EXIT_FAILED;

  index_path = strata_trace_get_index_path (trace);
  if (index_path == NULL)
    {
      g_printerr ("strata-cli index: %s: no index could be written\n", file);
      return STRATA_CLI_EXIT_FAILED;
    }

  took_text = strata_format_duration (took * 1000);
  if (g_stat (index_path, &st_index) == 0 && g_stat (file, &st_trace) == 0)
    printf ("%s: %s, %.1f MiB (%.2fx the trace), %" G_GUINT64_FORMAT " events, in %s\n",
            file, index_path, st_index.st_size / 1048576.0,
            st_trace.st_size > 0 ? (double) st_index.st_size / st_trace.st_size : 0.0,
            strata_trace_get_n_events (trace), took_text);

  return strata_cli_finish (trace);
}
