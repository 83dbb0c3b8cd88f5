//! `__attribute__((cleanup(f)))` on a local variable: `f(&var)` is called
//! when the variable's scope is left, innermost variable first, on every
//! exit the lowering builds: falling through the end of the block,
//! `return` (after its value is computed), `break`, `continue`, and a
//! `goto` to a label outside its scope (or before its declaration).

use lang_c::ast::*;
use lang_c::span::{Node, Span};

use super::{attrs, Lowerer, Symbol};
use crate::cfa::EdgeOp;
use crate::hash::HashMap;
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
    /// Its scope in the text: from the declaration to the end of the block.
    from: usize,
    until: usize,
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
            from: decl.span.start,
            until: self.f.block_end,
        });
        Ok(())
    }

    /// Before `goto label`: the cleanups of the variables whose scope the
    /// jump leaves.
    pub(super) fn goto_cleanups(&mut self, label: &str, span: &Span, pos: SrcPos) -> Result<()> {
        if self.f.cleanups.is_empty() {
            return Ok(());
        }
        let mut at = HashMap::default();
        if let Some(body) = self.f.body {
            label_offsets(body, &mut at);
        }
        let Some(&target) = at.get(label) else {
            return Err(self.unsupported(
                span,
                "`goto` to a label outside the statements of the function body, in the scope of a variable with a `cleanup` attribute",
                "check the input",
            ));
        };
        let keep = self
            .f
            .cleanups
            .iter()
            .position(|c| !(c.from <= target && target < c.until))
            .unwrap_or(self.f.cleanups.len());
        self.run_cleanups(keep, pos);
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

/// The offset of each label among the statements of `s`.
fn label_offsets(s: &Node<Statement>, out: &mut HashMap<String, usize>) {
    match &s.node {
        Statement::Labeled(l) => {
            if let Label::Identifier(id) = &l.node.label.node {
                out.insert(id.node.name.clone(), l.span.start);
            }
            label_offsets(&l.node.statement, out);
        }
        Statement::Compound(items) => {
            for it in items {
                if let BlockItem::Statement(st) = &it.node {
                    label_offsets(st, out);
                }
            }
        }
        Statement::If(i) => {
            label_offsets(&i.node.then_statement, out);
            if let Some(e) = &i.node.else_statement {
                label_offsets(e, out);
            }
        }
        Statement::While(w) => label_offsets(&w.node.statement, out),
        Statement::DoWhile(d) => label_offsets(&d.node.statement, out),
        Statement::For(f) => label_offsets(&f.node.statement, out),
        Statement::Switch(sw) => label_offsets(&sw.node.statement, out),
        _ => {}
    }
}
