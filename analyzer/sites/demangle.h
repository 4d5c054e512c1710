/* demangle.h - C++ (Itanium ABI) name demangling for kernel and function
 * names, through libstdc++'s __cxa_demangle. */
#ifndef CL_REPORT_DEMANGLE_H
#define CL_REPORT_DEMANGLE_H

/* malloc'd demangled NAME, or a malloc'd copy of NAME when it is not a
 * mangled C++ name (or fails to demangle); NULL stays NULL */
char *cl_demangle(const char *name);

#endif
