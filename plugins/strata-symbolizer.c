/* strata-symbolizer.c
 *
 * See strata-symbolizer.h. Kernel symbols are read lazily, on the first
 * kernel address asked for: the recording's kallsyms when it carried
 * them, otherwise this machine's /proc/kallsyms, which describe the
 * recorded kernel only when this machine runs the same release (the
 * addresses then differ by where _text was put at boot, KASLR, as perf
 * relocates them). User addresses are looked up in the process's
 * mappings, the latest mapping of an address first (a later mmap
 * replaces an earlier one), and named through the mapped file's symbol
 * table with libdwfl, each file opened once.
 *
 * An exec starts a new image of a process: its mappings from then on
 * are the new program's. A name asked for at a time looks in the image
 * of that time first, then in the others; asked for with no time
 * (G_MAXINT64), the latest mappings come first, as they do at the end.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "strata-symbolizer.h"

typedef struct
{
  guint64 address;
  char   *name;
} KernelSym;

/* An executable mapping of a process. */
typedef struct
{
  guint64     start;
  guint64     len;
  guint64     pgoff;
  const char *path;    /* in the symbolizer's string chunk */
  guint       image;   /* which exec of the process it belongs to */
} Map;

/* A process's mappings and where each of its images began. */
typedef struct
{
  GArray *maps;        /* Map, in the order they were added */
  GArray *images;      /* gint64: the time each image began; [0] G_MININT64 */
} Process;

/* One ELF file opened through libdwfl, on first use. */
typedef struct
{
  Dwfl        *dwfl;
  Dwfl_Module *module;
} ElfFile;

struct _StrataSymbolizer
{
  char         *kallsyms_text;   /* the recording's, or NULL */
  char         *kernel_release;  /* the recorded kernel's, or NULL */
  guint64       kernel_text;     /* _text as the recording says, or 0 */

  GArray       *ksyms;           /* KernelSym, sorted; NULL until asked */
  gboolean      ksyms_usable;    /* the kallsyms describe the recorded kernel */
  gint64        ksyms_delta;     /* machine address - recorded address (KASLR) */

  GHashTable   *processes;       /* pid → Process */
  GStringChunk *paths;
  GHashTable   *elf_files;       /* path → ElfFile (NULL when not readable) */
};

static void
process_free (gpointer data)
{
  Process *p = data;

  g_array_unref (p->maps);
  g_array_unref (p->images);
  g_free (p);
}

static Process *
process_new (void)
{
  Process *p = g_new0 (Process, 1);
  gint64 first = G_MININT64;

  p->maps = g_array_new (FALSE, FALSE, sizeof (Map));
  p->images = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_array_append_val (p->images, first);
  return p;
}

static void
elf_file_free (gpointer data)
{
  ElfFile *f = data;

  if (f == NULL)
    return;
  dwfl_end (f->dwfl);
  g_free (f);
}

/**
 * strata_symbolizer_new:
 *
 * Returns: (transfer full): a symbolizer that knows no mappings yet
 */
StrataSymbolizer *
strata_symbolizer_new (void)
{
  StrataSymbolizer *self = g_new0 (StrataSymbolizer, 1);

  self->processes = g_hash_table_new_full (NULL, NULL, NULL, process_free);
  self->paths = g_string_chunk_new (4096);
  self->elf_files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, elf_file_free);
  return self;
}

void
strata_symbolizer_free (StrataSymbolizer *self)
{
  if (self == NULL)
    return;

  if (self->ksyms != NULL)
    {
      for (guint i = 0; i < self->ksyms->len; i++)
        g_free (g_array_index (self->ksyms, KernelSym, i).name);
      g_array_unref (self->ksyms);
    }
  g_hash_table_unref (self->processes);
  g_string_chunk_free (self->paths);
  g_hash_table_unref (self->elf_files);
  g_free (self->kallsyms_text);
  g_free (self->kernel_release);
  g_free (self);
}

/**
 * strata_symbolizer_set_kallsyms:
 * @text: (transfer full): the recorded kernel's /proc/kallsyms text, as
 *   the recording carries it
 *
 * Names kernel addresses from @text rather than this machine's.
 */
