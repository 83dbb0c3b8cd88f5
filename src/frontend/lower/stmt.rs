//! Statements: structured control flow, `switch` with fall-through, `goto`,
//! `return`, inline assembly.

use crate::hash::HashMap;
use lang_c::ast::*;
use lang_c::span::Node;

use super::Lowerer;
use crate::cfa::{EdgeOp, LocId};
use crate::ir::{BinaryOp, Expr, ExprKind};
use crate::Result;

impl<'a> Lowerer<'a> {
    pub(super) fn stmt(&mut self, s: &'a Node<Statement>) -> Result<()> {
        let pos = self.pos(&s.span);
        match &s.node {
            Statement::Compound(items) => {
                let outer = std::mem::replace(&mut self.f.block_end, s.span.end);
                self.push_scope();
                for item in items {
                    match &item.node {
                        BlockItem::Declaration(d) => self.declaration(d, false)?,
                        BlockItem::StaticAssert(_) => {}
                        BlockItem::Statement(st) => self.stmt(st)?,
                    }
                }
                let end = self.map.pos(s.span.end.saturating_sub(1));
                self.leave_scope_cleanups(end);
                self.pop_scope();
                self.f.block_end = outer;
            }
            Statement::Expression(Some(e)) => self.effect(e)?,
            Statement::Expression(None) => {}
            Statement::Labeled(l) => {
                match &l.node.label.node {
                    Label::Identifier(id) => {
                        let target = self.label_loc(&id.node.name, pos);
                        self.goto(target, pos);
                        self.cur = Some(target);
                    }
                    Label::Case(_) | Label::CaseRange(_) | Label::Default => {
                        let key = l.node.label.span.start;
                        match self.f.cases.last().and_then(|m| m.get(&key)).copied() {
                            Some(target) => {
                                self.goto(target, pos);
                                self.cur = Some(target);
                            }
                            None => {
                                return Err(self.unsupported(
                                    &l.span,
                                    "case label outside a switch",
                                    "check the input",
                                ))
                            }
                        }
                    }
                }
                self.stmt(&l.node.statement)?;
            }
            Statement::If(i) => {
                let (t, f, join) = (self.new_loc(pos), self.new_loc(pos), self.new_loc(pos));
                self.branch_construct(&i.node.condition, t, f)?;
                self.cur = Some(t);
                self.stmt(&i.node.then_statement)?;
                self.goto(join, pos);
                self.cur = Some(f);
                if let Some(e) = &i.node.else_statement {
                    self.stmt(e)?;
                }
                self.goto(join, pos);
                self.cur = Some(join);
            }
            Statement::While(w) => {
                let (head, body, exit) = (self.new_loc(pos), self.new_loc(pos), self.new_loc(pos));
                self.goto(head, pos);
                self.cur = Some(head);
                self.branch_construct(&w.node.expression, body, exit)?;
                self.cur = Some(body);
                self.loop_body(&w.node.statement, exit, head)?;
                self.goto(head, pos);
                self.cur = Some(exit);
            }
            Statement::DoWhile(d) => {
                let (body, cond, exit) = (self.new_loc(pos), self.new_loc(pos), self.new_loc(pos));
                self.goto(body, pos);
                self.cur = Some(body);
                self.loop_body(&d.node.statement, exit, cond)?;
                self.goto(cond, pos);
                self.cur = Some(cond);
                self.branch_construct(&d.node.expression, body, exit)?;
                self.cur = Some(exit);
            }
            Statement::For(f) => self.for_statement(f, s, pos)?,
            Statement::Switch(sw) => self.switch(sw, pos)?,
            Statement::Goto(id) => {
                self.goto_cleanups(&id.node.name, &s.span, pos)?;
                let target = self.label_loc(&id.node.name, pos);
                self.goto(target, pos);
            }
            Statement::Continue => self.jump(s, false, pos)?,
            Statement::Break => self.jump(s, true, pos)?,
            Statement::Return(v) => self.return_statement(v.as_deref(), pos)?,
            Statement::Asm(a) => self.asm_statement(a, pos)?,
        }
        Ok(())
    }

    fn for_statement(
        &mut self,
        f: &'a Node<ForStatement>,
        s: &'a Node<Statement>,
        pos: crate::ir::SrcPos,
    ) -> Result<()> {
        let outer = std::mem::replace(&mut self.f.block_end, s.span.end);
        self.push_scope();
        match &f.node.initializer.node {
            ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
            ForInitializer::Expression(e) => self.effect(e)?,
            ForInitializer::Declaration(d) => self.declaration(d, false)?,
        }
        let (head, body, step, exit) = (
            self.new_loc(pos),
            self.new_loc(pos),
            self.new_loc(pos),
            self.new_loc(pos),
        );
        self.goto(head, pos);
        self.cur = Some(head);
        match &f.node.condition {
            Some(c) => self.branch_construct(c, body, exit)?,
            None => self.goto(body, pos),
        }
        self.cur = Some(body);
        self.loop_body(&f.node.statement, exit, step)?;
        self.goto(step, pos);
        self.cur = Some(step);
        if let Some(st) = &f.node.step {
            self.effect(st)?;
        }
        self.goto(head, pos);
        self.cur = Some(exit);
        self.leave_scope_cleanups(pos);
        self.pop_scope();
        self.f.block_end = outer;
        Ok(())
    }

