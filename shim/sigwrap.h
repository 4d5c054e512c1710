/* sigwrap.h - the signal functions the shim wraps (sigwrap.c): the shim's own
 * SIGSEGV and SIGTRAP first, whatever the program installs. */
#ifndef CUDALENS_SHIM_SIGWRAP_H
#define CUDALENS_SHIM_SIGWRAP_H

#include <signal.h>

#include "shim.h"

/* SIGSEGV goes to handler first (nonzero: it was the shim's own fault),
 * whatever the program installs; 0 on success */
int cl_sigwrap_install(int (*handler)(int, siginfo_t *, void *)) CL_HIDDEN;
/* SIGSEGV the shim's again if the program set an action behind the
 * wrappers (raw system call): its handler becomes its view */
void cl_sigwrap_reclaim(void) CL_HIDDEN;
/* SIGTRAP too goes to handler first (the host check's single steps), then
 * to what the program installed; 0 on success */
int cl_sigwrap_install_trap(int (*handler)(int, siginfo_t *, void *))
    CL_HIDDEN;
/* While the program leaves sig to the default action, flush(sig) runs
 * before it; 0 when sig was taken */
int cl_sigwrap_flush_on(int sig, void (*flush)(int)) CL_HIDDEN;
void cl_sigwrap_atfork_prepare(void) CL_HIDDEN;
void cl_sigwrap_atfork_parent(void) CL_HIDDEN;
void cl_sigwrap_atfork_child(void) CL_HIDDEN;

#endif
