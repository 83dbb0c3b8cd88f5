//! `mpv cfa`: parse a C file and summarise its control-flow automata.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cfa::{EdgeOp, Program};
use crate::frontend::{parse_file_timed, FrontendOptions};
use crate::ir::FunctionKind;
use crate::{Error, Result};

#[derive(clap::Args)]
pub struct CfaArgs {
    /// The C file (preprocessed; LDV `.c`/`.i` modules).
    file: PathBuf,
    /// Write the CFAs as a Graphviz graph to this file.
    #[arg(long)]
    dot: Option<PathBuf>,
    /// Restrict the summary and graph to this function.
    #[arg(long)]
    function: Option<String>,
    /// The entry function of the program.
    #[arg(long, default_value = "main")]
    entry: String,
    /// Build CFAs for every function, also those the entry cannot reach
    /// (by default their text is left out before parsing).
    #[arg(long)]
    all_functions: bool,
    /// The data model the program was prepared for.
    #[arg(long, value_enum, default_value = "lp64")]
    data_model: super::DataModelArg,
}

pub fn run(args: CfaArgs) -> Result<ExitCode> {
    let options = FrontendOptions {
        entry: args.entry.clone(),
        prune: !args.all_functions,
        data_model: args.data_model.into(),
    };
    let size = std::fs::metadata(&args.file)
        .map_err(|e| Error::io(&args.file, e))?
        .len();
    let (p, times) = parse_file_timed(&args.file, &options)?;
    let only = match &args.function {
        Some(name) => match p.func_by_name(name) {
            Some(f) if p.func(f).body.is_some() => vec![f],
            _ => {
                return Err(Error::Usage(format!(
                    "{}: no function `{name}` with a body",
                    args.file.display()
                )))
            }
        },
        None => Vec::new(),
    };
    print!("{}", summary(&p, &only));
    println!(
        "input:            {} bytes, {} left out unparsed (top-level items the entry cannot reach)",
        size, times.pruned_bytes
    );
    println!(
        "time:             parse {:.1} ms, cfa {:.1} ms ({:.1} MB/s)",
        times.parse.as_secs_f64() * 1e3,
        times.cfa.as_secs_f64() * 1e3,
        size as f64 / 1e6 / (times.parse + times.cfa).as_secs_f64().max(1e-9)
    );
    if let Some(out) = &args.dot {
        std::fs::write(out, crate::cfa::dot::to_dot(&p, &only))
            .map_err(|e| Error::write(out, e))?;
        println!("dot:              {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The textual summary of a program's CFAs.
pub fn summary(p: &Program, only: &[crate::ir::FuncId]) -> String {
    let in_scope = |f: crate::ir::FuncId| only.is_empty() || only.contains(&f);
    let defined = p
        .functions
        .iter()
        .enumerate()
        .filter(|(i, f)| f.body.is_some() && in_scope(crate::ir::FuncId(*i as u32)))
        .count();
    let external = p
        .functions
        .iter()
        .filter(|f| f.kind != FunctionKind::Defined)
        .count();
    let locs = p.locations.iter().filter(|l| in_scope(l.func)).count();
    let heads = p
        .locations
        .iter()
        .filter(|l| in_scope(l.func) && l.loop_head)
        .count();
    let edges: Vec<_> = p
        .edges
        .iter()
        .filter(|e| in_scope(p.loc(e.from).func))
        .collect();
    let sites: Vec<_> = edges
        .iter()
        .filter(|e| matches!(e.op, EdgeOp::CallUnknown { .. }))
        .collect();
    // A site without candidates has its fallback edge straight from the call location.
    let unresolved = sites
        .iter()
        .filter(|e| !p.incoming(e.from).iter().any(|&i| matches!(&p.edge(i).op, EdgeOp::Assume { cond, truth: false } if is_pointer_case(cond))))
        .count();
    let candidates = edges
        .iter()
        .filter(|e| matches!(&e.op, EdgeOp::Assume { cond, truth: true } if is_pointer_case(cond)))
        .count();
    let globals = p
        .vars
        .iter()
        .filter(|v| v.scope == crate::ir::Scope::Global)
        .count();
    let entry = p
        .entry_func
        .map(|f| p.func(f).name.clone())
        .unwrap_or_default();
    format!(
        "entry:            {entry}\nfunctions:        {defined} defined, {external} without body\nlocations:        {locs}\nedges:            {}\nloop heads:       {heads}\npointer calls:    {} sites, {candidates} candidate calls, {unresolved} sites without a candidate\nglobals:          {globals}\n",
        edges.len(),
        sites.len()
    )
}

/// `fp == &f`: the guard of a resolved function-pointer candidate.
fn is_pointer_case(cond: &crate::ir::Expr) -> bool {
    use crate::ir::{BinaryOp, ExprKind};
    matches!(&cond.kind, ExprKind::Binary(BinaryOp::Eq, _, b) if matches!(&b.kind, ExprKind::AddrOf(f) if matches!(f.kind, ExprKind::Func(_))))
}
