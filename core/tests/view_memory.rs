//! Loading a view holds a small multiple of its document at most (issue 20): the peak of the
//! bytes allocated by `View::from_json_bytes`, measured by a counting global allocator (which is
//! why this test has a binary of its own), against the document's size.
// Views are the `json` feature's.
#![cfg(feature = "json")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use hrwhash::{Seed, View};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::SeqCst) + size;
    PEAK.fetch_max(live, Ordering::SeqCst);
}

// SAFETY: every call is passed on to the system allocator unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            // The old block counts until the new one exists, as with a copying realloc.
            grew(new_size);
            LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A view of `nodes` nodes with 90-byte ids, every fourth of weight 2.5 and every eighth in a
/// domain: the shape of `bench/view_document.py`'s document, which is about 112 bytes a node.
fn document(nodes: usize) -> Vec<u8> {
    let mut doc = String::from(
        "{\n  \"format\": \"hrwhash-view-v1\",\n  \"algorithm\": \"hrw-v1\",\n  \"epoch\": \"7\",\n  \"seed\": \"default\",\n  \"nodes\": [\n",
    );
    for i in 0..nodes {
        let id = format!("cache-{i:09}.{}", "x".repeat(74));
        doc.push_str(&format!("    {{\"id\": \"{id}\""));
        if i % 4 == 0 {
            doc.push_str(", \"weight\": 2.5");
        }
        if i % 8 == 0 {
            doc.push_str(&format!(", \"domain\": \"rack-{}\"", i % 64));
        }
        doc.push_str(if i + 1 < nodes { "},\n" } else { "}\n" });
    }
    doc.push_str("  ]\n}\n");
    doc.into_bytes()
}

#[test]
fn loading_a_view_holds_a_small_multiple_of_the_document() {
    let doc = document(30_000);
    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let view = View::from_json_bytes(&doc, Seed::DEFAULT).expect("the document is a view");
    let peak = PEAK.load(Ordering::SeqCst) - before;
    let kept = LIVE.load(Ordering::SeqCst) - before;
    assert_eq!(view.placement().len(), 30_000);
    // The nodes' ids alone are 80% of the document, and the placement keeps them: what it holds
    // is about 1.5 times the document. A JSON tree of the document (a serde_json::Value per
    // member, a map per node) takes 6.8 times on its own.
    let ratio = peak as f64 / doc.len() as f64;
    eprintln!(
        "{} bytes of document: peak {peak} bytes allocated ({ratio:.2}x), {kept} kept",
        doc.len()
    );
    assert!(
        ratio <= 2.5,
        "loading a {}-byte view allocated a peak of {peak} bytes ({ratio:.2}x; at most 2.5x)",
        doc.len()
    );
    assert!(kept <= peak);
}
