/* strata-ftrace-dat-records.c
 *
 * A trace.dat's records again, one by one, for a reader that wants a few
 * events' fields (the event list's Fields column): the source interface's
 * record streams (strata_source_next_record()), one a CPU of the
 * top-level buffer, each in time order. They are read through the
 * source's own libtracecmd handle, opened at open (the batch reader reads
 * pages itself, or through the same handle; a source is read one way or
 * the other, never both), on one thread only: a handle is not
 * thread-safe. A record's position is its file offset, where
 * tracecmd_read_at() finds it again; its fields are what `trace-cmd
 * report -R` prints after the event's name. Events of other buffer
 * instances are not in any stream.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <event-parse.h>
#include <trace-cmd.h>

#include "strata-error.h"
#include "strata-ftrace-dat-private.h"
#include "strata-tracecmd-private.h"

typedef struct
{
  struct tracecmd_input *input;     /* the source's; NULL for a cut file */
  struct tep_handle     *tep;
  GHashTable            *names;     /* struct tep_event * → its name, interned */
  guint                  n_cpus;
  guint                  stream;    /* the one read */
  struct tep_record     *pending;   /* what a seek found, given next */
  struct tep_record     *last;      /* given last, for format_record */
  gboolean               at_end;    /* of the stream: no more to read */
} Records;

static void
records_free (gpointer data)
{
  Records *r = data;

  g_clear_pointer (&r->pending, tracecmd_free_record);
  g_clear_pointer (&r->last, tracecmd_free_record);
  g_clear_pointer (&r->names, g_hash_table_unref);
  g_free (r);
}

static GQuark
records_quark (void)
{
  return g_quark_from_static_string ("strata-ftrace-dat-records");
}

/* The source's records reader, made on first use. */
static Records *
records_of (StrataSource *source)
{
  Records *r = g_object_get_qdata (G_OBJECT (source), records_quark ());

  if (r != NULL)
    return r;
  r = g_new0 (Records, 1);
  r->names = g_hash_table_new (NULL, NULL);
  r->input = strata_ftrace_dat_source_get_handle (STRATA_FTRACE_DAT_SOURCE (source));
  if (r->input != NULL)
    {
      r->tep = tracecmd_get_tep (r->input);
      r->n_cpus = (guint) MAX (tracecmd_cpus (r->input), 0);
    }
  r->at_end = TRUE;
  g_object_set_qdata_full (G_OBJECT (source), records_quark (), r, records_free);
  return r;
}

void
strata_ftrace_dat_records_clear (StrataFtraceDatSource *self)
{
  g_object_set_qdata (G_OBJECT (self), records_quark (), NULL);
}

static guint
records_get_n_streams (StrataSource *source)
{
  return records_of (source)->n_cpus;
}

/* libtracecmd numbers a handle's CPUs as the file does: a stream is one. */
static gint
records_get_stream_cpu (StrataSource *source,
                        guint         stream)
{
  return (gint) stream;
}

static gboolean
records_seek (StrataSource               *source,
              guint                       stream,
              const StrataRecordPosition *where,
              GError                    **error)
{
  Records *r = records_of (source);
  int at_cpu = -1;

  g_clear_pointer (&r->pending, tracecmd_free_record);
  g_clear_pointer (&r->last, tracecmd_free_record);
  r->stream = stream;
  r->at_end = TRUE;
  if (r->input == NULL || stream >= r->n_cpus)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED,
                   "%s: no stream %u of records", strata_source_get_path (source), stream);
      return FALSE;
    }

  if (where == NULL)
    {
      r->pending = tracecmd_read_cpu_first (r->input, stream);
      r->at_end = r->pending == NULL;
      return TRUE;
    }

  r->pending = tracecmd_read_at (r->input, where->at, &at_cpu);
  if (r->pending == NULL || at_cpu != (int) stream)
    {
      g_clear_pointer (&r->pending, tracecmd_free_record);
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset %" G_GUINT64_FORMAT ": no record of CPU %u there",
                   strata_source_get_path (source), where->at, stream);
      return FALSE;
    }
  r->at_end = FALSE;
  for (guint32 i = 0; i < where->skip; i++)
    {
      StrataRecordHead ignored;

      if (!strata_source_next_record (source, &ignored, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
records_next (StrataSource      *source,
              StrataRecordHead  *head,
              GError           **error)
{
  Records *r = records_of (source);
  struct tep_record *record;
  struct tep_event *event;

  g_clear_pointer (&r->last, tracecmd_free_record);
  if (r->pending != NULL)
    record = g_steal_pointer (&r->pending);
  else if (r->at_end)
    return FALSE;
  else
    record = tracecmd_read_data (r->input, r->stream);
  if (record == NULL)
    {
      /* libtracecmd says nothing of why: the end, or a page it could not
       * read; either way there is no more. */
      r->at_end = TRUE;
      return FALSE;
    }

  /* Every record walked is named, most never formatted: the interned
   * name is looked up once an event. */
  event = tep_find_event_by_record (r->tep, record);
  if (event != NULL)
    {
      head->name = g_hash_table_lookup (r->names, event);
      if (head->name == NULL)
        {
          head->name = g_intern_string (event->name);
          g_hash_table_insert (r->names, event, (gpointer) head->name);
        }
    }
  else
    head->name = NULL;
  head->where.at = record->offset;
  head->where.skip = 0;
  head->where.flags = 0;
  head->ts = (gint64) MIN (record->ts, (unsigned long long) G_MAXINT64);
  head->cpu = (gint32) r->stream;
  r->last = record;
  return TRUE;
}

/* As `trace-cmd report -R` prints the record after its name. */
static char *
records_format (StrataSource *source)
{
  Records *r = records_of (source);
  struct tep_event *event;
  struct trace_seq s;
  char *text;

  if (r->last == NULL)
    return NULL;
  event = tep_find_event_by_record (r->tep, r->last);
  if (event == NULL)
    return NULL;
  trace_seq_init (&s);
  tep_print_event (r->tep, &s, r->last, "%s", TEP_PRINT_INFO_RAW);
  trace_seq_terminate (&s);
  text = g_strstrip (g_strdup (s.buffer != NULL ? s.buffer : ""));
  trace_seq_destroy (&s);
  return text;
}

void
strata_ftrace_dat_records_class_init (StrataSourceClass *source_class)
{
  source_class->get_n_record_streams = records_get_n_streams;
  source_class->get_record_stream_cpu = records_get_stream_cpu;
  source_class->seek_record = records_seek;
  source_class->next_record = records_next;
  source_class->format_record = records_format;
}
