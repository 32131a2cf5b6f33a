#!/usr/bin/env python3
"""Regenerate (or check) the expected outputs of the differential corpus.

Usage:
    tests/differential/regen.py [--check] [--lua LUA] [CASE ...]

Every program tests/differential/cases/NAME.lua is run with the reference
interpreter (default: ``lua5.4`` from PATH) from inside the ``cases``
directory, so chunk names are ``NAME.lua``.  The expected output
tests/differential/expected/NAME.out is:

  * the program's stdout, verbatim;
  * then, only if the exit status N is non-zero, one final line
        --- exit N: <first line of stderr, without the leading "lua5.4: ">
    (if stdout is non-empty and does not end with a newline, a newline is
    inserted first so that this line always starts a line of its own).

With --check nothing is written: the script compares the outputs with the
committed files and exits with status 1 if anything differs (including
missing or orphaned .out files).  CASE arguments restrict the run to the
given case names (with or without the .lua suffix).
"""

import argparse
import difflib
import os
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
EXPECTED = os.path.join(HERE, "expected")
TIMEOUT = 60  # seconds per case


def clean_env():
    env = dict(os.environ)
    # LUA_INIT would run arbitrary code before every case.
    for var in ("LUA_INIT", "LUA_INIT_5_4", "LUA_PATH", "LUA_PATH_5_4", "LUA_CPATH", "LUA_CPATH_5_4"):
        env.pop(var, None)
    return env


def strip_prefix(line, argv0):
    """Remove the interpreter's "progname: " prefix from an error line."""
    for prefix in (argv0 + ": ", os.path.basename(argv0) + ": "):
        if line.startswith(prefix):
            return line[len(prefix):]
    return line


def expected_output(lua, name):
    """Run one case and build the bytes of its .out file."""
    try:
        proc = subprocess.run(
            [lua, name + ".lua"],
            cwd=CASES,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=clean_env(),
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        sys.exit("regen: case %s timed out after %d s" % (name, TIMEOUT))
    out = proc.stdout
    rc = proc.returncode
    if rc < 0:  # killed by a signal: report it the way a shell would
        rc = 128 - rc
    if rc != 0:
        first = proc.stderr.split(b"\n", 1)[0]
        first = strip_prefix(first.decode("utf-8", "surrogateescape"), lua)
        if out and not out.endswith(b"\n"):
            out += b"\n"
        out += ("--- exit %d: %s\n" % (rc, first)).encode("utf-8", "surrogateescape")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on differences")
    ap.add_argument("--lua", default="lua5.4", help="reference interpreter (default: lua5.4)")
    ap.add_argument("cases", nargs="*", help="case names to process (default: all)")
    args = ap.parse_args()

    if shutil.which(args.lua) is None and not os.path.isfile(args.lua):
        sys.exit("regen: interpreter %r not found" % args.lua)
    lua = args.lua if os.sep not in args.lua else os.path.abspath(args.lua)

    all_names = sorted(f[:-4] for f in os.listdir(CASES) if f.endswith(".lua"))
    if args.cases:
        names = []
        for c in args.cases:
            c = os.path.basename(c)
            c = c[:-4] if c.endswith(".lua") else c
            if c not in all_names:
                sys.exit("regen: no such case: %s" % c)
            names.append(c)
    else:
        names = all_names

    os.makedirs(EXPECTED, exist_ok=True)
    problems = 0
    written = 0
    for name in names:
        data = expected_output(lua, name)
        path = os.path.join(EXPECTED, name + ".out")
        old = None
        if os.path.exists(path):
            with open(path, "rb") as f:
                old = f.read()
        if args.check:
            if old is None:
                print("MISSING  %s.out" % name)
                problems += 1
            elif old != data:
                print("DIFFERS  %s.out" % name)
                diff = difflib.unified_diff(
                    old.decode("utf-8", "replace").splitlines(True),
                    data.decode("utf-8", "replace").splitlines(True),
                    "expected/%s.out (committed)" % name,
                    "%s %s.lua (now)" % (args.lua, name),
                )
                sys.stdout.writelines(list(diff)[:60])
                problems += 1
        elif old != data:
            with open(path, "wb") as f:
                f.write(data)
            written += 1

    if not args.cases:
        # .out files without a matching case
        for f in sorted(os.listdir(EXPECTED)):
            if f.endswith(".out") and f[:-4] not in all_names:
                if args.check:
                    print("ORPHAN   %s" % f)
                    problems += 1
                else:
                    os.remove(os.path.join(EXPECTED, f))
                    print("removed orphan %s" % f)

    if args.check:
        print("%d cases checked, %d problem(s)" % (len(names), problems))
        return 1 if problems else 0
    print("%d cases, %d file(s) written" % (len(names), written))
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
