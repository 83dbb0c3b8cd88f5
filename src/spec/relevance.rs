//! Property relevance (paper 002, Sect. 3): a property is relevant for a
//! program if a transition towards one of its states syntactically matches a
//! CFA edge. For a `label:L` property that is an edge into a location
//! labelled `L`; for `call:f`, a call edge of `f`. Irrelevant properties hold
//! trivially: nothing in the program can drive their automaton anywhere.

use super::{Goal, Property};
use crate::cfa::{EdgeOp, Program};

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
