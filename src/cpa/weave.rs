//! The automata side of LOOM, shared by its two state representations
//! (one control state per automaton in [`super::loom`], a set of
//! configurations per automaton in [`super::loom_sets`]): for each bound
//! automaton the properties each state and transition can still violate
//! (`P(q)`, `P(τ)`), its error states, and its moves on a program step
//! with the operations to weave, computed once per automaton state and
//! edge; the label properties per location; the automaton transitions
//! taken per property (the monitor's `sc`).

use std::cell::RefCell;
use std::rc::Rc;

use super::loom::{LoomGoal, LoomProperty};
use super::{Transition, WovenOp};
use crate::cfa::{EdgeId, EdgeOp, LocId, Program};
use crate::hash::HashMap;
use crate::ir::FuncId;
use crate::spec::automaton::{StateIdx, StateKind};
use crate::spec::bound::{BoundAutomaton, Move, StepKind};
use crate::spec::{PropertyId, PropertySet};

/// Per automaton: its properties' ids and per-state/per-transition sets.
struct AutomatonInfo {
    /// P(q) per state, as LOOM property ids.
    state_props: Vec<PropertySet>,
    /// P(τ) per transition, as LOOM property ids.
    trans_props: Vec<PropertySet>,
    /// The LOOM property violated in each state (error states of listed properties).
    error_of: Vec<Option<PropertyId>>,
}

type MoveKey = (u32, StateIdx, EdgeId, StepKind);

/// One automaton move for a CFA step, with its operations ready to weave.
pub struct WovenMove {
    pub to: StateIdx,
    /// The transition taken (`None`: stutter).
    pub transition: Option<usize>,
    /// Assumes, then assignments.
    pub ops: Vec<Rc<WovenOp>>,
}

/// The bound automata of a LOOM analysis with what it asks of them.
pub struct Weaving<'p> {
    program: &'p Program,
    pub automata: &'p [BoundAutomaton],
    info: Vec<AutomatonInfo>,
    /// Label properties per labelled location.
    label_props: HashMap<LocId, PropertySet>,
    moves: RefCell<HashMap<MoveKey, Rc<Vec<WovenMove>>>>,
    /// Per step (edge and kind): whether no automaton observes it, so that
    /// every automaton stutters whatever its state ([`Weaving::silent`]).
    silent: RefCell<HashMap<(EdgeId, StepKind), bool>>,
    /// Automaton transitions taken per property (`sc` of the monitor), indexed by id.
    pub transitions_taken: RefCell<Vec<u64>>,
    entry: Option<FuncId>,
}

impl<'p> Weaving<'p> {
    pub fn new(
        program: &'p Program,
        automata: &'p [BoundAutomaton],
        properties: &[LoomProperty],
    ) -> Self {
        let mut label_props: HashMap<LocId, PropertySet> = HashMap::default();
        for p in properties {
            if let LoomGoal::Label(l) = &p.goal {
                for (i, loc) in program.locations.iter().enumerate() {
                    if loc.labels.iter().any(|x| x == l) {
                        label_props.entry(LocId(i as u32)).or_default().insert(p.id);
                    }
                }
            }
        }
        let info = automata
            .iter()
            .enumerate()
            .map(|(ai, b)| automaton_info(ai, b, properties))
            .collect();
        let max_id = properties
            .iter()
            .map(|p| p.id.0 as usize + 1)
            .max()
            .unwrap_or(0);
        Weaving {
            program,
            automata,
            info,
            label_props,
            moves: RefCell::new(HashMap::default()),
            silent: RefCell::new(HashMap::default()),
            transitions_taken: RefCell::new(vec![0; max_id]),
            entry: program.entry_func,
        }
    }

    /// Whether automaton `a` in state `q` can still violate an enabled property.
    pub fn active(&self, a: usize, q: StateIdx, enabled: &PropertySet) -> bool {
        self.info[a].state_props[q as usize].intersects(enabled)
    }

    /// The property whose error state `q` of automaton `a` is, if listed.
    pub fn error_of(&self, a: usize, q: StateIdx) -> Option<PropertyId> {
        self.info[a].error_of[q as usize]
    }

    /// The label properties of location `loc`.
    pub fn labels_at(&self, loc: LocId) -> Option<&PropertySet> {
        self.label_props.get(&loc)
    }

    /// The enabled properties violated at `loc`, by its labels or by an
    /// automaton `a` in error state `q` for some `(a, q)` of `states`.
    pub fn violated(
        &self,
        loc: LocId,
        states: impl IntoIterator<Item = (usize, StateIdx)>,
        enabled: &PropertySet,
    ) -> PropertySet {
        let mut v = self.labels_at(loc).cloned().unwrap_or_default();
        for (a, q) in states {
            if let Some(p) = self.error_of(a, q) {
                v.insert(p);
            }
        }
        v.iter().filter(|p| enabled.contains(*p)).collect()
    }

