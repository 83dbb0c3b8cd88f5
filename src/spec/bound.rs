//! A specification automaton bound to one program: its variables exist as
//! `Scope::Spec` program variables, and [`BoundAutomaton::step`] gives the
//! automaton's moves for a CFA step with the operations to weave already
//! instantiated as typed IR (this is what the LOOM analysis consumes).
//!
//! Step kinds (the caller passes exactly one per analysis step):
//! - [`StepKind::Edge`]: an ordinary edge, or a call edge the analysis does
//!   not enter (body-less callee, or a call it summarises). Call patterns
//!   match here, label patterns match edges into labelled locations;
//! - [`StepKind::Enter`]: `edge` is the call edge of a defined function the
//!   analysis enters; `entry f` patterns match;
//! - [`StepKind::Return`]: the callee of call edge `edge` returns to its
//!   caller; call patterns (CPAchecker observes calls of defined functions
//!   when they return) and `return f` patterns match;
//! - [`StepKind::ProgramExit`]: the entry function ends; `exit` matches
//!   (it also matches any call of `ldv_check_final_state`).
//!
//! `step` never returns an empty vector: without a matching transition the
//! automaton stutters (one move to the same state without operations).
//!
//! Keyed sets: binding scans the program's call edges once; every key a
//! matching call can produce becomes one `int` element variable
//! `automaton::set[key]` (initially 0). `set[$n]` reads the element of the
//! key of `$n`, `empty(set)` is the conjunction `element == 0` over all
//! elements. Keys are the text of the matched expression or its LDV lock
//! class (see [`KeyKind`]), never its value: two pointers to one mutex with
//! different text are different elements (aliasing is not seen), exactly as
//! with CPAchecker's `set<string>`.

use crate::hash::HashMap;

use super::automaton::{ArgBinding, SExpr, SLValue, SpecAutomaton, StateIdx, StateKind};
use super::dsl::{ArgsPat, CType, KeyKind, LhsPat, PatKind, Pattern};
use crate::cfa::print;
use crate::cfa::{Edge, EdgeOp, Program};
use crate::ir::{
    BinaryOp, CastKind, Expr, ExprKind, IntKind, NondetReason, Type, TypeId, UnaryOp, VarId,
};

/// How the analysis reached the edge passed to [`BoundAutomaton::step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepKind {
    Edge,
    Enter,
    Return,
    ProgramExit,
}

/// One successor of the automaton for one CFA step.
#[derive(Clone, Debug, PartialEq)]
pub struct Move {
    pub to: StateIdx,
    /// Conditions to weave (all must hold), over program and spec variables.
    pub assumes: Vec<Expr>,
    /// Assignments to weave, in order; left sides are spec variables.
    pub assigns: Vec<(Expr, Expr)>,
    /// The property (index into the automaton's `properties`) violated when
    /// `to` is an error state.
    pub error: Option<usize>,
    /// The transition taken (index into the automaton's `transitions`; its
    /// P(τ) is `transition_properties()[t]`, for precision-adjusted steps);
    /// `None` for a stutter.
    pub transition: Option<usize>,
}

/// The automaton of a program: spec variables, their initialisation, and
/// an index from events to blocks.
#[derive(Clone, Debug)]
pub struct BoundAutomaton {
    pub automaton: SpecAutomaton,
    /// Program variable of each automaton variable.
    pub vars: Vec<VarId>,
    /// Per set: key → element variable, and the elements in creation order.
    pub set_elems: Vec<HashMap<String, VarId>>,
    pub set_order: Vec<Vec<VarId>>,
    /// Assignments giving every spec variable its initial value.
    pub init: Vec<EdgeOp>,
    ints: HashMap<IntKind, TypeId>,
    casts: HashMap<CType, TypeId>,
    index: Vec<StateIndex>,
}

#[derive(Clone, Debug, Default)]
struct StateIndex {
    calls: HashMap<String, Vec<usize>>,
    entries: HashMap<String, Vec<usize>>,
    returns: HashMap<String, Vec<usize>>,
    labels: HashMap<String, Vec<usize>>,
    exits: Vec<usize>,
}

