/* strata-ftrace-dat-layout.c
 *
 * The structural check of a trace.dat file, done before libtracecmd sees it.
 * libtracecmd reads its input trustingly: it allocates whatever a length
 * field says, strdup()s option strings that need not be terminated, and
 * crashes on some truncated files. This walk visits every structure the
 * library will visit (the initial header; in version 6 the header blocks,
 * event formats, options and CPU table in sequence; in version 7 each
 * options section and the sections and flyrecord buffers they point to,
 * decompressing zstd sections to check inside them), with every length
 * checked against the bytes that are really there and against limits no
 * real trace reaches. The first problem becomes a GError that names the
 * file, the offset and the cause. It reads metadata only: the cost does not
 * grow with the amount of trace data, except for one chunk header per
 * compressed chunk, kept in the layout so the source can read the chunks
 * itself. The pages are checked by the source as it reads them; only each
 * CPU's first page, which libtracecmd loads when it opens the file, is
 * checked here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "strata-error.h"
#include "strata-ftrace-dat-private.h"
#include "strata-file-io.h"
#include "strata-tracecmd-private.h"

/* Limits well above anything the kernel or trace-cmd produce; they only
 * stop a damaged length field from becoming a huge allocation. */
#define MAX_HEADER_BLOCK      (64 * 1024)
#define MAX_FORMAT_FILE       (1024 * 1024)
#define MAX_FORMAT_COUNT      65536
#define MAX_SYSTEM_NAME       1024
#define MAX_OPTION_SIZE       (64 * 1024 * 1024)
#define MAX_SECTION_SIZE      (G_GUINT64_CONSTANT (1) << 32)
#define MAX_CHUNK_SIZE        (256 * 1024 * 1024)
#define MAX_CPUS              8192
#define MAX_OPTIONS_SECTIONS  4096
#define MAX_PAGE_SIZE         (1024 * 1024)

/* Section and option ids of the file format (trace-cmd.dat(5)). */
enum
{
  OPT_DONE = 0,
  OPT_DATE = 1,
  OPT_CPUSTAT = 2,
  OPT_BUFFER = 3,
  OPT_TRACECLOCK = 4,
  OPT_UNAME = 5,
  OPT_HOOK = 6,
  OPT_OFFSET = 7,
  OPT_CPUCOUNT = 8,
  OPT_VERSION = 9,
  OPT_PROCMAPS = 10,
  OPT_TRACEID = 11,
  OPT_TIME_SHIFT = 12,
  OPT_GUEST = 13,
  OPT_TSC2NSEC = 14,
  OPT_STRINGS = 15,
  OPT_HEADER_INFO = 16,
  OPT_FTRACE_EVENTS = 17,
  OPT_EVENT_FORMATS = 18,
  OPT_KALLSYMS = 19,
  OPT_PRINTK = 20,
  OPT_CMDLINES = 21,
  OPT_BUFFER_TEXT = 22,
};

#define SECTION_FL_COMPRESS 1

/* A reader over either a range of the file or a decompressed section in
 * memory. Positions in messages are file offsets; inside a decompressed
 * section the section's offset is given with the position inside it. */
typedef struct
{
  StrataFtraceDatLayout *layout;
  int                    fd;
  const guint8          *mem;
  guint64                pos;
  guint64                end;
  guint64                section_offset;
  const char            *section_name;
} Cursor;

static void
buffer_free (gpointer data)
{
  StrataFtraceDatBuffer *buffer = data;

  g_free (buffer->name);
  g_array_unref (buffer->cpus);
  g_free (buffer);
}

static StrataFtraceDatBuffer *
add_buffer (StrataFtraceDatLayout *layout,
            const char            *name,
            guint64                offset)
{
  StrataFtraceDatBuffer *buffer = g_new0 (StrataFtraceDatBuffer, 1);

  buffer->name = g_strdup (name);
  buffer->offset = offset;
  buffer->cpus = g_array_new (FALSE, TRUE, sizeof (StrataFtraceDatCpu));
  g_ptr_array_add (layout->buffers, buffer);

  return buffer;
}

StrataFtraceDatLayout *
strata_ftrace_dat_layout_new (void)
{
  StrataFtraceDatLayout *layout = g_new0 (StrataFtraceDatLayout, 1);

  layout->buffers = g_ptr_array_new_with_free_func (buffer_free);
  layout->chunks = g_array_new (FALSE, FALSE, sizeof (StrataFtraceDatChunk));

  return layout;
}

void
strata_ftrace_dat_layout_free (StrataFtraceDatLayout *layout)
{
  if (layout == NULL)
    return;

  g_free (layout->display_name);
  g_free (layout->compression);
  g_free (layout->compression_version);
  g_ptr_array_unref (layout->buffers);
  g_array_unref (layout->chunks);
  g_clear_error (&layout->data_truncated);
  g_free (layout);
}

static gboolean G_GNUC_PRINTF (5, 6)
fail (Cursor      *c,
      GError     **error,
      int          code,
      guint64      offset,
      const char  *format,
      ...)
{
  g_autofree char *cause = NULL;
  va_list args;

  va_start (args, format);
  cause = g_strdup_vprintf (format, args);
  va_end (args);

  if (c->mem != NULL)
    g_set_error (error, STRATA_ERROR, code,
                 "%s: offset %" G_GUINT64_FORMAT " (byte %" G_GUINT64_FORMAT
                 " of the decompressed %s section): %s",
                 c->layout->display_name, c->section_offset, offset,
                 c->section_name, cause);
  else
    g_set_error (error, STRATA_ERROR, code,
                 "%s: offset %" G_GUINT64_FORMAT ": %s",
                 c->layout->display_name, offset, cause);

  return FALSE;
}

/* Checks that @len bytes are there at the cursor, with an error that says
 * whether the file or the enclosing section ends too soon. */
static gboolean
cursor_check (Cursor      *c,
              guint64      len,
              const char  *what,
              GError     **error)
{
  if (len <= c->end - c->pos)
    return TRUE;

  if (c->mem == NULL && c->end == c->layout->file_size)
    return fail (c, error, STRATA_ERROR_TRUNCATED, c->pos,
                 "%s runs past the end of the file (needs %" G_GUINT64_FORMAT
                 " bytes, %" G_GUINT64_FORMAT " are left, file is %"
                 G_GUINT64_FORMAT " bytes)",
                 what, len, c->end - c->pos, c->layout->file_size);

  return fail (c, error, STRATA_ERROR_CORRUPT, c->pos,
               "%s runs past the end of its section (needs %" G_GUINT64_FORMAT
               " bytes, %" G_GUINT64_FORMAT " are left)",
               what, len, c->end - c->pos);
}

