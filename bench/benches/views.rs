//! Views and transitions: loading and writing a 100,000-node view, and a diff against the two
//! owner lookups it replaces, in one run.
//!
//! Groups: `view/N=100000` (`load`, `write`), `transition/N=1000` (`diff` of `KEYS` keys against
//! `owner-x2`, 2 x `KEYS` owner lookups on the same keys), `live/N=1000` (`KEYS` owner lookups
//! on the view itself, through a `LiveView` one snapshot per key (`owner`, which copies the id),
//! through one snapshot for the batch (`snapshot-owner`), and `route` during a move). Times are
//! per batch.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hrwhash::{LiveView, Node, Placement, Transition, View, Weight};

const KEYS: usize = 4096;

fn fleet(n: usize) -> Placement {
    let nodes = (0..n).map(|i| {
        Node::new(format!("cache-{i:06}.example.internal:11211"))
            .with_weight(Weight::new([1.0, 2.0, 0.5, 1.5][i % 4]).unwrap())
            .with_domain(format!("rack-{}", i % 64))
    });
    Placement::from_nodes(hrwhash::Seed::DEFAULT, nodes).unwrap()
}

fn views(c: &mut Criterion) {
    let text = View::new(fleet(100_000), 7).unwrap().to_json();
    let mut g = c.benchmark_group("view/N=100000");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("load", |b| {
        b.iter(|| View::from_json(black_box(&text)).unwrap())
    });
    let view = View::from_json(&text).unwrap();
    g.bench_function("write", |b| b.iter(|| black_box(&view).to_json()));
    g.finish();
}

fn transition(c: &mut Criterion) {
    let old = Placement::new((0..1000).map(|i| format!("node-{i}"))).unwrap();
    let new = old.with_node(Node::new("node-1000")).unwrap();
    let keys: Vec<String> = (0..KEYS).map(|i| format!("key-{i}")).collect();
    let t = Transition::new(&old, &new);
    let mut g = c.benchmark_group("transition/N=1000");
    g.throughput(Throughput::Elements(KEYS as u64));
    g.bench_function("diff", |b| {
        b.iter(|| {
            let mut d = t.diff();
            d.add_many(black_box(&keys));
            d.moved()
        })
    });
    g.bench_function("owner-x2", |b| {
        b.iter(|| {
            let mut sum = 0usize;
            for k in black_box(&keys) {
                sum += old.owner_index(k) ^ new.owner_index(k);
            }
            sum
        })
    });
    g.finish();
}

fn live(c: &mut Criterion) {
    let old = View::new(fleet(1000), 1).unwrap();
    let new = View::new(
        old.placement().with_node(Node::new("cache-new")).unwrap(),
        2,
    )
    .unwrap();
    let keys: Vec<String> = (0..KEYS).map(|i| format!("key-{i}")).collect();
    let live = LiveView::new(old.clone());
    let mut g = c.benchmark_group("live/N=1000");
    g.throughput(Throughput::Elements(KEYS as u64));
    g.bench_function("view-owner", |b| {
        b.iter(|| {
            let mut sum = 0usize;
            for k in black_box(&keys) {
                sum += old.placement().owner(k).id().len();
            }
            sum
        })
    });
    g.bench_function("owner", |b| {
        b.iter(|| {
            let mut sum = 0usize;
            for k in black_box(&keys) {
                sum += live.owner(k).len();
            }
            sum
        })
    });
    g.bench_function("snapshot-owner", |b| {
        b.iter(|| {
            let s = live.snapshot();
            let mut sum = 0usize;
            for k in black_box(&keys) {
                sum += s.owner(k).id().len();
            }
            sum
        })
    });
    live.update(new).unwrap();
    g.bench_function("route-moving", |b| {
        b.iter(|| {
            let mut moved = 0usize;
            for k in black_box(&keys) {
                moved += live.route(k).moved as usize;
            }
            moved
        })
    });
    g.finish();
}

criterion_group!(benches, views, transition, live);
criterion_main!(benches);
