"""cudalens_build - the PEP 517 build backend of pyproject.toml.  It drives
the project's one build system: the sources are copied to a temporary
directory (the files git knows, or the unpacked sdist), configured
(./autogen.sh first when there is no configure), built with make and
installed with `make install DESTDIR=...`; the wheel then holds the Python
package python/cudalens with bin/ (cudalens, cudalens-report) and lib/
(libcudalens.so, libcudalens-sqlite.so) beside it, where the launcher finds
the shim, and the man pages as data (PREFIX/share/man).  The binaries are stripped (objcopy);
their debug info goes apart, to $CUDALENS_DEBUG_DIR when set (NAME.debug,
which each binary names in its .gnu_debuglink), else nowhere.

A wheel for older systems: with CUDALENS_WHEEL_GLIBC=2.17 (or 2.28, ...)
the binaries are built by `zig cc -target ARCH-linux-gnu.2.17` (zig from
$CUDALENS_ZIG, PATH, or the `ziglang` package of this Python: `pip install
ziglang`), which links against that glibc's symbols; what they take from
SQLite and elfutils (and those from zlib, liblzma, libbz2) is linked in
statically from the build machine's libsqlite3-dev and libdw-dev, and the
few newer glibc functions those archives call are supplied by
glibc_compat.c.  `auditwheel repair` then tags the wheel manylinux2014
(glibc 2.17: RHEL/Rocky 7 and 8, Ubuntu 18.04+, Debian 10+) with nothing to
vendor; tests/packaging/wheel.test builds and checks it.  Without it the
binaries are built by the configured compiler against this machine's
glibc and auditwheel vendors the shared libraries (a newer tag).

Environment: CUDA_HOME (the CUDA toolkit, as for configure; it must be
there: the first line of a failed build says what is missing),
CUDALENS_CONFIGURE_ARGS (more configure arguments), CUDALENS_WHEEL_GLIBC,
CUDALENS_ZIG, CUDALENS_DEBUG_DIR, MAKEFLAGS.  The build's output goes to
a log, shown (its path and its end) only when the build fails."""
import base64
import hashlib
import io
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "cudalens"
PROGRAMS = ("cudalens", "cudalens-report")


def _version():
    with open(os.path.join(SRC, "configure.ac")) as f:
        m = re.search(r"AC_INIT\(\[cudalens\],\s*\[([^\]]+)\]", f.read())
    return m.group(1)


def _metadata():
    with open(os.path.join(SRC, "README.md")) as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: Finds synchronization and memory-transfer bugs in CUDA "
            "programs\nRequires-Python: >=3.8\n"
            "Description-Content-Type: text/markdown\n\n%s"
            % (NAME, _version(), readme))


def _sources():
    """The files of the source tree, relative paths: git's view of it when
    it is a checkout (tracked and untracked-but-not-ignored), else all."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others",
             "--exclude-standard"], cwd=SRC, check=True,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        return [p for p in out.decode().split("\0")
                if p and os.path.lexists(os.path.join(SRC, p))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(SRC):
            dirs[:] = [d for d in dirs if d != ".git"]
            files += [os.path.relpath(os.path.join(root, n), SRC)
                      for n in names]
        return files


class _Log:
    """the build's output, in a file of the temporary directory"""

    def __init__(self, tmp):
        self.path = os.path.join(tmp, "build.log")
        self.f = open(self.path, "w")

    def write(self, text):
        self.f.write(text)
        self.f.flush()


LOG = None


def _fail(message):
    """one line saying what went wrong, first; then, when the build had
    begun, where its log was kept and its last lines; exit status 1"""
    sys.stderr.write("cudalens: %s\n" % message)
    if LOG:
        kept = os.path.join(tempfile.gettempdir(),
                            "cudalens-build-%d.log" % os.getpid())
        try:
            shutil.copyfile(LOG.path, kept)
            with open(kept, errors="replace") as f:
                tail = f.readlines()[-20:]
            sys.stderr.write("the build's log is %s; it ends:\n%s"
                             % (kept, "".join("  " + l for l in tail)))
        except OSError:
            pass
    sys.stderr.flush()
    raise SystemExit(1)


