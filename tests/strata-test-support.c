/* strata-test-support.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/wait.h>

#include "strata-test-support.h"

static char *tmpdir;

static void
remove_tmpdir (void)
{
  if (tmpdir != NULL)
    {
      g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
      G_GNUC_UNUSED int ret = system (cmd);
      g_clear_pointer (&tmpdir, g_free);
    }
}

/* A directory for this test process, removed at exit. */
char *
strata_test_tmpdir (void)
{
  if (tmpdir == NULL)
    {
      g_autoptr(GError) error = NULL;

      tmpdir = g_dir_make_tmp ("strata-test-XXXXXX", &error);
      g_assert_no_error (error);
      atexit (remove_tmpdir);
    }

  return g_strdup (tmpdir);
}

/* The path of a fixture; a ".xz" one is unpacked once into the tmpdir and
 * the unpacked path is returned. */
char *
strata_test_fixture (const char *name)
{
  const char *dir = g_getenv ("STRATA_FIXTURES_DIR");
  g_autofree char *path = NULL;
  g_autofree char *dir_tmp = NULL;
  g_autofree char *out = NULL;
  g_autofree char *cmd = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (dir != NULL)
    path = g_build_filename (dir, name, NULL);
  else
    path = g_test_build_filename (G_TEST_DIST, "fixtures", name, NULL);

  if (!g_str_has_suffix (name, ".xz"))
    return g_steal_pointer (&path);

  dir_tmp = strata_test_tmpdir ();
  out = g_build_filename (dir_tmp, name, NULL);
  out[strlen (out) - 3] = '\0';

  if (g_file_test (out, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&out);

  cmd = g_strdup_printf ("sh -c \"xz -dc '%s' > '%s'\"", path, out);
  g_spawn_command_line_sync (cmd, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  return g_steal_pointer (&out);
}

/* A fixture's bytes (unpacked, for a ".xz" one). */
GBytes *
strata_test_fixture_bytes (const char *name)
{
  g_autofree char *path = strata_test_fixture (name);
  g_autoptr(GError) error = NULL;
  char *data;
  gsize len;

  g_file_get_contents (path, &data, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (data, len);
}

/* A fixture loaded whole, with its zoom tree, in memory. */
StrataTrace *
strata_test_load_with_tree (const char *name)
{
  g_autofree char *path = strata_test_fixture (name);
  g_autoptr(GError) error = NULL;
  StrataZoomParams params;
  StrataTrace *trace;

  strata_zoom_params_init (&params);
  trace = strata_test_load_full (path, TRUE, NULL, NULL, NULL, &params, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strata_trace_get_zoom_tree (trace));
  return trace;
}

/* One pass in memory through the loader, no index: @path's activities
 * kept. */
StrataTrace *
strata_test_load (const char  *path,
                  GError     **error)
{
  return strata_test_load_full (path, TRUE, NULL, NULL, NULL, NULL, NULL, NULL, error);
}

/* One pass in memory through the loader, no index: what it keeps
 * (@keep: the activities; @params: a tree), tells (@sink, @close_sink)
 * and reports (@progress). */
StrataTrace *
strata_test_load_full (const char              *path,
                       gboolean                 keep,
                       StrataActivityFunc       sink,
                       StrataChannelCloseFunc   close_sink,
                       gpointer                 sink_data,
                       const StrataZoomParams  *params,
                       StrataTraceProgressFunc  progress,
                       gpointer                 progress_data,
                       GError                 **error)
{
  g_autoptr(StrataLoader) loader = strata_loader_new (path);

  strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
  strata_loader_set_keep_activities (loader, keep);
  strata_loader_set_sink (loader, sink, close_sink, sink_data);
  strata_loader_set_zoom_params (loader, params);
  strata_loader_set_progress_func (loader, progress, progress_data, NULL);
  return strata_loader_load (loader, NULL, error);
}

/* The pass the index would have run, in memory: the tree (@params, or
 * the defaults) and the statistics, nothing written. */
StrataTrace *
strata_test_load_in_memory (const char              *path,
                            const StrataZoomParams  *params,
                            GError                 **error)
{
  g_autoptr(StrataLoader) loader = strata_loader_new (path);
  StrataZoomParams defaults;

  if (params == NULL)
    {
      strata_zoom_params_init (&defaults);
      params = &defaults;
    }
  strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_NONE);
  strata_loader_set_zoom_params (loader, params);
  strata_loader_set_statistics (loader, TRUE);
  return strata_loader_load (loader, NULL, error);
}

static void
note_options (StrataLoader *loader,
              const char   *message,
              gpointer      user_data)
{
  const StrataIndexOptions *options = user_data;

  options->note (message, options->note_data);
}

/* @path through its index, as the CLI opens it: @options' index path,
 * rebuild flag and notes. */
StrataTrace *
strata_test_load_index (const char                *path,
                        const StrataZoomParams    *params,
                        const StrataIndexOptions  *options,
                        GError                   **error)
{
  g_autoptr(StrataLoader) loader = strata_loader_new (path);

  strata_loader_set_zoom_params (loader, params);
  if (options != NULL)
    {
      strata_loader_set_index_path (loader, options->index_path);
      if (options->flags & STRATA_INDEX_OPEN_REBUILD)
        strata_loader_set_index_mode (loader, STRATA_LOADER_INDEX_REBUILD);
      if (options->note != NULL)
        g_signal_connect (loader, "note", G_CALLBACK (note_options), (gpointer) options);
    }
  return strata_loader_load (loader, NULL, error);
}

/* @data written to the file @name in the tmpdir; returns its path. */
char *
strata_test_write_tmp (const char   *name,
                       const guint8 *data,
                       gsize         len)
{
  g_autofree char *dir = strata_test_tmpdir ();
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, (const char *) data, len, &error);
  g_assert_no_error (error);
  return path;
}

gboolean
strata_test_have_program (const char *program)
{
  g_autofree char *path = g_find_program_in_path (program);
  return path != NULL;
}

/* Every event of @path, in the order the source yields them. */
GArray *
strata_test_read_events (const char    *path,
                         StrataSource **source_out,
                         GError       **error)
{
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GArray) events = g_array_new (FALSE, FALSE, sizeof (StrataEvent));
  StrataEvent batch[1024];

  source = strata_source_open (path, error);
  if (source == NULL)
    return NULL;

  for (;;)
    {
      gssize n = strata_source_read_batch (source, batch, G_N_ELEMENTS (batch), error);

      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      g_array_append_vals (events, batch, n);
    }

  if (source_out != NULL)
    *source_out = g_steal_pointer (&source);

  return g_steal_pointer (&events);
}

