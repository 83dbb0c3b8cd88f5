//! Reachability of the properties' error states under the explicit-value
//! abstraction: the CPA algorithm over the LOOM composite (location × call
//! stack × specification automata) with constant values of integer
//! variables, all properties in one run, continuing after each target.
//!
//! The abstraction over-approximates every execution, so a target location
//! that is not reached proves its property (TRUE). A reached one proves
//! nothing (values it does not know may make the path infeasible): the
//! property stays UNKNOWN until the predicate analysis decides it. This is
//! the cheap first stage of verification; it never answers FALSE.

use std::time::Duration;

use crate::algorithm::cpa_algorithm::{run, Outcome, Reached, WaitlistOrder};
use crate::algorithm::sdc::thread_cpu_time;
use crate::cfa::Program;
use crate::cpa::composite::MergePolicy;
use crate::cpa::loom::{LoomCpa, LoomGoal, LoomPrecision, LoomProperty};
use crate::cpa::value::ValueCpa;
use crate::cpa::Cpa;
use crate::report::{PropertyResult, Verdict};
use crate::spec::bound::BoundAutomaton;
use crate::spec::{relevance, Goal, Property, PropertyId, PropertySet};

/// Limits of one reachability run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Analysis CPU time.
    pub cpu: Option<Duration>,
    /// Reached states (a guard against call-context explosion).
    pub max_states: usize,
}

/// Statistics of a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunStats {
    pub states: usize,
    pub transitions: u64,
    pub cpu: Duration,
}

pub const REACHABLE: &str =
    "error reachable under the explicit-value abstraction (the predicate analysis decides it)";

pub const UNREACHABLE: &str = "error unreachable under the explicit-value abstraction";

/// What one exploration under explicit values found.
#[derive(Clone, Debug, Default)]
pub struct Exploration {
    /// Properties whose error state or location was reached.
    pub hit: PropertySet,
    /// Whether the fixed point was reached (no limit stopped it): every
    /// enabled property not in `hit` is then proved.
    pub complete: bool,
    /// Whether the state limit (not the time limit) stopped it.
    pub state_limit: bool,
    pub stats: RunStats,
    /// Automaton transitions taken per property id.
    pub transitions_taken: Vec<u64>,
}

/// Explores the LOOM composite of `automata` under explicit values with
/// the `enabled` properties, continuing after each target; a property is
/// disabled once its error is reached.
pub fn explore(
    program: &Program,
    automata: &[BoundAutomaton],
    properties: &[LoomProperty],
    enabled: &PropertySet,
    limits: Limits,
) -> Exploration {
    let started = thread_cpu_time();
    let mut out = Exploration::default();
    let cpa = LoomCpa::new(
        program,
        automata,
        properties.to_vec(),
        ValueCpa::new(program),
        MergePolicy::LoopHeads,
    );
    let start = program.start.expect("a program has a start");
    let mut open = enabled.clone();
    let mut reached = Reached::new(
        &cpa,
        cpa.initial_state(start),
        LoomPrecision {
            enabled: open.clone(),
            data: (),
        },
        WaitlistOrder::DepthFirst,
    );
    let mut polls = 0u32;
    loop {
        let mut interrupt = |size: usize| {
            polls += 1;
            size > limits.max_states
                || (polls.is_multiple_of(64)
                    && limits
                        .cpu
                        .is_some_and(|c| thread_cpu_time().saturating_sub(started) >= c))
        };
        match run(
            &cpa,
            &mut reached,
            &mut out.stats.transitions,
            &mut interrupt,
        ) {
            Outcome::Target(n) => {
                let v: PropertySet = reached.nodes[n]
                    .state
                    .violated
                    .iter()
                    .filter(|p| open.contains(*p))
                    .collect();
                for p in v.iter() {
                    out.hit.insert(p);
                }
                open = open.difference(&v);
                reached.adjust_waitlist_precisions(|pr| pr.enabled = pr.enabled.difference(&v));
                if open.is_empty() {
                    break;
                }
            }
            Outcome::Done => {
                out.complete = true;
                break;
            }
            Outcome::Interrupted => {
                out.state_limit = reached.nodes.len() > limits.max_states;
                break;
            }
        }
    }
    if open.is_empty() {
        // Every enabled property was hit: nothing is left to prove.
        out.complete = true;
    }
    out.stats.states = reached.nodes.len();
    out.stats.cpu = thread_cpu_time().saturating_sub(started);
    out.transitions_taken = cpa.transitions_taken.borrow().clone();
    out
}

