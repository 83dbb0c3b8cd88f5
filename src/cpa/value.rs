//! Explicit-value analysis: constant values of integer variables whose
//! address is never taken, path by path. Assumptions whose condition
//! evaluates to a constant prune infeasible branches.
//!
//! Soundness: a variable's value is forgotten whenever it is not known
//! exactly (arbitrary inputs, calls without a body writing it, havoc, any
//! expression not evaluated here such as memory reads, floats, division by
//! zero, shifts out of range, signed overflow). Variables whose address is
//! taken are never tracked, so writes through pointers cannot invalidate a
//! tracked value. Values follow C's wrap-around for unsigned types. Assumed:
//! functions without a body do not write the module's variables (LDV's
//! environment model calls the module's callbacks itself). A call cut for
//! recursion forgets every tracked global. Specification variables (written
//! only by operations woven in by the LOOM analysis) are tracked like
//! globals that no program code writes.
//!
//! The state space stays finite by joining at loop heads only (the composite
//! calls `merge` there): a variable keeps its value if both states agree.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::{Cpa, Transition};
use crate::cfa::{EdgeOp, LocId, Program};
use crate::ir::{BinaryOp, Expr, ExprKind, FuncId, FunctionKind, Scope, Type, UnaryOp, VarId};

/// Known values of tracked variables (absent = unknown).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Values(Rc<BTreeMap<VarId, i128>>);

impl Values {
    pub fn get(&self, v: VarId) -> Option<i128> {
        self.0.get(&v).copied()
    }
}

pub struct ValueCpa<'p> {
    program: &'p Program,
    tracked: Vec<bool>,
    globals: Vec<VarId>,
    /// Tracked locals (including parameters and temporaries) of each function.
    locals: Vec<Vec<VarId>>,
}

impl<'p> ValueCpa<'p> {
    pub fn new(program: &'p Program) -> Self {
        let tracked: Vec<bool> = program
            .vars
            .iter()
            .map(|v| matches!(program.types.get(v.ty), Type::Int(_)) && !v.address_taken)
            .collect();
        let mut globals = Vec::new();
        let mut locals = vec![Vec::new(); program.functions.len()];
        for (i, v) in program.vars.iter().enumerate() {
            if !tracked[i] {
                continue;
            }
            let id = VarId(i as u32);
            match v.scope {
                Scope::Global
                | Scope::Local {
                    is_static: true, ..
                } => globals.push(id),
                Scope::Local { func, .. } | Scope::Param { func, .. } | Scope::Temp { func } => {
                    locals[func.0 as usize].push(id)
                }
                Scope::Spec => {}
            }
        }
        ValueCpa {
            program,
            tracked,
            globals,
            locals,
        }
    }

    fn int_kind(&self, e: &Expr) -> Option<crate::ir::IntKind> {
        match self.program.types.get(e.ty) {
            Type::Int(k) => Some(*k),
            _ => None,
        }
    }

