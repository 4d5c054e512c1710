/* stacks.h - the call-site resolver of a recording (sites/callsite.h) fed
 * from it: the loaded objects of its modules table, the return addresses
 * of its stacks, its Python stacks (strings, names.h) and the stacks of
 * its calls, read here (sites/ sees no SQL). */
#ifndef CL_REPORT_STACKS_H
#define CL_REPORT_STACKS_H

#include "model/db.h"
#include "sites/callsite.h"

/* a resolver over D, which must outlive it (callsites_free) */
struct callsites *stacks_callsites(struct cl_db *d);

#endif
