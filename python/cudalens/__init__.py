"""cudalens as installed by pip: the recorder (lib/libcudalens.so), the
launcher and the report tool (bin/), found beside this file.  The console
scripts `cudalens` and `cudalens-report` and `python -m cudalens` replace
the Python process with the installed programs."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(HERE, "lib", "libcudalens.so")


def _exec(program, args):
    path = os.path.join(HERE, "bin", program)
    try:
        os.execv(path, [program] + list(args))
    except OSError as e:
        sys.stderr.write("cudalens: cannot run %s: %s\n" % (path, e.strerror))
        sys.exit(127)


def launcher():
    """`cudalens run [-o PATTERN] -- CMD [ARGS...]` (see cudalens(1))."""
    _exec("cudalens", sys.argv[1:])


def report():
    """`cudalens-report DB` (see cudalens-report(1))."""
    _exec("cudalens-report", sys.argv[1:])
