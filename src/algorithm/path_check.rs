//! The exact path check: whether an error path is feasible on the exact
//! bit-vector encoding, and so a counterexample (FALSE).
//!
//! An abstract error path of the predicate analysis ([`check_path`]): the
//! trace DAG of the target state (every path merged into it) is
//! re-executed from the program start; a model picks one concrete path,
//! which is checked alone. If the DAG is unsatisfiable, the path is
//! infeasible and [`super::refine`] finds the predicates that rule it out.
//!
//! A concrete path ([`concrete_check`], also used by the value search and
//! witness replay; [`exact_path`] for symbolic execution) is feasible if
//! every step is encoded exactly, the path is satisfiable, the model's
//! memory accesses are consistent byte by byte (pairs the replay mixes up
//! are kept apart for the next model, all of a model's at once), and, if
//! the path went through havoc symbols, its condition does not depend on
//! them. A path that needs an over-approximated step is checked again
//! under LDV's assumptions (starting from the pairs kept apart, with
//! reads over store chains deferred, `smt::deferred_reads`), and a path
//! through `copy_from_user` that is still imprecise once more with user
//! input (the copy succeeds with fresh bytes).

use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{SatResult, Solver};

use crate::algorithm::cpa_algorithm::Step;
use crate::algorithm::refine;
use crate::algorithm::unsat_core::minimal_core;
use crate::cfa::{LocId, Program};
use crate::cpa::predicate::trace::{self, execute, pick_path, transition, Conditions, Trace};
use crate::cpa::Transition;
use crate::report::{AnalysisStep, CexStep, Counterexample};
use crate::smt::interrupt::simplified;
use crate::smt::step::{apply, Post};
use crate::smt::work::Deadline;
use crate::smt::{
    deferred_reads, disjoint, inconsistent_accesses, Encoder, InconsistentRead, MemoryAccess,
    SymState,
};
use crate::util::{thread_cpu_time, tracing};

/// The outcome of analysing an error path.
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
    /// abstraction point (location) where it is needed (none for a
    /// concrete path, [`concrete_check`]).
    Infeasible(Vec<(Option<LocId>, Bool)>),
    /// The solver gave up (time limit).
    Unknown,
}

impl PathCheck {
    /// The outcome in a few words, for tracing.
    fn outcome(&self) -> String {
        match self {
            PathCheck::Feasible(_) => "feasible".to_string(),
            PathCheck::Imprecise(why) => format!("imprecise: {why:?}"),
            PathCheck::LdvInfeasible(op) => format!("infeasible under LDV's assumptions: {op}"),
            PathCheck::Infeasible(_) => "infeasible".to_string(),
            PathCheck::Unknown => "unknown".to_string(),
        }
    }
}

/// Analyses the abstract error path ending in `target` (property
/// `property`): a counterexample if a concrete path of it is, the
/// candidate predicates ([`refine::candidates`]) if it is infeasible.
pub fn check_path(
    enc: &Encoder,
    p: &Program,
    target: &Trace,
    property: &str,
    deadline: Deadline,
) -> PathCheck {
    let t0 = thread_cpu_time();
    let exec = execute(enc, p, target, None, Conditions::All);
    let solver = crate::smt::solver_until(deadline);
    solver.assert(&exec.guard);
    let t1 = thread_cpu_time();
    let feasible = crate::smt::interrupt::checking(|| solver.check());
    if tracing() {
        let t2 = thread_cpu_time();
        eprintln!(
            "path check: execution {:.2}s, solver {:.2}s ({feasible:?})",
            (t1 - t0).as_secs_f64(),
            (t2 - t1).as_secs_f64()
        );
    }
    match feasible {
        SatResult::Unknown => PathCheck::Unknown,
        SatResult::Sat => concrete_paths(enc, p, target, property, deadline, &exec, &solver),
        SatResult::Unsat => PathCheck::Infeasible(refine::candidates(enc, p, target, deadline)),
    }
}

/// Concrete paths of an error path's DAG checked under LDV's assumptions
/// before the DAG counts as infeasible under them: each is one exact check,
/// far cheaper than the analysis under the assumptions that follows when
/// they all fail (on mos7840 041, 68_1's fourth path is a counterexample;
/// with the first alone, one query of that analysis took 46 s).
const LDV_PATHS: usize = 8;

