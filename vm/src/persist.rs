//! Writing a state to bytes and loading it back (being written).

/// Names under which continuations and userdata payload loaders are
/// registered, for persistence.
#[derive(Default)]
pub(crate) struct Registry {}
