//! The strongest postcondition of one analysis step over a [`SymState`], and
//! the join of two symbolic states (shared by bounded symbolic execution and
//! the predicate analysis).
//!
//! Semantics of calls:
//! - entering a defined function binds the arguments to the parameters and
//!   gives every local of the callee a fresh value (a new activation);
//! - a body-less function returns a fresh value; `Assume` functions constrain
//!   their argument; allocation functions return NULL or a fresh heap object;
//!   a body-less function that receives a pointer may write through it, so
//!   memory becomes arbitrary (the path is then inexact);
//! - a call through a function pointer that matches none of the module's
//!   candidate functions calls a function outside the module: like a
//!   body-less call, and inexact (mpv assumes, as LDV's environment model
//!   does, that code outside the module does not call back into it);
//! - a call of a function that is already on the call stack (recursion cut)
//!   is not an over-approximation: `sound` is cleared.

use z3::ast::{Array, Bool, BV};

use super::{is_allocator, may_write_through_pointers, Encoder, LdvAssumption, SymState};
use crate::cfa::{EdgeOp, Program};
use crate::cpa::Transition;
use crate::ir::{Expr, ExprKind, FunctionKind, Type};

/// The `Havoc` reason of inline assembly statements (front end).
pub const INLINE_ASM: &str = "inline assembly";

/// Applies one step to `st`; returns the path constraint it adds and the
/// value it writes (for counterexamples).
pub fn apply(
    enc: &Encoder<'_>,
    st: &mut SymState,
    t: &Transition,
    p: &Program,
) -> (Option<Bool>, Option<BV>) {
    match t {
        Transition::Edge { edge, .. } => match &edge.op {
            EdgeOp::Skip => (None, None),
            EdgeOp::Assume { cond, truth } => {
                let c = enc.cond(st, cond);
                (Some(if *truth { c } else { c.not() }), None)
            }
            EdgeOp::Assign { lhs, rhs } => (None, enc.assign(st, lhs, rhs)),
            EdgeOp::Call { lhs, callee, args } => {
                let f = p.func(*callee);
                let mut cons = None;
                match f.kind {
                    FunctionKind::Assume => {
                        if let Some(a) = args.first() {
                            cons = Some(enc.cond(st, a));
                        }
                    }
                    FunctionKind::Defined => {
                        // recursion cut: the callee's effect is unknown
                        st.exact = false;
                        st.sound = false;
                    }
                    _ => {}
                }
                let writes = may_write_through_pointers(&f.name)
                    && !enc.modelled_functions.borrow().contains(&f.name);
                let (c, val) = external_call(enc, st, &f.name, f.kind, writes, lhs.as_ref(), args);
                (cons.or(c), val)
            }
            EdgeOp::CallUnknown { lhs, args, .. } => {
                if !enc.assume_ldv(LdvAssumption::UnknownTargetIsExternal) {
                    st.exact = false;
                }
                external_call(
                    enc,
                    st,
                    "",
                    FunctionKind::External,
                    false,
                    lhs.as_ref(),
                    args,
                )
            }
            EdgeOp::Return { value } => {
                let func = p.loc(edge.from).func;
                let rv = p.func(func).body.as_ref().and_then(|b| b.ret_var);
                match (value, rv) {
                    (Some(v), Some(r)) => {
                        let lhs = Expr::var(r, p.var(r).ty);
                        (None, enc.assign(st, &lhs, v))
                    }
                    _ => (None, None),
                }
            }
            EdgeOp::Havoc { lvalues, reason }
                if *reason == INLINE_ASM && enc.assume_ldv(LdvAssumption::InlineAsmSkipped) =>
            {
                // As LDV's verifiers: the statement is skipped; its register
                // outputs (uninitialised or not) read arbitrary values.
                for l in lvalues {
                    if let ExprKind::Var(v) = l.kind {
                        if !p.var(v).address_taken {
                            let val = enc.fresh(enc.width(l.ty));
                            enc.write(st, l, val);
                        }
                    }
                }
                (None, None)
            }
            EdgeOp::Havoc { lvalues, .. } => {
                st.exact = false;
                for l in lvalues {
                    let v = enc.fresh(enc.width(l.ty));
                    enc.write(st, l, v);
                }
                (None, None)
            }
        },
        Transition::Enter { edge, callee, .. } => {
            let EdgeOp::Call { args, .. } = &edge.op else {
                return (None, None);
            };
            let f = p.func(*callee);
            // Structs and unions passed by value live in memory: copied
            // like an assignment (before the callee's registers are reset).
            for (a, &prm) in args.iter().zip(&f.params) {
                if matches!(p.types.get(p.var(prm).ty), Type::Composite(_)) {
                    enc.assign(st, &Expr::var(prm, p.var(prm).ty), a);
                }
            }
            let vals: Vec<_> = args
                .iter()
                .zip(&f.params)
                .filter(|(_, &prm)| !matches!(p.types.get(p.var(prm).ty), Type::Composite(_)))
                .map(|(a, &prm)| (Expr::var(prm, p.var(prm).ty), enc.eval(st, a)))
                .collect();
            // A new activation: locals, result and parameters start fresh.
            if let Some(b) = &f.body {
                for &l in b.locals.iter().chain(b.ret_var.iter()) {
                    enc.forget_register(st, l);
                }
            }
            for &prm in &f.params {
                enc.forget_register(st, prm);
            }
            for (lhs, v) in vals {
                if matches!(p.types.get(lhs.ty), Type::Array { .. }) {
                    // an array parameter is a pointer after adjustment; a
                    // left-over array type is not modelled
                    st.exact = false;
                    st.sound = false;
                    continue;
                }
                enc.write(st, &lhs, v);
            }
            (None, None)
        }
        Transition::Return { edge, callee, .. } => {
            let EdgeOp::Call { lhs: Some(l), .. } = &edge.op else {
                return (None, None);
            };
            let rv = p.func(*callee).body.as_ref().and_then(|b| b.ret_var);
            match rv {
                Some(r) => {
                    let rhs = Expr::var(r, p.var(r).ty);
                    (None, enc.assign(st, l, &rhs))
                }
                None => {
                    let v = enc.fresh(enc.width(l.ty));
                    enc.write(st, l, v);
                    (None, None)
                }
            }
        }
        Transition::Woven(w) => match &w.op {
            EdgeOp::Assume { cond, truth } => {
                let c = enc.cond(st, cond);
                (Some(if *truth { c } else { c.not() }), None)
            }
            EdgeOp::Assign { lhs, rhs } => (None, enc.assign(st, lhs, rhs)),
            _ => {
                st.exact = false;
                st.sound = false;
                (None, None)
            }
        },
    }
}

