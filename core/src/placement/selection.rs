//! The selection engine: a key's owner and its top-k nodes, found over the lanes of a
//! [`Placement`] with the kernels of [`crate::kernel`], in SPEC.md's ranking order.

use core::cmp::Ordering;

use alloc::boxed::Box;

use super::Placement;
use crate::kernel::{keep_max, max_into, Kernel};
use crate::v1::{draw, score, DRAW_FRACTION_BITS, LOG2_BUMP, LOG2_TABLE, WEIGHT_FRACTION_BITS};

impl Placement {
    pub(super) fn candidate(&self, kd: u64, lane: usize) -> Candidate {
        Candidate {
            score: score(kd, self.inner.lanes[lane]),
            weight: self.inner.lane_weight[lane],
            lane,
        }
    }

    fn keyed(&self, c: Candidate) -> Keyed {
        Keyed {
            draw: draw(c.score),
            c,
        }
    }

    /// SPEC.md's ranking order: smaller draw/weight first, then higher score, then smaller id.
    pub(super) fn before(&self, a: &Keyed, b: &Keyed) -> bool {
        if a.c.weight != b.c.weight {
            let lhs = a.draw as u128 * b.c.weight as u128;
            let rhs = b.draw as u128 * a.c.weight as u128;
            if lhs != rhs {
                return lhs < rhs;
            }
        }
        if a.c.score != b.c.score {
            return a.c.score > b.c.score;
        }
        let id = |k: &Keyed| &self.inner.nodes[self.inner.lane_node[k.c.lane] as usize].id;
        id(a) < id(b)
    }

    fn order(&self, a: &Candidate, b: &Candidate) -> Ordering {
        if a.lane == b.lane {
            return Ordering::Equal;
        }
        // `before` reads draws only across weights, so equal weights skip computing them: the
        // whole unweighted ranking is then a sort on scores.
        let keyed = |c: &Candidate| match a.weight == b.weight {
            true => Keyed { draw: 0, c: *c },
            false => self.keyed(*c),
        };
        if self.before(&keyed(a), &keyed(b)) {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }

    /// Every lane's weighted candidate for `kd`, in lane order, but for the lanes whose score
    /// cannot beat the bound `keep` last gave: the one scan of the weighted owner and of the
    /// weighted top k. `keep` takes each candidate and gives a new bound when the candidates it
    /// holds raise it. Always inlined, so that `keep` costs no call per lane.
    #[inline(always)]
    fn each_candidate(&self, kd: u64, mut keep: impl FnMut(Keyed) -> Option<DrawBound>) {
        let inner = &*self.inner;
        let mut bound = DrawBound::default();
        for lane in 0..inner.lanes.len() {
            let s = score(kd, inner.lanes[lane]);
            if bound.cannot_beat(s, inner.lane_weight_f64[lane]) {
                continue;
            }
            let k = self.keyed(Candidate {
                score: s,
                weight: inner.lane_weight[lane],
                lane,
            });
            if let Some(b) = keep(k) {
                bound = b;
            }
        }
    }

    pub(super) fn owner_lane(&self, kd: u64) -> usize {
        let inner = &*self.inner;
        if inner.groups.len() == 1 {
            return inner.kernel.argmax(kd, &inner.lanes).1;
        }
        if let Some(direct) = &inner.direct {
            if let Some(lane) = direct.owner_lane(inner.kernel, kd, &inner.lanes) {
                return lane;
            }
        }
        let mut best: Option<Keyed> = None;
        if inner.grouped {
            return self.owner_lane_grouped(kd);
        } else {
            self.each_candidate(kd, |k| {
                if best.as_ref().is_none_or(|b| self.before(&k, b)) {
                    let bound = DrawBound::new(&k);
                    best = Some(k);
                    Some(bound)
                } else {
                    None
                }
            });
        }
        best.map_or(0, |b| b.c.lane)
    }

    /// The owner among a few weight groups: each group's best node by score, then the best of
    /// those by weighted draw. Which group wins is random, so the comparison selects without a
    /// branch; only equal products, which are rare, take the exact path of [`Placement::before`].
    // Out of line, so that the direct search of a few nodes, in the same caller, does not pay
    // for this one's registers.
    #[inline(never)]
    fn owner_lane_grouped(&self, kd: u64) -> usize {
        let inner = &*self.inner;
        let interleaved = inner
            .interleaved
            .as_ref()
            .and_then(|layout| inner.kernel.group_argmax(kd, layout));
        let interleaved = interleaved.as_ref();
        if let Some(estimates) = &inner.group_direct {
            let n = inner.groups.len();
            let mut winners = [(0u64, 0u64); Direct::ALWAYS_LANES];
            for (i, w) in winners.iter_mut().enumerate().take(n) {
                *w = self.group_best(kd, i, interleaved);
            }
            let scores = winners.map(|w| w.0);
            if let Some(g) = estimates.best_of_scores(inner.kernel, &scores[..n]) {
                return winners[g].1 as usize;
            }
        }
        let mut best = self.contender(kd, 0, interleaved);
        for i in 1..inner.groups.len() {
            let (score, lane) = self.group_best(kd, i, interleaved);
            // Groups come heaviest first, so group `i` is lighter than the best so far: scoring
            // no higher, its draw is no smaller and it ranks after, and its draw is not needed.
            // (Only a best draw of zero, the score u64::MAX, could tie; it goes the exact way.)
            if score <= best.score && best.score != u64::MAX {
                continue;
            }
            let challenger = Contender {
                score,
                draw: draw(score),
                weight: inner.groups[i].weight,
                lane,
            };
            best = self.better(best, challenger);
        }
        best.lane as usize
    }

    /// Group `i`'s best node as (score, lane).
    #[inline(always)]
    fn group_best(&self, kd: u64, i: usize, interleaved: Option<&[(u64, u64); 8]>) -> (u64, u64) {
        let g = &self.inner.groups[i];
        let (score, pos) = match interleaved {
            Some(best) => best[i],
            None => {
                let (s, pos) = self
                    .inner
                    .kernel
                    .argmax(kd, &self.inner.lanes[g.start..g.end]);
                (s, pos as u64)
            }
        };
        (score, g.start as u64 + pos)
    }

    /// Group `i`'s best node, from the interleaved pass's answers where there are some.
    /// Inlined, so that the groups' argmax and draws overlap rather than pass through memory.
    #[inline(always)]
    fn contender(&self, kd: u64, i: usize, interleaved: Option<&[(u64, u64); 8]>) -> Contender {
        let (score, lane) = self.group_best(kd, i, interleaved);
        Contender {
            score,
            draw: draw(score),
            weight: self.inner.groups[i].weight,
            lane,
        }
    }

    /// The one of two groups' best nodes that ranks first, chosen without a branch.
    #[inline(always)]
    fn better(&self, a: Contender, b: Contender) -> Contender {
        Contender::pick(self.contender_before(&b, &a), b, a)
    }

    /// Whether `b` ranks before `a`, without a branch but where their weighted draws are equal.
    #[inline(always)]
    fn contender_before(&self, b: &Contender, a: &Contender) -> bool {
        // Below 2^127 each: draws are at most 64 * 2^56 and weights below 2^64.
        let lhs = b.draw as u128 * a.weight as u128;
        let rhs = a.draw as u128 * b.weight as u128;
        if lhs == rhs {
            let keyed = |c: Contender| Keyed {
                draw: c.draw,
                c: Candidate {
                    score: c.score,
                    weight: c.weight,
                    lane: c.lane as usize,
                },
            };
            self.before(&keyed(*b), &keyed(*a))
        } else {
            lhs < rhs
        }
    }

    /// Fills `out` with the first lanes of the ranking; returns how many.
    pub(super) fn rank_lanes_into(&self, kd: u64, out: &mut [usize]) -> usize {
        let inner = &*self.inner;
        let want = out.len().min(inner.lanes.len());
        if want >= 2 && inner.lanes.len() <= FEW_LANES && inner.groups.len() == 1 {
            let out = &mut out[..want];
            if inner.kernel.rank_small(kd, &inner.lanes, out) || rank_few(kd, &inner.lanes, out) {
                return want;
            }
        }
        match want {
            0 => return 0,
            1 => {
                out[0] = self.owner_lane(kd);
                return 1;
            }
            _ if want == inner.lanes.len() => {
                if let Some(direct) = inner.direct.as_ref().or(inner.top_direct.as_ref()) {
                    if direct.top_lanes(inner.kernel, kd, &inner.lanes, &mut out[..want]) {
                        return want;
                    }
                }
                for (lane, slot) in out[..want].iter_mut().enumerate() {
                    *slot = lane;
                }
                self.sort_lanes(kd, &mut out[..want]);
                return want;
            }
            _ if want <= SMALL_K => {}
            _ => return self.rank_lanes_large(kd, &mut out[..want]),
        }
        if inner.groups.len() == 1 {
            let hit_step = inner.groups[0].hit_step;
            top_positions(inner.kernel, kd, &inner.lanes, hit_step, &mut out[..want]);
            return want;
        }
        // Weighted: the estimates of every node where they tell the first ones apart (here and
        // above, not once before both: that made the top-3 of five nodes 14% slower, unweighted);
        if let Some(direct) = inner.direct.as_ref().or(inner.top_direct.as_ref()) {
            if direct.top_lanes(inner.kernel, kd, &inner.lanes, &mut out[..want]) {
                return want;
            }
        }
        // else the group-local top lists (or every node) compete on their weighted keys.
        let mut top = TopKeyed {
            entries: [None; SMALL_K],
            len: 0,
            want,
        };
        if inner.grouped {
            if self.rank_groups_merged(kd, &mut out[..want]) {
                return want;
            }
            for g in &inner.groups {
                let mut local = TopScores::new(want);
                let lanes = &inner.lanes[g.start..g.end];
                top_scores_keyed(inner.kernel, kd, lanes, g.hit_step, &mut local);
                for &(s, pos) in local.entries() {
                    let entered = top.offer(
                        self,
                        self.keyed(Candidate {
                            score: s,
                            weight: g.weight,
                            lane: g.start + pos,
                        }),
                    );
                    // Within a group a lower score is a later draw: the rest cannot enter.
                    if !entered {
                        break;
                    }
                }
            }
        } else {
            self.each_candidate(kd, |k| {
                top.offer(self, k);
                top.full_last().map(DrawBound::new)
            });
        }
        for (slot, k) in out.iter_mut().zip(&top.entries[..top.len]) {
            *slot = k.expect("filled").c.lane;
        }
        top.len
    }

    /// The first `out.len()` (at most [`MERGED_K`]) lanes of a placement of a few weight groups,
    /// as a merge of the groups' rankings: each group's best node, from the owner's pass, heads
    /// its group; the best head by weighted draw comes next, and only then is its group ranked
    /// further ([`top_scores_keyed`]). A top-k thus ranks at most `k - 1` groups, not each one.
    /// False where it does not take these (then `out` holds nothing to use), or where a group's
    /// ranking does not begin with the node its best was (equal scores, which only crafted
    /// digests have): the caller's exact path ranks them.
    #[inline(never)]
    fn rank_groups_merged(&self, kd: u64, out: &mut [usize]) -> bool {
        let inner = &*self.inner;
        let count = inner.groups.len();
        let want = out.len();
        if count > MAX_MERGED_GROUPS || want > MERGED_K || inner.lanes.len() > MAX_MERGED_NODES {
            return false;
        }
        // Without the interleaved pass each group's best costs a pass of its own, and the
        // merge costs more than ranking every group (10,000 nodes in four groups: 1.26x).
        let Some(interleaved) = inner
            .interleaved
            .as_ref()
            .and_then(|layout| inner.kernel.group_argmax(kd, layout))
        else {
            return false;
        };
        let interleaved = Some(&interleaved);
        let candidate = |i: usize, (score, pos): (u64, usize)| {
            let g = &inner.groups[i];
            Contender {
                score,
                draw: draw(score),
                weight: g.weight,
                lane: (g.start + pos) as u64,
            }
        };
        // A group whose ranking is used up heads it with a draw no node has: it never wins.
        let spent = Contender {
            score: 0,
            draw: u64::MAX,
            weight: 1,
            lane: 0,
        };
        let mut heads = [spent; MAX_MERGED_GROUPS];
        for (i, head) in heads.iter_mut().enumerate().take(count) {
            *head = self.contender(kd, i, interleaved);
        }
        // Each group's ranking once it has been asked for, and how much of it has been taken.
        let mut ranked = [[(0u64, 0usize); MERGED_K]; MAX_MERGED_GROUPS];
        let mut ranked_len = [0usize; MAX_MERGED_GROUPS];
        let mut taken = [0usize; MAX_MERGED_GROUPS];
        for (slot, lane) in out.iter_mut().enumerate() {
            // The best head, chosen without a branch: which group comes next is random.
            let (mut first, mut i) = (heads[0], 0);
            for (j, head) in heads.iter().enumerate().take(count).skip(1) {
                let wins = self.contender_before(head, &first);
                first = Contender::pick(wins, *head, first);
                i = crate::kernel::select(wins, j as u64, i as u64) as usize;
            }
            if first.draw == spent.draw {
                return false;
            }
            *lane = first.lane as usize;
            if slot + 1 == want {
                break;
            }
            if taken[i] == 0 {
                let g = &inner.groups[i];
                // What is left to fill, this group's head among it.
                let mut top = TopScores::new(want - slot);
                top_scores_keyed(
                    inner.kernel,
                    kd,
                    &inner.lanes[g.start..g.end],
                    g.hit_step,
                    &mut top,
                );
                let entries = top.entries();
                if entries.first().map(|e| g.start + e.1) != Some(first.lane as usize) {
                    return false;
                }
                ranked[i][..entries.len()].copy_from_slice(entries);
                ranked_len[i] = entries.len();
            }
            taken[i] += 1;
            heads[i] = match taken[i] < ranked_len[i] {
                true => candidate(i, ranked[i][taken[i]]),
                false => spent,
            };
        }
        true
    }

    /// Top-k for k beyond the stack lists: insertion into `out` itself, so still allocation-free.
    fn rank_lanes_large(&self, kd: u64, list: &mut [usize]) -> usize {
        let want = list.len();
        let mut len = 0usize;
        for lane in 0..self.inner.lanes.len() {
            let c = self.candidate(kd, lane);
            if len == want && self.order(&self.candidate(kd, list[want - 1]), &c) == Ordering::Less
            {
                continue;
            }
            let pos = list[..len]
                .partition_point(|&l| self.order(&self.candidate(kd, l), &c) == Ordering::Less);
            let end = (len + 1).min(want);
            list.copy_within(pos..end - 1, pos + 1);
            list[pos] = c.lane;
            len = end;
        }
        len
    }

    fn sort_lanes(&self, kd: u64, lanes: &mut [usize]) {
        lanes.sort_unstable_by(|&a, &b| self.order(&self.candidate(kd, a), &self.candidate(kd, b)));
    }
}

/// The sort key of a node for one key: everything SPEC.md's ranking order compares.
#[derive(Clone, Copy)]
pub(super) struct Candidate {
    pub(super) score: u64,
    weight: u64,
    pub(super) lane: usize,
}

/// A cheap, conservative test that a node cannot rank before a given one, so that most nodes of a
/// fleet with many distinct weights skip the exact draw. Since `-ln(u) >= 1 - u`, a score `s` has
/// `draw(s) >= (2^64 - 1 - s) * 2^56 / (2^64 ln 2)` up to the draw's error (below 2^-26, i.e. 2^30
/// fixed-point units); the float margins only ever let more nodes through to the exact comparison.
#[derive(Default)]
struct DrawBound {
    /// `draw / weight` of the node to beat, rounded up; `None` beats nothing yet.
    ratio: Option<f64>,
}

impl DrawBound {
    const SCALE: f64 = 1.0 / (256.0 * core::f64::consts::LN_2); // 2^56 / (2^64 ln 2)
    const DRAW_ERROR: f64 = (1u64 << 31) as f64;

