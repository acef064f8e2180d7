/* test-export.c
 *
 * Export on real recordings. The chrome-json is valid JSON of the Trace
 * Event Format (every event's phase, track and times where the format
 * wants them; flows paired, each ending after it starts), and each
 * thread's track has one complete slice per interval activity of that
 * thread in the range and one instant per instant, counted here from
 * the raw store. The CSV, read back here alone (its rows found again by
 * their identity), gives the range's statistics exactly, and the CLI,
 * through the index, writes the same bytes as the library on a fresh read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "strata-test-support.h"

static const char *files[] = { "sched-small.dat", "perf-sched.data.xz", "critical-path.dat.xz" };

static char *
export_to_string (StrataTrace        *trace,
                  StrataExportFormat  format,
                  gint64              from,
                  gint64              to)
{
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GError) error = NULL;
  char zero = 0;

  g_assert_true (strata_export_write (trace, format, from, to, out, NULL, &error));
  g_assert_no_error (error);
  g_output_stream_write (out, &zero, 1, NULL, NULL);
  g_output_stream_close (out, NULL, NULL);
  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
}

static guint64
track_key (gint64 pid,
           gint64 tid)
{
  return ((guint64) pid << 32) ^ (guint64) (guint32) tid;
}

static void
bump (GHashTable *counts,
      guint64     key)
{
  gpointer old = g_hash_table_lookup (counts, &key);

  g_hash_table_insert (counts, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + 1));
}

static void
assert_counts_equal (GHashTable *a,
                     GHashTable *b,
                     const char *what)
{
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpuint (g_hash_table_size (a), ==, g_hash_table_size (b));
  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (GPOINTER_TO_UINT (g_hash_table_lookup (b, key)) != GPOINTER_TO_UINT (value))
      g_error ("%s: track %" G_GINT64_MODIFIER "x has %u in the export, %u in the trace", what,
               *(guint64 *) key, GPOINTER_TO_UINT (value), GPOINTER_TO_UINT (g_hash_table_lookup (b, key)));
}

static void
check_chrome_json (StrataTrace *trace,
                   gint64       from,
                   gint64       to)
{
  g_autofree char *text = export_to_string (trace, STRATA_EXPORT_CHROME_JSON, from, to);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) slices = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) instants = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) want_slices = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) want_instants = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) flows = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  const StrataChannel *channels;
  JsonObject *root;
  JsonArray *events;
  guint n, n_flows = 0;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "displayTimeUnit"), ==, "ns");
  events = json_object_get_array_member (root, "traceEvents");
  g_assert_cmpuint (json_array_get_length (events), >, 0);

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      const char *ph = json_object_get_string_member (e, "ph");
      gint64 pid = json_object_get_int_member (e, "pid");
      gint64 tid = json_object_get_int_member (e, "tid");

      g_assert_nonnull (json_object_get_string_member (e, "name"));
      if (strcmp (ph, "M") == 0)
        {
          g_assert_nonnull (json_object_get_string_member (json_object_get_object_member (e, "args"), "name"));
          continue;
        }
      g_assert_true (JSON_NODE_HOLDS_VALUE (json_object_get_member (e, "ts")));
      if (strcmp (ph, "X") == 0)
        {
          double ts = json_object_get_double_member (e, "ts");
          double dur = json_object_get_double_member (e, "dur");

          g_assert_cmpfloat (dur, >=, 0);
          g_assert_cmpfloat (ts, >=, from / 1000.0 - 0.001);
          g_assert_cmpfloat (ts + dur, <=, to / 1000.0 + 0.001);
          if (pid < STRATA_EXPORT_CPU_PID)
            bump (slices, track_key (pid, tid));
        }
      else if (strcmp (ph, "i") == 0)
        {
          g_assert_cmpstr (json_object_get_string_member (e, "s"), ==, "t");
          if (pid < STRATA_EXPORT_CPU_PID)
            bump (instants, track_key (pid, tid));
        }
      else if (strcmp (ph, "s") == 0 || strcmp (ph, "f") == 0)
        {
          gint64 id = json_object_get_int_member (e, "id");
          double ts = json_object_get_double_member (e, "ts");
          double *seen = g_hash_table_lookup (flows, &id);

          if (seen == NULL)
            {
              g_assert_cmpstr (ph, ==, "s");
              g_hash_table_insert (flows, g_memdup2 (&id, sizeof id), g_memdup2 (&ts, sizeof ts));
            }
          else
            {
              g_assert_cmpstr (ph, ==, "f");
              g_assert_cmpfloat (ts, >=, *seen);
              n_flows++;
            }
        }
      else
        g_error ("an event of phase %s", ph);
    }
  g_assert_cmpuint (n_flows, ==, g_hash_table_size (flows));

  /* What the trace has in the range, thread by thread. */
  channels = strata_trace_get_channels (trace, &n);
  for (guint32 c = 0; c < n; c++)
    {
      const StrataChannel *ch = &channels[c];

      if (ch->kind != STRATA_CHANNEL_THREAD)
        continue;
      g_array_set_size (found, 0);
      strata_trace_query_channel (trace, c, from, to, found);
      for (guint j = 0; j < found->len; j++)
        {
          const StrataActivity *a = &g_array_index (found, StrataActivity, j);
          guint64 key = track_key (ch->tgid > 0 ? ch->tgid : ch->id, ch->id);

          if (!strata_activity_overlaps (a, from, to))
            continue;
          bump (strata_activity_is_instant (a) ? want_instants : want_slices, key);
        }
    }
  assert_counts_equal (slices, want_slices, "slices");
  assert_counts_equal (instants, want_instants, "instants");
  g_test_message ("%u slice tracks, %u flows", g_hash_table_size (slices), n_flows);
}

