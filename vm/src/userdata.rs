//! PLACEHOLDER (being written): full userdata.
/// A full userdata.
pub struct UserData {}
