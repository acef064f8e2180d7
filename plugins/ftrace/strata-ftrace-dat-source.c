/* strata-ftrace-dat-source.c
 *
 * The trace.dat input plugin: files written by trace-cmd (format versions 6
 * and 7, compressed or not, with any number of buffer instances), read
 * through libtracecmd and decoded with libtraceevent from the event formats
 * the file carries. Each CPU of each buffer instance is a stream in time
 * order; the source merges all of them by timestamp, so the kernel model
 * sees one ordered stream whatever the file's shape.
 *
 * libtracecmd opens the file (headers, event formats, options, instances,
 * CPU stats), but the CPU data is read here: each stream's ring-buffer pages
 * are read from the file with pread(), or decompressed chunk by chunk with
 * zstd, and handed to kbuffer one page at a time, exactly as libtracecmd
 * would hand them, without its allocation per record. Only a file whose
 * options make libtracecmd change the timestamps (a date or offset, guest
 * time sync, TSC conversion) is still read through libtracecmd.
 *
 * The pages read here also give the span hint at open: each CPU's first
 * event is read then anyway, and its last one is found in its last page
 * with events (with compression, in its last chunk), read apart from the
 * stream. A file read through libtracecmd has no hint.
 *
 * The file is hostile until proven otherwise: its structure is checked by
 * strata-ftrace-dat-layout.c before libtracecmd touches it, every page
 * header is checked before kbuffer sees the page, every event must end
 * inside its page's data, and every field read from a record is
 * bounds-checked against the record. A damaged page stops the reading
 * there: the events before it are returned, then the error. A version 6
 * file cut inside its CPU data, which libtracecmd refuses, is read up to
 * the cut the same way.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <trace-cmd.h>
#include <zstd.h>

#include "strata-error.h"
#include "strata-ftrace-dat-private.h"
#include "strata-file-io.h"
#include "strata-tracecmd-private.h"
#include "../strata-child-probe.h"
#include "../strata-tracepoint-fields.h"

#define TRACE_DAT_MAGIC     "\x17\x08\x44tracing"
#define TRACE_DAT_MAGIC_LEN 10
#define PROBE_TIMEOUT_MS    30000

#define MAX_TABLE_ID     65536

/* Uncompressed pages are read this many bytes at a time. */
#define READ_BYTES       (256 * 1024)
/* kbuffer reads a page's lost-event count just past its commit, and an
 * event's header may sit at the very end of the data: zeroed bytes after
 * the last page of a buffer keep those reads inside it. */
#define PAGE_SLACK       64

/* What the source needs of one event id, resolved once per file: which
 * StrataEventType it is, its interned name, and the fields it reads. */
typedef struct
{
  guint32                  name;
  StrataTracepointFields   tp;    /* its type, its fields */
} EventInfo;


/* One CPU of one buffer instance: a time-ordered run of records, read
 * page by page here (kbuf != NULL) or, for files whose timestamps
 * libtracecmd adjusts, by libtracecmd. */
typedef struct
{
  struct tracecmd_input *handle;     /* not owned */
  int                    index;      /* the CPU's index in its handle */
  guint                  cpu;
  guint16                instance;
  gboolean               stats_known;
  gboolean               cut;        /* its data runs past the end of the file */
  gboolean               lost_done;  /* the LOST event of `next` was emitted */
  struct tep_record     *next;       /* libtracecmd's record, or &record */
  guint64                ts;         /* next->ts, kept here for the heap */

  /* Uncompressed data read by libtracecmd: pages before this offset have
   * been checked (see stream_check_ahead(); data_offset and data_end are
   * then the CPU's whole data). */
  guint64                checked_until;
  gboolean               check_pages;

  /* Page by page reading. The pages are read into buf: a run of the file
   * (data_offset is the next byte to read, data_end where the pages end),
   * or one decompressed chunk at a time. */
  struct kbuffer        *kbuf;
  const StrataFtraceDatChunk *chunks;
  guint                  n_chunks;
  guint                  next_chunk;
  guint64                data_offset;
  guint64                data_end;
  guint8                *buf;
  gsize                  buf_alloc;
  gsize                  buf_len;    /* bytes of pages in buf */
  guint64                buf_at;     /* where buf came from: a file offset, or
                                      * the chunk's header when compressed */
  gsize                  page_pos;   /* the current page, in buf */
  guint64                page_offset;/* its offset as records report it */
  guint                  page_end;   /* where its events must end, in the page */
  gboolean               started;
  gboolean               page_loaded;
  struct tep_record      record;
} Stream;

struct _StrataFtraceDatSource
{
  StrataSource            parent_instance;

  StrataFtraceDatLayout  *layout;
  struct tracecmd_input  *input;
  GPtrArray              *instance_inputs;  /* struct tracecmd_input *, closed */
  struct tep_handle      *tep;
  int                     fd;

  GHashTable             *events;           /* event id → EventInfo (owned) */
  GPtrArray              *event_table;      /* the same, indexed by small ids */
  StrataStringPool       *strings;          /* not owned: the source's pool */
  int                     native_order;     /* the file's byte order is ours: 1, else 0; -1 unknown */
  StrataCommCache        *comms;            /* strings of fields, interned */
  struct tep_format_field *common_type;     /* where every record keeps its id */
  guint32                 lost_name;

  Stream                 *streams;
  guint                   n_streams;
  StrataFtraceDatInflater inflater;         /* shared by the compressed streams */
  guint                  *heap;             /* stream indices, min-heap by ts */
  guint                   heap_len;

  GError                 *deferred_error;   /* reported after the good events */

  /* Compressed data: the bytes of the chunks no stream has inflated yet.
   * The "file-position" property is the file's size less these (the rest
   * was read at open); 0 when no buffer is compressed. */
  guint64                 unread_chunk_bytes;
  gboolean                has_chunks;
};

G_DEFINE_FINAL_TYPE (StrataFtraceDatSource, strata_ftrace_dat_source, STRATA_TYPE_SOURCE)

static gboolean
stream_before (StrataFtraceDatSource *self,
               guint                  a,
               guint                  b)
{
  guint64 ta = self->streams[a].ts;
  guint64 tb = self->streams[b].ts;

  /* Equal timestamps keep the order of instances, then CPUs, as
   * `trace-cmd report` prints them. */
  return ta < tb || (ta == tb && a < b);
}

static void
heap_sift_down (StrataFtraceDatSource *self,
                guint                  i)
{
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i, tmp;

      if (l < self->heap_len && stream_before (self, self->heap[l], self->heap[m]))
        m = l;
      if (r < self->heap_len && stream_before (self, self->heap[r], self->heap[m]))
        m = r;
      if (m == i)
        return;
      tmp = self->heap[i];
      self->heap[i] = self->heap[m];
      self->heap[m] = tmp;
      i = m;
    }
}

