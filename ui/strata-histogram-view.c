/* strata-histogram-view.c
 *
 * See strata-histogram-view.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "strata-histogram-view.h"
#include "strata-item-info.h"

#define MARGIN   8
#define TOP      18
#define BOTTOM   18

struct _StrataHistogramView
{
  GtkWidget        parent_instance;

  StrataHistogram  histogram;
  guint            first;
  guint            last;
  PangoLayout     *layout;
};

G_DEFINE_FINAL_TYPE (StrataHistogramView, strata_histogram_view, GTK_TYPE_WIDGET)

static guint
n_bars (StrataHistogramView *self)
{
  return self->histogram.count > 0 ? self->last - self->first + 1 : 0;
}

static double
bar_width (StrataHistogramView *self)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)) - 2 * MARGIN;

  return n_bars (self) > 0 ? w / n_bars (self) : 0;
}

/* Where @ns falls: in its bucket, on the same log scale as the buckets. */
double
strata_histogram_view_x_for_value (StrataHistogramView *self,
                                   gint64               ns)
{
  guint b = strata_histogram_bucket_of (ns);
  gint64 lo = strata_histogram_bucket_start (b), hi = strata_histogram_bucket_end (b);
  double frac = 0;

  g_return_val_if_fail (STRATA_IS_HISTOGRAM_VIEW (self), 0);

  if (lo > 0 && hi != G_MAXINT64 && ns > lo)
    frac = log ((double) ns / lo) / log ((double) hi / lo);
  b = CLAMP (b, self->first, MAX (self->last, self->first));
  return MARGIN + (b - self->first + frac) * bar_width (self);
}

guint
strata_histogram_view_bucket_at (StrataHistogramView *self,
                                 double               x)
{
  double bw;

  g_return_val_if_fail (STRATA_IS_HISTOGRAM_VIEW (self), G_MAXUINT);

  bw = bar_width (self);
  if (bw <= 0 || x < MARGIN || x >= MARGIN + bw * n_bars (self))
    return G_MAXUINT;
  return self->first + (guint) ((x - MARGIN) / bw);
}

static void
append_text (StrataHistogramView *self,
             GtkSnapshot         *snapshot,
             const char          *text,
             double               x,
             double               y,
             const GdkRGBA       *rgba)
{
  int w, h;

  pango_layout_set_text (self->layout, text, -1);
  pango_layout_get_pixel_size (self->layout, &w, &h);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x - w / 2.f, y));
  gtk_snapshot_append_layout (snapshot, self->layout, rgba);
  gtk_snapshot_restore (snapshot);
}

static void
strata_histogram_view_snapshot (GtkWidget   *widget,
                                GtkSnapshot *snapshot)
{
  StrataHistogramView *self = STRATA_HISTOGRAM_VIEW (widget);
  const StrataHistogram *h = &self->histogram;
  double height = gtk_widget_get_height (widget);
  double bw = bar_width (self), area = height - TOP - BOTTOM;
  GdkRGBA bar = { 0.21f, 0.52f, 0.89f, 1 };
  GdkRGBA mark = { 0.88f, 0.11f, 0.14f, 1 };
  GdkRGBA fg;
  guint64 most = 0;
  const struct { const char *name; gint64 v; } marks[] = {
    { "p50", h->p50 }, { "p90", h->p90 }, { "p99", h->p99 },
  };
  double last_label = -1e9;

  if (self->layout == NULL)
    {
      self->layout = gtk_widget_create_pango_layout (widget, NULL);
      pango_layout_set_attributes (self->layout, NULL);
    }
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  if (n_bars (self) == 0)
    {
      append_text (self, snapshot, _("No values in the selection"), gtk_widget_get_width (widget) / 2.0,
                   height / 2 - 8, &fg);
      return;
    }

  for (guint b = self->first; b <= self->last; b++)
    most = MAX (most, h->counts[b]);
  for (guint b = self->first; b <= self->last; b++)
    {
      double bh = most > 0 ? area * h->counts[b] / most : 0;
      double x = MARGIN + (b - self->first) * bw;

      if (h->counts[b] > 0)
        gtk_snapshot_append_color (snapshot, &bar,
                                   &GRAPHENE_RECT_INIT (x + 1, TOP + area - MAX (bh, 1), MAX (bw - 2, 1), MAX (bh, 1)));
      /* The bounds under the bars, where they do not run into each other. */
      if (x - last_label >= 56)
        {
          g_autofree char *label = strata_format_duration (strata_histogram_bucket_start (b));
          GdkRGBA dim = fg;

          dim.alpha *= 0.7f;
          append_text (self, snapshot, label, x + 2, TOP + area + 2, &dim);
          last_label = x;
        }
    }

  /* Marks closer than a label's width share one label ("p90/p99"). */
  for (guint i = 0; i < G_N_ELEMENTS (marks);)
    {
      double x = strata_histogram_view_x_for_value (self, marks[i].v);
      GString *label = g_string_new (marks[i].name);
      guint j = i + 1;

      gtk_snapshot_append_color (snapshot, &mark, &GRAPHENE_RECT_INIT (floor (x), TOP, 1, area));
      for (; j < G_N_ELEMENTS (marks); j++)
        {
          double xj = strata_histogram_view_x_for_value (self, marks[j].v);

          if (xj - x >= 30)
            break;
          gtk_snapshot_append_color (snapshot, &mark, &GRAPHENE_RECT_INIT (floor (xj), TOP, 1, area));
          g_string_append_printf (label, "/%s", marks[j].name);
        }
      append_text (self, snapshot, label->str, x, 1, &mark);
      g_string_free (label, TRUE);
      i = j;
    }
}

