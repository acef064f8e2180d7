/* strata-application.h
 *
 * The Strata application: one instance per session (org.strata.Strata),
 * a window per trace opened from the command line, the file manager or
 * the open dialog; the about window, the preferences and dark mode.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define STRATA_APPLICATION_ID "org.strata.Strata"
#define STRATA_TYPE_APPLICATION (strata_application_get_type ())

G_DECLARE_FINAL_TYPE (StrataApplication, strata_application, STRATA, APPLICATION, AdwApplication)

StrataApplication *strata_application_new          (GApplicationFlags  flags);
GSettings         *strata_application_get_settings (StrataApplication *self);

G_END_DECLS
