//! Ramps: a membership change split into steps that each move at most a given fraction of the
//! keys (`conformance/VIEW.md`, "Ramps").
//!
//! Every weight travels in a straight line from its old value to its new one, on a grid of
//! [`GRID`] positions; a joining node starts at weight 0, a leaving node ends at 0 and is removed
//! in one last step that moves no key. Each step goes as far along the line as the limit allows,
//! with the movement computed exactly from the weights ([`crate::Transition::expected_moved`]),
//! and all arithmetic that decides the plan is specified, so every language gets the same plan.

use alloc::vec::Vec;

use crate::transition::{expected_moved, optimum, WeightPair};
use crate::view::View;
use crate::{Error, Node, Placement, Weight};

/// Positions of the line from the old weights (0) to the new ones (`GRID`).
pub const GRID: u32 = 1 << 16;

/// The most a ramp may cost to plan (VIEW.md 7, "Cost"), in steps that move keys times the
/// number of ids on the ramp (tracks): each such step evaluates the movement formula over every
/// track about 17 times. Past it the plan is [`Error::ResultTooLarge`]. Measured at about 10 µs
/// per unit on one core (release build, 2026), so a plan costs at most about 20 s.
pub const MAX_RAMP_COST: u64 = 1 << 21;

/// One step of a ramp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RampStep {
    /// The epoch of the step's view: the old view's epoch plus the step's 1-based number.
    pub epoch: u64,
    /// Where the weights are on the line, 0..=[`GRID`].
    pub position: u32,
    /// Expected fraction of all keys that change owner from the previous step to this one.
    pub moved: f64,
    /// Whether this is the last step, which removes the drained leaving nodes.
    pub removes_drained: bool,
}

/// One id on the ramp.
struct Track {
    /// Node of the target view, or of the old view for a leaving node (id and domain).
    node: Node,
    old: u64,
    new: u64,
    leaving: bool,
}

/// A ramp from one view to another; the step views are built on demand by [`RampPlan::view`].
///
/// ```
/// use hrwhash::{Placement, RampPlan, View};
///
/// let old = View::new(Placement::new(["a", "b", "c", "d"])?, 10)?;
/// let new = View::new(Placement::new(["a", "b", "c", "d", "e"])?, 11)?;
/// let ramp = RampPlan::new(&old, &new, 0.05)?;
/// assert!(ramp.steps().iter().all(|s| s.moved <= 0.05));
/// // 20% in steps of at most 5%: the grid keeps each step just below 5%, so a fifth one is left.
/// assert_eq!(ramp.steps().len(), 5);
/// assert!((ramp.total_moved() - ramp.direct_moved()).abs() < 1e-12); // keys only ever go to e
/// let last = ramp.view(ramp.steps().len() - 1)?;
/// assert_eq!(last.fingerprint(), new.fingerprint());
/// assert_eq!(last.epoch(), 15);
/// # Ok::<(), hrwhash::Error>(())
/// ```
pub struct RampPlan {
    old: View,
    new: View,
    tracks: Vec<Track>,
    steps: Vec<RampStep>,
    max_move: f64,
    direct: f64,
    optimum: f64,
}

impl core::fmt::Debug for RampPlan {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RampPlan")
            .field("from", &self.old.fingerprint())
            .field("to", &self.new.fingerprint())
            .field("max_move", &self.max_move)
            .field("steps", &self.steps.len())
            .finish()
    }
}

impl RampPlan {
    /// Plans the ramp from `old` to `new` moving at most `max_move` (a fraction in (0, 1]) of the
    /// keys per step. Fails with [`Error::SeedMismatch`] when the seeds differ (every key moves
    /// then, however gradual the weights), [`Error::InvalidMoveLimit`] for a limit outside (0, 1]
    /// or too small to advance one grid position, [`Error::ResultTooLarge`] before a step that
    /// would take the plan past [`MAX_RAMP_COST`], and [`Error::AllWeightsZero`] should a step
    /// have no selectable node.
    pub fn new(old: &View, new: &View, max_move: f64) -> Result<RampPlan, Error> {
        RampPlan::within(old, new, max_move, MAX_RAMP_COST)
    }

