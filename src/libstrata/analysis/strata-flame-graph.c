/* strata-flame-graph.c
 *
 * See strata-flame-graph.h. A sample set is a second read of the trace
 * (the index keeps activities, not call chains: they live in the
 * source), keeping only the samples, 24 bytes each; a flame graph counts
 * the distinct (chain, process) pairs of the samples it selects first,
 * so each chain is symbolized once, then merges them into the tree.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-flame-graph.h"
#include "strata-loader.h"

typedef struct
{
  gint64  ts;
  guint32 channel;
  guint32 chain;     /* the source's call chain id, or G_MAXUINT32 */
  guint32 event;     /* pool id of the event's name */
  guint32 flags;     /* StrataSampleFlags */
} Sample;

struct _StrataSampleSet
{
  gatomicrefcount  ref;
  StrataTrace     *trace;
  GArray          *samples;   /* Sample, in time order */
};

static void
collect (const StrataActivity *a,
         gpointer              data)
{
  StrataSampleSet *self = data;
  Sample s;

  if (a->kind != STRATA_ACTIVITY_SAMPLE)
    return;
  s.ts = a->start;
  s.channel = a->channel;
  s.chain = a->arg >= 0 ? (guint32) a->arg : G_MAXUINT32;
  s.event = a->label;
  s.flags = a->state;
  g_array_append_val (self->samples, s);
}

static int
by_time (gconstpointer pa,
         gconstpointer pb)
{
  const Sample *a = pa, *b = pb;

  return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/**
 * strata_sample_set_load:
 * @path: a trace
 * @cancellable: (nullable): stops the read
 *
 * Reads @path once more for its samples, keeping only them and the
 * source that resolves their call chains. A damaged file gives the
 * samples before the damage (the trace says where it is).
 *
 * Returns: (transfer full): the samples, or NULL with @error set
 */
StrataSampleSet *
strata_sample_set_load (const char    *path,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(StrataSampleSet) self = g_new0 (StrataSampleSet, 1);
  g_autoptr(StrataLoader) loader = strata_loader_new (path);

  g_atomic_ref_count_init (&self->ref);
  self->samples = g_array_new (FALSE, FALSE, sizeof (Sample));
  strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
  strata_loader_set_keep_activities (loader, FALSE);
  strata_loader_set_statistics (loader, FALSE);
  strata_loader_set_sink (loader, collect, NULL, self);
  self->trace = strata_loader_load (loader, cancellable, error);
  if (self->trace == NULL)
    return NULL;
  /* The model hands a thread's instants over in time order, not all
   * threads' together. */
  g_array_sort (self->samples, by_time);
  return g_steal_pointer (&self);
}

StrataSampleSet *
strata_sample_set_ref (StrataSampleSet *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref);
  return self;
}

void
strata_sample_set_unref (StrataSampleSet *self)
{
  if (self == NULL || !g_atomic_ref_count_dec (&self->ref))
    return;
  g_clear_object (&self->trace);
  g_clear_pointer (&self->samples, g_array_unref);
  g_free (self);
}

/**
 * strata_sample_set_get_trace:
 *
 * Returns: (transfer none): the trace the samples were read with: its
 *   channels, strings and source
 */
StrataTrace *
strata_sample_set_get_trace (StrataSampleSet *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->trace;
}

guint
strata_sample_set_get_size (StrataSampleSet *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->samples->len;
}

static int
compare_lines (gconstpointer pa,
               gconstpointer pb)
{
  return strcmp (*(char * const *) pa, *(char * const *) pb);
}

/**
 * strata_sample_set_list_events:
 *
 * Returns: (transfer container) (element-type utf8): the names of the
 *   events that have samples, sorted
 */
GPtrArray *
strata_sample_set_list_events (StrataSampleSet *self)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  GPtrArray *names = g_ptr_array_new ();

  g_return_val_if_fail (self != NULL, names);

  for (guint i = 0; i < self->samples->len; i++)
    {
      guint32 e = g_array_index (self->samples, Sample, i).event;

      if (g_hash_table_add (seen, GUINT_TO_POINTER (e + 1)))
        g_ptr_array_add (names, (gpointer) strata_trace_get_string (self->trace, e));
    }
  g_ptr_array_sort (names, compare_lines);
  return names;
}

void
strata_flame_filter_init (StrataFlameFilter *filter)
{
  g_return_if_fail (filter != NULL);

  filter->from = G_MININT64;
  filter->to = G_MAXINT64;
  filter->tid = -1;
  filter->pid = -1;
  filter->event = NULL;
  filter->thread_root = TRUE;
  filter->addresses = FALSE;
}

