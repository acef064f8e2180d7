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
