//! Operators and conversions: C's integer promotions and usual arithmetic
//! conversions, unary and binary operators (compound assignments and
//! increments as assignment edges), the type of `?:`, and conversion of a
//! value to a type.

use lang_c::ast::*;
use lang_c::span::Node;

use super::expr::has_side_effects;
use super::Lowerer;
use crate::cfa::EdgeOp;
use crate::ir::{BinaryOp, CastKind, Expr, ExprKind, IntKind, SrcPos, Type, TypeId, UnaryOp};
use crate::Result;

impl<'a> Lowerer<'a> {
    /// Converts `e` to type `to` as C implies it (no-op when the types
    /// agree).
    pub(super) fn convert(&mut self, e: Expr, to: TypeId) -> Expr {
        self.convert_as(e, to, CastKind::Implicit)
    }

    /// Converts `e` to type `to`, a conversion of kind `kind` (no-op when
    /// the types agree; a constant is converted in place).
    pub(super) fn convert_as(&mut self, e: Expr, to: TypeId, kind: CastKind) -> Expr {
        if e.ty == to
            || matches!(
                self.p.types.get(to),
                Type::Void | Type::Composite(_) | Type::Array { .. }
            )
        {
            return e;
        }
        if let (ExprKind::IntConst(v), Type::Int(k)) = (&e.kind, self.p.types.get(to)) {
            return Expr::int(k.wrap(*v), to);
        }
        Expr::new(ExprKind::Cast(Box::new(e), kind), to)
    }

    pub(super) fn promote(&mut self, t: TypeId) -> TypeId {
        match self.p.types.get(t) {
            Type::Int(k) if k.bits() < 32 => self.int_ty(),
            _ => t,
        }
    }

    /// The usual arithmetic conversions.
    fn common_type(&mut self, a: TypeId, b: TypeId) -> TypeId {
        match (self.p.types.get(a).clone(), self.p.types.get(b).clone()) {
            (Type::Float(x), Type::Float(y)) => {
                if x >= y {
                    a
                } else {
                    b
                }
            }
            (Type::Float(_), _) => a,
            (_, Type::Float(_)) => b,
            _ => {
                let (a, b) = (self.promote(a), self.promote(b));
                self.p.types.common_integer(a, b)
            }
        }
    }

    pub(super) fn is_float(&self, t: TypeId) -> bool {
        matches!(self.p.types.get(t), Type::Float(_))
    }

