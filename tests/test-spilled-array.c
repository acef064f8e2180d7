/* test-spilled-array.c
 *
 * An array kept in a spill file (strata-spilled-array.h) against a GArray
 * given the same appends, resizes and writes, its pages let go at random
 * between them: the two hold the same bytes throughout. And what is let
 * go leaves the process's memory: the mapping's resident size, from
 * /proc/self/smaps, falls and comes back as pages are read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "strata-spilled-array.h"

/* The resident kB of the mapping that holds @addr, or -1. */
static gint64
mapping_rss_kb (gconstpointer addr)
{
  g_autofree char *smaps = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean inside = FALSE;

  g_assert_true (g_file_get_contents ("/proc/self/smaps", &smaps, NULL, NULL));
  lines = g_strsplit (smaps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint64 start, end;
      char *dash;

      if (g_ascii_isxdigit (lines[i][0]) && (dash = strchr (lines[i], '-')) != NULL &&
          strchr (lines[i], ':') != NULL && strchr (lines[i], ' ') > dash)
        {
          start = g_ascii_strtoull (lines[i], NULL, 16);
          end = g_ascii_strtoull (dash + 1, NULL, 16);
          inside = (guintptr) addr >= start && (guintptr) addr < end;
          continue;
        }
      if (inside && g_str_has_prefix (lines[i], "Rss:"))
        return (gint64) g_ascii_strtoull (lines[i] + 4, NULL, 10);
    }
  return -1;
}

static void
fill (guint8  *elem,
      guint    size,
      guint32  value)
{
  for (guint i = 0; i < size; i++)
    elem[i] = (guint8) (value * 31u + i);
}

static void
assert_same (StrataSpilledArray *spilled,
             GArray             *oracle,
             guint               elem_size)
{
  g_assert_cmpuint (spilled->len, ==, oracle->len);
  if (oracle->len > 0)
    g_assert_cmpmem (spilled->data, (gsize) spilled->len * elem_size,
                     oracle->data, (gsize) oracle->len * elem_size);
}

/* Random appends, resizes (new elements zero), writes into elements let
 * go of before, let-goes: the same bytes as the GArray. */
static void
test_oracle (gconstpointer data)
{
  guint elem_size = GPOINTER_TO_UINT (data);
  g_autoptr(StrataSpilledArray) spilled = strata_spilled_array_new (elem_size);
  g_autoptr(GArray) oracle = g_array_new (FALSE, TRUE, elem_size);
  g_autoptr(GRand) rand = g_rand_new_with_seed (elem_size);
  g_autofree guint8 *elem = g_malloc (elem_size);

  for (guint step = 0; step < 4000; step++)
    {
      guint what = g_rand_int_range (rand, 0, 100);

      if (what < 70)
        {
          /* A run of appends, about 10 MB in all over the test. */
          guint n = g_rand_int_range (rand, 1, 200);

          for (guint i = 0; i < n; i++)
            {
              fill (elem, elem_size, oracle->len);
              g_array_append_vals (oracle, elem, 1);
              g_assert_cmpmem (strata_spilled_array_append (spilled, elem), elem_size, elem, elem_size);
            }
        }
      else if (what < 80 && oracle->len > 0)
        {
          guint at = g_rand_int_range (rand, 0, oracle->len);

          fill (elem, elem_size, step + 7);
          memcpy (oracle->data + (gsize) at * elem_size, elem, elem_size);
          memcpy (spilled->data + (gsize) at * elem_size, elem, elem_size);
        }
      else if (what < 90)
        {
          /* Grown (zeros) more often than shrunk, and by more. */
          guint len = oracle->len + g_rand_int_range (rand, 0, 3000);

          if (what >= 88)
            len = oracle->len - MIN (oracle->len, (guint) g_rand_int_range (rand, 0, 1000));
          g_array_set_size (oracle, len);
          strata_spilled_array_set_size (spilled, len);
        }
      else
        strata_spilled_array_let_go (spilled, g_rand_int_range (rand, 0, oracle->len + 2));

      if (step % 500 == 0)
        assert_same (spilled, oracle, elem_size);
    }
  g_assert_cmpuint ((gsize) oracle->len * elem_size, >, (gsize) 4 << 20);
  strata_spilled_array_let_go (spilled, spilled->len);
  assert_same (spilled, oracle, elem_size);
}

