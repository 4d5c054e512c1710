/* test_pysite.c - unit test of the Python side of the call-site resolver
 * (analyzer/sites/callsite.c): the file rules (framework packages, standard
 * library, frozen modules), parsing of calls.pystack, the choice of the
 * user's Python frame, callsite_resolve_call() on an in-memory recording,
 * and callsite_location()'s preference between native and Python sites. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalens/format.h"
#include "sites/callsite.h"
#include "tests/unit/analyzer/resolver.h"
#include "tests/unit/unit.h" /* CHECK */

static int streq(const char *a, const char *b)
{
  return a && b ? strcmp(a, b) == 0 : a == b;
}

static void exec_sql(sqlite3 *db, const char *sql)
{
  char *err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "sql: %s\n", err);
    exit(1);
  }
}

static void rules(void)
{
  CHECK(callsite_vendor_pyfile("/v/lib/python3.12/site-packages/torch/nn/modules/module.py"), "torch");
  CHECK(callsite_vendor_pyfile("/usr/local/lib/python3.12/dist-packages/torch/_tensor.py"), "torch dist");
  CHECK(callsite_vendor_pyfile("/v/lib/python3.12/site-packages/triton/runtime/jit.py"), "triton");
  CHECK(callsite_vendor_pyfile("/src/pytorch/torch/cuda/__init__.py"), "torch checkout");
  CHECK(callsite_vendor_pyfile("torch/functional.py"), "relative torch");
  CHECK(callsite_vendor_pyfile("/usr/lib/python3.12/threading.py"), "stdlib");
  CHECK(callsite_vendor_pyfile("/root/.pyenv/versions/3.11.7/lib/python3.11/ctypes/__init__.py"), "pyenv stdlib");
  CHECK(callsite_vendor_pyfile("<frozen runpy>"), "frozen");
  CHECK(callsite_vendor_pyfile("?"), "unknown");
  CHECK(callsite_vendor_pyfile(NULL), "NULL");
  CHECK(!callsite_vendor_pyfile("/home/u/train.py"), "user script");
  CHECK(!callsite_vendor_pyfile("train.py"), "relative user script");
  CHECK(!callsite_vendor_pyfile("/v/lib/python3.12/site-packages/transformers/trainer.py"), "other package");
  CHECK(!callsite_vendor_pyfile("/usr/lib/python3/dist-packages/mylib/x.py"), "Debian dist-packages");
  CHECK(!callsite_vendor_pyfile("/home/u/mytorchstuff/x.py"), "torch inside a name");
  CHECK(!callsite_vendor_pyfile("<string>"), "exec'd code");
  /* a venv inside a folder named torch: the package decides */
  CHECK(!callsite_vendor_pyfile("/opt/torch/.venv/lib/python3.12/site-packages/torchvision/models/resnet.py"), "torchvision in a venv under /opt/torch");
  CHECK(callsite_vendor_pyfile("/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/functional.py"), "torch in a venv under /opt/torch");
  CHECK(callsite_installed_pyfile("/opt/torch/.venv/lib/python3.12/site-packages/torchvision/models/resnet.py"), "installed");
  CHECK(!callsite_installed_pyfile("/home/u/train.py"), "user script is not installed");
  CHECK(callsite_python_module("/usr/lib/python3.12/lib-dynload/_ctypes.cpython-312-x86_64-linux-gnu.so"), "_ctypes");
  CHECK(callsite_python_module("/usr/lib/x86_64-linux-gnu/libffi.so.8"), "libffi");
  CHECK(callsite_python_module("/v/lib/python3.12/site-packages/numpy/core/_multiarray_umath.so"), "numpy");
  CHECK(!callsite_python_module("/opt/app/libmine.so"), "user library");
  CHECK(!callsite_python_module(NULL), "NULL module");
}

