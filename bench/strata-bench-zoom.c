/* strata-bench-zoom.c
 *
 * The zoom-tree benchmark. `build` feeds a generated activity stream to a
 * zoom tree the way the kernel model would (or only generates it, or only
 * fills a raw store, to show what the tree itself costs) and prints one
 * line of key=value results: time, peak RSS, sizes and chunks per level.
 * `query` builds a tree and, beside it, the Nanoscope visualizer's
 * structure (per zoom level and per row, the activities longer than the
 * level's minimum duration), then times random one-screen viewports at
 * every level with both and prints markdown tables. Each size runs in a
 * process of its own so the peak RSS is that size's; run-zoom-tree.sh
 * drives it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>
#include <time.h>

#include "strata-test-streams.h"

/* The kernel model's sink is advanced after each batch of events; the
 * tests' helper advances every 4096 activities, and so do we. */
#define FEED_BATCH        4096
#define VIEWPORT_PIXELS   1920
/* Items the query output arrays have room for before the first query. */
#define OUT_RESERVE       (1u << 20)

typedef struct
{
  StrataTestStreamKind kind;
  guint64              n;
  guint32              seed;
  guint                threshold;
} StrataBenchInput;

static gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* The CPU time the process has used (all threads, user and system), in
 * ns: unlike the wall clock, it does not count the time other processes
 * on the machine took from us. */
