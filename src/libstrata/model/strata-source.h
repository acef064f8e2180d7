/* strata-source.h
 *
 * The input plugin interface. A StrataSource recognises a file by its first
 * bytes, opens it, and yields decoded kernel events in time order, a batch at
 * a time, together with what the file says about itself (format, version,
 * compression, clock, CPUs, lost events). Plugins register a subclass on the
 * "strata-source" GIOExtensionPoint; strata_source_open() picks the one whose
 * probe scores highest for the file's content, never its name.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "strata-event.h"
#include "strata-string-pool.h"

G_BEGIN_DECLS

#define STRATA_SOURCE_EXTENSION_POINT "strata-source"
#define STRATA_SOURCE_PROBE_SIZE      4096

/* Data a source read past without decoding it (a processor trace's AUX
 * area data, records of a type it does not know), named so a user knows
 * it is there. */
typedef struct
{
  char      *what;            /* "intel_pt AUX area data", "records of unknown type 99" */
  guint64    records;
  guint64    bytes;
  GArray    *bytes_per_cpu;   /* guint64, indexed by CPU; empty when not per CPU */
} StrataUndecoded;

typedef struct
{
  char      *format;          /* "trace.dat", "ftrace text", "perf.data" */
  char      *version;         /* the file format's version, "6", "7" */
  char      *compression;     /* "none", "zstd", ... */
  char      *clock;           /* the trace clock: "local", "mono", "global" */
  guint      n_cpus;
  GPtrArray *instances;       /* char *: buffer instance names, [0] = "" (top) */
  GArray    *lost_per_cpu;    /* guint64, indexed by CPU; filled while reading */
  guint64    lost_events;     /* the sum of lost_per_cpu */
  gboolean   lost_unknown;    /* events were lost but the count is not known */
  gint64     first_ts;        /* G_MAXINT64 until an event was read */
  gint64     last_ts;         /* G_MININT64 until an event was read */
  /* What the file says of its time span before it is read (the times of
   * its first and last events, from its two ends; for perf.data, of its
   * first and last samples, from HEADER_SAMPLE_TIME), or G_MAXINT64 and
   * G_MININT64 when it says nothing. A hint, set at open:
   * the zoom tree builds its level 0 in the pass when it has one
   * (strata_zoom_tree_set_span_hint()), and is right without it. */
  gint64     span_first;
  gint64     span_last;
  char      *hostname;        /* may be NULL */
  char      *kernel_release;  /* may be NULL */
  GPtrArray *undecoded;       /* StrataUndecoded *; filled while reading */
  /* What else the file says of itself, for `info` (a recorder's command
   * line, its buffers ...): StrataSourceDetail, in the order given. */
  GArray    *details;
} StrataSourceInfo;

typedef struct
{
  char *name;
  char *value;
} StrataSourceDetail;

#define STRATA_TYPE_SOURCE (strata_source_get_type ())

G_DECLARE_DERIVABLE_TYPE (StrataSource, strata_source, STRATA, SOURCE, GObject)

struct _StrataSourceClass
{
  GObjectClass parent_class;

  /* How sure the plugin is that @head (the first bytes of the file, fewer
   * for a short file) is its format: 0 (no) to 100 (a magic number). */
  guint    (*probe)      (const guint8  *head,
                          gsize          head_len);
  /* Open @path and read its headers; fill the info. */
  gboolean (*open)       (StrataSource  *self,
                          const char    *path,
                          GError       **error);
  /* Fill @events with up to @n_events, in time order. Returns how many were
   * written, 0 at the end, or -1 with @error set when the file is damaged:
   * every event before the damage has been returned by then. */
  gssize   (*read_batch) (StrataSource  *self,
                          StrataEvent   *events,
                          gsize          n_events,
                          GError       **error);

  /* Optional, for sources with samples: the frames of call chain @id (a
   * sample activity's arg), innermost first; NULL for an unknown id. */
  const guint64 *(*get_callchain) (StrataSource  *self,
                                   guint32        id,
                                   guint         *n_frames);
  /* Optional: the name of the function at @address in process @pid. */
  char     *(*symbolize)  (StrataSource  *self,
                           gint32         pid,
                           guint64        address);
  /* Optional: how far into the file's bytes the reader is, for progress
   * where the events' own offsets are not a measure of it (compressed
   * data); 0 for "ask the events". Read as the "file-position" property. */
  guint64   (*get_file_position) (StrataSource *self);

  /*< private >*/
  gpointer _reserved[5];
};

StrataSource           *strata_source_open            (const char    *path,
                                                       GError       **error);
const char             *strata_source_get_path        (StrataSource  *self);
StrataStringPool       *strata_source_get_strings     (StrataSource  *self);
const StrataSourceInfo *strata_source_get_info        (StrataSource  *self);
gssize                  strata_source_read_batch      (StrataSource  *self,
                                                       StrataEvent   *events,
                                                       gsize          n_events,
                                                       GError       **error);
void                    strata_source_ensure_builtin  (void);
const guint64          *strata_source_get_callchain   (StrataSource  *self,
                                                       guint32        id,
                                                       guint         *n_frames);
char                   *strata_source_symbolize       (StrataSource  *self,
                                                       gint32         pid,
                                                       guint64        address);
gboolean                strata_source_has_file_position (StrataSource *self);
gboolean                strata_source_has_callchains   (StrataSource *self);
guint64                 strata_source_get_file_position (StrataSource *self);

/* For plugins. */
StrataSourceInfo       *strata_source_get_info_mutable (StrataSource *self);
void                    strata_source_note_lost        (StrataSource *self,
                                                        guint         cpu,
                                                        guint64       count);
void                    strata_source_note_undecoded   (StrataSource *self,
                                                        const char   *what,
                                                        gint          cpu,
                                                        guint64       records,
                                                        guint64       bytes);

StrataUndecoded        *strata_undecoded_new           (const char   *what);
void                    strata_undecoded_free          (StrataUndecoded *undecoded);

void                    strata_source_add_detail       (StrataSource *self,
                                                        const char   *name,
                                                        const char   *value);
GArray                 *strata_source_details_new      (void);

G_END_DECLS