static void
heap_push (StrataFtraceDatSource *self,
           guint                  stream)
{
  guint i = self->heap_len++;

  self->streams[stream].ts = self->streams[stream].next->ts;
  self->heap[i] = stream;
  while (i > 0)
    {
      guint parent = (i - 1) / 2, tmp;

      if (!stream_before (self, self->heap[i], self->heap[parent]))
        break;
      tmp = self->heap[i];
      self->heap[i] = self->heap[parent];
      self->heap[parent] = tmp;
      i = parent;
    }
}

static void
heap_pop (StrataFtraceDatSource *self)
{
  self->heap[0] = self->heap[--self->heap_len];
  heap_sift_down (self, 0);
}

/* A damaged page or event: the message says where it is in the file, or
 * with compression, in which chunk and where inside it. */
static gboolean G_GNUC_PRINTF (5, 6)
stream_fail (StrataFtraceDatSource  *self,
             Stream                 *stream,
             gsize                   in_page,
             GError                **error,
             const char             *format,
             ...)
{
  const char *name = self->layout->display_name;
  g_autofree char *cause = NULL;
  va_list args;

  va_start (args, format);
  cause = g_strdup_vprintf (format, args);
  va_end (args);

  if (stream->chunks != NULL)
    g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                 "%s: offset %" G_GUINT64_FORMAT " (byte %" G_GSIZE_FORMAT
                 " of decompressed chunk %u of CPU %u): %s",
                 name, stream->buf_at, stream->page_pos + in_page,
                 stream->next_chunk - 1, stream->cpu, cause);
  else
    g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                 "%s: offset %" G_GUINT64_FORMAT ": CPU %u %s",
                 name, stream->buf_at + stream->page_pos + in_page, stream->cpu, cause);

  return FALSE;
}

/* Fills buf with the next pages of the stream: the next run of the file,
 * or the next chunk decompressed. buf_len is 0 when there are no more. */
static gboolean
stream_fill (StrataFtraceDatSource  *self,
             Stream                 *stream,
             GError                **error)
{
  StrataFtraceDatLayout *layout = self->layout;
  gsize want;
  int errsv = 0;

  stream->buf_len = 0;
  stream->page_pos = 0;

  if (stream->chunks != NULL)
    {
      const StrataFtraceDatChunk *chunk;

      if (stream->next_chunk >= stream->n_chunks)
        return TRUE;
      chunk = &stream->chunks[stream->next_chunk++];
      want = chunk->usize;
      stream->buf_at = chunk->offset - 8;
      self->unread_chunk_bytes -= MIN (self->unread_chunk_bytes, 8 + (guint64) chunk->csize);
    }
  else
    {
      gsize pages = MAX (READ_BYTES / layout->page_size, 1);

      if (stream->data_offset >= stream->data_end)
        return TRUE;
      want = MIN (stream->data_end - stream->data_offset, (guint64) pages * layout->page_size);
      stream->buf_at = stream->data_offset;
    }

  /* Room for a whole last page (the data of an uncompressed CPU need not
   * end on a page boundary) and the slack after it. */
  if (stream->buf_alloc < want + layout->page_size + PAGE_SLACK)
    {
      g_free (stream->buf);
      stream->buf_alloc = want + layout->page_size + PAGE_SLACK;
      stream->buf = g_malloc (stream->buf_alloc);
    }

  if (stream->chunks != NULL)
    {
      if (!strata_ftrace_dat_layout_inflate (layout, self->fd, &stream->chunks[stream->next_chunk - 1],
                                             stream->cpu, stream->next_chunk - 1,
                                             &self->inflater, stream->buf, error))
        return FALSE;
    }
  else
    {
      if (!strata_file_read_exact (self->fd, stream->buf, want, stream->data_offset, &errsv))
        {
          g_set_error (error, STRATA_ERROR, errsv == 0 ? STRATA_ERROR_TRUNCATED : STRATA_ERROR_IO,
                       "%s: offset %" G_GUINT64_FORMAT ": CPU %u data could not be read: %s",
                       layout->display_name, stream->data_offset, stream->cpu,
                       errsv == 0 ? "the file ended" : g_strerror (errsv));
          return FALSE;
        }
      stream->data_offset += want;
    }

  memset (stream->buf + want, 0, stream->buf_alloc - want);
  stream->buf_len = want;

  return TRUE;
}

/* Moves to the stream's next page (its first one on the first call) and
 * loads it into kbuffer once its header has been checked: kbuffer trusts
 * the page's commit field and reads as far as it says. page_loaded is
 * FALSE at the end of the stream. */
static gboolean
stream_next_page (StrataFtraceDatSource  *self,
                  Stream                 *stream,
                  GError                **error)
{
  StrataFtraceDatLayout *layout = self->layout;
  guint header = 8 + layout->commit_size;
  const guint8 *page;
  guint64 commit;
  gsize avail;

  stream->page_loaded = FALSE;

  if (stream->started)
    {
      stream->page_pos += layout->page_size;
      stream->page_offset += layout->page_size;
    }
  stream->started = TRUE;

  if (stream->page_pos >= stream->buf_len)
    {
      if (!stream_fill (self, stream, error))
        return FALSE;
      if (stream->buf_len == 0)
        return TRUE;
    }

  page = stream->buf + stream->page_pos;
  avail = MIN (stream->buf_len - stream->page_pos, layout->page_size);

  if (!strata_ftrace_dat_layout_check_page (layout, page, &commit))
    return stream_fail (self, stream, 0, error,
                        "page claims %" G_GUINT64_FORMAT " bytes of events in a "
                        "%u-byte page", commit, layout->page_size);
  if (header + commit > avail)
    return stream_fail (self, stream, 0, error,
                        "page claims %" G_GUINT64_FORMAT " bytes of events, only %"
                        G_GSIZE_FORMAT " of the page are in the CPU's data",
                        commit, avail - MIN (avail, header));

  if (kbuffer_load_subbuffer (stream->kbuf, (void *) page) < 0)
    return stream_fail (self, stream, 0, error, "page could not be loaded");

  stream->page_end = header + commit;
  stream->page_loaded = TRUE;

  return TRUE;
}

/* Fills stream->next with the stream's next record, built in place from
 * kbuffer's view of the page as libtracecmd's tracecmd_read_data() builds
 * it (the same timestamp, offset, size and missed events), or NULL at the
 * end of the stream. */
static gboolean
stream_read_next (StrataFtraceDatSource  *self,
                  Stream                 *stream,
                  GError                **error)
{
  struct tep_record *record = &stream->record;

  stream->next = NULL;

  for (;;)
    {
      unsigned long long ts;
      const guint8 *page;
      guint8 *data;
      int size;

      if (stream->page_loaded &&
          (data = kbuffer_read_event (stream->kbuf, &ts)) != NULL)
        {
          page = stream->buf + stream->page_pos;
          size = kbuffer_event_size (stream->kbuf);

          /* A damaged length would have the decoder read past the page. */
          if (data < page || size < 0 ||
              (gsize) (data - page) + (gsize) size > stream->page_end)
            return stream_fail (self, stream, kbuffer_curr_offset (stream->kbuf), error,
                                "event of %d bytes runs past its page's %u bytes of data",
                                size, stream->page_end);

          memset (record, 0, sizeof *record);
          record->ts = ts;
          record->offset = stream->page_offset + kbuffer_curr_offset (stream->kbuf);
          record->cpu = stream->cpu;
          record->data = data;
          record->size = size;
          record->missed_events = kbuffer_missed_events (stream->kbuf);
          kbuffer_next_event (stream->kbuf, NULL);

          stream->next = record;
          stream->lost_done = FALSE;
          return TRUE;
        }

      if (!stream_next_page (self, stream, error))
        return FALSE;
      if (!stream->page_loaded)
        return TRUE;
    }
}

