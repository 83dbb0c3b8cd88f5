//! Bounded symbolic execution over location × call stack with the exact
//! bit-vector encoding of [`crate::smt`]: a depth-first search over the
//! program's paths that keeps one Z3 solver with a push/pop level per branch
//! point, prunes infeasible branches, and unrolls each loop head at most `k`
//! times per path (iterative deepening over `k`).
//!
//! Verdicts: FALSE only for a satisfiable path to the target on which every
//! operation was encoded exactly (`SymState::exact`), with the concrete error
//! path from the model; TRUE only when the search was exhaustive (no loop
//! bound hit, no solver `unknown`, no unsound step); otherwise UNKNOWN.

use std::rc::Rc;
use std::time::Duration;

use crate::hash::HashMap;
use z3::ast::Bool;
use z3::{SatResult, Solver};

use crate::algorithm::path_check::{exact_path, PathCheck};
use crate::algorithm::sdc::UnknownReason;
use crate::cfa::{LocId, Program};
use crate::cpa::callstack::{CallStack, CallstackCpa};
use crate::cpa::composite::{control_transitions, target_locations};
use crate::cpa::location::LocationCpa;
use crate::cpa::{Cpa, Transition};
use crate::report::{Counterexample, Verdict};
use crate::smt::step::apply;
use crate::smt::work::Deadline;
use crate::smt::{Encoder, SymState};
use crate::util::thread_cpu_time;

#[derive(Clone, Debug, Default)]
pub struct SeStats {
    pub transitions: u64,
    pub solver_calls: u64,
    pub solver_s: f64,
    /// The run's work, in nominal seconds ([`crate::smt::work`]).
    pub work: Duration,
    pub bound: u32,
}

pub struct SeResult {
    pub verdict: Verdict,
    pub reason: Option<String>,
    pub counterexample: Option<Counterexample>,
    pub stats: SeStats,
}

struct PathNode<'p> {
    step: Transition<'p>,
    prev: Option<Rc<PathNode<'p>>>,
}

#[derive(Clone)]
struct Node<'p> {
    loc: LocId,
    stack: CallStack,
    sym: SymState,
    visits: Rc<HashMap<LocId, u32>>,
    path: Option<Rc<PathNode<'p>>>,
    depth: u32,
}

enum Round {
    Found(Counterexample),
    Exhausted { complete: bool, why: Option<String> },
    Timeout,
}

/// Checks whether a location labelled `label` is reachable from the start,
/// within `budget` of work in nominal seconds ([`crate::smt::work`]).
pub fn check_label(program: &Program, label: &str, budget: Option<Duration>) -> SeResult {
    let started = crate::smt::work::now();
    let deadline = Deadline::within(budget);
    let targets = target_locations(program, &[label.to_string()]);
    let mut stats = SeStats::default();
    let mut k = 1u32;
    let mut last_why = None;
    loop {
        stats.bound = k;
        let r = round(program, label, &targets, k, deadline, &mut stats);
        stats.work = crate::smt::work::now().saturating_sub(started);
        match r {
            Round::Found(cex) => {
                return SeResult {
                    verdict: Verdict::False,
                    reason: None,
                    counterexample: Some(cex),
                    stats,
                }
            }
            Round::Exhausted { complete: true, .. } => {
                return SeResult {
                    verdict: Verdict::True,
                    reason: Some(format!("all paths explored (loop bound {k} never reached)")),
                    counterexample: None,
                    stats,
                }
            }
            Round::Exhausted { why, .. } => {
                if why.is_some() {
                    last_why = why;
                }
                if k >= 64 {
                    return SeResult {
                        verdict: Verdict::Unknown,
                        reason: Some(last_why.unwrap_or_else(|| "loop bound 64 reached".into())),
                        counterexample: None,
                        stats,
                    };
                }
                k *= 2;
            }
            Round::Timeout => {
                return SeResult {
                    verdict: Verdict::Unknown,
                    reason: Some(UnknownReason::Timeout.to_string()),
                    counterexample: None,
                    stats,
                }
            }
        }
    }
}

