//! CEGAR over the LOOM composite with the predicate analysis (large-block
//! encoding): stage 2 of a [`LoomAnalysis`].
//!
//! The CPA algorithm runs until a target; its abstract error path is
//! checked exactly ([`check_path`]). A feasible path is a counterexample
//! for the properties whose error state the target is in; SDC disables
//! them and calls `analyze` again, which continues with the same reached
//! set. An infeasible path is refined (new predicates, [`super::refine`])
//! and counted as a refinement of those properties in the monitor.
//! Refinement is lazy (Henzinger, Jhala, Majumdar, Sutre: lazy
//! abstraction): the reached set is cut below the first abstraction state
//! of the path whose precision grew ([`Reached::cut`]), and the run goes
//! on with the larger precision, keeping what it explored elsewhere. A
//! path that crosses states abstracted before the precision last grew is
//! cut at the first of them without new predicates. The run starts over
//! instead when a refinement decides every block's satisfiability from
//! then on, or withdraws properties: after each refinement the properties
//! that `exceeds` (the S2 rule) are withdrawn, and the restarted run's
//! precision leaves them out (`prec_S`). Each property keeps the
//! predicates its refinements found, where they were found, and a run's
//! precision holds those of its open properties only: a property decided,
//! given up or withdrawn no longer costs the others the predicates it
//! needed, and a partition starts with those of its properties.
//!
//! The analysis time is attributed to properties in the monitor (`at_p`):
//! an error path's check and refinement to its properties, the exploration
//! a refinement starts over to the refined properties, other exploration
//! in equal parts to the open ones. A per-property budget
//! ([`Budget::property_work`], S0 under an overall limit) is one of the
//! `exceeds` rules: a property past it is withdrawn after a refinement, and
//! the run starts over without it. An exploration is not cut short for it:
//! its fixed point may decide every open property.
//!
//! [`check_label`]: CEGAR alone for one error label (the `LoomAnalysis`
//! without its explicit stage, one S0 partition), to test the predicate
//! analysis and its refinement in isolation; `mpv verify` runs the whole
//! pipeline ([`super::verify`]).

use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

use z3::ast::Bool;

use crate::algorithm::cpa_algorithm::{run, Outcome, Reached, WaitlistOrder};
use crate::algorithm::invariants;
use crate::algorithm::loom_analysis::{LoomAnalysis, LoomOptions, PROOF_ONLY_REACHED};
use crate::algorithm::path_check::{check_path, describe, PathCheck};
use crate::algorithm::refine::all_predicates;
use crate::algorithm::sdc::{self, Budget, Clock, Monitor, Strategy, StrategyConfig, WorkClock};
use crate::cfa::{LocId, Program};
use crate::cpa::composite::MergePolicy;
use crate::cpa::loom::{LoomCpa, LoomGoal, LoomPrecision, LoomProperty, LoomState};
use crate::cpa::predicate::abstraction::{
    AbstractionCache, AbstractionStats, PredicateScope, Predicates,
};
use crate::cpa::predicate::trace::Trace;
use crate::cpa::predicate::{PredState, PredicateCpa};
use crate::cpa::Cpa;
use crate::cpa::Transition;
use crate::hash::HashMap;
use crate::report::{Counterexample, Verdict};
use crate::smt::work::Deadline;
use crate::spec::bound::BoundAutomaton;
use crate::spec::{PropertyId, PropertySet};
use crate::util::tracing;
use crate::witness::correctness::LoopInvariant;
use crate::witness::invariant::CExpr;

/// A candidate predicate with the abstraction point where it was found
/// (`None`: everywhere).
type Candidate = (Option<LocId>, Bool);

/// What refinements learned for one property: an analysis of the same
/// locations (the program or its bug-hunting variant) may start from it.
#[derive(Clone, Default)]
pub struct Learned {
    predicates: Vec<Candidate>,
    check_blocks: bool,
}

type PredLoom<'p> = LoomCpa<'p, PredicateCpa<'p>>;
type PredReached = Reached<LoomState<PredState>, LoomPrecision<Rc<Predicates>>>;

