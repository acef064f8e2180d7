/* strata-event-fields.c
 *
 * See strata-event-fields.h. The file is read again through a source of
 * our own, with the source interface's record streams
 * (strata_source_next_record()): which format it is, how its records are
 * found and how their fields are printed is the plugin's business. How
 * the records are walked here depends only on the streams' shape:
 *
 * A source that finds a time itself (strata_source_seek_record_time(), a
 * file in time order such as the kernel's text) is asked for each look-up
 * and read from there until the time is passed.
 *
 * Streams of one CPU each (a trace.dat) are walked front to back only as
 * far as a look-up needs, and every CHECKPOINT_EVERY-th record's time and
 * position is kept on the way; a look-up at an earlier time seeks back to
 * the checkpoint before it and reads a few records on from there. So a
 * screen of rows costs a few dozen records per CPU, and the file is never
 * read twice over the same stretch.
 *
 * One stream of every CPU's records (a perf.data, in file order, which
 * is time order for each CPU) is walked the same way, over all CPUs at
 * once: a look-up walks on until a record of its CPU is later, keeping
 * each CPU's checkpoints, and a look-back reads from the checkpoint
 * before it, the other CPUs' records passed over unformatted. A stream
 * whose records are not in time order for each CPU is read once and
 * sorted. An event whose CPU is not known is looked for on every CPU.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-error.h"
#include "strata-event-fields.h"
#include "strata-source.h"

#define CHECKPOINT_EVERY 64

typedef struct
{
  guint64              ts;
  StrataRecordPosition where;
} Checkpoint;

/* One CPU's records, walked: its own stream's, or its part of the one
 * stream of every CPU's. */
typedef struct
{
  gint                 cpu;          /* the stream's */
  GArray              *checkpoints;  /* Checkpoint, in time order */
  guint64              n_records;    /* walked so far */
  guint64              last_ts;      /* of the last record walked */
  StrataRecordPosition last_where;
  gboolean             started;
  gboolean             done;         /* its own stream's records are all walked */

  /* The records of the stretch looked back at last, formatted: the rows
   * on screen are neighbours, so most look-ups are answered from here.
   * It holds every record with cache_lo < ts < cache_hi. */
  GArray              *cache;        /* Cached */
  gint64               cache_lo;
  guint64              cache_hi;
} CpuWalk;

typedef struct
{
  guint64     ts;
  const char *name;       /* interned */
  char       *fields;
} Cached;

static void
cached_clear (gpointer data)
{
  g_free (((Cached *) data)->fields);
}

static void
cpu_walk_init (CpuWalk *w,
               gint     cpu)
{
  w->cpu = cpu;
  w->checkpoints = g_array_new (FALSE, FALSE, sizeof (Checkpoint));
  w->cache = g_array_new (FALSE, FALSE, sizeof (Cached));
  g_array_set_clear_func (w->cache, cached_clear);
}

static void
cpu_walk_clear (gpointer data)
{
  CpuWalk *w = data;

  g_clear_pointer (&w->checkpoints, g_array_unref);
  g_clear_pointer (&w->cache, g_array_unref);
}

/* A record walked on @w: every CHECKPOINT_EVERY-th is a checkpoint. */
static void
cpu_walk_note (CpuWalk                *w,
               const StrataRecordHead *h)
{
  if (w->n_records % CHECKPOINT_EVERY == 0)
    {
      Checkpoint c = { (guint64) h->ts, h->where };

      g_array_append_val (w->checkpoints, c);
    }
  w->n_records++;
  w->last_ts = (guint64) h->ts;
  w->last_where = h->where;
  w->started = TRUE;
}

