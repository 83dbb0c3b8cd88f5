//! Explicit-value analysis: constant values of integer variables whose
//! address is never taken, path by path, and what is known of such
//! variables and of pointer variables against zero: `p == 0` or `p != 0`.
//! Assumptions whose condition evaluates to a constant prune infeasible
//! branches.
//!
//! Knowing `!= 0` is what lets the rules that observe one call share its
//! outcome along the path: an automaton that assumes `kmalloc`'s result
//! non-null leaves the program's own `if (!p)` and every later automaton's
//! `$1 == 0` refuted, instead of each splitting the path again.
//!
//! Soundness: a variable's value is forgotten whenever it is not known
//! exactly (arbitrary inputs, calls without a body writing it, havoc, any
//! expression not evaluated here such as memory reads, floats, division by
//! zero, shifts out of range, signed overflow). Variables whose address is
//! taken are never tracked, so writes through pointers cannot invalidate a
//! tracked value. Values follow C's wrap-around for unsigned types. An
//! object's address (`&x`, `&x.f`, a function, a string literal) is
//! non-null; an address computed from a pointer (`&p->f`, `p + i`) is not
//! known. Assumed: functions without a body do not write the module's
//! variables (LDV's environment model calls the module's callbacks
//! itself). A call cut for recursion forgets every tracked global.
//! Specification variables (written only by operations woven in by the
//! LOOM analysis) are tracked like globals that no program code writes.
//!
//! The state space stays finite by joining at loop heads only (the composite
//! calls `merge` there): a variable keeps what it is known to be if both
//! states agree. What is known of a local is forgotten once it is dead
//! ([`crate::cfa::liveness`]: no later step of its activation reads it
//! before writing it), after every edge but a call (operations woven in
//! at a call may read its arguments and result): states that differ only
//! in values nothing reads again cover each other. On LDV modules, whose
//! environment model tests one fresh nondeterministic choice after
//! another, this takes the explicit stage and the value search from one
//! state per combination of past choices to one per live choice.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::{Cpa, Transition};
use crate::cfa::liveness::Liveness;
use crate::cfa::{EdgeOp, LocId, Program};
use crate::ir::{
    BinaryOp, Expr, ExprKind, FuncId, FunctionKind, IntKind, Scope, Type, TypeId, UnaryOp, VarId,
};

/// What a state knows of a tracked variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Known {
    /// Its value.
    Exactly(i128),
    /// That it is not zero (not null).
    NonZero,
}

impl Known {
    /// Whether it is non-zero, if that is known.
    fn truth(self) -> bool {
        match self {
            Known::Exactly(x) => x != 0,
            Known::NonZero => true,
        }
    }

    fn exact(self) -> Option<i128> {
        match self {
            Known::Exactly(x) => Some(x),
            Known::NonZero => None,
        }
    }
}

/// What is known of tracked variables (absent = nothing).
///
/// With a signature of its facts, a 64-bit set with one bit per fact
/// (hashed): a state whose signature has a bit the other's lacks knows a
/// fact the other does not, so it cannot be covered by it, decided
/// without a walk of the maps (most of the coverage checks at a place
/// with many states fail that way).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Values {
    signature: u64,
    map: Rc<BTreeMap<VarId, Known>>,
}

/// The signature bit of one fact.
fn fact_bit(v: VarId, k: Known) -> u64 {
    let value = match k {
        Known::Exactly(x) => x as u64 ^ (x >> 64) as u64,
        Known::NonZero => 0x9e37_79b9_7f4a_7c15,
    };
    let h = (u64::from(v.0) << 32 ^ value).wrapping_mul(0xff51_afd7_ed55_8ccd);
    1 << (h >> 58)
}

impl Values {
    fn of(map: BTreeMap<VarId, Known>) -> Values {
        Values {
            signature: map.iter().fold(0, |s, (v, k)| s | fact_bit(*v, *k)),
            map: Rc::new(map),
        }
    }

