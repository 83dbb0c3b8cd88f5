//! Lowering of the lang-c AST into the IR and the CFA.
//!
//! One [`Lowerer`] walks the translation unit top to bottom (C's declare
//! before use). Its `impl` is split by concern: [`types`] (types and
//! declarators), [`expr`] (side-effect-free expressions, side effects as
//! edges) with [`operators`] (operators and conversions), [`lvalue`]
//! (lvalues and member access), [`literal`] (constants), [`call`] (calls
//! and builtins), [`pointer_call`] (calls through pointers) and [`branch`]
//! (conditions and short-circuit operators), [`stmt`] (statements and
//! control flow), [`init`] (initialisers), and this file (scopes, the
//! program level, the start function).

mod asm;
mod attrs;
mod branch;
mod call;
mod cleanup;
mod expr;
mod init;
pub(super) mod layout;
mod literal;
mod lvalue;
mod operators;
mod pointer_call;
mod stmt;
mod strings;
mod types;

use crate::hash::{HashMap, HashSet};
use lang_c::ast::*;
use lang_c::span::{Node, Span};

use super::source::LineMap;
use super::FrontendOptions;
use crate::cfa::{Edge, EdgeId, EdgeOp, Function, FunctionBody, LocId, Location, Program};
use crate::ir::{Expr, ExprKind, FuncId, FunctionKind, Scope, SrcPos, TypeId, VarId, Variable};
use crate::{Error, Result};

/// What an ordinary identifier denotes.
#[derive(Clone, Copy, Debug)]
enum Symbol {
    Var(VarId),
    Func(FuncId),
    Const(i128, TypeId),
    Typedef(TypeId),
}

/// What a struct/union/enum tag denotes.
#[derive(Clone, Copy, Debug)]
enum Tag {
    Composite(crate::ir::CompositeId),
    Enum,
}

/// Per-function lowering state.
#[derive(Default)]
struct FnState<'a> {
    func: Option<FuncId>,
    exit: Option<LocId>,
    labels: HashMap<String, LocId>,
    /// Targets of `break` and `continue`, each with the number of
    /// `cleanups` registered outside the loop or switch.
    breaks: Vec<(LocId, usize)>,
    continues: Vec<(LocId, usize)>,
    /// Local variables with a `cleanup` function, in scope, outermost first.
    cleanups: Vec<cleanup::Cleanup>,
    /// The end offset of the innermost block being lowered.
    block_end: usize,
    /// The function body being lowered.
    body: Option<&'a Node<Statement>>,
    /// Case locations of the enclosing switches, keyed by the label's span start.
    cases: Vec<HashMap<usize, LocId>>,
    locals: Vec<VarId>,
    names: HashMap<String, u32>,
}

pub(super) struct Lowerer<'a> {
    p: Program,
    map: LineMap,
    options: &'a FrontendOptions,
    /// Calls of undeclared functions are errors instead of implicit
    /// declarations (the text was pruned; see [`super::prune`]).
    declared_only: bool,
    scopes: Vec<HashMap<String, Symbol>>,
    tags: Vec<HashMap<String, Tag>>,
    /// Global and static-local initialisers, lowered into the start function.
    deferred_inits: Vec<(VarId, Option<&'a Node<Initializer>>)>,
    /// Position of each variable in `deferred_inits`.
    deferred_index: HashMap<VarId, usize>,
    /// Calls through pointers (their fallback edge and the pointer's function type),
    /// split over candidates when the whole translation unit is known.
    pointer_calls: Vec<(crate::cfa::EdgeId, TypeId)>,
    /// Current location while building a body; `None` after a jump.
    cur: Option<LocId>,
    f: FnState<'a>,
    /// Nesting depth of type-only evaluation (`typeof`, `sizeof expr`): no edges.
    dry: u32,
    /// The then and else locations of the branching construct whose
    /// condition is being lowered ([`Program::branch_outcomes`]).
    deciding: Option<(LocId, LocId)>,
    anon: u32,
    /// Functions declared `noreturn`: a call of one ends the path.
    noreturn: HashSet<FuncId>,
    /// Where each function with a body was defined, and whether that body
    /// is GNU `extern inline` (another definition may replace it).
    definitions: HashMap<FuncId, (SrcPos, bool)>,
    /// The `#pragma pack` state along the text.
    pack: layout::PackPragmas,
    /// Layout attributes between `struct` / `union` and the tag, by offset.
    head_attributes: HashMap<usize, layout::HeadAttributes>,
    /// The decoded bytes of each string literal (index of `Program::strings`).
    literal_bytes: Vec<Vec<u8>>,
}