    /// The value of an integer expression, if it is determined by the state.
    pub fn eval(&self, s: &Values, e: &Expr) -> Option<i128> {
        let k = self.int_kind(e)?;
        let wrap = |v: i128| -> Option<i128> {
            let w = k.wrap(v);
            // Signed overflow is undefined: do not pretend to know the result.
            if k.signed() && w != v {
                None
            } else {
                Some(w)
            }
        };
        match &e.kind {
            ExprKind::IntConst(v) => Some(*v),
            ExprKind::Var(v) => s.get(*v),
            ExprKind::Cast(a, _) => {
                self.int_kind(a)?;
                Some(k.wrap(self.eval(s, a)?))
            }
            ExprKind::Unary(op, a) => {
                let x = self.eval(s, a)?;
                match op {
                    UnaryOp::Neg => wrap(x.checked_neg()?),
                    UnaryOp::BitNot => Some(k.wrap(!x)),
                    UnaryOp::LogNot => Some((x == 0) as i128),
                }
            }
            ExprKind::Binary(BinaryOp::LogAnd, a, b) => match self.eval(s, a) {
                Some(0) => Some(0),
                Some(_) => self.eval(s, b).map(|y| (y != 0) as i128),
                None => match self.eval(s, b) {
                    Some(0) => Some(0),
                    _ => None,
                },
            },
            ExprKind::Binary(BinaryOp::LogOr, a, b) => match self.eval(s, a) {
                Some(0) => self.eval(s, b).map(|y| (y != 0) as i128),
                Some(_) => Some(1),
                None => match self.eval(s, b) {
                    Some(y) if y != 0 => Some(1),
                    _ => None,
                },
            },
            ExprKind::Binary(op, a, b) => {
                // Operands must be integers (pointer arithmetic is not evaluated).
                self.int_kind(a)?;
                self.int_kind(b)?;
                let (x, y) = (self.eval(s, a)?, self.eval(s, b)?);
                let bits = k.bits() as i128;
                match op {
                    BinaryOp::Add => wrap(x.checked_add(y)?),
                    BinaryOp::Sub => wrap(x.checked_sub(y)?),
                    BinaryOp::Mul => wrap(x.checked_mul(y)?),
                    BinaryOp::Div if y != 0 => wrap(x.checked_div(y)?),
                    BinaryOp::Rem if y != 0 => wrap(x.checked_rem(y)?),
                    BinaryOp::Div | BinaryOp::Rem => None,
                    BinaryOp::Shl if (0..bits).contains(&y) && x >= 0 => {
                        wrap(x.checked_shl(y as u32)?)
                    }
                    BinaryOp::Shr if (0..bits).contains(&y) => Some(x >> y),
                    BinaryOp::Shl | BinaryOp::Shr => None,
                    BinaryOp::BitAnd => Some(k.wrap(x & y)),
                    BinaryOp::BitOr => Some(k.wrap(x | y)),
                    BinaryOp::BitXor => Some(k.wrap(x ^ y)),
                    BinaryOp::Eq => Some((x == y) as i128),
                    BinaryOp::Ne => Some((x != y) as i128),
                    BinaryOp::Lt => Some((x < y) as i128),
                    BinaryOp::Le => Some((x <= y) as i128),
                    BinaryOp::Gt => Some((x > y) as i128),
                    BinaryOp::Ge => Some((x >= y) as i128),
                    BinaryOp::LogAnd | BinaryOp::LogOr => unreachable!("handled above"),
                }
            }
            ExprKind::Cond(c, a, b) => match self.eval(s, c) {
                Some(0) => self.eval(s, b),
                Some(_) => self.eval(s, a),
                None => {
                    let (x, y) = (self.eval(s, a)?, self.eval(s, b)?);
                    (x == y).then_some(x)
                }
            },
            _ => None,
        }
    }

    fn tracked_var(&self, e: &Expr) -> Option<VarId> {
        match e.kind {
            ExprKind::Var(v) if self.tracked[v.0 as usize] => Some(v),
            _ => None,
        }
    }

    fn forget_locals(&self, m: &mut BTreeMap<VarId, i128>, f: FuncId) {
        for v in &self.locals[f.0 as usize] {
            m.remove(v);
        }
    }

    fn assign(&self, m: &mut BTreeMap<VarId, i128>, v: VarId, value: Option<i128>) {
        match value {
            Some(x) => {
                m.insert(v, x);
            }
            None => {
                m.remove(&v);
            }
        }
    }

    /// Successor along one CFA edge operation; `None` if infeasible.
    fn edge(&self, s: &Values, op: &EdgeOp, recursive_cut: bool) -> Option<Values> {
        let mut m = (*s.0).clone();
        match op {
            EdgeOp::Skip => return Some(s.clone()),
            EdgeOp::Assume { cond, truth } => {
                if let Some(x) = self.eval(s, cond) {
                    return ((x != 0) == *truth).then(|| s.clone());
                }
                // `v == c` taken as true (or `v != c` as false) fixes v.
                if let ExprKind::Binary(op @ (BinaryOp::Eq | BinaryOp::Ne), a, b) = &cond.kind {
                    let fixes = (*op == BinaryOp::Eq) == *truth;
                    if fixes {
                        for (x, y) in [(a, b), (b, a)] {
                            if let (Some(v), Some(c)) = (self.tracked_var(x), self.eval(s, y)) {
                                if self.int_kind(x) == self.int_kind(y) {
                                    m.insert(v, c);
                                    return Some(Values(Rc::new(m)));
                                }
                            }
                        }
                    }
                }
                return Some(s.clone());
            }
            EdgeOp::Assign { lhs, rhs } => {
                if let Some(v) = self.tracked_var(lhs) {
                    let val = self.eval(s, rhs);
                    self.assign(&mut m, v, val);
                }
            }
            EdgeOp::Call { lhs, callee, args } => {
                let f = self.program.func(*callee);
                if f.kind == FunctionKind::Assume {
                    if let Some(c) = args.first() {
                        if self.eval(s, c) == Some(0) {
                            return None;
                        }
                    }
                }
                if recursive_cut {
                    for g in &self.globals {
                        m.remove(g);
                    }
                }
                if let Some(v) = lhs.as_ref().and_then(|l| self.tracked_var(l)) {
                    m.remove(&v);
                }
            }
            EdgeOp::CallUnknown { lhs, .. } => {
                if let Some(v) = lhs.as_ref().and_then(|l| self.tracked_var(l)) {
                    m.remove(&v);
                }
            }
            EdgeOp::Return { .. } => {}
            EdgeOp::Havoc { lvalues, .. } => {
                for l in lvalues {
                    if let Some(v) = self.tracked_var(l) {
                        m.remove(&v);
                    }
                }
            }
        }
        Some(Values(Rc::new(m)))
    }
}

