//! `mpv verify`: verify a module against properties and print one result per property.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::algorithm::sdc::process_cpu_time;
use crate::algorithm::verify::{verify_labels, VerifyLimits};
use crate::frontend::{parse_file_timed, FrontendOptions};
use crate::report::{peak_rss_mb, RunReport, Stats};
use crate::spec::{prp, Property};
use crate::{Error, Result};

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The C module (an LDV-prepared `.c` or `.i` file).
    file: PathBuf,
    /// SV-COMP property file (`G ! label(L)`, `G ! call(f())`); repeatable.
    #[arg(long = "prp", required = true)]
    prp: Vec<PathBuf>,
    /// Only these property ids (comma-separated).
    #[arg(long, value_delimiter = ',')]
    select: Vec<String>,
    /// The entry function (default: the one the property file names, else `main`).
    #[arg(long)]
    entry: Option<String>,
    /// CPU-time limit of the analysis in seconds; open properties end UNKNOWN (timeout).
    #[arg(long)]
    time_limit: Option<f64>,
    /// Bound on reached states of the reachability analysis.
    #[arg(long, default_value_t = 1_000_000)]
    max_states: usize,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Write the result to this file instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(args: VerifyArgs) -> Result<ExitCode> {
    let t0 = process_cpu_time();
    let mut props: Vec<Property> = Vec::new();
    for p in &args.prp {
        props.extend(prp::load(p)?);
    }
    if !args.select.is_empty() {
        for id in &args.select {
            if !props.iter().any(|p| &p.id == id) {
                return Err(Error::Usage(format!(
                    "--select: no property `{id}` in the given property files"
                )));
            }
        }
        props.retain(|p| args.select.contains(&p.id));
    }
    let entry = args
        .entry
        .clone()
        .or_else(|| props.iter().find_map(|p| p.entry.clone()))
        .unwrap_or_else(|| "main".into());
    let (program, times) = parse_file_timed(&args.file, &FrontendOptions { entry })?;
    let limits = VerifyLimits {
        cpu: args.time_limit.map(Duration::from_secs_f64),
        max_states: args.max_states,
    };
    static FINISHING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if let Some(limit) = limits.cpu {
        // The analyses poll the limit, but one solver call or one
        // refinement may overrun it: past a grace period the results are
        // written as they stand (every property UNKNOWN) and the process ends.
        let fallback = RunReport {
            file: args.file.display().to_string(),
            mpv_version: env!("CARGO_PKG_VERSION").to_string(),
            analysis: crate::algorithm::verify::ANALYSIS.into(),
            properties: props
                .iter()
                .map(|p| crate::report::PropertyResult {
                    id: p.id.clone(),
                    verdict: crate::report::Verdict::Unknown,
                    reason: Some("timeout (an analysis step overran the time limit)".into()),
                    relevant: crate::spec::relevance::is_relevant(&program, p),
                    cpu_s: limit.as_secs_f64(),
                    counterexample: None,
                })
                .collect(),
            stats: Stats {
                parse_s: times.parse.as_secs_f64(),
                cfa_s: times.cfa.as_secs_f64(),
                ..Stats::default()
            },
        };
        let text = render(&fallback, args.format)?;
        let output = args.output.clone();
        let grace = limit.mul_f64(0.1).max(Duration::from_secs(2));
        let deadline = process_cpu_time() + limit + grace;
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            if process_cpu_time() >= deadline
                && !FINISHING.swap(true, std::sync::atomic::Ordering::SeqCst)
            {
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
    let (results, work) = verify_labels(&program, &props, limits);
    let report = RunReport {
        file: args.file.display().to_string(),
        mpv_version: env!("CARGO_PKG_VERSION").to_string(),
        analysis: crate::algorithm::verify::ANALYSIS.into(),
        properties: results,
        stats: Stats {
            parse_s: times.parse.as_secs_f64(),
            cfa_s: times.cfa.as_secs_f64(),
            analysis_cpu_s: work.cpu.as_secs_f64(),
            total_cpu_s: process_cpu_time().saturating_sub(t0).as_secs_f64(),
            peak_rss_mb: peak_rss_mb(),
            reached_states: work.states,
            transitions: work.transitions,
            refinements: work.refinements,
            solver_calls: work.solver_calls,
            solver_s: work.solver_s,
        },
    };
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

fn render(report: &RunReport, format: Format) -> Result<String> {
    Ok(match format {
        Format::Text => report.to_text(),
        Format::Json => {
            serde_json::to_string(report).map_err(|e| Error::Other(e.to_string()))? + "\n"
        }
    })
}
