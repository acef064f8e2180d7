/* strata-ftrace-text-source.c
 *
 * Reads the kernel's own text rendering of the ftrace ring buffer: what
 * `cat /sys/kernel/tracing/trace` prints (a "# tracer:" header, then one
 * line per event, already merged across CPUs in time order) and what
 * trace_pipe prints (the same lines without any header). Text is what people
 * have when they have no trace.dat: pasted into a bug report, saved from a
 * phone or a board over a serial console. The reader splits the file into
 * lines straight out of a large read buffer, takes each line apart by the
 * header's column layout (or by the line's shape when there is no header),
 * and decodes the scheduler and interrupt payloads by anchoring on the key
 * names the kernel prints, so a comm containing spaces, dashes or '=' cannot
 * shift a field. Everything it does not understand is refused with the
 * file, the offset and the line number, after the events before it.
 * The span hint comes from the two ends of a regular file: its first and
 * last event lines, parsed at open as the reader will parse them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata-error.h"
#include "strata-ftrace-text-records.h"
#include "strata-source.h"
#include "strata-file-io.h"

/* One read() fills at most this much; it also bounds the memory the reader
 * ever holds for the file, whatever its size. */
#define BLOCK_SIZE (1024 * 1024)

/* The kernel formats a line in a trace_seq of one page; 64 KiB pages exist,
 * and trace_marker text can fill one. Anything much longer is not ftrace. */
#define MAX_LINE (256 * 1024)

/* The trace file is merged in time order by the kernel; trace_pipe output
 * can be slightly out of order when CPUs race with the reader, and so can
 * files glued together. Events are held back and sorted within a window of
 * this many; a line further out of order than that is reported as damage
 * rather than silently reordered or dropped. */
#define REORDER_WINDOW 4096

/* The kernel's NR_CPUS limit. A CPU number sizes the per-CPU lost array, so
 * it must never come unchecked from the file. */
#define MAX_CPUS 8192

#define CACHE_KEY_MAX 30

typedef struct
{
  guint32 id;
  guint32 type;
  guint8  len;
  char    key[CACHE_KEY_MAX];
} CacheSlot;

/* What the column header said; without one, lines are taken by shape. */
typedef struct
{
  gboolean known;
  gboolean tgid;
  gboolean flags;
} Layout;

/* A loss announced by a marker line; it becomes a STRATA_EVENT_LOST when the
 * next event of that CPU gives it a time. */
typedef struct
{
  guint    cpu;
  guint64  offset;
  guint64  count;
} PendingLoss;

typedef struct
{
  StrataEvent ev;
  guint64     seq;
} HeapEntry;

/* The parts of an event line, pointing into the read buffer. */
typedef struct
{
  gint64      ts;
  gint32      cpu;
  gint32      pid;
  gint32      tgid;
  const char *name;
  gsize       name_len;
  const char *payload;
  const char *end;
  guint       context;    /* StrataEventContext, from the irq-info flags */
} TextLine;

#define STRATA_TYPE_FTRACE_TEXT_SOURCE (strata_ftrace_text_source_get_type ())

G_DECLARE_FINAL_TYPE (StrataFtraceTextSource, strata_ftrace_text_source,
                      STRATA, FTRACE_TEXT_SOURCE, StrataSource)

struct _StrataFtraceTextSource
{
  StrataSource      parent_instance;

  char             *path;
  int               fd;
  StrataStringPool *strings;
  StrataSourceInfo *info;

  /* The read buffer: bytes [pos, len) are not parsed yet; buf[0] is at
   * file offset buf_offset. */
  char             *buf;
  gsize             buf_alloc;
  gsize             buf_len;
  gsize             buf_pos;
  guint64           buf_offset;
  guint64           line_no;
  guint             eof : 1;
  guint             done : 1;

  Layout            layout;
  char             *tracer;
  guint32           fallback_name;
  guint32           lost_name;
  guint32           stack_name;
  guint32           user_stack_name;

  guint64           header_lost;
  guint64           noted_lost;

  /* Events parsed but not yet delivered. Those that arrive in time order
   * (nearly all) are appended to the run, [run_start, run_end); the others
   * wait in a min-heap. Each carries its line's sequence number so that
   * equal times keep the file's order, which is the kernel's. */
  StrataEvent      *run;
  guint64          *run_seq;
  gsize             run_start;
  gsize             run_end;
  gsize             run_alloc;
  HeapEntry        *heap;
  gsize             heap_len;
  gsize             heap_alloc;
  guint64           next_seq;
  gint64            last_delivered_ts;
  gint64            max_ts;
  GArray           *losses;

  GError           *error;

  CacheSlot         name_cache[64];
  CacheSlot         string_cache[256];
};

void strata_plugin_ftrace_text_register (void);

G_DEFINE_FINAL_TYPE (StrataFtraceTextSource, strata_ftrace_text_source, STRATA_TYPE_SOURCE)

#define HAS_PREFIX(p, end, lit) \
  ((gsize) ((end) - (p)) >= sizeof (lit) - 1 && memcmp ((p), (lit), sizeof (lit) - 1) == 0)

static inline gboolean
is_digit (char c)
{
  return (guint) (c - '0') < 10;
}

