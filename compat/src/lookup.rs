//! A profile placement answers lookups like an hrw-v1 one, so [`hrwhash::Transition`] measures
//! a switch between an incumbent and hrw-v1, or between two incumbents' placements.
//!
//! ```
//! use hrwhash::{Node, Placement, Transition};
//! use hrwhash_compat::{Profile, ProfilePlacement};
//!
//! let ids = ["cache-a:6379", "cache-b:6379", "cache-c:6379"];
//! let incumbent = ProfilePlacement::new(Profile::GoRedisRingV9, ids.map(Node::new))?;
//! let t = Transition::between(incumbent, Placement::new(ids)?);
//! let mut diff = t.diff();
//! diff.add_many((0..3000).map(|i| format!("user:{i}")));
//! // Two unrelated hash functions over the same three nodes: about 2/3 of the keys move.
//! assert!(diff.moved() > 1800 && diff.moved() < 2200);
//! assert_eq!(diff.flows().iter().map(|f| f.2).sum::<u64>(), diff.moved());
//! # Ok::<(), hrwhash::Error>(())
//! ```

use hrwhash::Lookup;

use super::ProfilePlacement;

impl Lookup for ProfilePlacement {
    fn len(&self) -> usize {
        ProfilePlacement::len(self)
    }
    fn node_id(&self, index: usize) -> &[u8] {
        self.nodes()[index].id()
    }
    fn owner_index(&self, key: &[u8]) -> usize {
        self.owner(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;
    use hrwhash::{Node, Placement, Transition};

    #[test]
    fn through_the_lookup_trait_two_hrw_placements_count_what_the_fast_path_counts() {
        let old = Placement::new(["a", "b", "c"]).unwrap();
        let new = Placement::new(["c", "a", "d"]).unwrap();
        let t = Transition::new(&old, &new);
        // Boxed as plain lookups, the placements lose the shared-digest path.
        let s = Transition::between(
            alloc::boxed::Box::new(old.clone()) as alloc::boxed::Box<dyn Lookup>,
            alloc::boxed::Box::new(new.clone()) as alloc::boxed::Box<dyn Lookup>,
        );
        let (mut td, mut sd) = (t.diff(), s.diff());
        for i in 0..3000 {
            let key = alloc::format!("k{i}");
            assert_eq!(s.route(&key), t.route(&key));
            td.add(&key);
            sd.add(&key);
        }
        assert_eq!(sd.flows(), td.flows());
        assert_eq!(sd.nodes(), td.nodes());
        assert_eq!(sd.moved(), td.moved());
    }

    #[test]
    fn a_profile_switched_to_itself_moves_nothing_and_flows_sum_to_moved() {
        let ids = ["a:11211", "b:11211", "c:11211", "d:11211"];
        for p in Profile::ALL {
            let pl = ProfilePlacement::new(p, ids.map(Node::new)).unwrap();
            let same = Transition::between(pl.clone(), pl.clone());
            let mut d = same.diff();
            d.add_many((0..500).map(|i| alloc::format!("k{i}")));
            assert_eq!(d.moved(), 0);
            let to = Placement::new(&ids[..3]).unwrap();
            let s = Transition::between(pl.clone(), to.clone());
            let mut d = s.diff();
            for i in 0..2000 {
                let key = alloc::format!("k{i}");
                let r = s.route(&key);
                assert_eq!(r.old_index, pl.owner(&key));
                assert_eq!(r.new_index, to.owner_index(&key));
                assert_eq!(r.moved, pl.owner_id(&key) != to.owner(&key).id());
                d.add(&key);
            }
            assert_eq!(d.flows().iter().map(|f| f.2).sum::<u64>(), d.moved());
            let rows = d.nodes();
            assert_eq!(rows.len(), 4);
            assert_eq!(rows[3].new_index, None);
            assert_eq!(rows[3].after, 0);
            assert_eq!(rows.iter().map(|r| r.before).sum::<u64>(), 2000);
        }
    }
}
