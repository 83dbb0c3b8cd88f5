//! `mpv report`: summarise a results file of `mpv batch`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::batch::{results, summary};
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
        Some(out) => std::fs::write(out, text).map_err(|e| Error::io(out, e))?,
        None => print!("{text}"),
    }
    let wrong = report.wrong().len();
    if a.fail_on_wrong && wrong > 0 {
        eprintln!("mpv report: {wrong} wrong verdicts");
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}