/// One CEGAR iteration: the composite with the current predicates and its
/// reached set.
struct CegarRun<'p> {
    cpa: PredLoom<'p>,
    reached: PredReached,
    /// The solver statistics of the run already counted in the work.
    counted: AbstractionStats,
}

/// What the CEGAR stage knows: the precision of the current partition, its
/// run, and what refinements learned across partitions.
pub(super) struct CegarState<'p> {
    /// Per property: the predicates the refinements of its error paths
    /// added, where they were found (`None`: everywhere), and whether they
    /// needed every block's satisfiability decided. A partition starts with
    /// those of its properties: a property verified alone after a joint run
    /// that ran out of budget goes on from the precision it had there.
    learned: Vec<Learned>,
    /// The predicates when the last property LDV's assumptions may decide
    /// was given up: where the analysis under LDV's assumptions starts.
    ldv_predicates: Option<Predicates>,
    /// The predicates a restart starts from before those of `initial` for
    /// the properties of the run: none, or those inherited from the
    /// analysis without LDV's assumptions.
    start_predicates: Predicates,
    /// Per property: the predicates about its automaton's initial values
    /// ([`initial_predicates`]). A run tracks those of its own properties
    /// only: a property verified alone starts from the precision it has
    /// when it is the only one, whatever partition it was in before.
    initial: Vec<Vec<Bool>>,
    predicates: Predicates,
    /// Whether every block's satisfiability is decided.
    check_blocks: bool,
    run: Option<CegarRun<'p>>,
    /// The properties whose refinement started the current run over: its
    /// exploration is done for them (empty: for all open properties).
    started_for: Vec<PropertyId>,
    /// Refinements in the current partition.
    refinements: u64,
    /// The abstractions the runs computed: every run after a refinement,
    /// and every partition unless each is to stand alone, starts with them.
    abstractions: AbstractionCache,
}

impl<'p> CegarState<'p> {
    /// The state before the first partition of `properties` properties,
    /// with the initial precision from the automata.
    pub(super) fn new(
        program: &Program,
        automata: &[BoundAutomaton],
        scope: PredicateScope,
        properties: &[LoomProperty],
    ) -> Self {
        let start_predicates = Predicates::new(scope);
        let initial = properties
            .iter()
            .map(|p| match p.goal {
                LoomGoal::Automaton { automaton, .. } => {
                    initial_predicates(program, &automata[automaton])
                }
                LoomGoal::Label(_) => Vec::new(),
            })
            .collect();
        CegarState {
            learned: vec![Learned::default(); properties.len()],
            ldv_predicates: None,
            predicates: start_predicates.clone(),
            start_predicates,
            initial,
            check_blocks: false,
            run: None,
            started_for: Vec::new(),
            refinements: 0,
            abstractions: AbstractionCache::default(),
        }
    }

    /// Starts from the predicates `other` had when it gave up the last
    /// property LDV's assumptions may decide, if it gave one up.
    pub(super) fn inherit_ldv_predicates(&mut self, other: &CegarState<'p>) {
        if let Some(p) = &other.ldv_predicates {
            self.start_predicates = p.clone();
            self.predicates = p.clone();
        }
    }

    /// Property `p` starts from what `earlier` learned besides its own:
    /// precision changes what an analysis costs, never its verdicts.
    pub(super) fn learn_from(&mut self, p: PropertyId, earlier: &Learned) {
        let l = &mut self.learned[p.0 as usize];
        l.predicates.extend(earlier.predicates.iter().cloned());
        l.check_blocks |= earlier.check_blocks;
    }

    /// What each property's refinements learned (by property id), and the
    /// abstractions the runs computed.
    pub(super) fn into_learned(self) -> (Vec<Learned>, AbstractionCache) {
        (self.learned, self.abstractions)
    }

    /// The runs start with the abstractions in `cache` (shared with the
    /// analysis that computed them): each is keyed by the block's formula
    /// and the predicates, so it holds wherever the symbols mean the same
    /// (in the program and in its bug-hunting variant, whose variables are
    /// the program's).
    pub(super) fn share_abstractions(&mut self, cache: &AbstractionCache) {
        self.abstractions = cache.clone();
    }