/* Before libtracecmd moves to another page of an uncompressed CPU, the
 * pages it may load (the next one, and any empty ones it would skip on the
 * way) are checked here, so a damaged page stops the stream with an error
 * instead of reaching kbuffer. @offset is where the current record is. */
static gboolean
stream_check_ahead (StrataFtraceDatSource  *self,
                    Stream                 *stream,
                    guint64                 offset,
                    GError                **error)
{
  StrataFtraceDatLayout *layout = self->layout;
  guint64 page = offset < stream->data_offset ? stream->data_offset
               : offset - (offset - stream->data_offset) % layout->page_size;

  if (!stream->check_pages)
    return TRUE;

  if (stream->checked_until < page + layout->page_size)
    stream->checked_until = page;

  /* Pages up to and including the first one with events after the
   * current one. */
  while (stream->checked_until < stream->data_end)
    {
      guint8 header[16];
      guint64 at = stream->checked_until;
      guint64 commit;
      gssize n;

      if (stream->data_end - at < 16)
        break;

      do
        n = pread (self->fd, header, sizeof header, at);
      while (n < 0 && errno == EINTR);
      if (n != sizeof header)
        {
          g_set_error (error, STRATA_ERROR, n < 0 ? STRATA_ERROR_IO : STRATA_ERROR_TRUNCATED,
                       "%s: offset %" G_GUINT64_FORMAT ": CPU %u page could not be read",
                       layout->display_name, at, stream->cpu);
          return FALSE;
        }
      if (!strata_ftrace_dat_layout_check_page (layout, header, &commit))
        {
          g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                       "%s: offset %" G_GUINT64_FORMAT ": CPU %u page claims %"
                       G_GUINT64_FORMAT " bytes of events in a %u-byte page",
                       layout->display_name, at, stream->cpu, commit,
                       layout->page_size);
          return FALSE;
        }

      stream->checked_until = at + layout->page_size;
      if (at > page && commit > 0)
        break;
    }

  return TRUE;
}

static gboolean
stream_advance (StrataFtraceDatSource  *self,
                Stream                 *stream,
                GError                **error)
{
  if (stream->kbuf != NULL)
    return stream_read_next (self, stream, error);

  if (!stream_check_ahead (self, stream, stream->next->offset, error))
    {
      tracecmd_free_record (stream->next);
      stream->next = NULL;
      return FALSE;
    }

  tracecmd_free_record (stream->next);
  stream->next = tracecmd_read_data (stream->handle, stream->index);
  stream->lost_done = FALSE;

  return TRUE;
}

static void
event_info_free (gpointer data)
{
  g_free (data);
}

static void
strata_ftrace_dat_source_finalize (GObject *object)
{
  StrataFtraceDatSource *self = (StrataFtraceDatSource *)object;

  strata_ftrace_dat_records_clear (self);

  for (guint i = 0; i < self->n_streams; i++)
    {
      Stream *stream = &self->streams[i];

      if (stream->kbuf != NULL)
        kbuffer_free (stream->kbuf);
      else if (stream->next != NULL)
        tracecmd_free_record (stream->next);
      g_free (stream->buf);
    }
  strata_ftrace_dat_inflater_clear (&self->inflater);
  g_clear_pointer (&self->streams, g_free);
  g_clear_pointer (&self->heap, g_free);
  g_clear_pointer (&self->event_table, g_ptr_array_unref);
  g_clear_pointer (&self->comms, strata_comm_cache_free);
  g_clear_pointer (&self->events, g_hash_table_unref);
  g_clear_pointer (&self->instance_inputs, g_ptr_array_unref);
  g_clear_pointer (&self->input, tracecmd_close);
  g_clear_pointer (&self->layout, strata_ftrace_dat_layout_free);
  g_clear_error (&self->deferred_error);
  if (self->fd >= 0)
    close (self->fd);

  G_OBJECT_CLASS (strata_ftrace_dat_source_parent_class)->finalize (object);
}

static guint
strata_ftrace_dat_source_probe (const guint8 *head,
                                gsize         head_len)
{
  if (head_len >= TRACE_DAT_MAGIC_LEN &&
      memcmp (head, TRACE_DAT_MAGIC, TRACE_DAT_MAGIC_LEN) == 0)
    return 100;

  return 0;
}

static EventInfo *
resolve_event (StrataFtraceDatSource *self,
               int                    id)
{
  StrataStringPool *strings = strata_source_get_strings (STRATA_SOURCE (self));
  struct tep_event *event = tep_find_event (self->tep, id);
  EventInfo *info = g_new0 (EventInfo, 1);

  g_hash_table_insert (self->events, GINT_TO_POINTER (id), info);
  if (id >= 0 && id < MAX_TABLE_ID)
    {
      if ((guint) id >= self->event_table->len)
        g_ptr_array_set_size (self->event_table, id + 1);
      g_ptr_array_index (self->event_table, id) = info;
    }

  if (event == NULL || event->name == NULL)
    {
      g_autofree char *name = g_strdup_printf ("event_%d", id);

      info->tp.type = STRATA_EVENT_OTHER;
      info->name = strata_string_pool_intern (strings, name);
      return info;
    }

  info->name = strata_string_pool_intern (strings, event->name);
  strata_tracepoint_fields_resolve (&info->tp, event);

  return info;
}

static void
decode_record (StrataFtraceDatSource *self,
               Stream                *stream,
               struct tep_record     *record,
               StrataEvent           *event)
{
  EventInfo *info = NULL;
  int id = -1;

  memset (event, 0, sizeof *event);
  event->ts = record->ts;
  event->source_offset = record->offset;
  event->cpu = record->cpu;
  event->instance = stream->instance;
  event->tgid = -1;
  event->pid = -1;

  /* The event id, read where the file's formats say it is; a record too
   * short to hold it cannot be an event. */
  {
    gint64 type;

    if (strata_tracepoint_read_number (self->common_type, record, self->native_order != 0, &type))
      id = (int) type;
  }

  if (id >= 0 && (guint) id < self->event_table->len)
    info = g_ptr_array_index (self->event_table, id);
  else
    info = g_hash_table_lookup (self->events, GINT_TO_POINTER (id));
  if (info == NULL)
    info = resolve_event (self, id);

  event->name = info->name;
  strata_tracepoint_fields_decode (&info->tp, record->data, record->size,
                                   self->native_order != 0, self->comms, FALSE, event);
}

/* The ring buffer marks the first page after a loss; the count is known
 * when the kernel could store it, -1 otherwise. */
