//! Counterexample analysis without interpolation: the exact feasibility of an
//! abstract error path, and new predicates when it is infeasible.
//!
//! Feasibility: the trace DAG of the target state (every path merged into
//! it) is re-executed on the exact bit-vector encoding from the program
//! start. A model picks one concrete path, which is re-executed alone; if it
//! is satisfiable and every operation on it was encoded exactly, it is a
//! real counterexample (FALSE).
//!
//! Refinement (weakest-precondition style, no interpolants): for every
//! abstraction point `i` on an infeasible path, the suffix from `i` to the
//! target is re-executed from canonical symbols, i.e. from an arbitrary
//! state at `i`. Its path condition `S_i` is the precondition at `i` of
//! reaching the target along the suffix. The atoms of `S_i` that speak only
//! about the state at `i` (no value chosen later in the suffix) become
//! predicates. When `S_i` is a Boolean combination of such atoms, the
//! Boolean abstraction at `i` over them decides `S_i` exactly, so the same
//! abstract path cannot be found again; when it is not, refinement may find
//! nothing new, and the analysis reports UNKNOWN instead of looping.
//!
//! Focus: a path's suffix conditions are mostly branch conditions that have
//! nothing to do with its infeasibility, and each would become predicates
//! at every point before it. So an unsat core of the whole path over one
//! tracking literal per step condition is computed first, and the suffixes
//! are re-executed with only the core's conditions (the others dropped, an
//! over-approximation that is still infeasible). The same argument holds
//! for them; with the full conditions as the fallback (`all_predicates`)
//! when the focused predicates bring nothing new.

use std::time::Duration;

use crate::hash::{HashMap, HashSet};
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{DeclKind, SatResult, Solver};

use crate::algorithm::sdc::thread_cpu_time;
use crate::algorithm::unsat_core::{core_by_checks, minimal_core};
use crate::cfa::{LocId, Program};
use crate::cpa::predicate::trace::{
    abstraction_points, execute, pick_path, transition, Conditions, Key, Trace, TraceNode,
};
use crate::cpa::Transition;
use crate::report::{CexStep, Counterexample};
use crate::smt::interrupt::simplified;
use crate::smt::step::{apply, Post};
use crate::smt::{
    deferred_reads, disjoint, inconsistent_accesses, Encoder, InconsistentRead, SymState,
};

/// The outcome of analysing an abstract error path.
pub enum PathCheck {
    /// A concrete path reaches the target with every step encoded exactly.
    Feasible(Counterexample),
    /// Feasible, but only through over-approximated operations (the first
    /// one, described, if known).
    Imprecise(Option<String>),
    /// Feasible only through the over-approximated operation described,
    /// which does what LDV's assumptions rule out: infeasible under them
    /// (an analysis under the assumptions may still find an error path).
    LdvInfeasible(String),
    /// Infeasible; the candidate predicates found, each with the
    /// abstraction point (location) where it is needed.
    Infeasible(Vec<(Option<LocId>, Bool)>),
    /// The solver gave up (time limit).
    Unknown,
}

/// CPU time one refinement may spend on the suffixes of a path (the one
/// nearest the target is always done).
const REFINEMENT_BUDGET: Duration = Duration::from_secs(5);

/// At most this many abstraction points (the last ones) are refined.
const MAX_REFINED_POINTS: usize = 400;

/// Analyses the abstract error path ending in `target` (property `property`).
pub fn check_path(
    enc: &Encoder,
    p: &Program,
    target: &Trace,
    property: &str,
    deadline: Option<Duration>,
) -> PathCheck {
    let t0 = thread_cpu_time();
    let exec = execute(enc, p, target, None, Conditions::All);
    let solver = crate::smt::solver_until(deadline);
    solver.assert(&exec.guard);
    let t1 = thread_cpu_time();
    let feasible = crate::smt::interrupt::checking(|| solver.check());
    if crate::algorithm::cegar::tracing() {
        let t2 = thread_cpu_time();
        eprintln!(
            "path check: execution {:.2}s, solver {:.2}s ({feasible:?})",
            (t1 - t0).as_secs_f64(),
            (t2 - t1).as_secs_f64()
        );
    }
    match feasible {
        SatResult::Unknown => PathCheck::Unknown,
        SatResult::Sat => {
            let Some(model) = solver.get_model() else {
                return PathCheck::Unknown;
            };
            let path = pick_path(target, &exec, &model);
            concrete_path(enc, p, &path, property, deadline)
        }
        SatResult::Unsat => {
            let focused = needed_conditions(enc, p, target, deadline)
                .map(|core| predicates(enc, p, target, deadline, Conditions::Only(&core)))
                .filter(|preds| !preds.is_empty());
            PathCheck::Infeasible(
                focused.unwrap_or_else(|| predicates(enc, p, target, deadline, Conditions::All)),
            )
        }
    }
}