struct _StrataFlameGraph
{
  GArray       *nodes;      /* StrataFlameNode */
  GStringChunk *names;
  GHashTable   *children;   /* (parent, name) -> node + 1 */
  guint64       without_chain;
  guint32       max_depth;
};

typedef struct
{
  guint32     parent;
  const char *name;       /* interned in the graph's chunk: compared by address */
} ChildKey;

static guint
child_hash (gconstpointer p)
{
  const ChildKey *k = p;

  return g_direct_hash (k->name) ^ (k->parent * 2654435761u);
}

static gboolean
child_equal (gconstpointer pa,
             gconstpointer pb)
{
  const ChildKey *a = pa, *b = pb;

  return a->parent == b->parent && a->name == b->name;
}

static guint32
child_of (StrataFlameGraph *self,
          guint32           parent,
          const char       *name)
{
  ChildKey k = { parent, g_string_chunk_insert_const (self->names, name) };
  gpointer found = g_hash_table_lookup (self->children, &k);
  StrataFlameNode node = { 0 };
  StrataFlameNode *p;
  guint32 index;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;

  p = &g_array_index (self->nodes, StrataFlameNode, parent);
  node.name = k.name;
  node.parent = parent;
  node.first_child = STRATA_FLAME_NONE;
  node.next_sibling = p->first_child;
  node.depth = p->depth + 1;
  index = self->nodes->len;
  g_array_append_val (self->nodes, node);
  g_array_index (self->nodes, StrataFlameNode, parent).first_child = index;
  self->max_depth = MAX (self->max_depth, node.depth);
  g_hash_table_insert (self->children, g_memdup2 (&k, sizeof k), GUINT_TO_POINTER (index + 1));
  return index;
}

/* Adds @count samples along a path of @n names, outermost first. */
static void
add_path (StrataFlameGraph  *self,
          const char *const *names,
          guint              n,
          guint64            count)
{
  guint32 node = 0;

  g_array_index (self->nodes, StrataFlameNode, 0).total += count;
  for (guint i = 0; i < n; i++)
    {
      node = child_of (self, node, names[i]);
      g_array_index (self->nodes, StrataFlameNode, node).total += count;
    }
  g_array_index (self->nodes, StrataFlameNode, node).self += count;
}

static int
by_total_descending (gconstpointer pa,
                     gconstpointer pb,
                     gpointer      data)
{
  const StrataFlameNode *nodes = data;
  const StrataFlameNode *a = &nodes[*(const guint32 *) pa];
  const StrataFlameNode *b = &nodes[*(const guint32 *) pb];

  if (a->total != b->total)
    return a->total > b->total ? -1 : 1;
  return strcmp (a->name, b->name);
}

/* Children in the order a widget draws them: the most samples first. */
static void
sort_children (StrataFlameGraph *self)
{
  StrataFlameNode *nodes = (StrataFlameNode *) (gpointer) self->nodes->data;
  g_autoptr(GArray) kids = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < self->nodes->len; i++)
    {
      g_array_set_size (kids, 0);
      for (guint32 c = nodes[i].first_child; c != STRATA_FLAME_NONE; c = nodes[c].next_sibling)
        g_array_append_val (kids, c);
      if (kids->len < 2)
        continue;
      g_array_sort_with_data (kids, by_total_descending, nodes);
      nodes[i].first_child = g_array_index (kids, guint32, 0);
      for (guint k = 0; k < kids->len; k++)
        nodes[g_array_index (kids, guint32, k)].next_sibling =
          k + 1 < kids->len ? g_array_index (kids, guint32, k + 1) : STRATA_FLAME_NONE;
    }
}

/* The chain's key for counting: its id and the process it ran in (the
 * same addresses are different code in different processes). */
typedef struct
{
  guint32 chain;
  guint32 channel;
  guint64 count;
} ChainUse;

/* A symbol is a name per (process, address). */
typedef struct
{
  gint32  pid;
  guint64 address;
  char   *name;
} Symbol;

static guint
symbol_hash (gconstpointer p)
{
  const Symbol *s = p;
  return g_int64_hash (&s->address) ^ (guint) s->pid * 2654435761u;
}

static gboolean
symbol_equal (gconstpointer pa,
              gconstpointer pb)
{
  const Symbol *a = pa, *b = pb;
  return a->pid == b->pid && a->address == b->address;
}

static void
symbol_free (gpointer p)
{
  Symbol *s = p;

  g_free (s->name);
  g_free (s);
}

