//! The specification-decomposition loop SDC (Alg. 2 of paper 002).
//!
//! [`sdc`] wraps an [`Analysis`] (the `analyze` of Alg. 2: CEGAR over the
//! LOOM composite, operating on its own `reached` and `waitlist`) and a
//! decomposition [`Strategy`]. It returns one [`Outcome`] per property.
//!
//! Beyond the paper's pseudo code:
//! - an overall limit for the whole loop (`--time-limit`): each run's
//!   budget is capped by what is left, and properties still open when it is
//!   used up end as UNKNOWN with reason `timeout`;
//! - the analysis may give a property up (an unsupported construct on its
//!   counterexample, refinement without progress); such a property leaves
//!   `remaining` like a violated one, as UNKNOWN with the analysis' reason.

pub mod monitor;
pub mod strategy;

use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hash;
use std::time::Duration;

pub use monitor::{
    process_cpu_time, thread_cpu_time, Budget, Clock, ManualClock, Monitor, Usage, WorkClock,
};
pub use strategy::{Planner, RefinementRule, Strategy, StrategyConfig};

/// What one call of `analyze_β(reached, waitlist)` found.
#[derive(Debug)]
pub struct RunReport<P, C> {
    /// Feasible counterexamples, each with the properties it violates (`P(cex)`).
    pub counterexamples: Vec<(BTreeSet<P>, C)>,
    /// Properties the analysis cannot decide, with the reason.
    pub given_up: Vec<(P, String)>,
    /// Properties the analysis gives up in any partition, with the reason:
    /// a run of their own would not decide them either.
    pub abandoned: Vec<(P, String)>,
    /// Properties proved before the fixed point, by a sound stage of the
    /// analysis (e.g. an over-approximation never reaching their error).
    pub proven: Vec<P>,
}

impl<P, C> Default for RunReport<P, C> {
    fn default() -> Self {
        RunReport {
            counterexamples: Vec::new(),
            given_up: Vec::new(),
            abandoned: Vec::new(),
            proven: Vec::new(),
        }
    }
}

/// The analysis algorithm wrapped by SDC.
pub trait Analysis {
    type Property: Copy + Ord + Hash + std::fmt::Debug;
    type Counterexample: Clone;

    /// Line 5: a fresh `reached = waitlist = {(e_0, π)}` with `enabled` as
    /// the properties of the specification precision.
    fn restart(&mut self, enabled: &BTreeSet<Self::Property>);

    /// Line 7: continue until a feasible counterexample is found, the fixed
    /// point is reached, or `budget` is exhausted. The analysis applies
    /// `exceeds` in its precision adjustment and records its resource use in
    /// `monitor`.
    fn analyze(
        &mut self,
        budget: &Budget,
        monitor: &mut Monitor<Self::Property>,
        clock: &dyn Clock,
    ) -> RunReport<Self::Property, Self::Counterexample>;

    /// Whether the waitlist is empty (the fixed point is reached).
    fn finished(&self) -> bool;

    /// Line 10, `disable(waitlist, props)`: removes `props` from the
    /// precisions of all states in the waitlist.
    fn disable(&mut self, props: &BTreeSet<Self::Property>);

    /// `active(reached)`: the properties that stayed enabled in every state
    /// of the last run (not removed by `exceeds`, not disabled).
    fn active(&self) -> BTreeSet<Self::Property>;
}

/// Why a property has no verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownReason {
    /// The overall limit was used up.
    Timeout,
    /// The strategy gave the property up after its budget ran out (`resigned`).
    Resigned { strategy: Strategy },
    /// The analysis could not decide it.
    Analysis(String),
}

impl std::fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnknownReason::Timeout => write!(f, "timeout"),
            UnknownReason::Resigned { strategy } => {
                write!(f, "resigned: budget exhausted ({strategy:?})")
            }
            UnknownReason::Analysis(r) => write!(f, "{r}"),
        }
    }
}

/// The result for one property.
#[derive(Debug)]
pub enum Outcome<C> {
    Satisfied,
    Violated(C),
    Unknown(UnknownReason),
}

