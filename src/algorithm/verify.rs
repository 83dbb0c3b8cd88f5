//! The verification driver: one run of `mpv verify` over a set of
//! properties (error labels of SV-COMP property files and the properties of
//! specification automata), decomposed by the SDC loop under a strategy or
//! verified one by one (`baseline`). Each run of the analysis is a
//! [`LoomAnalysis`] (explicit values, then predicate abstraction with CEGAR
//! over the LOOM composite). Properties whose error path needed an
//! over-approximated step that LDV's assumptions rule out are analysed once
//! more under those assumptions (a FALSE then lists them). Label
//! properties the predicate analysis gave up on for another reason than
//! time get a last try by bounded symbolic execution ([`super::symexec`])
//! with the time left.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::hash::HashMap;

use crate::algorithm::loom_analysis::{LoomAnalysis, LoomOptions, Progress, Work};
use crate::algorithm::sdc::{
    self, thread_cpu_time, Outcome, RefinementRule, Strategy, StrategyConfig, UnknownReason,
    WorkClock,
};
use crate::algorithm::{control_states, symexec};
use crate::cfa::{hunting, Program};
use crate::cpa::loom::{LoomGoal, LoomProperty};
use crate::cpa::predicate::abstraction::PredicateScope;
use crate::report::{Counterexample, PartitionReport, PropertyResult, Verdict};
use crate::spec::bound::BoundAutomaton;
use crate::spec::{relevance, Goal, Property, PropertyId, PropertySet, Purpose};

pub const ANALYSIS: &str = "LOOM weaving of the specification automata; per partition: reachability under explicit values and a search for concrete error paths under them, then predicate abstraction with large-block encoding and CEGAR (Z3 bit-vectors); bounded symbolic execution for label properties the predicate analysis gave up on";

/// How the property set is decomposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The SDC loop with a strategy.
    Sdc(Strategy),
    /// Every property in its own analysis (the paper's BL).
    Baseline,
}