    /// A new partition of `enabled`: the start predicates and what the
    /// refinements of its properties learned; the abstractions computed so
    /// far unless the partition is to `stand_alone` (as if in a process of
    /// its own).
    pub(super) fn restart(
        &mut self,
        enabled: &BTreeSet<PropertyId>,
        program: &Program,
        stand_alone: bool,
    ) {
        self.run = None;
        if stand_alone {
            self.abstractions = AbstractionCache::default();
        }
        self.started_for.clear();
        self.refinements = 0;
        self.focus(enabled.iter().copied(), program);
    }

    /// The precision of a run for the properties `open`: the start
    /// predicates and what their refinements learned.
    fn focus(&mut self, open: impl IntoIterator<Item = PropertyId>, program: &Program) {
        self.check_blocks = false;
        self.predicates = self.start_predicates.clone();
        for p in open {
            for t in &self.initial[p.0 as usize] {
                self.predicates.add(t.clone());
            }
            let learned = &self.learned[p.0 as usize];
            add_at_points(&mut self.predicates, &learned.predicates, program);
            self.check_blocks |= learned.check_blocks;
        }
    }

    /// Removes `props` from the precisions of the run's waitlist.
    pub(super) fn disable(&mut self, props: &BTreeSet<PropertyId>) {
        if let Some(r) = &mut self.run {
            r.reached.adjust_waitlist_precisions(|pr| {
                for p in props {
                    pr.enabled.remove(*p);
                }
            });
        }
    }

    /// The first abstraction state on the path to node `n` (after the
    /// root) whose abstraction tracked fewer predicates than the precision
    /// now puts where it was computed.
    fn first_refined(&self, n: usize, program: &Program) -> Option<usize> {
        let run = self.run.as_ref()?;
        let reached = &run.reached;
        reached.path_to(n).into_iter().skip(1).find(|&i| {
            let node = &reached.nodes[i];
            node.state.data.abstracted_at().is_some_and(|at| {
                node.precision.data.at(at, program).len() < self.predicates.at(at, program).len()
            })
        })
    }

    /// Lazy abstraction: the run goes on with the current precision from
    /// node `pivot`'s parent, without the states below it.
    fn cut(&mut self, pivot: usize) {
        let run = self.run.as_mut().expect("a run to cut");
        let preds = Rc::new(self.predicates.clone());
        run.cpa.data.set_precision(preds.clone());
        run.reached
            .cut(&run.cpa, pivot, |p| p.data = Rc::clone(&preds));
    }

    /// Whether every candidate is already tracked where it was found.
    fn tracks_all(&self, candidates: &[Candidate], program: &Program) -> bool {
        candidates
            .iter()
            .all(|(at, c)| self.predicates.tracks(c, *at, program))
    }

    /// Records what a refinement for the error path of `props` added.
    fn learn(&mut self, props: &[PropertyId], added: Vec<Candidate>) {
        for p in props {
            let l = &mut self.learned[p.0 as usize];
            l.predicates.extend(added.iter().cloned());
            l.check_blocks |= self.check_blocks;
        }
    }

    /// Adds the candidate predicates of an infeasible error path (to
    /// `trace`) to the precision; whether that is progress.
    ///
    /// Each predicate goes where it was found. If one steps a loop (one
    /// more `v == k` at a place with a run of them, `Predicates::steps`),
    /// the predicates of every condition of the path come along, where
    /// they were found: they may refute the path by other means, or give
    /// the loop's invariant, where one value per refinement takes as many
    /// refinements as the loop runs.
    ///
    /// If none is new, the path came back with its predicates tracked: its
    /// infeasibility may lie inside a block that ends where nothing is
    /// tracked (whose satisfiability is not decided), so from then on every
    /// block's is. That is tried first: every predicate of a long path can
    /// make each abstraction enumerate many cubes. The next time, the
    /// predicates of every condition of the path are tracked where they
    /// were found, else everywhere (an atom of a later point may be what an
    /// earlier one needs).
    fn refine(
        &mut self,
        program: &Program,
        props: &[PropertyId],
        candidates: Vec<Candidate>,
        trace: &Trace,
        deadline: Deadline,
    ) -> bool {
        let run = self.run.as_ref().expect("a run to refine");
        let of_whole_path = || all_predicates(&run.cpa.data.enc, program, trace, deadline);
        let stepping = candidates
            .iter()
            .any(|(at, c)| self.predicates.steps(c, *at, program));
        let mut added = candidates.clone();
        let progress = if add_at_points(&mut self.predicates, &candidates, program) {
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
                    let everywhere: Vec<_> = all.into_iter().map(|(_, c)| (None, c)).collect();
                    added.extend(everywhere.iter().cloned());
                    add_at_points(&mut self.predicates, &everywhere, program)
                }
            }
        };
        self.learn(props, added);
        progress
    }
}

