/* strata-event-fields.c
 *
 * See strata-event-fields.h. The file is read through libtracecmd with a
 * handle of our own (used on the main thread only: a handle is not
 * thread-safe). Each CPU's records are walked front to back only as far
 * as a look-up needs, and every CHECKPOINT_EVERY-th record's time and
 * offset is kept on the way; a look-up at an earlier time jumps to the
 * checkpoint before it (tracecmd_read_at) and reads a few records on from
 * there. So a screen of rows costs a few dozen records per CPU, and the
 * file is never read twice over the same stretch. Only the top-level
 * buffer is looked in; events of other buffer instances have no fields
 * here.
 *
 * The kernel's text output is its events' lines in time order: it is
 * mapped, a look-up finds the first line at the time by bisection and
 * reads the lines of that time for the CPU and the name. Its fields are
 * what the kernel printed after the event's name (its print format, not
 * raw values: the text has no others).
 *
 * A perf.data is read through a perf source of our own, record by record
 * (strata_perf_source_next_record_head): the records come in file order,
 * which is time order for each CPU, so the same walk serves, over all
 * CPUs at once: a look-up walks on until a record of its CPU is later,
 * keeping each CPU's checkpoints (a position the source can seek back
 * to), and a look-back reads from the checkpoint before it, the other
 * CPUs' records passed over unformatted. An event whose CPU is not known
 * is looked for on every CPU.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "strata-error.h"
#include "strata-event-fields.h"
#include "strata-source.h"

#define CHECKPOINT_EVERY 64

/* Exported by libtracecmd 1.3, but missing from its public header. */
int tracecmd_cpus (struct tracecmd_input *handle);

typedef struct
{
  guint64 ts;
  guint64 offset;
} Checkpoint;

typedef struct
{
  GArray  *checkpoints;   /* Checkpoint, in time order */
  guint64  n_records;     /* walked so far */
  guint64  last_ts;       /* of the last record walked */
  guint64  last_offset;
  gboolean started;
  gboolean done;          /* the CPU's records are all walked */

  /* The records of the stretch looked back at last, formatted: the rows
   * on screen are neighbours, so most look-ups are answered from here.
   * It holds every record with cache_lo < ts < cache_hi. */
  GArray  *cache;         /* Cached */
  gint64   cache_lo;
  guint64  cache_hi;
} CpuWalk;

typedef struct
{
  guint64     ts;
  const char *name;       /* the tep handle's, as long as it lives */
  char       *fields;
} Cached;

static void
cached_clear (gpointer data)
{
  g_free (((Cached *) data)->fields);
}

/* Both kinds of checkpoint start with their time. */
static inline guint64
checkpoint_ts (GArray *checkpoints,
               guint   i)
{
  return *(const guint64 *) (checkpoints->data + (gsize) i * g_array_get_element_size (checkpoints));
}

/* How many checkpoints are strictly before @ts: the last one of them is
 * where to read from, as records of the same time can straddle one. */