/// Re-executes one concrete path alone; a counterexample if it is exact and
/// satisfiable.
fn concrete_path(
    enc: &Encoder,
    p: &Program,
    path: &[(Trace, crate::algorithm::cpa_algorithm::Step)],
    property: &str,
    deadline: Option<Duration>,
) -> PathCheck {
    let mut steps = Vec::with_capacity(path.len());
    for (node, _) in path {
        let Some(t) = transition(p, node) else {
            return PathCheck::Imprecise(None);
        };
        steps.push(t);
    }
    concrete_check(enc, p, &steps, property, deadline)
}

/// Checks one concrete path from the program start exactly, and again
/// under LDV's assumptions if it needs an over-approximated step: a
/// counterexample if it is feasible with every step encoded exactly.
pub fn concrete_check(
    enc: &Encoder,
    p: &Program,
    steps: &[Transition],
    property: &str,
    deadline: Option<Duration>,
) -> PathCheck {
    let mut apart = Separations::default();
    let q = ExactPath {
        enc,
        p,
        path: steps,
        property,
        deadline,
    };
    let result = exact_or_under_ldv_assumptions(q, &mut apart);
    if matches!(
        result,
        PathCheck::Imprecise(_) | PathCheck::LdvInfeasible(_)
    ) && copies_from_user(p, steps)
    {
        // The path may need bytes a copy from user memory wrote: any
        // bytes are possible there, so a path feasible with some is real.
        let with_input = enc.with_user_input(|| exact_or_under_ldv_assumptions(q, &mut apart));
        if matches!(with_input, PathCheck::Feasible(_)) {
            return with_input;
        }
    }
    result
}

/// Whether a step calls `copy_from_user` ([`crate::smt::copies_from_user`]).
fn copies_from_user(p: &Program, steps: &[Transition]) -> bool {
    steps.iter().any(|t| match t {
        Transition::Edge { edge, .. } => matches!(
            &edge.op,
            crate::cfa::EdgeOp::Call { callee, .. } if crate::smt::copies_from_user(&p.func(*callee).name)
        ),
        _ => false,
    })
}

/// [`exact_path_keeping_apart`], and again under LDV's assumptions if the
/// path needs an over-approximated step.
fn exact_or_under_ldv_assumptions(q: ExactPath<'_, '_>, apart: &mut Separations) -> PathCheck {
    let enc = q.enc;
    let first = exact_path_keeping_apart(q, apart);
    if crate::algorithm::cegar::tracing() {
        if let PathCheck::Imprecise(why) = &first {
            eprintln!("exact path imprecise: {why:?}");
        }
    }
    match first {
        PathCheck::Imprecise(_) => {
            // Under LDV's assumptions (kernel functions without a model leave
            // the module's memory alone, ...) the path may be exact.
            let (second, assumptions) =
                enc.under_ldv_assumptions(|| exact_path_keeping_apart(q, apart));
            match second {
                PathCheck::Feasible(mut cex) => {
                    cex.assumptions = assumptions;
                    PathCheck::Feasible(cex)
                }
                // Under the assumptions, the remaining imprecision is the
                // one that matters; a check cut by the deadline decides
                // nothing (the property stays open for a later run).
                PathCheck::Imprecise(Some(_)) | PathCheck::Unknown => second,
                // Infeasible under them: the path needs an over-approximated
                // step to do what LDV's models rule out.
                PathCheck::Imprecise(None) => match first {
                    PathCheck::Imprecise(Some(op)) => PathCheck::LdvInfeasible(op),
                    other => other,
                },
                _ => first,
            }
        }
        other => other,
    }
}

/// One exact execution of the steps from the program start (under
/// whatever assumptions the encoder has in force): a counterexample if
/// every step is encoded exactly, the path is satisfiable, the model's
/// memory accesses never overlap with different addresses or widths (where
/// memory as one array per width could differ from real memory), and, if
/// the path went through havoc symbols, its feasibility does not depend on
/// them (`independent_of_havoc`).
pub fn exact_path(
    enc: &Encoder,
    p: &Program,
    path: &[Transition],
    property: &str,
    deadline: Option<Duration>,
) -> PathCheck {
    let mut apart = Separations::default();
    let q = ExactPath {
        enc,
        p,
        path,
        property,
        deadline,
    };
    exact_path_keeping_apart(q, &mut apart)
}

/// The pairs of memory accesses an exact check of a path kept apart, each
/// access as its step and its place among the step's accesses. A later
/// check of the same path (under LDV's assumptions, say) keeps them apart
/// from the start where its steps make such accesses: a restriction of the
/// models looked for, which a counterexample never depends on, since its
/// accesses are replayed byte by byte all the same.
#[derive(Default)]
struct Separations {
    pairs: Vec<((usize, usize), (usize, usize))>,
}

