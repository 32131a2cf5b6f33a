//! The interpreter loop (`lvm.c`'s `luaV_execute`).
//!
//! One `match` on the raw opcode byte per instruction. The running frame's
//! state lives in locals: `base`, `pc`, the closure and prototype handles,
//! and raw pointers to the prototype's code and constants (so a fetch is
//! one load, not an arena lookup). Registers are `at!(stk, r)`, where
//! `stk` ([`Regs`]) borrows the stack and holds the address of register 0:
//! it is taken when a frame starts and again only where the stack may have
//! moved (`continue 'reload` or `reload!()` after a call of a `State`
//! method; the borrow checker rejects any other order), so a fast path
//! reaches a register with one addressing mode. The common cases are
//! handled inline — integer and float arithmetic (`/`, `%`, `//`, `^`
//! included), raw table hits (array part, string keys, a key missing from a
//! table whose `__index` chain is made of tables, an update of an existing
//! string key or an append to the array part even with a metatable),
//! Lua-to-Lua calls and returns — and everything else goes to a slow path
//! in `meta.rs`/`call.rs`.
//!
//! **Values move as two words.** A `Value` is 16 bytes; a value built in
//! place (`Value::Int(x)`) is written as two 8-byte stores, and a 16-byte
//! load spanning two pending stores cannot be store-forwarded: it stalls.
//! Since almost every instruction reads what the previous one wrote, the
//! loop reads registers (and array slots) with `load` and writes copied
//! values with `store`, word by word (`tests/dispatch.rs` runs under Miri).
//!
//! **Verified code is trusted.** Every prototype is verified before it can
//! run (`luprex_compiler::verify`: binary chunks and saved states are
//! checked, compiler output is correct by construction), so the loop
//! fetches instructions (`fetch!`), reads constants (`kst!`) and lookup
//! hints (`hint!`) and indexes registers (`at!`, `execute/regs.rs`) without
//! bounds checks, and the opcode match has no default case; each `unsafe`'s
//! `SAFETY` comment names the guarantee, and debug builds still check the
//! register indices (5-22 % fewer instructions, 13 % less CPU time on
//! twelve programs, `benches/RESULTS.md`, issue 16 part 2).
//!
//! **Lookup hints.** GETFIELD, GETTABUP and SELF keep, per instruction, the
//! entry where they last found their key (`TableView::get_str_hinted`),
//! SETFIELD and SETTABUP the entry they last updated
//! (`Tables::set_str_existing`); each is checked before use, so a hint saves
//! a search, never changes a result, and is not state. They live beside the
//! code (`func::Code`), so that one pointer reaches both (a pointer of its
//! own cost a register: `benches/RESULTS.md`, part 11).
//!
//! Calls and returns never recurse on the Rust stack. A CALL, TAILCALL or
//! TFORCALL of a Lua function with fixed parameters pushes (or rewrites)
//! the frame and sets the callee's locals in place; other calls push a
//! frame and jump to `'newframe`, which reloads the locals from the top
//! frame, as does a slow path that pushed a metamethod frame. RETURN,
//! RETURN0 and RETURN1 to a Lua caller move the results inline
//! (`return_fast`, `execute/calls.rs`); other returns go through
//! `poscall`. (Setting the caller's locals in place after a return saved
//! 0.4-0.8 % of call-heavy programs' instructions but cost 8 % CPU time
//! on `nbody` and `heapsort` through the loop's layout: not done.)
//! When the top frame is a native waiting in a continuation, `'newframe`
//! runs the continuation.
//!
//! Before anything that may raise an error or look at frames (slow paths,
//! calls), the loop saves `pc` into the frame (`savepc!`), so that error
//! messages and tracebacks see the current line. One error is raised
//! without saving, to reproduce a quirk of Lua 5.4.4: integer `//` and `%`
//! by zero report the line of the last *saved* pc (the reference's
//! `savedpc`, which its arithmetic fast paths do not update). For that line
//! to match, LEN, EQ, VARARG and VARARGPREP always save pc, as `Protect`
//! does; other fast paths (a nil table read, a new key stored) do not,
//! where the reference would: the emulation is close but not exact.
//!
//! **Instances:** the loop is generic over `HOOKED` and `FRESH`. `FRESH`
//! (never with `HOOKED`) runs while the table store holds no stale body
//! pointer (`table.rs`, "The fresh instance"), and its table accesses
//! take the body pointer untested; `'newframe` leaves it if the store went
//! stale (a rollback cannot happen while Lua runs: a safety net).
//!
//! **Debug hooks:** `execute` runs the
//! plain instance while no thread has a hook, which checks `hooks.any` only
//! when a frame (re)starts at `'newframe` and after a native called by CALL
//! returns (`debug.sethook` is one), and returns to switch instances. The
//! hooked instance calls the line/count, call and return hooks (`debug.rs`)
//! and enters Lua callees through `'newframe` so their call hook runs.
//!
//! **Budget:** backward jumps charge `State::budget` their distance, calls
//! [`CALL_COST`](crate::limits::CALL_COST); at zero the limits are checked.
//! **GC safe points:** NEWTABLE, CONCAT and CLOSURE check the collector's
//! debt after writing their result, when every live value is in a register.

use crate::call::{Exit, Pre};
use crate::debug::Operand;
use crate::error::Error;
use crate::meta::{index_via_meta, set_str_new, string_method, ArithOp, TM_INDEX, TM_LE, TM_LT};
use crate::number;
use crate::state::{State, MAX_STACK};
use crate::table::TableView;
use crate::thread::{cist, u, CallInfo, Callee, MetaRet};
use crate::value::{Type, Value};

#[macro_use]
mod regs;
mod calls;
mod forloop;
mod ops;

use ops::*;
use regs::{get_int, upval_read, upval_write, Regs};
pub(crate) use regs::{load, store};

impl State {
    /// Runs the frames above depth `stop` (see the module docs): the
    /// plain instance of the loop while no thread has a debug hook, the
    /// hooked one otherwise, switching when a frame (re)starts. The
    /// resumes of `loop_resumes` above `mine` are this activation's
    /// (`coswitch.rs`). Inline: out of line it cost a nested call 40
    /// instructions (`gsub`'s replacement).
    #[inline(always)]
    pub(crate) fn execute(&mut self, stop: usize, mine: usize) -> Result<Exit, Error> {
        loop {
            let stop = self.loop_stop(stop, mine);
            let r = if self.hooks.any {
                self.execute_loop::<true, false>(stop)?
            } else if self.heap.tables.stale() {
                self.execute_loop::<false, false>(stop)?
            } else {
                self.execute_loop::<false, true>(stop)?
            };
            match r {
                Some(x) if self.loop_resumes.len() > mine => _ = self.end_in_loop(Ok(x))?,
                Some(x) => return Ok(x),
                None => {}
            }
        }
    }

