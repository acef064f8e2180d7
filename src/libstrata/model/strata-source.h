/* strata-source.h
 *
 * The input plugin interface. A StrataSource recognises a file by its first
 * bytes, opens it, and yields decoded kernel events in time order, a batch at
 * a time, together with what the file says about itself (format, version,
 * compression, clock, CPUs, lost events). Plugins register a subclass on the
 * "strata-source" GIOExtensionPoint; strata_source_open() picks the one whose
 * probe scores highest for the file's content, never its name. A plugin may
 * also give its records again one by one with their raw fields (record
 * streams: strata_source_next_record()), for the event list, so that no
 * format knowledge lives above the plugins.
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

/* Where a record is, for reading it again, in the source's own terms (a
 * file offset, how many records to pass from there, a flag of its own):
 * only the source that gave it knows what it means. */
typedef struct
{
  guint64 at;
  guint32 skip;
  guint32 flags;
} StrataRecordPosition;

/* A record read again (strata_source_next_record()): where it is, its
 * time, its CPU and the name of its event. */
typedef struct
{
  StrataRecordPosition where;
  gint64               ts;
  gint32               cpu;     /* -1 when the record does not say */
  const char          *name;    /* an interned string (g_intern_string) */
} StrataRecordHead;

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

  /* Optional: the records again, one by one, with their raw fields, for a
   * reader that wants a few events' fields (the event list). A source
   * opened for that is read with these instead of batches. Its records
   * are in streams (trace.dat: one a CPU; perf.data and the kernel's
   * text: one), each in time order for each CPU; a stream is chosen by
   * seeking in it. */
  guint     (*get_n_record_streams)  (StrataSource *self);
  /* The one CPU of @stream's records, or -1 for any. */
  gint      (*get_record_stream_cpu) (StrataSource *self,
                                      guint         stream);
  /* To @where in @stream (a position a record head of it gave), or to
   * the stream's start for NULL. */
  gboolean  (*seek_record)      (StrataSource               *self,
                                 guint                       stream,
                                 const StrataRecordPosition *where,
                                 GError                    **error);
  /* Optional too: to a record of @stream before its first at @ts (or to
   * that one), found without reading those before (a file in time
   * order): no record at @ts comes before where it seeks to, a few
   * earlier ones may come after. */
  gboolean  (*seek_record_time) (StrataSource  *self,
                                 guint          stream,
                                 gint64         ts,
                                 GError       **error);
  /* The next record of the stream: FALSE at its end, or on damage with
   * @error set. */
  gboolean  (*next_record)      (StrataSource      *self,
                                 StrataRecordHead  *head,
                                 GError           **error);
  /* The raw fields of the record next_record() gave last, as the
   * format's own tool prints them; NULL when it has none. */
  char     *(*format_record)    (StrataSource *self);

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

guint                   strata_source_get_n_record_streams  (StrataSource *self);
gint                    strata_source_get_record_stream_cpu (StrataSource *self,
                                                             guint         stream);
gboolean                strata_source_seek_record      (StrataSource               *self,
                                                        guint                       stream,
                                                        const StrataRecordPosition *where,
                                                        GError                    **error);
gboolean                strata_source_can_seek_record_time (StrataSource *self);
gboolean                strata_source_seek_record_time (StrataSource  *self,
                                                        guint          stream,
                                                        gint64         ts,
                                                        GError       **error);
gboolean                strata_source_next_record      (StrataSource      *self,
                                                        StrataRecordHead  *head,
                                                        GError           **error);
char                   *strata_source_format_record    (StrataSource *self);

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