    /// Whether `self` knows everything `other` knows, equally (`other`
    /// covers `self`).
    fn knows_all_of(&self, other: &Values) -> bool {
        if Rc::ptr_eq(&self.map, &other.map) {
            return true;
        }
        if other.signature & !self.signature != 0 || other.map.len() > self.map.len() {
            return false;
        }
        let mut looked_up = 0;
        let all = other.map.iter().all(|(v, x)| {
            looked_up += 1;
            self.known(*v) == Some(*x)
        });
        crate::smt::work::charge_lookups(looked_up);
        all
    }

    /// What `self` and `other` know together (`other` wins where both
    /// know a variable).
    pub fn with(&self, other: &Values) -> Values {
        if other.map.is_empty() {
            return self.clone();
        }
        if self.map.is_empty() {
            return other.clone();
        }
        let mut m = (*self.map).clone();
        m.extend(other.map.iter().map(|(v, k)| (*v, *k)));
        Values::of(m)
    }

    /// What is known of the variables `pick` selects, and of the others.
    pub fn split(&self, pick: impl Fn(VarId) -> bool) -> (Values, Values) {
        let (a, b): (BTreeMap<VarId, Known>, BTreeMap<VarId, Known>) = self
            .map
            .iter()
            .map(|(v, k)| (*v, *k))
            .partition(|(v, _)| pick(*v));
        (Values::of(a), Values::of(b))
    }

    /// What is known of each variable that something is known of.
    pub fn iter(&self) -> impl Iterator<Item = (VarId, Known)> + '_ {
        self.map.iter().map(|(v, k)| (*v, *k))
    }

    /// The value of `v`, if known exactly.
    pub fn get(&self, v: VarId) -> Option<i128> {
        self.known(v).and_then(Known::exact)
    }

    fn known(&self, v: VarId) -> Option<Known> {
        self.map.get(&v).copied()
    }
}

/// Whether a conversion from `from` to `to` maps zero, and only zero, to
/// zero: between pointers and integers at least as wide as a pointer, and
/// from an integer to one at least as wide.
fn keeps_zero(p: &Program, from: TypeId, to: TypeId) -> bool {
    let width = |t| match p.types.get(t) {
        Type::Int(k) => Some(k.bits()),
        Type::Pointer(_) => Some(64),
        _ => None,
    };
    match (width(from), width(to)) {
        (Some(f), Some(t)) => t >= f,
        _ => false,
    }
}

/// Whether the lvalue `e` lies in an object named in the program (a
/// variable, a function, a literal), so its address is not null; one
/// reached through a pointer may be anywhere.
fn object(p: &Program, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) | ExprKind::Func(_) | ExprKind::StrLit(_) => true,
        ExprKind::Member(a, _) => object(p, a),
        ExprKind::Index(a, _) => matches!(p.types.get(a.ty), Type::Array { .. }) && object(p, a),
        _ => false,
    }
}

pub struct ValueCpa<'p> {
    program: &'p Program,
    tracked: Vec<bool>,
    globals: Vec<VarId>,
    /// Tracked locals (including parameters and temporaries) of each function.
    locals: Vec<Vec<VarId>>,
    /// The locals a later step may read (the program's [`Liveness`]): what
    /// is known of the others is forgotten.
    liveness: &'p Liveness,
}