static gint64
cpu_ns (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ((gint64) ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * G_GINT64_CONSTANT (1000000000) +
         ((gint64) ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* A field of /proc/self/status, in KiB, or 0. */
static guint64
status_kb (const char *field)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  line = strstr (status, field);
  if (line == NULL)
    return 0;
  return g_ascii_strtoull (line + strlen (field), NULL, 10);
}

/* The process's peak resident set, in KiB. */
static guint64
peak_rss_kb (void)
{
  return status_kb ("VmHWM:");
}

/* Every this many activities, feed_tree() reports to stderr. */
static guint64 progress_every;

static StrataTestStream *
input_stream (const StrataBenchInput *input)
{
  return strata_test_stream_new (input->kind, input->n, input->seed);
}

/* Feeds the stream as strata_test_stream_build() feeds an array: every
 * activity added, an advance every FEED_BATCH with the horizon at the
 * next activity's start, then finish. Returns the time finish took. */
static gint64
feed_tree (StrataZoomTree   *tree,
           StrataTestStream *stream)
{
  StrataActivity a, next;
  gboolean have = strata_test_stream_next (stream, &a);
  guint64 i = 0;
  gint64 t0 = now_ns ();

  while (have)
    {
      gboolean more = strata_test_stream_next (stream, &next);

      strata_zoom_tree_add (&a, tree);
      if (++i % FEED_BATCH == 0 && more)
        strata_zoom_tree_advance (tree, next.start, NULL, NULL);
      if (progress_every > 0 && i % progress_every == 0)
        g_printerr ("progress: %" G_GUINT64_FORMAT " activities, %.1f s, RSS %.0f MiB, tree %.0f MiB\n",
                    i, (now_ns () - t0) / 1e9, status_kb ("VmRSS:") / 1024.0,
                    strata_zoom_tree_get_size (tree) / 1048576.0);
      a = next;
      have = more;
    }

  t0 = now_ns ();
  strata_zoom_tree_finish (tree);
  return now_ns () - t0;
}

/* Only generates: the floor under every build. The checksum keeps the
 * loop from being optimised away. */
static guint64
drain_stream (StrataTestStream *stream)
{
  StrataActivity a;
  guint64 checksum = 0;

  while (strata_test_stream_next (stream, &a))
    checksum += (guint64) a.start ^ a.channel;

  return checksum;
}

/* ---- The pipelined build: the stream generated in a second thread. ---- */

typedef struct
{
  StrataActivity activities[FEED_BATCH];
  guint          n;
  gint64         horizon;   /* the next batch's first start */
  gboolean       last;
} FeedBatch;

typedef struct
{
  StrataTestStream *stream;
  GAsyncQueue      *full;
  GAsyncQueue      *empty;
} Producer;

static gpointer
produce (gpointer data)
{
  Producer *p = data;
  StrataActivity carry;
  gboolean have = strata_test_stream_next (p->stream, &carry);

  for (;;)
    {
      FeedBatch *batch = g_async_queue_pop (p->empty);

      batch->n = 0;
      while (have && batch->n < FEED_BATCH)
        {
          batch->activities[batch->n++] = carry;
          have = strata_test_stream_next (p->stream, &carry);
        }
      batch->last = !have;
      batch->horizon = have ? carry.start : G_MAXINT64;
      g_async_queue_push (p->full, batch);
      if (!have)
        return NULL;
    }
}

/* The same feeding as feed_tree(), but the activities are generated by a
 * producer thread while this one builds: does a second core pay? */
static gint64
feed_tree_pipelined (StrataZoomTree   *tree,
                     StrataTestStream *stream)
{
  Producer p = { stream, g_async_queue_new (), g_async_queue_new () };
  FeedBatch *batches = g_new (FeedBatch, 4);
  GThread *thread;
  gint64 t0;

  for (guint i = 0; i < 4; i++)
    g_async_queue_push (p.empty, &batches[i]);
  thread = g_thread_new ("producer", produce, &p);

  for (;;)
    {
      FeedBatch *batch = g_async_queue_pop (p.full);
      gboolean last = batch->last;

      for (guint i = 0; i < batch->n; i++)
        strata_zoom_tree_add (&batch->activities[i], tree);
      if (!last)
        strata_zoom_tree_advance (tree, batch->horizon, NULL, NULL);
      g_async_queue_push (p.empty, batch);
      if (last)
        break;
    }

  g_thread_join (thread);
  g_async_queue_unref (p.full);
  g_async_queue_unref (p.empty);
  g_free (batches);

  t0 = now_ns ();
  strata_zoom_tree_finish (tree);
  return now_ns () - t0;
}

static StrataZoomTree *
new_tree (const StrataBenchInput *input)
{
  StrataZoomParams params;
  g_autoptr(GError) error = NULL;
  StrataZoomTree *tree;

  strata_zoom_params_init (&params);
  if (input->threshold > 0)
    params.density_threshold = input->threshold;
  tree = strata_zoom_tree_new (&params, &error);
  if (tree == NULL)
    g_error ("strata-bench-zoom: %s", error->message);
  return tree;
}

/* ---- Two independent builds at once: does the machine scale? ---- */

typedef struct
{
  StrataBenchInput input;
  gint64           wall;
} TwinBuild;

static gpointer
twin_build (gpointer data)
{
  TwinBuild *twin = data;
  g_autoptr(StrataTestStream) stream = strata_test_stream_new (twin->input.kind, twin->input.n, twin->input.seed);
  g_autoptr(StrataZoomTree) tree = new_tree (&twin->input);
  gint64 t0 = now_ns ();

  feed_tree (tree, stream);
  twin->wall = now_ns () - t0;
  return NULL;
}

/* "L0:1,L1:4,..." and the sum, over the levels of the finished tree. */
static char *
describe_chunks (StrataZoomTree *tree,
                 guint64        *n_chunks)
{
  GString *s = g_string_new (NULL);
  StrataZoomGeometry g;

  *n_chunks = 0;
  if (!strata_zoom_tree_get_geometry (tree, &g))
    return g_string_free (s, FALSE);

  for (guint level = 0; level < g.n_levels; level++)
    {
      g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (tree, level);

      g_string_append_printf (s, "%sL%u:%u", level > 0 ? "," : "", level, chunks->len);
      *n_chunks += chunks->len;
    }

  return g_string_free (s, FALSE);
}

/* Per level: what its pre-calculated chunks hold. An item stands for
 * `count` activities; where that is close to one per item, the level's
 * chunks are a copy of the raw store in a bigger struct. */
static void
print_level_detail (StrataZoomTree *tree)
{
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  guint n_channels = strata_raw_store_get_n_channels (strata_zoom_tree_get_raw_store (tree));
  StrataZoomGeometry g;

  if (!strata_zoom_tree_get_geometry (tree, &g))
    return;

  for (guint level = 0; level < g.n_levels; level++)
    {
      g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (tree, level);
      guint64 bytes = 0, n_items = 0, represented = 0, aggregates = 0, instants = 0;

      for (guint i = 0; i < chunks->len; i++)
        {
          const StrataZoomChunkInfo *info = &g_array_index (chunks, StrataZoomChunkInfo, i);

          bytes += info->size;
          for (guint32 c = 0; c < n_channels; c++)
            {
              g_array_set_size (items, 0);
              if (!strata_zoom_tree_get_chunk_items (tree, level, info->index, c, items))
                continue;
              for (guint k = 0; k < items->len; k++)
                {
                  const StrataZoomItem *item = &g_array_index (items, StrataZoomItem, k);

                  n_items++;
                  represented += item->count;
                  aggregates += (item->flags & STRATA_ZOOM_ITEM_AGGREGATE) != 0;
                  instants += item->start == item->end;
                }
            }
        }

      printf ("level=%u pixel_ns=%" G_GINT64_FORMAT " chunks=%u bytes=%" G_GUINT64_FORMAT
              " items=%" G_GUINT64_FORMAT " represented=%" G_GUINT64_FORMAT
              " aggregates=%" G_GUINT64_FORMAT " instants=%" G_GUINT64_FORMAT "\n",
              level, strata_zoom_geometry_pixel (&g, level), chunks->len, bytes, n_items,
              represented, aggregates, instants);
    }
}

/* ---- build ---- */

/* One line of key=value: the timings first, then what @mode adds. */
static void
print_build (const StrataBenchInput *input,
             const char             *mode,
             gint64                  wall,
             gint64                  cpu,
             const char             *extra)
{
  printf ("mode=%s kind=%s n=%" G_GUINT64_FORMAT " wall_s=%.4f cpu_s=%.4f rate=%.0f rss_kb=%" G_GUINT64_FORMAT " %s\n",
          mode, strata_test_stream_kind_name (input->kind), input->n, wall / 1e9, cpu / 1e9,
          input->n / MAX (wall / 1e9, 1e-9), peak_rss_kb (), extra);
}

static int
run_build (const StrataBenchInput *input,
           const char             *mode,
           gboolean                detail)
{
  g_autoptr(StrataTestStream) stream = input_stream (input);
  g_autofree char *extra = NULL;
  gint64 t0, c0, finish;

  if (g_str_equal (mode, "gen"))
    {
      guint64 checksum;

      t0 = now_ns (), c0 = cpu_ns ();
      checksum = drain_stream (stream);
      extra = g_strdup_printf ("checksum=%" G_GUINT64_FORMAT, checksum);
      print_build (input, mode, now_ns () - t0, cpu_ns () - c0, extra);
      return 0;
    }

  if (g_str_equal (mode, "raw"))
    {
      g_autoptr(StrataRawStore) store = strata_raw_store_new ();
      StrataActivity a;

      t0 = now_ns (), c0 = cpu_ns ();
      while (strata_test_stream_next (stream, &a))
        strata_raw_store_add (&a, store);
      extra = g_strdup_printf ("raw_n=%" G_GUINT64_FORMAT, strata_raw_store_get_size (store));
      print_build (input, mode, now_ns () - t0, cpu_ns () - c0, extra);
      return 0;
    }

  if (g_str_equal (mode, "tree") || g_str_equal (mode, "pipelined"))
    {
      g_autoptr(StrataZoomTree) tree = new_tree (input);
      g_autofree char *chunks = NULL;
      StrataZoomGeometry g = { 0 };
      guint64 raw_n, tree_bytes, n_chunks;
      gint64 wall, cpu;

      t0 = now_ns (), c0 = cpu_ns ();
      if (g_str_equal (mode, "tree"))
        finish = feed_tree (tree, stream);
      else
        finish = feed_tree_pipelined (tree, stream);
      wall = now_ns () - t0, cpu = cpu_ns () - c0;

      strata_zoom_tree_get_geometry (tree, &g);
      raw_n = strata_raw_store_get_size (strata_zoom_tree_get_raw_store (tree));
      tree_bytes = strata_zoom_tree_get_size (tree);
      chunks = describe_chunks (tree, &n_chunks);
      extra = g_strdup_printf ("threshold=%u finish_s=%.4f raw_n=%" G_GUINT64_FORMAT
                               " raw_bytes=%" G_GUINT64_FORMAT " tree_bytes=%" G_GUINT64_FORMAT
                               " tree_raw_ratio=%.4f levels=%u buffers=%" G_GUINT64_FORMAT
                               " n_chunks=%" G_GUINT64_FORMAT " chunks=%s",
                               g.density_threshold, finish / 1e9, raw_n,
                               raw_n * (guint64) sizeof (StrataActivity), tree_bytes,
                               raw_n > 0 ? (double) tree_bytes / (raw_n * (double) sizeof (StrataActivity)) : 0.0,
                               g.n_levels, strata_zoom_tree_get_n_buffers (tree), n_chunks, chunks);
      print_build (input, mode, wall, cpu, extra);
      if (detail)
        print_level_detail (tree);
      return 0;
    }

  if (g_str_equal (mode, "twin"))
    {
      TwinBuild twins[2] = { { *input, 0 }, { *input, 0 } };
      GThread *threads[2];

      twins[1].input.seed = input->seed + 1;
      t0 = now_ns (), c0 = cpu_ns ();
      for (guint i = 0; i < 2; i++)
        threads[i] = g_thread_new ("twin", twin_build, &twins[i]);
      for (guint i = 0; i < 2; i++)
        g_thread_join (threads[i]);
      extra = g_strdup_printf ("twin0_s=%.4f twin1_s=%.4f", twins[0].wall / 1e9, twins[1].wall / 1e9);
      print_build (input, mode, now_ns () - t0, cpu_ns () - c0, extra);
      return 0;
    }

  g_printerr ("strata-bench-zoom: unknown build mode %s (gen, raw, tree, pipelined, twin)\n", mode);
  return 2;
}

/* ---- The Nanoscope baseline ----
 *
 * Nanoscope Visualizer (Uber, 2018): per zoom level, per row, the list of
 * the calls whose duration exceeds the level's minimum duration, in start
 * order; a viewport is drawn by a binary search per visible row and a
 * scan. Its rows are call-stack depths, whose calls never overlap: ours
 * are the lanes, a channel at one nesting depth. Its lists hold references
 * to the call objects, which exist once: here a row keeps its activities
 * once (in start order) and each level's list holds 4-byte indices into
 * them. Instants last 0 ns and are never longer than any minimum duration,
 * so no list holds one; the rows keep only intervals.
 */

#define NANO_DEPTHS 16

typedef struct
{
  GArray  *activities;   /* StrataActivity of the row, by start */
  GArray **lists;        /* per level: guint32 indices into activities */
} NanoRow;

typedef struct
{
  guint    n_levels;
  gint64  *min_duration;      /* per level: one pixel of the level */
  GArray  *rows;              /* NanoRow */
  GArray  *row_of;            /* guint32 [channel * NANO_DEPTHS + depth], or G_MAXUINT32 */
  guint    n_channels;
  guint64  n_entries;         /* sum of the list sizes */
  guint64  n_activities;      /* kept once, in the rows */
} Nanoscope;

static Nanoscope *
nanoscope_new (const StrataZoomGeometry *g)
{
  Nanoscope *self = g_new0 (Nanoscope, 1);

  self->n_levels = g->n_levels;
  self->min_duration = g_new (gint64, g->n_levels);
  for (guint level = 0; level < g->n_levels; level++)
    self->min_duration[level] = strata_zoom_geometry_pixel (g, level);
  self->rows = g_array_new (FALSE, FALSE, sizeof (NanoRow));
  self->row_of = g_array_new (FALSE, FALSE, sizeof (guint32));

  return self;
}

static void
nanoscope_free (Nanoscope *self)
{
  for (guint r = 0; r < self->rows->len; r++)
    {
      NanoRow *row = &g_array_index (self->rows, NanoRow, r);

      for (guint level = 0; level < self->n_levels; level++)
        g_array_unref (row->lists[level]);
      g_free (row->lists);
      g_array_unref (row->activities);
    }
  g_array_unref (self->rows);
  g_array_unref (self->row_of);
  g_free (self->min_duration);
  g_free (self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Nanoscope, nanoscope_free)

static NanoRow *
nanoscope_row (Nanoscope *self,
               guint32    channel,
               guint      depth)
{
  guint key = channel * NANO_DEPTHS + depth;
  guint32 *r;

  if (key >= self->row_of->len)
    {
      guint old = self->row_of->len;

      g_array_set_size (self->row_of, (channel + 1) * NANO_DEPTHS);
      memset (&g_array_index (self->row_of, guint32, old), 0xff,
              (self->row_of->len - old) * sizeof (guint32));
      self->n_channels = channel + 1;
    }
  r = &g_array_index (self->row_of, guint32, key);
  if (*r == G_MAXUINT32)
    {
      NanoRow row;

      row.activities = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      row.lists = g_new (GArray *, self->n_levels);
      for (guint level = 0; level < self->n_levels; level++)
        row.lists[level] = g_array_new (FALSE, FALSE, sizeof (guint32));
      *r = self->rows->len;
      g_array_append_val (self->rows, row);
    }

  return &g_array_index (self->rows, NanoRow, *r);
}

/* The seed's build: for each event, for each zoom level, keep it if it is
 * longer than the level's minimum duration. */
static void
nanoscope_add (Nanoscope            *self,
               const StrataActivity *a)
{
  gint64 duration = a->end - a->start;
  NanoRow *row;
  guint32 index;

  if (strata_activity_is_instant (a))
    return;

  row = nanoscope_row (self, a->channel, MIN (strata_activity_get_depth (a), NANO_DEPTHS - 1));
  index = row->activities->len;
  g_array_append_vals (row->activities, a, 1);
  self->n_activities++;

  for (guint level = 0; level < self->n_levels; level++)
    if (duration > self->min_duration[level])
      {
        g_array_append_val (row->lists[level], index);
        self->n_entries++;
      }
}

/* Nanoscope's CanvasRowData.visitCalls(): the left index is the first call
 * starting at or after the viewport's left, minus one; the right index the
 * first call ending at or after its right, clamped; everything between is
 * drawn. */
static void
nanoscope_visit_row (const NanoRow *row,
                     guint          level,
                     gint64         from,
                     gint64         to,
                     GArray        *out)
{
  const GArray *list = row->lists[level];
  const guint32 *refs = (const guint32 *)(gpointer)list->data;
  const StrataActivity *acts = (const StrataActivity *)(gpointer)row->activities->data;
  guint n = list->len, lo, hi, left, right;

  if (n == 0)
    return;

  lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (acts[refs[mid]].start >= from)
        hi = mid;
      else
        lo = mid + 1;
    }
  left = lo > 0 ? lo - 1 : 0;

  lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (acts[refs[mid]].end >= to)
        hi = mid;
      else
        lo = mid + 1;
    }
  right = MIN (lo, n - 1);

  for (guint i = left; i <= right; i++)
    g_array_append_vals (out, &acts[refs[i]], 1);
}

static void
nanoscope_query (Nanoscope     *self,
                 guint          level,
                 gint64         from,
                 gint64         to,
                 const guint32 *channels,
                 guint          n_channels,
                 GArray        *out)
{
  if (channels == NULL)
    n_channels = self->n_channels;

  for (guint c = 0; c < n_channels; c++)
    {
      guint32 channel = channels != NULL ? channels[c] : c;

      if (channel >= self->n_channels)
        continue;
      for (guint depth = 0; depth < NANO_DEPTHS; depth++)
        {
          guint32 r = g_array_index (self->row_of, guint32, channel * NANO_DEPTHS + depth);

          if (r != G_MAXUINT32)
            nanoscope_visit_row (&g_array_index (self->rows, NanoRow, r), level, from, to, out);
        }
    }
}

/* The lists' own bytes: what the zoom levels cost on top of the rows. */
static guint64
nanoscope_list_bytes (Nanoscope *self)
{
  return self->n_entries * sizeof (guint32);
}

/* ---- query ---- */

typedef struct
{
  gint64 from;
  gint64 to;
  guint  first_channel;
} Viewport;

typedef struct
{
  GArray *wall;          /* gint64 ns per query, CLOCK_MONOTONIC */
  GArray *cpu;           /* gint64 ns per query, this thread's CPU time */
  guint64 items;         /* returned */
  guint64 in_view;       /* of which overlap the viewport */
  guint64 represented;   /* activities (pieces) behind the items */
  guint64 chunks;
  guint64 precomputed;
  guint64 on_demand;
} Timings;

static void
timings_init (Timings *t)
{
  memset (t, 0, sizeof *t);
  t->wall = g_array_new (FALSE, FALSE, sizeof (gint64));
  t->cpu = g_array_new (FALSE, FALSE, sizeof (gint64));
}

static void
timings_clear (Timings *t)
{
  g_clear_pointer (&t->wall, g_array_unref);
  g_clear_pointer (&t->cpu, g_array_unref);
}

static int
compare_gint64 (gconstpointer pa,
                gconstpointer pb)
{
  gint64 a = *(const gint64 *)pa, b = *(const gint64 *)pb;

  return a < b ? -1 : a > b;
}

/* The q-quantile of the sorted @ns, in µs (nearest rank). */
static double
quantile_us (GArray *ns,
             double  q)
{
  guint rank;

  if (ns->len == 0)
    return 0;
  rank = (guint) MAX (1.0, ceil (q * ns->len));
  return g_array_index (ns, gint64, MIN (rank, ns->len) - 1) / 1e3;
}

static gint64
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* The wall clock around the query alone; the CPU clock (a system call)
 * outside it. Their difference is the time other processes took. */
#define TIME_QUERY(t, call)                                   \
  G_STMT_START {                                              \
    gint64 c0_ = thread_cpu_ns ();                            \
    gint64 t0_ = now_ns ();                                   \
    call;                                                     \
    gint64 t1_ = now_ns ();                                   \
    gint64 c1_ = thread_cpu_ns ();                            \
    g_array_append_val ((t)->wall, (gint64) { t1_ - t0_ });   \
    g_array_append_val ((t)->cpu, (gint64) { c1_ - c0_ });    \
  } G_STMT_END

static void
set_channels (guint32        *channels,
              guint           n_visible,
              const Viewport *v)
{
  for (guint c = 0; c < n_visible && channels != NULL; c++)
    channels[c] = v->first_channel + c;
}

/* The display request: strata_zoom_tree_query_spans(), which answers in
 * place from the pre-calculated chunks (a painter reads the spans). What
 * the items are is counted outside the timing. The copying query (items
 * in the viewport, seams joined) is timed into @copy. */
static void
run_tree_queries (StrataZoomTree *tree,
                  guint           level,
                  const Viewport *viewports,
                  guint           n_viewports,
                  guint32        *channels,
                  guint           n_visible,
                  GArray         *out,
                  Timings        *t,
                  Timings        *copy)
{
  g_autoptr(StrataZoomResult) result = strata_zoom_result_new ();

  for (guint i = 0; i < n_viewports; i++)
    {
      const Viewport *v = &viewports[i];
      StrataZoomQueryStats stats;
      const StrataZoomSpan *spans;
      guint n_spans;

      set_channels (channels, n_visible, v);
      TIME_QUERY (t, strata_zoom_tree_query_spans (tree, level, v->from, v->to, channels, n_visible,
                                                   result, &stats));

      spans = strata_zoom_result_get_spans (result, &n_spans);
      for (guint s = 0; s < n_spans; s++)
        for (guint k = 0; k < spans[s].n_items; k++)
          {
            const StrataZoomItem *it = &spans[s].items[k];

            t->items++;
            if (it->start == it->end ? (it->start >= v->from && it->start < v->to)
                                     : (it->start < v->to && it->end > v->from))
              {
                t->in_view++;
                t->represented += it->count;
              }
          }
      t->chunks += stats.n_chunks;
      t->precomputed += stats.n_precomputed;
      t->on_demand += stats.n_on_demand;

      if (copy != NULL)
        {
          g_array_set_size (out, 0);
          TIME_QUERY (copy, strata_zoom_tree_query (tree, level, v->from, v->to, channels, n_visible, out, NULL));
          copy->items += out->len;
          copy->in_view += out->len;
        }
    }
}

static void
run_nanoscope_queries (Nanoscope      *nano,
                       guint           level,
                       const Viewport *viewports,
                       guint           n_viewports,
                       guint32        *channels,
                       guint           n_visible,
                       GArray         *out,
                       Timings        *t)
{
  for (guint i = 0; i < n_viewports; i++)
    {
      const Viewport *v = &viewports[i];

      set_channels (channels, n_visible, v);
      g_array_set_size (out, 0);
      TIME_QUERY (t, nanoscope_query (nano, level, v->from, v->to, channels, n_visible, out));

      t->items += out->len;
      for (guint k = 0; k < out->len; k++)
        t->in_view += strata_activity_overlaps (&g_array_index (out, StrataActivity, k), v->from, v->to);
      t->represented += out->len;
    }
}

static char *
format_ns_per_pixel (gint64 ns)
{
  if (ns >= 1000000)
    return g_strdup_printf ("%.3g ms", ns / 1e6);
  if (ns >= 1000)
    return g_strdup_printf ("%.3g µs", ns / 1e3);
  return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
}

/* "some avg60" of /proc/pressure/cpu: the share of the last minute in
 * which a runnable task of the machine waited for a CPU. */
static double
cpu_pressure (void)
{
  g_autofree char *contents = NULL;
  const char *p;

  if (!g_file_get_contents ("/proc/pressure/cpu", &contents, NULL, NULL) ||
      (p = strstr (contents, "avg60=")) == NULL)
    return -1;
  return g_ascii_strtod (p + strlen ("avg60="), NULL);
}

/* Appends one markdown row; sorts the timings. */
static void
append_row (GString    *table,
            const char *level,
            const char *px,
            Timings    *zt,
            Timings    *nt,
            guint       n)
{
  double zm, nm;

  g_array_sort (zt->wall, compare_gint64);
  g_array_sort (zt->cpu, compare_gint64);
  zm = quantile_us (zt->wall, 0.5);
  g_string_append_printf (table, "| %s | %s | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f%% | %.1f |",
          level, px, zm, quantile_us (zt->wall, 0.99), quantile_us (zt->cpu, 0.99),
          (double) zt->items / n, (double) zt->represented / n,
          zt->chunks > 0 ? 100.0 * zt->precomputed / zt->chunks : 0.0,
          (double) zt->on_demand / n);
  if (nt != NULL)
    {
      g_array_sort (nt->wall, compare_gint64);
      g_array_sort (nt->cpu, compare_gint64);
      nm = quantile_us (nt->wall, 0.5);
      g_string_append_printf (table, " %.1f | %.1f | %.1f | %.0f | %.1fx |", nm, quantile_us (nt->wall, 0.99),
              quantile_us (nt->cpu, 0.99), (double) nt->in_view / n, nm > 0 ? zm / nm : 0.0);
    }
  g_string_append (table, "\n");
}

static void
merge_timings (Timings *all,
               Timings *t)
{
  g_array_append_vals (all->wall, t->wall->data, t->wall->len);
  g_array_append_vals (all->cpu, t->cpu->data, t->cpu->len);
  all->items += t->items;
  all->in_view += t->in_view;
  all->represented += t->represented;
  all->chunks += t->chunks;
  all->precomputed += t->precomputed;
  all->on_demand += t->on_demand;
}

/* What the query passes share: the tree, the baseline and the trace's
 * extent. */
typedef struct
{
  const StrataBenchInput *input;
  StrataZoomTree         *tree;
  Nanoscope              *nano;
  StrataZoomGeometry      g;
  gint64                  first;
  gint64                  last;
  gint64                  tree_build;
  gint64                  nano_build;
  guint                   n_queries;
} QueryBench;

/* Room for @n elements, already faulted in: the first query that grows
 * an output array would otherwise pay for the kernel's page faults (some
 * µs each on this VM), which is the caller's cost, not the query's. */
static void
reserve_touched (GArray *array,
                 guint   n)
{
  g_array_set_size (array, n);
  memset (array->data, 0, (gsize) n * g_array_get_element_size (array));
  g_array_set_size (array, 0);
}

/* One table: @n_queries random viewports per level, the same for the tree
 * and the baseline, over @visible contiguous channels (0: all). */
static void
query_pass (QueryBench *qb,
            guint       visible)
{
  g_autoptr(GArray) zoom_out = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GArray) nano_out = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GString) table = g_string_new (NULL);
  g_autoptr(GString) copies = g_string_new (NULL);
  g_autoptr(GString) levels = g_string_new (NULL);
  g_autofree guint32 *channels = NULL;
  g_autofree Viewport *viewports = g_new (Viewport, qb->n_queries);
  g_autoptr(GRand) rand = g_rand_new_with_seed (qb->input->seed * 7919 + visible);
  const char *kind = strata_test_stream_kind_name (qb->input->kind);
  guint n_channels = strata_raw_store_get_n_channels (strata_zoom_tree_get_raw_store (qb->tree));
  guint n_visible = visible == 0 ? n_channels : MIN (visible, n_channels);
  guint n_queries = qb->n_queries;
  Timings zoom_all, nano_all, copy_all;
  gint64 query_wall, query_cpu;
  double pressure_before;

  if (visible > 0)
    channels = g_new (guint32, n_visible);
  reserve_touched (zoom_out, OUT_RESERVE);
  reserve_touched (nano_out, OUT_RESERVE);

  if (visible == 0)
    printf ("\n#### %s, %" G_GUINT64_FORMAT " activities, T = %u: all %u channels visible\n\n",
            kind, qb->input->n, qb->g.density_threshold, n_channels);
  else
    printf ("\n#### %s, %" G_GUINT64_FORMAT " activities, T = %u: %u contiguous channels visible of %u\n\n",
            kind, qb->input->n, qb->g.density_threshold, n_visible, n_channels);

  timings_init (&zoom_all);
  timings_init (&nano_all);
  timings_init (&copy_all);
  pressure_before = cpu_pressure ();
  query_wall = now_ns ();
  query_cpu = cpu_ns ();

  for (guint level = 0; level < qb->g.n_levels; level++)
    {
      gint64 pixel = strata_zoom_geometry_pixel (&qb->g, level);
      gint64 width = pixel * VIEWPORT_PIXELS;
      g_autofree char *px = format_ns_per_pixel (pixel);
      g_autofree char *name = g_strdup_printf ("%u", level);
      Timings zt, nt, ct;

      for (guint i = 0; i < n_queries; i++)
        {
          gint64 span = MAX (qb->last - qb->first - width, 0);
          gint64 from = qb->first + (gint64) (g_rand_double (rand) * span);

          viewports[i].from = from;
          viewports[i].to = from + width;
          viewports[i].first_channel = g_rand_int_range (rand, 0, n_channels - n_visible + 1);
        }

      timings_init (&zt);
      timings_init (&nt);
      timings_init (&ct);
      run_tree_queries (qb->tree, level, viewports, n_queries, channels, n_visible, zoom_out, &zt, &ct);
      if (qb->nano != NULL)
        run_nanoscope_queries (qb->nano, level, viewports, n_queries, channels, n_visible, nano_out, &nt);
      merge_timings (&zoom_all, &zt);
      merge_timings (&nano_all, &nt);
      merge_timings (&copy_all, &ct);

      /* The table comes after the machine's state over all the queries,
       * so its rows wait. */
      append_row (table, name, px, &zt, qb->nano != NULL ? &nt : NULL, n_queries);
      g_array_sort (ct.wall, compare_gint64);
      g_string_append_printf (copies, "| %s | %s | %.1f | %.1f | %.0f |\n", name, px,
                              quantile_us (ct.wall, 0.5), quantile_us (ct.wall, 0.99),
                              (double) ct.items / MAX (ct.wall->len, 1));
      /* For the script's comparison across sizes at equal ns/pixel
       * (append_row() sorted the timings). */
      g_string_append_printf (levels, "LEVEL kind=%s n=%" G_GUINT64_FORMAT " visible=%u threshold=%u"
                              " level=%u pixel_ns=%" G_GINT64_FORMAT " zoom_median_us=%.2f"
                              " nano_median_us=%.2f precomputed=%.0f on_demand=%.1f\n",
                              kind, qb->input->n, n_visible, qb->g.density_threshold, level, pixel,
                              quantile_us (zt.wall, 0.5), quantile_us (nt.wall, 0.5),
                              zt.chunks > 0 ? 100.0 * zt.precomputed / zt.chunks : 0.0,
                              (double) zt.on_demand / n_queries);
      timings_clear (&zt);
      timings_clear (&nt);
      timings_clear (&ct);
    }

  query_wall = now_ns () - query_wall;
  query_cpu = cpu_ns () - query_cpu;
  append_row (table, "all", "", &zoom_all, qb->nano != NULL ? &nano_all : NULL, zoom_all.wall->len);

  printf ("%u queries per level, viewports of %d pixels at the level's scale. Over them the process had "
          "the CPU %.0f%% of the time (CPU pressure avg60 %.0f%% before, %.0f%% after).\n\n",
          n_queries, VIEWPORT_PIXELS, 100.0 * query_cpu / MAX (query_wall, 1), pressure_before,
          cpu_pressure ());
  printf ("| level | ns/pixel | zoom median µs | zoom p99 µs | zoom p99 CPU µs | zoom items |"
          " activities in items | pre-calc. chunks | on-demand parts |");
  if (qb->nano != NULL)
    printf (" Nanoscope median µs | Nanoscope p99 µs | Nanoscope p99 CPU µs | Nanoscope items in view |"
            " zoom / Nanoscope (median) |");
  printf ("\n|---|---|---|---|---|---|---|---|---|%s\n", qb->nano != NULL ? "---|---|---|---|---|" : "");
  printf ("%s\n", table->str);
  g_array_sort (copy_all.wall, compare_gint64);
  printf ("The zoom tree's columns time the display request, strata_zoom_tree_query_spans(): "
          "pre-calculated items are read in place. Copying the items in the viewport out "
          "(strata_zoom_tree_query(), seams joined), as `strata-cli query` does:\n\n"
          "| level | ns/pixel | copy median µs | copy p99 µs | items copied |\n|---|---|---|---|---|\n%s"
          "| all | | %.1f | %.1f | %.0f |\n\n",
          copies->str, quantile_us (copy_all.wall, 0.5), quantile_us (copy_all.wall, 0.99),
          (double) copy_all.items / MAX (copy_all.wall->len, 1));

  /* For run-zoom-tree.sh's summary across sizes. */
  printf ("%s", levels->str);
  printf ("RESULT kind=%s n=%" G_GUINT64_FORMAT " visible=%u threshold=%u levels=%u queries=%u"
          " zoom_median_us=%.2f zoom_p99_us=%.2f zoom_p99_cpu_us=%.2f zoom_copy_median_us=%.2f"
          " nano_median_us=%.2f nano_p99_us=%.2f nano_p99_cpu_us=%.2f"
          " zoom_items=%.0f nano_items=%.0f"
          " tree_build_s=%.3f nano_build_s=%.3f tree_bytes=%" G_GSIZE_FORMAT
          " nano_list_bytes=%" G_GUINT64_FORMAT " nano_entries=%" G_GUINT64_FORMAT
          " nano_row_activities=%" G_GUINT64_FORMAT " rss_kb=%" G_GUINT64_FORMAT "\n",
          kind, qb->input->n, n_visible, qb->g.density_threshold, qb->g.n_levels, n_queries,
          quantile_us (zoom_all.wall, 0.5), quantile_us (zoom_all.wall, 0.99), quantile_us (zoom_all.cpu, 0.99),
          quantile_us (copy_all.wall, 0.5),
          quantile_us (nano_all.wall, 0.5), quantile_us (nano_all.wall, 0.99), quantile_us (nano_all.cpu, 0.99),
          (double) zoom_all.items / MAX (zoom_all.wall->len, 1), (double) nano_all.in_view / MAX (nano_all.wall->len, 1),
          qb->tree_build / 1e9, qb->nano_build / 1e9, strata_zoom_tree_get_size (qb->tree),
          qb->nano != NULL ? nanoscope_list_bytes (qb->nano) : 0, qb->nano != NULL ? qb->nano->n_entries : 0,
          qb->nano != NULL ? qb->nano->n_activities : 0, peak_rss_kb ());

  timings_clear (&zoom_all);
  timings_clear (&copy_all);
  timings_clear (&nano_all);
}

