//! PLACEHOLDER (being written): coroutines.
/// A coroutine.
pub struct Thread {}