static gboolean
cursor_read (Cursor      *c,
             void        *buf,
             gsize        len,
             const char  *what,
             GError     **error)
{
  int errsv = 0;

  if (!cursor_check (c, len, what, error))
    return FALSE;

  if (c->mem != NULL)
    memcpy (buf, c->mem + c->pos, len);
  else if (!strata_file_read_exact (c->fd, buf, len, c->pos, &errsv))
    {
      if (errsv == 0)
        return fail (c, error, STRATA_ERROR_TRUNCATED, c->pos,
                     "%s: the file ended while it was read", what);
      return fail (c, error, STRATA_ERROR_IO, c->pos, "reading %s: %s",
                   what, g_strerror (errsv));
    }

  c->pos += len;

  return TRUE;
}

static gboolean
cursor_skip (Cursor      *c,
             guint64      len,
             const char  *what,
             GError     **error)
{
  if (!cursor_check (c, len, what, error))
    return FALSE;
  c->pos += len;
  return TRUE;
}

static gboolean
cursor_u16 (Cursor      *c,
            guint16     *v,
            const char  *what,
            GError     **error)
{
  if (!cursor_read (c, v, 2, what, error))
    return FALSE;
  *v = c->layout->big_endian ? GUINT16_FROM_BE (*v) : GUINT16_FROM_LE (*v);
  return TRUE;
}

static gboolean
cursor_u32 (Cursor      *c,
            guint32     *v,
            const char  *what,
            GError     **error)
{
  if (!cursor_read (c, v, 4, what, error))
    return FALSE;
  *v = c->layout->big_endian ? GUINT32_FROM_BE (*v) : GUINT32_FROM_LE (*v);
  return TRUE;
}

static gboolean
cursor_u64 (Cursor      *c,
            guint64     *v,
            const char  *what,
            GError     **error)
{
  if (!cursor_read (c, v, 8, what, error))
    return FALSE;
  *v = c->layout->big_endian ? GUINT64_FROM_BE (*v) : GUINT64_FROM_LE (*v);
  return TRUE;
}

/* A nul-terminated string of at most @max bytes before the nul. */
static gboolean
cursor_string (Cursor      *c,
               gsize        max,
               const char  *what,
               char       **out,
               GError     **error)
{
  g_autoptr(GString) str = g_string_new (NULL);
  guint64 start = c->pos;

  for (;;)
    {
      char ch;

      if (!cursor_read (c, &ch, 1, what, error))
        return FALSE;
      if (ch == '\0')
        break;
      if (str->len >= max)
        return fail (c, error, STRATA_ERROR_CORRUPT, start,
                     "%s is not terminated within %" G_GSIZE_FORMAT " bytes",
                     what, max);
      g_string_append_c (str, ch);
    }

  if (out != NULL)
    *out = g_string_free (g_steal_pointer (&str), FALSE);

  return TRUE;
}

static guint32
get_u32 (StrataFtraceDatLayout *layout,
         const guint8          *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return layout->big_endian ? GUINT32_FROM_BE (v) : GUINT32_FROM_LE (v);
}

static guint64
get_u64 (StrataFtraceDatLayout *layout,
         const guint8          *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return layout->big_endian ? GUINT64_FROM_BE (v) : GUINT64_FROM_LE (v);
}

/* A block whose length precedes it, as a 32- or 64-bit word. */
static gboolean
skip_sized_block (Cursor      *c,
                  guint        width,
                  guint64      max,
                  const char  *what,
                  GError     **error)
{
  guint64 start = c->pos;
  guint64 size;

  if (width == 4)
    {
      guint32 size32;

      if (!cursor_u32 (c, &size32, what, error))
        return FALSE;
      size = size32;
    }
  else if (!cursor_u64 (c, &size, what, error))
    return FALSE;

  if (size > max)
    return fail (c, error, STRATA_ERROR_CORRUPT, start,
                 "%s claims %" G_GUINT64_FORMAT " bytes (at most %"
                 G_GUINT64_FORMAT " are plausible)", what, size, max);

  return cursor_skip (c, size, what, error);
}

/* An event format file: the kernel writes them in ASCII, and
 * libtraceevent's parser crashes on some other bytes, so anything else is
 * refused here. */
static gboolean
check_format_text (Cursor      *c,
                   guint        width,
                   guint64      max,
                   const char  *what,
                   GError     **error)
{
  guint64 start = c->pos;
  guint64 size;
  guint8 buf[4096];

  if (width == 4)
    {
      guint32 size32;

      if (!cursor_u32 (c, &size32, what, error))
        return FALSE;
      size = size32;
    }
  else if (!cursor_u64 (c, &size, what, error))
    return FALSE;

  if (size > max)
    return fail (c, error, STRATA_ERROR_CORRUPT, start,
                 "%s claims %" G_GUINT64_FORMAT " bytes (at most %"
                 G_GUINT64_FORMAT " are plausible)", what, size, max);

  if (!cursor_check (c, size, what, error))
    return FALSE;

  while (size > 0)
    {
      gsize len = MIN (size, sizeof buf);
      guint64 at = c->pos;

      if (!cursor_read (c, buf, len, what, error))
        return FALSE;

      for (gsize i = 0; i < len; i++)
        if ((buf[i] < 0x20 || buf[i] > 0x7e) && buf[i] != '\n' && buf[i] != '\t' &&
            buf[i] != '\r' && buf[i] != '\0')
          return fail (c, error, STRATA_ERROR_CORRUPT, at + i,
                       "%s contains the byte 0x%02x, which is not text", what, buf[i]);

      size -= len;
    }

  return TRUE;
}

static gboolean
expect_tag (Cursor      *c,
            const char  *tag,
            gsize        len,
            GError     **error)
{
  char buf[16];
  guint64 start = c->pos;

  g_assert (len <= sizeof buf);

  if (!cursor_read (c, buf, len, tag, error))
    return FALSE;

  if (memcmp (buf, tag, len) != 0)
    return fail (c, error, STRATA_ERROR_CORRUPT, start,
                 "expected the \"%s\" block", tag);

  return TRUE;
}

static gboolean
walk_header_info (Cursor  *c,
                  GError **error)
{
  return expect_tag (c, "header_page", 12, error) &&
         check_format_text (c, 8, MAX_HEADER_BLOCK, "the header_page format", error) &&
         expect_tag (c, "header_event", 13, error) &&
         check_format_text (c, 8, MAX_HEADER_BLOCK, "the header_event format", error);
}

