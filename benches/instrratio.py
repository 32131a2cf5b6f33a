#!/usr/bin/env python3
"""Whole-run instructions as a ratio to lua5.4's: issue 16's yardstick without the noise.

    python3 benches/instrratio.py [--only a,b] BIN [BIN...]

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
"""
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from loopcost import PROGRAMS, parse_args  # noqa: E402
from public import gmean  # noqa: E402


def instructions(binary, directory, argv):
    """Instructions executed by `binary argv` in `directory` (callgrind)."""
    with tempfile.NamedTemporaryFile(suffix=".cg") as cg:
        r = subprocess.run(["valgrind", "--tool=callgrind",
                            "--callgrind-out-file=" + cg.name, binary] + argv,
                           cwd=directory, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, check=True)
    m = re.search(r"Collected : (\d+)", r.stderr.decode("utf-8", "replace"))
    if not m:
        sys.exit("instrratio.py: no count from callgrind for %s" % binary)
    return int(m.group(1))


def main():
    only, bins = parse_args(sys.argv[1:], __doc__)
    names = [os.path.basename(b) for b in bins]
    print("| program | lua5.4 instructions | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(bins))
    cols = [[] for _ in bins]
    for name, sub, argv in PROGRAMS:
        if only and name not in only:
            continue
        d = os.path.join(here, "public", sub)
        ref = instructions("lua5.4", d, argv)
        ratios = [instructions(b, d, argv) / ref for b in bins]
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
