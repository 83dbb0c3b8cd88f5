//! The resource utilisation monitor `U = (ut, ut_p)` of Sect. 4.1 and the
//! resource budgets `β` that read it (the refinement rule a budget may
//! carry is a strategy's, [`RefinementRule`] in `strategy.rs`).
//!
//! Resources `H = {at, rc, sc}`: analysis time, refinements and
//! automaton transitions. Time is what a [`Clock`] reads: in mpv the
//! thread's work meter in nominal seconds ([`WorkClock`]), so the same
//! run spends the same on any machine. `ut` gives the totals since the monitor was
//! (re)started, `ut_p` the amounts attributed to one property:
//! - `rc_p` counts refinements of counterexamples that violate `p`;
//! - `sc_p` counts transitions into a control state `q` with `p ∈ P(q)`;
//! - `at_p` is the time of the work done for `p`: the checks and
//!   refinements of its error paths, the exploration a refinement for it
//!   starts over, and an equal part of the exploration the open properties
//!   share ([`Monitor::charge`]). Summed over the properties it is about
//!   `at`.

use std::collections::BTreeSet;
use std::hash::Hash;
use std::time::Duration;

use crate::hash::HashMap;

use super::strategy::RefinementRule;

pub use crate::util::{process_cpu_time, thread_cpu_time};

/// The amounts of each resource consumed for one property.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub work: Duration,
    pub refinements: u64,
    pub transitions: u64,
}

/// What budgets are counted on: the thread's work meter in production
/// ([`WorkClock`]), a manual clock in tests.
pub trait Clock {
    fn now(&self) -> Duration;
}

/// The thread's work meter in nominal time ([`crate::smt::work`]): the
/// same run spends the same on any machine.
#[derive(Clone, Copy, Debug, Default)]
pub struct WorkClock;

impl Clock for WorkClock {
    fn now(&self) -> Duration {
        crate::smt::work::now()
    }
}

/// A clock advanced by hand, for deterministic tests and simulations.
#[derive(Debug, Default)]
pub struct ManualClock(pub std::cell::Cell<Duration>);

impl ManualClock {
    pub fn advance(&self, by: Duration) {
        self.0.set(self.0.get() + by);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        self.0.get()
    }
}

/// Tracks the resources consumed by one run of the analysis.
#[derive(Debug)]
pub struct Monitor<P: Copy + Eq + Hash> {
    started: Duration,
    refinements: u64,
    transitions: u64,
    per_property: HashMap<P, Usage>,
}

impl<P: Copy + Eq + Hash> Monitor<P> {
    /// `init`: starts a monitor with all utilisations at zero.
    pub fn start(clock: &dyn Clock) -> Self {
        Monitor {
            started: clock.now(),
            refinements: 0,
            transitions: 0,
            per_property: HashMap::default(),
        }
    }

    /// `ut(at)`: analysis time since the start.
    pub fn analysis_work(&self, clock: &dyn Clock) -> Duration {
        clock.now().saturating_sub(self.started)
    }

    /// `ut(rc)`.
    pub fn refinements(&self) -> u64 {
        self.refinements
    }

    /// `ut(sc)`.
    pub fn transitions(&self) -> u64 {
        self.transitions
    }

    /// `ut_p(p, ·)`.
    pub fn usage(&self, p: P) -> Usage {
        self.per_property.get(&p).copied().unwrap_or_default()
    }

    /// Records one refinement of a counterexample violating `props`, which
    /// took `work` ([`Monitor::charge`]d to them).
    pub fn record_refinement(&mut self, props: impl IntoIterator<Item = P>, work: Duration) {
        self.refinements += 1;
        let props: Vec<P> = props.into_iter().collect();
        for p in &props {
            self.per_property.entry(*p).or_default().refinements += 1;
        }
        self.charge(props, work);
    }

    /// Attributes `work` of analysis time to `props`, in equal parts.
    pub fn charge(&mut self, props: impl IntoIterator<Item = P>, work: Duration) {
        let props: Vec<P> = props.into_iter().collect();
        if props.is_empty() {
            return;
        }
        let part = work / props.len() as u32;
        for p in props {
            self.per_property.entry(p).or_default().work += part;
        }
    }

    /// Records an automaton transition into a control state relevant for `props`.
    pub fn record_transition(&mut self, props: impl IntoIterator<Item = P>) {
        self.transitions += 1;
        for p in props {
            self.per_property.entry(p).or_default().transitions += 1;
        }
    }

    /// Records `n` automaton transitions for property `p` (counted once
    /// in the run's total too).
    pub fn add_transitions(&mut self, p: P, n: u64) {
        if n == 0 {
            return;
        }
        self.transitions += n;
        self.per_property.entry(p).or_default().transitions += n;
    }

    /// The properties with `ut_p(p, sc) > 0`: identified as relevant.
    pub fn relevant(&self) -> BTreeSet<P>
    where
        P: Ord,
    {
        self.per_property
            .iter()
            .filter(|(_, u)| u.transitions > 0)
            .map(|(p, _)| *p)
            .collect()
    }
}