impl<'p> ValueCpa<'p> {
    pub fn new(program: &'p Program) -> Self {
        let tracked: Vec<bool> = program
            .vars
            .iter()
            .map(|v| {
                matches!(program.types.get(v.ty), Type::Int(_) | Type::Pointer(_))
                    && !v.address_taken
            })
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
            liveness: program.liveness(),
        }
    }

    fn int_kind(&self, e: &Expr) -> Option<IntKind> {
        match self.program.types.get(e.ty) {
            Type::Int(k) => Some(*k),
            _ => None,
        }
    }

    fn is_pointer(&self, e: &Expr) -> bool {
        self.program.types.is_pointer(e.ty)
    }

    /// The value of an integer expression, if it is determined by the state.
    pub fn eval(&self, s: &Values, e: &Expr) -> Option<i128> {
        self.int_kind(e)?;
        self.know(s, e)?.exact()
    }

    /// Whether a scalar expression is non-zero, if the state determines it.
    fn truth(&self, s: &Values, e: &Expr) -> Option<bool> {
        self.know(s, e).map(Known::truth)
    }

    /// What the state determines of an integer or pointer expression.
    fn know(&self, s: &Values, e: &Expr) -> Option<Known> {
        if self.is_pointer(e) {
            return self.know_pointer(s, e);
        }
        let k = self.int_kind(e)?;
        let exactly = |v: Option<i128>| v.map(Known::Exactly);
        let wrap = |v: i128| -> Option<i128> {
            let w = k.wrap(v);
            // Signed overflow is undefined: do not pretend to know the result.
            if k.signed() && w != v {
                None
            } else {
                Some(w)
            }
        };
        let int = |e: &Expr| self.eval(s, e);
        match &e.kind {
            ExprKind::IntConst(v) => Some(Known::Exactly(*v)),
            ExprKind::Var(v) => s.known(*v),
            ExprKind::Cast(a, _) => match self.know(s, a)? {
                Known::Exactly(x) if self.int_kind(a).is_some() => Some(Known::Exactly(k.wrap(x))),
                Known::Exactly(0) => Some(Known::Exactly(0)),
                known if keeps_zero(self.program, a.ty, e.ty) => {
                    Some(if known.truth() && k == IntKind::Bool {
                        Known::Exactly(1)
                    } else {
                        Known::NonZero
                    })
                }
                _ => None,
            },
            ExprKind::Unary(UnaryOp::LogNot, a) => exactly(self.truth(s, a).map(|t| (!t) as i128)),
            ExprKind::Unary(op, a) => {
                let x = int(a)?;
                exactly(match op {
                    UnaryOp::Neg => wrap(x.checked_neg()?),
                    UnaryOp::BitNot => Some(k.wrap(!x)),
                    UnaryOp::LogNot => unreachable!("handled above"),
                })
            }
            ExprKind::Binary(BinaryOp::LogAnd, a, b) => match self.truth(s, a) {
                Some(false) => Some(Known::Exactly(0)),
                Some(true) => exactly(self.truth(s, b).map(|y| y as i128)),
                None => (self.truth(s, b) == Some(false)).then_some(Known::Exactly(0)),
            },
            ExprKind::Binary(BinaryOp::LogOr, a, b) => match self.truth(s, a) {
                Some(false) => exactly(self.truth(s, b).map(|y| y as i128)),
                Some(true) => Some(Known::Exactly(1)),
                None => (self.truth(s, b) == Some(true)).then_some(Known::Exactly(1)),
            },
            ExprKind::Binary(op @ (BinaryOp::Eq | BinaryOp::Ne), a, b) => {
                let equal = self.equal(s, a, b)?;
                Some(Known::Exactly((equal == (*op == BinaryOp::Eq)) as i128))
            }
            ExprKind::Binary(op, a, b) => {
                // Operands must be integers (pointer arithmetic is not evaluated).
                self.int_kind(a)?;
                self.int_kind(b)?;
                let (x, y) = (int(a)?, int(b)?);
                let bits = k.bits() as i128;
                exactly(match op {
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
                    BinaryOp::Lt => Some((x < y) as i128),
                    BinaryOp::Le => Some((x <= y) as i128),
                    BinaryOp::Gt => Some((x > y) as i128),
                    BinaryOp::Ge => Some((x >= y) as i128),
                    BinaryOp::Eq | BinaryOp::Ne | BinaryOp::LogAnd | BinaryOp::LogOr => {
                        unreachable!("handled above")
                    }
                })
            }
            ExprKind::Cond(c, a, b) => self.know_cond(s, c, a, b),
            _ => None,
        }
    }

    /// `c ? a : b`.
    fn know_cond(&self, s: &Values, c: &Expr, a: &Expr, b: &Expr) -> Option<Known> {
        match self.truth(s, c) {
            Some(false) => self.know(s, b),
            Some(true) => self.know(s, a),
            None => {
                let (x, y) = (self.know(s, a)?, self.know(s, b)?);
                if x == y {
                    Some(x)
                } else {
                    (x.truth() && y.truth()).then_some(Known::NonZero)
                }
            }
        }
    }

    /// What the state determines of a pointer expression: null, or not.
    fn know_pointer(&self, s: &Values, e: &Expr) -> Option<Known> {
        match &e.kind {
            ExprKind::Var(v) => s.known(*v),
            ExprKind::Cast(a, _) => match self.know(s, a)? {
                Known::Exactly(0) => Some(Known::Exactly(0)),
                known if keeps_zero(self.program, a.ty, e.ty) && known.truth() => {
                    Some(Known::NonZero)
                }
                _ => None,
            },
            ExprKind::AddrOf(a) => object(self.program, a).then_some(Known::NonZero),
            ExprKind::Func(_) | ExprKind::StrLit(_) => Some(Known::NonZero),
            ExprKind::Cond(c, a, b) => self.know_cond(s, c, a, b),
            _ => None,
        }
    }

    /// Whether `a == b`, if the state determines it: both values known, or
    /// one zero and the other not.
    fn equal(&self, s: &Values, a: &Expr, b: &Expr) -> Option<bool> {
        // Integer operands of different kinds have been converted to
        // one; pointers compare as addresses.
        let comparable = |e: &Expr| self.int_kind(e).is_some() || self.is_pointer(e);
        if !comparable(a) || !comparable(b) {
            return None;
        }
        match (self.know(s, a)?, self.know(s, b)?) {
            (Known::Exactly(x), Known::Exactly(y)) => Some(x == y),
            (Known::Exactly(0), Known::NonZero) | (Known::NonZero, Known::Exactly(0)) => {
                Some(false)
            }
            _ => None,
        }
    }

    fn tracked_var(&self, e: &Expr) -> Option<VarId> {
        match e.kind {
            ExprKind::Var(v) if self.tracked[v.0 as usize] => Some(v),
            _ => None,
        }
    }

    /// The tracked variable `e` is, under conversions that keep zero and
    /// only zero ([`keeps_zero`]).
    fn zero_tracked_var(&self, e: &Expr) -> Option<VarId> {
        match &e.kind {
            ExprKind::Cast(a, _) if keeps_zero(self.program, a.ty, e.ty) => {
                self.zero_tracked_var(a)
            }
            _ => self.tracked_var(e),
        }
    }

    fn forget_locals(&self, m: &mut BTreeMap<VarId, Known>, f: FuncId) {
        for v in &self.locals[f.0 as usize] {
            m.remove(v);
        }
    }

    fn assign(&self, m: &mut BTreeMap<VarId, Known>, v: VarId, value: Option<Known>) {
        match value {
            Some(x) => {
                m.insert(v, x);
            }
            None => {
                m.remove(&v);
            }
        }
    }

    /// What `e`'s value, stored in `v`, is known to be.
    fn stored(&self, s: &Values, v: VarId, e: &Expr) -> Option<Known> {
        self.converted(self.know(s, e)?, e.ty, self.program.var(v).ty)
    }

    /// What a value known as `known` of type `from` is known to be once
    /// converted to `to`.
    fn converted(&self, known: Known, from: TypeId, to: TypeId) -> Option<Known> {
        let p = self.program;
        let from_int = matches!(p.types.get(from), Type::Int(_));
        match (p.types.get(to), known) {
            (Type::Int(k), Known::Exactly(x)) if from_int => Some(Known::Exactly(k.wrap(x))),
            (Type::Int(k), known) if keeps_zero(p, from, to) => Some(match known {
                Known::NonZero if *k == IntKind::Bool => Known::Exactly(1),
                other => other,
            }),
            (Type::Pointer(_), Known::Exactly(0)) => Some(Known::Exactly(0)),
            (Type::Pointer(_), known) if keeps_zero(p, from, to) && known.truth() => {
                Some(Known::NonZero)
            }
            _ => None,
        }
    }

    /// What assuming `cond` to be `truth` tells; `None` if it is refuted.
    fn assume(&self, s: &Values, cond: &Expr, truth: bool) -> Option<Values> {
        if let Some(t) = self.truth(s, cond) {
            return (t == truth).then(|| s.clone());
        }
        let learned = match &cond.kind {
            ExprKind::Unary(UnaryOp::LogNot, a) => return self.assume(s, a, !truth),
            ExprKind::Binary(op @ (BinaryOp::Eq | BinaryOp::Ne), a, b) => {
                let equal = (*op == BinaryOp::Eq) == truth;
                [(a, b), (b, a)]
                    .into_iter()
                    .find_map(|(x, y)| self.learn_compared(s, x, y, equal))
            }
            // `v != 0` for pointers and integers alike: an error code
            // tested where it is made (`if (err != 0) return err;`) decides
            // the caller's test of the result. Dead variables are
            // forgotten, so the fact does not split states after its last
            // test.
            _ => self.zero_tracked_var(cond).map(|v| {
                let known = if truth {
                    Known::NonZero
                } else {
                    Known::Exactly(0)
                };
                (v, known)
            }),
        };
        let Some((v, known)) = learned else {
            return Some(s.clone());
        };
        let mut m = (*s.map).clone();
        m.insert(v, known);
        Some(Values::of(m))
    }

    /// `x == y` (`equal`) or `x != y`, with `x` a tracked variable and `y`
    /// known: `x` equals `y`'s value, or is (not) zero.
    fn learn_compared(
        &self,
        s: &Values,
        x: &Expr,
        y: &Expr,
        equal: bool,
    ) -> Option<(VarId, Known)> {
        let c = self.know(s, y)?.exact()?;
        if equal {
            if let Some(v) = self.tracked_var(x) {
                if self.int_kind(x).is_some() && self.int_kind(x) == self.int_kind(y) {
                    return Some((v, Known::Exactly(c)));
                }
            }
        }
        let v = self.zero_tracked_var(x)?;
        match (c, equal) {
            (0, true) => Some((v, Known::Exactly(0))),
            (0, false) => Some((v, Known::NonZero)),
            _ => None,
        }
    }

    /// `s` without what it knows of the locals dead at `at`.
    fn without_dead(&self, s: Values, at: LocId) -> Values {
        let dead = |v: &VarId| self.liveness.is_dead(at, *v);
        if !s.map.keys().any(dead) {
            return s;
        }
        let m = s
            .map
            .iter()
            .filter(|(v, _)| !dead(v))
            .map(|(v, k)| (*v, *k));
        Values::of(m.collect())
    }

    /// Successor along one CFA edge operation; `None` if infeasible.
    fn edge(&self, s: &Values, op: &EdgeOp, recursive_cut: bool) -> Option<Values> {
        let mut m = (*s.map).clone();
        match op {
            EdgeOp::Skip => return Some(s.clone()),
            EdgeOp::Assume { cond, truth } => return self.assume(s, cond, *truth),
            EdgeOp::Assign { lhs, rhs } => {
                if let Some(v) = self.tracked_var(lhs) {
                    let val = self.stored(s, v, rhs);
                    self.assign(&mut m, v, val);
                }
            }
            EdgeOp::Call { lhs, callee, args } => {
                let f = self.program.func(*callee);
                let mut s = s.clone();
                if f.kind == FunctionKind::Assume {
                    if let Some(c) = args.first() {
                        s = self.assume(&s, c, true)?;
                    }
                }
                let mut m = (*s.map).clone();
                if recursive_cut {
                    for g in &self.globals {
                        m.remove(g);
                    }
                }
                if let Some(v) = lhs.as_ref().and_then(|l| self.tracked_var(l)) {
                    m.remove(&v);
                }
                return Some(Values::of(m));
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
        Some(Values::of(m))
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
            EdgeOp::Assume { cond, truth } => self.truth(s, cond).is_some_and(|t| t != *truth),
            _ => false,
        }
    }

    fn transfer(&self, s: &Values, step: &Transition, _prec: &()) -> Vec<Values> {
        let p = self.program;
        let next = match step {
            Transition::Edge { edge, .. } => {
                let cut = matches!(&edge.op, EdgeOp::Call { callee, .. } if p.func(*callee).body.is_some());
                let forgets_dead =
                    !matches!(edge.op, EdgeOp::Call { .. } | EdgeOp::CallUnknown { .. });
                let next = if let EdgeOp::Return { value: Some(val) } = &edge.op {
                    // Return edges end in the function's exit: store the value in its return variable.
                    let f = p.loc(edge.from).func;
                    let mut m = (*s.map).clone();
                    if let Some(rv) = p.func(f).body.as_ref().and_then(|b| b.ret_var) {
                        if self.tracked[rv.0 as usize] {
                            let x = self.stored(s, rv, val);
                            self.assign(&mut m, rv, x);
                        }
                    }
                    Some(Values::of(m))
                } else {
                    self.edge(s, &edge.op, cut)
                };
                // Not after a call: operations woven in there may read its
                // arguments and result.
                if forgets_dead {
                    next.map(|n| self.without_dead(n, edge.to))
                } else {
                    next
                }
            }
            Transition::Enter { edge, callee, .. } => {
                let EdgeOp::Call { args, .. } = &edge.op else {
                    return vec![s.clone()];
                };
                let mut m = (*s.map).clone();
                // Fresh activation: locals are uninitialised, parameters get the arguments.
                self.forget_locals(&mut m, *callee);
                for (param, arg) in p.func(*callee).params.iter().zip(args) {
                    if self.tracked[param.0 as usize] {
                        let x = self.stored(s, *param, arg);
                        self.assign(&mut m, *param, x);
                    }
                }
                Some(Values::of(m))
            }
            Transition::Return { edge, callee, .. } => {
                let EdgeOp::Call { lhs, .. } = &edge.op else {
                    return vec![s.clone()];
                };
                let mut m = (*s.map).clone();
                let rv = p.func(*callee).body.as_ref().and_then(|b| b.ret_var);
                let ret = rv.and_then(|rv| Some((s.known(rv)?, p.var(rv).ty)));
                self.forget_locals(&mut m, *callee);
                if let Some(v) = lhs.as_ref().and_then(|l| self.tracked_var(l)) {
                    let ret = ret.and_then(|(x, ty)| self.converted(x, ty, p.var(v).ty));
                    self.assign(&mut m, v, ret);
                }
                Some(Values::of(m))
            }
            // Specification variables are written only by woven
            // assignments; woven assumes prune like assume edges.
            Transition::Woven(w) => self.edge(s, &w.op, false),
        };
        next.into_iter().collect()
    }

    /// `a ⊑ b`: everything `b` knows, `a` knows too, equally.
    fn less_or_equal(&self, a: &Values, b: &Values) -> bool {
        a.knows_all_of(b)
    }

    /// Join: what both states agree on.
    fn merge(&self, new: &Values, reached: &Values, _prec: &()) -> Option<Values> {
        if self.less_or_equal(new, reached) {
            return None;
        }
        let m: BTreeMap<VarId, Known> = reached
            .map
            .iter()
            .filter(|(v, x)| new.known(**v) == Some(**x))
            .map(|(v, x)| (*v, *x))
            .collect();
        Some(Values::of(m))
    }
}

