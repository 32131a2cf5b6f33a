#!/usr/bin/env python3
"""Hot machine instructions: callgrind's per-instruction counts beside objdump.

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=/tmp/cg.out \\
        target/profiling/luprex-lua sieve.lua 100 > /dev/null
    python3 benches/hotasm.py /tmp/cg.out target/profiling/luprex-lua [FRACTION]

Prints, in address order, every instruction of the binary's own objects
(not libc's) executed at least FRACTION of all counted instructions
(default 0.001), with its count; `----` marks a gap between hot stretches.
The dispatch loop is one large function, so `callgrind_annotate`'s
per-line view mixes handlers; this view shows each handler's instructions
as the CPU runs them (spills to the Rust stack, bounds checks, taken
jumps between fragments), and the count of a handler's first instruction
is how often that opcode ran.
"""
import collections
import re
import subprocess
import sys


def counts(path, name="luprex"):
    """Instruction address -> Ir, over the objects whose name has `name`."""
    out, names = collections.Counter(), {}
    addr, ours, after_calls = 0, False, False
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"(c?ob)=\((\d+)\)\s*(.*)", line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "ob":
                ours = name in names.get(m.group(2), "")
            continue
        if line.startswith("calls="):
            after_calls = True
            continue
        if not line or line[0] not in "0123456789+-*":
            continue
        parts = line.split()
        a = parts[0]
        if a.startswith("0x"):
            addr = int(a, 16)
        elif a.startswith("+"):
            addr += int(a[1:])
        elif a.startswith("-"):
            addr -= int(a[1:])
        if after_calls:  # the inclusive cost of a call: not this instruction's
            after_calls = False
            continue
        if ours and len(parts) >= 3:
            out[addr] += int(parts[2])
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cg, binary = sys.argv[1], sys.argv[2]
    frac = float(sys.argv[3]) if len(sys.argv) > 3 else 0.001
    c = counts(cg)
    total = sum(c.values())
    least = max(1, total * frac)
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", binary],
                         capture_output=True, text=True, check=True).stdout
    prev = None
    for line in dis.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)", line)
        if not m or c.get(int(m.group(1), 16), 0) < least:
            continue
        a = int(m.group(1), 16)
        if prev is not None and a - prev > 16:
            print("   ----")
        print("%8x %12d  %s" % (a, c[a], m.group(2)))
        prev = a
    print("instructions counted in the binary's own objects:", total)


if __name__ == "__main__":
    main()
