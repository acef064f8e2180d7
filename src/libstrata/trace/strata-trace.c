/* strata-trace.c
 *
 * One pass over a source: read batches, feed the kernel model, keep its
 * activities (in the order the model completes them, which is the same for
 * the same input) and count events by name.
 *
 * Reading and decoding run in a thread of their own, a few batches ahead of
 * the kernel model, so the two use two cores. The batches go round two
 * queues (full and free): memory stays flat, and the queues order the
 * memory the two threads share (the events and the string pool's ids). A read error after some events is
 * kept as the trace's damage: the caller warns and goes on with what was
 * read. An error before any event is an error.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "strata-kernel-model.h"
#include "strata-spilled-array.h"
#include "strata-trace.h"
#include "strata-trace-private.h"
#include "strata-zoom-tree-private.h"

#define BATCH_SIZE 4096
#define N_BATCHES  8

struct _StrataTrace
{
  GObject            parent_instance;
  StrataSource      *source;
  StrataStringPool  *strings;
  /* The channels (StrataChannel), n_channels at channel_data, which is
   * one of: the pass's, in their spill file, their pages let go as they
   * are scanned; an opened index's, read in place in its map; or made
   * in memory. */
  const StrataChannel *channel_data;
  guint              n_channels;
  StrataSpilledArray *channel_file;
  StrataIndexMap    *channel_map;
  GArray            *channels;
  GArray            *switches;     /* guint64 per channel, up to the last CPU
                                    * channel's at least: those past it have none */
  GArray            *activities;   /* StrataActivity */
  GArray            *counts;       /* guint64 per name id */
  GArray            *event_counts; /* StrataEventCount, non-zero only */
  guint64            n_events;
  gint64             start;
  gint64             end;
  GError            *damage;
  gboolean           keep_activities;
  gboolean           debug_memory;
  gboolean           follow;         /* the pass's, while it runs */
  GCancellable      *cancellable;    /* the pass's, while it runs */
  guint64            n_lost;         /* the LOST events' counts */
  StrataActivityFunc sink;
  StrataChannelCloseFunc close_sink;
  gpointer           sink_data;
  StrataZoomTree    *tree;
  StrataTraceProgressFunc progress;
  gpointer           progress_data;
  GArray            *read_spans;   /* ReadSpan per instance and CPU, while loading with progress */
  guint64            bytes_total;  /* the file's size */
  guint64            file_position;/* the source's own measure, 0 if none */

  /* Opened from an index: no source, its description kept here. */
  StrataSourceInfo  *info;
  StrataStats       *stats;
  /* Opened from an index: the statistics' thread rows, still in the map,
   * until strata_trace_get_stats() checks them and copies them into
   * stats->threads. */
  const StrataThreadStats *pending_rows;
  gsize              n_pending_rows;
  guint64            pending_checksum;
  StrataIndexMap    *pending_map;
  GMutex             stats_lock;
  char              *index_path;

  /* While the pass runs (passing, atomic), what the one thread that
   * shows the trace was given from a progress report
   * (strata_trace_set_live()): the getters answer with it, as the
   * pass's own tables are filled at its end. */
  gint               passing;
  StrataSpilledArray *live_channels; /* StrataChannel */
  gint64             live_start;
  gint64             live_end;
};

G_DEFINE_FINAL_TYPE (StrataTrace, strata_trace, G_TYPE_OBJECT)

static void
strata_trace_finalize (GObject *object)
{
  StrataTrace *self = (StrataTrace *)object;

  g_clear_object (&self->source);
  g_clear_pointer (&self->strings, strata_string_pool_unref);
  g_clear_pointer (&self->channels, g_array_unref);
  g_clear_pointer (&self->channel_file, strata_spilled_array_free);
  g_clear_pointer (&self->channel_map, strata_index_map_unref);
  g_clear_pointer (&self->switches, g_array_unref);
  g_clear_pointer (&self->activities, g_array_unref);
  g_clear_pointer (&self->counts, g_array_unref);
  g_clear_pointer (&self->event_counts, g_array_unref);
  g_clear_error (&self->damage);
  g_clear_pointer (&self->tree, strata_zoom_tree_free);
  g_clear_pointer (&self->info, strata_source_info_free);
  g_clear_pointer (&self->stats, strata_stats_free);
  g_clear_pointer (&self->pending_map, strata_index_map_unref);
  g_mutex_clear (&self->stats_lock);
  g_clear_pointer (&self->index_path, g_free);
  g_clear_pointer (&self->read_spans, g_array_unref);
  g_clear_pointer (&self->live_channels, strata_spilled_array_free);

  G_OBJECT_CLASS (strata_trace_parent_class)->finalize (object);
}