static guint
checkpoints_before (GArray  *checkpoints,
                    guint64  ts)
{
  guint lo = 0, hi = checkpoints->len;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (checkpoint_ts (checkpoints, mid) < ts)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Where a look back at @ts stops: the next checkpoint, or @ts if later. */
static guint64
look_back_until (GArray  *checkpoints,
                 guint    before,
                 guint64  ts)
{
  return before < checkpoints->len ? MAX (ts, checkpoint_ts (checkpoints, before)) : ts;
}

/* A perf.data: the same walk, over the file's records in file order
 * (time order per CPU) through a source of its own. */
typedef struct
{
  guint64              ts;
  StrataRecordPosition where;
} PerfCheckpoint;

typedef struct
{
  gint64               ts;
  gint32               cpu;
  guint32              seq;
  const char          *name;
  StrataRecordPosition where;
} PerfIndexEntry;

typedef struct
{
  GArray  *checkpoints;   /* PerfCheckpoint */
  guint64  n_records;
  guint64  last_ts;
  gboolean started;
  GArray  *cache;         /* Cached */
  gint64   cache_lo;
  guint64  cache_hi;
} PerfCpu;

struct _StrataEventFields
{
  /* The kernel's text output, mapped; or NULL for a trace.dat. */
  GMappedFile           *text;
  GRegex                *line_re;
  gsize                  text_begin;   /* after the header's comment lines */

  struct tracecmd_input *input;
  struct tep_handle     *tep;
  guint                  n_cpus;
  CpuWalk               *cpus;

  /* A source whose one record stream holds every CPU's records (a
   * perf.data), or NULL. */
  StrataSource          *perf;
  GArray                *perf_cpus;      /* PerfCpu, by CPU */
  StrataRecordPosition   perf_frontier;  /* of the first record not walked */
  gboolean               perf_started;
  gboolean               perf_done;      /* walked to the end */
  gboolean               perf_broken;    /* a read failed: no more fields */
  /* Records not in time order per CPU (samples that do not say their
   * CPU): every record's time and position, in time order. */
  gboolean               perf_unordered;
  GArray                *perf_index;     /* PerfIndexEntry, or NULL */
};

static StrataEventFields *
open_text (const char  *path,
           GError     **error)
{
  g_autoptr(GMappedFile) map = g_mapped_file_new (path, FALSE, error);
  StrataEventFields *self;
  const char *text;
  gsize len, at = 0;

  if (map == NULL)
    return NULL;
  text = g_mapped_file_get_contents (map);
  len = g_mapped_file_get_length (map);
  if (len < 9 || memcmp (text, "# tracer:", 9) != 0)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNKNOWN_FORMAT,
                   "%s: neither a trace.dat nor the kernel's text output", path);
      return NULL;
    }
  while (at < len && text[at] == '#')
    {
      const char *nl = memchr (text + at, '\n', len - at);

      at = nl != NULL ? (gsize) (nl - text) + 1 : len;
    }

  self = g_new0 (StrataEventFields, 1);
  self->text = g_steal_pointer (&map);
  self->text_begin = at;
  /* "comm-pid [(tgid)] [cpu] [flags] secs.frac: name: fields" */
  self->line_re = g_regex_new ("\\[(\\d+)\\]\\s+(?:\\S+\\s+)?(\\d+)\\.(\\d+):\\s+([^:\\s]+):\\s?(.*)$",
                               G_REGEX_OPTIMIZE, 0, NULL);
  g_assert (self->line_re != NULL);
  return self;
}

static StrataEventFields *open_perf (const char  *path,
                                     GError     **error);

StrataEventFields *
strata_event_fields_open (const char  *path,
                          GError     **error)
{
  StrataEventFields *self;
  struct tracecmd_input *input;
  guint8 magic[8] = { 0 };
  FILE *f;

  g_return_val_if_fail (path != NULL, NULL);

  /* trace.dat starts with 0x17 0x08 0x44 ("tracing" follows). */
  f = fopen (path, "rb");
  if (f == NULL)
    {
      int errsv = errno;

      g_set_error (error, STRATA_ERROR, STRATA_ERROR_NOT_FOUND, "%s: %s", path, g_strerror (errsv));
      return NULL;
    }
  if (fread (magic, 1, sizeof magic, f) != sizeof magic)
    magic[0] = 0;
  fclose (f);
  if (memcmp (magic, "PERFILE2", 8) == 0 || memcmp (magic, "2ELIFREP", 8) == 0 ||
      memcmp (magic, "PERFFILE", 8) == 0)
    return open_perf (path, error);
  if (!(magic[0] == 0x17 && magic[1] == 0x08 && magic[2] == 0x44))
    return open_text (path, error);

  input = tracecmd_open (path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
  if (input == NULL)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNKNOWN_FORMAT,
                   "%s: not a trace.dat libtracecmd can open", path);
      return NULL;
    }

  self = g_new0 (StrataEventFields, 1);
  self->input = input;
  self->tep = tracecmd_get_tep (input);
  self->n_cpus = MAX (tracecmd_cpus (input), 0);
  self->cpus = g_new0 (CpuWalk, self->n_cpus);
  for (guint i = 0; i < self->n_cpus; i++)
    {
      self->cpus[i].checkpoints = g_array_new (FALSE, FALSE, sizeof (Checkpoint));
      self->cpus[i].cache = g_array_new (FALSE, FALSE, sizeof (Cached));
      g_array_set_clear_func (self->cpus[i].cache, cached_clear);
    }
  return self;
}

