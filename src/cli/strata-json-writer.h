/* strata-json-writer.h
 *
 * A small streaming JSON writer for the CLI's --json output: objects,
 * arrays, and values with correct string escaping, commas handled by a
 * nesting stack so callers cannot produce invalid JSON by accident.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _StrataJsonWriter StrataJsonWriter;

StrataJsonWriter *strata_json_writer_new          (void);
void              strata_json_writer_free         (StrataJsonWriter *self);
char             *strata_json_writer_finish       (StrataJsonWriter *self);
void              strata_json_writer_begin_object (StrataJsonWriter *self);
void              strata_json_writer_end_object   (StrataJsonWriter *self);
void              strata_json_writer_begin_array  (StrataJsonWriter *self);
void              strata_json_writer_end_array    (StrataJsonWriter *self);
void              strata_json_writer_key          (StrataJsonWriter *self,
                                                   const char       *key);
void              strata_json_writer_string       (StrataJsonWriter *self,
                                                   const char       *value);
void              strata_json_writer_int          (StrataJsonWriter *self,
                                                   gint64            value);
void              strata_json_writer_uint         (StrataJsonWriter *self,
                                                   guint64           value);
void              strata_json_writer_double       (StrataJsonWriter *self,
                                                   double            value);
void              strata_json_writer_bool         (StrataJsonWriter *self,
                                                   gboolean          value);
void              strata_json_writer_null         (StrataJsonWriter *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StrataJsonWriter, strata_json_writer_free)

G_END_DECLS
