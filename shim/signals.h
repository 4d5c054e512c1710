/* signals.h - the recording written out on the signals that end the
 * process (signals.c). */
#ifndef CUDALENS_SHIM_SIGNALS_H
#define CUDALENS_SHIM_SIGNALS_H

#include "shim.h"

void cl_signals_install(void) CL_HIDDEN;

#endif
