//! The bug-hunting variant of a program: its calls through pointers keep
//! only the candidates whose address code reachable from the entry takes.
//!
//! A call through a pointer is split over every address-taken function of a
//! matching type (see the invariants of [`crate::cfa`]). An LDV module
//! takes the addresses of many callbacks in structures no code reachable
//! from the environment model names; each of them is a candidate of every
//! call through a pointer of its type, and an analysis spends its time on
//! calls the module never makes. The variant ends the path at those cases
//! instead: the case's location carries the label [`CUT_LABEL`] and its
//! call edge becomes `assume(0)`. Every other location and edge is the
//! program's own, with the same ids.
//!
//! What the variant proves carries over to the program exactly when the
//! cut is unreachable in it: an execution of the program that never makes
//! a cut call is an execution of the variant, and one that makes a cut call
//! has a prefix that reaches the label in the variant. So the label is
//! verified as a property with the others; which cases are cut decides
//! only how much the variant saves, never whether its results hold. An
//! error path of the variant is always one of the program.
//!
//! Which addresses reachable code takes is a fixed point over functions
//! and globals: the functions the entry reaches through direct calls and
//! through the cases it keeps, the globals they name, the functions whose
//! address these functions or the initialisers of these globals mention.

use crate::cfa::{EdgeId, EdgeOp, Program};
use crate::ir::{BinaryOp, Expr, ExprKind, FuncId, Scope, VarId};

/// The label at the cut cases of the variant (two leading underscores: a
/// name C reserves to the implementation).
pub const CUT_LABEL: &str = "__mpv_hunting_cut";

/// The bug-hunting variant of `program`, or `None` when it would cut no
/// case (every candidate's address is taken by reachable code).
pub fn variant(program: &Program) -> Option<Program> {
    let cut = cut_cases(program);
    if cut.is_empty() {
        return None;
    }
    let mut variant = program.clone();
    for e in cut {
        let from = variant.edge(e).from;
        // The case's condition is an `int`: so is the `0` that ends the path.
        let int = match &variant.edge(variant.incoming(from)[0]).op {
            EdgeOp::Assume { cond, .. } => cond.ty,
            _ => unreachable!("a cut case is entered by its condition"),
        };
        variant.locations[from.0 as usize]
            .labels
            .push(CUT_LABEL.into());
        variant.set_edge_op(
            e,
            EdgeOp::Assume {
                cond: Expr::int(0, int),
                truth: true,
            },
        );
    }
    Some(variant)
}

/// The call edges of the cases `[fp == &f] f(...)` whose `f` no reachable
/// code takes the address of.
pub fn cut_cases(program: &Program) -> Vec<EdgeId> {
    if program.start.is_none() {
        return Vec::new();
    }
    let reach = Reach::of(program);
    program
        .edges
        .iter()
        .enumerate()
        .map(|(i, _)| EdgeId(i as u32))
        .filter(|&e| {
            reach
                .pointer_case(e)
                .is_some_and(|f| !reach.taken[f.0 as usize])
        })
        .collect()
}

/// What code reachable from the entry reaches and takes.
struct Reach<'p> {
    program: &'p Program,
    /// Per function: the edges leaving its locations.
    edges_of: Vec<Vec<EdgeId>>,
    reached: Vec<bool>,
    taken: Vec<bool>,
    named: Vec<bool>,
    /// Per global: the start function's edges that initialise it.
    inits: Vec<Vec<EdgeId>>,
}

enum Item {
    Func(FuncId),
    Global(VarId),
}