static inline gboolean
is_ident (char c)
{
  return is_digit (c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline const char *
skip_spaces (const char *p,
             const char *end)
{
  while (p < end && *p == ' ')
    p++;
  return p;
}

static gboolean
parse_u64 (const char **pp,
           const char  *end,
           guint64      max,
           guint64     *out)
{
  const char *p = *pp;
  guint64 v = 0;

  if (p >= end || !is_digit (*p))
    return FALSE;

  for (; p < end && is_digit (*p); p++)
    {
      guint d = *p - '0';

      if (d > max || v > (max - d) / 10)
        return FALSE;
      v = v * 10 + d;
    }

  *out = v;
  *pp = p;

  return TRUE;
}

/* pids and priorities; a SCHED_DEADLINE task has prio -1. */
static gboolean
parse_i32 (const char **pp,
           const char  *end,
           gint32      *out)
{
  const char *p = *pp;
  gboolean neg = FALSE;
  guint64 v;

  if (p < end && *p == '-')
    {
      neg = TRUE;
      p++;
    }

  if (!parse_u64 (&p, end, G_MAXINT32, &v))
    return FALSE;

  *out = neg ? -(gint32) v : (gint32) v;
  *pp = p;

  return TRUE;
}

/* "SECS.FRACTION" (the kernel prints microseconds) or a bare counter (the
 * `counter` and `x86-tsc` clocks are not in nanoseconds, so the kernel prints
 * the raw value, which is taken as it is). */
static gboolean
parse_timestamp (const char **pp,
                 const char  *end,
                 gint64      *out)
{
  static const guint64 scale[] = {
    1000000000, 100000000, 10000000, 1000000, 100000,
    10000, 1000, 100, 10, 1,
  };
  const char *p = *pp;
  guint64 secs;
  guint64 frac = 0;
  guint n_frac = 0;

  if (!parse_u64 (&p, end, G_MAXINT64, &secs))
    return FALSE;

  if (p < end && *p == '.')
    {
      p++;
      for (; p < end && is_digit (*p); p++, n_frac++)
        {
          if (n_frac >= 9)
            return FALSE;
          frac = frac * 10 + (*p - '0');
        }
      if (n_frac == 0)
        return FALSE;
      if (secs > (guint64) (G_MAXINT64 - 999999999) / 1000000000)
        return FALSE;
      *out = (gint64) (secs * 1000000000 + frac * scale[n_frac]);
    }
  else
    {
      *out = (gint64) secs;
    }

  *pp = p;

  return TRUE;
}

static guint
hash_bytes (const char *s,
            gsize       len)
{
  guint32 h = 2166136261u;

  for (gsize i = 0; i < len; i++)
    h = (h ^ (guint8) s[i]) * 16777619u;

  return h ^ (h >> 15);
}

/* Interning hashes and copies the string; most lines repeat a handful of
 * comms and event names, so a small direct-mapped cache in front of the pool
 * saves both. */
static CacheSlot *
lookup_cached (StrataFtraceTextSource *self,
               CacheSlot              *slots,
               guint                   mask,
               const char             *str,
               gsize                   len,
               gboolean               *hit)
{
  CacheSlot *slot = &slots[hash_bytes (str, len) & mask];

  if (slot->len == len && memcmp (slot->key, str, len) == 0)
    {
      *hit = TRUE;
      return slot;
    }

  slot->id = strata_string_pool_intern_len (self->strings, str, len);
  slot->len = len;
  memcpy (slot->key, str, len);
  *hit = FALSE;

  return slot;
}

static guint32
intern (StrataFtraceTextSource *self,
        const char             *str,
        const char             *str_end)
{
  gsize len = str_end - str;
  gboolean hit;

  if (len == 0)
    return STRATA_STRING_NONE;
  if (len > CACHE_KEY_MAX)
    return strata_string_pool_intern_len (self->strings, str, len);

  return lookup_cached (self, self->string_cache,
                        G_N_ELEMENTS (self->string_cache) - 1,
                        str, len, &hit)->id;
}

static guint32
intern_event_name (StrataFtraceTextSource *self,
                   const char             *name,
                   gsize                   len,
                   StrataEventType        *type)
{
  CacheSlot *slot;
  gboolean hit;

  if (len > CACHE_KEY_MAX)
    {
      guint32 id = strata_string_pool_intern_len (self->strings, name, len);

      *type = strata_event_type_from_name (strata_string_pool_get (self->strings, id));
      return id;
    }

  slot = lookup_cached (self, self->name_cache, G_N_ELEMENTS (self->name_cache) - 1,
                        name, len, &hit);
  if (!hit)
    slot->type = strata_event_type_from_name (strata_string_pool_get (self->strings, slot->id));

  *type = slot->type;

  return slot->id;
}

/* Where a line's cause of rejection is turned into the message the user
 * reads: the file, the byte offset, the line number, the cause. */
static void
set_line_error (StrataFtraceTextSource  *self,
                GError                 **error,
                gint                     code,
                guint64                  offset,
                guint64                  line_no,
                const char              *cause)
{
  g_set_error (error, STRATA_ERROR, code,
               "%s: offset %" G_GUINT64_FORMAT " (line %" G_GUINT64_FORMAT "): %s",
               self->path, offset, line_no, cause);
}

/* Parsing the line itself ------------------------------------------------- */

/* Finds where the task field ends when it is not at the kernel's fixed
 * columns: the CPU field is the first " [N]", an optional "(TGID)" sits
 * between them, and the pid is after the last '-' of what is left. */
static const char *
find_task_end (const char *line,
               const char *end)
{
  const char *s = line;
  const char *t;

  while ((s = memchr (s, '[', end - s)) != NULL)
    {
      const char *q = s + 1;

      if (s > line && s[-1] == ' ' && q < end && is_digit (*q))
        {
          while (q < end && is_digit (*q))
            q++;
          if (q < end && *q == ']' && (q + 1 == end || q[1] == ' '))
            break;
        }
      s++;
    }

  if (s == NULL)
    return NULL;

  t = s;
  while (t > line && t[-1] == ' ')
    t--;

  if (t > line && t[-1] == ')')
    {
      const char *paren = memrchr (line, '(', t - line);

      if (paren == NULL)
        return NULL;
      t = paren;
      while (t > line && t[-1] == ' ')
        t--;
    }

  return t;
}

/* Everything after the task field: "(TGID) [CPU] FLAGS TIMESTAMP: NAME: ",
 * where the TGID and FLAGS columns are there or not as the header says. */
static const char *
parse_after_task (const char   *p,
                  const char   *end,
                  const Layout *layout,
                  TextLine     *out)
{
  const char *tok;
  gboolean have_tgid = FALSE;
  guint64 v;

  p = skip_spaces (p, end);

  out->tgid = -1;
  out->context = 0;
  if (p < end && *p == '(')
    {
      p = skip_spaces (p + 1, end);
      if (p < end && *p == '-')
        {
          while (p < end && *p == '-')
            p++;
        }
      else if (!parse_i32 (&p, end, &out->tgid))
        {
          return "expected a tgid or '(-------)' in the TGID column";
        }
      p = skip_spaces (p, end);
      if (p >= end || *p != ')')
        return "expected ')' after the tgid";
      p = skip_spaces (p + 1, end);
      have_tgid = TRUE;
    }

  if (layout != NULL && layout->known && layout->tgid != have_tgid)
    return have_tgid ? "a TGID column that the header does not announce"
                     : "expected the '(TGID)' column that the header announces";

  if (p >= end || *p != '[')
    return "expected ' [CPU]' after the task field";
  p++;
  if (!parse_u64 (&p, end, MAX_CPUS - 1, &v) || p >= end || *p != ']')
    return "expected a CPU number below 8192 in '[CPU]'";
  out->cpu = (gint32) v;
  p++;
  if (p >= end || *p != ' ')
    return "expected a space after '[CPU]'";
  p = skip_spaces (p, end);

  /* The irq-info flags ("d..2.", four characters on older kernels) are one
   * token that does not end in ':', unlike the timestamp after them. */
  tok = p;
  while (p < end && *p != ' ')
    p++;
  if (p == tok)
    return "expected a timestamp after the CPU field";

  if (p[-1] != ':')
    {
      if (layout != NULL && layout->known && !layout->flags)
        return "expected a timestamp ('SECS.USECS:') after the CPU field";
      if (p - tok > 8)
        return "expected irq-info flags or a timestamp after the CPU field";
      out->context = p - tok >= 3 ? strata_event_context_from_irq_info (tok[2]) : 0;
      p = skip_spaces (p, end);
    }
  else if (layout != NULL && layout->known && layout->flags)
    {
      return "expected the irq-info flags that the header announces after the CPU field";
    }
  else
    {
      p = tok;
    }

  if (!parse_timestamp (&p, end, &out->ts) || p >= end || *p != ':')
    return "expected a timestamp ('SECS.USECS:') after the CPU field";
  p++;
  if (p < end && *p != ' ')
    return "expected a space after the timestamp";
  p = skip_spaces (p, end);

  /* Tracepoints print "name: payload"; the function tracer and a few
   * others print no name at all. */
  tok = p;
  while (p < end && is_ident (*p))
    p++;
  if (p > tok && p < end && *p == ':')
    {
      out->name = tok;
      out->name_len = p - tok;
      p++;
      if (p < end && *p == ' ')
        p++;
    }
  else
    {
      out->name = NULL;
      out->name_len = 0;
      p = tok;
    }

  out->payload = p;
  out->end = end;

  return NULL;
}

/*
 * parse_event_line:
 * @layout: (nullable): the header's column layout, or %NULL to go by shape
 *
 * Takes apart "TASK-PID (TGID) [CPU] FLAGS TIMESTAMP: NAME: PAYLOAD".
 *
 * Returns: %NULL on success, or why the line is not an event line.
 */
static const char *
parse_event_line (const char   *line,
                  const char   *end,
                  const Layout *layout,
                  TextLine     *out)
{
  const char *task_end;
  const char *dash;
  const char *p;

  /* The kernel prints "%16s-%-7d": a comm is at most 15 characters, so the
   * '-' before the pid is at column 16 and the comm, whatever it contains
   * (spaces, dashes, brackets), stays to its left. */
  if (end - line > 18 && line[16] == '-' && is_digit (line[17]))
    {
      p = line + 17;
      if (parse_i32 (&p, end, &out->pid) && p < end && *p == ' ' &&
          parse_after_task (p, end, layout, out) == NULL)
        return NULL;
    }

  /* Otherwise (a longer comm, or text not from the kernel's formatter):
   * the CPU field is the first " [N] ". */
  task_end = find_task_end (line, end);
  if (task_end == NULL)
    return "expected ' [CPU]' after the task field";

  dash = memrchr (line, '-', task_end - line);
  p = dash ? dash + 1 : task_end;
  if (dash == NULL || !parse_i32 (&p, task_end, &out->pid) || p != task_end)
    return "expected TASK-PID (a pid after the last '-') before the CPU field";

  return parse_after_task (task_end, end, layout, out);
}

/* Decoding payloads -------------------------------------------------------- */

/* The first " KEY=N" in [p, end) whose integer is followed by @next, or by
 * the end when @next is %NULL. The comm before it may contain the key, but a
 * kernel comm (15 characters) cannot contain the key, a number and the next
 * key, so the first match is the field. Returns where the key starts, which
 * is where the string value before it ends. */
static const char *
find_int_field (const char  *p,
                const char  *end,
                const char  *key,
                const char  *next,
                gint32      *value,
                const char **after)
{
  gsize key_len = strlen (key);
  gsize next_len = next ? strlen (next) : 0;
  const char *k;

  while (p < end && (k = memmem (p, end - p, key, key_len)) != NULL)
    {
      const char *q = k + key_len;

      if (parse_i32 (&q, end, value) &&
          (next == NULL ? q == end
                        : ((gsize) (end - q) >= next_len && memcmp (q, next, next_len) == 0)))
        {
          *after = q + next_len;
          return k;
        }

      p = k + 1;
    }

  return NULL;
}

/* Like find_int_field(), for a number that must end exactly at @stop: used
 * right to left, where a string before it (a file name) has no length bound. */
static const char *
find_int_field_ending_at (const char *p,
                          const char *stop,
                          const char *key,
                          gint32     *value)
{
  const char *dummy;

  return find_int_field (p, stop, key, NULL, value, &dummy);
}

/* "@prefix" COMM "@key" N "@next", as the scheduler's events print a
 * task: the comm interned in *@comm, N in *@pid, and *@p moved past @next.
 * FALSE when the text is not so. */
static inline gboolean
task_field (StrataFtraceTextSource  *self,
            const char             **p,
            const char              *end,
            const char              *prefix,
            const char              *key,
            const char              *next,
            guint32                 *comm,
            gint32                  *pid)
{
  gsize prefix_len = strlen (prefix);
  const char *start = *p + prefix_len;
  const char *k;

  if ((gsize) (end - *p) < prefix_len || memcmp (*p, prefix, prefix_len) != 0)
    return FALSE;
  k = find_int_field (start, end, key, next, pid, p);
  if (k == NULL)
    return FALSE;
  *comm = intern (self, start, k);
  return TRUE;
}

static const char *
decode_sched_switch (StrataFtraceTextSource *self,
                     const char             *p,
                     const char             *end,
                     StrataEvent            *ev)
{
  const char *state;

  if (!task_field (self, &p, end, "prev_comm=", " prev_pid=", " prev_prio=",
                   &ev->u.sched_switch.prev_comm, &ev->u.sched_switch.prev_pid))
    return "expected 'prev_comm=TASK prev_pid=N prev_prio=' in sched_switch";

  if (!parse_i32 (&p, end, &ev->u.sched_switch.prev_prio) ||
      !HAS_PREFIX (p, end, " prev_state="))
    return "expected ' prev_state=' in sched_switch";
  p += strlen (" prev_state=");

  state = p;
  while (p < end && *p != ' ')
    p++;
  ev->u.sched_switch.prev_state = strata_task_state_from_letters (state, p - state);

  if (!task_field (self, &p, end, " ==> next_comm=", " next_pid=", " next_prio=",
                   &ev->u.sched_switch.next_comm, &ev->u.sched_switch.next_pid))
    return "expected ' ==> next_comm=TASK next_pid=N next_prio=' in sched_switch";

  if (!parse_i32 (&p, end, &ev->u.sched_switch.next_prio))
    return "expected a number after 'next_prio=' in sched_switch";

  return NULL;
}

static const char *
decode_wakeup (StrataFtraceTextSource *self,
               const char             *p,
               const char             *end,
               StrataEvent            *ev)
{
  const char *k;

  if (!task_field (self, &p, end, "comm=", " pid=", " prio=",
                   &ev->u.wakeup.comm, &ev->u.wakeup.pid))
    return "expected 'comm=TASK pid=N prio=' in a wakeup event";

  if (!parse_i32 (&p, end, &ev->u.wakeup.prio))
    return "expected a number after 'prio=' in a wakeup event";

  /* Kernels before 4.x printed " success=1" in between. */
  ev->u.wakeup.target_cpu = -1;
  k = memmem (p, end - p, " target_cpu=", strlen (" target_cpu="));
  if (k != NULL)
    {
      p = k + strlen (" target_cpu=");
      if (!parse_i32 (&p, end, &ev->u.wakeup.target_cpu))
        return "expected a number after 'target_cpu=' in a wakeup event";
    }

  return NULL;
}

static const char *
decode_fork (StrataFtraceTextSource *self,
             const char             *p,
             const char             *end,
             StrataEvent            *ev)
{
  const char *k;

  if (!task_field (self, &p, end, "comm=", " pid=", " child_comm=",
                   &ev->u.fork.parent_comm, &ev->u.fork.parent_pid))
    return "expected 'comm=TASK pid=N child_comm=' in sched_process_fork";

  k = find_int_field_ending_at (p, end, " child_pid=", &ev->u.fork.child_pid);
  if (k == NULL)
    return "expected ' child_pid=N' at the end of sched_process_fork";
  ev->u.fork.child_comm = intern (self, p, k);

  return NULL;
}

static const char *
decode_exec (StrataFtraceTextSource *self,
             const char             *p,
             const char             *end,
             StrataEvent            *ev)
{
  const char *filename;
  const char *k_old;
  const char *k_pid;

  if (!HAS_PREFIX (p, end, "filename="))
    return "expected 'filename=' in sched_process_exec";
  filename = p + strlen ("filename=");

  /* A file name can be anything, so read the numbers from the right. */
  k_old = find_int_field_ending_at (filename, end, " old_pid=", &ev->u.exec.old_pid);
  if (k_old == NULL)
    return "expected ' old_pid=N' at the end of sched_process_exec";
  k_pid = find_int_field_ending_at (filename, k_old, " pid=", &ev->u.exec.pid);
  if (k_pid == NULL)
    return "expected ' pid=N' before 'old_pid=' in sched_process_exec";
  ev->u.exec.filename = strata_string_pool_intern_len (self->strings, filename,
                                                       k_pid - filename);

  return NULL;
}

static const char *
decode_exit (StrataFtraceTextSource *self,
             const char             *p,
             const char             *end,
             StrataEvent            *ev)
{
  if (!task_field (self, &p, end, "comm=", " pid=", " prio=",
                   &ev->u.exit.comm, &ev->u.exit.pid))
    return "expected 'comm=TASK pid=N prio=' in sched_process_exit";

  /* Newer kernels append " group_dead=true". */
  if (!parse_i32 (&p, end, &ev->u.exit.prio))
    return "expected a number after 'prio=' in sched_process_exit";

  return NULL;
}

static const char *
decode_irq (StrataFtraceTextSource *self,
            const char             *p,
            const char             *end,
            StrataEvent            *ev,
            gboolean                is_exit)
{
  if (!HAS_PREFIX (p, end, "irq="))
    return "expected 'irq=' in an irq handler event";
  p += strlen ("irq=");
  if (!parse_i32 (&p, end, &ev->u.irq.irq))
    return "expected a number after 'irq='";

  if (!is_exit)
    {
      if (!HAS_PREFIX (p, end, " name="))
        return "expected ' name=' in irq_handler_entry";
      p += strlen (" name=");
      ev->u.irq.name = intern (self, p, end);
      return NULL;
    }

  if (!HAS_PREFIX (p, end, " ret="))
    return "expected ' ret=' in irq_handler_exit";
  p += strlen (" ret=");

  if (HAS_PREFIX (p, end, "handled"))
    ev->u.irq.ret = 1;
  else if (HAS_PREFIX (p, end, "unhandled"))
    ev->u.irq.ret = 0;
  else if (!parse_i32 (&p, end, &ev->u.irq.ret))
    return "expected 'handled' or 'unhandled' after 'ret=' in irq_handler_exit";

  return NULL;
}

static const char *
decode_softirq (const char  *p,
                const char  *end,
                StrataEvent *ev)
{
  if (!HAS_PREFIX (p, end, "vec="))
    return "expected 'vec=' in a softirq event";
  p += strlen ("vec=");
  if (!parse_i32 (&p, end, &ev->u.softirq.vec))
    return "expected a number after 'vec='";

  return NULL;
}

static const char *
decode_payload (StrataFtraceTextSource *self,
                const TextLine         *tl,
                StrataEvent            *ev)
{
  switch ((StrataEventType) ev->type)
    {
    case STRATA_EVENT_SCHED_SWITCH:
      return decode_sched_switch (self, tl->payload, tl->end, ev);

    case STRATA_EVENT_SCHED_WAKING:
    case STRATA_EVENT_SCHED_WAKEUP:
    case STRATA_EVENT_SCHED_WAKEUP_NEW:
      ev->u.wakeup.context = tl->context;
      return decode_wakeup (self, tl->payload, tl->end, ev);

    case STRATA_EVENT_SCHED_PROCESS_FORK:
      return decode_fork (self, tl->payload, tl->end, ev);

    case STRATA_EVENT_SCHED_PROCESS_EXEC:
      return decode_exec (self, tl->payload, tl->end, ev);

    case STRATA_EVENT_SCHED_PROCESS_EXIT:
      return decode_exit (self, tl->payload, tl->end, ev);

    case STRATA_EVENT_IRQ_HANDLER_ENTRY:
    case STRATA_EVENT_IRQ_HANDLER_EXIT:
      return decode_irq (self, tl->payload, tl->end, ev,
                         ev->type == STRATA_EVENT_IRQ_HANDLER_EXIT);

    case STRATA_EVENT_SOFTIRQ_ENTRY:
    case STRATA_EVENT_SOFTIRQ_EXIT:
      return decode_softirq (tl->payload, tl->end, ev);

    case STRATA_EVENT_OTHER:
    case STRATA_EVENT_LOST:
    case STRATA_N_EVENT_TYPES:
    default:
      return NULL;
    }
}

/* Comment and marker lines ------------------------------------------------- */

static void
update_lost_total (StrataFtraceTextSource *self)
{
  StrataSourceInfo *info = self->info;

  /* The header's count covers the whole buffer but not which CPU lost what;
   * per-CPU markers add up what they name. Neither is a subset of the other,
   * so the larger is the best lower bound. */
  info->lost_events = MAX (self->header_lost, self->noted_lost);
}

static void
parse_comment_line (StrataFtraceTextSource *self,
                    const char             *line,
                    const char             *end)
{
  StrataSourceInfo *info = self->info;
  const char *p;

  if (HAS_PREFIX (line, end, "# tracer:"))
    {
      const char *name = skip_spaces (line + strlen ("# tracer:"), end);
      const char *name_end = name;

      while (name_end < end && *name_end != ' ')
        name_end++;

      g_free (self->tracer);
      self->tracer = g_strndup (name, name_end - name);
      /* Lines of the function tracer carry no event name. */
      if (self->tracer[0] != '\0' && strcmp (self->tracer, "nop") != 0)
        self->fallback_name = strata_string_pool_intern (self->strings, self->tracer);
      return;
    }

  if (HAS_PREFIX (line, end, "# entries-in-buffer/entries-written: "))
    {
      guint64 in_buffer, written, n_cpus;

      p = line + strlen ("# entries-in-buffer/entries-written: ");
      if (parse_u64 (&p, end, G_MAXUINT64, &in_buffer) && p < end && *p == '/')
        {
          p++;
          if (parse_u64 (&p, end, G_MAXUINT64, &written) && written > in_buffer)
            {
              guint64 lost = written - in_buffer;

              self->header_lost = (G_MAXUINT64 - self->header_lost < lost)
                                  ? G_MAXUINT64 : self->header_lost + lost;
              update_lost_total (self);
            }
        }

      p = memmem (line, end - line, "#P:", 3);
      if (p != NULL)
        {
          p += 3;
          if (parse_u64 (&p, end, MAX_CPUS, &n_cpus) && n_cpus > info->n_cpus)
            info->n_cpus = n_cpus;
        }
      return;
    }

  /* The column header says which optional columns the lines have. */
  if (memmem (line, end - line, "TASK-PID", strlen ("TASK-PID")) != NULL)
    {
      const char *cpu_col = memmem (line, end - line, "CPU#", strlen ("CPU#"));

      self->layout.known = TRUE;
      self->layout.tgid = memmem (line, end - line, "TGID", strlen ("TGID")) != NULL;
      self->layout.flags = cpu_col != NULL && memchr (cpu_col, '|', end - cpu_col) != NULL;
    }
}

/* "##### CPU N buffer started ####": in overwrite mode the kernel prints it
 * before the first line of a CPU whose older events were overwritten. */
static gboolean
parse_buffer_started (const char *line,
                      const char *end,
                      guint      *cpu)
{
  const char *p;
  guint64 v;

  if (!HAS_PREFIX (line, end, "##### CPU "))
    return FALSE;
  p = line + strlen ("##### CPU ");
  if (!parse_u64 (&p, end, MAX_CPUS - 1, &v) || !HAS_PREFIX (p, end, " buffer started"))
    return FALSE;

  *cpu = v;

  return TRUE;
}

/* "CPU:N [LOST M EVENTS]" or "CPU:N [LOST EVENTS]" (count unknown): printed
 * before the first event read after the ring buffer dropped some. */
static gboolean
parse_lost_line (const char *line,
                 const char *end,
                 guint      *cpu,
                 guint64    *count)
{
  const char *p = line;
  guint64 v;

  if (!HAS_PREFIX (p, end, "CPU:"))
    return FALSE;
  p += strlen ("CPU:");
  if (!parse_u64 (&p, end, MAX_CPUS - 1, &v) || !HAS_PREFIX (p, end, " [LOST "))
    return FALSE;
  *cpu = v;
  p += strlen (" [LOST ");

  *count = 0;
  if (HAS_PREFIX (p, end, "EVENTS]"))
    return TRUE;
  if (!parse_u64 (&p, end, G_MAXUINT64, count) || !HAS_PREFIX (p, end, " EVENTS]"))
    return FALSE;

  return TRUE;
}

/* The reorder window --------------------------------------------------------- */

static inline gboolean
heap_less (const HeapEntry *a,
           const HeapEntry *b)
{
  return a->ev.ts < b->ev.ts || (a->ev.ts == b->ev.ts && a->seq < b->seq);
}

static void
heap_push (StrataFtraceTextSource *self,
           const StrataEvent      *ev,
           guint64                 seq)
{
  HeapEntry entry = { *ev, seq };
  gsize i;

  if (self->heap_len == self->heap_alloc)
    {
      self->heap_alloc = MAX (64, self->heap_alloc * 2);
      self->heap = g_renew (HeapEntry, self->heap, self->heap_alloc);
    }

  i = self->heap_len++;
  while (i > 0 && heap_less (&entry, &self->heap[(i - 1) / 2]))
    {
      self->heap[i] = self->heap[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  self->heap[i] = entry;
}

static void
heap_pop (StrataFtraceTextSource *self,
          StrataEvent            *out)
{
  HeapEntry last;
  gsize i = 0;

  g_assert (self->heap_len > 0);

  *out = self->heap[0].ev;
  last = self->heap[--self->heap_len];

  for (;;)
    {
      gsize child = 2 * i + 1;

      if (child >= self->heap_len)
        break;
      if (child + 1 < self->heap_len && heap_less (&self->heap[child + 1], &self->heap[child]))
        child++;
      if (!heap_less (&self->heap[child], &last))
        break;
      self->heap[i] = self->heap[child];
      i = child;
    }
  self->heap[i] = last;
}

static void
run_append (StrataFtraceTextSource *self,
            const StrataEvent      *ev,
            guint64                 seq)
{
  if (self->run_start == self->run_end)
    self->run_start = self->run_end = 0;

  if (self->run_end == self->run_alloc)
    {
      gsize n = self->run_end - self->run_start;

      /* The run starts small and grows to about twice the window; beyond
       * that only the losses flushed at the end (one per CPU) grow it. */
      if (n > self->run_alloc / 2)
        {
          self->run_alloc *= 2;
          self->run = g_renew (StrataEvent, self->run, self->run_alloc);
          self->run_seq = g_renew (guint64, self->run_seq, self->run_alloc);
        }
      else
        {
          memmove (self->run, self->run + self->run_start, n * sizeof *self->run);
          memmove (self->run_seq, self->run_seq + self->run_start, n * sizeof *self->run_seq);
          self->run_start = 0;
          self->run_end = n;
        }
    }

  self->run[self->run_end] = *ev;
  self->run_seq[self->run_end] = seq;
  self->run_end++;
}

static inline gsize
pending_count (StrataFtraceTextSource *self)
{
  return (self->run_end - self->run_start) + self->heap_len;
}

/* Takes the earliest pending event, by time and then by line. */
static void
pop_event (StrataFtraceTextSource *self,
           StrataEvent            *out)
{
  if (self->run_start < self->run_end)
    {
      const StrataEvent *head = &self->run[self->run_start];

      if (self->heap_len == 0 ||
          head->ts < self->heap[0].ev.ts ||
          (head->ts == self->heap[0].ev.ts && self->run_seq[self->run_start] < self->heap[0].seq))
        {
          *out = *head;
          self->run_start++;
          return;
        }
    }

  heap_pop (self, out);
}

static gboolean
push_event (StrataFtraceTextSource  *self,
            const StrataEvent       *ev,
            guint64                  line_no,
            GError                 **error)
{
  guint64 seq = self->next_seq++;

  if (ev->ts < self->last_delivered_ts)
    {
      g_autofree char *cause =
        g_strdup_printf ("time goes back by %" G_GINT64_FORMAT " ns, further than "
                         "sorting within a window of %u events can repair",
                         self->last_delivered_ts - ev->ts, REORDER_WINDOW);

      set_line_error (self, error, STRATA_ERROR_CORRUPT, ev->source_offset, line_no, cause);
      return FALSE;
    }

  /* In order (the common case) costs one comparison; a straggler costs a
   * heap insertion, so a file crafted to be out of order everywhere is
   * slower to read, never quadratic. */
  if (self->run_start == self->run_end || ev->ts >= self->run[self->run_end - 1].ts)
    run_append (self, ev, seq);
  else
    heap_push (self, ev, seq);

  if (ev->ts > self->max_ts)
    self->max_ts = ev->ts;

  return TRUE;
}

static gboolean
push_loss (StrataFtraceTextSource  *self,
           const PendingLoss       *loss,
           gint64                   ts,
           guint64                  line_no,
           GError                 **error)
{
  StrataEvent ev = { 0 };

  ev.ts = ts;
  ev.source_offset = loss->offset;
  ev.type = STRATA_EVENT_LOST;
  ev.name = self->lost_name;
  ev.cpu = loss->cpu;
  ev.pid = -1;
  ev.tgid = -1;
  ev.u.lost.count = loss->count;

  return push_event (self, &ev, line_no, error);
}

static void
note_loss_marker (StrataFtraceTextSource *self,
                  guint                   cpu,
                  guint64                 offset,
                  guint64                 count,
                  gboolean                unknown)
{
  StrataSourceInfo *info = self->info;
  PendingLoss loss = { cpu, offset, count };

  if (unknown)
    info->lost_unknown = TRUE;

  if (count > 0)
    {
      strata_source_note_lost (STRATA_SOURCE (self), cpu, count);
      self->noted_lost = (G_MAXUINT64 - self->noted_lost < count) ? G_MAXUINT64
                                                                 : self->noted_lost + count;
      update_lost_total (self);
    }

  /* Two markers for one CPU before any of its events are one gap. */
  for (guint i = 0; i < self->losses->len; i++)
    {
      PendingLoss *l = &g_array_index (self->losses, PendingLoss, i);

      if (l->cpu == cpu)
        {
          l->count = (G_MAXUINT64 - l->count < count) ? G_MAXUINT64 : l->count + count;
          return;
        }
    }

  g_array_append_val (self->losses, loss);
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

/* The line loop ------------------------------------------------------------ */

static gboolean
fill_buffer (StrataFtraceTextSource  *self,
             GError                 **error)
{
  if (self->buf_pos > 0)
    {
      memmove (self->buf, self->buf + self->buf_pos, self->buf_len - self->buf_pos);
      self->buf_offset += self->buf_pos;
      self->buf_len -= self->buf_pos;
      self->buf_pos = 0;
    }

  /* A buffer sized for a small file grows if the file does (a trace_pipe
   * capture still being written) or a line does not fit. */
  if (self->buf_len == self->buf_alloc && self->buf_alloc < BLOCK_SIZE)
    {
      self->buf_alloc = MIN (self->buf_alloc * 2, BLOCK_SIZE);
      self->buf = g_realloc (self->buf, self->buf_alloc);
    }

  while (self->buf_len < self->buf_alloc)
    {
      gssize n = read (self->fd, self->buf + self->buf_len, self->buf_alloc - self->buf_len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;

          g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO,
                       "%s: offset %" G_GUINT64_FORMAT ": %s",
                       self->path, self->buf_offset + self->buf_len, g_strerror (errsv));
          return FALSE;
        }
      if (n == 0)
        {
          self->eof = TRUE;
          break;
        }
      self->buf_len += n;
      /* One successful read is enough to go on parsing. */
      break;
    }

  return TRUE;
}

/* Returns 1 with the next line (without its newline), 0 at the end, -1 on
 * error. */
static int
next_line (StrataFtraceTextSource  *self,
           const char             **line,
           const char             **line_end,
           guint64                 *offset,
           GError                 **error)
{
  for (;;)
    {
      gsize avail = self->buf_len - self->buf_pos;
      const char *start = self->buf + self->buf_pos;
      const char *nl = memchr (start, '\n', MIN (avail, MAX_LINE));

      if (nl != NULL)
        {
          *line = start;
          *line_end = (nl > start && nl[-1] == '\r') ? nl - 1 : nl;
          *offset = self->buf_offset + self->buf_pos;
          self->buf_pos += nl - start + 1;
          self->line_no++;
          return 1;
        }

      if (avail >= MAX_LINE)
        {
          set_line_error (self, error, STRATA_ERROR_CORRUPT,
                          self->buf_offset + self->buf_pos, self->line_no + 1,
                          "a line longer than 256 KiB: not ftrace text output");
          return -1;
        }

      if (self->eof)
        {
          if (avail == 0)
            return 0;
          set_line_error (self, error, STRATA_ERROR_TRUNCATED,
                          self->buf_offset + self->buf_pos, self->line_no + 1,
                          "the file ends in the middle of a line (truncated)");
          self->buf_pos = self->buf_len;
          return -1;
        }

      if (!fill_buffer (self, error))
        return -1;
    }
}

static gboolean
is_blank (const char *p,
          const char *end)
{
  for (; p < end; p++)
    if (*p != ' ' && *p != '\t')
      return FALSE;
  return TRUE;
}

/* Lines that carry no event and are not damage: blank ones, and the
 * " => function" lines the stacktrace option prints after an event. */
static gboolean
is_ignorable (const char *line,
              const char *end)
{
  const char *p = skip_spaces (line, end);

  return HAS_PREFIX (p, end, "=> ") || is_blank (p, end);
}

static gboolean
process_line (StrataFtraceTextSource  *self,
              const char              *line,
              const char              *end,
              guint64                  offset,
              GError                 **error)
{
  StrataEvent ev = { 0 };
  StrataEventType type;
  TextLine tl;
  const char *why;
  guint cpu;
  guint64 count;

  if (line < end && line[0] == '#')
    {
      if (parse_buffer_started (line, end, &cpu))
        note_loss_marker (self, cpu, offset, 0, TRUE);
      else
        parse_comment_line (self, line, end);
      return TRUE;
    }

  why = parse_event_line (line, end, &self->layout, &tl);

  if (why != NULL)
    {
      if (parse_lost_line (line, end, &cpu, &count))
        {
          note_loss_marker (self, cpu, offset, count, count == 0);
          return TRUE;
        }

      if (is_ignorable (line, end))
        return TRUE;

      set_line_error (self, error, STRATA_ERROR_CORRUPT, offset, self->line_no, why);
      return FALSE;
    }

  if (tl.name != NULL)
    {
      ev.name = intern_event_name (self, tl.name, tl.name_len, &type);
    }
  else
    {
      type = STRATA_EVENT_OTHER;
      if (HAS_PREFIX (tl.payload, end, "<stack trace>"))
        ev.name = self->stack_name;
      else if (HAS_PREFIX (tl.payload, end, "<user stack trace>"))
        ev.name = self->user_stack_name;
      else
        ev.name = self->fallback_name;
    }

  ev.ts = tl.ts;
  ev.source_offset = offset;
  ev.type = type;
  ev.cpu = tl.cpu;
  ev.pid = tl.pid;
  ev.tgid = tl.tgid;

  why = decode_payload (self, &tl, &ev);
  if (why != NULL)
    {
      set_line_error (self, error, STRATA_ERROR_CORRUPT, offset, self->line_no, why);
      return FALSE;
    }

  if ((guint) tl.cpu >= self->info->n_cpus)
    self->info->n_cpus = tl.cpu + 1;

  if (self->losses->len > 0)
    {
      for (guint i = 0; i < self->losses->len; i++)
        {
          PendingLoss *l = &g_array_index (self->losses, PendingLoss, i);

          if (l->cpu == (guint) tl.cpu)
            {
              gboolean ok = push_loss (self, l, ev.ts, self->line_no, error);

              g_array_remove_index_fast (self->losses, i);
              if (!ok)
                return FALSE;
              break;
            }
        }
    }

  return push_event (self, &ev, self->line_no, error);
}

/* Markers not followed by an event of their CPU still say events were lost
 * there; they go at the end. */
static void
flush_losses (StrataFtraceTextSource *self)
{
  for (guint i = 0; i < self->losses->len; i++)
    {
      PendingLoss *l = &g_array_index (self->losses, PendingLoss, i);
      gint64 ts = MAX (self->max_ts, self->last_delivered_ts);

      if (ts == G_MININT64)
        ts = 0;
      push_loss (self, l, ts, self->line_no, NULL);
    }
  g_array_set_size (self->losses, 0);
}

static void
finish (StrataFtraceTextSource *self,
        GError                 *error)
{
  g_assert (self->error == NULL);

  self->error = error;
  self->done = TRUE;
  flush_losses (self);
  close_fd (&self->fd);
  g_clear_pointer (&self->buf, g_free);
}

static gssize
strata_ftrace_text_source_read_batch (StrataSource  *source,
                                      StrataEvent   *events,
                                      gsize          n_events,
                                      GError       **error)
{
  StrataFtraceTextSource *self = STRATA_FTRACE_TEXT_SOURCE (source);
  gsize n = 0;

  while (n < n_events)
    {
      gsize queued = pending_count (self);
      GError *local_error = NULL;
      const char *line;
      const char *line_end;
      guint64 offset;
      int r;

      if (queued > 0 && (queued > REORDER_WINDOW || self->done))
        {
          pop_event (self, &events[n]);
          self->last_delivered_ts = events[n].ts;
          n++;
          continue;
        }

      if (self->done)
        break;

      r = next_line (self, &line, &line_end, &offset, &local_error);
      if (r == 0)
        finish (self, NULL);
      else if (r < 0)
        finish (self, local_error);
      else if (!process_line (self, line, line_end, offset, &local_error))
        finish (self, local_error);
    }

  if (n == 0 && self->error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->error));
      return -1;
    }

  return n;
}

/* The span hint ------------------------------------------------------------- */

/* How much of each end of the file is read for the times of its first and
 * last event lines. */
#define SPAN_WINDOW (64 * 1024)

typedef enum
{
  SPAN_LINE_EVENT,  /* an event, its time is known */
  SPAN_LINE_PASS,   /* a comment, marker or blank line: no event */
  SPAN_LINE_STOP,   /* the reader stops here as damage */
} SpanLine;

/* What process_line() will make of a line, without taking it in. */
static SpanLine
span_classify_line (StrataFtraceTextSource *self,
                    const char             *line,
                    const char             *end,
                    gint64                 *ts)
{
  TextLine tl;
  guint cpu;
  guint64 count;

  if (line < end && line[0] == '#')
    return SPAN_LINE_PASS;

  if (parse_event_line (line, end, &self->layout, &tl) == NULL)
    {
      *ts = tl.ts;
      return SPAN_LINE_EVENT;
    }

  if (parse_lost_line (line, end, &cpu, &count) || is_ignorable (line, end))
    return SPAN_LINE_PASS;

  return SPAN_LINE_STOP;
}

/* @len bytes at @offset, or fewer at the end of the file; NULL if they
 * cannot be read. */
static char *
span_read (StrataFtraceTextSource *self,
           guint64                 offset,
           gsize                   len,
           gsize                  *got)
{
  g_autofree char *buf = g_malloc (MAX (len, 1));

  *got = strata_file_read_some (self->fd, buf, len, offset);
  if (*got < len && errno != 0)
    return NULL;

  return g_steal_pointer (&buf);
}

/* The times of the first and the last event line of a regular file of
 * @size bytes whose event lines start at @start, from a window at each
 * end read with pread() (the reader's position is left as it is). The
 * hint stays unset when either is not found there, or a line the reader
 * would stop at comes before the first or after the last. */
static void
span_hint_read (StrataFtraceTextSource *self,
                guint64                 start,
                guint64                 size)
{
  g_autofree char *head = NULL;
  g_autofree char *tail = NULL;
  gint64 first = 0, last = 0;
  gboolean have_first = FALSE, have_last = FALSE;
  guint64 from;
  const char *p, *end;
  gsize got;

  if (start >= size)
    return;

  /* Forwards over whole lines from the first one. */
  head = span_read (self, start, MIN (size - start, SPAN_WINDOW), &got);
  if (head == NULL)
    return;
  for (p = head, end = head + got; p < end && !have_first;)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *line_end;
      SpanLine kind;

      if (nl == NULL)
        break;
      line_end = (nl > p && nl[-1] == '\r') ? nl - 1 : nl;
      kind = span_classify_line (self, p, line_end, &first);
      if (kind == SPAN_LINE_STOP)
        return;
      have_first = kind == SPAN_LINE_EVENT;
      p = nl + 1;
    }
  if (!have_first)
    return;

  /* Backwards over the whole lines of the last window: what follows the
   * last newline is a cut line, which has no event. The window's first
   * line may be cut too, unless the window starts at the first line. */
  from = size - start > SPAN_WINDOW ? size - SPAN_WINDOW : start;
  tail = span_read (self, from, size - from, &got);
  if (tail == NULL)
    return;
  end = memrchr (tail, '\n', got);
  while (end != NULL && !have_last)
    {
      const char *nl = end > tail ? memrchr (tail, '\n', end - tail) : NULL;
      const char *line = nl != NULL ? nl + 1 : tail;
      const char *line_end = (end > line && end[-1] == '\r') ? end - 1 : end;
      SpanLine kind;

      if (nl == NULL && from > start)
        break;
      kind = span_classify_line (self, line, line_end, &last);
      if (kind == SPAN_LINE_STOP)
        return;
      have_last = kind == SPAN_LINE_EVENT;
      end = nl;
    }
  if (!have_last || last < first)
    return;

  self->info->span_first = first;
  self->info->span_last = last;
}

/* Opening and probing ---------------------------------------------------------- */

static gboolean
strata_ftrace_text_source_open (StrataSource  *source,
                                const char    *path,
                                GError       **error)
{
  StrataFtraceTextSource *self = STRATA_FTRACE_TEXT_SOURCE (source);
  StrataSourceInfo *info = strata_source_get_info_mutable (source);
  gboolean saw_columns = FALSE;
  gboolean saw_other_layout = FALSE;
  gboolean regular;
  struct stat st;

  self->path = g_strdup (path);
  self->strings = strata_source_get_strings (source);
  self->info = info;
  self->lost_name = strata_string_pool_intern (self->strings,
                                               strata_event_type_to_string (STRATA_EVENT_LOST));
  self->stack_name = strata_string_pool_intern (self->strings, "kernel_stack");
  self->user_stack_name = strata_string_pool_intern (self->strings, "user_stack");
  self->fallback_name = strata_string_pool_intern (self->strings, "unknown");

  g_free (info->format);
  info->format = g_strdup ("ftrace text");
  g_free (info->version);
  info->version = g_strdup ("");
  g_free (info->compression);
  info->compression = g_strdup ("none");
  g_free (info->clock);
  /* The text rendering does not say which trace clock stamped it. */
  info->clock = g_strdup ("unknown");

  self->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (self->fd < 0)
    {
      int errsv = errno;

      g_set_error (error, STRATA_ERROR,
                   errsv == ENOENT ? STRATA_ERROR_NOT_FOUND : STRATA_ERROR_IO,
                   "%s: %s", path, g_strerror (errsv));
      return FALSE;
    }

  regular = fstat (self->fd, &st) == 0 && S_ISREG (st.st_mode);

  /* Most fixtures and pasted traces are small; do not hold a megabyte for
   * them. */
  if (regular && st.st_size < BLOCK_SIZE)
    self->buf_alloc = MAX (st.st_size + 1, 4096);
  else
    self->buf_alloc = BLOCK_SIZE;
  self->buf = g_malloc (self->buf_alloc);

  /* Read the header block now, so the info is complete once open. */
  for (;;)
    {
      GError *local_error = NULL;
      const char *line;
      const char *line_end;
      guint64 offset;

      if (self->buf_pos == self->buf_len && !self->eof && !fill_buffer (self, error))
        return FALSE;
      if (self->buf_pos == self->buf_len || self->buf[self->buf_pos] != '#')
        break;

      if (next_line (self, &line, &line_end, &offset, &local_error) <= 0)
        {
          /* A cut-off header is reported by the first read, after nothing. */
          finish (self, local_error);
          break;
        }

      if (memmem (line, line_end - line, "TASK-PID", strlen ("TASK-PID")) != NULL)
        saw_columns = TRUE;
      /* function_graph's columns, and the latency format that irqsoff,
       * wakeup and friends (or the latency-format option) switch to. */
      if (memmem (line, line_end - line, "FUNCTION CALLS", strlen ("FUNCTION CALLS")) != NULL ||
          memmem (line, line_end - line, "latency trace v", strlen ("latency trace v")) != NULL ||
          memmem (line, line_end - line, "cmd     pid", strlen ("cmd     pid")) != NULL)
        saw_other_layout = TRUE;
      if (!process_line (self, line, line_end, offset, &local_error))
        {
          finish (self, local_error);
          break;
        }
    }

  if (saw_other_layout && !saw_columns)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED,
                   "%s: offset 0: the '%s' tracer's layout (no TASK-PID column) is not "
                   "supported; only the event and function layouts are",
                   path, self->tracer ? self->tracer : "unknown");
      return FALSE;
    }

  /* The ends of a pipe cannot be read ahead of the reader. */
  if (regular && !self->done)
    span_hint_read (self, self->buf_offset + self->buf_pos, st.st_size);

  return TRUE;
}

