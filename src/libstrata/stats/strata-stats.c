/* strata-stats.c
 *
 * One walk over the activities. Percentiles use the nearest-rank method
 * (the smallest sample with at least p% of the samples at or below it), as
 * `perf sched latency`-style reports do, so p100 is the maximum. The
 * wakeup latencies are kept for them, in memory up to a budget and in an
 * unlinked spill file past it; those that do not fit the budget at the
 * end are selected from where they are rather than sorted. When a thread
 * exits (its channel is closed) its sums are final: its row to be, with
 * its percentiles, goes to a second spill file and its latencies to the
 * first, so what the builder holds follows the threads alive, not all the
 * threads a trace ever had; finish() reads the rows back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strata-radix-sort.h"
#include "strata-spill-file.h"
#include "strata-stats.h"
#include "strata-thread-rows.h"
#include "strata-trace-lookup.h"
#include "strata-trace-private.h"

/* Durations sorted by base/'s radix sort (qsort() was a tenth of `stats`
 * on a 5M-event trace): they are rarely wider than 33 bits, three passes.
 * The key flips the sign bit, so that a negative one (a damaged trace's)
 * still sorts first. */
#define duration_key(v) ((guint64) *(v) ^ G_GUINT64_CONSTANT (0x8000000000000000))
STRATA_DEFINE_RADIX_SORT (sort_durations, gint64, duration_key)

/* The 0-based place in the sorted samples of the nearest rank for @p. */
static guint
nearest_rank_index (guint  n,
                    double p)
{
  guint rank = (guint) ceil (p / 100.0 * n);

  if (rank == 0)
    rank = 1;
  return MIN (rank, n) - 1;
}

static gint64
nearest_rank (const gint64 *sorted,
              guint         n,
              double        p)
{
  return sorted[nearest_rank_index (n, p)];
}

/* Sorts @samples in place. */
void
strata_latency_from_samples (StrataLatency *latency,
                             gint64        *samples,
                             guint          n_samples)
{
  /* memset, not a compound literal: the padding after count goes to disk
   * with the thread rows (the index), and must be zero to be the same. */
  memset (latency, 0, sizeof *latency);

  if (n_samples == 0)
    return;

  sort_durations (samples, n_samples);
  latency->count = n_samples;
  latency->p50 = nearest_rank (samples, n_samples, 50);
  latency->p90 = nearest_rank (samples, n_samples, 90);
  latency->p99 = nearest_rank (samples, n_samples, 99);
  latency->max = samples[n_samples - 1];
}

static int
compare_cpus (const void *a,
              const void *b)
{
  const StrataCpuStats *x = a;
  const StrataCpuStats *y = b;

  if (x->instance != y->instance)
    return x->instance < y->instance ? -1 : 1;
  if (x->cpu != y->cpu)
    return x->cpu < y->cpu ? -1 : 1;
  return x->channel < y->channel ? -1 : x->channel > y->channel;
}

/* The kinds a CPU row's time is summed by: TASK, IDLE, IRQ, SOFTIRQ and
 * UNKNOWN (a thread row's STATE time is summed by state). */
#define N_CPU_KINDS (STRATA_ACTIVITY_UNKNOWN + 1)

G_STATIC_ASSERT (STRATA_ACTIVITY_TASK < N_CPU_KINDS && STRATA_ACTIVITY_IDLE < N_CPU_KINDS &&
                 STRATA_ACTIVITY_IRQ < N_CPU_KINDS && STRATA_ACTIVITY_SOFTIRQ < N_CPU_KINDS);

/* What a channel's row is made of; its kind is only looked at in
 * finish(), since channels are still being created while activities
 * stream in. */
typedef struct
{
  gint64   by_kind[N_CPU_KINDS];
  gint64   by_state[STRATA_N_TASK_STATES];
  guint64  switches_in;
} Totals;

typedef enum
{
  CHANNEL_UNSEEN,
  CHANNEL_OPEN,
  CHANNEL_CLOSED,
} ChannelLife;

/* What one channel accumulated while it is open. Its wakeup latencies
 * are kept (the percentiles are exact): the last ones in memory, the
 * others in runs in the builder's samples log, each run's header naming
 * the one before, so the builder keeps only the newest. */
typedef struct
{
  Totals   totals;
  gint64  *samples;     /* in memory */
  guint32  n_samples;
  guint32  alloc;
  guint64  last_run;    /* its newest run's place in the samples log + 1, 0: none */
  guint64  n_spilled;
  guint32  holding;     /* index + 1 in the builder's holding list, 0: not there */
  guint8   life;        /* ChannelLife */
} ChannelSums;

/* A closed channel's row to be: its totals and its wakeup percentiles,
 * final when it closed, in the builder's rows log until finish(). */
typedef struct
{
  guint32       channel;
  guint32       zero;           /* written as zero, like all padding here */
  Totals        totals;
  StrataLatency wakeup;
} ClosedSums;

/* A run of samples in the samples log: this header, then the samples. */
typedef struct
{
  guint64 head;         /* the count << 32 | the channel */
  guint64 prev;         /* the channel's run before it: its place + 1, 0: none */
} RunHeader;

#define RUN_HEADER_UNITS (sizeof (RunHeader) / sizeof (gint64))

/* An append-only log in an unlinked spill file, its newest bytes in a
 * memory tail that goes to the file when it is a chunk long. Without a
 * file (none could be made, or a write failed) the tail keeps growing
 * instead: slower to live with, never wrong. */
typedef struct
{
  int      fd;          /* -1 until the first write */
  gboolean failed;
  guint64  size;        /* bytes appended */
  guint64  on_disk;     /* of them, those in the file */
  guint8  *tail;        /* size - on_disk bytes */
  gsize    tail_alloc;
} SpillLog;

#define LOG_CHUNK (64u << 10)

/* The bytes of latencies the builder keeps in memory before it writes
 * them all to its samples log (STRATA_STATS_LATENCY_BUDGET in the
 * environment says otherwise): every wakeup's latency is kept for the
 * exact percentiles, 32 MB on 20M generated events, and three times that
 * while they were sorted at the end. */
#define LATENCY_BUDGET (G_GUINT64_CONSTANT (2) << 20)

/* The bytes of thread rows strata_stats_builder_finish_to_rows() holds
 * in memory (STRATA_STATS_ROWS_BUDGET says otherwise): 74 898 rows a run
 * in its spill file. */
