//! Generator of `conformance/policies/domains.json`: the domains-v1 cases (POLICIES.md, "domains
//! (v1)") every implementation must reproduce. Every input is written out literally or built from
//! fixed formulas, so the file is the same on every run and machine.

use hrwhash::policy::domains::DOMAINS_POLICY;
use hrwhash::policy::Domains;
use hrwhash::{Error, Node, Placement, Seed, Weight};
use serde_json::{json, Map, Value};

use crate::{hex, insert_seed, JsonFile};

const COMMENT: &str = "Conformance cases of the domains-v1 policy (see POLICIES.md, \"domains \
(v1)\"), built on hrw-v1 (SPEC.md). Text that is valid UTF-8 is written as \"id\", \"domain\", \
\"key\"; other bytes as \"id_hex\", \"domain_hex\", \"key_hex\" (lowercase hex). A node's domain is \
its path, levels separated by \"/\"; \"weight\" is a JSON number that parses to the exact binary64 \
(absent: 1). \"seed\" is 32 hex digits (absent: the default seed). \"level\" is the 0-based spread \
level. cases: a membership and level with domain_count (domains of the spread level with weight \
above zero), selectable (nodes with weight above zero) and, per key, \"owner\" and \"replicas\": \
the first k_max nodes of the key's order, as 0-based indices into \"nodes\"; replicas(key, k) for \
every k from 1 to k_max is the first k of them. error_cases: a membership and level that must be \
rejected with \"error\" (a SPEC.md 7 error name, or InvalidDomains with \"index\" (0-based node \
position or null) and \"reason\"), or, when \"k\" is present, a policy that builds and a \
replicas(key, k) call that fails with InvalidReplicaCount and its \"requested\" and \"available\".";

fn text(o: &mut Map<String, Value>, name: &str, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(t) => o.insert(name.into(), t.into()),
        Err(_) => o.insert(format!("{name}_hex"), hex(bytes).into()),
    };
}

fn node_json(n: &Node) -> Value {
    let mut o = Map::new();
    text(&mut o, "id", n.id());
    if n.weight() != Weight::ONE {
        o.insert("weight".into(), json!(n.weight().to_f64()));
    }
    if let Some(d) = n.domain() {
        text(&mut o, "domain", d);
    }
    Value::Object(o)
}

fn keys(extra: usize) -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = ["", "a", "user:42", "session:ÿ", "object-7"]
        .iter()
        .map(|k| k.as_bytes().to_vec())
        .collect();
    keys.push(vec![0xff, 0x00, 0x80]);
    keys.extend((0..extra).map(|i| format!("key-{i}").into_bytes()));
    keys
}

fn node(id: impl AsRef<[u8]>, domain: impl AsRef<[u8]>) -> Node {
    Node::new(id).with_domain(domain)
}

fn weighted(id: &str, w: f64, domain: &str) -> Node {
    node(id, domain).with_weight(Weight::new(w).expect("valid weight"))
}

struct Case {
    name: &'static str,
    seed: Option<Seed>,
    nodes: Vec<Node>,
    level: usize,
    k_max: Option<usize>,
    extra_keys: usize,
}

fn case(name: &'static str, nodes: Vec<Node>, level: usize) -> Case {
    Case {
        name,
        seed: None,
        nodes,
        level,
        k_max: None,
        extra_keys: 24,
    }
}

fn placement(seed: Option<Seed>, nodes: &[Node]) -> Result<Placement, Error> {
    Placement::from_nodes(seed.unwrap_or(Seed::DEFAULT), nodes.to_vec())
}

fn head(o: &mut Map<String, Value>, name: &str, seed: Option<Seed>, nodes: &[Node], level: usize) {
    o.insert("name".into(), name.into());
    insert_seed(o, seed);
    o.insert(
        "nodes".into(),
        nodes.iter().map(node_json).collect::<Vec<_>>().into(),
    );
    o.insert("level".into(), level.into());
}

fn valid_case(c: &Case) -> Value {
    let p = placement(c.seed, &c.nodes).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    let d = Domains::new(&p, c.level).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    let selectable = p.selectable_len();
    let k_max = c.k_max.unwrap_or(selectable).min(selectable);
    let mut o = Map::new();
    head(&mut o, c.name, c.seed, &c.nodes, c.level);
    o.insert("domain_count".into(), d.domain_count().into());
    o.insert("selectable".into(), selectable.into());
    o.insert("k_max".into(), k_max.into());
    let lookups: Vec<Value> = keys(c.extra_keys)
        .iter()
        .map(|key| {
            let replicas = d.replica_indices(key, k_max).expect("k in range");
            // The order is one list: every shorter request is a prefix of it.
            for k in 1..k_max {
                assert_eq!(d.replica_indices(key, k).unwrap(), replicas[..k]);
            }
            assert_eq!(replicas[0], d.owner_index(key));
            let mut l = Map::new();
            text(&mut l, "key", key);
            l.insert("owner".into(), d.owner_index(key).into());
            l.insert("replicas".into(), replicas.into());
            Value::Object(l)
        })
        .collect();
    o.insert("lookups".into(), lookups.into());
    Value::Object(o)
}

