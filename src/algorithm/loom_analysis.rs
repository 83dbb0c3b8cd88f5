//! The analysis the SDC loop wraps (`analyze` of Alg. 2 of paper 002): the
//! LOOM composite over the enabled properties, in two stages, with the
//! settings of a [`LoomOptions`] and the statistics of a [`Work`].
//!
//! 1. Explicit values (once per partition, with a fifth of the time two
//!    of the partition's properties would have had alone
//!    ([`Budget::pooled_work`]), at least 2 s or half of a shorter budget):
//!    the LOOM composite with the explicit-value analysis, one state per
//!    program state with a set of configurations per automaton
//!    ([`crate::cpa::loom_sets`]), explores the state space continuing
//!    after targets. If it reaches its fixed point, every
//!    enabled property whose error state it never reached is proved
//!    ([`RunReport::proven`](crate::algorithm::sdc::RunReport::proven)); reached ones stay open. For the
//!    errors it reached, a search under explicit values without merging
//!    ([`value_search`], a tenth of what the properties it looks for would
//!    have had alone, once per property; a joint search runs its first
//!    loop bound only, and the properties it leaves undecided are searched
//!    alone through every bound) proposes concrete error paths;
//!    one that the exact re-execution confirms is a counterexample. A
//!    round of the search that reaches its fixed point without an error
//!    state proves the properties it looked for (the explicit stage
//!    reached their errors only through a join at a loop head).
//! 2. CEGAR over the LOOM composite with the predicate analysis
//!    ([`super::cegar`]): counterexamples, refinements counted per property
//!    in the monitor, properties withdrawn by `exceeds` (the S2 rule).
//!
//! Across partitions the analysis keeps the predicates each property's
//! refinements found, the abstractions computed (unless partitions stand
//! alone, as `baseline`'s do), the partitions whose exploration hit the
//! state limit, and a run that ran out of budget, which a next partition
//! of exactly its open properties resumes. A later analysis of the same
//! locations (the module after its bug-hunting variant) starts from the
//! predicates and abstractions an earlier one found ([`Progress`]).
//!
//! TRUE needs a fixed point in which every step over-approximated the
//! program; otherwise the open properties are given up with the reason.
//! With [`LoomOptions::invariants`], the fixed point that proves a property
//! leaves what it knows at loop heads for its correctness witness
//! ([`super::invariants`]).

use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

use crate::algorithm::cegar::{CegarState, Learned};
use crate::algorithm::invariants;
use crate::algorithm::reachability::{self, Limits};
use crate::algorithm::sdc::{self, Budget, Clock, Monitor};
use crate::algorithm::value_search::{self, Rounds, SearchBudget};
use crate::cfa::{LocId, Program};
use crate::cpa::loom::LoomProperty;
use crate::cpa::predicate::abstraction::{AbstractionCache, PredicateScope};
use crate::cpa::value::Values;
use crate::hash::HashMap;
use crate::report::Counterexample;
use crate::smt::work::Deadline;
use crate::spec::bound::BoundAutomaton;
use crate::spec::{PropertyId, PropertySet};
use crate::util::tracing;
use crate::witness::correctness::LoopInvariant;

/// Share of a run's budget for the explicit-value stage.
const EXPLICIT_SHARE: f64 = 0.2;

/// The explicit-value stage gets at least this long, or half of a budget
/// shorter than twice it: under small budgets, a fifth is too short for
/// the state spaces that it completes in a second or two.
const EXPLICIT_MIN: Duration = Duration::from_secs(2);

/// The explicit-value stage explores the program once for all open
/// properties, with one state per program state
/// ([`crate::cpa::loom_sets`]): it costs about what one property's
/// exploration costs, not the sum. Of the partition's pool it draws on the
/// shares of this many properties.
const EXPLICIT_SHARES: f64 = 2.0;

/// The explicit-value stage's part of the `remaining` budget.
fn explicit_budget(remaining: Duration) -> Duration {
    remaining
        .mul_f64(EXPLICIT_SHARE)
        .max(EXPLICIT_MIN.min(remaining / 2))
}