static guint
chain_use_hash (gconstpointer p)
{
  const ChainUse *u = p;
  return u->chain * 2654435761u ^ u->channel;
}

static gboolean
chain_use_equal (gconstpointer pa,
                 gconstpointer pb)
{
  const ChainUse *a = pa, *b = pb;
  return a->chain == b->chain && a->channel == b->channel;
}

/* Whether the sample is of the event asked for ("sched_switch" names
 * "sched:sched_switch" too), or with none asked for, a sample of the CPU
 * rather than a tracepoint's call chain; remembering the last id found
 * to be and not to be it (samples of one event come in runs). */
static inline gboolean
event_matches (StrataTrace  *trace,
               const char   *wanted,
               const Sample *s,
               guint32      *yes,
               guint32      *no)
{
  const char *name, *colon;
  gboolean match;

  if (wanted == NULL)
    return (s->flags & STRATA_SAMPLE_TRACEPOINT) == 0;
  if (strcmp (wanted, "*") == 0)
    return TRUE;
  if (s->event == *yes)
    return TRUE;
  if (s->event == *no)
    return FALSE;
  name = strata_trace_get_string (trace, s->event);
  colon = name != NULL ? strrchr (name, ':') : NULL;
  match = g_strcmp0 (name, wanted) == 0 ||
          (colon != NULL && strchr (wanted, ':') == NULL && strcmp (colon + 1, wanted) == 0);
  if (match)
    *yes = s->event;
  else
    *no = s->event;
  return match;
}

/**
 * strata_flame_graph_new:
 * @filter: (nullable): which samples; %NULL for all of them
 *
 * Returns: (transfer full): the flame graph of the samples @filter picks
 */
StrataFlameGraph *
strata_flame_graph_new (StrataSampleSet         *samples,
                        const StrataFlameFilter *filter)
{
  StrataFlameGraph *self;
  StrataFlameFilter all;
  StrataTrace *trace;
  StrataSource *source;
  const StrataChannel *channels;
  g_autoptr(GHashTable) uses = NULL;
  g_autoptr(GHashTable) symbols = NULL;
  g_autoptr(GPtrArray) path = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key, value;
  StrataFlameNode root = { 0 };
  guint32 event_yes = STRATA_STRING_NONE, event_no = STRATA_STRING_NONE;
  guint n_channels, lo, hi;

  g_return_val_if_fail (samples != NULL, NULL);

  if (filter == NULL)
    {
      strata_flame_filter_init (&all);
      filter = &all;
    }

  self = g_new0 (StrataFlameGraph, 1);
  self->nodes = g_array_new (FALSE, FALSE, sizeof (StrataFlameNode));
  self->names = g_string_chunk_new (4096);
  self->children = g_hash_table_new_full (child_hash, child_equal, g_free, NULL);
  root.name = g_string_chunk_insert_const (self->names, "all");
  root.parent = STRATA_FLAME_NONE;
  root.first_child = STRATA_FLAME_NONE;
  root.next_sibling = STRATA_FLAME_NONE;
  g_array_append_val (self->nodes, root);

  trace = samples->trace;
  source = strata_trace_get_source (trace);
  channels = strata_trace_get_channels (trace, &n_channels);

  /* The samples in range, by bisection: they are in time order. */
  for (lo = 0, hi = samples->samples->len; lo < hi;)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (samples->samples, Sample, mid).ts < filter->from)
        lo = mid + 1;
      else
        hi = mid;
    }

  uses = g_hash_table_new_full (chain_use_hash, chain_use_equal, g_free, NULL);
  symbols = g_hash_table_new_full (symbol_hash, symbol_equal, symbol_free, NULL);
  for (guint i = lo; i < samples->samples->len; i++)
    {
      const Sample *s = &g_array_index (samples->samples, Sample, i);
      const StrataChannel *ch;
      ChainUse u = { 0 };

      if (s->ts >= filter->to)
        break;
      if (s->channel >= n_channels)
        continue;
      ch = &channels[s->channel];
      if ((filter->tid >= 0 && ch->id != filter->tid) ||
          (filter->pid >= 0 && (ch->tgid > 0 ? ch->tgid : ch->id) != filter->pid) ||
          !event_matches (trace, filter->event, s, &event_yes, &event_no))
        continue;
      if (s->chain == G_MAXUINT32)
        self->without_chain++;
      u.chain = s->chain;
      u.channel = s->channel;
      if (g_hash_table_lookup_extended (uses, &u, &key, &value))
        ((ChainUse *) key)->count++;
      else
        {
          ChainUse *fresh = g_memdup2 (&u, sizeof u);

          fresh->count = 1;
          g_hash_table_add (uses, fresh);
        }
    }

  /* Each distinct chain of each thread once: symbolized through the
   * source, a name per (process, address). */
  g_hash_table_iter_init (&iter, uses);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const ChainUse *u = key;
      const StrataChannel *ch = &channels[u->channel];
      gint32 pid = ch->tgid > 0 ? ch->tgid : ch->id;
      const guint64 *frames = NULL;
      const char *name;
      guint n = 0;

      g_ptr_array_set_size (path, 0);
      if (filter->thread_root)
        {
          const char *comm = strata_trace_get_string (trace, ch->name);

          g_ptr_array_add (path, (gpointer) (comm != NULL && comm[0] != '\0' ? comm : "[unknown]"));
        }
      if (u->chain != G_MAXUINT32 && source != NULL)
        frames = strata_source_get_callchain (source, u->chain, &n);
      for (guint f = n; f > 0; f--)
        {
          Symbol k = { pid, frames[f - 1], NULL };
          Symbol *sym = g_hash_table_lookup (symbols, &k);

          if (sym == NULL)
            {
              sym = g_memdup2 (&k, sizeof k);
              sym->name = source != NULL && !filter->addresses
                          ? strata_source_symbolize (source, pid, k.address) : NULL;
              if (sym->name == NULL)
                sym->name = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", k.address);
              g_hash_table_add (symbols, sym);
            }
          name = sym->name;
          g_ptr_array_add (path, (gpointer) name);
        }
      add_path (self, (const char *const *) path->pdata, path->len, u->count);
    }

  sort_children (self);
  return self;
}

