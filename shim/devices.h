/* devices.h - the devices table (devices.c). */
#ifndef CUDALENS_SHIM_DEVICES_H
#define CUDALENS_SHIM_DEVICES_H

#include "shim.h"

void cl_device_describe(int ordinal) CL_HIDDEN;

#endif
