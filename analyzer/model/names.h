/* names.h - the strings table read through one accessor: a string by id
 * (kernel names, Python stacks, graph node kernels) and a kernel's name,
 * mangled as recorded and demangled.  Each id is read from the recording,
 * and each kernel name demangled, once per connection; the results live
 * until db_close. */
#ifndef CL_REPORT_NAMES_H
#define CL_REPORT_NAMES_H

#include <stdint.h>

#include "model/db.h"

/* strings.value of ID as text; NULL when there is no such row (or its
 * value is NULL) */
const char *names_string(struct cl_db *d, int64_t id);

struct kernel_name {
  const char *mangled;   /* strings.value, NULL when unknown */
  const char *demangled; /* cl_demangle(mangled), NULL when unknown */
};
/* the kernel whose name is strings id ID (calls' kernels.name,
 * graph_nodes.kernel) */
struct kernel_name names_kernel(struct cl_db *d, int64_t id);

/* free the cache of D (db_close) */
void names_free(struct cl_db *d);

#endif
