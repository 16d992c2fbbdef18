//! Sources and publishing against a real etcd (Debian's etcd-server) on loopback.

mod support;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use hrwhash::{Node, Placement, Seed, View, Weight};
use hrwhash_live::etcd::{Etcd, Expect, WatchMessage};
use hrwhash_live::{Error, EtcdSource, Event, Observer, Published, Publisher};
use support::{eventually, EtcdServer};

/// A view of nodes `n0 .. n{count-1}`, node 0 at `weight`.
fn fleet(count: usize, weight: f64, epoch: u64) -> View {
    let nodes: Vec<_> = (0..count)
        .map(|i| {
            let n = Node::new(format!("n{i}"));
            if i == 0 {
                n.with_weight(Weight::new(weight).unwrap())
            } else {
                n
            }
        })
        .collect();
    View::new(Placement::from_nodes(Seed::DEFAULT, nodes).unwrap(), epoch).unwrap()
}

/// What an observer saw, as (event, kind, epoch).
type Seen = Arc<Mutex<Vec<(String, String, Option<u64>)>>>;

fn recorder() -> (Observer, Seen) {
    let seen: Seen = Arc::default();
    let s = seen.clone();
    let observer: Observer = Arc::new(move |e: &Event<'_>| {
        let row = match e {
            Event::Applied { epoch } => ("applied".into(), String::new(), Some(*epoch)),
            Event::Unchanged { epoch } => ("unchanged".into(), String::new(), Some(*epoch)),
            Event::Refused { error, epoch } => ("refused".into(), error.kind_name().into(), *epoch),
            Event::SourceError { error } => ("source_error".into(), error.kind_name().into(), None),
        };
        s.lock().unwrap().push(row);
    });
    (observer, seen)
}

fn count(seen: &Seen, event: &str, kind: &str) -> usize {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|(e, k, _)| e == event && (kind.is_empty() || k == kind))
        .count()
}

#[test]
fn publishing_assigns_epochs_and_skips_unchanged_memberships() {
    let Some(etcd) = EtcdServer::start("rules") else {
        return;
    };
    let p = Publisher::etcd(&etcd.endpoint(), "/views/rules").unwrap();
    // Absent key: the offered epoch, or 1 for 0.
    assert_eq!(
        p.publish(&fleet(5, 1.0, 0)).unwrap(),
        Published::Written { epoch: 1 }
    );
    // Same membership at any epoch: nothing written.
    assert_eq!(
        p.publish(&fleet(5, 1.0, 40)).unwrap(),
        Published::Unchanged { epoch: 1 }
    );
    // A change: stored + 1, whatever was offered below it.
    assert_eq!(
        p.publish(&fleet(6, 1.0, 0)).unwrap(),
        Published::Written { epoch: 2 }
    );
    // The offered epoch is a floor.
    assert_eq!(
        p.publish(&fleet(5, 1.0, 10)).unwrap(),
        Published::Written { epoch: 10 }
    );
    let client = Etcd::new(&etcd.endpoint()).unwrap();
    let stored = client.get(b"/views/rules").unwrap().stored.unwrap();
    let view = View::from_json_bytes(&stored.value, Seed::DEFAULT).unwrap();
    assert_eq!(view.epoch(), 10);
    assert_eq!(view.fingerprint(), fleet(5, 1.0, 0).fingerprint());

    // What the publisher cannot read it does not overwrite.
    client.put(b"/views/garbage", b"not a view").unwrap();
    let p = Publisher::etcd(&etcd.endpoint(), "/views/garbage").unwrap();
    let err = p.publish(&fleet(5, 1.0, 0)).unwrap_err();
    assert_eq!(err.kind_name(), "InvalidJson", "{err}");
    let secret =
        Placement::from_nodes(Seed::from_bytes(*b"0123456789abcdef"), [Node::new("x")]).unwrap();
    client
        .put(
            b"/views/secret",
            View::new(secret, 3).unwrap().to_json().as_bytes(),
        )
        .unwrap();
    let p = Publisher::etcd(&etcd.endpoint(), "/views/secret").unwrap();
    assert_eq!(
        p.publish(&fleet(5, 1.0, 0)).unwrap_err().kind_name(),
        "SeedMismatch"
    );
}