/// Share of the pool of the properties searched for, for the search of
/// concrete error paths under explicit values, when the explicit stage
/// reached their errors (the paths it confirms take a fraction of a
/// second; CEGAR needs the rest). Counted in states
/// ([`value_search::SearchBudget`]), not in seconds.
const VALUE_SEARCH_SHARE: f64 = 0.1;

/// States of the explicit-value exploration before it stops.
const EXPLICIT_MAX_STATES: usize = 200_000;

/// Why a proof-only property ([`LoomOptions::proof_only`]) is given up.
pub(super) const PROOF_ONLY_REACHED: &str =
    "an over-approximation reaches its error (only a proof serves it: no error path is looked for)";

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

/// How a [`LoomAnalysis`] runs, fixed at its construction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoomOptions {
    /// Whether each partition starts with the explicit-value stage.
    pub explicit_values: bool,
    /// Refinements per partition before the open properties are given up.
    pub max_refinements: u64,
    /// The predicate analysis runs under LDV's assumptions (kernel
    /// functions without a model leave the module's memory alone, ...):
    /// its counterexamples list the assumptions they need, and reaching a
    /// fixed point proves nothing.
    pub under_ldv_assumptions: bool,
    /// Where refinement puts the predicates it finds.
    pub predicate_scope: PredicateScope,
    /// Each partition runs as if in a process of its own (the baseline's
    /// one analysis per property): it does not start with the
    /// abstractions earlier partitions computed.
    pub partitions_stand_alone: bool,
    /// Each fixed point that proves properties keeps what it knows at loop
    /// heads for them ([`LoomAnalysis::invariants`]).
    pub invariants: bool,
    /// A refinement cuts the reached set below the first state it makes
    /// more precise and goes on (lazy abstraction), instead of starting
    /// the run over.
    pub lazy_abstraction: bool,
    /// Properties only a proof serves (the cut of a bug-hunting variant,
    /// [`crate::cfa::hunting`]): an error state of theirs that a stage
    /// reaches gives them up, without a search or a path check.
    pub proof_only: PropertySet,
}

impl Default for LoomOptions {
    /// Both stages, [`MAX_REFINEMENTS`], no assumptions, the default scope,
    /// no invariants, lazy abstraction.
    fn default() -> Self {
        LoomOptions {
            explicit_values: true,
            max_refinements: MAX_REFINEMENTS,
            under_ldv_assumptions: false,
            predicate_scope: PredicateScope::default(),
            partitions_stand_alone: false,
            invariants: false,
            lazy_abstraction: true,
            proof_only: PropertySet::new(),
        }
    }
}

/// The stage an `analyze` call of a partition starts with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Stage {
    /// Explicit values (and the value search), once per partition.
    #[default]
    Explicit,
    Cegar,
}

/// The current partition: its properties and how far its analysis got.
#[derive(Default)]
pub(super) struct Partition {
    /// Enabled properties (decided ones removed).
    pub(super) enabled: PropertySet,
    /// Properties removed by `exceeds`.
    pub(super) withdrawn: PropertySet,
    pub(super) stage: Stage,
    /// Time the explicit stage drew from the pool
    /// ([`Budget::pooled_work`]): it is not charged to the CEGAR stage.
    pub(super) explicit_spent: Duration,
    /// Time the run this partition resumes had already had for its
    /// properties: taken off the CEGAR stage's budget, so that a property
    /// a joint run ended with gets its share once, not twice.
    pub(super) resumed: Duration,
    /// The time its open properties were charged so far (the most any
    /// of them was), counted when its run ran out of budget: a partition
    /// that resumes the run has that much less of its own budget.
    pub(super) charged: Duration,
    /// The largest reached set so far.
    pub(super) states: usize,
    /// Whether the analysis reached its fixed point.
    pub(super) finished: bool,
}

impl Partition {
    /// The properties still analysed: enabled and not withdrawn.
    pub(super) fn open(&self) -> PropertySet {
        self.enabled.difference(&self.withdrawn)
    }
}

