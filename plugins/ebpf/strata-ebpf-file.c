/* strata-ebpf-file.c
 *
 * Reading a recording's blocks with pread(), one at a time, each checked
 * whole before anything of it is handed out: its header (magic, a size
 * no larger than a block may be), its checksum, then its records, which
 * must each be as long as their type needs and walk exactly to the
 * block's end in time order. A length field is never trusted to size an
 * allocation before the bytes it claims are known to be in the file.
 * The file's size is asked again at its end, so a file that grows is
 * followed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "strata-ebpf-file.h"
#include "strata-error.h"
#include "strata-file-io.h"

struct _StrataEbpfFile
{
  char             *name;
  int               fd;
  StrataEbpfHeader  header;
  guint64           offset;     /* of the next block */
  guint64           tail;       /* bytes past it that are not a whole block */
  gboolean          complete;
  StrataEbpfFooter *footer;
};

static gboolean G_GNUC_PRINTF (5, 6)
fail (StrataEbpfFile  *self,
      GError         **error,
      gint             code,
      guint64          offset,
      const char      *format,
      ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, STRATA_ERROR, code, "%s: offset %" G_GUINT64_FORMAT ": %s",
               self->name, offset, message);
  return FALSE;
}

/* Reads up to @len bytes at @offset, *@got of them (fewer at the end of
 * the file): FALSE only when the system refused the read. */
static gboolean
read_at (StrataEbpfFile  *self,
         void            *buf,
         gsize            len,
         guint64          offset,
         gsize           *got,
         GError         **error)
{
  *got = strata_file_read_some (self->fd, buf, len, offset);
  if (*got < len && errno != 0)
    return fail (self, error, STRATA_ERROR_IO, offset + *got, "%s", g_strerror (errno));

  return TRUE;
}

static guint64
file_size (StrataEbpfFile *self)
{
  struct stat st;

  if (fstat (self->fd, &st) != 0)
    return 0;
  return st.st_size;
}

static void
strata_ebpf_footer_free (StrataEbpfFooter *footer)
{
  if (footer == NULL)
    return;
  g_clear_pointer (&footer->lost, g_array_unref);
  g_clear_pointer (&footer->counts, g_array_unref);
  g_free (footer);
}

void
strata_ebpf_file_free (StrataEbpfFile *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  strata_ebpf_header_clear (&self->header);
  strata_ebpf_footer_free (self->footer);
  g_free (self->name);
  g_free (self);
}

void
strata_ebpf_block_data_clear (StrataEbpfBlockData *block)
{
  g_clear_pointer (&block->records, g_bytes_unref);
}

/* The smallest size a record of @type can have, 16 for types unknown. */
static gsize
record_min_size (guint8 type)
{
  switch (type)
    {
    case STRATA_EBPF_REC_TASK: return sizeof (struct strata_ebpf_task);
    case STRATA_EBPF_REC_SWITCH: return sizeof (struct strata_ebpf_switch);
    case STRATA_EBPF_REC_WAKING:
    case STRATA_EBPF_REC_WAKEUP_NEW: return STRATA_EBPF_WAKEUP_MIN_SIZE;
    case STRATA_EBPF_REC_FORK: return sizeof (struct strata_ebpf_fork);
    case STRATA_EBPF_REC_EXEC: return sizeof (struct strata_ebpf_exec);
    case STRATA_EBPF_REC_EXIT: return sizeof (struct strata_ebpf_exit);
    case STRATA_EBPF_REC_IRQ_ENTRY:
    case STRATA_EBPF_REC_IRQ_EXIT:
    case STRATA_EBPF_REC_SOFTIRQ_ENTRY:
    case STRATA_EBPF_REC_SOFTIRQ_EXIT: return sizeof (struct strata_ebpf_irq);
    case STRATA_EBPF_REC_IRQ_NAME: return sizeof (struct strata_ebpf_irq_name);
    case STRATA_EBPF_REC_SYS_ENTER: return sizeof (struct strata_ebpf_sys_enter);
    case STRATA_EBPF_REC_SYS_EXIT: return sizeof (struct strata_ebpf_sys_exit);
    case STRATA_EBPF_REC_LOST: return sizeof (struct strata_ebpf_lost);
    case STRATA_EBPF_REC_SAMPLE: return sizeof (struct strata_ebpf_sample);
    case STRATA_EBPF_REC_MAP: return sizeof (struct strata_ebpf_map);
    default: return sizeof (struct strata_ebpf_record);
    }
}

