//! `mpv eval`: compare results files of several configurations (tables and plots).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::batch::results;
use crate::eval::{self, svg, Comparison, Run};
use crate::{Error, Result};

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Markdown,
}

#[derive(clap::Args)]
pub struct EvalArgs {
    /// A configuration's results file of `mpv batch`, as NAME=FILE (repeatable).
    /// A bare FILE is named by its lines' `strategy`, else by its file name.
    #[arg(long = "run", value_name = "NAME=FILE", required = true)]
    runs: Vec<String>,
    /// The run the others are compared to.
    #[arg(long, default_value = "baseline")]
    baseline: String,
    /// Also write table.md, table.csv, scatter-CONFIG.svg per configuration
    /// other than the baseline, and quantile.svg into this directory.
    #[arg(long)]
    out_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// `NAME=FILE`, or a bare `FILE` (also when the text before `=` looks like a path).
fn split_run(arg: &str) -> (Option<&str>, &str) {
    match arg.split_once('=') {
        Some((name, file)) if !name.is_empty() && !name.contains('/') => (Some(name), file),
        _ => (None, arg),
    }
}

/// A run from `NAME=FILE` or a bare `FILE` (named by its lines' strategy, else its file name).
pub(super) fn load(arg: &str) -> Result<Run> {
    let (name, file) = split_run(arg);
    let path = Path::new(file);
    let lines = results::read(path)?;
    let name = match name {
        Some(n) => n.to_string(),
        None => eval::strategy_of(&lines).unwrap_or_else(|| {
            path.file_stem()
                .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned())
        }),
    };
    Ok(Run::from_lines(&name, file, &lines))
}

/// A configuration name as a file-name part.
fn file_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::write(path, e))?;
    eprintln!("mpv eval: wrote {}", path.display());
    Ok(())
}

pub fn run(a: EvalArgs) -> Result<ExitCode> {
    let runs = a.runs.iter().map(|r| load(r)).collect::<Result<Vec<_>>>()?;
    let cmp = Comparison::new(runs, &a.baseline)?;
    let rows = cmp.rows();
    print!(
        "{}",
        eval::render_table(&cmp, &rows, matches!(a.format, Format::Markdown))
    );
    let costs = cmp.cost_rows();
    print!(
        "\n{}",
        eval::cost::render(&cmp, &costs, matches!(a.format, Format::Markdown))
    );
    let Some(dir) = &a.out_dir else {
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    write(
        &dir.join("table.md"),
        &eval::render_table(&cmp, &rows, true),
    )?;
    write(&dir.join("table.csv"), &eval::render_csv(&rows))?;
    write(
        &dir.join("cost.md"),
        &eval::cost::render(&cmp, &costs, true),
    )?;
    let base = &cmp.runs[cmp.baseline].name;
    for (i, run) in cmp.runs.iter().enumerate() {
        if i == cmp.baseline {
            continue;
        }
        let title = format!("{} vs {base}: total CPU time per module", run.name);
        let plot = svg::scatter(&title, base, &run.name, &cmp.scatter(i));
        write(
            &dir.join(format!("scatter-{}.svg", file_part(&run.name))),
            &plot,
        )?;
    }
    let plot = svg::quantile(
        "Total CPU time of the modules with every property decided",
        &cmp.quantiles(),
    );
    write(&dir.join("quantile.svg"), &plot)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_arguments() {
        assert_eq!(split_run("s4=out/s4.jsonl"), (Some("s4"), "out/s4.jsonl"));
        assert_eq!(split_run("out/s4.jsonl"), (None, "out/s4.jsonl"));
        assert_eq!(split_run("out/a=b.jsonl"), (None, "out/a=b.jsonl"));
        assert_eq!(file_part("s4 (β=2)"), "s4____2_");
    }
}
