//! Code generation tests.
//!
//! Most tests compile Lua source and compare the result with the reference
//! compiler, `luac5.4 -l -l`, instruction by instruction (see the
//! `luac_diff` module below); they are skipped when `luac5.4` is not
//! installed. The others check constant folding, scoping, limits and error
//! messages directly. Set `LUPREX_LUA_TESTES` to a directory of Lua files
//! (e.g. the Lua 5.4.4 test suite) to compare every function of every file.

use luprex_compiler::{compile, disasm::disassemble};

/// Differential comparison with the reference compiler (`luac5.4 -l -l`).
///
/// Both listings are reduced to a common normal form: per function, the
/// header numbers, one `OPNAME operands` string and one line per
/// instruction, constants, locals and upvalues. The reference's `MMBIN*`
/// instructions (which Luprex does not have) are dropped, and every pc
/// (jump targets, local ranges) is renumbered as if they had never been
/// there, so that jumps are compared by destination, not by raw offset.
mod luac_diff {

    use std::fmt::Write as _;
    use std::process::Command;

    use luprex_compiler::disasm::format_constant;
    use luprex_compiler::{Instruction, OpCode, Proto};

    /// One function in normal form.
    #[derive(Debug, Default, Clone, PartialEq)]
    pub struct NFunc {
        pub line_defined: u32,
        pub last_line_defined: u32,
        pub num_params: u32,
        pub is_vararg: bool,
        pub max_stack: u32,
        pub code: Vec<String>,
        pub lines: Vec<u32>,
        pub constants: Vec<String>,
        pub locals: Vec<String>,
        pub upvalues: Vec<String>,
        /// The reference used a flipped `ADDI` (coded `ADDK` by Luprex), so
        /// constant tables are not comparable.
        pub flipped_addi: bool,
    }

    /// Whether `luac5.4` can be run.
    pub fn have_luac() -> bool {
        Command::new("luac5.4").arg("-v").output().is_ok_and(|o| o.status.success())
    }

