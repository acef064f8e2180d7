/* strata-ftrace-text-records.h
 *
 * The kernel's text output's records again, one line at a time, for a
 * reader that wants a few events' fields: the source interface's record
 * stream, which the text source's class takes from here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-source.h"

G_BEGIN_DECLS

void strata_ftrace_text_records_class_init (StrataSourceClass *source_class);

G_END_DECLS