static gboolean
walk_ftrace_formats (Cursor  *c,
                     GError **error)
{
  guint64 start = c->pos;
  guint32 count;

  if (!cursor_u32 (c, &count, "the ftrace event format count", error))
    return FALSE;
  if (count > MAX_FORMAT_COUNT)
    return fail (c, error, STRATA_ERROR_CORRUPT, start,
                 "%u ftrace event formats is implausible", count);

  for (guint32 i = 0; i < count; i++)
    if (!check_format_text (c, 8, MAX_FORMAT_FILE, "an ftrace event format", error))
      return FALSE;

  return TRUE;
}

static gboolean
walk_event_formats (Cursor  *c,
                    GError **error)
{
  guint64 start = c->pos;
  guint32 systems;

  if (!cursor_u32 (c, &systems, "the event system count", error))
    return FALSE;
  if (systems > MAX_FORMAT_COUNT)
    return fail (c, error, STRATA_ERROR_CORRUPT, start,
                 "%u event systems is implausible", systems);

  for (guint32 i = 0; i < systems; i++)
    {
      guint32 count;

      if (!cursor_string (c, MAX_SYSTEM_NAME, "an event system name", NULL, error))
        return FALSE;

      start = c->pos;
      if (!cursor_u32 (c, &count, "an event system's event count", error))
        return FALSE;
      if (count > MAX_FORMAT_COUNT)
        return fail (c, error, STRATA_ERROR_CORRUPT, start,
                     "%u events in one system is implausible", count);

      for (guint32 j = 0; j < count; j++)
        if (!check_format_text (c, 8, MAX_FORMAT_FILE, "an event format", error))
          return FALSE;
    }

  return TRUE;
}

static gboolean
walk_section_body (Cursor  *c,
                   guint    id,
                   GError **error)
{
  switch (id)
    {
    case OPT_HEADER_INFO:
      return walk_header_info (c, error);
    case OPT_FTRACE_EVENTS:
      return walk_ftrace_formats (c, error);
    case OPT_EVENT_FORMATS:
      return walk_event_formats (c, error);
    case OPT_KALLSYMS:
      return skip_sized_block (c, 4, G_MAXUINT32, "the kallsyms block", error);
    case OPT_PRINTK:
      return skip_sized_block (c, 4, G_MAXUINT32, "the printk formats block", error);
    case OPT_CMDLINES:
      return skip_sized_block (c, 8, G_MAXUINT32, "the saved command lines block", error);
    default:
      return TRUE;
    }
}

static const char *
section_name (guint id)
{
  switch (id)
    {
    case OPT_DONE: return "options";
    case OPT_BUFFER: return "flyrecord buffer";
    case OPT_HEADER_INFO: return "header info";
    case OPT_FTRACE_EVENTS: return "ftrace event formats";
    case OPT_EVENT_FORMATS: return "event formats";
    case OPT_KALLSYMS: return "kallsyms";
    case OPT_PRINTK: return "printk formats";
    case OPT_CMDLINES: return "saved command lines";
    case OPT_BUFFER_TEXT: return "latency buffer";
    default: return "unknown";
    }
}

/* Reads the 16-byte header of the version 7 section at @offset, checks that
 * it is the one expected and that its body is in the file. */
static gboolean
read_section_header (StrataFtraceDatLayout  *layout,
                     int                     fd,
                     guint64                 offset,
                     guint                   expected_id,
                     guint16                *flags,
                     guint64                *size,
                     GError                **error)
{
  Cursor c = { layout, fd, NULL, offset, layout->file_size, 0, NULL };
  g_autofree char *what = g_strdup_printf ("the header of the %s section",
                                           section_name (expected_id));
  guint16 id;
  guint32 string_id;

  if (offset > layout->file_size)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_TRUNCATED,
                   "%s: offset %" G_GUINT64_FORMAT ": the %s section is past "
                   "the end of the file (file is %" G_GUINT64_FORMAT " bytes)",
                   layout->display_name, offset, section_name (expected_id),
                   layout->file_size);
      return FALSE;
    }

  if (!cursor_u16 (&c, &id, what, error) ||
      !cursor_u16 (&c, flags, what, error) ||
      !cursor_u32 (&c, &string_id, what, error) ||
      !cursor_u64 (&c, size, what, error))
    return FALSE;

  if (id != expected_id)
    return fail (&c, error, STRATA_ERROR_CORRUPT, offset,
                 "expected the %s section (id %u), found a section with id %u",
                 section_name (expected_id), expected_id, id);

  if (*size > c.end - c.pos)
    return fail (&c, error, STRATA_ERROR_TRUNCATED, offset,
                 "the %s section runs past the end of the file (ends at %"
                 G_GUINT64_FORMAT ", file is %" G_GUINT64_FORMAT " bytes)",
                 section_name (expected_id), offset + 16 + *size,
                 layout->file_size);

  return TRUE;
}

/* Loads the body of a section, decompressing it when it is compressed.
 * Returns NULL without an error when the compression is one this walk does
 * not decode (the library does; its header has been checked). */
static GBytes *
load_section_body (StrataFtraceDatLayout  *layout,
                   int                     fd,
                   guint64                 offset,
                   guint                   id,
                   guint16                 flags,
                   guint64                 size,
                   GError                **error)
{
  Cursor c = { layout, fd, NULL, offset + 16, offset + 16 + size, 0, NULL };
  g_autofree guint8 *packed = NULL;
  g_autofree guint8 *data = NULL;
  guint32 csize, usize;
  gsize got;

  if (!(flags & SECTION_FL_COMPRESS))
    {
      if (size > MAX_SECTION_SIZE)
        {
          fail (&c, error, STRATA_ERROR_CORRUPT, offset,
                "the %s section claims %" G_GUINT64_FORMAT " bytes",
                section_name (id), size);
          return NULL;
        }
      data = g_malloc (size + 1);
      if (!cursor_read (&c, data, size, section_name (id), error))
        return NULL;
      return g_bytes_new_take (g_steal_pointer (&data), size);
    }

  if (g_strcmp0 (layout->compression, "none") == 0)
    {
      fail (&c, error, STRATA_ERROR_CORRUPT, offset,
            "the %s section is marked compressed in a file without compression",
            section_name (id));
      return NULL;
    }

  if (!cursor_u32 (&c, &csize, "a compression header", error) ||
      !cursor_u32 (&c, &usize, "a compression header", error))
    return NULL;

  if (csize > c.end - c.pos)
    {
      fail (&c, error, STRATA_ERROR_CORRUPT, offset + 16,
            "the compressed %s data (%u bytes) is larger than its section",
            section_name (id), csize);
      return NULL;
    }
  if (usize > MAX_CHUNK_SIZE)
    {
      fail (&c, error, STRATA_ERROR_CORRUPT, offset + 16,
            "the %s section claims %u bytes uncompressed", section_name (id),
            usize);
      return NULL;
    }

  if (g_strcmp0 (layout->compression, "zstd") != 0)
    return NULL;

  packed = g_malloc (MAX (csize, 1));
  if (!cursor_read (&c, packed, csize, section_name (id), error))
    return NULL;

  data = g_malloc (MAX (usize, 1));
  got = ZSTD_decompress (data, usize, packed, csize);
  if (ZSTD_isError (got) || got != usize)
    {
      fail (&c, error, STRATA_ERROR_CORRUPT, offset + 24,
            "the compressed %s section does not decompress to its %u bytes (%s)",
            section_name (id), usize,
            ZSTD_isError (got) ? ZSTD_getErrorName (got) : "wrong size");
      return NULL;
    }

  return g_bytes_new_take (g_steal_pointer (&data), usize);
}