impl<'p> Reach<'p> {
    fn of(program: &'p Program) -> Self {
        let nf = program.functions.len();
        let mut edges_of = vec![Vec::new(); nf];
        let mut inits = vec![Vec::new(); program.vars.len()];
        let start = program.start.map(|l| program.loc(l).func);
        for (i, e) in program.edges.iter().enumerate() {
            let id = EdgeId(i as u32);
            let f = program.loc(e.from).func;
            match (Some(f) == start, initialised(program, e)) {
                (true, Some(v)) => inits[v.0 as usize].push(id),
                _ => edges_of[f.0 as usize].push(id),
            }
        }
        let mut r = Reach {
            program,
            edges_of,
            reached: vec![false; nf],
            taken: vec![false; nf],
            named: vec![false; program.vars.len()],
            inits,
        };
        let mut work: Vec<Item> = start.into_iter().map(Item::Func).collect();
        while let Some(item) = work.pop() {
            let edges = match item {
                // Each item is visited once.
                Item::Func(f) => std::mem::take(&mut r.edges_of[f.0 as usize]),
                Item::Global(v) => std::mem::take(&mut r.inits[v.0 as usize]),
            };
            for e in edges {
                r.visit_edge(e, &mut work);
            }
        }
        r
    }

    fn visit_edge(&mut self, e: EdgeId, work: &mut Vec<Item>) {
        let program = self.program;
        let edge = program.edge(e);
        if let Some(f) = self.pointer_case(e) {
            // Reached through the case only if its address is taken; the
            // taking marks it reached then.
            if self.taken[f.0 as usize] {
                self.reach(f, work);
            }
            visit_exprs(&edge.op, &mut |x| self.mention(x, work));
            return;
        }
        if let EdgeOp::Call { callee, .. } = &edge.op {
            self.reach(*callee, work);
        }
        // The case conditions `fp == &f` of a split (and their negations)
        // mention `f` without taking its address.
        if case_condition(program, e).is_some() {
            if let EdgeOp::Assume { cond, .. } = &edge.op {
                if let ExprKind::Binary(_, target, _) = &cond.kind {
                    target.walk(&mut |x| self.mention(x, work));
                }
            }
            return;
        }
        visit_exprs(&edge.op, &mut |x| self.mention(x, work));
    }

    fn mention(&mut self, x: &Expr, work: &mut Vec<Item>) {
        match x.kind {
            ExprKind::Func(f) => {
                self.taken[f.0 as usize] = true;
                self.reach(f, work);
            }
            ExprKind::Var(v)
                if self.program.var(v).scope == Scope::Global && !self.named[v.0 as usize] =>
            {
                self.named[v.0 as usize] = true;
                work.push(Item::Global(v));
            }
            _ => {}
        }
    }

    fn reach(&mut self, f: FuncId, work: &mut Vec<Item>) {
        if !std::mem::replace(&mut self.reached[f.0 as usize], true) {
            work.push(Item::Func(f));
        }
    }

    /// The candidate `f` when `e` is the call edge of a case
    /// `[fp == &f] f(...)` of a split call through a pointer.
    fn pointer_case(&self, e: EdgeId) -> Option<FuncId> {
        let program = self.program;
        let EdgeOp::Call { callee, .. } = &program.edge(e).op else {
            return None;
        };
        let from = program.edge(e).from;
        match program.incoming(from) {
            [a] if program.outgoing(from).len() == 1 => {
                (case_condition(program, *a) == Some((*callee, true))).then_some(*callee)
            }
            _ => None,
        }
    }
}

/// The candidate `f` when `e` is an edge `[target == &f]` or its negation
/// (`truth` false).
fn case_condition(program: &Program, e: EdgeId) -> Option<(FuncId, bool)> {
    let EdgeOp::Assume { cond, truth } = &program.edge(e).op else {
        return None;
    };
    let ExprKind::Binary(BinaryOp::Eq, _, addr) = &cond.kind else {
        return None;
    };
    match &addr.kind {
        ExprKind::AddrOf(inner) => match inner.kind {
            ExprKind::Func(f) => Some((f, *truth)),
            _ => None,
        },
        _ => None,
    }
}

/// The global or static local an edge of the start function initialises.
fn initialised(program: &Program, e: &crate::cfa::Edge) -> Option<VarId> {
    let EdgeOp::Assign { lhs, .. } = &e.op else {
        return None;
    };
    let mut root = lhs;
    loop {
        match &root.kind {
            ExprKind::Member(b, _) | ExprKind::Index(b, _) => root = b,
            ExprKind::Var(v) => {
                return (program.var(*v).scope == Scope::Global).then_some(*v);
            }
            _ => return None,
        }
    }
}

