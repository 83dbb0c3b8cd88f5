//! Predicate analysis with large-block encoding (paper 002, Sect. 5.1;
//! Beyer, Cimatti, Griggio, Keremoglu, Sebastiani: adjustable-block encoding).
//!
//! A state is the last abstraction (a [`Region`] over the predicates, at an
//! abstraction point) plus the exact symbolic state and path formula of the
//! block since then ([`SymState`], terms over the canonical symbols of the
//! block start). The transfer relation extends the path formula (strongest
//! postcondition, no solver call). Blocks end at abstraction points: loop
//! heads, function entries, return sites of calls of defined functions and
//! target locations; there the precision adjustment `prec` computes the
//! Boolean predicate abstraction (AllSAT, [`abstraction`]) and starts a new
//! block, or drops the state if the block's path formula is unsatisfiable.
//!
//! Merge joins two states of the same block at the same location (the path
//! formulas become a disjunction, the values `ite` terms); abstraction
//! states are never merged. Stop: an abstraction state is covered by one
//! of the same location and call stack whose region it entails, the
//! predicates taken as Boolean variables ([`abstraction::Abstractor::entails`]);
//! a state inside a block is covered by the state it was merged into.
//! A successor formed again from the same state by the same step (a node
//! put back in the waitlist after a target or a cut) is the same state: it
//! keeps its id, so the one already reached covers it.
//!
//! Soundness bookkeeping: every step that is not an over-approximation
//! ([`SymState::sound`] cleared) is remembered in [`PredicateCpa::unsound`];
//! a fixed point reached after one is no proof.

pub mod abstraction;
pub mod predicates;
pub mod region;
pub mod trace;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use z3::ast::{Ast, Bool, Dynamic};

use self::abstraction::{Abstractor, Predicates, Region};
use self::trace::{Trace, TraceNode};
use super::{Cpa, Transition};
use crate::cfa::{EdgeId, LocId, Program};
use crate::cpa::Step;
use crate::smt::step::{apply, merge};
use crate::smt::work::Deadline;
use crate::smt::{Encoder, SymState};

/// The precision: the predicates tracked (shared by all locations).
pub type Precision = Rc<Predicates>;

/// The last abstraction on a state's path.
#[derive(Debug)]
pub struct AbstractionState {
    /// Creation order (later abstractions are explored first).
    pub seq: u64,
    pub region: Rc<Region>,
    pub formula: Bool,
}

#[derive(Clone)]
pub struct PredState {
    /// Unique per state; a merged state gets a new one.
    id: u64,
    pub abs: Rc<AbstractionState>,
    pub sym: SymState,
    /// Path formula of the block so far (conjunction of its constraints).
    pub guard: Bool,
    pub trace: Trace,
    /// Ids of the states merged into this one.
    covers: Rc<Vec<u64>>,
    /// The block ends here: `prec` abstracts.
    pending: Option<BlockEnd>,
}

/// Where a block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BlockEnd {
    /// At a target, whose block is always decided.
    target: bool,
    /// The abstraction point (unknown for a target marked by another
    /// component inside a block).
    loc: Option<LocId>,
}

impl PredState {
    /// Where the state's abstraction was computed, if it was just
    /// abstracted at an abstraction point (`Some(None)`: at a target inside
    /// a block, over every predicate).
    pub fn abstracted_at(&self) -> Option<Option<LocId>> {
        match &*self.trace {
            TraceNode::Abstraction { loc, .. } => Some(*loc),
            _ => None,
        }
    }

    /// Whether the state was just abstracted (empty block).
    pub fn is_abstraction(&self) -> bool {
        matches!(
            &*self.trace,
            TraceNode::Abstraction { .. } | TraceNode::Start
        )
    }
}

impl PartialEq for PredState {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl std::fmt::Debug for PredState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PredState#{} (abstraction {}, {} cubes)",
            self.id,
            self.abs.seq,
            self.abs.region.cubes.len()
        )
    }
}

pub struct PredicateCpa<'p> {
    program: &'p Program,
    pub enc: Encoder<'p>,
    /// Per location: a block ends on arrival.
    abstraction_point: Vec<bool>,
    /// Per location: a target (its block's satisfiability is always decided).
    targets: Vec<bool>,
    /// Decide every block's satisfiability, even without predicates to track.
    pub check_blocks: bool,
    abstractor: RefCell<Abstractor>,
    /// The precision of this run (also needed by coverage checks); it
    /// grows when a refinement goes on with the same reached set.
    predicates: RefCell<Precision>,
    next_id: Cell<u64>,
    /// The id of each successor formed: by predecessor id and step.
    derived: RefCell<crate::hash::HashMap<(u64, Step), u64>>,
    /// A step that is not an over-approximation was taken.
    pub unsound: Cell<bool>,
    /// The CFA edge of the first such step (a call's for entering or
    /// leaving a function), unless it was an automaton's.
    pub first_unsound: Cell<Option<EdgeId>>,
}

