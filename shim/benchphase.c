/* benchphase.c - in-process pairing for bench/ (issue 25).  Wall times of
 * separate processes vary too much on the GPU machines to see 2% (blocks
 * of steps inside one process 7-10%, processes up to 30%), so a benchmark
 * compares adjacent blocks of steps inside one process instead: with
 * CUDALENS_BENCH_PHASES=1 it calls cudalens_bench_phase(-1) between blocks
 * (after a synchronization) and runs the next block in the phase returned:
 *   0 OFF    CUPTI detached (cuptiUnsubscribe, cuptiFinalize), as
 *            without the shim (CUPTI's own code stays loaded); ON and FLOOR
 *            attach again;
 *   1 FLOOR  the callbacks and activity kinds enabled, the handler
 *            returning at once: bench/cupti_floor.c's floor;
 *   2 ON     recording, as always.
 * Every three blocks hold each phase once, in an order that goes through
 * all six in turn, so that no phase always comes first or after the same
 * other; a phase 0-2 may also be asked for directly.  A recording made so
 * leaves out the calls of OFF and FLOOR blocks: its meta key bench_phases
 * says so, and its findings mean nothing.  Without the variable the
 * function changes nothing and returns -1: no program can turn recording
 * off by calling it.  bench/phases.sh reads the blocks' times. */
#include "capture.h"

static const unsigned char orders[6][3] = {
    {CL_BENCH_OFF, CL_BENCH_FLOOR, CL_BENCH_ON},
    {CL_BENCH_FLOOR, CL_BENCH_ON, CL_BENCH_OFF},
    {CL_BENCH_ON, CL_BENCH_OFF, CL_BENCH_FLOOR},
    {CL_BENCH_OFF, CL_BENCH_ON, CL_BENCH_FLOOR},
    {CL_BENCH_ON, CL_BENCH_FLOOR, CL_BENCH_OFF},
    {CL_BENCH_FLOOR, CL_BENCH_OFF, CL_BENCH_ON},
};

/* PHASE, or with -1 the next of the rotation; the phase set, or -1 */
CL_EXPORT int cudalens_bench_phase(int phase)
{
  static _Atomic unsigned blocks;
  if (!cl_cfg.bench_phases)
    return -1;
  if (phase < 0) {
    unsigned b = atomic_fetch_add(&blocks, 1);
    phase = orders[b / 3 % 6][b % 3];
  }
  return cl_capture_bench_phase(phase) ? -1 : phase;
}