#define ROWS_BUDGET (G_GUINT64_CONSTANT (8) << 20)

/* Channels' sums per page: a table of them all was doubled as it grew
 * (16.8 MB for the 48 742 threads of 20M generated events). A page goes
 * once every channel seen on it is closed and the channels being seen
 * are past it, so only the pages of threads still alive stay. A page is
 * small (64 channels, 10.7 kB) because one thread alive keeps its whole
 * page: following a recording of `perf bench sched messaging` in a loop,
 * pages of 1 024 channels (172 kB) were kept for half of them (92 bytes
 * a channel ever made); pages of 64, for one in ten (17 bytes;
 * bench/RESULTS-live.md, livemem). */
#define SUMS_PAGE_BITS 6
#define SUMS_PAGE      (1u << SUMS_PAGE_BITS)

#define BUF_SAMPLES 8192

struct _StrataStatsBuilder
{
  gboolean      debug_memory; /* say what it held at its finish */
  ChannelSums **pages;  /* SUMS_PAGE each, NULL until a channel of it is seen */
  guint32      *open_in_page; /* per page: its channels seen and not closed */
  guint         n_pages;
  guint         n_live_pages;
  guint         n_sums; /* one past the highest channel seen */
  guint64      *closed; /* a bit per channel: its sums are in the rows log */
  guint         n_closed_words;
  guint64       n_closed;
  guint32      *holding;  /* the open channels with samples in memory */
  guint32       n_holding;
  guint32       holding_alloc;
  guint64  budget;
  guint64  rows_budget; /* bytes of thread rows finish_to_rows() holds */
  guint64  resident;    /* bytes of samples in memory, as allocated */
  guint64  peak_resident;
  guint64  peak_heap;
  guint64  n_spills;
  SpillLog samples;     /* runs: a RunHeader, then the samples */
  SpillLog rows;        /* ClosedSums */
  gint64  *buf;         /* BUF_SAMPLES, to read the logs back; made on demand */
};

static void
spill_log_init (SpillLog *log)
{
  memset (log, 0, sizeof *log);
  log->fd = -1;
}

static void
spill_log_clear (SpillLog *log)
{
  g_clear_pointer (&log->tail, g_free);
  log->tail_alloc = 0;
  if (log->fd >= 0)
    close (log->fd);
  spill_log_init (log);
}

/* [@data, @data + @size) to the end of the file; FALSE, and the log
 * keeps its tail in memory from now on, if there is no file for it. */
static gboolean
spill_log_write (SpillLog     *log,
                 const guint8 *data,
                 gsize         size)
{
  if (log->failed)
    return FALSE;
  if (log->fd < 0)
    {
      g_autoptr(GError) error = NULL;

      log->fd = strata_spill_file_open (&error);
      if (log->fd < 0)
        {
          g_debug ("stats: kept in memory: %s", error->message);
          log->failed = TRUE;
          return FALSE;
        }
    }
  if (!strata_file_write_all (log->fd, data, size, log->on_disk))
    {
      g_debug ("stats: kept in memory: %s", g_strerror (errno));
      log->failed = TRUE;
      return FALSE;
    }
  log->on_disk += size;
  return TRUE;
}

static void
spill_log_append (SpillLog     *log,
                  gconstpointer data,
                  gsize         size)
{
  gsize in_tail = (gsize) (log->size - log->on_disk);

  if (!log->failed && in_tail + size > LOG_CHUNK)
    {
      if (in_tail > 0 && spill_log_write (log, log->tail, in_tail))
        in_tail = 0;
      /* A long run (an open channel's samples at a spill) goes straight
       * to the file rather than through the tail. */
      if (in_tail == 0 && size >= LOG_CHUNK && spill_log_write (log, data, size))
        {
          log->size += size;
          return;
        }
    }
  if (in_tail + size > log->tail_alloc)
    {
      log->tail_alloc = MAX (MAX (2 * log->tail_alloc, in_tail + size), 4096);
      log->tail = g_realloc (log->tail, log->tail_alloc);
    }
  memcpy (log->tail + in_tail, data, size);
  log->size += size;
}

/* [@offset, @offset + @size) of what was appended, from the file or the
 * tail; FALSE if the file failed us. */
static gboolean
spill_log_read (SpillLog *log,
                guint64   offset,
                gpointer  data,
                gsize     size)
{
  guint8 *out = data;

  g_assert (offset + size <= log->size);

  if (offset < log->on_disk)
    {
      gsize k = (gsize) MIN ((guint64) size, log->on_disk - offset);

      if (!strata_file_read_all (log->fd, out, k, offset))
        return FALSE;
      out += k;
      offset += k;
      size -= k;
    }
  if (size > 0)
    memcpy (out, log->tail + (offset - log->on_disk), size);
  return TRUE;
}

StrataStatsBuilder *
strata_stats_builder_new (void)
{
  g_auto(StrataParameters) parameters;

  strata_parameters_init_from_environment (&parameters);
  return strata_stats_builder_new_with_parameters (&parameters);
}

/**
 * strata_stats_builder_new_with_parameters:
 * @parameters: the latencies' memory budget, and whether to say what the
 *   builder held at its finish
 */
StrataStatsBuilder *
strata_stats_builder_new_with_parameters (const StrataParameters *parameters)
{
  StrataStatsBuilder *self = g_new0 (StrataStatsBuilder, 1);

  self->budget = strata_parameter_or (parameters->latency_budget, LATENCY_BUDGET);
  self->rows_budget = strata_parameter_or (parameters->stats_rows_budget, ROWS_BUDGET);
  self->debug_memory = parameters->debug_memory;
  spill_log_init (&self->samples);
  spill_log_init (&self->rows);

  return self;
}

/* Everything the builder keeps while activities stream in: given back
 * at the end of finish() and when it is freed. */