static void
count (GHashTable *counts,
       const char *name)
{
  gpointer old = g_hash_table_lookup (counts, name);

  g_hash_table_replace (counts, g_strdup (name),
                        GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + 1));
}

/*
 * strata_test_trace_cmd_counts:
 * @path: a trace.dat
 * @instance: (nullable): a buffer instance name, or %NULL for the top one
 *
 * Events per name as `trace-cmd report` prints them. trace-cmd prefixes
 * the lines of an instance with "NAME:" and sorts all instances together.
 *
 * Returns: (transfer full): event name -> count (as a pointer)
 */
GHashTable *
strata_test_trace_cmd_counts (const char *path,
                              const char *instance)
{
  g_autoptr(GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GRegex) regex = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  const char *argv[] = { "trace-cmd", "report", path, NULL };
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                &out, &err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  /* "  comm-pid  [001]  81.730690: sched_switch:  ..." */
  regex = g_regex_new ("^(?:([A-Za-z0-9_.-]+): )?.*\\[[0-9]+\\]\\s+[0-9]+\\.[0-9]+: ([A-Za-z0-9_]+):",
                       G_REGEX_OPTIMIZE, 0, &error);
  g_assert_no_error (error);

  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      g_autoptr(GMatchInfo) match = NULL;

      if (g_regex_match (regex, lines[i], 0, &match))
        {
          g_autofree char *inst = g_match_info_fetch (match, 1);
          g_autofree char *name = g_match_info_fetch (match, 2);
          gboolean is_top = inst == NULL || inst[0] == '\0';

          if ((instance == NULL && is_top) ||
              (instance != NULL && !is_top && strcmp (inst, instance) == 0))
            count (counts, name);
        }
    }

  return g_steal_pointer (&counts);
}