/* An oracle between the two: every activity Nanoscope shows in a
 * viewport is longer than a pixel, so the zoom tree must show it too, as an
 * item of its own (not an aggregate) on the same channel, with the same
 * kind and label, covering its visible part. An activity that crosses a
 * chunk border of the level is left out: the tree judges triviality on
 * the piece inside each chunk, and a piece may be shorter than a pixel. */
static void
check_pass (QueryBench *qb,
            guint       n_checks)
{
  g_autoptr(GArray) zoom_out = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GArray) nano_out = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GRand) rand = g_rand_new_with_seed (qb->input->seed * 104729 + 3);
  guint n_channels = strata_raw_store_get_n_channels (strata_zoom_tree_get_raw_store (qb->tree));
  guint64 checked = 0, crossing = 0, missing = 0;
  guint shown = 0;

  for (guint level = 0; level < qb->g.n_levels; level++)
    {
      gint64 width = strata_zoom_geometry_pixel (&qb->g, level) * VIEWPORT_PIXELS;

      for (guint q = 0; q < n_checks; q++)
        {
          gint64 from = qb->first + (gint64) (g_rand_double (rand) * MAX (qb->last - qb->first - width, 0));
          gint64 to = from + width;
          guint32 channel = g_rand_int_range (rand, 0, n_channels);
          const StrataZoomItem *items;

          g_array_set_size (zoom_out, 0);
          g_array_set_size (nano_out, 0);
          strata_zoom_tree_query (qb->tree, level, from, to, &channel, 1, zoom_out, NULL);
          nanoscope_query (qb->nano, level, from, to, &channel, 1, nano_out);
          items = (const StrataZoomItem *)(gpointer)zoom_out->data;

          for (guint k = 0; k < nano_out->len; k++)
            {
              const StrataActivity *a = &g_array_index (nano_out, StrataActivity, k);
              gint64 lo = MAX (a->start, from), hi = MIN (a->end, to);
              gboolean found = FALSE;

              if (!strata_activity_overlaps (a, from, to))
                continue;
              if (strata_zoom_geometry_chunk_index (&qb->g, level, a->start) !=
                  strata_zoom_geometry_chunk_index (&qb->g, level, a->end - 1))
                {
                  crossing++;
                  continue;
                }
              checked++;
              for (guint j = 0; j < zoom_out->len && !found; j++)
                found = !(items[j].flags & STRATA_ZOOM_ITEM_AGGREGATE) &&
                        items[j].kind == a->kind && items[j].label == a->label &&
                        items[j].start <= lo && items[j].end >= hi;
              if (!found)
                {
                  missing++;
                  if (shown++ < 5)
                    printf ("check: level %u, viewport %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT ": channel %u"
                            " activity %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT " (kind %u) has no zoom item\n",
                            level, from, to, a->channel, a->start, a->end, a->kind);
                }
            }
        }
    }

  printf ("\nOracle: %" G_GUINT64_FORMAT " activities Nanoscope shows were looked for among the zoom tree's"
          " items (%u one-channel viewports per level); %" G_GUINT64_FORMAT " missing; %" G_GUINT64_FORMAT
          " crossing a chunk border left out.\n", checked, n_checks, missing, crossing);
}