void
strata_flame_graph_free (StrataFlameGraph *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->nodes);
  g_string_chunk_free (self->names);
  g_hash_table_unref (self->children);
  g_free (self);
}

/**
 * strata_flame_graph_get_nodes:
 * @n_nodes: (out): how many
 *
 * Returns: (transfer none) (array length=n_nodes): the frames; node 0 is
 *   the root ("all"), a child always comes after its parent
 */
const StrataFlameNode *
strata_flame_graph_get_nodes (StrataFlameGraph *self,
                              guint            *n_nodes)
{
  g_return_val_if_fail (self != NULL, NULL);

  *n_nodes = self->nodes->len;
  return (const StrataFlameNode *) (gconstpointer) self->nodes->data;
}

/* The samples selected that have no call chain (counted at the root, or
 * at their thread's frame). */
guint64
strata_flame_graph_get_without_chain (StrataFlameGraph *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->without_chain;
}

guint32
strata_flame_graph_get_max_depth (StrataFlameGraph *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->max_depth;
}

/**
 * strata_flame_graph_to_folded:
 *
 * The graph as folded stacks: a line for each frame that is the
 * innermost of some samples, its path from the outermost frame joined
 * with ';' (a ';' or a newline in a name becomes '_'), a space and the
 * count; lines sorted, as stackcollapse-perf.pl sorts them.
 *
 * Returns: (transfer full): the text
 */
char *
strata_flame_graph_to_folded (StrataFlameGraph *self)
{
  const StrataFlameNode *nodes;
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();
  GString *out = g_string_new (NULL);
  guint n;

  g_return_val_if_fail (self != NULL, NULL);

  nodes = strata_flame_graph_get_nodes (self, &n);
  for (guint i = 1; i < n; i++)
    {
      GString *line;

      if (nodes[i].self == 0)
        continue;
      g_ptr_array_set_size (chain, 0);
      for (guint32 j = i; j != 0; j = nodes[j].parent)
        g_ptr_array_add (chain, (gpointer) nodes[j].name);
      line = g_string_new (NULL);
      for (guint k = chain->len; k > 0; k--)
        {
          const char *name = g_ptr_array_index (chain, k - 1);

          if (k < chain->len)
            g_string_append_c (line, ';');
          for (const char *c = name; *c; c++)
            g_string_append_c (line, *c == ';' || *c == '\n' ? '_' : *c);
        }
      g_string_append_printf (line, " %" G_GUINT64_FORMAT, nodes[i].self);
      g_ptr_array_add (lines, g_string_free (line, FALSE));
    }
  g_ptr_array_sort (lines, compare_lines);
  for (guint i = 0; i < lines->len; i++)
    {
      g_string_append (out, g_ptr_array_index (lines, i));
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}
