//! Calls through function pointers: the call is an unknown-target edge
//! while lowering; once every function of the translation unit is known,
//! it is split into `[fp == &f] f(args)` cases over the address-taken
//! functions of a compatible type, with the unknown-target edge as the
//! fallback under the negation of all cases. The case of a `noreturn`
//! candidate ends its path after the call, as a direct call does.

use super::Lowerer;
use crate::cfa::EdgeOp;
use crate::ir::{BinaryOp, Expr, ExprKind, FuncId, SrcPos, Type, TypeId};

impl<'a> Lowerer<'a> {
    /// A call through a function pointer. The fallback edge is emitted now;
    /// the case split over candidates is added by
    /// [`resolve_pointer_calls`](Self::resolve_pointer_calls) once every
    /// function of the translation unit is known.
    pub(super) fn pointer_call(
        &mut self,
        target: Expr,
        fty: TypeId,
        lhs: Option<Expr>,
        args: Vec<Expr>,
        pos: SrcPos,
    ) {
        if let ExprKind::AddrOf(inner) = &target.kind {
            if let ExprKind::Func(f) = inner.kind {
                self.emit(
                    EdgeOp::Call {
                        lhs,
                        callee: f,
                        args,
                    },
                    pos,
                );
                if self.noreturn.contains(&f) {
                    self.end_path(pos);
                }
                return;
            }
        }
        let id = crate::cfa::EdgeId(self.p.edges.len() as u32);
        self.emit(EdgeOp::CallUnknown { lhs, target, args }, pos);
        self.pointer_calls.push((id, fty));
    }

    /// Splits every pointer call over the address-taken functions of a
    /// compatible type: `[fp == &f] f(args)` for each candidate, and the
    /// original unknown-target edge under the negation of all cases.
    pub(super) fn resolve_pointer_calls(&mut self) {
        let int = self.int_ty();
        for (id, fty) in std::mem::take(&mut self.pointer_calls) {
            let edge = self.p.edge(id).clone();
            let EdgeOp::CallUnknown { lhs, target, args } = &edge.op else {
                continue;
            };
            let candidates: Vec<FuncId> = (0..self.p.functions.len() as u32)
                .map(FuncId)
                .filter(|&f| self.p.func(f).address_taken)
                .filter(|&f| self.compatible(self.p.func(f).ty, fty, args.len()))
                .collect();
            if candidates.is_empty() {
                continue;
            }
            self.f.func = Some(self.p.loc(edge.from).func);
            let mut rest = edge.from;
            let mut first = true;
            for &f in &candidates {
                let fexpr = Expr::new(ExprKind::Func(f), self.p.func(f).ty);
                let addr = self.addr_of(fexpr);
                let cond = Expr::new(
                    ExprKind::Binary(BinaryOp::Eq, Box::new(target.clone()), Box::new(addr)),
                    int,
                );
                let (hit, next) = (self.new_loc(edge.pos), self.new_loc(edge.pos));
                if first {
                    // The unknown-target edge moves behind the case split.
                    self.p.move_edge_source(id, next);
                    first = false;
                }
                self.edge(
                    rest,
                    hit,
                    EdgeOp::Assume {
                        cond: cond.clone(),
                        truth: true,
                    },
                    edge.pos,
                );
                // After a noreturn candidate the path ends (`end_path`).
                let noreturn = self.noreturn.contains(&f);
                let returned = if noreturn {
                    self.new_loc(edge.pos)
                } else {
                    edge.to
                };
                let call = EdgeOp::Call {
                    lhs: lhs.clone(),
                    callee: f,
                    args: args.clone(),
                };
                self.edge(hit, returned, call, edge.pos);
                if noreturn {
                    let never = Expr::int(0, int);
                    let dead = self.new_loc(edge.pos);
                    let stop = EdgeOp::Assume {
                        cond: never,
                        truth: true,
                    };
                    self.edge(returned, dead, stop, edge.pos);
                }
                self.edge(rest, next, EdgeOp::Assume { cond, truth: false }, edge.pos);
                rest = next;
            }
            self.p.move_edge_source(id, rest);
            self.f.func = None;
        }
    }

    /// Whether a function of type `f` may be called through a pointer of type `want`.
    fn compatible(&self, f: TypeId, want: TypeId, nargs: usize) -> bool {
        match (self.p.types.get(f), self.p.types.get(want)) {
            (
                Type::Function {
                    ret: r1,
                    params: p1,
                    variadic: v1,
                },
                Type::Function {
                    ret: r2,
                    params: p2,
                    ..
                },
            ) => {
                let void1 = matches!(self.p.types.get(*r1), Type::Void);
                let void2 = matches!(self.p.types.get(*r2), Type::Void);
                void1 == void2
                    && (void1 || self.same_shape(*r1, *r2))
                    && (p1.len() == nargs || (*v1 && p1.len() <= nargs))
                    && p1.iter().zip(p2).all(|(a, b)| self.same_shape(*a, *b))
            }
            _ => false,
        }
    }

    /// Whether a function with a parameter (or result) of type `a` fits a
    /// pointer call whose function type has `b` there: pointers to the same
    /// type (or `void *`, or both to functions), integers of one size,
    /// floats of one size, or the same struct or union. This is the
    /// type-matching resolution of CPAchecker, whose verdicts LDV's are;
    /// a function excluded here is reached only through the unknown-target
    /// edge, which treats the call as a call of a kernel function.
    fn same_shape(&self, a: TypeId, b: TypeId) -> bool {
        let t = &self.p.types;
        match (t.get(a), t.get(b)) {
            (Type::Pointer(x), Type::Pointer(y)) => {
                x == y
                    || matches!(t.get(*x), Type::Void)
                    || matches!(t.get(*y), Type::Void)
                    || matches!(
                        (t.get(*x), t.get(*y)),
                        (Type::Function { .. }, Type::Function { .. })
                    )
            }
            (Type::Int(x), Type::Int(y)) => x.bits() == y.bits(),
            (Type::Float(x), Type::Float(y)) => x == y,
            (Type::Composite(x), Type::Composite(y)) => x == y,
            _ => false,
        }
    }
}