    /// Runs `luac5.4 -l -l -p -` on `src`, given on its standard input (no
    /// file left behind); `None` if it rejects the source.
    pub fn luac_listing(src: &[u8]) -> Option<String> {
        use std::io::Write;
        use std::process::Stdio;
        let mut child = Command::new("luac5.4")
            .args(["-l", "-l", "-p", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        // A write error (luac stopped reading at a syntax error) shows in
        // the exit status below.
        let _ = child.stdin.take()?.write_all(src);
        let out = child.wait_with_output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn is_jump(op: &str) -> bool {
        matches!(op, "JMP" | "FORLOOP" | "FORPREP" | "TFORPREP" | "TFORLOOP")
    }

    /// The 1-based target printed in a luac jump comment (`to N`, `exit to N`).
    fn comment_target(comment: &str) -> Option<i64> {
        comment.split_whitespace().last()?.parse().ok()
    }

    struct RawIns {
        line: u32,
        op: String,
        operands: String,
        comment: String,
    }

    /// Parses a luac listing into normal-form functions (pre-order).
    pub fn parse_luac(listing: &str) -> Vec<NFunc> {
        let mut funcs = Vec::new();
        let mut lines = listing.lines().peekable();
        while let Some(l) = lines.next() {
            if !(l.starts_with("main <") || l.starts_with("function <")) {
                continue;
            }
            let mut f = NFunc::default();
            let inner = &l[l.find('<').unwrap_or(0) + 1..l.find('>').unwrap_or(0)];
            let nums = &inner[inner.rfind(':').map_or(0, |i| i + 1)..];
            let mut it = nums.split(',');
            f.line_defined = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            f.last_line_defined = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            let params = lines.next().unwrap_or("");
            let digits: String = params.chars().take_while(char::is_ascii_digit).collect();
            f.num_params = digits.parse().unwrap_or(0);
            f.is_vararg = params[digits.len()..].starts_with('+');
            let slots = params.split(", ").nth(1).unwrap_or("");
            f.max_stack = slots.split(' ').next().and_then(|s| s.parse().ok()).unwrap_or(0);
            let mut raw = Vec::new();
            while let Some(l) = lines.peek() {
                if !l.starts_with('\t') {
                    break;
                }
                let parts: Vec<&str> = l.split('\t').collect();
                let line = parts[2].trim_matches(|c| c == '[' || c == ']').parse().unwrap_or(0);
                let op = parts[3].trim().to_string();
                let operands = parts.get(4).map_or("", |s| s.trim()).to_string();
                let comment = parts.get(5).map_or("", |s| s.trim_start_matches("; ")).to_string();
                raw.push(RawIns { line, op, operands, comment });
                lines.next();
            }
            normalize_luac_code(&mut f, &raw);
            let remap = pc_remap(&raw);
            for section in ["constants", "locals", "upvalues"] {
                let Some(h) = lines.next() else { break };
                debug_assert!(h.starts_with(section), "{h}");
                while let Some(l) = lines.peek() {
                    if !l.starts_with('\t') {
                        break;
                    }
                    let parts: Vec<&str> = l[1..].splitn(4, '\t').collect();
                    match section {
                        "constants" => f.constants.push(format!("{} {}", parts[1], parts[2])),
                        "locals" => {
                            let s: usize = parts[2].parse().unwrap_or(1);
                            let e: usize = parts[3].parse().unwrap_or(1);
                            f.locals.push(format!(
                                "{} {} {}",
                                parts[1],
                                remap[s - 1],
                                remap[e - 1]
                            ));
                        }
                        _ => f.upvalues.push(format!("{} {} {}", parts[1], parts[2], parts[3])),
                    }
                    lines.next();
                }
            }
            substitute_constants(&mut f);
            funcs.push(f);
        }
        funcs
    }

    /// Operand positions holding constant indices, for an instruction text.
    fn k_positions(op: &str, has_k: bool) -> Vec<usize> {
        let mut v = Vec::new();
        match op {
            "LOADK" | "EQK" | "SETTABUP" | "SETFIELD" => v.push(1),
            "GETTABUP" | "GETFIELD" | "ADDK" | "SUBK" | "MULK" | "MODK" | "POWK" | "DIVK"
            | "IDIVK" | "BANDK" | "BORK" | "BXORK" => v.push(2),
            _ => {}
        }
        if has_k && matches!(op, "SETTABUP" | "SETFIELD" | "SETTABLE" | "SETI" | "SELF") {
            v.push(2);
        }
        v
    }

    /// Replaces constant indices in operands by the constants themselves.
    fn substitute_constants(f: &mut NFunc) {
        for text in &mut f.code {
            let mut parts: Vec<String> = text.split(' ').map(str::to_string).collect();
            let has_k = parts.last().is_some_and(|p| p.ends_with('k'));
            for pos in k_positions(&parts[0], has_k) {
                if let Some(p) = parts.get_mut(pos + 1) {
                    let idx: Option<usize> = p.trim_end_matches('k').parse().ok();
                    if let Some(c) = idx.and_then(|i| f.constants.get(i)) {
                        *p = format!("K({c})");
                    }
                }
            }
            *text = parts.join(" ");
        }
    }

    /// Maps each 0-based reference pc (and one past the end) to the pc it
    /// would have without `MMBIN*` instructions.
    fn pc_remap(raw: &[RawIns]) -> Vec<usize> {
        let mut map = Vec::with_capacity(raw.len() + 1);
        let mut n = 0;
        for r in raw {
            map.push(n);
            if !r.op.starts_with("MMBIN") {
                n += 1;
            }
        }
        map.push(n);
        map
    }

    fn normalize_luac_code(f: &mut NFunc, raw: &[RawIns]) {
        let remap = pc_remap(raw);
        for (pc, r) in raw.iter().enumerate() {
            if r.op.starts_with("MMBIN") {
                continue;
            }
            let text = if is_jump(&r.op) {
                let t = comment_target(&r.comment).unwrap_or(0);
                let t = remap.get((t - 1).max(0) as usize).copied().unwrap_or(usize::MAX);
                let a =
                    if r.op == "JMP" { String::new() } else { format!(" {}", first(&r.operands)) };
                format!("{}{} -> {}", r.op, a, t + 1)
            } else if r.op == "ADDI" && flipped_next(raw, pc) {
                f.flipped_addi = true;
                let mut ops = r.operands.split(' ');
                format!("ADDI* {} {}", ops.next().unwrap_or(""), ops.next().unwrap_or(""))
            } else if r.operands.is_empty() {
                r.op.clone()
            } else {
                format!("{} {}", r.op, r.operands)
            };
            f.code.push(text);
            f.lines.push(r.line);
        }
    }

    fn first(s: &str) -> &str {
        s.split(' ').next().unwrap_or("")
    }

    /// True if the instruction after `pc` is an `MMBINI` with the flip flag.
    fn flipped_next(raw: &[RawIns], pc: usize) -> bool {
        raw.get(pc + 1).is_some_and(|n| n.op == "MMBINI" && n.operands.ends_with(" 1"))
    }

    /// Normal form of our prototype tree (pre-order).
    pub fn normalize_ours(p: &Proto) -> Vec<NFunc> {
        let mut out = Vec::new();
        normalize_rec(p, &mut out);
        out
    }

    fn normalize_rec(p: &Proto, out: &mut Vec<NFunc>) {
        let mut f = NFunc {
            line_defined: p.line_defined,
            last_line_defined: p.last_line_defined,
            num_params: u32::from(p.num_params),
            is_vararg: p.is_vararg,
            max_stack: u32::from(p.max_stack),
            lines: p.line_info.clone(),
            ..NFunc::default()
        };
        for (pc, i) in p.code.iter().enumerate() {
            let text = ours_text(p, pc, *i);
            if text.starts_with("ADDI*") {
                f.flipped_addi = true;
            }
            f.code.push(text);
        }
        for k in &p.constants {
            let tag = match k {
                luprex_compiler::Constant::Nil => "N",
                luprex_compiler::Constant::Bool(_) => "B",
                luprex_compiler::Constant::Int(_) => "I",
                luprex_compiler::Constant::Float(_) => "F",
                luprex_compiler::Constant::Str(_) => "S",
            };
            f.constants.push(format!("{tag} {}", format_constant(k)));
        }
        for v in &p.loc_vars {
            f.locals.push(format!(
                "{} {} {}",
                String::from_utf8_lossy(&v.name),
                v.start_pc,
                v.end_pc
            ));
        }
        for u in &p.upvalues {
            let name = String::from_utf8_lossy(&u.name);
            f.upvalues.push(format!("{name} {} {}", u8::from(u.in_stack), u.index));
        }
        substitute_constants(&mut f);
        out.push(f);
        for c in &p.protos {
            normalize_rec(c, out);
        }
    }

    /// Our instruction printed with luac's operand conventions.
    fn ours_text(p: &Proto, pc: usize, i: Instruction) -> String {
        use OpCode::*;
        let Some(op) = i.opcode() else { return format!("BAD {}", i.0) };
        let (a, b, c, k) = (i.a(), i.b(), i.c(), i.k());
        let isk = if k { "k" } else { "" };
        let name = op.name();
        let target = |delta: i64| pc as i64 + delta + 1;
        let ops = match op {
            Move | GetUpval | SetUpval | Unm | BNot | Not | Len | Concat => format!("{a} {b}"),
            LoadI | LoadF => format!("{a} {}", i.sbx()),
            LoadK | Closure => format!("{a} {}", i.bx()),
            LoadKX | LoadFalse | LFalseSkip | LoadTrue | Close | Tbc | Return1 | VarArgPrep => {
                format!("{a}")
            }
            LoadNil => format!("{a} {b}"),
            GetTabUp | GetTable | GetI | GetField | NewTable | SetList | Call => {
                format!("{a} {b} {c}")
            }
            SetTabUp | SetTable | SetI | SetField | SelfOp | TailCall | Return => {
                format!("{a} {b} {c}{isk}")
            }
            AddI | ShrI | ShlI => format!("{a} {b} {}", i.sc()),
            AddK | MulK if k => return flipped_k(p, a, b, c, name),
            AddK | SubK | MulK | ModK | PowK | DivK | IDivK | BAndK | BOrK | BXorK => {
                format!("{a} {b} {c}")
            }
            Add | Sub | Mul | Mod | Pow | Div | IDiv | BAnd | BOr | BXor | Shl | Shr => {
                format!("{a} {b} {c}")
            }
            Eq | Lt | Le | EqK => format!("{a} {b} {}", u8::from(k)),
            EqI | LtI | LeI | GtI | GeI => format!("{a} {} {}", i.sb(), u8::from(k)),
            Test => format!("{a} {}", u8::from(k)),
            TestSet => format!("{a} {b} {}", u8::from(k)),
            Return0 => String::new(),
            TForCall => format!("{a} {c}"),
            VarArg => format!("{a} {c}"),
            ExtraArg => format!("{}", i.ax_field()),
            Jmp => return format!("JMP -> {}", target(i64::from(i.sj_field())) + 1),
            ForLoop | TForLoop => {
                return format!("{name} {a} -> {}", target(-i64::from(i.bx())) + 1)
            }
            ForPrep => return format!("{name} {a} -> {}", target(i64::from(i.bx()) + 1) + 1),
            TForPrep => return format!("{name} {a} -> {}", target(i64::from(i.bx())) + 1),
        };
        if ops.is_empty() {
            name.to_string()
        } else {
            format!("{name} {ops}")
        }
    }

    /// A flipped `ADDK` that stands for the reference's flipped `ADDI`.
    fn flipped_k(p: &Proto, a: u32, b: u32, c: u32, name: &str) -> String {
        match p.constants.get(c as usize) {
            Some(luprex_compiler::Constant::Int(i))
                if name == "ADDK" && (-127..=128).contains(i) =>
            {
                format!("ADDI* {a} {b}")
            }
            _ => format!("{name} {a} {b} {c}"),
        }
    }

    /// Compares two normal forms; returns a description of the differences
    /// (empty if none). `check_lines`: also compare line information.
    pub fn diff(ours: &[NFunc], theirs: &[NFunc], check_lines: bool) -> String {
        let mut out = String::new();
        if ours.len() != theirs.len() {
            let _ = writeln!(out, "function count: ours {} theirs {}", ours.len(), theirs.len());
        }
        let flips = ours.iter().chain(theirs).any(|f| f.flipped_addi);
        for (n, (o, t)) in ours.iter().zip(theirs).enumerate() {
            diff_func(&mut out, n, o, t, check_lines, flips);
        }
        out
    }

    fn diff_func(out: &mut String, n: usize, o: &NFunc, t: &NFunc, check_lines: bool, flips: bool) {
        let head = |f: &NFunc| {
            (f.line_defined, f.last_line_defined, f.num_params, f.is_vararg, f.max_stack)
        };
        if head(o) != head(t) {
            let _ = writeln!(out, "fn#{n}: header ours {:?} theirs {:?}", head(o), head(t));
        }
        let len = o.code.len().max(t.code.len());
        for pc in 0..len {
            let (oc, tc) = (o.code.get(pc), t.code.get(pc));
            if oc != tc {
                let _ = writeln!(
                    out,
                    "fn#{n} (line {}) pc {}: ours {oc:?} theirs {tc:?}",
                    t.line_defined,
                    pc + 1
                );
                return;
            }
            if check_lines && o.lines.get(pc) != t.lines.get(pc) {
                let _ = writeln!(
                    out,
                    "fn#{n} pc {} {}: line ours {:?} theirs {:?}",
                    pc + 1,
                    t.code[pc],
                    o.lines.get(pc),
                    t.lines.get(pc)
                );
                return;
            }
        }
        if !flips && o.constants != t.constants {
            let _ = writeln!(
                out,
                "fn#{n}: constants ours {:?}\n   theirs {:?}",
                o.constants, t.constants
            );
        }
        if o.locals != t.locals {
            let _ = writeln!(out, "fn#{n}: locals ours {:?}\n   theirs {:?}", o.locals, t.locals);
        }
        if o.upvalues != t.upvalues {
            let _ =
                writeln!(out, "fn#{n}: upvalues ours {:?}\n   theirs {:?}", o.upvalues, t.upvalues);
        }
    }
}

/// Compiles `src` with both compilers and returns the differences.
fn compare(src: &str, check_lines: bool) -> String {
    let ours = match compile(src.as_bytes(), b"=x") {
        Ok(p) => p,
        Err(e) => return format!("our compile error: {e}"),
    };
    let Some(listing) = luac_diff::luac_listing(src.as_bytes()) else {
        return "luac rejected the source".into();
    };
    let theirs = luac_diff::parse_luac(&listing);
    let d = luac_diff::diff(&luac_diff::normalize_ours(&ours), &theirs, check_lines);
    if d.is_empty() {
        d
    } else {
        format!("{d}\n--- ours:\n{}\n--- luac:\n{listing}", disassemble(&ours))
    }
}

/// Files of the Lua 5.4.4 test suite whose code legitimately differs: in
/// db.lua, coding `2 + x` as `ADDK` (see `ops.rs`) adds constants to the
/// main function, which pushes the string `"__gc"` past index 255, so a
/// table field store later needs a register where PUC used a constant.
const KNOWN_DEVIATIONS: &[&str] = &["db.lua"];

#[test]
fn lua_test_suite_matches_luac() {
    let Ok(dir) = std::env::var("LUPREX_LUA_TESTES") else { return };
    if !luac_diff::have_luac() {
        return;
    }
    let check_lines = std::env::var("LUPREX_CHECK_LINES").is_ok();
    let mut entries: Vec<_> =
        std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    let mut failures = 0;
    for path in entries {
        let mut src = std::fs::read(&path).unwrap();
        if src.first() == Some(&b'#') {
            // As luaL_loadfile: skip a first-line comment, keeping its newline.
            let nl = src.iter().position(|&c| c == b'\n').unwrap_or(src.len());
            src.drain(..nl);
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let ours = match compile(&src, b"=x") {
            Ok(p) => p,
            Err(e) => {
                println!("{name}: our error {e}");
                failures += 1;
                continue;
            }
        };
        let Some(listing) = luac_diff::luac_listing(&src) else { continue };
        let theirs = luac_diff::parse_luac(&listing);
        let d = luac_diff::diff(&luac_diff::normalize_ours(&ours), &theirs, check_lines);
        if d.is_empty() {
            println!("{name}: ok");
        } else if KNOWN_DEVIATIONS.contains(&name.as_str()) && !check_lines {
            println!("{name}: known deviation\n{}", d.lines().next().unwrap_or(""));
        } else {
            failures += 1;
            println!("{name}:\n{}", d.lines().take(12).collect::<Vec<_>>().join("\n"));
        }
    }
    assert_eq!(failures, 0);
}

/// Prints our listing of the file named by `LUPREX_DUMP` (a debugging aid).
#[test]
fn dump_listing() {
    let Ok(path) = std::env::var("LUPREX_DUMP") else { return };
    let src = std::fs::read(path).unwrap();
    match compile(&src, b"=x") {
        Ok(p) => println!("{}", disassemble(&p)),
        Err(e) => println!("error: {e}"),
    }
}

/// Small programs covering every construct; each must compile to exactly
/// the reference's code (modulo `MMBIN*`), line information included.
const SNIPPETS: &[&str] = &[
    // constants, folding, loads
    "local a, b, c, d = 1, 2.0, -3, 1e300 * 1e10 return a, b, c, d",
    "local x = 7 // 2, 7 % -3, 2^10, 1/2, 3 - 3.0, 0/0, 1//0, -0.0, ~5, 1 << 63, 1 >> -1",
    "local x = 65535, 65536, -65535, -65536, 65535.0, 65536.0, 0.5, 'str', nil, true, false",
    "local a = 1 local b = a + 1, a - 1, a * 2, a / 2, a // 2, a % 2, a ^ 2, a & 2, a | 2, a ~ 2",
    "local a = ... local b = 2 + a, 2 * a, 2.5 * a, 7 & a, a << 3, 3 << a, a >> 2, a << -200",
    "local a = ... local b = a - 300, a + 300, a - 2.5, -a, #a, ~a, not a, a .. 'x' .. a",
    "local a = ... return a + a, a - a, a * a, a / a, a % a, a ^ a, a // a, a << a, a >> a",
    "local a = 1.5 | 1, 2 & 3.0, 'a' + 1, 1 + {}, 10 == 10, 1 < 2",
    // comparisons and logic
    "local a, b = ... return a < b, a <= b, a > b, a >= b, a == b, a ~= b",
    "local a = ... return a < 3, 3 < a, a <= 3.0, a > 1000, a >= -5, a == 1.0, a ~= 'x', a == nil",
    "local a = ... return a == true, a ~= false, 1 == a, 'x' == a, a == 1000.0, a < 1000.0",
    "local a, b, c = ... return a and b, a or b, a and b or c, not a, not not a, not (a == b)",
    "local a, b, c = ... local x = a and b and c local y = (a or b) and (c or a) return x, y",
    "local a, b = ... if a and not b then return 1 elseif a or b then return 2 else return 3 end",
    "local a, b = ... if not (a < b) then a = 1 end while a ~= b and a do a = a - 1 end",
    "local a = ... return a and 1 or 2, a or nil, nil and a, false or a, 1 and a, (a and 1) + 2",
    "if nil then print(1) end if true then print(2) end if 1 then print(3) end",
    // variables, globals, upvalues
    "x = 1 y, z = x, {} z.a, z[1], z[x], z['long key that is longer than forty bytes!!'] = 1, 2, 3, 4",
    "local a, b = 1 a, b = b, a local t = {} t[a], a = 1, 2 local i = 1 i, t[i] = i + 1, 20",
    "local t, i = {}, 1 t[i], t.x, i = i, t, 3 return t, i",
    "local a local function f() a = 1 local function g() return a end return g end return f",
    "local _ENV = {} x = 1 return y",
    "local function f(...) local _ENV <const> = ... return x end",
    "local a <const> = 10 local b <const> = a * 2 local c <const> = 'str' return a + b, c, b // 0",
    "local a <const> = ... local t <const> = {} return a, t, function() return a, t end",
    "local x <close> = ... local y = 1 return y",
    "local x <close> = ... do local z <close> = x end return f(x)",
    // calls, methods, varargs, returns
    "f() f(1, 2) f(g()) f(1, g()) f(...) a.b.c:m(1) a:m(...) return f(x)",
    "local t = ... t:m 'x' t.f {1, 2} t.g [[long]] return t:m(), (t:m())",
    "local a, b = ... local c, d = f() local e = ..., g() return ..., a, (...)",
    "return", "return ...", "return 1, ...", "return f()", "return (f())", "return f(), g()",
    "local function f(a, b, ...) return select('#', ...), a, b end return f(1, 2, 3)",
    "local function f(a) local x = a return function() return x end end",
    "function t.a.b.c:m(x) return self, x end function f() end local function g() return g end",
    // constructors
    "local t = {} local u = {1, 2, 3, x = 1, ['y'] = 2, [3] = 4, f(), ...}",
    "local t = {f()} local u = {f(), nil} local v = {[1] = 1, 2} local w = {x = 1, y = 2, z = 3}",
    // loops
    "for i = 1, 10 do print(i) end for i = 10, 1, -1 do local x = i end for i = 1.0, 2 do end",
    "for k, v in pairs(t) do print(k, v) end for a, b, c, d, e in f() do end",
    "for i = 1, 3 do local f = function() return i end if i then break end end",
    "while x do if y then break end x = x - 1 end repeat local z = f() until z",
    "repeat local z = 1 local g = function() return z end until z > 1",
    "while true do end repeat until false for i = 1, 2 do break end",
    "local i = 0 while i < 10 do i = i + 1 if i == 5 then goto continue end print(i) ::continue:: end",
    // goto
    "do goto l; local a ::l:: end ::top:: do local x = 1 goto top end",
    "for i = 1, 3 do local x = 1 local f = function() return x end if i then goto out end end ::out::",
    "do local y = 1 local f = function() return y end goto l end ::l:: ::m:: goto m",
    "repeat local x = 1 goto cont ::cont:: until x",
    "::a:: do ::b:: goto a end goto b2 ::b2::",
    // long code: SETLIST batches, many constants, big tables
    "local t = {1,2,3,4,5,6,7,8,9,10,1,2,3,4,5,6,7,8,9,10,1,2,3,4,5,6,7,8,9,10,1,2,3,4,5,6,7,8,9,10,\
     1,2,3,4,5,6,7,8,9,10,1,2,3,4,5,6,7,8,9,10,...}",
    // multi-line statements (line information)
    "local t = {\n a = 1,\n b = f(\n x),\n}\nobj:m(\n 1)\nreturn\n",
    "local a = 1\n+\n2\nlocal b = a\n*\na\nlocal c = -\na\nif a\n< b then\n c = 1 end",
    "function f(a,\n b)\n return a\n + b\nend\nlocal g = function()\nend\n",
    "for i = 1,\n 3 do\n print(i)\nend\nfor k in\n pairs(t) do end\n",
];

#[test]
fn snippets_match_luac() {
    if !luac_diff::have_luac() {
        return;
    }
    let mut report = String::new();
    for src in SNIPPETS {
        let d = compare(src, true);
        if !d.is_empty() {
            report.push_str(&format!("=== {src}\n{d}\n"));
        }
    }
    assert!(report.is_empty(), "{report}");
}

/// Compiles `src` (chunk name `=x`) and returns the error message.
fn error_of(src: &str) -> String {
    match compile(src.as_bytes(), b"=x") {
        Ok(_) => "no error".to_string(),
        Err(e) => e.message,
    }
}

/// Semantic errors, with the exact messages printed by lua5.4.
#[test]
fn error_messages_match_lua() {
    let cases = [
        ("goto x", "x:1: no visible label 'x' for <goto> at line 1"),
        ("break", "x:1: break outside loop at line 1"),
        ("do break end", "x:1: break outside loop at line 1"),
        ("::a:: ::a::", "x:1: label 'a' already defined on line 1"),
        ("::a::\n::a::", "x:2: label 'a' already defined on line 2"),
        ("::a:: do ::a:: end", "x:1: label 'a' already defined on line 1"),
        ("::l1:: ::l2:: ::l1::", "x:1: label 'l1' already defined on line 1"),
        ("local x <const> = 1; x = 2", "x:1: attempt to assign to const variable 'x'"),
        ("local x <close> = nil; x = 2", "x:1: attempt to assign to const variable 'x'"),
        (
            "local x <const> = {}; local function f() x = 1 end",
            "x:1: attempt to assign to const variable 'x'",
        ),
        ("local x <const> = 1; function x() end", "x:1: attempt to assign to const variable 'x'"),
        (
            "do local x; goto l; local y; ::l:: print(y) end",
            "x:1: <goto l> at line 1 jumps into the scope of local 'y'",
        ),
        (
            "repeat local x; goto cont; local y; ::cont:: until x",
            "x:1: <goto cont> at line 1 jumps into the scope of local 'y'",
        ),
        ("goto l; local a; ::l:: ::m::", "no error"),
        ("do goto l; local a end ::l::", "no error"),
        ("local a <close>, b <close> = 1, 2", "x:1: multiple to-be-closed variables in local list"),
        (
            "function f() return ... end",
            "x:1: cannot use '...' outside a vararg function near '...'",
        ),
        (
            "local function f() goto nowhere end",
            "x:1: no visible label 'nowhere' for <goto> at line 1",
        ),
        ("for i = 1, 2 do end goto x", "x:1: no visible label 'x' for <goto> at line 1"),
        ("if x then goto y end", "x:1: no visible label 'y' for <goto> at line 1"),
    ];
    for (src, want) in cases {
        assert_eq!(error_of(src), want, "source: {src}");
    }
}

/// Limits, with the reference's messages.
#[test]
fn limits_match_lua() {
    let locals: String = (1..=201).map(|i| format!("local a{i} = 1\n")).collect();
    assert_eq!(
        error_of(&locals),
        "x:201: too many local variables (limit is 200) in main function near '='"
    );
    let ok: String = (1..=200).map(|i| format!("local a{i} = 1\n")).collect();
    assert_eq!(error_of(&ok), "no error");
    let args = vec!["a"; 260].join(",");
    assert!(error_of(&format!("f({args})"))
        .starts_with("x:1: function or expression needs too many registers"));
    let mut up = String::from("local function g()\n");
    for i in 1..=150 {
        up.push_str(&format!("local a{i} = {i}\n"));
    }
    up.push_str("local function f()\n");
    for i in 1..=150 {
        up.push_str(&format!("local b{i} = {i}\n"));
    }
    up.push_str("return function() return ");
    let names: Vec<String> = (1..=150).map(|i| format!("a{i}+b{i}")).collect();
    up.push_str(&names.join("+"));
    up.push_str(" end end end");
    assert!(
        error_of(&up).contains("too many upvalues (limit is 255) in function at line"),
        "{}",
        error_of(&up)
    );
}

/// Maximal nesting of every kind compiles (or fails cleanly) without
/// overflowing the stack of a test thread.
#[test]
fn deep_nesting_does_not_overflow() {
    let n = 190;
    let chain = 990;
    let sources = [
        format!("return {}1{}", "(".repeat(n), ")".repeat(n)),
        format!("return {}x", "- ".repeat(n)),
        format!("return {}x", "not ".repeat(n)),
        format!("return {}1{}", "{".repeat(n), "}".repeat(n)),
        format!("{} end", "do ".repeat(n).to_string() + &"end ".repeat(n - 1)),
        format!("{}{}", "if x then ".repeat(n), "end ".repeat(n)),
        format!("{}{}", "while x do ".repeat(n), "end ".repeat(n)),
        format!("{}{}", "for i = 1, 2 do ".repeat(45), "end ".repeat(45)),
        format!("{}{}", "return function() ".repeat(n / 2), "end ".repeat(n / 2)),
        format!("return {}1{}", "f(".repeat(n), ")".repeat(n)),
        format!("return 1{}", " .. x".repeat(n)),
        format!("return 2{}", " ^ x".repeat(n)),
        format!("return 1{}", " + x".repeat(chain)),
        format!("return 1{}", " and x".repeat(chain)),
        format!("return a{}", ".b".repeat(chain)),
        format!("return f{}", "()".repeat(chain)),
        format!("a{} = 1", ".b".repeat(chain)),
        format!("return {{{}}}", "1, ".repeat(20_000)),
        format!("local t = {{{}}}", "x = 1, ".repeat(5_000)),
        "local x = 1 ".repeat(199),
    ];
    for src in &sources {
        // Must not panic or overflow; errors are fine.
        let r = compile(src.as_bytes(), b"=deep");
        if std::env::var("LUPREX_SHOW_DEEP").is_ok() {
            println!("{:?}", r.map(|p| p.code.len()));
        }
    }
}

/// Register allocation limits report PUC's `near` token in lists.
#[test]
fn register_limit_message() {
    let args = vec!["a"; 260].join(",");
    assert_eq!(
        error_of(&format!("f({args})")),
        "x:1: function or expression needs too many registers near 'a'"
    );
}

/// Programs too big to write inline: long constructors, many constants,
/// far jumps; compared with the reference.
#[test]
fn big_programs_match_luac() {
    if !luac_diff::have_luac() {
        return;
    }
    let items: Vec<String> = (0..600).map(|i| format!("{i}")).collect();
    let fields: Vec<String> = (0..300).map(|i| format!("k{i} = {i}")).collect();
    let consts: Vec<String> = (0..300).map(|i| format!("x = 's{i}'")).collect();
    let sources = [
        format!("local t = {{{}}}", items.join(", ")),
        format!("local t = {{{}, f()}}", items.join(", ")),
        format!("local t = {{{}}}", fields.join(", ")),
        format!("{} local t = {{}} t.y, t[300], t[x] = 1.5, 's1', 's299'", consts.join(" ")),
        format!("{} return x == 's1', x + 0.25, x & 1000", consts.join(" ")),
        format!("while x do {} end", "x = x + 1 ".repeat(5000)),
    ];
    let mut report = String::new();
    for src in &sources {
        let d = compare(src, true);
        if !d.is_empty() {
            report.push_str(&format!(
                "=== {}\n{}\n",
                &src[..60.min(src.len())],
                &d[..2000.min(d.len())]
            ));
        }
    }
    assert!(report.is_empty(), "{report}");
}

/// More than 2^17 constants: loads switch to `LOADKX` + `EXTRAARG`.
#[test]
fn loadkx_beyond_bx_range() {
    let mut src = String::from("local x\n");
    for i in 0..132_000 {
        src.push_str(&format!("x = {}.5\n", i));
    }
    let p = compile(src.as_bytes(), b"=x").expect("compiles");
    let listing = disassemble(&p);
    assert!(listing.contains("LOADKX"), "no LOADKX");
    assert!(listing.contains("EXTRAARG   131072"), "first LOADKX constant");
    assert!(listing.contains("; 131072.5"));
}

/// The programs of the disassembler snapshots (`disasm_snapshots.rs`).
fn snapshot_sources() -> Vec<String> {
    let file = include_str!("disasm_snapshots.rs");
    let mut out = Vec::new();
    for (i, _) in file.match_indices("check(") {
        let rest = file[i + 6..].trim_start();
        let Some(body) = rest.strip_prefix('"') else { continue };
        let mut src = String::new();
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => match chars.next() {
                    Some('n') => src.push('\n'),
                    Some(o) => src.push(o),
                    None => break,
                },
                _ => src.push(c),
            }
        }
        out.push(src);
    }
    out
}

#[test]
fn snapshot_programs_match_luac() {
    if !luac_diff::have_luac() {
        return;
    }
    let sources = snapshot_sources();
    assert!(sources.len() >= 20, "found {} snapshot programs", sources.len());
    let mut report = String::new();
    for src in &sources {
        let d = compare(src, true);
        if !d.is_empty() {
            report.push_str(&format!("=== {src}\n{d}\n"));
        }
    }
    assert!(report.is_empty(), "{report}");
}

/// Structural invariants every prototype must satisfy (what the VM relies
/// on): tests followed by jumps, jump targets and registers in range,
/// one line per instruction, sane local ranges, return conventions.
fn check_invariants(p: &luprex_compiler::Proto) -> Result<(), String> {
    use luprex_compiler::OpCode as O;
    let n = p.code.len();
    if p.line_info.len() != n {
        return Err("line_info length".into());
    }
    if p.max_stack == 255 || p.max_stack < 2 {
        return Err(format!("max_stack {}", p.max_stack));
    }
    let ms = u32::from(p.max_stack);
    for (pc, i) in p.code.iter().enumerate() {
        let op = i.opcode().ok_or(format!("pc {pc}: bad opcode"))?;
        let at = |what: &str| format!("pc {} {}: {what}", pc + 1, i);
        if op.is_test() && p.code.get(pc + 1).and_then(|j| j.opcode()) != Some(O::Jmp) {
            return Err(at("test not followed by JMP"));
        }
        let dest: Option<i64> = match op {
            O::Jmp => Some(pc as i64 + 1 + i64::from(i.sj_field())),
            O::ForLoop | O::TForLoop => Some(pc as i64 + 1 - i64::from(i.bx())),
            O::ForPrep => Some(pc as i64 + 2 + i64::from(i.bx())),
            O::TForPrep => Some(pc as i64 + 1 + i64::from(i.bx())),
            _ => None,
        };
        if let Some(d) = dest {
            if d < 0 || d >= n as i64 {
                return Err(at("jump out of range"));
            }
        }
        let writes_a = !matches!(
            op,
            O::Jmp | O::SetTabUp | O::Return0 | O::ExtraArg | O::Test | O::Eq | O::Lt | O::Le
        );
        let a_is_level = matches!(op, O::VarArgPrep | O::Close | O::Return);
        if writes_a && !op.is_test() && !a_is_level && i.a() >= ms {
            return Err(at("register A beyond max_stack"));
        }
        if op == O::TestSet && i.a() >= ms {
            return Err(at("unpatched TESTSET"));
        }
        if matches!(op, O::NewTable | O::LoadKX)
            && p.code.get(pc + 1).and_then(|j| j.opcode()) != Some(O::ExtraArg)
        {
            return Err(at("missing EXTRAARG"));
        }
        if matches!(op, O::Return | O::TailCall)
            && p.is_vararg
            && i.c() != u32::from(p.num_params) + 1
        {
            return Err(at("vararg return without C = nparams + 1"));
        }
        if matches!(op, O::Return0 | O::Return1) && p.is_vararg {
            return Err(at("RETURN0/RETURN1 in a vararg function"));
        }
    }
    if p.is_vararg && p.code.first().and_then(|i| i.opcode()) != Some(O::VarArgPrep) {
        return Err("vararg function does not start with VARARGPREP".into());
    }
    for v in &p.loc_vars {
        if v.start_pc > v.end_pc || v.end_pc as usize > n {
            return Err(format!("local {:?} range", String::from_utf8_lossy(&v.name)));
        }
    }
    p.protos.iter().try_for_each(check_invariants)
}

#[test]
fn invariants_hold_everywhere() {
    let mut sources: Vec<String> = SNIPPETS.iter().map(|s| s.to_string()).collect();
    sources.extend(snapshot_sources());
    if let Ok(dir) = std::env::var("LUPREX_LUA_TESTES") {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let s = std::fs::read(e.path()).unwrap();
            let s = String::from_utf8_lossy(&s).into_owned();
            sources.push(if s.starts_with('#') { s.replacen('#', "--", 1) } else { s });
        }
    }
    for src in &sources {
        let p = compile(src.as_bytes(), b"=x").unwrap_or_else(|e| panic!("{e}\n{src}"));
        if let Err(e) = check_invariants(&p) {
            panic!(
                "{e}\n--- source:\n{}\n--- listing:\n{}",
                &src[..src.len().min(300)],
                disassemble(&p)
            );
        }
    }
}

/// Random ASTs, built directly (so also shapes the parser never
/// produces): code generation must never panic, and what it produces
/// must satisfy the invariants.
mod random_ast {
    use luprex_compiler::ast::*;