    /// `break` (`is_break`) or `continue`: the cleanups of the variables
    /// declared inside the loop or switch run first.
    fn jump(
        &mut self,
        s: &'a Node<Statement>,
        is_break: bool,
        pos: crate::ir::SrcPos,
    ) -> Result<()> {
        let target = if is_break {
            self.f.breaks.last().copied()
        } else {
            self.f.continues.last().copied()
        };
        let Some((to, keep)) = target else {
            let what = if is_break {
                "`break` outside a loop or switch"
            } else {
                "`continue` outside a loop"
            };
            return Err(self.unsupported(&s.span, what, "check the input"));
        };
        self.run_cleanups(keep, pos);
        self.goto(to, pos);
        Ok(())
    }

    /// `return [v];`: the value is computed before the cleanups run.
    fn return_statement(
        &mut self,
        v: Option<&'a Node<Expression>>,
        pos: crate::ir::SrcPos,
    ) -> Result<()> {
        let value = match v {
            Some(e) => {
                let r = self.rvalue(e)?;
                let ret = match self
                    .f
                    .func
                    .map(|f| self.p.types.get(self.p.func(f).ty).clone())
                {
                    Some(crate::ir::Type::Function { ret, .. }) => ret,
                    _ => r.ty,
                };
                if matches!(self.p.types.get(ret), crate::ir::Type::Void) {
                    None
                } else {
                    Some(self.convert(r, ret))
                }
            }
            None => None,
        };
        let value = match value {
            Some(v) if !self.f.cleanups.is_empty() => {
                let t = self.temp(v.ty, pos);
                self.assign(t.clone(), v, pos);
                Some(t)
            }
            v => v,
        };
        self.run_cleanups(0, pos);
        self.emit_return(value, pos);
        Ok(())
    }

    fn loop_body(&mut self, body: &'a Node<Statement>, brk: LocId, cont: LocId) -> Result<()> {
        let keep = self.f.cleanups.len();
        self.f.breaks.push((brk, keep));
        self.f.continues.push((cont, keep));
        let r = self.stmt(body);
        self.f.breaks.pop();
        self.f.continues.pop();
        r
    }

    fn label_loc(&mut self, name: &str, pos: crate::ir::SrcPos) -> LocId {
        if let Some(&l) = self.f.labels.get(name) {
            return l;
        }
        let l = self.new_loc(pos);
        self.p.locations[l.0 as usize].labels.push(name.to_string());
        self.f.labels.insert(name.to_string(), l);
        l
    }

    fn switch(&mut self, sw: &'a Node<SwitchStatement>, pos: crate::ir::SrcPos) -> Result<()> {
        let v = self.rvalue(&sw.node.expression)?;
        // Keep the controlling value stable across the dispatch.
        let v = if matches!(v.kind, ExprKind::Var(_) | ExprKind::IntConst(_)) {
            v
        } else {
            let t = self.temp(v.ty, pos);
            self.emit(
                EdgeOp::Assign {
                    lhs: t.clone(),
                    rhs: v,
                },
                pos,
            );
            t
        };
        let mut labels = Vec::new();
        collect_cases(&sw.node.statement, &mut labels);
        let exit = self.new_loc(pos);
        let mut map = HashMap::default();
        let mut default = None;
        let mut rest = self.here(pos);
        let int = self.int_ty();
        for l in labels {
            let target = self.new_loc(self.pos(&l.span));
            map.insert(l.span.start, target);
            let cond = match &l.node {
                Label::Case(e) => {
                    let c = self.rvalue(e)?;
                    let c = self.convert(c, v.ty);
                    Expr::new(
                        ExprKind::Binary(BinaryOp::Eq, Box::new(v.clone()), Box::new(c)),
                        int,
                    )
                }
                Label::CaseRange(r) => {
                    let lo = self.rvalue(&r.node.low)?;
                    let hi = self.rvalue(&r.node.high)?;
                    let a = Expr::new(
                        ExprKind::Binary(BinaryOp::Ge, Box::new(v.clone()), Box::new(lo)),
                        int,
                    );
                    let b = Expr::new(
                        ExprKind::Binary(BinaryOp::Le, Box::new(v.clone()), Box::new(hi)),
                        int,
                    );
                    Expr::new(
                        ExprKind::Binary(BinaryOp::LogAnd, Box::new(a), Box::new(b)),
                        int,
                    )
                }
                _ => {
                    default = Some(target);
                    continue;
                }
            };
            let next = self.new_loc(pos);
            self.cur = Some(rest);
            self.assume_split(cond, target, next, pos);
            rest = next;
        }
        self.cur = Some(rest);
        self.goto(default.unwrap_or(exit), pos);
        self.f.cases.push(map);
        self.f.breaks.push((exit, self.f.cleanups.len()));
        let r = self.stmt(&sw.node.statement);
        self.f.breaks.pop();
        self.f.cases.pop();
        r?;
        self.goto(exit, pos);
        self.cur = Some(exit);
        Ok(())
    }
}

/// The case and default labels of a switch body, not those of nested switches.
fn collect_cases<'a>(s: &'a Node<Statement>, out: &mut Vec<&'a Node<Label>>) {
    match &s.node {
        Statement::Labeled(l) => {
            if !matches!(l.node.label.node, Label::Identifier(_)) {
                out.push(&l.node.label);
            }
            collect_cases(&l.node.statement, out);
        }
        Statement::Compound(items) => {
            for it in items {
                if let BlockItem::Statement(st) = &it.node {
                    collect_cases(st, out);
                }
            }
        }
        Statement::If(i) => {
            collect_cases(&i.node.then_statement, out);
            if let Some(e) = &i.node.else_statement {
                collect_cases(e, out);
            }
        }
        Statement::While(w) => collect_cases(&w.node.statement, out),
        Statement::DoWhile(d) => collect_cases(&d.node.statement, out),
        Statement::For(f) => collect_cases(&f.node.statement, out),
        _ => {}
    }
}