/// The report of an `analyze` call.
type Report = sdc::RunReport<PropertyId, Counterexample>;

/// What a refinement of an infeasible error path brought.
struct Refinement {
    /// New predicates, or a part of the run to explore again.
    progress: bool,
    /// Where the run is to be cut (lazy abstraction); `None`: it starts
    /// over.
    cut_at: Option<usize>,
}

impl<'p> LoomAnalysis<'p> {
    /// Stage 2: CEGAR until a counterexample, a property given up, the
    /// fixed point or the end of the budget.
    pub(super) fn cegar_stage(
        &mut self,
        budget: &Budget,
        monitor: &mut Monitor<PropertyId>,
        clock: &dyn Clock,
    ) -> Report {
        loop {
            if self.open().is_empty() {
                self.close_run(monitor);
                self.partition.finished = true;
                return Report::default();
            }
            if self.cegar.run.is_none() {
                self.cegar.focus(self.open().iter(), self.program);
                self.cegar.run = Some(self.new_run());
            }
            let deadline = Deadline::within(Self::remaining_budget(budget, monitor, clock));
            let payers = self.exploration_payers();
            let run_ref = self.cegar.run.as_mut().expect("run exists");
            run_ref.cpa.data.set_deadline(deadline);
            // Expansions of the predicate analysis are expensive (formulas,
            // abstractions): the clock is read before each one.
            let mut interrupt = |_size: usize| deadline.passed();
            let t0 = clock.now();
            let outcome = run(
                &run_ref.cpa,
                &mut run_ref.reached,
                &mut self.work.transitions,
                &mut interrupt,
            );
            monitor.charge(payers.iter().copied(), clock.now().saturating_sub(t0));
            match outcome {
                Outcome::Interrupted => {
                    // Kept: the next partition may resume it.
                    self.count_run(monitor);
                    return Report::default();
                }
                Outcome::Done => return self.fixed_point(monitor),
                Outcome::Target(n) => {
                    if let Some(report) = self.on_target(n, deadline, budget, monitor, clock) {
                        return report;
                    }
                }
            }
        }
    }

    /// The run reached its fixed point: the open properties hold, unless
    /// the run was under LDV's assumptions or took an unsound step.
    fn fixed_point(&mut self, monitor: &mut Monitor<PropertyId>) -> Report {
        let mut report = Report::default();
        let run = self.cegar.run.as_ref().expect("a run at its fixed point");
        let unsound = run.cpa.data.unsound.get();
        let first_unsound = run.cpa.data.first_unsound.get();
        if self.options.invariants && !unsound && !self.options.under_ldv_assumptions {
            let found = loop_head_invariants(self.program, &run.reached);
            self.keep_invariants(self.open().iter(), found);
        }
        self.close_run(monitor);
        if self.options.under_ldv_assumptions {
            for p in self.open().iter() {
                report.given_up.push((
                    p,
                    "no error path under LDV's assumptions, which prove nothing".into(),
                ));
            }
        } else if unsound {
            let first = first_unsound.and_then(|id| {
                let edge = self.program.edge(id);
                describe(self.program, &Transition::Edge { id, edge })
            });
            let why = unsound_reason(first);
            for p in self.open().iter() {
                report.given_up.push((p, why.clone()));
            }
        }
        self.partition.finished = true;
        report
    }

