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
//! the data analysis, as before.
//!
//! The assumes are split into literals (the conjuncts of `urb != 0 &&
//! usb_urb::urbs >= 1`), leaving out those over one automaton's own
//! variables, which no other automaton reads. Most combinations are then
//! left with one condition (both automata test `urb != 0`) and are decided
//! without a solver: consistent when every automaton assumes the same truth
//! value, contradictory otherwise (a condition without arbitrary values has
//! one value in a state). The others are decided by Z3. Answers are cached
//! per set of operations and, for Z3's, per set of literals.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use crate::cfa::{EdgeOp, Program};
use std::hash::BuildHasher;

use crate::hash::{FixedState, HashMap};
use crate::ir::{BinaryOp, Expr, ExprKind, Scope, UnaryOp, VarId};
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
    /// The program variables (not automaton variables) each assume reads,
    /// by the operation's address, with the operation kept alive so that
    /// the address stays its own (every operation keyed anywhere here
    /// passes through this map).
    reads: RefCell<HashMap<usize, Reads>>,
    /// Answers by the set of assumes (operations are shared by all states,
    /// [`super::loom`], so this is what a transfer looks up).
    answers: RefCell<HashMap<Vec<usize>, bool>>,
    /// Solver answers by the literals (in a canonical order): sets of
    /// assumes of other automaton states often have the same literals.
    decided: RefCell<HashMap<Vec<(Expr, bool)>, bool>>,
    /// The solver of every query, each in a scope of its own: setting up a
    /// fresh solver costs more than the small queries here.
    solver: OnceCell<z3::Solver>,
}

/// An assume and the program variables it reads.
type Reads = (Rc<WovenOp>, Rc<[VarId]>);

fn key(o: &Rc<WovenOp>) -> usize {
    Rc::as_ptr(o) as usize
}

impl<'p> JointMoves<'p> {
    pub fn new(program: &'p Program) -> Self {
        JointMoves {
            program,
            enc: Encoder::new(program),
            reads: RefCell::new(HashMap::default()),
            answers: RefCell::new(HashMap::default()),
            decided: RefCell::new(HashMap::default()),
            solver: OnceCell::new(),
        }
    }