/* One CSV line's fields, quotes undone. */
static GPtrArray *
csv_fields (const char **p)
{
  GPtrArray *fields = g_ptr_array_new_with_free_func (g_free);
  GString *f = g_string_new (NULL);
  const char *s = *p;
  gboolean quoted = FALSE;

  for (;; s++)
    {
      if (quoted)
        {
          if (*s == '"' && s[1] == '"')
            g_string_append_c (f, *s++);
          else if (*s == '"')
            quoted = FALSE;
          else
            g_string_append_c (f, *s);
        }
      else if (*s == '"')
        quoted = TRUE;
      else if (*s == ',' || *s == '\n' || *s == '\0')
        {
          g_ptr_array_add (fields, g_strdup (f->str));
          g_string_truncate (f, 0);
          if (*s != ',')
            break;
        }
      else
        g_string_append_c (f, *s);
    }
  *p = *s == '\n' ? s + 1 : s;
  g_string_free (f, TRUE);
  return fields;
}

static guint
enum_of (const char *(*to_string) (int),
         guint        n,
         const char  *name)
{
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (to_string (i), name) == 0)
      return i;
  g_error ("no %s", name);
}

static void
check_csv (StrataTrace *trace,
           gint64       from,
           gint64       to)
{
  g_autofree char *text = export_to_string (trace, STRATA_EXPORT_CSV, from, to);
  g_autoptr(StrataStatsBuilder) builder = strata_stats_builder_new ();
  g_autoptr(StrataStats) theirs = NULL;
  g_autoptr(StrataStats) ours = NULL;
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GPtrArray) header = NULL;
  const StrataChannel *channels;
  const char *p = text;
  guint n, lines = 0;

  channels = strata_trace_get_channels (trace, &n);
  header = csv_fields (&p);
  g_assert_cmpuint (header->len, ==, 13);
  while (*p != '\0')
    {
      g_autoptr(GPtrArray) f = csv_fields (&p);
      StrataActivity a = { 0 };
      guint8 kind = enum_of ((const char *(*) (int)) strata_channel_kind_to_string, 3, g_ptr_array_index (f, 2));
      gint32 id = atoi (g_ptr_array_index (f, 3));
      guint instance = atoi (g_ptr_array_index (f, 4));
      guint generation = atoi (g_ptr_array_index (f, 5));

      g_assert_cmpuint (f->len, ==, 13);
      a.start = g_ascii_strtoll (g_ptr_array_index (f, 0), NULL, 10);
      a.end = g_ascii_strtoll (g_ptr_array_index (f, 1), NULL, 10);
      a.channel = STRATA_CHANNEL_NONE;
      for (guint32 c = 0; c < n; c++)
        if (channels[c].kind == kind && channels[c].id == id && channels[c].instance == instance &&
            channels[c].generation == generation)
          a.channel = c;
      g_assert_cmpuint (a.channel, !=, STRATA_CHANNEL_NONE);
      g_assert_cmpstr (g_ptr_array_index (f, 7), ==, strata_trace_get_string (trace, channels[a.channel].name));
      a.kind = enum_of ((const char *(*) (int)) strata_activity_kind_to_string, STRATA_N_ACTIVITY_KINDS,
                        g_ptr_array_index (f, 8));
      a.state = a.kind == STRATA_ACTIVITY_STATE
                ? enum_of ((const char *(*) (int)) strata_task_state_to_string, STRATA_N_TASK_STATES,
                           g_ptr_array_index (f, 9))
                : 0;
      a.label = STRATA_STRING_NONE;
      a.arg = atoi (g_ptr_array_index (f, 11));
      a.flags = atoi (g_ptr_array_index (f, 12));
      g_assert_cmpint (a.start, >=, from);
      g_assert_cmpint (a.end, <=, to);
      strata_stats_builder_add_clipped (builder, &a);
      lines++;
    }
  g_assert_cmpuint (lines, >, 0);
  ours = strata_stats_builder_finish (builder, trace);

  for (guint32 c = 0; c < n; c++)
    g_array_append_val (all, c);
  theirs = strata_stats_compute_range (trace, (guint32 *) (gpointer) all->data, all->len, from, to);
  strata_test_assert_stats_equal (ours, theirs);
}