    /// xorshift64*: deterministic and dependency-free.
    pub struct Rng(u64);

    impl Rng {
        pub fn new(seed: u64) -> Rng {
            Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
        }
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        pub fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    const NAMES: &[&str] = &["a", "b", "c", "x", "_ENV", "self", "t"];

    fn name(r: &mut Rng) -> Name {
        NAMES[r.below(NAMES.len() as u64) as usize].into()
    }

    fn e(kind: ExprKind, r: &mut Rng) -> Expr {
        Expr::new(kind, 1 + r.below(5) as u32)
    }

    pub fn expr(r: &mut Rng, depth: u32) -> Expr {
        let leaf = depth == 0 || r.below(3) == 0;
        let k = if leaf { r.below(9) } else { 9 + r.below(9) };
        let kind = match k {
            0 => ExprKind::Nil,
            1 => ExprKind::True,
            2 => ExprKind::False,
            3 => ExprKind::VarArg,
            4 => ExprKind::Int(match r.below(4) {
                0 => r.below(300) as i64 - 150,
                1 => i64::MIN,
                2 => i64::MAX,
                _ => r.next() as i64,
            }),
            5 => ExprKind::Float(match r.below(4) {
                0 => (r.below(100) as f64) / 4.0,
                1 => -0.0,
                2 => f64::INFINITY,
                _ => f64::from_bits(r.next()),
            }),
            6 => ExprKind::Str(if r.below(2) == 0 { b"k".into() } else { vec![b'z'; 50].into() }),
            7 | 8 => ExprKind::Name(name(r)),
            9 => ExprKind::Index(Box::new((expr(r, depth - 1), expr(r, depth - 1)))),
            10 => ExprKind::Call(Box::new(expr(r, depth - 1)), exprs(r, depth - 1)),
            11 => ExprKind::MethodCall(
                Box::new(expr(r, depth - 1)),
                Box::new((name(r), exprs(r, depth - 1))),
            ),
            12 => ExprKind::Function(Box::new(body(r, depth - 1))),
            13 => ExprKind::Paren(Box::new(expr(r, depth - 1))),
            14 => ExprKind::Table(
                (0..r.below(4))
                    .map(|_| match r.below(3) {
                        0 => Field::Positional(expr(r, depth - 1)),
                        1 => Field::Named(name(r), expr(r, depth - 1)),
                        _ => Field::Keyed(expr(r, depth - 1), expr(r, depth - 1)),
                    })
                    .collect(),
            ),
            15 | 16 => {
                const OPS: &[BinOp] = &[
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::Mul,
                    BinOp::Div,
                    BinOp::IDiv,
                    BinOp::Mod,
                    BinOp::Pow,
                    BinOp::Concat,
                    BinOp::Eq,
                    BinOp::Ne,
                    BinOp::Lt,
                    BinOp::Le,
                    BinOp::Gt,
                    BinOp::Ge,
                    BinOp::And,
                    BinOp::Or,
                    BinOp::BAnd,
                    BinOp::BOr,
                    BinOp::BXor,
                    BinOp::Shl,
                    BinOp::Shr,
                ];
                let op = OPS[r.below(OPS.len() as u64) as usize];
                ExprKind::Bin(op, Box::new((expr(r, depth - 1), expr(r, depth - 1))))
            }
            _ => {
                const OPS: &[UnOp] = &[UnOp::Neg, UnOp::Not, UnOp::Len, UnOp::BNot];
                ExprKind::Un(OPS[r.below(4) as usize], Box::new(expr(r, depth - 1)))
            }
        };
        e(kind, r)
    }

