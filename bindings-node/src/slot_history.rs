//! Slot histories (conformance/SLOT-HISTORY.md, `hrwhash-slot-history-v1`): `SlotHistory`, thin
//! over the core's type of the same name. Ids from a history come back as strings when they are
//! UTF-8 and as a `Buffer` otherwise, as for views.
use hrwhash::policy::{SlotChange, SlotHistory as CoreHistory};
use hrwhash::Weight;
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::js::{self, KeyBuf, Raw};
use crate::levelled_slots::LevelledSlotTable;
use crate::view::{epoch_arg, id_value, instance, load_seed, text_form, view_form, View};
use crate::{
    core_error, count_arg, count_value, key_of, no_bad_text, parse_node, read, weight_arg,
    weight_error, Placement,
};

/// The shared history of a levelled slot table: the first membership, the number of slots and
/// the ordered changes, written and read as one JSON document. Every client that loads the same
/// history holds the same table; `tableFingerprint` compares tables cheaply. Changes return a
/// new history.
#[napi]
pub struct SlotHistory {
    inner: CoreHistory,
}

impl SlotHistory {
    fn changed(&self, env: sys::napi_env, change: SlotChange) -> Result<SlotHistory> {
        let inner = self
            .inner
            .with_change(change)
            .map_err(|e| core_error(env, e))?;
        Ok(SlotHistory { inner })
    }
}

