/* strata-test-repeat.c
 *
 * See strata-test-repeat.h. Only the timestamp column is rewritten (the
 * "229.760484:" before the event name); every other byte of each event
 * line is the fixture's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-test-repeat.h"
#include "strata-test-support.h"

/* The start and length of the timestamp of an event line, or FALSE. */
static gboolean
find_timestamp (const char *line,
                gsize      *at,
                gsize      *len)
{
  const char *colon = strstr (line, ": ");
  const char *p;

  if (line[0] == '#' || colon == NULL)
    return FALSE;
  p = colon;
  while (p > line && (g_ascii_isdigit (p[-1]) || p[-1] == '.'))
    p--;
  if (p == colon || p == line || p[-1] != ' ')
    return FALSE;
  *at = p - line;
  *len = colon - p;
  return TRUE;
}

/**
 * strata_test_repeat_text_trace:
 * @n_events: (out): the event lines written
 *
 * Returns: (transfer full): the path of the longer trace, in the tmpdir
 */
char *
strata_test_repeat_text_trace (const char *fixture,
                               guint       copies,
                               guint64    *n_events)
{
  g_autofree char *path = strata_test_fixture (fixture);
  g_autofree char *contents = NULL;
  g_autofree char *dir = strata_test_tmpdir ();
  g_auto(GStrv) lines = NULL;
  GString *out = g_string_new (NULL);
  char *out_path;
  double first = -1, last = 0;

  *n_events = 0;
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      gsize at, len;

      if (find_timestamp (lines[i], &at, &len))
        {
          double t = g_ascii_strtod (lines[i] + at, NULL);

          if (first < 0)
            first = t;
          last = t;
        }
    }
  g_assert_cmpfloat (first, >=, 0);

  for (guint c = 0; c < copies; c++)
    for (guint i = 0; lines[i] != NULL; i++)
      {
        gsize at, len;

        if (!find_timestamp (lines[i], &at, &len))
          {
            /* The header once, at the top. */
            if (c == 0 && lines[i][0] != '\0')
              g_string_append_printf (out, "%s\n", lines[i]);
            continue;
          }
        {
          double t = g_ascii_strtod (lines[i] + at, NULL) + c * (last - first + 0.001);
          char stamp[32];

          g_snprintf (stamp, sizeof stamp, "%.6f", t);
          g_string_append_len (out, lines[i], at);
          g_string_append (out, stamp);
          g_string_append_printf (out, "%s\n", lines[i] + at + len);
          (*n_events)++;
        }
      }

  out_path = g_build_filename (dir, "repeated.txt", NULL);
  g_assert_true (g_file_set_contents (out_path, out->str, out->len, NULL));
  g_string_free (out, TRUE);
  return out_path;
}