/// `zones` zones of `racks` racks of `hosts` hosts, with `disks` nodes per host; ids `n<i>`.
fn tree(zones: usize, racks: usize, hosts: usize, disks: usize) -> Vec<Node> {
    let mut out = Vec::new();
    for z in 0..zones {
        for r in 0..racks {
            for h in 0..hosts {
                for _ in 0..disks {
                    let i = out.len();
                    out.push(node(format!("n{i}"), format!("zone-{z}/rack-{r}/host-{h}")));
                }
            }
        }
    }
    out
}

fn valid_cases() -> Vec<Value> {
    let flat: Vec<Node> = (0..9)
        .map(|i| node(format!("n{i}"), format!("d{}", i % 3)))
        .collect();
    let zr: Vec<Node> = (0..12)
        .map(|i| node(format!("n{i}"), format!("zone-{}/rack-{}", i % 2, i % 3)))
        .collect();
    let small_tree = tree(2, 2, 2, 2);
    let mixed = vec![
        weighted("big", 4.0, "z1/r1"),
        weighted("half", 0.5, "z1/r1"),
        weighted("tenth", 0.1, "z1/r2"),
        weighted("drain-a", 0.0, "z2/r1"),
        weighted("drain-b", 0.0, "z2/r1"),
        weighted("two", 2.0, "z2/r2"),
        weighted("three", 3.0, "z3/r1"),
        weighted("frac", 1.25, "z3/r2"),
        weighted("one", 1.0, "z3/r2"),
    ];
    let mut permuted = mixed.clone();
    permuted.reverse();
    permuted.swap(1, 6);
    let few = vec![
        node("a0", "left"),
        node("a1", "left"),
        node("a2", "left"),
        node("a3", "left"),
        node("b0", "right"),
        node("b1", "right"),
        node("b2", "right"),
    ];
    let bytes = vec![
        node(b"\xff\x01".as_slice(), b"zone-\xff/r".as_slice()),
        node("plain", b"zone-\xff/s".as_slice()),
        node(b"\x00".as_slice(), "zone-\u{e9}/r"),
        node("\u{1F600}", "zone-\u{e9}/s"),
        node("x", "zone-\u{e9}/s"),
    ];
    // Names shared between a node and a domain, and rack names repeated across zones.
    let shared_names = vec![
        node("rack-1", "zone-a/rack-1"),
        node("zone-a", "zone-a/rack-2"),
        node("rack-2", "zone-b/rack-1"),
        node("zone-a/rack-1", "zone-b/rack-2"),
        node("n", "zone-b/rack-2"),
    ];
    let one_domain: Vec<Node> = (0..6).map(|i| node(format!("n{i}"), "all")).collect();
    let mut cases = vec![
        case("flat-3-domains", flat, 0),
        case("zone-rack-level-0", zr.clone(), 0),
        case("zone-rack-level-1", zr, 1),
        case("tree-2x2x2x2-level-0", small_tree.clone(), 0),
        case("tree-2x2x2x2-level-1", small_tree.clone(), 1),
        case("tree-2x2x2x2-level-2", small_tree, 2),
        case("weighted-draining-level-0", mixed.clone(), 0),
        case("weighted-draining-level-1", mixed, 1),
        case("weighted-draining-permuted-level-1", permuted, 1),
        case("fewer-domains-than-k", few, 0),
        case("non-utf8-level-0", bytes.clone(), 0),
        case("non-utf8-level-1", bytes, 1),
        case("names-shared-by-nodes-and-domains", shared_names, 1),
        case("one-domain-is-the-hrw-v1-ranking", one_domain, 0),
    ];
    let mut secret = case("secret-seed", tree(3, 2, 1, 2), 1);
    secret.seed = Some(Seed::from_bytes(*b"not the default!"));
    cases.push(secret);
    // 3 zones x 10 racks x 33 hosts, plus a tenth host on ten racks: 1000 nodes.
    let mut large = tree(3, 10, 33, 1);
    for r in 0..10 {
        let i = large.len();
        large.push(node(
            format!("n{i}"),
            format!("zone-{}/rack-{r}/host-33", r % 3),
        ));
    }
    for (level, name) in [(0, "large-1000-level-0"), (1, "large-1000-level-1")] {
        let mut c = case(name, large.clone(), level);
        c.k_max = Some(5);
        c.extra_keys = 40;
        cases.push(c);
    }
    cases.iter().map(valid_case).collect()
}

fn error_case(name: &str, seed: Option<Seed>, nodes: Vec<Node>, level: usize) -> Value {
    let mut o = Map::new();
    head(&mut o, name, seed, &nodes, level);
    let err = placement(seed, &nodes)
        .and_then(|p| Domains::new(&p, level).map(|_| ()))
        .expect_err(name);
    match err {
        Error::InvalidDomains { index, reason } => {
            o.insert("error".into(), "InvalidDomains".into());
            o.insert("index".into(), json!(index));
            o.insert("reason".into(), reason.name().into());
        }
        other => {
            o.insert("error".into(), error_name(&other).into());
        }
    }
    Value::Object(o)
}

