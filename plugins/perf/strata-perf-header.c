/* strata-perf-header.c
 *
 * The start of a perf.data: the file header (PERFILE2 in either byte
 * order, the old PERFFILE), the attrs section and the feature table after
 * the data; or, for a pipe, the records that stand in for them (attrs,
 * features, tracing data) before the first data record.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-perf-private.h"

/* The feature sections follow the data: a table of {offset, size} at
 * @table, one per bit set in @features, in bit order. Damage in them
 * leaves the records readable: it is kept in feature_damage and reported
 * after them. */
static void
read_feature_sections (StrataPerfSource *self,
                       guint64           table,
                       const guint64    *features)
{
  guint n = 0;

  for (guint feat = 0; feat < PERF_FEAT_BITS; feat++)
    {
      guint64 off, len;

      if (!(features[feat / 64] & (G_GUINT64_CONSTANT (1) << (feat % 64))))
        continue;

      if (table > self->map_len || self->map_len - table < 16 * (guint64) (n + 1))
        {
          /* A file cut inside its data has no features to read: the
           * data's damage is what the reader reports. */
          if (!self->data_cut)
            strata_perf_fail (self, &self->feature_damage, STRATA_ERROR_TRUNCATED, table + 16 * n,
                              "the feature table runs past the end of the file");
          break;
        }

      off = rd64 (self, self->map + table + 16 * n);
      len = rd64 (self, self->map + table + 16 * n + 8);
      n++;

      if (off > self->map_len || len > self->map_len - off || len > MAX_SECTION)
        {
          strata_perf_fail (self, &self->feature_damage, STRATA_ERROR_CORRUPT, table + 16 * (n - 1),
                            "feature %u's section (%" G_GUINT64_FORMAT " bytes at %" G_GUINT64_FORMAT
                            ") runs past the end of the file", feat, len, off);
          break;
        }

      if (!strata_perf_parse_feature (self, feat, self->map + off, len, off, &self->feature_damage))
        break;
    }
}