static gboolean
walk_section (StrataFtraceDatLayout  *layout,
              int                     fd,
              guint64                 offset,
              guint                   id,
              GError                **error)
{
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GError) local_error = NULL;
  guint16 flags;
  guint64 size;
  Cursor c;
  gsize len;

  if (!read_section_header (layout, fd, offset, id, &flags, &size, error))
    return FALSE;

  body = load_section_body (layout, fd, offset, id, flags, size, &local_error);
  if (body == NULL)
    {
      if (local_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      return TRUE;
    }

  c = (Cursor) { layout, fd, g_bytes_get_data (body, &len), 0, 0, offset, section_name (id) };
  c.end = len;

  return walk_section_body (&c, id, error);
}

/**
 * strata_ftrace_dat_layout_check_page:
 * @layout: the file's layout
 * @page: the start of a ring-buffer page (at least 16 bytes)
 * @commit: (out): the bytes of events it holds
 *
 * kbuffer, which libtracecmd hands every page to, trusts the page's commit
 * field and reads as far as it says; a damaged one sends it anywhere in
 * memory. This is the check to make before it sees a page.
 *
 * Returns: %TRUE if the commit fits in the page.
 */
gboolean
strata_ftrace_dat_layout_check_page (const StrataFtraceDatLayout *layout,
                                     const guint8                *page,
                                     guint64                     *commit)
{
  guint header = 8 + layout->commit_size;
  guint64 v;

  if (layout->commit_size == 8)
    {
      memcpy (&v, page + 8, 8);
      v = layout->big_endian ? GUINT64_FROM_BE (v) : GUINT64_FROM_LE (v);
    }
  else
    {
      guint32 v32;

      memcpy (&v32, page + 8, 4);
      v = layout->big_endian ? GUINT32_FROM_BE (v32) : GUINT32_FROM_LE (v32);
    }

  /* The top two bits of the commit word flag missed events. */
  *commit = v & 0x3fffffff;

  return *commit <= layout->page_size - header;
}

void
strata_ftrace_dat_inflater_clear (StrataFtraceDatInflater *inflater)
{
  g_clear_pointer (&inflater->dctx, ZSTD_freeDCtx);
  g_clear_pointer (&inflater->packed, g_free);
  inflater->packed_size = 0;
}

/**
 * strata_ftrace_dat_layout_inflate:
 * @layout: the file's layout
 * @fd: the open file
 * @chunk: one of @layout->chunks
 * @cpu: the CPU the chunk belongs to, for messages
 * @index: the chunk's index among the CPU's, for messages
 * @inflater: what is reused from one chunk to the next
 * @out: room for @chunk->usize bytes
 * @error: why the chunk could not be decompressed
 *
 * Decompresses one chunk of ring-buffer pages. The size the chunk header
 * claims was bounded by the layout walk; here it must also be the size the
 * zstd frame declares and the size that comes out of it, so a damaged
 * header can neither overflow @out nor leave part of it unwritten.
 *
 * Returns: %TRUE if @out holds exactly @chunk->usize decompressed bytes.
 */
gboolean
strata_ftrace_dat_layout_inflate (const StrataFtraceDatLayout  *layout,
                                  int                           fd,
                                  const StrataFtraceDatChunk   *chunk,
                                  guint                         cpu,
                                  guint                         index,
                                  StrataFtraceDatInflater      *inflater,
                                  guint8                       *out,
                                  GError                      **error)
{
  unsigned long long declared;
  int errsv = 0;
  gsize got;

  if (g_strcmp0 (layout->compression, "zstd") != 0)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_UNSUPPORTED,
                   "%s: offset %" G_GUINT64_FORMAT ": chunks compressed with "
                   "\"%s\" cannot be read", layout->display_name,
                   chunk->offset - 8, layout->compression);
      return FALSE;
    }

  if (inflater->packed_size < MAX (chunk->csize, 1))
    {
      g_free (inflater->packed);
      inflater->packed_size = MAX (chunk->csize, 1);
      inflater->packed = g_malloc (inflater->packed_size);
    }
  if (inflater->dctx == NULL)
    inflater->dctx = ZSTD_createDCtx ();
  if (inflater->dctx == NULL)
    g_error ("out of memory");

  if (!strata_file_read_exact (fd, inflater->packed, chunk->csize, chunk->offset, &errsv))
    {
      g_set_error (error, STRATA_ERROR, errsv == 0 ? STRATA_ERROR_TRUNCATED : STRATA_ERROR_IO,
                   "%s: offset %" G_GUINT64_FORMAT ": chunk %u of CPU %u could not "
                   "be read: %s", layout->display_name, chunk->offset - 8, index, cpu,
                   errsv == 0 ? "the file ended" : g_strerror (errsv));
      return FALSE;
    }

  declared = ZSTD_getFrameContentSize (inflater->packed, chunk->csize);
  if (declared == ZSTD_CONTENTSIZE_ERROR ||
      (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != chunk->usize))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset %" G_GUINT64_FORMAT ": chunk %u of CPU %u claims %u "
                   "bytes uncompressed, its zstd frame %s",
                   layout->display_name, chunk->offset - 8, index, cpu, chunk->usize,
                   declared == ZSTD_CONTENTSIZE_ERROR ? "is not valid"
                                                      : "declares another size");
      return FALSE;
    }

  got = ZSTD_decompressDCtx (inflater->dctx, out, chunk->usize,
                             inflater->packed, chunk->csize);
  if (ZSTD_isError (got) || got != chunk->usize)
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset %" G_GUINT64_FORMAT ": chunk %u of CPU %u does not "
                   "decompress to its %u bytes (%s)",
                   layout->display_name, chunk->offset - 8, index, cpu, chunk->usize,
                   ZSTD_isError (got) ? ZSTD_getErrorName (got) : "wrong size");
      return FALSE;
    }

  return TRUE;
}

