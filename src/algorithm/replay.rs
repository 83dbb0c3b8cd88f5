//! Witness replay (`mpv validate`): a depth-first search over the LOOM
//! composite under explicit values, as the value search does, restricted
//! to the paths that pass the witness's waypoints in order, each error
//! path re-executed exactly ([`path_check::concrete_check`]).
//!
//! A step is a waypoint event when it decides the condition of a
//! branching construct (`branching`), enters a function with a body
//! (`function_enter`) or returns from a function without one
//! (`function_return`). An event at the line of the next waypoint of its
//! kind must agree with it (a branch the other way is cut) and passes it;
//! events elsewhere are free. The path must reach the property's error at
//! the target's line with every waypoint passed. A `\result == v`
//! constraint becomes an assume after the call it is passed at, so the
//! exact check holds the path to that value too. `assumption` waypoints
//! are passed at their line without their constraint being checked.

use std::hash::BuildHasher;
use std::rc::Rc;
use std::time::Duration;

use crate::algorithm::path_check::{concrete_check, PathCheck};
use crate::algorithm::value_search::PathStep;
use crate::cfa::{EdgeId, EdgeOp, Program};
use crate::cpa::loom::{LoomCpa, LoomPrecision, LoomProperty, LoomState};
use crate::cpa::value::{ValueCpa, Values};
use crate::cpa::{Cpa, Transition, WovenOp};
use crate::hash::FixedState;
use crate::ir::{BinaryOp, Expr, ExprKind};
use crate::report::{CexStep, Counterexample, StepKind};
use crate::smt::Encoder;
use crate::spec::bound::BoundAutomaton;
use crate::spec::PropertySet;
use crate::util::Deadline;
use crate::witness::read::result_value;
use crate::witness::{Waypoint, WaypointKind};

/// Loop bounds of the successive rounds (as the value search's).
const BOUNDS: [u32; 3] = [4, 16, 64];

/// States per round (a guard against explosion).
const MAX_STATES: usize = 300_000;

/// Error paths checked exactly before giving up.
const MAX_CHECKS: u32 = 64;

/// What a replay found.
pub enum Replay {
    /// A feasible error path through every waypoint.
    Confirmed(Counterexample),
    /// Every path through the waypoints (within the loop bounds) was
    /// followed: none reaches the error feasibly.
    Refuted,
    /// Neither: why.
    Unknown(String),
}

/// One step of a path (a `\result` constraint adds an assume after its call).
struct PathNode {
    step: PathStep,
    prev: Option<Rc<PathNode>>,
}

struct Node {
    state: LoomState<Values>,
    /// Waypoints passed.
    passed: usize,
    visits: Rc<crate::hash::HashMap<crate::cfa::LocId, u32>>,
    path: Option<Rc<PathNode>>,
}

/// The waypoint event of a step: its kind, its input-file line, and for a
/// branch the outcome.
fn event(p: &Program, t: &Transition) -> Option<(WaypointKind, u32, Option<bool>)> {
    match t {
        Transition::Edge { id, edge } => match &edge.op {
            EdgeOp::Assume { .. } => p
                .branch_outcomes
                .get(id)
                .map(|o| (WaypointKind::Branching, edge.pos.input_line, Some(*o))),
            EdgeOp::Call { .. } => Some((WaypointKind::FunctionReturn, edge.pos.input_line, None)),
            _ => None,
        },
        Transition::Enter { edge, .. } => {
            Some((WaypointKind::FunctionEnter, edge.pos.input_line, None))
        }
        _ => None,
    }
}

/// Whether `t` may follow with `next` the next waypoint: `Some(passes)`,
/// or `None` when it goes against it.
fn follows(p: &Program, t: &Transition, next: Option<&Waypoint>) -> Option<bool> {
    let Some(w) = next else {
        return Some(false);
    };
    if w.kind == WaypointKind::Assumption {
        return Some(t.pos().input_line == w.line);
    }
    let Some((kind, line, outcome)) = event(p, t) else {
        return Some(false);
    };
    if kind != w.kind || line != w.line {
        return Some(false);
    }
    match (outcome, w.constraint.as_ref().map(|c| c.0.as_str())) {
        (Some(o), Some(c)) if (c == "true") != o => None,
        _ => Some(true),
    }
}

