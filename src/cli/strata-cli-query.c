/* strata-cli-query.c
 *
 * `strata-cli query FILE --from T --to T (--level L | --px NS | --width W)`:
 * what a viewer would draw for that viewport, straight from the zoom tree:
 * the items of at most two chunks of one level (activities as they are,
 * aggregates of the trivial ones with their member count, busy time and
 * dominant member), channel by channel, and how they were served.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata-cli.h"
#include "strata-cli-format.h"
#include "strata-json-writer.h"

/* A channel by what a user knows of it: "cpu:N", "tid:N", "pid:N", a
 * thread or process name, or the channel's number in `query --json`. */
static gboolean
resolve_channel (StrataTrace  *trace,
                 const char   *text,
                 GArray       *out,
                 GError      **error)
{
  const StrataChannel *channels;
  guint n, found = 0;
  char *end = NULL;
  gint64 number = -1;
  gint kind = -1;

  channels = strata_trace_get_channels (trace, &n);

  if (g_str_has_prefix (text, "cpu:"))
    kind = STRATA_CHANNEL_CPU;
  else if (g_str_has_prefix (text, "tid:"))
    kind = STRATA_CHANNEL_THREAD;
  else if (g_str_has_prefix (text, "pid:"))
    kind = STRATA_CHANNEL_PROCESS;

  if (kind >= 0)
    {
      number = g_ascii_strtoll (text + 4, &end, 10);
      if (end == text + 4 || *end != '\0')
        number = -1;
    }
  else
    {
      gint64 v = g_ascii_strtoll (text, &end, 10);

      if (end != text && *end == '\0')
        {
          if (v >= 0 && v < n)
            {
              guint32 c = v;

              g_array_append_val (out, c);
              return TRUE;
            }
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "channel %s: the trace has channels 0 to %u", text, n - 1);
          return FALSE;
        }
    }

  for (guint32 c = 0; c < n; c++)
    {
      gboolean match;

      if (kind >= 0)
        match = channels[c].kind == kind && channels[c].id == number;
      else
        match = channels[c].kind != STRATA_CHANNEL_CPU &&
                g_strcmp0 (strata_trace_get_string (trace, channels[c].name), text) == 0;
      if (match)
        {
          g_array_append_val (out, c);
          found++;
        }
    }

  if (found == 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "channel %s: no such channel (use cpu:N, tid:N, pid:N, a name or a number)", text);
      return FALSE;
    }

  return TRUE;
}

static char *
channel_label (StrataTrace *trace,
               guint32      channel)
{
  const StrataChannel *channels;
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  if (channel >= n)
    return g_strdup_printf ("#%u", channel);

  switch (channels[channel].kind)
    {
    case STRATA_CHANNEL_CPU:
      return g_strdup_printf ("cpu %d", channels[channel].id);
    case STRATA_CHANNEL_PROCESS:
      return g_strdup_printf ("%s pid %d", strata_trace_get_string (trace, channels[channel].name),
                              channels[channel].id);
    default:
      return g_strdup_printf ("%s tid %d", strata_trace_get_string (trace, channels[channel].name),
                              channels[channel].id);
    }
}

/* What an item shows: "running", "task bash", "irq 24 eth0" ... */
static char *
item_what (StrataTrace          *trace,
           const StrataZoomItem *item)
{
  const char *label = strata_trace_get_string (trace, item->label);

  if (item->kind == STRATA_ACTIVITY_STATE)
    return g_strdup (strata_task_state_to_string (item->state));
  if (label != NULL && label[0] != '\0')
    return g_strdup_printf ("%s %s", strata_activity_kind_to_string (item->kind), label);
  return g_strdup (strata_activity_kind_to_string (item->kind));
}

