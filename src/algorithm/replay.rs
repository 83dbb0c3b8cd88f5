//! Witness replay (`mpv validate`): a depth-first search over the LOOM
//! composite under explicit values, as the value search does, restricted
//! to the paths that pass the witness's waypoints in order, each error
//! path re-executed exactly ([`path_check::concrete_check`]).
//!
//! A step is a waypoint event when it decides the condition of a branching
//! construct (`branching`), enters a function with a body
//! (`function_enter`) or returns from a function without one
//! (`function_return`), outside the synthetic start function. An event is
//! at a waypoint when kind and line agree, and following exactly the column
//! too (as the witness writer places it, [`crate::witness::event_column`];
//! a waypoint without a column matches any); a branch at the next waypoint
//! the other way is cut. The path must reach the property's error at the
//! target's line with every waypoint passed. A `\result == v` constraint
//! becomes an assume after the call it is passed at, so the exact check
//! holds the path to that value too, and fixes the value the explicit
//! values know. `assumption` waypoints are passed at their line without
//! their constraint being checked. The exact check judges the model it
//! finds: one with the `\result` values assumed may depend on values the
//! encoding does not model where another does not, so an imprecise path is
//! checked once more without those assumes, and confirms if its calls
//! return the witness's values all the same.
//!
//! The search runs in two modes ([`Mode`]). First it follows the
//! waypoints *exactly*: every branch and function entry on the path is the
//! next waypoint, as in the witnesses mpv writes, which list the whole
//! path; this search is about as long as the path. If that does not
//! confirm the violation, events elsewhere are free (witnesses that list
//! some places only), with rounds of growing loop bounds. Budgets count
//! states explored and paths checked; the CPU time limit is the user's.
//! A witness that says its violation needs LDV's assumptions
//! ([`crate::witness::LDV_ASSUMPTIONS`]) is checked under them.

use std::hash::BuildHasher;
use std::rc::Rc;
use std::time::Duration;

use crate::algorithm::path_check::{concrete_check, PathCheck};
use crate::algorithm::value_search::PathStep;
use crate::cfa::{Edge, EdgeId, EdgeOp, Program};
use crate::cpa::loom::{LoomCpa, LoomPrecision, LoomProperty, LoomState};
use crate::cpa::value::{ValueCpa, Values};
use crate::cpa::{Cpa, Transition, WovenOp};
use crate::hash::{FixedState, HashMap};
use crate::ir::{BinaryOp, Expr, ExprKind};
use crate::report::{CexStep, Counterexample, StepKind};
use crate::smt::work::Deadline;
use crate::smt::Encoder;
use crate::spec::bound::BoundAutomaton;
use crate::spec::PropertySet;
use crate::witness::read::{result_value, ViolationWitness};
use crate::witness::{event_column, Waypoint, WaypointKind};

/// Loop bounds of the successive rounds of the free search (as the value
/// search's).
const BOUNDS: [u32; 3] = [4, 16, 64];

/// States per round of the free search (a guard against explosion).
const MAX_STATES: usize = 300_000;

/// States of the exact search per waypoint, and at least.
const STATES_PER_WAYPOINT: usize = 2_000;
const MIN_EXACT_STATES: usize = 20_000;

/// Error paths checked exactly before giving up.
const MAX_CHECKS: u32 = 64;

/// What a replay found.
pub enum Replay {
    /// A feasible error path through every waypoint (its `assumptions`
    /// list LDV's assumptions it needs, if any).
    Confirmed(Counterexample),
    /// Every path through the waypoints (within the loop bounds) was
    /// followed: none reaches the error feasibly.
    Refuted,
    /// Neither: why.
    Unknown(String),
}

/// How closely the search follows the waypoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Every branch decided and every function entered is the next
    /// waypoint.
    Exact,
    /// Events away from the next waypoint are free.
    Free,
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
    visits: Rc<HashMap<crate::cfa::LocId, u32>>,
    path: Option<Rc<PathNode>>,
}

