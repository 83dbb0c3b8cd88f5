//! Side-effect-free typed C expressions.

use super::{FuncId, NondetReason, TypeId, VarId};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnaryOp {
    /// `-e`
    Neg,
    /// `~e`
    BitNot,
    /// `!e` (result type `int`)
    LogNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `&&` between side-effect-free operands (the front end turns
    /// conditions into assume edges; this remains inside plain values).
    LogAnd,
    LogOr,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::LogAnd => "&&",
            BinaryOp::LogOr => "||",
        }
    }
}

/// Where a conversion ([`ExprKind::Cast`]) comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CastKind {
    /// A cast the source writes: `(T)e`.
    Explicit,
    /// A conversion C implies: the usual arithmetic conversions and
    /// promotions, assignment, an argument converted to its parameter's
    /// type, a returned value; also those mpv adds in lowering.
    Implicit,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ExprKind {
    /// Integer (and character, enumerator) constant.
    IntConst(i128),
    /// Floating constant, as its `f64` bit pattern.
    FloatConst(u64),
    /// String literal: index into [`crate::cfa::Program::strings`].
    StrLit(u32),
    Var(VarId),
    /// A function designator; its type is the function type.
    Func(FuncId),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// Conversion of the operand to `Expr::ty`, written in the source or
    /// implied by C ([`CastKind`]; both print alike).
    Cast(Box<Expr>, CastKind),
    /// `*e`
    Deref(Box<Expr>),
    /// `&e`
    AddrOf(Box<Expr>),
    /// `e.field` (the field index of the composite type of `e`); `p->f` is
    /// `Member(Deref(p), f)`.
    Member(Box<Expr>, u32),
    /// `a[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `c ? a : b` between side-effect-free operands.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// An arbitrary value of the type: a construct the front end models
    /// imprecisely, or an input (the reason is kept for the encoding and
    /// for reports).
    Nondet(NondetReason),
    /// `strlen(s)` of a string `s` that is not a literal: a length the
    /// encoding does not model. `s` (side-effect free) says where the
    /// string lies, which decides what LDV's assumptions make of it.
    Strlen(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: TypeId,
}

impl Expr {
    pub fn new(kind: ExprKind, ty: TypeId) -> Self {
        Expr { kind, ty }
    }

    pub fn int(value: i128, ty: TypeId) -> Self {
        Expr::new(ExprKind::IntConst(value), ty)
    }

    pub fn var(v: VarId, ty: TypeId) -> Self {
        Expr::new(ExprKind::Var(v), ty)
    }

    /// Whether the expression designates an object (may stand left of `=`).
    pub fn is_lvalue(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Member(..) | ExprKind::Index(..)
        )
    }

    /// Visits this expression and all sub-expressions, pre-order.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::IntConst(_)
            | ExprKind::FloatConst(_)
            | ExprKind::StrLit(_)
            | ExprKind::Var(_)
            | ExprKind::Func(_)
            | ExprKind::Nondet(_) => {}
            ExprKind::Unary(_, a)
            | ExprKind::Cast(a, _)
            | ExprKind::Deref(a)
            | ExprKind::AddrOf(a)
            | ExprKind::Member(a, _)
            | ExprKind::Strlen(a) => a.walk(f),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            ExprKind::Cond(c, a, b) => {
                c.walk(f);
                a.walk(f);
                b.walk(f);
            }
        }
    }
}