static void
free_build_state (StrataStatsBuilder *self)
{
  for (guint p = 0; p < self->n_pages; p++)
    {
      if (self->pages[p] == NULL)
        continue;
      for (guint i = 0; i < SUMS_PAGE; i++)
        g_free (self->pages[p][i].samples);
      g_free (self->pages[p]);
    }
  g_clear_pointer (&self->pages, g_free);
  g_clear_pointer (&self->open_in_page, g_free);
  self->n_pages = self->n_live_pages = 0;
  self->n_sums = 0;
  g_clear_pointer (&self->closed, g_free);
  self->n_closed_words = 0;
  g_clear_pointer (&self->holding, g_free);
  self->n_holding = self->holding_alloc = 0;
  self->resident = 0;
  spill_log_clear (&self->samples);
  spill_log_clear (&self->rows);
  g_clear_pointer (&self->buf, g_free);
}

void
strata_stats_builder_free (StrataStatsBuilder *self)
{
  if (self == NULL)
    return;

  free_build_state (self);
  g_free (self);
}

/**
 * strata_stats_builder_set_latency_budget:
 * @bytes: what the wakeup latencies of open channels may take in memory
 *   (G_MAXUINT64: all)
 *
 * Past it, every channel's latencies in memory go to a spill file; the
 * results are the same. A closed channel's go there when it closes.
 */
void
strata_stats_builder_set_latency_budget (StrataStatsBuilder *self,
                                         guint64             bytes)
{
  g_return_if_fail (self != NULL);

  self->budget = bytes;
}

/**
 * strata_stats_builder_get_latency_bytes:
 * @peak: (out) (optional): the most they took, as allocated
 * @n_spills: (out) (optional): how many times they were written out
 *
 * Returns: the bytes the latencies in memory take now, as allocated
 */
guint64
strata_stats_builder_get_latency_bytes (StrataStatsBuilder *self,
                                        guint64            *peak,
                                        guint64            *n_spills)
{
  g_return_val_if_fail (self != NULL, 0);

  if (peak != NULL)
    *peak = self->peak_resident;
  if (n_spills != NULL)
    *n_spills = self->n_spills;
  return self->resident;
}

/**
 * strata_stats_builder_get_heap_bytes:
 * @peak: (out) (optional): the most it held since it was made
 * @n_closed: (out) (optional): how many channels were closed while open
 *
 * Everything the builder holds on the heap as allocated (not counting
 * the allocator's own overhead): the open channels' sums and their
 * pages, latencies in memory, the list of those, the logs' tails and the
 * bit per closed channel.
 *
 * Returns: the bytes it holds now
 */
guint64
strata_stats_builder_get_heap_bytes (StrataStatsBuilder *self,
                                     guint64            *peak,
                                     guint64            *n_closed)
{
  guint64 bytes;

  g_return_val_if_fail (self != NULL, 0);

  bytes = sizeof *self;
  bytes += (guint64) self->n_pages * (sizeof (ChannelSums *) + sizeof (guint32));
  bytes += (guint64) self->n_live_pages * SUMS_PAGE * sizeof (ChannelSums);
  bytes += (guint64) self->n_closed_words * sizeof (guint64);
  bytes += (guint64) self->holding_alloc * sizeof (guint32);
  bytes += self->resident;
  bytes += self->samples.tail_alloc + self->rows.tail_alloc;
  if (self->buf != NULL)
    bytes += BUF_SAMPLES * sizeof (gint64);

  if (peak != NULL)
    *peak = MAX (self->peak_heap, bytes);
  if (n_closed != NULL)
    *n_closed = self->n_closed;
  return bytes;
}

static void
note_heap (StrataStatsBuilder *self)
{
  self->peak_heap = MAX (self->peak_heap, strata_stats_builder_get_heap_bytes (self, NULL, NULL));
}

static gint64 *
read_buffer (StrataStatsBuilder *self)
{
  if (self->buf == NULL)
    {
      self->buf = g_new (gint64, BUF_SAMPLES);
      note_heap (self);
    }
  return self->buf;
}

static gboolean
is_closed (StrataStatsBuilder *self,
           guint32             channel)
{
  guint w = channel / 64;

  return w < self->n_closed_words && (self->closed[w] >> (channel % 64)) & 1;
}

static void
mark_closed (StrataStatsBuilder *self,
             guint32             channel)
{
  guint w = channel / 64;

  if (w >= self->n_closed_words)
    {
      guint n = MAX (MAX (2 * self->n_closed_words, 16), w + 1);

      self->closed = g_renew (guint64, self->closed, n);
      memset (self->closed + self->n_closed_words, 0, (n - self->n_closed_words) * sizeof (guint64));
      self->n_closed_words = n;
      note_heap (self);
    }
  self->closed[w] |= G_GUINT64_CONSTANT (1) << (channel % 64);
  self->n_closed++;
}

/* Page @p goes when no channel of it is open and the channels being seen
 * now are past it (one of its channels seen later makes it again). */
static void
release_page (StrataStatsBuilder *self,
              guint               p)
{
  if (p >= self->n_pages || self->pages[p] == NULL || self->open_in_page[p] != 0 ||
      ((guint64) p + 1) << SUMS_PAGE_BITS > self->n_sums)
    return;

  for (guint i = 0; i < SUMS_PAGE; i++)
    g_assert (self->pages[p][i].samples == NULL);
  g_clear_pointer (&self->pages[p], g_free);
  self->n_live_pages--;
}

/* The sums of @channel, made (zero) when @make; NULL if there are none. */
static ChannelSums *
sums_of (StrataStatsBuilder *self,
         guint32             channel,
         gboolean            make)
{
  guint p = channel >> SUMS_PAGE_BITS;

  if (p >= self->n_pages || self->pages[p] == NULL)
    {
      if (!make)
        return NULL;
      if (p >= self->n_pages)
        {
          guint n = MAX (MAX (2 * self->n_pages, 16), p + 1);

          self->pages = g_renew (ChannelSums *, self->pages, n);
          self->open_in_page = g_renew (guint32, self->open_in_page, n);
          memset (self->pages + self->n_pages, 0, (n - self->n_pages) * sizeof (ChannelSums *));
          memset (self->open_in_page + self->n_pages, 0, (n - self->n_pages) * sizeof (guint32));
          self->n_pages = n;
        }
      self->pages[p] = g_new0 (ChannelSums, SUMS_PAGE);
      self->n_live_pages++;
      note_heap (self);
    }
  if (make && channel >= self->n_sums)
    {
      guint last = self->n_sums > 0 ? (self->n_sums - 1) >> SUMS_PAGE_BITS : 0;

      self->n_sums = channel + 1;
      /* The model numbers channels as it meets them: the page before is
       * behind now, and may have only closed channels. */
      if (p > last)
        release_page (self, last);
    }
  return &self->pages[p][channel & (SUMS_PAGE - 1)];
}