/* One item as JSON. */
static void
write_item (StrataJsonWriter     *w,
            StrataTrace          *trace,
            const StrataZoomItem *it)
{
  const char *label = strata_trace_get_string (trace, it->label);

  strata_json_writer_begin_object (w);
  strata_json_writer_key (w, "channel");
  strata_json_writer_uint (w, it->channel);
  strata_json_writer_key (w, "start");
  strata_json_writer_int (w, it->start);
  strata_json_writer_key (w, "end");
  strata_json_writer_int (w, it->end);
  strata_json_writer_key (w, "kind");
  strata_json_writer_string (w, strata_activity_kind_to_string (it->kind));
  if (it->kind == STRATA_ACTIVITY_STATE)
    {
      strata_json_writer_key (w, "state");
      strata_json_writer_string (w, strata_task_state_to_string (it->state));
    }
  strata_json_writer_key (w, "label");
  if (label != NULL)
    strata_json_writer_string (w, label);
  else
    strata_json_writer_null (w);
  strata_json_writer_key (w, "arg");
  strata_json_writer_int (w, it->arg);
  strata_json_writer_key (w, "depth");
  strata_json_writer_uint (w, (it->flags & STRATA_ACTIVITY_FLAG_DEPTH_MASK) >> STRATA_ACTIVITY_FLAG_DEPTH_SHIFT);
  strata_json_writer_key (w, "count");
  strata_json_writer_uint (w, it->count);
  strata_json_writer_key (w, "busy");
  strata_json_writer_int (w, it->busy);
  strata_json_writer_key (w, "aggregate");
  strata_json_writer_bool (w, (it->flags & STRATA_ZOOM_ITEM_AGGREGATE) != 0);
  strata_json_writer_key (w, "continues_before");
  strata_json_writer_bool (w, (it->flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE) != 0);
  strata_json_writer_key (w, "continues_after");
  strata_json_writer_bool (w, (it->flags & STRATA_ACTIVITY_FLAG_CONTINUES_AFTER) != 0);
  strata_json_writer_end_object (w);
}

/* The items, channel by channel, for a reader. */
static void
print_text (StrataTrace                *trace,
            const StrataZoomGeometry   *g,
            int                         level,
            GArray                     *items,
            const StrataZoomQueryStats *stats)
{
  g_autofree char *pixel = strata_format_duration (strata_zoom_geometry_pixel (g, level));
  guint32 last_channel = G_MAXUINT32;

  printf ("Level %d (%s per pixel): %u items from %u chunk%s (%u pre-calculated, %u parts on demand)\n",
          level, pixel, items->len, stats->n_chunks, stats->n_chunks == 1 ? "" : "s",
          stats->n_precomputed, stats->n_on_demand);

  for (guint i = 0; i < items->len; i++)
    {
      const StrataZoomItem *it = &g_array_index (items, StrataZoomItem, i);
      g_autofree char *ts = strata_format_timestamp (it->start);
      g_autofree char *dur = strata_format_duration (it->end - it->start);
      g_autofree char *what = item_what (trace, it);

      if (it->channel != last_channel)
        {
          g_autofree char *label = channel_label (trace, it->channel);

          printf ("\n%s\n", label);
          last_channel = it->channel;
        }

      printf ("  %s %10s  %s%s%s", ts, dur,
              it->flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE ? "…" : "",
              what,
              it->flags & STRATA_ACTIVITY_FLAG_CONTINUES_AFTER ? "…" : "");
      if (it->flags & STRATA_ZOOM_ITEM_AGGREGATE)
        {
          g_autofree char *busy = strata_format_duration (it->busy);

          printf ("  (aggregate of %u, busy %s)", it->count, busy);
        }
      printf ("\n");
    }
}

