/* strata-test-damage.c
 *
 * The readers are asked for batches of an odd size, so that batches end
 * anywhere in a reader's own blocks and pages.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-test-damage.h"

void
strata_test_outcome_read (const char        *path,
                          StrataTestOutcome *outcome)
{
  g_autoptr(StrataSource) source = NULL;
  StrataEvent batch[333];
  gssize n;

  outcome->events = g_array_new (FALSE, FALSE, sizeof (StrataTestSeen));
  outcome->error = NULL;

  source = strata_source_open (path, &outcome->error);
  outcome->opened = source != NULL;
  if (source == NULL)
    return;

  while ((n = strata_source_read_batch (source, batch, G_N_ELEMENTS (batch), &outcome->error)) > 0)
    for (gssize i = 0; i < n; i++)
      {
        StrataTestSeen seen = { batch[i].ts, batch[i].source_offset, batch[i].type };

        g_array_append_val (outcome->events, seen);
      }
  if (n == 0)
    g_assert_no_error (outcome->error);
}

void
strata_test_outcome_clear (StrataTestOutcome *outcome)
{
  g_clear_pointer (&outcome->events, g_array_unref);
  g_clear_error (&outcome->error);
}

/* @error is Strata's, and names the file (@path's base name) and an offset. */
void
strata_test_assert_damage_error (const GError *error,
                                 const char   *path)
{
  g_autofree char *base = g_path_get_basename (path);

  g_assert_nonnull (error);
  g_assert_true (error->domain == STRATA_ERROR);
  g_assert_nonnull (strstr (error->message, base));
  g_assert_nonnull (strstr (error->message, "offset "));
}