static void
hold (StrataStatsBuilder *self,
      guint32             channel,
      ChannelSums        *sums)
{
  if (self->n_holding == self->holding_alloc)
    {
      self->holding_alloc = MAX (64, 2 * self->holding_alloc);
      self->holding = g_renew (guint32, self->holding, self->holding_alloc);
      note_heap (self);
    }
  self->holding[self->n_holding++] = channel;
  sums->holding = self->n_holding;
}

static void
unhold (StrataStatsBuilder *self,
        ChannelSums        *sums)
{
  guint32 i, last;

  g_assert (sums->holding != 0 && sums->holding <= self->n_holding);
  i = sums->holding - 1;
  last = self->holding[--self->n_holding];
  if (i < self->n_holding)
    {
      self->holding[i] = last;
      sums_of (self, last, FALSE)->holding = i + 1;
    }
  sums->holding = 0;
}

/* @n samples of @channel to the samples log, after their header, which
 * names @prev, the run before; the place of that header + 1. */
static guint64
log_samples (StrataStatsBuilder *self,
             guint32             channel,
             const gint64       *v,
             guint32             n,
             guint64             prev)
{
  RunHeader header = { (guint64) n << 32 | channel, prev };
  guint64 place = self->samples.size;

  spill_log_append (&self->samples, &header, sizeof header);
  spill_log_append (&self->samples, v, (gsize) n * sizeof (gint64));
  note_heap (self);
  return place + 1;
}

/* A channel's samples in memory to the samples log, as one more of its
 * runs; they leave memory. */
static void
spill_channel (StrataStatsBuilder *self,
               guint32             channel,
               ChannelSums        *sums)
{
  sums->last_run = log_samples (self, channel, sums->samples, sums->n_samples, sums->last_run);
  sums->n_spilled += sums->n_samples;
  self->resident -= (guint64) sums->alloc * sizeof (gint64);
  g_clear_pointer (&sums->samples, g_free);
  sums->n_samples = sums->alloc = 0;
}

/* Every open channel's latencies in memory to the samples log, a run
 * each. Without a file for the log, they stay where they are. */
static void
spill_latencies (StrataStatsBuilder *self)
{
  if (self->samples.failed)
    return;

  for (guint i = 0; i < self->n_holding; i++)
    {
      ChannelSums *sums = sums_of (self, self->holding[i], FALSE);

      spill_channel (self, self->holding[i], sums);
      sums->holding = 0;
    }
  self->n_holding = 0;
  self->n_spills++;
}

static void
add_latency (StrataStatsBuilder *self,
             guint32             channel,
             ChannelSums        *sums,
             gint64              d)
{
  if (sums->n_samples == sums->alloc)
    {
      guint32 alloc = MAX (4, 2 * sums->alloc);

      if (sums->n_samples == 0)
        hold (self, channel, sums);
      sums->samples = g_renew (gint64, sums->samples, alloc);
      self->resident += (guint64) (alloc - sums->alloc) * sizeof (gint64);
      sums->alloc = alloc;
      self->peak_resident = MAX (self->peak_resident, self->resident);
      note_heap (self);
    }
  sums->samples[sums->n_samples++] = d;

  if (self->resident > self->budget && !self->samples.failed)
    spill_latencies (self);
}

/* The first activity of @channel, whose sums are @sums: it is open now.
 * FALSE for one that was closed already, which gets no more. */
static gboolean
open_channel (StrataStatsBuilder *self,
              guint32             channel,
              ChannelSums        *sums)
{
  guint p = channel >> SUMS_PAGE_BITS;

  if (sums->life == CHANNEL_CLOSED || is_closed (self, channel))
    {
      g_critical ("stats: an activity of channel %u after it was closed", channel);
      release_page (self, p);
      return FALSE;
    }
  sums->life = CHANNEL_OPEN;
  self->open_in_page[p]++;
  return TRUE;
}

/**
 * strata_stats_builder_add:
 * @activity: an activity
 * @builder: a #StrataStatsBuilder
 *
 * Accounts one activity. The signature is a #StrataActivityFunc, so a
 * builder can be the sink of a loader (strata_loader_set_sink()).
 */
void
strata_stats_builder_add (const StrataActivity *activity,
                          gpointer              builder)
{
  StrataStatsBuilder *self = builder;
  gint64 d = activity->end - activity->start;
  ChannelSums *sums;

  sums = sums_of (self, activity->channel, TRUE);
  if (G_UNLIKELY (sums->life != CHANNEL_OPEN) && !open_channel (self, activity->channel, sums))
    return;

  if (activity->kind >= STRATA_N_ACTIVITY_KINDS)
    return;
  if (activity->kind < N_CPU_KINDS)
    sums->totals.by_kind[activity->kind] += d;

  if (activity->kind != STRATA_ACTIVITY_STATE || activity->state >= STRATA_N_TASK_STATES)
    return;
  sums->totals.by_state[activity->state] += d;

  if (activity->state == STRATA_TASK_STATE_RUNNING &&
      !(activity->flags & STRATA_ACTIVITY_FLAG_START_UNSEEN))
    sums->totals.switches_in++;

  /* A wakeup latency is a WOKEN interval that ended with the thread
   * switched in, not one cut by the trace's end or by missing events. */
  if (activity->state == STRATA_TASK_STATE_WOKEN &&
      !(activity->flags & (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST)))
    add_latency (self, activity->channel, sums, d);
}

/* A set of latencies to read: the runs of some open channels (each
 * chain from its newest run back) or the whole samples log (the runs of
 * thread channels in it), then samples in memory. */
typedef struct
{
  StrataStatsBuilder  *builder;
  guint                n_chains;
  const guint64       *chains;      /* n_chains newest runs (place + 1, 0: none) */
  const StrataChannel *channels;    /* not NULL: the whole log, these channels' threads */
  guint                n_channels;
  guint                n_mem;
  const gint64       **mem;         /* n_mem arrays of mem_len[i] samples */
  const guint32       *mem_len;
  gboolean             failed;
  StrataTrace         *trace;       /* whose channels those are, let go of as the log is read */
} SampleSet;