static void
strata_trace_class_init (StrataTraceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = strata_trace_finalize;
}

static void
strata_trace_init (StrataTrace *self)
{
  g_mutex_init (&self->stats_lock);
  self->channels = g_array_new (FALSE, FALSE, sizeof (StrataChannel));
  self->switches = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->activities = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  self->counts = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->event_counts = g_array_new (FALSE, FALSE, sizeof (StrataEventCount));
}

/* StrataParameters.debug_memory (STRATA_DEBUG_MEMORY=1): what the heap holds at the pass's milestones
 * and the process's anonymous memory, for finding what grows with the
 * trace (bench/RESULTS-index.md). */
static void
note_memory (StrataTrace *self,
             const char  *where)
{
  struct mallinfo2 info;
  char status[4096];
  const char *anon;
  FILE *file;
  gsize n;

  if (!self->debug_memory || (file = fopen ("/proc/self/status", "r")) == NULL)
    return;
  n = fread (status, 1, sizeof status - 1, file);
  status[n] = '\0';
  fclose (file);
  anon = strstr (status, "RssAnon:");
  info = mallinfo2 ();
  g_message ("memory at %s (%" G_GUINT64_FORMAT " events): heap in use %" G_GSIZE_FORMAT
             " kB (%" G_GSIZE_FORMAT " kB mapped), free in the heap %" G_GSIZE_FORMAT " kB; %.*s",
             where, self->n_events, (info.uordblks + info.hblkhd) >> 10, info.hblkhd >> 10,
             info.fordblks >> 10, anon != NULL ? (int) strcspn (anon, "\n") : 0, anon != NULL ? anon : "");
  if (self->tree != NULL)
    strata_zoom_tree_note_build_memory (self->tree, where);
}

static void
collect_activity (const StrataActivity *activity,
                  gpointer              user_data)
{
  StrataTrace *self = user_data;

  if (self->keep_activities)
    g_array_append_vals (self->activities, activity, 1);
  if (self->sink != NULL)
    self->sink (activity, self->sink_data);
  if (self->tree != NULL)
    strata_zoom_tree_add (activity, self->tree);
}

static void
close_channel (guint32  channel,
               gint64   t,
               gpointer user_data)
{
  StrataTrace *self = user_data;

  if (self->tree != NULL)
    strata_zoom_tree_close_channel (self->tree, channel, t);
  /* The sink told too (the index pass's statistics: an exited thread's
   * sums leave the builder's memory). */
  if (self->close_sink != NULL)
    self->close_sink (channel, t, self->sink_data);
}

typedef struct
{
  StrataEvent *events;
  gssize       n;       /* events in it; 0 at the end, -1 with error */
  GError      *error;
  guint64      position;/* the source's "file-position" once it was read */
} Batch;

typedef struct
{
  StrataSource *source;
  GAsyncQueue  *full;
  GAsyncQueue  *free;
  gint          stop;      /* set when the caller no longer wants events */
  gboolean      has_position; /* the source measures its file position */
  GByteArray   *cpus_named; /* strata_kernel_model_intern_ahead()'s */
  gboolean      follow;     /* the source follows its growing file */
  gint          waited;     /* ... and has waited for it to grow */
  GCancellable *cancellable;
} Reader;

/* Following a growing file, how long the reader waits before it looks
 * again: the recorder writes a block per ring every 100 ms at most, so
 * this adds little to the latency from an event to the screen. */
#define FOLLOW_POLL_USEC (20 * G_TIME_SPAN_MILLISECOND)

/* Whether an empty batch from a followed source means "nothing yet". */
static gboolean
still_following (Reader *reader)
{
  gboolean follow = FALSE;

  if (!reader->follow || g_atomic_int_get (&reader->stop) ||
      g_cancellable_is_cancelled (reader->cancellable))
    return FALSE;
  g_object_get (reader->source, "follow", &follow, NULL);
  return follow;
}

