//! Configurable program analysis (paper 002, Sect. 2; Beyer, Henzinger,
//! Théoduloz): the [`Cpa`] interface with exactly the operators of the theory,
//! and the component analyses built on it.
//!
//! Components: `location`, `callstack`, `value` (explicit values),
//! `predicate` (predicate analysis with large-block encoding) and `loom`, the
//! composite that tracks one specification automaton state per bound
//! automaton and weaves the automata's operations into the transition
//! relation on the fly (`joint` decides which moves of several automata on
//! one step can be taken together); `loom_sets`, the explicit-value stage's
//! composite with a set of configurations per automaton in one state per
//! program state; `weave`, the automata side both share.

use crate::cfa::{Edge, EdgeId, EdgeOp, LocId};
use crate::ir::{FuncId, SrcPos};

/// One step of the analysed transition system, as seen by a component CPA.
///
/// The composite ([`loom`](self)) decides which transitions leave a state: CFA
/// edges of the current location, entering a callee of a call edge, returning
/// to the caller, or the next pending woven operation.
#[derive(Clone, Copy, Debug)]
pub enum Transition<'a> {
    /// An intraprocedural CFA edge (including calls of functions without a
    /// body, which the analyses interpret by the callee's `FunctionKind`).
    Edge { id: EdgeId, edge: &'a Edge },
    /// From the call site of `call` (an `EdgeOp::Call`) to `callee`'s entry,
    /// binding the arguments to the formal parameters.
    Enter {
        call: EdgeId,
        edge: &'a Edge,
        callee: FuncId,
    },
    /// From `callee`'s exit back to the return site of `call`, assigning the
    /// returned value to the call's left-hand side.
    Return {
        call: EdgeId,
        edge: &'a Edge,
        callee: FuncId,
    },
    /// An operation woven in by a specification automaton (an
    /// `EdgeOp::Assume` or `EdgeOp::Assign` over program and automaton
    /// variables), attributed to the CFA edge that triggered it.
    Woven(&'a std::rc::Rc<WovenOp>),
}

impl Transition<'_> {
    pub fn pos(&self) -> SrcPos {
        match self {
            Transition::Edge { edge, .. }
            | Transition::Enter { edge, .. }
            | Transition::Return { edge, .. } => edge.pos,
            Transition::Woven(w) => w.pos,
        }
    }

    /// The location the step ends in, if it is a CFA location.
    pub fn target_hint(&self, program: &crate::cfa::Program) -> Option<LocId> {
        match self {
            Transition::Edge { edge, .. } | Transition::Return { edge, .. } => Some(edge.to),
            Transition::Enter { callee, .. } => {
                program.func(*callee).body.as_ref().map(|b| b.entry)
            }
            Transition::Woven(_) => None,
        }
    }
}

/// A configurable program analysis `(D, Π, ⇝, merge, stop, prec, target)`.
pub trait Cpa {
    type State: Clone + PartialEq + std::fmt::Debug;
    type Precision: Clone + std::fmt::Debug;

    /// The initial abstract state at the program's start location.
    fn initial_state(&self, start: LocId) -> Self::State;

    fn initial_precision(&self, start: LocId) -> Self::Precision;

    /// The transfer relation: successors of `state` along `step` (empty if
    /// the step is infeasible for this analysis).
    fn transfer(
        &self,
        state: &Self::State,
        step: &Transition,
        prec: &Self::Precision,
    ) -> Vec<Self::State>;

    /// The partial order of the abstract domain (`⊑`).
    fn less_or_equal(&self, a: &Self::State, b: &Self::State) -> bool;

    /// `merge(new, reached, π)`, `None` when it is `reached` as it is
    /// (the algorithm then neither compares nor replaces it); the default
    /// is merge-sep.
    fn merge(
        &self,
        _new: &Self::State,
        _reached: &Self::State,
        _prec: &Self::Precision,
    ) -> Option<Self::State> {
        None
    }

    /// `stop(e, R, π)`; the default is stop-sep (covered by one reached state).
    fn stop<'r>(
        &self,
        state: &Self::State,
        reached: &mut dyn Iterator<Item = &'r Self::State>,
        _prec: &Self::Precision,
    ) -> bool
    where
        Self::State: 'r,
    {
        let mut covered = false;
        for r in reached {
            if self.less_or_equal(state, r) {
                covered = true;
                break;
            }
        }
        covered
    }

    /// Precision adjustment `prec(e, π, R)`; the default is static. It may
    /// find the state infeasible (`None`), e.g. when an abstraction is empty.
    fn prec(
        &self,
        state: Self::State,
        prec: Self::Precision,
    ) -> Option<(Self::State, Self::Precision)> {
        Some((state, prec))
    }

    /// Waitlist priority of a state, for a CPA algorithm that orders its
    /// waitlist by it (higher first; ties go to the newer state).
    fn priority(&self, _state: &Self::State) -> (u64, u64) {
        (0, 0)
    }

    /// Whether the state violates the specification.
    fn is_target(&self, _state: &Self::State) -> bool {
        false
    }

    /// The steps leaving `state`. Only the analysis that tracks the program
    /// counter (the composite) knows them; components return none.
    fn transitions<'a>(&'a self, _state: &'a Self::State) -> Vec<Transition<'a>> {
        Vec::new()
    }

    /// Whether the analysis knows that `op` (a woven assume, executed right
    /// after the step that produced `state`) cannot hold in `state`. LOOM
    /// asks it before it combines the automata's moves, so that a move the
    /// data already rules out never multiplies the others. The default
    /// knows nothing.
    fn refutes(&self, _state: &Self::State, _op: &crate::cfa::EdgeOp) -> bool {
        false
    }

    /// Tells the analysis that `state` is a target (the specification
    /// reached an error state there), so that it decides the state's
    /// feasibility in its precision adjustment. The default does nothing.
    fn mark_target(&self, _state: &mut Self::State) {}

    /// States with different keys are never merged or compared for coverage
    /// (the reached set is partitioned by it, e.g. by location).
    fn partition_key(&self, _state: &Self::State) -> u64 {
        0
    }
}

/// An operation woven into the transition relation by a specification
/// automaton, with the source position of the CFA edge that triggered it.
#[derive(Clone, Debug)]
pub struct WovenOp {
    pub op: EdgeOp,
    pub pos: SrcPos,
    /// The automaton that wove it (`None`: an operation a witness replay
    /// adds to hold a value the witness names).
    pub automaton: Option<usize>,
}

pub mod callstack;
pub mod composite;
pub mod joint;
pub mod location;
pub mod loom;
pub mod loom_sets;
pub mod predicate;
pub mod value;
pub mod weave;

/// How a step of the ARG was taken (owned copy of a [`Transition`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    Edge(EdgeId),
    Enter(EdgeId),
    Return(EdgeId),
    Woven,
}

impl Step {
    pub fn of(t: &Transition) -> Step {
        match t {
            Transition::Edge { id, .. } => Step::Edge(*id),
            Transition::Enter { call, .. } => Step::Enter(*call),
            Transition::Return { call, .. } => Step::Return(*call),
            Transition::Woven(_) => Step::Woven,
        }
    }
}
