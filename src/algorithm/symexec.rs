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
use crate::algorithm::sdc::thread_cpu_time;
use crate::cfa::{LocId, Program};
use crate::cpa::callstack::{CallStack, CallstackCpa};
use crate::cpa::composite::{control_transitions, target_locations};
use crate::cpa::location::LocationCpa;
use crate::cpa::{Cpa, Transition};
use crate::report::{Counterexample, Verdict};
use crate::smt::step::apply;
use crate::smt::{Encoder, SymState};
use crate::util::Deadline;

#[derive(Clone, Debug, Default)]
pub struct SeStats {
    pub transitions: u64,
    pub solver_calls: u64,
    pub solver_s: f64,
    pub cpu: Duration,
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

/// Checks whether a location labelled `label` is reachable from the start.
pub fn check_label(program: &Program, label: &str, cpu_limit: Option<Duration>) -> SeResult {
    let started = thread_cpu_time();
    let targets = target_locations(program, &[label.to_string()]);
    let mut stats = SeStats::default();
    let mut k = 1u32;
    let mut last_why = None;
    loop {
        stats.bound = k;
        let r = round(program, label, &targets, k, started, cpu_limit, &mut stats);
        stats.cpu = thread_cpu_time().saturating_sub(started);
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
                    reason: Some("timeout".into()),
                    counterexample: None,
                    stats,
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn round<'p>(
    program: &'p Program,
    label: &str,
    targets: &[bool],
    k: u32,
    started: Duration,
    cpu_limit: Option<Duration>,
    stats: &mut SeStats,
) -> Round {
    let enc = Encoder::new(program);
    *enc.observed_labels.borrow_mut() = Some(vec![label.to_string()]);
    let solver = crate::smt::incremental_solver();
    let limit = crate::smt::QueryLimit::default();
    let mut level = 0u32;
    let mut complete = true;
    let mut why: Option<String> = None;
    let start = program.start.expect("a program has a start");
    let root = Node {
        loc: start,
        stack: CallStack::default(),
        sym: enc.initial(),
        visits: Rc::new(HashMap::default()),
        path: None,
        depth: 0,
    };
    let remaining = |stats: &SeStats| -> Option<Duration> {
        let _ = stats;
        cpu_limit.map(|c| c.saturating_sub(thread_cpu_time().saturating_sub(started)))
    };
    let check = |solver: &Solver, stats: &mut SeStats| -> SatResult {
        if let Some(rem) = remaining(stats) {
            limit.apply(solver, rem);
        }
        let t = thread_cpu_time();
        let r = crate::smt::interrupt::checking(|| solver.check());
        stats.solver_calls += 1;
        stats.solver_s += thread_cpu_time().saturating_sub(t).as_secs_f64();
        r
    };
    // (node, solver level of its prefix, constraint of the branch taken)
    let mut stack: Vec<(Node<'p>, u32, Option<Bool>)> = vec![(root, 0, None)];
    let mut polls = 0u32;
    while let Some((mut node, lvl, constraint)) = stack.pop() {
        if level > lvl {
            solver.pop(level - lvl);
            level = lvl;
        }
        if let Some(c) = constraint {
            solver.push();
            level += 1;
            solver.assert(&c);
            match check(&solver, stats) {
                SatResult::Unsat => continue,
                SatResult::Unknown => {
                    if remaining(stats).is_some_and(|r| r.is_zero()) {
                        return Round::Timeout;
                    }
                    complete = false;
                    why = Some("solver returned unknown".into());
                }
                SatResult::Sat => {}
            }
        }
        loop {
            polls += 1;
            if polls.is_multiple_of(256) && remaining(stats).is_some_and(|r| r.is_zero()) {
                return Round::Timeout;
            }
            if targets[node.loc.0 as usize] {
                match check(&solver, stats) {
                    SatResult::Sat if node.sym.exact => {
                        // The path alone, with its memory accesses checked.
                        let deadline = Deadline::after(started, cpu_limit);
                        match exact_path(
                            &enc,
                            program,
                            &steps(&node),
                            &format!("label:{label}"),
                            deadline,
                        ) {
                            PathCheck::Feasible(cex) => return Round::Found(cex),
                            PathCheck::Unknown if remaining(stats).is_some_and(|r| r.is_zero()) => {
                                return Round::Timeout
                            }
                            _ => {
                                complete = false;
                                why = Some("the only feasible error paths use over-approximated operations".into());
                            }
                        }
                    }
                    SatResult::Unsat => {}
                    SatResult::Unknown if remaining(stats).is_some_and(|r| r.is_zero()) => {
                        return Round::Timeout
                    }
                    _ => {
                        complete = false;
                        why = Some(
                            "the only feasible error paths use over-approximated operations".into(),
                        );
                    }
                }
                break;
            }
            if program.loc(node.loc).loop_head {
                let n = node.visits.get(&node.loc).copied().unwrap_or(0) + 1;
                if n > k {
                    complete = false;
                    break;
                }
                Rc::make_mut(&mut node.visits).insert(node.loc, n);
            }
            if node.depth > 200_000 {
                complete = false;
                break;
            }
            let ts = control_transitions(program, node.loc, &node.stack);
            if ts.is_empty() {
                break;
            }
            let mut succs = Vec::with_capacity(ts.len());
            for t in ts {
                let mut child = node.clone();
                let loc = LocationCpa { program }.transfer(&node.loc, &t, &());
                let stack = CallstackCpa { program }.transfer(&node.stack, &t, &());
                let (Some(&loc), Some(stack)) = (loc.first(), stack.into_iter().next()) else {
                    continue;
                };
                stats.transitions += 1;
                let (c, _) = apply(&enc, &mut child.sym, &t, program);
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
                complete = false;
            }
            if succs.len() == 1 {
                let (child, c) = succs.pop().expect("one successor");
                if let Some(c) = c {
                    solver.assert(&c);
                }
                node = child;
                continue;
            }
            for (child, c) in succs.into_iter().rev() {
                stack.push((child, level, c));
            }
            break;
        }
    }
    if level > 0 {
        solver.pop(level);
    }
    Round::Exhausted { complete, why }
}

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