    fn new(k: &Keyed) -> DrawBound {
        DrawBound {
            ratio: Some(k.draw as f64 / k.c.weight as f64 * (1.0 + 1e-9)),
        }
    }

    #[inline]
    fn cannot_beat(&self, score: u64, weight: f64) -> bool {
        match self.ratio {
            Some(ratio) => (!score) as f64 * Self::SCALE - Self::DRAW_ERROR > ratio * weight,
            None => false,
        }
    }
}

/// The best `want` weighted candidates, best first.
struct TopKeyed {
    entries: [Option<Keyed>; SMALL_K],
    len: usize,
    want: usize,
}

impl TopKeyed {
    /// Keeps `k` if it belongs; false where it does not.
    fn offer(&mut self, placement: &Placement, k: Keyed) -> bool {
        let entry = |i: usize, e: &[Option<Keyed>]| e[i].expect("filled");
        if self.len == self.want && !placement.before(&k, &entry(self.want - 1, &self.entries)) {
            return false;
        }
        let mut i = self.len.min(self.want - 1);
        while i > 0 && placement.before(&k, &entry(i - 1, &self.entries)) {
            self.entries[i] = self.entries[i - 1];
            i -= 1;
        }
        self.entries[i] = Some(k);
        self.len = (self.len + 1).min(self.want);
        true
    }

    fn full_last(&self) -> Option<&Keyed> {
        if self.len == self.want {
            self.entries[self.want - 1].as_ref()
        } else {
            None
        }
    }
}

/// The best `top.want` (score, position) pairs of one weight group (`hit_step` is the group's
/// [`super::Group::hit_step`]).
///
/// Scores are uniform over the 64-bit range, so a threshold `c * hit_step` below the top lets
/// through about `c` nodes, and the top-k is among them whenever at least `k` get through. One
/// pass of [`Kernel::hits`] finds them without a branch per node, and a branch-free
/// insertion keeps the best: the cost is that of the owner's pass plus a few nodes. Where fewer
/// than `k` get through (about 1.4% of keys for k = 3, from the Poisson tail, or keys chosen to
/// make it happen) the running-threshold scan of [`top_scores_scan`] gives the same answer.
fn top_scores(kernel: Kernel, kd: u64, lanes: &[u64], hit_step: u64, top: &mut TopScores) {
    let expected_hits = 2 * top.want as u64 + 2;
    if !top_scores_above(kernel, kd, lanes, hit_step, expected_hits, top) {
        top_scores_scan(kernel, kd, lanes, top);
    }
}

/// [`top_scores`], first by the kernel's ranking in registers ([`Kernel::top_few`]) where it
/// takes these nodes and `top.want` (two or three) and its keys settle the order.
fn top_scores_keyed(kernel: Kernel, kd: u64, lanes: &[u64], hit_step: u64, top: &mut TopScores) {
    let mut positions = [0usize; 3];
    let want = top.want.min(lanes.len());
    if (2..=3).contains(&want) && kernel.top_few(kd, lanes, &mut positions[..want]) {
        for (slot, &pos) in top.entries.iter_mut().zip(&positions[..want]) {
            *slot = (score(kd, lanes[pos]), pos);
        }
        top.len = want;
        return;
    }
    top_scores(kernel, kd, lanes, hit_step, top);
}

/// [`top_scores`] with `expected_hits` nodes let through; false when too few got through (then
/// `top` is untouched).
fn top_scores_above(
    kernel: Kernel,
    kd: u64,
    lanes: &[u64],
    hit_step: u64,
    expected_hits: u64,
    top: &mut TopScores,
) -> bool {
    let want = top.want;
    let entries = &mut top.entries;
    let len = top_above(
        kernel,
        kd,
        lanes,
        hit_step,
        expected_hits,
        want,
        |j, pair| entries[j] = pair,
    );
    match len {
        Some(len) => top.len = len,
        None => return false,
    }
    true
}

/// The positions of the best `out.len()` nodes of an unweighted placement, written straight into
/// `out`, by the method of [`top_scores`].
fn top_positions(kernel: Kernel, kd: u64, lanes: &[u64], hit_step: u64, out: &mut [usize]) {
    let want = out.len();
    if kernel.top_few(kd, lanes, out) {
        return;
    }
    // Few enough nodes are all offered (a threshold of zero): see [`OFFER_ALL`].
    let expected_hits = match lanes.len() <= OFFER_ALL {
        true => u64::MAX,
        false => 2 * want as u64 + 2,
    };
    let fast = top_above(
        kernel,
        kd,
        lanes,
        hit_step,
        expected_hits,
        want,
        |j, pair| out[j] = pair.1,
    );
    if fast.is_none() {
        let mut top = TopScores::new(want);
        top_scores_scan(kernel, kd, lanes, &mut top);
        for (slot, &(_, pos)) in out.iter_mut().zip(top.entries()) {
            *slot = pos;
        }
    }
}

/// Most nodes whose top-k offers every node to the list of the best, without branches, instead of
/// the nodes over a threshold that a pass finds: below it the pass and its mispredicted exits
/// cost more than the offers (AMD Zen 4, top-3 from the peer harness's keys, same process: AVX2
/// 0.61x the time at 9 nodes, 0.80x at 16, 1.00x at 24, 1.17x at 32; scalar 0.61x, 0.74x, 0.92x
/// and 1.01x). The AVX-512 kernel ranks from 8 nodes on in registers ([`Kernel::top_few`]).
const OFFER_ALL: usize = 24;

/// Most groups [`Placement::rank_groups_merged`] merges: as many as the owner's pass over
/// interleaved groups answers at once.
const MAX_MERGED_GROUPS: usize = 8;

/// Most nodes [`Placement::rank_groups_merged`] takes: beyond, the owner's pass over every node
/// and the rankings of `k - 1` groups cost as much as ranking every group, then more (weights 1
/// to 4 repeated, weighted top-3, Intel Xeon, family 6 model 207, same process: 0.78-0.81x the
/// time at 100 nodes, 0.83-0.85x at 300, 0.88x at 500, 0.92x at 700, 0.97-1.02x at 1,000,
/// 1.05x at 1,200, 1.15x at 2,000).
const MAX_MERGED_NODES: usize = 768;

/// Longest ranking [`Placement::rank_groups_merged`] gives.
const MERGED_K: usize = 4;

/// Most nodes [`rank_few`] ranks.
const FEW_LANES: usize = 8;

/// The first `out.len()` nodes of an unweighted placement of at most [`FEW_LANES`] nodes, best
/// first, in general registers: each node is keyed by its score with the low three bits replaced
/// by `7 - position`, so that one 64-bit comparison orders nodes (as [`Kernel::top_few`] keys
/// them), and the keys go through the sorting network of their count ([`NETWORKS`]), unrolled
/// for each count. False, with `out` untouched, where the keys do not settle the answer (two of
/// the first `out.len() + 1` scores equal but in their low three bits). Top-3 from the peer
/// harness's keys, same process, Intel Xeon (family 6 model 207): against AVX-512's rank
/// counting ([`Kernel::rank_small`], whose 64-bit multiply is three micro-ops there) 0.77-0.84x
/// the time at two and three nodes, 0.86-0.92x at five, 0.99-1.02x at eight; with the scalar
/// kernel, against the list each node was inserted into (all nodes) or the pass over a
/// threshold (fewer), 0.81x at three, 0.92x at five, 1.01x at eight.
// Not inlined: its eight unrolled copies would make every caller's code larger.
#[inline(never)]
fn rank_few(kd: u64, lanes: &[u64], out: &mut [usize]) -> bool {
    match lanes.len() {
        1 => rank_network::<1>(kd, lanes, out),
        2 => rank_network::<2>(kd, lanes, out),
        3 => rank_network::<3>(kd, lanes, out),
        4 => rank_network::<4>(kd, lanes, out),
        5 => rank_network::<5>(kd, lanes, out),
        6 => rank_network::<6>(kd, lanes, out),
        7 => rank_network::<7>(kd, lanes, out),
        8 => rank_network::<8>(kd, lanes, out),
        _ => false,
    }
}

/// [`rank_few`] for `N` nodes.
#[inline(always)]
fn rank_network<const N: usize>(kd: u64, lanes: &[u64], out: &mut [usize]) -> bool {
    const LOW: u64 = 7;
    let k = out.len();
    debug_assert!(lanes.len() == N && k <= N);
    let mut keys = [0u64; N];
    for (i, (key, &d)) in keys.iter_mut().zip(lanes).enumerate() {
        *key = (score(kd, d) & !LOW) | (LOW - i as u64);
    }
    for &(i, j) in NETWORKS[N] {
        let (a, b) = (keys[i as usize], keys[j as usize]);
        keys[i as usize] = a.max(b);
        keys[j as usize] = a.min(b);
    }
    let high = |x: u64| x & !LOW;
    if (1..N.min(k + 1)).any(|j| high(keys[j - 1]) == high(keys[j])) {
        return false;
    }
    for (slot, &x) in out.iter_mut().zip(&keys) {
        *slot = (LOW - (x & LOW)) as usize;
    }
    true
}

/// Sorting networks of the fewest comparators for up to [`FEW_LANES`] inputs (1, 3, 5, 9, 12,
/// 16 and 19 from two inputs on; Knuth, TAOCP vol. 3, 5.3.4). Each pair `(i, j)`, `i < j`,
/// leaves the higher of the values at `i` and `j` at `i`; in turn they sort any input highest
/// first (the test feeds them every input of zeros and ones, which proves it).
#[rustfmt::skip]
const NETWORKS: [&[(u8, u8)]; FEW_LANES + 1] = [
    &[],
    &[],
    &[(0, 1)],
    &[(0, 2), (0, 1), (1, 2)],
    &[(0, 2), (1, 3), (0, 1), (2, 3), (1, 2)],
    &[(0, 3), (1, 4), (0, 2), (1, 3), (0, 1), (2, 4), (1, 2), (3, 4), (2, 3)],
    &[
        (0, 5), (1, 3), (2, 4), (1, 2), (3, 4), (0, 3), (2, 5), (0, 1), (2, 3), (4, 5), (1, 2),
        (3, 4),
    ],
    &[
        (0, 6), (2, 3), (4, 5), (0, 2), (1, 4), (3, 6), (0, 1), (2, 5), (3, 4), (1, 2), (4, 6),
        (2, 3), (4, 5), (1, 2), (3, 4), (5, 6),
    ],
    &[
        (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7), (0, 1), (2, 3), (4, 5),
        (6, 7), (2, 4), (3, 5), (1, 4), (3, 6), (1, 2), (3, 4), (5, 6),
    ],
];

/// Offers the nodes scoring at least `u64::MAX - expected_hits * hit_step` to a [`Best`] and
/// hands its first `want` pairs to `emit(slot, (score, position))`; returns how many, or `None`
/// (having emitted nothing) when fewer than `want` got through.
#[inline]
fn top_above<E: FnMut(usize, (u64, usize))>(
    kernel: Kernel,
    kd: u64,
    lanes: &[u64],
    hit_step: u64,
    expected_hits: u64,
    want: usize,
    emit: E,
) -> Option<usize> {
    let threshold = threshold(lanes, hit_step, expected_hits);
    match want {
        0..=2 => best_above::<2, E>(kernel, kd, lanes, threshold, want, emit),
        3 => best_above::<3, E>(kernel, kd, lanes, threshold, want, emit),
        4 => best_above::<4, E>(kernel, kd, lanes, threshold, want, emit),
        5..=8 => best_above::<8, E>(kernel, kd, lanes, threshold, want, emit),
        _ => best_above::<SMALL_K, E>(kernel, kd, lanes, threshold, want, emit),
    }
}

/// The score that about `expected_hits` of the group's nodes reach (see [`top_scores`]).
fn threshold(lanes: &[u64], hit_step: u64, expected_hits: u64) -> u64 {
    // When the expected hits reach the group size, every node is one.
    match expected_hits.checked_mul(hit_step) {
        Some(below_top) if expected_hits < lanes.len() as u64 => u64::MAX - below_top,
        _ => 0,
    }
}

fn best_above<const K: usize, E: FnMut(usize, (u64, usize))>(
    kernel: Kernel,
    kd: u64,
    lanes: &[u64],
    threshold: u64,
    want: usize,
    mut emit: E,
) -> Option<usize> {
    let mut best = Best::<K>::new();
    if threshold == 0 {
        let first = lanes.len().min(K);
        for &d in &lanes[..first] {
            best.fill(score(kd, d));
        }
        for (pos, &d) in lanes.iter().enumerate().skip(first) {
            best.push(score(kd, d), pos);
        }
    } else {
        kernel.hits(kd, lanes, threshold, &mut |positions| {
            // A copy held in registers: pushed in place, through the closure's reference, each
            // push loads the list and stores it back (75 more instructions per top-3 lookup at
            // N = 100 and 1000 with AVX2).
            let mut held = best;
            for &pos in positions {
                held.push(score(kd, lanes[pos as usize]), pos as usize);
            }
            best = held;
        });
    }
    // With a threshold of zero every node was offered, however few the group has.
    if best.count < want && threshold != 0 {
        return None;
    }
    let len = best.count.min(want);
    for j in 0..len {
        emit(j, best.get(j));
    }
    Some(len)
}

/// The best `K` (score, position) pairs offered, best first, kept without data-dependent branches:
/// which slot a pair lands in is random, so a branch there would be mispredicted about once per
/// offer. A pair is held as the 128-bit key `(score, !position)`, so that one unsigned comparison
/// is the ranking order (higher score, then lower position), and an empty slot, key 0, ranks
/// after every pair.
#[derive(Clone, Copy)]
struct Best<const K: usize> {
    score: [u64; K],
    /// `!position`.
    inv_pos: [u64; K],
    /// Pairs offered so far.
    count: usize,
}

impl<const K: usize> Best<K> {
    fn new() -> Self {
        Best {
            score: [0; K],
            inv_pos: [0; K],
            count: 0,
        }
    }

