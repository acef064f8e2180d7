/* strata-perf-attrs.c
 *
 * The perf_event_attrs of a perf.data (the file's attrs section, or
 * HEADER_ATTR records in pipe mode), of any size a perf version wrote,
 * and the sample ids that say which attr a record belongs to: where the
 * id sits in a sample and in a record's sample_id trailer, and a table
 * from id to attr (the positions worked out by strata-perf-sample.c,
 * which knows the fields' layout). Also the names of attrs (perf's
 * defaults, EVENT_DESC, EVENT_UPDATE).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-perf-source-private.h"

static const char *
attr_default_name (guint32 type,
                   guint64 config)
{
  static const char *hw[] = {
    "cycles", "instructions", "cache-references", "cache-misses",
    "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
    "stalled-cycles-backend", "ref-cycles",
  };
  static const char *sw[] = {
    "cpu-clock", "task-clock", "page-faults", "context-switches",
    "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy", "bpf-output", "cgroup-switches",
  };

  if (type == PERF_TYPE_HARDWARE && config < G_N_ELEMENTS (hw))
    return hw[config];
  if (type == PERF_TYPE_SOFTWARE && config < G_N_ELEMENTS (sw))
    return sw[config];
  return NULL;
}

/* Reverses the bits of each byte: a bit field word written by a machine
 * of the other byte order keeps its bytes in place but numbers the bits
 * from the other end of each. */
static guint64
swap_bitfield (guint64 v)
{
  guint64 out = 0;

  for (guint byte = 0; byte < 8; byte++)
    {
      guint8 b = (v >> (8 * byte)) & 0xff, r = 0;

      for (guint bit = 0; bit < 8; bit++)
        if (b & (1u << bit))
          r |= 1u << (7 - bit);
      out |= (guint64) r << (8 * byte);
    }

  return out;
}

/* Adds an attr read from @p (@len bytes of it, which may be more or less
 * than we know) and its sample ids. */
gboolean
strata_perf_add_attr (StrataPerfSource  *self,
                      const guint8      *p,
                      gsize              len,
                      guint64            offset,
                      const guint8      *ids,
                      guint64            n_ids,
                      GError           **error)
{
  guint8 buf[PERF_ATTR_SIZE_KNOWN] = { 0 };
  Attr a = { 0 };
  const char *name;
  guint index;
  guint64 *keys;

  if (self->attrs->len >= MAX_ATTRS)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                             "more than %u event attributes", MAX_ATTRS);
  if (len < PERF_ATTR_SIZE_VER0)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                             "an event attribute of %" G_GSIZE_FORMAT " bytes (at least %u expected)",
                             len, PERF_ATTR_SIZE_VER0);
  memcpy (buf, p, MIN (len, sizeof buf));

  a.type = rd32 (self, buf + PERF_ATTR_OFF_TYPE);
  a.config = rd64 (self, buf + PERF_ATTR_OFF_CONFIG);
  a.sample_type = rd64 (self, buf + PERF_ATTR_OFF_SAMPLE_TYPE);
  a.read_format = rd64 (self, buf + PERF_ATTR_OFF_READ_FORMAT);
  memcpy (&a.flags, buf + PERF_ATTR_OFF_FLAGS, 8);
  if (self->swap)
    a.flags = swap_bitfield (a.flags);
  else
    a.flags = GUINT64_FROM_LE (a.flags);
  a.branch_sample_type = rd64 (self, buf + PERF_ATTR_OFF_BRANCH_SAMPLE);
  a.n_user_regs = __builtin_popcountll (rd64 (self, buf + PERF_ATTR_OFF_REGS_USER));
  a.n_intr_regs = __builtin_popcountll (rd64 (self, buf + PERF_ATTR_OFF_REGS_INTR));
  a.clockid = (gint32) rd32 (self, buf + PERF_ATTR_OFF_CLOCKID);
  a.sample_id_all = (a.flags >> PERF_ATTR_FLAG_SAMPLE_ID_ALL) & 1;
  a.trailer = a.sample_id_all ? strata_perf_trailer_size (a.sample_type) : 0;

  name = attr_default_name (a.type, a.config);
  if (name != NULL)
    a.name = strata_string_pool_intern (self->strings, name);
  else
    {
      g_autofree char *s = g_strdup_printf ("perf-event-%u:%" G_GUINT64_FORMAT, a.type, a.config);
      a.name = strata_string_pool_intern (self->strings, s);
    }

  g_array_append_val (self->attrs, a);
  self->last_attr = NULL;  /* the array may have moved */
  index = self->attrs->len;

  if (n_ids > MAX_IDS)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, offset,
                             "an event attribute with %" G_GUINT64_FORMAT " ids", n_ids);
  keys = g_new (guint64, MAX (n_ids, 1));
  g_ptr_array_add (self->id_blocks, keys);
  for (guint64 i = 0; i < n_ids; i++)
    {
      keys[i] = rd64 (self, ids + 8 * i);
      g_hash_table_insert (self->ids, &keys[i], GUINT_TO_POINTER (index));
    }

  return TRUE;
}

/* The kernel numbers sample ids from a counter: the ids of one file are
 * usually a dense range, looked up by index rather than hashed. */