static gpointer
reader_thread (gpointer data)
{
  Reader *reader = data;

  for (;;)
    {
      Batch *batch = g_async_queue_pop (reader->free);

      if (g_atomic_int_get (&reader->stop))
        {
          batch->n = 0;
          g_async_queue_push (reader->full, batch);
          break;
        }
      batch->n = strata_source_read_batch (reader->source, batch->events, BATCH_SIZE,
                                           &batch->error);
      if (batch->n == 0 && still_following (reader))
        {
          g_async_queue_push (reader->free, batch);
          g_atomic_int_set (&reader->waited, 1);
          g_usleep (FOLLOW_POLL_USEC);
          continue;
        }
      batch->position = 0;
      if (reader->has_position)
        batch->position = strata_source_get_file_position (reader->source);
      /* Here, not in the model's thread: the ids must not follow timing. */
      if (batch->n > 0)
        strata_kernel_model_intern_ahead (strata_source_get_strings (reader->source),
                                          reader->cpus_named, batch->events, batch->n);
      g_async_queue_push (reader->full, batch);

      if (batch->n <= 0)
        break;
    }

  return NULL;
}

/* How far a load is into its file, from where its events come from: the
 * readers yield each event with its offset in the file, so each CPU's
 * events (of each buffer instance) have covered [first, last] of it. A
 * trace.dat keeps each CPU's data in a section of its own, a perf.data
 * interleaves them: the union of the spans is what has been read either
 * way, and what lies before the first event (the headers) was read when
 * the file was opened. Compressed data is the exception: its events'
 * offsets are not where the file's bytes are, so a source that reads it
 * says how far into the file it is itself (a "file-position" property,
 * read on the reader thread after each batch), and that is used instead
 * whenever it is not 0. */
typedef struct
{
  guint64 first;
  guint64 last;
} ReadSpan;

#define READ_SPAN_CPUS      1024
#define READ_SPAN_INSTANCES 64

static void
note_read_spans (StrataTrace       *self,
                 const StrataEvent *events,
                 gsize              n)
{
  for (gsize i = 0; i < n; i++)
    {
      const StrataEvent *ev = &events[i];
      guint key = ev->cpu >= 0 && ev->cpu < READ_SPAN_CPUS - 1 ? (guint) ev->cpu + 1 : 0;
      ReadSpan *span;

      /* Bounded whatever a damaged file says: instances past the 64th
       * share one set of spans (the union is then only coarser). */
      key += MIN ((guint) ev->instance, READ_SPAN_INSTANCES - 1) * READ_SPAN_CPUS;
      if (key >= self->read_spans->len)
        {
          guint old = self->read_spans->len;

          g_array_set_size (self->read_spans, key + 1);
          for (guint k = old; k <= key; k++)
            g_array_index (self->read_spans, ReadSpan, k) = (ReadSpan) { G_MAXUINT64, 0 };
        }
      span = &g_array_index (self->read_spans, ReadSpan, key);
      span->first = MIN (span->first, ev->source_offset);
      span->last = MAX (span->last, ev->source_offset);
    }
}

static int
by_first (gconstpointer pa,
          gconstpointer pb)
{
  const ReadSpan *a = pa, *b = pb;

  return a->first < b->first ? -1 : a->first > b->first;
}

static guint64
bytes_read (StrataTrace *self)
{
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (ReadSpan));
  guint64 read = 0, covered_to = 0;

  for (guint k = 0; k < self->read_spans->len; k++)
    {
      ReadSpan span = g_array_index (self->read_spans, ReadSpan, k);

      if (span.first <= span.last)
        g_array_append_val (spans, span);
    }
  if (self->file_position > 0)
    return MIN (self->file_position, self->bytes_total);
  if (spans->len == 0)
    return 0;
  g_array_sort (spans, by_first);

  read = g_array_index (spans, ReadSpan, 0).first;
  covered_to = read;
  for (guint i = 0; i < spans->len; i++)
    {
      const ReadSpan *span = &g_array_index (spans, ReadSpan, i);
      guint64 from = MAX (span->first, covered_to);

      if (span->last + 1 > from)
        {
          read += span->last + 1 - from;
          covered_to = span->last + 1;
        }
    }
  return MIN (read, self->bytes_total);
}

static void
count_events (StrataTrace       *self,
              const StrataEvent *events,
              gsize              n)
{
  for (gsize i = 0; i < n; i++)
    {
      guint32 name = events[i].name;

      if (events[i].type == STRATA_EVENT_LOST)
        self->n_lost += events[i].u.lost.count;

      if (name >= self->counts->len)
        g_array_set_size (self->counts, MAX (name + 1, self->counts->len * 2));
      g_array_index (self->counts, guint64, name)++;
    }
}

