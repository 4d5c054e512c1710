/* ablate.h - an experiment's builds (bench/ladder.sh): built with
 * -DCUDALENS_ABLATE=MASK, the shim leaves out parts of what a recorded
 * call does, so that a benchmark can measure what each part costs the
 * program (bench/README.md, "Session 12").  Such a build records less
 * than cudalens must and is never a user's: without the flag,
 * CUDALENS_ABLATE is 0 and every test of it compiles away. */
#ifndef CUDALENS_SHIM_ABLATE_H
#define CUDALENS_SHIM_ABLATE_H

#ifndef CUDALENS_ABLATE
#define CUDALENS_ABLATE 0
#endif

enum {
  CL_ABLATE_SCAN = 1,   /* a launch's parameters not looked at (capture.c) */
  CL_ABLATE_LAYOUT = 2, /* the scan stops once it has the kernel's layout
                         * (kparams.c) */
  CL_ABLATE_WRITE = 4,  /* the writer drops call and activity records
                         * unwritten (writer.c) */
  CL_ABLATE_IMMEDIATE = 8, /* every launch's argument words resolved on
                            * the calling thread, none left for the writer
                            * (session 13's scan: kparams.c) */
};
#define CL_ABLATED(part) ((CUDALENS_ABLATE & (part)) != 0)

#endif