    fn exprs(r: &mut Rng, depth: u32) -> Vec<Expr> {
        (0..r.below(4)).map(|_| expr(r, depth)).collect()
    }

    fn body(r: &mut Rng, depth: u32) -> FuncBody {
        FuncBody {
            params: (0..r.below(3)).map(|_| name(r)).collect(),
            is_vararg: r.below(2) == 0,
            block: block(r, depth),
            line: 1,
            end_line: 6,
        }
    }

    pub fn block(r: &mut Rng, depth: u32) -> Block {
        let stats = (0..r.below(5)).map(|_| stat(r, depth)).collect();
        let ret = (r.below(4) == 0)
            .then(|| Box::new(Return { exprs: exprs(r, depth.saturating_sub(1)), line: 3 }));
        Block { stats, ret }
    }

    fn stat(r: &mut Rng, depth: u32) -> Stat {
        let d = depth.saturating_sub(1);
        let kind = if depth == 0 { 100 } else { r.below(16) };
        let kind = match kind {
            0 | 1 => StatKind::Assign {
                targets: (0..1 + r.below(3)).map(|_| expr(r, d)).collect(),
                exprs: (0..1 + r.below(3)).map(|_| expr(r, d)).collect(),
            },
            2 => StatKind::Call(expr(r, d)),
            3 | 4 => StatKind::Local {
                names: (0..1 + r.below(3))
                    .map(|_| {
                        let a = [Attrib::None, Attrib::Const, Attrib::Close][r.below(3) as usize];
                        (name(r), a)
                    })
                    .collect(),
                exprs: exprs(r, d),
            },
            5 => StatKind::Do(block(r, d)),
            6 => StatKind::While { cond: Box::new(expr(r, d)), body: block(r, d) },
            7 => StatKind::Repeat { body: block(r, d), cond: Box::new(expr(r, d)) },
            8 => {
                let conds: Vec<_> =
                    (0..1 + r.below(3)).map(|_| (expr(r, d), block(r, d))).collect();
                let then_lines = vec![1; conds.len()];
                StatKind::If {
                    conds,
                    else_block: (r.below(2) == 0).then(|| block(r, d)),
                    then_lines,
                }
            }
            9 => StatKind::NumericFor {
                var: name(r),
                start: Box::new(expr(r, d)),
                limit: Box::new(expr(r, d)),
                step: (r.below(2) == 0).then(|| Box::new(expr(r, d))),
                body: block(r, d),
            },
            10 => StatKind::GenericFor {
                names: (0..1 + r.below(3)).map(|_| name(r)).collect(),
                exprs: (0..1 + r.below(3)).map(|_| expr(r, d)).collect(),
                body: block(r, d),
                end_line: 1,
            },
            11 => StatKind::Function {
                path: (0..1 + r.below(3)).map(|_| name(r)).collect(),
                method: (r.below(2) == 0).then(|| name(r)),
                func: Box::new(body(r, d)),
            },
            12 => StatKind::LocalFunction { name: name(r), func: Box::new(body(r, d)) },
            13 => StatKind::Label(name(r)),
            14 => StatKind::Goto(name(r)),
            _ => StatKind::Break,
        };
        Stat { kind, line: 1 + r.below(5) as u32 }
    }
}

#[test]
fn random_asts_never_panic() {
    use luprex_compiler::{ast::Chunk, codegen::generate};
    let mut ok = 0;
    let n: u64 = std::env::var("LUPREX_FUZZ_N").ok().and_then(|s| s.parse().ok()).unwrap_or(3000);
    for seed in 0..n {
        let mut r = random_ast::Rng::new(seed);
        let chunk = Chunk { block: random_ast::block(&mut r, 4), end_line: 7 };
        if let Ok(p) = generate(&chunk, b"=fuzz") {
            ok += 1;
            if let Err(e) = check_invariants(&p) {
                panic!("seed {seed}: {e}\n{}", disassemble(&p));
            }
        }
    }
    assert!(ok > n / 10, "only {ok} random chunks compiled");
}

/// Prints an AST back to Lua source (fully parenthesized), for
/// differential fuzzing against the reference compiler.
mod print_ast {
    use luprex_compiler::ast::*;