static gboolean
report_progress (StrataTrace       *self,
                 StrataKernelModel *model,
                 gboolean           growing)
{
  StrataTraceProgress p = { 0 };
  const StrataSourceInfo *info = strata_source_get_info (self->source);
  gboolean go_on;

  p.trace = self;
  p.tree = self->tree;
  p.channels = strata_kernel_model_get_channels (model, &p.n_channels);
  p.changed = strata_kernel_model_get_changes (model, &p.n_changed, &p.n_before);
  p.n_events = self->n_events;
  p.start = info->first_ts;
  p.horizon = strata_kernel_model_get_horizon (model);
  if (self->follow)
    {
      GStatBuf st;

      /* A followed file grows under the pass. */
      if (g_stat (strata_source_get_path (self->source), &st) == 0 && st.st_size > 0)
        self->bytes_total = st.st_size;
    }
  p.bytes_total = self->bytes_total;
  p.bytes_read = bytes_read (self);
  p.n_lost = self->n_lost;
  p.growing = growing;
  go_on = self->progress (&p, self->progress_data);
  strata_kernel_model_forget_changes (model);
  return go_on;
}

/* How a followed pass paces what it shows. Advancing the tree (which
 * collects and sorts every open activity) and reporting the progress
 * (which measures the file) cost the same whatever a batch holds, so done
 * after every batch they made a pass given a small share of the CPU fall
 * behind the file, further and further (1.8 s from a thread's first event
 * to its row at load 20). So a followed pass shows what it has when it
 * has caught up with what the reader found (the usual case: the recorder
 * writes every 100 ms), when new rows appeared (what the viewer waits for
 * most), and otherwise on a clock while it catches up; the number of
 * batches between two showings is bounded, and so is what the tree takes
 * in at once. */
#define FOLLOW_SHOW_USEC      (50 * G_TIME_SPAN_MILLISECOND)
#define FOLLOW_NEW_ROWS_USEC  (10 * G_TIME_SPAN_MILLISECOND)
#define FOLLOW_SHOW_BATCHES   64

/* With STRATA_DEBUG_MEMORY, what a followed pass holds this often. */
#define FOLLOW_NOTE_USEC      (30 * G_TIME_SPAN_SECOND)

/* A followed pass gives the heap's free pages back this often. A pass
 * over a file ends and trims the heap then (strata_trace_read()); one
 * that follows a recording does not end for an hour, while the viewer
 * copies the growing channel table for each showing and the buffer
 * former's arrays follow its bursts: blocks of megabytes, freed, whose
 * pages the arenas kept (the free part of the heap went 18 -> 36 MB in
 * ten minutes of following, bench/RESULTS-live.md). */
#define FOLLOW_TRIM_USEC      (30 * G_TIME_SPAN_SECOND)

typedef struct
{
  gint64 noted_usec;   /* when the pass last noted its memory */
  gint64 trimmed_usec; /* when it last gave the heap's free pages back */
  gint64 shown_usec;   /* when the pass last showed */
  guint  n_channels;   /* the model's channels then */
  guint  n_batches;    /* fed since */
} FollowPace;

static gboolean
follow_pace (FollowPace        *pace,
             StrataKernelModel *model,
             gboolean           caught_up)
{
  gint64 now = g_get_monotonic_time ();
  guint n_channels = 0;
  gboolean show;

  strata_kernel_model_get_channels (model, &n_channels);
  pace->n_batches++;
  show = caught_up ||
         pace->n_batches >= FOLLOW_SHOW_BATCHES ||
         now - pace->shown_usec >= FOLLOW_SHOW_USEC ||
         (n_channels > pace->n_channels && now - pace->shown_usec >= FOLLOW_NEW_ROWS_USEC);
  if (show)
    {
      pace->shown_usec = now;
      pace->n_channels = n_channels;
      pace->n_batches = 0;
    }
  return show;
}

