//! The location CPA: the program counter. Its state is a CFA location; its
//! transfer follows the step (edge target, callee entry, return site).

use super::{Cpa, Transition};
use crate::cfa::{LocId, Program};

pub struct LocationCpa<'p> {
    pub program: &'p Program,
}

impl Cpa for LocationCpa<'_> {
    type State = LocId;
    type Precision = ();

    fn initial_state(&self, start: LocId) -> LocId {
        start
    }

    fn initial_precision(&self, _start: LocId) {}

    fn transfer(&self, state: &LocId, step: &Transition, _prec: &()) -> Vec<LocId> {
        match step {
            Transition::Edge { edge, .. } | Transition::Return { edge, .. } => vec![edge.to],
            Transition::Enter { callee, .. } => match &self.program.func(*callee).body {
                Some(b) => vec![b.entry],
                None => vec![],
            },
            Transition::Woven(_) => vec![*state],
        }
    }

    fn less_or_equal(&self, a: &LocId, b: &LocId) -> bool {
        a == b
    }

    fn partition_key(&self, state: &LocId) -> u64 {
        state.0 as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{parse_source, FrontendOptions};

    #[test]
    fn follows_edges_and_enters_callees() {
        let p = parse_source(
            "t.c",
            "int f(void) { return 1; } int main(void) { return f(); }",
            &FrontendOptions::default(),
        )
        .unwrap();
        let cpa = LocationCpa { program: &p };
        let f = p.func_by_name("f").unwrap();
        let call = p
            .edges
            .iter()
            .position(|e| matches!(e.op, crate::cfa::EdgeOp::Call { callee, .. } if callee == f))
            .unwrap();
        let id = crate::cfa::EdgeId(call as u32);
        let edge = p.edge(id);
        let entered = cpa.transfer(
            &edge.from,
            &Transition::Enter {
                call: id,
                edge,
                callee: f,
            },
            &(),
        );
        assert_eq!(entered, vec![p.func(f).body.as_ref().unwrap().entry]);
        let exit = p.func(f).body.as_ref().unwrap().exit;
        assert_eq!(
            cpa.transfer(
                &exit,
                &Transition::Return {
                    call: id,
                    edge,
                    callee: f
                },
                &()
            ),
            vec![edge.to]
        );
    }
}