def _why(cmd):
    """what a failed command said went wrong: configure's 'error:' line,
    else the first line of the log that says error, else the command"""
    with open(LOG.path, errors="replace") as f:
        lines = f.read().splitlines()
    start = max(i for i, l in enumerate(lines) if l.startswith("$ "))
    for l in lines[start:]:
        m = re.search(r"configure: error: (.*)", l)
        if m:
            return m.group(1)
    for l in lines[start:]:
        if re.search(r"\berror\b", l, re.I):
            return l.strip()
    return "%s failed" % " ".join(cmd)


def _run(cmd, cwd, env=None, what=None):
    LOG.write("$ %s\n" % " ".join(shlex.quote(c) for c in cmd))
    try:
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=LOG.f,
                           stderr=subprocess.STDOUT)
    except OSError as e:
        _fail("cannot run %s: %s" % (cmd[0], e.strerror))
    if r.returncode != 0:
        _fail("%s: %s" % (what or cmd[0], _why(cmd)))


def _out(cmd):
    """stdout of a helper command (pkg-config), stripped; None if it fails"""
    try:
        return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL).stdout.decode().strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _configure_args():
    return shlex.split(os.environ.get("CUDALENS_CONFIGURE_ARGS", ""))


def _check_cuda():
    """the toolkit configure will look for, there before anything starts"""
    home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    for a in _configure_args():
        if a.startswith("--with-cuda="):
            home = a.split("=", 1)[1]
    if not os.path.isfile(os.path.join(home, "include", "cuda_runtime_api.h")):
        _fail("no CUDA toolkit at %s (no include/cuda_runtime_api.h): "
              "cudalens builds against the toolkit's CUDA and CUPTI headers; "
              "install the CUDA toolkit, or set CUDA_HOME to where it is"
              % home)
    return home


def _zig():
    """the command that runs zig: $CUDALENS_ZIG, zig on PATH, or the
    ziglang package's"""
    if os.environ.get("CUDALENS_ZIG"):
        return shlex.split(os.environ["CUDALENS_ZIG"])
    if shutil.which("zig"):
        return [shutil.which("zig")]
    try:
        import ziglang
        z = os.path.join(os.path.dirname(ziglang.__file__), "zig")
        if os.access(z, os.X_OK):
            return [z]
    except ImportError:
        pass
    _fail("CUDALENS_WHEEL_GLIBC needs zig to build against an old glibc: "
          "pip install ziglang (and pip wheel --no-build-isolation), or put "
          "zig on PATH, or set CUDALENS_ZIG to the command")


# headers the sources include from SQLite and elfutils
DEP_HEADERS = ("sqlite3.h", "sqlite3ext.h", "elfutils", "libelf.h", "gelf.h",
               "nlist.h", "dwarf.h")
DEP_PACKAGES = ("sqlite3", "libdw", "libelf")
# libraries every glibc target has (zig supplies their stubs)
LIBC_PARTS = ("c", "m", "pthread", "dl", "rt")


