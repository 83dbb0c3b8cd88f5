//! The analysis the SDC loop wraps (`analyze` of Alg. 2 of paper 002): the
//! LOOM composite over the enabled properties, in two stages.
//!
//! 1. Explicit values (once per partition, with a fifth of the CPU time the
//!    partition's properties would have had alone ([`Budget::pooled_cpu`]),
//!    at least 2 s or half of a shorter budget):
//!    the LOOM composite with the explicit-value analysis explores the state
//!    space continuing after targets. If it reaches its fixed point, every
//!    enabled property whose error state it never reached is proved
//!    ([`RunReport::proven`](crate::algorithm::sdc::RunReport::proven)); reached ones stay open. For error labels, a
//!    search under explicit values without merging ([`value_search`], a
//!    tenth of the remaining budget, once per property) proposes concrete
//!    error paths; one that the exact re-execution confirms is a
//!    counterexample.
//! 2. CEGAR over the LOOM composite with the predicate analysis (large-block
//!    encoding): the CPA algorithm runs until a target; its abstract error
//!    path is checked exactly. A feasible path is a counterexample for the
//!    properties whose error state the target is in; SDC disables them and
//!    calls `analyze` again, which continues with the same reached set. An
//!    infeasible path is refined (new predicates; the run restarts with the
//!    larger precision) and counted as a refinement of those properties in
//!    the monitor; after each refinement the properties that `exceeds`
//!    (the S2 rule) are withdrawn: the restarted run's precision leaves them
//!    out (`prec_S`; refinements, and so `exceeds`, change only there).
//!
//! TRUE needs a fixed point in which every step over-approximated the
//! program; otherwise the open properties are given up with the reason.

use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

use crate::algorithm::cpa_algorithm::{run, Outcome, Reached, WaitlistOrder};
use crate::algorithm::path_check::{check_path, PathCheck};
use crate::algorithm::reachability::{self, Limits};
use crate::algorithm::refine::all_predicates;
use crate::algorithm::sdc::thread_cpu_time;
use crate::algorithm::sdc::{self, Budget, Clock, Monitor};
use crate::algorithm::value_search;
use crate::cfa::{LocId, Program};
use crate::cpa::composite::MergePolicy;
use crate::cpa::loom::{LoomCpa, LoomGoal, LoomPrecision, LoomProperty, LoomState};
use crate::cpa::predicate::abstraction::{PredicateScope, Predicates};
use crate::cpa::predicate::{PredState, PredicateCpa};
use crate::cpa::Cpa;
use crate::report::Counterexample;
use crate::spec::bound::BoundAutomaton;
use crate::spec::{PropertyId, PropertySet};
use crate::util::Deadline;

/// Share of a run's budget for the explicit-value stage.
const EXPLICIT_SHARE: f64 = 0.2;

/// The explicit-value stage gets at least this long, or half of a budget
/// shorter than twice it: under small budgets, a fifth is too short for
/// the state spaces that it completes in a second or two.
const EXPLICIT_MIN: Duration = Duration::from_secs(2);

/// The explicit-value stage's part of the `remaining` budget.
fn explicit_budget(remaining: Duration) -> Duration {
    remaining
        .mul_f64(EXPLICIT_SHARE)
        .max(EXPLICIT_MIN.min(remaining / 2))
}

/// Share of the remaining budget for the search of concrete error paths
/// under explicit values, when the explicit stage reached an error (the
/// paths it confirms take a fraction of a second; CEGAR needs the rest).
const VALUE_SEARCH_SHARE: f64 = 0.1;

/// Refinements per partition before the open properties are given up.
pub const MAX_REFINEMENTS: u64 = 200;

/// What the analysis did, summed over its runs.
#[derive(Clone, Debug, Default)]
pub struct Work {
    /// Predicates of the last CEGAR run.
    pub predicates: usize,
    /// The largest reached set of each partition, summed over partitions:
    /// what one analysis per property costs adds up, as k runs do.
    pub states: usize,
    pub transitions: u64,
    pub refinements: u64,
    pub solver_calls: u64,
    pub solver_s: f64,
}