/* Whether the head's complete lines look like event lines: trace_pipe
 * output has no header, so its first lines have to speak for it. */
static guint
probe_lines (const char *head,
             const char *end)
{
  const char *p = head;
  guint events = 0;
  guint lines = 0;

  while (p < end && lines < 16)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *line_end;
      TextLine tl;
      guint cpu;
      guint64 count;

      if (nl == NULL)
        break;
      line_end = (nl > p && nl[-1] == '\r') ? nl - 1 : nl;

      if (parse_event_line (p, line_end, NULL, &tl) == NULL)
        events++;
      else if (!(p < line_end && p[0] == '#') &&
               !parse_lost_line (p, line_end, &cpu, &count) &&
               !is_ignorable (p, line_end))
        return 0;

      lines++;
      p = nl + 1;
    }

  return events > 0 ? 60 : 0;
}

static guint
strata_ftrace_text_source_probe (const guint8 *head,
                                 gsize         head_len)
{
  const char *text = (const char *) head;

  /* Text has no NUL bytes; this rules out every binary format at once. */
  if (memchr (head, '\0', head_len) != NULL)
    return 0;

  if (HAS_PREFIX (text, text + head_len, "# tracer:"))
    return 90;

  return probe_lines (text, text + head_len);
}

static void
strata_ftrace_text_source_finalize (GObject *object)
{
  StrataFtraceTextSource *self = (StrataFtraceTextSource *) object;

  close_fd (&self->fd);
  g_clear_pointer (&self->buf, g_free);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->tracer, g_free);
  g_clear_pointer (&self->run, g_free);
  g_clear_pointer (&self->run_seq, g_free);
  g_clear_pointer (&self->heap, g_free);
  g_clear_pointer (&self->losses, g_array_unref);
  g_clear_error (&self->error);

  G_OBJECT_CLASS (strata_ftrace_text_source_parent_class)->finalize (object);
}

