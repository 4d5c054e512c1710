/* test_hb.c - unit tests of the race analysis's pieces on hand-written
 * sequences: the happens-before engine (analyzer/checks/hb_engine.h: streams,
 * events, host syncs, the legacy default stream, the models that leave out
 * implicit edges, threads, the shadow memory's point/range rules) and the
 * const-parameter parser (cudalens/mangle_const.h). */
#include <stdio.h>
#include <string.h>

#include "tests/unit/unit.h"
#include "checks/hb_engine.h"
#include "cudalens/mangle_const.h"

struct seen {
  int n;
  unsigned mask, handoff;
  int64_t prev_seq, cur_seq;
};

static void on_race(void *ud, const struct hb_access *prev,
                    const struct hb_access *cur, unsigned mask,
                    unsigned handoff)
{
  struct seen *s = ud;
  s->n++;
  s->mask = mask;
  s->handoff = handoff;
  s->prev_seq = prev->seq;
  s->cur_seq = cur->seq;
}

static int64_t next_seq;

/* an access of a kernel-argument pointer or a range, issued now */
static void acc(struct hb_engine *e, uint32_t thread, uint32_t stream,
                uint64_t lo, uint64_t len, int write, struct seen *s)
{
  struct hb_access a = {0};
  a.seq = ++next_seq;
  a.stack = -1;
  a.stream = stream;
  a.epoch = hb_issue(e, thread, stream);
  a.lo = lo;
  a.hi = lo + len;
  a.point = len == 0;
  a.write = (uint8_t)write;
  a.definite = 1;
  a.param = -1;
  hb_access(e, 0x1000, &a, on_race, s);
}

static void test_basic(void)
{
  struct hb_engine *e = hb_new();
  uint32_t t = hb_new_thread(e);
  uint32_t s1 = hb_new_stream(e, 0, 0), s2 = hb_new_stream(e, 0, 0);
  struct seen s = {0};
  /* write on s1, read on s2: race in every model */
  acc(e, t, s1, 0x1000, 0, 1, &s);
  acc(e, t, s2, 0x1000, 0, 0, &s);
  CHECK(s.n == 1 && s.mask == 0 && s.prev_seq == 1 && s.cur_seq == 2);
  /* two reads: no race */
  s.n = 0;
  acc(e, t, s1, 0x1000, 0, 0, &s);
  CHECK(s.n == 0);
  /* a write on s2 after its own read: races with s1's write and read */
  acc(e, t, s2, 0x1000, 0, 1, &s);
  CHECK(s.n == 2); /* its own earlier read is ordered; s1's write and read are not */
  /* a neighbouring pointer never conflicts */
  s.n = 0;
  acc(e, t, s1, 0x1008, 0, 1, &s);
  CHECK(s.n == 0);
  /* a range covering both pointers conflicts with both writes */
  acc(e, t, s1, 0x1000, 16, 0, &s);
  CHECK(s.n == 1); /* the s2 write at 0x1000; 0x1008 is on s1 */
  hb_free(e);
}

/* a node access on LANE at EPOCH (hb_lane_issue) */
static void node_acc(struct hb_engine *e, uint32_t lane, uint32_t epoch,
                     uint64_t lo, int write, struct seen *s)
{
  struct hb_access a = {0};
  a.seq = ++next_seq;
  a.stack = -1;
  a.stream = lane;
  a.epoch = epoch;
  a.lo = a.hi = lo;
  a.point = 1;
  a.write = (uint8_t)write;
  a.definite = 1;
  a.param = -1;
  hb_access(e, 0x1000, &a, on_race, s);
}