static void
test_chrome_json (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr(StrataTrace) trace = strata_test_load_with_tree (files[i]);
      gint64 start = strata_trace_get_start (trace), end = strata_trace_get_end (trace) + 1;

      check_chrome_json (trace, start, end);
      check_chrome_json (trace, start + (end - start) / 3, start + 2 * (end - start) / 3);
    }
}

static void
test_csv_round_trip (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr(StrataTrace) trace = strata_test_load_with_tree (files[i]);
      gint64 start = strata_trace_get_start (trace), end = strata_trace_get_end (trace) + 1;

      check_csv (trace, start, end);
      check_csv (trace, start + (end - start) / 4, start + (end - start) / 2);
    }
}

/* Through the CLI and the index: the same bytes. */
static void
test_cli_same_bytes (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autofree char *dir = strata_test_tmpdir ();
  g_autoptr(StrataTrace) trace = strata_test_load_with_tree ("sched-small.dat");
  const char *formats[] = { "chrome-json", "csv" };

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *out_path = g_strdup_printf ("%s/export.%s", dir, formats[i]);
      const char *args[] = { "export", path, "--format", formats[i], "--from", "+5ms", "--to", "+9ms",
                             "-o", out_path, NULL };
      g_autofree char *out = NULL, *err = NULL, *written = NULL, *want = NULL;
      g_autoptr(GError) error = NULL;
      StrataExportFormat format;
      gint64 start = strata_trace_get_start (trace);

      g_assert_cmpint (strata_test_run_cli (args, &out, &err), ==, 0);
      g_file_get_contents (out_path, &written, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (strata_export_format_from_name (formats[i], &format));
      want = export_to_string (trace, format, start + 5000000, start + 9000000);
      g_assert_cmpstr (written, ==, want);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/export/chrome-json", test_chrome_json);
  g_test_add_func ("/strata/export/csv-round-trip", test_csv_round_trip);
  g_test_add_func ("/strata/export/cli-same-bytes", test_cli_same_bytes);
  return g_test_run ();
}