void
strata_symbolizer_set_kallsyms (StrataSymbolizer *self,
                                char             *text)
{
  g_free (self->kallsyms_text);
  self->kallsyms_text = text;
}

/**
 * strata_symbolizer_set_kernel_release:
 * @release: the recorded kernel's release (uname -r)
 *
 * With no kallsyms of its own, the recording's kernel addresses are named
 * from this machine's only when it runs @release.
 */
void
strata_symbolizer_set_kernel_release (StrataSymbolizer *self,
                                      const char       *release)
{
  g_free (self->kernel_release);
  self->kernel_release = g_strdup (release);
}

/**
 * strata_symbolizer_set_kernel_text:
 * @address: where the recorded kernel's _text was
 *
 * Lets this machine's kallsyms name the recording's kernel addresses
 * after another boot put the kernel elsewhere.
 */
void
strata_symbolizer_set_kernel_text (StrataSymbolizer *self,
                                   guint64           address)
{
  self->kernel_text = address;
}

static Process *
process_get (StrataSymbolizer *self,
             gint32            pid)
{
  Process *p = g_hash_table_lookup (self->processes, GINT_TO_POINTER (pid));

  if (p == NULL)
    {
      p = process_new ();
      g_hash_table_insert (self->processes, GINT_TO_POINTER (pid), p);
    }
  return p;
}

/**
 * strata_symbolizer_add_mapping:
 * @pid: the process (tgid); -1 for the kernel
 * @start: the first address mapped
 * @len: how many bytes
 * @pgoff: the file offset mapped at @start
 * @path: the file (not necessarily terminated)
 * @path_len: @path's length at most
 *
 * Adds an executable mapping of @path to @pid's current image.
 */
void
strata_symbolizer_add_mapping (StrataSymbolizer *self,
                               gint32            pid,
                               guint64           start,
                               guint64           len,
                               guint64           pgoff,
                               const char       *path,
                               gsize             path_len)
{
  Process *p = process_get (self, pid);
  g_autofree char *copy = g_strndup (path, path_len);
  Map m;

  m.start = start;
  m.len = len;
  m.pgoff = pgoff;
  m.path = g_string_chunk_insert_const (self->paths, copy);
  m.image = p->images->len - 1;
  g_array_append_val (p->maps, m);
}

/**
 * strata_symbolizer_fork:
 *
 * A new process starts with its parent's mappings (fork() maps nothing
 * anew): @child_pid gets a copy of @parent_pid's, unless it has mappings
 * of its own already or is the same process. The child's exec may have
 * been told first (a recording's CPUs are not in time order): its
 * images are kept, the copies belong to its first.
 */
void
strata_symbolizer_fork (StrataSymbolizer *self,
                        gint32            parent_pid,
                        gint32            child_pid)
{
  Process *parent, *child;

  if (parent_pid == child_pid)
    return;
  child = g_hash_table_lookup (self->processes, GINT_TO_POINTER (child_pid));
  if (child != NULL && child->maps->len > 0)
    return;
  parent = g_hash_table_lookup (self->processes, GINT_TO_POINTER (parent_pid));
  if (parent == NULL || parent->maps->len == 0)
    return;

  child = process_get (self, child_pid);
  g_array_append_vals (child->maps, parent->maps->data, parent->maps->len);
  for (guint i = 0; i < child->maps->len; i++)
    g_array_index (child->maps, Map, i).image = 0;
}

/**
 * strata_symbolizer_exec:
 * @ts: when @pid ran a new program
 *
 * The mappings added to @pid from now on are the new program's.
 */
void
strata_symbolizer_exec (StrataSymbolizer *self,
                        gint32            pid,
                        gint64            ts)
{
  Process *p = process_get (self, pid);

  g_array_append_val (p->images, ts);
}

/* ------------------------------------------------------------------ */
/* Kernel symbols.                                                      */

static int
ksym_cmp (gconstpointer a,
          gconstpointer b)
{
  const KernelSym *x = a, *y = b;

  return x->address < y->address ? -1 : (x->address > y->address);
}