/* The bytes a record's own counts say follow its fixed part. */
static gsize
record_variable_size (const guint8 *rec,
                      guint8        type)
{
  switch (type)
    {
    case STRATA_EBPF_REC_EXEC:
      {
        struct strata_ebpf_exec x;

        memcpy (&x, rec, sizeof x);
        return GUINT16_FROM_LE (x.filename_len);
      }
    case STRATA_EBPF_REC_SAMPLE:
      {
        struct strata_ebpf_sample s;

        memcpy (&s, rec, sizeof s);
        return 8 * ((gsize) GUINT16_FROM_LE (s.n_kernel) + GUINT16_FROM_LE (s.n_user));
      }
    case STRATA_EBPF_REC_MAP:
      {
        struct strata_ebpf_map m;

        memcpy (&m, rec, sizeof m);
        return GUINT16_FROM_LE (m.path_len);
      }
    default:
      return 0;
    }
}

static gboolean
check_records (StrataEbpfFile              *self,
               const struct strata_ebpf_block *b,
               const guint8                *records,
               guint64                      at,
               GError                     **error)
{
  gsize size = GUINT32_FROM_LE (b->size);
  guint32 n = GUINT32_FROM_LE (b->n_records);
  guint64 prev_ts = 0;
  guint32 count = 0;
  gsize pos = 0;

  while (pos < size)
    {
      struct strata_ebpf_record r;
      gsize len;
      guint64 ts;

      if (size - pos < sizeof r)
        return fail (self, error, STRATA_ERROR_CORRUPT, at + pos,
                     "a record header runs past its block's end");
      memcpy (&r, records + pos, sizeof r);
      len = (gsize) r.size8 * 8;
      ts = GUINT64_FROM_LE (r.ts);
      if (len < record_min_size (r.type))
        return fail (self, error, STRATA_ERROR_CORRUPT, at + pos,
                     "a record of type %u is %" G_GSIZE_FORMAT " bytes long, shorter than its type",
                     r.type, len);
      if (len > size - pos)
        return fail (self, error, STRATA_ERROR_CORRUPT, at + pos,
                     "a record of %" G_GSIZE_FORMAT " bytes runs past its block's end", len);
      if (record_min_size (r.type) + record_variable_size (records + pos, r.type) > len)
        return fail (self, error, STRATA_ERROR_CORRUPT, at + pos,
                     "a record of type %u says it holds more than its %" G_GSIZE_FORMAT " bytes",
                     r.type, len);
      if (GUINT16_FROM_LE (r.cpu) >= self->header.n_cpus)
        return fail (self, error, STRATA_ERROR_CORRUPT, at + pos,
                     "a record on CPU %u, the header says the machine had %u",
                     GUINT16_FROM_LE (r.cpu), self->header.n_cpus);
      if (ts < prev_ts)
        return fail (self, error, STRATA_ERROR_CORRUPT, at + pos,
                     "a record earlier than the one before it in its block");
      if (count == 0 && ts != GUINT64_FROM_LE (b->first_ts))
        return fail (self, error, STRATA_ERROR_CORRUPT, at + pos,
                     "the block's first record is not at the time its header says");
      prev_ts = ts;
      count++;
      pos += len;
    }

  if (count != n)
    return fail (self, error, STRATA_ERROR_CORRUPT, at,
                 "the block holds %u records, its header says %u", count, n);
  if (count > 0 && prev_ts != GUINT64_FROM_LE (b->last_ts))
    return fail (self, error, STRATA_ERROR_CORRUPT, at,
                 "the block's last record is not at the time its header says");

  return TRUE;
}

