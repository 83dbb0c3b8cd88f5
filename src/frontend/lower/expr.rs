//! Expressions: the dispatch over the lang-c expression forms. An rvalue
//! becomes a side-effect-free [`Expr`] with its C type; calls, assignments
//! and increments inside it become CFA edges at the current location
//! ([`Lowerer::effect`] evaluates an expression for those alone). The forms
//! themselves are lowered beside this file: operators and conversions in
//! [`super::operators`], lvalues and member access in [`super::lvalue`],
//! constants in [`super::literal`], calls in [`super::call`] and
//! [`super::pointer_call`], conditions and short-circuit operators in
//! [`super::branch`].

use lang_c::ast::*;
use lang_c::span::Node;

use super::{Lowerer, Symbol};
use crate::ir::{BinaryOp, CastKind, Expr, ExprKind, IntKind, Type};
use crate::Result;

/// Whether evaluating the expression may change the program state.
pub(super) fn has_side_effects(e: &Expression) -> bool {
    match e {
        Expression::Identifier(_)
        | Expression::Constant(_)
        | Expression::StringLiteral(_)
        | Expression::SizeOfTy(_)
        | Expression::SizeOfVal(_)
        | Expression::AlignOf(_)
        | Expression::OffsetOf(_) => false,
        Expression::Call(_)
        | Expression::Statement(_)
        | Expression::VaArg(_)
        | Expression::CompoundLiteral(_) => true,
        Expression::GenericSelection(_) => true,
        Expression::Member(m) => has_side_effects(&m.node.expression.node),
        Expression::UnaryOperator(u) => {
            matches!(
                u.node.operator.node,
                UnaryOperator::PostIncrement
                    | UnaryOperator::PostDecrement
                    | UnaryOperator::PreIncrement
                    | UnaryOperator::PreDecrement
            ) || has_side_effects(&u.node.operand.node)
        }
        Expression::Cast(c) => has_side_effects(&c.node.expression.node),
        Expression::BinaryOperator(b) => {
            super::operators::is_assignment(&b.node.operator.node)
                || has_side_effects(&b.node.lhs.node)
                || has_side_effects(&b.node.rhs.node)
        }
        Expression::Conditional(c) => {
            has_side_effects(&c.node.condition.node)
                || has_side_effects(&c.node.then_expression.node)
                || has_side_effects(&c.node.else_expression.node)
        }
        Expression::Comma(v) => v.iter().any(|x| has_side_effects(&x.node)),
    }
}

impl<'a> Lowerer<'a> {
    /// An rvalue: arrays decay to pointers to their first element, functions to pointers.
    pub(super) fn rvalue(&mut self, e: &'a Node<Expression>) -> Result<Expr> {
        let r = self.rvalue_nodecay(e)?;
        Ok(self.decay(r))
    }

    pub(super) fn decay(&mut self, r: Expr) -> Expr {
        match self.p.types.get(r.ty).clone() {
            Type::Array { elem, .. } => {
                let long = self.p.types.int(IntKind::Long);
                let first = Expr::new(
                    ExprKind::Index(Box::new(r), Box::new(Expr::int(0, long))),
                    elem,
                );
                self.addr_of(first)
            }
            Type::Function { .. } => self.addr_of(r),
            _ => r,
        }
    }