#[cfg(test)]
mod tests {
    use super::{Known, Values};
    use crate::algorithm::reachability::{explore_labels, Limits};
    use crate::ir::VarId;

    fn values(facts: &[(u32, Known)]) -> Values {
        Values::of(facts.iter().map(|&(v, k)| (VarId(v), k)).collect())
    }

    #[test]
    fn a_state_is_covered_by_one_that_knows_part_of_what_it_knows() {
        let (one, two) = (Known::Exactly(1), Known::Exactly(2));
        let more = values(&[(0, one), (1, two), (2, Known::NonZero)]);
        let less = values(&[(1, two), (2, Known::NonZero)]);
        assert!(more.knows_all_of(&less));
        assert!(!less.knows_all_of(&more));
        assert!(more.knows_all_of(&Values::default()));
        // Another value, or `NonZero` for a value: not covered.
        for other in [values(&[(1, one)]), values(&[(0, Known::NonZero)])] {
            assert!(!more.knows_all_of(&other), "{other:?}");
        }
        // Equal maps built apart have equal signatures.
        assert_eq!(less, values(&[(2, Known::NonZero), (1, two)]));
    }

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
                work: None,
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
    #[test]
    fn null_and_non_null_pointers_are_kept_along_the_path() {
        let ext = "void *kmalloc(unsigned long n); int nd(void);";
        // Null-checked once, the result is known for every later check.
        assert_eq!(verdict(&format!("{ext} int main(void) {{ char *p = kmalloc(8); char *q; if (p == 0) return 1; q = p; if (!q) {{ ERROR: ; }} if ((unsigned long)q == 0UL) {{ goto ERROR; }} return 0; }}")), Verdict::True);
        assert_eq!(verdict(&format!("{ext} int main(void) {{ char *p = kmalloc(8); if (p) return 1; if (p != (char *)0) {{ ERROR: ; }} return 0; }}")), Verdict::True);
        // An object's address is not null; an address computed from a
        // pointer may be.
        assert_eq!(
            verdict("int x; int main(void) { int *p = &x; if (p == 0) { ERROR: ; } return 0; }"),
            Verdict::True
        );
        assert_eq!(verdict("struct s { int a; int b; }; int main(void) { unsigned long o = (unsigned long)&((struct s *)0)->a; if (o == 0) { ERROR: ; } return 0; }"), Verdict::Unknown);
        // A conversion to a narrower integer may make a non-zero value zero.
        assert_eq!(verdict(&format!("{ext} int main(void) {{ long v = nd(); int t; if (v == 0) return 0; t = (int)v; if (t == 0) {{ ERROR: ; }} return 0; }}")), Verdict::Unknown);
        // Unknown pointers stay unknown, and the join forgets what the
        // branches disagree on.
        assert_eq!(verdict(&format!("{ext} int main(void) {{ char *p = kmalloc(8); if (p == 0) {{ ERROR: ; }} return 0; }}")), Verdict::Unknown);
        assert_eq!(verdict(&format!("{ext} int main(void) {{ char *p = 0; while (nd()) {{ p = kmalloc(8); if (p) break; }} if (p) {{ ERROR: ; }} return 0; }}")), Verdict::Unknown);
    }

