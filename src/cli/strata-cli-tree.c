/* strata-cli-tree.c
 *
 * `strata-cli tree FILE`: the shape of the zoom tree one pass over the file
 * builds: its parameters, the chunks pre-calculated at each level, a small
 * picture of where the tree is deep (dense data) and where it is shallow
 * (sparse data, computed on demand), its size against the raw store, and
 * how long opening the file took (the pass, when the index was built).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include "strata-cli.h"
#include "strata-cli-format.h"
#include "strata-json-writer.h"

typedef struct
{
  guint   n_chunks;
  guint64 n_items;
  gsize   size;
  guint   at_end;
} LevelSummary;

static const char *
criterion_name (const StrataZoomParams *params)
{
  switch (params->buffer_criterion)
    {
    case STRATA_BUFFER_ADAPTIVE: return "adaptive";
    case STRATA_BUFFER_FIXED_INTERVAL: return "interval";
    case STRATA_BUFFER_FIXED_COUNT: return "count";
    default: return "?";
    }
}

/* One row per level, one column per slice of the trace: '#' where the
 * level has a pre-calculated chunk, '.' where it is computed on demand. */
static char *
depth_row (GArray *chunks,
           gint64  start,
           gint64  end,
           guint   columns)
{
  GString *row = g_string_new (NULL);
  guint k = 0;

  for (guint c = 0; c < columns; c++)
    {
      gint64 t = start + (gint64) ((double) (end - start) * (c + 0.5) / columns);
      gboolean stored = FALSE;

      while (k < chunks->len && g_array_index (chunks, StrataZoomChunkInfo, k).end <= t)
        k++;
      if (k < chunks->len && g_array_index (chunks, StrataZoomChunkInfo, k).start <= t)
        stored = TRUE;
      g_string_append_c (row, stored ? '#' : '.');
    }

  return g_string_free (row, FALSE);
}

/* What the command found, for either way of printing it. */
typedef struct
{
  const char             *file;
  StrataTrace            *trace;
  StrataZoomTree         *tree;
  const StrataZoomParams *params;
  StrataZoomGeometry      g;
  GPtrArray              *levels;      /* GArray of StrataZoomChunkInfo per level */
  GArray                 *summaries;   /* LevelSummary per level */
  guint64                 n_raw;
  gsize                   tree_size;
  gint64                  took;
  gint64                  start;
  gint64                  end;
  int                     columns;
} Report;

static void
print_json (const Report *r)
{
  g_autoptr(StrataJsonWriter) w = strata_json_writer_new ();
  g_autofree char *text = NULL;

  strata_json_writer_begin_object (w);
  strata_json_writer_key (w, "file");
  strata_json_writer_string (w, r->file);
  strata_json_writer_key (w, "zoom_factor");
  strata_json_writer_uint (w, r->params->zoom_factor);
  strata_json_writer_key (w, "pixels_per_chunk");
  strata_json_writer_uint (w, r->params->pixels_per_chunk);
  strata_json_writer_key (w, "density_threshold");
  strata_json_writer_uint (w, r->params->density_threshold);
  strata_json_writer_key (w, "buffers");
  strata_json_writer_string (w, criterion_name (r->params));
  strata_json_writer_key (w, "n_buffers");
  strata_json_writer_uint (w, strata_zoom_tree_get_n_buffers (r->tree));
  strata_json_writer_key (w, "activities");
  strata_json_writer_uint (w, r->n_raw);
  strata_json_writer_key (w, "raw_bytes");
  strata_json_writer_uint (w, r->n_raw * sizeof (StrataActivity));
  strata_json_writer_key (w, "tree_bytes");
  strata_json_writer_uint (w, r->tree_size);
  strata_json_writer_key (w, "build_us");
  strata_json_writer_int (w, r->took);
  strata_json_writer_key (w, "levels");
  strata_json_writer_begin_array (w);
  for (guint level = 0; level < r->g.n_levels; level++)
    {
      const LevelSummary *s = &g_array_index (r->summaries, LevelSummary, level);
      GArray *chunks = g_ptr_array_index (r->levels, level);

      strata_json_writer_begin_object (w);
      strata_json_writer_key (w, "level");
      strata_json_writer_uint (w, level);
      strata_json_writer_key (w, "chunk_ns");
      strata_json_writer_int (w, strata_zoom_geometry_chunk_duration (&r->g, level));
      strata_json_writer_key (w, "pixel_ns");
      strata_json_writer_int (w, strata_zoom_geometry_pixel (&r->g, level));
      strata_json_writer_key (w, "chunks");
      strata_json_writer_uint (w, s->n_chunks);
      strata_json_writer_key (w, "dense_from_raw_store");
      strata_json_writer_uint (w, strata_zoom_tree_get_n_plain_chunks (r->tree, level));
      strata_json_writer_key (w, "items");
      strata_json_writer_uint (w, s->n_items);
      strata_json_writer_key (w, "bytes");
      strata_json_writer_uint (w, s->size);
      strata_json_writer_key (w, "chunk_starts");
      strata_json_writer_begin_array (w);
      for (guint k = 0; k < chunks->len; k++)
        strata_json_writer_int (w, g_array_index (chunks, StrataZoomChunkInfo, k).start);
      strata_json_writer_end_array (w);
      strata_json_writer_end_object (w);
    }
  strata_json_writer_end_array (w);
  strata_json_writer_end_object (w);
  text = strata_json_writer_finish (w);
  fputs (text, stdout);
}

