/* strata-cli-info.c
 *
 * `strata-cli info FILE`: what the file is (format, version, compression,
 * clock), what it covers (CPUs, time span, buffer instances), what is in it
 * (events per type, channels) and what is missing (lost events) or was
 * read past without decoding (a processor trace's AUX area data).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "strata-cli.h"
#include "strata-cli-format.h"
#include "strata-json-writer.h"

typedef struct
{
  guint cpus;
  guint processes;
  guint threads;
} ChannelCounts;

static ChannelCounts
count_channels (StrataTrace *trace)
{
  ChannelCounts counts = { 0 };
  const StrataChannel *channels;
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  for (guint i = 0; i < n; i++)
    {
      switch (channels[i].kind)
        {
        case STRATA_CHANNEL_CPU: counts.cpus++; break;
        case STRATA_CHANNEL_PROCESS: counts.processes++; break;
        case STRATA_CHANNEL_THREAD: counts.threads++; break;
        default: break;
        }
    }

  return counts;
}

static int
compare_counts (gconstpointer a,
                gconstpointer b)
{
  const StrataEventCount *x = a;
  const StrataEventCount *y = b;

  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return x->name < y->name ? -1 : x->name > y->name;
}

static GArray *
sorted_counts (StrataTrace *trace)
{
  const StrataEventCount *counts;
  GArray *sorted;
  guint n;

  counts = strata_trace_get_event_counts (trace, &n);
  sorted = g_array_sized_new (FALSE, FALSE, sizeof (StrataEventCount), n);
  g_array_append_vals (sorted, counts, n);
  g_array_sort (sorted, compare_counts);

  return sorted;
}

static const char *
or_unknown (const char *s)
{
  return (s != NULL && s[0] != '\0') ? s : "unknown";
}

static void
print_json (StrataTrace *trace,
            const char  *path)
{
  const StrataSourceInfo *info = strata_trace_get_info (trace);
  g_autoptr(StrataJsonWriter) w = strata_json_writer_new ();
  g_autoptr(GArray) counts = sorted_counts (trace);
  ChannelCounts channels = count_channels (trace);
  const GError *damage = strata_trace_get_damage (trace);
  g_autofree char *out = NULL;

  strata_json_writer_begin_object (w);
  strata_json_writer_key (w, "file");
  strata_json_writer_string (w, path);
  strata_json_writer_key (w, "format");
  strata_json_writer_string (w, info->format);
  strata_json_writer_key (w, "version");
  strata_json_writer_string (w, info->version);
  strata_json_writer_key (w, "compression");
  strata_json_writer_string (w, info->compression);
  strata_json_writer_key (w, "clock");
  strata_json_writer_string (w, info->clock);
  strata_json_writer_key (w, "cpus");
  strata_json_writer_uint (w, info->n_cpus);
  strata_json_writer_key (w, "start_ns");
  strata_json_writer_int (w, strata_trace_get_start (trace));
  strata_json_writer_key (w, "end_ns");
  strata_json_writer_int (w, strata_trace_get_end (trace));
  strata_json_writer_key (w, "duration_ns");
  strata_json_writer_int (w, strata_trace_get_end (trace) - strata_trace_get_start (trace));
  strata_json_writer_key (w, "events");
  strata_json_writer_uint (w, strata_trace_get_n_events (trace));

  strata_json_writer_key (w, "events_by_type");
  strata_json_writer_begin_object (w);
  for (guint i = 0; i < counts->len; i++)
    {
      const StrataEventCount *ec = &g_array_index (counts, StrataEventCount, i);

      strata_json_writer_key (w, strata_trace_get_string (trace, ec->name));
      strata_json_writer_uint (w, ec->count);
    }
  strata_json_writer_end_object (w);

  strata_json_writer_key (w, "channels");
  strata_json_writer_begin_object (w);
  strata_json_writer_key (w, "cpu");
  strata_json_writer_uint (w, channels.cpus);
  strata_json_writer_key (w, "process");
  strata_json_writer_uint (w, channels.processes);
  strata_json_writer_key (w, "thread");
  strata_json_writer_uint (w, channels.threads);
  strata_json_writer_end_object (w);

  strata_json_writer_key (w, "instances");
  strata_json_writer_begin_array (w);
  for (guint i = 0; i < info->instances->len; i++)
    strata_json_writer_string (w, g_ptr_array_index (info->instances, i));
  strata_json_writer_end_array (w);

  strata_json_writer_key (w, "lost_events");
  strata_json_writer_uint (w, info->lost_events);
  strata_json_writer_key (w, "lost_events_unknown");
  strata_json_writer_bool (w, info->lost_unknown);
  strata_json_writer_key (w, "lost_per_cpu");
  strata_json_writer_begin_array (w);
  for (guint i = 0; i < info->lost_per_cpu->len; i++)
    strata_json_writer_uint (w, g_array_index (info->lost_per_cpu, guint64, i));
  strata_json_writer_end_array (w);

  strata_json_writer_key (w, "not_decoded");
  strata_json_writer_begin_array (w);
  for (guint i = 0; i < info->undecoded->len; i++)
    {
      const StrataUndecoded *u = g_ptr_array_index (info->undecoded, i);

      strata_json_writer_begin_object (w);
      strata_json_writer_key (w, "what");
      strata_json_writer_string (w, u->what);
      strata_json_writer_key (w, "records");
      strata_json_writer_uint (w, u->records);
      strata_json_writer_key (w, "bytes");
      strata_json_writer_uint (w, u->bytes);
      strata_json_writer_key (w, "bytes_per_cpu");
      strata_json_writer_begin_array (w);
      for (guint c = 0; c < u->bytes_per_cpu->len; c++)
        strata_json_writer_uint (w, g_array_index (u->bytes_per_cpu, guint64, c));
      strata_json_writer_end_array (w);
      strata_json_writer_end_object (w);
    }
  strata_json_writer_end_array (w);

  strata_json_writer_key (w, "details");
  strata_json_writer_begin_object (w);
  for (guint i = 0; info->details != NULL && i < info->details->len; i++)
    {
      const StrataSourceDetail *d = &g_array_index (info->details, StrataSourceDetail, i);

      strata_json_writer_key (w, d->name);
      strata_json_writer_string (w, d->value);
    }
  strata_json_writer_end_object (w);

  strata_json_writer_key (w, "damage");
  if (damage != NULL)
    strata_json_writer_string (w, damage->message);
  else
    strata_json_writer_null (w);

  strata_json_writer_end_object (w);

  out = strata_json_writer_finish (w);
  fputs (out, stdout);
}

/* What the reader stepped over: said, so nobody takes it for absent. */
static void
print_undecoded (const StrataSourceInfo *info)
{
  for (guint i = 0; i < info->undecoded->len; i++)
    {
      const StrataUndecoded *u = g_ptr_array_index (info->undecoded, i);

      printf ("%-14s %s: %" G_GUINT64_FORMAT " bytes in %" G_GUINT64_FORMAT " records\n",
              i == 0 ? "Not decoded" : "", u->what, u->bytes, u->records);
      for (guint c = 0; c < u->bytes_per_cpu->len; c++)
        {
          guint64 bytes = g_array_index (u->bytes_per_cpu, guint64, c);

          if (bytes > 0)
            printf ("%-14s   CPU %u: %" G_GUINT64_FORMAT " bytes\n", "", c, bytes);
        }
    }
}