static void
make_lost_event (StrataFtraceDatSource *self,
                 Stream                *stream,
                 struct tep_record     *record,
                 StrataEvent           *event)
{
  StrataSourceInfo *info = strata_source_get_info_mutable (STRATA_SOURCE (self));

  memset (event, 0, sizeof *event);
  event->ts = record->ts;
  event->source_offset = record->offset;
  event->type = STRATA_EVENT_LOST;
  event->name = self->lost_name;
  event->cpu = record->cpu;
  event->pid = -1;
  event->tgid = -1;
  event->instance = stream->instance;

  if (record->missed_events > 0)
    {
      event->u.lost.count = record->missed_events;
      /* The CPU stats, when the file has them, already counted these. */
      if (!stream->stats_known)
        strata_source_note_lost (STRATA_SOURCE (self), record->cpu, record->missed_events);
    }
  else if (!stream->stats_known)
    info->lost_unknown = TRUE;
}

static gssize
strata_ftrace_dat_source_read_batch (StrataSource  *source,
                                     StrataEvent   *events,
                                     gsize          n_events,
                                     GError       **error)
{
  StrataFtraceDatSource *self = STRATA_FTRACE_DAT_SOURCE (source);
  gsize n = 0;

  if (self->native_order < 0 && self->tep != NULL)
    self->native_order = (tep_is_file_bigendian (self->tep) != 0) == (G_BYTE_ORDER == G_BIG_ENDIAN);

  while (n < n_events && self->heap_len > 0)
    {
      guint top = self->heap[0];
      Stream *stream = &self->streams[top];
      struct tep_record *record = stream->next;
      g_autoptr(GError) local_error = NULL;

      if (record->missed_events != 0 && !stream->lost_done)
        {
          make_lost_event (self, stream, record, &events[n++]);
          stream->lost_done = TRUE;
          continue;
        }

      decode_record (self, stream, record, &events[n++]);

      if (!stream_advance (self, stream, &local_error))
        {
          stream->next = NULL;
          g_clear_error (&self->deferred_error);
          self->deferred_error = g_steal_pointer (&local_error);
          /* Stop every stream: what follows the damage in time order
           * cannot be told apart from what is missing. */
          self->heap_len = 0;
          break;
        }

      /* Past the end of a cut CPU's data, the other CPUs' later events
       * would be returned without this one's: stop, so what was read is
       * exactly the trace up to the damage. */
      if (stream->next == NULL && stream->cut)
        {
          self->heap_len = 0;
          break;
        }

      if (stream->next == NULL)
        heap_pop (self);
      else
        {
          stream->ts = stream->next->ts;
          heap_sift_down (self, 0);
        }
    }

  if (n > 0)
    return n;

  if (self->deferred_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->deferred_error));
      return -1;
    }

  return 0;
}

/* The CPU stats option holds the kernel's per_cpu/cpuN/stats files one
 * after another; every kind of loss the kernel counts is added up. */
static void
note_cpu_stats (StrataFtraceDatSource *self,
                const char            *stats,
                GHashTable            *known_cpus)
{
  g_auto(GStrv) lines = NULL;
  gint64 cpu = -1;

  if (stats == NULL)
    return;

  lines = g_strsplit (stats, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = g_strstrip (lines[i]);
      const char *value = strchr (line, ':');
      guint64 count;

      if (value == NULL)
        continue;
      value++;

      if (g_str_has_prefix (line, "CPU:"))
        {
          cpu = g_ascii_strtoll (value, NULL, 10);
          if (cpu < 0 || cpu >= 8192)
            cpu = -1;
          else
            g_hash_table_add (known_cpus, GINT_TO_POINTER ((gint) cpu));
          continue;
        }

      if (cpu < 0)
        continue;

      if (g_str_has_prefix (line, "overrun:") ||
          g_str_has_prefix (line, "commit overrun:") ||
          g_str_has_prefix (line, "dropped events:"))
        {
          count = g_ascii_strtoull (value, NULL, 10);
          if (count > 0)
            strata_source_note_lost (STRATA_SOURCE (self), cpu, count);
        }
    }
}

static void
fill_uname (StrataSourceInfo *info,
            const char       *uname)
{
  g_auto(GStrv) parts = NULL;

  if (uname == NULL)
    return;

  /* "sysname nodename release machine" */
  parts = g_strsplit (uname, " ", 4);
  if (g_strv_length (parts) >= 3)
    {
      info->hostname = g_strdup (parts[1]);
      info->kernel_release = g_strdup (parts[2]);
    }
}

static const StrataFtraceDatCpu *
layout_cpu (StrataFtraceDatLayout *layout,
            guint                  buffer,
            guint                  index)
{
  StrataFtraceDatBuffer *b;

  if (buffer >= layout->buffers->len)
    return NULL;
  b = g_ptr_array_index (layout->buffers, buffer);
  if (index >= b->cpus->len)
    return NULL;

  return &g_array_index (b->cpus, StrataFtraceDatCpu, index);
}

/* Every event shares the common fields; the first one's serve for all. */
static gboolean
resolve_common_type (StrataFtraceDatSource  *self,
                     GError                **error)
{
  struct tep_event *first = tep_get_first_event (self->tep);

  if (first != NULL)
    self->common_type = tep_find_common_field (first, "common_type");

  if (self->common_type == NULL)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset 0: the file's event formats have no common_type field",
                   self->layout->display_name);
      return FALSE;
    }

  return TRUE;
}

static void
close_input (gpointer data)
{
  if (data != NULL)
    tracecmd_close (data);
}

/* libtraceevent's parser of event formats, which every open runs on the
 * formats in the file, crashes on some damaged formats that are still
 * plain text (a field declaration cut in the middle), and no check short of
 * a second parser can tell those apart. So the headers are first read by
 * libtracecmd in a child process (strata-child-probe.c): if it dies or
 * hangs there, the file is refused with an error instead of taking the
 * caller down. */
typedef struct
{
  const char *path;
  int         flags;
  gboolean    headers_only;
} ProbeArgs;

static void
probe_headers (gpointer data)
{
  const ProbeArgs *args = data;
  struct tracecmd_input *input;
  int n;

  input = args->headers_only ? tracecmd_open_head (args->path, args->flags)
                             : tracecmd_open (args->path, args->flags);
  if (input == NULL)
    _exit (1);
  n = args->headers_only ? 0 : tracecmd_buffer_instances (input);
  for (int i = 0; i < n; i++)
    {
      struct tracecmd_input *instance = tracecmd_buffer_instance_handle (input, i);
      if (instance == NULL)
        _exit (1);
    }
}

