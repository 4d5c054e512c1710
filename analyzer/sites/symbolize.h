/* symbolize.h - turning return addresses of a recording into module,
 * function and file:line, offline, from the loaded-object list of the
 * recording (its modules table, read by model/stacks.c) and the object
 * files (and their debug info) on this machine, through elfutils libdwfl.
 * Results are cached per address. */
#ifndef CL_REPORT_SYMBOLIZE_H
#define CL_REPORT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_frame {
  uint64_t address;     /* as recorded (a return address) */
  const char *module;   /* path from the modules table, NULL if none */
  uint64_t offset;      /* address - module bias */
  bool usable;          /* the module file exists and matches (build id) */
  const char *function; /* demangled symbol, NULL if none */
  const char *file;     /* source file, NULL if no line info */
  int line;
  /* where the code at file:line was inlined into `function` (the call site
   * of the outermost inlined function); NULL / 0 when not inlined */
  const char *outer_file;
  int outer_line;
};

/* a loaded object as the recording lists it (a row of its modules table) */
struct sym_module {
  const char *path;
  uint64_t start, end; /* the addresses it was loaded at, [start, end) */
  uint64_t bias;       /* its load bias */
  const char *build_id; /* hex; NULL or "" when unknown */
};

struct symbolizer;

/* a symbolizer over the objects MODS[0..N) (copied), in the order they
 * were loaded (where ranges overlap, the latest loaded holds an address) */
struct symbolizer *symbolizer_new(const struct sym_module *mods, size_t n);
void symbolizer_free(struct symbolizer *s);
/* the frame for ADDR; the pointer and strings live as long as S */
const struct sym_frame *symbolize(struct symbolizer *s, uint64_t addr);
/* the frame for ADDR with only address, module and offset filled in: the
 * object file is not read (a lookup in a large library's symbol table
 * costs milliseconds); symbolize() of the same address fills in the rest
 * of the same frame */
const struct sym_frame *symbolize_module_only(struct symbolizer *s,
                                              uint64_t addr);
/* the frame for ADDR with its function from the symbol table alone: the
 * DWARF (line tables, debug info) is not read, file and outer_file stay
 * NULL unless symbolize() filled them in before */
const struct sym_frame *symbolize_symbol(struct symbolizer *s, uint64_t addr);
/* how many addresses were looked up in their object files so far */
size_t symbolizer_lookups(const struct symbolizer *s);

#endif