/* Reads the block at @at into @b and @records (or says why not). */
static StrataEbpfFileStatus
read_block (StrataEbpfFile            *self,
            guint64                    at,
            struct strata_ebpf_block  *b,
            GBytes                   **records,
            GError                   **error)
{
  g_autofree guint8 *data = NULL;
  guint64 size = file_size (self);
  guint64 stored, computed;
  XXH3_state_t *state;
  gsize got, len;

  if (at >= size || size - at < sizeof *b)
    {
      self->tail = size > at ? size - at : 0;
      return STRATA_EBPF_FILE_AT_END;
    }
  if (!read_at (self, b, sizeof *b, at, &got, error))
    return STRATA_EBPF_FILE_DAMAGED;
  if (got < sizeof *b)
    {
      self->tail = got;
      return STRATA_EBPF_FILE_AT_END;
    }

  if (GUINT32_FROM_LE (b->magic) != STRATA_EBPF_BLOCK_MAGIC)
    {
      fail (self, error, STRATA_ERROR_CORRUPT, at, "not the start of a block (no block magic)");
      return STRATA_EBPF_FILE_DAMAGED;
    }
  len = GUINT32_FROM_LE (b->size);
  if (len > STRATA_EBPF_BLOCK_MAX_SIZE || len % 8 != 0)
    {
      fail (self, error, STRATA_ERROR_CORRUPT, at, "a block of %" G_GSIZE_FORMAT " bytes", len);
      return STRATA_EBPF_FILE_DAMAGED;
    }
  if (size - at - sizeof *b < len)
    {
      /* Not all there: the recorder was stopped while writing it, or
       * is writing it now. */
      self->tail = size - at;
      return STRATA_EBPF_FILE_AT_END;
    }

  data = g_malloc (MAX (len, 1));
  if (!read_at (self, data, len, at + sizeof *b, &got, error))
    return STRATA_EBPF_FILE_DAMAGED;
  if (got < len)
    {
      self->tail = sizeof *b + got;
      return STRATA_EBPF_FILE_AT_END;
    }

  stored = GUINT64_FROM_LE (b->checksum);
  b->checksum = 0;
  state = XXH3_createState ();
  XXH3_64bits_reset (state);
  XXH3_64bits_update (state, b, sizeof *b);
  XXH3_64bits_update (state, data, len);
  computed = XXH3_64bits_digest (state);
  XXH3_freeState (state);
  b->checksum = GUINT64_TO_LE (stored);
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  if (stored != computed)
    {
      fail (self, error, STRATA_ERROR_CORRUPT, at,
            "the block's checksum does not match its bytes");
      return STRATA_EBPF_FILE_DAMAGED;
    }
#else
  (void) computed;
#endif

  *records = g_bytes_new_take (g_steal_pointer (&data), len);
  return STRATA_EBPF_FILE_BLOCK;
}

/* The footer, through the trailer at the file's end; quietly nothing
 * when either is not right (the blocks are read without it). */
static void
read_footer (StrataEbpfFile *self)
{
  struct strata_ebpf_trailer trailer;
  struct strata_ebpf_block b;
  struct strata_ebpf_footer f;
  g_autoptr(GBytes) records = NULL;
  g_autoptr(GError) error = NULL;
  StrataEbpfFooter *footer;
  guint64 size = file_size (self);
  guint64 at;
  const guint8 *data;
  gsize got, len, need;
  guint n_cpus, n_types, n_blocks;

  if (size < self->offset + sizeof b + sizeof trailer)
    return;
  if (!read_at (self, &trailer, sizeof trailer, size - sizeof trailer, &got, NULL) ||
      got != sizeof trailer ||
      memcmp (trailer.magic, STRATA_EBPF_TRAILER_MAGIC, STRATA_EBPF_MAGIC_LEN) != 0)
    return;
  at = GUINT64_FROM_LE (trailer.footer_offset);
  if (at < self->offset || at > size - sizeof trailer - sizeof b)
    return;
  if (read_block (self, at, &b, &records, &error) != STRATA_EBPF_FILE_BLOCK ||
      GUINT16_FROM_LE (b.ring) != STRATA_EBPF_RING_FOOTER ||
      at + sizeof b + GUINT32_FROM_LE (b.size) != size - sizeof trailer)
    return;

  data = g_bytes_get_data (records, &len);
  if (len < sizeof f)
    return;
  memcpy (&f, data, sizeof f);
  n_cpus = GUINT32_FROM_LE (f.n_cpus);
  n_types = GUINT32_FROM_LE (f.n_types);
  n_blocks = GUINT32_FROM_LE (f.n_blocks);
  if (n_cpus > 65536 || n_types > 256)
    return;
  need = sizeof f + 8 * ((gsize) n_cpus + n_types);
  if (need > len || (len - need) / sizeof (struct strata_ebpf_block_entry) < n_blocks)
    return;

  footer = g_new0 (StrataEbpfFooter, 1);
  footer->stop.monotonic = GUINT64_FROM_LE (f.stop.monotonic);
  footer->stop.realtime = GUINT64_FROM_LE (f.stop.realtime);
  footer->stop.boottime = GUINT64_FROM_LE (f.stop.boottime);
  footer->lost = g_array_sized_new (FALSE, TRUE, sizeof (guint64), n_cpus);
  footer->counts = g_array_sized_new (FALSE, TRUE, sizeof (guint64), n_types);
  for (guint i = 0; i < n_cpus; i++)
    {
      guint64 v;

      memcpy (&v, data + sizeof f + 8 * i, 8);
      v = GUINT64_FROM_LE (v);
      g_array_append_val (footer->lost, v);
    }
  for (guint i = 0; i < n_types; i++)
    {
      guint64 v;

      memcpy (&v, data + sizeof f + 8 * (n_cpus + i), 8);
      v = GUINT64_FROM_LE (v);
      g_array_append_val (footer->counts, v);
    }
  footer->first_ts = G_MAXUINT64;
  footer->last_ts = 0;
  footer->n_blocks = n_blocks;
  for (guint i = 0; i < n_blocks; i++)
    {
      struct strata_ebpf_block_entry e;

      memcpy (&e, data + need + i * sizeof e, sizeof e);
      if (GUINT16_FROM_LE (e.ring) >= STRATA_EBPF_RING_FOOTER || GUINT32_FROM_LE (e.n_records) == 0)
        continue;
      footer->first_ts = MIN (footer->first_ts, GUINT64_FROM_LE (e.first_ts));
      footer->last_ts = MAX (footer->last_ts, GUINT64_FROM_LE (e.last_ts));
    }

  self->footer = footer;
}

