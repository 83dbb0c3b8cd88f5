//! The invariants a proof knows at loop heads, for correctness witnesses:
//! at each loop head, the disjunction over the reached states there of
//! what each knows of the program's variables.
//!
//! - A fixed point of the predicate analysis: the abstraction formula of
//!   each abstract state at the loop head (every state that arrives there
//!   is abstracted, and is covered by a reached one).
//! - A complete exploration under explicit values: the known values of
//!   each state at the loop head (`v == c`, or `v != 0` for what is known
//!   non-zero).
//!
//! Both reached sets over-approximate every execution of the program (the
//! automata split paths but never remove one; see [`crate::cpa::loom`]), so
//! the invariants hold for every property the fixed point proves, under
//! the assumptions its proof makes (the explicit values take functions
//! without a body to leave the module's variables alone), except where the
//! analyses cut recursion: a loop of a recursive function, or of one it
//! calls, gets no invariant ([`cut_by_recursion`]). A loop head with
//! a state that is no abstraction, or whose invariant has more than
//! [`MAX_ATOMS`] comparisons, gets no invariant (`1`, which is sound).

use crate::cfa::{EdgeOp, LocId, Program};
use crate::cpa::value::{Known, Values};
use crate::hash::{HashMap, HashSet};
use crate::ir::{FuncId, Scope, Type, VarId};
use crate::witness::correctness::LoopInvariant;
use crate::witness::invariant::{from_z3, CExpr, CTerm, CType, CVar, CmpOp, VarScope};

/// Comparisons in one loop head's invariant past which it is left out.
pub const MAX_ATOMS: usize = 2_000;

/// What one reached state knows at a loop head: `None` when it cannot say.
pub(super) type Knows = Option<CExpr>;

/// The variables an invariant in one function may name: registers of
/// integer or pointer type that are globals, or parameters and locals of
/// the function, whose source name no other of them has.
pub(super) struct Names<'p> {
    program: &'p Program,
    /// Per function: how many of its nameable variables have each name.
    counts: HashMap<FuncId, HashMap<&'p str, usize>>,
}

impl<'p> Names<'p> {
    pub(super) fn new(program: &'p Program) -> Self {
        Names {
            program,
            counts: HashMap::default(),
        }
    }

    /// Whether `v` may be visible in `f` (by its scope).
    fn visible(&self, v: VarId, f: FuncId) -> bool {
        match self.program.var(v).scope {
            Scope::Global => true,
            Scope::Local { func, .. } | Scope::Param { func, .. } => func == f,
            Scope::Temp { .. } | Scope::Spec => false,
        }
    }

    fn counts(&mut self, f: FuncId) -> &HashMap<&'p str, usize> {
        let program = self.program;
        if !self.counts.contains_key(&f) {
            let mut m: HashMap<&str, usize> = HashMap::default();
            for (i, v) in program.vars.iter().enumerate() {
                if self.visible(VarId(i as u32), f) {
                    *m.entry(v.source_name.as_str()).or_default() += 1;
                }
            }
            self.counts.insert(f, m);
        }
        &self.counts[&f]
    }

    /// `v` as an invariant in `f` names it, if it may.
    pub(super) fn var(&mut self, v: VarId, f: FuncId) -> Option<CVar> {
        let program = self.program;
        let var = program.var(v);
        if !self.visible(v, f) || self.counts(f).get(var.source_name.as_str()) != Some(&1) {
            return None;
        }
        let ident = |s: &str| {
            s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && s.bytes().next().is_some_and(|b| !b.is_ascii_digit())
        };
        let ty = match program.types.get(var.ty) {
            Type::Int(k) if k.bits() <= 64 => CType::Int(*k),
            Type::Pointer(_) => CType::Pointer,
            _ => return None,
        };
        let scope = match var.scope {
            Scope::Local { .. } if var.pos.input_line == 0 => return None,
            Scope::Local { .. } => VarScope::Block {
                line: var.pos.input_line,
                column: var.pos.input_column.max(1),
            },
            _ => VarScope::Function,
        };
        (ident(&var.source_name) && !var.address_taken).then(|| CVar {
            name: var.source_name.clone(),
            ty,
            scope,
        })
    }
}

