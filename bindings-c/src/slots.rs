//! What `hrw_slot_table` and `hrw_levelled_slot_table` share: the same reads and the same
//! copy-on-change calls over two core tables, written once against `SlotHandle`.

use hrwhash_core::policy::{LevelledSlotTable, SlotTable};
use hrwhash_core::{Error, Node, Placement, Weight};

use crate::ffi::{
    copy_to, get, get_by_key, guard, try_bytes, try_out, try_ref, try_span_mut, with_detail, Handle,
};
use crate::levelled_slots::hrw_levelled_slot_table;
use crate::placement::{hrw_node, hrw_placement, new_node, weight_of};
use crate::slot_table::hrw_slot_table;
use crate::status::{hrw_error, hrw_status};

/// A slot-table handle: the core table and its membership as a placement handle that the
/// table lends out.
pub(crate) trait SlotHandle: Handle + Sized {
    type Table;
    fn wrap(table: Self::Table) -> Self;
    fn lent(&self) -> &hrw_placement;
    fn members(&self) -> &Placement;
    fn slots(&self) -> u32;
    fn slot(&self, key: &[u8]) -> u32;
    fn owner_of_slot(&self, slot: u64) -> Result<usize, Error>;
    fn owner(&self, key: &[u8]) -> usize;
    fn assignments(&self) -> &[u32];
    fn with_node(&self, node: Node) -> Result<Self::Table, Error>;
    fn without_node(&self, id: &[u8]) -> Result<Self::Table, Error>;
    fn with_weight(&self, id: &[u8], weight: Weight) -> Result<Self::Table, Error>;
}

/// Both core tables have the same methods under the same names; only the types differ.
macro_rules! slot_handle {
    ($handle:ident, $table:ty) => {
        impl Handle for $handle {}

        impl SlotHandle for $handle {
            type Table = $table;
            fn wrap(table: $table) -> Self {
                let placement = hrw_placement {
                    inner: table.placement().clone(),
                };
                $handle { table, placement }
            }
            fn lent(&self) -> &hrw_placement {
                &self.placement
            }
            fn members(&self) -> &Placement {
                self.table.placement()
            }
            fn slots(&self) -> u32 {
                self.table.slots()
            }
            fn slot(&self, key: &[u8]) -> u32 {
                self.table.slot(key)
            }
            fn owner_of_slot(&self, slot: u64) -> Result<usize, Error> {
                self.table.owner_index_of_slot(slot)
            }
            fn owner(&self, key: &[u8]) -> usize {
                self.table.owner_index(key)
            }
            fn assignments(&self) -> &[u32] {
                self.table.assignments()
            }
            fn with_node(&self, node: Node) -> Result<$table, Error> {
                self.table.with_node(node)
            }
            fn without_node(&self, id: &[u8]) -> Result<$table, Error> {
                self.table.without_node(id)
            }
            fn with_weight(&self, id: &[u8], weight: Weight) -> Result<$table, Error> {
                self.table.with_weight(id, weight)
            }
        }
    };
}

slot_handle!(hrw_slot_table, SlotTable);
slot_handle!(hrw_levelled_slot_table, LevelledSlotTable);

// Each function below is the body of the exported function of the same name on both handle
// types. Safety: the exported function's contract, forwarded.

pub(crate) unsafe fn placement<T: SlotHandle>(
    table: *const T,
    out_placement: *mut *const hrw_placement,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        try_out!(out_placement).write(t.lent());
        Ok(())
    })
}

pub(crate) unsafe fn slots<T: SlotHandle>(table: *const T, out_slots: *mut u32) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { get(table, out_slots, |t| Ok(t.slots())) }
}

pub(crate) unsafe fn slot<T: SlotHandle>(
    table: *const T,
    key: *const u8,
    key_len: usize,
    out_slot: *mut u32,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { get_by_key(table, key, key_len, out_slot, |t, key| Ok(t.slot(key))) }
}

pub(crate) unsafe fn owner_of_slot<T: SlotHandle>(
    table: *const T,
    slot: u64,
    out_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(table, out_index, |t| {
            t.owner_of_slot(slot).map_err(|e| (&e).into())
        })
    }
}

pub(crate) unsafe fn owner<T: SlotHandle>(
    table: *const T,
    key: *const u8,
    key_len: usize,
    out_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { get_by_key(table, key, key_len, out_index, |t, key| Ok(t.owner(key))) }
}

pub(crate) unsafe fn assignments<T: SlotHandle>(
    table: *const T,
    out_owners: *mut u32,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        copy_to(try_span_mut!(out_owners, out_len), t.assignments())
    })
}

pub(crate) unsafe fn with_node<T: SlotHandle>(
    table: *const T,
    node: *const hrw_node,
    weight: f64,
    out_table: *mut *mut T,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_ref!(table);
        let dst = try_out!(out_table);
        // SAFETY: forwarded.
        let node = unsafe { new_node(node, weight, t.members().len()) }?;
        dst.put_box(T::wrap(t.with_node(node)?));
        Ok(())
    })
}

pub(crate) unsafe fn without_node<T: SlotHandle>(
    table: *const T,
    id: *const u8,
    id_len: usize,
    out_table: *mut *mut T,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_ref!(table);
        let dst = try_out!(out_table);
        dst.put_box(T::wrap(t.without_node(try_bytes!(id, id_len))?));
        Ok(())
    })
}

pub(crate) unsafe fn with_weight<T: SlotHandle>(
    table: *const T,
    id: *const u8,
    id_len: usize,
    weight: f64,
    out_table: *mut *mut T,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_ref!(table);
        let dst = try_out!(out_table);
        let id = try_bytes!(id, id_len);
        let weight = weight_of(t.members(), id, weight)?;
        dst.put_box(T::wrap(t.with_weight(id, weight)?));
        Ok(())
    })
}