    fn s(b: &[u8]) -> String {
        String::from_utf8_lossy(b).into_owned()
    }

    fn prefix(e: &Expr) -> String {
        match e.kind {
            ExprKind::Name(_)
            | ExprKind::Index(..)
            | ExprKind::Call(..)
            | ExprKind::MethodCall(..)
            | ExprKind::Paren(_) => expr(e),
            _ => format!("({})", expr(e)),
        }
    }

    fn list(es: &[Expr]) -> String {
        es.iter().map(expr).collect::<Vec<_>>().join(", ")
    }

    pub fn expr(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Nil => "nil".into(),
            ExprKind::True => "true".into(),
            ExprKind::False => "false".into(),
            ExprKind::VarArg => "...".into(),
            ExprKind::Int(i) if *i == i64::MIN => "math.mininteger".into(),
            ExprKind::Int(i) if *i < 0 => format!("(-{})", -i),
            ExprKind::Int(i) => i.to_string(),
            ExprKind::Float(f) if f.is_nan() => "(0/0)".into(),
            ExprKind::Float(f) if f.is_infinite() => {
                if *f > 0.0 { "1e999" } else { "(-1e999)" }.into()
            }
            ExprKind::Float(f) if f.is_sign_negative() => format!("(-{:e})", -f),
            ExprKind::Float(f) => format!("{f:e}"),
            ExprKind::Str(b) => format!("'{}'", s(b)),
            ExprKind::Name(n) => s(n),
            ExprKind::Index(ok) => format!("{}[{}]", prefix(&ok.0), expr(&ok.1)),
            ExprKind::Call(f, a) => format!("{}({})", prefix(f), list(a)),
            ExprKind::MethodCall(o, m) => format!("{}:{}({})", prefix(o), s(&m.0), list(&m.1)),
            ExprKind::Function(b) => format!("function{}", body(b)),
            ExprKind::Paren(x) => format!("({})", expr(x)),
            ExprKind::Table(fs) => {
                let f: Vec<String> = fs
                    .iter()
                    .map(|f| match &*f {
                        Field::Positional(x) => expr(x),
                        Field::Named(n, x) => format!("{} = {}", s(n), expr(x)),
                        Field::Keyed(k, x) => format!("[{}] = {}", expr(k), expr(x)),
                    })
                    .collect();
                format!("{{{}}}", f.join(", "))
            }
            ExprKind::Bin(op, lr) => {
                let (l, r) = &**lr;
                let o = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::Div => "/",
                    BinOp::IDiv => "//",
                    BinOp::Mod => "%",
                    BinOp::Pow => "^",
                    BinOp::Concat => "..",
                    BinOp::Eq => "==",
                    BinOp::Ne => "~=",
                    BinOp::Lt => "<",
                    BinOp::Le => "<=",
                    BinOp::Gt => ">",
                    BinOp::Ge => ">=",
                    BinOp::And => "and",
                    BinOp::Or => "or",
                    BinOp::BAnd => "&",
                    BinOp::BOr => "|",
                    BinOp::BXor => "~",
                    BinOp::Shl => "<<",
                    BinOp::Shr => ">>",
                };
                format!("({} {o} {})", expr(l), expr(r))
            }
            ExprKind::Un(op, x) => {
                let o = match op {
                    UnOp::Neg => "-",
                    UnOp::Not => "not ",
                    UnOp::Len => "#",
                    UnOp::BNot => "~",
                };
                format!("({o}{})", expr(x))
            }
        }
    }

