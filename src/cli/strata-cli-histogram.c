/* strata-cli-histogram.c
 *
 * See strata-cli-histogram.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include "strata-cli-format.h"
#include "strata-cli-histogram.h"

static const char *titles[STRATA_N_HISTOGRAMS] = {
  "Wakeup latency (waking to running)",
  "Run slices (switch-in to switch-out)",
};

static const char *keys[STRATA_N_HISTOGRAMS] = { "wakeup_latency", "run_slice" };

/* The threads' rows: every thread's, or those of thread @tid. */
void
strata_cli_histograms_compute (StrataTrace     *trace,
                               gint32           tid,
                               gint64           from,
                               gint64           to,
                               StrataHistogram  out[STRATA_N_HISTOGRAMS])
{
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  const StrataChannel *channels;
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  for (guint32 i = 0; i < n; i++)
    if (channels[i].kind == STRATA_CHANNEL_THREAD && (tid < 0 || channels[i].id == tid))
      g_array_append_val (rows, i);
  strata_histograms_compute (trace, (const guint32 *) (gpointer) rows->data, rows->len,
                             from, to, out);
}

void
strata_cli_histograms_print (const StrataHistogram histograms[STRATA_N_HISTOGRAMS])
{
  for (guint k = 0; k < STRATA_N_HISTOGRAMS; k++)
    {
      const StrataHistogram *h = &histograms[k];
      guint first, last;
      guint64 most = 0;

      printf ("\n%s, %" G_GUINT64_FORMAT " values\n", titles[k], h->count);
      if (h->count == 0)
        continue;
      strata_histogram_range (h, &first, &last);
      for (guint b = first; b <= last; b++)
        most = MAX (most, h->counts[b]);
      printf ("  %10s %10s %9s\n", "from", "to", "count");
      for (guint b = first; b <= last; b++)
        {
          g_autofree char *lo = strata_format_duration (strata_histogram_bucket_start (b));
          g_autofree char *hi = b + 1 < STRATA_HISTOGRAM_N_BUCKETS
                                ? strata_format_duration (strata_histogram_bucket_end (b))
                                : g_strdup ("-");
          guint width = (guint) ((40 * h->counts[b] + most - 1) / MAX (most, 1));
          const char *marks = "";

          if (strata_histogram_bucket_of (h->p50) == b)
            marks = strata_histogram_bucket_of (h->p90) == b ? " p50 p90" : " p50";
          else if (strata_histogram_bucket_of (h->p90) == b)
            marks = strata_histogram_bucket_of (h->p99) == b ? " p90 p99" : " p90";
          else if (strata_histogram_bucket_of (h->p99) == b)
            marks = " p99";
          printf ("  %10s %10s %9" G_GUINT64_FORMAT " ", lo, hi, h->counts[b]);
          for (guint i = 0; i < width; i++)
            fputs ("#", stdout);
          printf ("%s\n", marks);
        }
      {
        g_autofree char *p50 = strata_format_duration (h->p50);
        g_autofree char *p90 = strata_format_duration (h->p90);
        g_autofree char *p99 = strata_format_duration (h->p99);
        g_autofree char *max = strata_format_duration (h->max);

        printf ("  p50 %s, p90 %s, p99 %s, max %s\n", p50, p90, p99, max);
      }
    }
}

void
strata_cli_histograms_json (const StrataHistogram histograms[STRATA_N_HISTOGRAMS],
                            StrataJsonWriter     *w)
{
  strata_json_writer_key (w, "histograms");
  strata_json_writer_begin_object (w);
  for (guint k = 0; k < STRATA_N_HISTOGRAMS; k++)
    {
      const StrataHistogram *h = &histograms[k];
      guint first, last;

      strata_json_writer_key (w, keys[k]);
      strata_json_writer_begin_object (w);
      strata_json_writer_key (w, "count");
      strata_json_writer_uint (w, h->count);
      strata_json_writer_key (w, "p50_ns");
      strata_json_writer_int (w, h->p50);
      strata_json_writer_key (w, "p90_ns");
      strata_json_writer_int (w, h->p90);
      strata_json_writer_key (w, "p99_ns");
      strata_json_writer_int (w, h->p99);
      strata_json_writer_key (w, "max_ns");
      strata_json_writer_int (w, h->max);
      strata_json_writer_key (w, "buckets");
      strata_json_writer_begin_array (w);
      strata_histogram_range (h, &first, &last);
      for (guint b = first; b <= last && h->count > 0; b++)
        {
          strata_json_writer_begin_object (w);
          strata_json_writer_key (w, "from_ns");
          strata_json_writer_int (w, strata_histogram_bucket_start (b));
          strata_json_writer_key (w, "to_ns");
          if (b + 1 < STRATA_HISTOGRAM_N_BUCKETS)
            strata_json_writer_int (w, strata_histogram_bucket_end (b));
          else
            strata_json_writer_null (w);
          strata_json_writer_key (w, "count");
          strata_json_writer_uint (w, h->counts[b]);
          strata_json_writer_end_object (w);
        }
      strata_json_writer_end_array (w);
      strata_json_writer_end_object (w);
    }
  strata_json_writer_end_object (w);
}
