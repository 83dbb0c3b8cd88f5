//! The control-flow automaton (CFA) of a whole program (paper 002, Sect. 2).
//!
//! One CFA per defined function; all locations and edges of the program live
//! in two flat vectors of [`Program`], indexed by [`LocId`] and [`EdgeId`].
//! Calls are single [`EdgeOp::Call`] edges from the call site to the return
//! site of the caller; analyses that enter callees (the call-stack CPA) go to
//! the callee's `entry` and come back from its `exit`.
//!
//! Invariants:
//! - calls through function pointers are already resolved into a case split
//!   over the address-taken functions of a matching type (assume edges
//!   `fp == &f` followed by direct calls) plus a fallback edge
//!   [`EdgeOp::CallUnknown`];
//! - every function's body has exactly one `exit` location, the target of all
//!   its [`EdgeOp::Return`] edges;
//! - the program starts at `start`, the entry of a synthetic function that
//!   initialises globals and then calls the entry function.

pub mod dot;
pub mod effects;
pub mod hunting;
pub mod liveness;
pub mod loops;
pub mod print;

use crate::ir::{
    Expr, FuncId, FunctionKind, HavocReason, SrcPos, TypeId, TypeTable, VarId, Variable,
};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct LocId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct EdgeId(pub u32);

#[derive(Clone, Debug, Serialize)]
pub struct Location {
    pub func: FuncId,
    /// Target of a back edge: a large-block-encoding abstraction point.
    pub loop_head: bool,
    /// C labels at this location (`LDV_ERROR`, `ERROR`, ...).
    pub labels: Vec<String>,
    pub pos: SrcPos,
}