/* graph launches: nodes on lanes joined at the launch's start and end */
static void test_lanes(void)
{
  struct hb_engine *e = hb_new();
  uint32_t t = hb_new_thread(e);
  uint32_t s1 = hb_new_stream(e, 0, 0), s2 = hb_new_stream(e, 0, 0);
  uint32_t l0 = hb_new_stream(e, 0, 0), l1 = hb_new_stream(e, 0, 0);
  struct seen s = {0};
  acc(e, t, s1, 0x2000, 0, 1, &s); /* before the launch on s1 */
  hb_issue(e, t, s1);              /* the launch point */
  /* two nodes without an edge, both writing 0x1000: a race between lanes;
   * both after s1's earlier write to 0x2000 */
  uint32_t e0 = hb_lane_issue(e, l0, s1, NULL, 0);
  node_acc(e, l0, e0, 0x1000, 1, &s);
  node_acc(e, l0, e0, 0x2000, 1, &s);
  CHECK(s.n == 0);
  uint32_t e1 = hb_lane_issue(e, l1, s1, NULL, 0);
  node_acc(e, l1, e1, 0x1000, 1, &s);
  CHECK(s.n == 1);
  /* a third node after both (an edge from each): no race */
  s.n = 0;
  uint32_t preds[2] = {l0, l1};
  uint32_t e2 = hb_lane_issue(e, l0, s1, preds, 2);
  node_acc(e, l0, e2, 0x1000, 1, &s);
  CHECK(s.n == 0);
  /* s2 reads 0x1000 with nothing ordering it after the launch: race */
  hb_stream_join(e, s1, l0);
  hb_stream_join(e, s1, l1);
  acc(e, t, s2, 0x1000, 0, 0, &s);
  CHECK(s.n == 1);
  /* after an event recorded on s1 after the launch: ordered */
  s.n = 0;
  hb_event_record(e, 7, s1);
  hb_stream_wait_event(e, s2, 7);
  acc(e, t, s2, 0x1000, 0, 0, &s);
  CHECK(s.n == 0);
  hb_free(e);
}

static void test_events(void)
{
  struct hb_engine *e = hb_new();
  uint32_t t = hb_new_thread(e);
  uint32_t s1 = hb_new_stream(e, 0, 0), s2 = hb_new_stream(e, 0, 0);
  struct seen s = {0};
  hb_issue(e, t, s1);
  hb_event_record(e, 7, s1); /* recorded too early */
  acc(e, t, s1, 0x1000, 0, 1, &s);
  hb_stream_wait_event(e, s2, 7);
  acc(e, t, s2, 0x1000, 0, 0, &s);
  CHECK(s.n == 1);
  /* recorded again after the write: the wait uses the latest record */
  s.n = 0;
  acc(e, t, s1, 0x1000, 0, 1, &s);
  CHECK(s.n == 1); /* write-after-read of s2 */
  s.n = 0;
  hb_event_record(e, 7, s1);
  hb_stream_wait_event(e, s2, 7);
  acc(e, t, s2, 0x1000, 0, 0, &s);
  CHECK(s.n == 0);
  /* a wait for an event never recorded orders nothing */
  hb_event_reset(e, 7);
  acc(e, t, s1, 0x2000, 0, 1, &s);
  hb_stream_wait_event(e, s2, 7);
  acc(e, t, s2, 0x2000, 0, 1, &s);
  CHECK(s.n == 1);
  hb_free(e);
}

static void test_host(void)
{
  struct hb_engine *e = hb_new();
  uint32_t a = hb_new_thread(e), b = hb_new_thread(e);
  uint32_t s1 = hb_new_stream(e, 0, 0), s2 = hb_new_stream(e, 0, 0);
  uint32_t s3 = hb_new_stream(e, 1, 0);
  struct seen s = {0};
  acc(e, a, s1, 0x1000, 0, 1, &s);
  hb_host_wait_stream(e, a, s1, HB_EDGE_ALWAYS);
  acc(e, a, s2, 0x1000, 0, 1, &s);
  CHECK(s.n == 0);
  /* thread b did not synchronize: its work is not ordered */
  acc(e, b, s1, 0x3000, 0, 1, &s);
  acc(e, b, s3, 0x1000, 0, 1, &s);
  CHECK(s.n == 1);
  /* ... until it learns what a knows */
  s.n = 0;
  hb_host_wait_device(e, a, 0, HB_EDGE_ALWAYS);
  hb_thread_join(e, b, a);
  acc(e, b, s3, 0x3000, 0, 1, &s);
  CHECK(s.n == 0);
  /* device sync covers only that device */
  acc(e, a, s3, 0x4000, 0, 1, &s);
  hb_host_wait_device(e, a, 0, HB_EDGE_ALWAYS);
  acc(e, a, s1, 0x4000, 0, 1, &s);
  CHECK(s.n == 1);
  hb_free(e);
}