    /// The run reached target node `n`: its error path is checked, and
    /// refined if infeasible. The report to return, or `None` to go on.
    fn on_target(
        &mut self,
        n: usize,
        deadline: Deadline,
        budget: &Budget,
        monitor: &mut Monitor<PropertyId>,
        clock: &dyn Clock,
    ) -> Option<Report> {
        let run = self.cegar.run.as_ref().expect("run exists");
        let node = &run.reached.nodes[n];
        let props: Vec<PropertyId> = node
            .state
            .violated
            .iter()
            .filter(|p| {
                self.partition.enabled.contains(*p) && !self.partition.withdrawn.contains(*p)
            })
            .collect();
        if props.is_empty() {
            return None;
        }
        // A proof-only property is given up at its first error state.
        let proof_only: Vec<PropertyId> = props
            .iter()
            .copied()
            .filter(|p| self.options.proof_only.contains(*p))
            .collect();
        if !proof_only.is_empty() {
            let mut report = Report::default();
            for p in proof_only {
                report.abandoned.push((p, PROOF_ONLY_REACHED.to_string()));
            }
            return Some(report);
        }
        let trace = node.state.data.trace.clone();
        let name = props
            .iter()
            .map(|p| self.names[p.0 as usize].as_str())
            .collect::<Vec<_>>()
            .join(",");
        let t0 = clock.now();
        let t_check = std::time::Instant::now();
        // A path check may take what is left of its properties' own shares
        // (the most any of them has), if the budget gives shares: one
        // property's long check does not use up the others' time. It is
        // charged to them.
        let share = props
            .iter()
            .filter_map(|p| budget.property_left(*p, monitor))
            .max();
        let own = deadline.min(Deadline::within(share));
        let check = self.check_error_path(&trace, &name, own);
        if tracing() {
            self.trace_check(&check, &name, t_check);
        }
        if !matches!(check, PathCheck::Infeasible(_)) {
            monitor.charge(props.iter().copied(), clock.now().saturating_sub(t0));
        }
        let mut report = Report::default();
        match check {
            PathCheck::Feasible(cex) => {
                report
                    .counterexamples
                    .push((props.into_iter().collect(), cex));
            }
            PathCheck::Imprecise(first) => {
                let why = match first {
                    Some(op) => format!("the error path found is feasible only through over-approximated operations (first: {op})"),
                    None => "the error path found is feasible only through over-approximated operations".into(),
                };
                for p in props {
                    report.given_up.push((p, why.clone()));
                }
            }
            PathCheck::LdvInfeasible(op) => {
                let why = format!("the error path found is feasible only through over-approximated operations (first: {op}, which the path needs: it is infeasible under LDV's assumptions)");
                self.cegar.ldv_predicates = Some(self.cegar.predicates.clone());
                for p in props {
                    self.ldv_infeasible.insert(p);
                    report.given_up.push((p, why.clone()));
                }
            }
            PathCheck::Unknown => {
                self.close_run(monitor);
                if !deadline.passed() {
                    // The check gave up before the run's deadline (at its
                    // properties' own share): they leave the run, which
                    // goes on for the others.
                    for p in props {
                        self.partition.withdrawn.insert(p);
                    }
                    return None;
                }
                // The solver ran out of time: the budget is spent.
            }
            PathCheck::Infeasible(candidates) => {
                let refined = self.refine_path(n, &props, candidates, &trace, deadline);
                monitor.record_refinement(props.iter().copied(), clock.now().saturating_sub(t0));
                self.cegar.started_for.clone_from(&props);
                return self.after_refinement(props, refined, budget, monitor);
            }
        }
        Some(report)
    }

    /// Refines the run for the infeasible error path to node `n` (to
    /// `trace`) of `props`. A path through states abstracted under a
    /// smaller precision, whose candidates are all tracked already, needs
    /// no new predicate: the cut below the first of them is the progress.
    fn refine_path(
        &mut self,
        n: usize,
        props: &[PropertyId],
        candidates: Vec<Candidate>,
        trace: &Trace,
        deadline: Deadline,
    ) -> Refinement {
        self.cegar.refinements += 1;
        self.work.refinements += 1;
        let lazy = self.options.lazy_abstraction;
        if lazy && self.cegar.tracks_all(&candidates, self.program) {
            if let Some(pivot) = self.cegar.first_refined(n, self.program) {
                self.cegar.learn(props, candidates);
                return Refinement {
                    progress: true,
                    cut_at: Some(pivot),
                };
            }
        }
        let blocks_before = self.cegar.check_blocks;
        let progress = self
            .cegar
            .refine(self.program, props, candidates, trace, deadline);
        let cut_at = (lazy && self.cegar.check_blocks == blocks_before)
            .then(|| self.cegar.first_refined(n, self.program))
            .flatten();
        Refinement { progress, cut_at }
    }

