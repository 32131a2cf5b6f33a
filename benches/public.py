#!/usr/bin/env python3
"""Issue 16, "interpreter speed": public benchmark programs, ours vs lua5.4 vs luajit -joff.

    python3 benches/public.py --fetch [--mirror DIR]   # get the programs (once)
    python3 benches/public.py [--runs N] [--only a,b] [--no-luajit] [--scale F] [OURS] [REF]

The programs come from suites we did not write (the MANIFEST below names each
one's repository, path and size argument). They are never committed: `--fetch`
clones the repositories (`git clone --depth 1`) into `benches/public/`, which is
git-ignored. `--mirror DIR` clones from local copies instead: for a repository
`owner/name` it tries `DIR/owner+name/repo`, `DIR/owner+name`, `DIR/owner/name`
and `DIR/name` (a bare git directory or a checkout).

OURS defaults to target/release/luprex-lua (nothing is built here: run
`cargo build --release --bin luprex-lua` first), REF to lua5.4. A third column
runs `luajit -joff` (LuaJIT's interpreter, the long-term aim) when `luajit` is
installed. For each program the interpreters run alternately, --runs times
(1 by default), and the best user+sys CPU time of the child (from
`/usr/bin/time`) is kept. A row is MISMATCH when ours' stdout differs from
lua5.4's (after masking the timings that some harnesses print, see `mask`),
FAIL when ours exits non-zero. The geometric means leave those rows out.
`--scale F` multiplies each program's size argument (rounded) for quick runs.
The maximum resident size of each run is recorded too (`%M`): after the
table, the geometric mean of ours/lua5.4 (and before/lua5.4) and a table of
the programs above 16 MB whose ratio is above 1.5 or moved by more than
10 % against before (a change to allocation needs a memory check,
docs/PROFILING.md item 65).
`--before BIN` also runs another build of ours (say, of the previous commit,
copied aside) in the same alternation, for a before/after comparison under
the same machine load: an extra column before/lua5.4 and its geometric mean.

Some programs read standard input (k-nucleotide, regex-dna, revcomp,
sum-file): their input is generated once into benches/public/inputs/ (see
EXTRA). Some LuaJIT programs call Lua 5.1's `loadstring` and `unpack`: they
run with SHIM defined first (`-e`), for every interpreter alike.
"""
import math
import os
import re
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
pubdir = os.path.join(here, "public")

REPOS = {
    # directory under benches/public/ -> repository
    "are-we-fast-yet": "smarr/are-we-fast-yet",
    "LuaJIT-test-cleanup": "LuaJIT/LuaJIT-test-cleanup",
    "Lua-Benchmarks": "gligneul/Lua-Benchmarks",
    "pallene": "pallene-lang/pallene",
    "luau": "luau-lang/luau",
}

AWFY = "are-we-fast-yet/benchmarks/Lua"
LJ = "LuaJIT-test-cleanup/bench"
GL = "Lua-Benchmarks"
# Pallene's benchmarks: BENCH/main.lua requires the module named by its
# first argument; "lua" is BENCH/lua.lua, the plain Lua version.
PAL = "pallene/benchmarks/"
# Luau's benchmark suite, bench/tests: the programs that run on Lua 5.4
# given LUAU_SHIM (see there).
LU = "luau/bench/tests"
# The Are-We-Fast-Yet harness prints the time of each iteration in microseconds.
US = r"[0-9]+us"