    #[test]
    fn a_callee_s_non_zero_result_is_known_to_its_caller() {
        // `init` fails with its nondeterministic `err` once it is known to
        // be non-zero; the caller's test of the result is then decided.
        let src = "int nd(void); int failed; static int init(void) { int err; err = nd(); if (err != 0) { failed = 1; return err; } return 0; } int main(void) { int tmp; tmp = init(); if (!(tmp != 0)) { if (failed) { ERROR: ; } } return 0; }";
        assert_eq!(verdict(src), Verdict::True);
    }

    #[test]
    fn states_differing_only_in_dead_locals_cover_each_other() {
        // Twelve variables, each set to 0 or 1 and read once: without
        // forgetting dead variables the states would double at each.
        let (mut decls, mut body) = (String::new(), String::new());
        for i in 0..12 {
            decls += &format!("int x{i}; ");
            body += &format!("x{i} = nd(); if (x{i} != 0) {{ x{i} = 1; }} g = g + x{i}; ");
        }
        let src = format!("int nd(void); int g; int main(void) {{ {decls}{body}return 0; }}");
        let p = parse_source("t.c", &src, &FrontendOptions::default()).unwrap();
        let limits = Limits {
            work: None,
            max_states: 100_000,
        };
        let ex = explore_labels(&p, &["ERROR"], limits);
        assert!(ex.complete);
        assert!(ex.stats.states < 1 << 12, "{} states", ex.stats.states);
    }

    #[test]
    fn assume_calls_learn_like_branches() {
        assert_eq!(verdict("int nd(void); void __VERIFIER_assume(int); int main(void) { int *p = (int *)nd(); __VERIFIER_assume(p != 0); if (!p) { ERROR: ; } return 0; }"), Verdict::True);
        assert_eq!(verdict("int nd(void); void __VERIFIER_assume(int); int main(void) { int x = nd(); __VERIFIER_assume(x == 3); if (x != 3) { ERROR: ; } return 0; }"), Verdict::True);
        // Only zero is excluded.
        assert_eq!(verdict("int nd(void); void __VERIFIER_assume(int); int main(void) { int *p = (int *)nd(); __VERIFIER_assume(p != 0); if (p == (int *)1) { ERROR: ; } return 0; }"), Verdict::Unknown);
    }
}
