//! `mpv verify`: verify a module against a set of properties (rules, SV-COMP
//! property files, `.spc` automata) under a decomposition strategy and print
//! one result per property.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::algorithm::sdc::{process_cpu_time, RefinementRule, Strategy};
use crate::algorithm::verify::{
    automaton_property, verify, verify_hunting_first, Mode, VerifySettings, ANALYSIS,
};
use crate::cfa::Program;
use crate::cpa::predicate::abstraction::PredicateScope;
use crate::frontend::{parse_file_bug_hunting, parse_file_timed, FrontendOptions};
use crate::report::{peak_rss_mb, RunReport, Stats};
use crate::spec::automaton::SpecAutomaton;
use crate::spec::bound::BoundAutomaton;
use crate::spec::{library, prp, Property};
use crate::{Error, Result};

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum StrategyArg {
    /// Every property in its own analysis.
    Baseline,
    S0,
    S1,
    S2,
    S3,
    S4,
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The C module (an LDV-prepared `.c` or `.i` file).
    file: PathBuf,
    /// Rule file (`.spec`) or directory of rule files; repeatable.
    #[arg(long = "properties")]
    properties: Vec<PathBuf>,
    /// Also check the bundled rule library (the default when no property
    /// is given at all).
    #[arg(long)]
    library: bool,
    /// SV-COMP property file (`G ! label(L)`); repeatable.
    #[arg(long = "prp")]
    prp: Vec<PathBuf>,
    /// CPAchecker specification automaton (`.spc`); repeatable.
    #[arg(long = "spc")]
    spc: Vec<PathBuf>,
    /// Only these property ids (comma-separated).
    #[arg(long, value_delimiter = ',')]
    select: Vec<String>,
    /// The entry function (default: the one the property file names, else `main`).
    #[arg(long)]
    entry: Option<String>,
    /// How the property set is decomposed: the SDC strategies of the
    /// FSE'16 paper, or `baseline` (one analysis per property).
    #[arg(long, value_enum, default_value = "s4")]
    strategy: StrategyArg,
    /// CPU-time limit of the analysis in seconds; open properties end UNKNOWN (timeout).
    #[arg(long, value_parser = super::seconds)]
    time_limit: Option<f64>,
    /// CPU budget in seconds of a strategy's first phase (the paper's
    /// β_900). Default: the time limit divided by the number of
    /// properties (the paper's 900 s per 15 min per property), else 900.
    #[arg(long, value_parser = super::seconds)]
    phase_budget: Option<f64>,
    /// S2/S4 refinement rule: drop a property after this many refinements...
    #[arg(long, default_value_t = 10)]
    refinement_min: u64,
    /// ...when it has this many times the refinements of every other one.
    #[arg(long, default_value_t = 2)]
    refinement_factor: u64,
    /// Where refinement's predicates are tracked: at the abstraction point
    /// (CFA location) where they were found, in its function, or everywhere.
    #[arg(long, default_value = "location")]
    predicate_scope: PredicateScope,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Write the result to this file instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// The properties to check: SV-COMP files, rule files and `.spc` automata
/// (the bundled library when none is given), filtered by `--select`.
fn load_properties(args: &VerifyArgs) -> Result<(Vec<Property>, Vec<SpecAutomaton>)> {
    let mut props: Vec<Property> = Vec::new();
    for p in &args.prp {
        props.extend(prp::load(p)?);
    }
    let mut automata: Vec<SpecAutomaton> = Vec::new();
    for p in args.properties.iter().chain(&args.spc) {
        automata.extend(library::load(p)?);
    }
    let nothing_given = args.prp.is_empty() && args.properties.is_empty() && args.spc.is_empty();
    if args.library || nothing_given {
        automata.extend(library::bundled()?);
    }
    if !args.select.is_empty() {
        let rule_ids = automata
            .iter()
            .flat_map(|a| a.properties.iter().map(|p| &p.id));
        let known: Vec<&String> = props.iter().map(|p| &p.id).chain(rule_ids).collect();
        for id in &args.select {
            if !known.contains(&id) {
                return Err(Error::Usage(format!(
                    "--select: no property `{id}` among the given properties"
                )));
            }
        }
        props.retain(|p| args.select.contains(&p.id));
        automata.retain(|a| a.properties.iter().any(|p| args.select.contains(&p.id)));
    }
    let mut seen = std::collections::HashSet::new();
    for id in props.iter().map(|p| &p.id).chain(
        automata
            .iter()
            .flat_map(|a| a.properties.iter().map(|p| &p.id)),
    ) {
        if !seen.insert(id.clone()) {
            return Err(Error::Usage(format!(
                "property `{id}` is given twice; use --select to pick one"
            )));
        }
    }
    Ok((props, automata))
}

pub fn run(args: VerifyArgs) -> Result<ExitCode> {
    let t0 = process_cpu_time();
    let (mut props, automata) = load_properties(&args)?;
    let entry = args
        .entry
        .clone()
        .or_else(|| props.iter().find_map(|p| p.entry.clone()))
        .unwrap_or_else(|| "main".into());
    let frontend = FrontendOptions {
        entry,
        ..FrontendOptions::default()
    };
    let mode = match args.strategy {
        StrategyArg::Baseline => Mode::Baseline,
        StrategyArg::S0 => Mode::Sdc(Strategy::S0),
        StrategyArg::S1 => Mode::Sdc(Strategy::S1),
        StrategyArg::S2 => Mode::Sdc(Strategy::S2),
        StrategyArg::S3 => Mode::Sdc(Strategy::S3),
        StrategyArg::S4 => Mode::Sdc(Strategy::S4),
    };
    let header = |properties, stats| RunReport {
        file: args.file.display().to_string(),
        mpv_version: env!("CARGO_PKG_VERSION").to_string(),
        analysis: ANALYSIS.into(),
        strategy: mode.name(),
        properties,
        stats,
    };
    static FINISHING: AtomicBool = AtomicBool::new(false);
    // The time limit covers parsing and CFA construction too.
    let parsed = std::sync::Arc::new(AtomicBool::new(false));
    if let Some(limit) = args.time_limit.map(Duration::from_secs_f64) {
        let grace = grace_of(limit);
        let ids: Vec<String> = props
            .iter()
            .map(|p| p.id.clone())
            .chain(
                automata
                    .iter()
                    .flat_map(|a| a.properties.iter().map(|p| p.id.clone())),
            )
            .collect();
        let spent = (limit + grace).as_secs_f64();
        let fallback = header(
            unknown_results(
                &ids,
                "timeout (parsing and CFA construction overran the time limit)",
                0.0,
            ),
            Stats {
                total_cpu_s: spent,
                ..Stats::default()
            },
        );
        let text = render(&fallback, args.format)?;
        watchdog(
            t0 + limit + grace,
            text,
            args.output.clone(),
            &FINISHING,
            Some(parsed.clone()),
        );
    }
    let (mut program, times) = parse_file_timed(&args.file, &frontend)?;
    let label_props = props.clone();
    let bound = bind(&automata, &mut program, &args.select, &mut props);
    parsed.store(true, Ordering::SeqCst);
    // What parsing and binding used is not the analysis'.
    let cpu = args
        .time_limit
        .map(|t| Duration::from_secs_f64(t).saturating_sub(process_cpu_time().saturating_sub(t0)));
    let limits = VerifySettings::new(
        cpu,
        props.len(),
        args.phase_budget.map(Duration::from_secs_f64),
        RefinementRule {
            min: args.refinement_min,
            factor: args.refinement_factor,
        },
        args.predicate_scope,
    );
    if let Some(limit) = limits.cpu {
        // The analyses poll the limit, but one solver call or one
        // refinement may overrun it: past a grace period the results are
        // written as they stand (every property UNKNOWN) and the process ends.
        let grace = grace_of(limit);
        let fallback = header(
            all_unknown(
                &props,
                "timeout (an analysis step overran the time limit)",
                limit.as_secs_f64(),
            ),
            Stats {
                parse_s: times.parse.as_secs_f64(),
                cfa_s: times.cfa.as_secs_f64(),
                analysis_cpu_s: (limit + grace).as_secs_f64(),
                total_cpu_s: (limit + grace).as_secs_f64(),
                ..Stats::default()
            },
        );
        let text = render(&fallback, args.format)?;
        watchdog(
            process_cpu_time() + limit + grace,
            text,
            args.output.clone(),
            &FINISHING,
            None,
        );
    }
    // An internal error in an analysis must not lose the run: every
    // property is reported UNKNOWN with the error.
    let v = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let hunting = match limits.cpu {
            Some(_) => parse_file_bug_hunting(&args.file, &frontend, times.pruned_bytes)
                .ok()
                .flatten()
                .map(|(mut p, _)| {
                    let mut hp = label_props.clone();
                    let hb = bind(&automata, &mut p, &args.select, &mut hp);
                    (p, hb, hp)
                }),
            None => None,
        };
        match &hunting {
            Some((hprog, hbound, hprops)) => verify_hunting_first(
                (hprog, hbound, hprops),
                (&program, &bound, &props),
                mode,
                &limits,
            ),
            None => verify(&program, &bound, &props, mode, &limits),
        }
    })) {
        Ok(v) => v,
        Err(e) => {
            let what = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            crate::algorithm::verify::Verification {
                results: all_unknown(
                    &props,
                    &format!("internal error in the analysis: {what}"),
                    0.0,
                ),
                work: Default::default(),
                cpu: Duration::ZERO,
                partitions: Vec::new(),
            }
        }
    };
    let report = header(
        v.results,
        Stats {
            parse_s: times.parse.as_secs_f64(),
            cfa_s: times.cfa.as_secs_f64(),
            analysis_cpu_s: v.cpu.as_secs_f64(),
            total_cpu_s: process_cpu_time().saturating_sub(t0).as_secs_f64(),
            peak_rss_mb: peak_rss_mb(),
            reached_states: v.work.states,
            transitions: v.work.transitions,
            refinements: v.work.refinements,
            solver_calls: v.work.solver_calls,
            solver_s: v.work.solver_s,
            partitions: v.partitions,
        },
    );
    let text = render(&report, args.format)?;
    if FINISHING.swap(true, std::sync::atomic::Ordering::SeqCst) {
        // The watchdog is writing the timeout result and ends the process.
        loop {
            std::thread::park();
        }
    }
    match &args.output {
        Some(out) => std::fs::write(out, text).map_err(|e| Error::io(out, e))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Binds the automata to `program` and appends their selected properties.
fn bind(
    automata: &[SpecAutomaton],
    program: &mut Program,
    select: &[String],
    props: &mut Vec<Property>,
) -> Vec<BoundAutomaton> {
    let mut bound = Vec::new();
    for (ai, a) in automata.iter().enumerate() {
        let b = a.bind(program);
        for (j, sp) in a.properties.iter().enumerate() {
            if select.is_empty() || select.contains(&sp.id) {
                props.push(automaton_property(&b, ai, j));
            }
        }
        bound.push(b);
    }
    bound
}

/// Every property UNKNOWN for `reason` (when the analysis cannot report).
/// The analyses poll the limit, but one solver call or one refinement may
/// overrun it: this long past it, the watchdog ends the process.
fn grace_of(limit: Duration) -> Duration {
    limit.mul_f64(0.1).max(Duration::from_secs(2))
}

/// Once the process CPU time reaches `deadline` (and unless `cancel` is set
/// before), writes `text` where the report goes and ends the process:
/// every property UNKNOWN with the reason the text gives.
fn watchdog(
    deadline: Duration,
    text: String,
    output: Option<PathBuf>,
    finishing: &'static AtomicBool,
    cancel: Option<std::sync::Arc<AtomicBool>>,
) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(200));
        if cancel.as_ref().is_some_and(|c| c.load(Ordering::SeqCst)) {
            return;
        }
        if process_cpu_time() >= deadline && !finishing.swap(true, Ordering::SeqCst) {
            match &output {
                Some(out) => {
                    let _ = std::fs::write(out, &text);
                }
                None => {
                    use std::io::Write;
                    let mut o = std::io::stdout().lock();
                    let _ = o.write_all(text.as_bytes());
                    let _ = o.flush();
                }
            }
            // No exit handlers: the analysis thread may be inside Z3,
            // whose static destructors must not run under it.
            // SAFETY: ends the process; nothing is used afterwards.
            unsafe { libc::_exit(0) };
        }
    });
}

fn all_unknown(props: &[Property], reason: &str, cpu_s: f64) -> Vec<crate::report::PropertyResult> {
    let ids: Vec<String> = props.iter().map(|p| p.id.clone()).collect();
    unknown_results(&ids, reason, cpu_s)
}

fn unknown_results(ids: &[String], reason: &str, cpu_s: f64) -> Vec<crate::report::PropertyResult> {
    ids.iter()
        .map(|id| crate::report::PropertyResult {
            id: id.clone(),
            verdict: crate::report::Verdict::Unknown,
            reason: Some(reason.to_string()),
            relevant: true,
            cpu_s,
            counterexample: None,
        })
        .collect()
}

fn render(report: &RunReport, format: Format) -> Result<String> {
    Ok(match format {
        Format::Text => report.to_text(),
        Format::Json => {
            serde_json::to_string(report).map_err(|e| Error::Other(e.to_string()))? + "\n"
        }
    })
}