/// A program event a pattern can match.
enum Ev<'a> {
    Call {
        name: &'a str,
        lhs: Option<&'a Expr>,
        args: &'a [Expr],
    },
    Entry(&'a str),
    Return(&'a str),
    Exit,
    Label(&'a str),
}

/// `ldv_check_final_state()` is the LDV harness's program exit.
pub const FINAL_STATE_FN: &str = "ldv_check_final_state";

type Bindings = Vec<(u32, Expr)>;

fn lookup(b: &Bindings, n: u32) -> Option<&Expr> {
    b.iter().find(|(m, _)| *m == n).map(|(_, e)| e)
}

/// What a pattern variable binds to the call argument `e`: the argument
/// itself, or, as written, without the conversion to the parameter's type
/// (the outermost implicit cast; CPAchecker matches the source's argument).
fn bound_argument(e: &Expr, binding: ArgBinding) -> &Expr {
    match (&e.kind, binding) {
        (ExprKind::Cast(a, CastKind::Implicit), ArgBinding::AsWritten) => a,
        _ => e,
    }
}

fn match_pattern(p: &Pattern, ev: &Ev, caller: &str, binding: ArgBinding) -> Option<Bindings> {
    if p.unless_in.iter().any(|f| f == caller) {
        return None;
    }
    let mut b = Bindings::new();
    let ok = match (&p.kind, ev) {
        (
            PatKind::Call { lhs, func, args },
            Ev::Call {
                name,
                lhs: l,
                args: a,
            },
        ) => {
            if func != name {
                return None;
            }
            let lhs_ok = match (lhs, l) {
                (LhsPat::Absent, None) | (LhsPat::Wild, Some(_)) | (LhsPat::Any, _) => true,
                (LhsPat::Bind(n), Some(e)) => {
                    b.push((*n, (*e).clone()));
                    true
                }
                _ => false,
            };
            lhs_ok
                && match args {
                    ArgsPat::Any => true,
                    ArgsPat::List(v) => {
                        v.len() == a.len() && {
                            for (pv, e) in v.iter().zip(a.iter()) {
                                if let Some(n) = pv {
                                    if lookup(&b, *n).is_none() {
                                        b.push((*n, bound_argument(e, binding).clone()));
                                    }
                                }
                            }
                            true
                        }
                    }
                }
        }
        (PatKind::Entry(f), Ev::Entry(n)) | (PatKind::Return(f), Ev::Return(n)) => f == n,
        (PatKind::ProgramExit, Ev::Exit) => true,
        (PatKind::Label(l), Ev::Label(n)) => l == n,
        _ => false,
    };
    ok.then_some(b)
}

/// The events of one CFA step.
fn events<'a>(program: &'a Program, edge: &'a Edge, kind: StepKind) -> Vec<Ev<'a>> {
    let mut out = Vec::new();
    match (kind, &edge.op) {
        (StepKind::ProgramExit, _) => out.push(Ev::Exit),
        (StepKind::Enter, EdgeOp::Call { callee, .. }) => {
            out.push(Ev::Entry(&program.func(*callee).name))
        }
        (StepKind::Edge | StepKind::Return, EdgeOp::Call { lhs, callee, args }) => {
            let name = program.func(*callee).name.as_str();
            out.push(Ev::Call {
                name,
                lhs: lhs.as_ref(),
                args,
            });
            if kind == StepKind::Return {
                out.push(Ev::Return(name));
            }
            if name == FINAL_STATE_FN {
                out.push(Ev::Exit);
            }
        }
        _ => {}
    }
    if kind == StepKind::Edge {
        if let Some(l) = program.locations.get(edge.to.0 as usize) {
            out.extend(l.labels.iter().map(|s| Ev::Label(s)));
        }
    }
    out
}

/// Whether pattern `p` matches some event of CFA edge `edge` when the
/// analysis steps it in any way (relevance ignores assumes and states).
/// Program exit is not an edge event here: every program ends, so an exit
/// pattern alone never makes a transition match syntactically.
pub(super) fn matches_edge(p: &Pattern, program: &Program, edge: &Edge) -> bool {
    let caller = program
        .locations
        .get(edge.from.0 as usize)
        .map(|l| program.func(l.func).name.as_str())
        .unwrap_or("");
    let mut evs = events(program, edge, StepKind::Edge);
    if let EdgeOp::Call { callee, .. } = &edge.op {
        let f = program.func(*callee);
        if f.body.is_some() {
            evs.push(Ev::Entry(&f.name));
            evs.push(Ev::Return(&f.name));
        }
    }
    evs.retain(|e| !matches!(e, Ev::Exit));
    evs.iter()
        .any(|ev| match_pattern(p, ev, caller, ArgBinding::Converted).is_some())
}

/// LDV's lock class of a lock argument (see [`KeyKind::LockClass`]).
fn lock_class(program: &Program, e: &Expr) -> String {
    let mut e = e;
    while let ExprKind::Cast(a, _) = &e.kind {
        e = a;
    }
    if let ExprKind::AddrOf(a) = &e.kind {
        match &a.kind {
            ExprKind::Var(v) => return program.var(*v).source_name.clone(),
            ExprKind::Member(base, f) => {
                if let Type::Composite(c) = program.types.get(base.ty) {
                    let comp = program.types.composite(*c);
                    let field = comp
                        .fields
                        .get(*f as usize)
                        .and_then(|x| x.name.clone())
                        .unwrap_or_else(|| format!("field{f}"));
                    let tag = if comp.name.starts_with("__anon") {
                        "NOT_ARG_SIGN"
                    } else {
                        comp.name.as_str()
                    };
                    return format!("{field}_of_{tag}");
                }
            }
            _ => {}
        }
    }
    print::expr_to_string(program, e)
}

fn key_of(program: &Program, kind: KeyKind, e: &Expr) -> String {
    match kind {
        KeyKind::Text => print::expr_to_string(program, e),
        KeyKind::LockClass => lock_class(program, e),
    }
}

fn set_uses(e: &SExpr, out: &mut Vec<(usize, u32)>) {
    match e {
        SExpr::Elem(s, n) => out.push((*s, *n)),
        SExpr::Unary(_, a) | SExpr::Cast(_, a) => set_uses(a, out),
        SExpr::Binary(_, a, b) => {
            set_uses(a, out);
            set_uses(b, out);
        }
        _ => {}
    }
}

fn resolve_type(program: &mut Program, t: &CType) -> TypeId {
    match t {
        CType::Void => program.types.void(),
        CType::Int(k) => program.types.int(*k),
        CType::Ptr(t) => {
            let inner = resolve_type(program, t);
            program.types.pointer(inner)
        }
        CType::Struct(tag) => {
            match program
                .types
                .composites
                .iter()
                .position(|c| &c.name == tag && !c.is_union)
            {
                Some(i) => program
                    .types
                    .intern(Type::Composite(crate::ir::CompositeId(i as u32))),
                // A struct the program never declares: only its pointers
                // occur in rules, and `void *` has the same representation.
                None => program.types.void(),
            }
        }
    }
}

fn collect_casts(e: &SExpr, out: &mut Vec<CType>) {
    match e {
        SExpr::Cast(t, a) => {
            out.push(t.clone());
            collect_casts(a, out);
        }
        SExpr::Unary(_, a) => collect_casts(a, out),
        SExpr::Binary(_, a, b) => {
            collect_casts(a, out);
            collect_casts(b, out);
        }
        _ => {}
    }
}

const INT_KINDS: [IntKind; 14] = [
    IntKind::Bool,
    IntKind::Char,
    IntKind::SChar,
    IntKind::UChar,
    IntKind::Short,
    IntKind::UShort,
    IntKind::Int,
    IntKind::UInt,
    IntKind::Long,
    IntKind::ULong,
    IntKind::LongLong,
    IntKind::ULongLong,
    IntKind::Int128,
    IntKind::UInt128,
];

impl SpecAutomaton {
    /// Creates the automaton's variables in `program` (one `Scope::Spec`
    /// variable per integer variable and per set element the program can
    /// produce) and returns the bound automaton; its `init` holds the
    /// initialising assignments. One linear pass over the call edges.
    pub fn bind(&self, program: &mut Program) -> BoundAutomaton {
        let mut ints = HashMap::default();
        for k in INT_KINDS {
            ints.insert(k, program.types.int(k));
        }
        let casts = self.cast_types(program);
        let mut init = Vec::new();
        let mut vars = Vec::new();
        for v in &self.vars {
            let ty = ints[&v.ty];
            let id = program.add_spec_var(format!("{}::{}", self.name, v.name), ty);
            vars.push(id);
            init.push(EdgeOp::Assign {
                lhs: Expr::var(id, ty),
                rhs: Expr::int(v.init, ty),
            });
        }
        let (index, by_call) = self.block_index();
        let uses = self.block_set_uses();
        let mut set_elems: Vec<HashMap<String, VarId>> = vec![HashMap::default(); self.sets.len()];
        let mut set_order: Vec<Vec<VarId>> = vec![Vec::new(); self.sets.len()];
        let int = ints[&IntKind::Int];
        if !self.sets.is_empty() {
            let new_keys = self.set_keys(program, &by_call, &uses, &mut set_elems);
            for (s, k) in new_keys {
                let id = program
                    .add_spec_var(format!("{}::{}[{}]", self.name, self.sets[s].name, k), int);
                set_elems[s].insert(k, id);
                set_order[s].push(id);
                init.push(EdgeOp::Assign {
                    lhs: Expr::var(id, int),
                    rhs: Expr::int(0, int),
                });
            }
        }
        BoundAutomaton {
            automaton: self.clone(),
            vars,
            set_elems,
            set_order,
            init,
            ints,
            casts,
            index,
        }
    }

    /// The program type of every cast the transitions' expressions make.
    fn cast_types(&self, program: &mut Program) -> HashMap<CType, TypeId> {
        let mut casts_needed = Vec::new();
        for t in &self.transitions {
            for e in t.assumes.iter().chain(t.assigns.iter().map(|(_, r)| r)) {
                collect_casts(e, &mut casts_needed);
            }
        }
        let mut casts = HashMap::default();
        for c in casts_needed {
            if !casts.contains_key(&c) {
                let id = resolve_type(program, &c);
                casts.insert(c, id);
            }
        }
        casts
    }

    /// Index of blocks per state and event, and the blocks with a pattern
    /// calling each function.
    fn block_index(&self) -> (Vec<StateIndex>, HashMap<&str, Vec<usize>>) {
        let mut index = vec![StateIndex::default(); self.states.len()];
        let mut by_call: HashMap<&str, Vec<usize>> = HashMap::default();
        for (bi, b) in self.blocks.iter().enumerate() {
            let ix = &mut index[b.from as usize];
            for p in &b.patterns {
                let (map, name) = match &p.kind {
                    PatKind::Call { func, .. } => {
                        let v = by_call.entry(func.as_str()).or_default();
                        if v.last() != Some(&bi) {
                            v.push(bi);
                        }
                        (&mut ix.calls, func)
                    }
                    PatKind::Entry(f) => (&mut ix.entries, f),
                    PatKind::Return(f) => (&mut ix.returns, f),
                    PatKind::Label(l) => (&mut ix.labels, l),
                    PatKind::ProgramExit => {
                        ix.exits.push(bi);
                        continue;
                    }
                };
                let v = map.entry(name.clone()).or_default();
                if v.last() != Some(&bi) {
                    v.push(bi);
                }
            }
        }
        (index, by_call)
    }

    /// Set uses per block: the (set, pattern variable) pairs its
    /// transitions read or write, sorted.
    fn block_set_uses(&self) -> Vec<Vec<(usize, u32)>> {
        self.blocks
            .iter()
            .map(|b| {
                let mut u = Vec::new();
                for &t in &b.transitions {
                    let t = &self.transitions[t];
                    for e in &t.assumes {
                        set_uses(e, &mut u);
                    }
                    for (l, r) in &t.assigns {
                        if let SLValue::Elem(s, n) = l {
                            u.push((*s, *n));
                        }
                        set_uses(r, &mut u);
                    }
                }
                u.sort_unstable();
                u.dedup();
                u
            })
            .collect()
    }

    /// The keys the program's calls can produce for the sets, new ones in
    /// the order found; each is entered in `set_elems` with a placeholder
    /// variable.
    fn set_keys(
        &self,
        program: &Program,
        by_call: &HashMap<&str, Vec<usize>>,
        uses: &[Vec<(usize, u32)>],
        set_elems: &mut [HashMap<String, VarId>],
    ) -> Vec<(usize, String)> {
        let mut new_keys: Vec<(usize, String)> = Vec::new();
        for e in &program.edges {
            let EdgeOp::Call { lhs, callee, args } = &e.op else {
                continue;
            };
            let name = program.func(*callee).name.as_str();
            let Some(bs) = by_call.get(name) else {
                continue;
            };
            let ev = Ev::Call {
                name,
                lhs: lhs.as_ref(),
                args,
            };
            for &bi in bs {
                if uses[bi].is_empty() {
                    continue;
                }
                for p in &self.blocks[bi].patterns {
                    let Some(b) = match_pattern(p, &ev, "", self.arg_binding) else {
                        continue;
                    };
                    for &(s, n) in &uses[bi] {
                        if let Some(x) = lookup(&b, n) {
                            let k = key_of(program, self.sets[s].key, x);
                            if !set_elems[s].contains_key(&k) {
                                set_elems[s].insert(k.clone(), VarId(u32::MAX));
                                new_keys.push((s, k));
                            }
                        }
                    }
                }
            }
        }
        new_keys
    }
}

impl BoundAutomaton {
    /// Whether some state of the automaton has a block for an event of the
    /// CFA step `edge` taken as `kind`. Where none has, [`Self::step`]
    /// gives every state its stutter alone.
    pub fn observes(&self, program: &Program, edge: &Edge, kind: StepKind) -> bool {
        let evs = events(program, edge, kind);
        !evs.is_empty()
            && self.index.iter().any(|ix| {
                evs.iter().any(|ev| match ev {
                    Ev::Call { name, .. } => ix.calls.contains_key(*name),
                    Ev::Entry(n) => ix.entries.contains_key(*n),
                    Ev::Return(n) => ix.returns.contains_key(*n),
                    Ev::Label(l) => ix.labels.contains_key(*l),
                    Ev::Exit => !ix.exits.is_empty(),
                })
            })
    }

    /// The automaton's moves from state `q` for the CFA step `edge` taken as
    /// `kind` (see the module doc).
    pub fn step(&self, program: &Program, q: StateIdx, edge: &Edge, kind: StepKind) -> Vec<Move> {
        let mut moves = Vec::new();
        let stutter = Move {
            to: q,
            assumes: Vec::new(),
            assigns: Vec::new(),
            error: None,
            transition: None,
        };
        let Some(ix) = self.index.get(q as usize) else {
            return vec![stutter];
        };
        let evs = events(program, edge, kind);
        let mut cands: Vec<usize> = Vec::new();
        for ev in &evs {
            let list = match ev {
                Ev::Call { name, .. } => ix.calls.get(*name),
                Ev::Entry(n) => ix.entries.get(*n),
                Ev::Return(n) => ix.returns.get(*n),
                Ev::Label(l) => ix.labels.get(*l),
                Ev::Exit => Some(&ix.exits),
            };
            cands.extend(list.into_iter().flatten());
        }
        cands.sort_unstable();
        cands.dedup();
        let caller = program
            .locations
            .get(edge.from.0 as usize)
            .map(|l| program.func(l.func).name.as_str())
            .unwrap_or("");
        let use_first = self.automaton.states[q as usize].use_first;
        for bi in cands {
            let block = &self.automaton.blocks[bi];
            let bindings = block.patterns.iter().find_map(|p| {
                evs.iter()
                    .find_map(|ev| match_pattern(p, ev, caller, self.automaton.arg_binding))
            });
            let Some(b) = bindings else { continue };
            for &ti in &block.transitions {
                let t = &self.automaton.transitions[ti];
                let inst = Inst {
                    p: program,
                    a: self,
                    b: &b,
                };
                let error = match &self.automaton.states[t.to as usize].kind {
                    StateKind::Error { property, .. } => Some(*property),
                    _ => None,
                };
                moves.push(Move {
                    to: t.to,
                    assumes: t.assumes.iter().map(|e| inst.expr(e)).collect(),
                    assigns: t
                        .assigns
                        .iter()
                        .filter_map(|(l, r)| inst.assign(l, r))
                        .collect(),
                    error,
                    transition: Some(ti),
                });
            }
            if use_first {
                break;
            }
        }
        if moves.is_empty() {
            moves.push(stutter);
        }
        moves
    }

    /// The element variable of `key` in set `s`, if the program produces it.
    pub fn set_element(&self, s: usize, key: &str) -> Option<VarId> {
        self.set_elems.get(s)?.get(key).copied()
    }
}

/// Instantiation of spec expressions as typed IR under one binding.
struct Inst<'a> {
    p: &'a Program,
    a: &'a BoundAutomaton,
    b: &'a Bindings,
}

impl Inst<'_> {
    fn int(&self, k: IntKind) -> TypeId {
        self.a.ints[&k]
    }

    fn nondet(&self, why: NondetReason) -> Expr {
        Expr::new(ExprKind::Nondet(why), self.int(IntKind::Int))
    }

    fn elem(&self, s: usize, n: u32) -> Option<Expr> {
        let x = lookup(self.b, n)?;
        let k = key_of(self.p, self.a.automaton.sets[s].key, x);
        let v = self.a.set_element(s, &k)?;
        Some(Expr::var(v, self.int(IntKind::Int)))
    }

    fn assign(&self, l: &SLValue, r: &SExpr) -> Option<(Expr, Expr)> {
        let lhs = match l {
            SLValue::Var(i) => {
                let ty = self.int(self.a.automaton.vars[*i].ty);
                Expr::var(self.a.vars[*i], ty)
            }
            // An element the binding scan did not create cannot be written.
            SLValue::Elem(s, n) => self.elem(*s, *n)?,
        };
        let rhs = self.expr(r);
        let rhs = self.convert(rhs, lhs.ty);
        Some((lhs, rhs))
    }

    fn promote(&self, t: TypeId) -> TypeId {
        match self.p.types.get(t) {
            Type::Int(k) if k.bits() < 32 => self.int(IntKind::Int),
            _ => t,
        }
    }

    fn common(&self, a: TypeId, b: TypeId) -> TypeId {
        let (a, b) = (self.promote(a), self.promote(b));
        self.p.types.common_integer(a, b)
    }

    fn convert(&self, e: Expr, to: TypeId) -> Expr {
        if e.ty == to || !self.p.types.is_scalar(to) || !self.p.types.is_scalar(e.ty) {
            return e;
        }
        if let (ExprKind::IntConst(v), Type::Int(k)) = (&e.kind, self.p.types.get(to)) {
            return Expr::int(k.wrap(*v), to);
        }
        Expr::new(
            ExprKind::Cast(Box::new(e), crate::ir::CastKind::Implicit),
            to,
        )
    }

    fn expr(&self, e: &SExpr) -> Expr {
        let int = self.int(IntKind::Int);
        match e {
            SExpr::Int(v) => {
                let k = if i32::try_from(*v).is_ok() {
                    IntKind::Int
                } else if i64::try_from(*v).is_ok() {
                    IntKind::Long
                } else {
                    IntKind::ULong
                };
                Expr::int(*v, self.int(k))
            }
            SExpr::Var(i) => Expr::var(self.a.vars[*i], self.int(self.a.automaton.vars[*i].ty)),
            SExpr::Pat(n) => lookup(self.b, *n)
                .cloned()
                .unwrap_or_else(|| self.nondet(NondetReason::UnboundPatternVariable)),
            SExpr::Elem(s, n) => self
                .elem(*s, *n)
                .unwrap_or_else(|| self.nondet(NondetReason::SetElementUnknownToBindingScan)),
            SExpr::Empty(s) => {
                let zero = Expr::int(0, int);
                self.a.set_order[*s]
                    .iter()
                    .map(|v| {
                        Expr::new(
                            ExprKind::Binary(
                                BinaryOp::Eq,
                                Box::new(Expr::var(*v, int)),
                                Box::new(zero.clone()),
                            ),
                            int,
                        )
                    })
                    .reduce(|a, b| {
                        Expr::new(
                            ExprKind::Binary(BinaryOp::LogAnd, Box::new(a), Box::new(b)),
                            int,
                        )
                    })
                    .unwrap_or_else(|| Expr::int(1, int))
            }
            SExpr::Unary(op, a) => {
                let a = self.expr(a);
                if !self.p.types.is_scalar(a.ty) {
                    return self.nondet(NondetReason::OperatorOnNonScalar);
                }
                match op {
                    UnaryOp::LogNot => Expr::new(ExprKind::Unary(*op, Box::new(a)), int),
                    _ => {
                        let t = self.promote(a.ty);
                        let a = self.convert(a, t);
                        Expr::new(ExprKind::Unary(*op, Box::new(a)), t)
                    }
                }
            }
            SExpr::Binary(op, a, b) => self.binary(*op, self.expr(a), self.expr(b)),
            SExpr::Cast(t, a) => {
                let a = self.expr(a);
                match self.a.casts.get(t) {
                    Some(&to) if self.p.types.is_scalar(to) => self.convert(a, to),
                    _ => a,
                }
            }
        }
    }

    fn binary(&self, op: BinaryOp, a: Expr, b: Expr) -> Expr {
        let int = self.int(IntKind::Int);
        let ty = &self.p.types;
        if !ty.is_scalar(a.ty) || !ty.is_scalar(b.ty) {
            return self.nondet(NondetReason::OperatorOnNonScalar);
        }
        let mk = |a: Expr, b: Expr, t: TypeId| {
            Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), t)
        };
        let (pa, pb) = (ty.is_pointer(a.ty), ty.is_pointer(b.ty));
        if matches!(op, BinaryOp::LogAnd | BinaryOp::LogOr) {
            return mk(a, b, int);
        }
        if op.is_comparison() {
            return match (pa, pb) {
                (true, true) => {
                    let t = a.ty;
                    let b = self.convert(b, t);
                    mk(a, b, int)
                }
                (true, false) => {
                    let t = a.ty;
                    mk(a, self.convert(b, t), int)
                }
                (false, true) => {
                    let t = b.ty;
                    mk(self.convert(a, t), b, int)
                }
                (false, false) => {
                    let t = self.common(a.ty, b.ty);
                    mk(self.convert(a, t), self.convert(b, t), int)
                }
            };
        }
        // Arithmetic: pointers take part as `unsigned long` values.
        let ul = self.int(IntKind::ULong);
        let a = if pa { self.convert(a, ul) } else { a };
        let b = if pb { self.convert(b, ul) } else { b };
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let (ta, tb) = (self.promote(a.ty), self.promote(b.ty));
            return mk(self.convert(a, ta), self.convert(b, tb), ta);
        }
        let t = self.common(a.ty, b.ty);
        mk(self.convert(a, t), self.convert(b, t), t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{parse_source, FrontendOptions};
    use crate::spec::automaton::from_text;

    const RULE: &str = r#"
rule "t" "test";
var n: unsigned long = 3;
set held by lock_class;
initial I;
error E "bad";
state I {
  on $1 = kmalloc($2, $3) unless in (wrapper) {
    assume (int)$3 != 32 && n > 1 -> E;
    else do n = n + $2 -> I;
  }
  on lock($1) do held[$1] = 1 -> I;
  on entry helper -> J;
  on exit {
    assume !empty(held) -> E;
    else -> I;
  }
}
state J { on return helper -> I; }
"#;

    const SRC: &str = r#"
struct dev { int lock; };
void *kmalloc(unsigned long size, unsigned int flags);
void lock(int *l);
void *p;
void *wrapper(unsigned long s) { return kmalloc(s, 208); }
int helper(void) { return 0; }
int main(void) {
  struct dev *d = (struct dev *)0;
  int x;
  p = kmalloc(10, 208);
  lock(&d->lock);
  lock(&x);
  helper();
  return 0;
}
"#;

    fn setup() -> (Program, BoundAutomaton) {
        let a = match from_text("t.spec", RULE) {
            Ok(a) => a,
            Err(e) => panic!("{e}"),
        };
        // `wrapper` is not called: keep it for the exclusion test.
        let options = FrontendOptions {
            prune: false,
            ..FrontendOptions::default()
        };
        let mut p = parse_source("t.c", SRC, &options).unwrap();
        let b = a.bind(&mut p);
        (p, b)
    }

    fn edge<'a>(p: &'a Program, text: &str, func: &str) -> &'a Edge {
        let f = p.func_by_name(func).unwrap();
        print::edges_printed(p, text)
            .into_iter()
            .map(|e| p.edge(e))
            .find(|e| p.loc(e.from).func == f)
            .unwrap_or_else(|| panic!("no edge `{text}` in {func}"))
    }

    #[test]
    fn binding_creates_spec_variables_and_their_initialisation() {
        let (p, b) = setup();
        assert_eq!(b.vars.len(), 1);
        assert_eq!(p.var(b.vars[0]).scope, crate::ir::Scope::Spec);
        // Lock classes: `&d->lock` is lock_of_dev, `&x` is x.
        let mut keys: Vec<&String> = b.set_elems[0].keys().collect();
        keys.sort();
        assert_eq!(keys, ["lock_of_dev", "x"]);
        assert_eq!(b.init.len(), 3);
        assert_eq!(print::op_to_string(&p, &b.init[0]), "t::n = 3U;");
    }

    #[test]
    fn moves_carry_typed_instantiated_operations() {
        let (p, b) = setup();
        let e = edge(&p, "p = kmalloc(10U, 208U);", "main");
        let m = b.step(&p, 0, e, StepKind::Edge);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].error, Some(0));
        let a = &m[0].assumes[0];
        assert_eq!(print::expr_to_string(&p, a), "208 != 32 && t::n > 1U");
        // `n > 1` compares in unsigned long: the literal is converted.
        let ExprKind::Binary(_, _, r) = &a.kind else {
            panic!()
        };
        let ExprKind::Binary(_, l, one) = &r.kind else {
            panic!()
        };
        assert_eq!(one.ty, l.ty);
        assert_eq!(m[1].error, None);
        let (lhs, rhs) = &m[1].assigns[0];
        assert_eq!(
            lhs.ty, rhs.ty,
            "assignment converted to the variable's type"
        );
        assert_eq!(print::expr_to_string(&p, rhs), "t::n + 10U");
    }

    #[test]
    fn unmatched_edges_stutter_and_exclusions_apply() {
        let (p, b) = setup();
        // Inside `wrapper` the kmalloc pattern is excluded.
        let e = edge(&p, "__tmp = kmalloc(s, 208U);", "wrapper");
        let m = b.step(&p, 0, e, StepKind::Edge);
        assert_eq!(
            m,
            vec![Move {
                to: 0,
                assumes: vec![],
                assigns: vec![],
                error: None,
                transition: None
            }]
        );
    }

    #[test]
    fn entry_return_and_program_exit() {
        let (p, b) = setup();
        let call = edge(&p, "helper();", "main");
        let j = b
            .automaton
            .states
            .iter()
            .position(|s| s.name == "J")
            .unwrap() as StateIdx;
        assert_eq!(b.step(&p, 0, call, StepKind::Enter)[0].to, j);
        assert_eq!(
            b.step(&p, 0, call, StepKind::Edge)[0].to,
            0,
            "not entered: no entry event"
        );
        assert_eq!(b.step(&p, j, call, StepKind::Return)[0].to, 0);
        let m = b.step(&p, 0, call, StepKind::ProgramExit);
        assert_eq!(m.len(), 2, "the at-exit check and its else");
        assert_eq!(
            print::expr_to_string(&p, &m[0].assumes[0]),
            "!(t::held[lock_of_dev] == 0 && t::held[x] == 0)"
        );
        let l = edge(&p, "lock(&x);", "main");
        let m = b.step(&p, 0, l, StepKind::Edge);
        assert_eq!(print::expr_to_string(&p, &m[0].assigns[0].0), "t::held[x]");
    }
}
