/* test-source-records.c
 *
 * The source interface's record streams (strata_source_next_record()),
 * what the event list's Fields column reads, checked per format against
 * what the format's own tool printed, with no event list in between:
 * a trace.dat's streams give every record `trace-cmd report -R` printed
 * (tests/fixtures/sched-small.report-raw.txt.xz), with the same CPU, time,
 * name and fields; the kernel's text gives every event line, split here
 * with sscanf rather than with the plugin's expression, and a seek by time
 * lands before each line's time; perf.data's one stream gives records
 * whose positions lead back to the same record. A position a record gave
 * leads back to it in every format. The eBPF recording has no streams
 * (its fields are not shown).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "strata-source.h"
#include "strata-test-support.h"

typedef struct
{
  StrataRecordHead head;
  char            *fields;
} Read;

static void
read_clear (gpointer data)
{
  g_free (((Read *) data)->fields);
}

/* Every record of @stream from its start, with its fields. */
static GArray *
read_stream (StrataSource *source,
             guint         stream)
{
  g_autoptr(GError) error = NULL;
  GArray *reads = g_array_new (FALSE, TRUE, sizeof (Read));
  Read r;

  g_array_set_clear_func (reads, read_clear);
  g_assert_true (strata_source_seek_record (source, stream, NULL, &error));
  g_assert_no_error (error);
  while (strata_source_next_record (source, &r.head, &error))
    {
      r.fields = strata_source_format_record (source);
      g_array_append_val (reads, r);
    }
  g_assert_no_error (error);
  return reads;
}

/* Every @step-th record again, from its position: the same record. */
static guint
check_positions (StrataSource *source,
                 guint         stream,
                 GArray       *reads,
                 guint         step)
{
  guint checked = 0;

  for (guint i = 0; i < reads->len; i += step)
    {
      const Read *want = &g_array_index (reads, Read, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *fields = NULL;
      StrataRecordHead got;

      g_assert_true (strata_source_seek_record (source, stream, &want->head.where, &error));
      g_assert_no_error (error);
      g_assert_true (strata_source_next_record (source, &got, &error));
      g_assert_no_error (error);
      fields = strata_source_format_record (source);
      g_assert_cmpint (got.ts, ==, want->head.ts);
      g_assert_cmpint (got.cpu, ==, want->head.cpu);
      g_assert_cmpstr (got.name, ==, want->head.name);
      g_assert_cmpstr (fields, ==, want->fields);
      checked++;
    }
  return checked;
}

static void
test_tracedat_matches_report (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.dat");
  g_autofree char *report_path = strata_test_fixture ("sched-small.report-raw.txt.xz");
  g_autofree char *report = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GHashTable) want = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;
  guint n_streams, n_records = 0, n_positions = 0;

  g_assert_true (g_file_get_contents (report_path, &report, NULL, NULL));
  lines = g_strsplit (report, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = lines[i];
      const char *open = strstr (l, "] ");
      unsigned cpu, secs, ns;
      char name[64];
      int used = 0;

      if (open == NULL)
        continue;
      while (open > l && *open != '[')
        open--;
      if (sscanf (open, "[%u] %u.%u: %63[^:]: %n", &cpu, &secs, &ns, name, &used) < 4 || used == 0)
        continue;
      g_hash_table_insert (want, g_strdup_printf ("%u %u.%09u %s", cpu, secs, ns, name),
                           g_strstrip (g_strdup (open + used)));
    }
  g_assert_cmpuint (g_hash_table_size (want), >, 2000);

  source = strata_source_open (path, &error);
  g_assert_no_error (error);
  g_assert_false (strata_source_can_seek_record_time (source));
  n_streams = strata_source_get_n_record_streams (source);
  g_assert_cmpuint (n_streams, ==, strata_source_get_info (source)->n_cpus);

  for (guint s = 0; s < n_streams; s++)
    {
      g_autoptr(GArray) reads = read_stream (source, s);
      gint64 last = G_MININT64;

      g_assert_cmpint (strata_source_get_record_stream_cpu (source, s), ==, (gint) s);
      for (guint i = 0; i < reads->len; i++)
        {
          const Read *r = &g_array_index (reads, Read, i);
          g_autofree char *key = g_strdup_printf ("%d %u.%09u %s", r->head.cpu,
                                                  (guint) (r->head.ts / 1000000000),
                                                  (guint) (r->head.ts % 1000000000), r->head.name);
          const char *fields = g_hash_table_lookup (want, key);

          g_assert_cmpint (r->head.cpu, ==, (gint) s);
          g_assert_cmpint (r->head.ts, >=, last);
          last = r->head.ts;
          if (fields == NULL)
            g_error ("%s: not in trace-cmd report -R", key);
          g_assert_cmpstr (r->fields, ==, fields);
          g_assert_true (g_hash_table_remove (want, key));
          n_records++;
        }
      n_positions += check_positions (source, s, reads, 7);
    }
  /* Every line of the report was a record (none twice: a key is
   * removed when found). */
  g_assert_cmpuint (g_hash_table_size (want), ==, 0);
  g_test_message ("%u records equal trace-cmd report -R's lines; %u positions read again",
                  n_records, n_positions);
}

