/* test_callsite.c - unit test of the call-site resolver (analyzer/
 * callsite.c, symbolize.c): captures its own return addresses, describes
 * its loaded objects with the recorder's own scan (cl_modules_scan) in an
 * in-memory recording, and checks that the user's frame is chosen and
 * symbolized to function and file:line; also the vendor rules, the
 * fallbacks for a missing or changed module, that a framework library's
 * frames are looked up in its file only when shown, and demangling. */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudalens/format.h"
#include "output/output.h"
#include "shim/modules.h" /* cl_modules_scan: the recorder's list of loaded objects */
#include "sites/callsite.h"
#include "sites/demangle.h"
#include "tests/unit/analyzer/resolver.h"
#include "tests/unit/unit.h" /* CHECK */

/* ---- the "program": user code calling a cuda-named function ----------- */
struct cap {
  void *in_cuda; /* a return address inside cudaFakeLaunch */
  void *in_user; /* the return address of cudaFakeLaunch, in user_site */
};

__attribute__((noinline, noclone)) static void *get_ra(void)
{
  void *r = __builtin_return_address(0);
  __asm__ volatile("" : : "r"(r) : "memory");
  return r;
}

/* stands for a statically linked cudart entry point inside the program */
__attribute__((noinline, noclone)) void cudaFakeLaunch(struct cap *c)
{
  c->in_cuda = get_ra();
  c->in_user = __builtin_return_address(0);
  __asm__ volatile("" : : "r"(c) : "memory");
}

__attribute__((noinline, noclone)) static int user_site(struct cap *c)
{
  int line = __LINE__; cudaFakeLaunch(c); /* the call site */
  __asm__ volatile("" : : "r"(c) : "memory");
  return line;
}

/* ---- the modules table, as the recorder writes it (its own scan) ------- */
static void write_modules(sqlite3 *db, int corrupt_exe_build_id)
{
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  struct cl_module *mods;
  int count = cl_modules_scan(&mods);
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db,
                     "INSERT INTO modules(path,start,end,bias,build_id)"
                     " VALUES(?,?,?,?,?)", -1, &st, NULL);
  for (int i = 0; i < count; i++) {
    const struct cl_module *m = &mods[i];
    const char *bid = m->build_id;
    if (corrupt_exe_build_id && !strcmp(m->path, exe))
      bid = "00112233445566778899aabbccddeeff00112233";
    sqlite3_bind_text(st, 1, m->path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, (int64_t)m->start);
    sqlite3_bind_int64(st, 3, (int64_t)m->end);
    sqlite3_bind_int64(st, 4, (int64_t)m->bias);
    if (bid[0])
      sqlite3_bind_text(st, 5, bid, -1, SQLITE_TRANSIENT);
    else
      sqlite3_bind_null(st, 5);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  cl_modules_free(mods, count);
}

static sqlite3 *make_db(int corrupt)
{
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  if (sqlite3_exec(db, CL_SCHEMA_SQL, NULL, NULL, NULL) != SQLITE_OK) {
    fprintf(stderr, "schema: %s\n", sqlite3_errmsg(db));
    exit(1);
  }
  write_modules(db, corrupt);
  /* objects that are gone: a vendor library and a user library */
  sqlite3_exec(db,
               "INSERT INTO modules(path,start,end,bias) VALUES"
               " ('/nonexistent/cuda/lib64/libcudart.so.13',4096,8192,4096),"
               " ('/nonexistent/lib/libapp.so',12288,16384,12288)",
               NULL, NULL, NULL);
  return db;
}

static void add_stack(sqlite3 *db, int id, const uint64_t *frames, int n)
{
  unsigned char blob[64 * 8];
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 8; k++)
      blob[i * 8 + k] = (unsigned char)(frames[i] >> (8 * k));
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "INSERT INTO stacks(id,frames) VALUES(?,?)", -1, &st,
                     NULL);
  sqlite3_bind_int(st, 1, id);
  sqlite3_bind_blob(st, 2, blob, n * 8, SQLITE_TRANSIENT);
  sqlite3_step(st);
  sqlite3_finalize(st);
}

static const char *base(const char *p)
{
  const char *s = p ? strrchr(p, '/') : NULL;
  return s ? s + 1 : p ? p : "(null)";
}