impl Mode {
    pub fn name(&self) -> String {
        match self {
            Mode::Baseline => "baseline".into(),
            Mode::Sdc(s) => format!("{s:?}").to_lowercase(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct VerifySettings {
    /// The analysis' time for all properties together: the total of its
    /// budgets, in nominal seconds of work ([`crate::smt::work`]).
    pub work: Option<Duration>,
    /// Budgets of the strategies.
    pub config: StrategyConfig,
    /// Where the predicate analysis tracks the predicates refinement finds.
    pub predicate_scope: PredicateScope,
    /// The phase budget the user fixed; without it, `config` is scaled to
    /// the time limit and the number of properties.
    pub phase_budget: Option<Duration>,
    /// Each TRUE proved by a fixed point comes with what it knows at loop
    /// heads ([`PropertyResult::invariants`]).
    pub invariants: bool,
}

impl VerifySettings {
    pub fn new(
        work: Option<Duration>,
        properties: usize,
        phase_budget: Option<Duration>,
        refinement_rule: RefinementRule,
        predicate_scope: PredicateScope,
    ) -> Self {
        let mut config = match (phase_budget, work) {
            (Some(b), _) => StrategyConfig {
                phase_budget: b,
                ..StrategyConfig::default()
            },
            (None, Some(t)) => StrategyConfig::scaled(t, properties),
            (None, None) => StrategyConfig::default(),
        };
        config.refinement_rule = refinement_rule;
        VerifySettings {
            work,
            config,
            predicate_scope,
            phase_budget,
            invariants: false,
        }
    }

    /// The same settings with the phase budget scaled to `properties`
    /// properties (unless the user fixed it).
    fn for_properties(&self, properties: usize) -> Self {
        let mut s = self.clone();
        if let (None, Some(t)) = (self.phase_budget, self.work) {
            s.config.phase_budget = StrategyConfig::scaled(t, properties).phase_budget;
        }
        s
    }

    /// The same settings for a time limit of `cpu` and `properties`
    /// properties.
    pub fn with_limit(&self, cpu: Duration, properties: usize) -> Self {
        VerifySettings {
            invariants: self.invariants,
            ..VerifySettings::new(
                Some(cpu),
                properties,
                self.phase_budget,
                self.config.refinement_rule,
                self.predicate_scope,
            )
        }
    }
}

pub struct Verification {
    pub results: Vec<PropertyResult>,
    /// What the analyses did, summed over partitions and the symbolic
    /// execution fallback.
    pub work: Work,
    /// CPU time of the whole verification.
    pub cpu: Duration,
    /// Its work, in nominal time ([`crate::smt::work`]): what its budgets
    /// counted.
    pub spent: Duration,
    pub partitions: Vec<PartitionReport>,
}

/// A property of a bound automaton, as an mpv [`Property`] (for reports).
pub fn automaton_property(b: &BoundAutomaton, automaton: usize, property: usize) -> Property {
    let a = &b.automaton;
    let sp = &a.properties[property];
    Property {
        id: sp.id.clone(),
        description: sp.description.clone(),
        goal: Goal::Rule {
            automaton,
            property,
        },
        entry: None,
        origin: a.origin.clone(),
        purpose: Purpose::Verdict,
    }
}

/// One result per property of `props` (in order). Rule properties refer to
/// `automata` (bound to `program`).
///
/// The steps: every property's result starts with its syntactic relevance,
/// TRUE if no step of the program can drive it towards its error, else
/// UNKNOWN; the LOOM analysis checks the others it can (SDC under `mode`'s
/// strategy, or `baseline`); properties whose error path needs a
/// step LDV's assumptions rule out get the analysis once more under them
/// ([`ldv_phase`]); label properties it gave up get symbolic execution
/// ([`symexec_phase`]).
pub fn verify(
    program: &Program,
    automata: &[BoundAutomaton],
    props: &[Property],
    mode: Mode,
    limits: &VerifySettings,
) -> Verification {
    verify_from(program, automata, props, mode, limits, &Progress::default()).0
}

/// [`verify`], the analysis starting from what an earlier one of the same
/// locations learned; with what this one learned.
fn verify_from(
    program: &Program,
    automata: &[BoundAutomaton],
    props: &[Property],
    mode: Mode,
    limits: &VerifySettings,
    earlier: &Progress,
) -> (Verification, Progress) {
    let t0 = thread_cpu_time();
    let w0 = crate::smt::work::now();
    let mut results = initial_results(program, automata, props);
    let loom = LoomProperties::of(props, &mut results);
    // The properties decided without analysis take no share of the time.
    let limits = &limits.for_properties(loom.properties.len());
    let ids: BTreeSet<PropertyId> = loom.properties.iter().map(|p| p.id).collect();
    let options = LoomOptions {
        predicate_scope: limits.predicate_scope,
        partitions_stand_alone: matches!(mode, Mode::Baseline),
        invariants: limits.invariants,
        proof_only: loom.proof_only.clone(),
        ..LoomOptions::default()
    };
    let mut analysis = LoomAnalysis::new(
        program,
        automata,
        loom.properties.clone(),
        loom.names.clone(),
        options,
    );
    analysis.resume_from(earlier);
    let clock = WorkClock;
    let sdc_result = match mode {
        Mode::Baseline => sdc::baseline(&mut analysis, &ids, limits.work, &clock),
        Mode::Sdc(s) => sdc::sdc(
            &mut analysis,
            &ids,
            s,
            limits.config.clone(),
            limits.work,
            &clock,
        ),
    };
    let mut work = analysis.work().clone();
    let partitions = partition_reports(&sdc_result, &loom.names);
    record_outcomes(&mut results, &loom, &sdc_result, &analysis);
    let left = || {
        limits
            .work
            .map(|c| c.saturating_sub(crate::smt::work::now().saturating_sub(w0)))
    };
    // Properties whose error path needed an over-approximated step that
    // LDV's assumptions rule out: the analysis once more, under them.
    let needs_ldv: BTreeSet<PropertyId> = ids
        .iter()
        .copied()
        .filter(|&id| {
            analysis.ldv_infeasible().contains(id)
                && matches!(
                    sdc_result.outcomes.get(&id),
                    Some(Outcome::Unknown(UnknownReason::Analysis(_)))
                )
        })
        .collect();
    if !needs_ldv.is_empty() && left().is_none_or(|l| l >= MIN_LDV_PHASE) {
        let under = ldv_phase(&analysis, &loom, &needs_ldv, &mut results, limits, &left);
        work.add_effort(&under);
    }
    symexec_phase(
        program,
        props,
        &loom,
        &sdc_result,
        &mut results,
        &mut work,
        left,
    );
    let verification = Verification {
        results,
        work,
        cpu: thread_cpu_time().saturating_sub(t0),
        spent: crate::smt::work::now().saturating_sub(w0),
        partitions,
    };
    (verification, analysis.into_progress())
}

/// What the SDC loop returns for the LOOM properties.
type LoomSdcResult = sdc::SdcResult<PropertyId, Counterexample>;

/// One UNKNOWN result per property, with its syntactic relevance.
fn initial_results(
    program: &Program,
    automata: &[BoundAutomaton],
    props: &[Property],
) -> Vec<PropertyResult> {
    let rule_classes: Vec<_> = automata
        .iter()
        .map(|b| relevance::automaton_classes(program, &b.automaton))
        .collect();
    props
        .iter()
        .map(|p| {
            let (relevant, vacuous) = match &p.goal {
                Goal::Rule {
                    automaton,
                    property,
                } => {
                    let id = PropertyId(*property as u32);
                    let (relevant, vacuous) = &rule_classes[*automaton];
                    (relevant.contains(id), vacuous.contains(id))
                }
                _ => relevance::property_classes(program, p),
            };
            PropertyResult {
                id: p.id.clone(),
                verdict: if vacuous {
                    Verdict::True
                } else {
                    Verdict::Unknown
                },
                reason: vacuous.then(|| VACUOUS.to_string()),
                relevant,
                work_s: 0.0,
                counterexample: None,
                message: None,
                witnesses: Vec::new(),
                invariants: Vec::new(),
            }
        })
        .collect()
}

/// The reason of a property no step of the program can drive towards its
/// error ([`relevance::automaton_vacuous`]).
const VACUOUS: &str =
    "no step of the program can take its automaton to an error state (syntactic check)";

/// The properties the LOOM analysis checks.
struct LoomProperties {
    /// As LOOM properties, `properties[k].id == PropertyId(k)`.
    properties: Vec<LoomProperty>,
    /// The index in the verified properties of each.
    index: Vec<usize>,
    /// The name of each.
    names: Vec<String>,
    /// Those only a proof serves ([`LoomOptions::proof_only`]).
    proof_only: PropertySet,
}

impl LoomProperties {
    /// The properties of `props` LOOM checks; the others get the reason
    /// in `results`.
    fn of(props: &[Property], results: &mut [PropertyResult]) -> Self {
        let mut loom = LoomProperties {
            properties: Vec::new(),
            index: Vec::new(),
            names: Vec::new(),
            proof_only: PropertySet::new(),
        };
        for (i, p) in props.iter().enumerate() {
            if results[i].verdict == Verdict::True {
                continue;
            }
            let Some(goal) = LoomGoal::of(&p.goal) else {
                results[i].reason = Some(format!(
                    "`{}` is checked as an automaton: bind `spec::prp::call_automaton` of it",
                    p.id
                ));
                continue;
            };
            loom.properties.push(LoomProperty {
                id: PropertyId(loom.properties.len() as u32),
                goal,
            });
            loom.index.push(i);
            if p.purpose == Purpose::ProofOnly {
                loom.proof_only
                    .insert(PropertyId(loom.properties.len() as u32 - 1));
            }
            loom.names.push(p.id.clone());
        }
        loom
    }
}

/// The report of each partition the SDC loop ran.
fn partition_reports(sdc_result: &LoomSdcResult, names: &[String]) -> Vec<PartitionReport> {
    sdc_result
        .partitions
        .iter()
        .map(|r| PartitionReport {
            properties: r
                .properties
                .iter()
                .map(|p| names[p.0 as usize].clone())
                .collect(),
            budget_s: r.budget.work.map(|d| d.as_secs_f64()),
            spent_s: r.spent.as_secs_f64(),
            refinements: r.refinements,
            transitions: r.transitions,
            finished: r.finished,
            bug_hunting: false,
        })
        .collect()
}

/// The verdicts of the SDC loop, in the results of the LOOM properties
/// (at `index`).
/// A TRUE gets the invariants of the fixed point that proved it.
fn record_outcomes(
    results: &mut [PropertyResult],
    loom: &LoomProperties,
    sdc_result: &LoomSdcResult,
    analysis: &LoomAnalysis<'_>,
) {
    for (k, &i) in loom.index.iter().enumerate() {
        let id = PropertyId(k as u32);
        let r = &mut results[i];
        r.work_s = sdc_result.spent_on(&id);
        r.relevant |= sdc_result.relevant.contains(&id);
        match sdc_result.outcomes.get(&id) {
            Some(Outcome::Satisfied) => {
                r.verdict = Verdict::True;
                r.reason = Some(
                    "no error state reachable (fixed point of a sound over-approximation)".into(),
                );
                r.invariants = analysis.invariants(id).to_vec();
            }
            Some(Outcome::Violated(cex)) => {
                r.verdict = Verdict::False;
                r.counterexample = Some(with_control_states(analysis, &loom.properties[k], cex));
            }
            Some(Outcome::Unknown(why)) => {
                r.reason = Some(why.to_string());
            }
            None => r.reason = Some(UnknownReason::Timeout.to_string()),
        }
    }
}

/// `cex` with the control states of `property`'s automaton along it
/// ([`control_states`]).
fn with_control_states(
    analysis: &LoomAnalysis<'_>,
    property: &LoomProperty,
    cex: &Counterexample,
) -> Counterexample {
    let mut cex = cex.clone();
    if let LoomGoal::Automaton { automaton, .. } = property.goal {
        control_states::annotate(analysis.program, analysis.automata, automaton, &mut cex);
    }
    cex
}

/// The LOOM analysis once more, under LDV's assumptions, for the
/// properties `needs_ldv` whose error path needed a step they rule out,
/// starting from the predicates `first` had then, as one S0 partition
/// with a share of the time `left`: FALSE results with the assumptions
/// listed, never TRUE. Returns what it did.
fn ldv_phase(
    first: &LoomAnalysis<'_>,
    loom: &LoomProperties,
    needs_ldv: &BTreeSet<PropertyId>,
    results: &mut [PropertyResult],
    limits: &VerifySettings,
    left: &dyn Fn() -> Option<Duration>,
) -> Work {
    let options = LoomOptions {
        explicit_values: false,
        under_ldv_assumptions: true,
        predicate_scope: limits.predicate_scope,
        ..LoomOptions::default()
    };
    let mut under = LoomAnalysis::new(
        first.program,
        first.automata,
        loom.properties.clone(),
        loom.names.clone(),
        options,
    );
    under.inherit_ldv_predicates(first);
    let cpu = left().map(|l| l.mul_f64(LDV_PHASE_SHARE));
    let r = sdc::sdc(
        &mut under,
        needs_ldv,
        Strategy::S0,
        limits.config.clone(),
        cpu,
        &WorkClock,
    );
    for id in needs_ldv {
        let i = loom.index[id.0 as usize];
        results[i].work_s += r.spent_on(id);
        if let Some(Outcome::Violated(cex)) = r.outcomes.get(id) {
            results[i].verdict = Verdict::False;
            results[i].reason = None;
            let property = &loom.properties[id.0 as usize];
            results[i].counterexample = Some(with_control_states(first, property, cex));
        }
    }
    under.work().clone()
}

/// Symbolic execution for the label properties the predicate analysis
/// gave up (not for lack of time) and nothing decided since, each with
/// the time `left`.
fn symexec_phase(
    program: &Program,
    props: &[Property],
    loom: &LoomProperties,
    sdc_result: &LoomSdcResult,
    results: &mut [PropertyResult],
    work: &mut Work,
    left: impl Fn() -> Option<Duration>,
) {
    for (k, &i) in loom.index.iter().enumerate() {
        let Goal::Label(label) = &props[i].goal else {
            continue;
        };
        if loom.proof_only.contains(PropertyId(k as u32)) {
            continue;
        }
        let analysis_gave_up = matches!(
            sdc_result.outcomes.get(&PropertyId(k as u32)),
            Some(Outcome::Unknown(UnknownReason::Analysis(_)))
        );
        let decided = results[i].verdict != Verdict::Unknown;
        if !analysis_gave_up || decided || left().is_some_and(|l| l.is_zero()) {
            continue;
        }
        let se = symexec::check_label(program, label, left());
        work.transitions += se.stats.transitions;
        work.solver_calls += se.stats.solver_calls;
        work.solver_s += se.stats.solver_s;
        let r = &mut results[i];
        r.work_s += se.stats.work.as_secs_f64();
        if se.verdict != Verdict::Unknown {
            r.verdict = se.verdict;
            r.reason = se.reason;
            r.counterexample = se.counterexample;
        }
    }
}

/// Share of the time left that the analysis under LDV's assumptions gets.
const LDV_PHASE_SHARE: f64 = 0.75;

/// Less time left than this and the analysis under LDV's assumptions is skipped.
const MIN_LDV_PHASE: Duration = Duration::from_millis(500);

/// Share of the time limit spent on the bug-hunting variant of the module.
const HUNT_SHARE: f64 = 0.25;

/// The reason given with a FALSE result of the bug-hunting variant.
const HUNTING_FALSE: &str = "error path found on the bug-hunting variant of the module (calls through pointers restricted to the functions whose address reachable code takes); the variant's executions are the module's";

/// Added to the reason of a TRUE result of the bug-hunting variant.
const HUNTING_TRUE: &str = "proved on the bug-hunting variant of the module, whose cut calls through pointers are unreachable: its executions are the module's";

/// A program, its bound automata and the properties to verify on it.
pub type Checked<'a> = (&'a Program, &'a [BoundAutomaton], &'a [Property]);

/// The property that no execution of the bug-hunting variant reaches a cut
/// case ([`hunting::CUT_LABEL`]).
fn cut_property() -> Property {
    Property {
        id: format!("label:{}", hunting::CUT_LABEL),
        description: "the bug-hunting variant makes no call through a pointer it cut".into(),
        goal: Goal::Label(hunting::CUT_LABEL.into()),
        entry: None,
        origin: String::new(),
        purpose: Purpose::ProofOnly,
    }
}

/// Verifies the bug-hunting variant of a module ([`hunting::variant`]) with
/// a share of the time, together with the property that its cut cases are
/// unreachable, then the properties still open with the rest of the time,
/// from the predicates and abstractions the variant's analysis found.
/// The variant's FALSE results are error paths of the module. When the cut
/// property is TRUE, every execution of the module is one of the variant:
/// the variant's TRUE results hold for the module, and the open properties
/// are verified on the variant; otherwise on the module. Without a variant
/// (nothing to cut), verifies the module.
pub fn verify_hunting_first(
    module: Checked<'_>,
    mode: Mode,
    limits: &VerifySettings,
) -> Verification {
    let (program, bound, props) = module;
    let cut = cut_property();
    let cut_id = cut.id.clone();
    let variant = match props.iter().any(|p| p.id == cut_id) {
        // A property of the same name would be mistaken for the cut's.
        true => None,
        false => hunting::variant(program),
    };
    let Some(variant) = variant else {
        return verify(program, bound, props, mode, limits);
    };
    let limit = limits.work.unwrap_or_default();
    let share = limit.mul_f64(HUNT_SHARE);
    let mut hprops = props.to_vec();
    hprops.push(cut);
    // Results the variant does not decide get the run with the rest of the
    // time: a property alone gets the phase budget here, not the share of
    // the time its proof might take.
    let mut hunt_limits = limits.with_limit(share, hprops.len());
    hunt_limits.config.share_unused = false;
    let (h, progress) = verify_from(
        &variant,
        bound,
        &hprops,
        mode,
        &hunt_limits,
        &Progress::default(),
    );
    let cut_proved = h
        .results
        .iter()
        .any(|r| r.id == cut_id && r.verdict == Verdict::True);
    let mut found: HashMap<String, PropertyResult> = h
        .results
        .into_iter()
        .filter(|r| r.id != cut_id)
        .filter(|r| r.verdict == Verdict::False || (cut_proved && r.verdict == Verdict::True))
        .map(|r| (r.id.clone(), found_on_variant(r)))
        .collect();
    let rest: Vec<Property> = props
        .iter()
        .filter(|p| !found.contains_key(&p.id))
        .cloned()
        .collect();
    let remaining = limit.saturating_sub(h.spent);
    let v = if rest.is_empty() {
        Verification {
            results: Vec::new(),
            work: Default::default(),
            cpu: Duration::ZERO,
            spent: Duration::ZERO,
            partitions: Vec::new(),
        }
    } else {
        // With the cut unreachable, the variant has the module's executions
        // and none of the calls it cut: the rest is verified on it.
        // It starts from what the variant's analysis learned: the
        // variant's locations and variables are the module's.
        let target = if cut_proved { &variant } else { program };
        let rest_limits = limits.with_limit(remaining, rest.len());
        verify_from(target, bound, &rest, mode, &rest_limits, &progress).0
    };
    let mut checked: HashMap<String, PropertyResult> = v
        .results
        .into_iter()
        .map(|r| {
            if cut_proved && r.verdict != Verdict::Unknown {
                found_on_variant(r)
            } else {
                r
            }
        })
        .map(|r| (r.id.clone(), r))
        .collect();
    let results = props
        .iter()
        .filter_map(|p| found.remove(&p.id).or_else(|| checked.remove(&p.id)))
        .collect();
    let mut partitions = h.partitions;
    for p in &mut partitions {
        p.bug_hunting = true;
    }
    partitions.extend(v.partitions.into_iter().map(|mut p| {
        p.bug_hunting = cut_proved;
        p
    }));
    Verification {
        results,
        work: Work {
            states: h.work.states + v.work.states,
            ..v.work.plus_effort(&h.work)
        },
        cpu: h.cpu + v.cpu,
        spent: h.spent + v.spent,
        partitions,
    }
}

/// A verdict found on the bug-hunting variant (TRUE only once its cut is
/// proved unreachable), its reason saying so.
fn found_on_variant(mut r: PropertyResult) -> PropertyResult {
    r.reason = Some(match r.verdict {
        Verdict::False => HUNTING_FALSE.into(),
        _ => match r.reason.take() {
            Some(why) => format!("{why}; {HUNTING_TRUE}"),
            None => HUNTING_TRUE.into(),
        },
    });
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_property_is_proof_only_by_its_purpose_not_by_its_label() {
        let cut = cut_property();
        let user = Property {
            purpose: Purpose::Verdict,
            ..cut.clone()
        };
        let props = [user, cut];
        let mut results: Vec<PropertyResult> = props
            .iter()
            .map(|p| PropertyResult::of(p.id.clone(), Verdict::Unknown))
            .collect();
        let loom = LoomProperties::of(&props, &mut results);
        assert_eq!(loom.properties.len(), 2);
        assert!(!loom.proof_only.contains(PropertyId(0)));
        assert!(loom.proof_only.contains(PropertyId(1)));
    }

    /// `x == y` holds at the loop head: the explicit values do not know
    /// it, refinement must find it.
    const EQUAL_STEPS: &str = "int nondet(void);
        int main(void) {
          int x = nondet(); int y = x;
          while (nondet()) { x = x + 1; y = y + 1; }
          if (x != y) { ERROR: return 1; }
          return 0;
        }";

    #[test]
    fn an_analysis_resumed_from_an_earlier_ones_progress_needs_no_refinement_it_made() {
        let program =
            crate::frontend::parse_source("t.c", EQUAL_STEPS, &Default::default()).expect("parses");
        let props = [Property {
            id: "label:ERROR".into(),
            description: String::new(),
            goal: Goal::Label("ERROR".into()),
            entry: None,
            origin: String::new(),
            purpose: Purpose::Verdict,
        }];
        let limits = VerifySettings::new(
            Some(Duration::from_secs(20)),
            1,
            None,
            RefinementRule::default(),
            PredicateScope::default(),
        );
        let mode = Mode::Sdc(Strategy::S0);
        let run = |earlier: &Progress| verify_from(&program, &[], &props, mode, &limits, earlier);
        let refinements =
            |v: &Verification| v.partitions.iter().map(|p| p.refinements).sum::<u64>();
        let (first, progress) = run(&Progress::default());
        assert_eq!(first.results[0].verdict, Verdict::True);
        assert!(refinements(&first) > 0);
        let (resumed, _) = run(&progress);
        assert_eq!(resumed.results[0].verdict, Verdict::True);
        assert_eq!(refinements(&resumed), 0);
    }
}
