/* strata-test-repeat.h
 *
 * A longer trace from a real one: the kernel's text rendering of a
 * fixture written out several times, each copy's timestamps shifted past
 * the previous copy's end, so a load takes several batches of events and
 * its progress can be watched.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *strata_test_repeat_text_trace (const char *fixture,
                                     guint       copies,
                                     guint64    *n_events);

G_END_DECLS
