//! Slot tables (conformance/POLICIES.md, "slot-table (v1)" and "slot-table-v2"; shared as
//! conformance/SLOT-HISTORY.md documents): `SlotTable`, thin over the core's type of the same
//! name, whose state is its history: the first membership, the ordered changes and an epoch.
//!
//! Ids come back in the form they were given (a string id as that string, a binary id as a new
//! `Buffer`); those of a loaded document as a view gives them (a string when UTF-8).
use hrwhash::policy::{SlotMode, SlotTable as CoreTable};
use napi::sys::ValueType as T;
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::args::{added_node, known_node, weight_args, weight_error};
use crate::js::{self, Bytes, JsEnv, KeyBuf, Kind, Raw};
use crate::view::{
    epoch_arg, id_value, load_document, membership, placement_value, view_form, View,
};
use crate::{core_error, count_arg, count_of, count_value, key_of, optional, NodeForm};

/// The names `new SlotTable`'s options may have; any other is a mistake the caller must hear of.
const OPTIONS: [&str; 3] = ["mode", "overloadPpm", "epoch"];

/// `{ mode?, overloadPpm?, epoch? }` with the type of each checked; their values are checked
/// after every argument's type (API.md section 4).
struct Options {
    ranked: bool,
    overload_ppm: Option<f64>,
    epoch: Option<Raw>,
}

fn options_of(env: impl JsEnv, options: Option<Raw>) -> Result<Options> {
    let mut out = Options {
        ranked: false,
        overload_ppm: None,
        epoch: None,
    };
    let Some(opts) = js::options(env, options, "{ mode?, overloadPpm?, epoch? }")? else {
        return Ok(out);
    };
    js::only_options(
        env,
        opts,
        &OPTIONS,
        "SlotTable (it has mode, overloadPpm, epoch)",
    )?;
    let opts = Raw(opts);
    if let Some(m) = optional(env, opts.0, c"mode")? {
        let mut buf = KeyBuf::new();
        let name = match js::type_of(env, m)? {
            T::napi_string => match js::bytes(env, m, &mut buf)? {
                Bytes::Ok(b, _) => b,
                _ => &[],
            },
            _ => &[],
        };
        out.ranked = match name {
            b"levelled" => false,
            b"ranked" => true,
            _ => {
                return Err(js::type_error(
                    env,
                    &format!(
                        "options.mode is {}, not 'levelled' or 'ranked'",
                        js::describe(env, m)
                    ),
                ))
            }
        };
    }
    if let Some(p) = optional(env, opts.0, c"overloadPpm")? {
        out.overload_ppm = Some(count_arg(env, Raw(p), "options.overloadPpm")?);
    }
    if let Some(e) = optional(env, opts.0, c"epoch")? {
        if !matches!(js::type_of(env, e)?, T::napi_bigint | T::napi_number) {
            return Err(js::type_error(
                env,
                &format!(
                    "options.epoch is {}, not a bigint or a number",
                    js::describe(env, e)
                ),
            ));
        }
        out.epoch = Some(Raw(e));
    }
    if out.overload_ppm.is_some() && !out.ranked {
        // Silently ignoring the bound would build a table other than the one asked for.
        return Err(js::type_error(
            env,
            "options.overloadPpm is given with mode 'levelled': only a ranked table has an overload bound (pass mode: 'ranked')",
        ));
    }
    Ok(out)
}

/// `options.overloadPpm`'s value: an integer from 0 to 2^32 - 1.
fn overload_value(env: impl JsEnv, p: f64) -> Result<u32> {
    let n = count_value(env, p, "options.overloadPpm")?;
    // The number itself is compared: on a 32-bit target `count_value` saturates at 2^32 - 1.
    if p > f64::from(u32::MAX) {
        return Err(js::throw(
            env,
            Kind::Range,
            "HRW_INVALID_COUNT",
            &format!(
                "options.overloadPpm = {} is above 2^32 - 1",
                js::number_text(p)
            ),
            &[(c"value", p)],
        ));
    }
    Ok(n as u32)
}