    fn within(old: &View, new: &View, max_move: f64, max_cost: u64) -> Result<RampPlan, Error> {
        if !(max_move > 0.0 && max_move <= 1.0) {
            return Err(Error::InvalidMoveLimit { value: max_move });
        }
        if old.placement().seed() != new.placement().seed() {
            return Err(Error::SeedMismatch);
        }
        let tracks = tracks(old.placement(), new.placement());
        let mut plan = RampPlan {
            old: old.clone(),
            new: new.clone(),
            steps: Vec::new(),
            max_move,
            direct: movement(&tracks, 0, GRID),
            optimum: optimum(&pairs(&tracks, 0, GRID)),
            tracks,
        };
        if old.fingerprint() == new.fingerprint() {
            return Ok(plan);
        }
        let mut at = 0u32;
        while at < GRID {
            let steps = plan.steps.len() as u64 + 1;
            if steps.saturating_mul(plan.tracks.len() as u64) > max_cost {
                return Err(Error::ResultTooLarge);
            }
            let next = if movement(&plan.tracks, at, GRID) <= max_move {
                GRID
            } else {
                let (mut lo, mut hi) = (at, GRID);
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if movement(&plan.tracks, at, mid) <= max_move {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                lo
            };
            if next == at {
                return Err(Error::InvalidMoveLimit { value: max_move });
            }
            if plan.tracks.iter().all(|t| weight_at(t, next) == 0) {
                return Err(Error::AllWeightsZero);
            }
            plan.push(next, movement(&plan.tracks, at, next), false)?;
            at = next;
        }
        if plan.tracks.iter().any(|t| t.leaving) {
            plan.push(GRID, 0.0, true)?;
        }
        Ok(plan)
    }

    fn push(&mut self, position: u32, moved: f64, removes_drained: bool) -> Result<(), Error> {
        let epoch = self
            .old
            .epoch()
            .checked_add(self.steps.len() as u64 + 1)
            .ok_or(Error::InvalidView {
                field: "epoch".into(),
                index: None,
                reason: crate::Fault::OutOfRange,
            })?;
        self.steps.push(RampStep {
            epoch,
            position,
            moved,
            removes_drained,
        });
        Ok(())
    }

    /// The steps, in order. Empty when the two views already place keys alike.
    pub fn steps(&self) -> &[RampStep] {
        &self.steps
    }

    /// The per-step limit.
    pub fn max_move(&self) -> f64 {
        self.max_move
    }

    /// Sum of the steps' expected movements (a key that moves twice counts twice).
    pub fn total_moved(&self) -> f64 {
        // From +0.0 in step order (VIEW.md 7); `Sum` for floats would start from -0.0.
        self.steps.iter().fold(0.0, |sum, s| sum + s.moved)
    }

    /// Expected movement of switching directly from the old view to the new one.
    pub fn direct_moved(&self) -> f64 {
        self.direct
    }

    /// The least movement any scheme needs for the new shares (see [`crate::Transition::optimum`]).
    pub fn optimum(&self) -> f64 {
        self.optimum
    }

    /// The fixed-point weights of step `step` (0-based): for every node of the step's view, its
    /// id and weight, in the view's node order.
    pub fn weights(&self, step: usize) -> Option<Vec<(&[u8], Weight)>> {
        let s = self.steps.get(step)?;
        Some(
            self.tracks
                .iter()
                .filter(|t| !(s.removes_drained && t.leaving))
                .map(|t| (t.node.id(), Weight::from_fixed(weight_at(t, s.position))))
                .collect(),
        )
    }

    /// The view of step `step` (0-based). The last step's view has the new view's membership
    /// (equal fingerprint) at the old epoch plus the number of steps; `IndexOutOfRange` past the
    /// last step.
    pub fn view(&self, step: usize) -> Result<View, Error> {
        let s = self.steps.get(step).ok_or(Error::IndexOutOfRange {
            index: step,
            len: self.steps.len(),
        })?;
        let last = step + 1 == self.steps.len();
        let leaving = self.tracks.iter().any(|t| t.leaving);
        if last && (s.removes_drained || !leaving) {
            return Ok(self.new.with_epoch(s.epoch));
        }
        let nodes: Vec<Node> = self
            .tracks
            .iter()
            .map(|t| {
                t.node
                    .clone()
                    .with_weight(Weight::from_fixed(weight_at(t, s.position)))
            })
            .collect();
        View::new(
            Placement::from_nodes(self.new.placement().seed(), nodes)?,
            s.epoch,
        )
    }
}

/// Every node of the new view in its order, then the leaving nodes in the old view's order.
fn tracks(old: &Placement, new: &Placement) -> Vec<Track> {
    let t = crate::Transition::new(old, new);
    let mut out: Vec<Track> = new
        .node_specs()
        .iter()
        .enumerate()
        .map(|(j, n)| Track {
            node: n.clone(),
            old: t
                .new_to_old(j)
                .map_or(0, |i| old.node_specs()[i].weight().to_fixed()),
            new: n.weight().to_fixed(),
            leaving: false,
        })
        .collect();
    out.extend(
        old.node_specs()
            .iter()
            .enumerate()
            .filter(|(i, _)| t.old_to_new(*i).is_none())
            .map(|(_, n)| Track {
                node: n.clone(),
                old: n.weight().to_fixed(),
                new: 0,
                leaving: true,
            }),
    );
    out
}

/// The weight at grid position `s`: `floor((old * (GRID - s) + new * s) / GRID)`, rounded to the
/// nearest integer with at most 53 significant bits (ties to even) so that views can carry it.
fn weight_at(t: &Track, s: u32) -> u64 {
    match s {
        0 => t.old,
        GRID => t.new,
        _ => {
            let x = (t.old as u128 * (GRID - s) as u128 + t.new as u128 * s as u128) / GRID as u128;
            // Converting to binary64 rounds to 53 bits, ties to even; the result is an integer.
            (x as u64) as f64 as u64
        }
    }
}

fn pairs(tracks: &[Track], from: u32, to: u32) -> Vec<WeightPair<'_>> {
    let mut p: Vec<WeightPair<'_>> = tracks
        .iter()
        .map(|t| WeightPair {
            id: t.node.id(),
            old: weight_at(t, from),
            new: weight_at(t, to),
        })
        .collect();
    p.sort_unstable_by(|a, b| a.id.cmp(b.id));
    p
}