typedef void (*SampleFunc) (const gint64 *v,
                            gsize         n,
                            gpointer      data);

static void
read_span (SampleSet  *set,
           guint64     offset,
           guint64     n,
           SampleFunc  func,
           gpointer    data)
{
  gint64 *buf = read_buffer (set->builder);

  while (n > 0 && !set->failed)
    {
      gsize k = (gsize) MIN (n, (guint64) BUF_SAMPLES);

      if (!spill_log_read (&set->builder->samples, offset, buf, k * sizeof (gint64)))
        {
          set->failed = TRUE;
          return;
        }
      func (buf, k, data);
      offset += k * sizeof (gint64);
      n -= k;
    }
}

/* The whole samples log front to back, the runs of @set's thread
 * channels handed to @func. */
static void
read_log (SampleSet  *set,
          SampleFunc  func,
          gpointer    data)
{
  SpillLog *log = &set->builder->samples;
  gint64 *buf = read_buffer (set->builder);
  guint64 offset = 0, left = 0;
  guint header_left = 0;        /* of the units after a run's first */
  gboolean keep = FALSE;

  while (offset < log->size && !set->failed)
    {
      gsize k = (gsize) MIN ((log->size - offset) / sizeof (gint64), (guint64) BUF_SAMPLES);
      gsize pos = 0;

      if (!spill_log_read (log, offset, buf, k * sizeof (gint64)))
        {
          set->failed = TRUE;
          return;
        }
      while (pos < k)
        {
          gsize take;

          if (header_left > 0)
            {
              pos++;
              header_left--;
              continue;
            }
          if (left == 0)
            {
              /* A run's header: its first unit is the head. */
              guint64 head = (guint64) buf[pos++];
              guint32 channel = (guint32) head;

              left = head >> 32;
              header_left = RUN_HEADER_UNITS - 1;
              keep = channel < set->n_channels && set->channels[channel].kind == STRATA_CHANNEL_THREAD;
              continue;
            }
          take = (gsize) MIN (left, (guint64) (k - pos));
          if (keep)
            func (buf + pos, take, data);
          pos += take;
          left -= take;
        }
      offset += k * sizeof (gint64);
      if (set->trace != NULL)
        strata_trace_let_go_channels (set->trace);
    }
}

static void
sample_set_foreach (SampleSet  *set,
                    SampleFunc  func,
                    gpointer    data)
{
  if (set->channels != NULL)
    read_log (set, func, data);
  for (guint c = 0; c < set->n_chains && !set->failed; c++)
    for (guint64 r = set->chains[c]; r != 0 && !set->failed; )
      {
        RunHeader header;

        if (!spill_log_read (&set->builder->samples, r - 1, &header, sizeof header))
          {
            set->failed = TRUE;
            break;
          }
        read_span (set, r - 1 + sizeof header, header.head >> 32, func, data);
        r = header.prev;
      }
  for (guint i = 0; i < set->n_mem; i++)
    if (set->mem_len[i] > 0)
      func (set->mem[i], set->mem_len[i], data);
}

/* Signed to unsigned with the order kept. */
static inline guint64
order_key (gint64 v)
{
  return (guint64) v ^ (G_GUINT64_CONSTANT (1) << 63);
}

typedef struct
{
  guint64 min, max;
} Extent;

static void
extent_of (const gint64 *v,
           gsize         n,
           gpointer      data)
{
  Extent *e = data;

  for (gsize i = 0; i < n; i++)
    {
      guint64 u = order_key (v[i]);

      e->min = MIN (e->min, u);
      e->max = MAX (e->max, u);
    }
}

#define SELECT_TARGETS 3
#define DIGIT_SELECT   12

typedef struct
{
  guint    depth;                 /* leading bits known, the same for all targets */
  guint    bits;                  /* of this pass's digit */
  guint64  prefix[SELECT_TARGETS];
  guint64 *hist[SELECT_TARGETS];
} Selection;

static void
count_digits (const gint64 *v,
              gsize         n,
              gpointer      data)
{
  Selection *s = data;
  guint shift = 64 - s->depth - s->bits;
  guint64 mask = (G_GUINT64_CONSTANT (1) << s->bits) - 1;

  for (gsize i = 0; i < n; i++)
    {
      guint64 u = order_key (v[i]);
      guint64 top = s->depth > 0 ? u >> (64 - s->depth) : 0;

      for (guint t = 0; t < SELECT_TARGETS; t++)
        if (top == s->prefix[t])
          s->hist[t][(u >> shift) & mask]++;
    }
}

/* The latencies' percentiles without holding them: the p50, p90 and p99
 * samples are found digit by digit from the top, each pass over the set
 * counting the next digit of the samples that share the digits found so
 * far (the leading bits every sample shares are skipped). The same values
 * as sorting them, read a few times. FALSE if the file failed us. */
static gboolean
select_latency (SampleSet     *set,
                guint          n,
                StrataLatency *latency)
{
  static const double percent[SELECT_TARGETS] = { 50, 90, 99 };
  guint64 rank[SELECT_TARGETS];
  Extent extent = { G_MAXUINT64, 0 };
  Selection s = { 0 };
  guint common;

  memset (latency, 0, sizeof *latency);
  if (n == 0)
    return TRUE;

  sample_set_foreach (set, extent_of, &extent);
  if (set->failed)
    return FALSE;
  common = extent.min == extent.max ? 64 : (guint) __builtin_clzll (extent.min ^ extent.max);

  s.depth = common;
  for (guint t = 0; t < SELECT_TARGETS; t++)
    {
      rank[t] = nearest_rank_index (n, percent[t]);
      s.prefix[t] = common > 0 ? extent.min >> (64 - common) : 0;
      s.hist[t] = g_new (guint64, 1u << DIGIT_SELECT);
    }

  while (s.depth < 64 && !set->failed)
    {
      s.bits = MIN (DIGIT_SELECT, 64 - s.depth);
      for (guint t = 0; t < SELECT_TARGETS; t++)
        memset (s.hist[t], 0, sizeof (guint64) << s.bits);
      sample_set_foreach (set, count_digits, &s);
      if (set->failed)
        break;
      for (guint t = 0; t < SELECT_TARGETS; t++)
        {
          guint64 digit = 0;

          while (rank[t] >= s.hist[t][digit])
            rank[t] -= s.hist[t][digit++];
          s.prefix[t] = (s.depth > 0 ? s.prefix[t] << s.bits : 0) | digit;
        }
      s.depth += s.bits;
    }
  for (guint t = 0; t < SELECT_TARGETS; t++)
    g_free (s.hist[t]);
  if (set->failed)
    return FALSE;

  latency->count = n;
  latency->p50 = (gint64) order_key ((gint64) s.prefix[0]);
  latency->p90 = (gint64) order_key ((gint64) s.prefix[1]);
  latency->p99 = (gint64) order_key ((gint64) s.prefix[2]);
  latency->max = (gint64) order_key ((gint64) extent.max);
  return TRUE;
}