static gboolean
same_release (StrataSymbolizer *self)
{
  g_autofree char *release = NULL;

  if (self->kernel_release == NULL ||
      !g_file_get_contents ("/proc/sys/kernel/osrelease", &release, NULL, NULL))
    return FALSE;
  return strcmp (g_strstrip (release), self->kernel_release) == 0;
}

/* One "ADDRESS TYPE NAME [MODULE]" line of [line, end): only text
 * symbols name code. */
static void
add_kallsyms_line (StrataSymbolizer *self,
                   const char       *line,
                   const char       *end,
                   gboolean          machine)
{
  char *after = NULL;
  guint64 address = g_ascii_strtoull (line, &after, 16);
  const char *name, *name_end;
  KernelSym k;

  if (after == NULL || after + 3 >= end || after[0] != ' ' || strchr ("tTwW", after[1]) == NULL ||
      after[2] != ' ' || address == 0)
    return;

  name = after + 3;
  name_end = name;
  while (name_end < end && *name_end != ' ' && *name_end != '\t')
    name_end++;
  k.address = address;
  k.name = g_strndup (name, name_end - name);
  /* The machine's kallsyms describe the recorded kernel if it runs the
   * release the recording names; another boot's layout differs by where
   * _text is (KASLR), as perf relocates. */
  if (machine && strcmp (k.name, "_text") == 0 && same_release (self))
    {
      self->ksyms_usable = TRUE;
      if (self->kernel_text != 0)
        self->ksyms_delta = (gint64) (k.address - self->kernel_text);
    }
  g_array_append_val (self->ksyms, k);
}

static void
load_kallsyms (StrataSymbolizer *self)
{
  g_autofree char *machine = NULL;
  const char *text = self->kallsyms_text;

  self->ksyms = g_array_new (FALSE, FALSE, sizeof (KernelSym));

  if (text == NULL && g_file_get_contents ("/proc/kallsyms", &machine, NULL, NULL))
    text = machine;
  if (text == NULL)
    return;

  for (const char *line = text; *line != '\0';)
    {
      const char *eol = strchr (line, '\n');
      const char *end = eol != NULL ? eol : line + strlen (line);

      add_kallsyms_line (self, line, end, text == machine);
      line = eol != NULL ? eol + 1 : end;
    }
  g_array_sort (self->ksyms, ksym_cmp);
  if (text == self->kallsyms_text)
    self->ksyms_usable = self->ksyms->len > 0;
}

/**
 * strata_symbolizer_lookup_kernel:
 * @address: a kernel address of the recording
 *
 * Returns: (nullable): the kernel function at @address, or NULL when the
 *   kernel's symbols are not known
 */
const char *
strata_symbolizer_lookup_kernel (StrataSymbolizer *self,
                                 guint64           address)
{
  guint lo = 0, hi;

  if (self->ksyms == NULL)
    load_kallsyms (self);

  address += self->ksyms_delta;
  hi = self->ksyms->len;
  if (!self->ksyms_usable || hi == 0 ||
      address < g_array_index (self->ksyms, KernelSym, 0).address)
    return NULL;

  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (self->ksyms, KernelSym, mid).address <= address)
        lo = mid;
      else
        hi = mid;
    }

  return g_array_index (self->ksyms, KernelSym, lo).name;
}

/**
 * strata_symbolizer_kernel_symbols_known:
 *
 * Returns: whether kernel addresses can be named: the recording had
 *   kallsyms, or this machine's describe the kernel that was recorded
 */
gboolean
strata_symbolizer_kernel_symbols_known (StrataSymbolizer *self)
{
  if (self->ksyms == NULL)
    load_kallsyms (self);
  return self->ksyms_usable;
}

/* ------------------------------------------------------------------ */
/* User symbols.                                                        */

static const Dwfl_Callbacks offline_callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

