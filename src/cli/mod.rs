//! The command line: argument parsing and output only; no analysis logic.
//! Each subcommand lives in its own file.

mod batch;
mod cfa;
mod eval;
mod report;
mod spec;
mod validate;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mpv",
    version,
    about = "Multi-property verifier for Linux driver API rules"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a C file and print a summary of its control-flow automata.
    Cfa(cfa::CfaArgs),
    /// Check property files and their relevance for a module.
    #[command(subcommand)]
    Spec(spec::SpecCommand),
    /// Verify a module against properties: one result per property.
    Verify(verify::VerifyArgs),
    /// Replay a violation witness: does it confirm the violation?
    Validate(validate::ValidateArgs),
    /// Verify many modules, each in its own process; results as JSON lines.
    Batch(Box<batch::BatchArgs>),
    /// Summarise a results file of `mpv batch`.
    Report(report::ReportArgs),
    /// Compare results files of several configurations (tables and plots).
    Eval(eval::EvalArgs),
}

/// The longest time limit accepted, in seconds (about 31 years): longer
/// ones do not fit the clocks' arithmetic.
const MAX_SECONDS: f64 = 1e9;

/// `--data-model`: the sizes of `long` and of pointers in the input.
#[derive(Clone, Copy, Debug, Default, clap::ValueEnum)]
pub(crate) enum DataModelArg {
    /// x86-64 Linux: `long` and pointers are 64 bits.
    #[default]
    Lp64,
    /// i386 Linux: `long` and pointers are 32 bits (as SV-COMP's 32-bit
    /// tasks and `ldv-regression`'s `.cil.c` files are prepared).
    Ilp32,
}

impl From<DataModelArg> for crate::ir::DataModel {
    fn from(a: DataModelArg) -> Self {
        match a {
            DataModelArg::Lp64 => crate::ir::DataModel::Lp64,
            DataModelArg::Ilp32 => crate::ir::DataModel::Ilp32,
        }
    }
}

/// Parses a number of seconds for a limit: finite, not negative, at most
/// [`MAX_SECONDS`].
pub(crate) fn seconds(s: &str) -> std::result::Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if (0.0..=MAX_SECONDS).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "`{s}` is not a number of seconds from 0 to {MAX_SECONDS:e}"
        ))
    }
}

/// [`seconds`], and more than 0.
pub(crate) fn positive_seconds(s: &str) -> std::result::Result<f64, String> {
    match seconds(s)? {
        v if v > 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

/// Parses a memory limit in MB: at least 1.
pub(crate) fn megabytes(s: &str) -> std::result::Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(format!("`{s}` is not a number of megabytes (at least 1)")),
    }
}

/// Runs the command line; exit code 0 on success, 1 on a user-facing error.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Cfa(a) => cfa::run(a),
        Command::Spec(c) => spec::run(c),
        Command::Verify(a) => verify::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Batch(a) => batch::run(*a),
        Command::Report(a) => report::run(a),
        Command::Eval(a) => eval::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mpv: error: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn limits_are_finite_positive_numbers_the_clocks_can_hold() {
        for bad in ["nan", "inf", "-inf", "-1", "1e30", "", "ten"] {
            assert!(seconds(bad).is_err(), "{bad} accepted");
        }
        assert_eq!(seconds("0"), Ok(0.0));
        assert!(positive_seconds("0").is_err());
        assert_eq!(seconds("2.5"), Ok(2.5));
        assert_eq!(seconds("1e9"), Ok(1e9));
        assert!(megabytes("0").is_err() && megabytes("-5").is_err());
        assert_eq!(megabytes("512"), Ok(512));
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn batch_modes_parse() {
        let ok = |a: &[&str]| {
            Cli::try_parse_from(a)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        ok(&["mpv", "batch", "m.c", "--out", "r.jsonl"]).unwrap();
        ok(&[
            "mpv",
            "batch",
            "m.c",
            "--slurm",
            "--out-dir",
            "d",
            "--array-size",
            "4",
        ])
        .unwrap();
        ok(&[
            "mpv",
            "batch",
            "--collect",
            "d",
            "--out",
            "r.jsonl",
            "--resume",
        ])
        .unwrap();
        ok(&["mpv", "batch", "--status", "d"]).unwrap();
        ok(&["mpv", "batch", "--array-task", "d", "--chunk", "3"]).unwrap();
        assert!(
            ok(&["mpv", "batch", "m.c", "--slurm"]).is_err(),
            "--slurm needs --out-dir"
        );
        assert!(ok(&["mpv", "batch", "--partition", "p", "--out", "r"]).is_err());
        assert!(ok(&["mpv", "batch", "--collect", "d", "--status", "d"]).is_err());
    }
}