fn error_name(e: &Error) -> &'static str {
    match e {
        Error::EmptyMembership => "EmptyMembership",
        Error::EmptyNodeId { .. } => "EmptyNodeId",
        Error::DuplicateNodeId { .. } => "DuplicateNodeId",
        Error::InvalidWeight { .. } => "InvalidWeight",
        Error::AllWeightsZero => "AllWeightsZero",
        Error::InvalidSeedLength { .. } => "InvalidSeedLength",
        other => panic!("not a membership error: {other}"),
    }
}

fn count_case(name: &str, nodes: Vec<Node>, level: usize, k: usize) -> Value {
    let mut o = Map::new();
    head(&mut o, name, None, &nodes, level);
    let p = placement(None, &nodes).expect(name);
    let d = Domains::new(&p, level).expect(name);
    match d.replica_indices("user:42", k) {
        Err(Error::InvalidReplicaCount {
            requested,
            available,
        }) => {
            o.insert("key".into(), "user:42".into());
            o.insert("k".into(), k.into());
            o.insert("error".into(), "InvalidReplicaCount".into());
            o.insert("requested".into(), requested.into());
            o.insert("available".into(), available.into());
        }
        other => panic!("{name}: {other:?}"),
    }
    Value::Object(o)
}

fn error_cases() -> Vec<Value> {
    let ok = |n: usize| -> Vec<Node> {
        (0..n)
            .map(|i| node(format!("n{i}"), format!("z{}/r{i}", i % 2)))
            .collect()
    };
    let with = |n: usize, i: usize, f: &dyn Fn(Node) -> Node| -> Vec<Node> {
        let mut v = ok(n);
        v[i] = f(v[i].clone());
        v
    };
    let path = |d: &'static str| move |n: Node| node(n.id(), d);
    let mut cases = vec![
        error_case("missing-path", None, with(4, 2, &|n| Node::new(n.id())), 0),
        error_case("empty-path", None, with(4, 1, &path("")), 0),
        error_case("empty-first-level", None, with(4, 1, &path("/r9")), 0),
        error_case("empty-last-level", None, with(4, 3, &path("z0/")), 0),
        error_case("empty-middle-level", None, with(4, 0, &path("z0//r0")), 0),
        error_case("depth-shorter", None, with(4, 2, &path("z0")), 0),
        error_case("depth-longer", None, with(4, 3, &path("z0/r3/h0")), 1),
        error_case("level-equal-to-depth", None, ok(4), 2),
        error_case("level-far-beyond-depth", None, ok(4), 1_000_000),
    ];
    // The checks run in table order, each over every node first.
    let mut v = with(5, 4, &|n| Node::new(n.id()));
    v[1] = node("n1", "z1//r1");
    cases.push(error_case("missing-before-empty-level", None, v, 0));
    let mut v = with(5, 4, &path("z0//r"));
    v[1] = node("n1", "z1");
    cases.push(error_case("empty-level-before-depth", None, v, 0));
    cases.push(error_case(
        "depth-before-level",
        None,
        with(3, 2, &path("z")),
        7,
    ));
    let heavy = |w: f64| move |n: Node| n.with_weight(Weight::new(w).unwrap());
    cases.push(error_case(
        "weight-overflow",
        None,
        with(3, 1, &heavy(4_294_967_295.0)),
        0,
    ));
    let mut v = ok(4);
    for (i, n) in v.iter_mut().enumerate() {
        *n = n
            .clone()
            .with_weight(Weight::new(1_500_000_000.0 + i as f64).unwrap());
    }
    cases.push(error_case("weight-overflow-at-third-node", None, v, 0));
    cases.push(error_case(
        "level-before-weight-overflow",
        None,
        with(3, 1, &heavy(4_294_967_295.0)),
        2,
    ));
    // Membership errors of SPEC.md 7 come first.
    let mut v = with(3, 2, &|n| Node::new(n.id()));
    v[1] = node("n0", "z1/r1");
    cases.push(error_case("duplicate-id-before-paths", None, v, 0));
    cases.push(error_case("empty-membership", None, Vec::new(), 0));
    let drained = |n: Node| n.with_weight(Weight::ZERO);
    let all_zero: Vec<Node> = ok(2).into_iter().map(drained).collect();
    cases.push(error_case("all-weights-zero", None, all_zero, 0));
    // A draining node still needs a path.
    cases.push(error_case(
        "draining-node-without-path",
        None,
        with(3, 0, &|n| Node::new(n.id()).with_weight(Weight::ZERO)),
        0,
    ));
    let draining = with(4, 3, &drained);
    cases.push(count_case("k-zero", ok(4), 1, 0));
    cases.push(count_case("k-above-nodes", ok(4), 1, 5));
    cases.push(count_case("k-above-selectable", draining, 0, 4));
    cases
}

/// The whole file.
pub fn generate() -> String {
    JsonFile::new()
        .raw("version", 1)
        .string("policy", DOMAINS_POLICY)
        .string("algorithm", "hrw-v1")
        .string("_comment", COMMENT)
        .default_seed()
        .section("cases", &valid_cases())
        .section("error_cases", &error_cases())
        .finish()
}
