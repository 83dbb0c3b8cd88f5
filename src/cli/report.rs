//! `mpv report`: summarise a results file of `mpv batch` (text, markdown,
//! CSV), and with `--html DIR` as an HTML report with a page per FALSE result.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::batch::html;
use crate::batch::{results, summary};
use crate::eval::{svg, Comparison};
use crate::{Error, Result};

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Markdown,
    Csv,
}

#[derive(clap::Args)]
pub struct ReportArgs {
    /// Results file written by `mpv batch --out`.
    results: PathBuf,
    /// Take the expected verdicts from this manifest instead of the results' own.
    #[arg(long)]
    expected: Option<PathBuf>,
    /// Directory the manifest's paths are relative to (default: the manifest's directory).
    #[arg(long, requires = "expected")]
    root: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// How many of the slowest tasks to list.
    #[arg(long, default_value_t = 10)]
    slowest: usize,
    /// Exit with code 2 if any verdict contradicts the expected one.
    #[arg(long)]
    fail_on_wrong: bool,
    /// Write the summary to this file instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also write an HTML report into this directory: index.html (the
    /// summary) and traces/*.html (each FALSE result's error path beside the
    /// module's source).
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// The directory the results' task paths are relative to, where the HTML
    /// report looks for sources (besides each line's `path`, the working
    /// directory, the results file's directory and those above the property files).
    #[arg(long, value_name = "DIR", requires = "html")]
    source_root: Option<PathBuf>,
    /// With --html: another configuration's results of the same modules, as
    /// NAME=FILE (repeatable); the index shows `mpv eval`'s plots of all of them.
    #[arg(long, value_name = "NAME=FILE", requires = "html")]
    compare: Vec<String>,
    /// The configuration the plots compare to (default: `baseline` if a run
    /// is named so, else this results file).
    #[arg(long, requires = "compare")]
    baseline: Option<String>,
}

pub fn run(a: ReportArgs) -> Result<ExitCode> {
    let lines = results::read(&a.results)?;
    let expected = match &a.expected {
        Some(m) => {
            let root = a.root.clone().unwrap_or_else(|| {
                m.parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .map_or_else(|| PathBuf::from("."), PathBuf::from)
            });
            Some(summary::expected_from_manifest(m, &root)?)
        }
        None => None,
    };
    let report =
        summary::Report::from_lines(&a.results.display().to_string(), &lines, expected.as_ref());
    let format = match a.format {
        Format::Text => summary::Format::Text,
        Format::Markdown => summary::Format::Markdown,
        Format::Csv => summary::Format::Csv,
    };
    let text = report.render(format, a.slowest);
    match &a.output {
        Some(out) => std::fs::write(out, text).map_err(|e| Error::write(out, e))?,
        None => print!("{text}"),
    }
    if let Some(dir) = &a.html {
        let input = html::Input {
            report: &report,
            lines: &lines,
            results: &a.results,
            source_root: a.source_root.as_deref(),
            slowest: a.slowest,
            plots: plots(&a)?,
        };
        let w = html::write(dir, &input)?;
        let missing = match w.missing_sources {
            0 => String::new(),
            n => format!("; {n} without their module's source (see --source-root)"),
        };
        eprintln!(
            "mpv report: wrote {} and {} trace pages{missing}",
            w.index.display(),
            w.traces
        );
    }
    let wrong = report.wrong().len();
    if a.fail_on_wrong && wrong > 0 {
        eprintln!("mpv report: {wrong} wrong verdicts");
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

/// `mpv eval`'s plots of this results file and the `--compare` ones: a
/// scatter plot per configuration against the baseline, and the quantile plot.
fn plots(a: &ReportArgs) -> Result<Vec<html::Plot>> {
    if a.compare.is_empty() {
        return Ok(Vec::new());
    }
    let mut runs = vec![super::eval::load(&a.results.display().to_string())?];
    for c in &a.compare {
        runs.push(super::eval::load(c)?);
    }
    let baseline = match &a.baseline {
        Some(b) => b.clone(),
        None if runs.iter().any(|r| r.name == "baseline") => "baseline".to_string(),
        None => runs[0].name.clone(),
    };
    let cmp = Comparison::new(runs, &baseline)?;
    let base = &cmp.runs[cmp.baseline].name;
    let mut plots = Vec::new();
    for (i, run) in cmp.runs.iter().enumerate() {
        if i != cmp.baseline {
            let title = format!("{} vs {base}: total CPU time per module", run.name);
            let svg = svg::scatter(&title, base, &run.name, &cmp.scatter(i));
            plots.push(html::Plot { title, svg });
        }
    }
    let title = "Total CPU time of the modules with every property decided".to_string();
    let svg = svg::quantile(&title, &cmp.quantiles());
    plots.push(html::Plot { title, svg });
    Ok(plots)
}