/* Let go, the pages leave the process and their bytes stay. */
static void
test_let_go (void)
{
  g_autoptr(StrataSpilledArray) spilled = strata_spilled_array_new (sizeof (guint64));
  const guint n = (16u << 20) / sizeof (guint64);
  gint64 before, after, back;
  guint64 sum = 0;

  for (guint64 i = 0; i < n; i++)
    strata_spilled_array_append (spilled, &i);
  g_assert_cmpint (spilled->fd, >=, 0);

  /* Written, then let go as it grew: all but the last few MiB. */
  before = mapping_rss_kb (spilled->data);
  g_assert_cmpint (before, >, 0);
  g_assert_cmpint (before, <=, 9 * 1024);

  /* Read whole, it is back; let go, it is gone. */
  for (guint i = 0; i < n; i++)
    sum += strata_spilled_array_index (spilled, guint64, i);
  g_assert_cmpuint (sum, ==, (guint64) n * (n - 1) / 2);
  back = mapping_rss_kb (spilled->data);
  g_assert_cmpint (back, >=, 15 * 1024);
  strata_spilled_array_let_go (spilled, spilled->len);
  after = mapping_rss_kb (spilled->data);
  g_assert_cmpint (after, <, 64);

  /* The bytes stayed, written after the let-go too. */
  strata_spilled_array_index (spilled, guint64, 12345) = 7;
  strata_spilled_array_let_go (spilled, spilled->len);
  g_assert_cmpuint (strata_spilled_array_index (spilled, guint64, 12345), ==, 7);
  g_assert_cmpuint (strata_spilled_array_index (spilled, guint64, n - 1), ==, n - 1);
  g_assert_cmpuint (strata_spilled_array_index (spilled, guint64, 0), ==, 0);
}

/* Emptied, a spilled array does not bring its pages back to write their
 * zeros; it reads as zeros when it grows again, and lets go again as it
 * grows from there. */
static void
test_empty (void)
{
  g_autoptr(StrataSpilledArray) spilled = strata_spilled_array_new (sizeof (guint32));
  const guint n = (16u << 20) / sizeof (guint32);
  gint64 rss;

  for (guint32 i = 0; i < n; i++)
    strata_spilled_array_append (spilled, &i);
  g_assert_cmpint (spilled->fd, >=, 0);
  strata_spilled_array_let_go (spilled, spilled->len);

  /* Not on a page boundary: the partial pages are written, the rest
   * punched out. */
  strata_spilled_array_set_size (spilled, 1001);
  rss = mapping_rss_kb (spilled->data);
  g_assert_cmpint (rss, <, 64);
  g_assert_cmpuint (strata_spilled_array_index (spilled, guint32, 1000), ==, 1000);

  strata_spilled_array_set_size (spilled, n);
  g_assert_cmpuint (strata_spilled_array_index (spilled, guint32, 1001), ==, 0);
  g_assert_cmpuint (strata_spilled_array_index (spilled, guint32, 4096), ==, 0);
  g_assert_cmpuint (strata_spilled_array_index (spilled, guint32, n - 1), ==, 0);
  strata_spilled_array_let_go (spilled, spilled->len);

  strata_spilled_array_set_size (spilled, 0);
  for (guint32 i = 0; i < n; i++)
    strata_spilled_array_append (spilled, &i);
  rss = mapping_rss_kb (spilled->data);
  g_assert_cmpint (rss, <=, 9 * 1024);
  for (guint32 i = 0; i < n; i += 997)
    g_assert_cmpuint (strata_spilled_array_index (spilled, guint32, i), ==, i);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/strata/spilled-array/oracle/24", GUINT_TO_POINTER (24), test_oracle);
  g_test_add_data_func ("/strata/spilled-array/oracle/40", GUINT_TO_POINTER (40), test_oracle);
  g_test_add_data_func ("/strata/spilled-array/oracle/12", GUINT_TO_POINTER (12), test_oracle);
  g_test_add_func ("/strata/spilled-array/let-go", test_let_go);
  g_test_add_func ("/strata/spilled-array/empty", test_empty);
  return g_test_run ();
}
