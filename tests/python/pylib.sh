# pylib.sh - sourced by tests/python/*.test after tests/lib.sh: find_pythons
# sets PYTHONS to the interpreters (3.11 or newer) found among
# ${CL_PYTHONS:-python3 python3.11 python3.12 python3.13}, each once, as
# their real executables (sys.executable: launchers such as pyenv's shell
# shims are not run under the shim); it skips the test when there is none.
find_pythons() {
  PYTHONS=
  seen=
  for p in ${CL_PYTHONS:-python3 python3.11 python3.12 python3.13}; do
    command -v "$p" >/dev/null 2>&1 || continue
    exe=$("$p" -c 'import sys; print(sys.executable if sys.version_info >= (3, 11) else "")' 2>/dev/null) || continue
    [ -n "$exe" ] && [ -x "$exe" ] || continue
    real=$(readlink -f "$exe")
    case " $seen " in *" $real "*) continue ;; esac
    seen="$seen $real"
    PYTHONS="$PYTHONS $exe"
  done
  [ -n "$PYTHONS" ] || skip "no python3 (3.11 or newer) found"
  echo "interpreters:$PYTHONS"
}