#[napi]
impl SlotHistory {
    /// A history with no change yet: the first table of `placement` with `slots` slots, at
    /// `epoch` (default 0).
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "placement: Placement, slots: number, epoch?: bigint | number | null"
    )]
    pub fn new(env: Env, placement: Raw, slots: Raw, epoch: Option<Raw>) -> Result<SlotHistory> {
        let env = env.raw();
        let p = instance::<Placement>(env, placement).ok_or_else(|| {
            js::type_error(
                env,
                &format!(
                    "placement is {}, not a Placement",
                    js::describe(env, placement.0)
                ),
            )
        })?;
        let s = count_arg(env, slots, "slots")?;
        let s = count_value(env, s, "slots")?;
        let epoch = match epoch {
            Some(e) if !js::is_null_or_undefined(env, e.0)? => epoch_arg(env, e)?,
            _ => 0,
        };
        let inner =
            CoreHistory::new(p.inner.clone(), s as u64, epoch).map_err(|e| core_error(env, e))?;
        Ok(SlotHistory { inner })
    }

    /// Loads and replays a history document (a string, or its UTF-8 bytes). A history written
    /// for a secret seed needs `options.seed`; a wrong seed is `HRW_SEED_MISMATCH`.
    #[napi(
        factory,
        catch_unwind,
        ts_args_type = "text: string | Uint8Array, options?: ViewLoadOptions | null"
    )]
    pub fn from_json(env: Env, text: Raw, options: Option<Raw>) -> Result<SlotHistory> {
        let env = env.raw();
        let mut buf = KeyBuf::new();
        let mut bad = None;
        let (bytes, _) = read(env, text.0, &mut buf, &|| "text".to_owned(), None, &mut bad)?;
        let seed = load_seed(env, options)?;
        no_bad_text(env, bad)?;
        let inner = CoreHistory::from_json_bytes(bytes, seed).map_err(|e| core_error(env, e))?;
        Ok(SlotHistory { inner })
    }

    /// The canonical JSON form (SLOT-HISTORY.md section 3), ending in a newline.
    #[napi(catch_unwind)]
    pub fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// Number of slots.
    #[napi(getter, catch_unwind)]
    pub fn slots(&self) -> u32 {
        self.inner.table().slots()
    }

    /// The epoch (that of the final membership's view).
    #[napi(getter, catch_unwind, ts_return_type = "bigint")]
    pub fn epoch(&self, env: Env) -> Result<Raw> {
        Ok(Raw(js::new_bigint(env.raw(), self.inner.epoch())?))
    }

    /// The number of changes.
    #[napi(getter, catch_unwind)]
    pub fn change_count(&self) -> u32 {
        self.inner.changes().len() as u32
    }

    /// The table fingerprint: 32 hex digits.
    #[napi(getter, catch_unwind)]
    pub fn table_fingerprint(&self) -> String {
        self.inner.table_fingerprint().to_hex()
    }

    /// The final membership as a view at the history's epoch.
    #[napi(catch_unwind)]
    pub fn view(&self) -> View {
        View {
            inner: self.inner.view(),
        }
    }

    /// The table the changes lead to.
    #[napi(catch_unwind)]
    pub fn table(&self) -> LevelledSlotTable {
        let table = self.inner.table().clone();
        let forms = table
            .placement()
            .node_specs()
            .iter()
            .map(view_form)
            .collect();
        LevelledSlotTable {
            inner: table,
            forms,
        }
    }

    /// The slot of `key`.
    #[napi(catch_unwind, ts_args_type = "key: Key")]
    pub fn slot(&self, env: Env, key: Raw) -> Result<u32> {
        let mut buf = KeyBuf::new();
        Ok(self
            .inner
            .table()
            .slot(key_of(env.raw(), key, &mut buf, "key")?))
    }

    /// The id of the node that owns `key`'s slot.
    #[napi(catch_unwind, ts_args_type = "key: Key", ts_return_type = "NodeId")]
    pub fn owner(&self, env: Env, key: Raw) -> Result<Raw> {
        let env = env.raw();
        let mut buf = KeyBuf::new();
        let id = self
            .inner
            .table()
            .owner(key_of(env, key, &mut buf, "key")?)
            .id();
        Ok(Raw(id_value(env, id, text_form(id))?))
    }

    /// The history with one more change: `node` appended.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike | NodeSpec")]
    pub fn with_node(&self, env: Env, node: Raw) -> Result<SlotHistory> {
        let env = env.raw();
        let mut text = None;
        let extra = parse_node(env, node.0, &|| "node".to_owned(), None, &mut text)?;
        no_bad_text(env, text)?;
        let mut added = extra.parsed.node;
        if let Some(w) = extra.weight {
            let w = Weight::new(w).map_err(|_| weight_error(env, w, None, "node.weight"))?;
            added = added.with_weight(w);
        }
        self.changed(env, SlotChange::Add(added))
    }

    /// The history with one more change: `node` removed.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike")]
    pub fn without_node(&self, env: Env, node: Raw) -> Result<SlotHistory> {
        let env = env.raw();
        let mut buf = KeyBuf::new();
        let id = key_of(env, node, &mut buf, "node")?.to_vec();
        self.changed(env, SlotChange::Remove(id))
    }

    /// The history with one more change: `node` at another weight. As `Placement.withWeight`:
    /// the argument types, then the node (`HRW_UNKNOWN_NODE`), then the weight's value.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike, weight: number")]
    pub fn with_weight(&self, env: Env, node: Raw, weight: Raw) -> Result<SlotHistory> {
        let env = env.raw();
        let mut text = None;
        let mut buf = KeyBuf::new();
        let (id, _) = read(
            env,
            node.0,
            &mut buf,
            &|| "node".to_owned(),
            None,
            &mut text,
        )?;
        let w = weight_arg(env, weight.0, &|| "weight".to_owned(), None)?;
        no_bad_text(env, text)?;
        if self.inner.table().placement().find(id).is_none() {
            return Err(core_error(env, hrwhash::Error::UnknownNode));
        }
        let w = Weight::new(w).map_err(|_| weight_error(env, w, None, "weight"))?;
        self.changed(env, SlotChange::Weight(id.to_vec(), w))
    }

    /// The same history at another epoch.
    #[napi(catch_unwind, ts_args_type = "epoch: bigint | number")]
    pub fn with_epoch(&self, env: Env, epoch: Raw) -> Result<SlotHistory> {
        let epoch = epoch_arg(env.raw(), epoch)?;
        Ok(SlotHistory {
            inner: self.inner.with_epoch(epoch),
        })
    }
}

/// The format tag: `"hrwhash-slot-history-v1"`.
#[napi]
pub const SLOT_HISTORY_FORMAT: &str = hrwhash::policy::SLOT_HISTORY_FORMAT;