/* Events per name for one instance, from our reader. */
GHashTable *
strata_test_event_counts (StrataSource *source,
                          GArray       *events,
                          guint16       instance)
{
  GHashTable *counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  StrataStringPool *strings = strata_source_get_strings (source);

  for (guint i = 0; i < events->len; i++)
    {
      const StrataEvent *ev = &g_array_index (events, StrataEvent, i);

      if (ev->instance == instance && ev->type != STRATA_EVENT_LOST)
        count (counts, strata_string_pool_get (strings, ev->name));
    }

  return counts;
}

/* Runs strata-cli (the build's, from STRATA_CLI) with @args and returns
 * its exit status; a crash fails the test. */
int
strata_test_run_cli (const char * const *args,
                     char              **out,
                     char              **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = strata_test_tmpdir ();
  g_autofree char *index_dir = g_build_filename (dir, "index-cache", NULL);
  g_auto(GStrv) envp = NULL;
  const char *cli = g_getenv ("STRATA_CLI");
  int status = 0;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (gpointer) cli);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  /* The CLI's indexes go to this test's own folder: the first run builds
   * them, the next ones in the same test open them, and none outlives the
   * test (nor a build of another index version). */
  envp = g_environ_setenv (g_get_environ (), "STRATA_INDEX_DIR", index_dir, TRUE);

  g_spawn_sync (NULL, (char **) argv->pdata, envp, 0, NULL, NULL, out, err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));

  return WEXITSTATUS (status);
}

/* ---- brute-force zoom chunks ---- */

typedef struct
{
  StrataZoomItem item;
  GArray        *keys;  /* Key */
} Ref;

typedef struct
{
  guint8 kind, state;
  guint32 label;
  gint32 arg;
  gint64 time;
  guint count;
} Key;

static void
ref_flush (Ref    *ref,
           GArray *out)
{
  if (ref->item.count == 0)
    return;

  if (ref->item.count > 1)
    {
      Key *best = NULL;

      for (guint i = 0; i < ref->keys->len; i++)
        {
          Key *k = &g_array_index (ref->keys, Key, i);
          if (best == NULL || k->time > best->time || (k->time == best->time && k->count > best->count))
            best = k;
        }
      ref->item.kind = best->kind;
      ref->item.state = best->state;
      ref->item.label = best->label;
      ref->item.arg = best->arg;
      ref->item.flags |= STRATA_ZOOM_ITEM_AGGREGATE;
    }

  g_array_append_val (out, ref->item);
  memset (&ref->item, 0, sizeof ref->item);
  g_array_set_size (ref->keys, 0);
}

static void
ref_key (Ref                  *ref,
         const StrataActivity *a)
{
  for (guint i = 0; i < ref->keys->len; i++)
    {
      Key *k = &g_array_index (ref->keys, Key, i);
      if (k->kind == a->kind && k->state == a->state && k->label == a->label && k->arg == a->arg)
        {
          k->time += a->end - a->start;
          k->count++;
          return;
        }
    }
  {
    Key k = { a->kind, a->state, a->label, a->arg, a->end - a->start, 1 };
    g_array_append_val (ref->keys, k);
  }
}

static void
ref_start (Ref                  *ref,
           const StrataActivity *a)
{
  ref->item = (StrataZoomItem) {
    .start = a->start, .end = a->end, .channel = a->channel, .label = a->label,
    .arg = a->arg, .kind = a->kind, .state = a->state, .flags = a->flags,
    .count = 1, .busy = a->end - a->start,
  };
  ref_key (ref, a);
}

static int
by_start (gconstpointer pa,
          gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;
  return a->start < b->start ? -1 : a->start > b->start;
}

static int
by_end (gconstpointer pa,
        gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;
  return a->end < b->end ? -1 : a->end > b->end;
}

