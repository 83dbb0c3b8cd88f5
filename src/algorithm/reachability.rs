//! Reachability of the properties' error states under the explicit-value
//! abstraction: the CPA algorithm over the LOOM composite with one state
//! per program state and a set of configurations per automaton
//! ([`LoomSetsCpa`]), all properties in one run, continuing after each
//! target.
//!
//! The abstraction over-approximates every execution, so an error that is
//! not reached in a finished exploration proves its property. A reached one
//! proves nothing (values it does not know may make the path infeasible):
//! the predicate analysis decides it. This is the cheap first stage of each
//! analysis run ([`super::loom_analysis`]); it never answers FALSE.

use std::time::Duration;

use crate::algorithm::cpa_algorithm::{run, Outcome, Reached, WaitlistOrder};
use crate::cfa::{LocId, Program};
use crate::cpa::loom::{LoomPrecision, LoomProperty};
use crate::cpa::loom_sets::LoomSetsCpa;
use crate::cpa::value::Values;
use crate::cpa::Cpa;
use crate::smt::work::Deadline;
use crate::spec::bound::BoundAutomaton;
use crate::spec::PropertySet;

/// Limits of one reachability run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The exploration's budget, in nominal seconds of work.
    pub work: Option<Duration>,
    /// Reached states (a guard against call-context explosion).
    pub max_states: usize,
}

/// Statistics of a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunStats {
    pub states: usize,
    pub transitions: u64,
}

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
    /// Of a complete exploration that proves something, with `loop_heads`
    /// asked for: the location and program values of every state at a
    /// loop head.
    pub loop_heads: Vec<(LocId, Values)>,
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
    loop_heads: bool,
) -> Exploration {
    let mut out = Exploration::default();
    let cpa = LoomSetsCpa::new(program, automata, properties.to_vec());
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
    let deadline = Deadline::within(limits.work);
    let mut polls = 0u32;
    loop {
        let mut interrupt = |size: usize| {
            polls += 1;
            size > limits.max_states || (polls.is_multiple_of(64) && deadline.passed())
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
    // A merge may add an error configuration to a state that already was
    // a target: every state's violations count.
    for node in &reached.nodes {
        for p in node.state.violated.iter() {
            if open.contains(p) {
                out.hit.insert(p);
                open.remove(p);
            }
        }
    }
    if open.is_empty() {
        // Every enabled property was hit: nothing is left to prove.
        out.complete = true;
    } else if out.complete && loop_heads {
        out.loop_heads = reached
            .nodes
            .iter()
            .filter(|n| program.loc(n.state.loc).loop_head)
            .map(|n| (n.state.loc, n.state.program.clone()))
            .collect();
    }
    out.stats.states = reached.nodes.len();
    out.transitions_taken = cpa.weaving.transitions_taken.borrow().clone();
    out
}

/// Explores `program` for error labels alone (no automata): property `i`
/// is `labels[i]`, every one enabled (for tests of the explicit stage).
#[cfg(test)]
pub(crate) fn explore_labels(program: &Program, labels: &[&str], limits: Limits) -> Exploration {
    use crate::cpa::loom::LoomGoal;
    use crate::spec::PropertyId;
    let props: Vec<LoomProperty> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| LoomProperty {
            id: PropertyId(i as u32),
            goal: LoomGoal::Label(l.to_string()),
        })
        .collect();
    let enabled: PropertySet = props.iter().map(|p| p.id).collect();
    explore(program, &[], &props, &enabled, limits, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{parse_source, FrontendOptions};
    use crate::spec::PropertyId;

    #[test]
    fn unreachable_labels_are_proved_reachable_ones_stay_unknown() {
        let src = "void ldv_error(void) { LDV_ERROR: goto LDV_ERROR; } void never(void) { ERROR: ; } int main(int x) { if (x) ldv_error(); return 0; }";
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let ex = explore_labels(
            &p,
            &["LDV_ERROR", "ERROR", "NONE"],
            Limits {
                work: None,
                max_states: 10_000,
            },
        );
        assert!(ex.complete);
        assert!(
            ex.hit.contains(PropertyId(0)),
            "LDV_ERROR is reachable through ldv_error()"
        );
        assert!(!ex.hit.contains(PropertyId(1)), "never() is never called");
        assert!(!ex.hit.contains(PropertyId(2)));
        assert!(ex.stats.states > 0);
    }

    #[test]
    fn a_target_does_not_hide_the_other_successors_of_its_step() {
        // `f()` moves the automaton to `a`'s error or on to `J`, where `g()`
        // violates `b`: finding `a`'s error first must not lose `J`.
        let rule = r#"
            rule "a" "f fails at once";
            rule "b" "or g fails later";
            initial I;
            error E of "a" "e";
            error F of "b" "f";
            state I { on f() -> E; on f() -> J; }
            state J { on g() -> F; }"#;
        let src = "void f(void); void g(void); int main(void) { f(); g(); return 0; }";
        let mut p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let automata = vec![crate::spec::automaton::from_text("ab.spec", rule)
            .unwrap()
            .bind(&mut p)];
        let props: Vec<LoomProperty> = (0..2)
            .map(|i| LoomProperty {
                id: PropertyId(i),
                goal: crate::cpa::loom::LoomGoal::Automaton {
                    automaton: 0,
                    property: i as usize,
                },
            })
            .collect();
        let enabled: PropertySet = props.iter().map(|p| p.id).collect();
        let limits = Limits {
            work: None,
            max_states: 1000,
        };
        let ex = explore(&p, &automata, &props, &enabled, limits, false);
        assert!(ex.complete);
        assert!(ex.hit.contains(PropertyId(0)));
        assert!(ex.hit.contains(PropertyId(1)), "b's error is reachable");
    }

    #[test]
    fn the_state_limit_gives_unknown_not_true() {
        let src = "void never(void) { ERROR: ; } void f(void) {} int main(void) { f(); f(); f(); f(); return 0; }";
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let ex = explore_labels(
            &p,
            &["ERROR"],
            Limits {
                work: None,
                max_states: 3,
            },
        );
        assert!(!ex.complete, "no proof from an unfinished exploration");
        assert!(ex.state_limit);
    }
}
