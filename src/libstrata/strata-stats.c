/* strata-stats.c
 *
 * One walk over the activities. Percentiles use the nearest-rank method
 * (the smallest sample with at least p% of the samples at or below it), as
 * `perf sched latency`-style reports do, so p100 is the maximum. The
 * wakeup latencies are kept for them, in memory up to a budget and in an
 * unlinked spill file past it; those that do not fit the budget at the
 * end are selected from where they are rather than sorted.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strata-block-packer.h"
#include "strata-stats.h"

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *)a;
  gint64 y = *(const gint64 *)b;

  return x < y ? -1 : x > y;
}

/* Durations are never negative and rarely need more than 33 bits, so an
 * LSD radix sort on 11-bit digits sorts millions of latencies in three
 * passes (with a counter table small enough to clear for every thread);
 * qsort() was a tenth of `stats` on a 5M-event trace. */
#define DIGIT_BITS 11
#define DIGITS     (1u << DIGIT_BITS)
static void
sort_durations (gint64 *v,
                guint   n)
{
  g_autofree gint64 *tmp = NULL;
  g_autofree guint *count = NULL;
  guint64 max = 0;
  gint64 *src = v, *dst;

  if (n < 256)
    {
      qsort (v, n, sizeof *v, compare_gint64);
      return;
    }

  for (guint i = 0; i < n; i++)
    {
      if (v[i] < 0)
        {
          qsort (v, n, sizeof *v, compare_gint64);
          return;
        }
      max = MAX (max, (guint64) v[i]);
    }

  tmp = g_new (gint64, n);
  count = g_new (guint, DIGITS);
  dst = tmp;

  for (guint shift = 0; shift < 64 && (max >> shift) != 0; shift += DIGIT_BITS)
    {
      guint sum = 0;

      memset (count, 0, sizeof (guint) * DIGITS);
      for (guint i = 0; i < n; i++)
        count[((guint64) src[i] >> shift) & (DIGITS - 1)]++;
      for (guint d = 0; d < DIGITS; d++)
        {
          guint c = count[d];
          count[d] = sum;
          sum += c;
        }
      for (guint i = 0; i < n; i++)
        dst[count[((guint64) src[i] >> shift) & (DIGITS - 1)]++] = src[i];

      { gint64 *t = src; src = dst; dst = t; }
    }

  if (src != v)
    memcpy (v, src, n * sizeof *v);
}

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
compare_threads (const void *a,
                 const void *b)
{
  const StrataThreadStats *x = a;
  const StrataThreadStats *y = b;

  if (x->running != y->running)
    return x->running > y->running ? -1 : 1;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  return x->channel < y->channel ? -1 : x->channel > y->channel;
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

/* What one channel accumulated; its kind is only looked at in finish(),
 * since channels are still being created while activities stream in.
 * Its wakeup latencies are kept (the percentiles are exact): the last
 * ones in memory, the others in runs in the builder's spill file. */
typedef struct
{
  gint64   by_kind[N_CPU_KINDS];
  gint64   by_state[STRATA_N_TASK_STATES];
  guint64  switches_in;
  gint64  *samples;     /* in memory */
  guint32  n_samples;
  guint32  alloc;
  guint32  first_run;   /* index + 1 in the builder's runs, 0: none */
  guint32  last_run;
  guint64  n_spilled;
} ChannelSums;

/* Samples of one channel written to the spill file in one go. */
typedef struct
{
  guint64 offset;
  guint32 n;
  guint32 next;         /* the channel's next run, index + 1, 0: none */
} LatencyRun;

/* The bytes of latencies the builder keeps in memory before it writes
 * them all to its spill file (STRATA_STATS_LATENCY_BUDGET in the
 * environment says otherwise): every wakeup's latency is kept for the
 * exact percentiles, 32 MB on 20M generated events, and three times that
 * while they were sorted at the end. */
#define LATENCY_BUDGET (G_GUINT64_CONSTANT (2) << 20)

/* Channels' sums per page: a table of them all was doubled as it grew
 * (16.8 MB for the 48 742 threads of 20M generated events). */
#define SUMS_PAGE_BITS 10
#define SUMS_PAGE      (1u << SUMS_PAGE_BITS)

struct _StrataStatsBuilder
{
  ChannelSums **pages;  /* SUMS_PAGE each, NULL until a channel of it is seen */
  guint         n_pages;
  guint         n_sums; /* one past the highest channel seen */
  GArray  *runs;        /* LatencyRun */
  GArray  *holding;     /* guint32: the channels with samples in memory */
  guint64  budget;
  guint64  resident;    /* bytes of samples in memory, as allocated */
  guint64  peak_resident;
  int      fd;          /* the spill file, -1 until the first spill */
  gboolean spill_failed;
  guint64  file_size;
  guint64  n_spills;
};

StrataStatsBuilder *
strata_stats_builder_new (void)
{
  StrataStatsBuilder *self = g_new0 (StrataStatsBuilder, 1);
  const char *env = g_getenv ("STRATA_STATS_LATENCY_BUDGET");

  self->runs = g_array_new (FALSE, FALSE, sizeof (LatencyRun));
  self->holding = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->budget = env != NULL && *env != '\0' ? g_ascii_strtoull (env, NULL, 10) : LATENCY_BUDGET;
  self->fd = -1;

  return self;
}

/* The per-channel sums, and their pages. */
static void
free_sums (StrataStatsBuilder *self)
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
  self->n_pages = 0;
  self->n_sums = 0;
}