static int
by_channel (gconstpointer pa,
            gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;
  return a->channel < b->channel ? -1 : a->channel > b->channel;
}

void
strata_test_sort_by_end (GArray *acts)
{
  g_array_sort (acts, by_end);
}

void
strata_test_open_at (const StrataActivity *all,
                     gsize                 n,
                     gint64                h,
                     GArray               *open)
{
  for (gsize i = 0; i < n; i++)
    {
      StrataActivity a = all[i];

      if (a.end > h && a.start < h && !strata_activity_is_instant (&a))
        {
          a.end = h;
          a.flags = (a.flags & ~(STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST)) |
                    STRATA_ACTIVITY_FLAG_CONTINUES_AFTER;
          g_array_append_val (open, a);
        }
    }
  g_array_sort (open, by_channel);
}

const StrataActivity *
strata_test_channel_open (GArray  *open,
                          guint32  channel,
                          guint   *n_open)
{
  const StrataActivity *first = NULL;

  *n_open = 0;
  for (guint i = 0; i < open->len; i++)
    if (g_array_index (open, StrataActivity, i).channel == channel)
      {
        if (first == NULL)
          first = &g_array_index (open, StrataActivity, i);
        (*n_open)++;
      }
  return first;
}

GArray *
strata_test_items_in_window (GArray *items,
                             gint64  from,
                             gint64  to)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));

  for (guint i = 0; i < items->len; i++)
    {
      const StrataZoomItem *item = &g_array_index (items, StrataZoomItem, i);
      StrataActivity a = { .start = item->start, .end = item->end, .kind = item->kind,
                           .state = item->state, .flags = item->flags };

      if (strata_activity_overlaps (&a, from, to))
        g_array_append_vals (out, item, 1);
    }
  return out;
}

/* The reference for a chunk's items: filter, split by lane, sort, clip,
 * merge, written as plainly as possible and apart from the library's
 * aggregator. */
GArray *
strata_test_brute_force_chunk (const StrataActivity *all,
                   gsize                 n,
                   guint32               channel,
                   gint64                s,
                   gint64                e,
                   gint64                pixel)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  Ref ref = { { 0 }, g_array_new (FALSE, FALSE, sizeof (Key)) };

  /* Lanes in the order the store keeps them: depths, then instants. */
  for (guint lane = 0; lane <= 16; lane++)
    {
      g_autoptr(GArray) acts = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

      for (gsize i = 0; i < n; i++)
        {
          const StrataActivity *a = &all[i];
          gboolean instant = strata_activity_is_instant (a);
          guint a_lane = instant ? 16 : MIN (strata_activity_get_depth (a), 15);

          if (a->channel != channel || a_lane != lane)
            continue;
          /* Instants and intervals of no length are where they start. */
          if (instant || a->start == a->end ? (a->start >= s && a->start < e) : (a->start < e && a->end > s))
            g_array_append_val (acts, *a);
        }
      g_array_sort (acts, by_start);

      for (guint i = 0; i < acts->len; i++)
        {
          StrataActivity a = g_array_index (acts, StrataActivity, i);

          if (a.start < s)
            {
              a.start = s;
              a.flags = (a.flags & ~STRATA_ACTIVITY_FLAG_START_UNSEEN) | STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE;
            }
          if (a.end > e)
            {
              a.end = e;
              a.flags = (a.flags & ~(STRATA_ACTIVITY_FLAG_END_UNSEEN | STRATA_ACTIVITY_FLAG_LOST)) |
                        STRATA_ACTIVITY_FLAG_CONTINUES_AFTER;
            }

          if (a.end - a.start >= pixel)
            {
              ref_flush (&ref, out);
              ref_start (&ref, &a);
              ref_flush (&ref, out);
            }
          else if (ref.item.count > 0 && MAX (a.end, ref.item.end) - ref.item.start <= pixel)
            {
              ref.item.end = MAX (ref.item.end, a.end);
              ref.item.count++;
              ref.item.busy += a.end - a.start;
              ref.item.flags &= a.flags;
              ref_key (&ref, &a);
            }
          else
            {
              ref_flush (&ref, out);
              ref_start (&ref, &a);
            }
        }
      ref_flush (&ref, out);
    }

  g_array_unref (ref.keys);
  return out;
}

