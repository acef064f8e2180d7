/* strata-cli-samples.c
 *
 * Top functions of the samples in a time range. A sample activity's arg
 * is its call chain's id in the source; the chains in range are counted
 * first, then each distinct one is symbolized once through the source
 * (lazily: nothing else is looked up), the innermost frame counting as
 * the function's own ("self") time, every distinct function of the chain
 * as its inclusive ("total") time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "strata-cli-format.h"
#include "strata-cli-samples.h"

typedef struct
{
  gint64  ts;
  guint32 chain;
  guint32 channel;
} Hit;

typedef struct
{
  char    *name;
  guint64  self;
  guint64  total;
} Function;

struct _StrataCliSamples
{
  GArray   *hits;        /* Hit */
  GArray   *functions;   /* Function, sorted by self, the top ones */
  guint64   in_range;
  guint64   without_chain;
  gint64    from;
  gint64    to;
  gboolean  kernel_unnamed;
  gboolean  have_symbols;
};

StrataCliSamples *
strata_cli_samples_new (void)
{
  StrataCliSamples *self = g_new0 (StrataCliSamples, 1);

  self->hits = g_array_new (FALSE, FALSE, sizeof (Hit));
  self->functions = g_array_new (FALSE, FALSE, sizeof (Function));
  return self;
}

void
strata_cli_samples_free (StrataCliSamples *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->functions->len; i++)
    g_free (g_array_index (self->functions, Function, i).name);
  g_array_unref (self->functions);
  g_array_unref (self->hits);
  g_free (self);
}

void
strata_cli_samples_add (StrataCliSamples     *self,
                        const StrataActivity *a)
{
  Hit h;

  if (a->kind != STRATA_ACTIVITY_SAMPLE)
    return;
  h.ts = a->start;
  h.chain = a->arg >= 0 ? (guint32) a->arg : G_MAXUINT32;
  h.channel = a->channel;
  g_array_append_val (self->hits, h);
}

static int
function_cmp (gconstpointer a,
              gconstpointer b)
{
  const Function *x = a, *y = b;

  if (x->self != y->self)
    return x->self > y->self ? -1 : 1;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return strcmp (x->name, y->name);
}

/* The chain's key for counting: its id and the process it ran in (the
 * same chain of addresses means different code in different processes). */
static guint64
chain_key (guint32 chain,
           gint32  pid)
{
  return ((guint64) (guint32) pid << 32) | chain;
}

void
strata_cli_samples_resolve (StrataCliSamples *self,
                            StrataTrace      *trace,
                            gint64            from,
                            gint64            to,
                            guint             top)
{
  StrataSource *source = strata_trace_get_source (trace);
  g_autoptr(GHashTable) chains = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (Function));
  const StrataChannel *channels;
  guint n_channels;
  GHashTableIter iter;
  gpointer key, value;

  self->from = from;
  self->to = to;
  channels = strata_trace_get_channels (trace, &n_channels);

  for (guint i = 0; i < self->hits->len; i++)
    {
      const Hit *h = &g_array_index (self->hits, Hit, i);
      gint32 pid;
      guint64 k, *kp;

      if (h->ts < from || h->ts >= to)
        continue;
      self->in_range++;
      if (h->chain == G_MAXUINT32 || h->channel >= n_channels)
        {
          self->without_chain++;
          continue;
        }
      pid = channels[h->channel].tgid > 0 ? channels[h->channel].tgid : channels[h->channel].id;
      k = chain_key (h->chain, pid);
      value = g_hash_table_lookup (chains, &k);
      if (value == NULL)
        {
          kp = g_new (guint64, 1);
          *kp = k;
          g_hash_table_insert (chains, kp, GSIZE_TO_POINTER (1));
        }
      else
        g_hash_table_replace (chains, g_memdup2 (&k, sizeof k), GSIZE_TO_POINTER (GPOINTER_TO_SIZE (value) + 1));
    }

  g_hash_table_iter_init (&iter, chains);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint64 k = *(guint64 *) key;
      guint32 chain = (guint32) k;
      gint32 pid = (gint32) (k >> 32);
      gsize count = GPOINTER_TO_SIZE (value);
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      const guint64 *frames;
      guint n;

      frames = strata_source_get_callchain (source, chain, &n);
      for (guint f = 0; f < n; f++)
        {
          g_autofree char *name = strata_source_symbolize (source, pid, frames[f]);
          gpointer idx;
          Function *fn;

          if (name == NULL)
            {
              name = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", frames[f]);
            }
          else
            self->have_symbols = TRUE;
          if (g_str_has_prefix (name, "[kernel] "))
            self->kernel_unnamed = TRUE;

          if (!g_hash_table_lookup_extended (by_name, name, NULL, &idx))
            {
              Function nf = { g_strdup (name), 0, 0 };

              g_array_append_val (all, nf);
              idx = GUINT_TO_POINTER (all->len - 1);
              g_hash_table_insert (by_name, g_array_index (all, Function, all->len - 1).name, idx);
            }
          fn = &g_array_index (all, Function, GPOINTER_TO_UINT (idx));
          if (f == 0)
            fn->self += count;
          if (!g_hash_table_contains (seen, fn->name))
            {
              g_hash_table_add (seen, fn->name);
              fn->total += count;
            }
        }
    }

  g_array_sort (all, function_cmp);
  for (guint i = 0; i < all->len; i++)
    {
      Function *fn = &g_array_index (all, Function, i);

      if (i < top)
        g_array_append_val (self->functions, *fn);
      else
        g_free (fn->name);
    }
}

