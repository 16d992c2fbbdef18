//! What the small inputs of the cost caps cost: one levelled-table change over many slots, a slot
//! history built by appends, and a slot history document with many changes.
//!
//!     cargo run --release -p hrwhash-bench --example small_input_cost -- add 16777216 2
//!     cargo run --release -p hrwhash-bench --example small_input_cost -- remove 262144 1000
//!     cargo run --release -p hrwhash-bench --example small_input_cost -- appends 8000 100
//!     cargo run --release -p hrwhash-bench --example small_input_cost -- load 65536 1000
//!
//! `add S N`: the first table of N nodes with S slots, then one added node; `remove S N`: then one
//! removed node; `appends C N`: C changes pushed onto a history of N nodes and 4096 slots;
//! `load C N`: the same history written and loaded; `view FILE`: a view file read and loaded. Prints wall seconds per step; run under
//! `/usr/bin/time -v` for peak memory.

use std::time::Instant;

use hrwhash::policy::{SlotChange, SlotTable};
use hrwhash::{Node, Placement, Seed};

fn fleet(n: usize) -> Placement {
    Placement::new((0..n).map(|i| format!("node-{i}"))).expect("a fleet")
}

fn history(changes: usize, nodes: usize) -> SlotTable {
    let mut h = SlotTable::new(&fleet(nodes), 4096)
        .expect("a table")
        .with_epoch(1);
    for k in 0..changes {
        let change = if k % 2 == 0 {
            SlotChange::Add(Node::new(format!("extra-{k}")))
        } else {
            SlotChange::Remove(format!("extra-{}", k - 1).into_bytes())
        };
        h.push(change).expect("a change");
    }
    h
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| -> usize { args[i].parse().expect("a count") };
    let t = Instant::now();
    match args[0].as_str() {
        "add" | "remove" => {
            let table = SlotTable::new(&fleet(arg(2)), arg(1) as u64).expect("a table");
            println!("first table: {:.3} s", t.elapsed().as_secs_f64());
            let t = Instant::now();
            let changed = if args[0] == "add" {
                table.with_node(Node::new("added"))
            } else {
                table.without_node("node-0")
            }
            .expect("a change");
            println!("{}: {:.3} s", args[0], t.elapsed().as_secs_f64());
            std::hint::black_box(changed);
        }
        "appends" => {
            let h = history(arg(1), arg(2));
            println!("{} appends: {:.3} s", arg(1), t.elapsed().as_secs_f64());
            std::hint::black_box(h);
        }
        "load" => {
            let text = history(arg(1), arg(2)).to_json();
            println!(
                "document: {} bytes, built in {:.3} s",
                text.len(),
                t.elapsed().as_secs_f64()
            );
            let t = Instant::now();
            let h = SlotTable::from_json_bytes(text.as_bytes(), Seed::DEFAULT).expect("loads");
            println!("load: {:.3} s", t.elapsed().as_secs_f64());
            std::hint::black_box(h);
        }
        "view" => {
            let file = std::fs::File::open(&args[1]).expect("a view file");
            let bytes = hrwhash::view::read_document(file)
                .expect("read")
                .expect("within limits");
            println!("document: {} bytes", bytes.len());
            let view = hrwhash::View::from_json_bytes(&bytes, Seed::DEFAULT).expect("a view");
            println!(
                "{} nodes loaded in {:.3} s",
                view.placement().len(),
                t.elapsed().as_secs_f64()
            );
        }
        other => panic!("unknown step {other}"),
    }
}