# (name, directory under benches/public/, script, arguments, size n, mask regex or None)
# The argument "{n}" is replaced by the size n (for the AWFY harness it is the
# inner iteration count, or the outer one where the benchmark verifies a fixed
# inner size), chosen so that lua5.4 takes ~1 s on the
# development machine (2026-11, a shared 2-core VM).
MANIFEST = [
    # smarr/are-we-fast-yet, benchmarks/Lua: harness.lua NAME ITERATIONS INNER
    ("awfy-bounce", AWFY, "harness.lua", ["Bounce", "1", "{n}"], 1800, US),
    ("awfy-cd", AWFY, "harness.lua", ["CD", "{n}", "100"], 1, US),
    ("awfy-deltablue", AWFY, "harness.lua", ["DeltaBlue", "1", "{n}"], 8000, US),
    ("awfy-havlak", AWFY, "harness.lua", ["Havlak", "{n}", "1"], 1, US),
    ("awfy-json", AWFY, "harness.lua", ["Json", "1", "{n}"], 100, US),
    ("awfy-list", AWFY, "harness.lua", ["List", "1", "{n}"], 3000, US),
    ("awfy-mandelbrot", AWFY, "harness.lua", ["Mandelbrot", "{n}", "500"], 5, US),
    ("awfy-nbody", AWFY, "harness.lua", ["NBody", "{n}", "250000"], 2, US),
    ("awfy-permute", AWFY, "harness.lua", ["Permute", "1", "{n}"], 1500, US),
    ("awfy-queens", AWFY, "harness.lua", ["Queens", "1", "{n}"], 2000, US),
    ("awfy-richards", AWFY, "harness.lua", ["Richards", "1", "{n}"], 40, US),
    ("awfy-sieve", AWFY, "harness.lua", ["Sieve", "1", "{n}"], 5000, US),
    ("awfy-storage", AWFY, "harness.lua", ["Storage", "1", "{n}"], 700, US),
    ("awfy-towers", AWFY, "harness.lua", ["Towers", "1", "{n}"], 750, US),
    # LuaJIT/LuaJIT-test-cleanup, bench/ (those that run on Lua 5.4 unmodified)
    ("lj-array3d", LJ, "array3d.lua", ["{n}"], 180, None),
    ("lj-binary-trees", LJ, "binary-trees.lua", ["{n}"], 15, None),
    ("lj-coroutine-ring", LJ, "coroutine-ring.lua", ["{n}"], 12000000, None),
    ("lj-life", LJ, "life.lua", [], None, None),
    ("lj-nbody", LJ, "nbody.lua", ["{n}"], 700000, None),
    ("lj-nsieve", LJ, "nsieve.lua", ["{n}"], 10, None),
    ("lj-nsieve-bit-fp", LJ, "nsieve-bit-fp.lua", ["{n}"], 9, None),
    ("lj-partialsums", LJ, "partialsums.lua", ["{n}"], 6000000, None),
    ("lj-ray", LJ, "ray.lua", ["6", "{n}"], 96, None),
    ("lj-recursive-ack", LJ, "recursive-ack.lua", ["{n}"], 10, None),
    ("lj-recursive-fib", LJ, "recursive-fib.lua", ["{n}"], 36, None),
    ("lj-series", LJ, "series.lua", ["{n}"], 10000, r"[0-9.]+ s, [0-9.]+ iterations/s"),
    ("lj-spectral-norm", LJ, "spectral-norm.lua", ["{n}"], 800, None),
    # gligneul/Lua-Benchmarks
    ("gl-ack", GL, "ack.lua", ["3", "{n}"], 10, None),
    ("gl-fixpoint-fact", GL, "fixpoint-fact.lua", ["{n}"], 3000, None),
    ("gl-heapsort", GL, "heapsort.lua", ["10", "{n}"], 130000, None),
    ("gl-mandel", GL, "mandel.lua", [], None, None),
    # qt.lua prints its own timings and collectgarbage("count") in MB
    ("gl-juliaset", GL, "qt.lua", [], None, r"[-0-9.e]+ sec|\t[0-9]+M"),
    ("gl-queen", GL, "queen.lua", ["{n}"], 12, None),
    ("gl-sieve", GL, "sieve.lua", ["{n}"], 5000, None),
    ("gl-fannkuch-redux", GL, "fannkuch-redux.lua", ["{n}"], 10, None),
    ("gl-fasta", GL, "fasta.lua", ["{n}"], 2000000, None),
    # Programs that read standard input (see EXTRA: the input each reads).
    ("gl-k-nucleotide", GL, "k-nucleotide.lua", [], 150000, None),
    ("gl-regex-dna", GL, "regex-dna.lua", [], 250000, None),
    ("lj-k-nucleotide", LJ, "k-nucleotide.lua", [], 150000, None),
    ("lj-sum-file", LJ, "sum-file.lua", [], 3000000, None),
    ("lj-revcomp", LJ, "revcomp.lua", [], 2000000, None),
    # LuaJIT programs written for Lua 5.1 (see EXTRA: SHIM), and one that
    # runs unmodified.
    ("lj-chameneos", LJ, "chameneos.lua", ["{n}"], 1000000, None),
    ("lj-fannkuch", LJ, "fannkuch.lua", ["{n}"], 10, None),
    ("lj-fasta", LJ, "fasta.lua", ["{n}"], 1300000, None),
    ("lj-mandelbrot", LJ, "mandelbrot.lua", ["{n}"], 1100, None),
    ("lj-pidigits", LJ, "pidigits-nogmp.lua", ["{n}"], 1300, None),
    # meteor stops after n solutions, found in `pairs` order, which Lua
    # leaves unspecified (ours is insertion order): past the puzzle's 2,098
    # solutions it finds them all and prints the same boards (lua5.4 0.4 s).
    ("lj-meteor", LJ, "meteor.lua", ["{n}"], 2100, None),
    # pallene-lang/pallene, benchmarks/*/main.lua with the plain Lua module
    ("pal-binarytrees", PAL + "binarytrees", "main.lua", ["lua", "{n}"], 14, None),
    ("pal-binsearch", PAL + "binsearch", "main.lua", ["lua", "{n}"], 2000000, None),
    ("pal-centroid", PAL + "centroid", "main.lua", ["lua", "10000", "{n}"], 7000, None),
    ("pal-conway", PAL + "conway", "main.lua", ["lua", "{n}"], 1400, None),
    ("pal-fannkuchredux", PAL + "fannkuchredux", "main.lua", ["lua", "{n}"], 10, None),
    ("pal-fasta", PAL + "fasta", "main.lua", ["lua", "{n}"], 800000, None),
    ("pal-mandelbrot", PAL + "mandelbrot", "main.lua", ["lua", "{n}"], 1250, None),
    ("pal-matmul", PAL + "matmul", "main.lua", ["lua", "200", "{n}"], 10, None),
    ("pal-nbody", PAL + "nbody", "main.lua", ["lua", "{n}"], 500000, None),
    ("pal-objmandelbrot", PAL + "objmandelbrot", "main.lua", ["lua", "{n}"], 280, None),
    ("pal-queen", PAL + "queen", "main.lua", ["lua", "{n}"], 12, None),
    ("pal-sieve", PAL + "sieve", "main.lua", ["lua", "100000", "{n}"], 300, None),
    ("pal-spectralnorm", PAL + "spectralnorm", "main.lua", ["lua", "{n}"], 800, None),
    # luau-lang/luau, bench/tests (LUAU_SHIM: n is the number of runs of
    # each test's function).
    ("luau-life", LU, "life.lua", [], 16, None),
    ("luau-ack", LU + "/shootout", "ack.lua", [], 22, None),
    ("luau-binary-trees", LU + "/shootout", "binary-trees.lua", [], 32, None),
    ("luau-fannkuch-redux", LU + "/shootout", "fannkuch-redux.lua", [], 92, None),
    ("luau-fixpoint-fact", LU + "/shootout", "fixpoint-fact.lua", [], 8, None),
    ("luau-heapsort", LU + "/shootout", "heapsort.lua", [], 43, None),
    ("luau-mandel", LU + "/shootout", "mandel.lua", [], 11, None),
    ("luau-n-body", LU + "/shootout", "n-body.lua", [], 30, None),
    ("luau-qt", LU + "/shootout", "qt.lua", [], 13, None),
    ("luau-queen", LU + "/shootout", "queen.lua", [], 532, None),
    ("luau-scimark", LU + "/shootout", "scimark.lua", [], 18, None),
    ("luau-spectral-norm", LU + "/shootout", "spectral-norm.lua", [], 69, None),
    ("luau-sieve", LU, "sieve.lua", [], 5, None),
    ("luau-ss-3d-cube", LU + "/sunspider", "3d-cube.lua", [], 119, None),
    ("luau-ss-3d-morph", LU + "/sunspider", "3d-morph.lua", [], 107, None),
    ("luau-ss-3d-raytrace", LU + "/sunspider", "3d-raytrace.lua", [], 68, None),
    ("luau-ss-controlflow-recursive", LU + "/sunspider", "controlflow-recursive.lua", [], 226, None),
    ("luau-ss-fannkuch", LU + "/sunspider", "fannkuch.lua", [], 43, None),
    ("luau-ss-math-partial-sums", LU + "/sunspider", "math-partial-sums.lua", [], 142, None),
    ("luau-ss-crypto-aes", LU + "/sunspider", "crypto-aes.lua", [], 22, None),
    ("luau-ss-math-cordic", LU + "/sunspider", "math-cordic.lua", [], 16, None),
    ("luau-tictactoe", LU, "tictactoe.lua", [], 4, None),
    ("luau-vm-http", LU + "/vibemark67", "http.lua", [], 2, None),
    ("luau-vm-luau-interp", LU + "/vibemark67", "luau_interp.lua", [], 9, None),
    ("luau-vm-raytrace", LU + "/vibemark67", "raytrace.lua", [], 1, None),
    ("luau-vm-regex", LU + "/vibemark67", "regex.lua", [], 2, None),
    ("luau-vm-typeset", LU + "/vibemark67", "typeset.lua", [], 4, None),
    ("luau-zef-air", LU + "/zefbench", "air.lua", [], 1, None),
    ("luau-zef-basic", LU + "/zefbench", "basic.lua", [], 1, None),
    ("luau-zef-cdx", LU + "/zefbench", "cdx.lua", [], 1, None),
    ("luau-zef-richards", LU + "/zefbench", "richards.lua", [], 1, None),
    ("luau-base64", LU, "base64.lua", [], 16, None),
    ("luau-chess", LU, "chess.lua", [], 3, None),
    ("luau-sha256", LU, "sha256.lua", [], 3, None),
    ("luau-matrixmult", LU, "matrixmult.lua", [], 62, None),
    ("luau-qsort", LU, "qsort.lua", [], 9, None),
    ("luau-trig", LU, "trig.lua", [], 30, None),
    ("luau-pollard-rho-bit32", LU + "/integers", "pollard_rho_bit32.lua", [], 1, None),
]

