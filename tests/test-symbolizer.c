/* test-symbolizer.c
 *
 * The symbolizer shared by the readers of samples, against the dynamic
 * linker: this process's own executable mappings (from /proc/self/maps)
 * are told to it as a recording would, and the names it gives the
 * addresses of library functions must be the ones dladdr() gives. Then
 * what forks and execs do to a process's mappings, and kernel names from
 * a recording's kallsyms.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <zstd.h>

#include "strata.h"
#include "../plugins/strata-symbolizer.h"

#define SELF_PID 4242

/* This process's executable file mappings, as MMAP2 records would say. */
static guint
add_own_mappings (StrataSymbolizer *symbolizer,
                  gint32            pid)
{
  g_autofree char *maps = NULL;
  g_auto(GStrv) lines = NULL;
  guint n = 0;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint64 start, end, pgoff;
      char perms[8], path[4096];

      if (sscanf (lines[i], "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x %7s %" G_GINT64_MODIFIER "x %*s %*s %4095s",
                  &start, &end, perms, &pgoff, path) != 5)
        continue;
      if (perms[2] != 'x' || path[0] != '/')
        continue;
      strata_symbolizer_add_mapping (symbolizer, pid, start, end - start, pgoff, path, strlen (path));
      n++;
    }
  return n;
}

static void
assert_named_as_dladdr (StrataSymbolizer *symbolizer,
                        gint32            pid,
                        gconstpointer     function,
                        gint64            ts)
{
  g_autofree char *name = NULL;
  Dl_info info = { 0 };

  g_assert_true (dladdr (function, &info) != 0);
  g_assert_nonnull (info.dli_sname);
  name = strata_symbolizer_name (symbolizer, pid, GPOINTER_TO_SIZE (function), ts);
  g_assert_cmpstr (name, ==, info.dli_sname);
}

static void
test_user_names (void)
{
  g_autoptr(StrataSymbolizer) symbolizer = strata_symbolizer_new ();
  gconstpointer functions[] = {
    (gconstpointer) g_hash_table_new_full, (gconstpointer) g_strsplit,
    (gconstpointer) ZSTD_createDStream, (gconstpointer) g_file_get_contents,
  };
  g_autofree char *outside = NULL;

  g_assert_cmpuint (add_own_mappings (symbolizer, SELF_PID), >, 0);
  for (guint i = 0; i < G_N_ELEMENTS (functions); i++)
    {
      assert_named_as_dladdr (symbolizer, SELF_PID, functions[i], G_MAXINT64);
      /* An address inside the function names it too. */
      assert_named_as_dladdr (symbolizer, SELF_PID, (const guint8 *) functions[i] + 1, G_MAXINT64);
    }

  /* Outside every mapping, or of a process never seen: the address. */
  outside = strata_symbolizer_name (symbolizer, SELF_PID + 1, 0x1234, G_MAXINT64);
  g_assert_cmpstr (outside, ==, "0x1234");
}

