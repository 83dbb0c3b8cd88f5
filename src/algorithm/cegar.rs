//! CEGAR alone for one error label: the [`LoomAnalysis`] without its
//! explicit-value stage, as one S0 partition. Used to test the predicate
//! analysis and its refinement in isolation; `mpv verify` runs the whole
//! pipeline ([`super::verify`]).

use std::collections::BTreeSet;
use std::time::Duration;

use crate::algorithm::loom_analysis::LoomAnalysis;
use crate::algorithm::sdc::{self, CpuClock, Outcome, Strategy, StrategyConfig, UnknownReason};
use crate::cfa::Program;
use crate::cpa::loom::{LoomGoal, LoomProperty};
use crate::report::{Counterexample, Verdict};
use crate::spec::PropertyId;

/// Limits of one CEGAR run.
#[derive(Clone, Copy, Debug)]
pub struct CegarLimits {
    pub cpu: Option<Duration>,
    pub max_refinements: u64,
}

#[derive(Clone, Debug, Default)]
pub struct CegarStats {
    pub refinements: u64,
    pub predicates: usize,
    pub states: usize,
    pub transitions: u64,
    pub solver_calls: u64,
    pub solver_s: f64,
}

pub struct CegarResult {
    pub verdict: Verdict,
    pub reason: Option<String>,
    pub counterexample: Option<Counterexample>,
    pub stats: CegarStats,
}

pub use crate::util::tracing;

/// Decides whether a location labelled `label` is reachable, by predicate
/// abstraction with CEGAR only.
pub fn check_label(program: &Program, label: &str, limits: CegarLimits) -> CegarResult {
    check_label_with(program, label, limits, false)
}

/// [`check_label`] with LDV's assumptions in force throughout
/// ([`LoomAnalysis::under_ldv_assumptions`]): FALSE with the assumptions
/// the counterexample needs, or UNKNOWN; never TRUE.
pub fn check_label_under_ldv_assumptions(
    program: &Program,
    label: &str,
    limits: CegarLimits,
) -> CegarResult {
    check_label_with(program, label, limits, true)
}

fn check_label_with(
    program: &Program,
    label: &str,
    limits: CegarLimits,
    under_ldv_assumptions: bool,
) -> CegarResult {
    let property = LoomProperty {
        id: PropertyId(0),
        goal: LoomGoal::Label(label.to_string()),
    };
    let mut analysis =
        LoomAnalysis::new(program, &[], vec![property], vec![format!("label:{label}")]);
    analysis.use_explicit_values = false;
    analysis.under_ldv_assumptions = under_ldv_assumptions;
    analysis.max_refinements = limits.max_refinements;
    let ids: BTreeSet<PropertyId> = [PropertyId(0)].into();
    let r = sdc::sdc(
        &mut analysis,
        &ids,
        Strategy::S0,
        StrategyConfig::default(),
        limits.cpu,
        &CpuClock,
    );
    let (verdict, reason, counterexample) = match r.outcomes.get(&PropertyId(0)) {
        Some(Outcome::Satisfied) => (Verdict::True, None, None),
        Some(Outcome::Violated(c)) => (Verdict::False, None, Some(c.clone())),
        Some(Outcome::Unknown(why)) => (Verdict::Unknown, Some(why.to_string()), None),
        None => (
            Verdict::Unknown,
            Some(UnknownReason::Timeout.to_string()),
            None,
        ),
    };
    let w = &analysis.work;
    CegarResult {
        verdict,
        reason,
        counterexample,
        stats: CegarStats {
            refinements: w.refinements,
            predicates: w.predicates,
            states: w.states,
            transitions: w.transitions,
            solver_calls: w.solver_calls,
            solver_s: w.solver_s,
        },
    }
}
