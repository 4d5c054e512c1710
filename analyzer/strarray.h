/* strarray.h - reading a JSON array of strings (meta.cmdline) into a
 * string vector; the analyzer's only JSON input. */
#ifndef CL_REPORT_STRARRAY_H
#define CL_REPORT_STRARRAY_H

#include <stddef.h>

/* Parse TEXT (e.g. ["./app","-n","3"]) into *V / *N (malloc'd strings).
 * Returns 0, or -1 when TEXT is not an array of strings (nothing set). */
int strarray_parse_json(const char *text, char ***v, size_t *n);
void strarray_free(char **v, size_t n);

#endif
