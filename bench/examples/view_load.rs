//! Loads a 100,000-node view (8 MB of JSON) REPS times, for `/usr/bin/time` (CPU time per load
//! is (user time with REPS - user time with 0) / REPS):
//!
//!     cargo run --release -p hrwhash-bench --example view_load -- 10

use hrwhash::{Node, Placement, View, Weight};
use std::time::Instant;
fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(0);
    let nodes: Vec<Node> = (0..100_000)
        .map(|i| {
            Node::new(format!("cache-{i:06}.example.internal:11211"))
                .with_weight(Weight::new([1.0, 2.0, 0.5, 1.5][i % 4]).unwrap())
                .with_domain(format!("rack-{}", i % 64))
        })
        .collect();
    let text = View::new(
        Placement::from_nodes(hrwhash::Seed::DEFAULT, nodes).unwrap(),
        7,
    )
    .unwrap()
    .to_json();
    let t = Instant::now();
    for _ in 0..reps {
        std::hint::black_box(View::from_json(&text).unwrap());
    }
    eprintln!(
        "{} bytes, {reps} loads, wall {:?} per load",
        text.len(),
        t.elapsed() / reps.max(1) as u32
    );
}
