//! [`Name`]: the bytes of a name, kept inline when short.
//!
//! # Why
//!
//! A source has a name every few tokens (`t[#t+1] = {id=1, v=2}` has five),
//! and the lexer, the tree and the constructors' packed fields each held
//! one in a `Vec<u8>`: one allocation and one free per name, about a
//! sixth of the allocator's work in compiling a data file. Names are
//! nearly always short, so a [`Name`] of up to [`INLINE`] bytes is stored
//! in place, in the same 24 bytes a `Vec<u8>` takes; a longer one is a
//! boxed slice. Either way it reads as a `&[u8]` (it derefs to one), and it
//! compares, hashes and prints (`Debug`) exactly as its bytes do.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// Longest name stored inline.
pub const INLINE: usize = 22;

/// The bytes of a name (see the module doc).
#[derive(Clone)]
pub struct Name(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<[u8]>),
}

impl Name {
    /// A name with these bytes.
    pub fn new(b: &[u8]) -> Name {
        if b.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..b.len()].copy_from_slice(b);
            Name(Repr::Inline { len: b.len() as u8, bytes })
        } else {
            Name(Repr::Heap(b.into()))
        }
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::new(b"")
    }
}

impl Deref for Name {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or_default(),
            Repr::Heap(b) => b,
        }
    }
}

impl From<&[u8]> for Name {
    fn from(b: &[u8]) -> Name {
        Name::new(b)
    }
}

impl<const N: usize> From<&[u8; N]> for Name {
    fn from(b: &[u8; N]) -> Name {
        Name::new(b)
    }
}

impl From<Vec<u8>> for Name {
    fn from(b: Vec<u8>) -> Name {
        if b.len() <= INLINE {
            Name::new(&b)
        } else {
            Name(Repr::Heap(b.into_boxed_slice()))
        }
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name::new(s.as_bytes())
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        **self == **other
    }
}

impl Eq for Name {}

impl PartialEq<[u8]> for Name {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}

impl<const N: usize> PartialEq<[u8; N]> for Name {
    fn eq(&self, other: &[u8; N]) -> bool {
        **self == *other
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_names_read_back() {
        for n in [0, 1, INLINE, INLINE + 1, 100] {
            let bytes: Vec<u8> = (0..n as u8).collect();
            let name = Name::new(&bytes);
            assert_eq!(&*name, &bytes[..]);
            assert_eq!(format!("{name:?}"), format!("{bytes:?}"));
        }
        assert_eq!(std::mem::size_of::<Name>(), std::mem::size_of::<Vec<u8>>());
    }
}