static void
build_id_table (StrataPerfSource *self)
{
  GHashTableIter iter;
  gpointer key, value;
  guint64 lo = G_MAXUINT64, hi = 0;

  g_clear_pointer (&self->id_table, g_array_unref);
  if (g_hash_table_size (self->ids) == 0 || self->attrs->len >= G_MAXUINT16)
    return;

  g_hash_table_iter_init (&iter, self->ids);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      lo = MIN (lo, *(guint64 *) key);
      hi = MAX (hi, *(guint64 *) key);
    }
  if (hi - lo >= 65536)
    return;

  self->id_base = lo;
  self->id_table = g_array_new (FALSE, TRUE, sizeof (guint16));
  g_array_set_size (self->id_table, hi - lo + 1);
  g_hash_table_iter_init (&iter, self->ids);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_array_index (self->id_table, guint16, *(guint64 *) key - lo) = GPOINTER_TO_UINT (value);
}

void
strata_perf_compute_id_positions (StrataPerfSource *self)
{
  const Attr *a;

  build_id_table (self);

  self->sample_id_pos = -1;
  self->trailer_id_pos = -1;
  self->identifier = FALSE;

  if (self->attrs->len == 0)
    return;

  a = &g_array_index (self->attrs, Attr, 0);
  self->identifier = (a->sample_type & PERF_SAMPLE_IDENTIFIER) != 0;
  strata_perf_id_positions (a->sample_type, &self->sample_id_pos, &self->trailer_id_pos);
}

static Attr *
attr_for_id (StrataPerfSource *self,
             guint64           id)
{
  gpointer found;

  /* Runs of samples of one event are the rule: remember the last id. */
  if (self->last_attr != NULL && id == self->last_id)
    return self->last_attr;

  if (self->id_table != NULL && id - self->id_base < self->id_table->len)
    {
      guint16 index = g_array_index (self->id_table, guint16, id - self->id_base);

      if (index != 0)
        {
          self->last_id = id;
          self->last_attr = &g_array_index (self->attrs, Attr, index - 1);
          return self->last_attr;
        }
    }

  found = g_hash_table_lookup (self->ids, &id);
  if (found != NULL)
    {
      self->last_id = id;
      self->last_attr = &g_array_index (self->attrs, Attr, GPOINTER_TO_UINT (found) - 1);
      return self->last_attr;
    }

  if (found == NULL)
    return self->attrs->len == 1 ? &g_array_index (self->attrs, Attr, 0) : NULL;
  return &g_array_index (self->attrs, Attr, GPOINTER_TO_UINT (found) - 1);
}

Attr *
strata_perf_attr_of_sample (StrataPerfSource *self,
                            const guint8     *body,
                            gsize             len)
{
  if (self->attrs->len == 0)
    return NULL;
  if (self->attrs->len == 1 || self->sample_id_pos < 0)
    return &g_array_index (self->attrs, Attr, 0);
  if ((gsize) (self->sample_id_pos + 1) * 8 > len)
    return NULL;
  return attr_for_id (self, rd64 (self, body + 8 * self->sample_id_pos));
}

Attr *
strata_perf_attr_of_other (StrataPerfSource *self,
                           const guint8     *body,
                           gsize             len)
{
  if (self->attrs->len == 0)
    return NULL;
  if (self->attrs->len == 1 || self->trailer_id_pos < 0)
    return &g_array_index (self->attrs, Attr, 0);
  if ((gsize) self->trailer_id_pos * 8 > len)
    return NULL;
  return attr_for_id (self, rd64 (self, body + len - 8 * self->trailer_id_pos));
}

void
strata_perf_name_attrs_by_id (StrataPerfSource *self,
                              guint64           id,
                              const char       *name)
{
  gpointer found = g_hash_table_lookup (self->ids, &id);
  Attr *a;

  if (found == NULL)
    return;
  a = &g_array_index (self->attrs, Attr, GPOINTER_TO_UINT (found) - 1);
  if (a->tp != NULL)
    return;  /* a tracepoint keeps its format's name */
  a->name = strata_string_pool_intern (self->strings, name);
  a->named = TRUE;
}

gboolean
strata_perf_handle_header_attr (StrataPerfSource  *self,
                                const Record      *rec,
                                GError           **error)
{
  guint32 attr_size;

  if (rec->body_len < 8)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, rec->offset, "an ATTR record without an attr");
  attr_size = rd32 (self, rec->body + PERF_ATTR_OFF_SIZE);
  if (attr_size == 0)
    attr_size = PERF_ATTR_SIZE_VER0;
  if (attr_size > rec->body_len)
    return strata_perf_fail (self, error, STRATA_ERROR_CORRUPT, rec->offset,
                             "an ATTR record of %u bytes holds an attr of %u", rec->size, attr_size);

  if (!strata_perf_add_attr (self, rec->body, attr_size, rec->offset, rec->body + attr_size,
                             (rec->body_len - attr_size) / 8, error))
    return FALSE;
  strata_perf_compute_id_positions (self);
  strata_perf_resolve_attr_names (self);
  return TRUE;
}
