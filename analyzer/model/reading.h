/* reading.h - a recording's large tables read into memory at once, on two
 * threads where it can: the activity (activity.h) and the calls log that
 * every replay decodes (replay.h). */
#ifndef CL_REPORT_READING_H
#define CL_REPORT_READING_H

#include "model/activity.h"
#include "model/db.h"

/* DB's activity into *ACT (activity_free frees it), its calls log kept
 * with DB */
void recording_read(struct cl_db *db, struct activity *act);

#endif
