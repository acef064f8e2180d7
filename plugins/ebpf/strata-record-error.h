/* strata-record-error.h
 *
 * Why a recording could not start or go on, as a GError domain of its
 * own: each code has its own fix, which the preflight checks and the
 * recorder both name, and which a caller (strata-cli record, the app's
 * Record dialog) can tell apart without reading the message.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define STRATA_RECORD_ERROR (strata_record_error_quark ())

typedef enum
{
  STRATA_RECORD_ERROR_FAILED,
  STRATA_RECORD_ERROR_PERMISSION,   /* not root, and CAP_BPF or CAP_PERFMON missing */
  STRATA_RECORD_ERROR_NO_BTF,       /* the kernel does not describe its types */
  STRATA_RECORD_ERROR_VERIFIER,     /* the kernel's verifier refused a program */
  STRATA_RECORD_ERROR_UNSUPPORTED,  /* the kernel lacks a hook or map type */
  STRATA_RECORD_ERROR_OUTPUT,       /* the output cannot be written */
  STRATA_RECORD_ERROR_DISK_FULL,    /* the output's disk filled up */
  STRATA_RECORD_ERROR_INVALID,      /* an option out of range */
} StrataRecordError;

GQuark strata_record_error_quark (void);

G_END_DECLS
