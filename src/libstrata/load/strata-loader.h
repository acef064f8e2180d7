/* strata-loader.h
 *
 * One object that opens a trace, as Sysprof's document loader does: told
 * what to build (the zoom tree's parameters, whether to keep every
 * activity, a sink that sees each one) and how (the StrataParameters,
 * whether through the persistent index), it runs the one pass or maps
 * the index, and says what it does through a progress callback and a
 * "note" signal. Through the index (the default), a sound index is mapped
 * at once (strata_loader_find_index(), quick enough for a main loop);
 * otherwise the pass builds the tree and the statistics, the index is
 * written and opened, and should the index just written not read back
 * ("index-written" is emitted before it is opened), the trace is read
 * again without it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "strata-kernel-model.h"
#include "strata-parameters.h"
#include "strata-trace.h"
#include "strata-zoom-tree.h"

G_BEGIN_DECLS

#define STRATA_TYPE_LOADER (strata_loader_get_type ())

G_DECLARE_FINAL_TYPE (StrataLoader, strata_loader, STRATA, LOADER, GObject)

typedef enum
{
  /* One pass in memory, no index read or written: what the caller asks
   * for and nothing more. */
  STRATA_LOADER_INDEX_NONE,
  /* Through the index: mapped when a sound one is there, else built,
   * written and mapped. */
  STRATA_LOADER_INDEX_USE,
  /* Through the index, built anew even when a sound one is there. */
  STRATA_LOADER_INDEX_REBUILD,
} StrataLoaderIndex;

StrataLoader      *strata_loader_new                 (const char              *path);
const char        *strata_loader_get_path            (StrataLoader            *self);
void               strata_loader_set_index_mode      (StrataLoader            *self,
                                                      StrataLoaderIndex        mode);
StrataLoaderIndex  strata_loader_get_index_mode      (StrataLoader            *self);
void               strata_loader_set_index_path      (StrataLoader            *self,
                                                      const char              *index_path);
const char        *strata_loader_get_index_path      (StrataLoader            *self);
void               strata_loader_set_keep_activities (StrataLoader            *self,
                                                      gboolean                 keep);
gboolean           strata_loader_get_keep_activities (StrataLoader            *self);
void               strata_loader_set_statistics      (StrataLoader            *self,
                                                      gboolean                 statistics);
gboolean           strata_loader_get_statistics      (StrataLoader            *self);
void               strata_loader_set_follow          (StrataLoader            *self,
                                                      gboolean                 follow);
gboolean           strata_loader_get_follow          (StrataLoader            *self);
void               strata_loader_set_zoom_params     (StrataLoader            *self,
                                                      const StrataZoomParams  *params);
void               strata_loader_set_parameters      (StrataLoader            *self,
                                                      const StrataParameters  *parameters);
void               strata_loader_set_sink            (StrataLoader            *self,
                                                      StrataActivityFunc       sink,
                                                      StrataChannelCloseFunc   close_sink,
                                                      gpointer                 sink_data);
void               strata_loader_set_progress_func   (StrataLoader            *self,
                                                      StrataTraceProgressFunc  func,
                                                      gpointer                 user_data,
                                                      GDestroyNotify           destroy);
StrataTrace       *strata_loader_find_index          (StrataLoader            *self,
                                                      GError                 **error);
StrataTrace       *strata_loader_load                (StrataLoader            *self,
                                                      GCancellable            *cancellable,
                                                      GError                 **error);

G_END_DECLS
