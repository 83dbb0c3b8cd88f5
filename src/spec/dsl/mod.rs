//! The rule language of mpv: one specification automaton per file
//! (`properties/*.spec`, documented in `properties/README.md`).
//! [`lexer`] gives positioned tokens, [`parser`] the syntax tree below;
//! [`crate::spec::automaton`] checks and compiles it.

pub mod lexer;
pub mod parser;

use crate::ir::{BinaryOp, IntKind, UnaryOp};

/// 1-based line and column in a specification file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

/// A rule file.
#[derive(Clone, Debug, Default)]
pub struct File {
    pub automaton: Option<(String, Pos)>,
    pub rules: Vec<RuleDecl>,
    pub vars: Vec<VarDecl>,
    pub sets: Vec<SetDecl>,
    pub initial: Option<(String, Pos)>,
    pub errors: Vec<ErrorDecl>,
    pub states: Vec<StateDecl>,
}

/// `rule "ID" "description";`: one property of the automaton.
#[derive(Clone, Debug)]
pub struct RuleDecl {
    pub id: String,
    pub description: String,
    pub pos: Pos,
}

/// `var NAME: TYPE = INIT;`: an automaton-owned integer variable.
#[derive(Clone, Debug)]
pub struct VarDecl {
    pub name: String,
    pub ty: IntKind,
    pub init: i128,
    pub pos: Pos,
}

/// How the elements of a keyed set are identified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyKind {
    /// The C text of the matched expression (`&dev->lock`), as CPAchecker's
    /// `set<string>`: equal text is one element, different text (aliases)
    /// are different elements.
    Text,
    /// LDV's lock class: `&x` is `x`; `&e->f` and `&e.f` are `f_of_S` for
    /// the struct tag `S` of `e` (`NOT_ARG_SIGN` for an anonymous struct);
    /// any other expression is its text. All objects of one class share one
    /// element (as LDV's per-class model variables do).
    LockClass,
}

/// `set NAME by text|lock_class;`
#[derive(Clone, Debug)]
pub struct SetDecl {
    pub name: String,
    pub key: KeyKind,
    pub pos: Pos,
}

/// `error STATE [of "RULE"] "message";`: an accepting state.
#[derive(Clone, Debug)]
pub struct ErrorDecl {
    pub state: String,
    pub rule: Option<String>,
    pub message: String,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub struct StateDecl {
    pub name: String,
    /// `first`: only the first `on` block whose pattern matches is taken
    /// (CPAchecker's `USEFIRST`); by default all matching blocks are.
    pub use_first: bool,
    pub blocks: Vec<OnBlock>,
    pub pos: Pos,
}

/// `on PATTERN, PATTERN ... { CASE* }`.
#[derive(Clone, Debug)]
pub struct OnBlock {
    pub patterns: Vec<Pattern>,
    pub cases: Vec<Case>,
    pub pos: Pos,
}

/// Whether a call pattern requires, forbids or ignores an assigned result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LhsPat {
    /// `f(..)`: a call statement without assignment.
    Absent,
    /// `$n = f(..)`.
    Bind(u32),
    /// `$? = f(..)`.
    Wild,
    /// Any call of `f`, with or without assignment (`.spc` `FUNCTIONCALL`).
    Any,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgsPat {
    /// `f($?)`: any number of arguments.
    Any,
    /// One entry per argument: `Some(n)` binds `$n`, `None` is `$?`.
    List(Vec<Option<u32>>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PatKind {
    Call {
        lhs: LhsPat,
        func: String,
        args: ArgsPat,
    },
    /// `entry f`: control enters the defined function `f`.
    Entry(String),
    /// `return f`: the defined function `f` returns to its caller.
    Return(String),
    /// `exit`: the program ends (end of the entry function, or a call of
    /// `ldv_check_final_state`).
    ProgramExit,
    /// `label L`: an edge into a location labelled `L`.
    Label(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    pub kind: PatKind,
    /// `unless in (f, g)`: not matched inside the bodies of these functions.
    pub unless_in: Vec<String>,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum CaseCond {
    /// No condition: the case is always taken.
    Always,
    Assume(Ex),
    /// The negation of all other conditions of the block.
    Else,
}

#[derive(Clone, Debug)]
pub enum Target {
    State(String),
    /// Cut the path (for functions that do not return, and for result
    /// values an API function cannot produce).
    Stop,
}

#[derive(Clone, Debug)]
pub struct Case {
    pub cond: CaseCond,
    pub assigns: Vec<(Ex, Ex)>,
    pub target: Target,
    pub target_pos: Pos,
    pub pos: Pos,
}

/// A C type in a cast or a declaration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CType {
    Void,
    Int(IntKind),
    Struct(String),
    Ptr(Box<CType>),
}

/// An expression of the rule language before name resolution.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ex {
    Int(i128, Pos),
    Pat(u32, Pos),
    Name(String, Pos),
    /// `set[$n]`
    Elem(String, u32, Pos),
    /// `empty(set)`
    Empty(String, Pos),
    Unary(UnaryOp, Box<Ex>, Pos),
    Binary(BinaryOp, Box<Ex>, Box<Ex>, Pos),
    Cast(CType, Box<Ex>, Pos),
}

impl Ex {
    pub fn pos(&self) -> Pos {
        match self {
            Ex::Int(_, p)
            | Ex::Pat(_, p)
            | Ex::Name(_, p)
            | Ex::Elem(_, _, p)
            | Ex::Empty(_, p)
            | Ex::Unary(_, _, p)
            | Ex::Binary(_, _, _, p)
            | Ex::Cast(_, _, p) => *p,
        }
    }
}
