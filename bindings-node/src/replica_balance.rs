//! `ReplicaBalance` (replica-balance of conformance/POLICIES.md, tag `replica-balance-v2`) over a
//! `Placement` or `View`, answering with the placement's node ids in the form they were given.

use hrwhash::policy;
use napi::{Env, Result};
use napi_derive::napi;

use crate::js::{self, KeyBuf, Raw};
use crate::policy::ids;
use crate::view::membership;
use crate::{core_error, count_of, key_of, NodeForm};

/// Name and version of the policy `ReplicaBalance` implements.
#[napi]
pub const REPLICA_BALANCE_POLICY: &str = policy::REPLICA_BALANCE_POLICY;

/// Replica sets of `k` nodes whose share of replicas follows the weights, from an exact solver
/// (replica-balance).
#[napi]
pub struct ReplicaBalance {
    inner: policy::ReplicaBalance,
    forms: Vec<NodeForm>,
}

#[napi]
impl ReplicaBalance {
    /// Replica sets of `k` nodes over `placement`.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "placement: Placement<Id> | ViewOf<Id>, k: number"
    )]
    pub fn new(env: Env, placement: Raw, k: Raw) -> Result<ReplicaBalance> {
        let (p, forms) = membership(env, placement, "placement")?;
        let k = count_of(env, k, "k")?;
        let inner = policy::ReplicaBalance::new(p, k).map_err(|e| core_error(env, e))?;
        Ok(ReplicaBalance { inner, forms })
    }

    /// The number of replicas per key.
    #[napi(getter, catch_unwind)]
    pub fn k(&self) -> u32 {
        self.inner.k() as u32
    }

    /// How many times the solver evaluated the inclusion probabilities.
    #[napi(getter, catch_unwind)]
    pub fn iterations(&self) -> u32 {
        self.inner.iterations()
    }

    /// The solver's largest relative distance from a target at its stop.
    #[napi(getter, catch_unwind)]
    pub fn residual(&self) -> f64 {
        self.inner.residual()
    }

    /// The weights that rank positions 2..k, build order.
    #[napi(getter, catch_unwind)]
    pub fn adjusted_weights(&self) -> Vec<f64> {
        self.inner
            .adjusted_weights()
            .iter()
            .map(|w| w.to_f64())
            .collect()
    }

    /// The same weights in fixed point (`w * 2^32`), as
    /// conformance/policies/replica-balance-v2.json states them.
    #[napi(getter, catch_unwind, ts_return_type = "bigint[]")]
    pub fn adjusted_fixed(&self, env: Env) -> Result<Raw> {
        let w = self.inner.adjusted_weights();
        let arr = js::new_array(env, w.len())?;
        for (i, w) in w.iter().enumerate() {
            js::set_element(env, arr, i as u32, js::new_bigint(env, w.to_fixed())?)?;
        }
        Ok(Raw(arr))
    }

    /// The build-order indices of the replica set of `key`, primary first.
    #[napi(catch_unwind, ts_args_type = "key: Key")]
    pub fn replica_indices(&self, env: Env, key: Raw) -> Result<Vec<u32>> {
        let mut buf = KeyBuf::new();
        let key = key_of(env, key, &mut buf, "key")?;
        Ok(self
            .inner
            .replicas(key)
            .into_iter()
            .map(|i| i as u32)
            .collect())
    }

    /// The replica set of `key` as node ids, primary first.
    #[napi(catch_unwind, ts_args_type = "key: Key", ts_return_type = "IdOf<Id>[]")]
    pub fn replicas(&self, env: Env, key: Raw) -> Result<Raw> {
        let mut buf = KeyBuf::new();
        let key = key_of(env, key, &mut buf, "key")?;
        let set = self.inner.replicas(key);
        ids(env, self.inner.placement(), &self.forms, &set).map(Raw)
    }
}