int
strata_cli_query (int    argc,
                  char **argv)
{
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GArray) channels = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) channel_args = NULL;
  g_autofree char *from_text = NULL;
  g_autofree char *to_text = NULL;
  StrataCliZoomOptions zoom;
  StrataCliIndexOptions index;
  g_autofree char *zoom_buffers = NULL;
  g_autofree char *index_path = NULL;
  GOptionGroup *group = strata_cli_zoom_option_group (&zoom);
  gboolean json = FALSE;
  int level = -1;
  gint64 px = 0;
  const GOptionEntry entries[] = {
    { "from", 0, 0, G_OPTION_ARG_STRING, &from_text, "Start of the viewport (default: the trace's start)", "T" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to_text, "End of the viewport, excluded (default: the trace's end)", "T" },
    { "level", 'l', 0, G_OPTION_ARG_INT, &level, "Zoom level (0 holds the whole trace in one chunk)", "L" },
    { "px", 0, 0, G_OPTION_ARG_INT64, &px, "Nanoseconds per pixel: picks the level", "NS" },
    { "channel", 'C', 0, G_OPTION_ARG_STRING_ARRAY, &channel_args,
      "A row to show: cpu:N, tid:N, pid:N, a name or a number (repeat; default all)", "C" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { NULL }
  };
  StrataZoomQueryStats stats;
  StrataZoomTree *tree;
  StrataZoomGeometry g;
  const char *file;
  gint64 from, to;

  strata_cli_add_index_options (group, &index);
  file = strata_cli_parse_file_args ("query",
                                     "the items a viewer draws for a viewport. Times are ns "
                                     "(229760484430), seconds (229.760484430), a number with a "
                                     "unit (229.76s) or +TIME from the start (+12.5ms)",
                                     entries, group, &argc, &argv);
  if (file == NULL)
    return STRATA_CLI_EXIT_FAILED;
  if ((level >= 0) + (px > 0) > 1)
    {
      g_printerr ("strata-cli query: give one of --level and --px\n");
      return STRATA_CLI_EXIT_FAILED;
    }

  zoom_buffers = zoom.buffers;
  index_path = index.index_path;
  trace = strata_cli_open_trace (file, &zoom, &index);
  if (trace == NULL)
    return STRATA_CLI_EXIT_FAILED;
  tree = strata_trace_get_zoom_tree (trace);

  from = strata_trace_get_start (trace);
  to = strata_trace_get_end (trace) + 1;
  if ((from_text != NULL && !strata_parse_time (from_text, strata_trace_get_start (trace), &from, &error)) ||
      (to_text != NULL && !strata_parse_time (to_text, strata_trace_get_start (trace), &to, &error)))
    {
      g_printerr ("strata-cli query: %s\n", error->message);
      return STRATA_CLI_EXIT_FAILED;
    }
  if (to <= from)
    {
      g_printerr ("strata-cli query: the viewport's end must be after its start\n");
      return STRATA_CLI_EXIT_FAILED;
    }

  for (guint i = 0; channel_args != NULL && channel_args[i] != NULL; i++)
    if (!resolve_channel (trace, channel_args[i], channels, &error))
      {
        g_printerr ("strata-cli query: %s\n", error->message);
        return STRATA_CLI_EXIT_FAILED;
      }

  if (!strata_zoom_tree_get_geometry (tree, &g))
    {
      g_printerr ("strata-cli query: %s: no activities\n", file);
      return MAX (strata_cli_finish (trace), STRATA_CLI_EXIT_FAILED);
    }
  /* --px asks for that resolution whatever the number of chunks; otherwise
   * the level is the seed's: the finest whose chunk holds the viewport. */
  if (px > 0)
    level = strata_zoom_geometry_level_for_pixel (&g, px);
  else if (level < 0)
    level = strata_zoom_geometry_level_for_viewport (&g, to - from);
  if ((guint) level >= g.n_levels)
    {
      g_printerr ("strata-cli query: level %d: the tree has levels 0 to %u\n", level, g.n_levels - 1);
      return STRATA_CLI_EXIT_FAILED;
    }

  strata_zoom_tree_query (tree, level, from, to,
                          channels->len > 0 ? (const guint32 *)(gpointer)channels->data : NULL,
                          channels->len, items, &stats);
  /* A damaged index may have left something out: rebuild, ask again. */
  if (strata_cli_rebuild_if_damaged (&trace, file, &zoom, &index))
    {
      if (trace == NULL)
        return STRATA_CLI_EXIT_FAILED;
      tree = strata_trace_get_zoom_tree (trace);
      g_array_set_size (items, 0);
      strata_zoom_tree_query (tree, level, from, to,
                              channels->len > 0 ? (const guint32 *)(gpointer)channels->data : NULL,
                              channels->len, items, &stats);
    }

  if (json)
    {
      g_autoptr(StrataJsonWriter) w = strata_json_writer_new ();
      g_autofree char *text = NULL;

      strata_json_writer_begin_object (w);
      strata_json_writer_key (w, "level");
      strata_json_writer_uint (w, level);
      strata_json_writer_key (w, "pixel_ns");
      strata_json_writer_int (w, strata_zoom_geometry_pixel (&g, level));
      strata_json_writer_key (w, "from");
      strata_json_writer_int (w, from);
      strata_json_writer_key (w, "to");
      strata_json_writer_int (w, to);
      strata_json_writer_key (w, "chunks");
      strata_json_writer_uint (w, stats.n_chunks);
      strata_json_writer_key (w, "precomputed_chunks");
      strata_json_writer_uint (w, stats.n_precomputed);
      strata_json_writer_key (w, "on_demand_parts");
      strata_json_writer_uint (w, stats.n_on_demand);
      strata_json_writer_key (w, "items");
      strata_json_writer_begin_array (w);
      for (guint i = 0; i < items->len; i++)
        {
          write_item (w, trace, &g_array_index (items, StrataZoomItem, i));
        }
      strata_json_writer_end_array (w);
      strata_json_writer_end_object (w);
      text = strata_json_writer_finish (w);
      fputs (text, stdout);
    }
  else
    print_text (trace, &g, level, items, &stats);

  return strata_cli_finish (trace);
}