/// Decides what reachability under explicit values can decide for each
/// label property.
pub fn check(
    program: &Program,
    properties: &[Property],
    limits: Limits,
) -> (Vec<PropertyResult>, RunStats) {
    let relevant: Vec<bool> = properties
        .iter()
        .map(|p| relevance::is_relevant(program, p))
        .collect();
    let loom: Vec<LoomProperty> = properties
        .iter()
        .zip(&relevant)
        .enumerate()
        .filter_map(|(i, (p, r))| match (&p.goal, r) {
            (Goal::Label(l), true) => Some(LoomProperty {
                id: PropertyId(i as u32),
                goal: LoomGoal::Label(l.clone()),
            }),
            _ => None,
        })
        .collect();
    let enabled: PropertySet = loom.iter().map(|p| p.id).collect();
    let ex = if loom.is_empty() {
        Exploration {
            complete: true,
            ..Exploration::default()
        }
    } else {
        explore(program, &[], &loom, &enabled, limits)
    };
    let stats = ex.stats;
    let results = properties
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let hit = ex.hit.contains(PropertyId(i as u32));
            let (verdict, reason) = match (&p.goal, relevant[i]) {
                (_, false) => (
                    Verdict::True,
                    Some("irrelevant: no CFA edge matches the property".to_string()),
                ),
                (Goal::Call(_) | Goal::Rule { .. }, true) => (
                    Verdict::Unknown,
                    Some("only label properties are checked here".into()),
                ),
                (Goal::Label(_), true) if hit => (Verdict::Unknown, Some(REACHABLE.into())),
                (Goal::Label(_), true) if !ex.complete => {
                    let why = if ex.state_limit {
                        "state limit of the reachability analysis"
                    } else {
                        "timeout"
                    };
                    (Verdict::Unknown, Some(why.into()))
                }
                (Goal::Label(_), true) => (Verdict::True, Some(UNREACHABLE.into())),
            };
            PropertyResult {
                id: p.id.clone(),
                verdict,
                reason,
                relevant: relevant[i],
                cpu_s: stats.cpu.as_secs_f64(),
                counterexample: None,
            }
        })
        .collect();
    (results, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{parse_source, FrontendOptions};
    use crate::spec::prp;

    #[test]
    fn unreachable_labels_are_proved_reachable_ones_stay_unknown() {
        let src = "void ldv_error(void) { LDV_ERROR: goto LDV_ERROR; } void never(void) { ERROR: ; } int main(int x) { if (x) ldv_error(); return 0; }";
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let props = prp::parse("a.prp", "CHECK( init(main()), LTL(G ! label(LDV_ERROR)) )\nCHECK( init(main()), LTL(G ! label(ERROR)) )\nCHECK( init(main()), LTL(G ! label(NONE)) )").unwrap();
        let (r, stats) = check(
            &p,
            &props,
            Limits {
                cpu: None,
                max_states: 10_000,
            },
        );
        assert_eq!(
            r[0].verdict,
            Verdict::Unknown,
            "LDV_ERROR is reachable through ldv_error()"
        );
        assert_eq!(r[1].verdict, Verdict::True, "never() is never called");
        assert!(r[1].relevant);
        assert_eq!(r[2].verdict, Verdict::True);
        assert!(!r[2].relevant);
        assert!(stats.states > 0);
    }

    #[test]
    fn the_state_limit_gives_unknown_not_true() {
        let src = "void never(void) { ERROR: ; } void f(void) {} int main(void) { f(); f(); f(); f(); return 0; }";
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let props = prp::parse("a.prp", "CHECK( init(main()), LTL(G ! label(ERROR)) )").unwrap();
        let (r, _) = check(
            &p,
            &props,
            Limits {
                cpu: None,
                max_states: 3,
            },
        );
        assert_eq!(r[0].verdict, Verdict::Unknown);
        assert_eq!(
            r[0].reason.as_deref(),
            Some("state limit of the reachability analysis")
        );
    }
}