    /// The exact check of the error path to `trace` (of the properties
    /// named `name`), under LDV's assumptions if the analysis runs under
    /// them, listing every assumption the path check makes.
    fn check_error_path(&self, trace: &Trace, name: &str, deadline: Deadline) -> PathCheck {
        let run = self.cegar.run.as_ref().expect("run exists");
        let enc = &run.cpa.data.enc;
        if !self.options.under_ldv_assumptions {
            return check_path(enc, self.program, trace, name, deadline);
        }
        let (check, made) =
            enc.under_ldv_assumptions(|| check_path(enc, self.program, trace, name, deadline));
        match check {
            PathCheck::Feasible(mut cex) => {
                cex.assumptions = made;
                PathCheck::Feasible(cex)
            }
            other => other,
        }
    }

    /// Tracing: the outcome of a path check.
    fn trace_check(&self, check: &PathCheck, name: &str, started: std::time::Instant) {
        let what = match check {
            PathCheck::Feasible(_) => "feasible".to_string(),
            PathCheck::Imprecise(_) => "imprecise".to_string(),
            PathCheck::LdvInfeasible(_) => "infeasible under LDV's assumptions".to_string(),
            PathCheck::Unknown => "unknown".to_string(),
            PathCheck::Infeasible(c) => {
                format!("infeasible, {} candidate predicates: {:?}", c.len(), c)
            }
        };
        let states = self
            .cegar
            .run
            .as_ref()
            .map_or(0, |r| r.reached.live_nodes().count());
        eprintln!("loom cegar: target for {name} after {} refinements ({} predicates, {} states, path check {:.2}s): {what}", self.cegar.refinements, self.cegar.predicates.len(), states, started.elapsed().as_secs_f64());
    }

    /// After a refinement for the error path of `props`: the properties
    /// given up if it brought no progress or the refinements are used up
    /// (the report), else the properties over their budget withdrawn
    /// (`prec_S`) and `None` to go on: with the run cut where the
    /// refinement says, or from the start if it withdrew properties.
    fn after_refinement(
        &mut self,
        props: Vec<PropertyId>,
        refined: Refinement,
        budget: &Budget,
        monitor: &mut Monitor<PropertyId>,
    ) -> Option<Report> {
        let report = self.give_up_after_refinement(props, refined.progress);
        if report.is_some() {
            self.close_run(monitor);
            return report;
        }
        // prec_S: properties over their budget leave the precision.
        let enabled: BTreeSet<PropertyId> = self.open().iter().collect();
        let mut withdrew = false;
        for p in &enabled {
            if budget.exceeds(*p, &enabled, monitor) {
                self.partition.withdrawn.insert(*p);
                withdrew = true;
            }
        }
        match refined.cut_at.filter(|_| !withdrew) {
            Some(pivot) => {
                self.count_run(monitor);
                self.cegar.cut(pivot);
            }
            None => self.close_run(monitor),
        }
        None
    }

    /// The report giving up the properties after a refinement that brought
    /// no progress (`props`) or used up the refinements (all open ones).
    fn give_up_after_refinement(&self, props: Vec<PropertyId>, progress: bool) -> Option<Report> {
        let mut report = Report::default();
        if !progress {
            for p in props {
                report.given_up.push((
                    p,
                    "refinement found no new predicate for an infeasible error path".into(),
                ));
            }
            return Some(report);
        }
        if self.cegar.refinements >= self.options.max_refinements {
            for p in self.open().iter() {
                report
                    .given_up
                    .push((p, format!("{} refinements", self.cegar.refinements)));
            }
            return Some(report);
        }
        None
    }

