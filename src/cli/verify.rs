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
use crate::frontend::{parse_file_timed, FrontendOptions, FrontendTimes};
use crate::report::{peak_rss_mb, PropertyResult, RunReport, Stats, StepKind, Verdict};
use crate::spec::automaton::SpecAutomaton;
use crate::spec::bound::BoundAutomaton;
use crate::spec::{library, prp, Goal, Property};
use crate::witness;
use crate::{Error, Result};

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    /// A line per property in natural order and a summary.
    Text,
    /// The whole report as JSON (schema in README).
    Json,
    /// SV-COMP's `Verification result: TRUE|FALSE(unreach-call)|UNKNOWN`.
    Svcomp,
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

/// The properties to check (shared by `mpv verify` and `mpv validate`).
#[derive(clap::Args)]
pub struct PropertyArgs {
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
    pub(super) select: Vec<String>,
    /// The entry function (default: the one the property file names, else `main`).
    #[arg(long)]
    pub(super) entry: Option<String>,
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The C module (an LDV-prepared `.c` or `.i` file).
    file: PathBuf,
    #[command(flatten)]
    props: PropertyArgs,
    /// How the property set is decomposed: the SDC strategies of the
    /// FSE'16 paper, or `baseline` (one analysis per property).
    #[arg(long, value_enum, default_value = "s4")]
    strategy: StrategyArg,
    /// The data model the input was prepared for.
    #[arg(long, value_enum, default_value = "lp64")]
    data_model: super::DataModelArg,
    /// CPU-time limit in seconds (parsing included); open properties end
    /// UNKNOWN (timeout). The budgets inside the analysis divide it up as
    /// work, in nominal seconds that count the same on every machine.
    #[arg(long, value_parser = super::seconds)]
    time_limit: Option<f64>,
    /// Budget in nominal seconds of work of a strategy's first phase (the paper's
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
    /// Text format: print each counterexample as the input file's lines
    /// with the values of the error path and the functions entered.
    #[arg(long)]
    trace: bool,
    /// Write a violation witness for every FALSE property into this
    /// directory: `<file>.<property>.yml` (SV-COMP YAML format 2.0) and
    /// `<file>.<property>.graphml` (GraphML format 1.0); and a correctness
    /// witness for every TRUE property: `<file>.<property>.correctness.yml`
    /// (YAML format 2.0, an `invariant_set` of the loop invariants the
    /// proof knows).
    #[arg(long)]
    witness_dir: Option<PathBuf>,
    /// Write the result to this file instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// What the property files give: properties (labels), automata (rules,
/// `.spc` files, `G ! call(f())` properties), the entry a property file
/// names, and the SV-COMP text of each property from a property file (by id).
pub(super) struct Loaded {
    pub props: Vec<Property>,
    pub automata: Vec<SpecAutomaton>,
    pub entry: Option<String>,
    pub svcomp: Vec<(String, String)>,
}

/// The properties to check: SV-COMP files, rule files and `.spc` automata
/// (the bundled library when none is given), filtered by `--select`.
pub(super) fn load_properties(args: &PropertyArgs) -> Result<Loaded> {
    let mut props: Vec<Property> = Vec::new();
    for p in &args.prp {
        props.extend(prp::load(p)?);
    }
    let svcomp = props
        .iter()
        .filter_map(|p| Some((p.id.clone(), prp::svcomp_text(p)?)))
        .collect();
    let mut automata: Vec<SpecAutomaton> = Vec::new();
    // A call property is checked as the automaton whose error is the call.
    props.retain(|p| match prp::call_automaton(p) {
        Some(a) => {
            automata.push(a);
            false
        }
        None => true,
    });
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
    // One run verifies from one entry function.
    let entry = props.iter().find_map(|p| p.entry.clone());
    let wanted = args.entry.as_ref().or(entry.as_ref());
    if let Some(other) = props
        .iter()
        .find(|p| p.entry.is_some() && p.entry.as_ref() != wanted)
    {
        return Err(Error::Usage(format!(
            "{}: property `{}` starts at `{}()`, but this run starts at `{}()`: \
             mpv verifies from one entry function per run; verify the properties \
             of each `init(...)` separately (--select, or one .prp file per entry)",
            other.origin,
            other.id,
            other.entry.as_deref().unwrap_or("main"),
            wanted.map_or("main", String::as_str),
        )));
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
    Ok(Loaded {
        props,
        automata,
        entry,
        svcomp,
    })
}

/// Set by whoever writes the result first: the run or a watchdog.
static FINISHING: AtomicBool = AtomicBool::new(false);

/// The properties to check, bound later to the program, and how the run
/// parses and decomposes them.
struct Setup {
    props: Vec<Property>,
    automata: Vec<SpecAutomaton>,
    svcomp: Vec<(String, String)>,
    frontend: FrontendOptions,
    mode: Mode,
}

/// What parsing and binding gave the analysis.
struct Parsed {
    program: Program,
    times: FrontendTimes,
    bound: Vec<BoundAutomaton>,
}

pub fn run(args: VerifyArgs) -> Result<ExitCode> {
    let t0 = process_cpu_time();
    let Setup {
        mut props,
        automata,
        svcomp,
        frontend,
        mode,
    } = setup(&args)?;
    // The time limit covers parsing and CFA construction too.
    let parsed = parse_watchdog(&args, mode, &props, &automata, t0)?;
    let (mut program, times) = parse_file_timed(&args.file, &frontend)?;
    let bound = bind(&automata, &mut program, &args.props.select, &mut props);
    parsed.store(true, Ordering::SeqCst);
    let parsed = Parsed {
        program,
        times,
        bound,
    };
    let limits = analysis_limits(&args, props.len());
    // What parsing and binding used is not the analysis' time.
    let cpu_left = args
        .time_limit
        .map(|t| Duration::from_secs_f64(t).saturating_sub(process_cpu_time().saturating_sub(t0)));
    if let Some(limit) = cpu_left {
        analysis_watchdog(&args, mode, &props, &parsed.times, limit)?;
    }
    let analysis = Analysis {
        mode,
        limits: &limits,
        cpu_left,
    };
    let v = analyse(&analysis, &parsed, &props)?;
    let mut results = v.results;
    describe_errors(&mut results, &props, &automata);
    if let Some(dir) = &args.witness_dir {
        let model = args.data_model.into();
        write_witnesses(dir, &args.file, model, &mut results, &props, &svcomp)?;
    }
    let times = &parsed.times;
    let report = header(
        &args,
        mode,
        results,
        Stats {
            parse_s: times.parse.as_secs_f64(),
            cfa_s: times.cfa.as_secs_f64(),
            analysis_cpu_s: v.cpu.as_secs_f64(),
            analysis_work_s: v.spent.as_secs_f64(),
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
    output(&args, &report)
}

/// Loads the properties and derives the entry function and the mode.
fn setup(args: &VerifyArgs) -> Result<Setup> {
    let Loaded {
        props,
        automata,
        entry,
        svcomp,
    } = load_properties(&args.props)?;
    let entry = args
        .props
        .entry
        .clone()
        .or(entry)
        .unwrap_or_else(|| "main".into());
    let frontend = FrontendOptions {
        entry,
        data_model: args.data_model.into(),
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
    Ok(Setup {
        props,
        automata,
        svcomp,
        frontend,
        mode,
    })
}

/// The report of this run with these results and statistics.
fn header(
    args: &VerifyArgs,
    mode: Mode,
    properties: Vec<PropertyResult>,
    stats: Stats,
) -> RunReport {
    RunReport {
        file: args.file.display().to_string(),
        mpv_version: env!("CARGO_PKG_VERSION").to_string(),
        analysis: ANALYSIS.into(),
        strategy: mode.name(),
        properties,
        stats,
    }
}

/// Under a time limit, starts the watchdog of parsing and CFA construction
/// (every property UNKNOWN past the limit); the flag returned cancels it.
fn parse_watchdog(
    args: &VerifyArgs,
    mode: Mode,
    props: &[Property],
    automata: &[SpecAutomaton],
    t0: Duration,
) -> Result<std::sync::Arc<AtomicBool>> {
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
            args,
            mode,
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
        let text = render(&fallback, args.format, None)?;
        watchdog(
            t0 + limit + grace,
            text,
            args.output.clone(),
            &FINISHING,
            Some(parsed.clone()),
        );
    }
    Ok(parsed)
}

/// The analysis' settings. Its budgets count work: the time limit is
/// their total in nominal seconds, whatever parsing took on this machine.
fn analysis_limits(args: &VerifyArgs, properties: usize) -> VerifySettings {
    let cpu = args.time_limit.map(Duration::from_secs_f64);
    VerifySettings {
        invariants: args.witness_dir.is_some(),
        ..VerifySettings::new(
            cpu,
            properties,
            args.phase_budget.map(Duration::from_secs_f64),
            RefinementRule {
                min: args.refinement_min,
                factor: args.refinement_factor,
            },
            args.predicate_scope,
        )
    }
}

/// The analyses poll the limit, but one solver call or one refinement may
/// overrun it: past a grace period the results are written as they stand
/// (every property UNKNOWN) and the process ends.
fn analysis_watchdog(
    args: &VerifyArgs,
    mode: Mode,
    props: &[Property],
    times: &FrontendTimes,
    limit: Duration,
) -> Result<()> {
    let grace = grace_of(limit);
    let fallback = header(
        args,
        mode,
        all_unknown(
            props,
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
    let text = render(&fallback, args.format, None)?;
    watchdog(
        process_cpu_time() + limit + grace,
        text,
        args.output.clone(),
        &FINISHING,
        None,
    );
    Ok(())
}

/// How the analysis runs.
struct Analysis<'a> {
    mode: Mode,
    limits: &'a VerifySettings,
    /// The CPU time the analysis has until the time limit.
    cpu_left: Option<Duration>,
}

/// Runs the analysis. An internal error in it must not lose the run:
/// every property is reported UNKNOWN with the error (or, near the
/// address-space limit, the run ends out of memory).
fn analyse(
    analysis: &Analysis<'_>,
    parsed: &Parsed,
    props: &[Property],
) -> Result<crate::algorithm::verify::Verification> {
    let Analysis {
        mode,
        limits,
        cpu_left,
    } = *analysis;
    let Parsed { program, bound, .. } = parsed;
    // Budgets inside the analysis count work; the time limit is CPU time.
    let _limit = crate::smt::work::time_limit(cpu_left);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match limits.work {
        Some(_) => verify_hunting_first((program, bound, props), mode, limits),
        None => verify(program, bound, props, mode, limits),
    }));
    let e = match outcome {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let what = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    // Z3 reports a failed allocation as a failed call, which the
    // bindings turn into a panic: near the address-space limit
    // that is an out-of-memory, not an internal error.
    if let Some(limit_mb) = address_space_exhausted() {
        return Err(Error::OutOfMemory {
            limit_mb,
            detail: what,
        });
    }
    Ok(crate::algorithm::verify::Verification {
        results: all_unknown(
            props,
            &format!("internal error in the analysis: {what}"),
            0.0,
        ),
        work: Default::default(),
        cpu: Duration::ZERO,
        spent: Duration::ZERO,
        partitions: Vec::new(),
    })
}

/// Renders the report and writes it, unless a watchdog is already writing
/// its timeout result.
fn output(args: &VerifyArgs, report: &RunReport) -> Result<ExitCode> {
    let source = match args.trace {
        true => Some(read_source(&args.file)?),
        false => None,
    };
    let text = render(report, args.format, source.as_deref())?;
    if FINISHING.swap(true, std::sync::atomic::Ordering::SeqCst) {
        // The watchdog is writing the timeout result and ends the process.
        loop {
            std::thread::park();
        }
    }
    match &args.output {
        Some(out) => std::fs::write(out, text).map_err(|e| Error::write(out, e))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Binds the automata to `program` and appends their selected properties.
pub(super) fn bind(
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

/// The address-space limit in MB when this process has come within 64 MB
/// of it (so an allocation may have failed), or `None`.
fn address_space_exhausted() -> Option<u64> {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes into the valid `rlimit` we pass.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut rl) } != 0
        || rl.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let limit_kb = rl.rlim_cur / 1024;
    let peak_kb = std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find(|l| l.starts_with("VmPeak:"))?
        .split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()?;
    (peak_kb + 64 * 1024 >= limit_kb).then_some(limit_kb / 1024)
}

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

/// Every property UNKNOWN for `reason` (when the analysis cannot report).
fn all_unknown(props: &[Property], reason: &str, work_s: f64) -> Vec<PropertyResult> {
    let ids: Vec<String> = props.iter().map(|p| p.id.clone()).collect();
    unknown_results(&ids, reason, work_s)
}

fn unknown_results(ids: &[String], reason: &str, work_s: f64) -> Vec<PropertyResult> {
    ids.iter()
        .map(|id| PropertyResult {
            id: id.clone(),
            verdict: Verdict::Unknown,
            reason: Some(reason.to_string()),
            relevant: true,
            work_s,
            counterexample: None,
            message: None,
            witnesses: Vec::new(),
            invariants: Vec::new(),
        })
        .collect()
}

fn read_source(file: &std::path::Path) -> Result<String> {
    let bytes = std::fs::read(file).map_err(|e| Error::io(file, e))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The error each FALSE result reaches: the automaton's error message (the
/// one the counterexample's last call leads to), or the label or call.
fn describe_errors(results: &mut [PropertyResult], props: &[Property], automata: &[SpecAutomaton]) {
    for (r, p) in results.iter_mut().zip(props) {
        if r.verdict != Verdict::False {
            continue;
        }
        let last_call = r.counterexample.as_ref().and_then(|c| {
            let s = c.steps.iter().rev().find(|s| s.kind != StepKind::Woven)?;
            s.callee.clone()
        });
        r.message = Some(match &p.goal {
            Goal::Label(l) => format!("label {l} reached"),
            Goal::Call(f) => format!("{f}() called"),
            Goal::Rule {
                automaton,
                property,
            } => {
                let ms = automata[*automaton].error_messages(*property, last_call.as_deref());
                match ms.is_empty() {
                    true => p.description.clone(),
                    false => ms.join(" or "),
                }
            }
        });
    }
}

/// Writes the violation witnesses of every FALSE result with a
/// counterexample, and the correctness witness of every TRUE result, into
/// `dir` and lists them in the result.
fn write_witnesses(
    dir: &std::path::Path,
    file: &std::path::Path,
    data_model: crate::ir::DataModel,
    results: &mut [PropertyResult],
    props: &[Property],
    svcomp: &[(String, String)],
) -> Result<()> {
    let source = read_source(file)?;
    for (r, p) in results.iter_mut().zip(props) {
        let specification = svcomp
            .iter()
            .find(|(id, _)| *id == p.id)
            .map_or_else(|| witness::specification(p), |(_, s)| s.clone());
        let task = witness::Task {
            input_file: file,
            source: &source,
            property: &p.id,
            specification,
            producer_version: env!("CARGO_PKG_VERSION"),
            data_model,
        };
        let paths = match (r.verdict, &r.counterexample) {
            (Verdict::False, Some(cex)) => witness::write(dir, &task, cex),
            (Verdict::True, _) => {
                witness::correctness::write(dir, &task, &r.invariants).map(|p| vec![p])
            }
            _ => continue,
        }
        .map_err(|e| Error::write(dir, e))?;
        r.witnesses = paths.iter().map(|p| p.display().to_string()).collect();
    }
    Ok(())
}

fn render(report: &RunReport, format: Format, source: Option<&str>) -> Result<String> {
    Ok(match format {
        Format::Svcomp => report.to_svcomp(),
        Format::Text => report.to_text(source),
        Format::Json => {
            serde_json::to_string(report).map_err(|e| Error::Other(e.to_string()))? + "\n"
        }
    })
}
