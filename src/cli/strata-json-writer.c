/* strata-json-writer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "strata-json-writer.h"

struct _StrataJsonWriter
{
  GString *out;
  GArray  *first;     /* gboolean per open container: nothing written in it yet */
  gboolean after_key;
};

StrataJsonWriter *
strata_json_writer_new (void)
{
  StrataJsonWriter *self = g_new0 (StrataJsonWriter, 1);

  self->out = g_string_new (NULL);
  self->first = g_array_new (FALSE, FALSE, sizeof (gboolean));

  return self;
}

void
strata_json_writer_free (StrataJsonWriter *self)
{
  if (self == NULL)
    return;

  g_string_free (self->out, TRUE);
  g_array_unref (self->first);
  g_free (self);
}

char *
strata_json_writer_finish (StrataJsonWriter *self)
{
  char *ret;

  g_return_val_if_fail (self->first->len == 0, NULL);

  g_string_append_c (self->out, '\n');
  ret = g_string_free (self->out, FALSE);
  self->out = g_string_new (NULL);

  return ret;
}

static void
separate (StrataJsonWriter *self)
{
  gboolean *first;

  if (self->after_key)
    {
      self->after_key = FALSE;
      return;
    }

  if (self->first->len == 0)
    return;

  first = &g_array_index (self->first, gboolean, self->first->len - 1);
  if (!*first)
    g_string_append_c (self->out, ',');
  *first = FALSE;
}

static void
append_escaped (GString    *out,
                const char *str)
{
  g_string_append_c (out, '"');

  for (const guchar *p = (const guchar *) str; *p; p++)
    {
      switch (*p)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          if (*p < 0x20 || *p == 0x7f)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, *p);
        }
    }

  g_string_append_c (out, '"');
}

static void
begin (StrataJsonWriter *self,
       char              c)
{
  gboolean first = TRUE;

  separate (self);
  g_string_append_c (self->out, c);
  g_array_append_val (self->first, first);
}

static void
end (StrataJsonWriter *self,
     char              c)
{
  g_return_if_fail (self->first->len > 0);

  g_array_set_size (self->first, self->first->len - 1);
  g_string_append_c (self->out, c);
}

void strata_json_writer_begin_object (StrataJsonWriter *self) { begin (self, '{'); }
void strata_json_writer_end_object (StrataJsonWriter *self) { end (self, '}'); }
void strata_json_writer_begin_array (StrataJsonWriter *self) { begin (self, '['); }
void strata_json_writer_end_array (StrataJsonWriter *self) { end (self, ']'); }

void
strata_json_writer_key (StrataJsonWriter *self,
                        const char       *key)
{
  separate (self);
  append_escaped (self->out, key);
  g_string_append_c (self->out, ':');
  self->after_key = TRUE;
}

void
strata_json_writer_string (StrataJsonWriter *self,
                           const char       *value)
{
  separate (self);
  if (value == NULL)
    g_string_append (self->out, "null");
  else if (g_utf8_validate (value, -1, NULL))
    append_escaped (self->out, value);
  else
    {
      g_autofree char *valid = g_utf8_make_valid (value, -1);
      append_escaped (self->out, valid);
    }
}

void
strata_json_writer_int (StrataJsonWriter *self,
                        gint64            value)
{
  separate (self);
  g_string_append_printf (self->out, "%" G_GINT64_FORMAT, value);
}

void
strata_json_writer_uint (StrataJsonWriter *self,
                         guint64           value)
{
  separate (self);
  g_string_append_printf (self->out, "%" G_GUINT64_FORMAT, value);
}

void
strata_json_writer_double (StrataJsonWriter *self,
                           double            value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  separate (self);
  if (!isfinite (value))
    g_string_append (self->out, "null");
  else
    g_string_append (self->out, g_ascii_formatd (buf, sizeof buf, "%.6g", value));
}

void
strata_json_writer_bool (StrataJsonWriter *self,
                         gboolean          value)
{
  separate (self);
  g_string_append (self->out, value ? "true" : "false");
}

void
strata_json_writer_null (StrataJsonWriter *self)
{
  separate (self);
  g_string_append (self->out, "null");
}
