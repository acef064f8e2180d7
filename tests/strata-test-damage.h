/* strata-test-damage.h
 *
 * What the damage tests of every reader share: what a reader made of a
 * file, damaged or not (the events it gave before it stopped, and the error
 * it stopped with), and the rule every such error follows (Strata's domain,
 * the file's name, an offset).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata.h"

G_BEGIN_DECLS

typedef struct
{
  gint64  ts;
  guint64 offset;   /* the event's record in the file */
  guint32 type;
} StrataTestSeen;

typedef struct
{
  GArray  *events;  /* StrataTestSeen */
  GError  *error;   /* why the reader stopped, NULL at a clean end */
  gboolean opened;  /* whether the file opened at all */
} StrataTestOutcome;

void strata_test_outcome_read        (const char         *path,
                                      StrataTestOutcome  *outcome);
void strata_test_outcome_clear       (StrataTestOutcome  *outcome);
void strata_test_assert_damage_error (const GError       *error,
                                      const char         *path);

G_END_DECLS