impl Work {
    /// Adds the effort of another run: transitions, refinements, solver
    /// calls and time.
    pub fn add_effort(&mut self, other: &Work) {
        self.transitions += other.transitions;
        self.refinements += other.refinements;
        self.solver_calls += other.solver_calls;
        self.solver_s += other.solver_s;
    }

    /// `self` with the effort of `other` added ([`Work::add_effort`]).
    pub fn plus_effort(mut self, other: &Work) -> Work {
        self.add_effort(other);
        self
    }
}

/// What refinements learned for one property ([`LoomAnalysis::learned`]).
#[derive(Clone, Default)]
struct Learned {
    predicates: Vec<(Option<LocId>, z3::ast::Bool)>,
    check_blocks: bool,
}

type PredLoom<'p> = LoomCpa<'p, PredicateCpa<'p>>;
type PredReached = Reached<LoomState<PredState>, LoomPrecision<Rc<Predicates>>>;

/// One CEGAR iteration: the composite with the current predicates and its
/// reached set.
struct CegarRun<'p> {
    cpa: PredLoom<'p>,
    reached: PredReached,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Explicit,
    Cegar,
}

pub struct LoomAnalysis<'p> {
    program: &'p Program,
    automata: &'p [BoundAutomaton],
    /// Every property, indexed by its id.
    properties: Vec<LoomProperty>,
    /// Display names of the properties (for counterexamples).
    names: Vec<String>,
    /// Enabled properties of the current partition (decided ones removed).
    enabled: PropertySet,
    /// Properties removed by `exceeds` in this partition.
    withdrawn: PropertySet,
    /// Properties the value search has had its go at.
    searched: PropertySet,
    /// Per property: the predicates the refinements of its error paths
    /// added, where they were found (`None`: everywhere), and whether they
    /// needed every block's satisfiability decided. A partition starts with
    /// those of its properties: a property verified alone after a joint run
    /// that ran out of budget goes on from the precision it had there.
    learned: Vec<Learned>,
    /// Partitions whose explicit-value exploration stopped at the state
    /// limit. The program's values, not the automata, make the state
    /// space, so a subset of one is not explored again.
    explicit_too_large: Vec<PropertySet>,
    /// The largest reached set of the current partition so far.
    partition_states: usize,
    /// CPU time the explicit stage of the current partition drew from the
    /// pool ([`Budget::pooled_cpu`]): it is not charged to the CEGAR stage.
    explicit_spent: Duration,
    /// Properties given up because their error path needs an
    /// over-approximated step that LDV's assumptions rule out: candidates
    /// for an analysis under those assumptions.
    pub ldv_infeasible: PropertySet,
    /// The predicates when the last of them was given up: where the
    /// analysis under LDV's assumptions starts.
    ldv_predicates: Option<Predicates>,
    predicates: Predicates,
    /// The predicates a restart starts from.
    start_predicates: Predicates,
    check_blocks: bool,
    stage: Stage,
    run: Option<CegarRun<'p>>,
    finished: bool,
    refinements: u64,
    /// Whether each partition starts with the explicit-value stage.
    pub use_explicit_values: bool,
    /// Refinements per partition before the open properties are given up.
    pub max_refinements: u64,
    /// The predicate analysis runs under LDV's assumptions (kernel
    /// functions without a model leave the module's memory alone, ...):
    /// its counterexamples list the assumptions they need, and reaching a
    /// fixed point proves nothing.
    pub under_ldv_assumptions: bool,
    pub work: Work,
}

impl<'p> LoomAnalysis<'p> {
    /// Where refinement puts the predicates it finds (from the next
    /// partition on; call before the first).
    pub fn set_predicate_scope(&mut self, scope: PredicateScope) {
        self.start_predicates = initial_predicates(self.program, self.automata, scope);
        self.predicates = self.start_predicates.clone();
    }

