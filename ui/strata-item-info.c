/* strata-item-info.c
 *
 * Fields that describe an item of the timeline, in the user's language:
 * for an activity its name, pid/tid, state, CPU, start and duration; for
 * an aggregate its member count, busy time and the members that take the
 * most time (from strata_zoom_tree_get_members, the seed's drill-down);
 * for a range of time the time each thread spent in each state, switch
 * counts and wakeup latencies, computed by the same StrataStatsBuilder as
 * `strata-cli stats` from the raw store's activities clipped to the range.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "strata-item-info.h"

#define N_TOP_MEMBERS 5

static void
field_free (gpointer data)
{
  StrataInfoField *f = data;

  g_free (f->key);
  g_free (f->value);
  g_free (f);
}

static StrataItemInfo *
info_new (char *title)
{
  StrataItemInfo *self = g_new0 (StrataItemInfo, 1);

  self->title = title;
  self->fields = g_ptr_array_new_with_free_func (field_free);
  self->members = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
  return self;
}

G_GNUC_PRINTF (3, 4)
static void
add_field (StrataItemInfo *self,
           const char     *key,
           const char     *format,
           ...)
{
  StrataInfoField *f = g_new0 (StrataInfoField, 1);
  va_list args;

  va_start (args, format);
  f->key = g_strdup (key);
  f->value = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (self->fields, f);
}

void
strata_item_info_free (StrataItemInfo *self)
{
  if (self == NULL)
    return;

  g_free (self->title);
  g_ptr_array_unref (self->fields);
  g_array_unref (self->members);
  g_free (self);
}

/**
 * strata_item_info_get:
 * @key: a field's (translated) name
 *
 * Returns: (nullable): the field's value
 */
const char *
strata_item_info_get (const StrataItemInfo *self,
                      const char           *key)
{
  g_return_val_if_fail (self != NULL && key != NULL, NULL);

  for (guint i = 0; i < self->fields->len; i++)
    {
      const StrataInfoField *f = g_ptr_array_index (self->fields, i);

      if (g_str_equal (f->key, key))
        return f->value;
    }
  return NULL;
}

/* "Key: value" lines under the title, what Copy puts on the clipboard. */
char *
strata_item_info_to_text (const StrataItemInfo *self)
{
  GString *s = g_string_new (self->title);

  g_string_append_c (s, '\n');
  for (guint i = 0; i < self->fields->len; i++)
    {
      const StrataInfoField *f = g_ptr_array_index (self->fields, i);

      g_string_append_printf (s, "%s: %s\n", f->key, f->value);
    }
  return g_string_free (s, FALSE);
}

/* For a tooltip: the title in bold, then the first @max_fields fields. */
char *
strata_item_info_to_markup (const StrataItemInfo *self,
                            guint                 max_fields)
{
  GString *s = g_string_new (NULL);
  g_autofree char *title = g_markup_escape_text (self->title, -1);

  g_string_append_printf (s, "<b>%s</b>", title);
  for (guint i = 0; i < MIN (max_fields, self->fields->len); i++)
    {
      const StrataInfoField *f = g_ptr_array_index (self->fields, i);
      g_autofree char *k = g_markup_escape_text (f->key, -1);
      g_autofree char *v = g_markup_escape_text (f->value, -1);

      g_string_append_printf (s, "\n<span alpha=\"70%%\">%s</span>  %s", k, v);
    }
  return g_string_free (s, FALSE);
}

/* Four significant digits in the unit that suits: "1.234 ms". */
char *
strata_format_duration (gint64 ns)
{
  double a = ABS ((double) ns);

  if (a < 1e3)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  if (a < 1e6)
    return g_strdup_printf ("%.4g µs", ns / 1e3);
  if (a < 1e9)
    return g_strdup_printf ("%.4g ms", ns / 1e6);
  return g_strdup_printf ("%.4g s", ns / 1e9);
}

