//! PLACEHOLDER (being written): the disassembler.