gboolean
strata_perf_read_file_header (StrataPerfSource  *self,
                              GError           **error)
{
  StrataSourceInfo *info = strata_source_get_info_mutable (STRATA_SOURCE (self));
  const guint8 *h = self->map;
  guint64 magic, size, attr_size, attrs_off, attrs_size, data_off, data_size;
  guint64 features[4] = { 0 };

  if (self->map_len < PERF_PIPE_HEADER_SIZE)
    return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, 0,
                             "the file ends inside the perf.data header (%" G_GSIZE_FORMAT " bytes)",
                             self->map_len);

  memcpy (&magic, h, 8);
  magic = GUINT64_FROM_LE (magic);
  if (magic == PERF_MAGIC2)
    self->version = 2;
  else if (magic == PERF_MAGIC2_SWAPPED)
    {
      self->version = 2;
      self->swap = TRUE;
    }
  else if (memcmp (h, PERF_MAGIC1_STR, 8) == 0)
    self->version = 1;
  else
    return strata_perf_fail (self, error, STRATA_ERROR_UNKNOWN_FORMAT, 0, "not a perf.data file");

  size = rd64 (self, h + 8);

  /* Version 1 has no byte order in its magic: the header's own size,
   * read both ways, tells. */
  if (self->version == 1 && size != PERF_FILE_HEADER_SIZE && size != PERF_FILE_HEADER_SIZE_V1)
    {
      self->swap = TRUE;
      size = rd64 (self, h + 8);
    }

  if (size == PERF_PIPE_HEADER_SIZE)
    {
      self->pipe = TRUE;
      self->pos = PERF_PIPE_HEADER_SIZE;
      self->data_end = self->map_len;
      self->data_offset = PERF_PIPE_HEADER_SIZE;
      info->version = g_strdup_printf ("%u (pipe)", self->version);
      return TRUE;
    }

  if (size != PERF_FILE_HEADER_SIZE && size != PERF_FILE_HEADER_SIZE_V1)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, 8,
                             "a header of %" G_GUINT64_FORMAT " bytes (%u or %u expected)",
                             size, PERF_FILE_HEADER_SIZE, PERF_FILE_HEADER_SIZE_V1);
  if (self->map_len < size)
    return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, 0,
                             "the file ends inside the perf.data header");

  attr_size = rd64 (self, h + 16);
  attrs_off = rd64 (self, h + 24);
  attrs_size = rd64 (self, h + 32);
  data_off = rd64 (self, h + 40);
  data_size = rd64 (self, h + 48);
  if (size == PERF_FILE_HEADER_SIZE)
    for (guint i = 0; i < 4; i++)
      features[i] = rd64 (self, h + 72 + 8 * i);

  info->version = g_strdup_printf ("%u", self->version);

  /* The attrs: each attr_size bytes, the last 16 a section of its ids. */
  if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 65536)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, 16,
                             "attr_size %" G_GUINT64_FORMAT " is not plausible", attr_size);
  if (attrs_off > self->map_len || attrs_size > self->map_len - attrs_off)
    return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, 24,
                             "the attrs section (%" G_GUINT64_FORMAT " bytes at %" G_GUINT64_FORMAT
                             ") runs past the end of the file (%" G_GSIZE_FORMAT " bytes)",
                             attrs_size, attrs_off, self->map_len);
  if (attrs_size % attr_size != 0)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, 32,
                             "the attrs section of %" G_GUINT64_FORMAT " bytes is not a whole number "
                             "of %" G_GUINT64_FORMAT "-byte attrs", attrs_size, attr_size);

  for (guint64 off = attrs_off; off < attrs_off + attrs_size; off += attr_size)
    {
      const guint8 *a = self->map + off;
      guint64 ids_off = rd64 (self, a + attr_size - 16);
      guint64 ids_size = rd64 (self, a + attr_size - 8);

      if (ids_off > self->map_len || ids_size > self->map_len - ids_off)
        return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, off + attr_size - 16,
                                 "an attr's ids (%" G_GUINT64_FORMAT " bytes at %" G_GUINT64_FORMAT
                                 ") run past the end of the file", ids_size, ids_off);
      if (!strata_perf_add_attr (self, a, attr_size - 16, off, self->map + ids_off, ids_size / 8, error))
        return FALSE;
    }
  strata_perf_compute_id_positions (self);

  if (data_off > self->map_len)
    return strata_perf_fail (self, error, STRATA_ERROR_TRUNCATED, 40,
                             "the data section starts at %" G_GUINT64_FORMAT ", past the end of the file "
                             "(%" G_GSIZE_FORMAT " bytes)", data_off, self->map_len);

  self->data_offset = data_off;
  self->data_size = data_size;
  self->pos = data_off;
  if (data_size > self->map_len - data_off)
    {
      /* Cut short: read what is there, the damage is reported where the
       * records stop. */
      self->data_end = self->map_len;
      self->data_cut = TRUE;
    }
  else
    self->data_end = data_off + data_size;

  read_feature_sections (self, data_off + data_size, features);

  return TRUE;
}

/* Pipe mode: the attrs, features and tracing data come first as records. */
gboolean
strata_perf_read_pipe_preamble (StrataPerfSource  *self,
                                GError           **error)
{
  while (self->data_end - self->pos >= 8)
    {
      guint32 type = rd32 (self, self->map + self->pos);
      Record rec;

      if (type < PERF_RECORD_HEADER_ATTR || type == PERF_RECORD_COMPRESSED ||
          type == PERF_RECORD_COMPRESSED2 || type == PERF_RECORD_FINISHED_ROUND)
        break;
      if (!strata_perf_next_record (self, &rec, error))
        return FALSE;
      if (!strata_perf_process_record (self, &rec, error))
        return FALSE;
    }

  return TRUE;
}