/// Lowers a parsed translation unit.
pub(super) fn lower(
    unit: &TranslationUnit,
    map: LineMap,
    files: Vec<String>,
    options: &FrontendOptions,
    declared_only: bool,
    hints: layout::TextHints,
) -> Result<Program> {
    let mut l = Lowerer {
        p: {
            let mut p = Program::default();
            p.types = crate::ir::TypeTable::with_model(options.data_model);
            p.files = files;
            p
        },
        map,
        options,
        declared_only,
        scopes: vec![HashMap::default()],
        tags: vec![HashMap::default()],
        deferred_inits: Vec::new(),
        deferred_index: HashMap::default(),
        pointer_calls: Vec::new(),
        cur: None,
        f: FnState::default(),
        dry: 0,
        deciding: None,
        anon: 0,
        noreturn: HashSet::default(),
        definitions: HashMap::default(),
        literal_bytes: Vec::new(),
        pack: hints.pack,
        head_attributes: hints.heads,
    };
    // GCC's predefined types.
    let void = l.p.types.void();
    let va_list = l.p.types.pointer(void);
    l.bind("__builtin_va_list", Symbol::Typedef(va_list));
    for item in &unit.0 {
        match &item.node {
            ExternalDeclaration::Declaration(d) => l.declaration(d, true)?,
            ExternalDeclaration::StaticAssert(_) => {}
            ExternalDeclaration::FunctionDefinition(fd) => l.function_definition(fd)?,
        }
    }
    // Initialisers are lowered before calls through pointers are split:
    // a function they name is a candidate too.
    l.start_function()?;
    l.resolve_pointer_calls();
    Ok(l.p)
}

