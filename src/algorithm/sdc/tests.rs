//! SDC against a scripted analysis on a manual clock.

use super::*;

/// What the scripted analysis knows about one property.
#[derive(Clone, Copy)]
struct Script {
    /// seconds needed to verify it (shared partitions add these up).
    cost: u64,
    violated: bool,
    relevant: bool,
    /// Refinements it causes.
    refinements: u64,
    /// The analysis gives it up when other properties are enabled beside it.
    given_up_jointly: bool,
}

struct Scripted<'c> {
    props: BTreeMap<u32, Script>,
    clock: &'c ManualClock,
    enabled: BTreeSet<u32>,
    dropped: BTreeSet<u32>,
    reported: BTreeSet<u32>,
    finished: bool,
    restarts: Vec<BTreeSet<u32>>,
}

impl<'c> Scripted<'c> {
    fn new(clock: &'c ManualClock, props: &[(u32, Script)]) -> Self {
        Scripted {
            props: props.iter().copied().collect(),
            clock,
            enabled: BTreeSet::new(),
            dropped: BTreeSet::new(),
            reported: BTreeSet::new(),
            finished: false,
            restarts: Vec::new(),
        }
    }
}

impl Analysis for Scripted<'_> {
    type Property = u32;
    type Counterexample = String;

    fn restart(&mut self, enabled: &BTreeSet<u32>) {
        self.enabled = enabled.clone();
        self.dropped.clear();
        self.reported.clear();
        self.finished = false;
        self.restarts.push(enabled.clone());
    }

    fn analyze(
        &mut self,
        budget: &Budget,
        monitor: &mut Monitor<u32>,
        clock: &dyn Clock,
    ) -> RunReport<u32, String> {
        let mut report = RunReport::default();
        for (&p, s) in &self.props {
            if self.enabled.contains(&p) && s.relevant {
                monitor.record_transition([p]);
            }
        }
        if self.enabled.len() > 1 {
            for (&p, s) in &self.props {
                if self.enabled.contains(&p) && s.given_up_jointly && self.reported.insert(p) {
                    report.given_up.push((p, format!("path of {p} imprecise")));
                }
            }
            if !report.given_up.is_empty() {
                return report;
            }
        }
        for (&p, s) in &self.props {
            if self.enabled.contains(&p) && s.violated && self.reported.insert(p) {
                self.clock.advance(Duration::from_secs(1));
                report.counterexamples.push(([p].into(), format!("cex{p}")));
                return report;
            }
        }
        for (&p, s) in &self.props {
            if self.enabled.contains(&p) {
                for _ in 0..s.refinements {
                    monitor.record_refinement([p], Duration::ZERO);
                }
            }
        }
        let enabled = self.enabled.clone();
        for &p in &enabled {
            if budget.exceeds(p, &enabled, monitor) {
                self.enabled.remove(&p);
                self.dropped.insert(p);
            }
        }
        let need: u64 = self.enabled.iter().map(|p| self.props[p].cost).sum();
        let left = budget
            .work
            .map(|c| c.saturating_sub(monitor.analysis_work(clock)));
        match left {
            Some(l) if l < Duration::from_secs(need) => {
                self.clock.advance(l);
                self.finished = false;
            }
            _ => {
                self.clock.advance(Duration::from_secs(need));
                self.finished = true;
            }
        }
        report
    }

    fn finished(&self) -> bool {
        self.finished
    }

    fn disable(&mut self, props: &BTreeSet<u32>) {
        for p in props {
            self.enabled.remove(p);
        }
    }

    fn active(&self) -> BTreeSet<u32> {
        self.enabled.clone()
    }
}

const SAFE: Script = Script {
    cost: 10,
    violated: false,
    relevant: true,
    refinements: 1,
    given_up_jointly: false,
};

fn verdicts(r: &SdcResult<u32, String>) -> Vec<(u32, String)> {
    r.outcomes
        .iter()
        .map(|(p, o)| {
            let v = match o {
                Outcome::Satisfied => "true".to_string(),
                Outcome::Violated(c) => format!("false:{c}"),
                Outcome::Unknown(reason) => format!("unknown:{reason}"),
            };
            (*p, v)
        })
        .collect()
}