int main(void)
{
  struct cl_db rec;
  struct cap c;
  int line = user_site(&c);
  uint64_t in_cuda = (uint64_t)(uintptr_t)c.in_cuda;
  uint64_t in_user = (uint64_t)(uintptr_t)c.in_user;
  uint64_t in_main = (uint64_t)(uintptr_t)__builtin_return_address(0);

  /* 1: vendor frame, cudart-in-program frame, user frame, caller */
  sqlite3 *db = make_db(0);
  uint64_t s1[] = {4096 + 0x123, in_cuda, in_user, in_main};
  add_stack(db, 1, s1, 4);
  uint64_t s2[] = {4096 + 0x10, in_cuda};
  add_stack(db, 2, s2, 2);
  uint64_t s4[] = {4096 + 0x10, 12288 + 0x456};
  add_stack(db, 4, s4, 2);

  struct callsites *cs = resolver(&rec, db);
  struct callsite site;
  CHECK(callsite_resolve(cs, 1, &site) == 0, "no user frame found");
  CHECK(site.frame == 2, "frame %d", site.frame);
  CHECK(site.function && strcmp(site.function, "user_site") == 0,
        "function %s", site.function ? site.function : "(null)");
  CHECK(site.file && strcmp(base(site.file), "test_callsite.c") == 0,
        "file %s", site.file ? site.file : "(null)");
  CHECK(site.line == line, "line %d, want %d", site.line, line);
  /* cached: the same answer again */
  struct callsite again;
  callsite_resolve(cs, 1, &again);
  CHECK(again.line == site.line && again.frame == site.frame, "cache");

  /* the whole stack is there, symbolized */
  size_t n;
  const struct sym_frame *const *fr = callsite_stack(cs, 1, &n);
  CHECK(n == 4, "stack has %zu frames", n);
  if (n == 4) {
    CHECK(fr[1]->function && strcmp(fr[1]->function, "cudaFakeLaunch") == 0,
          "frame 1 is %s", fr[1]->function ? fr[1]->function : "(null)");
    CHECK(fr[0]->module && !fr[0]->usable, "vendor module is gone");
    CHECK(fr[1]->file != NULL, "cudaFakeLaunch has no line");
  }

  /* 2: only cudart frames: no user frame */
  CHECK(callsite_resolve(cs, 2, &site) == -1 && site.frame == -1,
        "stack 2 resolved to frame %d", site.frame);
  /* 3: no such stack */
  CHECK(callsite_resolve(cs, 99, &site) == -1, "missing stack resolved");

  /* 4: a user library that is gone: module+offset */
  CHECK(callsite_resolve(cs, 4, &site) == 0, "gone library not chosen");
  struct location loc = callsite_location(&site);
  char buf[256];
  location_text(buf, sizeof buf, &loc);
  CHECK(strcmp(buf, "libapp.so+0x456") == 0, "location %s", buf);
  CHECK(!site.function && !site.file, "gone library has names");
  callsites_free(cs);
  db_close(&rec);

  /* 5: the program changed since the recording (build id differs) */
  db = make_db(1);
  add_stack(db, 1, s1, 4);
  cs = resolver(&rec, db);
  CHECK(callsite_resolve(cs, 1, &site) == 0, "changed program: no frame");
  CHECK(!site.file && !site.function, "changed program still symbolized");
  CHECK(site.frame == 1, "changed program: frame %d", site.frame);
  char exe[4096];
  ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[el > 0 ? el : 0] = 0;
  CHECK(site.module && strcmp(site.module, exe) == 0, "module %s",
        site.module ? site.module : "(null)");
  callsites_free(cs);
  db_close(&rec);

  /* 6: a framework library's frames are not looked up in its file unless
   * shown: the program's own file, as if loaded a second time at another
   * address under a framework's name (a link named libtorch_cuda.so) */
  char dir[] = "/tmp/test_callsite.XXXXXX", lib[sizeof dir + 32];
  if (mkdtemp(dir)) {
    snprintf(lib, sizeof lib, "%s/libtorch_cuda.so", dir);
    CHECK(symlink(exe, lib) == 0, "symlink %s", lib);
    db = make_db(0);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "SELECT start, end, bias, build_id FROM modules"
                           " WHERE path = ?", -1, &st, NULL);
    sqlite3_bind_text(st, 1, exe, -1, SQLITE_TRANSIENT);
    CHECK(sqlite3_step(st) == SQLITE_ROW, "no module row for %s", exe);
    uint64_t start = (uint64_t)sqlite3_column_int64(st, 0);
    uint64_t end = (uint64_t)sqlite3_column_int64(st, 1);
    uint64_t bias = (uint64_t)sqlite3_column_int64(st, 2);
    char bid[64];
    snprintf(bid, sizeof bid, "%s",
             sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
    sqlite3_finalize(st);
    uint64_t fw = 0x7e0000000000; /* the framework's load bias */
    char sql[1024];
    snprintf(sql, sizeof sql,
             "INSERT INTO modules(path,start,end,bias,build_id) VALUES"
             " ('%s',%lld,%lld,%lld,NULLIF('%s',''))", lib,
             (long long)(fw + start - bias), (long long)(fw + end - bias),
             (long long)fw, bid);
    sqlite3_exec(db, sql, NULL, NULL, NULL);
    uint64_t s6[] = {fw + in_cuda - bias, fw + in_main - bias, in_user,
                     in_main};
    add_stack(db, 6, s6, 4);
    cs = resolver(&rec, db);
    CHECK(callsite_resolve(cs, 6, &site) == 0 && site.frame == 2,
          "framework stack: frame %d", site.frame);
    CHECK(site.line == line, "framework stack: line %d", site.line);
    CHECK(callsite_symbolized(cs) == 1, "%zu frames looked up, want 1",
          callsite_symbolized(cs));
    CHECK(callsite_issuing_library(cs, 6) == NULL, "issuing library");
    CHECK(callsite_symbolized(cs) == 1, "issuing library looked up frames");
    /* shown (the whole stack): looked up then, with the same answers */
    fr = callsite_stack(cs, 6, &n);
    CHECK(n == 4 && callsite_symbolized(cs) == 4, "%zu frames, %zu looked up",
          n, callsite_symbolized(cs));
    if (n == 4) {
      CHECK(fr[0]->usable && strcmp(fr[0]->module, lib) == 0, "module %s",
            fr[0]->module);
      CHECK(fr[0]->function && strcmp(fr[0]->function, "cudaFakeLaunch") == 0,
            "framework frame is %s", fr[0]->function ? fr[0]->function : "(null)");
      /* a framework's frame comes from the symbol table alone: the same
       * code in the program itself has its line (stack 1) */
      CHECK(!fr[0]->file && !fr[0]->outer_file,
            "framework frame read from DWARF: %s:%d", fr[0]->file, fr[0]->line);
      CHECK(fr[2]->file && fr[2]->line == line, "program frame: %s",
            fr[2]->file ? fr[2]->file : "(null)");
    }
    callsites_free(cs);
    db_close(&rec);
    unlink(lib);
    rmdir(dir);
  }

  /* the rules */
  CHECK(callsite_vendor_module("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), "libcuda");
  CHECK(callsite_vendor_module("/usr/local/cuda/lib64/libcupti.so.13"), "libcupti");
  CHECK(callsite_vendor_module("/usr/lib/x86_64-linux-gnu/libc.so.6"), "libc");
  CHECK(callsite_vendor_module("/lib64/ld-linux-x86-64.so.2"), "ld-linux");
  CHECK(callsite_vendor_module("/v/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"), "torch");
  CHECK(callsite_vendor_module("/v/lib/python3.12/site-packages/jax_plugins/xla_cuda13/xla_cuda_plugin.so"), "jax plugin");
  CHECK(callsite_vendor_module("/v/lib/python3.12/site-packages/jaxlib/libjax_common.so"), "jaxlib");
  CHECK(callsite_vendor_module("/v/lib/python3.12/site-packages/jax_cuda12_plugin/_linalg.so"), "jax kernels");
  CHECK(callsite_vendor_module("/usr/lib/python3/dist-packages/cupy_backends/cuda/api/runtime.so"), "cupy");
  CHECK(!callsite_vendor_module("/v/lib/python3.12/site-packages/myjaxapp/ext.so"), "user package");
  CHECK(!callsite_vendor_module("/home/u/jaxlib/build/libmine.so"), "jaxlib outside site-packages");
  CHECK(!callsite_vendor_module("/opt/app/libmylib.so"), "user lib");
  CHECK(!callsite_vendor_module("/opt/app/bin/app"), "user program");
  CHECK(callsite_vendor_function("cuLaunchKernel"), "cuLaunchKernel");
  CHECK(callsite_vendor_function("cudaMemcpyAsync"), "cudaMemcpyAsync");
  CHECK(callsite_vendor_function("__cudart1234"), "__cudart1234");
  CHECK(callsite_vendor_function("cudart::globalState::init()"), "cudart::");
  CHECK(callsite_vendor_function(NULL), "no symbol");
  CHECK(!callsite_vendor_function("custom_step"), "custom_step");
  CHECK(!callsite_vendor_function("main"), "main");

  /* demangling */
  char *d = cl_demangle("_Z5saxpyifPKfPf");
  CHECK(strcmp(d, "saxpy(int, float, float const*, float*)") == 0, "%s", d);
  free(d);
  d = cl_demangle("ampere_sgemm_128x64_nn");
  CHECK(strcmp(d, "ampere_sgemm_128x64_nn") == 0, "%s", d);
  free(d);
  d = cl_demangle("_Zbroken");
  CHECK(strcmp(d, "_Zbroken") == 0, "%s", d);
  free(d);

  if (unit_failures)
    fprintf(stderr, "%d check(s) failed\n", unit_failures);
  else
    printf("test_callsite: all checks passed (user_site at line %d)\n", line);
  return unit_failures ? 1 : 0;
}