fn classify(name: &str) -> Option<FunctionKind> {
    if name.starts_with("__VERIFIER_nondet")
        || name.starts_with("nondet_")
        || name.starts_with("ldv_undef_")
        || name == "ldv_undefined_int"
    {
        return Some(FunctionKind::Nondet);
    }
    match name {
        "__VERIFIER_assume" | "ldv_assume" | "assume_abort_if_not" => Some(FunctionKind::Assume),
        "abort" | "exit" | "_exit" | "__assert_fail" | "ldv_stop" => Some(FunctionKind::Abort),
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    fn pos(&self, span: &Span) -> SrcPos {
        self.map.pos(span.start)
    }

    fn file(&self, pos: SrcPos) -> String {
        self.p
            .files
            .get(pos.file as usize)
            .cloned()
            .unwrap_or_default()
    }

    fn unsupported(&self, span: &Span, construct: &str, hint: &str) -> Error {
        let pos = self.pos(span);
        Error::Unsupported {
            file: self.file(pos),
            line: pos.line,
            construct: construct.to_string(),
            hint: hint.to_string(),
        }
    }

    /// The error for a second definition of `name` at `pos`.
    fn redefinition(&self, name: &str, pos: SrcPos, first: SrcPos) -> Error {
        Error::Redefinition {
            name: name.to_string(),
            file: self.file(pos),
            line: pos.line,
            first_file: self.file(first),
            first_line: first.line,
        }
    }

    fn lookup(&self, name: &str) -> Option<Symbol> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn bind(&mut self, name: &str, sym: Symbol) {
        self.scopes
            .last_mut()
            .expect("scope")
            .insert(name.to_string(), sym);
    }

    fn push_scope(&mut self) {
        self.scopes.push(HashMap::default());
        self.tags.push(HashMap::default());
    }

    fn pop_scope(&mut self) {
        self.scopes.pop();
        self.tags.pop();
    }

    // ---- CFA construction -------------------------------------------------

    fn new_loc(&mut self, pos: SrcPos) -> LocId {
        let func = self.f.func.unwrap_or(FuncId(0));
        self.p.add_location(Location {
            func,
            loop_head: false,
            labels: Vec::new(),
            pos,
        })
    }

    /// The current location, creating an unreachable one after a jump.
    fn here(&mut self, pos: SrcPos) -> LocId {
        match self.cur {
            Some(l) => l,
            None => {
                let l = self.new_loc(pos);
                self.cur = Some(l);
                l
            }
        }
    }

    fn edge(&mut self, from: LocId, to: LocId, op: EdgeOp, pos: SrcPos) -> Option<EdgeId> {
        match self.dry {
            0 => Some(self.p.add_edge(Edge { from, to, op, pos })),
            _ => None,
        }
    }

    /// Appends an edge from the current location to a new one.
    fn emit(&mut self, op: EdgeOp, pos: SrcPos) {
        if self.dry > 0 {
            return;
        }
        let from = self.here(pos);
        let to = self.new_loc(pos);
        self.edge(from, to, op, pos);
        self.cur = Some(to);
    }

    /// Continues at `to` (a `Skip` edge from the current location, if reachable).
    fn goto(&mut self, to: LocId, pos: SrcPos) {
        if let Some(from) = self.cur {
            self.edge(from, to, EdgeOp::Skip, pos);
        }
        self.cur = None;
    }

    fn new_var(&mut self, name: &str, ty: TypeId, scope: Scope, pos: SrcPos) -> VarId {
        let unique = match scope {
            Scope::Global => name.to_string(),
            _ => {
                let fname = self
                    .f
                    .func
                    .map(|f| self.p.func(f).name.clone())
                    .unwrap_or_default();
                let n = self.f.names.entry(name.to_string()).or_insert(0);
                *n += 1;
                if *n == 1 {
                    format!("{fname}::{name}")
                } else {
                    format!("{fname}::{name}#{n}")
                }
            }
        };
        self.p.vars.push(Variable {
            name: unique,
            source_name: name.to_string(),
            ty,
            scope,
            address_taken: false,
            pos,
        });
        let v = VarId(self.p.vars.len() as u32 - 1);
        if !matches!(scope, Scope::Global | Scope::Spec) {
            self.f.locals.push(v);
        }
        v
    }

    /// A fresh temporary of type `ty` in the current function.
    fn temp(&mut self, ty: TypeId, pos: SrcPos) -> Expr {
        let func = self.f.func.unwrap_or(FuncId(0));
        let v = self.new_var("__tmp", ty, Scope::Temp { func }, pos);
        Expr::var(v, ty)
    }

    // ---- program level ----------------------------------------------------

    fn function_id(&mut self, name: &str, ty: TypeId, pos: SrcPos) -> FuncId {
        if let Some(Symbol::Func(f)) = self.scopes[0].get(name).copied() {
            return f;
        }
        let kind = classify(name).unwrap_or_else(|| self.bodyless_kind(ty));
        self.p.functions.push(Function {
            name: name.to_string(),
            ty,
            params: Vec::new(),
            kind,
            body: None,
            address_taken: false,
            pos,
        });
        let f = FuncId(self.p.functions.len() as u32 - 1);
        self.scopes[0].insert(name.to_string(), Symbol::Func(f));
        f
    }

    fn bodyless_kind(&self, ty: TypeId) -> FunctionKind {
        match self.p.types.get(ty) {
            crate::ir::Type::Function { ret, .. }
                if matches!(self.p.types.get(*ret), crate::ir::Type::Void) =>
            {
                FunctionKind::External
            }
            _ => FunctionKind::Nondet,
        }
    }

    /// A declaration at file scope (`global`) or in a block.
    fn declaration(&mut self, d: &'a Node<Declaration>, global: bool) -> Result<()> {
        let specs = types::Specs::from_decl(&d.node.specifiers);
        let base = self.base_type(&specs)?;
        for id in &d.node.declarators {
            let decl = &id.node.declarator;
            let (name, ty) = self.declarator(base, &decl.node)?;
            let Some(name) = name else { continue };
            let pos = self.pos(&decl.span);
            let ty = self.completed_type(ty, id.node.initializer.as_ref())?;
            if specs.typedef {
                self.bind(&name, Symbol::Typedef(ty));
                continue;
            }
            if matches!(self.p.types.get(ty), crate::ir::Type::Function { .. }) {
                let f = self.function_id(&name, ty, pos);
                if attrs::is_noreturn(&d.node.specifiers, &decl.node) {
                    self.noreturn.insert(f);
                }
                if !global {
                    self.bind(&name, Symbol::Func(f));
                }
                continue;
            }
            if global || specs.is_static || specs.is_extern {
                let scope = if global || specs.is_extern {
                    Scope::Global
                } else {
                    Scope::Local {
                        func: self.f.func.unwrap_or(FuncId(0)),
                        is_static: true,
                    }
                };
                // Redeclarations of a global (extern, tentative) share the variable.
                let existing = match (scope, self.scopes[0].get(&name)) {
                    (Scope::Global, Some(Symbol::Var(v))) => Some(*v),
                    _ => None,
                };
                let v = match existing {
                    Some(v) => {
                        // A later declaration may complete an array size.
                        if self.p.types.size_of(ty) > self.p.types.size_of(self.p.var(v).ty) {
                            self.p.vars[v.0 as usize].ty = ty;
                        }
                        v
                    }
                    None => self.new_var(&name, ty, scope, pos),
                };
                // One initialisation per variable: the initialiser if some declaration has one,
                // else zero (not for pure `extern` declarations).
                match (self.deferred_index.get(&v).copied(), &id.node.initializer) {
                    (Some(i), Some(init)) => {
                        if let Some(first) = self.deferred_inits[i].1 {
                            let first = self.pos(&first.span);
                            return Err(self.redefinition(&name, self.pos(&init.span), first));
                        }
                        self.deferred_inits[i].1 = Some(init)
                    }
                    (Some(_), None) => {}
                    (None, init) if init.is_some() || !specs.is_extern => {
                        self.deferred_index.insert(v, self.deferred_inits.len());
                        self.deferred_inits.push((v, init.as_ref()));
                    }
                    (None, _) => {}
                }
                if scope == Scope::Global {
                    self.scopes[0].insert(name.clone(), Symbol::Var(v));
                }
                self.bind(&name, Symbol::Var(v));
            } else {
                let func = self.f.func.unwrap_or(FuncId(0));
                let v = self.new_var(
                    &name,
                    ty,
                    Scope::Local {
                        func,
                        is_static: false,
                    },
                    pos,
                );
                self.bind(&name, Symbol::Var(v));
                if let Some(init) = &id.node.initializer {
                    let target = Expr::var(v, ty);
                    self.initialize(&target, Some(init), false)?;
                }
                self.register_cleanup(&d.node.specifiers, decl, v, ty)?;
            }
        }
        Ok(())
    }

    fn function_definition(&mut self, fd: &'a Node<FunctionDefinition>) -> Result<()> {
        let specs = types::Specs::from_decl(&fd.node.specifiers);
        let base = self.base_type(&specs)?;
        let (name, ty) = self.declarator(base, &fd.node.declarator.node)?;
        let name = name.ok_or_else(|| {
            self.unsupported(&fd.span, "function without a name", "check the input")
        })?;
        let pos = self.pos(&fd.node.declarator.span);
        let f = self.function_id(&name, ty, pos);
        let gnu_inline = attrs::is_gnu_extern_inline(&fd.node.specifiers);
        match self.definitions.get(&f).copied() {
            // A GNU `extern inline` body yields to the real definition.
            Some((_, true)) => {}
            Some((_, false)) if gnu_inline => return Ok(()),
            Some((first, false)) => return Err(self.redefinition(&name, pos, first)),
            None => {}
        }
        self.definitions.insert(f, (pos, gnu_inline));
        if attrs::is_noreturn(&fd.node.specifiers, &fd.node.declarator.node) {
            self.noreturn.insert(f);
        }
        {
            let func = &mut self.p.functions[f.0 as usize];
            func.ty = ty;
            func.kind = FunctionKind::Defined;
            func.pos = pos;
        }
        self.f = FnState {
            func: Some(f),
            body: Some(&fd.node.statement),
            ..FnState::default()
        };
        let entry = self.new_loc(pos);
        let exit = self.new_loc(pos);
        self.f.exit = Some(exit);
        self.cur = Some(entry);
        self.push_scope();
        // Parameters: the outermost function declarator that names this function.
        let params = self.parameter_decls(&fd.node.declarator.node);
        let mut param_vars = Vec::new();
        let (param_tys, ret) = match self.p.types.get(ty).clone() {
            crate::ir::Type::Function { params, ret, .. } => (params, ret),
            _ => (Vec::new(), self.p.types.void()),
        };
        for (i, pname) in params.iter().enumerate() {
            let pty = param_tys
                .get(i)
                .copied()
                .unwrap_or_else(|| self.p.types.int(crate::ir::IntKind::Int));
            let name = pname.clone().unwrap_or_else(|| format!("__param{i}"));
            let v = self.new_var(
                &name,
                pty,
                Scope::Param {
                    func: f,
                    index: i as u32,
                },
                pos,
            );
            self.bind(&name, Symbol::Var(v));
            param_vars.push(v);
        }
        let ret_var = if matches!(self.p.types.get(ret), crate::ir::Type::Void) {
            None
        } else {
            Some(self.new_var("__retval", ret, Scope::Temp { func: f }, pos))
        };
        self.stmt(&fd.node.statement)?;
        // Falling off the end returns.
        if self.cur.is_some() {
            let end = self.pos(&Span::span(fd.span.end.saturating_sub(1), fd.span.end));
            self.emit_return(None, end);
        }
        self.pop_scope();
        // Labels that were jumped to but never defined.
        let locals = std::mem::take(&mut self.f.locals);
        let func = &mut self.p.functions[f.0 as usize];
        func.params = param_vars;
        func.body = Some(FunctionBody {
            entry,
            exit,
            locals,
            ret_var,
        });
        self.f = FnState::default();
        self.cur = None;
        Ok(())
    }

    /// Ends the current path: what follows is reached only by a jump
    /// (after a call of a `noreturn` function, `__builtin_unreachable()`).
    fn end_path(&mut self, pos: SrcPos) {
        if self.dry > 0 {
            return;
        }
        let int = self.int_ty();
        self.emit(
            EdgeOp::Assume {
                cond: Expr::int(0, int),
                truth: true,
            },
            pos,
        );
        self.cur = None;
    }

    fn emit_return(&mut self, value: Option<Expr>, pos: SrcPos) {
        let exit = self.f.exit.expect("in a function");
        let from = self.here(pos);
        self.edge(from, exit, EdgeOp::Return { value }, pos);
        self.cur = None;
    }

    /// The synthetic start function: global initialisers, then the entry call.
    fn start_function(&mut self) -> Result<()> {
        let entry_name = self.options.entry.clone();
        let entry = match self.scopes[0].get(&entry_name) {
            Some(Symbol::Func(f)) if self.p.func(*f).body.is_some() => *f,
            _ => {
                return Err(Error::Usage(format!(
                    "{}: no definition of the entry function `{entry_name}` (choose another with --entry)",
                    self.p.files.first().cloned().unwrap_or_default()
                )))
            }
        };
        let void = self.p.types.void();
        let fty = self.p.types.intern(crate::ir::Type::Function {
            ret: void,
            params: vec![],
            variadic: false,
        });
        self.p.functions.push(Function {
            name: crate::cfa::START_FUNCTION.into(),
            ty: fty,
            params: Vec::new(),
            kind: FunctionKind::Defined,
            body: None,
            address_taken: false,
            pos: SrcPos::default(),
        });
        let start = FuncId(self.p.functions.len() as u32 - 1);
        self.f = FnState {
            func: Some(start),
            ..FnState::default()
        };
        let pos = self.p.func(entry).pos;
        let sloc = self.new_loc(pos);
        let exit = self.new_loc(pos);
        self.f.exit = Some(exit);
        self.cur = Some(sloc);
        for (v, init) in std::mem::take(&mut self.deferred_inits) {
            let ty = self.p.var(v).ty;
            self.initialize(&Expr::var(v, ty), init, true)?;
        }
        self.initialise_literals(pos);
        // Arguments of the entry function are arbitrary.
        let params: Vec<TypeId> = match self.p.types.get(self.p.func(entry).ty) {
            crate::ir::Type::Function { params, .. } => params.clone(),
            _ => Vec::new(),
        };
        let args = params
            .iter()
            .map(|&t| Expr::new(ExprKind::Nondet(crate::ir::NondetReason::EntryArgument), t))
            .collect();
        self.emit(
            EdgeOp::Call {
                lhs: None,
                callee: entry,
                args,
            },
            pos,
        );
        self.emit_return(None, pos);
        let locals = std::mem::take(&mut self.f.locals);
        self.p.functions[start.0 as usize].body = Some(FunctionBody {
            entry: sloc,
            exit,
            locals,
            ret_var: None,
        });
        self.p.entry_func = Some(entry);
        self.p.start = Some(sloc);
        self.f = FnState::default();
        Ok(())
    }
}
