/* demangle.h - C++ (Itanium ABI) name demangling for kernel and function
 * names, through libstdc++'s __cxa_demangle. */
#ifndef CL_REPORT_DEMANGLE_H
#define CL_REPORT_DEMANGLE_H

/* malloc'd demangled NAME, or a malloc'd copy of NAME when it is not a
 * mangled C++ name (or fails to demangle); NULL stays NULL */
char *cl_demangle(const char *name);

/* A demangled kernel's name as a finding's first line shows it (malloc'd),
 * shortened the way compilers shorten types in diagnostics: without its
 * return type and its parameters, and with the template arguments of its
 * template arguments elided ("<...>"):
 *   "void at::native::vectorized_elementwise_kernel<4,
 *    at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, ...)"
 *   -> "at::native::vectorized_elementwise_kernel<4,
 *       at::native::FillFunctor<...>, std::array<...> >"
 * When that is still longer than 100 characters, its own template
 * arguments are elided too ("ns::kernel<...>").  The notes of a finding
 * keep the whole name.  NULL gives "(unnamed)". */
char *cl_kernel_brief(const char *demangled);

/* How findings name the kernel's parameter INDEX (from 0, as recorded):
 * counted from 1, with its type when the demangled name DEMANGLED (may be
 * NULL) has it: "argument 2, float const*", else "argument 2" (malloc'd).
 * Every finding names arguments this way. */
char *cl_kernel_argument(const char *demangled, int index);

#endif