static void test_models(void)
{
  struct hb_engine *e = hb_new();
  uint32_t t = hb_new_thread(e);
  uint32_t legacy = hb_new_stream(e, 0, HB_STREAM_LEGACY);
  uint32_t blk = hb_new_stream(e, 0, HB_STREAM_BLOCKING);
  uint32_t nb = hb_new_stream(e, 0, 0);
  uint32_t other = hb_new_stream(e, 1, HB_STREAM_BLOCKING);
  struct seen s = {0};
  /* legacy -> blocking: ordered only through the legacy edge */
  acc(e, t, legacy, 0x1000, 0, 1, &s);
  acc(e, t, blk, 0x1000, 0, 0, &s);
  CHECK(s.n == 1);
  CHECK(s.mask == (1u << 0 | 1u << HB_EDGE_UNPROMISED));
  /* blocking -> legacy likewise */
  s.n = 0;
  acc(e, t, legacy, 0x1000, 0, 1, &s);
  CHECK(s.n == 1 && (s.mask & 1u));
  /* non-blocking: not ordered at all */
  s.n = 0;
  acc(e, t, nb, 0x1000, 0, 0, &s);
  CHECK(s.n == 1 && s.mask == 0);
  /* another device's blocking stream is not ordered with this legacy one */
  s.n = 0;
  acc(e, t, other, 0x1000, 0, 0, &s);
  CHECK(s.n == 1 && s.mask == 0);
  /* a pageable-copy edge: ordered except in the models without it */
  s.n = 0;
  acc(e, t, nb, 0x5000, 0, 1, &s);
  hb_host_wait_stream(e, t, nb, HB_EDGE_UNPROMISED);
  acc(e, t, other, 0x5000, 0, 1, &s);
  CHECK(s.n == 1);
  CHECK(s.mask == (1u << 0 | 1u << HB_EDGE_LEGACY));
  hb_free(e);
}

static void test_barrier(void)
{
  struct hb_engine *e = hb_new();
  uint32_t t = hb_new_thread(e);
  uint32_t a = hb_new_stream(e, 0, 0), b = hb_new_stream(e, 1, 0);
  uint32_t c = hb_new_stream(e, 1, 0);
  struct seen s = {0};
  acc(e, t, a, 0x1000, 0, 1, &s);
  hb_stream_wait_device(e, b, 0);
  acc(e, t, b, 0x1000, 0, 1, &s);
  hb_device_barrier(e, 1, b);
  acc(e, t, c, 0x1000, 0, 1, &s);
  CHECK(s.n == 0);
  hb_free(e);
}

/* threads: no ordering is assumed between them; a pair one thread knew
 * finished before the other issued its access is a possible handoff */
static void test_threads(void)
{
  struct hb_engine *e = hb_new();
  uint32_t a = hb_new_thread(e), b = hb_new_thread(e);
  uint32_t sa = hb_new_stream(e, 0, 0), sb = hb_new_stream(e, 0, 0);
  struct seen s = {0};
  acc(e, a, sa, 0x1000, 0, 1, &s);
  acc(e, b, sb, 0x1000, 0, 0, &s); /* nobody knew: no handoff possible */
  CHECK(s.n == 1 && s.mask == 0 && s.handoff == 0);
  hb_host_wait_stream(e, a, sa, HB_EDGE_ALWAYS);
  acc(e, b, sb, 0x1000, 0, 1, &s); /* a knew: a handoff may order it */
  CHECK(s.n == 2 && s.mask == 0 && (s.handoff & 1u));
  /* a join makes it ordered */
  uint32_t c = hb_new_thread(e);
  hb_thread_join(e, c, a);
  s.n = 0;
  acc(e, c, hb_new_stream(e, 0, 0), 0x1000, 0, 0, &s);
  CHECK(s.n == 1 && s.prev_seq == next_seq - 1); /* races only b's write */
  hb_free(e);
}

/* a host access (the source of a blocking pageable copy) is ordered before
 * the work its thread issues later, and after the work it knew finished */
static void test_host_issue(void)
{
  struct hb_engine *e = hb_new();
  uint32_t t = hb_new_thread(e), s1 = hb_new_stream(e, 0, 0);
  struct seen s = {0};
  struct hb_access h = {.seq = ++next_seq, .stack = -1, .lo = 0x1000,
                        .hi = 0x1100, .definite = 1, .param = -1};
  h.epoch = hb_host_issue(e, t, &h.stream);
  CHECK(h.stream != s1);
  hb_access(e, 0x1000, &h, on_race, &s);
  acc(e, t, s1, 0x1000, 0x100, 1, &s); /* later stream write: ordered */
  CHECK(s.n == 0);
  uint32_t u = hb_new_thread(e);
  acc(e, u, hb_new_stream(e, 0, 0), 0x1000, 0x100, 1, &s);
  CHECK(s.n == 1);
  hb_free(e);
}