/// What the explicit values `values` know, over the variables nameable in `f`.
pub(super) fn of_values(values: &Values, f: FuncId, names: &mut Names) -> CExpr {
    CExpr::and(values.iter().map(|(v, k)| {
        let Some(var) = names.var(v, f) else {
            return CExpr::True;
        };
        let width = match var.ty {
            CType::Int(k) => k.bits(),
            CType::Pointer => 64,
        };
        let signed = matches!(var.ty, CType::Int(k) if k.signed());
        let (op, bits) = match (k, var.ty) {
            (Known::Exactly(c), CType::Int(_)) => (CmpOp::EQ, c as u64),
            (Known::Exactly(0), CType::Pointer) => (CmpOp::EQ, 0),
            (Known::NonZero, _) => (CmpOp::NE, 0),
            _ => return CExpr::True,
        };
        CExpr::cmp(op, signed, CTerm::Var(var), CTerm::Const { bits, width })
    }))
}

/// What the abstraction formula `f` of a state in function `func` says,
/// over the variables nameable there.
pub(super) fn of_formula(f: &z3::ast::Bool, func: FuncId, names: &mut Names) -> CExpr {
    let names = std::cell::RefCell::new(names);
    from_z3(f, &|v, _| names.borrow_mut().var(v, func))
}

/// The invariants at the loop heads of `program` from `states` (each
/// reached state's location and what it knows there; states at other
/// locations are skipped): per loop head, the disjunction.
pub(super) fn collect(
    program: &Program,
    states: impl Iterator<Item = (LocId, Knows)>,
) -> Vec<LoopInvariant> {
    let unseen = cut_by_recursion(program);
    let mut at: HashMap<LocId, Option<Vec<CExpr>>> = HashMap::default();
    for (loc, known) in states {
        let l = program.loc(loc);
        if !l.loop_head || unseen.contains(&l.func) {
            continue;
        }
        let entry = at.entry(loc).or_insert_with(|| Some(Vec::new()));
        match (entry.as_mut(), known) {
            (Some(v), Some(k)) => {
                if !v.contains(&k) {
                    v.push(k);
                }
            }
            _ => *entry = None,
        }
    }
    let mut out: Vec<LoopInvariant> = at
        .into_iter()
        .filter_map(|(loc, disjuncts)| {
            let inv = CExpr::or(disjuncts?).simplified();
            (inv != CExpr::True && inv.atoms() <= MAX_ATOMS)
                .then(|| loop_invariant(program, loc, inv))
        })
        .collect();
    out.sort_by_key(|i| i.places.first().copied());
    out
}

/// The functions the analyses may not see every run of: those a
/// recursive function calls, itself included. The call stack cuts a call
/// of a function already on it ([`crate::cpa::callstack`]), so the runs
/// of the nested call, and of what it calls, are never explored: a loop
/// head there has reached states from the other runs only.
fn cut_by_recursion(program: &Program) -> HashSet<FuncId> {
    let n = program.functions.len();
    let mut callees: Vec<Vec<FuncId>> = vec![Vec::new(); n];
    for e in &program.edges {
        if let EdgeOp::Call { callee, .. } = &e.op {
            if program.func(*callee).body.is_some() {
                callees[program.loc(e.from).func.0 as usize].push(*callee);
            }
        }
    }
    // What each function calls, directly or not.
    let reach = |f: FuncId| -> HashSet<FuncId> {
        let mut seen: HashSet<FuncId> = HashSet::default();
        let mut todo: Vec<FuncId> = callees[f.0 as usize].clone();
        while let Some(g) = todo.pop() {
            if seen.insert(g) {
                todo.extend(callees[g.0 as usize].iter().copied());
            }
        }
        seen
    };
    let mut out: HashSet<FuncId> = HashSet::default();
    for f in (0..n as u32).map(FuncId) {
        let r = reach(f);
        if r.contains(&f) {
            out.extend(r);
        }
    }
    out
}

/// The places of loop head `loc` in the input file: its own, then those of
/// the steps into it (a label's statement).
fn loop_invariant(program: &Program, loc: LocId, invariant: CExpr) -> LoopInvariant {
    let l = program.loc(loc);
    let mut places = Vec::new();
    let mut seen = HashSet::default();
    let into = program.in_edges[loc.0 as usize]
        .iter()
        .map(|e| program.edges[e.0 as usize].pos);
    for pos in std::iter::once(l.pos).chain(into) {
        let p = (pos.input_line, pos.input_column);
        if pos.input_line > 0 && seen.insert(p) {
            places.push(p);
        }
    }
    LoopInvariant {
        function: program.func(l.func).name.clone(),
        labels: l.labels.clone(),
        places,
        invariant,
    }
}