fn movement(tracks: &[Track], from: u32, to: u32) -> f64 {
    expected_moved(pairs(tracks, from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every step that moves keys is charged the number of tracks before it is searched: a plan
    /// of five such steps over five tracks fits a cap of 25 and fails at 24, before its fifth.
    #[test]
    fn plans_are_capped() {
        let old = View::new(Placement::new(["a", "b", "c", "d"]).unwrap(), 10).unwrap();
        let new = View::new(Placement::new(["a", "b", "c", "d", "e"]).unwrap(), 11).unwrap();
        let plan = RampPlan::within(&old, &new, 0.05, 25).unwrap();
        assert_eq!((plan.steps().len(), plan.tracks.len()), (5, 5));
        assert_eq!(
            plan.steps().len(),
            RampPlan::new(&old, &new, 0.05).unwrap().steps().len()
        );
        assert_eq!(
            RampPlan::within(&old, &new, 0.05, 24).unwrap_err(),
            Error::ResultTooLarge
        );
        // The check comes before the search: a limit too small to advance is past a cap of 0.
        assert_eq!(
            RampPlan::within(&old, &new, 1e-300, 0).unwrap_err(),
            Error::ResultTooLarge
        );
    }
    use crate::Transition;

    fn view(nodes: &[(&str, f64)], epoch: u64) -> View {
        View::new(Placement::weighted(nodes.iter().copied()).unwrap(), epoch).unwrap()
    }

    #[test]
    fn limits_are_checked() {
        let a = view(&[("a", 1.0)], 0);
        let b = view(&[("a", 1.0), ("b", 1.0)], 0);
        for bad in [0.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                RampPlan::new(&a, &b, bad),
                Err(Error::InvalidMoveLimit { .. })
            ));
        }
        // One grid position already moves more than 1e-9 of the keys.
        assert!(matches!(
            RampPlan::new(&a, &b, 1e-9),
            Err(Error::InvalidMoveLimit { .. })
        ));
        let other = View::new(
            Placement::from_nodes(crate::Seed::from_bytes([1; 16]), [Node::new("a")]).unwrap(),
            0,
        )
        .unwrap();
        assert_eq!(
            RampPlan::new(&a, &other, 0.1).unwrap_err(),
            Error::SeedMismatch
        );
        assert!(RampPlan::new(&a, &a.with_epoch(5), 0.1)
            .unwrap()
            .steps()
            .is_empty());
    }

    #[test]
    fn drain_and_join_ends_at_the_target() {
        let old = view(&[("a", 1.0), ("b", 1.0), ("c", 1.0)], 3);
        let new = view(&[("a", 1.0), ("c", 1.0), ("d", 2.0)], 9);
        let plan = RampPlan::new(&old, &new, 0.1).unwrap();
        let steps = plan.steps();
        assert!(steps.iter().all(|s| s.moved <= 0.1));
        let last = steps.last().unwrap();
        assert!(last.removes_drained && last.moved == 0.0);
        assert_eq!(steps[steps.len() - 2].position, GRID);
        for (i, s) in steps.iter().enumerate() {
            assert_eq!(s.epoch, 4 + i as u64);
            let v = plan.view(i).unwrap();
            assert_eq!(v.epoch(), s.epoch);
            let prev = if i == 0 {
                old.clone()
            } else {
                plan.view(i - 1).unwrap()
            };
            let exact = Transition::new(&prev, &v).expected_moved();
            assert_eq!(exact.to_bits(), s.moved.to_bits(), "step {i}");
        }
        assert_eq!(
            plan.view(steps.len() - 1).unwrap().fingerprint(),
            new.fingerprint()
        );
        // The drained node is still listed, at 0, in the step before the last.
        let before_last = plan.weights(steps.len() - 2).unwrap();
        assert!(before_last.contains(&(&b"b"[..], Weight::ZERO)));
        assert!(plan.total_moved() >= plan.direct_moved() - 1e-12);
        assert!((plan.direct_moved() - 0.6).abs() < 1e-12);
        assert!((plan.optimum() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn weights_move_in_straight_lines() {
        let t = Track {
            node: Node::new("x"),
            old: 3 << 32,
            new: 1 << 32,
            leaving: false,
        };
        assert_eq!(weight_at(&t, 0), 3 << 32);
        assert_eq!(weight_at(&t, GRID / 2), 2 << 32);
        assert_eq!(weight_at(&t, GRID), 1 << 32);
        let big = Track {
            node: Node::new("y"),
            old: 0,
            new: u64::MAX - 2047,
            leaving: false,
        };
        let w = weight_at(&big, 12345);
        assert!(64 - w.leading_zeros() - w.trailing_zeros() <= 53);
    }
}