#[test]
fn two_racing_publishers_never_issue_one_epoch_twice() {
    let Some(etcd) = EtcdServer::start("race") else {
        return;
    };
    let endpoint = etcd.endpoint();
    let per_publisher = 25;
    let publishers: Vec<_> = (0..2)
        .map(|who| {
            let endpoint = endpoint.clone();
            std::thread::spawn(move || {
                let p = Publisher::etcd(&endpoint, "/views/race").unwrap();
                let mut epochs = Vec::new();
                for i in 0..per_publisher {
                    // Each publisher's memberships differ from the other's and from its own
                    // previous one, so every publish writes.
                    let view = fleet(3 + who, 1.0 + i as f64 / 64.0, 0);
                    match p.publish(&view).unwrap() {
                        Published::Written { epoch } => epochs.push(epoch),
                        Published::Unchanged { .. } => {
                            panic!("a changed membership was not written")
                        }
                    }
                }
                epochs
            })
        })
        .collect();
    let results: Vec<Vec<u64>> = publishers.into_iter().map(|t| t.join().unwrap()).collect();
    let mut all = BTreeSet::new();
    for epochs in &results {
        assert!(epochs.windows(2).all(|w| w[0] < w[1]), "{epochs:?}");
        for e in epochs {
            assert!(all.insert(*e), "epoch {e} issued twice: {results:?}");
        }
    }
    assert_eq!(all.len(), 2 * per_publisher);
    let stored = Etcd::new(&endpoint)
        .unwrap()
        .get(b"/views/race")
        .unwrap()
        .stored
        .unwrap();
    let view = View::from_json_bytes(&stored.value, Seed::DEFAULT).unwrap();
    assert_eq!(view.epoch(), *all.last().unwrap());
}

#[test]
fn the_watch_sees_every_publish_in_order() {
    let Some(etcd) = EtcdServer::start("watch") else {
        return;
    };
    let p = Publisher::etcd(&etcd.endpoint(), "/views/w").unwrap();
    p.publish(&fleet(5, 1.0, 1)).unwrap();
    let (observer, seen) = recorder();
    let follower = EtcdSource::new(&etcd.endpoint(), "/views/w")
        .unwrap()
        .observer(observer)
        .start()
        .unwrap();
    assert_eq!(follower.live().epoch(), 1);
    let mut published = Vec::new();
    for i in 0..30 {
        let view = fleet(5 + i % 2, 1.0 + (i + 1) as f64 / 8.0, 0);
        match p.publish(&view).unwrap() {
            Published::Written { epoch } => published.push(epoch),
            Published::Unchanged { .. } => panic!("a changed membership was not written"),
        }
    }
    let last = *published.last().unwrap();
    // The observer hears of a view after the live view took it: wait for the last report too.
    assert!(eventually(
        || follower.live().epoch() == last && count(&seen, "applied", "") == published.len()
    ));
    let applied: Vec<u64> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(e, _, _)| e == "applied")
        .filter_map(|(_, _, epoch)| *epoch)
        .collect();
    assert_eq!(applied, published);
    assert_eq!(count(&seen, "refused", ""), 0);
    assert_eq!(count(&seen, "source_error", ""), 0);
    follower.stop();
}