    fn body(b: &FuncBody) -> String {
        let mut p: Vec<String> = b.params.iter().map(|n| s(n)).collect();
        if b.is_vararg {
            p.push("...".into());
        }
        format!("({}) {} end", p.join(", "), block(&b.block))
    }

    pub fn block(b: &Block) -> String {
        let mut out: Vec<String> = b.stats.iter().map(stat).collect();
        if let Some(r) = &b.ret {
            out.push(format!("return {}", list(&r.exprs)));
        }
        out.join("; ")
    }

    fn stat(st: &Stat) -> String {
        match &st.kind {
            StatKind::Assign { targets, exprs } => format!("{} = {}", list(targets), list(exprs)),
            StatKind::Call(e) => expr(e),
            StatKind::Local { names, exprs } => {
                let n: Vec<String> = names
                    .iter()
                    .map(|(n, a)| match a {
                        Attrib::None => s(n),
                        Attrib::Const => format!("{} <const>", s(n)),
                        Attrib::Close => format!("{} <close>", s(n)),
                    })
                    .collect();
                if exprs.is_empty() {
                    format!("local {}", n.join(", "))
                } else {
                    format!("local {} = {}", n.join(", "), list(exprs))
                }
            }
            StatKind::Do(b) => format!("do {} end", block(b)),
            StatKind::While { cond, body } => {
                format!("while {} do {} end", expr(cond), block(body))
            }
            StatKind::Repeat { body, cond } => {
                format!("repeat {} until {}", block(body), expr(cond))
            }
            StatKind::If { conds, else_block, .. } => {
                let mut out = String::new();
                for (i, (c, b)) in conds.iter().enumerate() {
                    let kw = if i == 0 { "if" } else { " elseif" };
                    out.push_str(&format!("{kw} {} then {}", expr(c), block(b)));
                }
                if let Some(b) = else_block {
                    out.push_str(&format!(" else {}", block(b)));
                }
                out + " end"
            }
            StatKind::NumericFor { var, start, limit, step, body } => {
                let st = step.as_ref().map(|e| format!(", {}", expr(e))).unwrap_or_default();
                format!(
                    "for {} = {}, {}{st} do {} end",
                    s(var),
                    expr(start),
                    expr(limit),
                    block(body)
                )
            }
            StatKind::GenericFor { names, exprs, body, .. } => {
                let n: Vec<String> = names.iter().map(|n| s(n)).collect();
                format!("for {} in {} do {} end", n.join(", "), list(exprs), block(body))
            }
            StatKind::Function { path, method, func } => {
                let p: Vec<String> = path.iter().map(|n| s(n)).collect();
                let m = method.as_ref().map(|m| format!(":{}", s(m))).unwrap_or_default();
                format!("function {}{m}{}", p.join("."), body(func))
            }
            StatKind::LocalFunction { name, func } => {
                format!("local function {}{}", s(name), body(func))
            }
            StatKind::Label(n) => format!("::{}::", s(n)),
            StatKind::Goto(n) => format!("goto {}", s(n)),
            StatKind::Break => "break".into(),
        }
    }
}

