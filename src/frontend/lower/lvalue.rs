//! Lvalues and member access: `&`, `*`, `.` and `->` (through anonymous
//! members), and `offsetof`.

use lang_c::ast::*;
use lang_c::span::{Node, Span};

use super::Lowerer;
use crate::ir::{Expr, ExprKind, Type, TypeId};
use crate::Result;

impl<'a> Lowerer<'a> {
    /// `&lv`, marking the variable it is rooted in as address-taken.
    pub(super) fn addr_of(&mut self, lv: Expr) -> Expr {
        let mut root = &lv;
        loop {
            match &root.kind {
                ExprKind::Member(b, _) => root = b,
                ExprKind::Index(b, _) if matches!(self.p.types.get(b.ty), Type::Array { .. }) => {
                    root = b
                }
                _ => break,
            }
        }
        if let ExprKind::Var(v) = root.kind {
            self.p.vars[v.0 as usize].address_taken = true;
        }
        let ty = self.p.types.pointer(lv.ty);
        Expr::new(ExprKind::AddrOf(Box::new(lv)), ty)
    }

    pub(super) fn lvalue(&mut self, e: &'a Node<Expression>) -> Result<Expr> {
        let r = self.rvalue_nodecay(e)?;
        if r.is_lvalue() {
            Ok(r)
        } else {
            Err(self.unsupported(&e.span, "assignment to a non-lvalue", "check the input"))
        }
    }

    pub(super) fn deref(&mut self, p: Expr, span: &Span) -> Result<Expr> {
        match self.p.types.get(p.ty).clone() {
            Type::Pointer(t) => {
                // `*&x` is `x`.
                if let ExprKind::AddrOf(inner) = p.kind {
                    return Ok(*inner);
                }
                Ok(Expr::new(ExprKind::Deref(Box::new(p)), t))
            }
            Type::Int(_) => {
                // Dereferencing an integer (CIL casts): treat it as a pointer to int.
                let int = self.int_ty();
                let pt = self.p.types.pointer(int);
                let p = self.convert(p, pt);
                Ok(Expr::new(ExprKind::Deref(Box::new(p)), int))
            }
            _ => Err(self.unsupported(span, "dereference of a non-pointer", "check the input")),
        }
    }

    pub(super) fn member(&mut self, base: Expr, name: &str, span: &Span) -> Result<Expr> {
        let Type::Composite(c) = self.p.types.get(base.ty).clone() else {
            return Err(self.unsupported(
                span,
                &format!("member `{name}` of a non-struct value"),
                "check the input",
            ));
        };
        match self.field_path(c, name) {
            Some(path) => {
                let mut e = base;
                for (i, ty) in path {
                    e = Expr::new(ExprKind::Member(Box::new(e), i), ty);
                }
                Ok(e)
            }
            None => Err(self.unsupported(
                span,
                &format!("no member `{name}` in `{}`", self.p.types.composite(c).name),
                "check the input",
            )),
        }
    }

    /// The field indices leading to `name`, through anonymous members.
    fn field_path(&self, c: crate::ir::CompositeId, name: &str) -> Option<Vec<(u32, TypeId)>> {
        let comp = self.p.types.composite(c);
        for (i, f) in comp.fields.iter().enumerate() {
            if f.name.as_deref() == Some(name) {
                return Some(vec![(i as u32, f.ty)]);
            }
        }
        for (i, f) in comp.fields.iter().enumerate() {
            if f.name.is_none() {
                if let Type::Composite(inner) = self.p.types.get(f.ty) {
                    if let Some(mut rest) = self.field_path(*inner, name) {
                        rest.insert(0, (i as u32, f.ty));
                        return Some(rest);
                    }
                }
            }
        }
        None
    }

    pub(super) fn offset_of(&mut self, o: &'a Node<OffsetOfExpression>) -> Result<u64> {
        let mut ty = self.type_name(&o.node.type_name.node)?;
        let mut off = 0u64;
        let step =
            |l: &mut Self, ty: &mut TypeId, off: &mut u64, name: &str, span: &Span| -> Result<()> {
                let Type::Composite(c) = l.p.types.get(*ty).clone() else {
                    return Err(l.unsupported(span, "offsetof of a non-struct", "check the input"));
                };
                let path = l.field_path(c, name).ok_or_else(|| {
                    l.unsupported(span, "offsetof of an unknown member", "check the input")
                })?;
                let mut cc = c;
                for (i, fty) in path {
                    *off += l.p.types.composite(cc).fields[i as usize].offset;
                    *ty = fty;
                    if let Type::Composite(n) = l.p.types.get(fty) {
                        cc = *n;
                    }
                }
                Ok(())
            };
        step(
            self,
            &mut ty,
            &mut off,
            &o.node.designator.node.base.node.name,
            &o.span,
        )?;
        for m in &o.node.designator.node.members {
            match &m.node {
                OffsetMember::Member(id) | OffsetMember::IndirectMember(id) => {
                    step(self, &mut ty, &mut off, &id.node.name, &m.span)?
                }
                OffsetMember::Index(e) => {
                    let n = self.const_eval(e)?.unwrap_or(0);
                    if let Type::Array { elem, .. } = self.p.types.get(ty).clone() {
                        off = off.wrapping_add((n as u64).wrapping_mul(self.p.types.size_of(elem)));
                        ty = elem;
                    }
                }
            }
        }
        Ok(off)
    }
}