static inline guint64
checkpoint_ts (GArray *checkpoints,
               guint   i)
{
  return g_array_index (checkpoints, Checkpoint, i).ts;
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

typedef struct
{
  gint64               ts;
  gint32               cpu;
  guint32              seq;
  const char          *name;
  StrataRecordPosition where;
} MixedIndexEntry;

typedef enum
{
  WALK_BY_TIME,           /* the source finds a time itself */
  WALK_PER_CPU,           /* a stream a CPU */
  WALK_MIXED,             /* one stream of every CPU's records */
} Walk;

struct _StrataEventFields
{
  StrataSource          *source;
  Walk                   walk;
  guint                  n_streams;

  /* WALK_PER_CPU */
  CpuWalk               *cpus;           /* by stream */

  /* WALK_MIXED */
  GArray                *mixed_cpus;     /* CpuWalk, by CPU */
  StrataRecordPosition   mixed_frontier; /* of the first record not walked */
  gboolean               mixed_started;
  gboolean               mixed_done;     /* walked to the end */
  gboolean               mixed_broken;   /* a read failed: no more fields */
  /* Records not in time order per CPU (samples that do not say their
   * CPU): every record's time and position, in time order. */
  gboolean               mixed_unordered;
  GArray                *mixed_index;    /* MixedIndexEntry, or NULL */
};

StrataEventFields *
strata_event_fields_open (const char  *path,
                          GError     **error)
{
  g_autoptr(StrataSource) source = NULL;
  StrataEventFields *self;
  guint n_streams;

  g_return_val_if_fail (path != NULL, NULL);

  source = strata_source_open (path, error);
  if (source == NULL)
    return NULL;
  n_streams = strata_source_get_n_record_streams (source);
  if (n_streams == 0)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED,
                   "%s: its reader cannot read its events again for their fields", path);
      return NULL;
    }

  self = g_new0 (StrataEventFields, 1);
  self->n_streams = n_streams;
  if (strata_source_can_seek_record_time (source))
    self->walk = WALK_BY_TIME;
  else if (strata_source_get_record_stream_cpu (source, 0) >= 0)
    {
      self->walk = WALK_PER_CPU;
      self->cpus = g_new0 (CpuWalk, n_streams);
      for (guint i = 0; i < n_streams; i++)
        cpu_walk_init (&self->cpus[i], strata_source_get_record_stream_cpu (source, i));
    }
  else
    {
      self->walk = WALK_MIXED;
      self->n_streams = 1;
      self->mixed_cpus = g_array_new (FALSE, TRUE, sizeof (CpuWalk));
      g_array_set_clear_func (self->mixed_cpus, cpu_walk_clear);
    }
  self->source = g_steal_pointer (&source);
  return self;
}