    /// An expression without array/function decay (operands of `&`, `sizeof`, `.`).
    pub(super) fn rvalue_nodecay(&mut self, e: &'a Node<Expression>) -> Result<Expr> {
        let pos = self.pos(&e.span);
        Ok(match &e.node {
            Expression::Identifier(id) => self.identifier(id)?,
            Expression::Constant(c) => self.constant(&c.node, &c.span)?,
            Expression::StringLiteral(s) => {
                let text: String = s.node.iter().map(|p| super::literal::unquote(p)).collect();
                self.intern_literal(text, super::init::string_bytes(&s.node))
            }
            Expression::Member(m) => {
                let base = match m.node.operator.node {
                    MemberOperator::Direct => self.rvalue_nodecay(&m.node.expression)?,
                    MemberOperator::Indirect => {
                        let p = self.rvalue(&m.node.expression)?;
                        self.deref(p, &m.span)?
                    }
                };
                self.member(base, &m.node.identifier.node.name, &m.span)?
            }
            Expression::Call(c) => match self.call(c, None, true, pos)? {
                Some(v) => v,
                None => Expr::int(0, self.p.types.void()),
            },
            Expression::CompoundLiteral(cl) => {
                let ty = self.type_name(&cl.node.type_name.node)?;
                let t = self.temp(ty, pos);
                self.init_list(&t, &cl.node.initializer_list, false)?;
                t
            }
            Expression::SizeOfTy(s) => {
                let t = self.type_name(&s.node.0.node)?;
                self.size_of(t)
            }
            Expression::SizeOfVal(s) => {
                self.dry += 1;
                let r = self.rvalue_nodecay(&s.node.0);
                self.dry -= 1;
                self.size_of(r?.ty)
            }
            Expression::AlignOf(a) => {
                let t = self.type_name(&a.node.0.node)?;
                let n = self.p.types.align_of(t);
                Expr::int(n as i128, self.ulong_ty())
            }
            Expression::UnaryOperator(u) => self.unary(u, pos)?,
            Expression::Cast(c) => {
                let ty = self.type_name(&c.node.type_name.node)?;
                if matches!(self.p.types.get(ty), Type::Void) {
                    self.effect(&c.node.expression)?;
                    return Ok(Expr::int(0, ty));
                }
                let v = self.rvalue(&c.node.expression)?;
                if self.is_float(v.ty) && !self.is_float(ty) {
                    Expr::new(
                        ExprKind::Nondet(crate::ir::NondetReason::FloatConversion),
                        ty,
                    )
                } else {
                    self.convert_as(v, ty, CastKind::Explicit)
                }
            }
            Expression::BinaryOperator(b) => self.binary_expr(b, pos)?,
            Expression::Conditional(c) => self.conditional(c, pos)?,
            Expression::Comma(items) => {
                let mut last = None;
                for (i, it) in items.iter().enumerate() {
                    if i + 1 == items.len() {
                        last = Some(self.rvalue_nodecay(it)?);
                    } else {
                        self.effect(it)?;
                    }
                }
                last.unwrap_or_else(|| Expr::int(0, self.int_ty()))
            }
            Expression::OffsetOf(o) => {
                let n = self.offset_of(o)?;
                Expr::int(n as i128, self.ulong_ty())
            }
            Expression::VaArg(v) => {
                self.effect(&v.node.va_list)?;
                let ty = self.type_name(&v.node.type_name.node)?;
                Expr::new(ExprKind::Nondet(crate::ir::NondetReason::VaArg), ty)
            }
            Expression::Statement(s) => self.statement_expr(s)?,
            Expression::GenericSelection(g) => {
                return Err(self.unsupported(
                    &g.span,
                    "_Generic selection",
                    "expand it before verification",
                ))
            }
        })
    }

    /// The value an identifier denotes: a variable, a function (used as a
    /// value), an enumeration constant, or GCC's `__func__` names.
    fn identifier(&mut self, id: &'a Node<Identifier>) -> Result<Expr> {
        Ok(match self.lookup(&id.node.name) {
            Some(Symbol::Var(v)) => Expr::var(v, self.p.var(v).ty),
            Some(Symbol::Func(f)) => {
                // A function used other than as a direct callee: a
                // candidate of calls through pointers.
                self.p.functions[f.0 as usize].address_taken = true;
                Expr::new(ExprKind::Func(f), self.p.func(f).ty)
            }
            Some(Symbol::Const(v, t)) => Expr::int(v, t),
            None if matches!(
                id.node.name.as_str(),
                "__func__" | "__FUNCTION__" | "__PRETTY_FUNCTION__"
            ) =>
            {
                let name = self
                    .f
                    .func
                    .map(|f| self.p.func(f).name.clone())
                    .unwrap_or_default();
                let bytes = name.clone().into_bytes();
                self.intern_literal(name, bytes)
            }
            Some(Symbol::Typedef(_)) | None => {
                return Err(self.unsupported(
                    &id.span,
                    &format!("undeclared identifier `{}`", id.node.name),
                    "the input must be complete preprocessed C",
                ))
            }
        })
    }

