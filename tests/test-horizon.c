/* test-horizon.c
 *
 * What the kernel model says about the time before its horizon is final.
 * At checkpoints in real recordings, the activities completed so far plus
 * the open ones, cut at the horizon, must equal the activities of the whole
 * run cut at the same point. This is what lets a zoom tree be queried while
 * it grows, with finished chunks that never change.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-test-support.h"

static const char *fixtures[] = {
  "sched-small.dat", "sched-tgid.txt", "lossy.dat", "lossy.txt", "instances.dat",
};

static void
collect (const StrataActivity *a,
         gpointer              user_data)
{
  g_array_append_vals (user_data, a, 1);
}

/* The part of each activity before @h: an interval reaching @h or beyond
 * is cut there and says nothing of its end. */
static GArray *
cut (GArray *activities,
     gint64  h)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

  for (guint i = 0; i < activities->len; i++)
    {
      StrataActivity a = g_array_index (activities, StrataActivity, i);

      if (a.start >= h)
        continue;
      if (!strata_activity_is_instant (&a) &&
          (a.end >= h || (a.flags & STRATA_ACTIVITY_FLAG_CONTINUES_AFTER)))
        {
          a.end = MIN (a.end, h);
          a.flags &= ~(STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST);
          a.flags |= STRATA_ACTIVITY_FLAG_CONTINUES_AFTER;
        }
      g_array_append_val (out, a);
    }

  return out;
}

static int
compare (gconstpointer pa,
         gconstpointer pb)
{
  return memcmp (pa, pb, sizeof (StrataActivity));
}

static StrataKernelModel *
new_model (StrataSource *source,
           GArray       *sink)
{
  const StrataSourceInfo *info = strata_source_get_info (source);
  StrataKernelModel *model = strata_kernel_model_new (strata_source_get_strings (source),
                                                      info->lost_per_cpu);

  strata_kernel_model_set_layout (model, info->instances->len, info->n_cpus);
  strata_kernel_model_set_sink (model, collect, sink);

  return model;
}

static void
test_horizon_is_final (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[f]);
      g_autoptr(StrataSource) source = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) events = strata_test_read_events (path, &source, &error);
      g_autoptr(GArray) final = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      g_autoptr(StrataKernelModel) whole = NULL;
      const StrataEvent *ev;
      guint moved = 0;

      g_assert_no_error (error);
      ev = (const StrataEvent *) (gpointer) events->data;

      whole = new_model (source, final);
      strata_kernel_model_feed (whole, ev, events->len);
      strata_kernel_model_finish (whole, ev[events->len - 1].ts);

      for (guint k = 1; k < 24; k++)
        {
          g_autoptr(GArray) known = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
          g_autoptr(StrataKernelModel) part = new_model (source, known);
          g_autoptr(GArray) got = NULL;
          g_autoptr(GArray) want = NULL;
          guint n = events->len * k / 24;
          gint64 h;

          /* A checkpoint between two timestamps: an event at the same
           * time as the last one fed could still close what is open. */
          while (n < events->len && n > 0 && ev[n].ts == ev[n - 1].ts)
            n++;
          if (n == 0 || n >= events->len)
            continue;

          strata_kernel_model_feed (part, ev, n);
          h = strata_kernel_model_get_horizon (part);
          g_assert_cmpint (h, <=, ev[n - 1].ts);
          strata_kernel_model_foreach_open (part, collect, known);

          if (h > ev[0].ts)
            moved++;

          got = cut (known, h);
          want = cut (final, h);
          g_array_sort (got, compare);
          g_array_sort (want, compare);

          if (got->len != want->len ||
              (got->len > 0 &&
               memcmp (got->data, want->data, got->len * sizeof (StrataActivity)) != 0))
            g_error ("%s: at event %u (horizon %" G_GINT64_FORMAT "), %u activities were known "
                     "before the horizon, the whole run has %u there",
                     fixtures[f], n, h, got->len, want->len);
        }

      /* The horizon does move: a live view would not stand still. */
      g_assert_cmpuint (moved, >, 12);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/kernel-model/horizon-is-final", test_horizon_is_final);
  return g_test_run ();
}
