/* test-string-pool.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata.h"

static void
test_intern (void)
{
  g_autoptr(StrataStringPool) pool = strata_string_pool_new ();
  guint32 a = strata_string_pool_intern (pool, "sched_switch");
  guint32 b = strata_string_pool_intern (pool, "swapper/0");
  guint32 c = strata_string_pool_intern_len (pool, "sched_switch and more", 12);

  g_assert_cmpuint (a, !=, STRATA_STRING_NONE);
  g_assert_cmpuint (a, !=, b);
  g_assert_cmpuint (a, ==, c);
  g_assert_cmpstr (strata_string_pool_get (pool, a), ==, "sched_switch");
  g_assert_cmpstr (strata_string_pool_get (pool, b), ==, "swapper/0");
  g_assert_cmpuint (strata_string_pool_intern (pool, ""), ==, STRATA_STRING_NONE);
  g_assert_cmpuint (strata_string_pool_intern (pool, NULL), ==, STRATA_STRING_NONE);
  g_assert_cmpstr (strata_string_pool_get (pool, 12345), ==, "");
}

static void
test_many (void)
{
  g_autoptr(StrataStringPool) pool = strata_string_pool_new ();

  for (guint round = 0; round < 2; round++)
    for (guint i = 0; i < 100000; i++)
      {
        char buf[32];
        g_snprintf (buf, sizeof buf, "comm-%u", i);
        g_assert_cmpuint (strata_string_pool_intern (pool, buf), ==, i + 1);
      }

  g_assert_cmpuint (strata_string_pool_get_size (pool), ==, 100001);
}

/* One thread interns while another reads ids it was handed: reads take no
 * lock, so this is what ASan and the block table must get right. */
typedef struct
{
  StrataStringPool *pool;
  GAsyncQueue      *ids;
} Shared;

static gpointer
intern_thread (gpointer data)
{
  Shared *shared = data;

  for (guint i = 0; i < 50000; i++)
    {
      char buf[32];
      g_snprintf (buf, sizeof buf, "thread-%u", i);
      g_async_queue_push (shared->ids, GUINT_TO_POINTER (strata_string_pool_intern (shared->pool, buf)));
    }
  g_async_queue_push (shared->ids, GUINT_TO_POINTER (G_MAXUINT32));

  return NULL;
}

static void
test_concurrent_reads (void)
{
  g_autoptr(StrataStringPool) pool = strata_string_pool_new ();
  Shared shared = { pool, g_async_queue_new () };
  GThread *thread = g_thread_new ("intern", intern_thread, &shared);
  guint expected = 0;

  for (;;)
    {
      guint32 id = GPOINTER_TO_UINT (g_async_queue_pop (shared.ids));
      char buf[32];

      if (id == G_MAXUINT32)
        break;
      g_snprintf (buf, sizeof buf, "thread-%u", expected++);
      g_assert_cmpstr (strata_string_pool_get (pool, id), ==, buf);
      /* The reader interns too, as the kernel model does. */
      g_assert_cmpuint (strata_string_pool_intern (pool, buf), ==, id);
    }

  g_thread_join (thread);
  g_async_queue_unref (shared.ids);
  g_assert_cmpuint (expected, ==, 50000);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strata/string-pool/intern", test_intern);
  g_test_add_func ("/strata/string-pool/many", test_many);
  g_test_add_func ("/strata/string-pool/concurrent-reads", test_concurrent_reads);
  return g_test_run ();
}
