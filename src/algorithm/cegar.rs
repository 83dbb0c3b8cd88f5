//! CEGAR with the predicate analysis: run the CPA algorithm over location ×
//! call stack × predicates (large-block encoding); at an abstract error
//! state, check the path exactly ([`super::refine`]); report FALSE for a
//! real path, otherwise add the predicates refinement found and start again
//! with the larger precision. TRUE when the fixed point has no error state
//! and every step explored over-approximated the program.

use std::rc::Rc;
use std::time::Duration;

use crate::algorithm::cpa_algorithm::{run, Outcome, Reached, WaitlistOrder};
use crate::algorithm::refine::{check_path, PathCheck};
use crate::algorithm::sdc::thread_cpu_time;
use crate::cfa::Program;
use crate::cpa::composite::{target_locations, CompositeCpa, MergePolicy};
use crate::cpa::predicate::abstraction::Predicates;
use crate::cpa::predicate::PredicateCpa;
use crate::report::{Counterexample, Verdict};

/// Limits of one CEGAR run.
#[derive(Clone, Copy, Debug)]
pub struct CegarLimits {
    pub cpu: Option<Duration>,
    pub max_states: usize,
    pub max_refinements: u32,
}

#[derive(Clone, Debug, Default)]
pub struct CegarStats {
    pub refinements: u64,
    pub predicates: usize,
    pub states: usize,
    pub transitions: u64,
    pub abstractions: u64,
    pub solver_calls: u64,
    pub solver_s: f64,
    pub cpu: Duration,
}

pub struct CegarResult {
    pub verdict: Verdict,
    pub reason: Option<String>,
    pub counterexample: Option<Counterexample>,
    pub stats: CegarStats,
}

pub const TIMEOUT: &str = "timeout";

/// Whether `MPV_TRACE_CEGAR` asks for a trace of the iterations on standard
/// error (read once).
pub fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("MPV_TRACE_CEGAR").is_some())
}

/// Decides whether a location labelled `label` is reachable.
pub fn check_label(program: &Program, label: &str, limits: CegarLimits) -> CegarResult {
    let started = thread_cpu_time();
    let deadline = limits.cpu.map(|c| started + c);
    let targets = target_locations(program, &[label.to_string()]);
    let property = format!("label:{label}");
    let mut preds = Predicates::default();
    let mut stats = CegarStats::default();
    // Whether every block's satisfiability is decided (turned on when a
    // refinement finds no predicate: the path is then infeasible inside a
    // block that was not checked).
    let mut check_blocks = false;
    let start = program.start.expect("a program has a start");
    let finish = |verdict, reason: Option<String>, cex, mut stats: CegarStats| {
        stats.cpu = thread_cpu_time().saturating_sub(started);
        CegarResult {
            verdict,
            reason,
            counterexample: cex,
            stats,
        }
    };
    loop {
        let mut data = PredicateCpa::new(program, &targets, Rc::new(preds.clone()), deadline);
        data.check_blocks = check_blocks;
        let cpa =
            CompositeCpa::with_merge(program, data, vec![label.to_string()], MergePolicy::Data);
        let mut reached = Reached::start(&cpa, start, WaitlistOrder::Priority);
        let mut polls = 0u32;
        let mut interrupt = |size: usize| {
            polls += 1;
            size > limits.max_states
                || (polls.is_multiple_of(32) && deadline.is_some_and(|d| thread_cpu_time() >= d))
        };
        let outcome = run(&cpa, &mut reached, &mut stats.transitions, &mut interrupt);
        stats.states = stats.states.max(reached.nodes.len());
        let a = cpa.data.abstraction_stats();
        stats.abstractions += a.abstractions;
        stats.solver_calls += a.solver_calls;
        stats.solver_s += a.solver_time.as_secs_f64();
        stats.predicates = preds.len();
        if tracing() {
            eprintln!(
                "cegar: iteration {} predicates {} states {} abstractions {} solver {:.2}s cpu {:.2}s outcome {:?}",
                stats.refinements,
                preds.len(),
                reached.nodes.len(),
                a.abstractions,
                a.solver_time.as_secs_f64(),
                thread_cpu_time().saturating_sub(started).as_secs_f64(),
                outcome
            );
        }
        match outcome {
            Outcome::Done => {
                return if cpa.data.unsound.get() {
                    finish(
                        Verdict::Unknown,
                        Some("no error state reached, but the analysis used a step that is not an over-approximation (a recursive call, an array parameter, or a write or aggregate copy without a known address)".into()),
                        None,
                        stats,
                    )
                } else {
                    finish(
                        Verdict::True,
                        Some(format!(
                            "predicate abstraction: fixed point without error state ({} predicates, {} refinements)",
                            preds.len(),
                            stats.refinements
                        )),
                        None,
                        stats,
                    )
                };
            }
            Outcome::Interrupted => {
                let why = if reached.nodes.len() > limits.max_states {
                    format!("state limit {} reached", limits.max_states)
                } else {
                    TIMEOUT.to_string()
                };
                return finish(Verdict::Unknown, Some(why), None, stats);
            }
            Outcome::Target(n) => {
                let trace = reached.nodes[n].state.data.trace.clone();
                match check_path(&cpa.data.enc, program, &trace, &property, deadline) {
                    PathCheck::Feasible(cex) => {
                        return finish(Verdict::False, None, Some(cex), stats);
                    }
                    PathCheck::Imprecise(first) => {
                        let why = match first {
                            Some(op) => format!("the error path found is feasible only through over-approximated operations (first: {op})"),
                            None => "the error path found is feasible only through over-approximated operations".into(),
                        };
                        return finish(Verdict::Unknown, Some(why), None, stats);
                    }
                    PathCheck::Unknown => {
                        return finish(Verdict::Unknown, Some(TIMEOUT.into()), None, stats);
                    }
                    PathCheck::Infeasible(candidates) => {
                        stats.refinements += 1;
                        let before = preds.len();
                        for c in candidates {
                            if tracing() {
                                eprintln!("cegar: candidate predicate {c:?}");
                            }
                            preds.add(c);
                        }
                        if preds.len() == before && !check_blocks {
                            check_blocks = true;
                        } else if preds.len() == before {
                            return finish(
                                Verdict::Unknown,
                                Some("refinement found no new predicate for an infeasible error path".into()),
                                None,
                                stats,
                            );
                        }
                        if stats.refinements >= limits.max_refinements as u64 {
                            return finish(
                                Verdict::Unknown,
                                Some(format!("{} refinements", stats.refinements)),
                                None,
                                stats,
                            );
                        }
                    }
                }
            }
        }
    }
}