static void
print_text (const Report *r)
{
  g_autofree char *took_text = strata_format_duration (r->took * 1000);
  g_autofree char *column = strata_format_duration ((r->end - r->start) / r->columns);

  printf ("%s\n", r->file);
  printf ("Parameters:   zoom factor %u, %u pixels per chunk, density %u, %s buffers\n",
          r->params->zoom_factor, r->params->pixels_per_chunk, r->params->density_threshold,
          criterion_name (r->params));
  /* Through a sound index the pass does not run: the time is the
   * open's, and saying "pass" made a mapped 20M-event tree look
   * built in half a millisecond. */
  printf ("Opened in:    %s (%s), %" G_GUINT64_FORMAT " activities in %" G_GUINT64_FORMAT " buffers\n",
          took_text, strata_trace_get_index_path (r->trace) == NULL ? "the pass, no index"
                                                                     : "the pass if the index was built, else its open",
          r->n_raw, strata_zoom_tree_get_n_buffers (r->tree));
  printf ("Size:         raw store %.1f MiB, pre-calculated chunks %.1f MiB (%.2fx the raw store)\n",
          r->n_raw * sizeof (StrataActivity) / 1048576.0, r->tree_size / 1048576.0,
          r->n_raw > 0 ? (double) r->tree_size / (r->n_raw * sizeof (StrataActivity)) : 0.0);

  printf ("\n%5s %10s %10s %7s %10s %10s %9s\n", "LEVEL", "CHUNK", "PIXEL", "CHUNKS", "ITEMS", "SIZE", "DENSE-RAW");
  for (guint level = 0; level < r->g.n_levels; level++)
    {
      const LevelSummary *s = &g_array_index (r->summaries, LevelSummary, level);
      g_autofree char *chunk = strata_format_duration (strata_zoom_geometry_chunk_duration (&r->g, level));
      g_autofree char *pixel = strata_format_duration (strata_zoom_geometry_pixel (&r->g, level));

      printf ("%5u %10s %10s %7u %10" G_GUINT64_FORMAT " %9.1fK %9u\n",
              level, chunk, pixel, s->n_chunks, s->n_items, s->size / 1024.0,
              strata_zoom_tree_get_n_plain_chunks (r->tree, level));
    }

  printf ("\nDENSE-RAW: dense chunks left to the raw store because aggregation would not\n"
          "halve the items of any of their channels (--min-reduction); a chunk it does not\n"
          "halve whole stores the channels it does.\n");
  printf ("\nDepth over time (a column is %s; # pre-calculated, . on demand)\n", column);
  for (guint level = 0; level < r->g.n_levels; level++)
    {
      g_autofree char *row = depth_row (g_ptr_array_index (r->levels, level), r->start, r->end, r->columns);

      printf ("%5u  %s\n", level, row);
      if (g_array_index (r->summaries, LevelSummary, level).n_chunks == 0 &&
          strata_zoom_tree_get_n_plain_chunks (r->tree, level) == 0)
        break;
    }
}