    /// Evaluates an expression for its side effects only.
    pub(super) fn effect(&mut self, e: &'a Node<Expression>) -> Result<()> {
        let pos = self.pos(&e.span);
        match &e.node {
            Expression::Call(c) => {
                self.call(c, None, false, pos)?;
            }
            Expression::Cast(c) => self.effect(&c.node.expression)?,
            Expression::Comma(items) => {
                for it in items.iter() {
                    self.effect(it)?;
                }
            }
            Expression::Conditional(c) if has_side_effects(&e.node) => {
                let (t, f, join) = (self.new_loc(pos), self.new_loc(pos), self.new_loc(pos));
                self.branch_construct(&c.node.condition, t, f)?;
                self.cur = Some(t);
                self.effect(&c.node.then_expression)?;
                self.goto(join, pos);
                self.cur = Some(f);
                self.effect(&c.node.else_expression)?;
                self.goto(join, pos);
                self.cur = Some(join);
            }
            Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    BinaryOperator::LogicalAnd | BinaryOperator::LogicalOr
                ) && has_side_effects(&b.node.rhs.node) =>
            {
                let (rhs, join) = (self.new_loc(pos), self.new_loc(pos));
                if matches!(b.node.operator.node, BinaryOperator::LogicalAnd) {
                    self.branch(&b.node.lhs, rhs, join)?;
                } else {
                    self.branch(&b.node.lhs, join, rhs)?;
                }
                self.cur = Some(rhs);
                self.effect(&b.node.rhs)?;
                self.goto(join, pos);
                self.cur = Some(join);
            }
            Expression::UnaryOperator(u)
                if matches!(
                    u.node.operator.node,
                    UnaryOperator::PostIncrement | UnaryOperator::PostDecrement
                ) =>
            {
                // No need to keep the old value.
                let lv = self.lvalue(&u.node.operand)?;
                let op = if matches!(u.node.operator.node, UnaryOperator::PostIncrement) {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                let one = Expr::int(1, self.int_ty());
                let v = self.binary(op, lv.clone(), one);
                self.assign(lv, v, pos);
            }
            _ => {
                self.rvalue_nodecay(e)?;
            }
        }
        Ok(())
    }

    fn statement_expr(&mut self, s: &'a Node<Statement>) -> Result<Expr> {
        let Statement::Compound(items) = &s.node else {
            return Err(self.unsupported(&s.span, "statement expression", "check the input"));
        };
        let outer = std::mem::replace(&mut self.f.block_end, s.span.end);
        self.push_scope();
        let mut value = Expr::int(0, self.p.types.void());
        for (i, item) in items.iter().enumerate() {
            let last = i + 1 == items.len();
            match &item.node {
                BlockItem::Statement(st) if last => match &st.node {
                    Statement::Expression(Some(e)) => value = self.rvalue(e)?,
                    _ => self.stmt(st)?,
                },
                BlockItem::Statement(st) => self.stmt(st)?,
                BlockItem::Declaration(d) => self.declaration(d, false)?,
                BlockItem::StaticAssert(_) => {}
            }
        }
        let end = self.map.pos(s.span.end.saturating_sub(1));
        self.leave_scope_cleanups(end);
        self.pop_scope();
        self.f.block_end = outer;
        // Keep the value in a temporary so later statements cannot change it.
        if self.dry == 0
            && !matches!(self.p.types.get(value.ty), Type::Void)
            && !matches!(value.kind, ExprKind::IntConst(_))
        {
            let pos = self.pos(&s.span);
            let t = self.temp(value.ty, pos);
            self.assign(t.clone(), value, pos);
            return Ok(t);
        }
        Ok(value)
    }

    /// `sizeof` of a type: a constant, or, for an array whose length is
    /// not a constant (a variable-length array), a value the analysis does
    /// not model.
    fn size_of(&mut self, t: crate::ir::TypeId) -> Expr {
        let ulong = self.ulong_ty();
        let mut u = t;
        while let Type::Array { elem, len } = self.p.types.get(u).clone() {
            if len.is_none() {
                return Expr::new(ExprKind::Nondet(crate::ir::NondetReason::VlaSizeof), ulong);
            }
            u = elem;
        }
        Expr::int(self.p.types.size_of(t) as i128, ulong)
    }
}