static void
read_events (StrataTrace        *self,
             StrataKernelModel  *model,
             GError            **error)
{
  Batch batches[N_BATCHES];
  Reader reader = { 0 };
  FollowPace pace = { 0 };
  GThread *thread;
  gboolean show;

  reader.source = self->source;
  reader.has_position = self->progress != NULL &&
                        strata_source_has_file_position (self->source);
  reader.full = g_async_queue_new ();
  reader.free = g_async_queue_new ();
  reader.cpus_named = g_byte_array_new ();
  reader.follow = self->follow &&
                  g_object_class_find_property (G_OBJECT_GET_CLASS (self->source), "follow") != NULL;
  reader.cancellable = self->cancellable;
  if (reader.follow)
    g_object_set (self->source, "follow", TRUE, NULL);

  for (guint i = 0; i < N_BATCHES; i++)
    {
      batches[i].events = g_new (StrataEvent, BATCH_SIZE);
      batches[i].n = 0;
      batches[i].error = NULL;
      g_async_queue_push (reader.free, &batches[i]);
    }

  thread = g_thread_new ("strata-reader", reader_thread, &reader);

  for (;;)
    {
      Batch *batch = g_async_queue_pop (reader.full);

      if (batch->n <= 0)
        {
          if (batch->n < 0)
            g_propagate_error (error, g_steal_pointer (&batch->error));
          break;
        }

      count_events (self, batch->events, batch->n);
      if (self->read_spans != NULL)
        note_read_spans (self, batch->events, batch->n);
      self->file_position = batch->position;
      self->n_events += batch->n;
      strata_kernel_model_feed (model, batch->events, batch->n);

      g_async_queue_push (reader.free, batch);

      if (!reader.follow)
        show = TRUE;
      else
        show = follow_pace (&pace, model, g_async_queue_length (reader.full) <= 0);
      if (!show)
        continue;
      if (reader.follow && self->debug_memory && pace.shown_usec - pace.noted_usec >= FOLLOW_NOTE_USEC)
        {
          pace.noted_usec = pace.shown_usec;
          note_memory (self, "following");
          /* What grows with the threads a recording saw, not its events. */
          g_message ("following: %u channels", pace.n_channels);
        }

      if (self->tree != NULL)
        strata_zoom_tree_advance (self->tree, strata_kernel_model_get_horizon (model),
                                  (StrataForeachOpenFunc) strata_kernel_model_foreach_open, model);

      if (reader.follow && pace.shown_usec - pace.trimmed_usec >= FOLLOW_TRIM_USEC)
        {
          pace.trimmed_usec = pace.shown_usec;
          malloc_trim (0);
        }

      if (self->progress != NULL && !report_progress (self, model, g_atomic_int_get (&reader.waited)))
        {
          /* Let the reader stop, and take back every batch it filled. */
          g_atomic_int_set (&reader.stop, 1);
          for (;;)
            {
              Batch *rest = g_async_queue_pop (reader.full);
              gboolean last = rest->n <= 0;

              g_clear_error (&rest->error);
              if (last)
                break;
              g_async_queue_push (reader.free, rest);
            }
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: loading was cancelled",
                       strata_source_get_path (self->source));
          break;
        }
    }

  g_thread_join (thread);

  for (guint i = 0; i < N_BATCHES; i++)
    {
      g_free (batches[i].events);
      g_clear_error (&batches[i].error);
    }
  g_async_queue_unref (reader.full);
  g_async_queue_unref (reader.free);
  g_byte_array_unref (reader.cpus_named);
}

/**
 * strata_trace_read:
 * @pass: what the pass keeps, builds and tells
 *
 * Reads the whole trace through the kernel model. When the file is
 * damaged after some events, the trace is returned with what was read and
 * the damage is available from strata_trace_get_damage(). The loader's
 * pass (strata-loader.c).
 *
 * Returns: (transfer full): the trace, or %NULL with @error set
 */
