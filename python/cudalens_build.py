"""cudalens_build - the PEP 517 build backend of pyproject.toml.  It drives
the project's one build system: the sources are copied to a temporary
directory (the files git knows, or the unpacked sdist), configured
(./autogen.sh first when there is no configure), built with make and
installed with `make install DESTDIR=...`; the wheel then holds the Python
package python/cudalens with bin/ (cudalens, cudalens-report) and lib/
(libcudalens.so) beside it, where the launcher finds the shim, and the man
pages as data (PREFIX/share/man).  Environment: CUDA_HOME (the CUDA toolkit,
as for configure), CUDALENS_CONFIGURE_ARGS (more configure arguments),
MAKEFLAGS."""
import base64
import hashlib
import io
import os
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


def _run(cmd, cwd, env=None):
    sys.stderr.write("cudalens_build: %s\n" % " ".join(cmd))
    subprocess.run(cmd, cwd=cwd, env=env, check=True,
                   stdout=sys.stderr.fileno())


def _build(tmp):
    """configure, make, make install; returns the staging prefix."""
    src = os.path.join(tmp, "src")
    for p in _sources():
        dst = os.path.join(src, p)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.join(SRC, p), dst, follow_symlinks=False)
    if not os.path.exists(os.path.join(src, "configure")):
        _run(["sh", "./autogen.sh"], src)
    # a prefix nobody has: the launcher finds the shim beside itself
    prefix = "/opt/cudalens-wheel"
    args = ["sh", "./configure", "--prefix=" + prefix,
            "--disable-dependency-tracking"]
    if os.environ.get("CUDA_HOME"):
        args.append("--with-cuda=" + os.environ["CUDA_HOME"])
    args += shlex.split(os.environ.get("CUDALENS_CONFIGURE_ARGS", ""))
    _run(args, src)
    env = dict(os.environ)
    if "MAKEFLAGS" not in env:
        env["MAKEFLAGS"] = "-j%d" % min(os.cpu_count() or 1, 4)
    _run(["make"], src, env)
    stage = os.path.join(tmp, "stage")
    _run(["make", "install", "DESTDIR=" + stage], src, env)
    return stage + prefix


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
        for prog in ("cudalens", "cudalens-report"):
            w.add_file("%s/bin/%s" % (NAME, prog),
                       os.path.join(root, "bin", prog))
        w.add_file("%s/lib/libcudalens.so" % NAME,
                   os.path.join(root, "lib", "libcudalens.so"))
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