/// The operation on a CFA edge.
#[derive(Clone, Debug, Serialize)]
pub enum EdgeOp {
    /// No effect (gotos, joins, declarations without initialiser).
    Skip,
    /// Continue only if `cond` evaluates to `truth` (non-zero for `true`).
    Assume { cond: Expr, truth: bool },
    /// `lhs = rhs;` on scalar or aggregate (struct copy) types.
    Assign { lhs: Expr, rhs: Expr },
    /// `[lhs =] callee(args);` with a known callee.
    Call {
        lhs: Option<Expr>,
        callee: FuncId,
        args: Vec<Expr>,
    },
    /// A call through a function pointer whose target is none of the
    /// candidates: the result and everything reachable is unknown.
    CallUnknown {
        lhs: Option<Expr>,
        target: Expr,
        args: Vec<Expr>,
    },
    /// `return [value];` (edge to the function's exit location).
    Return { value: Option<Expr> },
    /// The listed lvalues get arbitrary values (inline asm outputs, ...).
    Havoc {
        lvalues: Vec<Expr>,
        reason: HavocReason,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct Edge {
    pub from: LocId,
    pub to: LocId,
    pub op: EdgeOp,
    pub pos: SrcPos,
}

#[derive(Clone, Debug, Serialize)]
pub struct FunctionBody {
    pub entry: LocId,
    pub exit: LocId,
    /// Local variables (including temporaries), in declaration order.
    pub locals: Vec<VarId>,
    /// The variable that receives the return value, if not `void`.
    pub ret_var: Option<VarId>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Function {
    pub name: String,
    /// The function type.
    pub ty: TypeId,
    pub params: Vec<VarId>,
    pub kind: FunctionKind,
    pub body: Option<FunctionBody>,
    /// `&f` occurs (or `f` is used as a value): a function-pointer candidate.
    pub address_taken: bool,
    pub pos: SrcPos,
}

/// The name of the synthetic start function ([`Program::start`]).
pub const START_FUNCTION: &str = "__mpv_start";

/// A parsed and lowered program.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Program {
    /// Source file names referenced by [`SrcPos::file`].
    pub files: Vec<String>,
    pub types: TypeTable,
    pub vars: Vec<Variable>,
    pub functions: Vec<Function>,
    pub strings: Vec<String>,
    /// The string literals whose bytes the start function does not write
    /// (indices into `strings`, ascending), with their bytes (without the
    /// terminating NUL): the analysis reads arbitrary bytes there, an
    /// exact path check that reads them adds them ([`crate::smt`]).
    #[serde(skip)]
    pub unmodelled_literals: Vec<(u32, Vec<u8>)>,
    pub locations: Vec<Location>,
    pub edges: Vec<Edge>,
    /// Outgoing edges per location (index = `LocId`).
    pub out_edges: Vec<Vec<EdgeId>>,
    /// Incoming edges per location.
    pub in_edges: Vec<Vec<EdgeId>>,
    /// The entry function chosen by the user (`main` by default).
    pub entry_func: Option<FuncId>,
    /// Where the analysis starts: the entry of the synthetic start function.
    pub start: Option<LocId>,
    /// Assume edges that decide the condition of a branching construct
    /// (`if`, `while`, `do`, `for`, `?:`) in the source, with the outcome of
    /// that condition they stand for (`!` and short-circuit operators make
    /// it differ from the edge's own truth; an edge to the middle of `a && b`
    /// decides nothing and is not here).
    #[serde(skip)]
    pub branch_outcomes: crate::hash::HashMap<EdgeId, bool>,
    /// The live locals of each location, computed on first use
    /// ([`Program::liveness`]) and dropped when locations or edges change.
    #[serde(skip)]
    liveness: std::sync::OnceLock<liveness::Liveness>,
}

impl Program {
    pub fn var(&self, v: VarId) -> &Variable {
        &self.vars[v.0 as usize]
    }

    pub fn func(&self, f: FuncId) -> &Function {
        &self.functions[f.0 as usize]
    }

    pub fn loc(&self, l: LocId) -> &Location {
        &self.locations[l.0 as usize]
    }

    pub fn edge(&self, e: EdgeId) -> &Edge {
        &self.edges[e.0 as usize]
    }

    pub fn outgoing(&self, l: LocId) -> &[EdgeId] {
        &self.out_edges[l.0 as usize]
    }

    pub fn incoming(&self, l: LocId) -> &[EdgeId] {
        &self.in_edges[l.0 as usize]
    }

    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    pub fn file_name(&self, pos: SrcPos) -> &str {
        self.files
            .get(pos.file as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// Which locals are live where ([`liveness`]), computed once.
    pub fn liveness(&self) -> &liveness::Liveness {
        self.liveness.get_or_init(|| liveness::Liveness::of(self))
    }

    pub fn add_location(&mut self, loc: Location) -> LocId {
        self.liveness.take();
        self.locations.push(loc);
        self.out_edges.push(Vec::new());
        self.in_edges.push(Vec::new());
        LocId(self.locations.len() as u32 - 1)
    }

    pub fn add_edge(&mut self, edge: Edge) -> EdgeId {
        self.liveness.take();
        let id = EdgeId(self.edges.len() as u32);
        self.out_edges[edge.from.0 as usize].push(id);
        self.in_edges[edge.to.0 as usize].push(id);
        self.edges.push(edge);
        id
    }

    /// Makes edge `e` leave from `from` instead of its current source.
    pub fn move_edge_source(&mut self, e: EdgeId, from: LocId) {
        self.liveness.take();
        let old = self.edges[e.0 as usize].from;
        self.out_edges[old.0 as usize].retain(|&x| x != e);
        self.out_edges[from.0 as usize].push(e);
        self.edges[e.0 as usize].from = from;
    }

    /// Replaces the operation of edge `e`.
    pub fn set_edge_op(&mut self, e: EdgeId, op: EdgeOp) {
        self.liveness.take();
        self.edges[e.0 as usize].op = op;
    }

    /// Adds a variable owned by a specification automaton and returns its id.
    pub fn add_spec_var(&mut self, name: String, ty: TypeId) -> VarId {
        self.vars.push(Variable {
            source_name: name.clone(),
            name,
            ty,
            scope: crate::ir::Scope::Spec,
            address_taken: false,
            pos: SrcPos::default(),
        });
        VarId(self.vars.len() as u32 - 1)
    }
}