/// A waypoint event: its kind, the step's input-file position, for a
/// branch the outcome, for a call the callee.
struct Event<'a> {
    kind: WaypointKind,
    line: u32,
    column: u32,
    outcome: Option<bool>,
    callee: Option<&'a str>,
}

/// The waypoint event of a step, if it is one (none in the synthetic start
/// function or without a place in the input file).
fn event<'a>(p: &'a Program, t: &Transition) -> Option<Event<'a>> {
    let (edge, kind, outcome, callee): (&Edge, _, _, _) = match t {
        Transition::Edge { id, edge } => match &edge.op {
            EdgeOp::Assume { .. } => (
                edge,
                WaypointKind::Branching,
                Some(*p.branch_outcomes.get(id)?),
                None,
            ),
            EdgeOp::Call { callee, .. } => {
                (edge, WaypointKind::FunctionReturn, None, Some(*callee))
            }
            _ => return None,
        },
        Transition::Enter { edge, callee, .. } => {
            (edge, WaypointKind::FunctionEnter, None, Some(*callee))
        }
        _ => return None,
    };
    let caller = p.func(p.loc(edge.from).func);
    if edge.pos.input_line == 0 || caller.name == crate::cfa::START_FUNCTION {
        return None;
    }
    Some(Event {
        kind,
        line: edge.pos.input_line,
        column: edge.pos.input_column,
        outcome,
        callee: callee.map(|f| p.func(f).name.as_str()),
    })
}

/// The waypoints to follow and the input file's lines (for columns).
struct Route<'a> {
    waypoints: &'a [Waypoint],
    lines: Vec<&'a str>,
}

impl Route<'_> {
    /// Whether `e` is at `w`'s place: kind and line, and following exactly
    /// the column too (searching freely, a witness placing columns other
    /// than mpv does still guides the search).
    fn at(&self, e: &Event, w: &Waypoint, mode: Mode) -> bool {
        if e.kind != w.kind || e.line != w.line {
            return false;
        }
        let text = self.lines.get(e.line as usize - 1).copied().unwrap_or("");
        mode == Mode::Free
            || w.column == 0
            || event_column(e.kind, text, e.column, e.callee) == w.column
    }

    /// Whether `t` may follow, with waypoint `passed` the next: `Some(passes)`,
    /// or `None` when it goes against the waypoints.
    fn follows(&self, p: &Program, t: &Transition, passed: usize, mode: Mode) -> Option<bool> {
        let next = self.waypoints.get(passed);
        if let Some(w) = next.filter(|w| w.kind == WaypointKind::Assumption) {
            return Some(t.pos().input_line == w.line);
        }
        let Some(e) = event(p, t) else {
            return Some(false);
        };
        match next.filter(|w| self.at(&e, w, mode)) {
            Some(w) => match (e.outcome, w.constraint.as_ref().map(|c| c.0.as_str())) {
                (Some(o), Some(c)) if (c == "true") != o => None,
                _ => Some(true),
            },
            // Exactly: a branch or an entry is always the next waypoint.
            None if mode == Mode::Exact && e.kind != WaypointKind::FunctionReturn => None,
            None => Some(false),
        }
    }
}

