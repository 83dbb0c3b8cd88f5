//! Decomposition strategies `S = (adjPrecision, resigned)` of Sect. 4.2.
//!
//! A [`Planner`] is the stateful `adjPrecision` operator: given the remaining
//! properties it returns the next partition to verify and its budget, or
//! `None` when the strategy has nothing left to try (the SDC loop then gives
//! the remaining properties up). `resigned` is [`Planner::resigned`].
//!
//! The phase budget `β_900` is an option ([`StrategyConfig::phase_budget`]).
//! The paper pairs 900 s per phase with a 0.25 h limit per property, i.e. the
//! phase budget equals the per-property share of the total limit; for a total
//! limit `T` over `n` properties, `T / n` keeps the paper's proportions
//! (`StrategyConfig::scaled`).

use std::collections::BTreeSet;
use std::time::Duration;

use std::hash::Hash;

use super::monitor::{Budget, Monitor};

/// The strategies of the paper. `Baseline` (one fresh analysis per property)
/// is not an SDC strategy; the driver runs it outside the loop.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// One partition with all properties, no budget (under an overall
    /// limit, each property's own work gets its share of it).
    S0,
    /// All together with `β_900`, then the remaining ones one by one.
    S1,
    /// S1 plus the refinement rule in the first partition.
    S2,
    /// Relevance phases: all; the not-yet-relevant ones; the relevant ones one by one.
    S3,
    /// S2 + S3.
    S4,
}

/// The S2 refinement rule (S4's too): drop `p` when `rc_p ≥ min` and
/// `rc_p ≥ factor · max_{p' ∈ π \ p} rc_p'`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefinementRule {
    pub min: u64,
    pub factor: u64,
}

impl Default for RefinementRule {
    /// The paper's values: at least ten, and at least twice the maximum of the others.
    fn default() -> Self {
        RefinementRule { min: 10, factor: 2 }
    }
}