/* A time since the trace's start, to the nanosecond: "16.234567 ms". */
char *
strata_format_offset (gint64 ns)
{
  double a = ABS ((double) ns);

  if (a < 1e3)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  if (a < 1e6)
    return g_strdup_printf ("%.3f µs", ns / 1e3);
  if (a < 1e9)
    return g_strdup_printf ("%.6f ms", ns / 1e6);
  return g_strdup_printf ("%.9f s", ns / 1e9);
}

const char *
strata_task_state_display_name (StrataTaskState state)
{
  switch (state)
    {
    case STRATA_TASK_STATE_RUNNING:         return _("Running");
    case STRATA_TASK_STATE_RUNNABLE:        return _("Runnable");
    case STRATA_TASK_STATE_PREEMPTED:       return _("Runnable (preempted)");
    case STRATA_TASK_STATE_WOKEN:           return _("Runnable (woken)");
    case STRATA_TASK_STATE_SLEEPING:        return _("Sleeping");
    case STRATA_TASK_STATE_UNINTERRUPTIBLE: return _("Uninterruptible");
    case STRATA_TASK_STATE_STOPPED:         return _("Stopped");
    case STRATA_TASK_STATE_DEAD:            return _("Dead");
    case STRATA_TASK_STATE_PARKED:          return _("Parked");
    case STRATA_TASK_STATE_UNKNOWN:
    default:                                return _("Unknown");
    }
}

static const char *
kind_display_name (StrataActivityKind kind)
{
  switch (kind)
    {
    case STRATA_ACTIVITY_TASK:    return _("Task");
    case STRATA_ACTIVITY_IDLE:    return _("Idle");
    case STRATA_ACTIVITY_IRQ:     return _("IRQ");
    case STRATA_ACTIVITY_SOFTIRQ: return _("Softirq");
    case STRATA_ACTIVITY_UNKNOWN: return _("Not in the trace");
    case STRATA_ACTIVITY_STATE:   return _("State");
    case STRATA_ACTIVITY_WAKEUP:  return _("Wakeup");
    case STRATA_ACTIVITY_EVENT:   return _("Event");
    default:                      return _("Activity");
    }
}

/* A row's name: the channel's comm, a process named after its main
 * thread (as the painter names it), or "CPU n". */
const char *
strata_channel_display_name (StrataTrace *trace,
                             guint32      channel)
{
  const StrataChannel *channels;
  guint n;

  channels = strata_trace_get_channels (trace, &n);
  if (channel >= n)
    return "";
  if (channels[channel].name != STRATA_STRING_NONE)
    return strata_trace_get_string (trace, channels[channel].name);
  if (channels[channel].kind == STRATA_CHANNEL_PROCESS)
    for (guint i = 0; i < n; i++)
      if (channels[i].parent == channel && channels[i].id == channels[channel].id &&
          channels[i].name != STRATA_STRING_NONE)
        return strata_trace_get_string (trace, channels[i].name);
  return channels[channel].kind == STRATA_CHANNEL_PROCESS ? _("process") : _("thread");
}

static const char *
cpu_name (StrataTrace *trace,
          guint16      instance,
          gint32       cpu,
          char        *buf,
          gsize        size)
{
  g_snprintf (buf, size, "%d", cpu);
  return buf;
}

static void
add_channel_fields (StrataItemInfo      *self,
                    StrataTrace         *trace,
                    const StrataChannel *ch)
{
  switch (ch->kind)
    {
    case STRATA_CHANNEL_CPU:
      add_field (self, _("CPU"), "%d", ch->id);
      break;
    case STRATA_CHANNEL_PROCESS:
      add_field (self, _("PID"), "%d", ch->id);
      break;
    case STRATA_CHANNEL_THREAD:
    default:
      add_field (self, _("TID"), "%d", ch->id);
      if (ch->tgid >= 0)
        add_field (self, _("PID"), "%d", ch->tgid);
      break;
    }
}

static int
by_duration_descending (gconstpointer pa,
                        gconstpointer pb)
{
  const StrataMemberGroup *a = pa, *b = pb;

  if (a->duration != b->duration)
    return a->duration > b->duration ? -1 : 1;
  if (a->count != b->count)
    return a->count > b->count ? -1 : 1;
  return g_strcmp0 (a->name, b->name);
}