/// Random programs (printed from random ASTs) compiled by both compilers;
/// `LUPREX_DIFF_FUZZ=N` runs N of them (each spawns `luac5.4`).
#[test]
fn random_programs_match_luac() {
    let n: u64 = std::env::var("LUPREX_DIFF_FUZZ").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    if n == 0 || !luac_diff::have_luac() {
        return;
    }
    let (mut compared, mut failures) = (0, Vec::new());
    for seed in 0..n {
        let mut r = random_ast::Rng::new(seed + 1_000_000);
        let depth =
            std::env::var("LUPREX_DIFF_DEPTH").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
        let src = print_ast::block(&random_ast::block(&mut r, depth));
        let Some(listing) = luac_diff::luac_listing(src.as_bytes()) else { continue };
        compared += 1;
        let d = match compile(src.as_bytes(), b"=x") {
            Ok(p) => {
                let theirs = luac_diff::parse_luac(&listing);
                luac_diff::diff(&luac_diff::normalize_ours(&p), &theirs, true)
            }
            Err(e) => format!("we reject: {e}"),
        };
        if !d.is_empty() {
            failures.push(format!(
                "seed {seed}: {src}\n{}",
                d.lines().take(6).collect::<Vec<_>>().join("\n")
            ));
        }
    }
    println!("compared {compared} programs, {} differ", failures.len());
    assert!(failures.is_empty(), "{}", failures[..failures.len().min(5)].join("\n\n"));
}

