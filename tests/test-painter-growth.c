/* test-painter-growth.c
 *
 * A painter kept while its trace grows (a recording followed): given the
 * channels new and changed at each showing (strata_painter_grow_channels())
 * it must give the default rows and the row names that a painter made
 * afresh for the channels as they are then gives (the oracle: every
 * channel named and sorted again), and what it holds in the heap must not
 * grow with every channel ever made.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "strata-test-support.h"
#include "strata-test-streams.h"
#include "strata-painter.h"
#include "strata-painter-private.h"
#include "strata-spilled-array.h"

#include "strata-test-heap.h"

/* A recording of processes made all the time, pids wrapping, as the
 * channels of the model come: a process's channel, then its threads (one
 * to three, the first its main thread), each with a running span at its
 * own time; some threads with nothing (never shown), some whose process
 * is not known (rows of their own at the end), some found with something
 * only at the very end of the recording, and a CPU channel every so
 * often (CPUs come as they are first seen). */
typedef struct
{
  StrataStringPool *pool;
  GArray           *channels;    /* StrataChannel, as the model has them at the end */
  GArray           *made_at;     /* gint64 per channel: when it is first reported */
  GArray           *activities;  /* StrataActivity, in start order */
  StrataZoomTree   *tree;
  gint64            end;
} Growth;

#define STEP_NS 1000

static void
growth_free (Growth *g)
{
  g_clear_pointer (&g->tree, strata_zoom_tree_free);
  g_array_unref (g->channels);
  g_array_unref (g->made_at);
  g_array_unref (g->activities);
  strata_string_pool_unref (g->pool);
  g_free (g);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Growth, growth_free)

static guint32
add_channel (Growth         *g,
             StrataChannelKind kind,
             gint32          id,
             guint32         parent,
             const char     *name,
             gint64          t)
{
  StrataChannel ch = { 0 };

  ch.kind = kind;
  ch.id = id;
  ch.parent = parent;
  ch.tgid = -1;
  ch.name = name != NULL ? strata_string_pool_intern (g->pool, name) : STRATA_STRING_NONE;
  ch.begin = t;
  ch.end = G_MAXINT64;
  g_array_append_val (g->channels, ch);
  g_array_append_val (g->made_at, t);
  return g->channels->len - 1;
}

static void
add_running (Growth  *g,
             guint32  channel,
             gint64   t)
{
  StrataActivity a = { 0 };

  a.start = t;
  a.end = t + STEP_NS / 2;
  a.channel = channel;
  a.kind = STRATA_ACTIVITY_STATE;
  a.state = STRATA_TASK_STATE_RUNNING;
  g_array_append_val (g->activities, a);
}

static int
by_start (gconstpointer pa,
          gconstpointer pb)
{
  const StrataActivity *a = pa, *b = pb;

  return a->start < b->start ? -1 : a->start > b->start;
}

/* @all_shown: every thread has something from its start, and a process
 * known (each thread a row, under its process's heading when it has
 * two or more threads). */
