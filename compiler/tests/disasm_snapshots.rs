//! Snapshot tests of the disassembler, one small program per construct.
//!
//! Each listing was compared with `luac5.4 -l -l` for the same source: the
//! instructions are the same, in the same order, except that the reference
//! follows arithmetic instructions with `MMBIN*` (Luprex has none) and that
//! `1 + x` is `ADDK` with the flip bit here (`ADDI` + flipped `MMBINI`
//! there). `tests/codegen.rs` checks the same property automatically.
//! Update with `UPDATE_EXPECT=1 cargo test --test disasm_snapshots`.

use expect_test::{expect, Expect};
use luprex_compiler::{compile, disasm::disassemble};

fn check(src: &str, expected: Expect) {
    let p = compile(src.as_bytes(), b"=t").expect("compiles");
    expected.assert_eq(&disassemble(&p));
}

#[test]
fn empty_chunk() {
    check(
        "",
        expect![[r#"
        main <t:0,0> (2 instructions)
        0+ params, 2 slots, 1 upvalue, 0 locals, 0 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	RETURN     0 1 1	; 0 out
        constants (0):
        locals (0):
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}

#[test]
fn hello_world() {
    check(
        "print('hello')",
        expect![[r#"
        main <t:0,0> (5 instructions)
        0+ params, 2 slots, 1 upvalue, 0 locals, 2 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	GETTABUP   0 0 0	; _ENV "print"
        	3	[1]	LOADK      1 1	; "hello"
        	4	[1]	CALL       0 2 1	; 1 in 0 out
        	5	[1]	RETURN     0 1 1	; 0 out
        constants (2):
        	0	S	"print"
        	1	S	"hello"
        locals (0):
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}

#[test]
fn constants_and_loads() {
    check("local a, b, c, d, e, f = 1, 2.0, 100000, 0.5, 'str', -70000 local g, h, i = nil, true, false", expect![[r#"
        main <t:0,0> (11 instructions)
        0+ params, 9 slots, 1 upvalue, 9 locals, 4 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	LOADI      0 1
        	3	[1]	LOADF      1 2
        	4	[1]	LOADK      2 0	; 100000
        	5	[1]	LOADK      3 1	; 0.5
        	6	[1]	LOADK      4 2	; "str"
        	7	[1]	LOADK      5 3	; -70000
        	8	[1]	LOADNIL    6 0 0	; 1 out
        	9	[1]	LOADTRUE   7 0 0
        	10	[1]	LOADFALSE  8 0 0
        	11	[1]	RETURN     9 1 1	; 0 out
        constants (4):
        	0	I	100000
        	1	F	0.5
        	2	S	"str"
        	3	I	-70000
        locals (9):
        	0	a	8	12
        	1	b	8	12
        	2	c	8	12
        	3	d	8	12
        	4	e	8	12
        	5	f	8	12
        	6	g	11	12
        	7	h	11	12
        	8	i	11	12
        upvalues (1):
        	0	_ENV	1	0
    "#]]);
}

#[test]
fn constant_folding() {
    check(
        "return 2^10, 7 // 2, 7 % -3, 1 / 0, 0 / 0, 1 // 0, -0.0, 3 & 1.5, ~0, 1 << 62",
        expect![[r#"
            main <t:0,0> (18 instructions)
            0+ params, 10 slots, 1 upvalue, 0 locals, 4 constants, 0 functions
            	1	[1]	VARARGPREP 0 0 0
            	2	[1]	LOADF      0 1024
            	3	[1]	LOADI      1 3
            	4	[1]	LOADI      2 -2
            	5	[1]	LOADI      3 1
            	6	[1]	DIVK       3 3 0	; 0
            	7	[1]	LOADI      4 0
            	8	[1]	DIVK       4 4 0	; 0
            	9	[1]	LOADI      5 1
            	10	[1]	IDIVK      5 5 0	; 0
            	11	[1]	LOADF      6 0
            	12	[1]	UNM        6 6 0
            	13	[1]	LOADK      7 2	; 1.5
            	14	[1]	BANDK      7 7 1k	; 3 flip
            	15	[1]	LOADI      8 -1
            	16	[1]	LOADK      9 3	; 4611686018427387904
            	17	[1]	RETURN     0 11 1	; 10 out
            	18	[1]	RETURN     0 1 1	; 0 out
            constants (4):
            	0	I	0
            	1	I	3
            	2	F	1.5
            	3	I	4611686018427387904
            locals (0):
            upvalues (1):
            	0	_ENV	1	0
        "#]],
    );
}

#[test]
fn arithmetic_forms() {
    check("local a = ... return a + 1, 1 + a, a - 1, a * 2.5, a / a, a % 3, a & 7, 7 | a, a << 2, 2 << a, a >> 1, -a, #a, ~a", expect![[r#"
        main <t:0,0> (18 instructions)
        0+ params, 15 slots, 1 upvalue, 1 local, 4 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	VARARG     0 0 2	; 1 out
        	3	[1]	ADDI       1 0 128	; sC=1
        	4	[1]	ADDK       2 0 0k	; 1 flip
        	5	[1]	ADDI       3 0 126k	; sC=-1 (sub 1)
        	6	[1]	MULK       4 0 1	; 2.5
        	7	[1]	DIV        5 0 0
        	8	[1]	MODK       6 0 2	; 3
        	9	[1]	BANDK      7 0 3	; 7
        	10	[1]	BORK       8 0 3k	; 7 flip
        	11	[1]	SHRI       9 0 125k	; sC=-2 (shl 2)
        	12	[1]	SHLI       10 0 129	; sC=2
        	13	[1]	SHRI       11 0 128	; sC=1
        	14	[1]	UNM        12 0 0
        	15	[1]	LEN        13 0 0
        	16	[1]	BNOT       14 0 0
        	17	[1]	RETURN     1 15 1	; 14 out
        	18	[1]	RETURN     1 1 1	; 0 out
        constants (4):
        	0	I	1
        	1	F	2.5
        	2	I	3
        	3	I	7
        locals (1):
        	0	a	3	19
        upvalues (1):
        	0	_ENV	1	0
    "#]]);
}

#[test]
fn comparisons_to_values() {
    check(
        "local a, b = ... return a < b, a <= 3, 3 < a, a == 'x', a ~= nil, a >= 2.0",
        expect![[r#"
            main <t:0,0> (28 instructions)
            0+ params, 8 slots, 1 upvalue, 2 locals, 2 constants, 0 functions
            	1	[1]	VARARGPREP 0 0 0
            	2	[1]	VARARG     0 0 3	; 2 out
            	3	[1]	LT         0 1 0k
            	4	[1]	JMP        1	; to 6
            	5	[1]	LFALSESKIP 2 0 0
            	6	[1]	LOADTRUE   2 0 0
            	7	[1]	LEI        0 130 0k	; sB=3
            	8	[1]	JMP        1	; to 10
            	9	[1]	LFALSESKIP 3 0 0
            	10	[1]	LOADTRUE   3 0 0
            	11	[1]	GTI        0 130 0k	; sB=3
            	12	[1]	JMP        1	; to 14
            	13	[1]	LFALSESKIP 4 0 0
            	14	[1]	LOADTRUE   4 0 0
            	15	[1]	EQK        0 0 0k	; "x"
            	16	[1]	JMP        1	; to 18
            	17	[1]	LFALSESKIP 5 0 0
            	18	[1]	LOADTRUE   5 0 0
            	19	[1]	EQK        0 1 0	; nil
            	20	[1]	JMP        1	; to 22
            	21	[1]	LFALSESKIP 6 0 0
            	22	[1]	LOADTRUE   6 0 0
            	23	[1]	GEI        0 129 1k	; sB=2 (float)
            	24	[1]	JMP        1	; to 26
            	25	[1]	LFALSESKIP 7 0 0
            	26	[1]	LOADTRUE   7 0 0
            	27	[1]	RETURN     2 7 1	; 6 out
            	28	[1]	RETURN     2 1 1	; 0 out
            constants (2):
            	0	S	"x"
            	1	N	nil
            locals (2):
            	0	a	3	29
            	1	b	3	29
            upvalues (1):
            	0	_ENV	1	0
        "#]],
    );
}

#[test]
fn and_or_not() {
    check(
        "local a, b, c = ... local x = a and b or c local y = not a return x, y, a or 1",
        expect![[r#"
            main <t:0,0> (15 instructions)
            0+ params, 8 slots, 1 upvalue, 5 locals, 0 constants, 0 functions
            	1	[1]	VARARGPREP 0 0 0
            	2	[1]	VARARG     0 0 4	; 3 out
            	3	[1]	TEST       0 0 0
            	4	[1]	JMP        2	; to 7
            	5	[1]	TESTSET    3 1 0k
            	6	[1]	JMP        1	; to 8
            	7	[1]	MOVE       3 2 0
            	8	[1]	NOT        4 0 0
            	9	[1]	MOVE       5 3 0
            	10	[1]	MOVE       6 4 0
            	11	[1]	TESTSET    7 0 0k
            	12	[1]	JMP        1	; to 14
            	13	[1]	LOADI      7 1
            	14	[1]	RETURN     5 4 1	; 3 out
            	15	[1]	RETURN     5 1 1	; 0 out
            constants (0):
            locals (5):
            	0	a	3	16
            	1	b	3	16
            	2	c	3	16
            	3	x	8	16
            	4	y	9	16
            upvalues (1):
            	0	_ENV	1	0
        "#]],
    );
}

#[test]
fn if_elseif_else() {
    check(
        "local a = ... if a == 1 then print(1) elseif a then print(2) else print(3) end",
        expect![[r#"
            main <t:0,0> (18 instructions)
            0+ params, 3 slots, 1 upvalue, 1 local, 1 constant, 0 functions
            	1	[1]	VARARGPREP 0 0 0
            	2	[1]	VARARG     0 0 2	; 1 out
            	3	[1]	EQI        0 128 0	; sB=1
            	4	[1]	JMP        4	; to 9
            	5	[1]	GETTABUP   1 0 0	; _ENV "print"
            	6	[1]	LOADI      2 1
            	7	[1]	CALL       1 2 1	; 1 in 0 out
            	8	[1]	JMP        9	; to 18
            	9	[1]	TEST       0 0 0
            	10	[1]	JMP        4	; to 15
            	11	[1]	GETTABUP   1 0 0	; _ENV "print"
            	12	[1]	LOADI      2 2
            	13	[1]	CALL       1 2 1	; 1 in 0 out
            	14	[1]	JMP        3	; to 18
            	15	[1]	GETTABUP   1 0 0	; _ENV "print"
            	16	[1]	LOADI      2 3
            	17	[1]	CALL       1 2 1	; 1 in 0 out
            	18	[1]	RETURN     1 1 1	; 0 out
            constants (1):
            	0	S	"print"
            locals (1):
            	0	a	3	19
            upvalues (1):
            	0	_ENV	1	0
        "#]],
    );
}

#[test]
fn while_and_break() {
    check(
        "local i = 0 while i < 10 do i = i + 1 if i == 5 then break end end",
        expect![[r#"
        main <t:0,0> (9 instructions)
        0+ params, 2 slots, 1 upvalue, 1 local, 0 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	LOADI      0 0
        	3	[1]	LTI        0 137 0	; sB=10
        	4	[1]	JMP        4	; to 9
        	5	[1]	ADDI       0 0 128	; sC=1
        	6	[1]	EQI        0 132 0k	; sB=5
        	7	[1]	JMP        1	; to 9
        	8	[1]	JMP        -6	; to 3
        	9	[1]	RETURN     1 1 1	; 0 out
        constants (0):
        locals (1):
        	0	i	3	10
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}

#[test]
fn repeat_with_captured_local() {
    check(
        "repeat local x = f() g(function() return x end) until x",
        expect![[r#"
        main <t:0,0> (13 instructions)
        0+ params, 3 slots, 1 upvalue, 1 local, 2 constants, 1 function
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	GETTABUP   0 0 0	; _ENV "f"
        	3	[1]	CALL       0 1 2	; 0 in 1 out
        	4	[1]	GETTABUP   1 0 1	; _ENV "g"
        	5	[1]	CLOSURE    2 0	; function <t:1,1>
        	6	[1]	CALL       1 2 1	; 1 in 0 out
        	7	[1]	TEST       0 0 0
        	8	[1]	JMP        2	; to 11
        	9	[1]	CLOSE      0 0 0
        	10	[1]	JMP        2	; to 13
        	11	[1]	CLOSE      0 0 0
        	12	[1]	JMP        -11	; to 2
        	13	[1]	RETURN     0 1 1k	; 0 out
        constants (2):
        	0	S	"f"
        	1	S	"g"
        locals (1):
        	0	x	4	10
        upvalues (1):
        	0	_ENV	1	0

        function <t:1,1> (3 instructions)
        0 params, 2 slots, 1 upvalue, 0 locals, 0 constants, 0 functions
        	1	[1]	GETUPVAL   0 0 0	; x
        	2	[1]	RETURN1    0 2 0
        	3	[1]	RETURN0    0 1 0
        constants (0):
        locals (0):
        upvalues (1):
        	0	x	1	0
    "#]],
    );
}

#[test]
fn numeric_for() {
    check(
        "local s = 0 for i = 1, 10, 2 do s = s + i end return s",
        expect![[r#"
        main <t:0,0> (10 instructions)
        0+ params, 5 slots, 1 upvalue, 5 locals, 0 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	LOADI      0 0
        	3	[1]	LOADI      1 1
        	4	[1]	LOADI      2 10
        	5	[1]	LOADI      3 2
        	6	[1]	FORPREP    1 1	; exit to 9
        	7	[1]	ADD        0 0 4
        	8	[1]	FORLOOP    1 2	; to 7
        	9	[1]	RETURN     0 2 1	; 1 out
        	10	[1]	RETURN     1 1 1	; 0 out
        constants (0):
        locals (5):
        	0	s	3	11
        	1	(for state)	6	9
        	2	(for state)	6	9
        	3	(for state)	6	9
        	4	i	7	8
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}

#[test]
fn generic_for() {
    check(
        "for k, v in pairs(t) do print(k, v) end",
        expect![[r#"
        main <t:0,0> (13 instructions)
        0+ params, 9 slots, 1 upvalue, 6 locals, 3 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	GETTABUP   0 0 0	; _ENV "pairs"
        	3	[1]	GETTABUP   1 0 1	; _ENV "t"
        	4	[1]	CALL       0 2 5	; 1 in 4 out
        	5	[1]	TFORPREP   0 4	; to 10
        	6	[1]	GETTABUP   6 0 2	; _ENV "print"
        	7	[1]	MOVE       7 4 0
        	8	[1]	MOVE       8 5 0
        	9	[1]	CALL       6 3 1	; 2 in 0 out
        	10	[1]	TFORCALL   0 0 2
        	11	[1]	TFORLOOP   0 6	; to 6
        	12	[1]	CLOSE      0 0 0
        	13	[1]	RETURN     0 1 1k	; 0 out
        constants (3):
        	0	S	"pairs"
        	1	S	"t"
        	2	S	"print"
        locals (6):
        	0	(for state)	5	13
        	1	(for state)	5	13
        	2	(for state)	5	13
        	3	(for state)	5	13
        	4	k	6	10
        	5	v	6	10
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}

#[test]
fn loop_closures_get_fresh_upvalues() {
    check(
        "local fs = {} for i = 1, 3 do fs[i] = function() return i end end",
        expect![[r#"
        main <t:0,0> (12 instructions)
        0+ params, 6 slots, 1 upvalue, 5 locals, 0 constants, 1 function
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	NEWTABLE   0 0 0	; 0
        	3	[1]	EXTRAARG   0
        	4	[1]	LOADI      1 1
        	5	[1]	LOADI      2 3
        	6	[1]	LOADI      3 1
        	7	[1]	FORPREP    1 3	; exit to 12
        	8	[1]	CLOSURE    5 0	; function <t:1,1>
        	9	[1]	SETTABLE   0 4 5
        	10	[1]	CLOSE      4 0 0
        	11	[1]	FORLOOP    1 4	; to 8
        	12	[1]	RETURN     1 1 1k	; 0 out
        constants (0):
        locals (5):
        	0	fs	4	13
        	1	(for state)	7	12
        	2	(for state)	7	12
        	3	(for state)	7	12
        	4	i	8	11
        upvalues (1):
        	0	_ENV	1	0

        function <t:1,1> (3 instructions)
        0 params, 2 slots, 1 upvalue, 0 locals, 0 constants, 0 functions
        	1	[1]	GETUPVAL   0 0 0	; i
        	2	[1]	RETURN1    0 2 0
        	3	[1]	RETURN0    0 1 0
        constants (0):
        locals (0):
        upvalues (1):
        	0	i	1	4
    "#]],
    );
}

#[test]
fn globals_and_fields() {
    check(
        "x = y.z t.a.b = 1 t[1] = t[300] t[k] = 'v'",
        expect![[r#"
        main <t:0,0> (16 instructions)
        0+ params, 3 slots, 1 upvalue, 0 locals, 9 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	GETTABUP   0 0 1	; _ENV "y"
        	3	[1]	GETFIELD   0 0 2	; "z"
        	4	[1]	SETTABUP   0 0 0	; _ENV "x"
        	5	[1]	GETTABUP   0 0 3	; _ENV "t"
        	6	[1]	GETFIELD   0 0 4	; "a"
        	7	[1]	SETFIELD   0 5 6k	; "b" 1
        	8	[1]	GETTABUP   0 0 3	; _ENV "t"
        	9	[1]	GETTABUP   1 0 3	; _ENV "t"
        	10	[1]	LOADI      2 300
        	11	[1]	GETTABLE   1 1 2
        	12	[1]	SETI       0 1 1
        	13	[1]	GETTABUP   0 0 3	; _ENV "t"
        	14	[1]	GETTABUP   1 0 7	; _ENV "k"
        	15	[1]	SETTABLE   0 1 8k	; "v"
        	16	[1]	RETURN     0 1 1	; 0 out
        constants (9):
        	0	S	"x"
        	1	S	"y"
        	2	S	"z"
        	3	S	"t"
        	4	S	"a"
        	5	S	"b"
        	6	I	1
        	7	S	"k"
        	8	S	"v"
        locals (0):
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}

#[test]
fn local_env() {
    check(
        "local _ENV = {print = print} print(x)",
        expect![[r#"
        main <t:0,0> (9 instructions)
        0+ params, 3 slots, 1 upvalue, 1 local, 2 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	NEWTABLE   0 1 0	; 0
        	3	[1]	EXTRAARG   0
        	4	[1]	GETTABUP   1 0 0	; _ENV "print"
        	5	[1]	SETFIELD   0 0 1	; "print"
        	6	[1]	GETFIELD   1 0 0	; "print"
        	7	[1]	GETFIELD   2 0 1	; "x"
        	8	[1]	CALL       1 2 1	; 1 in 0 out
        	9	[1]	RETURN     1 1 1	; 0 out
        constants (2):
        	0	S	"print"
        	1	S	"x"
        locals (1):
        	0	_ENV	6	10
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}

#[test]
fn multiple_assignment() {
    check(
        "local a, b, t, i = 1, 2, {}, 1 a, b = b, a t[i], i = 10, 2",
        expect![[r#"
        main <t:0,0> (14 instructions)
        0+ params, 6 slots, 1 upvalue, 4 locals, 0 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	LOADI      0 1
        	3	[1]	LOADI      1 2
        	4	[1]	NEWTABLE   2 0 0	; 0
        	5	[1]	EXTRAARG   0
        	6	[1]	LOADI      3 1
        	7	[1]	MOVE       4 1 0
        	8	[1]	MOVE       1 0 0
        	9	[1]	MOVE       0 4 0
        	10	[1]	MOVE       4 3 0
        	11	[1]	LOADI      5 10
        	12	[1]	LOADI      3 2
        	13	[1]	SETTABLE   2 4 5
        	14	[1]	RETURN     4 1 1	; 0 out
        constants (0):
        locals (4):
        	0	a	7	15
        	1	b	7	15
        	2	t	7	15
        	3	i	7	15
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}

#[test]
fn calls_and_methods() {
    check(
        "f() f(1, 2) f(g()) local s = obj:method('x') return obj.field:m(...)",
        expect![[r#"
        main <t:0,0> (22 instructions)
        0+ params, 4 slots, 1 upvalue, 1 local, 7 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	GETTABUP   0 0 0	; _ENV "f"
        	3	[1]	CALL       0 1 1	; 0 in 0 out
        	4	[1]	GETTABUP   0 0 0	; _ENV "f"
        	5	[1]	LOADI      1 1
        	6	[1]	LOADI      2 2
        	7	[1]	CALL       0 3 1	; 2 in 0 out
        	8	[1]	GETTABUP   0 0 0	; _ENV "f"
        	9	[1]	GETTABUP   1 0 1	; _ENV "g"
        	10	[1]	CALL       1 1 0	; 0 in all out
        	11	[1]	CALL       0 0 1	; all in 0 out
        	12	[1]	GETTABUP   0 0 2	; _ENV "obj"
        	13	[1]	SELF       0 0 3k	; "method"
        	14	[1]	LOADK      2 4	; "x"
        	15	[1]	CALL       0 3 2	; 2 in 1 out
        	16	[1]	GETTABUP   1 0 2	; _ENV "obj"
        	17	[1]	GETFIELD   1 1 5	; "field"
        	18	[1]	SELF       1 1 6k	; "m"
        	19	[1]	VARARG     3 0 0	; all out
        	20	[1]	TAILCALL   1 0 1	; all in
        	21	[1]	RETURN     1 0 1	; all out
        	22	[1]	RETURN     1 1 1	; 0 out
        constants (7):
        	0	S	"f"
        	1	S	"g"
        	2	S	"obj"
        	3	S	"method"
        	4	S	"x"
        	5	S	"field"
        	6	S	"m"
        locals (1):
        	0	s	16	23
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}

#[test]
fn varargs() {
    check(
        "local function f(a, ...) local b, c = ... return select('#', ...), {...} end",
        expect![[r##"
            main <t:0,0> (3 instructions)
            0+ params, 2 slots, 1 upvalue, 1 local, 0 constants, 1 function
            	1	[1]	VARARGPREP 0 0 0
            	2	[1]	CLOSURE    0 0	; function <t:1,1>
            	3	[1]	RETURN     1 1 1	; 0 out
            constants (0):
            locals (1):
            	0	f	3	4
            upvalues (1):
            	0	_ENV	1	0

            function <t:1,1> (12 instructions)
            1+ param, 6 slots, 1 upvalue, 3 locals, 2 constants, 0 functions
            	1	[1]	VARARGPREP 1 0 0
            	2	[1]	VARARG     1 0 3	; 2 out
            	3	[1]	GETTABUP   3 0 0	; _ENV "select"
            	4	[1]	LOADK      4 1	; "#"
            	5	[1]	VARARG     5 0 0	; all out
            	6	[1]	CALL       3 0 2	; all in 1 out
            	7	[1]	NEWTABLE   4 0 0	; 0
            	8	[1]	EXTRAARG   0
            	9	[1]	VARARG     5 0 0	; all out
            	10	[1]	SETLIST    4 0 0
            	11	[1]	RETURN     3 3 2	; 2 out
            	12	[1]	RETURN     3 1 2	; 0 out
            constants (2):
            	0	S	"select"
            	1	S	"#"
            locals (3):
            	0	a	1	13
            	1	b	3	13
            	2	c	3	13
            upvalues (1):
            	0	_ENV	0	0
        "##]],
    );
}

#[test]
fn tail_call_and_returns() {
    check("local function f(n) if n == 0 then return end if n == 1 then return n end return f(n - 1) end", expect![[r#"
        main <t:0,0> (3 instructions)
        0+ params, 2 slots, 1 upvalue, 1 local, 0 constants, 1 function
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	CLOSURE    0 0	; function <t:1,1>
        	3	[1]	RETURN     1 1 1k	; 0 out
        constants (0):
        locals (1):
        	0	f	3	4
        upvalues (1):
        	0	_ENV	1	0

        function <t:1,1> (11 instructions)
        1 param, 3 slots, 1 upvalue, 1 local, 0 constants, 0 functions
        	1	[1]	EQI        0 127 0	; sB=0
        	2	[1]	JMP        1	; to 4
        	3	[1]	RETURN0    1 1 0
        	4	[1]	EQI        0 128 0	; sB=1
        	5	[1]	JMP        1	; to 7
        	6	[1]	RETURN1    0 2 0
        	7	[1]	GETUPVAL   1 0 0	; f
        	8	[1]	ADDI       2 0 126k	; sC=-1 (sub 1)
        	9	[1]	TAILCALL   1 2 0	; 1 in
        	10	[1]	RETURN     1 0 0	; all out
        	11	[1]	RETURN0    1 1 0
        constants (0):
        locals (1):
        	0	n	1	12
        upvalues (1):
        	0	f	1	0
    "#]]);
}

#[test]
fn table_constructor() {
    check(
        "local t = {1, 2, x = 3, ['y'] = 4, [5] = 6, f()}",
        expect![[r#"
        main <t:0,0> (12 instructions)
        0+ params, 4 slots, 1 upvalue, 1 local, 6 constants, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	NEWTABLE   0 3 2	; 2
        	3	[1]	EXTRAARG   0
        	4	[1]	LOADI      1 1
        	5	[1]	LOADI      2 2
        	6	[1]	SETFIELD   0 0 1k	; "x" 3
        	7	[1]	SETFIELD   0 2 3k	; "y" 4
        	8	[1]	SETI       0 5 4k	; 6
        	9	[1]	GETTABUP   3 0 5	; _ENV "f"
        	10	[1]	CALL       3 1 0	; 0 in all out
        	11	[1]	SETLIST    0 0 0
        	12	[1]	RETURN     1 1 1	; 0 out
        constants (6):
        	0	S	"x"
        	1	I	3
        	2	S	"y"
        	3	I	4
        	4	I	6
        	5	S	"f"
        locals (1):
        	0	t	12	13
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}

#[test]
fn upvalues_and_nested_functions() {
    check(
        "local a = 1 local function f() local b = 2 return function() return a + b end end",
        expect![[r#"
            main <t:0,0> (4 instructions)
            0+ params, 2 slots, 1 upvalue, 2 locals, 0 constants, 1 function
            	1	[1]	VARARGPREP 0 0 0
            	2	[1]	LOADI      0 1
            	3	[1]	CLOSURE    1 0	; function <t:1,1>
            	4	[1]	RETURN     2 1 1k	; 0 out
            constants (0):
            locals (2):
            	0	a	3	5
            	1	f	4	5
            upvalues (1):
            	0	_ENV	1	0

            function <t:1,1> (4 instructions)
            0 params, 2 slots, 1 upvalue, 1 local, 0 constants, 1 function
            	1	[1]	LOADI      0 2
            	2	[1]	CLOSURE    1 0	; function <t:1,1>
            	3	[1]	RETURN     1 2 0k	; 1 out
            	4	[1]	RETURN     1 1 0k	; 0 out
            constants (0):
            locals (1):
            	0	b	2	5
            upvalues (1):
            	0	a	1	0

            function <t:1,1> (5 instructions)
            0 params, 2 slots, 2 upvalues, 0 locals, 0 constants, 0 functions
            	1	[1]	GETUPVAL   0 0 0	; a
            	2	[1]	GETUPVAL   1 1 0	; b
            	3	[1]	ADD        0 0 1
            	4	[1]	RETURN1    0 2 0
            	5	[1]	RETURN0    0 1 0
            constants (0):
            locals (0):
            upvalues (2):
            	0	a	0	0
            	1	b	1	0
        "#]],
    );
}

#[test]
fn method_definition() {
    check(
        "local obj = {} function obj.nested.m:meth(x) self.x = x end",
        expect![[r#"
        main <t:0,0> (8 instructions)
        0+ params, 3 slots, 1 upvalue, 1 local, 3 constants, 1 function
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	NEWTABLE   0 0 0	; 0
        	3	[1]	EXTRAARG   0
        	4	[1]	GETFIELD   1 0 0	; "nested"
        	5	[1]	GETFIELD   1 1 1	; "m"
        	6	[1]	CLOSURE    2 0	; function <t:1,1>
        	7	[1]	SETFIELD   1 2 2	; "meth"
        	8	[1]	RETURN     1 1 1	; 0 out
        constants (3):
        	0	S	"nested"
        	1	S	"m"
        	2	S	"meth"
        locals (1):
        	0	obj	4	9
        upvalues (1):
        	0	_ENV	1	0

        function <t:1,1> (2 instructions)
        2 params, 2 slots, 0 upvalues, 2 locals, 1 constant, 0 functions
        	1	[1]	SETFIELD   0 0 1	; "x"
        	2	[1]	RETURN0    2 1 0
        constants (1):
        	0	S	"x"
        locals (2):
        	0	self	1	3
        	1	x	1	3
        upvalues (0):
    "#]],
    );
}

#[test]
fn const_and_close_locals() {
    check(
        "local k <const> = 42 local s <const> = 'str' do local c <close> = f() g(k, s) end",
        expect![[r#"
            main <t:0,0> (10 instructions)
            0+ params, 4 slots, 1 upvalue, 1 local, 3 constants, 0 functions
            	1	[1]	VARARGPREP 0 0 0
            	2	[1]	GETTABUP   0 0 0	; _ENV "f"
            	3	[1]	CALL       0 1 2	; 0 in 1 out
            	4	[1]	TBC        0 0 0
            	5	[1]	GETTABUP   1 0 1	; _ENV "g"
            	6	[1]	LOADI      2 42
            	7	[1]	LOADK      3 2	; "str"
            	8	[1]	CALL       1 3 1	; 2 in 0 out
            	9	[1]	CLOSE      0 0 0
            	10	[1]	RETURN     0 1 1k	; 0 out
            constants (3):
            	0	S	"f"
            	1	S	"g"
            	2	S	"str"
            locals (1):
            	0	c	4	10
            upvalues (1):
            	0	_ENV	1	0
        "#]],
    );
}

#[test]
fn goto_continue_idiom() {
    check(
        "for i = 1, 3 do if i == 2 then goto continue end print(i) ::continue:: end",
        expect![[r#"
            main <t:0,0> (13 instructions)
            0+ params, 6 slots, 1 upvalue, 4 locals, 1 constant, 0 functions
            	1	[1]	VARARGPREP 0 0 0
            	2	[1]	LOADI      0 1
            	3	[1]	LOADI      1 3
            	4	[1]	LOADI      2 1
            	5	[1]	FORPREP    0 6	; exit to 13
            	6	[1]	EQI        3 129 0	; sB=2
            	7	[1]	JMP        1	; to 9
            	8	[1]	JMP        3	; to 12
            	9	[1]	GETTABUP   4 0 0	; _ENV "print"
            	10	[1]	MOVE       5 3 0
            	11	[1]	CALL       4 2 1	; 1 in 0 out
            	12	[1]	FORLOOP    0 7	; to 6
            	13	[1]	RETURN     0 1 1	; 0 out
            constants (1):
            	0	S	"print"
            locals (4):
            	0	(for state)	5	13
            	1	(for state)	5	13
            	2	(for state)	5	13
            	3	i	6	12
            upvalues (1):
            	0	_ENV	1	0
        "#]],
    );
}

#[test]
fn goto_closes_upvalues() {
    check(
        "do local x = 1 f(function() return x end) goto out end ::out::",
        expect![[r#"
        main <t:0,0> (9 instructions)
        0+ params, 3 slots, 1 upvalue, 1 local, 1 constant, 1 function
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	LOADI      0 1
        	3	[1]	GETTABUP   1 0 0	; _ENV "f"
        	4	[1]	CLOSURE    2 0	; function <t:1,1>
        	5	[1]	CALL       1 2 1	; 1 in 0 out
        	6	[1]	JMP        1	; to 8
        	7	[1]	CLOSE      0 0 0
        	8	[1]	CLOSE      0 0 0
        	9	[1]	RETURN     0 1 1k	; 0 out
        constants (1):
        	0	S	"f"
        locals (1):
        	0	x	3	8
        upvalues (1):
        	0	_ENV	1	0

        function <t:1,1> (3 instructions)
        0 params, 2 slots, 1 upvalue, 0 locals, 0 constants, 0 functions
        	1	[1]	GETUPVAL   0 0 0	; x
        	2	[1]	RETURN1    0 2 0
        	3	[1]	RETURN0    0 1 0
        constants (0):
        locals (0):
        upvalues (1):
        	0	x	1	0
    "#]],
    );
}

#[test]
fn concat_chain() {
    check(
        "local a, b = ... return a .. b .. 'c' .. 1",
        expect![[r#"
        main <t:0,0> (9 instructions)
        0+ params, 6 slots, 1 upvalue, 2 locals, 1 constant, 0 functions
        	1	[1]	VARARGPREP 0 0 0
        	2	[1]	VARARG     0 0 3	; 2 out
        	3	[1]	MOVE       2 0 0
        	4	[1]	MOVE       3 1 0
        	5	[1]	LOADK      4 0	; "c"
        	6	[1]	LOADI      5 1
        	7	[1]	CONCAT     2 4 0
        	8	[1]	RETURN     2 2 1	; 1 out
        	9	[1]	RETURN     2 1 1	; 0 out
        constants (1):
        	0	S	"c"
        locals (2):
        	0	a	3	10
        	1	b	3	10
        upvalues (1):
        	0	_ENV	1	0
    "#]],
    );
}
