/* strata-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-error.h"

G_DEFINE_QUARK (strata-error-quark, strata_error)
