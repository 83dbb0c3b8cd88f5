//! The typed intermediate form of a C program: types, variables, functions and
//! side-effect-free expressions.
//!
//! Invariants:
//! - an [`Expr`] never has side effects: calls, assignments and increments are
//!   lifted into CFA edges by the front end;
//! - every [`Expr`] carries its C type (`ty`), already after the usual arithmetic
//!   conversions, so consumers never re-derive types;
//! - identifiers are resolved: variables are [`VarId`]s, functions [`FuncId`]s.

pub mod expr;
pub mod types;
pub mod unmodelled;

pub use expr::{BinaryOp, CastKind, Expr, ExprKind, UnaryOp};
pub use types::{Composite, CompositeId, DataModel, Field, IntKind, Type, TypeId, TypeTable};
pub use unmodelled::{HavocReason, NondetReason};

use serde::Serialize;

/// A position in the original source, as given by `#line` directives, and
/// in the input file itself (what witnesses name).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SrcPos {
    /// Index into [`crate::cfa::Program::files`].
    pub file: u32,
    pub line: u32,
    /// 1-based line in the input file (0: none, as for synthetic code).
    pub input_line: u32,
    /// 1-based byte column in the input file (0: none).
    pub input_column: u32,
}

/// Index of a variable in [`crate::cfa::Program::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct VarId(pub u32);

/// Index of a function in [`crate::cfa::Program::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FuncId(pub u32);

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Scope {
    Global,
    /// A local (including block-scoped and `static` locals, which keep their
    /// value across calls: `is_static`).
    Local {
        func: FuncId,
        is_static: bool,
    },
    /// The `index`-th formal parameter.
    Param {
        func: FuncId,
        index: u32,
    },
    /// A temporary introduced by the front end (call results, conditions).
    Temp {
        func: FuncId,
    },
    /// A variable owned by a specification automaton (written only by woven
    /// operations).
    Spec,
}

#[derive(Clone, Debug, Serialize)]
pub struct Variable {
    /// Unique name in the program (`x` for globals, `f::x` / `f::x#2` for locals).
    pub name: String,
    /// The name as written in the source.
    pub source_name: String,
    pub ty: TypeId,
    pub scope: Scope,
    /// `&x` occurs somewhere (directly, or the variable is an array/aggregate
    /// whose address escapes); such variables live in memory for the encoding.
    pub address_taken: bool,
    pub pos: SrcPos,
}

/// How a function is treated by the analyses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FunctionKind {
    /// Has a body (a CFA).
    Defined,
    /// Returns an arbitrary value and has no other effect
    /// (`__VERIFIER_nondet_*`, `nondet_*`, `ldv_undef_*`, body-less externs).
    Nondet,
    /// Blocks executions where its argument is zero (`__VERIFIER_assume`,
    /// `ldv_assume`).
    Assume,
    /// Ends the execution (`abort`, `exit`, `__VERIFIER_error` in non-label
    /// properties).
    Abort,
    /// Body-less function without a return value: no effect on program state.
    External,
}