/// One run of the analysis on one partition (for reports).
#[derive(Clone, Debug)]
pub struct PartitionRun<P> {
    pub properties: BTreeSet<P>,
    pub budget: Budget,
    pub spent: Duration,
    pub refinements: u64,
    pub transitions: u64,
    /// Whether the run reached its fixed point.
    pub finished: bool,
}

/// What SDC returns: a verdict per property and the partitions it ran.
#[derive(Debug)]
pub struct SdcResult<P, C> {
    pub outcomes: BTreeMap<P, Outcome<C>>,
    pub partitions: Vec<PartitionRun<P>>,
    /// Properties identified as relevant (`ut_p(p, sc) > 0` in some run).
    pub relevant: BTreeSet<P>,
}

impl<P: Ord, C> SdcResult<P, C> {
    /// Analysis seconds of the partitions that had `p`.
    pub fn spent_on(&self, p: &P) -> f64 {
        self.partitions
            .iter()
            .filter(|run| run.properties.contains(p))
            .map(|run| run.spent.as_secs_f64())
            .fold(0.0, |a, b| a + b) // (an empty `sum` of floats is -0.0)
    }
}

/// Alg. 2: verifies `properties` with `analysis` under `strategy`, within an
/// overall analysis limit `total` (if any).
pub fn sdc<A: Analysis>(
    analysis: &mut A,
    properties: &BTreeSet<A::Property>,
    strategy: Strategy,
    config: StrategyConfig,
    total: Option<Duration>,
    clock: &dyn Clock,
) -> SdcResult<A::Property, A::Counterexample> {
    let started = clock.now();
    let mut planner = Planner::new(strategy, config);
    let mut outcomes = BTreeMap::new();
    let mut remaining = properties.clone();
    let mut partitions = Vec::new();
    let mut relevant = BTreeSet::new();
    // Properties a joint run gave up, with the reason: a run of their own
    // (the strategy's later phases) may still decide them.
    let mut deferred: BTreeMap<A::Property, String> = BTreeMap::new();

    loop {
        let left = total.map(|t| t.saturating_sub(clock.now().saturating_sub(started)));
        let Some((partition, mut budget)) = planner.next_within(&remaining, left) else {
            break;
        };
        if left == Some(Duration::ZERO) {
            break;
        }
        // Cap the run's budget by what is left of the overall limit.
        let capped_by_total = match (budget.work, left) {
            (Some(b), Some(l)) if l < b => true,
            (None, Some(_)) => true,
            _ => false,
        };
        if capped_by_total {
            budget.work = left;
        }
        budget.pooled_work = pooled(budget.work, partition.len(), left);

        let defer = planner
            .retries_given_up(&partition)
            .then_some(&mut deferred);
        let (run, run_relevant) = run_partition(
            analysis,
            &partition,
            &budget,
            clock,
            &mut remaining,
            &mut outcomes,
            defer,
        );
        relevant.extend(run_relevant.iter().copied());
        planner.observe_relevant(&run_relevant);
        let finished = run.finished;
        let exhausted = budget.work.is_some_and(|b| run.spent >= b);
        partitions.push(run);
        if finished {
            continue;
        } else if capped_by_total && exhausted {
            // The overall limit, not the strategy's budget, stopped this run.
            break;
        } else {
            for p in planner.resigned(&partition) {
                if remaining.remove(&p) {
                    outcomes.insert(p, Outcome::Unknown(UnknownReason::Resigned { strategy }));
                }
            }
        }
    }
    let timed_out = total.is_some_and(|t| clock.now().saturating_sub(started) >= t);
    for p in remaining {
        let reason = match deferred.remove(&p) {
            Some(why) if !timed_out => UnknownReason::Analysis(why),
            _ if timed_out => UnknownReason::Timeout,
            _ => UnknownReason::Resigned { strategy },
        };
        outcomes.insert(p, Outcome::Unknown(reason));
    }
    SdcResult {
        outcomes,
        partitions,
        relevant,
    }
}

/// The time `n` properties with a run budget of `work` each would have
/// had alone, capped by what is `left` of the overall limit.
fn pooled(work: Option<Duration>, n: usize, left: Option<Duration>) -> Option<Duration> {
    let pool = work?.saturating_mul(n.max(1) as u32);
    Some(left.map_or(pool, |l| pool.min(l)))
}