/// What the explicit-value stage remembers across partitions.
#[derive(Default)]
struct ExplicitMemory {
    /// Properties the value search has had its go at.
    searched: PropertySet,
    /// Partitions whose explicit-value exploration stopped at the state
    /// limit. The program's values make most of the state space, so a
    /// subset of one is not explored again unless it has at most half of
    /// its properties (the automata multiply the states too: on mos7840,
    /// 19 rules' exploration stops at 200,000 states, one rule's completes
    /// with 2,000).
    too_large: Vec<PropertySet>,
    /// Properties whose error an exploration reached: a partition that
    /// skips its exploration searches for their paths all the same.
    reached: PropertySet,
}

impl ExplicitMemory {
    /// Whether the exploration of `open` would stop at the state limit as
    /// that of a superset did.
    fn too_large(&self, open: &PropertySet) -> bool {
        self.too_large
            .iter()
            .any(|s| open.is_subset(s) && 2 * open.len() > s.len())
    }
}

/// What an analysis learned that a later analysis of the same locations
/// (the program, or its bug-hunting variant, whose locations and variables
/// are the program's) starts from, instead of learning it again: per
/// property name, the predicates its refinements found and where; and the
/// abstractions computed. Precision decides what an analysis costs, never
/// what it proves, and an abstraction is keyed by its block's formula.
#[derive(Clone, Default)]
pub struct Progress {
    learned: HashMap<String, Learned>,
    abstractions: AbstractionCache,
}

pub struct LoomAnalysis<'p> {
    pub(super) program: &'p Program,
    pub(super) automata: &'p [BoundAutomaton],
    /// Every property, indexed by its id.
    pub(super) properties: Vec<LoomProperty>,
    /// Display names of the properties (for counterexamples).
    pub(super) names: Vec<String>,
    pub(super) options: LoomOptions,
    pub(super) partition: Partition,
    explicit: ExplicitMemory,
    /// Predicates, the current run and what refinements learned.
    pub(super) cegar: CegarState<'p>,
    /// Properties given up because their error path needs an
    /// over-approximated step that LDV's assumptions rule out: candidates
    /// for an analysis under those assumptions.
    pub(super) ldv_infeasible: PropertySet,
    pub(super) work: Work,
    /// The invariants at loop heads of the fixed point that proved each
    /// property (with [`LoomOptions::invariants`]).
    pub(super) invariants: HashMap<PropertyId, Rc<Vec<LoopInvariant>>>,
}

impl<'p> LoomAnalysis<'p> {
    /// `properties[i].id` must be `PropertyId(i)`.
    pub fn new(
        program: &'p Program,
        automata: &'p [BoundAutomaton],
        properties: Vec<LoomProperty>,
        names: Vec<String>,
        options: LoomOptions,
    ) -> Self {
        debug_assert!(properties
            .iter()
            .enumerate()
            .all(|(i, p)| p.id.0 as usize == i));
        LoomAnalysis {
            program,
            automata,
            cegar: CegarState::new(program, automata, options.predicate_scope, &properties),
            properties,
            names,
            options,
            partition: Partition::default(),
            explicit: ExplicitMemory::default(),
            ldv_infeasible: PropertySet::new(),
            work: Work::default(),
            invariants: HashMap::default(),
        }
    }

    /// What this analysis learned that a later one of the same locations
    /// may start from ([`Progress`]), moved out of it.
    pub fn into_progress(self) -> Progress {
        let (learned, abstractions) = self.cegar.into_learned();
        Progress {
            learned: self.names.into_iter().zip(learned).collect(),
            abstractions,
        }
    }

    /// Starts from what an earlier analysis of the same locations learned:
    /// each property from what the earlier one's of the same name learned,
    /// and the runs from its abstractions.
    pub fn resume_from(&mut self, earlier: &Progress) {
        for (i, n) in self.names.iter().enumerate() {
            if let Some(l) = earlier.learned.get(n) {
                self.cegar.learn_from(PropertyId(i as u32), l);
            }
        }
        self.cegar.share_abstractions(&earlier.abstractions);
    }

    /// The invariants at loop heads of the fixed point that proved `p`
    /// (none if it is not proved, or not by a fixed point that keeps them).
    pub fn invariants(&self, p: PropertyId) -> &[LoopInvariant] {
        self.invariants.get(&p).map_or(&[], |v| v.as_slice())
    }

