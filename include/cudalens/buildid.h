/* buildid.h - the GNU build id of a loaded object, as the recording keeps
 * it (lowercase hex, at most 20 bytes): shared by the shim's module list
 * and bench/gen_recording. */
#ifndef CUDALENS_BUILDID_H
#define CUDALENS_BUILDID_H

#include <link.h>

/* the NT_GNU_BUILD_ID note of the object INFO describes, as hex into OUT
 * (at least 41 bytes); "" when it has none */
void cl_build_id(const struct dl_phdr_info *info, char *out);

#endif
