//! Kubernetes EndpointSlices (discovery.k8s.io/v1) -> a view, for a publisher (LIVE.md,
//! "Kubernetes EndpointSlice -> view"). Nothing here talks to a cluster: a controller lists or
//! watches the service's slices (`kubectl get endpointslices -l kubernetes.io/service-name=NAME
//! -o json`, or an informer), converts them with [`endpoint_slices_to_view`] and publishes the
//! view ([`crate::Publisher`]); the publisher's epoch rule makes repeated publishes of one
//! membership a no-op.

use std::collections::BTreeMap;

use hrwhash::{Error as CoreError, Node, Placement, Seed, View, ViewFault, Weight};
use serde_json::Value;

use crate::Error;

/// The label that joins a slice to its service.
pub const SERVICE_LABEL: &str = "kubernetes.io/service-name";

/// How endpoints become members.
#[derive(Clone, Debug)]
pub struct SliceOptions {
    /// The service whose slices are read (label `kubernetes.io/service-name`).
    pub service: String,
    /// When given, node ids are `address:port` with the port of this name (`[address]:port` for
    /// an IPv6 address); a slice without a port of this name contributes no member.
    pub port_name: Option<String>,
    /// The weight of a ready endpoint (default 1).
    pub weight: f64,
    /// The epoch of the view.
    pub epoch: u64,
    /// The seed of the view.
    pub seed: Seed,
}

impl SliceOptions {
    /// Ready endpoints of `service` at weight 1, ids without a port, epoch 0, the default seed.
    pub fn new(service: impl Into<String>) -> SliceOptions {
        SliceOptions {
            service: service.into(),
            port_name: None,
            weight: 1.0,
            epoch: 0,
            seed: Seed::DEFAULT,
        }
    }
}

fn wrong(field: &str, index: Option<usize>) -> Error {
    Error::View(CoreError::InvalidView {
        field: field.into(),
        index,
        reason: ViewFault::WrongType,
    })
}

/// The view of a service's endpoints. `document` is a JSON list of EndpointSlice objects or a
/// `{"items": [...]}` list (what `kubectl get -o json` prints). Each endpoint of a slice labelled
/// with the service: node id = its first address (or `address:port`); ready (or no `ready`
/// condition) -> weight `options.weight`; not ready but serving and terminating -> weight 0
/// (draining); otherwise left out; `zone` -> failure domain. An address in several slices is one
/// member, ready over draining. Errors: `InvalidJson` (not JSON), `InvalidView` (`field` names
/// the member of the wrong type: `items`, `endpoints`, `addresses`, `ports`, `conditions`,
/// `zone`; `index` the slice), `InvalidWeight`, `EmptyMembership` (no endpoint of the service),
/// `AllWeightsZero` (every endpoint draining).
pub fn endpoint_slices_to_view(document: &[u8], options: &SliceOptions) -> Result<View, Error> {
    let value: Value = serde_json::from_slice(document).map_err(|e| {
        Error::View(CoreError::InvalidJson {
            line: e.line().max(1),
            column: e.column().max(1),
        })
    })?;
    let weight = Weight::new(options.weight)?;
    let slices = match &value {
        Value::Array(a) => a,
        Value::Object(o) => match o.get("items") {
            Some(Value::Array(a)) => a,
            _ => return Err(wrong("items", None)),
        },
        _ => return Err(wrong("items", None)),
    };
    // id -> (ready, zone), first seen order kept only for ties of readiness.
    let mut members: BTreeMap<String, (bool, Option<String>)> = BTreeMap::new();
    for (i, slice) in slices.iter().enumerate() {
        let Some(slice) = slice.as_object() else {
            return Err(wrong("items", Some(i)));
        };
        let label = slice
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .and_then(|l| l.get(SERVICE_LABEL))
            .and_then(Value::as_str);
        if label != Some(options.service.as_str()) {
            continue;
        }
        let port = match &options.port_name {
            None => None,
            Some(name) => {
                let ports = match slice.get("ports") {
                    None | Some(Value::Null) => &Vec::new(),
                    Some(Value::Array(p)) => p,
                    Some(_) => return Err(wrong("ports", Some(i))),
                };
                let found = ports
                    .iter()
                    .find(|p| p.get("name").and_then(Value::as_str).unwrap_or("") == name.as_str());
                match found.and_then(|p| p.get("port")).and_then(Value::as_u64) {
                    Some(port) => Some(port),
                    None => continue,
                }
            }
        };
        let endpoints = match slice.get("endpoints") {
            None | Some(Value::Null) => continue,
            Some(Value::Array(e)) => e,
            Some(_) => return Err(wrong("endpoints", Some(i))),
        };
        for endpoint in endpoints {
            let Some(endpoint) = endpoint.as_object() else {
                return Err(wrong("endpoints", Some(i)));
            };
            let Some(Value::Array(addresses)) = endpoint.get("addresses") else {
                return Err(wrong("addresses", Some(i)));
            };
            let Some(first) = addresses.first() else {
                continue;
            };
            let Some(address) = first.as_str() else {
                return Err(wrong("addresses", Some(i)));
            };
            let condition = |name: &str| -> Result<Option<bool>, Error> {
                match endpoint.get("conditions") {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::Object(c)) => match c.get(name) {
                        None | Some(Value::Null) => Ok(None),
                        Some(Value::Bool(b)) => Ok(Some(*b)),
                        Some(_) => Err(wrong("conditions", Some(i))),
                    },
                    Some(_) => Err(wrong("conditions", Some(i))),
                }
            };
            let ready = condition("ready")?.unwrap_or(true);
            let draining = !ready
                && condition("serving")? == Some(true)
                && condition("terminating")? == Some(true);
            if !ready && !draining {
                continue;
            }
            let zone = match endpoint.get("zone") {
                None | Some(Value::Null) => None,
                Some(Value::String(z)) => Some(z.clone()),
                Some(_) => return Err(wrong("zone", Some(i))),
            };
            let id = match port {
                None => address.to_string(),
                Some(p) if address.contains(':') => format!("[{address}]:{p}"),
                Some(p) => format!("{address}:{p}"),
            };
            let entry = members.entry(id).or_insert((ready, zone.clone()));
            if ready && !entry.0 {
                *entry = (true, zone);
            }
        }
    }
    let nodes = members
        .into_iter()
        .map(|(id, (ready, zone))| {
            let node = Node::new(id).with_weight(if ready { weight } else { Weight::ZERO });
            match zone {
                Some(z) => node.with_domain(z),
                None => node,
            }
        })
        .collect();
    let placement = Placement::from_nodes(options.seed, nodes)?;
    Ok(View::new(placement, options.epoch)?)
}
