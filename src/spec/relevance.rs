//! Property relevance (paper 002, Sect. 3): a property is relevant for a
//! program if a transition towards one of its states syntactically matches a
//! CFA edge. For a `label:L` property that is an edge into a location
//! labelled `L`; for `call:f`, a call edge of `f`. Irrelevant properties hold
//! trivially: nothing in the program can drive their automaton anywhere.

use crate::hash::HashMap;

use super::automaton::SpecAutomaton;
use super::bound::matches_edge;
use super::dsl::PatKind;
use super::{Goal, Property, PropertySet};
use crate::cfa::{EdgeOp, Program};

/// The properties of automaton `a` relevant for `program`: those in P(τ)
/// of a transition τ whose pattern matches a CFA edge (P(τ) = properties
/// whose error states the target of τ can reach). One pass over the edges;
/// blocks are looked up by callee name, so the cost is linear in the
/// program. Program exit matches every program and is not counted: an
/// at-exit check becomes relevant through the transitions that lead to it.
/// Transitions leaving a control state that no matching transition (nor
/// program exit) leads to from the initial state are not counted either:
/// the automaton can never be there, whatever the data.
pub fn automaton_relevance(program: &Program, a: &SpecAutomaton) -> PropertySet {
    let tprops = a.transition_properties();
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::default();
    let mut labels: Vec<usize> = Vec::new();
    for (bi, b) in a.blocks.iter().enumerate() {
        for p in &b.patterns {
            match &p.kind {
                PatKind::Call { func, .. } | PatKind::Entry(func) | PatKind::Return(func) => {
                    by_name.entry(func.as_str()).or_default().push(bi)
                }
                PatKind::Label(_) => labels.push(bi),
                PatKind::ProgramExit => {}
            }
        }
    }
    let mut matched = vec![false; a.blocks.len()];
    for e in &program.edges {
        let mut cands: Vec<usize> = labels.clone();
        if let EdgeOp::Call { callee, .. } = &e.op {
            if let Some(v) = by_name.get(program.func(*callee).name.as_str()) {
                cands.extend(v);
            }
        }
        for bi in cands {
            if !matched[bi]
                && a.blocks[bi]
                    .patterns
                    .iter()
                    .any(|p| matches_edge(p, program, e))
            {
                matched[bi] = true;
            }
        }
    }
    // Only states the automaton can reach through matching transitions (or
    // program exit, which every program has) count: a transition out of a
    // state no matching edge leads to cannot fire.
    let exit_block: Vec<bool> = a
        .blocks
        .iter()
        .map(|b| b.patterns.iter().any(|p| p.kind == PatKind::ProgramExit))
        .collect();
    let mut reach = vec![false; a.states.len()];
    reach[a.initial as usize] = true;
    let mut work = vec![a.initial];
    while let Some(q) = work.pop() {
        for &bi in &a.states[q as usize].blocks {
            if !(matched[bi] || exit_block[bi]) {
                continue;
            }
            for &t in &a.blocks[bi].transitions {
                let to = a.transitions[t].to as usize;
                if !reach[to] {
                    reach[to] = true;
                    work.push(to as u32);
                }
            }
        }
    }
    let mut out = PropertySet::new();
    for (bi, b) in a.blocks.iter().enumerate() {
        if matched[bi] && reach[b.from as usize] {
            for &t in &b.transitions {
                for p in tprops[t].iter() {
                    out.insert(p);
                }
            }
        }
    }
    out
}

/// Whether some CFA edge of `program` matches a transition of `property`.
pub fn is_relevant(program: &Program, property: &Property) -> bool {
    match &property.goal {
        Goal::Label(l) => program
            .edges
            .iter()
            .any(|e| program.loc(e.to).labels.iter().any(|x| x == l)),
        Goal::Call(f) => match program.func_by_name(f) {
            Some(fid) => program
                .edges
                .iter()
                .any(|e| matches!(&e.op, EdgeOp::Call { callee, .. } if *callee == fid)),
            None => false,
        },
        // Needs the automaton: see `automaton_relevance`.
        Goal::Rule { .. } => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{parse_source, FrontendOptions};
    use crate::spec::prp;

    #[test]
    fn labels_and_calls_that_occur_are_relevant() {
        let src = "void err(void); int g; int main(void) { if (g) { ERROR: err(); } return 0; }";
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let props = prp::parse(
            "x.prp",
            "CHECK( init(main()), LTL(G ! label(ERROR)) )\nCHECK( init(main()), LTL(G ! label(LDV_ERROR)) )\nCHECK( init(main()), LTL(G ! call(err())) )\nCHECK( init(main()), LTL(G ! call(abort())) )",
        )
        .unwrap();
        let rel: Vec<bool> = props.iter().map(|q| is_relevant(&p, q)).collect();
        assert_eq!(rel, vec![true, false, true, false]);
    }
}
