//! Full userdata: a block of host data with a metatable and user values.
//!
//! The payload is `Box<dyn Any>` for now: the embedding-API issue decides
//! how typed userdata is serialized for snapshots. The VM itself only looks
//! at the metatable (for metamethods, `__name`, `__gc`) and the user values
//! (which the collector traces).

use crate::value::{TableRef, Value};
use std::any::Any;

/// A full userdata.
pub struct UserData {
    /// The metatable, if any.
    pub meta: Option<TableRef>,
    /// User values (`lua_setiuservalue`), traced by the collector.
    pub user_values: Vec<Value>,
    /// The host payload.
    pub data: Box<dyn Any>,
}

impl std::fmt::Debug for UserData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserData").field("meta", &self.meta).finish_non_exhaustive()
    }
}
