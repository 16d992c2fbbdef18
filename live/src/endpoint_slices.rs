//! Kubernetes EndpointSlices (discovery.k8s.io/v1) -> a view, for a publisher (LIVE.md,
//! "Kubernetes EndpointSlice -> view"). Nothing here talks to a cluster: a controller lists or
//! watches the service's slices (`kubectl get endpointslices -l kubernetes.io/service-name=NAME
//! -o json`, or an informer), converts them with [`endpoint_slices_to_view`] and publishes the
//! view ([`crate::Publisher`]); the publisher's epoch rule makes repeated publishes of one
//! membership a no-op.

use std::collections::BTreeMap;

use hrwhash::{Error as CoreError, Fault, Node, Placement, Seed, View, Weight};
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
    /// a slice whose `addressType` is `IPv6`); a slice without a port of this name contributes
    /// no member.
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
        reason: Fault::WrongType,
    })
}

/// The view of a service's endpoints (conformance/LIVE-VIEW.md section 8). `document` is a JSON
/// list of EndpointSlice objects or a `{"items": [...]}` list (what `kubectl get -o json`
/// prints). Each endpoint of a slice labelled with the service: node id = its first address (with
/// a port name, `address:port`, `[address]:port` for an `IPv6` slice); ready (or no `ready`
/// condition) -> weight `options.weight`; not ready but serving and terminating -> weight 0
/// (draining); otherwise left out; `zone` -> failure domain. An id found more than once is one
/// node: ready over draining, else the first. Errors: `InvalidJson` (not JSON), `InvalidView`
/// (`field` names the member of the wrong type, `index` the slice), `InvalidWeight`,
/// `EmptyMembership` (no endpoint of the service), `AllWeightsZero` (every endpoint draining).
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
    // Ids in input order, each with whether it is ready and its zone.
    let mut order: Vec<(String, bool, Option<String>)> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, slice) in slices.iter().enumerate() {
        let Some(slice) = slice.as_object() else {
            return Err(wrong("items", Some(i)));
        };
        let at = Some(i);
        let labels = match member(slice, "metadata") {
            None => None,
            Some(Value::Object(m)) => match member(m, "labels") {
                None => None,
                Some(Value::Object(l)) => Some(l),
                Some(_) => return Err(wrong("labels", at)),
            },
            Some(_) => return Err(wrong("metadata", at)),
        };
        let label = match labels.and_then(|l| member(l, SERVICE_LABEL)) {
            None => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => return Err(wrong(SERVICE_LABEL, at)),
        };
        if label != Some(options.service.as_str()) {
            continue;
        }
        let ipv6 = match member(slice, "addressType") {
            None => false,
            Some(Value::String(t)) => t == "IPv6",
            Some(_) => return Err(wrong("addressType", at)),
        };
        let port = match &options.port_name {
            None => None,
            Some(name) => match slice_port(slice, name, at)? {
                Some(p) => Some(p),
                None => continue,
            },
        };
        let endpoints = match member(slice, "endpoints") {
            None => continue,
            Some(Value::Array(e)) => e,
            Some(_) => return Err(wrong("endpoints", at)),
        };
        for endpoint in endpoints {
            let Some(endpoint) = endpoint.as_object() else {
                return Err(wrong("endpoints", at));
            };
            let address = match member(endpoint, "addresses") {
                None => None,
                Some(Value::Array(a)) => {
                    if a.iter().any(|x| !x.is_string()) {
                        return Err(wrong("addresses", at));
                    }
                    a.first().and_then(Value::as_str)
                }
                Some(_) => return Err(wrong("addresses", at)),
            };
            let conditions = match member(endpoint, "conditions") {
                None => None,
                Some(Value::Object(c)) => Some(c),
                Some(_) => return Err(wrong("conditions", at)),
            };
            let condition = |name: &str| -> Result<Option<bool>, Error> {
                match conditions.and_then(|c| member(c, name)) {
                    None => Ok(None),
                    Some(Value::Bool(b)) => Ok(Some(*b)),
                    Some(_) => Err(wrong(name, at)),
                }
            };
            let (ready, serving, terminating) = (
                condition("ready")?,
                condition("serving")?,
                condition("terminating")?,
            );
            let zone = match member(endpoint, "zone") {
                None => None,
                Some(Value::String(z)) => Some(z.clone()),
                Some(_) => return Err(wrong("zone", at)),
            };
            let Some(address) = address else {
                continue;
            };
            let ready = ready.unwrap_or(true);
            let draining = !ready && serving == Some(true) && terminating == Some(true);
            if !ready && !draining {
                continue;
            }
            let id = match port {
                None => address.to_string(),
                Some(p) if ipv6 => format!("[{address}]:{p}"),
                Some(p) => format!("{address}:{p}"),
            };
            match seen.get(&id) {
                None => {
                    seen.insert(id.clone(), order.len());
                    order.push((id, ready, zone));
                }
                Some(&k) if ready && !order[k].1 => order[k] = (id, true, zone),
                Some(_) => {}
            }
        }
    }
    let nodes: Vec<_> = order
        .into_iter()
        .map(|(id, ready, zone)| {
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

/// A member, `null` read as absent.
fn member<'a>(object: &'a serde_json::Map<String, Value>, name: &str) -> Option<&'a Value> {
    object.get(name).filter(|v| !v.is_null())
}

/// The number of the slice's port named `name` (an unnamed port is `""`), or `None` when the
/// slice has no such port with a number.
fn slice_port(
    slice: &serde_json::Map<String, Value>,
    name: &str,
    at: Option<usize>,
) -> Result<Option<u64>, Error> {
    let ports = match member(slice, "ports") {
        None => return Ok(None),
        Some(Value::Array(p)) => p,
        Some(_) => return Err(wrong("ports", at)),
    };
    let mut found = None;
    for port in ports {
        let Some(port) = port.as_object() else {
            return Err(wrong("ports", at));
        };
        let port_name = match member(port, "name") {
            None => "",
            Some(Value::String(n)) => n.as_str(),
            Some(_) => return Err(wrong("name", at)),
        };
        let number = match member(port, "port") {
            None => None,
            Some(v) => match v.as_u64().filter(|p| *p <= 65_535) {
                Some(p) => Some(p),
                None => return Err(wrong("port", at)),
            },
        };
        if found.is_none() && port_name == name {
            if let Some(n) = number {
                found = Some(n);
            }
        }
    }
    Ok(found)
}