static int
run_query (const StrataBenchInput *input,
           guint                   n_queries,
           GArray                 *visible,
           gboolean                with_nanoscope,
           guint                   n_checks)
{
  g_autoptr(StrataTestStream) stream = input_stream (input);
  g_autoptr(StrataZoomTree) tree = new_tree (input);
  g_autoptr(Nanoscope) nano = NULL;
  QueryBench qb = { input, tree, NULL, { 0 }, G_MAXINT64, G_MININT64, 0, 0, n_queries };
  StrataActivity a;
  gint64 t0;

  t0 = now_ns ();
  feed_tree (tree, stream);
  qb.tree_build = now_ns () - t0;
  strata_zoom_tree_get_geometry (tree, &qb.g);

  /* A second pass over the stream builds the Nanoscope structure, on the
   * levels of the tree, and finds the trace's extent for the viewports. */
  g_clear_pointer (&stream, strata_test_stream_free);
  stream = input_stream (input);
  if (with_nanoscope)
    nano = nanoscope_new (&qb.g);
  t0 = now_ns ();
  while (strata_test_stream_next (stream, &a))
    {
      qb.first = MIN (qb.first, a.start);
      qb.last = MAX (qb.last, a.end);
      if (nano != NULL)
        nanoscope_add (nano, &a);
    }
  qb.nano_build = now_ns () - t0;
  qb.nano = nano;

  printf ("\n### %s, %" G_GUINT64_FORMAT " activities, T = %u\n\n",
          strata_test_stream_kind_name (input->kind), input->n, qb.g.density_threshold);
  printf ("Tree: built in %.2f s, %u levels, trace %.3f s long, pre-calculated chunks %.1f MiB.",
          qb.tree_build / 1e9, qb.g.n_levels, (qb.last - qb.first) / 1e9,
          strata_zoom_tree_get_size (tree) / 1048576.0);
  if (nano != NULL)
    printf (" Nanoscope: built in %.2f s (stream included), %" G_GUINT64_FORMAT " intervals kept once in its"
            " rows (%.1f MiB) and %" G_GUINT64_FORMAT " entries in its level lists (%.1f MiB as 4-byte"
            " references, %.1f MiB if they were 32-byte copies).",
            qb.nano_build / 1e9, nano->n_activities, nano->n_activities * 32 / 1048576.0,
            nano->n_entries, nanoscope_list_bytes (nano) / 1048576.0, nano->n_entries * 32 / 1048576.0);
  printf (" Peak RSS before the queries %.0f MiB.\n", peak_rss_kb () / 1024.0);

  for (guint i = 0; i < visible->len; i++)
    query_pass (&qb, g_array_index (visible, guint, i));
  if (nano != NULL && n_checks > 0)
    check_pass (&qb, n_checks);

  return 0;
}

