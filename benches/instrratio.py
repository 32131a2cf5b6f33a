#!/usr/bin/env python3
"""Whole-run instructions as a ratio to lua5.4's: issue 16's yardstick without the noise.

    python3 benches/instrratio.py [--only a,b] BIN [BIN...]
    python3 benches/instrratio.py --public F [--only a,b] BIN [BIN...]

For each program of `loopcost.py`'s list (public benchmark programs at small
sizes, from benches/public/, see public.py --fetch) it counts, with
callgrind, every instruction the process executes (start-up, compiler,
libc and libm included) under lua5.4 and under each build BIN, and prints
each build's count as a ratio to lua5.4's, then the geometric mean of each
column and the commit.

`public.py` measures what the goal is about, CPU time, but on a shared
two-core machine a row moves by ±20 % between runs of one build (RESULTS
parts 8 and 9). These counts are exact: the same binary and input give the
same figure on any load, so two builds or two sessions can be compared to
the tenth of a percent. They are not time: a stalled load counts once and a
mispredicted branch not at all, and our CPU-time ratio has mostly been
below our instruction ratio (recursive-fib: 1.33 in instructions, 1.21 to
1.27 in time; RESULTS parts 8 and 9). Read both.

`--public F` counts `public.py`'s whole set instead (its MANIFEST, inputs
and 5.1 shim), each size argument multiplied by F (0.1: about a tenth of
the work for the programs linear in their size), two programs at a time.
It is the regression hunt between two builds over programs the list above
leaves out: a row whose ratio moves between builds is worth a profile.
Rows where a size rounds to something trivial count mostly start-up;
programs with no size argument (gl-mandel, gl-juliaset, lj-life) or one
that stays 1 (AWFY CD, Havlak, NBody, Mandelbrot) run whole, Havlak alone
38 G instructions (most of an hour under callgrind for three builds):
leave them out with --only for a quick pass.
"""
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from loopcost import PROGRAMS, parse_args  # noqa: E402
from public import gmean  # noqa: E402


def instructions(binary, directory, argv, stdin=None):
    """Instructions executed by `binary argv` in `directory` (callgrind),
    standard input from the file `stdin` (none: empty)."""
    with tempfile.NamedTemporaryFile(suffix=".cg") as cg, \
            open(stdin or os.devnull, "rb") as inp:
        r = subprocess.run(["valgrind", "--tool=callgrind",
                            "--callgrind-out-file=" + cg.name, binary] + argv,
                           cwd=directory, stdin=inp, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    if r.returncode != 0:
        return None
    m = re.search(r"Collected : (\d+)", r.stderr.decode("utf-8", "replace"))
    if not m:
        return None
    return int(m.group(1))


def public_programs(scale):
    """(name, directory, argv, stdin) of public.py's set at `scale`."""
    import public
    out = []
    for name, d, script, argv, n, _mask in public.MANIFEST:
        if n is not None:
            n = max(1, round(n * scale))
        a = [x.replace("{n}", str(n)) for x in argv]
        kind, shim = public.EXTRA.get(name, (None, False))
        stdin = public.input_file(kind, n, "lua5.4") if kind else None
        pre = ["-e", public.SHIM] if shim else []
        out.append((name, d, pre + [script] + a, stdin))
    return out


def main():
    argv = sys.argv[1:]
    scale = None
    if argv[:1] == ["--public"]:
        scale, argv = float(argv[1]), argv[2:]
    only, bins = parse_args(argv, __doc__)
    if scale is not None:
        programs = public_programs(scale)
    else:
        programs = [(name, sub, a, None) for name, sub, a in PROGRAMS]
    names = [os.path.basename(b) for b in bins]
    print("| program | lua5.4 instructions | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(bins))
    cols = [[] for _ in bins]
    programs = [p for p in programs if not only or p[0] in only]

    def count(p):
        name, sub, a, stdin = p
        d = os.path.join(here, "public", sub)
        return [instructions(b, d, a, stdin) for b in ["lua5.4"] + bins]

    with ThreadPoolExecutor(max_workers=2) as pool:
        for (name, _, _, _), counts in zip(programs, pool.map(count, programs)):
            if None in counts:
                # A size too small for the program, or a build that fails.
                print("| %s | FAIL | %s |" % (name, " | ".join(
                    "fail" if c is None else "" for c in counts[1:])), flush=True)
                continue
            ref, ratios = counts[0], [c / counts[0] for c in counts[1:]]
            for k, r in enumerate(ratios):
                cols[k].append(r)
            print("| %s | %d | %s |" % (name, ref, " | ".join("%.3f" % r for r in ratios)),
                  flush=True)
    print("| geometric mean | | %s |" % " | ".join("**%.3f**" % gmean(c) for c in cols))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here,
                            capture_output=True, text=True).stdout.strip()
    print("\nCommit %s; callgrind `Collected`, whole process, ratio to lua5.4." % commit)


if __name__ == "__main__":
    main()
