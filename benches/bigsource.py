#!/usr/bin/env python3
"""Issue 16, "loading big sources": generate Lua data files and time loading them.

    python3 benches/bigsource.py [--runs N] [--only a,b] [--scale F] [OURS] [REF]

OURS defaults to target/release/luprex-lua (nothing is built here: run
`cargo build --release --bin luprex-lua` first), REF to lua5.4.

The files are written to target/bigsource/ (git-ignored, rewritten when the
generator changes: they are deterministic). Each file is a data file of a kind
people load: it builds one big table, then prints a small checksum so that the
two interpreters' outputs can be compared (a row whose outputs differ is marked
MISMATCH). The kinds:

* `array`:   `return {1, 2.5, ...}` with 1,000,000 numbers (integers and floats);
* `records`: an array of 200,000 records `{name="n123", x=1.5, y=2, tags={"a","b"}}`;
* `keyed`:   a nested keyed table: 2,000 string keys, each a table of 50 string
  keys with numbers and strings (100,000 leaves);
* `append`:  200,000 statements `t[#t+1] = {id=..., v=...}`, in blocks
  `do local function part() ... end part() end` of 1,000 statements each;
* `statements`: 200,000 statements `t[#t+1] = {...}` directly in the main chunk.

For each file and interpreter, the run is repeated --runs times (3 by default) and the
best user+sys CPU time and the best max RSS (both from `/usr/bin/time`) are kept.
The runs of the two interpreters alternate, so both see the same machine load. The table gives the ratios ours/ref; the goal of issue 16 is <= 2 on both.
"""
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
outdir = os.path.join(root, "target", "bigsource")

GENERATOR_VERSION = "2"


def gen_array(n):
    out = ["return {"]
    line = []
    for i in range(n):
        line.append(str(i * 7 % 1000003) if i % 3 else "%d.5" % (i % 1000))
        if len(line) == 20:
            out.append(", ".join(line) + ",")
            line = []
    if line:
        out.append(", ".join(line) + ",")
    out.append("}")
    return "\n".join(out) + "\n"


def gen_records(n):
    out = ["return {"]
    for i in range(n):
        out.append('  {name="n%d", x=%d.5, y=%d, tags={"a","b"}},' % (i, i % 977, i % 101))
    out.append("}")
    return "\n".join(out) + "\n"


def gen_keyed(outer, inner):
    out = ["return {"]
    for i in range(outer):
        out.append("  key_%d = {" % i)
        for j in range(inner):
            if j % 2:
                out.append('    field_%d = "value %d %d",' % (j, i, j))
            else:
                out.append("    field_%d = %d," % (j, i * inner + j))
        out.append("  },")
    out.append("}")
    return "\n".join(out) + "\n"


def gen_append(n, per_function):
    out = ["local t = {}"]
    for start in range(0, n, per_function):
        out.append("do local function part()")
        for i in range(start, min(n, start + per_function)):
            out.append('  t[#t+1] = {id=%d, v=%d.25, s="s%d"}' % (i, i % 1000, i % 97))
        out.append("end part() end")
    out.append("return t")
    return "\n".join(out) + "\n"


def gen_statements(n):
    out = ["local t = {}"]
    for i in range(n):
        out.append('t[#t+1] = {id=%d, v=%d.25, s="s%d"}' % (i, i % 1000, i % 97))
    out.append("return t")
    return "\n".join(out) + "\n"


# Each data file is loaded by a driver (as `lua5.4 driver.lua data.lua`): dofile, then a
# checksum that visits the whole table.
DRIVER = r"""
local t = dofile(arg[1])
local n, s = 0, 0
local function visit(v)
  local ty = type(v)
  if ty == "table" then
    for k, x in pairs(v) do n = n + 1; visit(x) end
  elseif ty == "number" then s = s + v
  elseif ty == "string" then s = s + #v end
end
visit(t)
print(n, s)
"""


