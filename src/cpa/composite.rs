//! The composite CPA over the location and call-stack CPAs and one data
//! analysis `D`; it decides which steps leave a state (CFA edges, entering a
//! callee, returning to the caller) and which states are targets.
//!
//! The data analysis is [`NoData`] or the explicit-value analysis
//! ([`super::value`]); its states are joined only at loop heads.
//! With [`NoData`] the composite tracks only control: every path of the CFA
//! is feasible for it, so an unreachable target location proves the property
//! (an over-approximation of all executions), while a reachable one proves
//! nothing. The LOOM composite of issue 5 extends this one with the
//! specification CPAs and on-the-fly weaving.
//!
//! Functions without a body are assumed not to call back into the module
//! (LDV's environment model calls the module's callbacks itself); calls of
//! `Abort` functions end the path.

use super::callstack::{CallStack, CallstackCpa};
use super::location::LocationCpa;
use super::{Cpa, Transition};
use crate::cfa::{EdgeId, EdgeOp, LocId, Program};
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

#[derive(Clone, Debug, PartialEq)]
pub struct CompositeState<D> {
    pub loc: LocId,
    pub stack: CallStack,
    pub data: D,
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

/// Location × call stack × `D`, with targets given by location labels.
pub struct CompositeCpa<'p, D: Cpa> {
    pub program: &'p Program,
    location: LocationCpa<'p>,
    callstack: CallstackCpa<'p>,
    pub data: D,
    /// Labels whose locations violate the property.
    target_labels: Vec<String>,
    /// Locations carrying a target label (precomputed).
    targets: Vec<bool>,
    merge_policy: MergePolicy,
    /// Reverse-postorder number per location (waitlist priority).
    rpo: Vec<u32>,
}

impl<'p, D: Cpa> CompositeCpa<'p, D> {
    pub fn new(program: &'p Program, data: D, target_labels: Vec<String>) -> Self {
        Self::with_merge(program, data, target_labels, MergePolicy::LoopHeads)
    }

    pub fn with_merge(
        program: &'p Program,
        data: D,
        target_labels: Vec<String>,
        merge_policy: MergePolicy,
    ) -> Self {
        let targets = target_locations(program, &target_labels);
        let rpo = match merge_policy {
            MergePolicy::Data => crate::cfa::loops::reverse_postorder(program),
            MergePolicy::LoopHeads => Vec::new(),
        };
        CompositeCpa {
            program,
            location: LocationCpa { program },
            callstack: CallstackCpa { program },
            data,
            target_labels,
            targets,
            merge_policy,
            rpo,
        }
    }

    pub fn target_labels(&self) -> &[String] {
        &self.target_labels
    }
}

impl<'p, D: Cpa> Cpa for CompositeCpa<'p, D> {
    type State = CompositeState<D::State>;
    type Precision = D::Precision;

    fn initial_state(&self, start: LocId) -> Self::State {
        CompositeState {
            loc: self.location.initial_state(start),
            stack: self.callstack.initial_state(start),
            data: self.data.initial_state(start),
        }
    }

    fn initial_precision(&self, start: LocId) -> D::Precision {
        self.data.initial_precision(start)
    }

    fn transitions<'a>(&'a self, s: &'a Self::State) -> Vec<Transition<'a>> {
        control_transitions(self.program, s.loc, &s.stack)
    }

    fn transfer(
        &self,
        s: &Self::State,
        step: &Transition,
        prec: &D::Precision,
    ) -> Vec<Self::State> {
        let mut out = Vec::new();
        for loc in self.location.transfer(&s.loc, step, &()) {
            for stack in self.callstack.transfer(&s.stack, step, &()) {
                for data in self.data.transfer(&s.data, step, prec) {
                    out.push(CompositeState {
                        loc,
                        stack: stack.clone(),
                        data,
                    });
                }
            }
        }
        out
    }

    /// Data states of the same location and call stack are merged by the
    /// data analysis: at loop heads only ([`MergePolicy::LoopHeads`], which
    /// keeps loops finite) or wherever it merges ([`MergePolicy::Data`]).
    fn merge(&self, new: &Self::State, reached: &Self::State, prec: &D::Precision) -> Self::State {
        if new.loc == reached.loc
            && new.stack == reached.stack
            && (self.merge_policy == MergePolicy::Data || self.program.loc(new.loc).loop_head)
        {
            CompositeState {
                loc: reached.loc,
                stack: reached.stack.clone(),
                data: self.data.merge(&new.data, &reached.data, prec),
            }
        } else {
            reached.clone()
        }
    }

    fn less_or_equal(&self, a: &Self::State, b: &Self::State) -> bool {
        a.loc == b.loc && a.stack == b.stack && self.data.less_or_equal(&a.data, &b.data)
    }

    fn is_target(&self, s: &Self::State) -> bool {
        self.targets[s.loc.0 as usize]
    }

    fn prec(&self, s: Self::State, prec: D::Precision) -> Option<(Self::State, D::Precision)> {
        let (data, prec) = self.data.prec(s.data, prec)?;
        Some((
            CompositeState {
                loc: s.loc,
                stack: s.stack,
                data,
            },
            prec,
        ))
    }

    /// The data analysis's priority first, then locations in reverse
    /// postorder (a location after its predecessors).
    fn priority(&self, s: &Self::State) -> (u64, u64) {
        location_priority(self.data.priority(&s.data), &self.rpo, s.loc)
    }

    fn partition_key(&self, s: &Self::State) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        s.loc.hash(&mut h);
        s.stack.hash(&mut h);
        h.finish()
    }
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

/// The call edge of a step, if it is a call or return (for reports).
pub fn call_edge(step: &Transition) -> Option<EdgeId> {
    match step {
        Transition::Enter { call, .. } | Transition::Return { call, .. } => Some(*call),
        _ => None,
    }
}