    /// The properties the exploration of the current run is done for: the
    /// open ones of those whose refinement started it over, else all open.
    fn exploration_payers(&self) -> Vec<PropertyId> {
        let open = self.open();
        let mut payers: Vec<PropertyId> = self
            .cegar
            .started_for
            .iter()
            .copied()
            .filter(|p| open.contains(*p))
            .collect();
        if payers.is_empty() {
            payers = open.iter().collect();
        }
        payers
    }

    /// A run of the composite with the current predicates from the
    /// program start.
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
            Rc::new(self.cegar.predicates.clone()),
            Deadline::NONE,
        );
        data.check_blocks = self.cegar.check_blocks;
        data.share_abstractions(self.cegar.abstractions.clone());
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
        if self.options.under_ldv_assumptions {
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
            data: Rc::new(self.cegar.predicates.clone()),
        };
        let reached = Reached::new(&cpa, e0, p0, WaitlistOrder::Priority);
        CegarRun {
            cpa,
            reached,
            counted: AbstractionStats::default(),
        }
    }

    /// Collects the statistics of the current run before it is dropped.
    pub(super) fn close_run(&mut self, monitor: &mut Monitor<PropertyId>) {
        self.count_run(monitor);
        self.cegar.run = None;
    }

    /// Counts what the current run did since it was last counted: its
    /// states, solver work and transitions (reported to `monitor`).
    pub(super) fn count_run(&mut self, monitor: &mut Monitor<PropertyId>) {
        let most = self.open().iter().map(|p| monitor.usage(p).work).max();
        self.partition.charged = self.partition.resumed + most.unwrap_or_default();
        let Some(r) = self.cegar.run.as_mut() else {
            return;
        };
        let states = r.reached.live_nodes().count();
        let a = r.cpa.data.abstraction_stats();
        if tracing() {
            eprintln!(
                "cegar run: {states} states, {} abstractions, {} cache hits, {} solver calls, {:.2}s solver",
                a.abstractions,
                a.cache_hits,
                a.solver_calls,
                a.solver_time.as_secs_f64()
            );
        }
        let calls = a.solver_calls - r.counted.solver_calls;
        let time = a.solver_time.saturating_sub(r.counted.solver_time);
        r.counted = a;
        let counts = r.cpa.weaving.transitions_taken.borrow().clone();
        r.cpa.weaving.transitions_taken.borrow_mut().fill(0);
        self.count_states(states);
        self.work.predicates = self.cegar.predicates.len();
        self.work.solver_calls += calls;
        self.work.solver_s += time.as_secs_f64();
        self.report_transitions(&counts, monitor);
    }

    /// Whether the next partition, of `enabled`, is what is still open of
    /// the current one, whose run ran out of its budget: the run goes on
    /// (the run of a property of its own that a joint run ended with is
    /// that run, not a new one).
    pub(super) fn resumes(&self, enabled: &PropertySet) -> bool {
        self.cegar.run.is_some()
            && !self.partition.finished
            && !self.options.partitions_stand_alone
            && self.partition.open() == *enabled
    }
}

/// The invariants at loop heads of a predicate analysis' fixed point: the
/// abstraction formulas of the states there (every state at a real
/// location at a loop head is an abstraction; one that is not leaves its
/// loop head without an invariant).
fn loop_head_invariants(program: &Program, reached: &PredReached) -> Vec<LoopInvariant> {
    let mut names = invariants::Names::new(program);
    let mut seen: HashMap<u64, CExpr> = HashMap::default();
    let states = reached
        .live_nodes()
        .filter(|n| n.state.pending.is_none() && program.loc(n.state.loc).loop_head)
        .map(|n| {
            let d = &n.state.data;
            if !d.is_abstraction() {
                return (n.state.loc, None);
            }
            let f = program.loc(n.state.loc).func;
            let known = seen
                .entry(d.abs.seq)
                .or_insert_with(|| invariants::of_formula(&d.abs.formula, f, &mut names));
            (n.state.loc, Some(known.clone()))
        })
        .collect::<Vec<_>>();
    invariants::collect(program, states.into_iter())
}

/// Why a fixed point reached after a step that is not an
/// over-approximation proves nothing; `first`: that step, described.
fn unsound_reason(first: Option<String>) -> String {
    let at = first.map(|s| format!(" (first: {s})")).unwrap_or_default();
    format!("no error state reached, but the analysis used a step that is not an over-approximation{at}: a recursive call reaching what a property observes, an array parameter, or a write or aggregate copy without a known address")
}

