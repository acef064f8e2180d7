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
  { "info", strata_cli_info, "Describe a trace: format, clock, CPUs, span, events per type" },
  { "stats", strata_cli_stats, "CPU usage, thread run times and wakeup latencies" },
};

static void
usage (FILE *out)
{
  fprintf (out, "Usage: strata-cli COMMAND [OPTIONS] FILE\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf (out,
           "\nFILE is a trace.dat (trace-cmd), the kernel's ftrace text output,\n"
           "or a perf.data file. Run 'strata-cli COMMAND --help' for its options.\n"
           "\nExit status: 0 on success, 1 on failure, 2 when the file is damaged\n"
           "and the output covers what was readable before the damage.\n");
}

/**
 * strata_cli_parse_file_args:
 * @command: the subcommand, for messages
 * @summary: what it does, for --help
 * @entries: its options
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
                            int                *argc,
                            char             ***argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *parameter = g_strdup_printf ("FILE - %s", summary);

  context = g_option_context_new (parameter);
  g_option_context_add_main_entries (context, entries, NULL);

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
  g_autoptr(GError) error = NULL;
  StrataTrace *trace;

  trace = strata_trace_load (path, &error);
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