StrataTrace *
strata_trace_read (const char            *path,
                   const StrataTracePass *pass,
                   GError               **error)
{
  g_autoptr(StrataTrace) self = NULL;
  g_autoptr(StrataKernelModel) model = NULL;
  const StrataSourceInfo *info;
  GError *read_error = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (STRATA_TYPE_TRACE, NULL);
  self->passing = TRUE;
  self->keep_activities = pass->keep_activities;
  self->sink = pass->sink;
  self->close_sink = pass->close_sink;
  self->sink_data = pass->sink_data;
  self->progress = pass->progress;
  self->progress_data = pass->progress_data;
  self->debug_memory = pass->debug_memory;
  self->follow = pass->follow;
  self->cancellable = pass->cancellable;
  if (pass->progress != NULL)
    {
      GStatBuf st;

      self->read_spans = g_array_new (FALSE, FALSE, sizeof (ReadSpan));
      self->bytes_total = g_stat (path, &st) == 0 && st.st_size > 0 ? (guint64) st.st_size : 0;
    }
  if (pass->params != NULL && !(self->tree = strata_zoom_tree_new (pass->params, error)))
    return NULL;
  self->source = strata_source_open (path, error);
  if (self->source == NULL)
    return NULL;

  self->strings = strata_string_pool_ref (strata_source_get_strings (self->source));
  info = strata_source_get_info (self->source);
  if (self->tree != NULL && info->span_first <= info->span_last)
    strata_zoom_tree_set_span_hint (self->tree, info->span_first, info->span_last);

  model = strata_kernel_model_new (self->strings, info->lost_per_cpu);
  strata_kernel_model_set_sink (model, collect_activity, self);
  strata_kernel_model_set_close_func (model, close_channel, self);
  strata_kernel_model_set_layout (model, info->instances->len, info->n_cpus);
  /* The reports say which channels are new or changed. */
  if (self->progress != NULL)
    strata_kernel_model_track_changes (model);

  read_events (self, model, &read_error);
  self->cancellable = NULL;
  g_clear_pointer (&self->read_spans, g_array_unref);
  note_memory (self, "the pass's end");

  if (read_error != NULL)
    {
      if (self->n_events == 0 ||
          g_error_matches (read_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_propagate_error (error, read_error);
          return NULL;
        }
      self->damage = read_error;
    }

  self->start = info->first_ts == G_MAXINT64 ? 0 : info->first_ts;
  self->end = info->last_ts == G_MININT64 ? 0 : info->last_ts;

  strata_kernel_model_finish (model, self->end);
  /* Taken from the model, not copied: the copy and the model's were the
   * pass's peak with a million threads. The rest of the model goes, and
   * the heap's free pages (50 MB of them at the end of a pass of a
   * million threads) go back before the tree's finish, the pass's peak
   * there. */
  g_array_unref (self->switches);
  self->channel_file = strata_kernel_model_steal_channels (model, &self->switches);
  self->channel_data = (const StrataChannel *) (gpointer) self->channel_file->data;
  self->n_channels = self->channel_file->len;
  g_clear_pointer (&model, strata_kernel_model_free);
  if (self->tree != NULL)
    {
      malloc_trim (0);
      strata_zoom_tree_finish (self->tree);
      /* The tree let go of its build state (the levels' pools, tens of
       * MB on a big trace) amid what stays: without this the heap keeps
       * those pages, and the index is written after, the pass's peak. */
      malloc_trim (0);
    }
  note_memory (self, "the tree finished");

  for (guint i = 0; i < self->counts->len; i++)
    {
      guint64 count = g_array_index (self->counts, guint64, i);

      if (count > 0)
        {
          StrataEventCount ec = { i, count };
          g_array_append_val (self->event_counts, ec);
        }
    }

  /* The tables are whole: the getters answer with them from now on (a
   * full barrier, so a thread that sees this sees them). */
  g_atomic_int_set (&self->passing, FALSE);
  return g_steal_pointer (&self);
}

StrataSource *
strata_trace_get_source (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  return self->source;
}

const StrataSourceInfo *
strata_trace_get_info (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  if (self->info != NULL)
    return self->info;
  return strata_source_get_info (self->source);
}

StrataStringPool *
strata_trace_get_strings (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  return self->strings;
}

const char *
strata_trace_get_string (StrataTrace *self,
                         guint32      id)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), "");
  return strata_string_pool_get (self->strings, id);
}

const StrataChannel *
strata_trace_get_channels (StrataTrace *self,
                           guint       *n_channels)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);

  /* (passing first: a thread other than the live one's only gets here
   * once the pass has ended, and never reads live_channels.) */
  if (g_atomic_int_get (&self->passing))
    {
      if (self->live_channels == NULL)
        {
          *n_channels = 0;
          return NULL;
        }
      *n_channels = self->live_channels->len;
      return (const StrataChannel *) (gpointer) self->live_channels->data;
    }
  *n_channels = self->n_channels;
  return self->channel_data;
}

const StrataActivity *
strata_trace_get_activities (StrataTrace *self,
                             gsize       *n_activities)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);

  *n_activities = self->activities->len;
  return (const StrataActivity *) (gpointer) self->activities->data;
}

const StrataEventCount *
strata_trace_get_event_counts (StrataTrace *self,
                               guint       *n_counts)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);

  *n_counts = self->event_counts->len;
  return (const StrataEventCount *) (gpointer) self->event_counts->data;
}

guint64
strata_trace_get_n_events (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), 0);
  return self->n_events;
}

guint64
strata_trace_get_context_switches (StrataTrace *self,
                                   guint        channel)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), 0);

  /* Counted by the model, given at the pass's end. */
  if (g_atomic_int_get (&self->passing) || channel >= self->switches->len)
    return 0;
  return g_array_index (self->switches, guint64, channel);
}

/**
 * strata_trace_let_go_channels:
 *
 * For a loop over every channel, every so often: the channels' pages
 * leave the process's memory where they are in a file (a pass's, in
 * their spill file; an index's, in its map), to come back as they are
 * read again, so reading them all does not bring them all in (40 bytes
 * each, a million threads).
 */