def _old_glibc(tmp, glibc):
    """configure arguments for a build against glibc GLIBC by zig cc: a
    compiler script, a folder of the dependencies' headers and one of their
    static archives (the only libraries there, so that -lsqlite3 and the
    like link them in), and glibc_compat.c's archive"""
    if not re.fullmatch(r"2\.[0-9]+", glibc):
        _fail("CUDALENS_WHEEL_GLIBC=%s: expected a glibc version such as 2.17"
              % glibc)
    zig = _zig()
    target = "%s-linux-gnu.%s" % (platform.machine(), glibc)
    bindir = os.path.join(tmp, "zig-bin")
    os.makedirs(bindir)
    cc = os.path.join(bindir, "cc")
    with open(cc, "w") as f:
        f.write("#!/bin/sh\nexec %s cc -target %s -fno-sanitize=undefined "
                "\"$@\"\n" % (" ".join(shlex.quote(z) for z in zig), target))
    os.chmod(cc, 0o755)
    ar = os.path.join(bindir, "ar")
    with open(ar, "w") as f:
        f.write("#!/bin/sh\nexec %s ar \"$@\"\n"
                % " ".join(shlex.quote(z) for z in zig))
    os.chmod(ar, 0o755)
    if _out(["pkg-config", "--version"]) is None:
        _fail("pkg-config not found (it finds SQLite and elfutils)")
    inc = os.path.join(tmp, "deps", "include")
    lib = os.path.join(tmp, "deps", "lib")
    os.makedirs(inc)
    os.makedirs(lib)
    incdirs, libdirs = [], []
    for pc in DEP_PACKAGES:
        i = _out(["pkg-config", "--variable=includedir", pc])
        d = _out(["pkg-config", "--variable=libdir", pc])
        if i is None or d is None:
            _fail("pkg-config knows no %s: install libsqlite3-dev and "
                  "libdw-dev (their static archives are linked in)" % pc)
        incdirs.append(i)
        libdirs.append(d)
    for h in DEP_HEADERS:
        for d in incdirs:
            if os.path.exists(os.path.join(d, h)):
                os.symlink(os.path.join(d, h), os.path.join(inc, h))
                break
    libs = _out(["pkg-config", "--static", "--libs-only-l"] +
                list(DEP_PACKAGES)).split()
    for name in dict.fromkeys(l[2:] for l in libs):
        if name in LIBC_PARTS:
            continue
        for d in libdirs:
            a = os.path.join(d, "lib%s.a" % name)
            if os.path.isfile(a):
                os.symlink(a, os.path.join(lib, "lib%s.a" % name))
                break
        else:
            _fail("no static lib%s.a in %s: the build for glibc %s links it "
                  "in (install its -dev package)" % (name, " ".join(libdirs),
                                                     glibc))
    compat = os.path.join(tmp, "deps", "glibc_compat.o")
    _run([cc, "-O2", "-fPIC", "-c",
          os.path.join(SRC, "python", "glibc_compat.c"), "-o", compat],
         tmp, what="glibc_compat.c")
    _run([ar, "rcs", os.path.join(lib, "libclcompat.a"), compat], tmp,
         what="ar")

    def static(pc):
        return _out(["pkg-config", "--static", "--libs", pc])
    return ["CC=" + cc, "AR=" + ar,
            "SQLITE_CFLAGS=-I" + inc, "SQLITE_LIBS=" + static("sqlite3"),
            "LIBDW_CFLAGS=-I" + inc, "LIBDW_LIBS=" + static("libdw"),
            "LIBELF_CFLAGS=-I" + inc, "LIBELF_LIBS=" + static("libelf"),
            # -lgcc_s: zig links its own unwinder in (the shim's and the
            # report's stack walks call _Unwind_Backtrace), no libgcc_s
            "LDFLAGS=-L%s -Wl,--build-id=sha1" % lib,
            "LIBS=-lclcompat -lgcc_s"]


def _build(tmp):
    """configure, make, make install; returns the staging prefix."""
    global LOG
    cuda = _check_cuda()
    LOG = _Log(tmp)
    src = os.path.join(tmp, "src")
    for p in _sources():
        dst = os.path.join(src, p)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.join(SRC, p), dst, follow_symlinks=False)
    if not os.path.exists(os.path.join(src, "configure")):
        _run(["sh", "./autogen.sh"], src, what="autogen.sh")
    # a prefix nobody has: the launcher finds the shim beside itself
    prefix = "/opt/cudalens-wheel"
    # the footprint collector (cudalens run --footprint) is not packed:
    # not built, whatever sanitizer.h configure could find (the
    # CUDALENS_CONFIGURE_ARGS that follow may say otherwise)
    args = ["sh", "./configure", "--prefix=" + prefix,
            "--disable-dependency-tracking", "--with-cuda=" + cuda,
            "--without-sanitizer"]
    if os.environ.get("CUDALENS_WHEEL_GLIBC"):
        args += _old_glibc(tmp, os.environ["CUDALENS_WHEEL_GLIBC"])
    args += _configure_args()
    _run(args, src, what="configure")
    env = dict(os.environ)
    if "MAKEFLAGS" not in env:
        env["MAKEFLAGS"] = "-j%d" % min(os.cpu_count() or 1, 4)
    _run(["make"], src, env, what="make")
    stage = os.path.join(tmp, "stage")
    _run(["make", "install", "DESTDIR=" + stage], src, env, what="make install")
    return stage + prefix