/* libtracecmd loads the first page of every CPU when it opens the file,
 * before anything is read: that page is checked here, from the file or from
 * the first chunk. The others are checked by the source as it reads. */
static gboolean
check_first_page (StrataFtraceDatLayout     *layout,
                  int                        fd,
                  const StrataFtraceDatCpu  *cpu,
                  GError                   **error)
{
  g_autofree guint8 *first = NULL;
  guint8 header[16];
  guint64 commit;
  guint64 at = cpu->offset;
  int errsv = 0;

  if (cpu->n_chunks > 0)
    {
      const StrataFtraceDatChunk *chunk = &g_array_index (layout->chunks, StrataFtraceDatChunk,
                                                          cpu->first_chunk);
      StrataFtraceDatInflater inflater = { 0 };
      gboolean ok;

      first = g_malloc (chunk->usize);
      ok = strata_ftrace_dat_layout_inflate (layout, fd, chunk, cpu->cpu, 0, &inflater,
                                             first, error);
      strata_ftrace_dat_inflater_clear (&inflater);
      if (!ok)
        return FALSE;
      memcpy (header, first, sizeof header);
      at = chunk->offset - 8;
    }
  else if (cpu->size < sizeof header)
    return TRUE;
  else if (!strata_file_read_exact (fd, header, sizeof header, cpu->offset, &errsv))
    {
      g_set_error (error, STRATA_ERROR, errsv == 0 ? STRATA_ERROR_TRUNCATED : STRATA_ERROR_IO,
                   "%s: offset %" G_GUINT64_FORMAT ": the first page of CPU %u "
                   "could not be read", layout->display_name, cpu->offset, cpu->cpu);
      return FALSE;
    }

  if (!strata_ftrace_dat_layout_check_page (layout, header, &commit))
    {
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT,
                   "%s: offset %" G_GUINT64_FORMAT ": the first page of CPU %u claims %"
                   G_GUINT64_FORMAT " bytes of events in a %u-byte page",
                   layout->display_name, at, cpu->cpu, commit, layout->page_size);
      return FALSE;
    }

  return TRUE;
}

/* The flyrecord data of one buffer, version 7: a section holding each
 * CPU's pages, or with compression, each CPU's table of chunks. */