void
strata_event_fields_free (StrataEventFields *self)
{
  if (self == NULL)
    return;
  if (self->perf != NULL)
    {
      g_array_unref (self->perf_cpus);
      g_clear_pointer (&self->perf_index, g_array_unref);
      g_object_unref (self->perf);
      g_free (self);
      return;
    }
  if (self->text != NULL)
    {
      g_mapped_file_unref (self->text);
      g_regex_unref (self->line_re);
      g_free (self);
      return;
    }
  for (guint i = 0; i < self->n_cpus; i++)
    {
      g_array_unref (self->cpus[i].checkpoints);
      g_array_unref (self->cpus[i].cache);
    }
  g_free (self->cpus);
  tracecmd_close (self->input);
  g_free (self);
}

static gboolean
name_matches (const char         *name,
              const char * const *names)
{
  if (names == NULL || names[0] == NULL)
    return TRUE;
  for (guint i = 0; names[i] != NULL; i++)
    if (g_strcmp0 (name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The record's fields, or NULL when its name is not one of @names. */
static char *
fields_of (StrataEventFields  *self,
           struct tep_record  *record,
           const char * const *names)
{
  struct tep_event *event = tep_find_event_by_record (self->tep, record);
  struct trace_seq s;
  char *text;

  if (event == NULL || !name_matches (event->name, names))
    return NULL;
  trace_seq_init (&s);
  tep_print_event (self->tep, &s, record, "%s", TEP_PRINT_INFO_RAW);
  trace_seq_terminate (&s);
  text = g_strstrip (g_strdup (s.buffer != NULL ? s.buffer : ""));
  trace_seq_destroy (&s);
  return text;
}

/* Walks @cpu's records on until one is later than @ts, keeping
 * checkpoints; a record at @ts that matches is the answer. */
static char *
walk_on (StrataEventFields  *self,
         guint               cpu,
         guint64             ts,
         const char * const *names)
{
  CpuWalk *w = &self->cpus[cpu];
  struct tep_record *record;
  char *found = NULL;

  if (!w->started)
    record = tracecmd_read_cpu_first (self->input, cpu);
  else
    {
      int at_cpu = -1;
      struct tep_record *last = tracecmd_read_at (self->input, w->last_offset, &at_cpu);

      if (last != NULL)
        tracecmd_free_record (last);
      record = last != NULL && at_cpu == (int) cpu ? tracecmd_read_data (self->input, cpu) : NULL;
    }
  w->started = TRUE;

  for (; record != NULL; record = tracecmd_read_data (self->input, cpu))
    {
      if (w->n_records % CHECKPOINT_EVERY == 0)
        {
          Checkpoint c = { record->ts, record->offset };
          g_array_append_val (w->checkpoints, c);
        }
      w->n_records++;
      w->last_ts = record->ts;
      w->last_offset = record->offset;

      if (record->ts == ts && found == NULL)
        found = fields_of (self, record, names);
      if (record->ts > ts)
        {
          tracecmd_free_record (record);
          return found;
        }
      tracecmd_free_record (record);
    }
  w->done = TRUE;
  return found;
}

/* The fields of the record at @ts of one of @names in a looked-back
 * stretch (Cached, in time order), or NULL. */
static char *
cache_lookup (GArray             *cache,
              guint64             ts,
              const char * const *names)
{
  for (guint i = 0; i < cache->len; i++)
    {
      const Cached *c = &g_array_index (cache, Cached, i);

      if (c->ts == ts && name_matches (c->name, names))
        return g_strdup (c->fields);
      if (c->ts > ts)
        break;
    }
  return NULL;
}

/* A time already walked past: the stretch from the last checkpoint
 * before it to the next checkpoint (or to @ts, if further) is read and
 * kept formatted, then asked. */
static char *
look_back (StrataEventFields  *self,
           guint               cpu,
           guint64             ts,
           const char * const *names)
{
  CpuWalk *w = &self->cpus[cpu];
  guint lo;
  struct tep_record *record;
  guint64 until;
  int at_cpu = -1;

  if ((gint64) ts > w->cache_lo && ts < w->cache_hi)
    return cache_lookup (w->cache, ts, names);

  lo = checkpoints_before (w->checkpoints, ts);
  until = look_back_until (w->checkpoints, lo, ts);

  g_array_set_size (w->cache, 0);
  if (lo == 0)
    {
      record = tracecmd_read_cpu_first (self->input, cpu);
      w->cache_lo = -1;
    }
  else
    {
      const Checkpoint *from = &g_array_index (w->checkpoints, Checkpoint, lo - 1);

      record = tracecmd_read_at (self->input, from->offset, &at_cpu);
      if (record != NULL && at_cpu != (int) cpu)
        g_clear_pointer (&record, tracecmd_free_record);
      w->cache_lo = (gint64) from->ts;
    }

  w->cache_hi = G_MAXUINT64;
  for (; record != NULL; record = tracecmd_read_data (self->input, cpu))
    {
      struct tep_event *event;
      Cached c = { record->ts, NULL, NULL };

      if (record->ts > until)
        {
          w->cache_hi = record->ts;
          tracecmd_free_record (record);
          break;
        }
      event = tep_find_event_by_record (self->tep, record);
      if (event != NULL)
        {
          c.name = event->name;
          c.fields = fields_of (self, record, NULL);
          g_array_append_val (w->cache, c);
        }
      tracecmd_free_record (record);
    }
  /* A read that failed midway keeps nothing it cannot vouch for. */
  if (w->cache_hi == G_MAXUINT64 && !w->done)
    w->cache_hi = w->cache->len > 0 ? g_array_index (w->cache, Cached, w->cache->len - 1).ts : 0;

  return cache_lookup (w->cache, ts, names);
}

/* The kernel's text ---------------------------------------------------- */

typedef struct
{
  gint64  ts;
  guint   cpu;
  char   *name;
  char   *fields;
} TextLine;

/* The line starting at @at, and where the next one starts. FALSE for a
 * line that is not an event ("##### CPU 1 buffer started ####"). */
static gboolean
parse_line (StrataEventFields *self,
            gsize              at,
            gsize             *next,
            TextLine          *line)
{
  const char *text = g_mapped_file_get_contents (self->text);
  gsize len = g_mapped_file_get_length (self->text);
  const char *nl = memchr (text + at, '\n', len - at);
  gsize end = nl != NULL ? (gsize) (nl - text) : len;
  g_autofree char *copy = g_strndup (text + at, end - at);
  g_autoptr(GMatchInfo) m = NULL;
  g_autofree char *cpu = NULL, *secs = NULL, *frac = NULL;
  gint64 scale = 1;

  *next = nl != NULL ? end + 1 : len;
  if (!g_regex_match (self->line_re, copy, 0, &m))
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

static void
text_line_clear (TextLine *line)
{
  g_clear_pointer (&line->name, g_free);
  g_clear_pointer (&line->fields, g_free);
}

/* The start of the first event line at or after byte @at. */
static gboolean
event_line_from (StrataEventFields *self,
                 gsize              at,
                 gsize             *start,
                 TextLine          *line)
{
  gsize len = g_mapped_file_get_length (self->text);
  gsize next;

  while (at < len)
    {
      if (parse_line (self, at, &next, line))
        {
          *start = at;
          return TRUE;
        }
      at = next;
    }
  return FALSE;
}

static char *
text_lookup (StrataEventFields  *self,
             gint32              cpu,
             gint64              ts,
             const char * const *names)
{
  const char *text = g_mapped_file_get_contents (self->text);
  gsize len = g_mapped_file_get_length (self->text);
  gsize lo = self->text_begin, hi = len, at, next;
  TextLine line = { 0 };

  /* Bisection over bytes: [lo, hi) holds the first line at @ts or later,
   * lo always a line's start. */
  while (hi - lo > 1)
    {
      gsize mid = lo + (hi - lo) / 2;
      const char *nl = memchr (text + mid, '\n', len - mid);
      gsize start;

      mid = nl != NULL ? (gsize) (nl - text) + 1 : len;
      if (mid >= hi || !event_line_from (self, mid, &start, &line) || start >= hi)
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

  /* From lo on, the lines of that time. */
  for (at = lo; at < len; at = next)
    {
      char *found = NULL;

      if (!parse_line (self, at, &next, &line))
        continue;
      if (line.ts > ts)
        {
          text_line_clear (&line);
          break;
        }
      if (line.ts == ts && (cpu < 0 || line.cpu == (guint) cpu) && name_matches (line.name, names))
        found = g_steal_pointer (&line.fields);
      text_line_clear (&line);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* perf.data ------------------------------------------------------------ */

static void
perf_cpu_clear (gpointer data)
{
  PerfCpu *w = data;

  g_clear_pointer (&w->checkpoints, g_array_unref);
  g_clear_pointer (&w->cache, g_array_unref);
}

static StrataEventFields *
open_perf (const char  *path,
           GError     **error)
{
  g_autoptr(StrataSource) source = strata_source_open (path, error);
  StrataEventFields *self;

  if (source == NULL)
    return NULL;
  if (strata_source_get_n_record_streams (source) != 1 ||
      strata_source_get_record_stream_cpu (source, 0) >= 0)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNKNOWN_FORMAT,
                   "%s: its reader cannot read its records again in one stream", path);
      return NULL;
    }
  self = g_new0 (StrataEventFields, 1);
  self->perf = g_steal_pointer (&source);
  self->perf_cpus = g_array_new (FALSE, TRUE, sizeof (PerfCpu));
  g_array_set_clear_func (self->perf_cpus, perf_cpu_clear);
  return self;
}

static PerfCpu *
perf_cpu (StrataEventFields *self,
          gint32             cpu)
{
  PerfCpu *w;

  if (cpu < 0 || cpu >= 8192)
    return NULL;
  if ((guint) cpu >= self->perf_cpus->len)
    g_array_set_size (self->perf_cpus, cpu + 1);
  w = &g_array_index (self->perf_cpus, PerfCpu, cpu);
  if (w->checkpoints == NULL)
    {
      w->checkpoints = g_array_new (FALSE, FALSE, sizeof (PerfCheckpoint));
      w->cache = g_array_new (FALSE, FALSE, sizeof (Cached));
      g_array_set_clear_func (w->cache, cached_clear);
    }
  return w;
}

/* Walks the records on from where the last walk stopped until one of
 * @cpu is later than @ts, keeping every CPU's checkpoints. */
static char *
perf_walk_on (StrataEventFields  *self,
              gint32              cpu,
              gint64              ts,
              const char * const *names)
{
  char *found = NULL;

  if (self->perf_started && !strata_source_seek_record (self->perf, 0, &self->perf_frontier, NULL))
    {
      self->perf_broken = TRUE;
      return NULL;
    }

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      StrataRecordHead h;
      PerfCpu *w;

      if (!strata_source_next_record (self->perf, &h, &error))
        {
          if (error != NULL)
            self->perf_broken = TRUE;
          self->perf_done = TRUE;
          self->perf_started = TRUE;
          break;
        }
      self->perf_started = TRUE;
      w = perf_cpu (self, h.cpu);
      if (h.cpu < 0 || (w != NULL && w->started && (guint64) h.ts < w->last_ts))
        {
          /* The walk cannot stop at a later record: see perf_index_build(). */
          self->perf_unordered = TRUE;
          g_clear_pointer (&found, g_free);
          return NULL;
        }
      if (h.cpu == cpu && h.ts > ts)
        {
          self->perf_frontier = h.where;
          break;
        }
      if (w == NULL)
        continue;
      if (w->n_records % CHECKPOINT_EVERY == 0)
        {
          PerfCheckpoint c = { (guint64) h.ts, h.where };

          g_array_append_val (w->checkpoints, c);
        }
      w->n_records++;
      w->last_ts = h.ts;
      w->started = TRUE;
      if (h.cpu == cpu && h.ts == ts && found == NULL && name_matches (h.name, names))
        found = strata_source_format_record (self->perf);
    }
  return found;
}

/* As look_back(): the stretch of @cpu's records from the checkpoint
 * before @ts to the next one, read again and kept formatted. */
static char *
perf_look_back (StrataEventFields  *self,
                gint32              cpu,
                guint64             ts,
                const char * const *names)
{
  PerfCpu *w = perf_cpu (self, cpu);
  guint lo;
  const StrataRecordPosition *from;
  guint64 until;

  if (w == NULL || !w->started)
    return NULL;
  if ((gint64) ts > w->cache_lo && ts < w->cache_hi)
    return cache_lookup (w->cache, ts, names);

  lo = checkpoints_before (w->checkpoints, ts);
  until = look_back_until (w->checkpoints, lo, ts);

  g_array_set_size (w->cache, 0);
  if (lo == 0)
    {
      from = NULL;   /* the stream's start */
      w->cache_lo = -1;
    }
  else
    {
      from = &g_array_index (w->checkpoints, PerfCheckpoint, lo - 1).where;
      w->cache_lo = (gint64) g_array_index (w->checkpoints, PerfCheckpoint, lo - 1).ts;
    }
  w->cache_hi = 0;
  if (!strata_source_seek_record (self->perf, 0, from, NULL))
    {
      self->perf_broken = TRUE;
      return NULL;
    }

  w->cache_hi = G_MAXUINT64;
  for (;;)
    {
      g_autoptr(GError) error = NULL;
      StrataRecordHead h;
      Cached c;

      if (!strata_source_next_record (self->perf, &h, &error))
        {
          if (error != NULL)
            self->perf_broken = TRUE;
          break;
        }
      if (h.cpu != cpu)
        continue;
      if ((guint64) h.ts > until)
        {
          w->cache_hi = h.ts;
          break;
        }
      c.ts = h.ts;
      c.name = h.name;
      c.fields = strata_source_format_record (self->perf);
      g_array_append_val (w->cache, c);
    }
  if (w->cache_hi == G_MAXUINT64 && (!self->perf_done || self->perf_broken))
    w->cache_hi = w->cache->len > 0 ? g_array_index (w->cache, Cached, w->cache->len - 1).ts : 0;

  return cache_lookup (w->cache, ts, names);
}

static int
index_entry_cmp (gconstpointer a,
                 gconstpointer b)
{
  const PerfIndexEntry *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  if (x->cpu != y->cpu)
    return x->cpu < y->cpu ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A file whose records are not in time order per CPU: read once to the
 * end, keeping each record's time, CPU, name and position (40 bytes a
 * record), then sorted; a look-up bisects and reads its one record. */
static void
perf_index_build (StrataEventFields *self)
{
  StrataRecordHead h;
  guint32 seq = 0;

  self->perf_index = g_array_new (FALSE, FALSE, sizeof (PerfIndexEntry));
  if (self->perf_started && !strata_source_seek_record (self->perf, 0, NULL, NULL))
    {
      self->perf_broken = TRUE;
      return;
    }
  while (strata_source_next_record (self->perf, &h, NULL))
    {
      /* A record that does not say its CPU is looked for as CPU 0's. */
      PerfIndexEntry e = { h.ts, MAX (h.cpu, 0), seq++, h.name, h.where };

      g_array_append_val (self->perf_index, e);
    }
  g_array_sort (self->perf_index, index_entry_cmp);
}

static char *
perf_index_lookup (StrataEventFields  *self,
                   gint32              cpu,
                   gint64              ts,
                   const char * const *names)
{
  guint lo = 0, hi;

  if (self->perf_index == NULL)
    perf_index_build (self);
  if (self->perf_broken)
    return NULL;
  hi = self->perf_index->len;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (g_array_index (self->perf_index, PerfIndexEntry, mid).ts < ts)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (; lo < self->perf_index->len; lo++)
    {
      const PerfIndexEntry *e = &g_array_index (self->perf_index, PerfIndexEntry, lo);
      StrataRecordHead h;

      if (e->ts != ts)
        break;
      if ((cpu >= 0 && e->cpu != cpu) || !name_matches (e->name, names))
        continue;
      if (!strata_source_seek_record (self->perf, 0, &e->where, NULL) ||
          !strata_source_next_record (self->perf, &h, NULL))
        {
          self->perf_broken = TRUE;
          return NULL;
        }
      return strata_source_format_record (self->perf);
    }
  return NULL;
}

static char *
perf_lookup (StrataEventFields  *self,
             gint32              cpu,
             gint64              ts,
             const char * const *names)
{
  if (self->perf_broken)
    return NULL;
  if (self->perf_unordered)
    return perf_index_lookup (self, cpu, ts, names);
  if (cpu < 0)
    {
      /* On every CPU: the file's count, or those seen. */
      guint n = MAX (strata_source_get_info (self->perf)->n_cpus, self->perf_cpus->len);

      for (guint c = 0; c < n && !self->perf_broken; c++)
        {
          char *found = perf_lookup (self, (gint32) c, ts, names);

          if (found != NULL)
            return found;
        }
      return NULL;
    }
  {
    PerfCpu *w = perf_cpu (self, cpu);

    if (w == NULL)
      return NULL;
    if (!self->perf_done && (!w->started || (guint64) ts > w->last_ts))
      {
        char *found = perf_walk_on (self, cpu, ts, names);

        return self->perf_unordered ? perf_index_lookup (self, cpu, ts, names) : found;
      }
    return perf_look_back (self, cpu, (guint64) ts, names);
  }
}


/**
 * strata_event_fields_lookup:
 * @cpu: the CPU the event was recorded on, or -1 to look on every CPU
 * @ts: its time, in the trace's clock
 * @names: (nullable) (array zero-terminated=1): the event names it may
 *   have; %NULL for any
 *
 * Returns: (transfer full) (nullable): its fields, or %NULL when no such
 *   event is there
 */
char *
strata_event_fields_lookup (StrataEventFields  *self,
                            gint32              cpu,
                            gint64              ts,
                            const char * const *names)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (ts < 0)
    return NULL;
  if (self->text != NULL)
    return text_lookup (self, cpu, ts, names);
  if (self->perf != NULL)
    return perf_lookup (self, cpu, ts, names);

  for (guint c = 0; c < self->n_cpus; c++)
    {
      CpuWalk *w = &self->cpus[c];
      char *found;

      if (cpu >= 0 && (guint) cpu != c)
        continue;
      if (!w->done && (!w->started || (guint64) ts > w->last_ts))
        found = walk_on (self, c, ts, names);
      else
        found = look_back (self, c, ts, names);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The events an activity may have come from, by its kind. */
/* A perf.data without sched_switch has its SWITCH records. */
static const char * const switch_names[] = { "sched_switch", "PERF_RECORD_SWITCH", NULL };
static const char * const irq_names[] = { "irq_handler_entry", NULL };
static const char * const softirq_names[] = { "softirq_entry", NULL };

/**
 * strata_event_fields_for_activity:
 * @cpu: the activity's CPU, or -1 when it is not known
 *
 * The fields of the event that began @activity: an event or a wakeup is
 * its own event; a task or idle time on a CPU began with a sched_switch,
 * a thread's state with one when there is one at that time (else with
 * whatever event is there then); an interrupt with its entry.
 *
 * Returns: (transfer full) (nullable): its fields
 */
char *
strata_event_fields_for_activity (StrataEventFields    *self,
                                  StrataTrace          *trace,
                                  const StrataActivity *activity,
                                  gint32                cpu)
{
  const StrataChannel *channels;
  guint n_channels;
  const char *own[2] = { NULL, NULL };

  g_return_val_if_fail (self != NULL && activity != NULL, NULL);

  /* Only the top-level buffer's events are looked in. */
  channels = strata_trace_get_channels (trace, &n_channels);
  if (activity->channel < n_channels && channels[activity->channel].instance != 0)
    return NULL;

  switch (activity->kind)
    {
    case STRATA_ACTIVITY_EVENT:
    case STRATA_ACTIVITY_WAKEUP:
    case STRATA_ACTIVITY_SAMPLE:
      own[0] = strata_trace_get_string (trace, activity->label);
      return strata_event_fields_lookup (self, cpu, activity->start, own);

    case STRATA_ACTIVITY_IRQ:
      return strata_event_fields_lookup (self, cpu, activity->start, irq_names);

    case STRATA_ACTIVITY_SOFTIRQ:
      return strata_event_fields_lookup (self, cpu, activity->start, softirq_names);

    case STRATA_ACTIVITY_TASK:
    case STRATA_ACTIVITY_IDLE:
      return strata_event_fields_lookup (self, cpu, activity->start, switch_names);

    case STRATA_ACTIVITY_STATE:
      {
        char *found = strata_event_fields_lookup (self, cpu, activity->start, switch_names);

        /* A state a wakeup or a fork began: whatever happened then. */
        return found != NULL ? found : strata_event_fields_lookup (self, cpu, activity->start, NULL);
      }

    default:
      return NULL;
    }
}
