/* strata-index.h
 *
 * The persistent index: what one pass over a trace builds (the zoom tree,
 * its raw store, the trace's description, event counts and statistics)
 * written to a file, and memory-mapped the next time the trace is opened,
 * so a trace of any size opens at once. The file names the trace it was
 * built from (size, modification time, a hash of sampled blocks) and the
 * tree's parameters; one that does not match, is of another version or is
 * damaged is noticed, said once, and rebuilt (strata-loader.h puts it
 * together with the pass). docs/index-format.md
 * describes the file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-parameters.h"
#include "strata-stats.h"
#include "strata-trace.h"

G_BEGIN_DECLS

#define STRATA_INDEX_SUFFIX ".strata-index"

typedef struct
{
  guint64 size;
  gint64  mtime_ns;
  guint64 sample_hash;   /* XXH3-64 of sampled blocks of the file */
} StrataSourceIdentity;

typedef enum
{
  STRATA_INDEX_OPEN_DEFAULT = 0,
  /* Build the index anew even if a sound one exists. */
  STRATA_INDEX_OPEN_REBUILD = 1 << 0,
} StrataIndexOpenFlags;

/* Said once for each thing worth saying: a stale, damaged or other-version
 * index that is being rebuilt, an index that could not be written. */
typedef void (*StrataIndexNoteFunc)     (const char *message,
                                         gpointer    user_data);

typedef struct
{
  const char              *index_path;   /* NULL: beside the trace, else the cache */
  StrataIndexOpenFlags     flags;
  StrataIndexNoteFunc      note;
  gpointer                 note_data;
  const StrataParameters  *parameters;   /* NULL: the environment's */
} StrataIndexOptions;

gboolean     strata_source_identity_compute (const char                 *path,
                                             StrataSourceIdentity       *identity,
                                             GError                    **error);
char        *strata_index_default_path      (const char                 *trace_path,
                                             const StrataSourceIdentity *identity);
char        *strata_index_cache_path        (const StrataSourceIdentity *identity);

gboolean     strata_index_write             (StrataTrace                *trace,
                                             const StrataSourceIdentity *identity,
                                             const char                 *index_path,
                                             GError                    **error);
gboolean     strata_index_write_with_parameters (StrataTrace            *trace,
                                             const StrataSourceIdentity *identity,
                                             const char                 *index_path,
                                             const StrataParameters     *parameters,
                                             GError                    **error);
StrataTrace *strata_index_open              (const char                 *index_path,
                                             const StrataSourceIdentity *identity,
                                             const StrataZoomParams     *params,
                                             GError                    **error);
StrataTrace *strata_index_find              (const char                 *trace_path,
                                             const StrataSourceIdentity *identity,
                                             const StrataZoomParams     *params,
                                             const StrataIndexOptions   *options,
                                             char                      **write_path);
char        *strata_index_store             (StrataTrace                *built,
                                             StrataStatsBuilder         *stats,
                                             const StrataSourceIdentity *identity,
                                             const char                 *index_path,
                                             const StrataIndexOptions   *options);

G_END_DECLS