    /// The loop. `HOOKED`: run the debug hooks (call hooks when a Lua
    /// frame starts, line and count hooks before every instruction, return
    /// hooks in RETURN*). `Ok(None)`: hooks were switched on or off, run
    /// the other instance.
    // `reload!` in the shared `budget!`/`gc_check!` is dead where the arm
    // goes on to `continue 'reload` anyway.
    #[allow(unused_assignments)]
    fn execute_loop<const HOOKED: bool, const FRESH: bool>(
        &mut self,
        stop: usize,
    ) -> Result<Option<Exit>, Error> {
        'newframe: loop {
            if self.ex.frames.len() <= stop {
                return Ok(Some(Exit::Return));
            }
            if self.hooks.any != HOOKED || (FRESH && self.heap.tables.stale()) {
                return Ok(None);
            }
            // The running frame's state, in locals. A Lua-to-Lua CALL sets
            // them for the callee in place; everything else reloads them
            // here from the top frame.
            let mut ci_idx = self.ex.frames.len() - 1;
            let ci = &self.ex.frames[ci_idx];
            let mut base = u(ci.base);
            let mut pc = u(ci.pc);
            let mut cl = match ci.callee {
                Callee::Lua(cl) => cl,
                Callee::Rust(_) => match self.continue_native()? {
                    Pre::Continue => continue 'newframe,
                    Pre::Yield => return Ok(Some(Exit::Yield)),
                    Pre::Switch => return Ok(None),
                },
            };
            // The running function's code and constants, as raw pointers
            // (see `fetch!` and `kst!`): no arena lookup per fetch.
            let (mut proto, mut code, mut kst, mut upv) = {
                // SAFETY: `cl` is the callee of a frame, which the collector
                // marks: a live closure (`Arena::get_unchecked`).
                let c = unsafe { self.heap.lua_fns.get_unchecked(cl) };
                (c.proto, c.code.as_ptr(), c.k.as_ptr(), c.upvals.as_ptr())
            };
            if HOOKED && pc == 0 && !self.heap.protos.get(proto).is_vararg {
                self.hook_call()?;
            }

            let mut stk: Regs<'_>;
            // The registers are taken here and again wherever the stack may
            // have moved (`continue 'reload`), not per instruction.
            'reload: loop {
                stk = Regs::new(&mut self.ex.stack, base);

                // `ci_idx` is the top frame's index whenever the loop runs it
                // (every path that pushes or pops a frame goes on at
                // `'newframe`, which sets it again).
                macro_rules! savepc {
                    () => {{
                        debug_assert_eq!(ci_idx + 1, self.ex.frames.len());
                        // SAFETY: `ci_idx` is the top frame's index (above).
                        unsafe { self.ex.frames.get_unchecked_mut(ci_idx).pc = pc as u32 }
                    }};
                }
                // Takes the registers again, after a call that may have moved
                // the stack.
                macro_rules! reload {
                    () => {
                        stk = Regs::new(&mut self.ex.stack, base)
                    };
                }
                // Registers. Each instruction starts by borrowing the stack as
                // `stk` ([`Regs`]): its pointer stays in a machine register instead
                // of being reloaded through `self` after every store. The borrow is
                // of `self.ex.stack` only, so fast paths may still use the heap, the
                // frames or the budget; a call of a `State` method ends it, after
                // which registers are reached through `self` (`rs!`).
                macro_rules! r {
                    ($x:expr) => {
                        at!(stk, $x as usize)
                    };
                }
                // Reads of registers go through `load` and writes of values not
                // built in place through `store` (word by word, see `load`);
                // `r!` is the register itself, for writes of new values.
                macro_rules! rv {
                    ($x:expr) => {
                        load(at!(&stk, $x as usize))
                    };
                }
                macro_rules! w {
                    ($x:expr, $v:expr) => {{
                        let v = $v;
                        store(&mut at!(stk, $x as usize), v)
                    }};
                }
                // A register after a call (through `self`).
                macro_rules! rs {
                    ($x:expr) => {
                        self.ex.stack[base + $x as usize]
                    };
                }
                // A raw read `v` from a table with metatable `meta`, completed
                // through `__index` tables (`None`: slow path).
                macro_rules! index_fast {
                    ($v:expr, $meta:expr, $get:expr) => {
                        match $meta {
                            Some(mt) if $v.is_nil() => {
                                index_via_meta(&mut self.heap, self.tm_names[TM_INDEX], mt, $get)
                            }
                            _ => Some($v),
                        }
                    };
                }
                // `R[A] := t[key]` for a string constant `key` on a table, with the
                // lookup hint (GETTABUP, GETFIELD, SELF): `continue` if answered.
                macro_rules! field_fast {
                    ($i:expr, $t:expr, $ks:expr) => {
                        if let (Value::Table(h), ks) = ($t, $ks) {
                            // SAFETY: `h` is from a register of the running frame
                            // or an upvalue of the running closure, which the
                            // collector reaches: a live table (`Tables::get_live`).
                            let tab = unsafe { self.heap.tables.get_live_in::<FRESH>(h) };
                            let (v, meta) = (tab.get_str_hinted(ks, hint!()), tab.meta);
                            if let Some(v) = index_fast!(v, meta, |t: TableView<'_>| t.get_str(ks))
                            {
                                w!($i.a(), v);
                                continue;
                            }
                        }
                    };
                }
                // The instruction, hidden from the optimizer, for a slow path
                // that decodes its operands again from it. Otherwise LLVM keeps
                // what the fast path decoded (register offsets, the operand
                // index for an error message) alive into the slow path and,
                // short of registers in this loop, spills it on the fast path
                // itself: 3-7 % of the instructions of table-heavy programs
                // and up to a quarter of their stack accesses (docs/PROFILING.md
                // item 60). `black_box` costs a store and a load, on the slow
                // path only.
                macro_rules! opaque {
                    ($i:expr) => {
                        std::hint::black_box($i)
                    };
                }
                // `R[A] := t[key]` through the metamethods (`index_op`), where the
                // fast path did not answer (`$i` the instruction); `$op` names `t` in error messages. A
                // metamethod call continues at `'newframe`.
                macro_rules! index_slow {
                    ($i:expr, $t:expr, $key:expr, $op:expr) => {{
                        savepc!();
                        match self.index_op($t, $key, $op, MetaRet::Reg($i.a() as u8))? {
                            Some(v) => {
                                reload!();
                                w!($i.a(), v)
                            }
                            None => continue 'newframe,
                        }
                    }};
                }
                // `t[key] = v` through the metamethods (`newindex_op`): a
                // `__newindex` call pushed a frame, run it; otherwise the stack
                // may have moved, take the registers again.
                macro_rules! newindex_slow {
                    ($t:expr, $key:expr, $v:expr, $op:expr) => {{
                        savepc!();
                        let depth = self.ex.frames.len();
                        self.newindex_op($t, $key, $v, $op)?;
                        if self.ex.frames.len() != depth {
                            continue 'newframe;
                        }
                        continue 'reload;
                    }};
                }
                // An upvalue's value (the stack may be borrowed); `$uv` is one
                // of the running closure's (`upv!`).
                macro_rules! upval {
                    ($uv:expr) => {
                        // SAFETY: the running closure's upvalue, marked with it.
                        unsafe { upval_read(&self.heap, self.running, stk.slice(), $uv) }
                    };
                }
                // The constant `$x` and the instruction at `$pc`, unchecked.
                // SAFETY (both): `code` and `kst` point into the running
                // closure's shares of its prototype's `code` (with the lookup
                // hints, `func::Code`) and `k`, `Rc` slices whose contents stay
                // where they are while the closure lives (moving it within its
                // arena does not move them; only the hints' `Cell`s change).
                // The closure lives while this activation runs: the frame's
                // function slot holds it, the collector traces it from there,
                // and nothing else frees a closure (rollback and state loading
                // refuse to run while any frame exists, `vm_busy`).
                // The prototype's code was verified before it
                // could run (`luprex_compiler::verify`; compiler output
                // satisfies it by construction): every constant operand is
                // below the constants' length, and every pc the loop reaches
                // (successors, jump targets, the `EXTRAARG` after LOADKX,
                // NEWTABLE and SETLIST) is inside the code, which ends in a
                // return.
                macro_rules! kst {
                    ($x:expr) => {
                        unsafe { *kst.add($x as usize) }
                    };
                }
                // The string constant `$x` of a field instruction (GETTABUP,
                // GETFIELD, SETTABUP, SETFIELD), unchecked: the verifier
                // checked the constant's kind (`ck.konst(_, STR)` in
                // `luprex_compiler::verify`), as it checked the index.
                macro_rules! kstr {
                    ($x:expr) => {
                        match kst!($x) {
                            Value::Str(s) => s,
                            // SAFETY: see above.
                            _ => unsafe { std::hint::unreachable_unchecked() },
                        }
                    };
                }
                macro_rules! fetch {
                    ($pc:expr) => {
                        unsafe { (*code.add($pc)).i }
                    };
                }
                // The lookup hint of the running instruction (at `pc - 1`),
                // kept beside the next one in `code` (see `func::Op`).
                // SAFETY: as `fetch!`; `pc` is the running instruction's index
                // plus one, at most the code's length, which the stream exceeds.
                macro_rules! hint {
                    () => {
                        unsafe { &(*code.add(pc)).hint }
                    };
                }
                // The running closure's upvalue `$x`, unchecked.
                // SAFETY: `upv` points into the running closure's `upvals`, a
                // boxed slice that stays where it is while the closure lives
                // (alive as `code` is, see above; moving the closure within its
                // arena moves the box, not the slice, and `debug.upvaluejoin`
                // writes an element in place). The verifier checked every
                // upvalue operand against the prototype's upvalue count, which
                // is the slice's length (`LuaClosure::new` asserts it).
                macro_rules! upv {
                    ($x:expr) => {
                        unsafe { *upv.add($x as usize) }
                    };
                }
                macro_rules! rk {
                    ($i:expr) => {
                        if $i.k() {
                            kst!($i.c())
                        } else {
                            rv!($i.c())
                        }
                    };
                }
                // Charges `$n` instructions (`limits.rs`).
                // (`b <= n` rather than `b - n <= 0`, the same test: the
                // subtraction's own flags answer it, so the charge is one
                // `sub` to memory and a branch.)
                macro_rules! budget {
                    ($n:expr) => {
                        let (b, n) = (self.budget, $n as i64);
                        self.budget = b - n;
                        if b <= n {
                            savepc!();
                            self.budget_exhausted()?;
                            reload!();
                        }
                    };
                }
                // The safe point of the instruction just run.
                macro_rules! gc_check {
                    () => {
                        if self.heap.bytes >= self.gc.threshold {
                            savepc!();
                            self.loop_safe_point()?;
                            reload!();
                        }
                    };
                }
                // Conditional jump: `if cond ~= k then skip the JMP else take it`.
                macro_rules! cond_jump {
                    ($cond:expr, $i:expr) => {
                        if $cond != $i.k() {
                            pc += 1;
                        } else {
                            let ni = fetch!(pc);
                            let off = ni.sj_field();
                            pc = (pc as i64 + 1 + off as i64) as usize;
                            if off < 0 {
                                budget!(-off);
                            }
                        }
                    };
                }
                // Slow path of an arithmetic instruction.
                macro_rules! arith_slow {
                    ($op:expr, $a:expr, $b:expr, $oa:expr, $ob:expr, $dest:expr) => {{
                        savepc!();
                        match self.arith_slow($op, $a.words(), $b.words(), $oa, $ob, $dest as u8)? {
                            Some(v) => {
                                reload!();
                                w!($dest, v)
                            }
                            None => continue 'newframe,
                        }
                    }};
                }
                // The fast paths read operands through references, field by
                // field, and write results in place: copying a whole `Value`
                // out of a register makes LLVM use a 16-byte load, which cannot
                // be store-forwarded from the two 8-byte stores that wrote the
                // register an instruction earlier (a stall on every dependent
                // arithmetic instruction).
                macro_rules! arith_rr {
                    ($i:expr, $op:expr, $iop:expr, $fop:expr) => {{
                        let ra = $i.a() as usize;
                        let st = &mut stk;
                        match (at!(&st, $i.b() as usize), at!(&st, $i.c() as usize)) {
                            (&Value::Int(x), &Value::Int(y)) => {
                                at!(st, ra) = Value::Int($iop(x, y))
                            }
                            (&Value::Float(x), &Value::Float(y)) => {
                                at!(st, ra) = Value::Float($fop(x, y))
                            }
                            (&Value::Int(x), &Value::Float(y)) => {
                                at!(st, ra) = Value::Float($fop(x as f64, y))
                            }
                            (&Value::Float(x), &Value::Int(y)) => {
                                at!(st, ra) = Value::Float($fop(x, y as f64))
                            }
                            _ => {
                                let (a, b) = (rv!($i.b()), rv!($i.c()));
                                arith_slow!(
                                    $op,
                                    a,
                                    b,
                                    Operand::Reg($i.b()),
                                    Operand::Reg($i.c()),
                                    $i.a()
                                )
                            }
                        }
                    }};
                }
                macro_rules! arith_rk {
                    ($i:expr, $op:expr, $iop:expr, $fop:expr) => {{
                        let ra = $i.a() as usize;
                        let st = &mut stk;
                        match (at!(&st, $i.b() as usize), &kst!($i.c())) {
                            (&Value::Int(x), &Value::Int(y)) => {
                                at!(st, ra) = Value::Int($iop(x, y))
                            }
                            (&Value::Float(x), &Value::Float(y)) => {
                                at!(st, ra) = Value::Float($fop(x, y))
                            }
                            (&Value::Int(x), &Value::Float(y)) => {
                                at!(st, ra) = Value::Float($fop(x as f64, y))
                            }
                            (&Value::Float(x), &Value::Int(y)) => {
                                at!(st, ra) = Value::Float($fop(x, y as f64))
                            }
                            _ => {
                                let (a, b) = (rv!($i.b()), kst!($i.c()));
                                if $i.k() {
                                    // The constant was the left operand
                                    // (commutative ops only).
                                    arith_slow!(
                                        $op,
                                        b,
                                        a,
                                        Operand::None,
                                        Operand::Reg($i.b()),
                                        $i.a()
                                    )
                                } else {
                                    arith_slow!(
                                        $op,
                                        a,
                                        b,
                                        Operand::Reg($i.b()),
                                        Operand::None,
                                        $i.a()
                                    )
                                }
                            }
                        }
                    }};
                }
                // Float-only (or special-integer) operations go through arith_num.
                macro_rules! arith_gen {
                    ($i:expr, $op:expr, $a:expr, $b:expr, $oa:expr, $ob:expr) => {{
                        let (a, b) = ($a, $b);
                        match crate::meta::arith_num($op, a, b) {
                            crate::meta::NumRes::Val(v) => w!($i.a(), v),
                            // Integer `//`/`%` by zero: raised without saving
                            // pc, so at the last saved line, as Lua 5.4.4.
                            crate::meta::NumRes::Err(m) => return Err(self.rt_error(m)),
                            _ => arith_slow!($op, a, b, $oa, $ob, $i.a()),
                        }
                    }};
                }
                // `/`, `^`, `%`, `//` on numbers, inline (`arith_num`'s cases):
                // with `int`, two integers (nonzero divisor) give an integer,
                // otherwise the operands are converted to floats. Anything else
                // (including integer division by zero) goes to `arith_gen!`.
                macro_rules! arith_num {
                    ($i:expr, $op:expr, $x:expr, $y:expr, $oa:expr, $ob:expr, $fop:expr) => {
                        arith_num!($i, $op, $x, $y, $oa, $ob, $fop, |_: i64, _: i64| None::<i64>)
                    };
                    ($i:expr, $op:expr, $x:expr, $y:expr, $oa:expr, $ob:expr, $fop:expr, $iop:expr) => {{
                        let ra = $i.a() as usize;
                        let res = match (&$x, &$y) {
                            (&Value::Float(x), &Value::Float(y)) => Some(Value::Float($fop(x, y))),
                            (&Value::Int(x), &Value::Int(y)) => match $iop(x, y) {
                                Some(n) => Some(Value::Int(n)),
                                None if $op == ArithOp::Div || $op == ArithOp::Pow => {
                                    Some(Value::Float($fop(x as f64, y as f64)))
                                }
                                None => None,
                            },
                            (&Value::Float(x), &Value::Int(y)) => {
                                Some(Value::Float($fop(x, y as f64)))
                            }
                            (&Value::Int(x), &Value::Float(y)) => {
                                Some(Value::Float($fop(x as f64, y)))
                            }
                            _ => None,
                        };
                        match res {
                            Some(v) => at!(stk, ra) = v,
                            None => arith_gen!($i, $op, load(&$x), load(&$y), $oa, $ob),
                        }
                    }};
                }
                macro_rules! bit_rr {
                    ($i:expr, $op:expr, $f:expr) => {{
                        let (a, b) = (rv!($i.b()), rv!($i.c()));
                        if let (Value::Int(x), Value::Int(y)) = (a, b) {
                            r!($i.a()) = Value::Int($f(x, y));
                        } else {
                            arith_gen!($i, $op, a, b, Operand::Reg($i.b()), Operand::Reg($i.c()))
                        }
                    }};
                }
                macro_rules! bit_rk {
                    ($i:expr, $op:expr, $f:expr) => {{
                        let (a, b) = (rv!($i.b()), kst!($i.c()));
                        if let (Value::Int(x), Value::Int(y)) = (a, b) {
                            r!($i.a()) = Value::Int($f(x, y));
                        } else if $i.k() {
                            // The constant was the left operand.
                            arith_gen!($i, $op, b, a, Operand::None, Operand::Reg($i.b()))
                        } else {
                            arith_gen!($i, $op, a, b, Operand::Reg($i.b()), Operand::None)
                        }
                    }};
                }
                macro_rules! order {
                ($i:expr, $a:expr, $b:expr, $iop:tt, $prim:ident, $tm:expr) => {{
                    let (a, b) = ($a, $b);
                    let res = match (a, b) {
                        (Value::Int(x), Value::Int(y)) => x $iop y,
                        (Value::Float(x), Value::Float(y)) => x $iop y,
                        _ => match self.$prim(a, b) {
                            Some(r) => {
                                reload!();
                                r
                            }
                            None => {
                                savepc!();
                                let h = self.order_tm(a, b, $tm)?;
                                self.call_meta(h, &[a, b], MetaRet::Cond($i.k()))?;
                                continue 'newframe;
                            }
                        },
                    };
                    cond_jump!(res, $i);
                }};
            }
                macro_rules! order_imm {
                ($i:expr, $iop:tt, $swap:expr, $tm:expr) => {{
                    let a = rv!($i.a());
                    let imm = $i.sb();
                    let res = match a {
                        Value::Int(x) => x $iop imm as i64,
                        Value::Float(f) => f $iop imm as f64,
                        _ => {
                            savepc!();
                            let iv = if $i.c() != 0 {
                                Value::Float(imm as f64)
                            } else {
                                Value::Int(imm as i64)
                            };
                            let (x, y) = if $swap { (iv, a) } else { (a, iv) };
                            let h = self.order_tm(x, y, $tm)?;
                            self.call_meta(h, &[x, y], MetaRet::Cond($i.k()))?;
                            continue 'newframe;
                        }
                    };
                    cond_jump!(res, $i);
                }};
            }

                loop {
                    if HOOKED {
                        self.ex.frames[ci_idx].pc = pc as u32 + 1;
                        self.trace_exec(pc)?;
                        stk = Regs::new(&mut self.ex.stack, base);
                    }
                    let i = fetch!(pc);
                    pc += 1;
                    match i.op_raw() {
                        MOVE => w!(i.a(), rv!(i.b())),
                        LOADI => r!(i.a()) = Value::Int(i.sbx() as i64),
                        LOADF => r!(i.a()) = Value::Float(i.sbx() as f64),
                        LOADK => r!(i.a()) = kst!(i.bx()),
                        LOADKX => {
                            let ax = fetch!(pc).ax_field();
                            pc += 1;
                            r!(i.a()) = kst!(ax);
                        }
                        LOADFALSE => r!(i.a()) = Value::Bool(false),
                        LFALSESKIP => {
                            r!(i.a()) = Value::Bool(false);
                            pc += 1;
                        }
                        LOADTRUE => r!(i.a()) = Value::Bool(true),
                        LOADNIL => {
                            let a = i.a() as usize;
                            for r in a..=a + i.b() as usize {
                                at!(stk, r) = Value::Nil;
                            }
                        }
                        GETUPVAL => {
                            let uv = upv!(i.b());
                            w!(i.a(), upval!(uv));
                        }
                        SETUPVAL => {
                            let uv = upv!(i.b());
                            let v = rv!(i.a());
                            upval_write(&mut self.heap, self.running, stk.slice_mut(), uv, v);
                        }
                        GETTABUP => {
                            let uv = upv!(i.b());
                            let t = upval!(uv);
                            let ks = kstr!(i.c());
                            field_fast!(i, t, ks);
                            let i = opaque!(i);
                            let uv = upv!(i.b());
                            let (t, ks) = (upval!(uv), kstr!(i.c()));
                            index_slow!(i, t, Value::Str(ks), Operand::Upval(i.b()));
                        }
                        GETTABLE => {
                            let (t, key) = (rv!(i.b()), rv!(i.c()));
                            if let Value::Table(h) = t {
                                // SAFETY: `h` is from a register (see `field_fast!`).
                                let tab = unsafe { self.heap.tables.get_live_in::<FRESH>(h) };
                                let mut v = match key {
                                    Value::Int(n) => get_int(tab, n),
                                    _ => tab.get(key),
                                };
                                // A loose string is looked up by its twin (`string.rs`).
                                let mut key = key;
                                if let (true, Value::Str(s)) = (v.is_nil(), key) {
                                    let twin = self.heap.str_key(s);
                                    if twin != s {
                                        key = Value::Str(twin);
                                        v = tab.get(key);
                                    }
                                }
                                let meta = tab.meta;
                                if let Some(v) = index_fast!(v, meta, |t: TableView<'_>| t.get(key))
                                {
                                    w!(i.a(), v);
                                    continue;
                                }
                            }
                            // Read again: `t` and `key` need not live past the
                            // fast path (they would be kept in memory for the call).
                            let i = opaque!(i);
                            let (t, key) = (rv!(i.b()), rv!(i.c()));
                            index_slow!(i, t, key, Operand::Reg(i.b()));
                        }
                        GETI => {
                            let t = rv!(i.b());
                            if let Value::Table(h) = t {
                                // SAFETY: `h` is from a register (see `field_fast!`).
                                let tab = unsafe { self.heap.tables.get_live_in::<FRESH>(h) };
                                let (v, meta) = (get_int(tab, i.c() as i64), tab.meta);
                                let n = i.c() as i64;
                                if let Some(v) =
                                    index_fast!(v, meta, |t: TableView<'_>| t.get_int(n))
                                {
                                    w!(i.a(), v);
                                    continue;
                                }
                            }
                            let i = opaque!(i);
                            let t = rv!(i.b());
                            index_slow!(i, t, Value::Int(i.c() as i64), Operand::Reg(i.b()));
                        }
                        GETFIELD => {
                            let t = rv!(i.b());
                            field_fast!(i, t, kstr!(i.c()));
                            // Read again (see GETTABLE).
                            let i = opaque!(i);
                            let (t, key) = (rv!(i.b()), kst!(i.c()));
                            index_slow!(i, t, key, Operand::Reg(i.b()));
                        }
                        SETTABUP => {
                            let uv = upv!(i.a());
                            let t = upval!(uv);
                            let ks = kstr!(i.b());
                            let v = rk!(i);
                            if let Value::Table(h) = t {
                                // An existing key is updated raw, metatable or not.
                                // SAFETY: `h` is live (see `field_fast!`).
                                let hn = hint!();
                                if unsafe {
                                    self.heap.tables.set_str_existing::<FRESH>(h, ks, v, Some(hn))
                                } {
                                    continue;
                                }
                                // A new key, where `__newindex` cannot apply.
                                if set_str_new(&mut self.heap, h, ks, v) {
                                    continue;
                                }
                            }
                            let i = opaque!(i);
                            let uv = upv!(i.a());
                            let (t, ks, v) = (upval!(uv), kstr!(i.b()), rk!(i));
                            newindex_slow!(t, Value::Str(ks), v, Operand::Upval(i.a()));
                        }
                        SETFIELD => {
                            let t = rv!(i.a());
                            let ks = kstr!(i.b());
                            let v = rk!(i);
                            if let Value::Table(h) = t {
                                // An existing key is updated raw, metatable or not.
                                // SAFETY: `h` is live (see `field_fast!`).
                                let hn = hint!();
                                if unsafe {
                                    self.heap.tables.set_str_existing::<FRESH>(h, ks, v, Some(hn))
                                } {
                                    continue;
                                }
                                // A new key, where `__newindex` cannot apply.
                                if set_str_new(&mut self.heap, h, ks, v) {
                                    continue;
                                }
                            }
                            let i = opaque!(i);
                            let (t, ks, v) = (rv!(i.a()), kstr!(i.b()), rk!(i));
                            newindex_slow!(t, Value::Str(ks), v, Operand::Reg(i.a()));
                        }
                        SETTABLE | SETI => {
                            let t = rv!(i.a());
                            let key = if i.op_raw() == SETTABLE {
                                rv!(i.b())
                            } else {
                                Value::Int(i.b() as i64)
                            };
                            if let (Value::Table(h), Value::Int(n)) = (t, key) {
                                let v = rk!(i);
                                let tables = &mut self.heap.tables;
                                // SAFETY (both): `h` is from a register (see
                                // GETTABUP).
                                let idx = (n as u64).wrapping_sub(1);
                                if let Some(slot) =
                                    unsafe { tables.array_slot_for_set::<FRESH>(h, idx, v) }
                                {
                                    store(slot, v);
                                    continue;
                                }
                                if unsafe { tables.try_append::<FRESH>(h, n, v) } {
                                    continue;
                                }
                            }
                            // The rest reads the operands again, out of line.
                            savepc!();
                            if self.settable_op(opaque!(i), base)? {
                                continue 'newframe;
                            }
                            continue 'reload;
                        }
                        NEWTABLE => {
                            let b = i.b();
                            let nhash = if b > 0 { 1usize << (b - 1) } else { 0 };
                            let mut narr = i.c() as usize;
                            if i.k() {
                                narr += fetch!(pc).ax_field() as usize * 256;
                            }
                            pc += 1;
                            let t = self.heap.new_table(narr, nhash);
                            r!(i.a()) = Value::Table(t);
                            gc_check!();
                        }
                        SELF => {
                            let t = rv!(i.b());
                            let key = rk!(i);
                            w!(i.a() + 1, t);
                            if let Value::Str(ks) = key {
                                field_fast!(i, t, ks);
                            }
                            if let (Value::Str(_), Value::Str(ks)) = (t, key) {
                                let mt = self.type_meta[Type::String as usize];
                                let (tm, mt_hint) = (self.tm_names[TM_INDEX], &self.str_meta_hint);
                                if let Some(v) =
                                    string_method(&self.heap, mt, tm, mt_hint, ks, hint!())
                                {
                                    w!(i.a(), v);
                                    continue;
                                }
                            }
                            let i = opaque!(i);
                            let (t, key) = (rv!(i.b()), rk!(i));
                            index_slow!(i, t, key, Operand::Reg(i.b()));
                        }
                        ADDI => {
                            let a = rv!(i.b());
                            let imm = i.sc() as i64;
                            match a {
                                Value::Int(x) => r!(i.a()) = Value::Int(x.wrapping_add(imm)),
                                Value::Float(f) => r!(i.a()) = Value::Float(f + imm as f64),
                                // k: the source was `R[B] - (-sC)`.
                                _ if i.k() => arith_slow!(
                                    ArithOp::Sub,
                                    a,
                                    Value::Int(-imm),
                                    Operand::Reg(i.b()),
                                    Operand::None,
                                    i.a()
                                ),
                                _ => arith_slow!(
                                    ArithOp::Add,
                                    a,
                                    Value::Int(imm),
                                    Operand::Reg(i.b()),
                                    Operand::None,
                                    i.a()
                                ),
                            }
                        }
                        ADDK => {
                            arith_rk!(i, ArithOp::Add, i64::wrapping_add, |x: f64, y: f64| x + y)
                        }
                        SUBK => {
                            arith_rk!(i, ArithOp::Sub, i64::wrapping_sub, |x: f64, y: f64| x - y)
                        }
                        MULK => {
                            arith_rk!(i, ArithOp::Mul, i64::wrapping_mul, |x: f64, y: f64| x * y)
                        }
                        MODK => arith_num!(
                            i,
                            ArithOp::Mod,
                            *at!(&stk, i.b() as usize),
                            kst!(i.c()),
                            Operand::Reg(i.b()),
                            Operand::None,
                            number::float_mod,
                            |x: i64, y: i64| (y != 0).then(|| number::int_mod(x, y))
                        ),
                        POWK => arith_num!(
                            i,
                            ArithOp::Pow,
                            *at!(&stk, i.b() as usize),
                            kst!(i.c()),
                            Operand::Reg(i.b()),
                            Operand::None,
                            number::float_pow
                        ),
                        DIVK => arith_num!(
                            i,
                            ArithOp::Div,
                            *at!(&stk, i.b() as usize),
                            kst!(i.c()),
                            Operand::Reg(i.b()),
                            Operand::None,
                            |x: f64, y: f64| x / y
                        ),
                        IDIVK => arith_num!(
                            i,
                            ArithOp::IDiv,
                            *at!(&stk, i.b() as usize),
                            kst!(i.c()),
                            Operand::Reg(i.b()),
                            Operand::None,
                            number::float_floor_div,
                            |x: i64, y: i64| (y != 0).then(|| number::int_floor_div(x, y))
                        ),
                        BANDK => bit_rk!(i, ArithOp::BAnd, |x: i64, y: i64| x & y),
                        BORK => bit_rk!(i, ArithOp::BOr, |x: i64, y: i64| x | y),
                        BXORK => bit_rk!(i, ArithOp::BXor, |x: i64, y: i64| x ^ y),
                        SHRI => {
                            let a = rv!(i.b());
                            let imm = i.sc() as i64;
                            if let Value::Int(x) = a {
                                r!(i.a()) = Value::Int(number::shift_right(x, imm));
                            } else if i.k() {
                                // The source was `R[B] << -sC`.
                                arith_gen!(
                                    i,
                                    ArithOp::Shl,
                                    a,
                                    Value::Int(-imm),
                                    Operand::Reg(i.b()),
                                    Operand::None
                                )
                            } else {
                                arith_gen!(
                                    i,
                                    ArithOp::Shr,
                                    a,
                                    Value::Int(imm),
                                    Operand::Reg(i.b()),
                                    Operand::None
                                )
                            }
                        }
                        SHLI => {
                            let b = rv!(i.b());
                            let imm = i.sc() as i64;
                            if let Value::Int(x) = b {
                                r!(i.a()) = Value::Int(number::shift_left(imm, x));
                            } else {
                                arith_gen!(
                                    i,
                                    ArithOp::Shl,
                                    Value::Int(imm),
                                    b,
                                    Operand::None,
                                    Operand::Reg(i.b())
                                )
                            }
                        }
                        ADD => {
                            arith_rr!(i, ArithOp::Add, i64::wrapping_add, |x: f64, y: f64| x + y)
                        }
                        SUB => {
                            arith_rr!(i, ArithOp::Sub, i64::wrapping_sub, |x: f64, y: f64| x - y)
                        }
                        MUL => {
                            arith_rr!(i, ArithOp::Mul, i64::wrapping_mul, |x: f64, y: f64| x * y)
                        }
                        MOD => arith_num!(
                            i,
                            ArithOp::Mod,
                            *at!(&stk, i.b() as usize),
                            *at!(&stk, i.c() as usize),
                            Operand::Reg(i.b()),
                            Operand::Reg(i.c()),
                            number::float_mod,
                            |x: i64, y: i64| (y != 0).then(|| number::int_mod(x, y))
                        ),
                        POW => arith_num!(
                            i,
                            ArithOp::Pow,
                            *at!(&stk, i.b() as usize),
                            *at!(&stk, i.c() as usize),
                            Operand::Reg(i.b()),
                            Operand::Reg(i.c()),
                            number::float_pow
                        ),
                        DIV => arith_num!(
                            i,
                            ArithOp::Div,
                            *at!(&stk, i.b() as usize),
                            *at!(&stk, i.c() as usize),
                            Operand::Reg(i.b()),
                            Operand::Reg(i.c()),
                            |x: f64, y: f64| x / y
                        ),
                        IDIV => arith_num!(
                            i,
                            ArithOp::IDiv,
                            *at!(&stk, i.b() as usize),
                            *at!(&stk, i.c() as usize),
                            Operand::Reg(i.b()),
                            Operand::Reg(i.c()),
                            number::float_floor_div,
                            |x: i64, y: i64| (y != 0).then(|| number::int_floor_div(x, y))
                        ),
                        BAND => bit_rr!(i, ArithOp::BAnd, |x: i64, y: i64| x & y),
                        BOR => bit_rr!(i, ArithOp::BOr, |x: i64, y: i64| x | y),
                        BXOR => bit_rr!(i, ArithOp::BXor, |x: i64, y: i64| x ^ y),
                        SHL => bit_rr!(i, ArithOp::Shl, number::shift_left),
                        SHR => bit_rr!(i, ArithOp::Shr, number::shift_right),
                        UNM => {
                            let a = rv!(i.b());
                            match a {
                                Value::Int(x) => r!(i.a()) = Value::Int(0i64.wrapping_sub(x)),
                                Value::Float(f) => r!(i.a()) = Value::Float(-f),
                                _ => arith_slow!(
                                    ArithOp::Unm,
                                    a,
                                    a,
                                    Operand::Reg(i.b()),
                                    Operand::Reg(i.b()),
                                    i.a()
                                ),
                            }
                        }
                        BNOT => {
                            let a = rv!(i.b());
                            if let Value::Int(x) = a {
                                r!(i.a()) = Value::Int(!x);
                            } else {
                                arith_gen!(
                                    i,
                                    ArithOp::BNot,
                                    a,
                                    a,
                                    Operand::Reg(i.b()),
                                    Operand::Reg(i.b())
                                )
                            }
                        }
                        NOT => r!(i.a()) = Value::Bool(!rv!(i.b()).truthy()),
                        LEN => {
                            savepc!(); // always, as `Protect` in lvm.c (see module docs)
                            let v = rv!(i.b());
                            match v {
                                Value::Str(s) => {
                                    r!(i.a()) = Value::Int(self.heap.str(s).len() as i64);
                                }
                                Value::Table(h) if self.heap.tables.get(h).meta.is_none() => {
                                    r!(i.a()) = Value::Int(self.heap.tables.get(h).len());
                                }
                                _ => {
                                    savepc!();
                                    let i = opaque!(i);
                                    let v = rv!(i.b());
                                    match self.len_op(v, Operand::Reg(i.b()), i.a() as u8)? {
                                        Some(x) => {
                                            reload!();
                                            w!(i.a(), x)
                                        }
                                        None => continue 'newframe,
                                    }
                                }
                            }
                        }
                        CONCAT => {
                            savepc!();
                            if !self.concat(i.a() as u8, i.b() as usize)? {
                                continue 'newframe;
                            }
                            gc_check!();
                            continue 'reload;
                        }
                        CLOSE => {
                            savepc!();
                            // Each `__close` runs as a frame; CLOSE runs again
                            // when it returns (see `State::close_step`).
                            match self.close_step(base + i.a() as usize)? {
                                None => {}
                                Some(Pre::Continue) => continue 'newframe,
                                Some(Pre::Yield) => return Ok(Some(Exit::Yield)),
                                Some(Pre::Switch) => return Ok(None),
                            }
                            continue 'reload;
                        }
                        TBC => {
                            savepc!();
                            self.new_tbc(base + i.a() as usize)?;
                            continue 'reload;
                        }
                        JMP => {
                            let off = i.sj_field();
                            pc = (pc as i64 + off as i64) as usize;
                            if off < 0 {
                                budget!(-off);
                            }
                        }
                        EQ => {
                            savepc!(); // always, as `Protect` in lvm.c (see module docs)
                            let (a, b) = (rv!(i.a()), rv!(i.b()));
                            let res = match (a, b) {
                                (Value::Str(x), Value::Str(y)) => self.heap.str_eq(x, y),
                                _ => a.raw_eq_interned(b),
                            };
                            // Only two tables with a metatable between them, or
                            // two full userdata, can have an `__eq` (`eq_tm`).
                            let tm = match (a, b) {
                                // SAFETY: `x`, `y` are from registers (`field_fast!`).
                                (Value::Table(x), Value::Table(y)) => unsafe {
                                    self.heap.tables.get_live(x).meta.is_some()
                                        || self.heap.tables.get_live(y).meta.is_some()
                                },
                                _ => a.may_have_eq_tm(b),
                            };
                            if !res && tm {
                                let h = self.eq_tm(a, b);
                                reload!();
                                if !h.is_nil() {
                                    savepc!();
                                    self.call_meta(h, &[a, b], MetaRet::Cond(i.k()))?;
                                    continue 'newframe;
                                }
                            }
                            cond_jump!(res, i);
                        }
                        LT => order!(i, rv!(i.a()), rv!(i.b()), <, lt_prim, TM_LT),
                        LE => order!(i, rv!(i.a()), rv!(i.b()), <=, le_prim, TM_LE),
                        EQK => {
                            let res = match (rv!(i.a()), kst!(i.b())) {
                                (Value::Str(x), Value::Str(k)) => self.heap.str_eq(x, k),
                                (a, b) => a.raw_eq_interned(b),
                            };
                            cond_jump!(res, i);
                        }
                        EQI => {
                            let imm = i.sb();
                            let res = match rv!(i.a()) {
                                Value::Int(x) => x == imm as i64,
                                Value::Float(f) => f == imm as f64,
                                _ => false,
                            };
                            cond_jump!(res, i);
                        }
                        LTI => order_imm!(i, <, false, TM_LT),
                        LEI => order_imm!(i, <=, false, TM_LE),
                        GTI => order_imm!(i, >, true, TM_LT),
                        GEI => order_imm!(i, >=, true, TM_LE),
                        TEST => {
                            let res = rv!(i.a()).truthy();
                            cond_jump!(res, i);
                        }
                        TESTSET => {
                            let v = rv!(i.b());
                            if v.truthy() != i.k() {
                                pc += 1;
                            } else {
                                w!(i.a(), v);
                                let ni = fetch!(pc);
                                let off = ni.sj_field();
                                pc = (pc as i64 + 1 + off as i64) as usize;
                                if off < 0 {
                                    budget!(-off);
                                }
                            }
                        }
                        CALL => {
                            let func = base + i.a() as usize;
                            let b = i.b() as usize;
                            let end = if b != 0 { func + b } else { u(self.ex.open_top) };
                            savepc!();
                            if let Value::LuaFn(f) = rv!(i.a()) {
                                // Other callees are charged by `call_op`.
                                budget!(crate::limits::CALL_COST);
                                // SAFETY: `f` is from a register of the running
                                // frame: a live closure (`Arena::get_unchecked`).
                                let c = unsafe { self.heap.lua_fns.get_unchecked(f) };
                                let top = func + 1 + c.max_stack as usize;
                                if c.is_vararg || top > MAX_STACK {
                                    self.ex.stack.truncate(end);
                                    self.push_lua_frame::<false>(
                                        func,
                                        f,
                                        i.c() as i32 - 1,
                                        MetaRet::Call,
                                    )?;
                                    self.flag_lua_caller(ci_idx + 1);
                                    continue 'newframe;
                                }
                                // Fixed parameters: enter the callee here, its
                                // state straight into the loop's locals. Its
                                // missing parameters are nil, its registers
                                // above keep what they hold (`stack.rs`).
                                let (fp, np) = (c.proto, c.num_params as usize);
                                (code, kst, upv) =
                                    (c.code.as_ptr(), c.k.as_ptr(), c.upvals.as_ptr());
                                self.ex.stack.enter_frame(end, func + 1 + np, top);
                                let nres = i.c() as i32 - 1;
                                let mut nci =
                                    CallInfo::lua(func, func + 1, top, 0, nres, MetaRet::Call, f);
                                nci.status = cist::LUA_CALLER;
                                self.ex.frames.push(nci);
                                if HOOKED {
                                    continue 'newframe;
                                }
                                (ci_idx, cl, proto, base, pc) = (ci_idx + 1, f, fp, func + 1, 0);
                                continue 'reload;
                            }
                            match self.call_op(func, end, i.c() as i32 - 1)? {
                                Pre::Continue => {
                                    // A native may have set or cleared a hook.
                                    if self.ex.frames.len() != ci_idx + 1
                                        || self.hooks.any != HOOKED
                                    {
                                        self.flag_lua_caller(ci_idx + 1);
                                        continue 'newframe;
                                    }
                                    gc_check!();
                                    continue 'reload;
                                }
                                // A yield ending a resume in place, a switch
                                // (`coswitch.rs`): the loop goes on if it can.
                                Pre::Yield if self.yields_in_place() => {
                                    match self.end_in_loop(Ok(Exit::Yield))? {
                                        true => continue 'newframe,
                                        false => return Ok(None),
                                    }
                                }
                                Pre::Yield => return Ok(Some(Exit::Yield)),
                                Pre::Switch if self.resumer_in_place(stop) => continue 'newframe,
                                Pre::Switch => return Ok(None),
                            }
                        }
                        TAILCALL => {
                            let func = base + i.a() as usize;
                            let b = i.b() as usize;
                            let end = if b != 0 { func + b } else { u(self.ex.open_top) };
                            self.ex.stack.truncate(end);
                            savepc!();
                            // Resolve __call so we know whether the callee is Lua.
                            let mut chain = 0;
                            while !self.ex.stack[func].is_function() {
                                let v = self.ex.stack[func];
                                let tm = self.tm_of(v, crate::meta::TM_CALL);
                                if tm.is_nil() {
                                    break;
                                }
                                self.insert_call_tm(func, &mut chain)?;
                            }
                            let Value::LuaFn(f) = self.ex.stack[func] else {
                                // Natives (and errors): an ordinary call; the
                                // following RETURN returns its results. (The
                                // arguments end the stack, one slot further
                                // up per `__call` inserted above.)
                                let end = self.ex.stack.len();
                                match self.call_op(func, end, -1)? {
                                    Pre::Continue => continue 'newframe,
                                    Pre::Yield => return Ok(Some(Exit::Yield)),
                                    Pre::Switch => return Ok(None),
                                }
                            };
                            // Natives were charged by `call_op`.
                            budget!(crate::limits::CALL_COST);
                            if i.k() {
                                self.close_upvals(base);
                            }
                            if self.tailcall_fast(ci_idx, func, f) {
                                if HOOKED {
                                    continue 'newframe;
                                }
                                // SAFETY: as in `tailcall_fast`.
                                let c = unsafe { self.heap.lua_fns.get_unchecked(f) };
                                (code, kst) = (c.code.as_ptr(), c.k.as_ptr());
                                upv = c.upvals.as_ptr();
                                (cl, proto, base, pc) =
                                    (f, c.proto, u(self.ex.frames[ci_idx].base), 0);
                                continue 'reload;
                            }
                            let ci = self.ex.frames[ci_idx];
                            let dst = u(ci.func);
                            let n = self.ex.stack.len() - func;
                            self.ex.stack.copy_within(func..func + n, dst);
                            self.ex.stack.truncate(dst + n);
                            self.ex.frames.pop();
                            self.push_lua_frame::<false>(dst, f, ci.nresults, ci.ret)?;
                            // Invariant: `push_lua_frame` just pushed it.
                            let nci = self.ex.frames.last_mut().expect("frame");
                            nci.status |=
                                cist::TAIL | (ci.status & (cist::FRESH | cist::LUA_CALLER));
                            continue 'newframe;
                        }
                        RETURN => {
                            let a = base + i.a() as usize;
                            let b = i.b() as usize;
                            let n = if b != 0 { b - 1 } else { u(self.ex.open_top) - a };
                            savepc!();
                            if i.k() {
                                // With B = 0 the results end the stack, so that
                                // RETURN can run again after each `__close`.
                                if b == 0 {
                                    self.ex.stack.truncate(a + n);
                                }
                                match self.close_step(base)? {
                                    None => {}
                                    Some(Pre::Continue) => continue 'newframe,
                                    Some(Pre::Yield) => return Ok(Some(Exit::Yield)),
                                    Some(Pre::Switch) => return Ok(None),
                                }
                            }
                            if HOOKED {
                                self.hook_return(a, n)?;
                            }
                            if !self.return_fast(ci_idx, a, n) {
                                self.poscall_loop(a, n)?;
                            }
                            continue 'newframe;
                        }
                        RETURN0 => {
                            if HOOKED {
                                self.hook_return(base, 0)?;
                            }
                            if !self.return_fast(ci_idx, base, 0) {
                                self.poscall_loop(base, 0)?;
                            }
                            continue 'newframe;
                        }
                        RETURN1 => {
                            let a = base + i.a() as usize;
                            if HOOKED {
                                self.hook_return(a, 1)?;
                            }
                            if !self.return_fast(ci_idx, a, 1) {
                                self.poscall_loop(a, 1)?;
                            }
                            continue 'newframe;
                        }
                        FORLOOP => {
                            let ra = i.a() as usize;
                            if let Value::Int(count) = load(at!(&stk, ra + 1)) {
                                if count as u64 > 0 {
                                    let (Value::Int(step), Value::Int(idx)) =
                                        (load(at!(&stk, ra + 2)), load(at!(&stk, ra)))
                                    else {
                                        continue;
                                    };
                                    let idx = idx.wrapping_add(step);
                                    at!(stk, ra + 1) = Value::Int(count - 1);
                                    at!(stk, ra) = Value::Int(idx);
                                    at!(stk, ra + 3) = Value::Int(idx);
                                    pc -= i.bx() as usize;
                                    budget!(i.bx());
                                }
                            } else if let (
                                Value::Float(step),
                                Value::Float(limit),
                                Value::Float(idx),
                            ) = (
                                load(at!(&stk, ra + 2)),
                                load(at!(&stk, ra + 1)),
                                load(at!(&stk, ra)),
                            ) {
                                let idx = idx + step;
                                if if 0.0 < step { idx <= limit } else { limit <= idx } {
                                    at!(stk, ra) = Value::Float(idx);
                                    at!(stk, ra + 3) = Value::Float(idx);
                                    pc -= i.bx() as usize;
                                    budget!(i.bx());
                                }
                            }
                        }
                        FORPREP => {
                            savepc!();
                            if self.forprep(base + i.a() as usize)? {
                                pc += i.bx() as usize + 1;
                            }
                            continue 'reload;
                        }
                        TFORPREP => {
                            savepc!();
                            self.new_tbc(base + i.a() as usize + 3)?;
                            pc += i.bx() as usize;
                            continue 'reload;
                        }
                        TFORCALL => {
                            let ra = base + i.a() as usize;
                            savepc!();
                            // A Lua iterator's frame is entered here, as CALL's.
                            let lua = match (HOOKED, load(at!(&stk, i.a() as usize))) {
                                (false, Value::LuaFn(f)) => {
                                    self.tforcall_lua(ra, f, i.c() as i32)?
                                }
                                _ => None,
                            };
                            if let Some(f) = lua {
                                // SAFETY: `f` is the callee just pushed (live).
                                let c = unsafe { self.heap.lua_fns.get_unchecked(f) };
                                (code, kst, upv) =
                                    (c.code.as_ptr(), c.k.as_ptr(), c.upvals.as_ptr());
                                (ci_idx, cl, proto, base, pc) = (ci_idx + 1, f, c.proto, ra + 5, 0);
                                continue 'reload;
                            }
                            match self.tforcall_op(ra, i.c() as i32)? {
                                Pre::Continue => {
                                    if self.ex.frames.len() != ci_idx + 1 {
                                        continue 'newframe;
                                    }
                                    continue 'reload;
                                }
                                Pre::Yield => return Ok(Some(Exit::Yield)),
                                Pre::Switch if self.resumer_in_place(stop) => continue 'newframe,
                                Pre::Switch => return Ok(None),
                            }
                        }
                        TFORLOOP => {
                            let ra = i.a() as usize;
                            let v = load(at!(&stk, ra + 4));
                            if !v.is_nil() {
                                store(&mut at!(stk, ra + 2), v);
                                pc -= i.bx() as usize;
                                budget!(i.bx());
                            }
                        }
                        SETLIST => {
                            let ra = base + i.a() as usize;
                            let n = if i.b() != 0 {
                                i.b() as usize
                            } else {
                                u(self.ex.open_top) - ra - 1
                            };
                            let mut last = i.c() as usize;
                            if i.k() {
                                last += fetch!(pc).ax_field() as usize * 256;
                                pc += 1;
                            }
                            self.set_list(ra, n, last);
                            if i.b() == 0 {
                                let top = u(self.ex.frames[ci_idx].top);
                                self.ex.stack.truncate(top.max(ra + 1));
                                self.ex.stack.resize(top, Value::Nil);
                            }
                            continue 'reload;
                        }
                        CLOSURE => {
                            let f = self.closure_op(proto, cl, base, i.bx() as usize);
                            rs!(i.a()) = Value::LuaFn(f);
                            gc_check!();
                            continue 'reload;
                        }
                        VARARG => {
                            savepc!(); // always, as `Protect` in lvm.c
                            let a = base + i.a() as usize;
                            let nextra = u(self.ex.frames[ci_idx].nextra);
                            let src = base - 1 - nextra;
                            let c = i.c() as usize;
                            if c == 0 {
                                let end = a + nextra;
                                if end > crate::state::MAX_STACK {
                                    savepc!();
                                    self.check_stack_reserve(end)?;
                                }
                                if end > self.ex.stack.len() {
                                    self.ex.stack.resize(end, Value::Nil);
                                }
                                self.ex.stack.copy_within(src..src + nextra, a);
                                self.ex.open_top = end as u32;
                                // Copying all the varargs is work in proportion
                                // to their number (`limits.rs`: 16-byte values,
                                // one instruction per `WORK_BYTES`).
                                budget!(nextra as u64 * 16 / crate::limits::WORK_BYTES);
                            } else {
                                let want = c - 1;
                                let ncopy = want.min(nextra);
                                self.ex.stack.copy_within(src..src + ncopy, a);
                                for slot in &mut self.ex.stack[a + ncopy..a + want] {
                                    *slot = Value::Nil;
                                }
                            }
                            continue 'reload;
                        }
                        VARARGPREP => {
                            savepc!(); // as `ProtectNT` in lvm.c
                            if HOOKED {
                                self.hook_call_vararg()?;
                            }
                            continue 'reload;
                        }
                        // SAFETY: verified code (see `fetch!`) holds only valid
                        // opcodes and never runs an EXTRAARG, so no other byte
                        // reaches the match; saying so lets the jump table skip
                        // its range check.
                        _ => unsafe { std::hint::unreachable_unchecked() },
                    }
                }
            }
        }
    }
}
