/* test-ui-perf-fields.c
 *
 * The event list's Fields column for perf.data, under Xvfb, against
 * `perf script --ns` of the same recordings (kept as xz fixtures made by
 * perf 6.1, tests/fixtures/README.md): tracepoint rows show what
 * `-F trace` prints, cpu-clock samples their ip and period, SWITCH
 * records IN/OUT and the other task's pid/tid, in file mode with and
 * without COMPRESSED records; only the rows GTK binds are read. A
 * damaged perf.data read through the same look-ups gives fields or
 * nothing, never a crash.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "strata-event-fields.h"
#include "../plugins/perf/strata-perf-source.h"
#include "strata-event-list.h"
#include "strata-event-model.h"
#include "strata-test-support.h"
#include "strata-test-ui.h"

typedef struct
{
  guint   cpu;
  gint64  ts;
  char   *name;
  char   *fields;
  char   *period;
  guint   depth;   /* frames of its call chain that perf script printed */
  gboolean relative; /* its ip printed as an offset in its mapping */
} ScriptLine;

static void
script_line_clear (gpointer data)
{
  ScriptLine *l = data;

  g_free (l->name);
  g_free (l->fields);
  g_free (l->period);
}

/* Runs of blanks as one: perf script pads its columns. */
static char *
squeeze (const char *s)
{
  g_auto(GStrv) words = g_strsplit_set (s, " \t", -1);
  GString *out = g_string_new (NULL);

  for (guint i = 0; words[i] != NULL; i++)
    if (words[i][0] != '\0')
      {
        if (out->len > 0)
          g_string_append_c (out, ' ');
        g_string_append (out, words[i]);
      }
  return g_string_free (out, FALSE);
}

/* "[cpu] secs.ns: [period] event: fields" as perf script prints the
 * fields asked for (a SWITCH record's name has no colon after it); the
 * event's name as the reader gives it. */
static GArray *
load_script (const char *fixture)
{
  g_autofree char *path = strata_test_fixture (fixture);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GRegex) re = g_regex_new ("^\\[(\\d+)\\]\\s+(\\d+)\\.(\\d{9}):\\s+(?:(\\d+)\\s+)?(\\S+?):?\\s+(.*)$",
                                      0, 0, NULL);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (ScriptLine));

  g_array_set_clear_func (out, script_line_clear);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(GMatchInfo) m = NULL;
      g_autofree char *cpu = NULL, *secs = NULL, *ns = NULL, *period = NULL, *event = NULL, *rest = NULL;
      const char *colon;
      ScriptLine l;

      if (lines[i][0] == '\0')
        continue;
      if (lines[i][0] == '\t')
        {
          /* A frame of the call chain of the sample above, innermost
           * first: the first is its ip. */
          ScriptLine *above;
          g_autofree char *frame = g_strstrip (g_strdup (lines[i]));
          char *blank = strpbrk (frame, " \t");

          /* "address [symbol]" */
          if (blank != NULL)
            *blank = '\0';

          g_assert_cmpuint (out->len, >, 0);
          above = &g_array_index (out, ScriptLine, out->len - 1);
          if (above->depth++ == 0)
            {
              g_free (above->fields);
              above->fields = g_strdup_printf ("ip=0x%s period=%s", frame, above->period);
              /* perf script prints a user-space frame of a chain as its
               * offset in the file it is mapped from (ip - start +
               * pgoff), a kernel one as it is. */
              above->relative = g_ascii_strtoull (frame, NULL, 16) < G_GUINT64_CONSTANT (0xffff800000000000);
            }
          continue;
        }
      g_assert_true (g_regex_match (re, lines[i], 0, &m));
      cpu = g_match_info_fetch (m, 1);
      secs = g_match_info_fetch (m, 2);
      ns = g_match_info_fetch (m, 3);
      period = g_match_info_fetch (m, 4);
      event = g_match_info_fetch (m, 5);
      rest = g_strstrip (g_match_info_fetch (m, 6));

      l.period = g_strdup (period);
      l.relative = FALSE;
      l.depth = 0;
      l.cpu = atoi (cpu);
      l.ts = g_ascii_strtoll (secs, NULL, 10) * 1000000000 + g_ascii_strtoll (ns, NULL, 10);
      colon = strrchr (event, ':');
      if (g_str_has_prefix (event, "PERF_RECORD_SWITCH"))
        l.name = g_strdup ("PERF_RECORD_SWITCH");
      else
        l.name = g_strdup (colon != NULL ? colon + 1 : event);
      if (period != NULL && period[0] != '\0')
        l.fields = g_strdup_printf ("ip=0x%s period=%s", rest, period);
      else
        l.fields = squeeze (rest);
      g_array_append_val (out, l);
    }
  /* A sample with a call chain: its depth after ip and period. */
  for (guint i = 0; i < out->len; i++)
    {
      ScriptLine *l = &g_array_index (out, ScriptLine, i);

      if (l->depth > 0)
        {
          char *with = g_strdup_printf ("%s depth=%u", l->fields, l->depth);

          g_free (l->fields);
          l->fields = with;
        }
    }
  return out;
}

