/* strata-ftrace-text-records.c
 *
 * The kernel's text output read again line by line, for a reader that
 * wants a few events' fields (the event list's Fields column): the source
 * interface's one record stream (strata_source_next_record()). The file
 * is mapped apart from the batch reader; its events' lines are in time
 * order, so a time is found by bisection over the bytes
 * (strata_source_seek_record_time()) without reading what is before it.
 * A record's position is the offset of its line; its fields are what the
 * kernel printed after the event's name (its print format, not raw
 * values: the text has no others). Lines that are not events ("#####
 * CPU 1 buffer started ####") are passed over.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-error.h"
#include "strata-ftrace-text-records.h"

typedef struct
{
  gint64  ts;
  guint   cpu;
  char   *name;
  char   *fields;
} TextLine;

typedef struct
{
  GMappedFile *map;       /* NULL when the file could not be mapped */
  GRegex      *line_re;
  gsize        begin;     /* after the header's comment lines */
  gsize        at;        /* where the next line to read starts */
  char        *fields;    /* of the line given last */
} Records;

static void
text_line_clear (TextLine *line)
{
  g_clear_pointer (&line->name, g_free);
  g_clear_pointer (&line->fields, g_free);
}

static void
records_free (gpointer data)
{
  Records *r = data;

  g_clear_pointer (&r->map, g_mapped_file_unref);
  g_clear_pointer (&r->line_re, g_regex_unref);
  g_free (r->fields);
  g_free (r);
}

static GQuark
records_quark (void)
{
  return g_quark_from_static_string ("strata-ftrace-text-records");
}

/* The source's records reader, the file mapped on first use. */
static Records *
records_of (StrataSource *source)
{
  Records *r = g_object_get_qdata (G_OBJECT (source), records_quark ());
  const char *text;
  gsize len, at = 0;

  if (r != NULL)
    return r;
  r = g_new0 (Records, 1);
  g_object_set_qdata_full (G_OBJECT (source), records_quark (), r, records_free);
  r->map = g_mapped_file_new (strata_source_get_path (source), FALSE, NULL);
  if (r->map == NULL)
    return r;

  text = g_mapped_file_get_contents (r->map);
  len = g_mapped_file_get_length (r->map);
  while (at < len && text[at] == '#')
    {
      const char *nl = memchr (text + at, '\n', len - at);

      at = nl != NULL ? (gsize) (nl - text) + 1 : len;
    }
  r->begin = r->at = at;
  /* "comm-pid [(tgid)] [cpu] [flags] secs.frac: name: fields" */
  r->line_re = g_regex_new ("\\[(\\d+)\\]\\s+(?:\\S+\\s+)?(\\d+)\\.(\\d+):\\s+([^:\\s]+):\\s?(.*)$",
                            G_REGEX_OPTIMIZE, 0, NULL);
  g_assert (r->line_re != NULL);
  return r;
}

/* The line starting at @at, and where the next one starts. FALSE for a
 * line that is not an event. */
static gboolean
parse_line (Records  *r,
            gsize     at,
            gsize    *next,
            TextLine *line)
{
  const char *text = g_mapped_file_get_contents (r->map);
  gsize len = g_mapped_file_get_length (r->map);
  const char *nl = memchr (text + at, '\n', len - at);
  gsize end = nl != NULL ? (gsize) (nl - text) : len;
  g_autofree char *copy = g_strndup (text + at, end - at);
  g_autoptr(GMatchInfo) m = NULL;
  g_autofree char *cpu = NULL, *secs = NULL, *frac = NULL;
  gint64 scale = 1;

  *next = nl != NULL ? end + 1 : len;
  if (!g_regex_match (r->line_re, copy, 0, &m))
    return FALSE;
  cpu = g_match_info_fetch (m, 1);
  secs = g_match_info_fetch (m, 2);
  frac = g_match_info_fetch (m, 3);
  if (strlen (frac) > 9)
    return FALSE;
  for (gsize i = strlen (frac); i < 9; i++)
    scale *= 10;
  line->cpu = (guint) g_ascii_strtoull (cpu, NULL, 10);
  line->ts = (gint64) g_ascii_strtoull (secs, NULL, 10) * G_GINT64_CONSTANT (1000000000) +
             (gint64) g_ascii_strtoull (frac, NULL, 10) * scale;
  line->name = g_match_info_fetch (m, 4);
  line->fields = g_strstrip (g_match_info_fetch (m, 5));
  return TRUE;
}

