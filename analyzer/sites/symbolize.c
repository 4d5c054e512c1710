/* symbolize.c - symbolize(): address -> module (by the recorded ranges) ->
 * libdwfl lookup of address-1 (return addresses point after the call) in
 * that module's file, opened lazily, one Dwfl per module, and checked
 * against the recorded build id.  A module whose file is gone or changed
 * gives frames with only module+offset.  symbolize_symbol() reads only the
 * symbol table (no DWARF: no line tables, no debug info entries), for
 * frames of libraries that are not the user's code. */
#include "sites/symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sites/demangle.h"
#include "u64map.h"
#include "util.h"

struct module {
  char *path;
  uint64_t start, end, bias;
  char *build_id;  /* hex, or NULL */
  int state;       /* 0 not opened yet, 1 usable, -1 unusable */
  Dwfl *dwfl;
  Dwfl_Module *mod;
};

/* a cached frame: the public part, and how far the object file was read
 * for it */
struct frame {
  struct sym_frame f;
  int level; /* 0 not looked up, 1 its symbol, 2 symbol and DWARF */
};

struct symbolizer {
  struct module *mods;
  size_t nmods;
  struct frame **frames; /* cache, indexed by u64map value */
  size_t nframes, capframes;
  struct u64map by_addr;
  size_t lookups;
};

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct symbolizer *symbolizer_new(const struct sym_module *mods, size_t n)
{
  struct symbolizer *s = xcalloc(1, sizeof *s);
  u64map_init(&s->by_addr);
  s->mods = xcalloc(n, sizeof *s->mods);
  s->nmods = n;
  for (size_t i = 0; i < n; i++) {
    struct module *m = &s->mods[i];
    const char *b = mods[i].build_id;
    m->path = xstrdup(mods[i].path);
    m->start = mods[i].start;
    m->end = mods[i].end;
    m->bias = mods[i].bias;
    m->build_id = b && *b ? xstrdup(b) : NULL;
  }
  return s;
}

void symbolizer_free(struct symbolizer *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->nmods; i++) {
    if (s->mods[i].dwfl)
      dwfl_end(s->mods[i].dwfl);
    free(s->mods[i].path);
    free(s->mods[i].build_id);
  }
  free(s->mods);
  for (size_t i = 0; i < s->nframes; i++) {
    free((char *)s->frames[i]->f.function);
    free((char *)s->frames[i]->f.file);
    free((char *)s->frames[i]->f.outer_file);
    free(s->frames[i]);
  }
  free(s->frames);
  u64map_free(&s->by_addr);
  free(s);
}

/* the module containing ADDR; the latest loaded one if ranges overlap */
static struct module *find_module(struct symbolizer *s, uint64_t addr)
{
  for (size_t i = s->nmods; i-- > 0;)
    if (addr >= s->mods[i].start && addr < s->mods[i].end)
      return &s->mods[i];
  return NULL;
}

static bool build_id_matches(Dwfl_Module *mod, const char *want)
{
  if (!want)
    return true;
  const unsigned char *bits;
  GElf_Addr vaddr;
  int n = dwfl_module_build_id(mod, &bits, &vaddr);
  if (n <= 0 || strlen(want) != (size_t)n * 2)
    return false;
  for (int i = 0; i < n; i++) {
    char hex[3];
    snprintf(hex, sizeof hex, "%02x", bits[i]);
    if (strncasecmp(hex, want + 2 * i, 2) != 0)
      return false;
  }
  return true;
}

static void open_module(struct module *m)
{
  m->state = -1;
  if (!m->path || m->path[0] != '/')
    return; /* [vdso], anonymous or relative: nothing to read */
  /* the recording names the file: never a FIFO or device */
  int fd = open_regular_file(m->path, NULL);
  if (fd < 0)
    return;
  m->dwfl = dwfl_begin(&offline_callbacks);
  if (!m->dwfl) {
    close(fd);
    return;
  }
  dwfl_report_begin(m->dwfl);
  /* add_p_vaddr: BASE is the load bias, as dl_iterate_phdr's dlpi_addr */
  m->mod = dwfl_report_elf(m->dwfl, path_base(m->path), m->path, fd, m->bias,
                           true);
  if (!m->mod)
    close(fd); /* consumed only on success */
  dwfl_report_end(m->dwfl, NULL, NULL);
  if (!m->mod || !build_id_matches(m->mod, m->build_id)) {
    dwfl_end(m->dwfl);
    m->dwfl = NULL;
    m->mod = NULL;
    return;
  }
  m->state = 1;
}

