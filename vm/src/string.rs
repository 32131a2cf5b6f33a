//! PLACEHOLDER (being written): interned byte strings.
/// An interned string.
pub struct LuaStr {
    /// Content hash.
    pub hash: u64,
    /// The bytes.
    pub bytes: Box<[u8]>,
}