static Growth *
growth_new (guint    n_processes,
            gboolean all_shown)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) late = g_array_new (FALSE, FALSE, sizeof (guint32));
  Growth *g = g_new0 (Growth, 1);
  StrataZoomParams params;
  guint n_cpus = 0;

  g->pool = strata_string_pool_new ();
  g->channels = g_array_new (FALSE, FALSE, sizeof (StrataChannel));
  g->made_at = g_array_new (FALSE, FALSE, sizeof (gint64));
  g->activities = g_array_new (FALSE, FALSE, sizeof (StrataActivity));

  for (guint k = 0; k < n_processes; k++)
    {
      gint64 t = 1000 + (gint64) k * STEP_NS;
      /* pids wrap: a later process may sort before earlier ones. */
      gint32 pid = 300 + (gint32) ((k * 7919u) % 30011u) * 4;
      guint n_threads = 1 + k % 3;
      guint32 process;

      if (k % 97 == 0 && n_cpus < 16)
        add_channel (g, STRATA_CHANNEL_CPU, (gint32) (15 - n_cpus++), STRATA_CHANNEL_NONE, NULL, t);
      process = add_channel (g, STRATA_CHANNEL_PROCESS, pid, STRATA_CHANNEL_NONE,
                             k % 5 == 0 ? "named-process" : NULL, t);
      for (guint j = 0; j < n_threads; j++)
        {
          g_autofree char *name = g_strdup_printf ("worker-%u-%u", k % 50, j);
          guint32 parent = k % 17 == 0 && !all_shown ? STRATA_CHANNEL_NONE : process;
          guint32 thread;

          /* The main thread comes last now and then: it names its process
           * however many threads were named before. */
          thread = add_channel (g, STRATA_CHANNEL_THREAD, pid + (gint32) ((j + (k % 4 == 0)) % n_threads), parent,
                                k % 23 == 0 && j == 0 ? NULL : name, t);
          if (k % 11 == 0 && j == 1 && !all_shown)
            continue;   /* nothing but that it exists */
          if (k % 13 == 0 && j == n_threads - 1 && !all_shown)
            g_array_append_val (late, thread);
          else
            add_running (g, thread, t + j);
        }
    }
  g->end = 1000 + (gint64) n_processes * STEP_NS;
  for (guint i = 0; i < late->len; i++)
    add_running (g, g_array_index (late, guint32, i), g->end - STEP_NS / 4 + i % 100);
  g_array_sort (g->activities, by_start);

  strata_zoom_params_init (&params);
  g->tree = strata_zoom_tree_new (&params, &error);
  g_assert_no_error (error);
  strata_test_stream_build (g->tree, (const StrataActivity *)(gpointer) g->activities->data, g->activities->len);
  return g;
}

/* The channels reported by @t: those made by then, in a table grown in
 * place as the view's is (a spilled array), with the renames since
 * @since of those made before it (a thread named again, as exec does) in
 * @changed. */
static void
report (Growth             *g,
        StrataSpilledArray *table,
        gint64              since,
        gint64              t,
        GArray             *changed)
{
  guint n_before = table->len, n = n_before;

  while (n < g->channels->len && g_array_index (g->made_at, gint64, n) <= t)
    n++;
  strata_spilled_array_set_size (table, n);
  memcpy (&strata_spilled_array_index (table, StrataChannel, n_before), &g_array_index (g->channels, StrataChannel, n_before),
          (gsize) (n - n_before) * sizeof (StrataChannel));

  g_array_set_size (changed, 0);
  for (guint32 c = 0; c < n_before; c++)
    {
      StrataChannel *ch = &strata_spilled_array_index (table, StrataChannel, c);

      /* A few threads renamed at each report, from one place of the table
       * to the next. */
      if (ch->kind == STRATA_CHANNEL_THREAD && (c * 2654435761u + (guint32) since) % 1009 == 0)
        {
          g_autofree char *name = g_strdup_printf ("exec-%u", (guint) (since % 7));

          ch->name = strata_string_pool_intern (g->pool, name);
          g_array_append_val (changed, c);
        }
    }
}

static void
assert_as_fresh (Growth             *g,
                 StrataPainter      *kept,
                 const guint32      *kept_rows,
                 guint               n_kept_rows,
                 StrataSpilledArray *table,
                 gint64              end)
{
  StrataPainter *fresh = strata_painter_new (g->pool, g->tree);
  g_autoptr(GArray) want = NULL;

  strata_painter_set_channels (fresh, (const StrataChannel *)(gpointer) table->data, table->len);
  strata_painter_set_extent (fresh, 1000, end);
  want = strata_painter_default_rows (fresh);
  g_assert_cmpmem (kept_rows, n_kept_rows * sizeof (guint32), want->data, want->len * sizeof (guint32));
  for (guint32 c = 0; c < table->len; c++)
    g_assert_cmpuint (strata_painter_get_row_name (kept, c), ==, strata_painter_get_row_name (fresh, c));
  strata_painter_free (fresh);
}

