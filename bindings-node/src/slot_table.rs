//! Slot tables (conformance/POLICIES.md, "slot-table (v1)"): `SlotTable`, thin over the core's
//! type of the same name. Ids come back in the form the placement was given them.
use hrwhash::policy::SlotTable as CoreTable;
use hrwhash::{Error as E, Weight};
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::js::{self, KeyBuf, Kind, Raw};
use crate::view::{id_value, membership};
use crate::{
    core_error, count_arg, count_value, key_of, no_bad_text, optional, parse_node, read,
    weight_arg, weight_error, NodeForm,
};

/// `{ overloadPpm? }`: `null`/absent for the plain HRW slot table, else an integer below 2^32.
fn overload_of(env: sys::napi_env, options: Option<Raw>) -> Result<Option<u32>> {
    let Some(opts) = options else {
        return Ok(None);
    };
    if js::is_null_or_undefined(env, opts.0)? {
        return Ok(None);
    }
    if js::type_of(env, opts.0)? != sys::ValueType::napi_object || js::is_array(env, opts.0)? {
        return Err(js::type_error(
            env,
            &format!("options is {}, not an object", js::describe(env, opts.0)),
        ));
    }
    for key in js::own_keys(env, opts.0)? {
        if key != "overloadPpm" {
            return Err(js::type_error(
                env,
                &format!("options.{key} is not an option of SlotTable"),
            ));
        }
    }
    let Some(v) = optional(env, opts.0, c"overloadPpm")? else {
        return Ok(None);
    };
    let p = count_arg(env, Raw(v), "options.overloadPpm")?;
    let p = count_value(env, p, "options.overloadPpm")?;
    u32::try_from(p).map(Some).map_err(|_| {
        js::throw(
            env,
            Kind::Range,
            "HRW_INVALID_COUNT",
            &format!("options.overloadPpm = {p} is above 2^32 - 1"),
            &[(c"value", p as f64)],
        )
    })
}

/// Keys hash to a fixed number of slots and a table maps each slot to a node: an owner lookup is
/// one key digest and one table read, whatever the number of nodes. Changes return a new table.
#[napi]
pub struct SlotTable {
    inner: CoreTable,
    forms: Vec<NodeForm>,
}

impl SlotTable {
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
impl SlotTable {
    /// Builds the table of a `Placement` or `View` with `slots` slots (1 to 2^24).
    /// `options.overloadPpm` bounds each node to about (1 + overloadPpm / 10^6) times its share of
    /// the slots; without it every slot goes to the first node of its hrw-v1 ranking.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "placement: Placement | View, slots: number, options?: SlotTableOptions | null"
    )]
    pub fn new(env: Env, placement: Raw, slots: Raw, options: Option<Raw>) -> Result<SlotTable> {
        let env = env.raw();
        let (p, forms) = membership(env, placement, "placement")?;
        let s = count_arg(env, slots, "slots")?;
        let overload = overload_of(env, options)?;
        let s = count_value(env, s, "slots")?;
        let inner = CoreTable::new(&p, s as u64, overload).map_err(|e| core_error(env, e))?;
        Ok(SlotTable { inner, forms })
    }

    /// Number of slots.
    #[napi(getter, catch_unwind)]
    pub fn slots(&self) -> u32 {
        self.inner.slots()
    }

    /// The overload bound in parts per million, or `null` for the plain HRW slot table.
    #[napi(getter, catch_unwind)]
    pub fn overload_ppm(&self) -> Option<u32> {
        self.inner.overload_ppm()
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
        SlotTable::numbers(env.raw(), self.inner.assignments().iter().copied())
    }

    /// How many slots each node holds, in node order.
    #[napi(catch_unwind, ts_return_type = "number[]")]
    pub fn slot_counts(&self, env: Env) -> Result<Raw> {
        SlotTable::numbers(env.raw(), self.inner.slot_counts().into_iter())
    }

    /// The most slots each node may hold, in node order.
    #[napi(catch_unwind, ts_return_type = "number[]")]
    pub fn capacities(&self, env: Env) -> Result<Raw> {
        let n = self.inner.placement().len();
        SlotTable::numbers(
            env.raw(),
            (0..n).map(|i| self.inner.capacity(i).unwrap_or(0)),
        )
    }

    /// The table with one more node (appended), computed from this one.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike | NodeSpec")]
    pub fn with_node(&self, env: Env, node: Raw) -> Result<SlotTable> {
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
        Ok(SlotTable { inner, forms })
    }

    /// The table without `node`, computed from this one.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike")]
    pub fn without_node(&self, env: Env, node: Raw) -> Result<SlotTable> {
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
        Ok(SlotTable { inner, forms })
    }

    /// The table where `node` has another weight, computed from this one.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike, weight: number")]
    pub fn with_weight(&self, env: Env, node: Raw, weight: Raw) -> Result<SlotTable> {
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
        Ok(SlotTable {
            inner,
            forms: self.forms.clone(),
        })
    }
}