def _strip(path, debug_dir):
    """strip PATH; with DEBUG_DIR its debug info to DEBUG_DIR/NAME.debug,
    which PATH then names (.gnu_debuglink, with its CRC)"""
    objcopy = os.environ.get("OBJCOPY") or shutil.which("objcopy")
    if not objcopy:
        _fail("objcopy (binutils) not found: it strips the wheel's binaries")
    tmpdir = os.path.dirname(LOG.path)
    if debug_dir:
        os.makedirs(debug_dir, exist_ok=True)
        dbg = os.path.join(debug_dir, os.path.basename(path) + ".debug")
        _run([objcopy, "--only-keep-debug", "--compress-debug-sections",
              path, dbg], tmpdir, what="objcopy --only-keep-debug")
    _run([objcopy, "--strip-all", path], tmpdir, what="objcopy --strip-all")
    if debug_dir:
        _run([objcopy, "--add-gnu-debuglink=" + dbg, path], tmpdir,
             what="objcopy --add-gnu-debuglink")

class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.records = []

    def add(self, arcname, data, mode=0o644):
        info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(
            hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.records.append("%s,sha256=%s,%d" % (arcname, digest, len(data)))

    def add_file(self, arcname, path):
        with open(path, "rb") as f:
            data = f.read()
        self.add(arcname, data, 0o755 if os.access(path, os.X_OK) else 0o644)

    def close(self, record):
        self.records.append(record + ",,")
        self.zip.writestr(zipfile.ZipInfo(record, (2020, 1, 1, 0, 0, 0)),
                          "\n".join(self.records) + "\n")
        self.zip.close()


def _tag():
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "py3-none-" + plat


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    dist = "%s-%s" % (NAME, version)
    name = "%s-%s.whl" % (dist, _tag())
    with tempfile.TemporaryDirectory(prefix="cudalens-build-") as tmp:
        root = _build(tmp)
        w = _Wheel(os.path.join(wheel_directory, name))
        pkg = os.path.join(SRC, "python", NAME)
        for n in sorted(os.listdir(pkg)):
            if n.endswith(".py"):
                w.add_file("%s/%s" % (NAME, n), os.path.join(pkg, n))
        debug = os.environ.get("CUDALENS_DEBUG_DIR")
        binaries = [os.path.join(root, "bin", p) for p in PROGRAMS]
        binaries.append(os.path.join(root, "lib", "libcudalens.so"))
        # SQLite, which the shim loads from its own directory when it records
        binaries.append(os.path.join(root, "lib", "libcudalens-sqlite.so"))
        for b in binaries:
            _strip(b, debug and os.path.abspath(debug))
        for b in binaries:
            w.add_file("%s/%s/%s" % (NAME, os.path.basename(os.path.dirname(b)),
                                     os.path.basename(b)), b)
        man = os.path.join(root, "share", "man")
        for sect in sorted(os.listdir(man)):
            for page in sorted(os.listdir(os.path.join(man, sect))):
                w.add_file("%s.data/data/share/man/%s/%s" % (dist, sect, page),
                           os.path.join(man, sect, page))
        info = dist + ".dist-info"
        w.add(info + "/METADATA", _metadata().encode())
        w.add(info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: cudalens_build"
                                "\nRoot-Is-Purelib: false\nTag: %s\n"
                                % _tag()).encode())
        w.add(info + "/entry_points.txt",
              b"[console_scripts]\ncudalens = cudalens:launcher\n"
              b"cudalens-report = cudalens:report\n")
        w.close(info + "/RECORD")
    return name


def build_sdist(sdist_directory, config_settings=None):
    """The source files (git's view) plus PKG-INFO; configure is made at
    build time by ./autogen.sh."""
    dist = "%s-%s" % (NAME, _version())
    name = dist + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz",
                      format=tarfile.PAX_FORMAT) as tar:
        for p in sorted(_sources()):
            tar.add(os.path.join(SRC, p), arcname="%s/%s" % (dist, p),
                    recursive=False)
        data = _metadata().encode()
        ti = tarfile.TarInfo("%s/PKG-INFO" % dist)
        ti.size = len(data)
        tar.addfile(ti, io.BytesIO(data))
    return name