# The 5.1 functions some LuaJIT programs call, defined before the script
# runs (`-e`), the same for every interpreter.
SHIM = "loadstring = load; unpack = table.unpack"

# Luau's tests `require("bench_support")` and call Luau's library
# extensions (bit32, table.create...): benches/luau_shim.lua, our stand-in
# for both, is run first (`-e`) with LUAU_REPS set to the program's size.
LUAU_SHIM = os.path.join(here, "luau_shim.lua")

# name -> (what its standard input is, whether it needs SHIM). For a program
# that reads standard input, its size n is the size of that input: "fasta"
# is the output of Lua-Benchmarks' fasta.lua for n (written by lua5.4), the
# benchmarks game's input for k-nucleotide, regex-dna and revcomp; "nums"
# is n lines of integers (sum-file's input). Inputs are written once into
# benches/public/inputs/ (git-ignored with the rest).
EXTRA = {
    "gl-k-nucleotide": ("fasta", False),
    "gl-regex-dna": ("fasta", False),
    "lj-k-nucleotide": ("fasta", False),
    "lj-sum-file": ("nums", False),
    "lj-revcomp": ("fasta", True),
    "lj-fannkuch": (None, True),
    "lj-fasta": (None, True),
    "lj-mandelbrot": (None, True),
    "lj-pidigits": (None, True),
    "lj-meteor": (None, True),
}


