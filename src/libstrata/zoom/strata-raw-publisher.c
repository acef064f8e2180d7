/* strata-raw-publisher.c
 *
 * The pass publishes what the kernel model completed at every advance:
 * into the raw store, lane by lane, with the channels closed and the
 * activities still open, in one step under the tree's lock. Adding to the
 * raw store misses the cache two or three times an activity (thousands of
 * lanes, each written at its tail), and it was the largest cost of the
 * caller's thread, the pass's bottleneck (a sixth of a dense build). The
 * buffer former does not read the raw store, only the queries and the
 * pass's end do, so the steps can run on a thread of their own, behind
 * the caller, in the order they were sent: what each query sees is the
 * same as before, because it first waits until every step sent before it
 * began was done (strata_raw_publisher_wait()). At most N_JOBS steps wait,
 * so memory stays flat when the publisher is the slower one.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "strata-raw-publisher.h"

/* Steps the caller may be ahead: each holds an advance's activities, a
 * batch of events' worth. */
#define N_JOBS 4

/* A step's arrays sized for more elements than this (after a burst) are
 * made again, so they do not keep the burst's room for the rest of the
 * pass. */
#define REFIT_FROM (1u << 16)

typedef struct
{
  GArray   *activities;   /* StrataActivity */
  GArray   *sealing;      /* guint32 */
  GArray   *open;         /* StrataActivity */
  gboolean  has_open;
} Job;

struct _StrataRawPublisher
{
  StrataRawPublishFunc func;
  gpointer             data;
  GThread             *thread;
  GAsyncQueue         *full;    /* Job *, to publish, or &quit */
  GAsyncQueue         *free;    /* Job *, to fill */
  Job                  jobs[N_JOBS];
  Job                  quit;

  GMutex               lock;
  GCond                done_cond;
  guint64              n_sent;  /* under lock */
  guint64              n_done;  /* under lock */
};

/**
 * strata_raw_publisher_new:
 * @func: the publishing step
 *
 * A publisher whose thread starts with the first step sent.
 */
StrataRawPublisher *
strata_raw_publisher_new (StrataRawPublishFunc func,
                          gpointer             data)
{
  StrataRawPublisher *self = g_new0 (StrataRawPublisher, 1);

  self->func = func;
  self->data = data;
  g_mutex_init (&self->lock);
  g_cond_init (&self->done_cond);
  for (guint i = 0; i < N_JOBS; i++)
    {
      self->jobs[i].activities = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
      self->jobs[i].sealing = g_array_new (FALSE, FALSE, sizeof (guint32));
      self->jobs[i].open = g_array_new (FALSE, FALSE, sizeof (StrataActivity));
    }
  return self;
}

/* @array emptied, and made again if it had grown past REFIT_FROM. */
static GArray *
empty (GArray *array)
{
  if (array->len > REFIT_FROM)
    {
      guint size = g_array_get_element_size (array);

      g_array_unref (array);
      return g_array_new (FALSE, FALSE, size);
    }
  g_array_set_size (array, 0);
  return array;
}

static gpointer
publisher_main (gpointer data)
{
  StrataRawPublisher *self = data;

  for (;;)
    {
      Job *job = g_async_queue_pop (self->full);

      if (job == &self->quit)
        break;
      self->func (self->data, (const StrataActivity *)(gpointer) job->activities->data,
                  job->activities->len, job->sealing, job->has_open ? &job->open : NULL);
      job->activities = empty (job->activities);
      job->sealing = empty (job->sealing);
      job->open = empty (job->open);
      job->has_open = FALSE;

      g_mutex_lock (&self->lock);
      self->n_done++;
      g_cond_broadcast (&self->done_cond);
      g_mutex_unlock (&self->lock);
      g_async_queue_push (self->free, job);
    }

  return NULL;
}

/**
 * strata_raw_publisher_send:
 * @activities: (array length=n): copied
 * @sealing: (element-type guint32): copied, then emptied
 * @open: (nullable): its array is taken and replaced with an empty one
 *
 * Hands a step to the publisher's thread, waiting only while N_JOBS are
 * still to be done. After strata_raw_publisher_finish(), the step is done
 * here and now.
 */
void
strata_raw_publisher_send (StrataRawPublisher   *self,
                           const StrataActivity *activities,
                           guint                 n,
                           GArray               *sealing,
                           GArray              **open)
{
  Job *job;

  if (self->full == NULL)
    {
      self->full = g_async_queue_new ();
      self->free = g_async_queue_new ();
      for (guint i = 0; i < N_JOBS; i++)
        g_async_queue_push (self->free, &self->jobs[i]);
      self->thread = g_thread_new ("strata-raw", publisher_main, self);
    }
  if (self->thread == NULL)
    {
      self->func (self->data, activities, n, sealing, open);
      return;
    }

  job = g_async_queue_pop (self->free);
  g_array_append_vals (job->activities, activities, n);
  g_array_append_vals (job->sealing, sealing->data, sealing->len);
  g_array_set_size (sealing, 0);
  if (open != NULL)
    {
      GArray *taken = *open;

      *open = job->open;
      job->open = taken;
      job->has_open = TRUE;
    }

  g_mutex_lock (&self->lock);
  self->n_sent++;
  g_mutex_unlock (&self->lock);
  g_async_queue_push (self->full, job);
}

/**
 * strata_raw_publisher_wait:
 *
 * Returns once every step sent before the call is done. Any thread.
 */
void
strata_raw_publisher_wait (StrataRawPublisher *self)
{
  guint64 target;

  g_mutex_lock (&self->lock);
  target = self->n_sent;
  while (self->n_done < target)
    g_cond_wait (&self->done_cond, &self->lock);
  g_mutex_unlock (&self->lock);
}

/**
 * strata_raw_publisher_finish:
 *
 * Waits for every step sent and lets the thread go: the steps sent from
 * now on are done on the sender's thread.
 */
void
strata_raw_publisher_finish (StrataRawPublisher *self)
{
  if (self->thread != NULL)
    {
      g_async_queue_push (self->full, &self->quit);
      g_thread_join (self->thread);
      self->thread = NULL;
    }
  /* No thread from now on, started or not. */
  if (self->full == NULL)
    {
      self->full = g_async_queue_new ();
      self->free = g_async_queue_new ();
    }
}

void
strata_raw_publisher_free (StrataRawPublisher *self)
{
  if (self == NULL)
    return;

  strata_raw_publisher_finish (self);
  g_async_queue_unref (self->full);
  g_async_queue_unref (self->free);
  for (guint i = 0; i < N_JOBS; i++)
    {
      g_array_unref (self->jobs[i].activities);
      g_array_unref (self->jobs[i].sealing);
      g_array_unref (self->jobs[i].open);
    }
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->done_cond);
  g_free (self);
}