/* Our fields against perf script's: the same, or for an ip perf gave
 * relative to its mapping, the same period and depth and the same place
 * in the page (mappings start at page boundaries). */
static void
assert_fields (const char       *got,
               const ScriptLine *want)
{
  guint64 ip = 0, want_ip = 0;
  char period[32] = "", want_period[32] = "";
  guint depth = 0, want_depth = 0;

  if (!want->relative)
    {
      g_assert_cmpstr (got, ==, want->fields);
      return;
    }
  g_assert_cmpint (sscanf (got, "ip=0x%" G_GINT64_MODIFIER "x period=%31s depth=%u", &ip, period, &depth), ==, 3);
  g_assert_cmpint (sscanf (want->fields, "ip=0x%" G_GINT64_MODIFIER "x period=%31s depth=%u",
                           &want_ip, want_period, &want_depth), ==, 3);
  g_assert_cmpstr (period, ==, want_period);
  g_assert_cmpuint (depth, ==, want_depth);
  g_assert_cmphex (ip & 0xfff, ==, want_ip & 0xfff);
  g_assert_cmphex (ip, >=, want_ip);
}

static const ScriptLine *
find_line (GArray      *lines,
           gint32       cpu,
           gint64       ts,
           const char  *name,
           const char  *or_name)
{
  for (guint i = 0; i < lines->len; i++)
    {
      const ScriptLine *l = &g_array_index (lines, ScriptLine, i);

      if (l->ts == ts && (cpu < 0 || l->cpu == (guint) cpu) &&
          (g_strcmp0 (l->name, name) == 0 || (or_name != NULL && g_strcmp0 (l->name, or_name) == 0)))
        return l;
    }
  return NULL;
}

typedef struct
{
  const char *data;
  const char *script;
  guint       min_checked;
  guint       min_kinds;   /* of activity whose fields were compared */
} PerfCase;

static void
test_perf_fields (gconstpointer data)
{
  const PerfCase *c = data;
  g_autoptr(GArray) lines = load_script (c->script);
  StrataWindow *window = strata_test_ui_open_window (c->data, 1400, 860);
  StrataTimelineView *view = strata_window_get_timeline (window);
  StrataEventList *list = strata_window_get_event_list (window);
  StrataTrace *trace = strata_timeline_view_get_trace (view);
  GListModel *model;
  guint n, checked = 0, read_when_shown;
  GHashTable *kinds = g_hash_table_new (NULL, NULL);

  g_assert_nonnull (trace);
  /* Said in full if not: it failed once under ASan, on a loaded machine. */
  if (strata_trace_get_damage (trace) != NULL)
    g_error ("%s: the trace is damaged: %s", c->data, strata_trace_get_damage (trace)->message);
  strata_event_list_set_filter (list, -1, -1, -1);
  strata_window_show_events (window, TRUE);
  strata_test_ui_settle ();
  model = strata_event_list_get_model (list);
  n = g_list_model_get_n_items (model);

  /* Lazily: opened afresh, then the list moved to three quarters of the
   * trace; only the rows bound there are read. */
  {
    g_autofree char *path = strata_test_fixture (c->data);
    gint64 t = strata_trace_get_start (trace) + (strata_trace_get_end (trace) - strata_trace_get_start (trace)) * 3 / 4;

    strata_event_list_set_fields_file (list, path);
    g_assert_cmpuint (strata_event_list_get_n_fields_read (list), ==, 0);
    strata_timeline_view_set_range (view, t, t + 200000);
    strata_test_ui_settle ();
  }
  read_when_shown = strata_event_list_get_n_fields_read (list);
  g_test_message ("%s: fields read for the rows shown: %u of %u rows", c->data, read_when_shown, n);
  /* GTK binds about two hundred rows around the visible ones: a list
   * longer than that shows its laziness (a shorter one has them all
   * bound already before the move). */
  if (n > 2 * 256)
    {
      g_assert_cmpuint (read_when_shown, >, 0);
      g_assert_cmpuint (read_when_shown, <=, 256);
      g_assert_cmpuint (n, >, 2 * read_when_shown);
    }
  g_assert_cmpuint (read_when_shown, <=, 256);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(StrataEventItem) item = g_list_model_get_item (model, i);
      const StrataActivity *a = strata_event_item_get_activity (item);
      gint32 cpu = strata_event_activity_cpu (STRATA_EVENT_MODEL (model), a);
      g_autofree char *fields = NULL;
      const ScriptLine *want;
      const char *name = NULL, *or_name = NULL;

      switch (a->kind)
        {
        case STRATA_ACTIVITY_EVENT:
        case STRATA_ACTIVITY_WAKEUP:
        case STRATA_ACTIVITY_SAMPLE:
          name = strata_trace_get_string (trace, a->label);
          break;
        case STRATA_ACTIVITY_TASK:
        case STRATA_ACTIVITY_IDLE:
          name = "sched_switch";
          or_name = "PERF_RECORD_SWITCH";
          break;
        case STRATA_ACTIVITY_IRQ:
          name = "irq_handler_entry";
          break;
        case STRATA_ACTIVITY_SOFTIRQ:
          name = "softirq_entry";
          break;
        default:
          continue;
        }
      fields = strata_event_list_get_fields_text (list, i);
      want = find_line (lines, cpu, a->start, name, or_name);
      if (want != NULL)
        {
          assert_fields (fields, want);
          g_hash_table_add (kinds, GINT_TO_POINTER (a->kind));
          checked++;
        }
      else
        /* A task running when the recording began has no switch. */
        g_assert_cmpstr (fields, ==, "");
    }
  g_test_message ("%s: %u rows' fields equal perf script's, of %u kinds", c->data, checked,
                  g_hash_table_size (kinds));
  g_assert_cmpuint (checked, >=, c->min_checked);
  g_assert_cmpuint (g_hash_table_size (kinds), >=, c->min_kinds);
  g_hash_table_unref (kinds);

  gtk_window_destroy (GTK_WINDOW (window));
  strata_test_ui_settle ();
}