#[test]
fn forged_and_stale_documents_are_refused_with_their_kind() {
    let Some(etcd) = EtcdServer::start("forged") else {
        return;
    };
    let client = Etcd::new(&etcd.endpoint()).unwrap();
    let p = Publisher::etcd(&etcd.endpoint(), "/views/f").unwrap();
    p.publish(&fleet(5, 1.0, 7)).unwrap();
    let (observer, seen) = recorder();
    let follower = EtcdSource::new(&etcd.endpoint(), "/views/f")
        .unwrap()
        .observer(observer)
        .start()
        .unwrap();
    let live = follower.live().clone();
    let fingerprint = live.fingerprint();
    let secret = Placement::from_nodes(
        Seed::from_bytes(*b"0123456789abcdef"),
        (0..5).map(|i| Node::new(format!("n{i}"))),
    )
    .unwrap();
    let forgeries: [(&str, Vec<u8>); 4] = [
        ("StaleView", fleet(6, 1.0, 3).to_json().into_bytes()),
        (
            "SeedMismatch",
            View::new(secret, 8).unwrap().to_json().into_bytes(),
        ),
        ("ViewConflict", fleet(6, 1.0, 7).to_json().into_bytes()),
        ("InvalidJson", b"{\"format\": ".to_vec()),
    ];
    for (i, (kind, doc)) in forgeries.iter().enumerate() {
        client.put(b"/views/f", doc).unwrap();
        assert!(
            eventually(|| count(&seen, "refused", kind) == 1),
            "{kind} not refused: {:?}",
            seen.lock().unwrap()
        );
        assert_eq!(count(&seen, "refused", ""), i + 1);
        assert_eq!(live.epoch(), 7);
        assert_eq!(live.fingerprint(), fingerprint);
        assert_eq!(live.last_error().unwrap().kind().name(), *kind);
    }
    assert_eq!(count(&seen, "applied", ""), 0);
    // A real publish after the forgeries (whose stored epoch is a floor of its own) applies.
    client
        .put(b"/views/f", fleet(5, 1.0, 7).to_json().as_bytes())
        .unwrap();
    assert!(eventually(|| count(&seen, "unchanged", "") == 1));
    assert!(live.last_error().is_none());
    let next = p.publish(&fleet(6, 1.0, 0)).unwrap().epoch();
    assert_eq!(next, 8);
    assert!(eventually(|| live.epoch() == 8));
    follower.stop();
}

#[test]
fn a_compacted_watch_recovers_with_a_full_read() {
    let Some(etcd) = EtcdServer::start("compact") else {
        return;
    };
    let client = Etcd::new(&etcd.endpoint()).unwrap();
    let p = Publisher::etcd(&etcd.endpoint(), "/views/c").unwrap();
    p.publish(&fleet(5, 1.0, 1)).unwrap();
    let old_revision = client.get(b"/views/c").unwrap().revision;
    for i in 0..5 {
        p.publish(&fleet(5, 2.0 + i as f64, 0)).unwrap();
    }
    let now = client.get(b"/views/c").unwrap().revision;
    client.compact(now).unwrap();
    // The client itself: a watch from before the compaction is canceled with its revision.
    let mut w = client.watch(b"/views/c", old_revision, 30).unwrap();
    let message = loop {
        match w.next_message().unwrap() {
            WatchMessage::Created => continue,
            m => break m,
        }
    };
    assert!(
        matches!(message, WatchMessage::Canceled { compact_revision: Some(r), .. } if r == now),
        "{message:?}"
    );
    // A source whose watch starts there reads the key again and watches from the present.
    let (observer, seen) = recorder();
    let follower = EtcdSource::new(&etcd.endpoint(), "/views/c")
        .unwrap()
        .observer(observer)
        .first_watch_from(old_revision)
        .start()
        .unwrap();
    assert_eq!(follower.live().epoch(), 6);
    assert!(eventually(|| count(&seen, "source_error", "Io") >= 1));
    assert!(
        eventually(|| count(&seen, "unchanged", "") >= 1),
        "{:?}",
        seen.lock().unwrap()
    );
    let next = p.publish(&fleet(6, 1.0, 0)).unwrap().epoch();
    assert!(eventually(|| follower.live().epoch() == next));
    follower.stop();
}

