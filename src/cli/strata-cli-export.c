/* strata-cli-export.c
 *
 * `strata-cli export FILE --format chrome-json|csv [--from T] [--to T]
 * -o OUT`: a range of the trace for other tools (strata-export.h): the
 * Trace Event Format that Perfetto's UI and chrome://tracing open, or
 * the range's activities as CSV. Written through the index, streamed,
 * into a temporary file renamed when whole.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-cli.h"
#include "strata-cli-format.h"

int
strata_cli_export (int    argc,
                   char **argv)
{
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *output = NULL;
  g_autofree char *from_text = NULL;
  g_autofree char *to_text = NULL;
  StrataCliIndexOptions index = { 0 };
  StrataExportFormat format;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "chrome-json (Trace Event Format) or csv", "F" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The file to write", "OUT" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from_text, "Start of the range (default: the trace's start)", "T" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to_text, "End of the range, excluded (default: the trace's end)", "T" },
    { NULL }
  };
  const char *file;
  gint64 from, to;

  file = strata_cli_parse_file_args ("export",
                                     "a range of the trace for Perfetto, chrome://tracing (chrome-json) "
                                     "or a spreadsheet (csv)",
                                     entries, strata_cli_index_option_group (&index), &argc, &argv);
  if (file == NULL)
    return STRATA_CLI_EXIT_FAILED;
  if (!strata_export_format_from_name (format_name != NULL ? format_name : "chrome-json", &format))
    {
      g_printerr ("strata-cli export: --format %s: expected chrome-json or csv\n", format_name);
      g_free (index.index_path);
      return STRATA_CLI_EXIT_FAILED;
    }
  if (output == NULL)
    {
      g_printerr ("strata-cli export: -o OUT is needed\n");
      g_free (index.index_path);
      return STRATA_CLI_EXIT_FAILED;
    }

  trace = strata_cli_open_trace (file, NULL, &index);
  g_free (index.index_path);
  if (trace == NULL)
    return STRATA_CLI_EXIT_FAILED;

  from = strata_trace_get_start (trace);
  to = strata_trace_get_end (trace) + 1;
  if ((from_text != NULL && !strata_parse_time (from_text, strata_trace_get_start (trace), &from, &error)) ||
      (to_text != NULL && !strata_parse_time (to_text, strata_trace_get_start (trace), &to, &error)))
    {
      g_printerr ("strata-cli export: %s\n", error->message);
      return STRATA_CLI_EXIT_FAILED;
    }

  if (!strata_export_to_file (trace, format, from, to, output, NULL, &error))
    {
      g_printerr ("strata-cli export: %s\n", error->message);
      return STRATA_CLI_EXIT_FAILED;
    }

  return strata_cli_finish (trace);
}