/// Checks the concrete path of the DAG ending in `target` that the
/// solver's model picks ([`concrete_path`]). A path that needs an
/// over-approximated step to do what LDV's assumptions rule out says
/// nothing of the DAG's other paths: up to [`LDV_PATHS`] paths are
/// checked, each excluded from the models of the next by one of its
/// branch choices at a merge, until one is a counterexample; otherwise
/// the first path's outcome is the DAG's.
fn concrete_paths(
    enc: &Encoder,
    p: &Program,
    target: &Trace,
    property: &str,
    deadline: Deadline,
    exec: &trace::Execution,
    solver: &Solver,
) -> PathCheck {
    let mut first = None;
    for _ in 0..LDV_PATHS {
        let Some(model) = solver.get_model() else {
            break;
        };
        let (path, choices) = pick_path(target, exec, &model);
        let check = concrete_path(enc, p, &path, property, deadline);
        match check {
            PathCheck::LdvInfeasible(_) if !choices.is_empty() => {
                first.get_or_insert(check);
            }
            PathCheck::Feasible(_) => return check,
            // The first path's outcome stands for the DAG's.
            other => return first.unwrap_or(other),
        }
        let other: Vec<Bool> = choices.iter().map(Bool::not).collect();
        solver.assert(Bool::or(&other));
        if crate::smt::interrupt::checking(|| solver.check()) != SatResult::Sat {
            break;
        }
    }
    first.unwrap_or(PathCheck::Unknown)
}

/// Re-executes one concrete path alone; a counterexample if it is exact and
/// satisfiable.
fn concrete_path(
    enc: &Encoder,
    p: &Program,
    path: &[(Trace, Step)],
    property: &str,
    deadline: Deadline,
) -> PathCheck {
    let mut steps = Vec::with_capacity(path.len());
    for (node, _) in path {
        let Some(t) = transition(p, node) else {
            return PathCheck::Imprecise(None);
        };
        steps.push(t);
    }
    match concrete_check(enc, p, &steps, property, deadline) {
        // The merged formula had a model, this path alone has none: the
        // model chose branches inconsistently. Nothing can be concluded.
        PathCheck::Infeasible(_) => PathCheck::Imprecise(None),
        other => other,
    }
}

