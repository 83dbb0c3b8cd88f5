//! What composing the location and call-stack CPAs with a data analysis
//! needs, shared by the LOOM composite ([`super::loom`]) and symbolic
//! execution: the steps leaving a program location
//! ([`control_transitions`]), where data states may be merged
//! ([`MergePolicy`]), the waitlist order ([`location_priority`]), label
//! targets ([`target_locations`]), and [`NoData`], the data analysis that
//! tracks nothing (control only: every CFA path is feasible for it).
//!
//! Functions without a body are assumed not to call back into the module
//! (LDV's environment model calls the module's callbacks itself); calls of
//! `Abort` functions end the path.

use super::callstack::CallStack;
use super::{Cpa, Transition};
use crate::cfa::{EdgeOp, LocId, Program};
use crate::ir::FunctionKind;

/// A data analysis that tracks nothing.
pub struct NoData;

impl Cpa for NoData {
    type State = ();
    type Precision = ();
    fn initial_state(&self, _start: LocId) {}
    fn initial_precision(&self, _start: LocId) {}
    fn transfer(&self, _state: &(), _step: &Transition, _prec: &()) -> Vec<()> {
        vec![()]
    }
    fn less_or_equal(&self, _a: &(), _b: &()) -> bool {
        true
    }
}

/// Where the composite lets its data analysis merge states of the same
/// location and call stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergePolicy {
    /// Only at loop heads (elsewhere merge-sep).
    LoopHeads,
    /// Everywhere: the data analysis's own `merge` decides (large-block
    /// encoding merges inside a block and keeps abstraction states apart).
    Data,
}

/// The steps leaving location `loc` under call stack `stack`: CFA edges,
/// entering the body of a called function (unless recursive: then the call
/// is an ordinary edge), or at a function's exit the return to the call on
/// top of the stack. Calls of `Abort` functions end the path.
pub fn control_transitions<'a>(
    p: &'a Program,
    loc: LocId,
    stack: &CallStack,
) -> Vec<Transition<'a>> {
    let mut out = Vec::new();
    let func = p.loc(loc).func;
    if p.func(func).body.as_ref().is_some_and(|b| b.exit == loc) {
        if let Some(call) = stack.top() {
            out.push(Transition::Return {
                call,
                edge: p.edge(call),
                callee: func,
            });
        }
        return out;
    }
    for &id in p.outgoing(loc) {
        let edge = p.edge(id);
        match &edge.op {
            EdgeOp::Call { callee, .. } => {
                let f = p.func(*callee);
                if f.kind == FunctionKind::Abort {
                    continue;
                }
                if f.body.is_some() && !stack.contains(*callee) {
                    out.push(Transition::Enter {
                        call: id,
                        edge,
                        callee: *callee,
                    });
                } else {
                    out.push(Transition::Edge { id, edge });
                }
            }
            _ => out.push(Transition::Edge { id, edge }),
        }
    }
    out
}

/// A composite's waitlist priority: the data analysis's first, then the
/// location's reverse-postorder number `rpo` (a location after its
/// predecessors; empty `rpo`: no order).
pub fn location_priority(data: (u64, u64), rpo: &[u32], loc: LocId) -> (u64, u64) {
    let n = rpo.get(loc.0 as usize).copied().unwrap_or(0);
    (data.0, u64::MAX - n as u64)
}

/// The locations carrying one of `labels`, as a flag per location.
pub fn target_locations(program: &Program, labels: &[String]) -> Vec<bool> {
    program
        .locations
        .iter()
        .map(|l| l.labels.iter().any(|x| labels.contains(x)))
        .collect()
}