/// Keys hash to a fixed number of slots and a table maps each slot to a node: an owner lookup is
/// one key digest and one table read, whatever the number of nodes. `addNode`, `removeNode` and
/// `setWeight` change the table in place; `withNode`, `withoutNode`, `withWeight` and
/// `withEpoch` return a changed copy.
#[napi]
pub struct SlotTable {
    inner: CoreTable,
    /// How each node of the current membership was given, in node order.
    forms: Vec<NodeForm>,
    /// The same for the first membership.
    initial_forms: Vec<NodeForm>,
}

impl SlotTable {
    fn id(&self, env: impl JsEnv, index: usize) -> Result<Raw> {
        let id = self.inner.placement().node_specs()[index].id();
        Ok(Raw(id_value(env, id, self.forms[index].id)?))
    }

    fn loaded(inner: CoreTable) -> SlotTable {
        let forms = inner
            .placement()
            .node_specs()
            .iter()
            .map(view_form)
            .collect();
        let initial_forms = inner.initial().node_specs().iter().map(view_form).collect();
        SlotTable {
            inner,
            forms,
            initial_forms,
        }
    }

    fn add(&mut self, env: impl JsEnv, node: Raw) -> Result<()> {
        // It is appended, so its index is the current length.
        let added = added_node(env, node, self.inner.placement().len())?;
        self.inner
            .add_node(added.node)
            .map_err(|e| core_error(env, e))?;
        self.forms.push(added.form);
        Ok(())
    }

    fn remove(&mut self, env: impl JsEnv, node: Raw) -> Result<()> {
        let mut buf = KeyBuf::new();
        let (id, index) = known_node(env, node, &mut buf, self.inner.placement())?;
        self.inner.remove_node(id).map_err(|e| core_error(env, e))?;
        self.forms.remove(index);
        Ok(())
    }

    fn weigh(&mut self, env: impl JsEnv, node: Raw, weight: Raw) -> Result<()> {
        let mut buf = KeyBuf::new();
        let (id, w) = weight_args(env, node, weight, &mut buf)?;
        // The core checks the node, then the weight (SLOT-HISTORY.md 7); the binding only names
        // the node's position in a weight error.
        let index = self.inner.placement().find(id).map(|n| n.index());
        self.inner.set_weight(id, w).map_err(|e| match e {
            hrwhash::Error::InvalidWeight { value } => weight_error(env, value, index, "weight"),
            e => core_error(env, e),
        })
    }

    /// A copy of this table with `change` made to it.
    fn changed(
        &self,
        env: impl JsEnv,
        change: impl FnOnce(&mut SlotTable, sys::napi_env) -> Result<()>,
    ) -> Result<SlotTable> {
        let mut t = SlotTable {
            inner: self.inner.clone(),
            forms: self.forms.clone(),
            initial_forms: self.initial_forms.clone(),
        };
        change(&mut t, env.raw())?;
        Ok(t)
    }
}