    /// Records `invariants` for each of `proved`.
    pub(super) fn keep_invariants(
        &mut self,
        proved: impl IntoIterator<Item = PropertyId>,
        invariants: Vec<LoopInvariant>,
    ) {
        let shared = Rc::new(invariants);
        for p in proved {
            self.invariants.insert(p, shared.clone());
        }
    }

    /// Keeps, for the properties `proved` by a fixed point under explicit
    /// values, what its states at loop heads know (with
    /// [`LoomOptions::invariants`]).
    fn keep_value_invariants(&mut self, proved: &PropertySet, loop_heads: &[(LocId, Values)]) {
        if !self.options.invariants || proved.is_empty() {
            return;
        }
        let mut names = invariants::Names::new(self.program);
        let states = loop_heads.iter().map(|(loc, values)| {
            let f = self.program.loc(*loc).func;
            (*loc, Some(invariants::of_values(values, f, &mut names)))
        });
        let found = invariants::collect(self.program, states);
        self.keep_invariants(proved.iter(), found);
    }

    /// Starts from the predicates `other` had when it gave up the last
    /// property LDV's assumptions may decide ([`LoomAnalysis::ldv_infeasible`];
    /// of the same program and automata): the analysis under LDV's
    /// assumptions goes on from the precision the analysis without them
    /// reached.
    pub fn inherit_ldv_predicates(&mut self, other: &LoomAnalysis<'p>) {
        self.cegar.inherit_ldv_predicates(&other.cegar);
    }

    /// What the analysis did so far, summed over its partitions.
    pub fn work(&self) -> &Work {
        &self.work
    }

    /// Properties given up because their error path needs an
    /// over-approximated step that LDV's assumptions rule out: candidates
    /// for an analysis under those assumptions.
    pub fn ldv_infeasible(&self) -> &PropertySet {
        &self.ldv_infeasible
    }

    pub(super) fn open(&self) -> PropertySet {
        self.partition.open()
    }

    /// What is left of the run's budget, if it has one.
    pub(super) fn remaining_budget(
        budget: &Budget,
        monitor: &Monitor<PropertyId>,
        clock: &dyn Clock,
    ) -> Option<Duration> {
        budget
            .work
            .map(|b| b.saturating_sub(monitor.analysis_work(clock)))
    }

    /// Counts a reached set of `n` states of the current partition
    /// ([`Work::states`]).
    pub(super) fn count_states(&mut self, n: usize) {
        if n > self.partition.states {
            self.work.states += n - self.partition.states;
            self.partition.states = n;
        }
    }

    /// The CEGAR stage's budget: the run's, plus what the explicit stage
    /// drew from the pool, within the pool.
    fn cegar_budget(&self, budget: &Budget) -> Budget {
        let mut b = budget.clone();
        if let (Some(work), Some(pool)) = (b.work, b.pooled_work) {
            b.work = Some((work + self.partition.explicit_spent).min(pool.max(work)));
        }
        b.work = b.work.map(|c| c.saturating_sub(self.partition.resumed));
        b
    }

    pub(super) fn report_transitions(&self, counts: &[u64], monitor: &mut Monitor<PropertyId>) {
        for (i, &c) in counts.iter().enumerate() {
            monitor.add_transitions(PropertyId(i as u32), c);
        }
    }

