//! Conditions: branching on a condition with short-circuit `&&`, `||` and
//! `!` as assume edges (recording the outcome of a branching construct's
//! source condition), and the values of `&&`, `||`, `?:` and GNU `a ?: b`
//! whose operands have side effects, through branches.

use lang_c::ast::*;
use lang_c::span::Node;

use super::expr::has_side_effects;
use super::types::fold;
use super::Lowerer;
use crate::cfa::EdgeOp;
use crate::ir::{Expr, ExprKind, SrcPos, Type};
use crate::Result;

impl<'a> Lowerer<'a> {
    /// [`Self::branch`] for the condition of a branching construct: the
    /// assume edges reaching `t` or `f` record the condition's outcome
    /// ([`crate::cfa::Program::branch_outcomes`]).
    pub(super) fn branch_construct(
        &mut self,
        e: &'a Node<Expression>,
        t: crate::cfa::LocId,
        f: crate::cfa::LocId,
    ) -> Result<()> {
        let outer = self.deciding.replace((t, f));
        let r = self.branch(e, t, f);
        self.deciding = outer;
        r
    }

    /// Branches to `t` if the condition holds and to `f` otherwise; `&&`, `||`
    /// and `!` become short-circuit assume edges.
    pub(super) fn branch(
        &mut self,
        e: &'a Node<Expression>,
        t: crate::cfa::LocId,
        f: crate::cfa::LocId,
    ) -> Result<()> {
        let pos = self.pos(&e.span);
        match &e.node {
            Expression::BinaryOperator(b)
                if matches!(b.node.operator.node, BinaryOperator::LogicalAnd) =>
            {
                let mid = self.new_loc(pos);
                self.branch(&b.node.lhs, mid, f)?;
                self.cur = Some(mid);
                self.branch(&b.node.rhs, t, f)
            }
            Expression::BinaryOperator(b)
                if matches!(b.node.operator.node, BinaryOperator::LogicalOr) =>
            {
                let mid = self.new_loc(pos);
                self.branch(&b.node.lhs, t, mid)?;
                self.cur = Some(mid);
                self.branch(&b.node.rhs, t, f)
            }
            Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, UnaryOperator::Negate) =>
            {
                self.branch(&u.node.operand, f, t)
            }
            Expression::Comma(items) if !items.is_empty() => {
                for it in &items[..items.len() - 1] {
                    self.effect(it)?;
                }
                self.branch(&items[items.len() - 1], t, f)
            }
            _ => {
                let c = self.rvalue(e)?;
                self.assume_split(c, t, f, pos);
                Ok(())
            }
        }
    }

    /// Two assume edges from the current location (one if the condition is constant).
    pub(super) fn assume_split(
        &mut self,
        c: Expr,
        t: crate::cfa::LocId,
        f: crate::cfa::LocId,
        pos: SrcPos,
    ) {
        let from = self.here(pos);
        match fold(&self.p.types, &c) {
            Some(v) => {
                self.edge(from, if v != 0 { t } else { f }, EdgeOp::Skip, pos);
            }
            None => {
                let et = self.edge(
                    from,
                    t,
                    EdgeOp::Assume {
                        cond: c.clone(),
                        truth: true,
                    },
                    pos,
                );
                let ef = self.edge(
                    from,
                    f,
                    EdgeOp::Assume {
                        cond: c,
                        truth: false,
                    },
                    pos,
                );
                if let Some((dt, df)) = self.deciding {
                    for (e, to) in [(et, t), (ef, f)] {
                        let outcome = (to == dt).then_some(true).or((to == df).then_some(false));
                        if let (Some(e), Some(o)) = (e, outcome) {
                            self.p.branch_outcomes.insert(e, o);
                        }
                    }
                }
            }
        }
        self.cur = None;
    }

    /// `0`/`1` of `a && b` / `a || b` with side effects in `b`, via branches.
    pub(super) fn logical_via_branches(
        &mut self,
        b: &'a Node<BinaryOperatorExpression>,
        pos: SrcPos,
    ) -> Result<Expr> {
        let int = self.int_ty();
        let t = self.temp(int, pos);
        let (lt, lf, mid, join) = (
            self.new_loc(pos),
            self.new_loc(pos),
            self.new_loc(pos),
            self.new_loc(pos),
        );
        if matches!(b.node.operator.node, BinaryOperator::LogicalAnd) {
            self.branch(&b.node.lhs, mid, lf)?;
        } else {
            self.branch(&b.node.lhs, lt, mid)?;
        }
        self.cur = Some(mid);
        self.branch(&b.node.rhs, lt, lf)?;
        self.cur = Some(lt);
        self.assign(t.clone(), Expr::int(1, int), pos);
        self.goto(join, pos);
        self.cur = Some(lf);
        self.assign(t.clone(), Expr::int(0, int), pos);
        self.goto(join, pos);
        self.cur = Some(join);
        Ok(t)
    }

    pub(super) fn conditional(
        &mut self,
        c: &'a Node<ConditionalExpression>,
        pos: SrcPos,
    ) -> Result<Expr> {
        let n = &c.node;
        if matches!(&n.then_expression.node, Expression::Identifier(id) if id.node.name == crate::frontend::source::ELVIS)
        {
            return self.elvis(c, pos);
        }
        if self.dry > 0
            || !(has_side_effects(&n.condition.node)
                || has_side_effects(&n.then_expression.node)
                || has_side_effects(&n.else_expression.node))
        {
            let cond = self.rvalue(&n.condition)?;
            let a = self.rvalue(&n.then_expression)?;
            let b = self.rvalue(&n.else_expression)?;
            let ty = self.cond_type(&a, &b);
            let (a, b) = (self.convert(a, ty), self.convert(b, ty));
            return Ok(Expr::new(
                ExprKind::Cond(Box::new(cond), Box::new(a), Box::new(b)),
                ty,
            ));
        }
        let (lt, lf, join) = (self.new_loc(pos), self.new_loc(pos), self.new_loc(pos));
        self.branch_construct(&n.condition, lt, lf)?;
        self.cur = Some(lt);
        let a = self.rvalue(&n.then_expression)?;
        let after_a = self.cur;
        self.cur = Some(lf);
        let b = self.rvalue(&n.else_expression)?;
        let after_b = self.cur;
        let ty = self.cond_type(&a, &b);
        if matches!(self.p.types.get(ty), Type::Void) {
            self.cur = after_a;
            self.goto(join, pos);
            self.cur = after_b;
            self.goto(join, pos);
            self.cur = Some(join);
            return Ok(Expr::int(0, ty));
        }
        let t = self.temp(ty, pos);
        self.cur = after_a;
        self.assign(t.clone(), a, pos);
        self.goto(join, pos);
        self.cur = after_b;
        self.assign(t.clone(), b, pos);
        self.goto(join, pos);
        self.cur = Some(join);
        Ok(t)
    }

    /// GNU `a ?: b`: `a` if it is non-zero (evaluated once), else `b`.
    fn elvis(&mut self, c: &'a Node<ConditionalExpression>, pos: SrcPos) -> Result<Expr> {
        let n = &c.node;
        let a = self.rvalue(&n.condition)?;
        let a = if self.dry > 0 || matches!(a.kind, ExprKind::Var(_) | ExprKind::IntConst(_)) {
            a
        } else {
            let t = self.temp(a.ty, pos);
            self.assign(t.clone(), a, pos);
            t
        };
        if self.dry > 0 || !has_side_effects(&n.else_expression.node) {
            let b = self.rvalue(&n.else_expression)?;
            let ty = self.cond_type(&a, &b);
            let (x, b) = (self.convert(a.clone(), ty), self.convert(b, ty));
            return Ok(Expr::new(
                ExprKind::Cond(Box::new(a), Box::new(x), Box::new(b)),
                ty,
            ));
        }
        let (lt, lf, join) = (self.new_loc(pos), self.new_loc(pos), self.new_loc(pos));
        self.assume_split(a.clone(), lt, lf, pos);
        self.cur = Some(lf);
        let b = self.rvalue(&n.else_expression)?;
        let ty = self.cond_type(&a, &b);
        let t = self.temp(ty, pos);
        self.assign(t.clone(), b, pos);
        self.goto(join, pos);
        self.cur = Some(lt);
        self.assign(t.clone(), a, pos);
        self.goto(join, pos);
        self.cur = Some(join);
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn deciding_assumes_carry_the_source_conditions_outcome() {
        use crate::cfa::EdgeOp;
        let src = "int a, b; int main(void) { if (!(a > 1) || b) return 1; return 0; }";
        let p = crate::frontend::parse_source("t.c", src, &Default::default()).unwrap();
        let assumes: Vec<(bool, Option<bool>)> = p
            .edges
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match &e.op {
                EdgeOp::Assume { truth, .. } => Some((
                    *truth,
                    p.branch_outcomes
                        .get(&crate::cfa::EdgeId(i as u32))
                        .copied(),
                )),
                _ => None,
            })
            .collect();
        // `!(a > 1)`: a > 1 false decides the `||` (true); a > 1 true goes
        // on to `b`, deciding nothing; `b` decides both ways.
        assert_eq!(
            assumes,
            [
                (true, None),
                (false, Some(true)),
                (true, Some(true)),
                (false, Some(false))
            ]
        );
        let first = p
            .edges
            .iter()
            .find(|e| matches!(e.op, EdgeOp::Assume { .. }))
            .unwrap();
        let column = src.find("(a > 1)").unwrap() as u32 + 1;
        assert_eq!((first.pos.input_line, first.pos.input_column), (1, column));
    }
}