/* What the timeline does at a report of the recording up to @end: the
 * painter given all the channels the first time, then only what is new
 * and changed; its default rows, where it keeps them. */
static const guint32 *
show (Growth             *g,
      StrataPainter      *kept,
      StrataSpilledArray *table,
      gint64              since,
      gint64              end,
      GArray             *changed,
      gboolean            first,
      guint              *n_rows)
{
  report (g, table, since, end, changed);
  if (first)
    strata_painter_set_channels (kept, (const StrataChannel *)(gpointer) table->data, table->len);
  else
    strata_painter_grow_channels (kept, (const StrataChannel *)(gpointer) table->data, table->len,
                                  (const guint32 *)(gpointer) changed->data, changed->len);
  strata_painter_set_extent (kept, 1000, end);
  return strata_painter_update_default_rows (kept, n_rows);
}

/* At each report the kept painter's default rows and names are a fresh
 * painter's: the rows' order kept and grown (new CPUs, threads found with
 * something late, processes getting their heading with their second
 * thread, pids wrapping into the middle of the order) is the order of a
 * sort of all the channels. */
static void
test_kept_equals_fresh (void)
{
  g_autoptr(Growth) g = growth_new (1500, FALSE);
  g_autoptr(StrataSpilledArray) table = strata_spilled_array_new (sizeof (StrataChannel));
  g_autoptr(GArray) changed = g_array_new (FALSE, FALSE, sizeof (guint32));
  StrataPainter *kept = strata_painter_new (g->pool, g->tree);
  gint64 since = 0;
  guint n_reports = 0, most_rows = 0;

  for (gint64 t = 1000; ; t += 37 * STEP_NS)
    {
      const guint32 *rows;
      guint n_rows;
      gint64 end = MIN (t, g->end);

      rows = show (g, kept, table, since, end, changed, n_reports == 0, &n_rows);
      assert_as_fresh (g, kept, rows, n_rows, table, end);
      most_rows = MAX (most_rows, n_rows);
      since = end;
      n_reports++;
      if (end == g->end)
        break;
    }
  g_assert_cmpuint (n_reports, >, 30);
  /* Most threads are rows by the end, with their processes' headings. */
  g_assert_cmpuint (most_rows, >, g->channels->len / 2);
  strata_painter_free (kept);
}

/* What the kept painters hold in the heap, outside their spilled arrays
 * (each in the heap up to a few MiB, then in its file), after 8 000 and
 * then 32 000 channels made: the names, row slots, answers and order of
 * every channel are in those, and so are the rows handed to the painter
 * (as the timeline gives the rows the user chose). Sorting every
 * channel's row again at each report, with scratch of 12 bytes a channel
 * and GArrays of 9 more, held about 26, and the rows and their indents
 * in GArrays 5 more a row. */
static void
test_bounded (void)
{
  g_autoptr(Growth) g = growth_new (16000, FALSE);
  g_autoptr(StrataSpilledArray) table = strata_spilled_array_new (sizeof (StrataChannel));
  g_autoptr(GArray) changed = g_array_new (FALSE, FALSE, sizeof (guint32));
  StrataPainter *kept = strata_painter_new (g->pool, g->tree);
  gsize heap_at[2] = { 0, 0 };
  guint n_at[2] = { 0, 0 };
  gint64 since = 0;
  guint n_reports = 0;
  double per_channel;

  for (gint64 t = 1000; ; t += 400 * STEP_NS)
    {
      const guint32 *rows;
      guint n_rows;
      gint64 end = MIN (t, g->end);
      guint at;

      rows = show (g, kept, table, since, end, changed, n_reports == 0, &n_rows);
      strata_painter_set_rows (kept, rows, n_rows);
      since = end;
      n_reports++;

      at = n_at[0] == 0 ? 0 : 1;
      if ((at == 0 && table->len >= 8000) || (at == 1 && table->len >= 32000))
        {
          n_at[at] = table->len;
          heap_at[at] = strata_test_heap_in_use () - strata_painter_get_spilled_heap (kept) -
                        strata_spilled_array_get_heap_bytes (table);
          if (at == 1)
            break;
        }
      g_assert_cmpint (end, <, g->end);
    }

  per_channel = ((double) heap_at[1] - (double) heap_at[0]) / (n_at[1] - n_at[0]);
  g_test_message ("heap outside the spilled arrays: %.1f bytes a channel (%u -> %u channels)",
                  per_channel, n_at[0], n_at[1]);
  g_assert_cmpfloat (per_channel, <, 8.0);
  strata_painter_free (kept);
}