impl Separations {
    /// Access `i` of an execution as (step, place in the step), given where
    /// each step's accesses end.
    fn place(ends: &[usize], i: usize) -> (usize, usize) {
        let step = ends.partition_point(|&end| end <= i);
        let start = if step == 0 { 0 } else { ends[step - 1] };
        (step, i - start)
    }

    /// The access at `place` in an execution, if it made it.
    fn index(ends: &[usize], (step, k): (usize, usize)) -> Option<usize> {
        let start = if step == 0 { 0 } else { *ends.get(step - 1)? };
        let i = start + k;
        (i < *ends.get(step)?).then_some(i)
    }
}

/// A path to check exactly from the program start.
#[derive(Clone, Copy)]
struct ExactPath<'a, 'p> {
    enc: &'a Encoder<'p>,
    p: &'p Program,
    path: &'a [Transition<'p>],
    property: &'a str,
    deadline: Option<Duration>,
}

/// [`exact_path_once`], first with reads through symbolic pointers past
/// the writes to fixed addresses ([`crate::smt::fixed_writes`]), and again
/// without if the path is unsatisfiable with their side conditions; each
/// time with reads deferred first, and again without if that gives
/// deferral up.
fn exact_path_keeping_apart(q: ExactPath, apart: &mut Separations) -> PathCheck {
    for fixed in [true, false] {
        q.enc.fixed_writes.set_enabled(fixed);
        let result = match exact_path_once(q, apart, true) {
            Err(Retry::WithoutDeferral) => exact_path_once(q, apart, false),
            other => other,
        };
        q.enc.fixed_writes.set_enabled(false);
        if let Ok(result) = result {
            return result;
        }
        // Without reads past fixed writes there are no side conditions.
        apart.pairs.clear();
    }
    PathCheck::Imprecise(None)
}

/// One symbolic execution of a path.
struct Execution {
    /// The state at its end.
    st: SymState,
    /// The value each step computed (a call's result, an assignment's).
    values: Vec<Option<BV>>,
    /// The first step the encoding did not execute exactly, and the first
    /// that havocked what it could not model.
    first_inexact: Option<String>,
    first_havoc: Option<String>,
    /// Where each step's memory accesses end, in the order they were made.
    access_ends: Vec<usize>,
}

/// Why an exact check decided nothing and is to be repeated.
enum Retry {
    /// Unsatisfiable with the side conditions of reads past fixed writes.
    WithoutFixedWrites,
    /// Its restrictions of deferred reads kept ruling the path out.
    WithoutDeferral,
}