/* ---- main ---- */

static gboolean
parse_count (const char *s,
             guint64    *out)
{
  char *end = NULL;
  double v = g_ascii_strtod (s, &end);

  if (end == s || v < 0)
    return FALSE;
  if (*end == 'k' || *end == 'K')
    v *= 1e3, end++;
  else if (*end == 'm' || *end == 'M')
    v *= 1e6, end++;
  else if (*end == 'g' || *end == 'G')
    v *= 1e9, end++;
  if (*end != '\0')
    return FALSE;
  *out = (guint64) v;
  return TRUE;
}

static gboolean
parse_kind (const char           *s,
            StrataTestStreamKind *out)
{
  for (guint k = 0; k < STRATA_TEST_N_STREAMS; k++)
    if (g_str_equal (s, strata_test_stream_kind_name (k)))
      {
        *out = k;
        return TRUE;
      }
  return FALSE;
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *kind = NULL;
  g_autofree char *count = NULL;
  g_autofree char *mode = NULL;
  g_autofree char *channels = NULL;
  g_autofree char *progress = NULL;
  gint seed = 1, threshold = 0, queries = 2000;
  gboolean no_nanoscope = FALSE;
  gint checks = 0;
  gboolean detail = FALSE;
  GOptionEntry entries[] = {
    { "kind", 'k', 0, G_OPTION_ARG_STRING, &kind, "Stream kind (dense, sparse, bursty, many-threads, long-sleeps, mixed)", "KIND" },
    { "n", 'n', 0, G_OPTION_ARG_STRING, &count, "Number of activities (1M, 10M, 100M ...)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_INT, &seed, "Stream seed", "SEED" },
    { "threshold", 't', 0, G_OPTION_ARG_INT, &threshold, "Density threshold T (default: the library's)", "T" },
    { "mode", 'm', 0, G_OPTION_ARG_STRING, &mode, "build: gen, raw, tree, pipelined or twin", "MODE" },
    { "progress", 0, 0, G_OPTION_ARG_STRING, &progress, "build: report to stderr every N activities", "N" },
    { "detail", 0, 0, G_OPTION_ARG_NONE, &detail, "build: what each level's chunks hold", NULL },
    { "queries", 'q', 0, G_OPTION_ARG_INT, &queries, "query: viewports per level", "Q" },
    { "channels", 'c', 0, G_OPTION_ARG_STRING, &channels, "query: visible channels, numbers or all, comma-separated (default 60)", "C,..." },
    { "check", 0, 0, G_OPTION_ARG_INT, &checks, "query: check N one-channel viewports per level against Nanoscope", "N" },
    { "no-nanoscope", 0, 0, G_OPTION_ARG_NONE, &no_nanoscope, "query: without the Nanoscope baseline", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("build|query - the zoom-tree benchmark on generated activity streams");
  g_autoptr(GError) error = NULL;
  StrataBenchInput input = { STRATA_TEST_STREAM_MIXED, 1000000, 1, 0 };
  g_autoptr(GArray) visible = g_array_new (FALSE, FALSE, sizeof (guint));
  g_auto(GStrv) visible_list = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("strata-bench-zoom: %s\n", error->message);
      return 2;
    }
  if (argc != 2 ||
      (kind != NULL && !parse_kind (kind, &input.kind)) ||
      (count != NULL && !parse_count (count, &input.n)) ||
      (progress != NULL && !parse_count (progress, &progress_every)) ||
      threshold < 0 || queries <= 0 || seed < 0)
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

      g_printerr ("%s", help);
      return 2;
    }
  visible_list = g_strsplit (channels != NULL ? channels : "60", ",", -1);
  for (guint i = 0; visible_list[i] != NULL; i++)
    {
      guint64 v = 0;

      if (!g_str_equal (visible_list[i], "all") && (!parse_count (visible_list[i], &v) || v == 0))
        {
          g_printerr ("strata-bench-zoom: --channels takes numbers or all, separated by commas\n");
          return 2;
        }
      g_array_append_val (visible, (guint) { (guint) v });
    }
  input.seed = seed;
  input.threshold = threshold;

  if (g_str_equal (argv[1], "build"))
    return run_build (&input, mode != NULL ? mode : "tree", detail);
  if (g_str_equal (argv[1], "query"))
    return run_query (&input, queries, visible, !no_nanoscope, MAX (checks, 0));

  g_printerr ("strata-bench-zoom: unknown command %s (build, query)\n", argv[1]);
  return 2;
}
