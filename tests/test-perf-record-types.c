/* test-perf-record-types.c
 *
 * Every record type of perf.data, read or stepped over with its size.
 * A processor trace cannot be recorded here, so its records come from
 * real Intel PT recordings of perf 4.14 (file and pipe mode, and the file
 * made a pipe by `perf inject` here); their AUX area data, which follows
 * each AUXTRACE record outside its size, must be stepped over to the
 * end, counted per CPU as `perf report -D` shows it, and named by
 * `strata-cli info`. The types no recording here has (and those newer
 * than this machine's perf 6.1) are written by the test itself into a
 * real pipe-mode recording, each with the fixed fields its type
 * documents and the file's own sample_id trailer: the file then reads to
 * the same events as before, with each type counted; `perf report
 * --stats` of the same file, where perf can read it, counts them alike.
 * A record shorter than its type's fields, and AUX data cut short, are
 * damage, said with the offset, after the events before them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "strata-perf-writer.h"
#include "strata-test-support.h"
#include "../plugins/perf/strata-perf-format.h"
#include "../plugins/perf/strata-perf-source.h"

/* ------------------------------------------------------------------ */
/* A pipe-mode file, walked and written record by record: the test's own
 * reading of the format, apart from the reader's.                      */

/* The offset of the record after the one at @pos, past the data an
 * AUXTRACE or TRACING_DATA record carries after itself. */
static gsize
pipe_next (const guint8 *f,
           gsize         pos)
{
  guint32 type = strata_test_le32 (f + pos);
  gsize next = pos + strata_test_le16 (f + pos + 6);

  if (type == PERF_RECORD_AUXTRACE)
    next += strata_test_le64 (f + pos + 8);
  else if (type == PERF_RECORD_HEADER_TRACING_DATA)
    next += (strata_test_le32 (f + pos + 8) + 7) & ~(gsize) 7;
  return next;
}

/* The bytes of the sample_id trailer the file's attrs put on records
 * other than samples, copied from its first COMM record. */
static GBytes *
pipe_trailer (const guint8 *f,
              gsize         len)
{
  gsize trailer = 0;

  for (gsize pos = 16; pos + 8 <= len; pos = pipe_next (f, pos))
    {
      guint32 type = strata_test_le32 (f + pos);

      if (type == PERF_RECORD_HEADER_ATTR && trailer == 0)
        {
          const guint8 *attr = f + pos + 8;
          guint64 st = strata_test_le64 (attr + PERF_ATTR_OFF_SAMPLE_TYPE);
          guint64 bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                         PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;

          g_assert_true ((strata_test_le64 (attr + PERF_ATTR_OFF_FLAGS) >> PERF_ATTR_FLAG_SAMPLE_ID_ALL) & 1);
          trailer = 8 * __builtin_popcountll (st & bits);
        }
      if (type == PERF_RECORD_COMM && trailer > 0)
        return g_bytes_new (f + pos + strata_test_le16 (f + pos + 6) - trailer, trailer);
    }
  g_assert_not_reached ();
}

/* A record of @type: its fields (padded to 8 bytes), then @trailer (for
 * the kernel's records; NULL for perf's own). */
static void
add_record (GByteArray  *out,
            guint32      type,
            const void  *body,
            gsize        len,
            GBytes      *trailer)
{
  static const guint8 zeros[8] = { 0 };
  gsize padded = (len + 7) & ~(gsize) 7;
  gsize tlen = trailer != NULL ? g_bytes_get_size (trailer) : 0;
  guint8 head[8];

  strata_test_perf_record_header (head, type, 0, 8 + padded + tlen);
  g_byte_array_append (out, head, 8);
  g_byte_array_append (out, body, len);
  g_byte_array_append (out, zeros, padded - len);
  if (tlen > 0)
    g_byte_array_append (out, g_bytes_get_data (trailer, NULL), tlen);
}

/* @file with @records put before its first FINISHED_ROUND (after the
 * pipe's attrs, features and first round of data); @at says where. */
