#!/usr/bin/env python3
"""Issue 16, collection pauses: ours against lua5.4, side by side, in one run.

    python3 benches/gc/pause.py [--live N[,N...]] [--steps N] [--modes a,b] [OURS] [REF]

OURS defaults to target/release/luprex-lua (nothing is built here: run
`cargo build --release --bin luprex-lua` first), REF to lua5.4.

For each live-heap size and collector mode it runs `benches/gc/pause.lua`
(read its header) under both interpreters, one after the other, and prints
the distribution of the loop's step times as each interpreter measured it
with os.clock (CPU time): median, p99, p99.9, the longest step (the longest
pause), the number of steps over 2 ms, how many times the heap shrank during
the loop (collections did end there), the loop's total time, and the
process's peak RSS (from /usr/bin/time). The goal of issue 16 is a longest
pause under 2 ms with 2,000,000 live tables.

Modes: `default` (the interpreter's own: the lua5.4 standalone interpreter
switches to generational mode at start-up), `incremental`, `generational`.
"""
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
script = os.path.join(here, "pause.lua")


def run(interp, live, steps, mode):
    cmd = ["/usr/bin/time", "-f", "RSS %M", interp, script, str(live), str(steps), mode]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1:] or ["failed"]
    fields = dict(re.findall(r"(\w+)=([\d.]+)", p.stdout))
    rss = re.search(r"RSS (\d+)", p.stderr)
    fields["rss_mb"] = f"{int(rss.group(1)) / 1024:.0f}" if rss else "?"
    return fields, None


def main(argv):
    lives, steps, modes = [200000, 2000000], 2000000, ["default", "incremental", "generational"]
    rest = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--live":
            lives = [int(x) for x in argv[i + 1].split(",")]
            i += 2
        elif a == "--steps":
            steps = int(argv[i + 1])
            i += 2
        elif a == "--modes":
            modes = argv[i + 1].split(",")
            i += 2
        else:
            rest.append(a)
            i += 1
    ours = rest[0] if rest else os.path.join(root, "target", "release", "luprex-lua")
    ref = rest[1] if len(rest) > 1 else "lua5.4"
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print(f"commit {commit}, {steps} loop steps, load average {os.getloadavg()[0]:.1f}\n")
    print("| live tables | mode | interpreter | median ms | p99 ms | p99.9 ms | max ms | steps > 2 ms | heap shrank | loop s | peak RSS MB |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for live in lives:
        for mode in modes:
            for name, interp in (("ours", ours), ("lua5.4", ref)):
                f, err = run(interp, live, steps, mode)
                if f is None:
                    print(f"| {live:,} | {mode} | {name} | FAIL: {err[0]} | | | | | | | |")
                    continue
                print(f"| {live:,} | {mode} | {name} | {float(f['median']):.4f} | {float(f['p99']):.4f} | "
                      f"{float(f['p999']):.3f} | **{float(f['max']):.3f}** | {f['steps_over_2ms']} | {f['shrinks']} | "
                      f"{float(f['total']):.2f} | {f['rss_mb']} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
