//! `hrwhash view from-endpointslices`: the view of a Kubernetes service's endpoints, from its
//! EndpointSlices as `kubectl get endpointslices -o json` prints them (LIVE.md, "Kubernetes
//! EndpointSlice -> view"). A controller runs it on every change of the slices and pipes the view
//! to `hrwhash view publish`, whose epoch rule makes an unchanged membership a no-op.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::Path;

use hrwhash_live::{endpoint_slices_to_view, SliceOptions};

use super::live::from_live;
use super::value::COUNT;
use crate::error::CliError;
use crate::input::parse_seed;

#[derive(clap::Args)]
pub struct Args {
    /// The EndpointSlice list (JSON: a list of slices or `{"items": [...]}`); `-` reads stdin.
    #[arg(value_name = "FILE")]
    input: OsString,
    /// The service (label kubernetes.io/service-name) whose endpoints are the members.
    #[arg(long, value_name = "NAME")]
    service: String,
    /// Node ids are ADDRESS:PORT with the slice's port of this name (default: the address).
    #[arg(long, value_name = "NAME")]
    port_name: Option<String>,
    /// The weight of a ready endpoint (a draining one has weight 0).
    #[arg(
        long,
        value_name = "W",
        default_value = "1",
        allow_hyphen_values = true
    )]
    weight: f64,
    /// The epoch of the view (a floor when it is published).
    #[arg(long, value_name = "N", default_value = "0", allow_hyphen_values = true, value_parser = COUNT)]
    epoch: u64,
    /// The secret seed of the view, 32 hex digits (default: the public hrw-v1 seed).
    #[arg(long, value_name = "HEX")]
    seed: Option<String>,
}

pub fn run(a: &Args, out: &mut dyn Write) -> Result<(), CliError> {
    let seed = parse_seed(a.seed.as_deref())?;
    let shown = if a.input == "-" {
        "stdin".to_string()
    } else {
        Path::new(&a.input).display().to_string()
    };
    let bytes = if a.input == "-" {
        hrwhash::view::read_document(std::io::stdin().take(hrwhash::view::MAX_DOCUMENT_BYTES + 1))
    } else {
        std::fs::File::open(&a.input).and_then(hrwhash::view::read_document)
    }
    .map_err(|e| CliError::Input(format!("{shown}: {e}")))?
    .map_err(|e| from_live(e.into(), &shown))?;
    let options = SliceOptions {
        service: a.service.clone(),
        port_name: a.port_name.clone(),
        weight: a.weight,
        epoch: a.epoch,
        seed,
    };
    let view = endpoint_slices_to_view(&bytes, &options).map_err(|e| match e {
        // The index of a slice's fault is the slice's position in the list, not a node's.
        hrwhash_live::Error::View(hrwhash::Error::InvalidView { field, index, .. }) => {
            CliError::input(
                "InvalidView",
                format!(
                    "{shown}: {}member \"{field}\" has the wrong JSON type for an EndpointSlice list",
                    index.map_or_else(String::new, |i| format!("items[{i}]: "))
                ),
            )
        }
        e => from_live(e, &shown),
    })?;
    out.write_all(view.to_json().as_bytes())?;
    Ok(())
}