static GBytes *
pipe_insert (GBytes     *file,
             GByteArray *records,
             gsize      *at)
{
  gsize len;
  const guint8 *f = g_bytes_get_data (file, &len);
  GByteArray *out = g_byte_array_new ();
  gsize pos = 16;

  g_assert_cmpmem (f, 8, "PERFILE2", 8);
  while (pos + 8 <= len && strata_test_le32 (f + pos) != PERF_RECORD_FINISHED_ROUND)
    pos = pipe_next (f, pos);
  g_assert_cmpuint (pos, <, len);

  g_byte_array_append (out, f, pos);
  g_byte_array_append (out, records->data, records->len);
  g_byte_array_append (out, f + pos, len - pos);
  *at = pos;
  return g_byte_array_free_to_bytes (out);
}

/* Records of the types this machine's perf knows and the kernel model
 * does not use, each with its documented fixed fields: counted into
 * @counts by type. */
static void
add_known_records (GByteArray *out,
                   GBytes     *trailer,
                   guint      *counts)
{
  guint8 b[128];

#define ADD(type, n, tr) G_STMT_START { add_record (out, type, b, n, tr); counts[type]++; } G_STMT_END

  /* AUX: aux_offset, aux_size, flags. */
  memset (b, 0, sizeof b); strata_test_put64 (b + 8, 4096);
  ADD (PERF_RECORD_AUX, 24, trailer);
  /* ITRACE_START: pid, tid. */
  memset (b, 0, sizeof b); strata_test_put32 (b, 1); strata_test_put32 (b + 4, 1);
  ADD (PERF_RECORD_ITRACE_START, 8, trailer);
  /* NAMESPACES: pid, tid, nr_namespaces, then {dev, inode} each. */
  memset (b, 0, sizeof b); strata_test_put32 (b, 1); strata_test_put32 (b + 4, 1); strata_test_put64 (b + 8, 1);
  strata_test_put64 (b + 16, 4); strata_test_put64 (b + 24, 4026531836u);
  ADD (PERF_RECORD_NAMESPACES, 32, trailer);
  /* KSYMBOL: addr, len, ksym_type (BPF), flags, name. */
  memset (b, 0, sizeof b); strata_test_put64 (b, G_GUINT64_CONSTANT (0xffffffffc0ff0000)); strata_test_put32 (b + 8, 64);
  strata_test_put16 (b + 12, 1); strcpy ((char *) b + 16, "bpf_prog_strata_test");
  ADD (PERF_RECORD_KSYMBOL, 16 + 21, trailer);
  /* BPF_EVENT: type (PROG_LOAD), flags, id, tag[8]. */
  memset (b, 0, sizeof b); strata_test_put16 (b, 1); strata_test_put32 (b + 4, 4242);
  ADD (PERF_RECORD_BPF_EVENT, 16, trailer);
  /* CGROUP: id, path. */
  memset (b, 0, sizeof b); strata_test_put64 (b, 77); strcpy ((char *) b + 8, "/strata.slice");
  ADD (PERF_RECORD_CGROUP, 8 + 14, trailer);
  /* TEXT_POKE: addr, old_len, new_len, old then new bytes. */
  memset (b, 0, sizeof b); strata_test_put64 (b, G_GUINT64_CONSTANT (0xffffffff81000000)); strata_test_put16 (b + 8, 1);
  strata_test_put16 (b + 10, 1); b[12] = 0x90; b[13] = 0xcc;
  ADD (PERF_RECORD_TEXT_POKE, 14, trailer);
  /* AUX_OUTPUT_HW_ID: hw_id. */
  memset (b, 0, sizeof b); strata_test_put64 (b, 7);
  ADD (PERF_RECORD_AUX_OUTPUT_HW_ID, 8, trailer);
  /* THROTTLE, UNTHROTTLE: time, id, stream_id. */
  memset (b, 0, sizeof b);
  ADD (PERF_RECORD_THROTTLE, 24, trailer);
  ADD (PERF_RECORD_UNTHROTTLE, 24, trailer);
  /* HEADER_BUILD_ID (perf's, no trailer): pid, build_id[24], filename. */
  memset (b, 0, sizeof b); strata_test_put32 (b, (guint32) -1); memset (b + 4, 0xab, 20); b[24] = 20;
  strcpy ((char *) b + 28, "/strata/no-such-file");
  ADD (PERF_RECORD_HEADER_BUILD_ID, 28 + 21, NULL);
  /* FINISHED_INIT: nothing. */
  ADD (PERF_RECORD_FINISHED_INIT, 0, NULL);

#undef ADD
}