int
strata_cli_tree (int    argc,
                 char **argv)
{
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GPtrArray) levels = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GArray) summaries = g_array_new (FALSE, TRUE, sizeof (LevelSummary));
  StrataCliZoomOptions zoom;
  StrataCliIndexOptions index;
  GOptionGroup *group = strata_cli_zoom_option_group (&zoom);
  gboolean json = FALSE;
  int columns = 64;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "columns", 'c', 0, G_OPTION_ARG_INT, &columns, "Width of the depth picture (default 64)", "N" },
    { NULL }
  };
  const StrataZoomParams *params;
  StrataZoomTree *tree;
  StrataZoomGeometry g;
  const char *file;
  gint64 began, took, start, end;
  guint64 n_raw;
  gsize tree_size;

  strata_cli_add_index_options (group, &index);
  file = strata_cli_parse_file_args ("tree", "the zoom tree's shape", entries, group, &argc, &argv);
  if (file == NULL)
    return STRATA_CLI_EXIT_FAILED;
  columns = CLAMP (columns, 8, 1000);

  began = g_get_monotonic_time ();
  trace = strata_cli_open_trace (file, &zoom, &index);
  took = g_get_monotonic_time () - began;
  if (trace == NULL)
    {
      g_free (zoom.buffers);
      g_free (index.index_path);
      return STRATA_CLI_EXIT_FAILED;
    }

again:

  tree = strata_trace_get_zoom_tree (trace);
  params = strata_zoom_tree_get_params (tree);
  n_raw = strata_raw_store_get_size (strata_zoom_tree_get_raw_store (tree));
  tree_size = strata_zoom_tree_get_size (tree);
  if (!strata_zoom_tree_get_geometry (tree, &g))
    {
      g_printerr ("strata-cli tree: %s: no activities, so no tree\n", file);
      g_free (zoom.buffers);
      g_free (index.index_path);
      return MAX (strata_cli_finish (trace), STRATA_CLI_EXIT_FAILED);
    }

  start = strata_zoom_geometry_chunk_start (&g, 0, strata_zoom_geometry_chunk_index (&g, 0, strata_trace_get_start (trace)));
  start = MAX (start, strata_trace_get_start (trace));
  end = MAX (strata_trace_get_end (trace), start + 1);

  for (guint level = 0; level < g.n_levels; level++)
    {
      GArray *chunks = strata_zoom_tree_list_chunks (tree, level);
      LevelSummary s = { chunks->len, 0, 0, 0 };

      for (guint k = 0; k < chunks->len; k++)
        {
          const StrataZoomChunkInfo *c = &g_array_index (chunks, StrataZoomChunkInfo, k);

          s.n_items += c->n_items;
          s.size += c->size;
          s.at_end += c->at_end;
        }
      g_ptr_array_add (levels, chunks);
      g_array_append_val (summaries, s);
    }

  /* The chunk index was read: if it was found damaged, the listing may
   * miss chunks, so rebuild and list again. */
  if (strata_cli_rebuild_if_damaged (&trace, file, &zoom, &index))
    {
      if (trace == NULL)
        {
          g_free (zoom.buffers);
          g_free (index.index_path);
          return STRATA_CLI_EXIT_FAILED;
        }
      g_ptr_array_set_size (levels, 0);
      g_array_set_size (summaries, 0);
      goto again;
    }
  g_free (zoom.buffers);
  g_free (index.index_path);

  {
    Report r = { file, trace, tree, params, g, levels, summaries, n_raw, tree_size, took, start, end, columns };

    if (json)
      print_json (&r);
    else
      print_text (&r);
  }

  return strata_cli_finish (trace);
}
