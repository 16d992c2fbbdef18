//! hrwhash's Rust slot in the cross-language peer harness (`run.sh` copies it in as a module).

use crate::driver::{Driver, Placement};

pub struct Hrwhash {
    placement: hrwhash::Placement,
    ids: &'static [String],
}

impl Placement for Hrwhash {
    fn owner(&self, key: &str) -> &str {
        &self.ids[self.placement.owner_index(key)]
    }
    fn rank_into<'s>(&'s self, key: &str, k: usize, out: &mut Vec<&'s str>) {
        let mut top = [0usize; 16];
        let n = self.placement.rank_into(key, &mut top[..k.min(16)]);
        out.extend(top[..n].iter().map(|&i| self.ids[i].as_str()));
    }
}

pub fn peer(d: &Driver) {
    let lib = "hrwhash";
    let build = |ids: &'static [String]| Hrwhash { placement: hrwhash::Placement::new(ids).unwrap(), ids };
    let build_w = |ids: &'static [String], w: &[f64]| Hrwhash {
        placement: hrwhash::Placement::weighted(ids.iter().zip(w.iter().copied())).unwrap(),
        ids,
    };
    d.top1(lib, build);
    d.top3(lib, build);
    d.weighted_top1(lib, build_w);
    d.quality(lib, build, true);
    d.quality_weighted(lib, build_w);
}