int main(void)
{
  struct cl_db d;
  rules();

  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  exec_sql(db, CL_SCHEMA_SQL);
  exec_sql(db,
           "INSERT INTO api VALUES(1,'cudaMemcpyAsync_v3020','runtime',41,'copy');"
           "INSERT INTO strings VALUES(1,"
           " '/v/lib/python3.12/site-packages/torch/nn/modules/linear.py:125:forward\n"
           "/v/lib/python3.12/site-packages/torch/nn/modules/module.py:1751:_call_impl\n"
           "/home/u/model.py:42:forward\n"
           "/home/u/train.py:7:<module>');"
           "INSERT INTO strings VALUES(2,"
           " '/usr/lib/python3.12/threading.py:1010:run\n<frozen runpy>:88:_run_code');"
           "INSERT INTO strings VALUES(3, 'C:\\odd:name.py:3:f');"
           "INSERT INTO strings VALUES(4, 'garbage');"
           "INSERT INTO strings VALUES(5,"
           " '/o/torch/.venv/lib/python3.12/site-packages/torch/nn/functional.py:2846:batch_norm\n"
           "/o/torch/.venv/lib/python3.12/site-packages/torchvision/models/resnet.py:93:forward\n"
           "/o/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py:1790:_call_impl\n"
           "/home/u/train.py:41:step');"
           "INSERT INTO strings VALUES(6,"
           " '/v/lib/python3.12/site-packages/torch/nn/functional.py:2846:batch_norm\n"
           "/v/lib/python3.12/site-packages/torchvision/models/resnet.py:93:forward');"
           /* seq 1: Python with a user frame; 2: Python, all vendor;
            * 3: ':' inside the file; 4: no colon; 5: not from Python;
            * 6: native stack only, no such stack row; 7: torchvision
            * between torch and the user's frame; 8: torchvision, no user
            * frame */
           "INSERT INTO calls(seq,api,tid,start_ns,end_ns,result,stack,pystack)"
           " VALUES(1,1,1,0,0,0,NULL,1),(2,1,1,0,0,0,NULL,2),"
           " (3,1,1,0,0,0,NULL,3),(4,1,1,0,0,0,NULL,4),"
           " (5,1,1,0,0,0,NULL,NULL),(6,1,1,0,0,0,77,NULL),"
           " (7,1,1,0,0,0,NULL,5),(8,1,1,0,0,0,NULL,6);");
  struct callsites *cs = resolver(&d, db);
  struct callsite s;

  CHECK(callsite_resolve_call(cs, 1, &s) == 0, "seq 1 unresolved");
  CHECK(s.frame == -1, "native frame %d", s.frame);
  CHECK(s.py_frame == 2, "py_frame %d", s.py_frame);
  CHECK(streq(s.py_file, "/home/u/model.py"), "file %s", s.py_file);
  CHECK(s.py_line == 42, "line %d", s.py_line);
  CHECK(streq(s.py_function, "forward"), "function %s", s.py_function);
  CHECK(s.py_stack && strstr(s.py_stack, "train.py:7:<module>"), "stack");
  struct location l = callsite_location(&s);
  CHECK(streq(l.file, "/home/u/model.py") && l.line == 42 &&
            streq(l.function, "forward") && !l.module,
        "location %s:%d", l.file, l.line);

  /* a native site inside the Python installation (ctypes/libffi) loses */
  s.frame = 3;
  s.file = "../src/x86/ffi64.c";
  s.line = 700;
  s.module = "/usr/lib/x86_64-linux-gnu/libffi.so.8";
  l = callsite_location(&s);
  CHECK(streq(l.file, "/home/u/model.py"), "libffi preferred: %s", l.file);
  /* a user's native frame with file:line wins */
  s.file = "/home/u/ext/kernels.cpp";
  s.module = "/home/u/ext/build/libkernels.so";
  l = callsite_location(&s);
  CHECK(streq(l.file, "/home/u/ext/kernels.cpp") && l.line == 700,
        "native not preferred: %s", l.file);
  /* without line information the Python site wins */
  s.file = NULL;
  l = callsite_location(&s);
  CHECK(streq(l.file, "/home/u/model.py"), "no line: %s", l.file);

  CHECK(callsite_resolve_call(cs, 2, &s) == -1, "seq 2: all vendor");
  CHECK(s.py_frame == -1 && !s.py_file && s.py_stack, "seq 2 fields");
  l = callsite_location(&s);
  CHECK(!l.file && !l.module, "seq 2 location");

  CHECK(callsite_resolve_call(cs, 3, &s) == 0, "seq 3");
  CHECK(streq(s.py_file, "C:\\odd:name.py") && s.py_line == 3 &&
            streq(s.py_function, "f"),
        "colon in file: %s:%d:%s", s.py_file, s.py_line, s.py_function);
  CHECK(callsite_resolve_call(cs, 4, &s) == -1 && s.py_frame == -1,
        "seq 4: unparsable");
  CHECK(callsite_resolve_call(cs, 5, &s) == -1 && !s.py_stack,
        "seq 5: no stacks");
  CHECK(callsite_resolve_call(cs, 6, &s) == -1 && s.frame == -1 &&
            s.py_frame == -1,
        "seq 6: missing stack");
  CHECK(callsite_resolve_call(cs, 99, &s) == -1, "unknown call");
  CHECK(callsite_resolve_call(cs, 7, &s) == 0 && streq(s.py_file, "/home/u/train.py") &&
            s.py_line == 41,
        "seq 7: the user's frame over torchvision: %s", s.py_file);
  CHECK(callsite_resolve_call(cs, 8, &s) == 0 && s.py_line == 93,
        "seq 8: torchvision without a user frame: %s", s.py_file);

  /* by ids, as analyses that read calls.stack and calls.pystack do */
  CHECK(callsite_resolve_ids(cs, -1, 1, &s) == 0 && s.py_line == 42 &&
            s.frame == -1,
        "resolve_ids python");
  CHECK(callsite_resolve_ids(cs, -1, -1, &s) == -1 && s.py_frame == -1 &&
            !s.py_stack,
        "resolve_ids none");

  /* the stack-id API is unchanged: no Python fields */
  CHECK(callsite_resolve(cs, 77, &s) == -1 && s.py_frame == -1 &&
            !s.py_file,
        "callsite_resolve");

  callsites_free(cs);
  db_close(&d);
  if (unit_failures)
    fprintf(stderr, "%d failure(s)\n", unit_failures);
  else
    printf("test_pysite: all checks passed\n");
  return unit_failures ? 1 : 0;
}
