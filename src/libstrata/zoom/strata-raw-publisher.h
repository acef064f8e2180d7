/* strata-raw-publisher.h
 *
 * Publishing the pass's activities (into the raw store, with the open
 * ones the queries see) on a thread of its own: see
 * strata-raw-publisher.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "strata-activity.h"

G_BEGIN_DECLS

typedef struct _StrataRawPublisher StrataRawPublisher;

/**
 * StrataRawPublishFunc:
 * @activities: (array length=n): completed activities, in the order they came
 * @sealing: (element-type guint32): channels closed after them; emptied
 * @open: (nullable): the open activities to show from now on, swapped
 *   with the ones shown until now
 *
 * One publishing step, done whole on the publisher's thread, in the order
 * the steps were sent.
 */
typedef void (*StrataRawPublishFunc) (gpointer              data,
                                      const StrataActivity *activities,
                                      guint                 n,
                                      GArray               *sealing,
                                      GArray              **open);

StrataRawPublisher *strata_raw_publisher_new    (StrataRawPublishFunc  func,
                                                 gpointer              data);
void                strata_raw_publisher_send   (StrataRawPublisher   *self,
                                                 const StrataActivity *activities,
                                                 guint                 n,
                                                 GArray               *sealing,
                                                 GArray              **open);
void                strata_raw_publisher_wait   (StrataRawPublisher   *self);
void                strata_raw_publisher_finish (StrataRawPublisher   *self);
void                strata_raw_publisher_free   (StrataRawPublisher   *self);

G_END_DECLS
