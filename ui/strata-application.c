/* strata-application.c
 *
 * GtkApplication glue: opening files given on the command line (each in a
 * window of its own, reusing an empty one), the app-wide actions (about,
 * preferences, new window, quit) and their accelerators, and the
 * preferences kept in GSettings: the colour scheme (applied through
 * AdwStyleManager, which the timeline follows) and the row height.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "strata-application.h"
#include "strata-window.h"

struct _StrataApplication
{
  AdwApplication  parent_instance;
  GSettings      *settings;
};

G_DEFINE_FINAL_TYPE (StrataApplication, strata_application, ADW_TYPE_APPLICATION)

/* The schema is installed with the application; an uninstalled build run
 * without GSETTINGS_SCHEMA_DIR simply has no saved preferences. */
static GSettings *
settings_new (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, STRATA_APPLICATION_ID, TRUE);
  return schema != NULL ? g_settings_new_full (schema, NULL, NULL) : NULL;
}

GSettings *
strata_application_get_settings (StrataApplication *self)
{
  g_return_val_if_fail (STRATA_IS_APPLICATION (self), NULL);
  return self->settings;
}

static void
apply_color_scheme (StrataApplication *self)
{
  g_autofree char *scheme = NULL;
  AdwColorScheme value = ADW_COLOR_SCHEME_DEFAULT;

  if (self->settings == NULL)
    return;
  scheme = g_settings_get_string (self->settings, "color-scheme");
  if (g_str_equal (scheme, "light"))
    value = ADW_COLOR_SCHEME_FORCE_LIGHT;
  else if (g_str_equal (scheme, "dark"))
    value = ADW_COLOR_SCHEME_FORCE_DARK;
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), value);
}

static void
apply_row_height (StrataApplication *self)
{
  guint height;

  if (self->settings == NULL)
    return;
  height = g_settings_get_uint (self->settings, "row-height");
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (STRATA_IS_WINDOW (l->data))
      strata_timeline_view_set_row_height (strata_window_get_timeline (l->data), height);
}

static StrataWindow *
new_window (StrataApplication *self)
{
  StrataWindow *window = strata_window_new (GTK_APPLICATION (self));

  if (self->settings != NULL)
    strata_timeline_view_set_row_height (strata_window_get_timeline (window),
                                         g_settings_get_uint (self->settings, "row-height"));
  return window;
}

static void
strata_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (new_window (STRATA_APPLICATION (app)));
  gtk_window_present (window);
}

static void
strata_application_open (GApplication  *app,
                         GFile        **files,
                         int            n_files,
                         const char    *hint)
{
  for (int i = 0; i < n_files; i++)
    {
      GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (app));
      StrataWindow *window;

      if (STRATA_IS_WINDOW (active) && strata_window_is_empty (STRATA_WINDOW (active)))
        window = STRATA_WINDOW (active);
      else
        window = new_window (STRATA_APPLICATION (app));
      strata_window_open (window, files[i]);
      gtk_window_present (GTK_WINDOW (window));
    }
}

static void
strata_application_startup (GApplication *app)
{
  StrataApplication *self = STRATA_APPLICATION (app);

  G_APPLICATION_CLASS (strata_application_parent_class)->startup (app);

  gtk_window_set_default_icon_name (STRATA_APPLICATION_ID);
  self->settings = settings_new ();
  if (self->settings != NULL)
    {
      g_signal_connect_swapped (self->settings, "changed::color-scheme", G_CALLBACK (apply_color_scheme), self);
      g_signal_connect_swapped (self->settings, "changed::row-height", G_CALLBACK (apply_row_height), self);
      apply_color_scheme (self);
    }
}

