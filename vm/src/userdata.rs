//! Full userdata: a block of host data with a metatable and user values.
//!
//! The VM itself only looks at the metatable (for metamethods, `__name`,
//! `__gc`) and the user values (which the collector traces). The host data,
//! the *payload*, is a `Box<dyn Payload>`: besides downcasting, the
//! [`Payload`] trait says what a snapshot may do with it.
//!
//! * [`Opaque<T>`] (any `T: Any`) can be neither copied nor persisted. A
//!   heap holding one can be snapshotted, but mutating its payload after a
//!   snapshot makes a rollback to that snapshot impossible (it is refused
//!   with an error naming the type), and writing the heap to bytes is
//!   refused.
//! * [`Cloneable::boxed`] (`T: Any + Clone`) is copied into the snapshot
//!   journal when first mutated after a snapshot, so rollback restores it.
//! * A type implementing [`Payload`] itself may also name a persistence
//!   format (`persist_name` / `persist`), re-created on load by a loader
//!   registered under the same name.
//!
//! **Invariant:** a payload is reached only through
//! [`Arena::get_mut`](crate::Arena::get_mut) of the userdata arena, so that snapshot dirty
//! tracking sees every mutation; payloads have no interior mutability
//! that a rollback could miss.

use crate::value::{TableRef, Value};
use std::any::Any;

/// Host data inside a full userdata (see the module docs).
pub trait Payload: Any {
    /// The payload as `&dyn Any`, for downcasting.
    fn as_any(&self) -> &dyn Any;
    /// The payload as `&mut dyn Any`, for downcasting.
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// The Rust type name, for error messages.
    fn type_name(&self) -> &'static str;
    /// A copy for the snapshot journal; `None` if the type cannot be copied.
    fn clone_payload(&self) -> Option<Box<dyn Payload>> {
        None
    }
    /// The stable name under which a loader for this payload is registered,
    /// if it can be written to bytes.
    fn persist_name(&self) -> Option<&'static str> {
        None
    }
    /// Appends the payload's bytes (only called when `persist_name` is
    /// `Some`); returns false if this value cannot be written.
    fn persist(&self, _out: &mut Vec<u8>) -> bool {
        false
    }
}

impl dyn Payload {
    /// The payload as a `T`, if it is one. (`as_any` of the wrappers
    /// returns the wrapped value, so [`Opaque<T>`] and
    /// [`Cloneable::boxed`] payloads downcast to `T`.)
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.as_any().downcast_ref::<T>()
    }

    /// Mutable `downcast_ref`.
    pub fn downcast_mut<T: Any>(&mut self) -> Option<&mut T> {
        self.as_any_mut().downcast_mut::<T>()
    }

    /// Whether the payload is a `T`.
    pub fn is<T: Any>(&self) -> bool {
        self.downcast_ref::<T>().is_some()
    }
}

/// A payload that can be neither copied nor persisted.
pub struct Opaque<T>(pub T);

impl<T: Any> Payload for Opaque<T> {
    fn as_any(&self) -> &dyn Any {
        &self.0
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        &mut self.0
    }
    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
}

/// Constructor of payloads copied into the snapshot journal when mutated
/// (see the module docs).
pub struct Cloneable;

/// The boxed payload of a cloneable `T` (constructed by
/// [`Cloneable::boxed`]).
struct CloneBox<T>(T);

impl Cloneable {
    /// Boxes a cloneable value as a payload.
    pub fn boxed<T: Any + Clone>(v: T) -> Box<dyn Payload> {
        Box::new(CloneBox(v))
    }
}

impl<T: Any + Clone> Payload for CloneBox<T> {
    fn as_any(&self) -> &dyn Any {
        &self.0
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        &mut self.0
    }
    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
    fn clone_payload(&self) -> Option<Box<dyn Payload>> {
        Some(Box::new(CloneBox(self.0.clone())))
    }
}

/// A full userdata.
pub struct UserData {
    /// The metatable, if any.
    pub meta: Option<TableRef>,
    /// User values (`lua_setiuservalue`), traced by the collector.
    pub user_values: Vec<Value>,
    /// The host payload.
    pub data: Box<dyn Payload>,
}

impl std::fmt::Debug for UserData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserData")
            .field("meta", &self.meta)
            .field("type", &self.data.type_name())
            .finish_non_exhaustive()
    }
}