static void
test_fork_and_exec (void)
{
  g_autoptr(StrataSymbolizer) symbolizer = strata_symbolizer_new ();
  gconstpointer function = (gconstpointer) g_hash_table_new_full;
  guint64 address = GPOINTER_TO_SIZE (function);
  Dl_info info = { 0 };
  g_autofree char *again = NULL, *after = NULL, *unknown_time = NULL, *child_before = NULL;

  g_assert_true (dladdr (function, &info) != 0);
  add_own_mappings (symbolizer, SELF_PID);

  /* A child has its parent's mappings until it maps anything itself. */
  strata_symbolizer_fork (symbolizer, SELF_PID, SELF_PID + 1);
  assert_named_as_dladdr (symbolizer, SELF_PID + 1, function, G_MAXINT64);

  /* The child runs another program at time 1000, which maps a file
   * without symbols over the same address. */
  strata_symbolizer_exec (symbolizer, SELF_PID + 1, 1000);
  strata_symbolizer_add_mapping (symbolizer, SELF_PID + 1, address & ~(guint64) 0xfff, 0x2000,
                                 0x5000, "/nonexistent/program", strlen ("/nonexistent/program"));

  child_before = strata_symbolizer_name (symbolizer, SELF_PID + 1, address, 999);
  g_assert_cmpstr (child_before, ==, info.dli_sname);
  after = g_strdup_printf ("program+0x%" G_GINT64_MODIFIER "x", (address & 0xfff) + 0x5000);
  unknown_time = strata_symbolizer_name (symbolizer, SELF_PID + 1, address, G_MAXINT64);
  g_assert_cmpstr (unknown_time, ==, after);
  g_free (after);
  after = strata_symbolizer_name (symbolizer, SELF_PID + 1, address, 1000);
  g_assert_cmpstr (after, ==, unknown_time);

  /* The parent is unchanged; a fork into a process with mappings of its
   * own copies nothing. */
  assert_named_as_dladdr (symbolizer, SELF_PID, function, G_MAXINT64);
  strata_symbolizer_fork (symbolizer, SELF_PID, SELF_PID + 1);
  again = strata_symbolizer_name (symbolizer, SELF_PID + 1, address, G_MAXINT64);
  g_assert_cmpstr (again, ==, unknown_time);
}

static void
test_exec_before_fork (void)
{
  g_autoptr(StrataSymbolizer) symbolizer = strata_symbolizer_new ();
  gconstpointer function = (gconstpointer) g_strsplit;

  /* A recording's CPUs are read in turn: the child's exec may be read
   * before the fork that made it. Its parent's mappings still come. */
  add_own_mappings (symbolizer, SELF_PID);
  strata_symbolizer_exec (symbolizer, SELF_PID + 2, 500);
  strata_symbolizer_fork (symbolizer, SELF_PID, SELF_PID + 2);
  assert_named_as_dladdr (symbolizer, SELF_PID + 2, function, G_MAXINT64);
}

static void
test_kernel_names (void)
{
  g_autoptr(StrataSymbolizer) symbolizer = strata_symbolizer_new ();
  g_autofree char *named = NULL, *unnamed = NULL;

  strata_symbolizer_set_kallsyms (symbolizer, g_strdup ("ffffffff81000000 T _text\n"
                                                        "ffffffff81000100 t do_one_thing\n"
                                                        "ffffffff81000180 D some_data\n"
                                                        "ffffffff81000200 T do_another [a_module]\n"));
  g_assert_true (strata_symbolizer_kernel_symbols_known (symbolizer));
  g_assert_cmpstr (strata_symbolizer_lookup_kernel (symbolizer, G_GUINT64_CONSTANT (0xffffffff81000100)), ==, "do_one_thing");
  /* Data symbols name no code: the function before goes on. */
  g_assert_cmpstr (strata_symbolizer_lookup_kernel (symbolizer, G_GUINT64_CONSTANT (0xffffffff810001f0)), ==, "do_one_thing");
  g_assert_cmpstr (strata_symbolizer_lookup_kernel (symbolizer, G_GUINT64_CONSTANT (0xffffffff81000234)), ==, "do_another");
  g_assert_null (strata_symbolizer_lookup_kernel (symbolizer, G_GUINT64_CONSTANT (0xffffffff80000000)));

  named = strata_symbolizer_name (symbolizer, 1, G_GUINT64_CONSTANT (0xffffffff81000010), G_MAXINT64);
  g_assert_cmpstr (named, ==, "_text");
  unnamed = strata_symbolizer_name (symbolizer, 1, G_GUINT64_CONSTANT (0xffffffff80000000), G_MAXINT64);
  g_assert_cmpstr (unnamed, ==, "[kernel] 0xffffffff80000000");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/strata/symbolizer/user-names-as-dladdr", test_user_names);
  g_test_add_func ("/strata/symbolizer/fork-and-exec", test_fork_and_exec);
  g_test_add_func ("/strata/symbolizer/exec-before-fork", test_exec_before_fork);
  g_test_add_func ("/strata/symbolizer/kernel-names", test_kernel_names);

  return g_test_run ();
}
