/* strata.h
 *
 * The umbrella header of libstrata.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "strata-activity.h"
#include "strata-aggregator.h"
#include "strata-critical-path.h"
#include "strata-error.h"
#include "strata-event.h"
#include "strata-export.h"
#include "strata-flame-graph.h"
#include "strata-histogram.h"
#include "strata-index.h"
#include "strata-kernel-model.h"
#include "strata-loader.h"
#include "strata-painter.h"
#include "strata-parameters.h"
#include "strata-raw-store.h"
#include "strata-source.h"
#include "strata-stats.h"
#include "strata-string-pool.h"
#include "strata-trace.h"
#include "strata-trace-lookup.h"
#include "strata-wakeup.h"
#include "strata-zoom-chunk.h"
#include "strata-zoom-geometry.h"
#include "strata-zoom-tree.h"