/// The assume that holds the value a call returned to `\result == v`, and
/// the assignment of `v` that tells the explicit values.
fn result_ops(edge: &Edge, w: &Waypoint) -> Option<(Rc<WovenOp>, Rc<WovenOp>)> {
    let EdgeOp::Call { lhs: Some(l), .. } = &edge.op else {
        return None;
    };
    let v = result_value(&w.constraint.as_ref()?.0)?;
    let c = Expr::int(v, l.ty);
    let differs = Expr::new(
        ExprKind::Binary(BinaryOp::BitXor, Box::new(l.clone()), Box::new(c.clone())),
        l.ty,
    );
    let op = |op| {
        Rc::new(WovenOp {
            op,
            pos: edge.pos,
            automaton: None,
        })
    };
    Some((
        op(EdgeOp::Assume {
            cond: differs,
            truth: false,
        }),
        op(EdgeOp::Assign {
            lhs: l.clone(),
            rhs: c,
        }),
    ))
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

/// Replays `witness` (its last waypoint the target) for `property` of
/// `program`, whose input file's text is `source`, within `budget` of work
/// in nominal seconds.
pub fn replay(
    program: &Program,
    automata: &[BoundAutomaton],
    property: LoomProperty,
    name: &str,
    witness: &ViolationWitness,
    source: &str,
    budget: Option<Duration>,
) -> Replay {
    let enabled: PropertySet = [property.id].into_iter().collect();
    let enc = Encoder::new(program);
    enc.modelled_functions
        .borrow_mut()
        .extend(automata.iter().flat_map(|b| b.automaton.api_functions()));
    let cpa = LoomCpa::new(
        program,
        automata,
        vec![property],
        ValueCpa::new(program),
        crate::cpa::composite::MergePolicy::LoopHeads,
    );
    let (Some(_), Some((target, route))) = (program.start, witness.waypoints.split_last()) else {
        return Replay::Unknown("no program start or no waypoints".into());
    };
    let route = Route {
        waypoints: route,
        lines: source.lines().collect(),
    };
    let search = Search {
        program,
        cpa: &cpa,
        prec: LoomPrecision { enabled, data: () },
        result_ops: result_ops_of(program, route.waypoints),
        route,
    };
    let mut checker = Checker {
        enc: &enc,
        program,
        name,
        target,
        pins: pins_of(&search.result_ops, search.route.waypoints),
        under_ldv_assumptions: witness.under_ldv_assumptions,
        deadline: Deadline::within(budget),
        checks: 0,
        last_check: None,
    };
    let exact_states = MIN_EXACT_STATES
        .max(STATES_PER_WAYPOINT * witness.waypoints.len())
        .min(MAX_STATES);
    let bound = u32::try_from(witness.waypoints.len()).unwrap_or(u32::MAX);
    if let Round::Decided(r) = search.round(Mode::Exact, bound, exact_states, &mut checker) {
        return r;
    }
    for k in BOUNDS {
        match search.round(Mode::Free, k, MAX_STATES, &mut checker) {
            Round::Decided(r) => return r,
            Round::Complete => {
                return match checker.last_check {
                    Some(why) => Replay::Unknown(why),
                    None => Replay::Refuted,
                }
            }
            Round::Bounded => {}
        }
    }
    Replay::Unknown(
        checker
            .last_check
            .unwrap_or_else(|| "loop bounds reached".into()),
    )
}

/// Per call edge and waypoint index: the assume holding the call to its
/// `\result` value, and the assignment of it to the explicit values.
type ResultOps = HashMap<(EdgeId, usize), (Rc<WovenOp>, Rc<WovenOp>)>;

/// The assumes and assignments of the `\result` constraints of `route`:
/// per waypoint, for each call at its line.
fn result_ops_of(program: &Program, route: &[Waypoint]) -> ResultOps {
    let mut out = HashMap::default();
    for (i, w) in route.iter().enumerate() {
        if w.kind != WaypointKind::FunctionReturn {
            continue;
        }
        for (e, edge) in program.edges.iter().enumerate() {
            if edge.pos.input_line == w.line {
                if let Some(ops) = result_ops(edge, w) {
                    out.insert((EdgeId(e as u32), i), ops);
                }
            }
        }
    }
    out
}

/// The value each `\result` assume holds its call to, by the assume.
fn pins_of(ops: &ResultOps, route: &[Waypoint]) -> HashMap<*const WovenOp, i128> {
    ops.iter()
        .filter_map(|((_, i), (assume, _))| {
            let v = result_value(&route[*i].constraint.as_ref()?.0)?;
            Some((Rc::as_ptr(assume), v))
        })
        .collect()
}

/// How a round of the search ended.
enum Round {
    /// With the replay's answer.
    Decided(Replay),
    /// Every path within the round's bounds followed.
    Complete,
    /// Cut by the loop bound or the state budget.
    Bounded,
}

/// The depth-first search through the waypoints.
struct Search<'a> {
    program: &'a Program,
    cpa: &'a LoomCpa<'a, ValueCpa<'a>>,
    prec: LoomPrecision<()>,
    route: Route<'a>,
    result_ops: ResultOps,
}