/// The assume that holds the value a call returned to `\result == v`.
fn result_assume(edge: &crate::cfa::Edge, w: &Waypoint) -> Option<Rc<WovenOp>> {
    let EdgeOp::Call { lhs: Some(l), .. } = &edge.op else {
        return None;
    };
    let v = result_value(&w.constraint.as_ref()?.0)?;
    let c = Expr::int(v, l.ty);
    let differs = Expr::new(
        ExprKind::Binary(BinaryOp::BitXor, Box::new(l.clone()), Box::new(c)),
        l.ty,
    );
    Some(Rc::new(WovenOp {
        op: EdgeOp::Assume {
            cond: differs,
            truth: false,
        },
        pos: edge.pos,
    }))
}

/// The path of `node` followed by `t` and, if given, the assume of a
/// `\result` constraint.
fn extended(node: &Node, t: &Transition, assume: Option<&Rc<WovenOp>>) -> Option<Rc<PathNode>> {
    let path = Rc::new(PathNode {
        step: PathStep::of(t),
        prev: node.path.clone(),
    });
    Some(match assume {
        Some(op) => Rc::new(PathNode {
            step: PathStep::Woven(Rc::clone(op)),
            prev: Some(path),
        }),
        None => path,
    })
}

fn path_of(node: &Node) -> Vec<PathStep> {
    let mut out = Vec::new();
    let mut cur = node.path.clone();
    while let Some(n) = cur {
        out.push(n.step.clone());
        cur = n.prev.clone();
    }
    out.reverse();
    out
}

/// Replays `waypoints` (the last one the target) for `property` of
/// `program`, within `cpu`.
pub fn replay(
    program: &Program,
    automata: &[BoundAutomaton],
    property: LoomProperty,
    name: &str,
    waypoints: &[Waypoint],
    cpu: Option<Duration>,
) -> Replay {
    let deadline = Deadline::in_cpu(cpu);
    let out_of_time = || deadline.passed();
    let enc = Encoder::new(program);
    enc.modelled_functions
        .borrow_mut()
        .extend(automata.iter().flat_map(|b| b.automaton.api_functions()));
    let enabled: PropertySet = [property.id].into_iter().collect();
    let cpa = LoomCpa::new(
        program,
        automata,
        vec![property],
        ValueCpa::new(program),
        crate::cpa::composite::MergePolicy::LoopHeads,
    );
    let (Some(start), Some((target, route))) = (program.start, waypoints.split_last()) else {
        return Replay::Unknown("no program start or no waypoints".into());
    };
    let prec = LoomPrecision { enabled, data: () };
    let result_assumes = result_assumes(program, route);
    let mut checker = Checker {
        enc: &enc,
        program,
        name,
        deadline,
        checks: 0,
        last_check: None,
    };
    for k in BOUNDS {
        let mut stack = vec![Node {
            state: cpa.initial_state(start),
            passed: 0,
            visits: Rc::default(),
            path: None,
        }];
        let (mut states, mut bounded) = (0usize, false);
        // States seen, with the waypoints passed (a state equal to one
        // seen with as many waypoints passed is not explored again).
        let mut seen: crate::hash::HashMap<(u64, u64, usize), Vec<LoomState<Values>>> =
            Default::default();
        while let Some(node) = stack.pop() {
            if out_of_time() {
                return Replay::Unknown("out of time".into());
            }
            if states > MAX_STATES {
                bounded = true;
                break;
            }
            if cpa.is_target(&node.state) {
                if node.passed == route.len() {
                    if let Some(r) = checker.check(&node, target) {
                        return r;
                    }
                }
                continue;
            }
            for t in cpa.transitions(&node.state) {
                let Some(passes) = follows(program, &t, route.get(node.passed)) else {
                    continue;
                };
                for succ in cpa.transfer(&node.state, &t, &prec) {
                    let Some((succ, _)) = cpa.prec(succ, prec.clone()) else {
                        continue;
                    };
                    let mut visits = node.visits.clone();
                    if succ.pending.is_none() && program.loc(succ.loc).loop_head {
                        let n = visits.get(&succ.loc).copied().unwrap_or(0) + 1;
                        if n > k {
                            bounded = true;
                            continue;
                        }
                        Rc::make_mut(&mut visits).insert(succ.loc, n);
                    }
                    let passed = node.passed + usize::from(passes);
                    let key = (
                        cpa.partition_key(&succ),
                        FixedState::default().hash_one(&succ.data),
                        passed,
                    );
                    let same = seen.entry(key).or_default();
                    if same.contains(&succ) {
                        continue;
                    }
                    same.push(succ.clone());
                    states += 1;
                    let assume = match &t {
                        Transition::Edge { id, .. } if passes => {
                            result_assumes.get(&(*id, node.passed))
                        }
                        _ => None,
                    };
                    stack.push(Node {
                        state: succ,
                        passed,
                        visits,
                        path: extended(&node, &t, assume),
                    });
                }
            }
        }
        if !bounded {
            return match checker.last_check {
                Some(why) => Replay::Unknown(why),
                None => Replay::Refuted,
            };
        }
    }
    Replay::Unknown(
        checker
            .last_check
            .unwrap_or_else(|| "loop bounds reached".into()),
    )
}