/// Checks one concrete path from the program start exactly, and again
/// under LDV's assumptions if it needs an over-approximated step: a
/// counterexample if it is feasible with every step encoded exactly.
pub fn concrete_check(
    enc: &Encoder,
    p: &Program,
    steps: &[Transition],
    property: &str,
    deadline: Deadline,
) -> PathCheck {
    let mut apart = Separations::default();
    let q = ExactPath::new(enc, p, steps, property, deadline);
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
    if tracing() {
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
            if tracing() {
                eprintln!("exact path under LDV's assumptions: {}", second.outcome());
            }
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
                PathCheck::Imprecise(None) | PathCheck::Infeasible(_) => match first {
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
    deadline: Deadline,
) -> PathCheck {
    let q = ExactPath::new(enc, p, path, property, deadline);
    exact_path_keeping_apart(q, &mut Separations::default())
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
    deadline: Deadline,
}

impl<'a, 'p> ExactPath<'a, 'p> {
    fn new(
        enc: &'a Encoder<'p>,
        p: &'p Program,
        path: &'a [Transition<'p>],
        property: &'a str,
        deadline: Deadline,
    ) -> Self {
        ExactPath {
            enc,
            p,
            path,
            property,
            deadline,
        }
    }
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

/// An execution with what the encoder recorded during it.
struct RecordedExecution {
    execution: Execution,
    /// Its memory accesses, in the order they were made.
    accesses: Vec<MemoryAccess>,
    /// The reads it deferred ([`deferred_reads`]), if it deferred any.
    deferred: Vec<deferred_reads::DeferredRead>,
}

/// The solver of one exact check and what was asserted on it.
struct PathSolver {
    solver: Solver,
    /// Every assertion, for the havoc check: the steps' conditions, the
    /// separations of accesses, the bytes of literals.
    conditions: Vec<Bool>,
    /// The step each assertion comes from (for a separation, the later
    /// access's).
    condition_steps: Vec<usize>,
    /// Whether reads past fixed writes made side conditions.
    side_conditions: bool,
}

impl PathSolver {
    fn new(deadline: Deadline) -> Self {
        PathSolver {
            solver: crate::smt::solver_until(deadline),
            conditions: Vec::new(),
            condition_steps: Vec::new(),
            side_conditions: false,
        }
    }

    /// Asserts a condition of step `step`.
    fn assert_step(&mut self, c: Bool, step: usize) {
        self.solver.assert(&c);
        self.conditions.push(c);
        self.condition_steps.push(step);
    }

    /// Asserts that two memory accesses are kept apart, the later of them
    /// made by step `step`.
    fn assert_apart(&mut self, a: &MemoryAccess, b: &MemoryAccess, step: usize) {
        self.assert_step(disjoint(a, b), step);
    }
}

/// Why an exact check decided nothing and is to be repeated.
enum Retry {
    /// Unsatisfiable with the side conditions of reads past fixed writes.
    WithoutFixedWrites,
    /// Its restrictions of deferred reads kept ruling the path out.
    WithoutDeferral,
}

/// One exact execution of the path keeping the pairs of `apart` apart,
/// with reads deferred if `defer` and [`defers_reads`]: the execution,
/// the search for a model consistent byte by byte ([`find_model`]), the
/// havoc check ([`havoc_imprecision`]), the counterexample.
fn exact_path_once(q: ExactPath, apart: &mut Separations, defer: bool) -> Result<PathCheck, Retry> {
    let mut ps = PathSolver::new(q.deadline);
    let recorded = record_execution(q, &mut ps, defer);
    if !recorded.execution.st.exact {
        return Ok(PathCheck::Imprecise(recorded.execution.first_inexact));
    }
    let hinted = keep_apart(apart, &recorded, &mut ps);
    let model = match model_with_literals(q, apart, &mut ps, &recorded, hinted)? {
        ModelSearch::Found(model) => model,
        ModelSearch::Decided(result) => return Ok(result),
    };
    if recorded.execution.st.havocked {
        if let Some(imprecise) =
            havoc_imprecision(q, &ps.conditions, &ps.condition_steps, &recorded, &model)
        {
            return Ok(imprecise);
        }
    }
    let mut steps = Vec::new();
    let mut path = Vec::with_capacity(q.path.len());
    for (t, v) in q.path.iter().zip(&recorded.execution.values) {
        let step = CexStep::of(q.p, t, v.as_ref(), Some(&model));
        path.push(AnalysisStep::of(
            q.p,
            t,
            step.is_some().then_some(steps.len()),
        ));
        steps.extend(step);
    }
    Ok(PathCheck::Feasible(Counterexample {
        property: q.property.to_string(),
        steps,
        assumptions: Vec::new(),
        path,
    }))
}

/// A model of the path ([`find_model`]) that reads the bytes of string
/// literals the start function does not write as they are: each literal a
/// model reads a byte of gets its bytes in the initial memory
/// ([`Encoder::literal_in_initial_memory`]), and the search goes on. A read
/// wider than bytewise is first kept out of the literals' region (the
/// model's choice of an unconstrained pointer, not what the path needs):
/// a model that keeps it there is a model of the path as well. A path that
/// reads such a literal wider than bytewise in every model, or that is
/// infeasible with the bytes added, is imprecise: the analysis gave those
/// bytes arbitrary values.
fn model_with_literals(
    q: ExactPath,
    apart: &mut Separations,
    ps: &mut PathSolver,
    recorded: &RecordedExecution,
    hinted: bool,
) -> Result<ModelSearch, Retry> {
    let mut added = Vec::new();
    let mut kept_out = Vec::new();
    let mut at = None;
    let mut restrictions = deferred_reads::Restrictions::new(recorded.deferred.len());
    loop {
        let model = match find_model(q, apart, ps, recorded, hinted, &mut restrictions)? {
            ModelSearch::Found(model) => model,
            ModelSearch::Decided(PathCheck::Infeasible(_) | PathCheck::Imprecise(None))
                if !added.is_empty() || !kept_out.is_empty() =>
            {
                return Ok(ModelSearch::Decided(literal_imprecision(at)))
            }
            decided => return Ok(decided),
        };
        let Some(read) = q
            .enc
            .unmodelled_literal_read(&recorded.accesses, &model, &added)
        else {
            return Ok(ModelSearch::Found(model));
        };
        let step = Separations::place(&recorded.execution.access_ends, read.access).0;
        at = q.path.get(step).and_then(|t| describe(q.p, t));
        if !read.byte {
            if kept_out.contains(&read.access) {
                return Ok(ModelSearch::Decided(literal_imprecision(at)));
            }
            let access = &recorded.accesses[read.access];
            ps.assert_step(q.enc.outside_literals(access), step);
            kept_out.push(read.access);
            continue;
        }
        let (i, bytes) = &q.p.unmodelled_literals[read.literal];
        ps.assert_step(q.enc.literal_in_initial_memory(*i, bytes), step);
        added.push(read.literal);
    }
}

/// A path that reads bytes of a string literal the analysis does not model
/// (at the step `at`) and is no counterexample with the real ones.
fn literal_imprecision(at: Option<String>) -> PathCheck {
    PathCheck::Imprecise(Some(format!(
        "{} (it reads bytes of a string literal beyond those the analysis models)",
        at.unwrap_or_default()
    )))
}

/// A step as `file:line: operation`, if it has a position.
pub(super) fn describe(p: &Program, t: &Transition) -> Option<String> {
    CexStep::of(p, t, None, None).map(|s| format!("{}:{}: {}", s.file, s.line, s.op))
}

/// Executes the path from the program start, asserting each step's
/// conditions (and the side conditions of reads past fixed writes) on the
/// solver, recording its memory accesses, and, under LDV's assumptions
/// with `defer`, its reads over store chains as deferred.
fn record_execution(q: ExactPath, ps: &mut PathSolver, defer: bool) -> RecordedExecution {
    let enc = q.enc;
    let mut execute = || enc.recording_accesses(|| execute_steps(q, ps));
    // Under LDV's assumptions reads see the whole path's writes; they are
    // decided lazily (`deferred_reads`).
    let ((execution, accesses), deferred) = if defer && defers_reads(enc) {
        enc.deferred_reads.deferring(execute)
    } else {
        (execute(), Vec::new())
    };
    RecordedExecution {
        execution,
        accesses,
        deferred,
    }
}

/// The steps of the path one after the other, their conditions asserted.
fn execute_steps(q: ExactPath, ps: &mut PathSolver) -> Execution {
    let ExactPath { enc, p, path, .. } = q;
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
            first_inexact = describe(p, t);
        }
        if st.havocked && first_havoc.is_none() {
            first_havoc = describe(p, t);
        }
        if let Some(c) = c {
            ps.assert_step(c, i);
        }
        for c in enc.fixed_writes.take_side_conditions() {
            ps.side_conditions = true;
            ps.assert_step(c, i);
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
}

/// Keeps the pairs of `apart` apart where the execution made both
/// accesses; whether it kept any.
fn keep_apart(apart: &Separations, recorded: &RecordedExecution, ps: &mut PathSolver) -> bool {
    let ends = &recorded.execution.access_ends;
    let mut hinted = false;
    for &(a, b) in &apart.pairs {
        let i = Separations::index(ends, a);
        let j = Separations::index(ends, b);
        if let (Some(i), Some(j)) = (i, j) {
            let later = a.0.max(b.0);
            ps.assert_apart(&recorded.accesses[i], &recorded.accesses[j], later);
            hinted = true;
        }
    }
    hinted
}

/// What the search for a model of a path ended with.
enum ModelSearch {
    /// A model with no deferred read wrong and memory accesses consistent
    /// byte by byte.
    Found(z3::Model),
    /// The check is decided without one.
    Decided(PathCheck),
}

/// The memory accesses a model mixed up last, for the reason a path is
/// imprecise when no model keeps them apart.
#[derive(Default)]
struct Overlap {
    /// The step of the first access mixed up.
    at: Option<String>,
    /// Whether the other access is a kernel function's write, whose values
    /// are not modelled.
    clobbered: bool,
}

impl Overlap {
    fn imprecise(self) -> PathCheck {
        let why = if self.clobbered {
            "it reads bytes a kernel function wrote, whose values are not modelled"
        } else {
            "memory accessed with overlapping addresses of different widths"
        };
        PathCheck::Imprecise(Some(format!("{} ({why})", self.at.unwrap_or_default())))
    }
}

/// Looks for a model of the path: deferred reads a model gets wrong are
/// restricted to the store it has them read from, and memory accesses it
/// mixes up are kept apart for the next one, until a model has neither.
///
/// Deferred reads ([`deferred_reads`]): a read the model got wrong is
/// restricted to the store the model has it read from, under a literal of
/// its own; the checks assume the literals, and the reads whose
/// restrictions an unsat core names are deferred again. Each wrong read
/// also adds the lemma its model violated, and once restrictions keep
/// being lifted the search goes on with lemmas alone. A model with no read
/// wrong satisfies every read's definition; an unsat core without
/// restrictions makes the path unsatisfiable with all of them. The
/// restrictions (`restrictions`, of `recorded`'s deferred reads) carry over
/// from an earlier search on the same solver.
fn find_model(
    q: ExactPath,
    apart: &mut Separations,
    ps: &mut PathSolver,
    recorded: &RecordedExecution,
    hinted: bool,
    restrictions: &mut deferred_reads::Restrictions,
) -> Result<ModelSearch, Retry> {
    let RecordedExecution {
        execution,
        accesses,
        deferred,
    } = recorded;
    let mut relaxations = 0;
    // A model whose memory accesses overlap inconsistently may have
    // siblings that keep the two accesses apart.
    let mut overlap = Overlap::default();
    let mut separations = 0;
    loop {
        let t0 = thread_cpu_time();
        let assumed = restrictions.assumed();
        let r = crate::smt::interrupt::checking(|| {
            if assumed.is_empty() {
                ps.solver.check()
            } else {
                ps.solver.check_assumptions(&assumed)
            }
        });
        if tracing() {
            eprintln!(
                "exact path: {} steps, {} conditions, {separations} separations, {} of {} deferred reads restricted: {r:?} in {:.2}s",
                q.path.len(),
                ps.conditions.len(),
                restrictions.count(),
                deferred.len(),
                (thread_cpu_time() - t0).as_secs_f64()
            );
        }
        if r == SatResult::Unsat && !assumed.is_empty() {
            // The reads whose restrictions the path is unsatisfiable with
            // are deferred again: the next model's stores restrict them.
            if restrictions.lift(&ps.solver.get_unsat_core()) {
                relaxations += 1;
                // Restrictions that keep being lifted: lemmas alone.
                if relaxations > MAX_RELAXATIONS && !restrictions.lemmas_only() {
                    return Err(Retry::WithoutDeferral);
                }
                continue;
            }
        }
        match r {
            SatResult::Sat => {}
            SatResult::Unknown => return Ok(ModelSearch::Decided(PathCheck::Unknown)),
            // The pairs kept apart from the start may be what rules the
            // path out: once more without them.
            SatResult::Unsat if hinted && separations == 0 => {
                apart.pairs.clear();
                return Ok(ModelSearch::Decided(exact_path_keeping_apart(q, apart)));
            }
            SatResult::Unsat if ps.side_conditions => return Err(Retry::WithoutFixedWrites),
            SatResult::Unsat if separations > 0 => {
                return Ok(ModelSearch::Decided(overlap.imprecise()))
            }
            // The path's own conditions rule it out: it is infeasible
            // (without candidate predicates; for a path picked from a
            // merged formula, [`concrete_path`] says what that means),
            // unless a kernel function wrote memory on it: the encoding
            // keeps the old bytes there (a model that reads them is
            // imprecise), so without a model nothing is concluded.
            SatResult::Unsat => {
                if tracing() {
                    trace_infeasibility(&ps.conditions, &ps.condition_steps, q.path, q.p);
                }
                let result = match accesses.iter().any(|a| a.clobber.is_some()) {
                    true => PathCheck::Imprecise(None),
                    false => PathCheck::Infeasible(Vec::new()),
                };
                return Ok(ModelSearch::Decided(result));
            }
        }
        let Some(model) = ps.solver.get_model() else {
            return Ok(ModelSearch::Decided(PathCheck::Unknown));
        };
        let wrong = restrictions.wrong_under(deferred, &model);
        if !wrong.is_empty() {
            if restrictions.rounds() >= MAX_READ_ROUNDS {
                return Err(Retry::WithoutDeferral);
            }
            // Each read the model got wrong reads from the write the model
            // has it read from.
            restrictions.restrict(&ps.solver, deferred, &wrong, &model);
            continue;
        }
        let found = inconsistent_accesses(accesses, &model, MAX_SEPARATED_PAIRS);
        let Some(&InconsistentRead { read: i, other }) = found.first() else {
            return Ok(ModelSearch::Found(model));
        };
        let ends = &execution.access_ends;
        let step = Separations::place(ends, i).0;
        overlap = Overlap {
            at: q.path.get(step).and_then(|t| describe(q.p, t)),
            clobbered: other.is_some_and(|j| accesses[j].clobber.is_some()),
        };
        if separations >= MAX_SEPARATIONS || other.is_none() {
            return Ok(ModelSearch::Decided(overlap.imprecise()));
        }
        // Every pair this model mixes up is kept apart for the next one.
        for &InconsistentRead { read: i, other: j } in &found {
            let Some(j) = j else { continue };
            let places = (Separations::place(ends, i), Separations::place(ends, j));
            ps.assert_apart(&accesses[i], &accesses[j], places.0 .0.max(places.1 .0));
            apart.pairs.push(places);
        }
        separations += 1;
    }
}

/// For a path through havoc symbols that has a model: why it is imprecise,
/// if an access's address depends on a havoc value or the path condition
/// (`conditions`, made by the steps `steps`) may ([`independent_of_havoc`]);
/// `None` if it is feasible whatever the real values are.
fn havoc_imprecision(
    q: ExactPath,
    conditions: &[Bool],
    steps: &[usize],
    recorded: &RecordedExecution,
    model: &z3::Model,
) -> Option<PathCheck> {
    let RecordedExecution {
        execution,
        accesses,
        deferred,
    } = recorded;
    // Deferred reads stand for their terms, which may mention havoc
    // symbols: the checks below look at the path without deferral.
    let resolving = deferred_reads::resolving(deferred);
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
    // the path condition says: such an address must come out the same
    // for every value of the havoc symbols. An address may mention one
    // without depending on it, e.g. a read over a store chain holding a
    // pointer's integer view (`timer.data = (unsigned long)sl`) at a
    // cell other than the one read.
    let mut scan = crate::smt::HavocScan::default();
    let pinned: Vec<(usize, BV)> = accesses
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let address = resolved(&Dynamic::from_ast(&a.address));
            scan.mentions_havoc(&address)
                .then(|| (i, address.as_bv().expect("an address")))
        })
        .collect();
    let addresses: Vec<BV> = pinned.iter().map(|(_, a)| a.clone()).collect();
    let independent =
        independent_of_havoc(&conditions, &addresses, Some(model), q.deadline, &mut scan);
    if let (Some(&(i, _)), SatResult::Sat | SatResult::Unknown) = (pinned.first(), independent) {
        if independent == SatResult::Unknown && q.deadline.passed() {
            return Some(PathCheck::Unknown);
        }
        let step = Separations::place(&execution.access_ends, i).0;
        let at = q
            .path
            .get(step)
            .and_then(|t| describe(q.p, t))
            .unwrap_or_default();
        // The step that made the first unmodelled value says which
        // kernel function (or operation) a model would help most.
        let since = execution
            .first_havoc
            .as_ref()
            .map(|h| format!(", unmodelled since {h}"))
            .unwrap_or_default();
        let how = if independent == SatResult::Sat {
            "depends"
        } else {
            "may depend"
        };
        return Some(PathCheck::Imprecise(Some(format!(
            "{at}, whose address {how} on values the encoding does not model{since}"
        ))));
    }
    match independent {
        SatResult::Unsat => None,
        // Cut short by the run's deadline, not by the check's own work
        // limit: undecided, as any check the budget ends (a verdict does
        // not depend on how fast the machine is).
        SatResult::Unknown if q.deadline.passed() => Some(PathCheck::Unknown),
        other => {
            let how = if other == SatResult::Sat {
                "depends"
            } else {
                "may depend"
            };
            // The first step whose condition mentions unmodelled values,
            // and the step that made the first of them.
            let at = conditions
                .iter()
                .zip(steps)
                .find(|(c, _)| scan.mentions_havoc(&Dynamic::from_ast(*c)))
                .and_then(|(_, &k)| q.path.get(k))
                .and_then(|t| describe(q.p, t));
            let first = execution.first_havoc.clone().unwrap_or_default();
            let why = match at {
                Some(at) if at != first => format!(
                    "{at}, whose condition {how} on values the encoding does not model, unmodelled since {first}"
                ),
                _ => format!("{first}, whose unmodelled values the path {how} on"),
            };
            Some(PathCheck::Imprecise(Some(why)))
        }
    }
}

