//! Live local variables: at each location, the local variables of its
//! function whose current value a later step of the same activation may
//! read before writing them. A value analysis forgets what it knows of a
//! dead variable, so that states differing only in values no step reads
//! again cover each other.
//!
//! Intra-procedural and syntactic: a variable is read where it occurs in
//! an expression an edge evaluates (a condition, a right-hand side, an
//! argument, a returned value, an index or base of an assigned lvalue) and
//! written by an assignment, call result or havoc whose lvalue is the
//! variable itself. Only locals and parameters whose address is never taken
//! are covered (no step reads them through a pointer), and never the
//! function's return variable (the caller reads it after the exit).
//! Everything else counts as live everywhere.

use super::{EdgeOp, LocId, Program};
use crate::ir::{Expr, ExprKind, FuncId, Scope, VarId};

/// Which covered locals are live at each location.
#[derive(Clone, Debug)]
pub struct Liveness {
    /// Per variable, if covered: its function and its bit among that
    /// function's covered locals.
    slot: Vec<Option<(FuncId, u32)>>,
    /// Per location, its function and its live covered locals as bits.
    live: Vec<(FuncId, Vec<u64>)>,
}

impl Liveness {
    /// The live locals of every location of `p` (computed once per
    /// program: [`Program::liveness`]).
    pub(super) fn of(p: &Program) -> Self {
        let mut slot = vec![None; p.vars.len()];
        let mut counts = vec![0u32; p.functions.len()];
        for f in &p.functions {
            let Some(body) = &f.body else { continue };
            for &v in f.params.iter().chain(&body.locals) {
                let var = p.var(v);
                let func = match var.scope {
                    Scope::Param { func, .. } | Scope::Temp { func } => func,
                    Scope::Local {
                        func,
                        is_static: false,
                    } => func,
                    _ => continue,
                };
                if var.address_taken || Some(v) == body.ret_var || slot[v.0 as usize].is_some() {
                    continue;
                }
                let n = &mut counts[func.0 as usize];
                slot[v.0 as usize] = Some((func, *n));
                *n += 1;
            }
        }
        let mut liveness = Liveness {
            slot,
            live: p
                .locations
                .iter()
                .map(|l| {
                    (
                        l.func,
                        vec![0; (counts[l.func.0 as usize] as usize).div_ceil(64)],
                    )
                })
                .collect(),
        };
        let mut work: Vec<LocId> = (0..p.locations.len() as u32).map(LocId).collect();
        let mut queued = vec![true; p.locations.len()];
        let mut out = Vec::new();
        while let Some(l) = work.pop() {
            queued[l.0 as usize] = false;
            let mut now = vec![0u64; liveness.live[l.0 as usize].1.len()];
            for &e in p.outgoing(l) {
                let edge = p.edge(e);
                out.clone_from(&liveness.live[edge.to.0 as usize].1);
                liveness.transfer(&edge.op, &mut out);
                for (w, o) in now.iter_mut().zip(&out) {
                    *w |= o;
                }
            }
            if now != liveness.live[l.0 as usize].1 {
                liveness.live[l.0 as usize].1 = now;
                for &e in p.incoming(l) {
                    let from = p.edge(e).from;
                    if !queued[from.0 as usize] {
                        queued[from.0 as usize] = true;
                        work.push(from);
                    }
                }
            }
        }
        liveness
    }

    /// Whether `v` is a covered local of `l`'s function that is dead at
    /// `l` (the locals of other functions, callers' included, are not).
    pub fn is_dead(&self, l: LocId, v: VarId) -> bool {
        let Some(&Some((func, bit))) = self.slot.get(v.0 as usize) else {
            return false;
        };
        let (at, live) = &self.live[l.0 as usize];
        *at == func && live[bit as usize / 64] & (1 << (bit % 64)) == 0
    }