    /// The program variables the assume `o` reads (none for other ops).
    fn reads(&self, o: &Rc<WovenOp>) -> Rc<[VarId]> {
        if let Some((_, r)) = self.reads.borrow().get(&key(o)) {
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
        self.reads
            .borrow_mut()
            .insert(key(o), (Rc::clone(o), r.clone()));
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
        let ops: Vec<usize> = assumes.iter().map(|o| key(o)).collect();
        if let Some(&c) = self.answers.borrow().get(&ops) {
            return c;
        }
        let c = self.decide_literals(&assumes);
        self.answers.borrow_mut().insert(ops, c);
        c
    }

    /// Whether the literals of `assumes` can hold together: without a
    /// solver when they are about one condition.
    fn decide_literals(&self, assumes: &[&Rc<WovenOp>]) -> bool {
        let mut k: Vec<(Expr, bool)> = Vec::new();
        for o in assumes {
            if let EdgeOp::Assume { cond, truth } = &o.op {
                self.literals(cond, *truth, &mut k);
            }
        }
        k.sort_by_key(|c| FixedState::default().hash_one(c));
        k.dedup();
        let Some((first, truth)) = k.first() else {
            return true;
        };
        if k.iter().all(|(c, _)| c == first) && deterministic(first) {
            // One condition, evaluated in one state: assumed with one
            // truth value, or with both.
            return k.iter().all(|(_, t)| t == truth);
        }
        if let Some(&c) = self.decided.borrow().get(&k) {
            return c;
        }
        let c = self.decide(&k);
        self.decided.borrow_mut().insert(k, c);
        c
    }

    /// The literals `cond` assumed to be `truth` implies: conjuncts of a
    /// true `&&`, disjuncts of a false `||`, outer `!`s folded into the
    /// truth. A literal over automaton variables alone is left out: each
    /// automaton's variables are its own, so it constrains no other
    /// automaton's assumes (fewer literals can only make the answer
    /// `true`).
    ///
    /// A disequality is the negated equality (`p != 0` assumed true is
    /// `p == 0` assumed false), so that the two spellings of one condition
    /// are one literal.
    fn literals(&self, cond: &Expr, truth: bool, out: &mut Vec<(Expr, bool)>) {
        match (&cond.kind, truth) {
            (ExprKind::Unary(UnaryOp::LogNot, e), _) => self.literals(e, !truth, out),
            (ExprKind::Binary(BinaryOp::LogAnd, a, b), true)
            | (ExprKind::Binary(BinaryOp::LogOr, a, b), false) => {
                self.literals(a, truth, out);
                self.literals(b, truth, out);
            }
            _ if self.of_automaton_alone(cond) => {}
            (ExprKind::Binary(BinaryOp::Ne, a, b), _) => {
                let eq = ExprKind::Binary(BinaryOp::Eq, a.clone(), b.clone());
                out.push((Expr::new(eq, cond.ty), !truth));
            }
            _ => out.push((cond.clone(), truth)),
        }
    }

    /// Whether `e` reads automaton variables and constants only.
    fn of_automaton_alone(&self, e: &Expr) -> bool {
        let mut alone = true;
        e.walk(&mut |x| {
            alone &= match &x.kind {
                ExprKind::Var(v) => self.program.var(*v).scope == Scope::Spec,
                ExprKind::IntConst(_)
                | ExprKind::Unary(..)
                | ExprKind::Binary(..)
                | ExprKind::Cast(..)
                | ExprKind::Cond(..) => true,
                _ => false,
            }
        });
        alone
    }

    /// Decides a combination the syntactic check leaves open.
    fn decide(&self, assumes: &[(Expr, bool)]) -> bool {
        let mut st = self.enc.initial();
        let solver = self.solver.get_or_init(|| {
            let s = z3::Solver::new();
            s.set_params(&crate::smt::work_limit(QUERY_WORK));
            s
        });
        crate::smt::work::push(solver);
        for (cond, truth) in assumes {
            let c = self.enc.cond(&mut st, cond);
            solver.assert(if *truth { c } else { c.not() });
        }
        let r = crate::smt::interrupt::checking(|| solver.check());
        solver.pop(1);
        r != z3::SatResult::Unsat
    }
}

/// Whether two occurrences of `e` in one state have one value (no
/// arbitrary value inside).
fn deterministic(e: &Expr) -> bool {
    let mut det = true;
    e.walk(&mut |x| det &= !matches!(x.kind, ExprKind::Nondet(_)));
    det
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::print::expr_to_string;
    use crate::frontend::{parse_source, FrontendOptions};

    const SRC: &str = r#"
        int p, q;
        int nondet(void);
        void main(void) {
          int r = nondet();
          if (p != 0) {}
          if (p == 0) {}
          if (q > 1) {}
          if (r != 0) {}
        }"#;

    /// The condition of the branch that prints as `text`.
    fn condition(p: &Program, text: &str) -> Expr {
        p.edges
            .iter()
            .find_map(|e| match &e.op {
                EdgeOp::Assume { cond, .. } if expr_to_string(p, cond) == text => {
                    Some(cond.clone())
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no branch on `{text}`"))
    }

    /// `cond` assumed to be `truth`, as a woven operation.
    fn woven(cond: Expr, truth: bool) -> Rc<WovenOp> {
        Rc::new(WovenOp {
            op: EdgeOp::Assume { cond, truth },
            pos: crate::ir::SrcPos::default(),
            automaton: Some(0),
        })
    }

    fn assume(p: &Program, text: &str, truth: bool) -> Rc<WovenOp> {
        woven(condition(p, text), truth)
    }

    #[test]
    fn automata_assuming_one_condition_agree_only_on_its_truth_value() {
        let p = parse_source("t.c", SRC, &FrontendOptions::default()).unwrap();
        let j = JointMoves::new(&p);
        let yes = || [assume(&p, "p != 0", true)];
        let no = || [assume(&p, "p != 0", false)];
        assert!(j.consistent(&yes(), &yes()));
        assert!(!j.consistent(&yes(), &no()));
        assert!(j.consistent(&no(), &no()));
        assert!(
            j.consistent(&yes(), &[assume(&p, "q > 1", false)]),
            "conditions on other variables take no part"
        );
    }

    #[test]
    fn a_conjunction_assumed_true_is_contradicted_by_a_conjunct_assumed_false() {
        let p = parse_source("t.c", SRC, &FrontendOptions::default()).unwrap();
        let j = JointMoves::new(&p);
        let (a, b) = (condition(&p, "p != 0"), condition(&p, "q > 1"));
        let and = Expr::new(
            ExprKind::Binary(BinaryOp::LogAnd, a.clone().into(), b.into()),
            a.ty,
        );
        let both = [woven(and.clone(), true)];
        assert!(!j.consistent(&both, &[assume(&p, "q > 1", false)]));
        assert!(j.consistent(&both, &[assume(&p, "q > 1", true)]));
        assert!(
            j.consistent(&[woven(and, false)], &[assume(&p, "q > 1", true)]),
            "a false conjunction leaves each conjunct open"
        );
    }

    #[test]
    fn a_disequality_and_its_equality_are_one_condition_decided_without_a_solver() {
        let p = parse_source("t.c", SRC, &FrontendOptions::default()).unwrap();
        let j = JointMoves::new(&p);
        let (eq, ne) = (|t| assume(&p, "p == 0", t), |t| assume(&p, "p != 0", t));
        assert!(!j.consistent(&[eq(true)], &[ne(true)]));
        assert!(j.consistent(&[eq(false)], &[ne(true)]));
        assert!(j.solver.get().is_none(), "no solver was set up");
    }

    #[test]
    fn a_condition_on_an_arbitrary_value_may_hold_and_fail_at_once() {
        let p = parse_source("t.c", SRC, &FrontendOptions::default()).unwrap();
        let j = JointMoves::new(&p);
        let cond = condition(&p, "p != 0");
        let ExprKind::Binary(_, var_p, _) = &cond.kind else {
            unreachable!("p != 0")
        };
        let nondet = Expr::new(
            ExprKind::Nondet(crate::ir::NondetReason::FloatArithmetic),
            cond.ty,
        );
        // `p + <arbitrary>`: reads `p`, so it takes part in the check.
        let any = Expr::new(
            ExprKind::Binary(BinaryOp::Add, var_p.clone(), nondet.into()),
            cond.ty,
        );
        assert!(
            j.consistent(&[woven(any.clone(), true)], &[woven(any, false)]),
            "each occurrence is a value of its own"
        );
    }
}