/* The indents of @rows as the painter worked them out for all rows when
 * it was given them: a thread under the run of its process's threads
 * that its process's row heads. */
static guint8
brute_indent (const StrataChannel *channels,
              guint                n_channels,
              const guint32       *rows,
              guint                i)
{
  const StrataChannel *ch = rows[i] < n_channels ? &channels[rows[i]] : NULL;
  guint8 indent = 0;

  if (ch != NULL && ch->kind == STRATA_CHANNEL_THREAD && ch->parent < n_channels)
    for (guint j = i; j-- > 0; )
      {
        const StrataChannel *above = rows[j] < n_channels ? &channels[rows[j]] : NULL;

        if (rows[j] == ch->parent)
          indent = 1;
        if (above == NULL || above->kind != STRATA_CHANNEL_THREAD || above->parent != ch->parent)
          break;
      }
  return indent;
}

/* Frames down all of @painter's rows, a viewport and a half at a time:
 * each row drawn is the row at its place, with the indent of the brute
 * force over all the rows. Returns how many rows were drawn. */
static guint
assert_frames_indent (StrataPainter       *painter,
                      const StrataChannel *channels,
                      guint                n_channels,
                      gint64               end)
{
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  const StrataPaintStyle *style = strata_painter_get_style (painter);
  const guint32 *rows;
  guint n_rows, n_drawn = 0, n_indented = 0;
  StrataPaintViewport vp = { 0 };

  rows = strata_painter_get_rows (painter, &n_rows);
  vp.from = 1000;
  vp.to = end;
  vp.width = 400;
  vp.height = 37 * style->row_height + 7;
  for (double scroll = -30; scroll < (double) n_rows * style->row_height; scroll += vp.height * 1.5 + 3.25)
    {
      vp.scroll_y = (float) scroll;
      strata_painter_paint (painter, &vp, list);
      for (guint k = 0; k < list->rows->len; k++)
        {
          const StrataPaintRow *row = &g_array_index (list->rows, StrataPaintRow, k);
          guint i = (guint) lroundf ((row->y - list->area_y + vp.scroll_y) / style->row_height);

          g_assert_cmpuint (i, <, n_rows);
          g_assert_cmpuint (row->channel, ==, rows[i]);
          g_assert_cmpuint (row->indent, ==, brute_indent (channels, n_channels, rows, i));
          /* The first row drawn is the first that fits, whatever the scroll. */
          if (k == 0)
            g_assert_true (i == 0 || (float) i * style->row_height - vp.scroll_y < style->row_height);
          n_indented += row->indent;
          n_drawn++;
        }
    }
  g_assert_cmpuint (n_indented, >, 0);
  return n_drawn;
}

/* The indent of each row a frame draws, worked out for those rows only,
 * is the brute force's over all rows: for the default rows read in place
 * and for rows chosen (some processes' headings gone, some threads moved
 * to the top, an unknown channel among them). */