void
strata_stats_builder_free (StrataStatsBuilder *self)
{
  if (self == NULL)
    return;

  free_sums (self);
  g_array_unref (self->runs);
  g_array_unref (self->holding);
  if (self->fd >= 0)
    close (self->fd);
  g_free (self);
}

/**
 * strata_stats_builder_set_latency_budget:
 * @bytes: what the wakeup latencies may take in memory (G_MAXUINT64: all)
 *
 * Past it, every channel's latencies in memory go to a spill file; the
 * results are the same.
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

/* All of [@data, @data + @size) written to (@writing) or read from the
 * spill file at @offset; FALSE if the file failed (or ended) first. */
static gboolean
transfer_all (int       fd,
              gboolean  writing,
              guint8   *data,
              gsize     size,
              guint64   offset)
{
  while (size > 0)
    {
      gssize n = writing ? pwrite (fd, data, size, (off_t) offset) : pread (fd, data, size, (off_t) offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      size -= (gsize) n;
      offset += (guint64) n;
    }
  return TRUE;
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
          memset (self->pages + self->n_pages, 0, (n - self->n_pages) * sizeof (ChannelSums *));
          self->n_pages = n;
        }
      self->pages[p] = g_new0 (ChannelSums, SUMS_PAGE);
    }
  if (make)
    self->n_sums = MAX (self->n_sums, channel + 1);
  return &self->pages[p][channel & (SUMS_PAGE - 1)];
}

/* Every channel's latencies in memory to the spill file, a run each. If
 * there is no file or a write fails, they stay in memory from now on. */
static void
spill_latencies (StrataStatsBuilder *self)
{
  const guint32 *holding = (const guint32 *)(gconstpointer) self->holding->data;

  if (self->fd < 0)
    {
      g_autoptr(GError) error = NULL;

      self->fd = strata_block_packer_open_spill_file (&error);
      if (self->fd < 0)
        {
          g_debug ("stats: latencies stay in memory: %s", error->message);
          self->spill_failed = TRUE;
          return;
        }
    }

  for (guint i = 0; i < self->holding->len; i++)
    {
      ChannelSums *sums = sums_of (self, holding[i], FALSE);
      LatencyRun run = { self->file_size, sums->n_samples, 0 };

      if (!transfer_all (self->fd, TRUE, (guint8 *) sums->samples, (gsize) sums->n_samples * sizeof (gint64), self->file_size))
        {
          g_debug ("stats: latencies stay in memory: %s", g_strerror (errno));
          self->spill_failed = TRUE;
          /* Those not written yet stay listed. */
          g_array_remove_range (self->holding, 0, i);
          return;
        }
      self->file_size += (guint64) sums->n_samples * sizeof (gint64);
      g_array_append_val (self->runs, run);
      if (sums->last_run != 0)
        g_array_index (self->runs, LatencyRun, sums->last_run - 1).next = self->runs->len;
      else
        sums->first_run = self->runs->len;
      sums->last_run = self->runs->len;
      sums->n_spilled += sums->n_samples;
      self->resident -= (guint64) sums->alloc * sizeof (gint64);
      g_clear_pointer (&sums->samples, g_free);
      sums->n_samples = sums->alloc = 0;
    }
  g_array_set_size (self->holding, 0);
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
        g_array_append_val (self->holding, channel);
      sums->samples = g_renew (gint64, sums->samples, alloc);
      self->resident += (guint64) (alloc - sums->alloc) * sizeof (gint64);
      sums->alloc = alloc;
      self->peak_resident = MAX (self->peak_resident, self->resident);
    }
  sums->samples[sums->n_samples++] = d;

  if (self->resident > self->budget && !self->spill_failed)
    spill_latencies (self);
}