/* Damage: the file cut short, and bytes of its data overwritten. Every
 * look-up of the events perf script saw gives that event's fields or
 * nothing. */
static void
test_damaged_perf_fields (gconstpointer data)
{
  const PerfCase *c = data;
  g_autofree char *src = strata_test_fixture (c->data);
  g_autoptr(GArray) lines = load_script (c->script);
  g_autofree char *dir = g_dir_make_tmp ("strata-perf-fields-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "damaged.data", NULL);
  g_autofree char *orig = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (src, &orig, &len, NULL));
  for (guint round = 0; round < 6; round++)
    {
      g_autofree char *bytes = g_memdup2 (orig, len);
      g_autoptr(StrataEventFields) fields = NULL;
      g_autoptr(GError) error = NULL;
      gsize cut = len;
      guint answered = 0, right = 0;

      if (round < 3)
        cut = len / 2 + round * (len / 8);
      else
        for (gsize at = len / 4 + round * 977; at < len * 3 / 4; at += 1531)
          bytes[at] ^= 0x5a;
      g_assert_true (g_file_set_contents (path, bytes, cut, NULL));

      fields = strata_event_fields_open (path, &error);
      if (fields == NULL)
        continue;
      /* Forward, then back over the same times. */
      for (guint pass = 0; pass < 2; pass++)
        for (guint k = 0; k < lines->len; k++)
          {
            guint i = pass == 0 ? k : lines->len - 1 - k;
            const ScriptLine *l = &g_array_index (lines, ScriptLine, i);
            const char *names[] = { l->name, NULL };
            g_autofree char *got = strata_event_fields_lookup (fields, l->cpu, l->ts, names);

            if (got != NULL)
              {
                answered++;
                right += g_strcmp0 (got, l->fields) == 0;
              }
          }
      g_test_message ("%s, damage %u: %u look-ups answered, %u as perf script", c->data, round, answered, right);
    }
  g_remove (path);
  g_rmdir (dir);
}

/* Looked up out of order, every record's fields are what a front-to-back
 * read of the same file formats for it (the first record of its CPU,
 * time and name): the checkpoints and look-backs lose nothing. Returns
 * the records compared; 0 for a file the source cannot open. */