static void
test_indents (void)
{
  g_autoptr(Growth) g = growth_new (1500, FALSE);
  g_autoptr(GArray) chosen = g_array_new (FALSE, FALSE, sizeof (guint32));
  const StrataChannel *channels = (const StrataChannel *)(gpointer) g->channels->data;
  StrataPainter *painter = strata_painter_new (g->pool, g->tree);
  const guint32 *rows;
  guint n_rows;

  strata_painter_set_channels (painter, channels, g->channels->len);
  strata_painter_set_extent (painter, 1000, g->end);
  rows = strata_painter_update_default_rows (painter, &n_rows);
  strata_painter_show_default_rows (painter);
  g_assert_true (strata_painter_get_rows (painter, NULL) == rows);
  g_assert_cmpuint (assert_frames_indent (painter, channels, g->channels->len, g->end), >, n_rows / 2);

  for (guint i = 0; i < n_rows; i++)
    {
      guint32 ch = rows[i];

      if (channels[ch].kind == STRATA_CHANNEL_PROCESS && i % 3 == 0)
        continue;
      if (i % 41 == 0)
        {
          g_array_prepend_val (chosen, ch);
          continue;
        }
      g_array_append_val (chosen, ch);
      if (i % 97 == 0)
        {
          guint32 none = g->channels->len + 5;

          g_array_append_val (chosen, none);
        }
    }
  strata_painter_set_rows (painter, (const guint32 *)(gpointer) chosen->data, chosen->len);
  assert_frames_indent (painter, channels, g->channels->len, g->end);
  strata_painter_free (painter);
}

/* As the timeline follows a recording whose threads are all shown: the
 * kept painter shows its default rows where it keeps them (no copy, no
 * indents kept) and paints a frame at the bottom of the rows at each
 * report. What it holds in the heap outside its spilled arrays, from
 * 8 000 to 32 000 rows (a row each thread, a heading each process of two
 * or more), must be flat: a fraction of a byte a row. Before, the rows
 * were copied into GArrays for the view (4 B a row, twice) and the
 * painter (4 B and an indent of 1). */
static void
test_rows_bounded (void)
{
  g_autoptr(Growth) g = growth_new (16000, TRUE);
  g_autoptr(StrataSpilledArray) table = strata_spilled_array_new (sizeof (StrataChannel));
  g_autoptr(GArray) changed = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(StrataDisplayList) list = strata_display_list_new ();
  StrataPainter *kept = strata_painter_new (g->pool, g->tree);
  gsize heap_at[2] = { 0, 0 };
  guint n_at[2] = { 0, 0 };
  gint64 since = 0;
  guint n_reports = 0;
  double per_row;

  for (gint64 t = 1000; ; t += 400 * STEP_NS)
    {
      StrataPaintViewport vp = { 0 };
      guint n_rows, at;
      gint64 end = MIN (t, g->end);

      show (g, kept, table, since, end, changed, n_reports == 0, &n_rows);
      strata_painter_show_default_rows (kept);
      vp.from = MAX (1000, end - 100 * STEP_NS);
      vp.to = end;
      vp.width = 800;
      vp.height = 600;
      vp.scroll_y = MAX (0.f, (float) n_rows * strata_painter_get_style (kept)->row_height - vp.height);
      strata_painter_paint (kept, &vp, list);
      g_assert_cmpuint (list->rows->len, >, 0);
      since = end;
      n_reports++;

      at = n_at[0] == 0 ? 0 : 1;
      if ((at == 0 && n_rows >= 8000) || (at == 1 && n_rows >= 32000))
        {
          n_at[at] = n_rows;
          heap_at[at] = strata_test_heap_in_use () - strata_painter_get_spilled_heap (kept) -
                        strata_spilled_array_get_heap_bytes (table);
          if (at == 1)
            break;
        }
      g_assert_cmpint (end, <, g->end);
    }

  per_row = ((double) heap_at[1] - (double) heap_at[0]) / (n_at[1] - n_at[0]);
  g_test_message ("heap outside the spilled arrays: %.2f bytes a row (%u -> %u rows)", per_row, n_at[0], n_at[1]);
  g_assert_cmpfloat (per_row, <, 1.0);
  strata_painter_free (kept);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/painter/growth/kept-equals-fresh", test_kept_equals_fresh);
  g_test_add_func ("/strata/painter/growth/bounded", test_bounded);
  g_test_add_func ("/strata/painter/growth/indents", test_indents);
  g_test_add_func ("/strata/painter/growth/rows-bounded", test_rows_bounded);

  return g_test_run ();
}
