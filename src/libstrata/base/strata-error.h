/* strata-error.h
 *
 * The error domain of libstrata. Every reader reports damage through it, with
 * a code a caller can act on (retry, tell the user the file is not a trace,
 * keep what was read before a corruption) and a message that names the file,
 * the offset when it is known, and the cause.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define STRATA_ERROR (strata_error_quark ())

typedef enum
{
  STRATA_ERROR_FAILED,
  STRATA_ERROR_NOT_FOUND,       /* the file does not exist or cannot be opened */
  STRATA_ERROR_UNKNOWN_FORMAT,  /* no plugin recognises the content */
  STRATA_ERROR_TRUNCATED,       /* the file ends before its structure does */
  STRATA_ERROR_CORRUPT,         /* a structure is present but invalid */
  STRATA_ERROR_UNSUPPORTED,     /* valid, but a version or feature we do not read */
  STRATA_ERROR_IO,              /* the operating system refused a read */
  STRATA_ERROR_STALE,           /* an index built from another file, or with other parameters */
  STRATA_ERROR_INVALID_ARGUMENT, /* a request the trace cannot answer: no such thread, an empty range */
} StrataErrorCode;

GQuark strata_error_quark (void);

G_END_DECLS