static void
assert_latency_equal (const StrataLatency *a,
                      const StrataLatency *b)
{
  g_assert_cmpint (a->p50, ==, b->p50);
  g_assert_cmpint (a->p90, ==, b->p90);
  g_assert_cmpint (a->p99, ==, b->p99);
  g_assert_cmpint (a->max, ==, b->max);
  g_assert_cmpuint (a->count, ==, b->count);
}

/* Two statistics the same row for row: field by field first, so a
 * failure names the field, then byte for byte. */
void
strata_test_assert_stats_equal (const StrataStats *a,
                                const StrataStats *b)
{
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_cmpint (a->start, ==, b->start);
  g_assert_cmpint (a->end, ==, b->end);
  g_assert_cmpuint (a->switches, ==, b->switches);
  assert_latency_equal (&a->wakeup, &b->wakeup);

  g_assert_cmpuint (a->cpus->len, ==, b->cpus->len);
  for (guint i = 0; i < a->cpus->len; i++)
    {
      const StrataCpuStats *x = &g_array_index (a->cpus, StrataCpuStats, i);
      const StrataCpuStats *y = &g_array_index (b->cpus, StrataCpuStats, i);

      g_assert_cmpuint (x->channel, ==, y->channel);
      g_assert_cmpint (x->cpu, ==, y->cpu);
      g_assert_cmpuint (x->instance, ==, y->instance);
      g_assert_cmpint (x->busy, ==, y->busy);
      g_assert_cmpint (x->idle, ==, y->idle);
      g_assert_cmpint (x->unknown, ==, y->unknown);
      g_assert_cmpint (x->irq, ==, y->irq);
      g_assert_cmpint (x->softirq, ==, y->softirq);
      g_assert_cmpuint (x->switches, ==, y->switches);
      g_assert_cmpmem (x, sizeof *x, y, sizeof *y);
    }

  g_assert_cmpuint (a->threads->len, ==, b->threads->len);
  for (guint i = 0; i < a->threads->len; i++)
    {
      const StrataThreadStats *x = &g_array_index (a->threads, StrataThreadStats, i);
      const StrataThreadStats *y = &g_array_index (b->threads, StrataThreadStats, i);

      g_assert_cmpuint (x->channel, ==, y->channel);
      g_assert_cmpint (x->tid, ==, y->tid);
      g_assert_cmpint (x->tgid, ==, y->tgid);
      g_assert_cmpuint (x->instance, ==, y->instance);
      g_assert_cmpint (x->running, ==, y->running);
      g_assert_cmpint (x->runnable, ==, y->runnable);
      g_assert_cmpint (x->woken, ==, y->woken);
      g_assert_cmpint (x->sleeping, ==, y->sleeping);
      g_assert_cmpint (x->blocked, ==, y->blocked);
      g_assert_cmpint (x->other, ==, y->other);
      g_assert_cmpuint (x->switches_in, ==, y->switches_in);
      assert_latency_equal (&x->wakeup, &y->wakeup);
      g_assert_cmpmem (x, sizeof *x, y, sizeof *y);
    }
}

/* The CPU table of a version 6 file: after "flyrecord\0", each CPU's data
 * offset and size, at most @max of them; returns how many are sound. */
guint
strata_test_v6_cpus (const guint8 *data,
                     gsize         len,
                     guint64      *offsets,
                     guint64      *sizes,
                     guint         max)
{
  const guint8 *tag = memmem (data, len, "flyrecord", 10);
  guint n = 0;

  g_assert_nonnull (tag);
  for (const guint8 *p = tag + 10; n < max && p + 16 <= data + len; p += 16, n++)
    {
      memcpy (&offsets[n], p, 8);
      memcpy (&sizes[n], p + 8, 8);
      offsets[n] = GUINT64_FROM_LE (offsets[n]);
      sizes[n] = GUINT64_FROM_LE (sizes[n]);
      if (offsets[n] < (guint64) (p + 16 - data) || offsets[n] > len || sizes[n] > len - offsets[n])
        break;
    }

  return n;
}

