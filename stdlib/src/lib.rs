//! luprex-stdlib: the Lua 5.4 standard library for luprex-vm (the string,
//! table, math, utf8, io, os, package and debug libraries come with the
//! standard-library issue; the base and coroutine libraries live in the vm).

pub mod pack;
pub mod pattern;
pub mod random;
pub mod strftime;
pub mod utf8_core;