void
strata_cli_samples_print (StrataCliSamples *self)
{
  g_autofree char *from = NULL, *to = NULL;

  if (self->hits->len == 0)
    return;

  from = strata_format_timestamp (self->from);
  to = strata_format_timestamp (self->to);
  printf ("\nTop functions in samples, %s to %s (%" G_GUINT64_FORMAT " samples",
          from, to, self->in_range);
  if (self->without_chain > 0)
    printf (", %" G_GUINT64_FORMAT " without a call chain", self->without_chain);
  printf (")\n");
  printf ("  %10s %7s %10s %7s  %s\n", "self", "", "total", "", "function");
  for (guint i = 0; i < self->functions->len; i++)
    {
      const Function *fn = &g_array_index (self->functions, Function, i);
      double whole = MAX (self->in_range, 1);

      printf ("  %10" G_GUINT64_FORMAT " %6.2f%% %10" G_GUINT64_FORMAT " %6.2f%%  %s\n",
              fn->self, 100.0 * fn->self / whole, fn->total, 100.0 * fn->total / whole, fn->name);
    }
  if (self->kernel_unnamed)
    printf ("  (kernel addresses are not named: the file has no kallsyms and this "
            "machine's are not the recorded kernel's)\n");
}

void
strata_cli_samples_json (StrataCliSamples *self,
                         StrataJsonWriter *w)
{
  strata_json_writer_key (w, "samples");
  strata_json_writer_begin_object (w);
  strata_json_writer_key (w, "from_ns");
  strata_json_writer_int (w, self->from);
  strata_json_writer_key (w, "to_ns");
  strata_json_writer_int (w, self->to);
  strata_json_writer_key (w, "count");
  strata_json_writer_uint (w, self->in_range);
  strata_json_writer_key (w, "without_callchain");
  strata_json_writer_uint (w, self->without_chain);
  strata_json_writer_key (w, "kernel_named");
  strata_json_writer_bool (w, !self->kernel_unnamed);
  strata_json_writer_key (w, "functions");
  strata_json_writer_begin_array (w);
  for (guint i = 0; i < self->functions->len; i++)
    {
      const Function *fn = &g_array_index (self->functions, Function, i);

      strata_json_writer_begin_object (w);
      strata_json_writer_key (w, "name");
      strata_json_writer_string (w, fn->name);
      strata_json_writer_key (w, "self");
      strata_json_writer_uint (w, fn->self);
      strata_json_writer_key (w, "total");
      strata_json_writer_uint (w, fn->total);
      strata_json_writer_end_object (w);
    }
  strata_json_writer_end_array (w);
  strata_json_writer_end_object (w);
}
