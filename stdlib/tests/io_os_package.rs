//! The `io`, `os` and `package` libraries against the reference: each
//! test runs a Lua snippet in a fresh state (`open_full`) with its own
//! temporary directory (passed as `...`, removed afterwards) and compares
//! everything it prints with what Debian's `lua5.4` (Lua 5.4.4) printed
//! for the same snippet, with the directory's path replaced by `<TMP>`.
//! The expected texts were produced with `TZ=UTC`; the snippets only use
//! zone-independent results of local time. Two lines differ from the
//! Debian build on purpose: luprex loads no C libraries, so
//! `package.loadlib` and the C searchers answer like a Lua built without
//! dynamic-library support.

use luprex_vm::raw::State;
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

/// A writer whose bytes the test reads back.
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `src` with a fresh temporary directory and returns its output
/// (the directory's path replaced by `<TMP>`) or its error.
fn run(name: &str, src: &str) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("luprex-iotest-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    let dir_str = dir.to_str().expect("utf-8 temp dir").to_owned();
    let buf = Rc::new(RefCell::new(Vec::new()));
    let result = {
        let mut st = State::new();
        luprex_stdlib::open_full(&mut st).expect("open_full");
        st.set_stdout(Box::new(Shared(buf.clone())));
        let arg = st.new_string(dir_str.as_bytes());
        let r = match st.load(src.as_bytes(), b"=test") {
            Ok(f) => st.call(f, &[arg]).map(|_| ()).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        st.flush_stdout();
        r
    };
    let _ = std::fs::remove_dir_all(&dir);
    let out = String::from_utf8_lossy(&buf.borrow()).replace(&dir_str, "<TMP>");
    result.map(|()| out)
}

fn check(name: &str, src: &str, expected: &str) {
    match run(name, src) {
        Ok(out) => assert_eq!(out, expected, "output of snippet '{name}'"),
        Err(e) => panic!("snippet '{name}' failed: {e}"),
    }
}

#[test]
fn write_and_read_formats() {
    let src = r#"local TMP = ...
local name = TMP .. "/a.txt"
local f = assert(io.open(name, "w"))
print(io.type(f), io.type(f:write("a line\n", "another line\n", 1234, "\n", 3.45, "\n", 2.0, " ", -0.0, " ", 2^63, "\n")))
print(f:write("x") == f)
print(f:close(), io.type(f), tostring(f))
f = assert(io.open(name))
print(f:read("l", "L", "n", "n"))
print(f:read(2, 0, "*l", "a"))
print(f:read(0), f:read("a"), f:read("l"), f:read("n"), f:read(1))
f:close()
f = assert(io.open(name))
print(f:read(7, "l", "n", "n", 1, "l", "l"))
print(f:seek("set", 2), f:read(4), f:seek(), f:seek("cur", -2), f:read("l"), f:seek("end"))
print(pcall(f.read, f, "x"))
print(pcall(f.read, f, {}))
print(pcall(f.seek, f, "bad"))
print(pcall(f.setvbuf, f))
f:close()
print(pcall(f.read, f))
print(pcall(io.close, f))
print(os.remove(name))
"#;
    let expected = r#"file	file
true
true	closed file	file (closed)
a line	another line
	1234	3.45

2		 -0 9.2233720368548e+18	x
nil		nil	nil	nil
a line
	another line	1234	3.45	
	2 -0 9.2233720368548e+18	x
2	line	6	4	ne	56
false	bad argument #2 to '?' (invalid format)
false	bad argument #2 to '?' (string expected, got table)
false	bad argument #2 to '?' (invalid option 'bad')
false	bad argument #2 to '?' (string expected, got no value)
false	attempt to use a closed file
false	attempt to use a closed file
true
"#;
    check("write_and_read_formats", src, expected);
}

#[test]
fn read_numbers() {
    let src = r#"local TMP = ...
local name = TMP .. "/n.txt"
local f = assert(io.open(name, "w"))
f:write("-12.3-\t-0xffff+  .3|5.E-3X  +234e+13E 0xDEADBEEFDEADBEEFx\n0x1.13Ap+3e\n")
f:write("1234"); for i = 1, 300 do f:write("0") end; f:write("\n")
f:write(".e+\t0.e;\t--;  0xX;\n", math.maxinteger, " ", math.mininteger, " 9223372036854775808 0x7fffffffffffffff1\n")
f:close()
f = assert(io.open(name))
print(f:read("n"), f:read(1), f:read("n"), f:read(2), f:read("n"), f:read(1))
print(f:read("n"), f:read(1), f:read("n"), f:read(1), f:read("n"), f:read(2))
print(f:read("n"), f:read(1))
print(f:read("n"), #f:read("L"))
print(f:read("n"), f:read(2), f:read("n"), f:read(1), f:read("n"), f:read(2))
print(f:read("n"), f:read(1), f:read("n"), f:read(1))
print(f:read("n", "n", "n", "n"))
print(f:read("n"), f:read(0))
f:close()
os.remove(name)
"#;
    let expected = r#"-12.3	-	-65535	+ 	0.3	|
0.005	X	2.34e+15	E	-2401053088876216593	x

8.61328125	e
nil	105
nil	e+	nil	;	nil	-;
nil	X	nil	;
9223372036854775807	-9223372036854775808	9.2233720368548e+18	-15
nil	nil
"#;
    check("read_numbers", src, expected);
}

#[test]
fn lines_iterators() {
    let src = r#"local TMP = ...
local name = TMP .. "/l.txt"
local f = assert(io.open(name, "w"))
f:write("\n\nline\nother")
f:close()
local t = {}
for l in io.lines(name) do t[#t + 1] = "[" .. l .. "]" end
print(#t, t[1], t[2], t[3], t[4])
t = {}
for l in io.lines(name, "L") do t[#t + 1] = l end
print(table.concat(t, "|"))
for a, b in io.lines(name, 1, 2) do io.write(a, ",", tostring(b), ";") end
print()
local it = io.lines(name)
while it() do end
print(pcall(it))
f = assert(io.open(name))
for l in f:lines("n") do print(l) end
print(io.type(f), f:read("a"))
f:close()
print(pcall(io.lines, TMP .. "/nonexistent"))
local n = 0
for _ in io.lines(name, "l", "l") do n = n + 1 end
print(n)
io.input(name)
print(io.read(), io.read("L"), io.read("a"))
for l in io.lines() do print("never", l) end
io.input():close()
print(pcall(io.read))
print(pcall(io.lines))
io.input(io.stdin)
f = assert(io.open(name, "w"))
print(pcall(f:lines()))
f:close()
local many = {}
for i = 1, 251 do many[i] = "l" end
print(pcall(io.lines, name, table.unpack(many)))
os.remove(name)
"#;
    let expected = r#"4	[]	[]	[line]	[other]

|
|line
|other

,
l;i,ne;
,ot;h,er;
false	file is already closed
file	line
other
false	cannot open file '<TMP>/nonexistent' (No such file or directory)
2
	
	line
other
false	default input file is closed
false	attempt to use a closed file
false	Bad file descriptor
false	bad argument #252 to 'io.lines' (too many arguments)
"#;
    check("lines_iterators", src, expected);
}

#[test]
fn open_errors_and_handles() {
    let src = r#"local TMP = ...
print(io.open(TMP .. "/nonexistent"))
print(io.open(TMP .. "/no/such/dir", "w"))
print(io.open(TMP, "w"))
for _, m in ipairs{"rw", "rb+", "r+bk", "", "+", "b", "wx"} do
  print(m, pcall(io.open, TMP .. "/x", m))
end
for _, m in ipairs{"r", "r+", "rb", "r+b", "w", "wb", "w+", "a", "a+", "ab", "a+b", "wbb"} do
  local f = io.open(TMP .. "/m.txt", m)
  print(m, io.type(f), f and f:close())
end
os.remove(TMP .. "/m.txt")
print(io.type(io.stdin), io.type(io.stdout), io.type(io.stderr), io.type(8), io.type({}))
print(io.stdin:close())
print(io.stdout:close())
print(io.close(io.stderr))
print(pcall(io.stdin.close))
print(pcall(io.close, 8))
print(getmetatable(io.stdout).__name, io.output() == io.stdout, io.input() == io.stdin)
print(pcall(io.input, TMP .. "/nonexistent"))
print(pcall(io.output, TMP .. "/no/such/dir"))
print(pcall(io.popen, "ls", "rw"))
local f = io.tmpfile()
print(io.type(f), io.type(f:write("alo")), f:seek("set"), f:read("a"))
print(f:close(), pcall(f.write, f, "x"))
print(tostring(f))
"#;
    let expected = r#"nil	<TMP>/nonexistent: No such file or directory	2
nil	<TMP>/no/such/dir: No such file or directory	2
nil	<TMP>: Is a directory	21
rw	false	bad argument #2 to 'io.open' (invalid mode)
rb+	false	bad argument #2 to 'io.open' (invalid mode)
r+bk	false	bad argument #2 to 'io.open' (invalid mode)
	false	bad argument #2 to 'io.open' (invalid mode)
+	false	bad argument #2 to 'io.open' (invalid mode)
b	false	bad argument #2 to 'io.open' (invalid mode)
wx	false	bad argument #2 to 'io.open' (invalid mode)
r	nil	nil
r+	nil	nil
rb	nil	nil
r+b	nil	nil
w	file	true
wb	file	true
w+	file	true
a	file	true
a+	file	true
ab	file	true
a+b	file	true
wbb	file	true
file	file	file	nil	nil
nil	cannot close standard file
nil	cannot close standard file
nil	cannot close standard file
false	bad argument #1 to '?' (FILE* expected, got no value)
false	bad argument #1 to 'io.close' (FILE* expected, got number)
FILE*	true	true
false	cannot open file '<TMP>/nonexistent' (No such file or directory)
false	cannot open file '<TMP>/no/such/dir' (No such file or directory)
false	bad argument #2 to 'io.popen' (invalid mode)
file	file	0	alo
true	false	attempt to use a closed file
file (closed)
"#;
    check("open_errors_and_handles", src, expected);
}

#[test]
fn write_errors_and_buffers() {
    let src = r#"local TMP = ...
local name = TMP .. "/w.txt"
local f = assert(io.open(name, "w"))
print(f:read())
print(f:read("a", "l"))
f:close()
f = assert(io.open(name, "r"))
print(f:write("whatever"))
print(f:write(1, 2))
f:close()
local w = assert(io.open(name, "w"))
local r = assert(io.open(name, "r"))
print(w:setvbuf("full", 2000))
w:write("x")
print("[" .. r:read("a") .. "]")
w:flush()
r:seek("set")
print("[" .. r:read("a") .. "]")
print(w:setvbuf("no"))
w:write("y")
r:seek("set")
print("[" .. r:read("a") .. "]")
print(w:setvbuf("line"))
w:write("z")
r:seek("set")
print("[" .. r:read("a") .. "]")
w:write("\n")
r:seek("set")
print("[" .. r:read("a") .. "]")
w:close()
r:close()
f = assert(io.open(name, "a+"))
f:write("more\n")
f:seek("set")
print(f:read("a"))
f:close()
f = assert(io.open(name, "r+"))
print(f:read(1), io.type(f:write("Q")), f:seek("cur"), f:read("l"))
f:close()
print(io.open(name):read("a"))
print(os.remove(name))
"#;
    let expected = r#"nil	Bad file descriptor	9
nil	Bad file descriptor	9
nil	Bad file descriptor	9
nil	Bad file descriptor	9
true
[]
[x]
true
[xy]
true
[xy]
[xyz
]
xyz
more

x	file	2	z
xQz
more

true
"#;
    check("write_errors_and_buffers", src, expected);
}

#[test]
fn stdout_interleaving() {
    let src = r#"local TMP = ...
print("a")
io.write("b", "\n")
print("c")
io.stdout:write("d\n")
io.write(1, " ", 1.5, " ", 2.0, " ", 1e100, " ", -0.0, " ", math.huge, " ", -math.huge, "\n")
print(io.write("e\n") == io.stdout, io.stdout:setvbuf("no"), io.stdout:setvbuf("full"))
io.output(TMP .. "/o.txt")
io.write("to file\n")
print("to stdout")
io.close()
print(pcall(io.write, "x"))
io.output(io.stdout)
print(io.open(TMP .. "/o.txt"):read("a"))
os.remove(TMP .. "/o.txt")
"#;
    let expected = r#"a
b
c
d
1 1.5 2 1e+100 -0 inf -inf
e
true	true	true
to stdout
false	default output file is closed
to file

"#;
    check("stdout_interleaving", src, expected);
}

#[test]
fn os_functions() {
    let src = r#"local TMP = ...
print(os.remove(TMP .. "/nonexistent"))
print(os.rename(TMP .. "/nonexistent", TMP .. "/other"))
local name = TMP .. "/r.txt"
io.open(name, "w"):close()
print(os.rename(name, name .. "2"), os.remove(name .. "2"), os.remove(name .. "2"))
print(os.getenv("LUPREX_SURELY_UNSET_VARIABLE"), type(os.getenv("PATH")))
print(pcall(os.getenv))
print(os.setlocale(), os.setlocale("C"), os.setlocale(nil, "numeric"), os.setlocale("xx_YY"), os.setlocale("POSIX", "all"))
print(pcall(os.setlocale, "C", "bogus"))
print(os.difftime(10, 3), pcall(os.difftime, 1))
print(pcall(os.difftime, 1.5, 1))
print(os.execute("exit 3"))
print(os.execute("true"))
print(os.execute("kill -s HUP $$"))
print(os.execute())
local t = os.tmpname()
print(type(t), io.open(t) ~= nil, os.remove(t))
print(type(os.clock()), math.type(os.time()), os.clock() >= 0)
"#;
    let expected = r#"nil	<TMP>/nonexistent: No such file or directory	2
nil	No such file or directory	2
true	true	nil	<TMP>/r.txt2: No such file or directory	2
nil	string
false	bad argument #1 to 'os.getenv' (string expected, got no value)
C	C	C	nil	C
false	bad argument #2 to 'os.setlocale' (invalid option 'bogus')
7.0	false	bad argument #2 to 'os.difftime' (number expected, got no value)
false	bad argument #1 to 'os.difftime' (number has no integer representation)
nil	exit	3
true	exit	0
nil	signal	1
true
string	true	true
number	integer	true
"#;
    check("os_functions", src, expected);
}

#[test]
fn os_date_time() {
    let src = r#"local TMP = ...
print(os.date("!%Y-%m-%d %H:%M:%S %j %a %A %b %B %p %y %Z", 1000000000))
print(os.date("!%c|%x|%X|%D|%e|%F|%T|%u|%w|%U|%W|%V|%G|%g|%C|%h|%n|%t|%%|%I|%R|%r", 86400 * 365 + 3600 * 13))
local t = os.date("!*t", 1000000000)
print(t.year, t.month, t.day, t.hour, t.min, t.sec, t.yday, t.wday, t.isdst)
print(os.date("!", 0), os.date("", 0), os.date("!\0x", 0) == "\0x", #os.date(string.rep("a", 1000), 0))
print(pcall(os.date, "%", 0))
print(pcall(os.date, "%Ez", 0))
print(pcall(os.date, "%9", 0))
print(pcall(os.date, "*t", 1.5))
print(pcall(os.date, "%Y", 2^60))
print(os.date("!%Y", -1e10))
print(pcall(os.time, {hour = 12}))
print(pcall(os.time, {year = 2000, month = 1, day = 1, hour = "x"}))
print(pcall(os.time, {year = 2000, month = 1, day = 1, hour = 1.5}))
print(pcall(os.time, {year = 2000, month = 1, day = 2^32}))
print(pcall(os.time, {year = 2^60, month = 1, day = 1}))
print(pcall(os.time, 1))
print(os.time{year = 2000, month = 1, day = 2, hour = 0} - os.time{year = 2000, month = 1, day = 1, hour = 0})
local d = {year = 2005, month = 1, day = 1, hour = 1, min = 0, sec = -3602}
os.time(d)
print(d.year, d.month, d.day, d.hour, d.min, d.sec, d.yday, d.wday)
d = {year = 2021, month = 14, day = -3, hour = 30}
os.time(d)
print(d.year, d.month, d.day, d.hour, d.min, d.sec, d.yday, d.wday)
"#;
    let expected = r#"2001-09-09 01:46:40 252 Sun Sunday Sep September AM 01 GMT
Fri Jan  1 13:00:00 1971|01/01/71|13:00:00|01/01/71| 1|1971-01-01|13:00:00|5|5|00|00|53|1970|70|19|Jan|
|	|%|01|13:00|01:00:00 PM
2001	9	9	1	46	40	252	1	false
		true	1000
false	bad argument #1 to 'os.date' (invalid conversion specifier '%')
false	bad argument #1 to 'os.date' (invalid conversion specifier '%Ez')
false	bad argument #1 to 'os.date' (invalid conversion specifier '%9')
false	bad argument #2 to 'os.date' (number has no integer representation)
false	date result cannot be represented in this installation
1653
false	field 'year' missing in date table
false	field 'hour' is not an integer
false	field 'hour' is not an integer
false	field 'day' is out-of-bound
false	field 'year' is out-of-bound
false	bad argument #1 to 'os.time' (table expected, got number)
86400
2004	12	31	23	59	58	366	6
2022	1	29	6	0	0	29	7
"#;
    check("os_date_time", src, expected);
}

#[test]
fn require_and_searchpath() {
    let src = r#"local TMP = ...
print(package.config == "/\n;\n?\n!\n-\n", package.loaded == debug and "" or type(package.loaded), package.loaded._G == _G, package.loaded.io == io, package.loaded.os == os, package.loaded.package == package)
print(package.loadlib("a", "b"))
print(package.searchpath("a.b", TMP .. "/?.x;" .. TMP .. "/?/init.x"))
print(package.searchpath("a.b", "", ".", "/"))
print(package.searchpath("a", "?;"))
print(package.searchpath("a-b", "?", "-", "@"))
package.path = TMP .. "/?.lua;" .. TMP .. "/?/init.lua"
package.cpath = TMP .. "/?.so"
print(pcall(require, "nomod"))
print(pcall(require, "no.mod"))
package.preload.pre = function(...) print("loading", ...) return {x = 1} end
local m, extra = require("pre")
print(m.x, extra, require("pre") == m, package.loaded.pre == m)
local f = io.open(TMP .. "/mymod.lua", "w")
f:write("local name, file = ...\nprint('in mymod', name, file)\nreturn {name = name}\n")
f:close()
local m2, file = require("mymod")
print(m2.name, file, require("mymod") == m2)
f = io.open(TMP .. "/nothing.lua", "w")
f:write("NOTHING = (NOTHING or 0) + 1")
f:close()
print(require("nothing"), NOTHING, require("nothing"), NOTHING)
f = io.open(TMP .. "/bad.lua", "w")
f:write("x = = 1")
f:close()
print(pcall(require, "bad"))
f = io.open(TMP .. "/err.lua", "w")
f:write("error('boom')")
f:close()
print(pcall(require, "err"))
f = io.open(TMP .. "/c.so", "w") f:close()
print(pcall(require, "c"))
print(pcall(require, "c.sub"))
local searchers = package.searchers
package.searchers = 3
print(pcall(require, "zz"))
package.searchers = searchers
local path = package.path
package.path = {}
print(pcall(require, "zz"))
package.path = path
for _, n in ipairs{"mymod", "nothing", "bad", "err", "c"} do os.remove(TMP .. "/" .. n .. (n == "c" and ".so" or ".lua")) end
"#;
    let expected = r#"true	table	true	true	true	true
nil	dynamic libraries not enabled; check your Lua installation	absent
nil	no file '<TMP>/a/b.x'
	no file '<TMP>/a/b/init.x'
nil	no file ''
nil	no file 'a'
	no file ''
nil	no file 'a@b'
false	module 'nomod' not found:
	no field package.preload['nomod']
	no file '<TMP>/nomod.lua'
	no file '<TMP>/nomod/init.lua'
	no file '<TMP>/nomod.so'
false	module 'no.mod' not found:
	no field package.preload['no.mod']
	no file '<TMP>/no/mod.lua'
	no file '<TMP>/no/mod/init.lua'
	no file '<TMP>/no/mod.so'
	no file '<TMP>/no.so'
loading	pre	:preload:
1	:preload:	true	true
in mymod	mymod	<TMP>/mymod.lua
mymod	<TMP>/mymod.lua	true
true	1	true	1
false	error loading module 'bad' from file '<TMP>/bad.lua':
	<TMP>/bad.lua:1: unexpected symbol near '='
false	<TMP>/err.lua:1: boom
false	error loading module 'c' from file '<TMP>/c.so':
	dynamic libraries not enabled; check your Lua installation
false	error loading module 'c.sub' from file '<TMP>/c.so':
	dynamic libraries not enabled; check your Lua installation
false	'package.searchers' must be a table
false	'package.path' must be a string
"#;
    check("require_and_searchpath", src, expected);
}

#[test]
fn loadfile_dofile() {
    let src = r##"local TMP = ...
local name = TMP .. "/chunk.lua"
local function write(s) local f = io.open(name, "wb") f:write(s) f:close() end
write("return ...")
print(loadfile(name)(1, 2))
write("\xEF\xBB\xBF# comment\nreturn 234")
print(loadfile(name)())
write("# only a comment")
print(loadfile(name)())
write("\xEF\xBB\xBFreturn 239")
print(dofile(name))
write("x = = 2")
print(loadfile(name))
print(pcall(dofile, name))
write("error('in chunk')")
print(pcall(dofile, name))
write("return 10")
print(loadfile(name, "b"))
write("\27 return 10")
print(loadfile(name, "t"))
write("if ... then a = 15; return b else return _ENV end")
local env = {b = 12}
local g = loadfile(name, "t", env)
print(g(1), env.a, g() == env)
print(loadfile(name, "t", nil)())
print(loadfile(TMP .. "/nonexistent"))
print(pcall(dofile, TMP .. "/nonexistent"))
print(loadfile(TMP))
write("local x, z = coroutine.yield(10)\nlocal y = coroutine.yield(20)\nreturn x + y * z")
local co = coroutine.wrap(dofile)
print(co(name), co(100, 101), co(200))
os.remove(name)
"##;
    let expected = r#"1	2
234

239
nil	<TMP>/chunk.lua:1: unexpected symbol near '='
false	<TMP>/chunk.lua:1: unexpected symbol near '='
false	<TMP>/chunk.lua:1: in chunk
nil	attempt to load a text chunk (mode is 'b')
nil	attempt to load a binary chunk (mode is 't')
12	15	true
nil
nil	cannot open <TMP>/nonexistent: No such file or directory
false	cannot open <TMP>/nonexistent: No such file or directory
nil	cannot read <TMP>: Is a directory
10	20	20300
"#;
    check("loadfile_dofile", src, expected);
}

#[test]
fn popen_is_not_supported() {
    let src = "print(pcall(io.popen, 'ls')) print(pcall(io.popen, 'ls', 'r+'))";
    let expected = "false\t'popen' not supported\n\
                    false\tbad argument #2 to 'io.popen' (invalid mode)\n";
    check("popen", src, expected);
}

#[test]
fn path_values_follow_setpath() {
    use luprex_stdlib::package::path_value;
    let d = "D";
    assert_eq!(path_value(None, None, d), b"D");
    assert_eq!(path_value(None, Some(b"x".to_vec()), d), b"x");
    assert_eq!(path_value(Some(b"y".to_vec()), Some(b"x".to_vec()), d), b"y");
    assert_eq!(path_value(Some(b"a;;b".to_vec()), None, d), b"a;D;b");
    assert_eq!(path_value(Some(b";;".to_vec()), None, d), b"D");
    assert_eq!(path_value(Some(b"a;;".to_vec()), None, d), b"a;D");
}

#[test]
fn chunk_text_skips_bom_and_comment() {
    use luprex_stdlib::package::chunk_text;
    assert_eq!(chunk_text(b"\xEF\xBB\xBF# c\nreturn 1", true), b"\nreturn 1");
    assert_eq!(chunk_text(b"#!lua\n\x1bLua", true), b"\x1bLua");
    assert_eq!(chunk_text(b"#!lua\n\x1bLua", false), b"\n\x1bLua");
    assert_eq!(chunk_text(b"\xEF\xBBx", true), b"\xEF\xBBx");
    assert_eq!(chunk_text(b"# no newline", true), b"\n");
}

#[test]
fn open_modes() {
    use luprex_stdlib::io::check_mode;
    for ok in ["r", "w", "a", "r+", "w+b", "abbb", "r+b"] {
        assert!(check_mode(ok.as_bytes()), "{ok}");
    }
    for bad in ["", "+", "b", "rw", "rb+", "r+bk", "x"] {
        assert!(!check_mode(bad.as_bytes()), "{bad}");
    }
}