/// The assumes of the `\result` constraints of `route`: per waypoint, for
/// each call at its line.
fn result_assumes(
    program: &Program,
    route: &[Waypoint],
) -> crate::hash::HashMap<(EdgeId, usize), Rc<WovenOp>> {
    let mut out = crate::hash::HashMap::default();
    for (i, w) in route.iter().enumerate() {
        if w.kind != WaypointKind::FunctionReturn {
            continue;
        }
        for (e, edge) in program.edges.iter().enumerate() {
            if edge.pos.input_line == w.line {
                if let Some(op) = result_assume(edge, w) {
                    out.insert((EdgeId(e as u32), i), op);
                }
            }
        }
    }
    out
}

/// The exact checks of the error paths that pass every waypoint.
struct Checker<'a> {
    enc: &'a Encoder<'a>,
    program: &'a Program,
    name: &'a str,
    deadline: Deadline,
    checks: u32,
    /// Why the last path that was not refuted is not a counterexample.
    last_check: Option<String>,
}

impl Checker<'_> {
    /// Checks the path of `node` if it ends at `target`'s line: the
    /// replay's answer, if this decides it.
    fn check(&mut self, node: &Node, target: &Waypoint) -> Option<Replay> {
        let owned = path_of(node);
        let path: Vec<Transition> = owned
            .iter()
            .map(|s| s.transition(self.program))
            .collect::<Option<_>>()?;
        // The target is where the counterexample's last shown step is (as
        // the witness writer places it).
        let last = path.iter().rev().find_map(|t| {
            CexStep::of(self.program, t, None, None).filter(|s| s.kind != StepKind::Woven)
        });
        if last.is_none_or(|s| s.input_line != target.line) {
            return None;
        }
        self.checks += 1;
        match concrete_check(self.enc, self.program, &path, self.name, self.deadline) {
            PathCheck::Feasible(cex) => return Some(Replay::Confirmed(cex)),
            // Without a reason: the path alone is unsatisfiable.
            PathCheck::Infeasible(_) | PathCheck::Imprecise(None) => {}
            PathCheck::Imprecise(Some(why)) => self.last_check = Some(format!("imprecise: {why}")),
            PathCheck::LdvInfeasible(op) => {
                self.last_check = Some(format!("infeasible under LDV's assumptions ({op})"))
            }
            PathCheck::Unknown => self.last_check = Some("the solver gave up".into()),
        }
        (self.checks >= MAX_CHECKS).then(|| {
            Replay::Unknown(format!(
                "{} error paths checked, none feasible",
                self.checks
            ))
        })
    }
}
