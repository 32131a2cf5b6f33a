#!/usr/bin/env python3
"""What one statement costs, in instructions, ours beside lua5.4's.

    python3 benches/opcost.py [--only a,b] BIN [BIN...]

For each statement kind below (a field read, a field store, a call, an
array store, ...), builds a loop whose body is the statement repeated
eight times, counts the whole run with callgrind at two trip counts
(1,000 and 21,000), and divides the difference by the extra statements:
the instructions one statement costs, loop overhead shared out, start-up
and compilation cancelled. Each BIN gets a column, lua5.4 the last one,
and the ratio of the first BIN to lua5.4 ends the row. Counts are exact
for a given binary, so a change to one handler shows in its own row
(docs/PROFILING.md item 28). Takes a few minutes.
"""
import os
import re
import subprocess
import sys
import tempfile

# name -> (setup before the loop, the statement repeated in it)
PRE = {
    'getfield': ('local o = {a=1,b=2,c=3,d=4}', 'x = o.c'),
    'getfield8': ('local o = {a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8}', 'x = o.g'),
    'getfield_meta': ('local C = {m=1}; C.__index = C; local o = setmetatable({a=1,b=2,c=3}, C)', 'x = o.m'),
    'getfield_meta8': ('local C = {m=1,n=2,p=3,q=4,r=5,s=6}; C.__index = C; local o = setmetatable({a=1,b=2,c=3,d=4,e=5,f=6}, C)', 'x = o.m'),
    'method': ('local C = {}; C.__index = C; function C.m(self) return self end; local o = setmetatable({a=1,b=2,c=3}, C)', 'o:m()'),
    'setfield': ('local o = {a=1,b=2,c=3,d=4}', 'o.c = i'),
    'call0': ('local function f() end', 'f()'),
    'call1': ('local function f(a) return a end', 'x = f(i)'),
    'gettab_int': ('local t = {1,2,3,4,5,6,7,8}', 'x = t[3]'),
    'gettab_var': ('local t = {1,2,3,4,5,6,7,8}; local k = 5', 'x = t[k]'),
    'settab_var': ('local t = {1,2,3,4,5,6,7,8}; local k = 5', 't[k] = i'),
    'add': ('', 'x = x + i'),
    'fmul': ('x = 1.5', 'x = x * 1.0000001'),
    'upval': ('', 'u = u + 1'),  # inside a function, `u` its upvalue (see prog)
    'native': ('local abs = math.abs', 'x = abs(i)'),
    'closure': ('', 'x = function() return i end'),
    'eq': ('local a, b = {}, {}', 'if a == b then x = 1 end'),
    'lt': ('local a = 5', 'if i < a then x = 1 end'),
    'gettabup': ('', 'x = math'),
    'len': ('local t = {1,2,3}', 'x = #t'),
    'concat': ('local s = "ab"', 'x = s .. "c"'),
    'newtable': ('', 'x = {}'),
    'newtable2': ('', 'x = {a = i, b = i}'),
}


K = 8
N1, N2 = 1000, 21000


def prog(name, n):
    pre, body = PRE[name]
    if name == "upval":
        b = "\n".join(["u = u + 1"] * K)
        return "local x = 0\nlocal u = 0\nlocal function g() for i = 1, %d do\n%s\nend end\ng()\n" % (n, b)
    return "local x = 0\n%s\nfor i = 1, %d do\n%s\nend\n" % (pre, n, "\n".join([body] * K))


def count(binary, src, path):
    with open(path, "w") as f:
        f.write(src)
    r = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary, path],
        capture_output=True,
        text=True,
    )
    m = re.search(r"Collected : (\d+)", r.stderr)
    if not m:
        sys.exit("%s failed on %s:\n%s" % (binary, path, r.stderr[-500:]))
    return int(m.group(1))


def main():
    args = sys.argv[1:]
    names = list(PRE)
    if args[:1] == ["--only"]:
        names, args = args[1].split(","), args[2:]
    if not args:
        sys.exit(__doc__)
    bins = args + ["lua5.4"]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "op.lua")
        print("%-16s" % "statement", " ".join("%12s" % os.path.basename(b)[:12] for b in bins), "  ratio")
        for name in names:
            per = []
            for b in bins:
                c1, c2 = count(b, prog(name, N1), path), count(b, prog(name, N2), path)
                per.append((c2 - c1) / (N2 - N1) / K)
            print("%-16s" % name, " ".join("%12.1f" % p for p in per), "  %.2f" % (per[0] / per[-1]), flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print("\nCommit %s; instructions per statement (callgrind), ratio of the first build to lua5.4." % commit)


if __name__ == "__main__":
    main()
