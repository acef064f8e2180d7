/* strata-record-error.c
 *
 * The recording's error domain (see the header).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-record-error.h"

G_DEFINE_QUARK (strata-record-error-quark, strata_record_error)
