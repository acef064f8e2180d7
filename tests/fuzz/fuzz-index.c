/* fuzz-index.c
 *
 * A libFuzzer harness for the index reader. Each input is taken as an
 * index file (copied, so it is aligned as a mapping would be) and opened;
 * when it opens, the trace it describes is read through every query the
 * CLI and the viewer make: each level's chunk list, each chunk's items per
 * channel, viewports at every level (copied and in place), an aggregate's
 * members, the raw store (queried, and walked lane by lane through its
 * packed blocks), the channels, strings and statistics. The reader
 * must answer any input with a trace or a STRATA_ERROR, never a crash, a
 * hang or an unbounded allocation; a packed block (varint columns, zstd)
 * must decode to exactly its elements or be refused. The fuzzing build does not look at the
 * checksums (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION), or the fuzzer
 * would never get past them; the indexes of the fixtures make the seed
 * corpus (strata-cli index --index DIR/x.strata-index FIXTURE).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "strata-error.h"
#include "strata-block-codec.h"
#include "strata-block-packer.h"
#include "strata-chunk-keys.h"
#include "strata-index-layout.h"
#include "strata-index-private.h"
#include "strata-packed-array.h"
#include "strata-raw-store-private.h"
#include "strata-trace-private.h"
#include "strata-zoom-tree-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

static void
walk (StrataTrace *trace)
{
  StrataZoomTree *tree = strata_trace_get_zoom_tree (trace);
  StrataRawStore *raw = strata_zoom_tree_get_raw_store (tree);
  g_autoptr(StrataZoomResult) result = strata_zoom_result_new ();
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (StrataZoomItem));
  g_autoptr(GArray) acts = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  const StrataChannel *channels;
  const StrataEventCount *counts;
  const StrataStats *stats = strata_trace_get_stats (trace);
  StrataZoomGeometry g;
  guint n_channels, n_counts, n_raw;

  channels = strata_trace_get_channels (trace, &n_channels);
  for (guint i = 0; i < n_channels; i++)
    (void) strlen (strata_trace_get_string (trace, channels[i].name));
  counts = strata_trace_get_event_counts (trace, &n_counts);
  for (guint i = 0; i < n_counts; i++)
    (void) strlen (strata_trace_get_string (trace, counts[i].name));
  g_assert (stats != NULL);
  (void) strata_trace_get_info (trace)->format;

  n_raw = MIN (strata_raw_store_get_n_channels (raw), 64);
  for (guint32 c = 0; c < n_raw; c++)
    {
      strata_raw_store_query (raw, c, 0, G_MAXINT64, acts);
      for (guint l = 0; l < STRATA_RAW_STORE_N_LANES; l++)
        {
          StrataRawLane lane;
          guint first, end;

          if (!strata_raw_store_open_lane (raw, c, l, G_MININT64 / 2, G_MAXINT64 / 2, &lane, &first, &end))
            continue;
          /* Backwards from the end, as the on-demand window walks. */
          for (guint i = MIN (end, 4096); i > 0 && strata_raw_lane_get (&lane, i - 1) != NULL; i--)
            ;
          (void) strata_raw_store_check (raw, c, l, 0, end);
        }
    }

  if (!strata_zoom_tree_get_geometry (tree, &g))
    return;

  for (guint level = 0; level < g.n_levels; level++)
    {
      g_autoptr(GArray) chunks = strata_zoom_tree_list_chunks (tree, level);
      gint64 len = strata_zoom_geometry_chunk_duration (&g, level);
      gint64 from = strata_trace_get_start (trace);

      (void) strata_zoom_tree_get_n_plain_chunks (tree, level);
      for (guint k = 0; k < MIN (chunks->len, 16); k++)
        {
          const StrataZoomChunkInfo *info = &g_array_index (chunks, StrataZoomChunkInfo, k);

          for (guint32 c = 0; c < n_raw; c++)
            strata_zoom_tree_get_chunk_items (tree, level, info->index, c, items);
        }

      if (from < 0 || from > (G_GINT64_CONSTANT (1) << 62) - 2 * len)
        continue;
      g_array_set_size (items, 0);
      strata_zoom_tree_query (tree, level, from, from + len, NULL, 0, items, NULL);
      strata_zoom_tree_query_spans (tree, level, from + len / 2, from + len + len / 2, NULL, 0, result, NULL);
      for (guint i = 0; i < MIN (items->len, 4); i++)
        {
          g_array_set_size (acts, 0);
          strata_zoom_tree_get_members (tree, &g_array_index (items, StrataZoomItem, i), acts);
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  guint8 *copy = g_memdup2 (data, size);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(StrataIndexMap) map = NULL;
  g_autoptr(StrataTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  const gsize version_end = G_STRUCT_OFFSET (StrataIndexHeader, version) + sizeof (guint32);

  /* An index of the committed corpus made by an earlier version is taken
   * as this version's: each bump of the version left the whole corpus at
   * the version check (the layout changes between versions are in the
   * values, which are what is fuzzed). */
  if (size >= version_end && memcmp (copy, STRATA_INDEX_MAGIC, 8) == 0)
    {
      guint32 version = STRATA_INDEX_VERSION;

      memcpy (copy + G_STRUCT_OFFSET (StrataIndexHeader, version), &version, sizeof version);
    }
  bytes = g_bytes_new_take (copy, size);
  map = strata_index_map_new_from_bytes (bytes);

  trace = strata_index_open_map (map, NULL, NULL, NULL, &error);
  if (trace == NULL)
    {
      g_assert (error != NULL && error->domain == STRATA_ERROR);
      return 0;
    }

  walk (trace);
  return 0;
}