static void
gather (const gint64 *v,
        gsize         n,
        gpointer      data)
{
  g_array_append_vals (data, v, n);
}

/* The percentiles of @set's @n samples: sorted in memory when they fit in
 * the budget, selected from where they are otherwise. */
static void
latency_of (StrataStatsBuilder *self,
            SampleSet          *set,
            guint64             n,
            StrataLatency      *latency)
{
  if (n * sizeof (gint64) > self->budget && select_latency (set, (guint) n, latency))
    return;

  {
    g_autoptr(GArray) all = g_array_sized_new (FALSE, FALSE, sizeof (gint64), (guint) n);

    set->failed = FALSE;
    sample_set_foreach (set, gather, all);
    if (set->failed)
      g_warning ("stats: wakeup latencies could not be read back from the spill file: %s",
                 g_strerror (errno));
    strata_latency_from_samples (latency, (gint64 *)(gpointer) all->data, all->len);
  }
}

/* The wakeup percentiles of one open channel: its runs, then its samples
 * in memory. */
static void
channel_latency (StrataStatsBuilder *self,
                 ChannelSums        *sums,
                 StrataLatency      *latency)
{
  const gint64 *own = sums->samples;
  SampleSet set = { self, 1, &sums->last_run, NULL, 0, 1, &own, &sums->n_samples, FALSE, NULL };

  latency_of (self, &set, sums->n_samples + sums->n_spilled, latency);
}

/**
 * strata_stats_builder_close_channel:
 * @self: a builder
 * @channel: a channel that gets no more activities (a thread that exited,
 *   as strata_kernel_model_set_close_func() tells)
 *
 * The sums of @channel are final: its row to be goes to the builder's
 * spill file with its wakeup percentiles (its latencies stay there for
 * the whole trace's), and the builder keeps a bit of it in memory, so
 * what it holds follows the threads alive rather than all threads ever
 * seen. The results of finish() are the same as without the close.
 */
void
strata_stats_builder_close_channel (StrataStatsBuilder *self,
                                    guint32             channel)
{
  ChannelSums *sums;
  ClosedSums row;
  guint p = channel >> SUMS_PAGE_BITS;

  g_return_if_fail (self != NULL);

  /* A channel never seen has an empty row, closed or not. */
  sums = sums_of (self, channel, FALSE);
  if (sums == NULL || sums->life != CHANNEL_OPEN)
    return;

  memset (&row, 0, sizeof row);
  row.channel = channel;
  row.totals = sums->totals;
  if (sums->n_samples + sums->n_spilled > 0)
    {
      channel_latency (self, sums, &row.wakeup);

      /* Its samples in memory go after its runs, for the trace's
       * percentiles. */
      if (sums->n_samples > 0)
        log_samples (self, channel, sums->samples, sums->n_samples, sums->last_run);
      sums->last_run = 0;
      if (sums->holding != 0)
        unhold (self, sums);
      self->resident -= (guint64) sums->alloc * sizeof (gint64);
      g_clear_pointer (&sums->samples, g_free);
      sums->n_samples = sums->alloc = 0;
    }
  spill_log_append (&self->rows, &row, sizeof row);
  mark_closed (self, channel);
  sums->life = CHANNEL_CLOSED;
  self->open_in_page[p]--;
  release_page (self, p);
  note_heap (self);
}

/**
 * strata_stats_builder_close:
 * @builder: a #StrataStatsBuilder
 *
 * strata_stats_builder_close_channel() in the shape of a
 * StrataChannelCloseFunc, the pass's close sink beside
 * strata_stats_builder_add() as its activity sink.
 */
void
strata_stats_builder_close (guint32  channel,
                            gint64   t,
                            gpointer builder)
{
  strata_stats_builder_close_channel (builder, channel);
}

static void
append_cpu_row (StrataStats         *stats,
                StrataTrace         *trace,
                const StrataChannel *ch,
                guint                channel,
                const Totals        *totals)
{
  StrataCpuStats cs;

  /* The rows are written to the index as they are in memory, so their
   * padding must be zero too (an initialiser leaves it as the stack had
   * it, and two builds wrote different bytes). */
  memset (&cs, 0, sizeof cs);
  cs.channel = channel;
  cs.cpu = ch->id;
  cs.instance = ch->instance;
  cs.busy = totals->by_kind[STRATA_ACTIVITY_TASK];
  cs.idle = totals->by_kind[STRATA_ACTIVITY_IDLE];
  cs.unknown = totals->by_kind[STRATA_ACTIVITY_UNKNOWN];
  cs.irq = totals->by_kind[STRATA_ACTIVITY_IRQ];
  cs.softirq = totals->by_kind[STRATA_ACTIVITY_SOFTIRQ];
  cs.switches = strata_trace_get_context_switches (trace, channel);

  g_array_append_val (stats->cpus, cs);
  stats->switches += cs.switches;
}

/* A thread's row; @wakeup is copied whole, its padding with it. */
static void
append_thread_row (StrataStats         *stats,
                   StrataThreadRows    *rows,
                   const StrataChannel *ch,
                   guint                channel,
                   const Totals        *totals,
                   const StrataLatency *wakeup)
{
  const gint64 *st = totals->by_state;
  StrataThreadStats ts;

  memset (&ts, 0, sizeof ts);   /* its padding goes to disk too */
  ts.channel = channel;
  ts.tid = ch->id;
  ts.tgid = ch->tgid;
  ts.instance = ch->instance;
  ts.running = st[STRATA_TASK_STATE_RUNNING];
  ts.runnable = st[STRATA_TASK_STATE_RUNNABLE] + st[STRATA_TASK_STATE_PREEMPTED];
  ts.woken = st[STRATA_TASK_STATE_WOKEN];
  ts.sleeping = st[STRATA_TASK_STATE_SLEEPING];
  ts.blocked = st[STRATA_TASK_STATE_UNINTERRUPTIBLE];
  ts.other = st[STRATA_TASK_STATE_STOPPED] + st[STRATA_TASK_STATE_PARKED];
  ts.switches_in = totals->switches_in;
  memcpy (&ts.wakeup, wakeup, sizeof ts.wakeup);

  if (rows != NULL)
    strata_thread_rows_add (rows, &ts);
  else
    g_array_append_val (stats->threads, ts);
}