static gboolean
probe_in_child (StrataFtraceDatSource  *self,
                const char             *path,
                int                     flags,
                gboolean                headers_only,
                GError                **error)
{
  const char *name = self->layout->display_name;
  ProbeArgs args = { path, flags, headers_only };
  int status = 0;

  switch (strata_child_probe_run (probe_headers, &args, PROBE_TIMEOUT_MS, &status))
    {
    case STRATA_CHILD_PROBE_HUNG:
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset 0: libtracecmd did not finish reading the "
                   "file's headers (damaged event formats or options)", name);
      return FALSE;
    case STRATA_CHILD_PROBE_NO_CHILD:
      return TRUE;  /* no sandbox to be had: go on without it */
    case STRATA_CHILD_PROBE_EXITED:
    default:
      break;
    }

  if (WIFSIGNALED (status) || (WIFEXITED (status) && WEXITSTATUS (status) > 1))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset 0: libtracecmd crashed (%s) reading the file's "
                   "headers: its event formats or options are damaged", name,
                   WIFSIGNALED (status) ? g_strsignal (WTERMSIG (status)) : "exit status");
      return FALSE;
    }

  if (WIFEXITED (status) && WEXITSTATUS (status) == 1)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset 0: libtracecmd could not read the file's "
                   "headers or the start of its CPU data", name);
      return FALSE;
    }

  return TRUE;
}

/* The CPU numbered @cpu in @buffer, or NULL when the buffer has no data
 * for it. libtracecmd indexes a handle's CPUs by their numbers. */
static const StrataFtraceDatCpu *
buffer_cpu (const StrataFtraceDatBuffer *buffer,
            guint                        cpu)
{
  for (guint i = 0; i < buffer->cpus->len; i++)
    {
      const StrataFtraceDatCpu *c = &g_array_index (buffer->cpus, StrataFtraceDatCpu, i);

      if (c->cpu == cpu)
        return c;
    }

  return NULL;
}

/* A kbuffer that reads the file's pages as libtracecmd's would. */
static struct kbuffer *
new_kbuffer (StrataFtraceDatSource *self)
{
  struct kbuffer *kbuf;

  kbuf = kbuffer_alloc (self->layout->commit_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
                        tep_is_file_bigendian (self->tep) ? KBUFFER_ENDIAN_BIG
                                                           : KBUFFER_ENDIAN_LITTLE);
  if (kbuf == NULL)
    g_error ("out of memory");
  if (tep_is_old_format (self->tep))
    kbuffer_set_old_format (kbuf);

  return kbuf;
}

/* Sets @stream up to read @cpu's pages itself. A record's offset is where
 * libtracecmd says it is: its file offset, or with compression an offset in
 * the space libtracecmd lays the decompressed CPUs out in one after the
 * other, page-aligned, from @virtual_base on (there is no file offset of a
 * compressed record). A @cut stream reads only the whole pages in the file. */
static void
stream_init_direct (StrataFtraceDatSource       *self,
                    Stream                      *stream,
                    const StrataFtraceDatBuffer *buffer,
                    const StrataFtraceDatCpu    *cpu,
                    guint64                      virtual_base,
                    gboolean                     cut)
{
  StrataFtraceDatLayout *layout = self->layout;

  stream->kbuf = new_kbuffer (self);
  stream->cut = cut;
  if (cpu == NULL || cpu->size == 0)
    return;

  if (buffer->compressed)
    {
      if (cpu->n_chunks > 0)
        {
          stream->chunks = &g_array_index (layout->chunks, StrataFtraceDatChunk, cpu->first_chunk);
          stream->n_chunks = cpu->n_chunks;
          for (guint i = 0; i < cpu->n_chunks; i++)
            self->unread_chunk_bytes += 8 + (guint64) stream->chunks[i].csize;
        }
      self->has_chunks = TRUE;
      stream->page_offset = virtual_base;
      return;
    }

  stream->data_offset = cpu->offset;
  stream->page_offset = cpu->offset;
  stream->data_end = cpu->offset + cpu->size;
  if (cut)
    {
      guint64 end = MIN (stream->data_end, layout->file_size);

      end = end < cpu->offset ? cpu->offset : end;
      stream->data_end = cpu->offset + (end - cpu->offset) / layout->page_size * layout->page_size;
    }
}

/* The span hint ---------------------------------------------------------- */

/* How far back from the end of a CPU's data its last event is looked for,
 * past empty or damaged pages: a few chunks with compression, this many
 * pages without. Further back than that, the hint is left unset rather
 * than the open made to read much of the file. */
#define SPAN_MAX_CHUNKS 4
#define SPAN_MAX_PAGES  256

/* What the CPUs' two ends say of the file's span, gathered at open. */
typedef struct
{
  gint64   first;
  gint64   last;
  gint64   cut_last;   /* the earliest last event of a cut CPU */
  gboolean unknown;    /* a CPU's end was not found */
} SpanHint;

/* The time of the last event of @page, of which @avail bytes are the
 * CPU's data, read as stream_read_next() reads it, with the same checks.
 * FALSE if it has no event or would stop the reader as damaged. */
static gboolean
page_last_ts (StrataFtraceDatSource *self,
              struct kbuffer        *kbuf,
              guint8                *page,
              gsize                  avail,
              gint64                *last)
{
  StrataFtraceDatLayout *layout = self->layout;
  guint header = 8 + layout->commit_size;
  unsigned long long ts;
  gboolean found = FALSE;
  guint64 commit;
  guint8 *data;

  if (!strata_ftrace_dat_layout_check_page (layout, page, &commit) ||
      header + commit > avail ||
      kbuffer_load_subbuffer (kbuf, page) < 0)
    return FALSE;

  while ((data = kbuffer_read_event (kbuf, &ts)) != NULL)
    {
      int size = kbuffer_event_size (kbuf);

      if (data < page || size < 0 || (gsize) (data - page) + (gsize) size > header + commit)
        return FALSE;
      *last = (gint64) ts;
      found = TRUE;
      kbuffer_next_event (kbuf, NULL);
    }

  return found;
}

/* The time of the last event of @stream's CPU, from its last pages (with
 * compression, its last chunk inflated), read with a kbuffer and buffers
 * of its own so that the stream's reading, not begun yet, is untouched.
 * FALSE if no event is found near the end of the CPU's data. */
static gboolean
stream_last_ts (StrataFtraceDatSource *self,
                const Stream          *stream,
                gint64                *last)
{
  gsize page_size = self->layout->page_size;
  g_autofree guint8 *buf = NULL;
  struct kbuffer *kbuf;
  gboolean found = FALSE;

  g_assert (!stream->started);

  kbuf = new_kbuffer (self);

  if (stream->chunks != NULL)
    {
      for (guint i = stream->n_chunks; i > 0 && stream->n_chunks - i < SPAN_MAX_CHUNKS; i--)
        {
          const StrataFtraceDatChunk *chunk = &stream->chunks[i - 1];
          g_autoptr(GError) error = NULL;

          /* The layout walk bounded usize and made it whole pages. */
          g_free (buf);
          buf = g_malloc (chunk->usize + PAGE_SLACK);
          if (!strata_ftrace_dat_layout_inflate (self->layout, self->fd, chunk, stream->cpu,
                                                 i - 1, &self->inflater, buf, &error))
            continue;
          memset (buf + chunk->usize, 0, PAGE_SLACK);

          for (gsize o = chunk->usize; o >= page_size && !found; o -= page_size)
            found = page_last_ts (self, kbuf, buf + o - page_size, page_size, last);
          if (found)
            break;
        }
    }
  else if (stream->data_end > stream->data_offset)
    {
      guint64 n_pages = (stream->data_end - stream->data_offset + page_size - 1) / page_size;

      buf = g_malloc (page_size + PAGE_SLACK);
      for (guint64 k = n_pages; k > 0 && n_pages - k < SPAN_MAX_PAGES && !found; k--)
        {
          guint64 at = stream->data_offset + (k - 1) * page_size;
          gsize avail = MIN (page_size, stream->data_end - at);
          int errsv = 0;

          memset (buf, 0, page_size + PAGE_SLACK);
          if (!strata_file_read_exact (self->fd, buf, avail, at, &errsv))
            break;
          found = page_last_ts (self, kbuf, buf, avail, last);
        }
    }

  kbuffer_free (kbuf);

  return found;
}