static gboolean
walk_flyrecord (StrataFtraceDatLayout  *layout,
                int                     fd,
                StrataFtraceDatBuffer  *buffer,
                GError                **error)
{
  guint16 flags;
  guint64 size;

  if (!read_section_header (layout, fd, buffer->offset, OPT_BUFFER, &flags, &size, error))
    return FALSE;

  buffer->compressed = (flags & SECTION_FL_COMPRESS) != 0;

  for (guint i = 0; i < buffer->cpus->len; i++)
    {
      StrataFtraceDatCpu *cpu = &g_array_index (buffer->cpus, StrataFtraceDatCpu, i);
      Cursor c = { layout, fd, NULL, cpu->offset, layout->file_size, 0, NULL };
      guint64 data_end;
      guint32 count;

      if (cpu->size == 0)
        continue;

      if (cpu->offset > layout->file_size || cpu->size > layout->file_size - cpu->offset)
        return fail (&c, error, STRATA_ERROR_TRUNCATED, cpu->offset,
                     "CPU %u data runs past the end of the file (ends at %"
                     G_GUINT64_FORMAT ", file is %" G_GUINT64_FORMAT " bytes)",
                     cpu->cpu, cpu->offset + cpu->size, layout->file_size);

      if (cpu->offset < buffer->offset + 16 ||
          cpu->offset + cpu->size > buffer->offset + 16 + size + 4)
        return fail (&c, error, STRATA_ERROR_CORRUPT, cpu->offset,
                     "CPU %u data (%" G_GUINT64_FORMAT " bytes) lies outside "
                     "its flyrecord section at offset %" G_GUINT64_FORMAT,
                     cpu->cpu, cpu->size, buffer->offset);

      if (!(flags & SECTION_FL_COMPRESS))
        {
          if (!check_first_page (layout, fd, cpu, error))
            return FALSE;
          continue;
        }

      /* The size counts the chunks but not the count before them. */
      data_end = cpu->offset + 4 + cpu->size;
      c.end = MIN (data_end, layout->file_size);

      if (!cursor_u32 (&c, &count, "a CPU's chunk count", error))
        return FALSE;
      if (count > cpu->size / 8)
        return fail (&c, error, STRATA_ERROR_CORRUPT, cpu->offset,
                     "CPU %u claims %u compressed chunks in %" G_GUINT64_FORMAT
                     " bytes", cpu->cpu, count, cpu->size);

      cpu->first_chunk = layout->chunks->len;
      cpu->n_chunks = count;
      cpu->usize = 0;

      for (guint32 j = 0; j < count; j++)
        {
          StrataFtraceDatChunk chunk;
          guint64 at = c.pos;
          guint32 csize, usize;

          if (!cursor_u32 (&c, &csize, "a chunk header", error) ||
              !cursor_u32 (&c, &usize, "a chunk header", error))
            return FALSE;
          if (usize == 0 || usize > MAX_CHUNK_SIZE || usize % layout->page_size != 0)
            return fail (&c, error, STRATA_ERROR_CORRUPT, at,
                         "chunk %u of CPU %u claims %u bytes uncompressed "
                         "(not a multiple of the %u-byte page)",
                         j, cpu->cpu, usize, layout->page_size);
          if (csize > c.end - c.pos)
            return fail (&c, error, STRATA_ERROR_CORRUPT, at,
                         "chunk %u of CPU %u (%u bytes) runs past the CPU's "
                         "data (ends at %" G_GUINT64_FORMAT ")",
                         j, cpu->cpu, csize, data_end);
          chunk.offset = c.pos;
          chunk.csize = csize;
          chunk.usize = usize;
          g_array_append_val (layout->chunks, chunk);
          cpu->usize += usize;
          if (!cursor_skip (&c, csize, "a compressed chunk", error))
            return FALSE;
        }

      if (count > 0 && !check_first_page (layout, fd, cpu, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
parse_buffer_option_v7 (Cursor        *c,
                        guint64        at,
                        const guint8  *data,
                        guint32        size,
                        GError       **error)
{
  StrataFtraceDatLayout *layout = c->layout;
  StrataFtraceDatBuffer *buffer;
  const guint8 *p = data + 8;
  const guint8 *end = data + size;
  const guint8 *name, *clock, *nul;
  guint32 page_size, n_cpus;

  if (size < 8)
    goto short_option;

  name = p;
  if ((nul = memchr (p, '\0', end - p)) == NULL)
    goto short_option;
  clock = nul + 1;
  if ((nul = memchr (clock, '\0', end - clock)) == NULL)
    goto short_option;
  p = nul + 1;
  if (end - p < 8)
    goto short_option;
  page_size = get_u32 (layout, p);
  n_cpus = get_u32 (layout, p + 4);
  p += 8;

  if (page_size != layout->page_size)
    return fail (c, error, STRATA_ERROR_CORRUPT, at,
                 "buffer \"%s\" has a page size of %u bytes, the file %u",
                 name, page_size, layout->page_size);
  if (n_cpus > MAX_CPUS || (guint64) n_cpus * 20 > (guint64) (end - p))
    return fail (c, error, STRATA_ERROR_CORRUPT, at,
                 "buffer \"%s\" claims %u CPUs in a %u-byte option",
                 name, n_cpus, size);

  buffer = add_buffer (layout, (const char *) name, get_u64 (layout, data));
  for (guint32 i = 0; i < n_cpus; i++, p += 20)
    {
      StrataFtraceDatCpu cpu = { 0 };

      cpu.cpu = get_u32 (layout, p);
      cpu.offset = get_u64 (layout, p + 4);
      cpu.size = get_u64 (layout, p + 12);
      if (cpu.cpu >= MAX_CPUS)
        return fail (c, error, STRATA_ERROR_CORRUPT, at,
                     "buffer \"%s\" names CPU %u", name, cpu.cpu);
      g_array_append_val (buffer->cpus, cpu);
    }

  return TRUE;

short_option:
  return fail (c, error, STRATA_ERROR_CORRUPT, at,
               "a buffer option of %u bytes is too short for its fields", size);
}

/* Walks one run of options: id, size, data, up to DONE. In version 7,
 * *next gets the offset of the next options section (0 for none). */
static gboolean
walk_options (Cursor   *c,
              guint64  *next,
              GError  **error)
{
  StrataFtraceDatLayout *layout = c->layout;

  *next = 0;

  for (;;)
    {
      g_autofree guint8 *data = NULL;
      guint64 at = c->pos;
      guint16 id;
      guint32 size;

      if (!cursor_u16 (c, &id, "an option id", error))
        return FALSE;

      /* Version 6 ends its options with a bare zero id. */
      if (id == OPT_DONE && layout->version < 7)
        return TRUE;

      if (!cursor_u32 (c, &size, "an option size", error))
        return FALSE;
      if (size > MAX_OPTION_SIZE)
        return fail (c, error, STRATA_ERROR_CORRUPT, at,
                     "option %u claims %u bytes", id, size);
      if (!cursor_check (c, size, "an option", error))
        return FALSE;

      data = g_malloc (size + 1);
      if (!cursor_read (c, data, size, "an option", error))
        return FALSE;
      data[size] = '\0';

      switch (id)
        {
        case OPT_DONE:
          if (size != 8)
            return fail (c, error, STRATA_ERROR_CORRUPT, at,
                         "the last option of a section has %u bytes, not 8", size);
          *next = get_u64 (layout, data);
          return TRUE;

        case OPT_DATE:
        case OPT_OFFSET:
        case OPT_TIME_SHIFT:
          /* libtracecmd changes every timestamp it reads by these. */
          layout->adjusts_time = TRUE;
          if (id == OPT_TIME_SHIFT)
            break;
          G_GNUC_FALLTHROUGH;
        case OPT_CPUSTAT:
        case OPT_TRACECLOCK:
        case OPT_UNAME:
        case OPT_HOOK:
        case OPT_VERSION:
        case OPT_PROCMAPS:
          /* libtracecmd copies these with strdup() and parses them with
           * sscanf(): they must be terminated inside the option. */
          if (size == 0 || memchr (data, '\0', size) == NULL)
            return fail (c, error, STRATA_ERROR_CORRUPT, at,
                         "the text of option %u is not nul-terminated", id);
          break;

        case OPT_CPUCOUNT:
          if (size < 4)
            return fail (c, error, STRATA_ERROR_CORRUPT, at,
                         "the CPU count option has %u bytes, not 4", size);
          break;

        case OPT_TRACEID:
          if (size < 8)
            return fail (c, error, STRATA_ERROR_CORRUPT, at,
                         "the trace id option has %u bytes, not 8", size);
          break;

        case OPT_TSC2NSEC:
          layout->adjusts_time = TRUE;
          if (size < 16)
            return fail (c, error, STRATA_ERROR_CORRUPT, at,
                         "the TSC conversion option has %u bytes, not 16", size);
          break;

        case OPT_BUFFER:
          if (layout->version >= 7)
            {
              if (!parse_buffer_option_v7 (c, at, data, size, error))
                return FALSE;
            }
          else
            {
              if (size < 9 || memchr (data + 8, '\0', size - 8) == NULL)
                return fail (c, error, STRATA_ERROR_CORRUPT, at,
                             "a buffer option of %u bytes has no terminated name",
                             size);
              add_buffer (layout, (const char *) data + 8, get_u64 (layout, data));
            }
          break;

        case OPT_HEADER_INFO:
        case OPT_FTRACE_EVENTS:
        case OPT_EVENT_FORMATS:
        case OPT_KALLSYMS:
        case OPT_PRINTK:
        case OPT_CMDLINES:
          if (layout->version < 7)
            break;
          if (size < 8)
            return fail (c, error, STRATA_ERROR_CORRUPT, at,
                         "option %u has %u bytes, not 8", id, size);
          if (!walk_section (layout, c->fd, get_u64 (layout, data), id, error))
            return FALSE;
          break;

        case OPT_BUFFER_TEXT:
          layout->latency = TRUE;
          break;

        default:
          break;
        }
    }
}

/* Version 6: the CPU table of a buffer, after its "options"/"flyrecord" tags.
 * A CPU whose data runs past the end of the file is the only damage that is
 * not fatal here: it is what a cut file looks like, and pages before the cut
 * can be read. */
static gboolean
walk_cpu_table_v6 (Cursor                 *c,
                   StrataFtraceDatBuffer  *buffer,
                   gboolean                top,
                   GError                **error)
{
  StrataFtraceDatLayout *layout = c->layout;
  char tag[10];
  guint64 at = c->pos;

  if (!cursor_read (c, tag, sizeof tag, "the data kind tag", error))
    return FALSE;

  if (memcmp (tag, "options  ", 10) == 0)
    {
      guint64 next;

      if (!top)
        return fail (c, error, STRATA_ERROR_CORRUPT, at,
                     "buffer \"%s\" has its own options", buffer->name);
      if (!walk_options (c, &next, error))
        return FALSE;
      at = c->pos;
      if (!cursor_read (c, tag, sizeof tag, "the data kind tag", error))
        return FALSE;
    }

  if (memcmp (tag, "latency  ", 10) == 0)
    {
      layout->latency = TRUE;
      return TRUE;
    }

  if (memcmp (tag, "flyrecord", 10) != 0)
    return fail (c, error, STRATA_ERROR_CORRUPT, at,
                 "expected \"flyrecord\" or \"latency\" before the CPU data");

  for (guint i = 0; i < layout->n_cpus; i++)
    {
      StrataFtraceDatCpu cpu = { i, 0, 0 };

      at = c->pos;
      if (!cursor_u64 (c, &cpu.offset, "the CPU data table", error) ||
          !cursor_u64 (c, &cpu.size, "the CPU data table", error))
        return FALSE;

      if (cpu.size > 0 &&
          (cpu.offset > layout->file_size || cpu.size > layout->file_size - cpu.offset))
        {
          if (layout->data_truncated == NULL && cpu.offset < layout->file_size)
            g_set_error (&layout->data_truncated, STRATA_ERROR, STRATA_ERROR_TRUNCATED,
                         "%s: offset %" G_GUINT64_FORMAT ": CPU %u data runs past "
                         "the end of the file (ends at %" G_GUINT64_FORMAT
                         ", file is %" G_GUINT64_FORMAT " bytes)",
                         layout->display_name, cpu.offset, i,
                         cpu.offset + cpu.size, layout->file_size);
          else if (cpu.offset >= layout->file_size && cpu.offset - layout->file_size > cpu.size)
            return fail (c, error, STRATA_ERROR_CORRUPT, at,
                         "CPU %u data is said to start at %" G_GUINT64_FORMAT
                         ", far past the end of the file (%" G_GUINT64_FORMAT " bytes)",
                         i, cpu.offset, layout->file_size);
          else if (layout->data_truncated == NULL)
            g_set_error (&layout->data_truncated, STRATA_ERROR, STRATA_ERROR_TRUNCATED,
                         "%s: offset %" G_GUINT64_FORMAT ": CPU %u data starts "
                         "past the end of the file (file is %" G_GUINT64_FORMAT
                         " bytes)", layout->display_name, cpu.offset, i,
                         layout->file_size);
        }
      if (cpu.size > 0 && cpu.offset < at)
        return fail (c, error, STRATA_ERROR_CORRUPT, at,
                     "CPU %u data is said to start at %" G_GUINT64_FORMAT
                     ", inside the file's header", i, cpu.offset);

      if (cpu.size > 0 && (layout->data_start == 0 || cpu.offset < layout->data_start))
        layout->data_start = cpu.offset;

      if (layout->data_truncated == NULL && !check_first_page (layout, c->fd, &cpu, error))
        return FALSE;

      g_array_append_val (buffer->cpus, cpu);
    }

  return TRUE;
}

static gboolean
walk_v6 (Cursor  *c,
         GError **error)
{
  StrataFtraceDatLayout *layout = c->layout;
  guint64 at;
  guint32 n_cpus;

  if (!walk_header_info (c, error) ||
      !walk_ftrace_formats (c, error) ||
      !walk_event_formats (c, error) ||
      !skip_sized_block (c, 4, G_MAXUINT32, "the kallsyms block", error) ||
      !skip_sized_block (c, 4, G_MAXUINT32, "the printk formats block", error) ||
      !skip_sized_block (c, 8, G_MAXUINT32, "the saved command lines block", error))
    return FALSE;

  at = c->pos;
  if (!cursor_u32 (c, &n_cpus, "the CPU count", error))
    return FALSE;
  if (n_cpus > MAX_CPUS)
    return fail (c, error, STRATA_ERROR_CORRUPT, at,
                 "%u CPUs is implausible", n_cpus);
  layout->n_cpus = n_cpus;

  add_buffer (layout, "", 0);
  if (!walk_cpu_table_v6 (c, g_ptr_array_index (layout->buffers, 0), TRUE, error))
    return FALSE;

  /* Instances added by the options: each has its tags and CPU table at the
   * offset the option gives. */
  for (guint i = 1; i < layout->buffers->len; i++)
    {
      StrataFtraceDatBuffer *buffer = g_ptr_array_index (layout->buffers, i);
      Cursor bc = { layout, c->fd, NULL, buffer->offset, layout->file_size, 0, NULL };

      if (buffer->offset >= layout->file_size)
        return fail (&bc, error, STRATA_ERROR_TRUNCATED, buffer->offset,
                     "buffer \"%s\" is said to be past the end of the file "
                     "(file is %" G_GUINT64_FORMAT " bytes)",
                     buffer->name, layout->file_size);
      if (!walk_cpu_table_v6 (&bc, buffer, FALSE, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
walk_v7 (Cursor  *c,
         GError **error)
{
  StrataFtraceDatLayout *layout = c->layout;
  g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *offsets = g_new0 (gint64, MAX_OPTIONS_SECTIONS);
  guint64 at = c->pos;
  guint64 next;
  guint64 last_end = 0;
  guint n_sections = 0;

  if (!cursor_string (c, 64, "the compression name", &layout->compression, error) ||
      !cursor_string (c, 64, "the compression version", &layout->compression_version, error))
    return FALSE;

  if (strcmp (layout->compression, "none") != 0 &&
      !tracecmd_compress_is_supported (layout->compression, layout->compression_version))
    return fail (c, error, STRATA_ERROR_UNSUPPORTED, at,
                 "the file is compressed with \"%s\" %s, which this build "
                 "cannot decompress", layout->compression,
                 layout->compression_version);

  at = c->pos;
  if (!cursor_u64 (c, &next, "the offset of the first options section", error))
    return FALSE;

  while (next != 0)
    {
      g_autoptr(GBytes) body = NULL;
      g_autoptr(GError) local_error = NULL;
      guint64 section = next;
      guint16 flags;
      guint64 size;
      Cursor oc;
      gsize len;

      if (n_sections == MAX_OPTIONS_SECTIONS ||
          g_hash_table_contains (seen, &section))
        return fail (c, error, STRATA_ERROR_CORRUPT, section,
                     "the chain of options sections loops");
      offsets[n_sections] = section;
      g_hash_table_add (seen, &offsets[n_sections]);
      n_sections++;

      if (!read_section_header (layout, c->fd, section, OPT_DONE, &flags, &size, error))
        return FALSE;

      body = load_section_body (layout, c->fd, section, OPT_DONE, flags, size, &local_error);
      if (body == NULL)
        {
          if (local_error != NULL)
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              return FALSE;
            }
          return fail (c, error, STRATA_ERROR_UNSUPPORTED, section,
                       "an options section compressed with \"%s\" cannot be checked",
                       layout->compression);
        }

      if (flags & SECTION_FL_COMPRESS)
        oc = (Cursor) { layout, c->fd, g_bytes_get_data (body, &len), 0, 0, section, "options" };
      else
        {
          oc = (Cursor) { layout, c->fd, NULL, section + 16, section + 16 + size, 0, NULL };
          len = 0;
        }
      if (oc.mem != NULL)
        oc.end = len;

      if (!walk_options (&oc, &next, error))
        return FALSE;

      last_end = section + 16 + size;
    }

  /* trace-cmd writes the section names last, in a strings section after
   * the final options; libtracecmd reads on without it, but a file that
   * ends inside it was cut. */
  if (last_end < layout->file_size)
    {
      Cursor sc = { layout, c->fd, NULL, last_end, layout->file_size, 0, NULL };
      guint16 id, flags;
      guint32 string_id;
      guint64 size;

      if (!cursor_u16 (&sc, &id, "the strings section header", error) ||
          !cursor_u16 (&sc, &flags, "the strings section header", error) ||
          !cursor_u32 (&sc, &string_id, "the strings section header", error) ||
          !cursor_u64 (&sc, &size, "the strings section header", error))
        return FALSE;
      if (id == OPT_STRINGS && size > sc.end - sc.pos)
        return fail (&sc, error, STRATA_ERROR_TRUNCATED, last_end,
                     "the strings section runs past the end of the file (ends at %"
                     G_GUINT64_FORMAT ", file is %" G_GUINT64_FORMAT " bytes)",
                     sc.pos + size, layout->file_size);
    }

  if (layout->buffers->len == 0)
    {
      if (layout->latency)
        return TRUE;
      return fail (c, error, STRATA_ERROR_CORRUPT, at,
                   "no options section describes a buffer of trace data");
    }

  for (guint i = 0; i < layout->buffers->len; i++)
    {
      StrataFtraceDatBuffer *buffer = g_ptr_array_index (layout->buffers, i);

      layout->n_cpus = MAX (layout->n_cpus, buffer->cpus->len);
      if (!walk_flyrecord (layout, c->fd, buffer, error))
        return FALSE;
    }

  return TRUE;
}

/**
 * strata_ftrace_dat_layout_read:
 * @layout: an empty layout
 * @fd: the open file
 * @display_name: how messages name the file
 * @error: the first problem found
 *
 * Walks the structure of the trace.dat in @fd; see the top of this file.
 *
 * Returns: %TRUE if libtracecmd can be given the file. A version 6 file whose
 *   CPU data was cut is accepted with @layout->data_truncated set.
 */
gboolean
strata_ftrace_dat_layout_read (StrataFtraceDatLayout  *layout,
                               int                     fd,
                               const char             *display_name,
                               GError                **error)
{
  static const guint8 magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
  g_autofree char *version = NULL;
  guint8 buf[10];
  struct stat st;
  Cursor c = { layout, fd, NULL, 0, 0, 0, NULL };
  guint64 at;
  guint8 endian, long_size;
  guint32 page_size;
  char *end;

  g_return_val_if_fail (layout != NULL, FALSE);
  g_return_val_if_fail (layout->buffers->len == 0, FALSE);

  layout->display_name = g_strdup (display_name);

  if (fstat (fd, &st) != 0)
    {
      int errsv = errno;
      g_set_error (error, STRATA_ERROR, STRATA_ERROR_IO, "%s: %s",
                   display_name, g_strerror (errsv));
      return FALSE;
    }
  layout->file_size = st.st_size;
  c.end = layout->file_size;

  if (!cursor_read (&c, buf, sizeof buf, "the trace.dat magic", error))
    return FALSE;
  if (memcmp (buf, magic, sizeof magic) != 0)
    return fail (&c, error, STRATA_ERROR_CORRUPT, 0, "not a trace.dat file (bad magic)");

  at = c.pos;
  if (!cursor_string (&c, 15, "the format version", &version, error))
    return FALSE;
  layout->version = (guint) g_ascii_strtoull (version, &end, 10);
  if (*version == '\0' || *end != '\0')
    return fail (&c, error, STRATA_ERROR_CORRUPT, at,
                 "the format version \"%s\" is not a number", version);
  if (layout->version != 6 && layout->version != 7)
    return fail (&c, error, STRATA_ERROR_UNSUPPORTED, at,
                 "trace.dat format version %u is not supported (6 and 7 are)",
                 layout->version);

  at = c.pos;
  if (!cursor_read (&c, &endian, 1, "the endianness flag", error) ||
      !cursor_read (&c, &long_size, 1, "the long size", error))
    return FALSE;
  if (endian > 1)
    return fail (&c, error, STRATA_ERROR_CORRUPT, at,
                 "the endianness flag is %u, not 0 or 1", endian);
  if (long_size != 4 && long_size != 8)
    return fail (&c, error, STRATA_ERROR_CORRUPT, at + 1,
                 "a long is said to be %u bytes, not 4 or 8", long_size);
  layout->big_endian = endian == 1;
  layout->long_size = long_size;
  layout->commit_size = long_size;

  at = c.pos;
  if (!cursor_u32 (&c, &page_size, "the page size", error))
    return FALSE;
  if (page_size < 256 || page_size > MAX_PAGE_SIZE || (page_size & (page_size - 1)) != 0)
    return fail (&c, error, STRATA_ERROR_CORRUPT, at,
                 "a page size of %u bytes is implausible", page_size);
  layout->page_size = page_size;

  if (layout->version == 6)
    {
      layout->compression = g_strdup ("none");
      layout->compression_version = g_strdup ("");
      return walk_v6 (&c, error);
    }

  return walk_v7 (&c, error);
}
