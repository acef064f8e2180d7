/* strata-bench-snapshot.h
 *
 * What the frame benchmarks of the app time: a widget's snapshot(), as
 * GTK calls it for a frame, to its render node, in the calling thread's
 * CPU time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "strata-bench-time.h"

static inline gint64
strata_bench_snapshot_ns (GtkWidget *widget)
{
  GtkSnapshot *snapshot;
  GskRenderNode *node;
  gint64 t0;

  t0 = cpu_ns ();
  snapshot = gtk_snapshot_new ();
  GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  t0 = cpu_ns () - t0;
  g_clear_pointer (&node, gsk_render_node_unref);
  return t0;
}
