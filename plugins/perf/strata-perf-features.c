/* strata-perf-features.c
 *
 * One feature of a perf.data: a section the file header's feature bits
 * point to, or in pipe mode a HEADER_FEATURE record. What the source
 * reads of them: the tracing data, host name, kernel release, CPU count,
 * clock, the samples' time span, compression and event names.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-perf-private.h"

static char *
feature_string (StrataPerfSource *self,
                const guint8     *p,
                gsize             len,
                gsize            *used)
{
  guint32 n;

  if (len < 4)
    return NULL;
  n = rd32 (self, p);
  if (n > len - 4)
    return NULL;
  *used = 4 + n;
  return g_strndup ((const char *) p + 4, n);
}

const char *
strata_perf_clock_name (gint32 clockid)
{
  switch (clockid)
    {
    case 0: return "realtime";
    case 1: return "mono";
    case 4: return "mono_raw";
    case 7: return "boot";
    case 11: return "tai";
    default: return "perf";
    }
}

gboolean
strata_perf_parse_feature (StrataPerfSource  *self,
                           guint              feat,
                           const guint8      *p,
                           gsize              len,
                           guint64            offset,
                           GError           **error)
{
  StrataSourceInfo *info = strata_source_get_info_mutable (STRATA_SOURCE (self));
  gsize used = 0;

  switch (feat)
    {
    case PERF_FEAT_TRACING_DATA:
      if (!strata_perf_parse_tracing_data (self, p, len, offset, error))
        return FALSE;
      strata_perf_resolve_attr_names (self);
      break;

    case PERF_FEAT_HOSTNAME:
      g_free (info->hostname);
      info->hostname = feature_string (self, p, len, &used);
      break;

    case PERF_FEAT_OSRELEASE:
      g_free (info->kernel_release);
      info->kernel_release = feature_string (self, p, len, &used);
      strata_symbolizer_set_kernel_release (self->symbolizer, info->kernel_release);
      break;

    case PERF_FEAT_NRCPUS:
      if (len >= 8)
        info->n_cpus = MIN (rd32 (self, p), MAX_CPU);
      break;

    case PERF_FEAT_CLOCK_DATA:
      if (len >= 8)
        {
          g_free (info->clock);
          info->clock = g_strdup (strata_perf_clock_name ((gint32) rd32 (self, p + 4)));
        }
      break;

    case PERF_FEAT_SAMPLE_TIME:
      /* The times of the first and last samples, which perf record finds
       * by processing the file once it is written (for build ids), so a
       * file it did not process (-z, --no-buildid) says 0 and 0. A pipe
       * has its features before its samples: it can say nothing. The
       * reader gives an event its sample's time as it is, so the hint is
       * in the same clock. */
      if (!self->pipe && len >= 16)
        {
          guint64 first = rd64 (self, p);
          guint64 last = rd64 (self, p + 8);

          if ((first != 0 || last != 0) && first <= last)
            {
              info->span_first = (gint64) MIN (first, (guint64) G_MAXINT64);
              info->span_last = (gint64) MIN (last, (guint64) G_MAXINT64);
            }
        }
      break;

    case PERF_FEAT_COMPRESSED:
      if (len >= 8)
        {
          g_free (info->compression);
          info->compression = g_strdup (rd32 (self, p + 4) == 1 ? "zstd" : "unknown");
        }
      break;

    case PERF_FEAT_EVENT_DESC:
      {
        guint32 nr, attr_size;
        gsize pos = 8;

        if (len < 8)
          break;
        nr = rd32 (self, p);
        attr_size = rd32 (self, p + 4);
        for (guint32 i = 0; i < nr; i++)
          {
            g_autofree char *name = NULL;
            guint32 nr_ids;

            if (attr_size > len - pos || len - pos - attr_size < 4)
              break;
            pos += attr_size;
            nr_ids = rd32 (self, p + pos);
            pos += 4;
            name = feature_string (self, p + pos, len - pos, &used);
            if (name == NULL)
              break;
            pos += used;
            if (nr_ids > (len - pos) / 8)
              break;
            for (guint32 j = 0; j < nr_ids; j++)
              strata_perf_name_attrs_by_id (self, rd64 (self, p + pos + 8 * j), name);
            pos += 8 * (gsize) nr_ids;
          }
      }
      break;

    default:
      break;
    }

  return TRUE;
}