/* Records perf 6.1 does not know: the kernel's deferred call chains,
 * perf 6.16's BPF metadata and schedstat records, a processor trace of a
 * PMU no perf names, and types no one defines (yet). @unknown gets the
 * undefined types. */
static void
add_newer_records (GByteArray *out,
                   GBytes     *trailer,
                   guint      *counts,
                   GArray     *unknown)
{
  static const guint32 undefined[] = { 23, 63, 87, 200, 0x12345678 };
  guint8 b[512];

#define ADD(type, n, tr) G_STMT_START { add_record (out, type, b, n, tr); counts[type]++; } G_STMT_END

  /* CALLCHAIN_DEFERRED: cookie, nr, ips[nr]. */
  memset (b, 0, sizeof b); strata_test_put64 (b, 99); strata_test_put64 (b + 8, 2); strata_test_put64 (b + 16, 0x401000); strata_test_put64 (b + 24, 0x401100);
  ADD (PERF_RECORD_CALLCHAIN_DEFERRED, 32, trailer);
  /* BPF_METADATA: prog_name[16], nr_entries, entries {key[64], value[256]}. */
  memset (b, 0, sizeof b); strcpy ((char *) b, "strata_prog"); strata_test_put64 (b + 16, 1);
  strcpy ((char *) b + 24, "version"); strcpy ((char *) b + 24 + 64, "1");
  ADD (PERF_RECORD_BPF_METADATA, 24 + 320, NULL);
  /* SCHEDSTAT_CPU and _DOMAIN: timestamp, cpu, version, (domain), then
   * the counters of that version. */
  memset (b, 0, sizeof b); strata_test_put64 (b, 1000); strata_test_put16 (b + 12, 17);
  ADD (PERF_RECORD_SCHEDSTAT_CPU, 16 + 8 * 9, NULL);
  ADD (PERF_RECORD_SCHEDSTAT_DOMAIN, 16 + 16 + 8 * 12, NULL);
  /* A processor trace of an unknown PMU: AUXTRACE_INFO, then an AUXTRACE
   * record followed by 48 bytes of its data, on CPU 1. */
  memset (b, 0, sizeof b); strata_test_put32 (b, 99);
  ADD (PERF_RECORD_AUXTRACE_INFO, 8 + 16, NULL);
  memset (b, 0, sizeof b); strata_test_put64 (b, 48); strata_test_put32 (b + 28, 1); strata_test_put32 (b + 32, 1);
  ADD (PERF_RECORD_AUXTRACE, PERF_AUXTRACE_BODY_SIZE, NULL);
  memset (b, 0x5a, 48);
  g_byte_array_append (out, b, 48);

  for (guint i = 0; i < G_N_ELEMENTS (undefined); i++)
    {
      memset (b, i, sizeof b);
      add_record (out, undefined[i], b, 8 * i, NULL);
      g_array_append_val (unknown, undefined[i]);
    }

#undef ADD
}

/* ------------------------------------------------------------------ */

static GArray *
read_all (const char    *path,
          StrataSource **source,
          GError       **error)
{
  GArray *events = strata_test_read_events (path, source, error);

  g_assert_true (*source == NULL || STRATA_IS_PERF_SOURCE (*source));
  return events;
}

/* The same events, in the same order, but for where they are in the
 * file. */
static void
assert_same_events (GArray *a,
                    GArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      StrataEvent x = g_array_index (a, StrataEvent, i);
      StrataEvent y = g_array_index (b, StrataEvent, i);

      x.source_offset = y.source_offset = 0;
      g_assert_cmpmem (&x, sizeof x, &y, sizeof y);
    }
}

static const StrataUndecoded *
find_undecoded (StrataSource *source,
                const char   *what)
{
  const StrataSourceInfo *info = strata_source_get_info (source);

  for (guint i = 0; i < info->undecoded->len; i++)
    {
      const StrataUndecoded *u = g_ptr_array_index (info->undecoded, i);

      if (g_str_equal (u->what, what))
        return u;
    }
  return NULL;
}

