/* findings.h - what the analyses found: a list of findings, each with a
 * kind, a severity, a message, the user's source location, related
 * locations, how often it happened, and extra named numbers.  Analyses
 * append with findings_add(); the report sorts them (severity, then
 * place) and prints them in text, JSON, SARIF or GitHub's format. */
#ifndef CL_REPORT_FINDINGS_H
#define CL_REPORT_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "checks/checks.h"
#include "sites/location.h"

const char *severity_name(enum severity s);
/* parse "error" / "warning" / "note"; -1 when unknown */
int severity_parse(const char *s);

/* a note of a finding: a related place ("the memory was allocated
 * here"), or a detail of the finding itself (finding_add_detail), which
 * may have no place and which the fingerprint leaves out */
struct related {
  char *message;
  struct location loc;
  int detail;
};

struct extra {
  char *name;       /* JSON key of the number */
  int64_t value;
  int is_flag;      /* a yes/no (value 0 or 1): a JSON boolean */
};

#define FINDING_MAX_OPS 2

struct finding {
  enum check_id check;
  char *kind;        /* the registry's name of it, e.g. "pageable-async-copy" */
  enum severity severity;
  char *message;
  struct location loc;
  struct related *related;
  size_t nrelated, cap_related;
  uint64_t count;    /* occurrences folded into this finding (>= 1) */
  int64_t cost_ns;   /* time it costs or risks; 0 if unknown */
  struct extra *extra;
  size_t nextra, cap_extra;
  char *fix;         /* one-line fix suggestion, NULL if none */
  char **kernels;    /* the kernels it involves, demangled, for
                        suppressions (kernel=GLOB); not printed */
  size_t nkernels, cap_kernels;
  /* the recording's rows it is about (finding_add_op): calls.seq of an
   * operation, host_accesses.seq of a host access (one sequence numbers
   * both); a race's earlier and later access, a host finding's copy and
   * host access.  For the timeline outputs; one occurrence of a folded
   * finding (the first). */
  int64_t ops[FINDING_MAX_OPS];
  size_t nops;
  char fingerprint[17]; /* findings_fingerprint: 16 hex digits */
  /* a report of several recordings (merge.c): the processes it was found
   * in, as indices into the report's processes (ascending), and their
   * label, "processes 1234, 1240" or "ranks 0-7"; none for one recording */
  size_t *origins;
  size_t norigins, cap_origins;
  char *origin_label;
};

struct findings {
  struct finding *v;
  size_t n, cap;
};

void findings_init(struct findings *fs);
void findings_free(struct findings *fs);
/* free what the finding holds (the finding itself is not freed) */
void finding_clear(struct finding *f);

/* Append a finding of the registry's kind CHECK (checks.def), with its
 * severity (count 1, cost 0); LOC is copied (may be NULL).  The returned
 * pointer is valid until the next findings_add. */
struct finding *findings_add(struct findings *fs, enum check_id check,
                             const struct location *loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* lower the finding's severity below its kind's (never raises it) */
void finding_lower_severity(struct finding *f, enum severity sev);

/* The severity rule of the transfer findings (sync-copy,
 * pageable-async-copy, sync-memset, repeated-pinning; cudalens-report(1),
 * SEVERITY): a warning is a note when what it costs (cost_ns) is under
 * COST_NOTE_NS and under COST_NOTE_PERMILLE of the process's wall time
 * WALL_NS (unknown, 0: never by cost), or when SETUP: all its occurrences
 * came before the process's first kernel launch (setup code, run once,
 * not a loop; the message then says so and the JSON flag "setup" is
 * set).  Errors are never lowered. */
#define COST_NOTE_NS 10000000 /* 10 ms */
#define COST_NOTE_PERMILLE 10 /* 1% */
void finding_cost_severity(struct finding *f, int64_t wall_ns, int setup);
/* the kinds the rule applies to, and the rule in words (--explain) */
int check_cost_rated(enum check_id check);
extern const char cost_rule_text[];
void finding_add_related(struct finding *f, const struct location *loc,
                         const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* a detail of the finding as a note: what its short message leaves out
 * (an operation in full, its numbers).  LOC may be NULL (a note without a
 * place: "  note: ..." in text); details do not count in the fingerprint,
 * so they may change without changing it. */
void finding_add_detail(struct finding *f, const struct location *loc,
                        const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void finding_set_extra(struct finding *f, const char *name, int64_t value);
/* a yes/no extra (JSON true/false) */
void finding_set_flag(struct finding *f, const char *name, int value);
/* a row the finding is about (struct finding's ops; ignored beyond
 * FINDING_MAX_OPS) */
void finding_add_op(struct finding *f, int64_t seq);
/* the one-line fix suggestion (replaces an earlier one) */
void finding_set_fix(struct finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* name a kernel the finding involves (demangled; once each) */
void finding_add_kernel(struct finding *f, const char *name);

/* severity (error first), then file (findings without one last), line,
 * kind and message: the same findings always come in the same order (the
 * cost, which varies between runs, is not a key) */
void findings_sort(struct findings *fs);
/* ROOT as an absolute path in normal form (relative to the working
 * directory when it is relative; no "." or ".." components, no repeated or
 * final '/'), compared as text: symbolic links are not resolved, since the
 * recording's paths come from the machine it was made on.  malloc'd; NULL
 * when the working directory is unknown. */
char *source_root_normalize(const char *root);
/* Make the files and objects of every location (and related location)
 * that lie under ROOT (normalized) relative to it: "ROOT/src/a.cu" becomes
 * "src/a.cu".  Sort and fingerprint again afterwards. */
void findings_relative_to(struct findings *fs, const char *root);
/* FN(location, ARG) for the location of every finding, then for those of
 * its related notes, in order */
void findings_each_location(struct findings *fs,
                            void (*fn)(struct location *, void *), void *arg);
/* Give every finding its fingerprint: 16 hex digits of the 64-bit FNV-1a
 * hash of its kind and of the user's places it names (its location, then
 * its related locations but not its details, in order): for each, the file (its basename when
 * the path is absolute, else the path as shown, which --source-root makes
 * relative to the root), the line and the function; the module's basename
 * for a place without a file.  Messages, counts, addresses, offsets, pids
 * and call numbers are left out, so the fingerprint is the same across
 * runs and machines; findings of one kind at the same places share it. */
void findings_fingerprint(struct findings *fs);
/* highest severity present, or -1 when the list is empty */
int findings_max_severity(const struct findings *fs);

#endif
