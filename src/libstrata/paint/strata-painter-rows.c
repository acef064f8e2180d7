/* strata-painter-rows.c
 *
 * Which rows the painter draws: the trace's channels and their names,
 * and the rows a caller chose (the timeline's pinned, hidden and folded
 * rows). The default rows and their order are
 * strata-painter-default-rows.c's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata-painter.h"
#include "strata-painter-internal.h"
#include "strata-painter-private.h"
#include "strata-zoom-chunk.h"

gpointer
strata_painter_cpu_key (guint16 instance,
                        gint32  cpu)
{
  return GUINT_TO_POINTER (((guint) instance << 16) | ((guint) cpu & 0xffff));
}

/* One step of naming a process after its threads, in id order: a thread
 * names its process when nothing has yet, or when it is its main thread.
 * Names are kept as the channel named (self->names), so a thread named
 * again renames its process's row with it, at no cost. */
static inline void
name_process_after (StrataPainter *self,
                    guint32        thread)
{
  const StrataChannel *channels = self->channels;
  const StrataChannel *t = &channels[thread];
  guint32 *names = (guint32 *)(gpointer) self->names->data;

  if (t->kind != STRATA_CHANNEL_THREAD || t->parent >= self->n_channels)
    return;
  if (channels[t->parent].name == STRATA_STRING_NONE &&
      (channels[names[t->parent]].name == STRATA_STRING_NONE || t->id == channels[t->parent].id))
    names[t->parent] = thread;
}

/* The names of channels [@from, n_channels): their own, then a process
 * named after its main thread (or its first thread with a name), as
 * they come in id order. */
static void
name_channels (StrataPainter *self,
               guint          from)
{
  const StrataChannel *channels = self->channels;
  guint32 *names;

  strata_spilled_array_set_size (self->names, self->n_channels);
  names = (guint32 *)(gpointer) self->names->data;
  for (guint i = from; i < self->n_channels; i++)
    {
      names[i] = i;
      if (channels[i].kind == STRATA_CHANNEL_CPU)
        g_hash_table_insert (self->cpu_names, strata_painter_cpu_key (channels[i].instance, channels[i].id),
                             GUINT_TO_POINTER (channels[i].name));
    }
  for (guint i = from; i < self->n_channels; i++)
    name_process_after (self, i);
}

/* Row slots of channels [@from, n_channels): none visible. */
static void
clear_row_of (StrataPainter *self,
              guint          from)
{
  strata_spilled_array_set_size (self->row_of, self->n_channels);
  for (guint i = from; i < self->n_channels; i++)
    strata_spilled_array_index (self->row_of, gint32, i) = -1;
}

/**
 * strata_painter_set_channels:
 * @channels: (array length=n_channels): the trace's channels; not copied,
 *   so call this again when they grow
 *
 * A process row is named after its main thread (the kernel model knows a
 * process by its pid only), and a thread's running spans are labelled
 * with the CPU's row name.
 */
void
strata_painter_set_channels (StrataPainter       *self,
                             const StrataChannel *channels,
                             guint                n_channels)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (channels != NULL || n_channels == 0);

  self->channels = channels;
  self->n_channels = n_channels;

  g_hash_table_remove_all (self->cpu_names);
  name_channels (self, 0);
  clear_row_of (self, 0);
  /* The channels may have moved: the rows are ordered again. */
  self->placed_valid = FALSE;
}

/**
 * strata_painter_grow_channels:
 * @channels: (array length=n_channels): the channels given last
 *   (strata_painter_set_channels()), grown and changed in place (they may
 *   have moved in memory)
 * @changed: (array length=n_changed): those below the number given last
 *   that changed since, none of them in its place among the rows: its
 *   kind, instance, id, generation and parent as they were
 *
 * As strata_painter_set_channels(), in the time of what changed: the
 * channels new since the last call are named and placed, and the rest
 * are not read but for the changed ones. A thread named again renames
 * its process's row if that is named after it; one named for the first
 * time (it had no name) names its process's row as a new thread would,
 * if no thread or its main thread names it yet (where the first named
 * of its threads in id order does otherwise: set the channels again for
 * that).
 */
void
strata_painter_grow_channels (StrataPainter       *self,
                              const StrataChannel *channels,
                              guint                n_channels,
                              const guint32       *changed,
                              guint                n_changed)
{
  guint from;

  g_return_if_fail (self != NULL);
  g_return_if_fail (channels != NULL || n_channels == 0);
  g_return_if_fail (changed != NULL || n_changed == 0);

  if (n_channels < self->n_channels)
    {
      strata_painter_set_channels (self, channels, n_channels);
      return;
    }
  from = self->n_channels;
  self->channels = channels;
  self->n_channels = n_channels;
  name_channels (self, from);
  clear_row_of (self, from);

  for (guint i = 0; i < n_changed; i++)
    {
      guint32 c = changed[i];
      const StrataChannel *ch;

      if (c >= from)
        continue;
      ch = &channels[c];
      if (ch->kind == STRATA_CHANNEL_CPU)
        g_hash_table_insert (self->cpu_names, strata_painter_cpu_key (ch->instance, ch->id),
                             GUINT_TO_POINTER (ch->name));
      else if (ch->kind == STRATA_CHANNEL_PROCESS && ch->name != STRATA_STRING_NONE)
        strata_spilled_array_index (self->names, guint32, c) = c;
      else
        name_process_after (self, c);
    }
}