    /// One pass of a compare-exchange network: the pair sinks to its slot, pushing the ones it
    /// beats one slot down. The last slot only keeps the larger pair: what falls out of it is
    /// dropped, so it costs a compare and two moves instead of a full exchange.
    #[inline(always)]
    fn push(&mut self, s: u64, pos: usize) {
        let (mut s, mut q) = (s, !(pos as u64));
        for j in 0..K - 1 {
            max_into(&mut self.score[j], &mut self.inv_pos[j], &mut s, &mut q);
        }
        keep_max(&mut self.score[K - 1], &mut self.inv_pos[K - 1], s, q);
        self.count += 1;
    }

    /// [`Best::push`] of the pair at position `self.count` while fewer than `K` pairs are held:
    /// the empty slots need no comparison, so the `i`-th pair passes `i` slots instead of `K`.
    #[inline(always)]
    fn fill(&mut self, s: u64) {
        let i = self.count;
        let (mut s, mut q) = (s, !(i as u64));
        for j in 0..i {
            max_into(&mut self.score[j], &mut self.inv_pos[j], &mut s, &mut q);
        }
        self.score[i] = s;
        self.inv_pos[i] = q;
        self.count += 1;
    }

    /// The pair in slot `j`.
    fn get(&self, j: usize) -> (u64, usize) {
        (self.score[j], !self.inv_pos[j] as usize)
    }
}

/// Most nodes sampled by [`top_scores_scan`] for its starting threshold.
const SAMPLE: usize = 64;

/// Fills `top` from one weight group in one pass that offers every node scoring at least the
/// running threshold. Each offer is a hard-to-predict branch, and with a threshold of zero most of
/// them would come early, while the k-th best is still low. So the pass starts from a threshold
/// taken from the first `SAMPLE` nodes: the k-th largest of their eight lane maxima, which is at
/// most the k-th best score of the group.
fn top_scores_scan(kernel: Kernel, kd: u64, lanes: &[u64], top: &mut TopScores) {
    let mut threshold = 0;
    // Half the group at most, and a multiple of eight so that every lane has a maximum.
    let sampled = (lanes.len() / 2 / 8 * 8).min(SAMPLE);
    if top.want <= 8 && sampled > 0 {
        let mut sample = [0u64; SAMPLE];
        let mut lane_max =
            kernel.scores_and_lane_max(kd, &lanes[..sampled], &mut sample[..sampled]);
        lane_max.sort_unstable_by(|a, b| b.cmp(a));
        threshold = lane_max[top.want - 1];
    }
    kernel.scan(kd, lanes, threshold, &mut |s, pos| {
        top.offer(s, pos).max(threshold)
    });
}

/// The weighted owner of a placement of a few nodes, found without weight groups and without
/// exact draws: every node's `draw / weight` is estimated ([`estimate`]), and the node
/// with the smallest estimate is the owner whenever every other estimate lies beyond the error
/// bound. The other keys (about two in 10^5 with weights 1, 2, 3, 4, 1, and every exact tie of
/// SPEC.md's products, which it breaks on scores and ids) take the exact search. Which node leads
/// is random, so the pass keeps its best and second-best estimates without a branch.
pub(super) struct Direct {
    /// What each lane's estimate is scaled by.
    scale: Box<[Scale]>,
    /// How far above the best estimate the second best must be for the best to rank first.
    margin: f64,
}

impl Direct {
    /// Most nodes always searched directly. Each costs about 25 instructions here (32 before
    /// the estimate was computed in floating point), against about 5 in a weight group's
    /// argmax, whose fixed costs (about 35 per group and 40 per exact draw, and two to three
    /// mispredicted branches per lookup) the direct search has none of (callgrind, with the
    /// pass as a loop and the integer estimate: 227 against 269 to 391 instructions at 5 nodes
    /// of 2 to 5 weights, 323 against 309 to 544 at 8).
    const ALWAYS_LANES: usize = 8;
    /// Most nodes searched directly where the weights have at most two nodes each on average
    /// (where every node has its own weight, 1,096 against 1,365 instructions at 32 nodes); from
    /// there the groups' interleaved pass takes over.
    const MAX_LANES: usize = 32;
    /// Largest ratio of two weights searched directly: the error bound is that of the lightest
    /// node, so with a wider spread the heavy nodes' estimates, closer together, would more
    /// often fall within it and take the exact search after this one.
    const MAX_WEIGHT_RATIO: u64 = 1 << 10;
    /// Relative error of the margin's and the threshold's roundings, with room to spare (the
    /// estimates' own are in [`FLOAT_SLACK`]).
    const RELATIVE_ERROR: f64 = 1.0 / (1u64 << 40) as f64;

    /// The direct search for lanes of these fixed-point weights (in `groups` distinct weights),
    /// where it pays.
    pub(super) fn new(lane_weight: &[u64], groups: usize) -> Option<Direct> {
        let n = lane_weight.len();
        let pays = n <= Self::ALWAYS_LANES || (n <= Self::MAX_LANES && n <= 2 * groups);
        if groups < 2 || !pays {
            return None;
        }
        Self::of_weights(lane_weight)
    }

    /// The search for top-k alone of placements of up to [`Direct::MAX_LANES`] nodes that the
    /// owner searches by weight groups: where the groups' top lists each take a threshold pass
    /// and every candidate an exact draw, the estimates of every node cost less (AMD Zen 4,
    /// weights 1, 2, 3, 4, 1, ..., top-3 from the peer harness's keys, same process, two runs:
    /// 0.61-0.75x the time at 9 nodes, 0.59-0.69x at 12, 0.60-0.69x at 16, 0.65-0.71x at 24,
    /// 0.69-0.76x at 32).
    pub(super) fn for_top_k(lane_weight: &[u64], groups: usize) -> Option<Direct> {
        if groups < 2 || lane_weight.len() > Self::MAX_LANES {
            return None;
        }
        Self::of_weights(lane_weight)
    }

