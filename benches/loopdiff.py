#!/usr/bin/env python3
"""Did a change move the dispatch loop's machine code? (docs/PROFILING.md item 18)

    python3 benches/loopdiff.py OLD_BINARY NEW_BINARY [--show N]

Disassembles `execute_loop` (both instances, hooked and plain) of two
builds with `objdump`, drops addresses, jump targets and other absolute
numbers of five or more hex digits, and counts the lines that differ
(`difflib`). A change outside the loop that leaves it at 0 cannot have
moved its time through the loop's code; a change to a struct inside
`State` usually does not leave it at 0, since field offsets are in the
code. `--show N` prints the first N differing lines.
"""
import difflib
import re
import subprocess
import sys


def loop_instructions(binary):
    """(address, instruction text) of every `execute_loop` symbol, in order."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary],
                         capture_output=True, text=True, check=True).stdout
    found, inside = [], False
    for line in out.splitlines():
        if re.match(r"[0-9a-f]+ <.*execute_loop.*>:$", line):
            inside = True
            continue
        if inside and not line.strip():
            inside = False
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)", line) if inside else None
        if m:
            found.append((int(m.group(1), 16), m.group(2)))
    return found


def loop_lines(binary):
    """The normalized instructions of every `execute_loop` symbol, in order."""
    lines = []
    for _, ins in loop_instructions(binary):
        ins = re.sub(r"<[^>]*>", "", ins)
        ins = re.sub(r"\b(0x)?[0-9a-f]{5,}\b", "ADDR", ins)
        lines.append(" ".join(ins.split()))
    return lines


def main():
    args = sys.argv[1:]
    show = 0
    if "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    old, new = (loop_lines(b) for b in args)
    if not old or not new:
        sys.exit("no execute_loop symbol (a stripped binary?)")
    diff = [d for d in difflib.unified_diff(old, new, lineterm="", n=0)
            if d[:1] in "+-" and not d.startswith(("+++", "---"))]
    changed = sum(1 for d in diff if d.startswith("+"))
    print(f"execute_loop: {len(old)} -> {len(new)} instructions, {changed} lines differ")
    for d in diff[:show]:
        print("  " + d)


if __name__ == "__main__":
    main()
