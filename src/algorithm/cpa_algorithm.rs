//! The CPA algorithm (Alg. 1 of paper 002) over a reached set that is also
//! the abstract reachability graph: every entry knows its parent and the step
//! that produced it, so a path to a target can be read back.

use std::collections::{BinaryHeap, VecDeque};

use crate::hash::HashMap;

use crate::cpa::Cpa;
use crate::smt::work;

/// Order in which the waitlist is explored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitlistOrder {
    BreadthFirst,
    DepthFirst,
    /// By [`Cpa::priority`], newer states first among equals.
    Priority,
}

pub use crate::cpa::Step;

/// A node of the abstract reachability graph.
#[derive(Debug)]
pub struct ArgNode<S, P> {
    pub state: S,
    pub precision: P,
    pub parent: Option<(usize, Step)>,
}

/// `reached` and `waitlist` of Alg. 1.
pub struct Reached<S, P> {
    pub nodes: Vec<ArgNode<S, P>>,
    partitions: HashMap<u64, Vec<usize>>,
    waitlist: VecDeque<usize>,
    heap: BinaryHeap<((u64, u64), usize)>,
    /// Whether each node is in the waitlist.
    queued: Vec<bool>,
    order: WaitlistOrder,
}

/// Why [`run`] returned.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A target state was reached (its node index).
    Target(usize),
    /// The waitlist is empty: the fixed point.
    Done,
    /// `interrupt` asked to stop (a budget ran out).
    Interrupted,
}

impl<S: Clone + PartialEq, P: Clone> Reached<S, P> {
    /// `reached = waitlist = {(e0, π0)}` with the CPA's initial state and
    /// precision at `start`.
    pub fn start<C: Cpa<State = S, Precision = P>>(
        cpa: &C,
        start: crate::cfa::LocId,
        order: WaitlistOrder,
    ) -> Self {
        Self::new(
            cpa,
            cpa.initial_state(start),
            cpa.initial_precision(start),
            order,
        )
    }

    /// `reached = waitlist = {(e0, π0)}`.
    pub fn new<C: Cpa<State = S, Precision = P>>(
        cpa: &C,
        e0: S,
        p0: P,
        order: WaitlistOrder,
    ) -> Self {
        let mut r = Reached {
            nodes: Vec::new(),
            partitions: HashMap::default(),
            waitlist: VecDeque::new(),
            heap: BinaryHeap::new(),
            queued: Vec::new(),
            order,
        };
        let key = cpa.partition_key(&e0);
        r.nodes.push(ArgNode {
            state: e0,
            precision: p0,
            parent: None,
        });
        r.queued.push(false);
        r.partitions.entry(key).or_default().push(0);
        r.enqueue(cpa, 0);
        r
    }

    pub fn waitlist_len(&self) -> usize {
        self.waitlist.len() + self.heap.len()
    }

    fn enqueue<C: Cpa<State = S, Precision = P>>(&mut self, cpa: &C, n: usize) {
        if self.queued[n] {
            return;
        }
        self.queued[n] = true;
        match self.order {
            WaitlistOrder::Priority => {
                let prio = cpa.priority(&self.nodes[n].state);
                self.heap.push((prio, n));
            }
            _ => self.waitlist.push_back(n),
        }
    }

    /// Applies `f` to the precision of every state in the waitlist (the
    /// `disable` of Alg. 2 of paper 002).
    pub fn adjust_waitlist_precisions(&mut self, mut f: impl FnMut(&mut P)) {
        for (n, queued) in self.queued.iter().enumerate() {
            if *queued {
                f(&mut self.nodes[n].precision);
            }
        }
    }

    fn choose(&mut self) -> Option<usize> {
        let n = match self.order {
            WaitlistOrder::BreadthFirst => self.waitlist.pop_front(),
            WaitlistOrder::DepthFirst => self.waitlist.pop_back(),
            WaitlistOrder::Priority => self.heap.pop().map(|(_, n)| n),
        }?;
        self.queued[n] = false;
        Some(n)
    }
}