/* The start of the first event line at or after byte @at. */
static gboolean
event_line_from (Records  *r,
                 gsize     at,
                 gsize    *start,
                 TextLine *line)
{
  gsize len = g_mapped_file_get_length (r->map);
  gsize next;

  while (at < len)
    {
      if (parse_line (r, at, &next, line))
        {
          *start = at;
          return TRUE;
        }
      at = next;
    }
  return FALSE;
}

static gboolean
no_stream (StrataSource  *source,
           guint          stream,
           GError       **error)
{
  g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED,
               "%s: no stream %u of records", strata_source_get_path (source), stream);
  return FALSE;
}

static guint
records_get_n_streams (StrataSource *source)
{
  return records_of (source)->map != NULL ? 1 : 0;
}

static gint
records_get_stream_cpu (StrataSource *source,
                        guint         stream)
{
  return -1;
}

static gboolean
records_seek (StrataSource               *source,
              guint                       stream,
              const StrataRecordPosition *where,
              GError                    **error)
{
  Records *r = records_of (source);

  g_clear_pointer (&r->fields, g_free);
  if (r->map == NULL || stream != 0)
    return no_stream (source, stream, error);
  if (where == NULL)
    {
      r->at = r->begin;
      return TRUE;
    }
  if (where->at < r->begin || where->at > g_mapped_file_get_length (r->map))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset %" G_GUINT64_FORMAT ": not a position of a line",
                   strata_source_get_path (source), where->at);
      return FALSE;
    }
  r->at = where->at;
  for (guint32 i = 0; i < where->skip; i++)
    {
      StrataRecordHead ignored;

      if (!strata_source_next_record (source, &ignored, error))
        return FALSE;
    }
  return TRUE;
}

/* To a line before the first at @ts, or the first: by bisection over
 * bytes, [lo, hi) holding the first line at @ts or later, lo always a
 * line's start. The lines read from there until @ts are few. */
static gboolean
records_seek_time (StrataSource  *source,
                   guint          stream,
                   gint64         ts,
                   GError       **error)
{
  Records *r = records_of (source);
  const char *text;
  gsize len, lo, hi;
  TextLine line = { 0 };

  g_clear_pointer (&r->fields, g_free);
  if (r->map == NULL || stream != 0)
    return no_stream (source, stream, error);
  text = g_mapped_file_get_contents (r->map);
  len = g_mapped_file_get_length (r->map);
  lo = r->begin;
  hi = len;
  while (hi - lo > 1)
    {
      gsize mid = lo + (hi - lo) / 2;
      const char *nl = memchr (text + mid, '\n', len - mid);
      gsize start;

      mid = nl != NULL ? (gsize) (nl - text) + 1 : len;
      if (mid >= hi || !event_line_from (r, mid, &start, &line) || start >= hi)
        {
          text_line_clear (&line);
          hi = mid < hi ? mid : lo + (hi - lo) / 2;
          if (hi <= lo)
            break;
          continue;
        }
      if (line.ts < ts)
        lo = start;
      else
        hi = start;
      text_line_clear (&line);
    }
  r->at = lo;
  return TRUE;
}

static gboolean
records_next (StrataSource      *source,
              StrataRecordHead  *head,
              GError           **error)
{
  Records *r = records_of (source);
  gsize len;

  g_clear_pointer (&r->fields, g_free);
  if (r->map == NULL)
    return FALSE;
  len = g_mapped_file_get_length (r->map);
  while (r->at < len)
    {
      TextLine line = { 0 };
      gsize start = r->at, next;

      if (!parse_line (r, start, &next, &line))
        {
          r->at = next;
          continue;
        }
      r->at = next;
      head->where.at = start;
      head->where.skip = 0;
      head->where.flags = 0;
      head->ts = line.ts;
      head->cpu = (gint32) line.cpu;
      head->name = g_intern_string (line.name);
      r->fields = g_steal_pointer (&line.fields);
      text_line_clear (&line);
      return TRUE;
    }
  return FALSE;
}

static char *
records_format (StrataSource *source)
{
  return g_strdup (records_of (source)->fields);
}

void
strata_ftrace_text_records_class_init (StrataSourceClass *source_class)
{
  source_class->get_n_record_streams = records_get_n_streams;
  source_class->get_record_stream_cpu = records_get_stream_cpu;
  source_class->seek_record = records_seek;
  source_class->seek_record_time = records_seek_time;
  source_class->next_record = records_next;
  source_class->format_record = records_format;
}