def kinds(scale):
    def sz(n):
        return max(1, int(n * scale))

    return [
        ("array", lambda: gen_array(sz(1_000_000))),
        ("records", lambda: gen_records(sz(200_000))),
        ("keyed", lambda: gen_keyed(sz(2_000), 50)),
        ("append", lambda: gen_append(sz(200_000), 1000)),
        ("statements", lambda: gen_statements(sz(200_000))),
    ]


def ensure(name, gen, scale):
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "%s.lua" % name)
    stamp = path + ".stamp"
    want = "%s %s" % (GENERATOR_VERSION, scale)
    if os.path.exists(path) and os.path.exists(stamp) and open(stamp).read() == want:
        return path
    with open(path, "w") as f:
        f.write(gen())
    with open(stamp, "w") as f:
        f.write(want)
    return path


def run(interp, driver, data):
    # /usr/bin/time measures the child alone: a child forked from this Python process would
    # report Python's own RSS as its high-water mark (it survives the exec).
    fmt = "@@@ %U %S %M"
    p = subprocess.run(
        ["/usr/bin/time", "-f", fmt, interp, driver, data],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    err = p.stderr.decode(errors="replace")
    m = re.search(r"@@@ ([0-9.]+) ([0-9.]+) ([0-9]+)\s*$", err)
    if not m:
        return False, p.stdout, err, 0.0, 0.0
    cpu = float(m.group(1)) + float(m.group(2))
    rss_mb = int(m.group(3)) / 1024.0  # KiB
    err = err[: m.start()]
    if "Command exited with non-zero status" in err:
        return False, p.stdout, err, cpu, rss_mb
    return p.returncode == 0, p.stdout, err, cpu, rss_mb


def main():
    args = sys.argv[1:]
    runs, only, scale, pos = 3, None, 1.0, []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--runs":
            i += 1
            runs = int(args[i])
        elif a == "--only":
            i += 1
            only = args[i].split(",")
        elif a == "--scale":
            i += 1
            scale = float(args[i])
        else:
            pos.append(a)
        i += 1
    ours = pos[0] if len(pos) > 0 else os.path.join(root, "target", "release", "luprex-lua")
    ref = pos[1] if len(pos) > 1 else "lua5.4"
    os.makedirs(outdir, exist_ok=True)
    driver = os.path.join(outdir, "driver.lua")
    with open(driver, "w") as f:
        f.write(DRIVER)

    rows = []
    for name, gen in kinds(scale):
        if only and name not in only:
            continue
        data = ensure(name, gen, scale)
        size_mb = os.path.getsize(data) / 1e6
        best = {"ours": [1e9, 1e9], "ref": [1e9, 1e9]}
        outs = {}
        status = "ok"
        for _ in range(runs):
            for who, interp in (("ref", ref), ("ours", ours)):
                ok, out, err, cpu, rss = run(interp, driver, data)
                if not ok and status == "ok":
                    msg = err.decode(errors="replace") if isinstance(err, bytes) else str(err)
                    status = "FAIL (%s): %s" % (who, msg.strip()[:200])
                outs.setdefault(who, out)
                best[who][0] = min(best[who][0], cpu)
                best[who][1] = min(best[who][1], rss)
        if status == "ok" and outs["ours"] != outs["ref"]:
            status = "MISMATCH %r vs %r" % (outs["ours"], outs["ref"])
        rows.append((name, size_mb, best, status))

    print("| file | size MB | lua5.4 s | ours s | time ratio | lua5.4 MB | ours MB | memory ratio | status |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, size_mb, best, status in rows:
        (ot, om), (rt, rm) = best["ours"], best["ref"]
        print(
            "| %s | %.1f | %.2f | %.2f | %.2f | %.0f | %.0f | %.2f | %s |"
            % (name, size_mb, rt, ot, ot / max(rt, 1e-9), rm, om, om / max(rm, 1e-9), status)
        )


if __name__ == "__main__":
    main()