#[test]
fn a_killed_etcd_leaves_the_last_view_and_the_source_resumes() {
    let Some(mut etcd) = EtcdServer::start("kill") else {
        return;
    };
    let p = Publisher::etcd(&etcd.endpoint(), "/views/k").unwrap();
    p.publish(&fleet(5, 1.0, 1)).unwrap();
    let (observer, seen) = recorder();
    let follower = EtcdSource::new(&etcd.endpoint(), "/views/k")
        .unwrap()
        .observer(observer)
        .start()
        .unwrap();
    let live = follower.live().clone();
    assert_eq!(p.publish(&fleet(6, 1.0, 0)).unwrap().epoch(), 2);
    assert!(eventually(|| live.epoch() == 2));
    let fingerprint = live.fingerprint();
    etcd.kill();
    assert!(eventually(|| count(&seen, "source_error", "Io") >= 2));
    assert_eq!(live.epoch(), 2);
    assert_eq!(live.fingerprint(), fingerprint);
    assert!(
        matches!(live.last_error(), Some(hrwhash::Error::Source { kind, .. }) if kind == "Io"),
        "{:?}",
        live.last_error()
    );
    assert_eq!(
        live.owner("k1"),
        fleet(6, 1.0, 2).placement().owner("k1").id()
    );
    // Publishing meanwhile fails with Io, not a hang.
    assert_eq!(p.publish(&fleet(5, 1.0, 0)).unwrap_err().kind_name(), "Io");
    etcd.restart();
    // The full read after reconnecting confirms epoch 2, then the watch delivers epoch 3.
    assert!(eventually(|| live.last_error().is_none()));
    assert_eq!(p.publish(&fleet(5, 1.0, 0)).unwrap().epoch(), 3);
    assert!(eventually(|| live.epoch() == 3));
    follower.stop();
}

#[test]
fn bad_endpoints_and_keys_are_typed_errors() {
    for bad in [
        "https://127.0.0.1:2379",
        "127.0.0.1:2379",
        "http://",
        "http://a b",
    ] {
        assert!(
            matches!(Etcd::new(bad), Err(Error::InvalidArgument { .. })),
            "{bad}"
        );
    }
    assert!(matches!(
        Publisher::etcd("http://127.0.0.1:1", ""),
        Err(Error::InvalidArgument { .. })
    ));
    // Nothing listens on port 1.
    let err = EtcdSource::new("http://127.0.0.1:1", "/k")
        .unwrap()
        .start()
        .unwrap_err();
    assert_eq!(err.kind_name(), "Io", "{err}");
    let err = Publisher::etcd("http://127.0.0.1:1", "/k")
        .unwrap()
        .publish(&fleet(3, 1.0, 1));
    assert_eq!(err.unwrap_err().kind_name(), "Io");
    // The compare-and-swap of a key that exists fails against Absent.
    let Some(etcd) = EtcdServer::start("cas") else {
        return;
    };
    let client = Etcd::new(&etcd.endpoint()).unwrap();
    assert!(client.put_if(b"/k", b"1", Expect::Absent).unwrap());
    assert!(!client.put_if(b"/k", b"2", Expect::Absent).unwrap());
    let r = client.get(b"/k").unwrap().stored.unwrap();
    assert!(!client
        .put_if(b"/k", b"3", Expect::ModRevision(r.mod_revision - 1))
        .unwrap());
    assert!(client
        .put_if(b"/k", b"4", Expect::ModRevision(r.mod_revision))
        .unwrap());
    // An absent key is an Io error for a follower: there is nothing to follow yet.
    assert_eq!(
        EtcdSource::new(&etcd.endpoint(), "/absent")
            .unwrap()
            .start()
            .unwrap_err()
            .kind_name(),
        "Io"
    );
}

#[test]
fn a_renewed_watch_reads_again_without_reporting_an_error() {
    let Some(etcd) = EtcdServer::start("renew") else {
        return;
    };
    let p = Publisher::etcd(&etcd.endpoint(), "/views/r").unwrap();
    p.publish(&fleet(5, 1.0, 1)).unwrap();
    let (observer, seen) = recorder();
    let follower = EtcdSource::new(&etcd.endpoint(), "/views/r")
        .unwrap()
        .observer(observer)
        .watch_renewal(1)
        .start()
        .unwrap();
    // Each renewal's full read confirms the view.
    assert!(eventually(|| count(&seen, "unchanged", "") >= 2));
    assert_eq!(
        count(&seen, "source_error", ""),
        0,
        "{:?}",
        seen.lock().unwrap()
    );
    let next = p.publish(&fleet(6, 1.0, 0)).unwrap().epoch();
    assert!(eventually(|| follower.live().epoch() == next));
    assert_eq!(count(&seen, "source_error", ""), 0);
    follower.stop();
}