    /// The same search over the best nodes of a placement's weight groups (`group_weight` in
    /// group order; at most [`Direct::ALWAYS_LANES`] groups): a group's best node by score
    /// ranks first among its group, so the owner is among them, and the estimates of a few
    /// nodes replace the groups' exact draws and their mispredicted comparisons.
    pub(super) fn for_groups(group_weight: &[u64]) -> Option<Direct> {
        if !(2..=Self::ALWAYS_LANES).contains(&group_weight.len()) {
            return None;
        }
        Self::of_weights(group_weight)
    }

    fn of_weights(lane_weight: &[u64]) -> Option<Direct> {
        let lightest = *lane_weight.iter().min()?;
        let heaviest = *lane_weight.iter().max()?;
        if heaviest / Self::MAX_WEIGHT_RATIO > lightest {
            return None;
        }
        let unit = (1u64 << WEIGHT_FRACTION_BITS) as f64;
        // The owner's draw is at most its estimate plus ESTIMATE_BELOW, any other node's at
        // least its estimate less ESTIMATE_ABOVE, each give or take FLOAT_SLACK, and each is
        // divided by at least the lightest weight.
        let error = (ESTIMATE_ERROR + 2 * FLOAT_SLACK) as f64;
        let margin = error * (unit / lightest as f64) * (1.0 + Self::RELATIVE_ERROR);
        let scale = |w: u64| {
            let per_draw = unit / w as f64;
            Scale {
                per_draw,
                per_unit: per_draw * (1u64 << DRAW_FRACTION_BITS) as f64,
            }
        };
        Some(Direct {
            scale: lane_weight.iter().map(|&w| scale(w)).collect(),
            margin,
        })
    }

    /// The owner's lane, or `None` when the estimates cannot tell it.
    #[inline]
    fn owner_lane(&self, kernel: Kernel, kd: u64, lanes: &[u64]) -> Option<usize> {
        match kernel {
            Kernel::Scalar => self.pass::<false, _>(LaneScores { kd, lanes }),
            // SAFETY: the vector kernels are only chosen where the CPU has LZCNT, BMI2 and FMA
            // (`Kernel::supported`).
            #[cfg(target_arch = "x86_64")]
            _ => unsafe { self.lanes_x86_64_v3(kd, lanes) },
        }
    }

    /// The position in `scores` (the scores of the best nodes of the groups, in group order)
    /// of the owner, or `None` when the estimates cannot tell it.
    #[inline]
    pub(super) fn best_of_scores(&self, kernel: Kernel, scores: &[u64]) -> Option<usize> {
        match kernel {
            Kernel::Scalar => self.pass::<false, _>(scores),
            // SAFETY: as in `owner_lane`.
            #[cfg(target_arch = "x86_64")]
            _ => unsafe { self.scores_x86_64_v3(scores) },
        }
    }

    /// [`Direct::pass`] compiled for the CPUs of the vector kernels: `lzcnt` and `shlx` instead
    /// of `bsr` and a shift through `cl`, and fused multiply-adds, which shorten each node's
    /// chain of dependent steps (the pass is bound by that chain, not by its instructions).
    /// The key and the lanes are passed apart, in registers.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "lzcnt,bmi2,fma")]
    fn lanes_x86_64_v3(&self, kd: u64, lanes: &[u64]) -> Option<usize> {
        self.pass::<true, _>(LaneScores { kd, lanes })
    }

    /// [`Direct::lanes_x86_64_v3`] for scores given.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "lzcnt,bmi2,fma")]
    fn scores_x86_64_v3(&self, scores: &[u64]) -> Option<usize> {
        self.pass::<true, _>(scores)
    }

    #[inline(always)]
    fn pass<const FUSED: bool, S: Scores>(&self, scores: S) -> Option<usize> {
        // Up to `ALWAYS_LANES` nodes, a pass of known length: unrolled, with every estimate
        // computed before the comparisons so that the nodes' chains overlap (callgrind at 5
        // nodes: 215 instructions instead of 229, and 8% faster).
        match scores.len() {
            2 => self.unrolled(scores.estimates::<2, FUSED>(&self.scale)),
            3 => self.unrolled(scores.estimates::<3, FUSED>(&self.scale)),
            4 => self.unrolled(scores.estimates::<4, FUSED>(&self.scale)),
            5 => self.unrolled(scores.estimates::<5, FUSED>(&self.scale)),
            6 => self.unrolled(scores.estimates::<6, FUSED>(&self.scale)),
            7 => self.unrolled(scores.estimates::<7, FUSED>(&self.scale)),
            8 => self.unrolled(scores.estimates::<8, FUSED>(&self.scale)),
            _ => self.looped::<FUSED>(scores.each()),
        }
    }

    /// The best of the estimates `k`.
    #[inline(always)]
    fn unrolled<const N: usize>(&self, k: [f64; N]) -> Option<usize> {
        let (mut best, mut second, mut lane) = (k[0], f64::INFINITY, 0u64);
        for (i, &k) in k.iter().enumerate().skip(1) {
            let wins = k < best;
            second = lesser(second, greater(best, k));
            best = lesser(best, k);
            lane = if wins { i as u64 } else { lane };
        }
        self.decided(best, second, lane)
    }

    #[inline(always)]
    fn looped<const FUSED: bool>(&self, scores: impl Iterator<Item = u64>) -> Option<usize> {
        let (mut best, mut second, mut lane) = (f64::INFINITY, f64::INFINITY, 0u64);
        for (i, (s, &scale)) in scores.zip(&self.scale[..]).enumerate() {
            let k = estimate::<FUSED>(s, scale);
            let wins = k < best;
            second = lesser(second, greater(best, k));
            best = lesser(best, k);
            lane = if wins { i as u64 } else { lane };
        }
        self.decided(best, second, lane)
    }

    /// The first `out.len()` lanes of the ranking, best first, where the estimates tell them
    /// apart: every two neighbours among the first `out.len() + 1` by estimate (all of them when
    /// `out` takes every lane) beyond both errors, as [`Direct::decided`] asks of the owner and
    /// the second. False, with `out` untouched, otherwise (crafted near ties, exact ties of
    /// SPEC.md's products): then the exact ranking.
    fn top_lanes(&self, kernel: Kernel, kd: u64, lanes: &[u64], out: &mut [usize]) -> bool {
        match kernel {
            Kernel::Scalar => self.top_pass::<false>(kd, lanes, out),
            // SAFETY: as in `owner_lane`.
            #[cfg(target_arch = "x86_64")]
            _ => unsafe { self.top_lanes_x86_64_v3(kd, lanes, out) },
        }
    }

    /// [`Direct::top_lanes`] compiled as [`Direct::lanes_x86_64_v3`] is.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "lzcnt,bmi2,fma")]
    fn top_lanes_x86_64_v3(&self, kd: u64, lanes: &[u64], out: &mut [usize]) -> bool {
        self.top_pass::<true>(kd, lanes, out)
    }

    #[inline(always)]
    fn top_pass<const FUSED: bool>(&self, kd: u64, lanes: &[u64], out: &mut [usize]) -> bool {
        let n = lanes.len();
        let want = out.len();
        debug_assert!((2..=Self::MAX_LANES).contains(&n) && (1..=n).contains(&want));
        let mut estimates = [f64::INFINITY; Self::MAX_LANES];
        for ((e, &d), &scale) in estimates.iter_mut().zip(lanes).zip(&self.scale[..]) {
            *e = estimate::<FUSED>(score(kd, d), scale);
        }
        // The first `ranked` lanes by estimate. Which lane leads is random, so nothing here
        // branches on an estimate: up to four from a list of keys (against the counting and the
        // spans below, weights 1-4 repeated, weighted top-3, Intel Xeon, same process: 0.85-0.93x
        // the time at 3 to 8 nodes, 0.44x at 9, 0.53x at 16, 0.64x at 24, 0.75x at 32); more up
        // to `ALWAYS_LANES` by counting each lane's rank (the estimates below it, and those equal
        // to it at lower lanes); beyond, from the spans' lowest or a few passes of selection.
        let ranked = (want + 1).min(n);
        let mut order = [0u8; Self::MAX_LANES];
        if ranked <= KEYED_RANKS {
            rank_keyed(&estimates[..n], &mut order);
        } else if n <= Self::ALWAYS_LANES {
            rank_by_count(&estimates[..n], |i| i as u8, &mut order);
        } else if ranked <= SPANS {
            rank_near(&estimates[..n], ranked, &mut order);
        } else {
            for (i, o) in order.iter_mut().enumerate() {
                *o = i as u8;
            }
            for j in 0..ranked {
                let mut best = j;
                for i in j + 1..n {
                    if estimates[order[i] as usize] < estimates[order[best] as usize] {
                        best = i;
                    }
                }
                order.swap(j, best);
            }
        }
        let apart = |pair: &[u8]| {
            let (a, b) = (estimates[pair[0] as usize], estimates[pair[1] as usize]);
            a * (1.0 + Self::RELATIVE_ERROR) + self.margin < b
        };
        if !order[..ranked].windows(2).all(apart) {
            return false;
        }
        for (slot, &lane) in out.iter_mut().zip(&order) {
            *slot = lane as usize;
        }
        true
    }

    /// `lane`, the one with the best estimate, where the second best is beyond both errors.
    #[inline(always)]
    fn decided(&self, best: f64, second: f64, lane: u64) -> Option<usize> {
        // Scaled by `2^32 / W`, the owner's exact `draw / weight` is at most `best` plus the
        // estimate's error, and every other node's at least `second` less it: with both errors in
        // `margin`, a strict gap means that no other node ranks first, not even on a tie.
        (best * (1.0 + Self::RELATIVE_ERROR) + self.margin < second).then_some(lane as usize)
    }
}

/// Spans of lanes whose lowest estimates bound the first ones in [`Direct::top_lanes`].
const SPANS: usize = 8;

/// Writes the lanes of the `ranked` (at most [`SPANS`]) lowest `estimates` (more than
/// [`SPANS`]) at their ranks in `order`. Their estimates are at most the `ranked`-th lowest of
/// any `ranked` or more lanes, here the lowest of each of eight spans: the few at or below that
/// bound are ranked by [`rank_by_count`].
#[inline(always)]
fn rank_near(estimates: &[f64], ranked: usize, order: &mut [u8]) {
    let lowest: [f64; SPANS] = core::array::from_fn(|span| {
        let mut low = estimates[span];
        for &e in estimates[span..].iter().step_by(SPANS).skip(1) {
            low = lesser(low, e);
        }
        low
    });
    let mut bound = f64::NEG_INFINITY;
    for &e in &lowest {
        let below: usize = lowest.iter().map(|&f| (f < e) as usize).sum();
        bound = greater(bound, if below < ranked { e } else { f64::NEG_INFINITY });
    }
    // Every lane is written at the end of the near ones; only those at or below the bound stay.
    let (mut near, mut near_estimates) = ([0u8; Direct::MAX_LANES], [0f64; Direct::MAX_LANES]);
    let mut len = 0;
    for (i, &e) in estimates.iter().enumerate() {
        near[len] = i as u8;
        near_estimates[len] = e;
        len += (e <= bound) as usize;
    }
    rank_by_count(&near_estimates[..len], |j| near[j], order);
}

/// Most ranks [`rank_keyed`] finds.
const KEYED_RANKS: usize = 4;

/// Writes the positions of the lowest [`KEYED_RANKS`] of `estimates` (at most
/// [`Direct::MAX_LANES`], each finite and not negative) to `order`, lowest first. Each estimate
/// is keyed by its bits, which order such floats as their values do, inverted and with the low
/// five replaced by `31 - position`; the keys go through a list of four without a branch. Keys
/// order two estimates wrongly only where they agree in all but those five bits, a relative gap
/// below 2^-47: far inside [`Direct::RELATIVE_ERROR`], so the caller's check that neighbours
/// lie apart, on the estimates themselves, then declines.
#[inline(always)]
fn rank_keyed(estimates: &[f64], order: &mut [u8]) {
    const LOW: u64 = 31;
    debug_assert!(estimates.len() <= Direct::MAX_LANES);
    let mut top = [0u64; KEYED_RANKS];
    for (i, &e) in estimates.iter().enumerate() {
        let mut x = (!e.to_bits() & !LOW) | (LOW - i as u64);
        for slot in &mut top {
            let kept = x.max(*slot);
            x = x.min(*slot);
            *slot = kept;
        }
    }
    for (o, &x) in order.iter_mut().zip(&top) {
        *o = (LOW - (x & LOW)) as u8;
    }
}

/// Writes `lane(i)` of the `i`-th of `estimates` at its rank in `order`, lowest first, and equal
/// ones in their order: each rank is counted without a branch, since which lane leads is random.
#[inline(always)]
fn rank_by_count(estimates: &[f64], lane: impl Fn(usize) -> u8, order: &mut [u8]) {
    for (i, &e) in estimates.iter().enumerate() {
        let mut rank = 0;
        for (j, &f) in estimates.iter().enumerate() {
            rank += (f < e) as usize + ((f == e) & (j < i)) as usize;
        }
        order[rank] = lane(i);
    }
}

/// The scores [`Direct`] searches: of a key against lanes, or given.
trait Scores: Copy {
    fn len(&self) -> usize;
    /// The estimates of the first `N` nodes (`N` at most [`Scores::len`]), scaled by `scale`.
    fn estimates<const N: usize, const FUSED: bool>(&self, scale: &[Scale]) -> [f64; N];
    fn each(&self) -> impl Iterator<Item = u64>;
}

#[derive(Clone, Copy)]
struct LaneScores<'a> {
    kd: u64,
    lanes: &'a [u64],
}