impl Search<'_> {
    /// One round in `mode`, loop heads visited at most `bound` times, at
    /// most `max_states` states.
    fn round(&self, mode: Mode, bound: u32, max_states: usize, checker: &mut Checker) -> Round {
        let Some(start) = self.program.start else {
            return Round::Complete;
        };
        let mut stack = vec![Node {
            state: self.cpa.initial_state(start),
            passed: 0,
            visits: Rc::default(),
            path: None,
        }];
        let (mut states, mut bounded) = (0usize, false);
        // States seen, with the waypoints passed (searching freely, a state
        // equal to one seen with as many waypoints passed is not explored
        // again).
        let mut seen: HashMap<(u64, u64, usize), Vec<LoomState<Values>>> = HashMap::default();
        while let Some(node) = stack.pop() {
            if checker.deadline.passed() {
                return Round::Decided(Replay::Unknown("out of time".into()));
            }
            if states > max_states {
                return Round::Bounded;
            }
            if self.cpa.is_target(&node.state) {
                if node.passed == self.route.waypoints.len() {
                    if let Some(r) = checker.check(&node) {
                        return Round::Decided(r);
                    }
                }
                continue;
            }
            // Successors passing a waypoint are explored first.
            let mut later = Vec::new();
            for (succ, passes) in self.successors(&node, mode, bound, &mut bounded) {
                // Following exactly, paths equal under explicit values are
                // all tried: they may differ in what the exact check sees
                // (which operand of `a && b` decided it, say).
                if mode == Mode::Free {
                    let key = (
                        self.cpa.partition_key(&succ.state),
                        FixedState::default().hash_one(&succ.state.data),
                        succ.passed,
                    );
                    let same = seen.entry(key).or_default();
                    if same.contains(&succ.state) {
                        continue;
                    }
                    same.push(succ.state.clone());
                }
                states += 1;
                match passes {
                    true => later.push(succ),
                    false => stack.push(succ),
                }
            }
            stack.extend(later);
        }
        match bounded {
            true => Round::Bounded,
            false => Round::Complete,
        }
    }

    /// The successors of `node` that follow the waypoints, each with
    /// whether it passed one; `bounded` is set when the loop bound cuts one.
    fn successors(
        &self,
        node: &Node,
        mode: Mode,
        bound: u32,
        bounded: &mut bool,
    ) -> Vec<(Node, bool)> {
        let mut out = Vec::new();
        for t in self.cpa.transitions(&node.state) {
            let Some(passes) = self.route.follows(self.program, &t, node.passed, mode) else {
                continue;
            };
            let ops = match &t {
                Transition::Edge { id, .. } if passes => self.result_ops.get(&(*id, node.passed)),
                _ => None,
            };
            for succ in self.cpa.transfer(&node.state, &t, &self.prec) {
                let Some((mut succ, _)) = self.cpa.prec(succ, self.prec.clone()) else {
                    continue;
                };
                if let Some((_, assign)) = ops {
                    // The value the witness says the call returned.
                    let data = self
                        .cpa
                        .data
                        .transfer(&succ.data, &Transition::Woven(assign), &());
                    let Some(data) = data.into_iter().next() else {
                        continue;
                    };
                    succ.data = data;
                }
                let mut visits = node.visits.clone();
                if succ.pending.is_none() && self.program.loc(succ.loc).loop_head {
                    let n = visits.get(&succ.loc).copied().unwrap_or(0) + 1;
                    if n > bound {
                        *bounded = true;
                        continue;
                    }
                    Rc::make_mut(&mut visits).insert(succ.loc, n);
                }
                let next = Node {
                    state: succ,
                    passed: node.passed + usize::from(passes),
                    visits,
                    path: extended(node, &t, ops.map(|(assume, _)| assume)),
                };
                out.push((next, passes));
            }
        }
        out
    }
}