/* The closed channels' rows, from the rows log; the number of their
 * latencies added to @n_all. */
static void
append_closed_rows (StrataStatsBuilder  *self,
                    StrataStats         *stats,
                    StrataThreadRows    *thread_rows,
                    StrataTrace         *trace,
                    const StrataChannel *channels,
                    guint                n_channels,
                    guint64             *n_all)
{
  const gsize per_read = BUF_SAMPLES * sizeof (gint64) / sizeof (ClosedSums);
  ClosedSums *rows = (ClosedSums *)(gpointer) read_buffer (self);
  guint64 n_rows = self->rows.size / sizeof (ClosedSums);

  for (guint64 first = 0; first < n_rows; first += per_read)
    {
      gsize k = (gsize) MIN (n_rows - first, (guint64) per_read);

      if (!spill_log_read (&self->rows, first * sizeof (ClosedSums), rows, k * sizeof (ClosedSums)))
        {
          /* Nothing to fall back on: the rows are only there. */
          g_warning ("stats: the rows of exited threads could not be read back from the spill file: %s",
                     g_strerror (errno));
          return;
        }
      for (gsize i = 0; i < k; i++)
        {
          const ClosedSums *row = &rows[i];
          const StrataChannel *ch;

          if (row->channel >= n_channels)
            continue;
          ch = &channels[row->channel];
          if (ch->kind == STRATA_CHANNEL_CPU)
            append_cpu_row (stats, trace, ch, row->channel, &row->totals);
          else if (ch->kind == STRATA_CHANNEL_THREAD)
            {
              append_thread_row (stats, thread_rows, ch, row->channel, &row->totals, &row->wakeup);
              *n_all += row->wakeup.count;
            }
        }
      strata_trace_let_go_channels (trace);
    }
}

/* The process's peak RSS so far (VmHWM), for the debug notes: whether
 * the pass's peak came before the statistics were finished or after. */
static guint64
peak_rss_kb (void)
{
  g_autofree char *status = NULL;
  const char *hwm;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL) ||
      (hwm = strstr (status, "VmHWM:")) == NULL)
    return 0;
  return g_ascii_strtoull (hwm + strlen ("VmHWM:"), NULL, 10);
}

/* finish(), the thread rows into @thread_rows if given (stats->threads
 * left empty), else into stats->threads. */
static StrataStats *
builder_finish (StrataStatsBuilder *self,
                StrataTrace        *trace,
                StrataThreadRows   *thread_rows)
{
  g_autoptr(GArray) mem = g_array_new (FALSE, FALSE, sizeof (const gint64 *));
  g_autoptr(GArray) mem_len = g_array_new (FALSE, FALSE, sizeof (guint32));
  const StrataChannel *channels;
  StrataStats *stats;
  guint n_channels;
  guint64 n_all = 0;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  if (self->debug_memory)
    {
      guint64 peak, now = strata_stats_builder_get_heap_bytes (self, &peak, NULL);

      g_message ("stats builder at its finish: %" G_GUINT64_FORMAT " kB on the heap (peak %"
                 G_GUINT64_FORMAT " kB), %u pages of sums, %" G_GUINT64_FORMAT " channels closed, %"
                 G_GUINT64_FORMAT " spills, %"
                 G_GUINT64_FORMAT " kB in the samples log, %" G_GUINT64_FORMAT " kB in the rows log; "
                 "the process's peak RSS so far %" G_GUINT64_FORMAT " kB",
                 now >> 10, peak >> 10, self->n_live_pages, self->n_closed, self->n_spills,
                 self->samples.size >> 10, self->rows.size >> 10, peak_rss_kb ());
    }

  channels = strata_trace_get_channels (trace, &n_channels);

  stats = g_new0 (StrataStats, 1);
  stats->start = strata_trace_get_start (trace);
  stats->end = strata_trace_get_end (trace);
  {
    guint n_cpus = 0, n_threads = 0;

    /* Sized once: a row per thread, doubled as it grew, was twice the rows
     * at the peak. */
    for (guint i = 0; i < n_channels; i++)
      {
        n_cpus += channels[i].kind == STRATA_CHANNEL_CPU;
        n_threads += channels[i].kind == STRATA_CHANNEL_THREAD;
        if ((i + 1) % STRATA_TRACE_LET_GO_EVERY == 0)
          strata_trace_let_go_channels (trace);
      }
    stats->cpus = g_array_sized_new (FALSE, TRUE, sizeof (StrataCpuStats), n_cpus);
    stats->threads = g_array_sized_new (FALSE, TRUE, sizeof (StrataThreadStats),
                                        thread_rows != NULL ? 0 : n_threads);
  }

  /* The channels still open (or never seen), then the closed ones: the
   * rows are sorted after, by keys that tell every two apart, so the
   * order they come in makes no difference. */
  for (guint i = 0; i < n_channels; i++)
    {
      const StrataChannel *ch = &channels[i];
      static const ChannelSums none = { 0 };
      ChannelSums *sums;

      if ((i + 1) % STRATA_TRACE_LET_GO_EVERY == 0)
        strata_trace_let_go_channels (trace);
      if (is_closed (self, i))
        continue;
      sums = sums_of (self, i, FALSE);

      if (ch->kind == STRATA_CHANNEL_CPU)
        append_cpu_row (stats, trace, ch, i, sums != NULL ? &sums->totals : &none.totals);
      else if (ch->kind == STRATA_CHANNEL_THREAD)
        {
          StrataLatency wakeup;

          memset (&wakeup, 0, sizeof wakeup);
          if (sums != NULL && sums->n_samples + sums->n_spilled > 0)
            {
              channel_latency (self, sums, &wakeup);
              n_all += sums->n_samples + sums->n_spilled;
              /* Only the channels open with samples in memory: an
               * array by channel was 12 bytes for each of a million
               * exited threads. */
              g_array_append_val (mem, sums->samples);
              g_array_append_val (mem_len, sums->n_samples);
            }
          append_thread_row (stats, thread_rows, ch, i, sums != NULL ? &sums->totals : &none.totals, &wakeup);
        }
    }
  append_closed_rows (self, stats, thread_rows, trace, channels, n_channels, &n_all);

  {
    /* Every thread's: those in the samples log (the open ones' runs and
     * the closed ones' all), then those in memory. */
    SampleSet set = { self, 0, NULL, channels, n_channels, mem->len,
                      (const gint64 **)(gpointer) mem->data, (const guint32 *)(gpointer) mem_len->data, FALSE,
                      trace };

    latency_of (self, &set, n_all, &stats->wakeup);
  }

  if (thread_rows != NULL)
    strata_thread_rows_finish (thread_rows);
  else
    strata_thread_stats_sort ((StrataThreadStats *)(gpointer) stats->threads->data, stats->threads->len);
  g_array_sort (stats->cpus, compare_cpus);
  strata_trace_let_go_channels (trace);

  /* The sums are in the rows now: given back before the index is written
   * (the index build's peak; 160 bytes a channel, 16 MB for the 97 000
   * threads of 40M generated events, without closes). */
  free_build_state (self);

  return stats;
}