StrataEbpfFile *
strata_ebpf_file_open (const char  *path,
                       const char  *name,
                       GError     **error)
{
  g_autoptr(StrataEbpfFile) self = g_new0 (StrataEbpfFile, 1);
  g_autofree guint8 *head = NULL;
  guint8 fixed[sizeof (struct strata_ebpf_file_header)];
  gsize got, size;

  self->name = g_strdup (name != NULL ? name : path);
  self->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (self->fd < 0)
    {
      int errsv = errno;

      g_set_error (error, STRATA_ERROR,
                   errsv == ENOENT ? STRATA_ERROR_NOT_FOUND : STRATA_ERROR_IO,
                   "%s: %s", self->name, g_strerror (errsv));
      return NULL;
    }

  if (!read_at (self, fixed, sizeof fixed, 0, &got, error))
    return NULL;
  size = strata_ebpf_header_size (fixed, got);
  if (size == 0 || size > STRATA_EBPF_HEADER_MAX_SIZE)
    size = got;  /* the parser says what is wrong */
  head = g_malloc (MAX (size, 1));
  if (!read_at (self, head, size, 0, &got, error))
    return NULL;
  if (!strata_ebpf_header_parse (&self->header, self->name, head, got, error))
    return NULL;

  self->offset = size;
  read_footer (self);

  return g_steal_pointer (&self);
}

const StrataEbpfHeader *
strata_ebpf_file_get_header (StrataEbpfFile *self)
{
  return &self->header;
}

const StrataEbpfFooter *
strata_ebpf_file_get_footer (StrataEbpfFile *self)
{
  return self->footer;
}

guint64
strata_ebpf_file_get_offset (StrataEbpfFile *self)
{
  return self->offset;
}

guint64
strata_ebpf_file_get_tail (StrataEbpfFile *self)
{
  return self->tail;
}

StrataEbpfFileStatus
strata_ebpf_file_next (StrataEbpfFile       *self,
                       StrataEbpfBlockData  *block,
                       GError              **error)
{
  struct strata_ebpf_block b;
  GBytes *records = NULL;
  StrataEbpfFileStatus status;
  guint16 ring;

  memset (block, 0, sizeof *block);

  if (self->complete)
    return STRATA_EBPF_FILE_COMPLETE;

  self->tail = 0;
  status = read_block (self, self->offset, &b, &records, error);
  if (status != STRATA_EBPF_FILE_BLOCK)
    return status;

  ring = GUINT16_FROM_LE (b.ring);
  if (ring == STRATA_EBPF_RING_FOOTER)
    {
      g_bytes_unref (records);
      self->complete = TRUE;
      self->offset += sizeof b + GUINT32_FROM_LE (b.size);
      return STRATA_EBPF_FILE_COMPLETE;
    }
  if (b.flags != 0)
    {
      g_bytes_unref (records);
      fail (self, error, STRATA_ERROR_UNSUPPORTED, self->offset,
            "a block with flags 0x%x (a newer recorder's)", GUINT16_FROM_LE (b.flags));
      return STRATA_EBPF_FILE_DAMAGED;
    }
  if (!check_records (self, &b, g_bytes_get_data (records, NULL), self->offset + sizeof b, error))
    {
      g_bytes_unref (records);
      return STRATA_EBPF_FILE_DAMAGED;
    }

  block->offset = self->offset;
  block->ring = ring;
  block->n_records = GUINT32_FROM_LE (b.n_records);
  block->first_ts = GUINT64_FROM_LE (b.first_ts);
  block->last_ts = GUINT64_FROM_LE (b.last_ts);
  block->horizon = GUINT64_FROM_LE (b.horizon);
  block->records = records;
  self->offset += sizeof b + GUINT32_FROM_LE (b.size);

  return STRATA_EBPF_FILE_BLOCK;
}
