/* strata-index.h
 *
 * The persistent index: what one pass over a trace builds (the zoom tree,
 * its raw store, the trace's description, event counts and statistics)
 * written to a file, and memory-mapped the next time the trace is opened,
 * so a trace of any size opens at once. The file names the trace it was
 * built from (size, modification time, a hash of sampled blocks) and the
 * tree's parameters; one that does not match, is of another version or is
 * damaged is noticed, said once, and rebuilt. docs/index-format.md
 * describes the file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

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
  /* Neither read nor write an index: one pass in memory, as before. */
  STRATA_INDEX_OPEN_BYPASS  = 1 << 1,
} StrataIndexOpenFlags;

/* While a pass builds the index: events so far, and how far into the
 * source file (bytes read of @total; 0 when not known). */
typedef void (*StrataIndexProgressFunc) (guint64  n_events,
                                         guint64  bytes,
                                         guint64  total,
                                         gpointer user_data);
/* Said once for each thing worth saying: a stale, damaged or other-version
 * index that is being rebuilt, an index that could not be written. */
typedef void (*StrataIndexNoteFunc)     (const char *message,
                                         gpointer    user_data);

typedef struct
{
  const char              *index_path;   /* NULL: beside the trace, else the cache */
  StrataIndexOpenFlags     flags;
  StrataIndexProgressFunc  progress;
  gpointer                 progress_data;
  StrataIndexNoteFunc      note;
  gpointer                 note_data;
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
StrataTrace *strata_index_open              (const char                 *index_path,
                                             const StrataSourceIdentity *identity,
                                             const StrataZoomParams     *params,
                                             GError                    **error);
StrataTrace *strata_index_load_trace        (const char                 *trace_path,
                                             const StrataZoomParams     *params,
                                             const StrataIndexOptions   *options,
                                             GError                    **error);

StrataTrace *strata_index_find              (const char                 *trace_path,
                                             const StrataSourceIdentity *identity,
                                             const StrataZoomParams     *params,
                                             const StrataIndexOptions   *options,
                                             char                      **write_path);
StrataTrace *strata_index_store             (StrataTrace                *built,
                                             StrataStatsBuilder         *stats,
                                             const StrataSourceIdentity *identity,
                                             const char                 *index_path,
                                             const StrataZoomParams     *params,
                                             const StrataIndexOptions   *options);

G_END_DECLS