/// One exact execution of the path keeping the pairs of `apart` apart,
/// with reads deferred if `defer` and [`defers_reads`].
///
/// Deferred reads ([`deferred_reads`]): a read the model got wrong is
/// restricted to the store the model has it read from, under a literal of
/// its own; the checks assume the literals, and the reads whose
/// restrictions an unsat core names are deferred again. A model with no
/// read wrong satisfies every read's definition; an unsat core without
/// restrictions makes the path unsatisfiable with all of them.
fn exact_path_once(q: ExactPath, apart: &mut Separations, defer: bool) -> Result<PathCheck, Retry> {
    let ExactPath {
        enc,
        p,
        path,
        property,
        deadline,
    } = q;
    let solver = crate::smt::solver_until(deadline);
    let describe = |t: &Transition| {
        CexStep::of(p, t, None, None).map(|s| format!("{}:{}: {}", s.file, s.line, s.op))
    };
    // Every assertion, for the havoc check, with the step it comes from.
    let mut conditions: Vec<Bool> = Vec::new();
    let mut condition_steps: Vec<usize> = Vec::new();
    // Whether reads past fixed writes made side conditions.
    let mut side_conditions = false;
    let mut execute = || {
        enc.recording_accesses(|| {
            let mut st = enc.initial();
            let mut values = Vec::with_capacity(path.len());
            let mut first_inexact = None;
            let mut first_havoc = None;
            let mut access_ends = Vec::with_capacity(path.len());
            for (i, t) in path.iter().enumerate() {
                let Post {
                    constraint: c,
                    value: v,
                } = apply(enc, &mut st, t, p);
                if !st.exact && first_inexact.is_none() {
                    first_inexact = describe(t);
                }
                if st.havocked && first_havoc.is_none() {
                    first_havoc = describe(t);
                }
                if let Some(c) = c {
                    solver.assert(&c);
                    conditions.push(c);
                    condition_steps.push(i);
                }
                for c in enc.fixed_writes.take_side_conditions() {
                    side_conditions = true;
                    solver.assert(&c);
                    conditions.push(c);
                    condition_steps.push(i);
                }
                values.push(v);
                access_ends.push(enc.access_count());
            }
            Execution {
                st,
                values,
                first_inexact,
                first_havoc,
                access_ends,
            }
        })
    };
    // Under LDV's assumptions reads see the whole path's writes; they are
    // decided lazily (`deferred_reads`).
    let ((execution, accesses), deferred) = if defer && defers_reads(enc) {
        enc.deferred_reads.deferring(execute)
    } else {
        (execute(), Vec::new())
    };
    let Execution {
        st,
        values,
        first_inexact,
        first_havoc,
        access_ends,
    } = execution;
    let mut restrictions = deferred_reads::Restrictions::new(deferred.len());
    let mut relaxations = 0;
    if !st.exact {
        return Ok(PathCheck::Imprecise(first_inexact));
    }
    let mut hinted = false;
    for &(a, b) in &apart.pairs {
        let i = Separations::index(&access_ends, a);
        let j = Separations::index(&access_ends, b);
        if let (Some(i), Some(j)) = (i, j) {
            let c = disjoint(&accesses[i], &accesses[j]);
            solver.assert(&c);
            conditions.push(c);
            hinted = true;
        }
    }
    // A model whose memory accesses overlap inconsistently may have
    // siblings that keep the two accesses apart.
    let overlapping = |at: Option<String>, clobbered: bool| {
        let why = if clobbered {
            "it reads bytes a kernel function wrote, whose values are not modelled"
        } else {
            "memory accessed with overlapping addresses of different widths"
        };
        PathCheck::Imprecise(Some(format!("{} ({why})", at.unwrap_or_default())))
    };
    let mut clobbered = false;
    let mut overlap = None;
    let mut separations = 0;
    let model = loop {
        let t0 = thread_cpu_time();
        let assumed = restrictions.assumed();
        let r = crate::smt::interrupt::checking(|| {
            if assumed.is_empty() {
                solver.check()
            } else {
                solver.check_assumptions(&assumed)
            }
        });
        if crate::algorithm::cegar::tracing() {
            eprintln!(
                "exact path: {} steps, {} conditions, {separations} separations, {} of {} deferred reads restricted: {r:?} in {:.2}s",
                path.len(),
                conditions.len(),
                restrictions.count(),
                deferred.len(),
                (thread_cpu_time() - t0).as_secs_f64()
            );
        }
        if r == SatResult::Unsat && !assumed.is_empty() {
            // The reads whose restrictions the path is unsatisfiable with
            // are deferred again: the next model's stores restrict them.
            if restrictions.lift(&solver.get_unsat_core()) {
                relaxations += 1;
                if relaxations > MAX_RELAXATIONS {
                    return Err(Retry::WithoutDeferral);
                }
                continue;
            }
        }
        match r {
            SatResult::Sat => {}
            SatResult::Unknown => return Ok(PathCheck::Unknown),
            // The pairs kept apart from the start may be what rules the
            // path out: once more without them.
            SatResult::Unsat if hinted && separations == 0 => {
                apart.pairs.clear();
                return Ok(exact_path_keeping_apart(q, apart));
            }
            SatResult::Unsat if side_conditions => return Err(Retry::WithoutFixedWrites),
            SatResult::Unsat if separations > 0 => return Ok(overlapping(overlap, clobbered)),
            // The merged formula had a model, this path alone has none: the
            // model chose branches inconsistently. Nothing can be concluded.
            SatResult::Unsat => {
                if crate::algorithm::cegar::tracing() {
                    trace_infeasibility(&conditions, &condition_steps, path, &describe);
                }
                return Ok(PathCheck::Imprecise(None));
            }
        }
        let Some(model) = solver.get_model() else {
            return Ok(PathCheck::Unknown);
        };
        let wrong = restrictions.wrong_under(&deferred, &model);
        if !wrong.is_empty() {
            // Each read the model got wrong reads from the write the model
            // has it read from.
            restrictions.restrict(&solver, &deferred, &wrong, &model);
            continue;
        }
        let found = inconsistent_accesses(&accesses, &model, MAX_SEPARATED_PAIRS);
        let Some(&InconsistentRead { read: i, other }) = found.first() else {
            break model;
        };
        let step = Separations::place(&access_ends, i).0;
        overlap = path.get(step).and_then(describe);
        clobbered = other.is_some_and(|j| accesses[j].clobber.is_some());
        if separations >= MAX_SEPARATIONS || other.is_none() {
            return Ok(overlapping(overlap, clobbered));
        }
        // Every pair this model mixes up is kept apart for the next one.
        for &InconsistentRead { read: i, other } in &found {
            let Some(j) = other else { continue };
            let c = disjoint(&accesses[i], &accesses[j]);
            solver.assert(&c);
            conditions.push(c);
            let places = (
                Separations::place(&access_ends, i),
                Separations::place(&access_ends, j),
            );
            apart.pairs.push(places);
        }
        separations += 1;
    };
    if st.havocked {
        // Deferred reads stand for their terms, which may mention havoc
        // symbols: the checks below look at the path without deferral.
        let resolving = deferred_reads::resolving(&deferred);
        let pairs: Vec<(&Dynamic, &Dynamic)> = resolving.iter().map(|(a, b)| (a, b)).collect();
        let resolved = |t: &Dynamic| {
            if pairs.is_empty() {
                t.clone()
            } else {
                t.substitute(&pairs)
            }
        };
        let conditions: Vec<Bool> = conditions
            .iter()
            .map(|c| {
                resolved(&Dynamic::from_ast(c))
                    .as_bool()
                    .expect("a condition")
            })
            .collect();
        // An access whose address depends on a havoc value may overlap
        // others in real memory in ways the arrays do not show, whatever
        // the path condition says.
        let mut scan = crate::smt::HavocScan::default();
        if let Some(i) = accesses
            .iter()
            .position(|a| scan.mentions_havoc(&resolved(&Dynamic::from_ast(&a.address))))
        {
            let step = Separations::place(&access_ends, i).0;
            let at = path.get(step).and_then(describe).unwrap_or_default();
            // The step that made the first unmodelled value says which
            // kernel function (or operation) a model would help most.
            let since = first_havoc
                .map(|h| format!(", unmodelled since {h}"))
                .unwrap_or_default();
            return Ok(PathCheck::Imprecise(Some(format!(
                "{at}, whose address depends on values the encoding does not model{since}"
            ))));
        }
        match independent_of_havoc(&conditions, Some(&model), deadline, &mut scan) {
            SatResult::Unsat => {}
            other => {
                let why = if other == SatResult::Sat {
                    "whose unmodelled values the path depends on"
                } else {
                    "whose unmodelled values the path may depend on"
                };
                return Ok(PathCheck::Imprecise(Some(format!(
                    "{}, {why}",
                    first_havoc.unwrap_or_default()
                ))));
            }
        }
    }
    let steps = path
        .iter()
        .zip(&values)
        .filter_map(|(t, v)| CexStep::of(p, t, v.as_ref(), Some(&model)))
        .collect();
    Ok(PathCheck::Feasible(Counterexample {
        property: property.to_string(),
        steps,
        assumptions: Vec::new(),
    }))
}

