//! Calls of named functions: argument conversion to the parameter types,
//! the result in a temporary or the assigned lvalue, undeclared functions,
//! `noreturn` callees, and GCC's builtins without a definition in the file.
//! Calls through pointers are in [`super::pointer_call`].

use lang_c::ast::*;
use lang_c::span::Node;

use super::{Lowerer, Symbol};
use crate::cfa::EdgeOp;
use crate::ir::{Expr, ExprKind, FuncId, SrcPos, Type};
use crate::Result;

impl<'a> Lowerer<'a> {
    /// Lowers a call; `lhs` receives the result. Returns the value when `want_value`.
    pub(super) fn call(
        &mut self,
        c: &'a Node<CallExpression>,
        lhs: Option<Expr>,
        want_value: bool,
        pos: SrcPos,
    ) -> Result<Option<Expr>> {
        // The callee: a direct function, or a pointer.
        let direct = match &c.node.callee.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Symbol::Func(f)) => Some(f),
                Some(_) => None,
                None if self.declared_only && !is_builtin(&id.node.name) => {
                    return Err(self.unsupported(
                        &id.span,
                        &format!("call of undeclared function `{}`", id.node.name),
                        "the input must be complete preprocessed C",
                    ))
                }
                None => Some(self.implicit_function(&id.node.name, pos)),
            },
            _ => None,
        };
        if let Some(f) = direct {
            let name = self.p.func(f).name.clone();
            if self.p.func(f).body.is_none()
                && self.p.func(f).kind != crate::ir::FunctionKind::Defined
            {
                if let Some(v) = self.builtin(&name, c, pos)? {
                    return self.finish_builtin(v, lhs, want_value, pos);
                }
            }
        }
        let (target, fty) = match direct {
            Some(f) => (None, self.p.func(f).ty),
            None => {
                let t = self.rvalue(&c.node.callee)?;
                let fty = match self.p.types.get(t.ty) {
                    Type::Pointer(ft) => *ft,
                    _ => t.ty,
                };
                (Some(t), fty)
            }
        };
        let (ret, params) = match self.p.types.get(fty).clone() {
            Type::Function { ret, params, .. } => (ret, params),
            _ => (self.int_ty(), Vec::new()),
        };
        // Each argument converted to its parameter's type (or promoted):
        // an implicit cast, so the argument as written is its operand.
        let mut args = Vec::new();
        for (i, a) in c.node.arguments.iter().enumerate() {
            let v = self.rvalue(a)?;
            let v = match params.get(i) {
                Some(&pt) => self.convert(v, pt),
                None => {
                    let t = self.promote(v.ty);
                    self.convert(v, t)
                }
            };
            args.push(v);
        }
        let is_void = matches!(self.p.types.get(ret), Type::Void);
        let lhs = match lhs {
            Some(l) => Some(l),
            None if want_value && !is_void && self.dry == 0 => Some(self.temp(ret, pos)),
            None => None,
        };
        if self.dry > 0 {
            return Ok(Some(Expr::new(
                ExprKind::Nondet(crate::ir::NondetReason::CallInTypeOnlyContext),
                ret,
            )));
        }
        let result = lhs.clone();
        match (direct, target) {
            (Some(f), _) => self.emit(
                EdgeOp::Call {
                    lhs,
                    callee: f,
                    args,
                },
                pos,
            ),
            (None, Some(t)) => self.pointer_call(t, fty, lhs, args, pos),
            (None, None) => unreachable!("a call has a callee"),
        }
        if direct.is_some_and(|f| self.noreturn.contains(&f)) {
            self.end_path(pos);
        }
        Ok(result.or_else(|| Some(Expr::int(0, ret))))
    }

    fn finish_builtin(
        &mut self,
        v: Expr,
        lhs: Option<Expr>,
        want_value: bool,
        pos: SrcPos,
    ) -> Result<Option<Expr>> {
        match lhs {
            Some(l) => {
                self.assign(l.clone(), v, pos);
                Ok(Some(l))
            }
            None if want_value => Ok(Some(v)),
            None => Ok(None),
        }
    }

    /// GNU builtins without a definition in the file.
    fn builtin(
        &mut self,
        name: &str,
        c: &'a Node<CallExpression>,
        pos: SrcPos,
    ) -> Result<Option<Expr>> {
        let args = &c.node.arguments;
        Ok(match name {
            "__builtin_expect" if !args.is_empty() => {
                let v = self.rvalue(&args[0])?;
                for a in &args[1..] {
                    self.effect(a)?;
                }
                Some(v)
            }
            // 1 for an integer constant expression, as GCC folds it; 0
            // otherwise, as GCC evaluates it without optimisation.
            "__builtin_constant_p" => {
                let constant = match args.first() {
                    Some(a) => self.const_eval(a).ok().flatten().is_some(),
                    None => false,
                };
                Some(Expr::int(i128::from(constant), self.int_ty()))
            }
            "__builtin_object_size" => Some(Expr::int(u64::MAX as i128, self.ulong_ty())),
            // Control never reaches past these.
            "__builtin_unreachable" | "__builtin_trap" => {
                self.end_path(pos);
                Some(Expr::int(0, self.p.types.void()))
            }
            "strlen" | "__builtin_strlen" => self.strlen(args)?,
            "__builtin_va_start" | "__builtin_va_end" | "__builtin_va_copy" => {
                for a in args {
                    self.effect(a)?;
                }
                if let Some(first) = args.first() {
                    if let Ok(lv) = self.lvalue(first) {
                        self.emit(
                            EdgeOp::Havoc {
                                lvalues: vec![lv],
                                reason: crate::ir::HavocReason::VaList,
                            },
                            pos,
                        );
                    }
                }
                Some(Expr::int(0, self.p.types.void()))
            }
            _ => None,
        })
    }

    /// A function used without a declaration: `int name()`.
    fn implicit_function(&mut self, name: &str, pos: SrcPos) -> FuncId {
        let int = self.int_ty();
        let ty = self.p.types.intern(Type::Function {
            ret: int,
            params: vec![],
            variadic: true,
        });
        self.function_id(name, ty, pos)
    }
}

/// Functions the compiler provides without a declaration.
fn is_builtin(name: &str) -> bool {
    ["__builtin_", "__sync_", "__atomic_"]
        .iter()
        .any(|p| name.starts_with(p))
}
