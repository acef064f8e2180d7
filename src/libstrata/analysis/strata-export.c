/* strata-export.c
 *
 * See strata-export.h. Times in the Trace Event Format are µs; they are
 * written as integers with three decimals (exactly the ns), not through
 * a double. Rows are written one after the other, each row's activities
 * read from the raw store for the range alone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-error.h"
#include "strata-export.h"
#include "strata-trace-lookup.h"
#include "strata-wakeup.h"

typedef struct
{
  StrataTrace         *trace;
  const StrataChannel *channels;
  guint                n_channels;
  GBufferedOutputStream *out;
  GCancellable        *cancellable;
  GError              *error;
  gboolean             first;      /* no JSON event written yet */
  GString             *line;
} Writer;

static gboolean
flush_line (Writer *w)
{
  if (w->error == NULL &&
      !g_output_stream_write_all (G_OUTPUT_STREAM (w->out), w->line->str, w->line->len,
                                  NULL, w->cancellable, &w->error))
    return FALSE;
  g_string_truncate (w->line, 0);
  return w->error == NULL;
}

static void
append_json_string (GString    *s,
                    const char *text)
{
  g_string_append_c (s, '"');
  for (const guchar *p = (const guchar *) (text != NULL ? text : ""); *p; p++)
    {
      if (*p == '"' || *p == '\\')
        {
          g_string_append_c (s, '\\');
          g_string_append_c (s, *p);
        }
      else if (*p < 0x20)
        g_string_append_printf (s, "\\u%04x", *p);
      else
        g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void
append_csv_string (GString    *s,
                   const char *text)
{
  if (text == NULL)
    text = "";
  if (strpbrk (text, ",\"\r\n") == NULL)
    {
      g_string_append (s, text);
      return;
    }
  g_string_append_c (s, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (s, '"');
      g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
}

static void
append_us (GString *s,
           gint64   ns)
{
  if (ns < 0)
    {
      g_string_append_c (s, '-');
      ns = -ns;
    }
  g_string_append_printf (s, "%" G_GINT64_FORMAT ".%03d", ns / 1000, (int) (ns % 1000));
}

static const char *
name_of (Writer  *w,
         guint32  id)
{
  const char *s = id != STRATA_STRING_NONE ? strata_trace_get_string (w->trace, id) : NULL;
  return s != NULL ? s : "";
}

/* The track of a row: (pid, tid). */
static void
track_of (Writer              *w,
          const StrataChannel *ch,
          gint64              *pid,
          gint64              *tid)
{
  if (ch->kind == STRATA_CHANNEL_CPU)
    {
      *pid = STRATA_EXPORT_CPU_PID + ch->instance;
      *tid = ch->id;
    }
  else
    {
      *tid = ch->id;
      *pid = ch->tgid > 0 ? ch->tgid : ch->id;
    }
}

static const char *
slice_name (Writer               *w,
            const StrataActivity *a)
{
  switch (a->kind)
    {
    case STRATA_ACTIVITY_STATE:
      return strata_task_state_to_string (a->state);
    case STRATA_ACTIVITY_IDLE:
      return "idle";
    case STRATA_ACTIVITY_UNKNOWN:
      return "unknown";
    default:
      {
        const char *label = name_of (w, a->label);

        return label[0] != '\0' ? label : strata_activity_kind_to_string (a->kind);
      }
    }
}

static void
json_begin (Writer *w)
{
  g_string_append (w->line, w->first ? "\n" : ",\n");
  w->first = FALSE;
}

static gboolean
json_metadata (Writer     *w,
               const char *what,
               gint64      pid,
               gint64      tid,
               const char *name)
{
  json_begin (w);
  g_string_append_printf (w->line, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" G_GINT64_FORMAT
                          ",\"tid\":%" G_GINT64_FORMAT ",\"args\":{\"name\":", what, pid, tid);
  append_json_string (w->line, name);
  g_string_append (w->line, "}}");
  return flush_line (w);
}

static gboolean
json_activity (Writer               *w,
               const StrataActivity *a,
               gint64                pid,
               gint64                tid)
{
  json_begin (w);
  g_string_append (w->line, "{\"ph\":");
  g_string_append (w->line, strata_activity_is_instant (a) ? "\"i\",\"s\":\"t\"" : "\"X\"");
  g_string_append (w->line, ",\"name\":");
  append_json_string (w->line, slice_name (w, a));
  g_string_append_printf (w->line, ",\"cat\":\"%s\",\"pid\":%" G_GINT64_FORMAT ",\"tid\":%" G_GINT64_FORMAT
                          ",\"ts\":", strata_activity_kind_to_string (a->kind), pid, tid);
  append_us (w->line, a->start);
  if (!strata_activity_is_instant (a))
    {
      g_string_append (w->line, ",\"dur\":");
      append_us (w->line, a->end - a->start);
    }
  g_string_append (w->line, ",\"args\":{");
  if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_RUNNING)
    g_string_append_printf (w->line, "\"cpu\":%d", a->arg);
  else if (a->kind == STRATA_ACTIVITY_STATE && a->state == STRATA_TASK_STATE_WOKEN)
    g_string_append_printf (w->line, "\"woken_by\":%d", a->arg);
  else if (a->kind == STRATA_ACTIVITY_TASK)
    g_string_append_printf (w->line, "\"tid\":%d", a->arg);
  else if (a->kind == STRATA_ACTIVITY_WAKEUP)
    g_string_append_printf (w->line, "\"waker\":%d", a->arg);
  else if (a->kind == STRATA_ACTIVITY_IRQ || a->kind == STRATA_ACTIVITY_SOFTIRQ)
    g_string_append_printf (w->line, "\"vector\":%d", a->arg);
  g_string_append (w->line, "}}");
  return flush_line (w);
}

static gboolean
csv_activity (Writer               *w,
              const StrataChannel  *ch,
              const StrataActivity *a)
{
  g_string_append_printf (w->line, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%s,%d,%u,%u,%d,",
                          a->start, a->end, strata_channel_kind_to_string (ch->kind), ch->id,
                          ch->instance, ch->generation, ch->tgid);
  append_csv_string (w->line, name_of (w, ch->name));
  g_string_append_printf (w->line, ",%s,%s,", strata_activity_kind_to_string (a->kind),
                          a->kind == STRATA_ACTIVITY_STATE ? strata_task_state_to_string (a->state) : "");
  append_csv_string (w->line, name_of (w, a->label));
  g_string_append_printf (w->line, ",%d,%u\n", a->arg, a->flags);
  return flush_line (w);
}

/* A wakeup as a flow: from where it ran (the waker's thread, or for an
 * interrupt or the idle task the waking CPU) to the woken thread's next
 * slice, its run. */
static gboolean
json_flow (Writer             *w,
           const StrataWakeup *wk,
           guint64             id)
{
  const StrataChannel *from = NULL;
  gint64 pid, tid;

  if (wk->waker != STRATA_CHANNEL_NONE && !strata_wakeup_is_interrupt (wk))
    from = &w->channels[wk->waker];
  else if (wk->cpu_channel != STRATA_CHANNEL_NONE)
    from = &w->channels[wk->cpu_channel];
  if (from == NULL)
    return TRUE;

  track_of (w, from, &pid, &tid);
  json_begin (w);
  g_string_append_printf (w->line, "{\"ph\":\"s\",\"id\":%" G_GUINT64_FORMAT ",\"name\":\"wakeup\","
                          "\"cat\":\"wakeup\",\"pid\":%" G_GINT64_FORMAT ",\"tid\":%" G_GINT64_FORMAT
                          ",\"ts\":", id, pid, tid);
  append_us (w->line, wk->woken_at);
  g_string_append (w->line, "}");
  track_of (w, &w->channels[wk->woken], &pid, &tid);
  json_begin (w);
  g_string_append_printf (w->line, "{\"ph\":\"f\",\"id\":%" G_GUINT64_FORMAT ",\"name\":\"wakeup\","
                          "\"cat\":\"wakeup\",\"pid\":%" G_GINT64_FORMAT ",\"tid\":%" G_GINT64_FORMAT
                          ",\"ts\":", id, pid, tid);
  append_us (w->line, wk->running_at);
  g_string_append (w->line, "}");
  return flush_line (w);
}

gboolean
strata_export_format_from_name (const char         *name,
                                StrataExportFormat *format)
{
  if (g_strcmp0 (name, "chrome-json") == 0 || g_strcmp0 (name, "json") == 0)
    *format = STRATA_EXPORT_CHROME_JSON;
  else if (g_strcmp0 (name, "csv") == 0)
    *format = STRATA_EXPORT_CSV;
  else
    return FALSE;
  return TRUE;
}

/**
 * strata_export_write:
 * @from: the range's start
 * @to: its end (excluded)
 * @out: where to write
 *
 * Writes the activities of every row that overlap [@from, @to), clipped
 * to it (a clipped side flagged CONTINUES_BEFORE or _AFTER), in @format.
 *
 * Returns: FALSE with @error set when writing failed or was cancelled
 */
gboolean
strata_export_write (StrataTrace         *trace,
                     StrataExportFormat   format,
                     gint64               from,
                     gint64               to,
                     GOutputStream       *out,
                     GCancellable        *cancellable,
                     GError             **error)
{
  g_autoptr(GOutputStream) buffered = g_buffered_output_stream_new_sized (out, 1 << 16);
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  g_autoptr(GArray) wakeups = g_array_new (FALSE, FALSE, sizeof (StrataWakeup));
  g_autoptr(StrataThreadMap) threads = NULL;
  g_autoptr(GHashTable) named = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GString) line = g_string_new (NULL);
  Writer w = { 0 };
  guint64 flow_id = 0;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (out), FALSE);

  w.trace = trace;
  w.channels = strata_trace_get_channels (trace, &w.n_channels);
  w.out = G_BUFFERED_OUTPUT_STREAM (buffered);
  w.cancellable = cancellable;
  w.first = TRUE;
  w.line = line;
  threads = strata_thread_map_new (trace);

  if (format == STRATA_EXPORT_CSV)
    g_string_append (line, "start_ns,end_ns,row_kind,row_id,instance,generation,tgid,row_name,"
                           "kind,state,label,arg,flags\n");
  else
    g_string_append (line, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
  flush_line (&w);

  for (guint32 c = 0; c < w.n_channels && w.error == NULL; c++)
    {
      const StrataChannel *ch = &w.channels[c];
      gint64 pid, tid;

      if (ch->kind == STRATA_CHANNEL_PROCESS)
        continue;
      g_array_set_size (found, 0);
      strata_trace_query_channel (trace, c, from, to, found);
      track_of (&w, ch, &pid, &tid);

      if (format == STRATA_EXPORT_CHROME_JSON && found->len > 0)
        {
          gint64 key = pid;

          /* Names: a process's once, a track's once (a tid used twice
           * in the range is one track, named after its last use). */
          if (!g_hash_table_contains (named, &key))
            {
              const char *pname = ch->kind == STRATA_CHANNEL_CPU ? "CPUs" : NULL;

              if (pname == NULL && ch->parent != STRATA_CHANNEL_NONE)
                pname = name_of (&w, w.channels[ch->parent].name);
              if (pname == NULL || pname[0] == '\0')
                pname = name_of (&w, ch->name);
              g_hash_table_add (named, g_memdup2 (&key, sizeof key));
              json_metadata (&w, "process_name", pid, 0, pname);
            }
          json_metadata (&w, "thread_name", pid, tid, name_of (&w, ch->name));
        }

      for (guint i = 0; i < found->len && w.error == NULL; i++)
        {
          StrataActivity a = g_array_index (found, StrataActivity, i);

          if (!strata_activity_overlaps (&a, from, to))
            continue;
          strata_activity_clip (&a, from, to);
          if (format == STRATA_EXPORT_CSV)
            csv_activity (&w, ch, &a);
          else
            json_activity (&w, &a, pid, tid);
        }

      if (format == STRATA_EXPORT_CHROME_JSON && ch->kind == STRATA_CHANNEL_THREAD)
        {
          g_array_set_size (wakeups, 0);
          strata_wakeups_in_range (trace, threads, &c, 1, from, to, wakeups);
          for (guint i = 0; i < wakeups->len && w.error == NULL; i++)
            {
              const StrataWakeup *wk = &g_array_index (wakeups, StrataWakeup, i);

              if (wk->running_at < to)
                json_flow (&w, wk, ++flow_id);
            }
        }

      if (g_cancellable_set_error_if_cancelled (cancellable, &w.error))
        break;
    }

  if (format == STRATA_EXPORT_CHROME_JSON && w.error == NULL)
    {
      g_string_append (line, "\n],\"otherData\":{\"generator\":\"strata\",\"from_ns\":");
      g_string_append_printf (line, "%" G_GINT64_FORMAT ",\"to_ns\":%" G_GINT64_FORMAT "}}\n", from, to);
      flush_line (&w);
    }
  if (w.error == NULL)
    g_output_stream_flush (buffered, cancellable, &w.error);

  if (w.error != NULL)
    {
      g_propagate_error (error, w.error);
      return FALSE;
    }
  return TRUE;
}

/**
 * strata_export_to_file:
 *
 * strata_export_write() to @path, atomically: a temporary file beside
 * it, renamed when whole.
 */
gboolean
strata_export_to_file (StrataTrace         *trace,
                       StrataExportFormat   format,
                       gint64               from,
                       gint64               to,
                       const char          *path,
                       GCancellable        *cancellable,
                       GError             **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GError) local = NULL;

  out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, cancellable, &local);
  if (out == NULL ||
      !strata_export_write (trace, format, from, to, G_OUTPUT_STREAM (out), cancellable, &local))
    {
      if (out != NULL)
        {
          /* Cancelling the close leaves the original file as it was. */
          g_autoptr(GCancellable) abandon = g_cancellable_new ();

          g_cancellable_cancel (abandon);
          g_output_stream_close (G_OUTPUT_STREAM (out), abandon, NULL);
        }
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO, "%s: %s", path, local->message);
      return FALSE;
    }
  if (!g_output_stream_close (G_OUTPUT_STREAM (out), cancellable, &local))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO, "%s: %s", path, local->message);
      return FALSE;
    }
  return TRUE;
}