void
strata_trace_let_go_channels (StrataTrace *self)
{
  g_return_if_fail (STRATA_IS_TRACE (self));

  if (self->channel_file != NULL)
    strata_spilled_array_let_go (self->channel_file, self->channel_file->len);
  else if (self->channel_map != NULL)
    strata_index_map_let_go (self->channel_map, self->channel_data,
                             (gsize) self->n_channels * sizeof (StrataChannel));
}

/* Every channel's context switches at once, where they are: the index
 * writer serialises them as one array (built element by element, a
 * GVariant each, they were 70 MB more at the peak of a million threads). */
const guint64 *
strata_trace_peek_context_switches (StrataTrace *self,
                                    guint       *n_channels)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);

  *n_channels = self->switches->len;
  return (const guint64 *)(gconstpointer) self->switches->data;
}

gint64
strata_trace_get_start (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), 0);
  if (g_atomic_int_get (&self->passing))
    return self->live_start;
  return self->start;
}

gint64
strata_trace_get_end (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), 0);
  if (g_atomic_int_get (&self->passing))
    return self->live_end;
  return self->end;
}

/**
 * strata_trace_get_damage:
 *
 * Returns: (nullable): the error that ended reading early, if any; the
 *   trace holds everything read before it
 */
/* Returns: (nullable): the zoom tree, if the trace was loaded with one */
StrataZoomTree *
strata_trace_get_zoom_tree (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  return self->tree;
}

const GError *
strata_trace_get_damage (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  return self->damage;
}

void
strata_source_info_free (StrataSourceInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->format);
  g_free (info->version);
  g_free (info->compression);
  g_free (info->clock);
  g_clear_pointer (&info->instances, g_ptr_array_unref);
  g_clear_pointer (&info->lost_per_cpu, g_array_unref);
  g_free (info->hostname);
  g_free (info->kernel_release);
  g_clear_pointer (&info->undecoded, g_ptr_array_unref);
  g_clear_pointer (&info->details, g_array_unref);
  g_free (info);
}

/* A trace opened from an index: what the pass found, without the pass. */
StrataTrace *
strata_trace_new_from_parts (StrataTraceParts *parts)
{
  StrataTrace *self = g_object_new (STRATA_TYPE_TRACE, NULL);

  self->info = g_steal_pointer (&parts->info);
  self->strings = g_steal_pointer (&parts->strings);
  if (parts->channels != NULL)
    {
      g_array_unref (self->channels);
      self->channels = g_steal_pointer (&parts->channels);
      self->channel_data = (const StrataChannel *) (gpointer) self->channels->data;
      self->n_channels = self->channels->len;
    }
  else
    {
      self->channel_map = g_steal_pointer (&parts->channels_map);
      self->channel_data = parts->mapped_channels;
      self->n_channels = parts->n_mapped_channels;
    }
  g_array_unref (self->switches);
  self->switches = g_steal_pointer (&parts->switches);
  g_array_unref (self->event_counts);
  self->event_counts = g_steal_pointer (&parts->event_counts);
  self->n_events = parts->n_events;
  self->start = parts->start;
  self->end = parts->end;
  self->damage = g_steal_pointer (&parts->damage);
  self->tree = g_steal_pointer (&parts->tree);
  self->stats = g_steal_pointer (&parts->stats);
  if (self->stats != NULL && self->stats->threads == NULL)
    {
      self->pending_map = g_steal_pointer (&parts->stats_map);
      self->n_pending_rows = parts->n_thread_rows;
      self->pending_checksum = parts->thread_rows_checksum;
      g_atomic_pointer_set (&self->pending_rows, parts->thread_rows);
    }
  self->index_path = g_steal_pointer (&parts->index_path);

  return self;
}

void
strata_trace_set_stats (StrataTrace *self,
                        StrataStats *stats)
{
  g_return_if_fail (STRATA_IS_TRACE (self));

  g_mutex_lock (&self->stats_lock);
  g_atomic_pointer_set (&self->pending_rows, NULL);
  g_clear_pointer (&self->pending_map, strata_index_map_unref);
  g_clear_pointer (&self->stats, strata_stats_free);
  self->stats = stats;
  g_mutex_unlock (&self->stats_lock);
}

/**
 * strata_trace_get_stats:
 *
 * Returns: (nullable): the statistics, if the trace came through an index
 *   (which keeps them) or was loaded to build one
 */