/// Tracing: the steps whose conditions make an infeasible path so (an
/// unsat core over one tracking literal per condition).
fn trace_infeasibility(
    conditions: &[Bool],
    steps: &[usize],
    path: &[Transition],
    describe: &dyn Fn(&Transition) -> Option<String>,
) {
    let solver = crate::smt::incremental_solver();
    let literals: Vec<Bool> = (0..conditions.len())
        .map(|i| Bool::new_const(format!("trace_step{i}")))
        .collect();
    for (l, c) in literals.iter().zip(conditions) {
        solver.assert(l.implies(c));
    }
    let params = crate::smt::query_limit(Duration::from_secs(2));
    let Some(core) = minimal_core(&solver, params, &literals).1 else {
        return;
    };
    for i in core {
        let at = path.get(steps[i]).and_then(describe).unwrap_or_default();
        let c = simplified(&conditions[i]).to_string();
        let c: String = c.chars().take(300).collect();
        eprintln!("  infeasible through step {}: {at}: {c}", steps[i]);
    }
}

/// Whether the conjunction of `conditions`, with the model's values for its
/// bit-vector constants, can change its value when its havoc symbols
/// (values the encoding does not model) change: `Unsat` if it cannot, so
/// the path is feasible whatever the real values are.
///
/// Checked as `x = M(x) ∧ φ(x, m, h) ∧ ¬φ(x, m, h')` with a fresh copy `h'`
/// of the havoc symbols `h`, where `x` are the bit-vector constants (inputs
/// and nondeterministic values) and `m` the initial memory: unsatisfiable
/// iff `φ(M(x), m, h)` implies `φ(M(x), m, h')` for all `m`, `h`, `h'`. The
/// model satisfies `φ(M(x), M(m), M(h))`, so then `φ(M(x), M(m), h')` holds
/// for the real values `h'` too. Only the conditions that mention a havoc
/// symbol need negating. At most [`HAVOC_CHECK_LIMIT`] of CPU time.
/// `scan` may already know terms (the path's access addresses, which
/// share the conditions' memory store chains) and learns the conditions';
/// the constants of all of them are the ones fixed or copied.
fn independent_of_havoc(
    conditions: &[Bool],
    model: Option<&z3::Model>,
    deadline: Option<Duration>,
    scan: &mut crate::smt::HavocScan,
) -> SatResult {
    let solver = Solver::new();
    let limit = deadline.map_or(HAVOC_CHECK_LIMIT, |d| {
        d.saturating_sub(thread_cpu_time()).min(HAVOC_CHECK_LIMIT)
    });
    solver.set_params(&crate::smt::query_limit(limit));
    let _armed = crate::smt::interrupt::arm(thread_cpu_time() + limit);
    let mut dependent: Vec<Bool> = Vec::new();
    for c in conditions {
        if scan.mentions_havoc(&Dynamic::from_ast(c)) {
            dependent.push(c.clone());
        }
        solver.assert(c);
    }
    if dependent.is_empty() {
        return SatResult::Unsat;
    }
    let (havocs, inputs) = scan.constants();
    if let Some(m) = model {
        for x in &inputs {
            if x.as_bv().is_some() {
                if let Some(v) = m.eval(x, true) {
                    solver.assert(x.eq(&v));
                }
            }
        }
    }
    let copies: Vec<Dynamic> = havocs
        .iter()
        .map(|h| Dynamic::fresh_const("hvcopy", &h.get_sort()))
        .collect();
    let pairs: Vec<(&Dynamic, &Dynamic)> = havocs.iter().zip(&copies).collect();
    let refs: Vec<&Bool> = dependent.iter().collect();
    solver.assert(Bool::and(&refs).substitute(&pairs).not());
    crate::smt::interrupt::checking(|| solver.check())
}

