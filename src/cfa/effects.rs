//! What a call of a defined function may do, through everything it calls in
//! turn: the globals it may assign, whether it may write memory, the labels
//! its code carries and the functions it calls. The analyses do not enter a
//! call of a function that is already on the call stack (recursion cut); these
//! effects over-approximate every execution of such a call, as long as
//! nothing in it is observed by a property (see
//! [`crate::smt::Encoder::recursion_effects`]).
//!
//! Syntactic and conservative: an assignment to anything but a global
//! variable (a dereference, a field, an array element, a local whose address
//! is taken) writes memory, and so does every call of a function without a
//! body that gets an argument or whose target is unknown. Locals of the cut
//! call are its own activation's and invisible to the caller.

use crate::hash::HashSet;

use super::{EdgeId, EdgeOp, Program};
use crate::ir::{Expr, ExprKind, FuncId, FunctionKind, Scope, VarId};

/// The effects of a call of one function, callees included.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallEffects {
    /// Globals and `static` locals it may assign (sorted).
    pub globals: Vec<VarId>,
    /// It may write memory.
    pub writes_memory: bool,
    /// Labels of its locations (sorted).
    pub labels: Vec<String>,
    /// Names of the functions it calls, with or without a body, and its own
    /// (sorted).
    pub callees: Vec<String>,
}

/// The edges of each function, for [`call_effects`].
pub fn edges_by_function(p: &Program) -> Vec<Vec<EdgeId>> {
    let mut by = vec![Vec::new(); p.functions.len()];
    for (i, e) in p.edges.iter().enumerate() {
        by[p.loc(e.from).func.0 as usize].push(EdgeId(i as u32));
    }
    by
}

/// The effects of a call of `f`; `edges` is [`edges_by_function`].
pub fn call_effects(p: &Program, edges: &[Vec<EdgeId>], f: FuncId) -> CallEffects {
    let mut seen = HashSet::default();
    let mut work = vec![f];
    let mut globals = HashSet::default();
    let mut labels = HashSet::default();
    let mut callees = HashSet::default();
    callees.insert(p.func(f).name.clone());
    let mut writes_memory = false;
    seen.insert(f);
    while let Some(g) = work.pop() {
        for &id in &edges[g.0 as usize] {
            let e = p.edge(id);
            for l in &p.loc(e.to).labels {
                labels.insert(l.clone());
            }
            let mut assigns = |lhs: &Expr| match lhs.kind {
                ExprKind::Var(v) if !p.var(v).address_taken => {
                    if matches!(
                        p.var(v).scope,
                        Scope::Global
                            | Scope::Local {
                                is_static: true,
                                ..
                            }
                    ) {
                        globals.insert(v);
                    }
                }
                _ => writes_memory = true,
            };
            match &e.op {
                EdgeOp::Assign { lhs, .. } => assigns(lhs),
                EdgeOp::Havoc { lvalues, .. } => lvalues.iter().for_each(&mut assigns),
                EdgeOp::Call { lhs, callee, args } => {
                    if let Some(l) = lhs {
                        assigns(l);
                    }
                    let c = p.func(*callee);
                    callees.insert(c.name.clone());
                    if c.body.is_some() {
                        if seen.insert(*callee) {
                            work.push(*callee);
                        }
                    } else if !args.is_empty()
                        && !matches!(c.kind, FunctionKind::Assume | FunctionKind::Abort)
                    {
                        writes_memory = true;
                    }
                }
                EdgeOp::CallUnknown { lhs, .. } => {
                    if let Some(l) = lhs {
                        assigns(l);
                    }
                    writes_memory = true;
                }
                EdgeOp::Skip | EdgeOp::Assume { .. } | EdgeOp::Return { .. } => {}
            }
        }
    }
    let mut globals: Vec<VarId> = globals.into_iter().collect();
    globals.sort();
    let mut labels: Vec<String> = labels.into_iter().collect();
    labels.sort();
    let mut callees: Vec<String> = callees.into_iter().collect();
    callees.sort();
    CallEffects {
        globals,
        writes_memory,
        labels,
        callees,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{parse_source, FrontendOptions};

    fn effects(src: &str, f: &str) -> (Program, CallEffects) {
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let id = p.functions.iter().position(|x| x.name == f).unwrap();
        let e = call_effects(&p, &edges_by_function(&p), FuncId(id as u32));
        (p, e)
    }

    fn names(p: &Program, vs: &[VarId]) -> Vec<String> {
        vs.iter().map(|v| p.var(*v).name.clone()).collect()
    }

    #[test]
    fn effects_follow_calls_and_separate_registers_from_memory() {
        let src = r#"
            int a, b, c; int *q;
            void ext(int *p);
            void h(void) { c = 1; ERROR: ; }
            void g(int n) { int local = n; b = local; if (n) h(); }
            int f(int n) { a = n; g(n); return n ? f(n - 1) : 0; }
            int main(void) { q = &a; return f(3); }
        "#;
        let (p, e) = effects(src, "f");
        // `a` has its address taken: it lives in memory.
        assert_eq!(names(&p, &e.globals), ["b", "c"]);
        assert!(e.writes_memory);
        assert_eq!(e.labels, ["ERROR"]);
        assert_eq!(e.callees, ["f", "g", "h"]);
        let (p, e) = effects(src, "g");
        assert_eq!(names(&p, &e.globals), ["b", "c"]);
        assert!(!e.writes_memory);
        let (_, e) = effects(&src.replace("b = local;", "ext(&b);"), "g");
        assert!(e.writes_memory);
    }
}