impl Scores for LaneScores<'_> {
    fn len(&self) -> usize {
        self.lanes.len()
    }

    #[inline(always)]
    fn estimates<const N: usize, const FUSED: bool>(&self, scale: &[Scale]) -> [f64; N] {
        let lanes = &self.lanes[..N];
        estimates_of::<N, FUSED>(scale, |i| score(self.kd, lanes[i]))
    }

    #[inline(always)]
    fn each(&self) -> impl Iterator<Item = u64> {
        let kd = self.kd;
        self.lanes.iter().map(move |&d| score(kd, d))
    }
}

impl Scores for &[u64] {
    fn len(&self) -> usize {
        <[u64]>::len(self)
    }

    #[inline(always)]
    fn estimates<const N: usize, const FUSED: bool>(&self, scale: &[Scale]) -> [f64; N] {
        let scores = &self[..N];
        estimates_of::<N, FUSED>(scale, |i| scores[i])
    }

    #[inline(always)]
    fn each(&self) -> impl Iterator<Item = u64> {
        self.iter().copied()
    }
}

/// The estimates of `N` nodes, the `i`-th scoring `score_of(i)`, every one computed before any
/// is compared, so that the nodes' chains overlap.
#[inline(always)]
fn estimates_of<const N: usize, const FUSED: bool>(
    scale: &[Scale],
    score_of: impl Fn(usize) -> u64,
) -> [f64; N] {
    let scale = &scale[..N];
    let mut k = [0f64; N];
    for i in 0..N {
        k[i] = estimate::<FUSED>(score_of(i), scale[i]);
    }
    k
}

/// What a lane's estimate is scaled by: `2^32 / W` (draw per unit weight, with `W` the
/// fixed-point weight), and the same times `2^56`, a whole draw's unit per unit weight.
#[derive(Clone, Copy)]
struct Scale {
    per_draw: f64,
    per_unit: f64,
}

/// A node's estimated `draw / weight`, scaled by `2^32`: [`ESTIMATE`]'s interpolation, in
/// floating point so that the table's values need no integer multiply and no conversion after it.
/// The leading zeros are those of `s`, which are those of `s + 1` unless the increment carries
/// out of the top bit (`s = 2^k - 1` or `u64::MAX`); then the shifted `s + 1` is 0, and the
/// table's row 0 gives the draw's fraction of those scores, 0. `s = 0` shifts by 64, which
/// `wrapping_shl` makes a shift by 0, and also lands on row 0 (its draw is 64 whole units).
/// `FUSED` (x86-64 where the CPU has FMA) rounds each multiply-add once; elsewhere it has no
/// effect.
#[inline(always)]
fn estimate<const FUSED: bool>(s: u64, scale: Scale) -> f64 {
    let shift = s.leading_zeros();
    let m = s.wrapping_add(1).wrapping_shl(shift);
    let [a, b] = ESTIMATE[(m >> 55) as usize];
    // Half of `m`, below 2^63: a signed conversion, exact to its rounding.
    let half = (m >> 1) as i64 as f64;
    let whole = shift as f64 * scale.per_unit;
    #[cfg(target_arch = "x86_64")]
    if FUSED {
        return mul_add(mul_add(-b, half, a), scale.per_draw, whole);
    }
    (a - b * half) * scale.per_draw + whole
}

/// `a * b + c` rounded once (`vfmadd`); only called where the CPU has FMA.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mul_add(a: f64, b: f64, c: f64) -> f64 {
    use core::arch::x86_64::{_mm_cvtsd_f64, _mm_fmadd_sd, _mm_set_sd};
    // SAFETY: reached only through `Direct::pass_x86_64_v3`, which requires FMA.
    unsafe { _mm_cvtsd_f64(_mm_fmadd_sd(_mm_set_sd(a), _mm_set_sd(b), _mm_set_sd(c))) }
}

/// The fraction of a draw, by segment: row `m >> 55` of a normalized `m` (256 to 511) holds
/// `A = 2^56 - T[j] + (T[j+1] - T[j]) * (256 + j)` and `B = (T[j+1] - T[j]) / 2^54` of segment
/// `j = row - 256`, so that `A - B * m / 2` is SPEC.md's interpolation between table points without
/// its curvature term: `2^56 - T[j] - (T[j+1] - T[j]) * (m mod 2^55) / 2^55`. Row 0 is what the
/// scores whose increment carries out of the top bit draw beyond their whole units: nothing.
static ESTIMATE: [[f64; 2]; 512] = {
    let mut rows = [[0.0; 2]; 512];
    let mut j = 0;
    while j < 256 {
        let slope = LOG2_TABLE[j + 1] - LOG2_TABLE[j];
        let a = (1u64 << DRAW_FRACTION_BITS) - LOG2_TABLE[j] + slope * (256 + j as u64);
        rows[256 + j] = [a as f64, slope as f64 / (1u64 << 54) as f64];
        j += 1;
    }
    rows
};