static void
member_group_clear (gpointer data)
{
  g_free (((StrataMemberGroup *) data)->name);
}

static char *
member_name (StrataTrace          *trace,
             const StrataActivity *a)
{
  if (a->kind == STRATA_ACTIVITY_STATE)
    return g_strdup (strata_task_state_display_name (a->state));
  if (a->kind == STRATA_ACTIVITY_IDLE)
    return g_strdup (_("Idle"));
  if (a->label != STRATA_STRING_NONE)
    {
      const char *label = strata_trace_get_string (trace, a->label);

      if (a->kind == STRATA_ACTIVITY_TASK)
        return g_strdup_printf ("%s (%d)", label, a->arg);
      return g_strdup (label);
    }
  return g_strdup (kind_display_name (a->kind));
}

/**
 * strata_item_info_group_members:
 * @members: (element-type StrataActivity): an aggregate's members
 *
 * Returns: (transfer full) (element-type StrataMemberGroup): the members
 *   grouped by what they are (task, interrupt, state), the most time first
 */
GArray *
strata_item_info_group_members (StrataTrace  *trace,
                                const GArray *members)
{
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, NULL);
  GArray *groups = g_array_new (FALSE, FALSE, sizeof (StrataMemberGroup));

  g_array_set_clear_func (groups, member_group_clear);

  for (guint i = 0; i < members->len; i++)
    {
      const StrataActivity *a = &g_array_index (members, StrataActivity, i);
      g_autofree char *name = member_name (trace, a);
      gpointer slot;
      StrataMemberGroup *g;

      if (g_hash_table_lookup_extended (index, name, NULL, &slot))
        g = &g_array_index (groups, StrataMemberGroup, GPOINTER_TO_UINT (slot));
      else
        {
          StrataMemberGroup fresh = { g_strdup (name), 0, 0, a->start, a->end };

          g_array_append_val (groups, fresh);
          g = &g_array_index (groups, StrataMemberGroup, groups->len - 1);
          g_hash_table_insert (index, g->name, GUINT_TO_POINTER (groups->len - 1));
        }
      g->count++;
      g->duration += a->end - a->start;
      g->first_start = MIN (g->first_start, a->start);
      g->last_end = MAX (g->last_end, a->end);
    }

  g_array_sort (groups, by_duration_descending);
  return groups;
}

/* Who woke a WOKEN state's thread, and where: the thread the wakeup ran
 * in, or the interrupt that came upon it. */
static void
add_waker_fields (StrataItemInfo       *self,
                  StrataTrace          *trace,
                  const StrataZoomItem *item)
{
  StrataActivity a = {
    .start = item->start, .end = item->end, .channel = item->channel, .label = item->label,
    .arg = item->arg, .kind = item->kind, .state = item->state, .flags = item->flags,
  };
  const StrataChannel *channels;
  StrataWakeup w;
  const char *who = NULL;
  guint n;

  if (item->flags & STRATA_ACTIVITY_FLAG_CONTINUES_BEFORE ||
      !strata_wakeup_from_state (trace, NULL, &a, &w))
    return;
  channels = strata_trace_get_channels (trace, &n);
  w.waker = strata_trace_find_thread (trace, channels[item->channel].instance, w.waker_tid, w.woken_at);
  if (w.waker != STRATA_CHANNEL_NONE)
    who = strata_trace_get_string (trace, channels[w.waker].name);
  if (w.waker_tid == 0)
    /* Translators: the idle task, which ran when a wakeup came in */
    who = _("idle");

  if (strata_wakeup_is_interrupt (&w))
    {
      const char *what = (w.context & STRATA_EVENT_CONTEXT_NMI) ? _("an NMI")
                       : (w.context & STRATA_EVENT_CONTEXT_HARDIRQ) ? _("an interrupt")
                       : (w.context & STRATA_EVENT_CONTEXT_SOFTIRQ) ? _("a softirq")
                       : _("an interrupt");

      /* Translators: "an interrupt (in bash 1234)": what woke a thread,
       * and the thread it came upon */
      add_field (self, _("Woken by"), _("%s (in %s %d)"), what, who != NULL ? who : "?", w.waker_tid);
    }
  else if (w.waker_tid >= 0)
    add_field (self, _("Woken by"), "%s %d", who != NULL ? who : "?", w.waker_tid);
  if (w.cpu >= 0)
    add_field (self, _("Waking CPU"), "%d", w.cpu);
}