static guint
check_random_access (const char *path)
{
  g_autoptr(StrataSource) source = strata_source_open (path, NULL);
  g_autoptr(GHashTable) first = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) keys = g_ptr_array_new ();
  g_autoptr(StrataEventFields) fields = NULL;
  g_autoptr(GError) error = NULL;
  StrataPerfRecordHead h;
  guint compared = 0;

  if (source == NULL || !STRATA_IS_PERF_SOURCE (source))
    return 0;
  g_test_message ("%s: read front to back", path);
  while (strata_perf_source_next_record_head (STRATA_PERF_SOURCE (source), &h, &error))
    {
      char *key = g_strdup_printf ("%d %" G_GINT64_FORMAT " %s", h.cpu, h.ts, h.name);
      char *text = strata_perf_source_format_record (STRATA_PERF_SOURCE (source));

      if (g_hash_table_contains (first, key))
        {
          g_free (key);
          g_free (text);
          continue;
        }
      g_hash_table_insert (first, key, text != NULL ? text : g_strdup (""));
      g_ptr_array_add (keys, key);
    }
  if (error != NULL)
    g_test_message ("%s: %s", path, error->message);

  fields = strata_event_fields_open (path, NULL);
  g_assert_nonnull (fields);
  /* From the end back, then every seventh. */
  for (guint pass = 0; pass < 2; pass++)
    for (guint k = 0; k < keys->len; k++)
      {
        guint i = pass == 0 ? keys->len - 1 - k : (k * 7) % keys->len;
        const char *key = keys->pdata[i];
        g_auto(GStrv) parts = g_strsplit (key, " ", 3);
        const char *names[] = { parts[2], NULL };
        g_autofree char *got = strata_event_fields_lookup (fields, atoi (parts[0]),
                                                          g_ascii_strtoll (parts[1], NULL, 10), names);

        g_assert_cmpstr (got != NULL ? got : "", ==, g_hash_table_lookup (first, key));
        compared++;
      }
  return compared;
}

static void
test_random_access (void)
{
  const char *fixtures[] = { "perf-sched.data.xz", "perf-zstd.data.xz", "perf-switch.data.xz",
                             "perf-callchain.data.xz", "perf-pipe-cpu.data.xz" };

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = strata_test_fixture (fixtures[i]);
      guint n = check_random_access (path);

      g_test_message ("%s: %u look-ups out of order", fixtures[i], n);
      g_assert_cmpuint (n, >, 400);
    }
}

/* The same over the perf.data files of ../shared/corpus/perf (skipped
 * when it is absent): other perf versions, old formats, LBR, probes. */
static void
test_random_access_corpus (void)
{
  const char *corpus = g_getenv ("STRATA_CORPUS_DIR");
  g_autofree char *dir = corpus != NULL ? g_build_filename (corpus, "perf", NULL) : NULL;
  g_autoptr(GDir) d = NULL;
  const char *name;
  guint files = 0;

  if (dir == NULL || (d = g_dir_open (dir, 0, NULL)) == NULL)
    {
      g_test_skip ("no ../shared/corpus/perf");
      return;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      guint n;

      if (g_str_has_suffix (name, ".md"))
        continue;
      n = check_random_access (path);
      g_test_message ("%s: %u look-ups out of order", name, n);
      files += n > 0;
    }
  g_assert_cmpuint (files, >, 0);
}

static const PerfCase sched_case = { "perf-sched.data.xz", "perf-sched.script.xz", 500, 5 };
static const PerfCase zstd_case = { "perf-zstd.data.xz", "perf-zstd.script.xz", 500, 5 };
static const PerfCase switch_case = { "perf-switch.data.xz", "perf-switch.script.xz", 100, 3 };
static const PerfCase callchain_case = { "perf-callchain.data.xz", "perf-callchain.script.xz", 200, 1 };
static const PerfCase pipe_case = { "perf-pipe-cpu.data.xz", "perf-pipe-cpu.script.xz", 100, 1 };

int
main (int    argc,
      char **argv)
{
  strata_test_ui_init (&argc, &argv);

  g_test_add_data_func ("/strata/ui/perf-fields/tracepoints", &sched_case, test_perf_fields);
  g_test_add_data_func ("/strata/ui/perf-fields/compressed", &zstd_case, test_perf_fields);
  g_test_add_data_func ("/strata/ui/perf-fields/samples-and-switches", &switch_case, test_perf_fields);
  g_test_add_data_func ("/strata/ui/perf-fields/call-chains", &callchain_case, test_perf_fields);
  g_test_add_data_func ("/strata/ui/perf-fields/pipe-mode", &pipe_case, test_perf_fields);
  g_test_add_func ("/strata/ui/perf-fields/random-access", test_random_access);
  g_test_add_func ("/strata/ui/perf-fields/random-access-corpus", test_random_access_corpus);
  g_test_add_data_func ("/strata/ui/perf-fields/damaged", &sched_case, test_damaged_perf_fields);
  g_test_add_data_func ("/strata/ui/perf-fields/damaged-compressed", &zstd_case, test_damaged_perf_fields);

  return g_test_run ();
}