/// Whether an exact path check defers reads over stores
/// ([`deferred_reads`]): under LDV's assumptions, where reads see every
/// write of the path.
fn defers_reads(enc: &Encoder) -> bool {
    enc.ldv_assumptions_in_force()
}

/// How many times an exact path check lifts restrictions of deferred
/// reads it is unsatisfiable with before it gives deferral up.
const MAX_RELAXATIONS: usize = 16;

/// CPU time the havoc check of one path may take.
const HAVOC_CHECK_LIMIT: Duration = Duration::from_secs(1);

/// How often an exact path check looks for a model whose memory accesses
/// are consistent byte by byte.
const MAX_SEPARATIONS: usize = 8;

/// How many pairs of accesses one such look may keep apart.
const MAX_SEPARATED_PAIRS: usize = 64;

/// The step conditions of an infeasible abstract error path that its
/// infeasibility needs: an unsat core over one tracking literal per
/// condition ([`minimal_core`], or [`core_by_checks`] if that check is
/// undecided). `None` if neither finds one in time.
fn needed_conditions(
    enc: &Encoder,
    p: &Program,
    target: &Trace,
    deadline: Option<Duration>,
) -> Option<HashSet<Key>> {
    let t0 = thread_cpu_time();
    let exec = execute(enc, p, target, None, Conditions::Tracked);
    let solver = crate::smt::incremental_solver();
    solver.assert(&exec.guard);
    let t_exec = thread_cpu_time() - t0;
    // With tracking literals Z3 may take seconds where the plain check took
    // milliseconds; past the limit, refinement considers every condition.
    let limit = deadline.map_or(NEEDED_CONDITIONS_LIMIT, |d| {
        d.saturating_sub(thread_cpu_time())
            .min(NEEDED_CONDITIONS_LIMIT)
    });
    let params = crate::smt::query_limit(limit);
    let literals: Vec<Bool> = exec.tracks.iter().map(|(_, t)| t.clone()).collect();
    let (mut result, mut core) = minimal_core(&solver, params, &literals);
    if result == SatResult::Unknown {
        // The plain check found the path infeasible: checks with the
        // literals asserted may decide where assumptions did not.
        let budget = deadline.map_or(CORE_BY_CHECKS_LIMIT, |d| {
            d.saturating_sub(thread_cpu_time())
                .min(CORE_BY_CHECKS_LIMIT)
        });
        core = core_by_checks(&exec.guard, &literals, budget);
        if core.is_some() {
            result = SatResult::Unsat;
        }
    }
    let core = core.map(|ix| {
        ix.into_iter()
            .map(|i| exec.tracks[i].0)
            .collect::<HashSet<Key>>()
    });
    if crate::algorithm::cegar::tracing() {
        eprintln!(
            "unsat core: {} of {} conditions ({:?}, {:.2}s, execution {:.2}s)",
            core.as_ref().map_or(0, |c| c.len()),
            literals.len(),
            result,
            (thread_cpu_time() - t0).as_secs_f64(),
            t_exec.as_secs_f64()
        );
    }
    core
}

/// The effort finding the conditions an infeasible path needs may take.
const NEEDED_CONDITIONS_LIMIT: Duration = Duration::from_secs(2);

/// The effort finding them by checks with asserted literals may take, when
/// the check under assumptions was undecided.
const CORE_BY_CHECKS_LIMIT: Duration = Duration::from_secs(8);

/// The candidate predicates of an infeasible abstract error path with
/// every condition considered, not only those its infeasibility needs
/// (the fallback when the focused candidates bring nothing new).
pub fn all_predicates(
    enc: &Encoder,
    p: &Program,
    target: &Trace,
    deadline: Option<Duration>,
) -> Vec<(Option<LocId>, Bool)> {
    predicates(enc, p, target, deadline, Conditions::All)
}

