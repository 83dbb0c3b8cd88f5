//! The CPA algorithm (Alg. 1 of paper 002) over a reached set that is also
//! the abstract reachability graph: every entry knows its parent and the step
//! that produced it, so a path to a target can be read back.
//!
//! Lazy abstraction cuts the graph: [`Reached::cut`] removes a node and
//! every node below it, and puts back in the waitlist the nodes whose
//! successors must be formed again — the removed subtree's parent, and
//! each node one of whose successors was covered by a removed node (the
//! reached set remembers, per partition, which nodes had a successor
//! covered there).

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
    /// Whether each node was removed by a [`Reached::cut`].
    dead: Vec<bool>,
    /// Each node's partition key.
    keys: Vec<u64>,
    /// Per partition key: the nodes with a successor that `stop` found
    /// covered in that partition (each node once per run of successors).
    covered_in: HashMap<u64, Vec<usize>>,
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
            dead: Vec::new(),
            keys: Vec::new(),
            covered_in: HashMap::default(),
            order,
        };
        r.push(cpa, e0, p0, None);
        r
    }

    /// Adds a node to the reached set and the waitlist; its index.
    fn push<C: Cpa<State = S, Precision = P>>(
        &mut self,
        cpa: &C,
        state: S,
        precision: P,
        parent: Option<(usize, Step)>,
    ) -> usize {
        let idx = self.nodes.len();
        let key = cpa.partition_key(&state);
        self.nodes.push(ArgNode {
            state,
            precision,
            parent,
        });
        self.partitions.entry(key).or_default().push(idx);
        self.queued.push(false);
        self.dead.push(false);
        self.keys.push(key);
        self.enqueue(cpa, idx);
        idx
    }

    /// The nodes of the graph, without those cuts removed.
    pub fn live_nodes(&self) -> impl Iterator<Item = &ArgNode<S, P>> {
        self.nodes
            .iter()
            .zip(&self.dead)
            .filter(|(_, d)| !**d)
            .map(|(n, _)| n)
    }

    /// The path from the root to node `n`: node indices, root first.
    pub fn path_to(&self, n: usize) -> Vec<usize> {
        let mut path = vec![n];
        let mut at = n;
        while let Some((p, _)) = self.nodes[at].parent {
            path.push(p);
            at = p;
        }
        path.reverse();
        path
    }

    /// Removes node `pivot` (not the root) and every node below it, and
    /// puts back in the waitlist the nodes whose successors are to be
    /// formed again: `pivot`'s parent, and every node that had a successor
    /// covered in a partition a removed node was in. `reprec` adjusts the
    /// precision of every node in the waitlist afterwards. Merges join
    /// states of one block only, below one abstraction: a cut at an
    /// abstraction removes every state merged into a removed one. Node
    /// indices taken before a cut are void after it (the removed nodes may
    /// be dropped and the others renumbered).
    pub fn cut<C: Cpa<State = S, Precision = P>>(
        &mut self,
        cpa: &C,
        pivot: usize,
        mut reprec: impl FnMut(&mut P),
    ) {
        let Some((parent, _)) = self.nodes[pivot].parent else {
            return;
        };
        // Children come after their parents, and the children of a node
        // an earlier cut removed are removed: one pass marks the subtree.
        let mut keys: Vec<u64> = Vec::new();
        for i in pivot..self.nodes.len() {
            let below = i == pivot || self.nodes[i].parent.is_some_and(|(p, _)| self.dead[p]);
            if below && !self.dead[i] {
                self.dead[i] = true;
                self.queued[i] = false;
                keys.push(self.keys[i]);
            }
        }
        keys.sort_unstable();
        keys.dedup();
        let mut again = vec![parent];
        for k in &keys {
            if let Some(part) = self.partitions.get_mut(k) {
                part.retain(|&i| !self.dead[i]);
            }
            if let Some(nodes) = self.covered_in.get(k) {
                again.extend(nodes.iter().copied());
            }
        }
        // In node order: partition keys may hash addresses (LOOM's pending
        // operations), so their order differs from run to run.
        again.sort_unstable();
        again.dedup();
        for n in again {
            if !self.dead[n] {
                self.enqueue(cpa, n);
            }
        }
        self.adjust_waitlist_precisions(&mut reprec);
        if 2 * self.dead.iter().filter(|d| **d).count() > self.nodes.len() {
            self.compact();
        }
    }

    /// Drops the nodes cuts removed, renumbering the others (in order:
    /// parents stay before their children).
    fn compact(&mut self) {
        let mut index = vec![usize::MAX; self.nodes.len()];
        let mut next = 0;
        for (i, d) in self.dead.iter().enumerate() {
            if !d {
                index[i] = next;
                next += 1;
            }
        }
        let nodes = std::mem::take(&mut self.nodes);
        self.nodes = nodes
            .into_iter()
            .zip(&self.dead)
            .filter(|(_, d)| !**d)
            .map(|(mut n, _)| {
                n.parent = n.parent.map(|(p, s)| (index[p], s));
                n
            })
            .collect();
        let keep = |v: &mut Vec<usize>| {
            v.retain(|&i| index[i] != usize::MAX);
            v.iter_mut().for_each(|i| *i = index[*i]);
        };
        self.partitions.values_mut().for_each(keep);
        self.covered_in.values_mut().for_each(keep);
        let live = |i: &usize| !self.dead[*i];
        self.queued = (0..self.dead.len())
            .filter(live)
            .map(|i| self.queued[i])
            .collect();
        self.keys = (0..self.dead.len())
            .filter(live)
            .map(|i| self.keys[i])
            .collect();
        self.waitlist = self
            .waitlist
            .iter()
            .filter(|&&i| index[i] != usize::MAX)
            .map(|&i| index[i])
            .collect();
        self.heap = self
            .heap
            .drain()
            .filter(|&(_, i)| index[i] != usize::MAX)
            .map(|(p, i)| (p, index[i]))
            .collect();
        self.dead = vec![false; self.nodes.len()];
    }

    pub fn waitlist_len(&self) -> usize {
        self.waitlist.len() + self.heap.len()
    }

    fn enqueue<C: Cpa<State = S, Precision = P>>(&mut self, cpa: &C, n: usize) {
        if self.queued[n] || self.dead[n] {
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
        loop {
            let n = match self.order {
                WaitlistOrder::BreadthFirst => self.waitlist.pop_front(),
                WaitlistOrder::DepthFirst => self.waitlist.pop_back(),
                WaitlistOrder::Priority => self.heap.pop().map(|(_, n)| n),
            }?;
            // A node a cut removed stays in the queue, unmarked.
            if self.queued[n] {
                self.queued[n] = false;
                return Some(n);
            }
        }
    }

    /// Records that a successor of `n` was covered in partition `key`.
    fn note_covered(&mut self, key: u64, n: usize) {
        let nodes = self.covered_in.entry(key).or_default();
        if nodes.last() != Some(&n) {
            nodes.push(n);
        }
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
                    reached.note_covered(key, n);
                    if let Some(r) = became_target {
                        reached.enqueue(cpa, n);
                        return Outcome::Target(r);
                    }
                    continue;
                }
                let target = cpa.is_target(&succ);
                let idx = reached.push(cpa, succ, sprec, Some((n, Step::of(&t))));
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

    /// A CPA that finds one step infeasible once told which: a refinement
    /// that makes a part of the reached set unreachable.
    struct Blocking<C> {
        inner: C,
        blocked: std::cell::Cell<Option<Step>>,
    }

    impl<C: Cpa> Cpa for Blocking<C> {
        type State = C::State;
        type Precision = C::Precision;
        fn initial_state(&self, start: crate::cfa::LocId) -> C::State {
            self.inner.initial_state(start)
        }
        fn initial_precision(&self, start: crate::cfa::LocId) -> C::Precision {
            self.inner.initial_precision(start)
        }
        fn transfer(
            &self,
            s: &C::State,
            t: &crate::cpa::Transition,
            p: &C::Precision,
        ) -> Vec<C::State> {
            if self.blocked.get() == Some(Step::of(t)) {
                return Vec::new();
            }
            self.inner.transfer(s, t, p)
        }
        fn less_or_equal(&self, a: &C::State, b: &C::State) -> bool {
            self.inner.less_or_equal(a, b)
        }
        fn merge(&self, n: &C::State, r: &C::State, p: &C::Precision) -> Option<C::State> {
            self.inner.merge(n, r, p)
        }
        fn transitions<'a>(&'a self, s: &'a C::State) -> Vec<crate::cpa::Transition<'a>> {
            self.inner.transitions(s)
        }
        fn partition_key(&self, s: &C::State) -> u64 {
            self.inner.partition_key(s)
        }
    }

    /// The (location, call stack) pairs of the live nodes.
    fn live_places<S: std::fmt::Debug + Clone + PartialEq, P: Clone>(
        r: &Reached<S, P>,
    ) -> std::collections::BTreeSet<String> {
        r.live_nodes().map(|n| format!("{:?}", n.state)).collect()
    }

    #[test]
    fn a_cut_subtree_is_explored_again_under_the_new_transfer() {
        // After `if`/`else`, the second branch's state is covered by the
        // first's; a cut in the first branch whose step then turns
        // infeasible leaves the second branch to reach what follows.
        let src = "int g; void f(int c) { if (c) g = 1; else g = 2; g = 3; } \
                   int main(int c) { int x; if (c) x = 1; else x = 2; x = 3; \
                   f(c); while (x < 9) { f(x); x++; } return 0; }";
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let cpa = Blocking {
            inner: LoomCpa::new(&p, &[], Vec::new(), NoData, MergePolicy::LoopHeads),
            blocked: std::cell::Cell::new(None),
        };
        let start = p.start.unwrap();
        let explore = |cut: Option<usize>| {
            cpa.blocked.set(None);
            let mut r = Reached::start(&cpa, start, WaitlistOrder::BreadthFirst);
            let mut n = 0;
            assert_eq!(run(&cpa, &mut r, &mut n, &mut |_| false), Outcome::Done);
            if let Some(pivot) = cut {
                cpa.blocked.set(r.nodes[pivot].parent.map(|(_, s)| s));
                let live = r.live_nodes().count();
                r.cut(&cpa, pivot, |_| {});
                assert!(r.live_nodes().count() < live);
                assert_eq!(run(&cpa, &mut r, &mut n, &mut |_| false), Outcome::Done);
            }
            r
        };
        let total = explore(None).nodes.len();
        for pivot in 1..total {
            let lazy = explore(Some(pivot));
            let blocked = cpa.blocked.get();
            let mut fresh = Reached::start(&cpa, start, WaitlistOrder::BreadthFirst);
            run(&cpa, &mut fresh, &mut 0, &mut |_| false);
            let (lazy, fresh) = (live_places(&lazy), live_places(&fresh));
            assert!(
                fresh.is_subset(&lazy),
                "cut at node {pivot} ({blocked:?}) lost {:?}",
                fresh.difference(&lazy).collect::<Vec<_>>()
            );
        }
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