static void
print_human (StrataTrace *trace,
             const char  *path)
{
  const StrataSourceInfo *info = strata_trace_get_info (trace);
  g_autoptr(GArray) counts = sorted_counts (trace);
  ChannelCounts channels = count_channels (trace);
  gint64 start = strata_trace_get_start (trace);
  gint64 end = strata_trace_get_end (trace);
  g_autofree char *start_s = strata_format_timestamp (start);
  g_autofree char *end_s = strata_format_timestamp (end);
  g_autofree char *span_s = strata_format_duration (end - start);
  g_autoptr(GString) instances = g_string_new (NULL);
  guint name_width = 4;

  for (guint i = 0; i < info->instances->len; i++)
    {
      const char *name = g_ptr_array_index (info->instances, i);

      if (i > 0)
        g_string_append (instances, ", ");
      g_string_append (instances, name[0] ? name : "(top)");
    }

  printf ("%-14s %s\n", "File", path);
  printf ("%-14s %s\n", "Format", or_unknown (info->format));
  printf ("%-14s %s\n", "Version", or_unknown (info->version));
  printf ("%-14s %s\n", "Compression", or_unknown (info->compression));
  printf ("%-14s %s\n", "Clock", or_unknown (info->clock));
  printf ("%-14s %u\n", "CPUs", info->n_cpus);
  if (info->hostname != NULL)
    printf ("%-14s %s\n", "Host", info->hostname);
  if (info->kernel_release != NULL)
    printf ("%-14s %s\n", "Kernel", info->kernel_release);
  for (guint i = 0; info->details != NULL && i < info->details->len; i++)
    {
      const StrataSourceDetail *d = &g_array_index (info->details, StrataSourceDetail, i);

      printf ("%-14s %s\n", d->name, d->value);
    }
  printf ("%-14s %s\n", "Instances", instances->str);
  printf ("%-14s %s s to %s s (%s)\n", "Time span", start_s, end_s, span_s);
  printf ("%-14s %" G_GUINT64_FORMAT "\n", "Events", strata_trace_get_n_events (trace));
  if (info->lost_unknown)
    printf ("%-14s %" G_GUINT64_FORMAT " counted, more lost without a count\n",
            "Lost events", info->lost_events);
  else
    printf ("%-14s %" G_GUINT64_FORMAT "\n", "Lost events", info->lost_events);
  for (guint i = 0; i < info->lost_per_cpu->len; i++)
    {
      guint64 lost = g_array_index (info->lost_per_cpu, guint64, i);

      if (lost > 0)
        printf ("%-14s   CPU %u: %" G_GUINT64_FORMAT "\n", "", i, lost);
    }
  printf ("%-14s %u CPUs, %u processes, %u threads\n", "Channels",
          channels.cpus, channels.processes, channels.threads);
  print_undecoded (info);

  for (guint i = 0; i < counts->len; i++)
    {
      const StrataEventCount *ec = &g_array_index (counts, StrataEventCount, i);
      name_width = MAX (name_width, g_utf8_strlen (strata_trace_get_string (trace, ec->name), -1));
    }

  printf ("\nEvents by type\n");
  for (guint i = 0; i < counts->len; i++)
    {
      const StrataEventCount *ec = &g_array_index (counts, StrataEventCount, i);

      printf ("  %-*s %12" G_GUINT64_FORMAT "\n", (int) name_width,
              strata_trace_get_string (trace, ec->name), ec->count);
    }
}

int
strata_cli_info (int    argc,
                 char **argv)
{
  g_autoptr(StrataTrace) trace = NULL;
  StrataCliIndexOptions index;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { NULL }
  };
  const char *file;

  file = strata_cli_parse_file_args ("info", "describe a trace", entries,
                                     strata_cli_index_option_group (&index), &argc, &argv);
  if (file == NULL)
    return STRATA_CLI_EXIT_FAILED;

  /* Any tree will do: info reads the index's description only. */
  trace = strata_cli_open_trace (file, NULL, &index);
  g_free (index.index_path);
  if (trace == NULL)
    return STRATA_CLI_EXIT_FAILED;

  if (json)
    print_json (trace, file);
  else
    print_human (trace, file);

  return strata_cli_finish (trace);
}
