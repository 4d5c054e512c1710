/* checks.h - the registry of finding kinds (checks.def) as data: an ID per
 * kind, and its name, severity, title, documentation reference and
 * explanation. */
#ifndef CL_REPORT_CHECKS_H
#define CL_REPORT_CHECKS_H

enum severity { SEV_NOTE = 0, SEV_WARNING = 1, SEV_ERROR = 2 };

enum check_id {
#define CHECK(id, kind, sev, title, ref, help) CHECK_##id,
#include "checks/checks.def"
#undef CHECK
  CHECK_COUNT
};

struct check_info {
  const char *kind;        /* stable, lowercase: "stream-race" */
  enum severity severity;  /* the kind's own */
  const char *title;       /* one line */
  const char *reference;   /* the documentation the rule rests on */
  const char *help;        /* the long text of --explain */
};

/* the entry of ID (ID < CHECK_COUNT) */
const struct check_info *check_info(enum check_id id);
/* the ID of a kind name, -1 when there is none */
int check_by_kind(const char *kind);

#endif