    /// `a op b` with C's typing rules.
    pub(super) fn binary(&mut self, op: BinaryOp, a: Expr, b: Expr) -> Expr {
        let int = self.int_ty();
        let (pa, pb) = (self.p.types.is_pointer(a.ty), self.p.types.is_pointer(b.ty));
        if self.is_float(a.ty) || self.is_float(b.ty) {
            let ty = if op.is_comparison() || matches!(op, BinaryOp::LogAnd | BinaryOp::LogOr) {
                int
            } else {
                self.common_type(a.ty, b.ty)
            };
            return Expr::new(
                ExprKind::Nondet(crate::ir::NondetReason::FloatArithmetic),
                ty,
            );
        }
        if op.is_comparison() || matches!(op, BinaryOp::LogAnd | BinaryOp::LogOr) {
            let (a, b) = if !pa && !pb && !matches!(op, BinaryOp::LogAnd | BinaryOp::LogOr) {
                let t = self.common_type(a.ty, b.ty);
                (self.convert(a, t), self.convert(b, t))
            } else {
                (a, b)
            };
            return Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), int);
        }
        match (op, pa, pb) {
            (BinaryOp::Add, true, false) | (BinaryOp::Sub, true, false) => {
                let ty = a.ty;
                return Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty);
            }
            (BinaryOp::Add, false, true) => {
                let ty = b.ty;
                return Expr::new(ExprKind::Binary(op, Box::new(b), Box::new(a)), ty);
            }
            (BinaryOp::Sub, true, true) => {
                let long = self.p.types.int(IntKind::Long);
                return Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), long);
            }
            _ => {}
        }
        let ty = if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            self.promote(a.ty)
        } else {
            self.common_type(a.ty, b.ty)
        };
        let b = if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let bt = self.promote(b.ty);
            self.convert(b, bt)
        } else {
            self.convert(b, ty)
        };
        let a = self.convert(a, ty);
        Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
    }

    pub(super) fn assign(&mut self, lv: Expr, rhs: Expr, pos: SrcPos) {
        let rhs = self.convert(rhs, lv.ty);
        self.emit(EdgeOp::Assign { lhs: lv, rhs }, pos);
    }

    pub(super) fn unary(
        &mut self,
        u: &'a Node<UnaryOperatorExpression>,
        pos: SrcPos,
    ) -> Result<Expr> {
        let op = &u.node.operator.node;
        Ok(match op {
            UnaryOperator::PreIncrement
            | UnaryOperator::PreDecrement
            | UnaryOperator::PostIncrement
            | UnaryOperator::PostDecrement => {
                let lv = self.lvalue(&u.node.operand)?;
                let bop = if matches!(
                    op,
                    UnaryOperator::PreIncrement | UnaryOperator::PostIncrement
                ) {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                let one = Expr::int(1, self.int_ty());
                let post = matches!(
                    op,
                    UnaryOperator::PostIncrement | UnaryOperator::PostDecrement
                );
                let old = if post && self.dry == 0 {
                    let t = self.temp(lv.ty, pos);
                    self.assign(t.clone(), lv.clone(), pos);
                    Some(t)
                } else {
                    None
                };
                let v = self.binary(bop, lv.clone(), one);
                self.assign(lv.clone(), v, pos);
                old.unwrap_or(lv)
            }
            UnaryOperator::Address => {
                // Functions, lvalues, and compound literals (temporaries) alike.
                let v = self.rvalue_nodecay(&u.node.operand)?;
                self.addr_of(v)
            }
            UnaryOperator::Indirection => {
                let p = self.rvalue(&u.node.operand)?;
                // `*fp` for a function pointer designates the function again.
                if let Type::Pointer(t) = self.p.types.get(p.ty) {
                    if matches!(self.p.types.get(*t), Type::Function { .. }) {
                        return Ok(p);
                    }
                }
                self.deref(p, &u.span)?
            }
            UnaryOperator::Plus => {
                let v = self.rvalue(&u.node.operand)?;
                let t = self.promote(v.ty);
                self.convert(v, t)
            }
            UnaryOperator::Minus | UnaryOperator::Complement => {
                let v = self.rvalue(&u.node.operand)?;
                if self.is_float(v.ty) {
                    return Ok(Expr::new(
                        ExprKind::Nondet(crate::ir::NondetReason::FloatArithmetic),
                        v.ty,
                    ));
                }
                let t = self.promote(v.ty);
                let v = self.convert(v, t);
                let uop = if matches!(op, UnaryOperator::Minus) {
                    UnaryOp::Neg
                } else {
                    UnaryOp::BitNot
                };
                Expr::new(ExprKind::Unary(uop, Box::new(v)), t)
            }
            UnaryOperator::Negate => {
                let v = self.rvalue(&u.node.operand)?;
                Expr::new(ExprKind::Unary(UnaryOp::LogNot, Box::new(v)), self.int_ty())
            }
        })
    }

    pub(super) fn binary_expr(
        &mut self,
        b: &'a Node<BinaryOperatorExpression>,
        pos: SrcPos,
    ) -> Result<Expr> {
        use BinaryOperator as B;
        let op = &b.node.operator.node;
        let arith = |o: &B| -> Option<BinaryOp> {
            Some(match o {
                B::Multiply | B::AssignMultiply => BinaryOp::Mul,
                B::Divide | B::AssignDivide => BinaryOp::Div,
                B::Modulo | B::AssignModulo => BinaryOp::Rem,
                B::Plus | B::AssignPlus => BinaryOp::Add,
                B::Minus | B::AssignMinus => BinaryOp::Sub,
                B::ShiftLeft | B::AssignShiftLeft => BinaryOp::Shl,
                B::ShiftRight | B::AssignShiftRight => BinaryOp::Shr,
                B::BitwiseAnd | B::AssignBitwiseAnd => BinaryOp::BitAnd,
                B::BitwiseXor | B::AssignBitwiseXor => BinaryOp::BitXor,
                B::BitwiseOr | B::AssignBitwiseOr => BinaryOp::BitOr,
                B::Less => BinaryOp::Lt,
                B::Greater => BinaryOp::Gt,
                B::LessOrEqual => BinaryOp::Le,
                B::GreaterOrEqual => BinaryOp::Ge,
                B::Equals => BinaryOp::Eq,
                B::NotEquals => BinaryOp::Ne,
                _ => return None,
            })
        };
        Ok(match op {
            B::Index => {
                let (mut a, mut i) = (self.rvalue_nodecay(&b.node.lhs)?, self.rvalue(&b.node.rhs)?);
                if self.p.types.is_integer(a.ty) {
                    std::mem::swap(&mut a, &mut i);
                }
                let elem = match self.p.types.get(a.ty).clone() {
                    Type::Array { elem, .. } => elem,
                    Type::Pointer(t) => t,
                    _ => {
                        return Err(self.unsupported(
                            &b.span,
                            "subscript of a non-array",
                            "check the input",
                        ))
                    }
                };
                Expr::new(ExprKind::Index(Box::new(a), Box::new(i)), elem)
            }
            B::Assign => {
                let lv = self.lvalue(&b.node.lhs)?;
                match &b.node.rhs.node {
                    Expression::Call(c) if self.dry == 0 => {
                        self.call(c, Some(lv.clone()), true, pos)?;
                    }
                    _ => {
                        let r = self.rvalue(&b.node.rhs)?;
                        self.assign(lv.clone(), r, pos);
                    }
                }
                lv
            }
            B::LogicalAnd | B::LogicalOr => {
                let bop = if matches!(op, B::LogicalAnd) {
                    BinaryOp::LogAnd
                } else {
                    BinaryOp::LogOr
                };
                if self.dry > 0 || !has_side_effects(&b.node.rhs.node) {
                    let x = self.rvalue(&b.node.lhs)?;
                    let y = self.rvalue(&b.node.rhs)?;
                    self.binary(bop, x, y)
                } else {
                    self.logical_via_branches(b, pos)?
                }
            }
            _ => {
                let bop = arith(op).expect("arithmetic operator");
                let compound = is_assignment(op) && *op != B::Assign;
                if compound {
                    let lv = self.lvalue(&b.node.lhs)?;
                    let r = self.rvalue(&b.node.rhs)?;
                    let v = self.binary(bop, lv.clone(), r);
                    self.assign(lv.clone(), v, pos);
                    lv
                } else {
                    let x = self.rvalue(&b.node.lhs)?;
                    let y = self.rvalue(&b.node.rhs)?;
                    self.binary(bop, x, y)
                }
            }
        })
    }

    pub(super) fn cond_type(&mut self, a: &Expr, b: &Expr) -> TypeId {
        let (ta, tb) = (
            self.p.types.get(a.ty).clone(),
            self.p.types.get(b.ty).clone(),
        );
        match (ta, tb) {
            (Type::Int(_) | Type::Float(_), Type::Int(_) | Type::Float(_)) => {
                self.common_type(a.ty, b.ty)
            }
            (Type::Pointer(_), _) => a.ty,
            (_, Type::Pointer(_)) => b.ty,
            _ => a.ty,
        }
    }
}

/// Whether `op` assigns (`=` or a compound assignment such as `+=`).
pub(super) fn is_assignment(op: &BinaryOperator) -> bool {
    use BinaryOperator as B;
    matches!(
        op,
        B::Assign
            | B::AssignMultiply
            | B::AssignDivide
            | B::AssignModulo
            | B::AssignPlus
            | B::AssignMinus
            | B::AssignShiftLeft
            | B::AssignShiftRight
            | B::AssignBitwiseAnd
            | B::AssignBitwiseXor
            | B::AssignBitwiseOr
    )
}
