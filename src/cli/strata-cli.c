/* strata-cli.c
 *
 * strata-cli: answers questions about a kernel trace from the command line.
 * This file dispatches to a subcommand and holds what they share: loading
 * a trace with one clear error message, and the exit status that tells a
 * script whether the input was damaged.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "strata-cli.h"

static const struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} commands[] = {
  { "record", strata_cli_record, "Record the kernel's scheduling and interrupts with eBPF" },
  { "info", strata_cli_info, "Describe a trace: format, clock, CPUs, span, events per type" },
  { "stats", strata_cli_stats, "CPU usage, thread run times and wakeup latencies" },
  { "tree", strata_cli_tree, "The zoom tree one pass builds: levels, chunks, depth, size" },
  { "query", strata_cli_query, "What a viewer draws for a viewport, from the zoom tree" },
  { "render", strata_cli_render, "Draw the timeline (or a part of it) into a PNG" },
  { "critical-path", strata_cli_critical_path, "What a thread waited for over a range, thread by thread" },
  { "flamegraph", strata_cli_flamegraph, "The call chains of a range's samples as a flame graph, or folded" },
  { "export", strata_cli_export, "A range as Trace Event Format JSON (Perfetto, chrome://tracing) or CSV" },
  { "index", strata_cli_index, "Build the trace's index (every command builds it on first use)" },
};

static void
usage (FILE *out)
{
  fprintf (out, "Usage: strata-cli COMMAND [OPTIONS] FILE\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf (out,
           "\nFILE is a trace.dat (trace-cmd), the kernel's ftrace text output,\n"
           "a perf.data file, or a recording of strata-cli record.\n"
           "Run 'strata-cli COMMAND --help' for its options.\n"
           "\nExit status: 0 on success, 1 on failure, 2 when the file is damaged\n"
           "and the output covers what was readable before the damage.\n");
}

/**
 * strata_cli_parse_file_args:
 * @command: the subcommand, for messages
 * @summary: what it does, for --help
 * @entries: its options
 * @group: (nullable) (transfer full): more options, such as the zoom tree's
 * @argc: (inout): the subcommand's argument count
 * @argv: (inout): its arguments, argv[0] being the subcommand
 *
 * Parses a subcommand that takes options and one FILE.
 *
 * Returns: (nullable): the FILE, or %NULL after printing why not
 */
const char *
strata_cli_parse_file_args (const char         *command,
                            const char         *summary,
                            const GOptionEntry *entries,
                            GOptionGroup       *group,
                            int                *argc,
                            char             ***argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *parameter = g_strdup_printf ("FILE - %s", summary);

  context = g_option_context_new (parameter);
  g_option_context_add_main_entries (context, entries, NULL);
  if (group != NULL)
    g_option_context_add_group (context, group);

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      g_printerr ("strata-cli %s: %s\n", command, error->message);
      return NULL;
    }

  if (*argc != 2)
    {
      g_printerr ("strata-cli %s: expected one FILE\n", command);
      return NULL;
    }

  return (*argv)[1];
}

StrataTrace *
strata_cli_load_trace (const char *path)
{
  g_autoptr(StrataLoader) loader = strata_loader_new (path);
  g_autoptr(GError) error = NULL;
  StrataTrace *trace;

  strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
  strata_loader_set_keep_activities (loader, TRUE);
  trace = strata_loader_load (loader, NULL, &error);
  if (trace == NULL)
    g_printerr ("strata-cli: %s\n", error->message);

  return trace;
}

/**
 * strata_cli_zoom_option_group:
 * @options: where the parsed values go; initialised here to the defaults
 *
 * Returns: (transfer full): the options of the zoom tree's parameters
 */