static ElfFile *
open_elf (StrataSymbolizer *self,
          const char       *path)
{
  ElfFile *f;
  gpointer found;

  if (g_hash_table_lookup_extended (self->elf_files, path, NULL, &found))
    return found;

  f = NULL;
  if (path[0] == '/' && g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      Dwfl *dwfl = dwfl_begin (&offline_callbacks);
      Dwfl_Module *mod = dwfl != NULL ? dwfl_report_offline (dwfl, path, path, -1) : NULL;

      if (mod != NULL && dwfl_report_end (dwfl, NULL, NULL) == 0)
        {
          f = g_new0 (ElfFile, 1);
          f->dwfl = dwfl;
          f->module = mod;
        }
      else if (dwfl != NULL)
        dwfl_end (dwfl);
    }

  g_hash_table_insert (self->elf_files, g_strdup (path), f);
  return f;
}

/* The function at file offset @offset of @f, through its program
 * headers (the load bias of the module libdwfl chose added). */
static const char *
elf_function_at (ElfFile *f,
                 guint64  offset)
{
  GElf_Addr bias = 0;
  Elf *elf = dwfl_module_getelf (f->module, &bias);
  size_t n = 0;

  if (elf == NULL || elf_getphdrnum (elf, &n) != 0)
    return NULL;

  for (size_t i = 0; i < n; i++)
    {
      GElf_Phdr mem, *ph = gelf_getphdr (elf, i, &mem);

      if (ph != NULL && ph->p_type == PT_LOAD && offset >= ph->p_offset &&
          offset < ph->p_offset + ph->p_filesz)
        return dwfl_module_addrname (f->module, offset - ph->p_offset + ph->p_vaddr + bias);
    }

  return NULL;
}

/* The image of @p current at @ts. */
static guint
image_at (const Process *p,
          gint64         ts)
{
  guint image = 0;

  for (guint i = 1; i < p->images->len; i++)
    if (g_array_index (p->images, gint64, i) <= ts)
      image = i;
  return image;
}

static const Map *
find_map (StrataSymbolizer *self,
          gint32            pid,
          guint64           address,
          gint64            ts)
{
  const Process *p = g_hash_table_lookup (self->processes, GINT_TO_POINTER (pid));
  guint image;

  if (p == NULL)
    return NULL;

  /* The image of the time first, then any: the latest mapping wins. */
  image = image_at (p, ts);
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = p->maps->len; i > 0; i--)
      {
        const Map *m = &g_array_index (p->maps, Map, i - 1);

        if ((pass == 1 || m->image == image) &&
            address >= m->start && address - m->start < m->len)
          return m;
      }
  return NULL;
}

/**
 * strata_symbolizer_name:
 * @pid: the process the address is in (its tgid)
 * @address: a code address from a sample
 * @ts: the sample's time, or G_MAXINT64 when it is not known
 *
 * Names the function at @address: kernel addresses through the kernel's
 * symbols (see strata_symbolizer_lookup_kernel()); user addresses through
 * the mapped file with libdwfl. An address whose file is missing or has
 * no symbol is named by its file and offset, "libc.so.6+0x2a1c0"; one
 * outside every mapping by its value.
 *
 * Returns: (transfer full): the name
 */
char *
strata_symbolizer_name (StrataSymbolizer *self,
                        gint32            pid,
                        guint64           address,
                        gint64            ts)
{
  const Map *m;
  const char *name;
  guint64 offset;
  ElfFile *f;
  g_autofree char *base = NULL;

  if (address >= STRATA_SYMBOLIZER_KERNEL_START)
    {
      name = strata_symbolizer_lookup_kernel (self, address);
      if (name != NULL)
        return g_strdup (name);
      return g_strdup_printf ("[kernel] 0x%" G_GINT64_MODIFIER "x", address);
    }

  m = find_map (self, pid, address, ts);
  if (m == NULL)
    return g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", address);

  offset = address - m->start + m->pgoff;
  f = open_elf (self, m->path);
  if (f != NULL && (name = elf_function_at (f, offset)) != NULL)
    return g_strdup (name);
  base = g_path_get_basename (m->path);
  return g_strdup_printf ("%s+0x%" G_GINT64_MODIFIER "x", base, offset);
}