/// One round of the search with loop bound `k`, until `deadline`.
fn round<'p>(
    program: &'p Program,
    label: &str,
    targets: &[bool],
    k: u32,
    deadline: Deadline,
    stats: &mut SeStats,
) -> Round {
    let mut search = Search::new(program, label, k, deadline, stats);
    let start = program.start.expect("a program has a start");
    let root = Node {
        loc: start,
        stack: CallStack::default(),
        sym: search.enc.initial(),
        visits: Rc::new(HashMap::default()),
        path: None,
        depth: 0,
    };
    // (node, solver level of its prefix, constraint of the branch taken)
    let mut stack: Vec<(Node<'p>, u32, Option<Bool>)> = vec![(root, 0, None)];
    let mut polls = 0u32;
    while let Some((mut node, lvl, constraint)) = stack.pop() {
        search.pop_to(lvl);
        if let Some(c) = constraint {
            match search.enter_branch(&c) {
                Branch::Infeasible => continue,
                Branch::Timeout => return Round::Timeout,
                Branch::Open => {}
            }
        }
        loop {
            polls += 1;
            if polls.is_multiple_of(256) && search.deadline.passed() {
                return Round::Timeout;
            }
            if targets[node.loc.0 as usize] {
                if let Some(end) = search.at_target(&node) {
                    return end;
                }
                break;
            }
            if !search.within_bounds(&mut node) {
                break;
            }
            let Some(mut succs) = search.successors(&node) else {
                break;
            };
            if succs.len() == 1 {
                let (child, c) = succs.pop().expect("one successor");
                if let Some(c) = c {
                    search.solver.assert(&c);
                }
                node = child;
                continue;
            }
            for (child, c) in succs.into_iter().rev() {
                stack.push((child, search.level, c));
            }
            break;
        }
    }
    search.pop_to(0);
    Round::Exhausted {
        complete: search.complete,
        why: search.why,
    }
}

/// One round's search: the encoder, the solver with one scope per branch
/// point on the current path, and what the round found out so far.
struct Search<'p, 's> {
    program: &'p Program,
    label: &'s str,
    k: u32,
    enc: Encoder<'p>,
    solver: Solver,
    limit: crate::smt::QueryLimit,
    deadline: Deadline,
    stats: &'s mut SeStats,
    /// The solver's scope level.
    level: u32,
    /// Whether every path was followed to its end.
    complete: bool,
    /// Why not, if it matters for the verdict.
    why: Option<String>,
}

/// What entering a branch found.
enum Branch {
    /// Its constraint contradicts the path: the branch is skipped.
    Infeasible,
    /// The deadline passed.
    Timeout,
    /// The branch is followed.
    Open,
}

impl<'p, 's> Search<'p, 's> {
    fn new(
        program: &'p Program,
        label: &'s str,
        k: u32,
        deadline: Deadline,
        stats: &'s mut SeStats,
    ) -> Self {
        let enc = Encoder::new(program);
        *enc.observed_labels.borrow_mut() = Some(vec![label.to_string()]);
        Search {
            program,
            label,
            k,
            enc,
            solver: crate::smt::incremental_solver(),
            limit: crate::smt::QueryLimit::default(),
            deadline,
            stats,
            level: 0,
            complete: true,
            why: None,
        }
    }

    /// Pops the solver's scopes down to `level`.
    fn pop_to(&mut self, level: u32) {
        if self.level > level {
            self.solver.pop(self.level - level);
            self.level = level;
        }
    }

    /// A solver check within the deadline, counted in the statistics.
    fn check(&mut self) -> SatResult {
        if let Some(units) = self.deadline.left() {
            self.limit.apply_units(&self.solver, units);
        }
        let t = thread_cpu_time();
        let r = crate::smt::interrupt::checking(|| self.solver.check());
        self.stats.solver_calls += 1;
        self.stats.solver_s += thread_cpu_time().saturating_sub(t).as_secs_f64();
        r
    }

    /// Opens a scope for a branch with constraint `c` and checks it.
    fn enter_branch(&mut self, c: &Bool) -> Branch {
        crate::smt::work::push(&self.solver);
        self.level += 1;
        self.solver.assert(c);
        match self.check() {
            SatResult::Unsat => Branch::Infeasible,
            SatResult::Unknown => {
                if self.deadline.passed() {
                    return Branch::Timeout;
                }
                self.complete = false;
                self.why = Some("solver returned unknown".into());
                Branch::Open
            }
            SatResult::Sat => Branch::Open,
        }
    }

    /// At a target: the round's end if the path to `node` is a
    /// counterexample or the deadline passed, else `None` (the search goes
    /// on, incomplete if the path may be feasible).
    fn at_target(&mut self, node: &Node<'p>) -> Option<Round> {
        let imprecise = "the only feasible error paths use over-approximated operations";
        match self.check() {
            SatResult::Sat if node.sym.exact => {
                // The path alone, with its memory accesses checked.
                let name = format!("label:{}", self.label);
                match exact_path(&self.enc, self.program, &steps(node), &name, self.deadline) {
                    PathCheck::Feasible(cex) => return Some(Round::Found(cex)),
                    PathCheck::Unknown if self.deadline.passed() => return Some(Round::Timeout),
                    _ => {
                        self.complete = false;
                        self.why = Some(imprecise.into());
                    }
                }
            }
            SatResult::Unsat => {}
            SatResult::Unknown if self.deadline.passed() => return Some(Round::Timeout),
            _ => {
                self.complete = false;
                self.why = Some(imprecise.into());
            }
        }
        None
    }

    /// Counts a loop head's visit on the path to `node`; whether the path
    /// stays within the loop bound and the depth limit.
    fn within_bounds(&mut self, node: &mut Node<'p>) -> bool {
        if self.program.loc(node.loc).loop_head {
            let n = node.visits.get(&node.loc).copied().unwrap_or(0) + 1;
            if n > self.k {
                self.complete = false;
                return false;
            }
            Rc::make_mut(&mut node.visits).insert(node.loc, n);
        }
        if node.depth > MAX_DEPTH {
            self.complete = false;
            return false;
        }
        true
    }

    /// The successors of `node`, each with the condition of its step;
    /// `None` if no step leaves its location.
    fn successors(&mut self, node: &Node<'p>) -> Option<Vec<(Node<'p>, Option<Bool>)>> {
        let program = self.program;
        let ts = control_transitions(program, node.loc, &node.stack);
        if ts.is_empty() {
            return None;
        }
        let mut succs = Vec::with_capacity(ts.len());
        for t in ts {
            let mut child = node.clone();
            let loc = LocationCpa { program }.transfer(&node.loc, &t, &());
            let stack = CallstackCpa { program }.transfer(&node.stack, &t, &());
            let (Some(&loc), Some(stack)) = (loc.first(), stack.into_iter().next()) else {
                continue;
            };
            self.stats.transitions += 1;
            let c = apply(&self.enc, &mut child.sym, &t, program).constraint;
            child.loc = loc;
            child.stack = stack;
            child.depth += 1;
            child.path = Some(Rc::new(PathNode {
                step: t,
                prev: child.path.take(),
            }));
            succs.push((child, c));
        }
        if !child_sound(&succs) {
            self.complete = false;
        }
        Some(succs)
    }
}

/// Steps on one path before the search gives it up.
const MAX_DEPTH: u32 = 200_000;

fn child_sound(succs: &[(Node, Option<Bool>)]) -> bool {
    succs.iter().all(|(n, _)| n.sym.sound)
}

/// The steps of the path to `node`, oldest first.
fn steps<'p>(node: &Node<'p>) -> Vec<Transition<'p>> {
    let mut out = Vec::new();
    let mut cur = node.path.clone();
    while let Some(n) = cur {
        out.push(n.step);
        cur = n.prev.clone();
    }
    out.reverse();
    out
}
