//! `mpv spec`: check rule and property files, and show which properties a
//! module makes relevant.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::frontend::{parse_file, FrontendOptions};
use crate::spec::automaton::{SpecAutomaton, StateKind};
use crate::spec::{library, prp, relevance, spc, Property};
use crate::{Error, Result};

/// Where properties come from; none given = the bundled rule library.
#[derive(clap::Args, Default)]
pub struct PropertyArgs {
    /// Rule file (`.spec`) or directory of rule files (repeatable).
    #[arg(long = "properties")]
    pub properties: Vec<PathBuf>,
    /// SV-COMP property file (repeatable).
    #[arg(long = "prp")]
    pub prp: Vec<PathBuf>,
    /// CPAchecker automaton file (repeatable).
    #[arg(long = "spc")]
    pub spc: Vec<PathBuf>,
}

#[derive(clap::Subcommand)]
pub enum SpecCommand {
    /// Validate rule and property files; list each property with its
    /// description, error messages and the API functions it matches.
    Check {
        /// `.spec`, `.spc`, `.prp` files or directories of `.spec` files.
        paths: Vec<PathBuf>,
        #[command(flatten)]
        props: PropertyArgs,
    },
    /// List the properties that are relevant for modules.
    Relevance {
        /// The C modules.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        props: PropertyArgs,
        /// The entry function of the program.
        #[arg(long, default_value = "main")]
        entry: String,
    },
}

/// The loaded properties: automata (rules, `.spc`) and SV-COMP properties.
struct Loaded {
    automata: Vec<SpecAutomaton>,
    prp: Vec<Property>,
}

fn load(paths: &[PathBuf], a: &PropertyArgs) -> Result<Loaded> {
    let mut out = Loaded {
        automata: Vec::new(),
        prp: Vec::new(),
    };
    for p in paths {
        match p.extension().and_then(|e| e.to_str()) {
            Some("prp") => out.prp.extend(prp::load(p)?),
            _ => out.automata.extend(library::load(p)?),
        }
    }
    for p in &a.properties {
        out.automata.extend(library::load(p)?);
    }
    for p in &a.spc {
        out.automata.extend(spc::load(p)?);
    }
    for p in &a.prp {
        out.prp.extend(prp::load(p)?);
    }
    if paths.is_empty() && a.properties.is_empty() && a.spc.is_empty() && a.prp.is_empty() {
        out.automata = library::bundled()?;
    }
    let mut seen = std::collections::HashSet::new();
    for id in out
        .automata
        .iter()
        .flat_map(|x| x.properties.iter().map(|p| &p.id))
        .chain(out.prp.iter().map(|p| &p.id))
    {
        if !seen.insert(id.clone()) {
            return Err(Error::Usage(format!(
                "property `{id}` is defined twice among the given property files"
            )));
        }
    }
    Ok(out)
}

fn print_automaton(a: &SpecAutomaton) {
    let apis = a.api_functions();
    for (i, p) in a.properties.iter().enumerate() {
        println!(
            "{:<8} {}  ({}, automaton {})",
            p.id, p.description, a.origin, a.name
        );
        for s in &a.states {
            if let StateKind::Error { property, message } = &s.kind {
                if *property == i {
                    println!("         error {}: {message}", s.name);
                }
            }
        }
        println!("         matches: {}", apis.join(", "));
    }
}

pub fn run(cmd: SpecCommand) -> Result<ExitCode> {
    match cmd {
        SpecCommand::Check { paths, props } => {
            let l = load(&paths, &props)?;
            for a in &l.automata {
                print_automaton(a);
            }
            for p in &l.prp {
                println!("{:<28} {}  ({})", p.id, p.description, p.origin);
            }
            let n: usize = l.automata.iter().map(|a| a.properties.len()).sum();
            println!(
                "ok: {} properties ({} automata, {} SV-COMP properties)",
                n + l.prp.len(),
                l.automata.len(),
                l.prp.len()
            );
        }
        SpecCommand::Relevance {
            files,
            props,
            entry,
        } => {
            let l = load(&[], &props)?;
            let several = files.len() > 1;
            for file in &files {
                let program = parse_file(
                    file,
                    &FrontendOptions {
                        entry: entry.clone(),
                        ..FrontendOptions::default()
                    },
                )?;
                let prefix = if several {
                    format!("{}\t", file.display())
                } else {
                    String::new()
                };
                let word = |relevant: bool, vacuous: bool| match (relevant, vacuous) {
                    (_, true) => "vacuous (TRUE)",
                    (true, false) => "relevant",
                    (false, false) => "irrelevant",
                };
                for a in &l.automata {
                    let (rel, vac) = relevance::automaton_classes(&program, a);
                    for (i, p) in a.properties.iter().enumerate() {
                        let id = crate::spec::PropertyId(i as u32);
                        let w = word(rel.contains(id), vac.contains(id));
                        println!("{prefix}{:<28} {w}", p.id);
                    }
                }
                for p in &l.prp {
                    let (relevant, vacuous) = relevance::property_classes(&program, p);
                    let w = word(relevant, vacuous);
                    println!("{prefix}{:<28} {w}", p.id);
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
