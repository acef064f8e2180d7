/* strata-parameters.c
 *
 * The environment is read as the code that used each variable read it:
 * a number where the variable is set and not empty (the span cut and the
 * zstd level also when empty, as 0), clamped where the code clamped it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>

#include "strata-parameters.h"

/**
 * strata_parameters_init:
 *
 * Every parameter left to the code it tunes.
 */
void
strata_parameters_init (StrataParameters *self)
{
  g_return_if_fail (self != NULL);

  self->pipelined = -1;
  self->pool_budget = STRATA_PARAMETER_DEFAULT;
  self->closed_page_lanes = STRATA_PARAMETER_DEFAULT;
  self->count_switch = -1;
  self->prove_plain = -1;
  self->spill_windows = STRATA_PARAMETER_DEFAULT;
  self->chunk_spill_from = STRATA_PARAMETER_DEFAULT;
  self->span_cut = STRATA_PARAMETER_DEFAULT;
  self->raw_spill_from = STRATA_PARAMETER_DEFAULT;
  self->raw_budget = STRATA_PARAMETER_DEFAULT;
  self->raw_page_blocks = STRATA_PARAMETER_DEFAULT;
  self->raw_spill_queue = STRATA_PARAMETER_DEFAULT;
  self->raw_block_copies = STRATA_PARAMETER_DEFAULT;
  self->zstd_level = STRATA_PARAMETER_ZSTD_DEFAULT;
  self->index_dir = NULL;
  self->latency_budget = STRATA_PARAMETER_DEFAULT;
  self->stats_rows_budget = STRATA_PARAMETER_DEFAULT;
  self->debug_memory = FALSE;
}

/* A byte count or a number from @name, if it is set and not empty. */
static void
read_number (const char *name,
             guint64     max,
             guint64    *value)
{
  const char *env = g_getenv (name);

  if (env != NULL && *env != '\0')
    *value = MIN (g_ascii_strtoull (env, NULL, 10), max);
}

/**
 * strata_parameters_init_from_environment:
 *
 * The defaults, then what the STRATA_* variables of the environment say
 * (strata-parameters.h lists them). The one place they are read.
 */
void
strata_parameters_init_from_environment (StrataParameters *self)
{
  const char *env;

  g_return_if_fail (self != NULL);

  strata_parameters_init (self);

  if ((env = g_getenv ("STRATA_ZOOM_PIPELINED")) != NULL)
    self->pipelined = g_strcmp0 (env, "0") != 0;
  read_number ("STRATA_ZOOM_POOL_BUDGET", G_MAXUINT64 - 1, &self->pool_budget);
  read_number ("STRATA_ZOOM_CLOSED_PAGE", G_MAXUINT, &self->closed_page_lanes);
  if ((env = g_getenv ("STRATA_ZOOM_COUNT_SWITCH")) != NULL)
    self->count_switch = g_strcmp0 (env, "0") != 0;
  if ((env = g_getenv ("STRATA_ZOOM_PROVE_PLAIN")) != NULL)
    self->prove_plain = g_strcmp0 (env, "0") != 0;
  read_number ("STRATA_ZOOM_SPILL_WINDOWS", G_MAXUINT64 - 1, &self->spill_windows);
  read_number ("STRATA_ZOOM_CHUNK_SPILL_FROM", G_MAXUINT64 - 1, &self->chunk_spill_from);
  if ((env = g_getenv ("STRATA_ZOOM_SPAN_CUT")) != NULL)
    self->span_cut = MIN (g_ascii_strtoull (env, NULL, 10), G_MAXUINT);
  read_number ("STRATA_RAW_STORE_SPILL_FROM", G_MAXUINT64 - 1, &self->raw_spill_from);
  read_number ("STRATA_RAW_STORE_BUDGET", G_MAXUINT64 - 1, &self->raw_budget);
  read_number ("STRATA_RAW_STORE_PAGE_BLOCKS", 1u << 16, &self->raw_page_blocks);
  read_number ("STRATA_RAW_STORE_SPILL_QUEUE", G_MAXUINT64 - 1, &self->raw_spill_queue);
  read_number ("STRATA_RAW_STORE_BLOCK_COPIES", 1u << 16, &self->raw_block_copies);
  if ((env = g_getenv ("STRATA_INDEX_ZSTD_LEVEL")) != NULL)
    self->zstd_level = CLAMP (atoi (env), -7, 19);
  if ((env = g_getenv ("STRATA_INDEX_DIR")) != NULL && *env != '\0')
    self->index_dir = g_strdup (env);
  read_number ("STRATA_STATS_LATENCY_BUDGET", G_MAXUINT64 - 1, &self->latency_budget);
  read_number ("STRATA_STATS_ROWS_BUDGET", G_MAXUINT64 - 1, &self->stats_rows_budget);
  self->debug_memory = g_strcmp0 (g_getenv ("STRATA_DEBUG_MEMORY"), "1") == 0;
}

void
strata_parameters_copy (StrataParameters       *dest,
                        const StrataParameters *src)
{
  g_return_if_fail (dest != NULL && src != NULL);

  *dest = *src;
  dest->index_dir = g_strdup (src->index_dir);
}

void
strata_parameters_clear (StrataParameters *self)
{
  g_clear_pointer (&self->index_dir, g_free);
}