void
strata_test_assert_same_display_lists (const StrataDisplayList *a,
                                       const StrataDisplayList *b)
{
  g_assert_cmpuint (a->rects->len, ==, b->rects->len);
  for (guint i = 0; i < a->rects->len; i++)
    {
      const StrataPaintRect *x = &g_array_index (a->rects, StrataPaintRect, i);
      const StrataPaintRect *y = &g_array_index (b->rects, StrataPaintRect, i);

      if (memcmp (x, y, sizeof *x) != 0)
        g_error ("rectangle %u: %g,%g %gx%g %08x against %g,%g %gx%g %08x", i,
                 x->x, x->y, x->w, x->h, x->rgba, y->x, y->y, y->w, y->h, y->rgba);
    }

  g_assert_cmpuint (a->texts->len, ==, b->texts->len);
  for (guint i = 0; i < a->texts->len; i++)
    {
      const StrataPaintText *x = &g_array_index (a->texts, StrataPaintText, i);
      const StrataPaintText *y = &g_array_index (b->texts, StrataPaintText, i);

      g_assert_cmpfloat (x->x, ==, y->x);
      g_assert_cmpfloat (x->y, ==, y->y);
      g_assert_cmpfloat (x->max_width, ==, y->max_width);
      g_assert_cmphex (x->rgba, ==, y->rgba);
      g_assert_cmpuint (x->string, ==, y->string);
      g_assert_cmpstr (x->text, ==, y->text);
      g_assert_cmpuint (x->role, ==, y->role);
      g_assert_cmpuint (x->align, ==, y->align);
    }

  g_assert_cmpuint (a->n_items, ==, b->n_items);
  g_assert_cmpuint (a->n_folded, ==, b->n_folded);
  g_assert_cmpuint (a->level, ==, b->level);
}

/* A painter over @tree for the activities @acts it was built from: every
 * channel a row, of the kind its activities give it. @channels must
 * outlive it. */
StrataPainter *
strata_test_painter_for_stream (StrataZoomTree   *tree,
                                StrataStringPool *pool,
                                const GArray     *acts,
                                GArray           *channels,
                                gint64           *start,
                                gint64           *end)
{
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));
  StrataPainter *painter;

  *start = G_MAXINT64;
  *end = G_MININT64;
  for (guint i = 0; i < acts->len; i++)
    {
      const StrataActivity *a = &g_array_index (acts, StrataActivity, i);
      StrataChannel *ch;

      if (a->channel >= channels->len)
        g_array_set_size (channels, a->channel + 1);
      ch = &g_array_index (channels, StrataChannel, a->channel);
      if (a->kind == STRATA_ACTIVITY_TASK || a->kind == STRATA_ACTIVITY_IDLE ||
          a->kind == STRATA_ACTIVITY_IRQ || a->kind == STRATA_ACTIVITY_SOFTIRQ ||
          a->kind == STRATA_ACTIVITY_UNKNOWN)
        ch->kind = STRATA_CHANNEL_CPU;
      else if (ch->kind != STRATA_CHANNEL_CPU)
        ch->kind = STRATA_CHANNEL_THREAD;
      *start = MIN (*start, a->start);
      *end = MAX (*end, a->end);
    }
  for (guint32 c = 0; c < channels->len; c++)
    {
      StrataChannel *ch = &g_array_index (channels, StrataChannel, c);
      g_autofree char *name = g_strdup_printf ("channel %u", c);

      ch->id = c;
      ch->name = strata_string_pool_intern (pool, name);
      ch->parent = STRATA_CHANNEL_NONE;
      ch->tgid = -1;
      ch->end = G_MAXINT64;
      g_array_append_val (rows, c);
    }

  painter = strata_painter_new (pool, tree);
  strata_painter_set_channels (painter, (const StrataChannel *)(gpointer) channels->data, channels->len);
  strata_painter_set_extent (painter, *start, *end);
  strata_painter_set_rows (painter, (const guint32 *)(gpointer) rows->data, rows->len);
  return painter;
}
