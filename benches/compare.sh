#!/usr/bin/env bash
# Compare the wall-clock time of benches/programs/*.lua between two (or three)
# Lua interpreters and print a Markdown table.
#
#   benches/compare.sh [options] [OURS] [REF]
#
#   OURS   our interpreter     (default: target/release/luprex-lua)
#   REF    the reference       (default: lua5.4)
#
# Options:
#   --luajit          also time luajit (extra column; its output is compared
#                     with REF's and flagged, but never fails a row)
#   --runs N          runs per program and interpreter, best time kept (default 3)
#   --only a,b,c      only these programs (names without .lua)
#   --timeout S       per-run timeout in seconds (default 120)
#   --cpu             rank by user+sys CPU time of the child instead of
#                     wall-clock time (more stable on a busy machine)
#
# Nothing is built here: run `cargo build --release --bin luprex-lua` first.
# A row is FAIL when OURS is missing, exits non-zero or times out, and
# MISMATCH when its stdout differs from REF's.  The geometric mean of the
# ratios (ours/ref) is computed over rows that are neither FAIL nor MISMATCH.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec python3 - "$here" "$@" <<'PY'
import math
import os
import resource
import shutil
import subprocess
import sys
import time

bench_dir = sys.argv[1]
args = sys.argv[2:]
root = os.path.dirname(bench_dir)
programs_dir = os.path.join(bench_dir, "programs")

luajit = False
cpu = False
runs = 3
only = None
timeout = 120.0
positional = []
i = 0
while i < len(args):
    a = args[i]
    if a == "--luajit":
        luajit = True
    elif a == "--cpu":
        cpu = True
    elif a == "--runs":
        i += 1
        runs = int(args[i])
    elif a == "--only":
        i += 1
        only = [x[:-4] if x.endswith(".lua") else x for x in args[i].split(",") if x]
    elif a == "--timeout":
        i += 1
        timeout = float(args[i])
    elif a in ("-h", "--help"):
        with open(os.path.join(bench_dir, "compare.sh")) as f:
            for line in f.read().split("\n")[1:24]:
                print(line[2:] if line.startswith("# ") else line.lstrip("#"))
        sys.exit(0)
    elif a.startswith("--"):
        sys.exit("compare.sh: unknown option %s" % a)
    else:
        positional.append(a)
    i += 1
if len(positional) > 2:
    sys.exit("compare.sh: too many arguments")
ours = positional[0] if len(positional) > 0 else "target/release/luprex-lua"
ref = positional[1] if len(positional) > 1 else "lua5.4"


def resolve(exe):
    """Absolute path of an interpreter, or None if it cannot be found."""
    if os.sep in exe:
        for base in (os.getcwd(), root):
            p = os.path.join(base, exe)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return os.path.abspath(p)
        return None
    return shutil.which(exe)


ours_path = resolve(ours)
ref_path = resolve(ref)
jit_path = shutil.which("luajit") if luajit else None
if ref_path is None:
    sys.exit("compare.sh: reference interpreter not found: %s" % ref)
if luajit and jit_path is None:
    print("note: luajit not found, column left empty", file=sys.stderr)
if ours_path is None:
    print("note: %s not found (build it with `cargo build --release --bin luprex-lua`);"
          " every row will be FAIL" % ours, file=sys.stderr)

names = sorted(f[:-4] for f in os.listdir(programs_dir) if f.endswith(".lua"))
if only:
    missing = [n for n in only if n not in names]
    if missing:
        sys.exit("compare.sh: no such program(s): %s" % ", ".join(missing))
    names = [n for n in names if n in only]

env = dict(os.environ)
for var in ("LUA_INIT", "LUA_INIT_5_4"):
    env.pop(var, None)


def measure(exe, name):
    """Best time over `runs` runs -> (seconds, stdout, error or None).
    Wall-clock (time.perf_counter) by default, child user+sys CPU with --cpu."""
    best = None
    out = None
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        try:
            p = subprocess.run([exe, name + ".lua"], cwd=programs_dir, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, None, "timeout"
        except OSError as e:
            return None, None, str(e)
        dt = time.perf_counter() - t0
        if cpu:
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            dt = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        if p.returncode != 0:
            first = p.stderr.decode("utf-8", "replace").split("\n", 1)[0]
            return None, p.stdout, "exit %d: %s" % (p.returncode, first)
        if out is not None and p.stdout != out:
            return None, p.stdout, "nondeterministic output"
        out = p.stdout
        best = dt if best is None else min(best, dt)
    return best, out, None


ref_name = os.path.basename(ref)
ours_name = os.path.basename(ours)
header = ["program", "%s s" % ref_name, "%s s" % ours_name, "ratio (ours/ref)"]
if luajit:
    header.append("luajit s")
header.append("status")
rows = []
ratios = []
notes = []
for name in names:
    sys.stderr.write("running %s...\n" % name)
    sys.stderr.flush()
    rt, rout, rerr = measure(ref_path, name)
    row = [name, "%.3f" % rt if rt is not None else "ERROR", "", "", ]
    status = "ok"
    if rerr:
        status = "REF ERROR"
        notes.append("%s: %s failed: %s" % (name, ref_name, rerr))
    if ours_path is None:
        row[2], row[3], status = "FAIL", "-", "FAIL"
    else:
        ot, oout, oerr = measure(ours_path, name)
        if oerr:
            row[2], row[3], status = "FAIL", "-", "FAIL"
            notes.append("%s: %s failed: %s" % (name, ours_name, oerr))
        else:
            row[2] = "%.3f" % ot
            if rt is not None and rt > 0:
                row[3] = "%.2f" % (ot / rt)
            if rerr is None and oout != rout:
                status = "MISMATCH"
                notes.append("%s: output differs: %s printed %r, %s printed %r"
                             % (name, ref_name, rout[-200:], ours_name, oout[-200:]))
            elif rt is not None and rt > 0 and status == "ok":
                ratios.append(ot / rt)
    if luajit:
        if jit_path is None:
            row.append("-")
        else:
            jt, jout, jerr = measure(jit_path, name)
            if jerr:
                row.append("error")
            else:
                row.append("%.3f%s" % (jt, "" if jout == rout else " (output differs)"))
    row.append(status)
    rows.append(row)

print("| " + " | ".join(header) + " |")
print("|" + "|".join(["---"] + ["---:"] * (len(header) - 2) + ["---"]) + "|")
for r in rows:
    print("| " + " | ".join(r) + " |")
print()
if ratios:
    gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print("Geometric mean of ratios (ours/ref) over %d program(s): %.2f" % (len(ratios), gm))
else:
    print("Geometric mean of ratios (ours/ref): n/a (no successful comparisons)")
print("Best of %d run(s) per program and interpreter, %s." % (runs, "child CPU time (user+sys)" if cpu else "wall-clock time"))
if notes:
    print()
    for n in notes:
        print("- " + n)
PY