/**
 * strata_item_info_new_for_item:
 * @item: an item a zoom-tree query returned
 *
 * Returns: (transfer full): its description
 */
StrataItemInfo *
strata_item_info_new_for_item (StrataTrace          *trace,
                               const StrataZoomItem *item)
{
  const StrataChannel *channels;
  const StrataChannel *ch;
  StrataItemInfo *self;
  gboolean aggregate = (item->flags & STRATA_ZOOM_ITEM_AGGREGATE) != 0;
  gint64 start = strata_trace_get_start (trace);
  g_autofree char *t_start = NULL, *t_dur = NULL;
  guint n;
  char buf[32];

  g_return_val_if_fail (STRATA_IS_TRACE (trace) && item != NULL, NULL);

  channels = strata_trace_get_channels (trace, &n);
  g_return_val_if_fail (item->channel < n, NULL);
  ch = &channels[item->channel];

  if (item->kind == STRATA_ACTIVITY_TASK && item->label != STRATA_STRING_NONE)
    self = info_new (g_strdup (strata_trace_get_string (trace, item->label)));
  else if (item->kind == STRATA_ACTIVITY_STATE || ch->kind == STRATA_CHANNEL_THREAD)
    self = info_new (g_strdup (strata_channel_display_name (trace, item->channel)));
  else if (item->label != STRATA_STRING_NONE)
    self = info_new (g_strdup (strata_trace_get_string (trace, item->label)));
  else
    self = info_new (g_strdup (kind_display_name (item->kind)));

  if (aggregate && item->count > 1)
    {
      g_autofree char *t = self->title;

      /* Translators: the title of a group of activities merged because
       * each is shorter than a pixel; %s is what most of them are. */
      self->title = g_strdup_printf (_("%s and others"), t);
    }

  if (ch->kind == STRATA_CHANNEL_CPU)
    {
      if (item->kind == STRATA_ACTIVITY_TASK)
        {
          add_field (self, _("TID"), "%d", item->arg);
          for (guint i = 0; i < n; i++)
            if (channels[i].kind == STRATA_CHANNEL_THREAD && channels[i].id == item->arg &&
                channels[i].instance == ch->instance && channels[i].begin <= item->start &&
                channels[i].end >= item->start)
              {
                if (channels[i].tgid >= 0)
                  add_field (self, _("PID"), "%d", channels[i].tgid);
                break;
              }
        }
      add_field (self, _("What"), "%s", kind_display_name (item->kind));
      add_field (self, _("CPU"), "%s", cpu_name (trace, ch->instance, ch->id, buf, sizeof buf));
    }
  else
    {
      add_channel_fields (self, trace, ch);
      if (item->kind == STRATA_ACTIVITY_STATE)
        add_field (self, _("State"), "%s", strata_task_state_display_name (item->state));
      else
        add_field (self, _("What"), "%s", item->label != STRATA_STRING_NONE
                                            ? strata_trace_get_string (trace, item->label)
                                            : kind_display_name (item->kind));
      if (item->kind == STRATA_ACTIVITY_STATE && item->state == STRATA_TASK_STATE_RUNNING &&
          item->arg >= 0)
        add_field (self, _("CPU"), "%d", item->arg);
      if (item->kind == STRATA_ACTIVITY_WAKEUP)
        add_field (self, _("Woken by"), "%d", item->arg);
      if (item->kind == STRATA_ACTIVITY_STATE && item->state == STRATA_TASK_STATE_WOKEN && !aggregate)
        add_waker_fields (self, trace, item);
    }

  t_start = strata_format_offset (item->start - start);
  t_dur = strata_format_duration (item->end - item->start);
  add_field (self, _("Start"), "%s", t_start);
  add_field (self, _("Duration"), "%s", t_dur);

  if (aggregate)
    {
      g_autofree char *busy = strata_format_duration (item->busy);
      g_autoptr(GArray) groups = NULL;
      StrataZoomTree *tree = strata_trace_get_zoom_tree (trace);

      add_field (self, _("Activities"), "%u", item->count);
      add_field (self, _("Busy"), "%s (%.0f%%)", busy,
                 item->end > item->start ? 100.0 * item->busy / (item->end - item->start) : 0.0);

      if (tree != NULL)
        strata_zoom_tree_get_members (tree, item, self->members);
      groups = strata_item_info_group_members (trace, self->members);
      if (groups->len > 0)
        {
          GString *top = g_string_new (NULL);

          for (guint i = 0; i < MIN (groups->len, N_TOP_MEMBERS); i++)
            {
              const StrataMemberGroup *g = &g_array_index (groups, StrataMemberGroup, i);
              g_autofree char *d = strata_format_duration (g->duration);

              g_string_append_printf (top, "%s%s ×%u, %s", i > 0 ? "\n" : "", g->name, g->count, d);
            }
          add_field (self, _("Top members"), "%s", top->str);
          g_string_free (top, TRUE);
        }
    }
  else
    {
      StrataActivity a = {
        .start = item->start, .end = item->end, .channel = item->channel,
        .label = item->label, .arg = item->arg, .kind = item->kind,
        .state = item->state, .flags = item->flags,
      };
      g_array_append_val (self->members, a);
    }

  return self;
}