/// Atoms of the suffix preconditions at the abstraction points of the path
/// (with the step conditions `conditions` selects), each with its point's
/// location. Abstraction points are processed from the target backwards
/// until [`REFINEMENT_BUDGET`] or the deadline is used up.
///
/// The precondition of a point is its block's condition and the next
/// point's precondition carried back through the block (a weakest
/// precondition): `pre(Pₖ) = Gₖ ∧ pre(Pₖ₊₁)[canonical ↦ values at the end
/// of block k]`. Each block is executed once, so a path of n blocks costs
/// n block executions, not the n²/2 of executing every suffix.
fn predicates(
    enc: &Encoder,
    p: &Program,
    target: &Trace,
    deadline: Option<Duration>,
    conditions: Conditions,
) -> Vec<(Option<LocId>, Bool)> {
    let started = thread_cpu_time();
    let stop = deadline.map_or(started + REFINEMENT_BUDGET, |d| {
        d.min(started + REFINEMENT_BUDGET)
    });
    let points = abstraction_points(target);
    let skip = points.len().saturating_sub(MAX_REFINED_POINTS);
    let mut out = Vec::new();
    // An atom recurs in the preconditions of many points: its predicates
    // are derived once.
    let mut derived: HashMap<Bool, Vec<Bool>> = HashMap::default();
    // The precondition of the point after the current one.
    let mut later: Option<Bool> = None;
    for (i, point) in points.iter().enumerate().skip(skip).rev() {
        if thread_cpu_time() >= stop && !out.is_empty() {
            break;
        }
        let at = match &**point {
            TraceNode::Abstraction { loc, .. } => *loc,
            _ => None,
        };
        let t = thread_cpu_time();
        let block_end = points.get(i + 1).unwrap_or(target);
        let block = execute(enc, p, block_end, Some(point), conditions);
        let pre = match &later {
            None => block.guard,
            Some(next) => {
                let subst = enc.end_substitution(&block.end);
                let pairs: Vec<(&Dynamic, &Dynamic)> = subst.iter().map(|(a, b)| (a, b)).collect();
                Bool::and(&[&block.guard, &next.substitute(&pairs)])
            }
        };
        let t_exec = thread_cpu_time() - t;
        let pre = simplified(&pre);
        if crate::algorithm::cegar::tracing() {
            eprintln!(
                "refine point {at:?}: execution {:.3}s, simplify {:.3}s",
                t_exec.as_secs_f64(),
                (thread_cpu_time() - t - t_exec).as_secs_f64()
            );
        }
        let mut atoms = Vec::new();
        atoms_of(&pre, &mut atoms);
        later = Some(pre);
        let mut here: HashSet<Bool> = HashSet::default();
        for atom in atoms {
            let preds = derived.entry(atom).or_insert_with_key(start_predicates);
            for a in preds.iter() {
                if here.insert(a.clone()) {
                    out.push((at, a.clone()));
                }
            }
        }
    }
    out
}

/// The predicates an atom of a suffix precondition gives: itself if it
/// speaks of the start state only, else the start-state atoms of its
/// versions with later-chosen `ite`s resolved.
fn start_predicates(atom: &Bool) -> Vec<Bool> {
    if speaks_of_start_only(atom) {
        return vec![atom.clone()];
    }
    let mut out = Vec::new();
    for lifted in lift_ites(atom) {
        atoms_of(&lifted, &mut out);
    }
    out.retain(speaks_of_start_only);
    out
}

/// Versions of `atom` with its `ite` terms resolved either way (up to
/// [`MAX_LIFTED`] of them): an atom over a value chosen later in the suffix
/// (`p == ite(alloc_fails, 0, heaptop)`) gives atoms over the start state
/// (`p == 0`, `p == heaptop`).
fn lift_ites(atom: &Bool) -> Vec<Bool> {
    let mut out = vec![atom.clone()];
    for _ in 0..MAX_LIFTED {
        let mut next = Vec::new();
        let mut changed = false;
        for a in &out {
            match first_ite(&Dynamic::from_ast(a)) {
                Some(ite) => {
                    changed = true;
                    let ch = ite.children();
                    for branch in &ch[1..] {
                        next.push(simplified(&a.substitute(&[(&ite, branch)])));
                    }
                }
                None => next.push(a.clone()),
            }
        }
        out = next;
        if !changed {
            break;
        }
    }
    out
}

/// At most this many `ite` terms of one atom are resolved.
const MAX_LIFTED: usize = 3;