static void
test_text_lines_and_seek_by_time (void)
{
  g_autofree char *path = strata_test_fixture ("sched-small.txt");
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) reads = NULL;
  guint sought = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = lines[i];
      const char *open = strstr (l, "] ");
      unsigned cpu, secs, usecs;
      char name[64];
      int used = 0;
      gint64 ts;

      if (l[0] == '#' || open == NULL)
        continue;
      while (open > l && *open != '[')
        open--;
      if (sscanf (open, "[%u] %*s %u.%u: %63[^:]: %n", &cpu, &secs, &usecs, name, &used) < 4 || used == 0)
        continue;
      ts = (gint64) secs * 1000000000 + (gint64) usecs * 1000;
      {
        g_autofree char *fields = g_strstrip (g_strdup (open + used));

        g_ptr_array_add (keys, g_strdup_printf ("%u %" G_GINT64_FORMAT " %s %s", cpu, ts, name, fields));
      }
      g_array_append_val (times, ts);
    }
  g_assert_cmpuint (keys->len, >, 2000);

  source = strata_source_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strata_source_get_n_record_streams (source), ==, 1);
  g_assert_cmpint (strata_source_get_record_stream_cpu (source, 0), ==, -1);
  g_assert_true (strata_source_can_seek_record_time (source));

  /* Every event line, in the file's order. */
  reads = read_stream (source, 0);
  g_assert_cmpuint (reads->len, ==, keys->len);
  for (guint i = 0; i < reads->len; i++)
    {
      const Read *r = &g_array_index (reads, Read, i);
      g_autofree char *got = g_strdup_printf ("%d %" G_GINT64_FORMAT " %s %s", r->head.cpu,
                                              r->head.ts, r->head.name, r->fields);

      g_assert_cmpstr (got, ==, g_ptr_array_index (keys, i));
    }
  g_test_message ("%u records equal the text's lines; %u positions read again",
                  reads->len, check_positions (source, 0, reads, 7));

  /* A seek by time: the line at that time is among the next read, none
   * after it, and nothing read before it is at that time or later. */
  for (guint i = 0; i < times->len; i += 13)
    {
      gint64 ts = g_array_index (times, gint64, i);
      const char *key = g_ptr_array_index (keys, i);
      gboolean found = FALSE;
      StrataRecordHead h;

      g_assert_true (strata_source_seek_record_time (source, 0, ts, &error));
      g_assert_no_error (error);
      while (!found && strata_source_next_record (source, &h, NULL))
        {
          g_autofree char *fields = strata_source_format_record (source);
          g_autofree char *got = g_strdup_printf ("%d %" G_GINT64_FORMAT " %s %s", h.cpu, h.ts, h.name, fields);

          g_assert_cmpint (h.ts, <=, ts);
          found = g_strcmp0 (got, key) == 0;
        }
      g_assert_true (found);
      sought++;
    }
  g_test_message ("%u times sought", sought);
}

static void
test_perf_positions (void)
{
  g_autofree char *path = strata_test_fixture ("perf-zstd.data.xz");
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) reads = NULL;
  guint n_with_fields = 0;

  source = strata_source_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strata_source_get_n_record_streams (source), ==, 1);
  g_assert_cmpint (strata_source_get_record_stream_cpu (source, 0), ==, -1);
  g_assert_false (strata_source_can_seek_record_time (source));

  reads = read_stream (source, 0);
  g_assert_cmpuint (reads->len, >, 1000);
  for (guint i = 0; i < reads->len; i++)
    if (g_array_index (reads, Read, i).fields != NULL)
      n_with_fields++;
  g_assert_cmpuint (n_with_fields, ==, reads->len);
  g_test_message ("%u records; %u positions read again (a compressed file's, kept)",
                  reads->len, check_positions (source, 0, reads, 5));

  /* The stream's start again, after all that. */
  {
    const Read *first = &g_array_index (reads, Read, 0);
    g_autofree char *fields = NULL;
    StrataRecordHead h;

    g_assert_true (strata_source_seek_record (source, 0, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (strata_source_next_record (source, &h, &error));
    fields = strata_source_format_record (source);
    g_assert_cmpint (h.ts, ==, first->head.ts);
    g_assert_cmpstr (fields, ==, first->fields);
  }
}

static void
test_ebpf_has_no_streams (void)
{
  g_autofree char *path = strata_test_fixture ("ebpf-sched.strata.xz");
  g_autoptr(StrataSource) source = NULL;
  g_autoptr(GError) error = NULL;

  source = strata_source_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strata_source_get_n_record_streams (source), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/source-records/tracedat-matches-report", test_tracedat_matches_report);
  g_test_add_func ("/strata/source-records/text-lines-and-seek-by-time", test_text_lines_and_seek_by_time);
  g_test_add_func ("/strata/source-records/perf-positions", test_perf_positions);
  g_test_add_func ("/strata/source-records/ebpf-has-no-streams", test_ebpf_has_no_streams);

  return g_test_run ();
}