fn all(props: &[(u32, Script)]) -> BTreeSet<u32> {
    props.iter().map(|(p, _)| *p).collect()
}

#[test]
fn s0_verifies_all_in_one_partition_and_continues_after_a_violation() {
    let clock = ManualClock::default();
    let props = [
        (1, SAFE),
        (
            2,
            Script {
                violated: true,
                ..SAFE
            },
        ),
        (3, SAFE),
    ];
    let mut a = Scripted::new(&clock, &props);
    let r = sdc(
        &mut a,
        &all(&props),
        Strategy::S0,
        StrategyConfig::default(),
        None,
        &clock,
    );
    assert_eq!(
        verdicts(&r),
        vec![
            (1, "true".into()),
            (2, "false:cex2".into()),
            (3, "true".into())
        ]
    );
    assert_eq!(r.partitions.len(), 1);
    assert_eq!(a.restarts, vec![all(&props)]);
}

#[test]
fn s1_falls_back_to_one_by_one_and_resigns_what_is_too_hard_alone() {
    let clock = ManualClock::default();
    let hard = Script { cost: 2000, ..SAFE };
    let props = [(1, SAFE), (2, hard), (3, SAFE)];
    let mut a = Scripted::new(&clock, &props);
    let r = sdc(
        &mut a,
        &all(&props),
        Strategy::S1,
        StrategyConfig::default(),
        None,
        &clock,
    );
    assert_eq!(
        verdicts(&r),
        vec![
            (1, "true".into()),
            (2, "unknown:resigned: budget exhausted (S1)".into()),
            (3, "true".into())
        ]
    );
    let sizes: Vec<usize> = r.partitions.iter().map(|p| p.properties.len()).collect();
    assert_eq!(sizes, vec![3, 1, 1, 1]);
}

#[test]
fn the_overall_limit_ends_open_properties_as_timeout() {
    let clock = ManualClock::default();
    let props = [(1, SAFE), (2, Script { cost: 2000, ..SAFE })];
    let mut a = Scripted::new(&clock, &props);
    let r = sdc(
        &mut a,
        &all(&props),
        Strategy::S0,
        StrategyConfig::default(),
        Some(Duration::from_secs(60)),
        &clock,
    );
    assert_eq!(
        verdicts(&r),
        vec![(1, "unknown:timeout".into()), (2, "unknown:timeout".into())]
    );
    assert!(clock.now() <= Duration::from_secs(60));
}

#[test]
fn s2_drops_the_property_with_many_refinements_and_verifies_it_alone() {
    let clock = ManualClock::default();
    let props = [
        (1, SAFE),
        (
            2,
            Script {
                refinements: 30,
                ..SAFE
            },
        ),
        (3, SAFE),
    ];
    let mut a = Scripted::new(&clock, &props);
    let r = sdc(
        &mut a,
        &all(&props),
        Strategy::S2,
        StrategyConfig::default(),
        None,
        &clock,
    );
    assert_eq!(
        verdicts(&r),
        vec![(1, "true".into()), (2, "true".into()), (3, "true".into())]
    );
    assert_eq!(a.restarts, vec![all(&props), [2].into()]);
    // S1 has no such rule: everything is done in the first partition.
    let clock = ManualClock::default();
    let mut a = Scripted::new(&clock, &props);
    let r = sdc(
        &mut a,
        &all(&props),
        Strategy::S1,
        StrategyConfig::default(),
        None,
        &clock,
    );
    assert_eq!(r.partitions.len(), 1);
}