/// A call of a function outside the module (or without a body): fresh
/// result, NULL-or-fresh-object for allocators, memory havoc when it gets a
/// pointer, unless it is not known to `writes` through pointers and LDV's
/// assumptions are in force.
fn external_call(
    enc: &Encoder<'_>,
    st: &mut SymState,
    name: &str,
    kind: FunctionKind,
    writes: bool,
    lhs: Option<&Expr>,
    args: &[Expr],
) -> (Option<Bool>, Option<BV>) {
    let p = enc.p;
    let allocator = is_allocator(name);
    let gets_pointer = args
        .iter()
        .any(|a| matches!(p.types.get(a.ty), Type::Pointer(_) | Type::Array { .. }));
    let no_side_effects = matches!(kind, FunctionKind::Assume | FunctionKind::Defined);
    if !no_side_effects
        && gets_pointer
        && !allocator
        && (writes || !enc.assume_ldv(LdvAssumption::ExternalKeepsMemory))
    {
        enc.havoc_memory(st);
        st.exact = false;
    }
    if allocator && (name.contains("zalloc") || name.contains("calloc")) {
        // Zeroed contents are modelled as arbitrary.
        st.exact = false;
    }
    // arguments are evaluated (an imprecise argument taints the path)
    for a in args {
        let _ = enc.eval(st, a);
    }
    let Some(l) = lhs else {
        return (None, None);
    };
    if allocator {
        let (v, c) = enc.allocate(st);
        enc.write(st, l, v.clone());
        (Some(c), Some(v))
    } else {
        let v = enc.fresh(enc.width(l.ty));
        enc.write(st, l, v.clone());
        (None, Some(v))
    }
}

/// The join of two symbolic states reached under the path conditions `ga`
/// and `gb`: values become `ite(ga, a, b)`.
pub fn merge(ga: &Bool, a: &SymState, b: &SymState) -> SymState {
    let mut regs = a.regs.clone();
    for (v, tb) in &b.regs {
        match regs.get(v) {
            Some(ta) if ta == tb => {}
            Some(ta) if ta.get_size() == tb.get_size() => {
                let t = ga.ite(ta, tb);
                regs.insert(*v, t);
            }
            Some(_) => {}
            None => {
                let ta = Encoder::register_symbol(*v, tb.get_size());
                regs.insert(*v, ga.ite(&ta, tb));
            }
        }
    }
    for (v, ta) in &a.regs {
        if !b.regs.contains_key(v) {
            let tb = Encoder::register_symbol(*v, ta.get_size());
            regs.insert(*v, ga.ite(ta, &tb));
        }
    }
    let mem = a
        .mem
        .iter()
        .zip(&b.mem)
        .map(|(x, y)| {
            if x == y {
                x.clone()
            } else {
                ga.ite::<Array>(x, y)
            }
        })
        .collect();
    let heap_top = match (&a.heap_top, &b.heap_top) {
        (None, None) => None,
        (x, y) => {
            let top = SymState::heap_top_symbol;
            let (x, y) = (x.clone().unwrap_or_else(top), y.clone().unwrap_or_else(top));
            Some(if x == y { x } else { ga.ite(&x, &y) })
        }
    };
    SymState {
        regs,
        mem,
        exact: a.exact && b.exact,
        sound: a.sound && b.sound,
        heap_top,
    }
}
