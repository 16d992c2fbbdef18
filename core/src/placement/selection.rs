//! The selection engine: a key's owner and its top-k nodes, found over the lanes of a
//! [`Placement`] with the kernels of [`crate::kernel`], in SPEC.md's ranking order.

use core::cmp::Ordering;

use super::Placement;
use crate::kernel::{keep_max, max_into, Few, Kernel};
use crate::v1::{draw, score};

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

    pub(super) fn owner_lane(&self, kd: u64) -> usize {
        let inner = &*self.inner;
        if inner.groups.len() == 1 {
            return inner.kernel.argmax(kd, &inner.lanes).1;
        }
        let mut best: Option<Keyed> = None;
        if inner.grouped {
            return self.owner_lane_grouped(kd);
        } else {
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
                if best.as_ref().is_none_or(|b| self.before(&k, b)) {
                    bound = DrawBound::new(&k);
                    best = Some(k);
                }
            }
        }
        best.map_or(0, |b| b.c.lane)
    }

    /// The owner among a few weight groups: each group's best node by score, then the best of
    /// those by weighted draw. Which group wins is random, so the comparison selects without a
    /// branch; only equal products, which are rare, take the exact path of [`Placement::before`].
    fn owner_lane_grouped(&self, kd: u64) -> usize {
        let inner = &*self.inner;
        let interleaved = inner
            .interleaved
            .as_ref()
            .and_then(|layout| inner.kernel.group_argmax(kd, layout));
        let interleaved = interleaved.as_ref();
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
        // Below 2^127 each: draws are at most 64 * 2^56 and weights below 2^64.
        let lhs = b.draw as u128 * a.weight as u128;
        let rhs = a.draw as u128 * b.weight as u128;
        let b_wins = if lhs == rhs {
            let keyed = |c: Contender| Keyed {
                draw: c.draw,
                c: Candidate {
                    score: c.score,
                    weight: c.weight,
                    lane: c.lane as usize,
                },
            };
            self.before(&keyed(b), &keyed(a))
        } else {
            lhs < rhs
        };
        let pick = |x, y| crate::kernel::select(b_wins, x, y);
        Contender {
            score: pick(b.score, a.score),
            draw: pick(b.draw, a.draw),
            weight: pick(b.weight, a.weight),
            lane: pick(b.lane, a.lane),
        }
    }

    /// Fills `out` with the first lanes of the ranking; returns how many.
    pub(super) fn rank_lanes_into(&self, kd: u64, out: &mut [usize]) -> usize {
        let inner = &*self.inner;
        let want = out.len().min(inner.lanes.len());
        match want {
            0 => return 0,
            1 => {
                out[0] = self.owner_lane(kd);
                return 1;
            }
            _ if want == inner.lanes.len() => {
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
        // Weighted: the group-local top lists (or every node) compete on their weighted keys.
        let mut top = TopKeyed {
            entries: [None; SMALL_K],
            len: 0,
            want,
        };
        if inner.grouped {
            for g in &inner.groups {
                let mut local = TopScores::new(want);
                let lanes = &inner.lanes[g.start..g.end];
                top_scores(inner.kernel, kd, lanes, g.hit_step, &mut local);
                for &(s, pos) in local.entries() {
                    top.offer(
                        self,
                        self.keyed(Candidate {
                            score: s,
                            weight: g.weight,
                            lane: g.start + pos,
                        }),
                    );
                }
            }
        } else {
            let mut bound = DrawBound::default();
            for lane in 0..inner.lanes.len() {
                let s = score(kd, inner.lanes[lane]);
                if bound.cannot_beat(s, inner.lane_weight_f64[lane]) {
                    continue;
                }
                top.offer(
                    self,
                    self.keyed(Candidate {
                        score: s,
                        weight: inner.lane_weight[lane],
                        lane,
                    }),
                );
                if let Some(last) = top.full_last() {
                    bound = DrawBound::new(last);
                }
            }
        }
        for (slot, k) in out.iter_mut().zip(&top.entries[..top.len]) {
            *slot = k.expect("filled").c.lane;
        }
        top.len
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
    fn offer(&mut self, placement: &Placement, k: Keyed) {
        let entry = |i: usize, e: &[Option<Keyed>]| e[i].expect("filled");
        if self.len == self.want && !placement.before(&k, &entry(self.want - 1, &self.entries)) {
            return;
        }
        let mut i = self.len.min(self.want - 1);
        while i > 0 && placement.before(&k, &entry(i - 1, &self.entries)) {
            self.entries[i] = self.entries[i - 1];
            i -= 1;
        }
        self.entries[i] = Some(k);
        self.len = (self.len + 1).min(self.want);
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
    let expected_hits = 2 * want as u64 + 2;
    let fast = match kernel.top_few(kd, lanes, threshold(lanes, hit_step, expected_hits), out) {
        Few::Written => return,
        Few::Lacking => None,
        Few::Declined => top_above(
            kernel,
            kd,
            lanes,
            hit_step,
            expected_hits,
            want,
            |j, pair| out[j] = pair.1,
        ),
    };
    if fast.is_none() {
        let mut top = TopScores::new(want);
        top_scores_scan(kernel, kd, lanes, &mut top);
        for (slot, &(_, pos)) in out.iter_mut().zip(top.entries()) {
            *slot = pos;
        }
    }
}

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
            for &pos in positions {
                best.push(score(kd, lanes[pos as usize]), pos as usize);
            }
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
    use super::*;
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