/// Runs Alg. 1 until a target is reached (a new state, or a reached one
/// that a merge made a target), the waitlist is empty, or
/// `interrupt(reached size)` returns true (checked before each expansion).
/// The state being expanded when a target is found goes back to the
/// waitlist, so its other successors are formed in the next call.
/// Counts the transitions taken in `transitions`.
pub fn run<C: Cpa>(
    cpa: &C,
    reached: &mut Reached<C::State, C::Precision>,
    transitions: &mut u64,
    interrupt: &mut dyn FnMut(usize) -> bool,
) -> Outcome {
    while reached.waitlist_len() > 0 {
        if interrupt(reached.nodes.len()) {
            return Outcome::Interrupted;
        }
        let Some(n) = reached.choose() else { break };
        let (state, prec) = (
            reached.nodes[n].state.clone(),
            reached.nodes[n].precision.clone(),
        );
        for t in cpa.transitions(&state) {
            for succ in cpa.transfer(&state, &t, &prec) {
                *transitions += 1;
                work::charge(work::TRANSFER);
                let Some((succ, sprec)) = cpa.prec(succ, prec.clone()) else {
                    continue;
                };
                let key = cpa.partition_key(&succ);
                // merge (line 6-10): merge-sep components keep the reached state as it is.
                // The partition does not change while it is merged into.
                let size = reached.partitions.get(&key).map_or(0, Vec::len);
                work::charge(size as u64 / work::COMPARISONS_PER_UNIT);
                let mut became_target = None;
                for i in 0..size {
                    let r = reached.partitions[&key][i];
                    let Some(merged) = cpa.merge(&succ, &reached.nodes[r].state, &sprec) else {
                        continue;
                    };
                    if merged != reached.nodes[r].state {
                        if cpa.is_target(&merged) && !cpa.is_target(&reached.nodes[r].state) {
                            became_target = Some(r);
                        }
                        reached.nodes[r].state = merged;
                        reached.nodes[r].precision = sprec.clone();
                        reached.enqueue(cpa, r);
                    }
                }
                // stop (line 11)
                let covered = {
                    let part = reached
                        .partitions
                        .get(&key)
                        .map(Vec::as_slice)
                        .unwrap_or(&[]);
                    let mut it = part.iter().map(|&r| &reached.nodes[r].state);
                    cpa.stop(&succ, &mut it, &sprec)
                };
                if covered {
                    if let Some(r) = became_target {
                        reached.enqueue(cpa, n);
                        return Outcome::Target(r);
                    }
                    continue;
                }
                let idx = reached.nodes.len();
                let target = cpa.is_target(&succ);
                reached.nodes.push(ArgNode {
                    state: succ,
                    precision: sprec,
                    parent: Some((n, Step::of(&t))),
                });
                reached.partitions.entry(key).or_default().push(idx);
                reached.queued.push(false);
                reached.enqueue(cpa, idx);
                if target {
                    // The rest of `n`'s successors are not formed yet: `n`
                    // goes back to the waitlist, and its re-expansion skips
                    // the successors already reached (stop).
                    reached.enqueue(cpa, n);
                    return Outcome::Target(idx);
                }
                if let Some(r) = became_target {
                    reached.enqueue(cpa, n);
                    return Outcome::Target(r);
                }
            }
        }
    }
    Outcome::Done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpa::composite::{MergePolicy, NoData};
    use crate::cpa::loom::{LoomCpa, LoomGoal, LoomProperty};
    use crate::frontend::{parse_source, FrontendOptions};
    use crate::spec::PropertyId;

    fn check(src: &str) -> (Outcome, usize) {
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let error = LoomProperty {
            id: PropertyId(0),
            goal: LoomGoal::Label("ERROR".into()),
        };
        let cpa = LoomCpa::new(&p, &[], vec![error], NoData, MergePolicy::LoopHeads);
        let start = p.start.unwrap();
        let mut r = Reached::start(&cpa, start, WaitlistOrder::BreadthFirst);
        let mut n = 0;
        let out = run(&cpa, &mut r, &mut n, &mut |_| false);
        (out, r.nodes.len())
    }

    #[test]
    fn finds_a_label_inside_a_called_function() {
        let (out, _) =
            check("void f(int x) { if (x) { ERROR: ; } } int main(void) { f(1); return 0; }");
        assert!(matches!(out, Outcome::Target(_)));
    }

    #[test]
    fn unreachable_labels_reach_the_fixed_point() {
        let (out, _) = check("void g(void) { ERROR: ; } void f(void) { } int main(void) { while (1) f(); return 0; }");
        assert_eq!(out, Outcome::Done);
        let (out, _) = check("void abort(void); int main(void) { abort(); ERROR: return 0; }");
        assert_eq!(out, Outcome::Done, "abort ends the path");
    }

    #[test]
    fn returns_go_back_to_the_calling_site_only() {
        // f is called from two places; only the second call site leads to ERROR.
        let src = "void f(void) { } int main(int c) { f(); if (0) { ERROR: ; } f(); return 0; }";
        let (out, nodes) = check(src);
        assert_eq!(out, Outcome::Done);
        assert!(nodes > 5);
    }

    #[test]
    fn recursion_is_cut_and_terminates() {
        let (out, _) = check("int r(int n) { if (n) return r(n - 1); return 0; } int main(void) { r(5); ERROR: return 0; }");
        assert!(
            matches!(out, Outcome::Target(_)),
            "the code after the recursive call stays reachable"
        );
    }
}
