//! Lookups and membership changes on a valid placement, against the plain oracle of
//! `hrwhash_fuzz` (a full sort in SPEC.md order): owner, rank, rank_into, ranking, replicas_into,
//! owners_into, rank_many_into with arbitrary buffer sizes and k; with_node, without_node and
//! with_weight must move keys only to or from the node that changed.
#![no_main]

use arbitrary::{Result, Unstructured};
use hrwhash::{Error, Node, Placement};
use hrwhash_fuzz::{
    buffer_len, build, distinct_below, memberships, node_input, seed_input, small_bytes,
    weight_input, Oracle, MAX_K, MAX_NODES,
};
use libfuzzer_sys::fuzz_target;

fn check_key(u: &mut Unstructured, p: &Placement, o: &Oracle, key: &[u8]) -> Result<()> {
    let want = o.ranking(key);
    let n = want.len();
    assert_eq!(n, p.selectable_len());
    let full: Vec<usize> = p.ranking(key).map(|r| r.index()).collect();
    assert_eq!(full, want, "ranking");
    assert_eq!(p.owner_index(key), want[0], "owner_index");
    assert_eq!(p.owner(key).index(), want[0], "owner");

    let k = u.int_in_range(0..=MAX_K)?;
    let rank: Vec<usize> = p.rank(key, k).iter().map(|r| r.index()).collect();
    assert_eq!(rank, want[..k.min(n)], "rank k={k}");

    let len = buffer_len(u, k.min(n))?;
    let mut out = vec![usize::MAX; len];
    let wrote = p.rank_into(key, &mut out);
    assert_eq!(wrote, len.min(n), "rank_into count");
    assert_eq!(out[..wrote], want[..wrote], "rank_into");
    assert!(
        out[wrote..].iter().all(|&x| x == usize::MAX),
        "rank_into wrote past its count"
    );

    let len = buffer_len(u, k.min(n))?;
    let mut out = vec![usize::MAX; len];
    let wrote = p.replicas_into(key, &mut out);
    assert_eq!(wrote, len.min(n), "replicas_into count");
    assert_eq!(out[..wrote], o.replicas(&want, len), "replicas_into");
    assert!(distinct_below(&out[..wrote], p.len()));
    let replicas: Vec<usize> = p.replicas(key, k).iter().map(|r| r.index()).collect();
    assert_eq!(replicas, o.replicas(&want, k), "replicas");
    Ok(())
}

fn check_batches(u: &mut Unstructured, p: &Placement, o: &Oracle, keys: &[Vec<u8>]) -> Result<()> {
    let n = p.selectable_len();
    let len = buffer_len(u, keys.len())?;
    let mut out = vec![usize::MAX; len];
    match p.owners_into(keys, &mut out) {
        Ok(()) => {
            assert_eq!(len, keys.len());
            for (key, &o) in keys.iter().zip(&out) {
                assert_eq!(o, p.owner_index(key));
            }
        }
        Err(e) => {
            assert_ne!(len, keys.len());
            assert!(matches!(e, Error::LengthMismatch { .. }), "{e:?}");
            assert!(
                out.iter().all(|&x| x == usize::MAX),
                "owners_into wrote on error"
            );
        }
    }
    let k = if u.ratio(1, 16)? {
        usize::MAX - u.int_in_range(0..=2)?
    } else {
        u.int_in_range(0..=MAX_K / 4)?
    };
    let exact = keys.len().checked_mul(k);
    let len = match exact {
        Some(e) if e <= 4 * MAX_K && u.ratio(3, 4)? => e,
        _ => buffer_len(u, 0)?,
    };
    let mut out = vec![usize::MAX; len];
    match p.rank_many_into(keys, k, &mut out) {
        Ok(per_key) => {
            assert_eq!(Some(len), exact);
            assert_eq!(per_key, k.min(n));
            for (key, row) in keys.iter().zip(out.chunks_exact(k.max(1))) {
                let want = o.ranking(key);
                assert_eq!(row[..per_key], want[..per_key], "rank_many_into row");
            }
        }
        Err(e) => {
            assert_ne!(
                Some(len),
                exact,
                "rank_many_into refused a buffer of the right size"
            );
            assert!(!matches!(e, Error::UnknownNode), "{e:?}");
            assert!(
                out.iter().all(|&x| x == usize::MAX),
                "rank_many_into wrote on error"
            );
        }
    }
    Ok(())
}

/// `next` differs from `p` only in the node of id `id`: every key whose owner is not that node,
/// before and after, keeps its owner (by id).
fn moves_only(p: &Placement, next: &Placement, id: &[u8], keys: &[Vec<u8>]) {
    for key in keys {
        let before = p.owner(key).id();
        let after = next.owner(key).id();
        if before != id && after != id {
            assert_eq!(
                before, after,
                "a key moved between two nodes that did not change"
            );
        }
    }
}

fn check_changes(u: &mut Unstructured, p: &Placement, keys: &[Vec<u8>]) -> Result<()> {
    let generated = u.ratio(1, 2)?;
    let added = node_input(u, p.len(), generated)?;
    if let Ok(w) = added.weight.weight() {
        let mut node = Node::new(&added.id).with_weight(w);
        if let Some(d) = &added.domain {
            node = node.with_domain(d);
        }
        match p.with_node(node) {
            Ok(next) => {
                assert_eq!(next.len(), p.len() + 1);
                moves_only(p, &next, &added.id, keys);
            }
            Err(e) => assert!(
                added.id.is_empty() || p.find(&added.id).is_some(),
                "with_node refused a new id: {e:?}"
            ),
        }
    }

    let id = if u.ratio(3, 4)? && !p.is_empty() {
        let i = u.choose_index(p.len())?;
        p.node(i).expect("in range").id().to_vec()
    } else {
        small_bytes(u, 6)?
    };
    let present = p.find(&id).is_some();
    match p.without_node(&id) {
        Ok(next) => {
            assert!(present);
            assert_eq!(next.len(), p.len() - 1);
            assert!(next.find(&id).is_none());
            moves_only(p, &next, &id, keys);
        }
        Err(Error::UnknownNode) => assert!(!present),
        Err(e) => {
            assert!(present);
            let rest = p.node_specs().iter().filter(|n| n.id() != id.as_slice());
            let mut rest = rest.peekable();
            let empty = rest.peek().is_none();
            assert!(
                empty || rest.all(|n| n.weight().is_zero()),
                "without_node refused a removal that leaves a selectable node: {e:?}"
            );
        }
    }

    if let Ok(w) = weight_input(u)?.weight() {
        match p.with_weight(&id, w) {
            Ok(next) => {
                assert!(present);
                assert_eq!(next.find(&id).expect("still there").weight(), w);
                moves_only(p, &next, &id, keys);
            }
            Err(Error::UnknownNode) => assert!(!present),
            Err(Error::AllWeightsZero) => assert!(present && w.is_zero()),
            Err(e) => panic!("with_weight: {e:?}"),
        }
    }
    Ok(())
}

fn run(u: &mut Unstructured) -> Result<()> {
    let seed = seed_input(u)?;
    let nodes = memberships(u, MAX_NODES)?;
    let Ok(p) = build(&seed, &nodes) else {
        return Ok(());
    };
    let keys: Vec<Vec<u8>> = (0..u.int_in_range(1..=8)?)
        .map(|_| small_bytes(u, 12))
        .collect::<Result<_>>()?;
    let oracle = Oracle::new(&p);
    for key in &keys {
        check_key(u, &p, &oracle, key)?;
    }
    check_batches(u, &p, &oracle, &keys)?;
    check_changes(u, &p, &keys)
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