/* "CPU BYTES" lines: each AUXTRACE record `perf report -D` shows. */
static void
assert_aux_equals_perf (StrataSource *source,
                        const char   *oracle)
{
  g_autofree char *path = strata_test_fixture (oracle);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GArray) bytes = g_array_new (FALSE, TRUE, sizeof (guint64));
  const StrataUndecoded *u = find_undecoded (source, "intel_pt AUX area data");
  guint records = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint cpu;
      guint64 n;

      if (sscanf (lines[i], "%u %" G_GUINT64_FORMAT, &cpu, &n) != 2)
        continue;
      if (cpu >= bytes->len)
        g_array_set_size (bytes, cpu + 1);
      g_array_index (bytes, guint64, cpu) += n;
      records++;
    }

  g_assert_nonnull (u);
  g_assert_cmpuint (u->records, ==, records);
  g_assert_cmpuint (u->bytes_per_cpu->len, ==, bytes->len);
  for (guint c = 0; c < bytes->len; c++)
    g_assert_cmpuint (g_array_index (u->bytes_per_cpu, guint64, c), ==, g_array_index (bytes, guint64, c));
  g_assert_cmpuint (strata_perf_source_get_record_count (STRATA_PERF_SOURCE (source), PERF_RECORD_AUXTRACE),
                    ==, records);
}

/* The Intel PT recording in file mode reads to its end, its AUX data
 * per CPU as perf counts it; made a pipe by `perf inject`, the same
 * events and data. */
static void
test_intel_pt_file_and_pipe (void)
{
  g_autofree char *file = strata_test_fixture ("perf-intel-pt.data.xz");
  g_autofree char *pipe = strata_test_fixture ("perf-intel-pt-inject.data.xz");
  g_autoptr(StrataSource) file_source = NULL, pipe_source = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) file_events = read_all (file, &file_source, &error);
  g_autoptr(GArray) pipe_events = NULL;

  g_assert_no_error (error);
  assert_aux_equals_perf (file_source, "perf-intel-pt.auxtrace");

  pipe_events = read_all (pipe, &pipe_source, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (strata_source_get_info (pipe_source)->version, ==, "2 (pipe)");
  assert_aux_equals_perf (pipe_source, "perf-intel-pt.auxtrace");
  assert_same_events (file_events, pipe_events);
}

/* perf 4.14's own pipe-mode Intel PT recording, which this machine's
 * perf 6.1 cannot read past its first AUXTRACE ("bad event header
 * size"): read to its end, the first AUXTRACE's data as perf shows it. */
static void
test_intel_pt_pipe (void)
{
  g_autofree char *path = strata_test_fixture ("perf-intel-pt-pipe.data.xz");
  g_autofree char *oracle = strata_test_fixture ("perf-intel-pt-pipe.auxtrace");
  g_autofree char *text = NULL;
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = read_all (path, &source, &error);
  const StrataUndecoded *u;
  guint cpu;
  guint64 bytes;

  g_assert_no_error (error);
  g_assert_cmpuint (events->len, >, 100);
  g_assert_true (g_file_get_contents (oracle, &text, NULL, NULL));
  g_assert_cmpint (sscanf (text, "%u %" G_GUINT64_FORMAT, &cpu, &bytes), ==, 2);

  u = find_undecoded (source, "intel_pt AUX area data");
  g_assert_nonnull (u);
  g_assert_cmpuint (u->records, ==, strata_perf_source_get_record_count (STRATA_PERF_SOURCE (source),
                                                                         PERF_RECORD_AUXTRACE));
  g_assert_cmpuint (u->records, >=, 2);
  g_assert_cmpuint (u->bytes_per_cpu->len, >, cpu);
  g_assert_cmpuint (g_array_index (u->bytes_per_cpu, guint64, cpu), >=, bytes);
  g_assert_cmpuint (strata_perf_source_get_record_count (STRATA_PERF_SOURCE (source),
                                                         PERF_RECORD_AUXTRACE_INFO), ==, 1);
}