/* Each thread row of a window names a channel of the trace. */
static gboolean
thread_rows_sound (const void *elements,
                   gsize       first,
                   gsize       n,
                   gpointer    user_data)
{
  const StrataThreadStats *rows = elements;
  StrataTrace *self = user_data;

  for (gsize i = 0; i < n; i++)
    if (rows[i].channel >= self->n_channels)
      return FALSE;
  return TRUE;
}

/* The index's thread rows are those its writer wrote, and each names a
 * channel of the trace (hashed and checked in one read); if not, the map
 * remembers the damage. Called with stats_lock held. */
static gboolean
thread_rows_check (StrataTrace *self)
{
  gsize size = self->n_pending_rows * sizeof (StrataThreadStats);
  gboolean sound;

  if (!strata_index_map_verify_visit (self->pending_map, self->pending_rows, size, self->pending_checksum,
                                      sizeof (StrataThreadStats), thread_rows_sound, self, &sound))
    {
      strata_index_map_note_damage (self->pending_map, "the thread statistics fail their checksum");
      return FALSE;
    }
  if (!sound)
    {
      strata_index_map_note_damage (self->pending_map, "a thread statistics row names no channel");
      return FALSE;
    }
  return TRUE;
}

const StrataStats *
strata_trace_get_stats (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);

  /* The thread rows of an index, checked and copied on the first call
   * (from any thread): pending_rows goes back to NULL once stats->threads
   * is set. Rows that fail the check are not shown: the statistics have
   * no threads, and the index says it is damaged (to be rebuilt). */
  if G_UNLIKELY (g_atomic_pointer_get (&self->pending_rows) != NULL)
    {
      g_mutex_lock (&self->stats_lock);
      if (self->pending_rows != NULL)
        {
          GArray *threads = g_array_sized_new (FALSE, TRUE, sizeof (StrataThreadStats), (guint) self->n_pending_rows);

          if (thread_rows_check (self))
            g_array_append_vals (threads, self->pending_rows, (guint) self->n_pending_rows);
          self->stats->threads = threads;
          g_atomic_pointer_set (&self->pending_rows, NULL);
          g_clear_pointer (&self->pending_map, strata_index_map_unref);
        }
      g_mutex_unlock (&self->stats_lock);
    }
  return self->stats;
}

/* Returns: (nullable): the index the trace was opened from */
const char *
strata_trace_get_index_path (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  return self->index_path;
}

/**
 * strata_trace_get_index_damage:
 *
 * Returns: (nullable): what the queries so far found damaged in the index
 *   the trace was opened from; the answers may then be incomplete (never
 *   wrong otherwise), and the index should be rebuilt
 */
const char *
strata_trace_get_index_damage (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), NULL);
  if (self->index_path == NULL || self->tree == NULL)
    return NULL;
  return strata_zoom_tree_get_damage (self->tree);
}

/**
 * strata_trace_set_live:
 * @channels: (transfer full): the channels (StrataChannel) of a progress
 *   report (StrataTraceProgress) as that thread keeps them: it may give
 *   the same array again, grown and changed in place, and keeps using it
 *   (the trace owns it, so it lives as long as the trace reads it). A
 *   spilled array: past a few MiB it is in a file, not in the heap, so a
 *   recording followed for an hour does not grow the app's memory by its
 *   every channel.
 * @start: its first event
 * @horizon: how far its activities are complete
 *
 * For the one thread that shows a trace while its pass runs (the UI's):
 * until the pass ends, strata_trace_get_channels(), _get_start() and
 * _get_end() answer with these, so what reads a finished trace reads the
 * part loaded so far, its tree through strata_trace_query_channel()
 * (which takes the tree's lock). The tables the pass fills at its end
 * are never read before it ends. Only that thread calls this and reads
 * the trace's channels while the pass runs: the table it was given last
 * stays valid until its next call, whatever the pass does meanwhile.
 * Once the pass has ended this changes nothing.
 */
void
strata_trace_set_live (StrataTrace        *self,
                       StrataSpilledArray *channels,
                       gint64              start,
                       gint64              horizon)
{
  g_return_if_fail (STRATA_IS_TRACE (self));
  g_return_if_fail (channels != NULL);

  if (self->live_channels != channels)
    {
      g_clear_pointer (&self->live_channels, strata_spilled_array_free);
      self->live_channels = channels;
    }
  self->live_start = start;
  self->live_end = MAX (horizon, start);
}

/* Whether the trace's pass is still running: its whole-trace counts
 * (context switches, event counts) are not known yet. Any thread. */
gboolean
strata_trace_is_loading (StrataTrace *self)
{
  g_return_val_if_fail (STRATA_IS_TRACE (self), FALSE);
  return g_atomic_int_get (&self->passing);
}
