//! Reachability of the properties' error locations under the explicit-value
//! abstraction: the CPA algorithm over location × call stack × constant
//! values of integer variables, all properties in one run, continuing after
//! each target.
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
use crate::cpa::composite::CompositeCpa;
use crate::cpa::value::ValueCpa;
use crate::report::{PropertyResult, Verdict};
use crate::spec::{relevance, Goal, Property};

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
    "error location reachable under the explicit-value abstraction; deciding it needs the predicate analysis, which this build does not have";

/// Decides what reachability under explicit values can decide for each property.
pub fn check(
    program: &Program,
    properties: &[Property],
    limits: Limits,
) -> (Vec<PropertyResult>, RunStats) {
    let started = thread_cpu_time();
    let relevant: Vec<bool> = properties
        .iter()
        .map(|p| relevance::is_relevant(program, p))
        .collect();
    let labels: Vec<String> = properties
        .iter()
        .zip(&relevant)
        .filter_map(|(p, r)| match (&p.goal, r) {
            (Goal::Label(l), true) => Some(l.clone()),
            _ => None,
        })
        .collect();
    let mut hit = vec![false; properties.len()];
    let mut stats = RunStats::default();
    let mut interrupted = false;
    if !labels.is_empty() {
        let cpa = CompositeCpa::new(program, ValueCpa::new(program), labels);
        let start = program.start.expect("a program has a start");
        let mut reached = Reached::start(&cpa, start, WaitlistOrder::DepthFirst);
        let mut polls = 0u32;
        loop {
            let mut interrupt = |size: usize| {
                polls += 1;
                if size > limits.max_states {
                    return true;
                }
                polls.is_multiple_of(64)
                    && limits
                        .cpu
                        .is_some_and(|c| thread_cpu_time().saturating_sub(started) >= c)
            };
            match run(&cpa, &mut reached, &mut stats.transitions, &mut interrupt) {
                Outcome::Target(n) => {
                    let loc = program.loc(reached.nodes[n].state.loc);
                    for (i, p) in properties.iter().enumerate() {
                        if matches!(&p.goal, Goal::Label(l) if loc.labels.contains(l)) {
                            hit[i] = true;
                        }
                    }
                    if reached.nodes.len() > limits.max_states {
                        interrupted = true;
                        break;
                    }
                }
                Outcome::Done => break,
                Outcome::Interrupted => {
                    interrupted = true;
                    break;
                }
            }
        }
        stats.states = reached.nodes.len();
    }
    stats.cpu = thread_cpu_time().saturating_sub(started);
    let results = properties
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (verdict, reason) = match (&p.goal, relevant[i]) {
                (_, false) => (Verdict::True, Some("irrelevant: no CFA edge matches the property".to_string())),
                (Goal::Call(_), true) => (Verdict::Unknown, Some("call properties need the specification analysis, which this build does not have".into())),
                (Goal::Label(_), true) if hit[i] => (Verdict::Unknown, Some(REACHABLE.into())),
                (Goal::Label(_), true) if interrupted => {
                    let why = if limits.cpu.is_some_and(|c| stats.cpu >= c) { "timeout" } else { "state limit of the reachability analysis" };
                    (Verdict::Unknown, Some(why.into()))
                }
                (Goal::Label(_), true) => (Verdict::True, Some("error location unreachable under the explicit-value abstraction".into())),
            };
            PropertyResult { id: p.id.clone(), verdict, reason, relevant: relevant[i], cpu_s: stats.cpu.as_secs_f64(), counterexample: None }
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
