//! The opcodes as `u8` constants, the patterns of the dispatch loop's
//! `match` on an instruction's opcode byte (`i.op_raw()`).

use luprex_compiler::OpCode;

macro_rules! opconsts {
    ($($name:ident = $op:ident),* $(,)?) => { $(pub(super) const $name: u8 = OpCode::$op as u8;)* };
}

opconsts! {
    MOVE = Move, LOADI = LoadI, LOADF = LoadF, LOADK = LoadK, LOADKX = LoadKX,
    LOADFALSE = LoadFalse, LFALSESKIP = LFalseSkip, LOADTRUE = LoadTrue, LOADNIL = LoadNil,
    GETUPVAL = GetUpval, SETUPVAL = SetUpval, GETTABUP = GetTabUp, GETTABLE = GetTable,
    GETI = GetI, GETFIELD = GetField, SETTABUP = SetTabUp, SETTABLE = SetTable, SETI = SetI,
    SETFIELD = SetField, NEWTABLE = NewTable, SELF = SelfOp, ADDI = AddI, ADDK = AddK,
    SUBK = SubK, MULK = MulK, MODK = ModK, POWK = PowK, DIVK = DivK, IDIVK = IDivK,
    BANDK = BAndK, BORK = BOrK, BXORK = BXorK, SHRI = ShrI, SHLI = ShlI, ADD = Add, SUB = Sub,
    MUL = Mul, MOD = Mod, POW = Pow, DIV = Div, IDIV = IDiv, BAND = BAnd, BOR = BOr,
    BXOR = BXor, SHL = Shl, SHR = Shr, UNM = Unm, BNOT = BNot, NOT = Not, LEN = Len,
    CONCAT = Concat, CLOSE = Close, TBC = Tbc, JMP = Jmp, EQ = Eq, LT = Lt, LE = Le, EQK = EqK,
    EQI = EqI, LTI = LtI, LEI = LeI, GTI = GtI, GEI = GeI, TEST = Test, TESTSET = TestSet,
    CALL = Call, TAILCALL = TailCall, RETURN = Return, RETURN0 = Return0, RETURN1 = Return1,
    FORLOOP = ForLoop, FORPREP = ForPrep, TFORPREP = TForPrep, TFORCALL = TForCall,
    TFORLOOP = TForLoop, SETLIST = SetList, CLOSURE = Closure, VARARG = VarArg,
    VARARGPREP = VarArgPrep,
}