/// An innermost non-Boolean `ite` term of `t` (none inside it), whose
/// condition speaks of a value chosen later: resolving it first keeps the
/// comparisons around it.
fn first_ite(t: &Dynamic) -> Option<Dynamic> {
    let mut stack = vec![t.clone()];
    let mut seen: HashSet<Dynamic> = HashSet::default();
    let mut found = None;
    while let Some(x) = stack.pop() {
        if !x.is_app() || !seen.insert(x.clone()) {
            continue;
        }
        if x.decl().kind() == DeclKind::ITE && x.as_bool().is_none() {
            let later = crate::cpa::predicate::abstraction::symbols_of(&x.children()[0])
                .iter()
                .any(|s| !Encoder::is_canonical_symbol(s));
            if later {
                found = Some(x.clone());
            }
        }
        stack.extend(x.children());
    }
    found
}

/// Whether every constant in `t` is a canonical symbol (and there is one).
fn speaks_of_start_only(t: &Bool) -> bool {
    let symbols = crate::cpa::predicate::abstraction::symbols_of(&Dynamic::from_ast(t));
    !symbols.is_empty() && symbols.iter().all(|s| Encoder::is_canonical_symbol(s))
}

/// The theory atoms of a Boolean formula (below and/or/not/ite/...).
pub fn atoms_of(t: &Bool, out: &mut Vec<Bool>) {
    let mut seen: HashSet<Bool> = HashSet::default();
    let mut stack = vec![t.clone()];
    while let Some(x) = stack.pop() {
        if !seen.insert(x.clone()) || !x.is_app() {
            continue;
        }
        let kind = x.decl().kind();
        let bool_children =
            || -> Vec<Bool> { x.children().iter().filter_map(|c| c.as_bool()).collect() };
        match kind {
            DeclKind::TRUE | DeclKind::FALSE => {}
            DeclKind::AND
            | DeclKind::OR
            | DeclKind::NOT
            | DeclKind::IMPLIES
            | DeclKind::XOR
            | DeclKind::IFF => stack.extend(bool_children()),
            DeclKind::ITE => stack.extend(bool_children()),
            DeclKind::EQ | DeclKind::DISTINCT
                if x.children().first().is_some_and(|c| c.as_bool().is_some()) =>
            {
                stack.extend(bool_children())
            }
            DeclKind::UNINTERPRETED if x.num_children() == 0 => {}
            _ => out.push(x),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;

    #[test]
    fn a_path_condition_free_of_havoc_symbols_is_independent_of_them() {
        let independent_of_havoc = |c: &[Bool], m: Option<&z3::Model>| {
            independent_of_havoc(c, m, None, &mut crate::smt::HavocScan::default())
        };
        let x = BV::new_const("v1", 32);
        let h = BV::new_const("hv7", 32);
        let mem =
            z3::ast::Array::new_const("mem8_h3", &z3::Sort::bitvector(64), &z3::Sort::bitvector(8));
        let five = BV::from_u64(5, 32);
        // The havoc value is read but the condition holds whatever it is.
        let ignores = vec![x.bvugt(&five), h.bvadd(&x).eq(x.bvadd(&h))];
        assert_eq!(independent_of_havoc(&ignores, None), SatResult::Unsat);
        let needs_value = vec![x.bvugt(&five), h.eq(&x)];
        assert_eq!(independent_of_havoc(&needs_value, None), SatResult::Sat);
        let byte = mem.select(&BV::from_u64(4096, 64)).as_bv().expect("a byte");
        let needs_memory = vec![byte.eq(BV::from_u64(1, 8))];
        assert_eq!(independent_of_havoc(&needs_memory, None), SatResult::Sat);
        assert_eq!(independent_of_havoc(&[], None), SatResult::Unsat);
        // Depends on the havoc value for some inputs, but not for the
        // model's: x = 6.
        let either = vec![Bool::or(&[&x.bvugt(&five), &h.eq(&five)])];
        assert_eq!(independent_of_havoc(&either, None), SatResult::Sat);
        let solver = Solver::new();
        solver.assert(x.eq(BV::from_u64(6, 32)));
        assert_eq!(solver.check(), SatResult::Sat);
        let model = solver.get_model().expect("a model");
        assert_eq!(
            independent_of_havoc(&either, Some(&model)),
            SatResult::Unsat
        );
    }

    #[test]
    fn atoms_below_the_boolean_structure() {
        let x = BV::new_const("v1", 32);
        let y = BV::new_const("v2", 32);
        let a = x.bvult(&y);
        let b = x.eq(BV::from_u64(3, 32));
        let f = Bool::or(&[&a.not(), &Bool::and(&[&b, &a])]);
        let mut out = Vec::new();
        atoms_of(&f, &mut out);
        assert_eq!(out.len(), 2);
        assert!(out.contains(&a) && out.contains(&b));
    }

    #[test]
    fn only_start_symbols_make_predicates() {
        let x = BV::new_const("v1", 32);
        let nd = BV::new_const("nd7", 32);
        assert!(speaks_of_start_only(&x.eq(BV::from_u64(1, 32))));
        assert!(!speaks_of_start_only(&x.eq(&nd)));
        assert!(!speaks_of_start_only(&Bool::from_bool(true)));
    }
}
