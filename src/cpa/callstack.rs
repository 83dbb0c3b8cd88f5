//! The call-stack CPA: the chain of call edges the analysis is inside, so a
//! return goes back to the caller that made the call (function calls are
//! inlined).
//!
//! Recursion is cut: a call of a function that is already on the stack is not
//! entered; the data analyses give its result, the globals it may assign and
//! (if it may write any) memory arbitrary values ([`crate::cfa::effects`]),
//! which over-approximates every execution of the recursive call unless a
//! property observes something inside it (then the analysis is not sound and
//! proves nothing).

use std::rc::Rc;

use super::{Cpa, Transition};
use crate::cfa::{EdgeId, LocId, Program};
use crate::ir::FuncId;

/// A persistent stack of `(call edge, callee)` frames; equal stacks share their tails.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CallStack(Option<Rc<Frame>>);

#[derive(Debug, PartialEq, Eq, Hash)]
struct Frame {
    call: EdgeId,
    callee: FuncId,
    below: CallStack,
}

impl CallStack {
    pub fn push(&self, call: EdgeId, callee: FuncId) -> CallStack {
        CallStack(Some(Rc::new(Frame {
            call,
            callee,
            below: self.clone(),
        })))
    }

    /// The innermost call edge.
    pub fn top(&self) -> Option<EdgeId> {
        self.0.as_ref().map(|f| f.call)
    }

    pub fn pop(&self) -> CallStack {
        self.0.as_ref().map(|f| f.below.clone()).unwrap_or_default()
    }

    /// Whether `f` is being executed somewhere on the stack.
    pub fn contains(&self, f: FuncId) -> bool {
        let mut cur = &self.0;
        while let Some(frame) = cur {
            if frame.callee == f {
                return true;
            }
            cur = &frame.below.0;
        }
        false
    }

    pub fn depth(&self) -> usize {
        let (mut n, mut cur) = (0, &self.0);
        while let Some(frame) = cur {
            n += 1;
            cur = &frame.below.0;
        }
        n
    }
}

pub struct CallstackCpa<'p> {
    pub program: &'p Program,
}

impl Cpa for CallstackCpa<'_> {
    type State = CallStack;
    type Precision = ();

    fn initial_state(&self, _start: LocId) -> CallStack {
        CallStack::default()
    }

    fn initial_precision(&self, _start: LocId) {}

    fn transfer(&self, state: &CallStack, step: &Transition, _prec: &()) -> Vec<CallStack> {
        match step {
            Transition::Enter { call, callee, .. } => {
                if state.contains(*callee) {
                    vec![]
                } else {
                    vec![state.push(*call, *callee)]
                }
            }
            // Only the caller that made this call is returned to.
            Transition::Return { call, .. } => {
                if state.top() == Some(*call) {
                    vec![state.pop()]
                } else {
                    vec![]
                }
            }
            Transition::Edge { .. } | Transition::Woven(_) => vec![state.clone()],
        }
    }

    fn less_or_equal(&self, a: &CallStack, b: &CallStack) -> bool {
        a == b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks_push_pop_and_detect_recursion() {
        let s = CallStack::default()
            .push(EdgeId(3), FuncId(1))
            .push(EdgeId(7), FuncId(2));
        assert_eq!(s.top(), Some(EdgeId(7)));
        assert_eq!(s.depth(), 2);
        assert!(s.contains(FuncId(1)) && !s.contains(FuncId(5)));
        assert_eq!(s.pop(), CallStack::default().push(EdgeId(3), FuncId(1)));
        assert_eq!(s.pop().pop(), CallStack::default());
    }
}
