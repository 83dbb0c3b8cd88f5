//! Joint consistency of the automata's moves on one program step.
//!
//! The automata of LOOM run side by side: a successor combines one move per
//! automaton. Automata that observe the same call branch on the same
//! program value independently (68_1 and 68_1a each split a
//! `usb_alloc_urb` on its result being NULL or not), so `k` such automata would
//! make `2^k` combinations of which two are feasible: the program has one
//! outcome per call, and every property must see the same one. A data
//! analysis prunes the inconsistent ones only where it can represent the
//! assumes (explicit values know `p == 0`, not `p != 0`).
//!
//! So the combination is decided here, before any data analysis sees it:
//! the assumes of a combination are encoded over one symbolic state (the
//! same program expression is the same term in every automaton's assume)
//! and a combination whose assumes contradict each other *whatever the
//! state* is dropped. Dropping it is exact: no execution takes it, in any
//! analysis. A combination that only the state makes infeasible is left to
//! the data analysis, as before. Results are cached per set of assumes
//! (the woven operations are shared by all states, [`super::loom`]).

use std::cell::RefCell;
use std::rc::Rc;

use crate::cfa::{EdgeOp, Program};
use crate::hash::HashMap;
use crate::ir::{ExprKind, Scope, VarId};
use crate::smt::Encoder;

use super::WovenOp;

/// The work one consistency query may do; a query that runs out is taken
/// as consistent (nothing is dropped).
const QUERY_WORK: u64 = crate::smt::work::units_of_ms(200);

/// Decides whether the assumes of several automata's moves can hold
/// together.
pub struct JointMoves<'p> {
    program: &'p Program,
    enc: Encoder<'p>,
    /// The program variables (not automaton variables) each assume reads.
    reads: RefCell<HashMap<usize, Rc<[VarId]>>>,
    cache: RefCell<HashMap<Vec<usize>, bool>>,
}

fn key(o: &Rc<WovenOp>) -> usize {
    Rc::as_ptr(o) as usize
}

impl<'p> JointMoves<'p> {
    pub fn new(program: &'p Program) -> Self {
        JointMoves {
            program,
            enc: Encoder::new(program),
            reads: RefCell::new(HashMap::default()),
            cache: RefCell::new(HashMap::default()),
        }
    }

    /// The program variables the assume `o` reads (none for other ops).
    fn reads(&self, o: &Rc<WovenOp>) -> Rc<[VarId]> {
        if let Some(r) = self.reads.borrow().get(&key(o)) {
            return r.clone();
        }
        let mut vars: Vec<VarId> = Vec::new();
        if let EdgeOp::Assume { cond, .. } = &o.op {
            cond.walk(&mut |e| {
                if let ExprKind::Var(v) = e.kind {
                    if self.program.var(v).scope != Scope::Spec {
                        vars.push(v);
                    }
                }
            });
        }
        vars.sort();
        vars.dedup();
        let r: Rc<[VarId]> = vars.into();
        self.reads.borrow_mut().insert(key(o), r.clone());
        r
    }

    /// Whether the assumes of a move's operations `new` can hold together
    /// with those of the operations `combined` so far. `false` only when
    /// they contradict each other in every state. Only the assumes of
    /// `combined` that read a program variable `new`'s assumes read take
    /// part (automaton variables are each automaton's own): fewer
    /// constraints can only make the answer `true`.
    pub fn consistent(&self, combined: &[Rc<WovenOp>], new: &[Rc<WovenOp>]) -> bool {
        let new: Vec<&Rc<WovenOp>> = new
            .iter()
            .filter(|o| matches!(o.op, EdgeOp::Assume { .. }))
            .collect();
        let read: Vec<VarId> = new.iter().flat_map(|o| self.reads(o).to_vec()).collect();
        if read.is_empty() {
            return true;
        }
        let mut assumes: Vec<&Rc<WovenOp>> = combined
            .iter()
            .filter(|o| self.reads(o).iter().any(|v| read.contains(v)))
            .collect();
        if assumes.is_empty() {
            return true;
        }
        assumes.extend(new);
        assumes.sort_by_key(|o| key(o));
        assumes.dedup_by_key(|o| key(o));
        let k: Vec<usize> = assumes.iter().map(|o| key(o)).collect();
        if let Some(&c) = self.cache.borrow().get(&k) {
            return c;
        }
        let c = self.decide(&assumes);
        self.cache.borrow_mut().insert(k, c);
        c
    }

    fn decide(&self, assumes: &[&Rc<WovenOp>]) -> bool {
        let mut st = self.enc.initial();
        let solver = z3::Solver::new();
        solver.set_params(&crate::smt::work_limit(QUERY_WORK));
        for o in assumes {
            if let EdgeOp::Assume { cond, truth } = &o.op {
                let c = self.enc.cond(&mut st, cond);
                solver.assert(if *truth { c } else { c.not() });
            }
        }
        solver.check() != z3::SatResult::Unsat
    }
}