    /// Live before an edge with operation `op`, given `set` live after it.
    fn transfer(&self, op: &EdgeOp, set: &mut [u64]) {
        let written = |lhs: &Expr, set: &mut [u64]| match lhs.kind {
            ExprKind::Var(v) => self.clear(set, v),
            _ => self.read(lhs, set),
        };
        match op {
            EdgeOp::Skip => {}
            EdgeOp::Assume { cond, .. } => self.read(cond, set),
            EdgeOp::Assign { lhs, rhs } => {
                written(lhs, set);
                self.read(rhs, set);
            }
            EdgeOp::Call { lhs, args, .. } => {
                if let Some(l) = lhs {
                    written(l, set);
                }
                args.iter().for_each(|a| self.read(a, set));
            }
            EdgeOp::CallUnknown { lhs, target, args } => {
                if let Some(l) = lhs {
                    written(l, set);
                }
                self.read(target, set);
                args.iter().for_each(|a| self.read(a, set));
            }
            EdgeOp::Return { value } => {
                if let Some(v) = value {
                    self.read(v, set);
                }
            }
            EdgeOp::Havoc { lvalues, .. } => lvalues.iter().for_each(|l| written(l, set)),
        }
    }

    /// The word and bit of `v` in a set, if it is covered.
    fn bit(&self, v: VarId) -> Option<(usize, u64)> {
        let (_, bit) = self.slot[v.0 as usize]?;
        Some((bit as usize / 64, 1 << (bit % 64)))
    }

    fn clear(&self, set: &mut [u64], v: VarId) {
        if let Some((w, b)) = self.bit(v) {
            set[w] &= !b;
        }
    }

    /// Marks the covered variables `e` reads as live in `set`.
    fn read(&self, e: &Expr, set: &mut [u64]) {
        e.walk(&mut |x| {
            if let ExprKind::Var(v) = x.kind {
                if let Some((w, b)) = self.bit(v) {
                    set[w] |= b;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::frontend::{parse_source, FrontendOptions};

    #[test]
    fn a_local_is_live_from_its_write_to_its_last_read_only() {
        let src = "int nd(void); int g; void f(void) { g = 3; } int main(void) { int a; int b; a = nd(); b = a + 1; if (b) { g = 1; } a = 2; f(); return a; }";
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let live = p.liveness();
        let main = p.func_by_name("main").unwrap();
        let var = |name: &str| {
            (0..p.vars.len() as u32)
                .map(crate::ir::VarId)
                .find(|&v| p.var(v).source_name == name)
                .unwrap()
        };
        let (a, b) = (var("a"), var("b"));
        let dead_at = |v| -> Vec<String> {
            p.edges
                .iter()
                .filter(|e| p.loc(e.from).func == main && live.is_dead(e.to, v))
                .map(|e| crate::cfa::print::op_to_string(&p, &e.op))
                .collect()
        };
        // After `b = a + 1` nothing reads the first value of `a`; after the
        // test of `b`, `b` is dead.
        assert!(
            dead_at(a).iter().any(|l| l.contains("b = a + 1")),
            "{:?}",
            dead_at(a)
        );
        assert!(!dead_at(a).iter().any(|l| l.contains("a = nd()")));
        assert!(!dead_at(a).iter().any(|l| l.contains("a = 2")));
        assert!(
            dead_at(b).iter().any(|l| l.contains("g = 1")),
            "{:?}",
            dead_at(b)
        );
        assert!(!dead_at(b).iter().any(|l| l.contains("b = a + 1")));
        // A global is never dead, nor is a local anywhere outside its own
        // function (a caller's local, while a callee runs).
        assert!(!p.edges.iter().any(|e| live.is_dead(e.to, var("g"))));
        let callee = p.func_by_name("f").unwrap();
        let in_callee: Vec<_> = p
            .edges
            .iter()
            .filter(|e| p.loc(e.to).func == callee)
            .collect();
        assert!(!in_callee.is_empty());
        assert!(!in_callee.iter().any(|e| live.is_dead(e.to, a)));
    }
}
