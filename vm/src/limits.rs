//! Limits for untrusted scripts (being written): memory, instructions,
//! interruption.

/// The limits configured on a state.
#[derive(Default)]
pub(crate) struct Limits {}
