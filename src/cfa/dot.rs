//! Graphviz output of CFAs.

use std::fmt::Write;

use super::Program;
use crate::cfa::print::op_to_string;
use crate::ir::FuncId;

/// The CFAs of the given functions (all defined ones if empty) as a DOT graph.
pub fn to_dot(p: &Program, only: &[FuncId]) -> String {
    let mut s = String::from("digraph cfa {\n  node [shape=circle fontsize=10];\n");
    for (i, f) in p.functions.iter().enumerate() {
        let fid = FuncId(i as u32);
        let Some(body) = &f.body else { continue };
        if !only.is_empty() && !only.contains(&fid) {
            continue;
        }
        let _ = writeln!(
            s,
            "  subgraph cluster_{i} {{\n    label=\"{}\";",
            escape(&f.name)
        );
        for (l, loc) in p
            .locations
            .iter()
            .enumerate()
            .filter(|(_, loc)| loc.func == fid)
        {
            let shape = if l as u32 == body.entry.0 {
                "doublecircle"
            } else if loc.loop_head {
                "box"
            } else {
                "circle"
            };
            let label = if loc.labels.is_empty() {
                format!("{l}")
            } else {
                format!("{l}\\n{}", escape(&loc.labels.join(",")))
            };
            let _ = writeln!(s, "    n{l} [label=\"{label}\" shape={shape}];");
        }
        s.push_str("  }\n");
    }
    for e in &p.edges {
        let func = p.loc(e.from).func;
        if p.func(func).body.is_none() || (!only.is_empty() && !only.contains(&func)) {
            continue;
        }
        let _ = writeln!(
            s,
            "  n{} -> n{} [label=\"{}: {}\"];",
            e.from.0,
            e.to.0,
            e.pos.line,
            escape(&op_to_string(p, &e.op))
        );
    }
    s.push_str("}\n");
    s
}

fn escape(t: &str) -> String {
    t.replace('\\', "\\\\").replace('"', "\\\"")
}