static void
action_about (GSimpleAction *action,
              GVariant      *param,
              gpointer       data)
{
  GtkApplication *app = data;
  const char *developers[] = { "The Strata authors", NULL };
  GtkWidget *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", gtk_application_get_active_window (app),
                        "application-name", _("Strata"),
                        "application-icon", STRATA_APPLICATION_ID,
                        "developer-name", _("The Strata authors"),
                        "version", PACKAGE_VERSION,
                        "comments", _("A timeline for Linux kernel traces of any size"),
                        "license-type", GTK_LICENSE_GPL_3_0,
                        "developers", developers,
                        /* Translators: put your name here */
                        "translator-credits", _("translator-credits"),
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
action_new_window (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       data)
{
  gtk_window_present (GTK_WINDOW (new_window (data)));
}

static void
action_quit (GSimpleAction *action,
             GVariant      *param,
             gpointer       data)
{
  g_application_quit (data);
}

static void
scheme_selected (AdwComboRow       *row,
                 GParamSpec        *pspec,
                 StrataApplication *self)
{
  static const char *values[] = { "default", "light", "dark" };
  guint i = adw_combo_row_get_selected (row);

  if (self->settings != NULL && i < G_N_ELEMENTS (values))
    g_settings_set_string (self->settings, "color-scheme", values[i]);
}

static void
row_height_changed (GtkSpinButton     *spin,
                    StrataApplication *self)
{
  if (self->settings != NULL)
    g_settings_set_uint (self->settings, "row-height", (guint) gtk_spin_button_get_value_as_int (spin));
}

static void
action_preferences (GSimpleAction *action,
                    GVariant      *param,
                    gpointer       data)
{
  StrataApplication *self = data;
  const char *schemes[] = { N_("Follow System"), N_("Light"), N_("Dark"), NULL };
  g_autoptr(GtkStringList) model = gtk_string_list_new (NULL);
  GtkWidget *window, *page, *group, *scheme, *height, *spin;
  g_autofree char *current = NULL;

  for (guint i = 0; schemes[i] != NULL; i++)
    gtk_string_list_append (model, _(schemes[i]));

  window = adw_preferences_window_new ();
  gtk_window_set_transient_for (GTK_WINDOW (window), gtk_application_get_active_window (GTK_APPLICATION (self)));
  adw_preferences_window_set_search_enabled (ADW_PREFERENCES_WINDOW (window), FALSE);
  page = adw_preferences_page_new ();
  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Appearance"));

  scheme = adw_combo_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (scheme), _("Style"));
  adw_combo_row_set_model (ADW_COMBO_ROW (scheme), G_LIST_MODEL (model));
  if (self->settings != NULL)
    {
      current = g_settings_get_string (self->settings, "color-scheme");
      adw_combo_row_set_selected (ADW_COMBO_ROW (scheme),
                                  g_str_equal (current, "light") ? 1 : g_str_equal (current, "dark") ? 2 : 0);
    }
  g_signal_connect (scheme, "notify::selected", G_CALLBACK (scheme_selected), self);

  height = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (height), _("Row height"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (height), _("Pixels per timeline row"));
  spin = gtk_spin_button_new_with_range (12, 64, 1);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin),
                             self->settings != NULL ? g_settings_get_uint (self->settings, "row-height") : 22);
  g_signal_connect (spin, "value-changed", G_CALLBACK (row_height_changed), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (height), spin);
  gtk_widget_set_sensitive (group, self->settings != NULL);

  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), scheme);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), height);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (window), ADW_PREFERENCES_PAGE (page));
  gtk_window_present (GTK_WINDOW (window));
}

static const GActionEntry app_actions[] = {
  { "about", action_about },
  { "preferences", action_preferences },
  { "new-window", action_new_window },
  { "quit", action_quit },
};

static void
strata_application_finalize (GObject *object)
{
  StrataApplication *self = STRATA_APPLICATION (object);

  g_clear_object (&self->settings);
  G_OBJECT_CLASS (strata_application_parent_class)->finalize (object);
}

static void
strata_application_class_init (StrataApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = strata_application_finalize;
  app_class->activate = strata_application_activate;
  app_class->open = strata_application_open;
  app_class->startup = strata_application_startup;
}

static void
strata_application_init (StrataApplication *self)
{
  static const struct { const char *action; const char *accels[3]; } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "app.new-window", { "<Control>n", NULL } },
    { "app.preferences", { "<Control>comma", NULL } },
    { "win.show-help-overlay", { "<Control>question", NULL } },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions), self);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action, accels[i].accels);
}

StrataApplication *
strata_application_new (GApplicationFlags flags)
{
  return g_object_new (STRATA_TYPE_APPLICATION,
                       "application-id", STRATA_APPLICATION_ID,
                       "flags", flags | G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/org/strata/Strata",
                       NULL);
}
