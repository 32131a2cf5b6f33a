#!/usr/bin/env python3
"""The dispatch loop's cost in two repeatable counts: instructions and stack traffic.

    python3 benches/loopcost.py [--only a,b] BIN [BIN...]

For each program of a fixed list (public benchmark programs at small sizes,
from benches/public/, see public.py --fetch) and each build BIN, runs
callgrind (`--dump-instr=yes`) and counts, over `execute_loop`'s machine
instructions:

* `instr`: instructions executed;
* `stack`: executed instructions that read or write the Rust stack (an
  operand `(%rsp)`, push/pop/call excepted): spilled locals reloaded,
  values kept in memory for a call (`Value` is an aggregate to the Rust
  ABI, passed by pointer: see `Words` in vm/src/value.rs).

Both are exact for a given binary and input, whatever the machine's load,
which CPU time on a shared two-core machine is not (±10-40 % between runs
of one build). A change to the loop moves LLVM's register allocation for
all of it (docs/PROFILING.md item 18); this shows where the spills went.
A table row per program, each build as `instr/stack`, and the ratio of
each to the first build's. Counts are not time: confirm with public.py
when the machine is quiet.
"""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import hotasm  # noqa: E402
from loopdiff import loop_instructions  # noqa: E402

AWFY = "are-we-fast-yet/benchmarks/Lua"
LJ = "LuaJIT-test-cleanup/bench"
GL = "Lua-Benchmarks"
PROGRAMS = [
    ("fib", LJ, ["recursive-fib.lua", "25"]),
    ("ack", GL, ["ack.lua", "3", "6"]),
    ("sieve", GL, ["sieve.lua", "100"]),
    ("heapsort", GL, ["heapsort.lua", "1", "20000"]),
    ("fannkuch", GL, ["fannkuch-redux.lua", "8"]),
    ("array3d", LJ, ["array3d.lua", "40"]),
    ("nbody", LJ, ["nbody.lua", "50000"]),
    ("ray", LJ, ["ray.lua", "6", "16"]),
    ("spectral", LJ, ["spectral-norm.lua", "100"]),
    ("richards", AWFY, ["harness.lua", "Richards", "1", "2"]),
    ("bounce", AWFY, ["harness.lua", "Bounce", "1", "100"]),
    ("towers", AWFY, ["harness.lua", "Towers", "1", "30"]),
    ("queens", AWFY, ["harness.lua", "Queens", "1", "100"]),
    ("permute", AWFY, ["harness.lua", "Permute", "1", "60"]),
    ("json", AWFY, ["harness.lua", "Json", "1", "5"]),
    ("deltablue", AWFY, ["harness.lua", "DeltaBlue", "1", "400"]),
]


def measure(binary, loop, directory, argv):
    with tempfile.NamedTemporaryFile(suffix=".cg") as cg:
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes",
                        "--callgrind-out-file=" + cg.name, binary] + argv,
                       cwd=directory, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        c = hotasm.counts(cg.name, os.path.basename(binary))
    instr = stack = 0
    for addr, text in loop.items():
        n = c.get(addr, 0)
        instr += n
        if "(%rsp)" in text and not text.startswith(("push", "pop", "call")):
            stack += n
    return instr, stack


def parse_args(argv, usage):
    """`[--only a,b] BIN [BIN...]`: the programs kept (None: all) and the
    builds' absolute paths; exits with `usage` when no build is named."""
    only = None
    if argv[:1] == ["--only"]:
        only, argv = set(argv[1].split(",")), argv[2:]
    if not argv:
        sys.exit(usage)
    return only, [os.path.abspath(b) for b in argv]


def main():
    only, bins = parse_args(sys.argv[1:], __doc__)
    loops = {b: dict(loop_instructions(b)) for b in bins}
    print("| program | " + " | ".join(os.path.basename(b) for b in bins) + " |")
    print("|---|" + "---:|" * len(bins))
    for name, sub, argv in PROGRAMS:
        if only and name not in only:
            continue
        d = os.path.join(here, "public", sub)
        cells, first = [], None
        for b in bins:
            i, s = measure(b, loops[b], d, argv)
            if first is None:
                first = (i, s)
                cells.append("%d / %d" % (i, s))
            else:
                cells.append("%d / %d (%.3f / %.3f)" % (i, s, i / first[0], s / max(1, first[1])))
        print("| %s | %s |" % (name, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