/// One partition: `restart`, then `analyze` until it neither finds nor
/// gives up anything more (Alg. 2, lines 5–12). Decided properties leave
/// `remaining`; at the fixed point the active ones are satisfied. With
/// `defer`, a property the analysis gives up leaves this run only: it stays
/// in `remaining`, its reason in `defer`, for a run of its own.
fn run_partition<A: Analysis>(
    analysis: &mut A,
    partition: &BTreeSet<A::Property>,
    budget: &Budget,
    clock: &dyn Clock,
    remaining: &mut BTreeSet<A::Property>,
    outcomes: &mut BTreeMap<A::Property, Outcome<A::Counterexample>>,
    mut defer: Option<&mut BTreeMap<A::Property, String>>,
) -> (PartitionRun<A::Property>, BTreeSet<A::Property>) {
    analysis.restart(partition);
    let mut monitor = Monitor::start(clock);
    loop {
        let report = analysis.analyze(budget, &mut monitor, clock);
        let mut decided = BTreeSet::new();
        for (props, cex) in report.counterexamples.into_iter() {
            for p in props {
                if remaining.remove(&p) {
                    decided.insert(p);
                    outcomes.insert(p, Outcome::Violated(cex.clone()));
                }
            }
        }
        for (p, reason) in report.given_up {
            if let Some(later) = defer.as_deref_mut() {
                if remaining.contains(&p) {
                    decided.insert(p);
                    later.insert(p, reason);
                }
            } else if remaining.remove(&p) {
                decided.insert(p);
                outcomes.insert(p, Outcome::Unknown(UnknownReason::Analysis(reason)));
            }
        }
        for (p, reason) in report.abandoned {
            if remaining.remove(&p) {
                decided.insert(p);
                outcomes.insert(p, Outcome::Unknown(UnknownReason::Analysis(reason)));
            }
        }
        for p in report.proven {
            if remaining.remove(&p) {
                decided.insert(p);
                outcomes.insert(p, Outcome::Satisfied);
            }
        }
        if decided.is_empty() {
            break;
        }
        analysis.disable(&decided);
    }
    let finished = analysis.finished();
    if finished {
        for p in analysis.active().intersection(partition) {
            if remaining.remove(p) {
                outcomes.insert(*p, Outcome::Satisfied);
            }
        }
    }
    let run = PartitionRun {
        properties: partition.clone(),
        budget: budget.clone(),
        spent: monitor.analysis_work(clock),
        refinements: monitor.refinements(),
        transitions: monitor.transitions(),
        finished,
    };
    (run, monitor.relevant())
}

/// The paper's baseline BL: every property in its own fresh analysis, one
/// after the other, each with an equal share of what is left of `total`.
pub fn baseline<A: Analysis>(
    analysis: &mut A,
    properties: &BTreeSet<A::Property>,
    total: Option<Duration>,
    clock: &dyn Clock,
) -> SdcResult<A::Property, A::Counterexample> {
    let started = clock.now();
    let mut outcomes = BTreeMap::new();
    let mut remaining = properties.clone();
    let mut partitions = Vec::new();
    let mut relevant = BTreeSet::new();
    let order: Vec<A::Property> = properties.iter().copied().collect();
    for (i, p) in order.iter().enumerate() {
        if !remaining.contains(p) {
            continue;
        }
        let left = total.map(|t| t.saturating_sub(clock.now().saturating_sub(started)));
        let budget = match left {
            Some(l) => Budget::work(l / (order.len() - i) as u32),
            None => Budget::unlimited(),
        };
        let single: BTreeSet<A::Property> = [*p].into();
        let (run, run_relevant) = run_partition(
            analysis,
            &single,
            &budget,
            clock,
            &mut remaining,
            &mut outcomes,
            None,
        );
        relevant.extend(run_relevant);
        partitions.push(run);
        if remaining.remove(p) {
            outcomes.insert(*p, Outcome::Unknown(UnknownReason::Timeout));
        }
    }
    SdcResult {
        outcomes,
        partitions,
        relevant,
    }
}

#[cfg(test)]
mod tests;