static void
strata_ftrace_text_source_class_init (StrataFtraceTextSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  StrataSourceClass *source_class = STRATA_SOURCE_CLASS (klass);

  object_class->finalize = strata_ftrace_text_source_finalize;

  source_class->probe = strata_ftrace_text_source_probe;
  source_class->open = strata_ftrace_text_source_open;
  source_class->read_batch = strata_ftrace_text_source_read_batch;
  strata_ftrace_text_records_class_init (source_class);
}

static void
strata_ftrace_text_source_init (StrataFtraceTextSource *self)
{
  self->fd = -1;
  self->run_alloc = 256;
  self->run = g_new (StrataEvent, self->run_alloc);
  self->run_seq = g_new (guint64, self->run_alloc);
  self->losses = g_array_new (FALSE, FALSE, sizeof (PendingLoss));
  self->last_delivered_ts = G_MININT64;
  self->max_ts = G_MININT64;
}

/**
 * strata_plugin_ftrace_text_register:
 *
 * Registers the reader of ftrace text output on the "strata-source"
 * extension point. It scores below the binary formats, whose magic numbers
 * are surer than the shape of a line of text.
 */
void
strata_plugin_ftrace_text_register (void)
{
  g_io_extension_point_implement (STRATA_SOURCE_EXTENSION_POINT,
                                  STRATA_TYPE_FTRACE_TEXT_SOURCE,
                                  "ftrace-text", 50);
}
