//! `mpv spec`: check property files and show which properties a module makes relevant.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::frontend::{parse_file, FrontendOptions};
use crate::spec::{prp, relevance, Property};
use crate::{Error, Result};

#[derive(clap::Subcommand)]
pub enum SpecCommand {
    /// Validate property files and list their properties.
    Check {
        /// Property files (SV-COMP `.prp`).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// List the properties that are relevant for a module.
    Relevance {
        /// The C module.
        file: PathBuf,
        /// Property files (SV-COMP `.prp`).
        #[arg(long = "prp", required = true)]
        prp: Vec<PathBuf>,
        /// The entry function of the program.
        #[arg(long, default_value = "main")]
        entry: String,
    },
}

/// Loads the properties of the given files, in order.
fn load(paths: &[PathBuf]) -> Result<Vec<Property>> {
    let mut out = Vec::new();
    for p in paths {
        match p.extension().and_then(|e| e.to_str()) {
            Some("prp") => out.extend(prp::load(p)?),
            _ => {
                return Err(Error::Usage(format!(
                    "{}: not a property file mpv reads (supported: SV-COMP `.prp`)",
                    p.display()
                )))
            }
        }
    }
    Ok(out)
}

pub fn run(cmd: SpecCommand) -> Result<ExitCode> {
    match cmd {
        SpecCommand::Check { paths } => {
            for p in load(&paths)? {
                println!("{:<28} {}  ({})", p.id, p.description, p.origin);
            }
        }
        SpecCommand::Relevance { file, prp, entry } => {
            let props = load(&prp)?;
            let program = parse_file(&file, &FrontendOptions { entry })?;
            for p in &props {
                let r = relevance::is_relevant(&program, p);
                println!("{:<28} {}", p.id, if r { "relevant" } else { "irrelevant" });
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