    /// Starts from the predicates `other` had when it gave up the last
    /// property LDV's assumptions may decide ([`LoomAnalysis::ldv_infeasible`];
    /// of the same program and automata): the analysis under LDV's
    /// assumptions goes on from the precision the analysis without them
    /// reached.
    pub fn inherit_ldv_predicates(&mut self, other: &LoomAnalysis<'p>) {
        if let Some(p) = &other.ldv_predicates {
            self.start_predicates = p.clone();
            self.predicates = p.clone();
        }
    }

    /// `properties[i].id` must be `PropertyId(i)`.
    pub fn new(
        program: &'p Program,
        automata: &'p [BoundAutomaton],
        properties: Vec<LoomProperty>,
        names: Vec<String>,
    ) -> Self {
        debug_assert!(properties
            .iter()
            .enumerate()
            .all(|(i, p)| p.id.0 as usize == i));
        LoomAnalysis {
            program,
            automata,
            learned: vec![Learned::default(); properties.len()],
            properties,
            names,
            enabled: PropertySet::new(),
            withdrawn: PropertySet::new(),
            searched: PropertySet::new(),
            explicit_too_large: Vec::new(),
            explicit_spent: Duration::ZERO,
            partition_states: 0,
            ldv_infeasible: PropertySet::new(),
            ldv_predicates: None,
            predicates: initial_predicates(program, automata, PredicateScope::default()),
            start_predicates: initial_predicates(program, automata, PredicateScope::default()),
            check_blocks: false,
            stage: Stage::Explicit,
            run: None,
            finished: false,
            refinements: 0,
            use_explicit_values: true,
            max_refinements: MAX_REFINEMENTS,
            under_ldv_assumptions: false,
            work: Work::default(),
        }
    }

    fn open(&self) -> PropertySet {
        self.enabled.difference(&self.withdrawn)
    }

    fn remaining_budget(
        budget: &Budget,
        monitor: &Monitor<PropertyId>,
        clock: &dyn Clock,
    ) -> Option<Duration> {
        budget
            .cpu
            .map(|b| b.saturating_sub(monitor.analysis_cpu(clock)))
    }

    /// Counts a reached set of `n` states of the current partition
    /// ([`Work::states`]).
    fn count_states(&mut self, n: usize) {
        if n > self.partition_states {
            self.work.states += n - self.partition_states;
            self.partition_states = n;
        }
    }

    /// Records what a refinement for the error path of `props` added.
    fn learn(&mut self, props: &[PropertyId], added: Vec<(Option<LocId>, z3::ast::Bool)>) {
        for p in props {
            let l = &mut self.learned[p.0 as usize];
            l.predicates.extend(added.iter().cloned());
            l.check_blocks |= self.check_blocks;
        }
    }

    /// The CEGAR stage's budget: the run's, plus what the explicit stage
    /// drew from the pool, within the pool.
    fn cegar_budget(&self, budget: &Budget) -> Budget {
        let mut b = budget.clone();
        if let (Some(cpu), Some(pool)) = (b.cpu, b.pooled_cpu) {
            b.cpu = Some((cpu + self.explicit_spent).min(pool.max(cpu)));
        }
        b
    }

    fn report_transitions(&self, counts: &[u64], monitor: &mut Monitor<PropertyId>) {
        for (i, &c) in counts.iter().enumerate() {
            monitor.add_transitions(PropertyId(i as u32), c);
        }
    }