    /// Stage 1: the explicit-value exploration of the open properties, and
    /// the value search for the error labels it reached.
    fn explicit_stage(
        &mut self,
        budget: &Budget,
        monitor: &mut Monitor<PropertyId>,
        clock: &dyn Clock,
    ) -> sdc::RunReport<PropertyId, Counterexample> {
        self.partition.stage = Stage::Cegar;
        let mut report = sdc::RunReport::default();
        let open = self.open();
        if open.is_empty() {
            return report;
        }
        let start = monitor.analysis_work(clock);
        if self.explicit.too_large(&open) {
            let reached = self.not_proof_only(&open.intersection(&self.explicit.reached));
            self.value_search(&reached, budget, monitor, clock, &mut report);
            return report;
        }
        // One complete exploration decides every open property of the
        // partition: it draws on what a few of them would have had alone.
        let shares = (EXPLICIT_SHARES / open.len() as f64).min(1.0);
        let work = budget.shared_work().map(|b| {
            explicit_budget(
                b.saturating_sub(monitor.analysis_work(clock))
                    .mul_f64(shares),
            )
        });
        let t_ex = std::time::Instant::now();
        let ex = reachability::explore(
            self.program,
            self.automata,
            &self.properties,
            &open,
            Limits {
                work,
                max_states: EXPLICIT_MAX_STATES,
            },
            self.options.invariants,
        );
        if tracing() {
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
            self.explicit.too_large.push(open.clone());
        }
        self.partition.explicit_spent = monitor.analysis_work(clock).saturating_sub(start);
        monitor.charge(open.iter(), self.partition.explicit_spent);
        if ex.complete {
            report.proven = open.iter().filter(|p| !ex.hit.contains(*p)).collect();
            let proven: PropertySet = report.proven.iter().copied().collect();
            self.keep_value_invariants(&proven, &ex.loop_heads);
        }
        self.explicit.reached = self.explicit.reached.union(&ex.hit);
        let searched = self.not_proof_only(&open.intersection(&ex.hit));
        // The search's time is the run's: the CEGAR stage has less.
        self.value_search(&searched, budget, monitor, clock, &mut report);
        report.abandoned.extend(
            open.intersection(&ex.hit)
                .difference(&searched)
                .iter()
                .map(|p| (p, PROOF_ONLY_REACHED.to_string())),
        );
        report
    }

    /// The properties of `hit` that are not proof-only
    /// ([`LoomOptions::proof_only`]).
    fn not_proof_only(&self, hit: &PropertySet) -> PropertySet {
        hit.difference(&self.options.proof_only)
    }

    /// The value search for the errors of `hit` the explicit values
    /// reached: its counterexamples, each with the properties it violates,
    /// and the properties its fixed point proves, go into `report`.
    ///
    /// Errors the explicit values reach may be reachable for real: a
    /// search without merging proposes concrete paths to them. Once per
    /// property that the search finished with (a later partition would
    /// propose the same paths); one its budget cut short is searched again
    /// by the next partition that reaches its error. Automata
    /// that observe a call's result share its outcome through the explicit
    /// values (a pointer's nullness, [`crate::cpa::value`]), so the search
    /// follows one outcome per call instead of every combination.
    fn value_search(
        &mut self,
        hit: &PropertySet,
        budget: &Budget,
        monitor: &mut Monitor<PropertyId>,
        clock: &dyn Clock,
        report: &mut sdc::RunReport<PropertyId, Counterexample>,
    ) {
        let hit = hit.difference(&self.explicit.searched);
        if hit.is_empty() {
            return;
        }
        let t0 = clock.now();
        // The search serves the properties it looks for: it draws on their
        // shares of the partition's pool, what they would have had alone,
        // counted in states (not reduced by what the run spent before it,
        // so that the same partition searches as far on any machine).
        let share = hit.len() as f64 / self.open().len().max(hit.len()) as f64;
        // The pool in whole tenths of a second: a little start-up work
        // does not move it.
        let pool = budget
            .shared_work()
            .map(|b| Duration::from_millis(b.as_millis() as u64 / 100 * 100));
        let left = pool.map(|b| b.saturating_sub(monitor.analysis_work(clock)));
        let states = SearchBudget::nominal(
            pool.map(|l| l.mul_f64(VALUE_SEARCH_SHARE * share)),
            Deadline::within(left),
        );
        let search = |props: &PropertySet, budget, rounds| {
            value_search::search(
                self.program,
                self.automata,
                &self.properties,
                &self.names,
                props,
                budget,
                rounds,
            )
        };
        let several = hit.len() > 1;
        let mut found = if several {
            search(&hit, states.part(0.5), Rounds::First)
        } else {
            search(&hit, states, Rounds::All)
        };
        // The joint search follows the product of the automata, and its
        // first path to one property's error may be a long one that no
        // check decides. Each property it left undecided that way is
        // searched alone, as in a run of its own, with a share of the
        // states left (the joint search has half of the search's).
        if several {
            let alone: Vec<PropertyId> = found
                .unfinished
                .union(&found.inconclusive)
                .iter()
                .filter(|p| !found.refutes(*p))
                .collect();
            let mut left = SearchBudget {
                states: states.states.map(|n| n.saturating_sub(found.explored)),
                ..states
            };
            for (i, &p) in alone.iter().enumerate() {
                let its_part = left.part(1.0 / (alone.len() - i) as f64);
                let r = search(&[p].into_iter().collect(), its_part, Rounds::All);
                left.states = left.states.map(|n| n.saturating_sub(r.explored));
                found.merge_alone(p, r);
            }
        }
        if tracing() {
            eprintln!(
                "value search: {} states, {} paths checked, {} counterexamples, {} proved",
                found.states,
                found.paths_checked,
                found.counterexamples.len(),
                found.proven.len()
            );
        }
        // A search cut short by its budget is tried again for those
        // properties by a later, smaller partition, with its own budget.
        for p in hit.difference(&found.unfinished).iter() {
            self.explicit.searched.insert(p);
        }
        self.work.transitions += found.transitions;
        self.count_states(found.states);
        monitor.charge(hit.iter(), clock.now().saturating_sub(t0));
        self.keep_value_invariants(&found.proven, &found.loop_heads);
        report.proven.extend(found.proven.iter());
        report.counterexamples.extend(
            found
                .counterexamples
                .into_iter()
                .map(|(props, cex)| (props.iter().collect(), cex)),
        );
    }
}

