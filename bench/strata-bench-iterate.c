/* strata-bench-iterate.c
 *
 * The baseline Strata's index build is measured against: the least work any
 * program can do to read a trace.dat through libtracecmd. It opens the file,
 * walks every record and reads one field of each (the common_pid, through
 * libtraceevent, so the payload is really touched), then prints how many
 * events it saw and how fast. By default records come merged in time order
 * across CPUs (tracecmd_read_next_data), as a viewer needs them; --per-cpu
 * walks each CPU's stream on its own without the merge, and --iterate uses
 * tracecmd_iterate_events, to show what each way of reading costs.
 */

#include <glib.h>
#include <stdio.h>

#include <trace-cmd/trace-cmd.h>

/* Exported by libtracecmd 1.3 (trace-cmd 3.1.6) but not declared in its
 * public header. */
int                tracecmd_cpus           (struct tracecmd_input *handle);
struct tep_record *tracecmd_read_next_data (struct tracecmd_input *handle,
                                            int                   *rec_cpu);

typedef struct
{
  struct tep_handle *tep;
  guint64            events;
  guint64            pid_sum;
} StrataBenchCount;

static inline void
count_record (StrataBenchCount *count,
              struct tep_record *record)
{
  count->events++;
  count->pid_sum += (guint) tep_data_pid (count->tep, record);
}

static void
iterate_merged (struct tracecmd_input *handle,
                StrataBenchCount      *count)
{
  struct tep_record *record;
  int cpu;

  while ((record = tracecmd_read_next_data (handle, &cpu)) != NULL)
    {
      count_record (count, record);
      tracecmd_free_record (record);
    }
}

static void
iterate_per_cpu (struct tracecmd_input *handle,
                 StrataBenchCount      *count)
{
  int n_cpus = tracecmd_cpus (handle);

  for (int cpu = 0; cpu < n_cpus; cpu++)
    {
      struct tep_record *record = tracecmd_read_cpu_first (handle, cpu);

      while (record != NULL)
        {
          count_record (count, record);
          tracecmd_free_record (record);
          record = tracecmd_read_data (handle, cpu);
        }
    }
}

static int
iterate_callback (struct tracecmd_input *handle,
                  struct tep_record     *record,
                  int                    cpu,
                  void                  *user_data)
{
  (void) handle;
  (void) cpu;
  count_record (user_data, record);
  return 0;
}

int
main (int    argc,
      char **argv)
{
  gboolean per_cpu = FALSE;
  gboolean iterate = FALSE;
  GOptionEntry entries[] = {
    { "per-cpu", 0, 0, G_OPTION_ARG_NONE, &per_cpu, "Read each CPU on its own, without merging", NULL },
    { "iterate", 0, 0, G_OPTION_ARG_NONE, &iterate, "Use tracecmd_iterate_events", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("FILE.dat - iterate a trace.dat with libtracecmd");
  g_autoptr(GError) error = NULL;
  StrataBenchCount count = { 0 };
  struct tracecmd_input *handle;
  const char *mode;
  gint64 start, opened, end;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("strata-bench-iterate: %s\n", error->message);
      return 2;
    }
  if (argc != 2 || (per_cpu && iterate))
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

      g_printerr ("%s", help);
      return 2;
    }

  start = g_get_monotonic_time ();
  handle = tracecmd_open (argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
  if (handle == NULL)
    {
      g_printerr ("strata-bench-iterate: cannot open %s as a trace.dat\n", argv[1]);
      return 1;
    }
  count.tep = tracecmd_get_tep (handle);
  opened = g_get_monotonic_time ();

  if (per_cpu)
    {
      mode = "per-cpu";
      iterate_per_cpu (handle, &count);
    }
  else if (iterate)
    {
      mode = "iterate-events";
      tracecmd_iterate_events (handle, NULL, 0, iterate_callback, &count);
    }
  else
    {
      mode = "merged";
      iterate_merged (handle, &count);
    }
  end = g_get_monotonic_time ();
  tracecmd_close (handle);

  /* pid_sum is printed so the field read cannot be optimised away, and
   * doubles as a checksum: every mode must print the same one. */
  printf ("mode=%s events=%" G_GUINT64_FORMAT " open_s=%.3f iterate_s=%.3f "
          "events_per_s=%.0f pid_sum=%" G_GUINT64_FORMAT "\n",
          mode, count.events, (opened - start) / 1e6, (end - opened) / 1e6,
          count.events / MAX ((end - start) / 1e6, 1e-9), count.pid_sum);
  return 0;
}