def input_file(kind, n, ref):
    """The path of the `kind` input of size n, written first if absent."""
    d = os.path.join(pubdir, "inputs")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "%s-%d.txt" % (kind, n))
    if os.path.exists(path):
        return path
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        if kind == "fasta":
            subprocess.run([ref, "fasta.lua", str(n)], cwd=os.path.join(pubdir, GL),
                           stdout=f, check=True)
        else:
            for i in range(n):
                f.write(b"%d\n" % ((i * 7919) % 1000 - 500))
    os.rename(tmp, path)
    return path


def mirror_source(mirror, repo):
    owner, name = repo.split("/")
    for cand in (
        os.path.join(mirror, owner + "+" + name, "repo"),
        os.path.join(mirror, owner + "+" + name),
        os.path.join(mirror, owner, name),
        os.path.join(mirror, name),
    ):
        if os.path.isdir(cand):
            return cand
    return None


def fetch(mirror):
    os.makedirs(pubdir, exist_ok=True)
    for d, repo in REPOS.items():
        dest = os.path.join(pubdir, d)
        if os.path.isdir(dest):
            print("%s: already in %s" % (repo, dest))
            continue
        src = "https://github.com/%s" % repo
        if mirror:
            src = mirror_source(mirror, repo)
            if src is None:
                sys.exit("public.py: no copy of %s under %s" % (repo, mirror))
            src = "file://" + os.path.abspath(src)
        print("%s: git clone --depth 1 %s" % (repo, src))
        subprocess.run(["git", "clone", "-q", "--depth", "1", src, dest], check=True)


