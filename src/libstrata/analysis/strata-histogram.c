/* strata-histogram.c
 *
 * See strata-histogram.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata-histogram.h"
#include "strata-trace-lookup.h"

static const gint64 mantissa[3] = { 1, 2, 5 };

/**
 * strata_histogram_bucket_start:
 *
 * Returns: the least value (ns) of @bucket
 */
gint64
strata_histogram_bucket_start (guint bucket)
{
  gint64 p = 1;

  g_return_val_if_fail (bucket < STRATA_HISTOGRAM_N_BUCKETS, 0);

  if (bucket == 0)
    return 0;
  for (guint k = 0; k < (bucket - 1) / 3; k++)
    p *= 10;
  return mantissa[(bucket - 1) % 3] * p;
}

/**
 * strata_histogram_bucket_end:
 *
 * Returns: the first value past @bucket (G_MAXINT64 for the last)
 */
gint64
strata_histogram_bucket_end (guint bucket)
{
  g_return_val_if_fail (bucket < STRATA_HISTOGRAM_N_BUCKETS, 0);

  if (bucket + 1 == STRATA_HISTOGRAM_N_BUCKETS)
    return G_MAXINT64;
  return strata_histogram_bucket_start (bucket + 1);
}

guint
strata_histogram_bucket_of (gint64 ns)
{
  guint lo = 0, hi = STRATA_HISTOGRAM_N_BUCKETS - 1;

  if (ns <= 0)
    return 0;
  /* The last bucket whose start is at most @ns. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo + 1) / 2;

      if (strata_histogram_bucket_start (mid) <= ns)
        lo = mid;
      else
        hi = mid - 1;
    }
  return lo;
}

/**
 * strata_histogram_range:
 * @first: (out): the first bucket with a count
 * @last: (out): the last one (@first > @last when there is none)
 */
void
strata_histogram_range (const StrataHistogram *h,
                        guint                 *first,
                        guint                 *last)
{
  *first = 1;
  *last = 0;
  for (guint b = 0; b < STRATA_HISTOGRAM_N_BUCKETS; b++)
    if (h->counts[b] > 0)
      {
        if (*first > *last)
          *first = b;
        *last = b;
      }
}

/**
 * strata_histogram_takes:
 *
 * Whether @activity is one value of histogram @kind in [@from, @to):
 * a WOKEN state that ended with the switch-in, or a RUNNING state from
 * its switch-in to its switch-out, lying whole in the range.
 */
gboolean
strata_histogram_takes (StrataHistogramKind    kind,
                        const StrataActivity  *a,
                        gint64                 from,
                        gint64                 to)
{
  if (a->kind != STRATA_ACTIVITY_STATE || a->start < from || a->end > to)
    return FALSE;
  if (a->flags & (STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST |
                  STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE | STRATA_ACTIVITY_FLAG_CONTINUES_AFTER))
    return FALSE;
  if (kind == STRATA_HISTOGRAM_WAKEUP)
    return a->state == STRATA_TASK_STATE_WOKEN;
  return a->state == STRATA_TASK_STATE_RUNNING && !(a->flags & STRATA_ACTIVITY_FLAG_START_UNSEEN);
}

/* The 0-based place of the nearest rank for @p among @n (as the
 * statistics have it). */
static guint64
nearest_rank_index (guint64 n,
                    double  p)
{
  guint64 rank = (guint64) ceil (p / 100.0 * n);

  if (rank == 0)
    rank = 1;
  return MIN (rank, n) - 1;
}

typedef void (*ValueFunc) (StrataHistogramKind kind,
                           gint64              value,
                           gpointer            data);

static void
foreach_value (StrataTrace   *trace,
               const guint32 *channels,
               guint          n_channels,
               gint64         from,
               gint64         to,
               ValueFunc      func,
               gpointer       data)
{
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

  for (guint i = 0; i < n_channels; i++)
    {
      g_array_set_size (found, 0);
      strata_trace_query_channel (trace, channels[i], from, to, found);
      for (guint j = 0; j < found->len; j++)
        {
          const StrataActivity *a = &g_array_index (found, StrataActivity, j);

          for (guint k = 0; k < STRATA_N_HISTOGRAMS; k++)
            if (strata_histogram_takes (k, a, from, to))
              func (k, a->end - a->start, data);
        }
    }
}

static void
count_value (StrataHistogramKind kind,
             gint64              v,
             gpointer            data)
{
  StrataHistogram *h = &((StrataHistogram *) data)[kind];

  h->counts[strata_histogram_bucket_of (v)]++;
  h->min = h->count == 0 ? v : MIN (h->min, v);
  h->max = h->count == 0 ? v : MAX (h->max, v);
  h->sum += v;
  h->count++;
}

/* The percentiles' buckets, and the values there. */
typedef struct
{
  guint   bucket[3];
  guint64 below[3];   /* values in the buckets before it */
  GArray *values[3];
} Wanted;

static void
keep_value (StrataHistogramKind kind,
            gint64              v,
            gpointer            data)
{
  Wanted *w = &((Wanted *) data)[kind];
  guint b = strata_histogram_bucket_of (v);

  for (guint p = 0; p < 3; p++)
    if (w->bucket[p] == b)
      {
        g_array_append_val (w->values[p], v);
        return;  /* the same bucket's values serve every percentile in it */
      }
}

static int
compare_gint64 (const void *pa,
                const void *pb)
{
  gint64 a = *(const gint64 *) pa, b = *(const gint64 *) pb;

  return a < b ? -1 : a > b;
}

/**
 * strata_histograms_compute:
 * @channels: (array length=n_channels): thread rows
 * @out: (out caller-allocates): one histogram per #StrataHistogramKind
 *
 * The wakeup latencies and run slices of @channels that lie whole in
 * [@from, @to).
 */
void
strata_histograms_compute (StrataTrace     *trace,
                           const guint32   *channels,
                           guint            n_channels,
                           gint64           from,
                           gint64           to,
                           StrataHistogram  out[STRATA_N_HISTOGRAMS])
{
  static const double percents[3] = { 50, 90, 99 };
  Wanted wanted[STRATA_N_HISTOGRAMS];
  gboolean again = FALSE;

  g_return_if_fail (STRATA_IS_TRACE (trace));

  memset (out, 0, sizeof (StrataHistogram) * STRATA_N_HISTOGRAMS);
  foreach_value (trace, channels, n_channels, from, to, count_value, out);

  for (guint k = 0; k < STRATA_N_HISTOGRAMS; k++)
    for (guint p = 0; p < 3; p++)
      {
        guint64 rank = out[k].count > 0 ? nearest_rank_index (out[k].count, percents[p]) : 0;
        guint64 seen = 0;
        guint b = 0;

        wanted[k].values[p] = g_array_new (FALSE, FALSE, sizeof (gint64));
        wanted[k].bucket[p] = G_MAXUINT;
        if (out[k].count == 0)
          continue;
        while (seen + out[k].counts[b] <= rank)
          seen += out[k].counts[b++];
        wanted[k].bucket[p] = b;
        wanted[k].below[p] = seen;
        again = TRUE;
      }

  if (again)
    foreach_value (trace, channels, n_channels, from, to, keep_value, wanted);

  for (guint k = 0; k < STRATA_N_HISTOGRAMS; k++)
    {
      gint64 *dest[3] = { &out[k].p50, &out[k].p90, &out[k].p99 };

      for (guint p = 0; p < 3; p++)
        {
          GArray *v = NULL;

          /* The values were kept with the first percentile of their bucket. */
          for (guint q = 0; q <= p && v == NULL; q++)
            if (wanted[k].bucket[q] == wanted[k].bucket[p] && wanted[k].values[q]->len > 0)
              v = wanted[k].values[q];
          if (out[k].count > 0 && v != NULL)
            {
              guint64 rank = nearest_rank_index (out[k].count, percents[p]);

              qsort (v->data, v->len, sizeof (gint64), compare_gint64);
              g_assert (rank - wanted[k].below[p] < v->len);
              *dest[p] = g_array_index (v, gint64, rank - wanted[k].below[p]);
            }
        }
      for (guint p = 0; p < 3; p++)
        g_array_unref (wanted[k].values[p]);
    }
}