static JsonObject *
cli_info_json (const char *path,
               JsonParser *parser)
{
  const char *args[] = { "info", "--json", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* `strata-cli info` names the AUX data as not decoded, with its bytes
 * per CPU: when it builds the index, and again from the index. */
static void
test_cli_info (void)
{
  g_autofree char *path = strata_test_fixture ("perf-intel-pt.data.xz");
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = read_all (path, &source, &error);
  const StrataUndecoded *u = find_undecoded (source, "intel_pt AUX area data");

  g_assert_nonnull (events);
  g_assert_nonnull (u);
  for (guint run = 0; run < 2; run++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *info = cli_info_json (path, parser);
      JsonArray *list = json_object_get_array_member (info, "not_decoded");
      JsonObject *aux;
      JsonArray *per_cpu;

      g_assert_cmpuint (json_array_get_length (list), ==, 1);
      aux = json_array_get_object_element (list, 0);
      g_assert_cmpstr (json_object_get_string_member (aux, "what"), ==, "intel_pt AUX area data");
      g_assert_cmpint (json_object_get_int_member (aux, "bytes"), ==, u->bytes);
      g_assert_cmpint (json_object_get_int_member (aux, "records"), ==, u->records);
      per_cpu = json_object_get_array_member (aux, "bytes_per_cpu");
      g_assert_cmpuint (json_array_get_length (per_cpu), ==, u->bytes_per_cpu->len);
      for (guint c = 0; c < u->bytes_per_cpu->len; c++)
        g_assert_cmpint (json_array_get_int_element (per_cpu, c), ==,
                         g_array_index (u->bytes_per_cpu, guint64, c));
    }
}

/* `perf report --stats` of @path, or NULL where perf is not installed. */
static GHashTable *
perf_report_stats (const char *path)
{
  g_autofree char *cmd = NULL, *out = NULL;
  g_autoptr(GError) error = NULL;
  GHashTable *counts;
  g_auto(GStrv) lines = NULL;
  gboolean in_aggregated = FALSE;
  int status = 0;

  if (!strata_test_have_program ("perf"))
    return NULL;
  cmd = g_strdup_printf ("perf report --stats -i %s", path);
  g_assert_true (g_spawn_command_line_sync (cmd, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char name[64];
      guint64 n;

      if (strstr (lines[i], "Aggregated stats:") != NULL)
        in_aggregated = TRUE;
      else if (g_str_has_suffix (lines[i], " stats:"))
        in_aggregated = FALSE;
      else if (in_aggregated && sscanf (lines[i], " %63s events: %" G_GUINT64_FORMAT, name, &n) == 2)
        g_hash_table_insert (counts, g_strdup (name), GSIZE_TO_POINTER (n));
    }
  return counts;
}

/* perf's names of the types added here. */
static const struct { guint type; const char *name; } perf_names[] = {
  { PERF_RECORD_AUX, "AUX" }, { PERF_RECORD_ITRACE_START, "ITRACE_START" },
  { PERF_RECORD_NAMESPACES, "NAMESPACES" }, { PERF_RECORD_KSYMBOL, "KSYMBOL" },
  { PERF_RECORD_BPF_EVENT, "BPF_EVENT" }, { PERF_RECORD_CGROUP, "CGROUP" },
  { PERF_RECORD_TEXT_POKE, "TEXT_POKE" }, { PERF_RECORD_AUX_OUTPUT_HW_ID, "AUX_OUTPUT_HW_ID" },
  { PERF_RECORD_THROTTLE, "THROTTLE" }, { PERF_RECORD_UNTHROTTLE, "UNTHROTTLE" },
  { PERF_RECORD_HEADER_BUILD_ID, "BUILD_ID" }, { PERF_RECORD_FINISHED_INIT, "FINISHED_INIT" },
  { PERF_RECORD_SAMPLE, "SAMPLE" }, { PERF_RECORD_COMM, "COMM" }, { PERF_RECORD_MMAP2, "MMAP2" },
  { PERF_RECORD_FINISHED_ROUND, "FINISHED_ROUND" },
};

/* Written with the types inserted, read again: the same events, each
 * type counted as often as it was written (and as the original had it). */
static GBytes *
write_with (const char  *name,
            gboolean     newer,
            guint       *counts,
            GArray      *unknown,
            gsize       *at,
            char       **path)
{
  g_autoptr(GBytes) base = strata_test_fixture_bytes ("perf-pipe-cpu.data.xz");
  g_autoptr(GByteArray) records = g_byte_array_new ();
  gsize len;
  const guint8 *f = g_bytes_get_data (base, &len);
  g_autoptr(GBytes) trailer = pipe_trailer (f, len);
  GBytes *out;

  if (newer)
    add_newer_records (records, trailer, counts, unknown);
  else
    add_known_records (records, trailer, counts);
  out = pipe_insert (base, records, at);
  *path = strata_test_write_tmp (name, g_bytes_get_data (out, NULL), g_bytes_get_size (out));
  return out;
}

static void
assert_counts (StrataSource *base,
               StrataSource *written,
               const guint  *added)
{
  for (guint type = 0; type < PERF_RECORD_MAX_TYPE; type++)
    g_assert_cmpuint (strata_perf_source_get_record_count (STRATA_PERF_SOURCE (written), type), ==,
                      strata_perf_source_get_record_count (STRATA_PERF_SOURCE (base), type) + added[type]);
}

/* The types this machine's perf knows: counted as written, and as
 * `perf report --stats` counts them in the same file. */
static void
test_known_types (void)
{
  g_autofree char *base_path = strata_test_fixture ("perf-pipe-cpu.data.xz");
  g_autofree char *path = NULL;
  g_autoptr(StrataSource) base = NULL, written = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) base_events = read_all (base_path, &base, &error);
  g_autoptr(GArray) events = NULL;
  g_autoptr(GArray) unknown = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GBytes) file = NULL;
  g_autoptr(GHashTable) perf = NULL;
  guint added[PERF_RECORD_MAX_TYPE] = { 0 };
  gsize at;

  g_assert_no_error (error);
  file = write_with ("perf-known-types.data", FALSE, added, unknown, &at, &path);
  events = read_all (path, &written, &error);
  g_assert_no_error (error);
  assert_same_events (base_events, events);
  assert_counts (base, written, added);
  g_assert_cmpuint (strata_source_get_info (written)->undecoded->len, ==, 0);

  perf = perf_report_stats (path);
  if (perf == NULL)
    {
      g_test_message ("perf is not installed: the counts are checked against the file as written only");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (perf_names); i++)
    {
      g_test_message ("%s: perf %" G_GSIZE_FORMAT, perf_names[i].name,
                      GPOINTER_TO_SIZE (g_hash_table_lookup (perf, perf_names[i].name)));
      g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (perf, perf_names[i].name)), ==,
                        strata_perf_source_get_record_count (STRATA_PERF_SOURCE (written), perf_names[i].type));
    }
}