def run(cmd, cwd, stdin=None):
    """(ok, stdout, stderr, cpu seconds, max RSS in KB) of one run, CPU and
    memory from /usr/bin/time; standard input from the file `stdin` (none:
    empty)."""
    with open(stdin or os.devnull, "rb") as inp:
        p = subprocess.run(
            ["/usr/bin/time", "-f", "@@@ %U %S %M"] + cmd,
            cwd=cwd,
            stdin=inp,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    err = p.stderr.decode(errors="replace")
    m = re.search(r"@@@ ([0-9.]+) ([0-9.]+) ([0-9]+)\s*$", err)
    cpu = float(m.group(1)) + float(m.group(2)) if m else 0.0
    rss = int(m.group(3)) if m else 0
    if m:
        err = err[: m.start()]
    ok = p.returncode == 0 and "Command exited with non-zero status" not in err
    return ok, p.stdout, err, cpu, rss


def report_memory(mem):
    """Maximum resident size, ours against lua5.4 (and before, if run):
    geometric means, and the programs above 16 MB whose ratio is above 1.5
    or moved by more than 10 % against before."""
    print()
    print("Max RSS ours/lua5.4: geometric mean %.2f" % gmean([o / l for _, l, o, _ in mem if l > 0]))
    with_before = [m for m in mem if m[3]]
    if with_before:
        print("Max RSS before/lua5.4: geometric mean %.2f"
              % gmean([b / l for _, l, _, b in with_before if l > 0]))
    # Below 16 MB the ratio is the binaries' own size (ours starts at
    # about 4 MB, lua5.4 at 2.5 MB).
    shown = [m for m in mem if m[1] > 0 and max(m[1], m[2]) > 16 * 1024
             and (m[2] / m[1] > 1.5 or (m[3] and abs(m[2] / m[3] - 1) > 0.1))]
    if shown:
        print()
        print("| program | lua5.4 MB | ours MB | ours/lua5.4 | before MB |")
        print("|---|---:|---:|---:|---:|")
        for name, l, o, b in shown:
            print("| %s | %.1f | %.1f | %.2f | %s |"
                  % (name, l / 1024, o / 1024, o / l, "%.1f" % (b / 1024) if b else "-"))


def masked(out, mask):
    return re.sub(mask.encode(), b"#", out) if mask else out


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    args = sys.argv[1:]
    runs, only, scale, pos, use_jit, mirror, do_fetch = 1, None, 1.0, [], True, None, False
    before = None
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
        elif a == "--before":
            i += 1
            before = os.path.abspath(args[i])
        elif a == "--no-luajit":
            use_jit = False
        elif a == "--fetch":
            do_fetch = True
        elif a == "--mirror":
            i += 1
            mirror = args[i]
        elif a in ("-h", "--help"):
            print(__doc__)
            return
        else:
            pos.append(a)
        i += 1
    if do_fetch:
        fetch(mirror)
        return
    ours = pos[0] if len(pos) > 0 else os.path.join(root, "target", "release", "luprex-lua")
    ours = os.path.abspath(ours) if os.sep in ours else shutil.which(ours)
    ref = pos[1] if len(pos) > 1 else "lua5.4"
    interps = [("lua5.4", [ref]), ("ours", [ours])]
    if use_jit and shutil.which("luajit"):
        interps.append(("luajit", ["luajit", "-joff"]))
    have_jit = len(interps) == 3
    if before:
        interps.append(("before", [before]))
    if not os.path.isdir(pubdir):
        sys.exit("public.py: no %s: run `python3 benches/public.py --fetch` first" % pubdir)

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                            stdout=subprocess.PIPE).stdout.decode().strip()
    rows, jit_r, before_r, notes = [], [], [], []
    ours_named = []  # (ratio ours/lua5.4, program)
    mem = []  # (program, max RSS in KB of lua5.4, ours, before or None)
    for name, d, script, argv, n, mask in MANIFEST:
        if only and name not in only:
            continue
        cwd = os.path.join(pubdir, d)
        if n is not None:
            n = max(1, round(n * scale))
        a = [x.replace("{n}", str(n)) for x in argv]
        kind, shim = EXTRA.get(name, (None, False))
        stdin = input_file(kind, n, ref) if kind else None
        pre = ["-e", SHIM] if shim else []
        if d.startswith(LU):
            with open(LUAU_SHIM) as f:
                pre = ["-e", "LUAU_REPS = %d\n" % n + f.read()]
        sys.stderr.write("running %s %s...\n" % (name, " ".join(a)))
        sys.stderr.flush()
        best, outs, errs, rss = {}, {}, {}, {}
        for _ in range(runs):
            for who, cmd in interps:
                ok, out, err, cpu, kb = run(cmd + pre + [script] + a, cwd, stdin)
                rss[who] = max(rss.get(who, 0), kb)
                if not ok:
                    errs.setdefault(who, err.strip().split("\n")[-1][:200])
                outs.setdefault(who, masked(out, mask))
                if masked(out, mask) != outs[who]:
                    errs.setdefault(who, "nondeterministic output")
                best[who] = min(best.get(who, cpu), cpu)
        status = "ok"
        if "lua5.4" in errs:
            status = "REF ERROR"
            notes.append("%s: lua5.4 failed: %s" % (name, errs["lua5.4"]))
        elif "ours" in errs:
            status = "FAIL"
            notes.append("%s: ours failed: %s" % (name, errs["ours"]))
        elif outs["ours"] != outs["lua5.4"]:
            status = "MISMATCH"
            notes.append("%s: output differs: lua5.4 %r, ours %r"
                         % (name, outs["lua5.4"][-120:], outs["ours"][-120:]))
        r = best["ours"] / best["lua5.4"] if best["lua5.4"] > 0 else float("nan")
        shown = " ".join(a) + (" < %s %d" % (kind, n) if kind else "") + (" (5.1 shim)" if shim else "")
        row = [name, shown, "%.3f" % best["lua5.4"], "%.3f" % best["ours"], "%.2f" % r]
        if status == "ok" and best["lua5.4"] > 0:
            ours_named.append((r, name))
            mem.append((name, rss["lua5.4"], rss["ours"], rss.get("before")))
        if have_jit:
            j = best["luajit"] / best["lua5.4"] if best["lua5.4"] > 0 else float("nan")
            jflag = ""
            if "luajit" in errs:
                jflag = " (error)"
            elif outs["luajit"] != outs["lua5.4"]:
                jflag = " (output differs)"
            row += ["%.3f%s" % (best["luajit"], jflag), "%.2f" % j]
            if status != "REF ERROR" and not jflag and best["lua5.4"] > 0:
                jit_r.append(j)
        if before:
            b = best["before"] / best["lua5.4"] if best["lua5.4"] > 0 else float("nan")
            bflag = ""
            if "before" in errs:
                bflag = " (error)"
            elif outs["before"] != outs["lua5.4"]:
                bflag = " (output differs)"
            row += ["%.3f%s" % (best["before"], bflag), "%.2f" % b]
            if status == "ok" and not bflag and best["lua5.4"] > 0:
                before_r.append(b)
        row.append(status)
        rows.append(row)

    header = ["program", "args", "lua5.4 s", "ours s", "ours/lua5.4"]
    if have_jit:
        header += ["luajit -joff s", "luajit/lua5.4"]
    if before:
        header += ["before s", "before/lua5.4"]
    header.append("status")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---", "---"] + ["---:"] * (len(header) - 3) + ["---"]) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    print("Commit %s; best of %d run(s), user+sys CPU time; %d program(s)." % (commit, runs, len(rows)))
    if ours_named:
        ours_r = [r for r, _ in ours_named]
        worst = max(ours_named)
        print("Geometric mean ours/lua5.4: %.2f over %d program(s) (worst %.2f, %s; %d above 1.3)"
              % (gmean(ours_r), len(ours_r), worst[0], worst[1], sum(1 for x in ours_r if x > 1.3)))
    if before_r:
        print("Geometric mean before/lua5.4: %.2f over %d program(s) (%s)"
              % (gmean(before_r), len(before_r), before))
    if jit_r:
        print("Geometric mean luajit -joff/lua5.4: %.2f over %d program(s)" % (gmean(jit_r), len(jit_r)))
    if mem:
        report_memory(mem)
    if notes:
        print()
        for n in notes:
            print("- " + n)


if __name__ == "__main__":
    main()