/// The opcodes of the main function, in order.
fn ops(src: &str) -> Vec<luprex_compiler::OpCode> {
    let p = compile(src.as_bytes(), b"=x").unwrap();
    p.code.iter().filter_map(|i| i.opcode()).collect()
}

#[test]
fn scoping_registers_and_debug_ranges() {
    let p = compile(b"local a do local b = 1 end local c = 2 local k <const> = 3 local d", b"=x")
        .unwrap();
    let names: Vec<_> = p.loc_vars.iter().map(|v| String::from_utf8_lossy(&v.name)).collect();
    // `k` is a compile-time constant: no register, no debug record.
    assert_eq!(names, ["a", "b", "c", "d"]);
    let (b, c) = (&p.loc_vars[1], &p.loc_vars[2]);
    assert!(b.end_pc <= c.start_pc, "b's scope ends before c's starts");
    // `c` reuses b's register 1; `d` takes register 2 (LOADNIL 2 0).
    let loadnil =
        p.code.iter().rev().find(|i| i.opcode() == Some(luprex_compiler::OpCode::LoadNil));
    assert_eq!(loadnil.map(|i| i.a()), Some(2));
    assert_eq!(p.max_stack, 3);
}

#[test]
fn jumps_are_threaded_and_not_is_folded_into_tests() {
    use luprex_compiler::OpCode::*;
    // `not a` needs no NOT: the test's sense is inverted.
    assert_eq!(
        ops("local a = ... if not a then a = 1 end"),
        [VarArgPrep, VarArg, Test, Jmp, LoadI, Return]
    );
    // A jump to a jump goes straight to the final target.
    let p = compile(b"local a, b = ... while a do if b then break end end", b"=x").unwrap();
    for (pc, i) in p.code.iter().enumerate() {
        if i.opcode() == Some(Jmp) {
            let t = (pc as i64 + 1 + i64::from(i.sj_field())) as usize;
            assert_ne!(p.code[t].opcode(), Some(Jmp), "pc {pc} jumps to a jump");
        }
    }
}

#[test]
fn folding_in_context() {
    use luprex_compiler::OpCode::*;
    assert_eq!(ops("return 1 + 2 * 3 - 2 ^ 2"), [VarArgPrep, LoadF, Return, Return]);
    assert_eq!(ops("return 1 // 0"), [VarArgPrep, LoadI, IDivK, Return, Return]);
    let k = compile(b"local x <const> = 6 local y <const> = x * 7 return y", b"=x").unwrap();
    assert_eq!(k.code[1], luprex_compiler::Instruction::asbx(LoadI, 0, 42));
}

#[test]
fn constants_are_deduplicated_by_type() {
    use luprex_compiler::Constant::*;
    let p = compile(b"t.x = 1.0 t.y = 1 t.x = 1.0 t.y = 1 t.z = 'y' t.w = 0.1 t.w = 0.1", b"=x")
        .unwrap();
    assert_eq!(
        p.constants,
        [
            Str(b"t".to_vec()),
            Str(b"x".to_vec()),
            Float(1.0),
            Str(b"y".to_vec()),
            Int(1),
            Str(b"z".to_vec()),
            Str(b"w".to_vec()),
            Float(0.1)
        ]
    );
}