    fn explicit_stage(
        &mut self,
        budget: &Budget,
        monitor: &mut Monitor<PropertyId>,
        clock: &dyn Clock,
    ) -> sdc::RunReport<PropertyId, Counterexample> {
        self.stage = Stage::Cegar;
        let mut report = sdc::RunReport::default();
        let open = self.open();
        if open.is_empty() || self.explicit_too_large.iter().any(|s| open.is_subset(s)) {
            return report;
        }
        let start = monitor.analysis_cpu(clock);
        // One complete exploration decides every open property of the
        // partition: it may draw on what they would have had alone.
        let cpu = budget
            .shared_cpu()
            .map(|b| explicit_budget(b.saturating_sub(monitor.analysis_cpu(clock))));
        let t_ex = std::time::Instant::now();
        let ex = reachability::explore(
            self.program,
            self.automata,
            &self.properties,
            &open,
            Limits {
                cpu,
                max_states: 200_000,
            },
        );
        if crate::algorithm::cegar::tracing() {
            eprintln!(
                "loom explicit: {} states, complete {}, {} hit, {:.2}s",
                ex.stats.states,
                ex.complete,
                ex.hit.len(),
                t_ex.elapsed().as_secs_f64()
            );
        }
        self.count_states(ex.stats.states);
        self.work.transitions += ex.stats.transitions;
        self.report_transitions(&ex.transitions_taken, monitor);
        if ex.state_limit {
            self.explicit_too_large.push(open.clone());
        }
        self.explicit_spent = monitor.analysis_cpu(clock).saturating_sub(start);
        if ex.complete {
            report.proven = open.iter().filter(|p| !ex.hit.contains(*p)).collect();
        }
        // Errors the explicit values reach may be reachable for real: a
        // search without merging proposes concrete paths to them.
        // Once per property: a later partition would propose the same paths.
        // Error labels only: paths to an automaton's error state pass
        // guards the explicit values rarely decide, and under S4's small
        // per-property budgets the search cost CEGAR the time its exact
        // path check needed (catc 43_1a at 20 s).
        let labels: PropertySet = self
            .properties
            .iter()
            .filter(|p| matches!(p.goal, LoomGoal::Label(_)))
            .map(|p| p.id)
            .collect();
        let hit = open
            .intersection(&ex.hit)
            .intersection(&labels)
            .difference(&self.searched);
        if !hit.is_empty() {
            for p in hit.iter() {
                self.searched.insert(p);
            }
            let cpu = Self::remaining_budget(budget, monitor, clock)
                .map(|l| l.mul_f64(VALUE_SEARCH_SHARE));
            let found = value_search::search(
                self.program,
                self.automata,
                &self.properties,
                &self.names,
                &hit,
                cpu,
            );
            if crate::algorithm::cegar::tracing() {
                eprintln!(
                    "value search: {} states, {} paths checked, {} counterexamples",
                    found.states,
                    found.paths_checked,
                    found.counterexamples.len()
                );
            }
            self.work.transitions += found.transitions;
            self.count_states(found.states);
            report.counterexamples = found
                .counterexamples
                .into_iter()
                .map(|(props, cex)| (props.iter().collect(), cex))
                .collect();
        }
        report
    }