static void
strata_histogram_view_measure (GtkWidget      *widget,
                               GtkOrientation  orientation,
                               int             for_size,
                               int            *minimum,
                               int            *natural,
                               int            *minimum_baseline,
                               int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_VERTICAL ? 120 : 200;
  *natural = orientation == GTK_ORIENTATION_VERTICAL ? 160 : 400;
  *minimum_baseline = *natural_baseline = -1;
}

static gboolean
query_tooltip (GtkWidget  *widget,
               int         x,
               int         y,
               gboolean    keyboard,
               GtkTooltip *tooltip,
               gpointer    data)
{
  StrataHistogramView *self = STRATA_HISTOGRAM_VIEW (widget);
  guint b = strata_histogram_view_bucket_at (self, x);
  g_autofree char *lo = NULL, *hi = NULL, *count = NULL, *text = NULL;

  if (b == G_MAXUINT)
    return FALSE;
  lo = strata_format_duration (strata_histogram_bucket_start (b));
  hi = strata_format_duration (strata_histogram_bucket_end (b));
  /* Translators: a histogram bar's tooltip: "10 µs to 20 µs: 42" */
  count = g_strdup_printf ("%" G_GUINT64_FORMAT, self->histogram.counts[b]);
  text = g_strdup_printf (_("%s to %s: %s"), lo, hi, count);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
strata_histogram_view_dispose (GObject *object)
{
  g_clear_object (&STRATA_HISTOGRAM_VIEW (object)->layout);
  G_OBJECT_CLASS (strata_histogram_view_parent_class)->dispose (object);
}

static void
strata_histogram_view_class_init (StrataHistogramViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = strata_histogram_view_dispose;
  widget_class->snapshot = strata_histogram_view_snapshot;
  widget_class->measure = strata_histogram_view_measure;
  gtk_widget_class_set_css_name (widget_class, "histogram");
}

static void
strata_histogram_view_init (StrataHistogramView *self)
{
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip), NULL);
}

GtkWidget *
strata_histogram_view_new (void)
{
  return g_object_new (STRATA_TYPE_HISTOGRAM_VIEW, NULL);
}

void
strata_histogram_view_set_histogram (StrataHistogramView   *self,
                                     const StrataHistogram *histogram)
{
  g_return_if_fail (STRATA_IS_HISTOGRAM_VIEW (self));

  if (histogram != NULL)
    self->histogram = *histogram;
  else
    memset (&self->histogram, 0, sizeof self->histogram);
  strata_histogram_range (&self->histogram, &self->first, &self->last);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const StrataHistogram *
strata_histogram_view_get_histogram (StrataHistogramView *self)
{
  g_return_val_if_fail (STRATA_IS_HISTOGRAM_VIEW (self), NULL);
  return &self->histogram;
}
