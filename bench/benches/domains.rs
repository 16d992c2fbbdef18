//! The domains-v1 policy beside plain hrw-v1 lookups on the same zone/rack/host fleets, in one run.
//!
//! Groups `domains/<zones>x<racks>x<hosts>`: `hrw-v1 owner`, `domains-v1 owner` spreading over
//! zones and over racks, `hrw-v1 rank 3`, `hrw-v1 replicas 3` (SPEC.md 6, the spread domain as
//! the node's failure domain) and `domains-v1 replicas 3` over zones and over racks. Times are per
//! batch of `KEYS` keys, so that the ratios between rows of one group are what to read.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use hrwhash::policy::Domains;
use hrwhash::{Node, Placement};

const KEYS: usize = 256;

/// The spread levels measured: the 0-based level of the path and its name.
const LEVELS: [(usize, &str); 2] = [(0, "zone"), (1, "rack")];

/// `zones` x `racks` x `hosts`, one node per host, each node's domain its path cut after `depth`
/// levels (1: zone, 2: zone/rack, 3: zone/rack/host).
fn fleet(zones: usize, racks: usize, hosts: usize, depth: usize) -> Placement {
    let mut nodes = Vec::new();
    for z in 0..zones {
        for r in 0..racks {
            for h in 0..hosts {
                let i = nodes.len();
                let levels = [
                    format!("zone-{z}"),
                    format!("rack-{r}"),
                    format!("host-{h}"),
                ];
                let domain = levels[..depth].join("/");
                nodes.push(Node::new(format!("node-{i}")).with_domain(domain));
            }
        }
    }
    Placement::from_nodes(hrwhash::Seed::DEFAULT, nodes).expect("valid fleet")
}

fn settle<M: criterion::measurement::Measurement>(g: &mut BenchmarkGroup<'_, M>) {
    g.throughput(Throughput::Elements(KEYS as u64));
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
}

fn bench(c: &mut Criterion) {
    let keys: Vec<String> = (0..KEYS).map(|i| format!("user:{i:08}")).collect();
    // 300 nodes (3 zones x 10 racks x 10 hosts) and 1,000 (4 x 10 x 25).
    for (zones, racks, hosts) in [(3, 10, 10), (4, 10, 25)] {
        let paths = fleet(zones, racks, hosts, 3);
        let mut g = c.benchmark_group(format!("domains/{zones}x{racks}x{hosts}"));
        settle(&mut g);
        // Plain hrw-v1 ignores domains in owner and rank, so one membership serves both.
        g.bench_function("hrw-v1 owner", |b| {
            b.iter(|| keys.iter().map(|k| paths.owner_index(k)).sum::<usize>())
        });
        let mut out = [0usize; 3];
        g.bench_function("hrw-v1 rank 3", |b| {
            b.iter(|| {
                for k in &keys {
                    paths.rank_into(k, &mut out);
                    black_box(&out);
                }
            })
        });
        for (level, name) in LEVELS {
            let policy = Domains::new(&paths, level).expect("valid paths");
            // SPEC.md 6 spreads over whole domain strings: give each node the spread domain.
            let flat = fleet(zones, racks, hosts, level + 1);
            g.bench_function(format!("domains-v1 owner, {name}s"), |b| {
                b.iter(|| keys.iter().map(|k| policy.owner_index(k)).sum::<usize>())
            });
            g.bench_function(format!("hrw-v1 replicas 3, {name}s"), |b| {
                b.iter(|| {
                    for k in &keys {
                        flat.replicas_into(k, &mut out);
                        black_box(&out);
                    }
                })
            });
            g.bench_function(format!("domains-v1 replicas 3, {name}s"), |b| {
                b.iter(|| {
                    for k in &keys {
                        policy.replicas_into(k, &mut out).expect("k in range");
                        black_box(&out);
                    }
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