/// A resource budget `β`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Analysis time for the run (`β_900` is 900 s), in nominal seconds of
    /// work; `None` does not restrict.
    pub work: Option<Duration>,
    /// Per-property refinement rule (strategies S2 and S4); applies only while
    /// more than one property is enabled.
    pub refinement_rule: Option<RefinementRule>,
    /// Time the run's properties would have had in runs of their own:
    /// `work` once per property of the partition, capped by what is left of
    /// the overall limit. A stage whose one result decides all of them at
    /// once (LOOM's explicit-value stage) may draw on this pool instead of
    /// the run's own budget; `None` is the run's `work`.
    pub pooled_work: Option<Duration>,
    /// The analysis time each property's own work (`at_p`) may take
    /// in the run (S0 under an overall limit: an equal share of it, the
    /// share `baseline` starts each property with); a property past it
    /// leaves the precision (`exceeds`), even the last one. `None` does not
    /// restrict.
    pub property_work: Option<Duration>,
}

impl Budget {
    /// `β_⊤`: no restriction.
    pub fn unlimited() -> Self {
        Budget {
            work: None,
            refinement_rule: None,
            pooled_work: None,
            property_work: None,
        }
    }

    /// `β_t`: analysis time at most `t`.
    pub fn work(limit: Duration) -> Self {
        Budget {
            work: Some(limit),
            refinement_rule: None,
            pooled_work: None,
            property_work: None,
        }
    }

    pub fn with_refinement_rule(mut self, rule: RefinementRule) -> Self {
        self.refinement_rule = Some(rule);
        self
    }

    /// The time a stage shared by all of the run's properties may use:
    /// the pool when there is one, else the run's `work`.
    pub fn shared_work(&self) -> Option<Duration> {
        self.pooled_work.or(self.work)
    }

    /// Whether the run as a whole must stop (its time is used up).
    pub fn run_exhausted<P: Copy + Eq + Hash>(
        &self,
        monitor: &Monitor<P>,
        clock: &dyn Clock,
    ) -> bool {
        self.work
            .is_some_and(|limit| monitor.analysis_work(clock) >= limit)
    }

    /// `exceeds(p)`: whether `p` must be removed from the precision
    /// `enabled`: whether the budget's refinement rule (S2, S4) drops it or
    /// its own work used up [`Budget::property_work`].
    pub fn exceeds<P: Copy + Eq + Hash + Ord>(
        &self,
        p: P,
        enabled: &BTreeSet<P>,
        monitor: &Monitor<P>,
    ) -> bool {
        self.refinement_rule
            .is_some_and(|rule| rule.drops(p, enabled, monitor))
            || self.property_left(p, monitor) == Some(Duration::ZERO)
    }

    /// What is left of `p`'s [`Budget::property_work`], if the budget has one.
    pub fn property_left<P: Copy + Eq + Hash>(
        &self,
        p: P,
        monitor: &Monitor<P>,
    ) -> Option<Duration> {
        self.property_work
            .map(|c| c.saturating_sub(monitor.usage(p).work))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn refinement_rule_needs_ten_and_twice_the_others() {
        let clock = ManualClock(Cell::new(Duration::ZERO));
        let mut m = Monitor::<u32>::start(&clock);
        let enabled: BTreeSet<u32> = [1, 2].into();
        let b = Budget::unlimited().with_refinement_rule(RefinementRule::default());
        for _ in 0..9 {
            m.record_refinement([1], Duration::ZERO);
        }
        assert!(
            !b.exceeds(1, &enabled, &m),
            "9 refinements are below the minimum"
        );
        m.record_refinement([1], Duration::ZERO);
        assert!(b.exceeds(1, &enabled, &m), "10 vs 0");
        for _ in 0..6 {
            m.record_refinement([2], Duration::ZERO);
        }
        assert!(!b.exceeds(1, &enabled, &m), "10 < 2 * 6");
        assert!(
            !b.exceeds(1, &[1].into(), &m),
            "a property alone is never dropped by the rule"
        );
    }

    #[test]
    fn a_work_budget_counts_from_the_monitor_start() {
        let clock = ManualClock(Cell::new(Duration::from_secs(100)));
        let m = Monitor::<u32>::start(&clock);
        let b = Budget::work(Duration::from_secs(5));
        clock.0.set(Duration::from_secs(104));
        assert!(!b.run_exhausted(&m, &clock));
        clock.0.set(Duration::from_secs(105));
        assert!(b.run_exhausted(&m, &clock));
        assert!(process_cpu_time() > Duration::ZERO);
    }

    #[test]
    fn relevance_is_read_from_transition_counts() {
        let clock = ManualClock(Cell::new(Duration::ZERO));
        let mut m = Monitor::<u32>::start(&clock);
        m.record_transition([3, 4]);
        m.record_refinement([5], Duration::from_millis(10));
        assert_eq!(m.relevant(), [3, 4].into());
        assert_eq!(m.usage(5).work, Duration::from_millis(10));
        assert_eq!(m.transitions(), 1);
    }

    #[test]
    fn shared_work_is_charged_in_equal_parts_and_a_property_past_its_share_exceeds() {
        let clock = ManualClock(Cell::new(Duration::ZERO));
        let mut m = Monitor::<u32>::start(&clock);
        let ms = Duration::from_millis;
        m.charge([1, 2], ms(10));
        m.record_refinement([1], ms(4));
        assert_eq!((m.usage(1).work, m.usage(2).work), (ms(9), ms(5)));
        let b = Budget {
            property_work: Some(ms(9)),
            ..Budget::unlimited()
        };
        assert_eq!(b.property_left(2, &m), Some(ms(4)));
        assert!(b.exceeds(1, &[1].into(), &m), "even the last one");
        assert!(!b.exceeds(2, &[1, 2].into(), &m));
        assert!(!Budget::unlimited().exceeds(1, &[1].into(), &m));
    }
}