void
strata_event_fields_free (StrataEventFields *self)
{
  if (self == NULL)
    return;
  if (self->cpus != NULL)
    for (guint i = 0; i < self->n_streams; i++)
      cpu_walk_clear (&self->cpus[i]);
  g_free (self->cpus);
  g_clear_pointer (&self->mixed_cpus, g_array_unref);
  g_clear_pointer (&self->mixed_index, g_array_unref);
  g_object_unref (self->source);
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

/* A time already walked past on @w: the stretch of its records (in
 * stream @s, those of @cpu, or all of them when @cpu is -1) from the last
 * checkpoint before @ts to the next checkpoint (or to @ts, if further) is
 * read again and kept formatted, then asked. @walked_all: whether the
 * walk on has reached the end, so that a stretch that ends there is
 * complete. *@failed is set when a read failed. */
static char *
look_back (StrataEventFields  *self,
           CpuWalk            *w,
           guint               s,
           gint32              cpu,
           guint64             ts,
           const char * const *names,
           gboolean            walked_all,
           gboolean           *failed)
{
  const StrataRecordPosition *from = NULL;   /* the stream's start */
  guint lo;
  guint64 until;

  if ((gint64) ts > w->cache_lo && ts < w->cache_hi)
    return cache_lookup (w->cache, ts, names);

  lo = checkpoints_before (w->checkpoints, ts);
  until = look_back_until (w->checkpoints, lo, ts);

  g_array_set_size (w->cache, 0);
  w->cache_lo = -1;
  if (lo > 0)
    {
      const Checkpoint *c = &g_array_index (w->checkpoints, Checkpoint, lo - 1);

      from = &c->where;
      w->cache_lo = (gint64) c->ts;
    }
  w->cache_hi = 0;
  if (!strata_source_seek_record (self->source, s, from, NULL))
    {
      *failed = TRUE;
      return NULL;
    }

  w->cache_hi = G_MAXUINT64;
  for (;;)
    {
      g_autoptr(GError) error = NULL;
      StrataRecordHead h;
      Cached c;

      if (!strata_source_next_record (self->source, &h, &error))
        {
          if (error != NULL)
            *failed = TRUE;
          break;
        }
      if (cpu >= 0 && h.cpu != cpu)
        continue;
      if ((guint64) h.ts > until)
        {
          w->cache_hi = (guint64) h.ts;
          break;
        }
      c.ts = (guint64) h.ts;
      c.name = h.name;
      c.fields = strata_source_format_record (self->source);
      g_array_append_val (w->cache, c);
    }
  /* A read that failed midway keeps nothing it cannot vouch for. */
  if (w->cache_hi == G_MAXUINT64 && (!walked_all || *failed))
    w->cache_hi = w->cache->len > 0 ? g_array_index (w->cache, Cached, w->cache->len - 1).ts : 0;

  return cache_lookup (w->cache, ts, names);
}

/* By time ---------------------------------------------------------------- */

static char *
time_lookup (StrataEventFields  *self,
             gint32              cpu,
             gint64              ts,
             const char * const *names)
{
  for (guint s = 0; s < self->n_streams; s++)
    {
      StrataRecordHead h;

      if (!strata_source_seek_record_time (self->source, s, ts, NULL))
        continue;
      while (strata_source_next_record (self->source, &h, NULL))
        {
          if (h.ts > ts)
            break;
          if (h.ts == ts && (cpu < 0 || h.cpu == cpu) && name_matches (h.name, names))
            return strata_source_format_record (self->source);
        }
    }
  return NULL;
}

/* A stream a CPU --------------------------------------------------------- */

/* Walks stream @s on until a record is later than @ts, keeping
 * checkpoints; a record at @ts that matches is the answer. */
static char *
walk_on (StrataEventFields  *self,
         guint               s,
         guint64             ts,
         const char * const *names)
{
  CpuWalk *w = &self->cpus[s];
  StrataRecordHead h;
  gboolean more;
  char *found = NULL;

  if (!w->started)
    more = strata_source_seek_record (self->source, s, NULL, NULL);
  else
    /* From the last record walked, read again first and passed. */
    more = strata_source_seek_record (self->source, s, &w->last_where, NULL) &&
           strata_source_next_record (self->source, &h, NULL);
  w->started = TRUE;

  while (more && strata_source_next_record (self->source, &h, NULL))
    {
      cpu_walk_note (w, &h);
      if ((guint64) h.ts == ts && found == NULL && name_matches (h.name, names))
        found = strata_source_format_record (self->source);
      if ((guint64) h.ts > ts)
        return found;
    }
  w->done = TRUE;
  return found;
}

static char *
per_cpu_lookup (StrataEventFields  *self,
                gint32              cpu,
                gint64              ts,
                const char * const *names)
{
  for (guint s = 0; s < self->n_streams; s++)
    {
      CpuWalk *w = &self->cpus[s];
      char *found;

      if (cpu >= 0 && cpu != w->cpu)
        continue;
      if (!w->done && (!w->started || (guint64) ts > w->last_ts))
        found = walk_on (self, s, (guint64) ts, names);
      else
        {
          gboolean failed = FALSE;

          found = look_back (self, w, s, -1, (guint64) ts, names, w->done, &failed);
        }
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* One stream of every CPU's records -------------------------------------- */

static CpuWalk *
mixed_cpu (StrataEventFields *self,
           gint32             cpu)
{
  CpuWalk *w;

  if (cpu < 0 || cpu >= 8192)
    return NULL;
  if ((guint) cpu >= self->mixed_cpus->len)
    g_array_set_size (self->mixed_cpus, cpu + 1);
  w = &g_array_index (self->mixed_cpus, CpuWalk, cpu);
  if (w->checkpoints == NULL)
    cpu_walk_init (w, cpu);
  return w;
}

/* Walks the records on from where the last walk stopped until one of
 * @cpu is later than @ts, keeping every CPU's checkpoints. */
static char *
mixed_walk_on (StrataEventFields  *self,
               gint32              cpu,
               gint64              ts,
               const char * const *names)
{
  char *found = NULL;

  if (self->mixed_started && !strata_source_seek_record (self->source, 0, &self->mixed_frontier, NULL))
    {
      self->mixed_broken = TRUE;
      return NULL;
    }

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      StrataRecordHead h;
      CpuWalk *w;

      if (!strata_source_next_record (self->source, &h, &error))
        {
          if (error != NULL)
            self->mixed_broken = TRUE;
          self->mixed_done = TRUE;
          self->mixed_started = TRUE;
          break;
        }
      self->mixed_started = TRUE;
      w = mixed_cpu (self, h.cpu);
      if (h.cpu < 0 || (w != NULL && w->started && (guint64) h.ts < w->last_ts))
        {
          /* The walk cannot stop at a later record: see mixed_index_build(). */
          self->mixed_unordered = TRUE;
          g_clear_pointer (&found, g_free);
          return NULL;
        }
      if (h.cpu == cpu && h.ts > ts)
        {
          self->mixed_frontier = h.where;
          break;
        }
      if (w == NULL)
        continue;
      cpu_walk_note (w, &h);
      if (h.cpu == cpu && h.ts == ts && found == NULL && name_matches (h.name, names))
        found = strata_source_format_record (self->source);
    }
  return found;
}

static int
index_entry_cmp (gconstpointer a,
                 gconstpointer b)
{
  const MixedIndexEntry *x = a, *y = b;

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
mixed_index_build (StrataEventFields *self)
{
  StrataRecordHead h;
  guint32 seq = 0;

  self->mixed_index = g_array_new (FALSE, FALSE, sizeof (MixedIndexEntry));
  if (self->mixed_started && !strata_source_seek_record (self->source, 0, NULL, NULL))
    {
      self->mixed_broken = TRUE;
      return;
    }
  while (strata_source_next_record (self->source, &h, NULL))
    {
      /* A record that does not say its CPU is looked for as CPU 0's. */
      MixedIndexEntry e = { h.ts, MAX (h.cpu, 0), seq++, h.name, h.where };

      g_array_append_val (self->mixed_index, e);
    }
  g_array_sort (self->mixed_index, index_entry_cmp);
}

static char *
mixed_index_lookup (StrataEventFields  *self,
                    gint32              cpu,
                    gint64              ts,
                    const char * const *names)
{
  guint lo = 0, hi;

  if (self->mixed_index == NULL)
    mixed_index_build (self);
  if (self->mixed_broken)
    return NULL;
  hi = self->mixed_index->len;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (g_array_index (self->mixed_index, MixedIndexEntry, mid).ts < ts)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (; lo < self->mixed_index->len; lo++)
    {
      const MixedIndexEntry *e = &g_array_index (self->mixed_index, MixedIndexEntry, lo);
      StrataRecordHead h;

      if (e->ts != ts)
        break;
      if ((cpu >= 0 && e->cpu != cpu) || !name_matches (e->name, names))
        continue;
      if (!strata_source_seek_record (self->source, 0, &e->where, NULL) ||
          !strata_source_next_record (self->source, &h, NULL))
        {
          self->mixed_broken = TRUE;
          return NULL;
        }
      return strata_source_format_record (self->source);
    }
  return NULL;
}

static char *
mixed_lookup (StrataEventFields  *self,
              gint32              cpu,
              gint64              ts,
              const char * const *names)
{
  CpuWalk *w;
  gboolean failed = FALSE;
  char *found;

  if (self->mixed_broken)
    return NULL;
  if (self->mixed_unordered)
    return mixed_index_lookup (self, cpu, ts, names);
  if (cpu < 0)
    {
      /* On every CPU: the file's count, or those seen. */
      guint n = MAX (strata_source_get_info (self->source)->n_cpus, self->mixed_cpus->len);

      for (guint c = 0; c < n && !self->mixed_broken; c++)
        {
          found = mixed_lookup (self, (gint32) c, ts, names);
          if (found != NULL)
            return found;
        }
      return NULL;
    }

  w = mixed_cpu (self, cpu);
  if (w == NULL)
    return NULL;
  if (!self->mixed_done && (!w->started || (guint64) ts > w->last_ts))
    {
      found = mixed_walk_on (self, cpu, ts, names);
      return self->mixed_unordered ? mixed_index_lookup (self, cpu, ts, names) : found;
    }
  if (!w->started)
    return NULL;
  found = look_back (self, w, 0, cpu, (guint64) ts, names,
                     self->mixed_done && !self->mixed_broken, &failed);
  if (failed)
    self->mixed_broken = TRUE;
  return found;
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
  switch (self->walk)
    {
    case WALK_BY_TIME:
      return time_lookup (self, cpu, ts, names);
    case WALK_PER_CPU:
      return per_cpu_lookup (self, cpu, ts, names);
    case WALK_MIXED:
    default:
      return mixed_lookup (self, cpu, ts, names);
    }
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