impl<'p> PredicateCpa<'p> {
    /// `targets`: per location, whether it is a target (abstraction point
    /// too, so targets are only reached under a satisfiable block).
    pub fn new(
        program: &'p Program,
        targets: &[bool],
        predicates: Precision,
        deadline: Deadline,
    ) -> Self {
        let mut abstraction_point: Vec<bool> = program
            .locations
            .iter()
            .zip(targets)
            .map(|(l, &t)| l.loop_head || t)
            .collect();
        for f in &program.functions {
            if let Some(b) = &f.body {
                abstraction_point[b.entry.0 as usize] = true;
            }
        }
        for e in &program.edges {
            if let crate::cfa::EdgeOp::Call { callee, .. } = &e.op {
                if program.func(*callee).body.is_some() {
                    abstraction_point[e.to.0 as usize] = true;
                }
            }
        }
        PredicateCpa {
            program,
            enc: Encoder::new(program),
            abstraction_point,
            targets: targets.to_vec(),
            check_blocks: false,
            abstractor: RefCell::new(Abstractor::new(deadline)),
            predicates: RefCell::new(predicates),
            next_id: Cell::new(0),
            derived: RefCell::default(),
            unsound: Cell::new(false),
            first_unsound: Cell::new(None),
        }
    }

    fn fresh_id(&self) -> u64 {
        let n = self.next_id.get();
        self.next_id.set(n + 1);
        n
    }

    /// The id of the successor of state `from` by `step`: the one it got
    /// when first formed.
    fn derived_id(&self, from: u64, step: Step) -> u64 {
        if let Some(&id) = self.derived.borrow().get(&(from, step)) {
            return id;
        }
        let id = self.fresh_id();
        self.derived.borrow_mut().insert((from, step), id);
        id
    }

    /// The precision from now on: `predicates` extends the run's (the
    /// indices of its predicates are theirs there).
    pub fn set_precision(&self, predicates: Precision) {
        debug_assert!(predicates.len() >= self.predicates.borrow().len());
        *self.predicates.borrow_mut() = predicates;
    }

    /// Computes abstractions into (and looks them up in) `cache`, which
    /// other runs may share.
    pub fn share_abstractions(&mut self, cache: abstraction::AbstractionCache) {
        self.abstractor.get_mut().share_cache(cache);
    }

    /// When solver queries give up.
    pub fn set_deadline(&self, deadline: Deadline) {
        self.abstractor.borrow_mut().deadline = deadline;
    }

    pub fn abstraction_stats(&self) -> abstraction::AbstractionStats {
        self.abstractor.borrow().stats.get()
    }

    /// The abstraction of `s`'s block over the predicates tracked at its
    /// end that can have changed (their symbols were written or constrained
    /// in the block, or the start region mentions them); `None` if the
    /// block is infeasible.
    fn abstract_state(&self, s: &PredState, end: BlockEnd, preds: &Predicates) -> Option<Region> {
        let formula = Bool::and(&[&s.abs.formula, &s.guard]);
        // Substitution: canonical symbol -> value at the block end.
        let subst = self.enc.end_substitution(&s.sym);
        let changed: crate::hash::HashSet<String> =
            subst.iter().map(|(c, _)| c.decl().name()).collect();
        let constrained: crate::hash::HashSet<String> = if s.guard.as_bool() == Some(true) {
            Default::default()
        } else {
            abstraction::symbols_of(&Dynamic::from_ast(&s.guard))
                .into_iter()
                .collect()
        };
        let support = s.abs.region.support();
        // A predicate over none of the symbols the block start region, the
        // block's constraints or its writes mention is unconstrained: its
        // abstraction is `true`, and it is left out.
        let mut relevant = constrained;
        relevant.extend(changed);
        for &i in &support {
            relevant.extend(preds.list[i as usize].symbols.iter().cloned());
        }
        let pairs: Vec<(&Dynamic, &Dynamic)> = subst.iter().map(|(a, b)| (a, b)).collect();
        let instantiated: Vec<(u32, Bool)> = preds
            .at(end.loc, self.program)
            .into_iter()
            .map(|i| (i, &preds.list[i as usize]))
            .filter(|(i, p)| support.contains(i) || p.symbols.iter().any(|x| relevant.contains(x)))
            .map(|(i, p)| (i, p.term.substitute(&pairs)))
            .collect();
        self.abstractor.borrow_mut().abstraction(
            &formula,
            instantiated,
            end.target || self.check_blocks,
        )
    }
}

impl<'p> Cpa for PredicateCpa<'p> {
    type State = PredState;
    type Precision = Precision;