    fn new_run(&self) -> CegarRun<'p> {
        let labels: Vec<String> = self
            .properties
            .iter()
            .filter_map(|p| match &p.goal {
                LoomGoal::Label(l) => Some(l.clone()),
                _ => None,
            })
            .collect();
        let targets = crate::cpa::composite::target_locations(self.program, &labels);
        // The deadline of solver queries is set per `analyze` call.
        let mut data = PredicateCpa::new(
            self.program,
            &targets,
            Rc::new(self.predicates.clone()),
            Deadline::NONE,
        );
        data.check_blocks = self.check_blocks;
        data.enc.modelled_functions.borrow_mut().extend(
            self.automata
                .iter()
                .flat_map(|b| b.automaton.api_functions()),
        );
        let mut observed = labels;
        observed.extend(
            self.automata
                .iter()
                .flat_map(|b| b.automaton.observed_labels()),
        );
        *data.enc.observed_labels.borrow_mut() = Some(observed);
        if self.under_ldv_assumptions {
            data.enc.assume_ldv_throughout();
        }
        let cpa = LoomCpa::new(
            self.program,
            self.automata,
            self.properties.clone(),
            data,
            MergePolicy::Data,
        );
        let start = self.program.start.expect("a program has a start");
        let e0 = cpa.initial_state(start);
        let p0 = LoomPrecision {
            enabled: self.open(),
            data: Rc::new(self.predicates.clone()),
        };
        let reached = Reached::new(&cpa, e0, p0, WaitlistOrder::Priority);
        CegarRun { cpa, reached }
    }

    /// Collects the statistics of the current run before it is dropped.
    fn close_run(&mut self, monitor: &mut Monitor<PropertyId>) {
        if let Some(r) = self.run.take() {
            self.count_states(r.reached.nodes.len());
            self.work.predicates = self.predicates.len();
            let a = r.cpa.data.abstraction_stats();
            self.work.solver_calls += a.solver_calls;
            self.work.solver_s += a.solver_time.as_secs_f64();
            let counts = r.cpa.transitions_taken.borrow().clone();
            self.report_transitions(&counts, monitor);
        }
    }

    fn cegar_stage(
        &mut self,
        budget: &Budget,
        monitor: &mut Monitor<PropertyId>,
        clock: &dyn Clock,
    ) -> sdc::RunReport<PropertyId, Counterexample> {
        let mut report = sdc::RunReport::default();
        // A query that runs past the run's budget is interrupted.
        let _interrupt = Self::remaining_budget(budget, monitor, clock)
            .map(|l| crate::smt::interrupt::arm(thread_cpu_time() + l));
        loop {
            if self.open().is_empty() {
                self.close_run(monitor);
                self.finished = true;
                return report;
            }
            if self.run.is_none() {
                self.run = Some(self.new_run());
            }
            let left = Self::remaining_budget(budget, monitor, clock);
            let deadline = Deadline::in_cpu(left);
            let run_ref = self.run.as_mut().expect("run exists");
            run_ref.cpa.data.set_deadline(deadline);
            // Expansions of the predicate analysis are expensive (formulas,
            // abstractions): the clock is read before each one.
            let mut interrupt = |_size: usize| deadline.passed();
            let outcome = run(
                &run_ref.cpa,
                &mut run_ref.reached,
                &mut self.work.transitions,
                &mut interrupt,
            );
            match outcome {
                Outcome::Interrupted => {
                    self.close_run(monitor);
                    return report;
                }
                Outcome::Done => {
                    let unsound = run_ref.cpa.data.unsound.get();
                    self.close_run(monitor);
                    if self.under_ldv_assumptions {
                        for p in self.open().iter() {
                            report.given_up.push((
                                p,
                                "no error path under LDV's assumptions, which prove nothing".into(),
                            ));
                        }
                    } else if unsound {
                        for p in self.open().iter() {
                            report.given_up.push((p, "no error state reached, but the analysis used a step that is not an over-approximation (a recursive call reaching what a property observes, an array parameter, or a write or aggregate copy without a known address)".into()));
                        }
                    }
                    self.finished = true;
                    return report;
                }
                Outcome::Target(n) => {
                    let node = &run_ref.reached.nodes[n];
                    let props: Vec<PropertyId> = node
                        .state
                        .violated
                        .iter()
                        .filter(|p| self.enabled.contains(*p) && !self.withdrawn.contains(*p))
                        .collect();
                    if props.is_empty() {
                        continue;
                    }
                    let trace = node.state.data.trace.clone();
                    let name = props
                        .iter()
                        .map(|p| self.names[p.0 as usize].as_str())
                        .collect::<Vec<_>>()
                        .join(",");
                    let t0 = clock.now();
                    let t_check = std::time::Instant::now();
                    let enc = &run_ref.cpa.data.enc;
                    let check = if self.under_ldv_assumptions {
                        // Every assumption the path check makes is listed.
                        let (check, made) = enc.under_ldv_assumptions(|| {
                            check_path(enc, self.program, &trace, &name, deadline)
                        });
                        match check {
                            PathCheck::Feasible(mut cex) => {
                                cex.assumptions = made;
                                PathCheck::Feasible(cex)
                            }
                            other => other,
                        }
                    } else {
                        check_path(enc, self.program, &trace, &name, deadline)
                    };
                    if crate::algorithm::cegar::tracing() {
                        let what = match &check {
                            PathCheck::Feasible(_) => "feasible".to_string(),
                            PathCheck::Imprecise(_) => "imprecise".to_string(),
                            PathCheck::LdvInfeasible(_) => {
                                "infeasible under LDV's assumptions".to_string()
                            }
                            PathCheck::Unknown => "unknown".to_string(),
                            PathCheck::Infeasible(c) => {
                                format!("infeasible, {} candidate predicates: {:?}", c.len(), c)
                            }
                        };
                        eprintln!("loom cegar: target for {name} after {} refinements ({} predicates, {} states, path check {:.2}s): {what}", self.refinements, self.predicates.len(), run_ref.reached.nodes.len(), t_check.elapsed().as_secs_f64());
                    }
                    match check {
                        PathCheck::Feasible(cex) => {
                            report
                                .counterexamples
                                .push((props.into_iter().collect(), cex));
                            return report;
                        }
                        PathCheck::Imprecise(first) => {
                            let why = match first {
                                Some(op) => format!("the error path found is feasible only through over-approximated operations (first: {op})"),
                                None => "the error path found is feasible only through over-approximated operations".into(),
                            };
                            for p in props {
                                report.given_up.push((p, why.clone()));
                            }
                            return report;
                        }
                        PathCheck::LdvInfeasible(op) => {
                            let why = format!("the error path found is feasible only through over-approximated operations (first: {op}, which the path needs: it is infeasible under LDV's assumptions)");
                            self.ldv_predicates = Some(self.predicates.clone());
                            for p in props {
                                self.ldv_infeasible.insert(p);
                                report.given_up.push((p, why.clone()));
                            }
                            return report;
                        }
                        PathCheck::Unknown => {
                            // The solver ran out of time: the budget is spent.
                            self.close_run(monitor);
                            return report;
                        }
                        PathCheck::Infeasible(candidates) => {
                            self.refinements += 1;
                            self.work.refinements += 1;
                            monitor.record_refinement(
                                props.iter().copied(),
                                clock.now().saturating_sub(t0),
                            );
                            // Each predicate goes where it was found. If
                            // one steps a loop (one more `v == k` at a place
                            // with a run of them, `Predicates::steps`), the
                            // predicates of every condition of the path come
                            // along, where they were found: they may refute
                            // the path by other means, or give the loop's
                            // invariant, where one value per refinement
                            // takes as many refinements as the loop runs.
                            //
                            // If none is new, the path came back with its
                            // predicates tracked: its infeasibility may lie
                            // inside a block that ends where nothing is
                            // tracked (whose satisfiability is not decided),
                            // so from then on every block's is. That is
                            // tried first: every predicate of a long path
                            // can make each abstraction enumerate many
                            // cubes. The next time, the predicates of every
                            // condition of the path are tracked where they
                            // were found, else everywhere (an atom of a
                            // later point may be what an earlier one needs).
                            let program = self.program;
                            let of_whole_path =
                                || all_predicates(&run_ref.cpa.data.enc, program, &trace, deadline);
                            let stepping = candidates
                                .iter()
                                .any(|(at, c)| self.predicates.steps(c, *at, program));
                            let mut added = candidates.clone();
                            let progress =
                                if add_at_points(&mut self.predicates, &candidates, program) {
                                    if stepping {
                                        let all = of_whole_path();
                                        add_at_points(&mut self.predicates, &all, program);
                                        added.extend(all);
                                    }
                                    true
                                } else {
                                    !std::mem::replace(&mut self.check_blocks, true) || {
                                        let all = of_whole_path();
                                        if add_at_points(&mut self.predicates, &all, program) {
                                            added.extend(all);
                                            true
                                        } else {
                                            let everywhere: Vec<_> =
                                                all.into_iter().map(|(_, c)| (None, c)).collect();
                                            added.extend(everywhere.iter().cloned());
                                            add_at_points(
                                                &mut self.predicates,
                                                &everywhere,
                                                program,
                                            )
                                        }
                                    }
                                };
                            self.learn(&props, added);
                            self.close_run(monitor);
                            if !progress {
                                for p in props {
                                    report.given_up.push((p, "refinement found no new predicate for an infeasible error path".into()));
                                }
                                return report;
                            }
                            if self.refinements >= self.max_refinements {
                                for p in self.open().iter() {
                                    report
                                        .given_up
                                        .push((p, format!("{} refinements", self.refinements)));
                                }
                                return report;
                            }
                            // prec_S: properties over their budget leave the precision.
                            let enabled: BTreeSet<PropertyId> = self.open().iter().collect();
                            for p in &enabled {
                                if budget.exceeds(*p, &enabled, monitor) {
                                    self.withdrawn.insert(*p);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Adds each candidate predicate where it was found; whether any is new.
fn add_at_points(
    predicates: &mut Predicates,
    candidates: &[(Option<LocId>, z3::ast::Bool)],
    program: &Program,
) -> bool {
    let mut added = false;
    for (at, c) in candidates {
        added |= predicates.add_at(c.clone(), *at, program);
    }
    added
}

/// The initial precision from the specification: every automaton
/// variable equals its initial value, or one more or one less (counters
/// and set elements start there, and a block boundary right after the
/// program start would otherwise forget them).
fn initial_predicates(
    program: &Program,
    automata: &[BoundAutomaton],
    scope: PredicateScope,
) -> Predicates {
    use crate::ir::ExprKind;
    let mut preds = Predicates::new(scope);
    for op in automata.iter().flat_map(|b| b.init.iter()) {
        let crate::cfa::EdgeOp::Assign { lhs, rhs } = op else {
            continue;
        };
        let (ExprKind::Var(v), ExprKind::IntConst(c)) = (&lhs.kind, &rhs.kind) else {
            continue;
        };
        let crate::ir::Type::Int(k) = program.types.get(lhs.ty) else {
            continue;
        };
        let w = k.bits();
        let sym = crate::smt::Encoder::register_symbol(*v, w);
        for d in [0i128, 1, -1] {
            let value = z3::ast::BV::from_i64((c + d) as i64, w);
            preds.add(sym.eq(&value));
        }
    }
    preds
}

impl<'p> sdc::Analysis for LoomAnalysis<'p> {
    type Property = PropertyId;
    type Counterexample = Counterexample;

    fn restart(&mut self, enabled: &BTreeSet<PropertyId>) {
        self.enabled = enabled.iter().copied().collect();
        self.withdrawn = PropertySet::new();
        self.stage = Stage::Explicit;
        self.explicit_spent = Duration::ZERO;
        self.partition_states = 0;
        self.run = None;
        self.finished = false;
        self.refinements = 0;
        self.check_blocks = false;
        self.predicates = self.start_predicates.clone();
        for p in enabled {
            let learned = &self.learned[p.0 as usize];
            add_at_points(&mut self.predicates, &learned.predicates, self.program);
            self.check_blocks |= learned.check_blocks;
        }
    }

    fn analyze(
        &mut self,
        budget: &Budget,
        monitor: &mut Monitor<PropertyId>,
        clock: &dyn Clock,
    ) -> sdc::RunReport<PropertyId, Counterexample> {
        if budget.run_exhausted(monitor, clock) {
            self.close_run(monitor);
            return sdc::RunReport::default();
        }
        if self.stage == Stage::Explicit && self.use_explicit_values {
            let r = self.explicit_stage(budget, monitor, clock);
            if !r.proven.is_empty() || !r.counterexamples.is_empty() {
                return r;
            }
        }
        self.cegar_stage(&self.cegar_budget(budget), monitor, clock)
    }

    fn finished(&self) -> bool {
        self.finished
    }

    fn disable(&mut self, props: &BTreeSet<PropertyId>) {
        for p in props {
            self.enabled.remove(*p);
        }
        if let Some(r) = &mut self.run {
            r.reached.adjust_waitlist_precisions(|pr| {
                for p in props {
                    pr.enabled.remove(*p);
                }
            });
        }
    }

    fn active(&self) -> BTreeSet<PropertyId> {
        self.open().iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_explicit_stage_gets_a_fifth_but_not_less_than_its_minimum() {
        let s = Duration::from_secs;
        assert_eq!(explicit_budget(s(60)), s(12));
        assert_eq!(explicit_budget(s(5)), s(2));
        assert_eq!(explicit_budget(s(3)), Duration::from_millis(1500));
        assert_eq!(explicit_budget(Duration::ZERO), Duration::ZERO);
    }
}
