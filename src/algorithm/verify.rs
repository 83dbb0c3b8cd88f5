//! The verification pipeline for error-label properties, from cheap to
//! precise:
//! 1. reachability under explicit values ([`super::reachability`]), with a
//!    fifth of the time: an unreachable error location is TRUE;
//! 2. predicate abstraction with CEGAR ([`super::cegar`]) with the time left:
//!    TRUE, FALSE with a counterexample, or UNKNOWN;
//! 3. bounded symbolic execution ([`super::symexec`]) where CEGAR gave up for
//!    a reason other than time (imprecise refinement, over-approximated
//!    error path) and time is left.

use std::time::Duration;

use crate::algorithm::cegar::{self, CegarLimits};
use crate::algorithm::reachability::{self, Limits};
use crate::algorithm::sdc::thread_cpu_time;
use crate::algorithm::symexec;
use crate::cfa::Program;
use crate::report::{PropertyResult, Verdict};
use crate::spec::{Goal, Property};

pub const ANALYSIS: &str = "reachability under explicit values, then predicate abstraction with large-block encoding and CEGAR (Z3 bit-vectors), then bounded symbolic execution";

/// Share of the time limit for the explicit-value stage.
const REACHABILITY_SHARE: f64 = 0.2;

#[derive(Clone, Copy, Debug)]
pub struct VerifyLimits {
    /// Analysis CPU time for all properties together.
    pub cpu: Option<Duration>,
    /// Reached states per analysis run.
    pub max_states: usize,
}

/// What the analyses did, summed over stages and properties.
#[derive(Clone, Debug, Default)]
pub struct Work {
    pub cpu: Duration,
    pub states: usize,
    pub transitions: u64,
    pub refinements: u64,
    pub solver_calls: u64,
    pub solver_s: f64,
}

/// One result per property (in order).
pub fn verify_labels(
    program: &Program,
    props: &[Property],
    limits: VerifyLimits,
) -> (Vec<PropertyResult>, Work) {
    let t0 = thread_cpu_time();
    let left = || {
        limits
            .cpu
            .map(|c| c.saturating_sub(thread_cpu_time().saturating_sub(t0)))
    };
    let (mut results, rs) = reachability::check(
        program,
        props,
        Limits {
            cpu: limits.cpu.map(|c| c.mul_f64(REACHABILITY_SHARE)),
            max_states: limits.max_states.min(200_000),
        },
    );
    let mut work = Work {
        states: rs.states,
        transitions: rs.transitions,
        ..Work::default()
    };
    for (r, p) in results.iter_mut().zip(props) {
        let Goal::Label(label) = &p.goal else {
            continue;
        };
        if r.verdict != Verdict::Unknown || !r.relevant {
            continue;
        }
        let cg = cegar::check_label(
            program,
            label,
            CegarLimits {
                cpu: left(),
                max_states: limits.max_states,
                max_refinements: 200,
            },
        );
        work.states = work.states.max(cg.stats.states);
        work.transitions += cg.stats.transitions;
        work.refinements += cg.stats.refinements;
        work.solver_calls += cg.stats.solver_calls;
        work.solver_s += cg.stats.solver_s;
        r.cpu_s += cg.stats.cpu.as_secs_f64();
        r.verdict = cg.verdict;
        r.reason = cg.reason;
        r.counterexample = cg.counterexample;
        if cegar::tracing() {
            eprintln!(
                "cegar: {label}: {:?} {}",
                r.verdict,
                r.reason.as_deref().unwrap_or("")
            );
        }
        let timed_out = r.reason.as_deref() == Some(cegar::TIMEOUT);
        if r.verdict == Verdict::Unknown && !timed_out && left().is_none_or(|l| !l.is_zero()) {
            let se = symexec::check_label(program, label, left());
            work.transitions += se.stats.transitions;
            work.solver_calls += se.stats.solver_calls;
            work.solver_s += se.stats.solver_s;
            r.cpu_s += se.stats.cpu.as_secs_f64();
            if se.verdict != Verdict::Unknown {
                r.verdict = se.verdict;
                r.reason = se.reason;
                r.counterexample = se.counterexample;
            }
        }
    }
    work.cpu = thread_cpu_time().saturating_sub(t0);
    (results, work)
}