/// Visits every expression of an edge's operation.
fn visit_exprs<'a>(op: &'a EdgeOp, f: &mut impl FnMut(&'a Expr)) {
    match op {
        EdgeOp::Skip => {}
        EdgeOp::Assume { cond, .. } => cond.walk(f),
        EdgeOp::Assign { lhs, rhs } => {
            lhs.walk(f);
            rhs.walk(f);
        }
        EdgeOp::Call { lhs, args, .. } => {
            lhs.iter().for_each(|x| x.walk(f));
            args.iter().for_each(|x| x.walk(f));
        }
        EdgeOp::CallUnknown { lhs, target, args } => {
            lhs.iter().for_each(|x| x.walk(f));
            target.walk(f);
            args.iter().for_each(|x| x.walk(f));
        }
        EdgeOp::Return { value } => value.iter().for_each(|x| x.walk(f)),
        EdgeOp::Havoc { lvalues, .. } => lvalues.iter().for_each(|x| x.walk(f)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{parse_source, FrontendOptions};

    fn program(src: &str) -> Program {
        parse_source("t.c", src, &FrontendOptions::default()).expect("parses")
    }

    /// The callees of the cut cases, by name.
    fn cut_callees(p: &Program) -> Vec<String> {
        let mut names: Vec<String> = cut_cases(p)
            .into_iter()
            .map(|e| match &p.edge(e).op {
                EdgeOp::Call { callee, .. } => p.func(*callee).name.clone(),
                op => panic!("a cut case is a call, not {op:?}"),
            })
            .collect();
        names.sort();
        names
    }

    const OPS: &str = "struct ops { void (*cb)(void); };
        void a(void) {} void b(void) {} void c(void) {} void d(void) {}
        void reg(struct ops *o) { o->cb = d; }
        struct ops unnamed = { .cb = a };
        struct ops named = { .cb = b };
        extern struct ops *env(void);";

    #[test]
    fn cases_of_addresses_only_unreachable_code_takes_are_cut() {
        let p = program(&format!(
            "{OPS} int main(void) {{ void (*f)(void) = c; struct ops *o = env(); named.cb(); o->cb(); f(); return 0; }}"
        ));
        // `a` only in a table nobody names, `d` only in a function nobody
        // calls: three calls through pointers, each with four candidates.
        assert_eq!(cut_callees(&p), ["a", "a", "a", "d", "d", "d"]);
        let v = variant(&p).expect("something is cut");
        assert_eq!(v.edges.len(), p.edges.len());
        for e in cut_cases(&p) {
            let from = v.edge(e).from;
            assert!(v.loc(from).labels.iter().any(|l| l == CUT_LABEL));
            assert!(matches!(v.edge(e).op, EdgeOp::Assume { truth: true, .. }));
        }
    }

    #[test]
    fn taking_an_address_in_reachable_code_keeps_the_case() {
        // `reg` is called, so `d` is taken; `unnamed` and `named` are named,
        // so `a` and `b` are; `c` has no case (nothing takes it).
        let p = program(&format!(
            "{OPS} int main(void) {{ struct ops *o = env(); reg(o); o = &unnamed; o->cb(); named.cb(); return 0; }}"
        ));
        assert!(cut_cases(&p).is_empty(), "{:?}", cut_callees(&p));
        assert!(variant(&p).is_none());
    }

    #[test]
    fn a_function_reached_only_through_a_kept_case_takes_addresses_too() {
        // `b` is a candidate reached through `named`; the address of `a`
        // it takes keeps `a`'s case.
        let p = program(
            "struct ops { void (*cb)(void); };
             struct ops named; struct ops other;
             void a(void) {} void b(void) { other.cb = a; }
             int main(void) { named.cb = b; named.cb(); other.cb(); return 0; }",
        );
        assert!(cut_cases(&p).is_empty(), "{:?}", cut_callees(&p));
    }
}