/* Types newer than this machine's perf, a processor trace of an unknown
 * PMU and types no one defines: stepped over, counted, named in the
 * info; the events are the file's without them. */
static void
test_newer_and_unknown_types (void)
{
  g_autofree char *base_path = strata_test_fixture ("perf-pipe-cpu.data.xz");
  g_autofree char *path = NULL;
  g_autoptr(StrataSource) base = NULL, written = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) base_events = read_all (base_path, &base, &error);
  g_autoptr(GArray) events = NULL;
  g_autoptr(GArray) unknown = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GBytes) file = NULL;
  guint added[PERF_RECORD_MAX_TYPE] = { 0 };
  const StrataUndecoded *aux;
  gsize at;

  g_assert_no_error (error);
  file = write_with ("perf-newer-types.data", TRUE, added, unknown, &at, &path);
  events = read_all (path, &written, &error);
  g_assert_no_error (error);
  assert_same_events (base_events, events);
  for (guint type = 0; type < PERF_RECORD_MAX_TYPE; type++)
    {
      gboolean undefined = FALSE;

      for (guint i = 0; i < unknown->len; i++)
        undefined |= g_array_index (unknown, guint32, i) == type;
      if (!undefined)
        g_assert_cmpuint (strata_perf_source_get_record_count (STRATA_PERF_SOURCE (written), type), ==,
                          strata_perf_source_get_record_count (STRATA_PERF_SOURCE (base), type) + added[type]);
    }

  for (guint i = 0; i < unknown->len; i++)
    {
      guint32 type = g_array_index (unknown, guint32, i);
      g_autofree char *what = g_strdup_printf ("records of unknown type %u", type);
      const StrataUndecoded *u = find_undecoded (written, what);

      g_assert_cmpuint (strata_perf_source_get_record_count (STRATA_PERF_SOURCE (written), type), ==, 1);
      g_assert_nonnull (u);
      g_assert_cmpuint (u->records, ==, 1);
      g_assert_cmpuint (u->bytes, ==, 8 + 8 * i);
    }

  aux = find_undecoded (written, "AUX area data of an unknown PMU (AUXTRACE_INFO type 99)");
  g_assert_nonnull (aux);
  g_assert_cmpuint (aux->records, ==, 1);
  g_assert_cmpuint (aux->bytes, ==, 48);
  g_assert_cmpuint (aux->bytes_per_cpu->len, ==, 2);
  g_assert_cmpuint (g_array_index (aux->bytes_per_cpu, guint64, 1), ==, 48);
}