#[test]
fn s3_verifies_the_not_yet_relevant_properties_together() {
    let clock = ManualClock::default();
    let slow = Script { cost: 600, ..SAFE };
    let irrelevant = Script {
        cost: 1,
        relevant: false,
        ..SAFE
    };
    // Together they exceed the phase budget (600 + 600 > 900).
    let props = [(1, slow), (2, slow), (3, irrelevant), (4, irrelevant)];
    let mut a = Scripted::new(&clock, &props);
    let r = sdc(
        &mut a,
        &all(&props),
        Strategy::S3,
        StrategyConfig::default(),
        None,
        &clock,
    );
    assert!(
        verdicts(&r).iter().all(|(_, v)| v == "true"),
        "{:?}",
        verdicts(&r)
    );
    assert_eq!(
        a.restarts,
        vec![all(&props), [3, 4].into(), [1].into(), [2].into()]
    );
    assert_eq!(r.relevant, [1, 2].into());
}

#[test]
fn scaled_budgets_keep_the_paper_proportions() {
    let clock = ManualClock::default();
    let props = [(1, SAFE), (2, Script { cost: 55, ..SAFE })];
    let mut a = Scripted::new(&clock, &props);
    let config = StrategyConfig::scaled(Duration::from_secs(60), 2);
    let r = sdc(
        &mut a,
        &all(&props),
        Strategy::S1,
        config.clone(),
        Some(Duration::from_secs(90)),
        &clock,
    );
    // 10 + 55 > 30 together (30 s spent); alone, 1 fits in 30 s (40 s spent)
    // and 2 does not fit in the 50 s left (90 s spent): its own budget, the
    // time left, ran out, not the total limit.
    assert_eq!(
        verdicts(&r),
        vec![
            (1, "true".into()),
            (2, "unknown:resigned: budget exhausted (S1)".into())
        ]
    );
    // With a total of 60 s, the last run is cut by the total limit instead.
    let clock = ManualClock::default();
    let mut a = Scripted::new(&clock, &props);
    let r = sdc(
        &mut a,
        &all(&props),
        Strategy::S1,
        config,
        Some(Duration::from_secs(60)),
        &clock,
    );
    assert_eq!(
        verdicts(&r),
        vec![(1, "true".into()), (2, "unknown:timeout".into())]
    );
}

#[test]
fn baseline_verifies_each_property_alone_with_a_share_of_the_time_left() {
    let clock = ManualClock::default();
    let props = [
        (1, SAFE),
        (2, Script { cost: 500, ..SAFE }),
        (
            3,
            Script {
                violated: true,
                ..SAFE
            },
        ),
    ];
    let mut a = Scripted::new(&clock, &props);
    let r = baseline(&mut a, &all(&props), Some(Duration::from_secs(300)), &clock);
    assert_eq!(
        a.restarts,
        vec![
            BTreeSet::from([1]),
            BTreeSet::from([2]),
            BTreeSet::from([3])
        ],
        "one fresh analysis per property"
    );
    // 1 takes 10 s of its 100 s; 2 needs 500 s but gets (300 - 10) / 2 = 145 s.
    assert_eq!(r.partitions[1].budget.work, Some(Duration::from_secs(145)));
    assert_eq!(
        verdicts(&r),
        vec![
            (1, "true".into()),
            (2, "unknown:timeout".into()),
            (3, "false:cex3".into())
        ]
    );
    assert!(r.partitions.iter().all(|p| p.properties.len() == 1));
}

#[test]
fn a_property_a_joint_run_gives_up_is_tried_alone_and_keeps_its_reason_under_s0() {
    let clock = ManualClock::default();
    let tricky = Script {
        given_up_jointly: true,
        ..SAFE
    };
    let props = [(1, SAFE), (2, tricky), (3, SAFE)];
    for (strategy, verdict) in [
        (Strategy::S4, "true"),
        (Strategy::S0, "unknown:path of 2 imprecise"),
    ] {
        let mut a = Scripted::new(&clock, &props);
        let r = sdc(
            &mut a,
            &all(&props),
            strategy,
            StrategyConfig::default(),
            None,
            &clock,
        );
        assert_eq!(
            verdicts(&r),
            vec![(1, "true".into()), (2, verdict.into()), (3, "true".into())],
            "{strategy:?}"
        );
    }
}
