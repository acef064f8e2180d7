/* strata-ebpf-header.c
 *
 * The recording's header as bytes and back: the magic and version, then
 * tagged fields (so a later version can add facts an older reader skips),
 * then a checksum over all of it. Parsing treats the bytes as hostile:
 * every length is checked against what is there before it is used.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <xxhash.h>

#include "strata-ebpf-header.h"
#include "strata-error.h"

#define FIELD_MAX_LENGTH (64u << 10)

guint64
strata_ebpf_checksum (const void *data,
                      gsize       len)
{
  return XXH3_64bits (data, len);
}

void
strata_ebpf_header_clear (StrataEbpfHeader *header)
{
  g_clear_pointer (&header->kernel_release, g_free);
  g_clear_pointer (&header->hostname, g_free);
  g_clear_pointer (&header->command_line, g_free);
  g_clear_pointer (&header->event_sets, g_free);
  g_clear_pointer (&header->hooks, g_free);
}

static void
add_field (GByteArray *out,
           guint16     tag,
           const void *value,
           guint32     length)
{
  struct strata_ebpf_field f = { GUINT16_TO_LE (tag), 0, GUINT32_TO_LE (length) };
  static const guint8 zeros[8];

  g_byte_array_append (out, (const guint8 *) &f, sizeof f);
  g_byte_array_append (out, value, length);
  g_byte_array_append (out, zeros, (8 - length % 8) % 8);
}

static void
add_string (GByteArray *out,
            guint16     tag,
            const char *value,
            guint      *n_fields)
{
  if (value == NULL)
    return;
  add_field (out, tag, value, MIN (strlen (value), FIELD_MAX_LENGTH));
  (*n_fields)++;
}

static void
add_u32 (GByteArray *out,
         guint16     tag,
         guint32     value,
         guint      *n_fields)
{
  guint32 le = GUINT32_TO_LE (value);

  add_field (out, tag, &le, sizeof le);
  (*n_fields)++;
}

/**
 * strata_ebpf_header_serialize:
 *
 * Returns: (transfer full): the header's bytes, checksum included
 */
GBytes *
strata_ebpf_header_serialize (const StrataEbpfHeader *header)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  struct strata_ebpf_file_header *fh;
  struct strata_ebpf_rings_field rings;
  struct strata_ebpf_clocks clocks;
  guint n_fields = 0;
  guint64 checksum;

  g_byte_array_set_size (out, sizeof *fh);

  add_string (out, STRATA_EBPF_FIELD_KERNEL_RELEASE, header->kernel_release, &n_fields);
  add_string (out, STRATA_EBPF_FIELD_HOSTNAME, header->hostname, &n_fields);
  add_u32 (out, STRATA_EBPF_FIELD_N_CPUS, header->n_cpus, &n_fields);
  add_string (out, STRATA_EBPF_FIELD_COMMAND_LINE, header->command_line, &n_fields);
  add_string (out, STRATA_EBPF_FIELD_EVENT_SETS, header->event_sets, &n_fields);
  rings.n_rings = GUINT32_TO_LE (header->rings.n_rings);
  rings.cpus_per_ring = GUINT32_TO_LE (header->rings.cpus_per_ring);
  rings.ring_size = GUINT64_TO_LE (header->rings.ring_size);
  add_field (out, STRATA_EBPF_FIELD_RINGS, &rings, sizeof rings);
  n_fields++;
  clocks.monotonic = GUINT64_TO_LE (header->clocks.monotonic);
  clocks.realtime = GUINT64_TO_LE (header->clocks.realtime);
  clocks.boottime = GUINT64_TO_LE (header->clocks.boottime);
  add_field (out, STRATA_EBPF_FIELD_CLOCKS, &clocks, sizeof clocks);
  n_fields++;
  add_u32 (out, STRATA_EBPF_FIELD_SAMPLE_FREQ, header->sample_freq, &n_fields);
  add_u32 (out, STRATA_EBPF_FIELD_RECORDER_PID, header->recorder_pid, &n_fields);
  add_string (out, STRATA_EBPF_FIELD_HOOKS, header->hooks, &n_fields);
  if (header->kernel_text != 0)
    {
      guint64 le = GUINT64_TO_LE (header->kernel_text);

      add_field (out, STRATA_EBPF_FIELD_KERNEL_TEXT, &le, sizeof le);
      n_fields++;
    }

  fh = (struct strata_ebpf_file_header *) (gpointer) out->data;
  memcpy (fh->magic, STRATA_EBPF_MAGIC, STRATA_EBPF_MAGIC_LEN);
  fh->version = GUINT32_TO_LE (STRATA_EBPF_VERSION);
  fh->header_size = GUINT32_TO_LE (out->len + 8);
  fh->flags = 0;
  fh->n_fields = GUINT32_TO_LE (n_fields);

  checksum = GUINT64_TO_LE (strata_ebpf_checksum (out->data, out->len));
  g_byte_array_append (out, (const guint8 *) &checksum, sizeof checksum);

  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