static void
span_hint_init (SpanHint *span)
{
  span->first = G_MAXINT64;
  span->last = G_MININT64;
  span->cut_last = G_MAXINT64;
  span->unknown = FALSE;
}

/* Takes in @stream once its first record has been read at open, with
 * what stream_last_ts() found before that. */
static void
span_hint_add (SpanHint     *span,
               const Stream *stream,
               gboolean      have_last,
               gint64        last)
{
  /* A CPU without events was read to its end at open, unless it was cut
   * before its first whole page, which stops all reading. */
  if (stream->next == NULL)
    {
      span->unknown |= stream->cut;
      return;
    }

  if (!have_last)
    {
      span->unknown = TRUE;
      return;
    }

  span->first = MIN (span->first, (gint64) stream->next->ts);
  span->last = MAX (span->last, last);
  /* Reading stops at the end of the first cut CPU's pages: nothing
   * later than its last event is read. */
  if (stream->cut)
    span->cut_last = MIN (span->cut_last, last);
}

static void
span_hint_apply (const SpanHint   *span,
                 StrataSourceInfo *info)
{
  gint64 last = MIN (span->last, span->cut_last);

  /* Times that run backwards are no span to hint at. */
  if (span->unknown || span->first == G_MAXINT64 || last < span->first)
    return;

  info->span_first = span->first;
  info->span_last = last;
}

/* The layout's buffer for libtracecmd's handle @index: 0 is the top
 * buffer, the others its instances in the order of their options. */
static const StrataFtraceDatBuffer *
layout_buffer_for_handle (StrataFtraceDatLayout *layout,
                          guint                  index,
                          const char            *name)
{
  guint seen = 0;

  for (guint i = 0; i < layout->buffers->len; i++)
    {
      const StrataFtraceDatBuffer *buffer = g_ptr_array_index (layout->buffers, i);
      gboolean top = buffer->name[0] == '\0';

      if (index == 0 && top)
        return buffer;
      if (index > 0 && !top && ++seen == index)
        return g_strcmp0 (buffer->name, name) == 0 ? buffer : NULL;
    }

  return NULL;
}

/* Only a file whose options make libtracecmd change the timestamps
 * (timestamp_calc() in trace-input.c) needs libtracecmd to read the data;
 * kbuffer's timestamps are libtracecmd's for every other one. */
static gboolean
can_read_directly (StrataFtraceDatSource *self,
                   GPtrArray             *inputs)
{
  if (self->layout->adjusts_time || tep_get_header_timestamp_size (self->tep) != 8)
    return FALSE;

  for (guint i = 0; i < inputs->len; i++)
    {
      const char *name = i == 0 ? "" : tracecmd_buffer_instance_name (self->input, i - 1);

      if (layout_buffer_for_handle (self->layout, i, name) == NULL)
        return FALSE;
    }

  return TRUE;
}

/* Reading through libtracecmd decompresses chunks and hands their pages to
 * kbuffer unchecked, so with compression every page is checked at open. */
static gboolean
check_compressed_pages (StrataFtraceDatSource  *self,
                        GError                **error)
{
  StrataFtraceDatLayout *layout = self->layout;
  g_autofree guint8 *pages = NULL;
  gsize pages_size = 0;

  for (guint b = 0; b < layout->buffers->len; b++)
    {
      StrataFtraceDatBuffer *buffer = g_ptr_array_index (layout->buffers, b);

      for (guint c = 0; buffer->compressed && c < buffer->cpus->len; c++)
        {
          const StrataFtraceDatCpu *cpu = &g_array_index (buffer->cpus, StrataFtraceDatCpu, c);

          for (guint i = 0; i < cpu->n_chunks; i++)
            {
              const StrataFtraceDatChunk *chunk = &g_array_index (layout->chunks, StrataFtraceDatChunk,
                                                                  cpu->first_chunk + i);

              if (pages_size < chunk->usize)
                {
                  g_free (pages);
                  pages_size = chunk->usize;
                  pages = g_malloc (pages_size);
                }
              if (!strata_ftrace_dat_layout_inflate (layout, self->fd, chunk, cpu->cpu, i,
                                                     &self->inflater, pages, error))
                return FALSE;

              for (guint32 o = 0; o < chunk->usize; o += layout->page_size)
                {
                  guint64 commit;

                  if (!strata_ftrace_dat_layout_check_page (layout, pages + o, &commit))
                    {
                      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                                   "%s: offset %" G_GUINT64_FORMAT " (byte %u of decompressed "
                                   "chunk %u of CPU %u): page claims %" G_GUINT64_FORMAT
                                   " bytes of events in a %u-byte page",
                                   layout->display_name, chunk->offset - 8, o, i, cpu->cpu,
                                   commit, layout->page_size);
                      return FALSE;
                    }
                }
            }
        }
    }

  return TRUE;
}

/* The kernel's long, which the commit word of every page is, as the
 * header_page format says (libtracecmd takes it from there too). */
static void
note_commit_size (StrataFtraceDatSource *self)
{
  int size = tep_get_header_page_size (self->tep);

  if (size == 4 || size == 8)
    self->layout->commit_size = size;
}

/* The buffer instances' handles, after the top buffer's (a NULL in
 * @inputs), and their names in the info. */
static gboolean
open_instances (StrataFtraceDatSource  *self,
                GPtrArray              *inputs,
                GError                **error)
{
  StrataSourceInfo *info = strata_source_get_info_mutable (STRATA_SOURCE (self));
  int n_instances = tracecmd_buffer_instances (self->input);

  for (int i = 0; i < n_instances && i < G_MAXUINT16 - 1; i++)
    {
      struct tracecmd_input *instance = tracecmd_buffer_instance_handle (self->input, i);
      const char *name = tracecmd_buffer_instance_name (self->input, i);

      if (instance == NULL)
        {
          g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                       "%s: offset 0: libtracecmd could not read buffer instance \"%s\"",
                       self->layout->display_name, name ? name : "?");
          return FALSE;
        }
      if (tracecmd_get_tep (instance) != self->tep)
        {
          tracecmd_close (instance);
          g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED,
                       "%s: buffer instance \"%s\" has event formats of its own",
                       self->layout->display_name, name ? name : "?");
          return FALSE;
        }
      g_ptr_array_add (inputs, instance);
      g_ptr_array_add (info->instances, g_strdup (name ? name : ""));
    }

  return TRUE;
}