impl Cpa for ValueCpa<'_> {
    type State = Values;
    type Precision = ();

    fn initial_state(&self, _start: LocId) -> Values {
        Values::default()
    }

    fn initial_precision(&self, _start: LocId) {}

    fn refutes(&self, s: &Values, op: &EdgeOp) -> bool {
        match op {
            EdgeOp::Assume { cond, truth } => {
                self.eval(s, cond).is_some_and(|x| (x != 0) != *truth)
            }
            _ => false,
        }
    }

    fn transfer(&self, s: &Values, step: &Transition, _prec: &()) -> Vec<Values> {
        let p = self.program;
        let next = match step {
            Transition::Edge { edge, .. } => {
                let cut = matches!(&edge.op, EdgeOp::Call { callee, .. } if p.func(*callee).body.is_some());
                if let EdgeOp::Return { value: Some(val) } = &edge.op {
                    // Return edges end in the function's exit: store the value in its return variable.
                    let f = p.loc(edge.from).func;
                    let mut m = (*s.0).clone();
                    if let Some(rv) = p.func(f).body.as_ref().and_then(|b| b.ret_var) {
                        if self.tracked[rv.0 as usize] {
                            let x = self.eval(s, val);
                            self.assign(&mut m, rv, x);
                        }
                    }
                    Some(Values(Rc::new(m)))
                } else {
                    self.edge(s, &edge.op, cut)
                }
            }
            Transition::Enter { edge, callee, .. } => {
                let EdgeOp::Call { args, .. } = &edge.op else {
                    return vec![s.clone()];
                };
                let mut m = (*s.0).clone();
                // Fresh activation: locals are uninitialised, parameters get the arguments.
                self.forget_locals(&mut m, *callee);
                for (param, arg) in p.func(*callee).params.iter().zip(args) {
                    if self.tracked[param.0 as usize] && self.int_kind(arg).is_some() {
                        let x = self.eval(s, arg);
                        let x = x.and_then(|x| match p.types.get(p.var(*param).ty) {
                            Type::Int(k) => Some(k.wrap(x)),
                            _ => None,
                        });
                        self.assign(&mut m, *param, x);
                    }
                }
                Some(Values(Rc::new(m)))
            }
            Transition::Return { edge, callee, .. } => {
                let EdgeOp::Call { lhs, .. } = &edge.op else {
                    return vec![s.clone()];
                };
                let mut m = (*s.0).clone();
                let ret = p
                    .func(*callee)
                    .body
                    .as_ref()
                    .and_then(|b| b.ret_var)
                    .and_then(|rv| s.get(rv));
                self.forget_locals(&mut m, *callee);
                if let Some(v) = lhs.as_ref().and_then(|l| self.tracked_var(l)) {
                    let ret = ret
                        .filter(|_| lhs.as_ref().is_some_and(|l| self.int_kind(l).is_some()))
                        .map(|x| match p.types.get(p.var(v).ty) {
                            Type::Int(k) => k.wrap(x),
                            _ => x,
                        });
                    self.assign(&mut m, v, ret);
                }
                Some(Values(Rc::new(m)))
            }
            // Specification variables are written only by woven
            // assignments; woven assumes prune like assume edges.
            Transition::Woven(w) => self.edge(s, &w.op, false),
        };
        next.into_iter().collect()
    }

    /// `a ⊑ b`: every value `b` knows, `a` knows too, equally.
    fn less_or_equal(&self, a: &Values, b: &Values) -> bool {
        Rc::ptr_eq(&a.0, &b.0) || b.0.iter().all(|(v, x)| a.get(*v) == Some(*x))
    }

    /// Join: the values both states agree on.
    fn merge(&self, new: &Values, reached: &Values, _prec: &()) -> Values {
        if self.less_or_equal(new, reached) {
            return reached.clone();
        }
        let m: BTreeMap<VarId, i128> = reached
            .0
            .iter()
            .filter(|(v, x)| new.get(**v) == Some(**x))
            .map(|(v, x)| (*v, *x))
            .collect();
        Values(Rc::new(m))
    }
}

#[cfg(test)]
mod tests {
    use crate::algorithm::reachability::{explore_labels, Limits};
    use crate::frontend::{parse_source, FrontendOptions};
    use crate::report::Verdict;

    /// The verdict for `label(ERROR)` in `src`: TRUE when the exploration
    /// finished without reaching it.
    fn verdict(src: &str) -> Verdict {
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let ex = explore_labels(
            &p,
            &["ERROR"],
            Limits {
                cpu: None,
                max_states: 100_000,
            },
        );
        if ex.complete && ex.hit.is_empty() {
            Verdict::True
        } else {
            Verdict::Unknown
        }
    }