/**
 * strata_stats_builder_finish:
 * @self: a builder that has seen every activity of @trace
 * @trace: the trace, for its channels, span and context switches
 *
 * Once: the builder gives its per-channel sums back as they go into the
 * rows.
 *
 * Returns: (transfer full): the statistics
 */
StrataStats *
strata_stats_builder_finish (StrataStatsBuilder *self,
                             StrataTrace        *trace)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  return builder_finish (self, trace, NULL);
}

/**
 * strata_stats_builder_finish_to_rows:
 * @self: a builder that has seen every activity of @trace
 * @trace: the trace, for its channels, span and context switches
 * @thread_rows: (out) (transfer full): the thread rows, in their order,
 *   past the builder's rows budget (STRATA_STATS_ROWS_BUDGET) in a spill
 *   file
 *
 * strata_stats_builder_finish() for the index: the thread rows, as many
 * as threads ever lived, are not held all at once (121 MB for the 1.08M
 * threads of 20M generated events of thread churn, at the index build's
 * peak) but given as @thread_rows, which the index writer merges into its
 * section.
 *
 * Returns: (transfer full): the statistics, their threads array empty
 */
StrataStats *
strata_stats_builder_finish_to_rows (StrataStatsBuilder  *self,
                                     StrataTrace         *trace,
                                     StrataThreadRows   **thread_rows)
{
  StrataStats *stats;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);
  g_return_val_if_fail (thread_rows != NULL, NULL);

  *thread_rows = strata_thread_rows_new (self->rows_budget);
  stats = builder_finish (self, trace, *thread_rows);
  if (self->debug_memory)
    g_message ("stats: %" G_GUINT64_FORMAT " thread rows, %u runs of them in the spill file; "
               "the process's peak RSS so far %" G_GUINT64_FORMAT " kB",
               strata_thread_rows_get_count (*thread_rows), strata_thread_rows_get_n_runs (*thread_rows),
               peak_rss_kb ());
  return stats;
}

/**
 * strata_stats_compute:
 * @trace: a trace loaded with its activities
 *
 * Returns: (transfer full): the statistics of @trace
 */
StrataStats *
strata_stats_compute (StrataTrace *trace)
{
  g_autoptr(StrataStatsBuilder) builder = strata_stats_builder_new ();
  const StrataActivity *activities;
  gsize n;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  activities = strata_trace_get_activities (trace, &n);
  for (gsize i = 0; i < n; i++)
    strata_stats_builder_add (&activities[i], builder);

  return strata_stats_builder_finish (builder, trace);
}

/**
 * strata_stats_builder_add_clipped:
 * @clipped: an activity cut to a range (strata_activity_clip()), its
 *   CONTINUES flags saying which side the range cut
 *
 * Accounts an activity of a range: its time counts; a wakeup latency
 * cut by the range's edge is left out of the latencies, and a run cut
 * at its start is not a switch in.
 */
void
strata_stats_builder_add_clipped (StrataStatsBuilder   *self,
                                  const StrataActivity *clipped)
{
  StrataActivity a = *clipped;

  g_return_if_fail (self != NULL && clipped != NULL);

  if (a.kind == STRATA_ACTIVITY_STATE && a.state == STRATA_TASK_STATE_WOKEN &&
      (a.flags & (STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE | STRATA_ACTIVITY_FLAG_CONTINUES_AFTER)))
    a.flags |= STRATA_ACTIVITY_FLAG_LOST;
  if (a.kind == STRATA_ACTIVITY_STATE && a.state == STRATA_TASK_STATE_RUNNING &&
      (a.flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE))
    a.flags |= STRATA_ACTIVITY_FLAG_START_UNSEEN;
  strata_stats_builder_add (&a, self);
}

/**
 * strata_stats_compute_range:
 * @channels: (array length=n_channels): the rows to account, each once
 *
 * The statistics of [@from, @to): each activity of the rows' raw store
 * lanes clipped to the range and given to strata_stats_builder_add_clipped().
 *
 * Returns: (transfer full): the statistics
 */
StrataStats *
strata_stats_compute_range (StrataTrace   *trace,
                            const guint32 *channels,
                            guint          n_channels,
                            gint64         from,
                            gint64         to)
{
  g_autoptr(StrataStatsBuilder) builder = strata_stats_builder_new ();
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  for (guint i = 0; i < n_channels; i++)
    {
      g_array_set_size (found, 0);
      strata_trace_query_channel (trace, channels[i], from, to, found);
      for (guint j = 0; j < found->len; j++)
        {
          StrataActivity a = g_array_index (found, StrataActivity, j);

          if (!strata_activity_overlaps (&a, from, to))
            continue;
          strata_activity_clip (&a, from, to);
          strata_stats_builder_add_clipped (builder, &a);
        }
    }

  return strata_stats_builder_finish (builder, trace);
}