static void test_mangle(void)
{
  enum param_class c[8];
  CHECK(mangle_param_classes("_Z5saxpyPfPKfif", c, 8) == 4);
  CHECK(c[0] == PARAM_PTR && c[1] == PARAM_PTR_CONST && c[2] == PARAM_OTHER &&
        c[3] == PARAM_OTHER);
  CHECK(mangle_param_classes("_Z5saxpyifPKfPf", c, 8) == 4);
  CHECK(c[2] == PARAM_PTR_CONST && c[3] == PARAM_PTR);
  /* template function: return type first; T_ and substitutions */
  CHECK(mangle_param_classes("_ZN4util9reduce_opILi256EEEvPKfPfi", c, 8) == 3);
  CHECK(c[0] == PARAM_PTR_CONST && c[1] == PARAM_PTR && c[2] == PARAM_OTHER);
  CHECK(mangle_param_classes("_Z6kernelIfEvPT_PKS0_i", c, 8) == 3);
  CHECK(c[0] == PARAM_PTR && c[1] == PARAM_PTR_CONST && c[2] == PARAM_OTHER);
  /* S0_ standing for a pointer to const */
  CHECK(mangle_param_classes("_Z3addPKfS0_Pf", c, 8) == 3);
  CHECK(c[0] == PARAM_PTR_CONST && c[1] == PARAM_PTR_CONST && c[2] == PARAM_PTR);
  /* by-value struct and no parameters */
  CHECK(mangle_param_classes("_Z9copy_pair4Pairi", c, 8) == 2);
  CHECK(c[0] == PARAM_OTHER);
  CHECK(mangle_param_classes("_Z4noopv", c, 8) == 0);
  /* template argument that is const: T_ = const float */
  CHECK(mangle_param_classes("_Z1kIKfEvPT_", c, 8) == 1);
  CHECK(c[0] == PARAM_PTR_CONST);
  /* namespaces, std:: names, pointer to pointer */
  CHECK(mangle_param_classes("_ZN2ns1kEPPfPK1AS4_", c, 8) == 3);
  CHECK(c[0] == PARAM_PTR && c[1] == PARAM_PTR_CONST && c[2] == PARAM_PTR_CONST);
  /* not mangled, or not understood */
  CHECK(mangle_param_classes("vector_add", c, 8) == -1);
  CHECK(mangle_param_classes("_Z", c, 8) == 0 ||
        mangle_param_classes("_Z", c, 8) == -1);
}

/* a host function (find_races.c: an event recorded at its enqueueing, waited
 * for by the thread that runs it): that thread knows the stream's work
 * before it, and others only through it (a handoff) */
static void test_host_function(void)
{
  struct hb_engine *e = hb_new();
  uint32_t main_t = hb_new_thread(e), cb = hb_new_thread(e);
  uint32_t s1 = hb_new_stream(e, 0, 0), s2 = hb_new_stream(e, 0, 0);
  uint32_t s3 = hb_new_stream(e, 0, 0);
  struct seen s = {0};
  acc(e, main_t, s1, 0x1000, 0, 1, &s); /* the write, epoch 1 of s1 */
  hb_issue(e, main_t, s1);              /* the host function */
  hb_event_record(e, 1ull << 63, s1);
  CHECK(hb_thread_knows(e, cb, s1, 1) == 0);
  hb_host_wait_event(e, cb, 1ull << 63); /* it runs */
  CHECK(hb_thread_knows(e, cb, s1, 1) == HB_ALL_MODELS);
  CHECK(hb_thread_knows(e, main_t, s1, 1) == 0);
  /* the main thread reuses the buffer on s2: unordered, but a handoff
   * from the host function's thread would order it */
  acc(e, main_t, s2, 0x1000, 0, 1, &s);
  CHECK(s.n == 1);
  CHECK(s.mask == 0);
  CHECK(s.handoff == HB_ALL_MODELS);
  /* work the host function's thread orders itself is ordered */
  s.n = 0;
  acc(e, main_t, s1, 0x2000, 0, 1, &s);
  hb_issue(e, main_t, s1);
  hb_event_record(e, (1ull << 63) | 2, s1);
  hb_host_wait_event(e, cb, (1ull << 63) | 2);
  acc(e, cb, s3, 0x2000, 0, 1, &s);
  CHECK(s.n == 0);
  hb_free(e);
}

int main(void)
{
  test_basic();
  test_lanes();
  test_events();
  test_host();
  test_models();
  test_threads();
  test_host_issue();
  test_host_function();
  test_barrier();
  test_mangle();
  if (!unit_failures)
    printf("test_hb: ok\n");
  UNIT_DONE();
}
