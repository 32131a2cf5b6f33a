#!/usr/bin/env bash
# Run the differential corpus against any Lua interpreter binary.
#
#   tests/differential/run.sh BINARY [CASE ...]
#
# Each tests/differential/cases/NAME.lua is run as `BINARY NAME.lua` from
# inside the cases directory (so chunk names are NAME.lua).  The actual output
# is built exactly like tests/differential/expected/NAME.out (see regen.py):
# stdout verbatim, then, if the exit status N is non-zero, a final line
# "--- exit N: <first stderr line>" where the binary's own "NAME: " prefix
# (as invoked, or its basename, e.g. "luprex-lua: ") is removed.
#
# Prints PASS/FAIL per case, a diff for each failure, and a closing line
# "N passed, N failed".  Exit status is 1 if any case failed.
# Environment: DIFF_TIMEOUT (seconds per case, default 30).

set -u

if [ $# -lt 1 ]; then
  echo "usage: $0 BINARY [CASE ...]" >&2
  exit 2
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cases="$here/cases"
expected="$here/expected"
timeout_s=${DIFF_TIMEOUT:-30}

bin=$1
shift
# Resolve a relative path (not a bare command name) before we cd elsewhere.
case "$bin" in
  */*) bin_path=$(cd "$(dirname "$bin")" 2>/dev/null && pwd)/$(basename "$bin") ;;
  *) bin_path=$(command -v "$bin" || true) ;;
esac
if [ -z "$bin_path" ] || [ ! -x "$bin_path" ]; then
  echo "run.sh: binary not found or not executable: $bin" >&2
  exit 2
fi
base=$(basename "$bin_path")

if [ $# -gt 0 ]; then
  names=()
  for c in "$@"; do c=$(basename "$c"); names+=("${c%.lua}"); done
else
  names=()
  for f in "$cases"/*.lua; do n=$(basename "$f"); names+=("${n%.lua}"); done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

unset LUA_INIT LUA_INIT_5_4

pass=0
fail=0
failed=()
for name in "${names[@]}"; do
  exp="$expected/$name.out"
  out="$tmp/out" err="$tmp/err" act="$tmp/actual"
  if [ ! -f "$cases/$name.lua" ]; then
    echo "FAIL $name (no such case)"
    fail=$((fail + 1)); failed+=("$name"); continue
  fi
  (cd "$cases" && exec timeout "$timeout_s" "$bin_path" "$name.lua" >"$out" 2>"$err" </dev/null)
  rc=$?
  cp "$out" "$act"
  note=""
  if [ "$rc" -ne 0 ]; then
    [ "$rc" -eq 124 ] && note=" (timeout after ${timeout_s}s)"
    line=$(head -n 1 "$err")
    # strip the interpreter's own "progname: " prefix
    if [ "${line#"$bin: "}" != "$line" ]; then
      line=${line#"$bin: "}
    elif [ "${line#"$bin_path: "}" != "$line" ]; then
      line=${line#"$bin_path: "}
    else
      line=${line#"$base: "}
    fi
    # make sure the exit line starts on a line of its own
    if [ -s "$out" ] && [ -n "$(tail -c 1 "$out")" ]; then printf '\n' >>"$act"; fi
    printf -- '--- exit %d: %s\n' "$rc" "$line" >>"$act"
  fi
  if [ ! -f "$exp" ]; then
    echo "FAIL $name (missing expected/$name.out)"
    fail=$((fail + 1)); failed+=("$name")
  elif cmp -s "$exp" "$act"; then
    echo "PASS $name"
    pass=$((pass + 1))
  else
    echo "FAIL $name$note"
    diff -u --label "expected/$name.out" --label "$base $name.lua" "$exp" "$act" | head -n 40 | sed 's/^/    /'
    fail=$((fail + 1)); failed+=("$name")
  fi
done

if [ "$fail" -gt 0 ]; then
  echo "failed: ${failed[*]}"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