/* The name @channel's row shows (a pool id). */
guint32
strata_painter_get_row_name (StrataPainter *self,
                             guint32        channel)
{
  g_return_val_if_fail (self != NULL, STRATA_STRING_NONE);
  g_return_val_if_fail (channel < self->n_channels, STRATA_STRING_NONE);

  return self->channels[strata_spilled_array_index (self->names, guint32, channel)].name;
}

/* What the painter's tables of a value per channel or row (names, row
 * slots, answers, the default rows' order, the rows chosen) hold in the
 * heap: each at most a few MiB, past that in its spill file. */
gsize
strata_painter_get_spilled_heap (StrataPainter *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return strata_spilled_array_get_heap_bytes (self->names) + strata_spilled_array_get_heap_bytes (self->row_of) +
         strata_spilled_array_get_heap_bytes (self->shown) + strata_spilled_array_get_heap_bytes (self->placed) +
         strata_spilled_array_get_heap_bytes (self->rows);
}

/* The trace's span: time zero of the ruler, and what the default rows
 * look at to leave out threads with nothing to show. */
void
strata_painter_set_extent (StrataPainter *self,
                           gint64         start,
                           gint64         end)
{
  g_return_if_fail (self != NULL);

  self->start = start;
  self->end = MAX (start, end);
}

void
strata_painter_set_style (StrataPainter          *self,
                          const StrataPaintStyle *style)
{
  g_return_if_fail (self != NULL && style != NULL);

  self->style = *style;
  self->style.row_height = MAX (self->style.row_height, 4);
  if (self->style.scheme != STRATA_PAINT_SCHEME_DARK)
    self->style.scheme = STRATA_PAINT_SCHEME_LIGHT;
}

const StrataPaintStyle *
strata_painter_get_style (StrataPainter *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return &self->style;
}

/**
 * strata_painter_set_rows:
 * @channels: (array length=n_rows): the channels to show, top to bottom
 *
 * Call it after strata_painter_set_channels(): a thread is indented
 * when its process's row heads it. The rows are copied (into a spilled
 * array: in a file past a few MiB).
 */
void
strata_painter_set_rows (StrataPainter *self,
                         const guint32 *channels,
                         guint          n_rows)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (channels != NULL || n_rows == 0);

  self->rows_default = FALSE;
  strata_spilled_array_set_size (self->rows, 0);
  strata_spilled_array_set_size (self->rows, n_rows);
  if (n_rows > 0)
    memcpy (self->rows->data, channels, (gsize) n_rows * sizeof (guint32));
}

/**
 * strata_painter_show_default_rows:
 *
 * The rows shown are the default rows as
 * strata_painter_update_default_rows() last made them, read where the
 * painter keeps them: nothing is copied, and they are the rows shown
 * after each later call too, until strata_painter_set_rows(). A followed
 * recording's showing then costs the rows new since the last, not all.
 */
void
strata_painter_show_default_rows (StrataPainter *self)
{
  g_return_if_fail (self != NULL);

  self->rows_default = TRUE;
  strata_spilled_array_set_size (self->rows, 0);
}

/* The rows shown, where they are: valid until they change. */
const guint32 *
strata_painter_peek_rows (StrataPainter *self,
                          guint         *n_rows)
{
  const StrataSpilledArray *rows = self->rows_default ? self->placed : self->rows;

  *n_rows = rows->len;
  return (const guint32 *)(gpointer) rows->data;
}

const guint32 *
strata_painter_get_rows (StrataPainter *self,
                         guint         *n_rows)
{
  const guint32 *rows;
  guint n;

  g_return_val_if_fail (self != NULL, NULL);

  rows = strata_painter_peek_rows (self, &n);
  if (n_rows != NULL)
    *n_rows = n;
  return rows;
}

/**
 * strata_painter_row_indent:
 * @rows: the rows shown
 * @i: a row of them
 * @above: row @i - 1's indent when known (a frame's rows, top to bottom),
 *   or -1
 *
 * A thread is indented under its process only where the process's row
 * heads it: walking up over its process's other threads' rows, the first
 * row that is not one is the process's. A frame asks for its rows only,
 * and for a row under one of the same process's threads the answer is
 * that row's: a process's threads are walked up once a frame, not once a
 * row, and no indent is kept for the rows not drawn.
 *
 * Returns: 1 for a thread under its process's row, else 0
 */
guint8
strata_painter_row_indent (StrataPainter *self,
                           const guint32 *rows,
                           guint          i,
                           gint           above)
{
  const StrataChannel *ch = rows[i] < self->n_channels ? &self->channels[rows[i]] : NULL;

  if (ch == NULL || ch->kind != STRATA_CHANNEL_THREAD || ch->parent >= self->n_channels)
    return 0;
  for (guint j = i; j-- > 0; )
    {
      const StrataChannel *up = rows[j] < self->n_channels ? &self->channels[rows[j]] : NULL;

      if (rows[j] == ch->parent)
        return 1;
      if (up == NULL || up->kind != STRATA_CHANNEL_THREAD || up->parent != ch->parent)
        return 0;
      /* Row @i - 1 is a thread of the same process: its answer is this
       * row's. */
      if (j == i - 1 && above >= 0)
        return (guint8) above;
    }
  return 0;
}

/* Columns --------------------------------------------------------------- */