/// The exact checks of the error paths that pass every waypoint.
struct Checker<'a> {
    enc: &'a Encoder<'a>,
    program: &'a Program,
    name: &'a str,
    target: &'a Waypoint,
    /// The `\result` assumes of the paths, with their values ([`pins_of`]).
    pins: HashMap<*const WovenOp, i128>,
    /// Paths are checked under LDV's assumptions.
    under_ldv_assumptions: bool,
    deadline: Deadline,
    checks: u32,
    /// Why the last path that was not refuted is not a counterexample.
    last_check: Option<String>,
}

impl Checker<'_> {
    /// Checks the path of `node` if it ends at the target's line: the
    /// replay's answer, if this decides it.
    fn check(&mut self, node: &Node) -> Option<Replay> {
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
        if last.is_none_or(|s| s.input_line != self.target.line) {
            return None;
        }
        self.checks += 1;
        let mut result = self.exact(&path);
        if matches!(
            result,
            PathCheck::Imprecise(Some(_)) | PathCheck::LdvInfeasible(_)
        ) {
            if let Some(cex) = self.feasible_unpinned(&owned) {
                result = PathCheck::Feasible(cex);
            }
        }
        if crate::util::tracing() {
            eprintln!(
                "replay: path {} of {} steps: {}",
                self.checks,
                path.len(),
                outcome(&result)
            );
        }
        match result {
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

impl Checker<'_> {
    /// The exact check of `path`, under LDV's assumptions if the witness
    /// says so (the counterexample lists those made).
    fn exact(&self, path: &[Transition]) -> PathCheck {
        let check = || concrete_check(self.enc, self.program, path, self.name, self.deadline);
        if !self.under_ldv_assumptions {
            return check();
        }
        match self.enc.under_ldv_assumptions(check) {
            (PathCheck::Feasible(mut cex), made) => {
                cex.assumptions = made;
                PathCheck::Feasible(cex)
            }
            (other, _) => other,
        }
    }

    /// The counterexample of the path `owned` checked without its
    /// `\result` assumes, if its calls return the witness's values all the
    /// same: the model found with the values assumed may make the path
    /// depend on values the encoding does not model where another does
    /// not, and the check judges the model it finds.
    fn feasible_unpinned(&self, owned: &[PathStep]) -> Option<Counterexample> {
        let mut path = Vec::with_capacity(owned.len());
        // (the call's place in `path`, the value it is to return)
        let mut pinned = Vec::new();
        for s in owned {
            if let PathStep::Woven(op) = s {
                if let Some(&v) = self.pins.get(&Rc::as_ptr(op)) {
                    pinned.push((path.len().checked_sub(1)?, v));
                    continue;
                }
            }
            path.push(s.transition(self.program)?);
        }
        if pinned.is_empty() {
            return None;
        }
        let PathCheck::Feasible(cex) = self.exact(&path) else {
            return None;
        };
        // The counterexample has a step for each step of the path shown.
        let mut shown = Vec::with_capacity(path.len());
        let mut n = 0;
        for t in &path {
            shown.push(n);
            n += usize::from(CexStep::of(self.program, t, None, None).is_some());
        }
        let agrees = pinned.iter().all(|&(i, v)| {
            let step = cex.steps.get(shown[i]);
            let got = step.and_then(|s| s.value_c.as_deref());
            got.and_then(|c| result_value(&format!("\\result == {c}"))) == Some(v)
        });
        agrees.then_some(cex)
    }
}

/// A path check's outcome, for the trace.
fn outcome(c: &PathCheck) -> String {
    match c {
        PathCheck::Feasible(_) => "feasible".into(),
        PathCheck::Infeasible(_) => "infeasible".into(),
        PathCheck::Imprecise(why) => format!("imprecise ({why:?})"),
        PathCheck::LdvInfeasible(op) => format!("infeasible under LDV's assumptions ({op})"),
        PathCheck::Unknown => "unknown".into(),
    }
}