gsize
strata_ebpf_header_size (const guint8 *data,
                         gsize         len)
{
  struct strata_ebpf_file_header fh;

  if (len < sizeof fh)
    return 0;
  memcpy (&fh, data, sizeof fh);
  return GUINT32_FROM_LE (fh.header_size);
}

static gboolean G_GNUC_PRINTF (5, 6)
fail (GError     **error,
      gint         code,
      const char  *name,
      gsize        offset,
      const char  *format,
      ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, STRATA_ERROR, code, "%s: offset %" G_GSIZE_FORMAT ": %s", name, offset, message);
  return FALSE;
}

static char *
field_string (const guint8 *value,
              guint32       length)
{
  /* Shown to the user: whatever the bytes, valid UTF-8 without NULs. */
  g_autofree char *raw = g_strndup ((const char *) value, length);

  return g_utf8_make_valid (raw, -1);
}

gboolean
strata_ebpf_header_parse (StrataEbpfHeader  *header,
                          const char        *name,
                          const guint8      *data,
                          gsize              len,
                          GError           **error)
{
  struct strata_ebpf_file_header fh;
  guint64 stored, computed;
  gsize size, pos;
  guint32 n_fields;

  memset (header, 0, sizeof *header);

  if (len < sizeof fh)
    return fail (error, STRATA_ERROR_TRUNCATED, name, len,
                 "the file ends inside the recording's header");
  memcpy (&fh, data, sizeof fh);
  if (memcmp (fh.magic, STRATA_EBPF_MAGIC, STRATA_EBPF_MAGIC_LEN) != 0)
    return fail (error, STRATA_ERROR_UNKNOWN_FORMAT, name, 0, "not a Strata eBPF recording");

  header->version = GUINT32_FROM_LE (fh.version);
  if (header->version != STRATA_EBPF_VERSION)
    return fail (error, STRATA_ERROR_UNSUPPORTED, name, 8,
                 "recording format version %u (this Strata reads version %u)",
                 header->version, STRATA_EBPF_VERSION);

  size = GUINT32_FROM_LE (fh.header_size);
  n_fields = GUINT32_FROM_LE (fh.n_fields);
  if (size < sizeof fh + 8 || size > STRATA_EBPF_HEADER_MAX_SIZE || size % 8 != 0)
    return fail (error, STRATA_ERROR_CORRUPT, name, 12, "a header size of %" G_GSIZE_FORMAT " bytes", size);
  if (len < size)
    return fail (error, STRATA_ERROR_TRUNCATED, name, len,
                 "the file ends inside the recording's header (%" G_GSIZE_FORMAT " bytes)", size);

  memcpy (&stored, data + size - 8, sizeof stored);
  computed = strata_ebpf_checksum (data, size - 8);
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  if (GUINT64_FROM_LE (stored) != computed)
    return fail (error, STRATA_ERROR_CORRUPT, name, size - 8,
                 "the header's checksum does not match its bytes");
#else
  /* The fuzzer's mutations would never get past the checksum. */
  (void) computed;
#endif

  pos = sizeof fh;
  for (guint32 i = 0; i < n_fields; i++)
    {
      struct strata_ebpf_field f;
      const guint8 *value;
      guint32 length;

      if (size - 8 - pos < sizeof f)
        return fail (error, STRATA_ERROR_CORRUPT, name, pos,
                     "header field %u of %u lies past the header's end", i + 1, n_fields);
      memcpy (&f, data + pos, sizeof f);
      length = GUINT32_FROM_LE (f.length);
      value = data + pos + sizeof f;
      if (length > size - 8 - pos - sizeof f)
        return fail (error, STRATA_ERROR_CORRUPT, name, pos,
                     "header field %u of %u is %u bytes long, past the header's end",
                     i + 1, n_fields, length);

      switch (GUINT16_FROM_LE (f.tag))
        {
        case STRATA_EBPF_FIELD_KERNEL_RELEASE:
          g_free (header->kernel_release);
          header->kernel_release = field_string (value, length);
          break;
        case STRATA_EBPF_FIELD_HOSTNAME:
          g_free (header->hostname);
          header->hostname = field_string (value, length);
          break;
        case STRATA_EBPF_FIELD_COMMAND_LINE:
          g_free (header->command_line);
          header->command_line = field_string (value, length);
          break;
        case STRATA_EBPF_FIELD_EVENT_SETS:
          g_free (header->event_sets);
          header->event_sets = field_string (value, length);
          break;
        case STRATA_EBPF_FIELD_HOOKS:
          g_free (header->hooks);
          header->hooks = field_string (value, length);
          break;
        case STRATA_EBPF_FIELD_N_CPUS:
        case STRATA_EBPF_FIELD_SAMPLE_FREQ:
        case STRATA_EBPF_FIELD_RECORDER_PID:
          {
            guint32 v;

            if (length != sizeof v)
              return fail (error, STRATA_ERROR_CORRUPT, name, pos,
                           "header field %u is %u bytes long, not 4", GUINT16_FROM_LE (f.tag), length);
            memcpy (&v, value, sizeof v);
            v = GUINT32_FROM_LE (v);
            if (GUINT16_FROM_LE (f.tag) == STRATA_EBPF_FIELD_N_CPUS)
              header->n_cpus = v;
            else if (GUINT16_FROM_LE (f.tag) == STRATA_EBPF_FIELD_SAMPLE_FREQ)
              header->sample_freq = v;
            else
              header->recorder_pid = v;
          }
          break;
        case STRATA_EBPF_FIELD_KERNEL_TEXT:
          if (length != sizeof header->kernel_text)
            return fail (error, STRATA_ERROR_CORRUPT, name, pos,
                         "the kernel text field is %u bytes long, not 8", length);
          memcpy (&header->kernel_text, value, sizeof header->kernel_text);
          header->kernel_text = GUINT64_FROM_LE (header->kernel_text);
          break;
        case STRATA_EBPF_FIELD_RINGS:
          if (length != sizeof header->rings)
            return fail (error, STRATA_ERROR_CORRUPT, name, pos,
                         "the rings field is %u bytes long, not %" G_GSIZE_FORMAT,
                         length, sizeof header->rings);
          memcpy (&header->rings, value, sizeof header->rings);
          header->rings.n_rings = GUINT32_FROM_LE (header->rings.n_rings);
          header->rings.cpus_per_ring = GUINT32_FROM_LE (header->rings.cpus_per_ring);
          header->rings.ring_size = GUINT64_FROM_LE (header->rings.ring_size);
          break;
        case STRATA_EBPF_FIELD_CLOCKS:
          if (length != sizeof header->clocks)
            return fail (error, STRATA_ERROR_CORRUPT, name, pos,
                         "the clocks field is %u bytes long, not %" G_GSIZE_FORMAT,
                         length, sizeof header->clocks);
          memcpy (&header->clocks, value, sizeof header->clocks);
          header->clocks.monotonic = GUINT64_FROM_LE (header->clocks.monotonic);
          header->clocks.realtime = GUINT64_FROM_LE (header->clocks.realtime);
          header->clocks.boottime = GUINT64_FROM_LE (header->clocks.boottime);
          break;
        default:
          break;  /* a newer recorder's fact */
        }

      pos += sizeof f + length + (8 - length % 8) % 8;
      if (pos > size - 8)
        return fail (error, STRATA_ERROR_CORRUPT, name, pos,
                     "header field %u of %u lies past the header's end", i + 1, n_fields);
    }

  if (header->n_cpus == 0 || header->n_cpus > 65536)
    return fail (error, STRATA_ERROR_CORRUPT, name, sizeof fh,
                 "the header says the machine had %u CPUs", header->n_cpus);

  return TRUE;
}