GOptionGroup *
strata_cli_zoom_option_group (StrataCliZoomOptions *options)
{
  static StrataCliZoomOptions *target;
  static GOptionEntry entries[] = {
    { "zoom-factor", 0, 0, G_OPTION_ARG_INT, NULL,
      "Chunks of a level per chunk of the level above (a power of two; default 4)", "F" },
    { "chunk-pixels", 0, 0, G_OPTION_ARG_INT, NULL,
      "Pixels per chunk, one screen (a power of two; default 8192)", "W" },
    { "density", 0, 0, G_OPTION_ARG_INT, NULL,
      "Activities that make a chunk dense enough to pre-calculate (default 1000)", "T" },
    { "buffers", 0, 0, G_OPTION_ARG_STRING, NULL,
      "How buffers are cut: adaptive (default), interval:NS or count:N", "HOW" },
    { "min-reduction", 0, 0, G_OPTION_ARG_INT, NULL,
      "Store a dense chunk only if aggregation divides its items by R (default 2; 1 stores all)", "R" },
    { NULL }
  };
  StrataZoomParams defaults;
  GOptionGroup *group;

  strata_zoom_params_init (&defaults);
  options->zoom_factor = defaults.zoom_factor;
  options->chunk_pixels = defaults.pixels_per_chunk;
  options->density = defaults.density_threshold;
  options->buffers = NULL;
  options->min_reduction = defaults.min_reduction;

  target = options;
  entries[0].arg_data = &target->zoom_factor;
  entries[1].arg_data = &target->chunk_pixels;
  entries[2].arg_data = &target->density;
  entries[3].arg_data = &target->buffers;
  entries[4].arg_data = &target->min_reduction;

  group = g_option_group_new ("zoom", "Zoom tree options:", "Show the zoom tree's options", NULL, NULL);
  g_option_group_add_entries (group, entries);

  return group;
}

static gboolean
zoom_params_from_options (const StrataCliZoomOptions  *options,
                          StrataZoomParams            *params,
                          GError                     **error)
{
  strata_zoom_params_init (params);

  if (options == NULL)
    return TRUE;

  if (options->zoom_factor <= 0 || options->chunk_pixels <= 0 || options->density <= 0 ||
      options->min_reduction <= 0)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_FAILED,
                   "--zoom-factor, --chunk-pixels, --density and --min-reduction must be positive");
      return FALSE;
    }
  params->min_reduction = options->min_reduction;
  params->zoom_factor = options->zoom_factor;
  params->pixels_per_chunk = options->chunk_pixels;
  params->density_threshold = options->density;

  if (options->buffers == NULL || g_str_equal (options->buffers, "adaptive"))
    params->buffer_criterion = STRATA_BUFFER_ADAPTIVE;
  else if (g_str_has_prefix (options->buffers, "interval:"))
    {
      params->buffer_criterion = STRATA_BUFFER_FIXED_INTERVAL;
      params->buffer_interval = g_ascii_strtoll (options->buffers + 9, NULL, 10);
    }
  else if (g_str_has_prefix (options->buffers, "count:"))
    {
      params->buffer_criterion = STRATA_BUFFER_FIXED_COUNT;
      params->buffer_count = g_ascii_strtoull (options->buffers + 6, NULL, 10);
    }
  else
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_FAILED,
                   "--buffers %s: expected adaptive, interval:NS or count:N", options->buffers);
      return FALSE;
    }

  return TRUE;
}

/* The parameters the zoom options ask for. */
gboolean
strata_cli_zoom_params (const StrataCliZoomOptions  *options,
                        StrataZoomParams            *params,
                        GError                     **error)
{
  return zoom_params_from_options (options, params, error);
}

/* Loads a trace and builds its zoom tree in the same pass. */
StrataTrace *
strata_cli_load_trace_with_tree (const char                 *path,
                                 const StrataCliZoomOptions *options)
{
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;
  StrataTrace *trace = NULL;

  if (zoom_params_from_options (options, &params, &error))
    {
      g_autoptr(StrataLoader) loader = strata_loader_new (path);

      strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
      strata_loader_set_zoom_params (loader, &params);
      trace = strata_loader_load (loader, NULL, &error);
    }
  if (trace == NULL)
    g_printerr ("strata-cli: %s\n", error->message);

  return trace;
}

/* Reports damage once, after the output, and picks the exit status. */
int
strata_cli_finish (StrataTrace *trace)
{
  const GError *damage = strata_trace_get_damage (trace);

  if (damage != NULL)
    {
      g_printerr ("strata-cli: warning: %s\n"
                  "strata-cli: warning: the results cover the %" G_GUINT64_FORMAT
                  " events read before the damage\n",
                  damage->message, strata_trace_get_n_events (trace));
      return STRATA_CLI_EXIT_PARTIAL;
    }

  return STRATA_CLI_EXIT_OK;
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");

  if (argc < 2)
    {
      usage (stderr);
      return STRATA_CLI_EXIT_FAILED;
    }

  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 ||
      strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return STRATA_CLI_EXIT_OK;
    }

  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("strata-cli %s\n", PACKAGE_VERSION);
      return STRATA_CLI_EXIT_OK;
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);

  g_printerr ("strata-cli: unknown command “%s”\n\n", argv[1]);
  usage (stderr);

  return STRATA_CLI_EXIT_FAILED;
}