/* The call site, in the enclosing real function, of the outermost inlined
 * function at A (DW_AT_call_file/DW_AT_call_line of that
 * DW_TAG_inlined_subroutine). */
static void outer_site(struct module *m, Dwarf_Addr a, struct sym_frame *f)
{
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie(m->mod, a, &bias);
  if (!cu)
    return;
  Dwarf_Die *scopes = NULL;
  int n = dwarf_getscopes(cu, a - bias, &scopes);
  /* dwarf_getscopes goes on from an inlined subroutine into its abstract
   * definition; the concrete nesting (an inline inside an inline, as
   * cuda_runtime.h's templates nest) comes from dwarf_getscopes_die of
   * the innermost scope, as eu-addr2line -i does */
  if (n > 0) {
    Dwarf_Die inner = scopes[0];
    free(scopes);
    scopes = NULL;
    n = dwarf_getscopes_die(&inner, &scopes);
  }
  Dwarf_Die *outer = NULL;
  for (int i = 0; i < n; i++) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram)
      break; /* the enclosing real function */
    if (tag == DW_TAG_inlined_subroutine)
      outer = &scopes[i]; /* scopes go from innermost to outermost */
  }
  Dwarf_Attribute attr;
  Dwarf_Word line = 0, fileidx = 0;
  Dwarf_Files *files;
  size_t nfiles;
  if (outer &&
      dwarf_formudata(dwarf_attr(outer, DW_AT_call_line, &attr), &line) == 0 &&
      dwarf_formudata(dwarf_attr(outer, DW_AT_call_file, &attr), &fileidx) == 0 &&
      dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && fileidx < nfiles) {
    const char *file = dwarf_filesrc(files, fileidx, NULL, NULL);
    if (file && line > 0) {
      f->outer_file = xstrdup(file);
      f->outer_line = (int)line;
    }
  }
  free(scopes);
}

/* the symbol at the frame's call instruction, from the symbol table */
static void lookup_symbol(struct module *m, struct sym_frame *f)
{
  Dwarf_Addr a = f->address - 1;
  GElf_Off off;
  GElf_Sym sym;
  const char *name =
      dwfl_module_addrinfo(m->mod, a, &off, &sym, NULL, NULL, NULL);
  if (name && *name)
    f->function = cl_demangle(name);
}

/* file:line and the inline's call site, from the DWARF */
static void lookup_lines(struct module *m, struct sym_frame *f)
{
  Dwarf_Addr a = f->address - 1;
  Dwfl_Line *line = dwfl_module_getsrc(m->mod, a);
  if (line) {
    int lineno = 0;
    const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
    if (file && lineno > 0) {
      f->file = xstrdup(file);
      f->line = lineno;
    }
  }
  outer_site(m, a, f);
}

/* the cached frame of ADDR, made with module and offset when new */
static struct frame *frame_of(struct symbolizer *s, uint64_t addr)
{
  uint64_t idx;
  if (u64map_get(&s->by_addr, addr, &idx))
    return s->frames[idx];
  struct frame *fr = xcalloc(1, sizeof *fr);
  fr->f.address = addr;
  struct module *m = find_module(s, addr);
  if (m) {
    fr->f.module = m->path;
    fr->f.offset = addr - m->bias;
  }
  GROW(s->frames, s->capframes, s->nframes + 1);
  s->frames[s->nframes] = fr;
  u64map_put(&s->by_addr, addr, s->nframes++);
  return fr;
}

const struct sym_frame *symbolize_module_only(struct symbolizer *s,
                                              uint64_t addr)
{
  return &frame_of(s, addr)->f;
}

size_t symbolizer_lookups(const struct symbolizer *s)
{
  return s->lookups;
}

/* the frame of ADDR read from its object file up to LEVEL */
static const struct sym_frame *look_up(struct symbolizer *s, uint64_t addr,
                                       int level)
{
  struct frame *fr = frame_of(s, addr);
  if (fr->level >= level)
    return &fr->f;
  if (!fr->level)
    s->lookups++;
  struct module *m = fr->f.module ? find_module(s, addr) : NULL;
  if (m) {
    if (m->state == 0)
      open_module(m);
    fr->f.usable = m->state == 1;
    if (fr->f.usable && !fr->level)
      lookup_symbol(m, &fr->f);
    if (fr->f.usable && level == 2)
      lookup_lines(m, &fr->f);
  }
  fr->level = level;
  return &fr->f;
}

const struct sym_frame *symbolize(struct symbolizer *s, uint64_t addr)
{
  return look_up(s, addr, 2);
}

const struct sym_frame *symbolize_symbol(struct symbolizer *s, uint64_t addr)
{
  return look_up(s, addr, 1);
}
