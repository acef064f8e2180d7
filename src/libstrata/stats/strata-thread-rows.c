/* strata-thread-rows.c
 *
 * The statistics' thread rows gathered for the index in bounded memory.
 * Rows come in any order; they are kept in one run in memory, and when
 * the run reaches the budget it is sorted and written to a spill file, so
 * the file holds sorted runs and memory holds at most one. The walk merges
 * the runs (a small window of each) into the one order compare() gives,
 * which tells every two rows apart: the merged rows are the bytes one sort
 * of them all would give. Without a spill file the rows stay in memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "strata-error.h"
#include "strata-spill-file.h"
#include "strata-thread-rows.h"

/* Rows read at once from each run while they are merged, and given to
 * the walk's function at once: 56 KB each. */
#define WINDOW_ROWS 512

struct _StrataThreadRows
{
  guint64  run_rows;   /* the budget, in rows: a run this long is written out */
  GArray  *run;        /* StrataThreadStats: the run in memory */
  GArray  *run_ends;   /* guint64: where each run in the file ends, in rows */
  guint64  n_on_disk;  /* rows */
  int      fd;
  gboolean failed;     /* no spill file: everything stays in memory */
  gboolean finished;
};

int
strata_thread_stats_compare (const StrataThreadStats *x,
                             const StrataThreadStats *y)
{
  if (x->running != y->running)
    return x->running > y->running ? -1 : 1;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  return x->channel < y->channel ? -1 : x->channel > y->channel;
}

static gint
compare_at (gconstpointer a,
            gconstpointer b,
            gpointer      rows)
{
  const StrataThreadStats *t = rows;

  return strata_thread_stats_compare (&t[*(const guint32 *) a], &t[*(const guint32 *) b]);
}

/**
 * strata_thread_stats_sort:
 *
 * The rows in strata_thread_stats_compare() order, through an array of
 * their indices then moved in place, cycle by cycle: g_array_sort() sorts
 * rows this large through pointers and a scratch of two pointers and more
 * a row (17 MB for the 1.08M threads of 20M generated events of thread
 * churn); the indices and their scratch are 8 bytes a row.
 */
void
strata_thread_stats_sort (StrataThreadStats *rows,
                          guint              n)
{
  g_autofree guint32 *order = NULL;

  if (n < 2)
    return;
  order = g_new (guint32, n);
  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n, sizeof *order, compare_at, rows);

  /* Position i takes row order[i]; a position done points at itself. */
  for (guint i = 0; i < n; i++)
    {
      StrataThreadStats first;
      guint j = i;

      if (order[i] == i)
        continue;
      first = rows[i];
      for (;;)
        {
          guint k = order[j];

          order[j] = j;
          if (k == i)
            {
              rows[j] = first;
              break;
            }
          rows[j] = rows[k];
          j = k;
        }
    }
}

/**
 * strata_thread_rows_new:
 * @budget: the bytes of rows kept in memory before a run is written out
 *   (G_MAXUINT64: all of them)
 */
StrataThreadRows *
strata_thread_rows_new (guint64 budget)
{
  StrataThreadRows *self = g_new0 (StrataThreadRows, 1);

  self->run_rows = MAX (budget / sizeof (StrataThreadStats), 1);
  self->run = g_array_new (FALSE, FALSE, sizeof (StrataThreadStats));
  self->run_ends = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->fd = -1;
  return self;
}

void
strata_thread_rows_free (StrataThreadRows *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->run);
  g_array_unref (self->run_ends);
  if (self->fd >= 0)
    close (self->fd);
  g_free (self);
}

/* The run in memory, sorted, to the end of the spill file; FALSE (and
 * the rows stay in memory from now on) if there is no file for it. */
static gboolean
write_run (StrataThreadRows *self)
{
  gsize size = (gsize) self->run->len * sizeof (StrataThreadStats);

  if (self->failed)
    return FALSE;
  if (self->fd < 0)
    {
      g_autoptr(GError) error = NULL;

      self->fd = strata_spill_file_open (&error);
      if (self->fd < 0)
        {
          g_debug ("stats: thread rows kept in memory: %s", error->message);
          self->failed = TRUE;
          return FALSE;
        }
    }
  strata_thread_stats_sort ((StrataThreadStats *)(gpointer) self->run->data, self->run->len);
  if (!strata_file_write_all (self->fd, self->run->data, size,
                              self->n_on_disk * sizeof (StrataThreadStats)))
    {
      /* What was written before stays good: only this run stays here. */
      g_debug ("stats: thread rows kept in memory: %s", g_strerror (errno));
      self->failed = TRUE;
      return FALSE;
    }
  self->n_on_disk += self->run->len;
  g_array_append_val (self->run_ends, self->n_on_disk);
  g_array_set_size (self->run, 0);
  return TRUE;
}

void
strata_thread_rows_add (StrataThreadRows        *self,
                        const StrataThreadStats *row)
{
  g_return_if_fail (!self->finished);

  g_array_append_vals (self->run, row, 1);
  if (self->run->len >= self->run_rows)
    write_run (self);
}

