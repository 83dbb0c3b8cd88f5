//! `__attribute__((cleanup(f)))` on a local variable: `f(&var)` is called
//! when the variable's scope is left, innermost variable first, on every
//! exit the lowering builds: falling through the end of the block,
//! `return` (after its value is computed), `break` and `continue`. A `goto`
//! while such a variable is in scope is rejected as unsupported.

use lang_c::ast::*;
use lang_c::span::Node;

use super::{attrs, Lowerer, Symbol};
use crate::cfa::EdgeOp;
use crate::ir::{Expr, FuncId, SrcPos, Type, TypeId, VarId};
use crate::Result;

/// A variable with a cleanup function, in scope.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cleanup {
    func: FuncId,
    var: VarId,
    ty: TypeId,
    /// The scope depth (`Lowerer::scopes.len()`) of its declaration.
    depth: usize,
}

impl<'a> Lowerer<'a> {
    /// Registers the cleanup function named by `cleanup(f)` among the
    /// attributes of a local variable's declaration, if any.
    pub(super) fn register_cleanup(
        &mut self,
        specs: &'a [Node<DeclarationSpecifier>],
        decl: &'a Node<Declarator>,
        var: VarId,
        ty: TypeId,
    ) -> Result<()> {
        let mut all = attrs::decl_spec_attributes(specs);
        all.extend(attrs::declarator_attributes(&decl.node));
        let Some(args) = attrs::arguments(&all, "cleanup") else {
            return Ok(());
        };
        let func = match args {
            [arg] => match &arg.node {
                Expression::Identifier(id) => match self.lookup(&id.node.name) {
                    Some(Symbol::Func(f)) => Some(f),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let Some(func) = func else {
            return Err(self.unsupported(
                &decl.span,
                "`cleanup` attribute whose argument is not a declared function",
                "name a function declared before the variable",
            ));
        };
        self.f.cleanups.push(Cleanup {
            func,
            var,
            ty,
            depth: self.scopes.len(),
        });
        Ok(())
    }

    /// Calls the cleanup functions of the variables registered after the
    /// first `keep`, innermost first, on the current path.
    pub(super) fn run_cleanups(&mut self, keep: usize, pos: SrcPos) {
        if self.cur.is_none() {
            return;
        }
        let pending: Vec<Cleanup> = self.f.cleanups[keep.min(self.f.cleanups.len())..].to_vec();
        for c in pending.into_iter().rev() {
            let arg = self.addr_of(Expr::var(c.var, c.ty));
            let arg = match self.p.types.get(self.p.func(c.func).ty).clone() {
                Type::Function { params, .. } => match params.first() {
                    Some(&pt) => self.convert(arg, pt),
                    None => arg,
                },
                _ => arg,
            };
            self.emit(
                EdgeOp::Call {
                    lhs: None,
                    callee: c.func,
                    args: vec![arg],
                },
                pos,
            );
            if self.noreturn.contains(&c.func) {
                self.end_path(pos);
                return;
            }
        }
    }

    /// Leaving the innermost scope: the cleanups of its variables run if
    /// its end is reachable, and they leave scope.
    pub(super) fn leave_scope_cleanups(&mut self, pos: SrcPos) {
        let depth = self.scopes.len();
        let keep = self
            .f
            .cleanups
            .iter()
            .position(|c| c.depth >= depth)
            .unwrap_or(self.f.cleanups.len());
        if keep < self.f.cleanups.len() {
            self.run_cleanups(keep, pos);
            self.f.cleanups.truncate(keep);
        }
    }
}
