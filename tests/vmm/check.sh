# check.sh - sourced by the tests/vmm/*.test scripts (after tests/lib.sh):
# the race catalogue's check (tests/races/check.sh) of the program named
# after the script, over the race findings and cross-device-access: the
# findings of those kinds must be exactly the `// expect:` marks.
RACES_SRC=$CL_TOP_SRCDIR/tests/vmm
RACES_BIN=$CL_TOP_BUILDDIR/tests/vmm
RACES_KINDS='-race$|^cross-device-access$'
. "$CL_TOP_SRCDIR/tests/races/check.sh"
