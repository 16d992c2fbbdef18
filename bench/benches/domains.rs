//! The domains-v1 policy beside plain hrw-v1 lookups on the same zone/rack/host fleets, in one run.
//!
//! Groups `domains/N=<n>`: `hrw-v1 owner`, `domains-v1 owner` (spread level rack),
//! `hrw-v1 rank 3`, `hrw-v1 replicas 3` (SPEC.md 6, the rack as failure domain) and
//! `domains-v1 replicas 3`. Times are per batch of `KEYS` keys.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hrwhash::policy::Domains;
use hrwhash::{Node, Placement};

const KEYS: usize = 256;

/// `zones` x `racks` x `hosts`, one node per host; `rack_only` gives each node its rack as its
/// SPEC.md 6 domain instead of the whole path.
fn fleet(zones: usize, racks: usize, hosts: usize, rack_only: bool) -> Placement {
    let mut nodes = Vec::new();
    for z in 0..zones {
        for r in 0..racks {
            for h in 0..hosts {
                let i = nodes.len();
                let domain = if rack_only {
                    format!("zone-{z}/rack-{r}")
                } else {
                    format!("zone-{z}/rack-{r}/host-{h}")
                };
                nodes.push(Node::new(format!("node-{i}")).with_domain(domain));
            }
        }
    }
    Placement::builder()
        .nodes(nodes)
        .build()
        .expect("valid fleet")
}

fn bench(c: &mut Criterion) {
    let keys: Vec<String> = (0..KEYS).map(|i| format!("user:{i:08}")).collect();
    // N = 100 (2 x 5 x 10) and N = 990 (3 x 10 x 33).
    for (zones, racks, hosts) in [(2, 5, 10), (3, 10, 33)] {
        let plain = fleet(zones, racks, hosts, true);
        let policy = Domains::new(&fleet(zones, racks, hosts, false), 1).expect("valid paths");
        let mut g = c.benchmark_group(format!("domains/N={}", plain.len()));
        g.throughput(Throughput::Elements(KEYS as u64));
        g.warm_up_time(Duration::from_millis(500));
        g.measurement_time(Duration::from_secs(2));
        g.bench_function("hrw-v1 owner", |b| {
            b.iter(|| keys.iter().map(|k| plain.owner_index(k)).sum::<usize>())
        });
        g.bench_function("domains-v1 owner", |b| {
            b.iter(|| keys.iter().map(|k| policy.owner_index(k)).sum::<usize>())
        });
        let mut out = [0usize; 3];
        g.bench_function("hrw-v1 rank 3", |b| {
            b.iter(|| {
                for k in &keys {
                    plain.rank_into(k, &mut out);
                    black_box(&out);
                }
            })
        });
        g.bench_function("hrw-v1 replicas 3", |b| {
            b.iter(|| {
                for k in &keys {
                    plain.replicas_into(k, &mut out);
                    black_box(&out);
                }
            })
        });
        g.bench_function("domains-v1 replicas 3", |b| {
            b.iter(|| {
                for k in &keys {
                    black_box(policy.replica_indices(k, 3).expect("k in range"));
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