/// Adds each candidate predicate where it was found; whether any is new.
fn add_at_points(predicates: &mut Predicates, candidates: &[Candidate], program: &Program) -> bool {
    let mut added = false;
    for (at, c) in candidates {
        added |= predicates.add_at(c.clone(), *at, program);
    }
    added
}

/// The initial precision of an automaton's properties: every variable of
/// `automaton` equals its initial value, or one more or one less
/// (counters and set elements start there, and a block boundary right
/// after the program start would otherwise forget them).
fn initial_predicates(program: &Program, automaton: &BoundAutomaton) -> Vec<Bool> {
    use crate::ir::ExprKind;
    let mut preds = Vec::new();
    for op in &automaton.init {
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
            preds.push(sym.eq(&value));
        }
    }
    preds
}

/// Limits of one CEGAR run, and how it refines.
#[derive(Clone, Copy, Debug)]
pub struct CegarOptions {
    /// The run's budget, in nominal seconds of work.
    pub work: Option<Duration>,
    pub max_refinements: u64,
    /// [`LoomOptions::lazy_abstraction`].
    pub lazy_abstraction: bool,
}

#[derive(Clone, Debug, Default)]
pub struct CegarStats {
    pub refinements: u64,
    pub predicates: usize,
    pub states: usize,
    pub transitions: u64,
    pub solver_calls: u64,
    pub solver_s: f64,
}

pub struct CegarResult {
    pub verdict: Verdict,
    pub reason: Option<String>,
    pub counterexample: Option<Counterexample>,
    pub stats: CegarStats,
}

/// Decides whether a location labelled `label` is reachable, by predicate
/// abstraction with CEGAR only.
pub fn check_label(program: &Program, label: &str, limits: CegarOptions) -> CegarResult {
    check_label_with(program, label, limits, false)
}

/// [`check_label`] with LDV's assumptions in force throughout
/// ([`LoomOptions::under_ldv_assumptions`]): FALSE with the assumptions
/// the counterexample needs, or UNKNOWN; never TRUE.
pub fn check_label_under_ldv_assumptions(
    program: &Program,
    label: &str,
    limits: CegarOptions,
) -> CegarResult {
    check_label_with(program, label, limits, true)
}

fn check_label_with(
    program: &Program,
    label: &str,
    limits: CegarOptions,
    under_ldv_assumptions: bool,
) -> CegarResult {
    let property = LoomProperty {
        id: PropertyId(0),
        goal: LoomGoal::Label(label.to_string()),
    };
    let options = LoomOptions {
        explicit_values: false,
        max_refinements: limits.max_refinements,
        under_ldv_assumptions,
        lazy_abstraction: limits.lazy_abstraction,
        ..LoomOptions::default()
    };
    let mut analysis = LoomAnalysis::new(
        program,
        &[],
        vec![property],
        vec![format!("label:{label}")],
        options,
    );
    let ids: BTreeSet<PropertyId> = [PropertyId(0)].into();
    let r = sdc::sdc(
        &mut analysis,
        &ids,
        Strategy::S0,
        StrategyConfig::default(),
        limits.work,
        &WorkClock,
    );
    let (verdict, reason, counterexample) = match r.outcomes.get(&PropertyId(0)) {
        Some(sdc::Outcome::Satisfied) => (Verdict::True, None, None),
        Some(sdc::Outcome::Violated(c)) => (Verdict::False, None, Some(c.clone())),
        Some(sdc::Outcome::Unknown(why)) => (Verdict::Unknown, Some(why.to_string()), None),
        None => (
            Verdict::Unknown,
            Some(sdc::UnknownReason::Timeout.to_string()),
            None,
        ),
    };
    let w = analysis.work();
    CegarResult {
        verdict,
        reason,
        counterexample,
        stats: CegarStats {
            refinements: w.refinements,
            predicates: w.predicates,
            states: w.states,
            transitions: w.transitions,
            solver_calls: w.solver_calls,
            solver_s: w.solver_s,
        },
    }
}
