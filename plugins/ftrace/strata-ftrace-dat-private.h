/* strata-ftrace-dat-private.h
 *
 * Private interface of the trace.dat reader. libtracecmd trusts the file it
 * reads: a length field is allocated as it is, a CPU's data offset is mapped
 * as it is. So before a file is handed to it, StrataFtraceDatLayout walks
 * the file's structure itself (the initial header, every section and option,
 * every CPU's data range and compressed chunk table) against the file's size
 * and plausible limits, and turns the first problem found into a precise
 * GError. The layout it fills is also what the source reports about the
 * file (version, compression, page size) and where it expects data to end.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-source.h"

G_BEGIN_DECLS

#define STRATA_TYPE_FTRACE_DAT_SOURCE (strata_ftrace_dat_source_get_type ())

G_DECLARE_FINAL_TYPE (StrataFtraceDatSource, strata_ftrace_dat_source,
                      STRATA, FTRACE_DAT_SOURCE, StrataSource)

void strata_plugin_ftrace_dat_register (void);

struct tracecmd_input;

/* The record streams of the source interface (strata-ftrace-dat-records.c),
 * and their state dropped before the source's handle is closed. */
void strata_ftrace_dat_records_class_init (StrataSourceClass     *source_class);
void strata_ftrace_dat_records_clear      (StrataFtraceDatSource *self);
/* The source's libtracecmd handle of the top-level buffer, when it reads
 * records (not for a cut file, whose records libtracecmd refuses). */
struct tracecmd_input *strata_ftrace_dat_source_get_handle (StrataFtraceDatSource *self);

/* One compressed chunk of a CPU's pages (version 7 with compression). */
typedef struct
{
  guint64 offset;       /* the compressed bytes, after the chunk's header */
  guint32 csize;        /* compressed bytes */
  guint32 usize;        /* bytes of pages once decompressed, whole pages */
} StrataFtraceDatChunk;

typedef struct
{
  guint   cpu;          /* the CPU's number, as the file names it */
  guint64 offset;       /* where its ring-buffer pages (or chunks) start */
  guint64 size;         /* bytes they take in the file */
  guint   first_chunk;  /* compressed: its chunks in layout->chunks */
  guint   n_chunks;
  guint64 usize;        /* compressed: the bytes of pages decompressed */
} StrataFtraceDatCpu;

typedef struct
{
  char    *name;        /* "" for the top-level buffer */
  guint64  offset;      /* v6: the CPU table; v7: the flyrecord section */
  GArray  *cpus;        /* StrataFtraceDatCpu; empty until known (v6 instances
                         * share the top buffer's CPU count) */
  gboolean compressed;  /* its pages are in compressed chunks */
} StrataFtraceDatBuffer;

typedef struct
{
  char       *display_name;     /* the file's base name, for messages */
  guint64     file_size;
  guint       version;          /* 6 or 7 */
  gboolean    big_endian;
  guint       long_size;        /* 4 or 8 */
  guint       commit_size;      /* of a page's commit word: long_size, or
                                 * what the header_page format says once
                                 * the source has parsed it */
  guint       page_size;
  char       *compression;      /* "none", "zstd", ... */
  char       *compression_version;
  guint       n_cpus;           /* the CPU count the file declares */
  gboolean    latency;          /* a latency (text) trace, not flyrecord */
  guint64     data_start;       /* the first byte of CPU data (v6) */
  GPtrArray  *buffers;          /* StrataFtraceDatBuffer, [0] = top level */
  GArray     *chunks;           /* StrataFtraceDatChunk of every CPU */

  /* An option that makes libtracecmd change every timestamp (a date or
   * offset, guest time sync, TSC conversion) was seen. */
  gboolean    adjusts_time;

  /* Set instead of failing when the only problem is that the CPU data of
   * an uncompressed version 6 file was cut: what precedes the cut can still
   * be read, page by page. */
  GError     *data_truncated;
} StrataFtraceDatLayout;

StrataFtraceDatLayout *strata_ftrace_dat_layout_new   (void);
void                   strata_ftrace_dat_layout_free  (StrataFtraceDatLayout  *layout);
gboolean               strata_ftrace_dat_layout_read  (StrataFtraceDatLayout  *layout,
                                                       int                     fd,
                                                       const char             *display_name,
                                                       GError                **error);

gboolean               strata_ftrace_dat_layout_check_page (const StrataFtraceDatLayout *layout,
                                                            const guint8                *page,
                                                            guint64                     *commit);

/* What decompressing chunks one after the other reuses: the zstd context
 * and the buffer of compressed bytes. Zero-initialised before first use. */
typedef struct
{
  gpointer  dctx;
  guint8   *packed;
  gsize     packed_size;
} StrataFtraceDatInflater;

void                   strata_ftrace_dat_inflater_clear    (StrataFtraceDatInflater     *inflater);
gboolean               strata_ftrace_dat_layout_inflate    (const StrataFtraceDatLayout *layout,
                                                            int                          fd,
                                                            const StrataFtraceDatChunk  *chunk,
                                                            guint                        cpu,
                                                            guint                        index,
                                                            StrataFtraceDatInflater     *inflater,
                                                            guint8                      *out,
                                                            GError                     **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataFtraceDatLayout, strata_ftrace_dat_layout_free)

G_END_DECLS