/// Tracing: the steps whose conditions make an infeasible path so (an
/// unsat core over one tracking literal per condition).
fn trace_infeasibility(conditions: &[Bool], steps: &[usize], path: &[Transition], p: &Program) {
    let solver = crate::smt::incremental_solver();
    let literals: Vec<Bool> = (0..conditions.len())
        .map(|i| Bool::new_const(format!("trace_step{i}")))
        .collect();
    for (l, c) in literals.iter().zip(conditions) {
        solver.assert(l.implies(c));
    }
    let params = crate::smt::work_limit(crate::smt::work::units_of_ms(2_000));
    let Some(core) = minimal_core(&solver, params, &literals).1 else {
        return;
    };
    for i in core {
        let at = path
            .get(steps[i])
            .and_then(|t| describe(p, t))
            .unwrap_or_default();
        let c = simplified(&conditions[i]).to_string();
        let c: String = c.chars().take(300).collect();
        eprintln!("  infeasible through step {}: {at}: {c}", steps[i]);
    }
}

/// Whether the conjunction of `conditions`, with the model's values for its
/// bit-vector constants, can change its value when its havoc symbols
/// (values the encoding does not model) change, or any of the `pinned`
/// terms (access addresses) its value: `Unsat` if none can, so the path
/// is feasible, and touches the same addresses, whatever the real values
/// are.
///
/// Checked as `x = M(x) ∧ φ(x, m, h) ∧ ¬φ(x, m, h')` with a fresh copy `h'`
/// of the havoc symbols `h`, where `x` are the bit-vector constants (inputs
/// and nondeterministic values) and `m` the initial memory: unsatisfiable
/// iff `φ(M(x), m, h)` implies `φ(M(x), m, h')` for all `m`, `h`, `h'`. The
/// model satisfies `φ(M(x), M(m), M(h))`, so then `φ(M(x), M(m), h')` holds
/// for the real values `h'` too. Only the conditions that mention a havoc
/// symbol need negating; a pinned term `a` adds `a(x, m, h) = a(x, m, h')`
/// to the negated conjunction. At most [`HAVOC_CHECK_LIMIT`] of work, and not
/// past `deadline`.
/// `scan` may already know terms (the path's access addresses, which
/// share the conditions' memory store chains) and learns the conditions';
/// the constants of all of them are the ones fixed or copied.
fn independent_of_havoc(
    conditions: &[Bool],
    pinned: &[BV],
    model: Option<&z3::Model>,
    deadline: Deadline,
    scan: &mut crate::smt::HavocScan,
) -> SatResult {
    let solver = Solver::new();
    solver.set_params(&crate::smt::work_limit(
        deadline.left_within(HAVOC_CHECK_LIMIT),
    ));
    let mut dependent: Vec<Bool> = Vec::new();
    for c in conditions {
        if scan.mentions_havoc(&Dynamic::from_ast(c)) {
            dependent.push(c.clone());
        }
        solver.assert(c);
    }
    // The scan learns the pinned terms' constants (it may know them already).
    let pinned: Vec<&BV> = pinned
        .iter()
        .filter(|a| scan.mentions_havoc(&Dynamic::from_ast(*a)))
        .collect();
    if dependent.is_empty() && pinned.is_empty() {
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
    let mut unchanged: Vec<Bool> = dependent.iter().map(|c| c.substitute(&pairs)).collect();
    unchanged.extend(pinned.iter().map(|&a| a.eq(a.substitute(&pairs))));
    let refs: Vec<&Bool> = unchanged.iter().collect();
    solver.assert(Bool::and(&refs).not());
    let r = crate::smt::interrupt::checking(|| solver.check());
    if tracing() {
        eprintln!(
            "havoc check: {r:?} ({} of {} conditions mention unmodelled values)",
            dependent.len(),
            conditions.len()
        );
    }
    r
}

/// Whether an exact path check defers reads over stores
/// ([`deferred_reads`]): under LDV's assumptions, where reads see every
/// write of the path.
fn defers_reads(enc: &Encoder) -> bool {
    enc.ldv_assumptions_in_force()
}

/// How many times an exact path check lifts restrictions of deferred
/// reads it is unsatisfiable with before it goes on with lemmas alone.
const MAX_RELAXATIONS: usize = 16;

/// How many models with wrong deferred reads an exact path check looks
/// at before it gives deferral up.
const MAX_READ_ROUNDS: usize = 256;

/// The work the havoc check of one path may do.
const HAVOC_CHECK_LIMIT: u64 = crate::smt::work::units_of_ms(1_000);

/// How often an exact path check looks for a model whose memory accesses
/// are consistent byte by byte.
const MAX_SEPARATIONS: usize = 8;

/// How many pairs of accesses one such look may keep apart.
const MAX_SEPARATED_PAIRS: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;

    /// [`independent_of_havoc`] without a deadline, with a fresh scan.
    fn independent(c: &[Bool], pinned: &[BV], m: Option<&z3::Model>) -> SatResult {
        let mut scan = crate::smt::HavocScan::default();
        independent_of_havoc(c, pinned, m, Deadline::NONE, &mut scan)
    }

    #[test]
    fn a_path_condition_free_of_havoc_symbols_is_independent_of_them() {
        let independent_of_havoc = |c: &[Bool], m: Option<&z3::Model>| independent(c, &[], m);
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
    fn an_address_that_mentions_a_havoc_value_may_still_not_depend_on_it() {
        let pinned = |a: &BV, m: Option<&z3::Model>| independent(&[], std::slice::from_ref(a), m);
        // A pointer's integer view (a havoc value) stored at 4096, and a
        // read of a pointer at the input address p over that store.
        let p = BV::new_const("v2", 64);
        let view = BV::new_const("hv8", 64);
        let mem =
            z3::ast::Array::new_const("mem64", &z3::Sort::bitvector(64), &z3::Sort::bitvector(64));
        let stored = mem.store(&BV::from_u64(4096, 64), &view);
        let read = stored.select(&p).as_bv().expect("a pointer");
        // For p = 4096 the address read is the view itself.
        assert_eq!(pinned(&read, None), SatResult::Sat);
        let solver = Solver::new();
        solver.assert(p.eq(BV::from_u64(8192, 64)));
        assert_eq!(solver.check(), SatResult::Sat);
        let model = solver.get_model().expect("a model");
        // For the model's p = 8192 it is the same whatever the view is.
        assert_eq!(pinned(&read, Some(&model)), SatResult::Unsat);
        // An address computed from the view depends on it for any p.
        assert_eq!(pinned(&read.bvadd(&view), Some(&model)), SatResult::Sat);
    }

    #[test]
    fn accesses_are_placed_by_step_and_found_again() {
        // Steps make 2, 0 and 3 accesses.
        let ends = [2, 2, 5];
        assert_eq!(Separations::place(&ends, 0), (0, 0));
        assert_eq!(Separations::place(&ends, 1), (0, 1));
        assert_eq!(Separations::place(&ends, 2), (2, 0));
        assert_eq!(Separations::place(&ends, 4), (2, 2));
        for i in 0..5 {
            assert_eq!(
                Separations::index(&ends, Separations::place(&ends, i)),
                Some(i)
            );
        }
        assert_eq!(Separations::index(&ends, (1, 0)), None);
        assert_eq!(Separations::index(&ends, (3, 0)), None);
    }
}