/**
 * strata_thread_rows_finish:
 *
 * After the last row: the run in memory sorted, to be merged with those
 * in the file.
 */
void
strata_thread_rows_finish (StrataThreadRows *self)
{
  g_return_if_fail (!self->finished);

  strata_thread_stats_sort ((StrataThreadStats *)(gpointer) self->run->data, self->run->len);
  self->finished = TRUE;
}

guint64
strata_thread_rows_get_count (StrataThreadRows *self)
{
  return self->n_on_disk + self->run->len;
}

/* Runs in the file (the one in memory not counted). */
guint
strata_thread_rows_get_n_runs (StrataThreadRows *self)
{
  return self->run_ends->len;
}

typedef struct
{
  StrataThreadStats *window;  /* WINDOW_ROWS, or the run in memory */
  guint64            next;    /* the run's next row to read, in the file */
  guint64            end;
  guint              at;      /* in the window */
  guint              len;
} Cursor;

static gboolean
cursor_fill (StrataThreadRows *self,
             Cursor           *c,
             GError          **error)
{
  guint k = (guint) MIN (c->end - c->next, (guint64) WINDOW_ROWS);
  int errsv = 0;

  if (!strata_file_read_exact (self->fd, c->window, (gsize) k * sizeof (StrataThreadStats),
                               c->next * sizeof (StrataThreadStats), &errsv))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO,
                   "the statistics' thread rows could not be read back from their spill file: %s",
                   errsv != 0 ? g_strerror (errsv) : "it ended early");
      return FALSE;
    }
  c->next += k;
  c->at = 0;
  c->len = k;
  return TRUE;
}

/**
 * strata_thread_rows_foreach:
 * @func: given the rows in strata_thread_stats_compare() order, a batch
 *   at a time
 *
 * Returns: FALSE with @error set if a run could not be read back, FALSE
 *   without if @func stopped the walk
 */
gboolean
strata_thread_rows_foreach (StrataThreadRows     *self,
                            StrataThreadRowsFunc  func,
                            gpointer              user_data,
                            GError              **error)
{
  g_autofree Cursor *cursors = NULL;
  g_autofree StrataThreadStats *windows = NULL;
  g_autofree StrataThreadStats *out = NULL;
  guint n_cursors = 0, n_out = 0;
  guint64 begin = 0;

  g_return_val_if_fail (self->finished, FALSE);

  if (self->run_ends->len == 0)
    return self->run->len == 0 ||
           func ((const StrataThreadStats *)(gconstpointer) self->run->data, self->run->len, user_data);

  cursors = g_new0 (Cursor, self->run_ends->len + 1);
  windows = g_new (StrataThreadStats, (gsize) self->run_ends->len * WINDOW_ROWS);
  out = g_new (StrataThreadStats, WINDOW_ROWS);
  for (guint i = 0; i < self->run_ends->len; i++)
    {
      Cursor *c = &cursors[n_cursors++];

      c->window = windows + (gsize) i * WINDOW_ROWS;
      c->next = begin;
      c->end = g_array_index (self->run_ends, guint64, i);
      begin = c->end;
      if (!cursor_fill (self, c, error))
        return FALSE;
    }
  if (self->run->len > 0)
    {
      Cursor *c = &cursors[n_cursors++];

      c->window = (StrataThreadStats *)(gpointer) self->run->data;
      c->len = self->run->len;
    }

  /* A few tens of runs at most: the smallest head by a linear look. */
  for (;;)
    {
      Cursor *best = NULL;

      for (guint i = 0; i < n_cursors; i++)
        {
          Cursor *c = &cursors[i];

          if (c->at < c->len &&
              (best == NULL || strata_thread_stats_compare (&c->window[c->at], &best->window[best->at]) < 0))
            best = c;
        }
      if (best == NULL)
        break;
      out[n_out++] = best->window[best->at++];
      if (n_out == WINDOW_ROWS)
        {
          if (!func (out, n_out, user_data))
            return FALSE;
          n_out = 0;
        }
      if (best->at == best->len && best->next < best->end && !cursor_fill (self, best, error))
        return FALSE;
    }
  return n_out == 0 || func (out, n_out, user_data);
}

static gboolean
append_to_array (const StrataThreadStats *rows,
                 gsize                    n,
                 gpointer                 threads)
{
  g_array_append_vals (threads, rows, n);
  return TRUE;
}

/**
 * strata_thread_rows_into_array:
 * @threads: (element-type StrataThreadStats): where the rows go, in order
 *
 * The rows back in memory, for a trace whose index could not be written.
 */
gboolean
strata_thread_rows_into_array (StrataThreadRows  *self,
                               GArray            *threads,
                               GError           **error)
{
  g_array_set_size (threads, 0);
  return strata_thread_rows_foreach (self, append_to_array, threads, error);
}
