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
    Batch(batch::BatchArgs),
    /// Summarise a results file of `mpv batch`.
    Report(report::ReportArgs),
    /// Compare results files of several configurations (tables and plots).
    Eval(eval::EvalArgs),
}

/// Runs the command line; exit code 0 on success, 1 on a user-facing error.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Cfa(a) => cfa::run(a),
        Command::Spec(c) => spec::run(c),
        Command::Verify(a) => verify::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Batch(a) => batch::run(a),
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
