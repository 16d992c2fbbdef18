//! The one question every placement answers: which node owns this key.

use alloc::boxed::Box;
use alloc::sync::Arc;

use crate::Placement;

/// A membership that answers "which node owns this key?": an hrw-v1 [`Placement`] or
/// [`crate::View`], and outside this crate hrwhash-compat's profile placements. A
/// [`crate::Transition`] compares any two of them; nodes are the same node when their ids are
/// equal.
pub trait Lookup {
    /// Number of nodes.
    fn len(&self) -> usize;

    /// Whether there are no nodes (never, for a built membership).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Id of the node at `index` (build order); `index < len()`.
    fn node_id(&self, index: usize) -> &[u8];

    /// Build-order index of the owner of `key`.
    fn owner_index(&self, key: &[u8]) -> usize;

    /// The hrw-v1 placement behind this membership, if it is one: transitions between two of
    /// them hash each key once and offer replica routes and expected movement.
    fn as_placement(&self) -> Option<&Placement> {
        None
    }
}

impl Lookup for Placement {
    fn len(&self) -> usize {
        Placement::len(self)
    }
    fn node_id(&self, index: usize) -> &[u8] {
        self.node_specs()[index].id()
    }
    fn owner_index(&self, key: &[u8]) -> usize {
        Placement::owner_index(self, key)
    }
    fn as_placement(&self) -> Option<&Placement> {
        Some(self)
    }
}

#[cfg(feature = "json")]
impl Lookup for crate::View {
    fn len(&self) -> usize {
        self.placement().len()
    }
    fn node_id(&self, index: usize) -> &[u8] {
        Lookup::node_id(self.placement(), index)
    }
    fn owner_index(&self, key: &[u8]) -> usize {
        self.placement().owner_index(key)
    }
    fn as_placement(&self) -> Option<&Placement> {
        Some(self.placement())
    }
}

macro_rules! forward {
    ($($ptr:ty),*) => {$(
        impl<T: Lookup + ?Sized> Lookup for $ptr {
            fn len(&self) -> usize {
                (**self).len()
            }
            fn node_id(&self, index: usize) -> &[u8] {
                (**self).node_id(index)
            }
            fn owner_index(&self, key: &[u8]) -> usize {
                (**self).owner_index(key)
            }
            fn as_placement(&self) -> Option<&Placement> {
                (**self).as_placement()
            }
        }
    )*};
}

forward!(&T, Box<T>, Arc<T>);