/* A row's own description: what it is and its whole-trace numbers. */
StrataItemInfo *
strata_item_info_new_for_row (StrataTrace *trace,
                              guint32      channel)
{
  const StrataChannel *channels;
  StrataItemInfo *self;
  guint n;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  channels = strata_trace_get_channels (trace, &n);
  g_return_val_if_fail (channel < n, NULL);

  self = info_new (g_strdup (strata_channel_display_name (trace, channel)));
  add_channel_fields (self, trace, &channels[channel]);
  if (!strata_trace_is_loading (trace))
    add_field (self, _("Context switches"), "%" G_GUINT64_FORMAT,
               strata_trace_get_context_switches (trace, channel));
  else if (channels[channel].kind == STRATA_CHANNEL_THREAD)
    {
      /* The pass counts them at its end: so far, the thread's runs in
       * the part loaded, from its tree. */
      g_autoptr(StrataStats) stats = strata_stats_compute_range (trace, &channel, 1, strata_trace_get_start (trace),
                                                                 strata_trace_get_end (trace) + 1);
      guint64 switches = 0;

      for (guint i = 0; i < stats->threads->len; i++)
        switches += g_array_index (stats->threads, StrataThreadStats, i).switches_in;
      add_field (self, _("Context switches"), "%" G_GUINT64_FORMAT, switches);
    }
  return self;
}

static int
by_running_descending (gconstpointer pa,
                    gconstpointer pb)
{
  const StrataThreadStats *a = pa, *b = pb;
  if (a->running != b->running)
    return a->running > b->running ? -1 : 1;
  return a->tid - b->tid;
}

/* The parts of a thread's line in a range's statistics, joined with
 * " · ": running, runnable, sleeping, blocked. */
static char *
state_part (guint       k,
            const char *duration)
{
  switch (k)
    {
    /* Translators: %s is a duration */
    case 0:  return g_strdup_printf (_("%s running"), duration);
    /* Translators: %s is a duration */
    case 1:  return g_strdup_printf (_("%s runnable"), duration);
    /* Translators: %s is a duration */
    case 2:  return g_strdup_printf (_("%s sleeping"), duration);
    /* Translators: %s is a duration */
    default: return g_strdup_printf (_("%s blocked"), duration);
    }
}

/**
 * strata_item_info_new_for_range:
 * @channels: (array length=n_channels): the rows to account
 *
 * The statistics of [@from, @to) (strata_stats_compute_range()): a
 * wakeup latency or a switch cut by the range's edge is left out of the
 * latencies and counts; its time counts.
 *
 * Returns: (transfer full): the description
 */