/**
 * strata_stats_builder_add:
 * @activity: an activity
 * @builder: a #StrataStatsBuilder
 *
 * Accounts one activity. The signature is a #StrataActivityFunc, so a
 * builder can be the sink of strata_trace_load_full().
 */
void
strata_stats_builder_add (const StrataActivity *activity,
                          gpointer              builder)
{
  StrataStatsBuilder *self = builder;
  gint64 d = activity->end - activity->start;
  ChannelSums *sums;

  sums = sums_of (self, activity->channel, TRUE);

  if (activity->kind >= STRATA_N_ACTIVITY_KINDS)
    return;
  if (activity->kind < N_CPU_KINDS)
    sums->by_kind[activity->kind] += d;

  if (activity->kind != STRATA_ACTIVITY_STATE || activity->state >= STRATA_N_TASK_STATES)
    return;
  sums->by_state[activity->state] += d;

  if (activity->state == STRATA_TASK_STATE_RUNNING &&
      !(activity->flags & STRATA_ACTIVITY_FLAG_START_UNSEEN))
    sums->switches_in++;

  /* A wakeup latency is a WOKEN interval that ended with the thread
   * switched in, not one cut by the trace's end or by missing events. */
  if (activity->state == STRATA_TASK_STATE_WOKEN &&
      !(activity->flags & (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST)))
    add_latency (self, activity->channel, sums, d);
}

/* A set of latencies to read: the whole spill file or the runs of some
 * channels (each chain from its first run), then samples in memory. */
typedef struct
{
  StrataStatsBuilder *builder;
  guint               n_chains;
  const guint32      *chains;      /* n_chains first runs (index + 1, 0: none) */
  gboolean            whole_file;
  guint               n_mem;
  const gint64      **mem;         /* n_mem arrays of mem_len[i] samples */
  const guint32      *mem_len;
  gint64             *buf;         /* BUF_SAMPLES */
  gboolean            failed;
} SampleSet;

#define BUF_SAMPLES 8192

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
  while (n > 0 && !set->failed)
    {
      gsize k = (gsize) MIN (n, (guint64) BUF_SAMPLES);

      if (!transfer_all (set->builder->fd, FALSE, (guint8 *) set->buf, k * sizeof (gint64), offset))
        {
          set->failed = TRUE;
          return;
        }
      func (set->buf, k, data);
      offset += k * sizeof (gint64);
      n -= k;
    }
}