/* A stream read through libtracecmd (its handle and index set): the
 * uncompressed pages checked ahead of it, its first record read. */
static gboolean
stream_init_library (StrataFtraceDatSource  *self,
                     Stream                 *stream,
                     guint                   instance,
                     gboolean                uncompressed,
                     GHashTable             *known,
                     GError                **error)
{
  int c = stream->index;

  if (uncompressed)
    {
      const StrataFtraceDatCpu *lc = layout_cpu (self->layout, instance, c);

      if (lc == NULL)
        {
          g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                       "%s: offset 0: libtracecmd sees CPUs the file's "
                       "buffer descriptions do not have",
                       self->layout->display_name);
          return FALSE;
        }
      stream->check_pages = TRUE;
      stream->cpu = lc->cpu;
      stream->data_offset = lc->offset;
      stream->data_end = lc->offset + lc->size;
      stream->checked_until = lc->offset;
      /* libtracecmd loaded the first page at open, in the probe child
       * too; the pages after it are checked as it goes. */
      if (!stream_check_ahead (self, stream, lc->offset, error))
        return FALSE;
    }

  stream->next = tracecmd_read_data (stream->handle, c);
  stream->cpu = stream->next ? (guint) stream->next->cpu : (guint) c;
  stream->stats_known = g_hash_table_contains (known, GINT_TO_POINTER ((gint) stream->cpu));
  return TRUE;
}

static gboolean
open_with_library (StrataFtraceDatSource  *self,
                   const char             *path,
                   GError                **error)
{
  StrataSourceInfo *info = strata_source_get_info_mutable (STRATA_SOURCE (self));
  gboolean uncompressed = g_strcmp0 (self->layout->compression, "none") == 0;
  guint n_streams = 0;
  GPtrArray *inputs;
  gboolean direct;
  guint64 top_virtual_end = self->layout->page_size;
  SpanHint span;
  gboolean have_last;
  gint64 last = 0;

  span_hint_init (&span);

  if (!probe_in_child (self, path, TRACECMD_FL_LOAD_NO_PLUGINS |
                                    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS, FALSE, error))
    return FALSE;

  self->input = tracecmd_open (path, TRACECMD_FL_LOAD_NO_PLUGINS |
                                     TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
  if (self->input == NULL)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset 0: libtracecmd could not read the file's "
                   "headers or the start of its CPU data",
                   self->layout->display_name);
      return FALSE;
    }

  self->tep = tracecmd_get_tep (self->input);
  if (self->tep == NULL)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset 0: the file has no event formats",
                   self->layout->display_name);
      return FALSE;
    }

  if (!resolve_common_type (self, error))
    return FALSE;
  note_commit_size (self);

  inputs = g_ptr_array_new_with_free_func (close_input);
  self->instance_inputs = inputs;
  g_ptr_array_add (inputs, NULL);

  if (!open_instances (self, inputs, error))
    return FALSE;

  for (guint i = 0; i < inputs->len; i++)
    {
      struct tracecmd_input *handle = i == 0 ? self->input : g_ptr_array_index (inputs, i);
      n_streams += MAX (tracecmd_cpus (handle), 0);
    }

  direct = can_read_directly (self, inputs);
  if (!direct && !uncompressed && !check_compressed_pages (self, error))
    return FALSE;

  self->streams = g_new0 (Stream, MAX (n_streams, 1));
  self->heap = g_new0 (guint, MAX (n_streams, 1));

  for (guint i = 0; i < inputs->len; i++)
    {
      struct tracecmd_input *handle = i == 0 ? self->input : g_ptr_array_index (inputs, i);
      g_autoptr(GHashTable) known = g_hash_table_new (NULL, NULL);
      int cpus = tracecmd_cpus (handle);
      /* libtracecmd lays out the decompressed CPUs of an instance after
       * those of the top buffer, whose handle it copies. */
      guint64 virtual_end = top_virtual_end;

      note_cpu_stats (self, tracecmd_get_cpustats (handle), known);

      for (int c = 0; c < cpus; c++)
        {
          guint s = self->n_streams++;
          Stream *stream = &self->streams[s];

          stream->handle = handle;
          stream->index = c;
          stream->instance = i;

          if (direct)
            {
              const char *name = i == 0 ? "" : tracecmd_buffer_instance_name (self->input, i - 1);
              const StrataFtraceDatBuffer *buffer = layout_buffer_for_handle (self->layout, i, name);
              const StrataFtraceDatCpu *lc = buffer_cpu (buffer, c);

              stream->cpu = c;
              stream->stats_known = g_hash_table_contains (known, GINT_TO_POINTER (c));
              stream_init_direct (self, stream, buffer, lc, virtual_end, FALSE);
              if (buffer->compressed && lc != NULL && lc->size > 0)
                virtual_end = (virtual_end + lc->usize + self->layout->page_size - 1) /
                              self->layout->page_size * self->layout->page_size;
              have_last = stream_last_ts (self, stream, &last);
              if (!stream_read_next (self, stream, error))
                return FALSE;
              span_hint_add (&span, stream, have_last, last);
              if (stream->next != NULL)
                heap_push (self, s);
              continue;
            }

          if (!stream_init_library (self, stream, i, uncompressed, known, error))
            return FALSE;
          if (stream->next != NULL)
            heap_push (self, s);
        }

      if (i == 0)
        top_virtual_end = virtual_end;
    }

  /* Read through libtracecmd, the times are its adjusted ones, known only
   * as it reads: no hint then. */
  if (direct)
    span_hint_apply (&span, info);

  info->clock = g_strdup (tracecmd_get_trace_clock (self->input));
  info->n_cpus = MAX ((guint) MAX (tracecmd_cpus (self->input), 0), self->layout->n_cpus);
  fill_uname (info, tracecmd_get_uname (self->input));

  return TRUE;
}

/* A version 6 file cut inside its CPU data: libtracecmd refuses it (and
 * 3.1.6 crashes while refusing), so its headers go through libtracecmd and
 * the pages that are whole are read here, with kbuffer, as libtracecmd
 * would read them. The cut is reported after the last of their events. */
