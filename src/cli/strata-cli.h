/* strata-cli.h
 *
 * The subcommands of strata-cli, each in its own file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata.h"

G_BEGIN_DECLS

/* Exit codes: 0 success, 1 failure, 2 the trace was damaged and the output
 * covers what was readable before the damage. */
#define STRATA_CLI_EXIT_OK      0
#define STRATA_CLI_EXIT_FAILED  1
#define STRATA_CLI_EXIT_PARTIAL 2

int          strata_cli_info       (int           argc,
                                    char        **argv);
int          strata_cli_stats      (int           argc,
                                    char        **argv);
int          strata_cli_tree       (int           argc,
                                    char        **argv);
int          strata_cli_query      (int           argc,
                                    char        **argv);
int          strata_cli_render     (int           argc,
                                    char        **argv);
int          strata_cli_record     (int           argc,
                                    char        **argv);
int          strata_cli_critical_path (int        argc,
                                       char     **argv);
int          strata_cli_flamegraph (int           argc,
                                    char        **argv);
int          strata_cli_export     (int           argc,
                                    char        **argv);

const char  *strata_cli_parse_file_args (const char         *command,
                                         const char         *summary,
                                         const GOptionEntry *entries,
                                         GOptionGroup       *group,
                                         int                *argc,
                                         char             ***argv);
StrataTrace *strata_cli_load_trace (const char   *path);

/* The zoom-tree parameters every command that builds a tree accepts:
 * --zoom-factor, --chunk-pixels, --density, --buffers, --min-reduction. */
typedef struct
{
  int   zoom_factor;
  int   chunk_pixels;
  int   density;
  char *buffers;
  int   min_reduction;
} StrataCliZoomOptions;

GOptionGroup *strata_cli_zoom_option_group (StrataCliZoomOptions *options);
StrataTrace  *strata_cli_load_trace_with_tree (const char                 *path,
                                               const StrataCliZoomOptions *options);
int          strata_cli_finish     (StrataTrace  *trace);

/* The index every command goes through (strata-cli-index.c):
 * --index PATH, --no-index, --rebuild-index. */
typedef struct
{
  char     *index_path;
  gboolean  no_index;
  gboolean  rebuild;
} StrataCliIndexOptions;

int           strata_cli_index                (int                          argc,
                                               char                       **argv);
gboolean      strata_cli_zoom_params          (const StrataCliZoomOptions  *options,
                                               StrataZoomParams            *params,
                                               GError                     **error);
GOptionGroup *strata_cli_index_option_group   (StrataCliIndexOptions       *options);
void          strata_cli_add_index_options    (GOptionGroup                *group,
                                               StrataCliIndexOptions       *options);
StrataTrace  *strata_cli_open_trace           (const char                  *path,
                                               const StrataCliZoomOptions  *zoom,
                                               const StrataCliIndexOptions *options);
gboolean      strata_cli_rebuild_if_damaged   (StrataTrace                **trace,
                                               const char                  *path,
                                               const StrataCliZoomOptions  *zoom,
                                               const StrataCliIndexOptions *options);

G_END_DECLS