    fn initial_state(&self, _start: LocId) -> PredState {
        PredState {
            id: self.fresh_id(),
            abs: Rc::new(AbstractionState {
                seq: 0,
                region: Rc::new(Region::top()),
                formula: Bool::from_bool(true),
            }),
            sym: self.enc.initial(),
            guard: Bool::from_bool(true),
            trace: Rc::new(TraceNode::Start),
            covers: Rc::new(Vec::new()),
            pending: None,
        }
    }

    fn initial_precision(&self, _start: LocId) -> Precision {
        self.predicates.borrow().clone()
    }

    fn transfer(&self, s: &PredState, step: &Transition, _prec: &Precision) -> Vec<PredState> {
        let mut sym = s.sym.clone();
        let c = apply(&self.enc, &mut sym, step, self.program).constraint;
        if !sym.sound && !self.unsound.replace(true) {
            let at = crate::cpa::weave::cfa_step(self.program.entry_func, step);
            self.first_unsound.set(at.map(|(edge, _)| edge));
        }
        let guard = match c.map(|c| crate::smt::interrupt::simplified(&c)) {
            Some(c) => match c.as_bool() {
                Some(false) => return Vec::new(),
                Some(true) => s.guard.clone(),
                None if s.guard.as_bool() == Some(true) => c,
                None => Bool::and(&[&s.guard, &c]),
            },
            None => s.guard.clone(),
        };
        // Woven operations belong to the step that triggered them: the
        // block end that step reached stays pending.
        let (pending, trace) = match step {
            Transition::Woven(op) => (
                s.pending,
                TraceNode::Woven {
                    prev: s.trace.clone(),
                    op: Rc::clone(op),
                },
            ),
            _ => (
                step.target_hint(self.program)
                    .filter(|l| self.abstraction_point[l.0 as usize])
                    .map(|l| BlockEnd {
                        target: self.targets[l.0 as usize],
                        loc: Some(l),
                    }),
                TraceNode::Step {
                    prev: s.trace.clone(),
                    step: Step::of(step),
                },
            ),
        };
        vec![PredState {
            id: self.derived_id(s.id, Step::of(step)),
            abs: s.abs.clone(),
            sym,
            guard,
            trace: Rc::new(trace),
            covers: Rc::new(Vec::new()),
            pending,
        }]
    }

    fn prec(&self, s: PredState, prec: Precision) -> Option<(PredState, Precision)> {
        let Some(end) = s.pending else {
            return Some((s, prec));
        };
        let region = self.abstract_state(&s, end, &prec)?;
        let formula = region.formula(&prec);
        let seq = self.fresh_id();
        let mut sym = self.enc.initial();
        sym.exact = s.sym.exact;
        sym.sound = s.sym.sound;
        sym.havocked = s.sym.havocked;
        Some((
            PredState {
                id: seq,
                abs: Rc::new(AbstractionState {
                    seq,
                    region: Rc::new(region),
                    formula,
                }),
                sym,
                guard: Bool::from_bool(true),
                trace: Rc::new(TraceNode::Abstraction {
                    prev: s.trace,
                    loc: end.loc,
                }),
                covers: Rc::new(Vec::new()),
                pending: None,
            },
            prec,
        ))
    }

    fn merge(&self, new: &PredState, reached: &PredState, _prec: &Precision) -> Option<PredState> {
        if new.is_abstraction()
            || reached.is_abstraction()
            || !Rc::ptr_eq(&new.abs, &reached.abs)
            || new.pending != reached.pending
            || reached.id == new.id
            || reached.covers.contains(&new.id)
        {
            // Merging a state `reached` already covers changes nothing.
            return None;
        }
        let mut covers: Vec<u64> = reached.covers.to_vec();
        covers.push(reached.id);
        covers.push(new.id);
        covers.extend(new.covers.iter());
        Some(PredState {
            id: self.fresh_id(),
            abs: reached.abs.clone(),
            sym: merge(&new.guard, &new.sym, &reached.sym),
            guard: Bool::or(&[&new.guard, &reached.guard]),
            trace: Rc::new(TraceNode::Merge {
                a: new.trace.clone(),
                b: reached.trace.clone(),
            }),
            covers: Rc::new(covers),
            pending: new.pending,
        })
    }

    fn less_or_equal(&self, a: &PredState, b: &PredState) -> bool {
        if a.id == b.id || b.covers.contains(&a.id) {
            return true;
        }
        if a.is_abstraction() && b.is_abstraction() {
            return self.abstractor.borrow_mut().entails(
                &a.abs.region,
                &b.abs.region,
                &self.predicates.borrow(),
            );
        }
        false
    }

    fn mark_target(&self, s: &mut PredState) {
        s.pending = Some(BlockEnd {
            target: true,
            loc: s.pending.and_then(|e| e.loc),
        });
    }

    fn priority(&self, s: &PredState) -> (u64, u64) {
        (s.abs.seq, 0)
    }
}
