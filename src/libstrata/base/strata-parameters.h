/* strata-parameters.h
 *
 * How the library holds what it builds, in one place: the memory budgets
 * and spill thresholds of the zoom tree, its raw store and the
 * statistics, whether the levels run in a thread of their own, how hard
 * the index is squeezed, where indexes go, and whether the pass reports
 * its memory. None of them changes what is built (the index of a trace is
 * the same bytes under any of them; test-index-determinism checks it):
 * they trade memory, disk and time. The tests and the benchmarks set them
 * to reach the paths a small trace would not.
 *
 * Each can also be set through the environment, read here and nowhere
 * else (strata_parameters_init_from_environment()):
 *
 *   STRATA_ZOOM_PIPELINED=0|1        the levels in a thread of their own
 *   STRATA_ZOOM_POOL_BUDGET=BYTES    a level's pool before its open chunk spills
 *   STRATA_ZOOM_CLOSED_PAGE=N        closed lanes of a chunk per page (0: none)
 *   STRATA_ZOOM_COUNT_SWITCH=0|1     lanes that do not pay counted from a spill on
 *   STRATA_ZOOM_PROVE_PLAIN=0|1      plain chunks proven so instead of counted
 *   STRATA_ZOOM_SPILL_WINDOWS=BYTES  what a level's spill is read back through
 *   STRATA_ZOOM_CHUNK_SPILL_FROM=BYTES  chunks' items kept in memory (0: none)
 *   STRATA_ZOOM_SPAN_CUT=N           spans longer than N items answered in part
 *   STRATA_RAW_STORE_SPILL_FROM=N    activities before the raw store spills
 *   STRATA_RAW_STORE_BUDGET=BYTES    the raw store's memory past that
 *   STRATA_RAW_STORE_PAGE_BLOCKS=N   blocks' records per page of a lane
 *   STRATA_RAW_STORE_SPILL_QUEUE=BYTES  what waits for the raw store's packer
 *   STRATA_RAW_STORE_BLOCK_COPIES=N  spilled blocks a reading thread keeps decoded (0: none)
 *   STRATA_INDEX_ZSTD_LEVEL=L        0: varints only; -7..19: zstd's level
 *   STRATA_INDEX_DIR=DIR             where indexes go (else beside the trace)
 *   STRATA_STATS_LATENCY_BUDGET=BYTES  wakeup latencies kept in memory
 *   STRATA_STATS_ROWS_BUDGET=BYTES   thread rows kept in memory while the index is written
 *   STRATA_DEBUG_MEMORY=1            the pass says what it holds at its milestones
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A numeric parameter left to the default of the code it tunes. */
#define STRATA_PARAMETER_DEFAULT     G_MAXUINT64
#define STRATA_PARAMETER_ZSTD_DEFAULT G_MININT

typedef struct
{
  /* The zoom tree's pass. */
  int      pipelined;          /* 0, 1, or -1: when there is more than one core */
  guint64  pool_budget;        /* bytes */
  guint64  closed_page_lanes;
  int      count_switch;       /* 0: a lane that does not pay is aggregated to its chunk's end */
  int      prove_plain;        /* 0: a level whose last chunk was plain counts the next one */
  guint64  spill_windows;      /* bytes */
  guint64  chunk_spill_from;   /* bytes */
  guint64  span_cut;           /* items */
  /* The raw store. */
  guint64  raw_spill_from;     /* activities */
  guint64  raw_budget;         /* bytes */
  guint64  raw_page_blocks;
  guint64  raw_spill_queue;    /* bytes */
  guint64  raw_block_copies;   /* decoded blocks, per reading thread */
  /* The index and the statistics. */
  int      zstd_level;         /* STRATA_PARAMETER_ZSTD_DEFAULT: the index's own */
  char    *index_dir;          /* NULL: beside the trace, else the cache */
  guint64  latency_budget;     /* bytes */
  guint64  stats_rows_budget;  /* bytes */
  gboolean debug_memory;
} StrataParameters;

void strata_parameters_init                  (StrataParameters       *self);
void strata_parameters_init_from_environment (StrataParameters       *self);
void strata_parameters_copy                  (StrataParameters       *dest,
                                              const StrataParameters *src);
void strata_parameters_clear                 (StrataParameters       *self);

/* @value, or @fallback where it is left to the default. */
static inline guint64
strata_parameter_or (guint64 value,
                     guint64 fallback)
{
  return value != STRATA_PARAMETER_DEFAULT ? value : fallback;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (StrataParameters, strata_parameters_clear)

G_END_DECLS
