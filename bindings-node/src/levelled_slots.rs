//! Levelled slot tables (conformance/POLICIES.md, "slot-table-v2"): `LevelledSlotTable`, thin
//! over the core's type of the same name. Ids come back in the form the placement was given them.
use hrwhash::policy::LevelledSlotTable as CoreTable;
use hrwhash::{Error as E, Weight};
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::js::{self, KeyBuf, Raw};
use crate::view::{id_value, membership};
use crate::{
    core_error, count_arg, count_value, key_of, no_bad_text, parse_node, read, weight_arg,
    weight_error, NodeForm,
};

/// Keys hash to a fixed number of slots and a table maps each slot to a node, kept level by its
/// changes: a change moves only the changed node's slots, so the table depends on the order of
/// the changes, not only on the membership they lead to. Changes return a new table.
#[napi]
pub struct LevelledSlotTable {
    pub(crate) inner: CoreTable,
    pub(crate) forms: Vec<NodeForm>,
}

impl LevelledSlotTable {
    fn id(&self, env: sys::napi_env, index: usize) -> Result<Raw> {
        let id = self.inner.placement().node_specs()[index].id();
        Ok(Raw(id_value(env, id, self.forms[index].id)?))
    }

    fn numbers(env: sys::napi_env, values: impl ExactSizeIterator<Item = u32>) -> Result<Raw> {
        let arr = js::new_array(env, values.len())?;
        for (i, v) in values.enumerate() {
            js::set_element(env, arr, i as u32, js::new_number(env, v as f64)?)?;
        }
        Ok(Raw(arr))
    }

    fn index_of(&self, env: sys::napi_env, id: &[u8]) -> Result<usize> {
        self.inner
            .placement()
            .find(id)
            .map(|n| n.index())
            .ok_or_else(|| core_error(env, E::UnknownNode))
    }
}

#[napi]
impl LevelledSlotTable {
    /// Builds the first table of a `Placement` or `View` with `slots` slots (1 to 2^24): every
    /// node gets its share as one run of slots.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "placement: Placement | View, slots: number"
    )]
    pub fn new(env: Env, placement: Raw, slots: Raw) -> Result<LevelledSlotTable> {
        let env = env.raw();
        let (p, forms) = membership(env, placement, "placement")?;
        let s = count_arg(env, slots, "slots")?;
        let s = count_value(env, s, "slots")?;
        let inner = CoreTable::new(&p, s as u64).map_err(|e| core_error(env, e))?;
        Ok(LevelledSlotTable { inner, forms })
    }

    /// Number of slots.
    #[napi(getter, catch_unwind)]
    pub fn slots(&self) -> u32 {
        self.inner.slots()
    }

    /// The slot of `key`.
    #[napi(catch_unwind, ts_args_type = "key: Key")]
    pub fn slot(&self, env: Env, key: Raw) -> Result<u32> {
        let mut buf = KeyBuf::new();
        Ok(self.inner.slot(key_of(env.raw(), key, &mut buf, "key")?))
    }

    /// The node that owns `slot`.
    #[napi(catch_unwind, ts_args_type = "slot: number", ts_return_type = "NodeId")]
    pub fn owner_of_slot(&self, env: Env, slot: Raw) -> Result<Raw> {
        let env = env.raw();
        let s = count_arg(env, slot, "slot")?;
        let s = count_value(env, s, "slot")?;
        let index = self
            .inner
            .owner_index_of_slot(s as u64)
            .map_err(|e| core_error(env, e))?;
        self.id(env, index)
    }

    /// The owner of `key`: the owner of its slot.
    #[napi(catch_unwind, ts_args_type = "key: Key", ts_return_type = "NodeId")]
    pub fn owner(&self, env: Env, key: Raw) -> Result<Raw> {
        let env = env.raw();
        let mut buf = KeyBuf::new();
        let index = self.inner.owner_index(key_of(env, key, &mut buf, "key")?);
        self.id(env, index)
    }

    /// The owner of every slot as an index into the placement's nodes, slot 0 first.
    #[napi(catch_unwind, ts_return_type = "number[]")]
    pub fn assignments(&self, env: Env) -> Result<Raw> {
        LevelledSlotTable::numbers(env.raw(), self.inner.assignments().iter().copied())
    }

    /// How many slots each node holds, in node order.
    #[napi(catch_unwind, ts_return_type = "number[]")]
    pub fn slot_counts(&self, env: Env) -> Result<Raw> {
        LevelledSlotTable::numbers(env.raw(), self.inner.slot_counts().into_iter())
    }

    /// The table with one more node (appended), computed from this one: the node takes its share
    /// one slot at a time from the most loaded nodes.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike | NodeSpec")]
    pub fn with_node(&self, env: Env, node: Raw) -> Result<LevelledSlotTable> {
        let env = env.raw();
        let mut text = None;
        let extra = parse_node(env, node.0, &|| "node".to_owned(), None, &mut text)?;
        no_bad_text(env, text)?;
        let index = self.inner.placement().len();
        let mut added = extra.parsed;
        if let Some(w) = extra.weight {
            let w = Weight::new(w).map_err(|_| weight_error(env, w, Some(index), "node.weight"))?;
            added.node = added.node.with_weight(w);
        }
        let inner = self
            .inner
            .with_node(added.node)
            .map_err(|e| core_error(env, e))?;
        let mut forms = self.forms.clone();
        forms.push(added.form);
        Ok(LevelledSlotTable { inner, forms })
    }

    /// The table without `node`, computed from this one: its slots go one at a time to the
    /// least loaded nodes.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike")]
    pub fn without_node(&self, env: Env, node: Raw) -> Result<LevelledSlotTable> {
        let env = env.raw();
        let mut buf = KeyBuf::new();
        let id = key_of(env, node, &mut buf, "node")?;
        let index = self.index_of(env, id)?;
        let inner = self
            .inner
            .without_node(id)
            .map_err(|e| core_error(env, e))?;
        let mut forms = self.forms.clone();
        forms.remove(index);
        Ok(LevelledSlotTable { inner, forms })
    }

    /// The table where `node` has another weight, computed from this one: the node takes or
    /// gives slots until it holds its new share.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike, weight: number")]
    pub fn with_weight(&self, env: Env, node: Raw, weight: Raw) -> Result<LevelledSlotTable> {
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
        let index = self.index_of(env, id)?;
        let w = Weight::new(w).map_err(|_| weight_error(env, w, Some(index), "weight"))?;
        let inner = self
            .inner
            .with_weight(id, w)
            .map_err(|e| core_error(env, e))?;
        Ok(LevelledSlotTable {
            inner,
            forms: self.forms.clone(),
        })
    }
}

/// The policy tag: `"slot-table-v2"`.
#[napi]
pub const LEVELLED_SLOTS_POLICY: &str = hrwhash::policy::LEVELLED_SLOTS_POLICY;