static void
sample_set_foreach (SampleSet  *set,
                    SampleFunc  func,
                    gpointer    data)
{
  GArray *runs = set->builder->runs;

  if (set->whole_file)
    read_span (set, 0, set->builder->file_size / sizeof (gint64), func, data);
  for (guint c = 0; c < set->n_chains; c++)
    for (guint32 r = set->chains[c]; r != 0; r = g_array_index (runs, LatencyRun, r - 1).next)
      {
        const LatencyRun *run = &g_array_index (runs, LatencyRun, r - 1);

        read_span (set, run->offset, run->n, func, data);
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
  g_autofree gint64 *buf = NULL;
  g_autofree const gint64 **mem = NULL;
  g_autofree guint32 *mem_len = NULL;
  g_autoptr(GArray) chains = g_array_new (FALSE, FALSE, sizeof (guint32));
  gboolean only_threads_spilled = TRUE;
  const StrataChannel *channels;
  StrataStats *stats;
  guint n_channels;
  guint64 n_all = 0;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  channels = strata_trace_get_channels (trace, &n_channels);
  buf = g_new (gint64, BUF_SAMPLES);
  mem = g_new0 (const gint64 *, n_channels + 1);
  mem_len = g_new0 (guint32, n_channels + 1);

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
      }
    stats->cpus = g_array_sized_new (FALSE, TRUE, sizeof (StrataCpuStats), n_cpus);
    stats->threads = g_array_sized_new (FALSE, TRUE, sizeof (StrataThreadStats), n_threads);
  }

  for (guint i = 0; i < n_channels; i++)
    {
      const StrataChannel *ch = &channels[i];
      static const ChannelSums none = { 0 };
      const ChannelSums *sums = sums_of (self, i, FALSE);

      if (sums == NULL)
        sums = &none;

      if (ch->kind == STRATA_CHANNEL_CPU)
        {
          StrataCpuStats cs;

          /* The rows are written to the index as they are in memory, so
           * their padding must be zero too (an initialiser leaves it as
           * the stack had it, and two builds wrote different bytes). */
          memset (&cs, 0, sizeof cs);
          cs.channel = i;
          cs.cpu = ch->id;
          cs.instance = ch->instance;
          cs.busy = sums->by_kind[STRATA_ACTIVITY_TASK];
          cs.idle = sums->by_kind[STRATA_ACTIVITY_IDLE];
          cs.unknown = sums->by_kind[STRATA_ACTIVITY_UNKNOWN];
          cs.irq = sums->by_kind[STRATA_ACTIVITY_IRQ];
          cs.softirq = sums->by_kind[STRATA_ACTIVITY_SOFTIRQ];
          cs.switches = strata_trace_get_context_switches (trace, i);

          g_array_append_val (stats->cpus, cs);
          stats->switches += cs.switches;
        }
      else if (ch->kind == STRATA_CHANNEL_THREAD)
        {
          const gint64 *st = sums->by_state;
          StrataThreadStats ts;

          memset (&ts, 0, sizeof ts);   /* its padding goes to disk too */
          ts.channel = i;
          ts.tid = ch->id;
          ts.tgid = ch->tgid;
          ts.instance = ch->instance;
          ts.running = st[STRATA_TASK_STATE_RUNNING];
          ts.runnable = st[STRATA_TASK_STATE_RUNNABLE] + st[STRATA_TASK_STATE_PREEMPTED];
          ts.woken = st[STRATA_TASK_STATE_WOKEN];
          ts.sleeping = st[STRATA_TASK_STATE_SLEEPING];
          ts.blocked = st[STRATA_TASK_STATE_UNINTERRUPTIBLE];
          ts.other = st[STRATA_TASK_STATE_STOPPED] + st[STRATA_TASK_STATE_PARKED];
          ts.switches_in = sums->switches_in;

          if (sums->n_samples + sums->n_spilled > 0)
            {
              const gint64 *own = sums->samples;
              SampleSet set = { self, 1, &sums->first_run, FALSE, 1, &own, &sums->n_samples, buf, FALSE };

              latency_of (self, &set, sums->n_samples + sums->n_spilled, &ts.wakeup);
              n_all += sums->n_samples + sums->n_spilled;
              mem[i] = sums->samples;
              mem_len[i] = sums->n_samples;
              if (sums->first_run != 0)
                g_array_append_val (chains, sums->first_run);
            }

          g_array_append_val (stats->threads, ts);
        }
    }

  for (guint i = 0; i < self->n_sums; i++)
    if (sums_of (self, i, FALSE) != NULL && sums_of (self, i, FALSE)->n_spilled > 0 &&
        (i >= n_channels || channels[i].kind != STRATA_CHANNEL_THREAD))
      only_threads_spilled = FALSE;
  {
    /* Every thread's: those in the spill file (read in one sweep when
     * only threads have any there, as the model makes them), then those
     * in memory. */
    SampleSet set = { self, only_threads_spilled ? 0 : chains->len, (const guint32 *)(gconstpointer) chains->data,
                      self->fd >= 0 && only_threads_spilled, n_channels, mem, mem_len, buf, FALSE };

    latency_of (self, &set, n_all, &stats->wakeup);
  }

  g_array_sort (stats->threads, compare_threads);
  g_array_sort (stats->cpus, compare_cpus);

  /* The sums are in the rows now: given back before the index is written
   * (the index build's peak; 160 bytes a channel, 16 MB for the 97 000
   * threads of 40M generated events). */
  free_sums (self);

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

void
strata_stats_free (StrataStats *stats)
{
  if (stats == NULL)
    return;

  g_clear_pointer (&stats->cpus, g_array_unref);
  g_clear_pointer (&stats->threads, g_array_unref);
  g_free (stats);
}