#[napi]
impl SlotTable {
    /// The table of a `Placement` or `View` with `slots` slots (1 to 2^24), before any change.
    /// `options.mode` is `'levelled'` (the default: slot-table-v2, each change moves only the
    /// changed node's slots, so the table depends on the order of the changes) or `'ranked'`
    /// (slot-table-v1: every slot goes to the first node of its hrw-v1 ranking with room, so the
    /// table depends only on the membership). `options.overloadPpm` bounds each node of a ranked
    /// table to about (1 + overloadPpm / 10^6) times its share of the slots. `options.epoch`
    /// (default 0) is the epoch of the table's document and view.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "placement: Placement<Id> | ViewOf<Id>, slots: number, options?: SlotTableOptions | null"
    )]
    pub fn new(env: Env, placement: Raw, slots: Raw, options: Option<Raw>) -> Result<SlotTable> {
        let (p, forms) = membership(env, placement, "placement")?;
        let s = count_arg(env, slots, "slots")?;
        let opts = options_of(env, options)?;
        let s = count_value(env, s, "slots")? as u64;
        let ppm = match opts.overload_ppm {
            Some(v) => Some(overload_value(env, v)?),
            None => None,
        };
        let epoch = match opts.epoch {
            Some(e) => epoch_arg(env, e)?,
            None => 0,
        };
        let inner = if opts.ranked {
            CoreTable::ranked(&p, s, ppm)
        } else {
            CoreTable::new(&p, s)
        }
        .map_err(|e| core_error(env, e))?
        .with_epoch(epoch);
        Ok(SlotTable {
            inner,
            initial_forms: forms.clone(),
            forms,
        })
    }

    /// Loads a table's document (a string, or its UTF-8 bytes) and replays its changes. A
    /// document written for a secret seed needs `options.seed`; a wrong seed is
    /// `HRW_SEED_MISMATCH`.
    #[napi(
        factory,
        catch_unwind,
        ts_generic_types = "Id extends NodeId = NodeId",
        ts_args_type = "text: string | Uint8Array, options?: ViewLoadOptions | null",
        ts_return_type = "SlotTable<ViewIdOf<Id>>"
    )]
    pub fn from_json(env: Env, text: Raw, options: Option<Raw>) -> Result<SlotTable> {
        let inner = load_document(env, text, options, CoreTable::from_json_bytes)?;
        Ok(SlotTable::loaded(inner))
    }

    /// The canonical document (SLOT-HISTORY.md section 3), ending in a newline.
    #[napi(catch_unwind)]
    pub fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// Number of slots.
    #[napi(getter, catch_unwind)]
    pub fn slots(&self) -> u32 {
        self.inner.slots()
    }

    /// `'levelled'` or `'ranked'`.
    #[napi(getter, catch_unwind, ts_return_type = "SlotMode")]
    pub fn mode(&self) -> &'static str {
        match self.inner.mode() {
            SlotMode::Levelled => "levelled",
            SlotMode::Ranked { .. } => "ranked",
        }
    }

    /// The overload bound of a ranked table in parts per million, or `null` (levelled, or
    /// ranked without a bound).
    #[napi(getter, catch_unwind)]
    pub fn overload_ppm(&self) -> Option<u32> {
        self.inner.overload_ppm()
    }

    /// The epoch of the table's document and view.
    #[napi(getter, catch_unwind, ts_return_type = "bigint")]
    pub fn epoch(&self, env: Env) -> Result<Raw> {
        Ok(Raw(js::new_bigint(env, self.inner.epoch())?))
    }

    /// The number of changes since the first membership.
    #[napi(getter, catch_unwind)]
    pub fn change_count(&self) -> u32 {
        self.inner.changes().len() as u32
    }

    /// The table fingerprint (SLOT-HISTORY.md section 4): 32 hex digits, equal for two tables
    /// that place every slot alike.
    #[napi(getter, catch_unwind)]
    pub fn fingerprint(&self) -> String {
        self.inner.fingerprint().to_hex()
    }

    /// The current membership, as a new `Placement`.
    #[napi(getter, catch_unwind, ts_return_type = "Placement<Id>")]
    pub fn placement(&self, env: Env) -> Result<Raw> {
        placement_value(env, self.inner.placement(), Some(&self.forms))
    }

    /// The first membership, before any change, as a new `Placement`.
    #[napi(getter, catch_unwind, ts_return_type = "Placement<Id>")]
    pub fn initial(&self, env: Env) -> Result<Raw> {
        placement_value(env, self.inner.initial(), Some(&self.initial_forms))
    }

    /// The current membership as a view at the table's epoch.
    #[napi(catch_unwind, ts_return_type = "View<Id>")]
    pub fn view(&self) -> View {
        View {
            inner: self.inner.view(),
        }
    }

    /// The slot of `key`.
    #[napi(catch_unwind, ts_args_type = "key: Key")]
    pub fn slot(&self, env: Env, key: Raw) -> Result<u32> {
        let mut buf = KeyBuf::new();
        Ok(self.inner.slot(key_of(env, key, &mut buf, "key")?))
    }

    /// The node that owns `slot` (an integer below `slots`).
    #[napi(
        catch_unwind,
        ts_args_type = "slot: number",
        ts_return_type = "IdOf<Id>"
    )]
    pub fn owner_of_slot(&self, env: Env, slot: Raw) -> Result<Raw> {
        let s = count_of(env, slot, "slot")?;
        let index = self
            .inner
            .owner_index_of_slot(s as u64)
            .map_err(|e| core_error(env, e))?;
        self.id(env, index)
    }

    /// The owner of `key`: the owner of its slot.
    #[napi(catch_unwind, ts_args_type = "key: Key", ts_return_type = "IdOf<Id>")]
    pub fn owner(&self, env: Env, key: Raw) -> Result<Raw> {
        let mut buf = KeyBuf::new();
        let index = self.inner.owner_index(key_of(env, key, &mut buf, "key")?);
        self.id(env, index)
    }

    /// The owner of every slot as an index into the current membership's nodes, slot 0 first.
    #[napi(catch_unwind, ts_return_type = "number[]")]
    pub fn assignments(&self) -> Vec<u32> {
        self.inner.assignments().to_vec()
    }

    /// How many slots each node holds, in node order.
    #[napi(catch_unwind, ts_return_type = "number[]")]
    pub fn slot_counts(&self) -> Vec<u32> {
        self.inner.slot_counts()
    }

    /// The most slots each node may hold, in node order, for a ranked table with an overload
    /// bound; `null` for any other table.
    #[napi(catch_unwind, ts_return_type = "number[] | null")]
    pub fn capacities(&self) -> Option<Vec<u32>> {
        self.inner.capacities()
    }

    /// Appends `node` to the membership, in place; on an error the table is unchanged.
    #[napi(
        catch_unwind,
        ts_args_type = "node: IdInput<Id> | NodeSpec<IdInput<Id>>"
    )]
    pub fn add_node(&mut self, env: Env, node: Raw) -> Result<()> {
        self.add(env, node)
    }

    /// Removes `node` from the membership, in place; on an error the table is unchanged.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike")]
    pub fn remove_node(&mut self, env: Env, node: Raw) -> Result<()> {
        self.remove(env, node)
    }

    /// Gives `node` another weight, in place; on an error the table is unchanged. As
    /// `Placement.withWeight`: the argument types, then the node (`HRW_UNKNOWN_NODE`), then the
    /// weight's value.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike, weight: number")]
    pub fn set_weight(&mut self, env: Env, node: Raw, weight: Raw) -> Result<()> {
        self.weigh(env, node, weight)
    }

    /// A copy of this table with `node` appended.
    #[napi(
        catch_unwind,
        ts_args_type = "node: IdInput<Id> | NodeSpec<IdInput<Id>>",
        ts_return_type = "SlotTable<Id>"
    )]
    pub fn with_node(&self, env: Env, node: Raw) -> Result<SlotTable> {
        self.changed(env, |t, env| t.add(env, node))
    }

    /// A copy of this table without `node`.
    #[napi(
        catch_unwind,
        ts_args_type = "node: NodeIdLike",
        ts_return_type = "SlotTable<Id>"
    )]
    pub fn without_node(&self, env: Env, node: Raw) -> Result<SlotTable> {
        self.changed(env, |t, env| t.remove(env, node))
    }

    /// A copy of this table where `node` has another weight.
    #[napi(
        catch_unwind,
        ts_args_type = "node: NodeIdLike, weight: number",
        ts_return_type = "SlotTable<Id>"
    )]
    pub fn with_weight(&self, env: Env, node: Raw, weight: Raw) -> Result<SlotTable> {
        self.changed(env, |t, env| t.weigh(env, node, weight))
    }

    /// A copy of this table at another epoch.
    #[napi(
        catch_unwind,
        ts_args_type = "epoch: bigint | number",
        ts_return_type = "SlotTable<Id>"
    )]
    pub fn with_epoch(&self, env: Env, epoch: Raw) -> Result<SlotTable> {
        let epoch = epoch_arg(env, epoch)?;
        Ok(SlotTable {
            inner: self.inner.with_epoch(epoch),
            forms: self.forms.clone(),
            initial_forms: self.initial_forms.clone(),
        })
    }
}

/// The policy tag of a levelled table, the default mode: `"slot-table-v2"`.
#[napi]
pub const SLOT_TABLE_POLICY: &str = hrwhash::policy::SLOT_TABLE_POLICY;

/// The policy tag of a ranked table: `"slot-table-v1"`.
#[napi]
pub const RANKED_SLOT_TABLE_POLICY: &str = hrwhash::policy::RANKED_SLOT_TABLE_POLICY;

/// The format tag of a table's document: `"hrwhash-slot-history-v1"`.
#[napi]
pub const SLOT_HISTORY_FORMAT: &str = hrwhash::policy::SLOT_HISTORY_FORMAT;
