//! `mpv validate`: replays a violation witness (YAML format 2.0) against a
//! program and says whether it confirms the violation: exit code 0 and
//! `confirmed` when a feasible path through its waypoints reaches the
//! error, 2 and `not confirmed` when none does, 3 and `unknown` otherwise.
//! A violation feasible only under LDV's assumptions (the witness says the
//! verifier needed them, or the exact check does) is confirmed with them
//! listed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::verify::{bind, load_properties, Loaded, PropertyArgs};
use crate::algorithm::replay::{replay, Replay};
use crate::cpa::loom::{LoomGoal, LoomProperty};
use crate::frontend::{parse_file, FrontendOptions};
use crate::spec::{Property, PropertyId};
use crate::witness;
use crate::{Error, Result};

#[derive(clap::Args)]
pub struct ValidateArgs {
    /// The violation witness (YAML format 2.0).
    #[arg(long)]
    witness: PathBuf,
    /// The C program the witness is about.
    file: PathBuf,
    #[command(flatten)]
    props: PropertyArgs,
    /// The data model the program was prepared for.
    #[arg(long, value_enum, default_value = "lp64")]
    data_model: super::DataModelArg,
    /// CPU-time limit of the replay in seconds.
    #[arg(long, default_value_t = 60.0)]
    time_limit: f64,
}

pub fn run(args: ValidateArgs) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&args.witness).map_err(|e| Error::io(&args.witness, e))?;
    let w = witness::read::parse(&text)
        .map_err(|e| Error::Usage(format!("{}: {e}", args.witness.display())))?;
    let Loaded {
        mut props,
        automata,
        entry,
        svcomp,
    } = load_properties(&args.props)?;
    let options = FrontendOptions {
        entry: args
            .props
            .entry
            .clone()
            .or(entry)
            .unwrap_or_else(|| "main".into()),
        data_model: args.data_model.into(),
        ..FrontendOptions::default()
    };
    let mut program = parse_file(&args.file, &options)?;
    let source = std::fs::read(&args.file).map_err(|e| Error::io(&args.file, e))?;
    let source = String::from_utf8_lossy(&source);
    let bound = bind(&automata, &mut program, &args.props.select, &mut props);
    let stated = |p: &Property| {
        svcomp
            .iter()
            .find(|(id, _)| *id == p.id)
            .map_or_else(|| witness::specification(p), |(_, s)| s.clone())
    };
    let property = match props.iter().find(|p| stated(p) == w.specification) {
        Some(p) => p,
        None if props.len() == 1 => &props[0],
        None => {
            return Err(Error::Usage(format!(
                "the witness is about `{}`, none of the given properties; pick one with --select",
                w.specification
            )))
        }
    };
    let Some(goal) = LoomGoal::of(&property.goal) else {
        return Err(Error::Usage(format!(
            "`{}` is not an automaton",
            property.id
        )));
    };
    let loom = LoomProperty {
        id: PropertyId(0),
        goal,
    };
    let cpu = Some(Duration::from_secs_f64(args.time_limit.max(0.0)));
    // The replay's budget counts work; the time limit is CPU time.
    let _limit = crate::smt::work::time_limit(cpu);
    let head = format!(
        "{}: witness {} for {}",
        args.file.display(),
        args.witness.display(),
        property.id
    );
    let (line, code) = match replay(&program, &bound, loom, &property.id, &w, &source, cpu) {
        Replay::Confirmed(cex) => {
            let under = match cex.assumptions.is_empty() {
                true => String::new(),
                false => format!(" under LDV's assumptions: {}", cex.assumptions.join("; ")),
            };
            (
                format!(
                "{head}: confirmed (a feasible error path of {} steps through its {} waypoints{under})",
                cex.steps.len(),
                w.waypoints.len()
            ),
                0,
            )
        }
        Replay::Refuted => (
            format!(
                "{head}: not confirmed (no feasible path through its waypoints reaches the error)"
            ),
            2,
        ),
        Replay::Unknown(why) => (format!("{head}: unknown ({why})"), 3),
    };
    println!("{line}");
    Ok(ExitCode::from(code))
}