    /// The initial operations of all automata (their variables' initial
    /// values), in automaton order.
    pub fn init_ops(&self) -> Vec<Rc<WovenOp>> {
        (0..self.automata.len())
            .flat_map(|a| self.init_ops_of(a))
            .collect()
    }

    /// The initial operations of automaton `a`.
    pub fn init_ops_of(&self, a: usize) -> Vec<Rc<WovenOp>> {
        self.automata[a]
            .init
            .iter()
            .map(|op| {
                Rc::new(WovenOp {
                    op: op.clone(),
                    pos: Default::default(),
                    automaton: Some(a),
                })
            })
            .collect()
    }

    /// [`cfa_step`] of `step` in this weaving's program.
    pub fn step_of(&self, step: &Transition) -> Option<(EdgeId, StepKind)> {
        cfa_step(self.entry, step)
    }

    /// Counts a move of automaton `a` for the enabled properties its
    /// transition may violate.
    pub fn count(&self, a: usize, m: &WovenMove, enabled: &PropertySet) {
        let Some(t) = m.transition else { return };
        let mut taken = self.transitions_taken.borrow_mut();
        for p in self.info[a].trans_props[t].iter() {
            if enabled.contains(p) {
                if let Some(x) = taken.get_mut(p.0 as usize) {
                    *x += 1;
                }
            }
        }
    }

    /// Whether no automaton observes a step over `edge` taken as `kind`:
    /// then each one's only move, in every state, is its stutter (no
    /// operations, no transition), and the automata states stay as they
    /// are. Most steps of a module (assignments, branches, calls of
    /// functions no rule names) are silent.
    pub fn silent(&self, edge: EdgeId, kind: StepKind) -> bool {
        if let Some(&s) = self.silent.borrow().get(&(edge, kind)) {
            return s;
        }
        let e = self.program.edge(edge);
        let s = !self
            .automata
            .iter()
            .any(|b| b.observes(self.program, e, kind));
        self.silent.borrow_mut().insert((edge, kind), s);
        s
    }

    /// The moves of automaton `a` in state `q` for a step over `edge`
    /// (computed once per key; their operations are shared by all states).
    pub fn moves(&self, a: usize, q: StateIdx, edge: EdgeId, kind: StepKind) -> Rc<Vec<WovenMove>> {
        let key = (a as u32, q, edge, kind);
        if let Some(m) = self.moves.borrow().get(&key) {
            return m.clone();
        }
        let e = self.program.edge(edge);
        let woven = |op| {
            Rc::new(WovenOp {
                op,
                pos: e.pos,
                automaton: Some(a),
            })
        };
        let m: Vec<WovenMove> = self.automata[a]
            .step(self.program, q, e, kind)
            .into_iter()
            .map(|m: Move| WovenMove {
                to: m.to,
                transition: m.transition,
                ops: m
                    .assumes
                    .into_iter()
                    .map(|cond| woven(EdgeOp::Assume { cond, truth: true }))
                    .chain(
                        m.assigns
                            .into_iter()
                            .map(|(lhs, rhs)| woven(EdgeOp::Assign { lhs, rhs })),
                    )
                    .collect(),
            })
            .collect();
        let m = Rc::new(m);
        self.moves.borrow_mut().insert(key, m.clone());
        m
    }
}

/// The CFA edge and the kind of automaton step a program step is, in a
/// program whose entry function is `entry` (a return from it is the
/// program's exit); `None` for a woven step, which moves no automaton.
pub fn cfa_step(entry: Option<FuncId>, step: &Transition) -> Option<(EdgeId, StepKind)> {
    Some(match step {
        Transition::Edge { id, .. } => (*id, StepKind::Edge),
        Transition::Enter { call, .. } => (*call, StepKind::Enter),
        Transition::Return { call, callee, .. } => (
            *call,
            if Some(*callee) == entry {
                StepKind::ProgramExit
            } else {
                StepKind::Return
            },
        ),
        Transition::Woven(_) => return None,
    })
}

/// P(q), P(τ) and the error states of automaton `ai`, in LOOM property ids.
fn automaton_info(ai: usize, b: &BoundAutomaton, properties: &[LoomProperty]) -> AutomatonInfo {
    let a = &b.automaton;
    let local_to_global: Vec<Option<PropertyId>> = (0..a.properties.len())
        .map(|j| {
            properties
                .iter()
                .find(|p| {
                    p.goal
                        == LoomGoal::Automaton {
                            automaton: ai,
                            property: j,
                        }
                })
                .map(|p| p.id)
        })
        .collect();
    let globalise = |s: &PropertySet| -> PropertySet {
        s.iter()
            .filter_map(|l| local_to_global[l.0 as usize])
            .collect()
    };
    AutomatonInfo {
        state_props: a.state_properties().iter().map(globalise).collect(),
        trans_props: a.transition_properties().iter().map(globalise).collect(),
        error_of: a
            .states
            .iter()
            .map(|s| match s.kind {
                StateKind::Error { property, .. } => local_to_global[property],
                _ => None,
            })
            .collect(),
    }
}