/* Reads @path to its damage: the error, and how many events came first. */
static GError *
read_to_damage (const char *path,
                guint      *n_events)
{
  g_autoptr(StrataSource) source = NULL;
  GError *error = NULL;
  StrataEvent batch[256];
  gssize n;

  source = strata_source_open (path, &error);
  g_assert_no_error (error);
  *n_events = 0;
  while ((n = strata_source_read_batch (source, batch, G_N_ELEMENTS (batch), &error)) > 0)
    *n_events += n;
  return error;
}

/* A KSYMBOL record shorter than its fields is damage at its offset,
 * after the events before it. */
static void
test_short_record_is_damage (void)
{
  g_autoptr(GBytes) base = strata_test_fixture_bytes ("perf-pipe-cpu.data.xz");
  g_autoptr(GByteArray) records = g_byte_array_new ();
  g_autoptr(GBytes) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *expect = NULL;
  guint8 body[8] = { 0 };
  guint n;
  gsize at;

  add_record (records, PERF_RECORD_KSYMBOL, body, sizeof body, NULL);
  file = pipe_insert (base, records, &at);
  path = strata_test_write_tmp ("perf-short-ksymbol.data", g_bytes_get_data (file, NULL), g_bytes_get_size (file));
  error = read_to_damage (path, &n);
  expect = g_strdup_printf ("offset %" G_GSIZE_FORMAT ": a KSYMBOL record of 16 bytes", at);
  g_assert_error (error, STRATA_ERROR, STRATA_ERROR_CORRUPT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, expect));
  g_assert_cmpuint (n, >, 0);
}

/* AUX data cut short by the end of the file: said with its AUXTRACE
 * record's offset, after the events before it; in file and pipe mode. */
static void
test_aux_data_cut (void)
{
  const char *fixtures[] = { "perf-intel-pt.data.xz", "perf-intel-pt-inject.data.xz" };

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autoptr(GBytes) full = strata_test_fixture_bytes (fixtures[i]);
      gsize len;
      const guint8 *f = g_bytes_get_data (full, &len);
      gsize pos = i == 0 ? strata_test_le64 (f + 40) : 16, last = 0;
      gsize end = i == 0 ? pos + strata_test_le64 (f + 48) : len;
      g_autoptr(GError) error = NULL;
      g_autofree char *path = NULL, *expect = NULL;
      g_autofree char *name = g_strdup_printf ("perf-aux-cut-%u.data", i);
      guint n;

      /* The last AUXTRACE record, cut half-way into its data. */
      while (pos + 8 <= end && strata_test_le16 (f + pos + 6) >= 8)
        {
          if (strata_test_le32 (f + pos) == PERF_RECORD_AUXTRACE)
            last = pos;
          pos = pipe_next (f, pos);
        }
      g_assert_cmpuint (last, >, 0);
      path = strata_test_write_tmp (name, f, last + 48 + strata_test_le64 (f + last + 8) / 2);
      error = read_to_damage (path, &n);
      g_test_message ("%s: %s", fixtures[i], error != NULL ? error->message : "no error");
      g_assert_error (error, STRATA_ERROR, STRATA_ERROR_TRUNCATED);
      expect = g_strdup_printf ("offset %" G_GSIZE_FORMAT ": the %" G_GUINT64_FORMAT " bytes of AUX area data",
                                last, strata_test_le64 (f + last + 8));
      g_assert_nonnull (strstr (error->message, expect));
      g_assert_cmpuint (n, >, 0);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/perf-record-types/intel-pt/file-and-pipe", test_intel_pt_file_and_pipe);
  g_test_add_func ("/strata/perf-record-types/intel-pt/perf-4.14-pipe", test_intel_pt_pipe);
  g_test_add_func ("/strata/perf-record-types/intel-pt/cli-info-names-aux-data", test_cli_info);
  g_test_add_func ("/strata/perf-record-types/written/known-types-equal-perf-report-stats", test_known_types);
  g_test_add_func ("/strata/perf-record-types/written/newer-and-unknown-types-stepped-over",
                   test_newer_and_unknown_types);
  g_test_add_func ("/strata/perf-record-types/damage/short-record", test_short_record_is_damage);
  g_test_add_func ("/strata/perf-record-types/damage/aux-data-cut", test_aux_data_cut);

  return g_test_run ();
}