static gboolean
open_salvage (StrataFtraceDatSource  *self,
              const char             *path,
              GError                **error)
{
  StrataFtraceDatLayout *layout = self->layout;
  StrataSourceInfo *info = strata_source_get_info_mutable (STRATA_SOURCE (self));
  g_autoptr(GHashTable) known = g_hash_table_new (NULL, NULL);
  guint n_streams = 0;
  SpanHint span;
  gboolean have_last;
  gint64 last = 0;

  span_hint_init (&span);

  if (!probe_in_child (self, path, TRACECMD_FL_LOAD_NO_PLUGINS |
                                    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS, TRUE, error))
    return FALSE;

  self->input = tracecmd_open_head (path, TRACECMD_FL_LOAD_NO_PLUGINS |
                                          TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
  if (self->input == NULL || (self->tep = tracecmd_get_tep (self->input)) == NULL)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset 0: libtracecmd could not read the file's headers",
                   layout->display_name);
      return FALSE;
    }

  if (!resolve_common_type (self, error))
    return FALSE;
  note_commit_size (self);

  note_cpu_stats (self, tracecmd_get_cpustats (self->input), known);

  for (guint i = 0; i < layout->buffers->len; i++)
    n_streams += ((StrataFtraceDatBuffer *) g_ptr_array_index (layout->buffers, i))->cpus->len;

  self->streams = g_new0 (Stream, MAX (n_streams, 1));
  self->heap = g_new0 (guint, MAX (n_streams, 1));

  for (guint i = 0; i < layout->buffers->len && i < G_MAXUINT16; i++)
    {
      StrataFtraceDatBuffer *buffer = g_ptr_array_index (layout->buffers, i);

      if (i > 0)
        g_ptr_array_add (info->instances, g_strdup (buffer->name));

      for (guint c = 0; c < buffer->cpus->len; c++)
        {
          const StrataFtraceDatCpu *cpu = &g_array_index (buffer->cpus, StrataFtraceDatCpu, c);
          guint s = self->n_streams++;
          Stream *stream = &self->streams[s];

          stream->instance = i;
          stream->cpu = cpu->cpu;
          stream->index = c;
          /* The stats of a version 6 file are the top buffer's. */
          stream->stats_known = i == 0 &&
                                g_hash_table_contains (known, GINT_TO_POINTER ((gint) cpu->cpu));
          stream_init_direct (self, stream, buffer, cpu, 0,
                              cpu->size > 0 && (cpu->offset > layout->file_size ||
                                                cpu->size > layout->file_size - cpu->offset));

          have_last = stream_last_ts (self, stream, &last);
          if (!stream_read_next (self, stream, error))
            return FALSE;
          span_hint_add (&span, stream, have_last, last);
          if (stream->next != NULL)
            heap_push (self, s);
        }
    }

  /* A CPU cut before its first whole page: no time is known to be complete. */
  for (guint s = 0; s < self->n_streams; s++)
    if (self->streams[s].cut && self->streams[s].next == NULL)
      self->heap_len = 0;

  span_hint_apply (&span, info);

  info->clock = g_strdup (tracecmd_get_trace_clock (self->input));
  info->n_cpus = layout->n_cpus;
  fill_uname (info, tracecmd_get_uname (self->input));
  self->deferred_error = g_error_copy (layout->data_truncated);

  return TRUE;
}

static gboolean
strata_ftrace_dat_source_open (StrataSource  *source,
                               const char    *path,
                               GError       **error)
{
  StrataFtraceDatSource *self = STRATA_FTRACE_DAT_SOURCE (source);
  StrataSourceInfo *info = strata_source_get_info_mutable (source);
  g_autofree char *display_name = g_path_get_basename (path);

  /* libtracecmd and libtraceevent print their complaints to stderr; the
   * caller gets ours as GErrors instead. */
  tracecmd_set_loglevel (TEP_LOG_NONE);
  tep_set_loglevel (TEP_LOG_NONE);

  self->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (self->fd < 0)
    {
      int errsv = errno;
      g_set_error (error, STRATA_ERROR,
                   errsv == ENOENT ? STRATA_ERROR_NOT_FOUND : STRATA_ERROR_IO,
                   "%s: %s", display_name, g_strerror (errsv));
      return FALSE;
    }

  self->layout = strata_ftrace_dat_layout_new ();
  if (!strata_ftrace_dat_layout_read (self->layout, self->fd, display_name, error))
    return FALSE;

  if (self->layout->latency)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED,
                   "%s: the file holds a latency tracer's text output, "
                   "not per-CPU event data", display_name);
      return FALSE;
    }

  info->format = g_strdup ("trace.dat");
  info->version = g_strdup_printf ("%u", self->layout->version);
  info->compression = g_strdup (self->layout->compression);

  self->events = g_hash_table_new_full (NULL, NULL, NULL, event_info_free);
  self->event_table = g_ptr_array_new ();
  self->native_order = -1;
  self->strings = strata_source_get_strings (STRATA_SOURCE (self));
  self->comms = strata_comm_cache_new (self->strings);
  self->lost_name = strata_string_pool_intern (strata_source_get_strings (source),
                                               strata_event_type_to_string (STRATA_EVENT_LOST));

  if (self->layout->data_truncated != NULL)
    return open_salvage (self, path, error);

  return open_with_library (self, path, error);
}

struct tracecmd_input *
strata_ftrace_dat_source_get_handle (StrataFtraceDatSource *self)
{
  g_return_val_if_fail (STRATA_IS_FTRACE_DAT_SOURCE (self), NULL);

  if (self->layout == NULL || self->layout->data_truncated != NULL)
    return NULL;
  return self->input;
}

/* How far into the file's bytes the reader is, for a load's progress: the
 * event offsets of compressed data are not file offsets, so a compressed
 * file counts the chunks gone through so far (whichever CPU they are of;
 * the one each CPU is in by the share of its pages behind the reader) and
 * all it read at open; an uncompressed one says 0, its events' offsets
 * being the measure. */
static guint64
strata_ftrace_dat_source_get_file_position (StrataSource *source)
{
  StrataFtraceDatSource *self = STRATA_FTRACE_DAT_SOURCE (source);
  guint64 unread;

  if (!self->has_chunks || self->layout == NULL)
    return 0;

  /* A chunk in hand counts for the share of its pages not gone through
   * yet: a chunk is most of a small file. */
  unread = self->unread_chunk_bytes;
  for (guint i = 0; i < self->n_streams; i++)
    {
      const Stream *stream = &self->streams[i];

      if (stream->chunks != NULL && stream->next_chunk > 0 && stream->buf_len > 0)
        {
          guint64 bytes = 8 + (guint64) stream->chunks[stream->next_chunk - 1].csize;
          guint64 left = stream->buf_len - MIN (stream->page_pos, stream->buf_len);

          unread += (guint64) ((double) bytes * left / stream->buf_len);
        }
    }
  return self->layout->file_size - MIN (unread, self->layout->file_size);
}

static void
strata_ftrace_dat_source_class_init (StrataFtraceDatSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  StrataSourceClass *source_class = STRATA_SOURCE_CLASS (klass);

  object_class->finalize = strata_ftrace_dat_source_finalize;

  source_class->probe = strata_ftrace_dat_source_probe;
  source_class->open = strata_ftrace_dat_source_open;
  source_class->read_batch = strata_ftrace_dat_source_read_batch;
  source_class->get_file_position = strata_ftrace_dat_source_get_file_position;
  strata_ftrace_dat_records_class_init (source_class);
}

static void
strata_ftrace_dat_source_init (StrataFtraceDatSource *self)
{
  self->fd = -1;
}

void
strata_plugin_ftrace_dat_register (void)
{
  g_io_extension_point_implement (STRATA_SOURCE_EXTENSION_POINT,
                                  STRATA_TYPE_FTRACE_DAT_SOURCE,
                                  "ftrace-dat", 100);
}