StrataItemInfo *
strata_item_info_new_for_range (StrataTrace   *trace,
                                const guint32 *channels,
                                guint          n_channels,
                                gint64         from,
                                gint64         to)
{
  g_autoptr(StrataStats) stats = NULL;
  g_autofree char *t_from = NULL, *t_to = NULL, *t_len = NULL;
  g_autofree gboolean *wanted = NULL;
  StrataItemInfo *self;
  gint64 start = strata_trace_get_start (trace);
  guint n_all;
  guint shown = 0;

  g_return_val_if_fail (STRATA_IS_TRACE (trace), NULL);

  strata_trace_get_channels (trace, &n_all);
  wanted = g_new0 (gboolean, n_all + 1);

  t_len = strata_format_duration (to - from);
  /* Translators: the title of a selected time range; %s is its length */
  self = info_new (g_strdup_printf (_("Range of %s"), t_len));
  t_from = strata_format_offset (from - start);
  t_to = strata_format_offset (to - start);
  add_field (self, _("From"), "%s", t_from);
  add_field (self, _("To"), "%s", t_to);

  {
    g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint32));

    for (guint i = 0; i < n_channels; i++)
      if (channels[i] < n_all && !wanted[channels[i]])
        {
          wanted[channels[i]] = TRUE;
          g_array_append_val (rows, channels[i]);
        }
    stats = strata_stats_compute_range (trace, (const guint32 *) (gpointer) rows->data, rows->len,
                                        from, to);
  }
  g_array_sort (stats->threads, by_running_descending);

  for (guint i = 0; i < stats->cpus->len; i++)
    {
      const StrataCpuStats *c = &g_array_index (stats->cpus, StrataCpuStats, i);
      g_autofree char *key = NULL;

      if (!wanted[c->channel])
        continue;
      /* Translators: a field naming one CPU's busy share, "CPU 3 busy" */
      key = g_strdup_printf (_("CPU %d busy"), c->cpu);
      /* A task's time includes the interrupts nested in it. */
      add_field (self, key, "%.1f%%", to > from ? 100.0 * c->busy / (to - from) : 0.0);
    }

  for (guint i = 0; i < stats->threads->len && shown < 12; i++)
    {
      const StrataThreadStats *t = &g_array_index (stats->threads, StrataThreadStats, i);
      const gint64 parts[] = { t->running, t->runnable + t->woken, t->sleeping, t->blocked };
      g_autofree char *key = NULL;
      GString *value;

      if (!wanted[t->channel] || t->running + t->runnable + t->woken + t->sleeping + t->blocked == 0)
        continue;
      value = g_string_new (NULL);
      for (guint k = 0; k < G_N_ELEMENTS (parts); k++)
        if (parts[k] > 0)
          {
            g_autofree char *d = strata_format_duration (parts[k]);
            g_autofree char *part = state_part (k, d);

            if (value->len > 0)
              g_string_append (value, " · ");
            g_string_append (value, part);
          }
      if (t->switches_in > 0)
        {
          if (value->len > 0)
            g_string_append (value, " · ");
          g_string_append_printf (value,
                                  g_dngettext (GETTEXT_PACKAGE, "switched in %u time", "switched in %u times",
                                               (gulong) t->switches_in),
                                  (guint) t->switches_in);
        }
      key = g_strdup_printf ("%s %d", strata_channel_display_name (trace, t->channel), t->tid);
      add_field (self, key, "%s", value->str);
      g_string_free (value, TRUE);
      shown++;
    }

  if (stats->wakeup.count > 0)
    {
      g_autofree char *p50 = strata_format_duration (stats->wakeup.p50);
      g_autofree char *p99 = strata_format_duration (stats->wakeup.p99);
      g_autofree char *max = strata_format_duration (stats->wakeup.max);

      add_field (self, _("Wakeups"), "%u", stats->wakeup.count);
      add_field (self, _("Wakeup latency"), _("p50 %s, p99 %s, max %s"), p50, p99, max);
    }
  else
    add_field (self, _("Wakeups"), "0");

  return self;
}