/// `a < b ? a : b`, which is one `minsd` (`f64::min` also orders NaNs, which never occur here).
#[inline(always)]
fn lesser(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// `a > b ? a : b`.
#[inline(always)]
fn greater(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// How far apart [`ESTIMATE`]'s interpolation (computed exactly) and [`draw`] can be: the most it
/// lies above plus the most it lies below, which covers two estimates erring in opposite
/// directions. Within segment `j`, SPEC.md's fraction `f` adds the curvature term that the
/// interpolation leaves out, and the interpolation reads the whole position where SPEC.md takes
/// its first 32 bits and floors.
const ESTIMATE_ERROR: u64 = ESTIMATE_ABOVE + ESTIMATE_BELOW;
// Small next to a draw's unit (2^56), or the search would rarely decide.
const _: () = assert!(ESTIMATE_ERROR < 1 << 38);

/// How far the interpolation can lie above [`draw`]: the curvature term, at most `B[j] / 4`, and
/// SPEC.md's floor (with a unit to spare).
const ESTIMATE_ABOVE: u64 = {
    let (mut worst, mut j) = (0, 0);
    while j < 256 {
        let e = LOG2_BUMP[j] / 4 + 2;
        if e > worst {
            worst = e;
        }
        j += 1;
    }
    worst
};

/// How far the interpolation can lie below [`draw`]: the rest of the position after SPEC.md's 32
/// bits, less than `(T[j+1] - T[j]) / 2^32` (with two units to spare).
const ESTIMATE_BELOW: u64 = {
    let (mut worst, mut j) = (0, 0);
    while j < 256 {
        let e = ((LOG2_TABLE[j + 1] - LOG2_TABLE[j]) >> 32) + 2;
        if e > worst {
            worst = e;
        }
        j += 1;
    }
    worst
};

/// How far [`estimate`]'s floating-point steps can move it, in a draw's units (before the
/// scaling by `2^32 / W`): `A` rounded (below 2^58, so by at most 16), `m / 2` rounded (by a
/// relative 2^-53 of `B * m / 2`, below 2^58: at most 32 more), the product and difference
/// rounded (at most 16 each), then the last steps' five roundings of a relative 2^-53 each, on an
/// estimate below `65 * 2^56` (at most 2,600): 2,680 in all, within this bound.
const FLOAT_SLACK: u64 = 1 << 12;

/// Largest top-k kept in fixed-size stack lists.
pub(super) const SMALL_K: usize = 16;

/// A weight group's best node in the weighted owner's knockout.
#[derive(Clone, Copy, Default)]
struct Contender {
    score: u64,
    draw: u64,
    weight: u64,
    lane: u64,
}

impl Contender {
    /// `x` where `c`, else `y`, without a branch.
    #[inline(always)]
    fn pick(c: bool, x: Contender, y: Contender) -> Contender {
        let pick = |x, y| crate::kernel::select(c, x, y);
        Contender {
            score: pick(x.score, y.score),
            draw: pick(x.draw, y.draw),
            weight: pick(x.weight, y.weight),
            lane: pick(x.lane, y.lane),
        }
    }
}

/// A candidate with its draw computed once.
#[derive(Clone, Copy)]
pub(super) struct Keyed {
    pub(super) draw: u64,
    pub(super) c: Candidate,
}

/// The best `want` (score, position) pairs of one weight group, best first. Positions arrive in
/// increasing order, so an equal score never displaces an earlier one (the id tie-break).
struct TopScores {
    entries: [(u64, usize); SMALL_K],
    len: usize,
    want: usize,
}

impl TopScores {
    fn new(want: usize) -> TopScores {
        TopScores {
            entries: [(0, 0); SMALL_K],
            len: 0,
            want,
        }
    }

    /// Keeps `(score, pos)` if it belongs; returns the lowest score that could still enter.
    fn offer(&mut self, score: u64, pos: usize) -> u64 {
        let mut i = self.len;
        while i > 0 && self.entries[i - 1].0 < score {
            if i < self.want {
                self.entries[i] = self.entries[i - 1];
            }
            i -= 1;
        }
        if i < self.want {
            self.entries[i] = (score, pos);
            self.len = (self.len + 1).min(self.want);
        }
        self.threshold()
    }

    /// The lowest score that could still enter.
    fn threshold(&self) -> u64 {
        if self.len == self.want {
            self.entries[self.want - 1].0.saturating_add(1)
        } else {
            0
        }
    }

    fn entries(&self) -> &[(u64, usize)] {
        &self.entries[..self.len]
    }
}

/// What the policies built on a placement read of it: its weight groups of lanes, and the
/// ranking order of SPEC.md between two nodes' scores for one key.
impl Placement {
    /// Each weight group as (fixed-point weight, first lane, digests of its lanes).
    pub(crate) fn lane_groups(&self) -> impl Iterator<Item = (u64, usize, &[u64])> + '_ {
        let inner = &*self.inner;
        inner
            .groups
            .iter()
            .map(move |g| (g.weight, g.start, &inner.lanes[g.start..g.end]))
    }

    /// The build-order index of the node at `lane`.
    pub(crate) fn lane_node(&self, lane: usize) -> usize {
        self.inner.lane_node[lane] as usize
    }

    pub(crate) fn kernel(&self) -> Kernel {
        self.inner.kernel
    }

    /// Whether node `a` (build-order index) with score `score_a` comes before node `b` with
    /// `score_b` in the ranking of one key. Both nodes must be selectable and distinct.
    pub(crate) fn ranks_before(&self, score_a: u64, a: usize, score_b: u64, b: usize) -> bool {
        let (wa, wb) = (
            self.inner.nodes[a].weight.to_fixed(),
            self.inner.nodes[b].weight.to_fixed(),
        );
        if wa != wb {
            let lhs = draw(score_a) as u128 * wb as u128;
            let rhs = draw(score_b) as u128 * wa as u128;
            if lhs != rhs {
                return lhs < rhs;
            }
        }
        if score_a != score_b {
            return score_a > score_b;
        }
        self.inner.nodes[a].id < self.inner.nodes[b].id
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::v1::digest_scoring;
    use alloc::sync::Arc;
    use alloc::vec::Vec;

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state ^ (*state >> 29)
    }

    /// The best `want` (score, position) pairs by sorting: higher score, then lower position.
    fn sorted_top(kd: u64, lanes: &[u64], want: usize) -> Vec<(u64, usize)> {
        let mut all: Vec<(u64, usize)> = lanes
            .iter()
            .enumerate()
            .map(|(i, &d)| (score(kd, d), i))
            .collect();
        all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(want);
        all
    }

    #[test]
    fn every_threshold_gives_the_exact_top_or_says_it_cannot() {
        // Expected hits from 1 (too few get through for most keys: the fallback) to more than
        // the group (every node is offered), with repeated digests for equal scores.
        let mut st = 5u64;
        let mut fallbacks = 0;
        for n in [1usize, 2, 3, 5, 8, 9, 17, 64, 100, 130, 1000] {
            let mut lanes: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            if n > 4 {
                lanes[n - 1] = lanes[1];
                lanes[n / 2] = lanes[1];
            }
            let hit_step = u64::MAX / n as u64;
            for kernel in [Kernel::detect(), Kernel::Scalar] {
                for _ in 0..40 {
                    let kd = lcg(&mut st);
                    for want in [1usize, 2, 3, 4, 6, 9, 16] {
                        let expected = sorted_top(kd, &lanes, want);
                        for expected_hits in [1u64, 2, 3, 8, 2 * n as u64 + 1] {
                            let mut top = TopScores::new(want);
                            if top_scores_above(
                                kernel,
                                kd,
                                &lanes,
                                hit_step,
                                expected_hits,
                                &mut top,
                            ) {
                                assert_eq!(top.entries(), &expected[..], "n={n} want={want}");
                            } else {
                                assert_eq!(top.len, 0);
                                fallbacks += 1;
                            }
                        }
                        let mut top = TopScores::new(want);
                        top_scores(kernel, kd, &lanes, hit_step, &mut top);
                        assert_eq!(top.entries(), &expected[..], "n={n} want={want}");
                        let mut top = TopScores::new(want);
                        top_scores_scan(kernel, kd, &lanes, &mut top);
                        assert_eq!(top.entries(), &expected[..], "n={n} want={want}");
                    }
                }
            }
        }
        assert!(
            fallbacks > 1000,
            "the fallback was not exercised: {fallbacks}"
        );
    }

    #[test]
    fn top_positions_match_the_sorted_order_on_both_paths() {
        // 3000 keys at 1.4% each take the fallback some 40 times.
        let mut st = 17u64;
        for n in [6usize, 40, 100, 333] {
            let lanes: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            let hit_step = u64::MAX / n as u64;
            for kernel in [Kernel::detect(), Kernel::Scalar] {
                for _ in 0..3000 {
                    let kd = lcg(&mut st);
                    for want in [2usize, 3, 5] {
                        let mut out = [usize::MAX; 5];
                        top_positions(kernel, kd, &lanes, hit_step, &mut out[..want]);
                        let expected: Vec<usize> =
                            sorted_top(kd, &lanes, want).iter().map(|p| p.1).collect();
                        assert_eq!(&out[..want], &expected[..], "n={n} want={want}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_kernel_gives_the_scalar_top_k_for_k_up_to_eight() {
        // Random digests, and the same with the best few repeated at other positions (equal
        // scores: the first position ranks first), at node counts around the blocks of eight,
        // the hit passes' modes and the ranking network's key widths.
        let mut st = 29u64;
        let sizes = (2..=40).chain([63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 1000, 1025]);
        for n in sizes.chain([2049, 4096, 10_000]) {
            let hit_step = u64::MAX / n as u64;
            let keys = if n > 2000 { 30 } else { 120 };
            for round in 0..keys {
                let mut lanes: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
                let kd = lcg(&mut st);
                if round % 3 == 0 {
                    for (_, best) in sorted_top(kd, &lanes, 3) {
                        let copy = (lcg(&mut st) % n as u64) as usize;
                        lanes[copy] = lanes[best];
                    }
                }
                for want in 1..=8usize.min(n) {
                    let expected: Vec<usize> =
                        sorted_top(kd, &lanes, want).iter().map(|p| p.1).collect();
                    let mut scalar = [usize::MAX; 8];
                    top_positions(Kernel::Scalar, kd, &lanes, hit_step, &mut scalar[..want]);
                    assert_eq!(&scalar[..want], &expected[..], "scalar n={n} k={want}");
                    for kernel in Kernel::available() {
                        let mut out = [usize::MAX; 8];
                        top_positions(kernel, kd, &lanes, hit_step, &mut out[..want]);
                        assert_eq!(out[..want], scalar[..want], "{kernel:?} n={n} k={want}");
                    }
                }
            }
        }
    }

    #[test]
    fn ranking_a_few_nodes_is_the_sort_or_declines() {
        // The first k of fleets of one to eight: random digests, repeated digests (equal scores:
        // the first position ranks first) and digests whose scores differ only in their low
        // three bits, which the keys replace. The answer is the sort's, and it declines exactly
        // where two of the sort's first k + 1 scores are equal above those bits.
        let mut st = 41u64;
        let (mut answered, mut declined) = (0, 0);
        for n in 1..=FEW_LANES {
            for round in 0..3000 {
                let kd = lcg(&mut st);
                let mut lanes: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
                let (a, b) = (round % n, (round / 3 + 1) % n);
                let crafted = a != b && round % 3 != 0;
                if crafted && round % 3 == 1 {
                    lanes[b] = lanes[a];
                }
                if crafted && round % 3 == 2 {
                    // The digest whose score is `a`'s with its low bits changed.
                    let target = score(kd, lanes[a]) ^ (1 + round as u64 % 7);
                    lanes[b] = digest_scoring(kd, target);
                    assert_eq!(score(kd, lanes[b]), target);
                }
                let sorted = sorted_top(kd, &lanes, n);
                for k in 1..=n {
                    let settled =
                        (1..n.min(k + 1)).all(|j| sorted[j - 1].0 >> 3 != sorted[j].0 >> 3);
                    let mut out = [usize::MAX; FEW_LANES];
                    let got = rank_few(kd, &lanes, &mut out[..k]);
                    assert_eq!(got, settled, "n={n} k={k} round {round}");
                    if got {
                        let expected: Vec<usize> = sorted[..k].iter().map(|p| p.1).collect();
                        assert_eq!(&out[..k], &expected[..], "n={n} k={k} round {round}");
                        answered += 1;
                    } else {
                        assert_eq!(out, [usize::MAX; FEW_LANES], "written, then declined");
                        assert!(crafted, "n={n} round {round}: declined random scores");
                        declined += 1;
                    }
                }
            }
        }
        assert!(
            answered > 0 && declined > 0,
            "{answered} answered, {declined} declined"
        );
    }

    #[test]
    fn the_sorting_networks_sort_every_input() {
        // By the 0-1 principle (Knuth, TAOCP vol. 3, 5.3.4, exercise 11) a comparator network
        // that sorts every input of zeros and ones sorts every input.
        for (n, network) in NETWORKS.iter().enumerate() {
            assert!(network.iter().all(|&(i, j)| i < j && (j as usize) < n));
            for bits in 0u32..1 << n {
                let mut v: Vec<u32> = (0..n).map(|i| bits >> i & 1).collect();
                for &(i, j) in network.iter() {
                    let (a, b) = (v[i as usize], v[j as usize]);
                    v[i as usize] = a.max(b);
                    v[j as usize] = a.min(b);
                }
                assert!(
                    v.windows(2).all(|w| w[0] >= w[1]),
                    "n={n} input {bits:b}: {v:?}"
                );
            }
        }
    }

    #[test]
    fn filling_the_empty_slots_matches_pushing() {
        let mut st = 3u64;
        for n in 0..12usize {
            for _ in 0..50 {
                // Few distinct scores, so that ties are common.
                let scores: Vec<u64> = (0..n).map(|_| lcg(&mut st) % 4).collect();
                let mut pushed = Best::<4>::new();
                let mut filled = Best::<4>::new();
                for (pos, &s) in scores.iter().enumerate() {
                    pushed.push(s, pos);
                    if pos < 4 {
                        filled.fill(s);
                    } else {
                        filled.push(s, pos);
                    }
                }
                let got = |b: &Best<4>| (0..n.min(4)).map(|j| b.get(j)).collect::<Vec<_>>();
                let mut expected: Vec<(u64, usize)> = scores.iter().copied().zip(0..).collect();
                expected.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                expected.truncate(4);
                assert_eq!(got(&pushed), expected);
                assert_eq!(got(&filled), expected);
            }
        }
    }

    #[test]
    fn the_estimate_stays_within_its_bound() {
        let mut scores = alloc::vec![0, 1, 2, 3, u64::MAX, u64::MAX - 1, u64::MAX - 2, 1 << 63];
        for e in 0..64 {
            scores.extend([(1u64 << e) - 1, 1u64 << e, (1u64 << e) + 1]);
        }
        // Both ends and the middle of every segment at several exponents (the score is `v - 1`).
        for shift in [0u32, 1, 7, 30, 40, 50, 63] {
            for j in 0..256u64 {
                for r in [
                    0u64,
                    1,
                    1 << 22,
                    (1 << 23) - 1,
                    1 << 23,
                    1 << 54,
                    (1 << 55) - 1,
                ] {
                    let m = (1u64 << 63) | (j << 55) | r;
                    let v = m >> shift;
                    scores.push(v.wrapping_sub(1));
                }
            }
        }
        let mut st = 11u64;
        for _ in 0..200_000 {
            let x = lcg(&mut st);
            scores.push(x);
            scores.push(x >> (x % 64));
            scores.push(!(x >> (x % 64)));
        }
        let unweighted = Scale {
            per_draw: 1.0,
            per_unit: (1u64 << DRAW_FRACTION_BITS) as f64,
        };
        // Each way the estimate is compiled that this CPU runs.
        type Way = fn(u64, Scale) -> f64;
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut ways: Vec<(&str, Way)> = alloc::vec![("plain", estimate::<false>)];
        #[cfg(target_arch = "x86_64")]
        if Kernel::available().any(|k| k != Kernel::Scalar) {
            #[target_feature(enable = "lzcnt,bmi2,fma")]
            fn fused(s: u64, scale: Scale) -> f64 {
                estimate::<true>(s, scale)
            }
            // SAFETY: a vector kernel is available, so the CPU has LZCNT, BMI2 and FMA.
            ways.push(("fused", |s, scale| unsafe { fused(s, scale) }));
        }
        std::println!(
            "estimates compiled: {:?}",
            ways.iter().map(|w| w.0).collect::<Vec<_>>()
        );
        for (name, estimate) in ways {
            let (mut above, mut below) = (0i128, 0i128);
            for &s in &scores {
                let (exact, estimate) = (draw(s) as i128, estimate(s, unweighted));
                // Scores whose increment carries out of the top bit, and 0, are exact.
                if s == 0 || s.wrapping_add(1).is_power_of_two() || s == u64::MAX {
                    assert_eq!(estimate, exact as f64, "{name} {s:#x}");
                }
                let estimate = estimate as i128;
                above = above.max(estimate - exact);
                below = below.max(exact - estimate);
            }
            let (most_above, most_below) = (
                (ESTIMATE_ABOVE + FLOAT_SLACK) as i128,
                (ESTIMATE_BELOW + FLOAT_SLACK) as i128,
            );
            assert!(above <= most_above, "{name}: {above} above {most_above}");
            assert!(below <= most_below, "{name}: {below} below {most_below}");
            // Both directions happen.
            assert!(
                above > ESTIMATE_ABOVE as i128 / 2 && below > 0,
                "{name}: {above} {below}"
            );
        }
    }

    /// Whether lane `a` comes strictly before every other lane on SPEC.md's products alone.
    fn strictly_first(kd: u64, lanes: &[u64], weights: &[u64], a: usize) -> bool {
        (0..lanes.len()).filter(|&b| b != a).all(|b| {
            let lhs = draw(score(kd, lanes[a])) as u128 * weights[b] as u128;
            let rhs = draw(score(kd, lanes[b])) as u128 * weights[a] as u128;
            lhs < rhs
        })
    }

    #[test]
    fn the_direct_search_answers_only_what_the_products_decide() {
        let mut st = 23u64;
        let (mut answered, mut declined) = (0u64, 0u64);
        let patterns: [&[u64]; 6] = [
            &[1, 2],
            &[1, 2, 3, 4, 1],
            &[4, 3, 2, 1, 1, 2, 3, 4],
            &[1000, 1, 1, 1],
            &[1 << 32, (1 << 32) + 1],
            &[5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61],
        ];
        for pattern in patterns {
            // Fixed-point weights: the pattern as whole weights, and as its raw fixed point.
            for scale in [1u64 << 32, 1] {
                let weights: Vec<u64> = pattern
                    .iter()
                    .map(|&w| w * scale.min(u64::MAX / w))
                    .collect();
                let groups = {
                    let mut w = weights.clone();
                    w.sort_unstable();
                    w.dedup();
                    w.len()
                };
                let direct = Direct::new(&weights, groups).expect("a direct search");
                for _ in 0..3000 {
                    let lanes: Vec<u64> = weights.iter().map(|_| lcg(&mut st)).collect();
                    let kd = lcg(&mut st);
                    for kernel in Kernel::available() {
                        match direct.owner_lane(kernel, kd, &lanes) {
                            Some(a) => {
                                assert!(strictly_first(kd, &lanes, &weights, a), "{weights:?}");
                                answered += 1;
                            }
                            None => declined += 1,
                        }
                    }
                }
            }
        }
        // Random keys are nearly always decided by the estimates.
        assert!(declined * 1000 < answered, "{declined} of {answered}");
    }

    /// The largest score `s` with `draw(s) * wb >= draw(sb) * wa`, by bisection (the draw never
    /// increases with the score): where a node of weight `wa` ties or nearly ties one of weight
    /// `wb` that scores `sb`.
    fn crossing(sb: u64, wa: u64, wb: u64) -> u64 {
        let target = draw(sb) as u128 * wa as u128;
        let (mut lo, mut hi) = (0u64, u64::MAX);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if draw(mid) as u128 * wb as u128 >= target {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    #[test]
    fn the_direct_search_declines_ties_and_near_ties_of_the_products() {
        // Two nodes whose products tie or nearly tie, above the others: draws of the scores
        // around where `draw(s_a) * W_b` crosses `draw(s_b) * W_a`.
        let mut st = 31u64;
        let (mut declined, mut crafted) = (0, 0);
        for (wa, wb) in [(2u64, 1u64), (3, 2), (4, 1), (1, 4), (7, 5), (1000, 999)] {
            let (wa, wb) = (wa << 32, wb << 32);
            let weights = [wa, wb, 1 << 32, 1 << 32];
            let direct = Direct::new(&weights, 3).expect("a direct search");
            for round in 0..200 {
                let kd = lcg(&mut st);
                // The exact tie of SPEC.md's section 5.3 where both draws are whole.
                let sb = match round {
                    0 => (1u64 << 63) - 1,
                    _ => u64::MAX - (lcg(&mut st) >> (1 + round % 8)),
                };
                let target = draw(sb) as u128 * wa as u128;
                let lo = crossing(sb, wa, wb);
                for sa in lo.saturating_sub(2)..=lo.saturating_add(2) {
                    // The others score far lower, so they never come near.
                    let lanes = [
                        digest_scoring(kd, sa),
                        digest_scoring(kd, sb),
                        digest_scoring(kd, lcg(&mut st) >> 8),
                        digest_scoring(kd, lcg(&mut st) >> 8),
                    ];
                    let tie = draw(sa) as u128 * wb as u128 == target;
                    for kernel in Kernel::available() {
                        crafted += 1;
                        match direct.owner_lane(kernel, kd, &lanes) {
                            Some(a) => assert!(strictly_first(kd, &lanes, &weights, a)),
                            None => declined += 1,
                        }
                        if tie {
                            assert_eq!(direct.owner_lane(kernel, kd, &lanes), None, "a tie");
                        }
                    }
                }
            }
        }
        // Nearly every crafted pair is too close for the estimates.
        assert!(declined * 10 > crafted * 9, "{declined} of {crafted}");
    }

    /// A placement of nodes `n0`, `n1`, ... of these weights, under the default seed.
    fn weighted_placement(weights: impl Iterator<Item = f64>) -> Placement {
        use crate::{Node, Seed, Weight};
        let nodes: Vec<Node> = weights
            .enumerate()
            .map(|(i, w)| Node::new(alloc::format!("n{i}")).with_weight(Weight::new(w).unwrap()))
            .collect();
        Placement::from_nodes(Seed::DEFAULT, nodes).unwrap()
    }

    /// SPEC.md's order over the lanes of `p` for the key digest `kd`, written out: smaller
    /// products first, then higher scores, then smaller ids; the first lane.
    fn reference_owner_lane(p: &Placement, kd: u64) -> usize {
        reference_ranking(p, kd)[0]
    }

    /// Every lane of `p` in SPEC.md's order for the key digest `kd` (see
    /// [`reference_owner_lane`]).
    fn reference_ranking(p: &Placement, kd: u64) -> Vec<usize> {
        let inner = &*p.inner;
        let key = |lane: usize| {
            let s = score(kd, inner.lanes[lane]);
            (
                draw(s),
                inner.lane_weight[lane],
                s,
                &inner.nodes[inner.lane_node[lane] as usize].id,
            )
        };
        let mut lanes: Vec<usize> = (0..inner.lanes.len()).collect();
        lanes.sort_by(|&a, &b| {
            let (da, wa, sa, ia) = key(a);
            let (db, wb, sb, ib) = key(b);
            (da as u128 * wb as u128)
                .cmp(&(db as u128 * wa as u128))
                .then(sb.cmp(&sa))
                .then(ia.cmp(ib))
        });
        lanes
    }

    /// Rewrites the digests of `p` for the key digest `kd`: its first lane (of the heaviest
    /// group) and its last (of the lightest) score so that their weighted draws tie exactly
    /// (every fourth `case`, where the weights divide) or nearly, and every other lane far below
    /// them; then `more` may change the lanes, given the first one's score. Returns whether the
    /// two tie exactly.
    fn plant_near_tie(
        p: &mut Placement,
        kd: u64,
        case: usize,
        st: &mut u64,
        more: impl FnOnce(&mut [u64], u64),
    ) -> bool {
        let (a, b) = (0, p.inner.lanes.len() - 1);
        let (wa, wb) = (p.inner.lane_weight[a], p.inner.lane_weight[b]);
        // (A ratio of 32 or more leaves no score for the whole draw `2 * wa / wb`.)
        let whole = wa.is_multiple_of(wb) && wa / wb < 32;
        let (sa, sb) = if case.is_multiple_of(4) && whole {
            // Whole draws `k * wa / wb` and `k`: an exact tie.
            let k = 1 + (case / 4) as u64 % 2;
            (u64::MAX >> (wa / wb * k), u64::MAX >> k)
        } else {
            let sb = u64::MAX - (lcg(st) >> (2 + case % 6));
            let sa = crossing(sb, wa, wb);
            (sa.wrapping_add(case as u64 % 3).wrapping_sub(1), sb)
        };
        let inner = Arc::get_mut(&mut p.inner).expect("not shared");
        for lane in 0..inner.lanes.len() {
            inner.lanes[lane] = digest_scoring(kd, lcg(st) >> 20);
        }
        inner.lanes[a] = digest_scoring(kd, sa);
        inner.lanes[b] = digest_scoring(kd, sb);
        more(&mut inner.lanes, sa);
        // The interleaved layout is a copy of the lanes: built again from them.
        if inner.interleaved.is_some() {
            inner.interleaved = crate::kernel::Interleaved::new(
                inner.groups.iter().map(|g| &inner.lanes[g.start..g.end]),
            );
        }
        draw(sa) as u128 * wb as u128 == draw(sb) as u128 * wa as u128
    }

    #[test]
    fn the_weighted_ranking_from_estimates_is_the_reference_order_or_declines() {
        // Random keys, and keys whose two nodes nearly or exactly tie (as in the owner's test
        // below), over placements with a direct search: every top-k written is the reference
        // order's first k, and the estimates answer the random keys and decline near ties.
        let mut st = 43u64;
        let (mut answered, mut declined) = (0, 0);
        for weights in [
            &[2.0, 1.0, 1.0, 3.0][..],
            &[1.0, 2.0, 3.0, 4.0, 1.0],
            &[4.0, 1.0, 0.5, 1.0, 2.0, 2.0, 8.0, 3.0],
            &[1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5],
            // More nodes than the stack lists hold (`SMALL_K`), each of its own weight.
            &(1..=20).map(|w| w as f64).collect::<Vec<_>>(),
            // Weights 1, 2, 3, 4 repeated: top-k alone searched directly, the first ones found
            // among the spans' lowest (`rank_near`) up to k = 7 and by selection beyond.
            &(0..9).map(|i| (1 + i % 4) as f64).collect::<Vec<_>>(),
            &(0..17).map(|i| (1 + i % 4) as f64).collect::<Vec<_>>(),
            &(0..32).map(|i| (1 + i % 4) as f64).collect::<Vec<_>>(),
        ] {
            let mut p = weighted_placement(weights.iter().copied());
            // Exactly one of the two, and the repeated four weights past eight nodes the second.
            assert_ne!(
                p.inner.direct.is_some(),
                p.inner.top_direct.is_some(),
                "{weights:?}"
            );
            let four = weights.len() > Direct::ALWAYS_LANES && weights[3] == weights[7];
            assert_eq!(p.inner.top_direct.is_some(), four, "{weights:?}");
            let n = p.inner.lanes.len();
            for round in 0..600 {
                let kd = lcg(&mut st);
                if round % 2 == 1 {
                    // Lanes 0 and n - 1 close together, beside random others.
                    let inner = Arc::get_mut(&mut p.inner).expect("not shared");
                    for lane in 0..n {
                        inner.lanes[lane] = digest_scoring(kd, lcg(&mut st));
                    }
                    let (wa, wb) = (inner.lane_weight[0], inner.lane_weight[n - 1]);
                    let sb = u64::MAX - (lcg(&mut st) >> (2 + round % 6));
                    let sa = crossing(sb, wa, wb)
                        .wrapping_add(round as u64 % 3)
                        .wrapping_sub(1);
                    inner.lanes[0] = digest_scoring(kd, sa);
                    inner.lanes[n - 1] = digest_scoring(kd, sb);
                    // The owner's pass over every group reads its own copy of the lanes.
                    if inner.interleaved.is_some() {
                        let groups = inner.groups.iter();
                        let lanes = &inner.lanes;
                        inner.interleaved =
                            crate::kernel::Interleaved::new(groups.map(|g| &lanes[g.start..g.end]));
                    }
                }
                let expected = reference_ranking(&p, kd);
                for k in 1..=n {
                    let mut out = [usize::MAX; Direct::MAX_LANES];
                    let direct = p.inner.direct.as_ref().or(p.inner.top_direct.as_ref());
                    if direct
                        .unwrap()
                        .top_lanes(p.inner.kernel, kd, &p.inner.lanes, &mut out[..k])
                    {
                        assert_eq!(&out[..k], &expected[..k], "{weights:?} {round} k={k}");
                        answered += 1;
                    } else {
                        assert!(
                            out[..k].iter().all(|&o| o == usize::MAX),
                            "written, declined"
                        );
                        declined += 1;
                    }
                    let mut out = [usize::MAX; Direct::MAX_LANES];
                    assert_eq!(p.rank_lanes_into(kd, &mut out[..k]), k);
                    assert_eq!(&out[..k], &expected[..k], "{weights:?} {round} k={k}");
                }
            }
        }
        assert!(
            answered > declined && declined > 0,
            "{answered} answered, {declined} declined"
        );
    }

    #[test]
    fn the_weighted_owner_on_crafted_near_ties_is_the_reference_order() {
        let mut st = 37u64;
        let mut ties = 0;
        for weights in [
            &[2.0, 1.0, 1.0, 3.0][..],
            &[1.0, 2.0, 3.0, 4.0, 1.0],
            &[4.0, 1.0, 0.0, 1.0, 2.0, 2.0, 8.0],
        ] {
            let mut p = weighted_placement(weights.iter().copied());
            assert!(p.inner.direct.is_some());
            let n = p.inner.lanes.len();
            for round in 0..400 {
                let kd = lcg(&mut st);
                // The heaviest lane (first) and one of the two lightest (last) tie or nearly tie;
                // in some rounds the other lightest lane has the same digest (equal scores, so
                // the ids decide).
                let (a, b) = (0, n - 1 - round % 2);
                let (wa, wb) = (p.inner.lane_weight[a], p.inner.lane_weight[b]);
                let (sa, sb) = match round % 4 {
                    // Whole draws `k` and `k * wa / wb` (a whole ratio here): an exact tie.
                    0 => {
                        let k = 1 + (round / 4) as u64 % 2;
                        let ratio = wa / wb;
                        (u64::MAX >> (ratio * k), u64::MAX >> k)
                    }
                    _ => {
                        let sb = u64::MAX - (lcg(&mut st) >> (2 + round % 6));
                        let sa = crossing(sb, wa, wb);
                        (sa.wrapping_add(round as u64 % 3).wrapping_sub(1), sb)
                    }
                };
                let tie = draw(sa) as u128 * wb as u128 == draw(sb) as u128 * wa as u128;
                ties += tie as usize;
                let inner = Arc::get_mut(&mut p.inner).expect("not shared");
                // The others draw at least 20 at weight 8 or less: after the pair.
                for lane in 0..n {
                    inner.lanes[lane] = digest_scoring(kd, lcg(&mut st) >> 20);
                }
                inner.lanes[a] = digest_scoring(kd, sa);
                inner.lanes[b] = digest_scoring(kd, sb);
                if round % 3 == 0 {
                    inner.lanes[(2 * n - 3) - b] = inner.lanes[b];
                }
                let expected = reference_owner_lane(&p, kd);
                assert_eq!(p.owner_lane(kd), expected, "{weights:?} {round}");
                if tie && round % 3 != 0 {
                    // The higher score of the tied pair.
                    assert_eq!(expected, b, "{weights:?} {round}");
                }
            }
        }
        assert!(ties >= 300, "{ties} exact ties");
    }

    #[test]
    fn the_weighted_owner_of_small_placements_is_the_reference_order() {
        use crate::{Node, Seed, Weight};
        let mut st = 41u64;
        let mut direct = 0;
        for round in 0..300 {
            let n = 2 + round % 40;
            let distinct = [2u64, 3, 4, 64, 1 << 12][round % 5];
            let nodes: Vec<Node> = (0..n)
                .map(|i| {
                    let w = (1 + lcg(&mut st) % distinct) as f64 * 0.25;
                    Node::new(alloc::format!("id{i}")).with_weight(Weight::new(w).unwrap())
                })
                .collect();
            let p = Placement::from_nodes(Seed::DEFAULT, nodes).unwrap();
            direct += p.inner.direct.is_some() as usize;
            for _ in 0..200 {
                let kd = lcg(&mut st);
                assert_eq!(p.owner_lane(kd), reference_owner_lane(&p, kd), "n={n}");
            }
        }
        assert!(direct > 100, "{direct}");
    }

    #[test]
    fn the_weighted_owner_through_the_groups_estimates_is_the_reference_order() {
        // Placements too large for the direct search of every node and with two to eight
        // weights: the estimates over the groups' best nodes, in every kernel, on random keys
        // and on crafted near ties and exact ties of two groups' best nodes.
        let mut st = 43u64;
        let mut ties = 0;
        for (round, weights) in [
            &[1.0, 2.0, 3.0, 4.0][..],
            &[2.0, 1.0],
            &[8.0, 1.0, 1.0, 3.0, 0.5],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        ]
        .iter()
        .flat_map(|w| [17usize, 40, 100].map(|n| (n, *w)))
        .enumerate()
        {
            let (n, weights) = weights;
            let mut p = weighted_placement((0..n).map(|i| weights[i % weights.len()]));
            assert!(
                p.inner.direct.is_none() && p.inner.group_direct.is_some(),
                "{n}"
            );
            let kernels: Vec<Kernel> = Kernel::available().collect();
            for &kernel in &kernels {
                Arc::get_mut(&mut p.inner).expect("not shared").kernel = kernel;
                for _ in 0..300 {
                    let kd = lcg(&mut st);
                    assert_eq!(
                        p.owner_lane(kd),
                        reference_owner_lane(&p, kd),
                        "{n} {kernel:?}"
                    );
                }
            }
            // The first lane (of the heaviest group) and the last (of the lightest) tie or
            // nearly tie; every other lane scores far below them.
            for case in 0..300 {
                let kd = lcg(&mut st);
                ties += plant_near_tie(&mut p, kd, case, &mut st, |_, _| {}) as usize;
                let expected = reference_owner_lane(&p, kd);
                for &kernel in &kernels {
                    Arc::get_mut(&mut p.inner).expect("not shared").kernel = kernel;
                    let got = p.owner_lane(kd);
                    assert_eq!(got, expected, "{n} {weights:?} {round} {case} {kernel:?}");
                }
            }
        }
        assert!(ties > 0, "no exact tie among the crafted cases");
    }

    #[test]
    fn ranking_estimates_by_key_is_the_sort() {
        // One to 32 estimates, random and with values repeated (equal ones: the lower position
        // first), and some zero: the first four (or all) as a sort by value and position gives.
        let mut st = 53u64;
        for n in 1..=Direct::MAX_LANES {
            for round in 0..500 {
                let mut estimates: Vec<f64> = (0..n)
                    .map(|_| (lcg(&mut st) >> 11) as f64 / 1024.0)
                    .collect();
                if round % 2 == 1 {
                    for _ in 0..n / 2 + 1 {
                        let (a, b) = (lcg(&mut st) as usize % n, lcg(&mut st) as usize % n);
                        estimates[b] = estimates[a];
                    }
                }
                if round % 5 == 0 {
                    estimates[lcg(&mut st) as usize % n] = 0.0;
                }
                let mut sorted: Vec<usize> = (0..n).collect();
                sorted.sort_by(|&a, &b| estimates[a].total_cmp(&estimates[b]).then(a.cmp(&b)));
                let mut order = [u8::MAX; Direct::MAX_LANES];
                rank_keyed(&estimates, &mut order);
                let k = n.min(KEYED_RANKS);
                let got: Vec<usize> = order[..k].iter().map(|&o| o as usize).collect();
                assert_eq!(got, sorted[..k], "n={n} round {round}: {estimates:?}");
            }
        }
    }

    #[test]
    fn the_merged_groups_ranking_is_the_reference_order() {
        // Grouped placements that keep the interleaved layout, two to eight weights: the first
        // two to four lanes from the merge of the groups' rankings, in every kernel, on random
        // keys; then on crafted keys where the best nodes of the heaviest and the lightest group
        // tie or nearly tie, the heaviest group's second node follows close behind, and every
        // other node scores far below (every other round, two nodes of the heaviest group share
        // a digest, so that its ranking may not begin with the node its best was). The last
        // weights give nodes 0, 1 and 2 a group each, far the heaviest (eight groups of 33
        // nodes still interleave): one of them mostly ranks first, and its group is used up.
        let mut st = 47u64;
        let (mut merged, mut ties) = (0, 0);
        for weights in [
            &[1.0, 2.0, 3.0, 4.0][..],
            &[2.0, 1.0],
            &[8.0, 1.0, 1.0, 3.0, 0.5],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
            &[64.0, 48.0, 32.0, 1.0, 2.0, 3.0, 4.0, 5.0],
        ] {
            let lone = weights[0] == 64.0;
            let sizes = match lone {
                true => &[33usize][..],
                false => &[33, 100, 333, MAX_MERGED_NODES],
            };
            for &n in sizes {
                let weight = |i: usize| match (lone, i) {
                    (true, 0..=2) => weights[i],
                    (true, _) => weights[3 + i % 5],
                    _ => weights[i % weights.len()],
                };
                let mut p = weighted_placement((0..n).map(weight));
                assert!(p.inner.grouped && p.inner.direct.is_none(), "{n}");
                let kernels: Vec<Kernel> = Kernel::available().collect();
                for case in 0..400 {
                    let kd = lcg(&mut st);
                    if case >= 200 {
                        let second = lcg(&mut st) >> 40;
                        let tie = plant_near_tie(&mut p, kd, case, &mut st, |lanes, sa| {
                            lanes[1] = match case % 2 {
                                0 => lanes[0],
                                _ => digest_scoring(kd, sa.saturating_sub(second)),
                            };
                        });
                        ties += tie as usize;
                    }
                    let expected = reference_ranking(&p, kd);
                    for &kernel in &kernels {
                        Arc::get_mut(&mut p.inner).expect("not shared").kernel = kernel;
                        for k in 2..=MERGED_K {
                            let mut out = [usize::MAX; MERGED_K];
                            assert_eq!(p.rank_lanes_into(kd, &mut out[..k]), k);
                            assert_eq!(
                                out[..k],
                                expected[..k],
                                "{n} {weights:?} {kernel:?} {case}"
                            );
                            let mut out = [usize::MAX; MERGED_K];
                            if p.rank_groups_merged(kd, &mut out[..k]) {
                                assert_eq!(out[..k], expected[..k], "{n} {kernel:?} {case} merged");
                                merged += 1;
                            }
                        }
                    }
                }
            }
        }
        // The merge needs the interleaved pass of a vector kernel (none without `std`).
        let vector = Kernel::available().any(|k| k != Kernel::Scalar);
        assert!(ties > 0, "no exact tie among the crafted cases");
        assert_eq!(merged > 10_000, vector, "{merged} merged");
    }

    #[test]
    fn best_keeps_equal_scores_in_arrival_order() {
        let mut best = Best::<3>::new();
        for (s, pos) in [(5u64, 0usize), (0, 1), (5, 2), (9, 3), (5, 4), (0, 5)] {
            best.push(s, pos);
        }
        assert_eq!(
            [best.get(0), best.get(1), best.get(2)],
            [(9, 3), (5, 0), (5, 2)]
        );
        // A score of zero still ranks before an empty slot.
        let mut zeros = Best::<2>::new();
        zeros.push(0, 0);
        assert_eq!((zeros.count, zeros.get(0)), (1, (0, 0)));
        zeros.push(0, 1);
        assert_eq!(zeros.get(1), (0, 1));
    }
}