    const MODEL: &str = "int ldv_mutex = 1; int nd(void); void ldv_error(void) { ERROR: goto ERROR; }
        void mutex_lock(void) { if (ldv_mutex != 1) ldv_error(); ldv_mutex = 2; }
        void mutex_unlock(void) { if (ldv_mutex != 2) ldv_error(); ldv_mutex = 1; }
        int mutex_lock_interruptible(void) { if (ldv_mutex != 1) ldv_error(); if (nd()) { ldv_mutex = 2; return 0; } return -4; }";

    #[test]
    fn a_correct_lock_discipline_is_proved() {
        let src = format!("{MODEL} int main(void) {{ while (nd()) {{ mutex_lock(); if (nd()) {{ mutex_unlock(); continue; }} mutex_unlock(); }} return 0; }}");
        assert_eq!(verdict(&src), Verdict::True);
    }

    #[test]
    fn return_values_correlate_with_the_model_state() {
        let src = format!("{MODEL} int main(void) {{ if (mutex_lock_interruptible()) return 1; mutex_unlock(); return 0; }}");
        assert_eq!(verdict(&src), Verdict::True);
    }

    #[test]
    fn double_locks_and_unknown_values_are_never_proved() {
        let src = format!("{MODEL} int main(void) {{ mutex_lock(); if (nd()) mutex_lock(); mutex_unlock(); return 0; }}");
        assert_eq!(verdict(&src), Verdict::Unknown);
        // A lock in a loop: the join at the loop head forgets the state.
        let src = format!(
            "{MODEL} int main(void) {{ int i; for (i = 0; i < 3; i++) mutex_lock(); return 0; }}"
        );
        assert_eq!(verdict(&src), Verdict::Unknown);
    }

    #[test]
    fn memory_writes_and_address_taken_variables_are_not_trusted() {
        // x's address is taken: *p = 1 may change it, so x is not tracked.
        assert_eq!(
            verdict(
                "int main(void) { int x = 0; int *p = &x; *p = 1; if (x) { ERROR: ; } return 0; }"
            ),
            Verdict::Unknown
        );
        // Calls without a body make their results unknown.
        assert_eq!(verdict("int ext(void); int main(void) { int x = 0; x = ext(); if (x == 5) { ERROR: ; } return 0; }"), Verdict::Unknown);
        // Havoc of inline assembly outputs.
        assert_eq!(verdict("int main(void) { int x = 0; __asm__ (\"\" : \"=r\"(x)); if (x) { ERROR: ; } return 0; }"), Verdict::Unknown);
    }

    #[test]
    fn arithmetic_follows_c() {
        assert_eq!(verdict("int main(void) { unsigned char c = 255; c = c + 1; if (c != 0) { ERROR: ; } return 0; }"), Verdict::True);
        assert_eq!(verdict("int main(void) { unsigned int u = 0; u = u - 1; if (u != 4294967295U) { ERROR: ; } return 0; }"), Verdict::True);
        assert_eq!(verdict("int main(void) { int a = -7; if (a / 2 != -3 || a % 2 != -1) { ERROR: ; } return 0; }"), Verdict::True);
        // Signed overflow is undefined: not evaluated, so not proved.
        assert_eq!(verdict("int main(void) { int a = 2147483647; a = a + 1; if (a > 0) { ERROR: ; } return 0; }"), Verdict::Unknown);
        // Division by zero is not evaluated.
        assert_eq!(
            verdict(
                "int main(void) { int z = 0; int a = 5 / z; if (a == 1) { ERROR: ; } return 0; }"
            ),
            Verdict::Unknown
        );
    }

    #[test]
    fn equality_assumptions_fix_values_and_parameters_are_bound() {
        assert_eq!(verdict("int nd(void); int main(void) { int x = nd(); if (x == 3) { if (x != 3) { ERROR: ; } } return 0; }"), Verdict::True);
        assert_eq!(verdict("int f(int a) { return a * 2; } int main(void) { if (f(4) != 8) { ERROR: ; } return 0; }"), Verdict::True);
        // Recursion is cut: the nested call may change any global, so g is forgotten.
        assert_eq!(verdict("int g = 0; int r(int n) { g = 1; if (n) r(n - 1); return 0; } int main(void) { r(2); if (g == 0) { ERROR: ; } return 0; }"), Verdict::Unknown);
        assert_eq!(verdict("int g = 0; int r(int n) { g = 1; return 0; } int main(void) { r(2); if (g == 0) { ERROR: ; } return 0; }"), Verdict::True);
        assert_eq!(verdict("int g = 0; int r(int n) { if (n) r(n - 1); else g = 1; return 0; } int main(void) { r(1); if (g == 1) { ERROR: ; } return 0; }"), Verdict::Unknown);
    }
}