impl RefinementRule {
    /// Whether `p` leaves the precision `enabled` under the refinements
    /// `monitor` counted; never while it is the only property enabled.
    pub fn drops<P: Copy + Eq + Hash + Ord>(
        &self,
        p: P,
        enabled: &BTreeSet<P>,
        monitor: &Monitor<P>,
    ) -> bool {
        if enabled.len() < 2 {
            return false;
        }
        let rc = monitor.usage(p).refinements;
        let others = enabled
            .iter()
            .filter(|&&q| q != p)
            .map(|&q| monitor.usage(q).refinements)
            .max()
            .unwrap_or(0);
        rc >= self.min && rc >= self.factor * others
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyConfig {
    /// `β_900`: analysis time of one partition.
    pub phase_budget: Duration,
    pub refinement_rule: RefinementRule,
    /// Whether a property tried alone also gets its share of the overall
    /// limit the earlier partitions left unused ([`Planner::next_within`]).
    /// Off for a pass that only looks for violations (the bug-hunting
    /// variant): the time a proof there would take is not worth spending.
    pub share_unused: bool,
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig {
            phase_budget: Duration::from_secs(900),
            refinement_rule: RefinementRule::default(),
            share_unused: true,
        }
    }
}

impl StrategyConfig {
    /// The paper's proportions for a total analysis limit over `properties` properties.
    pub fn scaled(total: Duration, properties: usize) -> Self {
        StrategyConfig {
            phase_budget: total / properties.max(1) as u32,
            ..Self::default()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing verified yet: the initial partition `P_0 = {P}`.
    All,
    /// S3/S4 second phase: the properties not yet identified as relevant.
    NotYetRelevant,
    /// One property at a time.
    OneByOne,
    /// S0 after its single run.
    Done,
}

/// The stateful `adjPrecision` operator of one strategy.
#[derive(Debug)]
pub struct Planner<P: Ord + Copy> {
    strategy: Strategy,
    config: StrategyConfig,
    phase: Phase,
    /// Properties identified as relevant so far (`P_Rel`, from `ut_p(p, sc) > 0`).
    relevant: BTreeSet<P>,
    /// Properties already verified alone (`resigned_One` gives them up).
    tried_alone: BTreeSet<P>,
    /// The last partition handed out.
    last: BTreeSet<P>,
    /// Every property, in order (the `remaining` of the first call of
    /// [`Planner::next_within`]).
    all: BTreeSet<P>,
}

impl<P: Ord + Copy + std::fmt::Debug> Planner<P> {
    pub fn new(strategy: Strategy, config: StrategyConfig) -> Self {
        Planner {
            strategy,
            config,
            phase: Phase::All,
            relevant: BTreeSet::new(),
            tried_alone: BTreeSet::new(),
            last: BTreeSet::new(),
            all: BTreeSet::new(),
        }
    }

    fn phase_budget(&self) -> Budget {
        Budget::work(self.config.phase_budget)
    }

    fn uses_relevance(&self) -> bool {
        matches!(self.strategy, Strategy::S3 | Strategy::S4)
    }

    /// Records the properties identified as relevant by the last run.
    pub fn observe_relevant(&mut self, relevant: &BTreeSet<P>) {
        self.relevant.extend(relevant.iter().copied());
    }

    /// `adjPrecision(π, remaining)`: the next partition and its budget.
    pub fn next(&mut self, remaining: &BTreeSet<P>) -> Option<(BTreeSet<P>, Budget)> {
        if remaining.is_empty() {
            return None;
        }
        let next = match self.phase {
            Phase::All => {
                self.phase = match self.strategy {
                    Strategy::S0 => Phase::Done,
                    Strategy::S1 | Strategy::S2 => Phase::OneByOne,
                    Strategy::S3 | Strategy::S4 => Phase::NotYetRelevant,
                };
                let budget = match self.strategy {
                    Strategy::S0 => Budget::unlimited(),
                    Strategy::S1 | Strategy::S3 => self.phase_budget(),
                    Strategy::S2 | Strategy::S4 => self
                        .phase_budget()
                        .with_refinement_rule(self.config.refinement_rule),
                };
                Some((remaining.clone(), budget))
            }
            Phase::NotYetRelevant => {
                let not_relevant: BTreeSet<P> =
                    remaining.difference(&self.relevant).copied().collect();
                // Restart the phase only while it keeps identifying new relevant properties.
                let repeat = self.last != not_relevant;
                if not_relevant.is_empty() || !repeat {
                    self.phase = Phase::OneByOne;
                    return self.next(remaining);
                }
                Some((not_relevant, self.phase_budget()))
            }
            Phase::OneByOne => {
                // Relevant properties first (S3/S4), then the rest, each once.
                let pick = |only_relevant: bool| {
                    remaining
                        .iter()
                        .find(|p| {
                            !self.tried_alone.contains(p)
                                && (!only_relevant || self.relevant.contains(p))
                        })
                        .copied()
                };
                let p = if self.uses_relevance() {
                    pick(true).or_else(|| pick(false))
                } else {
                    pick(false)
                };
                p.map(|p| {
                    self.tried_alone.insert(p);
                    ([p].into(), self.phase_budget())
                })
            }
            Phase::Done => None,
        };
        if let Some((partition, _)) = &next {
            self.last = partition.clone();
        }
        next
    }

    /// [`Planner::next`] under an overall limit with `left` of it unused.
    ///
    /// S0's one partition has no budget of its own, but each property's own
    /// work in it ([`Budget::property_work`]) may take only an equal share
    /// of the limit, the share `baseline` starts each property with: a
    /// property nobody decides costs what it costs one by one, not the
    /// whole limit.
    ///
    /// Under S1–S4, a property `p` verified alone gets the larger of the phase budget and
    /// the share `baseline` gives it, an equal share of what is left among
    /// `p` and the properties after it in order, so the time the properties
    /// before it did not need goes to it as it would under `baseline`, and
    /// no more: what a property nobody decides costs stays what it costs
    /// one by one.
    pub fn next_within(
        &mut self,
        remaining: &BTreeSet<P>,
        left: Option<Duration>,
    ) -> Option<(BTreeSet<P>, Budget)> {
        if self.all.is_empty() {
            self.all = remaining.clone();
        }
        let tried = self.tried_alone.len();
        let (partition, mut budget) = self.next(remaining)?;
        if self.strategy == Strategy::S0 {
            budget.property_work = left.map(|l| l / partition.len().max(1) as u32);
        }
        let alone = self.tried_alone.len() > tried && self.config.share_unused;
        if let (true, Some(left), Some(b), Some(p)) = (alone, left, budget.work, partition.first())
        {
            let slots = self.all.range(*p..).count().max(1);
            budget.work = Some(b.max(left / slots as u32));
        }
        Some((partition, budget))
    }

    /// Whether a property the run of `partition` gives up is tried again
    /// in a run of its own (S1–S4, the later phases), rather than given up
    /// for good: in a partition of more than one property, whose joint run
    /// may have given it up for another property's sake.
    pub fn retries_given_up(&self, partition: &BTreeSet<P>) -> bool {
        self.strategy != Strategy::S0 && partition.len() > 1
    }

    /// `resigned(reached)` after a run of `partition` that ran out of budget:
    /// the properties given up for good. `resigned_One` gives up a property
    /// verified alone; S0 gives up everything.
    pub fn resigned(&self, partition: &BTreeSet<P>) -> BTreeSet<P> {
        match self.strategy {
            Strategy::S0 => partition.clone(),
            _ if partition.len() == 1 => partition.clone(),
            _ => BTreeSet::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[u32]) -> BTreeSet<u32> {
        v.iter().copied().collect()
    }

    #[test]
    fn s0_runs_everything_once_without_budget() {
        let mut p = Planner::new(Strategy::S0, StrategyConfig::default());
        let (part, budget) = p.next(&set(&[1, 2, 3])).unwrap();
        assert_eq!(part, set(&[1, 2, 3]));
        assert_eq!(budget, Budget::unlimited());
        assert!(p.next(&set(&[2])).is_none());
        assert_eq!(p.resigned(&set(&[1, 2])), set(&[1, 2]));
    }

    #[test]
    fn s0_under_a_limit_gives_each_property_an_equal_share_of_its_own_work() {
        let mut p = Planner::new(Strategy::S0, StrategyConfig::default());
        let (part, b) = p
            .next_within(&set(&[1, 2, 3, 4]), Some(Duration::from_secs(60)))
            .unwrap();
        assert_eq!(part, set(&[1, 2, 3, 4]));
        assert_eq!(b.work, None, "the run itself is bounded by the limit only");
        assert_eq!(b.property_work, Some(Duration::from_secs(15)));
        let mut p = Planner::new(Strategy::S0, StrategyConfig::default());
        let (_, b) = p.next_within(&set(&[1, 2]), None).unwrap();
        assert_eq!(b, Budget::unlimited(), "no limit: the paper's S0");
        let mut p = Planner::new(Strategy::S4, StrategyConfig::default());
        let (_, b) = p
            .next_within(&set(&[1, 2]), Some(Duration::from_secs(60)))
            .unwrap();
        assert_eq!(b.property_work, None);
    }

    #[test]
    fn properties_alone_share_the_time_left_when_it_is_more_than_the_phase_budget() {
        let mut p = Planner::new(Strategy::S1, config_of(10));
        let left = |s| Some(Duration::from_secs(s));
        let (_, b) = p.next_within(&set(&[1, 2, 3]), left(100)).unwrap();
        assert_eq!(b.work, left(10), "the first phase keeps its budget");
        let (part, b) = p.next_within(&set(&[2, 3]), left(90)).unwrap();
        assert_eq!((part, b.work), (set(&[2]), left(45)));
        let (part, b) = p.next_within(&set(&[3]), left(15)).unwrap();
        assert_eq!((part, b.work), (set(&[3]), left(15)));
        let mut p = Planner::new(Strategy::S1, config_of(10));
        p.next_within(&set(&[1, 2, 3]), left(100)).unwrap();
        let (_, b) = p.next_within(&set(&[1, 2, 3]), left(12)).unwrap();
        assert_eq!(b.work, left(10), "never less than the phase budget");
    }

    #[test]
    fn a_property_alone_gets_no_more_than_its_baseline_share() {
        let mut p = Planner::new(Strategy::S1, config_of(10));
        let left = |s| Some(Duration::from_secs(s));
        p.next_within(&set(&[1, 2, 3, 4]), left(100)).unwrap();
        // The joint run decided 2 and 3: 1 shares what is left with the
        // three properties after it, as under `baseline`.
        let (part, b) = p.next_within(&set(&[1, 4]), left(90)).unwrap();
        assert_eq!(
            (part, b.work),
            (set(&[1]), Some(Duration::from_millis(22_500)))
        );
        let (part, b) = p.next_within(&set(&[4]), left(80)).unwrap();
        assert_eq!((part, b.work), (set(&[4]), left(80)));
    }

    #[test]
    fn a_pass_that_does_not_share_the_unused_time_keeps_the_phase_budget() {
        let config = StrategyConfig {
            share_unused: false,
            ..config_of(10)
        };
        let mut p = Planner::new(Strategy::S1, config);
        let left = |s| Some(Duration::from_secs(s));
        p.next_within(&set(&[1, 2, 3]), left(100)).unwrap();
        let (part, b) = p.next_within(&set(&[2, 3]), left(90)).unwrap();
        assert_eq!((part, b.work), (set(&[2]), left(10)));
    }

    fn config_of(secs: u64) -> StrategyConfig {
        StrategyConfig {
            phase_budget: Duration::from_secs(secs),
            ..StrategyConfig::default()
        }
    }

    #[test]
    fn s1_then_one_by_one() {
        let mut p = Planner::new(Strategy::S1, StrategyConfig::default());
        let (part, budget) = p.next(&set(&[1, 2, 3])).unwrap();
        assert_eq!(part, set(&[1, 2, 3]));
        assert_eq!(budget.work, Some(Duration::from_secs(900)));
        assert!(budget.refinement_rule.is_none());
        assert!(
            p.resigned(&part).is_empty(),
            "a shared partition resigns nothing"
        );
        assert_eq!(p.next(&set(&[2, 3])).unwrap().0, set(&[2]));
        assert_eq!(p.resigned(&set(&[2])), set(&[2]));
        assert_eq!(p.next(&set(&[3])).unwrap().0, set(&[3]));
        assert!(
            p.next(&set(&[3])).is_none(),
            "each property is tried alone once"
        );
    }

    #[test]
    fn s2_and_s4_add_the_refinement_rule_to_the_first_partition_only() {
        for s in [Strategy::S2, Strategy::S4] {
            let mut p = Planner::new(s, StrategyConfig::default());
            let (_, b) = p.next(&set(&[1, 2])).unwrap();
            assert_eq!(b.refinement_rule, Some(RefinementRule::default()));
            p.observe_relevant(&set(&[1, 2]));
            let (_, b) = p.next(&set(&[1])).unwrap();
            assert!(b.refinement_rule.is_none());
        }
    }

    #[test]
    fn s3_verifies_not_yet_relevant_properties_together_then_relevant_ones_alone() {
        let mut p = Planner::new(Strategy::S3, StrategyConfig::default());
        p.next(&set(&[1, 2, 3, 4])).unwrap();
        p.observe_relevant(&set(&[1]));
        // Phase 2: {2, 3, 4} are not yet relevant.
        assert_eq!(p.next(&set(&[1, 2, 3, 4])).unwrap().0, set(&[2, 3, 4]));
        // The run identifies 3 as relevant: phase 2 restarts with {2, 4}.
        p.observe_relevant(&set(&[3]));
        assert_eq!(p.next(&set(&[1, 2, 3, 4])).unwrap().0, set(&[2, 4]));
        // Phase 2 made 2 and 4 satisfied; no new relevance: phase 3, relevant first.
        assert_eq!(p.next(&set(&[1, 3])).unwrap().0, set(&[1]));
        assert_eq!(p.next(&set(&[3])).unwrap().0, set(&[3]));
        assert!(p.next(&set(&[3])).is_none());
    }

    #[test]
    fn s3_phase_two_that_learns_nothing_moves_on() {
        let mut p = Planner::new(Strategy::S3, StrategyConfig::default());
        p.next(&set(&[1, 2, 3])).unwrap();
        p.observe_relevant(&set(&[1]));
        assert_eq!(p.next(&set(&[1, 2, 3])).unwrap().0, set(&[2, 3]));
        // Budget ran out in phase 2 without new relevance: go one by one,
        // relevant first, then the others.
        assert_eq!(p.next(&set(&[1, 2, 3])).unwrap().0, set(&[1]));
        assert_eq!(p.next(&set(&[2, 3])).unwrap().0, set(&[2]));
        assert_eq!(p.next(&set(&[3])).unwrap().0, set(&[3]));
    }

    #[test]
    fn only_a_joint_run_under_s1_to_s4_leaves_given_up_properties_for_later() {
        let p = Planner::<u32>::new(Strategy::S0, StrategyConfig::default());
        assert!(!p.retries_given_up(&set(&[1, 2])));
        for s in [Strategy::S1, Strategy::S2, Strategy::S3, Strategy::S4] {
            let p = Planner::<u32>::new(s, StrategyConfig::default());
            assert!(p.retries_given_up(&set(&[1, 2])));
            assert!(!p.retries_given_up(&set(&[1])), "alone is the last try");
        }
    }

    #[test]
    fn scaled_config_divides_the_total() {
        let c = StrategyConfig::scaled(Duration::from_secs(60), 6);
        assert_eq!(c.phase_budget, Duration::from_secs(10));
    }
}
