#!/usr/bin/env python3
"""What one statement costs, in instructions, ours beside lua5.4's.

    python3 benches/opcost.py [--lib] [--only a,b] BIN [BIN...]

For each statement kind below (a field read, a field store, a call, an
array store, ...), builds a loop whose body is the statement repeated
eight times, counts the whole run with callgrind at two trip counts
(1,000 and 21,000), and divides the difference by the extra statements:
the instructions one statement costs, loop overhead shared out, start-up
and compilation cancelled. Each BIN gets a column, lua5.4 the last one,
and the ratio of the first BIN to lua5.4 ends the row. Counts are exact
for a given binary, so a change to one handler shows in its own row
(docs/PROFILING.md item 28). Takes a few minutes. `--lib` measures
library calls instead (string, table, math, base and coroutine functions).
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
    'fornum2': ('local n = 2', 'for j = 1, n do x = j end'),
    'eq': ('local a, b = {}, {}', 'if a == b then x = 1 end'),
    'eq_int': ('local a = 5', 'if i == a then x = 1 end'),
    'eq_str': ('local a, b = "abc", "abd"', 'if a == b then x = 1 end'),
    'eqk_str': ('local s = "abc"', 'if s == "abd" then x = 1 end'),
    'gettab_str': ('local t = {abc = 1}; local k = "abc"', 'x = t[k]'),
    'lt': ('local a = 5', 'if i < a then x = 1 end'),
    'gettabup': ('', 'x = math'),
    'len': ('local t = {1,2,3}', 'x = #t'),
    'concat': ('local s = "ab"', 'x = s .. "c"'),
    'concat_long': ('local s = ("a"):rep(60)', 'x = s .. "c"'),
    'newtable': ('', 'x = {}'),
    'newtable2': ('', 'x = {a = i, b = i}'),
    # a full hash part grown by one key: a rebuild (merkletrees' `tree.hash = ...`)
    'grow_key': ('', 'x = {a = i, b = i}; x.c = i'),
    'meta_add': ('local o = setmetatable({}, {__add = function(a, b) return a end})', 'x = o + o'),
    'meta_newindex_fn': ('local o = setmetatable({}, {__newindex = function(t, k, v) end})', 'o.z = i'),
    'meta_index_fn': ('local o = setmetatable({}, {__index = function(t, k) return k end})', 'x = o.z'),
    'meta_lt': ('local mt = {__lt = function(a, b) return true end}; local a, b = setmetatable({}, mt), setmetatable({}, mt)', 'if a < b then x = 1 end'),
}

# The same for library calls (`--lib`): where a program's time is in the
# standard library, not in the dispatch loop.
LIB = {
    'format_d': ('', 'x = string.format("%d", i)'),
    'format_f': ('', 'x = string.format("%.3f", i / 7)'),
    'format_s': ('local s = "abc"', 'x = string.format("%s-%s", s, s)'),
    'tostring_i': ('', 'x = tostring(i)'),
    'tostring_f': ('', 'x = tostring(i + 0.5)'),
    'tonumber_s': ('local s = "12345"', 'x = tonumber(s)'),
    'concat_num': ('', 'x = "k" .. i'),
    'str_arith': ('local s = "10"', 'x = s + i'),
    'sub': ('local s = "hello world"', 'x = s:sub(2, 5)'),
    'byte': ('local s = "hello world"', 'x = s:byte(3)'),
    'char': ('', 'x = string.char(65, 66)'),
    'upper': ('local s = "hello"', 'x = s:upper()'),
    'rep': ('local s = "ab"', 'x = s:rep(4)'),
    'len_str': ('local s = "hello"', 'x = #s'),
    'str_lt': ('local a, b = "abc", "abd"', 'if a < b then x = 1 end'),
    'find_plain': ('local s = "hello world"', 'x = s:find("wor", 1, true)'),
    'find_pat': ('local s = "hello world 42"', 'x = s:find("%d+")'),
    'match_cap': ('local s = "key=value"', 'x = s:match("(%w+)=(%w+)")'),
    'gsub_str': ('local s = "hello world"', 'x = s:gsub("o", "0")'),
    'gmatch_words': ('local s = "the quick brown fox"', 'for w in s:gmatch("%a+") do x = w end'),
    'tinsert': ('local t = {}', 'table.insert(t, i)'),
    'tinsert_remove': ('local t = {1, 2, 3}', 'table.insert(t, i); table.remove(t)'),
    'tconcat': ('local t = {"a", "b", "c", "d"}', 'x = table.concat(t, ",")'),
    'unpack': ('local t = {1, 2, 3}', 'x = table.unpack(t)'),
    'select_n': ('local function f(...) return select("#", ...) end', 'x = f(1, 2, 3)'),
    'forlua3': ('local function it(_, i) if i < 3 then return i + 1 end end', 'for j in it, nil, 0 do x = j end'),
    'ipairs3': ('local t = {1, 2, 3}', 'for _, v in ipairs(t) do x = v end'),
    'pairs3': ('local t = {a = 1, b = 2, c = 3}', 'for _, v in pairs(t) do x = v end'),
    'next': ('local t = {a = 1}', 'x = next(t)'),
    'type': ('', 'x = type(i)'),
    'assert': ('', 'assert(i)'),
    'floor': ('local floor = math.floor', 'x = floor(i / 3)'),
    'sqrt': ('local sqrt = math.sqrt', 'x = sqrt(i)'),
    'random': ('', 'x = math.random(100)'),
    'setmeta': ('local mt = {}', 'x = setmetatable({}, mt)'),
    'rawget': ('local t = {a = 1}', 'x = rawget(t, "a")'),
    'pcall': ('local function f() end', 'pcall(f)'),
    'cowrap': ('local co = coroutine.wrap(function() while true do coroutine.yield(1) end end)', 'x = co()'),
    'coresume': ('local co = coroutine.create(function() while true do coroutine.yield(1) end end); local resume = coroutine.resume', 'local ok, v = resume(co)'),
    'sort10': ('local src = {5, 3, 8, 1, 9, 2, 7, 4, 6, 0}', 'local t = {table.unpack(src)}; table.sort(t)'),
}

K = 8
N1, N2 = 1000, 21000


def prog(name, n):
    pre, body = PRE[name] if name in PRE else LIB[name]
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
    if args[:1] == ["--lib"]:
        names, args = list(LIB), args[1:]
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
