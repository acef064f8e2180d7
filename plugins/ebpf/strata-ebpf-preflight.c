/* strata-ebpf-preflight.c
 *
 * Loading BPF programs fails with EPERM whatever is missing; saying
 * which capability is missing needs asking first. Since 5.8 the kernel
 * splits what CAP_SYS_ADMIN allowed: CAP_BPF loads programs and creates
 * maps, CAP_PERFMON lets tracing programs read kernel memory and opens
 * system-wide perf events. CAP_SYS_ADMIN still stands for both, and is
 * the only way on older kernels.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "strata-ebpf-preflight.h"
#include "strata-record-error.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static gboolean
has_cap (const struct __user_cap_data_struct *data,
         int                                  cap)
{
  return (data[cap / 32].effective & (1u << (cap % 32))) != 0;
}

/* Whether the kernel knows CAP_BPF (5.8 and later). */
static gboolean
kernel_has_cap_bpf (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/sys/kernel/cap_last_cap", &text, NULL, NULL))
    return TRUE;
  return g_ascii_strtoll (text, NULL, 10) >= CAP_BPF;
}

gboolean
strata_ebpf_preflight_privileges (GError **error)
{
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2] = { { 0 } };
  gboolean admin, bpf, perfmon;
  const char *missing;

  if (syscall (SYS_capget, &header, data) != 0)
    return TRUE;  /* let the load say */

  admin = has_cap (data, CAP_SYS_ADMIN);
  if (admin)
    return TRUE;

  if (!kernel_has_cap_bpf ())
    {
      g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_PERMISSION,
                   "recording needs root (CAP_SYS_ADMIN on this kernel, which predates "
                   "CAP_BPF): run it as root, e.g. with sudo");
      return FALSE;
    }

  bpf = has_cap (data, CAP_BPF);
  perfmon = has_cap (data, CAP_PERFMON);
  if (bpf && perfmon)
    return TRUE;

  if (!bpf && !perfmon)
    missing = "this process has neither";
  else if (!bpf)
    missing = "CAP_BPF is missing (CAP_PERFMON is there)";
  else
    missing = "CAP_PERFMON is missing (CAP_BPF is there)";

  g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_PERMISSION,
               "recording needs root, or the capabilities CAP_BPF and CAP_PERFMON: %s. "
               "Run it as root (sudo strata-cli record ...), or give the program both "
               "(sudo setcap cap_bpf,cap_perfmon+ep PATH-TO-strata-cli)", missing);
  return FALSE;
}

gboolean
strata_ebpf_preflight_btf (const char  *btf_path,
                           GError     **error)
{
  if (access (btf_path, R_OK) == 0)
    return TRUE;

  if (errno == ENOENT)
    g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_NO_BTF,
                 "this kernel does not describe its own types (%s is missing): the "
                 "recorder's programs adapt to the running kernel through its BTF, so it "
                 "needs a kernel built with CONFIG_DEBUG_INFO_BTF=y (Debian's, Fedora's "
                 "and Ubuntu's kernels are)", btf_path);
  else
    g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_NO_BTF,
                 "cannot read the kernel's BTF, %s: %s", btf_path, g_strerror (errno));
  return FALSE;
}

gboolean
strata_ebpf_preflight_output (const char  *path,
                              GError     **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  struct stat st;

  if (stat (path, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_OUTPUT,
                       "cannot write %s: it is a directory; name a file with -o", path);
          return FALSE;
        }
      if (access (path, W_OK) != 0)
        {
          g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_OUTPUT,
                       "cannot write %s: %s; choose another file with -o", path, g_strerror (errno));
          return FALSE;
        }
      return TRUE;
    }

  if (access (dir, W_OK | X_OK) != 0)
    {
      g_set_error (error, STRATA_RECORD_ERROR, STRATA_RECORD_ERROR_OUTPUT,
                   "cannot write %s: %s: %s; choose another place with -o", path, dir,
                   g_strerror (errno));
      return FALSE;
    }

  return TRUE;
}

/**
 * strata_ebpf_describe_verifier_log:
 * @log: what libbpf printed while loading
 *
 * Returns: (nullable): which program the verifier refused and its last
 *   lines, or %NULL when @log holds no verifier log
 */
char *
strata_ebpf_describe_verifier_log (const char *log)
{
  const char *begin = g_strrstr (log, "-- BEGIN PROG LOAD LOG --");
  const char *end;
  g_autofree char *prog = NULL;
  g_auto(GStrv) lines = NULL;
  GString *out;
  guint n, from;

  if (begin == NULL)
    return NULL;

  /* "libbpf: prog 'NAME': -- BEGIN PROG LOAD LOG --" */
  {
    const char *line = begin;
    const char *quote_end;

    while (line > log && line[-1] != '\n')
      line--;
    if ((line = strstr (line, "prog '")) != NULL && line < begin &&
        (quote_end = strchr (line + 6, '\'')) != NULL)
      prog = g_strndup (line + 6, quote_end - line - 6);
  }

  begin = strchr (begin, '\n');
  if (begin == NULL)
    return NULL;
  begin++;
  end = strstr (begin, "-- END PROG LOAD LOG --");
  if (end == NULL)
    end = begin + strlen (begin);
  while (end > begin && end[-1] != '\n')
    end--;

  {
    g_autofree char *body = g_strndup (begin, end - begin);
    lines = g_strsplit (g_strchomp (body), "\n", -1);
  }
  n = g_strv_length (lines);
  from = n > 12 ? n - 12 : 0;

  out = g_string_new (NULL);
  g_string_append_printf (out, "the kernel's verifier refused the BPF program %s; its last words:",
                          prog != NULL ? prog : "(unnamed)");
  for (guint i = from; i < n; i++)
    g_string_append_printf (out, "\n    %s", lines[i]);
  g_string_append (out, "\nThis kernel may be older than the recorder supports (5.8 or later "
                        "with BTF), or a kernel that changed a hooked tracepoint");

  return g_string_free (out, FALSE);
}