impl<'p> sdc::Analysis for LoomAnalysis<'p> {
    type Property = PropertyId;
    type Counterexample = Counterexample;

    fn restart(&mut self, enabled: &BTreeSet<PropertyId>) {
        let enabled: PropertySet = enabled.iter().copied().collect();
        if self.resumes(&enabled) {
            self.partition.enabled = enabled;
            self.partition.withdrawn = PropertySet::new();
            self.partition.explicit_spent = Duration::ZERO;
            self.partition.resumed = self.partition.charged;
            return;
        }
        let set: BTreeSet<PropertyId> = enabled.iter().collect();
        self.partition = Partition {
            enabled,
            ..Partition::default()
        };
        self.cegar
            .restart(&set, self.program, self.options.partitions_stand_alone);
    }

    fn analyze(
        &mut self,
        budget: &Budget,
        monitor: &mut Monitor<PropertyId>,
        clock: &dyn Clock,
    ) -> sdc::RunReport<PropertyId, Counterexample> {
        if budget.run_exhausted(monitor, clock) {
            // Kept: the next partition may resume it.
            self.count_run(monitor);
            return sdc::RunReport::default();
        }
        if self.partition.stage == Stage::Explicit && self.options.explicit_values {
            let r = self.explicit_stage(budget, monitor, clock);
            if !r.proven.is_empty() || !r.counterexamples.is_empty() || !r.abandoned.is_empty() {
                return r;
            }
        }
        self.cegar_stage(&self.cegar_budget(budget), monitor, clock)
    }

    fn finished(&self) -> bool {
        self.partition.finished
    }

    fn disable(&mut self, props: &BTreeSet<PropertyId>) {
        for p in props {
            self.partition.enabled.remove(*p);
        }
        self.cegar.disable(props);
    }

    fn active(&self) -> BTreeSet<PropertyId> {
        self.open().iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subset_of_a_too_large_partition_is_explored_again_only_with_at_most_half_of_it() {
        let set = |ids: &[u32]| -> PropertySet { ids.iter().map(|&i| PropertyId(i)).collect() };
        let memory = ExplicitMemory {
            too_large: vec![set(&[0, 1, 2, 3])],
            ..ExplicitMemory::default()
        };
        assert!(memory.too_large(&set(&[0, 1, 2])));
        assert!(!memory.too_large(&set(&[0, 1])));
        assert!(!memory.too_large(&set(&[0, 4, 5])));
    }

    #[test]
    fn the_explicit_stage_gets_a_fifth_but_not_less_than_its_minimum() {
        let s = Duration::from_secs;
        assert_eq!(explicit_budget(s(60)), s(12));
        assert_eq!(explicit_budget(s(5)), s(2));
        assert_eq!(explicit_budget(s(3)), Duration::from_millis(1500));
        assert_eq!(explicit_budget(Duration::ZERO), Duration::ZERO);
    }
}
